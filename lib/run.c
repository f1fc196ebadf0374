/* run.c - the driver: steps the islands, records signals and energy, and
 * keeps each contact's table of impacts.
 *
 * The islands (island.c) hold the state; the run holds what is recorded.
 * Everything is sized once by vb_run_alloc; the step allocates nothing,
 * except that a contact's event table grows (by doubling) when an impact
 * ends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "internal.h"

/* Event bookkeeping of one contact. */
typedef struct {
  int open;           /* an impact is in progress */
  int pending;        /* three-level: released, v_out awaits the next step */
  long n_release;     /* first sample out of contact */
  double x_release;   /* compression at that sample */
  double sign;        /* side of the barrier (rattle) */
  vb_event ev;
} tracker;

struct vb_run {
  const vb_scene *scene;
  long nsteps, nrec;
  double dt;
  vb_island *islands;          /* [nislands] */
  int nislands;
  int *contact_island;         /* [ncontacts] island of each contact */
  int *contact_local;          /* [ncontacts] index within its island */
  int *body_island;            /* [nbodies] island or -1 (walls) */
  int *body_offset;            /* [nbodies] first mode within the island */
  double **point_u, **point_v; /* [nbodies] -> [npoints][nrec] m, m/s */
  double **modes_q;            /* [nbodies] -> [nmodes][nrec] m, or NULL */
  double **pu, **pv;           /* [nislands] -> the island's points now */
  double *points;              /* storage of pu, pv */
  double *record;              /* one block holding every recorded signal */
  size_t nsignals;             /* signals of nrec samples in record */
  double *energy;              /* [VB_ENERGY_COUNT][nrec] J */
  vb_contact_result *results;  /* [ncontacts] */
  tracker *trackers;           /* [ncontacts] */
  double *e_prev;              /* [nislands] island energy at the previous step, J */
  double *e_now;               /* [nislands] island energy now, corrections included, J */
  double *x_before;            /* [ncontacts] compression at the previous step, m */
  double *rate_before;         /* [ncontacts] its rate, m/s */
  double e0;                   /* initial energy, J */
  char status[320];
  int code;
};

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
  vb_islands_free(run->islands, run->nislands);
  free(run->contact_island);
  free(run->point_u);
  free(run->pu);
  free(run->points);
  free(run->record);
  free(run->results);
  free(run->trackers);
  free(run->e_prev);
  free(run->x_before);
  free(run);
}

