/* output/analysis.c - the analysis's part of the tables (issue 20,
 * doc/format.md): the /study/table columns' values (orbit, period,
 * impacts_per_period, orbit_tolerance, sections, attractor), the column
 * lists of /study/sections and /study/impact_map with vb_xtables, their
 * descriptor rows, and the attractor pass over a file's scenes.  Reads a
 * run's analysis (lib/run/analysis.c) and calls lib/base/orbit.c; the writer
 * (output/table.c, output/file.c) loops over what it lists. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "output.h"

/* ------------------------------------------------ the analysis's values */

/* Whether scene 0 has an analysis block; a section; an impact map. */
int
vb_has_analysis(const vb_scene *first)
{
  return first->analysis != NULL;
}
static int
has_section(const vb_scene *first)
{
  return first->analysis && first->analysis->section;
}
static int
has_map(const vb_scene *first)
{
  return first->analysis && first->analysis->map_contact >= 0;
}

/* The section's class (VB_ORBIT_*), its period and impacts per period
 * (0 when not periodic or unknown), the tolerance, the samples. */
void
vb_get_orbit(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;
  long v = 0;

  (void)c, (void)item;
  if (a && strcmp(col->name, "orbit") == 0)
    v = a->orbit.cls;
  else if (a && strcmp(col->name, "period") == 0)
    v = a->orbit.cls == VB_ORBIT_PERIODIC ? a->orbit.period : 0;
  else if (a && strcmp(col->name, "impacts_per_period") == 0)
    v = a->orbit.cls == VB_ORBIT_PERIODIC && a->impacts_per_period > 0 ? a->impacts_per_period : 0;
  else if (a && strcmp(col->name, "sections") == 0)
    v = a->ns;
  vb_column_put_long(col, out, v);
}

void
vb_get_orbit_tolerance(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;
  double v = a ? a->orbit.tolerance : NAN;

  (void)col, (void)c, (void)item;
  memcpy(out, &v, 8);
}

/* -1 until the writer assigns the file's attractor ids. */
void
vb_get_no_attractor(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  (void)rv, (void)c, (void)item;
  vb_column_put_long(col, out, -1);
}

/* Section row *item: its period index, time, and point c's u or v. */
static void
get_section_k(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;

  (void)c;
  vb_column_put_long(col, out, a->k0 + *(const long *)item);
}
static void
get_section_t(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  (void)col, (void)c;
  memcpy(out, &rv->analysis->t[*(const long *)item], 8);
}
static void
get_section_uv(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;
  const double *x = col->name[0] == 'u' ? a->u : a->v;

  memcpy(out, &x[*(const long *)item * a->an->npoints + c], 8);
}

/* The stroboscopic section: one row per sample of every scene. */
static const vb_column section_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "k", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64, .get = get_section_k},
    {.name = "t", .units = "s", .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = get_section_t},
    {.name = "u",
     .units = "m",
     .dim = VB_DIM_SCENE_CONTACT,
     .type = VB_COL_F64,
     .get = get_section_uv},
    {.name = "v",
     .units = "m/s",
     .dim = VB_DIM_SCENE_CONTACT,
     .type = VB_COL_F64,
     .get = get_section_uv},
    {.name = NULL},
};

#define MAP_F64(n, u)                                                                              \
  {                                                                                                \
    .name = #n, .units = u, .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = vb_column_member,            \
    .at = offsetof(vb_map_entry, n)                                                                \
  }

/* The impact map: one row per impact of its contact after the transient. */
static const vb_column map_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "contact",
     .units = "1",
     .dim = VB_DIM_EVENT,
     .type = VB_COL_I32,
     .get = vb_column_member,
     .at = offsetof(vb_map_entry, contact)},
    MAP_F64(t, "s"),
    MAP_F64(v_in, "m/s"),
    MAP_F64(phase, "rad"),
    MAP_F64(since_previous, "s"),
    {.name = "grazing",
     .units = "1",
     .dim = VB_DIM_EVENT,
     .type = VB_COL_I32,
     .get = vb_column_member,
     .at = offsetof(vb_map_entry, grazing)},
    {.name = NULL},
};

static long
section_rows(const vb_run_view *rv)
{
  return rv->analysis ? rv->analysis->ns : 0;
}
static const void *
section_item(const vb_run_view *rv, long r, long *buf)
{
  (void)rv;
  *buf = r;
  return buf;
}
static int
section_names(const vb_scene *first, const char **names)
{
  for (int p = 0; names && p < first->analysis->npoints; p++)
    names[p] = first->analysis->points[p].name;
  return first->analysis->npoints;
}
static long
map_rows(const vb_run_view *rv)
{
  return rv->analysis ? rv->analysis->nmap : 0;
}
static const void *
map_item(const vb_run_view *rv, long r, long *buf)
{
  (void)buf;
  return &rv->analysis->map[r];
}

