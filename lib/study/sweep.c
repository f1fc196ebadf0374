/* sweep.c - the sweep block of a study file: its parameters, their values,
 * and the expansion into scenes.
 *
 *   sweep = {
 *     mode = "grid";        # cartesian product, first parameter slowest;
 *                           # "zip": parameters of equal length side by side;
 *                           # "random": n scenes drawn with `seed`
 *     params = (
 *       { path = "contacts.hit.k";   logspace = [1.0e6, 1.0e10]; n = 33; },
 *       { path = "bodies.hammer.v0"; values = [0.5, 1.0, 2.0]; },
 *       { path = "scene.fs";         linspace = [22050.0, 176400.0]; n = 8; }
 *     );
 *   };
 *
 * In random mode each parameter takes uniform = [lo, hi], loguniform =
 * [lo, hi] (lo > 0) or values = [...] (one picked uniformly).  Draws come
 * from splitmix64: draw number scene * nparams + p of the stream seeded
 * with `seed`, so scene i's values do not depend on how scenes are
 * distributed over threads or ranks.  Paths are checked against the scene
 * by the caller (vb_sweep_target in sweep_path.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "study.h"

/* A linspace or logspace longer than this is described by its ends and
 * count, not by its values. */
#define DESCRIBE_VALUES_MAX 10000

/* Room for the canonical text of one parameter. */
#define LINE_MAX_LEN 4096

typedef enum { MODE_GRID = 0, MODE_ZIP, MODE_RANDOM } mode_kind;

typedef enum {
  SPEC_VALUES = 0,
  SPEC_LINSPACE,
  SPEC_LOGSPACE,
  SPEC_UNIFORM,
  SPEC_LOGUNIFORM,
  SPEC_COUNT
} spec_kind;

static const char *const mode_names[] = {"grid", "zip", "random"};
static const char *const spec_names[] = {"values", "linspace", "logspace", "uniform", "loguniform"};

/* One swept parameter. */
typedef struct param {
  char *path; /* e.g. "contacts.hit.k" */
  spec_kind spec;
  double *values; /* [nvalues] values, linspace, logspace; random 'values' */
  long nvalues;
  double lo, hi; /* uniform, loguniform bounds */
  long stride;   /* grid: scenes between two steps of this parameter */
} param;

struct vb_sweep {
  mode_kind mode;
  int nparams;
  param *params; /* [nparams] */
  long nscenes;
  unsigned long long seed;
  char *text; /* canonical description, one parameter a line */
};

/* A number setting, integers accepted; 0 if not a finite number. */
static int
read_number(const config_setting_t *s, double *x)
{
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_INT: *x = config_setting_get_int(s); break;
  case CONFIG_TYPE_INT64: *x = (double)config_setting_get_int64(s); break;
  case CONFIG_TYPE_FLOAT: *x = config_setting_get_float(s); break;
  default: return 0;
  }
  return isfinite(*x);
}

/* An integer setting; 0 if it is not an integer. */
static int
read_integer(const config_setting_t *s, long long *x)
{
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_INT: *x = config_setting_get_int(s); return 1;
  case CONFIG_TYPE_INT64: *x = config_setting_get_int64(s); return 1;
  default: return 0;
  }
}

/* Whether a setting is an array or a list. */
static int
is_sequence(const config_setting_t *s)
{
  return config_setting_type(s) == CONFIG_TYPE_ARRAY || config_setting_type(s) == CONFIG_TYPE_LIST;
}

/* Free a sweep; NULL is a no-op. */
void
vb_sweep_free(vb_sweep *sweep)
{
  int p;

  if (sweep == NULL)
    return;
  for (p = 0; p < sweep->nparams; p++) {
    free(sweep->params[p].path);
    free(sweep->params[p].values);
  }
  free(sweep->params);
  free(sweep->text);
  free(sweep);
}

/* Refuse any key of a group outside `allowed`, through the loader's one
 * key check; keys in `rules` are told where they apply. */
static int
check_keys(const vb_source *src, const config_setting_t *g, const char *const *allowed,
           const vb_key_rule *rules, char *err, size_t errlen)
{
  vb_loader ld;

  vb_loader_init(&ld, src, err, errlen, NULL);
  return vb_src_check_keys(&ld, g, "sweep", allowed, rules);
}

