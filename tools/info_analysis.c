/* info_analysis.c - vibro info's summary of a study's analysis (issue 20):
 * how many scenes of each orbit class and period, how many attractors,
 * and the rows of /study/sections and /study/impact_map. */
#include <math.h>
#include <stdio.h>

#include "info_analysis.h"

/* The orbit codes' names (the `orbit` column's flag_meanings). */
static const char *const class_names[4] = {"no section", "not settled", "periodic", "irregular"};

void
analysis_add(const rows_reader *r, const unsigned char *row, analysis_summary *a)
{
  double cls = rows_number(r, row, rows_column(r, "orbit"));
  double m = rows_number(r, row, rows_column(r, "period"));
  double id = rows_number(r, row, rows_column(r, "attractor"));

  if (rows_column(r, "orbit") < 0)
    return;
  a->present = 1;
  if (cls >= 0 && cls <= 3 && cls == floor(cls))
    a->cls[(int)cls]++;
  else
    a->other++;
  if (cls == 2 && m >= 1 && m < ANALYSIS_PERIODS)
    a->period[(int)m]++;
  if (isfinite(id) && id + 1 > a->attractors)
    a->attractors = (long)id + 1;
}

void
analysis_add_file(hid_t fid, analysis_summary *a)
{
  long n = has_object(fid, "study/sections") ? dataset_rows(fid, "study/sections/scene") : 0;
  long m = has_object(fid, "study/impact_map") ? dataset_rows(fid, "study/impact_map/scene") : 0;

  a->sections += n > 0 ? n : 0;
  a->impacts += m > 0 ? m : 0;
}

void
analysis_print_scene(const rows_reader *r, const unsigned char *row)
{
  double cls = rows_number(r, row, rows_column(r, "orbit"));
  double m = rows_number(r, row, rows_column(r, "period"));
  double n = rows_number(r, row, rows_column(r, "impacts_per_period"));
  double id = rows_number(r, row, rows_column(r, "attractor"));
  double ns = rows_number(r, row, rows_column(r, "sections"));

  if (rows_column(r, "orbit") < 0)
    return;
  printf("  orbit: %s", cls >= 0 && cls <= 3 && cls == floor(cls) ? class_names[(int)cls] : "?");
  if (cls == 2)
    printf(", period %.0f, %.0f impact%s per period, attractor %.0f", m, n, n == 1 ? "" : "s", id);
  printf(" (%.0f section samples, tolerance %g)\n", ns,
         rows_number(r, row, rows_column(r, "orbit_tolerance")));
}

void
analysis_print(const analysis_summary *a)
{
  long periodic = a->cls[2];

  if (!a->present)
    return;
  printf("analysis: %ld periodic", periodic);
  if (periodic > 0) {
    const char *sep = " (";
    for (int m = 1; m < ANALYSIS_PERIODS; m++)
      if (a->period[m] > 0) {
        printf("%speriod %d: %ld", sep, m, a->period[m]);
        sep = ", ";
      }
    printf(")");
  }
  printf(", %ld irregular, %ld not settled, %ld without a section", a->cls[3], a->cls[1],
         a->cls[0]);
  if (a->other > 0)
    printf(", %ld of unknown class", a->other);
  printf("; %ld attractor%s\n", a->attractors, a->attractors == 1 ? "" : "s");
  printf("analysis tables: %ld section sample%s in /study/sections, %ld impact%s in "
         "/study/impact_map\n",
         a->sections, a->sections == 1 ? "" : "s", a->impacts, a->impacts == 1 ? "" : "s");
}
