/* kernels.c - the per-mode loops of the implicit families.
 *
 * The loops run on explicit 4-lane vectors (GCC vector extensions) over
 * arrays padded to a multiple of 8, and are compiled twice (x86-64-v3 with
 * AVX2, and the baseline) with the clone chosen at run time.  Lane-wise
 * arithmetic and a fixed reduction order give the same bits on every
 * x86-64 machine: with -ffp-contract=off no clone fuses multiply-adds, so
 * results do not depend on the node a scene runs on. */
#include <string.h>
#include "kernels.h"

#include "v4.h"

/* The loops below take 8 modes at a time in two independent 4-lane
 * accumulators (so that additions do not wait on each other); arrays are
 * padded to a multiple of 8. */
#define LANES 8

/* qt = ca q + cb w + cc g; returns row . qt (0 when row is NULL). */
VB_CLONES double
vb_kernel_predict(int nmp, const double *q, const double *w, const double *ca, const double *cb,
                  const double *cc, const double *g, double *qt, const double *row)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  for (int j = 0; j < nmp; j += LANES) {
    v4 t0 = ld4(ca + j) * ld4(q + j) + ld4(cb + j) * ld4(w + j) + ld4(cc + j) * ld4(g + j);
    v4 t1 = ld4(ca + j + 4) * ld4(q + j + 4) + ld4(cb + j + 4) * ld4(w + j + 4) +
            ld4(cc + j + 4) * ld4(g + j + 4);
    st4(qt + j, t0);
    st4(qt + j + 4, t1);
    if (row) {
      s0 += ld4(row + j) * t0;
      s1 += ld4(row + j + 4) * t1;
    }
  }
  return hsum(s0 + s1);
}

/* |a - b|^2 over [from, to), both multiples of 8. */
VB_CLONES double
vb_kernel_dist2(int from, int to, const double *a, const double *b)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  for (int j = from; j < to; j += LANES) {
    v4 d0 = ld4(a + j) - ld4(b + j), d1 = ld4(a + j + 4) - ld4(b + j + 4);
    s0 += d0 * d0;
    s1 += d1 * d1;
  }
  return hsum(s0 + s1);
}

/* a . b over [from, to), both multiples of 8. */
VB_CLONES double
vb_kernel_dot(int from, int to, const double *a, const double *b)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  for (int j = from; j < to; j += LANES) {
    s0 += ld4(a + j) * ld4(b + j);
    s1 += ld4(a + j + 4) * ld4(b + j + 4);
  }
  return hsum(s0 + s1);
}

/* a . b and a . c in one pass over [from, to). */
VB_CLONES void
vb_kernel_dot2(int from, int to, const double *a, const double *b, const double *c, double *ab,
               double *ac)
{
  v4 s0 = splat(0.0), s1 = s0, t0 = s0, t1 = s0;
  for (int j = from; j < to; j += LANES) {
    v4 a0 = ld4(a + j), a1 = ld4(a + j + 4);
    s0 += a0 * ld4(b + j);
    s1 += a1 * ld4(b + j + 4);
    t0 += a0 * ld4(c + j);
    t1 += a1 * ld4(c + j + 4);
  }
  *ab = hsum(s0 + s1);
  *ac = hsum(t0 + t1);
}

/* Dot products of 4 rows of S (stride nmp) with b, in one pass over b:
 * each row keeps vb_kernel_dot's two accumulators and reduction order, so
 * every result has the bits vb_kernel_dot(0, nmp, row, b) gives. */
static inline void
dot_rows4(int nmp, const double *S, const double *b, double *out)
{
  const double *r0 = S, *r1 = S + nmp, *r2 = S + 2 * (size_t)nmp, *r3 = S + 3 * (size_t)nmp;
  v4 a0 = splat(0.0), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
  for (int j = 0; j < nmp; j += LANES) {
    v4 x0 = ld4(b + j), x1 = ld4(b + j + 4);
    a0 += ld4(r0 + j) * x0;
    a1 += ld4(r0 + j + 4) * x1;
    b0 += ld4(r1 + j) * x0;
    b1 += ld4(r1 + j + 4) * x1;
    c0 += ld4(r2 + j) * x0;
    c1 += ld4(r2 + j + 4) * x1;
    d0 += ld4(r3 + j) * x0;
    d1 += ld4(r3 + j + 4) * x1;
  }
  out[0] = hsum(a0 + a1);
  out[1] = hsum(b0 + b1);
  out[2] = hsum(c0 + c1);
  out[3] = hsum(d0 + d1);
}

/* out[r] = S_r . b for the nrows rows of S (stride nmp), four rows per
 * pass over b; bit for bit vb_kernel_dot of each row. */
