/* check_kglobal.c - the K-method's globalised fall-back (solvers/kglobal.c).
 *
 * core: the ideal string of issue 33 item 3 (100 modes, 88.2 kHz,
 * two-point, a lossless linear penalty k = 1e10, alpha = 1, on the fretless
 * neck's 862 measured heights), whose Newton failed at t = 0.026814059,
 * finishes with its energy constant to 1e-11; random steps of 1 to 4096
 * contacts, piecewise-linear (am1, a linear penalty: the step is a linear
 * complementarity problem) and power-law (two-point, alpha 1.5 to 2.5),
 * solved by the fall-back from rest, checked by their residual formed
 * again here in long double with the laws' forces written out here
 * (Chatziioannou eq 8's discrete gradient, Papetti eq 20's trapezoid), and
 * the piecewise-linear ones up to 64 contacts against Murty's principal
 * pivoting (Murty, Linear Algebra Appl. 1974: the least-index rule,
 * finite on a P-matrix), an independent LCP algorithm in long double.
 * limits: a problem where the fall-back cannot apply (a force that falls
 * with the compression) returns VB_ENOCONV with the caller's iterate
 * untouched, finite. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "scheme.h"
#include "testutil.h"

/* splitmix64 */
static uint64_t
next64(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double
uni(uint64_t *s, double a, double b)
{
  return a + (b - a) * ((next64(s) >> 11) * 0x1.0p-53);
}

typedef struct {
  int n, m, linear;
  double *K, *xt, *x1, *fbar, *jac, *rhs, *gws;
  vb_contact *cts;
  vb_chist *hist;
  int *iterations, *fallback, *piv;
  vb_kproblem p;
} problem;

static void
problem_free(problem *g)
{
  free(g->K);
  free(g->xt);
  free(g->x1);
  free(g->fbar);
  free(g->jac);
  free(g->rhs);
  free(g->gws);
  free(g->cts);
  free(g->hist);
  free(g->iterations);
  free(g->fallback);
  free(g->piv);
}

/* A random step of n contacts on m modes (K = S diag(cc) S^T, rank
 * min(n, m)): `linear`, am1 with a linear penalty (alpha 1, no damping),
 * else two-point with alpha in [1.5, 2.5]; stiffness 1e6 to 1e12, so that
 * K F' is from far below to far above 1; about half the contacts in
 * contact at n. */
static void
problem_make(problem *g, uint64_t seed, int n, int m, int linear)
{
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + (uint64_t)n * 7 + (uint64_t)linear;
  const double dt = 1.0 / 44100.0, X0 = 1e-5;
  memset(g, 0, sizeof *g);
  g->n = n;
  g->m = m;
  g->linear = linear;
  size_t nn = (size_t)n * n;
  double *S = malloc((size_t)n * m * sizeof(double)), *cc = malloc((size_t)m * sizeof(double));
  g->K = calloc(nn, sizeof(double));
  g->xt = calloc(n, sizeof(double));
  g->x1 = calloc(n, sizeof(double));
  g->fbar = calloc(n, sizeof(double));
  g->jac = calloc(nn, sizeof(double));
  g->rhs = calloc(n, sizeof(double));
  g->gws = malloc(vb_kmethod_global_size(n, m) * sizeof(double));
  g->cts = calloc(n, sizeof(vb_contact));
  g->hist = calloc(n, sizeof(vb_chist));
  g->iterations = calloc(n, sizeof(int));
  g->fallback = calloc(n, sizeof(int));
  g->piv = calloc(n, sizeof(int));
  ck_assert(S && cc && g->K && g->xt && g->x1 && g->fbar && g->jac && g->rhs && g->gws &&
            g->cts && g->hist && g->iterations && g->fallback && g->piv);
  double level = pow(10.0, uni(&s, -9.0, -6.0));
  for (int j = 0; j < m; j++)
    cc[j] = level * pow(10.0, uni(&s, -1.0, 1.0)) / m;
  for (size_t k = 0; k < (size_t)n * m; k++)
    S[k] = uni(&s, -1.0, 1.0);
  for (int c = 0; c < n; c++)
    for (int d = 0; d <= c; d++) {
      double sum = 0.0;
      for (int j = 0; j < m; j++)
        sum += S[(size_t)c * m + j] * S[(size_t)d * m + j] * cc[j];
      g->K[(size_t)c * n + d] = g->K[(size_t)d * n + c] = sum;
    }
  free(S);
  free(cc);
  for (int c = 0; c < n; c++) {
    vb_contact *ct = &g->cts[c];
    snprintf(ct->name, sizeof ct->name, "c%d", c);
    ct->law.kind = VB_LAW_POWER;
    ct->law.k = pow(10.0, uni(&s, 6.0, 12.0));
    ct->law.alpha = linear ? 1.0 : uni(&s, 1.5, 2.5);
    ct->scheme = vb_scheme_lookup(linear ? "am1" : "two-point");
    ct->tolerance = 1e-12;
    ct->max_iterations = 50;
    vb_chist *h = &g->hist[c];
    h->x = uni(&s, -1.0, 1.0) * X0;
    h->rate = uni(&s, -1.0, 1.0) * X0 / dt;
    h->xm = h->x;
    h->roff = -h->rate;
    h->f = h->x > 0.0 ? ct->law.k * pow(h->x, ct->law.alpha) : 0.0;
    g->xt[c] = h->x + uni(&s, -2.0, 2.0) * X0;
  }
  g->p = (vb_kproblem){
      .nc = n,
      .dt = dt,
      .K = g->K,
      .xt = g->xt,
      .cts = g->cts,
      .hist = g->hist,
      .x1 = g->x1,
      .fbar = g->fbar,
      .iterations = g->iterations,
      .fallback = g->fallback,
      .jac = g->jac,
      .rhs = g->rhs,
      .piv = g->piv,
      .gws = g->gws,
      .grank = m,
  };
}

/* The potential k/(a+1) [x]^(a+1) and its derivatives, long double. */
static long double
pot(long double k, long double a, long double x, int d)
{
  if (x <= 0.0L)
    return 0.0L;
  switch (d) {
  case 0: return k / (a + 1.0L) * powl(x, a + 1.0L);
  case 1: return k * powl(x, a);
  default: return k * a * (a - 1.0L) * powl(x, a - 2.0L);
  }
}

/* Contact c's step force at x1, written out here: am1's trapezoid (f_n +
 * k [x1]_+) / 2 (Papetti eq 20, no damping) or two-point's discrete
 * gradient (V(x1) - V(x0)) / (x1 - x0) (Chatziioannou eq 8), by its
 * midpoint series V'(m) + V'''(m) h^2 / 24 where the difference would
 * cancel (both in contact, |h| < 1e-4 |m|). */
static long double
force_ref(const problem *g, int c, long double x1)
{
  const vb_law *law = &g->cts[c].law;
  long double k = law->k, a = law->alpha, x0 = g->hist[c].x;
  if (g->linear)
    return 0.5L * ((long double)g->hist[c].f + (x1 > 0.0L ? k * x1 : 0.0L));
  long double h = x1 - x0, mid = 0.5L * (x1 + x0);
  if (x0 > 0.0L && x1 > 0.0L && fabsl(h) < 1e-4L * mid) {
    long double v3 = k * a * (a - 1.0L) * powl(mid, a - 2.0L);
    return k * powl(mid, a) + v3 * h * h / 24.0L;
  }
  if (h == 0.0L)
    return pot(k, a, x0, 1);
  return (pot(k, a, x1, 0) - pot(k, a, x0, 0)) / h;
}

/* The largest residual |x1 - xt + K F(x1)| of each contact relative to
 * its round-off scale |x1| + |xt| + sum_d |K_cd| (|F_d| + |F_d' x1_d|)
 * (the solver's test), long double, F by force_ref (F' by a central
 * difference: it only scales). */
static double
residual_ref(const problem *g)
{
  int n = g->n;
  long double *f = malloc(2 * (size_t)n * sizeof(long double)), *fs = f + n, worst = 0.0L;
  ck_assert(f != NULL);
  for (int d = 0; d < n; d++) {
    long double x = g->x1[d], e = 1e-6L * fabsl(x) + 1e-30L;
    f[d] = force_ref(g, d, x);
    long double df = (force_ref(g, d, x + e) - force_ref(g, d, x - e)) / (2.0L * e);
    fs[d] = fabsl(f[d]) + fabsl(df * x);
  }
  for (int c = 0; c < n; c++) {
    long double r = (long double)g->x1[c] - g->xt[c], sc = fabsl(g->x1[c]) + fabsl(g->xt[c]);
    for (int d = 0; d < n; d++) {
      r += (long double)g->K[(size_t)c * n + d] * f[d];
      sc += fabsl(g->K[(size_t)c * n + d]) * fs[d];
    }
    if (fabsl(r) / sc > worst)
      worst = fabsl(r) / sc;
  }
  free(f);
  return (double)worst;
}

/* Murty's least-index principal pivoting on the step of a piecewise-
 * linear problem, long double: with z = [x1]_+, w = [x1]_- (x1 = z - w),
 * x1 = xt - K (f_n + k z) / 2 is w = A z + b, A = I + K diag(k / 2),
 * b = K f_n / 2 - xt, z, w >= 0, z w = 0.  A is a P-matrix (similar to
 * I + D^1/2 K D^1/2), so the rule ends.  x1 into xs[n]; the pivots. */
static int
murty(const problem *g, long double *xs)
{
  int n = g->n, pivots = 0;
  long double *A = malloc((size_t)n * n * sizeof(long double)), *b = malloc(n * sizeof *b),
              *M = malloc((size_t)n * n * sizeof(long double)), *z = malloc(n * sizeof *z),
              *w = malloc(n * sizeof *w);
  int *in = calloc(n, sizeof(int)), *idx = malloc(n * sizeof(int));
  ck_assert(A && b && M && z && w && in && idx);
  for (int c = 0; c < n; c++) {
    long double s = -(long double)g->xt[c];
    for (int d = 0; d < n; d++) {
      long double kcd = g->K[(size_t)c * n + d];
      A[(size_t)c * n + d] = (c == d) + kcd * 0.5L * g->cts[d].law.k;
      s += kcd * 0.5L * g->hist[d].f;
    }
    b[c] = s;
  }
  for (;;) {
    /* z_S = -A_SS^-1 b_S by Gaussian elimination with partial pivoting */
    int ns = 0;
    for (int c = 0; c < n; c++)
      if (in[c])
        idx[ns++] = c;
    for (int i = 0; i < ns; i++) {
      for (int j = 0; j < ns; j++)
        M[(size_t)i * ns + j] = A[(size_t)idx[i] * n + idx[j]];
      z[i] = -b[idx[i]];
    }
    for (int k = 0; k < ns; k++) {
      int p = k;
      for (int i = k + 1; i < ns; i++)
        if (fabsl(M[(size_t)i * ns + k]) > fabsl(M[(size_t)p * ns + k]))
          p = i;
      for (int j = 0; j < ns; j++) {
        long double t = M[(size_t)k * ns + j];
        M[(size_t)k * ns + j] = M[(size_t)p * ns + j];
        M[(size_t)p * ns + j] = t;
      }
      long double t = z[k];
      z[k] = z[p];
      z[p] = t;
      for (int i = k + 1; i < ns; i++) {
        long double l = M[(size_t)i * ns + k] / M[(size_t)k * ns + k];
        for (int j = k; j < ns; j++)
          M[(size_t)i * ns + j] -= l * M[(size_t)k * ns + j];
        z[i] -= l * z[k];
      }
    }
    for (int k = ns - 1; k >= 0; k--) {
      long double s = z[k];
      for (int j = k + 1; j < ns; j++)
        s -= M[(size_t)k * ns + j] * z[j];
      z[k] = s / M[(size_t)k * ns + k];
    }
    /* the full z and w = A z + b */
    long double *zf = xs;
    for (int c = 0; c < n; c++)
      zf[c] = 0.0L;
    for (int i = 0; i < ns; i++)
      zf[idx[i]] = z[i];
    int bad = -1;
    for (int c = 0; c < n && bad < 0; c++) {
      long double s = b[c];
      for (int d = 0; d < n; d++)
        s += A[(size_t)c * n + d] * zf[d];
      w[c] = in[c] ? 0.0L : s;
      long double tiny = 1e-15L * (fabsl(b[c]) + 1e-30L);
      if ((in[c] && zf[c] < -tiny) || (!in[c] && s < -tiny))
        bad = c;
    }
    if (bad < 0) {
      for (int c = 0; c < n; c++)
        xs[c] = zf[c] - w[c];
      break;
    }
    in[bad] = !in[bad];
    ck_assert_msg(++pivots < 100000, "Murty's rule does not end (n %d)", n);
  }
  free(A);
  free(b);
  free(M);
  free(z);
  free(w);
  free(in);
  free(idx);
  return pivots;
}

/* Random steps of 1 to 4096 contacts, from rest, through the fall-back:
 * converged, finite, their residual within the tolerance as formed here;
 * piecewise-linear ones up to 64 contacts equal to Murty's to 1e-9 of
 * the compressions' scale. */
START_TEST(test_random_steps)
{
  static const int sizes[] = {1, 2, 3, 5, 8, 13, 32, 64, 200, 862, 4096};
  int linear = _i;
  int worst_its = 0;
  double worst_res = 0.0, worst_murty = 0.0;
  long total_its = 0, solves = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int n = sizes[k], trials = n <= 64 ? 20 : n <= 862 ? 3 : 1;
    for (int t = 0; t < trials; t++) {
      problem g;
      int m = n <= 64 ? n + t % 5 : 60 + 20 * t; /* full rank, or a body of m modes */
      problem_make(&g, (uint64_t)(1000 * k + t) + 17, n, m, linear);
      int its = -1;
      int rc = vb_kmethod_global(&g.p, &its);
      ck_assert_msg(rc == VB_OK, "%s n %d trial %d: rc %d after %d iterations",
                    linear ? "linear" : "power", n, t, rc, its);
      for (int c = 0; c < n; c++)
        ck_assert_msg(isfinite(g.x1[c]) && isfinite(g.fbar[c]), "n %d: not finite", n);
      double res = residual_ref(&g);
      /* the solver's tolerance, and the rounding of its own double sums
       * of n + 2 terms relative to their scale */
      double bound = 1e-12 + (n + 2) * DBL_EPSILON;
      ck_assert_msg(res <= bound, "%s n %d trial %d: residual %.3e > %.3e",
                    linear ? "linear" : "power", n, t, res, bound);
      worst_res = fmax(worst_res, res);
      worst_its = its > worst_its ? its : worst_its;
      total_its += its;
      solves++;
      if (linear && n <= 64) {
        long double *xs = malloc(n * sizeof *xs);
        ck_assert(xs != NULL);
        murty(&g, xs);
        double scale = 0.0;
        for (int c = 0; c < n; c++)
          scale = fmax(scale, fabs((double)xs[c]) + fabs(g.xt[c]));
        for (int c = 0; c < n; c++) {
          double e = fabs(g.x1[c] - (double)xs[c]) / scale;
          worst_murty = fmax(worst_murty, e);
          ck_assert_msg(e <= 1e-9, "n %d trial %d contact %d: %.17g, Murty %.17Lg", n, t, c,
                        g.x1[c], xs[c]);
        }
        free(xs);
      }
      problem_free(&g);
    }
  }
  printf("kglobal, %s steps of 1 to 4096 contacts: %ld solved, %.2f iterations on average, at "
         "most %d; largest residual %.2e of its scale%s",
         linear ? "piecewise-linear (am1, alpha 1)" : "power-law (two-point, alpha 1.5-2.5)",
         solves, (double)total_its / solves, worst_its, worst_res, linear ? "" : "\n");
  if (linear)
    printf("; against Murty's pivoting, %.2e of the compressions' scale\n", worst_murty);
}
END_TEST

