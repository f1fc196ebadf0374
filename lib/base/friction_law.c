/* friction_law.c - the friction laws' table (issue 30, step 1;
 * doc/friction.md): one row per law, every fact about it there (its name,
 * parameters, local problem of a step, state, what it holds while
 * sticking), as law.c's rows are the normal laws'.  The step
 * (friction.c, solvers/friction_solve.c) reaches a law through its row
 * alone.
 *
 * The law (Coulomb with static and kinetic coefficients, exact stick).
 * With slip rate s = d(w_b - w_a)/dt at the contact and normal force N >= 0,
 *   |ft| <= mu_s N        when s = 0 (stick),
 *   ft = -mu_k N sgn(s)   when s != 0 (slip),
 * C.A. Coulomb, "Theorie des machines simples", 1785 (static and kinetic
 * friction); as a set-valued law, J.J. Moreau, "Unilateral contact and dry
 * friction in finite freedom dynamics", CISM Courses 302, 1988, and V.
 * Acary & B. Brogliato, "Numerical Methods for Nonsmooth Dynamical
 * Systems", Springer 2008, section 3.9 (Coulomb's friction in the plane);
 * the stick test on the static coefficient is Karnopp's (D. Karnopp,
 * J. Dyn. Syst. Meas. Control 107, 1985).  Never a viscous regularisation:
 * stick is exact (the step's slip is zero to round-off).
 *
 * The curves (issue 30, step 3): laws whose coefficient while slipping is
 * a function of the slip rate, |ft| = N mu(|s|), with the same exact,
 * set-valued stick |ft| <= mu_s N at s = 0 (mu(0+) = mu_s: the force is
 * continuous through a transition):
 *   stribeck  mu(x) = mu_k + (mu_s - mu_k) exp(-(x / v_s)^delta) + viscous x
 *             (B. Armstrong-Helouvry, P. Dupont, C. Canudas de Wit, "A
 *             survey of models, analysis tools and compensation methods for
 *             the control of machines with friction", Automatica 30 (1994)
 *             1083-1138, the Stribeck curve with the exponent delta_S of
 *             their static friction model; H. Olsson, K.J. Astrom, C.
 *             Canudas de Wit, M. Gafvert, P. Lischinsky, "Friction models
 *             and friction compensation", Eur. J. Control 4 (1998) 176-195,
 *             the same curve with the viscous term F_v v).  The viscous term
 *             is per newton of normal force (s/m): the whole force scales
 *             with N, so a contact that lifts off drags nothing;
 *   bow       mu(x) = mu_d + (mu_s - mu_d) v0 / (v0 + x), the hyperbolic
 *             friction curve of rosin fitted to steady sliding (J.H. Smith,
 *             J. Woodhouse, "The tribology of rosin", J. Mech. Phys. Solids
 *             48 (2000) 1633-1681), the "friction curve model" of bowed-
 *             string simulation (J. Woodhouse, "Bowed string simulation
 *             using a thermal friction model", Acta Acustica 89 (2003)
 *             355-368, the model it is compared with).
 * Their local problem of a step (curve_local below) is a scalar nonlinear
 * equation in the slip, solved on bracketed monotone pieces.
 *   exponential  ft = -N phi(s), phi(v) = sqrt(2 a) v exp(-a v^2 + 1/2), a
 *             smooth law with no stick set (phi(0) = 0, its peak 1 at |v| =
 *             1/sqrt(2 a)): the bow's friction characteristic of M. Desvages,
 *             S. Bilbao, "Two-polarisation physical model of bowed strings
 *             with nonlinear contact and friction forces, and application to
 *             gesture-based sound synthesis", Applied Sciences 6 (2016) 135
 *             (after S. Bilbao, "Numerical Sound Synthesis", Wiley 2009, the
 *             bowed string's friction characteristic).  A regularised law by
 *             nature, so it is taken as it is: its local problem is the same
 *             slip equation without the stick branch.
 * The elasto-plastic bristle law (issue 30, step 4; below, with its
 * papers): a smooth law with a state, the bristle deflection z per
 * contact, stepped with the slip by the midpoint rule; its stored energy
 * is the row's `stored`, which the step keeps in the potential energy. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vibro.h"

/* Coulomb's local problem of a step (the header's discretisation): the
 * projection of the sticking force on the static cone, else the kinetic
 * force in its direction; once the contact has broken free in this step's
 * solve (*broke), the projection on the kinetic cone (which for one
 * contact is the same answer: its sticking force is outside the static
 * cone, so outside the kinetic one).  State: 1 while sticking, 0 while
 * slipping. */
static double
coulomb_local(const vb_friction *law, double n, double s_free, double c, double dt, int *broke,
              double *st)
{
  (void)dt;
  double stick = -s_free / c;
  if (fabs(stick) <= (*broke ? law->mu_k : law->mu_s) * n) {
    st[0] = 1.0;
    return stick;
  }
  *broke = 1;
  st[0] = 0.0;
  return copysign(law->mu_k * n, stick);
}

