/* check_elastoplastic.c - the elasto-plastic bristle law (issue 30, step 4;
 * lib/base/friction_law.c, its energy in lib/island/friction.c), against
 * references written here from the papers (Dupont, Hayward, Armstrong &
 * Altpeter, IEEE TAC 47(5), 2002; Avanzini, Serafin & Rocchesso, IEEE
 * TSAP 13(5), 2005), never from vibro's output:
 *   - the table row: its keys, its steady-state curve against the closed
 *     form, its stored energy;
 *   - the local problem of a step: 200,000 random problems (slips over
 *     six decades, deflections inside and beyond z_ss, N including 0):
 *     the force finite, the step's slip solving s = s_free + c ft, the
 *     deflection the midpoint rule of the bristle rate written again here,
 *     the force the model's at them;
 *   - presliding: a block on a spring under a wall vibrating below
 *     breakaway against the closed form of the linear system (the bristle
 *     an elastic spring of stiffness sigma0 N and damper (sigma1 + sigma2)
 *     N), with its observed order; the bristle equal to the relative
 *     displacement to round-off;
 *   - no drift (the paper's point): a block held by its bristle against a
 *     spring's pull under that vibration keeps its place to round-off over
 *     3 s, where the same law with z_ba = 0 (alpha > 0 at every deflection,
 *     the LuGre-like case) creeps;
 *   - the energy balance and the friction work: a block dropped on a belt
 *     (Hunt-Crossley, N varying and zero in flight: the bristle released)
 *     and two blocks stacked on a swinging belt (two coupled elasto-plastic
 *     contacts by Gauss-Seidel): the balance to round-off, no step's
 *     friction work negative, ft 0 in flight;
 *   - the loader's messages for what it refuses.
 * The squeak and a swinging wall against scipy are tests/run/elasto_ref.py. */
#include <float.h>
#include <math.h>
#include "../testutil.h"

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

/* ------------------------------------------- the model, written again
 * Dupont et al. 2002 with f_c = mu_k N, f_s = mu_s N (Avanzini et al.
 * 2005) and every force per newton of N. */
typedef struct {
  double mu_s, mu_k, v_s, s0, s1, s2, zba;
} ep_par;

static double
zss_ref(const ep_par *p, double v)
{
  return (p->mu_k + (p->mu_s - p->mu_k) * exp(-(v / p->v_s) * (v / p->v_s))) / p->s0;
}

/* z' = v (1 - alpha(z, v) z / z_ss(v)), z_ss signed as v */
static double
zdot_ref(const ep_par *p, double z, double v)
{
  if (v == 0.0)
    return 0.0;
  double zs = zss_ref(p, v), zb = p->zba * zs, al;
  if (z == 0.0 || (z > 0.0) != (v > 0.0) || fabs(z) <= zb)
    al = 0.0;
  else if (fabs(z) >= zs)
    al = 1.0;
  else
    al = 0.5 * (1.0 + sin(M_PI * (fabs(z) - 0.5 * (zs + zb)) / (zs - zb)));
  return v * (1.0 - al * z / (v > 0.0 ? zs : -zs));
}

static vb_friction
law_of(const ep_par *p)
{
  vb_friction f = {.kind = VB_FRICTION_ELASTOPLASTIC, .mu_s = p->mu_s, .mu_k = p->mu_k,
                   .v_s = p->v_s, .sigma0 = p->s0, .sigma1 = p->s1, .sigma2 = p->s2,
                   .z_ba = p->zba};
  return f;
}

/* ------------------------------------------------------------- the row */

