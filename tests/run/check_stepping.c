/* check_stepping.c - a run in blocks (lib/run/stepping.c; issue 31 item
 * 3): scenes of scenes/ advanced in blocks of 1, 7 and 1000 steps, and to
 * times, equal their whole runs bit for bit (every signal, every event,
 * the status and code); the state in hand equals what the recording holds
 * at the same step; ending early; and parameters changed between blocks:
 * a value set to itself changes no bit, a force switched off does no more
 * work, a wall moved away is hit no more; the refusals. */
#include <math.h>
#include <string.h>
#include "../testutil.h"

static vb_scene *
load_file(const char *rel)
{
  char path[4096], err[1024];
  vb_scene *sc = NULL;
  snprintf(path, sizeof path, "%s/%s", TEST_SRCDIR, rel);
  ck_assert_msg(vb_scene_load(path, &sc, err, sizeof err) == VB_OK, "%s: %s", rel, err);
  return sc;
}

static vb_scene *
load_text(const char *text)
{
  char err[1024];
  vb_scene *sc = NULL;
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  return sc;
}

static vb_run *
alloc_run(const vb_scene *sc)
{
  char err[1024];
  vb_run *run = NULL;
  ck_assert_msg(vb_run_alloc(sc, &run, err, sizeof err) == VB_OK, "%s", err);
  return run;
}

/* Every signal, event, the status and code of a and b the same bits. */
static void
same_run(const vb_run *a, const vb_run *b, const char *what)
{
  char na[256], nb[256];
  const char *ua, *ub;
  const double *da, *db;
  int ra, rb, ka, k;
  long samples = vb_run_samples(a);

  ck_assert_int_eq(vb_run_samples(b), samples);
  ck_assert_msg(vb_run_code(a) == vb_run_code(b), "%s: code %d, whole %d", what, vb_run_code(b),
                vb_run_code(a));
  ck_assert_msg(strcmp(vb_run_status(a), vb_run_status(b)) == 0, "%s: status '%s', whole '%s'",
                what, vb_run_status(b), vb_run_status(a));
  for (k = 0; (ka = vb_run_signal_at(a, k, na, sizeof na, &ua, &ra, &da)) >= 0; k++) {
    int kb = vb_run_signal_at(b, k, nb, sizeof nb, &ub, &rb, &db);
    ck_assert_int_eq(kb, ka);
    ck_assert_str_eq(na, nb);
    ck_assert_int_eq(ra, rb);
    size_t n = ka == 2 ? (size_t)ra : (size_t)(ka == 0 ? 1 : ra) * (size_t)samples;
    ck_assert_msg(memcmp(da, db, n * sizeof *da) == 0, "%s: signal %s differs", what, na);
  }
  ck_assert_int_gt(k, 0);
  for (int c = 0; c < vb_run_scene(a)->ncontacts; c++) {
    long ea = vb_run_events(a, c, NULL), eb = vb_run_events(b, c, NULL);
    ck_assert_msg(ea == eb, "%s: contact %d has %ld events, whole %ld", what, c, eb, ea);
    int nf = 0, is_int;
    const char *units;
    while (vb_event_field(nf, &units, &is_int))
      nf++;
    double *x = calloc((size_t)(ea * nf + 1), sizeof *x), *y = calloc((size_t)(ea * nf + 1), sizeof *y);
    vb_run_events(a, c, x);
    vb_run_events(b, c, y);
    ck_assert_msg(memcmp(x, y, (size_t)(ea * nf) * sizeof *x) == 0, "%s: contact %d's events differ",
                  what, c);
    free(x);
    free(y);
  }
}

/* The scene run in blocks of `block` steps (0: to times 0.37 of the
 * duration apart, as vb_run_advance_to gives them). */
static vb_run *
blocks(const vb_scene *sc, long block)
{
  vb_run *run = alloc_run(sc);
  long total = vb_run_steps_total(run), calls = 0;
  int rc = vb_run_begin(run);
  ck_assert_int_eq(vb_run_steps_done(run), 0);
  while (rc == VB_OK && vb_run_steps_done(run) < total) {
    long before = vb_run_steps_done(run);
    if (block > 0) {
      rc = vb_run_advance(run, block);
      if (rc == VB_OK)
        ck_assert_int_eq(vb_run_steps_done(run), before + block < total ? before + block : total);
    } else {
      double t = fmin((double)(++calls) * 0.37 * (double)total * (1.0 / sc->fs), (double)total * (1.0 / sc->fs));
      rc = vb_run_advance_to(run, t);
    }
    ck_assert_double_eq(vb_run_now(run), (double)vb_run_steps_done(run) * (1.0 / sc->fs));
  }
  vb_run_end(run);
  return run;
}

static const char *const files[] = {
    "scenes/papetti-case-b.cfg",    /* a mass against a wall */
    "scenes/avanzini-hammer-bar.cfg", /* a hammer on a modal bar */
    "scenes/snare-wires.cfg",       /* many contacts */
    "scenes/belt-stick-slip.cfg",   /* friction */
    "scenes/tanpura-bridge.cfg",    /* a distributed contact */
};

