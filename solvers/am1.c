/* am1.c - one-step Adams-Moulton (trapezoidal rule) with the K-method and
 * Newton (Papetti eq 20).
 *
 * Papetti eq 20 with the total force F on the mass:
 *   x_(n+1) = x_n + h v_n + h^2/(4m) (F_(n+1) + F_n)
 *   v_(n+1) = v_n + h/(2m) (F_(n+1) + F_n),
 * i.e. the trapezoidal rule (island.c steps the linear modes by it) with
 * the contact force over the step (f_n + f_(n+1)) / 2.  K-method: the
 * known part gives the predicted compression, the unknown f_(n+1) enters
 * through the constant compliance, and Newton runs on x_(n+1), with
 * f_(n+1) = f(x_(n+1), v_(n+1)) from Papetti eq 1 and the trapezoidal
 * rate v_(n+1) = 2 (x_(n+1) - x_n) / h - v_n. */
#include <math.h>
#include "base/base.h"
#include "scheme.h"

/* Rate at n+1 implied by eq 20 for a trial compression. */
static double
rate1(const vb_chist *h, double dt, double x1)
{
  return 2.0 * (x1 - h->x) / dt + h->roff;
}

/* (f_n + f(x_(n+1), v_(n+1))) / 2. */
static double
step_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx)
{
  const vb_law *law = &ct->law;
  double v = rate1(h, dt, x1);
  double fe = vb_law_elastic(law, x1);
  double d = vb_law_damping(law, fe);
  double dfx = vb_law_curvature(law, x1) * (1.0 + vb_law_damping_slope(law, fe) * v);
  *dfdx = 0.5 * (dfx + d * 2.0 / dt);
  return 0.5 * (h->f + fe + d * v);
}

/* f_(n+1), the force the next step reuses. */
static double
held_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)fbar;
  return vb_law_force(&ct->law, x1, rate1(h, dt, x1));
}

/* The trapezoidal rule on the damping power (AM1 has no exact account:
 * what it gets wrong shows in the energy balance). */
static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)fbar;
  return 0.5 * dt *
         (vb_law_damping_power(&ct->law, h->x, h->rate) +
          vb_law_damping_power(&ct->law, x1, rate1(h, dt, x1)));
}

static const vb_scheme_ops ops = {
    .step_force = step_force,
    .held_force = held_force,
    .dissipation = dissipation,
    .potential = vb_two_level_potential,
};

const vb_scheme vb_scheme_am1 = {
    .name = "am1",
    .doc = "1-step Adams-Moulton (trapezoidal), K-method + Newton (Papetti eq 20)",
    .family = VB_FAMILY_TWO_LEVEL,
    .order = 2,
    .min_contact_steps = 4,
    .energy_conserving = 0,
    .ops = &ops,
};
