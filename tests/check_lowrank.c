/* check_lowrank.c - solvers/lowrank.c: an island of many contacts solved
 * through its modes, without the dense compliance (issue 33 item 2).
 *
 * core: the tanpura-like string of tests/bridge_scene.h (40 modes, 400
 * bridge points) stepped with the dense K (test hook lowrank = 0) and
 * through the modes (lowrank = 1) side by side, two-point and three-point:
 * the modal displacements and the contact forces agree to 1e-9 of their
 * scale at every step, the energy of the lossless string is conserved
 * (its drift no more than 1e-11 of it), and the steps went through both
 * of the low-rank solve's regimes (active sets up to the 40 modes, with a
 * packed K_AA, and above, through the modes).  The ideal string on the
 * fretless neck (862 points, 100 modes, whose Newton fails and the
 * globalised fall-back solves, kglobal.c's exact factor here) finishes
 * with its energy to 1e-11.  limits: 10^5 points on one string load by
 * default without a dense K, pass the check's warnings and run
 * (tests/check_scene.c: an island that cannot be solved through its modes
 * is refused past 8192 contacts, naming why). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bridge_scene.h"
#include "island/island.h"
#include "testutil.h"

/* An island compiled one way or the other, and its state. */
typedef struct {
  vb_model *model;
  const vb_island_model *m;
  vb_island_state *s;
} island;

/* Compile sc under the lowrank hook (0 dense, 1 through the modes) and
 * start its island with the most contacts. */
static void
island_open(island *x, const vb_scene *sc, int lowrank)
{
  char err[1024];
  vb_test_control(VB_TEST_LOWRANK, lowrank);
  ck_assert_msg(vb_model_compile(sc, &x->model, err, sizeof err) == VB_OK, "%s", err);
  vb_test_control(VB_TEST_LOWRANK, -1);
  x->m = &x->model->islands[0];
  for (int i = 1; i < x->model->nislands; i++)
    if (x->model->islands[i].nc > x->m->nc)
      x->m = &x->model->islands[i];
  ck_assert_int_eq(vb_island_state_alloc(x->m, &x->s), VB_OK);
  vb_island_start(x->m, x->s);
}

static void
island_close(island *x)
{
  vb_island_state_free(x->s);
  vb_model_free(x->model);
}

static const char *const schemes[] = {"two-point", "three-point"};

/* The string on 400 points both ways, step by step. */
START_TEST(test_matches_dense)
{
  const int modes = 40, points = 400;
  char err[1024], *text = bridge_scene(modes, points, 0.01, schemes[_i], "");
  vb_scene *sc;
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(vb_scene_load_string(text, "bridge.cfg", &sc, err, sizeof err) == VB_OK, "%s",
                err);
  free(text);
  island d, l;
  island_open(&d, sc, 0);
  island_open(&l, sc, 1);
  ck_assert(!d.m->lowrank && d.m->K);
  ck_assert(l.m->lowrank && !l.m->K && l.m->kcap == modes);
  int nmp = l.m->nmp, nc = l.m->nc;
  long steps = vb_scene_steps(sc), small = 0, large = 0;
  double e0 = l.s->kinetic + l.s->potential, drift = 0.0, ddrift = 0.0, qworst = 0.0,
         fworst = 0.0;
  int amax = 0;
  for (long n = 0; n < steps; n++) {
    int rd = vb_island_step(d.m, d.s, n), rl = vb_island_step(l.m, l.s, n);
    ck_assert_msg(rd == VB_OK && rl == VB_OK, "step %ld: %d (dense), %d (modes)", n, rd, rl);
    double qd = 0.0, qs = 0.0, fd = 0.0, fs = 0.0;
    for (int j = 0; j < nmp; j++) {
      qd = fmax(qd, fabs(d.s->q[j] - l.s->q[j]));
      qs = fmax(qs, fabs(d.s->q[j]));
    }
    int act = 0;
    for (int c = 0; c < nc; c++) {
      fd = fmax(fd, fabs(d.s->fbar[c] - l.s->fbar[c]));
      fs = fmax(fs, fabs(d.s->fbar[c]));
      act += l.s->iterations[c] > 0;
    }
    amax = act > amax ? act : amax;
    small += act > 1 && act <= modes;
    large += act > modes;
    qworst = fmax(qworst, qd / qs);
    if (fs > 0.0)
      fworst = fmax(fworst, fd / fs);
    drift = fmax(drift, fabs(l.s->kinetic + l.s->potential - e0) / e0);
    ddrift = fmax(ddrift, fabs(d.s->kinetic + d.s->potential - e0) / e0);
  }
  printf("lowrank %s, %d modes, %d points, %ld steps: %ld solved with a packed K_AA, %ld "
         "through the modes (up to %d active); q within %.2e, forces within %.2e of their "
         "scale; energy drift %.2e (dense %.2e)\n",
         schemes[_i], modes, points, steps, small, large, amax, qworst, fworst, drift, ddrift);
  ck_assert_msg(small > 0 && large > 0, "regimes: %ld packed, %ld through the modes", small,
                large);
  ck_assert_msg(qworst <= 1e-9, "modal displacements differ by %g of their scale", qworst);
  ck_assert_msg(fworst <= 1e-9, "forces differ by %g of their scale", fworst);
  ck_assert_msg(drift <= 1e-11, "energy drift %g", drift);
  island_close(&d);
  island_close(&l);
  vb_scene_free(sc);
}
END_TEST

