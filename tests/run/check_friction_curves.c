/* check_friction_curves.c - the friction curves (stribeck, bow) and the
 * prescribed normal force of a bow (lib/base/friction_law.c, lib/island/
 * friction.c, lib/scene/load_contact.c; issue 30, step 3), each against a
 * reference written here, never from vibro's output:
 *   - steady sliding: a damped spring-mass held against a belt at constant
 *     speed settles where its friction force is the law's curve at that
 *     speed, N mu(V), against the curves' closed forms (written again
 *     here, from the papers' formulas), under a prescribed normal force and
 *     under a power-law contact loaded by gravity;
 *   - the local problem of a step: the slip equation's roots against a
 *     brute-force scan, the branch kept where a steep curve gives two, and
 *     a sweep of random problems: never NaN, always in the law's set;
 *   - a bowed oscillator (a belt at constant speed, a prescribed normal
 *     force), a block dropped on a belt (N varying, zero in flight) and
 *     two blocks stacked on a swinging belt (two coupled curve contacts,
 *     solved by Gauss-Seidel):
 *     the energy balance to round-off, the friction work never negative,
 *     the force never outside the cone (|ft| <= mu_s N sticking, |ft| =
 *     N mu(|s|) slipping);
 *   - the loader's messages for what it refuses.
 * The bowed oscillator against an event-driven integration is
 * tests/run/bow_ref.py. */
#include <float.h>
#include <math.h>
#include "../testutil.h"

/* The samples of contact signal `name` of contact c, or NULL. */
static const double *
contact_signal(const tu_sim *s, const char *name, int c)
{
  int nt;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++)
    if (t[r].object == VB_SIGNAL_CONTACT && strcmp(t[r].name, name) == 0)
      return vb_signal_data(s->run, &t[r], c);
  return NULL;
}

/* ------------------------------------------------- the curves, again
 * From the papers' formulas (friction_law.c cites them), not from the
 * library: Armstrong-Helouvry et al. 1994 / Olsson et al. 1998's Stribeck
 * curve with a viscous term per newton, and the hyperbolic bow curve of
 * Smith & Woodhouse 2000, and the exponential curve of Desvages & Bilbao
 * 2016. */
typedef struct {
  const char *law; /* the scene's friction group */
  int kind;        /* 0 coulomb, 1 stribeck, 2 bow, 3 exponential */
  double mu_s, mu_k, v, delta, viscous; /* (exponential: its a in v) */
} curve_case;

static double
mu_ref(const curve_case *k, double x)
{
  x = fabs(x);
  switch (k->kind) {
  case 0:
    return k->mu_k;
  case 1:
    return k->mu_k + (k->mu_s - k->mu_k) * exp(-pow(x / k->v, k->delta)) + k->viscous * x;
  case 2:
    return k->mu_k + (k->mu_s - k->mu_k) * k->v / (k->v + x);
  default: /* Desvages & Bilbao 2016: phi(v) = sqrt(2a) v exp(-a v^2 + 1/2) */
    return sqrt(2.0 * k->v) * x * exp(-k->v * x * x + 0.5);
  }
}

static const curve_case curves[] = {
    {"law = \"coulomb\"; mu_s = 0.61; mu_k = 0.37;", 0, 0.61, 0.37, 0, 0, 0},
    {"law = \"stribeck\"; mu_s = 0.61; mu_k = 0.37; v_s = 0.0213;", 1, 0.61, 0.37, 0.0213, 2.0,
     0.0},
    {"law = \"stribeck\"; mu_s = 0.58; mu_k = 0.29; v_s = 0.0137; delta = 0.7; viscous = 1.83;", 1,
     0.58, 0.29, 0.0137, 0.7, 1.83},
    {"law = \"stribeck\"; mu_s = 0.55; mu_k = 0.31; v_s = 0.031; delta = 1.0; viscous = 0.4;", 1,
     0.55, 0.31, 0.031, 1.0, 0.4},
    {"law = \"bow\"; mu_s = 0.8; mu_d = 0.3; v0 = 0.0412;", 2, 0.8, 0.3, 0.0412, 0, 0},
    {"law = \"exponential\"; a = 137.0;", 3, 0.0, 0.0, 137.0, 0, 0},
};
#define NCURVES (int)(sizeof curves / sizeof curves[0])

