/* output/friction_tables.c - friction's part of the tables (issue 30,
 * doc/format.md): the /study/table columns friction_work and stick_share
 * (their value, vb_get_friction: output/table.c lists them), and the
 * columns, rows and items of /study/phases (output/analysis.c's
 * vb_xtables lists it), from a run's phases (lib/run/phases.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "run/run.h"
#include "output.h"

/* Whether scene 0 has a contact with friction (issue 30): the phases'
 * table and the friction columns. */
int
vb_has_friction(const vb_scene *first)
{
  for (int c = 0; c < first->ncontacts; c++)
    if (first->contacts[c].friction.kind != VB_FRICTION_NONE)
      return 1;
  return 0;
}

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

long
vb_phase_rows(const vb_run_view *rv)
{
  return rv->nphases;
}

const void *
vb_phase_item(const vb_run_view *rv, long r, long *buf)
{
  (void)buf;
  return &rv->phases[r];
}

#define PHASE_F64(n, u)                                                                            \
  {.name = #n, .units = u, .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = vb_column_member,     \
   .at = offsetof(vb_phase, n)}

/* The stick and slip phases: one row per phase of every scene (vb_phase),
 * each contact's in time order. */
const vb_column vb_phase_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "contact", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32,
     .get = vb_column_member, .at = offsetof(vb_phase, contact)},
    {.name = "stick", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I32,
     .get = vb_column_member, .at = offsetof(vb_phase, stick), .flag_meanings = "slip stick"},
    PHASE_F64(t_on, "s"),
    PHASE_F64(t_off, "s"),
    PHASE_F64(duration, "s"),
    PHASE_F64(mean_slip, "m/s"),
    PHASE_F64(friction_work, "J"),
    {.name = "steps", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64,
     .get = vb_column_member, .at = offsetof(vb_phase, steps)},
    {.name = NULL},
};

