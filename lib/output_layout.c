/* output_layout.c - the vibro-2 layout (doc/format.md): the signals a
 * scene records, the table and event row types with their units, and
 * packing a finished run into rows and signals for the writer.  Knows
 * nothing of files, shards, studies or threads. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "output.h"

#define CONTACT_COLUMNS 7 /* table columns per contact */

/* One field of vb_event as stored in /study/events. */
typedef struct event_field {
  const char *name;
  size_t offset;
  int is_int; /* int32 rather than float64 */
  const char *units;
} event_field;

static const event_field event_fields[] = {
    {"t_on", offsetof(vb_event, t_on), 0, "s"},
    {"t_off", offsetof(vb_event, t_off), 0, "s"},
    {"duration", offsetof(vb_event, duration), 0, "s"},
    {"v_in", offsetof(vb_event, v_in), 0, "m/s"},
    {"v_out", offsetof(vb_event, v_out), 0, "m/s"},
    {"x_max", offsetof(vb_event, x_max), 0, "m"},
    {"peak_force", offsetof(vb_event, peak_force), 0, "N"},
    {"x_max_pred", offsetof(vb_event, x_max_pred), 0, "m"},
    {"v_out_pred", offsetof(vb_event, v_out_pred), 0, "m/s"},
    {"v_out_exact", offsetof(vb_event, v_out_exact), 0, "m/s"},
    {"duration_pred", offsetof(vb_event, duration_pred), 0, "s"},
    {"energy_before", offsetof(vb_event, energy_before), 0, "J"},
    {"energy_after", offsetof(vb_event, energy_after), 0, "J"},
    {"energy_correction", offsetof(vb_event, energy_correction), 0, "J"},
    {"newton_iterations_max", offsetof(vb_event, newton_iterations_max), 1, "1"},
    {"fallbacks", offsetof(vb_event, fallbacks), 1, "1"},
    {"samples", offsetof(vb_event, samples), 1, "1"},
    {"corrections", offsetof(vb_event, corrections), 1, "1"},
};

#define NEVENT_FIELDS ((int)(sizeof event_fields / sizeof event_fields[0]))
#define EVENT_FIXED   (8 + 4) /* scene int64, contact int32 */

/* The modal properties of a modal body B, written as bodies.B.modes.<name>
 * [scene][mode] beside its recorded signals (they are the model's, not the
 * recording's: record.signals does not select them). */
static const struct {
  const char *name, *units;
  size_t offset; /* of the double * [nmodes] in vb_body */
} properties[] = {
    {"freq", "Hz", offsetof(vb_body, freq)},
    {"sigma", "1/s", offsetof(vb_body, sigma)},
    {"mass", "kg", offsetof(vb_body, modal_mass)},
};
#define NPROPERTIES ((int)(sizeof properties / sizeof properties[0]))

static const char *const contact_figures[CONTACT_COLUMNS] = {
    "impacts",         "first_impact", "mean_contact_duration", "max_compression",
    "newton_failures", "fallbacks",    "newton_iterations"};
static const char *const contact_units[CONTACT_COLUMNS] = {"1", "s", "s", "m", "1", "1", "1"};

/* Append a signal: instance i of a row of the table, or (row NULL) modal
 * property `property` of body `body`. */
