/* run.c - a run of a scene: the islands' states stepped together, the
 * recording (record.c) and each contact's table of impacts (events.c).
 *
 * The scene is compiled once into a const model (model.c); the run holds
 * one state per island (step.c).  Everything is sized once by
 * vb_run_alloc; the step allocates nothing, except that a contact's event
 * table grows (by doubling) when an impact ends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lyapunov.h"
#include "run.h"

/* ------------------------------------------------------------ allocation */

/* Free a run. */
void
vb_run_free(vb_run *run)
{
  if (!run)
    return;
  if (run->results)
    for (int c = 0; c < run->scene->ncontacts; c++)
      free(run->results[c].events);
  if (run->states)
    for (int i = 0; i < run->nislands; i++)
      vb_island_state_free(run->states[i]);
  free(run->states);
  vb_observers_free(run);
  vb_model_free(run->model);
  vb_record_free(run);
  free(run->results);
  free(run->trackers);
  free(run->e_prev);
  free(run);
}

/* The islands: the compiled model and one state per island. */
static int
islands_alloc(vb_run *run, char *err, size_t errlen)
{
  int rc = vb_model_compile(run->scene, &run->model, err, errlen);
  if (rc != VB_OK)
    return rc;
  const vb_model *m = run->model;
  run->nislands = m->nislands;
  run->contact_island = m->contact_island;
  run->contact_local = m->contact_local;
  run->body_island = m->body_island;
  run->body_offset = m->body_offset;
  run->states = calloc((size_t)run->nislands + 1, sizeof *run->states);
  if (!run->states)
    return VB_ENOMEM;
  for (int i = 0; i < run->nislands; i++)
    if (vb_island_state_alloc(&m->islands[i], &run->states[i]) != VB_OK)
      return VB_ENOMEM;
  /* an island that may factor an active set past 32 contacts with LAPACK
   * (solvers/dense.c), which is loaded at its first call (lib/base/lapack.c):
   * loaded here instead, so that a missing LAPACK is said before the run */
  for (int i = 0; i < run->nislands; i++) {
    const char *why;
    if (m->islands[i].nc > 32 && vb_lapack_load(&why) != 0)
      return vb_errf(err, errlen, VB_EIO,
                     "%s: scene '%s': an island of %d contacts factors its active set with "
                     "LAPACK, which cannot be loaded (%s) (valid: a LAPACK that provides "
                     "liblapack.so.3, e.g. Debian's liblapack3, or its file in VIBRO_LAPACK)",
                     run->scene->path ? run->scene->path : "scene", run->scene->name,
                     m->islands[i].nc, why);
  }
  return VB_OK;
}

/* Allocate a run of a scene. */
int
vb_run_alloc(const vb_scene *scene, vb_run **out, char *err, size_t errlen)
{
  return vb_run_alloc_into(scene, NULL, out, err, errlen);
}

/* Allocate a run of a scene recording into a file as it goes. */
int
vb_run_alloc_into(const vb_scene *scene, const vb_record_file *to, vb_run **out, char *err,
                  size_t errlen)
{
  *out = NULL;
  /* into a file, only a window of the recording is in memory */
  int rc = to ? VB_OK : vb_record_fits(scene, err, errlen);
  if (rc != VB_OK)
    return rc;
  vb_run *run = calloc(1, sizeof *run);
  if (!run)
    goto nomem;
  int nc = scene->ncontacts;
  run->scene = scene;
  run->nsteps = vb_scene_steps(scene);
  run->nrec = vb_scene_samples(scene);
  run->dt = 1.0 / scene->fs;
  rc = islands_alloc(run, err, errlen);
  if (rc == VB_ENOMEM)
    goto nomem;
  if (rc != VB_OK) {
    vb_run_free(run);
    return rc;
  }
  run->results = calloc((size_t)nc + 1, sizeof *run->results);
  run->trackers = calloc((size_t)nc + 1, sizeof *run->trackers);
  run->e_prev = calloc(2 * (size_t)run->nislands + 1, sizeof(double));
  if (!run->results || !run->trackers || !run->e_prev ||
      vb_record_alloc(run, to) != VB_OK)
    goto nomem;
  if ((rc = vb_observers_alloc(run, err, errlen)) != VB_OK) {
    vb_run_free(run);
    return rc;
  }
  run->e_now = run->e_prev + run->nislands;
  /* each contact's events are allocated at its first (push_event): 16 for
   * every contact were 2.7 KB each, 270 MB for 10^5 contacts */
  snprintf(run->status, sizeof run->status, "not run");
  *out = run;
  return VB_OK;
nomem:
  vb_run_free(run);
  return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory allocating the run",
                 scene->name);
}

