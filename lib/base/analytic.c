/* analytic.c - closed-form and quadrature results for one Hunt-Crossley
 * impact of a mass against a rigid wall (Papetti eqs 3-9, Avanzini eq 12).
 *
 * Everything is written in the dimensionless rate w = mu v, in which the
 * exit rate depends on w_in = mu v_in only: with g(w) = w - log(1 + w),
 * eq 6 reads g(w_out) = g(w_in), and eq 3 reads
 * x^(a+1) = m (a+1) / (k mu^2) (g(w_in) - g(w)). */
#include "base.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#endif

/* Gauss-Legendre order of the panels of the contact-time quadrature. */
#define GL_N 20
/* Relative tolerance and bisection depth of the adaptive quadrature. */
#define QUAD_TOL   1e-14
#define QUAD_DEPTH 60
/* Most panels one half of the contact-time quadrature may use. */
#define QUAD_BUDGET 20000
/* Below this w_in the eq 9 integral equals its mu = 0 limit to within
 * rounding (the relative difference is about 0.1 w_in). */
#define W_TINY 1e-15

/* G(y) = (y - log1p(y)) / y^2 for y > -1, accurate to rounding everywhere
 * including y -> 0, so that g(y) = y^2 G(y) never cancels.  For
 * -0.6 < y < 3 it uses log1p(y) = 2 atanh(z), z = y / (2 + y):
 * G = 1/(2+y) - 2y/(2+y)^3 sum_n z^(2n) / (2n + 3), whose terms do not
 * cancel; outside that range y - log1p(y) does not cancel either. */
static double
g_ratio(double y)
{
  if (y > -0.6 && y < 3.0) {
    double s2 = 2.0 + y, z = y / s2, z2 = z * z, sum = 0.0, term = 1.0;
    int n;
    for (n = 0; n < 80; n++) {
      double t = term / (2 * n + 3);
      sum += t;
      if (t <= 1e-17 * sum)
        break;
      term *= z2;
    }
    return 1.0 / s2 - 2.0 * y / (s2 * s2 * s2) * sum;
  }
  if (y > 1.0)
    return (1.0 - log1p(y) / y) / y; /* no overflow of y^2 */
  return (y - log1p(y)) / (y * y);
}

/* g(w) = w - log(1 + w), the left side of Papetti eq 6 in w = mu v. */
static double
g_fun(double w)
{
  if (w > 3.0)
    return w - log1p(w); /* no cancellation, no overflow of w^2 */
  return w * w * g_ratio(w);
}

/* Root w_out in (-1, 0) of g(w) = c (Papetti eq 6), with 1 + w_out in
 * *one_plus (kept separately: it is tiny when c is large).  Newton's method
 * safeguarded by bisection on w for w_out > -1/2; Newton's method on
 * u = -log(1 + w), where u + expm1(-u) - c is convex and increasing, beyond. */
static double
solve_exit(double c, double *one_plus)
{
  const double c_half = g_fun(-0.5);
  int i;

  if (!(c > 0.0)) {
    *one_plus = 1.0;
    return 0.0;
  }
  if (c < c_half) {
    double lo = -0.5, hi = 0.0;
    /* Series inversion of g(w) = c: w = -s - s^2/3 - s^3/36, s = sqrt(2c). */
    double s = sqrt(2.0 * c);
    double w = -s * (1.0 + s / 3.0 + s * s / 36.0);
    if (!(w > lo && w < hi))
      w = 0.5 * (lo + hi);
    for (i = 0; i < 200; i++) {
      double f = g_fun(w) - c;
      double df = w / (1.0 + w);
      double next;
      if (f == 0.0)
        break;
      if (f > 0.0)
        lo = w;
      else
        hi = w;
      next = (df != 0.0) ? w - f / df : 0.5 * (lo + hi);
      if (!(next > lo && next < hi))
        next = 0.5 * (lo + hi);
      if (fabs(next - w) <= 2.0 * DBL_EPSILON * fabs(w)) {
        w = next;
        break;
      }
      w = next;
    }
    *one_plus = 1.0 + w;
    return w;
  } else {
    /* Start right of the root: F(c + 1) = exp(-(c + 1)) > 0. */
    double u = c + 1.0;
    for (i = 0; i < 200; i++) {
      double f = u + expm1(-u) - c;
      double step = f / -expm1(-u);
      u -= step;
      if (fabs(step) <= 2.0 * DBL_EPSILON * u)
        break;
    }
    *one_plus = exp(-u);
    return expm1(-u);
  }
}

