/* load_friction.c - the tangential direction w and friction from a parsed
 * scene document (issue 30, steps 1 and 2; doc/scene-file.md "Friction"): a mass's
 * w0, vw0, kw, cw and its spin's radius, inertia, spin0; a wall's w_drive;
 * a contact's friction = { law; ... }.  The bodies' and contacts' loaders
 * accept the keys (their tables list them); this reads them once both
 * lists are loaded, so that a contact's friction can be checked against its
 * bodies and scheme.  Messages through source.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene.h"

/* The schemes that step friction (vb_scheme's `friction`), for messages
 * (here, above the registry, rather than beside the law table in
 * friction.c, which the step below the registry calls). */
const char *
vb_friction_schemes(char *buf, size_t len)
{
  size_t n, used = 0;
  const vb_scheme *const *all = vb_scheme_list(&n);
  if (len > 0)
    buf[0] = '\0';
  for (size_t i = 0; i < n; i++)
    if (all[i]->friction && used < len) {
      int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", all[i]->name);
      used += k > 0 ? (size_t)k : 0;
    }
  return buf;
}

/* The body types that take a w coordinate and a w drive. */
static int
takes_w(const vb_body *b)
{
  return b->kind == VB_BODY_MASS && strcmp(b->type, "mass") == 0;
}

/* A mass's w coordinate: any of w0, vw0, kw, cw gives it one. */
static int
load_mass_w(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"w0", "vw0", "kw", "cw"};
  int rc;
  for (int k = 0; k < 4; k++)
    b->has_w |= vb_src_member(g, keys[k]) != NULL;
  if (!b->has_w)
    return VB_OK;
  if ((rc = vb_src_number(ld, g, obj, "w0", 0, &b->w0)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "vw0", 0, &b->vw0)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "kw", 0, &b->kw)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "cw", 0, &b->cw)) != VB_OK)
    return rc;
  if (!(b->kw >= 0))
    return vb_src_refuse(ld, g, obj, "kw", ">= 0", b->kw);
  if (!(b->cw >= 0))
    return vb_src_refuse(ld, g, obj, "cw", ">= 0", b->cw);
  return VB_OK;
}

/* A mass's spin (issue 30, step 2): radius and inertia together give it
 * one, spin0 its start; it turns only through friction at its w
 * coordinate's contacts, so it needs that coordinate. */
static int
load_mass_spin(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"radius", "inertia", "spin0"};
  const config_setting_t *first = NULL;
  int rc, given[3];
  for (int k = 0; k < 3; k++) {
    given[k] = vb_src_member(g, keys[k]) != NULL;
    if (given[k] && !first)
      first = vb_src_at(g, keys[k]);
  }
  if (!first)
    return VB_OK;
  if (!given[0] || !given[1])
    return vb_src_fail(ld, first, obj,
                       "a spin needs both 'radius' (m) and 'inertia' (kg m^2, about the spin "
                       "axis); '%s' is missing (valid: radius and inertia, spin0 optional; a "
                       "solid sphere has inertia = 2/5 mass radius^2)",
                       given[0] ? "inertia" : "radius");
  if (!b->has_w)
    return vb_src_fail(ld, first, obj,
                       "a spin turns through friction along w, and this mass has no w "
                       "coordinate (valid: give it w0, vw0, kw or cw beside radius and inertia)");
  if ((rc = vb_src_number(ld, g, obj, "radius", 1, &b->radius)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "inertia", 1, &b->inertia)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "spin0", 0, &b->spin0)) != VB_OK)
    return rc;
  if (!(b->radius > 0 && isfinite(b->radius)))
    return vb_src_refuse(ld, g, obj, "radius", "> 0 (m)", b->radius);
  if (!(b->inertia > 0 && isfinite(b->inertia)))
    return vb_src_refuse(ld, g, obj, "inertia", "> 0 (kg m^2)", b->inertia);
  if (!isfinite(b->spin0))
    return vb_src_refuse(ld, g, obj, "spin0", "finite (rad/s)", b->spin0);
  b->has_spin = 1;
  return VB_OK;
}

/* A pluck at an angle (issue 30, a string on frets in both
 * polarisations): `pluck_angle = a` (degrees, from u towards w) turns the
 * body's initial displacement and velocity along u (q0, dq0, a preset's
 * pluck or initial) into cos(a) of them along u and sin(a) along w, the
 * modes along w being the same as along u (no w_modes_file, no wq0 or
 * wdq0 beside it). */
