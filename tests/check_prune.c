/* check_prune.c - work a step or a sample may skip (issue 18): recording
 * computes only the points recorded (lib/run/record.c, lib/island/island.c), and a
 * body in no contact steps in increments so that its energy balance
 * closes to round-off however far it falls (lib/island/step.c, lib/island/kernels.c);
 * every contact's predicted compression in passes of four rows. */
#include <float.h>
#include <math.h>
#include "../tests/bridge_scene.h"
#include "island/kernels.h"
#include "testutil.h"

/* ------------------------------------------------------------ free fall */

/* A 100 g mass falling freely under gravity for 0.05 s from u0, beside two
 * contact islands (a ball bouncing on a floor, two-point; a hammer on a two-mode
 * bar held by a spring, three-point). */
static char *
free_fall_scene(double u0, double fs, int with_faller)
{
  char faller[160] = "";
  if (with_faller)
    snprintf(faller, sizeof faller,
             "{ name = \"faller\"; type = \"mass\"; mass = 0.1; u0 = %.17g; v0 = 0.0; },\n", u0);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert(f != NULL);
  fprintf(f,
          "scene = { name = \"fall\"; fs = %.17g; duration = 0.05; gravity = 9.81; };\n"
          "bodies = (\n"
          "%s"
          "{ name = \"ball\"; type = \"mass\"; mass = 0.0113; u0 = 2.385e-4; v0 = -0.317; },\n"
          "{ name = \"floor\"; type = \"wall\"; position = 0.0; },\n"
          "{ name = \"hammer\"; type = \"mass\"; mass = 0.0217; u0 = 1.0e-5; v0 = -0.613; },\n"
          "{ name = \"bar\"; type = \"modal\"; freq = [0.0, 413.7]; mass = [0.173, 0.0871];\n"
          "  quality = [1.0e9, 93.0]; points = ( { name = \"top\"; shape = [1.0, 0.83]; } ); },\n"
          "{ name = \"ground\"; type = \"wall\"; } );\n"
          "contacts = (\n"
          "{ name = \"bounce\"; between = [\"ball\", \"floor\"]; law = \"hunt-crossley\"; "
          "k = 2.3e7; alpha = 1.17; mu = 0.27; scheme = \"two-point\"; },\n"
          "{ name = \"strike\"; between = [\"hammer\", \"bar.top\"]; law = \"hunt-crossley\"; "
          "k = 3.7e8; alpha = 1.5; mu = 0.31; scheme = \"three-point\"; },\n"
          "{ name = \"hold\"; between = [\"bar.top\", \"ground\"]; law = \"spring\"; k = 2.9e4; "
          "c = 1.3; scheme = \"three-point\"; } );\n"
          "record = { signals = [\"energy/*\"]; };\n",
          fs, faller);
  ck_assert(fclose(f) == 0);
  return text;
}

/* Energy balance error of the scene free_fall_scene(u0, fs) with (falling)
 * or without (u0 NAN: the contact islands alone) the falling mass, and
 * in *scale the largest energy it moved (J). */
static double
fall_balance(double u0, double fs, double *scale)
{
  char *text = free_fall_scene(u0, fs, !isnan(u0));
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_msg(s.rc == VB_OK, "%s", vb_run_status(s.run));
  long n = vb_run_samples(s.run);
  *scale = fmax(fabs(vb_run_energy(s.run, VB_ENERGY_TOTAL)[0]),
                fmax(fabs(vb_run_energy(s.run, VB_ENERGY_EXTERNAL)[n - 1]),
                     fabs(vb_run_energy(s.run, VB_ENERGY_DISSIPATED)[n - 1])));
  double err = vb_run_balance_error(s.run);
  tu_free(&s);
  return err;
}

/* The falling mass once closed its balance only to 1.4e-8 relative from
 * u0 = 1 m alone, 1e-6 from 37 m, 4.6e-6 from -250 m (now 1.3e-13 from
 * each; the contact islands here: 2e-10): v1 = 2 (q1 - q)/h - v divided the
 * rounding of q1 (eps |u|, growing as the mass falls from u0) by h every
 * step.  Stepped in increments, the scene's balance closes to the contact
 * islands' own round-off, from any height and at any rate. */
