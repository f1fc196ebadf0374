/* load_body.c - bodies from a parsed scene document: masses, walls and
 * modal objects (modes from arrays, a preset or a modes file), their
 * damping, points and drives.  Messages through scene/scene.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* Damping of a modal body: quality, t60, zeta (arrays or one number) or
 * loss = [b1, b3] (sigma = b1 + b3 omega^2); none leaves sigma as is. */
static int
load_damping(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"quality", "t60", "zeta", "loss"};
  const vb_body_type *type = vb_body_type_lookup(b->type);
  char valid[LIST_MAX] = "";
  int n = b->nmodes, which = -1, present, rc, j;
  /* the forms the body's type accepts (its other keys were refused) */
  for (j = 0; j < 4; j++)
    if (type == NULL || vb_has_key(type->keys, keys[j]))
      vb_list_add(valid, sizeof valid, keys[j]);
  for (j = 0; j < 4; j++)
    if (vb_src_member(g, keys[j]) != NULL) {
      if (which >= 0)
        return vb_src_fail(ld, vb_src_at(g, keys[j]), obj,
                           "'%s' and '%s' both give the damping (valid: one of %s)", keys[which],
                           keys[j], valid);
      which = j;
    }
  if (which < 0)
    return VB_OK;
  double *v = malloc(((size_t)n + 2) * sizeof(double));
  if (v == NULL)
    return vb_src_fail(ld, g, obj, "out of memory");
  if (which == 3) {
    int cnt = 2;
    rc = vb_src_array(ld, g, obj, "loss", 1, 0, 2, &v, &cnt, &present);
    for (j = 0; rc == VB_OK && j < n; j++) {
      double w = 2.0 * M_PI * b->freq[j];
      b->sigma[j] = v[0] + v[1] * w * w;
      if (!(v[0] >= 0 && v[1] >= 0))
        rc = vb_src_fail(ld, vb_src_at(g, "loss"), obj, "'loss' = [b1, b3] must be >= 0");
    }
    free(v);
    return rc;
  }
  rc = vb_src_array(ld, g, obj, keys[which], 1, 1, n, &v, NULL, &present);
  for (j = 0; rc == VB_OK && j < n; j++) {
    double w = 2.0 * M_PI * b->freq[j], x = v[j];
    if (which == 0) { /* omega/Q is the damping term: sigma = omega/(2Q) */
      if (!(x > 0))
        rc = vb_src_refuse(ld, g, obj, "quality", "> 0", x);
      b->sigma[j] = w / (2.0 * x);
    } else if (which == 1) { /* amplitude down 60 dB in t60 */
      if (!(x > 0))
        rc = vb_src_refuse(ld, g, obj, "t60", "> 0", x);
      b->sigma[j] = log(1000.0) / x;
    } else { /* damping ratio */
      if (!(x >= 0))
        rc = vb_src_refuse(ld, g, obj, "zeta", ">= 0", x);
      b->sigma[j] = x * w;
    }
  }
  free(v);
  return rc;
}

/* Points of a modal body given by shape: ( { name; shape = [...]; } ). */
static int
load_shape_points(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"name", "shape", NULL};
  const config_setting_t *list = vb_src_member(g, "points");
  int i, rc, first, dup = vb_src_first_duplicate(list, &first);
  if (dup == -2)
    return vb_src_fail(ld, g, obj, "out of memory");
  for (i = 0; i < b->npoints; i++) {
    const config_setting_t *p = config_setting_get_elem(list, (unsigned)i);
    const char *name = NULL;
    char pobj[2 * OBJECT_MAX];
    snprintf(pobj, sizeof pobj, "%s point #%d", obj, i + 1);
    if (config_setting_type(p) != CONFIG_TYPE_GROUP)
      return vb_src_fail(ld, p, pobj, "must be a group { name = ...; shape = [...]; }");
    if ((rc = vb_src_check_keys(ld, p, pobj, keys, NULL)) != VB_OK ||
        (rc = vb_src_string(ld, p, pobj, "name", 1, &name)) != VB_OK ||
        (rc = vb_src_check_name(ld, p, pobj, name)) != VB_OK)
      return rc;
    strcpy(b->points[i].name, name);
    snprintf(pobj, sizeof pobj, "%s point '%s'", obj, name);
    if (i == dup)
      return vb_src_fail(ld, vb_src_at(p, "name"), pobj, "duplicate point name");
    if ((rc = vb_src_array(ld, p, pobj, "shape", 1, 0, b->nmodes, &b->points[i].shape, NULL,
                           NULL)) != VB_OK)
      return rc;
  }
  return VB_OK;
}

