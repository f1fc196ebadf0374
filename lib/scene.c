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

#include "internal.h"
#include "sweep.h"
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
  static const char *const keys[] = {"every", "modes", NULL};
  const char *obj = "record";
  const config_setting_t *m;
  int rc;

  if ((rc = check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = get_integer(ld, g, obj, "every", 0, &ld->scene->record_every)) !=
          VB_OK)
    return rc;
  if (ld->scene->record_every < 1)
    return refuse(ld, g, obj, "every", ">= 1", (double)ld->scene->record_every);
  m = member(g, "modes");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_BOOL)
      return fail(ld, m, obj, "'modes' must be true or false");
    ld->scene->record_modes = config_setting_get_bool(m);
  }
  return VB_OK;
}

/* A data file named in the scene, relative to the scene's directory. */
static void data_path(const loader *ld, const char *file, char *buf, size_t size)
{
  if (file[0] == '/' || ld->incdir == NULL)
    snprintf(buf, size, "%s", file);
  else
    snprintf(buf, size, "%s/%s", ld->incdir, file);
}

/* Read a numeric array (or, when scalar_ok, one number applied to all n)
 * into out[n]; n < 0 takes the array's own length into *count.  Absent and
 * not required leaves out alone and returns VB_OK with *present = 0. */
static int get_array(const loader *ld, const config_setting_t *group, const char *object,
                     const char *key, int required, int scalar_ok, int n, double **out,
                     int *count, int *present)
{
  config_setting_t *m = member(group, key);
  int len, i;

  if (present)
    *present = m != NULL;
  if (m == NULL)
    return required ? fail(ld, group, object, "missing required key '%s'", key) : VB_OK;
  int type = config_setting_type(m);
  if (scalar_ok && (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 ||
                    type == CONFIG_TYPE_FLOAT)) {
    double x;
    int rc = get_number(ld, group, object, key, 1, &x);
    if (rc != VB_OK)
      return rc;
    for (i = 0; i < n; i++)
      (*out)[i] = x;
    return VB_OK;
  }
  if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
    return fail(ld, m, object, "'%s' must be an array of numbers%s", key,
                scalar_ok ? " or one number" : "");
  len = config_setting_length(m);
  if (n >= 0 && len != n)
    return fail(ld, m, object, "'%s' has %d values (valid: one per mode, %d)", key, len, n);
  if (n < 0) {
    *out = malloc(((size_t)len + 1) * sizeof(double));
    if (*out == NULL)
      return fail(ld, m, object, "out of memory");
    *count = len;
  }
  for (i = 0; i < len; i++) {
    const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
    int t = config_setting_type(e);
    double x;
    if (t == CONFIG_TYPE_INT)
      x = config_setting_get_int(e);
    else if (t == CONFIG_TYPE_INT64)
      x = (double)config_setting_get_int64(e);
    else if (t == CONFIG_TYPE_FLOAT)
      x = config_setting_get_float(e);
    else
      return fail(ld, m, object, "'%s' must be an array of numbers", key);
    if (!isfinite(x))
      return fail(ld, m, object, "'%s' must be finite", key);
    (*out)[i] = x;
  }
  return VB_OK;
}

/* Damping of a modal body: quality, t60, zeta (arrays or one number) or
 * loss = [b1, b3] (sigma = b1 + b3 omega^2); none leaves sigma as is. */
static int load_damping(loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"quality", "t60", "zeta", "loss"};
  int n = b->nmodes, which = -1, present, rc, j;
  for (j = 0; j < 4; j++)
    if (member(g, keys[j]) != NULL) {
      if (which >= 0)
        return fail(ld, at(g, keys[j]), obj, "'%s' and '%s' both give the damping "
                    "(valid: one of quality, t60, zeta, loss)", keys[which], keys[j]);
      which = j;
    }
  if (which < 0)
    return VB_OK;
  double *v = malloc(((size_t)n + 2) * sizeof(double));
  if (v == NULL)
    return fail(ld, g, obj, "out of memory");
  if (which == 3) {
    int cnt = 2;
    rc = get_array(ld, g, obj, "loss", 1, 0, 2, &v, &cnt, &present);
    for (j = 0; rc == VB_OK && j < n; j++) {
      double w = 2.0 * M_PI * b->freq[j];
      b->sigma[j] = v[0] + v[1] * w * w;
      if (!(v[0] >= 0 && v[1] >= 0))
        rc = fail(ld, at(g, "loss"), obj, "'loss' = [b1, b3] must be >= 0");
    }
    free(v);
    return rc;
  }
  rc = get_array(ld, g, obj, keys[which], 1, 1, n, &v, NULL, &present);
  for (j = 0; rc == VB_OK && j < n; j++) {
    double w = 2.0 * M_PI * b->freq[j], x = v[j];
    if (which == 0) {         /* omega/Q is the damping term: sigma = omega/(2Q) */
      if (!(x > 0))
        rc = refuse(ld, g, obj, "quality", "> 0", x);
      b->sigma[j] = w / (2.0 * x);
    } else if (which == 1) {  /* amplitude down 60 dB in t60 */
      if (!(x > 0))
        rc = refuse(ld, g, obj, "t60", "> 0", x);
      b->sigma[j] = log(1000.0) / x;
    } else {                  /* damping ratio */
      if (!(x >= 0))
        rc = refuse(ld, g, obj, "zeta", ">= 0", x);
      b->sigma[j] = x * w;
    }
  }
  free(v);
  return rc;
}

/* Points of a modal body given by shape: ( { name; shape = [...]; } ). */
static int load_shape_points(loader *ld, const config_setting_t *g, const char *obj,
                             vb_body *b)
{
  static const char *const keys[] = {"name", "shape", NULL};
  const config_setting_t *list = member(g, "points");
  int i, rc;
  for (i = 0; i < b->npoints; i++) {
    const config_setting_t *p = config_setting_get_elem(list, (unsigned)i);
    const char *name = NULL;
    char pobj[2 * OBJECT_MAX];
    snprintf(pobj, sizeof pobj, "%s point #%d", obj, i + 1);
    if (config_setting_type(p) != CONFIG_TYPE_GROUP)
      return fail(ld, p, pobj, "must be a group { name = ...; shape = [...]; }");
    if ((rc = check_keys(ld, p, pobj, keys, NULL)) != VB_OK ||
        (rc = get_string(ld, p, pobj, "name", 1, &name)) != VB_OK ||
        (rc = check_name(ld, p, pobj, name)) != VB_OK)
      return rc;
    strcpy(b->points[i].name, name);
    snprintf(pobj, sizeof pobj, "%s point '%s'", obj, name);
    for (int j = 0; j < i; j++)
      if (strcmp(b->points[j].name, name) == 0)
        return fail(ld, at(p, "name"), pobj, "duplicate point name");
    if ((rc = get_array(ld, p, pobj, "shape", 1, 0, b->nmodes, &b->points[i].shape, NULL,
                        NULL)) != VB_OK)
      return rc;
  }
  return VB_OK;
}

