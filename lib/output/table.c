/* output/table.c - the study's tables as data (doc/format.md, vibro-3).
 *
 * Each table is one list of column descriptors (vb_table_columns,
 * vb_event_columns): name, units, dimension, type and how a finished run
 * gives the value, the way lib/run/record.c lists the signals.  A layout
 * expands a list into fields (one per swept path; [contact] values for a
 * per-contact column); packing a rv, creating the datasets, writing and
 * reading them back all loop over the fields.  In a file a table is a
 * group of netCDF-style columns along its dimension (`scene` or `event`,
 * a dimension scale) and, for per-contact columns, `contact` (a dimension
 * scale of the contact names), each with its `units`.  Knows nothing of
 * shards, studies or threads. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5_hl.h>

#include "run/run.h"
#include "h5util.h"
#include "output.h"

/* ------------------------------------------------------- the values */

/* The run's status code (vb_run_code), not parsed back from its text. */
static void
get_code(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  (void)c, (void)ev;
  vb_column_put_long(col, out, rv->code);
}

/* The run's status text, cut to VB_STATUS_LEN bytes. */
static void
get_status(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  const char *s = rv->status;
  size_t n = strlen(s);

  (void)col, (void)c, (void)ev;
  memset(out, 0, VB_STATUS_LEN);
  memcpy(out, s, n < VB_STATUS_LEN ? n : VB_STATUS_LEN);
}

static void
get_samples(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  (void)c, (void)ev;
  vb_column_put_long(col, out, rv->samples);
}

/* Seconds between recorded samples. */
static void
get_interval(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  (void)col, (void)c, (void)ev;
  memcpy(out, &rv->interval, 8);
}

/* Total energy at the last sample, J (NaN without samples). */
static void
get_final(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  double v = rv->final_energy;

  (void)col, (void)c, (void)ev;
  memcpy(out, &v, 8);
}

static void
get_balance(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  double v = rv->balance_error;

  (void)col, (void)c, (void)ev;
  memcpy(out, &v, 8);
}

static void
get_balance_worst(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  double v = rv->balance_worst;

  (void)col, (void)c, (void)ev;
  memcpy(out, &v, 8);
}

/* The largest drift of a scheme's auxiliary state from its definition
 * over the run (sav: |psi - sqrt(2 V)| at the half steps, J^(1/2)); NaN
 * when no scheme of the scene keeps a state. */
static void
get_state_drift(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  double v = rv->state_drift;

  (void)col, (void)c, (void)ev;
  memcpy(out, &v, 8);
}

/* A long member of contact c's results (at col->at). */
static void
get_contact_long(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  long v;

  (void)ev;
  memcpy(&v, (const char *)&rv->contacts[c] + col->at, sizeof v);
  vb_column_put_long(col, out, v);
}

/* The first impact with a measured onset (one engaged at t = 0 has none), s. */
static void
get_first_impact(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  const vb_contact_result *r = &rv->contacts[c];
  double x = NAN;

  (void)col, (void)ev;
  for (long e = 0; e < r->nevents && !isfinite(x); e++)
    x = r->events[e].t_on;
  memcpy(out, &x, 8);
}

/* Mean of the impacts' finite durations, s (NaN when none is). */
static void
get_mean_duration(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  const vb_contact_result *r = &rv->contacts[c];
  double sum = 0.0, v;
  long counted = 0;

  (void)col, (void)ev;
  for (long e = 0; e < r->nevents; e++)
    if (isfinite(r->events[e].duration)) {
      sum += r->events[e].duration;
      counted++;
    }
  v = counted > 0 ? sum / (double)counted : NAN;
  memcpy(out, &v, 8);
}

/* Largest compression at a sample, m (NaN without samples). */
static void
get_max_compression(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  double v = rv->samples > 0 ? rv->contacts[c].max_compression : NAN;

  (void)col, (void)ev;
  memcpy(out, &v, 8);
}

