/* check_kernels.c - every loop of lib/island/kernels.c against an independent
 * scalar implementation in long double, on random inputs: sizes 8 to 1600
 * modes (padded to a multiple of 8), values over many magnitudes, every
 * instance of the update (ahead or not, with and without a generalised
 * force), ranges [from, to) that start past 0.  Each result must be the
 * reference to a few ulps of the magnitude of what it sums (an error
 * bound carried beside each reference value), so a lane dropped, a wrong
 * coefficient, a swapped operand, an offset in a range or an
 * accumulator that misses a lane fails.  vb_kernel_dots has its own test
 * (check_prune.c). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "island/kernels.h"
#include "testutil.h"

/* A reference value (long double) and the sum of the magnitudes of the
 * terms that made it: a rounding bound is a few eps times that. */
typedef struct {
  long double v, m;
} ref;

static ref
radd(ref a, ref b)
{
  return (ref){ a.v + b.v, a.m + b.m };
}

static ref
rsub(ref a, ref b)
{
  return (ref){ a.v - b.v, a.m + b.m };
}

static ref
rmul(ref a, ref b)
{
  return (ref){ a.v * b.v, a.m * b.m };
}

static ref
num(double x)
{
  return (ref){ x, fabs(x) };
}

/* A random value of random sign and magnitude 10^lo .. 10^hi. */
static double
rnd(unsigned *seed, int lo, int hi)
{
  double u = rand_r(seed) / (double)RAND_MAX - 0.5;
  return 2.0 * u * pow(10.0, lo + rand_r(seed) % (hi - lo + 1));
}

/* A padded array of n values, zero past `live` (the inert padding). */
static double *
arr(unsigned *seed, int n, int live, int lo, int hi)
{
  double *a = malloc((size_t)n * sizeof *a);
  ck_assert(a != NULL);
  for (int j = 0; j < n; j++)
    a[j] = j < live ? rnd(seed, lo, hi) : 0.0;
  return a;
}

static double *
copy(const double *a, int n)
{
  double *b = malloc((size_t)n * sizeof *b);
  ck_assert(b != NULL);
  memcpy(b, a, (size_t)n * sizeof *b);
  return b;
}

/* got within k eps of the reference's magnitude (plus the smallest normal). */
#define CLOSE(got, r, k, what, ...)                                                                \
  ck_assert_msg(fabsl((long double)(got) - (r).v) <= (k) * DBL_EPSILON * (r).m + DBL_MIN,         \
                what ": %.17g, reference %.17Lg (magnitude %.3Lg)", __VA_ARGS__, (double)(got),    \
                (r).v, (r).m)

/* A problem: nmp padded modes of which `live` are real. */
typedef struct {
  int nmp, live;
  double h, *q, *w, *ca, *cb, *cc, *g, *row0, *rowp, *mass, *dcoef, *mw2;
} prob;

static prob
make(unsigned *seed)
{
  prob p;
  p.nmp = 8 * (1 + rand_r(seed) % 200);
  p.live = p.nmp - rand_r(seed) % 8;
  p.h = 1.0 / (8000.0 + rand_r(seed) % 400000);
  p.q = arr(seed, p.nmp, p.live, -9, -3);
  p.w = arr(seed, p.nmp, p.live, -6, 1);
  p.ca = arr(seed, p.nmp, p.live, -1, 0);
  p.cb = arr(seed, p.nmp, p.live, -7, -4);
  p.cc = arr(seed, p.nmp, p.live, -12, -6);
  p.g = arr(seed, p.nmp, p.live, -3, 2);
  p.row0 = arr(seed, p.nmp, p.live, -1, 0);
  p.rowp = arr(seed, p.nmp, p.live, -1, 0);
  p.mass = arr(seed, p.nmp, p.live, -4, 0);
  p.dcoef = arr(seed, p.nmp, p.live, -3, 1);
  p.mw2 = arr(seed, p.nmp, p.live, 2, 9);
  for (int j = 0; j < p.live; j++) { /* masses, damping and stiffness are >= 0 */
    p.mass[j] = fabs(p.mass[j]);
    p.dcoef[j] = fabs(p.dcoef[j]);
    p.mw2[j] = fabs(p.mw2[j]);
  }
  return p;
}

static void
drop(prob *p)
{
  double **all[] = { &p->q, &p->w, &p->ca, &p->cb, &p->cc, &p->g, &p->row0, &p->rowp,
                     &p->mass, &p->dcoef, &p->mw2 };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    free(*all[i]);
}

