/* internal.h - declarations shared inside libvibro, not installed. */
#ifndef VIBRO_INTERNAL_H
#define VIBRO_INTERNAL_H

#include "vibro.h"

/* ------------------------------------------------------------- Newton */

/* Scalar residual r(y) and its derivative, for vb_newton_solve. */
typedef double (*vb_residual_fn)(double y, void *data, double *dr);

/* Solve r(y) = 0 by Newton's method from y0, safeguarded by bisection
 * inside [lo, hi] once a sign change is known.  Converged when the update
 * is below tol * max(|y|, scale).  Stores the iterate in *y and the count
 * in *iterations; VB_OK or VB_ENOCONV after max_iter iterations. */
int vb_newton_solve(vb_residual_fn r, void *data, double y0, double scale,
                    double tol, int max_iter, double *y, int *iterations);

/* ---------------------------------------------------------------- laws */

/* Damping coefficient d (N s/m) of a law whose elastic force is fe: the
 * damping force is d times the compression rate (Hunt-Crossley: mu fe;
 * spring: c; 0 otherwise). */
double vb_law_damping(const vb_law *law, double fe);

/* Slope of the damping coefficient with the elastic force (mu for
 * Hunt-Crossley, 0 otherwise). */
double vb_law_damping_slope(const vb_law *law);

/* Power of the law's damping term, d v^2, W. */
double vb_law_damping_power(const vb_law *law, double x, double v);

/* True if the law can exert a force at compression x (one-sided laws only
 * when penetrating; polynomial and spring always). */
int vb_law_engaged(const vb_law *law, double x);

/* ------------------------------------------------------------- drivers */

/* Prescribed displacement of a drive at time t, m, and its rate in *rate. */
double vb_drive_eval(const vb_drive *d, double t, double *rate);
/* Set up seeded band-limited noise: ncomp cosines of random frequency in
 * (0, freq] and random phase, rms `amplitude`; allocates the components. */
int vb_drive_noise_setup(vb_drive *d, long ncomp);

/* -------------------------------------------------------------- bodies */

/* Allocate a body's modal arrays (freq, sigma, modal_mass, q0, dq0,
 * gravity) and npoints points with their shapes, zeroed. */
int vb_body_alloc_modes(vb_body *b, int nmodes, int npoints);
/* Free a body's modal arrays and points. */
void vb_body_clear_modes(vb_body *b);
/* Free everything a body owns (modes, points, drive data). */
void vb_body_clear(vb_body *b);
/* Fill a mass's one mode from mass, k, c, u0 and v0. */
int vb_body_mass_modes(vb_body *b);

/* ------------------------------------------------------------- islands */

/* One island: the bodies joined by contacts, with their modes laid out
 * contiguously (structure of arrays), stepped by one family.  Built once
 * per run; the step allocates nothing. */
typedef struct vb_island {
  const vb_scene *scene;
  vb_family family;
  const vb_scheme *explicit_scheme; /* explicit family: the scheme */
  double dt;
  double time;        /* t of the state, s */
  int nm;             /* modes */
  int nc;             /* contacts */
  int *contacts;      /* [nc] scene contact indices */
  int nb;             /* bodies */
  int *bodies;        /* [nb] scene body indices */
  int *offsets;       /* [nb] island index of each body's first mode */
  /* modes [nm] */
  double *q, *v, *qm; /* state: q^n, v^n (two-level, explicit), q^(n-1) (three-level) */
  double *acc;        /* explicit: stored acceleration at n, m/s^2 */
  double *mass;       /* modal mass, kg */
  double *w2;         /* omega^2 used by the family (warped), 1/s^2 */
  double *sig;        /* sigma used by the family (warped), 1/s */
  double *ca, *cb, *cc; /* family update coefficients (see island.c) */
  double *gconst;     /* constant generalised force (gravity), N */
  double *gen;        /* scratch: generalised force of the step, N */
  double *qt;         /* scratch: predicted q without contact forces */
  double *scratch;    /* scratch for explicit stages [6 * nm] */
  /* contacts [nc] */
  double *S;          /* [nc][nm] compression per unit modal displacement */
  double *K;          /* [nc][nc] compliance of the step, m/N */
  double *xdrv;       /* compression from walls and gap at n, m */
  double *xdrv_rate;  /* its rate at n, m/s */
  double *xdrv_m;     /* three-level: at n-1, m */
  double *power;      /* explicit: [2] dissipated and external power at n, W */
  vb_chist *hist;     /* contact histories */
  double *fbar;       /* step forces, N */
  double *xt;         /* scratch: predicted compressions */
  double *x1;         /* scratch: new compressions */
  double *jac;        /* scratch: [nc][nc] Newton matrix */
  double *rhs;        /* scratch: [nc] */
  int *piv;           /* scratch: [nc] */
  double *meff;       /* effective mass along each contact, kg */
  double *aext;       /* free-flight acceleration of each compression, m/s^2 */
  int *iterations;    /* Newton iterations of the last step per contact */
  int *fallback;      /* quadratic fall-back in the last step per contact */
  /* forces [nforces of the scene acting on this island] */
  int nf;
  int *forces;        /* scene force indices */
  int *force_mode;    /* first island mode of the force's body */
  /* energy of the island at n (the family's discrete definition), J */
  double kinetic, potential;
  double dissipated;  /* running, J */
  double external;    /* running work of forces, gravity and drivers, J */
  long newton_failures;
} vb_island;

/* Build the islands of a scene for time step dt.  *out receives an array
 * of *n islands (free with vb_islands_free).  VB_EINVAL with a message
 * when a mode cannot be stepped (above Nyquist, beyond an explicit
 * scheme's stability limit). */
int vb_islands_build(const vb_scene *sc, double dt, vb_island **out, int *n,
                     char *err, size_t errlen);
/* Free islands; NULL is a no-op. */
void vb_islands_free(vb_island *is, int n);
/* Set the state at t = 0 and the energy at n = 0. */
void vb_island_start(vb_island *is);
/* Advance an island from step n to n + 1.  VB_OK, VB_ENOCONV (Newton hit
 * its cap in some contact; the step is still taken), VB_EDIVERGED. */
int vb_island_step(vb_island *is, long n);
/* Island mode index of the first mode of scene body b, or -1. */
int vb_island_body_offset(const vb_island *is, int b);

/* Helpers for the explicit schemes. */

/* Generalised force on every mode at time t from gravity and forces, into
 * gen[nm], N. */
void vb_island_external(vb_island *is, double t, double *gen);
/* Contact compressions and rates of a modal state (q, v) at time t. */
void vb_island_compressions(const vb_island *is, const double *q, const double *v,
                            double t, double *x, double *rate);
/* Accelerations of every mode for state (q, v), contact forces f[nc] and
 * external generalised force ext[nm]: into a[nm]. */
void vb_island_accel(const vb_island *is, const double *q, const double *v,
                     const double *f, const double *ext, double *a);

#endif