/* Read `key` = [first, last] of a parameter group. */
static int
read_pair(const vb_source *src, const config_setting_t *m, double *a, double *b, char *err,
          size_t errlen)
{
  const char *key = config_setting_name(m);

  if (!is_sequence(m) || config_setting_length(m) != 2 ||
      !read_number(config_setting_get_elem(m, 0), a) ||
      !read_number(config_setting_get_elem(m, 1), b))
    return vb_source_fail(
        src, m, "sweep", err, errlen, "'%s' must be two finite numbers [%s, %s]", key,
        strcmp(key, "uniform") == 0 || strcmp(key, "loguniform") == 0 ? "lo" : "first",
        strcmp(key, "uniform") == 0 || strcmp(key, "loguniform") == 0 ? "hi" : "last");
  return VB_OK;
}

/* Expand linspace or logspace into n values; the ends are exact and
 * point i is (a (n-1-i) + b i) / (n-1), in log10 for logspace. */
static int
spaced(param *pr, double a, double b, long n)
{
  long i;

  pr->values = malloc((size_t)n * sizeof *pr->values);
  if (pr->values == NULL)
    return VB_ENOMEM;
  pr->nvalues = n;
  for (i = 0; i < n; i++) {
    double t;

    if (n == 1 || i == 0) {
      pr->values[i] = a;
      continue;
    }
    if (i == n - 1) {
      pr->values[i] = b;
      continue;
    }
    if (pr->spec == SPEC_LINSPACE) {
      pr->values[i] = (a * (double)(n - 1 - i) + b * (double)i) / (double)(n - 1);
      /* ends near DBL_MAX overflow the sum of the weighted ends: weigh
       * them first (a convex combination of finite values is finite) */
      if (!isfinite(pr->values[i]))
        pr->values[i] = a * ((double)(n - 1 - i) / (double)(n - 1)) +
                        b * ((double)i / (double)(n - 1));
    } else {
      t = (log10(a) * (double)(n - 1 - i) + log10(b) * (double)i) / (double)(n - 1);
      pr->values[i] = pow(10.0, t);
    }
  }
  return VB_OK;
}

/* Read `values` = [...] of a parameter group. */
static int
read_values(const vb_source *src, const config_setting_t *spec, param *pr, char *err, size_t errlen)
{
  int i;

  if (!is_sequence(spec) || config_setting_length(spec) < 1)
    return vb_source_fail(src, spec, "sweep", err, errlen,
                          "'values' must be a non-empty array of numbers");
  pr->nvalues = config_setting_length(spec);
  pr->values = malloc((size_t)pr->nvalues * sizeof *pr->values);
  if (pr->values == NULL)
    return VB_ENOMEM;
  for (i = 0; i < pr->nvalues; i++)
    if (!read_number(config_setting_get_elem(spec, (unsigned)i), &pr->values[i]))
      return vb_source_fail(src, spec, "sweep", err, errlen,
                            "'values' must be a non-empty array of numbers (element "
                            "%d is not a finite number)",
                            i);
  return VB_OK;
}

