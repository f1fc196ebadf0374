/* sparse.c - an island of many contacts steps only those that may act.
 *
 * Every step of an implicit island forms each contact's predicted
 * compression S_c . qt (nc x nm multiply-adds) and loops over every
 * contact; on a string lying along a fretboard (862 points) that is
 * almost all of a step's cost although a few points are in contact.  Here
 * a contact that is out of contact, with no force, and that cannot engage
 * this step is skipped ("stale": its history keeps the values of the step
 * it left).  The test is a bound, not a prediction:
 *
 *   a contact's compression is x_c(q) = S_c . q + d_c, d_c constant (its
 *   walls and gap are not driven).  Against a reference qr with
 *   xr_c = S_c . qr known, Cauchy-Schwarz on each group g of modes gives
 *     |x_c(q) - xr_c - d_c| <= sum_g |S_c|_g |q - qr|_g  =: b_c(q),
 *   and the penetration p(x) (x, or |x| - h two-sided; law.c) is
 *   1-Lipschitz in x, so the contact is out of contact at q whenever
 *   b_c(q) < -p(xr_c + d_c) =: its margin.
 *
 * The groups are blocks of modes of doubling width (8, 8, 16, 32, ...):
 * a string's low modes carry its large slow motion and have small norms
 * |S_c|_g, its high modes the reverse, so the bound follows the motion
 * that matters.  A step costs O(nm) for the group distances |qt - qr|_g,
 * O(groups x nc) for the bounds and O(nm) per live contact; the reference
 * is moved to the prediction (nc dot products) when the live contacts
 * that cannot act have cost as much since the last move.
 *
 * Each step: stale contacts whose bound at the prediction qt reaches their
 * margin rejoin (their history at n from the modes: x = S_c q + d_c, the
 * rate S_c v (two-level) or xm = S_c qm (three-level), which equal the
 * stepped recurrences to round-off); the live set is solved (kmethod.c on
 * the set); after the forces are applied, the bound at the new modes
 * q^(n+1) is checked again, and a stale contact that might now engage
 * rejoins and the step is solved again, so that the solve is the one the
 * whole island would have (every skipped contact would have stayed out).
 * A live contact leaves at the next step when it is out of contact at n
 * and n-1 with no force and no potential and its bound is below half its
 * margin.  While every contact is live and a scan for leavers finds
 * none (a bridge whose points all stay near the string: the tanpura),
 * the next scan waits 1, 2, 4, ... up to SCAN_WAIT_MAX steps, so that an
 * island where nothing can be skipped pays for the scan once in that many
 * steps instead of every step (a contact leaves a few steps late at
 * most); any leaver, or any skipped contact, scans every step again.  The
 * set never changes the physics: results move by round-off only (the
 * rejoining histories).  At a recorded sample a skipped contact's
 * compression is given by its bound from above (record.c's max_compression:
 * exact for every contact that came into contact, since it is live while
 * in contact; for one that never did, an upper bound of its closest
 * approach that is still out of contact; doc/format.md).
 *
 * Islands that skip: K-method families (two-level, three-level), at least
 * SPARSE_MIN_CONTACTS contacts, none driven (their drive is the constant
 * of the start, bit for bit what vb_contact_drive gives at any t), always engaged, corrected
 * (Papetti), with a scheme state or a closed form.  The no_skip test hook
 * (vb_test_control; VIBRO_NO_SKIP=1 for the program) turns it off: the
 * tests' and the benchmarks' "before". */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "island.h"
#include "kernels.h"

/* Contacts below which an island steps every contact (the bookkeeping
 * costs more than it saves). */
#define SPARSE_MIN_CONTACTS 16
/* Most groups of modes (widths 8, 8, 16, ...: 2^17 modes). */
#define GROUPS_MAX 16
/* Relative allowance for round-off in the bound and the margin: far above
 * the rounding of a dot product of 10^5 terms (1e-11 relative). */
#define SLACK 1e-9
/* Contacts per block: a block whose largest bound is below its smallest
 * margin is passed over whole. */
#define BLOCK 16
/* A live contact leaves only when its margin exceeds its bound by this
 * many steps of the bound's growth at the modes' last step (the triangle
 * inequality: the bound grows by at most sum_g |S_c|_g |q^(n+1) - q^n|_g a
 * step), so that it stays out for about as many steps: a contact that
 * hovers near its barrier would otherwise leave and rejoin every few
 * steps, each rejoin costing four dot products. */