/* ------------------------------------------------------------------ run */

static void
diverged(vb_run *run, int i, long n, int solve_failed)
{
  char what[256];
  vb_island_nonfinite(&run->model->islands[i], run->states[i], solve_failed, what, sizeof what);
  snprintf(run->status, sizeof run->status, "diverged at t=%.9g s: %s", n * run->dt, what);
  run->code = VB_EDIVERGED;
}

/* A scene's energy past this many times what it can hold (energy_guard)
 * is a scheme's instability, not physics. */
#define ENERGY_GROWTH 10.0
/* The energy any scene may hold, whatever its work (so that a scene at
 * rest, e0 = 0, does not trip on rounding), J. */
#define ENERGY_FLOOR 1.0e-12
/* A scene that finishes with its energy once past this many times what it
 * can hold (energy_guard's bound) is done but failed numerically: no
 * physics puts energy there, so a scheme that does not conserve energy
 * (am1, the explicit schemes, the quadratic scheme's fall-backs) gained
 * it, typically from a contact it does not resolve.  The scenes of
 * scenes/ stay within 1.02x; the hammer of scenes/avanzini-hammer-bar.cfg
 * with am1 at 1 kHz (1.1 samples a contact) reaches 2.53x.  At 1.1x, one
 * of check_random's 400 scenes (seed 149: a quadratic contact with
 * fall-backs beside a driven wall and forces, 40 samples a contact)
 * reached 1.21x: a smaller gain is left to energy_balance_error, which
 * reports it too.  Its status says so (done_status). */
#define ENERGY_WARN 2.0

/* What did not converge, into buf[len] (its length returned): "newton
 * failed at t=T (N steps did not converge)" for the steps whose normal
 * solve (Newton) hit its cap, "friction solve did not converge at t=T (N
 * steps)" for those whose friction solve did (friction.c: the Gauss-
 * Seidel and its block fall-back), both joined by "; " when both
 * failed. */
static int
failure_text(const vb_run *run, char *buf, size_t len)
{
  int k = 0;
  buf[0] = '\0';
  if (run->newton_failures > 0)
    k = snprintf(buf, len, "newton failed at t=%.9g (%ld steps did not converge)",
                 run->first_newton_failure * run->dt, run->newton_failures);
  if (k >= 0 && (size_t)k < len && run->friction_failures > 0)
    k += snprintf(buf + k, len - (size_t)k,
                  "%sfriction solve did not converge at t=%.9g (%ld steps)", k > 0 ? "; " : "",
                  run->first_friction_failure * run->dt, run->friction_failures);
  return k < 0 ? 0 : (size_t)k >= len ? (int)len - 1 : k;
}

/* After step n: a scene whose energy passes ENERGY_GROWTH times what it
 * can hold has diverged.  What it can hold: e(t) = e0 + W(t) + C(t) - D(t)
 * with D >= 0 dissipated, W the work of forces, gravity and drivers and C
 * the energy Papetti's corrections (section 4.2) put in, so e(t) <= e0 +
 * (W's total variation) + (what C added, its removals not counted) =
 * e0 + e_work.  The scenes of scenes/ stay within 1.02x of it.  Sets the
 * status and returns VB_EDIVERGED, or VB_ENOCONV after steps where Newton
 * did not converge (failures of them, the first at step first_failure),
 * else VB_OK. */
