/* check_corrections.c - Papetti's x_max / v_out corrections, the exact
 * contact duration of Chatziioannou section 3, and bouncing (issue:
 * corrections). */
#include <math.h>
#include "testutil.h"

static const char *const papetti_schemes[] = { "am1", "verlet", "heun", "rk4" };

/* Run scenes/papetti-case-{a,b}.cfg with a scheme and extra contact keys. */
static tu_sim
papetti(const char *file, const char *scheme, const char *extra)
{
  char repl[256];
  snprintf(repl, sizeof repl, "scheme = \"%s\"; %s", scheme, extra);
  const char *r[] = { "scheme = \"am1\";", repl };
  return tu_run_file(file, r, 1);
}

/* Table 1 cases with xmax + vout: x_max never exceeded, v_out equal to the
 * eq 7-8 value to 1e-12 relative (vout = "approx") and to the root of
 * eq 6 (vout = "exact"). */
START_TEST(test_table1_corrected)
{
  const char *files[] = { "scenes/papetti-case-a.cfg", "scenes/papetti-case-b.cfg" };
  for (int f = 0; f < 2; f++)
    for (int exact = 0; exact < 2; exact++) {
      tu_sim s = papetti(files[f], papetti_schemes[_i],
                         exact ? "corrections = [\"xmax\", \"vout\"]; vout = \"exact\";"
                               : "corrections = [\"xmax\", \"vout\"]; vout = \"approx\";");
      ck_assert_int_eq(s.rc, VB_OK);
      const vb_contact_result *r = vb_run_contact(s.run, 0);
      ck_assert_int_eq(r->nevents, 1);
      const vb_event *ev = &r->events[0];
      /* x_max: every sample of the run, not only the event's maximum */
      for (long n = 0; n < vb_run_samples(s.run); n++)
        ck_assert_msg(r->compression[n] <= ev->x_max_pred * (1 + 1e-15),
                      "%s %s: x %.17g > x_max %.17g", files[f], papetti_schemes[_i],
                      r->compression[n], ev->x_max_pred);
      double target = exact ? ev->v_out_exact : ev->v_out_pred;
      ck_assert_msg(fabs(ev->v_out - target) <= 1e-12 * fabs(target),
                    "%s %s: v_out %.17g, target %.17g", files[f], papetti_schemes[_i],
                    ev->v_out, target);
      ck_assert(ev->corrections & VB_CORRECT_VOUT);
      /* the energy it restored is booked: balance closes with it */
      ck_assert(ev->energy_correction != 0.0);
      const double *e = vb_run_energy(s.run, 0), *d = vb_run_energy(s.run, 3);
      const double *c = vb_run_energy(s.run, 5);
      long last = vb_run_samples(s.run) - 1;
      ck_assert_double_eq_tol(c[last], ev->energy_correction, 1e-15);
      /* after the impact the kinetic energy is exactly m v_out^2 / 2 */
      ck_assert_double_eq_tol(e[last], 0.5 * 0.01 * target * target, 1e-12 * e[last]);
      (void)d;
      tu_free(&s);
    }
}
END_TEST