/* One half of the eq 9 integral in w, from the end point w_e (w_in or
 * w_out) to w = 0, after the substitution |w - w_e| = L t^(a+1). */
typedef struct half {
  double len;      /* L = |w_e| */
  double one_plus; /* 1 + w_e */
  double dir;      /* +1 from w_out upwards, -1 from w_in downwards */
  double p;        /* alpha + 1 */
  double q;        /* alpha / (alpha + 1) */
  int log_form;    /* evaluate K in its log1p(y)/y form when y is large */
} half;

/* Smooth integrand in t of one half.  With d = L t^p the distance to the
 * end point and y = dir d / (1 + w_e), the eq 9 denominator
 * D = g(w_e) - g(w) factors exactly as |y| K with K = L - |y| G(y), and the
 * t^(p - 1) of dw cancels |y|^(-q) analytically. */
static double
half_integrand(const half *h, double t)
{
  double d = h->len * pow(t, h->p);
  double ay = d / h->one_plus;
  double y = h->dir * ay;
  double kk;
  if (h->log_form && ay >= 0.25)
    kk = log1p(y) / y - h->one_plus; /* = L - y G(y) when L = 1 - one_plus */
  else
    kk = h->len - ay * g_ratio(y);
  return 1.0 / ((h->one_plus + h->dir * d) * pow(kk, h->q));
}

/* Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n). */
static void
gauss_legendre(int n, double *x, double *w)
{
  const double pi = 3.14159265358979323846;
  int i, j, it;
  for (i = 0; i < (n + 1) / 2; i++) {
    double z = cos(pi * (i + 0.75) / (n + 0.5));
    double dp = 1.0;
    for (it = 0; it < 100; it++) {
      double p0 = 1.0, p1 = 0.0, dz;
      for (j = 1; j <= n; j++) {
        double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p2) / j;
      }
      dp = n * (z * p0 - p1) / (z * z - 1.0);
      dz = p0 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16)
        break;
    }
    x[i] = -z;
    x[n - 1 - i] = z;
    w[i] = w[n - 1 - i] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

/* Quadrature rule shared by the panels. */
typedef struct rule {
  double x[GL_N], w[GL_N];
} rule;

/* The panels' rule, computed once per process (it depends on GL_N alone):
 * written under pthread_once, read only after (issue 33 item 5: 2.5 % of
 * a study of short drops was this Newton iteration, once per impact). */
static rule gl_rule;
static pthread_once_t gl_once = PTHREAD_ONCE_INIT;

static void
gl_init(void)
{
  gauss_legendre(GL_N, gl_rule.x, gl_rule.w);
}

/* Gauss-Legendre estimate of one half's integrand over [a, b]. */
static double
panel(const half *h, const rule *r, double a, double b)
{
  double mid = 0.5 * (a + b), rad = 0.5 * (b - a), sum = 0.0;
  int i;
  for (i = 0; i < GL_N; i++)
    sum += r->w[i] * half_integrand(h, mid + rad * r->x[i]);
  return rad * sum;
}

/* Adaptive bisection of [a, b] until the two halves agree with the whole
 * to tol (absolute, halved per level but never below tol_min, the
 * rounding level of the result), within a budget of panels. */
static double
adapt(const half *h, const rule *r, double a, double b, double whole, double tol, double tol_min,
      int depth, int *budget)
{
  double mid = 0.5 * (a + b);
  double left = panel(h, r, a, mid), right = panel(h, r, mid, b);
  double child = 0.5 * tol > tol_min ? 0.5 * tol : tol_min;
  *budget -= 2;
  if (depth <= 0 || *budget <= 0 || fabs(left + right - whole) <= tol)
    return left + right;
  return adapt(h, r, a, mid, left, child, tol_min, depth - 1, budget) +
         adapt(h, r, mid, b, right, child, tol_min, depth - 1, budget);
}

