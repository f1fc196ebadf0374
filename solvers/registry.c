/* registry.c - the table of numerical schemes, resolved by name, their
 * check, and the explicit schemes' work space. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scheme.h"

/* Every scheme, in the order they are listed to users: X(id, scene name).
 * A new scheme is one file in solvers/ and one line here. */
#define VB_SCHEMES(X)                                                                              \
  X(two_point, "two-point")                                                                        \
  X(am1, "am1")                                                                                    \
  X(three_point, "three-point") X(quadratic, "quadratic") X(verlet, "verlet")                      \
      X(position_verlet, "position-verlet") X(heun, "heun") X(rk4, "rk4") X(sav, "sav")                   \
          X(moreau_jean, "moreau-jean")

#define DECLARE(id, name) extern const vb_scheme vb_scheme_##id;
VB_SCHEMES(DECLARE)
#undef DECLARE

#define ENTRY(id, name) &vb_scheme_##id,
static const vb_scheme *const schemes[] = {VB_SCHEMES(ENTRY)};
#undef ENTRY

/* ", two-point, am1, ...": the choices, from the same list. */
#define NAME(id, name) ", " name
static const char choices[] = VB_SCHEMES(NAME);
#undef NAME

/* The scene names, from the same list (a scheme file's .name must match). */
#define NAME(id, name) name,
static const char *const names[] = {VB_SCHEMES(NAME)};
#undef NAME

#define NSCHEMES (sizeof schemes / sizeof schemes[0])

/* The families' facts, one row each, indexed by vb_family. */
const vb_family_info vb_families[] = {
    [VB_FAMILY_TWO_LEVEL] = {.name = "two-level", .levels = 2, .velocity = 1},
    [VB_FAMILY_THREE_LEVEL] = {.name = "three-level", .levels = 3},
    [VB_FAMILY_EXPLICIT] = {.name = "explicit", .levels = 2, .velocity = 1, .one_scheme = 1},
    /* energy quadratisation (sav.c): three-level modes, contacts by one
     * linear solve */
    [VB_FAMILY_SAV] = {.name = "energy-quadratised", .levels = 3, .linear = 1},
    /* rigid contacts by impulses (moreau_jean.c): two-level modes */
    [VB_FAMILY_NONSMOOTH] = {.name = "nonsmooth", .levels = 2, .velocity = 1, .impulse = 1},
};

/* The facts of a family. */
const vb_family_info *
vb_family_info_of(vb_family f)
{
  return (unsigned)f < sizeof vb_families / sizeof vb_families[0] ? &vb_families[f] : NULL;
}

/* Check a scheme's operations and facts against its family's row. */
int
vb_scheme_check(const vb_scheme *s, char *err, size_t errlen)
{
  const vb_family_info *f = vb_family_info_of(s->family);
  const vb_scheme_ops *o = s->ops;
  const char *missing = NULL;
  if (!s->name || !s->doc || !o || !f)
    missing = !s->name ? "name" : !s->doc ? "doc" : !o ? "ops" : "family";
  else if (f->one_scheme)
    missing = !o->alloc                     ? "alloc"
              : !o->free                    ? "free"
              : !o->step                    ? "step"
              : !(s->stability_limit > 0.0) ? "stability_limit"
                                            : NULL;
  else if (f->impulse)
    missing = !o->solve_impulse ? "solve_impulse"
              : !o->held_force  ? "held_force"
              : !o->dissipation ? "dissipation"
              : !o->potential   ? "potential"
                                : NULL;
  else
    missing = !o->step_force                    ? "step_force"
              : !o->held_force                  ? "held_force"
              : !o->dissipation                 ? "dissipation"
              : !o->potential                   ? "potential"
              : o->solve_single && !s->fallback ? "fallback"
              : !o->step_base != !o->step_force_at
                  ? (o->step_base ? "step_force_at" : "step_base")
              : f->linear && !o->solve_linear   ? "solve_linear"
                                                : NULL;
  if (!missing && o->nstate > 0)
    missing = !o->start ? "start" : !o->advance ? "advance" : NULL;
  if (!missing && s->fallback &&
      (s->fallback->family != s->family || !s->fallback->ops || !s->fallback->ops->step_force ||
       s->fallback->fallback)) {
    snprintf(err, errlen,
             "scheme '%s': fallback '%s' cannot step its contacts (it needs "
             "the same family, a step_force and no fallback of its own)",
             s->name, s->fallback->name ? s->fallback->name : "");
    return VB_EINVAL;
  }
  if (missing) {
    snprintf(err, errlen, "scheme '%s': no %s (the %s family needs it)", s->name ? s->name : "",
             missing, f ? f->name : "unknown");
    return VB_EINVAL;
  }
  return VB_OK;
}

/* Look up a scheme by name; a scheme that fails its check is not found. */
const vb_scheme *
vb_scheme_lookup(const char *name)
{
  char err[160];
  if (!name)
    return NULL;
  for (size_t i = 0; i < NSCHEMES; i++)
    if (strcmp(names[i], name) == 0)
      return strcmp(schemes[i]->name, names[i]) == 0 &&
                     vb_scheme_check(schemes[i], err, sizeof err) == VB_OK
                 ? schemes[i]
                 : NULL;
  return NULL;
}

/* All registered schemes. */
const vb_scheme *const *
vb_scheme_list(size_t *n)
{
  *n = NSCHEMES;
  return schemes;
}

/* Registered scheme names, for messages. */
const char *
vb_scheme_choices(void)
{
  return choices + 2;
}
