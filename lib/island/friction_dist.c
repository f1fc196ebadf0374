/* friction_dist.c - friction on a distributed contact (issue 30, items 2
 * and 4; doc/friction.md, "Friction on a distributed contact"): the points
 * of a distributed block (a string on its frets, a bridge) are point
 * contacts of the island's tangential model (friction.c), each with its
 * row of T (+-phi_j(x_k) at the modal body's modes along w), and this file
 * keeps their cost to the points that touch.
 *
 * A point whose normal force of the step is 0 (apart: most frets at most
 * steps) has no friction (|ft| <= mu N = 0), so friction.c skips its row:
 * no free slip (a dot product of the modes along w), no force, no slip.
 * Its law is told it is apart (its local problem at N = 0, with an
 * unknown free slip: every law of the table then returns 0, slips and
 * forgets its branch: a point that touches again comes to its law as from
 * stick, and an elasto-plastic bristle is released, as for a point
 * contact that lifts off).  The points that touch are solved together by
 * the Gauss-Seidel of solvers/friction_solve.c on their compact problem:
 * their block of the tangential compliance, gathered from the island's Kt
 * when friction.c formed it (at most VB_FRICTION_KT_DENSE contacts with
 * friction), else formed for the step from the low rank Kt = T diag(cc)
 * T^T (active^2 row products, never nfc^2).  A point of a block thus
 * costs nothing while apart, and a touching one what a point contact on
 * the same body costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "friction.h"
#include "island.h"

/* The compact problem's storage (a state's scratch). */
typedef struct vb_fdist_state {
  int *idx;       /* [nfc] the touching contacts, ascending */
  int *broke;     /* [nfc] */
  int *st_first;  /* [nfc + 1] */
  double *dy, *normal, *ft; /* [nfc] */
  double *Kt;     /* [nfc][nfc] at most: the touching block, m/N */
  double *st, *st_old; /* [the model's st_first[nfc]] */
  double *dense;  /* [nt] a row scattered, for Kt's products (zero between uses) */
  const vb_friction_info **info; /* [nfc] */
  const vb_friction **law;       /* [nfc] */
} vb_fdist_state;

int
vb_friction_dist_compile(const vb_island_model *m, vb_friction_model *fm)
{
  int nfc = fm->nfc, ns = 0;
  fm->sparse = NULL;
  fm->nsparse = 0;
  for (int i = 0; i < nfc; i++)
    ns += m->cts[fm->local[i]].group[0] != '\0';
  if (ns == 0)
    return VB_OK;
  int *sparse = calloc((size_t)nfc, sizeof *sparse);
  double *k = malloc(3 * (size_t)fm->nt * sizeof *k + 1);
  if (!sparse || !k) {
    free(sparse);
    free(k);
    return VB_ENOMEM;
  }
  for (int i = 0; i < nfc; i++)
    sparse[i] = m->cts[fm->local[i]].group[0] != '\0';
  /* the first products of the pass's terms, (m sig) d e, ((m/2) v) v and
   * (((m/2) w2) x) x: formed once, the same roundings as in the loop */
  for (int j = 0; j < fm->nt; j++) {
    k[j] = fm->mass[j] * fm->sig[j];
    k[fm->nt + j] = 0.5 * fm->mass[j];
    k[2 * fm->nt + j] = 0.5 * fm->mass[j] * fm->w2[j];
  }
  fm->sparse = sparse;
  fm->nsparse = ns;
  fm->plain = 1;
  for (int i = 0; i < nfc; i++)
    fm->plain &= !fm->da[i] && !fm->db[i] && fm->given[i] < 0.0 && !fm->info[i]->stored;
  fm->msig = k;
  fm->hm = k + fm->nt;
  fm->hmw2 = k + 2 * fm->nt;
  return VB_OK;
}

void
vb_friction_dist_model_free(vb_friction_model *fm)
{
  if (fm) {
    free((void *)fm->sparse);
    free((void *)fm->msig);
  }
}