/* vb_kernel_predict: qt = ca q + cb w + cc g elementwise and row . qt. */
START_TEST(test_predict)
{
  unsigned seed = 7001u + 13u * (unsigned)_i;
  prob p = make(&seed);
  double *qt = malloc((size_t)p.nmp * sizeof *qt);
  ck_assert(qt != NULL);
  int with_row = _i % 3 != 0;
  double dot = vb_kernel_predict(p.nmp, p.q, p.w, p.ca, p.cb, p.cc, p.g, qt,
                                 with_row ? p.rowp : NULL);
  ref sum = { 0, 0 };
  for (int j = 0; j < p.nmp; j++) {
    ref t = radd(radd(rmul(num(p.ca[j]), num(p.q[j])), rmul(num(p.cb[j]), num(p.w[j]))),
                rmul(num(p.cc[j]), num(p.g[j])));
    CLOSE(qt[j], t, 4, "qt[%d] of %d", j, p.nmp);
    sum = radd(sum, rmul(num(p.rowp[j]), t));
  }
  if (with_row)
    CLOSE(dot, sum, 4.0 * p.nmp, "row . qt over %d modes", p.nmp);
  else
    ck_assert(dot == 0.0);
  free(qt);
  drop(&p);
}
END_TEST

/* vb_kernel_dist2, vb_kernel_dot and vb_kernel_dot2 over [from, to). */
START_TEST(test_dots)
{
  unsigned seed = 9103u + 17u * (unsigned)_i;
  prob p = make(&seed);
  int from = 8 * (rand_r(&seed) % (p.nmp / 8)), to = from + 8 * (rand_r(&seed) % ((p.nmp - from) / 8 + 1));
  ref d2 = { 0, 0 }, ab = { 0, 0 }, ac = { 0, 0 };
  for (int j = from; j < to; j++) {
    ref d = rsub(num(p.q[j]), num(p.rowp[j]));
    d2 = radd(d2, rmul(d, d));
    ab = radd(ab, rmul(num(p.row0[j]), num(p.q[j])));
    ac = radd(ac, rmul(num(p.row0[j]), num(p.w[j])));
  }
  double got_ab, got_ac;
  vb_kernel_dot2(from, to, p.row0, p.q, p.w, &got_ab, &got_ac);
  CLOSE(vb_kernel_dist2(from, to, p.q, p.rowp), d2, 4.0 * (to - from + 1), "dist2 [%d, %d)", from, to);
  CLOSE(vb_kernel_dot(from, to, p.row0, p.q), ab, 4.0 * (to - from + 1), "dot [%d, %d)", from, to);
  CLOSE(got_ab, ab, 4.0 * (to - from + 1), "dot2 a.b [%d, %d)", from, to);
  CLOSE(got_ac, ac, 4.0 * (to - from + 1), "dot2 a.c [%d, %d)", from, to);
  drop(&p);
}
END_TEST

/* vb_kernel_force: qt -= cc row f. */
START_TEST(test_force)
{
  unsigned seed = 4243u + 19u * (unsigned)_i;
  prob p = make(&seed);
  double f = rnd(&seed, -3, 4), *qt = copy(p.q, p.nmp);
  vb_kernel_force(p.nmp, qt, p.cc, p.row0, f);
  for (int j = 0; j < p.nmp; j++) {
    ref t = rsub(num(p.q[j]), rmul(rmul(num(p.cc[j]), num(p.row0[j])), num(f)));
    CLOSE(qt[j], t, 4, "qt[%d] of %d", j, p.nmp);
  }
  free(qt);
  drop(&p);
}
END_TEST

/* vb_kernel_update2 in its three instances (no look-ahead; look-ahead
 * with and without a generalised force): q1 = qt - cc row0 f0,
 * v1 = 2 (q1 - q)/h - v, the sums of dcoef vm^2 (vm = (v1 + v)/2),
 * gen (q1 - q), mass v1^2, mw2 q1^2, and ahead the next prediction
 * ca q1 + cb v1 (+ cc gen) and its dot with rowp. */
