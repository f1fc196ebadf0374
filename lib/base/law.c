/* law.c - contact laws: potentials, forces and their discrete gradients.
 *
 * All laws are written in terms of the compression x of a contact
 * (positive = interpenetration) as a potential V(x) whose derivative is the
 * elastic force; Hunt-Crossley adds the damping factor (1 + mu x'). */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "base.h"

/* Lankarani & Nikravesh (1990), J. Mech. Des. 112:369-376, eq for the
 * hysteresis damping factor: f = k x^a (1 + 3 (1 - e^2)/4 x'/v_in), an
 * energy balance that assumes little loss (e near 1). */
static double
lambda_lankarani_nikravesh(double e)
{
  return 0.75 * (1.0 - e * e);
}

/* Flores, Machado, Silva & Martins (2011), Multibody Syst. Dyn. 25:357-375:
 * f = k x^a (1 + 8 (1 - e)/(5 e) x'/v_in), derived for any e in (0, 1]. */
static double
lambda_flores(double e)
{
  return 1.6 * (1.0 - e) / e;
}

/* The law names, once: the table rows and the choices string take them
 * from here (REBOUND-style X-macro). */
#define LAW_NAMES(X)                                                                               \
  X(POWER, "power")                                                                                \
  X(HUNT_CROSSLEY, "hunt-crossley") X(RATTLE, "rattle") X(POLYNOMIAL, "polynomial")                \
      X(SPRING, "spring") X(LANKARANI_NIKRAVESH, "lankarani-nikravesh") X(FLORES, "flores") X(RIGID, "rigid")
#define DEFINE_NAME(id, text) static const char name_##id[] = text;
#define CHOICE(id, text)      ", " text
LAW_NAMES(DEFINE_NAME)
static const char law_choices[] = LAW_NAMES(CHOICE);

#define PARAM(name, field, unit, cond, lo, open, hi, req, def, text)                               \
  {                                                                                                \
    .key = name, .units = unit, .offset = offsetof(vb_law, field), .min = lo, .min_open = open,    \
    .max = hi, .required = req, .fallback = def, .condition = cond, .doc = text                    \
  }
#define K_PARAM     PARAM("k", k, "N/m^alpha", "> 0", 0.0, 1, INFINITY, 1, 0.0, "stiffness")
#define ALPHA_PARAM PARAM("alpha", alpha, "1", ">= 1", 1.0, 0, INFINITY, 1, 0.0, "exponent")
#define E_PARAM                                                                                    \
  PARAM("e", e, "1", "> 0 and <= 1", 0.0, 1, 1.0, 1, 0.0, "coefficient of restitution")
#define END_PARAMS                                                                                 \
  {                                                                                                \
    .key = NULL                                                                                    \
  }

#define MU_PARAM PARAM("mu", mu, "s/m", ">= 0", 0.0, 0, INFINITY, 0, 0.0, "damping")

/* The law table: every fact of a law that the loader, the sweep, the
 * output writer, the stepping code, the events and `vibro check` need.
 * Indexed by vb_law_kind.  Nothing outside this file names a law kind: a
 * new row is a new law.
 *
 * papetti: Papetti's analytic x_max (eq 4), v_out (eq 6, 7-8) and contact
 * time (eq 9) are derived for one impact of a mass on a rigid wall through
 * f = k p^a (1 + mu p'), p the penetration.  They apply where each impact
 * obeys exactly that equation, with the mu in effect (vb_law_impact_mu):
 *   power            mu = 0 (f = k [x]^a);
 *   hunt-crossley    its mu (Papetti eq 1 itself);
 *   rattle           each side on its own, p = |x| - h measured from that
 *                    side's barrier, with its mu (f = sign k p^a (1 + mu p'));
 *   lankarani-nikravesh, flores
 *                    Hunt-Crossley with mu = lambda(e) / v_in, set at the
 *                    impact's onset (vb_law_at_onset);
 *   polynomial, spring  no: always engaged, they have no impact, no v_in
 *                    and no release to predict.
 *   rigid            no: an impact is an impulse (Newton's law, v_out = -e v_in,
 *                    no penetration, no duration: vb_law_predict gives these).
 * exact_duration: Chatziioannou eq 14 is the exact motion of an undamped
 * one-sided linear contact, which eq 15-16 make the schemes reproduce: the
 * power law with alpha = 1 (the loader checks alpha). */