static void
coulomb_start(const vb_friction *law, double s0, double *st)
{
  (void)law;
  st[0] = s0 == 0.0 ? 1.0 : 0.0;
}

static int
coulomb_sticks(const double *st)
{
  return st[0] != 0.0;
}

static double
coulomb_hold(const vb_friction *law, double n)
{
  return law->mu_s * n;
}

/* mu_k <= mu_s: a kinetic coefficient above the static one would stick a
 * slipping contact that could not stay stuck. */
static int
coulomb_valid(const vb_friction *law, char *why, size_t len)
{
  if (law->mu_k <= law->mu_s)
    return 1;
  snprintf(why, len, "'mu_k' = %g is above 'mu_s' = %g (valid: mu_k <= mu_s)", law->mu_k,
           law->mu_s);
  return 0;
}


/* ---------------------------------------------------------- the curves */

/* A curve's coefficient, its slope, and where its slope is least: mu' is
 * decreasing on [0, xm] and increasing on [xm, inf) for both curves, so
 * that h(x) = x - S + cn mu(x) below has at most three monotone pieces. */
typedef struct {
  double (*mu)(const vb_friction *law, double x);
  double (*dmu)(const vb_friction *law, double x);
  double xm;
} curve_fn;

/* Stribeck: mu_k + (mu_s - mu_k) exp(-(x/v_s)^delta) + viscous x. */
static double
stribeck_mu(const vb_friction *law, double x)
{
  return law->mu_k + (law->mu_s - law->mu_k) * exp(-pow(x / law->v_s, law->delta)) +
         law->viscous * x;
}

/* Its slope: -(mu_s - mu_k) (delta / v_s) (x/v_s)^(delta-1) exp(-(x/v_s)^delta)
 * + viscous (-inf at 0 for delta < 1, the curve's vertical tangent). */
static double
stribeck_dmu(const vb_friction *law, double x)
{
  double z = x / law->v_s, fall = law->mu_s - law->mu_k;
  if (fall == 0.0)
    return law->viscous;
  return -fall * law->delta / law->v_s * pow(z, law->delta - 1.0) * exp(-pow(z, law->delta)) +
         law->viscous;
}

/* Where the Stribeck slope is least: mu'' = 0 at (x/v_s)^delta = (delta -
 * 1)/delta for delta > 1; for delta <= 1 the slope only rises. */
static double
stribeck_xm(const vb_friction *law)
{
  return law->delta > 1.0 ? law->v_s * pow((law->delta - 1.0) / law->delta, 1.0 / law->delta)
                          : 0.0;
}

/* The bow's hyperbola: mu_d + (mu_s - mu_d) v0 / (v0 + x) (mu_d in mu_k,
 * v0 in v_s); convex, its slope rises from -(mu_s - mu_d) / v0. */
static double
bow_mu(const vb_friction *law, double x)
{
  return law->mu_k + (law->mu_s - law->mu_k) * law->v_s / (law->v_s + x);
}

static double
bow_dmu(const vb_friction *law, double x)
{
  double d = law->v_s + x;
  return -(law->mu_s - law->mu_k) * law->v_s / (d * d);
}

/* The slope h'(x) = 1 + cn mu'(x) of the slip equation. */
static double
hslope(const curve_fn *cf, const vb_friction *law, double cn, double x)
{
  return 1.0 + cn * cf->dmu(law, x);
}

/* The zero of h' on [lo, hi], where h' is monotone and changes sign
 * (bisection to the last bit: its place only splits h into pieces). */
