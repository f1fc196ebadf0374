/* registry.c - the table of numerical schemes, resolved by name. */
#include <string.h>
#include "vibro.h"

/* Every scheme, in the order they are listed to users. */
#define VB_SCHEMES(X) \
  X(two_point) X(am1) X(three_point) X(quadratic) X(verlet) X(heun) X(rk4)

#define DECLARE(id) extern const vb_scheme vb_scheme_##id;
VB_SCHEMES(DECLARE)
#undef DECLARE

#define ENTRY(id) &vb_scheme_##id,
static const vb_scheme *const schemes[] = { VB_SCHEMES(ENTRY) };
#undef ENTRY

#define NSCHEMES (sizeof schemes / sizeof schemes[0])

/* Look up a scheme by name. */
const vb_scheme *
vb_scheme_lookup(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < NSCHEMES; i++)
    if (strcmp(schemes[i]->name, name) == 0)
      return schemes[i];
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
  return "two-point, am1, three-point, quadratic, verlet, heun, rk4";
}