/* Points of a preset body given by position: ( { name; x; y; } ). */
static int load_preset(loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const pkeys[] = {"kind", "nmodes", "length", "width", "thickness",
                                      "youngs", "density", "poisson", "tension",
                                      "linear_density", "surface_density", "radius", NULL};
  static const char *const keys[] = {"name", "x", "y", NULL};
  const config_setting_t *pg = member(g, "preset"), *list = member(g, "points");
  char pobj[2 * OBJECT_MAX];
  vb_preset p;
  long nm = 0;
  int rc, i, np;

  memset(&p, 0, sizeof p);
  snprintf(pobj, sizeof pobj, "%s preset", obj);
  if (config_setting_type(pg) != CONFIG_TYPE_GROUP)
    return fail(ld, pg, obj, "'preset' must be a group { kind = ...; ... }");
  if ((rc = check_keys(ld, pg, pobj, pkeys, NULL)) != VB_OK ||
      (rc = get_string(ld, pg, pobj, "kind", 1, &p.kind)) != VB_OK ||
      (rc = get_integer(ld, pg, pobj, "nmodes", 1, &nm)) != VB_OK)
    return rc;
  p.nmodes = nm > 0 && nm < 1000000 ? (int)nm : 0;
  if (p.nmodes == 0)
    return refuse(ld, pg, pobj, "nmodes", "between 1 and 100000", (double)nm);
  p.poisson = 0.3;
  if ((rc = get_number(ld, pg, pobj, "length", 0, &p.length)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "width", 0, &p.width)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "thickness", 0, &p.thickness)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "youngs", 0, &p.youngs)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "density", 0, &p.density)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "poisson", 0, &p.poisson)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "tension", 0, &p.tension)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "linear_density", 0, &p.linear_density)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "surface_density", 0, &p.surface_density)) != VB_OK ||
      (rc = get_number(ld, pg, pobj, "radius", 0, &p.radius)) != VB_OK)
    return rc;
  np = list ? config_setting_length(list) : 0;
  double *xy = calloc(2 * (size_t)np + 2, sizeof(double));
  const char **names = calloc((size_t)np + 1, sizeof(char *));
  if (!xy || !names) {
    free(xy);
    free(names);
    return fail(ld, g, obj, "out of memory");
  }
  rc = VB_OK;
  for (i = 0; i < np && rc == VB_OK; i++) {
    const config_setting_t *pt = config_setting_get_elem(list, (unsigned)i);
    char qobj[3 * OBJECT_MAX];
    snprintf(qobj, sizeof qobj, "%s point #%d", obj, i + 1);
    if (config_setting_type(pt) != CONFIG_TYPE_GROUP)
      rc = fail(ld, pt, qobj, "must be a group { name = ...; x = ...; }");
    else if ((rc = check_keys(ld, pt, qobj, keys, NULL)) == VB_OK &&
             (rc = get_string(ld, pt, qobj, "name", 1, &names[i])) == VB_OK &&
             (rc = check_name(ld, pt, qobj, names[i])) == VB_OK &&
             (rc = get_number(ld, pt, qobj, "x", 1, &xy[i])) == VB_OK)
      rc = get_number(ld, pt, qobj, "y", 0, &xy[np + i]);
    for (int j = 0; rc == VB_OK && j < i; j++)
      if (strcmp(names[j], names[i]) == 0)
        rc = fail(ld, pt, qobj, "duplicate point name '%s'", names[i]);
  }
  if (rc == VB_OK) {
    char msg[1024];
    if (vb_preset_fill(b, &p, np, xy, xy + np, names, msg, sizeof msg) != VB_OK)
      rc = fail(ld, pg, obj, "%s", msg);
  }
  free(xy);
  free(names);
  return rc;
}

/* Load a modal object: modes from arrays, a preset or a data file. */
static int load_modal(loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  const config_setting_t *points = member(g, "points");
  int sources = (member(g, "freq") != NULL) + (member(g, "preset") != NULL) +
                (member(g, "modes_file") != NULL);
  int rc, present, j;

  if (sources != 1)
    return fail(ld, g, obj, "give the modes by exactly one of 'freq' (with 'mass' and "
                "point shapes), 'preset' or 'modes_file' (got %d)", sources);
  if (points != NULL && config_setting_type(points) != CONFIG_TYPE_LIST &&
      !(config_setting_type(points) == CONFIG_TYPE_ARRAY && config_setting_length(points) == 0))
    return fail(ld, points, obj, "'points' must be a list of groups ( { ... }, ... )");
  if (member(g, "freq") != NULL) {
    double *freq = NULL;
    int n = 0;
    if ((rc = get_array(ld, g, obj, "freq", 1, 0, -1, &freq, &n, NULL)) != VB_OK) {
      free(freq);
      return rc;
    }
    if (n < 1) {
      free(freq);
      return fail(ld, at(g, "freq"), obj, "'freq' must list at least one mode");
    }
    if (points == NULL || config_setting_length(points) == 0) {
      free(freq);
      return fail(ld, g, obj, "missing required key 'points' (valid: ( { name = ...; "
                  "shape = [...]; } ))");
    }
    rc = vb_body_alloc_modes(b, n, config_setting_length(points));
    if (rc == VB_OK)
      memcpy(b->freq, freq, (size_t)n * sizeof(double));
    free(freq);
    if (rc != VB_OK)
      return fail(ld, g, obj, "out of memory");
    for (j = 0; j < n; j++) {
      if (!(b->freq[j] >= 0))
        return refuse(ld, g, obj, "freq", ">= 0 for every mode", b->freq[j]);
      b->gravity[j] = b->freq[j] == 0.0 ? 1.0 : 0.0;
    }
    if ((rc = get_array(ld, g, obj, "mass", 1, 1, n, &b->modal_mass, NULL, NULL)) != VB_OK ||
        (rc = load_shape_points(ld, g, obj, b)) != VB_OK)
      return rc;
  } else if (member(g, "preset") != NULL) {
    if ((rc = load_preset(ld, g, obj, b)) != VB_OK)
      return rc;
    if (member(g, "mass") != NULL)
      return fail(ld, at(g, "mass"), obj, "'mass' applies only to modes given by 'freq' "
                  "(a preset computes its modal masses)");
  } else {
    const char *file = NULL;
    char path[4200], msg[1024];
    if ((rc = get_string(ld, g, obj, "modes_file", 1, &file)) != VB_OK)
      return rc;
    if (points != NULL)
      return fail(ld, points, obj, "'points' come from the modes file '%s'", file);
    if (member(g, "mass") != NULL)
      return fail(ld, at(g, "mass"), obj, "'mass' applies only to modes given by 'freq' "
                  "(the modes file gives the modal masses)");
    data_path(ld, file, path, sizeof path);
    if (vb_modes_file_read(b, path, msg, sizeof msg) != VB_OK)
      return fail(ld, at(g, "modes_file"), obj, "%s", msg);
  }
  for (j = 0; j < b->nmodes; j++)
    if (!(b->modal_mass[j] > 0))
      return refuse(ld, g, obj, "mass", "> 0 for every mode", b->modal_mass[j]);
  if ((rc = load_damping(ld, g, obj, b)) != VB_OK ||
      (rc = get_array(ld, g, obj, "gravity", 0, 1, b->nmodes, &b->gravity, NULL, &present)) != VB_OK)
    return rc;
  /* without q0 the elastic modes start at their static sag under gravity,
   * -g gravity_j / omega_j^2, so nothing rings before anything happens */
  for (j = 0; j < b->nmodes; j++)
    if (b->freq[j] > 0.0)
      b->q0[j] = -ld->scene->gravity * b->gravity[j] / pow(2.0 * M_PI * b->freq[j], 2.0);
  if ((rc = get_array(ld, g, obj, "q0", 0, 0, b->nmodes, &b->q0, NULL, &present)) != VB_OK ||
      (rc = get_array(ld, g, obj, "dq0", 0, 0, b->nmodes, &b->dq0, NULL, &present)) != VB_OK ||
      (rc = get_array(ld, g, obj, "gravity", 0, 1, b->nmodes, &b->gravity, NULL, &present)) != VB_OK)
    return rc;
  return VB_OK;
}

