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
 * by the caller (vb_sweep_target in scene.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "sweep.h"

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
static const char *const spec_names[] = {"values", "linspace", "logspace", "uniform",
                                         "loguniform"};

/* One swept parameter. */
typedef struct param {
  char *path;     /* e.g. "contacts.hit.k" */
  spec_kind spec;
  double *values; /* [nvalues] values, linspace, logspace; random 'values' */
  long nvalues;
  double lo, hi;  /* uniform, loguniform bounds */
  long stride;    /* grid: scenes between two steps of this parameter */
} param;

struct vb_sweep {
  mode_kind mode;
  int nparams;
  param *params;  /* [nparams] */
  long nscenes;
  unsigned long long seed;
  char *text;     /* canonical description, one parameter a line */
};

/* A number setting, integers accepted; 0 if not a finite number. */
static int read_number(const config_setting_t *s, double *x)
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
static int read_integer(const config_setting_t *s, long long *x)
{
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_INT: *x = config_setting_get_int(s); return 1;
  case CONFIG_TYPE_INT64: *x = config_setting_get_int64(s); return 1;
  default: return 0;
  }
}

/* Whether a setting is an array or a list. */
static int is_sequence(const config_setting_t *s)
{
  return config_setting_type(s) == CONFIG_TYPE_ARRAY ||
         config_setting_type(s) == CONFIG_TYPE_LIST;
}

/* Free a sweep; NULL is a no-op. */
void vb_sweep_free(vb_sweep *sweep)
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
static int check_keys(const vb_source *src, const config_setting_t *g,
                      const char *const *allowed, const vb_key_rule *rules, char *err,
                      size_t errlen)
{
  vb_loader ld;

  vb_loader_init(&ld, src, err, errlen, NULL);
  return vb_src_check_keys(&ld, g, "sweep", allowed, rules);
}

/* Read `key` = [first, last] of a parameter group. */
static int read_pair(const vb_source *src, const config_setting_t *m, double *a,
                     double *b, char *err, size_t errlen)
{
  const char *key = config_setting_name(m);

  if (!is_sequence(m) || config_setting_length(m) != 2 ||
      !read_number(config_setting_get_elem(m, 0), a) ||
      !read_number(config_setting_get_elem(m, 1), b))
    return vb_source_fail(src, m, "sweep", err, errlen,
                          "'%s' must be two finite numbers [%s, %s]", key,
                          strcmp(key, "uniform") == 0 || strcmp(key, "loguniform") == 0
                              ? "lo" : "first",
                          strcmp(key, "uniform") == 0 || strcmp(key, "loguniform") == 0
                              ? "hi" : "last");
  return VB_OK;
}

/* Expand linspace or logspace into n values; the ends are exact and
 * point i is (a (n-1-i) + b i) / (n-1), in log10 for logspace. */
static int spaced(param *pr, double a, double b, long n)
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
    } else {
      t = (log10(a) * (double)(n - 1 - i) + log10(b) * (double)i) / (double)(n - 1);
      pr->values[i] = pow(10.0, t);
    }
  }
  return VB_OK;
}

/* Read `values` = [...] of a parameter group. */
static int read_values(const vb_source *src, const config_setting_t *spec, param *pr,
                       char *err, size_t errlen)
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
                            "%d is not a finite number)", i);
  return VB_OK;
}

