/* scene_query.c - figures of a scene's contacts from its compiled model
 * only (vibro check and the loader's reports): effective mass, initial
 * state along the compression, impact rate, exact-duration figures. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"

/* Time until free flight from penetration p < 0 at rate r under constant
 * acceleration a reaches p = 0 (p + r t + a t^2 / 2 = 0), s; +inf if never. */
static double
time_to_contact(double p, double r, double a)
{
  double disc = r * r - 2.0 * a * p;
  if (a == 0.0)
    return r > 0.0 ? -p / r : INFINITY;
  if (disc < 0.0)
    return INFINITY;
  /* the smallest positive root, in the form free of cancellation */
  double q = -0.5 * (r + (r >= 0.0 ? sqrt(disc) : -sqrt(disc)));
  double t1 = q / (0.5 * a), t2 = q != 0.0 ? p / q : INFINITY;
  double lo = fmin(t1, t2), hi = fmax(t1, t2);
  return lo > 0.0 ? lo : hi > 0.0 ? hi : INFINITY;
}

/* Side of the barrier a contact at compression x, rate v and acceleration
 * a presses on, or, for a two-sided law inside its clearance, the side its
 * free flight reaches first (a bead thrown up in a box hits the lid). */
static double
first_side(const vb_law *law, double x, double v, double a)
{
  double up = vb_law_side_penetration(law, 1.0, x), down = vb_law_side_penetration(law, -1.0, x);
  if (!vb_law_info_of(law->kind)->two_sided || !(up < 0.0 && down < 0.0))
    return vb_law_side(law, x);
  return time_to_contact(down, -v, -a) < time_to_contact(up, v, a) ? -1.0 : 1.0;
}

/* Initial state of contact c along its compression, from a model. */
static void
contact_state(const vb_model *md, int c, double *p0, double *v0, double *a0, double *meff)
{
  const vb_scene *scene = md->scene;
  const vb_island_model *m = &md->islands[md->contact_island[c]];
  int k = md->contact_local[c];
  const vb_contact *ct = &scene->contacts[c];
  const double *row = m->S + (size_t)k * m->nmp;
  double x = 0.0, v = 0.0, rate;
  for (int ib = 0; ib < m->nb; ib++) {
    const vb_body *b = &scene->bodies[m->bodies[ib]];
    for (int j = 0; j < b->nmodes; j++) {
      x += row[m->offsets[ib] + j] * b->q0[j];
      v += row[m->offsets[ib] + j] * b->dq0[j];
    }
  }
  x += vb_contact_drive(scene, ct, 0.0, &rate);
  v += rate;
  double sign = first_side(&ct->law, x, v, m->aext[k]);
  *p0 = vb_law_side_penetration(&ct->law, sign, x);
  *v0 = sign * v;
  *a0 = sign * m->aext[k];
  *meff = m->meff[k];
}

/* ------------------------------------------------ modal free response */

/* Multiply-adds the search of modal_first_impacts may spend (about 0.1 s
 * here: the fretless bass, 862 points on 862 modes, finds its first
 * contact, 232 steps in, within it); past them it stops and says how far
 * it looked (horizon). */
#define SEARCH_BUDGET 2.0e8

/* CPU seconds of this thread the search may spend, whatever the budget
 * above buys: 0.1 s of multiply-adds in an optimised build is a hundred
 * times more under coverage instrumentation and the sanitizers (make fuzz:
 * the tanpura's search took more than 30 s).  Far above what an optimised
 * or a sanitizer build spends within the budget, so it changes no answer
 * there; past it the search stops and says how far it looked, as past
 * the budget.  The fuzz build sets a tighter one (configure.ac). */
#ifndef VB_SEARCH_SECONDS
#define VB_SEARCH_SECONDS 2.0
#endif
/* Steps between two looks at the clock. */
#define SEARCH_CLOCK_STEPS 64