/* Read a profile file: one height (m) per line, '#' comments. */
static int read_profile(loader *ld, const config_setting_t *at_s, const char *obj,
                        const char *file, vb_drive *d)
{
  char path[4200], line[256];
  data_path(ld, file, path, sizeof path);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return fail(ld, at_s, obj, "cannot read profile '%s': %s", path, strerror(errno));
  long cap = 256, n = 0, lineno = 0;
  d->samples = malloc((size_t)cap * sizeof(double));
  int rc = d->samples ? VB_OK : VB_ENOMEM;
  while (rc == VB_OK && fgets(line, sizeof line, f)) {
    char *p = line, *end;
    lineno++;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '#' || *p == '\0')
      continue;
    double x = strtod(p, &end);
    while (isspace((unsigned char)*end))
      end++;
    if (end == p || *end != '\0' || !isfinite(x)) {
      rc = fail(ld, at_s, obj, "profile '%s' line %ld: '%.*s' is not a number", path,
                lineno, (int)strcspn(p, "\r\n"), p);
      break;
    }
    if (n == cap) {
      double *g2 = realloc(d->samples, 2 * (size_t)cap * sizeof(double));
      if (!g2) {
        rc = VB_ENOMEM;
        break;
      }
      d->samples = g2;
      cap *= 2;
    }
    d->samples[n++] = x;
  }
  fclose(f);
  if (rc == VB_ENOMEM)
    return fail(ld, at_s, obj, "out of memory reading profile '%s'", path);
  if (rc == VB_OK && n < 4)
    return fail(ld, at_s, obj, "profile '%s' has %ld samples (valid: at least 4)", path, n);
  d->nsamples = n;
  return rc;
}

/* A wall's drive: sine, profile or noise. */
static int load_drive(loader *ld, const config_setting_t *g, const char *obj, vb_drive *d)
{
  static const char *const sine_keys[] = {"type", "amplitude", "freq", "phase", NULL};
  static const char *const profile_keys[] = {"type", "file", "speed", "spacing", "start",
                                             "scale", NULL};
  static const char *const noise_keys[] = {"type", "rms", "bandwidth", "seed",
                                           "components", NULL};
  char dobj[2 * OBJECT_MAX];
  const char *type = NULL;
  int rc;
  snprintf(dobj, sizeof dobj, "%s drive", obj);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return fail(ld, g, obj, "'drive' must be a group { type = ...; ... }");
  if ((rc = get_string(ld, g, dobj, "type", 1, &type)) != VB_OK)
    return rc;
  if (strcmp(type, "sine") == 0) {
    d->kind = VB_DRIVE_SINE;
    if ((rc = check_keys(ld, g, dobj, sine_keys, NULL)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "amplitude", 1, &d->amplitude)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "freq", 1, &d->freq)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "phase", 0, &d->phase)) != VB_OK)
      return rc;
    if (!(d->freq >= 0))
      return refuse(ld, g, dobj, "freq", ">= 0", d->freq);
    return VB_OK;
  }
  if (strcmp(type, "profile") == 0) {
    const char *file = NULL;
    d->kind = VB_DRIVE_PROFILE;
    d->amplitude = 1.0;
    if ((rc = check_keys(ld, g, dobj, profile_keys, NULL)) != VB_OK ||
        (rc = get_string(ld, g, dobj, "file", 1, &file)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "speed", 1, &d->speed)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "spacing", 1, &d->spacing)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "start", 0, &d->start)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "scale", 0, &d->amplitude)) != VB_OK)
      return rc;
    if (!(d->spacing > 0))
      return refuse(ld, g, dobj, "spacing", "> 0", d->spacing);
    return read_profile(ld, at(g, "file"), dobj, file, d);
  }
  if (strcmp(type, "noise") == 0) {
    long seed = 1, comps = 64;
    d->kind = VB_DRIVE_NOISE;
    if ((rc = check_keys(ld, g, dobj, noise_keys, NULL)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "rms", 1, &d->amplitude)) != VB_OK ||
        (rc = get_number(ld, g, dobj, "bandwidth", 1, &d->freq)) != VB_OK ||
        (rc = get_integer(ld, g, dobj, "seed", 0, &seed)) != VB_OK ||
        (rc = get_integer(ld, g, dobj, "components", 0, &comps)) != VB_OK)
      return rc;
    if (!(d->amplitude >= 0))
      return refuse(ld, g, dobj, "rms", ">= 0", d->amplitude);
    if (!(d->freq > 0))
      return refuse(ld, g, dobj, "bandwidth", "> 0", d->freq);
    if (comps < 1 || comps > 100000)
      return refuse(ld, g, dobj, "components", "between 1 and 100000", (double)comps);
    d->seed = (unsigned long)seed;
    if (vb_drive_noise_setup(d, comps) != VB_OK)
      return fail(ld, g, dobj, "out of memory");
    return VB_OK;
  }
  return fail(ld, at(g, "type"), dobj, "unknown drive type '%s' (valid: sine, profile, "
              "noise)", type);
}

