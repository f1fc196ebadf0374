/* literals.c - integer literals libconfig 1.5 would keep wrong: it keeps
 * a literal without L in 32 bits, so "fs = 0x10000AC44;" silently reads
 * as 44100 and "shape = [5000000000, ...]" as 705032704.  Every text the
 * loader parses (the scene and each @include) is scanned once before
 * libconfig sees it.  (A named decimal scalar, "k = 5000000000;", is
 * refused at its key with the key's name: int_literal_fits in source.c.) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

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
      while (isalnum((unsigned char)*p) || strchr("_*-@", *p) != NULL)
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
