/* island.c - the run state of an island and what it says about itself:
 * its allocation (one block, the schemes' per-contact state included),
 * the compressions its modes and walls make, the accelerations and
 * external forces of its modes, its recorded points and whether it is
 * finite.  The families that step it are step.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "island.h"
#include "kernels.h"
#include "friction.h"
#include "moving.h"

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
  vb_sparse_free(s->sp);
  vb_friction_state_free(s->fric);
  vb_clearance_state_free(s->clr);
  free(s->mws);
  free(s->gws);
  free(s->block);
  free(s);
}

/* Doubles of scheme state of an island's contacts (each contact's
 * scheme's nstate). */
static size_t
scheme_state_size(const vb_island_model *m)
{
  size_t n = 0;
  for (int c = 0; c < m->nc; c++)
    n += (size_t)m->cts[c].scheme->ops->nstate;
  return n;
}

/* Allocate the state of an island: one zeroed block, mode arrays 64-byte
 * aligned and padded to nmp, the schemes' per-contact state after the
 * contact arrays (hist[c].st, NULL for a scheme without state). */
/* Doubles of an island's Newton scratch (jac): nc^2, or where the model
 * is lowrank 2 kcap^2 + 8 nc + 8 (kmethod.c's packed K_AA and the LU of J
 * up to kcap active contacts; above, 7 na for the residual's scale, the
 * lift, base, trial and derivative slots) and at least nm^2 (kglobal.c's
 * Hessian). */
static size_t
jac_size(const vb_island_model *m)
{
  size_t c = (size_t)m->nc, k = (size_t)m->kcap, nm = (size_t)m->nm;
  if (!m->lowrank)
    return c * c;
  size_t n = 2 * k * k + 8 * c + 8;
  return n > nm * nm ? n : nm * nm;
}

/* Bytes of the block behind an island's state arrays (a multiple of 64). */
static size_t
state_block_bytes(const vb_island_model *m)
{
  size_t mp = (size_t)m->nmp, c = (size_t)m->nc, rc = (c + 7) / 8 * 8;
  size_t nst = scheme_state_size(m);
  size_t ndouble = 7 * mp + 13 * rc + (jac_size(m) + 7) / 8 * 8 + (nst + 7) / 8 * 8 +
                   (m->lowrank ? 2 * mp : 0);
  size_t bytes =
      ndouble * sizeof(double) + c * (sizeof(vb_chist) + sizeof(vb_contact)) + 7 * c * sizeof(int);
  return (bytes + 63) / 64 * 64 + 64;
}

