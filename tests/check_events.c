/* check_events.c - the impact table (lib/run/run.c events): extrapolated
 * crossings with driven walls (issue 10 item 7). */
#include <math.h>
#include <string.h>
#include "testutil.h"
#include "scheme.h"

/* A 9.7 g ball bouncing on a table shaken at 23.7 Hz (peak acceleration
 * 2.3 g), through a soft Hunt-Crossley contact that lasts about 60
 * samples at 44.1 kHz. */
static tu_sim
table(const char *scheme, double fs)
{
  char t[1024];
  snprintf(t, sizeof t,
           "scene = { name = \"table\"; fs = %.17g; duration = 0.12; gravity = 9.81; };\n"
           "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.0097; u0 = 1.37e-3; v0 = 0.0; },\n"
           "  { name = \"table\"; type = \"wall\"; drive = { type = \"sine\"; amplitude = 1.0e-3;\n"
           "    freq = 23.7; phase = 0.71; }; } );\n"
           "contacts = ( { name = \"bounce\"; between = [\"table\", \"ball\"]; law = \"hunt-crossley\";\n"
           "  k = 3.1e4; alpha = 1.21; mu = 0.37; scheme = \"%s\"; } );\n",
           fs, scheme);
  tu_sim s = tu_run_text(t);
  ck_assert_msg(s.rc == VB_OK, "%s at %g Hz: %s", scheme, fs, vb_run_status(s.run));
  return s;
}

/* The first impact's crossing, exactly: the ball falls freely from u0 and
 * the table moves by A sin(w t + phase); Newton on their difference from
 * the event's own t_on. */
static void
first_crossing(double t, double *t_on, double *v_in)
{
  const double A = 1.0e-3, w = 2.0 * M_PI * 23.7, ph = 0.71, g = 9.81, u0 = 1.37e-3;
  for (int it = 0; it < 50; it++) {
    double x = A * sin(w * t + ph) - (u0 - 0.5 * g * t * t);
    double dx = A * w * cos(w * t + ph) + g * t;
    t -= x / dx;
  }
  *t_on = t;
  *v_in = A * w * cos(w * t + ph) + g * t;
}

/* v_in and v_out of the first impacts on a driven table converge at the
 * order of the scheme's trajectory: the crossing is extrapolated along the
 * ball's free flight and the table's exact motion.  When the table's own
 * acceleration was left out every scheme gave order 1 (about 1e-3 of v_in
 * at 44.1 kHz).  The reference is the same scheme at 16 x 44.1 kHz; the
 * first impact, after exact free flight, is compared with the exact
 * crossing.  (quadratic and rk4 show no clean order through the kink of
 * the law at the onset: only their first crossing is checked.) */