/* Without corrections the same cells are off (the test can fail). */
START_TEST(test_table1_uncorrected_differs)
{
  tu_sim s = papetti("scenes/papetti-case-b.cfg", papetti_schemes[_i], "");
  const vb_event *ev = &vb_run_contact(s.run, 0)->events[0];
  ck_assert(fabs(ev->v_out - ev->v_out_pred) > 1e-4 * fabs(ev->v_out_pred));
  ck_assert_int_eq(ev->corrections, 0);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- bouncing */

/* Root of Papetti eq 6 by bisection, independent of the library. */
static double
vout_root(double mu, double vin)
{
  double c = mu * vin - log1p(mu * vin), lo = -1.0 + 1e-16, hi = 0.0;
  for (int i = 0; i < 200; i++) {
    double m = 0.5 * (lo + hi);
    if (m - log1p(m) > c)
      lo = m;
    else
      hi = m;
  }
  return 0.5 * (lo + hi) / mu;
}

/* The bouncing ball (Papetti Fig 8 analogue): twenty bounces of a 0.01 kg
 * ball on a rigid floor, four schemes, with and without corrections.
 * With them every bounce leaves at the analytic v_out of its own impact
 * speed and the impact speeds follow the analytic sequence v_(n+1) =
 * |v_out(v_n)| from v_1 = sqrt(2 g h0); without them the error grows bounce
 * by bounce.  Measured relative deviation of the impact speed from the
 * analytic sequence at bounces 1, 5, 9, 13, 17, 20 (44.1 kHz, Papetti's
 * case 1 contact, drop to 0.3 m/s):
 *               1        5        9        13       17       20
 *   am1   corr  2.2e-11  2.0e-11  1.8e-11  1.7e-11  1.6e-11  1.5e-11
 *         none  2.2e-11  9.8e-03  1.2e-02  2.0e-02  3.1e-02  3.1e-02
 *   verlet corr 3.5e-14  3.7e-14  4.3e-14  4.9e-14  5.4e-14  6.0e-14
 *         none  3.5e-14  3.2e-03  1.2e-02  3.5e-02  3.9e-02  4.8e-02
 *   heun  corr  3.3e-15  8.0e-16  9.7e-15  1.8e-14  2.4e-14  3.1e-14
 *         none  3.3e-15  2.3e-02  4.1e-02  7.1e-02  6.5e-02  8.9e-02
 *   rk4   corr  3.3e-15  1.2e-15  9.7e-15  1.8e-14  2.4e-14  3.1e-14
 *         none  3.3e-15  8.4e-03  1.3e-02  1.7e-02  3.1e-02  3.2e-02
 * (impact speed v_in and exit speed v_out are the free-flight rates at the
 * extrapolated crossings, so gravity between sample and crossing is
 * accounted for). */
START_TEST(test_bouncing)
{
  const char *scheme = papetti_schemes[_i];
  double dev[2][20];
  for (int corr = 0; corr < 2; corr++) {
    char repl[256];
    snprintf(repl, sizeof repl, "scheme = \"%s\";%s", scheme,
             corr ? " corrections = [\"xmax\", \"vout\"]; vout = \"exact\";" : "");
    const char *r[] = { "scheme = \"am1\"; corrections = [\"xmax\", \"vout\"]; vout = \"exact\";",
                        repl };
    tu_sim s = tu_run_file("scenes/bouncing-ball.cfg", r, 1);
    ck_assert_int_eq(s.rc, VB_OK);
    const vb_contact_result *res = vb_run_contact(s.run, 0);
    ck_assert_int_ge(res->nevents, 20);
    double v = sqrt(2.0 * 9.81 * 4.5871559633027525e-3);
    for (int n = 0; n < 20; n++) {
      const vb_event *ev = &res->events[n];
      dev[corr][n] = fabs(ev->v_in - v) / v;
      if (corr)
        ck_assert_msg(fabs(ev->v_out - ev->v_out_exact) <= 1e-12 * fabs(ev->v_out_exact),
                      "%s bounce %d: v_out %.17g, exact %.17g", scheme, n, ev->v_out,
                      ev->v_out_exact);
      v = -vout_root(0.1, v);
    }
    tu_free(&s);
  }
  fprintf(stderr, "bouncing %-6s corrected:  ", scheme);
  for (int n = 0; n < 20; n += 4)
    fprintf(stderr, " %.2e", dev[1][n]);
  fprintf(stderr, " %.2e\nbouncing %-6s uncorrected:", dev[1][19], scheme);
  for (int n = 0; n < 20; n += 4)
    fprintf(stderr, " %.2e", dev[0][n]);
  fprintf(stderr, " %.2e\n", dev[0][19]);
  double worst = 0.0;
  for (int n = 0; n < 20; n++)
    worst = fmax(worst, dev[1][n]);
  ck_assert_msg(worst < 1e-9, "%s: corrected bounces drift %g from the analytic sequence",
                scheme, worst);
  /* uncorrected: the drift grows, and ends far above the corrected one */
  ck_assert_msg(dev[0][19] > 10.0 * worst && dev[0][19] > dev[0][4],
                "%s: uncorrected drift %g -> %g", scheme, dev[0][4], dev[0][19]);
}
END_TEST

/* ------------------------------------------------- exact contact duration */

/* Chatziioannou's alpha = 1 cases (m = 1, y0 = -0.1 mm, v0 = 1 m/s, 50 kHz):
 * kc = 1e9 and omega_c = 44700 rad/s; with exact_duration the contact
 * lasts pi / omega_c to 1 % for both schemes. */
START_TEST(test_exact_duration)
{
  const char *schemes[] = { "two-point", "three-point" };
  const double kc[] = { 1.0e9, 44700.0 * 44700.0 };
  for (int k = 0; k < 2; k++) {
    char krepl[128], srepl[128];
    snprintf(krepl, sizeof krepl, "k = %.17e;", kc[k]);
    snprintf(srepl, sizeof srepl, "scheme = \"%s\"; exact_duration = true;", schemes[_i]);
    const char *r[] = { "k = 1.0e10;", krepl, "scheme = \"two-point\";", srepl };
    tu_sim s = tu_run_file("scenes/chatziioannou-hard.cfg", r, 2);
    ck_assert_int_eq(s.rc, VB_OK);
    const vb_contact_result *res = vb_run_contact(s.run, 0);
    ck_assert_int_eq(res->nevents, 1);
    double exact = M_PI / sqrt(kc[k]);
    double err = fabs(res->events[0].duration - exact) / exact;
    fprintf(stderr, "exact duration %s kc %.4g: %.6g us vs %.6g us (%.3g)\n", schemes[_i], kc[k],
            1e6 * res->events[0].duration, 1e6 * exact, err);
    ck_assert_msg(err < 0.01, "%s kc %g: duration %g vs %g", schemes[_i], kc[k],
                  res->events[0].duration, exact);
    tu_free(&s);
    /* and without the substitution the duration is off by more */
    const char *r2[] = { "k = 1.0e10;", krepl, "scheme = \"two-point\";",
                         _i ? "scheme = \"three-point\";" : "scheme = \"two-point\";" };
    s = tu_run_file("scenes/chatziioannou-hard.cfg", r2, 2);
    double err0 = fabs(vb_run_contact(s.run, 0)->events[0].duration - exact) / exact;
    ck_assert_msg(err0 > 2.0 * err, "%s kc %g: plain error %g, corrected %g", schemes[_i], kc[k],
                  err0, err);
    tu_free(&s);
  }
}
END_TEST

/* kc = 1e10 with three-point is beyond the beta3* limit (omega_c dt <
 * pi/2): refused without saturate, and with it the contact resolves to the
 * two-step limit. */
START_TEST(test_exact_duration_saturate)
{
  char *text = tu_read("scenes/chatziioannou-hard.cfg");
  tu_replace(&text, "scheme = \"two-point\";", "scheme = \"three-point\"; exact_duration = true;");
  vb_scene *sc;
  char err[1024];
  int rc = vb_scene_load_string(text, "hard.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_str_eq(err, "hard.cfg:12: contact 'collision': exact_duration: omega_c = 100000 "
                        "rad/s (contact time 3.142e-05 s) is beyond the limit of scheme "
                        "'three-point', 78539.8 rad/s (contact time 4e-05 s = 2 steps) "
                        "(valid: raise scene.fs above 63662 Hz, or set saturate = true to use "
                        "the limit)");
  tu_replace(&text, "exact_duration = true;", "exact_duration = true; saturate = true;");
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_event *ev = &vb_run_contact(s.run, 0)->events[0];
  double limit = 2.0 / 50000.0;
  fprintf(stderr, "saturated three-point: %.6g us (limit %.6g us), %d samples\n",
          1e6 * ev->duration, 1e6 * limit, ev->samples);
  ck_assert_msg(fabs(ev->duration - limit / 0.99) < 0.02 * limit, "duration %g", ev->duration);
  ck_assert_int_ge(ev->samples, 2);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- two bodies */

/* A mass hitting a point of a modal object with vout: momentum across the
 * impulse is conserved and the event's v_out is the requested one. */
START_TEST(test_vout_two_bodies)
{
  const char *t =
    "scene = { name = \"two\"; fs = 44100.0; duration = 0.004; };\n"
    "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -2.0e-5; v0 = 0.93; },\n"
    "  { name = \"block\"; type = \"modal\"; freq = [0.0, 731.0, 1913.0]; mass = [0.21, 0.08, 0.05];\n"
    "    points = ( { name = \"face\"; shape = [1.0, 0.8, -0.6]; },\n"
    "               { name = \"cm\"; shape = [1.0, 0.0, 0.0]; } ); } );\n"
    "contacts = ( { name = \"hit\"; between = [\"hammer\", \"block.face\"]; law = \"hunt-crossley\";\n"
    "  k = 3.0e8; alpha = 1.5; mu = 0.4; scheme = \"am1\"; corrections = [\"vout\"]; } );\n"
    "record = { every = 1; };\n";
  tu_sim s = tu_run_text(t);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  ck_assert_int_eq(r->nevents, 1);
  const vb_event *ev = &r->events[0];
  ck_assert(ev->corrections & VB_CORRECT_VOUT);
  ck_assert_msg(fabs(ev->v_out - ev->v_out_exact) <= 1e-12 * fabs(ev->v_out_exact),
                "v_out %.17g vs %.17g", ev->v_out, ev->v_out_exact);
  /* momentum: the hammer's plus the block's rigid mode (point "cm") */
  long n = vb_run_samples(s.run);
  const double *vh = vb_run_body_v(s.run, 0), *vb = vb_run_point_v(s.run, 1, 1);
  double p0 = 0.0137 * 0.93, worst = 0.0;
  for (long i = 0; i < n; i++)
    worst = fmax(worst, fabs(0.0137 * vh[i] + 0.21 * vb[i] - p0));
  ck_assert(fabs(vb[n - 1]) > 0.01); /* the block was pushed */
  fprintf(stderr, "two bodies: momentum error %.3g of %.3g\n", worst, p0);
  ck_assert_msg(worst < 1e-12 * p0, "momentum off by %g", worst);
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------ rattle sides */

/* The reduced scene of check_random seed 1003573 (tests/random/README.md):
 * a mass on a damped spring, a two-mode object and a wall, two rattle
 * contacts, the first with the x_max clip.  The first rattle crosses its
 * whole clearance 2h within one sample, so no sample is out of contact;
 * the tracker kept the impact of the old side open, and the clip, applied
 * on that side, pushed the compression further into the new one: the
 * energy the corrections added grew four-fold a sample to 1.2e14 J and
 * x_max to 1.4e3 m.  The scene is passive (no forces, no drives), so its
 * energy can only fall: every sample's energy/correction stays within
 * the initial energy E0 in magnitude (a clip removes at most the energy
 * there is, and adds none beyond it), the total never exceeds E0, the
 * energy balance of the two-point scheme closes to 1e-9 of E0
 * (check_random's invariant), and no impact of the clipped contact goes
 * past its x_max, gains energy from the clip, or changes side.  Before the
 * fix: 1.2e14 J (two-point), 9.6e14 J (am1). */
START_TEST(test_xmax_rattle_side)
{
  static const char *const schemes[] = { "two-point", "am1" };
  char t[4096];
  snprintf(t, sizeof t,
    "scene = { name = \"xmax-rattle\"; fs = 96000.0; duration = 0.0031354166666666666; };\n"
    "bodies = (\n"
    "  { name = \"b9\"; type = \"mass\"; mass = 0.023518297594537215; u0 = -3.5289039322442628e-06;\n"
    "    v0 = 0.33058900373959599; k = 529974.88063458854; c = 4.9272609932689058; },\n"
    "  { name = \"b10\"; type = \"modal\"; freq = [0.0, 1506.8049675711472]; mass = 0.053766888872204391;\n"
    "    zeta = [0.0098087002527674615, 0.037212345596293661];\n"
    "    q0 = [7.0783540074278596e-07, -8.4689369654521526e-06];\n"
    "    dq0 = [-0.44783723409360254, -0.015807511041211586];\n"
    "    points = ( { name = \"p0\"; shape = [0.88484161046114407, -0.060208593970428659]; },\n"
    "               { name = \"p1\"; shape = [0.94940016192372512, -0.66974337622522695]; } ); },\n"
    "  { name = \"w11\"; type = \"wall\"; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"c8\"; between = [\"b10.p0\", \"b9\"]; law = \"rattle\"; scheme = \"%s\";\n"
    "    k = 8533408.8592889737; alpha = 1.1463946660175017; h = 4.9226109366138803e-06;\n"
    "    gap = 0.00018690777564335344; corrections = [\"xmax\"]; },\n"
    "  { name = \"c9\"; between = [\"b10.p1\", \"w11\"]; law = \"rattle\"; scheme = \"%s\";\n"
    "    k = 66874156.328041159; alpha = 1.5147201832759432; h = 4.8613194756274147e-05;\n"
    "    gap = 5.263225917205977e-05; }\n"
    ");\n"
    "record = { every = 1; };\n", schemes[_i], schemes[_i]);
  tu_sim s = tu_run_text(t);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *corr = vb_run_energy(s.run, VB_ENERGY_CORRECTION);
  double e0 = e[0], worst = 0.0, emax = 0.0;
  for (long i = 0; i < n; i++) {
    worst = fmax(worst, fabs(corr[i]));
    emax = fmax(emax, e[i]);
  }
  double err = vb_run_balance_error(s.run);
  fprintf(stderr, "xmax rattle %-9s: E0 %.6g J, max |energy/correction| %.3g J, max E %.6g J, "
          "balance error %.3g J\n", schemes[_i], e0, worst, emax, err);
  ck_assert_msg(worst <= e0, "%s: energy/correction %g J beyond E0 %g J", schemes[_i], worst, e0);
  ck_assert_msg(emax <= e0 * (1 + 1e-12), "%s: energy %g J above E0 %g J", schemes[_i], emax, e0);
  /* the two-point scheme conserves energy (am1's trapezoidal force does
   * not: 5e-3 of E0 here without corrections) */
  if (_i == 0)
    ck_assert_msg(fabs(err) <= 1e-9 * e0, "%s: balance error %g J", schemes[_i], err);
  /* the clip acted (the test exercises it), and never past x_max */
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  int clipped = 0;
  for (int k = 0; k < r->nevents; k++) {
    const vb_event *ev = &r->events[k];
    if (!(ev->corrections & VB_CORRECT_XMAX))
      continue;
    clipped++;
    ck_assert_msg(ev->x_max <= ev->x_max_pred * (1 + 1e-12), "%s: impact %d: x_max %g > %g",
                  schemes[_i], k, ev->x_max, ev->x_max_pred);
    ck_assert_msg(ev->energy_correction <= 0.0, "%s: impact %d: the clip added %g J",
                  schemes[_i], k, ev->energy_correction);
  }
  ck_assert_int_gt(clipped, 0);
  /* each impact presses on one side only: the compression keeps its sign
   * over the samples between an impact's onset and its release */
  const double h = 4.9226109366138803e-06, dt = 1.0 / 96000.0;
  for (int k = 0; k < r->nevents; k++) {
    const vb_event *ev = &r->events[k];
    long a = isfinite(ev->t_on) ? (long)ceil(ev->t_on / dt) : 0;
    long b = isfinite(ev->t_off) ? (long)floor(ev->t_off / dt) : n - 1;
    double side = 0.0;
    for (long i = a; i <= b && i < n; i++) {
      double x = r->compression[i];
      if (!(fabs(x) > h))
        continue; /* out of contact */
      if (side == 0.0)
        side = x < 0.0 ? -1.0 : 1.0;
      ck_assert_msg(side * x > 0.0, "%s: impact %d changes side at sample %ld", schemes[_i], k,
                    i);
    }
  }
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(test_correction_errors)
{
  static const char *const cases[][2] = {
    { "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"three-point\"; corrections = [\"vout\"];",
      "corrections apply to schemes whose state holds a velocity (valid: two-point, am1, verlet, position-verlet, heun, rk4)" },
    { "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; corrections = [\"vmax\"];",
      "unknown correction 'vmax' (valid: xmax, vout)" },
    { "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; vout = \"exact\";",
      "'vout' applies only with corrections = [\"vout\"]" },
    { "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"two-point\"; exact_duration = true;",
      "exact_duration needs law 'power' with alpha = 1 (Chatziioannou eq 14-16)" },
    { "law = \"power\"; k = 1.0e9; alpha = 1.0; scheme = \"am1\"; exact_duration = true;",
      "exact_duration applies to the schemes with an exact contact duration (valid: two-point, three-point)" },
    { "law = \"power\"; k = 1.0e9; alpha = 1.0; scheme = \"two-point\"; saturate = true;",
      "'saturate' applies only with exact_duration = true" },
    { "law = \"polynomial\"; k = 1.0e9; alpha = 3; scheme = \"am1\"; corrections = [\"xmax\"];",
      "corrections need an impact law with analytic x_max and v_out (valid: power, hunt-crossley, rattle, "
      "lankarani-nikravesh, flores)" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char t[1024], err[1024], expected[512];
    snprintf(t, sizeof t,
             "scene = { name = \"e\"; fs = 44100.0; duration = 0.01; };\n"
             "bodies = ( { name = \"m\"; type = \"mass\"; mass = 0.01; v0 = 1.0; },\n"
             "           { name = \"w\"; type = \"wall\"; } );\n"
             "contacts = ( { name = \"c\"; between = [\"m\", \"w\"];\n  %s } );\n", cases[i][0]);
    snprintf(expected, sizeof expected, "test.cfg:5: contact 'c': %s", cases[i][1]);
    vb_scene *sc = NULL;
    int rc = vb_scene_load_string(t, "test.cfg", &sc, err, sizeof err);
    ck_assert_int_eq(rc, VB_EINVAL);
    ck_assert_msg(strcmp(err, expected) == 0, "case %zu:\n  got      %s\n  expected %s", i, err,
                  expected);
  }
}
END_TEST

static Suite *
corrections_suite(void)
{
  Suite *s = suite_create("corrections");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 300);
  tcase_add_loop_test(core, test_table1_corrected, 0, 4);
  tcase_add_loop_test(core, test_table1_uncorrected_differs, 0, 4);
  tcase_add_loop_test(core, test_bouncing, 0, 4);
  tcase_add_loop_test(core, test_exact_duration, 0, 2);
  tcase_add_test(core, test_exact_duration_saturate);
  tcase_add_test(core, test_vout_two_bodies);
  tcase_add_loop_test(core, test_xmax_rattle_side, 0, 2);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 60);
  tcase_add_test(errors, test_correction_errors);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(corrections_suite());
}