static double
slope_zero(const curve_fn *cf, const vb_friction *law, double cn, double lo, double hi)
{
  double slo = hslope(cf, law, cn, lo);
  for (int it = 0; it < 200 && hi - lo > 0.0; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi)
      break;
    double sm = hslope(cf, law, cn, mid);
    if ((sm < 0.0) == (slo < 0.0))
      lo = mid, slo = sm;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* The root of h(x) = x - S + cn mu(x) in [lo, hi], h increasing there
 * with h(lo) <= 0 <= h(hi): Newton kept inside the bracket, bisection when
 * a Newton step would leave it (never NaN: the bracket only shrinks). */
static double
slip_root(const curve_fn *cf, const vb_friction *law, double S, double cn, double lo, double hi)
{
  double x = 0.5 * (lo + hi);
  for (int it = 0; it < 200; it++) {
    double h = x - S + cn * cf->mu(law, x);
    if (h == 0.0)
      return x;
    if (h < 0.0)
      lo = x;
    else
      hi = x;
    double d = hslope(cf, law, cn, x), next = x - h / d;
    if (!(d > 0.0) || !(next > lo && next < hi))
      next = 0.5 * (lo + hi);
    if (fabs(next - x) <= 2.0 * DBL_EPSILON * fabs(x) || hi - lo <= 2.0 * DBL_EPSILON * hi) {
      x = next;
      break;
    }
    x = next;
  }
  return x;
}

/* The slip magnitude x of a step under a curve: the stable roots of
 *   h(x) = x - S + cn mu(x) = 0,  x in (0, S]
 * (S = |s_free|, cn = c n: s = sgn(s_free) x, |ft| = n mu(x)), those where
 * h rises (1 + cn mu' >= 0; a falling root is the unstable middle one of
 * three, which no motion reaches).  A curve that falls faster than the
 * step's compliance holds (cn |mu'| > 1 somewhere) may give two stable
 * roots: the choice keeps the branch the contact was on, as the
 * hysteresis of the bowed string's friction-curve model (M.E. McIntyre,
 * R.T. Schumacher, J. Woodhouse, "On the oscillations of musical
 * instruments", JASA 74 (1983) 1325-1345, the jump rule of Friedlander's
 * construction): slipping this way at the step's start with |s| = p, the
 * stable root next to p along h (below p if h(p) >= 0, above it if not);
 * coming from stick (or the other way), the smallest, the one joined to
 * the stick as the load rises.  -1 when h has no root (only after the
 * contact broke free in this step's solve while it could stick: h(0) >=
 * 0). */
static double
curve_slip(const curve_fn *cf, const vb_friction *law, double S, double cn, double p)
{
  double pts[4], root[3];
  int np = 0, nr = 0;
  double m = fmin(cf->xm, S);
  pts[np++] = 0.0;
  if (m > 0.0 && hslope(cf, law, cn, 0.0) > 0.0 && hslope(cf, law, cn, m) < 0.0)
    pts[np++] = slope_zero(cf, law, cn, 0.0, m);
  if (hslope(cf, law, cn, m) < 0.0 && hslope(cf, law, cn, S) > 0.0)
    pts[np++] = slope_zero(cf, law, cn, m, S);
  pts[np++] = S;
  for (int k = 0; k + 1 < np; k++) {
    double lo = pts[k], hi = pts[k + 1];
    if (!(hi > lo))
      continue;
    double hlo = lo - S + cn * cf->mu(law, lo), hhi = hi - S + cn * cf->mu(law, hi);
    if (hslope(cf, law, cn, 0.5 * (lo + hi)) < 0.0 || !(hlo <= 0.0 && hhi >= 0.0))
      continue; /* a falling piece, or no root on it */
    root[nr++] = hlo == 0.0 && lo > 0.0 ? lo : slip_root(cf, law, S, cn, lo, hi);
  }
  if (nr == 0)
    return -1.0;
  if (p > 0.0 && nr > 1) {
    double hp = p - S + cn * cf->mu(law, fmin(p, S));
    if (hp >= 0.0 || p >= S) {
      for (int k = nr - 1; k >= 0; k--)
        if (root[k] <= p)
          return root[k];
    } else {
      for (int k = 0; k < nr; k++)
        if (root[k] >= p)
          return root[k];
    }
  }
  return root[0];
}

/* A curve's local problem of a step.  Stick (s = 0, the force -s_free / c)
 * while that force is within mu_s n and the contact has not broken free
 * in this step's solve; else the slip on the curve (curve_slip), which a
 * contact that broke free keeps while one exists.  State: st[0] 1 while
 * sticking, st[1] the step's signed mean slip (the branch's memory). */
static double
curve_local(const curve_fn *cf, const vb_friction *law, double n, double s_free, double c,
            int *broke, double *st)
{
  double stick = -s_free / c;
  int can_stick = fabs(stick) <= law->mu_s * n;
  if (n <= 0.0 || s_free == 0.0) {
    st[0] = s_free == 0.0;
    st[1] = s_free;
    return 0.0;
  }
  if (can_stick && !*broke) {
    st[0] = 1.0;
    st[1] = 0.0;
    return stick;
  }
  double sigma = s_free > 0.0 ? 1.0 : -1.0, S = fabs(s_free);
  double p = st[0] == 0.0 && st[1] * sigma > 0.0 ? fabs(st[1]) : 0.0;
  double x = curve_slip(cf, law, S, c * n, p);
  if (x < 0.0) { /* broke free in an earlier sweep, and no slip solves it now */
    st[0] = 1.0;
    st[1] = 0.0;
    return stick;
  }
  *broke = 1;
  st[0] = 0.0;
  st[1] = sigma * x;
  return -sigma * n * cf->mu(law, x);
}

static void
curve_start(const vb_friction *law, double s0, double *st)
{
  (void)law;
  st[0] = s0 == 0.0 ? 1.0 : 0.0;
  st[1] = s0;
}

static double
stribeck_local(const vb_friction *law, double n, double s_free, double c, double dt, int *broke,
               double *st)
{
  (void)dt;
  curve_fn cf = {stribeck_mu, stribeck_dmu, stribeck_xm(law)};
  return curve_local(&cf, law, n, s_free, c, broke, st);
}

static double
bow_local(const vb_friction *law, double n, double s_free, double c, double dt, int *broke,
          double *st)
{
  (void)dt;
  curve_fn cf = {bow_mu, bow_dmu, 0.0};
  return curve_local(&cf, law, n, s_free, c, broke, st);
}

/* Desvages & Bilbao's phi(x) = sqrt(2 a) x exp(-a x^2 + 1/2), x >= 0, and
 * its slope, which falls on [0, sqrt(3 / (2 a))] and rises beyond. */
static double
exponential_mu(const vb_friction *law, double x)
{
  return sqrt(2.0 * law->a) * x * exp(0.5 - law->a * x * x);
}

static double
exponential_dmu(const vb_friction *law, double x)
{
  double ax2 = law->a * x * x;
  return sqrt(2.0 * law->a) * exp(0.5 - ax2) * (1.0 - 2.0 * ax2);
}

/* The exponential law's local problem: no stick set (phi(0) = 0), so the
 * slip x of the step is a root of h (h(0) = -S < 0 always), the branch
 * kept as for the other curves.  State: st[0] always 0 (it never sticks:
 * a zero slip is a point of its curve, with ft = 0), st[1] the step's
 * signed mean slip. */
static double
exponential_local(const vb_friction *law, double n, double s_free, double c, double dt,
                  int *broke, double *st)
{
  curve_fn cf = {exponential_mu, exponential_dmu, sqrt(1.5 / law->a)};
  (void)broke;
  (void)dt;
  st[0] = 0.0;
  if (n <= 0.0 || s_free == 0.0) {
    st[1] = s_free;
    return 0.0;
  }
  double sigma = s_free > 0.0 ? 1.0 : -1.0, S = fabs(s_free);
  double p = st[1] * sigma > 0.0 ? fabs(st[1]) : 0.0;
  double x = curve_slip(&cf, law, S, c * n, p);
  st[1] = sigma * x;
  return -sigma * n * exponential_mu(law, x);
}

/* Its force at the slip s, -n phi(s) (phi odd), and the slope -n phi'(|s|). */
static double
exponential_force(const vb_friction *law, double n, double s, double dt, const double *st0,
                  double *st1, double *slope)
{
  (void)dt;
  (void)st0;
  st1[0] = 0.0;
  st1[1] = s;
  if (!(n > 0.0) || s == 0.0) {
    *slope = n > 0.0 ? -n * exponential_dmu(law, 0.0) : 0.0;
    return 0.0;
  }
  double x = fabs(s);
  *slope = -n * exponential_dmu(law, x);
  return -(s > 0.0 ? 1.0 : -1.0) * n * exponential_mu(law, x);
}

static void
exponential_start(const vb_friction *law, double s0, double *st)
{
  (void)law;
  st[0] = 0.0;
  st[1] = s0;
}

static double
exponential_curve(const vb_friction *law, double s)
{
  return exponential_mu(law, fabs(s));
}

/* Its largest force, N (phi's peak is 1), for the catch of a stick. */
static double
exponential_hold(const vb_friction *law, double n)
{
  (void)law;
  return n;
}

static int
exponential_valid(const vb_friction *law, char *why, size_t len)
{
  if (law->a > 0.0)
    return 1;
  snprintf(why, len, "'a' = %g (valid: > 0)", law->a);
  return 0;
}

static double
stribeck_curve(const vb_friction *law, double s)
{
  return stribeck_mu(law, fabs(s));
}

static double
bow_curve(const vb_friction *law, double s)
{
  return bow_mu(law, fabs(s));
}

static double
coulomb_curve(const vb_friction *law, double s)
{
  (void)s;
  return law->mu_k;
}

/* Stribeck: mu_k <= mu_s (a curve that rises from the static value would
 * not be Stribeck's), v_s > 0 and delta > 0 (the curve's scale and shape). */
static int
stribeck_valid(const vb_friction *law, char *why, size_t len)
{
  if (!(law->mu_k <= law->mu_s))
    snprintf(why, len, "'mu_k' = %g is above 'mu_s' = %g (valid: mu_k <= mu_s)", law->mu_k,
             law->mu_s);
  else if (!(law->v_s > 0.0))
    snprintf(why, len, "'v_s' = %g (valid: > 0)", law->v_s);
  else if (!(law->delta > 0.0))
    snprintf(why, len, "'delta' = %g (valid: > 0)", law->delta);
  else
    return 1;
  return 0;
}

static int
bow_valid(const vb_friction *law, char *why, size_t len)
{
  if (!(law->mu_k <= law->mu_s))
    snprintf(why, len, "'mu_d' = %g is above 'mu_s' = %g (valid: mu_d <= mu_s)", law->mu_k,
             law->mu_s);
  else if (!(law->v_s > 0.0))
    snprintf(why, len, "'v0' = %g (valid: > 0)", law->v_s);
  else
    return 1;
  return 0;
}

/* ------------------------------------------------ the elasto-plastic law
 * The single-state elasto-plastic model of P. Dupont, V. Hayward, B.
 * Armstrong, F. Altpeter, "Single state elastoplastic friction models",
 * IEEE Trans. Automatic Control 47(5) (2002) 787-792 (its force, bristle
 * rate, steady-state deflection and alpha with the sine ramp between z_ba
 * and z_ss), as Avanzini, Serafin & Rocchesso take it for sound synthesis
 * ("Interactive simulation of rigid body interaction with friction-induced
 * sound generation", IEEE Trans. Speech Audio Process. 13(5) (2005)
 * 1073-1081: the static and Coulomb forces proportional to
 * the normal force, z_ba a fraction of z_ss; their noise term sigma3 w is
 * left out).  With the bristle deflection z and the slip rate v:
 *   f     = sigma0 z + sigma1 z' + sigma2 v
 *   z'    = v (1 - alpha(z, v) z / z_ss(v))
 *   z_ss(v) = sgn(v) (f_c + (f_s - f_c) exp(-(v / v_s)^2)) / sigma0
 *   alpha = 0 where sgn(z) != sgn(v) or |z| <= z_ba; 1 where |z| >= |z_ss|;
 *           between, (1 + sin(pi (|z| - (|z_ss| + z_ba)/2) / (|z_ss| -
 *           z_ba))) / 2
 * and z_ba = z_ba |z_ss(v)| here (the key a fraction in [0, 1): Dupont's
 * condition 0 < z_ba < |z_ss(v)| for every v then holds by itself).  Every
 * force scales with the normal force N: vibro's sigma0, sigma1, sigma2
 * are per newton of N and f_c = mu_k N, f_s = mu_s N, so that
 *   ft = -N (sigma0 z + sigma1 z' + sigma2 s),
 *   z_ss(s) = sgn(s) (mu_k + (mu_s - mu_k) exp(-(s/v_s)^2)) / sigma0,
 * which under a constant N is Dupont's model with sigma_i N; z_ss does not
 * depend on N, and a contact that lifts off (N = 0) drags nothing and
 * releases its bristle (z = 0).
 *
 * The step (two-level family: the force held over the step, the slip s its
 * mean): the bristle by the midpoint rule,
 *   z1 - z0 = dt psi((z0 + z1)/2, s),  psi(z, s) = s - |s| alpha z / |z_ss|,
 *   ft = -N (sigma0 (z0 + z1)/2 + sigma1 (z1 - z0)/dt + sigma2 s),
 * so that its stored energy N sigma0 z^2/2 changes by exactly N sigma0
 * (z0 + z1)/2 (z1 - z0) (the discrete gradient of a quadratic), and the
 * step's work -ft s dt splits into that and the dissipated
 *   N dt [sigma0 alpha zbar^2 |s| / |z_ss| + sigma1 z' s + sigma2 s^2],
 * the first and last terms >= 0; the middle one < 0 only while the
 * bristle stands beyond its steady state (|z| > |z_ss(s)|, alpha = 1,
 * after the slip has quickened past a Stribeck fall), as in the
 * continuous model (doc/friction.md).  psi is non-increasing in z, so z1
 * is the unique root of an increasing g (slope >= 1) within [z0, z0 + dt
 * psi(z0)]; the slip is a root of s - s_free - c ft(s), bracketed from
 * s_free outwards and found by Illinois' regula falsi: never NaN. */

/* |z_ss(v)|, m: the steady-state deflection. */
static double
ep_zss(const vb_friction *law, double v)
{
  double r = v / law->v_s;
  return (law->mu_k + (law->mu_s - law->mu_k) * exp(-r * r)) / law->sigma0;
}

/* alpha(z, v), and its slope along |z| into *slope. */
static double
ep_alpha(const vb_friction *law, double z, double v, double zss, double *slope)
{
  *slope = 0.0;
  if (v == 0.0 || z == 0.0 || (z > 0.0) != (v > 0.0))
    return 0.0;
  double az = fabs(z), zba = law->z_ba * zss;
  if (az <= zba)
    return 0.0;
  if (az >= zss)
    return 1.0;
  double width = zss - zba, arg = M_PI * (az - 0.5 * (zss + zba)) / width;
  *slope = 0.5 * M_PI / width * cos(arg);
  return 0.5 * (1.0 + sin(arg));
}

/* The bristle rate psi(z, v) = v (1 - alpha z / z_ss(v)) = v - |v| alpha
 * z / |z_ss|, m/s, and its slope along z (<= 0) into *slope. */
static double
ep_rate(const vb_friction *law, double z, double v, double zss, double *slope)
{
  double da, al = ep_alpha(law, z, v, zss, &da);
  *slope = -fabs(v) / zss * (al + fabs(z) * da);
  return v - fabs(v) * al * z / zss;
}

/* The deflection at the step's end under the mean slip v: the root of
 * g(z1) = z1 - z0 - dt psi((z0 + z1)/2, v), increasing (g' >= 1), by
 * Newton kept inside the bracket [z0, z0 + dt psi(z0)]. */
static double
ep_deflect(const vb_friction *law, double z0, double v, double dt)
{
  if (v == 0.0)
    return z0;
  double zss = ep_zss(law, v), sl, p0 = ep_rate(law, z0, v, zss, &sl);
  if (p0 == 0.0)
    return z0;
  double lo = fmin(z0, z0 + dt * p0), hi = fmax(z0, z0 + dt * p0);
  double z = z0 + dt * p0 / (1.0 - 0.5 * dt * sl);
  for (int it = 0; it < 100; it++) {
    double r = z - z0 - dt * ep_rate(law, 0.5 * (z0 + z), v, zss, &sl);
    if (r == 0.0)
      break;
    if (r < 0.0)
      lo = z;
    else
      hi = z;
    double next = z - r / (1.0 - 0.5 * dt * sl);
    if (!(next > lo && next < hi)) /* strictly: an end already tried would cycle */
      next = 0.5 * (lo + hi);
    if (next == z || hi - lo <= 2.0 * DBL_EPSILON * fmax(fabs(lo), fabs(hi))) {
      z = next;
      break;
    }
    z = next;
  }
  return z;
}

/* The force on b (N) at the mean slip v, its deflection at the step's end
 * into *z1. */
static double
ep_force(const vb_friction *law, double n, double z0, double v, double dt, double *z1)
{
  *z1 = ep_deflect(law, z0, v, dt);
  return -n * (law->sigma0 * (0.5 * (z0 + *z1)) + law->sigma1 * ((*z1 - z0) / dt) +
               law->sigma2 * v);
}

/* The elasto-plastic local problem of a step: the mean slip v with v =
 * s_free + c ft(v).  R(v) = v - s_free - c ft(v) is continuous and goes
 * as (1 + c n sigma2) v at both ends (ft is bounded but for sigma2), so a
 * bracket found by doubling a stride from s_free holds a root.  State:
 * st[0] the bristle deflection z (m), st[1] the step's mean slip (m/s). */
static double
elastoplastic_local(const vb_friction *law, double n, double s_free, double c, double dt,
                    int *broke, double *st)
{
  double z0 = st[0], z1, za, zb, fa, fb;
  (void)broke;
  if (!(n > 0.0)) { /* lifted off: no force, the bristle released */
    st[0] = 0.0;
    st[1] = s_free;
    return 0.0;
  }
  double a = s_free;
  fa = ep_force(law, n, z0, a, dt, &za);
  double ra = -c * fa, b = a, rb = ra;
  fb = fa;
  zb = za;
  if (ra != 0.0) {
    double stride = fabs(ra);
    int found = 0;
    for (int k = 0; k < 2100 && isfinite(stride); k++, stride *= 2.0) {
      b = s_free - copysign(stride, ra);
      fb = ep_force(law, n, z0, b, dt, &zb);
      rb = b - s_free - c * fb;
      if (rb == 0.0 || (rb < 0.0) != (ra < 0.0)) {
        found = 1;
        break;
      }
      a = b, ra = rb;
    }
    if (!found) { /* cannot happen (R is unbounded both ways); stay finite */
      st[0] = z0;
      st[1] = s_free;
      return 0.0;
    }
    /* Illinois: (a, ra) and (b, rb) of opposite signs, b the latest */
    for (int it = 0; it < 200 && rb != 0.0; it++) {
      double v = b - rb * (b - a) / (rb - ra);
      if (!(v > fmin(a, b) && v < fmax(a, b)))
        v = 0.5 * (a + b);
      double f = ep_force(law, n, z0, v, dt, &z1), r = v - s_free - c * f;
      if ((r < 0.0) != (rb < 0.0))
        a = b, ra = rb;
      else
        ra *= 0.5;
      b = v, rb = r, fb = f, zb = z1;
      double floor = 4.0 * DBL_EPSILON * (fabs(v) + fabs(s_free) + fabs(c * f));
      if (fabs(r) <= floor || fabs(b - a) <= 2.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)))
        break;
    }
  }
  st[0] = zb;
  st[1] = b;
  return fb;
}

