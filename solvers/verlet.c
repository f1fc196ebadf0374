/* verlet.c - velocity Verlet (Papetti eq 21), written literally.
 *
 * The stored force f_n is the one computed in the previous step from the
 * predicted half-step velocity, f(x_n, v_(n-1/2)), exactly as eq 21 reuses
 * it; F = -f + m a_ext is the total force on the mass. */
#include <math.h>
#include "internal.h"

static int
step(const vb_step_ctx *ctx, vb_cstate *st)
{
  double h = ctx->dt, m = ctx->m;
  double x0 = st->x, v0 = st->v;
  double Fn = -st->f + m * ctx->a_ext;
  /* eq 21: x_(n+1) = x_n + h v_n + h^2/2 f_n/m */
  double x1 = x0 + h * v0 + 0.5 * h * h * Fn / m;
  /* eq 21 predictor: v_(n+1/2) = v_n + h/2 f_n/m */
  double vh = v0 + 0.5 * h * Fn / m;
  /* eq 21: f_(n+1) = f(x_(n+1), v_(n+1/2)) */
  double f1 = vb_law_force(ctx->law, x1, vh);
  /* eq 21 corrector: v_(n+1) = v_(n+1/2) + h/2 f_(n+1)/m */
  double v1 = vh + 0.5 * h * (-f1 + m * ctx->a_ext) / m;
  st->x_prev = x0;
  st->x = x1;
  st->v = v1;
  st->f = f1;
  st->iterations = 0;
  st->dissipated += vb_law_damping_work(ctx->law, h, x0, v0, x1, v1);
  return isfinite(x1) && isfinite(v1) ? VB_OK : VB_EDIVERGED;
}

const vb_scheme vb_scheme_verlet = {
  .name = "verlet",
  .doc = "velocity Verlet, force from the predicted half-step velocity (Papetti eq 21)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 2,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .init = vb_scheme_init_xv,
  .step = step,
  .energy = vb_scheme_energy_xv,
};
