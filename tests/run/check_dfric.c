/* check_dfric.c - friction on a distributed contact (lib/island/
 * friction_dist.c; issue 30, items 2 and 4; doc/friction.md "Friction on
 * a distributed contact"), against references written here:
 *   - a one-mode string on a distributed contact of one point equals the
 *     same string on a point contact at that point, bit for bit (w, u,
 *     the energies; ft by value), under two-point and three-point;
 *   - a held string: a string pressed on one fret at its static
 *     equilibrium (written here from the modes: u_j = -phi_j f / (M_j
 *     w_j^2), f = k d / (1 + k S)), displaced along w to the static shape
 *     of a point force of 0.6 mu_s N, does not creep over 10^5 steps;
 *   - random strings on random frets with random friction laws, several
 *     islands (strings, and a block on a belt beside them): the energy
 *     balance to round-off, no friction force outside its cone, the
 *     friction work never falling, the points apart without force;
 *   - the fretless neck's 862 points (Kt formed from the rows of the
 *     touching points at each step): the balance, the cone, ft against
 *     the slip;
 *   - many points on few modes (friction_solve.c's block solves): Coulomb,
 *     the Stribeck and bow curves, the exponential curve and the
 *     elasto-plastic bristle on nine frets of a nine-mode string, each
 *     force the law's at its recorded slip (the curves and the bristle's
 *     step written here), the failure of the block's Newton reported
 *     (a test hook caps it), and the solves alone on random low-rank
 *     problems;
 *   - the loader's messages for pluck_angle. */
#include <float.h>
#include <math.h>
#include "../testutil.h"
#include "scheme.h" /* vb_friction_solve, vb_fproblem */

/* Instance i's samples of the signal row `name` of `object`, or NULL. */
static const double *
series(const tu_sim *s, vb_signal_object object, const char *name, int i)
{
  int nt;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++)
    if (t[r].object == object && strcmp(t[r].name, name) == 0)
      return vb_signal_data(s->run, &t[r], i);
  return NULL;
}

/* The instance of point signal `name` at body b's point p. */
static const double *
point_series(const tu_sim *s, const char *name, int b, int p)
{
  int nt, bp;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++) {
    if (t[r].object != VB_SIGNAL_POINT || strcmp(t[r].name, name) != 0)
      continue;
    for (int i = 0, n = vb_signal_count(&t[r], s->scene); i < n; i++)
      if (vb_signal_body(&t[r], s->scene, i, &bp) == b && bp == p)
        return vb_signal_data(s->run, &t[r], i);
  }
  return NULL;
}

/* ------------------------------------------------- one point = a point */

/* A one-mode string (a mass-like single mode along u and w), plucked 37
 * degrees off u, bouncing on a barrier 0.4 mm below it at x = 0.31 m with
 * Coulomb friction: as a distributed contact of one point, or as a point
 * contact at the point "p" there. */
static char *
one_mode_text(const char *scheme, int distributed)
{
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "scene = { name = \"one\"; fs = 44100.0; duration = 0.3; gravity = 0.0; };\n"
           "bodies = ( { name = \"fret\"; type = \"wall\"; },\n"
           "  { name = \"string\"; type = \"modal\"; directions = [\"u\", \"w\"]; pluck_angle = 37.0;\n"
           "    preset = { kind = \"string\"; nmodes = 1; length = 0.83; tension = 71.3;\n"
           "               linear_density = 0.00213; pluck = [0.47, -0.0023]; };\n"
           "    points = ( { name = \"pickup\"; x = 0.53; }, { name = \"p\"; x = 0.31; } ); } );\n"
           "contacts = ( %s law = \"power\"; k = 3.7e6; alpha = 1.5; scheme = \"%s\";\n"
           "    friction = { law = \"coulomb\"; mu_s = 0.43; mu_k = 0.29; }; } );\n"
           "record = { signals = [\"bodies/string/pickup/*\", \"energy/*\", \"contacts/*/ft\", "
           "\"contacts/*/stick\", \"contacts/*/normal\"]; };\n",
           distributed ? "{ name = \"frets\"; between = [\"fret\", \"string\"]; points = { x = [0.31]; "
                         "}; profile = { height = -0.0004; };"
                       : "{ name = \"frets\"; between = [\"fret\", \"string.p\"]; gap = 0.0004;",
           scheme);
  return buf;
}