static int
sig_add(vb_format *f, int *cap, const char *name, const char *units, vb_signal_shape shape,
        const vb_signal *row, int i, int property, int body, int nmodes)
{
  vb_signal_desc *s;

  if (f->nsig == *cap) {
    int ncap = *cap ? 2 * *cap : 32;
    vb_signal_desc *g = realloc(f->sig, (size_t)ncap * sizeof *g);
    if (!g)
      return -1;
    f->sig = g;
    *cap = ncap;
  }
  s = &f->sig[f->nsig++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->units = units;
  s->shape = shape;
  s->row = row;
  s->instance = i;
  s->property = property;
  s->body = body;
  s->nmodes = nmodes;
  return 0;
}

/* Whether any swept path contains `part`. */
static int
swept(const vb_format *f, const char *part)
{
  int p;

  for (p = 0; p < f->lay.nparams; p++)
    if (strstr(f->lay.param_names[p], part))
      return 1;
  return 0;
}

/* Whether energy signal k (a vb_energy) can be other than zero in some
 * scene of the layout: the external work needs gravity, a force or a
 * driven motion, the correction energy a contact with Papetti's
 * corrections. */
static int
energy_can_change(const vb_format *f, int k)
{
  const vb_scene *sc = f->lay.first;
  int i;

  if (k == VB_ENERGY_EXTERNAL) {
    if (sc->gravity != 0.0 || sc->nforces > 0 || swept(f, "gravity") || swept(f, "forces") ||
        swept(f, "drive"))
      return 1;
    for (i = 0; i < sc->nbodies; i++)
      if (sc->bodies[i].drive.kind != VB_DRIVE_NONE)
        return 1;
    for (i = 0; i < sc->ncontacts; i++)
      if (sc->contacts[i].gap_drive.kind != VB_DRIVE_NONE)
        return 1;
    return 0;
  }
  if (k == VB_ENERGY_CORRECTION) {
    if (swept(f, "correct"))
      return 1;
    for (i = 0; i < sc->ncontacts; i++)
      if (sc->contacts[i].corrections != 0)
        return 1;
    return 0;
  }
  return 1;
}

/* Whether the file holds instance i of signal row r of the table: scene 0
 * records it (record.signals) and it can change.  Fixed walls record
 * nothing, nor energies that are zero by construction; modes are written
 * for modal bodies (doc/format.md). */
static int
written(const vb_format *f, const vb_signal *t, int r, int i)
{
  const vb_scene *sc = f->lay.first;
  int p, b = vb_signal_body(&t[r], sc, i, &p);

  if (b >= 0 && sc->bodies[b].kind == VB_BODY_WALL && sc->bodies[b].drive.kind == VB_DRIVE_NONE)
    return 0;
  if (t[r].object == VB_SIGNAL_MODES && sc->bodies[b].kind != VB_BODY_MODAL)
    return 0;
  if (t[r].object == VB_SIGNAL_SCENE && r < VB_ENERGY_COUNT && !energy_can_change(f, r))
    return 0;
  return vb_signal_recorded(&t[r], sc, i);
}

/* Append what the file holds of instance i of every row of the table
 * for `object`, in table order; its name is its path (vb_signal_path)
 * with '.' for '/'. */
static int
instance_signals(vb_format *f, int *cap, vb_signal_object object, int i)
{
  const vb_scene *sc = f->lay.first;
  char name[sizeof f->sig->name], *d;
  int nt, r, p, rc = 0;
  const vb_signal *t = vb_signal_table(&nt);

  for (r = 0; r < nt && rc == 0; r++) {
    if (t[r].object != object || !written(f, t, r, i))
      continue;
    vb_signal_path(&t[r], sc, i, name, sizeof name);
    for (d = name; *d; d++)
      if (*d == '/')
        *d = '.';
    if (object == VB_SIGNAL_MODES)
      rc = sig_add(f, cap, name, t[r].units, SHAPE_MODES_SERIES, &t[r], i, -1,
                   vb_signal_body(&t[r], sc, i, &p), vb_signal_rows(&t[r], sc, i));
    else
      rc = sig_add(f, cap, name, t[r].units, SHAPE_SERIES, &t[r], i, -1,
                   vb_signal_body(&t[r], sc, i, &p), 0);
  }
  return rc;
}

/* The instances of `object` (points or modes) that belong to body b, each
 * with its signals. */
static int
body_signals(vb_format *f, int *cap, vb_signal_object object, int b)
{
  const vb_scene *sc = f->lay.first;
  int nt, r, i, n, p, rc = 0;
  const vb_signal *t = vb_signal_table(&nt);

  for (r = 0; r < nt && t[r].object != object; r++)
    ;
  for (i = 0, n = r < nt ? vb_signal_count(&t[r], sc) : 0; i < n && rc == 0; i++)
    if (vb_signal_body(&t[r], sc, i, &p) == b)
      rc = instance_signals(f, cap, object, i);
  return rc;
}

/* The signals of scene 0 from the table, grouped by what they belong to:
 * bodies in order (each point's signals, then a modal body's properties
 * and modes), contacts in order, then the scene's. */
static int
signals_list(vb_format *f)
{
  const vb_scene *sc = f->lay.first;
  char name[sizeof f->sig->name];
  int cap = 0, b, c, k, rc = 0;

  for (b = 0; b < sc->nbodies && rc == 0; b++) {
    const vb_body *bd = &sc->bodies[b];
    rc |= body_signals(f, &cap, VB_SIGNAL_POINT, b);
    for (k = 0; k < NPROPERTIES && bd->kind == VB_BODY_MODAL && rc == 0; k++) {
      snprintf(name, sizeof name, "bodies.%s.modes.%s", bd->name, properties[k].name);
      rc |= sig_add(f, &cap, name, properties[k].units, SHAPE_MODES, NULL, 0, k, b, bd->nmodes);
    }
    rc |= body_signals(f, &cap, VB_SIGNAL_MODES, b);
  }
  for (c = 0; c < sc->ncontacts && rc == 0; c++)
    rc |= instance_signals(f, &cap, VB_SIGNAL_CONTACT, c);
  if (rc == 0)
    rc |= instance_signals(f, &cap, VB_SIGNAL_SCENE, 0);
  return rc;
}

/* Values per scene of a signal. */
long
vb_signal_width(const vb_signal_desc *s, long n)
{
  switch (s->shape) {
  case SHAPE_SERIES: return n;
  case SHAPE_MODES: return s->nmodes;
  default: return (long)s->nmodes * n;
  }
}

/* Length of the time axis: none without a signal along it. */
long
vb_format_time_length(const vb_format *f, long T)
{
  for (int s = 0; s < f->nsig; s++)
    if (f->sig[s].shape != SHAPE_MODES)
      return T;
  return 0;
}

/* A column of a compound type being built. */
static int
column(hid_t type, const char **units, int *nf, const char *name, size_t off, hid_t ftype,
       const char *unit)
{
  if (H5Tinsert(type, name, off, ftype) < 0)
    return -1;
  units[(*nf)++] = unit;
  return 0;
}

/* Build the table row type. */
static int
row_type(vb_format *f, char *err, size_t errlen)
{
  const vb_output_layout *l = &f->lay;
  int nc = l->first->ncontacts, nfields = 12 + l->nparams + CONTACT_COLUMNS * nc, p, c, k;
  hid_t str = H5I_INVALID_HID;
  char name[VB_NAME_MAX + 64];
  int rc = 0;

  f->off_params = 8;
  f->off_code = f->off_params + 8 * (size_t)l->nparams;
  f->off_status = f->off_code + 4;
  f->off_samples = f->off_status + VB_STATUS_LEN;
  f->off_interval = f->off_samples + 8;
  f->off_final = f->off_interval + 8;
  f->off_balance = f->off_final + 8;
  f->off_evstart = f->off_balance + 8;
  f->off_evcount = f->off_evstart + 8;
  f->off_contacts = f->off_evcount + 8;
  f->rowsize = f->off_contacts + 8 * CONTACT_COLUMNS * (size_t)nc;
  f->row_units = calloc((size_t)nfields, sizeof *f->row_units);
  f->row_type = H5Tcreate(H5T_COMPOUND, f->rowsize);
  str = H5Tcopy(H5T_C_S1);
  if (!f->row_units || f->row_type < 0 || str < 0 || H5Tset_size(str, VB_STATUS_LEN) < 0 ||
      H5Tset_strpad(str, H5T_STR_NULLPAD) < 0)
    rc = -1;
  if (rc == 0)
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "index", 0, H5T_STD_I64LE, "1");
  for (p = 0; p < l->nparams && rc == 0; p++)
    rc |= column(f->row_type, f->row_units, &f->nrowfields, l->param_names[p],
                 f->off_params + 8 * (size_t)p, H5T_IEEE_F64LE, l->param_units[p]);
  if (rc == 0) {
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "status_code", f->off_code,
                 H5T_STD_I32LE, "1");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "status", f->off_status, str, "-");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "samples", f->off_samples,
                 H5T_STD_I64LE, "1");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "sample_interval", f->off_interval,
                 H5T_IEEE_F64LE, "s");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "final_energy", f->off_final,
                 H5T_IEEE_F64LE, "J");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "energy_balance_error", f->off_balance,
                 H5T_IEEE_F64LE, "J");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "events_start", f->off_evstart,
                 H5T_STD_I64LE, "1");
    rc |= column(f->row_type, f->row_units, &f->nrowfields, "events_count", f->off_evcount,
                 H5T_STD_I64LE, "1");
  }
  for (c = 0; c < nc && rc == 0; c++)
    for (k = 0; k < CONTACT_COLUMNS && rc == 0; k++) {
      int is_int = k == 0 || k >= 4;
      snprintf(name, sizeof name, "%s:%s", contact_figures[k], l->first->contacts[c].name);
      rc |= column(f->row_type, f->row_units, &f->nrowfields, name,
                   f->off_contacts + 8 * ((size_t)c * CONTACT_COLUMNS + (size_t)k),
                   is_int ? H5T_STD_I64LE : H5T_IEEE_F64LE, contact_units[k]);
    }
  vb_h5_close(str);
  if (rc != 0)
    return vb_errf_first(err, errlen, VB_EINVAL,
                         "cannot build the study table type (a swept path "
                         "or contact name used twice?)");
  return VB_OK;
}

