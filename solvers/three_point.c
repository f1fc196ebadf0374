/* three_point.c - the three-point, one-variable energy-conserving scheme
 * (Chatziioannou eq 7 = Ducceschi eq 23), solved by Newton.
 *
 *   eq 7: x^(n+1) - 2 x^n + x^(n-1)
 *           = -beta3 (G(x^(n+1)) - G(x^(n-1))) / (x^(n+1) - x^(n-1)),
 * beta3 = k dt^2 / (m (a+1)), i.e. m (x^(n+1) - 2x^n + x^(n-1)) / dt^2 =
 * -(V(x^(n+1)) - V(x^(n-1))) / (x^(n+1) - x^(n-1)) + m a_ext.
 * Hunt-Crossley damping adds mu * grad * (x^(n+1) - x^(n-1)) / (2 dt).
 * The conserved energy is (Bilbao) H^(n+1/2) = m/2 ((x^(n+1) - x^n)/dt)^2
 * + (V(x^(n+1)) + V(x^n))/2 - m a_ext (x^(n+1) + x^n)/2; damping removes
 * exactly mu grad (x^(n+1) - x^(n-1))^2 / (4 dt) per step.
 *
 * Initial state: x^(-1) is the exact free-flight position at t = -dt,
 * x(0) - dt v(0) + a_ext dt^2 / 2. */
#include <math.h>
#include "internal.h"

typedef struct {
  const vb_step_ctx *ctx;
  double xn, xm; /* x^n, x^(n-1) */
} problem;

static double
residual(double y, void *data, double *dr)
{
  const problem *p = data;
  const vb_step_ctx *c = p->ctx;
  const vb_law *law = c->law;
  double w = c->dt * c->dt / c->m;
  double rate = (y - p->xm) / (2.0 * c->dt);
  double g = vb_law_gradient(law, y, p->xm);
  double damp = 1.0 + law->mu * rate;
  *dr = 1.0 + w * (vb_law_gradient_dx1(law, y, p->xm) * damp
                   + g * law->mu / (2.0 * c->dt));
  /* eq 7 */
  return y - 2.0 * p->xn + p->xm - c->a_ext * c->dt * c->dt + w * g * damp;
}

/* Three-level start: x^(-1) from exact free flight (also the quadratic
 * scheme's). */
void
vb_three_level_init(const vb_step_ctx *ctx, vb_cstate *st, double x0, double v0)
{
  st->x = x0;
  st->x_prev = x0 - ctx->dt * v0 + 0.5 * ctx->a_ext * ctx->dt * ctx->dt;
  st->v = (st->x - st->x_prev) / ctx->dt;
  st->f = vb_law_force(ctx->law, x0, st->v);
}

/* One step of eq 7 (also the quadratic scheme's fall-back). */
int
vb_three_point_step(const vb_step_ctx *ctx, vb_cstate *st)
{
  problem p = { ctx, st->x, st->x_prev };
  double guess = 2.0 * st->x - st->x_prev + ctx->a_ext * ctx->dt * ctx->dt;
  double scale = fabs(st->x) + fabs(st->x - st->x_prev) + 1e-300;
  double y;
  int rc = vb_newton_solve(residual, &p, guess, scale, ctx->tol, ctx->max_iter,
                           &y, &st->iterations);
  if (rc == VB_EDIVERGED)
    return rc;
  double g = vb_law_gradient(ctx->law, y, p.xm);
  st->dissipated += ctx->law->mu * g * (y - p.xm) * (y - p.xm) / (4.0 * ctx->dt);
  st->x_prev = st->x;
  st->x = y;
  st->v = (st->x - st->x_prev) / ctx->dt;
  st->f = vb_law_force(ctx->law, st->x, st->v);
  st->failed = rc == VB_ENOCONV;
  st->failures += st->failed;
  return rc;
}

/* H^(n-1/2) with the state (x^n, x^(n-1)). */
static void
energy(const vb_step_ctx *ctx, const vb_cstate *st, double *kinetic,
       double *potential, double *xbar)
{
  double r = (st->x - st->x_prev) / ctx->dt;
  *kinetic = 0.5 * ctx->m * r * r;
  *potential = 0.5 * (vb_law_potential(ctx->law, st->x)
                      + vb_law_potential(ctx->law, st->x_prev));
  *xbar = 0.5 * (st->x + st->x_prev);
}

const vb_scheme vb_scheme_three_point = {
  .name = "three-point",
  .doc = "three-point, one-variable energy-conserving scheme (Chatziioannou eq 7, Ducceschi eq 23), Newton",
  .family = VB_FAMILY_THREE_LEVEL,
  .order = 2,
  .min_contact_steps = 2,
  .energy_conserving = 1,
  .init = vb_three_level_init,
  .step = vb_three_point_step,
  .energy = energy,
};