START_TEST(test_driven_table_order)
{
  static const struct { const char *scheme; double order; } cases[] = {
    { "two-point", 2.0 }, { "am1", 2.0 }, { "three-point", 2.0 }, { "heun", 2.0 },
    { "verlet", 1.0 }, { "quadratic", 0.0 }, { "rk4", 0.0 },
  };
  const char *scheme = cases[_i].scheme;
  const double fs[4] = { 22050.0, 44100.0, 88200.0, 176400.0 };
  tu_sim ref = table(scheme, 16 * 44100.0);
  const vb_contact_result *rr = vb_run_contact(ref.run, 0);
  ck_assert_int_ge(rr->nevents, 3);
  double err[4][3];
  for (int k = 0; k < 4; k++) {
    tu_sim s = table(scheme, fs[k]);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    ck_assert_int_ge(r->nevents, 2);
    /* v_out of the first impact, v_in and v_out of the second */
    err[k][0] = fabs(r->events[0].v_out - rr->events[0].v_out) / fabs(rr->events[0].v_out);
    err[k][1] = fabs(r->events[1].v_in - rr->events[1].v_in) / fabs(rr->events[1].v_in);
    err[k][2] = fabs(r->events[1].v_out - rr->events[1].v_out) / fabs(rr->events[1].v_out);
    /* the first crossing to the round-off of the trajectory (the two-level
     * velocity recursion loses about N eps |u| / dt: 1e-8 at 176 kHz) */
    double t_on, v_in;
    first_crossing(r->events[0].t_on, &t_on, &v_in);
    double e_v = fabs(r->events[0].v_in - v_in) / v_in, e_t = fabs(r->events[0].t_on - t_on);
    printf("driven table %-11s %6.0f Hz: first crossing v_in off by %.1e, t_on by %.1e s\n",
           scheme, fs[k], e_v, e_t);
    ck_assert_msg(e_v < 1e-8 && e_t < 1e-10, "%s at %g Hz: first v_in off by %g, t_on by %g",
                  scheme, fs[k], e_v, e_t);
    tu_free(&s);
  }
  for (int q = 0; q < 3; q++) {
    double o[3];
    for (int k = 0; k < 3; k++)
      o[k] = log2(err[k][q] / err[k + 1][q]);
    printf("driven table %-11s %s: errors %.2e %.2e %.2e %.2e, orders %.2f %.2f %.2f\n",
           scheme, (const char *[]){ "v_out 1", "v_in 2", "v_out 2" }[q], err[0][q], err[1][q],
           err[2][q], err[3][q], o[0], o[1], o[2]);
    /* within 0.25 of the order at every doubling */
    for (int k = 0; k < 3 && cases[_i].order > 0.0; k++)
      ck_assert_msg(o[k] > cases[_i].order - 0.25, "%s: order %.2f at %g Hz", scheme, o[k],
                    fs[k + 1]);
  }
  tu_free(&ref);
}
END_TEST

/* ------------------------------------------------------- damped rattle */

/* Scheme i of the registry. */
static const vb_scheme *
scheme_at(int i)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  ck_assert((size_t)i < n);
  return all[i];
}

/* Whether scheme sc steps a damped law: sav (energy quadratisation) is
 * lossless only and refuses one when the scene loads (ops->accepts). */
static int
steps_damping(const vb_scheme *sc)
{
  vb_law law = { .kind = VB_LAW_RATTLE, .k = 2.385e7, .alpha = 1.5, .mu = 0.61, .h = 1.13e-3 };
  vb_contact ct = { .law = law, .scheme = sc };
  char why[256];
  return !sc->ops->accepts || sc->ops->accepts(&ct, why, sizeof why);
}

/* A 13.7 g bead in a fixed box of half-clearance 1.13 mm (rattle law,
 * Hunt-Crossley damping mu on each side) from u0 at v0 under gravity g, or
 * a mass hitting a wall through hunt-crossley, both at fs.  The quadratic
 * scheme takes s = 1/2: with s = 1 a contact resting under gravity never
 * settles and its energy account drifts (about 2e-7 J/s here, for
 * hunt-crossley as for the rattle: gravity acts outside the s-weighted
 * expansion, quadratic.c). */
static tu_sim
box(const char *scheme, const char *law, double fs, double duration, double g, double mu,
    double u0, double v0)
{
  char t[1536];
  int rattle = strcmp(law, "rattle") == 0;
  snprintf(t, sizeof t,
           "scene = { name = \"box\"; fs = %.17g; duration = %.17g; gravity = %.17g; };\n"
           "bodies = ( { name = \"box\"; type = \"wall\"; },\n"
           "  { name = \"bead\"; type = \"mass\"; mass = 0.0137; u0 = %.17g; v0 = %.17g; } );\n"
           "contacts = ( { name = \"c\"; between = [\"box\", \"bead\"]; law = \"%s\";\n"
           "  k = 2.385e7; alpha = 1.5; mu = %.17g;%s scheme = \"%s\";%s } );\n",
           fs, duration, g, u0, v0, law, mu, rattle ? " h = 1.13e-3;" : "", scheme,
           strcmp(scheme, "quadratic") == 0 ? " s = 0.5;" : "");
  tu_sim s = tu_run_text(t);
  ck_assert_msg(s.rc == VB_OK, "%s %s: %s", scheme, law, vb_run_status(s.run));
  return s;
}