static int
load_pluck_angle(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b, int du)
{
  double deg = 0.0;
  int rc;
  if (vb_src_member(g, "pluck_angle") == NULL)
    return VB_OK;
  if (!du || vb_src_member(g, "w_modes_file") || vb_src_member(g, "wq0") ||
      vb_src_member(g, "wdq0"))
    return vb_src_fail(ld, vb_src_at(g, "pluck_angle"), obj,
                       "'pluck_angle' turns the pluck along u towards w on the same modes "
                       "(valid: directions = [\"u\", \"w\"] without w_modes_file, wq0 or "
                       "wdq0)");
  if ((rc = vb_src_number(ld, g, obj, "pluck_angle", 1, &deg)) != VB_OK)
    return rc;
  if (!(deg >= -90.0 && deg <= 90.0))
    return vb_src_refuse(ld, g, obj, "pluck_angle", ">= -90 and <= 90, degrees from u towards w",
                         deg);
  double a = deg * M_PI / 180.0, cu = cos(a), sw = sin(a);
  for (int j = 0; j < b->nmodes; j++) {
    b->wq0[j] = sw * b->q0[j];
    b->wdq0[j] = sw * b->dq0[j];
    b->q0[j] *= cu;
    b->dq0[j] *= cu;
  }
  return VB_OK;
}

/* A modal body's directions (issue 30, step 3): `directions = ["u", "w"]`
 * gives it modes along w beside those along u, by default the same modes
 * (frequencies, damping, modal masses and the shapes at its points: a
 * string's two polarisations), or those of `w_modes_file` (a modes file
 * as `modes_file` is, its points named as the body's); `["w"]` makes the
 * modes the body gives its modes along w and leaves it none along u (a
 * string bowed across, under a prescribed normal force).  `wq0` and `wdq0`
 * are their initial modal displacements and velocities (0 by default). */
