/* load_geometry.c - a contact's gap geometry from a parsed scene document
 * (issue 30, item 4; doc/geometry.md, doc/scene-file.md "Geometry"):
 *   geometry = { type = "circular"; clearance = <m>; };
 * a point in a circular clearance, gap |(u_b - u_a, w_b - w_a)| - clearance
 * (a pin of a mass in a hole of a wall or of another mass, a rotor in its
 * stator).  Read after the bodies' w coordinates and the contacts' friction
 * (load_friction.c), so that a geometry can be checked against them; the
 * island's step is lib/island/clearance.c's.  Messages through source.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene.h"

/* Whether body b can be one side of a circular clearance: a wall (its u
 * position and drive, its w drive) or a mass with a w coordinate. */
static int
takes_circle(const vb_body *b)
{
  return b->kind == VB_BODY_WALL || (b->kind == VB_BODY_MASS && b->has_w);
}

/* One contact's geometry group. */
static int
load_contact_geometry(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  static const char *const keys[] = {"type", "clearance", NULL};
  static const char *const refused[] = {"gap", "gap_drive", "corrections", "exact_duration",
                                        "normal_force"};
  const config_setting_t *gg = vb_src_member(g, "geometry");
  const vb_scene *sc = ld->scene;
  char gobj[2 * OBJECT_MAX];
  const char *type = NULL;
  int rc;

  if (config_setting_type(gg) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, gg, obj,
                       "'geometry' must be a group { type = \"circular\"; clearance = <m>; } "
                       "(valid: circular)");
  snprintf(gobj, sizeof gobj, "%s geometry", obj);
  if ((rc = vb_src_check_keys(ld, gg, gobj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, gg, gobj, "type", 1, &type)) != VB_OK)
    return rc;
  if (strcmp(type, "line") == 0 && vb_src_member(gg, "clearance") == NULL) {
    c->geometry = VB_GEOMETRY_LINE; /* today's, named */
    return VB_OK;
  }
  if (strcmp(type, "circular") != 0)
    return vb_src_fail(ld, vb_src_at(gg, "type"), gobj, "unknown geometry '%s' (valid: circular, "
                       "line)", type);
  if ((rc = vb_src_number(ld, gg, gobj, "clearance", 1, &c->clearance)) != VB_OK)
    return rc;
  if (!(c->clearance > 0.0))
    return vb_src_refuse(ld, gg, gobj, "clearance", "> 0 (the hole's radius less the pin's, m)",
                         c->clearance);
  c->geometry = VB_GEOMETRY_CIRCULAR;
  if (c->group[0])
    return vb_src_fail(ld, gg, obj, "a circular clearance is a point contact (valid: geometry "
                       "on a contact without points or profile)");
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (vb_src_member(g, refused[i]) != NULL)
      return vb_src_fail(ld, vb_src_at(g, refused[i]), obj,
                         "'%s' does not apply to a circular clearance (valid: its geometry's "
                         "clearance, a normal law, scheme two-point)",
                         refused[i]);
  for (int side = 0; side < 2; side++) {
    const vb_body *b = &sc->bodies[side ? c->b : c->a];
    if (!takes_circle(b))
      return vb_src_fail(ld, gg, obj,
                         "a circular clearance needs u and w on both bodies, and %s '%s' has "
                         "no w (valid: a mass with w0, vw0, kw or cw, or a wall)",
                         b->kind == VB_BODY_MASS ? "mass" : "body", b->name);
  }
  if (strcmp(c->scheme->name, "two-point") != 0)
    return vb_src_fail(ld, vb_src_at(g, "scheme"), obj,
                       "scheme '%s' cannot step a circular clearance (valid: two-point)",
                       c->scheme->name);
  /* friction along the tangent (clearance.c); a law that stores energy
   * in its state (the elasto-plastic bristle) is not done there yet */
  const vb_friction_info *fi = vb_friction_info_of(c->friction.kind);
  if (fi && fi->stored)
    return vb_src_fail(ld, vb_src_at(g, "friction"), obj,
                       "friction law '%s' in a circular clearance is not done yet (valid: "
                       "coulomb, stribeck, bow, exponential)",
                       fi->name);
  return VB_OK;
}

int
vb_load_geometry(vb_loader *ld, const config_setting_t *root)
{
  const config_setting_t *contacts = vb_src_member(root, "contacts");
  vb_scene *sc = ld->scene;
  char obj[OBJECT_MAX];
  int rc;

  for (int c = 0; contacts && c < sc->ncontacts; c++) {
    vb_contact *ct = &sc->contacts[c];
    const config_setting_t *g = config_setting_get_elem(contacts, (unsigned)ct->element);
    if (!g || vb_src_member(g, "geometry") == NULL)
      continue;
    snprintf(obj, sizeof obj, "contact '%s'", ct->group[0] ? ct->group : ct->name);
    if ((rc = load_contact_geometry(ld, g, obj, ct)) != VB_OK)
      return rc;
  }
  return VB_OK;
}
