/* check_kmethod.c - the K-method's multi-contact solve (solvers/kmethod.c)
 * and the scalar Newton (solvers/newton.c) on random problems
 * (tests/kmethod_gen.h): sizes 1 to 64 and past them, laws that are linear
 * (spring: one Newton step, the LU alone decides), power laws, damped
 * Hunt-Crossley, the two-level, three-level and quadratic (closed-form,
 * Gauss-Seidel) schemes.  Every answer is checked by its residual
 * x1 + K fbar(x1) - xt, evaluated afresh; tests/kmethod.py compares the
 * same problems with scipy's solver. */
#include "lapack_which.h" /* first: it asks for _GNU_SOURCE (dladdr) */
#include "testutil.h"
#include "kmethod_gen.h"
#include "bridge_scene.h"
#include <float.h>
#include <lapacke.h>
#include <math.h>

/* Residual of a converged solve relative to the scale of its round-off
 * (kg_residual): the multi-contact Newton stops only when it is below the
 * contacts' tolerance, 1e-12; twice that leaves room for the rounding of
 * the sums. */
#define RESIDUAL_MAX 2e-12

/* Solve problem (seed, n) and check it; returns the status. */
static int
solve_checked(uint64_t seed, int n, const char *scheme, int laws, int must_converge)
{
  kg_problem g;
  ck_assert_int_eq(kg_make(&g, seed, n, vb_scheme_lookup(scheme), laws), 0);
  int rc = vb_kmethod_solve(&g.p);
  for (int c = 0; c < n; c++) {
    ck_assert_msg(isfinite(g.x1[c]) && isfinite(g.fbar[c]), "%s n=%d seed=%lu: contact %d: %g %g",
                  scheme, n, (unsigned long)seed, c, g.x1[c], g.fbar[c]);
    ck_assert_int_ge(g.iterations[c], 0);
  }
  if (must_converge)
    ck_assert_msg(rc == VB_OK, "%s n=%d seed=%lu laws=%d: status %d", scheme, n,
                  (unsigned long)seed, laws, rc);
  if (rc == VB_OK) {
    double r = kg_residual(&g);
    ck_assert_msg(r <= RESIDUAL_MAX, "%s n=%d seed=%lu laws=%d: residual %g", scheme, n,
                  (unsigned long)seed, laws, r);
  }
  kg_free(&g);
  return rc;
}

/* Linear springs: Newton's first LU solve is the answer, so a wrong LU
 * (the hand-written one interleaved its row swaps with the forward
 * substitution: relative errors of 4 to 40 from size 3) shows at once. */
START_TEST(test_linear)
{
  for (int n = 1; n <= 64; n++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      solve_checked(seed, n, "two-point", KG_SPRING, 1);
      solve_checked(seed, n, "three-point", KG_SPRING, 1);
    }
}
END_TEST

/* Power laws (monotone, so the solution is unique): every solve converges,
 * with contacts that act and contacts that do not in one problem. */
START_TEST(test_power)
{
  for (int n = 1; n <= 64; n++)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      solve_checked(seed, n, "two-point", KG_POWER, 1);
      solve_checked(seed, n, "three-point", KG_POWER, 1);
      solve_checked(seed, n, "two-point", KG_POWER | KG_SPRING, 1);
    }
  for (int n = 100; n <= 200; n += 50)
    solve_checked(7, n, "two-point", KG_POWER, 1);
}
END_TEST

/* Hunt-Crossley with up to mu = 1 s/m and rates of X0/dt: the damped force
 * may fall with x1, so a solve may stop, but never at a non-finite value,
 * and what converges has round-off residual.  Most converge. */
START_TEST(test_hunt_crossley)
{
  int ok = 0, total = 0;
  const char *schemes[] = {"two-point", "three-point", "am1"};
  for (int k = 0; k < 3; k++)
    for (int n = 1; n <= 64; n++)
      for (uint64_t seed = 1; seed <= 3; seed++) {
        ok += solve_checked(seed, n, schemes[k], KG_HUNT_CROSSLEY | KG_POWER, 0) == VB_OK;
        total++;
      }
  ck_assert_msg(ok >= total * 9 / 10, "%d of %d converged", ok, total);
}
END_TEST

/* The quadratic scheme (closed form per contact, block Gauss-Seidel with
 * the Newton polish, its fallback to three-point): finite always, round-off
 * residual when converged. */
START_TEST(test_quadratic)
{
  int ok = 0, total = 0;
  for (int n = 1; n <= 64; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ok += solve_checked(seed, n, "quadratic", KG_POWER, 0) == VB_OK;
      total++;
    }
  ck_assert_msg(ok >= total * 9 / 10, "%d of %d converged", ok, total);
}
END_TEST

/* The active set: contacts with no force have x1 = xt - K fbar exactly as
 * the residual says, and a contact predicted out of contact but pushed in
 * by the others' forces joins (a problem built so that it must). */
START_TEST(test_joins)
{
  kg_problem g;
  ck_assert_int_eq(kg_make(&g, 3, 2, vb_scheme_lookup("two-point"), KG_POWER), 0);
  /* contact 0 pressed in, contact 1 just out; negative coupling: the
   * force at 0 raises the compression at 1 */
  double w = 1e-6;
  g.K[0] = w;
  g.K[1] = g.K[2] = -0.9 * w;
  g.K[3] = w;
  for (int c = 0; c < 2; c++) {
    g.cts[c].law = (vb_law){.kind = VB_LAW_POWER, .k = 1e9, .alpha = 1.5};
    g.hist[c] = (vb_chist){.x = -1e-6};
  }
  g.xt[0] = 1e-4;
  g.xt[1] = -1e-7;
  ck_assert_int_eq(vb_kmethod_solve(&g.p), VB_OK);
  ck_assert_double_gt(g.fbar[0], 0.0);
  ck_assert_double_gt(g.x1[1], 0.0);
  ck_assert_double_gt(g.fbar[1], 0.0);
  ck_assert_int_gt(g.iterations[1], 0);
  ck_assert_double_le(kg_residual(&g), RESIDUAL_MAX);
  kg_free(&g);
}
END_TEST

