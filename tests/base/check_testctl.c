/* check_testctl.c - the library's test control (lib/base/testctl.c): each
 * op sets its hook and VB_TEST_RESET every default; an unknown op is
 * refused; and the library reads no environment for them (the program
 * does, tools/testenv.c): VIBRO_TEST_* set in this process change
 * nothing until vb_test_control is called. */
#include <signal.h>
#include <stdlib.h>
#include "testutil.h"
#include "base/base.h"

START_TEST(test_ops)
{
  const vb_test_hooks *h = vb_test_hooks_now();
  ck_assert_int_eq(vb_test_control(VB_TEST_RESET, 0), VB_OK);
  ck_assert_int_eq(h->kill_at, 0);
  ck_assert_int_eq(h->kill_sig, SIGKILL);
  ck_assert_int_eq(h->writer_thread, -1);
  ck_assert_int_eq(h->no_skip, 0);
  ck_assert_int_eq(h->lowrank, -1);
  ck_assert_int_eq(vb_test_control(VB_TEST_KILL_AT, 17), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_KILL_SIG, 19), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_BATCH, 3), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_BATCH_SECONDS, 0.05), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_MAP_BYTES, 4096.5), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_WRITER_THREAD, 0), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_LYAPUNOV_NOMEM, 1), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_NO_SKIP, 1), VB_OK);
  ck_assert_int_eq(vb_test_control(VB_TEST_LOWRANK, 2.5), VB_OK);
  ck_assert_int_eq(h->lowrank, 1);
  ck_assert_int_eq(vb_test_control(VB_TEST_LOWRANK, 0), VB_OK);
  ck_assert_int_eq(h->lowrank, 0);
  ck_assert_int_eq(h->kill_at, 17);
  ck_assert_int_eq(h->kill_sig, 19);
  ck_assert_int_eq(h->batch_scenes, 3);
  ck_assert_double_eq(h->batch_seconds, 0.05);
  ck_assert_double_eq(h->map_bytes, 4096.5);
  ck_assert_int_eq(h->writer_thread, 0);
  ck_assert_int_eq(h->lyapunov_nomem, 1);
  ck_assert_int_eq(h->no_skip, 1);
  vb_test_hooks copy;
  vb_test_hooks_read(&copy);
  ck_assert_int_eq(copy.kill_at, 17);
  /* a signal number that is not one falls back to SIGKILL */
  ck_assert_int_eq(vb_test_control(VB_TEST_KILL_SIG, 0), VB_OK);
  ck_assert_int_eq(h->kill_sig, SIGKILL);
  ck_assert_int_eq(vb_test_control((vb_test_op)99, 1), VB_EINVAL);
  ck_assert_int_eq(vb_test_control(VB_TEST_RESET, 0), VB_OK);
  ck_assert_int_eq(h->kill_at, 0);
  ck_assert_int_eq(h->batch_scenes, 0);
  ck_assert_int_eq(h->lyapunov_nomem, 0);
  ck_assert_int_eq(h->writer_thread, -1);
  ck_assert_int_eq(h->lowrank, -1);
}
END_TEST

/* The environment reaches no hook: the library never reads it. */
START_TEST(test_no_environment)
{
  setenv("VIBRO_TEST_KILL_AT", "3", 1);
  setenv("VIBRO_TEST_BATCH", "2", 1);
  setenv("VIBRO_NO_SKIP", "1", 1);
  setenv("VIBRO_TEST_LYAPUNOV_NOMEM", "1", 1);
  vb_test_control(VB_TEST_RESET, 0);
  /* a run and its Lyapunov twin allocate as without the variables */
  tu_sim s = tu_run_text(
      "scene = { name = \"osc\"; fs = 8000.0; duration = 0.05; gravity = 0.0; };\n"
      "bodies = ( { name = \"mass\"; type = \"mass\"; mass = 0.031; k = 41.3; u0 = 1e-3; },\n"
      "  { name = \"stop\"; type = \"wall\"; } );\n"
      "contacts = ( { name = \"far\"; between = [\"mass\", \"stop\"]; law = \"power\"; k = 1e6; "
      "alpha = 1.5; gap = 1.0; scheme = \"two-point\"; } );\n"
      "analysis = { lyapunov = { }; };\n");
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_test_hooks *h = vb_test_hooks_now();
  ck_assert_int_eq(h->kill_at, 0);
  ck_assert_int_eq(h->batch_scenes, 0);
  ck_assert_int_eq(h->no_skip, 0);
  ck_assert_int_eq(h->lyapunov_nomem, 0);
  tu_free(&s);
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("testctl");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_ops);
  tcase_add_test(core, test_no_environment);
  suite_add_tcase(s, core);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
