/* heun.c - Heun's predictor-corrector method (Papetti eq 22), literally.
 *
 * The stored force f_n is the previous step's f(x_n, v~_n), computed from
 * the predicted velocity as eq 22 does, and is reused in both the
 * predictor and the corrector of the next step. */
#include <math.h>
#include "internal.h"

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  double h = ctx->dt, m = ctx->m;
  double x0 = st->x, v0 = st->v;
  double Fn = -st->f + m * ctx->a_ext;
  /* eq 22 predictor: v~_(n+1) = v_n + h f_n/m */
  double vt = v0 + h * Fn / m;
  /* eq 22: x_(n+1) = x_n + h/2 (v_n + v~_(n+1)) */
  double x1 = x0 + 0.5 * h * (v0 + vt);
  /* eq 22: f_(n+1) = f(x_(n+1), v~_(n+1)) */
  double f1 = vb_law_force(ctx->law, x1, vt);
  /* eq 22 corrector: v_(n+1) = v_n + h/2 (f_n + f_(n+1))/m */
  double v1 = v0 + 0.5 * h * (Fn + (-f1 + m * ctx->a_ext)) / m;
  st->x_prev = x0;
  st->x = x1;
  st->v = v1;
  st->f = f1;
  st->iterations = 0;
  st->dissipated += vb_law_damping_work(ctx->law, h, x0, v0, x1, v1);
  return isfinite(x1) && isfinite(v1) ? VB_OK : VB_EDIVERGED;
}

const vb_scheme vb_scheme_heun = {
  .name = "heun",
  .doc = "Heun predictor-corrector (RK2), force from the predicted velocity (Papetti eq 22)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 2,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .init = vb_scheme_init_xv,
  .step = step,
  .energy = vb_scheme_energy_xv,
};
