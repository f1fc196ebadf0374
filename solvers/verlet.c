/* verlet.c - velocity Verlet (Papetti eq 21), written literally.
 *
 * The stored acceleration a_n is the one computed in the previous step from
 * the predicted half-step velocity: the contact force f_(n) = f(x_n,
 * v_(n-1/2)) (and any velocity-dependent modal damping) is evaluated with
 * v_(n-1/2), exactly as eq 21 reuses it.  For one mass a_n = (-f_n + F)/m. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Work space: vh[nm], then x and rate [nc]. */
static void *
alloc(int nm, int nc)
{
  return vb_workspace_alloc((size_t)nm + 2 * (size_t)nc);
}

static int
step(void *ws, const vb_system *sys, double t, double h, double *q, double *v, double *a, double *f)
{
  int nm = sys->nm;
  double *vh = ws, *x = vh + nm, *rate = x + sys->nc;
  double t1 = t + h;
  for (int j = 0; j < nm; j++) {
    /* eq 21: x_(n+1) = x_n + h v_n + h^2/2 f_n/m */
    q[j] += h * v[j] + 0.5 * h * h * a[j];
    /* eq 21 predictor: v_(n+1/2) = v_n + h/2 f_n/m */
    vh[j] = v[j] + 0.5 * h * a[j];
  }
  /* eq 21: f_(n+1) = f(x_(n+1), v_(n+1/2)) */
  sys->accel(sys->ctx, t1, q, vh, a, x, rate, f);
  /* eq 21 corrector: v_(n+1) = v_(n+1/2) + h/2 f_(n+1)/m */
  for (int j = 0; j < nm; j++)
    v[j] = vh[j] + 0.5 * h * a[j];
  return VB_OK;
}

static const vb_scheme_ops ops = {.alloc = alloc, .free = vb_workspace_free, .step = step};

const vb_scheme vb_scheme_verlet = {
    .name = "verlet",
    .doc = "velocity Verlet, force from the predicted half-step velocity (Papetti eq 21)",
    .family = VB_FAMILY_EXPLICIT,
    .order = 2,
    .min_contact_steps = 4,
    .energy_conserving = 0,
    .stability_limit = 2.0, /* leapfrog */
    .ops = &ops,
};