START_TEST(test_one_point_is_a_point)
{
  static const char *const schemes[] = {"two-point", "three-point"};
  tu_sim a = tu_run_text(one_mode_text(schemes[_i], 1));
  char *t = strdup(one_mode_text(schemes[_i], 0));
  tu_sim b = tu_run_text(t);
  free(t);
  ck_assert_int_eq(a.rc, VB_OK);
  ck_assert_int_eq(b.rc, VB_OK);
  long n = vb_run_samples(a.run);
  ck_assert_int_eq(n, vb_run_samples(b.run));
  const char *pts[] = {"u", "w", "vw"};
  for (int k = 0; k < 3; k++) {
    const double *x = point_series(&a, pts[k], 1, 0), *y = point_series(&b, pts[k], 1, 0);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_msg(memcmp(x, y, (size_t)n * sizeof *x) == 0, "%s: pickup %s differs", schemes[_i],
                  pts[k]);
  }
  for (int e = 0; e < 5; e++)
    ck_assert(memcmp(vb_run_energy(a.run, e), vb_run_energy(b.run, e), (size_t)n * sizeof(double)) ==
              0);
  const double *fa = series(&a, VB_SIGNAL_CONTACT, "ft", 0), *fb = series(&b, VB_SIGNAL_CONTACT, "ft", 0);
  const double *sa = series(&a, VB_SIGNAL_CONTACT, "stick", 0);
  const double *na = series(&a, VB_SIGNAL_CONTACT, "normal", 0);
  ck_assert_ptr_nonnull(fa);
  ck_assert_ptr_nonnull(fb);
  long sticks = 0, slips = 0, apart = 0;
  for (long k = 0; k < n; k++) {
    ck_assert_msg(fa[k] == fb[k], "%s: ft differs at sample %ld: %g, %g", schemes[_i], k, fa[k], fb[k]);
    if (na[k] == 0.0)
      apart++;
    else if (sa[k] == 1.0)
      sticks++;
    else
      slips++;
  }
  /* the case has all three */
  ck_assert_msg(sticks > 10 && slips > 10 && apart > 10, "%s: %ld sticks, %ld slips, %ld apart",
                schemes[_i], sticks, slips, apart);
  printf("one point = a point (%s): %ld samples bit for bit (%ld stick, %ld slip, %ld apart)\n",
         schemes[_i], n, sticks, slips, apart);
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* ------------------------------------------------------ a held string */

/* Six modes of a 0.65 m string (60 N, 1 g/m: f1 = 188 Hz), undamped, on
 * one fret at x = 0.237 m a height d above the barrier's contact (the
 * fret pushes it down: between = [string, fret], height -d), held at its
 * static equilibrium along u and displaced along w to the static shape of
 * a point force Fw = 0.6 mu_s N at the fret.  Static friction holds it:
 * the point must not move along w over 10^5 steps. */
#define HOLD_MODES 6
#define HOLD_X     0.237
#define HOLD_D     3.1e-4
#define HOLD_K     2.3e5
#define HOLD_MU    0.41
START_TEST(test_held_string)
{
  static const char *const schemes[] = {"two-point", "three-point"};
  static const char head[] =
      "scene = { name = \"held\"; fs = 44100.0; duration = %.17g; gravity = 0.0; };\n"
      "bodies = ( { name = \"fret\"; type = \"wall\"; },\n"
      "  { name = \"string\"; type = \"modal\"; directions = [\"u\", \"w\"]; %s\n"
      "    preset = { kind = \"string\"; nmodes = %d; length = 0.65; tension = 60.0;\n"
      "               linear_density = 0.001; };\n"
      "    points = ( { name = \"hold\"; x = %.17g; }, { name = \"mid\"; x = 0.41; } ); } );\n"
      "contacts = ( { name = \"frets\"; between = [\"string\", \"fret\"]; points = { x = [%.17g]; };\n"
      "    profile = { height = %.17g; }; law = \"power\"; k = %.17g; alpha = 1.0; scheme = \"%s\";\n"
      "    friction = { law = \"coulomb\"; mu_s = %.17g; mu_k = 0.3; }; } );\n"
      "record = { signals = [\"bodies/string/*/w\", \"contacts/*/ft\", \"contacts/*/stick\", "
      "\"contacts/*/normal\", \"energy/*\"]; };\n";
  char text[8192], init[4096];
  /* the modes, from the loaded scene */
  snprintf(text, sizeof text, head, 0.001, "", HOLD_MODES, HOLD_X, HOLD_X, -HOLD_D, HOLD_K,
           schemes[_i], HOLD_MU);
  vb_scene *sc;
  char err[1024];
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  const vb_body *b = &sc->bodies[1];
  ck_assert_int_eq(b->nmodes, HOLD_MODES);
  const double *phi = b->points[0].shape;
  double S = 0.0, kj[HOLD_MODES];
  for (int j = 0; j < HOLD_MODES; j++) {
    double om = 2.0 * M_PI * b->freq[j];
    kj[j] = b->modal_mass[j] * om * om;
    S += phi[j] * phi[j] / kj[j];
  }
  /* along u: the fret pushes down with f = k (u + d) = k d / (1 + k S) */
  /* the share of mu_s N the string loads the fret with: 0.6, and 0.2
   * under three-point, whose start is not at the static state (its q^-1
   * from the free modes: N swings from 0.133 to 0.07 N and back in the
   * first steps), which a load of 0.6 mu_s N would break */
  double f = HOLD_K * HOLD_D / (1.0 + HOLD_K * S), fw = (_i ? 0.2 : 0.6) * HOLD_MU * f;
  int at = snprintf(init, sizeof init, "q0 = [");
  for (int j = 0; j < HOLD_MODES; j++)
    at += snprintf(init + at, sizeof init - at, "%s%.17g", j ? ", " : "", -phi[j] * f / kj[j]);
  at += snprintf(init + at, sizeof init - at, "]; wq0 = [");
  for (int j = 0; j < HOLD_MODES; j++)
    at += snprintf(init + at, sizeof init - at, "%s%.17g", j ? ", " : "", phi[j] * fw / kj[j]);
  snprintf(init + at, sizeof init - at, "];");
  vb_scene_free(sc);
  long steps = 100000;
  snprintf(text, sizeof text, head, steps / 44100.0, init, HOLD_MODES, HOLD_X, HOLD_X, -HOLD_D,
           HOLD_K, schemes[_i], HOLD_MU);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  ck_assert_int_eq(n, steps + 1);
  const double *w = point_series(&s, "w", 1, 0), *wm = point_series(&s, "w", 1, 1);
  const double *ft = series(&s, VB_SIGNAL_CONTACT, "ft", 0);
  const double *st = series(&s, VB_SIGNAL_CONTACT, "stick", 0);
  const double *N = series(&s, VB_SIGNAL_CONTACT, "normal", 0);
  double w0 = w[0], creep = 0.0, ftlo = INFINITY, fthi = 0.0, nlo = INFINITY, mid = 0.0;
  for (long k = 1; k < n; k++) {
    creep = fmax(creep, fabs(w[k] - w0));
    if (k < 6 && getenv("DFRIC_PRINT"))
      printf("k %ld N %.17g ft %.17g stick %g w %.17g\n", k, N[k], ft[k], st[k], w[k]);
    ck_assert_msg(st[k] == 1.0, "%s: slips at sample %ld", schemes[_i], k);
    ck_assert(fabs(ft[k]) <= HOLD_MU * N[k]);
    ftlo = fmin(ftlo, fabs(ft[k]));
    fthi = fmax(fthi, fabs(ft[k]));
    nlo = fmin(nlo, N[k]);
    mid = fmax(mid, fabs(wm[k] - wm[0]));
  }
  printf("held string (%s): w = %.6g m at the fret, moved by %.3g m over %ld steps; |ft| %.6g to "
         "%.6g N (Fw %.6g N), N >= %.6g N (%.6g), the string at x = 0.41 moving by %.3g m\n",
         schemes[_i], w0, creep, steps, ftlo, fthi, fw, nlo, f, mid);
  /* the held point's motion is the stick's round-off over the steps (a
   * few ulps of w a step, at most): 1e5 steps of 4 ulps of w0 */
  ck_assert_msg(creep <= 1e5 * 4.0 * DBL_EPSILON * fabs(w0), "%s: creeps %g m of %g", schemes[_i],
                creep, w0);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------- random strings */

/* A small deterministic generator (splitmix64). */
static unsigned long long
next(unsigned long long *x)
{
  unsigned long long z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double
uniform(unsigned long long *x, double lo, double hi)
{
  return lo + (hi - lo) * (double)(next(x) >> 11) / 9007199254740992.0;
}

/* The friction group of law k (0 coulomb, 1 stribeck, 2 bow, 3
 * exponential, 4 elasto-plastic) and its bound on |ft| / N. */
static const char *
law_text(int k, double *bound)
{
  static const char *const g[] = {
      "friction = { law = \"coulomb\"; mu_s = 0.47; mu_k = 0.31; };",
      "friction = { law = \"stribeck\"; mu_s = 0.52; mu_k = 0.27; v_s = 0.013; };",
      "friction = { law = \"bow\"; mu_s = 0.8; mu_d = 0.3; v0 = 0.1; };",
      "friction = { law = \"exponential\"; a = 100.0; };",
      "friction = { law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.35; v_s = 0.02; sigma0 = 1e5; "
      "sigma1 = 1.0; sigma2 = 0.0; z_ba = 0.7; };"};
  static const double b[] = {0.47, 0.52, 0.8, 1.0, NAN};
  *bound = b[k];
  return g[k];
}

/* Scene `seed`: 1 to 3 strings, each with its frets (1 to 6 points above
 * or below it, at least 4 modes a point: see doc/friction.md on the
 * Gauss-Seidel of many points on few modes) as its own island, plus (every other seed) a block on a
 * belt pressed with a prescribed force (no Newton: its account is
 * round-off); random laws, schemes, plucks with an angle, damping. */
static char *
random_text(unsigned long long seed, int *nstrings)
{
  text t = {NULL, 0, 0};
  unsigned long long x = seed * 7919ULL + 17ULL;
  int ns = 1 + (int)(next(&x) % 3), block = seed % 2 == 1;
  double fs = uniform(&x, 20000.0, 90000.0);
  add(&t, "scene = { name = \"r%llu\"; fs = %.17g; duration = %.17g; gravity = 0.0; };\n", seed, fs,
      3000.0 / fs);
  add(&t, "bodies = (\n");
  double Ls[3];
  int nps[3];
  for (int i = 0; i < ns; i++) {
    double L = Ls[i] = uniform(&x, 0.3, 1.1), amp = uniform(&x, 0.5e-3, 2.5e-3);
    nps[i] = 1 + (int)(next(&x) % 6);
    int down = next(&x) % 2;
    add(&t, "  { name = \"fret%d\"; type = \"wall\"; },\n", i);
    add(&t,
        "  { name = \"s%d\"; type = \"modal\"; directions = [\"u\", \"w\"]; pluck_angle = %.17g; "
        "zeta = %.17g;\n"
        "    preset = { kind = \"string\"; nmodes = %d; length = %.17g; tension = %.17g; "
        "linear_density = %.17g; pluck = [%.17g, %.17g]; };\n"
        "    points = ( { name = \"pickup\"; x = %.17g; } ); },\n",
        i, uniform(&x, -80.0, 80.0), next(&x) % 3 ? uniform(&x, 0.0, 0.01) : 0.0,
        4 * nps[i] + (int)(next(&x) % 30), L, uniform(&x, 20.0, 200.0), uniform(&x, 0.0005, 0.008),
        uniform(&x, 0.2, 0.8) * L, down ? -amp : amp, uniform(&x, 0.1, 0.9) * L);
  }
  if (block)
    add(&t, "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.05; }; },\n"
            "  { name = \"block\"; type = \"mass\"; mass = 0.3; kw = 500.0; w0 = 0.001; vw0 = 0.02; "
            "k = 2000.0; }\n");
  if (!block) { /* the last string's ",\n" */
    t.n -= 2;
    t.s[t.n] = '\0';
    add(&t, "\n");
  }
  add(&t, ");\ncontacts = (\n");
  for (int i = 0; i < ns; i++) {
    double bound, L = Ls[i];
    int np = nps[i], below = next(&x) % 2, law = (int)(next(&x) % 5);
    if (below)
      add(&t, "  { name = \"f%d\"; between = [\"fret%d\", \"s%d\"]; points = { x = [", i, i, i);
    else
      add(&t, "  { name = \"f%d\"; between = [\"s%d\", \"fret%d\"]; points = { x = [", i, i, i);
    for (int k = 0; k < np; k++)
      add(&t, "%s%.17g", k ? ", " : "", L * (0.05 + 0.9 * (k + uniform(&x, 0.1, 0.9)) / np));
    add(&t, "]; }; profile = { height = %.17g; }; law = \"power\"; k = %.17g; alpha = %s; "
            "scheme = \"%s\";\n    %s },\n",
        (below ? -1.0 : 1.0) * uniform(&x, 0.0, 0.6e-3), pow(10.0, uniform(&x, 5.0, 8.0)),
        next(&x) % 2 ? "1.5" : "1.0", next(&x) % 2 ? "two-point" : "three-point",
        law_text(law, &bound));
  }
  if (block)
    add(&t, "  { name = \"rub\"; between = [\"belt\", \"block\"]; normal_force = 1.3; "
            "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.6; mu_k = 0.4; "
            "}; },\n");
  t.n -= 2; /* the last ",\n" */
  t.s[t.n] = '\0';
  add(&t, "\n);\nrecord = { signals = [\"energy/*\", \"contacts/*/ft\", \"contacts/*/normal\", "
          "\"contacts/*/friction_work\", \"contacts/*/slip\"]; };\n");
  *nstrings = ns;
  return t.s;
}

START_TEST(test_random_strings)
{
  int scenes = 0, touching = 0, unconverged = 0;
  double worst = 0.0, cone = 0.0;
  long slipping = 0, sticking = 0;
  for (unsigned long long seed = 1; seed <= 60; seed++) {
    int ns;
    char *txt = random_text(seed, &ns);
    if (getenv("DFRIC_PRINT"))
      printf("%s\n", txt);
    tu_sim s = tu_run_text(txt);
    /* a clean outcome: done, or (a falling curve's Gauss-Seidel over
     * several coupled points, doc/friction.md) steps whose sweeps did not
     * converge, reported; their forces are in the cone and the balance
     * holds all the same */
    ck_assert_msg(s.rc == VB_OK || s.rc == VB_ENOCONV, "seed %llu: %s\n%s", seed,
                  vb_run_status(s.run), txt);
    if (s.rc == VB_ENOCONV) {
      unconverged++;
      printf("random strings: seed %llu: %s\n", seed, vb_run_status(s.run));
    }
    const vb_scene *sc = s.scene;
    long n = vb_run_samples(s.run);
    /* the balance: E + dissipated - external against E(0), relative to
     * the largest energy in play */
    const double *E = vb_run_energy(s.run, VB_ENERGY_TOTAL);
    const double *D = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
    const double *X = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
    double scale = 0.0, err = 0.0;
    for (long k = 0; k < n; k++) {
      scale = fmax(scale, fmax(fabs(E[k]), fmax(fabs(D[k]), fabs(X[k]))));
      err = fmax(err, fabs(E[k] + D[k] - X[k] - E[0]));
    }
    worst = fmax(worst, err / scale);
    /* round-off: 8 ulps of the largest energy a step, at most */
    ck_assert_msg(err <= 8.0 * DBL_EPSILON * (double)n * scale, "seed %llu: balance off by %g of %g J\n%s", seed, err, scale,
                  txt);
    for (int c = 0; c < sc->ncontacts; c++) {
      const vb_contact *ct = &sc->contacts[c];
      if (ct->friction.kind == VB_FRICTION_NONE)
        continue;
      const double *ft = series(&s, VB_SIGNAL_CONTACT, "ft", c);
      const double *N = series(&s, VB_SIGNAL_CONTACT, "normal", c);
      const double *W = series(&s, VB_SIGNAL_CONTACT, "friction_work", c);
      const double *sl = series(&s, VB_SIGNAL_CONTACT, "slip", c);
      ck_assert_ptr_nonnull(ft);
      ck_assert_ptr_nonnull(N);
      const vb_friction_info *fi = vb_friction_info_of(ct->friction.kind);
      int touched = 0;
      for (long k = 1; k < n; k++) {
        /* the cone: the law's largest coefficient (the static one, or the
         * exponential's peak 1; the elasto-plastic law's bristle force is
         * bounded by its curve near z_ss, checked loosely) */
        double mu = ct->friction.kind == VB_FRICTION_EXPONENTIAL ? 1.0
                    : ct->friction.kind == VB_FRICTION_ELASTOPLASTIC
                        ? 2.0 * ct->friction.mu_s
                        : ct->friction.mu_s;
        double over = fabs(ft[k]) - mu * N[k];
        cone = fmax(cone, over / fmax(N[k], DBL_MIN));
        ck_assert_msg(over <= (ct->friction.kind == VB_FRICTION_ELASTOPLASTIC ? 4.0 * DBL_EPSILON * mu * N[k] : 0.0),
                      "seed %llu contact %s sample %ld: |ft| %.17g above %.17g N", seed, ct->name, k,
                      fabs(ft[k]), mu * N[k]);
        if (N[k] == 0.0) /* apart: no force */
          ck_assert_msg(ft[k] == 0.0, "seed %llu %s: ft %g apart", seed, ct->name, ft[k]);
        else {
          touched = 1;
          if (ct->group[0] && isnan(sl[k]))
            ck_abort_msg("seed %llu %s: NaN slip while touching", seed, ct->name);
          if (ct->friction.kind != VB_FRICTION_ELASTOPLASTIC && sl[k] == 0.0)
            sticking++;
          else
            slipping++;
        }
        /* the work never falls, but by a step's round-off: |ft| times
         * ulps of the displacements (at most the 2.5 mm pluck) */
        ck_assert_msg(W[k] >= W[k - 1] - 8.0 * DBL_EPSILON * (fabs(W[k]) + fabs(ft[k]) * 2.5e-3),
                      "seed %llu %s: friction work falls at %ld: %.17g to %.17g", seed, ct->name, k,
                      W[k - 1], W[k]);
      }
      (void)fi;
      touching += touched;
    }
    scenes++;
    tu_free(&s);
    free(txt);
  }
  printf("random strings: %d scenes, %d contacts with friction touching, %ld samples sticking and "
         "%ld slipping; balance within %.2g of the largest energy, cone excess %.2g of N at most; %d "
         "scenes with unconverged steps\n",
         scenes, touching, sticking, slipping, worst, cone, unconverged);
  ck_assert_int_le(unconverged, 3);
  ck_assert_int_gt(touching, 60);
  ck_assert_int_gt(sticking, 100);
  ck_assert_int_gt(slipping, 100);
}
END_TEST

/* ------------------------------------- many points on few modes: block */

/* A string of `modes` modes on `np` frets at x with friction `law` (0
 * Coulomb, 1 Stribeck, 2 none, 3 exponential, 4 bow, 5 elasto-plastic:
 * elasto_ref.py's parameters with sigma0 and sigma1 ten times theirs, a
 * stiffer bristle, so that the sweeps stall on this block), `scheme`: more touching points than its
 * modes can tell apart, Kt near singular (doc/friction.md, "Friction on
 * a distributed contact"). */
static char *
many_text(int modes, int np, const double *x, double L, double amp, double angle, double height,
          const char *scheme, int law, double fs, double duration)
{
  text t = {NULL, 0, 0};
  add(&t, "scene = { name = \"many\"; fs = %.17g; duration = %.17g; gravity = 0.0; };\n", fs,
      duration);
  add(&t,
      "bodies = ( { name = \"fret\"; type = \"wall\"; },\n"
      "  { name = \"s\"; type = \"modal\"; directions = [\"u\", \"w\"]; pluck_angle = %.17g; "
      "zeta = 0.001;\n"
      "    preset = { kind = \"string\"; nmodes = %d; length = %.17g; tension = 80.0; "
      "linear_density = 0.003; pluck = [%.17g, %.17g]; };\n"
      "    points = ( { name = \"pickup\"; x = %.17g; } ); } );\n",
      angle, modes, L, 0.6 * L, amp, 0.77 * L);
  add(&t, "contacts = ( { name = \"f\"; between = [\"fret\", \"s\"]; points = { x = [");
  for (int k = 0; k < np; k++)
    add(&t, "%s%.17g", k ? ", " : "", x[k]);
  add(&t,
      "]; }; profile = { height = %.17g; }; law = \"power\"; k = 1e6; alpha = 1.5; "
      "scheme = \"%s\";\n    %s } );\n",
      height, scheme,
      law == 1   ? "friction = { law = \"stribeck\"; mu_s = 0.52; mu_k = 0.27; v_s = 0.013; };"
      : law == 0 ? "friction = { law = \"coulomb\"; mu_s = 0.47; mu_k = 0.31; };"
      : law == 3 ? "friction = { law = \"exponential\"; a = 100.0; };"
      : law == 4 ? "friction = { law = \"bow\"; mu_s = 0.8; mu_d = 0.3; v0 = 0.1; };"
      : law == 5 ? "friction = { law = \"elasto-plastic\"; mu_s = 0.8; mu_k = 0.35; v_s = 0.0213; "
                   "sigma0 = 1e6; sigma1 = 23; sigma2 = 0.04; z_ba = 0.7; };"
                 : "");
  if (law == 2)
    add(&t, "record = { signals = [\"energy/*\"]; };\n");
  else if (law == 5)
    add(&t, "record = { signals = [\"energy/*\", \"contacts/*/ft\", \"contacts/*/normal\", "
            "\"contacts/*/friction_work\", \"contacts/*/slip\", \"contacts/*/bristle\"]; };\n");
  else
    add(&t, "record = { signals = [\"energy/*\", \"contacts/*/ft\", \"contacts/*/normal\", "
            "\"contacts/*/friction_work\", \"contacts/*/slip\"]; };\n");
  return t.s;
}

/* Coulomb's laws at every touching sample of every point of s, checked
 * from the recorded force and the slip of the move (the modes' increments
 * after the forces, friction.c: not the solve's answer): a force strictly
 * inside the kinetic cone sticks (|slip| within stick_tol), any force is
 * within mu_s N, one on the kinetic bound opposes its slip (ft slip <= 0);
 * the friction work never falls; the balance to round-off.  Counts into
 * *st and *sl, the worst sticking slip into *worst. */
static void
check_coulomb(const tu_sim *s, double stick_tol, long *st, long *sl, double *worst, double *balance,
              double slack, const char *what)
{
  const vb_scene *sc = s->scene;
  long n = vb_run_samples(s->run);
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (ct->friction.kind == VB_FRICTION_NONE)
      continue;
    const double *ft = series(s, VB_SIGNAL_CONTACT, "ft", c);
    const double *N = series(s, VB_SIGNAL_CONTACT, "normal", c);
    const double *W = series(s, VB_SIGNAL_CONTACT, "friction_work", c);
    const double *v = series(s, VB_SIGNAL_CONTACT, "slip", c);
    double mus = ct->friction.mu_s, muk = ct->friction.mu_k;
    for (long k = 1; k < n; k++) {
      ck_assert_msg(!isnan(ft[k]), "%s %s: NaN force at %ld", what, ct->name, k);
      if (N[k] == 0.0) {
        ck_assert_msg(ft[k] == 0.0, "%s %s: ft %g apart", what, ct->name, ft[k]);
        continue;
      }
      ck_assert_msg(!isnan(v[k]), "%s %s: NaN slip at %ld", what, ct->name, k);
      ck_assert_msg(fabs(ft[k]) <= mus * N[k], "%s %s sample %ld: |ft| %.17g above mu_s N %.17g",
                    what, ct->name, k, fabs(ft[k]), mus * N[k]);
      if (fabs(ft[k]) < muk * N[k] * (1.0 - 8.0 * DBL_EPSILON)) {
        ++*st;
        *worst = fmax(*worst, fabs(v[k]));
        ck_assert_msg(fabs(v[k]) <= stick_tol,
                      "%s %s sample %ld: sticking (|ft| %.17g < mu_k N %.17g) but slips %g m/s",
                      what, ct->name, k, fabs(ft[k]), muk * N[k], v[k]);
      } else if (fabs(v[k]) > stick_tol) {
        ++*sl;
        ck_assert_msg(fabs(fabs(ft[k]) - muk * N[k]) <= 8.0 * DBL_EPSILON * muk * N[k],
                      "%s %s sample %ld: slipping at %g m/s with |ft| %.17g, not mu_k N %.17g",
                      what, ct->name, k, v[k], fabs(ft[k]), muk * N[k]);
        ck_assert_msg(ft[k] * v[k] < 0.0, "%s %s sample %ld: ft %g along the slip %g", what,
                      ct->name, k, ft[k], v[k]);
      } else
        ++*st; /* on the kinetic bound at zero slip: sticking at the threshold */
      ck_assert_msg(W[k] >= W[k - 1] - 8.0 * DBL_EPSILON * (fabs(W[k]) + fabs(ft[k]) * 2.5e-3),
                    "%s %s: friction work falls at %ld: %.17g to %.17g", what, ct->name, k,
                    W[k - 1], W[k]);
    }
  }
  const double *E = vb_run_energy(s->run, VB_ENERGY_TOTAL);
  const double *D = vb_run_energy(s->run, VB_ENERGY_DISSIPATED);
  const double *X = vb_run_energy(s->run, VB_ENERGY_EXTERNAL);
  double scale = 0.0, err = 0.0;
  for (long k = 0; k < n; k++) {
    scale = fmax(scale, fmax(fabs(E[k]), fmax(fabs(D[k]), fabs(X[k]))));
    err = fmax(err, fabs(E[k] + D[k] - X[k] - E[0]));
  }
  *balance = fmax(*balance, err / scale);
  ck_assert_msg(err <= 8.0 * DBL_EPSILON * (double)n * scale + slack,
                "%s: balance off by %g of %g J", what, err, scale);
}

/* The balance error of s, J (as check_coulomb sums it). */
static double
balance_error(const tu_sim *s)
{
  const double *E = vb_run_energy(s->run, VB_ENERGY_TOTAL);
  const double *D = vb_run_energy(s->run, VB_ENERGY_DISSIPATED);
  const double *X = vb_run_energy(s->run, VB_ENERGY_EXTERNAL);
  double err = 0.0;
  for (long k = 0, n = vb_run_samples(s->run); k < n; k++)
    err = fmax(err, fabs(E[k] + D[k] - X[k] - E[0]));
  return err;
}

/* The case: 9 frets in the first third of a 9-mode string (the
 * sweeps alone failed at 129 of 2205 steps under two-point, 124 under
 * three-point): done, no step unconverged, Coulomb's laws at every
 * touching sample. */
START_TEST(test_nine_frets)
{
  static const char *const schemes[] = {"two-point", "three-point"};
  double x[9];
  for (int k = 0; k < 9; k++)
    x[k] = 0.02 + 0.02 * k + (k == 8 ? 0.01 : 0.0);
  char *txt = many_text(9, 9, x, 0.65, -0.002, 40.0, 0.0002, schemes[_i], 0, 44100.0, 0.05);
  if (getenv("DFRIC_PRINT"))
    printf("%s\n", txt);
  tu_sim s = tu_run_text(txt);
  ck_assert_msg(s.rc == VB_OK, "%s: %s", schemes[_i], vb_run_status(s.run));
  ck_assert_str_eq(vb_run_status(s.run), "done");
  long st = 0, sl = 0;
  double worst = 0.0, bal = 0.0;
  check_coulomb(&s, 1e-12, &st, &sl, &worst, &bal, 0.0, schemes[_i]);
  printf("nine frets on nine modes (%s): done, %ld point-samples sticking (slip within %.2g "
         "m/s), %ld slipping; balance within %.2g\n",
         schemes[_i], st, worst, sl, bal);
  ck_assert_int_gt(st, 100);
  ck_assert_int_gt(sl, 100);
  tu_free(&s);
  free(txt);
}
END_TEST

/* Random strings of 2 to 8 modes on more frets than modes (modes + 1 to
 * 2 modes + 3, Coulomb), random plucks, schemes and rates: every step
 * converges (the status "done"), the laws and the balance as above. */
START_TEST(test_more_points_than_modes)
{
  int runs = 0;
  long st = 0, sl = 0;
  double worst = 0.0, bal = 0.0;
  for (unsigned long long seed = 1; seed <= 24; seed++) {
    unsigned long long r = seed * 104729ULL + 3ULL;
    int modes = 2 + (int)(next(&r) % 7), np = modes + 1 + (int)(next(&r) % (modes + 3));
    double L = uniform(&r, 0.4, 1.0), x[32];
    double lo = uniform(&r, 0.02, 0.3), hi = lo + uniform(&r, 0.1, 0.6);
    for (int k = 0; k < np; k++)
      x[k] = L * (lo + (hi - lo) * (k + uniform(&r, 0.1, 0.9)) / np);
    if (x[np - 1] >= L)
      for (int k = 0; k < np; k++)
        x[k] *= 0.95 * L / x[np - 1];
    double fs = uniform(&r, 30000.0, 90000.0);
    double amp = uniform(&r, 0.5e-3, 2.5e-3), angle = uniform(&r, -80.0, 80.0),
           height = uniform(&r, 0.0, 0.4e-3);
    const char *scheme = next(&r) % 2 ? "two-point" : "three-point";
    char *txt = many_text(modes, np, x, L, amp, angle, height, scheme, 0, fs, 2000.0 / fs);
    /* the normal contacts' own balance error (their Newton's tolerance,
     * up to 6e-12 of the energy here): the same string without friction */
    char *nf = many_text(modes, np, x, L, amp, angle, height, scheme, 2, fs, 2000.0 / fs);
    tu_sim s0 = tu_run_text(nf);
    double slack = 2.0 * balance_error(&s0);
    tu_free(&s0);
    free(nf);
    if (getenv("DFRIC_PRINT"))
      printf("%s\n", txt);
    tu_sim s = tu_run_text(txt);
    ck_assert_msg(s.rc == VB_OK, "seed %llu: %s\n%s", seed, vb_run_status(s.run), txt);
    char what[32];
    snprintf(what, sizeof what, "seed %llu", seed);
    check_coulomb(&s, 1e-12, &st, &sl, &worst, &bal, slack, what);
    runs++;
    tu_free(&s);
    free(txt);
  }
  printf("more points than modes: %d random strings done (0 unconverged steps), %ld "
         "point-samples sticking (slip within %.2g m/s), %ld slipping; balance within %.2g\n",
         runs, st, worst, sl, bal);
  ck_assert_int_gt(st, 1000);
  ck_assert_int_gt(sl, 1000);
}
END_TEST

/* The Stribeck curve mu_k + (mu_s - mu_k) exp(-(|s| / v_s)^2) of
 * many_text's law 1 and the bow curve mu_d + (mu_s - mu_d) v0 / (v0 + |s|)
 * of its law 4, written out here. */
static double
curve_of(int law, double s)
{
  double x = fabs(s);
  if (law == 1)
    return 0.27 + (0.52 - 0.27) * exp(-(x / 0.013) * (x / 0.013));
  return 0.3 + (0.8 - 0.3) * 0.1 / (0.1 + x);
}

/* A falling curve (Stribeck, bow) on the nine frets: the sweeps alone
 * failed at 29 steps (Stribeck; the first at t = 2.3e-5 s) and the block
 * solve is Coulomb's only; the curves' fixed point on the bounds
 * (friction_solve.c, curve_solve) solves every step: done, and at every
 * touching sample |ft| <= mu_s N, a slipping point's |ft| the curve's
 * N mu(|s|) against its slip (the curve computed here, at the recorded
 * slip of the move), the balance to round-off. */
START_TEST(test_curves_on_nine_frets)
{
  int law = _i == 0 ? 1 : 4;
  double mus = law == 1 ? 0.52 : 0.8, x[9];
  for (int k = 0; k < 9; k++)
    x[k] = 0.02 + 0.02 * k + (k == 8 ? 0.01 : 0.0);
  char *txt = many_text(9, 9, x, 0.65, -0.002, 40.0, 0.0002, "two-point", law, 44100.0, 0.01);
  tu_sim s = tu_run_text(txt);
  ck_assert_msg(s.rc == VB_OK, "law %d: %s", law, vb_run_status(s.run));
  const vb_scene *sc = s.scene;
  long n = vb_run_samples(s.run), slipping = 0, sticking = 0;
  double worst = 0.0;
  for (int c = 0; c < sc->ncontacts; c++) {
    const double *ft = series(&s, VB_SIGNAL_CONTACT, "ft", c);
    const double *N = series(&s, VB_SIGNAL_CONTACT, "normal", c);
    const double *v = series(&s, VB_SIGNAL_CONTACT, "slip", c);
    for (long k = 1; k < n; k++) {
      if (N[k] == 0.0) {
        ck_assert_msg(ft[k] == 0.0, "law %d point %d: ft %g apart", law, c, ft[k]);
        continue;
      }
      ck_assert_msg(fabs(ft[k]) <= mus * N[k] * (1.0 + 8.0 * DBL_EPSILON),
                    "law %d point %d sample %ld: |ft| %.17g above mu_s N %.17g", law, c, k,
                    fabs(ft[k]), mus * N[k]);
      if (fabs(v[k]) <= 1e-9) {
        sticking++;
        continue;
      }
      slipping++;
      double want = N[k] * curve_of(law, v[k]), err = fabs(fabs(ft[k]) - want) / (mus * N[k]);
      worst = fmax(worst, err);
      ck_assert_msg(err <= 1e-11, "law %d point %d sample %ld: slipping at %g m/s, |ft| %.17g, the curve's %.17g",
                    law, c, k, v[k], fabs(ft[k]), want);
      ck_assert_msg(ft[k] * v[k] < 0.0, "law %d point %d sample %ld: ft along the slip", law, c, k);
    }
  }
  double bal = balance_error(&s);
  const double *E = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  printf("%s on nine frets: done, %ld point-samples sticking, %ld slipping, |ft| off its curve by "
         "at most %.2g of mu_s N; balance %.2g J of %.3g J\n", law == 1 ? "stribeck" : "bow",
         sticking, slipping, worst, bal, E[0]);
  ck_assert_int_gt(slipping, 100);
  ck_assert_msg(bal <= 1e-12 * E[0], "balance %g J", bal);
  tu_free(&s);
  free(txt);
}
END_TEST

/* The exponential curve of many_text's law 3, phi(v) = sqrt(2a) v
 * exp(-a v^2 + 1/2) with a = 100 s^2/m^2 (Desvages & Bilbao 2016), and the
 * elasto-plastic bristle of its law 5 (Dupont et al. 2002, as
 * tests/run/elasto_ref.py writes it: mu_s 0.8, mu_k 0.35, v_s 0.0213,
 * sigma0 1e6, sigma1 23, sigma2 0.04, z_ba 0.7), written out here. */
static double
expo_of(double s)
{
  return sqrt(200.0) * fabs(s) * exp(0.5 - 100.0 * s * s);
}

static const double ep_mu_s = 0.8, ep_mu_k = 0.35, ep_vs = 0.0213, ep_s0 = 1e6, ep_s1 = 23,
                    ep_s2 = 0.04, ep_zba = 0.7;

/* |z_ss(s)| and z' = psi(z, s) of the bristle (elasto_ref.py's zss, alpha,
 * zdot). */
static double
ep_zss_ref(double s)
{
  return (ep_mu_k + (ep_mu_s - ep_mu_k) * exp(-(s / ep_vs) * (s / ep_vs))) / ep_s0;
}

static double
ep_zdot_ref(double z, double s)
{
  if (s == 0.0)
    return 0.0;
  double zs = ep_zss_ref(s), zb = ep_zba * zs, az = fabs(z), al;
  if (z == 0.0 || (z > 0.0) != (s > 0.0) || az <= zb)
    al = 0.0;
  else if (az >= zs)
    al = 1.0;
  else
    al = 0.5 * (1.0 + sin(M_PI * (az - 0.5 * (zs + zb)) / (zs - zb)));
  return s * (1.0 - al * z / ((s > 0.0 ? 1.0 : -1.0) * zs));
}

/* The step of the bristle by the midpoint rule (doc/friction.md): z1 the
 * root of z1 - z0 - dt psi((z0 + z1)/2, s), by bisection on [z0 - dt|s|,
 * z0 + dt|s|] (|psi| <= |s| + |s| |z| / |z_ss| ... widened until it
 * brackets); the force -N (sigma0 (z0 + z1)/2 + sigma1 (z1 - z0)/dt +
 * sigma2 s) into *f. */
static double
ep_step_ref(double z0, double s, double dt, double N, double *f)
{
  double w = dt * fabs(s) * (2.0 + fabs(z0) / ep_zss_ref(s)) + 1e-30;
  double lo = z0 - w, hi = z0 + w;
  for (int it = 0; it < 400 && hi > lo; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi)
      break;
    if (mid - z0 - dt * ep_zdot_ref(0.5 * (z0 + mid), s) < 0.0)
      lo = mid;
    else
      hi = mid;
  }
  double z1 = 0.5 * (lo + hi);
  *f = -N * (ep_s0 * 0.5 * (z0 + z1) + ep_s1 * (z1 - z0) / dt + ep_s2 * s);
  return z1;
}

/* The exponential curve (no stick set) and the elasto-plastic bristle (a
 * state) on the nine frets: the sweeps alone fail, neither the block
 * solve nor the curves' fixed point applies, and the block's semismooth
 * Newton (friction_solve.c, newton_solve) solves every step: done, and
 * at every touching sample the force is the law's at the recorded slip of
 * the move (the exponential: |ft| = N phi(|s|) against the slip, none
 * above its peak N; the bristle: its step from the recorded deflection
 * of the sample before, its deflection and force), the balance to
 * round-off. */
START_TEST(test_smooth_on_nine_frets)
{
  int law = _i % 2 == 0 ? 3 : 5;
  const char *scheme = _i < 2 ? "two-point" : "three-point";
  double x[9], dt = 1.0 / 44100.0;
  for (int k = 0; k < 9; k++)
    x[k] = 0.02 + 0.02 * k + (k == 8 ? 0.01 : 0.0);
  char *txt = many_text(9, 9, x, 0.65, -0.002, 40.0, 0.0002, scheme, law, 44100.0, 0.01);
  tu_sim s = tu_run_text(txt);
  ck_assert_msg(s.rc == VB_OK, "law %d (%s): %s", law, scheme, vb_run_status(s.run));
  ck_assert_str_eq(vb_run_status(s.run), "done");
  const vb_scene *sc = s.scene;
  long n = vb_run_samples(s.run), touching = 0, slipping = 0;
  double worst = 0.0, worst_z = 0.0, peak = 0.0;
  for (int c = 0; c < sc->ncontacts; c++) {
    const double *ft = series(&s, VB_SIGNAL_CONTACT, "ft", c);
    const double *N = series(&s, VB_SIGNAL_CONTACT, "normal", c);
    const double *v = series(&s, VB_SIGNAL_CONTACT, "slip", c);
    const double *Z = law == 5 ? series(&s, VB_SIGNAL_CONTACT, "bristle", c) : NULL;
    for (long k = 1; k < n; k++) {
      ck_assert_msg(!isnan(ft[k]), "law %d point %d: NaN force at %ld", law, c, k);
      if (N[k] == 0.0) {
        ck_assert_msg(ft[k] == 0.0, "law %d point %d: ft %g apart", law, c, ft[k]);
        continue;
      }
      touching++;
      ck_assert_msg(!isnan(v[k]), "law %d point %d: NaN slip at %ld", law, c, k);
      double want, err;
      if (law == 3) {
        ck_assert_msg(fabs(ft[k]) <= N[k], "point %d sample %ld: |ft| %.17g above the peak N %.17g",
                      c, k, fabs(ft[k]), N[k]);
        want = N[k] * expo_of(v[k]);
        err = fabs(fabs(ft[k]) - want) / N[k];
        if (v[k] != 0.0) {
          slipping++;
          ck_assert_msg(ft[k] * v[k] < 0.0, "point %d sample %ld: ft along the slip", c, k);
        }
        peak = fmax(peak, fabs(ft[k]) / N[k]);
      } else {
        double f, z0 = N[k - 1] > 0.0 ? Z[k - 1] : 0.0;
        double z1 = ep_step_ref(z0, v[k], dt, N[k], &f);
        err = fabs(ft[k] - f) / (ep_mu_s * N[k]);
        worst_z = fmax(worst_z, fabs(Z[k] - z1) / ep_zss_ref(v[k]));
        ck_assert_msg(fabs(Z[k] - z1) <= 1e-11 * ep_zss_ref(v[k]),
                      "point %d sample %ld: bristle %.17g, its step from %.17g at %g m/s %.17g", c,
                      k, Z[k], z0, v[k], z1);
        slipping += v[k] != 0.0;
        peak = fmax(peak, fabs(ft[k]) / (ep_mu_s * N[k]));
        want = f;
      }
      worst = fmax(worst, err);
      ck_assert_msg(err <= 1e-11, "law %d point %d sample %ld: at %g m/s |ft| %.17g, the law's %.17g",
                    law, c, k, v[k], fabs(ft[k]), fabs(want));
    }
  }
  double bal = balance_error(&s);
  const double *E = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  if (law == 3)
    printf("exponential on nine frets (%s): done, %ld point-samples touching, %ld slipping, |ft| off "
           "N phi(|s|) by at most %.2g of N, |ft| at most %.3g N; balance %.2g J of %.3g J\n",
           scheme, touching, slipping, worst, peak, bal, E[0]);
  else
    printf("elasto-plastic on nine frets (%s): done, %ld point-samples touching, %ld slipping, ft off "
           "the bristle's step by at most %.2g of mu_s N, z by %.2g of z_ss, |ft| at most %.3g "
           "mu_s N; balance %.2g J of %.3g J\n",
           scheme, touching, slipping, worst, worst_z, peak, bal, E[0]);
  ck_assert_int_gt(slipping, 100);
  ck_assert_msg(bal <= 1e-12 * E[0], "balance %g J", bal);
  tu_free(&s);
  free(txt);
}
END_TEST

/* The Newton's failure reported: with its iterations capped at one (a
 * test hook, lib/base/testctl.c) the stalled steps of the exponential
 * curve and of the bristle on the nine frets do not converge, and the
 * status names the friction solve, not Newton's normal solve; the forces
 * kept are the last sweep's (finite; within the exponential's peak N, the
 * bristle's within 2 mu_s N). */
START_TEST(test_friction_status)
{
  int law = _i == 0 ? 3 : 5;
  double x[9];
  for (int k = 0; k < 9; k++)
    x[k] = 0.02 + 0.02 * k + (k == 8 ? 0.01 : 0.0);
  char *txt = many_text(9, 9, x, 0.65, -0.002, 40.0, 0.0002, "two-point", law, 44100.0, 0.01);
  vb_test_control(VB_TEST_FRICTION_NEWTON_CAP, 1);
  tu_sim s = tu_run_text(txt);
  vb_test_control(VB_TEST_FRICTION_NEWTON_CAP, 0);
  const char *st = vb_run_status(s.run);
  ck_assert_int_eq(s.rc, VB_ENOCONV);
  ck_assert_msg(strncmp(st, "friction solve did not converge at t=", 37) == 0, "status '%s'", st);
  ck_assert_msg(strstr(st, "newton") == NULL, "status '%s'", st);
  long n = vb_run_samples(s.run);
  double hold = law == 3 ? 1.0 : 2.0 * ep_mu_s;
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const double *ft = series(&s, VB_SIGNAL_CONTACT, "ft", c);
    const double *N = series(&s, VB_SIGNAL_CONTACT, "normal", c);
    for (long k = 1; k < n; k++)
      ck_assert_msg(isfinite(ft[k]) && fabs(ft[k]) <= hold * N[k], "point %d sample %ld: ft %g, N %g",
                    c, k, ft[k], N[k]);
  }
  printf("%s on nine frets, the Newton capped at 1 iteration: '%s'\n",
         law == 3 ? "exponential" : "elasto-plastic", st);
  tu_free(&s);
  free(txt);
}
END_TEST