VB_CLONES void
vb_kernel_dots(int nmp, int nrows, const double *S, const double *b, double *out)
{
  int r = 0;
  for (; r + 4 <= nrows; r += 4)
    dot_rows4(nmp, S + (size_t)r * nmp, b, out + r);
  for (; r < nrows; r++) {
    const double *a = S + (size_t)r * nmp;
    v4 s0 = splat(0.0), s1 = splat(0.0);
    for (int j = 0; j < nmp; j += LANES) {
      s0 += ld4(a + j) * ld4(b + j);
      s1 += ld4(a + j + 4) * ld4(b + j + 4);
    }
    out[r] = hsum(s0 + s1);
  }
}

/* qt -= cc row f */
VB_CLONES void
vb_kernel_force(int nmp, double *qt, const double *cc, const double *row, double f)
{
  v4 F = splat(f);
  for (int j = 0; j < nmp; j += 4)
    st4(qt + j, ld4(qt + j) - ld4(cc + j) * ld4(row + j) * F);
}

/* Two-level update of the 4 modes at j, into accumulators with suffix k;
 * `gen` terms only when the island has a generalised force at all. */
#define UPDATE2(j, k)                                                                              \
  do {                                                                                             \
    v4 q0 = ld4(q + (j)), v0 = ld4(v + (j));                                                       \
    v4 q1 = ld4(qt + (j)) - ld4(cc + (j)) * ld4(row0 + (j)) * F;                                   \
    v4 v1 = two * (q1 - q0) * ih - v0;                                                             \
    v4 vm = half * (v1 + v0);                                                                      \
    diss##k += ld4(dcoef + (j)) * vm * vm;                                                         \
    if (has_gen)                                                                                   \
      work##k += ld4(gen + (j)) * (q1 - q0);                                                       \
    kin##k += ld4(mass + (j)) * v1 * v1;                                                           \
    pot##k += ld4(mw2 + (j)) * q1 * q1;                                                            \
    st4(q + (j), q1);                                                                              \
    st4(v + (j), v1);                                                                              \
    if (ahead) {                                                                                   \
      v4 qn = ld4(ca + (j)) * q1 + ld4(cb + (j)) * v1;                                             \
      if (has_gen)                                                                                 \
        qn += ld4(cc + (j)) * ld4(gen + (j));                                                      \
      st4(qt + (j), qn);                                                                           \
      dot##k += ld4(rowp + (j)) * qn;                                                              \
    }                                                                                              \
  } while (0)

/* Two-level mode update from the prediction qt and one more contact force
 * f0 along row0: q1, v1 = 2 (q1 - q)/h - v; sums of the step's
 * dissipation, external work, 2 x kinetic and 2 x potential energy.  With
 * `ahead` it also writes the next step's prediction into qt (as predict()
 * would, for a constant generalised force) and its dot with rowp into
 * out[4], saving the next step a pass over the modes.  The flags are
 * constants in each instance below, so the loop carries no branch; with
 * no generalised force the skipped terms are exact zeros. */
#define UPDATE2_INSTANCE(name, AHEAD, HAS_GEN)                                                     \
  VB_CLONES static void name(                                                                      \
      int nmp, double h, double *qt, const double *cc, const double *row0, double f0, double *q,   \
      double *v, const double *mass, const double *dcoef, const double *mw2, const double *gen,    \
      const double *ca, const double *cb, const double *rowp, double out[5])                       \
  {                                                                                                \
    v4 F = splat(f0), ih = splat(1.0 / h), two = splat(2.0), half = splat(0.5);                    \
    v4 diss0 = splat(0.0), work0 = diss0, kin0 = diss0, pot0 = diss0, dot0 = diss0;                \
    v4 diss1 = diss0, work1 = diss0, kin1 = diss0, pot1 = diss0, dot1 = diss0;                     \
    const int ahead = AHEAD, has_gen = HAS_GEN;                                                    \
    (void)ca;                                                                                      \
    (void)cb;                                                                                      \
    (void)rowp;                                                                                    \
    (void)gen;                                                                                     \
    for (int j = 0; j < nmp; j += LANES) {                                                         \
      UPDATE2(j, 0);                                                                               \
      UPDATE2(j + 4, 1);                                                                           \
    }                                                                                              \
    out[0] = hsum(diss0 + diss1);                                                                  \
    out[1] = hsum(work0 + work1);                                                                  \
    out[2] = hsum(kin0 + kin1);                                                                    \
    out[3] = hsum(pot0 + pot1);                                                                    \
    out[4] = hsum(dot0 + dot1);                                                                    \
  }
UPDATE2_INSTANCE(update2_plain, 0, 1)
UPDATE2_INSTANCE(update2_ahead, 1, 1)
UPDATE2_INSTANCE(update2_ahead_nogen, 1, 0)

/* Two-level update: the instance for the island's case. */
void
vb_kernel_update2(int nmp, double h, double *qt, const double *cc, const double *row0, double f0,
                  double *q, double *v, const double *mass, const double *dcoef, const double *mw2,
                  const double *gen, int ahead, int has_gen, const double *ca, const double *cb,
                  const double *rowp, double out[5])
{
  if (!ahead)
    update2_plain(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp, out);
  else if (has_gen)
    update2_ahead(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp, out);
  else
    update2_ahead_nogen(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp, out);
}