static int
energy_guard(vb_run *run, long n, long failures, long first_failure)
{
  double kin, pot, diss, ext, corr;
  vb_record_energy(run, &kin, &pot, &diss, &ext, &corr);
  double e = kin + pot;
  double bal = e + diss - ext - corr - run->e0; /* vb_run_balance_error's sum, at step n */
  if (fabs(bal) > fabs(run->bal_worst))
    run->bal_worst = bal;
  run->e_work += fabs(ext - run->ext_prev) + fmax(corr - run->corr_prev, 0.0);
  run->ext_prev = ext;
  run->corr_prev = corr;
  double bound = fabs(run->e0) + run->e_work + ENERGY_FLOOR;
  if (e / bound > run->e_peak) {
    run->e_peak = e / bound;
    run->e_peak_step = n;
  }
  if (!(e > ENERGY_GROWTH * bound)) /* a NaN bound (inf work) does not trip */
    return VB_OK;
  if (failures > 0) { /* the unconverged steps, not the scheme, are the cause */
    (void)first_failure;
    int k = failure_text(run, run->status, sizeof run->status);
    snprintf(run->status + k, sizeof run->status - (size_t)k,
             ", then energy grew from %.3g J to %.3g J at t=%.9g", run->e0, e, n * run->dt);
    return run->code = VB_ENOCONV;
  }
  snprintf(run->status, sizeof run->status,
           "diverged at t=%.9g s: energy grew from %.3g J to %.3g J: the scheme is unstable here"
           " (try two-point)", n * run->dt, run->e0, e);
  return run->code = VB_EDIVERGED;
}

/* The contacts of island i whose impacts are open or pending (trackers)
 * into its watch list, ascending (at the start). */
static void
watch_start(vb_run *run, int i)
{
  const vb_island_model *m = &run->model->islands[i];
  vb_island_state *st = run->states[i];
  st->nwatch = 0;
  for (int lc = 0; lc < m->nc; lc++) {
    const vb_tracker *tr = &run->trackers[m->contacts[lc]];
    if (tr->open || tr->pending)
      st->watch[st->nwatch++] = lc;
  }
}

/* Set every island and tracker at t = 0 and record sample 0; VB_OK, or
 * VB_EDIVERGED when the initial state is not finite. */
static int
start(vb_run *run)
{
  run->code = VB_OK;
  for (int i = 0; i < run->nislands; i++)
    vb_island_start(&run->model->islands[i], run->states[i]);
  for (int c = 0; c < run->scene->ncontacts; c++) {
    memset(&run->trackers[c], 0, sizeof run->trackers[c]);
    run->results[c].nevents = 0;
    run->results[c].newton_failures = 0;
    run->results[c].fallbacks = 0;
    run->results[c].iterations = 0;
    run->results[c].global_solves = 0;
    run->results[c].global_iterations = 0;
    run->results[c].state_drift = NAN;
    run->results[c].under_resolved = 0;
    vb_events_start(run, c);
  }
  for (int i = 0; i < run->nislands; i++)
    watch_start(run, i);
  for (int i = 0; i < run->nislands; i++)
    if (!vb_island_finite(&run->model->islands[i], run->states[i])) {
      diverged(run, i, 0, 0);
      vb_record_blank_from(run, 0);
      return run->code;
    }
  double kin, pot, diss, ext, corr;
  vb_record_energy(run, &kin, &pot, &diss, &ext, &corr);
  run->e0 = kin + pot;
  run->e_work = 0.0;
  run->e_peak = 1.0;
  run->e_peak_step = 0;
  run->bal_worst = 0.0;
  run->ext_prev = ext;
  run->corr_prev = corr;
  for (int i = 0; i < run->nislands; i++)
    run->e_prev[i] = run->states[i]->kinetic + run->states[i]->potential;
  vb_record_sample(run, 0, 0);
  vb_observers_start(run);
  return VB_OK;
}

/* Step every island from n-1 to n, counting Newton's work and failures
 * (*failures, *first_failure); VB_EDIVERGED ends the run. */
