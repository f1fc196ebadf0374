/* scene.c - loading and validation of scene files.
 *
 * A scene file is a libconfig document with the top-level keys scene,
 * bodies, contacts and record (see the README).  Everything is checked
 * here, once: an unknown key, a wrong type or a value out of range is an
 * error with the file and line, never a silent fallback to a default. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "vibro.h"

/* Largest number of steps a scene may ask for (keeps lround defined). */
#define MAX_STEPS 1e15

/* Room for a formatted object name such as "contact 'hit'". */
#define OBJECT_MAX (VB_NAME_MAX + 32)

/* Room for a comma-separated list of choices in a message. */
#define LIST_MAX 512

/* State of one load: where messages go and what is being built. */
typedef struct loader {
  const char *path;   /* name of the top file, for messages */
  const char *text;   /* its full text */
  const char *incdir; /* include directory, NULL for the working directory */
  char *err;
  size_t errlen;
  vb_scene *scene;
} loader;

/* A key that is valid only in some variant of an object. */
typedef struct key_rule {
  const char *key;
  const char *only; /* e.g. "law 'hunt-crossley'" */
} key_rule;

/* Write a message into the caller's buffer, truncating safely. */
static void message(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;

  if (err == NULL || errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Name of the file a setting (or an error) comes from, for messages:
 * the top file's name, or an included file's name as libconfig found it. */
static const char *source_name(const loader *ld, const char *file, char *buf,
                               size_t size)
{
  size_t n;

  if (file == NULL)
    return ld->path;
  if (ld->incdir == NULL || file[0] == '/')
    return file;
  n = strlen(ld->incdir);
  if (strncmp(file, ld->incdir, n) == 0 && file[n] == '/')
    return file;
  snprintf(buf, size, "%s/%s", ld->incdir, file);
  return buf;
}

/* Report a problem with a setting as "FILE:LINE: OBJECT: what"; returns
 * VB_EINVAL so that callers can write return fail(...). */
static int fail(const loader *ld, const config_setting_t *s, const char *object,
                const char *fmt, ...)
{
  char what[1024], file[4096];
  const char *name;
  va_list ap;
  int line;

  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  name = source_name(ld, config_setting_source_file(s), file, sizeof file);
  line = config_setting_source_line(s);
  if (line < 1)
    line = 1;
  if (object != NULL)
    message(ld->err, ld->errlen, "%s:%d: %s: %s", name, line, object, what);
  else
    message(ld->err, ld->errlen, "%s:%d: %s", name, line, what);
  return VB_EINVAL;
}

/* Shortest decimal text of a double that reads back to the same value. */
static const char *number_text(double x, char *buf, size_t size)
{
  int digits;

  for (digits = 15; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, x);
    if (!isfinite(x) || strtod(buf, NULL) == x)
      break;
  }
  return buf;
}

/* Append an item to a comma-separated list, ending in "..." when full. */
static void list_add(char *list, size_t size, const char *item)
{
  size_t used = strlen(list);

  if (used > 0 && strcmp(list + used - 3, "...") == 0)
    return;
  if (used + strlen(item) + 2 + 5 >= size) {
    snprintf(list + used, size - used, "%s...", used > 0 ? ", " : "");
    return;
  }
  snprintf(list + used, size - used, "%s%s", used > 0 ? ", " : "", item);
}

/* Join a NULL-terminated array of keys into a comma-separated list. */
static const char *key_list(const char *const *keys, char *buf, size_t size)
{
  buf[0] = '\0';
  for (; *keys != NULL; keys++)
    list_add(buf, size, *keys);
  return buf;
}

/* Whether a NULL-terminated array of keys holds a key. */
static int has_key(const char *const *keys, const char *key)
{
  for (; *keys != NULL; keys++)
    if (strcmp(*keys, key) == 0)
      return 1;
  return 0;
}

/* Refuse any member of a group that is not in `allowed`; keys listed in
 * `rules` get a message saying where they do apply. */
static int check_keys(const loader *ld, const config_setting_t *group,
                      const char *object, const char *const *allowed,
                      const key_rule *rules)
{
  char valid[LIST_MAX];
  int i, n = config_setting_length(group);

  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
    const char *key = config_setting_name(m);
    const key_rule *r;

    if (has_key(allowed, key))
      continue;
    key_list(allowed, valid, sizeof valid);
    for (r = rules; r != NULL && r->key != NULL; r++)
      if (strcmp(r->key, key) == 0)
        return fail(ld, m, object, "'%s' applies only to %s (valid: %s)", key,
                    r->only, valid);
    return fail(ld, m, object, "unknown key '%s' (valid: %s)", key, valid);
  }
  return VB_OK;
}