/* Three-level update of the 4 modes at j, into accumulators k. */
#define UPDATE3(j, k)                                                                              \
  do {                                                                                             \
    v4 q0 = ld4(q + (j)), qp = ld4(qm + (j));                                                      \
    v4 q1 = ld4(qt + (j)) - ld4(cc + (j)) * ld4(row0 + (j)) * F;                                   \
    v4 d2 = q1 - qp, d1 = (q1 - q0) * ih;                                                          \
    diss##k += ld4(dcoef + (j)) * d2 * d2;                                                         \
    work##k += half * ld4(gen + (j)) * d2;                                                         \
    kin##k += ld4(mass + (j)) * d1 * d1;                                                           \
    pot##k += ld4(mw2 + (j)) * q1 * q0;                                                            \
    st4(qm + (j), q0);                                                                             \
    st4(q + (j), q1);                                                                              \
    if (ahead) {                                                                                   \
      v4 qn = ld4(ca + (j)) * q1 + ld4(cb + (j)) * (-q0) + ld4(cc + (j)) * ld4(gen + (j));         \
      st4(qt + (j), qn);                                                                           \
      dot##k += ld4(rowp + (j)) * qn;                                                              \
    }                                                                                              \
  } while (0)

/* Three-level mode update: q1 from qt and f0 along row0, then qm = q,
 * q = q1; sums as vb_kernel_update2 (energy of the step into n+1). */
VB_CLONES void
vb_kernel_update3(int nmp, double h, double *qt, const double *cc, const double *row0, double f0,
                  double *q, double *qm, const double *mass, const double *dcoef, const double *mw2,
                  const double *gen, int ahead, const double *ca, const double *cb,
                  const double *rowp, double out[5])
{
  v4 F = splat(f0), ih = splat(1.0 / h), half = splat(0.5);
  v4 diss0 = splat(0.0), work0 = diss0, kin0 = diss0, pot0 = diss0, dot0 = diss0;
  v4 diss1 = diss0, work1 = diss0, kin1 = diss0, pot1 = diss0, dot1 = diss0;
  for (int j = 0; j < nmp; j += LANES) {
    UPDATE3(j, 0);
    UPDATE3(j + 4, 1);
  }
  out[0] = hsum(diss0 + diss1);
  out[1] = hsum(work0 + work1);
  out[2] = hsum(kin0 + kin1);
  out[3] = hsum(pot0 + pot1);
  out[4] = hsum(dot0 + dot1);
}

/* Two-level update of the 4 modes at j of an island without contacts. */
#define FREE2(j, k)                                                                                \
  do {                                                                                             \
    v4 q0 = ld4(q + (j)), v0 = ld4(v + (j)), g = ld4(gen + (j));                                  \
    v4 d = (ld4(ca + (j)) - one) * q0 + ld4(cb + (j)) * v0 + ld4(cc + (j)) * g;                  \
    v4 v1 = two * d * ih - v0;                                                                     \
    v4 vm = half * (v1 + v0);                                                                      \
    v4 q1 = q0 + d;                                                                                \
    diss##k += ld4(dcoef + (j)) * vm * vm;                                                         \
    work##k += g * d;                                                                              \
    kin##k += ld4(mass + (j)) * v1 * v1;                                                           \
    pot##k += ld4(mw2 + (j)) * q1 * q1;                                                            \
    st4(q + (j), q1);                                                                              \
    st4(v + (j), v1);                                                                              \
  } while (0)

/* Two-level update of an island without contacts, in increments: the
 * step d = q1 - q = (ca - 1) q + cb v + cc gen (Papetti eq 20 with no
 * contact force, rearranged), v1 = 2 d/h - v, q1 = q + d.  The same
 * scheme as vb_kernel_update2, but d never passes through the rounding
 * of q1 (of order eps |q|, which v1 = 2 (q1 - q)/h - v divides by h):
 * a body falling far keeps its kinetic energy equal to the work of
 * gravity g d to round-off.  Sums into out[0..3] as vb_kernel_update2. */
VB_CLONES void
vb_kernel_free2(int nmp, double h, double *q, double *v, const double *ca, const double *cb,
                const double *cc, const double *gen, const double *mass, const double *dcoef,
                const double *mw2, double out[4])
{
  v4 ih = splat(1.0 / h), two = splat(2.0), half = splat(0.5), one = splat(1.0);
  v4 diss0 = splat(0.0), work0 = diss0, kin0 = diss0, pot0 = diss0;
  v4 diss1 = diss0, work1 = diss0, kin1 = diss0, pot1 = diss0;
  for (int j = 0; j < nmp; j += LANES) {
    FREE2(j, 0);
    FREE2(j + 4, 1);
  }
  out[0] = hsum(diss0 + diss1);
  out[1] = hsum(work0 + work1);
  out[2] = hsum(kin0 + kin1);
  out[3] = hsum(pot0 + pot1);
}
