/* stepping.c - a run in blocks, with its state in hand (issue 31 item 3;
 * vibro.h, "Stepping a run"): begin, advance by N steps or to a time, read
 * the state, change a parameter, advance again, end.  After MuJoCo's
 * mj_step(model, data) and PyChrono's DoStepDynamics, for controllers,
 * co-simulation and interactive exploration.
 *
 * vb_run_exec is the same three calls over every step (run.c), so a scene
 * advanced in blocks of any size makes the same operations in the same
 * order as one run whole: its recording, events and status are the same
 * bits (tests/run/check_stepping).  The floating-point environment the run
 * keeps (fpenv.c: subnormals flushed) and the one-thread BLAS are set for
 * each call and the caller's given back, so the caller's own code between
 * blocks runs in its own environment. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

/* The environment of a call into the run (vb_run_exec_until's). */
typedef struct {
  vb_fpenv caller;
  int blas;
} call_env;

static void
env_enter(const vb_run *run, call_env *e)
{
  e->caller = (vb_fpenv){0, 0};
  if (!run->keep_subnormals)
    vb_fpenv_flush(&e->caller);
  e->blas = vb_blas_pin();
}

static void
env_leave(const call_env *e)
{
  vb_blas_unpin(e->blas);
  vb_fpenv_restore(&e->caller);
}

int
vb_run_begin(vb_run *run)
{
  call_env e;
  env_enter(run, &e);
  int rc = vb_run_steps_begin(run);
  env_leave(&e);
  return rc;
}

int
vb_run_advance(vb_run *run, long count)
{
  if (run->stage != VB_RUN_STEPPING)
    return run->stage == VB_RUN_NEW ? VB_EINVAL : run->code;
  if (count < 0)
    return VB_EINVAL;
  call_env e;
  env_enter(run, &e);
  int rc = vb_run_steps(run, count, NULL, 1);
  if (rc != VB_OK) {
    /* the run ended on a failure: its end, as vb_run_exec ends it */
    rc = vb_run_steps_finish(run);
  }
  env_leave(&e);
  return rc;
}

int
vb_run_advance_to(vb_run *run, double t)
{
  if (!(t >= 0.0))
    return VB_EINVAL;
  /* the step whose time is nearest t, as a scene's steps are round(duration fs) */
  double n = floor(t / run->dt + 0.5);
  long target = n > (double)run->nsteps ? run->nsteps : (long)n;
  long done = vb_run_steps_done(run);
  return vb_run_advance(run, target > done ? target - done : 0);
}

int
vb_run_end(vb_run *run)
{
  if (run->stage == VB_RUN_NEW)
    return VB_EINVAL;
  if (run->stage == VB_RUN_ENDED)
    return run->code;
  call_env e;
  env_enter(run, &e);
  if (run->next <= run->nsteps) {
    snprintf(run->status, sizeof run->status, "ended at t=%.9g s by the caller (duration %.9g s)",
             (run->next - 1) * run->dt, run->nsteps * run->dt);
    run->code = VB_EINTR;
  }
  int rc = vb_run_steps_finish(run);
  env_leave(&e);
  return rc;
}

long
vb_run_steps_done(const vb_run *run)
{
  return run->stage == VB_RUN_NEW ? 0 : run->next - 1;
}

long
vb_run_steps_total(const vb_run *run)
{
  return run->nsteps;
}

double
vb_run_now(const vb_run *run)
{
  return (double)vb_run_steps_done(run) * run->dt;
}

/* ------------------------------------------------------------ the state */

int
vb_run_point_now(const vb_run *run, int body, int point, double *u, double *v)
{
  const vb_scene *sc = run->scene;
  if (body < 0 || body >= sc->nbodies || point < 0 ||
      point >= (sc->bodies[body].kind == VB_BODY_MODAL ? sc->bodies[body].npoints : 1))
    return VB_EINVAL;
  const vb_body *b = &sc->bodies[body];
  if (b->kind == VB_BODY_WALL) {
    *u = vb_wall_u(b, vb_run_now(run), v);
    return VB_OK;
  }
  int i = run->body_island[body];
  vb_point_ops ops;
  vb_island_point_ops(&run->model->islands[i], run->states[i], run->point_row[body] + point, &ops);
  vb_point_eval(&ops, u, v);
  return VB_OK;
}

int
vb_run_modes_now(const vb_run *run, int body, double *q, double *v, int n)
{
  const vb_scene *sc = run->scene;
  if (body < 0 || body >= sc->nbodies || sc->bodies[body].kind == VB_BODY_WALL)
    return -1;
  int i = run->body_island[body], at = run->body_offset[body];
  int nm = sc->bodies[body].kind == VB_BODY_MODAL ? sc->bodies[body].nmodes : 1;
  const vb_island_model *m = &run->model->islands[i];
  const vb_island_state *s = run->states[i];
  int three = m->fam->info->levels == 3;
  for (int j = 0; j < nm && j < n; j++) {
    if (q)
      q[j] = s->q[at + j];
    if (v)
      v[j] = three ? (s->q[at + j] - s->qm[at + j]) / m->dt : s->v[at + j];
  }
  return nm;
}

double
vb_run_contact_now(const vb_run *run, int c, int what)
{
  if (c < 0 || c >= run->scene->ncontacts)
    return NAN;
  const vb_chist *h = &run->states[run->contact_island[c]]->hist[run->contact_local[c]];
  switch (what) {
  case VB_NOW_FORCE:
    return h->f;
  case VB_NOW_COMPRESSION:
    return h->x;
  case VB_NOW_RATE:
    return h->rate;
  default:
    return NAN;
  }
}

