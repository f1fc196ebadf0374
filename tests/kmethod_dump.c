/* kmethod_dump.c - random K-method problems with vibro's answers, for
 * tests/kmethod.py (scipy's solver on the same problems).
 * Usage: tests/kmethod_dump [COUNT [SEED]].  Prints COUNT one-contact
 * problems of the quadratic scheme (a line each, dump_quadratic), then
 * COUNT coupled problems, each a line
 *   problem N THREE DT STATUS
 * then N lines of K (row-major), then one line per contact:
 *   KIND K ALPHA MU C X XM XT X1 FBAR
 * with KIND the law (power, hunt-crossley, spring) and X1, FBAR vibro's
 * solution.  Sizes 1 to 64, two-point and three-point, the laws mixed:
 * contacts that act and contacts that do not, K dense (LU with pivoting);
 * then COUNT more solved by the globalised fall-back alone (kglobal.c,
 * power and spring laws, whose step forces grow with the compression). */
#include "kmethod_gen.h"

/* One-contact problems of the quadratic scheme (its closed form,
 * Ducceschi eq 17-19, or the fall-back), for tests/kmethod.py:
 *   quadratic S K ALPHA MU X XM E W DT X1 FALLBACK STATUS */
static void
dump_quadratic(int count, uint64_t seed)
{
  uint64_t s = seed * 7919u;
  for (int k = 0; k < count; k++) {
    kg_problem g;
    if (kg_make(&g, seed * 1000033u + (uint64_t)k, 1, vb_scheme_lookup("quadratic"),
                KG_POWER | KG_HUNT_CROSSLEY) != 0)
      exit(1);
    g.cts[0].s = kg_range(&s, 0.1, 3.0);
    int rc = vb_kmethod_solve(&g.p);
    const vb_law *law = &g.cts[0].law;
    printf("quadratic %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %d %d\n",
           g.cts[0].s, law->k, law->alpha, law->mu, g.hist[0].x, g.hist[0].xm, g.xt[0], g.K[0],
           g.p.dt, g.x1[0], g.fallback[0], rc);
    kg_free(&g);
  }
}

int
main(int argc, char **argv)
{
  int count = argc > 1 ? atoi(argv[1]) : 200;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  dump_quadratic(count, seed);
  const char *schemes[] = {"two-point", "three-point"};
  const int laws[] = {KG_POWER, KG_POWER | KG_HUNT_CROSSLEY, KG_POWER | KG_SPRING};
  uint64_t s = seed;
  for (int k = 0; k < count; k++) {
    int n = 1 + (int)(kg_next(&s) % 64);
    const vb_scheme *sch = vb_scheme_lookup(schemes[kg_next(&s) % 2]);
    kg_problem g;
    if (kg_make(&g, seed * 1000003u + (uint64_t)k, n, sch, laws[kg_next(&s) % 3]) != 0) {
      fprintf(stderr, "kmethod_dump: out of memory\n");
      return 1;
    }
    int rc = vb_kmethod_solve(&g.p);
    printf("problem %d %d %.17g %d\n", n, g.p.three, g.p.dt, rc);
    for (int c = 0; c < n; c++)
      for (int d = 0; d < n; d++)
        printf("%.17g%c", g.K[c * n + d], d + 1 < n ? ' ' : '\n');
    for (int c = 0; c < n; c++) {
      const vb_law *law = &g.cts[c].law;
      printf("%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
             vb_law_name(law->kind), law->k, law->alpha, law->mu, law->c, g.hist[c].x,
             g.hist[c].xm, g.xt[c], g.x1[c], g.fbar[c]);
    }
    kg_free(&g);
  }
  /* as many problems solved by the K-method's globalised fall-back alone
   * (solvers/kglobal.c), from rest: the laws whose step force grows with
   * the compression (power, spring) */
  const int monotone[] = {KG_POWER, KG_POWER | KG_SPRING};
  for (int k = 0; k < count; k++) {
    int n = 1 + (int)(kg_next(&s) % 64);
    const vb_scheme *sch = vb_scheme_lookup(schemes[kg_next(&s) % 2]);
    kg_problem g;
    if (kg_make(&g, seed * 1000039u + (uint64_t)k, n, sch, monotone[kg_next(&s) % 2]) != 0) {
      fprintf(stderr, "kmethod_dump: out of memory\n");
      return 1;
    }
    double *gws = malloc(vb_kmethod_global_size(n, g.m) * sizeof(double));
    if (!gws) {
      fprintf(stderr, "kmethod_dump: out of memory\n");
      return 1;
    }
    g.p.gws = gws;
    g.p.grank = g.m;
    int its, rc = vb_kmethod_global(&g.p, &its);
    printf("problem %d %d %.17g %d\n", n, g.p.three, g.p.dt, rc);
    for (int c = 0; c < n; c++)
      for (int d = 0; d < n; d++)
        printf("%.17g%c", g.K[c * n + d], d + 1 < n ? ' ' : '\n');
    for (int c = 0; c < n; c++) {
      const vb_law *law = &g.cts[c].law;
      printf("%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
             vb_law_name(law->kind), law->k, law->alpha, law->mu, law->c, g.hist[c].x,
             g.hist[c].xm, g.xt[c], g.x1[c], g.fbar[c]);
    }
    free(gws);
    kg_free(&g);
  }
  return 0;
}