#define LEAVE_STEPS 16
/* Most steps between two scans for leavers while every contact is live
 * and the scans find none (a power of 2). */
#define SCAN_WAIT_MAX 64

typedef struct vb_sparse vb_sparse;
struct vb_sparse {
  int ng, gfrom[GROUPS_MAX + 1]; /* groups of modes [gfrom[g], gfrom[g+1]) */
  double *sn;                    /* [ng][nc] |S_c|_g, m per unit modal displacement */
  double *snorm;                 /* [nc] |S_c| */
  double *qref;                  /* [nmp] the reference modes qr, m */
  double *qsave;                 /* [nmp] the prediction before the forces, m */
  double *xref;                  /* [nc] S_c . qr, m */
  double *margin;                /* [nc] -p(xr_c + d_c) less its slack, m */
  double *bound;                 /* [nc] b_c at the modes of the last bounds(), m,
                                    where its block is not passed over */
  int nb;                        /* blocks of BLOCK contacts */
  double *snmax;                 /* [ng][nb] the block's largest |S_c|_g */
  double *smax;                  /* [nb] its largest |S_c| */
  double *minmargin;             /* [nb] its smallest margin, m */
  double *blockb;                /* [nb] its bound at the last bounds(), m */
  int *passed;                   /* [nb] whether blockb is below minmargin */
  double *rejoin_x, *rejoin_rate; /* [nc] histories of the rejoined at n, m, m/s */
  double *fprev;                  /* [nc] the last step's forces, N: a step solved
                                     again starts its Newton from them, as the first
                                     solve did (kmethod.c's warm start) */
  int *stale, *pinned, *rejoined; /* [nc] */
  int nrejoined;
  double dist[GROUPS_MAX]; /* |q - qr|_g, m */
  double move[GROUPS_MAX]; /* |qt - qt_prev|_g of the last step, m */
  double *qprev;           /* [nmp] the last step's prediction, m */
  double qscale;           /* |q| + |qr|, m: the round-off allowance's scale */
  double qrnorm;           /* |qr|, m */
  double t1;               /* the step's end, s */
  double waste;            /* live contacts that could not act, since the reference moved */
  int wait;                /* steps to the next scan for leavers */
  int idle;                /* its wait when it finds none, every contact live (0: none) */
  int waited;              /* the last step did not scan (the distances are older) */
  long refreshes, rejoins, live_steps, scans;
};

/* Whether island m can skip contacts (`undriven`: no contact's walls or
 * gap are driven). */
static int
eligible(const vb_island_model *m, int undriven)
{
  if (vb_test_hooks_now()->no_skip || !undriven || m->nc < SPARSE_MIN_CONTACTS ||
      m->fam->solve != vb_kmethod_solve)
    return 0;
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &m->cts[c];
    if (ct->scheme->ops->solve_single || ct->scheme->ops->nstate > 0 || ct->corrections ||
        vb_law_info_of(ct->law.kind)->always_engaged)
      return 0;
  }
  return 1;
}

/* The groups of nmp modes: widths 8, 8, 16, 32, ..., the last to nmp. */
static void
groups(vb_sparse *sp, int nmp)
{
  int at = 0, w = 8;
  sp->ng = 0;
  sp->gfrom[0] = 0;
  while (at < nmp) {
    int to = sp->ng == GROUPS_MAX - 1 || at + w > nmp ? nmp : at + w;
    sp->gfrom[++sp->ng] = to;
    if (sp->ng > 1)
      w *= 2;
    at = to;
  }
}