/* A string preset's measured modes: `frequencies` names a CSV file with a
 * frequency column (freq_hz or freq, Hz) and optionally a decay-rate
 * column (sigma_per_s or sigma, 1/s); its first nmodes rows are used.
 * *freq and *sigma are allocated (the caller frees them). */
static int
load_frequencies(vb_loader *ld, const config_setting_t *pg, const char *pobj, vb_preset *p,
                 double **freq, double **sigma)
{
  static const char *const cols[] = {"freq_hz|freq", "sigma_per_s|sigma"};
  const char *file = NULL;
  char path[4200], msg[1024];
  double *out[2] = {NULL, NULL};
  int rc, rows = 0;

  *freq = *sigma = NULL;
  if (vb_src_member(pg, "frequencies") == NULL)
    return VB_OK;
  if ((rc = vb_src_string(ld, pg, pobj, "frequencies", 1, &file)) != VB_OK)
    return rc;
  vb_src_data_path(ld, file, path, sizeof path);
  rc = vb_csv_columns(path, 2, cols, out, &rows, msg, sizeof msg);
  if (rc == VB_EINVAL && strstr(msg, "no column 'sigma") != NULL)
    rc = vb_csv_columns(path, 1, cols, out, &rows, msg, sizeof msg);
  if (rc != VB_OK)
    return vb_src_fail(ld, vb_src_at(pg, "frequencies"), pobj, "%s", msg);
  *freq = out[0];
  *sigma = out[1];
  if (rows < p->nmodes)
    return vb_src_fail(ld, vb_src_at(pg, "frequencies"), pobj,
                       "'%s' has %d modes, fewer than nmodes = %d (valid: nmodes <= %d)", file,
                       rows, p->nmodes, rows);
  p->freq = *freq;
  p->sigma = *sigma;
  return VB_OK;
}

/* The parameters of a preset group into *p (strings point into the
 * document; *freq and *sigma, a string's measured modes, are allocated
 * and the caller frees them). */
int
vb_load_preset_params(vb_loader *ld, const config_setting_t *pg, const char *pobj, vb_preset *p,
                      double **freq, double **sigma)
{
  static const char *const pkeys[] = {"kind",
                                      "nmodes",
                                      "length",
                                      "width",
                                      "thickness",
                                      "youngs",
                                      "density",
                                      "poisson",
                                      "tension",
                                      "linear_density",
                                      "surface_density",
                                      "radius",
                                      "inharmonicity",
                                      "frequencies",
                                      "pluck",
                                      "initial",
                                      NULL};
  static const char *const string_keys[] = {"inharmonicity", "frequencies", "pluck"};
  long nm = 0;
  int rc;

  memset(p, 0, sizeof *p);
  *freq = *sigma = NULL;
  if (config_setting_type(pg) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, pg, pobj, "'preset' must be a group { kind = ...; ... }");
  if ((rc = vb_src_check_keys(ld, pg, pobj, pkeys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, pg, pobj, "kind", 1, &p->kind)) != VB_OK ||
      (rc = vb_src_integer(ld, pg, pobj, "nmodes", 1, &nm)) != VB_OK)
    return rc;
  p->nmodes = nm > 0 && nm < 1000000 ? (int)nm : 0;
  if (p->nmodes == 0)
    return vb_src_refuse(ld, pg, pobj, "nmodes", "between 1 and 100000", (double)nm);
  p->poisson = 0.3;
  if ((rc = vb_src_number(ld, pg, pobj, "length", 0, &p->length)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "width", 0, &p->width)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "thickness", 0, &p->thickness)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "youngs", 0, &p->youngs)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "density", 0, &p->density)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "poisson", 0, &p->poisson)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "tension", 0, &p->tension)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "linear_density", 0, &p->linear_density)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "surface_density", 0, &p->surface_density)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "radius", 0, &p->radius)) != VB_OK ||
      (rc = vb_src_number(ld, pg, pobj, "inharmonicity", 0, &p->inharmonicity)) != VB_OK)
    return rc;
  for (size_t k = 0; k < sizeof string_keys / sizeof *string_keys; k++)
    if (strcmp(p->kind, "string") != 0 && vb_src_member(pg, string_keys[k]) != NULL)
      return vb_src_fail(ld, vb_src_at(pg, string_keys[k]), pobj,
                         "'%s' applies only to kind 'string'", string_keys[k]);
  if (vb_src_member(pg, "pluck") != NULL) {
    double *v = malloc(2 * sizeof(double));
    int cnt = 2;
    if (config_setting_length(vb_src_member(pg, "pluck")) != 2) {
      free(v);
      return vb_src_fail(ld, vb_src_at(pg, "pluck"), pobj,
                         "'pluck' has %d values (valid: [x0, height], m)",
                         config_setting_length(vb_src_member(pg, "pluck")));
    }
    if (v == NULL)
      return vb_src_fail(ld, pg, pobj, "out of memory");
    rc = vb_src_array(ld, pg, pobj, "pluck", 1, 0, 2, &v, &cnt, NULL);
    p->pluck_x = v[0];
    p->pluck_h = v[1];
    free(v);
    if (rc != VB_OK)
      return rc;
    if (!(p->pluck_h != 0.0))
      return vb_src_fail(ld, vb_src_at(pg, "pluck"), pobj,
                         "'pluck' = [x0, height] needs a height other than 0");
  }
  return load_frequencies(ld, pg, pobj, p, freq, sigma);
}

