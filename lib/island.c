/* island.c - islands of coupled bodies and the families that step them.
 *
 * Every mass and modal object is a set of linear modes, each obeying
 *   M (q'' + 2 sigma q' + omega^2 q) = sum over points shape f + F_ext,
 * and every contact's compression is linear in the modes:
 *   x_c = sum_j S_cj q_j + (wall displacements) - gap.
 * An island is a set of bodies joined by contacts (walls, being fixed or
 * driven, join nothing).  Its family decides how the modes are stepped:
 *
 * Two-level (two-point, am1): the trapezoidal rule (Papetti eq 20;
 *   Chatziioannou eq 8a), with omega and sigma pre-warped through the
 *   bilinear map, s' = (2/dt) tanh(s dt / 2), so that the discrete free
 *   modes ring at exactly the continuous frequency and decay rate.  With the
 *   contact force over the step fbar the update is
 *     q1 = ca q + cb v + cc (F - S^T fbar),  v1 = 2 (q1 - q)/dt - v,
 *   ca = (2/dt + 2 sigma' - dt omega'^2/2)/D, cb = 2/D, cc = dt/(D M),
 *   D = 2/dt + 2 sigma' + dt omega'^2/2; for a free mass (omega = sigma =
 *   0) this is q1 = q + dt v + dt^2/(2m) (F - fbar): eq 20 and eq 8.  The
 *   discrete energy sum M (v^2 + omega'^2 q^2)/2 changes by exactly the
 *   work of the forces, minus 2 M sigma' dt ((v1 + v)/2)^2.
 * Three-level (three-point, quadratic): the centred recursion with the
 *   exact free response, q1 = a1 q - a2 qm + beta (F - S^T fbar)/M with
 *   a1 = z1 + z2, a2 = z1 z2 for the exact poles z = exp(s dt); it is
 *   M (dtt q + 2 sigma* dt. q + Omega^2 q) = force with sigma* dt =
 *   tanh(sigma dt), Omega^2 dt^2 = 2 (1 + a2 - a1)/(1 + a2) and beta =
 *   dt^2 (1 + a2)/2; for a free mass q1 = 2q - qm + dt^2 F/m
 *   (Chatziioannou eq 7, Ducceschi eq 23).  Energy (Bilbao):
 *   M/2 ((q1 - q)/dt)^2 + M Omega^2 q1 q / 2.
 * Explicit (verlet, heun, rk4): the scheme integrates the whole island's
 *   first-order system literally (solvers/).
 *
 * K-method (Borin, De Poli & Rocchesso; Avanzini): each step the modes
 * give a predicted compression xt per contact and a constant compliance
 * matrix K (K_cd = sum_j S_cj S_dj cc_j), so that x1 = xt - K fbar(x1).
 * One contact: the scheme's closed form (quadratic) or scalar Newton.
 * Up to 16 contacts: Newton with a dense LU of I + K diag(fbar').  More:
 * block Gauss-Seidel over the contacts.  Simultaneous impacts are thus
 * solved as one coupled problem.  A step where no contact can act (every
 * predicted and past compression out of contact) pays for no solve. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define DENSE_MAX 16

extern const vb_scheme vb_scheme_three_point;

static void island_energy(vb_island *is);
static void onset_law(vb_island *is, int c);
static void explicit_power(vb_island *is, double t, double *pd, double *pe);

/* ----------------------------------------------------------- geometry */

/* Displacement of a wall at time t (its position plus its drive). */
static double
wall_u(const vb_body *b, double t, double *rate)
{
  double r = 0.0, u = b->u0;
  if (b->drive.kind != VB_DRIVE_NONE)
    u += vb_drive_eval(&b->drive, t, &r);
  *rate = r;
  return u;
}

/* Part of contact ct's compression not carried by modes: walls and gap. */
double
vb_contact_drive(const vb_scene *sc, const vb_contact *ct, double t, double *rate)
{
  double x = -ct->gap, r = 0.0, rw;
  /* a driven gap (a surface profile under a rolling ball) */
  if (ct->gap_drive.kind != VB_DRIVE_NONE) {
    x -= vb_drive_eval(&ct->gap_drive, t, &rw);
    r -= rw;
  }
  if (sc->bodies[ct->a].kind == VB_BODY_WALL) {
    x += wall_u(&sc->bodies[ct->a], t, &rw);
    r += rw;
  }
  if (sc->bodies[ct->b].kind == VB_BODY_WALL) {
    x -= wall_u(&sc->bodies[ct->b], t, &rw);
    r -= rw;
  }
  *rate = r;
  return x;
}

/* Whether a wall of contact ct or its gap is driven. */
int
vb_contact_driven(const vb_scene *sc, const vb_contact *ct)
{
  return ct->gap_drive.kind != VB_DRIVE_NONE
         || (sc->bodies[ct->a].kind == VB_BODY_WALL && sc->bodies[ct->a].drive.kind != VB_DRIVE_NONE)
         || (sc->bodies[ct->b].kind == VB_BODY_WALL && sc->bodies[ct->b].drive.kind != VB_DRIVE_NONE);
}

/* ------------------------------------------------------------ kernels
 *
 * The per-mode loops run on explicit 4-lane vectors (GCC vector
 * extensions) over arrays padded to a multiple of 4, and are compiled
 * twice (x86-64-v3 with AVX2, and the baseline) with the clone chosen at
 * run time.  Lane-wise arithmetic and a fixed reduction order give the
 * same bits on every x86-64 machine: with -ffp-contract=off no clone
 * fuses multiply-adds, so results do not depend on the node a scene runs
 * on. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define VB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VB_CLONES
#endif

typedef double v4 __attribute__((vector_size(32)));

/* The helpers below are inlined into each clone; the ABI of passing v4 by
 * value never crosses a call. */
#pragma GCC diagnostic ignored "-Wpsabi"

static inline v4
ld4(const double *p)
{
  v4 x;
  memcpy(&x, p, sizeof x);
  return x;
}

static inline void
st4(double *p, v4 x)
{
  memcpy(p, &x, sizeof x);
}

static inline v4
splat(double x)
{
  return (v4){ x, x, x, x };
}

/* Fixed-order horizontal sum. */
static inline double
hsum(v4 s)
{
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* The loops below take 8 modes at a time in two independent 4-lane
 * accumulators (so that additions do not wait on each other); arrays are
 * padded to a multiple of 8. */
#define LANES 8

/* qt = ca q + cb w + cc g; returns row . qt (0 when row is NULL). */
VB_CLONES static double
kernel_predict(int nmp, const double *q, const double *w, const double *ca,
               const double *cb, const double *cc, const double *g, double *qt,
               const double *row)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  for (int j = 0; j < nmp; j += LANES) {
    v4 t0 = ld4(ca + j) * ld4(q + j) + ld4(cb + j) * ld4(w + j) + ld4(cc + j) * ld4(g + j);
    v4 t1 = ld4(ca + j + 4) * ld4(q + j + 4) + ld4(cb + j + 4) * ld4(w + j + 4)
            + ld4(cc + j + 4) * ld4(g + j + 4);
    st4(qt + j, t0);
    st4(qt + j + 4, t1);
    if (row) {
      s0 += ld4(row + j) * t0;
      s1 += ld4(row + j + 4) * t1;
    }
  }
  return hsum(s0 + s1);
}

/* a . b over [from, to), both multiples of 8. */
VB_CLONES static double
kernel_dot(int from, int to, const double *a, const double *b)
{
  v4 s0 = splat(0.0), s1 = splat(0.0);
  for (int j = from; j < to; j += LANES) {
    s0 += ld4(a + j) * ld4(b + j);
    s1 += ld4(a + j + 4) * ld4(b + j + 4);
  }
  return hsum(s0 + s1);
}

/* a . b and a . c in one pass over [from, to). */
VB_CLONES static void
kernel_dot2(int from, int to, const double *a, const double *b, const double *c,
            double *ab, double *ac)
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

/* qt -= cc row f */
VB_CLONES static void
kernel_force(int nmp, double *qt, const double *cc, const double *row, double f)
{
  v4 F = splat(f);
  for (int j = 0; j < nmp; j += 4)
    st4(qt + j, ld4(qt + j) - ld4(cc + j) * ld4(row + j) * F);
}

/* Two-level update of the 4 modes at j, into accumulators with suffix k. */
/* Two-level update of the 4 modes at j, into accumulators with suffix k;
 * `gen` terms only when the island has a generalised force at all. */
