/* phases.c - the stick and slip phases of a run's contacts with friction
 * (issue 30; doc/friction.md, doc/format.md's /study/phases): an observer
 * row of observe.c, attached to a scene with friction, that follows each
 * friction contact's steps and keeps its phases (vibro.h's vb_phase), its
 * steps sticking and its friction work.
 *
 * A step belongs to a stick when its contact's law sticks (Coulomb: the
 * step's slip is exactly 0, friction.c), to a slip when it does not, and
 * to no phase when its normal force is 0 (the contact apart, or touching
 * without pressing).  A phase is a run of steps of one kind.  The
 * transitions are placed within their steps the way the closed-form
 * tests of check_friction.c measure them: a stick begins where the slip
 * (each step's mean slip, at the step's midpoint) extrapolates to zero
 * from the last two slipping steps; a slip begins where the holding force
 * (each step's, at its midpoint) extrapolates to the law's hold, mu_s N,
 * from the last two sticking steps (a stick's first step carries the
 * catch of friction.c and is not used).  Either is kept within the steps
 * around the change, and falls back to the edge of the first step of the
 * new kind when it cannot be extrapolated (one step of the old kind, no
 * approach, a normal force that jumps).  The friction work of a stick's
 * first step (the catch: the part-step of slip that the stick ends) is
 * the slip's. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* One friction contact's tracking. */
typedef struct {
  int c;            /* the scene's contact */
  int k, i;         /* its island and index in the island's friction model */
  int open;         /* a phase is open */
  vb_phase ph;      /* the open phase */
  double slip_sum;  /* its slip displacement so far, m */
  double work0;     /* the contact's friction work at its start, J */
  double work_last; /* the contact's friction work after the last step, J */
  double prev[2];   /* the last two steps' slip (a slip) or |ft| (a stick), newest first */
  double hold_prev; /* the law's hold at the last step, N */
  long usable;      /* of them, how many the extrapolation may use (0 to 2) */
  long stick_steps; /* steps sticking in all */
} tracker;

struct vb_phase_run {
  int nfc;
  tracker *tr; /* [nfc] */
  vb_phase *phases; /* [n], capacity cap */
  long n, cap;
  long steps;    /* steps followed */
  double *share; /* [ncontacts] steps sticking / steps, NaN without friction */
  double *work;  /* [ncontacts] friction work at the end, J, NaN without friction */
  int oom;       /* the phases' table could not grow */
};

static int
has_friction(const vb_scene *sc)
{
  for (int c = 0; c < sc->ncontacts; c++)
    if (sc->contacts[c].friction.kind != VB_FRICTION_NONE)
      return 1;
  return 0;
}

int
vb_phases_alloc(vb_run *run, char *err, size_t errlen)
{
  const vb_scene *sc = run->scene;
  run->phases = NULL;
  if (!has_friction(sc))
    return VB_OK;
  vb_phase_run *p = calloc(1, sizeof *p);
  if (!p)
    goto nomem;
  run->phases = p;
  for (int c = 0; c < sc->ncontacts; c++)
    p->nfc += sc->contacts[c].friction.kind != VB_FRICTION_NONE;
  p->tr = calloc((size_t)p->nfc, sizeof *p->tr);
  p->share = calloc(2 * (size_t)sc->ncontacts, sizeof *p->share);
  p->cap = 16;
  p->phases = malloc((size_t)p->cap * sizeof *p->phases);
  if (!p->tr || !p->share || !p->phases)
    goto nomem;
  p->work = p->share + sc->ncontacts;
  for (int c = 0, j = 0; c < sc->ncontacts; c++) {
    p->share[c] = p->work[c] = NAN;
    if (sc->contacts[c].friction.kind == VB_FRICTION_NONE)
      continue;
    tracker *t = &p->tr[j++];
    t->c = c;
    t->k = run->contact_island[c];
    t->i = -1;
    const vb_friction_model *fm = run->model->islands[t->k].fric;
    for (int i = 0; fm && i < fm->nfc; i++)
      if (fm->scene_c[i] == c)
        t->i = i;
    if (t->i < 0)
      return vb_errf(err, errlen, VB_EINVAL, "scene '%s': contact '%s' has no friction model",
                     sc->name, sc->contacts[c].name);
  }
  return VB_OK;
nomem:
  return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory allocating the run",
                 sc->name);
}

int
vb_phases_attached(const vb_run *run)
{
  return run->phases != NULL;
}