int
vb_island_state_alloc(const vb_island_model *m, vb_island_state **out)
{
  size_t mp = (size_t)m->nmp, c = (size_t)m->nc, rc = (c + 7) / 8 * 8;
  size_t nst = scheme_state_size(m);
  size_t bytes = state_block_bytes(m);
  vb_island_state *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s || !(s->block = aligned_alloc(64, bytes))) {
    free(s);
    return VB_ENOMEM;
  }
  memset(s->block, 0, bytes);
  s->model = m;
  s->state_drift = NAN;
  double *p = s->block;
  double **mode[7] = {&s->q, &s->v, &s->qm, &s->acc, &s->gen, &s->qt, &s->scratch};
  for (int k = 0; k < 7; k++, p += mp)
    *mode[k] = p;
  double **contact[13] = {&s->xdrv, &s->xdrv_rate, &s->xdrv_m, &s->xd_next, &s->rd_next,
                          &s->fbar, &s->xt,        &s->x1,     &s->rhs,     &s->xb,
                          &s->rb,   &s->xmax,      &s->drift};
  for (int k = 0; k < 13; k++, p += rc)
    *contact[k] = p;
  s->jac = p;
  s->njac = jac_size(m);
  p += (s->njac + 7) / 8 * 8;
  if (m->lowrank) {
    s->kws = p;
    p += 2 * mp;
  }
  double *st = p;
  p += (nst + 7) / 8 * 8;
  s->hist = (vb_chist *)p;
  s->act = (vb_contact *)(s->hist + c);
  s->piv = (int *)(s->act + c);
  s->iterations = s->piv + c;
  s->fallback = s->iterations + c;
  s->trk = s->fallback + c;
  s->eng = s->trk + c;
  s->watch = s->eng + c;
  s->watch_next = s->watch + c;
  s->ntrk = m->nc;
  s->neng = -1;
  s->contacts_finite = -1;
  for (size_t k = 0; k < c; k++) {
    s->trk[k] = (int)k;
    s->act[k] = m->cts[k];
    int ns = m->cts[k].scheme->ops->nstate;
    s->hist[k].st = ns > 0 ? st : NULL;
    st += ns;
  }
  int undriven = 1;
  for (int k = 0; k < m->nc; k++) {
    undriven &= !vb_contact_driven(m->scene, &m->cts[k]);
    s->corrections |= m->cts[k].corrections != 0;
  }
  s->one_sided = 1;
  for (int k = 0; k < m->nc; k++) {
    const vb_law_info *info = vb_law_info_of(m->cts[k].law.kind);
    s->one_sided &= !info->two_sided && !info->always_engaged;
    s->onset |= info->onset_damping != NULL;
  }
  s->undriven = undriven;
  /* the K-method's globalised fall-back's work space, O(contacts x modes)
   * (solvers/kglobal.c) */
  if (m->lowrank) {
    /* and dense.c's solve through the modes, nm^2 + nm; the fall-back's
     * B of every mode (kglobal.c's exact factor where K is NULL) */
    size_t nm = (size_t)m->nm, g = c * nm + 4 * nm + 7 * c + 8;
    s->gws = malloc((g > nm * nm + nm ? g : nm * nm + nm) * sizeof(double));
    if (!s->gws) {
      vb_island_state_free(s);
      return VB_ENOMEM;
    }
  } else if (m->nc >= 2 && m->fam->solve == vb_kmethod_solve &&
             !vb_test_hooks_now()->no_global) {
    int rank = m->nm < m->nc ? m->nm : m->nc;
    s->gws = malloc(vb_kmethod_global_size(m->nc, rank) * sizeof(double));
    if (!s->gws) {
      vb_island_state_free(s);
      return VB_ENOMEM;
    }
  }
  if (vb_sparse_alloc(m, s, undriven) != VB_OK ||
      vb_friction_state_alloc(m->fric, &s->fric) != VB_OK ||
      vb_clearance_state_alloc(m->clr, &s->clr) != VB_OK) {
    vb_island_state_free(s);
    return VB_ENOMEM;
  }
  if (m->mov && m->mov->follow &&
      !(s->mws = malloc((size_t)VB_MOVING_WS * (size_t)m->nmp * sizeof *s->mws))) {
    vb_island_state_free(s);
    return VB_ENOMEM;
  }
  if (m->scheme && m->scheme->ops->alloc) {
    s->sys = (vb_system){.nm = m->nm, .nc = m->nc, .accel = system_accel, .ctx = s};
    if (!(s->work = m->scheme->ops->alloc(m->nm, m->nc))) {
      vb_island_state_free(s);
      return VB_ENOMEM;
    }
  }
  *out = s;
  return VB_OK;
}

/* Copy state src into dst, both sized for the same model: the block with
 * every array (modes, contacts, active laws, histories and the schemes'
 * per-contact state), then the scalars; the explicit work space is
 * scratch and stays dst's. */
