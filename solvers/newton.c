/* newton.c - the scalar Newton solver shared by the implicit schemes. */
#include <math.h>
#include "scheme.h"

/* Newton's method with a bisection safeguard once a sign change is known. */
int
vb_newton_solve(vb_residual_fn r, void *data, double y0, double scale, double tol, int max_iter,
                double *y, int *iterations)
{
  double lo = NAN, hi = NAN; /* bracket: r(lo) < 0 < r(hi) */
  double yk = y0;
  for (int it = 1; it <= max_iter; it++) {
    double dr = 0.0;
    double rk = r(yk, data, &dr);
    if (!isfinite(rk)) {
      *y = yk;
      *iterations = it;
      return VB_EDIVERGED;
    }
    if (rk == 0.0) {
      *y = yk;
      *iterations = it;
      return VB_OK;
    }
    if (rk < 0.0)
      lo = yk;
    else
      hi = yk;
    double next = (dr != 0.0 && isfinite(dr)) ? yk - rk / dr : NAN;
    double limit = tol * fmax(fabs(yk), scale);
    if (fabs(next - yk) <= limit) {
      /* converged: the Newton update is below the tolerance */
      *y = next;
      *iterations = it;
      return VB_OK;
    }
    int bracketed = !isnan(lo) && !isnan(hi);
    if (bracketed && !(next >= fmin(lo, hi) && next <= fmax(lo, hi)))
      next = 0.5 * (lo + hi);
    if (!isfinite(next)) {
      *y = yk;
      *iterations = it;
      return VB_ENOCONV;
    }
    double step = next - yk;
    yk = next;
    if (fabs(step) <= tol * fmax(fabs(yk), scale)) {
      *y = yk;
      *iterations = it;
      return VB_OK;
    }
  }
  *y = yk;
  *iterations = max_iter;
  return VB_ENOCONV;
}
