/* rk4.c - classical fourth-order Runge-Kutta (Papetti eq 23), literally.
 *
 * k1 reuses the stored acceleration a_n, evaluated with f_n = f(x_n, v_n)
 * at the end of the previous step; the three other stages evaluate the
 * law afresh. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Work space: qs, vs, ak, dq, dv [nm], then x, rate and the stage forces [nc]. */
static void *
alloc(int nm, int nc)
{
  return vb_workspace_alloc(5 * (size_t)nm + 3 * (size_t)nc);
}

static int
step(void *ws, const vb_system *sys, double t, double h, double *q, double *v, double *a, double *f)
{
  int nm = sys->nm, nc = sys->nc;
  double *qs = ws, *vs = qs + nm, *ak = vs + nm, *dq = ak + nm, *dv = dq + nm;
  double *x = dv + nm, *rate = x + nc, *fs = rate + nc;
  /* eq 23b: k1 = h f_n/m, l1 = h v_n */
  for (int j = 0; j < nm; j++) {
    dq[j] = h * v[j];
    dv[j] = h * a[j];
    qs[j] = q[j] + 0.5 * h * v[j];
    vs[j] = v[j] + 0.5 * h * a[j];
  }
  /* k2 = h f(x_n + l1/2, v_n + k1/2)/m, l2 = h (v_n + k1/2) */
  sys->accel(sys->ctx, t + 0.5 * h, qs, vs, ak, x, rate, fs);
  for (int j = 0; j < nm; j++) {
    double l2 = h * vs[j], k2 = h * ak[j];
    dq[j] += 2.0 * l2;
    dv[j] += 2.0 * k2;
    qs[j] = q[j] + 0.5 * l2;
    vs[j] = v[j] + 0.5 * k2;
  }
  /* k3 = h f(x_n + l2/2, v_n + k2/2)/m, l3 = h (v_n + k2/2) */
  sys->accel(sys->ctx, t + 0.5 * h, qs, vs, ak, x, rate, fs);
  for (int j = 0; j < nm; j++) {
    double l3 = h * vs[j], k3 = h * ak[j];
    dq[j] += 2.0 * l3;
    dv[j] += 2.0 * k3;
    qs[j] = q[j] + l3;
    vs[j] = v[j] + k3;
  }
  /* k4 = h f(x_n + l3, v_n + k3)/m, l4 = h (v_n + k3) */
  sys->accel(sys->ctx, t + h, qs, vs, ak, x, rate, fs);
  for (int j = 0; j < nm; j++) {
    dq[j] += h * vs[j];
    dv[j] += h * ak[j];
    /* eq 23a */
    q[j] += dq[j] / 6.0;
    v[j] += dv[j] / 6.0;
  }
  /* f_(n+1) = f(x_(n+1), v_(n+1)), stored for k1 of the next step */
  sys->accel(sys->ctx, t + h, q, v, a, x, rate, f);
  return VB_OK;
}

static const vb_scheme_ops ops = {.alloc = alloc, .free = vb_workspace_free, .step = step};

const vb_scheme vb_scheme_rk4 = {
    .name = "rk4",
    .doc = "classical 4th-order Runge-Kutta, four force evaluations (Papetti eq 23)",
    .family = VB_FAMILY_EXPLICIT,
    .order = 4,
    .min_contact_steps = 4,
    .energy_conserving = 0,
    .stability_limit = 2.78, /* 2 sqrt(2) on the imaginary axis, less a margin */
    .ops = &ops,
};