int
vb_friction_dist_alloc(const vb_friction_model *fm, vb_friction_state *fs)
{
  fs->dist = NULL;
  if (!fm->sparse)
    return VB_OK;
  int nfc = fm->nfc, nst = fm->st_first[nfc];
  vb_fdist_state *d = calloc(1, sizeof *d);
  if (!d)
    return VB_ENOMEM;
  d->idx = calloc(3 * (size_t)nfc + 1, sizeof(int));
  d->dy = calloc(3 * (size_t)nfc + (size_t)nfc * nfc + 2 * (size_t)nst + (size_t)fm->nt + 1,
                 sizeof(double));
  d->info = calloc((size_t)nfc + 1, sizeof *d->info);
  d->law = calloc((size_t)nfc + 1, sizeof *d->law);
  if (!d->idx || !d->dy || !d->info || !d->law) {
    fs->dist = d;
    vb_friction_dist_free(fs);
    return VB_ENOMEM;
  }
  d->broke = d->idx + nfc;
  d->st_first = d->broke + nfc;
  d->normal = d->dy + nfc;
  d->ft = d->normal + nfc;
  d->Kt = d->ft + nfc;
  d->st = d->Kt + (size_t)nfc * nfc;
  d->st_old = d->st + nst;
  d->dense = d->st_old + nst;
  fs->dist = d;
  return VB_OK;
}

void
vb_friction_dist_free(vb_friction_state *fs)
{
  vb_fdist_state *d = fs ? fs->dist : NULL;
  if (!d)
    return;
  free(d->idx);
  free(d->dy);
  free(d->info);
  free(d->law);
  free(d);
  fs->dist = NULL;
}

/* Kt_ik from the rows: T_i diag(cc) T_k^T, row k's cc T (row_tc)
 * scattered into dense (zero on entry and on return). */
static void
block_from_rows(const vb_friction_model *fm, const int *idx, int n, double *dense, double *K)
{
  const int *J = fm->row_j;
  const double *T = fm->row_t, *tc = fm->row_tc;
  for (int l = 0; l < n; l++) {
    int k = idx[l], e0 = fm->row_first[k], e1 = fm->row_first[k + 1];
    for (int e = e0; e < e1; e++)
      dense[J[e]] += tc[e];
    for (int r = l; r < n; r++) {
      int i = idx[r];
      double s = 0.0;
      for (int e = fm->row_first[i]; e < fm->row_first[i + 1]; e++)
        s += T[e] * dense[J[e]];
      K[(size_t)r * n + l] = K[(size_t)l * n + r] = s;
    }
    for (int e = e0; e < e1; e++)
      dense[J[e]] = 0.0;
  }
}