/* A preset's initial modal displacements from a data file:
 * initial = { file = "pluck.csv"; column = "q0"; scale = 1.0; }, the first
 * nmodes rows of the column times scale (m; scale converts another
 * normalisation of the shapes, e.g. sqrt(2/L) for a string's published
 * mass-normalised sqrt(2/L) sin(j pi x/L)).  Added to the static sag as
 * the pluck is. */
static int
load_initial(vb_loader *ld, const config_setting_t *pg, const char *pobj, vb_body *b)
{
  static const char *const keys[] = {"file", "column", "scale", NULL};
  const config_setting_t *g = vb_src_member(pg, "initial");
  const char *file = NULL, *column = "q0";
  char iobj[3 * OBJECT_MAX], path[4200], msg[1024];
  double scale = 1.0, *q = NULL;
  int rc, rows = 0;

  if (g == NULL)
    return VB_OK;
  snprintf(iobj, sizeof iobj, "%s initial", pobj);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, pobj,
                       "'initial' must be a group { file = ...; column = ...; scale = ...; }");
  if ((rc = vb_src_check_keys(ld, g, iobj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, iobj, "file", 1, &file)) != VB_OK ||
      (rc = vb_src_string(ld, g, iobj, "column", 0, &column)) != VB_OK ||
      (rc = vb_src_number(ld, g, iobj, "scale", 0, &scale)) != VB_OK)
    return rc;
  if (vb_src_member(pg, "pluck") != NULL)
    return vb_src_fail(ld, g, pobj,
                       "'initial' and 'pluck' both give the initial displacement (valid: one "
                       "of them)");
  vb_src_data_path(ld, file, path, sizeof path);
  if (vb_csv_columns(path, 1, &column, &q, &rows, msg, sizeof msg) != VB_OK)
    return vb_src_fail(ld, vb_src_at(g, "file"), iobj, "%s", msg);
  if (rows < b->nmodes)
    rc = vb_src_fail(ld, vb_src_at(g, "file"), iobj,
                     "'%s' has %d rows, fewer than the %d modes (valid: one row per mode)", file,
                     rows, b->nmodes);
  for (int j = 0; rc == VB_OK && j < b->nmodes; j++)
    b->q0[j] = scale * q[j];
  free(q);
  return rc;
}

