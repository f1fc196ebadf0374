/* check_rigid.c - the rigid normal law (Signorini with Newton's impact
 * law) under the Moreau-Jean scheme (solvers/moreau_jean.c, doc/rigid.md;
 * issue 30 item 2), against closed forms written here: a ball dropped on a
 * floor (impact times, rebound speeds e^k v0, apex heights, the order of
 * the impact times), e = 1 keeping the energy, e = 0 coming to rest
 * without chatter, a ball on a shaking floor (the impact sequence found
 * by bisection on the exact trajectories), simultaneous impacts of a chain
 * (the LCP's closed form), a mass on a modal body (the impulse through the
 * shapes), the energy balance, and the loader's refusals. */
#include "testutil.h"

static const double G = 9.81;

/* A ball of mass m dropped from height H (u0) onto a floor at 0 with
 * restitution e at rate fs for T seconds (floor first: the compression is
 * u_floor - u_ball). */
static tu_sim
drop(double m, double H, double e, double fs, double T, const char *floor_extra)
{
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { name = \"drop\"; fs = %.17g; duration = %.17g; gravity = %.17g; };\n"
           "bodies = ( { name = \"floor\"; type = \"wall\"; position = 0.0; %s },\n"
           "           { name = \"ball\"; type = \"mass\"; mass = %.17g; u0 = %.17g; } );\n"
           "contacts = ( { name = \"hit\"; between = [\"floor\", \"ball\"]; law = \"rigid\";\n"
           "               e = %.17g; scheme = \"moreau-jean\"; } );\n",
           fs, T, G, floor_extra, m, H, e);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  return s;
}

/* The closed form of the bouncing ball: impact k (0-based) at
 * t_k = t_0 + sum_{j<k} 2 e^(j+1) v0 / g, arriving at e^k v0. */
static double
impact_time(double H, double e, int k)
{
  double v0 = sqrt(2.0 * G * H), t = sqrt(2.0 * H / G);
  for (int j = 0; j < k; j++)
    t += 2.0 * pow(e, j + 1) * v0 / G;
  return t;
}

/* The largest balance error |E + D - X - E0| over the run, J. */
/* The bound the balance is held to: 64 ulps of the scale E (J) a step over
 * N steps.  The two-level family's round-off with gravity: a free mass's
 * velocity 2 (q1 - q) / dt - v carries the rounding of its position over
 * dt, the same each step while u stays in one binade, so the error grows
 * linearly (the two-point scheme with a power law shows the same 9.6e-13 J
 * on the 20 kHz drop below: 28 ulps of 0.0098 J a step). */
static double
round_off(double E, long N)
{
  return 64.0 * 0x1p-52 * E * (double)N;
}

static double
balance(const tu_sim *s)
{
  const double *e = vb_run_energy(s->run, VB_ENERGY_TOTAL);
  const double *d = vb_run_energy(s->run, VB_ENERGY_DISSIPATED);
  const double *x = vb_run_energy(s->run, VB_ENERGY_EXTERNAL);
  double worst = 0.0;
  for (long n = 0; n < vb_run_samples(s->run); n++)
    worst = fmax(worst, fabs(e[n] + d[n] - x[n] - e[0]));
  return worst;
}

/* Bouncing ball, e = 0.8: each impact's time, entry and exit speeds
 * against the closed form; the first impact is exact (free flight is
 * exact under the trapezoidal rule and the event extrapolates it), the
 * later ones first order.  The balance closes to round-off. */
