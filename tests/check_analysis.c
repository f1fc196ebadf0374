/* check_analysis.c - the analysis block (lib/run/analysis.c): its parse
 * errors, the section sampled at the exact t_k against the closed-form
 * steady state of a forced linear oscillator, and the impact map of
 * scenes/impact-oscillator.cfg on its period-1 orbit. */
#include "testutil.h"
#include "run/analysis.h"

/* ---------------------------------------------------------------- parse */

#define BASE                                                                                       \
  "scene = { name = \"t\"; fs = 20000.0; duration = 1.0; };\n"                                   \
  "bodies = ( { name = \"m\"; type = \"mass\"; mass = 1.0; k = 3947.8; c = 6.28; },\n"           \
  "  { name = \"stop\"; type = \"wall\"; position = 0.001; },\n"                                  \
  "  { name = \"bar\"; type = \"modal\"; preset = { kind = \"bar\"; nmodes = 2; length = 0.3;\n" \
  "    width = 0.02; thickness = 0.005; youngs = 2e11; density = 7800.0; };\n"                   \
  "    points = ( { name = \"tip\"; x = 0.3; } ); } );\n"                                         \
  "contacts = ( { name = \"hit\"; between = [\"m\", \"stop\"]; law = \"power\"; k = 1e7;\n"       \
  "    alpha = 1.5; scheme = \"two-point\"; },\n"                                                                    \
  "  { name = \"spring\"; between = [\"m\", \"stop\"]; law = \"spring\"; k = 10.0; scheme = \"two-point\"; } );\n"      \
  "forces = ( { name = \"drive\"; at = \"m\"; type = \"harmonic\"; amplitude = 1.0;\n"            \
  "    freq = 25.0; },\n"                                                                         \
  "  { name = \"push\"; at = \"m\"; type = \"constant\"; value = 0.1; } );\n"

/* A block and the message its first error gives (the line is 13). */
static const struct {
  const char *block, *message;
} bad[] = {
    {"analysis = 3;", "test.cfg:13: top level: 'analysis' must be a group"},
    {"analysis = { sections = {}; };", "test.cfg:13: analysis: unknown key 'sections' (valid: "
                                       "section, impact_map, period, attractors, lyapunov, grazing)"},
    {"analysis = { grazing = 0.1; };", "test.cfg:13: analysis: the block asks for nothing"},
    {"analysis = { section = { drive = \"forces.push\"; points = [\"m\"]; }; };",
     "test.cfg:13: analysis 'section': 'drive' = \"forces.push\" names no harmonic force or sine "
     "drive (valid: forces.drive)"},
    {"analysis = { section = { drive = \"bodies.stop.drive\"; points = [\"m\"]; }; };",
     "'drive' = \"bodies.stop.drive\" names no harmonic force"},
    {"analysis = { section = { points = [\"m\"]; }; };",
     "test.cfg:13: analysis 'section': give one of 'drive' and 'period'"},
    {"analysis = { section = { period = 0.04; drive = \"forces.drive\"; points = [\"m\"]; }; };",
     "give one of 'drive' and 'period'"},
    {"analysis = { section = { period = -0.04; points = [\"m\"]; }; };",
     "analysis 'section': 'period' must be > 0 (got -0.04)"},
    {"analysis = { section = { period = 0.04; phase = 6.3; points = [\"m\"]; }; };",
     "'phase' must be >= 0 and < 2 pi (got 6.3)"},
    {"analysis = { section = { period = 0.04; transient = 30; points = [\"m\"]; }; };",
     "the transient (1.2 s) leaves nothing of the run (valid: less than the duration, 1 s)"},
    {"analysis = { section = { period = 0.04; transient = 3; transient_time = 0.1; points = "
     "[\"m\"]; }; };",
     "give one of 'transient' (drive periods) and 'transient_time' (s)"},
    {"analysis = { section = { period = 0.04; }; };",
     "analysis 'section': missing required key 'points'"},
    {"analysis = { section = { period = 0.04; points = []; }; };",
     "'points' must be a non-empty list of names"},
    {"analysis = { section = { period = 0.04; points = [\"stop\"]; }; };",
     "'points' names wall 'stop', whose motion is prescribed"},
    {"analysis = { section = { period = 0.04; points = [\"bar\"]; }; };",
     "'points' must name a point of modal object 'bar' (valid: bar.tip)"},
    {"analysis = { section = { period = 0.04; points = [\"nobody\"]; }; };",
     "'points' names unknown body 'nobody' (valid: m, stop, bar)"},
    {"analysis = { section = { period = 0.04; points = [\"m\", \"bar.tip\", \"m\"]; }; };",
     "'points' names 'm' twice (valid: each point once)"},
    {"analysis = { impact_map = { contact = \"miss\"; }; };",
     "test.cfg:13: analysis 'impact_map': 'contact' names unknown contact 'miss' (valid: hit)"},
    {"analysis = { impact_map = { contact = \"spring\"; }; };",
     "contact 'spring' (law 'spring') is always engaged: it has no impacts (valid: hit)"},
    {"analysis = { impact_map = { contact = \"hit\"; }; period = { max = 4; }; };",
     "'period' and 'attractors' classify the section: they need 'section'"},
    {"analysis = { section = { period = 0.04; points = [\"m\"]; }; period = { max = 2.5; }; };",
     "analysis 'period': 'max' must be an integer >= 1 and <= 1024 (got 2.5)"},
    {"analysis = { section = { period = 0.04; points = [\"m\"]; }; period = { tolerance = 0; };"
     " };",
     "analysis 'period': 'tolerance' must be > 0 and < 1 (got 0)"},
    {"analysis = { section = { period = 0.04; points = [\"m\"]; }; attractors = { tol = 1; }; };",
     "analysis 'attractors': unknown key 'tol' (valid: tolerance)"},
    {"analysis = { lyapunov = { renormalise = 0; }; };",
     "analysis 'lyapunov': 'renormalise' must be an integer >= 1 (got 0)"},
    {"analysis = { impact_map = { contact = \"hit\"; }; grazing = 1.5; };",
     "analysis: 'grazing' must be >= 0 and < 1 (got 1.5)"},
};

