/* check_orbit.c - tests of lib/base/orbit.c on random inputs: periodic sections
 * with noise below and above the tolerance, started anywhere in their
 * cycle; transients decaying (and growing) at random rates, real and
 * spiralling; chaotic maps (logistic at r = 4, tent, Henon); rotations
 * by an irrational number (quasi-periodic); sections too short to tell;
 * attractor ids over rotated cycles (the partition, and its independence
 * of the scenes' order); impacts per period; the grazing flag.  The
 * brute-force comparison with numpy is tests/orbit.sh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orbit_gen.h"
#include "testutil.h"

/* Coordinate j of point i of a section x[][d]. */
#define x_at(x, d, i, j) ((x)[(i) * (d) + (j)])

/* Random per-coordinate scales over six decades. */
static void
random_scales(uint64_t *s, double *scale, int d)
{
  for (int j = 0; j < d; j++)
    scale[j] = pow(10.0, og_range(s, -4.0, 2.0));
}

/* A random size: pmax, d, scale, tol and n between lo and 4 vb_orbit_needed. */
typedef struct {
  int pmax, d;
  double scale[4], tol;
  long n;
  double *x;
} sized;

static sized
make_size(uint64_t *s, int pmax_hi, int d_hi)
{
  sized z = {.pmax = og_int(s, 1, pmax_hi), .d = og_int(s, 1, d_hi)};
  random_scales(s, z.scale, z.d);
  z.tol = pow(10.0, og_range(s, -9.0, -3.0));
  z.n = og_int(s, (int)vb_orbit_needed(z.pmax), 4 * (int)vb_orbit_needed(z.pmax));
  z.x = malloc((size_t)z.n * (size_t)z.d * sizeof *z.x);
  ck_assert(z.x != NULL);
  return z;
}

/* Noise below the tolerance (differences at most 0.8 tol): the period is
 * m, from wherever in the cycle the section starts, down to the fewest
 * points that can show it. */
START_TEST(test_periodic)
{
  uint64_t s = 1000u + (uint64_t)_i;
  sized z = make_size(&s, 40, 4);
  int m = og_int(&s, 1, z.pmax);
  long n = og_int(&s, (int)(m + vb_orbit_window(m)), (int)z.n);
  vb_orbit o;
  og_periodic(&s, z.x, n, z.d, z.scale, m, 0.4 * z.tol);
  vb_orbit_classify(z.x, n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_PERIODIC && o.period == m,
                "seed %d: m %d pmax %d n %ld: class %d period %d spread %g", _i, m, z.pmax, n,
                o.cls, o.period, o.spread);
  ck_assert(o.spread <= z.tol && o.tolerance == z.tol);
  free(z.x);
}
END_TEST

/* Noise 20 times the tolerance: no period, no trend: irregular. */
START_TEST(test_noisy)
{
  uint64_t s = 2000u + (uint64_t)_i;
  sized z = make_size(&s, 40, 4);
  int m = og_int(&s, 1, z.pmax);
  vb_orbit o;
  og_periodic(&s, z.x, z.n, z.d, z.scale, m, 20.0 * z.tol);
  vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_IRREGULAR && o.period == 0,
                "seed %d: m %d n %ld: class %d period %d", _i, m, z.n, o.cls, o.period);
  ck_assert(o.spread > z.tol);
  free(z.x);
}
END_TEST

/* A cycle longer than pmax (m in pmax + 1 .. 2 pmax + 1, exact): no
 * shift up to pmax closes it, and nothing trends: irregular, never a
 * divisor or a guess. */
START_TEST(test_beyond_pmax)
{
  uint64_t s = 3000u + (uint64_t)_i;
  sized z = make_size(&s, 20, 3);
  int m = og_int(&s, z.pmax + 1, 2 * z.pmax + 1);
  vb_orbit o;
  og_periodic(&s, z.x, z.n, z.d, z.scale, m, 0.0);
  vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_IRREGULAR, "seed %d: class %d", _i, o.cls);
  /* with pmax raised to m and enough points, found */
  if (z.n >= m + vb_orbit_window(m)) {
    vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, m, &o);
    ck_assert(o.cls == VB_ORBIT_PERIODIC && o.period == m);
  }
  free(z.x);
}
END_TEST

