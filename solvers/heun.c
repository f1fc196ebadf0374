/* heun.c - Heun's predictor-corrector method (Papetti eq 22), literally.
 *
 * When the force does not depend on the velocity, eq 22's map is velocity
 * Verlet's (eq 21): the two differ only through damping, where eq 22
 * evaluates f with v~_(n+1) = v_n + h f_n/m and eq 21 with v_(n+1/2).
 *
 * The stored acceleration a_n is the previous step's, computed with the
 * predicted velocity v~_n as eq 22 does, and is reused in both the
 * predictor and the corrector of the next step. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Work space: vt[nm], a1[nm], then x and rate [nc]. */
static void *
alloc(int nm, int nc)
{
  return vb_workspace_alloc(2 * (size_t)nm + 2 * (size_t)nc);
}

static int
step(void *ws, const vb_system *sys, double t, double h, double *q, double *v, double *a, double *f)
{
  int nm = sys->nm;
  double *vt = ws, *a1 = vt + nm, *x = a1 + nm, *rate = x + sys->nc;
  double t1 = t + h;
  for (int j = 0; j < nm; j++) {
    /* eq 22 predictor: v~_(n+1) = v_n + h f_n/m */
    vt[j] = v[j] + h * a[j];
    /* eq 22: x_(n+1) = x_n + h/2 (v_n + v~_(n+1)) */
    q[j] += 0.5 * h * (v[j] + vt[j]);
  }
  /* eq 22: f_(n+1) = f(x_(n+1), v~_(n+1)) */
  sys->accel(sys->ctx, t1, q, vt, a1, x, rate, f);
  /* eq 22 corrector: v_(n+1) = v_n + h/2 (f_n + f_(n+1))/m */
  for (int j = 0; j < nm; j++) {
    v[j] += 0.5 * h * (a[j] + a1[j]);
    a[j] = a1[j];
  }
  return VB_OK;
}

static const vb_scheme_ops ops = {.alloc = alloc, .free = vb_workspace_free, .step = step};

const vb_scheme vb_scheme_heun = {
    .name = "heun",
    .doc = "Heun predictor-corrector (RK2), force from the predicted velocity (Papetti eq 22)",
    .family = VB_FAMILY_EXPLICIT,
    .order = 2,
    .min_contact_steps = 4,
    .energy_conserving = 0,
    /* with a force of the position only, eq 22 is velocity Verlet's map
     * (x_(n+1) = x_n + h v_n + h^2/2 f_n/m, then the trapezoidal velocity):
     * an undamped mode is stable for w dt < 2.  (Classical RK2, which
     * grows by sqrt(1 + (w dt)^4 / 4) a step, is not this scheme.)
     * Damping, through the predicted velocity, lowers the bound as it does
     * verlet's: 1.96 at zeta = 0.01, 1.64 at 0.1, 1.13 at 0.3 (spectral
     * radius of the step's 3x3 map); a run past it ends as "diverged". */
    .stability_limit = 2.0,
    .ops = &ops,
};