/* One half of integral over dw of 1 / ((1 + w) D^q), whose factor
 * p L^(1/p) (1 + w_e)^q comes from the substitution.  Near w_out the factor
 * 1 / (1 + w) peaks over t < t_c = ((1 + w_out) / L)^(1/p), a region that
 * holds a finite share of the integral however small 1 + w_out is, so
 * [0, 1] is cut into [0, t_c], [t_c, 2 t_c], [2 t_c, 4 t_c], ... */
static double
half_integral(const half *h, const rule *r)
{
  int budget = QUAD_BUDGET;
  double t_c = h->dir > 0.0 ? pow(h->one_plus / h->len, 1.0 / h->p) : 1.0;
  double a = 0.0, b = t_c < 0.5 ? t_c : 1.0, body = 0.0;
  for (;;) {
    double whole = panel(h, r, a, b);
    body += adapt(h, r, a, b, whole, QUAD_TOL * fabs(whole), 4.0 * DBL_EPSILON * fabs(whole),
                  QUAD_DEPTH, &budget);
    if (b >= 1.0)
      break;
    a = b;
    b = 2.0 * b < 0.75 ? 2.0 * b : 1.0;
  }
  return h->p * pow(h->len, 1.0 / h->p) * pow(h->one_plus, h->q) * body;
}

/* Whether the common arguments describe an impact. */
static int
valid_args(double m, double k, double alpha, double mu, double v_in)
{
  return m > 0.0 && k > 0.0 && alpha >= 0.0 && mu >= 0.0 && v_in > 0.0 && isfinite(m) &&
         isfinite(k) && isfinite(alpha) && isfinite(mu) && isfinite(v_in);
}

/* Papetti eq 4: x_max = [m (a+1) / (k mu^2) (mu v_in - log(1 + mu v_in))]^(1/(a+1)),
 * written as [m (a+1) v_in^2 G(mu v_in) / k]^(1/(a+1)) so that it tends
 * continuously to the undamped [(a+1) m v_in^2 / (2k)]^(1/(a+1)). */
double
vb_hc_x_max(double m, double k, double alpha, double mu, double v_in)
{
  double p = alpha + 1.0, base;
  if (!valid_args(m, k, alpha, mu, v_in))
    return NAN;
  base = m * p / k * g_ratio(mu * v_in);
  if (isnormal(base * v_in * v_in) && isfinite(base * v_in * v_in))
    return pow(base * v_in * v_in, 1.0 / p);
  return pow(base, 1.0 / p) * pow(v_in, 2.0 / p); /* v_in^2 out of range */
}

/* Papetti eq 7-8 with n = 4: v_out = v_lim [1 - (sum_j b_j v_in^j) e^(-2 mu v_in)],
 * v_lim = -1/mu, b_j = c_j mu^j with c = (1, 1, 2/3, 2/9, 14/135).  The
 * bracket is evaluated as -expm1(-2w) - (P(w) - 1) e^(-2w) in w = mu v_in,
 * which keeps its leading term w when w is small. */
double
vb_hc_v_out_approx(double mu, double v_in)
{
  double w, e, poly, bracket;
  if (!(mu >= 0.0) || !(v_in > 0.0) || !isfinite(mu) || !isfinite(v_in))
    return NAN;
  if (mu == 0.0)
    return -v_in;
  w = mu * v_in;
  if (w > 400.0) /* e^(-2w) P(w) underflows */
    return -1.0 / mu;
  e = exp(-2.0 * w);
  poly = w * (1.0 + w * (2.0 / 3.0 + w * (2.0 / 9.0 + w * (14.0 / 135.0))));
  bracket = -expm1(-2.0 * w) - poly * e;
  return -bracket / mu;
}

/* Papetti eq 6: the root v_out in (-1/mu, 0) of
 * mu v_out - log(1 + mu v_out) = mu v_in - log(1 + mu v_in), other than
 * v_in; -v_in for mu = 0. */