/* A join looks at every force of the set just solved: contact 2 pressed
 * in pushes both 0 and 1 into contact (negative coupling), so after the
 * round that solves {2} both join at once, and the round that solves
 * {0, 1, 2} finds nobody else: two rounds.  expand_active used to sum the
 * first n entries of the active list after inserting 1 in it, so contact
 * 0 saw 1's zero force instead of 2's, stayed out and joined a round
 * later (three rounds, one Newton solve more). */
START_TEST(test_joins_together)
{
  kg_problem g;
  ck_assert_int_eq(kg_make(&g, 5, 3, vb_scheme_lookup("two-point"), KG_POWER), 0);
  double w = 1e-6, K[9] = {w, 0.0, -0.6 * w, 0.0, w, -0.6 * w, -0.6 * w, -0.6 * w, w};
  memcpy(g.K, K, sizeof K);
  for (int c = 0; c < 3; c++) {
    g.cts[c].law = (vb_law){.kind = VB_LAW_POWER, .k = 1e9, .alpha = 1.5};
    g.hist[c] = (vb_chist){.x = -1e-6};
  }
  g.xt[0] = g.xt[1] = -1e-7;
  g.xt[2] = 1e-4;
  int rounds = 0;
  g.p.rounds = &rounds;
  ck_assert_int_eq(vb_kmethod_solve(&g.p), VB_OK);
  for (int c = 0; c < 3; c++)
    ck_assert_double_gt(g.fbar[c], 0.0);
  ck_assert_int_eq(rounds, 2);
  ck_assert_double_le(kg_residual(&g), RESIDUAL_MAX);
  kg_free(&g);
}
END_TEST

/* Hostile problems (k up to 1e300, alpha up to 40, predictions up to
 * 100 m): Newton may not converge in 50 iterations, but it never leaves
 * a non-finite compression or force; only a force (or K fbar) that
 * overflows at the prediction itself is VB_EDIVERGED.  Full Newton steps without the line
 * search leave NaN in about two thirds of these. */
START_TEST(test_hostile)
{
  const char *schemes[] = {"two-point", "three-point"};
  int ok = 0;
  for (int k = 0; k < 2; k++)
    for (int n = 2; n <= 16; n++)
      for (uint64_t seed = 1; seed <= 100; seed++) {
        kg_problem g;
        ck_assert_int_eq(kg_make(&g, seed, n, vb_scheme_lookup(schemes[k]), KG_POWER), 0);
        uint64_t s = seed * 91 + n;
        int overflow = 0;
        double f[16], df;
        for (int c = 0; c < n; c++) {
          g.cts[c].law.alpha = kg_range(&s, 1.0, 40.0);
          g.cts[c].law.k = pow(10.0, kg_range(&s, 0.0, 300.0));
          g.xt[c] = kg_range(&s, -1.0, 1.0) * pow(10.0, kg_range(&s, -6.0, 2.0));
          f[c] = g.cts[c].scheme->ops->step_force(&g.cts[c], &g.hist[c], g.p.dt, g.xt[c], &df);
          overflow |= !isfinite(f[c]) || !isfinite(df);
        }
        /* or the residual at the prediction, K fbar(xt) */
        for (int c = 0; c < n; c++) {
          double r = 0.0;
          for (int d = 0; d < n; d++)
            r += fabs(g.K[c * n + d] * f[d]);
          overflow |= !isfinite(r);
        }
        int rc = vb_kmethod_solve(&g.p);
        ok += rc == VB_OK;
        if (rc == VB_EDIVERGED) {
          ck_assert_msg(overflow, "%s n=%d seed=%lu: diverged without overflow", schemes[k], n,
                        (unsigned long)seed);
        } else {
          for (int c = 0; c < n; c++)
            ck_assert_msg(isfinite(g.x1[c]) && isfinite(g.fbar[c]),
                          "%s n=%d seed=%lu: contact %d: x1 %g, fbar %g (status %d)", schemes[k],
                          n, (unsigned long)seed, c, g.x1[c], g.fbar[c], rc);
          if (rc == VB_OK)
            ck_assert_double_le(kg_residual(&g), RESIDUAL_MAX);
        }
        kg_free(&g);
      }
  ck_assert_int_gt(ok, 0);
}
END_TEST

typedef struct {
  double e, w, k, alpha;
} scalar;

/* y - e + w k [y]^alpha. */
static double
scalar_r(double y, void *data, double *dr)
{
  const scalar *s = data;
  double p = y > 0.0 ? pow(y, s->alpha - 1.0) : 0.0;
  *dr = 1.0 + s->w * s->k * s->alpha * p;
  return y - s->e + s->w * s->k * p * (y > 0.0 ? y : 0.0);
}

/* The scalar Newton against bisection (an independent solver) on random
 * monotone problems, e of either sign, coupling w k from 1e-6 to 1e6. */
START_TEST(test_scalar_newton)
{
  uint64_t st = 42;
  for (int t = 0; t < 20000; t++) {
    scalar s = {.e = kg_range(&st, -1.0, 1.0) * 1e-5,
                .w = pow(10.0, kg_range(&st, -9.0, -5.0)),
                .k = pow(10.0, kg_range(&st, 6.0, 12.0)),
                .alpha = kg_range(&st, 1.0, 3.0)};
    double y, dr;
    int its;
    int rc = vb_newton_solve(scalar_r, &s, s.e, fabs(s.e), 1e-12, 50, &y, &its);
    ck_assert_msg(rc == VB_OK, "trial %d: status %d", t, rc);
    /* bisection on [min(e, 0), max(e, 0)], where the root lies */
    double lo = fmin(s.e, 0.0), hi = fmax(s.e, 0.0);
    for (int k = 0; k < 200 && lo < hi; k++) {
      double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi)
        break;
      if (scalar_r(mid, &s, &dr) < 0.0)
        lo = mid;
      else
        hi = mid;
    }
    ck_assert_msg(fabs(y - 0.5 * (lo + hi)) <= 1e-11 * fabs(s.e) + 1e-300,
                  "trial %d: newton %.17g bisection %.17g", t, y, 0.5 * (lo + hi));
  }
}
END_TEST

