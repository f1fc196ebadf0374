/* quadratic.c - Ducceschi's non-iterative energy-conserving scheme
 * (Ducceschi eq 16-19) with free parameter s.
 *
 * With phi the contact potential, y = x^(n+1) - x^(n-1) and
 * d = x^n - x^(n-1), the discrete energy (eq 7)
 *   h^(n-1/2) = m/2 (d/dt)^2 + P(s)_(n-1,n)        (eq 6)
 * is conserved when A y^2 + B y + C = 0 (eq 17) with
 *   A = m/dt^2 + s phi''(x^n)
 *   B = -2 m d / dt^2 + 2 s phi'(x^n) - 2 s d phi''(x^n)
 *   C = 2 P(s)_(n,n-1) - 2 P(s)_(n-1,n).
 * External constant forces (gravity, potential -m a_ext x; the paper has
 * none) are not put through the s-weighted expansion, which for s != 1/2
 * makes even free fall inexact (its error is (1 - 2s) m a^2 dt^2 per
 * step); they enter h with the centred average -m a_ext (x^n + x^(n-1))/2,
 * which adds -m a_ext to B and keeps free flight exact for every s.
 * Hunt-Crossley damping enters as c * (x^(n+1) - x^(n-1)) / (2 dt) with
 * c = mu V'(x^n) >= 0; it adds c / (2 dt) to A and removes exactly
 * c y^2 / (4 dt) of energy per step.  The root is chosen by the rule of
 * Ducceschi 3.3.2: y- if B >= 0, y+ if B < 0 (eq 19), which is also the
 * form free of cancellation.
 *
 * Negative discriminant (eq 18 violated): no real y conserves h, so the
 * step falls back to the three-point scheme (Ducceschi eq 23, Newton),
 * which conserves its own discrete energy (the s = 1/2 average of the true
 * potential) and so stays energy-consistent; the step is counted in
 * fallbacks and flagged in the impact's event row. */
#include <math.h>
#include "internal.h"

/* Ducceschi eq 6: P(s) of the contact potential expanded around `at`,
 * evaluated at `to`. */
static double
taylor(const vb_step_ctx *ctx, double at, double to)
{
  double e = to - at;
  return vb_law_potential(ctx->law, at) + ctx->s * e * vb_law_elastic(ctx->law, at)
         + ctx->s * 0.5 * e * e * vb_law_curvature(ctx->law, at);
}

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  double k2 = ctx->dt * ctx->dt, s = ctx->s, m = ctx->m;
  double xn = st->x, xm = st->x_prev, d = xn - xm;
  double p1 = vb_law_elastic(ctx->law, xn), p2 = vb_law_curvature(ctx->law, xn);
  double c = ctx->law->mu * p1;
  /* eq 16 coefficients, damping added to A, the external force to B */
  double A = m / k2 + s * p2 + c / (2.0 * ctx->dt);
  double B = -2.0 * m * d / k2 + 2.0 * s * p1 - 2.0 * s * d * p2 - m * ctx->a_ext;
  double C = 2.0 * taylor(ctx, xn, xm) - 2.0 * taylor(ctx, xm, xn);
  /* eq 18 */
  double disc = B * B - 4.0 * A * C;
  st->fallback = 0;
  if (!(disc >= 0.0)) {
    st->fallback = 1;
    st->fallbacks++;
    return vb_three_point_step(ctx, st);
  }
  /* eq 19 with the root rule of 3.3.2 */
  double y = B >= 0.0 ? (-B - sqrt(disc)) / (2.0 * A)
                      : (-B + sqrt(disc)) / (2.0 * A);
  st->dissipated += c * y * y / (4.0 * ctx->dt);
  st->x_prev = xn;
  st->x = xm + y;
  st->v = (st->x - st->x_prev) / ctx->dt;
  st->f = vb_law_force(ctx->law, st->x, st->v);
  st->iterations = 0;
  st->failed = 0;
  return isfinite(st->x) ? VB_OK : VB_EDIVERGED;
}

/* h^(n-1/2) of eq 7: kinetic, P(s)_(n-1,n) of the contact, and the
 * centred position at which the external potential is taken. */
static void
energy(const vb_step_ctx *ctx, const vb_cstate *st, double *kinetic,
       double *potential, double *xbar)
{
  double r = (st->x - st->x_prev) / ctx->dt;
  *kinetic = 0.5 * ctx->m * r * r;
  *potential = taylor(ctx, st->x_prev, st->x);
  *xbar = 0.5 * (st->x + st->x_prev);
}

const vb_scheme vb_scheme_quadratic = {
  .name = "quadratic",
  .doc = "Ducceschi's non-iterative energy-conserving scheme, parameter s (Ducceschi eq 16-19)",
  .family = VB_FAMILY_THREE_LEVEL,
  .order = 1,
  .min_contact_steps = 2,
  .energy_conserving = 1,
  .init = vb_three_level_init,
  .step = step,
  .energy = energy,
};