/* Eq A2b: a fixed point whose alternating deviation (-1)^i a_i has an
 * envelope a_i = A cos(2 pi i / 16 + phi), A = tol scaled (the scatter of
 * a multiplier near -1 before a period doubling, as the ball of
 * examples/bouncing_ball_periods.py shows at 64 steps a contact): shift 1
 * does not close (e_1 up to 2 A), shift 2 does (e_2 <= 0.77 A), and the
 * split between successive points passes through the closure's spread at
 * both places of the window: period 1, its spread its own (above tol).
 * The same section with the envelope held at A (a period-2 orbit) stays
 * period 2. */
START_TEST(test_unresolved_alternation)
{
  uint64_t s = 9000u + (uint64_t)_i;
  sized z = make_size(&s, 8, 3);
  double phi = og_range(&s, 0.0, 2.0 * M_PI), *c = malloc((size_t)z.d * sizeof *c);
  long n = og_int(&s, 2 + 8, 60);
  vb_orbit o;
  free(z.x);
  z.x = malloc((size_t)n * (size_t)z.d * sizeof *z.x);
  for (int j = 0; j < z.d; j++)
    c[j] = og_range(&s, -1.0, 1.0) * z.scale[j];
  z.pmax = z.pmax < 2 ? 2 : z.pmax;
  for (int held = 0; held < 2; held++) {
    for (long i = 0; i < n; i++)
      for (int j = 0; j < z.d; j++) {
        double a = held ? 1.0 : cos(2.0 * M_PI * (double)i / 16.0 + phi);
        x_at(z.x, z.d, i, j) = c[j] + (i % 2 ? -1.0 : 1.0) * a * z.tol * z.scale[j];
      }
    vb_orbit_classify(z.x, n, z.d, z.scale, z.tol, z.pmax, &o);
    ck_assert_msg(o.cls == VB_ORBIT_PERIODIC && o.period == (held ? 2 : 1),
                  "seed %d, %s envelope: n %ld: class %d period %d spread %g (tol %g)", _i,
                  held ? "a held" : "a wandering", n, o.cls, o.period, o.spread, z.tol);
    if (!held)
      ck_assert_msg(o.spread > z.tol, "seed %d: spread %g, tol %g", _i, o.spread, z.tol);
  }
  free(c);
  free(z.x);
}
END_TEST

/* Eq A2b place by place: a period-4 cycle two of whose points 2 apart lie
 * within the noise of each other while the other two do not (as the
 * impact oscillator's period 12 at 27.6 Hz, one of whose pairs 6 apart
 * is 0.007 apart against 0.19 for another) stays period 4: the split is
 * resolved at some place of the cycle. */
START_TEST(test_resolved_place)
{
  uint64_t s = 9500u + (uint64_t)_i;
  sized z = make_size(&s, 12, 3);
  double cyc[4][4];
  long n = og_int(&s, 4 + 8, 80);
  vb_orbit o;
  free(z.x);
  z.x = malloc((size_t)n * (size_t)z.d * sizeof *z.x);
  z.pmax = z.pmax < 4 ? 4 : z.pmax;
  for (int j = 0; j < z.d; j++) {
    cyc[0][j] = og_range(&s, -1.0, 1.0) * z.scale[j];
    cyc[1][j] = og_range(&s, -1.0, 1.0) * z.scale[j];
    cyc[2][j] = cyc[0][j] + og_range(&s, -0.2, 0.2) * z.tol * z.scale[j];
    cyc[3][j] = cyc[1][j] + (j == 0 ? og_range(&s, 0.3, 0.6) : og_range(&s, -0.1, 0.1)) *
                                z.scale[j];
  }
  for (long i = 0; i < n; i++)
    for (int j = 0; j < z.d; j++)
      x_at(z.x, z.d, i, j) = cyc[i % 4][j] + og_range(&s, -0.4, 0.4) * z.tol * z.scale[j];
  vb_orbit_classify(z.x, n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_PERIODIC && o.period == 4,
                "seed %d: n %ld: class %d period %d spread %g", _i, n, o.cls, o.period, o.spread);
  free(z.x);
}
END_TEST

/* A transient on a period-m cycle: a deviation shrinking by rho a point
 * (real, alternating, or a spiral in quadrature coordinates), rho^b in
 * [0.05, 0.6] over a block of the trend.  Still 10 to 1000 times the
 * tolerance from closing at the end: not settled; decayed to 0.1 of it
 * over the closure window: periodic, period m. */
