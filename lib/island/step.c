/* step.c - the scheme families: their table, and how each compiles,
 * starts, steps and counts the energy of an island.
 *
 * A family is a row of the table at the end (vb_family_ops, island.h):
 * the model compiles each mode through its `mode` hook (modes.c; model.c
 * explains the families' updates), the state is sized once from the model
 * (island.c) and vb_island_step(const model *, state *) allocates nothing.
 * Implicit families: one pass over the modes predicts (kernels.c), the
 * contacts are solved together (the K-method, solvers/kmethod.c, or the
 * scheme's own linear solve: the energy-quadratised family, solvers/sav.c),
 * one pass updates the modes and sums the step's energy.  Explicit family:
 * the scheme integrates the island as a system of equations with its own
 * work space (solvers/).  A scheme with per-contact state (ops->nstate)
 * has it started with the island and advanced after each step's solve. */
#include <math.h>
#include <string.h>
#include "island.h"
#include "kernels.h"
#include "friction.h"

static void onset_law(const vb_island_model *m, vb_island_state *s, int c);

/* ------------------------------------------------------------ energy */

/* Two-level and explicit modes: sum M (v^2 + w2 q^2) / 2 at n. */
static void
energy_two_level(const vb_island_model *m, const vb_island_state *s, double *kin, double *pot)
{
  for (int j = 0; j < m->nm; j++) {
    *kin += 0.5 * m->mass[j] * s->v[j] * s->v[j];
    *pot += 0.5 * m->mass[j] * m->w2[j] * s->q[j] * s->q[j];
  }
}

/* Three-level modes (Bilbao): M/2 ((q - qm)/dt)^2 + M w2 q qm / 2. */
static void
energy_three_level(const vb_island_model *m, const vb_island_state *s, double *kin, double *pot)
{
  double h = m->dt;
  for (int j = 0; j < m->nm; j++) {
    double r = (s->q[j] - s->qm[j]) / h;
    *kin += 0.5 * m->mass[j] * r * r;
    *pot += 0.5 * m->mass[j] * m->w2[j] * s->q[j] * s->qm[j];
  }
}

/* The family's discrete energy of the island's modes and contacts. */
void
vb_island_energy(const vb_island_model *m, vb_island_state *s)
{
  double kin = 0.0, pot = 0.0;
  m->fam->energy(m, s, &kin, &pot);
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &s->act[c];
    pot += ct->scheme->ops->potential ? ct->scheme->ops->potential(ct, &s->hist[c])
                                      : vb_law_potential(&ct->law, s->hist[c].x);
  }
  vb_friction_energy(m, s, &kin, &pot); /* the tangential coordinates' (issue 30) */
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
  s->global_solves = 0;
  s->global_iterations = 0;
  /* the start's forces are nonzero where in contact (solved: cleared at
   * the first step without a solve); nothing is known of the contacts */
  s->solved = 1;
  s->law_potential = 1;
  for (int c = 0; c < m->nc; c++) {
    double (*pot)(const vb_contact *, const vb_chist *) = m->cts[c].scheme->ops->potential;
    s->law_potential &= !pot || pot == vb_two_level_potential;
  }
  s->neng = -1;
  s->nwatch = 0;
  s->contacts_finite = -1;
  vb_island_external(m, 0.0, s->gen);
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = m->offsets[i] + k;
      s->q[j] = b->q0[k];
      s->v[j] = b->dq0[k];
      if (m->fam->start_velocity)
        s->v[j] = m->fam->start_velocity(m, j, 2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k],
                                         b->dq0[k], s->gen[j]);
      /* three-level: q^(-1) from the exact free response at t = -dt */
      s->qm[j] = vb_free_response(2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k], b->dq0[k],
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
    if (m->fam->info->levels == 3) {
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
    if (hc->st) {
      ct->scheme->ops->start(ct, hc, hc->st);
      s->state_drift = 0.0;
      s->drift[c] = 0.0;
    }
  }
  if (m->fam->refresh)
    m->fam->refresh(m, s);
  /* the tangential coordinates and friction (issue 30), whose energy
   * vb_island_energy adds */
  vb_friction_start(m, s);
  vb_clearance_start(m, s); /* a circular clearance's histories (issue 30) */
  vb_moving_start(m, s);    /* a moving contact point's (issue 30, item 5) */
  vb_island_energy(m, s);
  vb_sparse_start(m, s);
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
  int three = m->fam->info->levels == 3;
  if (!s->onset)
    return; /* every active law is its compiled law (island.c's copy) */
  for (int k = 0; k < s->ntrk; k++) {
    int c = s->trk[k];
    const vb_chist *hc = &s->hist[c];
    if (!law_engaged(&m->cts[c].law, hc->x) &&
        !(three && law_engaged(&m->cts[c].law, hc->xm)))
      onset_law(m, s, c);
  }
}