/* d = -J^-1 r with J = I + K_AA diag(fbar') by Gaussian elimination with
 * partial pivoting in long double on the whole J: the independent solver
 * of test_update. */
static void
update_reference(const kg_problem *g, const int *act, int na, const double *df, const double *r,
                 long double *d)
{
  long double *a = malloc((size_t)na * (na + 1) * sizeof(long double));
  ck_assert_ptr_nonnull(a);
  int w = na + 1;
  for (int i = 0; i < na; i++) {
    for (int j = 0; j < na; j++)
      a[i * w + j] = (i == j) + (long double)g->K[act[i] * g->n + act[j]] * df[j];
    a[i * w + na] = -(long double)r[i];
  }
  for (int k = 0; k < na; k++) {
    int p = k;
    for (int i = k + 1; i < na; i++)
      if (fabsl(a[i * w + k]) > fabsl(a[p * w + k]))
        p = i;
    for (int j = 0; j <= na; j++) {
      long double t = a[k * w + j];
      a[k * w + j] = a[p * w + j];
      a[p * w + j] = t;
    }
    for (int i = k + 1; i < na; i++) {
      long double l = a[i * w + k] / a[k * w + k];
      for (int j = k; j <= na; j++)
        a[i * w + j] -= l * a[k * w + j];
    }
  }
  for (int i = na - 1; i >= 0; i--) {
    long double x = a[i * w + na];
    for (int j = i + 1; j < na; j++)
      x -= a[i * w + j] * d[j];
    d[i] = x / a[i * w + i];
  }
  free(a);
}

/* The Newton update (vb_kmethod_update, from K_AA packed and from K: the
 * same bits) against update_reference on
 * random problems of 1 to 160 contacts, active sets of every size drawn
 * from them, fbar' of 1e3 to 1e9 N/m with none, some or all zero (the
 * block-triangular solve of the contacts whose force does not move, and
 * the whole LU where N's pivots do not fit): within 1e-9 of the largest
 * |d|. */
START_TEST(test_update)
{
  uint64_t s = 0x8F3A5C7E1D2B4967ull;
  int reduced = 0, whole = 0;
  for (int trial = 0; trial < 3000; trial++) {
    int n = 1 + (int)(kg_next(&s) % (trial < 2000 ? 24 : 160));
    kg_problem g;
    ck_assert_int_eq(kg_make(&g, (uint64_t)trial + 1, n, vb_scheme_lookup("two-point"), KG_POWER), 0);
    int na = 0;
    double pick = kg_uniform(&s);
    for (int c = 0; c < n; c++)
      if (kg_uniform(&s) < pick || c == n - 1)
        g.piv[na++] = c;
    double zeros = trial % 5 == 0 ? 0.0 : trial % 5 == 1 ? 1.0 : kg_uniform(&s);
    double *df = g.jac + (size_t)n * n - na, r[160];
    long double ref[160];
    int nz = 0;
    for (int i = 0; i < na; i++) {
      df[i] = kg_uniform(&s) < zeros ? 0.0 : pow(10.0, kg_range(&s, 3.0, 9.0));
      nz += df[i] == 0.0;
      r[i] = g.rhs[i] = kg_range(&s, -1e-5, 1e-5);
    }
    update_reference(&g, g.piv, na, df, r, ref);
    /* from K_AA packed (outside the scratch: its own block), then from
     * p->K after the same inputs again: the same bits */
    double *kaa = malloc(sizeof(double) * ((size_t)na * na + 1)), dfs[160], dk[160];
    for (int j = 0; j < na; j++)
      for (int i = 0; i < na; i++)
        kaa[j * na + i] = g.K[g.piv[i] * n + g.piv[j]];
    memcpy(dfs, df, sizeof(double) * na);
    ck_assert_int_eq(vb_kmethod_update(&g.p, na, kaa), 0);
    memcpy(dk, g.rhs, sizeof(double) * na);
    memcpy(df, dfs, sizeof(double) * na);
    memcpy(g.rhs, r, sizeof(double) * na);
    ck_assert_int_eq(vb_kmethod_update(&g.p, na, NULL), 0);
    ck_assert_msg(memcmp(dk, g.rhs, sizeof(double) * na) == 0, "trial %d: packed K_AA differs",
                  trial);
    free(kaa);
    long double big = 0.0L, err = 0.0L;
    for (int i = 0; i < na; i++) {
      big = fmaxl(big, fabsl(ref[i]));
      err = fmaxl(err, fabsl(g.rhs[i] - ref[i]));
    }
    ck_assert_msg(err <= 1e-9L * big, "trial %d: %d contacts, %d active, %d fixed: error %Lg of %Lg",
                  trial, n, na, nz, err, big);
    int m = na - nz, fits = nz > 0 && 2 * m <= n && m * m + 2 * na <= n * n;
    reduced += fits;
    whole += !fits;
    kg_free(&g);
  }
  ck_assert_int_gt(reduced, 500);
  ck_assert_int_gt(whole, 500);
}
END_TEST