/* The contact of an event: its index in /study/table's `contact` coordinate. */
static void
get_event_contact(const vb_column *col, const vb_run_view *rv, int c, const void *ev, void *out)
{
  (void)rv, (void)ev;
  vb_column_put_long(col, out, c);
}

/* Whether scene 0 asks for the largest Lyapunov exponent. */
static int
has_lyapunov(const vb_scene *first)
{
  return first->analysis && first->analysis->lyapunov;
}

/* The largest Lyapunov exponent (lyapunov.c), over the whole measured
 * time or its second half, 1/s. */
static void
get_lyapunov(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  (void)c, (void)item;
  memcpy(out, col->at ? &rv->lyapunov_half : &rv->lyapunov, 8);
}

/* The relative perturbation the twin started with (the analysis block's,
 * or the default from the contacts' resolution, lib/run/lyapunov.c), 1. */
static void
get_lyapunov_perturbation(const vb_column *col, const vb_run_view *rv, int c, const void *item,
                          void *out)
{
  double p = rv->lyapunov_perturbation;

  (void)col, (void)c, (void)item;
  memcpy(out, &p, 8);
}

#define CONTACT_LONG(n, member)                                                                    \
  {.name = n, .units = "1", .dim = VB_DIM_SCENE_CONTACT, .type = VB_COL_I64,                       \
   .get = get_contact_long, .at = offsetof(vb_contact_result, member)}

