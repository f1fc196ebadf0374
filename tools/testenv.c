/* testenv.c - the test suites' environment (doc/format.md, "Test hooks"),
 * read by the program, never by the library: each VIBRO_TEST_* variable
 * and VIBRO_NO_SKIP that is set becomes a vb_test_control call, once, at
 * the program's start. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli.h"

/* Hand the test suites' variables to the library's test control. */
void
cli_test_environment(void)
{
  static const struct {
    const char *name;
    vb_test_op op;
  } vars[] = {
      {"VIBRO_TEST_KILL_AT", VB_TEST_KILL_AT},
      {"VIBRO_TEST_KILL_SIG", VB_TEST_KILL_SIG},
      {"VIBRO_TEST_BATCH", VB_TEST_BATCH},
      {"VIBRO_TEST_BATCH_SECONDS", VB_TEST_BATCH_SECONDS},
      {"VIBRO_TEST_MAP_BYTES", VB_TEST_MAP_BYTES},
      {"VIBRO_TEST_FRICTION_NEWTON_CAP", VB_TEST_FRICTION_NEWTON_CAP},
  };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i].name);
    if (v)
      vb_test_control(vars[i].op, atof(v));
  }
  /* set and not empty: 1 a thread of its own, 0 never */
  const char *thread = getenv("VIBRO_TEST_WRITER_THREAD");
  if (thread && *thread)
    vb_test_control(VB_TEST_WRITER_THREAD, atoi(thread) != 0);
  /* set at all: the Lyapunov twin's allocation fails */
  if (getenv("VIBRO_TEST_LYAPUNOV_NOMEM"))
    vb_test_control(VB_TEST_LYAPUNOV_NOMEM, 1);
  /* set and not empty: 1 every island that can keeps no dense compliance
   * (solvers/lowrank.c), 0 none */
  const char *lowrank = getenv("VIBRO_TEST_LOWRANK");
  if (lowrank && *lowrank)
    vb_test_control(VB_TEST_LOWRANK, atoi(lowrank) != 0);
  /* set, not empty and not "0": no island steps its modes along w as one
   * row (island/friction.c's one_row), each point along w summed alone */
  const char *row = getenv("VIBRO_TEST_NO_ONE_ROW");
  if (row && *row && strcmp(row, "0") != 0)
    vb_test_control(VB_TEST_NO_ONE_ROW, 1);
  /* set, not empty and not "0": every contact is stepped, none skipped */
  const char *off = getenv("VIBRO_NO_SKIP");
  if (off && *off && strcmp(off, "0") != 0)
    vb_test_control(VB_TEST_NO_SKIP, 1);
}