void
vb_island_state_copy(vb_island_state *dst, const vb_island_state *src)
{
  const vb_island_model *m = src->model;
  memcpy(dst->block, src->block, state_block_bytes(m));
  /* the histories' state pointers were src's: point them into dst */
  for (int c = 0; c < m->nc; c++)
    if (src->hist[c].st)
      dst->hist[c].st = (double *)((char *)dst->block + ((char *)src->hist[c].st - (char *)src->block));
  dst->time = src->time;
  dst->ahead = src->ahead;
  dst->ahead_dot = src->ahead_dot;
  dst->power[0] = src->power[0];
  dst->power[1] = src->power[1];
  dst->kinetic = src->kinetic;
  dst->potential = src->potential;
  dst->dissipated = src->dissipated;
  dst->corrected = src->corrected;
  dst->external = src->external;
  dst->newton_failures = src->newton_failures;
  dst->global_solves = src->global_solves;
  dst->global_iterations = src->global_iterations;
  dst->state_drift = src->state_drift;
  /* the live list is in the block; a state that skips contacts must have
   * every contact pinned to be copied (lyapunov.c pins them) */
  dst->ntrk = src->ntrk;
  dst->solved = src->solved;
  dst->law_potential = src->law_potential;
  dst->neng = src->neng;
  dst->nwatch = src->nwatch;
  dst->contacts_finite = src->contacts_finite;
  vb_friction_state_copy(m->fric, dst->fric, src->fric);
}

/* b = a + r (b - a) on one array of n doubles. */
static void
blend(double *b, const double *a, double r, int n)
{
  for (int k = 0; k < n; k++)
    b[k] = a[k] + r * (b[k] - a[k]);
}

/* Move state b towards (r < 1) or away from a along their difference,
 * b = a + r (b - a), on the modes (q, v, qm, the explicit acceleration)
 * and the step forces; the contacts' compressions and rates are then
 * re-derived as a's plus S times the modes' differences, and a scheme's
 * state as a's plus the difference of its definition (ops->start) at the
 * two histories.  A part of b - a that the modes do not carry (the two-
 * level rate's parasitic (-1)^n mode, a scheme state's drift: neutral, and
 * invisible to a norm of the modes) is so dropped, not multiplied by r at
 * every renormalisation.  The prediction qt is redone at b's next step. */
void
vb_island_state_blend(vb_island_state *b, const vb_island_state *a, double r)
{
  const vb_island_model *m = a->model;
  int three = m->fam->info->levels == 3;
  blend(b->q, a->q, r, m->nm);
  blend(b->v, a->v, r, m->nm);
  blend(b->qm, a->qm, r, m->nm);
  blend(b->acc, a->acc, r, m->nm);
  for (int c = 0; c < m->nc; c++) {
    const double *row = m->S + (size_t)c * m->nmp;
    double sq = 0.0, sv = 0.0, sm = 0.0;
    for (int j = 0; j < m->nm; j++) {
      sq += row[j] * (b->q[j] - a->q[j]);
      sv += row[j] * (b->v[j] - a->v[j]);
      sm += row[j] * (b->qm[j] - a->qm[j]);
    }
    vb_chist *hb = &b->hist[c];
    const vb_chist *ha = &a->hist[c];
    hb->x = ha->x + sq;
    hb->xm = three ? ha->xm + sm : ha->xm + r * (hb->xm - ha->xm);
    hb->rate = three ? ha->rate + (sq - sm) / m->dt : ha->rate + sv;
    hb->roff = ha->roff + r * (hb->roff - ha->roff);
    hb->f = ha->f + r * (hb->f - ha->f);
    b->fbar[c] = a->fbar[c] + r * (b->fbar[c] - a->fbar[c]);
    const vb_scheme_ops *ops = m->cts[c].scheme->ops;
    double sb[8], sa[8];
    if (hb->st && ops->start && ops->nstate <= 8) {
      ops->start(&b->act[c], hb, sb);
      ops->start(&a->act[c], ha, sa);
      for (int k = 0; k < ops->nstate; k++)
        hb->st[k] = ha->st[k] + (sb[k] - sa[k]);
    } else if (hb->st) {
      blend(hb->st, ha->st, r, ops->nstate);
    }
  }
  if (m->fric)
    vb_friction_state_blend(m->fric, b->fric, a->fric, r);
  b->ahead = 0;
  b->contacts_finite = -1;
}

/* Displace a state's modes by dq[nm] (m) and their velocities by dv[nm]
 * (m/s) at the current step, the contacts' compressions and rates moved
 * with them through S; three-level: q^(n-1) by dq - dt dv, so that the
 * rate of the step into n moves by dv. */