/* A random n x n test matrix (column-major) of kind 0..5: uniform in
 * [-1, 1]; the Newton's J = I + K D (K = S S^T / m, positive definite, D
 * diagonal 1e3 to 1e9 with a third zero); rows and columns scaled by
 * 10^[-8, 8] (ill-conditioned, badly scaled); two columns equal to 1e-13
 * (nearly singular); a third of the entries zero (dger's and dtrsm's
 * skipped zeros); one column scaled to 1e-310 (a subnormal pivot:
 * dgetf2 divides instead of scaling by the reciprocal). */
static void
dense_matrix(uint64_t *s, int n, int kind, double *a)
{
  for (int i = 0; i < n * n; i++)
    a[i] = kg_range(s, -1.0, 1.0);
  if (kind == 1) {
    int m = n + 3;
    double *S = malloc((size_t)n * m * sizeof(double)), d[64];
    ck_assert_ptr_nonnull(S);
    for (int i = 0; i < n * m; i++)
      S[i] = kg_range(s, -1.0, 1.0) * 1e-4;
    for (int j = 0; j < n; j++)
      d[j] = kg_uniform(s) < 0.33 ? 0.0 : pow(10.0, kg_range(s, 3.0, 9.0));
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double k = 0.0;
        for (int l = 0; l < m; l++)
          k += S[i * m + l] * S[j * m + l];
        a[(size_t)j * n + i] = (i == j) + k / m * d[j];
      }
    free(S);
  } else if (kind == 2) {
    for (int i = 0; i < n; i++) {
      double r = pow(10.0, kg_range(s, -8.0, 8.0));
      for (int j = 0; j < n; j++)
        a[(size_t)j * n + i] *= r;
    }
    for (int j = 0; j < n; j++) {
      double c = pow(10.0, kg_range(s, -8.0, 8.0));
      for (int i = 0; i < n; i++)
        a[(size_t)j * n + i] *= c;
    }
  } else if (kind == 3 && n > 1) {
    int p = (int)(kg_next(s) % n), q = (p + 1) % n;
    for (int i = 0; i < n; i++)
      a[(size_t)q * n + i] = a[(size_t)p * n + i] * (1.0 + 1e-13 * kg_range(s, -1.0, 1.0));
  } else if (kind == 4) {
    for (int i = 0; i < n * n; i++)
      if (kg_uniform(s) < 0.33)
        a[i] = 0.0;
  } else if (kind == 5) {
    int p = (int)(kg_next(s) % n);
    for (int i = 0; i < n; i++)
      a[(size_t)p * n + i] *= 1e-310;
  }
}

/* Backward error of an LU with partial pivoting, in long double, from the
 * factors f and pivots ip (1-based, LAPACK's convention) of the n x n
 * column-major a: *normwise is max |PA - LU| / (max |A| n eps) and the
 * return max over the entries of |PA - LU| / (|L| |U| gamma_n), which
 * the rounding-error analysis of Gaussian elimination bounds by 1 (Higham,
 * Accuracy and Stability, Theorem 9.3); *multiplier the largest |l_ij|,
 * at most 1 where the pivot was the largest in its column. */
static long double
lu_backward_error(int n, const double *a, const double *f, const int *ip, long double *normwise,
                  long double *multiplier)
{
  static long double pa[64 * 64];
  long double worst = 0.0L, big = 0.0L, amax = 0.0L, lmax = 0.0L;
  long double gamma = n * (long double)DBL_EPSILON / 2 / (1.0L - n * (long double)DBL_EPSILON / 2);
  for (int i = 0; i < n * n; i++) {
    pa[i] = a[i];
    amax = fmaxl(amax, fabsl(pa[i]));
  }
  /* P A: the interchanges in turn */
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++) {
      long double t = pa[(size_t)j * n + k];
      pa[(size_t)j * n + k] = pa[(size_t)j * n + ip[k] - 1];
      pa[(size_t)j * n + ip[k] - 1] = t;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      long double lu = 0.0L, abs_lu = 0.0L;
      for (int k = 0; k <= (i < j ? i : j); k++) {
        long double l = k == i ? 1.0L : f[(size_t)k * n + i], u = f[(size_t)j * n + k];
        if (k < i)
          lmax = fmaxl(lmax, fabsl(l));
        lu += l * u;
        abs_lu += fabsl(l) * fabsl(u);
      }
      long double r = fabsl(pa[(size_t)j * n + i] - lu);
      big = fmaxl(big, r);
      if (r > 0.0L)
        worst = fmaxl(worst, abs_lu > 0.0L ? r / (gamma * abs_lu) : INFINITY);
    }
  *normwise = amax > 0.0L ? big / (amax * n * (long double)DBL_EPSILON) : 0.0L;
  *multiplier = lmax;
  return worst;
}

/* vb_dense_lu and vb_dense_lu_solve (the active set's LU, kmethod.c) on
 * 6000 random matrices of 1 to 64 rows of the kinds of dense_matrix, by
 * checks that hold whichever LAPACK the process loaded: a zero column gives
 * a zero pivot there or before (OpenBLAS 0.3.21's dgetf2 misses one with a
 * subnormal column beside it); multipliers
 * at most 1 (partial pivoting); the factorisation's backward error
 * |PA - LU| within gamma_n |L| |U| entry by entry and max |PA - LU| below
 * 8 max |A| n eps (random matrices grow little; both but for the kind
 * with a subnormal column); the solution's normwise
 * backward error |b - A x| / (|A| |x| + |b|) (infinity norms, long double)
 * below 4 n eps; and within 1e-9 of Gaussian elimination in long double
 * (update_reference's) on the uniform and J kinds.  Where the reference
 * LAPACK is the one loaded (tools/setup.sh installs it; lapack_which.h
 * tells it from OpenBLAS, MKL or BLIS), the info, pivots, factors and
 * solution are also LAPACK's dgetf2 and dgetrs to the bit. */