START_TEST(test_transient)
{
  uint64_t s = 4000u + (uint64_t)_i;
  sized z = make_size(&s, 32, 4);
  int m = og_int(&s, 1, z.pmax);
  long b = (z.n - z.pmax) / VB_ORBIT_BLOCKS;
  double rho = pow(og_range(&s, 0.05, 0.6), 1.0 / (double)b);
  double phi = z.d == 1 ? M_PI * og_int(&s, 0, 1) : og_range(&s, 0.0, 2 * M_PI);
  double a = z.tol * pow(10.0, og_range(&s, 1.0, 3.0)) / (1.0 / rho - 1.0);
  vb_orbit o;

  og_periodic(&s, z.x, z.n, z.d, z.scale, m, 0.0);
  og_transient(z.x, z.n, z.d, z.scale, a, rho, phi);
  vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_UNSETTLED && o.period == 0,
                "seed %d: m %d rho %g phi %g n %ld: class %d period %d spread %g", _i, m, rho, phi,
                z.n, o.cls, o.period, o.spread);
  ck_assert(o.spread > z.tol);
  /* the same, decayed */
  og_periodic(&s, z.x, z.n, z.d, z.scale, m, 0.0);
  a = 0.05 * z.tol * pow(rho, (double)(vb_orbit_window(m) + m));
  og_transient(z.x, z.n, z.d, z.scale, a, rho, phi);
  vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_PERIODIC && o.period == m,
                "seed %d: decayed: m %d rho %g n %ld: class %d period %d", _i, m, rho, z.n, o.cls,
                o.period);
  free(z.x);
}
END_TEST

/* A deviation growing by 1/rho a point (moving away from a cycle): not
 * settled either. */
START_TEST(test_growing)
{
  uint64_t s = 5000u + (uint64_t)_i;
  sized z = make_size(&s, 32, 4);
  long b = (z.n - z.pmax) / VB_ORBIT_BLOCKS;
  double grow = pow(og_range(&s, 1.0 / 0.6, 20.0), 1.0 / (double)b);
  double phi = z.d == 1 ? 0.0 : og_range(&s, 0.0, 2 * M_PI);
  vb_orbit o;
  og_periodic(&s, z.x, z.n, z.d, z.scale, og_int(&s, 1, z.pmax), 0.0);
  og_transient(z.x, z.n, z.d, z.scale, og_range(&s, 0.5, 5.0), grow, phi);
  vb_orbit_classify(z.x, z.n, z.d, z.scale, z.tol, z.pmax, &o);
  ck_assert_msg(o.cls == VB_ORBIT_UNSETTLED, "seed %d: class %d", _i, o.cls);
  free(z.x);
}
END_TEST

/* Chaotic maps: the logistic map at r = 4, a tent map, the Henon map:
 * irregular, over 96 to 3000 points. */
START_TEST(test_chaotic)
{
  uint64_t s = 6000u + (uint64_t)_i;
  int kind = _i % 3, d = kind == 2 ? 2 : 1;
  long n = og_int(&s, (int)vb_orbit_needed(32), 3000);
  double *x = malloc((size_t)n * (size_t)d * sizeof *x), scale[2] = {1.0, 0.3};
  vb_orbit o;
  og_chaotic(&s, kind, x, n);
  vb_orbit_classify(x, n, d, scale, 1e-6, 32, &o);
  ck_assert_msg(o.cls == VB_ORBIT_IRREGULAR, "map %d seed %d n %ld: class %d period %d", kind, _i,
                n, o.cls, o.period);
  free(x);
}
END_TEST

/* Rotations by a number at least 1e-3 from every p/q with q <= 32, on a
 * circle (u, v) or as a 2-torus seen in one coordinate: irregular. */
START_TEST(test_quasiperiodic)
{
  uint64_t s = 7000u + (uint64_t)_i;
  int d = 1 + _i % 2;
  long n = og_int(&s, (int)vb_orbit_needed(32), 4000);
  double *x = malloc((size_t)n * (size_t)d * sizeof *x), scale[2] = {1.0, 1.0};
  double w = og_irrational(&s, 32, 1e-3), w2 = og_irrational(&s, 32, 1e-3);
  vb_orbit o;
  og_rotation(x, n, d, og_range(&s, 0.5, 2.0), w, w2, og_range(&s, 0.0, 2 * M_PI));
  vb_orbit_classify(x, n, d, scale, 1e-6, 32, &o);
  ck_assert_msg(o.cls == VB_ORBIT_IRREGULAR, "seed %d d %d omega %.9g %.9g n %ld: class %d", _i, d,
                w, w2, n, o.cls);
  free(x);
}
END_TEST

/* The slow beat of a rotation near 1/4 (its distances under shift 4
 * drift monotonically over the section) with one outlier in the first
 * block (a sample inside a contact): irregular, not a transient. */