START_TEST(test_free_fall_balance)
{
  static const double u0s[] = {0.1, 1.0, 37.0, -250.0};
  static const double rates[] = {44100.0, 96000.0};
  double fs = rates[_i % 2], u0 = u0s[_i / 2];
  double scale0, scale;
  double alone = fall_balance(NAN, fs, &scale0);
  double err = fall_balance(u0, fs, &scale);
  /* the contact islands' own drift, and for the mass round-off: a few eps
   * of its energy per step */
  double steps = 0.05 * fs;
  double bound = fabs(alone) + 8.0 * steps * DBL_EPSILON * scale;
  ck_assert_msg(fabs(err) <= bound, "u0 %g, fs %g: balance %g of %g (islands alone %g, bound %g)",
                u0, fs, err, scale, alone, bound);
}
END_TEST

/* A mass alone: the increments keep the exact free fall (the trapezoidal
 * rule is exact for constant acceleration) and its balance. */
START_TEST(test_free_fall_alone)
{
  const char *text =
    "scene = { name = \"drop\"; fs = 44100.0; duration = 0.05; gravity = 9.81; };\n"
    "bodies = ( { name = \"faller\"; type = \"mass\"; mass = 0.1; u0 = 3.7; v0 = 0.3; } );\n";
  tu_sim s = tu_run_text(text);
  ck_assert_msg(s.rc == VB_OK, "%s", vb_run_status(s.run));
  long n = vb_run_samples(s.run);
  const double *u = vb_run_body_u(s.run, 0), *v = vb_run_body_v(s.run, 0);
  double eu = 0.0, ev = 0.0;
  for (long k = 0; k < n; k++) {
    double t = k / 44100.0;
    eu = fmax(eu, fabs(u[k] - (3.7 + 0.3 * t - 0.5 * 9.81 * t * t)));
    ev = fmax(ev, fabs(v[k] - (0.3 - 9.81 * t)));
  }
  /* u rounds to eps |u| per step; v to eps |v| per step */
  ck_assert_msg(eu < 4.0 * n * DBL_EPSILON * 3.7, "u off by %g", eu);
  ck_assert_msg(ev < 4.0 * n * DBL_EPSILON * 0.5, "v off by %g", ev);
  double ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL)[n - 1];
  ck_assert_msg(fabs(vb_run_balance_error(s.run)) < 4.0 * n * DBL_EPSILON * fabs(ext),
                "balance %g of %g", vb_run_balance_error(s.run), ext);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------ recording */

/* A string of `modes` modes (preset) with `npts` points at random
 * positions, the first `ncont` of them on a wall by power-law contacts of
 * `scheme`, plucked; recording `record` (a list of globs). */
static char *
string_scene(unsigned *seed, int modes, int npts, int ncont, const char *scheme,
             const char *record)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert(f != NULL);
  fprintf(f,
          "scene = { name = \"s\"; fs = 96000.0; duration = 0.005; gravity = 0.0; };\n"
          "bodies = (\n  { name = \"wall\"; type = \"wall\"; },\n"
          "  { name = \"string\"; type = \"modal\";\n"
          "    preset = { kind = \"string\"; nmodes = %d; length = 1.0; tension = 40.0; "
          "linear_density = 1.0e-3; };\n    q0 = [",
          modes);
  for (int n = 1; n <= modes; n++)
    fprintf(f, "%s%.17g", n > 1 ? ", " : "",
            2e-3 * sin(n * M_PI * 0.3) / (n * n * M_PI * M_PI * 0.3 * 0.7));
  fprintf(f, "];\n    points = (\n");
  for (int i = 0; i < npts; i++)
    fprintf(f, "      { name = \"p%d\"; x = %.17g; }%s\n", i,
            0.01 + 0.98 * rand_r(seed) / (double)RAND_MAX, i + 1 < npts ? "," : "");
  fprintf(f, "    ); } );\ncontacts = (\n");
  for (int i = 0; i < ncont; i++)
    fprintf(f,
            "  { name = \"c%d\"; between = [\"wall\", \"string.p%d\"]; law = \"power\"; "
            "k = 1.0e9; alpha = 1.5; gap = %.17g; scheme = \"%s\"; }%s\n",
            i, i, 1e-5 + 2e-4 * rand_r(seed) / (double)RAND_MAX, scheme,
            i + 1 < ncont ? "," : "");
  fprintf(f, ");\nrecord = { modes = true; signals = [%s]; };\n", record);
  ck_assert(fclose(f) == 0);
  return text;
}

