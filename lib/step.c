/* step.c - the run state of an island and the step of each family.
 *
 * The state is sized once from the island's compiled model (model.c, which
 * also explains the families); vb_island_step(const model *, state *)
 * allocates nothing.  Implicit families: one pass over the modes predicts
 * (kernels.c), the K-method solves the contacts together
 * (solvers/kmethod.c), one pass updates the modes and sums the step's
 * energy.  Explicit family: the scheme integrates the island as a system
 * of equations with its own work space (solvers/). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "kernels.h"

static void onset_law(const vb_island_model *m, vb_island_state *s, int c);

/* Exact free response of one mode from (q0, dq0) under constant
 * acceleration g, at time t (used for q at t = -dt). */
static double
free_response(double w0, double sig, double q0, double dq0, double g, double t)
{
  if (w0 == 0.0) {
    if (sig == 0.0)
      return q0 + dq0 * t + 0.5 * g * t * t;
    double k = 2.0 * sig, vinf = g / k;
    return q0 + vinf * t + (dq0 - vinf) * (-expm1(-k * t)) / k;
  }
  double qe = g / (w0 * w0), a = q0 - qe;
  double complex r = csqrt((double complex)(sig * sig - w0 * w0));
  double complex s1 = -sig + r, s2 = -sig - r;
  if (cabs(s1 - s2) < 1e-9 * w0) {
    double s = -sig;
    return qe + (a + (dq0 - s * a) * t) * exp(s * t);
  }
  double complex c1 = (dq0 - s2 * a) / (s1 - s2), c2 = a - c1;
  return qe + creal(c1 * cexp(s1 * t) + c2 * cexp(s2 * t));
}

/* -------------------------------------------------------------- state */

/* The island as a system of equations for an explicit scheme: compressions,
 * the active laws' forces, the external force and the modes' accelerations
 * (ctx is the state, whose scratch holds the external force). */
static void
system_accel(const void *ctx, double t, const double *q, const double *v, double *a, double *x,
             double *rate, double *f)
{
  const vb_island_state *s = ctx;
  const vb_island_model *m = s->model;
  vb_island_compressions(m, q, v, t, x, rate);
  for (int c = 0; c < m->nc; c++)
    f[c] = vb_law_force(&s->act[c].law, x[c], rate[c]);
  vb_island_external(m, t, s->scratch);
  vb_island_accel(m, q, v, f, s->scratch, a);
}

/* Free a state. */
void
vb_island_state_free(vb_island_state *s)
{
  if (!s)
    return;
  if (s->work)
    s->model->scheme->ops->free(s->work);
  free(s->block);
  free(s);
}

/* Allocate the state of an island: one zeroed block, mode arrays 64-byte
 * aligned and padded to nmp. */
int
vb_island_state_alloc(const vb_island_model *m, vb_island_state **out)
{
  size_t mp = (size_t)m->nmp, c = (size_t)m->nc, rc = (c + 7) / 8 * 8;
  size_t ndouble = 7 * mp + 9 * rc + (c * c + 7) / 8 * 8;
  size_t bytes =
      ndouble * sizeof(double) + c * (sizeof(vb_chist) + sizeof(vb_contact)) + 3 * c * sizeof(int);
  bytes = (bytes + 63) / 64 * 64 + 64;
  vb_island_state *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s || !(s->block = aligned_alloc(64, bytes))) {
    free(s);
    return VB_ENOMEM;
  }
  memset(s->block, 0, bytes);
  s->model = m;
  double *p = s->block;
  double **mode[7] = {&s->q, &s->v, &s->qm, &s->acc, &s->gen, &s->qt, &s->scratch};
  for (int k = 0; k < 7; k++, p += mp)
    *mode[k] = p;
  double **contact[9] = {&s->xdrv, &s->xdrv_rate, &s->xdrv_m, &s->xd_next, &s->rd_next,
                         &s->fbar, &s->xt,        &s->x1,     &s->rhs};
  for (int k = 0; k < 9; k++, p += rc)
    *contact[k] = p;
  s->jac = p;
  p += (c * c + 7) / 8 * 8;
  s->hist = (vb_chist *)p;
  s->act = (vb_contact *)(s->hist + c);
  s->piv = (int *)(s->act + c);
  s->iterations = s->piv + c;
  s->fallback = s->iterations + c;
  for (size_t k = 0; k < c; k++)
    s->act[k] = m->cts[k];
  if (m->family == VB_FAMILY_EXPLICIT) {
    s->sys = (vb_system){.nm = m->nm, .nc = m->nc, .accel = system_accel, .ctx = s};
    if (!(s->work = m->scheme->ops->alloc(m->nm, m->nc))) {
      vb_island_state_free(s);
      return VB_ENOMEM;
    }
  }
  *out = s;
  return VB_OK;
}