/* The study table: one row per scene. */
const vb_column vb_table_columns[] = {
    [VB_TC_SCENE] = {.name = "scene", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I64},
    [VB_TC_SWEPT] = {.name = "", .dim = VB_DIM_SWEPT, .type = VB_COL_F64},
    [VB_TC_STATUS_CODE] = {.name = "status_code", .units = "1", .dim = VB_DIM_SCENE,
                           .type = VB_COL_I32, .get = get_code},
    [VB_TC_STATUS] = {.name = "status", .dim = VB_DIM_SCENE, .type = VB_COL_TEXT,
                      .get = get_status},
    [VB_TC_SAMPLES] = {.name = "samples", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I64,
                       .get = get_samples},
    [VB_TC_INTERVAL] = {.name = "sample_interval", .units = "s", .dim = VB_DIM_SCENE,
                        .type = VB_COL_F64, .get = get_interval},
    [VB_TC_FINAL_ENERGY] = {.name = "final_energy", .units = "J", .dim = VB_DIM_SCENE,
                            .type = VB_COL_F64, .get = get_final},
    [VB_TC_BALANCE] = {.name = "energy_balance_error", .units = "J", .dim = VB_DIM_SCENE,
                       .type = VB_COL_F64, .get = get_balance},
    /* rows of /study/events, set by the writer of each file */
    [VB_TC_EVENTS_START] = {.name = "events_start", .units = "1", .dim = VB_DIM_SCENE,
                            .type = VB_COL_I64},
    [VB_TC_EVENTS_COUNT] = {.name = "events_count", .units = "1", .dim = VB_DIM_SCENE,
                            .type = VB_COL_I64},
    {.name = "state_drift", .units = "J^(1/2)", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = get_state_drift},
    /* energy_balance_error's largest magnitude over the run's steps */
    {.name = "energy_balance_worst", .units = "J", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = get_balance_worst},
    CONTACT_LONG("impacts", nevents),
    {.name = "first_impact", .units = "s", .dim = VB_DIM_SCENE_CONTACT, .type = VB_COL_F64,
     .get = get_first_impact},
    {.name = "mean_contact_duration", .units = "s", .dim = VB_DIM_SCENE_CONTACT,
     .type = VB_COL_F64, .get = get_mean_duration},
    {.name = "max_compression", .units = "m", .dim = VB_DIM_SCENE_CONTACT, .type = VB_COL_F64,
     .get = get_max_compression},
    CONTACT_LONG("newton_failures", newton_failures),
    CONTACT_LONG("fallbacks", fallbacks),
    CONTACT_LONG("newton_iterations", iterations),
    /* 1: the scene ended inside an impact (its event has NaN t_off) */
    CONTACT_LONG("engaged_at_end", engaged_at_end),
    /* 1: the run says the scheme stopped resolving the contact (run.c's
     * under_resolved: a scheme state's drift past a tenth of sqrt(2 E), or
     * one impact engaged for half the run or more against a prediction
     * under the scheme's min_contact_steps and at least 10 times shorter); its status says "done, under-resolved: ..." */
    CONTACT_LONG("under_resolved", under_resolved),
    /* the analysis (lib/run/analysis.c, orbit.c), with an analysis block only */
    {.name = "orbit", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I32, .get = vb_get_orbit,
     .present = vb_has_analysis, .flag_meanings = "no_section not_settled periodic irregular"},
    {.name = "period", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I32, .get = vb_get_orbit,
     .present = vb_has_analysis},
    {.name = "impacts_per_period", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I32,
     .get = vb_get_orbit, .present = vb_has_analysis},
    {.name = "orbit_tolerance", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = vb_get_orbit_tolerance, .present = vb_has_analysis},
    {.name = "sections", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I64, .get = vb_get_orbit,
     .present = vb_has_analysis},
    {.name = "attractor", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_I64,
     .get = vb_get_no_attractor, .present = vb_has_analysis},
    /* friction (issue 30, lib/run/phases.c), with a contact with friction
     * only: its work at the end, J, and its share of steps sticking (.at 1) */
    {.name = "friction_work", .units = "J", .dim = VB_DIM_SCENE_CONTACT, .type = VB_COL_F64,
     .get = vb_get_friction, .present = vb_has_friction},
    {.name = "stick_share", .units = "1", .dim = VB_DIM_SCENE_CONTACT, .type = VB_COL_F64,
     .get = vb_get_friction, .at = 1, .present = vb_has_friction},
    /* on request (analysis.lyapunov, lib/run/lyapunov.c); .at 1: the second half */
    {.name = "lyapunov", .units = "1/s", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = get_lyapunov, .present = has_lyapunov},
    {.name = "lyapunov_second_half", .units = "1/s", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = get_lyapunov, .at = 1, .present = has_lyapunov},
    {.name = "lyapunov_perturbation", .units = "1", .dim = VB_DIM_SCENE, .type = VB_COL_F64,
     .get = get_lyapunov_perturbation, .present = has_lyapunov},
    {.name = NULL},
};

#define EVENT_F64(n, u)                                                                            \
  {.name = #n, .units = u, .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = vb_column_member, \
   .at = offsetof(vb_event, n)}
#define EVENT_I32(n)                                                                               \
  {.name = #n, .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32, .get = vb_column_member, \
   .at = offsetof(vb_event, n)}