/* The block's Newton (friction_solve.c, newton_solve) on random low-rank
 * problems: n contacts (3 to 24) on r < n modes (Kt = T diag(cc) T^T,
 * singular, cc from 1e-8 to 1e-6 m/N over dt = 1e-5 s: the nine frets'
 * compliance, Kt_ii / dt 0.03 to 0.06 m/s per N, inside the range), each with a law drawn from Coulomb, the Stribeck and bow
 * curves, the exponential curve and the elasto-plastic bristle of the
 * nine-fret tests (at least one of the last two in each problem), random
 * free increments, normal forces (one in 8 zero) and bristles at n: never
 * a NaN; where it converges, each law holds, checked here from dy =
 * dyfree + Kt ft summed in long double and the laws written in this file
 * (the exponential's and the bristle's force at their slip, the bristle's
 * deflection its step; a set-valued law's stick or its curve against the
 * slip); where it does not, the forces are finite and within each law's
 * hold (the sweep's answers; the bristle's finite) and the solve says
 * VB_ENOCONV.  Every problem whose kappa (below) is under 1 converges:
 * there no force rises along its slip faster than the block's compliance
 * holds, the many-contact form of the one-contact condition c N |mu'| < 1
 * for a single root (doc/friction.md, "The friction curves"); above it a
 * step may have several answers or none near the start, and those that
 * do not converge are counted and reported. */