/* A 0.37 kg block on a spring (2100 N/m) and a strong damper to ground
 * along w, held against a belt at speed `v`: the damper (cw = 63 N s/m)
 * outweighs the curves' steepest fall (N max |mu'| < 40 N s/m here), so
 * that steady sliding is stable and reached in well under a second.
 * normal: 1 a prescribed normal force of 2.37 N, 0 a power-law contact
 * under gravity (N = m g). */
static char *
steady_text(const curve_case *k, double v, int prescribed)
{
  char *t = malloc(2048);
  snprintf(t, 2048,
           "scene = { name = \"steady\"; fs = 20000.0; duration = 3.0; gravity = %s; };\n"
           "bodies = (\n"
           "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = %.17g; }; },\n"
           "  { name = \"block\"; type = \"mass\"; mass = 0.37; u0 = %s; w0 = 0.0; kw = 2100.0;\n"
           "    cw = 63.0; } );\n"
           "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; %s\n"
           "  scheme = \"two-point\"; friction = { %s }; } );\n",
           prescribed ? "0.0" : "9.81", v, prescribed ? "0.0" : "-3.6297e-7",
           prescribed ? "normal_force = 2.37;" : "law = \"power\"; k = 1.0e7; alpha = 1.0;",
           k->law);
  return t;
}

/* Each law at four belt speeds, both ways of giving N: the settled force
 * is N mu(V) to 1e-10, the slip exactly -V (the block at rest), and the
 * spring holds it (kw w = ft to the pre-warped spring's 1e-5). */
START_TEST(test_steady_sliding)
{
  const curve_case *k = &curves[_i];
  const double speeds[] = {0.0071, 0.0213, 0.058, 0.193};
  for (int prescribed = 0; prescribed < 2; prescribed++)
    for (int j = 0; j < 4; j++) {
      double v = speeds[j];
      char *text = steady_text(k, v, prescribed);
      tu_sim s = tu_run_text(text);
      free(text);
      ck_assert_int_eq(s.rc, VB_OK);
      long n = vb_run_samples(s.run);
      const double *ft = contact_signal(&s, "ft", 0);
      const double *slip = contact_signal(&s, "slip", 0);
      const double *nf = contact_signal(&s, "force", 0);
      double N = prescribed ? 2.37 : nf[n - 1];
      double want = N * mu_ref(k, v);
      printf("%-9s %s N %.6g N, belt %.4f m/s: ft %.15g N, N mu(V) %.15g N (%.2g), slip %.17g\n",
             vb_friction_info_of((vb_friction_kind)(k->kind + 1))->name,
             prescribed ? "prescribed" : "m g       ", N, v, ft[n - 1], want,
             (ft[n - 1] - want) / want, slip[n - 1]);
      if (!prescribed)
        ck_assert_double_le(fabs(N - 0.37 * 9.81), 1e-9 * N);
      /* the block moves slower than the belt: ft pushes it along +w */
      ck_assert_double_le(fabs(ft[n - 1] - want), 1e-10 * want);
      /* (the belt's increment is a difference of its positions, v t: 16
       * ulps of v t over dt) */
      ck_assert_double_le(fabs(slip[n - 1] + v), 16.0 * DBL_EPSILON * v * 3.0 * 20000.0);
      tu_free(&s);
    }
}
END_TEST

/* ------------------------------------------------- the local problem */

static vb_friction
law_of(const curve_case *k)
{
  vb_friction f = {.kind = (vb_friction_kind)(k->kind + 1),
                   .mu_s = k->mu_s,
                   .mu_k = k->mu_k,
                   .v_s = k->v,
                   .delta = k->delta,
                   .viscous = k->viscous,
                   .a = k->kind == 3 ? k->v : 0.0};
  return f;
}

/* The stable roots of h(x) = x - S + cn mu(x) on (0, S] by a scan of 2e6
 * cells (the up-crossings), into r; their number. */