START_TEST(test_beat)
{
  uint64_t s = 12000u + (uint64_t)_i;
  long n = og_int(&s, 120, 400);
  double x[400], one = 1.0, w = 0.25 + og_range(&s, 0.1, 0.2) / (double)n;
  double psi = og_range(&s, 0.0, 0.5);
  vb_orbit o;
  for (long i = 0; i < n; i++) {
    double th = 2 * M_PI * w * (double)i + psi;
    x[i] = cos(th) + 0.4 * cos(2 * th + 0.3);
  }
  x[og_int(&s, 0, (int)((n - 32) / VB_ORBIT_BLOCKS) - 1)] += og_range(&s, 0.5, 2.0);
  vb_orbit_classify(x, n, 1, &one, 1e-6, 32, &o);
  ck_assert_msg(o.cls == VB_ORBIT_IRREGULAR, "seed %d n %ld: class %d", _i, n, o.cls);
}
END_TEST

/* Too few points: a cycle needs m + vb_orbit_window(m) points, one fewer
 * is not settled; chaos one point short of vb_orbit_needed is not
 * settled; no section is none; a non-finite point is not settled with a
 * NaN spread; the smallest closing shift is the period. */
START_TEST(test_limits)
{
  uint64_t s = 8000u;
  double x[2 * 200], one = 1.0;
  vb_orbit o;
  for (int m = 1; m <= 12; m++) {
    long n = m + vb_orbit_window(m);
    og_periodic(&s, x, n, 2, (double[]){1.0, 2.0}, m, 0.0);
    vb_orbit_classify(x, n, 2, NULL, 1e-9, 12, &o);
    ck_assert_msg(o.cls == VB_ORBIT_PERIODIC && o.period == m, "m %d", m);
    vb_orbit_classify(x + 2, n - 1, 2, NULL, 1e-9, 12, &o);
    ck_assert_msg(o.cls == VB_ORBIT_UNSETTLED && o.period == 0, "m %d short", m);
  }
  ck_assert_int_eq(vb_orbit_window(1), 8);
  ck_assert_int_eq(vb_orbit_window(5), 10);
  ck_assert_int_eq(vb_orbit_needed(32), 96);
  ck_assert_int_eq(vb_orbit_needed(1), 17);
  og_chaotic(&s, 0, x, 96);
  vb_orbit_classify(x, 95, 1, &one, 1e-6, 32, &o);
  ck_assert_int_eq(o.cls, VB_ORBIT_UNSETTLED);
  vb_orbit_classify(x, 96, 1, &one, 1e-6, 32, &o);
  ck_assert_int_eq(o.cls, VB_ORBIT_IRREGULAR);
  vb_orbit_classify(NULL, 10, 1, &one, 1e-6, 32, &o);
  ck_assert(o.cls == VB_ORBIT_NONE && isnan(o.spread));
  vb_orbit_classify(x, 0, 1, &one, 1e-6, 32, &o);
  ck_assert_int_eq(o.cls, VB_ORBIT_NONE);
  for (int i = 0; i < 40; i++)
    x[i] = 0.25;
  x[17] = NAN;
  vb_orbit_classify(x, 40, 1, &one, 1e-6, 32, &o);
  ck_assert(o.cls == VB_ORBIT_UNSETTLED && isnan(o.spread));
  x[17] = 0.25;
  vb_orbit_classify(x, 40, 1, &one, 1e-6, 32, &o);
  ck_assert(o.cls == VB_ORBIT_PERIODIC && o.period == 1 && o.spread == 0.0);
  /* period 3 closes under 6 too: 3 is reported */
  for (int i = 0; i < 60; i++)
    x[i] = (double[]){0.1, 0.7, 0.3}[i % 3];
  vb_orbit_classify(x, 60, 1, &one, 1e-6, 32, &o);
  ck_assert_int_eq(o.period, 3);
}
END_TEST

/* A random set of scenes around a few attractors (random periods and
 * cycles, at least 3 tol apart under every shift), each scene's cycle
 * rotated at random with noise under tol / 4, a fifth not periodic: the
 * ids make the true partition, numbered in order of first appearance,
 * and a shuffled order of the scenes gives the same partition. */
