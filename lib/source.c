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

#include "source.h"

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

  if (used > 0 && strcmp(list + used - 3, "...") == 0)
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

/* Read a whole file into a NUL-terminated buffer; NULL with errno set on
 * failure.  *len receives the number of bytes read. */
char *
vb_read_text(const char *path, size_t max, size_t *len)
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
    got = fread(buf + n, 1, cap - n - 1 < max + 1 - n ? cap - n - 1 : max + 1 - n, f);
    /* binary content: stop at the first NUL (the caller sees it as
     * strlen < len), so /dev/zero cannot make the read go on forever */
    if (got > 0 && memchr(buf + n, '\0', got) != NULL) {
      n += got;
      break;
    }
    n += got;
    if (n > max) {
      free(buf);
      fclose(f);
      errno = EFBIG;
      return NULL;
    }
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
static int
int_literal_fits(const vb_loader *ld, const config_setting_t *s, char *literal, size_t size)
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
    owned = vb_read_text(source_name(ld, config_setting_source_file(s), file, sizeof file),
                         VB_TEXT_MAX, &len);
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
vb_src_data_path(const vb_loader *ld, const char *file, char *buf, size_t size)
{
  if (file[0] == '/' || ld->incdir == NULL)
    snprintf(buf, size, "%s", file);
  else
    snprintf(buf, size, "%s/%s", ld->incdir, file);
  vb_inputs_add(ld->files, buf, NULL, 0);
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
  free(src->files);
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
  if (rc != VB_OK || (src->path = strdup(path)) == NULL || src->files == NULL) {
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

/* Deepest chain of @include files (libconfig 1.5 stops at 10). */
#define INCLUDE_DEPTH_MAX 10

/* The @include files of one text as libconfig would open them: each line
 * whose first token is @include "name", outside block comments. */
typedef struct include_check {
  const vb_source *src;
  char *err;
  size_t errlen;
  char *chain[INCLUDE_DEPTH_MAX + 1]; /* real paths of the files being read */
  int depth;
} include_check;

static int check_includes(include_check *ic, const char *text, const char *name);

/* Check one @include "file" of `name` at `line`: a non-empty name of a
 * regular, readable text file (no NUL byte, at most VB_TEXT_MAX bytes)
 * that is not being read already, then the files it includes. */
static int
check_include(include_check *ic, const char *name, int line, const char *file)
{
  char path[4200], *real, *text;
  struct stat st;
  size_t len = 0;
  int rc, i;

  if (file[0] == '\0')
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include \"\": empty file name "
                   "(valid: the name of a scene file)",
                   name, line);
  if (file[0] == '/' || ic->src->incdir == NULL)
    snprintf(path, sizeof path, "%s", file);
  else
    snprintf(path, sizeof path, "%s/%s", ic->src->incdir, file);
  if (stat(path, &st) != 0)
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include '%s': cannot read "
                   "'%s': %s",
                   name, line, file, path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include '%s': '%s' is a "
                   "directory (valid: a scene file)",
                   name, line, file, path);
  if (!S_ISREG(st.st_mode))
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include '%s': '%s' is not a "
                   "regular file (valid: a scene file)",
                   name, line, file, path);
  real = realpath(path, NULL);
  if (real == NULL)
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include '%s': cannot read "
                   "'%s': %s",
                   name, line, file, path, strerror(errno));
  for (i = 0; i < ic->depth; i++)
    if (ic->chain[i] != NULL && strcmp(ic->chain[i], real) == 0) {
      free(real);
      return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                     "%s:%d: @include '%s': '%s' includes "
                     "itself (valid: includes that do not form a cycle)",
                     name, line, file, path);
    }
  if (ic->depth >= INCLUDE_DEPTH_MAX) {
    free(real);
    return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                   "%s:%d: @include '%s': includes nested "
                   "deeper than %d files",
                   name, line, file, INCLUDE_DEPTH_MAX);
  }
  text = vb_read_text(path, VB_TEXT_MAX, &len);
  if (text == NULL || strlen(text) != len) {
    int e = errno;
    free(real);
    free(text);
    return vb_errf(ic->err, ic->errlen, VB_EINVAL, "%s:%d: @include '%s': %s '%s'%s%s", name, line,
                   file, text ? "binary content (a NUL byte) in" : "cannot read", path,
                   text ? "" : ": ",
                   text         ? ""
                   : e == EFBIG ? "larger than 64 MiB"
                                : strerror(e));
  }
  vb_inputs_add(ic->src->files, path, text, len);
  ic->chain[ic->depth++] = real;
  rc = check_includes(ic, text, path);
  free(ic->chain[--ic->depth]);
  ic->chain[ic->depth] = NULL;
  free(text);
  return rc;
}

