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
#include <stdlib.h>
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

/* A contact point moving along its modal body (issue 30, item 5):
 *   track = { points = ["body.p0", "body.p1", ...]; at = [m, ...];
 *             drive = { type = "velocity"; v; start; }; };
 * the points of the contact's modal body in order, their positions along
 * the track (default: the points' preset x), the point's position a drive;
 * or, instead of the drive, `follow = "w"; start = m;`: the point at start
 * + the contact's mass's own w (a ball rolling across its body, pushed by
 * the body's slope, with friction at the point and a spin if the contact
 * and the mass have them: moving.c). */
/* follow = "w"; start = m;: the point at start + the mass's w, with
 * friction at the point if the contact has it (the modal body's surface
 * fixed along w: moving.c steps the ball's w, its spin and the friction
 * between them, so that it slides, then rolls).  Refused: a drive beside
 * it, a mass without w, a mass with a spin and no friction at the point
 * (the spin would turn through nothing: rolling without slip holds the
 * ball's w and spin together only through friction), a friction law with
 * a state that stores energy (the elasto-plastic bristle: not done there
 * yet), a modal body with modes along w. */
static int
load_track_follow(vb_loader *ld, const config_setting_t *tg, const char *tobj, vb_contact *c,
                  const vb_body *mass)
{
  const vb_scene *sc = ld->scene;
  const vb_body *modal = &sc->bodies[sc->bodies[c->a].kind == VB_BODY_MODAL ? c->a : c->b];
  const char *what = NULL;
  int rc;
  if (vb_src_member(tg, "drive") != NULL)
    return vb_src_fail(ld, vb_src_at(tg, "drive"), tobj, "'drive' and 'follow' exclude each other "
                       "(valid: one of them: the point driven, or following the mass's w)");
  if ((rc = vb_src_string(ld, tg, tobj, "follow", 1, &what)) != VB_OK)
    return rc;
  if (strcmp(what, "w") != 0)
    return vb_src_fail(ld, vb_src_at(tg, "follow"), tobj, "'follow' is '%s' (valid: \"w\", the "
                       "coordinate along w of mass '%s')", what, mass->name);
  if (!mass->has_w)
    return vb_src_fail(ld, vb_src_at(tg, "follow"), tobj, "follow = \"w\" needs mass '%s' to "
                       "have a w coordinate (valid: give it w0, vw0, kw or cw)", mass->name);
  const vb_friction_info *fi = vb_friction_info_of(c->friction.kind);
  if (mass->has_spin && !fi)
    return vb_src_fail(ld, vb_src_at(tg, "follow"), tobj, "a point following the w of mass '%s' "
                       "with a spin needs friction at the point: the spin turns only through "
                       "it (valid: friction = { law = ...; } on the contact, or a mass without "
                       "radius, inertia, spin0)", mass->name);
  if (fi && fi->stored)
    return vb_src_fail(ld, vb_src_at(tg, "follow"), tobj, "friction law '%s' at a point "
                       "following a mass's w is not done yet (valid: coulomb, stribeck, bow, "
                       "exponential)", fi->name);
  if (modal->nwmodes > 0)
    return vb_src_fail(ld, vb_src_at(tg, "follow"), tobj, "a point following a mass's w on "
                       "body '%s' with modes along w is not done yet (valid: a body with "
                       "directions = [\"u\"])", modal->name);
  if ((rc = vb_src_number(ld, tg, tobj, "start", 0, &c->track_start)) != VB_OK)
    return rc;
  if (!isfinite(c->track_start))
    return vb_src_refuse(ld, tg, tobj, "start", "finite (m)", c->track_start);
  c->track_follow = 1;
  return VB_OK;
}