static int
step_islands(vb_run *run, long n, long *failures, long *first_failure)
{
  const vb_scene *sc = run->scene;
  for (int i = 0; i < run->nislands; i++) {
    const vb_island_model *m = &run->model->islands[i];
    vb_island_state *st = run->states[i];
    long global = st->global_solves, gits = st->global_iterations;
    long fric_failed = st->fric ? vb_friction_failed_steps(st->fric) : 0;
    int rc = vb_island_step(m, st, n - 1);
    global = st->global_solves - global;
    gits = st->global_iterations - gits;
    /* the contacts stepped (a skipped one has no iterations; a step that
     * solved nothing, none) */
    for (int k = 0; st->solved && k < st->ntrk; k++) {
      int lc = st->trk[k];
      vb_contact_result *res = &run->results[m->contacts[lc]];
      res->iterations += st->iterations[lc];
      res->fallbacks += st->fallback[lc];
      if (gits > 0 && st->iterations[lc] > 0) {
        res->global_solves += global;
        res->global_iterations += gits;
      }
    }
    if (rc == VB_ENOCONV) {
      ++*failures;
      if (*first_failure < 0)
        *first_failure = n;
      int capped = 0;
      for (int k = 0; k < st->ntrk; k++) {
        int lc = st->trk[k];
        if (st->iterations[lc] >= sc->contacts[m->contacts[lc]].max_iterations) {
          run->results[m->contacts[lc]].newton_failures++;
          capped = 1;
        }
      }
      /* the friction solve's failure (friction.c counts it), the normal
       * solve's (a contact at its cap, or no friction failure to blame) */
      int fric = st->fric && vb_friction_failed_steps(st->fric) > fric_failed;
      if (fric && run->friction_failures++ == 0)
        run->first_friction_failure = n;
      if ((capped || !fric) && run->newton_failures++ == 0)
        run->first_newton_failure = n;
    }
    if (rc == VB_EDIVERGED || !vb_island_finite(m, st)) {
      diverged(run, i, n, rc == VB_EDIVERGED);
      return run->code;
    }
  }
  return VB_OK;
}

/* The next contact of island i to track, or -1: every one stepped, or,
 * where the step listed those in contact (st->neng >= 0) and no contact
 * corrects (a correction moves the bodies every other contact sees), the
 * union of those and of the watch list (a contact out of contact with
 * nothing open or pending has nothing to track: vb_events_track returns at
 * once), ascending.  *a and *b walk the two lists. */
static int
next_tracked(const vb_island_state *st, int all, int *a, int *b)
{
  if (all)
    return *a < st->ntrk ? st->trk[(*a)++] : -1;
  int ea = *a < st->neng ? st->eng[*a] : -1, wb = *b < st->nwatch ? st->watch[*b] : -1;
  if (ea < 0 && wb < 0)
    return -1;
  if (wb < 0 || (ea >= 0 && ea < wb))
    return st->eng[(*a)++];
  if (ea == wb)
    (*a)++;
  return st->watch[(*b)++];
}

/* Track island i's contacts after step n in its canonical contact order (a
 * correction moves the bodies the next contact sees), e_now its energy
 * (corrections added); the contacts left with an impact open or a release
 * pending become its watch list. */
static int
track_island(vb_run *run, int i, long n, double *e_now)
{
  const vb_island_model *m = &run->model->islands[i];
  vb_island_state *st = run->states[i];
  int all = st->neng < 0 || st->corrections, a = 0, b = 0, nw = 0, lc;
  while ((lc = next_tracked(st, all, &a, &b)) >= 0) {
    int c = m->contacts[lc];
    int rc = vb_events_track(run, c, n, st->xb[lc], st->rb[lc], e_now);
    if (rc)
      return rc;
    if (run->trackers[c].open || run->trackers[c].pending)
      st->watch_next[nw++] = lc;
  }
  memcpy(st->watch, st->watch_next, (size_t)nw * sizeof *st->watch);
  st->nwatch = nw;
  return VB_OK;
}

/* Track every contact's impacts after step n (the energies of the islands
 * before corrections into e_now, after them into e_prev). */
static int
track_contacts(vb_run *run, long n)
{
  double *e_now = run->e_now;
  for (int i = 0; i < run->nislands; i++)
    e_now[i] = run->states[i]->kinetic + run->states[i]->potential;
  /* island by island: the contacts stepped (a skipped one stays out of
   * contact) */
  for (int i = 0; i < run->nislands; i++) {
    int rc = track_island(run, i, n, &e_now[i]);
    if (rc) {
      snprintf(run->status, sizeof run->status, "out of memory at t=%.9g", n * run->dt);
      return run->code = rc;
    }
  }
  for (int i = 0; i < run->nislands; i++)
    run->e_prev[i] = e_now[i]; /* corrections included */
  return VB_OK;
}