/* Build the event row type. */
static int
event_type(vb_format *f, char *err, size_t errlen)
{
  const vb_output_layout *l = &f->lay;
  int nfields = 2 + NEVENT_FIELDS + l->nparams, i, rc = 0;
  size_t off = EVENT_FIXED;

  for (i = 0; i < NEVENT_FIELDS; i++)
    off += event_fields[i].is_int ? 4 : 8;
  f->off_event_params = off;
  f->eventsize = off + 8 * (size_t)l->nparams;
  f->event_units = calloc((size_t)nfields, sizeof *f->event_units);
  f->event_type = H5Tcreate(H5T_COMPOUND, f->eventsize);
  if (!f->event_units || f->event_type < 0)
    rc = -1;
  if (rc == 0) {
    rc |= column(f->event_type, f->event_units, &f->neventfields, "scene", 0, H5T_STD_I64LE, "1");
    rc |= column(f->event_type, f->event_units, &f->neventfields, "contact", 8, H5T_STD_I32LE, "1");
  }
  off = EVENT_FIXED;
  for (i = 0; i < NEVENT_FIELDS && rc == 0; i++) {
    rc |= column(f->event_type, f->event_units, &f->neventfields, event_fields[i].name, off,
                 event_fields[i].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, event_fields[i].units);
    off += event_fields[i].is_int ? 4 : 8;
  }
  for (i = 0; i < l->nparams && rc == 0; i++)
    rc |= column(f->event_type, f->event_units, &f->neventfields, l->param_names[i],
                 f->off_event_params + 8 * (size_t)i, H5T_IEEE_F64LE, l->param_units[i]);
  if (rc != 0)
    return vb_errf_first(err, errlen, VB_EINVAL,
                         "cannot build the event table type (a swept path "
                         "named like an event field?)");
  return VB_OK;
}