START_TEST(test_row)
{
  const vb_friction_info *r = vb_friction_lookup("elasto-plastic");
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_eq(vb_friction_info_of(VB_FRICTION_ELASTOPLASTIC), r);
  ck_assert_int_eq(r->nstate, 2);
  ck_assert_ptr_nonnull(r->stored);
  ck_assert_ptr_nonnull(r->deflection);
  /* the other laws store nothing and have no bristle */
  for (int k = 1; k < VB_FRICTION_ELASTOPLASTIC; k++)
    ck_assert(vb_friction_info_of((vb_friction_kind)k)->stored == NULL &&
              vb_friction_info_of((vb_friction_kind)k)->deflection == NULL);
  static const char *const keys[] = {"mu_s", "mu_k", "v_s", "sigma0", "sigma1", "sigma2", "z_ba"};
  int n = 0;
  for (const vb_friction_param *p = r->params; p->key; p++, n++)
    ck_assert_str_eq(p->key, keys[n]);
  ck_assert_int_eq(n, 7);
  ep_par p = {0.71, 0.33, 0.0173, 2.385e4, 1.7, 0.23, 0.61};
  vb_friction law = law_of(&p);
  char why[256];
  ck_assert(r->valid(&law, why, sizeof why));
  /* the steady state: z' = 0 at z = z_ss, so |ft| / N = sigma0 |z_ss| + sigma2 |s| */
  for (double v = -0.3; v <= 0.3; v += 0.00737) {
    double want = p.mu_k + (p.mu_s - p.mu_k) * exp(-(v / p.v_s) * (v / p.v_s)) + p.s2 * fabs(v);
    ck_assert_double_eq_tol(r->curve(&law, v), want, 1e-15);
  }
  double st[2];
  r->start(&law, 0.013, st);
  ck_assert_double_eq(st[0], 0.0);
  ck_assert_double_eq(r->stored(&law, 2.5, st), 0.0);
  st[0] = -3.1e-6;
  ck_assert_double_eq_tol(r->stored(&law, 2.5, st), 0.5 * 2.5 * p.s0 * 3.1e-6 * 3.1e-6, 1e-25);
  ck_assert_double_eq(r->deflection(st), -3.1e-6);
  ck_assert(!r->sticks(st));
}
END_TEST

/* ------------------------------------------------ the local problem */

static double
uniform(unsigned long *x, double lo, double hi)
{
  *x = *x * 6364136223846793005UL + 1442695040888963407UL;
  return lo + (hi - lo) * (double)(*x >> 11) / 9007199254740992.0;
}