int
vb_friction_dist_solve(const vb_friction_model *fm, vb_friction_state *fs, const vb_fproblem *p)
{
  vb_fdist_state *d = fs->dist;
  int nfc = fm->nfc, n = 0;
  for (int i = 0; i < nfc; i++) {
    if (!vb_friction_skips(fm, fs, i)) {
      d->idx[n++] = i;
      continue;
    }
    /* apart: its law at N = 0 with no free slip known (0 force, slipping,
     * no branch kept; the bristle released) */
    int broke = 0;
    double *st = fs->st + fm->st_first[i];
    fm->info[i]->local(fm->law[i], 0.0, NAN, 1.0, fm->dt, &broke, st);
    fs->ft[i] = 0.0;
  }
  if (n == nfc)
    return vb_friction_solve(p);
  if (n == 0)
    return VB_OK;
  /* the touching points' compact problem */
  d->st_first[0] = 0;
  for (int k = 0; k < n; k++) {
    int i = d->idx[k], s0 = fm->st_first[i], ns = fm->st_first[i + 1] - s0;
    d->dy[k] = fs->dyfree[i];
    d->normal[k] = fs->normal[i];
    d->ft[k] = fs->ft[i];
    d->info[k] = fm->info[i];
    d->law[k] = fm->law[i];
    d->st_first[k + 1] = d->st_first[k] + ns;
    memcpy(d->st_old + d->st_first[k], fs->st_old + s0, (size_t)ns * sizeof(double));
    memcpy(d->st + d->st_first[k], fs->st + s0, (size_t)ns * sizeof(double));
  }
  if (fm->Kt)
    for (int k = 0; k < n; k++)
      for (int l = 0; l < n; l++)
        d->Kt[(size_t)k * n + l] = fm->Kt[(size_t)d->idx[k] * nfc + d->idx[l]];
  else
    block_from_rows(fm, d->idx, n, d->dense, d->Kt);
  vb_fproblem q = *p;
  q.nfc = n;
  q.Kt = d->Kt;
  q.dyfree = d->dy;
  q.normal = d->normal;
  q.info = d->info;
  q.law = d->law;
  q.st_first = d->st_first;
  q.st_old = d->st_old;
  q.st = d->st;
  q.ft = d->ft;
  q.broke = d->broke;
  int rc = vb_friction_solve(&q);
  for (int k = 0; k < n; k++) {
    int i = d->idx[k], s0 = fm->st_first[i], ns = fm->st_first[i + 1] - s0;
    fs->ft[i] = d->ft[k];
    memcpy(fs->st + s0, d->st + d->st_first[k], (size_t)ns * sizeof(double));
  }
  return rc;
}

/* ------------------------------------------------------------ kernels
 * The per-mode loops of an island with distributed friction points (a
 * string's 862 modes along w, stepped at every step whatever touches), as
 * kernels.c writes its own: explicit 4-lane vectors, 8 modes at a time in
 * two accumulators, a fixed reduction order and no fused multiply-adds
 * (-ffp-contract=off), compiled for AVX2 and the baseline with the clone
 * chosen at run time, so that the bits do not depend on the machine.
 * Each element's arithmetic is friction.c's own expression (a one-mode
 * body gives the same bits either way); the sums over modes are in this
 * fixed order (lanes, then the tail). */
#include "v4.h" /* VB_CLONES, v4, ld4, st4, splat, hsum */

VB_CLONES void
vb_fdist_free(int n, const double *cq, const double *cb, const double *w, const double *vw,
              double *dfree)
{
  int j = 0;
  for (; j + 4 <= n; j += 4)
    st4(dfree + j, ld4(cq + j) * ld4(w + j) + ld4(cb + j) * ld4(vw + j));
  for (; j < n; j++)
    dfree[j] = cq[j] * w[j] + cb[j] * vw[j];
}

VB_CLONES void
vb_fdist_move(int n, const double *d, double *w, double *vw, double h)
{
  v4 two = splat(2.0), hh = splat(h);
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    v4 dw = ld4(d + j);
    st4(w + j, ld4(w + j) + dw);
    st4(vw + j, two * dw / hh - ld4(vw + j));
  }
  for (; j < n; j++) {
    double dw = d[j];
    w[j] += dw;
    vw[j] = 2.0 * dw / h - vw[j];
  }
}

VB_CLONES void
vb_fdist_energy(int n, const double *mass, const double *w2, const double *w, const double *vw,
                double *kin, double *pot)
{
  v4 k0 = splat(0.0), k1 = splat(0.0), p0 = splat(0.0), p1 = splat(0.0), half = splat(0.5);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 m0 = ld4(mass + j), m1 = ld4(mass + j + 4), v0 = ld4(vw + j), v1 = ld4(vw + j + 4);
    v4 x0 = ld4(w + j), x1 = ld4(w + j + 4);
    k0 += half * m0 * v0 * v0;
    k1 += half * m1 * v1 * v1;
    p0 += half * m0 * ld4(w2 + j) * x0 * x0;
    p1 += half * m1 * ld4(w2 + j + 4) * x1 * x1;
  }
  double k = hsum(k0 + k1), p = hsum(p0 + p1);
  for (; j < n; j++) {
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
  }
  *kin = k;
  *pot = p;
}