static int
load_modal_w(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  const config_setting_t *dirs = vb_src_member(g, "directions");
  int du = 0, dw = 0, rc, present;
  if (dirs == NULL) {
    static const char *const wkeys[] = {"w_modes_file", "wq0", "wdq0", "pluck_angle"};
    for (int k = 0; k < 4; k++)
      if (vb_src_member(g, wkeys[k]) != NULL)
        return vb_src_fail(ld, vb_src_at(g, wkeys[k]), obj,
                           "'%s' gives modes along w, and the body has none (valid: "
                           "directions = [\"u\", \"w\"] or [\"w\"] beside it)",
                           wkeys[k]);
    return VB_OK;
  }
  int n = config_setting_length(dirs);
  if (!(config_setting_type(dirs) == CONFIG_TYPE_ARRAY || config_setting_type(dirs) == CONFIG_TYPE_LIST) ||
      n < 1 || n > 2)
    return vb_src_fail(ld, dirs, obj,
                       "'directions' must be an array of one or two directions (valid: "
                       "[\"u\"], [\"w\"], [\"u\", \"w\"])");
  for (int k = 0; k < n; k++) {
    const config_setting_t *e = config_setting_get_elem(dirs, (unsigned)k);
    const char *d = config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : "";
    if (strcmp(d, "u") == 0 && !du)
      du = 1;
    else if (strcmp(d, "w") == 0 && !dw)
      dw = 1;
    else
      return vb_src_fail(ld, dirs, obj,
                         "'directions' element %d is not a new direction 'u' or 'w' (valid: "
                         "[\"u\"], [\"w\"], [\"u\", \"w\"])",
                         k + 1);
  }
  if (!dw) {
    if (vb_src_member(g, "w_modes_file") || vb_src_member(g, "wq0") || vb_src_member(g, "wdq0"))
      return vb_src_fail(ld, dirs, obj,
                         "modes along w are given and 'directions' has no 'w' (valid: "
                         "[\"u\", \"w\"] or [\"w\"])");
    return VB_OK;
  }
  if (!du && vb_src_member(g, "w_modes_file") != NULL)
    return vb_src_fail(ld, vb_src_at(g, "w_modes_file"), obj,
                       "with directions = [\"w\"] the body's own modes are its modes along w "
                       "(valid: w_modes_file only beside directions = [\"u\", \"w\"])");
  if (vb_src_member(g, "w_modes_file") != NULL) {
    const char *file = NULL;
    char path[4200], msg[1024];
    vb_body t;
    memset(&t, 0, sizeof t);
    if ((rc = vb_src_string(ld, g, obj, "w_modes_file", 1, &file)) != VB_OK)
      return rc;
    vb_src_data_path(ld, file, path, sizeof path);
    if (vb_modes_file_read(&t, path, msg, sizeof msg) != VB_OK) {
      vb_body_clear(&t);
      return vb_src_fail(ld, vb_src_at(g, "w_modes_file"), obj, "%s", msg);
    }
    rc = vb_body_alloc_wmodes(b, t.nmodes) != VB_OK ? vb_src_fail(ld, g, obj, "out of memory")
                                                     : VB_OK;
    for (int j = 0; rc == VB_OK && j < t.nmodes; j++) {
      b->wfreq[j] = t.freq[j];
      b->wsigma[j] = t.sigma[j];
      b->wmodal_mass[j] = t.modal_mass[j];
      if (!(t.modal_mass[j] > 0))
        rc = vb_src_fail(ld, vb_src_at(g, "w_modes_file"), obj,
                         "'%s' mode %d has modal mass %g (valid: > 0)", file, j + 1,
                         t.modal_mass[j]);
    }
    for (int p = 0; rc == VB_OK && p < b->npoints; p++) {
      int q = 0;
      while (q < t.npoints && strcmp(t.points[q].name, b->points[p].name) != 0)
        q++;
      if (q == t.npoints)
        rc = vb_src_fail(ld, vb_src_at(g, "w_modes_file"), obj,
                         "'%s' has no point '%s' (valid: every point of the body, named as "
                         "in its modes along u)",
                         file, b->points[p].name);
      else
        memcpy(b->points[p].wshape, t.points[q].shape, (size_t)t.nmodes * sizeof(double));
    }
    vb_body_clear(&t);
    if (rc != VB_OK)
      return rc;
  } else {
    /* the same modes as along u: a string's second polarisation */
    if (vb_body_alloc_wmodes(b, b->nmodes) != VB_OK)
      return vb_src_fail(ld, g, obj, "out of memory");
    for (int j = 0; j < b->nmodes; j++) {
      b->wfreq[j] = b->freq[j];
      b->wsigma[j] = b->sigma[j];
      b->wmodal_mass[j] = b->modal_mass[j];
      for (int p = 0; p < b->npoints; p++)
        b->points[p].wshape[j] = b->points[p].shape[j];
    }
    if (!du) {
      /* ["w"]: the modes given are those along w (a pluck, q0 and dq0 with
       * them); along u it has none.  Gravity acts along u, on nothing. */
      if (ld->scene->gravity != 0.0)
        return vb_src_fail(ld, dirs, obj,
                           "with directions = [\"w\"] the body has no modes along u for "
                           "the scene's gravity to act on (valid: gravity = 0, or [\"u\", "
                           "\"w\"])");
      memcpy(b->wq0, b->q0, (size_t)b->nmodes * sizeof(double));
      memcpy(b->wdq0, b->dq0, (size_t)b->nmodes * sizeof(double));
      if ((vb_src_member(g, "q0") && vb_src_member(g, "wq0")) ||
          (vb_src_member(g, "dq0") && vb_src_member(g, "wdq0")))
        return vb_src_fail(ld, vb_src_at(g, vb_src_member(g, "wq0") ? "wq0" : "wdq0"), obj,
                           "with directions = [\"w\"] q0 and dq0 are along w: give them "
                           "once (valid: q0 or wq0, dq0 or wdq0)");
      b->nmodes = 0;
    }
  }
  if ((rc = vb_src_array(ld, g, obj, "wq0", 0, 0, b->nwmodes, &b->wq0, NULL, &present)) != VB_OK ||
      (rc = vb_src_array(ld, g, obj, "wdq0", 0, 0, b->nwmodes, &b->wdq0, NULL, &present)) != VB_OK)
    return rc;
  if ((rc = load_pluck_angle(ld, g, obj, b, du)) != VB_OK)
    return rc;
  b->has_w = 1;
  return VB_OK;
}

/* A wall's w drive: { type = "velocity"; v = ...; start = ...; } (a belt),
 * or any drive a wall's u may have (sine, profile, noise: load_body.c). */