/* Read one parameter group; `mode` decides which value specs apply. */
static int read_param(const vb_source *src, const config_setting_t *g, mode_kind mode,
                      param *pr, char *err, size_t errlen)
{
  static const char *const grid_keys[] = {"path", "values", "linspace", "logspace", "n",
                                          NULL};
  static const vb_key_rule grid_else[] = {{"uniform", "mode 'random'"},
                                          {"loguniform", "mode 'random'"},
                                          {NULL, NULL}};
  static const char *const random_keys[] = {"path", "values", "uniform", "loguniform",
                                            NULL};
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
  rc = mode == MODE_RANDOM
           ? check_keys(src, g, random_keys, random_else, err, errlen)
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
                            "them)", pr->path, spec_names[pr->spec], spec_names[k]);
    spec = s;
    pr->spec = (spec_kind)k;
  }
  if (spec == NULL)
    return vb_source_fail(src, g, "sweep", err, errlen,
                          "parameter '%s' has no values (valid: %s)", pr->path,
                          mode == MODE_RANDOM ? "values, uniform, loguniform"
                                              : "values, linspace, logspace");
  nset = config_setting_get_member(g, "n");
  if (nset != NULL && pr->spec == SPEC_VALUES)
    return vb_source_fail(src, nset, "sweep", err, errlen,
                          "'n' applies only to linspace and logspace (valid: path, "
                          "values)");

  switch (pr->spec) {
  case SPEC_VALUES:
    return read_values(src, spec, pr, err, errlen);
  case SPEC_LINSPACE:
  case SPEC_LOGSPACE:
    if ((rc = read_pair(src, spec, &a, &b, err, errlen)) != VB_OK)
      return rc;
    if (nset == NULL)
      return vb_source_fail(src, g, "sweep", err, errlen,
                            "missing required key 'n' for '%s'", spec_names[pr->spec]);
    if (!read_integer(nset, &n) || n < 1 || n > VB_STUDY_MAX_SCENES)
      return vb_source_fail(src, nset, "sweep", err, errlen,
                            "'n' must be an integer between 1 and %ld",
                            VB_STUDY_MAX_SCENES);
    if (pr->spec == SPEC_LOGSPACE && !(a > 0 && b > 0))
      return vb_source_fail(src, spec, "sweep", err, errlen,
                            "'logspace' must be two numbers > 0 (valid: use linspace "
                            "for signed ranges)");
    return spaced(pr, a, b, (long)n);
  default:
    if ((rc = read_pair(src, spec, &pr->lo, &pr->hi, err, errlen)) != VB_OK)
      return rc;
    if (!(pr->lo <= pr->hi))
      return vb_source_fail(src, spec, "sweep", err, errlen,
                            "'%s' must have lo <= hi", spec_names[pr->spec]);
    if (pr->spec == SPEC_LOGUNIFORM && !(pr->lo > 0))
      return vb_source_fail(src, spec, "sweep", err, errlen,
                            "'loguniform' must have lo > 0");
    return VB_OK;
  }
}

/* Append formatted text to a growing string; VB_ENOMEM on failure. */
static int append(char **text, size_t *len, const char *fmt, ...)
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
 * parameter with its values (or bounds), all numbers round-tripping. */
static int describe(vb_sweep *sw)
{
  char a[32], b[32];
  size_t len = 0;
  int p, rc;
  long i;

  rc = append(&sw->text, &len, "mode = %s; scenes = %ld", mode_names[sw->mode],
              sw->nscenes);
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
static int count_scenes(const vb_source *src, const config_setting_t *sweep,
                        const config_setting_t *params, vb_sweep *sw, char *err,
                        size_t errlen)
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
        return vb_source_fail(src, config_setting_get_elem(params, (unsigned)p), "sweep",
                              err, errlen,
                              "mode 'zip' needs parameters of equal length ('%s' has "
                              "%ld values, '%s' has %ld)", sw->params[0].path,
                              sw->params[0].nvalues, sw->params[p].path,
                              sw->params[p].nvalues);
    break;
  case MODE_RANDOM:
    m = config_setting_get_member(sweep, "n");
    if (m == NULL)
      return vb_source_fail(src, sweep, "sweep", err, errlen,
                            "missing required key 'n' for mode 'random'");
    if (!read_integer(m, &n) || n < 1 || n > VB_STUDY_MAX_SCENES)
      return vb_source_fail(src, m, "sweep", err, errlen,
                            "'n' must be an integer between 1 and %ld",
                            VB_STUDY_MAX_SCENES);
    sw->nscenes = (long)n;
    m = config_setting_get_member(sweep, "seed");
    n = 0;
    if (m != NULL && (!read_integer(m, &n) || n < 0))
      return vb_source_fail(src, m, "sweep", err, errlen,
                            "'seed' must be an integer >= 0");
    sw->seed = (unsigned long long)n;
    break;
  }
  return VB_OK;
}

