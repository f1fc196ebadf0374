/* check_strings.c - the proof of issue 18 on strings: an ideal string
 * released onto a flat barrier against its exact d'Alembert solution
 * (tests/dalembert.h, doc/dalembert.md), with the observed order of
 * convergence; the fretted bass against a run of itself at 8x the rate. */
#include <math.h>

#include "testutil.h"
#include "dalembert.h"

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

/* The ideal string on its barrier at 44.1, 88.2 and 176.4 kHz, the modes
 * and barrier points refined with the rate (100, 200, 400: every mode
 * below fs/4), k = 1e11 N/m^1.5, alpha 1.5, over 1.3 periods of the free
 * string (every point bounces).  First order is what can be justified
 * (doc/dalembert.md): the exact solution's velocity jumps at every bounce,
 * and a discrete contact lasts at least one step (two-point) or two
 * (three-point: Chatziioannou & van Walstijn's minimum durations), so each
 * bounce comes O(h) late; the modal truncation of the kinks is O(1/N).
 * Measured: p = 0.82 to 0.99 in both norms and both schemes.  Asserted:
 * 0.75 < p < 1.25 for each doubling.  A scheme that missed the barrier or
 * converged to another solution stalls at p near 0; p well above 1 means
 * errors cancelling (a string 0.2 % too fast gives 2.2). */
START_TEST(test_dalembert_order)
{
  static const char *const schemes[] = {"three-point", "two-point"};
  const char *scheme = schemes[_i];
  dal_result r[3];
  char err[2048] = "";
  for (int i = 0; i < 3; i++) {
    int m = 100 << i;
    r[i] = dal_run(44100.0 * (1 << i), 0.012, m, m, 1e11, 1.5, scheme, err, sizeof err);
    ck_assert_msg(r[i].rc == VB_OK, "%s at %d modes: %s", scheme, m, err);
    ck_assert_int_gt(r[i].impacts, r[i].npoints); /* every point bounces, most more than once */
    printf("d'Alembert, %s: fs %6.1f kHz, %3d modes and points: max error %.3e m (%.2f %% of the "
           "pluck), rms %.3e m",
           scheme, 44.1 * (1 << i), m, r[i].max, 100.0 * r[i].max / dal_case.height, r[i].rms);
    if (i > 0)
      printf(", order %.2f (max), %.2f (rms)", log2(r[i - 1].max / r[i].max),
             log2(r[i - 1].rms / r[i].rms));
    printf("\n");
  }
  for (int i = 1; i < 3; i++) {
    double pmax = log2(r[i - 1].max / r[i].max), prms = log2(r[i - 1].rms / r[i].rms);
    ck_assert_msg(pmax > 0.75 && prms > 0.75 && pmax < 1.25 && prms < 1.25, "%s: observed order %.3f (max), %.3f (rms) at %g kHz",
                  scheme, pmax, prms, 44.1 * (1 << i));
  }
}
END_TEST

/* The exact solution is the free string's absolute value: it never goes
 * below the barrier, it is the free string until the first touch, its
 * energy (the free string's, checked on a grid) does not change, and it
 * is periodic in 2L/c. */
START_TEST(test_dalembert_exact)
{
  const dal_string *s = &dal_case;
  double c = sqrt(s->tension / s->density), period = 2.0 * s->length / c;
  ck_assert(dal_exact(s, s->x0, 0.0) == s->height);
  for (int i = 0; i <= 1000; i++) {
    double x = s->length * i / 1000.0;
    ck_assert(fabs(dal_free(s, x, 0.0) - dal_pluck(s, x)) < 1e-18);
    for (int j = 0; j < 97; j++) {
      double t = period * j / 41.3;
      ck_assert(dal_exact(s, x, t) >= 0.0);
      ck_assert(fabs(dal_exact(s, x, t + period) - dal_exact(s, x, t)) < 1e-15);
    }
  }
  /* the first touch: the kink leaving x0 toward the nearer end reaches
   * it at x0/c, and the string near that end then goes below zero */
  double t_touch = fmin(s->x0, s->length - s->x0) / c;
  for (int i = 1; i < 1000; i++) {
    double x = s->length * i / 1000.0;
    ck_assert(dal_free(s, x, 0.999 * t_touch) >= -1e-18);
  }
  int below = 0;
  for (int i = 1; i < 1000; i++)
    below += dal_free(s, s->length * i / 1000.0, 1.2 * t_touch) < 0.0;
  ck_assert_int_gt(below, 0);
}
END_TEST