static double ep_force(const vb_friction *law, double n, double z0, double v, double dt,
                       double *z1);

/* Its force at the slip s (ep_force: the bristle's midpoint step from
 * st0[0]), the bristle at n+1 into st1[0] (released at n = 0, as the local
 * problem), the slope by central differences (alpha has kinks: a secant
 * there, enough for the Newton's direction; the line search and the check
 * read the force itself). */
static double
elastoplastic_force(const vb_friction *law, double n, double s, double dt, const double *st0,
                    double *st1, double *slope)
{
  st1[1] = s;
  if (!(n > 0.0)) {
    st1[0] = 0.0;
    *slope = 0.0;
    return 0.0;
  }
  double z1, zh, h = 1e-6 * (fabs(s) + law->v_s);
  double f = ep_force(law, n, st0[0], s, dt, &z1);
  double fp = ep_force(law, n, st0[0], s + h, dt, &zh), fm = ep_force(law, n, st0[0], s - h, dt, &zh);
  st1[0] = z1;
  *slope = (fp - fm) / (2.0 * h);
  return f;
}

static void
elastoplastic_start(const vb_friction *law, double s0, double *st)
{
  (void)law;
  st[0] = 0.0; /* the bristle starts relaxed */
  st[1] = s0;
}

/* A smooth law: never a set-valued stick (its presliding is the
 * bristle's elastic deflection, not a stick), so neither the exact stick
 * nor the catch of friction.c touches it. */