/* Load one body from its group; i is its index. */
static int load_body(loader *ld, const config_setting_t *list, int i)
{
  static const char *const mass_keys[] = {"name", "type", "mass", "u0", "v0", "k", "c",
                                          NULL};
  static const char *const wall_keys[] = {"name", "type", "position", "drive", NULL};
  static const char *const modal_keys[] = {"name", "type", "freq", "mass", "quality",
                                           "t60", "zeta", "loss", "q0", "dq0",
                                           "gravity", "points", "preset", "modes_file",
                                           NULL};
  static const char *const all_keys[] = {"name", "type", "mass", "u0", "v0", "k", "c",
                                         "position", "drive", "freq", "quality", "t60",
                                         "zeta", "loss", "q0", "dq0", "gravity",
                                         "points", "preset", "modes_file", NULL};
  static const key_rule mass_rules[] = {{"position", "type 'wall'"},
                                        {"drive", "type 'wall'"},
                                        {"freq", "type 'modal'"},
                                        {"points", "type 'modal'"},
                                        {NULL, NULL}};
  static const key_rule wall_rules[] = {{"mass", "type 'mass'"},
                                        {"u0", "type 'mass'"},
                                        {"v0", "type 'mass'"},
                                        {NULL, NULL}};
  static const key_rule modal_rules[] = {{"position", "type 'wall'"},
                                         {"u0", "type 'mass'"},
                                         {"v0", "type 'mass'"},
                                         {"k", "type 'mass'"},
                                         {"c", "type 'mass'"},
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
   * reported after the keys, with all keys of every type allowed. */
  if (member(g, "type") != NULL &&
      config_setting_type(member(g, "type")) == CONFIG_TYPE_STRING)
    type = config_setting_get_string(member(g, "type"));
  if (type != NULL && strcmp(type, "mass") == 0)
    rc = check_keys(ld, g, obj, mass_keys, mass_rules);
  else if (type != NULL && strcmp(type, "wall") == 0)
    rc = check_keys(ld, g, obj, wall_keys, wall_rules);
  else if (type != NULL && strcmp(type, "modal") == 0)
    rc = check_keys(ld, g, obj, modal_keys, modal_rules);
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
    if ((rc = get_number(ld, g, obj, "u0", 0, &b->u0)) != VB_OK ||
        (rc = get_number(ld, g, obj, "v0", 0, &b->v0)) != VB_OK ||
        (rc = get_number(ld, g, obj, "k", 0, &b->k)) != VB_OK ||
        (rc = get_number(ld, g, obj, "c", 0, &b->c)) != VB_OK)
      return rc;
    if (!(b->k >= 0))
      return refuse(ld, g, obj, "k", ">= 0", b->k);
    if (!(b->c >= 0))
      return refuse(ld, g, obj, "c", ">= 0", b->c);
    if (vb_body_mass_modes(b) != VB_OK)
      return fail(ld, g, obj, "out of memory");
    return VB_OK;
  }
  if (strcmp(type, "wall") == 0) {
    b->kind = VB_BODY_WALL;
    if ((rc = get_number(ld, g, obj, "position", 0, &b->u0)) != VB_OK)
      return rc;
    return member(g, "drive") ? load_drive(ld, member(g, "drive"), obj, &b->drive) : VB_OK;
  }
  if (strcmp(type, "modal") == 0) {
    b->kind = VB_BODY_MODAL;
    return load_modal(ld, g, obj, b);
  }
  return fail(ld, at(g, "type"), obj, "unknown type '%s' (valid: mass, wall, modal)",
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

/* Resolve "body" or "body.point" into a body and point index; a modal
 * object needs a point, a mass or wall takes none.  Messages go to m. */
static int resolve_point(loader *ld, const config_setting_t *m, const char *obj,
                         const char *key, const char *text, int *body, int *point)
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
  *body = find_body(sc, bname);
  if (*body < 0) {
    valid[0] = '\0';
    for (j = 0; j < sc->nbodies; j++)
      list_add(valid, sizeof valid, sc->bodies[j].name);
    return fail(ld, m, obj, "'%s' names unknown body '%s' (valid: %s)", key, bname, valid);
  }
  const vb_body *b = &sc->bodies[*body];
  *point = 0;
  if (b->kind != VB_BODY_MODAL) {
    if (dot != NULL)
      return fail(ld, m, obj, "'%s' names point '%s' of %s '%s', which has no points "
                  "(valid: '%s')", key, dot + 1, b->kind == VB_BODY_WALL ? "wall" : "mass",
                  bname, bname);
    return VB_OK;
  }
  valid[0] = '\0';
  for (j = 0; j < b->npoints; j++) {
    char full[4 * VB_NAME_MAX + 4];
    snprintf(full, sizeof full, "%s.%s", bname, b->points[j].name);
    list_add(valid, sizeof valid, full);
    if (dot != NULL && strcmp(dot + 1, b->points[j].name) == 0)
      *point = j;
  }
  if (dot == NULL)
    return fail(ld, m, obj, "'%s' must name a point of modal object '%s' (valid: %s)",
                key, bname, valid);
  if (strcmp(dot + 1, b->points[*point].name) != 0)
    return fail(ld, m, obj, "'%s' names unknown point '%s' (valid: %s)", key, text, valid);
  return VB_OK;
}

/* Resolve the 'between' array of a contact into body and point indices. */
static int load_between(loader *ld, const config_setting_t *g,
                        const char *obj, vb_contact *c)
{
  const config_setting_t *m = member(g, "between");
  const vb_scene *sc = ld->scene;
  const char *names[2];
  int i, n, idx[2], pt[2], rc;

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
    if ((rc = resolve_point(ld, m, obj, "between", names[i], &idx[i], &pt[i])) != VB_OK)
      return rc;
  }
  if (idx[0] == idx[1] && pt[0] == pt[1])
    return fail(ld, m, obj,
                "'between' names body '%s' twice (valid: two different bodies)",
                names[0]);
  if (sc->bodies[idx[0]].kind == VB_BODY_WALL &&
      sc->bodies[idx[1]].kind == VB_BODY_WALL)
    return fail(ld, m, obj,
                "'between' joins two walls '%s' and '%s' (valid: at least one "
                "body of type 'mass' or 'modal')", names[0], names[1]);
  c->a = idx[0];
  c->b = idx[1];
  c->pa = pt[0];
  c->pb = pt[1];
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
                                   {"c", "law 'spring'"},
                                   {"alpha", "laws power, hunt-crossley, rattle and polynomial"},
                                   {"s", "scheme 'quadratic'"},
                                   {NULL, NULL}};
  const config_setting_t *m;
  const char *keys[32], *law = NULL, *scheme = NULL;
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
  if (!law_known || kind != VB_LAW_SPRING)
    keys[n++] = "alpha";
  if (!law_known || kind == VB_LAW_SPRING)
    keys[n++] = "c";
  if (!law_known || kind == VB_LAW_HUNT_CROSSLEY)
    keys[n++] = "mu";
  if (!law_known || kind == VB_LAW_RATTLE)
    keys[n++] = "h";
  keys[n++] = "gap";
  keys[n++] = "gap_drive";
  keys[n++] = "scheme";
  if (!scheme_known || strcmp(scheme, "quadratic") == 0)
    keys[n++] = "s";
  keys[n++] = "tolerance";
  keys[n++] = "max_iterations";
  keys[n++] = "corrections";
  keys[n++] = "vout";
  keys[n++] = "exact_duration";
  keys[n++] = "saturate";
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
  law->c = 0.0;
  if (law->kind == VB_LAW_SPRING) {
    /* linear spring-damper: alpha is 1 */
    law->alpha = 1.0;
    law->mu = law->h = 0.0;
    if ((rc = get_number(ld, g, obj, "c", 0, &law->c)) != VB_OK)
      return rc;
    if (!(law->c >= 0))
      return refuse(ld, g, obj, "c", ">= 0", law->c);
    return VB_OK;
  }
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