START_TEST(test_attractors)
{
  uint64_t s = 9000u + (uint64_t)_i;
  int nattr = og_int(&s, 1, 6), d = og_int(&s, 1, 4), per[6];
  long ns = og_int(&s, 1, 400), *id = malloc((size_t)ns * sizeof *id),
       *id2 = malloc((size_t)ns * sizeof *id2), *perm = malloc((size_t)ns * sizeof *perm);
  int *truth = malloc((size_t)ns * sizeof *truth), *period = malloc((size_t)ns * sizeof *period),
      *period2 = malloc((size_t)ns * sizeof *period2);
  double scale[4], tol = pow(10.0, og_range(&s, -8.0, -2.0)), *c[6];
  double **cyc = calloc((size_t)ns, sizeof *cyc);
  const double **cyc2 = calloc((size_t)ns, sizeof *cyc2);
  long seen = 0;

  ck_assert(id && id2 && perm && truth && period && period2 && cyc && cyc2);
  random_scales(&s, scale, d);
  for (int a = 0; a < nattr; a++) {
    per[a] = og_int(&s, 1, 12);
    c[a] = malloc((size_t)per[a] * (size_t)d * sizeof *c[a]);
    for (int i = 0; i < per[a] * d; i++)
      c[a][i] = og_range(&s, -1.0, 1.0) * scale[i % d];
  }
  for (long k = 0; k < ns; k++) {
    int a = og_int(&s, 0, nattr - 1), m = per[a], r = og_int(&s, 0, m - 1);
    truth[k] = og_uniform(&s) < 0.2 ? -1 : a;
    period[k] = truth[k] < 0 ? 0 : m;
    if (truth[k] < 0)
      continue;
    cyc[k] = malloc((size_t)m * (size_t)d * sizeof *cyc[k]);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < d; j++)
        cyc[k][i * d + j] =
            c[a][((i + r) % m) * d + j] + 0.25 * tol * og_range(&s, -1, 1) * scale[j];
  }
  long count = vb_orbit_attractors((const double *const *)cyc, period, ns, d, scale, tol, id);
  for (long k = 0; k < ns; k++) {
    ck_assert_int_eq(id[k] < 0, truth[k] < 0);
    if (id[k] >= 0) {
      ck_assert(id[k] <= seen);
      seen += id[k] == seen;
    }
    for (long l = 0; l < k; l++)
      if (truth[k] >= 0 && truth[l] >= 0)
        ck_assert_int_eq(id[k] == id[l], truth[k] == truth[l]);
  }
  ck_assert_int_eq(count, seen);
  /* shuffled (Fisher-Yates): the same partition */
  for (long k = 0; k < ns; k++)
    perm[k] = k;
  for (long k = ns - 1; k > 0; k--) {
    long j = og_int(&s, 0, (int)k), t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  for (long k = 0; k < ns; k++) {
    cyc2[k] = cyc[perm[k]];
    period2[k] = period[perm[k]];
  }
  ck_assert_int_eq(vb_orbit_attractors(cyc2, period2, ns, d, scale, tol, id2), count);
  for (long k = 0; k < ns; k++)
    for (long l = 0; l < k; l++)
      if (id2[k] >= 0 && id2[l] >= 0)
        ck_assert_int_eq(id2[k] == id2[l], id[perm[k]] == id[perm[l]]);
  for (long k = 0; k < ns; k++)
    free(cyc[k]);
  for (int a = 0; a < nattr; a++)
    free(c[a]);
  free(cyc);
  free(cyc2);
  free(id);
  free(id2);
  free(perm);
  free(truth);
  free(period);
  free(period2);
}
END_TEST

/* Cycles that agree only under a shift match; a different period, or one
 * coordinate off by 1.5 tol, does not. */
START_TEST(test_attractor_shift)
{
  const double a[] = {0.1, 1.0, 0.2, 2.0, 0.3, 3.0}, b[] = {0.3, 3.0, 0.1, 1.0, 0.2, 2.0};
  double c[6], scale[2] = {0.5, 4.0};
  const double *cyc[4] = {a, b, c, NULL};
  int period[4] = {3, 3, 3, 0};
  long id[4];
  memcpy(c, b, sizeof c);
  c[3] += 1.5e-6 * scale[1];
  ck_assert_int_eq(vb_orbit_attractors(cyc, period, 4, 2, scale, 1e-6, id), 2);
  ck_assert(id[0] == 0 && id[1] == 0 && id[2] == 1 && id[3] == -1);
  period[1] = 2;
  ck_assert_int_eq(vb_orbit_attractors(cyc, period, 4, 2, scale, 1e-6, id), 3);
  ck_assert(id[0] == 0 && id[1] == 1 && id[2] == 2);
}
END_TEST