/* The events: one row per impact of every scene (vb_event). */
const vb_column vb_event_columns[] = {
    [VB_EC_SCENE] = {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    [VB_EC_CONTACT] = {.name = "contact", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32,
                       .get = get_event_contact},
    EVENT_F64(t_on, "s"),
    EVENT_F64(t_off, "s"),
    EVENT_F64(duration, "s"),
    EVENT_F64(v_in, "m/s"),
    EVENT_F64(v_out, "m/s"),
    EVENT_F64(x_max, "m"),
    EVENT_F64(peak_force, "N"),
    EVENT_F64(x_max_pred, "m"),
    EVENT_F64(v_out_pred, "m/s"),
    EVENT_F64(v_out_exact, "m/s"),
    EVENT_F64(duration_pred, "s"),
    EVENT_F64(energy_before, "J"),
    EVENT_F64(energy_after, "J"),
    EVENT_F64(energy_correction, "J"),
    EVENT_I32(newton_iterations_max),
    EVENT_I32(fallbacks),
    EVENT_I32(samples),
    EVENT_I32(corrections),
    {.name = "", .dim = VB_DIM_SWEPT, .type = VB_COL_F64},
    {.name = NULL},
};

/* ------------------------------------------------------- the fields */

/* Bytes of one value of a type. */
static size_t
type_size(vb_col_type type)
{
  static const size_t sizes[] = {
      [VB_COL_I64] = 8, [VB_COL_I32] = 4, [VB_COL_F64] = 8, [VB_COL_TEXT] = VB_STATUS_LEN};
  return sizes[type];
}

/* Append a field; 0 or -1. */
static int
field_add(vb_table *t, int *cap, const vb_column *col, const char *name, const char *units,
          int param, int width)
{
  vb_field *f;

  for (int i = 0; i < t->nfields; i++)
    if (strcmp(t->field[i].name, name) == 0)
      return -1; /* a swept path named like a column */
  if (t->nfields == *cap) {
    int ncap = *cap ? 2 * *cap : 32;
    vb_field *g = realloc(t->field, (size_t)ncap * sizeof *g);
    if (!g)
      return -1;
    t->field = g;
    *cap = ncap;
  }
  f = &t->field[t->nfields++];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  f->units = units;
  f->col = col;
  f->param = param;
  f->width = width;
  f->size = type_size(col->type);
  f->offset = t->rowsize;
  t->rowsize += f->size * (size_t)width;
  return 0;
}

/* Expand a column list for a layout, its second dimension of n2 values. */
static int
table_init(vb_table *t, const char *name, const char *dim, const vb_column *cols,
           const vb_output_layout *lay, const char *dim2, int n2)
{
  int cap = 0, n = 0, k, p, rc = 0;

  t->name = name;
  t->dim = dim;
  t->cols = cols;
  t->dim2 = dim2;
  t->ncontacts = n2;
  while (cols[n].name)
    n++;
  t->at = calloc((size_t)n + 1, sizeof *t->at);
  if (!t->at)
    return -1;
  for (k = 0; k < n && rc == 0; k++) {
    const vb_column *c = &cols[k];
    t->at[k] = t->rowsize;
    if (c->present && !c->present(lay->first))
      continue;
    if (c->dim == VB_DIM_SWEPT)
      for (p = 0; p < lay->nparams && rc == 0; p++)
        rc = field_add(t, &cap, c, lay->param_names[p], lay->param_units[p], p, 1);
    else
      rc = field_add(t, &cap, c, c->name, c->units, -1,
                     c->dim == VB_DIM_SCENE_CONTACT ? t->ncontacts : 1);
  }
  return rc;
}

/* Expand a column list for a layout. */
int
vb_table_init(vb_table *t, const char *name, const char *dim, const vb_column *cols,
              const vb_output_layout *lay)
{
  memset(t, 0, sizeof *t);
  return table_init(t, name, dim, cols, lay, "contact", lay->first->ncontacts);
}

/* Expand observer table x for a layout. */
int
vb_xtable_init(vb_table *t, int x, const vb_output_layout *lay)
{
  const vb_xtable *xt = vb_xtable_at(x, NULL);
  int n2 = lay->first->ncontacts;

  memset(t, 0, sizeof *t);
  if (!xt->present(lay->first))
    return 0;
  if (xt->names) {
    n2 = xt->names(lay->first, NULL);
    t->names2 = calloc((size_t)n2 + 1, sizeof *t->names2);
    if (!t->names2)
      return -1;
    xt->names(lay->first, t->names2);
    t->contacts = t->names2;
  }
  return table_init(t, xt->name, xt->dim, xt->cols, lay, xt->dim2 ? xt->dim2 : "contact", n2);
}

/* Release a table's fields. */
void
vb_table_clear(vb_table *t)
{
  free(t->field);
  free(t->at);
  free(t->names2);
  memset(t, 0, sizeof *t);
}

/* The integer at a packed row's column (its first value). */
long
vb_row_long(const vb_table *t, const unsigned char *row, int column)
{
  int64_t v;
  int32_t w;

  if (t->cols[column].type == VB_COL_I32) {
    memcpy(&w, row + t->at[column], 4);
    return w;
  }
  memcpy(&v, row + t->at[column], 8);
  return (long)v;
}

/* The double at a packed row's column. */
double
vb_row_double(const vb_table *t, const unsigned char *row, int column)
{
  double v;

  memcpy(&v, row + t->at[column], 8);
  return v;
}

/* Set an int64 column of a packed row. */
void
vb_row_set_long(const vb_table *t, unsigned char *row, int column, long v)
{
  int64_t x = v;

  memcpy(row + t->at[column], &x, 8);
}

/* Copy a member of size bytes (8: a double or int64; 4: an int stored as
 * int32, as vb_column_member does) with a copy of constant size. */
static inline void
member_copy(unsigned char *out, const unsigned char *member, size_t size)
{
  if (size == 8)
    memcpy(out, member, 8);
  else
    memcpy(out, member, 4);
}

/* Fill field f of a row at `at`: of contact c and item ev. */
static void
field_fill(const vb_field *f, unsigned char *at, const double *params, const vb_run_view *rv, int c,
           const void *ev)
{
  if (f->col->dim == VB_DIM_SWEPT)
    memcpy(at, &params[f->param], 8);
  else if (f->width > 1 || f->col->dim == VB_DIM_SCENE_CONTACT)
    for (int k = 0; k < f->width; k++)
      f->col->get(f->col, rv, k, ev, at + (size_t)k * f->size);
  else if (f->col->get == vb_column_member && ev)
    /* a plain member of the item: vb_column_member's copy, inline */
    member_copy(at, (const unsigned char *)ev + f->col->at, f->size);
  else if (f->col->get)
    f->col->get(f->col, rv, c, ev, at);
}

/* Fill the fields of one row: scene `index` (the first column), contact
 * c and item ev (an event, an impact-map entry, a section index). */
static void
row_fill(const vb_table *t, unsigned char *row, long index, const double *params,
         const vb_run_view *rv, int c, const void *ev)
{
  memset(row, 0, t->rowsize);
  for (int i = 0; i < t->nfields; i++)
    field_fill(&t->field[i], row + t->field[i].offset, params, rv, c, ev);
  /* the first column is the scene's index in both tables */
  vb_column_put_long(t->field[0].col, row + t->field[0].offset, index);
}

/* Fill the table row of a run. */
void
vb_table_fill(const vb_table *t, unsigned char *row, long index, const double *params,
              const vb_run_view *rv)
{
  row_fill(t, row, index, params, rv, -1, NULL);
}

/* Fill n event rows of contact c from its events ev[n], field by field:
 * the same bytes as row_fill of each, with the plain members (18 of an
 * event's 21 fields) copied in a loop over the rows instead of a pass
 * over the fields per row (726 instructions an event: 10 M for the
 * 14,000 events of a 64-point bridge). */
static void
events_rows(const vb_table *t, unsigned char *out, long n, long index, const double *params,
            const vb_run_view *rv, int c, const vb_event *ev)
{
  memset(out, 0, (size_t)n * t->rowsize);
  for (int i = 0; i < t->nfields; i++) {
    const vb_field *f = &t->field[i];
    unsigned char *at = out + f->offset;
    if (f->col->get == vb_column_member && f->col->dim != VB_DIM_SWEPT && f->width == 1 &&
        f->col->dim != VB_DIM_SCENE_CONTACT)
      for (long e = 0; e < n; e++, at += t->rowsize)
        member_copy(at, (const unsigned char *)&ev[e] + f->col->at, f->size);
    else
      for (long e = 0; e < n; e++, at += t->rowsize)
        field_fill(f, at, params, rv, c, &ev[e]);
  }
  /* the first column is the scene's index */
  for (long e = 0; e < n; e++)
    vb_column_put_long(t->field[0].col, out + (size_t)e * t->rowsize + t->field[0].offset, index);
}

/* Fill the event rows of a run. */
void
vb_events_fill(const vb_table *t, unsigned char *out, long index, const double *params,
               const vb_run_view *rv)
{
  const vb_scene *sc = rv->scene;

  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = &rv->contacts[c];
    if (r->nevents > 0)
      events_rows(t, out, r->nevents, index, params, rv, c, r->events);
    out += (size_t)r->nevents * t->rowsize;
  }
}

