/* rk4.c - classical fourth-order Runge-Kutta (Papetti eq 23), literally.
 *
 * k1 reuses the stored force f_n, which is f(x_n, v_n) evaluated at the end
 * of the previous step; the three other stages evaluate the law afresh. */
#include <math.h>
#include "internal.h"

/* Total acceleration of the compression: (-f(x, v) + m a_ext) / m. */
static double
accel(const vb_step_ctx *ctx, double x, double v)
{
  return -vb_law_force(ctx->law, x, v) / ctx->m + ctx->a_ext;
}

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  double h = ctx->dt;
  double x0 = st->x, v0 = st->v;
  /* eq 23b */
  double k1 = h * (-st->f / ctx->m + ctx->a_ext);
  double l1 = h * v0;
  double l2 = h * (v0 + 0.5 * k1);
  double k2 = h * accel(ctx, x0 + 0.5 * l1, v0 + 0.5 * k1);
  double l3 = h * (v0 + 0.5 * k2);
  double k3 = h * accel(ctx, x0 + 0.5 * l2, v0 + 0.5 * k2);
  double l4 = h * (v0 + k3);
  double k4 = h * accel(ctx, x0 + l3, v0 + k3);
  /* eq 23a */
  double x1 = x0 + (l1 + 2.0 * l2 + 2.0 * l3 + l4) / 6.0;
  double v1 = v0 + (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0;
  st->x_prev = x0;
  st->x = x1;
  st->v = v1;
  st->f = vb_law_force(ctx->law, x1, v1);
  st->iterations = 0;
  st->dissipated += vb_law_damping_work(ctx->law, h, x0, v0, x1, v1);
  return isfinite(x1) && isfinite(v1) ? VB_OK : VB_EDIVERGED;
}

const vb_scheme vb_scheme_rk4 = {
  .name = "rk4",
  .doc = "classical 4th-order Runge-Kutta, four force evaluations (Papetti eq 23)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 4,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .init = vb_scheme_init_xv,
  .step = step,
  .energy = vb_scheme_energy_xv,
};