static int
load_contact_track(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  static const char *const keys[] = {"points", "at", "drive", "follow", "start", NULL};
  static const char *const refused[] = {"gap_drive", "corrections", "exact_duration",
                                        "normal_force", "geometry"};
  const config_setting_t *tg = vb_src_member(g, "track"), *pts;
  const vb_scene *sc = ld->scene;
  char tobj[2 * OBJECT_MAX];
  int rc, n, count = 0, present = 0;

  if (config_setting_type(tg) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, tg, obj, "'track' must be a group { points = [...]; drive = { ... }; }");
  snprintf(tobj, sizeof tobj, "%s track", obj);
  if ((rc = vb_src_check_keys(ld, tg, tobj, keys, NULL)) != VB_OK)
    return rc;
  if (c->group[0])
    return vb_src_fail(ld, tg, obj, "a moving contact point is a point contact (valid: track on "
                       "a contact without points or profile)");
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (vb_src_member(g, refused[i]) != NULL)
      return vb_src_fail(ld, vb_src_at(g, refused[i]), obj,
                         "'%s' does not apply to a moving contact point yet (valid: a normal "
                         "law, gap, scheme two-point, friction with follow = \"w\")",
                         refused[i]);
  const vb_body *a = &sc->bodies[c->a], *b = &sc->bodies[c->b];
  int modal = a->kind == VB_BODY_MODAL ? c->a : b->kind == VB_BODY_MODAL ? c->b : -1;
  int other = modal == c->a ? c->b : c->a;
  if (modal < 0 || (a->kind == VB_BODY_MODAL && b->kind == VB_BODY_MODAL) ||
      sc->bodies[other].kind != VB_BODY_MASS)
    return vb_src_fail(ld, tg, obj, "a moving contact point joins a modal body and a mass "
                       "(valid: between = [\"body.point\", \"mass\"] or the other way)");
  if (strcmp(c->scheme->name, "two-point") != 0)
    return vb_src_fail(ld, vb_src_at(g, "scheme"), obj,
                       "scheme '%s' cannot step a moving contact point (valid: two-point)",
                       c->scheme->name);
  pts = vb_src_member(tg, "points");
  if (pts == NULL || config_setting_type(pts) != CONFIG_TYPE_ARRAY ||
      (n = config_setting_length(pts)) < 2)
    return vb_src_fail(ld, pts ? pts : tg, tobj, "'points' must be an array of at least two "
                       "points of body '%s' in order along the track", sc->bodies[modal].name);
  c->ntrack = n;
  c->track_point = calloc((size_t)n, sizeof *c->track_point);
  if (!c->track_point)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  for (int k = 0; k < n; k++) {
    const config_setting_t *e = config_setting_get_elem(pts, (unsigned)k);
    int body, point;
    if (config_setting_type(e) != CONFIG_TYPE_STRING)
      return vb_src_fail(ld, pts, tobj, "'points' must be an array of point names");
    if ((rc = vb_src_point(ld, pts, tobj, "points", config_setting_get_string(e), &body,
                           &point)) != VB_OK)
      return rc;
    if (body != modal)
      return vb_src_fail(ld, pts, tobj, "'points' must name points of body '%s', the contact's "
                         "(got '%s')", sc->bodies[modal].name, config_setting_get_string(e));
    c->track_point[k] = point;
  }
  if ((rc = vb_src_array(ld, tg, tobj, "at", 0, 0, n, &c->track_at, &count, &present)) != VB_OK)
    return rc;
  if (!present) {
    c->track_at = calloc((size_t)n, sizeof *c->track_at);
    if (!c->track_at)
      return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene",
                     ld->path);
    for (int k = 0; k < n; k++)
      c->track_at[k] = sc->bodies[modal].points[c->track_point[k]].x;
  }
  for (int k = 1; k < n; k++)
    if (!(c->track_at[k] > c->track_at[k - 1]))
      return vb_src_fail(ld, present ? vb_src_at(tg, "at") : pts, tobj,
                         "the track's positions must ascend (point %d at %g m, point %d at %g m)",
                         k - 1, c->track_at[k - 1], k, c->track_at[k]);
  if (vb_src_member(tg, "follow") != NULL)
    return load_track_follow(ld, tg, tobj, c, &sc->bodies[other]);
  if (vb_src_member(g, "friction") != NULL)
    return vb_src_fail(ld, vb_src_at(g, "friction"), obj, "'friction' at a driven moving point "
                       "is not done yet (valid: friction with track = { ...; follow = \"w\"; }, "
                       "the point following the mass's w)");
  if (vb_src_member(tg, "start") != NULL)
    return vb_src_fail(ld, vb_src_at(tg, "start"), tobj, "'start' goes with follow = \"w\" (valid: "
                       "a drive's own start, drive = { type = \"velocity\"; v; start; })");
  if (vb_src_member(tg, "drive") == NULL)
    return vb_src_fail(ld, tg, tobj, "missing required key 'drive' (the point's position along "
                       "the track, m: a drive such as { type = \"velocity\"; v; start; }, or "
                       "follow = \"w\")");
  const config_setting_t *dg = vb_src_member(tg, "drive");
  const char *type = NULL;
  if (config_setting_type(dg) == CONFIG_TYPE_GROUP &&
      vb_src_string(ld, dg, tobj, "type", 0, &type) == VB_OK && type &&
      strcmp(type, "velocity") == 0) {
    /* p = start + v t, as a wall's w_drive (load_friction.c) */
    static const char *const vkeys[] = {"type", "v", "start", NULL};
    char dobj[3 * OBJECT_MAX];
    snprintf(dobj, sizeof dobj, "%s drive", tobj);
    if ((rc = vb_src_check_keys(ld, dg, dobj, vkeys, NULL)) != VB_OK ||
        (rc = vb_src_number(ld, dg, dobj, "v", 1, &c->track_drive.speed)) != VB_OK ||
        (rc = vb_src_number(ld, dg, dobj, "start", 0, &c->track_drive.start)) != VB_OK)
      return rc;
    c->track_drive.kind = VB_DRIVE_VELOCITY;
    return VB_OK;
  }
  return vb_load_drive(ld, dg, tobj, &c->track_drive);
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
    if (!g)
      continue;
    snprintf(obj, sizeof obj, "contact '%s'", ct->group[0] ? ct->group : ct->name);
    if (vb_src_member(g, "geometry") != NULL && (rc = load_contact_geometry(ld, g, obj, ct)) != VB_OK)
      return rc;
    if (vb_src_member(g, "track") != NULL && (rc = load_contact_track(ld, g, obj, ct)) != VB_OK)
      return rc;
  }
  return VB_OK;
}