static int
load_w_drive(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"type", "v", "start", NULL};
  char dobj[2 * OBJECT_MAX], valid[LIST_MAX] = "velocity";
  const char *type = NULL;
  int rc, count;

  snprintf(dobj, sizeof dobj, "%s w_drive", obj);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "'w_drive' must be a group { type = ...; ... }");
  if ((rc = vb_src_string(ld, g, dobj, "type", 1, &type)) != VB_OK)
    return rc;
  if (strcmp(type, "velocity") != 0) {
    if (vb_drive_lookup(type) == NULL) {
      vb_drive_info_at(0, &count);
      for (int i = 0; i < count; i++)
        vb_list_add(valid, sizeof valid, vb_drive_info_at(i, NULL)->name);
      return vb_src_fail(ld, vb_src_at(g, "type"), dobj, "unknown drive type '%s' (valid: %s)",
                         type, valid);
    }
    snprintf(dobj, sizeof dobj, "%s w", obj); /* vb_load_drive says "... w drive: ..." */
    return vb_load_drive(ld, g, dobj, &b->w_drive);
  }
  if ((rc = vb_src_check_keys(ld, g, dobj, keys, NULL)) != VB_OK ||
      (rc = vb_src_number(ld, g, dobj, "v", 1, &b->w_drive.speed)) != VB_OK ||
      (rc = vb_src_number(ld, g, dobj, "start", 0, &b->w_drive.start)) != VB_OK)
    return rc;
  b->w_drive.kind = VB_DRIVE_VELOCITY;
  return VB_OK;
}

/* What a body of a friction contact lacks, into why[len]; 0 when it can
 * take friction (a mass with a w coordinate, or a wall). */
static int
lacks_w(const vb_body *b, char *why, size_t len)
{
  if (b->kind == VB_BODY_WALL || (b->kind == VB_BODY_MASS && b->has_w) ||
      (b->kind == VB_BODY_MODAL && b->nwmodes > 0))
    return 0;
  if (b->kind == VB_BODY_MASS && takes_w(b))
    snprintf(why, len, "mass '%s' has no w coordinate (valid: give it w0, vw0, kw or cw)",
             b->name);
  else
    snprintf(why, len,
             "body '%s' (type %s) has no w direction (valid: a mass with w0, vw0, kw or cw, "
             "a modal body with directions = [\"u\", \"w\"] or [\"w\"], or a wall)",
             b->name, b->type);
  return 1;
}

/* A contact's friction group: its law from the friction table, its
 * parameters (each checked against its condition, then the law's own
 * check), and what the contact must be for this step to step it. */
static int
load_contact_friction(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  const config_setting_t *fg = vb_src_member(g, "friction");
  const char *name = NULL, *keys[16];
  char fobj[2 * OBJECT_MAX], why[256], list[LIST_MAX];
  const vb_friction_info *info;
  int rc, n = 0;

  snprintf(fobj, sizeof fobj, "%s friction", obj);
  if (config_setting_type(fg) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, fg, obj, "'friction' must be a group { law = \"coulomb\"; ... }");
  if ((rc = vb_src_string(ld, fg, fobj, "law", 1, &name)) != VB_OK)
    return rc;
  if ((info = vb_friction_lookup(name)) == NULL)
    return vb_src_fail(ld, vb_src_at(fg, "law"), fobj, "unknown friction law '%s' (valid: %s)",
                       name, vb_friction_choices());
  keys[n++] = "law";
  for (const vb_friction_param *p = info->params; p->key && n < 15; p++)
    keys[n++] = p->key;
  keys[n] = NULL;
  if ((rc = vb_src_check_keys(ld, fg, fobj, keys, NULL)) != VB_OK)
    return rc;
  c->friction.kind = info->kind;
  for (const vb_friction_param *p = info->params; p->key; p++) {
    double x = p->fallback;
    if ((rc = vb_src_number(ld, fg, fobj, p->key, p->required, &x)) != VB_OK)
      return rc;
    if (isnan(x) && vb_src_member(fg, p->key) == NULL)
      x = c->friction.mu_s; /* mu_k defaults to mu_s (one coefficient) */
    if (!(x >= p->min))
      return vb_src_refuse(ld, fg, fobj, p->key, p->condition, x);
    memcpy((char *)&c->friction + p->offset, &x, sizeof x);
  }
  if (!info->valid(&c->friction, why, sizeof why))
    return vb_src_fail(ld, fg, fobj, "%s", why);
  /* what the step steps: a scheme with friction, bodies with w (a
   * distributed contact's points as point contacts: friction_dist.c) */
  if (!c->scheme->friction)
    return vb_src_fail(ld, vb_src_at(g, "scheme"), obj,
                       "scheme '%s' cannot step friction yet (valid: %s)", c->scheme->name,
                       vb_friction_schemes(list, sizeof list));
  /* a rigid contact's friction is solved at velocity level (friction.c,
   * doc/rigid.md): a law whose state integrates the slip over the step
   * (the bristle's) has no such form */
  if (vb_law_info_of(c->law.kind)->rigid && info->stored)
    return vb_src_fail(ld, vb_src_at(fg, "law"), fobj,
                       "friction law '%s' has a state of its own, which a rigid contact's "
                       "impulses cannot step (valid: coulomb, stribeck, bow or exponential on law "
                       "'rigid')",
                       info->name);
  /* a contact point moving along a modal body (track): the body is
   * judged there (load_geometry.c: fixed along w under a point following
   * the mass's w) */
  int track = vb_src_member(g, "track") != NULL;
  const vb_body *ba = &ld->scene->bodies[c->a], *bb = &ld->scene->bodies[c->b];
  if ((!(track && ba->kind == VB_BODY_MODAL) && lacks_w(ba, why, sizeof why)) ||
      (!(track && bb->kind == VB_BODY_MODAL) && lacks_w(bb, why, sizeof why)))
    return vb_src_fail(ld, fg, obj, "friction needs a w direction on both bodies: %s", why);
  if (ld->scene->bodies[c->a].kind == VB_BODY_WALL && ld->scene->bodies[c->b].kind == VB_BODY_WALL)
    return vb_src_fail(ld, fg, obj, "friction between two walls moves nothing (valid: a mass "
                                    "on at least one side)");
  return VB_OK;
}