/* Set up the skipping (island.h). */
int
vb_sparse_alloc(const vb_island_model *m, vb_island_state *s, int undriven)
{
  s->sp = NULL;
  if (!eligible(m, undriven))
    return VB_OK;
  size_t nc = (size_t)m->nc, nmp = (size_t)m->nmp;
  vb_sparse *sp = calloc(1, sizeof *sp);
  if (!sp)
    return VB_ENOMEM;
  groups(sp, m->nmp);
  size_t ng = (size_t)sp->ng, nb = (nc + BLOCK - 1) / BLOCK;
  sp->nb = (int)nb;
  sp->sn = malloc((ng * nc + 7 * nc + 3 * nmp + (ng + 3) * nb) * sizeof(double));
  sp->stale = calloc(3 * nc + nb, sizeof(int));
  if (!sp->sn || !sp->stale) {
    vb_sparse_free(sp);
    return VB_ENOMEM;
  }
  double *p = sp->sn + ng * nc;
  double **arr[] = {&sp->snorm,    &sp->xref,        &sp->margin, &sp->bound,
                    &sp->rejoin_x, &sp->rejoin_rate, &sp->fprev};
  for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++, p += nc)
    *arr[k] = p;
  sp->qref = p;
  sp->qsave = p + nmp;
  sp->qprev = sp->qsave + nmp;
  sp->snmax = sp->qprev + nmp;
  sp->smax = sp->snmax + ng * nb;
  sp->minmargin = sp->smax + nb;
  sp->blockb = sp->minmargin + nb;
  sp->pinned = sp->stale + nc;
  sp->rejoined = sp->pinned + nc;
  sp->passed = sp->rejoined + nc;
  for (int c = 0; c < m->nc; c++) {
    const double *row = m->S + (size_t)c * nmp;
    double all = 0.0;
    for (int g = 0; g < sp->ng; g++) {
      double a = 0.0;
      for (int j = sp->gfrom[g]; j < sp->gfrom[g + 1]; j++)
        a += row[j] * row[j];
      sp->sn[(size_t)g * nc + c] = sqrt(a);
      all += a;
    }
    sp->snorm[c] = sqrt(all);
  }
  for (int b = 0; b < sp->nb; b++) {
    int to = (b + 1) * BLOCK < m->nc ? (b + 1) * BLOCK : m->nc;
    sp->smax[b] = 0.0;
    for (int g = 0; g < sp->ng; g++) {
      double *mx = &sp->snmax[(size_t)g * nb + b];
      *mx = 0.0;
      for (int c = b * BLOCK; c < to; c++)
        *mx = fmax(*mx, sp->sn[(size_t)g * nc + c]);
    }
    for (int c = b * BLOCK; c < to; c++)
      sp->smax[b] = fmax(sp->smax[b], sp->snorm[c]);
  }
  s->sp = sp;
  return VB_OK;
}

void
vb_sparse_free(vb_sparse *sp)
{
  if (!sp)
    return;
  free(sp->sn);
  free(sp->stale);
  free(sp);
}

/* The group distances |q - qr|_g and the scale |q| + |qr| <= 2 |qr| +
 * |q - qr|. */
static void
distances(vb_sparse *sp, const double *q)
{
  double d2 = 0.0;
  for (int g = 0; g < sp->ng; g++) {
    double a = vb_kernel_dist2(sp->gfrom[g], sp->gfrom[g + 1], q, sp->qref);
    sp->dist[g] = sqrt(a);
    d2 += a;
  }
  sp->qscale = 2.0 * sp->qrnorm + sqrt(d2);
}

/* Contact c's own bound at the modes of the last distances(), with the
 * round-off allowance, m. */
static inline double
contact_bound(const vb_island_model *m, const vb_sparse *sp, int c)
{
  double x = SLACK * sp->snorm[c] * sp->qscale;
  for (int g = 0; g < sp->ng; g++)
    x += sp->sn[(size_t)g * m->nc + c] * sp->dist[g];
  return x;
}

/* The bounds at the modes of the last distances(): each block's from its
 * largest norms, and where that does not pass the block over, each of its
 * skipped contacts' (a live contact's is formed when asked, bound_of). */
static void
bounds(const vb_island_model *m, vb_sparse *sp)
{
  int nc = m->nc, nb = sp->nb, ng = sp->ng;
  for (int b = 0; b < nb; b++) {
    double e = SLACK * sp->smax[b] * sp->qscale;
    for (int g = 0; g < ng; g++)
      e += sp->snmax[(size_t)g * nb + b] * sp->dist[g];
    sp->blockb[b] = e;
    sp->passed[b] = e < sp->minmargin[b];
    if (sp->passed[b])
      continue;
    int to = (b + 1) * BLOCK < nc ? (b + 1) * BLOCK : nc;
    for (int c = b * BLOCK; c < to; c++)
      if (sp->stale[c])
        sp->bound[c] = contact_bound(m, sp, c);
  }
}