/* Points of a preset body given by position: ( { name; x; y; } ). */
static int
load_preset(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  static const char *const keys[] = {"name", "x", "y", NULL};
  const config_setting_t *pg = vb_src_member(g, "preset"), *list = vb_src_member(g, "points");
  char pobj[2 * OBJECT_MAX];
  double *freq = NULL, *sigma = NULL;
  vb_preset p;
  int rc, i, np;

  snprintf(pobj, sizeof pobj, "%s preset", obj);
  if ((rc = vb_load_preset_params(ld, pg, pobj, &p, &freq, &sigma)) != VB_OK) {
    free(freq);
    free(sigma);
    return rc;
  }
  np = list ? config_setting_length(list) : 0;
  double *xy = calloc(2 * (size_t)np + 2, sizeof(double));
  const char **names = calloc((size_t)np + 1, sizeof(char *));
  if (!xy || !names) {
    free(xy);
    free(names);
    free(freq);
    free(sigma);
    return vb_src_fail(ld, g, obj, "out of memory");
  }
  int first, dup = vb_src_first_duplicate(list, &first);
  rc = dup == -2 ? vb_src_fail(ld, g, obj, "out of memory") : VB_OK;
  for (i = 0; i < np && rc == VB_OK; i++) {
    const config_setting_t *pt = config_setting_get_elem(list, (unsigned)i);
    char qobj[3 * OBJECT_MAX];
    snprintf(qobj, sizeof qobj, "%s point #%d", obj, i + 1);
    if (config_setting_type(pt) != CONFIG_TYPE_GROUP)
      rc = vb_src_fail(ld, pt, qobj, "must be a group { name = ...; x = ...; }");
    else if ((rc = vb_src_check_keys(ld, pt, qobj, keys, NULL)) == VB_OK &&
             (rc = vb_src_string(ld, pt, qobj, "name", 1, &names[i])) == VB_OK &&
             (rc = vb_src_check_name(ld, pt, qobj, names[i])) == VB_OK &&
             (rc = vb_src_number(ld, pt, qobj, "x", 1, &xy[i])) == VB_OK)
      rc = vb_src_number(ld, pt, qobj, "y", 0, &xy[np + i]);
    if (rc == VB_OK && i == dup)
      rc = vb_src_fail(ld, pt, qobj, "duplicate point name '%s'", names[i]);
  }
  if (rc == VB_OK) {
    char msg[1024];
    if (vb_preset_fill(b, &p, np, xy, xy + np, names, msg, sizeof msg) != VB_OK)
      rc = vb_src_fail(ld, pg, obj, "%s", msg);
    else
      rc = load_initial(ld, pg, pobj, b);
  }
  free(xy);
  free(names);
  free(freq);
  free(sigma);
  return rc;
}

/* Load a modal object: modes from arrays, a preset or a data file. */
static int
load_modal(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  const config_setting_t *points = vb_src_member(g, "points");
  int sources = (vb_src_member(g, "freq") != NULL) + (vb_src_member(g, "preset") != NULL) +
                (vb_src_member(g, "modes_file") != NULL);
  int rc, present, j;

  if (sources != 1)
    return vb_src_fail(ld, g, obj,
                       "give the modes by exactly one of 'freq' (with 'mass' and "
                       "point shapes), 'preset' or 'modes_file' (got %d)",
                       sources);
  if (points != NULL && config_setting_type(points) != CONFIG_TYPE_LIST &&
      !(config_setting_type(points) == CONFIG_TYPE_ARRAY && config_setting_length(points) == 0))
    return vb_src_fail(ld, points, obj, "'points' must be a list of groups ( { ... }, ... )");
  if (vb_src_member(g, "freq") != NULL) {
    double *freq = NULL;
    int n = 0;
    if ((rc = vb_src_array(ld, g, obj, "freq", 1, 0, -1, &freq, &n, NULL)) != VB_OK) {
      free(freq);
      return rc;
    }
    if (n < 1) {
      free(freq);
      return vb_src_fail(ld, vb_src_at(g, "freq"), obj, "'freq' must list at least one mode");
    }
    if (points == NULL || config_setting_length(points) == 0) {
      free(freq);
      return vb_src_fail(ld, g, obj,
                         "missing required key 'points' (valid: ( { name = ...; "
                         "shape = [...]; } ))");
    }
    rc = vb_body_alloc_modes(b, n, config_setting_length(points));
    if (rc == VB_OK)
      memcpy(b->freq, freq, (size_t)n * sizeof(double));
    free(freq);
    if (rc != VB_OK)
      return vb_src_fail(ld, g, obj, "out of memory");
    for (j = 0; j < n; j++) {
      if (!(b->freq[j] >= 0))
        return vb_src_refuse(ld, g, obj, "freq", ">= 0 for every mode", b->freq[j]);
      b->gravity[j] = b->freq[j] == 0.0 ? 1.0 : 0.0;
    }
    if ((rc = vb_src_array(ld, g, obj, "mass", 1, 1, n, &b->modal_mass, NULL, NULL)) != VB_OK ||
        (rc = load_shape_points(ld, g, obj, b)) != VB_OK)
      return rc;
  } else if (vb_src_member(g, "preset") != NULL) {
    if ((rc = load_preset(ld, g, obj, b)) != VB_OK)
      return rc;
    if (vb_src_member(g, "mass") != NULL)
      return vb_src_fail(ld, vb_src_at(g, "mass"), obj,
                         "'mass' applies only to modes given by 'freq' "
                         "(a preset computes its modal masses)");
  } else {
    const char *file = NULL;
    char path[4200], msg[1024];
    if ((rc = vb_src_string(ld, g, obj, "modes_file", 1, &file)) != VB_OK)
      return rc;
    if (points != NULL)
      return vb_src_fail(ld, points, obj, "'points' come from the modes file '%s'", file);
    if (vb_src_member(g, "mass") != NULL)
      return vb_src_fail(ld, vb_src_at(g, "mass"), obj,
                         "'mass' applies only to modes given by 'freq' "
                         "(the modes file gives the modal masses)");
    vb_src_data_path(ld, file, path, sizeof path);
    if (vb_modes_file_read(b, path, msg, sizeof msg) != VB_OK)
      return vb_src_fail(ld, vb_src_at(g, "modes_file"), obj, "%s", msg);
  }
  for (j = 0; j < b->nmodes; j++)
    if (!(b->modal_mass[j] > 0))
      return vb_src_refuse(ld, g, obj, "mass", "> 0 for every mode", b->modal_mass[j]);
  if ((rc = load_damping(ld, g, obj, b)) != VB_OK ||
      (rc = vb_src_array(ld, g, obj, "gravity", 0, 1, b->nmodes, &b->gravity, NULL, &present)) !=
          VB_OK)
    return rc;
  /* without q0 the elastic modes start at their static sag under gravity,
   * -g gravity_j / omega_j^2, so nothing rings before anything happens */
  /* (added to a preset's pluck, which is 0 for the other sources) */
  const config_setting_t *pg = vb_src_member(g, "preset");
  const char *given = pg == NULL                             ? NULL
                      : vb_src_member(pg, "pluck") != NULL   ? "pluck"
                      : vb_src_member(pg, "initial") != NULL ? "initial"
                                                             : NULL;
  if (vb_src_member(g, "q0") != NULL && given != NULL)
    return vb_src_fail(ld, vb_src_at(g, "q0"), obj,
                       "'q0' and the preset's '%s' both give the initial displacement "
                       "(valid: one of them)",
                       given);
  for (j = 0; j < b->nmodes; j++)
    if (b->freq[j] > 0.0)
      b->q0[j] += -ld->scene->gravity * b->gravity[j] / pow(2.0 * M_PI * b->freq[j], 2.0);
  if ((rc = vb_src_array(ld, g, obj, "q0", 0, 0, b->nmodes, &b->q0, NULL, &present)) != VB_OK ||
      (rc = vb_src_array(ld, g, obj, "dq0", 0, 0, b->nmodes, &b->dq0, NULL, &present)) != VB_OK ||
      (rc = vb_src_array(ld, g, obj, "gravity", 0, 1, b->nmodes, &b->gravity, NULL, &present)) !=
          VB_OK)
    return rc;
  return VB_OK;
}