START_TEST(test_newton_random)
{
  enum { NMAX = 24 };
  static double T[NMAX][NMAX], Kt[NMAX * NMAX], cc[NMAX];
  double dyfree[NMAX], normal[NMAX], ft[NMAX], st[2 * NMAX], st_old[2 * NMAX];
  int st_first[NMAX + 1], broke[NMAX], kind[NMAX];
  const vb_friction_info *info[NMAX];
  const vb_friction *law[NMAX];
  const vb_friction laws[5] = {
      {.kind = VB_FRICTION_COULOMB, .mu_s = 0.47, .mu_k = 0.31},
      {.kind = VB_FRICTION_STRIBECK, .mu_s = 0.52, .mu_k = 0.27, .v_s = 0.013, .delta = 2.0},
      {.kind = VB_FRICTION_BOW, .mu_s = 0.8, .mu_k = 0.3, .v_s = 0.1},
      {.kind = VB_FRICTION_EXPONENTIAL, .a = 100.0},
      {.kind = VB_FRICTION_ELASTOPLASTIC, .mu_s = ep_mu_s, .mu_k = ep_mu_k, .v_s = ep_vs,
       .sigma0 = ep_s0, .sigma1 = ep_s1, .sigma2 = ep_s2, .z_ba = ep_zba}};
  unsigned long long x = 4242ULL;
  int problems = 0, past_cap = 0, failed = 0, wp = 0, wp_failed = 0;
  double kappa_fail_min = INFINITY;
  long counts[5] = {0};
  double worst[5] = {0.0};
  const double dt = 1e-5;
  for (int trial = 0; trial < 2000; trial++) {
    int n = 3 + (int)(next(&x) % (NMAX - 2)), r = 1 + (int)(next(&x) % (unsigned)(n - 1));
    for (int j = 0; j < r; j++)
      cc[j] = pow(10.0, uniform(&x, -8.0, -6.0));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < r; j++)
        T[i][j] = uniform(&x, -1.0, 1.0);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++) {
        double sum = 0.0;
        for (int j = 0; j < r; j++)
          sum += T[i][j] * cc[j] * T[k][j];
        Kt[i * n + k] = sum;
      }
    int smooth = 0;
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < i; k++)
        Kt[i * n + k] = Kt[k * n + i];
      kind[i] = (int)(next(&x) % 5);
      smooth |= kind[i] >= 3;
    }
    if (!smooth)
      kind[0] = 3 + (int)(next(&x) % 2);
    for (int i = 0; i < n; i++) {
      dyfree[i] = uniform(&x, -1e-7, 1e-7);
      normal[i] = next(&x) % 8 ? uniform(&x, 0.0, 5.0) : 0.0;
      ft[i] = 0.0;
      st_first[i] = 2 * i;
      law[i] = &laws[kind[i]];
      info[i] = vb_friction_info_of(laws[kind[i]].kind);
      st_old[2 * i] = kind[i] == 4 ? uniform(&x, -1.0, 1.0) * ep_zss_ref(0.0) : 0.0;
      st_old[2 * i + 1] = 0.0;
      if (kind[i] < 3)
        info[i]->start(law[i], 0.0, st_old + 2 * i);
      st[2 * i] = st_old[2 * i];
      st[2 * i + 1] = st_old[2 * i + 1];
    }
    st_first[n] = 2 * n;
    int sweeps = 0;
    vb_fproblem p = {.nfc = n, .dt = dt, .Kt = Kt, .dyfree = dyfree, .normal = normal,
                     .info = info, .law = law, .st_first = st_first, .st_old = st_old,
                     .st = st, .ft = ft, .max_sweeps = 200, .tolerance = 1e-13,
                     .sweeps = &sweeps, .broke = broke};
    int rc = vb_friction_solve(&p);
    ck_assert_msg(rc == VB_OK || rc == VB_ENOCONV, "trial %d: rc %d", trial, rc);
    /* how far the step is from monotone: kappa = lambda_max(Kt / dt) times
     * the largest rise of a force along its slip, N times the falling
     * slope of its curve at most (the exponential's 2 sqrt(2a) / e, the
     * Stribeck curve's (mu_s - mu_k) sqrt(2/e) / v_s, the bow's (mu_s -
     * mu_d) / v0; Coulomb's and the bristle's step's 0: kappa < 1 makes
     * J = I - diag(F') Kt / dt nonsingular everywhere) */
    double kappa;
    {
      double v[NMAX], lam = 0.0, rise = 0.0;
      for (int i = 0; i < n; i++)
        v[i] = 1.0 + 0.1 * i;
      for (int it = 0; it < 200; it++) {
        double u[NMAX], nrm = 0.0;
        for (int i = 0; i < n; i++) {
          u[i] = 0.0;
          for (int k = 0; k < n; k++)
            u[i] += Kt[i * n + k] / dt * v[k];
          nrm += u[i] * u[i];
        }
        nrm = sqrt(nrm);
        if (!(nrm > 0.0))
          break;
        double vv = 0.0;
        for (int i = 0; i < n; i++)
          vv += v[i] * v[i];
        lam = nrm / sqrt(vv);
        for (int i = 0; i < n; i++)
          v[i] = u[i] / nrm;
      }
      for (int i = 0; i < n; i++) {
        double fall = kind[i] == 3 ? 2.0 * sqrt(200.0) / M_E
                      : kind[i] == 1 ? (0.52 - 0.27) * sqrt(2.0 / M_E) / 0.013
                      : kind[i] == 2 ? (0.8 - 0.3) / 0.1
                                     : 0.0;
        rise = fmax(rise, normal[i] * fall);
      }
      kappa = lam * rise;
    }
    if (rc != VB_OK && kappa < 1.0)
      wp_failed++;
    if (kappa < 1.0)
      wp++;
    if (rc != VB_OK)
      kappa_fail_min = fmin(kappa_fail_min, kappa);
    double fscale = 0.0;
    for (int i = 0; i < n; i++)
      fscale = fmax(fscale, (kind[i] == 3 ? 1.0 : law[i]->mu_s) * normal[i]);
    for (int i = 0; i < n; i++) {
      /* (the bristle's force has no bound of its own: sigma1 z' passes mu_s N at will) */
      double hold = kind[i] == 4 ? INFINITY : (kind[i] == 3 ? 1.0 : law[i]->mu_s) * normal[i];
      ck_assert_msg(isfinite(ft[i]) && fabs(ft[i]) <= hold * (1.0 + 16.0 * DBL_EPSILON),
                    "trial %d contact %d (law %d): ft %g, hold %g", trial, i, kind[i], ft[i], hold);
    }
    if (rc != VB_OK) {
      failed++;
      continue;
    }
    past_cap += sweeps > 200;
    for (int i = 0; i < n; i++) {
      long double dyl = dyfree[i], terms = fabs(dyfree[i]);
      for (int k = 0; k < n; k++) {
        dyl += (long double)Kt[i * n + k] * ft[k];
        terms += fabsl((long double)Kt[i * n + k] * ft[k]);
      }
      double dy = (double)dyl, s = dy / dt, N = normal[i], ds = 64.0 * n * DBL_EPSILON * (double)terms / dt;
      /* the Newton's tolerance, 1e-13 of the largest hold; where the
       * sweeps converged, theirs: each force within 1e-13 of the largest
       * of the answer to the others' forces of the last sweep, which the
       * law's slope passes on through Kt (as test_block_random's gs_tol) */
      double kmax = 0.0;
      for (int k = 0; k < n; k++)
        kmax = fmax(kmax, fabs(Kt[i * n + k]));
      double tol = 2e-13 * fscale;
      if (sweeps <= 200)
        tol *= 2.0 * n * (1.0 + normal[i] * sqrt(200.0 * M_E) * kmax / dt +
                          normal[i] * (ep_s0 * dt + ep_s1 + ep_s2) * kmax / dt);
      int k = kind[i];
      if (N == 0.0) {
        ck_assert_msg(ft[i] == 0.0, "trial %d contact %d: ft %g at N = 0", trial, i, ft[i]);
        ck_assert_msg(k != 4 || st[2 * i] == 0.0, "trial %d contact %d: bristle %g kept at N = 0",
                      trial, i, st[2 * i]);
        continue;
      }
      counts[k]++;
      double err;
      if (k == 3) {
        double want = -N * sqrt(200.0) * s * exp(0.5 - 100.0 * s * s);
        double slope = N * sqrt(200.0) * exp(0.5) * ds; /* |phi'| <= sqrt(2 a e) */
        err = fabs(ft[i] - want);
        ck_assert_msg(err <= tol + slope + 16.0 * DBL_EPSILON * fabs(want),
                      "trial %d contact %d: exponential ft %.17g, the law's %.17g at %g m/s",
                      trial, i, ft[i], want, s);
      } else if (k == 4) {
        double f, z1 = ep_step_ref(st_old[2 * i], s, dt, N, &f);
        double slope = N * (ep_s0 * dt + ep_s1 + ep_s2) * 4.0 * ds;
        err = fabs(ft[i] - f);
        ck_assert_msg(err <= tol + slope + 16.0 * DBL_EPSILON * fabs(f),
                      "trial %d contact %d: bristle ft %.17g, its step's %.17g at %g m/s", trial,
                      i, ft[i], f, s);
        ck_assert_msg(fabs(st[2 * i] - z1) <= 1e-11 * ep_zss_ref(s) + 4.0 * dt * ds,
                      "trial %d contact %d: bristle %.17g, its step %.17g", trial, i, st[2 * i], z1);
      } else if (fabs(dy) <= 64.0 * n * DBL_EPSILON * (double)terms + (sweeps > 200 ? 0.0 : 2.0 * n * 1e-13 * dt * fscale)) {
        err = 0.0; /* sticking: within the hold (above) */
      } else {
        double mu = k == 0 ? law[i]->mu_k : curve_of(k == 1 ? 1 : 4, s);
        err = fabs(fabs(ft[i]) - N * mu);
        ck_assert_msg(err <= tol + 16.0 * DBL_EPSILON * N * mu, "trial %d contact %d (law %d): slipping "
                      "at %g m/s, |ft| %.17g, the law's %.17g", trial, i, k, s, fabs(ft[i]), N * mu);
        ck_assert_msg(ft[i] * s < 0.0, "trial %d contact %d: ft along the slip", trial, i);
      }
      worst[k] = fmax(worst[k], err / fscale);
    }
    problems++;
  }
  printf("block Newton: %d random low-rank problems with smooth laws converged (%d past the sweeps' "
         "cap), %d not (reported); contacts coulomb %ld, stribeck %ld, bow %ld, exponential %ld, "
         "elasto-plastic %ld; off their laws by at most %.2g, %.2g, %.2g, %.2g, %.2g of the largest hold\n",
         problems, past_cap, failed, counts[0], counts[1], counts[2], counts[3], counts[4], worst[0],
         worst[1], worst[2], worst[3], worst[4]);
  printf("block Newton: %d problems with kappa < 1, %d of them not converged; kappa at least %.3g where it "
         "did not converge\n", wp, wp_failed, kappa_fail_min);
  ck_assert_int_gt(past_cap, 100);
  ck_assert_int_gt(wp, 100);
  ck_assert_int_eq(wp_failed, 0);
}
END_TEST