#define UPDATE2(j, k)                                                       \
  do {                                                                      \
    v4 q0 = ld4(q + (j)), v0 = ld4(v + (j));                                \
    v4 q1 = ld4(qt + (j)) - ld4(cc + (j)) * ld4(row0 + (j)) * F;            \
    v4 v1 = two * (q1 - q0) * ih - v0;                                      \
    v4 vm = half * (v1 + v0);                                               \
    diss##k += ld4(dcoef + (j)) * vm * vm;                                  \
    if (has_gen)                                                            \
      work##k += ld4(gen + (j)) * (q1 - q0);                                \
    kin##k += ld4(mass + (j)) * v1 * v1;                                    \
    pot##k += ld4(mw2 + (j)) * q1 * q1;                                     \
    st4(q + (j), q1);                                                       \
    st4(v + (j), v1);                                                       \
    if (ahead) {                                                            \
      v4 qn = ld4(ca + (j)) * q1 + ld4(cb + (j)) * v1;                      \
      if (has_gen)                                                          \
        qn += ld4(cc + (j)) * ld4(gen + (j));                               \
      st4(qt + (j), qn);                                                    \
      dot##k += ld4(rowp + (j)) * qn;                                       \
    }                                                                       \
  } while (0)

/* Two-level mode update from the prediction qt and one more contact force
 * f0 along row0: q1, v1 = 2 (q1 - q)/h - v; sums of the step's
 * dissipation, external work, 2 x kinetic and 2 x potential energy.  With
 * `ahead` it also writes the next step's prediction into qt (as predict()
 * would, for a constant generalised force) and its dot with rowp into
 * out[4], saving the next step a pass over the modes.  The flags are
 * constants in each instance below, so the loop carries no branch; with
 * no generalised force the skipped terms are exact zeros. */
#define UPDATE2_INSTANCE(name, AHEAD, HAS_GEN)                              \
  VB_CLONES static void                                                     \
  name(int nmp, double h, double *qt, const double *cc, const double *row0, \
       double f0, double *q, double *v, const double *mass,                 \
       const double *dcoef, const double *mw2, const double *gen,           \
       const double *ca, const double *cb, const double *rowp, double out[5]) \
  {                                                                         \
    v4 F = splat(f0), ih = splat(1.0 / h), two = splat(2.0), half = splat(0.5); \
    v4 diss0 = splat(0.0), work0 = diss0, kin0 = diss0, pot0 = diss0, dot0 = diss0; \
    v4 diss1 = diss0, work1 = diss0, kin1 = diss0, pot1 = diss0, dot1 = diss0; \
    const int ahead = AHEAD, has_gen = HAS_GEN;                             \
    (void)ca; (void)cb; (void)rowp; (void)gen;                              \
    for (int j = 0; j < nmp; j += LANES) {                                  \
      UPDATE2(j, 0);                                                        \
      UPDATE2(j + 4, 1);                                                    \
    }                                                                       \
    out[0] = hsum(diss0 + diss1);                                           \
    out[1] = hsum(work0 + work1);                                           \
    out[2] = hsum(kin0 + kin1);                                             \
    out[3] = hsum(pot0 + pot1);                                             \
    out[4] = hsum(dot0 + dot1);                                             \
  }
UPDATE2_INSTANCE(update2_plain, 0, 1)
UPDATE2_INSTANCE(update2_ahead, 1, 1)
UPDATE2_INSTANCE(update2_ahead_nogen, 1, 0)

/* Two-level update: the instance for the island's case. */
static void
kernel_update2(int nmp, double h, double *qt, const double *cc, const double *row0,
               double f0, double *q, double *v, const double *mass, const double *dcoef,
               const double *mw2, const double *gen, int ahead, int has_gen,
               const double *ca, const double *cb, const double *rowp, double out[5])
{
  if (!ahead)
    update2_plain(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp, out);
  else if (has_gen)
    update2_ahead(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp, out);
  else
    update2_ahead_nogen(nmp, h, qt, cc, row0, f0, q, v, mass, dcoef, mw2, gen, ca, cb, rowp,
                        out);
}

/* Three-level update of the 4 modes at j, into accumulators k. */
#define UPDATE3(j, k)                                                       \
  do {                                                                      \
    v4 q0 = ld4(q + (j)), qp = ld4(qm + (j));                               \
    v4 q1 = ld4(qt + (j)) - ld4(cc + (j)) * ld4(row0 + (j)) * F;            \
    v4 d2 = q1 - qp, d1 = (q1 - q0) * ih;                                   \
    diss##k += ld4(dcoef + (j)) * d2 * d2;                                  \
    work##k += half * ld4(gen + (j)) * d2;                                  \
    kin##k += ld4(mass + (j)) * d1 * d1;                                    \
    pot##k += ld4(mw2 + (j)) * q1 * q0;                                     \
    st4(qm + (j), q0);                                                      \
    st4(q + (j), q1);                                                       \
    if (ahead) {                                                            \
      v4 qn = ld4(ca + (j)) * q1 + ld4(cb + (j)) * (-q0) + ld4(cc + (j)) * ld4(gen + (j)); \
      st4(qt + (j), qn);                                                    \
      dot##k += ld4(rowp + (j)) * qn;                                       \
    }                                                                       \
  } while (0)

/* Three-level mode update: q1 from qt and f0 along row0, then qm = q,
 * q = q1; sums as kernel_update2 (energy of the step into n+1). */
VB_CLONES static void
kernel_update3(int nmp, double h, double *qt, const double *cc, const double *row0,
               double f0, double *q, double *qm, const double *mass, const double *dcoef,
               const double *mw2, const double *gen, int ahead, const double *ca,
               const double *cb, const double *rowp, double out[5])
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

/* ------------------------------------------------------- coefficients */

/* Bilinear pre-warping: the continuous (omega'^2, sigma') whose trapezoidal
 * discretisation has the exact poles exp(s dt) of (omega, sigma). */
static void
warp_bilinear(double w0, double sig, double h, double *w2p, double *sigp)
{
  double disc = sig * sig - w0 * w0;
  if (w0 == 0.0 && sig == 0.0) {
    *w2p = 0.0;
    *sigp = 0.0;
  } else if (disc < 0.0) {
    double complex s = -sig + I * sqrt(-disc);
    double complex sp = (2.0 / h) * ctanh(s * h / 2.0);
    *sigp = -creal(sp);
    *w2p = creal(sp) * creal(sp) + cimag(sp) * cimag(sp);
  } else {
    double r = sqrt(disc);
    double p1 = (2.0 / h) * tanh((-sig + r) * h / 2.0);
    double p2 = (2.0 / h) * tanh((-sig - r) * h / 2.0);
    *sigp = -0.5 * (p1 + p2);
    *w2p = p1 * p2;
  }
}

/* Exact centred recursion: a1 = z1 + z2, a2 = z1 z2 for z = exp(s dt), and
 * g = 1 + a2 - a1 computed without cancellation. */
static void
exact_centred(double w0, double sig, double h, double *a1, double *a2, double *g)
{
  double disc = sig * sig - w0 * w0;
  if (disc < 0.0) {
    double wd = sqrt(-disc), e = exp(-sig * h), one_e = -expm1(-sig * h);
    double sn = sin(0.5 * wd * h);
    *a1 = 2.0 * e * cos(wd * h);
    *a2 = e * e;
    *g = one_e * one_e + 4.0 * e * sn * sn;
  } else {
    double r = sqrt(disc);
    double s1 = -sig + r, s2 = -sig - r;
    *a1 = exp(s1 * h) + exp(s2 * h);
    *a2 = exp((s1 + s2) * h);
    *g = expm1(s1 * h) * expm1(s2 * h);
  }
}

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

/* Stability limit of omega dt for an explicit scheme's undamped modes. */
static double
explicit_limit(const vb_scheme *s)
{
  if (strcmp(s->name, "verlet") == 0)
    return 2.0;          /* leapfrog */
  if (strcmp(s->name, "rk4") == 0)
    return 2.78;         /* RK4 on the imaginary axis: 2 sqrt(2), less margin */
  return 1.0;            /* Heun grows by sqrt(1 + (w dt)^4 / 4) a step */
}

/* ------------------------------------------------------------- building */