int
vb_load_friction(vb_loader *ld, const config_setting_t *root)
{
  const config_setting_t *bodies = vb_src_member(root, "bodies");
  const config_setting_t *contacts = vb_src_member(root, "contacts");
  vb_scene *sc = ld->scene;
  char obj[OBJECT_MAX];
  int rc;

  for (int i = 0; bodies && i < sc->nbodies; i++) {
    const config_setting_t *g = config_setting_get_elem(bodies, (unsigned)i);
    vb_body *b = &sc->bodies[i];
    snprintf(obj, sizeof obj, "body '%s'", b->name);
    if (takes_w(b) && ((rc = load_mass_w(ld, g, obj, b)) != VB_OK ||
                       (rc = load_mass_spin(ld, g, obj, b)) != VB_OK))
      return rc;
    if (b->kind == VB_BODY_MODAL && (rc = load_modal_w(ld, g, obj, b)) != VB_OK)
      return rc;
    if (b->kind == VB_BODY_WALL && vb_src_member(g, "w_drive") != NULL &&
        (rc = load_w_drive(ld, vb_src_member(g, "w_drive"), obj, b)) != VB_OK)
      return rc;
  }
  for (int c = 0; contacts && c < sc->ncontacts; c++) {
    vb_contact *ct = &sc->contacts[c];
    const config_setting_t *g = config_setting_get_elem(contacts, (unsigned)ct->element);
    if (g && ct->normal_given && vb_src_member(g, "friction") == NULL) {
      snprintf(obj, sizeof obj, "contact '%s'", ct->group[0] ? ct->group : ct->name);
      return vb_src_fail(ld, vb_src_at(g, "normal_force"), obj,
                         "'normal_force' bounds the contact's friction, and it has none (valid: "
                         "friction = { law = ...; } beside normal_force, or a normal law "
                         "instead of normal_force)");
    }
    for (int side = 0; g && side < 2; side++) {
      const vb_body *b = &sc->bodies[side ? ct->b : ct->a];
      if (b->kind == VB_BODY_MODAL && b->nmodes == 0 && b->nwmodes > 0 && !ct->normal_given) {
        snprintf(obj, sizeof obj, "contact '%s'", ct->group[0] ? ct->group : ct->name);
        return vb_src_fail(ld, g, obj,
                           "body '%s' moves only along w (directions = [\"w\"]), so a normal "
                           "law has nothing to press (valid: normal_force and friction, or "
                           "directions = [\"u\", \"w\"])",
                           b->name);
      }
    }
    if (!g || vb_src_member(g, "friction") == NULL)
      continue;
    snprintf(obj, sizeof obj, "contact '%s'", ct->group[0] ? ct->group : ct->name);
    if ((rc = load_contact_friction(ld, g, obj, ct)) != VB_OK)
      return rc;
  }
  return VB_OK;
}
