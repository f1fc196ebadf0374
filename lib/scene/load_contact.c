/* load_contact.c - contacts and forces from a parsed scene document: the
 * "body" or "body.point" they act at, the law and its parameters, the
 * scheme, and Papetti's corrections.  Messages through scene/scene.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scheme.h"

/* Index of a body by name, or -1 (-2 when out of memory), through the
 * loader's index of the bodies (built on first use: the bodies are loaded
 * before any contact or force). */
static int
find_body(vb_loader *ld, const char *name)
{
  const vb_scene *sc = ld->scene;

  if (ld->bodies.item == NULL && sc->nbodies > 0 &&
      vb_names_build(&ld->bodies, sc->bodies[0].name, sizeof sc->bodies[0], sc->nbodies) != VB_OK)
    return -2;
  return vb_names_find(&ld->bodies, name);
}

/* Index of point `name` of modal body b, or -1 (-2 when out of memory),
 * through the loader's index of that body's points. */
static int
find_point(vb_loader *ld, int b, const char *name)
{
  const vb_body *body = &ld->scene->bodies[b];

  if (ld->points == NULL && (ld->points = calloc((size_t)ld->scene->nbodies, sizeof *ld->points)) == NULL)
    return -2;
  if (ld->points[b].item == NULL && body->npoints > 0 &&
      vb_names_build(&ld->points[b], body->points[0].name, sizeof body->points[0], body->npoints) !=
          VB_OK)
    return -2;
  return vb_names_find(&ld->points[b], name);
}

/* Resolve "body" or "body.point" into a body and point index; a modal
 * object needs a point, a mass or wall takes none.  Messages go to m. */
static int
resolve_point(vb_loader *ld, const config_setting_t *m, const char *obj, const char *key,
              const char *text, int *body, int *point)
{
  const vb_scene *sc = ld->scene;
  char bname[VB_NAME_MAX * 2 + 2], valid[LIST_MAX];
  const char *dot = strchr(text, '.');
  size_t n = dot ? (size_t)(dot - text) : strlen(text);
  int j;

  if (n >= sizeof bname)
    n = sizeof bname - 1;
  memcpy(bname, text, n);
  bname[n] = '\0';
  *body = find_body(ld, bname);
  if (*body == -2)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  if (*body < 0) {
    valid[0] = '\0';
    for (j = 0; j < sc->nbodies; j++)
      vb_list_add(valid, sizeof valid, sc->bodies[j].name);
    return vb_src_fail(ld, m, obj, "'%s' names unknown body '%s' (valid: %s)", key, bname, valid);
  }
  const vb_body *b = &sc->bodies[*body];
  *point = 0;
  if (b->kind != VB_BODY_MODAL) {
    if (dot != NULL)
      return vb_src_fail(ld, m, obj,
                         "'%s' names point '%s' of %s '%s', which has no points "
                         "(valid: '%s')",
                         key, dot + 1, b->type, bname, bname);
    return VB_OK;
  }
  j = dot != NULL ? find_point(ld, *body, dot + 1) : -1;
  if (j == -2)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  if (j >= 0) {
    *point = j;
    return VB_OK;
  }
  /* the list of valid points only for the message */
  valid[0] = '\0';
  for (j = 0; j < b->npoints; j++) {
    char full[4 * VB_NAME_MAX + 4];
    snprintf(full, sizeof full, "%s.%s", bname, b->points[j].name);
    vb_list_add(valid, sizeof valid, full);
  }
  if (dot == NULL)
    return vb_src_fail(ld, m, obj, "'%s' must name a point of modal object '%s' (valid: %s)", key,
                       bname, valid);
  return vb_src_fail(ld, m, obj, "'%s' names unknown point '%s' (valid: %s)", key, text, valid);
}

/* resolve_point for the other parts of the loader (analysis.c). */
int
vb_src_point(vb_loader *ld, const config_setting_t *m, const char *obj, const char *key,
             const char *text, int *body, int *point)
{
  return resolve_point(ld, m, obj, key, text, body, point);
}