/* Largest |energy + dissipated - external - initial| over the run,
 * relative to the largest energy or work in it. */
static double
balance(const vb_run *run)
{
  const double *e = vb_run_energy(run, VB_ENERGY_TOTAL), *d = vb_run_energy(run, VB_ENERGY_DISSIPATED);
  const double *w = vb_run_energy(run, VB_ENERGY_EXTERNAL);
  double worst = 0.0, scale = 0.0;
  for (long n = 0; n < vb_run_samples(run); n++) {
    worst = fmax(worst, fabs(e[n] + d[n] - w[n] - e[0]));
    scale = fmax(scale, fmax(e[n], fabs(w[n])));
  }
  return worst / scale;
}

/* A bead in a box with a damped rattle comes to rest on the floor, for
 * every scheme: its kinetic energy falls to a tiny fraction of the
 * initial, it ends with no velocity, it hit both the lid (side -1) and the
 * floor, and the energy account closes: to round-off for the
 * energy-conserving schemes, to the scheme's own trapezoidal error for the
 * others (what the same scheme reaches with hunt-crossley on the floor
 * alone, times 3). */
START_TEST(test_damped_rattle_rest)
{
  const vb_scheme *sc = scheme_at(_i);
  if (!steps_damping(sc))
    return; /* a lossless-only scheme refuses the law (check_sav.c) */
  tu_sim s = box(sc->name, "rattle", 96000.0, 1.5, 9.81, 3.7, 0.0, 0.63);
  const double *k = vb_run_energy(s.run, VB_ENERGY_KINETIC), *v = vb_run_body_v(s.run, 1);
  const double *u = vb_run_body_u(s.run, 1);
  long last = vb_run_samples(s.run) - 1;
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  int lid = 0, floor = 0;
  for (long i = 0; i < r->nevents; i++) {
    /* the side from where the bead is at the onset (the first impact,
     * of the bead thrown up, has u > 0: the lid) */
    long at = lround(r->events[i].t_on * 96000.0);
    lid += at <= last && u[at] > 0.0;
    floor += at <= last && u[at] < 0.0;
  }
  double b = balance(s.run);
  tu_sim hc = box(sc->name, "hunt-crossley", 96000.0, 0.1, 9.81, 3.7, -1.0e-5, -0.63);
  double bh = balance(hc.run);
  fprintf(stderr, "damped rattle %-15s: %ld impacts, kinetic %.2e of initial, final v %.2e m/s, "
         "u %.6e m, balance %.2e (hunt-crossley %.2e)\n",
         sc->name, r->nevents, k[last] / k[0], v[last], u[last], b, bh);
  ck_assert_msg(r->nevents >= 10 && lid >= 1 && floor >= 10, "%s: %ld impacts, %d on the lid",
                sc->name, r->nevents, lid);
  ck_assert_msg(k[last] < 1e-12 * k[0], "%s: kinetic %g of initial", sc->name, k[last] / k[0]);
  ck_assert_msg(fabs(v[last]) < 1e-6 * 0.63, "%s: final v %g", sc->name, v[last]);
  /* at rest on the floor: sag (m g / k)^(1/a) below -h */
  double sag = pow(0.0137 * 9.81 / 2.385e7, 1.0 / 1.5);
  ck_assert_msg(fabs(u[last] + 1.13e-3 + sag) < 1e-3 * sag, "%s: u %g", sc->name, u[last]);
  if (sc->energy_conserving)
    ck_assert_msg(b < 1e-11, "%s: balance error %g", sc->name, b);
  else
    ck_assert_msg(b < 3.0 * bh, "%s: balance error %g, hunt-crossley %g", sc->name, b, bh);
  tu_free(&hc);
  tu_free(&s);
}
END_TEST

