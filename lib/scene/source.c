/* source.c - the text of a scene or study file: reading it, parsing it
 * with libconfig, and the typed getters, key checks and "file:line:
 * object: what (valid: ...)" messages the rest of the loader uses. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scene.h"

/* Name of the file a setting (or an error) comes from, for messages:
 * the top file's name, or an included file's name as libconfig found it. */
static const char *
source_name(const vb_loader *ld, const char *file, char *buf, size_t size)
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
 * VB_EINVAL so that callers can write return vb_src_fail(...). */
int
vb_src_fail(const vb_loader *ld, const config_setting_t *s, const char *object, const char *fmt,
            ...)
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
    return vb_errf(ld->err, ld->errlen, VB_EINVAL, "%s:%d: %s: %s", name, line, object, what);
  return vb_errf(ld->err, ld->errlen, VB_EINVAL, "%s:%d: %s", name, line, what);
}

/* Shortest decimal text of a double that reads back to the same value. */
const char *
vb_number_text(double x, char *buf, size_t size)
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
void
vb_list_add(char *list, size_t size, const char *item)
{
  size_t used = strlen(list);

  if (used >= 3 && strcmp(list + used - 3, "...") == 0)
    return;
  if (used + strlen(item) + 2 + 5 >= size) {
    snprintf(list + used, size - used, "%s...", used > 0 ? ", " : "");
    return;
  }
  snprintf(list + used, size - used, "%s%s", used > 0 ? ", " : "", item);
}

/* Join a NULL-terminated array of keys into a comma-separated list. */
const char *
vb_key_list(const char *const *keys, char *buf, size_t size)
{
  buf[0] = '\0';
  for (; *keys != NULL; keys++)
    vb_list_add(buf, size, *keys);
  return buf;
}

/* Whether a NULL-terminated array of keys holds a key. */
int
vb_has_key(const char *const *keys, const char *key)
{
  for (; *keys != NULL; keys++)
    if (strcmp(*keys, key) == 0)
      return 1;
  return 0;
}

/* Whether every member of a group is in `allowed` (what vb_src_check_keys
 * accepts whatever its rules: they only word the refusal). */
int
vb_src_keys_allowed(const config_setting_t *group, const char *const *allowed)
{
  int n = config_setting_length(group);
  for (int i = 0; i < n; i++)
    if (!vb_has_key(allowed, config_setting_name(config_setting_get_elem(group, (unsigned)i))))
      return 0;
  return 1;
}

/* Refuse any member of a group that is not in `allowed`; keys listed in
 * `rules` get a message saying where they do apply. */
int
vb_src_check_keys(const vb_loader *ld, const config_setting_t *group, const char *object,
                  const char *const *allowed, const vb_key_rule *rules)
{
  char valid[LIST_MAX];
  int i, n = config_setting_length(group);

  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
    const char *key = config_setting_name(m);
    const vb_key_rule *r;

    if (vb_has_key(allowed, key))
      continue;
    vb_key_list(allowed, valid, sizeof valid);
    for (r = rules; r != NULL && r->key != NULL; r++)
      if (strcmp(r->key, key) == 0)
        return vb_src_fail(ld, m, object, "'%s' applies only to %s (valid: %s)", key, r->only,
                           valid);
    return vb_src_fail(ld, m, object, "unknown key '%s' (valid: %s)", key, valid);
  }
  return VB_OK;
}

/* Index the lines of text: start[k] is where line k + 1 starts; VB_OK or
 * VB_ENOMEM. */
static int
index_lines(const char *text, vb_lines *l)
{
  long n = 1, k = 1;

  for (const char *p = text; *p; p++)
    n += *p == '\n';
  l->start = malloc((size_t)n * sizeof *l->start);
  l->n = l->start ? n : 0;
  if (!l->start)
    return VB_ENOMEM;
  l->start[0] = 0;
  for (const char *p = text; *p; p++)
    if (*p == '\n')
      l->start[k++] = p + 1 - text;
  return VB_OK;
}

/* Free what a vb_included holds and itself. */
void
vb_included_free(vb_included *inc)
{
  if (!inc)
    return;
  for (int i = 0; i < inc->n; i++) {
    free(inc->path[i]);
    free(inc->text[i]);
    free(inc->lines[i].start);
  }
  free(inc);
}

/* The start of line `line` of `file` (NULL: the top text) and the file's
 * whole text in *text, or NULL: the top text through its index, an
 * included file read and indexed once per load (or, past the cache, read
 * into *owned, which the caller frees). */