static int
elastoplastic_sticks(const double *st)
{
  (void)st;
  return 0;
}

/* The steady-state coefficient at slip s (z' = 0, z = z_ss(s)): sigma0
 * |z_ss(s)| + sigma2 |s| = mu_k + (mu_s - mu_k) exp(-(s/v_s)^2) + sigma2 |s|. */
static double
elastoplastic_curve(const vb_friction *law, double s)
{
  return law->sigma0 * ep_zss(law, s) + law->sigma2 * fabs(s);
}

/* The bristle's potential energy, N sigma0 z^2 / 2, J. */
static double
elastoplastic_stored(const vb_friction *law, double n, const double *st)
{
  return 0.5 * n * law->sigma0 * st[0] * st[0];
}

static double
elastoplastic_deflection(const double *st)
{
  return st[0];
}

/* sigma0 > 0 and mu_k > 0 (z_ss > 0 at every slip, Dupont's condition),
 * mu_k <= mu_s, v_s > 0, 0 <= z_ba < 1 (the breakaway below z_ss). */
static int
elastoplastic_valid(const vb_friction *law, char *why, size_t len)
{
  if (!(law->mu_k <= law->mu_s))
    snprintf(why, len, "'mu_k' = %g is above 'mu_s' = %g (valid: mu_k <= mu_s)", law->mu_k,
             law->mu_s);
  else if (!(law->mu_k > 0.0))
    snprintf(why, len, "'mu_k' = %g (valid: > 0: the steady-state deflection z_ss must be > 0)",
             law->mu_k);
  else if (!(law->sigma0 > 0.0))
    snprintf(why, len, "'sigma0' = %g (valid: > 0, 1/m)", law->sigma0);
  else if (!(law->v_s > 0.0))
    snprintf(why, len, "'v_s' = %g (valid: > 0)", law->v_s);
  else if (!(law->z_ba < 1.0))
    snprintf(why, len,
             "'z_ba' = %g (valid: >= 0 and < 1, a fraction of the steady-state deflection)",
             law->z_ba);
  else
    return 1;
  return 0;
}