/* Read a whole file into a NUL-terminated buffer; NULL with errno set on
 * failure.  *len receives the number of bytes read. */
static char *read_text(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL, *grown;
  size_t cap = 0, n = 0, got;
  int saved;

  if (f == NULL)
    return NULL;
  for (;;) {
    if (cap - n < 4096 + 1) {
      cap = cap ? 2 * cap : 8192;
      grown = realloc(buf, cap);
      if (grown == NULL) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = grown;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    saved = errno ? errno : EIO;
    free(buf);
    fclose(f);
    errno = saved;
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Whether the integer literal of a setting fitted libconfig's 32-bit int.
 * libconfig 1.5 silently wraps "k = 5000000000;" to 705032704, so the
 * literal is looked up on the setting's source line; *literal receives the
 * offending text.  Returns 1 when it fits or cannot be found. */
static int int_literal_fits(const loader *ld, const config_setting_t *s,
                            char *literal, size_t size)
{
  const char *key = config_setting_name(s), *p, *text;
  char file[4096], *owned = NULL;
  size_t klen, len;
  long value = config_setting_get_int(s);
  int line = config_setting_source_line(s), found_fit = 0, found_wrap = 0;

  if (key == NULL || line < 1)
    return 1;
  text = ld->text;
  if (config_setting_source_file(s) != NULL) {
    owned = read_text(source_name(ld, config_setting_source_file(s), file,
                                  sizeof file), &len);
    if (owned == NULL)
      return 1;
    text = owned;
  }
  for (p = text; line > 1 && *p != '\0'; p++)
    if (*p == '\n')
      line--;
  klen = strlen(key);
  for (; *p != '\0' && *p != '\n'; p++) {
    const char *q = p + klen;
    char *end;
    long long v;

    if (strncmp(p, key, klen) != 0 ||
        (p > text && (isalnum((unsigned char)p[-1]) || strchr("_-*", p[-1]))))
      continue;
    while (*q == ' ' || *q == '\t')
      q++;
    if (*q != '=' && *q != ':')
      continue;
    q++;
    while (*q == ' ' || *q == '\t')
      q++;
    if ((q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) ||
        !(isdigit((unsigned char)*q) || *q == '-' || *q == '+'))
      continue;
    errno = 0;
    v = strtoll(q, &end, 10);
    if (end == q || *end == '.' || *end == 'e' || *end == 'E' || *end == 'L')
      continue;
    if (errno == 0 && v >= INT_MIN && v <= INT_MAX) {
      if (v == value)
        found_fit = 1;
    } else if (!found_wrap) {
      found_wrap = 1;
      snprintf(literal, size, "%.*s", (int)(end - q), q);
    }
  }
  free(owned);
  return found_fit || !found_wrap;
}

/* Member of a group, or NULL. */
static config_setting_t *member(const config_setting_t *group, const char *key)
{
  return config_setting_get_member(group, key);
}

/* The setting to point at for a key: its own line, else the group's. */
static const config_setting_t *at(const config_setting_t *group, const char *key)
{
  const config_setting_t *m = member(group, key);

  return m != NULL ? m : group;
}

/* Read a string member; *out is left alone when the key is absent and not
 * required. */
static int get_string(const loader *ld, const config_setting_t *group,
                      const char *object, const char *key, int required,
                      const char **out)
{
  const config_setting_t *m = member(group, key);

  if (m == NULL)
    return required ? fail(ld, group, object, "missing required key '%s'", key)
                    : VB_OK;
  if (config_setting_type(m) != CONFIG_TYPE_STRING)
    return fail(ld, m, object, "'%s' must be a string", key);
  *out = config_setting_get_string(m);
  return VB_OK;
}

/* Read a real member (integers accepted); *out is left alone when the key
 * is absent and not required. */
static int get_number(const loader *ld, const config_setting_t *group,
                      const char *object, const char *key, int required,
                      double *out)
{
  const config_setting_t *m = member(group, key);
  char lit[64], num[32];
  double x;

  if (m == NULL)
    return required ? fail(ld, group, object, "missing required key '%s'", key)
                    : VB_OK;
  switch (config_setting_type(m)) {
  case CONFIG_TYPE_INT:
    if (!int_literal_fits(ld, m, lit, sizeof lit))
      return fail(ld, m, object,
                  "'%s' = %s does not fit an integer (valid: write %s.0 or use "
                  "an exponent)", key, lit, lit);
    x = (double)config_setting_get_int(m);
    break;
  case CONFIG_TYPE_INT64:
    x = (double)config_setting_get_int64(m);
    break;
  case CONFIG_TYPE_FLOAT:
    x = config_setting_get_float(m);
    break;
  default:
    return fail(ld, m, object, "'%s' must be a number", key);
  }
  if (!isfinite(x))
    return fail(ld, m, object, "'%s' must be finite (got %s)", key,
                number_text(x, num, sizeof num));
  *out = x;
  return VB_OK;
}

/* Read an integer member; *out is left alone when the key is absent and
 * not required. */
static int get_integer(const loader *ld, const config_setting_t *group,
                       const char *object, const char *key, int required,
                       long *out)
{
  const config_setting_t *m = member(group, key);
  char lit[64];

  if (m == NULL)
    return required ? fail(ld, group, object, "missing required key '%s'", key)
                    : VB_OK;
  switch (config_setting_type(m)) {
  case CONFIG_TYPE_INT:
    if (!int_literal_fits(ld, m, lit, sizeof lit))
      return fail(ld, m, object,
                  "'%s' = %s does not fit an integer (valid: append L for a "
                  "64-bit integer)", key, lit);
    *out = config_setting_get_int(m);
    return VB_OK;
  case CONFIG_TYPE_INT64:
    if (config_setting_get_int64(m) > LONG_MAX ||
        config_setting_get_int64(m) < LONG_MIN)
      return fail(ld, m, object, "'%s' is out of range", key);
    *out = (long)config_setting_get_int64(m);
    return VB_OK;
  default:
    return fail(ld, m, object, "'%s' must be an integer", key);
  }
}

/* Refuse a number that breaks a condition: "'k' must be > 0 (got -1)". */
static int refuse(const loader *ld, const config_setting_t *group,
                  const char *object, const char *key, const char *condition,
                  double x)
{
  char num[32];

  return fail(ld, at(group, key), object, "'%s' must be %s (got %s)", key,
              condition, number_text(x, num, sizeof num));
}

/* Check a body or contact name: non-empty, short, [A-Za-z0-9_-]. */
static int check_name(const loader *ld, const config_setting_t *group,
                      const char *object, const char *name)
{
  const char *p;

  if (name[0] == '\0')
    return fail(ld, at(group, "name"), object, "'name' must not be empty");
  if (strlen(name) >= VB_NAME_MAX)
    return fail(ld, at(group, "name"), object,
                "'name' is too long (valid: at most %d characters)",
                VB_NAME_MAX - 1);
  for (p = name; *p != '\0'; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
      return fail(ld, at(group, "name"), object,
                  "invalid name '%s' (valid: letters, digits, '_' and '-')",
                  name);
  return VB_OK;
}

/* Location "FILE:LINE" of a setting, for "first defined at" messages. */
static const char *where(const loader *ld, const config_setting_t *s, char *buf,
                         size_t size)
{
  char file[4096];
  const char *name = source_name(ld, config_setting_source_file(s), file,
                                 sizeof file);

  snprintf(buf, size, "%s:%d", name, (int)config_setting_source_line(s));
  return buf;
}

/* Load the scene group: name, fs, duration, gravity. */
static int load_scene_group(loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"name", "fs", "duration", "gravity", NULL};
  const char *obj = "scene", *name = NULL;
  vb_scene *sc = ld->scene;
  double steps;
  char num[32];
  int rc;

  if ((rc = check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = get_string(ld, g, obj, "name", 1, &name)) != VB_OK)
    return rc;
  if (name[0] == '\0')
    return fail(ld, at(g, "name"), obj, "'name' must not be empty");
  if (strlen(name) >= VB_NAME_MAX)
    return fail(ld, at(g, "name"), obj,
                "'name' is too long (valid: at most %d characters)",
                VB_NAME_MAX - 1);
  strcpy(sc->name, name);
  if ((rc = get_number(ld, g, obj, "fs", 1, &sc->fs)) != VB_OK)
    return rc;
  if (!(sc->fs > 0))
    return refuse(ld, g, obj, "fs", "> 0", sc->fs);
  if ((rc = get_number(ld, g, obj, "duration", 1, &sc->duration)) != VB_OK)
    return rc;
  if (!(sc->duration > 0))
    return refuse(ld, g, obj, "duration", "> 0", sc->duration);
  steps = sc->duration * sc->fs;
  if (!(steps >= 0.5))
    return fail(ld, at(g, "duration"), obj,
                "'duration' * 'fs' must give at least one step (got %s)",
                number_text(steps, num, sizeof num));
  if (!(steps <= MAX_STEPS))
    return fail(ld, at(g, "duration"), obj,
                "'duration' * 'fs' must give at most %g steps (got %s)",
                MAX_STEPS, number_text(steps, num, sizeof num));
  sc->gravity = 0.0;
  return get_number(ld, g, obj, "gravity", 0, &sc->gravity);
}

/* Load the record group: every. */
static int load_record(loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"every", NULL};
  const char *obj = "record";
  int rc;

  if ((rc = check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = get_integer(ld, g, obj, "every", 0, &ld->scene->record_every)) !=
          VB_OK)
    return rc;
  if (ld->scene->record_every < 1)
    return refuse(ld, g, obj, "every", ">= 1", (double)ld->scene->record_every);
  return VB_OK;
}

/* Load one body from its group; i is its index. */
static int load_body(loader *ld, const config_setting_t *list, int i)
{
  static const char *const mass_keys[] = {"name", "type", "mass", "u0", "v0",
                                          NULL};
  static const char *const wall_keys[] = {"name", "type", "position", NULL};
  static const char *const all_keys[] = {"name", "type", "mass", "u0", "v0",
                                         "position", NULL};
  static const key_rule mass_rules[] = {{"position", "type 'wall'"},
                                        {NULL, NULL}};
  static const key_rule wall_rules[] = {{"mass", "type 'mass'"},
                                        {"u0", "type 'mass'"},
                                        {"v0", "type 'mass'"},
                                        {NULL, NULL}};
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  vb_body *b = &ld->scene->bodies[i];
  const char *name = NULL, *type = NULL;
  char obj[OBJECT_MAX], loc[4200];
  int rc, j;

  snprintf(obj, sizeof obj, "body #%d", i + 1);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return fail(ld, g, obj, "must be a group { name = ...; type = ...; }");
  b->line = config_setting_source_line(g);
  if ((rc = get_string(ld, g, obj, "name", 1, &name)) != VB_OK ||
      (rc = check_name(ld, g, obj, name)) != VB_OK)
    return rc;
  strcpy(b->name, name);
  snprintf(obj, sizeof obj, "body '%s'", name);
  for (j = 0; j < i; j++)
    if (strcmp(ld->scene->bodies[j].name, name) == 0)
      return fail(ld, at(g, "name"), obj,
                  "duplicate body name (first defined at %s)",
                  where(ld, config_setting_get_elem(list, (unsigned)j), loc,
                        sizeof loc));
  /* The type decides which keys are valid; an unknown or missing type is
   * reported after the keys, with all keys of both types allowed. */
  if (member(g, "type") != NULL &&
      config_setting_type(member(g, "type")) == CONFIG_TYPE_STRING)
    type = config_setting_get_string(member(g, "type"));
  if (type != NULL && strcmp(type, "mass") == 0)
    rc = check_keys(ld, g, obj, mass_keys, mass_rules);
  else if (type != NULL && strcmp(type, "wall") == 0)
    rc = check_keys(ld, g, obj, wall_keys, wall_rules);
  else
    rc = check_keys(ld, g, obj, all_keys, NULL);
  if (rc != VB_OK || (rc = get_string(ld, g, obj, "type", 1, &type)) != VB_OK)
    return rc;
  if (strcmp(type, "mass") == 0) {
    b->kind = VB_BODY_MASS;
    if ((rc = get_number(ld, g, obj, "mass", 1, &b->mass)) != VB_OK)
      return rc;
    if (!(b->mass > 0))
      return refuse(ld, g, obj, "mass", "> 0", b->mass);
    if ((rc = get_number(ld, g, obj, "u0", 0, &b->u0)) != VB_OK)
      return rc;
    return get_number(ld, g, obj, "v0", 0, &b->v0);
  }
  if (strcmp(type, "wall") == 0) {
    b->kind = VB_BODY_WALL;
    return get_number(ld, g, obj, "position", 0, &b->u0);
  }
  return fail(ld, at(g, "type"), obj, "unknown type '%s' (valid: mass, wall)",
              type);
}

/* Load the bodies list. */
static int load_bodies(loader *ld, const config_setting_t *list)
{
  int i, n = config_setting_length(list), rc;

  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return fail(ld, list, "top level",
                "'bodies' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return fail(ld, list, "bodies", "at least one body is required");
  ld->scene->bodies = calloc((size_t)n, sizeof *ld->scene->bodies);
  if (ld->scene->bodies == NULL) {
    message(ld->err, ld->errlen, "%s: out of memory loading the scene",
            ld->path);
    return VB_ENOMEM;
  }
  ld->scene->nbodies = n;
  for (i = 0; i < n; i++)
    if ((rc = load_body(ld, list, i)) != VB_OK)
      return rc;
  return VB_OK;
}

/* Index of a body by name, or -1. */
static int find_body(const vb_scene *sc, const char *name)
{
  int i;

  for (i = 0; i < sc->nbodies; i++)
    if (strcmp(sc->bodies[i].name, name) == 0)
      return i;
  return -1;
}

/* Resolve the 'between' array of a contact into body indices. */
static int load_between(loader *ld, const config_setting_t *g,
                        const char *obj, vb_contact *c)
{
  const config_setting_t *m = member(g, "between");
  const vb_scene *sc = ld->scene;
  const char *names[2];
  char valid[LIST_MAX];
  int i, n, idx[2];

  if (m == NULL)
    return fail(ld, g, obj, "missing required key 'between'");
  if (config_setting_type(m) != CONFIG_TYPE_ARRAY &&
      config_setting_type(m) != CONFIG_TYPE_LIST)
    return fail(ld, m, obj, "'between' must be an array of two body names");
  n = config_setting_length(m);
  for (i = 0; i < n; i++)
    if (config_setting_type(config_setting_get_elem(m, (unsigned)i)) !=
        CONFIG_TYPE_STRING)
      return fail(ld, m, obj, "'between' must be an array of two body names");
  if (n != 2)
    return fail(ld, m, obj, "'between' must name exactly two bodies (got %d)",
                n);
  for (i = 0; i < 2; i++) {
    names[i] = config_setting_get_string_elem(m, i);
    idx[i] = find_body(sc, names[i]);
    if (idx[i] < 0) {
      int j;

      valid[0] = '\0';
      for (j = 0; j < sc->nbodies; j++)
        list_add(valid, sizeof valid, sc->bodies[j].name);
      return fail(ld, m, obj, "'between' names unknown body '%s' (valid: %s)",
                  names[i], valid);
    }
  }
  if (idx[0] == idx[1])
    return fail(ld, m, obj,
                "'between' names body '%s' twice (valid: two different bodies)",
                names[0]);
  if (sc->bodies[idx[0]].kind == VB_BODY_WALL &&
      sc->bodies[idx[1]].kind == VB_BODY_WALL)
    return fail(ld, m, obj,
                "'between' joins two walls '%s' and '%s' (valid: at least one "
                "body of type 'mass')", names[0], names[1]);
  c->a = idx[0];
  c->b = idx[1];
  return VB_OK;
}

/* Check the keys of a contact group against its law and scheme, as far as
 * they resolve (an unresolved law or scheme allows all of its keys and is
 * reported afterwards). */
static int check_contact_keys(loader *ld, const config_setting_t *g,
                              const char *obj)
{
  static const key_rule rules[] = {{"mu", "law 'hunt-crossley'"},
                                   {"h", "law 'rattle'"},
                                   {"s", "scheme 'quadratic'"},
                                   {NULL, NULL}};
  const config_setting_t *m;
  const char *keys[16], *law = NULL, *scheme = NULL;
  vb_law_kind kind = VB_LAW_COUNT;
  int n = 0, law_known, scheme_known;

  m = member(g, "law");
  if (m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING)
    law = config_setting_get_string(m);
  m = member(g, "scheme");
  if (m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING)
    scheme = config_setting_get_string(m);
  law_known = law != NULL && vb_law_lookup(law, &kind) == VB_OK;
  scheme_known = scheme != NULL && vb_scheme_lookup(scheme) != NULL;
  keys[n++] = "name";
  keys[n++] = "between";
  keys[n++] = "law";
  keys[n++] = "k";
  keys[n++] = "alpha";
  if (!law_known || kind == VB_LAW_HUNT_CROSSLEY)
    keys[n++] = "mu";
  if (!law_known || kind == VB_LAW_RATTLE)
    keys[n++] = "h";
  keys[n++] = "gap";
  keys[n++] = "scheme";
  if (!scheme_known || strcmp(scheme, "quadratic") == 0)
    keys[n++] = "s";
  keys[n++] = "tolerance";
  keys[n++] = "max_iterations";
  keys[n] = NULL;
  return check_keys(ld, g, obj, keys, rules);
}

/* Load the law parameters of a contact: k, alpha, mu, h. */
static int load_law(loader *ld, const config_setting_t *g, const char *obj,
                    vb_law *law)
{
  double a;
  int rc;

  if ((rc = get_number(ld, g, obj, "k", 1, &law->k)) != VB_OK)
    return rc;
  if (!(law->k > 0))
    return refuse(ld, g, obj, "k", "> 0", law->k);
  if ((rc = get_number(ld, g, obj, "alpha", 1, &law->alpha)) != VB_OK)
    return rc;
  a = law->alpha;
  if (law->kind == VB_LAW_POLYNOMIAL) {
    if (!(a >= 1 && a == floor(a) && fmod(a, 2.0) == 1.0))
      return refuse(ld, g, obj, "alpha",
                    "an odd integer >= 1 for law 'polynomial'", a);
  } else if (!(a >= 1)) {
    return refuse(ld, g, obj, "alpha", ">= 1", a);
  }
  law->mu = 0.0;
  law->h = 0.0;
  if (law->kind == VB_LAW_HUNT_CROSSLEY) {
    if ((rc = get_number(ld, g, obj, "mu", 0, &law->mu)) != VB_OK)
      return rc;
    if (!(law->mu >= 0))
      return refuse(ld, g, obj, "mu", ">= 0", law->mu);
  }
  if (law->kind == VB_LAW_RATTLE) {
    if ((rc = get_number(ld, g, obj, "h", 1, &law->h)) != VB_OK)
      return rc;
    if (!(law->h >= 0))
      return refuse(ld, g, obj, "h", ">= 0", law->h);
  }
  return VB_OK;
}

/* Load one contact from its group; i is its index, owner[b] the contact
 * that already holds body b (or -1). */
static int load_contact(loader *ld, const config_setting_t *list, int i,
                        int *owner)
{
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  vb_contact *c = &ld->scene->contacts[i];
  const vb_scene *sc = ld->scene;
  const char *name = NULL, *law = NULL, *scheme = NULL;
  char obj[OBJECT_MAX], loc[4200];
  int rc, j, side;

  snprintf(obj, sizeof obj, "contact #%d", i + 1);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return fail(ld, g, obj, "must be a group { name = ...; between = ...; }");
  c->line = config_setting_source_line(g);
  if ((rc = get_string(ld, g, obj, "name", 1, &name)) != VB_OK ||
      (rc = check_name(ld, g, obj, name)) != VB_OK)
    return rc;
  strcpy(c->name, name);
  snprintf(obj, sizeof obj, "contact '%s'", name);
  for (j = 0; j < i; j++)
    if (strcmp(sc->contacts[j].name, name) == 0)
      return fail(ld, at(g, "name"), obj,
                  "duplicate contact name (first defined at %s)",
                  where(ld, config_setting_get_elem(list, (unsigned)j), loc,
                        sizeof loc));
  if ((rc = check_contact_keys(ld, g, obj)) != VB_OK ||
      (rc = get_string(ld, g, obj, "law", 1, &law)) != VB_OK)
    return rc;
  if (vb_law_lookup(law, &c->law.kind) != VB_OK)
    return fail(ld, at(g, "law"), obj, "unknown law '%s' (valid: %s)", law,
                vb_law_choices());
  if ((rc = get_string(ld, g, obj, "scheme", 1, &scheme)) != VB_OK)
    return rc;
  c->scheme = vb_scheme_lookup(scheme);
  if (c->scheme == NULL)
    return fail(ld, at(g, "scheme"), obj, "unknown scheme '%s' (valid: %s)",
                scheme, vb_scheme_choices());
  if ((rc = load_between(ld, g, obj, c)) != VB_OK)
    return rc;
  for (side = 0; side < 2; side++) {
    int b = side == 0 ? c->a : c->b;

    /* walls are fixed: any number of contacts may share one */
    if (owner[b] >= 0 && sc->bodies[b].kind == VB_BODY_MASS)
      return fail(ld, g, obj,
                  "mass '%s' is already in contact '%s'; coupled networks are "
                  "not supported yet (valid: one contact per mass)",
                  sc->bodies[b].name, sc->contacts[owner[b]].name);
  }
  owner[c->a] = sc->bodies[c->a].kind == VB_BODY_MASS ? i : owner[c->a];
  owner[c->b] = sc->bodies[c->b].kind == VB_BODY_MASS ? i : owner[c->b];
  if ((rc = load_law(ld, g, obj, &c->law)) != VB_OK)
    return rc;
  c->gap = 0.0;
  if ((rc = get_number(ld, g, obj, "gap", 0, &c->gap)) != VB_OK)
    return rc;
  c->s = 1.0;
  if (strcmp(scheme, "quadratic") == 0) {
    if ((rc = get_number(ld, g, obj, "s", 0, &c->s)) != VB_OK)
      return rc;
    if (!(c->s > 0))
      return refuse(ld, g, obj, "s", "> 0", c->s);
  }
  c->tolerance = 1e-12;
  if ((rc = get_number(ld, g, obj, "tolerance", 0, &c->tolerance)) != VB_OK)
    return rc;
  if (!(c->tolerance > 0 && c->tolerance < 1e-3))
    return refuse(ld, g, obj, "tolerance", "> 0 and < 0.001", c->tolerance);
  {
    long it = 50;

    if ((rc = get_integer(ld, g, obj, "max_iterations", 0, &it)) != VB_OK)
      return rc;
    if (it < 1 || it > 1000)
      return refuse(ld, g, obj, "max_iterations", "between 1 and 1000",
                    (double)it);
    c->max_iterations = (int)it;
  }
  return VB_OK;
}

/* Load the contacts list (bodies must be loaded). */
static int load_contacts(loader *ld, const config_setting_t *list)
{
  vb_scene *sc = ld->scene;
  int i, n = config_setting_length(list), rc = VB_OK, *owner;

  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return fail(ld, list, "top level",
                "'contacts' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return VB_OK;
  sc->contacts = calloc((size_t)n, sizeof *sc->contacts);
  owner = malloc((size_t)sc->nbodies * sizeof *owner);
  if (sc->contacts == NULL || owner == NULL) {
    free(owner);
    message(ld->err, ld->errlen, "%s: out of memory loading the scene",
            ld->path);
    return VB_ENOMEM;
  }
  sc->ncontacts = n;
  for (i = 0; i < sc->nbodies; i++)
    owner[i] = -1;
  for (i = 0; i < n && rc == VB_OK; i++)
    rc = load_contact(ld, list, i, owner);
  free(owner);
  return rc;
}

/* Load a whole parsed document into ld->scene. */
static int load_root(loader *ld, const config_setting_t *root)
{
  static const char *const keys[] = {"scene", "bodies", "contacts", "record",
                                     NULL};
  const config_setting_t *m;
  char valid[LIST_MAX];
  int i, n = config_setting_length(root), rc;

  key_list(keys, valid, sizeof valid);
  for (i = 0; i < n; i++) {
    const char *key;

    m = config_setting_get_elem(root, (unsigned)i);
    key = config_setting_name(m);
    if (strcmp(key, "sweep") == 0)
      return fail(ld, m, "sweep", "sweeps are not supported yet (valid: %s)",
                  valid);
    if (!has_key(keys, key))
      return fail(ld, m, "top level", "unknown key '%s' (valid: %s)", key,
                  valid);
  }
  m = member(root, "scene");
  if (m == NULL)
    return fail(ld, root, "top level", "missing required key 'scene'");
  if (config_setting_type(m) != CONFIG_TYPE_GROUP)
    return fail(ld, m, "top level", "'scene' must be a group { ... }");
  if ((rc = load_scene_group(ld, m)) != VB_OK)
    return rc;
  ld->scene->record_every = 1;
  m = member(root, "record");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_GROUP)
      return fail(ld, m, "top level", "'record' must be a group { ... }");
    if ((rc = load_record(ld, m)) != VB_OK)
      return rc;
  }
  m = member(root, "bodies");
  if (m == NULL)
    return fail(ld, root, "top level", "missing required key 'bodies'");
  if ((rc = load_bodies(ld, m)) != VB_OK)
    return rc;
  m = member(root, "contacts");
  return m != NULL ? load_contacts(ld, m) : VB_OK;
}

/* Directory part of a path ("a/b.cfg" -> "a", "/b.cfg" -> "/"), or NULL
 * when the path has none; *status is VB_ENOMEM if the copy failed. */
static char *directory_of(const char *path, int *status)
{
  const char *slash = strrchr(path, '/');
  size_t n;
  char *dir;

  *status = VB_OK;
  if (slash == NULL)
    return NULL;
  n = slash == path ? 1 : (size_t)(slash - path);
  dir = malloc(n + 1);
  if (dir == NULL) {
    *status = VB_ENOMEM;
    return NULL;
  }
  memcpy(dir, path, n);
  dir[n] = '\0';
  return dir;
}

/* Parse and validate `text` (owned: stored in the scene or freed) of
 * length len; the common part of both loaders. */
static int load_text(char *text, size_t len, const char *path, vb_scene **out,
                     char *err, size_t errlen)
{
  loader ld;
  config_t cfg;
  vb_scene *sc;
  char *dir;
  int rc;

  *out = NULL;
  sc = calloc(1, sizeof *sc);
  dir = directory_of(path, &rc);
  if (sc == NULL || rc != VB_OK || (sc->path = strdup(path)) == NULL) {
    free(text);
    free(dir);
    vb_scene_free(sc);
    message(err, errlen, "%s: out of memory loading the scene", path);
    return VB_ENOMEM;
  }
  sc->input = text;
  ld.path = path;
  ld.text = text;
  ld.incdir = dir;
  ld.err = err;
  ld.errlen = errlen;
  ld.scene = sc;
  if (strlen(text) != len) {
    const char *p;
    int line = 1;

    for (p = text; *p != '\0'; p++)
      line += *p == '\n';
    message(err, errlen, "%s:%d: syntax error: NUL byte in the scene file",
            path, line);
    free(dir);
    vb_scene_free(sc);
    return VB_EINVAL;
  }
  config_init(&cfg);
  config_set_options(&cfg, config_get_options(&cfg) | CONFIG_OPTION_AUTOCONVERT);
  if (dir != NULL) /* libconfig 1.5 crashes on NULL */
    config_set_include_dir(&cfg, dir);
  if (!config_read_string(&cfg, text)) {
    char file[4096];

    message(err, errlen, "%s:%d: syntax error: %s",
            source_name(&ld, config_error_file(&cfg), file, sizeof file),
            config_error_line(&cfg),
            config_error_text(&cfg) ? config_error_text(&cfg) : "unknown");
    rc = VB_EINVAL;
  } else {
    rc = load_root(&ld, config_root_setting(&cfg));
  }
  config_destroy(&cfg);
  free(dir);
  if (rc != VB_OK) {
    vb_scene_free(sc);
    return rc;
  }
  *out = sc;
  return VB_OK;
}

/* Load and validate a scene file. */
int vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen)
{
  size_t len = 0;
  char *text;

  *out = NULL;
  text = read_text(path, &len);
  if (text == NULL) {
    int e = errno;

    message(err, errlen, "%s: cannot read scene file: %s", path, strerror(e));
    return e == ENOMEM ? VB_ENOMEM : VB_EIO;
  }
  return load_text(text, len, path, out, err, errlen);
}

/* Load and validate a scene from text, named `path` in messages. */
int vb_scene_load_string(const char *text, const char *path, vb_scene **out,
                         char *err, size_t errlen)
{
  size_t len = strlen(text);
  char *copy = malloc(len + 1);

  *out = NULL;
  if (copy == NULL) {
    message(err, errlen, "%s: out of memory loading the scene", path);
    return VB_ENOMEM;
  }
  memcpy(copy, text, len + 1);
  return load_text(copy, len, path, out, err, errlen);
}

/* Free a scene; NULL is a no-op. */
void vb_scene_free(vb_scene *scene)
{
  if (scene == NULL)
    return;
  free(scene->path);
  free(scene->input);
  free(scene->bodies);
  free(scene->contacts);
  free(scene);
}

/* Number of steps of a scene: round(duration * fs). */
long vb_scene_steps(const vb_scene *scene)
{
  return lround(scene->duration * scene->fs);
}

/* Number of recorded samples: steps / record_every + 1. */
long vb_scene_samples(const vb_scene *scene)
{
  return vb_scene_steps(scene) / scene->record_every + 1;
}

/* Bytes of the in-memory recording: per sample, u and v of each body,
 * compression and force of each contact and the four energy signals. */
double vb_scene_record_bytes(const vb_scene *scene)
{
  double per_sample = 2.0 * scene->nbodies + 2.0 * scene->ncontacts + 4.0;

  return (double)vb_scene_samples(scene) * per_sample * sizeof(double);
}