static int
scan_roots(const curve_case *k, double S, double cn, double *r, int max)
{
  int nr = 0;
  const long cells = 2000000;
  double x0 = 0.0, h0 = -S + cn * k->mu_s;
  for (long i = 1; i <= cells && nr < max; i++) {
    double x1 = S * (double)i / (double)cells, h1 = x1 - S + cn * mu_ref(k, x1);
    if (h0 < 0.0 && h1 >= 0.0)
      r[nr++] = x0 - h0 * (x1 - x0) / (h1 - h0);
    x0 = x1;
    h0 = h1;
  }
  return nr;
}

/* A steep Stribeck curve (its slope reaches -25.7 per m/s) under a step
 * whose cn = 0.1 m/s: h has two stable roots for free slips between
 * 0.06 and 0.06085 m/s (h's local maximum).
 * From stick the law takes the smaller, from a fast slip the larger, and
 * each is a root of h to round-off and the scan's. */
START_TEST(test_two_roots)
{
  const curve_case k = {"", 1, 0.6, 0.3, 0.01, 2.0, 0.0};
  vb_friction law = law_of(&k);
  const vb_friction_info *info = vb_friction_lookup("stribeck");
  double n = 10.0, c = 0.01, cn = c * n, S = 0.0604, r[4];
  int nr = scan_roots(&k, S, cn, r, 4);
  printf("stribeck, cn %g m/s, free slip %g m/s: %d stable roots by the scan, %.9g and %.9g\n", cn,
         S, nr, r[0], nr > 1 ? r[1] : NAN);
  ck_assert_int_eq(nr, 2);
  for (int from = 0; from < 3; from++) {
    /* state at n: 0 sticking, 1 slipping fast this way, 2 fast the other way */
    double st[2] = {from == 0 ? 1.0 : 0.0, from == 0 ? 0.0 : (from == 1 ? 0.05 : -0.05)};
    int broke = 0;
    double ft = info->local(&law, n, S, c, 1e-4, &broke, st);
    double s = S + c * ft, want = from == 1 ? r[1] : r[0];
    printf("  from %s: slip %.12g m/s (scan %.12g), ft %.12g N\n",
           from == 0 ? "stick" : from == 1 ? "slip this way" : "slip the other way", s, want, ft);
    ck_assert(broke && st[0] == 0.0);
    ck_assert_double_le(fabs(s - want), 1e-6 * want);
    ck_assert_double_le(fabs(st[1] - s), 1e-15);
    ck_assert_double_le(fabs(-ft - n * mu_ref(&k, s)), 1e-12 * n);
  }
}
END_TEST

/* 200,000 random problems per law (free slips, compliances, normal
 * forces, states): ft finite; stick (s = 0 to round-off) within mu_s N;
 * slip against ft with |ft| = N mu(|s|); the slip's size within the free
 * one (friction never drives). */
START_TEST(test_random_local)
{
  const curve_case *k = &curves[_i];
  vb_friction law = law_of(k);
  const vb_friction_info *info = vb_friction_info_of(law.kind);
  unsigned long long x = 0x9e3779b97f4a7c15ULL + (unsigned long long)_i;
  long nstick = 0, nslip = 0;
  for (long t = 0; t < 200000; t++) {
    double u[5];
    for (int q = 0; q < 5; q++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      u[q] = (double)(x >> 11) / 9007199254740992.0;
    }
    double sf = (u[0] - 0.5) * pow(10.0, -6.0 * u[1]) * 2.0;
    double c = pow(10.0, -6.0 + 6.0 * u[2]), n = u[3] < 0.05 ? 0.0 : 10.0 * u[3];
    double st[2] = {u[4] < 0.3 ? 1.0 : 0.0, (u[4] - 0.65) * 0.2};
    int broke = u[4] > 0.9;
    double ft = info->local(&law, n, sf, c, 1e-4, &broke, st);
    ck_assert_msg(isfinite(ft), "ft %g at s_free %g, c %g, n %g", ft, sf, c, n);
    double s = sf + c * ft;
    if (info->sticks(st)) {
      ck_assert_double_le(fabs(s), 1e-12 * fabs(sf) + 1e-300);
      ck_assert_double_le(fabs(ft), law.mu_s * n * (1.0 + 1e-15));
      nstick++;
    } else {
      ck_assert(ft * s <= 0.0);
      ck_assert_double_le(fabs(s), fabs(sf));
      ck_assert_double_le(fabs(fabs(ft) - n * mu_ref(k, s)), 1e-10 * n * mu_ref(k, s) + 1e-300);
      nslip++;
    }
  }
  /* (the exponential law has no stick set: it sticks only without slip) */
  ck_assert_int_gt(nstick, k->kind == 3 ? -1 : 1000);
  ck_assert_int_gt(nslip, 1000);
}
END_TEST