#define UPARAM(name, field, unit, cond, what, lo, req, def)                                       \
  {                                                                                                \
    .key = name, .units = unit, .condition = cond, .doc = what,                                    \
    .offset = offsetof(vb_friction, field), .min = lo, .required = req, .fallback = def            \
  }
#define PARAM(name, field, cond, what, lo, req, def) UPARAM(name, field, "1", cond, what, lo, req, def)

/* The friction laws, one row per vb_friction_kind but NONE (index kind -
 * 1, in the enum's order); the names below list them for messages. */
static const vb_friction_info table[] = {
    {.name = "coulomb",
     .doc = "Coulomb with static and kinetic coefficients and exact stick (Moreau 1988; "
            "Karnopp 1985)",
     .params = (const vb_friction_param[]){PARAM("mu_s", mu_s, ">= 0", "static coefficient", 0.0,
                                                 1, 0.0),
                                           PARAM("mu_k", mu_k, ">= 0 and <= mu_s (default mu_s)",
                                                 "kinetic coefficient", 0.0, 0, NAN),
                                           {.key = NULL}},
     .kind = VB_FRICTION_COULOMB,
     .nstate = 1,
     .valid = coulomb_valid,
     .local = coulomb_local,
     .start = coulomb_start,
     .sticks = coulomb_sticks,
     .hold = coulomb_hold,
     .curve = coulomb_curve},
    {.name = "stribeck",
     .doc = "mu_k + (mu_s - mu_k) exp(-(|s|/v_s)^delta) + viscous |s|, exact stick "
            "(Armstrong-Helouvry, Dupont & Canudas de Wit 1994; Olsson et al. 1998)",
     .params = (const vb_friction_param[]){PARAM("mu_s", mu_s, ">= 0", "static coefficient", 0.0,
                                                 1, 0.0),
                                           PARAM("mu_k", mu_k, ">= 0 and <= mu_s",
                                                 "kinetic (Coulomb) coefficient", 0.0, 1, 0.0),
                                           UPARAM("v_s", v_s, "m/s", "> 0", "Stribeck velocity",
                                                  0.0, 1, 0.0),
                                           PARAM("delta", delta, "> 0 (default 2)",
                                                 "Stribeck exponent", 0.0, 0, 2.0),
                                           UPARAM("viscous", viscous, "s/m", ">= 0 (default 0)",
                                                  "viscous coefficient per newton of normal force",
                                                  0.0, 0, 0.0),
                                           {.key = NULL}},
     .kind = VB_FRICTION_STRIBECK,
     .nstate = 2,
     .valid = stribeck_valid,
     .local = stribeck_local,
     .start = curve_start,
     .sticks = coulomb_sticks,
     .hold = coulomb_hold,
     .curve = stribeck_curve},
    {.name = "bow",
     .doc = "mu_d + (mu_s - mu_d) v0 / (v0 + |s|), the hyperbolic bow curve, exact stick "
            "(Smith & Woodhouse 2000; Woodhouse 2003)",
     .params = (const vb_friction_param[]){PARAM("mu_s", mu_s, ">= 0", "static coefficient", 0.0,
                                                 1, 0.0),
                                           PARAM("mu_d", mu_k, ">= 0 and <= mu_s",
                                                 "dynamic coefficient, the limit at large slip",
                                                 0.0, 1, 0.0),
                                           UPARAM("v0", v_s, "m/s", "> 0",
                                                  "slip rate at which the curve has fallen half way",
                                                  0.0, 1, 0.0),
                                           {.key = NULL}},
     .kind = VB_FRICTION_BOW,
     .nstate = 2,
     .valid = bow_valid,
     .local = bow_local,
     .start = curve_start,
     .sticks = coulomb_sticks,
     .hold = coulomb_hold,
     .curve = bow_curve},
    {.name = "exponential",
     .doc = "ft = -N sqrt(2a) s exp(-a s^2 + 1/2), the exponential bow curve, no stick set "
            "(Desvages & Bilbao 2016)",
     .params = (const vb_friction_param[]){UPARAM("a", a, "s^2/m^2", "> 0",
                                                  "shape: the peak |ft| = N at |s| = "
                                                  "1/sqrt(2a)",
                                                  0.0, 1, 0.0),
                                           {.key = NULL}},
     .kind = VB_FRICTION_EXPONENTIAL,
     .nstate = 2,
     .valid = exponential_valid,
     .local = exponential_local,
     .start = exponential_start,
     .sticks = coulomb_sticks,
     .hold = exponential_hold,
     .curve = exponential_curve,
     .force = exponential_force},
    {.name = "elasto-plastic",
     .doc = "ft = -N (sigma0 z + sigma1 z' + sigma2 s), z' = s (1 - alpha(z, s) z / z_ss(s)), the "
            "elasto-plastic bristle with its deflection z as state (Dupont et al. 2002; Avanzini, "
            "Serafin & Rocchesso 2005)",
     .params = (const vb_friction_param[]){PARAM("mu_s", mu_s, ">= mu_k", "static coefficient, "
                                                 "f_s = mu_s N", 0.0, 1, 0.0),
                                           PARAM("mu_k", mu_k, "> 0 and <= mu_s",
                                                 "Coulomb coefficient, f_c = mu_k N", 0.0, 1, 0.0),
                                           UPARAM("v_s", v_s, "m/s", "> 0", "Stribeck velocity",
                                                  0.0, 1, 0.0),
                                           UPARAM("sigma0", sigma0, "1/m", "> 0",
                                                  "bristle stiffness per newton of normal force",
                                                  0.0, 1, 0.0),
                                           UPARAM("sigma1", sigma1, "s/m", ">= 0",
                                                  "bristle damping per newton of normal force",
                                                  0.0, 1, 0.0),
                                           UPARAM("sigma2", sigma2, "s/m", ">= 0 (default 0)",
                                                  "viscous coefficient per newton of normal force",
                                                  0.0, 0, 0.0),
                                           PARAM("z_ba", z_ba, ">= 0 and < 1",
                                                 "breakaway deflection, a fraction of |z_ss(s)|",
                                                 0.0, 1, 0.0),
                                           {.key = NULL}},
     .kind = VB_FRICTION_ELASTOPLASTIC,
     .nstate = 2,
     .valid = elastoplastic_valid,
     .local = elastoplastic_local,
     .start = elastoplastic_start,
     .sticks = elastoplastic_sticks,
     .hold = coulomb_hold,
     .curve = elastoplastic_curve,
     .stored = elastoplastic_stored,
     .deflection = elastoplastic_deflection,
     .force = elastoplastic_force},
};
#define NLAWS (int)(sizeof table / sizeof table[0])
static const char choices[] = "coulomb, stribeck, bow, exponential, elasto-plastic";

const vb_friction_info *
vb_friction_info_of(vb_friction_kind kind)
{
  int i = (int)kind - 1;
  return i >= 0 && i < NLAWS ? &table[i] : NULL;
}

const vb_friction_info *
vb_friction_lookup(const char *name)
{
  for (int i = 0; name && i < NLAWS; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

const char *
vb_friction_choices(void)
{
  return choices;
}