/* Simulate the whole scene. */
int
vb_run_exec(vb_run *run)
{
  return vb_run_exec_stop(run, NULL);
}

/* The fraction of the steps done, 0 to 1; safe to read from another
 * thread while the run executes (a relaxed atomic load). */
double
vb_run_fraction(const vb_run *run)
{
  long at = __atomic_load_n(&run->at, __ATOMIC_RELAXED);
  return run->nsteps > 0 ? (double)at / (double)run->nsteps : 1.0;
}

/* The status of a scene that ran to its end: "done"; "done, under-resolved:
 * contact 'hit' sav drift 9.3e+03 J^(1/2) > 0.158 = sqrt(2E)/10, in
 * 2205/2205 samples, 0.00162 predicted" (closed in 2205 of the 2205 steps)
 * when a contact stopped being resolved (under_resolved, either figure or
 * both; the table keeps 127 characters); or, when its energy
 * rose past ENERGY_WARN times what it can hold (initial energy plus work),
 * "done, energy gain 2.53x at t=0.002 s; contact 'hit' 1 samples, am1
 * resolves 4: fs above 4e+03 Hz"
 * (still VB_OK: the run finished and its output is complete, but the
 * status, vibro run's and vibro info's summaries say it is not to be
 * trusted), naming the peak, when, and the contact with the fewest
 * samples per contact among those that struck, when that is fewer than its
 * scheme resolves. */
/* A contact whose scheme keeps a state (sav's auxiliary variable psi,
 * solvers/sav.c) has stopped resolving the contact when the state drifts
 * from its definition by more than this fraction of sqrt(2 E), E the
 * energy the scene can hold (|e0| + e_work, energy_guard's bound): psi^2/2
 * is the contact's part of a conserved energy, so |psi| <= sqrt(2 E), and
 * a drift d past a tenth of it makes the energy psi stands for differ from
 * the law's V by up to sqrt(2 E) d + d^2/2 = 21 % of E.  The cases
 * (a 1 g hammer, power law, k 1e16 at 50 m/s and k 1e13 at 1 m/s, 0.004
 * and 0.9 samples predicted) drift to 1860 and 22 times sqrt(2 E);
 * avanzini-hammer-bar with sav (48 samples a contact) to 2.1e-4 J^(1/2). */
#define DRIFT_BOUND 0.1
/* A contact engaged for at least this share of the run's steps in one
 * impact whose predicted duration (Papetti eq 9, or the law's own
 * prediction, from the impact's v_in) is shorter than its scheme resolves
 * (min_contact_steps, vibro check's warning) and at least ENGAGED_OVER
 * times shorter than the impact has stopped being resolved: the scheme
 * holds it closed.  A resolved prediction is left alone: a bead settling
 * under gravity (scenes/rattle-settle.cfg at mu = 4 and 8: 64310 and 80923
 * of 96000 samples against 84 and 73 predicted) rests on its contact. */
#define ENGAGED_SHARE 0.5
#define ENGAGED_OVER 10.0

/* Flag every contact the run stopped resolving (results[c].state_drift
 * and .under_resolved, DRIFT_BOUND, ENGAGED_SHARE); the first flagged
 * contact's figures into why (len bytes) and the number flagged returned. */