START_TEST(test_random_local)
{
  const vb_friction_info *r = vb_friction_lookup("elasto-plastic");
  unsigned long seed = 20261202UL;
  double worst_s = 0.0, worst_z = 0.0, worst_f = 0.0;
  int zeros = 0, beyond = 0;
  for (int k = 0; k < 200000; k++) {
    ep_par p = {0.0, uniform(&seed, 0.05, 0.6), pow(10.0, uniform(&seed, -3.5, -0.5)),
                pow(10.0, uniform(&seed, 2.0, 7.0)), 0.0, 0.0, uniform(&seed, 0.0, 0.95)};
    p.mu_s = p.mu_k + uniform(&seed, 0.0, 0.6);
    p.s1 = uniform(&seed, 0.0, 1.0) < 0.2 ? 0.0 : pow(10.0, uniform(&seed, -3.0, 2.0));
    p.s2 = uniform(&seed, 0.0, 1.0) < 0.5 ? 0.0 : pow(10.0, uniform(&seed, -3.0, 1.0));
    vb_friction law = law_of(&p);
    double n = uniform(&seed, 0.0, 1.0) < 0.05 ? 0.0 : pow(10.0, uniform(&seed, -2.0, 2.0));
    double sf = (uniform(&seed, 0.0, 1.0) < 0.5 ? -1.0 : 1.0) * pow(10.0, uniform(&seed, -6.0, 0.0));
    double c = pow(10.0, uniform(&seed, -5.0, 1.0)), dt = pow(10.0, uniform(&seed, -6.0, -3.0));
    double z0 = uniform(&seed, -2.0, 2.0) * p.mu_s / p.s0, st[2] = {z0, 0.0};
    int broke = 0;
    beyond += fabs(z0) > zss_ref(&p, sf);
    double ft = r->local(&law, n, sf, c, dt, &broke, st);
    ck_assert_msg(isfinite(ft) && isfinite(st[0]) && isfinite(st[1]), "problem %d: not finite", k);
    if (n == 0.0) {
      ck_assert_double_eq(ft, 0.0);
      ck_assert_double_eq(st[0], 0.0);
      zeros++;
      continue;
    }
    double v = st[1], z1 = st[0];
    /* the slip of the step: s = s_free + c ft */
    /* (relative to what the rounding of v and of z1 moves it by: the slope
     * 1 + c n (sigma0 dt/2 + sigma1 + sigma2) in the elastic range, and c n
     * (sigma0/2 + sigma1/dt) per metre of z) */
    double es = fabs(v - sf - c * ft) /
                (fabs(v) * (1.0 + c * n * (0.5 * p.s0 * dt + p.s1 + p.s2)) + fabs(sf) +
                 fabs(c * ft) + c * n * (0.5 * p.s0 + p.s1 / dt) * (fabs(z0) + fabs(z1)));
    /* the midpoint rule of the bristle: z1 - z0 = dt z'((z0 + z1)/2, v) */
    /* (less the rounding of z1 itself: z0 + dz keeps dz to an ulp of z0) */
    double ez = fmax(0.0, fabs(z1 - z0 - dt * zdot_ref(&p, 0.5 * (z0 + z1), v)) -
                              4.0 * DBL_EPSILON * (fabs(z0) + fabs(z1))) /
                (fabs(z1 - z0) + fabs(dt * v) + DBL_MIN);
    /* the model's force at them */
    double want = -n * (p.s0 * 0.5 * (z0 + z1) + p.s1 * (z1 - z0) / dt + p.s2 * v);
    double ef = fabs(ft - want) / (n * (p.s0 * fabs(0.5 * (z0 + z1)) + p.s1 * fabs(z1 - z0) / dt +
                                        p.s2 * fabs(v)) + DBL_MIN);
    worst_s = fmax(worst_s, es);
    worst_z = fmax(worst_z, ez);
    worst_f = fmax(worst_f, ef);
    ck_assert_msg(es <= 1e-12 && ez <= 1e-12 && ef <= 1e-12,
                  "problem %d: slip %.3g, bristle %.3g, force %.3g (n %g sf %g c %g dt %g z0 %g)",
                  k, es, ez, ef, n, sf, c, dt, z0);
  }
  printf("local: 200000 problems (%d with N = 0, %d starting beyond z_ss): the slip equation to "
         "%.3g, the bristle's midpoint rule to %.3g, the force to %.3g (relative)\n",
         zeros, beyond, worst_s, worst_z, worst_f);
  ck_assert_int_gt(beyond, 10000);
}
END_TEST

/* -------------------------------------------------------- presliding
 * A block (M_B, spring KW_B to ground, damper CW_B) pressed with N_B under
 * a wall vibrating as A_B sin(2 pi F_B t), its bristle below breakaway
 * throughout: ft = -N (sigma0 z + (sigma1 + sigma2) s) with z = w - W
 * exactly, so that
 *   m w'' + (cw + N c1) w' + (kw + N sigma0) w = N sigma0 W + N c1 W',
 * c1 = sigma1 + sigma2, solved here in closed form. */
#define M_B 0.05
#define KW_B 3000.0
#define CW_B 0.02
#define N_B 2.0
#define A_B 1.0e-6
#define F_B 37.0
static const ep_par pre = {0.5, 0.3, 0.01, 1.0e5, 0.7, 0.05, 0.7};

