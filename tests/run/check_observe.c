/* check_observe.c - the run's observer table (lib/run/observe.c): every
 * row complete and named once, the lookup's first, last and beyond, a
 * row attached exactly when the scene asks for it, every stage's hooks
 * called by the run, and observers that follow a run without changing
 * it: the same scene with and without them records the same bits. */
#include <string.h>
#include "testutil.h"
#include "run/run.h"

/* A driven oscillator against a stop it hits, with `extra` appended. */
static char *
scene_text(const char *extra)
{
  static char buf[2048];
  snprintf(buf, sizeof buf,
           "scene = { name = \"osc\"; fs = 20000.0; duration = 0.6; gravity = 0.0; };\n"
           "bodies = ( { name = \"mass\"; type = \"mass\"; mass = 0.0213; k = 33.7; c = 0.0117; },\n"
           "  { name = \"stop\"; type = \"wall\"; position = 0.0; } );\n"
           "contacts = ( { name = \"hit\"; between = [\"mass\", \"stop\"]; law = \"power\"; "
           "k = 2.3e5; alpha = 1.5; gap = 1.7e-3; scheme = \"two-point\"; } );\n"
           "forces = ( { name = \"drive\"; at = \"mass\"; type = \"harmonic\"; "
           "amplitude = 0.0917; freq = 6.11; } );\n%s",
           extra);
  return buf;
}

START_TEST(test_table)
{
  int n = 0;
  ck_assert_ptr_nonnull(vb_observer_at(0, &n));
  ck_assert_int_ge(n, 2);
  ck_assert_ptr_nonnull(vb_observer_at(n - 1, NULL));
  ck_assert_ptr_null(vb_observer_at(n, NULL));
  ck_assert_ptr_null(vb_observer_at(-1, NULL));
  for (int i = 0; i < n; i++) {
    const vb_observer *o = vb_observer_at(i, NULL);
    ck_assert_msg(o->name && o->name[0], "row %d has no name", i);
    ck_assert_msg(o->alloc && o->attached && o->step && o->free, "observer '%s' lacks a hook",
                  o->name);
    ck_assert_msg(o->stage == VB_STAGE_BEFORE_SAMPLE || o->stage == VB_STAGE_AFTER_SAMPLE,
                  "observer '%s': stage %d", o->name, o->stage);
    for (const vb_xtable *t = o->tables; t && t->name; t++)
      ck_assert_msg(t->dim && t->cols && t->cols[0].name && strcmp(t->cols[0].name, "scene") == 0 &&
                        t->present && t->rows && t->item && (!t->dim2 || t->names),
                    "observer '%s': table '%s' is incomplete (a dim, columns led by scene, "
                    "present, rows, item; names with a dim2)", o->name, t->name);
    for (int j = 0; j < i; j++)
      ck_assert_str_ne(vb_observer_at(j, NULL)->name, o->name);
  }
  ck_assert_str_eq(vb_observer_at(0, NULL)->name, "analysis");
  ck_assert_str_eq(vb_observer_at(n - 1, NULL)->name, "phases");
}
END_TEST

/* The observers' tables, as the writer sees them: every row's in the
 * observer table's order, within the writer's VB_XT_MAX, each name once
 * and found by its name; nothing beyond the last. */
START_TEST(test_xtables)
{
  int n = -1, k = 0;
  const vb_observer *o;
  ck_assert_ptr_nonnull(vb_xtable_at(0, &n));
  ck_assert_int_eq(n, vb_xtable_count());
  ck_assert_int_le(n, VB_XT_MAX);
  for (int i = 0; (o = vb_observer_at(i, NULL)); i++)
    for (const vb_xtable *t = o->tables; t && t->name; t++, k++) {
      ck_assert_ptr_eq(vb_xtable_at(k, NULL), t);
      ck_assert_int_eq(vb_xtable_index(t->name), k);
    }
  ck_assert_int_eq(k, n);
  ck_assert_ptr_null(vb_xtable_at(n, NULL));
  ck_assert_ptr_null(vb_xtable_at(-1, NULL));
  ck_assert_int_eq(vb_xtable_index("no such table"), -1);
  /* the analysis's two, in the order the files have always had them */
  ck_assert_str_eq(vb_xtable_at(0, NULL)->name, "sections");
  ck_assert_str_eq(vb_xtable_at(1, NULL)->name, "impact_map");
}
END_TEST