/* ------------------------------------------------- energy and cone */

/* A bowed oscillator (a 0.1 kg block on a 4 kN/m spring, pressed with 1.5 N
 * on a bow moving at 0.1 m/s) under each curve; a block dropped on a
 * belt through a Hunt-Crossley contact (bouncing, N varying and 0 in
 * flight) under the Stribeck curve; two blocks stacked on a belt that
 * swings, the Stribeck curve at the base and the bow curve on top (two
 * friction contacts coupled through the lower block). */
static char *
energy_text(int i)
{
  char *t = malloc(2048);
  if (i < NCURVES)
    snprintf(t, 2048,
             "scene = { name = \"bowed\"; fs = 44100.0; duration = 0.6; };\n"
             "bodies = (\n"
             "  { name = \"bow\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.1; }; },\n"
             "  { name = \"block\"; type = \"mass\"; mass = 0.1; vw0 = 0.1; kw = 4000.0;\n"
             "    cw = 0.05; } );\n"
             "contacts = ( { name = \"hair\"; between = [\"bow\", \"block\"];\n"
             "  normal_force = 1.5; scheme = \"two-point\"; friction = { %s }; } );\n",
             curves[i].law);
  else if (i == NCURVES + 1)
    snprintf(t, 2048,
             "scene = { name = \"stack\"; fs = 40000.0; duration = 1.0; gravity = 9.81; };\n"
             "bodies = (\n"
             "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"sine\"; amplitude = 6.0e-3;\n"
             "    freq = 2.3; }; },\n"
             "  { name = \"lower\"; type = \"mass\"; mass = 0.7; u0 = -1.0e-6; w0 = 0.0; kw = 410.0;\n"
             "    cw = 0.13; },\n"
             "  { name = \"upper\"; type = \"mass\"; mass = 0.3; u0 = 3.0e-4; w0 = 1.1e-3; vw0 = 0.01;\n"
             "    kw = 97.0; } );\n"
             "contacts = (\n"
             "  { name = \"base\"; between = [\"belt\", \"lower\"]; law = \"hunt-crossley\"; k = 2.3e6;\n"
             "    alpha = 1.2; mu = 0.4; scheme = \"two-point\"; friction = { %s }; },\n"
             "  { name = \"top\"; between = [\"lower\", \"upper\"]; law = \"power\"; k = 1.7e6;\n"
             "    alpha = 1.5; scheme = \"two-point\"; friction = { %s }; } );\n",
             curves[1].law, curves[4].law);
  else
    snprintf(t, 2048,
             "scene = { name = \"drop\"; fs = 40000.0; duration = 1.0; gravity = 9.81; };\n"
             "bodies = (\n"
             "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.05; }; },\n"
             "  { name = \"block\"; type = \"mass\"; mass = 0.3; u0 = 2.0e-3; w0 = 1.3e-3;\n"
             "    vw0 = -0.017; kw = 613.0; cw = 0.21; } );\n"
             "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"];\n"
             "  law = \"hunt-crossley\"; k = 3.1e6; alpha = 1.3; mu = 0.6; scheme = \"two-point\";\n"
             "  friction = { %s }; } );\n",
             curves[1].law);
  return t;
}