void
vb_phases_free(vb_run *run)
{
  vb_phase_run *p = run->phases;
  if (p) {
    free(p->tr);
    free(p->share);
    free(p->phases);
    free(p);
  }
  run->phases = NULL;
}

/* Append a finished phase (grows by doubling). */
static void
push(vb_phase_run *p, const vb_phase *ph)
{
  if (p->n == p->cap) {
    vb_phase *grown = realloc(p->phases, 2 * (size_t)p->cap * sizeof *grown);
    if (!grown) {
      p->oom = 1;
      return;
    }
    p->phases = grown;
    p->cap *= 2;
  }
  p->phases[p->n++] = *ph;
}

/* x within [lo, hi]; not finite: fallback. */
static double
clamp(double x, double lo, double hi, double fallback)
{
  if (!isfinite(x))
    return fallback;
  return x < lo ? lo : x > hi ? hi : x;
}

/* When t's open phase ends, a phase of kind to_stick starting with step
 * n (from (n-1) h to n h): the extrapolation the header describes from
 * the old kind's last two steps, at their midpoints (n - 1.5) h and
 * (n - 2.5) h; the edge (n-1) h when it cannot. */
static double
transition(const tracker *t, int to_stick, long n, double h)
{
  double edge = (double)(n - 1) * h, t1 = ((double)n - 1.5) * h;
  double d = t->prev[0] - t->prev[1]; /* the change over the last step */
  if (t->usable < 2)
    return edge;
  if (to_stick) {
    /* the slip's zero: it falls towards 0 (from either side); the zero
     * may lie in the last slipping step's second half (it overshoots:
     * friction.c) or in the first sticking step */
    if (!(t->prev[0] * d < 0.0))
      return edge;
    return clamp(t1 - t->prev[0] * h / d, (double)(n - 2) * h, (double)n * h, edge);
  }
  /* the holding force rising to the hold, between the last sticking
   * step's midpoint and the first slipping one's */
  if (!(d > 0.0) || !(t->hold_prev >= t->prev[0]))
    return edge;
  return clamp(t1 + (t->hold_prev - t->prev[0]) * h / d, t1, t1 + h, edge);
}

/* Close t's open phase at t_off (NaN: the run ended in it) with the
 * contact's friction work `work` at its end, J. */
static void
close_phase(vb_phase_run *p, tracker *t, double t_off, double work, double h)
{
  vb_phase *ph = &t->ph;
  ph->t_off = t_off;
  ph->duration = t_off - ph->t_on;
  double over = isfinite(ph->duration) ? ph->duration : (double)ph->steps * h;
  ph->mean_slip = ph->stick || !(over > 0.0) ? 0.0 : t->slip_sum / over;
  ph->friction_work = work - t->work0;
  t->open = 0;
  push(p, ph);
}

/* Open a phase of t of kind stick at t_on, the contact's work then work0. */
static void
open_phase(tracker *t, int stick, double t_on, double work0)
{
  memset(&t->ph, 0, sizeof t->ph);
  t->open = 1;
  t->ph.contact = t->c;
  t->ph.stick = stick;
  t->ph.t_on = t_on;
  t->work0 = work0;
  t->slip_sum = 0.0;
  t->usable = 0;
}

void
vb_phases_step(vb_run *run, long n)
{
  vb_phase_run *p = run->phases;
  double h = run->dt;
  p->steps++;
  for (int j = 0; j < p->nfc; j++) {
    tracker *t = &p->tr[j];
    const vb_friction_model *fm = run->model->islands[t->k].fric;
    const vb_friction_state *fs = run->states[t->k]->fric;
    int i = t->i;
    double N = fs->normal[i], slip = fs->slip[i], ft = fs->ft[i], work = fs->work[i];
    /* the step's kind: -1 apart (no normal force), 0 slip, 1 stick */
    int kind = N > 0.0 ? fm->info[i]->sticks(fs->st + fm->st_first[i]) != 0 : -1;
    t->stick_steps += kind == 1;
    if (t->open && kind != t->ph.stick) {
      double at = kind < 0 ? (double)(n - 1) * h : transition(t, kind, n, h);
      /* the work of a stick's first step (its catch) is the slip's */
      double upto = kind == 1 ? work : t->work_last;
      close_phase(p, t, at, upto, h);
      if (kind >= 0)
        open_phase(t, kind, at, upto);
    } else if (!t->open && kind >= 0) {
      open_phase(t, kind, (double)(n - 1) * h, t->work_last);
    }
    t->work_last = work;
    if (!t->open)
      continue;
    t->ph.steps++;
    t->slip_sum += slip * h;
    /* the extrapolation's samples: the slips of a slip, |ft| of a stick
     * but for its first step (which holds the catch) */
    if (!(t->ph.stick && t->ph.steps == 1)) {
      t->prev[1] = t->prev[0];
      t->prev[0] = t->ph.stick ? fabs(ft) : slip;
      t->usable += t->usable < 2;
    }
    t->hold_prev = fm->info[i]->hold(fm->law[i], N);
  }
}