static const char *
line_of(const vb_loader *ld, const char *file, int line, const char **text, char **owned)
{
  char buf[4096];
  const vb_lines *l = ld->lines;
  vb_included *inc = ld->included;
  size_t len;
  int i = 0;

  *owned = NULL;
  *text = ld->text;
  if (file != NULL) {
    const char *name = source_name(ld, file, buf, sizeof buf);
    while (inc && i < inc->n && strcmp(inc->path[i], name) != 0)
      i++;
    if (!inc || i == inc->n) {
      char *t = vb_read_text(name, VB_TEXT_MAX, &len);
      if (t == NULL)
        return NULL;
      if (!inc || inc->n == VB_INCLUDED_MAX || index_lines(t, &inc->lines[i]) != VB_OK ||
          (inc->path[i] = strdup(name)) == NULL) {
        if (inc && i < VB_INCLUDED_MAX)
          free(inc->lines[i].start);
        *owned = t;
        *text = t;
        for (const char *p = t; *p; p++)
          if (*p == '\n' && --line == 1)
            return p + 1;
        return line == 1 ? t : NULL;
      }
      inc->text[i] = t;
      inc->n++;
    }
    *text = inc->text[i];
    l = &inc->lines[i];
  }
  return l && line >= 1 && line <= l->n ? *text + l->start[line - 1] : NULL;
}

/* Whether the integer literal of a setting fitted libconfig's 32-bit int.
 * libconfig 1.5 silently wraps "k = 5000000000;" to 705032704, so the
 * literal is looked up on the setting's source line; *literal receives the
 * offending text.  Returns 1 when it fits or cannot be found. */