static int
find(int *parent, int i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* Free islands. */
void
vb_islands_free(vb_island *is, int n)
{
  if (!is)
    return;
  for (int i = 0; i < n; i++) {
    free(is[i].contacts);
    free(is[i].cts);
    free(is[i].law0);
    free(is[i].q);
    free(is[i].S);
    free(is[i].xdrv);
    free(is[i].hist);
    free(is[i].piv);
    free(is[i].iterations);
    free(is[i].forces);
    free(is[i].bodies);
    free(is[i].P);
  }
  free(is);
}

/* Zeroed memory aligned for vector loads; NULL on failure. */
static void *
zalloc(size_t n, size_t size)
{
  size_t bytes = (n * size + 63) / 64 * 64 + 64;
  void *p = aligned_alloc(64, bytes);
  if (p)
    memset(p, 0, bytes);
  return p;
}

/* Allocate one island's arrays (one block per type). */
static int
island_alloc(vb_island *is, int nm, int nc, int nf, int nb, int npts)
{
  size_t mp = ((size_t)nm + 7) / 8 * 8, c = (size_t)nc;
  is->nm = nm;
  is->nmp = (int)mp;
  is->nc = nc;
  is->nf = nf;
  is->nb = nb;
  is->npts = npts;
  is->q = zalloc(22 * mp + 4, sizeof(double));
  is->S = zalloc((c > 0 ? c : 1) * mp + 3 * c * c + 4, sizeof(double));
  is->P = zalloc((size_t)npts * mp + 4, sizeof(double));
  is->xdrv = zalloc(12 * c + 2, sizeof(double));
  is->hist = calloc(c + 1, sizeof(vb_chist));
  is->piv = calloc(c + 1, sizeof(int));
  is->iterations = calloc(2 * c + 1, sizeof(int));
  is->contacts = calloc(c + 1, sizeof(int));
  is->cts = calloc(c + 1, sizeof(vb_contact));
  is->law0 = calloc(c + 1, sizeof(vb_law));
  is->forces = calloc(2 * (size_t)nf + 1, sizeof(int));
  is->bodies = calloc(3 * (size_t)nb + 2 * (size_t)npts + 1, sizeof(int));
  if (!is->q || !is->S || !is->P || !is->xdrv || !is->hist || !is->piv || !is->iterations
      || !is->contacts || !is->cts || !is->law0 || !is->forces || !is->bodies)
    return VB_ENOMEM;
  double *p = is->q;
  is->v = p += mp;
  is->qm = p += mp;
  is->acc = p += mp;
  is->mass = p += mp;
  is->w2 = p += mp;
  is->sig = p += mp;
  is->ca = p += mp;
  is->cb = p += mp;
  is->cc = p += mp;
  is->gconst = p += mp;
  is->gen = p += mp;
  is->qt = p += mp;
  is->dcoef = p += mp;
  is->mw2 = p += mp;
  is->scratch = p += mp; /* 6 mp */
  for (size_t j = (size_t)nm; j < mp; j++)
    is->mass[j] = 1.0; /* padding: inert */
  double *s = is->S + (c > 0 ? c : 1) * mp;
  is->K = s;
  is->jac = s + c * c;
  is->rhs = s + 2 * c * c;
  double *d = is->xdrv;
  is->xdrv_rate = d + c;
  is->xdrv_m = d + 2 * c;
  is->fbar = d + 3 * c;
  is->xt = d + 4 * c;
  is->x1 = d + 5 * c;
  is->meff = d + 6 * c;
  is->aext = d + 7 * c;
  is->power = d + 8 * c;
  is->xd_next = d + 8 * c + 2;
  is->rd_next = d + 9 * c + 2;
  is->fallback = is->iterations + c;
  is->force_mode = is->forces + nf;
  is->offsets = is->bodies + nb;
  is->point_first = is->bodies + 2 * nb;
  is->point_from = is->bodies + 3 * nb;
  is->point_to = is->point_from + npts;
  return VB_OK;
}

/* Island mode index of the first mode of body b, or -1. */
int
vb_island_body_offset(const vb_island *is, int b)
{
  for (int i = 0; i < is->nb; i++)
    if (is->bodies[i] == b)
      return is->offsets[i];
  return -1;
}

/* Fill the modes of an island and check each can be stepped. */
static int
island_modes(vb_island *is, const vb_scene *sc, char *err, size_t errlen)
{
  double h = is->dt;
  for (int i = 0; i < is->nb; i++) {
    const vb_body *b = &sc->bodies[is->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = is->offsets[i] + k;
      double w0 = 2.0 * M_PI * b->freq[k], sg = b->sigma[k];
      is->mass[j] = b->modal_mass[k];
      is->gconst[j] = -sc->gravity * b->modal_mass[k] * b->gravity[k];
      if (b->freq[k] >= 0.5 * sc->fs) {
        snprintf(err, errlen, "%s:%d: body '%s': mode %d at %g Hz is at or above the "
                 "Nyquist frequency %g Hz (valid: raise scene.fs or drop the mode)",
                 sc->path, b->line, b->name, k, b->freq[k], 0.5 * sc->fs);
        return VB_EINVAL;
      }
      if (is->family == VB_FAMILY_TWO_LEVEL) {
        double w2p, sgp;
        warp_bilinear(w0, sg, h, &w2p, &sgp);
        double D = 2.0 / h + 2.0 * sgp + 0.5 * h * w2p;
        is->w2[j] = w2p;
        is->sig[j] = sgp;
        is->ca[j] = (2.0 / h + 2.0 * sgp - 0.5 * h * w2p) / D;
        is->cb[j] = 2.0 / D;
        is->cc[j] = h / (D * is->mass[j]);
        is->dcoef[j] = 2.0 * is->mass[j] * sgp * h;
        is->mw2[j] = is->mass[j] * w2p;
      } else if (is->family == VB_FAMILY_THREE_LEVEL) {
        double a1, a2, g;
        exact_centred(w0, sg, h, &a1, &a2, &g);
        is->ca[j] = a1;
        is->cb[j] = a2;
        is->w2[j] = 2.0 * g / ((1.0 + a2) * h * h);
        is->sig[j] = (1.0 - a2) / ((1.0 + a2) * h);
        is->cc[j] = 0.5 * h * h * (1.0 + a2) / is->mass[j];
        is->dcoef[j] = 0.5 * is->mass[j] * is->sig[j] / h;
        is->mw2[j] = is->mass[j] * is->w2[j];
        if (is->w2[j] * h * h >= 4.0) {
          snprintf(err, errlen, "%s:%d: body '%s': mode %d (%g Hz, sigma %g) has no "
                   "positive discrete energy at fs %g for a three-level scheme "
                   "(valid: raise scene.fs or use a two-level scheme)",
                   sc->path, b->line, b->name, k, b->freq[k], sg, sc->fs);
          return VB_EINVAL;
        }
      } else {
        is->w2[j] = w0 * w0;
        is->sig[j] = sg;
        double lim = explicit_limit(is->explicit_scheme);
        if (w0 * h > lim) {
          snprintf(err, errlen, "%s:%d: body '%s': mode %d at %g Hz is beyond the "
                   "stability limit of scheme '%s' (omega dt = %.3g > %g; valid: raise "
                   "scene.fs above %.6g Hz or use a two-level or three-level scheme)",
                   sc->path, b->line, b->name, k, b->freq[k], is->explicit_scheme->name,
                   w0 * h, lim, w0 / lim);
          return VB_EINVAL;
        }
      }
    }
  }
  return VB_OK;
}

/* Chatziioannou section 3: for alpha = 1 the beta* substitutions make the
 * contact duration exact, pi / omega_c with omega_c = sqrt(k / m):
 *   eq 15 (two-point):   beta2* = (1 - cos(w dt)) / (1 + cos(w dt)),
 *   eq 16 (three-point): beta3* = (1 - cos(w dt)) / cos(w dt),
 * with beta2 = k dt^2 / (4 m) and beta3 = k dt^2 / (2 m) for alpha = 1, so
 * the scheme steps the contact with k* = 4 m beta2* / dt^2 (resp.
 * 2 m beta3* / dt^2), m the contact's effective mass (for a mass against a
 * wall exactly the paper's substitution).  Beyond the limits (w dt < pi,
 * resp. pi/2) the scene is refused unless `saturate` is set; then
 * w = 0.99 of the limit is used, a contact of 1.01 times the shortest
 * duration the scheme can resolve. */
static double
exact_omega(const vb_contact *ct, double meff, double h, double *limit)
{
  double w = sqrt(ct->law.k / meff);
  *limit = (ct->scheme->family == VB_FAMILY_THREE_LEVEL ? 0.5 : 1.0) * M_PI / h;
  return w < *limit ? w : 0.99 * *limit;
}

static void
exact_duration(vb_island *is, int c)
{
  vb_contact *ct = &is->cts[c];
  if (!ct->exact_duration)
    return;
  double limit, h = is->dt, m = is->meff[c];
  double cw = cos(exact_omega(ct, m, h, &limit) * h);
  if (ct->scheme->family == VB_FAMILY_THREE_LEVEL)
    ct->law.k = 2.0 * m / (h * h) * (1.0 - cw) / cw;      /* eq 16 */
  else
    ct->law.k = 4.0 * m / (h * h) * (1.0 - cw) / (1.0 + cw); /* eq 15 */
}

/* Compression rows, compliance, effective masses of an island. */
static void
island_contacts(vb_island *is, const vb_scene *sc)
{
  int nm = is->nm, nc = is->nc;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &is->cts[c];
    double *row = is->S + (size_t)c * is->nmp;
    int ends[2] = { ct->a, ct->b }, pts[2] = { ct->pa, ct->pb };
    for (int e = 0; e < 2; e++) {
      const vb_body *b = &sc->bodies[ends[e]];
      if (b->kind == VB_BODY_WALL)
        continue;
      int off = vb_island_body_offset(is, ends[e]);
      const double *shape = b->points[pts[e]].shape;
      for (int k = 0; k < b->nmodes; k++)
        row[off + k] += (e == 0 ? 1.0 : -1.0) * shape[k];
    }
    /* free-flight acceleration of the compression: gravity on the rigid
     * (0 Hz) modes; on the elastic modes springs hold it as a static sag */
    double mob = 0.0, acc = 0.0;
    for (int j = 0; j < nm; j++) {
      mob += row[j] * row[j] / is->mass[j];
      if (is->w2[j] == 0.0)
        acc += row[j] * is->gconst[j] / is->mass[j];
    }
    is->meff[c] = mob > 0.0 ? 1.0 / mob : INFINITY;
    is->aext[c] = acc;
  }
  for (int c = 0; c < nc; c++) {
    exact_duration(is, c);
    is->law0[c] = is->cts[c].law;
  }
  for (int c = 0; c < nc; c++)
    for (int d = 0; d < nc; d++) {
      double k = 0.0;
      const double *rc = is->S + (size_t)c * is->nmp, *rd = is->S + (size_t)d * is->nmp;
      if (is->family != VB_FAMILY_EXPLICIT)
        for (int j = 0; j < nm; j++)
          k += rc[j] * rd[j] * is->cc[j];
      is->K[c * nc + d] = k;
    }
}