/* n impacts at random phases in each m-period cycle (one of them at the
 * section's own phase in a third of the cases, jittered by 1e-12 s):
 * vb_orbit_impacts gives n. */
START_TEST(test_impacts)
{
  uint64_t s = 10000u + (uint64_t)_i;
  int m = og_int(&s, 1, 16), nper = og_int(&s, 0, 5);
  double T = og_range(&s, 0.001, 1.0), phase = og_range(&s, 0.0, 1.0), u[5];
  long ns = og_int(&s, (int)(vb_orbit_window(m) + 1), 400), ni = 0;
  double *ts = malloc((size_t)ns * sizeof *ts), *ti = malloc((size_t)(ns + 3) * 5 * sizeof *ti);
  for (long k = 0; k < ns; k++)
    ts[k] = ((double)k + phase) * T;
  for (int j = 0; j < nper; j++)
    u[j] = j == 0 && _i % 3 == 0 ? 0.0 : og_range(&s, 0.0, 1.0);
  for (long c = -1; c * m <= ns; c++)
    for (int j = 0; j < nper; j++)
      ti[ni++] = ts[0] + ((double)c + u[j]) * m * T + og_range(&s, -1e-12, 1e-12);
  ck_assert_int_eq(vb_orbit_impacts(ti, ni, ts, ns, m), nper);
  ck_assert_int_eq(vb_orbit_impacts(ti, ni, ts, ns, 0), -1);
  ck_assert_int_eq(vb_orbit_impacts(ti, ni, ts, m * (vb_orbit_window(m) / m), m), -1);
  free(ts);
  free(ti);
}
END_TEST

/* The grazing flag against a median found by counting ranks (no sort). */
START_TEST(test_grazing)
{
  uint64_t s = 11000u + (uint64_t)_i;
  long n = og_int(&s, 1, 300), k = 0;
  double *v = malloc((size_t)n * sizeof *v), *f = malloc((size_t)n * sizeof *f), med, ref;
  double fraction = og_range(&s, 0.01, 1.5);
  int *flag = malloc((size_t)n * sizeof *flag);
  ck_assert(v && f && flag);
  for (long i = 0; i < n; i++) {
    double r = og_uniform(&s);
    v[i] = r < 0.05 ? NAN : (r < 0.5 ? -1.0 : 1.0) * pow(10.0, og_range(&s, -4.0, 1.0));
    if (isfinite(v[i]))
      f[k++] = fabs(v[i]);
  }
  /* the values of rank (k - 1) / 2 and k / 2 among the finite speeds */
  double lo = NAN, hi = NAN;
  for (long i = 0; i < k; i++) {
    long below = 0;
    for (long j = 0; j < k; j++)
      below += f[j] < f[i] || (f[j] == f[i] && j < i);
    if (below == (k - 1) / 2)
      lo = f[i];
    if (below == k / 2)
      hi = f[i];
  }
  ref = 0.5 * (lo + hi);
  ck_assert_int_eq(vb_orbit_grazing(v, n, fraction, flag, &med), VB_OK);
  ck_assert(k == 0 ? isnan(med) : med == ref);
  for (long i = 0; i < n; i++)
    ck_assert_int_eq(flag[i], isfinite(v[i]) && fabs(v[i]) < fraction * ref);
  free(v);
  free(f);
  free(flag);
}
END_TEST

static Suite *
orbit_suite(void)
{
  Suite *s = suite_create("orbit");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 120);
  tcase_add_loop_test(core, test_periodic, 0, 300);
  tcase_add_loop_test(core, test_noisy, 0, 300);
  tcase_add_loop_test(core, test_beyond_pmax, 0, 100);
  tcase_add_loop_test(core, test_transient, 0, 300);
  tcase_add_loop_test(core, test_growing, 0, 100);
  tcase_add_loop_test(core, test_chaotic, 0, 150);
  tcase_add_loop_test(core, test_quasiperiodic, 0, 200);
  tcase_add_loop_test(core, test_beat, 0, 100);
  tcase_add_loop_test(core, test_unresolved_alternation, 0, 200);
  tcase_add_loop_test(core, test_resolved_place, 0, 200);
  tcase_add_loop_test(core, test_attractors, 0, 100);
  tcase_add_test(core, test_attractor_shift);
  tcase_add_loop_test(core, test_impacts, 0, 200);
  tcase_add_loop_test(core, test_grazing, 0, 100);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_add_test(limits, test_limits);
  suite_add_tcase(s, limits);
  return s;
}

int
main(void)
{
  return tu_main(orbit_suite());
}
