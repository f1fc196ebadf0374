/* internal.h - declarations shared inside libvibro, not installed. */
#ifndef VIBRO_INTERNAL_H
#define VIBRO_INTERNAL_H

#include "vibro.h"

/* ------------------------------------------------------------- status */

/* The library's one message helper: format a message into err[errlen]
 * (truncated safely; nothing when err is NULL or errlen is 0) and return
 * `status`, so that callers write
 *   return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory ...", path); */
int vb_errf(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Shortest decimal text of a double that reads back to the same value
 * (lib/source.c); returns buf. */
const char *vb_number_text(double x, char *buf, size_t size);

/* Most bytes of a scene or study file (and each file it includes), and of
 * a data file (profile, CSV modes file). */
#define VB_TEXT_MAX ((size_t)64 << 20)
#define VB_DATA_MAX ((size_t)256 << 20)

/* Whole content of a file, NUL-terminated; the caller frees it; *len
 * receives the number of bytes read.  Reading stops after the first NUL
 * byte (binary content: strlen(text) < *len tells the caller), so a
 * device such as /dev/zero cannot hang it.  NULL with errno set when it
 * cannot be read, EFBIG when it holds more than max bytes (lib/source.c). */
char *vb_read_text(const char *path, size_t max, size_t *len);

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

/* The law as it acts during an impact that began with penetration rate
 * v_in > 0 (m/s): a copy of *law whose impact-dependent parameters (the
 * damping of laws set by a coefficient of restitution) are set from v_in.
 * The stepping code calls it at each impact onset and steps the impact
 * with *active. */
void vb_law_at_onset(const vb_law *law, double v_in, vb_law *active);

/* ------------------------------------------------------------- drivers */

/* Prescribed displacement of a drive at time t, m, and its rate in *rate. */
double vb_drive_eval(const vb_drive *d, double t, double *rate);
/* Set up seeded band-limited noise: ncomp cosines of random frequency in
 * (0, freq] and random phase, rms `amplitude`; allocates the components. */
int vb_drive_noise_setup(vb_drive *d, long ncomp);

/* The force a three-level scheme holds at n+1: the law at x1 with the rate
 * of the step into it. */
double vb_three_level_held_force(const vb_contact *ct, const vb_chist *h, double dt,
                                 double x1, double fbar);

/* -------------------------------------------------------------- bodies */

/* Allocate a body's modal arrays (freq, sigma, modal_mass, q0, dq0,
 * gravity) and npoints points with their shapes, zeroed. */
int vb_body_alloc_modes(vb_body *b, int nmodes, int npoints);
/* Free a body's modal arrays and points. */
void vb_body_clear_modes(vb_body *b);
/* Free the data a drive owns (profile samples, noise components). */
void vb_drive_clear(vb_drive *d);
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
  int nmp;            /* modes padded to a multiple of 8 (zeros beyond nm):
                         the stride of every per-mode row */
  int nc;             /* contacts */
  int *contacts;      /* [nc] scene contact indices */
  vb_law *law0;       /* [nc] each contact's law as compiled (exact_duration
                         sets the stiffness to its beta* value) */
  vb_contact *cts;    /* [nc] the contacts as stepped, each with its active
                         law: vb_law_at_onset of law0 at the impact's onset */
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
  double *dcoef;      /* per-mode dissipation coefficient of a step */
  double *mw2;        /* modal mass times omega^2 */
  double *gconst;     /* constant generalised force (gravity), N */
  double *gen;        /* scratch: generalised force of the step, N */
  double *qt;         /* scratch: predicted q without contact forces */
  int ahead;          /* qt already holds the next step's prediction */
  int has_gen;        /* some mode has a generalised force (gravity, forces) */
  double ahead_dot;   /* and, with one contact, its dot with S */
  double *scratch;    /* scratch for explicit stages [6 * nm] */
  /* contacts [nc] */
  double *S;          /* [nc][nm] compression per unit modal displacement */
  double *K;          /* [nc][nc] compliance of the step, m/N */
  double *xdrv;       /* compression from walls and gap at n, m */
  double *xdrv_rate;  /* its rate at n, m/s */
  double *xdrv_m;     /* three-level: at n-1, m */
  double *power;      /* explicit: [2] dissipated and external power at n, W */
  double *xd_next;    /* scratch: walls and gap at n+1, m */
  double *rd_next;    /* scratch: their rate at n+1, m/s */
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
  /* recorded points of the island's bodies [npts] */
  int npts;
  double *P;          /* [npts][nmp] displacement per unit modal displacement */
  int *point_first;   /* [nb] row of each body's first recorded point */
  int *point_from, *point_to; /* [npts] the row's nonzero modes, in blocks of 8 */
  /* energy of the island at n (the family's discrete definition), J */
  double kinetic, potential;
  double dissipated;  /* running, J */
  double corrected;   /* running energy added by corrections, J */
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
/* Whether the island's contact states, forces and energies are all
 * finite (a non-finite mode shows in the energies).  A few operations per
 * contact: called every step. */
int vb_island_finite(const vb_island *is);
/* Name the island's first non-finite quantity in what[len], e.g.
 * "contact 'hit': force is inf" or "body 'ball': mode 0 velocity is nan"
 * (with solve_failed, after the step's solve gave VB_EDIVERGED, also its
 * iterates); 0 if there is none. */
int vb_island_nonfinite(const vb_island *is, int solve_failed, char *what, size_t len);
/* The part of contact ct's compression that no mode carries (walls and
 * gap, with their drives) at time t, m, and its rate in *rate, m/s. */
double vb_contact_drive(const vb_scene *sc, const vb_contact *ct, double t, double *rate);
/* Whether a wall of contact ct or its gap is driven. */
int vb_contact_driven(const vb_scene *sc, const vb_contact *ct);
/* Island mode index of the first mode of scene body b, or -1. */
int vb_island_body_offset(const vb_island *is, int b);
/* Displacement u[npts] and velocity v[npts] of every recorded point (three-
 * level: the rate of the step into the sample). */
void vb_island_points(const vb_island *is, double *u, double *v);
/* Row of point p of scene body b among the island's recorded points. */
int vb_island_point_row(const vb_island *is, int b, int p);

/* Move contact c of an island by dx in compression and dv in rate at the
 * current step, sharing the change between its bodies by their compliance
 * (a mass against a wall moves alone), and return the energy it added, J
 * (Papetti 4.2 corrections).  Two-level and explicit families only. */
double vb_island_correct(vb_island *is, int c, double dx, double dv);

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

/* ------------------------------------------------------------- presets */

/* Geometry and material of a modal body computed by a preset
 * (lib/presets.c; conventions in its header comment).  Each kind uses
 * only its own fields and ignores the others. */
typedef struct vb_preset {
  const char *kind;        /* "bar", "string", "plate", "membrane" */
  int nmodes;              /* how many modes, lowest frequencies first */
  double length, width, thickness; /* bar: length L, section width b x thickness h;
                              plate: lx = length, ly = width, thickness h; m */
  double youngs, density, poisson; /* E (Pa), rho (kg/m^3), nu (plate) */
  double tension;          /* string: N; membrane: N/m */
  double linear_density;   /* string: kg/m */
  double surface_density;  /* membrane: kg/m^2 */
  double radius;           /* membrane: m */
} vb_preset;

/* Fill a modal body's modes from a preset: allocates nmodes modes and
 * npoints points (vb_body_alloc_modes), copies the names and positions
 * px[i], py[i] (m; py may be NULL: y = 0; bar and string use x along the
 * body from 0 to L, plate (x, y) from the corner, membrane (x, y) from
 * the centre) and computes freq, modal_mass, gravity and the shapes;
 * sigma, q0 and dq0 stay 0.  VB_EINVAL with a one-line message
 * "preset 'bar': ..." (no file or body prefix) on an unknown kind, nmodes
 * outside 1..100000, a parameter <= 0 (poisson outside (-1, 0.5)) or a
 * point off the body; VB_ENOMEM.  The body is left without modes on error. */
int vb_preset_fill(vb_body *b, const vb_preset *p, int npoints, const double *px,
                   const double *py, const char *const *names, char *err, size_t errlen);
/* Comma-separated list of preset kinds, for messages. */
const char *vb_preset_choices(void);

/* Read a body's modes from a file of measured or FEM modal data: CSV, or
 * HDF5 when the name ends in .h5 or .hdf5 (formats in lib/presets.c).
 * Fills freq, sigma (ln(1000)/t60, 0 when undamped), modal_mass,
 * gravity (default 1 for 0 Hz modes, 0 otherwise) and the named points'
 * shapes; positions and q0, dq0 stay 0.  VB_EIO (cannot read) or
 * VB_EINVAL with "path:line: message" (CSV) or "path: message" (HDF5);
 * the body is left without modes on error. */
int vb_modes_file_read(vb_body *b, const char *path, char *err, size_t errlen);

#endif