/* Relative error of an event's v_out against Papetti eq 6. */
static double
vout_error(const vb_event *ev)
{
  return fabs(ev->v_out - ev->v_out_exact) / fabs(ev->v_out_exact);
}

/* Each side of a damped rattle is Hunt-Crossley past its clearance: a
 * bead bouncing between lid and floor without gravity leaves every impact
 * at Papetti's eq 6 v_out for that impact's v_in and mu, as accurately as
 * the same scheme at the same rate leaves a Hunt-Crossley impact on a wall
 * at that v_in (the worst of four phases of the sample grid at the onset,
 * which moves the error by up to a factor 3 for rk4; within 1.5 times it). */
START_TEST(test_damped_rattle_vout)
{
  const vb_scheme *sc = scheme_at(_i);
  const double mu = 0.61, fs = 96000.0;
  if (!steps_damping(sc))
    return; /* a lossless-only scheme refuses the law (check_sav.c) */
  tu_sim s = box(sc->name, "rattle", fs, 0.03, 0.0, mu, 0.0, 0.87);
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  const double *u = vb_run_body_u(s.run, 1);
  int sides[2] = { 0, 0 };
  ck_assert_int_ge(r->nevents, 4);
  for (long i = 0; i < r->nevents && i < 6; i++) {
    const vb_event *ev = &r->events[i];
    if (!isfinite(ev->v_out))
      continue; /* still open at the end */
    sides[u[lround(ev->t_on * fs)] > 0.0]++;
    /* hunt-crossley on a wall at this impact's v_in, from 13 um away and
     * at four phases of the sample grid: the worst of them */
    double er = vout_error(ev), eh = 0.0;
    for (int j = 0; j < 4; j++) {
      double u0 = 13e-6 + 0.25 * j * ev->v_in / fs;
      tu_sim hc = box(sc->name, "hunt-crossley", fs, u0 / ev->v_in + 0.004, 0.0, mu, u0,
                      -ev->v_in);
      const vb_contact_result *rh = vb_run_contact(hc.run, 0);
      ck_assert_int_eq(rh->nevents, 1);
      eh = fmax(eh, vout_error(&rh->events[0]));
      tu_free(&hc);
    }
    fprintf(stderr, "damped rattle %-15s impact %ld (%s): v_in %.4f, v_out %.6f, eq 6 %.6f, "
            "off by %.2e; hunt-crossley %.2e\n", sc->name, i, u[lround(ev->t_on * fs)] > 0.0 ?
            "lid" : "floor", ev->v_in, ev->v_out, ev->v_out_exact, er, eh);
    ck_assert_msg(ev->v_out_exact > -ev->v_in && ev->v_out_exact < 0.0, "%s: eq 6 %g", sc->name,
                  ev->v_out_exact);
    ck_assert_msg(er <= 1.5 * eh, "%s impact %ld: v_out off by %g, hunt-crossley %g", sc->name, i,
                  er, eh);
  }
  ck_assert_msg(sides[0] >= 2 && sides[1] >= 2, "%s: %d floor, %d lid", sc->name, sides[0],
                sides[1]);
  tu_free(&s);
}
END_TEST

/* vibro check's impact rate of a bead inside a box (vb_scene_approach_rate)
 * is that of the side its free flight reaches first, measured from that
 * side's barrier: thrown up hard it hits the lid, thrown up softly it
 * falls back to the floor, from below the centre it crosses the clearance
 * and more; the first event of the run agrees. */
