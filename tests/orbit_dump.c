/* orbit_dump.c - random sections and attractor sets with lib/base/orbit.c's
 * answers, for tests/orbit.py (numpy's brute force on the same inputs).
 * Usage: tests/orbit_dump [COUNT [SEED]].  Prints COUNT sections, each
 *   classify N D PMAX TOL CLS PERIOD SPREAD
 *   SCALE[D]
 *   X[N*D] (row-major)
 * (periodic with noise about 0.4, 0.5 (spreads either side of tol) and 20
 * times tol, transients, short cycles with the alternating scatter of a
 * multiplier near -1, chaotic maps,
 * rotations, sections of any length from 1 point), then COUNT sets
 *   attractors NS D TOL COUNT
 *   SCALE[D]
 *   NS lines: PERIOD CYCLE[PERIOD*D]  (PERIOD 0: not periodic)
 *   ID[NS]
 * around a few attractors, the noise up to tol (so that some cycles match
 * some of another attractor's members and not others: the order of the
 * rule matters). */
#include <stdio.h>
#include <string.h>

#include "orbit_gen.h"

/* Print n doubles on one line. */
static void
row(const double *x, long n)
{
  for (long i = 0; i < n; i++)
    printf(i ? " %.17g" : "%.17g", x[i]);
  printf("\n");
}

/* One random section and its class. */
static void
dump_section(uint64_t *s)
{
  int pmax = og_int(s, 1, 24), d = og_int(s, 1, 3), kind = og_int(s, 0, 7), m;
  long n = og_int(s, 1, 4 * (int)vb_orbit_needed(pmax));
  double scale[3], tol = pow(10.0, og_range(s, -8.0, -2.0)), noise[] = {0.4, 0.5, 20.0};
  double *x;

  if (kind == 7) { /* long enough for shift 2 m to close */
    pmax = pmax < 4 ? 4 : pmax;
    n = n < 24 ? 24 : n;
  }
  x = malloc((size_t)n * 3 * sizeof *x);
  vb_orbit o;

  for (int j = 0; j < d; j++)
    scale[j] = pow(10.0, og_range(s, -3.0, 1.0));
  m = og_int(s, 1, pmax + 2);
  if (kind <= 2)
    og_periodic(s, x, n, d, scale, m, noise[kind] * og_range(s, 0.9, 1.1) * tol);
  else if (kind == 3) {
    long b = n > pmax + 16 ? (n - pmax) / VB_ORBIT_BLOCKS : 2;
    double rho = pow(og_range(s, 0.05, 0.9), 1.0 / (double)b);
    og_periodic(s, x, n, d, scale, m, 0.0);
    og_transient(x, n, d, scale, tol * pow(10.0, og_range(s, -2.0, 3.0)), rho,
                 og_range(s, 0.0, 2 * M_PI));
  } else if (kind == 4) {
    d = 1;
    og_chaotic(s, og_int(s, 0, 1), x, n);
  } else if (kind == 5) {
    d = 2;
    og_chaotic(s, 2, x, n);
  } else if (kind == 7) {
    /* a fixed point with the scatter of a multiplier near -1: shift 2
     * can close where 1 does not (eq A2b) */
    m = 1;
    og_periodic(s, x, n, d, scale, m, 0.0);
    og_alternation(s, x, n, d, scale, og_range(s, -0.9, -0.7), og_range(s, 0.3, 0.6) * tol);
  } else {
    d = og_int(s, 1, 2);
    og_rotation(x, n, d, 1.0, og_range(s, 0.05, 0.95), og_range(s, 0.05, 0.95),
                og_range(s, 0.0, 6.0));
  }
  if (kind >= 4 && kind <= 6) /* the maps and rotations are in units of 1 */
    for (int j = 0; j < d; j++)
      scale[j] = 1.0;
  vb_orbit_classify(x, n, d, scale, tol, pmax, &o);
  printf("classify %ld %d %d %.17g %d %d %.17g\n", n, d, pmax, tol, o.cls, o.period, o.spread);
  row(scale, d);
  row(x, n * d);
  free(x);
}

/* One random set of cycles around a few attractors and their ids. */
static void
dump_attractors(uint64_t *s)
{
  int nattr = og_int(s, 1, 5), d = og_int(s, 1, 3), per[5];
  long ns = og_int(s, 1, 200), *id = malloc((size_t)ns * sizeof *id);
  double scale[3], tol = pow(10.0, og_range(s, -6.0, -2.0)), *c[5];
  double **cyc = calloc((size_t)ns, sizeof *cyc), spread = og_range(s, 0.2, 1.0);
  int *period = calloc((size_t)ns, sizeof *period);

  for (int j = 0; j < d; j++)
    scale[j] = pow(10.0, og_range(s, -3.0, 1.0));
  for (int a = 0; a < nattr; a++) {
    per[a] = og_int(s, 1, 8);
    c[a] = malloc((size_t)per[a] * (size_t)d * sizeof *c[a]);
    /* some attractors close to others: a copy of 0 moved by ~tol */
    for (int i = 0; i < per[a] * d; i++)
      c[a][i] = a > 0 && per[a] == per[0] && og_uniform(s) < 0.5
                    ? c[0][i] + og_range(s, -1.5, 1.5) * tol * scale[i % d]
                    : og_range(s, -1.0, 1.0) * scale[i % d];
  }
  for (long k = 0; k < ns; k++) {
    int a = og_int(s, 0, nattr - 1), m = per[a], r = og_int(s, 0, m - 1);
    if (og_uniform(s) < 0.15)
      continue;
    period[k] = m;
    cyc[k] = malloc((size_t)m * (size_t)d * sizeof *cyc[k]);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < d; j++)
        cyc[k][i * d + j] =
            c[a][((i + r) % m) * d + j] + spread * tol * og_range(s, -1, 1) * scale[j];
  }
  long count = vb_orbit_attractors((const double *const *)cyc, period, ns, d, scale, tol, id);
  printf("attractors %ld %d %.17g %ld\n", ns, d, tol, count);
  row(scale, d);
  for (long k = 0; k < ns; k++) {
    printf("%d%s", period[k], period[k] ? " " : "\n");
    if (period[k])
      row(cyc[k], (long)period[k] * d);
    free(cyc[k]);
  }
  for (long k = 0; k < ns; k++)
    printf(k ? " %ld" : "%ld", id[k]);
  printf("\n");
  for (int a = 0; a < nattr; a++)
    free(c[a]);
  free(cyc);
  free(period);
  free(id);
}

int
main(int argc, char **argv)
{
  int count = argc > 1 ? atoi(argv[1]) : 200;
  uint64_t s = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1) * 0x2545F4914F6CDD1Dull;
  for (int k = 0; k < count; k++)
    dump_section(&s);
  for (int k = 0; k < count; k++)
    dump_attractors(&s);
  return 0;
}