START_TEST(test_bouncing_ball)
{
  const double m = 0.0137, H = 0.0731, e = 0.8, v0 = sqrt(2.0 * G * H);
  const double fs = 20000.0;
  tu_sim s = drop(m, H, e, fs, 0.9, "");
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  ck_assert_int_ge(r->nevents, 8);
  double worst_t = 0.0, worst_v = 0.0;
  for (int k = 0; k < 8; k++) {
    const vb_event *ev = &r->events[k];
    double tk = impact_time(H, e, k), vk = pow(e, k) * v0;
    fprintf(stderr, "impact %d: t_on %.9f (closed form %.9f), v_in %.6f (%.6f), v_out %.6f "
            "(%.6f), duration %g, samples %d\n",
            k, ev->t_on, tk, ev->v_in, vk, ev->v_out, -e * vk, ev->duration, ev->samples);
    if (k == 0) {
      /* free flight is exact but for its round-off (round_off above) */
      ck_assert_double_eq_tol(ev->t_on, tk, 1e-10);
      ck_assert_double_eq_tol(ev->v_in, vk, 1e-9);
    }
    worst_t = fmax(worst_t, fabs(ev->t_on - tk));
    worst_v = fmax(worst_v, fabs(ev->v_in - vk));
    /* an impact is one step's impulse: instantaneous, with Newton's
     * prediction */
    ck_assert_int_eq(ev->samples, 1);
    ck_assert_double_eq(ev->duration, 0.0);
    ck_assert_double_eq(ev->duration_pred, 0.0);
    ck_assert_double_eq(ev->v_out_pred, -e * ev->v_in);
    /* the exit rate: -e v_in up to the step's gravity, g / fs */
    /* (the impulse's step starts up to a step after the crossing and
     * ends up to two after it: (2 + e) g dt at most) */
    ck_assert_msg(fabs(ev->v_out + e * ev->v_in) <= 1.01 * (2 + e) * G / fs, "v_out %g, -e v_in %g",
                  ev->v_out, -e * ev->v_in);
    /* the loss booked: (1 - e^2) of the relative kinetic energy, to the
     * step's gravity */
    double loss = ev->energy_before - ev->energy_after;
    ck_assert_msg(fabs(loss - 0.5 * m * (1 - e * e) * ev->v_in * ev->v_in) <=
                      2.0 * m * ev->v_in * G / fs, "impact %d: loss %g", k, loss);
  }
  /* first order: within a few steps' worth of the flight */
  ck_assert_msg(worst_t < 8.0 / fs, "impact times off by %g s", worst_t);
  ck_assert_msg(worst_v < 8.0 * G / fs, "entry speeds off by %g m/s", worst_v);
  /* apex heights: the highest point after impact k is (e^(k+1) v0)^2 / 2g */
  const double *u = vb_run_body_u(s.run, 1);
  for (int k = 0; k < 5; k++) {
    long a = lround(r->events[k].t_on * fs) + 1, b = lround(r->events[k + 1].t_on * fs);
    double top = -INFINITY;
    for (long n = a; n <= b; n++)
      top = fmax(top, u[n]);
    double want = pow(e, 2 * (k + 1)) * H;
    ck_assert_msg(fabs(top - want) < 4.0 * v0 / fs, "apex %d: %g against %g", k, top, want);
  }
  double bal = balance(&s);
  fprintf(stderr, "bouncing ball at %g Hz: impact times within %.3g s, entry speeds within "
          "%.3g m/s, balance %.3g J of %.3g J\n", fs, worst_t, worst_v, bal, 0.5 * m * v0 * v0);
  ck_assert_msg(bal < round_off(0.5 * m * v0 * v0, vb_run_samples(s.run)), "balance %g", bal);
  tu_free(&s);
}
END_TEST

/* The impact times converge at order 1 (Moreau-Jean places an impact at
 * a step's end): the largest error over the first six impacts at 2.5, 5,
 * 10 and 20 kHz. */