/* A boolean member; *out left alone when absent. */
static int get_bool(const loader *ld, const config_setting_t *group, const char *object,
                    const char *key, int *out)
{
  const config_setting_t *m = member(group, key);
  if (m == NULL)
    return VB_OK;
  if (config_setting_type(m) != CONFIG_TYPE_BOOL)
    return fail(ld, m, object, "'%s' must be true or false", key);
  *out = config_setting_get_bool(m);
  return VB_OK;
}

/* Papetti's corrections and the exact-duration substitution of a contact:
 * corrections = ["xmax", "vout"]; vout = "exact" | "approx";
 * exact_duration = true; saturate = true. */
static int load_corrections(loader *ld, const config_setting_t *g, const char *obj,
                            vb_contact *c)
{
  const config_setting_t *m = member(g, "corrections");
  const vb_law *law = &c->law;
  int rc;
  c->corrections = 0;
  c->vout_exact = 1;
  c->exact_duration = c->saturate = 0;
  if (m != NULL) {
    int n = config_setting_length(m);
    if (config_setting_type(m) != CONFIG_TYPE_ARRAY && config_setting_type(m) != CONFIG_TYPE_LIST)
      return fail(ld, m, obj, "'corrections' must be an array of names (valid: xmax, vout)");
    for (int i = 0; i < n; i++) {
      const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
      const char *name = config_setting_type(e) == CONFIG_TYPE_STRING
                         ? config_setting_get_string(e) : NULL;
      if (name != NULL && strcmp(name, "xmax") == 0)
        c->corrections |= VB_CORRECT_XMAX;
      else if (name != NULL && strcmp(name, "vout") == 0)
        c->corrections |= VB_CORRECT_VOUT;
      else
        return fail(ld, m, obj, "unknown correction '%s' (valid: xmax, vout)",
                    name ? name : "(not a string)");
    }
    if (law->kind != VB_LAW_POWER && law->kind != VB_LAW_HUNT_CROSSLEY &&
        law->kind != VB_LAW_RATTLE)
      return fail(ld, m, obj, "corrections need an impact law with analytic x_max and "
                  "v_out (valid: power, hunt-crossley, rattle)");
    if (c->scheme->family == VB_FAMILY_THREE_LEVEL)
      return fail(ld, m, obj, "corrections apply to schemes whose state holds a velocity "
                  "(valid: two-point, am1, verlet, heun, rk4)");
  }
  m = member(g, "vout");
  if (m != NULL) {
    const char *v = NULL;
    if ((rc = get_string(ld, g, obj, "vout", 1, &v)) != VB_OK)
      return rc;
    if (!(c->corrections & VB_CORRECT_VOUT))
      return fail(ld, m, obj, "'vout' applies only with corrections = [\"vout\"]");
    if (strcmp(v, "exact") == 0)
      c->vout_exact = 1;
    else if (strcmp(v, "approx") == 0)
      c->vout_exact = 0;
    else
      return fail(ld, m, obj, "unknown vout '%s' (valid: exact, approx)", v);
  }
  if ((rc = get_bool(ld, g, obj, "exact_duration", &c->exact_duration)) != VB_OK ||
      (rc = get_bool(ld, g, obj, "saturate", &c->saturate)) != VB_OK)
    return rc;
  if (c->exact_duration) {
    m = member(g, "exact_duration");
    if (law->kind != VB_LAW_POWER || law->alpha != 1.0)
      return fail(ld, m, obj, "exact_duration needs law 'power' with alpha = 1 "
                  "(Chatziioannou eq 14-16)");
    if (strcmp(c->scheme->name, "two-point") != 0 &&
        strcmp(c->scheme->name, "three-point") != 0)
      return fail(ld, m, obj, "exact_duration applies to schemes two-point and "
                  "three-point (valid: two-point, three-point)");
  }
  if (c->saturate && !c->exact_duration)
    return fail(ld, at(g, "saturate"), obj, "'saturate' applies only with "
                "exact_duration = true");
  return VB_OK;
}

/* Load one contact from its group; i is its index. */
static int load_contact(loader *ld, const config_setting_t *list, int i)
{
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  vb_contact *c = &ld->scene->contacts[i];
  const vb_scene *sc = ld->scene;
  const char *name = NULL, *law = NULL, *scheme = NULL;
  char obj[OBJECT_MAX], loc[4200];
  int rc, j;

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
  if ((rc = load_law(ld, g, obj, &c->law)) != VB_OK)
    return rc;
  c->gap = 0.0;
  if ((rc = get_number(ld, g, obj, "gap", 0, &c->gap)) != VB_OK)
    return rc;
  if (member(g, "gap_drive") != NULL &&
      (rc = load_drive(ld, member(g, "gap_drive"), obj, &c->gap_drive)) != VB_OK)
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
  return load_corrections(ld, g, obj, c);
}