/* ------------------------------------------------------------- helpers */

/* Generalised force on every mode at time t. */
void
vb_island_external(const vb_island_model *m, double t, double *gen)
{
  const vb_scene *sc = m->scene;
  memcpy(gen, m->gconst, (size_t)m->nm * sizeof(double));
  for (int k = 0; k < m->nf; k++) {
    const vb_force *f = &sc->forces[m->forces[k]];
    const vb_body *b = &sc->bodies[f->body];
    double F = f->value;
    if (f->kind == VB_FORCE_HARMONIC)
      F += f->amplitude * sin(2.0 * M_PI * f->freq * t + f->phase);
    const double *shape = b->points[f->point].shape;
    double *g = gen + m->force_mode[k];
    for (int j = 0; j < b->nmodes; j++)
      g[j] += shape[j] * F;
  }
}

/* Contact compressions and rates of a state (q, v) at time t. */
void
vb_island_compressions(const vb_island_model *m, const double *q, const double *v, double t,
                       double *x, double *rate)
{
  int nm = m->nm;
  for (int c = 0; c < m->nc; c++) {
    const double *row = m->S + (size_t)c * m->nmp;
    double xr, sx = 0.0, sv = 0.0;
    double xd = vb_contact_drive(m->scene, &m->cts[c], t, &xr);
    for (int j = 0; j < nm; j++) {
      sx += row[j] * q[j];
      sv += row[j] * v[j];
    }
    x[c] = sx + xd;
    rate[c] = sv + xr;
  }
}

/* Accelerations of the modes for a state, contact forces and external force. */
void
vb_island_accel(const vb_island_model *m, const double *q, const double *v, const double *f,
                const double *ext, double *a)
{
  int nm = m->nm;
  for (int j = 0; j < nm; j++)
    a[j] = ext[j];
  for (int c = 0; c < m->nc; c++) {
    const double *row = m->S + (size_t)c * m->nmp;
    for (int j = 0; j < nm; j++)
      a[j] -= row[j] * f[c];
  }
  for (int j = 0; j < nm; j++)
    a[j] = a[j] / m->mass[j] - 2.0 * m->sig[j] * v[j] - m->w2[j] * q[j];
}

/* ------------------------------------------------------------ energy */

/* The family's discrete energy of the island's modes and contacts. */
void
vb_island_energy(const vb_island_model *m, vb_island_state *s)
{
  int nm = m->nm;
  double kin = 0.0, pot = 0.0, h = m->dt;
  if (m->family == VB_FAMILY_THREE_LEVEL) {
    for (int j = 0; j < nm; j++) {
      double r = (s->q[j] - s->qm[j]) / h;
      kin += 0.5 * m->mass[j] * r * r;
      pot += 0.5 * m->mass[j] * m->w2[j] * s->q[j] * s->qm[j];
    }
  } else {
    for (int j = 0; j < nm; j++) {
      kin += 0.5 * m->mass[j] * s->v[j] * s->v[j];
      pot += 0.5 * m->mass[j] * m->w2[j] * s->q[j] * s->q[j];
    }
  }
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &s->act[c];
    pot += ct->scheme->ops->potential ? ct->scheme->ops->potential(ct, &s->hist[c])
                                      : vb_law_potential(&ct->law, s->hist[c].x);
  }
  s->kinetic = kin;
  s->potential = pot;
}