/* Build the format of a layout. */
int
vb_format_init(vb_format *f, const vb_output_layout *lay, char *err, size_t errlen)
{
  int c, rc;

  memset(f, 0, sizeof *f);
  f->row_type = f->event_type = H5I_INVALID_HID;
  f->lay = *lay;
  f->contact_names = calloc((size_t)lay->first->ncontacts + 1, sizeof *f->contact_names);
  if (!f->contact_names || signals_list(f) != 0)
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory");
  for (c = 0; c < lay->first->ncontacts; c++)
    f->contact_names[c] = lay->first->contacts[c].name;
  rc = row_type(f, err, errlen);
  if (rc == VB_OK)
    rc = event_type(f, err, errlen);
  return rc;
}

/* Release a format. */
void
vb_format_clear(vb_format *f)
{
  vb_h5_close(f->row_type);
  vb_h5_close(f->event_type);
  free(f->sig);
  free(f->row_units);
  free(f->event_units);
  free(f->contact_names);
  memset(f, 0, sizeof *f);
  f->row_type = f->event_type = H5I_INVALID_HID;
}

/* ----------------------------------------------------------- packing */

/* Status code of a status text. */
static int
status_code(const char *status)
{
  if (strcmp(status, "done") == 0)
    return VB_OK;
  if (strncmp(status, "diverged", 8) == 0)
    return VB_EDIVERGED;
  if (strncmp(status, "newton", 6) == 0)
    return VB_ENOCONV;
  return VB_EINVAL;
}