START_TEST(test_dense_lu)
{
  uint64_t s = 0x5DEECE66Dull;
  char lapack[4096];
  int reference = tl_reference_lapack(lapack, sizeof lapack);
  int bitwise = 0, singular = 0, checked = 0, info_differs = 0;
  long double normwise_max = 0.0L, componentwise_max = 0.0L;
  for (int trial = 0; trial < 6000; trial++) {
    int n = 1 + (int)(kg_next(&s) % (trial < 3000 ? 16 : 64)), kind = trial % 6;
    double a[64 * 64], f[64 * 64], l[64 * 64], b[64], x[64], y[64];
    int ip[64], lp[64];
    dense_matrix(&s, n, kind, a);
    int z = -1;
    if (trial % 97 == 0) {
      z = (int)(kg_next(&s) % n); /* a zero column: singular */
      for (int i = 0; i < n; i++)
        a[(size_t)z * n + i] = 0.0;
    }
    for (int i = 0; i < n; i++)
      b[i] = x[i] = y[i] = kg_range(&s, -1.0, 1.0) * (kind == 4 && i % 3 == 0 ? 0.0 : 1.0);
    memcpy(f, a, sizeof(double) * n * n);
    memcpy(l, a, sizeof(double) * n * n);
    int info = vb_dense_lu(n, f, ip);
    int linfo = LAPACKE_dgetf2_work(LAPACK_COL_MAJOR, n, n, l, n, lp);
    /* a zero column z: a zero pivot at z + 1 or before */
    if (z >= 0)
      ck_assert_msg(info >= 1 && info <= z + 1, "trial %d (n %d): column %d zero, info %d", trial, n,
                    z + 1, info);
    if (reference)
      ck_assert_msg(info == linfo, "trial %d (n %d, kind %d): info %d, LAPACK %d", trial, n, kind,
                    info, linfo);
    else if (info != linfo) /* another LAPACK met an exact 0 where we did not, or missed one */
      info_differs++;
    if (info) {
      singular++;
      continue;
    }
    long double normwise, multiplier;
    long double componentwise = lu_backward_error(n, a, f, ip, &normwise, &multiplier);
    ck_assert_msg(multiplier <= 1.0L, "trial %d (n %d, kind %d): multiplier %Lg", trial, n, kind,
                  multiplier);
    if (kind != 5) { /* a subnormal column: its entries round absolutely */
      ck_assert_msg(componentwise <= 1.0L, "trial %d (n %d, kind %d): |PA - LU| %Lg gamma_n |L||U|",
                    trial, n, kind, componentwise);
      ck_assert_msg(normwise <= 8.0L, "trial %d (n %d, kind %d): |PA - LU| %Lg |A| n eps", trial,
                    n, kind, normwise);
      normwise_max = fmaxl(normwise_max, normwise);
      componentwise_max = fmaxl(componentwise_max, componentwise);
    }
    vb_dense_lu_solve(n, f, ip, x);
    ck_assert_int_eq(LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, l, n, lp, y, n), 0);
    if (reference) {
      ck_assert_msg(memcmp(ip, lp, sizeof(int) * n) == 0, "trial %d: pivots differ", trial);
      ck_assert_msg(memcmp(f, l, sizeof(double) * n * n) == 0,
                    "trial %d (n %d, kind %d): factors differ from %s", trial, n, kind, lapack);
      ck_assert_msg(memcmp(x, y, sizeof(double) * n) == 0,
                    "trial %d (n %d, kind %d): solution differs from %s", trial, n, kind, lapack);
      bitwise++;
    }
    checked++;
    long double rmax = 0.0L, amax = 0.0L, xmax = 0.0L, bmax = 0.0L;
    for (int i = 0; i < n; i++) {
      long double r = b[i], row = 0.0L;
      for (int j = 0; j < n; j++) {
        r -= (long double)a[(size_t)j * n + i] * x[j];
        row += fabsl((long double)a[(size_t)j * n + i]);
      }
      rmax = fmaxl(rmax, fabsl(r));
      amax = fmaxl(amax, row);
      xmax = fmaxl(xmax, fabsl((long double)x[i]));
      bmax = fmaxl(bmax, fabsl((long double)b[i]));
    }
    if (kind != 5) /* a subnormal column: |A| |x| is what rounds there */
      ck_assert_msg(rmax <= 4.0L * n * DBL_EPSILON * (amax * xmax + bmax),
                    "trial %d (n %d, kind %d): backward error %Lg", trial, n, kind,
                    rmax / (amax * xmax + bmax));
    if (kind <= 1) {
      /* update_reference solves (I + K_AA D) d = -r: as K = A - I, D = 1 */
      kg_problem g = {.n = n};
      double *K = malloc(sizeof(double) * n * n), ones[64], mb[64];
      long double ref[64];
      int act[64];
      ck_assert_ptr_nonnull(K);
      for (int i = 0; i < n; i++) {
        act[i] = i;
        ones[i] = 1.0;
        mb[i] = -b[i];
        for (int j = 0; j < n; j++)
          K[i * n + j] = a[(size_t)j * n + i] - (i == j);
      }
      g.K = K;
      update_reference(&g, act, n, ones, mb, ref);
      long double big = 0.0L, err = 0.0L;
      for (int i = 0; i < n; i++) {
        big = fmaxl(big, fabsl(ref[i]));
        err = fmaxl(err, fabsl(x[i] - ref[i]));
      }
      ck_assert_msg(err <= 1e-9L * big, "trial %d (n %d, kind %d): error %Lg of %Lg", trial, n, kind,
                    err, big);
      free(K);
    }
  }
  printf("dense LU: %d of 6000 factored, %d singular (%d where LAPACK said otherwise); largest |PA - LU| %.3Lg |A| n eps, "
         "%.3Lg gamma_n |L||U|; %d bit for bit with %s (%s)\n",
         checked, singular, info_differs, normwise_max, componentwise_max, bitwise, lapack,
         reference ? "the reference LAPACK" : "not the reference LAPACK: bits not compared");
  ck_assert_int_gt(singular, 50);
  ck_assert_int_eq(checked + singular, 6000);
  ck_assert_int_eq(bitwise, reference ? checked : 0);
  ck_assert_int_le(info_differs, 60); /* the kind with a subnormal column, at most */
}
END_TEST

