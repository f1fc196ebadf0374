/* check_sav.c - the energy-quadratised scheme (solvers/sav.c) beyond the
 * conformance suite: its modified energy on random islands of 1 to 20
 * contacts, its one linear solve against the K-method's Newton, and the
 * auxiliary variable it records (issue 17, item 6). */
#include <math.h>
#include <stdarg.h>
#include "testutil.h"
#include "scheme.h"

/* A random chain island of nc contacts: wall - m1 - ... - m(nc-1) - wall,
 * or for nc = 1 a two-mode oscillator ringing against a wall, with a 4-mode modal object in the
 * middle of the chain for nc >= 3, every contact a one-sided power law of
 * random k and alpha, scheme sav, the bodies 1 mm apart at random
 * velocities; gravity 0: lossless. */
static char *
sav_chain(unsigned *seed, int nc, double fs, double duration)
{
  text t = { 0 };
  int nb = nc - 1 > 0 ? nc - 1 : 1, modal = nc >= 3 ? nb / 2 : -1;
  double d = 1.0e-3;
  add(&t, "scene = { name = \"sav%d\"; fs = %.17e; duration = %.17e; };\n", nc, fs, duration);
  add(&t, "bodies = (\n  { name = \"w0\"; type = \"wall\"; position = 0.0; },\n");
  add(&t, "  { name = \"w1\"; type = \"wall\"; position = %.17e; }", nc == 1 ? -1.0 : (nb + 1) * d);
  for (int i = 0; i < nb; i++) {
    double v = 2.0 * rand_r(seed) / RAND_MAX - 1.0, m = 0.005 + 0.05 * rand_r(seed) / RAND_MAX;
    if (nc == 1)
      add(&t, ",\n  { name = \"b00\"; type = \"modal\"; freq = [150.0, 700.0]; mass = [0.01, 0.02];\n"
              "    q0 = [-5.0e-4, 0.0]; dq0 = [%.17e, 0.3];\n"
              "    points = ( { name = \"p\"; shape = [1.0, 0.8]; } ); }", 1.0 + fabs(v));
    else if (i == modal)
      add(&t, ",\n  { name = \"b%02d\"; type = \"modal\"; freq = [0.0, 311.0, 977.0, 2113.0];\n"
              "    mass = [%.17e, 0.02, 0.03, 0.05]; q0 = [%.17e, 0.0, 0.0, 0.0];\n"
              "    dq0 = [%.17e, 0.1, -0.2, 0.05];\n"
              "    points = ( { name = \"l\"; shape = [1.0, 1.3, -0.7, 0.9]; },\n"
              "               { name = \"r\"; shape = [1.0, -0.9, 1.1, 0.4]; } ); }",
          i, m, (i + 1) * d, v);
    else
      add(&t, ",\n  { name = \"b%02d\"; type = \"mass\"; mass = %.17e; u0 = %.17e; v0 = %.17e; }",
          i, m, (i + 1) * d, v);
  }
  add(&t, "\n);\ncontacts = (\n");
  for (int c = 0; c < nc; c++) {
    char left[16], right[16];
    if (c == 0)
      snprintf(left, sizeof left, "%s", nc == 1 ? "b00.p" : "w0");
    else
      snprintf(left, sizeof left, "b%02d%s", c - 1, c - 1 == modal ? ".r" : "");
    if (nc == 1)
      snprintf(right, sizeof right, "w0");
    else if (c == nc - 1)
      snprintf(right, sizeof right, "w1");
    else
      snprintf(right, sizeof right, "b%02d%s", c, c == modal ? ".l" : "");
    double k = pow(10.0, 7.0 + 2.0 * rand_r(seed) / RAND_MAX);
    double alpha = 1.0 + 1.0 * rand_r(seed) / RAND_MAX;
    add(&t, "  { name = \"c%02d\"; between = [\"%s\", \"%s\"]; law = \"power\"; k = %.17e; "
            "alpha = %.17e; scheme = \"sav\"; }%s\n", c, left, right, k, alpha,
        c + 1 < nc ? "," : "");
  }
  add(&t, ");\nrecord = { every = 10; };\n");
  return t.s;
}