/* A bow force that varies and lifts off: N(t) = 1.5 + 1.9 sin(2 pi 7.3 t +
 * 0.3) N, held at each step's middle and 0 where it would pull: ft is 0
 * there, within mu_s N(t) (and on the curve) elsewhere, the balance closes. */
START_TEST(test_normal_profile)
{
  static const char text[] =
      "scene = { name = \"lift\"; fs = 44100.0; duration = 0.4; };\n"
      "bodies = (\n"
      "  { name = \"bow\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.1; }; },\n"
      "  { name = \"block\"; type = \"mass\"; mass = 0.1; vw0 = 0.1; kw = 4000.0; cw = 0.05; } );\n"
      "contacts = ( { name = \"hair\"; between = [\"bow\", \"block\"]; normal_force = 1.5;\n"
      "  normal_force_drive = { type = \"sine\"; amplitude = 1.9; freq = 7.3; phase = 0.3; };\n"
      "  scheme = \"two-point\";\n"
      "  friction = { law = \"stribeck\"; mu_s = 0.8; mu_k = 0.35; v_s = 0.0213; }; } );\n";
  const curve_case own = {"", 1, 0.8, 0.35, 0.0213, 2.0, 0.0};
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  const double *ft = contact_signal(&s, "ft", 0), *slip = contact_signal(&s, "slip", 0);
  const double *stick = contact_signal(&s, "stick", 0);
  const double *tot = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *dis = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  const double *ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
  double h = 1.0 / 44100.0, cone = -INFINITY, curve = 0.0, worst = 0.0;
  long lifted = 0, nstick = 0, nslip = 0;
  for (long j = 1; j < n; j++) {
    double tm = ((double)j - 0.5) * h, N = 1.5 + 1.9 * sin(2.0 * M_PI * 7.3 * tm + 0.3);
    N = N > 0.0 ? N : 0.0;
    worst = fmax(worst, fabs(tot[j] + dis[j] - ext[j] - tot[0]));
    cone = fmax(cone, fabs(ft[j]) - 0.8 * N);
    if (N == 0.0) {
      ck_assert_double_eq(ft[j], 0.0);
      lifted++;
    } else if (stick[j] == 1.0) {
      nstick++;
    } else if (stick[j - 1] == 0.0) {
      curve = fmax(curve, fabs(fabs(ft[j]) - N * mu_ref(&own, slip[j])) / N);
      nslip++;
    }
  }
  printf("lift: %ld samples lifted off, %ld sticking, %ld slipping; |ft| - mu_s N(t) at most %.3g "
         "N; off the curve by %.3g; balance %.3g J\n",
         lifted, nstick, nslip, cone, curve, worst);
  ck_assert_int_gt(lifted, 1000);
  ck_assert_int_gt(nstick, 100);
  ck_assert_int_gt(nslip, 100);
  ck_assert_double_le(cone, 1e-12);
  ck_assert_double_le(curve, 1e-12);
  ck_assert_double_le(worst, 16.0 * DBL_EPSILON * fabs(ext[n - 1]) * sqrt((double)n));
  tu_free(&s);
}
END_TEST