START_TEST(test_parse_errors)
{
  char text[4096], err[1024] = "";
  vb_scene *sc = NULL;

  snprintf(text, sizeof text, "%s%s\n", BASE, bad[_i].block);
  ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strstr(err, bad[_i].message) != NULL, "case %d:\n  got      %s\n  expected %s",
                _i, err, bad[_i].message);
}
END_TEST

/* A block that loads, with each key where it goes. */
START_TEST(test_parse_good)
{
  char text[4096], err[1024] = "";
  vb_scene *sc = NULL;

  snprintf(text, sizeof text,
           "%sanalysis = { section = { drive = \"forces.drive\"; phase = 1.25; transient = 7;\n"
           "  points = [\"bar.tip\", \"m\"]; }; impact_map = { contact = \"hit\"; };\n"
           "  period = { max = 9; tolerance = 2.5e-3; }; attractors = { tolerance = 0.0375; };\n"
           "  grazing = 0.0625; };\n",
           BASE);
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  const vb_analysis *a = sc->analysis;
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->section, 1);
  ck_assert_double_eq(a->period, 1.0 / 25.0);
  ck_assert_double_eq(a->phase, 1.25);
  ck_assert_double_eq(a->transient_time, 7.0 / 25.0);
  ck_assert_int_eq(a->npoints, 2);
  ck_assert_str_eq(a->points[0].name, "bar.tip");
  ck_assert_int_eq(a->points[0].body, 2);
  ck_assert_int_eq(a->points[1].body, 0);
  ck_assert_int_eq(a->map_contact, 0);
  ck_assert_int_eq(a->pmax, 9);
  ck_assert_double_eq(a->tolerance, 2.5e-3);
  ck_assert_double_eq(a->attractor_tolerance, 0.0375);
  ck_assert_double_eq(a->grazing, 0.0625);
  ck_assert_int_eq(a->lyapunov, 0);
  vb_scene_free(sc);
  /* without the block: none, and the run gathers nothing */
  snprintf(text, sizeof text, "%s", BASE);
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_ptr_null(sc->analysis);
  vb_run *run;
  ck_assert_int_eq(vb_run_alloc(sc, &run, err, sizeof err), VB_OK);
  ck_assert_ptr_null(vb_run_analysis(run));
  vb_run_free(run);
  vb_scene_free(sc);
}
END_TEST

/* ------------------------------------------------------------- sampling */

/* The cubic through (0, u0) and (1, u1) with slopes h v0 and h v1, in its
 * power form a + b s + c s^2 + d s^3 (an implementation apart from
 * analysis.c's Hermite basis): its value and its rate at s. */
