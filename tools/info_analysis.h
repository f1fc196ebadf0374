/* info_analysis.h - vibro info's summary of the analysis columns of
 * /study/table and the tables /study/sections and /study/impact_map
 * (doc/format.md, issue 20). */
#ifndef VIBRO_INFO_ANALYSIS_H
#define VIBRO_INFO_ANALYSIS_H

#include "h5read.h"

#define ANALYSIS_PERIODS 1025 /* periods counted one by one (analysis.period.max <= 1024) */

/* What the rows of a study say about its orbits. */
typedef struct analysis_summary {
  int present;                   /* the table has an `orbit` column */
  long cls[4];                   /* scenes of each orbit code: no_section, not_settled,
                                    periodic, irregular */
  long other;                    /* scenes with another code */
  long period[ANALYSIS_PERIODS]; /* periodic scenes of each period */
  long attractors;               /* largest attractor id + 1 */
  long sections, impacts;        /* rows of /study/sections and /study/impact_map */
} analysis_summary;

/* Count one table row. */
void analysis_add(const rows_reader *r, const unsigned char *row, analysis_summary *a);
/* Count the rows of the analysis tables of an open file. */
void analysis_add_file(hid_t fid, analysis_summary *a);
/* The analysis of one scene ("  orbit: periodic, period 2, 2 impacts per period,
 * attractor 3"), nothing without the columns. */
void analysis_print_scene(const rows_reader *r, const unsigned char *row);
/* The summary: counts per orbit class and period, attractors, the tables'
 * rows; nothing without the columns. */
void analysis_print(const analysis_summary *a);

#endif
