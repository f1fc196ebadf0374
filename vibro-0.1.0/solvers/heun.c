/* heun.c - Heun's predictor-corrector method (Papetti eq 22), literally.
 *
 * The stored acceleration a_n is the previous step's, computed with the
 * predicted velocity v~_n as eq 22 does, and is reused in both the
 * predictor and the corrector of the next step. */
#include <math.h>
#include "internal.h"

static int
step_explicit(vb_island *is)
{
  int nm = is->nm, nc = is->nc;
  double h = is->dt;
  double *q = is->q, *v = is->v, *a = is->acc;
  double *vt = is->scratch, *ext = is->scratch + nm, *a1 = is->scratch + 2 * nm;
  double t1 = is->time + h;
  for (int j = 0; j < nm; j++) {
    /* eq 22 predictor: v~_(n+1) = v_n + h f_n/m */
    vt[j] = v[j] + h * a[j];
    /* eq 22: x_(n+1) = x_n + h/2 (v_n + v~_(n+1)) */
    q[j] += 0.5 * h * (v[j] + vt[j]);
  }
  /* eq 22: f_(n+1) = f(x_(n+1), v~_(n+1)) */
  vb_island_compressions(is, q, vt, t1, is->x1, is->xt);
  for (int c = 0; c < nc; c++)
    is->fbar[c] = vb_law_force(&is->cts[c].law, is->x1[c], is->xt[c]);
  vb_island_external(is, t1, ext);
  vb_island_accel(is, q, vt, is->fbar, ext, a1);
  /* eq 22 corrector: v_(n+1) = v_n + h/2 (f_n + f_(n+1))/m */
  for (int j = 0; j < nm; j++) {
    v[j] += 0.5 * h * (a[j] + a1[j]);
    a[j] = a1[j];
  }
  for (int c = 0; c < nc; c++)
    is->hist[c].f = is->fbar[c];
  return VB_OK;
}

const vb_scheme vb_scheme_heun = {
  .name = "heun",
  .doc = "Heun predictor-corrector (RK2), force from the predicted velocity (Papetti eq 22)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 2,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .step_explicit = step_explicit,
};