START_TEST(test_energy_and_cone)
{
  char *text = energy_text(_i);
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  const double *tot = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *dis = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  const double *ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
  ck_assert_ptr_nonnull(ext);
  double worst = 0.0, through = fabs(tot[0]);
  for (long j = 0; j < n; j++) {
    worst = fmax(worst, fabs(tot[j] + dis[j] - ext[j] - tot[0]));
    through = fmax(through, fabs(dis[j]) + fabs(ext[j]));
  }
  printf("%s: balance %.3g J of %.3g J through (%.3g)\n", s.scene->name, worst, through,
         worst / through);
  ck_assert_double_le(worst, 16.0 * DBL_EPSILON * through * sqrt((double)n));
  for (int c = 0; c < s.scene->ncontacts; c++) {
  /* the stack: the Stribeck curve at the base, the bow curve on top */
  const curve_case *k = &curves[_i < NCURVES ? _i : _i == NCURVES ? 1 : c == 0 ? 1 : 4];
  const double *ft = contact_signal(&s, "ft", c);
  const double *nf = contact_signal(&s, "force", c);
  const double *slip = contact_signal(&s, "slip", c);
  const double *work = contact_signal(&s, "friction_work", c);
  const double *stick = contact_signal(&s, "stick", c);
  double wmin = 0.0, cone = -INFINITY, curve = 0.0;
  long nstick = 0, nslip = 0, flight = 0;
  for (long j = 1; j < n; j++) {
    double N = _i < NCURVES ? 1.5 : (nf[j] > 0.0 ? nf[j] : 0.0);
    wmin = fmin(wmin, work[j] - work[j - 1]);
    cone = fmax(cone, fabs(ft[j]) - fmax(k->mu_s, mu_ref(k, slip[j])) * N);
    if (N == 0.0) {
      ck_assert_double_eq(ft[j], 0.0);
      flight++;
    } else if (stick[j] == 1.0) {
      /* exact for one mass on a wall; to the Gauss-Seidel's round-off for
       * the stack's coupled contacts */
      ck_assert_double_le(fabs(slip[j]), _i <= NCURVES ? 0.0 : 1e-12);
      nstick++;
    } else if (stick[j - 1] == 0.0 && (_i < NCURVES || nf[j - 1] > 0.0)) {
      /* a slipping step: the curve at the step's slip, against it */
      curve = fmax(curve, fabs(fabs(ft[j]) - N * mu_ref(k, slip[j])) / N);
      ck_assert(ft[j] * slip[j] < 0.0);
      nslip++;
    }
  }
  printf("  contact %s (%s): least step work %.3g J; |ft| - bound at most %.3g N; slipping "
         "|ft|/N off the curve by at most %.3g; %ld sticking, %ld slipping, %ld with N = 0; "
         "friction work %.6g J\n",
         s.scene->contacts[c].name, k->law, wmin, cone, curve, nstick, nslip, flight, work[n - 1]);
  ck_assert_double_ge(wmin, 0.0);
  ck_assert_double_le(cone, 1e-12);
  ck_assert_double_le(curve, 1e-12);
  ck_assert_int_gt(nstick, k->kind == 3 ? -1 : 50);
  ck_assert_int_gt(nslip, 100);
  if (_i == NCURVES)
    ck_assert_int_gt(flight, 10);
  }
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- errors */

static const struct {
  const char *contact, *want;
} bad[] = {
    {"law = \"power\"; k = 1.0e7; alpha = 1.0; normal_force = 2.0; friction = { law = "
     "\"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': 'normal_force' prescribes the normal force of a contact "
     "without a normal law, and law 'power' gives one (valid: law omitted or \"none\" with "
     "normal_force, or law 'power' without normal_force)"},
    {"law = \"none\"; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': law 'none' needs a prescribed 'normal_force' in N (valid: "
     "power, hunt-crossley"},
    {"friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': missing required key 'law'"},
    {"normal_force = -2.0; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': 'normal_force'"},
    {"normal_force = 2.0;",
     "test.cfg:5: contact 'hair': 'normal_force' bounds the contact's friction, and it has none "
     "(valid: friction = { law = ...; } beside normal_force, or a normal law instead of "
     "normal_force)"},
    {"law = \"none\"; k = 1.0e7; normal_force = 2.0; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': 'k' is a normal law's parameter, and the contact has none"},
    {"normal_force = 2.0; scheme = \"am1\"; friction = { law = \"bow\"; mu_s = 0.8; mu_d = 0.3; "
     "v0 = 0.1; };",
     "test.cfg:5: contact 'hair': scheme 'am1' cannot step friction yet (valid: two-point, "
     "three-point, moreau-jean)"},
    {"normal_force = 2.0; friction = { law = \"stribeck\"; mu_s = 0.5; mu_k = 0.7; v_s = 0.01; };",
     "test.cfg:5: contact 'hair' friction: 'mu_k' = 0.7 is above 'mu_s' = 0.5 (valid: mu_k <= "
     "mu_s)"},
    {"normal_force = 2.0; friction = { law = \"stribeck\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.0; };",
     "test.cfg:5: contact 'hair' friction: 'v_s' = 0 (valid: > 0)"},
    {"normal_force = 2.0; friction = { law = \"stribeck\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; "
     "delta = 0.0; };",
     "test.cfg:5: contact 'hair' friction: 'delta' = 0 (valid: > 0)"},
    {"normal_force = 2.0; friction = { law = \"stribeck\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; "
     "viscous = -1.0; };",
     "test.cfg:5: contact 'hair' friction: 'viscous'"},
    {"normal_force = 2.0; friction = { law = \"stribeck\"; mu_s = 0.5; v_s = 0.01; };",
     "test.cfg:5: contact 'hair' friction: missing required key 'mu_k'"},
    {"normal_force = 2.0; friction = { law = \"bow\"; mu_s = 0.5; mu_d = 0.7; v0 = 0.1; };",
     "test.cfg:5: contact 'hair' friction: 'mu_d' = 0.7 is above 'mu_s' = 0.5 (valid: mu_d <= "
     "mu_s)"},
    {"normal_force = 2.0; friction = { law = \"bow\"; mu_s = 0.8; mu_d = 0.3; };",
     "test.cfg:5: contact 'hair' friction: missing required key 'v0'"},
    {"normal_force = 2.0; friction = { law = \"bow\"; mu_s = 0.8; mu_d = 0.3; v0 = 0.1; "
     "v_s = 0.1; };",
     "test.cfg:5: contact 'hair' friction: unknown key 'v_s'"},
    {"normal_force_drive = { type = \"sine\"; amplitude = 1.0; freq = 3.0; }; friction = { law = "
     "\"coulomb\"; mu_s = 0.5; }; law = \"power\"; k = 1.0e7; alpha = 1.0;",
     "test.cfg:5: contact 'hair': 'normal_force_drive' varies a prescribed normal force, and the "
     "contact has none (valid: normal_force = <N> beside it)"},
    {"normal_force = 2.0; normal_force_drive = { type = \"noise\"; amplitude = 1.0; };"
     " friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair': 'normal_force_drive' must be { type = \"sine\"; amplitude; "
     "freq; phase; } (N, Hz, rad) (valid: sine)"},
    {"normal_force = 2.0; normal_force_drive = { type = \"sine\"; amplitude = 1.0; freq = 3.0; "
     "speed = 2.0; }; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:5: contact 'hair' normal_force drive: unknown key 'speed'"},
    {"normal_force = 2.0; friction = { law = \"exponential\"; a = 0.0; };",
     "test.cfg:5: contact 'hair' friction: 'a' = 0 (valid: > 0)"},
    {"normal_force = 2.0; friction = { law = \"exponential\"; mu_s = 0.5; a = 100.0; };",
     "test.cfg:5: contact 'hair' friction: unknown key 'mu_s'"},
};

START_TEST(test_bad_input)
{
  char text[2048], err[512];
  snprintf(text, sizeof text,
           "scene = { name = \"bad\"; fs = 10000.0; duration = 0.01; };\n"
           "bodies = (\n"
           "  { name = \"bow\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.1; }; },\n"
           "  { name = \"block\"; type = \"mass\"; mass = 0.1; kw = 4000.0; } );\n"
           "contacts = ( { name = \"hair\"; between = [\"bow\", \"block\"]; %s%s } );\n",
           strstr(bad[_i].contact, "scheme") ? "" : "scheme = \"two-point\"; ", bad[_i].contact);
  vb_scene *sc = NULL;
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strncmp(err, bad[_i].want, strlen(bad[_i].want)) == 0, "got: %s\nwant: %s", err,
                bad[_i].want);
}
END_TEST

static Suite *
curves_suite(void)
{
  Suite *s = suite_create("friction_curves");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 240);
  tcase_add_loop_test(core, test_steady_sliding, 0, NCURVES);
  tcase_add_loop_test(core, test_energy_and_cone, 0, NCURVES + 2);
  tcase_add_test(core, test_normal_profile);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 120);
  tcase_add_test(limits, test_two_roots);
  tcase_add_loop_test(limits, test_random_local, 1, NCURVES);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, test_bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(curves_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
