/* orbit.h - the steady state of a scene from its sections (lib/base/orbit.c):
 * the period and class of a stroboscopic section, attractor ids across a
 * study, impacts per period and the grazing flag of an impact map.  Pure
 * functions, no I/O; lib/run/analysis.c calls them (doc/analysis.md states
 * each rule with its equations).  Not installed. */
#ifndef VIBRO_ORBIT_H
#define VIBRO_ORBIT_H

#include "vibro.h"

/* Codes of the study table's `orbit` column (its flag_values). */
enum { VB_ORBIT_NONE = 0, VB_ORBIT_UNSETTLED = 1, VB_ORBIT_PERIODIC = 2, VB_ORBIT_IRREGULAR = 3 };

/* Blocks the section's distances are cut into for the trend that tells a
 * transient from irregular motion, and the factor (1) by which their
 * maxima must fall (or rise) over those blocks to count as a trend (its
 * square root over each half of them). */
enum { VB_ORBIT_BLOCKS = 8 };
#define VB_ORBIT_TREND 2.0

/* A closing shift m stands for its divisor p when, at every place r of
 * the cycle, the section's points p apart come within this multiple (1)
 * of m's spread of each other at some pass of m's closure window: a split
 * the scatter does not resolve (doc/analysis.md eq A2b; measured: the
 * ball of examples/bouncing_ball_periods.py below its doubling at 64
 * steps a contact, an alternation of the scatter, at most 0.44; every
 * period-m orbit past a doubling of it and of scenes/impact-oscillator.cfg,
 * at least 3.1). */
#define VB_ORBIT_RESOLVE 1.0

/* A closing shift m = 2 whose split A2b resolves stands for period 1 all
 * the same when the section's points alternate like a decaying flip:
 * the least-squares multiplier mu of each place's deviations from its
 * mean (z_(k+1) = mu z_k, pooled over places and scaled coordinates) is
 * above -1 + VB_ORBIT_FLIP (doc/analysis.md eq A2c).  A stable period-p
 * orbit whose multiplier nears -1 keeps the discrete contact's scatter
 * alive as an alternation, which closes under 2p and not p, and may never
 * pass through its scatter (A2b); a true period-2p cycle alternates at
 * mu = -1.  Applied at p = 1 only (orbit.c says why).  Measured on the ball of examples/bouncing_ball_periods.py
 * (sections of 61 points): below its doubling Gamma_2 = 1.599, 1 + mu =
 * 0.0235 at Gamma 1.57 and 0.091 at 1.575 at 40 steps a contact (0.129
 * and 0.041 at 80; the exact map's multiplier at 1.57 is -0.881); past it
 * (1.61 .. 1.66), |1 + mu| <= 0.0018 (doc/analysis.md). */
#define VB_ORBIT_FLIP 0.01

/* The class of a section (vb_orbit_classify's answer). */
typedef struct vb_orbit {
  int cls;          /* VB_ORBIT_* */
  int period;       /* m, drive periods of the cycle; 0 unless periodic */
  double tolerance; /* relative tolerance used (1: scaled units) */
  double spread;    /* periodic: largest scaled |x_i - x_{i-m}| over the
                       closure window of m = period (above the tolerance
                       when a multiple of m closed and m's split was not
                       resolved, eq A2b); otherwise the smallest such figure
                       over the shifts tested (how far from closing); NaN
                       when no shift could be tested or a point is not
                       finite (1: scaled units) */
} vb_orbit;

/* Points (drive periods) of the closure window of shift m: the last
 * max(2 m, 8) points must each lie within the tolerance of the point m
 * before them, so the cycle is seen three times over (m >= 1). */
long vb_orbit_window(int m);

/* Points a section needs before it may be called irregular or unsettled
 * by the trend with shifts up to pmax: pmax + max(2 pmax, 2
 * VB_ORBIT_BLOCKS), the closure window of pmax and two points per block
 * of the trend (96 for pmax = 32, 17 for pmax = 1).  A shorter section is periodic when a
 * shift closes, else not settled, never a guess. */
long vb_orbit_needed(int pmax);

/* Classify a section x[n][d] (row-major, in time order; m and m/s):
 * scale[d] > 0 normalises each coordinate (NULL: 1); the smallest
 * m <= pmax whose shift closes the last vb_orbit_window(m) points within
 * tol is the period; with none, a monotone fall or rise of the shifted
 * distances' block maxima by VB_ORBIT_TREND over the section is a
 * transient (not settled) and anything else irregular (doc/analysis.md).
 * x == NULL or n == 0: VB_ORBIT_NONE. */
void vb_orbit_classify(const double *x, long n, int d, const double *scale, double tol, int pmax,
                       vb_orbit *out);

/* Attractor ids across scenes, deterministic in scene order: cycle[s] is
 * scene s's last period[s] points (d each), NULL when not periodic (id
 * -1).  Two cycles are one attractor when their periods agree and some
 * cyclic shift matches within tol (scaled by scale[d], NULL: 1); each
 * scene takes the id of the first attractor (in id order) whose first
 * scene it matches, else a new one.  Writes id[nscenes]; returns the
 * number of attractors, or VB_ENOMEM. */
long vb_orbit_attractors(const double *const *cycle, const int *period, long nscenes, int d,
                         const double *scale, double tol, long *id);

/* Impacts per cycle of a period-m section (n impacts in m drive periods):
 * of the impact onsets t_impact[nimpacts] (s, any order), those in K - 1
 * whole cycles of the closure window [t_section[ns - 1 - K m],
 * t_section[ns - 1]) (K = vb_orbit_window(m) / m >= 2), the cycles cut
 * at the phase farthest from every impact so that no impact sits on an
 * edge, divided by K - 1 and rounded.  -1 when m < 1, the section is
 * shorter than K m + 1 or memory runs out. */
int vb_orbit_impacts(const double *t_impact, long nimpacts, const double *t_section, long ns,
                     int m);

/* The median of v[n] (sorted here in place: the two middle values'
 * mean when n is even); NaN when n is 0. */
double vb_orbit_median(double *v, long n);

/* The grazing flag of an impact map: flag[i] = 1 when |v_in[i]| (m/s) is
 * below fraction times the median |v_in| of the n impacts (non-finite
 * speeds are left out of the median and never flagged).  The median into
 * *median (NaN with no finite speed; may be NULL).  VB_OK or VB_ENOMEM. */
int vb_orbit_grazing(const double *v_in, long n, double fraction, int *flag, double *median);

#endif