/* Build the islands of a scene. */
int
vb_islands_build(const vb_scene *sc, double dt, vb_island **out, int *n, char *err,
                 size_t errlen)
{
  int nb = sc->nbodies, nc = sc->ncontacts;
  int *parent = malloc((size_t)(nb + 1) * sizeof(int));
  int *root_island = malloc((size_t)(nb + 1) * sizeof(int));
  int *first_contact = malloc((size_t)(nb + 1) * sizeof(int));
  vb_island *is = NULL;
  int count = 0, rc = VB_OK;
  *out = NULL;
  *n = 0;
  if (!parent || !root_island || !first_contact) {
    rc = VB_ENOMEM;
    goto done;
  }
  for (int i = 0; i < nb; i++) {
    parent[i] = i;
    root_island[i] = -1;
    first_contact[i] = -1;
  }
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (sc->bodies[ct->a].kind != VB_BODY_WALL && sc->bodies[ct->b].kind != VB_BODY_WALL)
      parent[find(parent, ct->a)] = find(parent, ct->b);
  }
  for (int i = 0; i < nb; i++)
    if (sc->bodies[i].kind != VB_BODY_WALL && root_island[find(parent, i)] < 0)
      root_island[find(parent, i)] = count++;
  is = calloc((size_t)(count + 1), sizeof *is);
  if (!is) {
    rc = VB_ENOMEM;
    goto done;
  }
  /* family of each island from its contacts: all must agree */
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &sc->contacts[c];
    int body = sc->bodies[ct->a].kind != VB_BODY_WALL ? ct->a : ct->b;
    int k = root_island[find(parent, body)];
    int r = find(parent, body);
    if (first_contact[r] < 0) {
      first_contact[r] = c;
      continue;
    }
    const vb_contact *c0 = &sc->contacts[first_contact[r]];
    int clash = c0->scheme->family != ct->scheme->family
                || (ct->scheme->family == VB_FAMILY_EXPLICIT && c0->scheme != ct->scheme);
    if (clash) {
      /* name a body the two contacts share, if they touch one */
      int walls[2] = { sc->bodies[ct->a].kind == VB_BODY_WALL,
                       sc->bodies[ct->b].kind == VB_BODY_WALL };
      if (!walls[0] && (ct->a == c0->a || ct->a == c0->b))
        body = ct->a;
      else if (!walls[1] && (ct->b == c0->a || ct->b == c0->b))
        body = ct->b;
      snprintf(err, errlen, "%s:%d: contact '%s': scheme '%s' cannot step body '%s' "
               "together with contact '%s' (scheme '%s') in one island (valid: one "
               "family per island: two-point/am1, three-point/quadratic, or a single "
               "explicit scheme)", sc->path, ct->line, ct->name, ct->scheme->name,
               sc->bodies[body].name, c0->name, c0->scheme->name);
      rc = VB_EINVAL;
      goto done;
    }
    (void)k;
  }
  for (int k = 0; k < count; k++) {
    vb_island *isl = &is[k];
    int nm = 0, ncon = 0, nf = 0, nbod = 0, npts = 0, root = -1;
    for (int i = 0; i < nb; i++)
      if (sc->bodies[i].kind != VB_BODY_WALL && root_island[find(parent, i)] == k) {
        nm += sc->bodies[i].nmodes;
        npts += sc->bodies[i].kind == VB_BODY_MODAL ? sc->bodies[i].npoints : 1;
        nbod++;
        root = find(parent, i);
      }
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &sc->contacts[c];
      int body = sc->bodies[ct->a].kind != VB_BODY_WALL ? ct->a : ct->b;
      ncon += find(parent, body) == root;
    }
    for (int f = 0; f < sc->nforces; f++)
      nf += find(parent, sc->forces[f].body) == root;
    isl->scene = sc;
    isl->dt = dt;
    if (island_alloc(isl, nm, ncon, nf, nbod, npts) != VB_OK) {
      rc = VB_ENOMEM;
      goto done;
    }
    isl->family = first_contact[root] >= 0
                  ? sc->contacts[first_contact[root]].scheme->family : VB_FAMILY_TWO_LEVEL;
    isl->explicit_scheme = isl->family == VB_FAMILY_EXPLICIT
                           ? sc->contacts[first_contact[root]].scheme : NULL;
    int m = 0, ib = 0, row = 0;
    for (int i = 0; i < nb; i++)
      if (sc->bodies[i].kind != VB_BODY_WALL && find(parent, i) == root) {
        const vb_body *b = &sc->bodies[i];
        isl->bodies[ib] = i;
        isl->point_first[ib] = row;
        isl->offsets[ib++] = m;
        /* recorded point rows over the island's modes */
        for (int pt = 0; pt < (b->kind == VB_BODY_MODAL ? b->npoints : 1); pt++, row++) {
          for (int j = 0; j < b->nmodes; j++)
            isl->P[(size_t)row * isl->nmp + m + j] = b->points[pt].shape[j];
          isl->point_from[row] = m / 8 * 8;
          isl->point_to[row] = (m + b->nmodes + 7) / 8 * 8;
        }
        m += b->nmodes;
      }
    int ic = 0;
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &sc->contacts[c];
      int body = sc->bodies[ct->a].kind != VB_BODY_WALL ? ct->a : ct->b;
      if (find(parent, body) == root) {
        isl->cts[ic] = *ct;
        isl->contacts[ic++] = c;
      }
    }
    int jf = 0;
    for (int f = 0; f < sc->nforces; f++)
      if (find(parent, sc->forces[f].body) == root) {
        isl->forces[jf] = f;
        isl->force_mode[jf++] = vb_island_body_offset(isl, sc->forces[f].body);
      }
    if ((rc = island_modes(isl, sc, err, errlen)) != VB_OK)
      goto done;
    island_contacts(isl, sc);
    isl->has_gen = isl->nf > 0;
    for (int j = 0; j < isl->nm; j++)
      isl->has_gen |= isl->gconst[j] != 0.0;
    for (int c = 0; c < isl->nc; c++) {
      const vb_contact *ct = &sc->contacts[isl->contacts[c]];
      double limit, w = ct->exact_duration ? sqrt(ct->law.k / isl->meff[c]) : 0.0;
      exact_omega(ct, isl->meff[c], dt, &limit);
      if (ct->exact_duration && !ct->saturate && !(w < limit)) {
        snprintf(err, errlen, "%s:%d: contact '%s': exact_duration: omega_c = %.6g rad/s "
                 "(contact time %.4g s) is beyond the limit of scheme '%s', %.6g rad/s "
                 "(contact time %.4g s = %d steps) (valid: raise scene.fs above %.6g Hz, "
                 "or set saturate = true to use the limit)", sc->path, ct->line, ct->name,
                 w, M_PI / w, ct->scheme->name, limit, M_PI / limit,
                 ct->scheme->family == VB_FAMILY_THREE_LEVEL ? 2 : 1,
                 w * (ct->scheme->family == VB_FAMILY_THREE_LEVEL ? 2.0 : 1.0) / M_PI);
        rc = VB_EINVAL;
        goto done;
      }
    }
  }
done:
  free(parent);
  free(root_island);
  free(first_contact);
  if (rc != VB_OK) {
    if (rc == VB_ENOMEM)
      snprintf(err, errlen, "scene '%s': out of memory building islands", sc->name);
    vb_islands_free(is, count);
    return rc;
  }
  *out = is;
  *n = count;
  return VB_OK;
}