/* Which rows a scene's run attaches. */
static void
attached(const char *extra, int want_analysis, int want_lyapunov)
{
  vb_scene *sc;
  vb_run *run;
  char err[512];
  ck_assert_msg(vb_scene_load_string(scene_text(extra), "test.cfg", &sc, err, sizeof err) == VB_OK,
                "%s", err);
  ck_assert_msg(vb_run_alloc(sc, &run, err, sizeof err) == VB_OK, "%s", err);
  int n;
  vb_observer_at(0, &n);
  for (int i = 0; i < n; i++) {
    const vb_observer *o = vb_observer_at(i, NULL);
    /* (the friction phases: only a scene with friction, below) */
    int want = strcmp(o->name, "analysis") == 0   ? want_analysis
               : strcmp(o->name, "lyapunov") == 0 ? want_lyapunov
                                                  : 0;
    ck_assert_msg(o->attached(run) == want, "'%s' with \"%s\": attached %d", o->name, extra,
                  o->attached(run));
  }
  ck_assert_int_eq(vb_run_exec(run), VB_OK);
  vb_run_free(run);
  vb_scene_free(sc);
}

START_TEST(test_attached)
{
  attached("", 0, 0);
  attached("analysis = { lyapunov = { }; };\n", 1, 1);
  attached("analysis = { section = { drive = \"forces.drive\"; points = [\"mass\"]; }; };\n", 1, 0);
  attached("analysis = { section = { drive = \"forces.drive\"; points = [\"mass\"]; }; "
           "lyapunov = { }; };\n",
           1, 1);
}
END_TEST

/* The friction phases (lib/run/phases.c) attach to a scene with friction
 * alone, and find its phases. */
START_TEST(test_attached_phases)
{
  static const char text[] =
      "scene = { name = \"belt\"; fs = 10000.0; duration = 0.5; gravity = 9.81; };\n"
      "bodies = ( { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; "
      "v = 0.02; }; },\n"
      "  { name = \"block\"; type = \"mass\"; mass = 1.0; u0 = -9.81e-7; vw0 = 0.02; "
      "kw = 1000.0; } );\n"
      "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; law = \"power\"; "
      "k = 1.0e7; alpha = 1.0; scheme = \"two-point\";\n"
      "  friction = { law = \"coulomb\"; mu_s = 0.6; mu_k = 0.4; }; } );\n";
  vb_scene *sc;
  vb_run *run;
  char err[512];
  long np;
  ck_assert_msg(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(sc, &run, err, sizeof err) == VB_OK, "%s", err);
  int n;
  vb_observer_at(0, &n);
  for (int i = 0; i < n; i++) {
    const vb_observer *o = vb_observer_at(i, NULL);
    ck_assert_int_eq(o->attached(run), strcmp(o->name, "phases") == 0);
  }
  ck_assert_int_eq(vb_run_exec(run), VB_OK);
  ck_assert_ptr_nonnull(vb_run_phases(run, &np));
  ck_assert_int_ge(np, 3); /* a stick, a slip, a stick ... */
  vb_run_free(run);
  vb_scene_free(sc);
}
END_TEST

/* The observers follow the run: with the section and the Lyapunov twin
 * attached, the recorded displacement, energies and impacts are the bits
 * of the run without them. */
START_TEST(test_follow_only)
{
  tu_sim a = tu_run_text(scene_text(""));
  tu_sim b = tu_run_text(scene_text("analysis = { section = { drive = \"forces.drive\"; "
                                    "points = [\"mass\"]; }; lyapunov = { }; };\n"));
  ck_assert_int_eq(a.rc, VB_OK);
  ck_assert_int_eq(b.rc, VB_OK);
  long n = vb_run_samples(a.run);
  ck_assert_int_eq(n, vb_run_samples(b.run));
  ck_assert(memcmp(vb_run_body_u(a.run, 0), vb_run_body_u(b.run, 0), (size_t)n * 8) == 0);
  ck_assert(memcmp(vb_run_body_v(a.run, 0), vb_run_body_v(b.run, 0), (size_t)n * 8) == 0);
  ck_assert(memcmp(vb_run_energy(a.run, VB_ENERGY_TOTAL), vb_run_energy(b.run, VB_ENERGY_TOTAL),
                   (size_t)n * 8) == 0);
  ck_assert_int_gt(vb_run_contact(a.run, 0)->nevents, 3);
  ck_assert_int_eq(vb_run_contact(a.run, 0)->nevents, vb_run_contact(b.run, 0)->nevents);
  /* and the observers did observe: a section and an exponent */
  ck_assert_ptr_nonnull(vb_run_analysis(b.run));
  ck_assert_int_gt(vb_run_analysis(b.run)->ns, 0);
  double half;
  ck_assert(isfinite(vb_run_lyapunov(b.run, &half)));
  ck_assert(isnan(vb_run_lyapunov(a.run, &half)));
  tu_free(&a);
  tu_free(&b);
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("observe");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_test(core, test_table);
  tcase_add_test(core, test_xtables);
  tcase_add_test(core, test_attached_phases);
  tcase_add_test(core, test_attached);
  tcase_add_test(core, test_follow_only);
  suite_add_tcase(s, core);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