/* Fill the rows of observer table x of a run. */
void
vb_xtable_fill(const vb_table *t, int x, unsigned char *out, long index, const vb_run_view *rv)
{
  const vb_xtable *xt = vb_xtable_at(x, NULL);
  long n = xt->rows(rv), buf;

  for (long r = 0; r < n; r++, out += t->rowsize)
    row_fill(t, out, index, NULL, rv, -1, xt->item(rv, r, &buf));
}

/* ----------------------------------------------------- in the file */

/* The file (file 1) or memory (0) type of a column; closed by the caller. */
static hid_t
h5_type(vb_col_type type, int file)
{
  hid_t t;

  switch (type) {
  case VB_COL_I64: return H5Tcopy(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
  case VB_COL_I32: return H5Tcopy(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
  case VB_COL_F64: return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  default:
    t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, VB_STATUS_LEN) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
      H5Tclose(t);
      t = H5I_INVALID_HID;
    }
    return t;
  }
}

/* The `contact` coordinate (the table's second dimension, dim2: `point`
 * in the sections): the names, fixed-length strings. */
static hid_t
contact_coordinate(hid_t g, const vb_table *t)
{
  size_t len = 1, i;
  hsize_t n = (hsize_t)t->ncontacts;
  hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &n, NULL), ds = H5I_INVALID_HID;
  char *names;

  for (i = 0; i < (size_t)t->ncontacts; i++)
    len = strlen(t->contacts[i]) > len ? strlen(t->contacts[i]) : len;
  names = calloc((size_t)n + 1, len);
  if (names && type >= 0 && space >= 0 && H5Tset_size(type, len) >= 0 &&
      H5Tset_strpad(type, H5T_STR_NULLPAD) >= 0)
    ds = H5Dcreate2(g, t->dim2, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (i = 0; names && i < (size_t)n; i++)
    memcpy(names + i * len, t->contacts[i], strlen(t->contacts[i]));
  if (ds >= 0 && ((n > 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) < 0) ||
                  H5DSset_scale(ds, t->dim2) < 0)) {
    vb_h5_close(ds);
    ds = H5I_INVALID_HID;
  }
  free(names);
  vb_h5_close(type);
  vb_h5_close(space);
  return ds;
}