/* The tanpura-like bridge (scenes/tanpura-bridge.cfg) at n points, 200
 * modes, 50 ms: on main it diverged at 1.56 ms with 16 points (`contact
 * 'b0': compression solved for the step is nan`) and Newton failed from
 * there on in 1331 steps of 0.25 s with 64.  Now every step converges and
 * the lossless string's energy (two-point: conserved to Newton's
 * tolerance, 1e-12 per step) drifts by less than 1e-11 of its start (at
 * 0.25 s: 9e-13 to 1.8e-12 for 1 to 128 points, tests/bench/bench_kmethod). */
static void
bridge_run(int points)
{
  char *text = bridge_scene(200, points, 0.05, "two-point", "");
  ck_assert_ptr_nonnull(text);
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_msg(s.rc == VB_OK, "%d points: %s", points, vb_run_status(s.run));
  long impacts = 0;
  for (int c = 0; c < points; c++) {
    const vb_contact_result *r = vb_run_contact(s.run, c);
    ck_assert_int_eq(r->newton_failures, 0);
    impacts += r->nevents;
  }
  ck_assert_int_gt(impacts, points / 4);
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  ck_assert_ptr_nonnull(e);
  double drift = 0.0;
  for (long k = 0; k < vb_run_samples(s.run); k++)
    drift = fmax(drift, fabs(e[k] - e[0]) / e[0]);
  printf("bridge %3d points: %ld impacts, energy drift %.3g\n", points, impacts, drift);
  ck_assert_double_lt(drift, 1e-11);
  tu_free(&s);
}

START_TEST(test_bridge_16)
{
  bridge_run(16);
}
END_TEST

START_TEST(test_bridge_64)
{
  bridge_run(64);
}
END_TEST

/* The active-set Newton starts from the last step's forces (p->fbar on
 * entry: x1 = xt - K_AA fbar_A) and steps along the force's local power
 * (kmethod.c's lift): on random problems, from the cold start (fbar = 0),
 * from the solution's own forces, and from forces scaled at random by 0
 * to 10 or of the wrong sign, every solve of a monotone law converges to
 * round-off residual and to the cold start's root (the root is unique:
 * within 1e-9 of the compressions' scale); from the solution's forces
 * the iterate starts at the root (when the contacts that act are those
 * the prediction says may act: a contact that joins later starts cold),
 * so the solve never takes more iterations than the cold start and, in
 * most problems, fewer. */
START_TEST(test_warm_start)
{
  static const int laws[] = {KG_POWER, KG_POWER | KG_SPRING};
  static const char *const schemes[] = {"two-point", "three-point"};
  int faster = 0, solves = 0;
  for (int n = 2; n <= 100; n += n < 24 ? 1 : 19)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      int law = laws[seed % 2];
      const char *scheme = schemes[(seed / 2) % 2];
      kg_problem g;
      ck_assert_int_eq(kg_make(&g, seed, n, vb_scheme_lookup(scheme), law), 0);
      double *f0 = calloc((size_t)n, sizeof(double)), *x0 = calloc((size_t)n, sizeof(double));
      ck_assert_int_eq(vb_kmethod_solve(&g.p), VB_OK);
      int cold = 0;
      double scale = 0.0;
      for (int c = 0; c < n; c++) {
        f0[c] = g.fbar[c];
        x0[c] = g.x1[c];
        cold = g.iterations[c] > cold ? g.iterations[c] : cold;
        scale = fmax(scale, fabs(g.x1[c]) + fabs(g.xt[c]));
      }
      uint64_t r = seed * 7919 + (uint64_t)n;
      for (int start = 0; start < 3; start++) {
        for (int c = 0; c < n; c++)
          g.fbar[c] = start == 0   ? f0[c]
                      : start == 1 ? f0[c] * kg_range(&r, 0.0, 10.0)
                                   : -f0[c] * kg_range(&r, 0.0, 2.0);
        ck_assert_msg(vb_kmethod_solve(&g.p) == VB_OK, "%s n=%d seed=%lu start %d", scheme, n,
                      (unsigned long)seed, start);
        double res = kg_residual(&g);
        ck_assert_msg(res <= RESIDUAL_MAX, "%s n=%d seed=%lu start %d: residual %g", scheme, n,
                      (unsigned long)seed, start, res);
        int its = 0;
        for (int c = 0; c < n; c++) {
          ck_assert_msg(fabs(g.x1[c] - x0[c]) <= 1e-9 * scale,
                        "%s n=%d seed=%lu start %d: contact %d at %.17g, cold %.17g", scheme, n,
                        (unsigned long)seed, start, c, g.x1[c], x0[c]);
          its = g.iterations[c] > its ? g.iterations[c] : its;
        }
        if (start == 0) {
          ck_assert_msg(its <= cold, "%s n=%d seed=%lu: %d iterations from the root (cold %d)",
                        scheme, n, (unsigned long)seed, its, cold);
          faster += its < cold;
          solves++;
        }
      }
      free(f0);
      free(x0);
      kg_free(&g);
    }
  printf("warm start: fewer iterations from the root's forces in %d of %d problems\n", faster,
         solves);
  ck_assert_int_gt(2 * faster, solves);
}
END_TEST