static void
cubic(double u0, double v0, double u1, double v1, double h, double s, double *u, double *v)
{
  double a = u0, b = h * v0, c = 3.0 * (u1 - u0) - 2.0 * h * v0 - h * v1;
  double d = 2.0 * (u0 - u1) + h * v0 + h * v1;

  *u = a + s * (b + s * (c + s * d));
  *v = (b + s * (2.0 * c + 3.0 * s * d)) / h;
}

/* A mass on a spring and damper driven by A sin(w t + phi), started on its
 * steady state x(t) = Im(A H e^(i (w t + phi))), H = 1 / (k - m w^2 + i c w)
 * (the forced response of a linear oscillator), sampled at
 * t_k = (k + phase/(2 pi)) T from a random transient on.  Random masses,
 * springs, damping, drives, phases and transients, seeded per case.
 *   - t_k is exact, the first after the transient, and there are as many
 *     samples as t_k <= duration;
 *   - each sample is the cubic Hermite interpolant of the recorded (u, v)
 *     at the two steps around t_k, computed apart (cubic()), to 1e-12;
 *   - against the closed form x(t_k), x'(t_k), the sampling adds less than
 *     1e-9 of the amplitude to the scheme's own error: the section minus
 *     x(t_k) is the interpolant of the steps' errors to 1e-9 (the
 *     interpolation error is O((w dt)^4), 1e-16 here), and no larger than
 *     the largest error of a step in u.  The scheme's error itself is 1e-8
 *     to 1e-6 (doc/analysis.md), so 1e-9 against x(t_k) alone cannot be
 *     asked of it. */
START_TEST(test_section_exact)
{
  srand48(2385 + 17 * _i);
  double m = 0.5 + 1.5 * drand48(), f0 = 5.0 + 15.0 * drand48(), zeta = 0.01 + 0.3 * drand48();
  double fd = 13.0 + 27.0 * drand48(), A = 0.5 + 4.0 * drand48(), phi = 2.0 * M_PI * drand48();
  double phase = 2.0 * M_PI * drand48(), k = m * pow(2.0 * M_PI * f0, 2),
         c = 2.0 * zeta * m * 2.0 * M_PI * f0;
  double w = 2.0 * M_PI * fd, T = 1.0 / fd, ttr = 0.05 * drand48(), fs = 2.0e5 + 8.0e5 * drand48();
  double hr = k - m * w * w, hi = c * w, den = hr * hr + hi * hi, dur = 0.2;
  /* A H e^(i phi) = X e^(i psi) */
  double Xr = A * hr / den, Xi = -A * hi / den, X = hypot(Xr, Xi), psi = atan2(Xi, Xr) + phi;
  char text[2048];

  snprintf(text, sizeof text,
           "scene = { name = \"lin\"; fs = %.17g; duration = %g; };\n"
           "bodies = ( { name = \"osc\"; type = \"mass\"; mass = %.17g; k = %.17g; c = %.17g;\n"
           "  u0 = %.17g; v0 = %.17g; } );\n"
           "forces = ( { name = \"drive\"; at = \"osc\"; type = \"harmonic\"; amplitude = %.17g;\n"
           "  freq = %.17g; phase = %.17g; } );\n"
           "record = { signals = [\"bodies/osc/u\", \"bodies/osc/v\"]; };\n"
           "analysis = { section = { drive = \"forces.drive\"; phase = %.17g; transient_time = "
           "%.17g;\n  points = [\"osc\"]; }; };\n",
           fs, dur, m, k, c, X * sin(psi), X * w * cos(psi), A, fd, phi, phase, ttr);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_analysis_run *a = vb_run_analysis(s.run);
  const double *ru = vb_run_body_u(s.run, 0), *rv = vb_run_body_v(s.run, 0);
  double h = 1.0 / fs, tend = (double)(vb_run_samples(s.run) - 1) * h;
  long expected = (long)floor(tend / T - phase / (2.0 * M_PI)) -
                  (long)ceil(ttr / T - phase / (2.0 * M_PI)) + 1;
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->ns, expected);
  ck_assert(a->ns >= 2);
  /* the scheme's own error at the steps */
  double step_u = 0.0, step_v = 0.0;
  for (long n = 0; n < vb_run_samples(s.run); n++) {
    double t = (double)n * h;
    step_u = fmax(step_u, fabs(ru[n] - X * sin(w * t + psi)) / X);
    step_v = fmax(step_v, fabs(rv[n] - X * w * cos(w * t + psi)) / (X * w));
  }
  double worst_u = 0.0, worst_v = 0.0, interp = 0.0, added = 0.0;
  for (long i = 0; i < a->ns; i++) {
    double t = ((double)(a->k0 + i) + phase / (2.0 * M_PI)) * T, ui, vi;
    long n = (long)ceil(t / h);
    ck_assert_double_eq(a->t[i], t); /* the exact t_k, not a step's time */
    ck_assert(t >= ttr && (i > 0 || t - T < ttr));
    while ((double)n * h < t)
      n++;
    while (n > 1 && (double)(n - 1) * h >= t)
      n--;
    double t0 = (double)(n - 1) * h, t1 = (double)n * h, sk = (t - t0) / h, eu, ev;
    cubic(ru[n - 1], rv[n - 1], ru[n], rv[n], h, sk, &ui, &vi);
    interp = fmax(interp, fmax(fabs(a->u[i] - ui) / X, fabs(a->v[i] - vi) / (X * w)));
    /* the steps' errors carried to t_k */
    cubic(ru[n - 1] - X * sin(w * t0 + psi), rv[n - 1] - X * w * cos(w * t0 + psi),
          ru[n] - X * sin(w * t1 + psi), rv[n] - X * w * cos(w * t1 + psi), h, sk, &eu, &ev);
    added = fmax(added, fmax(fabs(a->u[i] - X * sin(w * t + psi) - eu) / X,
                             fabs(a->v[i] - X * w * cos(w * t + psi) - ev) / (X * w)));
    worst_u = fmax(worst_u, fabs(a->u[i] - X * sin(w * t + psi)) / X);
    worst_v = fmax(worst_v, fabs(a->v[i] - X * w * cos(w * t + psi)) / (X * w));
  }
  fprintf(stderr,
          "section %d: %ld samples of a %.4g Hz drive at %.4g Hz, phase %.3f: against the "
          "interpolant %.1e; against x(t_k): u %.2e, v %.2e (the steps' own: %.2e, %.2e), "
          "added by the sampling %.1e\n",
          _i, a->ns, fd, fs, phase, interp, worst_u, worst_v, step_u, step_v, added);
  ck_assert_msg(interp < 1e-12, "the section is not the interpolant: %.3g", interp);
  ck_assert_msg(added < 1e-9, "the sampling adds %.3g", added);
  ck_assert_msg(worst_u < step_u + 1e-9, "u %.3g beyond the steps' %.3g", worst_u, step_u);
  tu_free(&s);
}
END_TEST