/* The dimension coordinate 0 .. rows-1 of a table whose first field is
 * not one (the events: `event`). */
static hid_t
count_coordinate(hid_t g, const char *name, long rows)
{
  hsize_t n = (hsize_t)rows;
  hid_t ds = vb_h5_dataset(g, name, H5T_STD_I64LE, 1, &n, "1");
  int64_t *k = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *k);
  int rc = ds >= 0 && k ? 0 : -1;

  for (long i = 0; k && i < rows; i++)
    k[i] = i;
  if (rc == 0 && rows > 0 && H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, k) < 0)
    rc = -1;
  if (rc == 0 && H5DSset_scale(ds, name) < 0)
    rc = -1;
  free(k);
  if (rc < 0) {
    vb_h5_close(ds);
    return H5I_INVALID_HID;
  }
  return ds;
}

/* CF's flag_values (0, 1, ..., one per word, int32 like the column) and
 * flag_meanings of a code column; 0 or -1. */
static int
flags_write(hid_t ds, const char *meanings)
{
  int32_t v[16];
  hsize_t n = 1;
  hid_t space, a;
  int rc;

  for (const char *p = meanings; *p; p++)
    n += *p == ' ';
  n = n < 16 ? n : 16;
  for (hsize_t i = 0; i < n; i++)
    v[i] = (int32_t)i;
  space = H5Screate_simple(1, &n, NULL);
  a = space >= 0 ? H5Acreate2(ds, "flag_values", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)
                 : H5I_INVALID_HID;
  rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, v) >= 0 ? 0 : -1;
  vb_h5_close(a);
  vb_h5_close(space);
  return rc < 0 ? -1 : vb_h5_attr_string(ds, "flag_meanings", meanings);
}

