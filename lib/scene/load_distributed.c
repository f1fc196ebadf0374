/* load_distributed.c - a distributed contact block: one contact that spans
 * a line of points on a modal body (a string, a bar, a line across a
 * plate or membrane) against a wall or a mass, with the barrier's height
 * at each point from a profile.  The first pass over the contacts list
 * (vb_load_distributed) appends its points to the body, named "NAME[k]",
 * with the body's preset shapes there; load_contact.c then expands the
 * block into one point contact "NAME[k]" per point, all with the block's
 * law, scheme and corrections.
 *
 *   { name = "neck"; between = ["neck_wall", "string"]; law = ...; scheme = ...;
 *     points  = { from = 0.001; to = 0.862; n = 862; y = 0.0; }   # a grid, m
 *             | { x = [0.1, 0.2, ...]; }                          # a list, m
 *             | { file = "frets.csv"; };                          # its x_m (or x) column
 *     profile = { height = -1e-3; }                               # one height, m
 *             | { heights = [...]; }                              # one per point, m
 *             | { file = "neck.csv"; }                            # x_m, height_m columns,
 *                                                                 # linear between rows
 *             | { parabola = [x0, h0, a]; };                      # h = h0 + a (x - x0)^2
 *   }
 *
 * The order of `between` gives the barrier's side: [body, other] puts it
 * above the body (compression x = u(x_k) - u_other - h_k: the body pushes
 * up into it), [other, body] below (x = u_other - u(x_k) + h_k).  Each
 * point contact's gap is the height with that sign; a driven wall moves
 * the whole profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* Most points one block may span. */
#define POINTS_MAX 100000

/* Whether a contacts-list element is a distributed block. */
int
vb_is_distributed(const config_setting_t *g)
{
  return config_setting_type(g) == CONFIG_TYPE_GROUP &&
         (vb_src_member(g, "points") != NULL || vb_src_member(g, "profile") != NULL);
}

/* Index of a body by name, or -1. */
static int
body_index(const vb_scene *sc, const char *name)
{
  for (int i = 0; i < sc->nbodies; i++)
    if (strcmp(sc->bodies[i].name, name) == 0)
      return i;
  return -1;
}

/* The block's 'between': a modal body with a preset and a wall or mass. */
static int
block_between(vb_loader *ld, const config_setting_t *g, const char *obj, vb_dist_block *out)
{
  const config_setting_t *m = vb_src_member(g, "between");
  const vb_scene *sc = ld->scene;
  const char *valid = "two body names, a modal body with a preset and a wall or a mass";
  int idx[2];

  if (m == NULL)
    return vb_src_fail(ld, g, obj, "missing required key 'between' (valid: %s)", valid);
  if (config_setting_length(m) != 2 ||
      (config_setting_type(m) != CONFIG_TYPE_ARRAY && config_setting_type(m) != CONFIG_TYPE_LIST))
    return vb_src_fail(ld, m, obj, "'between' must name two bodies (valid: %s)", valid);
  for (int i = 0; i < 2; i++) {
    const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
    const char *name =
        config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : NULL;
    if (name == NULL)
      return vb_src_fail(ld, m, obj, "'between' must name two bodies (valid: %s)", valid);
    if ((idx[i] = body_index(sc, name)) < 0)
      return vb_src_fail(ld, m, obj, "'between' names unknown body '%s' (valid: %s)", name, valid);
  }
  int modal[2] = {sc->bodies[idx[0]].kind == VB_BODY_MODAL,
                  sc->bodies[idx[1]].kind == VB_BODY_MODAL};
  if (modal[0] == modal[1])
    return vb_src_fail(ld, m, obj, "'between' joins '%s' (%s) and '%s' (%s) (valid: %s)",
                       sc->bodies[idx[0]].name, sc->bodies[idx[0]].type, sc->bodies[idx[1]].name,
                       sc->bodies[idx[1]].type, valid);
  out->body_first = modal[0];
  out->body = modal[0] ? idx[0] : idx[1];
  out->other = modal[0] ? idx[1] : idx[0];
  return VB_OK;
}

/* One point of a block, for finding two at the same place. */
typedef struct point_at {
  double x;  /* m */
  int index; /* among the block's points, from 0 */
} point_at;

static int
by_x(const void *a, const void *b)
{
  const point_at *p = a, *q = b;
  return p->x < q->x ? -1 : p->x > q->x ? 1 : p->index - q->index;
}

/* Refuse two points of a block at the same x (x = [0.01, 0.01], from =
 * to with n > 1, or two rows of a points file): they would be one
 * contact counted twice, its force doubled. */
