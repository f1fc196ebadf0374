/* pyapi.c - a flat interface to scenes, runs and studies for callers that
 * reach the library through a foreign-function interface (the Python
 * package's ctypes, python/vibro/_lib.py): numbers, strings and opaque
 * pointers only, so that no caller mirrors a struct of vibro.h.  It adds
 * no physics: it reads what the run, the scene and the study hold. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vibro.h"
#include "output/output.h"

/* -------------------------------------------------------------- scenes */

/* Name of a scene (static for the scene's life). */
const char *
vb_scene_title(const vb_scene *sc)
{
  return sc->name;
}

/* Time between recorded samples, record_every / fs, s: sample k is at
 * k times it (as output files compute their `time`). */
double
vb_scene_sample_interval(const vb_scene *sc)
{
  return (double)sc->record_every / sc->fs;
}

/* Name of contact c of a scene, or NULL when there is no contact c. */
const char *
vb_scene_contact_name(const vb_scene *sc, int c)
{
  return c >= 0 && c < sc->ncontacts ? sc->contacts[c].name : NULL;
}

/* Name of body b of a scene, or NULL when there is no body b. */
const char *
vb_scene_body_name(const vb_scene *sc, int b)
{
  return b >= 0 && b < sc->nbodies ? sc->bodies[b].name : NULL;
}

/* Position x of contact c's point on its modal body (the first of its two
 * bodies that is modal), m; NaN when neither is or there is no contact c. */
double
vb_scene_contact_x(const vb_scene *sc, int c)
{
  const vb_contact *ct = c >= 0 && c < sc->ncontacts ? &sc->contacts[c] : NULL;

  if (ct && sc->bodies[ct->a].kind == VB_BODY_MODAL)
    return sc->bodies[ct->a].points[ct->pa].x;
  if (ct && sc->bodies[ct->b].kind == VB_BODY_MODAL)
    return sc->bodies[ct->b].points[ct->pb].x;
  return NAN;
}

/* ------------------------------------------------------------- signals */

/* Whether energy k (a vb_energy) can be other than zero in a scene run
 * alone: the external work needs gravity, a force or a driven motion, the
 * correction energy a contact with Papetti's corrections (the rule of the
 * output file, doc/format.md). */
static int
energy_can_change(const vb_scene *sc, int k)
{
  int i, any = 0;

  if (k == VB_ENERGY_EXTERNAL) {
    any = sc->gravity != 0.0 || sc->nforces > 0;
    for (i = 0; i < sc->nbodies; i++)
      any |= sc->bodies[i].drive.kind != VB_DRIVE_NONE;
    for (i = 0; i < sc->ncontacts; i++)
      any |= sc->contacts[i].gap_drive.kind != VB_DRIVE_NONE;
    return any;
  }
  if (k == VB_ENERGY_CORRECTION) {
    for (i = 0; i < sc->ncontacts; i++)
      any |= sc->contacts[i].corrections != 0;
    return any;
  }
  return 1;
}

/* Whether an output file of the scene alone holds instance i of table row
 * r: recorded, and not a fixed wall, the modes of a body that is not
 * modal, or an energy that is zero by construction. */
static int
held(const vb_run *run, const vb_signal *t, int r, int i)
{
  const vb_scene *sc = vb_run_scene(run);
  int p, b = vb_signal_body(&t[r], sc, i, &p);

  if (b >= 0 && sc->bodies[b].kind == VB_BODY_WALL && sc->bodies[b].drive.kind == VB_DRIVE_NONE)
    return 0;
  if (t[r].object == VB_SIGNAL_MODES && sc->bodies[b].kind != VB_BODY_MODAL)
    return 0;
  if (t[r].object == VB_SIGNAL_SCENE && r < VB_ENERGY_COUNT && !energy_can_change(sc, r))
    return 0;
  return vb_signal_data(run, &t[r], i) != NULL;
}

/* The output signal name of a path: '/' becomes '.'. */
static void
dotted(char *name)
{
  for (; *name; name++)
    if (*name == '/')
      *name = '.';
}

/* One signal found by vb_run_signal_at. */
typedef struct found {
  int k;      /* signals still to pass over */
  char *name; /* receives its name */
  size_t len;
  const char **units;  /* receives its units */
  int *rows;           /* receives its rows */
  const double **data; /* receives its data */
} found;

/* The [point][time] signals of the distributed contact whose first point
 * is contact c, in table order, as the file holds them ("contacts.D.force",
 * output/layout.c); kind 3 for the k-th, else -1. */