/* Resolve the 'between' array of a contact into body and point indices. */
static int
load_between(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  const config_setting_t *m = vb_src_member(g, "between");
  const vb_scene *sc = ld->scene;
  const char *names[2];
  int i, n, idx[2], pt[2], rc;

  if (m == NULL)
    return vb_src_fail(ld, g, obj, "missing required key 'between'");
  if (config_setting_type(m) != CONFIG_TYPE_ARRAY && config_setting_type(m) != CONFIG_TYPE_LIST)
    return vb_src_fail(ld, m, obj, "'between' must be an array of two body names");
  n = config_setting_length(m);
  for (i = 0; i < n; i++)
    if (config_setting_type(config_setting_get_elem(m, (unsigned)i)) != CONFIG_TYPE_STRING)
      return vb_src_fail(ld, m, obj, "'between' must be an array of two body names");
  if (n != 2)
    return vb_src_fail(ld, m, obj, "'between' must name exactly two bodies (got %d)", n);
  for (i = 0; i < 2; i++) {
    names[i] = config_setting_get_string_elem(m, i);
    if ((rc = resolve_point(ld, m, obj, "between", names[i], &idx[i], &pt[i])) != VB_OK)
      return rc;
  }
  if (idx[0] == idx[1] && pt[0] == pt[1])
    return vb_src_fail(ld, m, obj, "'between' names body '%s' twice (valid: two different bodies)",
                       names[0]);
  if (sc->bodies[idx[0]].kind == VB_BODY_WALL && sc->bodies[idx[1]].kind == VB_BODY_WALL) {
    /* the types that move, from the body-type table: "'mass', 'modal' or 'x'" */
    char moving[LIST_MAX] = "";
    const vb_body_type *t;
    int last = -1;
    for (i = 0; (t = vb_body_type_at(i, NULL)) != NULL; i++)
      if (t->kind != VB_BODY_WALL)
        last = i;
    for (i = 0; (t = vb_body_type_at(i, NULL)) != NULL; i++)
      if (t->kind != VB_BODY_WALL)
        snprintf(moving + strlen(moving), sizeof moving - strlen(moving), "%s'%s'",
                 moving[0] == '\0' ? "" : i == last ? " or " : ", ", t->name);
    return vb_src_fail(ld, m, obj,
                       "'between' joins two walls '%s' and '%s' (valid: at least one "
                       "body of type %s)",
                       names[0], names[1], moving);
  }
  c->a = idx[0];
  c->b = idx[1];
  c->pa = pt[0];
  c->pb = pt[1];
  return VB_OK;
}

/* Whether scheme s takes the scene key `key` as a parameter of its own. */
static int
scheme_takes(const vb_scheme *s, const char *key)
{
  for (const char *const *p = s ? s->params : NULL; p && *p; p++)
    if (strcmp(*p, key) == 0)
      return 1;
  return 0;
}

static int
takes_s(const vb_scheme *s)
{
  return scheme_takes(s, "s");
}
/* (a rigid contact's impulses take no correction: its law has no
 * Papetti prediction to correct to) */
static int
has_velocity(const vb_scheme *s)
{
  return vb_family_info_of(s->family)->velocity && !vb_family_info_of(s->family)->impulse;
}
static int
exact_duration(const vb_scheme *s)
{
  return s->exact_duration_eq != 0;
}

static int
impulse_family(const vb_scheme *s)
{
  return vb_family_info_of(s->family)->impulse;
}

/* The registered schemes that `keep` accepts, comma-separated into list
 * (so messages follow the registry, not a copy of it). */
static void
scheme_list(char *list, size_t size, int (*keep)(const vb_scheme *))
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  list[0] = '\0';
  for (size_t i = 0; i < n; i++)
    if (keep(all[i]))
      vb_list_add(list, size, all[i]->name);
}

/* Check the keys of a contact group against its law and scheme, as far as
 * they resolve (an unresolved law or scheme allows all of its keys and is
 * reported afterwards).  The law keys come from the law table. */
