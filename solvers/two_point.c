/* two_point.c - Chatziioannou & van Walstijn's two-point, two-variable
 * energy-conserving scheme (Chatziioannou eq 8).
 *
 * With q^n = p^n dt / (2m) = v^n dt / 2 and V = k/(a+1) G the scheme reads
 *   eq 8a: y^(n+1) - y^n = q^(n+1) + q^n
 *   eq 8b: q^(n+1) - q^n = -beta2 (G(y^(n+1)) - G(y^n)) / (y^(n+1) - y^n),
 * beta2 = k dt^2 / (2 m (a+1)): the trapezoidal rule for the bodies (eq 8a;
 * island.c steps the linear modes by it) with the contact force over the
 * step equal to the discrete gradient (V(x^(n+1)) - V(x^n)) / (x^(n+1) -
 * x^n).  For one mass against a wall island.c's update is exactly eq 8
 * (Chatziioannou eq 11), solved by Newton.  Hunt-Crossley damping enters as
 * d * (x^(n+1) - x^n) / dt with d = mu * |gradient| (spring: c), so a step
 * dissipates exactly d (x^(n+1) - x^n)^2 / dt and the energy
 * sum m v^2 / 2 + V(x) balances to Newton tolerance. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Eq 8b with V(x^n) given (b, vb_two_level_potential's value, the same
 * for every trial x1 of a step): the discrete gradient plus damping at the
 * step's mean rate. */
static double
step_force_at(const vb_contact *ct, const vb_chist *h, double dt, double x1, double b,
              double *dfdx)
{
  const vb_law *law = &ct->law;
  double rate = (x1 - h->x) / dt;
  double dg, g = law_gradient_pair_v0(law, x1, h->x, b, &dg);
  double d = law_damping(law, g);
  *dfdx = dg * (1.0 + law_damping_slope(law, g) * rate) + d / dt;
  return g + d * rate;
}

/* Eq 8b: step_force_at with V(x^n) formed here. */
static double
step_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx)
{
  return step_force_at(ct, h, dt, x1, vb_two_level_potential(ct, h), dfdx);
}

/* The step's mean force is what the recording shows. */
static double
held_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)ct;
  (void)h;
  (void)dt;
  (void)x1;
  return fbar;
}

/* Exactly the damping part of the step force times the step. */
static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)dt;
  return (fbar - vb_law_gradient(&ct->law, x1, h->x)) * (x1 - h->x);
}

/* The law's potential at n (both two-level schemes hold this). */
double
vb_two_level_potential(const vb_contact *ct, const vb_chist *h)
{
  return law_potential(&ct->law, h->x);
}

static const vb_scheme_ops ops = {
    .step_force = step_force,
    .step_base = vb_two_level_potential,
    .step_force_at = step_force_at,
    .held_force = held_force,
    .dissipation = dissipation,
    .potential = vb_two_level_potential,
};

const vb_scheme vb_scheme_two_point = {
    .name = "two-point",
    .doc = "two-point, two-variable energy-conserving scheme (Chatziioannou eq 8), Newton",
    .family = VB_FAMILY_TWO_LEVEL,
    .order = 2,
    .min_contact_steps = 1,
    .energy_conserving = 1,
    .exact_duration_eq = 15,
    .ops = &ops,
    .friction = 1, /* lib/friction.c steps its contacts' friction (issue 30) */
};