START_TEST(test_order_impacts)
{
  const double m = 0.0137, H = 0.0731, e = 0.8;
  double err[4], fs0 = 2500.0;
  for (int j = 0; j < 4; j++) {
    double fs = fs0 * pow(2.0, j);
    tu_sim s = drop(m, H, e, fs, 0.8, "");
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    ck_assert_int_ge(r->nevents, 6);
    err[j] = 0.0;
    for (int k = 0; k < 6; k++)
      err[j] = fmax(err[j], fabs(r->events[k].t_on - impact_time(H, e, k)));
    tu_free(&s);
  }
  /* the least-squares slope of log err against log h */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int j = 0; j < 4; j++) {
    double x = -j * log(2.0), y = log(err[j]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  double order = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
  fprintf(stderr, "impact times: errors %.3g %.3g %.3g %.3g s at 2.5-20 kHz, order %.3f\n",
          err[0], err[1], err[2], err[3], order);
  ck_assert_msg(fabs(order - 1.0) < 0.25, "observed order %g", order);
}
END_TEST

/* e = 1 keeps the energy: nothing dissipated beyond round-off, E - X (the
 * kinetic energy less gravity's work) constant, every bounce back to H to
 * the step's accuracy. */
START_TEST(test_elastic)
{
  const double m = 0.0137, H = 0.0731, fs = 10000.0, v0 = sqrt(2.0 * G * H);
  tu_sim s = drop(m, H, 1.0, fs, 2.0, "");
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  long N = vb_run_samples(s.run);
  const double *d = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  double dmax = 0.0;
  for (long n = 0; n < N; n++)
    dmax = fmax(dmax, fabs(d[n]));
  double E = 0.5 * m * v0 * v0, bal = balance(&s);
  fprintf(stderr, "e = 1: %ld impacts in 2 s, |dissipated| <= %.3g J, balance %.3g J of %.3g J\n",
          r->nevents, dmax, bal, E);
  ck_assert_int_ge(r->nevents, 8);
  ck_assert_msg(dmax < round_off(E, N), "dissipated %g", dmax);
  ck_assert_msg(bal < round_off(E, N), "balance %g", bal);
  const double *u = vb_run_body_u(s.run, 1);
  double top = -INFINITY;
  for (long n = lround(r->events[r->nevents - 2].t_on * fs); n < N; n++)
    top = fmax(top, u[n]);
  ck_assert_msg(fabs(top - H) < 2.0 * v0 / fs, "last apex %g of %g", top, H);
  for (long k = 0; k < r->nevents; k++)
    ck_assert_msg(fabs(fabs(r->events[k].v_in) - v0) < 2.0 * G / fs, "impact %ld at %g", k,
                  r->events[k].v_in);
  tu_free(&s);
}
END_TEST

/* e = 0: the ball stops on the floor at the first impact and rests there:
 * one event open to the end, its velocity 0 and the floor's force m g at
 * every later sample (no chatter), the penetration never beyond dt v0 (a
 * free step may end up to dt v0 / 2 past the floor, the impulse's step
 * moves on by half its rate). */
START_TEST(test_plastic_rest)
{
  const double m = 0.0137, H = 0.0731, fs = 10000.0, v0 = sqrt(2.0 * G * H);
  tu_sim s = drop(m, H, 0.0, fs, 1.0, "");
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  long N = vb_run_samples(s.run);
  ck_assert_int_eq(r->nevents, 1);
  ck_assert_int_eq(r->engaged_at_end, 1);
  const vb_event *ev = &r->events[0];
  ck_assert_double_eq_tol(ev->t_on, impact_time(H, 0.0, 0), 1e-10);
  const double *u = vb_run_body_u(s.run, 1), *v = vb_run_body_v(s.run, 1);
  double worst_v = 0.0, worst_f = 0.0, deepest = 0.0;
  long n0 = lround(ev->t_on * fs) + 2;
  for (long n = 0; n < N; n++)
    deepest = fmax(deepest, r->compression[n]);
  for (long n = n0; n < N; n++) {
    worst_v = fmax(worst_v, fabs(v[n]));
    worst_f = fmax(worst_f, fabs(r->force[n] - m * G));
  }
  fprintf(stderr, "e = 0: at rest from %.6f s, |v| <= %.3g m/s, force m g within %.3g N, "
          "deepest %.3g m (dt v0 = %.3g m), u %.3g m\n", ev->t_on, worst_v, worst_f, deepest,
          v0 / fs, u[N - 1]);
  /* the velocity at rest: the impulse's round-off (1.4e-14 m/s, 63 ulps of
   * v0, measured), alternating in sign at every step (the trapezoidal
   * rule's parasitic mode, which the modes keep while the contact's
   * history holds its rate; the position does not move at all) */
  ck_assert_msg(worst_v < 128.0 * 0x1p-52 * v0, "velocity at rest %g", worst_v);
  for (long n = n0 + 1; n < N; n++)
    ck_assert_msg(u[n] == u[n0], "the ball moved at rest: %g at %ld", u[n] - u[n0], n);
  /* the force, an impulse over dt: m g up to that velocity's round-off
   * over dt (3.8e-12 N of 0.134 N measured) */
  ck_assert_msg(worst_f < 2.0 * m * 128.0 * 0x1p-52 * v0 * fs, "force at rest off by %g", worst_f);
  ck_assert_msg(deepest <= v0 / fs, "penetration %g", deepest);
  /* the loss: the whole impact energy, booked at the impact; the rest
   * dissipates nothing */
  const double *d = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  ck_assert_msg(fabs(d[N - 1] - d[n0]) < 1e-15, "dissipation at rest %g", d[N - 1] - d[n0]);
  ck_assert_msg(balance(&s) < round_off(0.5 * m * v0 * v0, N), "balance %g", balance(&s));
  tu_free(&s);
}
END_TEST

/* The floor as a shaker, A sin(2 pi f t + phase): the exact impact
 * sequence by bisection on the ball's parabola against the floor's sine,
 * Newton's law on the relative velocity at each impact. */
typedef struct {
  double A, w, ph, e;
} shaker;

static double
floor_u(const shaker *k, double t)
{
  return k->A * sin(k->w * t + k->ph);
}
static double
floor_v(const shaker *k, double t)
{
  return k->A * k->w * cos(k->w * t + k->ph);
}

/* The first time after t0 (+ a hair) where the ball (u0, v0 at t0) meets
 * the floor, by a scan of 1e-6 s and bisection to 1e-15 s. */
static double
next_impact(const shaker *k, double t0, double u0, double v0)
{
  double dt = 1e-6, t = t0 + 1e-9;
  double gap = u0 + v0 * (t - t0) - 0.5 * G * (t - t0) * (t - t0) - floor_u(k, t);
  for (;;) {
    double t1 = t + dt;
    double g1 = u0 + v0 * (t1 - t0) - 0.5 * G * (t1 - t0) * (t1 - t0) - floor_u(k, t1);
    if (g1 < 0.0 && gap >= 0.0) {
      double lo = t, hi = t1;
      while (hi - lo > 1e-15) {
        double mid = 0.5 * (lo + hi);
        double gm = u0 + v0 * (mid - t0) - 0.5 * G * (mid - t0) * (mid - t0) - floor_u(k, mid);
        if (gm >= 0.0)
          lo = mid;
        else
          hi = mid;
      }
      return 0.5 * (lo + hi);
    }
    t = t1;
    gap = g1;
  }
}

START_TEST(test_shaker)
{
  const shaker k = {.A = 1.3e-3, .w = 2.0 * M_PI * 17.3, .ph = 0.4, .e = 0.7};
  const double m = 0.0213, H = 0.0187;
  /* the closed form: five impacts */
  double t_ref[5], vin_ref[5], t = 0.0, u = H, v = 0.0;
  for (int i = 0; i < 5; i++) {
    double ti = next_impact(&k, t, u, v);
    double vb = v - G * (ti - t), uw = floor_u(&k, ti), vw = floor_v(&k, ti);
    t_ref[i] = ti;
    vin_ref[i] = vw - vb; /* compression rate u_floor' - u_ball' */
    v = vw + k.e * (vw - vb);
    u = uw;
    t = ti;
  }
  char extra[256];
  snprintf(extra, sizeof extra,
           "drive = { type = \"sine\"; amplitude = %.17g; freq = 17.3; phase = 0.4; };", k.A);
  /* the first three impacts at 20, 40 and 80 kHz (the later ones amplify
   * the error: the flight after an impact on a moving floor depends on its
   * phase) */
  double err[3];
  for (int j = 0; j < 3; j++) {
    double fs = 20000.0 * (1 << j);
    tu_sim s = drop(m, H, k.e, fs, t_ref[4] + 0.01, extra);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    ck_assert_int_ge(r->nevents, 5);
    err[j] = 0.0;
    for (int i = 0; i < 3; i++) {
      err[j] = fmax(err[j], fabs(r->events[i].t_on - t_ref[i]));
      if (j == 2)
        fprintf(stderr, "shaker impact %d: t_on %.9f (exact %.9f), v_in %.6f (%.6f)\n", i,
                r->events[i].t_on, t_ref[i], r->events[i].v_in, vin_ref[i]);
      ck_assert_msg(fabs(r->events[i].v_in - vin_ref[i]) < 0.02 * fabs(vin_ref[i]),
                    "impact %d: v_in %g against %g", i, r->events[i].v_in, vin_ref[i]);
    }
    /* the floor's work is external work: the balance still closes */
    const double *x = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
    double bal = balance(&s), E = 0.5 * m * 2.0 * G * H;
    fprintf(stderr, "shaker at %g Hz: first three impact times within %.3g s, balance %.3g J "
            "(external %.3g J)\n", fs, err[j], bal, x[vb_run_samples(s.run) - 1]);
    ck_assert_msg(bal < round_off(E, vb_run_samples(s.run)), "balance %g", bal);
    tu_free(&s);
  }
  /* first order: each within two steps (the error follows each impact's
   * phase within its step, so it does not halve regularly: 8.8e-5, 3.0e-5,
   * 2.4e-6 s measured, 1.8, 1.2 and 0.19 steps) */
  for (int j = 0; j < 3; j++)
    ck_assert_msg(err[j] < 2.0 / (20000.0 * (1 << j)), "impact times off by %g s at %d kHz",
                  err[j], 20 << j);
}
END_TEST

/* A chain: a mass m1 at v strikes m2 and m3 at rest, touching (gap 0).
 * Moreau-Jean solves both contacts at once (the LCP): with both active,
 * U12+ = -e U12-, U23+ = -e 0, so m2 and m3 leave together as one body,
 * V = (1 + e) m1 v / M, v1 = v - (1 + e)(m2 + m3) v / M (M the sum), the
 * simultaneous impact of a rigid chain, not the sequential one of a
 * Newton's cradle (which would give m1 0 and m3 v for equal masses and
 * e = 1). */
START_TEST(test_chain)
{
  const double m1 = 0.0213, m2 = 0.0171, m3 = 0.0297, v = 0.731, e = 0.62;
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { name = \"chain\"; fs = 10000.0; duration = 0.05; };\n"
           "bodies = ( { name = \"b1\"; type = \"mass\"; mass = %.17g; u0 = -0.00437; v0 = %.17g; },\n"
           "           { name = \"b2\"; type = \"mass\"; mass = %.17g; },\n"
           "           { name = \"b3\"; type = \"mass\"; mass = %.17g; } );\n"
           "contacts = ( { name = \"c12\"; between = [\"b1\", \"b2\"]; law = \"rigid\"; e = %.17g;\n"
           "               scheme = \"moreau-jean\"; },\n"
           "             { name = \"c23\"; between = [\"b2\", \"b3\"]; law = \"rigid\"; e = %.17g;\n"
           "               scheme = \"moreau-jean\"; } );\n",
           m1, v, m2, m3, e, e);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  long N = vb_run_samples(s.run);
  double M = m1 + m2 + m3, V = (1 + e) * m1 * v / M, v1 = v - (1 + e) * (m2 + m3) * v / M;
  /* right after the impact (the step of sample 44 holds it: the gap of
   * 4.37 mm closes at 0.731 m/s at 5.98 ms) and at the end: the rates are
   * 2 (q1 - q) / dt - v, the rounding of the positions over dt */
  long after = lround(0.00437 / v * 10000.0) + 2;
  for (long n = after; n < N; n += N - 1 - after) {
    double got[3];
    for (int b = 0; b < 3; b++)
      got[b] = vb_run_body_v(s.run, b)[n];
    fprintf(stderr, "chain at %ld: v1 %.15f (%.15f), v2 %.15f, v3 %.15f (%.15f)\n", n, got[0], v1,
            got[1], got[2], V);
    ck_assert_double_eq_tol(got[0], v1, 1e-12);
    ck_assert_double_eq_tol(got[1], V, 1e-12);
    ck_assert_double_eq_tol(got[2], V, 1e-12);
  }
  /* the loss: the relative kinetic energy's (1 - e^2) share, the chain
   * moving as one body of mass m2 + m3 */
  double mu = m1 * (m2 + m3) / M, loss = 0.5 * mu * (1 - e * e) * v * v;
  const double *d = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  ck_assert_double_eq_tol(d[N - 1], loss, 1e-15);
  ck_assert_msg(balance(&s) < round_off(0.5 * m1 * v * v, N), "balance %g", balance(&s));
  /* one impact each, at the same step */
  const vb_contact_result *r12 = vb_run_contact(s.run, 0), *r23 = vb_run_contact(s.run, 1);
  ck_assert_int_eq(r12->nevents, 1);
  ck_assert_int_eq(r23->nevents, 1);
  ck_assert_double_eq_tol(r12->events[0].t_on, 0.00437 / v, 1e-12);
  tu_free(&s);
}
END_TEST

/* A mass hits a modal body: the impulse enters every mode through its
 * shape.  A 0 Hz mode of modal mass Mq and shape phi at the point is a
 * free mass Mq / phi^2 there: the two-body closed form to round-off.  A
 * body with three modes (one of 0 Hz, two with frequencies) keeps its
 * energy at e = 1 and closes the balance at e = 0.43 to round-off. */
START_TEST(test_modal)
{
  const double m = 0.0213, v = 0.517, Mq = 0.0379, phi = 0.83, e = 0.43;
  char text[2048];
  snprintf(text, sizeof text,
           "scene = { name = \"modal\"; fs = 10000.0; duration = 0.02; };\n"
           "bodies = ( { name = \"ball\"; type = \"mass\"; mass = %.17g; u0 = -0.00213; v0 = %.17g; },\n"
           "           { name = \"bar\"; type = \"modal\"; freq = [0.0]; mass = [%.17g];\n"
           "             points = ( { name = \"p\"; shape = [%.17g]; } ); } );\n"
           "contacts = ( { name = \"hit\"; between = [\"ball\", \"bar.p\"]; law = \"rigid\";\n"
           "               e = %.17g; scheme = \"moreau-jean\"; } );\n",
           m, v, Mq, phi, e);
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  long N = vb_run_samples(s.run);
  double mp = Mq / (phi * phi), P = (1 + e) * v * m * mp / (m + mp);
  double vb = vb_run_body_v(s.run, 0)[N - 1], vp = vb_run_point_v(s.run, 1, 0)[N - 1];
  fprintf(stderr, "modal 0 Hz: ball %.15f (%.15f), point %.15f (%.15f)\n", vb, v - P / m, vp,
          P / mp);
  ck_assert_double_eq_tol(vb, v - P / m, 1e-12);
  ck_assert_double_eq_tol(vp, P / mp, 1e-12);
  tu_free(&s);
  for (int j = 0; j < 2; j++) {
    double ej = j == 0 ? 1.0 : e;
    snprintf(text, sizeof text,
             "scene = { name = \"plate\"; fs = 20000.0; duration = 0.5; gravity = 9.81; };\n"
             "bodies = ( { name = \"ball\"; type = \"mass\"; mass = %.17g; u0 = 0.0123; },\n"
             "           { name = \"plate\"; type = \"modal\"; freq = [0.0, 71.3, 233.7];\n"
             "             mass = [0.311, 0.187, 0.203]; gravity = [0.0, 0.0, 0.0];\n"
             "             points = ( { name = \"p\"; shape = [1.0, 0.71, -0.47]; } ); } );\n"
             "contacts = ( { name = \"hit\"; between = [\"plate.p\", \"ball\"]; law = \"rigid\";\n"
             "               e = %.17g; scheme = \"moreau-jean\"; } );\n",
             m, ej);
    s = tu_run_text(text);
    ck_assert_int_eq(s.rc, VB_OK);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    N = vb_run_samples(s.run);
    const double *d = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
    const double *x = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
    double bal = balance(&s);
    fprintf(stderr, "ball on a 3-mode plate, e = %g: %ld impacts, dissipated %.6g J, gravity's "
            "work %.6g J, balance %.3g J\n", ej, r->nevents, d[N - 1], x[N - 1], bal);
    ck_assert_int_ge(r->nevents, 3);
    ck_assert_msg(bal < round_off(x[N - 1], N), "balance %g", bal);
    if (j == 0)
      ck_assert_msg(fabs(d[N - 1]) < round_off(x[N - 1], N), "e = 1 dissipated %g", d[N - 1]);
    else
      ck_assert(d[N - 1] > 0.1 * x[N - 1]);
    tu_free(&s);
  }
}
END_TEST

/* Recorded signal `name` of instance inst (a body's point 0 for
 * VB_SIGNAL_POINT), as tests/run/check_friction.c finds it. */
static const double *
signal_of(const tu_sim *s, vb_signal_object object, const char *name, int inst)
{
  int nt, p;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++) {
    if (t[r].object != object || strcmp(t[r].name, name) != 0)
      continue;
    if (object == VB_SIGNAL_POINT) {
      for (int i = 0, n = vb_signal_count(&t[r], s->scene); i < n; i++)
        if (vb_signal_body(&t[r], s->scene, i, &p) == inst && p == 0)
          return vb_signal_data(s->run, &t[r], i);
      return NULL;
    }
    return vb_signal_data(s->run, &t[r], inst);
  }
  return NULL;
}