static int
check_contact_keys(vb_loader *ld, const config_setting_t *g, const char *obj)
{
  static const char *const before[] = {"name", "between", "law"};
  static const char *const after[] = {
      "gap",         "gap_drive", "scheme",         "s",        "tolerance", "max_iterations",
      "corrections", "vout",      "exact_duration", "saturate", "points",    "profile",
      "friction" /* issue 30: load_friction.c */, "normal_force" /* issue 30: a bow */,
      "normal_force_drive", "geometry" /* issue 30: load_geometry.c */, "track"};
  const config_setting_t *m;
  const char *keys[64], *law = NULL, *scheme = NULL, *names[VB_LAW_COUNT];
  const char *lk[VB_LAW_COUNT][VB_VARIANT_KEYS_MAX], *const *law_keys[VB_LAW_COUNT];
  vb_key_rule rules[VB_VARIANT_KEYS_MAX + 2];
  char only[VB_VARIANT_KEYS_MAX][LIST_MAX], only_s[LIST_MAX + 8];
  vb_law_kind kind = VB_LAW_COUNT;
  int n = 0, nr, scheme_known;
  size_t i;

  m = vb_src_member(g, "law");
  if (m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING)
    law = config_setting_get_string(m);
  m = vb_src_member(g, "scheme");
  if (m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING)
    scheme = config_setting_get_string(m);
  if (law == NULL || vb_law_lookup(law, &kind) != VB_OK)
    kind = VB_LAW_COUNT;
  scheme_known = scheme != NULL && vb_scheme_lookup(scheme) != NULL;
  /* the law keys from the law table */
  for (int l = 0; l < VB_LAW_COUNT; l++) {
    int j = 0;
    names[l] = vb_law_name((vb_law_kind)l);
    for (const vb_law_param *p = vb_law_info_of((vb_law_kind)l)->params; p->key; p++)
      lk[l][j++] = p->key;
    lk[l][j] = NULL;
    law_keys[l] = lk[l];
  }
  for (i = 0; i < sizeof before / sizeof *before; i++)
    keys[n++] = before[i];
  vb_variant_keys("law", VB_LAW_COUNT, names, law_keys, kind == VB_LAW_COUNT ? -1 : (int)kind,
                  keys, &n, NULL, NULL);
  for (i = 0; i < sizeof after / sizeof *after; i++)
    if (strcmp(after[i], "s") != 0 || !scheme_known || takes_s(vb_scheme_lookup(scheme)))
      keys[n++] = after[i];
  keys[n] = NULL;
  if (vb_src_keys_allowed(g, keys))
    return VB_OK;
  /* where the other laws' keys and `s` apply: the words of the refusal */
  nr = vb_variant_keys("law", VB_LAW_COUNT, names, law_keys,
                       kind == VB_LAW_COUNT ? -1 : (int)kind, NULL, NULL, rules, only);
  char takers[LIST_MAX];
  scheme_list(takers, sizeof takers, takes_s);
  snprintf(only_s, sizeof only_s, strchr(takers, ',') ? "schemes %s" : "scheme '%s'", takers);
  rules[nr].key = "s";
  rules[nr++].only = only_s;
  rules[nr].key = NULL;
  return vb_src_check_keys(ld, g, obj, keys, rules);
}

/* Load the law parameters of a contact from the law table: each key read
 * (or its fallback), then checked against its condition. */
static int
load_law(vb_loader *ld, const config_setting_t *g, const char *obj, vb_law *law)
{
  const vb_law_info *info = vb_law_info_of(law->kind);
  int rc;

  law->k = law->alpha = law->mu = law->h = law->c = law->e = 0.0;
  law->alpha = info->alpha;
  for (const vb_law_param *p = info->params; p->key; p++) {
    double x = p->fallback;
    if ((rc = vb_src_number(ld, g, obj, p->key, p->required, &x)) != VB_OK)
      return rc;
    if (!vb_law_param_valid(info, p, x))
      return vb_src_refuse(ld, g, obj, p->key, p->condition, x);
    vb_law_param_set(law, p, x);
  }
  return VB_OK;
}

static void scheme_list(char *list, size_t size, int (*keep)(const vb_scheme *));

/* A rigid law (Signorini with Newton's impact law, doc/rigid.md) is stepped
 * by the nonsmooth family's schemes alone, and they step nothing else. */