VB_CLONES void
vb_fdist_energy_free(int n, const double *mass, const double *w2, const double *cq,
                     const double *cb, const double *w, const double *vw, double *dfree,
                     double *kin, double *pot)
{
  v4 k0 = splat(0.0), k1 = splat(0.0), p0 = splat(0.0), p1 = splat(0.0), half = splat(0.5);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 m0 = ld4(mass + j), m1 = ld4(mass + j + 4), v0 = ld4(vw + j), v1 = ld4(vw + j + 4);
    v4 x0 = ld4(w + j), x1 = ld4(w + j + 4);
    k0 += half * m0 * v0 * v0;
    k1 += half * m1 * v1 * v1;
    p0 += half * m0 * ld4(w2 + j) * x0 * x0;
    p1 += half * m1 * ld4(w2 + j + 4) * x1 * x1;
    st4(dfree + j, ld4(cq + j) * x0 + ld4(cb + j) * v0);
    st4(dfree + j + 4, ld4(cq + j + 4) * x1 + ld4(cb + j + 4) * v1);
  }
  double k = hsum(k0 + k1), p = hsum(p0 + p1);
  for (; j < n; j++) {
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
    dfree[j] = cq[j] * w[j] + cb[j] * vw[j];
  }
  *kin = k;
  *pot = p;
}

VB_CLONES double
vb_fdist_dot(int n, const double *t, const double *d)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    s0 += ld4(t + j) * ld4(d + j);
    s1 += ld4(t + j + 4) * ld4(d + j + 4);
  }
  double s = hsum(s0 + s1);
  for (; j < n; j++)
    s += t[j] * d[j];
  return s;
}

VB_CLONES void
vb_fdist_axpy(int n, const double *t, double f, double *d)
{
  v4 ff = splat(f);
  int j = 0;
  for (; j + 4 <= n; j += 4)
    st4(d + j, ld4(d + j) + ld4(t + j) * ff);
  for (; j < n; j++)
    d[j] += t[j] * f;
}

/* (The lanes multiply by 2/h where the scalar rule divides: one
 * rounding apart, and no division in the loop; the tail, and so a body
 * of fewer than 8 modes, is friction.c's expression.) */
VB_CLONES double
vb_fdist_damp_move(int n, const double *mass, const double *sig, const double *d, double *w,
                   double *vw, double h)
{
  v4 s0 = splat(0.0), s1 = splat(0.0), r2 = splat(2.0 / h);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 d0 = ld4(d + j), d1 = ld4(d + j + 4);
    v4 e0 = r2 * d0, e1 = r2 * d1;
    s0 += ld4(mass + j) * ld4(sig + j) * d0 * e0;
    s1 += ld4(mass + j + 4) * ld4(sig + j + 4) * d1 * e1;
    st4(w + j, ld4(w + j) + d0);
    st4(w + j + 4, ld4(w + j + 4) + d1);
    st4(vw + j, e0 - ld4(vw + j));
    st4(vw + j + 4, e1 - ld4(vw + j + 4));
  }
  double s = hsum(s0 + s1);
  for (; j < n; j++) {
    double dw = d[j];
    s += 2.0 * mass[j] * sig[j] * dw * dw / h;
    w[j] += dw;
    vw[j] = 2.0 * dw / h - vw[j];
  }
  return s;
}

/* vb_fdist_axpy(n, tm, P, v) and then vb_fdist_dot(n, t, v) in one pass,
 * returning the dot: the catch's impulse of one contact on the rates and
 * the next contact's slip rate from them (friction.c), each element and
 * the sum as the two kernels form them. */
