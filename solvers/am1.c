/* am1.c - one-step Adams-Moulton (trapezoidal rule) with the K-method and
 * Newton (Papetti eq 20).
 *
 * Papetti eq 20 with the total force F = -f + m a_ext on the mass:
 *   x_(n+1) = x_n + h v_n + h^2/(4m) (F_(n+1) + F_n)
 *   v_(n+1) = v_n + h/(2m) (F_(n+1) + F_n).
 * K-method: the known part gives the predictions x~, v~, and the unknown
 * contact force enters with the compliances h^2/(4m) and h/(2m).  Newton
 * runs on x_(n+1); f_(n+1) = f(x_(n+1), v_(n+1)) from Papetti eq 1. */
#include <math.h>
#include "internal.h"

typedef struct {
  const vb_step_ctx *ctx;
  double xt, vt; /* K-method predictions without f_(n+1) */
} problem;

/* x - x~ + h^2/(4m) f(x, v(x)) with v(x) = v~ - (2/h)(x~ - x). */
static double
residual(double y, void *data, double *dr)
{
  const problem *p = data;
  const vb_step_ctx *c = p->ctx;
  double cx = c->dt * c->dt / (4.0 * c->m);
  double v = p->vt - 2.0 / c->dt * (p->xt - y);
  double fe = vb_law_elastic(c->law, y);
  double damp = 1.0 + c->law->mu * v;
  double dfdx = vb_law_curvature(c->law, y) * damp;
  double dfdv = c->law->mu * fe;
  *dr = 1.0 + cx * (dfdx + dfdv * 2.0 / c->dt);
  return y - p->xt + cx * fe * damp;
}

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  double h = ctx->dt, m = ctx->m;
  double Fn = -st->f + m * ctx->a_ext;
  /* eq 20 without F_(n+1); a_ext is constant so F_(n+1) adds m a_ext */
  problem p = { ctx,
                st->x + h * st->v + h * h / (4.0 * m) * (Fn + m * ctx->a_ext),
                st->v + h / (2.0 * m) * (Fn + m * ctx->a_ext) };
  double scale = fabs(st->x) + fabs(st->v) * h + 1e-300;
  double y;
  int rc = vb_newton_solve(residual, &p, p.xt, scale, ctx->tol, ctx->max_iter,
                           &y, &st->iterations);
  if (rc == VB_EDIVERGED)
    return rc;
  double v = p.vt - 2.0 / h * (p.xt - y);
  double f1 = vb_law_force(ctx->law, y, v);
  double x0 = st->x, v0 = st->v;
  /* eq 20 with the converged f_(n+1) */
  st->x_prev = st->x;
  st->x = p.xt - h * h / (4.0 * m) * f1;
  st->v = p.vt - h / (2.0 * m) * f1;
  st->f = f1;
  st->dissipated += vb_law_damping_work(ctx->law, h, x0, v0, st->x, st->v);
  st->failed = rc == VB_ENOCONV;
  st->failures += st->failed;
  return rc;
}

const vb_scheme vb_scheme_am1 = {
  .name = "am1",
  .doc = "1-step Adams-Moulton (trapezoidal), K-method + Newton (Papetti eq 20)",
  .family = VB_FAMILY_TWO_LEVEL,
  .order = 2,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .init = vb_scheme_init_xv,
  .step = step,
  .energy = vb_scheme_energy_xv,
};
