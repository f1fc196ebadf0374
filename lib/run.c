/* run.c - the stepping driver: islands, recording, energy and events.
 *
 * An island here is one contact and the two bodies it joins (a mass and a
 * wall, or two masses); the scene loader refuses a body in two contacts
 * until coupled networks land.  Each island is reduced to its compression
 * coordinate x = u_a - u_b - gap with the effective mass along the contact
 * and the constant external acceleration of x, and stepped by its scheme:
 * for a single mass against a wall this is exactly the paper's update.
 * The centre of mass of two masses and every mass in no contact move in
 * exact free flight under gravity.  The step allocates nothing; only the
 * event table of a contact grows (by doubling) when an impact ends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

/* How the bodies of an island follow its compression. */
typedef enum {
  ISLAND_MASS_WALL,  /* a is the mass: u_a = x + u_b + gap */
  ISLAND_WALL_MASS,  /* b is the mass: u_b = u_a - gap - x */
  ISLAND_MASS_MASS   /* both masses: centre of mass in free flight */
} island_kind;

/* Event bookkeeping of one contact. */
typedef struct {
  int open;           /* an impact is in progress */
  int pending;        /* three-level: released, v_out awaits the next step */
  long n_release;     /* first sample out of contact */
  double x_release;   /* compression at that sample */
  double sign;        /* side of the barrier (rattle) */
  vb_event ev;
} tracker;

/* One island: a contact and its bodies. */
typedef struct {
  island_kind kind;
  vb_step_ctx ctx;
  vb_cstate st;
  double mass_total;  /* M = m_a + m_b (mass-mass), kg */
  double ucm0, vcm0;  /* centre of mass at t = 0 (mass-mass) */
  double rate_before; /* compression rate before the current step, m/s */
  tracker tr;
} island;

struct vb_run {
  const vb_scene *scene;
  long nsteps, nrec;
  double dt;
  double *u, *v;               /* [nbodies][nrec] m, m/s */
  double *energy;              /* [4][nrec] J: total, kinetic, potential, dissipated */
  vb_contact_result *results;  /* [ncontacts] */
  double *results_data;        /* [ncontacts][2][nrec] compression, force */
  island *islands;             /* [ncontacts] */
  int *body_island;            /* [nbodies] island index or -1 */
  double e_prev;               /* scene energy at the previous sample, J */
  double e0;                   /* initial energy, J */
  char status[160];
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
  free(run->u);
  free(run->v);
  free(run->energy);
  free(run->results);
  free(run->results_data);
  free(run->islands);
  free(run->body_island);
  free(run);
}