/* Explicit family: dissipated and external power of the current state. */
void
vb_island_explicit_power(const vb_island_model *m, vb_island_state *s, double t, double *pd,
                         double *pe)
{
  int nm = m->nm;
  double *ext = s->scratch;
  double d = 0.0, e = 0.0;
  vb_island_external(m, t, ext);
  for (int j = 0; j < nm; j++) {
    d += 2.0 * m->mass[j] * m->sig[j] * s->v[j] * s->v[j];
    e += ext[j] * s->v[j];
  }
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &s->act[c];
    d += vb_law_damping_power(&ct->law, s->hist[c].x, s->hist[c].rate);
    e += vb_law_force(&ct->law, s->hist[c].x, s->hist[c].rate) * s->xdrv_rate[c];
  }
  *pd = d;
  *pe = e;
}

/* ------------------------------------------------------------- start */

/* Set the state at t = 0. */
void
vb_island_start(const vb_island_model *m, vb_island_state *s)
{
  const vb_scene *sc = m->scene;
  double h = m->dt;
  int nm = m->nm;
  s->time = 0.0;
  s->dissipated = s->external = s->corrected = 0.0;
  s->ahead = 0;
  s->newton_failures = 0;
  vb_island_external(m, 0.0, s->gen);
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = m->offsets[i] + k;
      s->q[j] = b->q0[k];
      s->v[j] = b->dq0[k];
      /* two-level: the trapezoidal velocity that makes the discrete free
       * response the exact one (q at dt exact); a free mass keeps dq0 */
      if (m->family == VB_FAMILY_TWO_LEVEL && (b->freq[k] != 0.0 || b->sigma[k] != 0.0)) {
        double q1 = free_response(2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k], b->dq0[k],
                                  s->gen[j] / m->mass[j], h);
        s->v[j] = (q1 - m->ca[j] * b->q0[k] - m->cc[j] * s->gen[j]) / m->cb[j];
      }
      /* three-level: q^(-1) from the exact free response at t = -dt */
      s->qm[j] = free_response(2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k], b->dq0[k],
                               s->gen[j] / m->mass[j], -h);
    }
  }
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &s->act[c];
    const double *row = m->S + (size_t)c * m->nmp;
    double sx = 0.0, sv = 0.0, sm = 0.0, xr, xrm;
    for (int j = 0; j < nm; j++) {
      sx += row[j] * s->q[j];
      sv += row[j] * s->v[j];
      sm += row[j] * s->qm[j];
    }
    s->xdrv[c] = vb_contact_drive(sc, ct, 0.0, &xr);
    s->xdrv_rate[c] = xr;
    s->xdrv_m[c] = vb_contact_drive(sc, ct, -h, &xrm);
    vb_chist *hc = &s->hist[c];
    hc->x = sx + s->xdrv[c];
    hc->rate = sv + xr;
    if (m->family == VB_FAMILY_THREE_LEVEL) {
      hc->xm = sm + s->xdrv_m[c];
      hc->rate = (hc->x - hc->xm) / h;
    } else {
      hc->xm = hc->x;
    }
    /* a contact in contact at t = 0 takes its law at its initial rate */
    onset_law(m, s, c);
    hc->f = vb_law_force(&ct->law, hc->x, hc->rate);
    s->fbar[c] = hc->f;
    s->iterations[c] = 0;
    s->fallback[c] = 0;
  }
  if (m->family == VB_FAMILY_EXPLICIT) {
    vb_island_accel(m, s->q, s->v, s->fbar, s->gen, s->acc);
    vb_island_explicit_power(m, s, 0.0, &s->power[0], &s->power[1]);
  }
  vb_island_energy(m, s);
}

/* -------------------------------------------------------------- onset */

/* Contact c, out of contact at n, takes the law of an impact that would
 * begin in this step: vb_law_at_onset of its compiled law with v_in the
 * penetration rate at n, the rate at the last step before penetration
 * (three-level: the secant rate into n).  A contact in contact keeps the
 * law its impact began with. */
static void
onset_law(const vb_island_model *m, vb_island_state *s, int c)
{
  const vb_chist *hc = &s->hist[c];
  const vb_law *law = &m->cts[c].law;
  double sign = vb_law_side(law, hc->x);
  vb_law_at_onset(law, sign * hc->rate, &s->act[c].law);
}

/* onset_law for every contact out of contact at n (and, three-level, at
 * n-1). */