void
vb_island_state_displace(const vb_island_model *m, vb_island_state *s, const double *dq,
                         const double *dv)
{
  int three = m->fam->info->levels == 3;
  for (int j = 0; j < m->nm; j++) {
    s->q[j] += dq[j];
    if (three)
      s->qm[j] += dq[j] - m->dt * dv[j];
    else
      s->v[j] += dv[j];
  }
  for (int c = 0; c < m->nc; c++) {
    const double *row = m->S + (size_t)c * m->nmp;
    double sx = 0.0, sv = 0.0;
    for (int j = 0; j < m->nm; j++) {
      sx += row[j] * dq[j];
      sv += row[j] * dv[j];
    }
    s->hist[c].x += sx;
    s->hist[c].rate += sv;
    s->hist[c].xm += three ? sx - m->dt * sv : 0.0;
  }
  s->ahead = 0;
  s->contacts_finite = -1;
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


/* The operands of point row r of the island (vb_point_eval): the row of
 * P, the state's arrays, whole blocks of the point's own body's modes;
 * fixed for a run, whose state arrays do not move. */
void
vb_island_point_ops(const vb_island_model *m, const vb_island_state *s, int r, vb_point_ops *ops)
{
  int three = m->fam->info->levels == 3;
  *ops = (vb_point_ops){.row = m->P + (size_t)r * m->nmp,
                        .q = s->q,
                        .w = three ? s->qm : s->v,
                        .from = m->point_from[r],
                        .to = m->point_to[r],
                        .three = three,
                        .dt = m->dt};
}

/* Recorded points of the island: u and v (three-level: rate of the step). */
void
vb_island_points(const vb_island_model *m, const vb_island_state *s, const int *rows, int nrows,
                 double *u, double *v)
{
  for (int k = 0; k < nrows; k++) {
    vb_point_ops ops;
    vb_island_point_ops(m, s, rows[k], &ops);
    vb_point_eval(&ops, &u[rows[k]], &v[rows[k]]);
  }
}

/* ----------------------------------------------------------- finiteness */

/* x * 0 is 0 for a finite x and NaN otherwise: the sum over every checked
 * quantity is 0 exactly when all are finite, whatever their size.  The
 * implicit families' step sums its contacts' part in passing
 * (contacts_finite); otherwise the contacts are checked here. */
int
vb_island_finite(const vb_island_model *m, const vb_island_state *s)
{
  (void)m; /* the contacts stepped: a skipped one keeps its finite history */
  double z = s->kinetic * 0.0 + s->potential * 0.0 + s->dissipated * 0.0 + s->external * 0.0 +
             s->corrected * 0.0;
  if (s->contacts_finite >= 0)
    return z == 0.0 && s->contacts_finite;
  for (int k = 0; k < s->ntrk; k++) {
    const vb_chist *hc = &s->hist[s->trk[k]];
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
  char who[VB_LABEL_MAX];
  for (int c = 0; c < m->nc; c++) {
    const vb_chist *hc = &s->hist[c];
    const double val[3] = {hc->x, hc->rate, hc->f};
    static const char *const name[3] = {"compression", "compression rate", "force"};
    for (int k = 0; k < 3; k++)
      if ((t = nonfinite_text(val[k])) != NULL) {
        snprintf(what, len, "contact %s: %s %s", vb_contact_label(sc, &s->act[c], who, sizeof who),
                 name[k], t);
        return 1;
      }
  }
  int three = m->fam->info->levels == 3;
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
      snprintf(what, len, "contact %s: compression solved for the step %s",
               vb_contact_label(sc, ct, who, sizeof who), t);
      return 1;
    }
    if (ct->scheme->ops->step_force) {
      double df, f = ct->scheme->ops->step_force(ct, &s->hist[c], m->dt, s->x1[c], &df);
      if ((t = nonfinite_text(f)) != NULL) {
        snprintf(what, len, "contact %s: step force %s at compression %.6g m",
                 vb_contact_label(sc, ct, who, sizeof who), t, s->x1[c]);
        return 1;
      }
    }
  }
  snprintf(what, len, "the step of the island of body '%s' failed", sc->bodies[m->bodies[0]].name);
  return 0;
}