/* ---------------------------------------------------- changing the scene */

/* The index of the element of list[n] (structs with a name) called
 * name[len], or -1. */
#define NAMED(list, n, name, len)                                                                  \
  ({                                                                                               \
    int found_ = -1;                                                                               \
    for (int k_ = 0; k_ < (n) && found_ < 0; k_++)                                                 \
      if (strlen((list)[k_].name) == (len) && strncmp((list)[k_].name, (name), (len)) == 0)        \
        found_ = k_;                                                                               \
    found_;                                                                                        \
  })

/* Every island's next prediction is made again (it holds the forces at the
 * next step, which a change may move). */
static void
forget_ahead(vb_run *run)
{
  for (int i = 0; i < run->nislands; i++)
    run->states[i]->ahead = 0;
}

/* Set contact c's law parameter p (the model's copy, the stepped copy and
 * the scene's, which the predictions read). */
static int
set_law(vb_run *run, int c, const vb_law_param *p, double value, char *err, size_t errlen)
{
  vb_contact *sct = (vb_contact *)&run->scene->contacts[c];
  if (!(p->min_open ? value > p->min : value >= p->min) || !(value <= p->max) || !isfinite(value))
    return vb_errf(err, errlen, VB_EINVAL, "contacts.%s.%s: %.17g is not valid (valid: %s)",
                   sct->name, p->key, value, p->condition);
  if (sct->exact_duration)
    return vb_errf(err, errlen, VB_EINVAL,
                   "contacts.%s.%s: the contact has exact_duration: its stiffness is the "
                   "scheme's, set when the run is made (valid: a contact without it)",
                   sct->name, p->key);
  int i = run->contact_island[c], lc = run->contact_local[c];
  vb_island_model *m = &run->model->islands[i];
  memcpy((char *)&sct->law + p->offset, &value, sizeof value);
  memcpy((char *)&((vb_contact *)m->cts)[lc].law + p->offset, &value, sizeof value);
  memcpy((char *)&run->states[i]->act[lc].law + p->offset, &value, sizeof value);
  return VB_OK;
}

int
vb_run_set(vb_run *run, const char *path, double value, char *err, size_t errlen)
{
  vb_scene *sc = (vb_scene *)run->scene;
  const char *dot1 = strchr(path, '.'), *dot2 = dot1 ? strrchr(path, '.') : NULL;
  if (run->stage == VB_RUN_ENDED)
    return vb_errf(err, errlen, VB_EINVAL, "%s: the run has ended", path);
  if (!dot1 || dot2 == dot1 || !isfinite(value))
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: not a parameter a run can change (valid: forces.F.value, "
                   "forces.F.amplitude, forces.F.freq, forces.F.phase, bodies.WALL.position, "
                   "contacts.C.gap, contacts.C.<a parameter of its law>), or %g not finite",
                   path, value);
  const char *name = dot1 + 1, *key = dot2 + 1;
  size_t len = (size_t)(dot2 - name);
  if (strncmp(path, "forces.", 7) == 0) {
    int f = NAMED(sc->forces, sc->nforces, name, len);
    double *x = f < 0                               ? NULL
                : strcmp(key, "value") == 0     ? &sc->forces[f].value
                : strcmp(key, "amplitude") == 0 ? &sc->forces[f].amplitude
                : strcmp(key, "freq") == 0      ? &sc->forces[f].freq
                : strcmp(key, "phase") == 0     ? &sc->forces[f].phase
                                                : NULL;
    if (!x)
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s: no force '%.*s' or no key '%s' (valid: value, amplitude, freq, phase)",
                     path, (int)len, name, key);
    *x = value;
  } else if (strncmp(path, "bodies.", 7) == 0) {
    int b = NAMED(sc->bodies, sc->nbodies, name, len);
    if (b < 0 || sc->bodies[b].kind != VB_BODY_WALL || strcmp(key, "position") != 0)
      return vb_errf(err, errlen, VB_EINVAL, "%s: no wall '%.*s' or no key '%s' (valid: a wall's "
                     "position)", path, (int)len, name, key);
    sc->bodies[b].u0 = value;
  } else if (strncmp(path, "contacts.", 9) == 0) {
    int c = NAMED(sc->contacts, sc->ncontacts, name, len);
    if (c < 0)
      return vb_errf(err, errlen, VB_EINVAL, "%s: no contact '%.*s'", path, (int)len, name);
    if (strcmp(key, "gap") == 0) {
      sc->contacts[c].gap = value;
    } else {
      const vb_law_param *p = vb_law_info_of(sc->contacts[c].law.kind)->params;
      while (p->key && strcmp(p->key, key) != 0)
        p++;
      if (!p->key)
        return vb_errf(err, errlen, VB_EINVAL, "%s: law '%s' has no parameter '%s' (valid: gap "
                       "or a parameter of the law)", path,
                       vb_law_info_of(sc->contacts[c].law.kind)->name, key);
      int rc = set_law(run, c, p, value, err, errlen);
      if (rc != VB_OK)
        return rc;
    }
  } else {
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: not a parameter a run can change (valid: forces.F.KEY, "
                   "bodies.WALL.position, contacts.C.KEY)", path);
  }
  forget_ahead(run);
  return VB_OK;
}