static int
distinct_points(vb_loader *ld, const config_setting_t *p, const char *pobj, int grid,
                const double *x, int n)
{
  const config_setting_t *at_s = grid                    ? p
                                 : vb_src_member(p, "x") ? vb_src_at(p, "x")
                                                         : vb_src_at(p, "file");
  point_at *at;
  char num[32];
  int rc = VB_OK;

  if (n < 2)
    return VB_OK;
  if ((at = malloc((size_t)n * sizeof *at)) == NULL)
    return vb_src_fail(ld, p, pobj, "out of memory");
  for (int i = 0; i < n; i++)
    at[i] = (point_at){x[i], i};
  qsort(at, (size_t)n, sizeof *at, by_x);
  for (int i = 1; i < n && rc == VB_OK; i++)
    if (at[i].x == at[i - 1].x)
      rc = vb_src_fail(
          ld, at_s, pobj, "points %d and %d are both at x = %s (valid: distinct points%s)",
          at[i - 1].index + 1, at[i].index + 1, vb_number_text(at[i].x, num, sizeof num),
          grid ? ": from != to, or n = 1" : ", each once");
  free(at);
  return rc;
}

/* The positions of the block's points: a grid, a list or a file's x column.
 * Allocates *x and *y. */
static int
block_points(vb_loader *ld, const config_setting_t *p, const char *obj, double **x, double **y,
             int *n)
{
  static const char *const keys[] = {"from", "to", "n", "x", "file", "y", NULL};
  static const char *const valid = "{ from = ...; to = ...; n = ...; }, { x = [...]; } or "
                                   "{ file = \"points.csv\"; }, each with an optional y";
  int grid = vb_src_member(p, "from") || vb_src_member(p, "to") || vb_src_member(p, "n");
  int forms = grid + (vb_src_member(p, "x") != NULL) + (vb_src_member(p, "file") != NULL), rc;
  char pobj[2 * OBJECT_MAX];
  double y0 = 0.0;

  snprintf(pobj, sizeof pobj, "%s points", obj);
  *x = *y = NULL;
  *n = 0;
  if (config_setting_type(p) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, p, obj, "'points' must be a group (valid: %s)", valid);
  if ((rc = vb_src_check_keys(ld, p, pobj, keys, NULL)) != VB_OK ||
      (rc = vb_src_number(ld, p, pobj, "y", 0, &y0)) != VB_OK)
    return rc;
  if (forms != 1)
    return vb_src_fail(ld, p, pobj, "give the points by exactly one form (valid: %s)", valid);
  if (grid) {
    double from = 0.0, to = 0.0;
    long count = 0;
    if ((rc = vb_src_number(ld, p, pobj, "from", 1, &from)) != VB_OK ||
        (rc = vb_src_number(ld, p, pobj, "to", 1, &to)) != VB_OK ||
        (rc = vb_src_integer(ld, p, pobj, "n", 1, &count)) != VB_OK)
      return rc;
    if (count < 1 || count > POINTS_MAX || (count == 1 && from != to))
      return vb_src_refuse(ld, p, pobj, "n",
                           count == 1 ? ">= 2 when from != to" : "between 1 and 100000",
                           (double)count);
    if ((*x = malloc((size_t)count * sizeof(double))) == NULL)
      return vb_src_fail(ld, p, pobj, "out of memory");
    for (long i = 0; i < count; i++) /* x_i = from + (to - from) i/(n - 1), exact at both ends */
      (*x)[i] = i == count - 1
                    ? to
                    : from + (to - from) * (double)i / (double)(count > 1 ? count - 1 : 1);
    *n = (int)count;
  } else if (vb_src_member(p, "x") != NULL) {
    if ((rc = vb_src_array(ld, p, pobj, "x", 1, 0, -1, x, n, NULL)) != VB_OK)
      return rc;
  } else {
    const char *file = NULL, *cols[] = {"x_m|x"};
    char path[4200], msg[1024];
    if ((rc = vb_src_string(ld, p, pobj, "file", 1, &file)) != VB_OK)
      return rc;
    vb_src_data_path(ld, file, path, sizeof path);
    if (vb_csv_columns(path, 1, cols, x, n, msg, sizeof msg) != VB_OK)
      return vb_src_fail(ld, vb_src_at(p, "file"), pobj, "%s", msg);
  }
  if (*n < 1 || *n > POINTS_MAX)
    return vb_src_fail(ld, p, pobj, "%d points (valid: between 1 and %d)", *n, POINTS_MAX);
  if ((rc = distinct_points(ld, p, pobj, grid, *x, *n)) != VB_OK)
    return rc;
  if ((*y = malloc((size_t)*n * sizeof(double))) == NULL)
    return vb_src_fail(ld, p, pobj, "out of memory");
  for (int i = 0; i < *n; i++)
    (*y)[i] = y0;
  return VB_OK;
}