START_TEST(test_blocks_equal_whole)
{
  vb_scene *sc = load_file(files[_i]);
  vb_run *whole = alloc_run(sc);
  vb_run_exec(whole);
  const long sizes[] = {1, 7, 1000, 0};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    char what[256];
    snprintf(what, sizeof what, "%s in blocks of %ld", files[_i], sizes[s]);
    vb_run *b = blocks(sc, sizes[s]);
    same_run(whole, b, what);
    vb_run_free(b);
  }
  vb_run_free(whole);
  vb_scene_free(sc);
}
END_TEST

/* A driven oscillator against a stop, recorded every step. */
static const char *osc =
    "scene = { name = \"osc\"; fs = 20000.0; duration = 0.6; gravity = 0.0; };\n"
    "bodies = ( { name = \"mass\"; type = \"mass\"; mass = 0.0213; k = 33.7; c = 0.0117; },\n"
    "  { name = \"stop\"; type = \"wall\"; position = 0.0; } );\n"
    "contacts = ( { name = \"hit\"; between = [\"mass\", \"stop\"]; law = \"hunt-crossley\"; "
    "k = 2.3e5; alpha = 1.5; mu = 0.2; gap = 1.7e-3; scheme = \"two-point\"; } );\n"
    "forces = ( { name = \"drive\"; at = \"mass\"; type = \"harmonic\"; "
    "amplitude = 0.0917; freq = 6.11; } );\n";

/* The state in hand at a step equals the recording's sample of that step. */
START_TEST(test_state_now)
{
  vb_scene *sc = load_text(osc);
  vb_run *run = alloc_run(sc);
  double u, v, q[2], qv[2];
  ck_assert_int_eq(vb_run_begin(run), VB_OK);
  long struck = 0;
  for (long n = 0; n < 11000; n += 137) {
    ck_assert_int_eq(vb_run_advance(run, 137), VB_OK);
    long k = vb_run_steps_done(run);
    ck_assert_int_eq(vb_run_point_now(run, 0, 0, &u, &v), VB_OK);
    ck_assert_double_eq(u, vb_run_body_u(run, 0)[k]);
    ck_assert_double_eq(v, vb_run_body_v(run, 0)[k]);
    ck_assert_int_eq(vb_run_modes_now(run, 0, q, qv, 2), 1);
    ck_assert_double_eq(q[0], u);
    ck_assert_double_eq(qv[0], v);
    double f = vb_run_contact_now(run, 0, VB_NOW_FORCE);
    ck_assert_double_eq(f, vb_run_contact(run, 0)->force[k]);
    ck_assert_double_eq(vb_run_contact_now(run, 0, VB_NOW_COMPRESSION),
                        vb_run_contact(run, 0)->compression[k]);
    struck += f > 0.0;
    /* the wall: its position, still */
    ck_assert_int_eq(vb_run_point_now(run, 1, 0, &u, &v), VB_OK);
    ck_assert_double_eq(u, 0.0);
    ck_assert_double_eq(v, 0.0);
  }
  ck_assert_int_gt(struck, 0); /* some reads were in contact */
  ck_assert_int_eq(vb_run_point_now(run, 0, 1, &u, &v), VB_EINVAL);
  ck_assert_int_eq(vb_run_point_now(run, 2, 0, &u, &v), VB_EINVAL);
  ck_assert_int_eq(vb_run_modes_now(run, 1, q, qv, 2), -1);
  ck_assert(isnan(vb_run_contact_now(run, 1, VB_NOW_FORCE)));
  vb_run_end(run);
  vb_run_free(run);
  vb_scene_free(sc);
}
END_TEST

/* Ending before the duration: VB_EINTR, the status, NaN beyond; out of
 * order calls refused. */
START_TEST(test_end_early)
{
  vb_scene *sc = load_text(osc);
  vb_run *run = alloc_run(sc), *whole = alloc_run(sc);
  ck_assert_int_eq(vb_run_advance(run, 10), VB_EINVAL); /* before begin */
  ck_assert_int_eq(vb_run_end(run), VB_EINVAL);
  ck_assert_int_eq(vb_run_begin(run), VB_OK);
  ck_assert_int_eq(vb_run_advance(run, -1), VB_EINVAL);
  ck_assert_int_eq(vb_run_advance_to(run, 0.25), VB_OK);
  ck_assert_int_eq(vb_run_steps_done(run), 5000);
  ck_assert_int_eq(vb_run_advance_to(run, 0.1), VB_OK); /* behind: nothing */
  ck_assert_int_eq(vb_run_steps_done(run), 5000);
  ck_assert_int_eq(vb_run_end(run), VB_EINTR);
  ck_assert_str_eq(vb_run_status(run), "ended at t=0.25 s by the caller (duration 0.6 s)");
  ck_assert_int_eq(vb_run_end(run), VB_EINTR);
  ck_assert_int_eq(vb_run_advance(run, 1), VB_EINTR); /* ended */
  vb_run_exec(whole);
  const double *u = vb_run_body_u(run, 0), *w = vb_run_body_u(whole, 0);
  ck_assert(memcmp(u, w, 5001 * sizeof *u) == 0);
  for (long k = 5001; k < vb_run_samples(run); k++)
    ck_assert(isnan(u[k]));
  vb_run_free(run);
  vb_run_free(whole);
  vb_scene_free(sc);
}
END_TEST

