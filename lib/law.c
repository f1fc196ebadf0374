/* law.c - contact laws: potentials, forces and their discrete gradients.
 *
 * All laws are written in terms of the compression x of a contact
 * (positive = interpenetration) as a potential V(x) whose derivative is the
 * elastic force; Hunt-Crossley adds the damping factor (1 + mu x'). */
#include <math.h>
#include <string.h>
#include "internal.h"

static const char *const law_names[VB_LAW_COUNT] = {
  "power", "hunt-crossley", "rattle", "polynomial", "spring"
};

/* Resolve a law name. */
int
vb_law_lookup(const char *name, vb_law_kind *kind)
{
  for (int i = 0; i < VB_LAW_COUNT; i++)
    if (name && strcmp(name, law_names[i]) == 0) {
      *kind = (vb_law_kind)i;
      return VB_OK;
    }
  return VB_EINVAL;
}

/* Name of a law kind. */
const char *
vb_law_name(vb_law_kind kind)
{
  return (unsigned)kind < VB_LAW_COUNT ? law_names[kind] : "unknown";
}

/* Valid law names, for messages. */
const char *
vb_law_choices(void)
{
  return "power, hunt-crossley, rattle, polynomial, spring";
}

/* Penetration: the argument of the positive part (Ducceschi eq 3b, 3c). */
double
vb_law_penetration(const vb_law *law, double x)
{
  switch (law->kind) {
  case VB_LAW_RATTLE: return fabs(x) - law->h;
  case VB_LAW_POLYNOMIAL:
  case VB_LAW_SPRING: return INFINITY;
  default: return x;
  }
}

/* Side of the barrier a compression presses on: +1 or -1 (rattle). */
static double
side(const vb_law *law, double x)
{
  return (law->kind == VB_LAW_RATTLE || law->kind == VB_LAW_POLYNOMIAL
          || law->kind == VB_LAW_SPRING) && x < 0.0 ? -1.0 : 1.0;
}

/* Engaged amount: [p]_+ for one-sided laws, |x| for the polynomial. */
static double
engaged(const vb_law *law, double x)
{
  if (law->kind == VB_LAW_POLYNOMIAL || law->kind == VB_LAW_SPRING)
    return fabs(x);
  double p = vb_law_penetration(law, x);
  return p > 0.0 ? p : 0.0;
}

/* Chatziioannou eq 2 / Ducceschi eq 3: V = k/(a+1) [p]^(a+1). */
double
vb_law_potential(const vb_law *law, double x)
{
  double p = engaged(law, x);
  if (p == 0.0)
    return 0.0;
  return law->k / (law->alpha + 1.0) * pow(p, law->alpha + 1.0);
}

/* V'(x) = sign k [p]^a. */
double
vb_law_elastic(const vb_law *law, double x)
{
  double p = engaged(law, x);
  if (p == 0.0)
    return 0.0;
  return side(law, x) * law->k * pow(p, law->alpha);
}

/* V''(x) = k a [p]^(a-1). */
double
vb_law_curvature(const vb_law *law, double x)
{
  double p = engaged(law, x);
  if (p == 0.0)
    return (law->kind == VB_LAW_POLYNOMIAL || law->kind == VB_LAW_SPRING)
           && law->alpha == 1.0 ? law->k : 0.0;
  if (law->alpha == 1.0)
    return law->k;
  return law->k * law->alpha * pow(p, law->alpha - 1.0);
}

/* Discrete gradient (V(x1) - V(x0)) / (x1 - x0) (Chatziioannou eq 7-8):
 * exact to rounding in the energy it implies, V' at the midpoint only
 * where the two points coincide to 1e-10 relative. */
double
vb_law_gradient(const vb_law *law, double x1, double x0)
{
  double d = x1 - x0;
  double scale = fmax(fabs(x1), fabs(x0));
  if (fabs(d) <= 1e-10 * scale || d == 0.0)
    return vb_law_elastic(law, 0.5 * (x1 + x0));
  return (vb_law_potential(law, x1) - vb_law_potential(law, x0)) / d;
}

/* d/dx1 of the discrete gradient: (V'(x1) - grad) / (x1 - x0), or V''/2 at
 * the midpoint where the quotient would cancel. */
double
vb_law_gradient_dx1(const vb_law *law, double x1, double x0)
{
  double d = x1 - x0;
  double scale = fmax(fabs(x1), fabs(x0));
  if (fabs(d) <= 1e-5 * scale || d == 0.0)
    return 0.5 * vb_law_curvature(law, 0.5 * (x1 + x0));
  return (vb_law_elastic(law, x1) - vb_law_gradient(law, x1, x0)) / d;
}

/* Damping coefficient: Hunt-Crossley mu V'(x) (Papetti eq 1), spring c. */
double
vb_law_damping(const vb_law *law, double fe)
{
  switch (law->kind) {
  case VB_LAW_HUNT_CROSSLEY: return law->mu * fe;
  case VB_LAW_SPRING: return law->c;
  default: return 0.0;
  }
}

/* d(damping coefficient)/d(elastic force). */
double
vb_law_damping_slope(const vb_law *law)
{
  return law->kind == VB_LAW_HUNT_CROSSLEY ? law->mu : 0.0;
}

/* Papetti eq 1: f = k [x]^a (1 + mu v); f = k x + c v for the spring. */
double
vb_law_force(const vb_law *law, double x, double v)
{
  double fe = vb_law_elastic(law, x);
  return fe + vb_law_damping(law, fe) * v;
}

/* Power of the damping term, d v^2. */
double
vb_law_damping_power(const vb_law *law, double x, double v)
{
  return vb_law_damping(law, vb_law_elastic(law, x)) * v * v;
}

/* Whether the law can act at compression x. */
int
vb_law_engaged(const vb_law *law, double x)
{
  return vb_law_penetration(law, x) > 0.0;
}

/* The law as it acts during an impact that began with penetration rate
 * v_in > 0: a copy whose impact-dependent parameters are set from v_in.
 * No law so far has any; a law set by a coefficient of restitution
 * (damping scaled by 1/v_in) sets them here. */
void
vb_law_at_onset(const vb_law *law, double v_in, vb_law *active)
{
  (void)v_in;
  *active = *law;
}