/* The root a solve accepts is the confirmed one to well within the
 * tolerance: where two full Newton steps predict the next update below
 * the compressions' round-off (kmethod.c's quadratic_done), the solve
 * stops without the confirming iteration, so one more full Newton step
 * from the accepted compressions, d = -J^-1 r with J = I + K diag(fbar')
 * formed here and solved by LAPACK's dgesv, must move no contact by more
 * than its residual's scale (kg_residual's |x1| + |xt| +
 * sum |K| (|fbar| + |fbar' x1|)) a tenth of the contacts' tolerance
 * (1e-12): measured 1.06e-14 of it at most here (4.6e-16 before, when
 * every solve took the confirming step); accepting on the tolerance
 * instead of the round-off (u2 <= 1e-12 / 2) gives 7.3e-13 and fails. */
START_TEST(test_accepted_root)
{
  static const char *const schemes[] = {"two-point", "three-point"};
  double worst = 0.0;
  for (int n = 2; n <= 120; n += n < 24 ? 1 : 16)
    for (uint64_t seed = 1; seed <= 8; seed++) {
      const char *scheme = schemes[seed % 2];
      kg_problem g;
      ck_assert_int_eq(kg_make(&g, seed, n, vb_scheme_lookup(scheme), KG_POWER), 0);
      ck_assert_int_eq(vb_kmethod_solve(&g.p), VB_OK);
      double *J = malloc((size_t)n * n * sizeof(double)), *d = malloc(3 * (size_t)n * sizeof(double));
      double *df = d + n, *fs = d + 2 * n;
      lapack_int *ipiv = malloc((size_t)n * sizeof(lapack_int));
      ck_assert(J && d && ipiv);
      double *f = malloc((size_t)n * sizeof(double));
      ck_assert(f != NULL);
      for (int c = 0; c < n; c++) {
        const vb_contact *ct = &g.cts[c];
        const vb_scheme *sch = g.fallback[c] ? ct->scheme->fallback : ct->scheme;
        f[c] = sch->ops->step_force(ct, &g.hist[c], g.p.dt, g.x1[c], &df[c]);
        fs[c] = fabs(f[c]) + fabs(df[c] * g.x1[c]);
      }
      for (int c = 0; c < n; c++) {
        double r = g.x1[c] - g.xt[c];
        for (int e = 0; e < n; e++) {
          r += g.K[c * n + e] * f[e];
          J[c * n + e] = (c == e) + g.K[c * n + e] * df[e];
        }
        d[c] = -r;
      }
      ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, J, n, ipiv, d, 1), 0);
      for (int c = 0; c < n; c++) {
        double scale = fabs(g.x1[c]) + fabs(g.xt[c]);
        for (int e = 0; e < n; e++)
          scale += fabs(g.K[c * n + e]) * fs[e];
        double rel = fabs(d[c]) / scale;
        worst = rel > worst ? rel : worst;
        ck_assert_msg(rel <= 1e-13, "%s n=%d seed=%lu: contact %d moves by %g of its scale",
                      scheme, n, (unsigned long)seed, c, rel);
      }
      free(f);
      free(J);
      free(d);
      free(ipiv);
      kg_free(&g);
    }
  printf("accepted roots: one more Newton step moves them by %.3g of their scale at most\n", worst);
}
END_TEST

/* Eq 8b (two-point) and eq 7 (three-point) formed here from the law's
 * functions as the schemes formed them before step_force_at: the discrete
 * gradient over (x0, x1) (vb_law_gradient_pair, which forms V(x0) itself)
 * plus damping at the rate (x1 - x0) / span. */
static double
force_reference(const vb_law *law, double x0, double span, double x1, double *dfdx)
{
  double rate = (x1 - x0) / span;
  double dg, g = vb_law_gradient_pair(law, x1, x0, &dg);
  double d = vb_law_damping(law, g);
  *dfdx = dg * (1.0 + vb_law_damping_slope(law, g) * rate) + d / span;
  return g + d * rate;
}

/* A scheme's step_force_at with its step_base, and its step_force, are
 * the scheme's force formed directly (force_reference) to the bit (the
 * K-method's trials take the base once a solve): two-point and
 * three-point, power, Hunt-Crossley and spring laws of random problems,
 * random trials x1 in and out of contact, near x^n and x^(n-1) (both
 * gradient thresholds) and at them.  Seen failing with the base of the
 * other time level and with the base one ulp off. */
START_TEST(test_step_force_at)
{
  const char *names[] = {"two-point", "three-point"};
  long compared = 0;
  for (int k = 0; k < 2; k++) {
    const vb_scheme *sch = vb_scheme_lookup(names[k]);
    ck_assert_ptr_nonnull(sch->ops->step_base);
    ck_assert_ptr_nonnull(sch->ops->step_force_at);
    for (uint64_t seed = 1; seed <= 40; seed++) {
      kg_problem g;
      ck_assert_int_eq(kg_make(&g, seed, 16, sch, KG_POWER | KG_HUNT_CROSSLEY | KG_SPRING), 0);
      uint64_t s = seed * 7919;
      for (int c = 0; c < 16; c++) {
        const vb_contact *ct = &g.cts[c];
        const vb_chist *h = &g.hist[c];
        double b = sch->ops->step_base(ct, h);
        for (int t = 0; t < 200; t++) {
          double x0 = k == 0 ? h->x : h->xm, rel = pow(10.0, -kg_range(&s, 0.0, 16.0));
          double x1 = t % 4 == 0   ? kg_range(&s, -2.0, 2.0) * fabs(g.xt[c] - h->x)
                      : t % 4 == 1 ? x0 * (1.0 + (t % 8 == 1 ? rel : -rel))
                      : t % 4 == 2 ? g.xt[c] * kg_range(&s, -1.0, 1.0)
                                   : (t % 8 == 3 ? x0 : 0.0);
          double df, f = force_reference(&ct->law, x0, (k + 1) * g.p.dt, x1, &df);
          double dfa, fa = sch->ops->step_force_at(ct, h, g.p.dt, x1, b, &dfa);
          double dfs, fs = sch->ops->step_force(ct, h, g.p.dt, x1, &dfs);
          ck_assert_msg(memcmp(&f, &fa, sizeof f) == 0 && memcmp(&df, &dfa, sizeof df) == 0 &&
                            memcmp(&f, &fs, sizeof f) == 0 && memcmp(&df, &dfs, sizeof df) == 0,
                        "%s seed %lu contact %d x1 %.17g: at %.17g %.17g, step_force %.17g "
                        "%.17g, formed here %.17g %.17g",
                        names[k], (unsigned long)seed, c, x1, fa, dfa, fs, dfs, f, df);
          compared++;
        }
      }
      kg_free(&g);
    }
  }
  ck_assert_int_eq(compared, 2 * 40 * 16 * 200);
}
END_TEST