static int
under_resolved(vb_run *run, char *why, size_t len)
{
  const vb_scene *sc = run->scene;
  double bound = DRIFT_BOUND * sqrt(2.0 * (fabs(run->e0) + run->e_work + ENERGY_FLOOR));
  int flagged = 0;
  char who[VB_LABEL_MAX];
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_island_state *st = run->states[run->contact_island[c]];
    int lc = run->contact_local[c];
    vb_contact_result *r = &run->results[c];
    r->state_drift = st->hist[lc].st && ct->scheme->ops->state_drift ? st->drift[lc] : NAN;
    r->under_resolved = 0;
    char what[200] = "";
    int at = 0;
    if (r->state_drift > bound) {
      at = snprintf(what, sizeof what, "%s drift %.3g J^(1/2) > %.3g = sqrt(2E)/10",
                    ct->scheme->name, r->state_drift, bound);
      r->under_resolved = 1;
    }
    for (long k = 0; k < r->nevents; k++) {
      const vb_event *ev = &r->events[k];
      double predicted = ev->duration_pred * sc->fs;
      if (ev->samples >= ENGAGED_SHARE * (double)run->nsteps && isfinite(predicted) &&
          predicted < ct->scheme->min_contact_steps && ev->samples > ENGAGED_OVER * predicted &&
          at >= 0 && (size_t)at < sizeof what) {
        snprintf(what + at, sizeof what - (size_t)at, "%sin %d/%ld samples, %.3g predicted",
                 at ? ", " : "", ev->samples, run->nsteps, predicted);
        r->under_resolved = 1;
        break;
      }
    }
    if (r->under_resolved && flagged++ == 0)
      snprintf(why, len, "contact %s %s", vb_contact_label(sc, ct, who, sizeof who), what);
  }
  return flagged;
}

static void
done_status(vb_run *run)
{
  char why[256] = "";
  int flagged = under_resolved(run, why, sizeof why);
  if (!(run->e_peak > ENERGY_WARN)) {
    if (flagged > 1)
      snprintf(run->status, sizeof run->status, "done, under-resolved: %s (and %d more)", why,
               flagged - 1);
    else if (flagged)
      snprintf(run->status, sizeof run->status, "done, under-resolved: %s", why);
    else
      snprintf(run->status, sizeof run->status, "done");
    return;
  }
  const vb_scene *sc = run->scene;
  char who[VB_LABEL_MAX];
  int worst = -1;
  double fewest = INFINITY;
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = &run->results[c];
    for (long k = 0; k < r->nevents; k++)
      if (r->events[k].samples > 0 && r->events[k].samples < fewest) {
        fewest = r->events[k].samples;
        worst = c;
      }
  }
  /* the table keeps VB_STATUS_LEN (128) bytes: the figures come first */
  int at = snprintf(run->status, sizeof run->status, "done, energy gain %.3gx at t=%.6g s",
                    run->e_peak, run->e_peak_step * run->dt);
  if (worst >= 0 && fewest < sc->contacts[worst].scheme->min_contact_steps && at > 0 &&
      (size_t)at < sizeof run->status)
    snprintf(run->status + at, sizeof run->status - (size_t)at,
             "; contact %s %.3g samples, %s resolves %d: fs above %.3g Hz",
             vb_contact_label(sc, &sc->contacts[worst], who, sizeof who), fewest,
             sc->contacts[worst].scheme->name,
             sc->contacts[worst].scheme->min_contact_steps,
             sc->fs * sc->contacts[worst].scheme->min_contact_steps / fewest);
  size_t used = strlen(run->status);
  if (flagged && used < sizeof run->status)
    snprintf(run->status + used, sizeof run->status - used, "; under-resolved: %s", why);
}

static int finish(vb_run *run);

/* A run in blocks (issue 31 item 3): vb_run_exec_until is vb_run_begin,
 * vb_run_advance over every step and vb_run_end, so that a scene stepped
 * in blocks of any size makes the same operations in the same order as
 * one stepped whole, and its results are the same bits.  The block's
 * state (the next step, Newton's failures) lives on the run. */

/* Step n of the run and the work after it; VB_OK, or the code that ends it. */
static int
one_step(vb_run *run, long n)
{
  const vb_scene *sc = run->scene;
  if (step_islands(run, n, &run->failures, &run->first_failure) || track_contacts(run, n) ||
      energy_guard(run, n, run->failures, run->first_failure))
    return run->code;
  vb_observers_step(run, n, VB_STAGE_BEFORE_SAMPLE);
  if (sc->record_every == 1) /* (no division a step) */
    vb_record_sample(run, n, n);
  else if (n % sc->record_every == 0)
    vb_record_sample(run, n, n / sc->record_every);
  vb_observers_step(run, n, VB_STAGE_AFTER_SAMPLE);
  return VB_OK;
}