START_TEST(test_rattle_approach)
{
  static const struct { double u0, v0, drop; } cases[] = {
    { 0.0, 0.63, -1.13e-3 },             /* lid: rises h against gravity */
    { 0.0, 0.05, 1.13e-3 },              /* falls back: floor, h below */
    { -0.5e-3, 0.9, -1.63e-3 },          /* lid, from 0.5 mm below the centre */
    { 0.37e-3, -0.3, 1.13e-3 + 0.37e-3 }, /* floor, from 0.37 mm above the centre */
  };
  const double g = 9.81;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char t[1024];
    snprintf(t, sizeof t,
             "scene = { name = \"box\"; fs = 96000.0; duration = 0.05; gravity = %.17g; };\n"
             "bodies = ( { name = \"box\"; type = \"wall\"; },\n"
             "  { name = \"bead\"; type = \"mass\"; mass = 0.0137; u0 = %.17g; v0 = %.17g; } );\n"
             "contacts = ( { name = \"c\"; between = [\"box\", \"bead\"]; law = \"rattle\";\n"
             "  k = 2.385e7; alpha = 1.5; h = 1.13e-3; mu = 0.61; scheme = \"two-point\"; } );\n",
             g, cases[i].u0, cases[i].v0);
    tu_sim s = tu_run_text(t);
    double m, v_in = vb_scene_approach_rate(s.scene, 0, &m);
    /* energy: the bead falls by `drop` (rises where negative) to the barrier */
    double want = sqrt(cases[i].v0 * cases[i].v0 + 2.0 * g * cases[i].drop);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    ck_assert_int_ge(r->nevents, 1);
    fprintf(stderr, "rattle approach %zu: %.9f m/s, expected %.9f, first event %.9f\n", i, v_in,
            want, r->events[0].v_in);
    ck_assert_msg(fabs(v_in - want) <= 1e-12 * want, "case %zu: %.17g, expected %.17g", i, v_in,
                  want);
    ck_assert_msg(fabs(r->events[0].v_in - want) <= 1e-6 * want, "case %zu: first event %.17g", i,
                  r->events[0].v_in);
    ck_assert_double_eq(m, 0.0137);
    tu_free(&s);
  }
}
END_TEST

/* The rattle's mu is sweepable as contacts.C.mu, in s/m from the law
 * table; mu = 0 is the undamped rattle to the bit (the same compression,
 * events and energies as a rattle without the key, over 26 impacts on a
 * shaken box), and a swept mu > 0 damps. */
