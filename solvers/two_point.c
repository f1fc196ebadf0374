/* two_point.c - Chatziioannou & van Walstijn's two-point, two-variable
 * energy-conserving scheme (Chatziioannou eq 8).
 *
 * With q^n = p^n dt / (2m) = v^n dt / 2 and V = k/(a+1) G the scheme reads
 *   eq 8a: x^(n+1) - x^n = q^(n+1) + q^n
 *   eq 8b: q^(n+1) - q^n = -beta2 (G(x^(n+1)) - G(x^n)) / (x^(n+1) - x^n),
 * beta2 = k dt^2 / (2 m (a+1)).  Eliminating q^(n+1) leaves one equation
 * in x^(n+1) (Chatziioannou eq 11), solved by Newton.  A constant external
 * acceleration a_ext adds a_ext dt^2 / 2 to eq 8b (the exact discrete
 * gradient of a linear potential).  Hunt-Crossley damping enters as
 * mu * grad * (x^(n+1) - x^n) / dt, so each step dissipates exactly
 * mu grad (x^(n+1) - x^n)^2 / dt and the discrete energy
 * H = m v^2 / 2 + V(x) - m a_ext x balances to Newton tolerance. */
#include <math.h>
#include "internal.h"

typedef struct {
  const vb_step_ctx *ctx;
  double x0, q0;
} problem;

/* Chatziioannou eq 11 with damping and external acceleration. */
static double
residual(double y, void *data, double *dr)
{
  const problem *p = data;
  const vb_step_ctx *c = p->ctx;
  const vb_law *law = c->law;
  double w = c->dt * c->dt / (2.0 * c->m);
  double rate = (y - p->x0) / c->dt;
  double g = vb_law_gradient(law, y, p->x0);
  double damp = 1.0 + law->mu * rate;
  *dr = 1.0 + w * (vb_law_gradient_dx1(law, y, p->x0) * damp + g * law->mu / c->dt);
  return y - p->x0 - 2.0 * p->q0 - 0.5 * c->a_ext * c->dt * c->dt + w * g * damp;
}

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  problem p = { ctx, st->x, 0.5 * st->v * ctx->dt };
  double guess = st->x + ctx->dt * st->v + 0.5 * ctx->a_ext * ctx->dt * ctx->dt;
  double scale = fabs(st->x) + fabs(st->v) * ctx->dt + 1e-300;
  double y;
  int rc = vb_newton_solve(residual, &p, guess, scale, ctx->tol, ctx->max_iter,
                           &y, &st->iterations);
  if (rc == VB_EDIVERGED)
    return rc;
  /* eq 8a: q^(n+1) = x^(n+1) - x^n - q^n */
  double q1 = y - p.x0 - p.q0;
  double g = vb_law_gradient(ctx->law, y, p.x0);
  double rate = (y - p.x0) / ctx->dt;
  st->dissipated += ctx->law->mu * g * rate * (y - p.x0);
  st->f = g * (1.0 + ctx->law->mu * rate); /* mean force of the step */
  st->x_prev = st->x;
  st->x = y;
  st->v = 2.0 * q1 / ctx->dt;
  st->failed = rc == VB_ENOCONV;
  st->failures += st->failed;
  return rc;
}

const vb_scheme vb_scheme_two_point = {
  .name = "two-point",
  .doc = "two-point, two-variable energy-conserving scheme (Chatziioannou eq 8), Newton",
  .family = VB_FAMILY_TWO_LEVEL,
  .order = 2,
  .min_contact_steps = 1,
  .energy_conserving = 1,
  .init = vb_scheme_init_xv,
  .step = step,
  .energy = vb_scheme_energy_xv,
};
