/* label.c - how messages name a contact: the name the user wrote.  A
 * distributed block expands to point contacts named NAME[k] inside the
 * library (load_distributed.c); a message about one of them names the
 * block, the point's index and where it is, since NAME[k] appears nowhere
 * in the scene file. */
#include <stdio.h>

#include "base.h"

/* Contact ct of scene sc as a message names it, into buf: "'hit'", or for
 * point k of a distributed block "'frets' (point 11, x 0.432 m)" (x the
 * point's position on its modal body).  Returns buf. */
const char *
vb_contact_label(const vb_scene *sc, const vb_contact *ct, char *buf, size_t len)
{
  if (ct->group[0] == '\0') {
    snprintf(buf, len, "'%s'", ct->name);
    return buf;
  }
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  double x = a->kind == VB_BODY_MODAL ? a->points[ct->pa].x : b->points[ct->pb].x;
  snprintf(buf, len, "'%s' (point %d, x %g m)", ct->group, ct->group_point, x);
  return buf;
}