const vb_law_info vb_law_table[VB_LAW_COUNT] = {
    [VB_LAW_POWER] = {.name = name_POWER,
                      .doc = "V = k/(a+1) [x]^(a+1) (Chatziioannou eq 2)",
                      .params = (const vb_law_param[]){K_PARAM, ALPHA_PARAM, END_PARAMS},
                      .papetti = 1,
                      .exact_duration = 1},
    [VB_LAW_HUNT_CROSSLEY] = {.name = name_HUNT_CROSSLEY,
                              .doc = "f = k [x]^a (1 + mu x') (Papetti eq 1)",
                              .params = (const vb_law_param[]){K_PARAM, ALPHA_PARAM, MU_PARAM,
                                                               END_PARAMS},
                              .damping = VB_DAMPING_HUNT_CROSSLEY,
                              .papetti = 1},
    [VB_LAW_RATTLE] = {.name = name_RATTLE,
                       .doc = "f = sign(x) k [|x| - h]^a (1 + mu d|x|/dt) (Ducceschi eq 3c; "
                              "Papetti eq 1 on each side)",
                       .params = (const vb_law_param[]){K_PARAM, ALPHA_PARAM,
                                                        PARAM("h", h, "m", ">= 0", 0.0, 0, INFINITY,
                                                              1, 0.0, "half-clearance"),
                                                        MU_PARAM, END_PARAMS},
                       .damping = VB_DAMPING_HUNT_CROSSLEY,
                       .two_sided = 1,
                       .papetti = 1},
    [VB_LAW_POLYNOMIAL] =
        {.name = name_POLYNOMIAL,
         .doc = "V = k/(a+1) x^(a+1), a odd (Ducceschi eq 3a)",
         .params = (const vb_law_param[]){K_PARAM,
                                          PARAM("alpha", alpha, "1",
                                                "an odd integer >= 1 for law 'polynomial'", 1.0, 0,
                                                INFINITY, 1, 0.0, "exponent, odd"),
                                          END_PARAMS},
         .always_engaged = 1,
         .two_sided = 1,
         .odd_alpha = 1},
    [VB_LAW_SPRING] = {.name = name_SPRING,
                       .doc = "f = k x + c x', linear spring-damper, always active",
                       .params = (const vb_law_param[]){K_PARAM,
                                                        PARAM("c", c, "N s/m", ">= 0", 0.0, 0,
                                                              INFINITY, 0, 0.0, "damping"),
                                                        END_PARAMS},
                       .damping = VB_DAMPING_LINEAR,
                       .always_engaged = 1,
                       .two_sided = 1,
                       .alpha = 1.0},
    [VB_LAW_LANKARANI_NIKRAVESH] =
        {.name = name_LANKARANI_NIKRAVESH,
         .doc = "f = k [x]^a (1 + 3 (1 - e^2)/4 x'/v_in) (Lankarani & Nikravesh 1990)",
         .params = (const vb_law_param[]){K_PARAM, ALPHA_PARAM, E_PARAM, END_PARAMS},
         .damping = VB_DAMPING_HUNT_CROSSLEY,
         .papetti = 1,
         .onset_damping = lambda_lankarani_nikravesh},
    [VB_LAW_FLORES] = {.name = name_FLORES,
                       .doc = "f = k [x]^a (1 + 8 (1 - e)/(5 e) x'/v_in) (Flores et al. 2011)",
                       .params = (const vb_law_param[]){K_PARAM, ALPHA_PARAM, E_PARAM, END_PARAMS},
                       .damping = VB_DAMPING_HUNT_CROSSLEY,
                       .papetti = 1,
                       .onset_damping = lambda_flores},
    /* Signorini's condition 0 <= g _|_ lambda >= 0 with Newton's impact
     * law, solved at velocity level as 0 <= U+ + e U- _|_ P >= 0 by the
     * nonsmooth family (solvers/moreau_jean.c, doc/rigid.md): no stiffness,
     * no potential (k = 0 makes V, V' and V'' exactly 0), one-sided. */
    [VB_LAW_RIGID] = {.name = name_RIGID,
                      .doc = "Signorini + Newton's impact law 0 <= U+ + e U- _|_ P >= 0 "
                             "(Moreau 1988; Acary & Brogliato 2008 ch. 10)",
                      .params = (const vb_law_param[]){PARAM("e", e, "1", ">= 0 and <= 1", 0.0,
                                                             0, 1.0, 1, 0.0,
                                                             "Newton's coefficient of restitution"),
                                                       END_PARAMS},
                      .rigid = 1},
};

/* The table row of a law kind; NULL outside the table. */
const vb_law_info *
vb_law_info_of(vb_law_kind kind)
{
  return (unsigned)kind < VB_LAW_COUNT ? &vb_law_table[kind] : NULL;
}