/* Check every @include of a text named `name`, before libconfig sees it:
 * libconfig 1.5's scanner calls exit(2) on a directory or an empty name,
 * reads a device forever, and says only "nesting too deep" of a cycle. */
static int
check_includes(include_check *ic, const char *text, const char *name)
{
  int line = 1, in_comment = 0, rc;

  if ((rc = vb_src_check_literals(text, name, ic->err, ic->errlen)) != VB_OK)
    return rc;
  for (const char *p = text; *p != '\0'; line++) {
    const char *eol = strchr(p, '\n'), *q = p;
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    /* block comments that span lines: the rest of the line after the end */
    for (const char *c = p; c < p + n; c++) {
      if (!in_comment && c[0] == '/' && c[1] == '*') {
        in_comment = 1;
        c++;
      } else if (in_comment && c[0] == '*' && c[1] == '/') {
        in_comment = 0;
        q = c + 2;
        c++;
      }
    }
    while (q < p + n && (*q == ' ' || *q == '\t'))
      q++;
    if (!in_comment && strncmp(q, "@include", 8) == 0) {
      char file[4096];
      const char *open = strchr(q + 8, '"'), *close;
      size_t fl;
      if (open == NULL || open > p + n || (close = strchr(open + 1, '"')) == NULL || close > p + n)
        return vb_errf(ic->err, ic->errlen, VB_EINVAL,
                       "%s:%d: @include needs a quoted "
                       "file name (valid: @include \"file.cfg\")",
                       name, line);
      fl = (size_t)(close - open - 1) < sizeof file ? (size_t)(close - open - 1) : sizeof file - 1;
      memcpy(file, open + 1, fl);
      file[fl] = '\0';
      if ((rc = check_include(ic, name, line, file)) != VB_OK)
        return rc;
    }
    p = eol ? eol + 1 : p + n;
  }
  return VB_OK;
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
  {
    include_check ic = {.src = src, .err = err, .errlen = errlen};
    int rc;
    ic.chain[0] = realpath(src->path, NULL); /* NULL for text not from a file */
    ic.depth = 1;
    rc = check_includes(&ic, src->text, src->path);
    free(ic.chain[0]);
    if (rc != VB_OK)
      return rc;
  }
  if (config_read_string(cfg, src->text))
    return VB_OK;
  return vb_errf(err, errlen, VB_EINVAL, "%s:%d: syntax error: %s",
                 source_name(&ld, config_error_file(cfg), file, sizeof file),
                 config_error_line(cfg),
                 config_error_text(cfg) ? config_error_text(cfg) : "unknown");
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
 * the other variants; see source.h. */
int
vb_variant_keys(const char *word, int nvariants, const char *const *names,
                const char *const *const *keys, int self, const char **out, int *n,
                vb_key_rule *rules, char (*buf)[LIST_MAX])
{
  int nr = 0;

  for (int v = 0; v < nvariants; v++)
    for (const char *const *k = keys[v]; *k != NULL && (self < 0 || v == self); k++) {
      int seen = 0;
      for (int j = 0; j < *n && !seen; j++)
        seen = strcmp(out[j], *k) == 0;
      if (!seen)
        out[(*n)++] = *k;
    }
  if (self < 0)
    return 0;
  for (int v = 0; v < nvariants; v++)
    for (const char *const *k = keys[v]; *k != NULL; k++) {
      const char *where[VB_VARIANTS_MAX];
      int nw = 0, seen = 0;
      if (vb_has_key(keys[self], *k))
        continue;
      for (int j = 0; j < nr && !seen; j++)
        seen = strcmp(rules[j].key, *k) == 0;
      if (seen)
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