/* Random islands of 1 to 20 contacts stepped by sav for 1e5 steps: the
 * modified energy (the modes' three-level energy + sum psi^2/2) is
 * conserved to round-off.  The bound: each step's energy identity is
 * exact, so only rounding moves it; the three-level kinetic energy is a
 * difference of positions, (q - qm)/dt, whose relative rounding is about
 * eps |q| / |q - qm| (here |q| ~ 1e-2 m against steps of ~1e-5 m: 1e3 eps
 * = 2e-13 per sample, not accumulating: the state itself is not
 * perturbed by the energy's evaluation), plus the accumulated rounding of
 * the update, a random walk of ~eps per step over N = 1e5 steps (~1e-13).
 * 1e-10 leaves a factor of ~100 over either.  Measured in the log.  The
 * drift of psi from its definition is reported and is what the rebounds
 * lose: nonzero (the islands do collide). */
START_TEST(test_sav_random_islands)
{
  static const int sizes[] = { 1, 2, 3, 7, 13, 20 };
  unsigned seed = 20261126u + 7919u * (unsigned)_i;
  int nc = sizes[_i];
  char *t = sav_chain(&seed, nc, 44100.0, 1.0e5 / 44100.0);
  tu_sim s = tu_run_text(t);
  free(t);
  ck_assert_msg(s.rc == VB_OK, "%d contacts: %s", nc, vb_run_status(s.run));
  long n = vb_run_samples(s.run), impacts = 0;
  for (int c = 0; c < nc; c++)
    impacts += vb_run_contact(s.run, c)->nevents;
  const double *e = vb_run_energy(s.run, 0);
  double lo, hi;
  range(e, n, &lo, &hi);
  double drift = (hi - lo) / e[0], psi = vb_run_state_drift(s.run);
  fprintf(stderr, "sav, %2d contacts: %ld impacts, relative energy drift %.3g, psi drift %.3g\n",
          nc, impacts, drift, psi);
  ck_assert_int_gt(impacts, 5 * nc);
  ck_assert_msg(drift < 1e-10, "%d contacts: energy drift %g", nc, drift);
  ck_assert_msg(psi > 0.0 && isfinite(psi), "%d contacts: psi drift %g", nc, psi);
  ck_assert_double_eq(vb_run_balance_error(s.run), e[n - 1] - e[0]);
  tu_free(&s);
}
END_TEST

/* sav's one linear solve against an independent one: the K-method's
 * Newton (solvers/kmethod.c) on sav's own step force, which is linear in
 * x1, on random problems of 1 to 40 contacts (random symmetric positive
 * definite compliance, random histories and psi, some contacts out of
 * contact).  They agree to round-off in x1 and in fbar. */
