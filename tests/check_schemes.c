/* check_schemes.c - the conformance suite: one set of tests looped over
 * every registered scheme (free flight exact, energy behaviour,
 * determinism, observed order of accuracy). */
#include <math.h>
#include "testutil.h"
#include "scheme.h"

static const vb_scheme *
scheme_at(int i)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  ck_assert_int_lt(i, (int)n);
  return all[i];
}

/* Whether scheme sc steps law text `law` (e.g. the damped Hunt-Crossley
 * of these tests): the energy-quadratised family refuses damping and the
 * always-engaged laws, with its reason in the message (ops->accepts). */
static int
steps_law(const vb_scheme *sc, const char *law)
{
  char text[2048], err[1024] = "";
  const char *extra = strcmp(sc->name, "quadratic") == 0 ? " s = 1.0;" : "";
  snprintf(text, sizeof text,
           "scene = { name = \"law\"; fs = 44100.0; duration = 0.001; };\n"
           "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.01; },\n"
           "           { name = \"wall\"; type = \"wall\"; } );\n"
           "contacts = ( { name = \"c\"; between = [\"ball\", \"wall\"]; %s scheme = \"%s\";%s } );\n",
           law, sc->name, extra);
  vb_scene *scene = NULL;
  int rc = vb_scene_load_string(text, "law.cfg", &scene, err, sizeof err);
  vb_scene_free(scene);
  if (rc == VB_OK)
    return 1;
  /* the only refusal: the scheme's own, which says what it needs */
  ck_assert_msg(sc->ops->accepts != NULL && strstr(err, "needs") != NULL, "%s: %s", sc->name, err);
  return 0;
}

/* Whether scheme sc's family steps rigid contacts only (impulses,
 * moreau-jean): the suite gives it the rigid law where the others get a
 * force law, e = 1 for a lossless one and e = 0.61 for a damped one. */
static int
rigid_scheme(const vb_scheme *sc)
{
  return vb_family_info_of(sc->family)->impulse;
}

/* Scene text of one mass and one wall with the given contact (a rigid
 * one for a rigid scheme: e = 0.61 for a damped law, else 1). */
static void
scene_text(char *buf, size_t len, const char *scheme, double fs, double duration,
           double gravity, double mass, double u0, double v0, const char *contact)
{
  const char *extra = strcmp(scheme, "quadratic") == 0 ? " s = 1.0;" : "";
  if (rigid_scheme(vb_scheme_lookup(scheme)))
    contact = strstr(contact, "mu = 0.") ? "law = \"rigid\"; e = 0.61;" : "law = \"rigid\"; e = 1.0;";
  snprintf(buf, len,
           "scene = { name = \"conformance\"; fs = %.17g; duration = %.17g; gravity = %.17g; };\n"
           "bodies = ( { name = \"ball\"; type = \"mass\"; mass = %.17g; u0 = %.17g; v0 = %.17g; },\n"
           "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
           "contacts = ( { name = \"c\"; between = [\"ball\", \"wall\"]; %s scheme = \"%s\";%s } );\n",
           fs, duration, gravity, mass, u0, v0, contact, scheme, extra);
}

/* Free flight under gravity, never reaching the wall, is exact. */
START_TEST(test_free_flight)
{
  const vb_scheme *sc = scheme_at(_i);
  char text[2048];
  /* the contact is never reached: an undamped law where damping is refused */
  const char *law = "law = \"hunt-crossley\"; k = 2.2e8; alpha = 1.37; mu = 0.41;";
  if (!rigid_scheme(sc) && !steps_law(sc, law))
    law = "law = \"hunt-crossley\"; k = 2.2e8; alpha = 1.37; mu = 0;";
  scene_text(text, sizeof text, sc->name, 44100.0, 0.05, 9.81, 0.0137, -0.02385, 0.531, law);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const double *u = vb_run_body_u(s.run, 0), *v = vb_run_body_v(s.run, 0);
  double dt = 1.0 / 44100.0, worst_u = 0.0, worst_v = 0.0;
  for (long n = 0; n < vb_run_samples(s.run); n++) {
    double t = n * dt;
    double ue = -0.02385 + 0.531 * t - 0.5 * 9.81 * t * t;
    double ve = 0.531 - 9.81 * t;
    /* three-level schemes report the rate of the step into the sample */
    if (vb_family_info_of(sc->family)->levels == 3 && n > 0)
      ve = 0.531 - 9.81 * (t - 0.5 * dt);
    if (vb_family_info_of(sc->family)->levels == 3 && n == 0)
      ve = 0.531 + 0.5 * 9.81 * dt;
    worst_u = fmax(worst_u, fabs(u[n] - ue));
    worst_v = fmax(worst_v, fabs(v[n] - ve));
  }
  /* round-off in a recurrence over N steps grows like N^2 eps |u|
   * (2205 steps: about 3e-11 m here), far below any scheme error */
  ck_assert_msg(worst_u < 3e-11, "%s: u off by %g", sc->name, worst_u);
  /* rates come from differences of positions: round-off N eps |u| / dt */
  ck_assert_msg(worst_v < 1e-9, "%s: v off by %g", sc->name, worst_v);
  ck_assert_int_eq(vb_run_contact(s.run, 0)->nevents, 0);
  tu_free(&s);
}
END_TEST