/* scenes/NAME at fs for duration s, loaded from the source tree (its
 * data files beside it) and run; the caller frees it with tu_free. */
static tu_sim
run_source_scene(const char *name, double fs, double duration)
{
  char path[4096], err[2048], with[256];
  snprintf(path, sizeof path, "%s/%s", TEST_SRCDIR, name);
  char *text = tu_read(name);
  snprintf(with, sizeof with, "fs = %.17e; duration = %.17e;", fs, duration);
  tu_replace(&text, "fs = 62720.0; duration = 0.1;", with);
  tu_sim s = {NULL, NULL, 0};
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  s.rc = vb_run_exec(s.run);
  free(text);
  return s;
}

/* Largest and root-mean-square difference (m) of the pickup of run a,
 * sampled at fs, and of run b at ratio fs, over a's samples. */
static void
pickup_difference(const tu_sim *a, const tu_sim *b, long ratio, double *max, double *rms)
{
  long na = vb_run_samples(a->run), nb = vb_run_samples(b->run), n = 0;
  const double *ua = vb_run_point_u(a->run, 1, 0), *ub = vb_run_point_u(b->run, 1, 0);
  double sum = 0.0;
  *max = 0.0;
  for (long i = 0; i < na && i * ratio < nb; i++, n++) {
    double d = ua[i] - ub[i * ratio];
    *max = fmax(*max, fabs(d));
    sum += d * d;
  }
  *rms = sqrt(sum / (double)n);
}

/* The fretted bass (scenes/bass-fretted.cfg: 862 modes, 20 frets) for
 * 6 ms (it first slaps a fret at 4 ms) at the published 62.72 kHz, at 2x,
 * 4x and against a reference run of itself at 8x.  Its contacts last about
 * 1 us, far below a step at all four rates, where the d'Alembert case
 * converges at first order; here the first differences shrink more slowly
 * (which frets are hit, and how often, still changes with the rate).  The bound is derived from the observed convergence: with
 * D1 = |u_1 - u_2|, D2 = |u_2 - u_4| (subscripts: the rate's multiple) and
 * the ratio r = D2/D1 they show, the reference's step D3 = |u_4 - u_8|
 * must be <= r D2 (the convergence does not slow down), and so
 * |u_1 - u_8| <= D1 + D2 + D3 <= D1 + D2 + r D2 (in either norm; the
 * triangle inequality).  Measured (rms): D1 7.5e-5 m, D2 5.4e-5 m
 * (p = 0.48), D3 3.1e-5 m (bound 3.8e-5), |u_1 - u_8| 1.5e-4 m (bound
 * 1.7e-4 m): 5.5 % of the pickup's peak.  A reference plucked 1 % too
 * high gives D3 4.5e-5 m and fails. */
START_TEST(test_bass_reference)
{
  const double fs = 62720.0, duration = 0.006;
  tu_sim s[4];
  for (int i = 0; i < 4; i++) {
    s[i] = run_source_scene("scenes/bass-fretted.cfg", fs * (1 << i), duration);
    ck_assert_msg(s[i].rc == VB_OK, "at %g Hz: %s", fs * (1 << i), vb_run_status(s[i].run));
    long impacts = 0;
    for (int c = 0; c < s[i].scene->ncontacts; c++)
      impacts += vb_run_contact(s[i].run, c)->nevents;
    ck_assert_int_gt(impacts, 0);
  }
  double dmax[3], drms[3], emax, erms, peak = 0.0;
  for (int i = 0; i < 3; i++)
    pickup_difference(&s[i], &s[i + 1], 2, &dmax[i], &drms[i]);
  pickup_difference(&s[0], &s[3], 8, &emax, &erms);
  const double *u = vb_run_point_u(s[3].run, 1, 0);
  for (long i = 0; i < vb_run_samples(s[3].run); i++)
    peak = fmax(peak, fabs(u[i]));
  double rmax = dmax[1] / dmax[0], rrms = drms[1] / drms[0];
  double bmax = dmax[0] + dmax[1] + rmax * dmax[1], brms = drms[0] + drms[1] + rrms * drms[1];
  printf("bass at 62.72 kHz against itself at 8x, 6 ms: differences of successive rates %.3e, "
         "%.3e, %.3e m rms (orders %.2f, %.2f; D3 bound %.3e), %.3e, %.3e, %.3e m max (D3 bound "
         "%.3e); to the reference %.3e m rms (bound %.3e), %.3e m max (bound %.3e): %.1f %% of "
         "the pickup's peak %.3e m\n",
         drms[0], drms[1], drms[2], log2(drms[0] / drms[1]), log2(drms[1] / drms[2]),
         rrms * drms[1], dmax[0], dmax[1], dmax[2], rmax * dmax[1], erms, brms, emax, bmax,
         100.0 * erms / peak, peak);
  ck_assert_msg(rrms < 1.0 && rmax < 1.0, "no convergence: D2/D1 = %g (rms), %g (max)", rrms, rmax);
  ck_assert_msg(drms[2] <= rrms * drms[1] && dmax[2] <= rmax * dmax[1],
                "the convergence slows toward the reference: D3 = %g > %g (rms) or %g > %g (max)",
                drms[2], rrms * drms[1], dmax[2], rmax * dmax[1]);
  ck_assert_msg(erms <= brms && emax <= bmax,
                "the reference is further than the convergence allows: %g > %g (rms) or %g > %g "
                "(max)",
                erms, brms, emax, bmax);
  for (int i = 0; i < 4; i++)
    tu_free(&s[i]);
}
END_TEST

