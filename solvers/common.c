/* common.c - operations shared by the schemes whose state is (x, v). */
#include "internal.h"

/* State at n = 0 of a two-level or explicit scheme: x, v and f(x, v). */
void
vb_scheme_init_xv(const vb_step_ctx *ctx, vb_cstate *st, double x0, double v0)
{
  st->x = x0;
  st->v = v0;
  st->x_prev = x0;
  st->f = vb_law_force(ctx->law, x0, v0);
}

/* Energy of an (x, v) state: m v^2 / 2 + V(x), gravity taken at x. */
void
vb_scheme_energy_xv(const vb_step_ctx *ctx, const vb_cstate *st, double *kinetic,
                    double *potential, double *xbar)
{
  *kinetic = 0.5 * ctx->m * st->v * st->v;
  *potential = vb_law_potential(ctx->law, st->x);
  *xbar = st->x;
}