static double
presliding_exact(double t, double w0, double vw0)
{
  double O = 2.0 * M_PI * F_B, c1 = pre.s1 + pre.s2;
  double K = KW_B + N_B * pre.s0, C = CW_B + N_B * c1;
  /* the particular solution Im(H A e^(i O t)) */
  double hr = N_B * pre.s0, hi = N_B * O * c1, dr = K - M_B * O * O, di = O * C;
  double d2 = dr * dr + di * di, Hr = (hr * dr + hi * di) / d2, Hi = (hi * dr - hr * di) / d2;
  double wp = A_B * (Hr * sin(O * t) + Hi * cos(O * t));
  double wp0 = A_B * Hi, vp0 = A_B * O * Hr;
  /* the homogeneous one, underdamped, matching w0 and vw0 */
  double g = C / (2.0 * M_B), wd = sqrt(K / M_B - g * g);
  double a = w0 - wp0, b = (vw0 - vp0 + g * a) / wd;
  return wp + exp(-g * t) * (a * cos(wd * t) + b * sin(wd * t));
}

static char *
presliding_text(double fs, double duration, double w0, double zba)
{
  char *t = malloc(2048);
  snprintf(t, 2048,
           "scene = { name = \"presliding\"; fs = %.17g; duration = %.17g; };\n"
           "bodies = (\n"
           "  { name = \"wall\"; type = \"wall\"; w_drive = { type = \"sine\"; amplitude = %.17g; "
           "freq = %.17g; }; },\n"
           "  { name = \"block\"; type = \"mass\"; mass = %.17g; w0 = %.17g; kw = %.17g; cw = "
           "%.17g; } );\n"
           "contacts = ( { name = \"rub\"; between = [\"wall\", \"block\"]; normal_force = %.17g;\n"
           "  scheme = \"two-point\"; friction = { law = \"elasto-plastic\"; mu_s = %.17g; mu_k = "
           "%.17g; v_s = %.17g; sigma0 = %.17g; sigma1 = %.17g; sigma2 = %.17g; z_ba = %.17g; "
           "}; } );\n",
           fs, duration, A_B, F_B, M_B, w0, KW_B, CW_B, N_B, pre.mu_s, pre.mu_k, pre.v_s, pre.s0,
           pre.s1, pre.s2, zba);
  return t;
}