/* Bytes of memory available now, or 0 if unknown. */
static double
available_memory(void)
{
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* Zeroed memory for the recording.  A large one is aligned to 2 MiB and
 * offered to the kernel for transparent huge pages: a 10 s recording then
 * costs a few dozen page faults instead of thousands in the middle of the
 * run.  Freed with free(). */
static double *
record_alloc(size_t n)
{
  size_t bytes = n * sizeof(double), huge = (size_t)2 << 20;
  if (bytes < 2 * huge)
    return calloc(n ? n : 1, sizeof(double));
  void *p = NULL;
  size_t size = (bytes + huge - 1) / huge * huge;
  if (posix_memalign(&p, huge, size) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, size, MADV_HUGEPAGE); /* a hint: no error if refused */
#endif
  memset(p, 0, bytes);
  return p;
}

/* Recorded points of a body: its named points, or one for masses and walls. */
static int
recorded_points(const vb_body *b)
{
  return b->kind == VB_BODY_MODAL ? b->npoints : 1;
}

/* Allocate a run of a scene. */
int
vb_run_alloc(const vb_scene *scene, vb_run **out, char *err, size_t errlen)
{
  *out = NULL;
  double need = vb_scene_record_bytes(scene);
  double avail = available_memory();
  if (avail > 0.0 && need > 0.8 * avail) {
    snprintf(err, errlen,
             "%s: scene '%s': the recording needs %.3g bytes (%ld samples), more "
             "than the %.3g bytes of memory available; raise record.every or "
             "shorten the duration", scene->path ? scene->path : "scene",
             scene->name, need, vb_scene_samples(scene), avail);
    return VB_ENOMEM;
  }
  vb_run *run = calloc(1, sizeof *run);
  if (!run)
    goto nomem;
  int nb = scene->nbodies, nc = scene->ncontacts;
  run->scene = scene;
  run->nsteps = vb_scene_steps(scene);
  run->nrec = vb_scene_samples(scene);
  run->dt = 1.0 / scene->fs;
  int rc = vb_islands_build(scene, run->dt, &run->islands, &run->nislands, err, errlen);
  if (rc != VB_OK) {
    vb_run_free(run);
    return rc;
  }
  size_t nrec = (size_t)run->nrec, signals = VB_ENERGY_COUNT;
  for (int b = 0; b < nb; b++) {
    signals += 2 * (size_t)recorded_points(&scene->bodies[b]);
    if (scene->record_modes && scene->bodies[b].kind != VB_BODY_WALL)
      signals += (size_t)scene->bodies[b].nmodes;
  }
  signals += 3 * (size_t)nc;
  run->contact_island = calloc(2 * (size_t)nc + 2 * (size_t)nb + 1, sizeof(int));
  run->point_u = calloc(3 * (size_t)nb + 1, sizeof(double *));
  run->record = record_alloc(signals * nrec);
  run->nsignals = signals;
  run->results = calloc((size_t)nc + 1, sizeof *run->results);
  run->trackers = calloc((size_t)nc + 1, sizeof *run->trackers);
  if (!run->contact_island || !run->point_u || !run->record || !run->results
      || !run->trackers)
    goto nomem;
  run->contact_local = run->contact_island + nc;
  run->body_island = run->contact_local + nc;
  run->body_offset = run->body_island + nb;
  run->point_v = run->point_u + nb;
  run->modes_q = run->point_v + nb;
  double *p = run->record;
  run->energy = p;
  p += VB_ENERGY_COUNT * nrec;
  for (int b = 0; b < nb; b++) {
    int np = recorded_points(&scene->bodies[b]);
    run->point_u[b] = p;
    p += np * nrec;
    run->point_v[b] = p;
    p += np * nrec;
    if (scene->record_modes && scene->bodies[b].kind != VB_BODY_WALL) {
      run->modes_q[b] = p;
      p += (size_t)scene->bodies[b].nmodes * nrec;
    }
  }
  for (int c = 0; c < nc; c++) {
    run->results[c].compression = p;
    run->results[c].rate = p + nrec;
    run->results[c].force = p + 2 * nrec;
    p += 3 * nrec;
    run->results[c].cap = 16;
    run->results[c].events = malloc(16 * sizeof(vb_event));
    if (!run->results[c].events)
      goto nomem;
  }
  size_t npts = 0;
  for (int i = 0; i < run->nislands; i++)
    npts += (size_t)run->islands[i].npts;
  run->e_prev = calloc(2 * (size_t)run->nislands + 1, sizeof(double));
  run->x_before = calloc(2 * (size_t)nc + 1, sizeof(double));
  if (!run->e_prev || !run->x_before)
    goto nomem;
  run->e_now = run->e_prev + run->nislands;
  run->rate_before = run->x_before + nc;
  run->pu = calloc(2 * (size_t)run->nislands + 1, sizeof(double *));
  run->points = calloc(2 * npts + 1, sizeof(double));
  if (!run->pu || !run->points)
    goto nomem;
  run->pv = run->pu + run->nislands;
  for (int i = 0, at = 0; i < run->nislands; i++) {
    run->pu[i] = run->points + at;
    run->pv[i] = run->points + npts + at;
    at += run->islands[i].npts;
  }
  for (int b = 0; b < nb; b++)
    run->body_island[b] = run->body_offset[b] = -1;
  for (int i = 0; i < run->nislands; i++) {
    const vb_island *is = &run->islands[i];
    for (int k = 0; k < is->nb; k++) {
      run->body_island[is->bodies[k]] = i;
      run->body_offset[is->bodies[k]] = is->offsets[k];
    }
    for (int c = 0; c < is->nc; c++) {
      run->contact_island[is->contacts[c]] = i;
      run->contact_local[is->contacts[c]] = c;
    }
  }
  snprintf(run->status, sizeof run->status, "not run");
  *out = run;
  return VB_OK;
nomem:
  vb_run_free(run);
  snprintf(err, errlen, "scene '%s': out of memory allocating the run", scene->name);
  return VB_ENOMEM;
}

/* ------------------------------------------------------------- sampling */

/* The scene's discrete energy at the islands' current step. */
static void
scene_energy(const vb_run *run, double *kin, double *pot, double *diss, double *ext,
             double *corr)
{
  *kin = *pot = *diss = *ext = *corr = 0.0;
  for (int i = 0; i < run->nislands; i++) {
    const vb_island *is = &run->islands[i];
    *kin += is->kinetic;
    *pot += is->potential;
    *diss += is->dissipated;
    *ext += is->external;
    *corr += is->corrected;
  }
}

/* Record sample k of step n. */
static void
record(vb_run *run, long n, long k)
{
  const vb_scene *sc = run->scene;
  double t = n * run->dt;
  size_t nrec = (size_t)run->nrec;
  for (int i = 0; i < run->nislands; i++)
    vb_island_points(&run->islands[i], run->pu[i], run->pv[i]);
  for (int b = 0; b < sc->nbodies; b++) {
    const vb_body *body = &sc->bodies[b];
    if (body->kind == VB_BODY_WALL) {
      double r = 0.0, u = body->u0;
      if (body->drive.kind != VB_DRIVE_NONE)
        u += vb_drive_eval(&body->drive, t, &r);
      run->point_u[b][k] = u;
      run->point_v[b][k] = r;
      continue;
    }
    const vb_island *is = &run->islands[run->body_island[b]];
    int off = run->body_offset[b], row = vb_island_point_row(is, b, 0);
    const double *q = is->q + off;
    for (int pt = 0; pt < recorded_points(body); pt++) {
      run->point_u[b][pt * nrec + k] = run->pu[run->body_island[b]][row + pt];
      run->point_v[b][pt * nrec + k] = run->pv[run->body_island[b]][row + pt];
    }
    if (run->modes_q[b])
      for (int j = 0; j < body->nmodes; j++)
        run->modes_q[b][j * nrec + k] = q[j];
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_island *is = &run->islands[run->contact_island[c]];
    const vb_chist *hc = &is->hist[run->contact_local[c]];
    run->results[c].compression[k] = hc->x;
    run->results[c].rate[k] = hc->rate;
    run->results[c].force[k] = hc->f;
  }
  double kin, pot, diss, ext, corr;
  scene_energy(run, &kin, &pot, &diss, &ext, &corr);
  run->energy[VB_ENERGY_TOTAL * nrec + k] = kin + pot;
  run->energy[VB_ENERGY_KINETIC * nrec + k] = kin;
  run->energy[VB_ENERGY_POTENTIAL * nrec + k] = pot;
  run->energy[VB_ENERGY_DISSIPATED * nrec + k] = diss;
  run->energy[VB_ENERGY_EXTERNAL * nrec + k] = ext;
  run->energy[VB_ENERGY_CORRECTION * nrec + k] = corr;
}

/* --------------------------------------------------------------- events */

/* Free flight under constant acceleration a between a sample at
 * penetration p <= 0 with rate r and the crossing of p = 0: for r > 0 the
 * time until it (p + r t + a t^2/2 = 0), for r < 0 the time since it
 * (p - r t + a t^2/2 = 0); both are the root -2p / (|r| + sqrt(r^2 - 2ap)). */
static double
flight_time(double p, double r, double a)
{
  double ar = fabs(r);
  double disc = ar * ar - 2.0 * a * p;
  if (ar <= 0.0)
    return 0.0;
  if (disc < 0.0)
    return -p / ar;
  return -2.0 * p / (ar + sqrt(disc));
}

/* Crossing of zero penetration of contact c near the sample at t0, for a
 * contact whose walls or gap are driven: tau from t0 (> 0 after, < 0
 * before) where the bodies' part of the compression, in free flight from
 * x0 - drive(t0) with rate vb and constant acceleration a, plus the driven
 * part at its exact position, leaves no penetration.  Newton from the
 * constant-acceleration estimate tau.  The crossing thus carries the
 * walls' own acceleration, and v_in and v_out keep the order of the
 * trajectory.  Returns tau, and the penetration rate there in *v. */
static double
driven_crossing(const vb_run *run, int c, double sign, double t0, double x0, double vb,
                double a, double tau, double *v)
{
  const vb_scene *sc = run->scene;
  const vb_contact *ct = &sc->contacts[c];
  double rd, xb = x0 - vb_contact_drive(sc, ct, t0, &rd);
  double guess = tau;
  for (int it = 0; it < 16; it++) {
    double x = xb + vb * tau + 0.5 * a * tau * tau + vb_contact_drive(sc, ct, t0 + tau, &rd);
    double dp = sign * (vb + a * tau + rd);
    double step = dp != 0.0 ? vb_law_penetration(&ct->law, x) / dp : 0.0;
    tau -= step;
    if (!(fabs(step) > 1e-15 * run->dt))
      break;
  }
  if (!(fabs(tau) <= 2.0 * run->dt))
    tau = guess; /* no crossing nearby: keep the estimate */
  vb_contact_drive(sc, ct, t0 + tau, &rd);
  *v = sign * (vb + a * tau + rd);
  return tau;
}

/* Append a finished event to a contact's table (grows by doubling). */
static int
push_event(vb_contact_result *res, const vb_event *ev)
{
  if (res->nevents == res->cap) {
    vb_event *grown = realloc(res->events, 2 * (size_t)res->cap * sizeof *grown);
    if (!grown)
      return VB_ENOMEM;
    res->events = grown;
    res->cap *= 2;
  }
  res->events[res->nevents++] = *ev;
  return VB_OK;
}

/* Island and history of contact c. */
static vb_island *
island_of(const vb_run *run, int c)
{
  return &run->islands[run->contact_island[c]];
}

/* Close a release: v_out is the rate at the first sample out (two-level,
 * explicit) or of the step leaving it (three-level, one step later). */
static int
finish_release(vb_run *run, int c, double rate_out, double e_after)
{
  vb_island *is = island_of(run, c);
  int lc = run->contact_local[c];
  tracker *tr = &run->trackers[c];
  vb_event *ev = &tr->ev;
  double pa = tr->sign * is->aext[lc];
  int three = is->family == VB_FAMILY_THREE_LEVEL;
  ev->energy_after = e_after;
  /* instantaneous rate at the release sample (three-level: secant minus
   * a dt/2), carried back along free flight to the crossing */
  double r = tr->sign * rate_out - (three ? 0.5 * pa * run->dt : 0.0);
  double p1 = vb_law_penetration(&run->scene->contacts[c].law, tr->x_release);
  double tau = flight_time(p1, r, pa), t1 = tr->n_release * run->dt;
  ev->t_off = t1 - tau;
  ev->v_out = r - pa * tau;
  const vb_contact *ct = &run->scene->contacts[c];
  if (vb_contact_driven(run->scene, ct)) {
    /* the bodies' rate at the release sample: without the drive's rate
     * (three-level: its secant into the next sample), then as above */
    double rd, d1 = vb_contact_drive(run->scene, ct, t1, &rd);
    if (three) {
      double d2 = vb_contact_drive(run->scene, ct, t1 + run->dt, &rd);
      rd = (d2 - d1) / run->dt;
    }
    double vb = rate_out - rd - (three ? 0.5 * is->aext[lc] * run->dt : 0.0);
    tau = driven_crossing(run, c, tr->sign, t1, tr->x_release, vb, is->aext[lc], -tau,
                          &ev->v_out);
    ev->t_off = t1 + tau;
  }
  ev->duration = ev->t_off - ev->t_on;
  tr->pending = 0;
  return push_event(&run->results[c], ev);
}

/* Apply a Papetti correction to contact c (penetration change dp, rate
 * change dr) and book its energy in the event and in *e_now (the energy of
 * the contact's island). */
static void
correct(vb_run *run, int c, double dp, double dr, int flag, double *e_now)
{
  vb_island *is = island_of(run, c);
  tracker *tr = &run->trackers[c];
  double added = vb_island_correct(is, run->contact_local[c], tr->sign * dp, tr->sign * dr);
  tr->ev.corrections |= flag;
  tr->ev.energy_correction += added;
  *e_now += added;
}

/* Update contact c's impact tracking after step n; x_before and
 * rate_before describe sample n-1; *e_now is the energy of the contact's
 * island at n (which a correction changes). */
static int
track(vb_run *run, int c, long n, double x_before, double rate_before, double *e_now)
{
  vb_island *is = island_of(run, c);
  int lc = run->contact_local[c];
  const vb_chist *hc = &is->hist[lc];
  tracker *tr = &run->trackers[c];
  const vb_contact *ct = &run->scene->contacts[c];
  const vb_law *law = &ct->law;
  int three = is->family == VB_FAMILY_THREE_LEVEL;
  int rc = VB_OK;
  if (law->kind == VB_LAW_POLYNOMIAL || law->kind == VB_LAW_SPRING)
    return VB_OK; /* always engaged: no impacts */
  if (tr->pending) {
    rc = finish_release(run, c, (hc->x - tr->x_release) / run->dt, *e_now);
    if (rc)
      return rc;
  }
  double p = vb_law_penetration(law, hc->x);
  if (p > 0.0 && !tr->open) {
    /* onset: sample n-1 was the last one out */
    vb_event *ev = &tr->ev;
    memset(ev, 0, sizeof *ev);
    tr->open = 1;
    tr->sign = law->kind == VB_LAW_RATTLE && hc->x < 0.0 ? -1.0 : 1.0;
    double pa = tr->sign * is->aext[lc];
    /* instantaneous rate at the last sample out (three-level: secant plus
     * a dt/2), carried along free flight to the crossing */
    double r = tr->sign * rate_before + (three ? 0.5 * pa * run->dt : 0.0);
    double p0 = vb_law_penetration(law, x_before);
    double tau = flight_time(p0, r, pa), t0 = (n - 1) * run->dt;
    ev->t_on = t0 + tau;
    ev->v_in = r + pa * tau;
    if (vb_contact_driven(run->scene, ct)) {
      /* the bodies' rate at the last sample out: without the drive's rate
       * (three-level: its secant into that sample), then as above */
      double rd, d0 = vb_contact_drive(run->scene, ct, t0, &rd);
      if (three) {
        double dm = vb_contact_drive(run->scene, ct, t0 - run->dt, &rd);
        rd = (d0 - dm) / run->dt;
      }
      double vb = rate_before - rd + (three ? 0.5 * is->aext[lc] * run->dt : 0.0);
      tau = driven_crossing(run, c, tr->sign, t0, x_before, vb, is->aext[lc], tau, &ev->v_in);
      ev->t_on = t0 + tau;
    }
    ev->energy_before = run->e_prev[run->contact_island[c]];
    vb_prediction pr;
    vb_law_predict(law, is->meff[lc], ev->v_in, &pr);
    ev->x_max_pred = pr.x_max;
    ev->v_out_pred = pr.v_out;
    ev->v_out_exact = pr.v_out_exact;
    ev->duration_pred = pr.duration;
    ev->x_max = -INFINITY;
  }
  if (tr->open) {
    vb_event *ev = &tr->ev;
    /* Papetti 4.2: never let the compression exceed the analytic x_max */
    if ((ct->corrections & VB_CORRECT_XMAX) && p > ev->x_max_pred) {
      correct(run, c, ev->x_max_pred - p, 0.0, VB_CORRECT_XMAX, e_now);
      p = vb_law_penetration(law, hc->x);
    }
    if (is->iterations[lc] > ev->newton_iterations_max)
      ev->newton_iterations_max = is->iterations[lc];
    ev->fallbacks += is->fallback[lc];
    if (p > 0.0) {
      ev->samples++;
      if (p > ev->x_max)
        ev->x_max = p;
      if (fabs(hc->f) > ev->peak_force)
        ev->peak_force = fabs(hc->f);
    } else {
      /* release: sample n is the first one out */
      tr->open = 0;
      tr->n_release = n;
      tr->x_release = hc->x;
      /* Papetti 4.2: leave at the analytic v_out (root of eq 6, or eq 7-8) */
      if ((ct->corrections & VB_CORRECT_VOUT) && !three) {
        /* the target is the rate at the crossing; the sample, tau after
         * it in free flight, has the rate target + a tau with
         * p = target tau + a tau^2 / 2 */
        double target = ct->vout_exact ? ev->v_out_exact : ev->v_out_pred;
        double pa = tr->sign * is->aext[lc], p1 = vb_law_penetration(law, hc->x);
        double disc = target * target + 2.0 * pa * p1;
        double tau = disc >= 0.0 ? -2.0 * p1 / (-target + sqrt(disc)) : p1 / target;
        if (isfinite(target))
          correct(run, c, 0.0, target + pa * tau - tr->sign * hc->rate, VB_CORRECT_VOUT,
                  e_now);
      }
      if (three)
        tr->pending = 1;
      else
        rc = finish_release(run, c, hc->rate, *e_now);
    }
  }
  return rc;
}

/* An impact still open (or a release still pending) at the end is kept
 * with NaN for what could not be measured. */
static int
flush_events(vb_run *run)
{
  for (int c = 0; c < run->scene->ncontacts; c++) {
    tracker *tr = &run->trackers[c];
    int rc = VB_OK;
    if (tr->pending) {
      rc = finish_release(run, c, island_of(run, c)->hist[run->contact_local[c]].rate, NAN);
    } else if (tr->open) {
      tr->ev.t_off = tr->ev.duration = tr->ev.v_out = tr->ev.energy_after = NAN;
      rc = push_event(&run->results[c], &tr->ev);
      tr->open = 0;
    }
    if (rc)
      return rc;
  }
  return VB_OK;
}

/* A contact engaged at t = 0 has no onset to extrapolate from. */
static void
open_at_start(vb_run *run, int c)
{
  const vb_law *law = &run->scene->contacts[c].law;
  const vb_chist *hc = &island_of(run, c)->hist[run->contact_local[c]];
  tracker *tr = &run->trackers[c];
  if (law->kind == VB_LAW_POLYNOMIAL || law->kind == VB_LAW_SPRING
      || vb_law_penetration(law, hc->x) <= 0.0)
    return;
  memset(&tr->ev, 0, sizeof tr->ev);
  tr->open = 1;
  tr->sign = law->kind == VB_LAW_RATTLE && hc->x < 0.0 ? -1.0 : 1.0;
  tr->ev.t_on = tr->ev.v_in = tr->ev.energy_before = NAN;
  tr->ev.x_max_pred = tr->ev.v_out_pred = tr->ev.v_out_exact = tr->ev.duration_pred = NAN;
  tr->ev.x_max = vb_law_penetration(law, hc->x);
  tr->ev.samples = 1;
}

/* ------------------------------------------------------------------ run */

/* Fill the samples a failed run did not reach with NaN. */
static void
blank_from(vb_run *run, long k0)
{
  size_t nrec = (size_t)run->nrec;
  /* every signal is a block of nrec samples laid out back to back */
  for (size_t s = 0; s < run->nsignals; s++)
    for (long k = k0; k < run->nrec; k++)
      run->record[s * nrec + k] = NAN;
}

/* End the run at step n: island `is` holds a non-finite quantity, or its
 * step's solve failed (solve_failed). */
static void
diverged(vb_run *run, const vb_island *is, long n, int solve_failed)
{
  char what[256];
  vb_island_nonfinite(is, solve_failed, what, sizeof what);
  snprintf(run->status, sizeof run->status, "diverged at t=%.9g s: %s", n * run->dt, what);
  run->code = VB_EDIVERGED;
}

/* Simulate the whole scene. */
int
vb_run_exec(vb_run *run)
{
  const vb_scene *sc = run->scene;
  int nc = sc->ncontacts;
  long first_failure = -1, failures = 0;
  double *x_before = run->x_before, *rate_before = run->rate_before, *e_now = run->e_now;
  run->code = VB_OK;
  for (int i = 0; i < run->nislands; i++)
    vb_island_start(&run->islands[i]);
  for (int c = 0; c < nc; c++) {
    memset(&run->trackers[c], 0, sizeof run->trackers[c]);
    run->results[c].nevents = 0;
    run->results[c].newton_failures = 0;
    run->results[c].fallbacks = 0;
    run->results[c].iterations = 0;
    open_at_start(run, c);
  }
  for (int i = 0; i < run->nislands; i++)
    if (!vb_island_finite(&run->islands[i])) {
      diverged(run, &run->islands[i], 0, 0);
      blank_from(run, 0);
      return run->code;
    }
  double kin, pot, diss, ext, corr;
  scene_energy(run, &kin, &pot, &diss, &ext, &corr);
  run->e0 = kin + pot;
  for (int i = 0; i < run->nislands; i++)
    run->e_prev[i] = run->islands[i].kinetic + run->islands[i].potential;
  record(run, 0, 0);
  long n;
  for (n = 1; n <= run->nsteps; n++) {
    for (int c = 0; c < nc; c++) {
      const vb_chist *hc = &island_of(run, c)->hist[run->contact_local[c]];
      x_before[c] = hc->x;
      rate_before[c] = hc->rate;
    }
    for (int i = 0; i < run->nislands; i++) {
      vb_island *is = &run->islands[i];
      int rc = vb_island_step(is, n - 1);
      for (int lc = 0; lc < is->nc; lc++) {
        vb_contact_result *res = &run->results[is->contacts[lc]];
        res->iterations += is->iterations[lc];
        res->fallbacks += is->fallback[lc];
      }
      if (rc == VB_ENOCONV) {
        failures++;
        if (first_failure < 0)
          first_failure = n;
        for (int lc = 0; lc < is->nc; lc++)
          if (is->iterations[lc] >= sc->contacts[is->contacts[lc]].max_iterations)
            run->results[is->contacts[lc]].newton_failures++;
      }
      if (rc == VB_EDIVERGED || !vb_island_finite(is)) {
        diverged(run, is, n, rc == VB_EDIVERGED);
        break;
      }
    }
    if (run->code)
      break;
    for (int i = 0; i < run->nislands; i++)
      e_now[i] = run->islands[i].kinetic + run->islands[i].potential;
    for (int c = 0; c < nc; c++) {
      int rc = track(run, c, n, x_before[c], rate_before[c], &e_now[run->contact_island[c]]);
      if (rc) {
        run->code = rc;
        snprintf(run->status, sizeof run->status, "out of memory at t=%.9g", n * run->dt);
        break;
      }
    }
    if (run->code)
      break;
    for (int i = 0; i < run->nislands; i++)
      run->e_prev[i] = e_now[i]; /* corrections included */
    if (n % sc->record_every == 0)
      record(run, n, n / sc->record_every);
  }
  if (run->code) {
    /* samples not reached are NaN, so nothing looks computed that was not */
    blank_from(run, n / sc->record_every + (n % sc->record_every ? 1 : 0));
    flush_events(run);
    return run->code;
  }
  int rc = flush_events(run);
  if (rc) {
    run->code = rc;
    snprintf(run->status, sizeof run->status, "out of memory recording events");
    return rc;
  }
  if (failures > 0) {
    snprintf(run->status, sizeof run->status,
             "newton failed at t=%.9g (%ld steps did not converge)",
             first_failure * run->dt, failures);
    run->code = VB_ENOCONV;
    return run->code;
  }
  snprintf(run->status, sizeof run->status, "done");
  return VB_OK;
}

/* ------------------------------------------------------------- accessors */

const vb_scene *vb_run_scene(const vb_run *run) { return run->scene; }
const char *vb_run_status(const vb_run *run) { return run->status; }
int vb_run_code(const vb_run *run) { return run->code; }
long vb_run_samples(const vb_run *run) { return run->nrec; }

const double *
vb_run_point_u(const vb_run *run, int body, int point)
{
  return run->point_u[body] + (size_t)point * (size_t)run->nrec;
}

const double *
vb_run_point_v(const vb_run *run, int body, int point)
{
  return run->point_v[body] + (size_t)point * (size_t)run->nrec;
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
  return run->energy + (size_t)which * (size_t)run->nrec;
}

/* Energy balance error at the end of the run. */
double
vb_run_balance_error(const vb_run *run)
{
  size_t last = (size_t)run->nrec - 1, nrec = (size_t)run->nrec;
  return run->energy[VB_ENERGY_TOTAL * nrec + last]
         + run->energy[VB_ENERGY_DISSIPATED * nrec + last]
         - run->energy[VB_ENERGY_EXTERNAL * nrec + last]
         - run->energy[VB_ENERGY_CORRECTION * nrec + last] - run->e0;
}

/* Effective mass along a contact. */
double
vb_run_contact_mass(const vb_run *run, int contact)
{
  return island_of(run, contact)->meff[run->contact_local[contact]];
}