/* The full K-method path with the fall-back attached gives a converged
 * step wherever the fall-back does (the random steps up to 862 contacts:
 * Newton alone, or Newton then the fall-back), and its residual. */
START_TEST(test_kmethod_with_fallback)
{
  static const int sizes[] = {2, 5, 32, 200, 862};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int linear = 0; linear < 2; linear++) {
      problem g;
      int n = sizes[k];
      problem_make(&g, 77 + k, n, n <= 64 ? n : 100, linear);
      long global = 0;
      g.p.global_solves = &global;
      ck_assert_int_eq(vb_kmethod_solve(&g.p), VB_OK);
      double res = residual_ref(&g);
      ck_assert_msg(res <= 1e-12 + (n + 2) * DBL_EPSILON, "n %d: residual %g", n, res);
      problem_free(&g);
    }
}
END_TEST

/* A force that falls with the compression (a negative stiffness: no
 * convex merit): VB_ENOCONV, x1 and fbar as the caller left them. */
START_TEST(test_not_monotone)
{
  problem g;
  problem_make(&g, 5, 8, 8, 1);
  for (int c = 0; c < 8; c++) {
    g.cts[c].law.k = -1e9;
    g.hist[c].f = 0.0;
    g.xt[c] = 1e-5;
    g.x1[c] = 0.25;
    g.fbar[c] = 0.0;
  }
  int its;
  ck_assert_int_eq(vb_kmethod_global(&g.p, &its), VB_ENOCONV);
  for (int c = 0; c < 8; c++)
    ck_assert(g.x1[c] == 0.25 && g.fbar[c] == 0.0);
  g.p.gws = NULL;
  ck_assert_int_eq(vb_kmethod_global(&g.p, &its), VB_ENOCONV);
  problem_free(&g);
}
END_TEST

