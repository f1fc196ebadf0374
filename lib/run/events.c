/* events.c - each contact's table of impacts.
 *
 * An impact opens at the first sample in contact and closes at the first
 * sample out; its crossings of zero penetration are extrapolated between
 * samples along the bodies' free flight (and the exact motion of driven
 * walls and gaps), which gives t_on, v_in, t_off and v_out.  Each
 * crossing lies between the two samples on either side of it (the last one
 * out and the first one in, the last one in and the first one out): an
 * extrapolation that lands outside that step (a grazing contact whose
 * rate is near zero, a string's own elastic pull that free flight
 * ignores) is clamped to its end, so durations are >= 0 and an impact
 * never starts before the previous one of its contact ended
 * (doc/format.md).  Papetti's
 * corrections (section 4.2) act here: the x_max clip while in contact, the
 * v_out impulse at the release (corrections.c moves the bodies). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

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

/* tau clamped to [lo, hi]: the crossing kept within its step. */
static double
within_step(double tau, double lo, double hi)
{
  return tau < lo ? lo : tau > hi ? hi : tau;
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
driven_crossing(const vb_run *run, int c, double sign, double t0, double x0, double vb, double a,
                double tau, double *v)
{
  const vb_scene *sc = run->scene;
  const vb_contact *ct = &sc->contacts[c];
  double rd, xb = x0 - vb_contact_drive(sc, ct, t0, &rd);
  double guess = tau;
  for (int it = 0; it < 16; it++) {
    double x = xb + vb * tau + 0.5 * a * tau * tau + vb_contact_drive(sc, ct, t0 + tau, &rd);
    double dp = sign * (vb + a * tau + rd);
    double step = dp != 0.0 ? law_penetration(&ct->law, x) / dp : 0.0;
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

/* Append a finished event to a contact's table (empty until its first
 * event, then 16, growing by doubling). */
static int
push_event(vb_contact_result *res, const vb_event *ev)
{
  if (res->nevents == res->cap) {
    long cap = res->cap > 0 ? 2 * res->cap : 16;
    vb_event *grown = realloc(res->events, (size_t)cap * sizeof *grown);
    if (!grown)
      return VB_ENOMEM;
    res->events = grown;
    res->cap = cap;
  }
  res->events[res->nevents++] = *ev;
  return VB_OK;
}

/* Model and state of the island of contact c. */
static const vb_island_model *
model_of(const vb_run *run, int c)
{
  return &run->model->islands[run->contact_island[c]];
}

static vb_island_state *
state_of(const vb_run *run, int c)
{
  return run->states[run->contact_island[c]];
}

/* Close a release: v_out is the rate at the first sample out (two-level,
 * explicit) or of the step leaving it (three-level, one step later);
 * lag is when rate_out was measured relative to the first sample out, s
 * (0; three-level +dt/2 for the step after it, -dt/2 for the step into
 * it). */
static int
finish_release(vb_run *run, int c, double rate_out, double lag, double e_after)
{
  const vb_island_model *m = model_of(run, c);
  int lc = run->contact_local[c];
  vb_tracker *tr = &run->trackers[c];
  vb_event *ev = &tr->ev;
  double pa = tr->sign * m->aext[lc];
  ev->energy_after = e_after;
  /* instantaneous rate at the release sample (three-level: the secant
   * carried by its lag), carried back along free flight to the crossing */
  double r = tr->sign * rate_out - pa * lag;
  double p1 = vb_law_side_penetration(&run->scene->contacts[c].law, tr->sign, tr->x_release);
  double tau = within_step(flight_time(p1, r, pa), 0.0, run->dt), t1 = tr->n_release * run->dt;
  ev->t_off = t1 - tau;
  ev->v_out = r - pa * tau;
  const vb_contact *ct = &run->scene->contacts[c];
  if (vb_contact_driven(run->scene, ct)) {
    /* the bodies' rate at the release sample: without the drive's rate
     * (three-level: its secant over the same step), then as above */
    double rd, d1 = vb_contact_drive(run->scene, ct, t1, &rd);
    if (lag != 0.0) {
      double t2 = t1 + 2.0 * lag, d2 = vb_contact_drive(run->scene, ct, t2, &rd);
      rd = (d2 - d1) / (t2 - t1);
    }
    double vb = rate_out - rd - m->aext[lc] * lag;
    tau = driven_crossing(run, c, tr->sign, t1, tr->x_release, vb, m->aext[lc], -tau, &ev->v_out);
    tau = within_step(tau, -run->dt, 0.0);
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
  const vb_island_model *m = model_of(run, c);
  vb_island_state *st = state_of(run, c);
  vb_tracker *tr = &run->trackers[c];
  double added = vb_island_correct(m, st, run->contact_local[c], tr->sign * dp, tr->sign * dr);
  tr->ev.corrections |= flag;
  tr->ev.energy_correction += added;
  *e_now += added;
}

/* Open contact c's impact at step n (sample n-1 was the last one out):
 * the crossing extrapolated from sample n-1, and the predictions from its
 * v_in. */
static void
open_impact(vb_run *run, int c, long n, double x_before, double rate_before)
{
  const vb_island_model *m = model_of(run, c);
  int lc = run->contact_local[c], three = m->fam->info->levels == 3;
  const vb_chist *hc = &state_of(run, c)->hist[lc];
  const vb_contact *ct = &run->scene->contacts[c];
  const vb_law *law = &ct->law;
  vb_tracker *tr = &run->trackers[c];
  vb_event *ev = &tr->ev;
  memset(ev, 0, sizeof *ev);
  tr->open = 1;
  tr->sign = vb_law_side(law, hc->x);
  double pa = tr->sign * m->aext[lc];
  /* instantaneous rate at the last sample out (three-level: secant plus
   * a dt/2), carried along free flight to the crossing; the sample before
   * may press on the other side of a rattle: its penetration is measured
   * from the barrier of this side */
  double r = tr->sign * rate_before + (three ? 0.5 * pa * run->dt : 0.0);
  double p0 = vb_law_side_penetration(law, tr->sign, x_before);
  double t0 = (n - 1) * run->dt, lo = 0.0;
  const vb_contact_result *res = &run->results[c];
  if (res->nevents > 0 && res->events[res->nevents - 1].t_off > t0) /* a rattle's side switch */
    lo = fmin(res->events[res->nevents - 1].t_off - t0, run->dt);
  double tau = within_step(flight_time(p0, r, pa), lo, run->dt);
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
    double vb = rate_before - rd + (three ? 0.5 * m->aext[lc] * run->dt : 0.0);
    tau = driven_crossing(run, c, tr->sign, t0, x_before, vb, m->aext[lc], tau, &ev->v_in);
    tau = within_step(tau, lo, run->dt);
    ev->t_on = t0 + tau;
  }
  ev->energy_before = run->e_prev[run->contact_island[c]];
  vb_prediction pr;
  vb_law_predict(law, m->meff[lc], ev->v_in, &pr);
  ev->x_max_pred = pr.x_max;
  ev->v_out_pred = pr.v_out;
  ev->v_out_exact = pr.v_out_exact;
  ev->duration_pred = pr.duration;
  ev->x_max = -INFINITY;
}

/* Release contact c's impact at step n (sample n is the first one out),
 * with Papetti's v_out correction where asked (two-level and explicit). */
static int
release(vb_run *run, int c, long n, double *e_now)
{
  const vb_island_model *m = model_of(run, c);
  int lc = run->contact_local[c], three = m->fam->info->levels == 3;
  const vb_chist *hc = &state_of(run, c)->hist[lc];
  const vb_contact *ct = &run->scene->contacts[c];
  vb_tracker *tr = &run->trackers[c];
  vb_event *ev = &tr->ev;
  tr->open = 0;
  tr->n_release = n;
  tr->x_release = hc->x;
  /* Papetti 4.2: leave at the analytic v_out (root of eq 6, or eq 7-8) */
  if ((ct->corrections & VB_CORRECT_VOUT) && !three) {
    /* the target is the rate at the crossing; the sample, tau after it in
     * free flight, has the rate target + a tau with p = target tau + a
     * tau^2 / 2 */
    double target = ct->vout_exact ? ev->v_out_exact : ev->v_out_pred;
    double pa = tr->sign * m->aext[lc], p1 = vb_law_side_penetration(&ct->law, tr->sign, hc->x);
    double disc = target * target + 2.0 * pa * p1;
    double tau = disc >= 0.0 ? -2.0 * p1 / (-target + sqrt(disc)) : p1 / target;
    if (isfinite(target))
      correct(run, c, 0.0, target + pa * tau - tr->sign * hc->rate, VB_CORRECT_VOUT, e_now);
  }
  if (three) {
    tr->pending = 1;
    return VB_OK;
  }
  return finish_release(run, c, hc->rate, 0.0, *e_now);
}

/* Contact c, a rattle in contact on side tr->sign, presses on the other
 * side at step n: it crossed the whole clearance 2h within the step, so
 * no sample was out of contact.  The impact on the old side ends here (its
 * release extrapolated from this sample, which is out of contact on that
 * side; no v_out correction, since the sample is already in the next
 * impact) and the next one opens on the new side. */
static int
switch_side(vb_run *run, int c, long n, double x_before, double rate_before, double e_now)
{
  const vb_island_model *m = model_of(run, c);
  int three = m->fam->info->levels == 3;
  const vb_chist *hc = &state_of(run, c)->hist[run->contact_local[c]];
  vb_tracker *tr = &run->trackers[c];
  tr->open = 0;
  tr->n_release = n;
  tr->x_release = hc->x;
  /* three-level: hc->rate is the secant of the step into sample n */
  int rc = finish_release(run, c, hc->rate, three ? -0.5 * run->dt : 0.0, e_now);
  if (rc)
    return rc;
  open_impact(run, c, n, x_before, rate_before);
  return VB_OK;
}

/* A rigid contact's impacts (doc/rigid.md): an impact is a run of steps
 * whose impulse is nonzero (hc->f, the impulse over dt, > 0), not of
 * penetration (a rigid contact acts where its gap closes, and an elastic
 * one, e = 1, never penetrates).  It opens at the first such step, its
 * t_on and v_in the free flight's crossing of zero compression from the
 * sample before, as for any impact; it closes at the first step without
 * an impulse.  An impact of one step is instantaneous: t_off = t_on,
 * duration 0, and v_out the rate after the step carried back along free
 * flight to t_off; a longer one (a contact that rests, or a chain whose
 * impulses take several steps) ends at the end of its last step, with the
 * rate there.  samples counts the steps with an impulse, x_max is their
 * largest compression (<= 0 where the gap never closed), peak_force the
 * largest impulse over dt. */
static int
track_rigid(vb_run *run, int c, long n, double x_before, double rate_before, double *e_now)
{
  const vb_island_model *m = model_of(run, c);
  int lc = run->contact_local[c];
  const vb_island_state *st = state_of(run, c);
  const vb_chist *hc = &st->hist[lc];
  const vb_contact *ct = &run->scene->contacts[c];
  vb_tracker *tr = &run->trackers[c];
  vb_event *ev = &tr->ev;
  double pa = m->aext[lc], dt = run->dt;
  int acting = hc->f > 0.0;
  if (!tr->open && !acting)
    return VB_OK;
  if (!tr->open) {
    memset(ev, 0, sizeof *ev);
    tr->open = 1;
    tr->sign = 1.0;
    double t0 = (n - 1) * dt;
    /* the gap may have closed in the free step before (the index set is
     * the step's middle): the crossing is then up to a step back */
    double tau = within_step(flight_time(x_before, rate_before, pa), -dt, dt);
    ev->t_on = t0 + tau;
    ev->v_in = rate_before + pa * tau;
    if (vb_contact_driven(run->scene, ct)) {
      double rd;
      vb_contact_drive(run->scene, ct, t0, &rd);
      tau = driven_crossing(run, c, 1.0, t0, x_before, rate_before - rd, pa, tau, &ev->v_in);
      tau = within_step(tau, -dt, dt);
      ev->t_on = t0 + tau;
    }
    const vb_contact_result *res = &run->results[c];
    if (res->nevents > 0 && res->events[res->nevents - 1].t_off > ev->t_on)
      ev->t_on = res->events[res->nevents - 1].t_off; /* never before the last one ended */
    ev->energy_before = run->e_prev[run->contact_island[c]];
    vb_prediction pr;
    vb_law_predict(&ct->law, m->meff[lc], ev->v_in, &pr);
    ev->x_max_pred = pr.x_max;
    ev->v_out_pred = pr.v_out;
    ev->v_out_exact = pr.v_out_exact;
    ev->duration_pred = pr.duration;
    ev->x_max = -INFINITY;
  }
  if (acting) {
    ev->samples++;
    ev->x_max = fmax(ev->x_max, hc->x);
    ev->peak_force = fmax(ev->peak_force, hc->f);
    if (st->iterations[lc] > ev->newton_iterations_max)
      ev->newton_iterations_max = st->iterations[lc];
    tr->n_release = n; /* the last step with an impulse */
    return VB_OK;
  }
  /* sample n is the first after the impact; n - 1 the last one in it */
  double t_last = tr->n_release * dt;
  ev->t_off = ev->samples == 1 ? ev->t_on : t_last;
  ev->v_out = rate_before - pa * (t_last - ev->t_off);
  if (vb_contact_driven(run->scene, ct) && ev->samples == 1) {
    double rd, rd1;
    vb_contact_drive(run->scene, ct, t_last, &rd1);
    vb_contact_drive(run->scene, ct, ev->t_off, &rd);
    ev->v_out = rate_before - rd1 - pa * (t_last - ev->t_off) + rd;
  }
  ev->duration = ev->t_off - ev->t_on;
  ev->energy_after = *e_now;
  tr->open = 0;
  return push_event(&run->results[c], ev);
}

/* Update contact c's impact tracking after step n (vb_events_track): a
 * contact with an open impact, a pending release, or penetration now. */
__attribute__((noinline)) static int
track(vb_run *run, int c, long n, double x_before, double rate_before, double *e_now)
{
  const vb_island_state *st = state_of(run, c);
  int lc = run->contact_local[c];
  const vb_chist *hc = &st->hist[lc];
  vb_tracker *tr = &run->trackers[c];
  const vb_contact *ct = &run->scene->contacts[c];
  const vb_law *law = &ct->law;
  if (vb_law_info_of(law->kind)->always_engaged)
    return VB_OK; /* no impacts */
  if (vb_law_info_of(law->kind)->rigid)
    return track_rigid(run, c, n, x_before, rate_before, e_now);
  if (tr->pending) {
    int rc = finish_release(run, c, (hc->x - tr->x_release) / run->dt, 0.5 * run->dt, *e_now);
    if (rc)
      return rc;
  }
  double p = law_penetration(law, hc->x);
  if (p > 0.0 && tr->open && vb_law_side(law, hc->x) != tr->sign) {
    int rc = switch_side(run, c, n, x_before, rate_before, *e_now);
    if (rc)
      return rc;
  }
  if (p > 0.0 && !tr->open)
    open_impact(run, c, n, x_before, rate_before);
  if (!tr->open)
    return VB_OK;
  vb_event *ev = &tr->ev;
  /* Papetti 4.2: never let the compression exceed the analytic x_max */
  if ((ct->corrections & VB_CORRECT_XMAX) && p > ev->x_max_pred) {
    correct(run, c, ev->x_max_pred - p, 0.0, VB_CORRECT_XMAX, e_now);
    p = law_penetration(law, hc->x);
  }
  if (st->iterations[lc] > ev->newton_iterations_max)
    ev->newton_iterations_max = st->iterations[lc];
  ev->fallbacks += st->fallback[lc];
  if (!(p > 0.0))
    return release(run, c, n, e_now);
  ev->samples++;
  if (p > ev->x_max)
    ev->x_max = p;
  if (fabs(hc->f) > ev->peak_force)
    ev->peak_force = fabs(hc->f);
  return VB_OK;
}

/* Update contact c's impact tracking after step n.  Most contacts of a
 * distributed contact are out of contact with nothing open at most steps:
 * for them this is the penetration's sign alone, without track()'s
 * frame (not inlined, so that this path saves no registers); an always-engaged law's penetration is +inf, so
 * track() returns for it as before. */
int
vb_events_track(vb_run *run, int c, long n, double x_before, double rate_before, double *e_now)
{
  const vb_tracker *tr = &run->trackers[c];
  const vb_chist *hc = &state_of(run, c)->hist[run->contact_local[c]];
  /* (a rigid contact acts with an impulse, hc->f > 0, where it does not
   * penetrate: track() looks at it; for the others it returns as before) */
  if (!tr->open && !tr->pending &&
      !(law_penetration(&run->scene->contacts[c].law, hc->x) > 0.0) && !(hc->f > 0.0))
    return VB_OK;
  return track(run, c, n, x_before, rate_before, e_now);
}

/* An impact still open (or a release still pending) at the end is kept
 * with NaN for what could not be measured. */
int
vb_events_flush(vb_run *run)
{
  for (int c = 0; c < run->scene->ncontacts; c++) {
    vb_tracker *tr = &run->trackers[c];
    int rc = VB_OK;
    run->results[c].engaged_at_end = tr->open;
    if (tr->pending) {
      rc = finish_release(run, c, state_of(run, c)->hist[run->contact_local[c]].rate, 0.5 * run->dt,
                          NAN);
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
void
vb_events_start(vb_run *run, int c)
{
  const vb_law *law = &run->scene->contacts[c].law;
  const vb_chist *hc = &state_of(run, c)->hist[run->contact_local[c]];
  vb_tracker *tr = &run->trackers[c];
  if (vb_law_info_of(law->kind)->always_engaged || vb_law_info_of(law->kind)->rigid ||
      law_penetration(law, hc->x) <= 0.0)
    return;
  memset(&tr->ev, 0, sizeof tr->ev);
  tr->open = 1;
  tr->sign = vb_law_side(law, hc->x);
  tr->ev.t_on = tr->ev.v_in = tr->ev.energy_before = NAN;
  tr->ev.x_max_pred = tr->ev.v_out_pred = tr->ev.v_out_exact = tr->ev.duration_pred = NAN;
  tr->ev.x_max = law_penetration(law, hc->x);
  tr->ev.samples = 1;
}