/* Heights of a profile file's (x, height) rows at the points, linear
 * between rows (exact at a row's x); x must increase. */
static int
profile_file(vb_loader *ld, const config_setting_t *p, const char *pobj, const double *x, int n,
             double *h)
{
  static const char *const cols[] = {"x_m|x", "height_m|height"};
  const char *file = NULL;
  char path[4200], msg[1024], n1[32], n2[32], n3[32];
  double *col[2];
  int rows = 0, rc;

  if ((rc = vb_src_string(ld, p, pobj, "file", 1, &file)) != VB_OK)
    return rc;
  vb_src_data_path(ld, file, path, sizeof path);
  if (vb_csv_columns(path, 2, cols, col, &rows, msg, sizeof msg) != VB_OK)
    return vb_src_fail(ld, vb_src_at(p, "file"), pobj, "%s", msg);
  const double *px = col[0], *ph = col[1];
  rc = rows < 1 ? vb_src_fail(ld, vb_src_at(p, "file"), pobj,
                                     "'%s' has no rows (valid: a row x,height per line under "
                                     "its header)", file) : VB_OK;
  for (int r = 1; rc == VB_OK && r < rows; r++)
    if (!(px[r] > px[r - 1]))
      rc = vb_src_fail(ld, vb_src_at(p, "file"), pobj,
                       "'%s' row %d: x = %s after %s (valid: x increasing)", file, r + 1,
                       vb_number_text(px[r], n1, sizeof n1),
                       vb_number_text(px[r - 1], n2, sizeof n2));
  for (int i = 0; rc == VB_OK && i < n; i++) {
    int lo = 0, hi = rows - 1;
    if (!(x[i] >= px[0] && x[i] <= px[rows - 1])) {
      rc = vb_src_fail(ld, vb_src_at(p, "file"), pobj,
                       "point %d at x = %s is outside the profile '%s' (valid: %s <= x <= %s)", i,
                       vb_number_text(x[i], n1, sizeof n1), file,
                       vb_number_text(px[0], n2, sizeof n2),
                       vb_number_text(px[rows - 1], n3, sizeof n3));
      break;
    }
    while (hi - lo > 1) { /* px[lo] <= x < px[hi] */
      int mid = (lo + hi) / 2;
      if (px[mid] <= x[i])
        lo = mid;
      else
        hi = mid;
    }
    if (x[i] == px[lo] || rows == 1)
      h[i] = ph[lo];
    else if (x[i] == px[hi])
      h[i] = ph[hi];
    else
      h[i] = ph[lo] + (ph[hi] - ph[lo]) * (x[i] - px[lo]) / (px[hi] - px[lo]);
  }
  free(col[0]);
  free(col[1]);
  return rc;
}