/* Read one parameter group; `mode` decides which value specs apply. */
static int
read_param(const vb_source *src, const config_setting_t *g, mode_kind mode, param *pr, char *err,
           size_t errlen)
{
  static const char *const grid_keys[] = {"path", "values", "linspace", "logspace", "n", NULL};
  static const vb_key_rule grid_else[] = {
      {"uniform", "mode 'random'"}, {"loguniform", "mode 'random'"}, {NULL, NULL}};
  static const char *const random_keys[] = {"path", "values", "uniform", "loguniform", NULL};
  static const vb_key_rule random_else[] = {{"linspace", "modes 'grid' and 'zip'"},
                                            {"logspace", "modes 'grid' and 'zip'"},
                                            {"n", "modes 'grid' and 'zip'"},
                                            {NULL, NULL}};
  const config_setting_t *m, *spec = NULL, *nset;
  long long n = 0;
  double a, b;
  int rc, k;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_source_fail(src, g, "sweep", err, errlen,
                          "each parameter must be a group { path = ...; values = ...; }");
  rc = mode == MODE_RANDOM ? check_keys(src, g, random_keys, random_else, err, errlen)
                           : check_keys(src, g, grid_keys, grid_else, err, errlen);
  if (rc != VB_OK)
    return rc;
  m = config_setting_get_member(g, "path");
  if (m == NULL)
    return vb_source_fail(src, g, "sweep", err, errlen, "missing required key 'path'");
  if (config_setting_type(m) != CONFIG_TYPE_STRING)
    return vb_source_fail(src, m, "sweep", err, errlen, "'path' must be a string");
  pr->path = strdup(config_setting_get_string(m));
  if (pr->path == NULL)
    return VB_ENOMEM;

  /* exactly one value spec */
  for (k = 0; k < SPEC_COUNT; k++) {
    const config_setting_t *s = config_setting_get_member(g, spec_names[k]);

    if (s == NULL)
      continue;
    if (spec != NULL)
      return vb_source_fail(src, s, "sweep", err, errlen,
                            "parameter '%s' has both '%s' and '%s' (valid: one of "
                            "them)",
                            pr->path, spec_names[pr->spec], spec_names[k]);
    spec = s;
    pr->spec = (spec_kind)k;
  }
  if (spec == NULL)
    return vb_source_fail(
        src, g, "sweep", err, errlen, "parameter '%s' has no values (valid: %s)", pr->path,
        mode == MODE_RANDOM ? "values, uniform, loguniform" : "values, linspace, logspace");
  nset = config_setting_get_member(g, "n");
  if (nset != NULL && pr->spec == SPEC_VALUES)
    return vb_source_fail(src, nset, "sweep", err, errlen,
                          "'n' applies only to linspace and logspace (valid: path, "
                          "values)");

  switch (pr->spec) {
  case SPEC_VALUES: return read_values(src, spec, pr, err, errlen);
  case SPEC_LINSPACE:
  case SPEC_LOGSPACE:
    if ((rc = read_pair(src, spec, &a, &b, err, errlen)) != VB_OK)
      return rc;
    if (nset == NULL)
      return vb_source_fail(src, g, "sweep", err, errlen, "missing required key 'n' for '%s'",
                            spec_names[pr->spec]);
    if (!read_integer(nset, &n) || n < 1 || n > VB_STUDY_MAX_SCENES)
      return vb_source_fail(src, nset, "sweep", err, errlen,
                            "'n' must be an integer between 1 and %ld", VB_STUDY_MAX_SCENES);
    if (pr->spec == SPEC_LOGSPACE && !(a > 0 && b > 0))
      return vb_source_fail(src, spec, "sweep", err, errlen,
                            "'logspace' must be two numbers > 0 (valid: use linspace "
                            "for signed ranges)");
    return spaced(pr, a, b, (long)n);
  default:
    if ((rc = read_pair(src, spec, &pr->lo, &pr->hi, err, errlen)) != VB_OK)
      return rc;
    if (!(pr->lo <= pr->hi))
      return vb_source_fail(src, spec, "sweep", err, errlen, "'%s' must have lo <= hi",
                            spec_names[pr->spec]);
    if (pr->spec == SPEC_LOGUNIFORM && !(pr->lo > 0))
      return vb_source_fail(src, spec, "sweep", err, errlen, "'loguniform' must have lo > 0");
    return VB_OK;
  }
}

/* Append formatted text to a growing string; VB_ENOMEM on failure. */
static int
append(char **text, size_t *len, const char *fmt, ...)
{
  char line[LINE_MAX_LEN], *grown;
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0)
    return VB_ENOMEM;
  if ((size_t)n >= sizeof line)
    n = (int)sizeof line - 1;
  grown = realloc(*text, *len + (size_t)n + 1);
  if (grown == NULL)
    return VB_ENOMEM;
  memcpy(grown + *len, line, (size_t)n + 1);
  *text = grown;
  *len += (size_t)n;
  return VB_OK;
}

/* Build the canonical text of a sweep: the mode line, then one line per
 * parameter with its values (or bounds; a linspace or logspace of more
 * than DESCRIBE_VALUES_MAX values by "[first, last]; n = N"), all numbers
 * round-tripping. */
