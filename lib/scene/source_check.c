/* source_check.c - what a scene's text must pass before libconfig 1.5
 * parses it: its @include files (libconfig exits on a directory or an
 * empty name, reads a device for ever and says only "nesting too deep" of
 * a cycle), and its integer literals, which libconfig keeps in 32 bits
 * without L, so that "fs = 0x10000AC44;" silently reads as 44100 and
 * "shape = [5000000000, ...]" as 705032704.  Every text the loader parses
 * (the scene and each @include) is scanned once.  (A named decimal
 * scalar, "k = 5000000000;", is refused at its key with the key's name:
 * int_literal_fits in source.c.) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scene.h"

/* Deepest nesting of groups, lists and arrays this scan follows. */
#define NEST_MAX 256

/* Skip a comment or string at p (counting lines); p itself when none. */
static const char *
skip_text(const char *p, int *line)
{
  if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
    while (*p && *p != '\n')
      p++;
  } else if (p[0] == '/' && p[1] == '*') {
    for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
      *line += *p == '\n';
    p += *p ? 2 : 0;
  } else if (*p == '"') {
    for (p++; *p && *p != '"' && *p != '\n'; p++)
      if (*p == '\\' && p[1])
        p++;
    p += *p == '"';
  }
  return p;
}

/* Check the integer literal at p (a digit, or a sign and a digit); *end
 * receives its end.  0 when libconfig keeps its value (a float, an L
 * literal, one that fits 32 bits, or a named decimal scalar: `element`
 * is 0), else -1. */
static int
literal_fits(const char *p, int element, const char **end)
{
  const char *q = p + (*p == '-' || *p == '+');
  char *e;
  int hex = q[0] == '0' && (q[1] == 'x' || q[1] == 'X');

  errno = 0;
  if (hex) {
    unsigned long long v = strtoull(q + 2, &e, 16);
    *end = e;
    return *e == 'L' || (errno == 0 && v <= INT_MAX) ? 0 : -1;
  }
  long long v = strtoll(p, &e, 10);
  *end = e;
  if (*e == '.' || *e == 'e' || *e == 'E') { /* a float: skip it whole */
    (void)strtod(p, &e);
    *end = e;
    return 0;
  }
  return *e == 'L' || !element || (errno == 0 && v >= INT_MIN && v <= INT_MAX) ? 0 : -1;
}

/* Refuse an integer literal of text `name` that libconfig would keep in
 * 32 bits wrongly: "FILE:LINE: integer literal 0x10000AC44 does not fit
 * 32 bits (valid: ...)"; VB_OK or VB_EINVAL. */
int
vb_src_check_literals(const char *text, const char *name, char *err, size_t errlen)
{
  char nest[NEST_MAX];
  int depth = 0, line = 1;
  const char *p = text, *end;

  while (*p) {
    const char *s = skip_text(p, &line);
    if (s != p) {
      p = s;
      continue;
    }
    if (*p == '\n')
      line++;
    if (*p == '{' || *p == '[' || *p == '(') {
      if (depth < NEST_MAX)
        nest[depth] = *p;
      depth++;
    } else if ((*p == '}' || *p == ']' || *p == ')') && depth > 0) {
      depth--;
    }
    if (isalpha((unsigned char)*p) || *p == '_' || *p == '*' || *p == '@') {
      while (isalnum((unsigned char)*p) || (*p != '\0' && strchr("_*-@", *p) != NULL))
        p++;
      continue;
    }
    if (isdigit((unsigned char)*p) ||
        ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))) {
      int element = depth > 0 && depth <= NEST_MAX && nest[depth - 1] != '{';
      if (literal_fits(p, element, &end) < 0)
        return vb_errf(err, errlen, VB_EINVAL,
                       "%s:%d: integer literal %.*s does not fit 32 bits, and libconfig would "
                       "keep a wrong value (valid: append L for a 64-bit integer, or write "
                       "a decimal number with a decimal point)",
                       name, line, (int)(end - p < 40 ? end - p : 40), p);
      p = end > p ? end : p + 1;
      continue;
    }
    p++;
  }
  return VB_OK;
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

/* Check the @include files and integer literals of a source's text (and of
 * each file it includes) before libconfig parses it. */
int
vb_source_check(const vb_source *src, char *err, size_t errlen)
{
  include_check ic = {.src = src, .err = err, .errlen = errlen};
  int rc;

  ic.chain[0] = realpath(src->path, NULL); /* NULL for text not from a file */
  ic.depth = 1;
  rc = check_includes(&ic, src->text, src->path);
  free(ic.chain[0]);
  return rc;
}