/* Create a table's group and datasets. */
int
vb_table_create(hid_t study, const vb_table *t, long rows, hid_t *ds)
{
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = H5I_INVALID_HID;
  hid_t dim = H5I_INVALID_HID, contact = H5I_INVALID_HID;
  vb_h5_dims dims = {0};
  vb_h5_attrs a = {0}; /* the columns' creation properties and units' types */
  int first = 0, rc, i;

  for (i = 0; i < t->nfields; i++)
    ds[i] = H5I_INVALID_HID;
  /* the columns keep their order (readers list them as created) */
  if (gcpl >= 0 && H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
    g = H5Gcreate2(study, t->name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  vb_h5_close(gcpl);
  rc = g >= 0 ? 0 : -1;
  /* the dimension's coordinate: the first field when named for it */
  if (rc == 0 && strcmp(t->field[0].name, t->dim) != 0) {
    dim = count_coordinate(g, t->dim, rows);
    rc = dim < 0 ? -1 : 0;
  }
  for (i = 0; i < t->nfields && rc == 0; i++)
    if (t->field[i].col->dim == VB_DIM_SCENE_CONTACT && contact < 0) {
      contact = contact_coordinate(g, t);
      rc = contact < 0 ? -1 : 0;
    }
  for (i = 0; i < t->nfields && rc == 0; i++) {
    const vb_field *f = &t->field[i];
    hsize_t d[2] = {(hsize_t)rows, (hsize_t)f->width};
    int two = f->col->dim == VB_DIM_SCENE_CONTACT;
    hid_t type = h5_type(f->col->type, 1);

    ds[i] = type < 0 ? H5I_INVALID_HID : vb_h5_dataset_in(&a, g, f->name, type, two ? 2 : 1, d, f->units);
    vb_h5_close(type);
    if (ds[i] < 0) {
      rc = -1;
    } else if (i == 0 && dim < 0) {
      rc = H5DSset_scale(ds[i], t->dim) < 0 ? -1 : 0;
      dim = ds[i];
      first = 1;
    } else {
      hid_t scales[2] = {dim, contact};
      rc = vb_h5_dims_attach(&dims, ds[i], scales, two ? 2 : 1);
    }
    if (rc == 0 && f->col->flag_meanings && flags_write(ds[i], f->col->flag_meanings) < 0)
      rc = -1;
  }
  /* the scales' lists of the columns, once (vb_h5_dims_attach) */
  if (vb_h5_dims_done(&dims) < 0 || vb_h5_attrs_done(&a) < 0)
    rc = -1;
  if (!first)
    vb_h5_close(dim);
  vb_h5_close(contact);
  vb_h5_close(g);
  return rc;
}

/* Gather a field of nr packed rows into col: the values one after another
 * (a copy of a constant size per row for the 8- and 4-byte values, which
 * the compiler makes a move; the events of a 64-point bridge are 14,000
 * rows of 21 fields, a libc call each before). */
static void
field_gather(const vb_table *t, const vb_field *f, unsigned char *col, long nr,
             const unsigned char *rows)
{
  size_t w = f->size * (size_t)f->width;
  const unsigned char *src = rows + f->offset;

  if (w == 8)
    for (long r = 0; r < nr; r++, src += t->rowsize)
      memcpy(col + (size_t)r * 8, src, 8);
  else if (w == 4)
    for (long r = 0; r < nr; r++, src += t->rowsize)
      memcpy(col + (size_t)r * 4, src, 4);
  else
    for (long r = 0; r < nr; r++, src += t->rowsize)
      memcpy(col + (size_t)r * w, src, w);
}

/* Write rows of every field. */
int
vb_table_write(const vb_table *t, const hid_t *ds, long r0, long nr, const unsigned char *rows)
{
  size_t most = 1;
  unsigned char *col;
  int rc = 0;

  for (int i = 0; i < t->nfields; i++)
    most = t->field[i].size * (size_t)t->field[i].width > most
               ? t->field[i].size * (size_t)t->field[i].width
               : most;
  col = malloc((size_t)(nr > 0 ? nr : 1) * most);
  if (!col)
    return -1;
  for (int i = 0; i < t->nfields && rc == 0; i++) {
    const vb_field *f = &t->field[i];
    hid_t mtype = h5_type(f->col->type, 0);
    field_gather(t, f, col, nr, rows);
    rc = mtype < 0 ? -1 : vb_h5_write_rows(ds[i], mtype, r0, nr, col);
    vb_h5_close(mtype);
  }
  free(col);
  return rc;
}

/* Read a field's dataset under g into rows (nrows rows); 0 or -1. */
static int
field_read(hid_t g, const vb_table *t, const vb_field *f, unsigned char *rows, long nrows)
{
  hid_t ds = H5Dopen2(g, f->name, H5P_DEFAULT), space = ds >= 0 ? H5Dget_space(ds) : -1;
  hid_t mtype = h5_type(f->col->type, 0);
  hsize_t d[2] = {0, 1};
  size_t w = f->size * (size_t)f->width;
  unsigned char *col = NULL;
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1, rc = -1;

  if (rank >= 1 && rank <= 2 && H5Sget_simple_extent_dims(space, d, NULL) >= 0 &&
      d[0] == (hsize_t)nrows && (rank == 1 ? f->width == 1 : d[1] == (hsize_t)f->width) &&
      mtype >= 0 && (col = malloc((size_t)(nrows > 0 ? nrows : 1) * (w > 0 ? w : 1))) != NULL &&
      (nrows == 0 || w == 0 || H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) >= 0)) {
    for (long r = 0; r < nrows; r++)
      memcpy(rows + (size_t)r * t->rowsize + f->offset, col + (size_t)r * w, w);
    rc = 0;
  }
  free(col);
  vb_h5_close(mtype);
  vb_h5_close(space);
  vb_h5_close(ds);
  return rc;
}

/* Read a whole table back into packed rows. */
int
vb_table_read(hid_t file, const vb_table *t, unsigned char **rows, long *nrows)
{
  char path[64];
  hid_t g, ds, space;
  hssize_t n;
  int rc = 0;

  *rows = NULL;
  *nrows = 0;
  snprintf(path, sizeof path, "study/%s", t->name);
  g = H5Gopen2(file, path, H5P_DEFAULT);
  ds = g >= 0 ? H5Dopen2(g, t->dim, H5P_DEFAULT) : -1;
  space = ds >= 0 ? H5Dget_space(ds) : -1;
  n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  vb_h5_close(space);
  vb_h5_close(ds);
  if (n < 0 || !(*rows = malloc((size_t)(n > 0 ? n : 1) * (t->rowsize ? t->rowsize : 1)))) {
    vb_h5_close(g);
    return -1;
  }
  for (int i = 0; i < t->nfields && rc == 0; i++)
    rc = field_read(g, t, &t->field[i], *rows, (long)n);
  vb_h5_close(g);
  if (rc < 0) {
    free(*rows);
    *rows = NULL;
    return -1;
  }
  *nrows = (long)n;
  return 0;
}