/* The solve itself (solvers/friction_solve.c) on random low-rank
 * problems: n Coulomb contacts (3 to 40) on r < n modes (Kt = T diag(cc)
 * T^T, singular), random free increments and normal forces (some 0):
 * every problem converges, and the laws hold, checked here from dy =
 * dyfree + Kt ft summed in long double: a force strictly inside the
 * kinetic cone has |dy| within the round-off of its terms, none is above
 * mu_s N, a slipping one is mu_k N against its dy; the friction work -ft
 * dy of each contact >= 0 but for round-off. */
START_TEST(test_block_random)
{
  enum { NMAX = 40 };
  static double T[NMAX][NMAX], Kt[NMAX * NMAX], cc[NMAX];
  double dyfree[NMAX], normal[NMAX], ft[NMAX], st[NMAX], st_old[NMAX];
  int st_first[NMAX + 1], broke[NMAX];
  const vb_friction_info *info[NMAX];
  const vb_friction *law[NMAX];
  vb_friction coulomb = {.kind = VB_FRICTION_COULOMB, .mu_s = 0.47, .mu_k = 0.31};
  unsigned long long x = 12345ULL;
  int problems = 0, gs_failed = 0;
  long nstick = 0, nslip = 0;
  double worst_stick = 0.0, worst_work = 0.0;
  for (int trial = 0; trial < 3000; trial++) {
    int n = 3 + (int)(next(&x) % (NMAX - 2)), r = 1 + (int)(next(&x) % (unsigned)(n - 1));
    for (int j = 0; j < r; j++)
      cc[j] = pow(10.0, uniform(&x, -7.0, -4.0));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < r; j++)
        T[i][j] = uniform(&x, -1.0, 1.0);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++) {
        double sum = 0.0;
        for (int j = 0; j < r; j++)
          sum += T[i][j] * cc[j] * T[k][j];
        Kt[i * n + k] = sum;
      }
    for (int i = 0; i < n; i++) { /* symmetric to the bit */
      for (int k = 0; k < i; k++)
        Kt[i * n + k] = Kt[k * n + i];
      dyfree[i] = uniform(&x, -1e-6, 1e-6);
      normal[i] = next(&x) % 8 ? uniform(&x, 0.0, 5.0) : 0.0;
      ft[i] = 0.0;
      st[i] = st_old[i] = next(&x) % 2 ? 1.0 : 0.0;
      st_first[i] = i;
      info[i] = vb_friction_info_of(VB_FRICTION_COULOMB);
      law[i] = &coulomb;
    }
    st_first[n] = n;
    int sweeps = 0;
    vb_fproblem p = {.nfc = n,
                     .dt = 1e-5,
                     .Kt = Kt,
                     .dyfree = dyfree,
                     .normal = normal,
                     .info = info,
                     .law = law,
                     .st_first = st_first,
                     .st_old = st_old,
                     .st = st,
                     .ft = ft,
                     .max_sweeps = 200,
                     .tolerance = 1e-13,
                     .sweeps = &sweeps,
                     .broke = broke};
    int rc = vb_friction_solve(&p);
    ck_assert_msg(rc == VB_OK, "trial %d (n %d, rank %d): rc %d", trial, n, r, rc);
    gs_failed += sweeps > 200;
    /* the sweeps stop at a change of 1e-13 of the largest force: dy of a
     * contact within the change of the others' forces in the last sweep;
     * past the cap, the block solve's answer: round-off alone */
    double kmax = 0.0, fbig = 0.0;
    for (int i = 0; i < n; i++) {
      kmax = fmax(kmax, Kt[i * n + i]);
      fbig = fmax(fbig, fabs(ft[i]));
    }
    double gs_tol = sweeps > 200 ? 0.0 : 2.0 * n * 1e-13 * kmax * fbig;
    for (int i = 0; i < n; i++) {
      long double dy = dyfree[i], terms = fabs(dyfree[i]);
      for (int k = 0; k < n; k++) {
        dy += (long double)Kt[i * n + k] * ft[k];
        terms += fabsl((long double)Kt[i * n + k] * ft[k]);
      }
      double tol = 64.0 * n * DBL_EPSILON * (double)terms + gs_tol, N = normal[i];
      ck_assert_msg(isfinite(ft[i]), "trial %d: ft %g", trial, ft[i]);
      if (N == 0.0) { /* no normal force: no friction */
        ck_assert_msg(ft[i] == 0.0, "trial %d contact %d: ft %g at N = 0", trial, i, ft[i]);
        continue;
      }
      ck_assert_msg(fabs(ft[i]) <= coulomb.mu_s * N, "trial %d contact %d: |ft| %.17g above %.17g",
                    trial, i, fabs(ft[i]), coulomb.mu_s * N);
      if (fabs(ft[i]) < coulomb.mu_k * N * (1.0 - 8.0 * DBL_EPSILON)) {
        nstick++;
        if (sweeps > 200)
          worst_stick = fmax(worst_stick, fabs((double)dy) / fmax((double)terms, DBL_MIN));
        ck_assert_msg(fabsl(dy) <= tol, "trial %d contact %d: sticking at |ft| %g but dy %g (terms %g)",
                      trial, i, fabs(ft[i]), (double)dy, (double)terms);
      } else if (fabsl(dy) > tol) {
        nslip++;
        ck_assert_msg(fabs(fabs(ft[i]) - coulomb.mu_k * N) <= 8.0 * DBL_EPSILON * coulomb.mu_k * N,
                      "trial %d contact %d: slipping, |ft| %.17g not mu_k N", trial, i, fabs(ft[i]));
        ck_assert_msg(ft[i] * dy < 0.0, "trial %d contact %d: ft %g along dy %g", trial, i, ft[i],
                      (double)dy);
      } else
        nstick++;
      worst_work = fmin(worst_work, -ft[i] * (double)dy);
      ck_assert_msg(-ft[i] * dy >= -fabs(ft[i]) * tol, "trial %d contact %d: work %g", trial, i,
                    (double)(-ft[i] * dy));
    }
    problems++;
  }
  printf("block solve: %d random low-rank problems converged (%d past the sweeps' cap), %ld "
         "contacts sticking (past the cap: |dy| within %.2g of its terms), %ld slipping, friction work >= %.2g "
         "J\n",
         problems, gs_failed, nstick, worst_stick, nslip, worst_work);
  ck_assert_int_gt(gs_failed, 100);
}
END_TEST

