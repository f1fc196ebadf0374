/* law.h - the contact laws' functions the library and the schemes share,
 * beyond vibro.h's (not installed; lib/base/law.c).  A scheme in solvers/ needs
 * these, scheme.h and vibro.h, and nothing of the island. */
#ifndef VIBRO_LAW_H
#define VIBRO_LAW_H

#include <math.h>
#include "vibro.h"

/* The laws' table (law.c): each law's name, parameters and kind, read by
 * the inline screens below. */
extern const vb_law_info vb_law_table[VB_LAW_COUNT];

/* vb_law_penetration inlined, the same operations (Ducceschi eq 3b, 3c):
 * the per-step screens ask it of every contact every step (1.8M calls in
 * 0.25 s of the 64-point tanpura). */
static inline double
law_penetration(const vb_law *law, double x)
{
  const vb_law_info *info = &vb_law_table[law->kind];
  if (info->always_engaged)
    return INFINITY;
  return info->two_sided ? fabs(x) - law->h : x;
}

/* vb_law_engaged inlined: whether the law can act at compression x. */
static inline int
law_engaged(const vb_law *law, double x)
{
  return law_penetration(law, x) > 0.0;
}

/* The engaged amount of compression x, m: [p]_+ of the penetration p
 * (law_penetration) for a law that engages, |x| for one always engaged
 * (polynomial, spring). */
static inline double
law_engaged_amount(const vb_law *law, double x)
{
  if (vb_law_table[law->kind].always_engaged)
    return fabs(x);
  double p = law_penetration(law, x);
  return p > 0.0 ? p : 0.0;
}

/* vb_law_potential inlined, the same operations (Chatziioannou eq 2 /
 * Ducceschi eq 3: V = k/(a+1) [p]^(a+1), J): the step's accounting asks
 * it of every contact every step, the Newton of each active contact once
 * a solve. */
static inline double
law_potential(const vb_law *law, double x)
{
  double p = law_engaged_amount(law, x);
  if (p == 0.0)
    return 0.0;
  return law->k / (law->alpha + 1.0) * pow(p, law->alpha + 1.0);
}

/* vb_law_damping inlined, the same operations (the schemes' step force
 * asks it at every Newton trial): Hunt-Crossley mu |fe|, spring c, else 0,
 * N s/m. */
static inline double
law_damping(const vb_law *law, double fe)
{
  switch (vb_law_table[law->kind].damping) {
  case VB_DAMPING_HUNT_CROSSLEY: return law->mu * (fe < 0.0 ? -fe : fe);
  case VB_DAMPING_LINEAR: return law->c;
  default: return 0.0;
  }
}

/* vb_law_damping_slope inlined: mu or -mu (Hunt-Crossley), else 0, s/m. */
static inline double
law_damping_slope(const vb_law *law, double fe)
{
  if (vb_law_table[law->kind].damping != VB_DAMPING_HUNT_CROSSLEY)
    return 0.0;
  return fe < 0.0 ? -law->mu : law->mu;
}

/* Discrete gradient (V(x1) - V(x0)) / (x1 - x0), N; V' at the midpoint
 * where x1 and x0 are too close for the quotient to be accurate: the
 * energy-conserving schemes' force (Chatziioannou eq 7-8). */
double vb_law_gradient(const vb_law *law, double x1, double x0);
/* Derivative of vb_law_gradient with respect to x1, N/m (their Newton's
 * Jacobian). */
double vb_law_gradient_dx1(const vb_law *law, double x1, double x0);

/* Damping coefficient d (N s/m) of a law whose elastic force is fe: the
 * damping force is d times the compression rate (Hunt-Crossley: mu |fe|;
 * spring: c; 0 otherwise). */
double vb_law_damping(const vb_law *law, double fe);

/* Slope of the damping coefficient with the elastic force fe (N): for
 * Hunt-Crossley damping mu |fe|, mu where fe >= 0 and -mu where fe < 0
 * (the far side of a two-sided law); 0 for the other kinds. s/m. */
double vb_law_damping_slope(const vb_law *law, double fe);

/* The Hunt-Crossley mu (s/m) an impact of the law sees on the side it
 * presses: what Papetti's predictions take as mu. */
double vb_law_impact_mu(const vb_law *law);

/* Side a compression x presses on, the sign of the elastic force: -1 for
 * a two-sided law at x < 0, else +1. */
double vb_law_side(const vb_law *law, double x);

/* Penetration (m) of compression x past the barrier on side sign (+1 or
 * -1): sign x - h for a two-sided law, negative on the far side of x = 0
 * too; vb_law_penetration for the others. */
double vb_law_side_penetration(const vb_law *law, double sign, double x);

/* Power of the law's damping term, d v^2, W. */
double vb_law_damping_power(const vb_law *law, double x, double v);

/* True if the law can exert a force at compression x (one-sided laws only
 * when penetrating; polynomial and spring always). */
int vb_law_engaged(const vb_law *law, double x);

/* The discrete gradient (V(x1) - V(x0)) / (x1 - x0) (N, vb_law_gradient)
 * and its derivative in x1 into *dg (N/m, vb_law_gradient_dx1), to the
 * bit what the two give, with each power formed once. */
double vb_law_gradient_pair(const vb_law *law, double x1, double x0, double *dg);
/* vb_law_gradient_pair with v0 = vb_law_potential(law, x0) (J) given: the
 * same bits, one power fewer where x0 is engaged (v0 is the same for every
 * Newton trial of a step); law_gradient_pair_v0 below. */
double vb_law_gradient_pair_v0(const vb_law *law, double x1, double x0, double v0, double *dg);
/* Its branch where x1 and x0 are within 1e-5 of their scale (law.c). */
double vb_law_gradient_pair_near(const vb_law *law, double x1, double x0, double v0, double *dg);

/* vb_law_gradient_pair_v0 inlined (the schemes' step force at every
 * Newton trial): the quotients (V(x1) - v0) / (x1 - x0) and (V'(x1) - g)
 * / (x1 - x0), V(x1) and V'(x1) from one engaged amount (law_potential's
 * and vb_law_elastic's operations), where x1 and x0 are apart by more
 * than 1e-5 of max(|x1|, |x0|) (fmax's value, NaN-aware); else
 * vb_law_gradient_pair_near. */
static inline double
law_gradient_pair_v0(const vb_law *law, double x1, double x0, double v0, double *dg)
{
  double d = x1 - x0, a = fabs(x1), b = fabs(x0);
  double scale = a > b || b != b ? a : b;
  if (fabs(d) <= 1e-5 * scale || d == 0.0)
    return vb_law_gradient_pair_near(law, x1, x0, v0, dg);
  double p = law_engaged_amount(law, x1), v1 = 0.0, fe1 = 0.0;
  if (p != 0.0) {
    double side = vb_law_table[law->kind].two_sided && x1 < 0.0 ? -1.0 : 1.0;
    fe1 = side * law->k * pow(p, law->alpha);
    v1 = law->k / (law->alpha + 1.0) * pow(p, law->alpha + 1.0);
  }
  double g = (v1 - v0) / d;
  *dg = (fe1 - g) / d;
  return g;
}

/* The law as it acts during an impact that began with penetration rate
 * v_in > 0 (m/s): a copy of *law whose impact-dependent parameters (the
 * damping of laws set by a coefficient of restitution) are set from v_in.
 * The stepping code calls it at each impact onset and steps the impact
 * with *active. */
void vb_law_at_onset(const vb_law *law, double v_in, vb_law *active);

#endif