VB_CLONES double
vb_fdist_axpy_dot(int n, const double *tm, double P, double *v, const double *t)
{
  v4 pp = splat(P), s0 = splat(0.0), s1 = splat(0.0);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 a0 = ld4(v + j) + ld4(tm + j) * pp, a1 = ld4(v + j + 4) + ld4(tm + j + 4) * pp;
    st4(v + j, a0);
    st4(v + j + 4, a1);
    s0 += ld4(t + j) * a0;
    s1 += ld4(t + j + 4) * a1;
  }
  double s = hsum(s0 + s1);
  for (; j < n; j++) {
    v[j] += tm[j] * P;
    s += t[j] * v[j];
  }
  return s;
}

/* vb_fdist_axpy(n, tm, P, vw) and then vb_fdist_energy_free in one pass:
 * the catch's last impulse, the energy at n+1 and the next free
 * increments. */
VB_CLONES void
vb_fdist_imp_energy_free(int n, const double *tm, double P, const double *mass, const double *w2,
                         const double *cq, const double *cb, const double *w, double *vw,
                         double *dfree, double *kin, double *pot)
{
  v4 k0 = splat(0.0), k1 = splat(0.0), p0 = splat(0.0), p1 = splat(0.0), half = splat(0.5);
  v4 pp = splat(P);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 m0 = ld4(mass + j), m1 = ld4(mass + j + 4);
    v4 v0 = ld4(vw + j) + ld4(tm + j) * pp, v1 = ld4(vw + j + 4) + ld4(tm + j + 4) * pp;
    v4 x0 = ld4(w + j), x1 = ld4(w + j + 4);
    st4(vw + j, v0);
    st4(vw + j + 4, v1);
    k0 += half * m0 * v0 * v0;
    k1 += half * m1 * v1 * v1;
    p0 += half * m0 * ld4(w2 + j) * x0 * x0;
    p1 += half * m1 * ld4(w2 + j + 4) * x1 * x1;
    st4(dfree + j, ld4(cq + j) * x0 + ld4(cb + j) * v0);
    st4(dfree + j + 4, ld4(cq + j + 4) * x1 + ld4(cb + j + 4) * v1);
  }
  double k = hsum(k0 + k1), p = hsum(p0 + p1);
  for (; j < n; j++) {
    vw[j] += tm[j] * P;
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
    dfree[j] = cq[j] * w[j] + cb[j] * vw[j];
  }
  *kin = k;
  *pot = p;
}

/* friction.h's vb_fdist_pass: t_add_force's vb_fdist_axpy of each row
 * (4-lane blocks, element by element: the same values in 8-blocks),
 * vb_fdist_damp_move, vb_fdist_dot of each row and of tv and
 * vb_fdist_energy_free, block by block with their own accumulators. */