/* --------------------------------------------- the fretless neck: rows */

/* The published string on its fretless neck (scenes/bass-fretless.cfg: 862
 * points, more than VB_FRICTION_KT_DENSE, so Kt is never formed and the
 * touching block comes from the rows at each step) in both polarisations,
 * plucked 30 degrees off u, Coulomb at every point, 6 ms (it meets the neck
 * near 3.7 ms and slides along it): done, the balance to round-off, the
 * cone, each touching point's force against its slip. */
START_TEST(test_fretless_rows)
{
  char path[4096], err[2048];
  snprintf(path, sizeof path, "%s/scenes/bass-fretless.cfg", TEST_SRCDIR);
  char *text = tu_read("scenes/bass-fretless.cfg");
  tu_replace(&text, "duration = 0.02;", "duration = 0.006;");
  tu_replace(&text, "type = \"modal\";",
             "type = \"modal\"; directions = [\"u\", \"w\"]; pluck_angle = 30.0;");
  tu_replace(&text, "scheme = \"three-point\";",
             "scheme = \"three-point\"; friction = { law = \"coulomb\"; mu_s = 0.3; mu_k = 0.2; };");
  tu_replace(&text, "record = { signals = [",
             "record = { signals = [\"contacts/neck/ft\", \"contacts/neck/normal\", "
             "\"contacts/neck/slip\", ");
  tu_sim s = {NULL, NULL, 0};
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  free(text);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  s.rc = vb_run_exec(s.run);
  ck_assert_msg(s.rc == VB_OK, "%s", vb_run_status(s.run));
  ck_assert_int_eq(s.scene->ncontacts, 862);
  long n = vb_run_samples(s.run), touching = 0, most = 0;
  double e0 = vb_run_energy(s.run, VB_ENERGY_TOTAL)[0], bal = vb_run_balance_error(s.run);
  static const double *FT[862], *NN[862], *SL[862];
  for (int c = 0; c < 862; c++) {
    FT[c] = series(&s, VB_SIGNAL_CONTACT, "ft", c);
    NN[c] = series(&s, VB_SIGNAL_CONTACT, "normal", c);
    SL[c] = series(&s, VB_SIGNAL_CONTACT, "slip", c);
    ck_assert(FT[c] && NN[c] && SL[c]);
  }
  for (long k = 1; k < n; k++) {
    long here = 0;
    for (int c = 0; c < 862; c++) {
      double ft = FT[c][k], N = NN[c][k], sl = SL[c][k];
      ck_assert(fabs(ft) <= 0.3 * N);
      if (N > 0.0) {
        here++;
        ck_assert_msg(ft * sl <= 0.0, "point %d sample %ld: ft %g with slip %g", c, k, ft, sl);
      } else
        ck_assert(ft == 0.0 && isnan(sl));
    }
    touching += here;
    most = here > most ? here : most;
  }
  printf("fretless neck (862 points, Kt from the rows): %ld point-samples touching, at most %ld at "
         "once; balance %.3g J of %.4g J\n",
         touching, most, bal, e0);
  ck_assert_int_gt(touching, 500);
  ck_assert_int_gt(most, 100);
  ck_assert_msg(fabs(bal) <= 1e-12 * e0, "balance %g of %g J", bal, e0);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(test_errors)
{
  static const struct {
    const char *keys, *want;
  } bad[] = {
      {"pluck_angle = 30.0;",
       "test.cfg:3: body 'string': 'pluck_angle' gives modes along w, and the body has none "
       "(valid: directions = [\"u\", \"w\"] or [\"w\"] beside it)"},
      {"directions = [\"u\", \"w\"]; pluck_angle = 95.0;",
       "test.cfg:3: body 'string': 'pluck_angle' must be >= -90 and <= 90, degrees from u towards "
       "w (got 95)"},
      {"directions = [\"u\", \"w\"]; pluck_angle = 30.0; wq0 = [0.0];",
       "test.cfg:3: body 'string': 'pluck_angle' turns the pluck along u towards w on the same "
       "modes (valid: directions = [\"u\", \"w\"] without w_modes_file, wq0 or wdq0)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[2048], err[1024];
    snprintf(text, sizeof text,
             "scene = { name = \"e\"; fs = 44100.0; duration = 0.01; gravity = 0.0; };\n"
             "bodies = ( { name = \"fret\"; type = \"wall\"; },\n"
             "  { name = \"string\"; type = \"modal\"; %s\n"
             "    preset = { kind = \"string\"; nmodes = 1; length = 0.83; tension = 71.3;\n"
             "               linear_density = 0.00213; pluck = [0.47, -0.0023]; }; } );\n",
             bad[i].keys);
    vb_scene *sc = NULL;
    ck_assert_int_ne(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_OK);
    ck_assert_str_eq(err, bad[i].want);
  }
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("dfric");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_loop_test(core, test_one_point_is_a_point, 0, 2);
  tcase_add_loop_test(core, test_held_string, 0, 2);
  tcase_add_test(core, test_random_strings);
  tcase_add_test(core, test_fretless_rows);
  tcase_add_loop_test(core, test_nine_frets, 0, 2);
  tcase_add_test(core, test_more_points_than_modes);
  tcase_add_loop_test(core, test_friction_status, 0, 2);
  tcase_add_loop_test(core, test_smooth_on_nine_frets, 0, 4);
  tcase_add_loop_test(core, test_curves_on_nine_frets, 0, 2);
  tcase_add_test(core, test_block_random);
  tcase_add_test(core, test_newton_random);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_errors);
  suite_add_tcase(s, errors);
  return tu_main(s);
}