/* Contact c's bound at the modes of the last bounds(), m. */
static inline double
bound_of(const vb_island_model *m, const vb_sparse *sp, int c)
{
  int b = c / BLOCK;
  return sp->passed[b] ? sp->blockb[b] : sp->stale[c] ? sp->bound[c] : contact_bound(m, sp, c);
}

/* Whether skipped contact c may engage at the modes of the last bounds(). */
static inline int
may_engage(const vb_sparse *sp, int c)
{
  return sp->stale[c] && !sp->passed[c / BLOCK] && !(sp->bound[c] < sp->margin[c]);
}

/* Move the reference to q: xr = S q for every contact (bit for bit the
 * dot products a step forms), their margins, zero distances. */
static void
refresh(const vb_island_model *m, vb_island_state *s, const double *q)
{
  vb_sparse *sp = s->sp;
  memcpy(sp->qref, q, (size_t)m->nmp * sizeof(double));
  sp->qrnorm = sqrt(vb_kernel_dot(0, m->nmp, q, q));
  vb_kernel_dots(m->nmp, m->nc, m->S, q, sp->xref);
  for (int c = 0; c < m->nc; c++) {
    double x = sp->xref[c] + s->xdrv[c];
    sp->margin[c] = -law_penetration(&m->cts[c].law, x) -
                    SLACK * (fabs(sp->xref[c]) + fabs(s->xdrv[c]) + fabs(m->cts[c].law.h));
    /* NaN (modes not finite): never passed over */
    if (c % BLOCK == 0 || !(sp->margin[c] >= sp->minmargin[c / BLOCK]))
      sp->minmargin[c / BLOCK] = isnan(sp->margin[c]) ? -INFINITY : sp->margin[c];
  }
  distances(sp, q);
  sp->waste = 0.0;
  sp->refreshes++;
}

/* The live list from the stale flags, ascending. */
static void
relist(const vb_island_model *m, vb_island_state *s)
{
  int n = 0;
  for (int c = 0; c < m->nc; c++)
    if (!s->sp->stale[c])
      s->trk[n++] = c;
  s->ntrk = n;
}

/* Every contact live at the start (island.h). */
void
vb_sparse_start(const vb_island_model *m, vb_island_state *s)
{
  vb_sparse *sp = s->sp;
  if (!sp)
    return;
  memset(sp->stale, 0, (size_t)m->nc * sizeof(int));
  memcpy(sp->qprev, s->q, (size_t)m->nmp * sizeof(double));
  /* undriven: the drives at n+1 are those of the start, bit for bit, at
   * every step (vb_contact_drive's constant and its rate 0) */
  memcpy(s->xd_next, s->xdrv, (size_t)m->nc * sizeof(double));
  memcpy(s->rd_next, s->xdrv_rate, (size_t)m->nc * sizeof(double));
  relist(m, s);
  sp->refreshes = sp->rejoins = sp->live_steps = sp->scans = 0;
  sp->nrejoined = 0;
  sp->wait = sp->idle = sp->waited = 0;
  refresh(m, s, s->q);
  sp->refreshes = 0;
  bounds(m, sp);
}

/* Contact c's potential in its scheme's discrete energy, J. */
static double
potential_of(const vb_island_state *s, int c)
{
  const vb_contact *ct = &s->act[c];
  return ct->scheme->ops->potential ? ct->scheme->ops->potential(ct, &s->hist[c])
                                    : vb_law_potential(&ct->law, s->hist[c].x);
}

/* Whether live contact c can leave (1): out of contact at n and n-1, no
 * force, no potential, its bound at the modes now below its margin by
 * LEAVE_STEPS steps of the bound's growth; -1 when only the bound keeps it
 * (moving the reference would let it leave), else 0. */
static int
can_leave(const vb_island_model *m, const vb_island_state *s, int c)
{
  const vb_sparse *sp = s->sp;
  const vb_chist *hc = &s->hist[c];
  const vb_law *law = &s->act[c].law;
  if (sp->pinned[c] || s->fbar[c] != 0.0 || hc->f != 0.0 || law_engaged(law, hc->x) ||
      law_engaged(law, hc->xm))
    return 0;
  double grow = 0.0;
  for (int g = 0; g < sp->ng; g++)
    grow += sp->sn[(size_t)g * m->nc + c] * sp->move[g];
  if (!(LEAVE_STEPS * grow < sp->margin[c]) || potential_of(s, c) != 0.0)
    return 0;
  return bound_of(m, sp, c) + LEAVE_STEPS * grow < sp->margin[c] ? 1 : -1;
}

