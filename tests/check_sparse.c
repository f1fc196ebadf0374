/* check_sparse.c - tests of the skipping of contacts that cannot act
 * (lib/island/sparse.c).
 *
 * On random strings (modes, pluck, points, profile heights, two-point and
 * three-point, 16 to 1,500 points):
 *   - after every step, each skipped contact's compression, formed here
 *     independently from the modes in long double, is out of contact and
 *     below the bound the island reports for it, and each live contact's
 *     history equals the modes' compression to round-off;
 *   - the run with skipping equals the run stepping every contact
 *     (the no_skip test hook): the same Newton iterations step by step, the same
 *     events, the pickup and energies to round-off, the same largest
 *     compression for every contact that came into contact and, for the
 *     others, a bound above the exact closest approach still out of
 *     contact;
 *   - the skipping happens: on a string slapping a 400-point neck few
 *     contacts are live on average;
 *   - a lossless string slapping an 862-point neck keeps its energy with
 *     most points skipped as stepping every point does (two-point,
 *     three-point);
 *   - on the tanpura bridge, two-point (every point stays near the string,
 *     none can be skipped), the scans for leavers back off to one in SCAN_WAIT_MAX steps
 *     and the run is bit for bit the run stepping every contact. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "base/base.h"
#include "island/island.h"
#include "bridge_scene.h"

/* A deterministic generator (xorshift64*), uniform in [0, 1). */
static double
uniform(uint64_t *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* A random lossless plucked string of `modes` modes (1 m, 100 Hz) above a
 * wall, with one distributed contact of `points` points from 0.01 to 0.99
 * m whose heights (m, below the string) are random (a neck with a relief)
 * or, with depth > 0, all -depth, stepped by `scheme`, recording the
 * pickup and energies (malloc'd). */
static char *
neck_scene(uint64_t *seed, int modes, int points, const char *scheme, double duration, double depth)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(f);
  double xp = 0.1 + 0.8 * uniform(seed), a = 1e-3 + 2e-3 * uniform(seed);
  double base = -(0.2e-3 + 1e-3 * uniform(seed)), relief = 0.5e-3 * uniform(seed);
  if (depth > 0.0) {
    base = -depth;
    relief = 0.0;
  }
  fprintf(f,
          "scene = { name = \"r\"; fs = 88200.0; duration = %.17g; gravity = 0.0; };\n"
          "bodies = (\n  { name = \"wall\"; type = \"wall\"; },\n"
          "  { name = \"string\"; type = \"modal\";\n"
          "    preset = { kind = \"string\"; nmodes = %d; length = 1.0; tension = 40.0;\n"
          "               linear_density = 0.001; pluck = [%.17g, %.17g]; };\n"
          "    points = ( { name = \"pickup\"; x = 0.7; } ); }\n);\n"
          "contacts = (\n  { name = \"b\"; between = [\"wall\", \"string\"]; law = \"power\"; "
          "k = 1e8; alpha = 1.5;\n    scheme = \"%s\"; max_iterations = 1000;\n"
          "    points = { from = 0.01; to = 0.99; n = %d; };\n    profile = { heights = [",
          duration, modes, xp, a, scheme, points);
  for (int i = 0; i < points; i++)
    fprintf(f, "%s%.17g", i ? ", " : "", base - relief * uniform(seed));
  fprintf(f, "]; }; }\n);\nrecord = { signals = [\"bodies/string/pickup/u\", \"energy/*\"]; };\n");
  fclose(f);
  return text;
}

/* A neck with a random relief. */
static char *
random_scene(uint64_t *seed, int modes, int points, const char *scheme, double duration)
{
  return neck_scene(seed, modes, points, scheme, duration, 0.0);
}

/* Load text; fails the test on an error. */
static vb_scene *
load(const char *text)
{
  vb_scene *sc = NULL;
  char err[2048];
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  return sc;
}

/* The island with the most contacts of a compiled model. */
static const vb_island_model *
largest_island(const vb_model *model)
{
  const vb_island_model *m = &model->islands[0];
  for (int i = 1; i < model->nislands; i++)
    if (model->islands[i].nc > m->nc)
      m = &model->islands[i];
  return m;
}

static const char *const schemes[] = {"two-point", "three-point"};

/* The invariant, step by step, on random strings of 16 to 1,500 points. */
START_TEST(test_bound_holds)
{
  static const int sizes[] = {16, 37, 200, 1500};
  uint64_t seed = 0x9E3779B97F4A7C15ULL + (uint64_t)_i;
  int points = sizes[_i % 4], modes = 20 + (int)(80 * uniform(&seed));
  char *text = random_scene(&seed, modes, points, schemes[_i / 4 % 2], 0.03);
  vb_scene *sc = load(text);
  char err[1024];
  vb_model *model;
  ck_assert_int_eq(vb_model_compile(sc, &model, err, sizeof err), VB_OK);
  const vb_island_model *m = largest_island(model);
  ck_assert_int_eq(m->nc, points);
  vb_island_state *s;
  ck_assert_int_eq(vb_island_state_alloc(m, &s), VB_OK);
  ck_assert_ptr_nonnull(s->sp);
  vb_island_start(m, s);
  long steps = vb_scene_steps(sc), skipped = 0, touched = 0;
  char *live = malloc((size_t)m->nc);
  double *xn = malloc((size_t)m->nc * sizeof(double));
  long rejoined = 0;
  for (long n = 0; n < steps; n++) {
    /* every contact's compression at n from the modes, for the rejoined */
    for (int c = 0; c < m->nc; c++) {
      long double x = 0.0L;
      for (int j = 0; j < m->nm; j++)
        x += (long double)m->S[(size_t)c * m->nmp + j] * s->q[j];
      xn[c] = (double)x + s->xdrv[c];
    }
    ck_assert_int_ne(vb_island_step(m, s, n), VB_EDIVERGED);
    /* the histories at n the run's events take for the contacts that
     * rejoined in the step (run.c's x_before) */
    const int *lc;
    const double *xr, *rr;
    for (int k = 0, nr = vb_island_rejoined(s, &lc, &xr, &rr); k < nr; k++, rejoined++)
      ck_assert_msg(fabs(xr[k] - xn[lc[k]]) <= 1e-12 * fabs(xn[lc[k]]) + 1e-18,
                    "step %ld: contact %d rejoined at %.17g, modes %.17g", n, lc[k], xr[k],
                    xn[lc[k]]);
    memset(live, 0, (size_t)m->nc);
    for (int k = 0; k < s->ntrk; k++)
      live[s->trk[k]] = 1;
    for (int c = 0; c < m->nc; c++) {
      long double x = 0.0L, scale = 0.0L;
      for (int j = 0; j < m->nm; j++) {
        x += (long double)m->S[(size_t)c * m->nmp + j] * s->q[j];
        scale += fabsl((long double)m->S[(size_t)c * m->nmp + j] * s->q[j]);
      }
      double xc = (double)x + s->xdrv[c], tol = 1e-12 * ((double)scale + fabs(s->xdrv[c]));
      if (live[c]) {
        ck_assert_msg(fabs(s->hist[c].x - xc) <= tol, "step %ld contact %d: history %.17g, modes %.17g",
                      n, c, s->hist[c].x, xc);
        touched += s->fbar[c] != 0.0;
        continue;
      }
      skipped++;
      double ub = vb_island_compression_bound(m, s, c);
      ck_assert_msg(!vb_law_engaged(&m->cts[c].law, xc + tol), "step %ld: skipped contact %d at %g",
                    n, c, xc);
      ck_assert_msg(xc <= ub + tol, "step %ld contact %d: %.17g above its bound %.17g", n, c, xc, ub);
      ck_assert_msg(!vb_law_engaged(&m->cts[c].law, ub), "step %ld contact %d: bound %g in contact",
                    n, c, ub);
    }
  }
  ck_assert_msg(skipped > 0, "%d points: nothing skipped", points);
  ck_assert_msg(touched > 0, "%d points: no contact", points);
  ck_assert_msg(rejoined > 0, "%d points: none rejoined", points);
  free(live);
  free(xn);
  vb_island_state_free(s);
  vb_model_free(model);
  vb_scene_free(sc);
  free(text);
}
END_TEST

/* Run a scene text with or without skipping. */
static tu_sim
run_with(const char *text, int skip)
{
  if (skip)
    vb_test_control(VB_TEST_NO_SKIP, 0);
  else
    vb_test_control(VB_TEST_NO_SKIP, 1);
  tu_sim s = tu_run_text(text);
  vb_test_control(VB_TEST_NO_SKIP, 0);
  return s;
}

/* The largest |a - b| over n samples, relative to the largest |b|. */
static double
rel_diff(const double *a, const double *b, long n)
{
  double d = 0.0, big = 0.0;
  for (long i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    big = fmax(big, fabs(b[i]));
  }
  return d / big;
}

/* With and without skipping: the same run to round-off. */
START_TEST(test_same_as_every_contact)
{
  static const int sizes[] = {16, 64, 300};
  uint64_t seed = 0xD1B54A32D192ED03ULL + (uint64_t)_i;
  int points = sizes[_i % 3], modes = 30 + (int)(60 * uniform(&seed));
  char *text = random_scene(&seed, modes, points, schemes[_i / 3 % 2], 0.05);
  tu_sim a = run_with(text, 1), b = run_with(text, 0);
  ck_assert_msg(a.rc == VB_OK && b.rc == VB_OK, "%s / %s", vb_run_status(a.run),
                vb_run_status(b.run));
  long n = vb_run_samples(b.run), impacts = 0;
  ck_assert_int_eq(vb_run_samples(a.run), n);
  double du = rel_diff(vb_run_point_u(a.run, 1, 0), vb_run_point_u(b.run, 1, 0), n);
  double de = rel_diff(vb_run_energy(a.run, VB_ENERGY_TOTAL), vb_run_energy(b.run, VB_ENERGY_TOTAL), n);
  ck_assert_msg(du < 1e-8, "%d points: pickup differs by %g", points, du);
  ck_assert_msg(de < 1e-12, "%d points: energy differs by %g", points, de);
  for (int c = 0; c < points; c++) {
    const vb_contact_result *ra = vb_run_contact(a.run, c), *rb = vb_run_contact(b.run, c);
    ck_assert_int_eq(ra->nevents, rb->nevents);
    ck_assert_int_eq(ra->iterations, rb->iterations);
    impacts += rb->nevents;
    for (int e = 0; e < rb->nevents; e++)
      ck_assert_msg(fabs(ra->events[e].t_on - rb->events[e].t_on) <= 1e-9 * 0.05,
                    "contact %d event %d: t_on %.17g, %.17g", c, e, ra->events[e].t_on,
                    rb->events[e].t_on);
    /* the runs part by round-off only: two-point bit for bit, three-point
     * (a rejoining contact's x and xm from the modes, not the recurrence)
     * by up to 2e-10 of the pickup's range after 4,410 steps of impacts
     * (measured); 1e-8 leaves room */
    double xa = ra->max_compression, xb = rb->max_compression;
    if (xb > 0.0)
      ck_assert_msg(fabs(xa - xb) <= 1e-8 * xb, "contact %d: max compression %.17g, %.17g", c, xa,
                    xb);
    else
      ck_assert_msg(xa >= xb - 1e-8 * fabs(xb) && xa <= 0.0,
                    "contact %d: max compression %.17g, exact %.17g", c, xa, xb);
  }
  ck_assert_msg(impacts > 0, "%d points: no impacts", points);
  tu_free(&a);
  tu_free(&b);
  free(text);
}
END_TEST

/* A string plucked by 3 mm over a flat 400-point neck 1.5 mm below it
 * slaps it near the pluck: few contacts are live on average (and some
 * act); below 16 contacts an island steps them all. */
START_TEST(test_few_live)
{
  uint64_t seed = 7;
  char *text = neck_scene(&seed, 60, 400, "three-point", 0.05, 1.5e-3);
  vb_scene *sc = load(text);
  char err[1024];
  vb_model *model;
  ck_assert_int_eq(vb_model_compile(sc, &model, err, sizeof err), VB_OK);
  const vb_island_model *m = largest_island(model);
  vb_island_state *s;
  ck_assert_int_eq(vb_island_state_alloc(m, &s), VB_OK);
  vb_island_start(m, s);
  long steps = vb_scene_steps(sc), refreshes, rejoins, live, acted = 0;
  for (long n = 0; n < steps; n++) {
    vb_island_step(m, s, n);
    for (int c = 0; c < m->nc; c++)
      acted += s->fbar[c] != 0.0;
  }
  ck_assert_msg(acted > 0, "the neck was never touched");
  ck_assert(vb_island_sparse_stats(s, &refreshes, &rejoins, &live));
  ck_assert_msg((double)live / steps < 0.4 * m->nc,
                "%g live of %d on average, %g acting (%ld refreshes, %ld rejoins)",
                (double)live / steps, m->nc, (double)acted / steps, refreshes, rejoins);
  printf("few_live: %g live of %d on average, %g acting (%ld refreshes, %ld rejoins)\n",
         (double)live / steps, m->nc, (double)acted / steps, refreshes, rejoins);
  vb_island_state_free(s);
  vb_model_free(model);
  vb_scene_free(sc);
  free(text);
  seed = 7;
  text = random_scene(&seed, 60, 15, "three-point", 0.01);
  sc = load(text);
  ck_assert_int_eq(vb_model_compile(sc, &model, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_island_state_alloc(&model->islands[0], &s), VB_OK);
  ck_assert_ptr_null(s->sp);
  vb_island_state_free(s);
  vb_model_free(model);
  vb_scene_free(sc);
  free(text);
}
END_TEST

/* The largest relative departure of the island's energy from its start
 * over the scene (the island with the most contacts), skipping or
 * stepping every contact; the live contacts per step into *live. */
static double
energy_drift(const vb_scene *sc, int skip, double *live)
{
  char err[1024];
  vb_model *model;
  ck_assert_int_eq(vb_model_compile(sc, &model, err, sizeof err), VB_OK);
  const vb_island_model *m = largest_island(model);
  vb_island_state *s;
  if (skip)
    vb_test_control(VB_TEST_NO_SKIP, 0);
  else
    vb_test_control(VB_TEST_NO_SKIP, 1);
  ck_assert_int_eq(vb_island_state_alloc(m, &s), VB_OK);
  vb_test_control(VB_TEST_NO_SKIP, 0);
  vb_island_start(m, s);
  double e0 = s->kinetic + s->potential, worst = 0.0;
  long steps = vb_scene_steps(sc), acted = 0, live_steps = 0;
  for (long n = 0; n < steps; n++) {
    ck_assert_int_eq(vb_island_step(m, s, n), VB_OK);
    for (int k = 0; k < s->ntrk; k++)
      acted += s->fbar[s->trk[k]] != 0.0;
    live_steps += s->ntrk;
    worst = fmax(worst, fabs(s->kinetic + s->potential - e0) / e0);
  }
  ck_assert_msg(acted > 0, "the neck was never touched");
  *live = (double)live_steps / steps / m->nc;
  vb_island_state_free(s);
  vb_model_free(model);
  return worst;
}

/* A lossless string slapping an 862-point neck (100 modes, 88.2 kHz, a
 * power law k = 1e8, 0.02 s) keeps its discrete energy with most points
 * skipped exactly as well as stepping every point (two-point, three-point):
 * the drifts agree to round-off, 1.29e-12 and 1.15e-12 of the energy
 * (measured; reached at the first slap of hundreds of points; the 60-mode
 * bridge of check_distributed keeps 1e-12). */
START_TEST(test_energy_conserved)
{
  uint64_t seed = 11;
  char *text = neck_scene(&seed, 100, 862, schemes[_i], 0.02, 1.5e-3);
  vb_scene *sc = load(text);
  double live_skip, live_all;
  double skip = energy_drift(sc, 1, &live_skip), all = energy_drift(sc, 0, &live_all);
  ck_assert_msg(live_skip < 0.5 && live_all == 1.0, "%s: %g of the points live", schemes[_i],
                live_skip);
  ck_assert_msg(fabs(skip - all) <= 1e-14, "%s: drift %g skipping, %g stepping all", schemes[_i],
                skip, all);
  ck_assert_msg(skip < 2e-12, "%s, 862 points: energy drift %g", schemes[_i], skip);
  vb_scene_free(sc);
  free(text);
}
END_TEST

/* The tanpura-like bridge (tests/bridge_scene.h, 60 modes, 16 to 128
 * points, two-point): the points leave at the start (the pluck lifts the
 * string off the bridge) and, once back, stay live; the scans for leavers
 * then wait (measured: 69 scans in 1,323 steps, 1,281 of them with every
 * point live; without the waits every step scans), and the modes, forces
 * and live compressions equal the run stepping every contact
 * (the no_skip test hook) bit for bit at every step. */
START_TEST(test_all_live_waits)
{
  static const int sizes[] = {16, 64, 96, 128};
  int points = sizes[_i];
  char *text = bridge_scene(60, points, 0.03, "two-point", "");
  vb_scene *sc = load(text);
  char err[1024];
  vb_model *ma, *mb;
  ck_assert_int_eq(vb_model_compile(sc, &ma, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_model_compile(sc, &mb, err, sizeof err), VB_OK);
  const vb_island_model *a = largest_island(ma), *b = largest_island(mb);
  vb_island_state *sa, *sb;
  vb_test_control(VB_TEST_NO_SKIP, 0);
  ck_assert_int_eq(vb_island_state_alloc(a, &sa), VB_OK);
  vb_test_control(VB_TEST_NO_SKIP, 1);
  ck_assert_int_eq(vb_island_state_alloc(b, &sb), VB_OK);
  vb_test_control(VB_TEST_NO_SKIP, 0);
  ck_assert_ptr_nonnull(sa->sp);
  ck_assert_ptr_null(sb->sp);
  vb_island_start(a, sa);
  vb_island_start(b, sb);
  long steps = vb_scene_steps(sc), acted = 0, all = 0;
  for (long n = 0; n < steps; n++) {
    ck_assert_int_eq(vb_island_step(a, sa, n), vb_island_step(b, sb, n));
    all += sa->ntrk == a->nc;
    ck_assert_msg(memcmp(sa->q, sb->q, (size_t)a->nm * sizeof(double)) == 0, "step %ld: modes", n);
    for (int c = 0; c < a->nc; c++) {
      ck_assert_msg(sa->fbar[c] == sb->fbar[c], "step %ld contact %d: force %.17g, %.17g", n, c,
                    sa->fbar[c], sb->fbar[c]);
      acted += sa->fbar[c] != 0.0;
    }
    for (int k = 0; k < sa->ntrk; k++) {
      int c = sa->trk[k];
      ck_assert_msg(sa->hist[c].x == sb->hist[c].x, "step %ld contact %d: x %.17g, %.17g", n, c,
                    sa->hist[c].x, sb->hist[c].x);
    }
  }
  long scans = vb_island_sparse_scans(sa);
  printf("all_live_waits: %d points: %ld scans, %ld steps, %ld with every point live\n", points, scans, steps, all);
  ck_assert_msg(acted > 0, "%d points: the bridge was never touched", points);
  /* every step scans while a point is skipped; with all live, about one
   * step in SCAN_WAIT_MAX (64) does, one in 16 leaves room */
  ck_assert_msg(all > steps / 2, "%d points: all live in %ld of %ld steps", points, all, steps);
  ck_assert_msg(scans > 0 && scans <= steps - all + all / 16 + 8,
                "%d points: %ld scans in %ld steps, %ld with every point live", points, scans,
                steps, all);
  vb_island_state_free(sa);
  vb_island_state_free(sb);
  vb_model_free(ma);
  vb_model_free(mb);
  vb_scene_free(sc);
  free(text);
}
END_TEST

/* The island's per-step bookkeeping for the run (step.c), against its own
 * definitions formed here, after every step of the tanpura bridge
 * (two-point: two-level; three-point: three-level), skipping and not:
 * s->eng lists exactly the stepped contacts in contact (penetration > 0),
 * ascending; xb and rb hold each stepped contact's history before the step
 * (a rejoined one's from the modes, vb_island_rejoined); a step that
 * solved nothing leaves every force, iteration count and fallback 0; and
 * vb_island_finite is whether the energies and every stepped contact's x,
 * rate and f are finite.  Then, stepping every contact, the contact
 * farthest out of contact is given x = -inf: the step after it moves no
 * mode (no force) and no energy, and vb_island_finite must say not finite
 * (the new rate is inf). */
START_TEST(test_step_bookkeeping)
{
  const char *scheme = _i / 2 ? "three-point" : "two-point";
  char *text = bridge_scene(60, 37, 0.02, scheme, "");
  vb_scene *sc = load(text);
  char err[1024];
  vb_model *model;
  ck_assert_int_eq(vb_model_compile(sc, &model, err, sizeof err), VB_OK);
  const vb_island_model *m = largest_island(model);
  vb_island_state *s;
  if (_i % 2)
    vb_test_control(VB_TEST_NO_SKIP, 1);
  ck_assert_int_eq(vb_island_state_alloc(m, &s), VB_OK);
  vb_test_control(VB_TEST_NO_SKIP, 0);
  ck_assert(_i % 2 ? s->sp == NULL : s->sp != NULL);
  vb_island_start(m, s);
  double *x0 = malloc((size_t)m->nc * sizeof(double)), *r0 = malloc((size_t)m->nc * sizeof(double));
  long steps = vb_scene_steps(sc), engaged = 0, unsolved = 0;
  for (long n = 0; n < steps; n++) {
    for (int c = 0; c < m->nc; c++) {
      x0[c] = s->hist[c].x;
      r0[c] = s->hist[c].rate;
    }
    ck_assert_int_ne(vb_island_step(m, s, n), VB_EDIVERGED);
    const int *lcs;
    const double *xr, *rr;
    for (int k = 0, nr = vb_island_rejoined(s, &lcs, &xr, &rr); k < nr; k++) {
      x0[lcs[k]] = xr[k];
      r0[lcs[k]] = rr[k];
    }
    int ne = 0, finite = isfinite(s->kinetic) && isfinite(s->potential) &&
                         isfinite(s->dissipated) && isfinite(s->external);
    for (int k = 0; k < s->ntrk; k++) {
      int c = s->trk[k];
      const vb_chist *hc = &s->hist[c];
      ck_assert_msg(s->xb[c] == x0[c] && s->rb[c] == r0[c], "step %ld contact %d: before %.17g %.17g, want %.17g %.17g", n, c, s->xb[c], s->rb[c], x0[c], r0[c]);
      if (vb_law_penetration(&m->cts[c].law, hc->x) > 0.0) {
        ck_assert_msg(ne < s->neng && s->eng[ne] == c, "step %ld: contact %d in contact, not listed", n, c);
        ne++;
      }
      finite &= isfinite(hc->x) && isfinite(hc->rate) && isfinite(hc->f);
    }
    ck_assert_int_eq(ne, s->neng);
    engaged += ne;
    ck_assert_int_eq(vb_island_finite(m, s), finite);
    ck_assert(finite);
    if (!s->solved) {
      unsolved++;
      for (int c = 0; c < m->nc; c++)
        ck_assert(s->fbar[c] == 0.0 && s->iterations[c] == 0 && s->fallback[c] == 0);
    }
  }
  ck_assert_msg(engaged > 0 && unsolved > 0, "%s: %ld contacts in contact, %ld steps without a solve", scheme, engaged, unsolved);
  /* stepping every contact: the one farthest out of contact given x = -inf
   * (the prediction comes from the modes, the new rate from x: inf) */
  int far = -1;
  for (int c = 0; _i % 2 && c < m->nc; c++)
    if (far < 0 || s->hist[c].x < s->hist[far].x)
      far = c;
  if (far >= 0) {
    ck_assert(s->hist[far].x < 0.0);
    s->hist[far].x = -INFINITY;
    vb_island_step(m, s, steps);
    ck_assert(isfinite(s->kinetic) && isfinite(s->potential));
    ck_assert_msg(!vb_island_finite(m, s), "%s: contact %d's rate %g: called finite", scheme, far,
                  s->hist[far].rate);
  }
  free(x0);
  free(r0);
  vb_island_state_free(s);
  vb_model_free(model);
  vb_scene_free(sc);
  free(text);
}
END_TEST

int
main(void)
{
  Suite *su = suite_create("sparse");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 600);
  tcase_add_loop_test(t, test_bound_holds, 0, 8);
  tcase_add_loop_test(t, test_same_as_every_contact, 0, 6);
  tcase_add_test(t, test_few_live);
  tcase_add_loop_test(t, test_energy_conserved, 0, 2);
  tcase_add_loop_test(t, test_all_live_waits, 0, 4);
  tcase_add_loop_test(t, test_step_bookkeeping, 0, 4);
  suite_add_tcase(su, t);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