/* Read a profile file: one height (m) per line, '#' comments.  Text only
 * (a NUL byte is refused) and at most VB_DATA_MAX bytes. */
static int
read_profile(vb_loader *ld, const config_setting_t *at_s, const char *obj, const char *file,
             vb_drive *d)
{
  char path[4200], *text, *line, *next;
  size_t len = 0;
  long cap = 256, n = 0, lineno = 0;
  int rc = VB_OK;

  vb_src_data_path(ld, file, path, sizeof path);
  text = vb_read_data(path, VB_DATA_MAX, &len);
  if (text == NULL && errno == VB_NOT_REGULAR_ERRNO)
    return vb_src_fail(ld, at_s, obj,
                       "profile '%s' is not a regular file (valid: a text file, one "
                       "number per line)",
                       path);
  if (text == NULL && errno == EFBIG)
    return vb_src_fail(ld, at_s, obj,
                       "profile '%s' is larger than %zu MiB (valid: a text "
                       "file of at most %zu MiB)",
                       path, VB_DATA_MAX >> 20, VB_DATA_MAX >> 20);
  if (text == NULL)
    return vb_src_fail(ld, at_s, obj, "cannot read profile '%s': %s", path, strerror(errno));
  if (strlen(text) != len) {
    for (line = text; line < text + strlen(text); line++)
      lineno += *line == '\n';
    free(text);
    return vb_src_fail(ld, at_s, obj,
                       "profile '%s' line %ld: binary content (a NUL byte; "
                       "valid: one number per line)",
                       path, lineno + 1);
  }
  d->samples = malloc((size_t)cap * sizeof(double));
  if (d->samples == NULL)
    rc = VB_ENOMEM;
  for (line = text; rc == VB_OK && line != NULL; line = next) {
    char *p = line, *end;
    next = strchr(line, '\n');
    if (next != NULL)
      *next++ = '\0';
    lineno++;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '#' || *p == '\0')
      continue;
    double x = strtod(p, &end);
    while (isspace((unsigned char)*end))
      end++;
    if (end == p || *end != '\0' || !isfinite(x) || vb_hex_field(p)) {
      rc = vb_src_fail(ld, at_s, obj,
                       "profile '%s' line %ld: '%.*s' is not a number (valid: a decimal "
                       "number, e.g. 2.5e-6)",
                       path, lineno, (int)strcspn(p, "\r\n"), p);
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
  free(text);
  if (rc == VB_ENOMEM)
    return vb_src_fail(ld, at_s, obj, "out of memory reading profile '%s'", path);
  if (rc == VB_OK && n < 4)
    return vb_src_fail(ld, at_s, obj, "profile '%s' has %ld samples (valid: at least 4)", path, n);
  d->nsamples = n;
  return rc;
}

/* A drive group (a wall's drive, a contact's gap_drive): its type and
 * numeric keys from drive.c's table, then a profile's file or a noise's
 * components. */
int
vb_load_drive(vb_loader *ld, const config_setting_t *g, const char *obj, vb_drive *d)
{
  const char *keys[16], *type = NULL, *file = NULL;
  char dobj[2 * OBJECT_MAX], valid[LIST_MAX] = "";
  const vb_drive_info *info;
  long comps = 0;
  int rc, n = 0, count;

  snprintf(dobj, sizeof dobj, "%s drive", obj);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "'drive' must be a group { type = ...; ... }");
  if ((rc = vb_src_string(ld, g, dobj, "type", 1, &type)) != VB_OK)
    return rc;
  info = vb_drive_lookup(type);
  if (info == NULL) {
    vb_drive_info_at(0, &count);
    for (int i = 0; i < count; i++)
      vb_list_add(valid, sizeof valid, vb_drive_info_at(i, NULL)->name);
    return vb_src_fail(ld, vb_src_at(g, "type"), dobj, "unknown drive type '%s' (valid: %s)", type,
                       valid);
  }
  keys[n++] = "type";
  if (info->file)
    keys[n++] = "file";
  for (const vb_drive_param *p = info->params; p->key; p++)
    keys[n++] = p->key;
  keys[n] = NULL;
  if ((rc = vb_src_check_keys(ld, g, dobj, keys, NULL)) != VB_OK ||
      (info->file && (rc = vb_src_string(ld, g, dobj, "file", 1, &file)) != VB_OK))
    return rc;
  d->kind = info->kind;
  for (const vb_drive_param *p = info->params; p->key; p++) {
    double x = p->fallback;
    if (p->offset == VB_DRIVE_INTEGER) {
      long v = (long)p->fallback;
      if ((rc = vb_src_integer(ld, g, dobj, p->key, p->required, &v)) != VB_OK)
        return rc;
      x = (double)v;
      if (strcmp(p->key, "seed") == 0)
        d->seed = (unsigned long)v;
      else
        comps = v;
    } else if ((rc = vb_src_number(ld, g, dobj, p->key, p->required, &x)) != VB_OK) {
      return rc;
    }
    if (!vb_drive_param_valid(p, x))
      return vb_src_refuse(ld, g, dobj, p->key, p->condition, x);
    if (p->offset != VB_DRIVE_INTEGER)
      memcpy((char *)d + p->offset, &x, sizeof x);
  }
  if (info->file)
    return read_profile(ld, vb_src_at(g, "file"), dobj, file, d);
  if (info->kind == VB_DRIVE_NOISE && vb_drive_noise_setup(d, comps) != VB_OK)
    return vb_src_fail(ld, g, dobj, "out of memory");
  return VB_OK;
}