static int
describe(vb_sweep *sw)
{
  char a[32], b[32];
  size_t len = 0;
  int p, rc;
  long i;

  rc = append(&sw->text, &len, "mode = %s; scenes = %ld", mode_names[sw->mode], sw->nscenes);
  if (rc == VB_OK && sw->mode == MODE_RANDOM)
    rc = append(&sw->text, &len, "; seed = %llu", sw->seed);
  for (p = 0; p < sw->nparams && rc == VB_OK; p++) {
    const param *pr = &sw->params[p];

    rc = append(&sw->text, &len, "\n%s: %s", pr->path, spec_names[pr->spec]);
    if (pr->spec == SPEC_UNIFORM || pr->spec == SPEC_LOGUNIFORM) {
      if (rc == VB_OK)
        rc = append(&sw->text, &len, " [%s, %s]", vb_number_text(pr->lo, a, sizeof a),
                    vb_number_text(pr->hi, b, sizeof b));
      continue;
    }
    /* a long linspace or logspace by its ends and count (its values
     * follow from them exactly, see spaced()): listing millions of values
     * took seconds and megabytes */
    if ((pr->spec == SPEC_LINSPACE || pr->spec == SPEC_LOGSPACE) &&
        pr->nvalues > DESCRIBE_VALUES_MAX) {
      if (rc == VB_OK)
        rc = append(&sw->text, &len, " [%s, %s]; n = %ld",
                    vb_number_text(pr->values[0], a, sizeof a),
                    vb_number_text(pr->values[pr->nvalues - 1], b, sizeof b), pr->nvalues);
      continue;
    }
    for (i = 0; i < pr->nvalues && rc == VB_OK; i++)
      rc = append(&sw->text, &len, "%s%s", i ? ", " : " [",
                  vb_number_text(pr->values[i], a, sizeof a));
    if (rc == VB_OK)
      rc = append(&sw->text, &len, "]");
  }
  return rc;
}

/* The number of scenes of a parsed sweep: the product of the parameters'
 * lengths (grid, with each parameter's stride), their common length (zip)
 * or n (random, with the seed). */
static int
count_scenes(const vb_source *src, const config_setting_t *sweep, const config_setting_t *params,
             vb_sweep *sw, char *err, size_t errlen)
{
  const config_setting_t *m;
  long long n;
  int p;

  switch (sw->mode) {
  case MODE_GRID:
    sw->nscenes = 1;
    for (p = sw->nparams - 1; p >= 0; p--) {
      sw->params[p].stride = sw->nscenes;
      if (sw->params[p].nvalues > VB_STUDY_MAX_SCENES / sw->nscenes)
        return vb_source_fail(src, params, "sweep", err, errlen,
                              "the grid has more than %ld scenes", VB_STUDY_MAX_SCENES);
      sw->nscenes *= sw->params[p].nvalues;
    }
    break;
  case MODE_ZIP:
    sw->nscenes = sw->params[0].nvalues;
    for (p = 1; p < sw->nparams; p++)
      if (sw->params[p].nvalues != sw->nscenes)
        return vb_source_fail(
            src, config_setting_get_elem(params, (unsigned)p), "sweep", err, errlen,
            "mode 'zip' needs parameters of equal length ('%s' has "
            "%ld values, '%s' has %ld)",
            sw->params[0].path, sw->params[0].nvalues, sw->params[p].path, sw->params[p].nvalues);
    break;
  case MODE_RANDOM:
    m = config_setting_get_member(sweep, "n");
    if (m == NULL)
      return vb_source_fail(src, sweep, "sweep", err, errlen,
                            "missing required key 'n' for mode 'random'");
    if (!read_integer(m, &n) || n < 1 || n > VB_STUDY_MAX_SCENES)
      return vb_source_fail(src, m, "sweep", err, errlen,
                            "'n' must be an integer between 1 and %ld", VB_STUDY_MAX_SCENES);
    sw->nscenes = (long)n;
    m = config_setting_get_member(sweep, "seed");
    n = 0;
    if (m != NULL && (!read_integer(m, &n) || n < 0))
      return vb_source_fail(src, m, "sweep", err, errlen, "'seed' must be an integer >= 0");
    sw->seed = (unsigned long long)n;
    break;
  }
  return VB_OK;
}