/* The analysis's tables. */
const vb_xtable vb_xtables[VB_XT_COUNT] = {
    [VB_XT_SECTIONS] = {.name = "sections",
                        .dim = "section",
                        .cols = section_columns,
                        .present = has_section,
                        .rows = section_rows,
                        .item = section_item,
                        .dim2 = "point",
                        .names = section_names},
    [VB_XT_IMPACT_MAP] = {.name = "impact_map",
                          .dim = "impact",
                          .cols = map_columns,
                          .present = has_map,
                          .rows = map_rows,
                          .item = map_item},
    /* the stick and slip phases of the contacts with friction (issue 30;
     * output/table.c, lib/run/phases.c) */
    [VB_XT_PHASES] = {.name = "phases",
                      .dim = "phase",
                      .cols = vb_phase_columns,
                      .present = vb_has_friction,
                      .rows = vb_phase_rows,
                      .item = vb_phase_item},
};

/* ------------------------------------------------------- the attractors */

/* The field of a table called name, or NULL. */
static const vb_field *
field_named(const vb_table *t, const char *name)
{
  for (int i = 0; i < t->nfields; i++)
    if (strcmp(t->field[i].name, name) == 0)
      return &t->field[i];
  return NULL;
}

/* An integer field's value in a packed row. */
static long
field_long(const vb_field *f, const unsigned char *row)
{
  int64_t v;
  int32_t w;

  if (f->col->type == VB_COL_I32) {
    memcpy(&w, row + f->offset, 4);
    return w;
  }
  memcpy(&v, row + f->offset, 8);
  return (long)v;
}

/* The attractor tolerance of a file: scene 0's `attractors.tolerance`,
 * else from the largest period tolerance of its periodic scenes
 * (vb_analysis_attractor_tolerance). */
static double
attractor_tolerance(const vb_table *t, const unsigned char *rows, long nrows,
                    const vb_scene *first)
{
  const vb_field *fo = field_named(t, "orbit"), *ft = field_named(t, "orbit_tolerance");
  double most = 0.0, v;

  if (first->analysis->attractor_tolerance > 0.0)
    return first->analysis->attractor_tolerance;
  for (long i = 0; ft && ft->col->type == VB_COL_F64 && i < nrows; i++) {
    const unsigned char *row = rows + (size_t)i * t->rowsize;
    memcpy(&v, row + ft->offset, 8);
    if (field_long(fo, row) == VB_ORBIT_PERIODIC && v > most)
      most = v;
  }
  return vb_analysis_attractor_tolerance(most);
}

/* The attractor ids of a file's scenes. */
int
vb_table_attractors(const vb_table *t, unsigned char *rows, long nrows, int np, vb_cycle_fn cycle,
                    void *ctx, const vb_scene *first)
{
  const vb_field *fa = field_named(t, "attractor"), *fo = field_named(t, "orbit");
  const vb_field *fp = field_named(t, "period"), *fs = field_named(t, "sections");
  double **cyc, *scale;
  int *period, rc = 0, d = 2 * np;
  long *id, at = 0;

  if (!fa || !fo || !fp || !fs || np < 1)
    return 0;
  cyc = calloc((size_t)nrows + 1, sizeof *cyc);
  period = calloc((size_t)nrows + 1, sizeof *period);
  id = calloc((size_t)nrows + 1, sizeof *id);
  scale = calloc((size_t)d + 1, sizeof *scale);
  if (!cyc || !period || !id || !scale)
    rc = -1;
  /* each periodic scene's last `period` samples: its rows of the sections
   * are the `sections` after those of the rows before it */
  for (long i = 0; rc == 0 && i < nrows; i++) {
    const unsigned char *row = rows + (size_t)i * t->rowsize;
    long n = field_long(fs, row), m = field_long(fp, row);
    if (field_long(fo, row) == VB_ORBIT_PERIODIC && m >= 1 && m <= n) {
      if (!(cyc[i] = malloc((size_t)m * (size_t)d * sizeof **cyc)) ||
          cycle(ctx, at + n - m, m, cyc[i]) < 0)
        rc = -1;
      period[i] = (int)m;
      for (long k = 0; rc == 0 && k < m * d; k++)
        if (isfinite(cyc[i][k]) && fabs(cyc[i][k]) > scale[k % d])
          scale[k % d] = fabs(cyc[i][k]);
    }
    at += n > 0 ? n : 0;
  }
  /* each coordinate's scale: its largest |value| over the cycles */
  for (int k = 0; k < d; k++)
    scale[k] = scale[k] > 0.0 ? scale[k] : 1.0;
  if (rc == 0 && vb_orbit_attractors((const double *const *)cyc, period, nrows, d, scale,
                                     attractor_tolerance(t, rows, nrows, first), id) < 0)
    rc = -1;
  for (long i = 0; rc == 0 && i < nrows; i++)
    vb_column_put_long(fa->col, rows + (size_t)i * t->rowsize + fa->offset, id[i]);
  for (long i = 0; cyc && i < nrows; i++)
    free(cyc[i]);
  free(cyc);
  free(period);
  free(id);
  free(scale);
  return rc;
}