/* ----------------------------------------------------------- queries */

/* Effective mass along a contact of a scene. */
double
vb_scene_contact_mass(const vb_scene *scene, int c)
{
  vb_island *is;
  int n;
  char err[8];
  double m = NAN;
  if (vb_islands_build(scene, 1.0 / scene->fs, &is, &n, err, sizeof err) != VB_OK)
    return NAN;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < is[i].nc; k++)
      if (is[i].contacts[k] == c)
        m = is[i].meff[k];
  vb_islands_free(is, n);
  return m;
}

/* Initial state of a contact along its compression. */
void
vb_scene_contact_state(const vb_scene *scene, int c, double *p0, double *v0, double *a0,
                       double *meff)
{
  vb_island *is;
  int n;
  char err[8];
  *p0 = *v0 = *a0 = *meff = NAN;
  if (vb_islands_build(scene, 1.0 / scene->fs, &is, &n, err, sizeof err) != VB_OK)
    return;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < is[i].nc; k++) {
      if (is[i].contacts[k] != c)
        continue;
      const vb_contact *ct = &scene->contacts[c];
      const double *row = is[i].S + (size_t)k * is[i].nmp;
      double x = 0.0, v = 0.0, rate;
      for (int ib = 0; ib < is[i].nb; ib++) {
        const vb_body *b = &scene->bodies[is[i].bodies[ib]];
        for (int j = 0; j < b->nmodes; j++) {
          x += row[is[i].offsets[ib] + j] * b->q0[j];
          v += row[is[i].offsets[ib] + j] * b->dq0[j];
        }
      }
      x += vb_contact_drive(scene, ct, 0.0, &rate);
      v += rate;
      double sign = ct->law.kind == VB_LAW_RATTLE && x < 0.0 ? -1.0 : 1.0;
      *p0 = vb_law_penetration(&ct->law, x);
      *v0 = sign * v;
      *a0 = sign * is[i].aext[k];
      *meff = is[i].meff[k];
    }
  vb_islands_free(is, n);
}

/* Impact rate from free flight out of the initial state. */
double
vb_scene_approach_rate(const vb_scene *scene, int c, double *meff)
{
  double p0, v0, a0, m;
  vb_scene_contact_state(scene, c, &p0, &v0, &a0, &m);
  if (meff)
    *meff = m;
  if (!(p0 <= 0.0) || (v0 <= 0.0 && a0 <= 0.0))
    return 0.0;
  double v2 = v0 * v0 - 2.0 * a0 * p0;
  return v2 > 0.0 ? sqrt(v2) : 0.0;
}

/* Exact-duration figures of an alpha = 1 contact. */
void
vb_contact_exact_duration(const vb_scene *scene, int c, double *omega, double *limit,
                          double *used)
{
  const vb_contact *ct = &scene->contacts[c];
  double m = vb_scene_contact_mass(scene, c);
  *omega = sqrt(ct->law.k / m);
  *used = exact_omega(ct, m, 1.0 / scene->fs, limit);
}

/* ----------------------------------------------------------- corrections */

/* Papetti 4.2 corrections, shared by compliance. */
double
vb_island_correct(vb_island *is, int c, double dx, double dv)
{
  is->ahead = 0; /* the prediction made in passing is stale */
  int nm = is->nm;
  const double *row = is->S + (size_t)c * is->nmp;
  double before = is->kinetic + is->potential;
  for (int j = 0; j < nm; j++) {
    /* the minimal mass-weighted change: delta q_j = S_j / M_j * m_eff * dx */
    double g = row[j] / is->mass[j] * is->meff[c];
    is->q[j] += g * dx;
    is->v[j] += g * dv;
  }
  vb_chist *hc = &is->hist[c];
  hc->x += dx;
  hc->rate += dv;
  hc->xm = hc->x;
  hc->f = vb_law_force(&is->cts[c].law, hc->x, hc->rate);
  is->fbar[c] = hc->f;
  /* the other contacts of the island see their bodies move too */
  for (int d = 0; d < is->nc; d++) {
    if (d == c)
      continue;
    const double *rd = is->S + (size_t)d * is->nmp;
    double sx = 0.0, sv = 0.0;
    for (int j = 0; j < nm; j++) {
      double g = row[j] / is->mass[j] * is->meff[c];
      sx += rd[j] * g;
      sv += rd[j] * g;
    }
    is->hist[d].x += sx * dx;
    is->hist[d].rate += sv * dv;
  }
  if (is->family == VB_FAMILY_EXPLICIT) {
    vb_island_external(is, is->time, is->gen);
    vb_island_accel(is, is->q, is->v, is->fbar, is->gen, is->acc);
    explicit_power(is, is->time, &is->power[0], &is->power[1]);
  }
  island_energy(is);
  double added = is->kinetic + is->potential - before;
  is->corrected += added;
  return added;
}

/* ------------------------------------------------------------- helpers */

/* Generalised force on every mode at time t. */
void
vb_island_external(vb_island *is, double t, double *gen)
{
  const vb_scene *sc = is->scene;
  memcpy(gen, is->gconst, (size_t)is->nm * sizeof(double));
  for (int k = 0; k < is->nf; k++) {
    const vb_force *f = &sc->forces[is->forces[k]];
    const vb_body *b = &sc->bodies[f->body];
    double F = f->value;
    if (f->kind == VB_FORCE_HARMONIC)
      F += f->amplitude * sin(2.0 * M_PI * f->freq * t + f->phase);
    const double *shape = b->points[f->point].shape;
    double *g = gen + is->force_mode[k];
    for (int j = 0; j < b->nmodes; j++)
      g[j] += shape[j] * F;
  }
}