static int
check_rigid_scheme(vb_loader *ld, const config_setting_t *g, const char *obj, const vb_contact *c)
{
  int rigid = vb_law_info_of(c->law.kind)->rigid, impulse = impulse_family(c->scheme);
  if (rigid == impulse)
    return VB_OK;
  char valid[LIST_MAX];
  scheme_list(valid, sizeof valid, impulse_family);
  if (rigid)
    return vb_src_fail(ld, vb_src_at(g, "scheme"), obj,
                       "scheme '%s' cannot step law 'rigid': a rigid contact is an impulse, "
                       "not a force (valid: %s)",
                       c->scheme->name, valid);
  return vb_src_fail(ld, vb_src_at(g, "scheme"), obj,
                     "scheme '%s' steps rigid contacts only, not law '%s' (valid: law 'rigid', "
                     "or another scheme for law '%s')",
                     c->scheme->name, vb_law_name(c->law.kind), vb_law_name(c->law.kind));
}

/* Papetti's corrections and the exact-duration substitution of a contact:
 * corrections = ["xmax", "vout"]; vout = "exact" | "approx";
 * exact_duration = true; saturate = true. */
static int
load_corrections(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  const config_setting_t *m = vb_src_member(g, "corrections");
  const vb_law *law = &c->law;
  int rc;
  c->corrections = 0;
  c->vout_exact = 1;
  c->exact_duration = c->saturate = 0;
  if (m != NULL) {
    int n = config_setting_length(m);
    if (config_setting_type(m) != CONFIG_TYPE_ARRAY && config_setting_type(m) != CONFIG_TYPE_LIST)
      return vb_src_fail(ld, m, obj, "'corrections' must be an array of names (valid: xmax, vout)");
    for (int i = 0; i < n; i++) {
      const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
      const char *name =
          config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : NULL;
      if (name != NULL && strcmp(name, "xmax") == 0)
        c->corrections |= VB_CORRECT_XMAX;
      else if (name != NULL && strcmp(name, "vout") == 0)
        c->corrections |= VB_CORRECT_VOUT;
      else
        return vb_src_fail(ld, m, obj, "unknown correction '%s' (valid: xmax, vout)",
                           name ? name : "(not a string)");
    }
    if (!vb_law_info_of(law->kind)->papetti) {
      char valid[LIST_MAX] = "";
      for (int l = 0; l < VB_LAW_COUNT; l++)
        if (vb_law_info_of((vb_law_kind)l)->papetti)
          vb_list_add(valid, sizeof valid, vb_law_name((vb_law_kind)l));
      return vb_src_fail(ld, m, obj,
                         "corrections need an impact law with analytic x_max "
                         "and v_out (valid: %s)",
                         valid);
    }
    if (!has_velocity(c->scheme)) {
      char valid[LIST_MAX];
      scheme_list(valid, sizeof valid, has_velocity);
      return vb_src_fail(ld, m, obj,
                         "corrections apply to schemes whose state holds a velocity "
                         "(valid: %s)",
                         valid);
    }
  }
  m = vb_src_member(g, "vout");
  if (m != NULL) {
    const char *v = NULL;
    if ((rc = vb_src_string(ld, g, obj, "vout", 1, &v)) != VB_OK)
      return rc;
    if (!(c->corrections & VB_CORRECT_VOUT))
      return vb_src_fail(ld, m, obj, "'vout' applies only with corrections = [\"vout\"]");
    if (strcmp(v, "exact") == 0)
      c->vout_exact = 1;
    else if (strcmp(v, "approx") == 0)
      c->vout_exact = 0;
    else
      return vb_src_fail(ld, m, obj, "unknown vout '%s' (valid: exact, approx)", v);
  }
  if ((rc = vb_src_bool(ld, g, obj, "exact_duration", &c->exact_duration)) != VB_OK ||
      (rc = vb_src_bool(ld, g, obj, "saturate", &c->saturate)) != VB_OK)
    return rc;
  if (c->exact_duration) {
    m = vb_src_member(g, "exact_duration");
    if (!vb_law_info_of(law->kind)->exact_duration || law->alpha != 1.0) {
      char valid[LIST_MAX] = "";
      for (int l = 0; l < VB_LAW_COUNT; l++)
        if (vb_law_info_of((vb_law_kind)l)->exact_duration)
          vb_list_add(valid, sizeof valid, vb_law_name((vb_law_kind)l));
      return vb_src_fail(ld, m, obj,
                         "exact_duration needs law %s%s%s with alpha = 1 "
                         "(Chatziioannou eq 14-16)",
                         strchr(valid, ',') ? "" : "'", valid, strchr(valid, ',') ? "" : "'");
    }
    if (!exact_duration(c->scheme)) {
      char valid[LIST_MAX];
      scheme_list(valid, sizeof valid, exact_duration);
      return vb_src_fail(ld, m, obj,
                         "exact_duration applies to the schemes with an exact "
                         "contact duration (valid: %s)",
                         valid);
    }
  }
  if (c->saturate && !c->exact_duration)
    return vb_src_fail(ld, vb_src_at(g, "saturate"), obj,
                       "'saturate' applies only with "
                       "exact_duration = true");
  return VB_OK;
}

