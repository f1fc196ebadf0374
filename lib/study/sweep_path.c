/* sweep_path.c - the parameter paths of a sweep: which numeric setting of
 * a scene document a path such as "contacts.hit.k" or "bodies.bar.freq[2]"
 * names, the keys a sweep may create where the file leaves them out, the
 * valid paths for messages, and the SI units of each, from the loader's
 * tables (law.c, drive.c and the table below). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "study.h"

/* Room for a sweep path such as "contacts.hit.k" or "bodies.bar.freq[2]",
 * and the most components it may have. */
#define PATH_MAX_LEN   256
#define MAX_COMPONENTS 8

/* A numeric key of an object and its SI units ("1" when dimensionless). */
typedef vb_key_units sweep_key;

/* The numeric keys of one kind of object: per top-level setting,
 * optionally only for one variant of the object (its `type`, `law`,
 * `scheme` or `kind`).  Rows with `create` are keys a sweep may set even
 * where the file leaves them out; the others only give the units of keys
 * the file writes (any numeric key written in the file is sweepable, and
 * the loader judges every value).  A contact's law keys come from the law
 * table (law.c), a body's from the body-type table (load_body.c) and a
 * drive's from the drive table (drive.c), not from here. */
typedef struct sweep_keys {
  const char *top;      /* "scene", "bodies", "bodies.drive", ...: the kind
                           of object, its path without element names */
  const char *selector; /* key that picks the variant, or NULL for all */
  const char *variant;  /* its value */
  int create;           /* 1: a sweep may create these keys */
  sweep_key keys[12];   /* ended by a NULL key */
} sweep_keys;

static const sweep_keys sweepable[] = {
    {"scene", NULL, NULL, 1, {{"fs", "Hz"}, {"duration", "s"}, {"gravity", "m/s^2"}, {NULL, NULL}}},
    {"record", NULL, NULL, 1, {{"every", "1"}, {NULL, NULL}}},
    {"bodies", "type", NULL, 1, {{NULL, NULL}}},       /* the keys of the body's type */
    {"bodies.drive", "type", NULL, 1, {{NULL, NULL}}}, /* the keys of the drive's type */
    {"bodies.preset",
     NULL,
     NULL,
     0,
     {{"nmodes", "1"},
      {"length", "m"},
      {"width", "m"},
      {"thickness", "m"},
      {"youngs", "Pa"},
      {"density", "kg/m^3"},
      {"poisson", "1"},
      {"linear_density", "kg/m"},
      {"surface_density", "kg/m^2"},
      {"radius", "m"},
      {NULL, NULL}}},
    {"bodies.preset", "kind", "string", 0, {{"tension", "N"}, {NULL, NULL}}},
    {"bodies.preset", "kind", "membrane", 0, {{"tension", "N/m"}, {NULL, NULL}}},
    {"contacts", "law", NULL, 1, {{NULL, NULL}}}, /* the keys of the contact's law */
    {"contacts", NULL, NULL, 1, {{"gap", "m"}, {NULL, NULL}}},
    {"contacts", "scheme", NULL, 1, {{NULL, NULL}}}, /* the parameters of the contact's scheme */
    {"contacts", NULL, NULL, 1, {{"tolerance", "1"}, {"max_iterations", "1"}, {NULL, NULL}}},
    /* a contact's friction (issue 30; the coefficients of friction.c's table) */
    {"contacts.friction",
     NULL,
     NULL,
     0,
     {{"mu_s", "1"},
      {"mu_k", "1"},
      {"mu_d", "1"},
      {"v_s", "m/s"},
      {"v0", "m/s"},
      {"delta", "1"},
      {"viscous", "s/m"},
      {"a", "s^2/m^2"},
      {NULL, NULL}}},
    /* the elasto-plastic law's (issue 30, step 4) */
    {"contacts.friction",
     NULL,
     NULL,
     0,
     {{"sigma0", "1/m"}, {"sigma1", "s/m"}, {"sigma2", "s/m"}, {"z_ba", "1"}, {NULL, NULL}}},
    /* a circular clearance (issue 30, item 4; doc/geometry.md) */
    {"contacts.geometry", NULL, NULL, 0, {{"clearance", "m"}, {NULL, NULL}}},
    /* a bow's prescribed normal force (issue 30, step 3) */
    {"contacts", NULL, NULL, 0, {{"normal_force", "N"}, {NULL, NULL}}},
    /* the analysis block (lib/run/analysis.c): the keys with a default may be
     * created by a sweep; the others give their units */
    {"analysis", NULL, NULL, 1, {{"grazing", "1"}, {NULL, NULL}}},
    {"analysis.section", NULL, NULL, 1, {{"phase", "rad"}, {NULL, NULL}}},
    {"analysis.section",
     NULL,
     NULL,
     0,
     {{"period", "s"}, {"transient", "1"}, {"transient_time", "s"}, {NULL, NULL}}},
    {"analysis.period", NULL, NULL, 1, {{"max", "1"}, {"tolerance", "1"}, {NULL, NULL}}},
    {"analysis.attractors", NULL, NULL, 1, {{"tolerance", "1"}, {NULL, NULL}}},
    {"analysis.lyapunov",
     NULL,
     NULL,
     1,
     {{"perturbation", "1"}, {"renormalise", "1"}, {NULL, NULL}}},
    {"forces",
     NULL,
     NULL,
     1,
     {{"value", "N"}, {"amplitude", "N"}, {"freq", "Hz"}, {"phase", "rad"}, {NULL, NULL}}},
};