START_TEST(test_sav_solve_vs_newton)
{
  const vb_scheme *sav = vb_scheme_lookup("sav");
  ck_assert_ptr_nonnull(sav);
  unsigned seed = 4242u;
  enum { NMAX = 40 };
  static double K[NMAX * NMAX], A[NMAX * NMAX], xt[NMAX], x1a[NMAX], x1b[NMAX], fa[NMAX],
      fb[NMAX], jac[NMAX * NMAX], rhs[NMAX], st[NMAX];
  static int piv[NMAX], it[NMAX], fbk[NMAX];
  static vb_contact cts[NMAX];
  static vb_chist hist[NMAX];
  double worst_x = 0.0, worst_f = 0.0;
  for (int trial = 0; trial < 60; trial++) {
    int nc = 1 + trial % NMAX;
    for (int i = 0; i < nc * nc; i++)
      A[i] = (2.0 * rand_r(&seed) / RAND_MAX - 1.0) * 1e-7;
    for (int i = 0; i < nc; i++)
      for (int j = 0; j < nc; j++) {
        double k = i == j ? 1e-8 : 0.0;
        for (int l = 0; l < nc; l++)
          k += A[i * nc + l] * A[j * nc + l];
        K[i * nc + j] = k;
      }
    for (int c = 0; c < nc; c++) {
      memset(&cts[c], 0, sizeof cts[c]);
      snprintf(cts[c].name, sizeof cts[c].name, "c%d", c);
      cts[c].scheme = sav;
      cts[c].tolerance = 1e-14;
      cts[c].max_iterations = 50;
      cts[c].law = (vb_law){ .kind = VB_LAW_POWER, .k = pow(10.0, 6.0 + 3.0 * rand_r(&seed) / RAND_MAX),
                             .alpha = 1.0 + rand_r(&seed) / (double)RAND_MAX };
      /* a quarter out of contact (g = 0) */
      double x = (rand_r(&seed) % 4 == 0 ? -1.0 : 1.0) * 1e-6 * rand_r(&seed) / RAND_MAX;
      double xm = x - 2e-7 * (2.0 * rand_r(&seed) / RAND_MAX - 1.0);
      st[c] = sqrt(2.0 * vb_law_potential(&cts[c].law, x)) * (0.5 + rand_r(&seed) / (double)RAND_MAX);
      hist[c] = (vb_chist){ .x = x, .xm = xm, .rate = (x - xm) * 44100.0, .st = &st[c] };
      xt[c] = x + 3e-7 * (2.0 * rand_r(&seed) / RAND_MAX - 1.0);
    }
    vb_kproblem p = { .nc = nc, .three = 1, .dt = 1.0 / 44100.0, .K = K, .xt = xt, .cts = cts,
                      .hist = hist, .x1 = x1a, .fbar = fa, .iterations = it, .fallback = fbk,
                      .jac = jac, .rhs = rhs, .piv = piv };
    ck_assert_int_eq(sav->ops->solve_linear(&p), VB_OK);
    for (int c = 0; c < nc; c++)
      ck_assert_int_eq(it[c], 0); /* no iteration */
    p.x1 = x1b;
    p.fbar = fb;
    int rc = vb_kmethod_solve(&p);
    ck_assert_msg(rc == VB_OK, "trial %d (%d contacts): K-method %d", trial, nc, rc);
    double xs = 0.0, fs = 0.0;
    for (int c = 0; c < nc; c++) {
      xs = fmax(xs, fabs(x1b[c]));
      fs = fmax(fs, fabs(fb[c]));
    }
    for (int c = 0; c < nc; c++) {
      worst_x = fmax(worst_x, fabs(x1a[c] - x1b[c]) / xs);
      if (fs > 0.0)
        worst_f = fmax(worst_f, fabs(fa[c] - fb[c]) / fs);
      /* the force is the linear one, f = g psi + g^2 (x1 - xm) / 4 */
      double df, f = sav->ops->step_force(&cts[c], &hist[c], p.dt, x1a[c], &df);
      ck_assert_msg(fabs(f - fa[c]) <= 1e-12 * fmax(fs, 1e-300), "trial %d contact %d: %g vs %g",
                    trial, c, f, fa[c]);
    }
  }
  fprintf(stderr, "sav solve vs K-method Newton: worst relative x1 %.3g, fbar %.3g\n", worst_x,
          worst_f);
  ck_assert_msg(worst_x < 1e-12 && worst_f < 1e-10, "x1 %g, fbar %g", worst_x, worst_f);
}
END_TEST

/* contacts/C/aux records psi on request: for a ball bouncing on a wall
 * under gravity psi^2/2 is the whole discrete potential of the ball's
 * contact, sample by sample (sav: the modes' potential is 0 for a free
 * mass), and psi tracks sqrt(2 V(x)) within the run's reported drift; a
 * contact whose scheme keeps no state records NaN. */