/* Recording one point of a body computes only that point per sample:
 * random strings (up to 300 modes, up to 120 points, some in contact, two-
 * and three-level), one point chosen at random, recorded alone and with
 * every point: the same values, bit for bit. */
START_TEST(test_record_one_point)
{
  static const char *const schemes[] = {"two-point", "three-point"};
  unsigned seed = 1009u + 7919u * (unsigned)_i;
  int modes = 5 + rand_r(&seed) % 296, npts = 1 + rand_r(&seed) % 120;
  int ncont = 1 + rand_r(&seed) % (npts < 8 ? npts : 8), pick = rand_r(&seed) % npts;
  const char *scheme = schemes[_i % 2];
  char one[64];
  snprintf(one, sizeof one, "\"bodies/string/p%d/*\"", pick);
  unsigned s1 = seed, s2 = seed;
  char *ta = string_scene(&s1, modes, npts, ncont, scheme, "\"*\"");
  char *tb = string_scene(&s2, modes, npts, ncont, scheme, one);
  tu_sim a = tu_run_text(ta), b = tu_run_text(tb);
  free(ta);
  free(tb);
  ck_assert_msg(a.rc == VB_OK && b.rc == VB_OK, "%s / %s", vb_run_status(a.run),
                vb_run_status(b.run));
  long n = vb_run_samples(a.run);
  ck_assert_int_eq(n, vb_run_samples(b.run));
  const double *ua = vb_run_point_u(a.run, 1, pick), *ub = vb_run_point_u(b.run, 1, pick);
  const double *va = vb_run_point_v(a.run, 1, pick), *vb = vb_run_point_v(b.run, 1, pick);
  ck_assert(ua && ub && va && vb);
  /* the other points are not recorded */
  for (int p = 0; p < npts; p++)
    ck_assert(p == pick || vb_run_point_u(b.run, 1, p) == NULL);
  double peak = 0.0;
  for (long k = 0; k < n; k++) {
    ck_assert_msg(memcmp(&ua[k], &ub[k], sizeof(double)) == 0 &&
                    memcmp(&va[k], &vb[k], sizeof(double)) == 0,
                  "%d modes, %d points, %s: point %d differs at sample %ld (%.17g vs %.17g)",
                  modes, npts, scheme, pick, k, ua[k], ub[k]);
    peak = fmax(peak, fabs(ua[k]));
  }
  ck_assert(peak > 0.0); /* the point moves */
  /* every point of the all-points run against its own sum over the
   * recorded modes (an independent dot product) */
  const vb_body *body = &a.scene->bodies[1];
  const double *q = vb_run_modes_q(a.run, 1);
  ck_assert(q != NULL);
  for (int p = 0; p < npts; p++) {
    const double *u = vb_run_point_u(a.run, 1, p);
    for (long k = 0; k < n; k++) {
      long double sum = 0.0L, mag = 0.0L;
      for (int j = 0; j < modes; j++) {
        sum += (long double)body->points[p].shape[j] * q[(size_t)j * n + k];
        mag += fabsl((long double)body->points[p].shape[j] * q[(size_t)j * n + k]);
      }
      ck_assert_msg(fabsl(u[k] - sum) <= 4.0L * modes * DBL_EPSILON * mag,
                    "point %d at sample %ld: %.17g, its modes give %.17Lg", p, k, u[k], sum);
    }
  }
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* The tanpura-like bridge (64 points) recording its pickup alone, as
 * bench_strings runs it, against recording every point. */
START_TEST(test_record_bridge_pickup)
{
  char *ta = bridge_scene(200, 64, 0.02, "two-point", "");
  char *tb = bridge_scene(200, 64, 0.02, "two-point", "");
  tu_replace(&ta, "\"bodies/string/pickup/*\"", "\"*\"");
  tu_sim a = tu_run_text(ta), b = tu_run_text(tb);
  free(ta);
  free(tb);
  ck_assert_msg(a.rc == VB_OK && b.rc == VB_OK, "%s / %s", vb_run_status(a.run),
                vb_run_status(b.run));
  long n = vb_run_samples(a.run);
  int pickup = 64;
  ck_assert(vb_run_point_u(a.run, 1, 0) != NULL && vb_run_point_u(b.run, 1, 0) == NULL);
  ck_assert(memcmp(vb_run_point_u(a.run, 1, pickup), vb_run_point_u(b.run, 1, pickup),
                   (size_t)n * sizeof(double)) == 0);
  ck_assert(memcmp(vb_run_point_v(a.run, 1, pickup), vb_run_point_v(b.run, 1, pickup),
                   (size_t)n * sizeof(double)) == 0);
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* ------------------------------------------------------------- kernels */

/* vb_kernel_dots (every contact's predicted compression, four rows per
 * pass) against vb_kernel_dot row by row, bit for bit, and against an
 * independent long-double sum: random rows and sizes (1 to 70 rows, 8 to
 * 1200 modes), values over many magnitudes. */
START_TEST(test_kernel_dots)
{
  unsigned seed = 31337u + 101u * (unsigned)_i;
  int nmp = 8 * (1 + rand_r(&seed) % 150), nrows = 1 + rand_r(&seed) % 70;
  double *S = malloc((size_t)nrows * nmp * sizeof *S), *b = malloc((size_t)nmp * sizeof *b);
  double *out = malloc((size_t)nrows * sizeof *out);
  ck_assert(S && b && out);
  for (int j = 0; j < nmp; j++)
    b[j] = (rand_r(&seed) / (double)RAND_MAX - 0.5) * pow(10.0, rand_r(&seed) % 9 - 4);
  for (size_t k = 0; k < (size_t)nrows * nmp; k++)
    S[k] = (rand_r(&seed) / (double)RAND_MAX - 0.5) * pow(10.0, rand_r(&seed) % 5 - 2);
  vb_kernel_dots(nmp, nrows, S, b, out);
  for (int r = 0; r < nrows; r++) {
    const double *row = S + (size_t)r * nmp;
    double one = vb_kernel_dot(0, nmp, row, b);
    ck_assert_msg(memcmp(&one, &out[r], sizeof one) == 0, "%d rows, %d modes: row %d %.17g vs %.17g",
                  nrows, nmp, r, out[r], one);
    long double sum = 0.0L, mag = 0.0L;
    for (int j = 0; j < nmp; j++) {
      sum += (long double)row[j] * b[j];
      mag += fabsl((long double)row[j] * b[j]);
    }
    ck_assert_msg(fabsl(out[r] - sum) <= 2.0L * nmp * DBL_EPSILON * mag, "row %d: %.17g vs %.17Lg",
                  r, out[r], sum);
  }
  free(S);
  free(b);
  free(out);
}
END_TEST

static Suite *
prune_suite(void)
{
  Suite *s = suite_create("prune");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 120);
  tcase_add_loop_test(core, test_free_fall_balance, 0, 8);
  tcase_add_test(core, test_free_fall_alone);
  tcase_add_loop_test(core, test_record_one_point, 0, 12);
  tcase_add_test(core, test_record_bridge_pickup);
  tcase_add_loop_test(core, test_kernel_dots, 0, 40);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(prune_suite());
}