/* Bytes of memory available now, or 0 if unknown. */
static double
available_memory(void)
{
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* Set up the island of contact c. */
static void
island_setup(const vb_scene *sc, int c, double dt, island *is)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  memset(is, 0, sizeof *is);
  is->ctx.law = &ct->law;
  is->ctx.dt = dt;
  is->ctx.s = ct->s;
  is->ctx.tol = ct->tolerance;
  is->ctx.max_iter = ct->max_iterations;
  if (a->kind == VB_BODY_MASS && b->kind == VB_BODY_MASS) {
    is->kind = ISLAND_MASS_MASS;
    is->mass_total = a->mass + b->mass;
    is->ctx.m = a->mass * b->mass / is->mass_total;
    is->ctx.a_ext = 0.0; /* gravity moves both alike */
    is->ucm0 = (a->mass * a->u0 + b->mass * b->u0) / is->mass_total;
    is->vcm0 = (a->mass * a->v0 + b->mass * b->v0) / is->mass_total;
  } else if (a->kind == VB_BODY_MASS) {
    is->kind = ISLAND_MASS_WALL;
    is->ctx.m = a->mass;
    is->ctx.a_ext = -sc->gravity;
  } else {
    is->kind = ISLAND_WALL_MASS;
    is->ctx.m = b->mass;
    is->ctx.a_ext = sc->gravity;
  }
  double x0 = a->u0 - b->u0 - ct->gap;
  double v0 = a->v0 - b->v0;
  ct->scheme->init(&is->ctx, &is->st, x0, v0);
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
  size_t nrec = (size_t)run->nrec;
  run->u = calloc((size_t)nb * nrec, sizeof(double));
  run->v = calloc((size_t)nb * nrec, sizeof(double));
  run->energy = calloc(4 * nrec, sizeof(double));
  run->results = calloc(nc ? (size_t)nc : 1, sizeof *run->results);
  run->results_data = calloc(nc ? 2 * (size_t)nc * nrec : 1, sizeof(double));
  run->islands = calloc(nc ? (size_t)nc : 1, sizeof *run->islands);
  run->body_island = malloc((size_t)nb * sizeof(int));
  if (!run->u || !run->v || !run->energy || !run->results || !run->results_data
      || !run->islands || !run->body_island)
    goto nomem;
  for (int c = 0; c < nc; c++) {
    run->results[c].compression = run->results_data + 2 * (size_t)c * nrec;
    run->results[c].force = run->results[c].compression + nrec;
    run->results[c].cap = 16;
    run->results[c].events = malloc(16 * sizeof(vb_event));
    if (!run->results[c].events)
      goto nomem;
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

/* Free flight of a mass under gravity: exact. */
static void
free_flight(const vb_scene *sc, double u0, double v0, double t, double *u, double *v)
{
  *u = u0 + v0 * t - 0.5 * sc->gravity * t * t;
  *v = v0 - sc->gravity * t;
}

/* Body displacements and velocities of an island from its compression
 * coordinate at time t; xbar is where gravity's potential is taken. */
static void
island_bodies(const vb_scene *sc, const vb_contact *ct, const island *is, double t,
              double x, double xdot, double *ua, double *va, double *ub, double *vb)
{
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  switch (is->kind) {
  case ISLAND_MASS_WALL:
    *ub = b->u0; *vb = 0.0;
    *ua = x + b->u0 + ct->gap; *va = xdot;
    break;
  case ISLAND_WALL_MASS:
    *ua = a->u0; *va = 0.0;
    *ub = a->u0 - ct->gap - x; *vb = -xdot;
    break;
  case ISLAND_MASS_MASS: {
    double ucm, vcm;
    free_flight(sc, is->ucm0, is->vcm0, t, &ucm, &vcm);
    *ua = ucm + b->mass / is->mass_total * (x + ct->gap);
    *va = vcm + b->mass / is->mass_total * xdot;
    *ub = ucm - a->mass / is->mass_total * (x + ct->gap);
    *vb = vcm - a->mass / is->mass_total * xdot;
    break;
  }
  }
}

/* The scene's discrete energy at step n (the schemes' own definitions). */
static void
scene_energy(const vb_run *run, long n, double *kin, double *pot, double *diss)
{
  const vb_scene *sc = run->scene;
  double t = n * run->dt;
  *kin = *pot = *diss = 0.0;
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    if (b->kind != VB_BODY_MASS || run->body_island[i] >= 0)
      continue;
    double u, v;
    free_flight(sc, b->u0, b->v0, t, &u, &v);
    *kin += 0.5 * b->mass * v * v;
    *pot += b->mass * sc->gravity * u;
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const island *is = &run->islands[c];
    double k, p, xbar, ua, va, ub, vb;
    ct->scheme->energy(&is->ctx, &is->st, &k, &p, &xbar);
    island_bodies(sc, ct, is, t, xbar, 0.0, &ua, &va, &ub, &vb);
    *kin += k;
    *pot += p;
    *diss += is->st.dissipated;
    if (is->kind == ISLAND_MASS_MASS) {
      double ucm, vcm;
      free_flight(sc, is->ucm0, is->vcm0, t, &ucm, &vcm);
      *kin += 0.5 * is->mass_total * vcm * vcm;
      *pot += is->mass_total * sc->gravity * ucm;
    } else if (is->kind == ISLAND_MASS_WALL) {
      *pot += sc->bodies[ct->a].mass * sc->gravity * ua;
    } else {
      *pot += sc->bodies[ct->b].mass * sc->gravity * ub;
    }
  }
}

/* Record sample k of step n. */
static void
record(vb_run *run, long n, long k, double etot, double kin, double pot, double diss)
{
  const vb_scene *sc = run->scene;
  double t = n * run->dt;
  size_t nrec = (size_t)run->nrec;
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    double u = b->u0, v = 0.0;
    if (b->kind == VB_BODY_MASS && run->body_island[i] < 0)
      free_flight(sc, b->u0, b->v0, t, &u, &v);
    run->u[i * nrec + k] = u;
    run->v[i * nrec + k] = v;
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const island *is = &run->islands[c];
    double ua, va, ub, vb;
    island_bodies(sc, ct, is, t, is->st.x, is->st.v, &ua, &va, &ub, &vb);
    run->u[ct->a * nrec + k] = ua;
    run->v[ct->a * nrec + k] = va;
    run->u[ct->b * nrec + k] = ub;
    run->v[ct->b * nrec + k] = vb;
    run->results[c].compression[k] = is->st.x;
    run->results[c].force[k] = is->st.f;
  }
  run->energy[k] = etot;
  run->energy[nrec + k] = kin;
  run->energy[2 * nrec + k] = pot;
  run->energy[3 * nrec + k] = diss;
}

/* --------------------------------------------------------------- events */