/* ----------------------------------------------------------- impact map */

/* scenes/impact-oscillator.cfg at 25 Hz, on its period-1 orbit (the file's
 * comment: period 1 up to 26.3 Hz): after t = 4 s one impact per forcing
 * period, at one phase of the drive; the table's class says period 1 with
 * one impact per period.  The discrete orbit is period 1 only to the
 * scatter that where each impact falls between two steps gives it (the
 * section moves by up to 5e-3 of its size at 25 Hz, the scene's comment):
 * the spacing of impacts stays within a step (dt = 50 us) of T and the
 * phases within two steps' worth (2 x 2 pi f dt = 1.6e-2 rad; measured
 * 9.4e-3). */
START_TEST(test_impact_map_period_one)
{
  static const char *const repl[] = {
      "sweep = {\n  # 24.0, 24.1, ..., 29.0 Hz\n"
      "  params = ( { path = \"forces.drive.freq\"; linspace = [24.0, 29.0]; n = 51; } );\n};",
      ""};
  tu_sim s = tu_run_file("scenes/impact-oscillator.cfg", repl, 1);
  const vb_analysis_run *a = vb_run_analysis(s.run);
  double T = 1.0 / 25.0, dt = 1.0 / 20000.0, lo = INFINITY, hi = -INFINITY;

  ck_assert_int_eq(s.rc, VB_OK);
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->an->map_contact, 0);
  ck_assert_msg(labs(a->nmap - 100) <= 1, "%ld impacts in 100 periods", a->nmap);
  for (long e = 0; e < a->nmap; e++) {
    const vb_map_entry *m = &a->map[e];
    ck_assert(m->t >= 4.0 && m->contact == 0 && m->grazing == 0 && m->v_in > 0.0);
    ck_assert(m->phase >= 0.0 && m->phase < 2.0 * M_PI);
    ck_assert_msg(fabs(m->since_previous - T) < dt, "impact %ld: %.9g s after the previous", e,
                  m->since_previous);
    /* the phase of the drive: 2 pi t / T (the force's phase is 0) */
    ck_assert(fabs(remainder(m->phase - 2.0 * M_PI * m->t / T, 2.0 * M_PI)) < 1e-9);
    lo = fmin(lo, m->phase);
    hi = fmax(hi, m->phase);
  }
  fprintf(stderr, "impact map at 25 Hz: %ld impacts, phases %.6f .. %.6f rad\n", a->nmap, lo, hi);
  ck_assert_msg(hi - lo < 2.0 * 2.0 * M_PI * 25.0 * dt, "phases spread over %.3g rad", hi - lo);
  ck_assert_int_eq(a->orbit.cls, VB_ORBIT_PERIODIC);
  ck_assert_int_eq(a->orbit.period, 1);
  ck_assert_int_eq(a->impacts_per_period, 1);
  /* the first sample at t >= 4 s, then every period */
  ck_assert(a->t[0] >= 4.0 && a->t[0] - T < 4.0);
  ck_assert(a->ns >= 100 && a->ns <= 101 && a->t[a->ns - 1] <= 8.0 && a->t[a->ns - 1] + T > 8.0);
  tu_free(&s);
}
END_TEST