/* A prescribed normal force (issue 30, step 3; doc/friction.md): a
 * contact with `normal_force` (N >= 0) and no normal law (`law` omitted or
 * "none"), a bow pressed on a body with a given force.  Its friction is
 * bounded by that force (load_friction.c refuses it without friction) and
 * its normal direction carries no contact force: it is given a linear
 * spring of k = 0, c = 0, whose force is exactly 0 under every scheme, so
 * that the island's machinery (its bodies joined, the family's step) is
 * the same as for any contact.  law = "none" without normal_force, or
 * normal_force beside a normal law or its parameters, is refused. */
static int
load_normal_given(vb_loader *ld, const config_setting_t *g, const char *obj, vb_contact *c)
{
  const config_setting_t *nf = vb_src_member(g, "normal_force");
  const config_setting_t *lm = vb_src_member(g, "law");
  const char *law = lm && config_setting_type(lm) == CONFIG_TYPE_STRING
                        ? config_setting_get_string(lm)
                        : NULL;
  int none = lm == NULL || (law != NULL && strcmp(law, "none") == 0);
  int rc;

  c->normal_given = 0;
  c->normal_force = 0.0;
  if (nf == NULL && vb_src_member(g, "normal_force_drive") != NULL)
    return vb_src_fail(ld, vb_src_at(g, "normal_force_drive"), obj,
                       "'normal_force_drive' varies a prescribed normal force, and the contact "
                       "has none (valid: normal_force = <N> beside it)");
  if (nf == NULL) {
    if (lm != NULL && none)
      return vb_src_fail(ld, lm, obj,
                         "law 'none' needs a prescribed 'normal_force' in N (valid: %s, or "
                         "\"none\" with normal_force)",
                         vb_law_choices());
    return VB_OK;
  }
  if (!none)
    return vb_src_fail(ld, nf, obj,
                       "'normal_force' prescribes the normal force of a contact without a "
                       "normal law, and law '%s' gives one (valid: law omitted or \"none\" with "
                       "normal_force, or law '%s' without normal_force)",
                       law ? law : "?", law ? law : "?");
  /* no normal law: none of the laws' parameters applies */
  for (int l = 0; l < VB_LAW_COUNT; l++)
    for (const vb_law_param *p = vb_law_info_of((vb_law_kind)l)->params; p->key; p++)
      if (vb_src_member(g, p->key) != NULL)
        return vb_src_fail(ld, vb_src_at(g, p->key), obj,
                           "'%s' is a normal law's parameter, and the contact has none "
                           "(normal_force is prescribed; valid: a law with its parameters, "
                           "or normal_force without them)",
                           p->key);
  if ((rc = vb_src_number(ld, g, obj, "normal_force", 1, &c->normal_force)) != VB_OK)
    return rc;
  if (!(c->normal_force >= 0.0) || !isfinite(c->normal_force))
    return vb_src_refuse(ld, g, obj, "normal_force", ">= 0 and finite", c->normal_force);
  /* its time profile: N(t) = normal_force + A sin(2 pi f t + phase), a
   * sine only (the drives with data of their own would need the scene to
   * own them per contact); N(t) < 0 lifts the bow off (N = 0) */
  const config_setting_t *nd = vb_src_member(g, "normal_force_drive");
  if (nd != NULL) {
    const config_setting_t *ty = config_setting_type(nd) == CONFIG_TYPE_GROUP
                                     ? vb_src_member(nd, "type")
                                     : NULL;
    const char *type = ty && config_setting_type(ty) == CONFIG_TYPE_STRING
                           ? config_setting_get_string(ty)
                           : NULL;
    if (type == NULL || strcmp(type, "sine") != 0)
      return vb_src_fail(ld, ty ? ty : nd, obj,
                         "'normal_force_drive' must be { type = \"sine\"; amplitude; freq; "
                         "phase; } (N, Hz, rad) (valid: sine)");
    char dobj[OBJECT_MAX + 16];
    snprintf(dobj, sizeof dobj, "%s normal_force", obj);
    if ((rc = vb_load_drive(ld, nd, dobj, &c->normal_drive)) != VB_OK)
      return rc;
  }
  c->normal_given = 1;
  c->law.kind = VB_LAW_SPRING;
  c->law.k = c->law.mu = c->law.h = c->law.c = c->law.e = 0.0;
  c->law.alpha = vb_law_info_of(VB_LAW_SPRING)->alpha;
  return VB_OK;
}