/* Contact compressions and rates of a state (q, v) at time t. */
void
vb_island_compressions(const vb_island *is, const double *q, const double *v, double t,
                       double *x, double *rate)
{
  int nm = is->nm;
  for (int c = 0; c < is->nc; c++) {
    const double *row = is->S + (size_t)c * is->nmp;
    double xr, sx = 0.0, sv = 0.0;
    double xd = vb_contact_drive(is->scene, &is->cts[c], t, &xr);
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
vb_island_accel(const vb_island *is, const double *q, const double *v, const double *f,
                const double *ext, double *a)
{
  int nm = is->nm;
  for (int j = 0; j < nm; j++)
    a[j] = ext[j];
  for (int c = 0; c < is->nc; c++) {
    const double *row = is->S + (size_t)c * is->nmp;
    for (int j = 0; j < nm; j++)
      a[j] -= row[j] * f[c];
  }
  for (int j = 0; j < nm; j++)
    a[j] = a[j] / is->mass[j] - 2.0 * is->sig[j] * v[j] - is->w2[j] * q[j];
}

/* ------------------------------------------------------------ energy */

/* The family's discrete energy of the island's modes and contacts. */
static void
island_energy(vb_island *is)
{
  int nm = is->nm;
  double kin = 0.0, pot = 0.0, h = is->dt;
  if (is->family == VB_FAMILY_THREE_LEVEL) {
    for (int j = 0; j < nm; j++) {
      double r = (is->q[j] - is->qm[j]) / h;
      kin += 0.5 * is->mass[j] * r * r;
      pot += 0.5 * is->mass[j] * is->w2[j] * is->q[j] * is->qm[j];
    }
  } else {
    for (int j = 0; j < nm; j++) {
      kin += 0.5 * is->mass[j] * is->v[j] * is->v[j];
      pot += 0.5 * is->mass[j] * is->w2[j] * is->q[j] * is->q[j];
    }
  }
  for (int c = 0; c < is->nc; c++) {
    const vb_contact *ct = &is->cts[c];
    pot += ct->scheme->potential ? ct->scheme->potential(ct, &is->hist[c])
                                 : vb_law_potential(&ct->law, is->hist[c].x);
  }
  is->kinetic = kin;
  is->potential = pot;
}

/* Explicit family: dissipated and external power of the current state. */
static void
explicit_power(vb_island *is, double t, double *pd, double *pe)
{
  int nm = is->nm;
  double *ext = is->scratch;
  double d = 0.0, e = 0.0;
  vb_island_external(is, t, ext);
  for (int j = 0; j < nm; j++) {
    d += 2.0 * is->mass[j] * is->sig[j] * is->v[j] * is->v[j];
    e += ext[j] * is->v[j];
  }
  for (int c = 0; c < is->nc; c++) {
    const vb_contact *ct = &is->cts[c];
    d += vb_law_damping_power(&ct->law, is->hist[c].x, is->hist[c].rate);
    e += vb_law_force(&ct->law, is->hist[c].x, is->hist[c].rate) * is->xdrv_rate[c];
  }
  *pd = d;
  *pe = e;
}

/* ------------------------------------------------------------- start */

/* Set the state at t = 0. */
void
vb_island_start(vb_island *is)
{
  const vb_scene *sc = is->scene;
  double h = is->dt;
  int nm = is->nm;
  is->time = 0.0;
  is->dissipated = is->external = is->corrected = 0.0;
  is->ahead = 0;
  is->newton_failures = 0;
  vb_island_external(is, 0.0, is->gen);
  for (int i = 0; i < is->nb; i++) {
    const vb_body *b = &sc->bodies[is->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = is->offsets[i] + k;
      is->q[j] = b->q0[k];
      is->v[j] = b->dq0[k];
      /* two-level: the trapezoidal velocity that makes the discrete free
       * response the exact one (q at dt exact); a free mass keeps dq0 */
      if (is->family == VB_FAMILY_TWO_LEVEL && (b->freq[k] != 0.0 || b->sigma[k] != 0.0)) {
        double q1 = free_response(2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k], b->dq0[k],
                                  is->gen[j] / is->mass[j], h);
        is->v[j] = (q1 - is->ca[j] * b->q0[k] - is->cc[j] * is->gen[j]) / is->cb[j];
      }
      /* three-level: q^(-1) from the exact free response at t = -dt */
      is->qm[j] = free_response(2.0 * M_PI * b->freq[k], b->sigma[k], b->q0[k], b->dq0[k],
                                is->gen[j] / is->mass[j], -h);
    }
  }
  for (int c = 0; c < is->nc; c++) {
    const vb_contact *ct = &is->cts[c];
    const double *row = is->S + (size_t)c * is->nmp;
    double sx = 0.0, sv = 0.0, sm = 0.0, xr, xrm;
    for (int j = 0; j < nm; j++) {
      sx += row[j] * is->q[j];
      sv += row[j] * is->v[j];
      sm += row[j] * is->qm[j];
    }
    is->xdrv[c] = vb_contact_drive(sc, ct, 0.0, &xr);
    is->xdrv_rate[c] = xr;
    is->xdrv_m[c] = vb_contact_drive(sc, ct, -h, &xrm);
    vb_chist *hc = &is->hist[c];
    hc->x = sx + is->xdrv[c];
    hc->rate = sv + xr;
    if (is->family == VB_FAMILY_THREE_LEVEL) {
      hc->xm = sm + is->xdrv_m[c];
      hc->rate = (hc->x - hc->xm) / h;
    } else {
      hc->xm = hc->x;
    }
    /* a contact in contact at t = 0 takes its law at its initial rate */
    onset_law(is, c);
    hc->f = vb_law_force(&ct->law, hc->x, hc->rate);
    is->fbar[c] = hc->f;
    is->iterations[c] = 0;
    is->fallback[c] = 0;
  }
  if (is->family == VB_FAMILY_EXPLICIT) {
    vb_island_accel(is, is->q, is->v, is->fbar, is->gen, is->acc);
    explicit_power(is, 0.0, &is->power[0], &is->power[1]);
  }
  island_energy(is);
}

/* --------------------------------------------------------------- solve */

/* Contact c, out of contact at n, takes the law of an impact that would
 * begin in this step: vb_law_at_onset of its compiled law with v_in the
 * penetration rate at n, the rate at the last step before penetration
 * (three-level: the secant rate into n).  A contact in contact keeps the
 * law its impact began with. */
static void
onset_law(vb_island *is, int c)
{
  const vb_chist *hc = &is->hist[c];
  const vb_law *law = &is->law0[c];
  double sign = law->kind == VB_LAW_RATTLE && hc->x < 0.0 ? -1.0 : 1.0;
  vb_law_at_onset(law, sign * hc->rate, &is->cts[c].law);
}

/* onset_law for every contact out of contact at n (and, three-level, at
 * n-1). */
static void
onset_laws(vb_island *is)
{
  int three = is->family == VB_FAMILY_THREE_LEVEL;
  for (int c = 0; c < is->nc; c++) {
    const vb_chist *hc = &is->hist[c];
    if (!vb_law_engaged(&is->law0[c], hc->x)
        && !(three && vb_law_engaged(&is->law0[c], hc->xm)))
      onset_law(is, c);
  }
}

/* Whether a contact could exert a force this step. */
static int
may_act(const vb_contact *ct, const vb_chist *h, double xt, int three)
{
  const vb_law *law = &ct->law;
  return vb_law_engaged(law, xt) || vb_law_engaged(law, h->x)
         || (three && vb_law_engaged(law, h->xm));
}

typedef struct {
  const vb_contact *ct;
  const vb_scheme *scheme;
  const vb_chist *h;
  double dt, e, w;
} scalar_problem;

/* y - e + w F(y). */
static double
scalar_residual(double y, void *data, double *dr)
{
  const scalar_problem *p = data;
  double df;
  double f = p->scheme->step_force(p->ct, p->h, p->dt, y, &df);
  *dr = 1.0 + p->w * df;
  return y - p->e + p->w * f;
}

/* Solve one contact: x1 = e - w F(x1).  The quadratic scheme's closed form
 * first; its negative discriminant falls back to the three-point force. */
static int
solve_one(vb_island *is, int c, double e, double w, double *x1)
{
  const vb_contact *ct = &is->cts[c];
  const vb_scheme *sch = ct->scheme;
  vb_chist *h = &is->hist[c];
  is->fallback[c] = 0;
  is->iterations[c] = 0;
  if (sch->solve_single) {
    int rc = sch->solve_single(ct, h, is->dt, e, w, x1);
    if (rc != VB_EDISCRIM)
      return rc;
    is->fallback[c] = 1;
    sch = &vb_scheme_three_point;
  }
  scalar_problem p = { ct, sch, h, is->dt, e, w };
  double scale = fabs(h->x) + fabs(e - h->x) + 1e-300;
  return vb_newton_solve(scalar_residual, &p, e, scale, ct->tolerance, ct->max_iterations,
                         x1, &is->iterations[c]);
}

/* The force function of contact c as it is being solved this step. */
static double
force_of(vb_island *is, int c, double x1, double *df)
{
  const vb_contact *ct = &is->cts[c];
  const vb_scheme *sch = is->fallback[c] ? &vb_scheme_three_point : ct->scheme;
  return sch->step_force(ct, &is->hist[c], is->dt, x1, df);
}

/* LU with partial pivoting of the n x n matrix a; 0 if singular. */
static int
lu_factor(double *a, int *piv, int n)
{
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
        p = i;
    piv[k] = p;
    if (a[p * n + k] == 0.0)
      return 0;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
    for (int i = k + 1; i < n; i++) {
      double l = a[i * n + k] /= a[k * n + k];
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= l * a[k * n + j];
    }
  }
  return 1;
}

static void
lu_solve(const double *a, const int *piv, int n, double *b)
{
  for (int k = 0; k < n; k++) {
    double t = b[piv[k]];
    b[piv[k]] = b[k];
    b[k] = t;
    for (int i = k + 1; i < n; i++)
      b[i] -= a[i * n + k] * b[k];
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++)
      b[k] -= a[k * n + j] * b[j];
    b[k] /= a[k * n + k];
  }
}

/* Newton on x1 = xt - K F(x1) for all contacts together (dense LU), from
 * xt, or from the current x1 (keeping each contact's fall-back choice)
 * when `resume` is set. */
static int
solve_dense(vb_island *is, int resume)
{
  int nc = is->nc, maxit = 0;
  double *x1 = is->x1, *J = is->jac, *r = is->rhs;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &is->cts[c];
    if (!resume) {
      x1[c] = is->xt[c];
      is->fallback[c] = 0;
      is->iterations[c] = 0;
    }
    if (ct->max_iterations > maxit)
      maxit = ct->max_iterations;
  }
  for (int it = 1; it <= maxit; it++) {
    for (int c = 0; c < nc; c++) {
      double df;
      is->fbar[c] = force_of(is, c, x1[c], &df);
      is->rhs[c] = df; /* stash F' */
    }
    for (int c = 0; c < nc; c++)
      for (int d = 0; d < nc; d++)
        J[c * nc + d] = (c == d) + is->K[c * nc + d] * is->rhs[d];
    int converged = 1;
    for (int c = 0; c < nc; c++) {
      double s = 0.0;
      for (int d = 0; d < nc; d++)
        s += is->K[c * nc + d] * is->fbar[d];
      r[c] = -(x1[c] - is->xt[c] + s);
    }
    if (!lu_factor(J, is->piv, nc))
      return VB_ENOCONV;
    lu_solve(J, is->piv, nc, r);
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &is->cts[c];
      const vb_chist *h = &is->hist[c];
      double scale = fabs(h->x) + fabs(is->xt[c] - h->x) + 1e-300;
      x1[c] += r[c];
      is->iterations[c] += 1;
      if (!isfinite(x1[c]))
        return VB_EDIVERGED;
      if (fabs(r[c]) > ct->tolerance * fmax(fabs(x1[c]), scale))
        converged = 0;
    }
    if (converged)
      return VB_OK;
  }
  return VB_ENOCONV;
}