/* Two-level: the roff of a contact with history hc in rate(n+1) =
 * 2 (x1 - x)/h + roff, m/s, from its wall-and-gap compression at n+1 and n
 * (xd1, xdrv, m) and its rates at n (xdrv_rate) and n+1 (r1), m/s: the walls'
 * motion exact (Papetti eq 20); set before a solve (am1's step force
 * reads it) and at the update. */
static inline double
rate_offset(const vb_chist *hc, double xd1, double xdrv, double xdrv_rate, double r1, double h)
{
  return -hc->rate - 2.0 * (xd1 - xdrv) / h + xdrv_rate + r1;
}

/* Whether any stepped contact may act this step (vb_kmethod_may_act,
 * inline: penetration at the prediction xt, at n and, three-level, at
 * n-1), the first that may deciding.  Most steps of a distributed contact
 * ask every contact and find none: with every law one-sided and never
 * always engaged, the penetration is x itself (law.h), and the same
 * comparisons are made on the arrays directly. */
static int
any_may_act(const vb_island_state *s, int three)
{
  if (s->one_sided && !three) {
    /* penetration = x (law.h), the same comparisons */
    const int *trk = s->trk;
    const double *xt = s->xt;
    const vb_chist *hist = s->hist;
    for (int k = 0, n = s->ntrk; k < n; k++)
      if (xt[trk[k]] > 0.0 || hist[trk[k]].x > 0.0)
        return 1;
    return 0;
  }
  for (int k = 0; k < s->ntrk; k++) {
    int c = s->trk[k];
    if (vb_kmethod_may_act(&s->act[c], &s->hist[c], s->xt[c], three))
      return 1;
  }
  return 0;
}

/* Find the step forces fbar of an island's contacts (the family's solve:
 * the K-method or the scheme's linear solve); VB_OK,
 * VB_ENOCONV or VB_EDIVERGED.  Sets x1 to the new compressions and
 * s->solved.  A step where no contact can act (every predicted and past
 * compression out of contact) pays for no solve: fbar = 0 is the
 * solution and x1 = xt (the update reads xt), and the forces, iterations
 * and fallbacks are cleared only after a step that solved (they are
 * zero otherwise). */