#define NSWEEPABLE (sizeof sweepable / sizeof sweepable[0])

/* Most keys one row gives (a law has fewer than this many parameters). */
#define ROW_KEYS_MAX 16

/* Whether a setting holds a single number. */
static int
is_number(const config_setting_t *s)
{
  int t = config_setting_type(s);

  return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

/* A string member of a group, or NULL. */
static const char *
string_member(const config_setting_t *obj, const char *key)
{
  const config_setting_t *m = vb_src_member(obj, key);

  return m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING ? config_setting_get_string(m)
                                                                   : NULL;
}

/* A drive is the same kind of object wherever it is: a contact's
 * gap_drive uses the rows of a wall's drive. */
static const char *
canonical_kind(const char *top)
{
  return strcmp(top, "contacts.gap_drive") == 0 ? "bodies.drive" : top;
}

/* Whether a table entry applies to an object of kind `top`. */
static int
entry_applies(const sweep_keys *e, const char *top, const config_setting_t *obj)
{
  const char *v;

  if (strcmp(e->top, canonical_kind(top)) != 0)
    return 0;
  if (e->selector == NULL)
    return 1;
  v = string_member(obj, e->selector);
  return v != NULL && (e->variant == NULL || strcmp(v, e->variant) == 0);
}

/* The keys of an entry for object obj into out[ROW_KEYS_MAX] (a law row:
 * the parameters of the object's law; a body row: those of its type, none
 * when `creating` and its type lets no sweep create keys; a drive row:
 * those of its type, without the integer ones when `creating`); returns
 * their number. */
static int
entry_keys(const sweep_keys *e, const config_setting_t *obj, int creating, sweep_key *out)
{
  int n = 0;

  /* a scheme's own parameters (its `params` field) are dimensionless */
  if (e->selector != NULL && e->variant == NULL && strcmp(e->selector, "scheme") == 0) {
    const vb_scheme *s = vb_scheme_lookup(string_member(obj, e->selector));
    for (const char *const *p = s ? s->params : NULL; p && *p && n < ROW_KEYS_MAX; p++) {
      out[n].key = *p;
      out[n++].units = "1";
    }
    return n;
  }
  if (e->selector != NULL && e->variant == NULL && strcmp(e->top, "contacts") == 0) {
    vb_law_kind kind;
    if (vb_law_lookup(string_member(obj, e->selector), &kind) != VB_OK)
      return 0;
    for (const vb_law_param *p = vb_law_info_of(kind)->params; p->key && n < ROW_KEYS_MAX; p++) {
      out[n].key = p->key;
      out[n++].units = p->units;
    }
    return n;
  }
  /* a body type's numeric keys; a sweep creates them where its row allows */
  if (e->selector != NULL && e->variant == NULL && strcmp(e->top, "bodies") == 0) {
    const vb_body_type *type = vb_body_type_lookup(string_member(obj, e->selector));
    if (type == NULL || (creating && !type->create))
      return 0;
    for (const vb_key_units *p = type->numbers; p->key && n < ROW_KEYS_MAX; p++) {
      out[n].key = p->key;
      out[n++].units = p->units;
    }
    return n;
  }
  if (e->selector != NULL && e->variant == NULL) {
    const vb_drive_info *info = vb_drive_lookup(string_member(obj, e->selector));
    for (const vb_drive_param *p = info ? info->params : NULL; p && p->key && n < ROW_KEYS_MAX; p++)
      if (!creating || p->offset != VB_DRIVE_INTEGER) {
        out[n].key = p->key;
        out[n++].units = p->units;
      }
    return n;
  }
  for (; n < ROW_KEYS_MAX && e->keys[n].key != NULL; n++)
    out[n] = e->keys[n];
  return n;
}

/* The units of `key` of an object of kind `top` ("loss[1]" is looked up
 * with its index, then without), or NULL when no row has it. */
static const char *
key_units(const char *top, const config_setting_t *obj, const char *key, long index)
{
  sweep_key keys[ROW_KEYS_MAX];
  char indexed[PATH_MAX_LEN];
  size_t i;
  int j, n;

  snprintf(indexed, sizeof indexed, "%s[%ld]", key, index);
  for (i = 0; i < NSWEEPABLE; i++) {
    if (!entry_applies(&sweepable[i], top, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, 0, keys);
    for (j = 0; j < n; j++)
      if (strcmp(keys[j].key, key) == 0 || (index >= 0 && strcmp(keys[j].key, indexed) == 0))
        return keys[j].units;
  }
  return NULL;
}

/* Whether `key` is an optional numeric key a sweep may create in obj. */
static int
creatable(const char *top, const config_setting_t *obj, const char *key)
{
  sweep_key keys[ROW_KEYS_MAX];
  size_t i;
  int j, n;

  for (i = 0; i < NSWEEPABLE; i++) {
    if (!sweepable[i].create || !entry_applies(&sweepable[i], top, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, 1, keys);
    for (j = 0; j < n; j++)
      if (strcmp(keys[j].key, key) == 0)
        return 1;
  }
  return 0;
}

/* Append the sweepable paths of one object to a comma-separated list:
 * `kind` is its kind in the table above ("contacts", "bodies.drive"),
 * `prefix` its path ("contacts.hit", "bodies.shaker.drive"); groups
 * inside it are listed too. */
static void
object_paths(const char *kind, const char *prefix, const config_setting_t *obj, char *list,
             size_t size)
{
  char item[PATH_MAX_LEN + 32], subkind[PATH_MAX_LEN], subprefix[PATH_MAX_LEN];
  sweep_key keys[ROW_KEYS_MAX];
  size_t i;
  int j, k, n;

  for (i = 0; i < NSWEEPABLE; i++) {
    if (!sweepable[i].create || !entry_applies(&sweepable[i], kind, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, 1, keys);
    for (j = 0; j < n; j++) {
      snprintf(item, sizeof item, "%s.%s", prefix, keys[j].key);
      vb_list_add(list, size, item);
    }
  }
  n = config_setting_length(obj);
  for (j = 0; j < n; j++) {
    const config_setting_t *m = config_setting_get_elem(obj, (unsigned)j);
    const char *key = config_setting_name(m);
    int t = config_setting_type(m);

    if (is_number(m) && !creatable(kind, obj, key)) {
      snprintf(item, sizeof item, "%s.%s", prefix, key);
      vb_list_add(list, size, item);
    } else if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
      for (k = 0; k < config_setting_length(m); k++)
        if (is_number(config_setting_get_elem(m, (unsigned)k))) {
          snprintf(item, sizeof item, "%s.%s[%d]", prefix, key, k);
          vb_list_add(list, size, item);
        }
    } else if (t == CONFIG_TYPE_GROUP) {
      snprintf(subkind, sizeof subkind, "%s.%s", kind, key);
      snprintf(subprefix, sizeof subprefix, "%s.%s", prefix, key);
      object_paths(subkind, subprefix, m, list, size);
    }
  }
}

/* Name of a list element (a group with a string `name`), or NULL. */
static const char *
element_name(const config_setting_t *g)
{
  const config_setting_t *m;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return NULL;
  m = vb_src_member(g, "name");
  return m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING ? config_setting_get_string(m)
                                                                   : NULL;
}

/* Append the sweepable paths under a top-level setting to a list; with
 * `key` set, only the paths of that key (on every element of a list). */
static void
top_paths(const config_setting_t *top, const char *key, char *list, size_t size)
{
  const char *name = config_setting_name(top);
  char one[LIST_MAX];
  int i, n;

  if (config_setting_type(top) == CONFIG_TYPE_GROUP) {
    object_paths(name, name, top, list, size);
    return;
  }
  if (config_setting_type(top) != CONFIG_TYPE_LIST)
    return;
  n = config_setting_length(top);
  for (i = 0; i < n; i++) {
    const config_setting_t *g = config_setting_get_elem(top, (unsigned)i);
    const char *elem = element_name(g);
    char suffix[PATH_MAX_LEN], prefix[PATH_MAX_LEN];
    const char *p, *q;

    if (elem == NULL)
      continue;
    snprintf(prefix, sizeof prefix, "%s.%s", name, elem);
    if (key == NULL) {
      object_paths(name, prefix, g, list, size);
      continue;
    }
    one[0] = '\0';
    object_paths(name, prefix, g, one, sizeof one);
    /* keep the items of `key` only */
    snprintf(suffix, sizeof suffix, ".%s", key);
    for (p = one; *p != '\0'; p = *q ? q + 2 : q) {
      char item[PATH_MAX_LEN + 32];
      size_t len;

      q = strstr(p, ", ");
      if (q == NULL)
        q = p + strlen(p);
      len = (size_t)(q - p) < sizeof item ? (size_t)(q - p) : sizeof item - 1;
      memcpy(item, p, len);
      item[len] = '\0';
      if (len > strlen(suffix) && strcmp(item + len - strlen(suffix), suffix) == 0)
        vb_list_add(list, size, item);
    }
  }
}

/* Every sweepable path of a document. */
static void
all_paths(const config_setting_t *root, char *list, size_t size)
{
  int i, n = config_setting_length(root);

  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);

    if (strcmp(config_setting_name(m), "sweep") != 0)
      top_paths(m, NULL, list, size);
  }
}

/* Split "key[3]" into key and index; *index is -1 without brackets.
 * Returns 0 if the brackets are malformed. */
static int
split_index(char *key, long *index)
{
  char *open = strchr(key, '['), *end;

  *index = -1;
  if (open == NULL)
    return strchr(key, ']') == NULL;
  *open = '\0';
  if (!isdigit((unsigned char)open[1]))
    return 0;
  errno = 0;
  *index = strtol(open + 1, &end, 10);
  return errno == 0 && end[0] == ']' && end[1] == '\0';
}

/* The object a sweep path's components name under top-level setting
 * `top`: the group itself (TOP.KEY, *first = 1) or the list element of
 * that name (TOP.NAME.KEY, *first = 2), with its path in prefix.  NULL
 * when there is none, with the paths of the list to suggest in valid
 * (a top-level setting that is neither group nor list has none). */
static config_setting_t *
find_object(config_setting_t *top, char **comp, int ncomp, int *first, char *prefix, size_t psize,
            char *valid, size_t vsize)
{
  int i, n;

  if (config_setting_type(top) == CONFIG_TYPE_GROUP) {
    *first = 1;
    snprintf(prefix, psize, "%s", comp[0]);
    return top;
  }
  if (config_setting_type(top) != CONFIG_TYPE_LIST)
    return NULL;
  *first = 2;
  snprintf(prefix, psize, "%s.%s", comp[0], comp[1]);
  n = config_setting_length(top);
  for (i = 0; i < n; i++) {
    config_setting_t *g = config_setting_get_elem(top, (unsigned)i);
    const char *name = element_name(g);

    if (name != NULL && strcmp(name, comp[1]) == 0)
      return g;
  }
  /* an unknown object: the same key on the objects that have it, else
   * every path of the list */
  if (ncomp >= 3 && strchr(comp[ncomp - 1], '[') == NULL)
    top_paths(top, comp[ncomp - 1], valid, vsize);
  if (valid[0] == '\0')
    top_paths(top, NULL, valid, vsize);
  return NULL;
}

/* Split a path in place at its dots into at most MAX_COMPONENTS
 * components; *rest is NULL, or the unsplit remainder when there were
 * more.  Returns the number of components. */
static int
split_path(char *buf, char **comp, char **rest)
{
  char *p = buf;
  int ncomp = 0;

  while (ncomp < MAX_COMPONENTS) {
    comp[ncomp++] = p;
    p = strchr(p, '.');
    if (p == NULL)
      break;
    *p++ = '\0';
  }
  *rest = p;
  return ncomp;
}

/* Find or create the numeric setting a sweep path names: TOP.KEY for a
 * group (scene.fs), TOP.NAME.KEY for an element of a list found by its
 * name (contacts.hit.k), with groups inside the object on the way
 * (bodies.shaker.drive.freq) and KEY[i] for an array element. */
int
vb_sweep_target(const vb_source *src, config_t *cfg, const char *path,
                const config_setting_t *origin, config_setting_t **target, char *err, size_t errlen)
{
  config_setting_t *root = config_root_setting(cfg), *top, *obj = NULL, *m;
  char buf[PATH_MAX_LEN], valid[LIST_MAX], kind[PATH_MAX_LEN], prefix[PATH_MAX_LEN];
  char *comp[MAX_COMPONENTS], *p;
  int ncomp = 0, first = 1, c;
  long index;

  *target = NULL;
  valid[0] = '\0';
  if (strlen(path) >= sizeof buf) {
    all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  strcpy(buf, path);
  ncomp = split_path(buf, comp, &p);
  top = strcmp(comp[0], "sweep") == 0 ? NULL : vb_src_member(root, comp[0]);
  /* record is optional as a whole: a sweep of record.every creates it */
  if (top == NULL && strcmp(comp[0], "record") == 0 && ncomp == 2 &&
      strcmp(comp[1], "every") == 0) {
    top = config_setting_add(root, "record", CONFIG_TYPE_GROUP);
    if (top == NULL)
      return vb_source_fail(src, origin, "sweep", err, errlen, "cannot create 'record' for '%s'",
                            path);
  }
  if (top == NULL || ncomp < 2 || p != NULL) {
    all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  snprintf(kind, sizeof kind, "%s", comp[0]);
  obj = find_object(top, comp, ncomp, &first, prefix, sizeof prefix, valid, sizeof valid);
  if (obj == NULL) {
    if (config_setting_type(top) != CONFIG_TYPE_LIST)
      all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  /* groups inside the object, then the key */
  for (c = first; c < ncomp - 1; c++) {
    m = vb_src_member(obj, comp[c]);
    if (m == NULL || config_setting_type(m) != CONFIG_TYPE_GROUP)
      break;
    obj = m;
    snprintf(kind + strlen(kind), sizeof kind - strlen(kind), ".%s", comp[c]);
    snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), ".%s", comp[c]);
  }
  object_paths(kind, prefix, obj, valid, sizeof valid);
  if (c != ncomp - 1 || ncomp <= first || !split_index(comp[ncomp - 1], &index))
    goto unknown;
  m = vb_src_member(obj, comp[ncomp - 1]);
  if (index < 0) {
    if (m != NULL && is_number(m)) {
      *target = m;
      return VB_OK;
    }
    if (m == NULL && creatable(kind, obj, comp[ncomp - 1])) {
      *target = config_setting_add(obj, comp[ncomp - 1], CONFIG_TYPE_FLOAT);
      if (*target == NULL)
        return vb_source_fail(src, origin, "sweep", err, errlen, "cannot create '%s'", path);
      return VB_OK;
    }
    goto unknown;
  }
  if (m != NULL &&
      (config_setting_type(m) == CONFIG_TYPE_ARRAY || config_setting_type(m) == CONFIG_TYPE_LIST) &&
      index < config_setting_length(m) && is_number(config_setting_get_elem(m, (unsigned)index))) {
    *target = config_setting_get_elem(m, (unsigned)index);
    return VB_OK;
  }
unknown:
  return vb_source_fail(src, origin, "sweep", err, errlen,
                        "unknown parameter path '%s' (valid: %s)", path,
                        valid[0] != '\0' ? valid : "no numeric settings");
}

/* Set a swept value: an integral value is stored as a 64-bit integer (so
 * that integer keys such as record.every accept it; real keys accept
 * integers too), any other as a real.  The setting then reports the line
 * of the sweep parameter. */
void
vb_sweep_assign(config_setting_t *target, double value, const config_setting_t *origin)
{
  vb_sweep_assign_at(target, value, origin->line, origin->file);
}

/* vb_sweep_assign with the origin's line and file given. */
void
vb_sweep_assign_at(config_setting_t *target, double value, unsigned int line, const char *file)
{
  target->format = CONFIG_FORMAT_DEFAULT;
  if (value == floor(value) && fabs(value) < 9007199254740992.0) {
    target->type = CONFIG_TYPE_INT64;
    config_setting_set_int64(target, (long long)value);
  } else {
    target->type = CONFIG_TYPE_FLOAT;
    config_setting_set_float(target, value);
  }
  target->line = line;
  target->file = file;
}

/* SI units of the numeric setting a sweep path names in cfg, from the
 * tables (the law table for a contact's law keys), or NULL when no table
 * knows the key. */
const char *
vb_sweep_units(config_t *cfg, const char *path)
{
  config_setting_t *root = config_root_setting(cfg), *top, *obj, *m;
  char buf[PATH_MAX_LEN], kind[PATH_MAX_LEN], prefix[PATH_MAX_LEN], valid[LIST_MAX];
  char *comp[MAX_COMPONENTS], *rest;
  int ncomp, first = 1, c;
  long index;

  if (strlen(path) >= sizeof buf)
    return NULL;
  strcpy(buf, path);
  ncomp = split_path(buf, comp, &rest);
  top = vb_src_member(root, comp[0]);
  if (top == NULL || ncomp < 2 || rest != NULL)
    return NULL;
  valid[0] = '\0';
  obj = find_object(top, comp, ncomp, &first, prefix, sizeof prefix, valid, sizeof valid);
  if (obj == NULL)
    return NULL;
  snprintf(kind, sizeof kind, "%s", comp[0]);
  for (c = first; c < ncomp - 1; c++) {
    m = vb_src_member(obj, comp[c]);
    if (m == NULL || config_setting_type(m) != CONFIG_TYPE_GROUP)
      return NULL;
    obj = m;
    snprintf(kind + strlen(kind), sizeof kind - strlen(kind), ".%s", comp[c]);
  }
  if (c != ncomp - 1 || !split_index(comp[ncomp - 1], &index))
    return NULL;
  return key_units(kind, obj, comp[ncomp - 1], index);
}
