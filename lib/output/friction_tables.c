/* output/friction_tables.c - friction's columns of /study/table (issue
 * 30, doc/format.md): friction_work and stick_share, their value
 * (vb_get_friction: output/table.c lists them), from a run's phases.  The
 * phases' own table, /study/phases, is its observer row's (run/phases.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "run/run.h"
#include "output.h"

/* Contact c's friction work at the end (J) or share of steps sticking
 * (col->at 1); NaN for a contact without friction. */
void
vb_get_friction(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const double *v = col->at ? rv->stick_share : rv->friction_work;
  double x = v ? v[c] : NAN;

  (void)item;
  memcpy(out, &x, 8);
}