static int
scan_block(const vb_run *run, int c, found *f)
{
  const vb_scene *sc = vb_run_scene(run);
  int nt, n = 0;
  const vb_signal *t = vb_signal_table(&nt);

  while (c + n < sc->ncontacts && strcmp(sc->contacts[c + n].group, sc->contacts[c].group) == 0)
    n++;
  for (int r = 0; r < nt; r++) {
    if (t[r].object != VB_SIGNAL_CONTACT || !vb_signal_whole(&t[r], sc, c) || f->k-- > 0)
      continue;
    snprintf(f->name, f->len, "contacts.%s.%s", sc->contacts[c].group, t[r].name);
    *f->units = t[r].units;
    *f->rows = n;
    *f->data = vb_signal_data(run, &t[r], c); /* its points' follow, vb_record_alloc */
    return 3;
  }
  return -1;
}

/* The instances of table rows for `object` belonging to body b (all when
 * b < 0), in the file's order: each instance, then each row of the table
 * (a distributed contact's [point][time] signals before its first point's).
 * Returns the kind of the k-th (0 series, 1 modes, 3 points) once found,
 * else -1. */
static int
scan(const vb_run *run, vb_signal_object object, int b, found *f)
{
  const vb_scene *sc = vb_run_scene(run);
  int nt, r0, r, i, p, n;
  const vb_signal *t = vb_signal_table(&nt);

  for (r0 = 0; r0 < nt && t[r0].object != object; r0++)
    ;
  n = r0 < nt ? vb_signal_count(&t[r0], sc) : 0;
  for (i = 0; i < n; i++) {
    if (b >= 0 && vb_signal_body(&t[r0], sc, i, &p) != b)
      continue;
    if (object == VB_SIGNAL_CONTACT && sc->contacts[i].group[0] != '\0' &&
        sc->contacts[i].group_point == 0 && scan_block(run, i, f) == 3)
      return 3;
    for (r = 0; r < nt; r++) {
      if (t[r].object != object || !held(run, t, r, i) || vb_signal_whole(&t[r], sc, i) ||
          f->k-- > 0)
        continue;
      vb_signal_path(&t[r], sc, i, f->name, f->len);
      dotted(f->name);
      *f->units = t[r].units;
      *f->rows = vb_signal_rows(&t[r], sc, i);
      *f->data = vb_signal_data(run, &t[r], i);
      return object == VB_SIGNAL_MODES;
    }
  }
  return -1;
}

/* Modal property k (freq Hz, sigma 1/s, mass kg) of body b; k 3 to 5 the
 * same of its modes along w (bodies.B.wmodes.*, issue 30 item 6). */
static int
property(const vb_body *bd, int k, found *f)
{
  static const struct {
    const char *name, *units;
    size_t offset; /* of the double * [nmodes] (or [nwmodes]) in vb_body */
  } props[] = {
      {"freq", "Hz", offsetof(vb_body, freq)},
      {"sigma", "1/s", offsetof(vb_body, sigma)},
      {"mass", "kg", offsetof(vb_body, modal_mass)},
      {"freq", "Hz", offsetof(vb_body, wfreq)},
      {"sigma", "1/s", offsetof(vb_body, wsigma)},
      {"mass", "kg", offsetof(vb_body, wmodal_mass)},
  };
  snprintf(f->name, f->len, "bodies.%s.%s.%s", bd->name, k < 3 ? "modes" : "wmodes",
           props[k].name);
  *f->units = props[k].units;
  *f->rows = k < 3 ? bd->nmodes : bd->nwmodes;
  memcpy(f->data, (const char *)bd + props[k].offset, sizeof *f->data);
  return 2;
}

/* Signal k of a run as an output file of its scene alone holds it (the
 * order of doc/format.md's /signals: bodies in order, each point's
 * signals, a modal body's properties and modes; contacts; energies),
 * named as there ("contacts.hit.force", "bodies.plate.modes.q",
 * "bodies.string.wmodes.q").  Writes
 * its name into name, its units, rows and data; returns its kind: 0 a
 * series [samples], 1 modal displacements [rows][samples], 2 a modal
 * property [rows] (freq, sigma, mass), 3 a distributed contact's signal
 * [rows = points][samples], or -1 when there is no signal k. */
int
vb_run_signal_at(const vb_run *run, int k, char *name, size_t len, const char **units, int *rows,
                 const double **data)
{
  const vb_scene *sc = vb_run_scene(run);
  found f = {.k = k, .name = name, .len = len, .units = units, .rows = rows, .data = data};
  int b, kind = -1;

  if (k < 0)
    return -1;
  for (b = 0; b < sc->nbodies && kind < 0; b++) {
    kind = scan(run, VB_SIGNAL_POINT, b, &f);
    for (int q = 0; q < 3 && kind < 0 && sc->bodies[b].kind == VB_BODY_MODAL; q++)
      if (f.k-- == 0)
        kind = property(&sc->bodies[b], q, &f);
    /* its modes along w with record.modes, as output/layout.c writes them */
    for (int q = 3; q < 6 && kind < 0 && sc->bodies[b].kind == VB_BODY_MODAL &&
                    sc->bodies[b].nwmodes > 0 && sc->record_modes;
         q++)
      if (f.k-- == 0)
        kind = property(&sc->bodies[b], q, &f);
    if (kind < 0)
      kind = scan(run, VB_SIGNAL_MODES, b, &f);
  }
  if (kind < 0)
    kind = scan(run, VB_SIGNAL_CONTACT, -1, &f);
  if (kind < 0)
    kind = scan(run, VB_SIGNAL_SCENE, -1, &f);
  return kind;
}