/* The barrier's height at each point from the block's profile. */
static int
block_profile(vb_loader *ld, const config_setting_t *p, const char *obj, const double *x, int n,
              double *h)
{
  static const char *const keys[] = {"height", "heights", "file", "parabola", NULL};
  static const char *const valid = "{ height = ...; }, { heights = [...]; }, "
                                   "{ file = \"profile.csv\"; } or { parabola = [x0, h0, a]; }";
  char pobj[2 * OBJECT_MAX];
  int forms = 0, rc;

  snprintf(pobj, sizeof pobj, "%s profile", obj);
  if (config_setting_type(p) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, p, obj, "'profile' must be a group (valid: %s)", valid);
  if ((rc = vb_src_check_keys(ld, p, pobj, keys, NULL)) != VB_OK)
    return rc;
  for (int k = 0; keys[k]; k++)
    forms += vb_src_member(p, keys[k]) != NULL;
  if (forms != 1)
    return vb_src_fail(ld, p, pobj, "give the heights by exactly one form (valid: %s)", valid);
  if (vb_src_member(p, "height") != NULL) {
    double h0 = 0.0;
    if ((rc = vb_src_number(ld, p, pobj, "height", 1, &h0)) != VB_OK)
      return rc;
    for (int i = 0; i < n; i++)
      h[i] = h0;
    return VB_OK;
  }
  if (vb_src_member(p, "heights") != NULL) {
    double *v = h;
    int cnt = n;
    if (config_setting_length(vb_src_member(p, "heights")) != n)
      return vb_src_fail(ld, vb_src_at(p, "heights"), pobj,
                         "'heights' has %d values (valid: one per point, %d)",
                         config_setting_length(vb_src_member(p, "heights")), n);
    return vb_src_array(ld, p, pobj, "heights", 1, 0, n, &v, &cnt, NULL);
  }
  if (vb_src_member(p, "file") != NULL)
    return profile_file(ld, p, pobj, x, n, h);
  const config_setting_t *pm = vb_src_member(p, "parabola");
  if ((config_setting_type(pm) == CONFIG_TYPE_ARRAY || config_setting_type(pm) == CONFIG_TYPE_LIST) &&
      config_setting_length(pm) != 3)
    return vb_src_fail(ld, pm, pobj, "'parabola' has %d values (valid: three, [x0, h0, a]: "
                       "h = h0 + a (x - x0)^2)", config_setting_length(pm));
  double *c = malloc(3 * sizeof(double));
  int cnt = 3;
  if (c == NULL)
    return vb_src_fail(ld, p, pobj, "out of memory");
  rc = vb_src_array(ld, p, pobj, "parabola", 1, 0, 3, &c, &cnt, NULL);
  for (int i = 0; rc == VB_OK && i < n; i++) /* h = h0 + a (x - x0)^2 */
    h[i] = c[1] + c[2] * (x[i] - c[0]) * (x[i] - c[0]);
  free(c);
  return rc;
}

/* Append n points at (x, y) named "NAME[k]" to modal body b, with the
 * shapes of the body's preset p there (computed by vb_preset_fill on a
 * scratch body, so the shapes are exactly the preset's). */
static int
append_points(vb_loader *ld, const config_setting_t *g, const char *obj, const char *name,
              vb_body *b, vb_preset *p, const double *x, const double *y, int n)
{
  vb_body s = {.nmodes = 0}, t = {.nmodes = 0};
  size_t m = (size_t)b->nmodes;
  char msg[1024];
  int np = b->npoints, rc;

  p->nmodes = b->nmodes;
  p->freq = p->sigma = NULL; /* the shapes alone are needed */
  p->pluck_h = 0.0;
  if ((rc = vb_preset_fill(&s, p, n, x, y, NULL, msg, sizeof msg)) != VB_OK)
    return vb_src_fail(ld, vb_src_at(g, "points"), obj, "%s", msg);
  if ((rc = vb_body_alloc_modes(&t, b->nmodes, np + n)) != VB_OK) {
    vb_body_clear_modes(&s);
    return vb_src_fail(ld, g, obj, "out of memory");
  }
  memcpy(t.freq, b->freq, 6 * m * sizeof(double)); /* freq .. gravity, one block */
  for (int i = 0; i < np; i++) {
    double *shape = t.points[i].shape;
    t.points[i] = b->points[i];
    t.points[i].shape = shape;
    memcpy(shape, b->points[i].shape, m * sizeof(double));
  }
  for (int i = 0; i < n; i++) {
    vb_point *pt = &t.points[np + i];
    snprintf(pt->name, sizeof pt->name, "%s[%d]", name, i);
    pt->x = x[i];
    pt->y = y[i];
    memcpy(pt->shape, s.points[i].shape, m * sizeof(double));
  }
  vb_body_clear_modes(&s);
  vb_body_clear_modes(b);
  b->nmodes = t.nmodes;
  b->npoints = t.npoints;
  b->freq = t.freq;
  b->sigma = t.sigma;
  b->modal_mass = t.modal_mass;
  b->q0 = t.q0;
  b->dq0 = t.dq0;
  b->gravity = t.gravity;
  b->points = t.points;
  return VB_OK;
}

/* The preset of scene body `body`, from its group in the document. */
static int
body_preset(vb_loader *ld, const config_setting_t *g, const char *obj, int body, vb_preset *p)
{
  const config_setting_t *root = config_setting_parent(config_setting_parent(g));
  const config_setting_t *list = vb_src_member(root, "bodies");
  const config_setting_t *bg = list ? config_setting_get_elem(list, (unsigned)body) : NULL;
  const config_setting_t *pg = bg ? vb_src_member(bg, "preset") : NULL;
  const vb_body *b = &ld->scene->bodies[body];
  double *freq = NULL, *sigma = NULL;
  char pobj[2 * OBJECT_MAX];
  int rc;

  if (pg == NULL)
    return vb_src_fail(ld, vb_src_at(g, "between"), obj,
                       "body '%s' has no preset: its mode shapes between its named points are "
                       "unknown (valid: a modal body with a 'preset' of kind %s)",
                       b->name, vb_preset_choices());
  snprintf(pobj, sizeof pobj, "body '%s' preset", b->name);
  rc = vb_load_preset_params(ld, pg, pobj, p, &freq, &sigma);
  free(freq);
  free(sigma);
  return rc;
}