/* Contact c rejoins at step n: its history at n from the modes, its drive
 * at the step's end and its predicted compression from qt. */
static void
rejoin(const vb_island_model *m, vb_island_state *s, int c)
{
  vb_sparse *sp = s->sp;
  int nmp = m->nmp;
  double h = m->dt;
  const double *row = m->S + (size_t)c * nmp;
  vb_chist *hc = &s->hist[c];
  hc->x = vb_kernel_dot(0, nmp, row, s->q) + s->xdrv[c];
  if (m->fam->info->levels == 3) {
    hc->xm = vb_kernel_dot(0, nmp, row, s->qm) + s->xdrv_m[c];
    hc->rate = (hc->x - hc->xm) / h;
  } else {
    hc->xm = hc->x;
    hc->rate = vb_kernel_dot(0, nmp, row, s->v) + s->xdrv_rate[c];
  }
  hc->f = 0.0;
  double xd1 = s->xd_next[c]; /* undriven: constant (vb_sparse_start) */
  s->xt[c] = vb_kernel_dot(0, nmp, row, s->qt) + xd1;
  /* two-level: rate(n+1) = 2 (x1 - x)/h + roff (step.c's predict) */
  hc->roff = -hc->rate - 2.0 * (xd1 - s->xdrv[c]) / h + s->xdrv_rate[c] + s->rd_next[c];
  s->fbar[c] = 0.0;
  s->iterations[c] = s->fallback[c] = 0;
  sp->stale[c] = 0;
  sp->rejoined[sp->nrejoined] = c;
  sp->rejoin_x[sp->nrejoined] = hc->x;
  sp->rejoin_rate[sp->nrejoined++] = hc->rate;
  sp->rejoins++;
}

/* Step n's live set and its predictions (island.h). */
void
vb_sparse_select(const vb_island_model *m, vb_island_state *s, double t1)
{
  vb_sparse *sp = s->sp;
  int nc = m->nc, changed = 0;
  sp->nrejoined = 0;
  sp->t1 = t1;
  int refreshed = 0;
  if (s->ntrk == nc && sp->wait > 0) {
    /* every contact live and the last scan found no leaver: wait */
    sp->wait--;
    sp->waited = 1;
  } else {
    /* the modes' motion over the last step (qprev: the last step's
     * prediction, kept when this step was to scan) */
    for (int g = 0; g < sp->ng; g++)
      sp->move[g] = sqrt(vb_kernel_dist2(sp->gfrom[g], sp->gfrom[g + 1], s->qt, sp->qprev));
    /* leave: bounds and histories of the modes at n (after a wait, the
     * distances of the modes at n, which each step's last distances()
     * otherwise gives) */
    if (sp->waited)
      distances(sp, s->q);
    sp->waited = 0;
    sp->scans++;
    int kept = 0;
    for (int k = 0; k < s->ntrk; k++) {
      int c = s->trk[k], leave = can_leave(m, s, c);
      kept += leave < 0;
      if (leave > 0) {
        sp->stale[c] = 1;
        s->iterations[c] = s->fallback[c] = 0;
        changed = 1;
      }
    }
    /* the next scan: at once, or after twice the last wait while every
     * contact stays live */
    sp->idle = changed || s->ntrk < nc ? 0 : sp->idle ? 2 * sp->idle : 1;
    if (sp->idle > SCAN_WAIT_MAX)
      sp->idle = SCAN_WAIT_MAX;
    sp->wait = sp->idle - (sp->idle > 0);
    /* move the reference when the live contacts that only the bound keeps
     * have cost as many dot products as moving it does */
    sp->waste += kept;
    refreshed = sp->waste > nc;
    if (refreshed)
      refresh(m, s, s->qt);
    else
      distances(sp, s->qt);
  }
  /* the next step scans unless every contact is live (none can rejoin
   * before it) and it waits: then it needs no motion of the modes */
  if (!(s->ntrk == nc && !changed && sp->wait > 0))
    memcpy(sp->qprev, s->qt, (size_t)m->nmp * sizeof(double));
  if (changed)
    relist(m, s);
  if (s->ntrk < nc) {
    bounds(m, sp);
    for (int c = 0; c < nc; c++)
      if (may_engage(sp, c)) {
        rejoin(m, s, c);
        changed = 2;
      }
    if (changed == 2)
      relist(m, s);
  }
  /* the live contacts' predictions, bit for bit those of a whole step
   * (all live: four rows a pass); the drives at n+1, s->xd_next, are
   * constant (vb_sparse_start) */
  const double *xd1 = s->xd_next;
  if (s->ntrk == nc && !refreshed) {
    vb_kernel_dots(m->nmp, nc, m->S, s->qt, s->xt);
    for (int c = 0; c < nc; c++)
      s->xt[c] += xd1[c];
  } else {
    for (int k = 0; k < s->ntrk; k++) {
      int c = s->trk[k];
      double d = refreshed ? sp->xref[c] : vb_kernel_dot(0, m->nmp, m->S + (size_t)c * m->nmp, s->qt);
      s->xt[c] = d + xd1[c];
    }
  }
  sp->live_steps += s->ntrk;
  /* the forces the step starts from, for a solve again (vb_sparse_check,
   * which needs them only while some contact is skipped); the selection
   * changed none (a leaver and a rejoined contact have none) */
  if (s->ntrk < nc)
    memcpy(sp->fprev, s->fbar, (size_t)nc * sizeof(double));
}