START_TEST(test_sav_aux_signal)
{
  const char *text =
    "scene = { name = \"aux\"; fs = 44100.0; duration = 0.3; gravity = 9.81; };\n"
    "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.0137; u0 = 0.01; },\n"
    "           { name = \"other\"; type = \"mass\"; mass = 0.02; u0 = 0.005; },\n"
    "           { name = \"floor\"; type = \"wall\"; } );\n"
    "contacts = ( { name = \"bounce\"; between = [\"floor\", \"ball\"]; law = \"power\";\n"
    "  k = 1.0e8; alpha = 1.5; scheme = \"sav\"; },\n"
    "  { name = \"plain\"; between = [\"floor\", \"other\"]; law = \"power\";\n"
    "  k = 1.0e8; alpha = 1.5; scheme = \"three-point\"; } );\n"
    "record = { signals = [\"contacts/*/aux\", \"contacts/*/compression\", \"energy/*\"]; };\n";
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  int n;
  const vb_signal *t = vb_signal_table(&n), *aux = NULL;
  for (int r = 0; r < n; r++)
    if (t[r].object == VB_SIGNAL_CONTACT && strcmp(t[r].name, "aux") == 0)
      aux = &t[r];
  ck_assert_ptr_nonnull(aux);
  const double *psi = vb_signal_data(s.run, aux, 0), *none = vb_signal_data(s.run, aux, 1);
  ck_assert_ptr_nonnull(psi);
  ck_assert_ptr_nonnull(none);
  const double *pot = vb_run_energy(s.run, VB_ENERGY_POTENTIAL);
  const double *x = vb_run_contact(s.run, 0)->compression, *x2 = vb_run_contact(s.run, 1)->compression;
  long ns = vb_run_samples(s.run), touching = 0;
  double worst = 0.0, off = 0.0;
  for (long k = 1; k < ns; k++) {
    const vb_law law = { .kind = VB_LAW_POWER, .k = 1.0e8, .alpha = 1.5 };
    /* the other ball's three-point potential: (V(x^n) + V(x^(n-1)))/2 */
    double p2 = 0.5 * (vb_law_potential(&law, x2[k]) + vb_law_potential(&law, x2[k - 1]));
    worst = fmax(worst, fabs(0.5 * psi[k] * psi[k] + p2 - pot[k]));
    ck_assert(isnan(none[k]));
    double phi = 0.5 * (sqrt(2.0 * vb_law_potential(&law, x[k])) +
                        sqrt(2.0 * vb_law_potential(&law, x[k - 1])));
    off = fmax(off, fabs(psi[k] - phi));
    touching += x[k] > 0.0;
  }
  double drift = vb_run_state_drift(s.run);
  fprintf(stderr, "aux: %ld samples in contact, |psi^2/2 - potential| %.3g J, psi drift %.3g "
          "(run: %.3g)\n", touching, worst, off, drift);
  ck_assert_int_gt(touching, 10);
  ck_assert_int_ge(vb_run_contact(s.run, 0)->nevents, 3);
  ck_assert_msg(worst <= 1e-12 * pot[0], "psi^2/2 off the potential by %g J", worst);
  ck_assert_msg(off <= drift && off > 0.5 * drift, "psi drift %g, run says %g", off, drift);
  tu_free(&s);
}
END_TEST

/* A bead rattling in a box (law rattle, both sides of the clearance) with a
 * shaking wall under gravity: sav closes the energy balance (modified
 * energy + dissipated 0 - external work of gravity and the shaker) to
 * round-off, as three-point does; the bead does hit both sides. */
START_TEST(test_sav_rattle_balance)
{
  static const char *const schemes[] = { "sav", "three-point" };
  for (int k = 0; k < 2; k++) {
    char t[1024];
    snprintf(t, sizeof t,
             "scene = { name = \"rattle\"; fs = 44100.0; duration = 1.0; gravity = 9.81; };\n"
             "bodies = ( { name = \"box\"; type = \"wall\"; position = 0.0;\n"
             "    drive = { type = \"sine\"; amplitude = 0.4e-3; freq = 20.0; }; },\n"
             "  { name = \"bead\"; type = \"mass\"; mass = 0.002; u0 = -1.0e-4; v0 = 0.3; } );\n"
             "contacts = ( { name = \"rattle\"; between = [\"box\", \"bead\"]; law = \"rattle\";\n"
             "  k = 1.0e8; alpha = 1.5; h = 1.0e-3; scheme = \"%s\"; } );\n", schemes[k]);
    tu_sim s = tu_run_text(t);
    ck_assert_int_eq(s.rc, VB_OK);
    const double *x = vb_run_contact(s.run, 0)->compression;
    long n = vb_run_samples(s.run), below = 0, above = 0;
    for (long i = 0; i < n; i++) {
      below += x[i] < -1.0e-3;
      above += x[i] > 1.0e-3;
    }
    double e0 = vb_run_energy(s.run, VB_ENERGY_TOTAL)[0], ext = vb_run_final_energy(s.run, VB_ENERGY_EXTERNAL);
    double bal = vb_run_balance_error(s.run) / (e0 + fabs(ext));
    fprintf(stderr, "rattle %s: %ld and %ld samples against each side, balance %.3g, psi drift %.3g\n",
            schemes[k], below, above, bal, vb_run_state_drift(s.run));
    ck_assert(below > 10 && above > 10);
    ck_assert_msg(fabs(bal) < 1e-10, "%s: balance %g", schemes[k], bal);
    tu_free(&s);
  }
}
END_TEST

static Suite *
sav_suite(void)
{
  Suite *s = suite_create("sav");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 300);
  tcase_add_loop_test(core, test_sav_random_islands, 0, 6);
  tcase_add_test(core, test_sav_solve_vs_newton);
  tcase_add_test(core, test_sav_aux_signal);
  tcase_add_test(core, test_sav_rattle_balance);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(sav_suite());
}