/* The library's LAPACK (lib/base/lapack.c, opened at the first large
 * factorisation) is the one this test calls through LAPACKE: the file
 * that provides its dgetf2_ is the file that provides the process's, and
 * on 48 random matrices of 33 to 80 rows (past vb_dense_lu's 32, where the
 * K-method calls LAPACK), one of them singular, its info, pivots, factors
 * and solutions are LAPACKE_dgetf2_work's and LAPACKE_dgetrs_work's to
 * the bit, whichever LAPACK that is. */
START_TEST(test_lapack_loaded)
{
  const char *file;
  char mine[4096], theirs[4096];
  Dl_info info;
  void *f = dlsym(RTLD_DEFAULT, "dgetf2_");
  ck_assert_int_eq(vb_lapack_load(&file), 0);
  ck_assert_ptr_nonnull(vb_lapack_handle_if_loaded());
  ck_assert(f != NULL && dladdr(f, &info) && info.dli_fname);
  ck_assert_ptr_nonnull(realpath(file, mine));
  ck_assert_ptr_nonnull(realpath(info.dli_fname, theirs));
  ck_assert_str_eq(mine, theirs);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int trial = 0; trial < 48; trial++) {
    int n = 33 + (int)(kg_next(&s) % 48), ip[80], lp[80];
    static double a[80 * 80], l[80 * 80];
    double b[80], y[80];
    for (int i = 0; i < n * n; i++)
      a[i] = l[i] = kg_range(&s, -1.0, 1.0) + (i % (n + 1) == 0 ? 2.385 : 0.0);
    if (trial == 7)
      for (int i = 0; i < n; i++)
        a[(size_t)5 * n + i] = l[(size_t)5 * n + i] = 0.0; /* column 6 zero: info 6 at most */
    for (int i = 0; i < n; i++)
      b[i] = y[i] = kg_range(&s, -1.0, 1.0);
    int info_mine = vb_lapack_dgetf2(n, a, ip);
    int info_theirs = LAPACKE_dgetf2_work(LAPACK_COL_MAJOR, n, n, l, n, lp);
    ck_assert_int_eq(info_mine, info_theirs);
    ck_assert(trial != 7 || (info_mine >= 1 && info_mine <= 6));
    ck_assert_msg(memcmp(ip, lp, sizeof(int) * n) == 0, "trial %d: pivots differ", trial);
    ck_assert_msg(memcmp(a, l, sizeof(double) * n * n) == 0, "trial %d: factors differ", trial);
    if (info_mine != 0)
      continue;
    ck_assert_int_eq(vb_lapack_dgetrs(n, a, ip, b), 0);
    ck_assert_int_eq(LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, l, n, lp, y, n), 0);
    ck_assert_msg(memcmp(b, y, sizeof(double) * n) == 0, "trial %d: solutions differ", trial);
  }
}
END_TEST

/* vb_blas_pin (lib/base/lapack.c): with OpenBLAS loaded (the CI phase with
 * LD_LIBRARY_PATH at libopenblas0-pthread), a study's threads see one BLAS
 * thread and the count set before comes back; with any other LAPACK
 * nothing is found and nothing changes. */
START_TEST(test_blas_pin)
{
  ck_assert_int_eq(vb_lapack_load(NULL), 0); /* (before it, a pin is pending: -1) */
  void *g = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  void *s = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (!g || !s) {
    ck_assert_int_eq(vb_blas_pin(), 0);
    vb_blas_unpin(0);
    return;
  }
  int (*get)(void);
  void (*set)(int);
  memcpy(&get, &g, sizeof g);
  memcpy(&set, &s, sizeof s);
  int before = get();
  set(3);
  int saved = vb_blas_pin();
  ck_assert_int_eq(saved, 3);
  ck_assert_int_eq(get(), 1);
  vb_blas_unpin(saved);
  ck_assert_int_eq(get(), 3);
  set(1); /* already one thread: nothing to pin or give back */
  ck_assert_int_eq(vb_blas_pin(), 0);
  ck_assert_int_eq(get(), 1);
  set(before);
}
END_TEST

static Suite *
kmethod_suite(void)
{
  Suite *s = suite_create("kmethod");
  TCase *tc = tcase_create("solve");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_linear);
  tcase_add_test(tc, test_power);
  tcase_add_test(tc, test_hunt_crossley);
  tcase_add_test(tc, test_quadratic);
  tcase_add_test(tc, test_joins);
  tcase_add_test(tc, test_joins_together);
  tcase_add_test(tc, test_hostile);
  tcase_add_test(tc, test_scalar_newton);
  tcase_add_test(tc, test_update);
  tcase_add_test(tc, test_dense_lu);
  tcase_add_test(tc, test_lapack_loaded);
  tcase_add_test(tc, test_blas_pin);
  tcase_add_test(tc, test_warm_start);
  tcase_add_test(tc, test_accepted_root);
  tcase_add_test(tc, test_step_force_at);
  tcase_add_test(tc, test_bridge_16);
  tcase_add_test(tc, test_bridge_64);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(kmethod_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