VB_CLONES void
vb_fdist_pass_run(vb_fdist_pass *p)
{
  int n = p->n, nf = p->nf, en = p->energy, j = 0;
  const double *mass = p->mass, *sig = p->sig, *w2 = p->w2, *cq = p->cq, *cb = p->cb;
  const double *msig = p->msig, *hm = p->hm, *hmw2 = p->hmw2, *tv = p->tv;
  double *d = p->d, *w = p->w, *vw = p->vw, h = p->h;
  v4 a[2 * VB_FDIST_FUSE], ff[VB_FDIST_FUSE];
  for (int k = 0; k < nf; k++) {
    a[2 * k] = a[2 * k + 1] = splat(0.0);
    ff[k] = splat(p->f[k]);
  }
  v4 s0 = splat(0.0), s1 = splat(0.0), r2 = splat(2.0 / h), c0 = splat(0.0), c1 = splat(0.0);
  v4 k0 = splat(0.0), k1 = splat(0.0), p0 = splat(0.0), p1 = splat(0.0);
  /* nothing touches (most steps): the same terms without the rows */
  for (; nf == 0 && !tv && en && j + 8 <= n; j += 8) {
    v4 d0 = ld4(d + j), d1 = ld4(d + j + 4);
    v4 e0 = r2 * d0, e1 = r2 * d1;
    s0 += ld4(msig + j) * d0 * e0;
    s1 += ld4(msig + j + 4) * d1 * e1;
    v4 x0 = ld4(w + j) + d0, x1 = ld4(w + j + 4) + d1;
    v4 v0 = e0 - ld4(vw + j), v1 = e1 - ld4(vw + j + 4);
    st4(w + j, x0);
    st4(w + j + 4, x1);
    st4(vw + j, v0);
    st4(vw + j + 4, v1);
    k0 += ld4(hm + j) * v0 * v0;
    k1 += ld4(hm + j + 4) * v1 * v1;
    p0 += ld4(hmw2 + j) * x0 * x0;
    p1 += ld4(hmw2 + j + 4) * x1 * x1;
    st4(d + j, ld4(cq + j) * x0 + ld4(cb + j) * v0);
    st4(d + j + 4, ld4(cq + j + 4) * x1 + ld4(cb + j + 4) * v1);
  }
  for (; j + 8 <= n; j += 8) {
    v4 d0 = ld4(d + j), d1 = ld4(d + j + 4);
    for (int k = 0; k < nf; k++) {
      d0 = d0 + ld4(p->tc[k] + j) * ff[k];
      d1 = d1 + ld4(p->tc[k] + j + 4) * ff[k];
    }
    v4 e0 = r2 * d0, e1 = r2 * d1;
    s0 += ld4(msig + j) * d0 * e0;
    s1 += ld4(msig + j + 4) * d1 * e1;
    v4 x0 = ld4(w + j) + d0, x1 = ld4(w + j + 4) + d1;
    v4 v0 = e0 - ld4(vw + j), v1 = e1 - ld4(vw + j + 4);
    st4(w + j, x0);
    st4(w + j + 4, x1);
    st4(vw + j, v0);
    st4(vw + j + 4, v1);
    for (int k = 0; k < nf; k++) {
      a[2 * k] += ld4(p->t[k] + j) * d0;
      a[2 * k + 1] += ld4(p->t[k] + j + 4) * d1;
    }
    if (tv) {
      c0 += ld4(tv + j) * v0;
      c1 += ld4(tv + j + 4) * v1;
    }
    if (en) {
      k0 += ld4(hm + j) * v0 * v0;
      k1 += ld4(hm + j + 4) * v1 * v1;
      p0 += ld4(hmw2 + j) * x0 * x0;
      p1 += ld4(hmw2 + j + 4) * x1 * x1;
      st4(d + j, ld4(cq + j) * x0 + ld4(cb + j) * v0);
      st4(d + j + 4, ld4(cq + j + 4) * x1 + ld4(cb + j + 4) * v1);
    } else {
      st4(d + j, d0);
      st4(d + j + 4, d1);
    }
  }
  double s = hsum(s0 + s1), c = hsum(c0 + c1), kk = hsum(k0 + k1), pp = hsum(p0 + p1);
  for (int k = 0; k < nf; k++)
    p->dy[k] = hsum(a[2 * k] + a[2 * k + 1]);
  for (; j < n; j++) {
    double dw = d[j];
    for (int k = 0; k < nf; k++)
      dw += p->tc[k][j] * p->f[k];
    s += 2.0 * mass[j] * sig[j] * dw * dw / h;
    w[j] += dw;
    vw[j] = 2.0 * dw / h - vw[j];
    for (int k = 0; k < nf; k++)
      p->dy[k] += p->t[k][j] * dw;
    if (tv)
      c += tv[j] * vw[j];
    if (en) {
      kk += 0.5 * mass[j] * vw[j] * vw[j];
      pp += 0.5 * mass[j] * w2[j] * w[j] * w[j];
      d[j] = cq[j] * w[j] + cb[j] * vw[j];
    } else
      d[j] = dw;
  }
  p->diss = s;
  p->sv = c;
  p->kin = kk;
  p->pot = pp;
}
