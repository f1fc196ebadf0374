/* internal.h - declarations shared inside libvibro, not installed. */
#ifndef VIBRO_INTERNAL_H
#define VIBRO_INTERNAL_H

#include "vibro.h"

/* Scalar residual r(y) and its derivative, for vb_newton_solve. */
typedef double (*vb_residual_fn)(double y, void *data, double *dr);

/* Solve r(y) = 0 by Newton's method from y0, safeguarded by bisection
 * inside [lo, hi] once a sign change is known.  Converged when the update
 * is below tol * max(|y|, scale).  Stores the iterate in *y and the count
 * in *iterations; VB_OK or VB_ENOCONV after max_iter iterations. */
int vb_newton_solve(vb_residual_fn r, void *data, double y0, double scale,
                    double tol, int max_iter, double *y, int *iterations);

/* Power dissipated by the Hunt-Crossley damping, mu V'(x) v^2, W. */
double vb_law_damping_power(const vb_law *law, double x, double v);

/* Energy dissipated over one step of an explicit or trapezoidal scheme,
 * by the trapezoidal rule on the damping power at the two samples, J. */
double vb_law_damping_work(const vb_law *law, double dt, double x0, double v0,
                           double x1, double v1);

/* State at n = 0 of a scheme whose state is (x, v): x, v and f(x, v). */
void vb_scheme_init_xv(const vb_step_ctx *ctx, vb_cstate *st, double x0, double v0);
/* Discrete energy of an (x, v) state: m v^2 / 2 + V(x), gravity at x. */
void vb_scheme_energy_xv(const vb_step_ctx *ctx, const vb_cstate *st,
                         double *kinetic, double *potential, double *xbar);

/* One step of the three-point scheme (Chatziioannou eq 7); the quadratic
 * scheme falls back to it on a negative discriminant. */
int vb_three_point_step(const vb_step_ctx *ctx, vb_cstate *st);

/* Start of a three-level scheme: x^(-1) is the exact free-flight position
 * at t = -dt, x(0) - dt v(0) + a_ext dt^2 / 2. */
void vb_three_level_init(const vb_step_ctx *ctx, vb_cstate *st, double x0, double v0);

#endif