/* A mass: one mode at its stiffness to ground (vb_body_mass_modes). */
static int
load_mass(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  int rc;

  if ((rc = vb_src_number(ld, g, obj, "mass", 1, &b->mass)) != VB_OK)
    return rc;
  if (!(b->mass > 0))
    return vb_src_refuse(ld, g, obj, "mass", "> 0", b->mass);
  if ((rc = vb_src_number(ld, g, obj, "u0", 0, &b->u0)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "v0", 0, &b->v0)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "k", 0, &b->k)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "c", 0, &b->c)) != VB_OK)
    return rc;
  if (!(b->k >= 0))
    return vb_src_refuse(ld, g, obj, "k", ">= 0", b->k);
  if (!(b->c >= 0))
    return vb_src_refuse(ld, g, obj, "c", ">= 0", b->c);
  if (vb_body_mass_modes(b) != VB_OK)
    return vb_src_fail(ld, g, obj, "out of memory");
  return VB_OK;
}

/* A wall: fixed at `position`, or driven. */
static int
load_wall(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  int rc;

  if ((rc = vb_src_number(ld, g, obj, "position", 0, &b->u0)) != VB_OK)
    return rc;
  if (vb_src_member(g, "drive") == NULL)
    return VB_OK;
  return vb_load_drive(ld, vb_src_member(g, "drive"), obj, &b->drive);
}