static void
onset_laws(const vb_island_model *m, vb_island_state *s)
{
  int three = m->family == VB_FAMILY_THREE_LEVEL;
  for (int c = 0; c < m->nc; c++) {
    const vb_chist *hc = &s->hist[c];
    if (!vb_law_engaged(&m->cts[c].law, hc->x) &&
        !(three && vb_law_engaged(&m->cts[c].law, hc->xm)))
      onset_law(m, s, c);
  }
}

/* Find the step forces fbar of an island's contacts (the K-method); VB_OK,
 * VB_ENOCONV or VB_EDIVERGED.  Sets x1 to the new compressions.  A step
 * where no contact can act (every predicted and past compression out of
 * contact) pays for no solve. */
static int
solve_contacts(const vb_island_model *m, vb_island_state *s)
{
  int nc = m->nc, three = m->family == VB_FAMILY_THREE_LEVEL, any = 0;
  for (int c = 0; c < nc; c++)
    any |= vb_kmethod_may_act(&s->act[c], &s->hist[c], s->xt[c], three);
  if (!any) {
    /* no contact can act: fbar = 0 is the solution, no solve */
    for (int c = 0; c < nc; c++) {
      s->fbar[c] = 0.0;
      s->x1[c] = s->xt[c];
      s->iterations[c] = 0;
      s->fallback[c] = 0;
    }
    return VB_OK;
  }
  onset_laws(m, s);
  const vb_kproblem p = {
      .nc = nc,
      .three = three,
      .dt = m->dt,
      .K = m->K,
      .xt = s->xt,
      .cts = s->act,
      .hist = s->hist,
      .x1 = s->x1,
      .fbar = s->fbar,
      .iterations = s->iterations,
      .fallback = s->fallback,
      .jac = s->jac,
      .rhs = s->rhs,
      .piv = s->piv,
  };
  return vb_kmethod_solve(&p);
}

/* ---------------------------------------------------------------- step */

/* Predicted modes qt and compressions xt of a step: qt = ca q + cb w +
 * cc gen with w = v (two-level) or -qm (three-level, cb = a2); the walls
 * and gap at n+1 into xd_next, rd_next. */
static void
predict(const vb_island_model *m, vb_island_state *s, const double *w, double t1)
{
  const vb_scene *sc = m->scene;
  int nmp = m->nmp, nc = m->nc;
  double *xd1 = s->xd_next, *r1 = s->rd_next;
  if (s->ahead) {
    /* the previous update already predicted this step */
    s->ahead = 0;
    for (int c = 0; c < nc; c++) {
      double dot = nc == 1 ? s->ahead_dot : vb_kernel_dot(0, nmp, m->S + (size_t)c * nmp, s->qt);
      xd1[c] = vb_contact_drive(sc, &m->cts[c], t1, &r1[c]);
      s->xt[c] = dot + xd1[c];
    }
    return;
  }
  double dot =
      vb_kernel_predict(nmp, s->q, w, m->ca, m->cb, m->cc, s->gen, s->qt, nc == 1 ? m->S : NULL);
  for (int c = 0; c < nc; c++) {
    if (nc > 1)
      dot = vb_kernel_dot(0, nmp, m->S + (size_t)c * nmp, s->qt);
    xd1[c] = vb_contact_drive(sc, &m->cts[c], t1, &r1[c]);
    s->xt[c] = dot + xd1[c];
  }
}

/* Apply the contact forces to qt, all but the first of a one-contact
 * island, which the update folds in: returns its force (or 0). */
static double
apply_forces(const vb_island_model *m, vb_island_state *s)
{
  int nmp = m->nmp, nc = m->nc;
  if (nc == 1)
    return s->fbar[0];
  for (int c = 0; c < nc; c++)
    if (s->fbar[c] != 0.0)
      vb_kernel_force(nmp, s->qt, m->cc, m->S + (size_t)c * nmp, s->fbar[c]);
  return 0.0;
}

/* Recorded points of the island: u and v (three-level: rate of the step). */
void
vb_island_points(const vb_island_model *m, const vb_island_state *s, double *u, double *v)
{
  int nmp = m->nmp;
  for (int r = 0; r < m->npts; r++) {
    /* only the modes of the point's own body, in whole blocks */
    const double *row = m->P + (size_t)r * nmp;
    int from = m->point_from[r], to = m->point_to[r];
    if (m->family == VB_FAMILY_THREE_LEVEL) {
      double um;
      vb_kernel_dot2(from, to, row, s->q, s->qm, &u[r], &um);
      v[r] = (u[r] - um) / m->dt;
    } else {
      vb_kernel_dot2(from, to, row, s->q, s->v, &u[r], &v[r]);
    }
  }
}