START_TEST(test_update2)
{
  unsigned seed = 1597u + 23u * (unsigned)_i;
  prob p = make(&seed);
  int ahead = _i % 3 != 0, has_gen = _i % 3 != 2;
  double f0 = rnd(&seed, -3, 4), out[5];
  if (!has_gen)
    memset(p.g, 0, (size_t)p.nmp * sizeof *p.g);
  double *qt = copy(p.w, p.nmp), *q = copy(p.q, p.nmp), *v = arr(&seed, p.nmp, p.live, -4, 0);
  double *v_in = copy(v, p.nmp);
  vb_kernel_update2(p.nmp, p.h, qt, p.cc, p.row0, f0, q, v, p.mass, p.dcoef, p.mw2, p.g, ahead,
                    has_gen, p.ca, p.cb, p.rowp, out);
  ref diss = { 0, 0 }, work = { 0, 0 }, kin = { 0, 0 }, pot = { 0, 0 }, dot = { 0, 0 };
  ref two_ih = num(2.0 / p.h);
  for (int j = 0; j < p.nmp; j++) {
    ref q1 = rsub(num(p.w[j]), rmul(rmul(num(p.cc[j]), num(p.row0[j])), num(f0)));
    ref v1 = rsub(rmul(rsub(q1, num(p.q[j])), two_ih), num(v_in[j]));
    ref vm = rmul(radd(v1, num(v_in[j])), num(0.5));
    diss = radd(diss, rmul(num(p.dcoef[j]), rmul(vm, vm)));
    work = radd(work, rmul(num(p.g[j]), rsub(q1, num(p.q[j]))));
    kin = radd(kin, rmul(num(p.mass[j]), rmul(v1, v1)));
    pot = radd(pot, rmul(num(p.mw2[j]), rmul(q1, q1)));
    CLOSE(q[j], q1, 4, "q1[%d] of %d", j, p.nmp);
    CLOSE(v[j], v1, 8, "v1[%d] of %d", j, p.nmp);
    if (ahead) {
      ref qn = radd(radd(rmul(num(p.ca[j]), q1), rmul(num(p.cb[j]), v1)), rmul(num(p.cc[j]), num(p.g[j])));
      CLOSE(qt[j], qn, 16, "next prediction [%d] of %d", j, p.nmp);
      dot = radd(dot, rmul(num(p.rowp[j]), qn));
    } else
      ck_assert_msg(qt[j] == p.w[j], "qt[%d] changed without look-ahead", j);
  }
  double k = 16.0 * p.nmp;
  CLOSE(out[0], diss, k, "dissipation (ahead %d, gen %d)", ahead, has_gen);
  CLOSE(out[1], work, k, "work (ahead %d, gen %d)", ahead, has_gen);
  CLOSE(out[2], kin, k, "2 kinetic (ahead %d, gen %d)", ahead, has_gen);
  CLOSE(out[3], pot, k, "2 potential (ahead %d, gen %d)", ahead, has_gen);
  if (ahead)
    CLOSE(out[4], dot, k, "rowp . next prediction (gen %d)", has_gen);
  free(qt);
  free(q);
  free(v);
  free(v_in);
  drop(&p);
}
END_TEST

/* vb_kernel_update3: q1 = qt - cc row0 f0, qm = q, q = q1, sums of
 * dcoef (q1 - qm)^2, gen (q1 - qm)/2, mass ((q1 - q)/h)^2, mw2 q1 q and
 * ahead ca q1 - cb q + cc gen and its dot with rowp. */