/* An oscillator: a mass on a spring and damper to ground given by its
 * natural frequency and damping, m (u'' + 2 sigma u' + omega^2 u) = f,
 * omega = 2 pi freq: a mass (vb_body_mass_modes) with k = m omega^2 and
 * c = 2 m sigma, its mode at exactly `freq`, damped by one of zeta, quality
 * or t60 as a modal body's mode is (load_damping), and at rest at its
 * static equilibrium under gravity, -g / omega^2, unless u0 says
 * otherwise. */
static int
load_oscillator(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b)
{
  double freq = 0.0, w;
  int rc;

  if ((rc = vb_src_number(ld, g, obj, "mass", 1, &b->mass)) != VB_OK)
    return rc;
  if (!(b->mass > 0))
    return vb_src_refuse(ld, g, obj, "mass", "> 0", b->mass);
  if ((rc = vb_src_number(ld, g, obj, "freq", 1, &freq)) != VB_OK)
    return rc;
  if (!(freq > 0))
    return vb_src_refuse(ld, g, obj, "freq", "> 0 (a mass without a spring is type 'mass')", freq);
  w = 2.0 * M_PI * freq;
  b->k = b->mass * w * w;
  b->u0 = -ld->scene->gravity / (w * w);
  if ((rc = vb_src_number(ld, g, obj, "u0", 0, &b->u0)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "v0", 0, &b->v0)) != VB_OK)
    return rc;
  if (vb_body_mass_modes(b) != VB_OK)
    return vb_src_fail(ld, g, obj, "out of memory");
  b->freq[0] = freq;
  if ((rc = load_damping(ld, g, obj, b)) != VB_OK)
    return rc;
  b->c = 2.0 * b->mass * b->sigma[0];
  return VB_OK;
}

/* The body types, one row each: name, kind, keys (with the units of the
 * numeric ones) and loader.  Everything that lists, checks or sweeps body
 * types iterates this table. */
static const vb_body_type body_types[] = {
    /* w0, vw0, kw, cw, radius, inertia, spin0 and w_drive: the tangential
     * direction and spin (issue 30), read by load_friction.c */
    {"mass", VB_BODY_MASS,
     (const char *const[]){"name", "type", "mass", "u0", "v0", "k", "c", "w0", "vw0", "kw", "cw",
                           "radius", "inertia", "spin0", NULL},
     (const vb_key_units[]){{"mass", "kg"},
                            {"u0", "m"},
                            {"v0", "m/s"},
                            {"k", "N/m"},
                            {"c", "N s/m"},
                            {"w0", "m"},
                            {"vw0", "m/s"},
                            {"kw", "N/m"},
                            {"cw", "N s/m"},
                            {"radius", "m"},
                            {"inertia", "kg m^2"},
                            {"spin0", "rad/s"},
                            {NULL, NULL}},
     1, load_mass},
    {"wall", VB_BODY_WALL, (const char *const[]){"name", "type", "position", "drive", "w_drive", NULL},
     (const vb_key_units[]){{"position", "m"}, {NULL, NULL}}, 1, load_wall},
    {"modal", VB_BODY_MODAL,
     (const char *const[]){"name", "type", "freq", "mass", "quality", "t60", "zeta", "loss", "q0",
                           "dq0", "gravity", "points", "preset", "modes_file", "directions",
                           "w_modes_file", "wq0", "wdq0", "pluck_angle", NULL},
     (const vb_key_units[]){{"freq", "Hz"},
                            {"mass", "kg"},
                            {"quality", "1"},
                            {"t60", "s"},
                            {"zeta", "1"},
                            {"loss[0]", "1/s"},
                            {"loss[1]", "s"},
                            {"q0", "m"},
                            {"dq0", "m/s"},
                            {"gravity", "1"},
                            {"wq0", "m"},
                            {"wdq0", "m/s"},
                            {"pluck_angle", "deg"},
                            {NULL, NULL}},
     0, load_modal},
    {"oscillator", VB_BODY_MASS,
     (const char *const[]){"name", "type", "mass", "freq", "zeta", "quality", "t60", "u0", "v0",
                           NULL},
     (const vb_key_units[]){{"mass", "kg"},
                            {"freq", "Hz"},
                            {"zeta", "1"},
                            {"quality", "1"},
                            {"t60", "s"},
                            {"u0", "m"},
                            {"v0", "m/s"},
                            {NULL, NULL}},
     1, load_oscillator},
};
#define NTYPES (int)(sizeof body_types / sizeof body_types[0])