/* Sum of the contacts' potentials in the schemes' discrete energies. */
static double
contact_potential(const vb_island_model *m, const vb_island_state *s)
{
  double pot = 0.0;
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &s->act[c];
    pot += ct->scheme->ops->potential ? ct->scheme->ops->potential(ct, &s->hist[c])
                                      : vb_law_potential(&ct->law, s->hist[c].x);
  }
  return pot;
}

/* Move contact c's wall-and-gap compression on by a step: n becomes n-1,
 * the value at n+1 (xd, m, with its rate r, m/s) becomes n. */
static inline void
shift_drive(vb_island_state *s, int c, double xd, double r)
{
  s->xdrv_m[c] = s->xdrv[c];
  s->xdrv[c] = xd;
  s->xdrv_rate[c] = r;
}

/* Solve an implicit step's contacts (the K-method) and apply their forces
 * to qt: the solve's status (VB_EDIVERGED: nothing applied), and in *f0
 * the force the update folds in (apply_forces). */
static int
contact_forces(const vb_island_model *m, vb_island_state *s, double *f0)
{
  int rc = m->nc ? solve_contacts(m, s) : VB_OK;
  *f0 = rc == VB_EDIVERGED ? 0.0 : apply_forces(m, s);
  return rc;
}

/* Book an implicit step's end from the kernel's sums (dissipated, work,
 * kinetic and potential energy twice over, the next step's prediction
 * dot S): the step's dissipated and external work diss and work (the
 * sums' with the contacts' added), J, and whether qt already holds the
 * next step's prediction (ahead). */
static void
account(const vb_island_model *m, vb_island_state *s, const double *sums, int ahead, double diss,
        double work)
{
  s->ahead = ahead;
  s->ahead_dot = sums[4];
  s->dissipated += diss;
  s->external += work;
  s->kinetic = 0.5 * sums[2];
  s->potential = 0.5 * sums[3] + contact_potential(m, s);
}

/* Two-level family step (trapezoidal modes).  One pass predicts, the
 * contacts are solved, one pass updates the modes and sums the step's
 * dissipation, external work and the new modal energy. */
static int
step_two_level(const vb_island_model *m, vb_island_state *s, long n)
{
  int nm = m->nm, nc = m->nc;
  double h = m->dt, t1 = (n + 1) * h;
  double *restrict gen = s->gen, *r1 = s->rd_next, *xd1 = s->xd_next;
  /* the trapezoidal average of the external forces */
  if (m->nf > 0) {
    double *g1 = s->scratch;
    vb_island_external(m, n * h, gen);
    vb_island_external(m, t1, g1);
    for (int j = 0; j < nm; j++)
      gen[j] = 0.5 * (gen[j] + g1[j]);
  }
  predict(m, s, s->v, t1);
  for (int c = 0; c < nc; c++) {
    vb_chist *hc = &s->hist[c];
    /* rate(n+1) = 2 (x1 - x)/h + roff, with the walls' motion exact */
    hc->roff = -hc->rate - 2.0 * (xd1[c] - s->xdrv[c]) / h + s->xdrv_rate[c] + r1[c];
  }
  double f0, sums[5];
  int rc = contact_forces(m, s, &f0);
  if (rc == VB_EDIVERGED)
    return rc;
  /* with a constant generalised force, predict the next step in passing */
  int ahead = m->nf == 0;
  vb_kernel_update2(m->nmp, h, s->qt, m->cc, m->S, f0, s->q, s->v, m->mass, m->dcoef, m->mw2,
                    s->gen, ahead, m->has_gen, m->ca, m->cb, m->S, sums);
  double diss = sums[0], work = sums[1];
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &s->act[c];
    vb_chist *hc = &s->hist[c];
    double x1 = s->x1[c];
    if (s->fbar[c] != 0.0 || vb_law_engaged(&ct->law, hc->x)) {
      diss += ct->scheme->ops->dissipation(ct, hc, h, x1, s->fbar[c]);
      work += s->fbar[c] * (xd1[c] - s->xdrv[c]);
    }
    double f1 = ct->scheme->ops->held_force(ct, hc, h, x1, s->fbar[c]);
    hc->xm = hc->x;
    hc->rate = 2.0 * (x1 - hc->x) / h + hc->roff;
    hc->x = x1;
    hc->f = f1;
    shift_drive(s, c, xd1[c], r1[c]);
  }
  account(m, s, sums, ahead, diss, work);
  return rc;
}