/* Keep the prediction before the forces are applied (vb_sparse_check
 * restores it when the step is solved again). */
void
vb_sparse_save(const vb_island_model *m, vb_island_state *s)
{
  if (s->ntrk == m->nc)
    return; /* nothing skipped: vb_sparse_check returns at once */
  memcpy(s->sp->qsave, s->qt, (size_t)m->nmp * sizeof(double));
}

/* After the solve and its forces (qt holds q^(n+1)): the bound at the new
 * modes; stale contacts that may engage rejoin, qt is restored to the
 * prediction, the live contacts' forces to the last step's (the solve's
 * start) and the count returned (the caller solves again). */
int
vb_sparse_check(const vb_island_model *m, vb_island_state *s)
{
  vb_sparse *sp = s->sp;
  int nc = m->nc, n = 0, forced = 0;
  if (s->ntrk == nc)
    return 0; /* nothing skipped */
  for (int k = 0; k < s->ntrk && !forced; k++)
    forced = s->fbar[s->trk[k]] != 0.0;
  if (!forced)
    return 0; /* qt is the prediction the bounds were taken at */
  distances(sp, s->qt);
  bounds(m, sp);
  for (int c = 0; c < nc; c++)
    n += may_engage(sp, c);
  if (n == 0)
    return 0;
  memcpy(s->qt, sp->qsave, (size_t)m->nmp * sizeof(double));
  /* the solve again starts from the last step's forces, as the first did
   * and as the whole island's one solve does (the rejoined: 0) */
  for (int k = 0; k < s->ntrk; k++)
    s->fbar[s->trk[k]] = sp->fprev[s->trk[k]];
  for (int c = 0; c < nc; c++)
    if (may_engage(sp, c))
      rejoin(m, s, c);
  relist(m, s);
  return n;
}

/* ------------------------------------------------------------ queries */

void
vb_island_pin(const vb_island_model *m, vb_island_state *s, int c)
{
  (void)m;
  if (s->sp)
    s->sp->pinned[c] = 1;
}

double
vb_island_compression_bound(const vb_island_model *m, const vb_island_state *s, int c)
{
  const vb_sparse *sp = s->sp;
  return !sp || !sp->stale[c] ? s->hist[c].x : sp->xref[c] + s->xdrv[c] + bound_of(m, sp, c);
}

int
vb_island_rejoined(const vb_island_state *s, const int **lc, const double **x, const double **rate)
{
  if (!s->sp)
    return 0;
  *lc = s->sp->rejoined;
  *x = s->sp->rejoin_x;
  *rate = s->sp->rejoin_rate;
  return s->sp->nrejoined;
}

int
vb_island_sparse_stats(const vb_island_state *s, long *refreshes, long *rejoins, long *live_steps)
{
  if (!s->sp) {
    *refreshes = *rejoins = *live_steps = 0;
    return 0;
  }
  *refreshes = s->sp->refreshes;
  *rejoins = s->sp->rejoins;
  *live_steps = s->sp->live_steps;
  return 1;
}

long
vb_island_sparse_scans(const vb_island_state *s)
{
  return s->sp ? s->sp->scans : 0;
}