/* check_kglobal.c's ideal string through the modes: the fall-back (its
 * exact factor B = S diag(sqrt(cc))) solves the steps Newton cannot. */
START_TEST(test_fallback)
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
  vb_test_control(VB_TEST_LOWRANK, 1);
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  vb_test_control(VB_TEST_LOWRANK, -1);
  int rc = vb_run_exec(s.run);
  ck_assert_msg(rc == VB_OK, "the ideal string did not finish (rc %d)", rc);
  long n = vb_run_samples(s.run), global = 0;
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  double drift = 0.0;
  for (long i = 0; i < n; i++)
    drift = fmax(drift, fabs(e[i] - e[0]) / e[0]);
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(s.run, c);
    global = r->global_solves > global ? r->global_solves : global;
    ck_assert_int_eq(r->newton_failures, 0);
  }
  printf("lowrank ideal string on the fretless neck: fall-back steps %ld, energy drift %.2e\n",
         global, drift);
  ck_assert_int_gt(global, 0);
  ck_assert_msg(drift < 1e-11, "energy drift %g", drift);
  tu_free(&s);
}
END_TEST

/* A string of `modes` modes on a distributed contact of n points. */
static char *
big_scene(int modes, int n, const char *scheme, const char *extra)
{
  char *t = malloc(2048);
  ck_assert_ptr_nonnull(t);
  snprintf(t, 2048,
           "scene = { name = \"big\"; fs = 44100.0; duration = 0.0001; gravity = 0.0; };\n"
           "bodies = ( { name = \"bridge\"; type = \"wall\"; },\n"
           "  { name = \"string\"; type = \"modal\";\n"
           "    preset = { kind = \"string\"; nmodes = %d; length = 1.0; tension = 40.0;\n"
           "      linear_density = 1e-3; pluck = [0.3, -3e-4]; };\n"
           "    points = ( { name = \"pickup\"; x = 0.7; } ); } );\n"
           "contacts = ( { name = \"bridge\"; between = [\"bridge\", \"string\"]; law = \"power\";\n"
           "  k = 1e9; alpha = 1.5; scheme = \"%s\"; %s\n"
           "  points = { from = 0.005; to = 0.025; n = %d; };\n"
           "  profile = { parabola = [0.015, -1e-5, -0.5]; }; } );\n"
           "record = { signals = [\"bodies/string/pickup/*\", \"energy/*\"]; };\n",
           modes, scheme, extra, n);
  return t;
}

/* 10^5 points on one string: loaded (its island without a dense K, by
 * default), checked (vb_scene_warnings, as `vibro check`) and run, its
 * first steps in contact solved. */
START_TEST(test_hundred_thousand)
{
  char err[2048], *text = big_scene(32, 100000, "two-point", ""), *warn = malloc(1 << 16);
  vb_scene *sc;
  ck_assert_ptr_nonnull(warn);
  warn[0] = '\0';
  ck_assert_msg(vb_scene_load_string(text, "big.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  free(text);
  ck_assert_int_eq(sc->ncontacts, 100000);
  vb_scene_warnings(sc, warn, 1 << 16);
  island l;
  island_open(&l, sc, -1);
  ck_assert(l.m->lowrank && !l.m->K && l.m->nc == 100000);
  int act = 0;
  for (long n = 0; n < 4; n++) {
    ck_assert_int_eq(vb_island_step(l.m, l.s, n), VB_OK);
    int a = 0;
    for (int c = 0; c < l.m->nc; c++)
      a += l.s->iterations[c] > 0;
    act = a > act ? a : act;
  }
  island_close(&l);
  tu_sim s = {sc, NULL, 0};
  ck_assert_msg(vb_run_alloc(sc, &s.run, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(vb_run_exec(s.run), VB_OK);
  printf("lowrank 10^5 points: up to %d active in 4 steps; warnings: %.160s\n", act, warn);
  ck_assert_int_gt(act, 32); /* more than the modes: solved through them */
  tu_free(&s);
  free(warn);
}
END_TEST

static Suite *
lowrank_suite(void)
{
  Suite *s = suite_create("lowrank");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_matches_dense, 0, 2);
  tcase_add_test(t, test_fallback);
  suite_add_tcase(s, t);
  t = tcase_create("limits");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_hundred_thousand);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return tu_main(lowrank_suite());
}