/* The bodies and point of a distributed block's contacts (the first
 * point's; vb_load_contacts sets each point's) and the keys it refuses. */
static int
block_between(vb_loader *ld, const config_setting_t *g, const char *obj, const vb_dist_block *blk,
              vb_contact *c)
{
  static const char *const refused[] = {"gap", "gap_drive"};
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
    if (vb_src_member(g, refused[k]) != NULL)
      return vb_src_fail(ld, vb_src_at(g, refused[k]), obj,
                         "'%s' does not apply to a distributed contact (valid: its 'profile' "
                         "gives each point's height; drive the wall '%s' to move it)",
                         refused[k], ld->scene->bodies[blk->other].name);
  c->a = blk->body_first ? blk->body : blk->other;
  c->b = blk->body_first ? blk->other : blk->body;
  c->pa = blk->body_first ? blk->first_point : 0;
  c->pb = blk->body_first ? 0 : blk->first_point;
  return VB_OK;
}

/* Load one contact from its group; i is its index, blk its distributed
 * block's points (NULL for a point contact). */
static int
load_contact(vb_loader *ld, const config_setting_t *list, int i, const vb_dist_block *blk)
{
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  vb_contact *c = &ld->scene->contacts[i];
  const char *law = NULL, *scheme = NULL;
  char obj[OBJECT_MAX];
  int rc;

  if ((rc = vb_src_element(ld, list, i, "contact", "{ name = ...; between = ...; }",
                           ld->scene->contacts[0].name, sizeof *c, obj, sizeof obj)) != VB_OK)
    return rc;
  c->line = config_setting_source_line(g);
  if ((rc = check_contact_keys(ld, g, obj)) != VB_OK)
    return rc;
  if ((rc = load_normal_given(ld, g, obj, c)) != VB_OK)
    return rc;
  if (!c->normal_given && (rc = vb_src_string(ld, g, obj, "law", 1, &law)) != VB_OK)
    return rc;
  if (!c->normal_given && vb_law_lookup(law, &c->law.kind) != VB_OK)
    return vb_src_fail(ld, vb_src_at(g, "law"), obj, "unknown law '%s' (valid: %s)", law,
                       vb_law_choices());
  if ((rc = vb_src_string(ld, g, obj, "scheme", 1, &scheme)) != VB_OK)
    return rc;
  c->scheme = vb_scheme_lookup(scheme);
  if (c->scheme == NULL)
    return vb_src_fail(ld, vb_src_at(g, "scheme"), obj, "unknown scheme '%s' (valid: %s)", scheme,
                       vb_scheme_choices());
  if ((rc = blk ? block_between(ld, g, obj, blk, c) : load_between(ld, g, obj, c)) != VB_OK)
    return rc;
  if (!c->normal_given && (rc = load_law(ld, g, obj, &c->law)) != VB_OK)
    return rc;
  if ((rc = check_rigid_scheme(ld, g, obj, c)) != VB_OK)
    return rc;
  c->gap = 0.0;
  if ((rc = vb_src_number(ld, g, obj, "gap", 0, &c->gap)) != VB_OK)
    return rc;
  if (vb_src_member(g, "gap_drive") != NULL &&
      (rc = vb_load_drive(ld, vb_src_member(g, "gap_drive"), obj, &c->gap_drive)) != VB_OK)
    return rc;
  c->s = 1.0;
  if (takes_s(c->scheme)) {
    if ((rc = vb_src_number(ld, g, obj, "s", 0, &c->s)) != VB_OK)
      return rc;
    if (!(c->s > 0))
      return vb_src_refuse(ld, g, obj, "s", "> 0", c->s);
  }
  c->tolerance = 1e-12;
  if ((rc = vb_src_number(ld, g, obj, "tolerance", 0, &c->tolerance)) != VB_OK)
    return rc;
  if (!(c->tolerance > 0 && c->tolerance < 1e-3))
    return vb_src_refuse(ld, g, obj, "tolerance", "> 0 and < 0.001", c->tolerance);
  {
    long it = 50;

    if ((rc = vb_src_integer(ld, g, obj, "max_iterations", 0, &it)) != VB_OK)
      return rc;
    if (it < 1 || it > 1000)
      return vb_src_refuse(ld, g, obj, "max_iterations", "between 1 and 1000", (double)it);
    c->max_iterations = (int)it;
  }
  return load_corrections(ld, g, obj, c);
}

