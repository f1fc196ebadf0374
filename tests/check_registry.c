/* check_registry.c - the scheme registry (solvers/registry.c): lookup of
 * the first, the last and an unknown name, the choices built from the
 * list, and the check of each scheme's operations (issue 11). */
#include "testutil.h"
#include "scheme.h"
#include "island/island.h" /* the island's rows of the families */

/* Lookup: the first and the last entry (a registration loop once skipped
 * entry 0), every entry by its own name, and names that are not there. */
START_TEST(test_lookup)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  ck_assert_uint_ge(n, 2);
  ck_assert_ptr_eq(vb_scheme_lookup(all[0]->name), all[0]);
  ck_assert_ptr_eq(vb_scheme_lookup(all[n - 1]->name), all[n - 1]);
  ck_assert_str_eq(all[0]->name, "two-point");
  ck_assert_str_eq(all[n - 1]->name, "moreau-jean");
  ck_assert_ptr_null(vb_scheme_lookup("rk5"));
  ck_assert_ptr_null(vb_scheme_lookup(""));
  ck_assert_ptr_null(vb_scheme_lookup("Two-Point"));
  ck_assert_ptr_null(vb_scheme_lookup(NULL));
  for (size_t i = 0; i < n; i++)
    ck_assert_ptr_eq(vb_scheme_lookup(all[i]->name), all[i]);
}
END_TEST

/* The choices are the list's names in its order, ", "-separated. */
START_TEST(test_choices)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  char expect[512] = "";
  for (size_t i = 0; i < n; i++) {
    if (i)
      strcat(expect, ", ");
    strcat(expect, all[i]->name);
  }
  ck_assert_str_eq(vb_scheme_choices(), expect);
}
END_TEST

/* Every registered scheme passes the check of its family's operations and
 * facts; the facts the library reads instead of names are right. */
START_TEST(test_every_scheme_checks)
{
  size_t n;
  char err[256];
  const vb_scheme *const *all = vb_scheme_list(&n);
  for (size_t i = 0; i < n; i++) {
    const vb_scheme *s = all[i];
    ck_assert_msg(vb_scheme_check(s, err, sizeof err) == VB_OK, "%s", err);
    ck_assert(strlen(s->doc) > 10);
    ck_assert_int_eq(s->family == VB_FAMILY_EXPLICIT, s->stability_limit > 0.0);
  }
  const vb_scheme *q = vb_scheme_lookup("quadratic");
  ck_assert_ptr_eq(q->fallback, vb_scheme_lookup("three-point"));
  ck_assert_str_eq(q->params[0], "s");
  ck_assert_ptr_null(q->params[1]);
  ck_assert_int_eq(vb_scheme_lookup("two-point")->exact_duration_eq, 15);
  ck_assert_int_eq(vb_scheme_lookup("three-point")->exact_duration_eq, 16);
  ck_assert_int_eq(vb_scheme_lookup("am1")->exact_duration_eq, 0);
  ck_assert_double_eq(vb_scheme_lookup("verlet")->stability_limit, 2.0);
}
END_TEST

/* A scheme that lacks an operation its family needs is refused, with the
 * operation named (SUNDIALS checks a plug-in once, where it is attached). */
