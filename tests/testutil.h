/* testutil.h - helpers shared by the Check tests: run a scene from text or
 * from a file of scenes/ with some keys replaced, as `vibro run` would. */
#ifndef VIBRO_TESTUTIL_H
#define VIBRO_TESTUTIL_H

/* Whether n bytes at a and b are equal, n = 0 (a NULL event table: made at
 * a contact's first event) included, which memcmp may not be given. */
#define VB_MEMEQ(a, b, n) ((n) == 0 || memcmp((a), (b), (n)) == 0)

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vibro.h"

/* A loaded scene and its finished run; free with tu_free. */
typedef struct {
  vb_scene *scene;
  vb_run *run;
  int rc;
} tu_sim;

/* Load text as a scene and run it; fails the test on a load error. */
static inline tu_sim
tu_run_text(const char *text)
{
  tu_sim s = { NULL, NULL, 0 };
  char err[1024];
  int rc = vb_scene_load_string(text, "test.cfg", &s.scene, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "scene did not load: %s", err);
  rc = vb_run_alloc(s.scene, &s.run, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "run did not allocate: %s", err);
  s.rc = vb_run_exec(s.run);
  return s;
}

static inline void
tu_free(tu_sim *s)
{
  vb_run_free(s->run);
  vb_scene_free(s->scene);
}

/* Text of a file under the source tree; the caller frees it. */
static inline char *
tu_read(const char *relpath)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TEST_SRCDIR, relpath);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  ck_assert(text != NULL);
  ck_assert(fread(text, 1, (size_t)n, f) == (size_t)n);
  text[n] = '\0';
  fclose(f);
  return text;
}

/* Replace the first occurrence of `from` in *text by `to` (must exist). */
static inline void
tu_replace(char **text, const char *from, const char *to)
{
  char *at = strstr(*text, from);
  ck_assert_msg(at != NULL, "'%s' not found in scene text", from);
  size_t n = strlen(*text), nf = strlen(from), nt = strlen(to);
  char *out = malloc(n - nf + nt + 1);
  ck_assert(out != NULL);
  size_t head = (size_t)(at - *text);
  memcpy(out, *text, head);
  memcpy(out + head, to, nt);
  strcpy(out + head + nt, at + nf);
  free(*text);
  *text = out;
}

/* Run a scene of scenes/ with the given (from, to) replacements. */
static inline tu_sim
tu_run_file(const char *relpath, const char *const *repl, int nrepl)
{
  char *text = tu_read(relpath);
  for (int i = 0; i < nrepl; i++)
    tu_replace(&text, repl[2 * i], repl[2 * i + 1]);
  tu_sim s = tu_run_text(text);
  free(text);
  return s;
}

/* Run a Check suite; the exit status of a test program. */
static inline int
tu_main(Suite *suite)
{
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A growing text buffer for building scenes. */
typedef struct {
  char *s;
  size_t n, cap;
} text;

/* Append printf-style text to t (grown as needed). */
static inline void
add(text *t, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    t->cap = 2 * (t->cap + (size_t)k + 64);
    t->s = realloc(t->s, t->cap);
    ck_assert(t->s != NULL);
  }
}

/* Max and min of a signal. */
static inline void
range(const double *x, long n, double *lo, double *hi)
{
  *lo = *hi = x[0];
  for (long i = 1; i < n; i++) {
    *lo = fmin(*lo, x[i]);
    *hi = fmax(*hi, x[i]);
  }
}

#endif