/* Load the contacts list (bodies must be loaded). */
static int load_contacts(loader *ld, const config_setting_t *list)
{
  vb_scene *sc = ld->scene;
  int i, n = config_setting_length(list), rc = VB_OK;

  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return fail(ld, list, "top level",
                "'contacts' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return VB_OK;
  sc->contacts = calloc((size_t)n, sizeof *sc->contacts);
  if (sc->contacts == NULL) {
    message(ld->err, ld->errlen, "%s: out of memory loading the scene",
            ld->path);
    return VB_ENOMEM;
  }
  sc->ncontacts = n;
  for (i = 0; i < n && rc == VB_OK; i++)
    rc = load_contact(ld, list, i);
  return rc;
}

/* Load the forces list: { name; at; type = constant | harmonic; ... }. */
static int load_forces(loader *ld, const config_setting_t *list)
{
  static const char *const keys[] = {"name", "at", "type", "value", "amplitude", "freq",
                                     "phase", NULL};
  vb_scene *sc = ld->scene;
  int n = config_setting_length(list), rc = VB_OK;
  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return fail(ld, list, "top level", "'forces' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return VB_OK;
  sc->forces = calloc((size_t)n, sizeof *sc->forces);
  if (sc->forces == NULL)
    return fail(ld, list, "top level", "out of memory");
  sc->nforces = n;
  for (int i = 0; i < n && rc == VB_OK; i++) {
    const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
    vb_force *f = &sc->forces[i];
    const char *name = NULL, *atp = NULL, *type = NULL;
    char obj[OBJECT_MAX];
    snprintf(obj, sizeof obj, "force #%d", i + 1);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
      return fail(ld, g, obj, "must be a group { name = ...; at = ...; }");
    f->line = config_setting_source_line(g);
    if ((rc = check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
        (rc = get_string(ld, g, obj, "name", 1, &name)) != VB_OK ||
        (rc = check_name(ld, g, obj, name)) != VB_OK)
      return rc;
    strcpy(f->name, name);
    snprintf(obj, sizeof obj, "force '%s'", name);
    for (int j = 0; j < i; j++)
      if (strcmp(sc->forces[j].name, name) == 0)
        return fail(ld, at(g, "name"), obj, "duplicate force name");
    if ((rc = get_string(ld, g, obj, "at", 1, &atp)) != VB_OK ||
        (rc = resolve_point(ld, at(g, "at"), obj, "at", atp, &f->body, &f->point)) != VB_OK)
      return rc;
    if (sc->bodies[f->body].kind == VB_BODY_WALL)
      return fail(ld, at(g, "at"), obj, "a force cannot act on wall '%s' (valid: a mass or "
                  "a point of a modal object)", sc->bodies[f->body].name);
    if ((rc = get_string(ld, g, obj, "type", 1, &type)) != VB_OK)
      return rc;
    if (strcmp(type, "constant") == 0) {
      f->kind = VB_FORCE_CONSTANT;
      if ((rc = get_number(ld, g, obj, "value", 1, &f->value)) != VB_OK)
        return rc;
      if (member(g, "amplitude") || member(g, "freq") || member(g, "phase"))
        return fail(ld, g, obj, "'amplitude', 'freq' and 'phase' apply only to type "
                    "'harmonic'");
    } else if (strcmp(type, "harmonic") == 0) {
      f->kind = VB_FORCE_HARMONIC;
      if ((rc = get_number(ld, g, obj, "value", 0, &f->value)) != VB_OK ||
          (rc = get_number(ld, g, obj, "amplitude", 1, &f->amplitude)) != VB_OK ||
          (rc = get_number(ld, g, obj, "freq", 1, &f->freq)) != VB_OK ||
          (rc = get_number(ld, g, obj, "phase", 0, &f->phase)) != VB_OK)
        return rc;
      if (!(f->freq >= 0))
        return refuse(ld, g, obj, "freq", ">= 0", f->freq);
    } else {
      return fail(ld, at(g, "type"), obj, "unknown force type '%s' (valid: constant, "
                  "harmonic)", type);
    }
  }
  return rc;
}

/* Load a whole parsed document into ld->scene. */
static int load_root(loader *ld, const config_setting_t *root)
{
  static const char *const keys[] = {"scene", "bodies", "contacts", "forces", "record",
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
      return fail(ld, m, "sweep",
                  "a sweep makes this file a study of several scenes (valid: "
                  "load it with vb_study_load)");
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
  if (m != NULL && (rc = load_contacts(ld, m)) != VB_OK)
    return rc;
  m = member(root, "forces");
  return m != NULL ? load_forces(ld, m) : VB_OK;
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

/* A loader for messages about src (scene NULL) or for loading into scene. */
static void loader_init(loader *ld, const vb_source *src, char *err, size_t errlen,
                        vb_scene *scene)
{
  ld->path = src->path;
  ld->text = src->text;
  ld->incdir = src->incdir;
  ld->err = err;
  ld->errlen = errlen;
  ld->scene = scene;
}

/* Free what a source holds; a zeroed source is a no-op. */
void vb_source_clear(vb_source *src)
{
  free(src->path);
  free(src->text);
  free(src->incdir);
  memset(src, 0, sizeof *src);
}

/* Fill src from `text` (owned: kept in src or freed) of length len. */
static int adopt_text(char *text, size_t len, const char *path, vb_source *src,
                      char *err, size_t errlen)
{
  int rc;

  memset(src, 0, sizeof *src);
  src->text = text;
  src->incdir = directory_of(path, &rc);
  if (rc != VB_OK || (src->path = strdup(path)) == NULL) {
    vb_source_clear(src);
    message(err, errlen, "%s: out of memory loading the scene", path);
    return VB_ENOMEM;
  }
  if (strlen(text) != len) {
    const char *p;
    int line = 1;

    for (p = text; *p != '\0'; p++)
      line += *p == '\n';
    message(err, errlen, "%s:%d: syntax error: NUL byte in the scene file",
            path, line);
    vb_source_clear(src);
    return VB_EINVAL;
  }
  return VB_OK;
}

/* Read a scene or study file. */
int vb_source_read(const char *path, vb_source *src, char *err, size_t errlen)
{
  size_t len = 0;
  char *text;

  memset(src, 0, sizeof *src);
  text = read_text(path, &len);
  if (text == NULL) {
    int e = errno;

    message(err, errlen, "%s: cannot read scene file: %s", path, strerror(e));
    return e == ENOMEM ? VB_ENOMEM : VB_EIO;
  }
  return adopt_text(text, len, path, src, err, errlen);
}

/* Copy a scene or study text, named `path` in messages. */
int vb_source_copy(const char *text, const char *path, vb_source *src, char *err,
                   size_t errlen)
{
  size_t len = strlen(text);
  char *copy = malloc(len + 1);

  memset(src, 0, sizeof *src);
  if (copy == NULL) {
    message(err, errlen, "%s: out of memory loading the scene", path);
    return VB_ENOMEM;
  }
  memcpy(copy, text, len + 1);
  return adopt_text(copy, len, path, src, err, errlen);
}

/* Parse a source with libconfig into cfg (initialised here). */
int vb_source_parse(const vb_source *src, config_t *cfg, char *err, size_t errlen)
{
  loader ld;
  char file[4096];

  loader_init(&ld, src, err, errlen, NULL);
  config_init(cfg);
  config_set_options(cfg, config_get_options(cfg) | CONFIG_OPTION_AUTOCONVERT);
  if (src->incdir != NULL) /* libconfig 1.5 crashes on NULL */
    config_set_include_dir(cfg, src->incdir);
  if (config_read_string(cfg, src->text))
    return VB_OK;
  message(err, errlen, "%s:%d: syntax error: %s",
          source_name(&ld, config_error_file(cfg), file, sizeof file),
          config_error_line(cfg),
          config_error_text(cfg) ? config_error_text(cfg) : "unknown");
  return VB_EINVAL;
}

/* Report a problem with a setting of a source as "FILE:LINE: OBJECT: what". */
int vb_source_fail(const vb_source *src, const config_setting_t *s, const char *object,
                   char *err, size_t errlen, const char *fmt, ...)
{
  char what[1024];
  va_list ap;
  loader ld;

  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  loader_init(&ld, src, err, errlen, NULL);
  return fail(&ld, s, object, "%s", what);
}

/* Validate a parsed document into a new scene; the common part of all
 * loaders. */
static int load_parsed(const vb_source *src, const config_t *cfg, vb_scene **out,
                       char *err, size_t errlen)
{
  loader ld;
  vb_scene *sc;
  int rc;

  *out = NULL;
  sc = calloc(1, sizeof *sc);
  if (sc == NULL || (sc->path = strdup(src->path)) == NULL ||
      (sc->input = strdup(src->text)) == NULL) {
    vb_scene_free(sc);
    message(err, errlen, "%s: out of memory loading the scene", src->path);
    return VB_ENOMEM;
  }
  loader_init(&ld, src, err, errlen, sc);
  rc = load_root(&ld, config_root_setting(cfg));
  if (rc == VB_OK) {
    /* islands: one family each, every mode steppable at this rate */
    vb_island *is;
    int nis;
    rc = vb_islands_build(sc, 1.0 / sc->fs, &is, &nis, err, errlen);
    vb_islands_free(is, nis);
  }
  if (rc != VB_OK) {
    vb_scene_free(sc);
    return rc;
  }
  *out = sc;
  return VB_OK;
}

/* Parse and validate a source. */
static int load_source(const vb_source *src, vb_scene **out, char *err, size_t errlen)
{
  config_t cfg;
  int rc;

  *out = NULL;
  rc = vb_source_parse(src, &cfg, err, errlen);
  if (rc == VB_OK)
    rc = load_parsed(src, &cfg, out, err, errlen);
  config_destroy(&cfg);
  return rc;
}

/* Load one scene of a study from its parsed document, overrides applied:
 * the sweep block is dropped and the rest validated as a plain scene. */
int vb_scene_load_config(const vb_source *src, config_t *cfg, vb_scene **out, char *err,
                         size_t errlen)
{
  config_setting_t *root = config_root_setting(cfg);

  if (config_setting_get_member(root, "sweep") != NULL)
    config_setting_remove(root, "sweep");
  return load_parsed(src, cfg, out, err, errlen);
}

/* Load and validate a scene file. */
int vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_read(path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Load and validate a scene from text, named `path` in messages. */
int vb_scene_load_string(const char *text, const char *path, vb_scene **out,
                         char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_copy(text, path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Free a scene; NULL is a no-op. */
void vb_scene_free(vb_scene *scene)
{
  if (scene == NULL)
    return;
  free(scene->path);
  free(scene->input);
  for (int i = 0; scene->bodies && i < scene->nbodies; i++)
    vb_body_clear(&scene->bodies[i]);
  for (int i = 0; scene->contacts && i < scene->ncontacts; i++)
    vb_drive_clear(&scene->contacts[i].gap_drive);
  free(scene->bodies);
  free(scene->forces);
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

/* Bytes of the in-memory recording: per sample, u and v of each mass and
 * wall and of each point of a modal object, its modes when recorded,
 * compression, rate and force of each contact and the six energy signals. */
double vb_scene_record_bytes(const vb_scene *scene)
{
  double per_sample = 3.0 * scene->ncontacts + 6.0;

  for (int i = 0; i < scene->nbodies; i++) {
    const vb_body *b = &scene->bodies[i];
    per_sample += 2.0 * (b->kind == VB_BODY_MODAL ? b->npoints : 1);
    if (scene->record_modes && b->kind != VB_BODY_WALL)
      per_sample += b->nmodes;
  }

  return (double)vb_scene_samples(scene) * per_sample * sizeof(double);
}

/* ------------------------------------------------------------------ studies */

/* Room for a sweep path such as "contacts.hit.k" or "bodies.bar.freq[2]",
 * and the most components it may have. */
#define PATH_MAX_LEN 256
#define MAX_COMPONENTS 8

/* Numeric keys a sweep may set in an object even where the file leaves
 * them out: per top-level setting, optionally only for one variant of the
 * object (its `type`, `law` or `scheme`).  Keep in step with the load_*
 * functions above; a numeric key written in the file is sweepable whether
 * or not it is listed here, and the loader judges every value. */
typedef struct sweep_keys {
  const char *top;      /* "scene", "bodies", "bodies.drive", ...: the kind
                           of object, its path without element names */
  const char *selector; /* key that picks the variant, or NULL for all */
  const char *variant;  /* its value */
  const char *keys[8];
} sweep_keys;

static const sweep_keys sweepable[] = {
  {"scene", NULL, NULL, {"fs", "duration", "gravity", NULL}},
  {"record", NULL, NULL, {"every", NULL}},
  {"bodies", "type", "mass", {"mass", "u0", "v0", "k", "c", NULL}},
  {"bodies", "type", "wall", {"position", NULL}},
  {"bodies.drive", "type", "sine", {"amplitude", "freq", "phase", NULL}},
  {"bodies.drive", "type", "noise", {"rms", "bandwidth", NULL}},
  {"bodies.drive", "type", "profile", {"speed", "spacing", "start", "scale", NULL}},
  {"contacts", NULL, NULL, {"k", "alpha", NULL}},
  {"contacts", "law", "hunt-crossley", {"mu", NULL}},
  {"contacts", "law", "rattle", {"h", NULL}},
  {"contacts", NULL, NULL, {"gap", NULL}},
  {"contacts", "scheme", "quadratic", {"s", NULL}},
  {"contacts", NULL, NULL, {"tolerance", "max_iterations", NULL}},
  {"forces", NULL, NULL, {"value", "amplitude", "freq", "phase", NULL}},
};

#define NSWEEPABLE (sizeof sweepable / sizeof sweepable[0])

/* Shortest decimal text of a double that reads back to the same value. */
const char *vb_number_text(double x, char *buf, size_t size)
{
  return number_text(x, buf, size);
}

/* Whether a setting holds a single number. */
static int is_number(const config_setting_t *s)
{
  int t = config_setting_type(s);

  return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

/* Whether a table entry applies to an object of top-level setting `top`. */
static int entry_applies(const sweep_keys *e, const char *top,
                         const config_setting_t *obj)
{
  const config_setting_t *m;

  if (strcmp(e->top, top) != 0)
    return 0;
  if (e->selector == NULL)
    return 1;
  m = member(obj, e->selector);
  return m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING &&
         strcmp(config_setting_get_string(m), e->variant) == 0;
}

/* Whether `key` is an optional numeric key a sweep may create in obj. */
static int creatable(const char *top, const config_setting_t *obj, const char *key)
{
  size_t i;

  for (i = 0; i < NSWEEPABLE; i++)
    if (entry_applies(&sweepable[i], top, obj) && has_key(sweepable[i].keys, key))
      return 1;
  return 0;
}

/* Append the sweepable paths of one object to a comma-separated list:
 * `kind` is its kind in the table above ("contacts", "bodies.drive"),
 * `prefix` its path ("contacts.hit", "bodies.shaker.drive"); groups
 * inside it are listed too. */
static void object_paths(const char *kind, const char *prefix,
                         const config_setting_t *obj, char *list, size_t size)
{
  char item[PATH_MAX_LEN + 32], subkind[PATH_MAX_LEN], subprefix[PATH_MAX_LEN];
  size_t i;
  int j, k, n;

  for (i = 0; i < NSWEEPABLE; i++) {
    const char *const *key;

    if (!entry_applies(&sweepable[i], kind, obj))
      continue;
    for (key = sweepable[i].keys; *key != NULL; key++) {
      snprintf(item, sizeof item, "%s.%s", prefix, *key);
      list_add(list, size, item);
    }
  }
  n = config_setting_length(obj);
  for (j = 0; j < n; j++) {
    const config_setting_t *m = config_setting_get_elem(obj, (unsigned)j);
    const char *key = config_setting_name(m);
    int t = config_setting_type(m);

    if (is_number(m) && !creatable(kind, obj, key)) {
      snprintf(item, sizeof item, "%s.%s", prefix, key);
      list_add(list, size, item);
    } else if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
      for (k = 0; k < config_setting_length(m); k++)
        if (is_number(config_setting_get_elem(m, (unsigned)k))) {
          snprintf(item, sizeof item, "%s.%s[%d]", prefix, key, k);
          list_add(list, size, item);
        }
    } else if (t == CONFIG_TYPE_GROUP) {
      snprintf(subkind, sizeof subkind, "%s.%s", kind, key);
      snprintf(subprefix, sizeof subprefix, "%s.%s", prefix, key);
      object_paths(subkind, subprefix, m, list, size);
    }
  }
}

/* Name of a list element (a group with a string `name`), or NULL. */
static const char *element_name(const config_setting_t *g)
{
  const config_setting_t *m;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return NULL;
  m = member(g, "name");
  return m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING
             ? config_setting_get_string(m)
             : NULL;
}

/* Append the sweepable paths under a top-level setting to a list; with
 * `key` set, only the paths of that key (on every element of a list). */
static void top_paths(const config_setting_t *top, const char *key, char *list,
                      size_t size)
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
        list_add(list, size, item);
    }
  }
}

/* Every sweepable path of a document. */
static void all_paths(const config_setting_t *root, char *list, size_t size)
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
static int split_index(char *key, long *index)
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

/* Find or create the numeric setting a sweep path names: TOP.KEY for a
 * group (scene.fs), TOP.NAME.KEY for an element of a list found by its
 * name (contacts.hit.k), with groups inside the object on the way
 * (bodies.shaker.drive.freq) and KEY[i] for an array element. */
int vb_sweep_target(const vb_source *src, config_t *cfg, const char *path,
                    const config_setting_t *origin, config_setting_t **target,
                    char *err, size_t errlen)
{
  config_setting_t *root = config_root_setting(cfg), *top, *obj = NULL, *m;
  char buf[PATH_MAX_LEN], valid[LIST_MAX], kind[PATH_MAX_LEN], prefix[PATH_MAX_LEN];
  char *comp[MAX_COMPONENTS], *p;
  int ncomp = 0, first, i, n, c;
  long index;

  *target = NULL;
  valid[0] = '\0';
  if (strlen(path) >= sizeof buf) {
    all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  strcpy(buf, path);
  for (p = buf; ncomp < MAX_COMPONENTS;) {
    comp[ncomp++] = p;
    p = strchr(p, '.');
    if (p == NULL)
      break;
    *p++ = '\0';
  }
  top = strcmp(comp[0], "sweep") == 0 ? NULL : member(root, comp[0]);
  /* record is optional as a whole: a sweep of record.every creates it */
  if (top == NULL && strcmp(comp[0], "record") == 0 && ncomp == 2 &&
      strcmp(comp[1], "every") == 0) {
    top = config_setting_add(root, "record", CONFIG_TYPE_GROUP);
    if (top == NULL)
      return vb_source_fail(src, origin, "sweep", err, errlen,
                            "cannot create 'record' for '%s'", path);
  }
  if (top == NULL || ncomp < 2 || p != NULL) {
    all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  snprintf(kind, sizeof kind, "%s", comp[0]);
  if (config_setting_type(top) == CONFIG_TYPE_GROUP) {
    obj = top;
    first = 1;
    snprintf(prefix, sizeof prefix, "%s", comp[0]);
  } else if (config_setting_type(top) == CONFIG_TYPE_LIST) {
    n = config_setting_length(top);
    for (i = 0; i < n && obj == NULL; i++) {
      config_setting_t *g = config_setting_get_elem(top, (unsigned)i);
      const char *name = element_name(g);

      if (name != NULL && strcmp(name, comp[1]) == 0)
        obj = g;
    }
    if (obj == NULL) {
      /* an unknown object: the same key on the objects that have it, else
       * every path of the list */
      if (ncomp >= 3 && strchr(comp[ncomp - 1], '[') == NULL)
        top_paths(top, comp[ncomp - 1], valid, sizeof valid);
      if (valid[0] == '\0')
        top_paths(top, NULL, valid, sizeof valid);
      goto unknown;
    }
    first = 2;
    snprintf(prefix, sizeof prefix, "%s.%s", comp[0], comp[1]);
  } else {
    all_paths(root, valid, sizeof valid);
    goto unknown;
  }
  /* groups inside the object, then the key */
  for (c = first; c < ncomp - 1; c++) {
    m = member(obj, comp[c]);
    if (m == NULL || config_setting_type(m) != CONFIG_TYPE_GROUP)
      break;
    obj = m;
    snprintf(kind + strlen(kind), sizeof kind - strlen(kind), ".%s", comp[c]);
    snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), ".%s", comp[c]);
  }
  object_paths(kind, prefix, obj, valid, sizeof valid);
  if (c != ncomp - 1 || ncomp <= first || !split_index(comp[ncomp - 1], &index))
    goto unknown;
  m = member(obj, comp[ncomp - 1]);
  if (index < 0) {
    if (m != NULL && is_number(m)) {
      *target = m;
      return VB_OK;
    }
    if (m == NULL && creatable(kind, obj, comp[ncomp - 1])) {
      *target = config_setting_add(obj, comp[ncomp - 1], CONFIG_TYPE_FLOAT);
      if (*target == NULL)
        return vb_source_fail(src, origin, "sweep", err, errlen,
                              "cannot create '%s'", path);
      return VB_OK;
    }
    goto unknown;
  }
  if (m != NULL &&
      (config_setting_type(m) == CONFIG_TYPE_ARRAY ||
       config_setting_type(m) == CONFIG_TYPE_LIST) &&
      index < config_setting_length(m) &&
      is_number(config_setting_get_elem(m, (unsigned)index))) {
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
void vb_sweep_assign(config_setting_t *target, double value,
                     const config_setting_t *origin)
{
  target->format = CONFIG_FORMAT_DEFAULT;
  if (value == floor(value) && fabs(value) < 9007199254740992.0) {
    target->type = CONFIG_TYPE_INT64;
    config_setting_set_int64(target, (long long)value);
  } else {
    target->type = CONFIG_TYPE_FLOAT;
    config_setting_set_float(target, value);
  }
  target->line = origin->line;
  target->file = origin->file;
}