/* The value of a law parameter in a law. */
double
vb_law_param_value(const vb_law *law, const vb_law_param *p)
{
  double v;
  memcpy(&v, (const char *)law + p->offset, sizeof v);
  return v;
}

/* Set a law parameter. */
void
vb_law_param_set(vb_law *law, const vb_law_param *p, double value)
{
  memcpy((char *)law + p->offset, &value, sizeof value);
}

/* Whether a value satisfies a parameter's condition. */
int
vb_law_param_valid(const vb_law_info *info, const vb_law_param *p, double x)
{
  if (!(p->min_open ? x > p->min : x >= p->min) || !(x <= p->max))
    return 0;
  if (info->odd_alpha && p->offset == offsetof(vb_law, alpha))
    return x == floor(x) && fmod(x, 2.0) == 1.0;
  return 1;
}

/* The parameter of a law with this key, or NULL. */
const vb_law_param *
vb_law_param_of(vb_law_kind kind, const char *key)
{
  const vb_law_info *info = vb_law_info_of(kind);
  for (const vb_law_param *p = info ? info->params : NULL; p && p->key; p++)
    if (strcmp(p->key, key) == 0)
      return p;
  return NULL;
}

/* Resolve a law name. */
int
vb_law_lookup(const char *name, vb_law_kind *kind)
{
  for (int i = 0; i < VB_LAW_COUNT; i++)
    if (name && strcmp(name, vb_law_table[i].name) == 0) {
      *kind = (vb_law_kind)i;
      return VB_OK;
    }
  return VB_EINVAL;
}

/* Name of a law kind. */
const char *
vb_law_name(vb_law_kind kind)
{
  return (unsigned)kind < VB_LAW_COUNT ? vb_law_table[kind].name : "unknown";
}

/* Valid law names, for messages: every row of the table. */
const char *
vb_law_choices(void)
{
  return law_choices + 2;
}

/* Penetration: the argument of the positive part (Ducceschi eq 3b, 3c). */
double
vb_law_penetration(const vb_law *law, double x)
{
  return law_penetration(law, x);
}

/* Side a compression presses on, the sign of the elastic force: sign(x)
 * for a two-sided law (x = 0 counts as +1), +1 for a one-sided one. */
double
vb_law_side(const vb_law *law, double x)
{
  return vb_law_table[law->kind].two_sided && x < 0.0 ? -1.0 : 1.0;
}

/* Penetration past the barrier on side sign (+1 or -1): sign x - h for a
 * two-sided law, which stays negative on the far side of x = 0 (where
 * |x| - h would read a compression pressing on the other side as in
 * contact here); the penetration itself for the other laws. */
double
vb_law_side_penetration(const vb_law *law, double sign, double x)
{
  const vb_law_info *info = &vb_law_table[law->kind];
  if (info->always_engaged || !info->two_sided)
    return vb_law_penetration(law, x);
  return sign * x - law->h;
}

/* Engaged amount: [p]_+ for one-sided laws, |x| for the polynomial
 * (law.h's law_engaged_amount). */
static double
engaged(const vb_law *law, double x)
{
  return law_engaged_amount(law, x);
}

/* Chatziioannou eq 2 / Ducceschi eq 3: V = k/(a+1) [p]^(a+1) (law.h's
 * law_potential). */
double
vb_law_potential(const vb_law *law, double x)
{
  return law_potential(law, x);
}

/* V'(x) = sign k [p]^a. */
double
vb_law_elastic(const vb_law *law, double x)
{
  double p = engaged(law, x);
  if (p == 0.0)
    return 0.0;
  return vb_law_side(law, x) * law->k * pow(p, law->alpha);
}

/* V''(x) = k a [p]^(a-1). */
double
vb_law_curvature(const vb_law *law, double x)
{
  double p = engaged(law, x);
  if (p == 0.0)
    return vb_law_table[law->kind].always_engaged && law->alpha == 1.0 ? law->k : 0.0;
  if (law->alpha == 1.0)
    return law->k;
  return law->k * law->alpha * pow(p, law->alpha - 1.0);
}

/* fmax(|a|, |b|) inline (libm's fmax is a call, a Newton trial's force
 * asks it): the larger, or the other where one is NaN. */
static inline double
max_abs(double a, double b)
{
  double x = fabs(a), y = fabs(b);
  return x > y || y != y ? x : y;
}

/* Discrete gradient (V(x1) - V(x0)) / (x1 - x0) (Chatziioannou eq 7-8):
 * exact to rounding in the energy it implies, V' at the midpoint only
 * where the two points coincide to 1e-10 relative. */