/* Up to count steps from run->next, stopping before a step when *stop >=
 * level; VB_OK, or the code that ended the run (vb_run_steps_finish then
 * ends it). */
int
vb_run_steps(vb_run *run, long count, const volatile int *stop, int level)
{
  long last = count < run->nsteps - run->next + 1 ? run->next + count - 1 : run->nsteps;
  for (; run->next <= last; run->next++) {
    __atomic_store_n(&run->at, run->next - 1, __ATOMIC_RELAXED);
    if (stop && *stop >= level) {
      snprintf(run->status, sizeof run->status, "stopped at t=%.9g s on request",
               (run->next - 1) * run->dt);
      return run->code = VB_EINTR;
    }
    if (one_step(run, run->next) != VB_OK)
      return run->code;
  }
  __atomic_store_n(&run->at, run->next - 1, __ATOMIC_RELAXED);
  return VB_OK;
}

/* The end of a run, stopped (run->code set) or at its last step: its
 * events and observers finished, its status, its recording into a file
 * written to its end. */
int
vb_run_steps_finish(vb_run *run)
{
  int rc = finish(run);
  vb_record_flush(run);
  return rc;
}

static int
finish(vb_run *run)
{
  const vb_scene *sc = run->scene;
  long n = run->next;
  run->stage = VB_RUN_ENDED;
  __atomic_store_n(&run->at, n - 1, __ATOMIC_RELAXED);
  if (run->code) {
    /* samples not reached are NaN, so nothing looks computed that was not */
    vb_record_blank_from(run, n / sc->record_every + (n % sc->record_every ? 1 : 0));
    vb_events_flush(run);
    if (vb_observers_finish(run) != VB_OK && run->code != VB_ENOMEM)
      run->code = VB_ENOMEM; /* the status says what stopped the run */
    return run->code;
  }
  int rc = vb_events_flush(run);
  if (rc == VB_OK)
    rc = vb_observers_finish(run);
  if (rc) {
    run->code = rc;
    snprintf(run->status, sizeof run->status, "out of memory recording events or the analysis");
    return rc;
  }
  if (run->failures > 0) {
    failure_text(run, run->status, sizeof run->status);
    run->code = VB_ENOCONV;
    return run->code;
  }
  done_status(run);
  return VB_OK;
}

/* t = 0: every island and tracker set, sample 0 recorded, the run ready
 * for vb_run_steps; VB_OK, or VB_EDIVERGED (the run has then ended: its
 * initial state is not finite, the recording blanked). */
int
vb_run_steps_begin(vb_run *run)
{
  run->next = 1;
  run->failures = 0;
  run->first_failure = -1;
  run->newton_failures = run->friction_failures = 0;
  run->first_newton_failure = run->first_friction_failure = -1;
  run->stage = VB_RUN_ENDED;
  if (start(run) != VB_OK)
    return run->code;
  run->stage = VB_RUN_STEPPING;
  return VB_OK;
}

/* The steps of vb_run_exec_until. */
static int
exec_steps(vb_run *run, const volatile int *stop, int level)
{
  if (vb_run_steps_begin(run) != VB_OK) {
    vb_record_flush(run);
    return run->code;
  }
  vb_run_steps(run, run->nsteps, stop, level);
  return vb_run_steps_finish(run);
}

/* Simulate the whole scene, or until *stop is nonzero (checked before
 * every step): then the status is "stopped at t=T s on request" and the
 * code VB_EINTR, the samples not reached NaN.  A recording into a file
 * is written to its end. */
int
vb_run_exec_stop(vb_run *run, const volatile int *stop)
{
  return vb_run_exec_until(run, stop, 1);
}

/* vb_run_exec_stop that stops only when *stop >= level (a study's scenes
 * in flight run on after a first signal, stop = 1, and stop at the
 * second, VB_STOP_ABANDON).  A recording into a file is written to its
 * end, whatever stopped the run. */