/* Three-level family step (exact centred modes). */
static int
step_three_level(const vb_island_model *m, vb_island_state *s, long n)
{
  int nc = m->nc;
  double h = m->dt, t1 = (n + 1) * h;
  double *restrict qm = s->qm;
  double *restrict gen = s->gen, *r1 = s->rd_next, *xd1 = s->xd_next;
  double *restrict mqm = s->scratch;
  if (m->nf > 0)
    vb_island_external(m, n * h, gen);
  if (!s->ahead) {
#pragma omp simd
    for (int j = 0; j < m->nmp; j++)
      mqm[j] = -qm[j];
  }
  predict(m, s, mqm, t1);
  double f0, sums[5];
  int rc = contact_forces(m, s, &f0);
  if (rc == VB_EDIVERGED)
    return rc;
  int ahead = m->nf == 0;
  vb_kernel_update3(m->nmp, h, s->qt, m->cc, m->S, f0, s->q, s->qm, m->mass, m->dcoef, m->mw2,
                    s->gen, ahead, m->ca, m->cb, m->S, sums);
  double diss = sums[0], work = sums[1];
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &s->act[c];
    vb_chist *hc = &s->hist[c];
    double x1 = s->x1[c];
    if (s->fbar[c] != 0.0 || vb_law_engaged(&ct->law, hc->x) || vb_law_engaged(&ct->law, hc->xm)) {
      const vb_scheme *sch = s->fallback[c] ? ct->scheme->fallback : ct->scheme;
      diss += sch->ops->dissipation(ct, hc, h, x1, s->fbar[c]);
      work += 0.5 * s->fbar[c] * (xd1[c] - s->xdrv_m[c]);
    }
    hc->f = ct->scheme->ops->held_force(ct, hc, h, x1, s->fbar[c]);
    hc->xm = hc->x;
    hc->x = x1;
    hc->rate = (hc->x - hc->xm) / h;
    shift_drive(s, c, xd1[c], r1[c]);
  }
  account(m, s, sums, ahead, diss, work);
  return rc;
}

/* Explicit family step: the scheme integrates, the island accounts. */
static int
step_explicit(const vb_island_model *m, vb_island_state *s, long n)
{
  double h = m->dt, t1 = (n + 1) * h;
  s->time = n * h;
  for (int c = 0; c < m->nc; c++)
    s->iterations[c] = s->fallback[c] = 0;
  onset_laws(m, s);
  int rc = m->scheme->ops->step(s->work, &s->sys, s->time, h, s->q, s->v, s->acc, s->fbar);
  for (int c = 0; c < m->nc; c++)
    s->hist[c].f = s->fbar[c];
  for (int j = 0; j < m->nm; j++)
    if (!isfinite(s->q[j]) || !isfinite(s->v[j]))
      return VB_EDIVERGED;
  /* contact state at n+1 (the held force is the scheme's own) */
  double *x = s->x1, *rate = s->xt;
  vb_island_compressions(m, s->q, s->v, t1, x, rate);
  for (int c = 0; c < m->nc; c++) {
    vb_chist *hc = &s->hist[c];
    double r1;
    hc->xm = hc->x;
    hc->x = x[c];
    hc->rate = rate[c];
    double xd = vb_contact_drive(m->scene, &m->cts[c], t1, &r1);
    shift_drive(s, c, xd, r1);
  }
  double pd, pe;
  vb_island_explicit_power(m, s, t1, &pd, &pe);
  /* trapezoidal rule on the powers */
  s->dissipated += 0.5 * h * (s->power[0] + pd);
  s->external += 0.5 * h * (s->power[1] + pe);
  s->power[0] = pd;
  s->power[1] = pe;
  return rc;
}

/* ----------------------------------------------------------- finiteness */

/* x * 0 is 0 for a finite x and NaN otherwise: the sum over every checked
 * quantity is 0 exactly when all are finite, whatever their size. */
