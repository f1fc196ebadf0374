/* observe.c - the run's observers, one row each (after MuJoCo's plugins,
 * whose compute and advance hooks the engine calls at their stage): the
 * per-scene trackers that follow a run without changing it, iterated by
 * run.c at its stages, never called by name.  A new tracker (friction
 * phases, continuation, sensitivities) costs three files: a row here, its
 * own file with its hooks and its tables' descriptors (vb_xtable: the
 * writer writes every row's tables, vb_xtable_at), and its state's pointer
 * on the run (run.h).  Columns it adds to /study/table are output/table.c's.
 *
 * A row's hooks see the run; its state hangs on the run (run.h's
 * vb_run), allocated by `alloc` only when the scene asks for it. */
#include <stddef.h>
#include <string.h>

#include "run.h"

/* --------------------------------------------------------- analysis */

/* The section and impact map of the scene's analysis block (analysis.c). */
static int
analysis_alloc(vb_run *run, char *err, size_t errlen)
{
  if (vb_analysis_run_alloc(run) != VB_OK)
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory allocating the run",
                   run->scene->name);
  return VB_OK;
}

static int
analysis_attached(const vb_run *run)
{
  return run->analysis != NULL;
}

static void
analysis_start(vb_run *run)
{
  vb_analysis_step(run, 0);
}

static void
analysis_free(vb_run *run)
{
  vb_analysis_run_free(run->analysis);
  run->analysis = NULL;
}

/* --------------------------------------------------------- Lyapunov */

/* The largest Lyapunov exponent, by a twin run (lyapunov.c). */
static int
lyapunov_attached(const vb_run *run)
{
  return run->lyap != NULL;
}

static void
lyapunov_free(vb_run *run)
{
  vb_lyapunov_free(run->lyap);
  run->lyap = NULL;
}

/* ----------------------------------------------------------- phases */

/* The stick and slip phases of the contacts with friction: phases.c's
 * hooks (run.h), the first phase opening with step 1. */

/* ------------------------------------------------------------ table */

static const vb_observer observers[] = {
    {
        .name = "analysis",
        .stage = VB_STAGE_BEFORE_SAMPLE,
        .alloc = analysis_alloc,
        .attached = analysis_attached,
        .start = analysis_start,
        .step = vb_analysis_step,
        .finish = vb_analysis_finish,
        .free = analysis_free,
        .tables = vb_analysis_tables, /* and /study/table's orbit columns */
    },
    {
        .name = "lyapunov",
        .stage = VB_STAGE_AFTER_SAMPLE,
        .alloc = vb_lyapunov_alloc,
        .attached = lyapunov_attached,
        .step = vb_lyapunov_step,
        .free = lyapunov_free,
        /* no table of its own: /study/table's lyapunov columns */
    },
    {
        .name = "phases",
        .stage = VB_STAGE_BEFORE_SAMPLE,
        .alloc = vb_phases_alloc,
        .attached = vb_phases_attached,
        .step = vb_phases_step,
        .finish = vb_phases_finish,
        .free = vb_phases_free,
        .tables = vb_phase_tables, /* and /study/table's friction columns */
    },
};

/* Row i of the observer table, NULL beyond; *n (may be NULL) gets the count. */
const vb_observer *
vb_observer_at(int i, int *n)
{
  int count = (int)(sizeof observers / sizeof observers[0]);
  if (n)
    *n = count;
  return i >= 0 && i < count ? &observers[i] : NULL;
}

/* Table x of all observers', in the table's order, NULL beyond. */
const vb_xtable *
vb_xtable_at(int x, int *n)
{
  const vb_observer *o;
  const vb_xtable *found = NULL;
  int k = 0;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++)
    for (const vb_xtable *t = o->tables; t && t->name; t++, k++)
      if (k == x)
        found = t;
  if (n)
    *n = k;
  return x >= 0 ? found : NULL;
}

int
vb_xtable_count(void)
{
  int n;
  vb_xtable_at(0, &n);
  return n;
}

int
vb_xtable_index(const char *name)
{
  const vb_xtable *t;
  for (int x = 0; (t = vb_xtable_at(x, NULL)); x++)
    if (strcmp(t->name, name) == 0)
      return x;
  return -1;
}

/* Attach every observer the scene asks for; VB_OK, or the first row's
 * failure with its message (the run is then freed by the caller). */
int
vb_observers_alloc(vb_run *run, char *err, size_t errlen)
{
  const vb_observer *o;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++) {
    int rc = o->alloc(run, err, errlen);
    if (rc != VB_OK)
      return rc;
  }
  return VB_OK;
}

/* The start of every attached observer (after the start's sample). */
void
vb_observers_start(vb_run *run)
{
  const vb_observer *o;
  run->observing[VB_STAGE_BEFORE_SAMPLE] = run->observing[VB_STAGE_AFTER_SAMPLE] = 0;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++) {
    if (o->start && o->attached(run))
      o->start(run);
    if (o->step && o->attached(run))
      run->observing[o->stage]++;
  }
}

/* Step n of every attached observer of one stage. */
void
vb_observers_step(vb_run *run, long n, int stage)
{
  const vb_observer *o;
  if (!run->observing[stage]) /* none (the attached are those of the start) */
    return;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++)
    if (o->stage == stage && o->step && o->attached(run))
      o->step(run, n);
}

/* The end of every observer (a failed run's too): VB_OK, or the first
 * failure (VB_ENOMEM), every finish run regardless. */
int
vb_observers_finish(vb_run *run)
{
  const vb_observer *o;
  int rc = VB_OK;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++)
    if (o->finish) {
      int r = o->finish(run);
      if (rc == VB_OK)
        rc = r;
    }
  return rc;
}

/* Free every observer's state. */
void
vb_observers_free(vb_run *run)
{
  const vb_observer *o;
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++)
    o->free(run);
}
