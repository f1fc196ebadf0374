/* rk4.c - classical fourth-order Runge-Kutta (Papetti eq 23), literally.
 *
 * k1 reuses the stored acceleration a_n, evaluated with f_n = f(x_n, v_n)
 * at the end of the previous step; the three other stages evaluate the
 * law afresh. */
#include <math.h>
#include "internal.h"

/* Acceleration of the island at stage state (q, v) and time t into a. */
static void
stage(vb_island *is, const double *q, const double *v, double t, double *ext, double *a)
{
  vb_island_compressions(is, q, v, t, is->x1, is->xt);
  for (int c = 0; c < is->nc; c++)
    is->fbar[c] = vb_law_force(&is->cts[c].law, is->x1[c], is->xt[c]);
  vb_island_external(is, t, ext);
  vb_island_accel(is, q, v, is->fbar, ext, a);
}

static int
step_explicit(vb_island *is)
{
  int nm = is->nm;
  double h = is->dt, t = is->time;
  double *q = is->q, *v = is->v, *a = is->acc;
  double *qs = is->scratch, *vs = is->scratch + nm, *ak = is->scratch + 2 * nm;
  double *ext = is->scratch + 3 * nm, *dq = is->scratch + 4 * nm, *dv = is->scratch + 5 * nm;
  /* eq 23b: k1 = h f_n/m, l1 = h v_n */
  for (int j = 0; j < nm; j++) {
    dq[j] = h * v[j];
    dv[j] = h * a[j];
    qs[j] = q[j] + 0.5 * h * v[j];
    vs[j] = v[j] + 0.5 * h * a[j];
  }
  /* k2 = h f(x_n + l1/2, v_n + k1/2)/m, l2 = h (v_n + k1/2) */
  stage(is, qs, vs, t + 0.5 * h, ext, ak);
  for (int j = 0; j < nm; j++) {
    double l2 = h * vs[j], k2 = h * ak[j];
    dq[j] += 2.0 * l2;
    dv[j] += 2.0 * k2;
    qs[j] = q[j] + 0.5 * l2;
    vs[j] = v[j] + 0.5 * k2;
  }
  /* k3 = h f(x_n + l2/2, v_n + k2/2)/m, l3 = h (v_n + k2/2) */
  stage(is, qs, vs, t + 0.5 * h, ext, ak);
  for (int j = 0; j < nm; j++) {
    double l3 = h * vs[j], k3 = h * ak[j];
    dq[j] += 2.0 * l3;
    dv[j] += 2.0 * k3;
    qs[j] = q[j] + l3;
    vs[j] = v[j] + k3;
  }
  /* k4 = h f(x_n + l3, v_n + k3)/m, l4 = h (v_n + k3) */
  stage(is, qs, vs, t + h, ext, ak);
  for (int j = 0; j < nm; j++) {
    dq[j] += h * vs[j];
    dv[j] += h * ak[j];
    /* eq 23a */
    q[j] += dq[j] / 6.0;
    v[j] += dv[j] / 6.0;
  }
  /* f_(n+1) = f(x_(n+1), v_(n+1)), stored for k1 of the next step */
  stage(is, q, v, t + h, ext, a);
  for (int c = 0; c < is->nc; c++)
    is->hist[c].f = is->fbar[c];
  return VB_OK;
}

const vb_scheme vb_scheme_rk4 = {
  .name = "rk4",
  .doc = "classical 4th-order Runge-Kutta, four force evaluations (Papetti eq 23)",
  .family = VB_FAMILY_EXPLICIT,
  .order = 4,
  .min_contact_steps = 4,
  .energy_conserving = 0,
  .step_explicit = step_explicit,
};