START_TEST(test_presliding)
{
  static const double rates[] = {11025.0, 22050.0, 44100.0, 88200.0};
  double err[4];
  for (int r = 0; r < 4; r++) {
    char *text = presliding_text(rates[r], 0.2, 0.0, pre.zba);
    tu_sim s = tu_run_text(text);
    free(text);
    ck_assert_int_eq(s.rc, VB_OK);
    long n = vb_run_samples(s.run);
    const double *w = signal_of(&s, VB_SIGNAL_POINT, "w", 1);
    const double *z = signal_of(&s, VB_SIGNAL_CONTACT, "bristle", 0);
    const double *slip = signal_of(&s, VB_SIGNAL_CONTACT, "slip", 0);
    const double *work = signal_of(&s, VB_SIGNAL_CONTACT, "friction_work", 0);
    const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", 0);
    const double *pot = vb_run_energy(s.run, VB_ENERGY_POTENTIAL);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(z);
    double e = 0.0, ez = 0.0, zmax = 0.0, wmax = 0.0, bound = INFINITY, ew = 0.0, ep = 0.0;
    double h = 1.0 / rates[r];
    for (long j = 0; j < n; j++) {
      double t = (double)j / rates[r], W = A_B * sin(2.0 * M_PI * F_B * t);
      e = fmax(e, fabs(w[j] - presliding_exact(t, 0.0, 0.0)));
      ez = fmax(ez, fabs(z[j] - (w[j] - W)));
      zmax = fmax(zmax, fabs(z[j]));
      wmax = fmax(wmax, fabs(w[j]));
      if (j > 0) {
        bound = fmin(bound, pre.zba * zss_ref(&pre, slip[j]));
        /* elastic: the step's friction work is the dampers' alone, N (sigma1 +
         * sigma2) s^2 dt, the bristle's N sigma0 z^2/2 being stored */
        double d = N_B * (pre.s1 + pre.s2) * slip[j] * slip[j] * h;
        /* (relative to |ft| (|s| + A Omega) dt: the step's solve holds the slip
         * to the rounding of the free slip, of order the wall's rate, and
         * the split of the work follows it) */
        ew = fmax(ew, fabs(work[j] - work[j - 1] - d) /
                          (fabs(ft[j]) * (fabs(slip[j]) + 2.0 * M_PI * F_B * A_B) * h));
      }
      /* the potential energy: the spring's (its pre-warped stiffness, 4/dt^2
       * tan^2(omega dt / 2) m, undamped here: the family warps the damped
       * pair, an O(dt^2) difference of 1e-10 of the bristle's energy at 11
       * kHz) and the bristle's (without it the difference would be 1) */
      double om = sqrt(KW_B / M_B), kwarp = 4.0 / (h * h) * pow(tan(0.5 * om * h), 2.0) * M_B;
      ep = fmax(ep, fabs(pot[j] - 0.5 * kwarp * w[j] * w[j] - 0.5 * N_B * pre.s0 * z[j] * z[j]) /
                        (0.5 * N_B * pre.s0 * zmax * zmax + 1e-300));
    }
    err[r] = e;
    printf("presliding fs %6.0f: each step's friction work N (sigma1 + sigma2) s^2 dt to %.3g "
           "of |ft| (|s| + A Omega) dt; the potential energy the spring's and N sigma0 z^2/2 "
           "to %.3g of the bristle's largest\n",
           rates[r], ew, ep);
    ck_assert_double_le(ew, 1e-9);
    ck_assert_double_le(ep, 1e-9);
    printf("presliding fs %6.0f: max |w - w_exact| %.3e m (of %.3e), |z - (w - W)| %.3g m, "
           "max |z| %.3g m below z_ba |z_ss| %.3g m\n",
           rates[r], e, wmax, ez, zmax, bound);
    /* elastic throughout: the bristle is the relative displacement */
    ck_assert_double_lt(zmax, bound);
    ck_assert_double_le(ez, 16.0 * DBL_EPSILON * A_B * sqrt((double)n));
    tu_free(&s);
  }
  double order = log(err[0] / err[3]) / log(8.0);
  printf("presliding: observed order %.2f (errors %.3e, %.3e, %.3e, %.3e)\n", order, err[0], err[1],
         err[2], err[3]);
  ck_assert_double_ge(order, 1.9);
  ck_assert_double_le(err[3], 1e-3 * A_B);
}
END_TEST

/* No drift: the block starts 0.3 mu_k N / kw away from its spring's rest
 * and its bristle holds it there (with a deflection within z_ba |z_ss|)
 * while the wall vibrates.  Elastic: w - W - z, the block's plastic slip on
 * the wall, stays at w0 to round-off.  With z_ba = 0, alpha > 0 at any
 * deflection and the block creeps towards its rest. */
START_TEST(test_no_drift)
{
  double w0 = 0.3 * pre.mu_k * N_B / KW_B, creep[2];
  for (int k = 0; k < 2; k++) {
    char *text = presliding_text(44100.0, 3.0, w0, k == 0 ? pre.zba : 0.0);
    tu_sim s = tu_run_text(text);
    free(text);
    ck_assert_int_eq(s.rc, VB_OK);
    long n = vb_run_samples(s.run);
    const double *w = signal_of(&s, VB_SIGNAL_POINT, "w", 1);
    const double *z = signal_of(&s, VB_SIGNAL_CONTACT, "bristle", 0);
    double plastic = 0.0;
    for (long j = 0; j < n; j++) {
      double t = (double)j / 44100.0, W = A_B * sin(2.0 * M_PI * F_B * t);
      plastic = fmax(plastic, fabs(w[j] - W - z[j] - w0));
    }
    creep[k] = plastic;
    printf("no drift (z_ba %.2g): the block's plastic slip, max |w - W - z - w0|, %.3g m over "
           "3 s (w0 %.3g m)\n",
           k == 0 ? pre.zba : 0.0, plastic, w0);
    if (k == 0) {
      ck_assert_double_le(plastic, 16.0 * DBL_EPSILON * w0 * sqrt((double)n));
    }
    tu_free(&s);
  }
  /* the LuGre-like law creeps, by far more than round-off */
  ck_assert_double_gt(fabs(creep[1]), 1e-9);
}
END_TEST

