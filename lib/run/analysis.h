/* analysis.h - the nonsmooth-dynamics layer of a scene (issue 20): the
 * `analysis` block as loaded (a stroboscopic section, an impact map, the
 * classification's settings), the section sampled during a run, the
 * impact map and the orbit found at its end (lib/run/analysis.c).  Not
 * installed; doc/format.md describes the tables, doc/scene-file.md the block. */
#ifndef VIBRO_ANALYSIS_H
#define VIBRO_ANALYSIS_H

#include "base/base.h"

/* One point of a section: a mass (point 0) or a named point of a modal
 * body. */
typedef struct vb_section_point {
  int body, point;                /* scene indices */
  char name[2 * VB_NAME_MAX + 2]; /* "oscillator", "plate.strike" */
} vb_section_point;

/* The `analysis` block of a scene, immutable after loading. */
typedef struct vb_analysis {
  int line; /* line of the block in the scene file */
  /* the stroboscopic section: the points' (u, v) at t_k = (k + phase/(2 pi)) T */
  int section;                      /* 1: a section is asked */
  char drive[3 * VB_NAME_MAX + 32]; /* the drive giving T ("forces.drive"), "" when
                                       `period` is given */
  double period;                    /* T, s */
  double drive_phase;               /* the drive's own phase at t = 0, rad (0 with `period`):
                                       an impact's phase is 2 pi t / T + drive_phase mod 2 pi */
  double phase;                     /* rad, in [0, 2 pi) */
  double transient_time;            /* s: sections and impact map start at the first
                                       t_k >= transient_time (transient periods * T) */
  int npoints;
  vb_section_point *points; /* [npoints] (owned) */
  /* the impact map */
  int map_contact; /* the contact whose impacts it lists, -1 for none */
  /* the classification (orbit.c) */
  int pmax;                   /* largest period tested, drive periods */
  double tolerance;           /* relative tolerance of a closed cycle; 0: from the
                                 run's impacts (vb_analysis_tolerance) */
  double attractor_tolerance; /* relative tolerance of one attractor across scenes;
                                 0: from the file's period tolerances */
  /* the largest Lyapunov exponent (lyapunov.c), on request */
  int lyapunov;        /* 1: asked */
  double perturbation; /* relative size of the twin's offset, 1; 0: from the
                          contacts' resolution (vb_lyapunov_perturbation) */
  long renormalise;    /* drive periods between renormalisations */
  double grazing;      /* impacts below this fraction of the median v_in are
                          flagged; 0: none is */
} vb_analysis;

/* Free an analysis block; NULL is a no-op. */
void vb_analysis_free(vb_analysis *a);


/* ------------------------------------------------------------- the run */

/* One row of an impact map. */
typedef struct vb_map_entry {
  double t;              /* onset, s */
  double v_in;           /* penetration rate entering, m/s */
  double phase;          /* the section's drive at onset, rad in [0, 2 pi) */
  double since_previous; /* s since the contact's previous impact, NaN for its first */
  int contact;           /* index of the contact */
  int grazing;           /* 1: v_in below the grazing fraction of the median */
} vb_map_entry;

/* What a run of a scene with an analysis block gathers: sized once by
 * vb_analysis_run_alloc, filled by vb_analysis_step and vb_analysis_finish. */
typedef struct vb_analysis_run {
  const vb_analysis *an;
  long cap;        /* section samples the duration allows */
  long ns;         /* section samples taken */
  long k0;         /* period index of the first sample */
  double tk;       /* time of the next sample, s */
  double *t;       /* [cap] sample times, s */
  double *u, *v;   /* [cap][npoints] m, m/s */
  double *prev;    /* [2 npoints] u, v at the previous step (valid when kept) */
  double *now;     /* [2 npoints] u, v now */
  double *scratch; /* [2 * most points of an island] */
  int *island;     /* [npoints] island of each point */
  int *row;        /* [npoints] its row among the island's points */
  long nmap;
  vb_map_entry *map;      /* [nmap] (allocated at the end) */
  vb_orbit orbit;         /* the section's class */
  int impacts_per_period; /* n impacts in orbit.period periods, -1 when unknown */
} vb_analysis_run;

/* Section samples a run to t_end (s) takes: the t_k = (k + phase / (2
 * pi)) T with transient_time <= t_k <= t_end (0 without a section); the
 * first k into *k0 (NULL: not wanted). */
long vb_analysis_samples(const vb_analysis *an, double t_end, long *k0);

/* The period tolerance a scene without `period.tolerance` gets, for
 * impacts resolved in a median of `steps` steps (0: no impact): 12 /
 * steps^2 within [1e-6, 0.1] (doc/analysis.md, "Default tolerances"). */
double vb_analysis_tolerance(double steps);
/* The attractor tolerance a study without `attractors.tolerance` gets:
 * twice the largest period tolerance of its periodic scenes, at least 1e-3. */
double vb_analysis_attractor_tolerance(double most_period_tolerance);

struct vb_run;
/* Size a run's analysis for its scene (run->analysis NULL without a
 * block); VB_OK or VB_ENOMEM. */
int vb_analysis_run_alloc(struct vb_run *run);
/* Free it; NULL is a no-op. */
void vb_analysis_run_free(vb_analysis_run *a);
/* Sample the section around step n (t = n dt), once the islands are at n
 * (n = 0: the start): cubic Hermite between the states at n - 1 and n,
 * from (u, v) at both, for each t_k in ((n-1) dt, n dt].  Computes the
 * points only at the steps next to a t_k; allocates nothing. */
void vb_analysis_step(struct vb_run *run, long n);
/* At the run's end: the impact map from the contact's events, the
 * section's class (vb_orbit_classify) and its impacts per period; VB_OK
 * or VB_ENOMEM. */
int vb_analysis_finish(struct vb_run *run);

/* The analysis of a run, or NULL when its scene has no block. */
const vb_analysis_run *vb_run_analysis(const struct vb_run *run);

/* The scales of a section x[n][d] (u, v of each point alternately) with
 * drive angular frequency omega (rad/s): for each point the largest
 * max(|u|, |v| / omega) over the section, s (m), into scale[2p] and
 * omega s (m/s) into scale[2p + 1]; 1 and omega where no value is finite
 * and nonzero.  One phase-plane size per point, so a coordinate that
 * passes near 0 at the section's phase is not judged on its own size. */
void vb_section_scale(const double *x, long n, int d, double omega, double *scale);

#endif
