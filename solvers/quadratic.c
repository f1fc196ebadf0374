/* quadratic.c - Ducceschi's non-iterative energy-conserving scheme
 * (Ducceschi eq 16-19) with free parameter s.
 *
 * With phi the contact potential, y = x^(n+1) - x^(n-1), d = x^n - x^(n-1),
 * the discrete energy (eq 7) h^(n-1/2) = m/2 (d/dt)^2 + P(s)_(n-1,n) (eq 6)
 * is conserved when A y^2 + B y + C = 0 (eq 17):
 *   A = m/dt^2 + s phi''(x^n)
 *   B = -2 m d / dt^2 + 2 s phi'(x^n) - 2 s d phi''(x^n)
 *   C = 2 P(s)_(n,n-1) - 2 P(s)_(n-1,n).
 * Taking away the inertia m (y - 2d)/dt^2, eq 16 (A y + B + C/y = 0) says
 * the contact force centred at n is
 *   F(y) = s phi'' (y - 2d) + 2 s phi' + C / y,
 * which is how island.c couples it to the bodies (x^(n+1) = e - w F).  For
 * an island with this one contact, x^(n+1) = e - w F is again a quadratic
 * in y, (1 + w s phi'') y^2 + (w (2 s phi' - 2 s d phi'') - (e - x^(n-1))) y
 * + w C = 0, solved in closed form with the root rule of Ducceschi 3.3.2:
 * y- if B >= 0, y+ if B < 0 (eq 19), the form free of cancellation; for a
 * mass against a wall (w = dt^2/m, e = 2x^n - x^(n-1)) it is eq 17 times
 * dt^2/m.  Several contacts in one island are solved together by Newton on
 * the same F (no longer iteration-free, still energy-conserving).
 * Hunt-Crossley damping enters as c (x^(n+1) - x^(n-1)) / (2 dt) with
 * c = mu |phi'(x^n)|, adding c/(2 dt) to A and removing c y^2 / (4 dt).
 * Gravity and external forces act on the modes (island.c), outside the
 * s-weighted expansion, which for s != 1/2 would make even free fall
 * inexact by (1 - 2s) m a^2 dt^2 per step.
 *
 * A negative discriminant (eq 18 violated) means no real y conserves h:
 * island.c then takes that step with the three-point force (Ducceschi eq
 * 23, Newton), which conserves its own discrete energy (the centred
 * average of the true potential).  The two energies differ (the expanded
 * P(s) against the average of the true potential), so the switch between
 * them is not energy-consistent: measured on a 1 g mass at 3 m/s against
 * a wall (hunt-crossley k 1e9, alpha 1.5, s 0.5, 44.1 kHz, 1.8 samples a
 * contact) it left at 4.93 m/s.  At the failing step no real y conserves
 * h, so there is no conserving choice; the step is counted in `fallbacks`
 * and flagged in the impact's event row, and a run whose energy passes 2x
 * what it can hold says "energy gain" in its status (lib/run/run.c). */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Ducceschi eq 6: P(s) of the contact expanded around `at`, taken at `to`. */
static double
taylor(const vb_contact *ct, double at, double to)
{
  double e = to - at;
  return vb_law_potential(&ct->law, at) + ct->s * e * vb_law_elastic(&ct->law, at) +
         ct->s * 0.5 * e * e * vb_law_curvature(&ct->law, at);
}

/* Eq 16's terms that do not depend on y. */
static void
coefficients(const vb_contact *ct, const vb_chist *h, double dt, double *p1, double *p2, double *c,
             double *C)
{
  *p1 = vb_law_elastic(&ct->law, h->x);
  *p2 = vb_law_curvature(&ct->law, h->x);
  *c = vb_law_damping(&ct->law, *p1) / (2.0 * dt);
  *C = 2.0 * taylor(ct, h->x, h->xm) - 2.0 * taylor(ct, h->xm, h->x);
}

/* F(y) = s phi'' (y - 2d) + 2 s phi' + C/y + c y. */
static double
step_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx)
{
  double p1, p2, c, C, s = ct->s;
  coefficients(ct, h, dt, &p1, &p2, &c, &C);
  double y = x1 - h->xm, d = h->x - h->xm;
  double cy = C != 0.0 ? C / y : 0.0;
  *dfdx = s * p2 + c - (C != 0.0 ? C / (y * y) : 0.0);
  return s * p2 * (y - 2.0 * d) + 2.0 * s * p1 + cy + c * y;
}

/* Eq 17-19 for x1 = e - w F(x1). */
static int
solve_single(const vb_contact *ct, const vb_chist *h, double dt, double e, double w, double *x1)
{
  double p1, p2, c, C, s = ct->s;
  coefficients(ct, h, dt, &p1, &p2, &c, &C);
  double d = h->x - h->xm;
  double A = 1.0 + w * (s * p2 + c);
  double B = w * (2.0 * s * p1 - 2.0 * s * d * p2) - (e - h->xm);
  double Cw = w * C;
  /* eq 18 */
  double disc = B * B - 4.0 * A * Cw;
  if (!(disc >= 0.0))
    return VB_EDISCRIM;
  /* eq 19 with the root rule of 3.3.2 */
  double y = B >= 0.0 ? (-B - sqrt(disc)) / (2.0 * A) : (-B + sqrt(disc)) / (2.0 * A);
  *x1 = h->xm + y;
  return isfinite(*x1) ? VB_OK : VB_EDIVERGED;
}

/* c y^2 / (4 dt) with c from x^n. */
static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)fbar;
  double y = x1 - h->xm;
  return vb_law_damping(&ct->law, vb_law_elastic(&ct->law, h->x)) * y * y / (4.0 * dt);
}

/* P(s)_(n,n+1): expansion around x^n taken at x^(n+1). */
static double
potential(const vb_contact *ct, const vb_chist *h)
{
  return taylor(ct, h->xm, h->x);
}

extern const vb_scheme vb_scheme_three_point;

/* Its parameter s (eq 16). */
static const char *const params[] = {"s", NULL};

static const vb_scheme_ops ops = {
    .step_force = step_force,
    .solve_single = solve_single,
    .held_force = vb_three_level_held_force,
    .dissipation = dissipation,
    .potential = potential,
};

const vb_scheme vb_scheme_quadratic = {
    .name = "quadratic",
    .doc = "Ducceschi's non-iterative energy-conserving scheme, parameter s (Ducceschi eq 16-19)",
    .family = VB_FAMILY_THREE_LEVEL,
    .order = 1,
    .min_contact_steps = 2,
    .energy_conserving = 1,
    .fallback = &vb_scheme_three_point,
    .params = params,
    .ops = &ops,
};