/* A lossless impact: energy-conserving schemes keep their discrete energy
 * and rebound at the entry speed to round-off; the others stay within a
 * percent for a contact of about 30 samples. */
START_TEST(test_energy_lossless)
{
  const vb_scheme *sc = scheme_at(_i);
  char text[2048];
  scene_text(text, sizeof text, sc->name, 44100.0, 0.003, 0.0, 0.0137, -3.3e-5, 0.87,
             "law = \"power\"; k = 2.385e7; alpha = 1.5;");
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  ck_assert_int_eq(r->nevents, 1);
  const vb_event *ev = &r->events[0];
  /* a rigid contact's impact is one step's impulse */
  ck_assert_int_ge(ev->samples, rigid_scheme(sc) ? 1 : 25);
  const double *e = vb_run_energy(s.run, 0);
  double lo = e[0], hi = e[0];
  for (long n = 0; n < vb_run_samples(s.run); n++) {
    lo = fmin(lo, e[n]);
    hi = fmax(hi, e[n]);
  }
  double drift = (hi - lo) / e[0];
  double rebound = fabs(fabs(ev->v_out) - ev->v_in) / ev->v_in;
  if (sc->energy_conserving && sc->ops->state_drift) {
    /* a conserved modified energy: the rebound loses what the auxiliary
     * state keeps after the release, psi^2/2 = m (v_in^2 - v_out^2)/2, so
     * the drift of psi from its definition (0 out of contact) says it */
    double psi = vb_run_state_drift(s.run), m = 0.0137;
    double kept = 0.5 * m * (ev->v_in * ev->v_in - ev->v_out * ev->v_out);
    fprintf(stderr, "%s: rebound off by %.3g, psi %.3g, psi^2/2 %.6g J, m dv^2/2 %.6g J\n",
            sc->name, rebound, psi, 0.5 * psi * psi, kept);
    ck_assert_msg(drift < 1e-13, "%s: energy drift %g", sc->name, drift);
    ck_assert_msg(psi > 0.0 && rebound > 0.0, "%s: psi %g, rebound %g", sc->name, psi, rebound);
    ck_assert_msg(fabs(kept - 0.5 * psi * psi) < 1e-3 * 0.5 * psi * psi, "%s: kept %g, psi^2/2 %g",
                  sc->name, kept, 0.5 * psi * psi);
  } else if (sc->energy_conserving) {
    ck_assert_msg(drift < 1e-13, "%s: energy drift %g", sc->name, drift);
    ck_assert_msg(rebound < 1e-12, "%s: rebound off by %g", sc->name, rebound);
    ck_assert(isnan(vb_run_state_drift(s.run)));
  } else {
    ck_assert_msg(drift < 1e-2, "%s: energy drift %g", sc->name, drift);
    ck_assert_msg(rebound < 1e-2, "%s: rebound off by %g", sc->name, rebound);
    /* and the error is really there: these schemes do not conserve it */
    ck_assert_msg(drift > 1e-9, "%s: energy drift %g suspiciously small", sc->name, drift);
  }
  tu_free(&s);
}
END_TEST

/* With Hunt-Crossley damping and gravity the dissipated and external
 * accounts close the balance:
 * exactly for the energy-conserving schemes, within the scheme's own
 * error (trapezoidal accounting) for the others. */
