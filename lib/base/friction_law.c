/* friction_law.c - the friction laws' table (issue 30, step 1;
 * doc/friction.md): one row per law, every fact about it there (its name,
 * parameters, local problem of a step, state, what it holds while
 * sticking), as law.c's rows are the normal laws'.  The step
 * (friction.c, solvers/friction_solve.c) reaches a law through its row
 * alone.
 *
 * The law (Coulomb with static and kinetic coefficients, exact stick).
 * With slip rate s = d(w_b - w_a)/dt at the contact and normal force N >= 0,
 *   |ft| <= mu_s N        when s = 0 (stick),
 *   ft = -mu_k N sgn(s)   when s != 0 (slip),
 * C.A. Coulomb, "Theorie des machines simples", 1785 (static and kinetic
 * friction); as a set-valued law, J.J. Moreau, "Unilateral contact and dry
 * friction in finite freedom dynamics", CISM Courses 302, 1988, and V.
 * Acary & B. Brogliato, "Numerical Methods for Nonsmooth Dynamical
 * Systems", Springer 2008, section 3.9 (Coulomb's friction in the plane);
 * the stick test on the static coefficient is Karnopp's (D. Karnopp,
 * J. Dyn. Syst. Meas. Control 107, 1985).  Never a viscous regularisation:
 * stick is exact (the step's slip is zero to round-off). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vibro.h"

/* Coulomb's local problem of a step (the header's discretisation): the
 * projection of the sticking force on the static cone, else the kinetic
 * force in its direction; once the contact has broken free in this step's
 * solve (*broke), the projection on the kinetic cone (which for one
 * contact is the same answer: its sticking force is outside the static
 * cone, so outside the kinetic one).  State: 1 while sticking, 0 while
 * slipping. */
static double
coulomb_local(const vb_friction *law, double n, double s_free, double c, int *broke, double *st)
{
  double stick = -s_free / c;
  if (fabs(stick) <= (*broke ? law->mu_k : law->mu_s) * n) {
    st[0] = 1.0;
    return stick;
  }
  *broke = 1;
  st[0] = 0.0;
  return copysign(law->mu_k * n, stick);
}

static void
coulomb_start(const vb_friction *law, double s0, double *st)
{
  (void)law;
  st[0] = s0 == 0.0 ? 1.0 : 0.0;
}

static int
coulomb_sticks(const double *st)
{
  return st[0] != 0.0;
}

static double
coulomb_hold(const vb_friction *law, double n)
{
  return law->mu_s * n;
}

/* mu_k <= mu_s: a kinetic coefficient above the static one would stick a
 * slipping contact that could not stay stuck. */
static int
coulomb_valid(const vb_friction *law, char *why, size_t len)
{
  if (law->mu_k <= law->mu_s)
    return 1;
  snprintf(why, len, "'mu_k' = %g is above 'mu_s' = %g (valid: mu_k <= mu_s)", law->mu_k,
           law->mu_s);
  return 0;
}

#define PARAM(name, field, cond, what, lo, req, def)                                              \
  {                                                                                                \
    .key = name, .units = "1", .condition = cond, .doc = what,                                     \
    .offset = offsetof(vb_friction, field), .min = lo, .required = req, .fallback = def            \
  }

/* The friction laws, one row per vb_friction_kind but NONE (index kind -
 * 1); the names below list them for messages. */
static const vb_friction_info table[] = {
    {.name = "coulomb",
     .doc = "Coulomb with static and kinetic coefficients and exact stick (Moreau 1988; "
            "Karnopp 1985)",
     .params = (const vb_friction_param[]){PARAM("mu_s", mu_s, ">= 0", "static coefficient", 0.0,
                                                 1, 0.0),
                                           PARAM("mu_k", mu_k, ">= 0 and <= mu_s (default mu_s)",
                                                 "kinetic coefficient", 0.0, 0, NAN),
                                           {.key = NULL}},
     .kind = VB_FRICTION_COULOMB,
     .nstate = 1,
     .valid = coulomb_valid,
     .local = coulomb_local,
     .start = coulomb_start,
     .sticks = coulomb_sticks,
     .hold = coulomb_hold},
};
#define NLAWS (int)(sizeof table / sizeof table[0])
static const char choices[] = "coulomb";

const vb_friction_info *
vb_friction_info_of(vb_friction_kind kind)
{
  int i = (int)kind - 1;
  return i >= 0 && i < NLAWS ? &table[i] : NULL;
}

const vb_friction_info *
vb_friction_lookup(const char *name)
{
  for (int i = 0; name && i < NLAWS; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

const char *
vb_friction_choices(void)
{
  return choices;
}