/* Block Gauss-Seidel over many contacts: each solved in turn with the
 * others' forces fixed (warm-started from the previous step's forces),
 * sweeps until no compression moves. */
static int
solve_gauss_seidel(vb_island *is)
{
  int nc = is->nc, maxit = 0, rc = VB_OK;
  for (int c = 0; c < nc; c++) {
    is->x1[c] = is->xt[c];
    is->fallback[c] = 0;
    is->iterations[c] = 0;
    int m = is->cts[c].max_iterations;
    if (m > maxit)
      maxit = m;
  }
  for (int sweep = 1; sweep <= maxit; sweep++) {
    int converged = 1;
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &is->cts[c];
      double e = is->xt[c], w = is->K[c * nc + c], y, df;
      for (int d = 0; d < nc; d++)
        if (d != c)
          e -= is->K[c * nc + d] * is->fbar[d];
      if (!may_act(ct, &is->hist[c], e, is->family == VB_FAMILY_THREE_LEVEL)) {
        y = e;
        is->fbar[c] = 0.0;
      } else {
        int its = is->iterations[c];
        rc = solve_one(is, c, e, w, &y);
        if (rc == VB_EDIVERGED)
          return rc;
        is->iterations[c] += its;
        is->fbar[c] = force_of(is, c, y, &df);
      }
      double scale = fabs(is->hist[c].x) + fabs(e - is->hist[c].x) + 1e-300;
      if (fabs(y - is->x1[c]) > ct->tolerance * fmax(fabs(y), scale))
        converged = 0;
      is->x1[c] = y;
    }
    if (converged)
      return rc;
  }
  return VB_ENOCONV;
}

/* Find the step forces fbar of an island's contacts; VB_OK, VB_ENOCONV or
 * VB_EDIVERGED.  Sets x1 to the new compressions. */
static int
solve_contacts(vb_island *is)
{
  int nc = is->nc, three = is->family == VB_FAMILY_THREE_LEVEL, any = 0;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &is->cts[c];
    any |= may_act(ct, &is->hist[c], is->xt[c], three);
  }
  if (!any) {
    /* no contact can act: fbar = 0 is the solution, no solve */
    for (int c = 0; c < nc; c++) {
      is->fbar[c] = 0.0;
      is->x1[c] = is->xt[c];
      is->iterations[c] = 0;
      is->fallback[c] = 0;
    }
    return VB_OK;
  }
  onset_laws(is);
  int rc;
  if (nc == 1) {
    double w = is->K[0];
    rc = solve_one(is, 0, is->xt[0], w, &is->x1[0]);
    /* the force consistent with the modes' linear response */
    is->fbar[0] = (is->xt[0] - is->x1[0]) / w;
    return rc;
  }
  /* dense Newton for a few contacts; block Gauss-Seidel for many, and for
   * any island with a closed-form contact (the quadratic scheme), whose
   * root rule must pick each contact's root */
  int closed = 0;
  for (int c = 0; c < nc; c++)
    closed |= is->cts[c].scheme->solve_single != NULL;
  if (nc <= DENSE_MAX && !closed) {
    rc = solve_dense(is, 0);
  } else {
    rc = solve_gauss_seidel(is);
    /* strongly coupled contacts: polish the Gauss-Seidel iterate by Newton */
    if (rc == VB_ENOCONV && nc <= DENSE_MAX)
      rc = solve_dense(is, 1);
  }
  if (rc == VB_EDIVERGED)
    return rc;
  for (int c = 0; c < nc; c++) {
    double df;
    is->fbar[c] = force_of(is, c, is->x1[c], &df);
  }
  return rc;
}

/* ---------------------------------------------------------------- step */

/* Predicted modes qt and compressions xt of a step: qt = ca q + cb w +
 * cc gen with w = v (two-level) or -qm (three-level, cb = a2); the walls
 * and gap at n+1 into xd_next, rd_next. */
static void
predict(vb_island *is, const double *w, double t1)
{
  const vb_scene *sc = is->scene;
  int nmp = is->nmp, nc = is->nc;
  double *xd1 = is->xd_next, *r1 = is->rd_next;
  if (is->ahead) {
    /* the previous update already predicted this step */
    is->ahead = 0;
    for (int c = 0; c < nc; c++) {
      double s = nc == 1 ? is->ahead_dot : kernel_dot(0, nmp, is->S + (size_t)c * nmp, is->qt);
      xd1[c] = vb_contact_drive(sc, &is->cts[c], t1, &r1[c]);
      is->xt[c] = s + xd1[c];
    }
    return;
  }
  double s = kernel_predict(nmp, is->q, w, is->ca, is->cb, is->cc, is->gen, is->qt,
                            nc == 1 ? is->S : NULL);
  for (int c = 0; c < nc; c++) {
    if (nc > 1)
      s = kernel_dot(0, nmp, is->S + (size_t)c * nmp, is->qt);
    xd1[c] = vb_contact_drive(sc, &is->cts[c], t1, &r1[c]);
    is->xt[c] = s + xd1[c];
  }
}

/* Apply the contact forces to qt, all but the first of a one-contact
 * island, which the update folds in: returns its force (or 0). */
static double
apply_forces(vb_island *is)
{
  int nmp = is->nmp, nc = is->nc;
  if (nc == 1)
    return is->fbar[0];
  for (int c = 0; c < nc; c++)
    if (is->fbar[c] != 0.0)
      kernel_force(nmp, is->qt, is->cc, is->S + (size_t)c * nmp, is->fbar[c]);
  return 0.0;
}

/* Recorded points of the island: u and v (three-level: rate of the step). */
void
vb_island_points(const vb_island *is, double *u, double *v)
{
  int nmp = is->nmp;
  for (int r = 0; r < is->npts; r++) {
    /* only the modes of the point's own body, in whole blocks */
    const double *row = is->P + (size_t)r * nmp;
    int from = is->point_from[r], to = is->point_to[r];
    if (is->family == VB_FAMILY_THREE_LEVEL) {
      double um;
      kernel_dot2(from, to, row, is->q, is->qm, &u[r], &um);
      v[r] = (u[r] - um) / is->dt;
    } else {
      kernel_dot2(from, to, row, is->q, is->v, &u[r], &v[r]);
    }
  }
}

/* Row of point p of body b among the island's recorded points. */
int
vb_island_point_row(const vb_island *is, int b, int p)
{
  for (int i = 0; i < is->nb; i++)
    if (is->bodies[i] == b)
      return is->point_first[i] + p;
  return -1;
}

/* Sum of the contacts' potentials in the schemes' discrete energies. */
static double
contact_potential(const vb_island *is)
{
  double pot = 0.0;
  for (int c = 0; c < is->nc; c++) {
    const vb_contact *ct = &is->cts[c];
    pot += ct->scheme->potential ? ct->scheme->potential(ct, &is->hist[c])
                                 : vb_law_potential(&ct->law, is->hist[c].x);
  }
  return pot;
}

/* Two-level family step (trapezoidal modes).  One pass predicts, the
 * contacts are solved, one pass updates the modes and sums the step's
 * dissipation, external work and the new modal energy. */
static int
step_two_level(vb_island *is, long n)
{
  int nm = is->nm, nc = is->nc;
  double h = is->dt, t1 = (n + 1) * h;
  double *restrict gen = is->gen, *r1 = is->rd_next, *xd1 = is->xd_next;
  /* the trapezoidal average of the external forces */
  if (is->nf > 0) {
    double *g1 = is->scratch;
    vb_island_external(is, n * h, gen);
    vb_island_external(is, t1, g1);
    for (int j = 0; j < nm; j++)
      gen[j] = 0.5 * (gen[j] + g1[j]);
  }
  predict(is, is->v, t1);
  for (int c = 0; c < nc; c++) {
    vb_chist *hc = &is->hist[c];
    /* rate(n+1) = 2 (x1 - x)/h + roff, with the walls' motion exact */
    hc->roff = -hc->rate - 2.0 * (xd1[c] - is->xdrv[c]) / h + is->xdrv_rate[c] + r1[c];
  }
  int rc = nc ? solve_contacts(is) : VB_OK;
  if (rc == VB_EDIVERGED)
    return rc;
  double f0 = apply_forces(is), sums[5];
  /* with a constant generalised force, predict the next step in passing */
  int ahead = is->nf == 0;
  kernel_update2(is->nmp, h, is->qt, is->cc, is->S, f0, is->q, is->v, is->mass, is->dcoef,
                 is->mw2, is->gen, ahead, is->has_gen, is->ca, is->cb, is->S, sums);
  is->ahead = ahead;
  is->ahead_dot = sums[4];
  double diss = sums[0], work = sums[1], kin = sums[2], pot = sums[3];
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &is->cts[c];
    vb_chist *hc = &is->hist[c];
    double x1 = is->x1[c];
    if (is->fbar[c] != 0.0 || vb_law_engaged(&ct->law, hc->x)) {
      diss += ct->scheme->dissipation(ct, hc, h, x1, is->fbar[c]);
      work += is->fbar[c] * (xd1[c] - is->xdrv[c]);
    }
    double f1 = ct->scheme->held_force(ct, hc, h, x1, is->fbar[c]);
    hc->xm = hc->x;
    hc->rate = 2.0 * (x1 - hc->x) / h + hc->roff;
    hc->x = x1;
    hc->f = f1;
    is->xdrv_m[c] = is->xdrv[c];
    is->xdrv[c] = xd1[c];
    is->xdrv_rate[c] = r1[c];
  }
  is->dissipated += diss;
  is->external += work;
  is->kinetic = 0.5 * kin;
  is->potential = 0.5 * pot + contact_potential(is);
  return rc;
}