START_TEST(test_check_refuses)
{
  char err[256];
  const vb_scheme *tp = vb_scheme_lookup("three-point"), *rk4 = vb_scheme_lookup("rk4");
  vb_scheme_ops ops = *tp->ops;
  vb_scheme broken = *tp;
  broken.name = "broken";
  broken.ops = &ops;
  ops.held_force = NULL;
  ck_assert_int_eq(vb_scheme_check(&broken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'broken': no held_force (the three-level family needs it)");
  ops = *tp->ops;
  ops.solve_single = vb_scheme_lookup("quadratic")->ops->solve_single;
  ck_assert_int_eq(vb_scheme_check(&broken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'broken': no fallback (the three-level family needs it)");
  broken.fallback = vb_scheme_lookup("two-point");
  ck_assert_int_eq(vb_scheme_check(&broken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'broken': fallback 'two-point' cannot step its contacts (it "
                        "needs the same family, a step_force and no fallback of its own)");
  vb_scheme_ops eops = *rk4->ops;
  vb_scheme ebroken = *rk4;
  ebroken.name = "ebroken";
  ebroken.ops = &eops;
  eops.step = NULL;
  ck_assert_int_eq(vb_scheme_check(&ebroken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'ebroken': no step (the explicit family needs it)");
  eops = *rk4->ops;
  ebroken.stability_limit = 0.0;
  ck_assert_int_eq(vb_scheme_check(&ebroken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'ebroken': no stability_limit (the explicit family needs it)");
  /* the energy-quadratised family needs its linear solve, and a scheme
   * with state its start and advance */
  const vb_scheme *sav = vb_scheme_lookup("sav");
  vb_scheme_ops sops = *sav->ops;
  vb_scheme sbroken = *sav;
  sbroken.name = "sbroken";
  sbroken.ops = &sops;
  sops.solve_linear = NULL;
  ck_assert_int_eq(vb_scheme_check(&sbroken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'sbroken': no solve_linear (the energy-quadratised family needs it)");
  sops = *sav->ops;
  sops.advance = NULL;
  ck_assert_int_eq(vb_scheme_check(&sbroken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'sbroken': no advance (the energy-quadratised family needs it)");
  ops = *tp->ops;
  broken.fallback = NULL;
  ops.nstate = 2;
  ck_assert_int_eq(vb_scheme_check(&broken, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "scheme 'broken': no start (the three-level family needs it)");
}
END_TEST

/* The family table: one row per family, each with the hooks its kind
 * needs, and the facts the library asks instead of naming a family. */
START_TEST(test_family_table)
{
  static const struct { vb_family f; const char *name; int levels, velocity, one, linear, impulse; } want[] = {
    { VB_FAMILY_TWO_LEVEL, "two-level", 2, 1, 0, 0, 0 },
    { VB_FAMILY_THREE_LEVEL, "three-level", 3, 0, 0, 0, 0 },
    { VB_FAMILY_EXPLICIT, "explicit", 2, 1, 1, 0, 0 },
    { VB_FAMILY_SAV, "energy-quadratised", 3, 0, 0, 1, 0 },
    { VB_FAMILY_NONSMOOTH, "nonsmooth", 2, 1, 0, 0, 1 },
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const vb_family_ops *f = vb_family_of(want[i].f);
    const vb_family_info *fi = vb_family_info_of(want[i].f);
    ck_assert_ptr_nonnull(f);
    /* the island's row points at the registry's facts of the same family */
    ck_assert_ptr_eq(f->info, fi);
    ck_assert_str_eq(fi->name, want[i].name);
    ck_assert_int_eq(fi->levels, want[i].levels);
    ck_assert_int_eq(fi->velocity, want[i].velocity);
    ck_assert_int_eq(fi->one_scheme, want[i].one);
    ck_assert_int_eq(fi->linear, want[i].linear);
    ck_assert_int_eq(fi->impulse, want[i].impulse);
    ck_assert(f->mode && f->step && f->energy);
    /* an implicit family predicts and solves; the explicit one does neither */
    ck_assert_int_eq(f->predict != NULL, !want[i].one);
    ck_assert_int_eq(f->solve != NULL, !want[i].one);
  }
  ck_assert_ptr_null(vb_family_of((vb_family)(VB_FAMILY_NONSMOOTH + 1)));
  ck_assert_ptr_null(vb_family_of((vb_family)-1));
  ck_assert_ptr_null(vb_family_info_of((vb_family)(VB_FAMILY_NONSMOOTH + 1)));
  ck_assert_ptr_null(vb_family_info_of((vb_family)-1));
}
END_TEST

static Suite *
registry_suite(void)
{
  Suite *s = suite_create("registry");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_lookup);
  tcase_add_test(core, test_choices);
  tcase_add_test(core, test_every_scheme_checks);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_check_refuses);
  tcase_add_test(core, test_family_table);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(registry_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