/* Parse and check a sweep group. */
int vb_sweep_parse(const vb_source *src, const config_setting_t *sweep, vb_sweep **out,
                   char *err, size_t errlen)
{
  static const char *const grid_keys[] = {"mode", "params", NULL};
  static const vb_key_rule grid_else[] = {{"n", "mode 'random'"},
                                          {"seed", "mode 'random'"},
                                          {NULL, NULL}};
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
  rc = sw->mode == MODE_RANDOM
           ? check_keys(src, sweep, random_keys, NULL, err, errlen)
           : check_keys(src, sweep, grid_keys, grid_else, err, errlen);
  if (rc != VB_OK)
    goto done;

  params = config_setting_get_member(sweep, "params");
  if (params == NULL) {
    rc = vb_source_fail(src, sweep, "sweep", err, errlen, "missing required key 'params'");
    goto done;
  }
  if (config_setting_type(params) != CONFIG_TYPE_LIST ||
      config_setting_length(params) < 1) {
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
        rc = vb_source_fail(src, config_setting_get_member(g, "path"), "sweep", err,
                            errlen, "parameter '%s' is swept twice (valid: each path "
                            "once)", sw->params[p].path);
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

/* splitmix64 output number k of the stream seeded with `seed`. */
uint64_t vb_splitmix64(uint64_t seed, uint64_t k)
{
  uint64_t z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);

  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Number of scenes of a sweep. */
long vb_sweep_scenes(const vb_sweep *sweep) { return sweep->nscenes; }

/* Number of swept parameters. */
int vb_sweep_nparams(const vb_sweep *sweep) { return sweep->nparams; }

/* Path of parameter p. */
const char *vb_sweep_path(const vb_sweep *sweep, int p) { return sweep->params[p].path; }

/* Name of the sweep's mode. */
const char *vb_sweep_mode(const vb_sweep *sweep) { return mode_names[sweep->mode]; }

/* Canonical text of the sweep. */
const char *vb_sweep_text(const vb_sweep *sweep) { return sweep->text; }

/* Value of parameter p in scene `index`. */
double vb_sweep_value(const vb_sweep *sweep, long index, int p)
{
  const param *pr = &sweep->params[p];
  uint64_t draw;
  double u;

  switch (sweep->mode) {
  case MODE_GRID:
    return pr->values[(index / pr->stride) % pr->nvalues];
  case MODE_ZIP:
    return pr->values[index];
  default:
    /* u uniform in [0, 1) from the top 53 bits of the draw */
    draw = vb_splitmix64(sweep->seed, (uint64_t)index * (uint64_t)sweep->nparams +
                                          (uint64_t)p);
    u = (double)(draw >> 11) * 0x1.0p-53;
    if (pr->spec == SPEC_UNIFORM)
      return pr->lo + (pr->hi - pr->lo) * u;
    if (pr->spec == SPEC_LOGUNIFORM)
      return exp(log(pr->lo) + (log(pr->hi) - log(pr->lo)) * u);
    return pr->values[(long)(u * (double)pr->nvalues)];
  }
}

/* ------------------------------------------------------------ parameter paths */

/* Room for a sweep path such as "contacts.hit.k" or "bodies.bar.freq[2]",
 * and the most components it may have. */
#define PATH_MAX_LEN 256
#define MAX_COMPONENTS 8

/* A numeric key of an object and its SI units ("1" when dimensionless). */
typedef struct sweep_key {
  const char *key;
  const char *units;
} sweep_key;

/* The numeric keys of one kind of object: per top-level setting,
 * optionally only for one variant of the object (its `type`, `law`,
 * `scheme` or `kind`).  Rows with `create` are keys a sweep may set even
 * where the file leaves them out; the others only give the units of keys
 * the file writes (any numeric key written in the file is sweepable, and
 * the loader judges every value).  A contact's law keys come from the law
 * table (law.c), not from here. */
typedef struct sweep_keys {
  const char *top;      /* "scene", "bodies", "bodies.drive", ...: the kind
                           of object, its path without element names */
  const char *selector; /* key that picks the variant, or NULL for all */
  const char *variant;  /* its value */
  int create;           /* 1: a sweep may create these keys */
  sweep_key keys[12];   /* ended by a NULL key */
} sweep_keys;

static const sweep_keys sweepable[] = {
  {"scene", NULL, NULL, 1, {{"fs", "Hz"}, {"duration", "s"}, {"gravity", "m/s^2"}, {NULL}}},
  {"record", NULL, NULL, 1, {{"every", "1"}, {NULL}}},
  {"bodies", "type", "mass", 1,
   {{"mass", "kg"}, {"u0", "m"}, {"v0", "m/s"}, {"k", "N/m"}, {"c", "N s/m"}, {NULL}}},
  {"bodies", "type", "wall", 1, {{"position", "m"}, {NULL}}},
  {"bodies.drive", "type", "sine", 1,
   {{"amplitude", "m"}, {"freq", "Hz"}, {"phase", "rad"}, {NULL}}},
  {"bodies.drive", "type", "noise", 1, {{"rms", "m"}, {"bandwidth", "Hz"}, {NULL}}},
  {"bodies.drive", "type", "noise", 0, {{"seed", "1"}, {"components", "1"}, {NULL}}},
  {"bodies.drive", "type", "profile", 1,
   {{"speed", "m/s"}, {"spacing", "m"}, {"start", "m"}, {"scale", "1"}, {NULL}}},
  {"bodies", "type", "modal", 0,
   {{"freq", "Hz"}, {"mass", "kg"}, {"quality", "1"}, {"t60", "s"}, {"zeta", "1"},
    {"loss[0]", "1/s"}, {"loss[1]", "s"}, {"q0", "m"}, {"dq0", "m/s"}, {"gravity", "1"},
    {NULL}}},
  {"bodies.preset", NULL, NULL, 0,
   {{"nmodes", "1"}, {"length", "m"}, {"width", "m"}, {"thickness", "m"}, {"youngs", "Pa"},
    {"density", "kg/m^3"}, {"poisson", "1"}, {"linear_density", "kg/m"},
    {"surface_density", "kg/m^2"}, {"radius", "m"}, {NULL}}},
  {"bodies.preset", "kind", "string", 0, {{"tension", "N"}, {NULL}}},
  {"bodies.preset", "kind", "membrane", 0, {{"tension", "N/m"}, {NULL}}},
  {"contacts", "law", NULL, 1, {{NULL}}}, /* the keys of the contact's law */
  {"contacts", NULL, NULL, 1, {{"gap", "m"}, {NULL}}},
  {"contacts", "scheme", "quadratic", 1, {{"s", "1"}, {NULL}}},
  {"contacts", NULL, NULL, 1, {{"tolerance", "1"}, {"max_iterations", "1"}, {NULL}}},
  {"forces", NULL, NULL, 1,
   {{"value", "N"}, {"amplitude", "N"}, {"freq", "Hz"}, {"phase", "rad"}, {NULL}}},
};

#define NSWEEPABLE (sizeof sweepable / sizeof sweepable[0])

/* Most keys one row gives (a law has fewer than this many parameters). */
#define ROW_KEYS_MAX 16

/* Whether a setting holds a single number. */
static int is_number(const config_setting_t *s)
{
  int t = config_setting_type(s);

  return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

/* A string member of a group, or NULL. */
static const char *string_member(const config_setting_t *obj, const char *key)
{
  const config_setting_t *m = vb_src_member(obj, key);

  return m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING
             ? config_setting_get_string(m)
             : NULL;
}

/* A drive is the same kind of object wherever it is: a contact's
 * gap_drive uses the rows of a wall's drive. */
static const char *canonical_kind(const char *top)
{
  return strcmp(top, "contacts.gap_drive") == 0 ? "bodies.drive" : top;
}

/* Whether a table entry applies to an object of kind `top`. */
static int entry_applies(const sweep_keys *e, const char *top,
                         const config_setting_t *obj)
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
 * the parameters of the object's law); returns their number. */
static int entry_keys(const sweep_keys *e, const config_setting_t *obj, sweep_key *out)
{
  int n = 0;

  if (e->selector != NULL && e->variant == NULL) {
    vb_law_kind kind;
    if (vb_law_lookup(string_member(obj, e->selector), &kind) != VB_OK)
      return 0;
    for (const vb_law_param *p = vb_law_info_of(kind)->params; p->key && n < ROW_KEYS_MAX;
         p++) {
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
static const char *key_units(const char *top, const config_setting_t *obj, const char *key,
                             long index)
{
  sweep_key keys[ROW_KEYS_MAX];
  char indexed[PATH_MAX_LEN];
  size_t i;
  int j, n;

  snprintf(indexed, sizeof indexed, "%s[%ld]", key, index);
  for (i = 0; i < NSWEEPABLE; i++) {
    if (!entry_applies(&sweepable[i], top, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, keys);
    for (j = 0; j < n; j++)
      if (strcmp(keys[j].key, key) == 0 ||
          (index >= 0 && strcmp(keys[j].key, indexed) == 0))
        return keys[j].units;
  }
  return NULL;
}

/* Whether `key` is an optional numeric key a sweep may create in obj. */
static int creatable(const char *top, const config_setting_t *obj, const char *key)
{
  sweep_key keys[ROW_KEYS_MAX];
  size_t i;
  int j, n;

  for (i = 0; i < NSWEEPABLE; i++) {
    if (!sweepable[i].create || !entry_applies(&sweepable[i], top, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, keys);
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
static void object_paths(const char *kind, const char *prefix,
                         const config_setting_t *obj, char *list, size_t size)
{
  char item[PATH_MAX_LEN + 32], subkind[PATH_MAX_LEN], subprefix[PATH_MAX_LEN];
  sweep_key keys[ROW_KEYS_MAX];
  size_t i;
  int j, k, n;

  for (i = 0; i < NSWEEPABLE; i++) {
    if (!sweepable[i].create || !entry_applies(&sweepable[i], kind, obj))
      continue;
    n = entry_keys(&sweepable[i], obj, keys);
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
static const char *element_name(const config_setting_t *g)
{
  const config_setting_t *m;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return NULL;
  m = vb_src_member(g, "name");
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
        vb_list_add(list, size, item);
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

/* The object a sweep path's components name under top-level setting
 * `top`: the group itself (TOP.KEY, *first = 1) or the list element of
 * that name (TOP.NAME.KEY, *first = 2), with its path in prefix.  NULL
 * when there is none, with the paths of the list to suggest in valid
 * (a top-level setting that is neither group nor list has none). */
static config_setting_t *find_object(config_setting_t *top, char **comp, int ncomp,
                                     int *first, char *prefix, size_t psize, char *valid,
                                     size_t vsize)
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
static int split_path(char *buf, char **comp, char **rest)
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
int vb_sweep_target(const vb_source *src, config_t *cfg, const char *path,
                    const config_setting_t *origin, config_setting_t **target,
                    char *err, size_t errlen)
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
      return vb_source_fail(src, origin, "sweep", err, errlen,
                            "cannot create 'record' for '%s'", path);
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

/* SI units of the numeric setting a sweep path names in cfg, from the
 * tables (the law table for a contact's law keys), or NULL when no table
 * knows the key. */
const char *vb_sweep_units(config_t *cfg, const char *path)
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