/* Friction on a rigid contact: Coulomb in the impulses' cone (Moreau's
 * impulse formulation: the step's tangential impulse within mu P).  A
 * 1.3 kg block dropped from 50 mm (e = 0) onto a belt running at 0.5 m/s
 * along w: the landing's impulse P = m v_in gives the block mu m v_in of
 * tangential impulse (with mu v_in < v, so it still slips), then it
 * slides at mu g until it rides the belt, at t_land + (v - mu v_in) / (mu g);
 * friction takes the relative kinetic energy m v^2 / 2 in all.  With mu =
 * 0.6 the landing's cone holds the whole change: it rides the belt from
 * the landing step on.  Against the same drop through a stiff power law
 * (two-point), the balance's round-off (the fall's, the family's). */
START_TEST(test_friction)
{
  const double m = 1.3, H = 0.05, vbelt = 0.5, fs = 20000.0, v_in = sqrt(2.0 * G * H);
  for (int j = 0; j < 2; j++) {
    double mu = j == 0 ? 0.2 : 0.6, bal[2];
    for (int penalty = 1; penalty >= 0; penalty--) {
      char text[2048];
      snprintf(text, sizeof text,
               "scene = { name = \"belt\"; fs = %.17g; duration = 0.4; gravity = 9.81; };\n"
               "bodies = ( { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\";\n"
               "               v = %.17g; }; },\n"
               "           { name = \"block\"; type = \"mass\"; mass = %.17g; u0 = %.17g; w0 = 0.0; } );\n"
               "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; %s\n"
               "               friction = { law = \"coulomb\"; mu_s = %.17g; }; } );\n",
               fs, vbelt, m, H,
               penalty ? "law = \"power\"; k = 1.0e8; alpha = 1.0; scheme = \"two-point\";"
                       : "law = \"rigid\"; e = 0.0; scheme = \"moreau-jean\";",
               mu);
      tu_sim s = tu_run_text(text);
      ck_assert_int_eq(s.rc, VB_OK);
      bal[penalty] = balance(&s);
      if (penalty) {
        tu_free(&s);
        continue;
      }
      long N = vb_run_samples(s.run);
      const double *vw = signal_of(&s, VB_SIGNAL_POINT, "vw", 1);
      const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", 0);
      const double *stick = signal_of(&s, VB_SIGNAL_CONTACT, "stick", 0);
      const double *work = signal_of(&s, VB_SIGNAL_CONTACT, "friction_work", 0);
      const double *f = vb_run_contact(s.run, 0)->force;
      ck_assert(vw && ft && stick && work && f);
      long land = -1, k1 = -1;
      for (long n = 1; n < N; n++) {
        if (land < 0 && f[n] > 0.0)
          land = n;
        if (k1 < 0 && stick[n] == 1.0)
          k1 = n;
        /* the cone, and friction never gives work */
        ck_assert_msg(fabs(ft[n]) <= mu * f[n] * (1 + 1e-12), "ft %g against mu N %g at %ld",
                      ft[n], mu * f[n], n);
        ck_assert_msg(work[n] >= work[n - 1], "friction work falls at %ld", n);
      }
      ck_assert(land > 0 && k1 >= land);
      double t_land = vb_run_contact(s.run, 0)->events[0].t_on;
      double t_ride = mu * v_in < vbelt ? t_land + (vbelt - mu * v_in) / (mu * G) : t_land;
      fprintf(stderr, "rigid block on a belt, mu %g: lands at %.6f s, vw %.6f m/s after (mu v_in "
              "%.6f), rides from %.6f s (closed form %.6f), friction work %.15f J (m v^2 / 2 "
              "%.15f), balance %.3g J (two-point's %.3g J)\n",
              mu, t_land, vw[land], fmin(mu * v_in, vbelt), k1 / fs, t_ride, work[N - 1],
              0.5 * m * vbelt * vbelt, bal[0], bal[1]);
      if (mu * v_in < vbelt) {
        /* the landing's impulse: mu (m v_in + the step's gravity) */
        ck_assert_msg(fabs(vw[land] - mu * v_in) < 2.0 * mu * G / fs, "vw %g after the landing",
                      vw[land]);
        ck_assert_msg(fabs(k1 / fs - t_ride) < 2.0 / fs, "rides from %g s", k1 / fs);
      } else {
        ck_assert_double_eq(vw[land], vbelt);
        ck_assert_int_eq(k1, land);
      }
      for (long n = k1; n < N; n++)
        ck_assert_msg(vw[n] == vbelt && stick[n] == 1.0, "vw %g at %ld", vw[n], n);
      ck_assert_double_eq_tol(work[N - 1], 0.5 * m * vbelt * vbelt, 1e-13);
      ck_assert_msg(bal[0] <= 1.1 * bal[1] + 1e-15, "balance %g, two-point's %g", bal[0], bal[1]);
      tu_free(&s);
    }
  }
}
END_TEST

