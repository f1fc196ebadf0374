/* three_point.c - the three-point, one-variable energy-conserving scheme
 * (Chatziioannou eq 7 = Ducceschi eq 23), solved by Newton.
 *
 *   eq 7: y^(n+1) - 2 y^n + y^(n-1)
 *           = -beta3 (G(y^(n+1)) - G(y^(n-1))) / (y^(n+1) - y^(n-1)),
 * beta3 = k dt^2 / (m (a+1)): the centred second difference for the bodies
 * (island.c steps the linear modes by the exact centred recursion, which
 * for a mass is the second difference) with the contact force centred at n
 * equal to the discrete gradient between n-1 and n+1.  Hunt-Crossley
 * damping adds d * (x^(n+1) - x^(n-1)) / (2 dt), d = mu * |gradient|; the
 * conserved energy is (Bilbao) m/2 ((x^(n+1) - x^n)/dt)^2
 * + (V(x^(n+1)) + V(x^n))/2, and damping removes exactly
 * d (x^(n+1) - x^(n-1))^2 / (4 dt) per step. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* V(x^(n-1)), J: the part of eq 7's force that is the same for every
 * trial x1 of a step. */
static double
step_base(const vb_contact *ct, const vb_chist *h)
{
  return law_potential(&ct->law, h->xm);
}

/* Eq 7's force with b = step_base's V(x^(n-1)): discrete gradient over
 * (n-1, n+1) plus centred damping. */
static double
step_force_at(const vb_contact *ct, const vb_chist *h, double dt, double x1, double b,
              double *dfdx)
{
  const vb_law *law = &ct->law;
  double rate = (x1 - h->xm) / (2.0 * dt);
  double dg, g = law_gradient_pair_v0(law, x1, h->xm, b, &dg);
  double d = law_damping(law, g);
  *dfdx = dg * (1.0 + law_damping_slope(law, g) * rate) + d / (2.0 * dt);
  return g + d * rate;
}

/* Eq 7's force: step_force_at with V(x^(n-1)) formed here. */
static double
step_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx)
{
  return step_force_at(ct, h, dt, x1, step_base(ct, h), dfdx);
}

/* The law at n+1 with the rate of the step into it (both three-level
 * schemes hold this). */
double
vb_three_level_held_force(const vb_contact *ct, const vb_chist *h, double dt, double x1,
                          double fbar)
{
  (void)fbar;
  return vb_law_force(&ct->law, x1, (x1 - h->x) / dt);
}

static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)dt;
  return 0.5 * (fbar - vb_law_gradient(&ct->law, x1, h->xm)) * (x1 - h->xm);
}

/* (V(x^(n+1)) + V(x^n)) / 2. */
static double
potential(const vb_contact *ct, const vb_chist *h)
{
  return 0.5 * (vb_law_potential(&ct->law, h->x) + vb_law_potential(&ct->law, h->xm));
}

static const vb_scheme_ops ops = {
    .step_force = step_force,
    .step_base = step_base,
    .step_force_at = step_force_at,
    .held_force = vb_three_level_held_force,
    .dissipation = dissipation,
    .potential = potential,
};

const vb_scheme vb_scheme_three_point = {
    .name = "three-point",
    .doc = "three-point, one-variable energy-conserving scheme (Chatziioannou eq 7, Ducceschi eq "
           "23), Newton",
    .family = VB_FAMILY_THREE_LEVEL,
    .order = 2,
    .min_contact_steps = 2,
    .energy_conserving = 1,
    .exact_duration_eq = 16,
    .friction = 1, /* lib/island/friction.c steps its contacts' friction after the
                      step, bounded by its fbar (issue 30; doc/friction.md) */
    .ops = &ops,
};