/* The body type of a scene-file name, or NULL. */
const vb_body_type *
vb_body_type_lookup(const char *name)
{
  for (int t = 0; name != NULL && t < NTYPES; t++)
    if (strcmp(body_types[t].name, name) == 0)
      return &body_types[t];
  return NULL;
}

/* Row i of the body-type table, NULL beyond; *n (may be NULL) gets the count. */
const vb_body_type *
vb_body_type_at(int i, int *n)
{
  if (n != NULL)
    *n = NTYPES;
  return i >= 0 && i < NTYPES ? &body_types[i] : NULL;
}

/* Load one body from its group; i is its index. */
static int
load_body(vb_loader *ld, const config_setting_t *list, int i)
{
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  vb_body *b = &ld->scene->bodies[i];
  const char *type = NULL, *names[NTYPES], *const * keysets[NTYPES];
  const char *keys[VB_VARIANT_KEYS_MAX + 1];
  vb_key_rule rules[VB_VARIANT_KEYS_MAX + 1];
  char obj[OBJECT_MAX], only[VB_VARIANT_KEYS_MAX][LIST_MAX], valid[LIST_MAX] = "";
  int rc, t, self = -1, n = 0;

  if ((rc = vb_src_element(ld, list, i, "body", "{ name = ...; type = ...; }",
                           ld->scene->bodies[0].name, sizeof *b, obj, sizeof obj)) != VB_OK)
    return rc;
  b->line = config_setting_source_line(g);
  /* The type decides which keys are valid; an unknown or missing type is
   * reported after the keys, with all keys of every type allowed. */
  if (vb_src_member(g, "type") != NULL &&
      config_setting_type(vb_src_member(g, "type")) == CONFIG_TYPE_STRING)
    type = config_setting_get_string(vb_src_member(g, "type"));
  for (t = 0; t < NTYPES; t++) {
    names[t] = body_types[t].name;
    keysets[t] = body_types[t].keys;
    if (type != NULL && strcmp(type, names[t]) == 0)
      self = t;
    vb_list_add(valid, sizeof valid, names[t]);
  }
  vb_variant_keys("type", NTYPES, names, keysets, self, keys, &n, NULL, NULL);
  keys[n] = NULL;
  /* where the other types' keys apply: words of a refusal, built for one */
  rules[0].key = NULL;
  if (self >= 0 && !vb_src_keys_allowed(g, keys))
    vb_variant_keys("type", NTYPES, names, keysets, self, NULL, NULL, rules, only);
  if ((rc = vb_src_check_keys(ld, g, obj, keys, self >= 0 ? rules : NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, obj, "type", 1, &type)) != VB_OK)
    return rc;
  if (self < 0)
    return vb_src_fail(ld, vb_src_at(g, "type"), obj, "unknown type '%s' (valid: %s)", type, valid);
  b->kind = body_types[self].kind;
  b->type = body_types[self].name;
  return body_types[self].load(ld, g, obj, b);
}

/* Load the bodies list. */
int
vb_load_bodies(vb_loader *ld, const config_setting_t *list)
{
  int i, n = config_setting_length(list), rc;

  if (!(config_setting_type(list) == CONFIG_TYPE_LIST ||
        (config_setting_type(list) == CONFIG_TYPE_ARRAY && n == 0)))
    return vb_src_fail(ld, list, "top level", "'bodies' must be a list of groups ( { ... }, ... )");
  if (n == 0)
    return vb_src_fail(ld, list, "bodies", "at least one body is required");
  ld->scene->bodies = calloc((size_t)n, sizeof *ld->scene->bodies);
  if (ld->scene->bodies == NULL)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  ld->scene->nbodies = n;
  for (i = 0; i < n; i++)
    if ((rc = load_body(ld, list, i)) != VB_OK)
      return rc;
  return VB_OK;
}