/* A lossless stiff string (the bass's L, T and mu, 862 modes with
 * inharmonicity B = 3.5e-5, no damping) plucked 3.6 mm down into the
 * fretless neck's 862 points (scenes/bass-fretless-neck.csv) at
 * 62.72 kHz for 20 ms: most points close, many of them many times, and the
 * discrete energy of the two-point and three-point schemes stays constant
 * to 1e-12 relative (measured: three-point 791 of 862 points, 4,064
 * impacts, drift 4.2e-13; two-point, which drops the 658 modes above
 * fs/2, 568 points, 1,678 impacts, 4.9e-13). */
START_TEST(test_lossless_neck)
{
  static const char *const schemes[] = {"three-point", "two-point"};
  char text[4096], err[2048];
  snprintf(text, sizeof text,
           "scene = { name = \"neck\"; fs = 62720.0; duration = 0.02; gravity = 0.0; };\n"
           "bodies = ( { name = \"neck\"; type = \"wall\"; },\n"
           "  { name = \"string\"; type = \"modal\";\n"
           "    preset = { kind = \"string\"; nmodes = 862; length = 0.863; tension = 191.6;\n"
           "      linear_density = 0.0067; inharmonicity = 3.5e-5; pluck = [0.64, -3.6e-3]; };\n"
           "    points = ( { name = \"pickup\"; x = 0.501; } ); } );\n"
           "contacts = ( { name = \"neck\"; between = [\"neck\", \"string\"]; law = \"power\";\n"
           "  k = 1e10; alpha = 1.5; scheme = \"%s\"; max_iterations = 1000;\n"
           "  points = { file = \"bass-fretless-neck.csv\"; };\n"
           "  profile = { file = \"bass-fretless-neck.csv\"; }; } );\n",
           schemes[_i]);
  char path[4096];
  snprintf(path, sizeof path, "%s/scenes/lossless-neck.cfg", TEST_SRCDIR);
  tu_sim s = {NULL, NULL, 0};
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(vb_run_exec(s.run), VB_OK);
  ck_assert_int_eq(s.scene->ncontacts, 862);
  long n = vb_run_samples(s.run), impacts = 0;
  int closed = 0;
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  double drift = 0.0;
  for (long i = 0; i < n; i++)
    drift = fmax(drift, fabs(e[i] - e[0]) / e[0]);
  for (int c = 0; c < s.scene->ncontacts; c++) {
    long k = vb_run_contact(s.run, c)->nevents;
    impacts += k;
    closed += k > 0;
  }
  printf("lossless string on the fretless neck, %s: %d of 862 points closed, %ld impacts, energy "
         "drift %.2e\n",
         schemes[_i], closed, impacts, drift);
  ck_assert_int_gt(closed, 500);
  ck_assert_int_gt(impacts, 1500);
  ck_assert_msg(drift < 1e-12, "%s: energy drift %g", schemes[_i], drift);
  tu_free(&s);
}
END_TEST

static Suite *
strings_suite(void)
{
  Suite *s = suite_create("strings");
  TCase *t = tcase_create("dalembert");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_dalembert_exact);
  tcase_add_loop_test(t, test_dalembert_order, 0, 2);
  suite_add_tcase(s, t);
  t = tcase_create("bass");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_bass_reference);
  tcase_add_loop_test(t, test_lossless_neck, 0, 2);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return tu_main(strings_suite());
}
