/* output/layout.c - the vibro-3 layout (doc/format.md): the signals a
 * scene records, the tables (output/table.c), and
 * packing a finished run into rows and signals for the writer.  Knows
 * nothing of files, shards, studies or threads. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "output.h"

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

/* The same of its modes along w (issue 30 item 6), bodies.B.wmodes.<name>
 * [scene][wmode.B]: property NPROPERTIES + k of the desc. */
static const struct {
  const char *name, *units;
  size_t offset; /* of the double * [nwmodes] in vb_body */
} wproperties[] = {
    {"freq", "Hz", offsetof(vb_body, wfreq)},
    {"sigma", "1/s", offsetof(vb_body, wsigma)},
    {"mass", "kg", offsetof(vb_body, wmodal_mass)},
};

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
 * driven motion (along u or w), the correction energy a contact with Papetti's
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
    /* a wall's w drive works through friction (issue 30: a belt or a bow
     * without gravity) */
    for (i = 0; i < sc->nbodies; i++)
      if (sc->bodies[i].drive.kind != VB_DRIVE_NONE || sc->bodies[i].w_drive.kind != VB_DRIVE_NONE)
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
  if (vb_signal_whole(&t[r], sc, i))
    return 0; /* a row of its distributed contact's signal (block_signals) */
  return vb_signal_recorded(&t[r], sc, i);
}

/* Append the [point][time] signals of the distributed contact whose first
 * point is contact c (its points are the contacts c, c + 1, ... of its
 * group), in table order: "contacts.neck.force". */
static int
block_signals(vb_format *f, int *cap, int c)
{
  const vb_scene *sc = f->lay.first;
  char name[sizeof f->sig->name];
  int nt, r, n = 0, rc = 0;
  const vb_signal *t = vb_signal_table(&nt);

  while (c + n < sc->ncontacts && strcmp(sc->contacts[c + n].group, sc->contacts[c].group) == 0)
    n++;
  for (r = 0; r < nt && rc == 0; r++) {
    if (t[r].object != VB_SIGNAL_CONTACT || !vb_signal_whole(&t[r], sc, c))
      continue;
    snprintf(name, sizeof name, "contacts.%s.%s", sc->contacts[c].group, t[r].name);
    rc = sig_add(f, cap, name, t[r].units, SHAPE_POINTS_SERIES, &t[r], c, -1, -1, n);
  }
  return rc;
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
    if (object == VB_SIGNAL_MODES) {
      rc = sig_add(f, cap, name, t[r].units, SHAPE_MODES_SERIES, &t[r], i, -1,
                   vb_signal_body(&t[r], sc, i, &p), vb_signal_rows(&t[r], sc, i));
      if (rc == 0)
        f->sig[f->nsig - 1].along_w = t[r].tangential == 4;
    } else
      rc = sig_add(f, cap, name, t[r].units, SHAPE_SERIES, &t[r], i, -1,
                   vb_signal_body(&t[r], sc, i, &p), 0);
  }
  return rc;
}

/* The instances of `object` (points or modes) that belong to body b, each
 * with its signals: they are consecutive, from *next on (bodies are taken
 * in order, so a scene of N bodies costs N calls, not N^2). */