START_TEST(test_energy_balance_damped)
{
  const vb_scheme *sc = scheme_at(_i);
  char text[2048];
  const char *law = "law = \"hunt-crossley\"; k = 2.385e7; alpha = 1.5; mu = 0.61;";
  /* does not apply to a lossless-only scheme (it refuses the law) */
  if (!rigid_scheme(sc) && !steps_law(sc, law))
    return;
  scene_text(text, sizeof text, sc->name, 96000.0, 0.003, 9.81, 0.0137, -3.3e-5, 0.87, law);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  ck_assert_int_eq(r->nevents, 1);
  const double *e = vb_run_energy(s.run, 0), *d = vb_run_energy(s.run, 3);
  const double *x = vb_run_energy(s.run, 4);
  long last = vb_run_samples(s.run) - 1;
  ck_assert(d[last] > 0.01 * e[0]); /* damping did take energy */
  ck_assert(x[last] > 0.001 * e[0]); /* gravity did work */
  double worst = 0.0;
  for (long n = 0; n <= last; n++)
    worst = fmax(worst, fabs(e[n] + d[n] - x[n] - e[0]));
  worst /= e[0];
  ck_assert_double_eq(vb_run_balance_error(s.run), e[last] + d[last] - x[last] - e[0]);
  /* round-off: the kinetic energy of a three-level scheme (and the rate
   * of eq 8a) is a difference of positions, each sample off by about
   * eps |x| / dt; over 288 steps this reaches ~1e-12 of the energy */
  if (sc->energy_conserving)
    ck_assert_msg(worst < 1e-11, "%s: balance error %g", sc->name, worst);
  else
    ck_assert_msg(worst < 2e-2, "%s: balance error %g", sc->name, worst);
  tu_free(&s);
}
END_TEST