static int
ascending(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Without `period.tolerance` the tolerance is 12 / N^2, N the median of
 * the steps the impacts after the transient lasted (computed here from
 * the events), within 1e-6 .. 0.1, and 1e-6 without impacts; the 25 Hz
 * orbit is then period 1 at 20 kHz, where 1e-6 called it irregular. */
START_TEST(test_default_tolerance)
{
  static const char *const repl[] = {
      "sweep = {\n  # 24.0, 24.1, ..., 29.0 Hz\n"
      "  params = ( { path = \"forces.drive.freq\"; linspace = [24.0, 29.0]; n = 51; } );\n};",
      "",
      "  period = { tolerance = 3e-2; };\n",
      "",
      "gap = 0.0;",
      "gap = 1.0;"};
  ck_assert_double_eq(vb_analysis_tolerance(0.0), 1e-6);
  ck_assert_double_eq(vb_analysis_tolerance(2.0), 0.1);
  ck_assert_double_eq(vb_analysis_tolerance(1e5), 1e-6);
  ck_assert_double_eq_tol(vb_analysis_tolerance(40.0), 12.0 / 1600.0, 1e-18);
  ck_assert_double_eq(vb_analysis_attractor_tolerance(1e-6), 1e-3);
  ck_assert_double_eq(vb_analysis_attractor_tolerance(0.03), 0.06);
  for (int gap = 0; gap < 2; gap++) {
    tu_sim s = tu_run_file("scenes/impact-oscillator.cfg", repl, gap ? 3 : 2);
    const vb_analysis_run *a = vb_run_analysis(s.run);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    double *steps = malloc(((size_t)r->nevents + 1) * sizeof *steps), want;
    long n = 0;
    ck_assert_int_eq(s.rc, VB_OK);
    ck_assert(a->an->tolerance == 0.0 && a->an->attractor_tolerance == 0.0);
    for (long e = 0; e < r->nevents; e++)
      if (r->events[e].t_on >= 4.0 && isfinite(r->events[e].duration))
        steps[n++] = r->events[e].duration * 20000.0;
    qsort(steps, (size_t)n, sizeof *steps, ascending);
    want = n == 0 ? 1e-6 : 12.0 / pow(n % 2 ? steps[n / 2] : 0.5 * (steps[n / 2 - 1] + steps[n / 2]), 2);
    fprintf(stderr, "default tolerance, gap %d m: %ld impacts, %.6g (orbit %d, period %d)\n", gap,
            n, a->orbit.tolerance, a->orbit.cls, a->orbit.period);
    ck_assert_int_eq(n > 90, gap == 0);
    ck_assert_double_eq_tol(a->orbit.tolerance, want, 1e-15 * want);
    ck_assert_int_eq(a->orbit.cls, VB_ORBIT_PERIODIC);
    ck_assert_int_eq(a->orbit.period, 1);
    free(steps);
    tu_free(&s);
  }
}
END_TEST

static Suite *
analysis_suite(void)
{
  Suite *s = suite_create("analysis");
  TCase *core = tcase_create("core"), *errors = tcase_create("errors");
  tcase_set_timeout(core, 300);
  tcase_add_loop_test(core, test_section_exact, 0, 6);
  tcase_add_test(core, test_parse_good);
  tcase_add_test(core, test_impact_map_period_one);
  tcase_add_test(core, test_default_tolerance);
  tcase_add_loop_test(errors, test_parse_errors, 0, (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(s, core);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(analysis_suite());
}