/* Parse and check a sweep group. */
int
vb_sweep_parse(const vb_source *src, const config_setting_t *sweep, vb_sweep **out, char *err,
               size_t errlen)
{
  static const char *const grid_keys[] = {"mode", "params", NULL};
  static const vb_key_rule grid_else[] = {
      {"n", "mode 'random'"}, {"seed", "mode 'random'"}, {NULL, NULL}};
  static const char *const random_keys[] = {"mode", "params", "n", "seed", NULL};
  const config_setting_t *m, *params;
  const char *mode = "grid";
  vb_sweep *sw;
  int rc = VB_OK, p, q;

  *out = NULL;
  if (config_setting_type(sweep) != CONFIG_TYPE_GROUP)
    return vb_source_fail(src, sweep, "sweep", err, errlen,
                          "must be a group { mode = ...; params = ( ... ); }");
  m = config_setting_get_member(sweep, "mode");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_STRING)
      return vb_source_fail(src, m, "sweep", err, errlen, "'mode' must be a string");
    mode = config_setting_get_string(m);
  }
  sw = calloc(1, sizeof *sw);
  if (sw == NULL)
    goto nomem;
  for (p = 0; p < 3 && strcmp(mode, mode_names[p]) != 0; p++)
    ;
  if (p == 3) {
    rc = vb_source_fail(src, m, "sweep", err, errlen,
                        "unknown mode '%s' (valid: grid, zip, random)", mode);
    goto done;
  }
  sw->mode = (mode_kind)p;
  rc = sw->mode == MODE_RANDOM ? check_keys(src, sweep, random_keys, NULL, err, errlen)
                               : check_keys(src, sweep, grid_keys, grid_else, err, errlen);
  if (rc != VB_OK)
    goto done;

  params = config_setting_get_member(sweep, "params");
  if (params == NULL) {
    rc = vb_source_fail(src, sweep, "sweep", err, errlen, "missing required key 'params'");
    goto done;
  }
  if (config_setting_type(params) != CONFIG_TYPE_LIST || config_setting_length(params) < 1) {
    rc = vb_source_fail(src, params, "sweep", err, errlen,
                        "'params' must be a non-empty list of groups ( { path = ...; "
                        "... }, ... )");
    goto done;
  }
  sw->nparams = config_setting_length(params);
  sw->params = calloc((size_t)sw->nparams, sizeof *sw->params);
  if (sw->params == NULL)
    goto nomem;
  for (p = 0; p < sw->nparams; p++) {
    const config_setting_t *g = config_setting_get_elem(params, (unsigned)p);

    rc = read_param(src, g, sw->mode, &sw->params[p], err, errlen);
    if (rc == VB_ENOMEM)
      goto nomem;
    if (rc != VB_OK)
      goto done;
    for (q = 0; q < p; q++)
      if (strcmp(sw->params[q].path, sw->params[p].path) == 0) {
        rc = vb_source_fail(src, config_setting_get_member(g, "path"), "sweep", err, errlen,
                            "parameter '%s' is swept twice (valid: each path "
                            "once)",
                            sw->params[p].path);
        goto done;
      }
  }

  rc = count_scenes(src, sweep, params, sw, err, errlen);
  if (rc != VB_OK)
    goto done;
  if (describe(sw) != VB_OK)
    goto nomem;
  *out = sw;
  return VB_OK;
nomem:
  rc = VB_ENOMEM;
  vb_errf(err, errlen, rc, "%s: out of memory reading the sweep", src->path);
done:
  vb_sweep_free(sw);
  return rc;
}

/* Index of a parameter's smallest (largest when `largest`) value. */
static long
extreme_index(const param *pr, int largest)
{
  long best = 0;

  for (long i = 1; i < pr->nvalues; i++)
    if (largest ? pr->values[i] > pr->values[best] : pr->values[i] < pr->values[best])
      best = i;
  return best;
}

/* Append index to out[*n] (room is the caller's). */
static void
push_index(long *out, long *n, long index)
{
  out[(*n)++] = index;
}

/* Compare two longs, for qsort. */
static int
compare_long(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;

  return (x > y) - (x < y);
}

/* Value indices of a grid parameter to check: every value of a short
 * parameter; of a long one (more than cap values) the first two, the last
 * two, its extremes and cap evenly spaced ones.  Returns the count. */
static long
grid_value_indices(const param *pr, long cap, long *out)
{
  long n = 0, i;

  if (pr->nvalues <= cap) {
    for (i = 0; i < pr->nvalues; i++)
      out[n++] = i;
    return n;
  }
  out[n++] = 0;
  out[n++] = 1;
  out[n++] = pr->nvalues - 2;
  out[n++] = pr->nvalues - 1;
  out[n++] = extreme_index(pr, 0);
  out[n++] = extreme_index(pr, 1);
  for (i = 0; i < cap; i++)
    out[n++] = (long)((double)i * (double)(pr->nvalues - 1) / (double)(cap - 1));
  return n;
}

/* The scenes that stand for a sweep too large to validate scene by scene
 * (see vb_sweep_sample in study/study.h for why they suffice). */