/* Issue 33 item 3's ideal string, 30 ms (its Newton failed at
 * t = 0.026814059): done, its energy constant to 1e-11 relative, the
 * fall-back's steps counted. */
START_TEST(test_ideal_string)
{
  const char *text =
      "scene = { name = \"ideal\"; fs = 88200.0; duration = 0.03; gravity = 0.0; };\n"
      "bodies = ( { name = \"neck\"; type = \"wall\"; },\n"
      "  { name = \"string\"; type = \"modal\";\n"
      "    preset = { kind = \"string\"; nmodes = 100; length = 0.863; tension = 191.6;\n"
      "      linear_density = 0.0067; pluck = [0.64, 3.6e-3]; };\n"
      "    points = ( { name = \"pickup\"; x = 0.501; } ); } );\n"
      "contacts = ( { name = \"neck\"; between = [\"neck\", \"string\"]; law = \"power\";\n"
      "  k = 1e10; alpha = 1.0; scheme = \"two-point\";\n"
      "  points = { file = \"bass-fretless-neck.csv\"; };\n"
      "  profile = { file = \"bass-fretless-neck.csv\"; }; } );\n";
  char path[4096], err[2048];
  snprintf(path, sizeof path, "%s/scenes/ideal-neck.cfg", TEST_SRCDIR);
  tu_sim s = {NULL, NULL, 0};
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  int rc = vb_run_exec(s.run);
  ck_assert_msg(rc == VB_OK, "the ideal string did not finish (rc %d)", rc);
  ck_assert_int_eq(s.scene->ncontacts, 862);
  long n = vb_run_samples(s.run), global = 0, its = 0, impacts = 0;
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  double drift = 0.0;
  for (long i = 0; i < n; i++)
    drift = fmax(drift, fabs(e[i] - e[0]) / e[0]);
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(s.run, c);
    global = r->global_solves > global ? r->global_solves : global;
    its += r->iterations;
    impacts += r->nevents;
    ck_assert_int_eq(r->newton_failures, 0);
  }
  printf("ideal string on the fretless neck, 30 ms: %ld impacts, fall-back steps %ld, energy "
         "drift %.2e\n",
         impacts, global, drift);
  ck_assert_int_gt(global, 0); /* the step Newton failed was the fall-back's */
  ck_assert_msg(drift < 1e-11, "energy drift %g", drift);
  tu_free(&s);
}
END_TEST

static Suite *
kglobal_suite(void)
{
  Suite *s = suite_create("kglobal");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_ideal_string);
  tcase_add_loop_test(t, test_random_steps, 0, 2);
  tcase_add_test(t, test_kmethod_with_fallback);
  suite_add_tcase(s, t);
  t = tcase_create("limits");
  tcase_add_test(t, test_not_monotone);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return tu_main(kglobal_suite());
}