static int
body_signals(vb_format *f, int *cap, vb_signal_object object, int b, int *next)
{
  const vb_scene *sc = f->lay.first;
  int nt, r, n, p, rc = 0;
  const vb_signal *t = vb_signal_table(&nt);

  for (r = 0; r < nt && t[r].object != object; r++)
    ;
  for (n = r < nt ? vb_signal_count(&t[r], sc) : 0;
       *next < n && rc == 0 && vb_signal_body(&t[r], sc, *next, &p) == b; (*next)++)
    rc = instance_signals(f, cap, object, *next);
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
  int cap = 0, b, c, k, rc = 0, point = 0, mode = 0;

  for (b = 0; b < sc->nbodies && rc == 0; b++) {
    const vb_body *bd = &sc->bodies[b];
    rc |= body_signals(f, &cap, VB_SIGNAL_POINT, b, &point);
    for (k = 0; k < NPROPERTIES && bd->kind == VB_BODY_MODAL && rc == 0; k++) {
      snprintf(name, sizeof name, "bodies.%s.modes.%s", bd->name, properties[k].name);
      rc |= sig_add(f, &cap, name, properties[k].units, SHAPE_MODES, NULL, 0, k, b, bd->nmodes);
    }
    /* its modes along w (issue 30 item 6), before the modes' q of both,
     * always, as the modes along u (a body without modes along w writes
     * none: every 1-D scene's file is as it was) */
    for (k = 0; k < NPROPERTIES && bd->kind == VB_BODY_MODAL && bd->nwmodes > 0 && rc == 0;
         k++) {
      snprintf(name, sizeof name, "bodies.%s.wmodes.%s", bd->name, wproperties[k].name);
      rc |= sig_add(f, &cap, name, wproperties[k].units, SHAPE_MODES, NULL, 0, NPROPERTIES + k, b,
                    bd->nwmodes);
      if (rc == 0)
        f->sig[f->nsig - 1].along_w = 1;
    }
    rc |= body_signals(f, &cap, VB_SIGNAL_MODES, b, &mode);
  }
  for (c = 0; c < sc->ncontacts && rc == 0; c++) {
    if (sc->contacts[c].group[0] != '\0' && sc->contacts[c].group_point == 0)
      rc |= block_signals(f, &cap, c);
    rc |= instance_signals(f, &cap, VB_SIGNAL_CONTACT, c);
  }
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

/* Build the format of a layout. */
int
vb_format_init(vb_format *f, const vb_output_layout *lay, char *err, size_t errlen)
{
  int c;

  memset(f, 0, sizeof *f);
  f->lay = *lay;
  f->contact_names = calloc((size_t)lay->first->ncontacts + 1, sizeof *f->contact_names);
  if (!f->contact_names || signals_list(f) != 0)
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory");
  for (c = 0; c < lay->first->ncontacts; c++)
    f->contact_names[c] = lay->first->contacts[c].name;
  if (vb_table_init(&f->table, "table", "scene", vb_table_columns, lay) < 0 ||
      vb_table_init(&f->events, "events", "event", vb_event_columns, lay) < 0)
    return vb_errf_first(err, errlen, VB_EINVAL,
                         "cannot build the study tables (out of memory, or a swept path "
                         "named like a column of /study/table or /study/events?)");
  f->table.contacts = f->events.contacts = f->contact_names;
  for (int x = 0; x < vb_xtable_count(); x++)
    if (vb_xtable_init(&f->xt[x], x, lay) < 0)
      return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory");
  return VB_OK;
}

/* Release a format. */
void
vb_format_clear(vb_format *f)
{
  vb_table_clear(&f->table);
  vb_table_clear(&f->events);
  for (int x = 0; x < vb_xtable_count(); x++)
    vb_table_clear(&f->xt[x]);
  free(f->sig);
  free(f->contact_names);
  memset(f, 0, sizeof *f);
}

/* ----------------------------------------------------------- packing */

/* Where signal s of a run is; NULL when not recorded, or (a distributed
 * contact's) when its points' series do not follow one another. */
static const double *
signal_data(const vb_signal_desc *s, const vb_run *run)
{
  const vb_body *bd;

  if (s->shape == SHAPE_POINTS_SERIES) {
    /* the run records a row's instances one after another (vb_record_alloc),
     * a stride apart (its samples, or its window's into a file) */
    const double *d = vb_signal_data(run, s->row, s->instance);
    long n = vb_run_record_stride(run);
    for (int k = 1; d && k < s->nmodes; k++)
      if (vb_signal_data(run, s->row, s->instance + k) != d + (long)k * n)
        return NULL;
    return d;
  }
  if (s->row)
    return vb_signal_data(run, s->row, s->instance);
  bd = &vb_run_scene(run)->bodies[s->body];
  if (s->property >= NPROPERTIES)
    return *(double *const *)((const char *)bd + wproperties[s->property - NPROPERTIES].offset);
  return *(double *const *)((const char *)bd + properties[s->property].offset);
}

/* Free a packed scene. */
void
vb_packed_scene_free(vb_packed_scene *p)
{
  if (!p)
    return;
  free(p->row);
  free(p->events);
  for (int x = 0; x < vb_xtable_count(); x++)
    free(p->xrows[x]);
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
                                                 sc->bodies[b].nwmodes != s0->bodies[b].nwmodes ||
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
  vb_run_view view;
  long n = vb_run_samples(run), nev = 0, total = 0, at = 0;
  int s, c, rc;

  *out = NULL;
  rc = shape_check(f, index, run, err, errlen);
  if (rc != VB_OK)
    return rc;
  /* the run is asked once: every column reads its view */
  vb_run_view_take(run, &view);
  for (c = 0; c < view.scene->ncontacts; c++)
    nev += view.contacts[c].nevents;
  for (s = 0; s < f->nsig; s++)
    total += vb_signal_width(&f->sig[s], n);
  p = calloc(1, sizeof *p);
  if (!p)
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
  p->index = index;
  p->laid_row = -1;
  p->samples = n;
  p->interval = view.interval;
  p->nevents = nev;
  p->bytes = 8.0 * (double)total;
  p->row = malloc(f->table.rowsize);
  p->events = malloc(nev > 0 ? (size_t)nev * f->events.rowsize : 1);
  p->sig = calloc((size_t)f->nsig + 1, sizeof *p->sig);
  if (p->bytes <= PACK_COPY_MAX && !borrow)
    p->own = malloc(total > 0 ? (size_t)total * sizeof(double) : 1);
  if (!p->row || !p->events || !p->sig || (p->bytes <= PACK_COPY_MAX && !borrow && !p->own)) {
    vb_packed_scene_free(p);
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
  }
  /* the analysis's tables (none without a block) */
  for (int x = 0; x < vb_xtable_count(); x++)
    if (f->xt[x].nfields > 0) {
      p->nx[x] = vb_xtable_at(x, NULL)->rows(&view);
      p->xrows[x] = malloc(p->nx[x] > 0 ? (size_t)p->nx[x] * f->xt[x].rowsize : 1);
      if (!p->xrows[x]) {
        vb_packed_scene_free(p);
        return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
      }
      vb_xtable_fill(&f->xt[x], x, p->xrows[x], index, &view);
    }
  vb_table_fill(&f->table, p->row, index, params, &view);
  vb_events_fill(&f->events, p->events, index, params, &view);
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