START_TEST(test_update3)
{
  unsigned seed = 2711u + 29u * (unsigned)_i;
  prob p = make(&seed);
  int ahead = _i % 2;
  double f0 = rnd(&seed, -3, 4), out[5];
  double *qt = copy(p.w, p.nmp), *q = copy(p.q, p.nmp), *qm = arr(&seed, p.nmp, p.live, -9, -3);
  double *qm_in = copy(qm, p.nmp);
  vb_kernel_update3(p.nmp, p.h, qt, p.cc, p.row0, f0, q, qm, p.mass, p.dcoef, p.mw2, p.g, ahead,
                    p.ca, p.cb, p.rowp, out);
  ref diss = { 0, 0 }, work = { 0, 0 }, kin = { 0, 0 }, pot = { 0, 0 }, dot = { 0, 0 };
  ref ih = num(1.0 / p.h);
  for (int j = 0; j < p.nmp; j++) {
    ref q1 = rsub(num(p.w[j]), rmul(rmul(num(p.cc[j]), num(p.row0[j])), num(f0)));
    ref d2 = rsub(q1, num(qm_in[j])), d1 = rmul(rsub(q1, num(p.q[j])), ih);
    diss = radd(diss, rmul(num(p.dcoef[j]), rmul(d2, d2)));
    work = radd(work, rmul(rmul(num(0.5), num(p.g[j])), d2));
    kin = radd(kin, rmul(num(p.mass[j]), rmul(d1, d1)));
    pot = radd(pot, rmul(num(p.mw2[j]), rmul(q1, num(p.q[j]))));
    CLOSE(q[j], q1, 4, "q1[%d] of %d", j, p.nmp);
    ck_assert_msg(qm[j] == p.q[j], "qm[%d] is not the old q", j);
    if (ahead) {
      ref qn = radd(rsub(rmul(num(p.ca[j]), q1), rmul(num(p.cb[j]), num(p.q[j]))),
                   rmul(num(p.cc[j]), num(p.g[j])));
      CLOSE(qt[j], qn, 16, "next prediction [%d] of %d", j, p.nmp);
      dot = radd(dot, rmul(num(p.rowp[j]), qn));
    }
  }
  double k = 16.0 * p.nmp;
  CLOSE(out[0], diss, k, "dissipation (ahead %d)", ahead);
  CLOSE(out[1], work, k, "work (ahead %d)", ahead);
  CLOSE(out[2], kin, k, "kinetic (ahead %d)", ahead);
  CLOSE(out[3], pot, k, "potential (ahead %d)", ahead);
  if (ahead)
    CLOSE(out[4], dot, k, "rowp . next prediction%s", "");
  free(qt);
  free(q);
  free(qm);
  free(qm_in);
  drop(&p);
}
END_TEST

/* vb_kernel_free2: d = (ca - 1) q + cb v + cc gen, v1 = 2 d/h - v,
 * q1 = q + d, and the four sums as update2's. */
START_TEST(test_free2)
{
  unsigned seed = 3119u + 31u * (unsigned)_i;
  prob p = make(&seed);
  double *q = copy(p.q, p.nmp), *v = arr(&seed, p.nmp, p.live, -4, 0), *v_in = copy(v, p.nmp);
  double out[4];
  vb_kernel_free2(p.nmp, p.h, q, v, p.ca, p.cb, p.cc, p.g, p.mass, p.dcoef, p.mw2, out);
  ref diss = { 0, 0 }, work = { 0, 0 }, kin = { 0, 0 }, pot = { 0, 0 };
  for (int j = 0; j < p.nmp; j++) {
    ref d = radd(radd(rmul(rsub(num(p.ca[j]), num(1.0)), num(p.q[j])), rmul(num(p.cb[j]), num(v_in[j]))),
                rmul(num(p.cc[j]), num(p.g[j])));
    ref v1 = rsub(rmul(d, num(2.0 / p.h)), num(v_in[j]));
    ref vm = rmul(radd(v1, num(v_in[j])), num(0.5)), q1 = radd(num(p.q[j]), d);
    diss = radd(diss, rmul(num(p.dcoef[j]), rmul(vm, vm)));
    work = radd(work, rmul(num(p.g[j]), d));
    kin = radd(kin, rmul(num(p.mass[j]), rmul(v1, v1)));
    pot = radd(pot, rmul(num(p.mw2[j]), rmul(q1, q1)));
    CLOSE(q[j], q1, 4, "q1[%d] of %d", j, p.nmp);
    CLOSE(v[j], v1, 8, "v1[%d] of %d", j, p.nmp);
  }
  double k = 16.0 * p.nmp;
  CLOSE(out[0], diss, k, "dissipation%s", "");
  CLOSE(out[1], work, k, "work%s", "");
  CLOSE(out[2], kin, k, "2 kinetic%s", "");
  CLOSE(out[3], pot, k, "2 potential%s", "");
  free(q);
  free(v);
  free(v_in);
  drop(&p);
}
END_TEST

static Suite *
kernels_suite(void)
{
  Suite *s = suite_create("kernels");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_loop_test(core, test_predict, 0, 60);
  tcase_add_loop_test(core, test_dots, 0, 60);
  tcase_add_loop_test(core, test_force, 0, 60);
  tcase_add_loop_test(core, test_update2, 0, 90);
  tcase_add_loop_test(core, test_update3, 0, 60);
  tcase_add_loop_test(core, test_free2, 0, 60);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(kernels_suite());
}