int
vb_run_exec_until(vb_run *run, const volatile int *stop, int level)
{
  /* subnormals flushed in this thread for the run, the caller's mode
   * given back (fpenv.c) */
  vb_fpenv caller = {0, 0};
  if (!run->keep_subnormals)
    vb_fpenv_flush(&caller);
  /* a threaded BLAS on one thread (lib/base/lapack.c; a study has pinned it
   * already, and this does nothing there) */
  int blas_threads = vb_blas_pin();
  int rc = exec_steps(run, stop, level);
  vb_blas_unpin(blas_threads);
  vb_fpenv_restore(&caller);
  return rc;
}

/* ------------------------------------------------------------- accessors */

const vb_scene *
vb_run_scene(const vb_run *run)
{
  return run->scene;
}
const char *
vb_run_status(const vb_run *run)
{
  return run->status;
}
int
vb_run_code(const vb_run *run)
{
  return run->code;
}

long
vb_run_samples(const vb_run *run)
{
  return run->nrec;
}

int
vb_run_record_errno(const vb_run *run)
{
  return run->record_errno;
}

long
vb_run_record_window(const vb_run *run)
{
  return run->win;
}
long
vb_run_record_stride(const vb_run *run)
{
  return run->stride;
}

const double *
vb_run_point_u(const vb_run *run, int body, int point)
{
  return run->point_u[run->point_first[body] + point];
}

const double *
vb_run_point_v(const vb_run *run, int body, int point)
{
  return run->point_v[run->point_first[body] + point];
}

const double *
vb_run_body_u(const vb_run *run, int body)
{
  return vb_run_point_u(run, body, 0);
}

const double *
vb_run_body_v(const vb_run *run, int body)
{
  return vb_run_point_v(run, body, 0);
}

const double *
vb_run_modes_q(const vb_run *run, int body)
{
  return run->modes_q[body];
}

const vb_contact_result *
vb_run_contact(const vb_run *run, int contact)
{
  return &run->results[contact];
}

const double *
vb_run_energy(const vb_run *run, int which)
{
  return run->energy[which];
}

double
vb_run_final_energy(const vb_run *run, int which)
{
  return run->e_last[which];
}

/* Energy balance error at the end of the run. */
double
vb_run_balance_error(const vb_run *run)
{
  return run->e_last[VB_ENERGY_TOTAL] + run->e_last[VB_ENERGY_DISSIPATED] -
         run->e_last[VB_ENERGY_EXTERNAL] - run->e_last[VB_ENERGY_CORRECTION] - run->e0;
}

/* The balance error of largest magnitude over the steps taken (signed), J. */
double
vb_run_balance_worst(const vb_run *run)
{
  return run->bal_worst;
}

/* Largest drift of a scheme's state from its definition, over the islands. */
double
vb_run_state_drift(const vb_run *run)
{
  double worst = NAN;
  for (int i = 0; i < run->nislands; i++)
    if (!isnan(run->states[i]->state_drift))
      worst = isnan(worst) ? run->states[i]->state_drift : fmax(worst, run->states[i]->state_drift);
  return worst;
}

/* The view of a finished run: each accessor asked once. */
void
vb_run_view_take(const vb_run *run, vb_run_view *v)
{
  v->run = run;
  v->scene = run->scene;
  v->code = run->code;
  v->status = run->status;
  v->samples = run->nrec;
  v->interval = (double)run->scene->record_every / run->scene->fs;
  v->final_energy = run->nrec > 0 ? vb_run_final_energy(run, VB_ENERGY_TOTAL) : NAN;
  v->balance_error = vb_run_balance_error(run);
  v->balance_worst = vb_run_balance_worst(run);
  v->state_drift = vb_run_state_drift(run);
  v->contacts = run->results;
  v->lyapunov = vb_run_lyapunov(run, &v->lyapunov_half);
  v->lyapunov_perturbation = vb_run_lyapunov_perturbation(run);
  v->analysis = vb_run_analysis(run);
  v->stick_share = vb_phases_share(run);
  v->friction_work = vb_phases_work(run);
}

/* ---------------------------------------------------- subnormal numbers */

/* Whether vb_run_exec* leave the calling thread's FTZ/DAZ bits alone. */
void
vb_run_keep_subnormals(vb_run *run, int keep)
{
  run->keep_subnormals = keep != 0;
}