/* Time from a sample at penetration p (<= 0) moving at rate r with
 * acceleration a until free flight reaches p = 0 (r > 0), or, with r < 0,
 * the time since it left p = 0. */
static double
flight_time(double p, double r, double a)
{
  double ar = fabs(r);
  double sa = r > 0.0 ? a : -a;
  double disc = ar * ar - 2.0 * sa * p;
  if (ar <= 0.0)
    return 0.0;
  if (disc < 0.0)
    return -p / ar;
  return -2.0 * p / (ar + sqrt(disc));
}

/* Append a finished event to contact c's table (grows by doubling). */
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

/* Close the pending release of a three-level scheme: its v_out is the
 * rate of the step leaving the first sample out of contact. */
static int
finish_release(vb_run *run, int c, double rate_out, double e_after)
{
  island *is = &run->islands[c];
  tracker *tr = &is->tr;
  vb_event *ev = &tr->ev;
  double pa = tr->sign * is->ctx.a_ext;
  int three = run->scene->contacts[c].scheme->family == VB_FAMILY_THREE_LEVEL;
  ev->v_out = tr->sign * rate_out;
  ev->energy_after = e_after;
  /* instantaneous rate at the release sample (secant minus a dt/2) */
  double r = ev->v_out - (three ? 0.5 * pa * run->dt : 0.0);
  double p1 = vb_law_penetration(is->ctx.law, tr->x_release);
  ev->t_off = tr->n_release * run->dt - flight_time(p1, r, pa);
  ev->duration = ev->t_off - ev->t_on;
  tr->pending = 0;
  return push_event(&run->results[c], ev);
}

/* Update contact c's impact tracking after step n; x_before and
 * rate_before describe sample n-1 (x^(n-1) is every scheme's x_prev);
 * e_now is the scene energy at n. */