int
vb_island_finite(const vb_island_model *m, const vb_island_state *s)
{
  double z = s->kinetic * 0.0 + s->potential * 0.0 + s->dissipated * 0.0 + s->external * 0.0 +
             s->corrected * 0.0;
  for (int c = 0; c < m->nc; c++) {
    const vb_chist *hc = &s->hist[c];
    z += hc->x * 0.0 + hc->rate * 0.0 + hc->f * 0.0;
  }
  return z == 0.0;
}

/* "is inf", "is -inf" or "is nan" for a non-finite x; NULL if finite. */
static const char *
nonfinite_text(double x)
{
  if (isnan(x))
    return "is nan";
  if (isinf(x))
    return x > 0.0 ? "is inf" : "is -inf";
  return NULL;
}

/* The island's first non-finite quantity: contacts, modes, energies, and
 * then (after a failed solve) the step's solve. */
int
vb_island_nonfinite(const vb_island_model *m, const vb_island_state *s, int solve_failed,
                    char *what, size_t len)
{
  const vb_scene *sc = m->scene;
  const char *t;
  for (int c = 0; c < m->nc; c++) {
    const vb_chist *hc = &s->hist[c];
    const double val[3] = {hc->x, hc->rate, hc->f};
    static const char *const name[3] = {"compression", "compression rate", "force"};
    for (int k = 0; k < 3; k++)
      if ((t = nonfinite_text(val[k])) != NULL) {
        snprintf(what, len, "contact '%s': %s %s", s->act[c].name, name[k], t);
        return 1;
      }
  }
  int three = m->family == VB_FAMILY_THREE_LEVEL;
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = m->offsets[i] + k;
      const double val[2] = {s->q[j], three ? s->qm[j] : s->v[j]};
      const char *name[2] = {"displacement", three ? "previous displacement" : "velocity"};
      for (int w = 0; w < 2; w++)
        if ((t = nonfinite_text(val[w])) != NULL) {
          snprintf(what, len, "body '%s': mode %d %s %s", b->name, k, name[w], t);
          return 1;
        }
    }
  }
  const double val[5] = {s->kinetic, s->potential, s->dissipated, s->external, s->corrected};
  static const char *const name[5] = {"kinetic energy", "potential energy", "dissipated energy",
                                      "external work", "correction energy"};
  for (int k = 0; k < 5; k++)
    if ((t = nonfinite_text(val[k])) != NULL) {
      snprintf(what, len, "%s of the island of body '%s' %s", name[k],
               sc->bodies[m->bodies[0]].name, t);
      return 1;
    }
  for (int c = 0; c < m->nc && solve_failed; c++) {
    /* the solve stops at a non-finite iterate or a force that overflows
     * at a finite compression */
    const vb_contact *ct = &s->act[c];
    if ((t = nonfinite_text(s->x1[c])) != NULL) {
      snprintf(what, len, "contact '%s': compression solved for the step %s", ct->name, t);
      return 1;
    }
    if (m->family != VB_FAMILY_EXPLICIT && ct->scheme->ops->step_force) {
      double df, f = ct->scheme->ops->step_force(ct, &s->hist[c], m->dt, s->x1[c], &df);
      if ((t = nonfinite_text(f)) != NULL) {
        snprintf(what, len, "contact '%s': step force %s at compression %.6g m", ct->name, t,
                 s->x1[c]);
        return 1;
      }
    }
  }
  snprintf(what, len, "the step of the island of body '%s' failed", sc->bodies[m->bodies[0]].name);
  return 0;
}

/* Advance an island one step. */
int
vb_island_step(const vb_island_model *m, vb_island_state *s, long n)
{
  int rc;
  if (m->family == VB_FAMILY_TWO_LEVEL)
    rc = step_two_level(m, s, n);
  else if (m->family == VB_FAMILY_THREE_LEVEL)
    rc = step_three_level(m, s, n);
  else
    rc = step_explicit(m, s, n);
  s->time = (n + 1) * m->dt;
  if (rc == VB_ENOCONV)
    s->newton_failures++;
  if (rc != VB_EDIVERGED && m->family == VB_FAMILY_EXPLICIT)
    vb_island_energy(m, s);
  return rc;
}
