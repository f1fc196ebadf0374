/* position_verlet.c - position Verlet (leapfrog drift-kick-drift).
 *
 * Not from the seed papers: Hairer, Lubich & Wanner, "Geometric numerical
 * integration illustrated by the Stormer-Verlet method", Acta Numerica 12
 * (2003) 399-450, section 1 (the Stormer-Verlet method with the roles of
 * positions and velocities exchanged); the same method is REBOUND's
 * LEAPFROG integrator.  For forces that depend on position only it is
 * symplectic, time-reversible and second order, stable up to omega h < 2.
 *
 * The kick samples the force at the mid-step, with the mid-step velocity
 * predicted from the stored acceleration a_n = f(x_n, v_n)/m:
 *
 *   x_(n+1/2) = x_n + h/2 v_n
 *   v~_(n+1/2) = v_n + h/2 a_n
 *   v_(n+1)   = v_n + h f(t_(n+1/2), x_(n+1/2), v~_(n+1/2))/m
 *   x_(n+1)   = x_(n+1/2) + h/2 v_(n+1)
 *
 * Position and velocity of the force then belong to the same instant, so
 * the method stays second order when the force depends on velocity
 * (damping, Hunt-Crossley), where velocity Verlet in Papetti's eq 21 drops
 * to first.  A second evaluation at (x_(n+1), v_(n+1)) gives the
 * acceleration and the contact forces at n+1 that the next step and the
 * recording use: two force evaluations a step. */
#include "scheme.h"

/* Work space: qh, vh, ah [nm], then x and rate [nc]. */
static void *
alloc(int nm, int nc)
{
  return vb_workspace_alloc(3 * (size_t)nm + 2 * (size_t)nc);
}

static int
step(void *ws, const vb_system *sys, double t, double h, double *q, double *v, double *a, double *f)
{
  int nm = sys->nm;
  double *qh = ws, *vh = qh + nm, *ah = vh + nm, *x = ah + nm, *rate = x + sys->nc;
  /* drift: x_(n+1/2) = x_n + h/2 v_n, and the predicted v~_(n+1/2) */
  for (int j = 0; j < nm; j++) {
    qh[j] = q[j] + 0.5 * h * v[j];
    vh[j] = v[j] + 0.5 * h * a[j];
  }
  /* kick with the mid-step force (f receives it, then the end's) */
  sys->accel(sys->ctx, t + 0.5 * h, qh, vh, ah, x, rate, f);
  for (int j = 0; j < nm; j++) {
    v[j] += h * ah[j];
    /* drift: x_(n+1) = x_(n+1/2) + h/2 v_(n+1) */
    q[j] = qh[j] + 0.5 * h * v[j];
  }
  /* f_(n+1) = f(x_(n+1), v_(n+1)), stored for the next step's predictor */
  sys->accel(sys->ctx, t + h, q, v, a, x, rate, f);
  return VB_OK;
}

static const vb_scheme_ops ops = {.alloc = alloc, .free = vb_workspace_free, .step = step};

const vb_scheme vb_scheme_position_verlet = {
    .name = "position-verlet",
    .doc = "position Verlet (leapfrog drift-kick-drift), mid-step force; not from the seed papers "
           "(Hairer, Lubich & Wanner, Acta Numerica 2003)",
    .family = VB_FAMILY_EXPLICIT,
    .order = 2,
    .min_contact_steps = 4,
    .energy_conserving = 0,
    .stability_limit = 2.0, /* leapfrog */
    .ops = &ops,
};