/* The same scene twice gives bit-identical results. */
START_TEST(test_determinism)
{
  const vb_scheme *sc = scheme_at(_i);
  char text[2048];
  const char *law = "law = \"hunt-crossley\"; k = 2.385e7; alpha = 1.5; mu = 0.61;";
  if (!rigid_scheme(sc) && !steps_law(sc, law))
    law = "law = \"power\"; k = 2.385e7; alpha = 1.5;";
  scene_text(text, sizeof text, sc->name, 44100.0, 0.01, 9.81, 0.0137, -3.3e-5, 0.87, law);
  tu_sim a = tu_run_text(text), b = tu_run_text(text);
  long n = vb_run_samples(a.run);
  const vb_contact_result *ra = vb_run_contact(a.run, 0), *rb = vb_run_contact(b.run, 0);
  ck_assert_int_gt(ra->nevents, 0);
  ck_assert_int_eq(ra->nevents, rb->nevents);
  ck_assert(memcmp(ra->compression, rb->compression, (size_t)n * sizeof(double)) == 0);
  ck_assert(VB_MEMEQ(ra->events, rb->events, (size_t)ra->nevents * sizeof(vb_event)));
  ck_assert(memcmp(vb_run_energy(a.run, 0), vb_run_energy(b.run, 0), (size_t)n * sizeof(double)) == 0);
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* Observed order of accuracy on a smooth problem (a linear spring, the
 * polynomial law with alpha = 1): the error at t = 0.02 s falls with the
 * step at the order the scheme claims. */
START_TEST(test_order)
{
  const vb_scheme *sc = scheme_at(_i);
  const double m = 0.0137, k = 3.71e4, v0 = 0.57, T = 0.02;
  const double w = sqrt(k / m);
  double err[3];
  /* a smooth law: the always-engaged polynomial; a scheme that refuses it
   * has its order measured on an impact (test_order_impact) */
  if (rigid_scheme(sc) || !steps_law(sc, "law = \"polynomial\"; k = 3.71e4; alpha = 1;"))
    return; /* (a rigid scheme: its order at impacts, tests/run/check_rigid.c) */
  for (int j = 0; j < 3; j++) {
    double fs = 32000.0 * pow(2.0, j);
    char text[2048];
    scene_text(text, sizeof text, sc->name, fs, T, 0.0, m, 0.0, v0,
               "law = \"polynomial\"; k = 3.71e4; alpha = 1;");
    tu_sim s = tu_run_text(text);
    ck_assert_int_eq(s.rc, VB_OK);
    const double *x = vb_run_contact(s.run, 0)->compression;
    err[j] = 0.0;
    for (long n = 0; n < vb_run_samples(s.run); n++)
      err[j] = fmax(err[j], fabs(x[n] - v0 / w * sin(w * n / fs)));
    tu_free(&s);
  }
  double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
  ck_assert_msg(fabs(p2 - sc->order) < 0.3 && fabs(p1 - sc->order) < 0.6,
                "%s: observed order %.3f, %.3f (claims %d)",
                sc->name, p1, p2, sc->order);
}
END_TEST

/* The quadratic scheme with s = 1/2 is second order (Ducceschi 3). */
START_TEST(test_order_quadratic_half)
{
  const double m = 0.0137, k = 3.71e4, v0 = 0.57, T = 0.02, w = sqrt(k / m);
  double err[2];
  for (int j = 0; j < 2; j++) {
    double fs = 16000.0 * pow(2.0, j);
    char text[2048];
    snprintf(text, sizeof text,
             "scene = { name = \"q\"; fs = %.17g; duration = %.17g; };\n"
             "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.0137; v0 = 0.57; },\n"
             "           { name = \"wall\"; type = \"wall\"; } );\n"
             "contacts = ( { name = \"c\"; between = [\"ball\", \"wall\"]; law = \"polynomial\";\n"
             "  k = 3.71e4; alpha = 1; scheme = \"quadratic\"; s = 0.5; } );\n", fs, T);
    tu_sim s = tu_run_text(text);
    const double *x = vb_run_contact(s.run, 0)->compression;
    err[j] = 0.0;
    for (long n = 0; n < vb_run_samples(s.run); n++)
      err[j] = fmax(err[j], fabs(x[n] - v0 / w * sin(w * n / fs)));
    tu_free(&s);
  }
  ck_assert_msg(fabs(log2(err[0] / err[1]) - 2.0) < 0.3, "order %g", log2(err[0] / err[1]));
}
END_TEST

/* With a force that depends on velocity (a spring-damper, law spring with
 * c) position Verlet, which samples position and velocity at the same
 * mid-step instant, stays second order; velocity Verlet as Papetti's eq
 * 21 writes it (force from the half-step velocity at the full-step
 * position) drops to first, as the README says. */
START_TEST(test_order_damped_verlets)
{
  const double m = 0.0137, k = 3.71e4, c = 4.3, v0 = 0.57, T = 0.02;
  const double sigma = c / (2.0 * m), wd = sqrt(k / m - sigma * sigma);
  static const char *const names[] = {"position-verlet", "verlet"};
  static const double order[] = {2.0, 1.0};
  for (int i = 0; i < 2; i++) {
    double err[3];
    for (int j = 0; j < 3; j++) {
      double fs = 32000.0 * pow(2.0, j);
      char text[2048];
      scene_text(text, sizeof text, names[i], fs, T, 0.0, m, 0.0, v0,
                 "law = \"spring\"; k = 3.71e4; c = 4.3;");
      tu_sim s = tu_run_text(text);
      ck_assert_int_eq(s.rc, VB_OK);
      const double *x = vb_run_contact(s.run, 0)->compression;
      err[j] = 0.0;
      for (long n = 0; n < vb_run_samples(s.run); n++) {
        double t = n / fs;
        err[j] = fmax(err[j], fabs(x[n] - v0 / wd * exp(-sigma * t) * sin(wd * t)));
      }
      tu_free(&s);
    }
    double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
    ck_assert_msg(fabs(p2 - order[i]) < 0.3 && fabs(p1 - order[i]) < 0.6,
                  "%s: observed order %.3f, %.3f with damping (expected %g)", names[i], p1, p2,
                  order[i]);
  }
}
END_TEST

/* The two Verlet schemes are symplectic for forces of position only: on a
 * linear spring over 261 periods the energy at the full steps stays within
 * (w dt)^2 / 4 of the start (6.6e-4 here; leapfrog keeps a nearby modified
 * energy instead), with no secular growth: the worst error of the last
 * tenth is that of the first. */
START_TEST(test_symplectic_verlets)
{
  static const char *const names[] = {"position-verlet", "verlet"};
  const double m = 0.0137, k = 3.71e4, fs = 32000.0, w = sqrt(k / m), wdt = w / fs;
  for (int i = 0; i < 2; i++) {
    char text[2048];
    scene_text(text, sizeof text, names[i], fs, 1.0, 0.0, m, 0.0, 0.57,
               "law = \"polynomial\"; k = 3.71e4; alpha = 1;");
    tu_sim s = tu_run_text(text);
    ck_assert_int_eq(s.rc, VB_OK);
    const double *e = vb_run_energy(s.run, 0);
    long n = vb_run_samples(s.run), tenth = n / 10;
    double first = 0.0, last = 0.0;
    for (long j = 0; j < n; j++) {
      double err = fabs(e[j] - e[0]) / e[0];
      if (j < tenth)
        first = fmax(first, err);
      if (j >= n - tenth)
        last = fmax(last, err);
    }
    ck_assert_msg(first < 0.3 * wdt * wdt && last < 0.3 * wdt * wdt,
                  "%s: energy error %g, %g of the energy ((w dt)^2 = %g)", names[i], first, last,
                  wdt * wdt);
    ck_assert_msg(last <= 1.01 * first, "%s: energy error grows from %g to %g", names[i], first,
                  last);
    tu_free(&s);
  }
}
END_TEST

/* Papetti's eq 22 (heun) is velocity Verlet's map when the force does not
 * depend on the velocity: an undamped mode at w dt = 1.9 (past the bound
 * of classical RK2) runs, equals verlet's to round-off, and its energy does
 * not grow; at w dt = 2.1 both schemes refuse the scene. */
START_TEST(test_heun_is_verlet_undamped)
{
  static const char *const names[] = {"heun", "verlet"};
  const double fs = 1000.0;
  const double *u[2];
  tu_sim s[2];
  long n = 0;
  char text[2048];
  for (int i = 0; i < 2; i++) {
    snprintf(text, sizeof text,
             "scene = { name = \"h\"; fs = %.17g; duration = 2.0; gravity = 0.0; };\n"
             "bodies = ( { name = \"bar\"; type = \"modal\"; freq = [%.17g]; mass = [0.1];\n"
             "  q0 = [1.0e-3]; points = ( { name = \"tip\"; shape = [1.0]; } ); },\n"
             "  { name = \"wall\"; type = \"wall\"; position = 1.0; } );\n"
             "contacts = ( { name = \"c\"; between = [\"bar.tip\", \"wall\"]; law = \"power\";\n"
             "  k = 1.0e6; alpha = 1.5; scheme = \"%s\"; } );\n",
             fs, 1.9 * fs / (2.0 * M_PI), names[i]);
    s[i] = tu_run_text(text);
    ck_assert_msg(s[i].rc == VB_OK, "%s refuses w dt = 1.9", names[i]);
    u[i] = vb_run_point_u(s[i].run, 0, 0);
    n = vb_run_samples(s[i].run);
    const double *e = vb_run_energy(s[i].run, VB_ENERGY_TOTAL);
    double first = 0.0, last = 0.0;
    for (long j = 0; j < n; j++) {
      if (j < n / 10)
        first = fmax(first, fabs(e[j] - e[0]));
      if (j >= n - n / 10)
        last = fmax(last, fabs(e[j] - e[0]));
    }
    ck_assert_msg(last <= 1.01 * first, "%s: energy error grows from %g to %g", names[i], first,
                  last);
  }
  for (long j = 0; j < n; j++)
    ck_assert_msg(fabs(u[0][j] - u[1][j]) <= 1e-12 * 1.0e-3, "sample %ld: heun %.17g, verlet %.17g",
                  j, u[0][j], u[1][j]);
  for (int i = 0; i < 2; i++) {
    tu_free(&s[i]);
    snprintf(text, sizeof text,
             "scene = { name = \"h\"; fs = 1000.0; duration = 0.1; gravity = 0.0; };\n"
             "bodies = ( { name = \"bar\"; type = \"modal\"; freq = [%.17g]; mass = [0.1];\n"
             "  points = ( { name = \"tip\"; shape = [1.0]; } ); },\n"
             "  { name = \"wall\"; type = \"wall\"; position = 1.0; } );\n"
             "contacts = ( { name = \"c\"; between = [\"bar.tip\", \"wall\"]; law = \"power\";\n"
             "  k = 1.0e6; alpha = 1.5; scheme = \"%s\"; } );\n",
             2.1 * fs / (2.0 * M_PI), names[i]);
    vb_scene *sc = NULL;
    char err[1024] = "";
    ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
    ck_assert_msg(strstr(err, "stability limit") != NULL, "%s: %s", names[i], err);
    vb_scene_free(sc);
  }
}
END_TEST

static Suite *
schemes_suite(void)
{
  size_t n;
  vb_scheme_list(&n);
  Suite *s = suite_create("schemes");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 120);
  tcase_add_loop_test(core, test_free_flight, 0, (int)n);
  tcase_add_loop_test(core, test_energy_lossless, 0, (int)n);
  tcase_add_loop_test(core, test_energy_balance_damped, 0, (int)n);
  tcase_add_loop_test(core, test_determinism, 0, (int)n);
  tcase_add_loop_test(core, test_order, 0, (int)n);
  tcase_add_test(core, test_order_quadratic_half);
  tcase_add_test(core, test_order_damped_verlets);
  tcase_add_test(core, test_symplectic_verlets);
  tcase_add_test(core, test_heun_is_verlet_undamped);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(schemes_suite());
}