/* Close the phases still open (t_off NaN), the shares, and the table in
 * contact order (each contact's phases in time order: a stable pass). */
int
vb_phases_finish(vb_run *run)
{
  vb_phase_run *p = run->phases;
  if (!p)
    return VB_OK;
  for (int j = 0; j < p->nfc; j++) {
    tracker *t = &p->tr[j];
    if (t->open)
      close_phase(p, t, NAN, t->work_last, run->dt);
    p->share[t->c] = p->steps > 0 ? (double)t->stick_steps / (double)p->steps : NAN;
    p->work[t->c] = t->work_last;
  }
  if (p->oom)
    return VB_ENOMEM;
  vb_phase *sorted = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *sorted);
  if (!sorted)
    return VB_ENOMEM;
  long at = 0;
  for (int j = 0; j < p->nfc; j++)
    for (long r = 0; r < p->n; r++)
      if (p->phases[r].contact == p->tr[j].c)
        sorted[at++] = p->phases[r];
  free(p->phases);
  p->phases = sorted;
  p->cap = p->n > 0 ? p->n : 1;
  return VB_OK;
}

const vb_phase *
vb_run_phases(const vb_run *run, long *n)
{
  *n = run->phases ? run->phases->n : 0;
  return run->phases ? run->phases->phases : NULL;
}

double
vb_run_stick_share(const vb_run *run, int c)
{
  if (!run->phases || c < 0 || c >= run->scene->ncontacts)
    return NAN;
  return run->phases->share[c];
}

const double *
vb_phases_share(const vb_run *run)
{
  return run->phases ? run->phases->share : NULL;
}

const double *
vb_phases_work(const vb_run *run)
{
  return run->phases ? run->phases->work : NULL;
}

/* ------------------------------------------------------- its table */

/* Whether scene 0 has a contact with friction (issue 30): the phases'
 * table and the friction columns. */
int
vb_has_friction(const vb_scene *first)
{
  for (int c = 0; c < first->ncontacts; c++)
    if (first->contacts[c].friction.kind != VB_FRICTION_NONE)
      return 1;
  return 0;
}

static long
phase_rows(const vb_run_view *rv)
{
  long n = 0;
  vb_run_phases(rv->run, &n); /* the tracker's own, through the view's run */
  return n;
}

static const void *
phase_item(const vb_run_view *rv, long r, long *buf)
{
  long n;
  (void)buf;
  return &vb_run_phases(rv->run, &n)[r];
}

#define PHASE_F64(n, u)                                                                            \
  {.name = #n, .units = u, .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = vb_column_member,     \
   .at = offsetof(vb_phase, n)}

/* The stick and slip phases: one row per phase of every scene (vb_phase),
 * each contact's in time order. */
static const vb_column phase_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "contact", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32,
     .get = vb_column_member, .at = offsetof(vb_phase, contact)},
    {.name = "stick", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32,
     .get = vb_column_member, .at = offsetof(vb_phase, stick), .flag_meanings = "slip stick"},
    PHASE_F64(t_on, "s"),
    PHASE_F64(t_off, "s"),
    PHASE_F64(duration, "s"),
    PHASE_F64(mean_slip, "m/s"),
    PHASE_F64(friction_work, "J"),
    {.name = "steps", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64,
     .get = vb_column_member, .at = offsetof(vb_phase, steps)},
    {.name = NULL},
};

/* /study/phases (its observer row's, observe.c): one row per phase. */
const vb_xtable vb_phase_tables[] = {
    {.name = "phases",
     .dim = "phase",
     .cols = phase_columns,
     .present = vb_has_friction,
     .rows = phase_rows,
     .item = phase_item},
    {.name = NULL},
};