/* ------------------------------------------------------ energy account */

static const char *const energy_scenes[] = {
    /* a block dropped on a belt: N from Hunt-Crossley, zero in flight */
    "scene = { name = \"drop\"; fs = 44100.0; duration = 0.6; gravity = 9.81; };\n"
    "bodies = (\n"
    "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.07; }; },\n"
    "  { name = \"block\"; type = \"mass\"; mass = 0.05; u0 = 0.002; w0 = 0.0; kw = 900.0; cw = "
    "0.03; } );\n"
    "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; law = \"hunt-crossley\"; "
    "k = 3.0e6; alpha = 1.5; mu = 0.3; scheme = \"two-point\";\n"
    "  friction = { law = \"elasto-plastic\"; mu_s = 0.62; mu_k = 0.31; v_s = 0.011; sigma0 = "
    "4.1e4; sigma1 = 1.3; sigma2 = 0.02; z_ba = 0.55; }; } );\n",
    /* two blocks stacked on a swinging belt: two coupled contacts */
    "scene = { name = \"stack\"; fs = 44100.0; duration = 0.5; };\n"
    "bodies = (\n"
    "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"sine\"; amplitude = 0.004; freq = "
    "4.3; }; },\n"
    "  { name = \"low\"; type = \"mass\"; mass = 0.2; w0 = 0.0; kw = 700.0; cw = 0.1; },\n"
    "  { name = \"top\"; type = \"mass\"; mass = 0.07; w0 = 0.0; kw = 150.0; } );\n"
    "contacts = ( { name = \"base\"; between = [\"belt\", \"low\"]; normal_force = 2.6; scheme = "
    "\"two-point\";\n"
    "  friction = { law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.02; sigma0 = "
    "6.0e4; sigma1 = 0.9; sigma2 = 0.0; z_ba = 0.6; }; },\n"
    "  { name = \"pile\"; between = [\"low\", \"top\"]; normal_force = 0.69; scheme = "
    "\"two-point\";\n"
    "  friction = { law = \"elasto-plastic\"; mu_s = 0.7; mu_k = 0.4; v_s = 0.013; sigma0 = "
    "3.0e4; sigma1 = 0.4; sigma2 = 0.1; z_ba = 0.8; }; } );\n",
};

START_TEST(test_energy)
{
  tu_sim s = tu_run_text(energy_scenes[_i]);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  const double *tot = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *dis = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  const double *ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
  double worst = 0.0, through = fabs(tot[0]);
  for (long j = 0; j < n; j++) {
    worst = fmax(worst, fabs(tot[j] + dis[j] - ext[j] - tot[0]));
    through = fmax(through, fabs(dis[j]) + fabs(ext[j]));
  }
  printf("%s: balance %.3g J of %.3g J through (%.3g)\n", s.scene->name, worst, through,
         worst / through);
  ck_assert_double_le(worst, 16.0 * DBL_EPSILON * through * sqrt((double)n));
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", c);
    const double *nf = signal_of(&s, VB_SIGNAL_CONTACT, "force", c);
    const double *work = signal_of(&s, VB_SIGNAL_CONTACT, "friction_work", c);
    const double *z = signal_of(&s, VB_SIGNAL_CONTACT, "bristle", c);
    double wmin = INFINITY, fmaxn = 0.0;
    long flight = 0;
    for (long j = 1; j < n; j++) {
      wmin = fmin(wmin, work[j] - work[j - 1]);
      double N = s.scene->contacts[c].normal_given ? s.scene->contacts[c].normal_force
                                                   : (nf[j] > 0.0 ? nf[j] : 0.0);
      if (N == 0.0) {
        ck_assert_double_eq(ft[j], 0.0);
        ck_assert_double_eq(z[j], 0.0); /* the bristle released */
        flight++;
      } else
        fmaxn = fmax(fmaxn, fabs(ft[j]) / N);
    }
    printf("  contact %s: least step friction work %.3g J, friction work %.6g J; |ft|/N at most "
           "%.4g; %ld samples with N = 0\n",
           s.scene->contacts[c].name, wmin, work[n - 1], fmaxn, flight);
    ck_assert_double_ge(wmin, 0.0);
    ck_assert_double_gt(work[n - 1], 0.0);
    if (_i == 0)
      ck_assert_int_gt(flight, 100);
  }
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------- errors */