/* Three-level family step (exact centred modes). */
static int
step_three_level(vb_island *is, long n)
{
  int nc = is->nc;
  double h = is->dt, t1 = (n + 1) * h;
  double *restrict qm = is->qm;
  double *restrict gen = is->gen, *r1 = is->rd_next, *xd1 = is->xd_next;
  double *restrict mqm = is->scratch;
  if (is->nf > 0)
    vb_island_external(is, n * h, gen);
  if (!is->ahead) {
#pragma omp simd
    for (int j = 0; j < is->nmp; j++)
      mqm[j] = -qm[j];
  }
  predict(is, mqm, t1);
  int rc = nc ? solve_contacts(is) : VB_OK;
  if (rc == VB_EDIVERGED)
    return rc;
  double f0 = apply_forces(is), sums[5];
  int ahead = is->nf == 0;
  kernel_update3(is->nmp, h, is->qt, is->cc, is->S, f0, is->q, is->qm, is->mass, is->dcoef,
                 is->mw2, is->gen, ahead, is->ca, is->cb, is->S, sums);
  is->ahead = ahead;
  is->ahead_dot = sums[4];
  double diss = sums[0], work = sums[1], kin = sums[2], pot = sums[3];
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &is->cts[c];
    vb_chist *hc = &is->hist[c];
    double x1 = is->x1[c];
    if (is->fbar[c] != 0.0 || vb_law_engaged(&ct->law, hc->x)
        || vb_law_engaged(&ct->law, hc->xm)) {
      const vb_scheme *sch = is->fallback[c] ? &vb_scheme_three_point : ct->scheme;
      diss += sch->dissipation(ct, hc, h, x1, is->fbar[c]);
      work += 0.5 * is->fbar[c] * (xd1[c] - is->xdrv_m[c]);
    }
    hc->f = ct->scheme->held_force(ct, hc, h, x1, is->fbar[c]);
    hc->xm = hc->x;
    hc->x = x1;
    hc->rate = (hc->x - hc->xm) / h;
    is->xdrv_m[c] = is->xdrv[c];
    is->xdrv[c] = xd1[c];
    is->xdrv_rate[c] = r1[c];
  }
  is->dissipated += diss;
  is->external += work;
  is->kinetic = 0.5 * kin;
  is->potential = 0.5 * pot + contact_potential(is);
  return rc;
}

/* Explicit family step: the scheme integrates, the island accounts. */
static int
step_explicit(vb_island *is, long n)
{
  double h = is->dt, t1 = (n + 1) * h;
  is->time = n * h;
  for (int c = 0; c < is->nc; c++)
    is->iterations[c] = is->fallback[c] = 0;
  onset_laws(is);
  int rc = is->explicit_scheme->step_explicit(is);
  for (int j = 0; j < is->nm; j++)
    if (!isfinite(is->q[j]) || !isfinite(is->v[j]))
      return VB_EDIVERGED;
  /* contact state at n+1 (the held force is the scheme's own) */
  double *x = is->x1, *rate = is->xt;
  vb_island_compressions(is, is->q, is->v, t1, x, rate);
  for (int c = 0; c < is->nc; c++) {
    vb_chist *hc = &is->hist[c];
    double r1;
    hc->xm = hc->x;
    hc->x = x[c];
    hc->rate = rate[c];
    is->xdrv_m[c] = is->xdrv[c];
    is->xdrv[c] = vb_contact_drive(is->scene, &is->cts[c], t1, &r1);
    is->xdrv_rate[c] = r1;
  }
  double pd, pe;
  explicit_power(is, t1, &pd, &pe);
  /* trapezoidal rule on the powers */
  is->dissipated += 0.5 * h * (is->power[0] + pd);
  is->external += 0.5 * h * (is->power[1] + pe);
  is->power[0] = pd;
  is->power[1] = pe;
  return rc;
}

/* ----------------------------------------------------------- finiteness */

/* x * 0 is 0 for a finite x and NaN otherwise: the sum over every checked
 * quantity is 0 exactly when all are finite, whatever their size. */
int
vb_island_finite(const vb_island *is)
{
  double z = is->kinetic * 0.0 + is->potential * 0.0 + is->dissipated * 0.0
             + is->external * 0.0 + is->corrected * 0.0;
  for (int c = 0; c < is->nc; c++) {
    const vb_chist *hc = &is->hist[c];
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
vb_island_nonfinite(const vb_island *is, int solve_failed, char *what, size_t len)
{
  const vb_scene *sc = is->scene;
  const char *t;
  for (int c = 0; c < is->nc; c++) {
    const vb_chist *hc = &is->hist[c];
    const double val[3] = { hc->x, hc->rate, hc->f };
    static const char *const name[3] = { "compression", "compression rate", "force" };
    for (int k = 0; k < 3; k++)
      if ((t = nonfinite_text(val[k])) != NULL) {
        snprintf(what, len, "contact '%s': %s %s", is->cts[c].name, name[k], t);
        return 1;
      }
  }
  int three = is->family == VB_FAMILY_THREE_LEVEL;
  for (int i = 0; i < is->nb; i++) {
    const vb_body *b = &sc->bodies[is->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int j = is->offsets[i] + k;
      const double val[2] = { is->q[j], three ? is->qm[j] : is->v[j] };
      const char *name[2] = { "displacement", three ? "previous displacement" : "velocity" };
      for (int m = 0; m < 2; m++)
        if ((t = nonfinite_text(val[m])) != NULL) {
          snprintf(what, len, "body '%s': mode %d %s %s", b->name, k, name[m], t);
          return 1;
        }
    }
  }
  const double val[5] = { is->kinetic, is->potential, is->dissipated, is->external,
                          is->corrected };
  static const char *const name[5] = { "kinetic energy", "potential energy",
                                       "dissipated energy", "external work",
                                       "correction energy" };
  for (int k = 0; k < 5; k++)
    if ((t = nonfinite_text(val[k])) != NULL) {
      snprintf(what, len, "%s of the island of body '%s' %s", name[k],
               sc->bodies[is->bodies[0]].name, t);
      return 1;
    }
  for (int c = 0; c < is->nc && solve_failed; c++) {
    /* the solve stops at a non-finite iterate or a force that overflows
     * at a finite compression */
    const vb_contact *ct = &is->cts[c];
    if ((t = nonfinite_text(is->x1[c])) != NULL) {
      snprintf(what, len, "contact '%s': compression solved for the step %s", ct->name, t);
      return 1;
    }
    if (is->family != VB_FAMILY_EXPLICIT && ct->scheme->step_force) {
      double df, f = ct->scheme->step_force(ct, &is->hist[c], is->dt, is->x1[c], &df);
      if ((t = nonfinite_text(f)) != NULL) {
        snprintf(what, len, "contact '%s': step force %s at compression %.6g m", ct->name, t,
                 is->x1[c]);
        return 1;
      }
    }
  }
  snprintf(what, len, "the step of the island of body '%s' failed",
           sc->bodies[is->bodies[0]].name);
  return 0;
}

/* Advance an island one step. */
int
vb_island_step(vb_island *is, long n)
{
  int rc;
  if (is->family == VB_FAMILY_TWO_LEVEL)
    rc = step_two_level(is, n);
  else if (is->family == VB_FAMILY_THREE_LEVEL)
    rc = step_three_level(is, n);
  else
    rc = step_explicit(is, n);
  is->time = (n + 1) * is->dt;
  if (rc == VB_ENOCONV)
    is->newton_failures++;
  if (rc != VB_EDIVERGED && is->family == VB_FAMILY_EXPLICIT)
    island_energy(is);
  return rc;
}