static int
track(vb_run *run, int c, long n, double x_before, double rate_before, double e_now)
{
  island *is = &run->islands[c];
  tracker *tr = &is->tr;
  const vb_law *law = is->ctx.law;
  int three = run->scene->contacts[c].scheme->family == VB_FAMILY_THREE_LEVEL;
  int rc = VB_OK;
  if (law->kind == VB_LAW_POLYNOMIAL)
    return VB_OK; /* always engaged: no impacts */
  if (tr->pending) {
    rc = finish_release(run, c, (is->st.x - tr->x_release) / run->dt, e_now);
    if (rc)
      return rc;
  }
  double p = vb_law_penetration(law, is->st.x);
  if (p > 0.0 && !tr->open) {
    /* onset: sample n-1 was the last one out */
    vb_event *ev = &tr->ev;
    memset(ev, 0, sizeof *ev);
    tr->open = 1;
    tr->sign = law->kind == VB_LAW_RATTLE && is->st.x < 0.0 ? -1.0 : 1.0;
    double pa = tr->sign * is->ctx.a_ext;
    ev->v_in = tr->sign * rate_before;
    double r = ev->v_in + (three ? 0.5 * pa * run->dt : 0.0);
    double p0 = vb_law_penetration(law, x_before);
    ev->t_on = (n - 1) * run->dt + flight_time(p0, r, pa);
    ev->energy_before = run->e_prev;
    vb_prediction pr;
    vb_law_predict(law, is->ctx.m, ev->v_in, &pr);
    ev->x_max_pred = pr.x_max;
    ev->v_out_pred = pr.v_out;
    ev->v_out_exact = pr.v_out_exact;
    ev->duration_pred = pr.duration;
    ev->x_max = -INFINITY;
  }
  if (tr->open) {
    vb_event *ev = &tr->ev;
    if (is->st.iterations > ev->newton_iterations_max)
      ev->newton_iterations_max = is->st.iterations;
    ev->fallbacks += is->st.fallback;
    if (p > 0.0) {
      ev->samples++;
      if (p > ev->x_max)
        ev->x_max = p;
      if (fabs(is->st.f) > ev->peak_force)
        ev->peak_force = fabs(is->st.f);
    } else {
      /* release: sample n is the first one out */
      tr->open = 0;
      tr->n_release = n;
      tr->x_release = is->st.x;
      if (three)
        tr->pending = 1;
      else
        rc = finish_release(run, c, is->st.v, e_now);
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
    tracker *tr = &run->islands[c].tr;
    int rc = VB_OK;
    if (tr->pending)
      rc = finish_release(run, c, run->islands[c].st.v, NAN);
    else if (tr->open) {
      tr->ev.t_off = tr->ev.duration = tr->ev.v_out = tr->ev.energy_after = NAN;
      rc = push_event(&run->results[c], &tr->ev);
      tr->open = 0;
    }
    if (rc)
      return rc;
  }
  return VB_OK;
}

/* ------------------------------------------------------------------ run */

/* Simulate the whole scene. */
int
vb_run_exec(vb_run *run)
{
  const vb_scene *sc = run->scene;
  int nc = sc->ncontacts;
  long first_failure = -1, failures = 0;
  run->code = VB_OK;
  for (int i = 0; i < sc->nbodies; i++)
    run->body_island[i] = -1;
  for (int c = 0; c < nc; c++) {
    island_setup(sc, c, run->dt, &run->islands[c]);
    run->body_island[sc->contacts[c].a] = c;
    run->body_island[sc->contacts[c].b] = c;
    run->results[c].nevents = 0;
    run->results[c].newton_failures = 0;
    run->results[c].fallbacks = 0;
    run->results[c].iterations = 0;
  }
  double kin, pot, diss;
  scene_energy(run, 0, &kin, &pot, &diss);
  run->e0 = kin + pot;
  run->e_prev = run->e0;
  record(run, 0, 0, kin + pot, kin, pot, diss);
  /* a contact engaged at t = 0 has no onset to extrapolate from */
  for (int c = 0; c < nc; c++) {
    island *is = &run->islands[c];
    if (is->ctx.law->kind != VB_LAW_POLYNOMIAL
        && vb_law_penetration(is->ctx.law, is->st.x) > 0.0) {
      memset(&is->tr.ev, 0, sizeof is->tr.ev);
      is->tr.open = 1;
      is->tr.sign = is->ctx.law->kind == VB_LAW_RATTLE && is->st.x < 0.0 ? -1.0 : 1.0;
      is->tr.ev.t_on = is->tr.ev.v_in = is->tr.ev.energy_before = NAN;
      is->tr.ev.x_max_pred = is->tr.ev.v_out_pred = NAN;
      is->tr.ev.v_out_exact = is->tr.ev.duration_pred = NAN;
      is->tr.ev.x_max = vb_law_penetration(is->ctx.law, is->st.x);
      is->tr.ev.samples = 1;
    }
  }
  long n;
  for (n = 1; n <= run->nsteps; n++) {
    for (int c = 0; c < nc; c++) {
      island *is = &run->islands[c];
      is->rate_before = is->st.v;
      int rc = sc->contacts[c].scheme->step(&is->ctx, &is->st);
      run->results[c].iterations += is->st.iterations;
      if (is->st.fallback)
        run->results[c].fallbacks++;
      if (rc == VB_ENOCONV) {
        run->results[c].newton_failures++;
        failures++;
        if (first_failure < 0)
          first_failure = n;
      }
      if (rc == VB_EDIVERGED || !isfinite(is->st.x) || !isfinite(is->st.v)) {
        snprintf(run->status, sizeof run->status, "diverged at t=%.9g (contact '%s')",
                 n * run->dt, sc->contacts[c].name);
        run->code = VB_EDIVERGED;
        break;
      }
    }
    if (run->code)
      break;
    scene_energy(run, n, &kin, &pot, &diss);
    double etot = kin + pot;
    for (int c = 0; c < nc; c++) {
      island *is = &run->islands[c];
      int rc = track(run, c, n, is->st.x_prev, is->rate_before, etot);
      if (rc) {
        run->code = rc;
        snprintf(run->status, sizeof run->status, "out of memory at t=%.9g", n * run->dt);
        break;
      }
    }
    if (run->code)
      break;
    run->e_prev = etot;
    if (n % sc->record_every == 0)
      record(run, n, n / sc->record_every, etot, kin, pot, diss);
  }
  if (run->code) {
    /* samples not reached are NaN, so nothing looks computed that was not */
    size_t nrec = (size_t)run->nrec;
    for (long k = n / sc->record_every + (n % sc->record_every ? 1 : 0);
         k < run->nrec; k++) {
      for (int i = 0; i < sc->nbodies; i++)
        run->u[i * nrec + k] = run->v[i * nrec + k] = NAN;
      for (int c = 0; c < nc; c++)
        run->results[c].compression[k] = run->results[c].force[k] = NAN;
      for (int e = 0; e < 4; e++)
        run->energy[e * nrec + k] = NAN;
    }
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
long vb_run_samples(const vb_run *run) { return run->nrec; }

const double *
vb_run_body_u(const vb_run *run, int body)
{
  return run->u + (size_t)body * (size_t)run->nrec;
}

const double *
vb_run_body_v(const vb_run *run, int body)
{
  return run->v + (size_t)body * (size_t)run->nrec;
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
  size_t last = (size_t)run->nrec - 1;
  return run->energy[last] + run->energy[3 * (size_t)run->nrec + last] - run->e0;
}