static int
int_literal_fits(const vb_loader *ld, const config_setting_t *s, char *literal, size_t size)
{
  const char *key = config_setting_name(s), *p, *text;
  char *owned = NULL;
  size_t klen;
  long value = config_setting_get_int(s);
  int line = config_setting_source_line(s), found_fit = 0, found_wrap = 0;

  if (key == NULL || line < 1)
    return 1;
  /* the line through an index: a scan from the top for every integer
   * made N integer settings cost N^2 */
  p = line_of(ld, config_setting_source_file(s), line, &text, &owned);
  if (p == NULL)
    return 1;
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
config_setting_t *
vb_src_member(const config_setting_t *group, const char *key)
{
  return config_setting_get_member(group, key);
}

/* The setting to point at for a key: its own line, else the group's. */
const config_setting_t *
vb_src_at(const config_setting_t *group, const char *key)
{
  const config_setting_t *m = vb_src_member(group, key);

  return m != NULL ? m : group;
}

/* Read a string member; *out is left alone when the key is absent and not
 * required. */
int
vb_src_string(const vb_loader *ld, const config_setting_t *group, const char *object,
              const char *key, int required, const char **out)
{
  const config_setting_t *m = vb_src_member(group, key);

  if (m == NULL)
    return required ? vb_src_fail(ld, group, object, "missing required key '%s'", key) : VB_OK;
  if (config_setting_type(m) != CONFIG_TYPE_STRING)
    return vb_src_fail(ld, m, object, "'%s' must be a string", key);
  *out = config_setting_get_string(m);
  return VB_OK;
}

/* Read a real member (integers accepted); *out is left alone when the key
 * is absent and not required. */
int
vb_src_number(const vb_loader *ld, const config_setting_t *group, const char *object,
              const char *key, int required, double *out)
{
  const config_setting_t *m = vb_src_member(group, key);
  char lit[64], num[32];
  double x;

  if (m == NULL)
    return required ? vb_src_fail(ld, group, object, "missing required key '%s'", key) : VB_OK;
  switch (config_setting_type(m)) {
  case CONFIG_TYPE_INT:
    if (!int_literal_fits(ld, m, lit, sizeof lit))
      return vb_src_fail(ld, m, object,
                         "'%s' = %s does not fit an integer (valid: write %s.0 or use "
                         "an exponent)",
                         key, lit, lit);
    x = (double)config_setting_get_int(m);
    break;
  case CONFIG_TYPE_INT64: x = (double)config_setting_get_int64(m); break;
  case CONFIG_TYPE_FLOAT: x = config_setting_get_float(m); break;
  default: return vb_src_fail(ld, m, object, "'%s' must be a number", key);
  }
  if (!isfinite(x))
    return vb_src_fail(ld, m, object, "'%s' must be finite (got %s)", key,
                       vb_number_text(x, num, sizeof num));
  *out = x;
  return VB_OK;
}

/* Read an integer member; *out is left alone when the key is absent and
 * not required. */
int
vb_src_integer(const vb_loader *ld, const config_setting_t *group, const char *object,
               const char *key, int required, long *out)
{
  const config_setting_t *m = vb_src_member(group, key);
  char lit[64];

  if (m == NULL)
    return required ? vb_src_fail(ld, group, object, "missing required key '%s'", key) : VB_OK;
  switch (config_setting_type(m)) {
  case CONFIG_TYPE_INT:
    if (!int_literal_fits(ld, m, lit, sizeof lit))
      return vb_src_fail(ld, m, object,
                         "'%s' = %s does not fit an integer (valid: append L for a "
                         "64-bit integer)",
                         key, lit);
    *out = config_setting_get_int(m);
    return VB_OK;
  case CONFIG_TYPE_INT64:
    if (config_setting_get_int64(m) > LONG_MAX || config_setting_get_int64(m) < LONG_MIN)
      return vb_src_fail(ld, m, object, "'%s' is out of range", key);
    *out = (long)config_setting_get_int64(m);
    return VB_OK;
  default: return vb_src_fail(ld, m, object, "'%s' must be an integer", key);
  }
}

/* Refuse a number that breaks a condition: "'k' must be > 0 (got -1)". */
int
vb_src_refuse(const vb_loader *ld, const config_setting_t *group, const char *object,
              const char *key, const char *condition, double x)
{
  char num[32];

  return vb_src_fail(ld, vb_src_at(group, key), object, "'%s' must be %s (got %s)", key, condition,
                     vb_number_text(x, num, sizeof num));
}

/* Check a body or contact name: non-empty, short, [A-Za-z0-9_-]. */
int
vb_src_check_name(const vb_loader *ld, const config_setting_t *group, const char *object,
                  const char *name)
{
  const char *p;

  if (name[0] == '\0')
    return vb_src_fail(ld, vb_src_at(group, "name"), object, "'name' must not be empty");
  if (strlen(name) >= VB_NAME_MAX)
    return vb_src_fail(ld, vb_src_at(group, "name"), object,
                       "'name' is too long (valid: at most %d characters)", VB_NAME_MAX - 1);
  for (p = name; *p != '\0'; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
      return vb_src_fail(ld, vb_src_at(group, "name"), object,
                         "invalid name '%s' (valid: letters, digits, '_' and '-')", name);
  return VB_OK;
}

/* Location "FILE:LINE" of a setting, for "first defined at" messages. */
const char *
vb_src_where(const vb_loader *ld, const config_setting_t *s, char *buf, size_t size)
{
  char file[4096];
  const char *name = source_name(ld, config_setting_source_file(s), file, sizeof file);

  snprintf(buf, size, "%s:%d", name, (int)config_setting_source_line(s));
  return buf;
}

/* A data file named in the scene, relative to the scene's directory. */
void
vb_src_data_path(vb_loader *ld, const char *file, char *buf, size_t size)
{
  if (file[0] == '/' || ld->incdir == NULL)
    snprintf(buf, size, "%s", file);
  else
    snprintf(buf, size, "%s/%s", ld->incdir, file);
  vb_inputs_add(ld->files, buf, NULL, 0);
  if (ld->files == NULL && ld->changed == NULL &&
      vb_inputs_changed(ld->expect, buf, &ld->changed_then, &ld->changed_now))
    ld->changed = strdup(buf); /* out of memory: unchecked, as when unlisted */
}

/* Read a numeric array (or, when scalar_ok, one number applied to all n)
 * into out[n]; n < 0 takes the array's own length into *count.  Absent and
 * not required leaves out alone and returns VB_OK with *present = 0. */
int
vb_src_array(const vb_loader *ld, const config_setting_t *group, const char *object,
             const char *key, int required, int scalar_ok, int n, double **out, int *count,
             int *present)
{
  config_setting_t *m = vb_src_member(group, key);
  int len, i;

  if (present)
    *present = m != NULL;
  if (m == NULL)
    return required ? vb_src_fail(ld, group, object, "missing required key '%s'", key) : VB_OK;
  int type = config_setting_type(m);
  if (scalar_ok &&
      (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 || type == CONFIG_TYPE_FLOAT)) {
    double x;
    int rc = vb_src_number(ld, group, object, key, 1, &x);
    if (rc != VB_OK)
      return rc;
    for (i = 0; i < n; i++)
      (*out)[i] = x;
    return VB_OK;
  }
  if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
    return vb_src_fail(ld, m, object, "'%s' must be an array of numbers%s", key,
                       scalar_ok ? " or one number" : "");
  len = config_setting_length(m);
  if (n >= 0 && len != n)
    return vb_src_fail(ld, m, object, "'%s' has %d values (valid: one per mode, %d)", key, len, n);
  if (n < 0) {
    *out = malloc(((size_t)len + 1) * sizeof(double));
    if (*out == NULL)
      return vb_src_fail(ld, m, object, "out of memory");
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
      return vb_src_fail(ld, m, object, "'%s' must be an array of numbers", key);
    if (!isfinite(x))
      return vb_src_fail(ld, m, object, "'%s' must be finite", key);
    (*out)[i] = x;
  }
  return VB_OK;
}

/* A boolean member; *out left alone when absent. */
int
vb_src_bool(const vb_loader *ld, const config_setting_t *group, const char *object, const char *key,
            int *out)
{
  const config_setting_t *m = vb_src_member(group, key);
  if (m == NULL)
    return VB_OK;
  if (config_setting_type(m) != CONFIG_TYPE_BOOL)
    return vb_src_fail(ld, m, object, "'%s' must be true or false", key);
  *out = config_setting_get_bool(m);
  return VB_OK;
}

/* Directory part of a path ("a/b.cfg" -> "a", "/b.cfg" -> "/"), or NULL
 * when the path has none; *status is VB_ENOMEM if the copy failed. */
static char *
directory_of(const char *path, int *status)
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
void
vb_loader_init(vb_loader *ld, const vb_source *src, char *err, size_t errlen, vb_scene *scene)
{
  ld->path = src->path;
  ld->text = src->text;
  ld->incdir = src->incdir;
  ld->err = err;
  ld->errlen = errlen;
  ld->scene = scene;
  ld->files = src->files;
  ld->expect = src->expect;
  ld->changed = NULL;
  ld->changed_then = ld->changed_now = 0;
  ld->lines = &src->lines;
  ld->included = scene ? calloc(1, sizeof *ld->included) : NULL; /* NULL: read each time */
  ld->bodies = (vb_names){0};
  ld->points = NULL;
  ld->dup_of = NULL;
  ld->dup_at = ld->dup_first = -1;
}


/* Free what a source holds; a zeroed source is a no-op. */
void
vb_source_clear(vb_source *src)
{
  free(src->path);
  free(src->text);
  free(src->incdir);
  vb_inputs_clear(src->files);
  vb_inputs_clear(src->expect);
  free(src->expect);
  free(src->files);
  free(src->lines.start);
  memset(src, 0, sizeof *src);
}

/* Fill src from `text` (owned: kept in src or freed) of length len. */
static int
adopt_text(char *text, size_t len, const char *path, vb_source *src, char *err, size_t errlen)
{
  int rc;

  memset(src, 0, sizeof *src);
  src->text = text;
  src->incdir = directory_of(path, &rc);
  src->files = calloc(1, sizeof *src->files);
  if (rc != VB_OK || (src->path = strdup(path)) == NULL || src->files == NULL ||
      index_lines(text, &src->lines) != VB_OK) {
    vb_source_clear(src);
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the scene", path);
  }
  if (strlen(text) != len) {
    const char *p;
    int line = 1;

    for (p = text; *p != '\0'; p++)
      line += *p == '\n';
    vb_source_clear(src);
    return vb_errf(err, errlen, VB_EINVAL, "%s:%d: syntax error: NUL byte in the scene file", path,
                   line);
  }
  vb_inputs_add(src->files, path, text, len);
  return VB_OK;
}

/* Read a scene or study file. */
int
vb_source_read(const char *path, vb_source *src, char *err, size_t errlen)
{
  size_t len = 0;
  char *text;

  memset(src, 0, sizeof *src);
  text = vb_read_text(path, VB_TEXT_MAX, &len);
  if (text == NULL && errno == EFBIG)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: larger than %zu MiB (valid: a scene file "
                   "of at most %zu MiB)",
                   path, VB_TEXT_MAX >> 20, VB_TEXT_MAX >> 20);
  if (text == NULL) {
    int e = errno;

    return vb_errf(err, errlen, e == ENOMEM ? VB_ENOMEM : VB_EIO, "%s: cannot read scene file: %s",
                   path, strerror(e));
  }
  return adopt_text(text, len, path, src, err, errlen);
}

/* Copy a scene or study text, named `path` in messages. */
int
vb_source_copy(const char *text, const char *path, vb_source *src, char *err, size_t errlen)
{
  size_t len = strlen(text);
  char *copy = malloc(len + 1);

  memset(src, 0, sizeof *src);
  if (copy == NULL)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the scene", path);
  memcpy(copy, text, len + 1);
  return adopt_text(copy, len, path, src, err, errlen);
}

/* Parse a source with libconfig into cfg (initialised here). */
int
vb_source_parse(const vb_source *src, config_t *cfg, char *err, size_t errlen)
{
  vb_loader ld;
  char file[4096];

  vb_loader_init(&ld, src, err, errlen, NULL);
  config_init(cfg);
  config_set_options(cfg, config_get_options(cfg) | CONFIG_OPTION_AUTOCONVERT);
  if (src->incdir != NULL) /* libconfig 1.5 crashes on NULL */
    config_set_include_dir(cfg, src->incdir);
  int rc = vb_source_check(src, err, errlen);
  if (rc != VB_OK)
    return rc;
  if (config_read_string(cfg, src->text))
    return VB_OK;
  /* libconfig's own text is mostly the bare "syntax error": say what to
   * look for rather than repeat it ("syntax error: syntax error") */
  const char *why = config_error_text(cfg);
  if (!why || strcmp(why, "syntax error") == 0)
    why = "libconfig cannot parse this line (look for a missing value, ';' after a "
          "setting, ',' between list elements, or an unclosed '{', '(', '[' or '\"')";
  return vb_errf(err, errlen, VB_EINVAL, "%s:%d: syntax error: %s",
                 source_name(&ld, config_error_file(cfg), file, sizeof file),
                 config_error_line(cfg), why);
}

/* Report a problem with a setting of a source as "FILE:LINE: OBJECT: what". */
int
vb_source_fail(const vb_source *src, const config_setting_t *s, const char *object, char *err,
               size_t errlen, const char *fmt, ...)
{
  char what[1024];
  va_list ap;
  vb_loader ld;

  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  vb_loader_init(&ld, src, err, errlen, NULL);
  return vb_src_fail(&ld, s, object, "%s", what);
}

/* The keys of variant `self` of an object and the rules for the keys of
 * the other variants; see scene/scene.h. */
int
vb_variant_keys(const char *word, int nvariants, const char *const *names,
                const char *const *const *keys, int self, const char **out, int *n,
                vb_key_rule *rules, char (*buf)[LIST_MAX])
{
  int nr = 0;

  for (int v = 0; out != NULL && v < nvariants; v++)
    for (const char *const *k = keys[v]; *k != NULL && (self < 0 || v == self); k++) {
      int seen = 0;
      for (int j = 0; j < *n && !seen; j++)
        seen = strcmp(out[j], *k) == 0;
      if (!seen && *n < VB_VARIANT_KEYS_MAX) /* never past the caller's room */
        out[(*n)++] = *k;
    }
  if (self < 0 || rules == NULL)
    return 0;
  for (int v = 0; v < nvariants; v++)
    for (const char *const *k = keys[v]; *k != NULL; k++) {
      const char *where[VB_VARIANTS_MAX];
      int nw = 0, seen = 0;
      if (vb_has_key(keys[self], *k))
        continue;
      for (int j = 0; j < nr && !seen; j++)
        seen = strcmp(rules[j].key, *k) == 0;
      if (seen || nr == VB_VARIANT_KEYS_MAX)
        continue;
      for (int u = 0; u < nvariants && nw < VB_VARIANTS_MAX; u++)
        if (vb_has_key(keys[u], *k))
          where[nw++] = names[u];
      if (nw == 1) {
        snprintf(buf[nr], LIST_MAX, "%s '%s'", word, where[0]);
      } else {
        snprintf(buf[nr], LIST_MAX, "%ss", word);
        for (int u = 0; u < nw; u++)
          snprintf(buf[nr] + strlen(buf[nr]), LIST_MAX - strlen(buf[nr]), "%s %s",
                   u == 0        ? ""
                   : u == nw - 1 ? " and"
                                 : ",",
                   where[u]);
      }
      rules[nr].key = *k;
      rules[nr].only = buf[nr];
      nr++;
    }
  rules[nr].key = NULL;
  return nr;
}