/* Parameters changed between blocks. */
START_TEST(test_set)
{
  char err[512];
  /* set to their own values: not a bit changes */
  vb_scene *sc = load_text(osc), *sc2 = load_text(osc);
  vb_run *whole = alloc_run(sc), *run = alloc_run(sc2);
  vb_run_exec(whole);
  ck_assert_int_eq(vb_run_begin(run), VB_OK);
  ck_assert_int_eq(vb_run_advance(run, 3333), VB_OK);
  ck_assert_int_eq(vb_run_set(run, "contacts.hit.k", 2.3e5, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_set(run, "contacts.hit.mu", 0.2, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_set(run, "forces.drive.amplitude", 0.0917, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_set(run, "bodies.stop.position", 0.0, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_set(run, "contacts.hit.gap", 1.7e-3, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_advance(run, 1L << 40), VB_OK);
  vb_run_end(run);
  same_run(whole, run, "set to the same values");
  vb_run_free(run);
  vb_run_free(whole);
  vb_scene_free(sc2);

  /* the drive switched off at 0.3 s: from there the external work stays
   * what it was (no force does work: the stop is fixed), while the whole
   * run's goes on changing */
  sc2 = load_text(osc);
  run = alloc_run(sc2);
  vb_run_begin(run);
  vb_run_advance_to(run, 0.3);
  ck_assert_int_eq(vb_run_set(run, "forces.drive.amplitude", 0.0, err, sizeof err), VB_OK);
  vb_run_advance_to(run, 0.6);
  ck_assert_int_eq(vb_run_end(run), VB_OK);
  const double *ext = vb_run_energy(run, VB_ENERGY_EXTERNAL);
  for (long k = 6001; k <= 12000; k++)
    ck_assert_double_eq(ext[k], ext[6000]);
  ck_assert_double_ne(ext[6000], ext[5000]);
  vb_run_free(run);
  vb_scene_free(sc2);

  /* the stop moved 10 cm away at 0.1 s: no impact begins after that */
  sc2 = load_text(osc);
  run = alloc_run(sc2);
  vb_run_begin(run);
  vb_run_advance_to(run, 0.1);
  long before = vb_run_contact(run, 0)->nevents;
  ck_assert_int_eq(vb_run_set(run, "bodies.stop.position", 0.1, err, sizeof err), VB_OK);
  vb_run_advance_to(run, 0.6);
  vb_run_end(run);
  const vb_contact_result *r = vb_run_contact(run, 0);
  ck_assert_int_le(r->nevents, before + 1); /* one open at the move may close */
  for (long k = 0; k < r->nevents; k++)
    ck_assert_double_le(r->events[k].t_on, 0.1);
  /* unmoved, the stop is struck after 0.1 s */
  whole = alloc_run(sc);
  vb_run_exec(whole);
  r = vb_run_contact(whole, 0);
  ck_assert_int_gt(r->nevents, before + 2);
  ck_assert_double_gt(r->events[r->nevents - 1].t_on, 0.2);
  vb_run_free(whole);
  vb_run_free(run);
  vb_scene_free(sc2);
  vb_scene_free(sc);

  /* refusals name what is wrong and what is valid */
  sc2 = load_text(osc);
  run = alloc_run(sc2);
  vb_run_begin(run);
  static const char *const bad[][2] = {
      {"contacts.hit.k", "contacts.hit.k: -1 is not valid (valid: "},
      {"contacts.hit.q", "contacts.hit.q: law 'hunt-crossley' has no parameter 'q' (valid: "},
      {"contacts.nope.k", "contacts.nope.k: no contact 'nope'"},
      {"forces.drive.size", "forces.drive.size: no force 'drive' or no key 'size' (valid: "},
      {"bodies.mass.position", "bodies.mass.position: no wall 'mass' or no key 'position' (valid: "},
      {"scene.fs", "scene.fs: not a parameter a run can change (valid: "},
      {"k", "k: not a parameter a run can change (valid: "},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_int_eq(vb_run_set(run, bad[i][0], -1.0, err, sizeof err), VB_EINVAL);
    ck_assert_msg(strncmp(err, bad[i][1], strlen(bad[i][1])) == 0, "%s: '%s'", bad[i][0], err);
  }
  ck_assert_int_eq(vb_run_set(run, "forces.drive.amplitude", NAN, err, sizeof err), VB_EINVAL);
  vb_run_end(run);
  ck_assert_int_eq(vb_run_set(run, "forces.drive.amplitude", 1.0, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "forces.drive.amplitude: the run has ended");
  vb_run_free(run);
  vb_scene_free(sc2);
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("stepping");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_blocks_equal_whole, 0, (int)(sizeof files / sizeof *files));
  tcase_add_test(tc, test_state_now);
  tcase_add_test(tc, test_end_early);
  tcase_add_test(tc, test_set);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