double
vb_hc_v_out_exact(double mu, double v_in)
{
  double w_in, one_plus;
  if (!(mu >= 0.0) || !(v_in > 0.0) || !isfinite(mu) || !isfinite(v_in))
    return NAN;
  if (mu == 0.0)
    return -v_in;
  w_in = mu * v_in;
  if (w_in < 1e-5) /* Series of the root; the next term is below 1e-20 relative. */
    return -v_in * (1.0 - w_in * (2.0 / 3.0 - w_in * (4.0 / 9.0 - w_in * (44.0 / 135.0))));
  return solve_exit(g_fun(w_in), &one_plus) / mu;
}

/* Undamped power-law contact time: tau = 2 (x_max / v_in) sqrt(pi)
 * Gamma(1 + 1/(a+1)) / Gamma(1/2 + 1/(a+1)), the mu = 0 limit of eq 9. */
static double
contact_time_undamped(double m, double k, double alpha, double v_in)
{
  const double sqrt_pi = 1.77245385090551602730;
  double p = alpha + 1.0;
  double x_max = vb_hc_x_max(m, k, alpha, 0.0, v_in);
  return 2.0 * x_max / v_in * sqrt_pi * exp(lgamma(1.0 + 1.0 / p) - lgamma(0.5 + 1.0 / p));
}

/* Papetti eq 9 (= Avanzini eq 12):
 * tau = (m/k)^(1/(a+1)) (mu^2/(a+1))^(a/(a+1))
 *       * int_{v_out}^{v_in} dv / ((1 + mu v) D(v)^(a/(a+1))),
 * D(v) = -mu (v - v_in) + log((1 + mu v)/(1 + mu v_in)).  In w = mu v the
 * integral is split at w = 0, and each half is mapped by
 * |w - w_e| = |w_e| t^(a+1), which removes the end point singularity; the
 * halves are then integrated by adaptive Gauss-Legendre.  With dv = dw/mu
 * the prefactor is (m/k)^(1/(a+1)) (a+1)^(-a/(a+1)) mu^(2a/(a+1) - 1).
 * NaN when mu v_in is so large (above about 700) that 1 + mu v_out
 * underflows. */
double
vb_hc_contact_time(double m, double k, double alpha, double mu, double v_in)
{
  double p = alpha + 1.0, q = alpha / (alpha + 1.0);
  double w_in, w_out, one_plus, total;
  half up, lo;

  if (!valid_args(m, k, alpha, mu, v_in))
    return NAN;
  w_in = mu * v_in;
  if (w_in < W_TINY)
    return contact_time_undamped(m, k, alpha, v_in);
  w_out = solve_exit(g_fun(w_in), &one_plus);
  if (!(w_out < 0.0) || !(one_plus >= DBL_MIN))
    return NAN; /* mu v_in above ~700: 1 + mu v_out below the double range */

  pthread_once(&gl_once, gl_init);
  up.len = w_in;
  up.one_plus = 1.0 + w_in;
  up.dir = -1.0;
  up.p = p;
  up.q = q;
  up.log_form = 0;
  lo.len = -w_out;
  lo.one_plus = one_plus;
  lo.dir = 1.0;
  lo.p = p;
  lo.q = q;
  lo.log_form = one_plus < 0.5;

  total = half_integral(&up, &gl_rule) + half_integral(&lo, &gl_rule);
  return pow(m / k, 1.0 / p) * pow(p, -q) * pow(mu, 2.0 * q - 1.0) * total;
}

/* Papetti eqs 4, 6, 7-8 and 9 for one impact against a rigid wall, for
 * every law whose row in the law table says they apply (papetti), through
 * the law as it acts during this impact (vb_law_at_onset) and the
 * Hunt-Crossley mu in effect (vb_law_impact_mu): 0 for the power law,
 * law->mu for Hunt-Crossley and the rattle (each side's penetration
 * |x| - h obeys the same law), lambda(e)/v_in for the laws set by a
 * coefficient of restitution (which are Hunt-Crossley with that mu).
 * Every field is NaN for the other laws (the always engaged polynomial
 * and spring have no impact), as for a non-positive or non-finite v_in. */