/* Where signal s of a run is. */
static const double *
signal_data(const vb_signal_desc *s, const vb_run *run)
{
  const vb_body *bd;

  if (s->row)
    return vb_signal_data(run, s->row, s->instance);
  bd = &vb_run_scene(run)->bodies[s->body];
  return *(double *const *)((const char *)bd + properties[s->property].offset);
}

static void
put_i64(unsigned char *at, long v)
{
  int64_t x = v;
  memcpy(at, &x, 8);
}
static void
put_i32(unsigned char *at, int v)
{
  int32_t x = v;
  memcpy(at, &x, 4);
}
static void
put_f64(unsigned char *at, double v)
{
  memcpy(at, &v, 8);
}

/* Fill the table row of a run. */
static void
row_fill(const vb_format *f, unsigned char *row, long index, const double *params,
         const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  const char *status = vb_run_status(run);
  long n = vb_run_samples(run), e, counted;
  double x, sum;
  int p, c;

  memset(row, 0, f->rowsize);
  put_i64(row, index);
  for (p = 0; p < f->lay.nparams; p++)
    put_f64(row + f->off_params + 8 * (size_t)p, params[p]);
  put_i32(row + f->off_code, status_code(status));
  memcpy(row + f->off_status, status,
         strlen(status) < VB_STATUS_LEN ? strlen(status) : VB_STATUS_LEN);
  put_i64(row + f->off_samples, n);
  put_f64(row + f->off_interval, (double)sc->record_every / sc->fs);
  put_f64(row + f->off_final, n > 0 ? vb_run_final_energy(run, VB_ENERGY_TOTAL) : NAN);
  put_f64(row + f->off_balance, vb_run_balance_error(run));
  for (c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(run, c);
    unsigned char *at = row + f->off_contacts + 8 * (size_t)c * CONTACT_COLUMNS;

    put_i64(at, r->nevents);
    /* the first impact with a measured onset (one engaged at t = 0 has none) */
    x = NAN;
    for (e = 0; e < r->nevents && !isfinite(x); e++)
      x = r->events[e].t_on;
    put_f64(at + 8, x);
    sum = 0.0;
    counted = 0;
    for (e = 0; e < r->nevents; e++)
      if (isfinite(r->events[e].duration)) {
        sum += r->events[e].duration;
        counted++;
      }
    put_f64(at + 16, counted > 0 ? sum / (double)counted : NAN);
    put_f64(at + 24, n > 0 ? r->max_compression : NAN);
    put_i64(at + 32, r->newton_failures);
    put_i64(at + 40, r->fallbacks);
    put_i64(at + 48, r->iterations);
  }
}

/* Fill the event rows of a run. */
static void
events_fill(const vb_format *f, unsigned char *out, long index, const double *params,
            const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  int c, i, p;
  long e;

  for (c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(run, c);
    for (e = 0; e < r->nevents; e++) {
      const unsigned char *ev = (const unsigned char *)&r->events[e];
      size_t off = EVENT_FIXED;

      memset(out, 0, f->eventsize);
      put_i64(out, index);
      put_i32(out + 8, c);
      for (i = 0; i < NEVENT_FIELDS; i++) {
        size_t w = event_fields[i].is_int ? 4 : 8;
        memcpy(out + off, ev + event_fields[i].offset, w);
        off += w;
      }
      for (p = 0; p < f->lay.nparams; p++)
        put_f64(out + f->off_event_params + 8 * (size_t)p, params[p]);
      out += f->eventsize;
    }
  }
}

/* Free a packed scene. */
void
vb_packed_scene_free(vb_packed_scene *p)
{
  if (!p)
    return;
  free(p->row);
  free(p->events);
  free(p->sig);
  free(p->own);
  free(p);
}

/* Copy borrowed signals into the scene's own memory. */
int
vb_packed_scene_own(const vb_format *f, vb_packed_scene *p)
{
  long total = 0, at = 0;
  int s;

  if (p->own)
    return VB_OK;
  for (s = 0; s < f->nsig; s++)
    total += vb_signal_width(&f->sig[s], p->samples);
  p->own = malloc(total > 0 ? (size_t)total * sizeof(double) : 1);
  if (!p->own)
    return VB_ENOMEM;
  for (s = 0; s < f->nsig; s++) {
    long w = vb_signal_width(&f->sig[s], p->samples);
    if (w > 0)
      memcpy(p->own + at, p->sig[s], (size_t)w * sizeof(double));
    p->sig[s] = p->own + at;
    at += w;
  }
  return VB_OK;
}