/* Replace the scene's contacts, one per list element, by the expanded
 * list: each distributed block's contact repeated at each of its points,
 * "NAME[k]" with its gap from the profile (the sign from the barrier's
 * side, load_distributed.c). */
static int
expand_contacts(vb_loader *ld, const config_setting_t *list, const vb_dist_block *blk)
{
  vb_scene *sc = ld->scene;
  size_t total = 0;
  int n = sc->ncontacts;

  int blocks = 0;
  for (int i = 0; i < n; i++) {
    total += blk[i].n > 0 ? (size_t)blk[i].n : 1;
    blocks += blk[i].n > 0;
  }
  if (blocks == 0) {
    for (int i = 0; i < n; i++)
      sc->contacts[i].element = i;
    return VB_OK;
  }
  if (total > INT32_MAX)
    return vb_src_fail(ld, list, "contacts", "%zu contacts (valid: at most %d)", total, INT32_MAX);
  vb_contact *all = calloc(total, sizeof *all);
  if (all == NULL)
    return vb_src_fail(ld, list, "contacts", "out of memory expanding %zu contacts", total);
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    const vb_contact *c = &sc->contacts[i];
    if (blk[i].n == 0) { /* a point contact moves over, its gap_drive with it */
      all[k] = *c;
      all[k++].element = i;
      continue;
    }
    for (int p = 0; p < blk[i].n; p++, k++) {
      vb_contact *e = &all[k];
      *e = *c;
      char name[VB_NAME_MAX + 16]; /* fits: the loader keeps NAME 9 short of the limit */
      snprintf(name, sizeof name, "%s[%d]", c->name, p);
      memcpy(e->name, name, sizeof e->name - 1);
      e->name[sizeof e->name - 1] = '\0';
      memcpy(e->group, c->name, sizeof e->group);
      e->group_point = p;
      e->element = i;
      if (blk[i].body_first) {
        e->pa = blk[i].first_point + p;
        e->gap = blk[i].height[p]; /* x = u(x_p) - u_other - h_p */
      } else {
        e->pb = blk[i].first_point + p;
        e->gap = -blk[i].height[p]; /* x = u_other - u(x_p) + h_p */
      }
    }
  }
  free(sc->contacts);
  sc->contacts = all;
  sc->ncontacts = (int)total;
  return VB_OK;
}

/* Load the contacts list (bodies must be loaded): a first pass puts every
 * distributed block's points on its body, then each element loads as one
 * contact, then the blocks expand. */