/* Bad input, each refused with file, line, contact and the valid
 * choices. */
START_TEST(test_refusals)
{
  static const struct {
    const char *contact, *msg;
  } cases[] = {
      {"law = \"rigid\"; e = 1.2; scheme = \"moreau-jean\";",
       "test.cfg:4: contact 'hit': 'e' must be >= 0 and <= 1 (got 1.2)"},
      {"law = \"rigid\"; e = -0.1; scheme = \"moreau-jean\";",
       "test.cfg:4: contact 'hit': 'e' must be >= 0 and <= 1 (got -0.1)"},
      {"law = \"rigid\"; scheme = \"moreau-jean\";",
       "test.cfg:4: contact 'hit': missing required key 'e'"},
      {"law = \"rigid\"; e = 0.5; scheme = \"two-point\";",
       "test.cfg:4: contact 'hit': scheme 'two-point' cannot step law 'rigid': a rigid contact "
       "is an impulse, not a force (valid: moreau-jean)"},
      {"law = \"rigid\"; e = 0.5; scheme = \"rk4\";",
       "test.cfg:4: contact 'hit': scheme 'rk4' cannot step law 'rigid'"},
      {"law = \"rigid\"; e = 0.5; k = 1e7; scheme = \"moreau-jean\";",
       "test.cfg:4: contact 'hit': 'k' applies only to laws power, hunt-crossley"},
      {"law = \"power\"; k = 1e7; alpha = 1.0; scheme = \"moreau-jean\";",
       "test.cfg:4: contact 'hit': scheme 'moreau-jean' steps rigid contacts only, not law "
       "'power' (valid: law 'rigid', or another scheme for law 'power')"},
      {"law = \"rigid\"; e = 0.5; scheme = \"moreau-jean\"; friction = { law = \"coulomb\"; "
       "mu_s = 0.5; };",
       "test.cfg:4: contact 'hit': friction needs"},
      {"law = \"rigid\"; e = 0.5; scheme = \"moreau-jean\"; friction = { law = "
       "\"elasto-plastic\"; mu_s = 0.62; mu_k = 0.31; v_s = 0.011; sigma0 = 4.1e4; sigma1 = 1.3; "
       "sigma2 = 0.02; z_ba = 0.55; };",
       "test.cfg:4: contact 'hit' friction: friction law 'elasto-plastic' has a state of its own, "
       "which a rigid contact's impulses cannot step (valid: coulomb, stribeck, bow or "
       "exponential on law 'rigid')"},
      {"law = \"rigid\"; e = 0.5; scheme = \"moreau-jean\"; corrections = [\"vout\"];",
       "test.cfg:4: contact 'hit': corrections need an impact law with analytic x_max"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024], err[1024] = "";
    snprintf(text, sizeof text,
             "scene = { name = \"bad\"; fs = 1000.0; duration = 0.01; };\n"
             "bodies = ( { name = \"floor\"; type = \"wall\"; },\n"
             "           { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.01; %s } );\n"
             "contacts = ( { name = \"hit\"; between = [\"floor\", \"ball\"]; %s } );\n",
             strstr(cases[i].contact, "friction") && !strstr(cases[i].msg, "needs") ? "w0 = 0.0;"
                                                                                     : "",
             cases[i].contact);
    vb_scene *sc = NULL;
    ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
    ck_assert_msg(strncmp(err, cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: %s", i, err);
    vb_scene_free(sc);
  }
  /* a rigid and a force contact on one body: one family per island */
  char text[1024], err[1024] = "";
  snprintf(text, sizeof text,
           "scene = { name = \"mix\"; fs = 1000.0; duration = 0.01; };\n"
           "bodies = ( { name = \"floor\"; type = \"wall\"; },\n"
           "           { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.01; } );\n"
           "contacts = ( { name = \"a\"; between = [\"floor\", \"ball\"]; law = \"rigid\"; e = 0.5;\n"
           "               scheme = \"moreau-jean\"; },\n"
           "             { name = \"b\"; between = [\"floor\", \"ball\"]; law = \"power\"; k = 1e6;\n"
           "               alpha = 1.0; scheme = \"two-point\"; } );\n");
  vb_scene *sc = NULL;
  ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "one family per island") && strstr(err, "moreau-jean"), "%s", err);
  vb_scene_free(sc);
}
END_TEST

static Suite *
rigid_suite(void)
{
  Suite *s = suite_create("rigid");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_test(core, test_bouncing_ball);
  tcase_add_test(core, test_order_impacts);
  tcase_add_test(core, test_elastic);
  tcase_add_test(core, test_plastic_rest);
  tcase_add_test(core, test_shaker);
  tcase_add_test(core, test_chain);
  tcase_add_test(core, test_modal);
  tcase_add_test(core, test_friction);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_refusals);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(rigid_suite());
}