/* Check that a run has the shape of scene 0. */
static int
shape_check(const vb_format *f, long index, const vb_run *run, char *err, size_t errlen)
{
  const vb_scene *sc = vb_run_scene(run), *s0 = f->lay.first;
  int c, b;

  if (sc->ncontacts != s0->ncontacts || sc->nbodies != s0->nbodies)
    return vb_errf_first(err, errlen, VB_EINVAL,
                         "scene %ld has %d bodies and %d contacts, scene 0 "
                         "has %d and %d",
                         index, sc->nbodies, sc->ncontacts, s0->nbodies, s0->ncontacts);
  for (c = 0; c < sc->ncontacts; c++)
    if (strcmp(sc->contacts[c].name, s0->contacts[c].name) != 0 || !vb_run_contact(run, c))
      return vb_errf_first(err, errlen, VB_EINVAL,
                           "contact %d of scene %ld is '%s', of scene 0 "
                           "'%s'",
                           c, index, sc->contacts[c].name, s0->contacts[c].name);
  for (b = 0; b < sc->nbodies; b++)
    if (sc->bodies[b].kind != s0->bodies[b].kind ||
        (sc->bodies[b].kind == VB_BODY_MODAL && (sc->bodies[b].nmodes != s0->bodies[b].nmodes ||
                                                 sc->bodies[b].npoints != s0->bodies[b].npoints)))
      return vb_errf_first(err, errlen, VB_EINVAL,
                           "body '%s' of scene %ld differs in kind, modes "
                           "or points from scene 0 (a sweep may not change them)",
                           sc->bodies[b].name, index);
  return VB_OK;
}

/* Pack a finished run. */
int
vb_format_pack(const vb_format *f, long index, const double *params, const vb_run *run, int borrow,
               vb_packed_scene **out, char *err, size_t errlen)
{
  vb_packed_scene *p;
  long n = vb_run_samples(run), nev = 0, total = 0, at = 0;
  int s, c, rc;

  *out = NULL;
  rc = shape_check(f, index, run, err, errlen);
  if (rc != VB_OK)
    return rc;
  for (c = 0; c < vb_run_scene(run)->ncontacts; c++)
    nev += vb_run_contact(run, c)->nevents;
  for (s = 0; s < f->nsig; s++)
    total += vb_signal_width(&f->sig[s], n);
  p = calloc(1, sizeof *p);
  if (!p)
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
  p->index = index;
  p->laid_row = -1;
  p->samples = n;
  p->interval = (double)vb_run_scene(run)->record_every / vb_run_scene(run)->fs;
  p->nevents = nev;
  p->bytes = 8.0 * (double)total;
  p->row = malloc(f->rowsize);
  p->events = malloc(nev > 0 ? (size_t)nev * f->eventsize : 1);
  p->sig = calloc((size_t)f->nsig + 1, sizeof *p->sig);
  if (p->bytes <= PACK_COPY_MAX && !borrow)
    p->own = malloc(total > 0 ? (size_t)total * sizeof(double) : 1);
  if (!p->row || !p->events || !p->sig || (p->bytes <= PACK_COPY_MAX && !borrow && !p->own)) {
    vb_packed_scene_free(p);
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
  }
  row_fill(f, p->row, index, params, run);
  events_fill(f, p->events, index, params, run);
  for (s = 0; s < f->nsig; s++) {
    const double *d = signal_data(&f->sig[s], run);
    long w = vb_signal_width(&f->sig[s], n);

    if (!d && w > 0) {
      vb_packed_scene_free(p);
      return vb_errf_first(err, errlen, VB_EINVAL, "scene %ld did not record %s", index,
                           f->sig[s].name);
    }
    if (p->own) {
      if (w > 0)
        memcpy(p->own + at, d, (size_t)w * sizeof(double));
      p->sig[s] = p->own + at;
      at += w;
    } else {
      p->sig[s] = d;
    }
  }
  *out = p;
  return VB_OK;
}