static const struct {
  const char *friction, *want;
} bad[] = {
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 0.7;",
     NULL},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma1 = 1.0; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: missing required key 'sigma0'"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 0.0; sigma1 = 1.0; "
     "z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'sigma0' = 0 (valid: > 0, 1/m)"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "-1.0; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'sigma1'"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; sigma2 = -0.5; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'sigma2'"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 1.0;",
     "test.cfg:6: contact 'hair' friction: 'z_ba' = 1 (valid: >= 0 and < 1, a fraction of the "
     "steady-state deflection)"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = -0.1;",
     "test.cfg:6: contact 'hair' friction: 'z_ba'"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.0; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'mu_k' = 0 (valid: > 0: the steady-state deflection "
     "z_ss must be > 0)"},
    {"law = \"elasto-plastic\"; mu_s = 0.3; mu_k = 0.5; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'mu_k' = 0.5 is above 'mu_s' = 0.3 (valid: mu_k <= "
     "mu_s)"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.0; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 0.7;",
     "test.cfg:6: contact 'hair' friction: 'v_s' = 0 (valid: > 0)"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0; z_ba = 0.7; delta = 2.0;",
     "test.cfg:6: contact 'hair' friction: unknown key 'delta'"},
    {"law = \"elasto-plastic\"; mu_s = 0.5; mu_k = 0.3; v_s = 0.01; sigma0 = 1.0e5; sigma1 = "
     "1.0;",
     "test.cfg:6: contact 'hair' friction: missing required key 'z_ba'"},
    {"law = \"elastoplastic\"; mu_s = 0.5;",
     "test.cfg:6: contact 'hair' friction: unknown friction law 'elastoplastic' (valid: "
     "coulomb, stribeck, bow, exponential, elasto-plastic)"},
};

START_TEST(test_bad_input)
{
  char text[2048], err[512];
  snprintf(text, sizeof text,
           "scene = { name = \"bad\"; fs = 10000.0; duration = 0.01; };\n"
           "bodies = (\n"
           "  { name = \"plate\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.1; }; },\n"
           "  { name = \"block\"; type = \"mass\"; mass = 0.1; kw = 4000.0; } );\n"
           "contacts = ( { name = \"hair\"; between = [\"plate\", \"block\"]; normal_force = 1.5; "
           "scheme = \"two-point\";\n  friction = { %s }; } );\n",
           bad[_i].friction);
  vb_scene *sc = NULL;
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);
  if (!bad[_i].want) { /* the good one the others spoil */
    ck_assert_msg(rc == VB_OK, "%s", err);
    vb_scene_free(sc);
    return;
  }
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strncmp(err, bad[_i].want, strlen(bad[_i].want)) == 0, "got: %s\nwant: %s", err,
                bad[_i].want);
}
END_TEST

static Suite *
elastoplastic_suite(void)
{
  Suite *s = suite_create("elastoplastic");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 240);
  tcase_add_test(core, test_row);
  tcase_add_test(core, test_presliding);
  tcase_add_test(core, test_no_drift);
  tcase_add_loop_test(core, test_energy, 0, (int)(sizeof energy_scenes / sizeof energy_scenes[0]));
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 120);
  tcase_add_test(limits, test_random_local);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, test_bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(elastoplastic_suite());
}