START_TEST(test_rattle_mu_sweep)
{
  static const char base[] =
      "scene = { name = \"box\"; fs = 96000.0; duration = 0.2; gravity = 9.81; };\n"
      "bodies = ( { name = \"box\"; type = \"wall\"; drive = { type = \"sine\"; amplitude = 1.7e-3;\n"
      "    freq = 23.0; }; },\n"
      "  { name = \"bead\"; type = \"mass\"; mass = 0.0137; u0 = 0.0; v0 = 0.63; } );\n"
      "contacts = ( { name = \"c\"; between = [\"box\", \"bead\"]; law = \"rattle\";\n"
      "  k = 2.385e7; alpha = 1.5; h = 1.13e-3; scheme = \"two-point\";%s } );\n%s";
  char text[2048], err[512];
  snprintf(text, sizeof text, base, " mu = 0.5;",
           "sweep = { params = ( { path = \"contacts.c.mu\"; values = [0.0, 3.7]; } ); };\n");
  vb_study *st;
  ck_assert_msg(vb_study_load_string(text, "sweep.cfg", &st, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_str_eq(vb_study_param(st, 0), "contacts.c.mu");
  ck_assert_str_eq(vb_study_param_units(st, 0), "s/m");
  snprintf(text, sizeof text, base, "", "");
  tu_sim plain = tu_run_text(text);
  ck_assert_int_eq(plain.rc, VB_OK);
  const vb_contact_result *rp = vb_run_contact(plain.run, 0);
  ck_assert_int_ge(rp->nevents, 20);
  long n = vb_run_samples(plain.run);
  for (long i = 0; i < 2; i++) {
    vb_scene *sc;
    vb_run *run;
    ck_assert_int_eq(vb_study_scene(st, i, &sc, err, sizeof err), VB_OK);
    ck_assert_double_eq(sc->contacts[0].law.mu, i ? 3.7 : 0.0);
    ck_assert_int_eq(vb_run_alloc(sc, &run, err, sizeof err), VB_OK);
    ck_assert_int_eq(vb_run_exec(run), VB_OK);
    const vb_contact_result *r = vb_run_contact(run, 0);
    double dissipated = vb_run_final_energy(run, VB_ENERGY_DISSIPATED);
    fprintf(stderr, "rattle mu %g: %ld impacts, dissipated %.3e J\n", sc->contacts[0].law.mu,
            r->nevents, dissipated);
    if (i == 0) {
      ck_assert_int_eq(r->nevents, rp->nevents);
      ck_assert(memcmp(r->compression, rp->compression, (size_t)n * sizeof(double)) == 0);
      ck_assert(memcmp(r->force, rp->force, (size_t)n * sizeof(double)) == 0);
      ck_assert(VB_MEMEQ(r->events, rp->events, (size_t)r->nevents * sizeof(vb_event)));
      for (int e = 0; e < VB_ENERGY_COUNT; e++)
        ck_assert(memcmp(vb_run_energy(run, e), vb_run_energy(plain.run, e),
                         (size_t)n * sizeof(double)) == 0);
      /* round-off of the discrete gradient only */
      ck_assert_msg(fabs(dissipated) < 1e-11 * 0.5 * 0.0137 * 0.63 * 0.63, "%g J", dissipated);
    } else {
      ck_assert_msg(dissipated > 1e-4, "mu 3.7 dissipated %g J", dissipated);
    }
    vb_run_free(run);
    vb_scene_free(sc);
  }
  tu_free(&plain);
  vb_study_free(st);
}
END_TEST

/* Papetti's v_out correction on a damped rattle: every release, on the lid
 * and on the floor, leaves at the root of eq 6 for that impact's v_in and
 * the rattle's mu (every scheme whose state holds a velocity), and the
 * energy account, corrections included, closes as without them. */
START_TEST(test_damped_rattle_vout_correction)
{
  const vb_scheme *sc = scheme_at(_i);
  if (!vb_family_info_of(sc->family)->velocity || !steps_damping(sc))
    return; /* no velocity to correct, or no damping: refused by the loader */
  char t[1536];
  snprintf(t, sizeof t,
           "scene = { name = \"box\"; fs = 96000.0; duration = 0.03; };\n"
           "bodies = ( { name = \"box\"; type = \"wall\"; },\n"
           "  { name = \"bead\"; type = \"mass\"; mass = 0.0137; u0 = 0.0; v0 = 0.87; } );\n"
           "contacts = ( { name = \"c\"; between = [\"box\", \"bead\"]; law = \"rattle\";\n"
           "  k = 2.385e7; alpha = 1.5; h = 1.13e-3; mu = 0.61; scheme = \"%s\";\n"
           "  corrections = [\"vout\"]; } );\n", sc->name);
  tu_sim s = tu_run_text(t);
  ck_assert_msg(s.rc == VB_OK, "%s: %s", sc->name, vb_run_status(s.run));
  const vb_contact_result *r = vb_run_contact(s.run, 0);
  const double *u = vb_run_body_u(s.run, 1);
  int sides[2] = { 0, 0 };
  for (long i = 0; i < r->nevents; i++) {
    const vb_event *ev = &r->events[i];
    if (!isfinite(ev->v_out))
      continue;
    sides[u[lround(ev->t_on * 96000.0)] > 0.0]++;
    ck_assert_msg(ev->corrections & VB_CORRECT_VOUT, "%s impact %ld: not corrected", sc->name, i);
    ck_assert_msg(-ev->v_out_exact < 0.9 * ev->v_in, "%s impact %ld: eq 6 %g of v_in %g undamped",
                  sc->name, i, ev->v_out_exact, ev->v_in);
    ck_assert_msg(fabs(ev->v_out - ev->v_out_exact) <= 1e-9 * fabs(ev->v_out_exact),
                  "%s impact %ld: v_out %.17g, eq 6 %.17g", sc->name, i, ev->v_out,
                  ev->v_out_exact);
  }
  ck_assert_msg(sides[0] >= 2 && sides[1] >= 2, "%s: %d floor, %d lid", sc->name, sides[0],
                sides[1]);
  double b = fabs(vb_run_balance_error(s.run)) / (0.5 * 0.0137 * 0.87 * 0.87);
  fprintf(stderr, "damped rattle vout %-15s: %ld impacts, balance error %.2e\n", sc->name,
          r->nevents, b);
  /* the bounds of check_schemes' damped balance test */
  ck_assert_msg(b < (sc->energy_conserving ? 1e-11 : 2e-2), "%s: balance %g", sc->name, b);
  tu_free(&s);
}
END_TEST

/* Quick re-contacts: a string grazing the tanpura's 64-point bridge closes
 * and opens within a sample or two thousands of times, where free flight
 * extrapolates a crossing far outside its step (the string's own elastic
 * pull is not in it): 1,024 of tanpura.cfg's 6,659 events had negative
 * durations, down to -2,520 samples, and 32 started before the previous
 * one of their contact ended.  The rule (doc/format.md): each crossing
 * lies in the step between the samples on either side of it, so an event
 * of s samples in contact lasts between s - 1 and s + 1 steps, and the next
 * impact of the contact starts no earlier than this one ended.  Two-point,
 * three-point (its release measured one step later) and the snare's
 * rattling beads (two-sided). */
START_TEST(test_quick_recontacts)
{
  static const char *const cases[][3] = {
      {"scenes/tanpura.cfg", "duration = 0.2;", "duration = 0.2;"},
      {"scenes/tanpura.cfg", "scheme = \"two-point\";", "scheme = \"three-point\";"},
      {"scenes/snare-membrane.cfg", "name", "name"},
  };
  const char *const repl[] = {cases[_i][1], cases[_i][2]};
  tu_sim s = tu_run_file(cases[_i][0], repl, 1);
  ck_assert_int_eq(s.rc, VB_OK);
  double h = 1.0 / s.scene->fs, eps = 1e-9 * h;
  long events = 0, short_ones = 0;
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(s.run, c);
    for (long i = 0; i < r->nevents; i++) {
      const vb_event *ev = &r->events[i];
      if (isnan(ev->t_off) || isnan(ev->t_on))
        continue;
      events++;
      short_ones += ev->samples <= 2;
      ck_assert_msg(ev->duration >= (ev->samples - 1) * h - eps &&
                        ev->duration <= (ev->samples + 1) * h + eps,
                    "%s: contact %s event %ld: duration %.3f steps with %d samples in contact",
                    cases[_i][0], s.scene->contacts[c].name, i, ev->duration / h, ev->samples);
      ck_assert(ev->t_off == ev->t_on + ev->duration);
      if (i > 0)
        ck_assert_msg(ev->t_on >= r->events[i - 1].t_off,
                      "%s: contact %s event %ld starts %.3f steps before the previous ended",
                      cases[_i][0], s.scene->contacts[c].name, i,
                      (r->events[i - 1].t_off - ev->t_on) / h);
    }
  }
  fprintf(stderr, "quick re-contacts %s: %ld events, %ld of one or two samples\n", cases[_i][0],
          events, short_ones);
  ck_assert_int_gt(events, 10);
  ck_assert_int_gt(short_ones, _i < 2 ? 1000 : 0);
  tu_free(&s);
}
END_TEST

/* engaged_at_end (issue 21): a hammer thrown at a wall with random
 * stiffness, exponent, damping, speed and duration, from a quarter of its
 * contact to twice it.  Independently of the tracker, the contact is
 * closed at the end exactly when the last sample's compression is
 * positive; then the last impact is the unfinished one (NaN t_off,
 * duration, v_out), else every impact has a t_off.  The hammer starts
 * 10 um before the wall; AM1, quadratic, three-point (three-level) and SAV. */
START_TEST(test_engaged_at_end)
{
  static const char *const schemes[] = {"am1", "quadratic", "three-point", "sav"};
  unsigned seed = 2111u + (unsigned)_i;
  int engaged = 0, open = 0;

  for (int trial = 0; trial < 60; trial++) {
    double k = pow(10.0, 7.0 + 3.0 * rand_r(&seed) / (double)RAND_MAX);
    double alpha = 1.05 + 0.9 * rand_r(&seed) / (double)RAND_MAX;
    double mu = (_i == 3 ? 0.0 : 0.8) * rand_r(&seed) / (double)RAND_MAX; /* sav: undamped */
    double v0 = 0.2 + 2.8 * rand_r(&seed) / (double)RAND_MAX;
    double duration = (0.05 + 1.5 * rand_r(&seed) / (double)RAND_MAX) * 1.0e-3;
    char t[1024];
    snprintf(t, sizeof t,
             "scene = { name = \"e\"; fs = 44100.0; duration = %.17g; gravity = 0.0; };\n"
             "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.01; u0 = -1.0e-5; v0 = %.17g; },"
             " { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
             "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";"
             " k = %.17g; alpha = %.17g; mu = %.17g; scheme = \"%s\"; } );\n",
             duration, v0, k, alpha, mu, schemes[_i]);
    tu_sim s = tu_run_text(t);
    ck_assert_int_eq(s.rc, VB_OK);
    const vb_contact_result *r = vb_run_contact(s.run, 0);
    long n = vb_run_samples(s.run);
    ck_assert_ptr_nonnull(r->compression);
    int closed = r->compression[n - 1] > 0.0;
    ck_assert_msg(r->engaged_at_end == closed,
                  "%s k %g alpha %g mu %g v0 %g T %g: engaged_at_end %ld, last compression %g",
                  schemes[_i], k, alpha, mu, v0, duration, r->engaged_at_end,
                  r->compression[n - 1]);
    ck_assert(r->nevents >= 1 || !closed); /* a short scene may end before the wall */
    for (long e = 0; e < r->nevents; e++) {
      int last_open = closed && e == r->nevents - 1;
      ck_assert_msg(isnan(r->events[e].t_off) == last_open, "event %ld of %ld: t_off %g", e,
                    r->nevents, r->events[e].t_off);
      ck_assert(isnan(r->events[e].v_out) == last_open || !last_open);
      ck_assert(!last_open || isnan(r->events[e].duration));
    }
    engaged += closed;
    open += !closed;
    tu_free(&s);
  }
  /* both outcomes were drawn */
  ck_assert_int_gt(engaged, 5);
  ck_assert_int_gt(open, 5);
}
END_TEST

static Suite *
events_suite(void)
{
  Suite *s = suite_create("events");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 120);
  tcase_add_loop_test(core, test_driven_table_order, 0, 7);
  size_t nschemes;
  vb_scheme_list(&nschemes);
  tcase_add_loop_test(core, test_damped_rattle_rest, 0, (int)nschemes);
  tcase_add_loop_test(core, test_damped_rattle_vout, 0, (int)nschemes);
  tcase_add_loop_test(core, test_damped_rattle_vout_correction, 0, (int)nschemes);
  tcase_add_test(core, test_rattle_approach);
  tcase_add_test(core, test_rattle_mu_sweep);
  tcase_add_loop_test(core, test_quick_recontacts, 0, 3);
  tcase_add_loop_test(core, test_engaged_at_end, 0, 4);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(events_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
