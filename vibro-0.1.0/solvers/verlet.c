/* verlet.c - velocity Verlet (Papetti eq 21), written literally.
 *
 * The stored acceleration a_n is the one computed in the previous step from
 * the predicted half-step velocity: the contact force f_(n) = f(x_n,
 * v_(n-1/2)) (and any velocity-dependent modal damping) is evaluated with
 * v_(n-1/2), exactly as eq 21 reuses it.  For one mass a_n = (-f_n + F)/m. */
#include <math.h>
#include "internal.h"

static int
step_explicit(vb_island *is)
{
  int nm = is->nm, nc = is->nc;
  double h = is->dt;
  double *q = is->q, *v = is->v, *a = is->acc;
  double *vh = is->scratch, *ext = is->scratch + nm;
  double t1 = is->time + h;
  for (int j = 0; j < nm; j++) {
    /* eq 21: x_(n+1) = x_n + h v_n + h^2/2 f_n/m */
    q[j] += h * v[j] + 0.5 * h * h * a[j];
    /* eq 21 predictor: v_(n+1/2) = v_n + h/2 f_n/m */
    vh[j] = v[j] + 0.5 * h * a[j];
  }
  /* eq 21: f_(n+1) = f(x_(n+1), v_(n+1/2)) */
  vb_island_compressions(is, q, vh, t1, is->x1, is->xt);
  for (int c = 0; c < nc; c++)
    is->fbar[c] = vb_law_force(&is->cts[c].law, is->x1[c], is->xt[c]);
  vb_island_external(is, t1, ext);
  vb_island_accel(is, q, vh, is->fbar, ext, a);
  /* eq 21 corrector: v_(n+1) = v_(n+1/2) + h/2 f_(n+1)/m */
  for (int j = 0; j < nm; j++)
    v[j] = vh[j] + 0.5 * h * a[j];
  for (int c = 0; c < nc; c++)
    is->hist[c].f = is->fbar[c];
  return VB_OK;
}

const vb_scheme vb_scheme_verlet = {
  .name = "verlet",
  .doc = "velocity Verlet, force from the predicted half-step velocity (Papetti eq 21)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 2,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .step_explicit = step_explicit,
};