/* CPU time of the calling thread, s (0 when there is no such clock). */
static double
thread_seconds(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One mode's exact free response from (q0, dq0) under the constant
 * acceleration g (the solution step.c's free_response evaluates), as
 * q(t) = qe + Re(c1 z1 + c2 z2) with z = exp(s t), advanced by a factor
 * a step; a free mass (omega = 0) by its closed form. */
typedef struct mode_free {
  double w0, sig, qe, q0, dq0, g; /* rad/s, 1/s, m, m, m/s, m/s^2 */
  double complex s1, s2, c1, c2;  /* poles, 1/s; amplitudes, m */
  double complex z1, z2, f1, f2;  /* exp(s t) now, exp(s h) */
} mode_free;

/* Set mode m at t = 0 for steps of h. */
static void
mode_free_start(mode_free *m, double w0, double sig, double q0, double dq0, double g, double h)
{
  *m = (mode_free){.w0 = w0, .sig = sig, .q0 = q0, .dq0 = dq0, .g = g, .z1 = 1.0, .z2 = 1.0};
  if (w0 == 0.0)
    return;
  double complex r = csqrt((double complex)(sig * sig - w0 * w0));
  m->qe = g / (w0 * w0);
  m->s1 = -sig + r;
  m->s2 = -sig - r;
  if (cabs(m->s1 - m->s2) < 1e-9 * w0) /* critical damping: nudge apart */
    m->s1 += 1e-6 * w0, m->s2 -= 1e-6 * w0;
  double a = q0 - m->qe;
  m->c1 = (dq0 - m->s2 * a) / (m->s1 - m->s2);
  m->c2 = a - m->c1;
  m->f1 = cexp(m->s1 * h);
  m->f2 = cexp(m->s2 * h);
}

/* Displacement (m) and velocity (m/s) of mode m at step n (t = n h),
 * advancing it from step n - 1 (n = 0: the start). */
static void
mode_free_at(mode_free *m, long n, double h, double *q, double *v)
{
  if (m->w0 == 0.0) {
    double t = n * h;
    if (m->sig == 0.0) {
      *q = m->q0 + m->dq0 * t + 0.5 * m->g * t * t;
      *v = m->dq0 + m->g * t;
      return;
    }
    double k = 2.0 * m->sig, vinf = m->g / k;
    *q = m->q0 + vinf * t + (m->dq0 - vinf) * (-expm1(-k * t)) / k;
    *v = vinf + (m->dq0 - vinf) * exp(-k * t);
    return;
  }
  if (n > 0) {
    m->z1 *= m->f1;
    m->z2 *= m->f2;
  }
  *q = m->qe + creal(m->c1 * m->z1 + m->c2 * m->z2);
  *v = creal(m->s1 * m->c1 * m->z1 + m->s2 * m->c2 * m->z2);
}

/* Displacement (m) of mode m at step n, advancing it from step n - 1 as
 * mode_free_at does (the same operations on the same values: the same
 * bits), without the velocity the search does not read. */
static double
mode_free_q(mode_free *m, long n, double h)
{
  if (m->w0 == 0.0) {
    double t = n * h;
    if (m->sig == 0.0)
      return m->q0 + m->dq0 * t + 0.5 * m->g * t * t;
    double k = 2.0 * m->sig, vinf = m->g / k;
    return m->q0 + vinf * t + (m->dq0 - vinf) * (-expm1(-k * t)) / k;
  }
  if (n > 0) {
    m->z1 *= m->f1;
    m->z2 *= m->f2;
  }
  return m->qe + creal(m->c1 * m->z1 + m->c2 * m->z2);
}

/* x[i] = x[i] + sum_(j0 <= j < j1) row_i[j] q[j] (row_i = S + idx[i] nmp)
 * for the n compressions (a sum over [0, J) then one over [J, nm) from its
 * values is the sum over [0, nm), the same operations): each x_i the same products summed in the same order as
 * a loop over j alone (the same bits), eight rows a pass so that their
 * eight sums advance together instead of waiting on each other's
 * additions (the free-flight search: 64 points on 200 modes over 22050
 * steps, 0.12 s of the tanpura's 0.36 s before). */
static void
rows_dot(const double *S, int nmp, int j0, int j1, const int *idx, int n, const double *q,
         double *x)
{
  for (int i = 0; i < n; i += 8) {
    /* a last pass of fewer than eight rows repeats its last row (those
     * sums dropped): a pass costs about its additions' latency, however
     * many of its rows are real */
    const double *r[8];
    for (int l = 0; l < 8; l++)
      r[l] = S + (size_t)idx[i + l < n ? i + l : n - 1] * nmp;
    double x0 = x[i], x1 = 0.0, x2 = 0.0, x3 = 0.0, x4 = 0.0, x5 = 0.0, x6 = 0.0, x7 = 0.0;
    const double *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
    const double *r4 = r[4], *r5 = r[5], *r6 = r[6], *r7 = r[7];
    int m = n - i < 8 ? n - i : 8;
    x1 = x[i + (m > 1 ? 1 : 0)], x2 = x[i + (m > 2 ? 2 : 0)], x3 = x[i + (m > 3 ? 3 : 0)];
    x4 = x[i + (m > 4 ? 4 : 0)], x5 = x[i + (m > 5 ? 5 : 0)], x6 = x[i + (m > 6 ? 6 : 0)];
    x7 = x[i + (m > 7 ? 7 : 0)];
    for (int j = j0; j < j1; j++) {
      double qj = q[j];
      x0 += r0[j] * qj;
      x1 += r1[j] * qj;
      x2 += r2[j] * qj;
      x3 += r3[j] * qj;
      x4 += r4[j] * qj;
      x5 += r5[j] * qj;
      x6 += r6[j] * qj;
      x7 += r7[j] * qj;
    }
    double xs[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
    for (int l = 0; l < m; l++)
      x[i + l] = xs[l];
  }
}

/* The modes of the search a step on, apart (structure of arrays): z1, z2
 * (real and imaginary parts) times f1, f2 and q = qe + Re(c1 z1 + c2 z2),
 * the real operations of mode_free_q's complex ones (a product (a + bi)(c
 * + di) is ac - bd + (ad + bc) i where it is not NaN, as C's is): the same
 * bits, with the modes side by side in vector lanes.  n > 0. */
typedef struct {
  double *z1r, *z1i, *z2r, *z2i; /* exp(s t) now */
  double *f1r, *f1i, *f2r, *f2i; /* exp(s h) */
  double *c1r, *c1i, *c2r, *c2i; /* amplitudes, m */
  double *qe;                    /* m */
} mode_lanes;

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
lanes_step(const mode_lanes *L, int nm, double *q)
{
  double *restrict z1r = L->z1r, *restrict z1i = L->z1i, *restrict z2r = L->z2r;
  double *restrict z2i = L->z2i, *restrict qo = q;
  const double *f1r = L->f1r, *f1i = L->f1i, *f2r = L->f2r, *f2i = L->f2i;
  const double *c1r = L->c1r, *c1i = L->c1i, *c2r = L->c2r, *c2i = L->c2i, *qe = L->qe;
#ifndef __clang__
#pragma omp simd
#endif
  for (int j = 0; j < nm; j++) {
    double a = z1r[j], b = z1i[j], c = f1r[j], d = f1i[j];
    double r1 = a * c - b * d, i1 = a * d + b * c;
    a = z2r[j], b = z2i[j], c = f2r[j], d = f2i[j];
    double r2 = a * c - b * d, i2 = a * d + b * c;
    z1r[j] = r1, z1i[j] = i1, z2r[j] = r2, z2i[j] = i2;
    qo[j] = qe[j] + ((c1r[j] * r1 - c1i[j] * i1) + (c2r[j] * r2 - c2i[j] * i2));
  }
}

/* Displacement (m) and velocity (m/s) of mode m at any time t (s), from
 * the closed form (no stepping: the refinement of a crossing). */
static void
mode_free_eval(const mode_free *m, double t, double *q, double *v)
{
  if (m->w0 == 0.0) {
    mode_free tmp = *m;
    mode_free_at(&tmp, 1, t, q, v);
    return;
  }
  double complex z1 = cexp(m->s1 * t);
  if (m->s2 == conj(m->s1)) { /* underdamped: c2 is then the conjugate of c1 */
    *q = m->qe + 2.0 * creal(m->c1 * z1);
    *v = 2.0 * creal(m->s1 * m->c1 * z1);
    return;
  }
  double complex z2 = cexp(m->s2 * t);
  *q = m->qe + creal(m->c1 * z1 + m->c2 * z2);
  *v = creal(m->s1 * m->c1 * z1 + m->s2 * m->c2 * z2);
}

/* Penetration (m, on side `side`) and its rate (m/s) of contact k of
 * island m at time t, with xc its constant part (m). */
static double
penetration_at(const vb_island_model *m, const mode_free *mf, const vb_contact *ct, int k,
               double xc, double side, double t, double *rate)
{
  const double *row = m->S + (size_t)k * m->nmp;
  double x = xc, xv = 0.0, q, v;
  for (int j = 0; j < m->nm; j++) {
    mode_free_eval(&mf[j], t, &q, &v);
    x += row[j] * q;
    xv += row[j] * v;
  }
  *rate = side * xv;
  return vb_law_side_penetration(&ct->law, side, x);
}

/* The crossing p = 0 of contact k between t0 (p < 0) and t1 (p >= 0) on
 * the exact free response, to round-off: Newton steps on p(t) (its rate
 * is the penetration's, the law's penetration being the compression less
 * a constant on a side), a bisection whenever one would leave the
 * bracket, at most 60 evaluations; its time into *t_on and rate into
 * *rate. */
static void
refine_crossing(const vb_island_model *m, const mode_free *mf, const vb_contact *ct, int k,
                double xc, double side, double t0, double t1, double *t_on, double *rate)
{
  double r, t = t1, p = penetration_at(m, mf, ct, k, xc, side, t1, &r);
  int converged = p == 0.0;
  for (int it = 0; it < 60 && !converged && t1 - t0 > 1e-15 * t1; it++) {
    double tn = r != 0.0 ? t - p / r : NAN;
    if (!(tn > t0 && tn < t1))
      tn = 0.5 * (t0 + t1);
    converged = fabs(tn - t) <= 1e-15 * tn;
    t = tn;
    p = penetration_at(m, mf, ct, k, xc, side, t, &r);
    if (p >= 0.0)
      t1 = t;
    else
      t0 = t;
    converged |= p == 0.0;
  }
  /* a Newton step that no longer moves: its time, on either side by an
   * ulp; else the bracket's end on the barrier's side */
  if (!converged && t != t1) {
    t = t1;
    penetration_at(m, mf, ct, k, xc, side, t, &r);
  }
  *t_on = t;
  *rate = r;
}

/* Whether free flight of island m can be predicted mode by mode: nothing
 * drives it (walls, gaps, forces) and some mode oscillates. */
static int
modal_island(const vb_scene *scene, const vb_island_model *m)
{
  int rings = 0;
  if (scene->nforces > 0)
    return 0;
  for (int k = 0; k < m->nc; k++)
    if (vb_contact_driven(scene, &scene->contacts[m->contacts[k]]))
      return 0;
  for (int ib = 0; ib < m->nb; ib++) {
    const vb_body *b = &scene->bodies[m->bodies[ib]];
    for (int j = 0; j < b->nmodes; j++)
      rings |= b->freq[j] > 0.0;
  }
  return rings;
}

/* Steps of the free-flight search below which its skipping (flight_bounds)
 * holds: |z| of every mode's computed exp(s t) stays within 1 + 1e-6 of
 * its exact value's bound 1 while 7 n u < 1e-6 (u = 2^-53: each complex
 * product rounds by less than 3 u, and |f| <= 1 + 4 u is asked). */
#define SKIP_MAX_STEPS 100000000L
/* Fewest modes in the head of a split sum (below): islands of fewer than
 * four times as many modes sum every mode at once. */
#define HEAD_MIN 8

/* What the search needs to skip steps of a contact that free flight keeps
 * away from its barrier: for mode j, rate[j] bounds the change of its
 * computed displacement q_j from a step to the next, m, and amp[j] its
 * size |q_j|, m, as mode_free_q forms them: with z' = z f^k (1 + theta),
 * |theta| <= 3 k u, |z|, |z'| <= Z = 1 + 1e-6 and |f| <= 1 + 4 u,
 * |Re(c z') - Re(c z)| <= Z |c| (|f^k - 1| + 3 k u) <= k Z |c| (|f - 1|
 * Z + 3 u) (f^k - 1 = (f - 1)(1 + f + .. + f^(k-1))).  0 where no bound
 * holds (a free mass's q grows without bound, a mode that grows): then
 * every contact is evaluated at every step, as before. */
static int
flight_bounds(const mode_free *mf, int nm, double *rate, double *amp)
{
  const double u = 0.5 * DBL_EPSILON, Z = 1.0 + 1e-6;
  for (int j = 0; j < nm; j++) {
    const mode_free *m = &mf[j];
    if (m->w0 == 0.0 || !(cabs(m->f1) <= 1.0 + 4.0 * u) || !(cabs(m->f2) <= 1.0 + 4.0 * u))
      return 0;
    double a1 = cabs(m->c1), a2 = cabs(m->c2);
    double d1 = cabs(m->f1 - 1.0) * (1.0 + 8.0 * u) * Z + 3.0 * u;
    double d2 = cabs(m->f2 - 1.0) * (1.0 + 8.0 * u) * Z + 3.0 * u;
    rate[j] = Z * (a1 * d1 + a2 * d2) * (1.0 + 16.0 * u);
    amp[j] = fabs(m->qe) + Z * (a1 + a2) * (1.0 + 16.0 * u);
    if (!isfinite(rate[j]) || !isfinite(amp[j]))
      return 0;
  }
  return 1;
}

/* For the contacts of island island_index listed in want[] (nwant), out
 * of contact at t = 0: the first step, within
 * the scene's duration, at which the modes' exact free response brings
 * each to its barrier, refined to round-off between the two steps
 * (refine_crossing); t_on and the rate there into out[c], and the time
 * searched into horizon.  Of a distributed block, only the points that
 * touch in the step its first point does get a rate.  Contacts reaching none keep rate 0.
 *
 * A one-sided contact at computed compression x < 0 is not evaluated
 * again for the K steps that cannot bring it to 0: with V = sum_j |S_j|
 * rate_j (flight_bounds) the computed x moves by at most k V in k steps,
 * beside the rounding of the two sums, at most E = 4 (nm + 8) u (|xc| +
 * sum_j |S_j| amp_j) each, so x + K V + 2 E < 0 keeps every computed x of
 * those steps negative: no crossing there, and the one after them is
 * found at the same step from the same values (the bits of every answer
 * as evaluating every step; the tanpura bridge's 33 points that free
 * flight never brings to the bridge in its 0.5 s cost 1.5e8 multiply-adds
 * else, a quarter of the run's instructions).  The budget counts the
 * work as if every step were evaluated, so the search stops where it
 * did. */
static void
modal_first_impacts(const vb_model *md, int island_index, const int *want, int nwant,
                    vb_contact_start *out)
{
  const vb_scene *scene = md->scene;
  const vb_island_model *m = &md->islands[island_index];
  const double u = 0.5 * DBL_EPSILON;
  double h = 1.0 / scene->fs;
  long nsteps = (long)ceil(scene->duration * scene->fs - 1e-9);
  mode_free *mf = malloc((size_t)m->nm * sizeof *mf);
  double *q = malloc(3 * (size_t)m->nmp * sizeof *q), *rate = NULL, *amp = NULL;
  double *prev = malloc((size_t)nwant * sizeof *prev), *xc = malloc((size_t)nwant * sizeof *xc);
  double *xs = malloc((size_t)nwant * sizeof *xs); /* the compressions evaluated this step */
  double *vb = malloc(3 * (size_t)nwant * sizeof *vb); /* V, then E and T (below) */
  long *next = malloc((size_t)nwant * sizeof *next); /* the step contact w is next evaluated at */
  int *open = malloc((size_t)nwant * sizeof *open), pending = nwant;
  int *rows = malloc(2 * (size_t)nwant * sizeof *rows); /* the S rows evaluated this step */
  int *rest = malloc((size_t)nwant * sizeof *rest); /* those summed to the end: their slots */
  int *full = malloc((size_t)nwant * sizeof *full); /* whether slot i's sum is whole */
  double *xr = malloc((size_t)nwant * sizeof *xr);  /* their sums */
  int *slot = malloc((size_t)nwant * sizeof *slot); /* contact w's place in them */
  double spent = 0.0, started = thread_seconds();
  long n;

  if (!mf || !q || !prev || !xc || !xs || !vb || !next || !open || !rows || !slot || !rest ||
      !full || !xr)
    goto done;
  memset(q, 0, 3 * (size_t)m->nmp * sizeof *q);
  rate = q + m->nmp; /* per mode: flight_bounds' rate and amp */
  amp = rate + m->nmp;
  for (int ib = 0; ib < m->nb; ib++) {
    const vb_body *b = &scene->bodies[m->bodies[ib]];
    for (int j = 0; j < b->nmodes; j++)
      mode_free_start(&mf[m->offsets[ib] + j], 2.0 * M_PI * b->freq[j], b->sigma[j], b->q0[j],
                      b->dq0[j], -scene->gravity * b->gravity[j], h);
  }
  double *eb = vb + nwant, *tail = eb + nwant;
  int bounded = nsteps < SKIP_MAX_STEPS && !vb_test_hooks_now()->no_search_skip &&
                flight_bounds(mf, m->nm, rate, amp);
  /* the head of the modes summed first: where the tail's bound T keeps
   * the contact away, the rest of its sum is not formed */
  int head = m->nm >= 4 * HEAD_MIN && bounded ? m->nm / 4 : m->nm;
  /* the modes side by side (lanes_step) where every one oscillates */
  mode_lanes L;
  double *lane = malloc(13 * (size_t)m->nmp * sizeof *lane);
  int lanes = lane != NULL;
  for (int j = 0; j < m->nm && lanes; j++)
    lanes = mf[j].w0 != 0.0;
  if (lanes) {
    double **col[13] = {&L.z1r, &L.z1i, &L.z2r, &L.z2i, &L.f1r, &L.f1i, &L.f2r,
                        &L.f2i, &L.c1r, &L.c1i, &L.c2r, &L.c2i, &L.qe};
    for (int k = 0; k < 13; k++)
      *col[k] = lane + (size_t)k * m->nmp;
    for (int j = 0; j < m->nm; j++) {
      const mode_free *mj = &mf[j];
      L.z1r[j] = creal(mj->z1), L.z1i[j] = cimag(mj->z1);
      L.z2r[j] = creal(mj->z2), L.z2i[j] = cimag(mj->z2);
      L.f1r[j] = creal(mj->f1), L.f1i[j] = cimag(mj->f1);
      L.f2r[j] = creal(mj->f2), L.f2i[j] = cimag(mj->f2);
      L.c1r[j] = creal(mj->c1), L.c1i[j] = cimag(mj->c1);
      L.c2r[j] = creal(mj->c2), L.c2i[j] = cimag(mj->c2);
      L.qe[j] = mj->qe;
    }
  }
  for (int w = 0; w < nwant; w++) {
    const vb_contact *ct = &scene->contacts[want[w]];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    double r;
    xc[w] = vb_contact_drive(scene, ct, 0.0, &r); /* constant: nothing drives */
    open[w] = 1;
    next[w] = 0;
    out[want[w]].rate = out[want[w]].t_on = 0.0;
    /* V and E (above); V = NaN: evaluated every step (two-sided laws,
     * whose penetration is not the compression, and unbounded flight) */
    vb[w] = NAN;
    eb[w] = tail[w] = 0.0;
    if (!bounded || info->two_sided || info->always_engaged)
      continue;
    const double *row = m->S + (size_t)md->contact_local[want[w]] * m->nmp;
    double v = 0.0, e = fabs(xc[w]);
    for (int j = 0; j < m->nm; j++) {
      v += fabs(row[j]) * rate[j];
      e += fabs(row[j]) * amp[j];
    }
    double t = 0.0;
    for (int j = head; j < m->nm; j++)
      t += fabs(row[j]) * amp[j];
    vb[w] = v * (1.0 + 4.0 * (m->nm + 8) * u);
    eb[w] = 4.0 * (m->nm + 8) * u * e * (1.0 + 4.0 * (m->nm + 8) * u);
    tail[w] = t * (1.0 + 4.0 * (m->nm + 8) * u);
    if (!isfinite(vb[w]) || !isfinite(eb[w]) || !isfinite(tail[w]))
      vb[w] = NAN;
  }
  for (n = 0; n <= nsteps && pending > 0 && spent < SEARCH_BUDGET; n++) {
    int crossed = -1; /* a contact of a block that touched in this step */
    if (n % SEARCH_CLOCK_STEPS == SEARCH_CLOCK_STEPS - 1 &&
        thread_seconds() - started > VB_SEARCH_SECONDS)
      break; /* out of time: the horizon below is how far it looked */
    if (lanes && n > 0)
      lanes_step(&L, m->nm, q);
    else
      for (int j = 0; j < m->nm; j++)
        q[j] = mode_free_q(&mf[j], n, h);
    spent += (double)m->nm * (1.0 + pending);
    /* the compressions x = xc + S_k q of the open contacts due this step
     * (rows_dot) */
    int nrows = 0;
    for (int w = 0; w < nwant; w++)
      if (open[w] && next[w] <= n) {
        slot[w] = nrows;
        xs[nrows] = xc[w];
        rows[nrows++] = md->contact_local[want[w]];
      }
    rows_dot(m->S, m->nmp, 0, head, rows, nrows, q, xs);
    /* the rest of the sum where the head and the tail's bound do not keep
     * the contact below 0 (x <= head + T + E: the rest of the sum's
     * rounding is within E), in the slots past nrows */
    int nrest = 0;
    for (int w = 0; w < nwant; w++) {
      if (!open[w] || next[w] > n)
        continue;
      double ub = xs[slot[w]] + tail[w] + eb[w];
      if (head < m->nm && !(vb[w] == vb[w] && ub < 0.0)) {
        rest[nrest] = slot[w];
        xr[nrest] = xs[slot[w]];
        rows[nrows + nrest++] = rows[slot[w]];
      }
    }
    rows_dot(m->S, m->nmp, head, m->nm, rows + nrows, nrest, q, xr);
    for (int i = 0; i < nrest; i++)
      xs[rest[i]] = xr[i];
    for (int i = 0, r = 0; i < nrows; i++)
      if (r < nrest && rest[r] == i)
        r++, full[i] = 1;
      else
        full[i] = head == m->nm;
    for (int w = 0; w < nwant; w++) {
      if (!open[w] || next[w] > n)
        continue;
      int c = want[w], k = md->contact_local[c];
      const vb_contact *ct = &scene->contacts[c];
      double x = xs[slot[w]];
      if (!full[slot[w]]) {
        /* kept below 0 by the bound: no crossing; the bound in x's place
         * (below 0, as x is) for the steps it keeps it there */
        double ub = x + tail[w] + eb[w];
        prev[w] = ub;
        next[w] = n + 1;
        double room = -ub - 2.0 * eb[w];
        double ks = vb[w] > 0.0 ? room / vb[w] * (1.0 - 1e-9) : INFINITY;
        if (ks >= 1.0)
          next[w] = ks < (double)(nsteps + 1 - n) ? n + 1 + (long)ks : nsteps + 1;
        continue;
      }
      /* the side the contact's law presses on at rest (one-sided laws:
       * the barrier's); two-sided: whichever side is reached */
      double up = vb_law_side_penetration(&ct->law, 1.0, x);
      double down = vb_law_info_of(ct->law.kind)->two_sided
                        ? vb_law_side_penetration(&ct->law, -1.0, x)
                        : -INFINITY;
      double side = vb_law_info_of(ct->law.kind)->two_sided ? (down > up ? -1.0 : 1.0)
                                                            : vb_law_side(&ct->law, x);
      double p = vb_law_side_penetration(&ct->law, side, x);
      if (n > 0 && p >= 0.0 && prev[w] < 0.0) {
        refine_crossing(m, mf, ct, k, xc[w], side, (n - 1) * h, n * h, &out[c].t_on,
                        &out[c].rate);
        open[w] = 0;
        pending--;
        crossed = c;
        continue;
      }
      prev[w] = p;
      next[w] = n + 1;
      /* the steps that cannot bring it to 0 (above): p is x here */
      if (x < 0.0 && vb[w] == vb[w]) {
        double room = -x - 2.0 * eb[w];
        double ks = vb[w] > 0.0 ? room / vb[w] * (1.0 - 1e-9) : INFINITY;
        if (ks >= 1.0)
          next[w] = ks < (double)(nsteps + 1 - n) ? n + 1 + (long)ks : nsteps + 1;
      }
    }
    /* a block's first point to touch is found: its other points, which
     * touch later if at all, are not searched on (vibro check reports the
     * first of a block; the 2000 points of a bridge cost seconds else) */
    for (int w = 0; crossed >= 0 && w < nwant; w++)
      if (open[w] && scene->contacts[want[w]].group[0] != '\0' &&
          strcmp(scene->contacts[want[w]].group, scene->contacts[crossed].group) == 0) {
        open[w] = 0;
        pending--;
      }
  }
  for (int w = 0; w < nwant; w++)
    out[want[w]].horizon = pending > 0 && n <= nsteps ? (n - 1) * h : scene->duration;
  free(lane);
done:
  free(mf);
  free(q);
  free(prev);
  free(xc);
  free(xs);
  free(vb);
  free(next);
  free(open);
  free(rows);
  free(slot);
  free(rest);
  free(full);
  free(xr);
}

/* The contacts of out[] (every contact of the scene, as flight at
 * constant acceleration set them) out of contact at t = 0 on an island
 * whose modes oscillate freely: their first impact from the modes' free
 * response instead (modal_first_impacts), island by island: a constant
 * acceleration does not describe a ringing body (a string released from
 * rest onto frets had "no impact follows").  Only contact `only` when it
 * is >= 0. */
static void
modal_search(const vb_model *md, vb_contact_start *out, int only)
{
  const vb_scene *scene = md->scene;
  int *want = malloc(((size_t)scene->ncontacts + 1) * sizeof *want);
  if (!want)
    return;
  for (int i = 0; i < md->nislands; i++) {
    const vb_island_model *m = &md->islands[i];
    int nwant = 0;
    if (m->nc == 0 || !modal_island(scene, m))
      continue;
    for (int k = 0; k < m->nc; k++) {
      int c = m->contacts[k];
      if ((only < 0 || c == only) && out[c].p0 < 0.0)
        want[nwant++] = c;
    }
    if (nwant > 0)
      modal_first_impacts(md, i, want, nwant, out);
  }
  free(want);
}

/* Contact c's start by flight at constant acceleration (p0 + v0 t +
 * a0 t^2 / 2 = 0, reached at rate v_in with v0 + a0 t = v_in). */
static void
ballistic_start(const vb_model *md, int c, vb_contact_start *s)
{
  contact_state(md, c, &s->p0, &s->v0, &s->a0, &s->meff);
  double v2 = s->v0 * s->v0 - 2.0 * s->a0 * s->p0;
  s->rate = !(s->p0 <= 0.0) || (s->v0 <= 0.0 && s->a0 <= 0.0) ? 0.0 : v2 > 0.0 ? sqrt(v2) : 0.0;
  s->t_on = 0.0;
  s->horizon = INFINITY;
  if (s->p0 < 0.0 && s->rate > 0.0) {
    if (s->a0 != 0.0)
      s->t_on = (s->rate - s->v0) / s->a0 > 0.0 ? (s->rate - s->v0) / s->a0 : 0.0;
    else
      s->t_on = s->v0 > 0.0 ? -s->p0 / s->v0 : 0.0;
  }
}

/* Effective mass along a contact of a scene. */
double
vb_scene_contact_mass(const vb_scene *scene, int c)
{
  vb_model *md;
  char err[8];
  if (vb_model_compile_queries(scene, &md, err, sizeof err) != VB_OK)
    return NAN;
  double m = md->islands[md->contact_island[c]].meff[md->contact_local[c]];
  vb_model_free(md);
  return m;
}

/* Impact rate from free flight out of the initial state (m/s, 0 when
 * none follows), as vb_scene_contact_states gives it; the effective mass
 * into *meff (kg, NaN when the scene cannot build). */
double
vb_scene_approach_rate(const vb_scene *scene, int c, double *meff)
{
  vb_model *md;
  char err[8];
  vb_contact_start *s = calloc((size_t)scene->ncontacts + 1, sizeof *s);
  double rate = 0.0;

  if (meff)
    *meff = NAN;
  if (!s || vb_model_compile_queries(scene, &md, err, sizeof err) != VB_OK) {
    free(s);
    return rate;
  }
  ballistic_start(md, c, &s[c]);
  modal_search(md, s, c);
  rate = s[c].rate;
  if (meff)
    *meff = s[c].meff;
  vb_model_free(md);
  free(s);
  return rate;
}

/* The initial state of every contact from one build of the islands
 * (vibro check on many contacts: one build, not one each). */
void
vb_scene_contact_states(const vb_scene *scene, vb_contact_start *out)
{
  vb_model *md;
  char err[8];

  if (vb_model_compile_queries(scene, &md, err, sizeof err) != VB_OK) {
    for (int c = 0; c < scene->ncontacts; c++)
      out[c] = (vb_contact_start){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    return;
  }
  for (int c = 0; c < scene->ncontacts; c++)
    ballistic_start(md, c, &out[c]);
  modal_search(md, out, -1);
  vb_model_free(md);
}

/* The impact rate and effective mass of every contact from one build. */
void
vb_scene_approach_rates(const vb_scene *scene, double *rate, double *meff)
{
  vb_contact_start *s = malloc(((size_t)scene->ncontacts + 1) * sizeof *s);

  for (int c = 0; !s && c < scene->ncontacts; c++) /* out of memory: a build each */
    rate[c] = vb_scene_approach_rate(scene, c, &meff[c]);
  if (!s)
    return;
  vb_scene_contact_states(scene, s);
  for (int c = 0; c < scene->ncontacts; c++) {
    rate[c] = s[c].rate;
    meff[c] = s[c].meff;
  }
  free(s);
}

/* Effective mass along every contact from one build, meff[ncontacts]
 * (kg, NaN when the scene cannot build). */
void
vb_scene_contact_masses(const vb_scene *scene, double *meff)
{
  vb_model *md;
  char err[8];

  if (vb_model_compile_queries(scene, &md, err, sizeof err) != VB_OK) {
    for (int c = 0; c < scene->ncontacts; c++)
      meff[c] = NAN;
    return;
  }
  for (int c = 0; c < scene->ncontacts; c++)
    meff[c] = md->islands[md->contact_island[c]].meff[md->contact_local[c]];
  vb_model_free(md);
}

/* Exact-duration figures of an alpha = 1 contact at effective mass m. */
void
vb_contact_exact_duration_at(const vb_scene *scene, int c, double m, double *omega, double *limit,
                             double *used)
{
  const vb_contact *ct = &scene->contacts[c];
  *omega = sqrt(ct->law.k / m);
  *used = vb_exact_omega(ct, m, 1.0 / scene->fs, limit);
}

/* Exact-duration figures of an alpha = 1 contact (one build for it). */
void
vb_contact_exact_duration(const vb_scene *scene, int c, double *omega, double *limit, double *used)
{
  vb_contact_exact_duration_at(scene, c, vb_scene_contact_mass(scene, c), omega, limit, used);
}