/* First pass over a distributed block: its points and heights. */
int
vb_load_distributed(vb_loader *ld, const config_setting_t *g, vb_dist_block *out)
{
  const config_setting_t *m = vb_src_member(g, "name");
  const char *name =
      m && config_setting_type(m) == CONFIG_TYPE_STRING ? config_setting_get_string(m) : "";
  char obj[OBJECT_MAX];
  double *x = NULL, *y = NULL;
  vb_preset p;
  int rc;

  memset(out, 0, sizeof *out);
  snprintf(obj, sizeof obj, "contact '%.*s'", VB_NAME_MAX, name);
  if ((rc = vb_src_check_name(ld, g, obj, name)) != VB_OK)
    return rc;
  if (vb_src_member(g, "points") == NULL)
    return vb_src_fail(ld, g, obj,
                       "a distributed contact needs 'points' (valid: { from = ...; "
                       "to = ...; n = ...; }, { x = [...]; } or { file = \"points.csv\"; })");
  if ((rc = block_between(ld, g, obj, out)) != VB_OK ||
      (rc = body_preset(ld, g, obj, out->body, &p)) != VB_OK ||
      (rc = block_points(ld, vb_src_member(g, "points"), obj, &x, &y, &out->n)) != VB_OK)
    goto done;
  if (vb_src_member(vb_src_member(g, "points"), "y") != NULL && p.kind &&
      (strcmp(p.kind, "string") == 0 || strcmp(p.kind, "bar") == 0)) {
    /* a string's or bar's shapes depend on x alone: a y would be ignored */
    rc = vb_src_fail(ld, vb_src_at(vb_src_member(g, "points"), "y"), obj,
                     "'y' does not apply to the points of body '%s', a %s: its points are at x "
                     "along it (valid: 'y' for a plate or a membrane)",
                     ld->scene->bodies[out->body].name, p.kind);
    goto done;
  }
  const config_setting_t *sm = vb_src_member(g, "scheme");
  if (out->n > 1 && sm && config_setting_type(sm) == CONFIG_TYPE_STRING &&
      strcmp(config_setting_get_string(sm), "quadratic") == 0) {
    /* Ducceschi's closed form (eqs 16-19) solves one contact; a block's
     * points couple through the body's modes, where the scalar
     * discriminant does not govern the coupled step: two points of a
     * lossless spring already end "newton failed" (tests/dist_inputs.sh) */
    rc = vb_src_fail(ld, sm, obj,
                     "scheme 'quadratic' cannot step a distributed contact of %d points: its "
                     "closed form (Ducceschi eqs 16-19) is for one contact, and the points "
                     "couple through the body's modes (valid: two-point, three-point, sav, am1, "
                     "verlet, position-verlet, heun, rk4)",
                     out->n);
    goto done;
  }
  if (strlen(name) + 8 >= VB_NAME_MAX) { /* room for "[99999]" */
    rc = vb_src_fail(ld, vb_src_at(g, "name"), obj,
                     "name too long for its points' names NAME[k] (valid: at most %d characters)",
                     VB_NAME_MAX - 9);
    goto done;
  }
  if (vb_src_member(g, "profile") == NULL) {
    rc = vb_src_fail(ld, g, obj,
                     "a distributed contact needs 'profile' (valid: { height = ...; "
                     "}, { heights = [...]; }, { file = \"profile.csv\"; } or { parabola = "
                     "[x0, h0, a]; })");
    goto done;
  }
  if ((out->height = malloc((size_t)out->n * sizeof(double))) == NULL) {
    rc = vb_src_fail(ld, g, obj, "out of memory");
    goto done;
  }
  if ((rc = block_profile(ld, vb_src_member(g, "profile"), obj, x, out->n, out->height)) != VB_OK)
    goto done;
  out->first_point = ld->scene->bodies[out->body].npoints;
  rc = append_points(ld, g, obj, name, &ld->scene->bodies[out->body], &p, x, y, out->n);
done:
  free(x);
  free(y);
  if (rc != VB_OK) {
    free(out->height);
    out->height = NULL;
  }
  return rc;
}