static int
solve_contacts(const vb_island_model *m, vb_island_state *s)
{
  int nc = m->nc, three = m->fam->info->levels == 3;
  if (!any_may_act(s, three)) {
    if (s->solved) {
      memset(s->fbar, 0, (size_t)nc * sizeof *s->fbar);
      memset(s->iterations, 0, (size_t)nc * sizeof *s->iterations);
      memset(s->fallback, 0, (size_t)nc * sizeof *s->fallback);
      s->solved = 0;
    }
    return VB_OK;
  }
  s->solved = 1;
  for (int k = 0; !three && k < s->ntrk; k++) {
    int c = s->trk[k];
    s->hist[c].roff = rate_offset(&s->hist[c], s->xd_next[c], s->xdrv[c], s->xdrv_rate[c],
                                  s->rd_next[c], m->dt);
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
      .set = s->sp ? s->trk : NULL,
      .nset = s->ntrk,
      .gws = s->gws,
      .grank = m->nm,
      .global_solves = &s->global_solves,
      .global_iterations = &s->global_iterations,
      .S = m->S,
      .cc = m->cc,
      .nm = m->nm,
      .nmp = m->nmp,
      .kws = s->kws,
      .kcap = m->kcap,
      .njac = s->njac,
  };
  return m->fam->solve(&p);
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
  double dot = 0.0;
  if (s->ahead) {
    /* the previous update already predicted this step */
    s->ahead = 0;
    dot = s->ahead_dot;
  } else if (s->sp) {
    vb_kernel_predict(nmp, s->q, w, m->ca, m->cb, m->cc, s->gen, s->qt, NULL);
  } else {
    dot = vb_kernel_predict(nmp, s->q, w, m->ca, m->cb, m->cc, s->gen, s->qt,
                            nc == 1 ? m->S : NULL);
  }
  if (s->sp) {
    /* the contacts that may act, their S_c . qt (sparse.c) */
    vb_sparse_select(m, s, t1);
    return;
  }
  /* every contact's S_c . qt (one contact: already summed in passing) */
  if (nc == 1)
    s->xt[0] = dot;
  else
    vb_kernel_dots(nmp, nc, m->S, s->qt, s->xt);
  for (int c = 0; c < nc; c++) {
    xd1[c] = vb_contact_drive(sc, &m->cts[c], t1, &r1[c]);
    s->xt[c] += xd1[c];
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
  if (!s->solved)
    return 0.0; /* every force is 0 */
  for (int k = 0; k < s->ntrk; k++) {
    int c = s->trk[k];
    if (s->fbar[c] != 0.0)
      vb_kernel_force(nmp, s->qt, m->cc, m->S + (size_t)c * nmp, s->fbar[c]);
  }
  return 0.0;
}

/* Contact c's potential in its scheme's discrete energy, J; `engaged`:
 * whether it is in contact at n.  A scheme whose potential is its law's
 * V(x) at n (vb_two_level_potential, or none given) holds exactly +0.0
 * out of contact, so it is not evaluated there: a sum that skips it has
 * the same bits (a sum of non-negative terms from +0.0 is never -0.0, and
 * adding +0.0 leaves any other value as it is). */
static inline double
potential_of(const vb_contact *ct, const vb_chist *hc, int engaged)
{
  double (*pot)(const vb_contact *, const vb_chist *) = ct->scheme->ops->potential;
  if (!pot || pot == vb_two_level_potential)
    return engaged ? law_potential(&ct->law, hc->x) : 0.0;
  return pot(ct, hc);
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
  if (s->sp) {
    /* skipped contacts that the forces may bring into contact rejoin, and
     * the step is solved again with them (sparse.c) */
    while (rc != VB_EDIVERGED) {
      vb_sparse_save(m, s);
      apply_forces(m, s);
      if (vb_sparse_check(m, s) == 0)
        break;
      rc = solve_contacts(m, s);
    }
    *f0 = 0.0;
    return rc;
  }
  *f0 = rc == VB_EDIVERGED ? 0.0 : apply_forces(m, s);
  return rc;
}

/* Book an implicit step's end from the kernel's sums (dissipated, work,
 * kinetic and potential energy twice over, the next step's prediction
 * dot S): the step's dissipated and external work diss and work (the
 * sums' with the contacts' added), J, the contacts' potentials pot, J,
 * and whether qt already holds the next step's prediction (ahead). */
static void
account(vb_island_state *s, const double *sums, int ahead, double diss, double work, double pot)
{
  s->ahead = ahead;
  s->ahead_dot = sums[4];
  s->dissipated += diss;
  s->external += work;
  s->kinetic = 0.5 * sums[2];
  s->potential = 0.5 * sums[3] + pot;
}

/* Advance contact c's scheme state over the step into x1 (h still at n). */
static inline void
advance_state(vb_island_state *s, int c, double h, double x1)
{
  const vb_contact *ct = &s->act[c];
  ct->scheme->ops->advance(ct, &s->hist[c], h, x1, s->hist[c].st);
}

/* The largest drift of the contacts' scheme states from their definition
 * after a step, into s->drift (each contact's) and s->state_drift (the
 * island's). */
static void
track_drift(const vb_island_model *m, vb_island_state *s)
{
  (void)m;
  if (isnan(s->state_drift))
    return; /* no contact has a scheme state (island.c: NaN until one starts) */
  for (int k = 0; k < s->ntrk; k++) {
    int c = s->trk[k];
    const vb_contact *ct = &s->act[c];
    if (s->hist[c].st && ct->scheme->ops->state_drift) {
      s->drift[c] = fmax(s->drift[c], ct->scheme->ops->state_drift(ct, &s->hist[c]));
      s->state_drift = fmax(s->state_drift, s->drift[c]);
    }
  }
}

/* Two-level prediction: the trapezoidal average of the external forces,
 * qt = ca q + cb v + cc gen (each contact's roff: rate_offset). */
static void
predict_two_level(const vb_island_model *m, vb_island_state *s, long n)
{
  int nm = m->nm;
  double h = m->dt, t1 = (n + 1) * h;
  double *restrict gen = s->gen;
  /* the trapezoidal average of the external forces */
  if (m->nf > 0) {
    double *g1 = s->scratch;
    vb_island_external(m, n * h, gen);
    vb_island_external(m, t1, g1);
    for (int j = 0; j < nm; j++)
      gen[j] = 0.5 * (gen[j] + g1[j]);
  }
  predict(m, s, s->v, t1);
}

/* Two-level step of an island without contacts (bodies in no contact):
 * the trapezoidal average of the external forces, then one pass of the
 * update in increments (vb_kernel_free2), so that the kinetic energy
 * follows the external work to round-off however far the bodies move. */
static int
step_free_two_level(const vb_island_model *m, vb_island_state *s, long n)
{
  double h = m->dt, *restrict gen = s->gen, sums[4];
  if (m->nf > 0) {
    double *g1 = s->scratch;
    vb_island_external(m, n * h, gen);
    vb_island_external(m, (n + 1) * h, g1);
    for (int j = 0; j < m->nm; j++)
      gen[j] = 0.5 * (gen[j] + g1[j]);
  }
  vb_kernel_free2(m->nmp, h, s->q, s->v, m->ca, m->cb, m->cc, gen, m->mass, m->dcoef, m->mw2,
                  sums);
  s->ahead = 0;
  s->dissipated += sums[0];
  s->external += sums[1];
  s->kinetic = 0.5 * sums[2];
  s->potential = 0.5 * sums[3];
  return VB_OK;
}

/* Two-level: the schemes' part of moving every stepped contact on to n+1
 * after the update: its roff (the solve's, where there was one: am1's held
 * force and dissipation read it), the step's dissipation and work added
 * to *diss and *work (J), its scheme state advanced and its held force at
 * n+1 into f1[c] (N). */
static void
scheme_pass_two_level(const vb_island_model *m, vb_island_state *s, double *f1, double *diss,
                      double *work)
{
  double h = m->dt, dsum = *diss, wsum = *work;
  const int *trk = s->trk;
  int ntrk = s->ntrk, one_sided = s->one_sided;
  const vb_contact *act = s->act;
  vb_chist *hist = s->hist;
  const double *x1s = s->solved ? s->x1 : s->xt, *fbar = s->fbar;
  const double *xd1 = s->xd_next, *r1 = s->rd_next, *xdrv = s->xdrv, *xdrv_rate = s->xdrv_rate;
  for (int k = 0; k < ntrk; k++) {
    int c = trk[k];
    const vb_contact *ct = &act[c];
    vb_chist *hc = &hist[c];
    double x1 = x1s[c], fb = fbar[c];
    hc->roff = rate_offset(hc, xd1[c], xdrv[c], xdrv_rate[c], r1[c], h);
    /* engaged: penetration > 0, x itself for one-sided laws (law.h) */
    if (fb != 0.0 || (one_sided ? hc->x > 0.0 : law_engaged(&ct->law, hc->x))) {
      dsum += ct->scheme->ops->dissipation(ct, hc, h, x1, fb);
      wsum += fb * (xd1[c] - xdrv[c]);
    }
    if (hc->st)
      advance_state(s, c, h, x1);
    f1[c] = ct->scheme->ops->held_force(ct, hc, h, x1, fb);
  }
  *diss = dsum;
  *work = wsum;
}

/* Two-level: every stepped contact moved on to n+1 after the update, in
 * two passes: the schemes' (scheme_pass_two_level, with the calls), then
 * the histories (the values at n kept in xb, rb for the events), listed in
 * s->eng when in contact, whether x, rate and f are finite
 * (s->contacts_finite); returns the sum of the potentials, J.  The arrays
 * are held in locals (the stores into the histories could otherwise alias
 * the state's pointers), and the second pass makes no call, so that its
 * values stay in registers. */
static double
move_on_two_level(const vb_island_model *m, vb_island_state *s, double *diss, double *work)
{
  double h = m->dt, pot = 0.0, z = 0.0, *f1s = s->rhs; /* scratch after the solve */
  scheme_pass_two_level(m, s, f1s, diss, work);
  const int *trk = s->trk;
  int ntrk = s->ntrk, neng = 0, *eng = s->eng, undriven = s->undriven;
  int law_pot = s->law_potential, one_sided = s->one_sided;
  const vb_contact *act = s->act;
  vb_chist *hist = s->hist;
  const double *x1s = s->solved ? s->x1 : s->xt;
  double *xb = s->xb, *rb = s->rb;
  for (int k = 0; k < ntrk; k++) {
    int c = trk[k];
    vb_chist *hc = &hist[c];
    double x1 = x1s[c], x0 = hc->x, r0 = hc->rate, f1 = f1s[c];
    double rate1 = 2.0 * (x1 - x0) / h + hc->roff;
    xb[c] = x0;
    rb[c] = r0;
    hc->xm = x0;
    hc->rate = rate1;
    hc->x = x1;
    hc->f = f1;
    if (!undriven)
      shift_drive(s, c, s->xd_next[c], s->rd_next[c]); /* else the same values */
    int engaged = one_sided ? x1 > 0.0 : law_engaged(&act[c].law, x1);
    if (engaged)
      eng[neng++] = c;
    if (!law_pot)
      pot += potential_of(&act[c], hc, engaged);
    z += x1 * 0.0 + rate1 * 0.0 + f1 * 0.0;
  }
  /* every potential V(x): those in contact, in the same order */
  for (int k = 0; law_pot && k < neng; k++)
    pot += law_potential(&act[eng[k]].law, hist[eng[k]].x);
  s->neng = neng;
  s->contacts_finite = z == 0.0;
  return pot;
}

/* Two-level family step (trapezoidal modes).  One pass predicts, the
 * contacts are solved, one pass updates the modes and sums the step's
 * dissipation, external work and the new modal energy. */
static int
step_two_level(const vb_island_model *m, vb_island_state *s, long n)
{
  int nc = m->nc;
  if (nc == 0)
    return step_free_two_level(m, s, n);
  double h = m->dt;
  m->fam->predict(m, s, n);
  double f0, sums[5];
  int rc = contact_forces(m, s, &f0);
  if (rc == VB_EDIVERGED)
    return rc;
  /* with a constant generalised force, predict the next step in passing */
  int ahead = m->nf == 0;
  vb_kernel_update2(m->nmp, h, s->qt, m->cc, m->S, f0, s->q, s->v, m->mass, m->dcoef, m->mw2,
                    s->gen, ahead, m->has_gen, m->ca, m->cb, m->S, sums);
  double diss = sums[0], work = sums[1], pot = move_on_two_level(m, s, &diss, &work);
  account(s, sums, ahead, diss, work, pot);
  track_drift(m, s);
  return rc;
}

/* Three-level prediction: qt = a1 q - a2 qm + beta gen. */
static void
predict_three_level(const vb_island_model *m, vb_island_state *s, long n)
{
  double h = m->dt, t1 = (n + 1) * h;
  double *restrict qm = s->qm, *restrict mqm = s->scratch;
  if (m->nf > 0)
    vb_island_external(m, n * h, s->gen);
  if (!s->ahead) {
#pragma omp simd
    for (int j = 0; j < m->nmp; j++)
      mqm[j] = -qm[j];
  }
  predict(m, s, mqm, t1);
}

/* Three-level: every stepped contact moved on to n+1 after the update, in
 * one pass (move_on_two_level's, with the secant rate and the work over
 * two steps); returns the sum of the potentials, J. */
static double
move_on_three_level(const vb_island_model *m, vb_island_state *s, double *diss, double *work)
{
  double h = m->dt, dsum = *diss, wsum = *work, pot = 0.0, z = 0.0;
  const int *trk = s->trk;
  int ntrk = s->ntrk, neng = 0, *eng = s->eng, undriven = s->undriven;
  const int *fallback = s->fallback;
  const vb_contact *act = s->act;
  vb_chist *hist = s->hist;
  const double *x1s = s->solved ? s->x1 : s->xt, *fbar = s->fbar;
  const double *xd1 = s->xd_next, *r1 = s->rd_next, *xdrv_m = s->xdrv_m;
  double *xb = s->xb, *rb = s->rb;
  for (int k = 0; k < ntrk; k++) {
    int c = trk[k];
    const vb_contact *ct = &act[c];
    vb_chist *hc = &hist[c];
    double x1 = x1s[c], fb = fbar[c], x0 = hc->x, xm0 = hc->xm;
    if (fb != 0.0 || law_engaged(&ct->law, x0) || law_engaged(&ct->law, xm0)) {
      const vb_scheme *sch = fallback[c] ? ct->scheme->fallback : ct->scheme;
      dsum += sch->ops->dissipation(ct, hc, h, x1, fb);
      wsum += 0.5 * fb * (xd1[c] - xdrv_m[c]);
    }
    if (hc->st)
      advance_state(s, c, h, x1);
    double f1 = ct->scheme->ops->held_force(ct, hc, h, x1, fb);
    double rate1 = (x1 - x0) / h;
    xb[c] = x0;
    rb[c] = hc->rate;
    hc->xm = x0;
    hc->rate = rate1;
    hc->x = x1;
    hc->f = f1;
    if (!undriven)
      shift_drive(s, c, xd1[c], r1[c]); /* else the same values */
    int engaged = law_engaged(&ct->law, x1);
    if (engaged)
      eng[neng++] = c;
    /* three-level potentials average two levels (x0 is now xm) */
    pot += potential_of(ct, hc, engaged || law_engaged(&ct->law, x0));
    z += x1 * 0.0 + rate1 * 0.0 + f1 * 0.0;
  }
  s->neng = neng;
  s->contacts_finite = z == 0.0;
  *diss = dsum;
  *work = wsum;
  return pot;
}

/* Three-level family step (exact centred modes); also the energy-
 * quadratised family's, whose contacts its own solve finds. */
static int
step_three_level(const vb_island_model *m, vb_island_state *s, long n)
{
  double h = m->dt;
  m->fam->predict(m, s, n);
  double f0, sums[5];
  int rc = contact_forces(m, s, &f0);
  if (rc == VB_EDIVERGED)
    return rc;
  int ahead = m->nf == 0;
  vb_kernel_update3(m->nmp, h, s->qt, m->cc, m->S, f0, s->q, s->qm, m->mass, m->dcoef, m->mw2,
                    s->gen, ahead, m->ca, m->cb, m->S, sums);
  double diss = sums[0], work = sums[1], pot = move_on_three_level(m, s, &diss, &work);
  account(s, sums, ahead, diss, work, pot);
  track_drift(m, s);
  return rc;
}

/* Explicit family: accelerations and powers of the state as it is now
 * (after the start and after a correction). */
static void
refresh_explicit(const vb_island_model *m, vb_island_state *s)
{
  vb_island_external(m, s->time, s->gen);
  vb_island_accel(m, s->q, s->v, s->fbar, s->gen, s->acc);
  vb_island_explicit_power(m, s, s->time, &s->power[0], &s->power[1]);
}

/* Explicit family step: the scheme integrates, the island accounts. */
static int
step_explicit(const vb_island_model *m, vb_island_state *s, long n)
{
  double h = m->dt, t1 = (n + 1) * h;
  s->time = n * h;
  for (int c = 0; c < m->nc; c++)
    s->iterations[c] = s->fallback[c] = 0;
  s->solved = 0;     /* no Newton: nothing for the run to count */
  s->neng = -1;      /* the run's events look at every contact */
  s->contacts_finite = -1;
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
    s->xb[c] = hc->x;
    s->rb[c] = hc->rate;
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
  if (rc != VB_EDIVERGED)
    vb_island_energy(m, s);
  return rc;
}

/* The energy-quadratised family's solve: the scheme's one linear solve
 * (every contact of such an island has the family's linear step force). */
static int
solve_linear(const vb_kproblem *p)
{
  return p->cts[0].scheme->ops->solve_linear(p);
}

/* The nonsmooth family's solve: the scheme's impulses (every contact of
 * such an island is rigid, solvers/moreau_jean.c). */
static int
solve_impulse(const vb_kproblem *p)
{
  return p->cts[0].scheme->ops->solve_impulse(p);
}

/* Nonsmooth family step: the two-level step with impulses for forces
 * (doc/rigid.md).  A rigid contact acts without penetrating, so the
 * step's list of contacts in contact (s->eng, by penetration) does not
 * say which acted: the events look at every contact (neng = -1). */
static int
step_nonsmooth(const vb_island_model *m, vb_island_state *s, long n)
{
  int rc = step_two_level(m, s, n);
  s->neng = -1;
  return rc;
}

/* ---------------------------------------------------------------- table */

/* The families, one row each, indexed by vb_family. */
static const vb_family_ops families[] = {
    [VB_FAMILY_TWO_LEVEL] =
        {
            .info = &vb_families[VB_FAMILY_TWO_LEVEL],
            .mode = vb_mode_two_level,
            .start_velocity = vb_start_two_level,
            .predict = predict_two_level,
            .solve = vb_kmethod_solve,
            .step = step_two_level,
            .energy = energy_two_level,
        },
    [VB_FAMILY_THREE_LEVEL] =
        {
            .info = &vb_families[VB_FAMILY_THREE_LEVEL],
            .mode = vb_mode_three_level,
            .predict = predict_three_level,
            .solve = vb_kmethod_solve,
            .step = step_three_level,
            .energy = energy_three_level,
        },
    [VB_FAMILY_EXPLICIT] =
        {
            .info = &vb_families[VB_FAMILY_EXPLICIT],
            .mode = vb_mode_explicit,
            .refresh = refresh_explicit,
            .step = step_explicit,
            .energy = energy_two_level,
        },
    /* energy quadratisation (solvers/sav.c): three-level modes, contacts
     * by one linear solve */
    [VB_FAMILY_SAV] =
        {
            .info = &vb_families[VB_FAMILY_SAV],
            .mode = vb_mode_three_level,
            .predict = predict_three_level,
            .solve = solve_linear,
            .step = step_three_level,
            .energy = energy_three_level,
        },
    /* rigid contacts (solvers/moreau_jean.c): two-level modes, impulses */
    [VB_FAMILY_NONSMOOTH] =
        {
            .info = &vb_families[VB_FAMILY_NONSMOOTH],
            .mode = vb_mode_two_level,
            .start_velocity = vb_start_two_level,
            .predict = predict_two_level,
            .solve = solve_impulse,
            .step = step_nonsmooth,
            .energy = energy_two_level,
        },
};

/* The row of a family. */
const vb_family_ops *
vb_family_of(vb_family f)
{
  return (unsigned)f < sizeof families / sizeof families[0] ? &families[f] : NULL;
}

/* Advance an island one step. */
int
vb_island_step(const vb_island_model *m, vb_island_state *s, long n)
{
  if (m->clr || m->mov) {
    /* an island with a circular clearance (clearance.c) or a moving
     * contact point (moving.c) is stepped whole,
     * under the trapezoidal average of the external forces, and its energy
     * at n+1 is the family's */
    if (m->nf > 0) {
      double *g1 = s->scratch;
      vb_island_external(m, n * m->dt, s->gen);
      vb_island_external(m, (n + 1) * m->dt, g1);
      for (int j = 0; j < m->nm; j++)
        s->gen[j] = 0.5 * (s->gen[j] + g1[j]);
    }
    int rc = m->clr ? vb_clearance_step(m, s, n) : vb_moving_step(m, s, n);
    vb_island_energy(m, s);
    s->time = (n + 1) * m->dt;
    if (rc == VB_ENOCONV)
      s->newton_failures++;
    return rc;
  }
  if (s->fric)
    s->fric->stepping = 1;
  int rc = m->fam->step(m, s, n);
  /* the tangential coordinates and friction, with the step's normal
   * forces (issue 30; friction.c), their energy at n+1 added to the
   * family's */
  if (s->fric) {
    s->fric->stepping = 0;
    if (rc != VB_EDIVERGED) {
      int rf = vb_friction_step(m, s, n);
      rc = rc == VB_OK ? rf : rc;
    }
  }
  s->time = (n + 1) * m->dt;
  if (rc == VB_ENOCONV)
    s->newton_failures++;
  return rc;
}