double
vb_law_gradient(const vb_law *law, double x1, double x0)
{
  double d = x1 - x0;
  double scale = max_abs(x1, x0);
  if (fabs(d) <= 1e-10 * scale || d == 0.0)
    return vb_law_elastic(law, 0.5 * (x1 + x0));
  return (vb_law_potential(law, x1) - vb_law_potential(law, x0)) / d;
}

/* The discrete gradient and its derivative in x1 in one pass, bit for bit
 * vb_law_gradient and vb_law_gradient_dx1: where the derivative takes the
 * quotient (|x1 - x0| > 1e-5 scale) the gradient took its quotient too
 * (the 1e-10 threshold is below), so V(x1), V(x0) and the gradient are
 * formed once (three powers instead of five: a Newton step's force). */
double
vb_law_gradient_pair(const vb_law *law, double x1, double x0, double *dg)
{
  return vb_law_gradient_pair_v0(law, x1, x0, vb_law_potential(law, x0), dg);
}

/* vb_law_gradient_pair with V(x0) given: law_gradient_pair_v0. */
double
vb_law_gradient_pair_v0(const vb_law *law, double x1, double x0, double v0, double *dg)
{
  return law_gradient_pair_v0(law, x1, x0, v0, dg);
}

/* law_gradient_pair_v0 where x1 and x0 are within 1e-5 of their scale:
 * V' at the midpoint or the quotient (the 1e-10 threshold), and V''/2 at
 * the midpoint, as vb_law_gradient and vb_law_gradient_dx1. */
double
vb_law_gradient_pair_near(const vb_law *law, double x1, double x0, double v0, double *dg)
{
  double d = x1 - x0;
  double scale = max_abs(x1, x0);
  double g = fabs(d) <= 1e-10 * scale || d == 0.0 ? vb_law_elastic(law, 0.5 * (x1 + x0))
                                                  : (vb_law_potential(law, x1) - v0) / d;
  *dg = 0.5 * vb_law_curvature(law, 0.5 * (x1 + x0));
  return g;
}

/* d/dx1 of the discrete gradient: (V'(x1) - grad) / (x1 - x0), or V''/2 at
 * the midpoint where the quotient would cancel. */
double
vb_law_gradient_dx1(const vb_law *law, double x1, double x0)
{
  double d = x1 - x0;
  double scale = max_abs(x1, x0);
  if (fabs(d) <= 1e-5 * scale || d == 0.0)
    return 0.5 * vb_law_curvature(law, 0.5 * (x1 + x0));
  return (vb_law_elastic(law, x1) - vb_law_gradient(law, x1, x0)) / d;
}

/* Damping coefficient: Hunt-Crossley mu |V'(x)| (Papetti eq 1; the laws
 * set by a restitution coefficient with the mu of their impact), spring c.
 * |V'| makes it Papetti eq 1 on each side of a two-sided law:
 * sign k p^a (1 + mu dp/dt) = V' + mu |V'| x', since dp/dt = sign x'.  For a
 * one-sided law V' >= 0 and this is mu V' to the bit (a -0.0 stays -0.0). */
double
vb_law_damping(const vb_law *law, double fe)
{
  return law_damping(law, fe);
}

/* d(damping coefficient)/d(elastic force) at elastic force fe. */
double
vb_law_damping_slope(const vb_law *law, double fe)
{
  return law_damping_slope(law, fe);
}

/* The Hunt-Crossley mu an impact of this law sees, s/m: the damping
 * slope on the pressed side (0 for an undamped law). */
double
vb_law_impact_mu(const vb_law *law)
{
  return vb_law_damping_slope(law, 1.0);
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
  return law_engaged(law, x);
}

/* The law as it acts during an impact that began with penetration rate
 * v_in > 0: a copy whose impact-dependent parameters are set from v_in.
 * A law set by a coefficient of restitution is Hunt-Crossley with
 * mu = lambda(e) / v_in (Lankarani & Nikravesh 1990; Flores et al. 2011);
 * without a usable v_in (not > 0, not finite, or so small that mu would
 * overflow) it acts undamped, as the elastic law it is at rest. */
void
vb_law_at_onset(const vb_law *law, double v_in, vb_law *active)
{
  double (*lambda)(double) = vb_law_table[law->kind].onset_damping;
  *active = *law;
  if (lambda == NULL)
    return;
  double mu = v_in > 0.0 && isfinite(v_in) ? lambda(law->e) / v_in : 0.0;
  active->mu = isfinite(mu) ? mu : 0.0;
}
