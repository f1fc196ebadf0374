/* testctl.c - test control, after SQLite's sqlite3_test_control: the
 * hooks a test sets in a process before it runs anything, so that the
 * suites can stop a writer at a chosen write point, force small shards,
 * record in place, fail an allocation or step every contact.  The library
 * never reads the environment for them: the vibro program reads
 * VIBRO_TEST_* and VIBRO_NO_SKIP once, at its start (tools/testenv.c), and
 * the C suites call vb_test_control.  They count write points, size
 * batches and choose between equal code paths; none changes a result
 * but friction_newton_cap, which makes the friction solve's Newton fail
 * for the tests of its report (solvers/friction_solve.c).
 *
 * The settings are the process's (set before any run or output starts,
 * read when one does): the one mutable state of the library, kept for
 * the tests alone. */
#include <signal.h>
#include <stddef.h>

#include "base.h"

static vb_test_hooks hooks = {.kill_sig = SIGKILL, .writer_thread = -1, .lowrank = -1};

/* Set one test hook of the process. */
int
vb_test_control(vb_test_op op, double value)
{
  switch (op) {
  case VB_TEST_RESET:
    hooks = (vb_test_hooks){.kill_sig = SIGKILL, .writer_thread = -1, .lowrank = -1};
    return VB_OK;
  case VB_TEST_KILL_AT:
    hooks.kill_at = (long)value;
    return VB_OK;
  case VB_TEST_KILL_SIG:
    hooks.kill_sig = value > 0 ? (int)value : SIGKILL;
    return VB_OK;
  case VB_TEST_BATCH:
    hooks.batch_scenes = (long)value;
    return VB_OK;
  case VB_TEST_BATCH_SECONDS:
    hooks.batch_seconds = value;
    return VB_OK;
  case VB_TEST_MAP_BYTES:
    hooks.map_bytes = value;
    return VB_OK;
  case VB_TEST_WRITER_THREAD:
    hooks.writer_thread = value < 0 ? -1 : value != 0;
    return VB_OK;
  case VB_TEST_LYAPUNOV_NOMEM:
    hooks.lyapunov_nomem = value != 0;
    return VB_OK;
  case VB_TEST_NO_SKIP:
    hooks.no_skip = value != 0;
    return VB_OK;
  case VB_TEST_NO_GLOBAL:
    hooks.no_global = value != 0;
    return VB_OK;
  case VB_TEST_NO_SEARCH_SKIP:
    hooks.no_search_skip = value != 0;
    return VB_OK;
  case VB_TEST_LOWRANK:
    hooks.lowrank = value < 0 ? -1 : value != 0;
    return VB_OK;
  case VB_TEST_NO_ONE_ROW:
    hooks.no_one_row = value != 0;
    return VB_OK;
  case VB_TEST_FRICTION_NEWTON_CAP:
    hooks.friction_newton_cap = value > 0 ? (int)value : 0;
    return VB_OK;
  }
  return VB_EINVAL;
}

/* The process's test hooks. */
const vb_test_hooks *
vb_test_hooks_now(void)
{
  return &hooks;
}

/* A copy of the process's test hooks. */
void
vb_test_hooks_read(vb_test_hooks *h)
{
  *h = hooks;
}