/* The predictions depend on the law, m and v_in alone, and many contacts
 * share them (10^5 alike masses in one scene, the print, the warnings and
 * the loader's check of each contact): each thread keeps the last
 * PREDICT_MEMO it computed, keyed by the bits of every input and by the
 * thread's floating-point mode (a run flushes subnormals, fpenv.c; the
 * rounding mode), and returns those bits again instead of computing them
 * anew (pow, the eq 9 quadrature). */
#define PREDICT_MEMO 64
typedef struct predict_entry {
  int used;
  unsigned int mode; /* fp_mode() when computed */
  vb_law law;
  double m, v_in;
  vb_prediction pr;
} predict_entry;
static _Thread_local predict_entry predict_memo[PREDICT_MEMO];

static uint64_t
bits_of(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* The calling thread's floating-point mode: MXCSR's control bits (FTZ,
 * DAZ, rounding, masks) without its sticky flags on x86-64, else the
 * rounding mode. */
static unsigned int
fp_mode(void)
{
#if defined(__x86_64__) && defined(__SSE2__)
  return _mm_getcsr() & ~0x3Fu;
#else
  return (unsigned int)fegetround();
#endif
}

static int
same_input(const predict_entry *e, unsigned int mode, const vb_law *law, double m, double v_in)
{
  return e->used && e->mode == mode && e->law.kind == law->kind && bits_of(e->law.k) == bits_of(law->k) &&
         bits_of(e->law.alpha) == bits_of(law->alpha) && bits_of(e->law.mu) == bits_of(law->mu) &&
         bits_of(e->law.h) == bits_of(law->h) && bits_of(e->law.c) == bits_of(law->c) &&
         bits_of(e->law.e) == bits_of(law->e) && bits_of(e->m) == bits_of(m) &&
         bits_of(e->v_in) == bits_of(v_in);
}

static predict_entry *
predict_slot(const vb_law *law, double m, double v_in)
{
  uint64_t h = (uint64_t)law->kind * 0x9E3779B97F4A7C15u;
  const double key[] = {law->k, law->alpha, law->mu, law->h, law->c, law->e, m, v_in};
  for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
    h = (h ^ bits_of(key[i])) * 0x100000001B3u;
  return &predict_memo[(h ^ (h >> 32)) % PREDICT_MEMO];
}

static void predict_compute(const vb_law *law, double m, double v_in, vb_prediction *out);

void
vb_law_predict(const vb_law *law, double m, double v_in, vb_prediction *out)
{
  predict_entry *e;
  unsigned int mode;
  if (!out)
    return;
  if (!law) {
    out->x_max = out->v_out = out->v_out_exact = out->duration = NAN;
    return;
  }
  mode = fp_mode();
  e = predict_slot(law, m, v_in);
  if (same_input(e, mode, law, m, v_in)) {
    *out = e->pr;
    return;
  }
  predict_compute(law, m, v_in, out);
  e->used = 1;
  e->mode = mode;
  e->law = *law;
  e->m = m;
  e->v_in = v_in;
  e->pr = *out;
}

/* vb_law_predict without the memo. */
static void
predict_compute(const vb_law *law, double m, double v_in, vb_prediction *out)
{
  const vb_law_info *info;
  vb_law active;
  double mu;
  out->x_max = out->v_out = out->v_out_exact = out->duration = NAN;
  if (!law || !(v_in > 0.0) || !isfinite(v_in))
    return;
  info = vb_law_info_of(law->kind);
  if (info != NULL && info->rigid) {
    /* Newton's impact law: an impulse, no penetration, no duration */
    out->x_max = 0.0;
    out->v_out = out->v_out_exact = -law->e * v_in;
    out->duration = 0.0;
    return;
  }
  if (info == NULL || !info->papetti)
    return;
  vb_law_at_onset(law, v_in, &active);
  mu = vb_law_impact_mu(&active);
  out->x_max = vb_hc_x_max(m, law->k, law->alpha, mu, v_in);
  out->v_out = vb_hc_v_out_approx(mu, v_in);
  out->v_out_exact = vb_hc_v_out_exact(mu, v_in);
  out->duration = vb_hc_contact_time(m, law->k, law->alpha, mu, v_in);
}