int
vb_load_contacts(vb_loader *ld, const config_setting_t *list)
{
  vb_scene *sc = ld->scene;
  int i, n = config_setting_length(list), rc = VB_OK;

  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return vb_src_fail(ld, list, "top level",
                       "'contacts' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return VB_OK;
  vb_dist_block *blk = calloc((size_t)n, sizeof *blk);
  sc->contacts = calloc((size_t)n, sizeof *sc->contacts);
  if (sc->contacts == NULL || blk == NULL) {
    free(blk);
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  }
  sc->ncontacts = n;
  for (i = 0; i < n && rc == VB_OK; i++)
    if (vb_is_distributed(config_setting_get_elem(list, (unsigned)i)))
      rc = vb_load_distributed(ld, config_setting_get_elem(list, (unsigned)i), &blk[i]);
  for (i = 0; i < n && rc == VB_OK; i++)
    rc = load_contact(ld, list, i, blk[i].n > 0 ? &blk[i] : NULL);
  if (rc == VB_OK)
    rc = expand_contacts(ld, list, blk);
  for (i = 0; i < n; i++)
    free(blk[i].height);
  free(blk);
  return rc;
}

/* Load the forces list: { name; at; type = constant | harmonic; ... }. */
int
vb_load_forces(vb_loader *ld, const config_setting_t *list)
{
  static const char *const keys[] = {"name",      "at",   "type",  "value",
                                     "amplitude", "freq", "phase", NULL};
  vb_scene *sc = ld->scene;
  int n = config_setting_length(list), rc = VB_OK;
  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return vb_src_fail(ld, list, "top level", "'forces' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return VB_OK;
  sc->forces = calloc((size_t)n, sizeof *sc->forces);
  if (sc->forces == NULL)
    return vb_src_fail(ld, list, "top level", "out of memory");
  sc->nforces = n;
  for (int i = 0; i < n && rc == VB_OK; i++) {
    const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
    vb_force *f = &sc->forces[i];
    const char *atp = NULL, *type = NULL;
    char obj[OBJECT_MAX];
    if ((rc = vb_src_element(ld, list, i, "force", "{ name = ...; at = ...; }", sc->forces[0].name,
                             sizeof *f, obj, sizeof obj)) != VB_OK)
      return rc;
    f->line = config_setting_source_line(g);
    if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK)
      return rc;
    if ((rc = vb_src_string(ld, g, obj, "at", 1, &atp)) != VB_OK ||
        (rc = resolve_point(ld, vb_src_at(g, "at"), obj, "at", atp, &f->body, &f->point)) != VB_OK)
      return rc;
    if (sc->bodies[f->body].kind == VB_BODY_WALL)
      return vb_src_fail(ld, vb_src_at(g, "at"), obj,
                         "a force cannot act on wall '%s' (valid: a mass or "
                         "a point of a modal object)",
                         sc->bodies[f->body].name);
    if ((rc = vb_src_string(ld, g, obj, "type", 1, &type)) != VB_OK)
      return rc;
    if (strcmp(type, "constant") == 0) {
      f->kind = VB_FORCE_CONSTANT;
      if ((rc = vb_src_number(ld, g, obj, "value", 1, &f->value)) != VB_OK)
        return rc;
      if (vb_src_member(g, "amplitude") || vb_src_member(g, "freq") || vb_src_member(g, "phase"))
        return vb_src_fail(ld, g, obj,
                           "'amplitude', 'freq' and 'phase' apply only to type "
                           "'harmonic'");
    } else if (strcmp(type, "harmonic") == 0) {
      f->kind = VB_FORCE_HARMONIC;
      if ((rc = vb_src_number(ld, g, obj, "value", 0, &f->value)) != VB_OK ||
          (rc = vb_src_number(ld, g, obj, "amplitude", 1, &f->amplitude)) != VB_OK ||
          (rc = vb_src_number(ld, g, obj, "freq", 1, &f->freq)) != VB_OK ||
          (rc = vb_src_number(ld, g, obj, "phase", 0, &f->phase)) != VB_OK)
        return rc;
      if (!(f->freq >= 0))
        return vb_src_refuse(ld, g, obj, "freq", ">= 0", f->freq);
    } else {
      return vb_src_fail(ld, vb_src_at(g, "type"), obj,
                         "unknown force type '%s' (valid: constant, "
                         "harmonic)",
                         type);
    }
  }
  return rc;
}