/* -------------------------------------------------------------- events */

/* The event fields are the columns of an output file's /study/events that
 * come from a vb_event (output/table.c's list, after scene and contact,
 * before the swept values): the writer's own list, not a copy of it. */
#define FIRST_FIELD (VB_EC_CONTACT + 1)

/* Column of event field k, or NULL past the last. */
static const vb_column *
field_column(int k)
{
  for (int i = 0; i <= k; i++)
    if (!vb_event_columns[FIRST_FIELD + i].name ||
        vb_event_columns[FIRST_FIELD + i].dim != VB_DIM_EVENT)
      return NULL;
  return &vb_event_columns[FIRST_FIELD + k];
}

/* Field k of an event row: its name, its units into *units and whether it
 * is an integer into *is_int; NULL past the last field. */
const char *
vb_event_field(int k, const char **units, int *is_int)
{
  const vb_column *col = k >= 0 ? field_column(k) : NULL;
  if (!col)
    return NULL;
  *units = col->units;
  *is_int = col->type == VB_COL_I32;
  return col->name;
}

/* Events of contact c of a run: their number; with rows not NULL, also
 * every field of each (vb_event_field's order) into rows [events][fields]
 * (integers exactly, as doubles).  -1 when there is no contact c. */
long
vb_run_events(const vb_run *run, int c, double *rows)
{
  const vb_contact_result *res;
  long e;

  if (c < 0 || c >= vb_run_scene(run)->ncontacts)
    return -1;
  res = vb_run_contact(run, c);
  int nfields = 0;
  while (field_column(nfields))
    nfields++;
  for (e = 0; rows && e < res->nevents; e++)
    for (int k = 0; k < nfields; k++) {
      const vb_column *col = &vb_event_columns[FIRST_FIELD + k];
      const char *at = (const char *)&res->events[e] + col->at;
      int i;
      double x;
      if (col->type == VB_COL_I32) {
        memcpy(&i, at, sizeof i);
        x = i;
      } else {
        memcpy(&x, at, sizeof x);
      }
      rows[e * nfields + k] = x;
    }
  return res->nevents;
}

/* ------------------------------------------------------------- studies */

/* A foreign caller's progress callback and its context. */
typedef struct flat_progress {
  void (*call)(long done, long total, double rate, double left, void *ctx);
  void *ctx;
} flat_progress;

static void
flat_progress_call(const vb_study_progress *p, void *ctx)
{
  const flat_progress *fp = ctx;
  fp->call(p->done, p->total, p->rate, p->left, fp->ctx);
}

/* vb_study_run without structs: `threads`, `resume` and `stop` as in
 * vb_study_options (one rank); on_progress (may be NULL) receives done,
 * total, rate (scenes/s) and seconds left about every `period` s (0: 10
 * s) from the writer; on_stop (may be NULL) as vb_study_options', with
 * the same ctx.  report (not NULL) receives [scenes, kept, ran,
 * failed, first_failed]; status (statuslen bytes) the first failed scene's
 * status.  The return code and err as vb_study_run's. */
int
vb_study_run_flat(const vb_study *study, const char *out, int threads, int resume,
                  const volatile int *stop,
                  void (*on_progress)(long done, long total, double rate, double left, void *ctx),
                  void *ctx, double period, void (*on_stop)(long running, double seconds, void *ctx),
                  long *report, char *status, size_t statuslen, char *err, size_t errlen)
{
  flat_progress fp = {.call = on_progress, .ctx = ctx};
  vb_study_options opt = {.threads = threads,
                          .resume = resume,
                          .rank = 0,
                          .nranks = 1,
                          .on_progress = on_progress ? flat_progress_call : NULL,
                          .progress_ctx = &fp,
                          .progress_period = period,
                          .stop = stop,
                          .on_stop = on_stop,
                          .stop_ctx = ctx};
  vb_study_report rep;
  int rc;

  memset(&rep, 0, sizeof rep);
  rep.first_failed = -1;
  rc = vb_study_run(study, out, &opt, &rep, err, errlen);
  report[0] = rep.scenes;
  report[1] = rep.kept;
  report[2] = rep.ran;
  report[3] = rep.failed;
  report[4] = rep.first_failed;
  if (status && statuslen)
    snprintf(status, statuslen, "%s", rep.first_status);
  return rc;
}