long
vb_sweep_sample(const vb_sweep *sw, long cap, long **out)
{
  int np = sw->nparams, corners_all = np <= 12, p;
  long room = 2 * (cap + 8) * (np + 1) + (corners_all ? (1L << np) : 2L * np + 2) + 1;
  long *idx = malloc((size_t)room * sizeof *idx), n = 0, i, k;

  *out = NULL;
  if (idx == NULL)
    return -1;
  push_index(idx, &n, 0);
  switch (sw->mode) {
  case MODE_GRID: {
    long *vals = malloc(((size_t)cap + 8) * sizeof *vals);
    if (vals == NULL) {
      free(idx);
      return -1;
    }
    /* each parameter's values with the others at their first value */
    for (p = 0; p < np; p++) {
      long nv = grid_value_indices(&sw->params[p], cap, vals);
      for (i = 0; i < nv; i++)
        push_index(idx, &n, vals[i] * sw->params[p].stride);
    }
    free(vals);
    /* the corners: every parameter at its smallest or largest value (all
     * 2^np of them, or with more than 12 parameters the two all-smallest
     * and all-largest corners and each with one parameter flipped) */
    for (k = 0; k < (corners_all ? (1L << np) : 2L * np + 2); k++) {
      long index = 0;
      for (p = 0; p < np; p++) {
        int largest = corners_all ? (int)((k >> p) & 1) : (k % 2 == 1) != (k / 2 - 1 == p);
        index += extreme_index(&sw->params[p], largest) * sw->params[p].stride;
      }
      push_index(idx, &n, index);
    }
    break;
  }
  case MODE_ZIP:
    /* real scenes only: evenly spaced ones and where each parameter takes
     * its extremes */
    for (i = 0; i < cap; i++)
      push_index(idx, &n, (long)((double)i * (double)(sw->nscenes - 1) / (double)(cap - 1)));
    for (p = 0; p < np; p++) {
      push_index(idx, &n, extreme_index(&sw->params[p], 0));
      push_index(idx, &n, extreme_index(&sw->params[p], 1));
    }
    break;
  default:
    /* independent uniform draws: the first cap scenes spread over the box */
    for (i = 1; i < cap && i < sw->nscenes; i++)
      push_index(idx, &n, i);
    break;
  }
  qsort(idx, (size_t)n, sizeof *idx, compare_long);
  for (i = 1, k = 1; i < n; i++)
    if (idx[i] != idx[k - 1])
      idx[k++] = idx[i];
  *out = idx;
  return k;
}

/* splitmix64 output number k of the stream seeded with `seed`. */
uint64_t
vb_splitmix64(uint64_t seed, uint64_t k)
{
  uint64_t z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);

  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Number of scenes of a sweep. */
long
vb_sweep_scenes(const vb_sweep *sweep)
{
  return sweep->nscenes;
}

/* Number of swept parameters. */
int
vb_sweep_nparams(const vb_sweep *sweep)
{
  return sweep->nparams;
}

/* Path of parameter p. */
const char *
vb_sweep_path(const vb_sweep *sweep, int p)
{
  return sweep->params[p].path;
}

/* Name of the sweep's mode. */
const char *
vb_sweep_mode(const vb_sweep *sweep)
{
  return mode_names[sweep->mode];
}

/* Canonical text of the sweep. */
const char *
vb_sweep_text(const vb_sweep *sweep)
{
  return sweep->text;
}

/* Value of parameter p in scene `index`. */
double
vb_sweep_value(const vb_sweep *sweep, long index, int p)
{
  const param *pr = &sweep->params[p];
  uint64_t draw;
  double u;

  switch (sweep->mode) {
  case MODE_GRID: return pr->values[(index / pr->stride) % pr->nvalues];
  case MODE_ZIP: return pr->values[index];
  default:
    /* u uniform in [0, 1) from the top 53 bits of the draw */
    draw = vb_splitmix64(sweep->seed, (uint64_t)index * (uint64_t)sweep->nparams + (uint64_t)p);
    u = (double)(draw >> 11) * 0x1.0p-53;
    if (pr->spec == SPEC_UNIFORM)
      return pr->lo + (pr->hi - pr->lo) * u;
    if (pr->spec == SPEC_LOGUNIFORM)
      return exp(log(pr->lo) + (log(pr->hi) - log(pr->lo)) * u);
    return pr->values[(long)(u * (double)pr->nvalues)];
  }
}
