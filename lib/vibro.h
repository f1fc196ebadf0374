/* vibro.h - public interface of libvibro, a vibro-impact simulation library.
 *
 * Papers cited as: Chatziioannou (Chatziioannou & van Walstijn, ISMA 2017),
 * Papetti (Papetti, Avanzini & Rocchesso), Avanzini (Avanzini & Rocchesso,
 * contact time and spectral centroid), Ducceschi (non-iterative scheme).
 * Equation numbers are the papers' own.
 *
 * Conventions: SI units throughout.  A contact joins bodies A and B; its
 * compression is x = u_A - u_B - gap (positive = interpenetration); the
 * contact force f > 0 pushes A towards -u and B towards +u.  Gravity acts
 * along -u. */
#ifndef VIBRO_H
#define VIBRO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VB_NAME_MAX 64

/* Status codes returned by library functions; vb_strerror() gives the text. */
enum {
  VB_OK = 0,
  VB_EINVAL = -1,     /* invalid input (scene file, argument) */
  VB_ENOMEM = -2,     /* allocation failed or would not fit */
  VB_ENOCONV = -3,    /* Newton did not converge within its cap */
  VB_EIO = -4,        /* file could not be read or written */
  VB_EDIVERGED = -5,  /* the state became non-finite */
  VB_EDISCRIM = -6    /* quadratic scheme: negative discriminant */
};

/* Message text for a status code (static storage, never NULL). */
const char *vb_strerror(int status);

/* Version string of the library, e.g. "0.1.0". */
const char *vb_version(void);

/* ------------------------------------------------------------------ laws */

/* Contact laws. */
typedef enum {
  VB_LAW_POWER = 0,     /* V = k/(a+1) [x]^(a+1)   (Chatziioannou eq 2) */
  VB_LAW_HUNT_CROSSLEY, /* f = k [x]^a (1 + mu x') (Papetti eq 1) */
  VB_LAW_RATTLE,        /* V = k/(a+1) [|x|-h]^(a+1) (Ducceschi eq 3c) */
  VB_LAW_POLYNOMIAL,    /* V = k/(a+1) x^(a+1), a odd (Ducceschi eq 3a) */
  VB_LAW_COUNT
} vb_law_kind;

/* Parameters of one contact law. */
typedef struct vb_law {
  vb_law_kind kind;
  double k;     /* stiffness, N/m^alpha */
  double alpha; /* exponent, dimensionless */
  double mu;    /* Hunt-Crossley damping, s/m (0 for the other laws) */
  double h;     /* rattle half-clearance, m (0 for the other laws) */
} vb_law;

/* Resolve a law name ("power", ...); VB_EINVAL if unknown. */
int vb_law_lookup(const char *name, vb_law_kind *kind);
/* Name of a law kind. */
const char *vb_law_name(vb_law_kind kind);
/* Comma-separated list of valid law names, for messages. */
const char *vb_law_choices(void);

/* Penetration: the argument of the positive part, > 0 means in contact:
 * x for power and Hunt-Crossley, |x| - h for rattle, +inf for polynomial
 * (always engaged). m. */
double vb_law_penetration(const vb_law *law, double x);
/* Elastic potential V(x), J. */
double vb_law_potential(const vb_law *law, double x);
/* Elastic force V'(x), N. */
double vb_law_elastic(const vb_law *law, double x);
/* Elastic stiffness V''(x), N/m. */
double vb_law_curvature(const vb_law *law, double x);
/* Discrete gradient (V(x1) - V(x0)) / (x1 - x0), N; V' at the midpoint
 * where x1 and x0 are too close for the quotient to be accurate. */
double vb_law_gradient(const vb_law *law, double x1, double x0);
/* Derivative of vb_law_gradient with respect to x1, N/m. */
double vb_law_gradient_dx1(const vb_law *law, double x1, double x0);
/* Total force V'(x) (1 + mu v) for compression x and rate v, N. */
double vb_law_force(const vb_law *law, double x, double v);

/* ------------------------------------------------------- analytic results */

/* Papetti eq 4 (and its mu = 0 limit): maximum compression of a mass m
 * hitting a rigid wall at v_in > 0 through the Hunt-Crossley law. m. */
double vb_hc_x_max(double m, double k, double alpha, double mu, double v_in);
/* Papetti eq 7-8: closed-form approximation of v_out (< 0), m/s. */
double vb_hc_v_out_approx(double mu, double v_in);
/* Papetti eq 6: exact v_out (< 0) as the root of the implicit equation;
 * -v_in for mu = 0.  m/s. */
double vb_hc_v_out_exact(double mu, double v_in);
/* Papetti eq 9 (= Avanzini eq 12): contact time, with the endpoint
 * singularities integrated exactly; the mu = 0 limit in closed form. s. */
double vb_hc_contact_time(double m, double k, double alpha, double mu, double v_in);

/* Analytic predictions of one impact against a rigid wall. */
typedef struct vb_prediction {
  double x_max;       /* maximum penetration, m */
  double v_out;       /* eq 7-8 exit rate, m/s */
  double v_out_exact; /* eq 6 exit rate, m/s */
  double duration;    /* eq 9 contact time, s */
} vb_prediction;

/* Predictions for a law, effective mass m (kg) and entry rate v_in (m/s);
 * NaN in every field where the law has none (polynomial). */
void vb_law_predict(const vb_law *law, double m, double v_in, vb_prediction *out);

/* --------------------------------------------------------------- schemes */

/* Scheme families: how the bodies of an island are stepped. */
typedef enum {
  VB_FAMILY_TWO_LEVEL = 0, /* implicit, state (x, v): two-point, am1 */
  VB_FAMILY_THREE_LEVEL,   /* state (x^n, x^(n-1)): three-point, quadratic */
  VB_FAMILY_EXPLICIT       /* one-step explicit: verlet, heun, rk4 */
} vb_family;

/* One contact reduced to its compression coordinate: what a scheme needs
 * for a step.  Immutable during a run. */
typedef struct vb_step_ctx {
  const vb_law *law;
  double m;        /* effective mass along the contact, kg */
  double a_ext;    /* constant external acceleration of x (gravity), m/s^2 */
  double dt;       /* time step, s */
  double s;        /* quadratic scheme parameter (Ducceschi eq 5) */
  double tol;      /* Newton relative tolerance */
  int max_iter;    /* Newton iteration cap */
} vb_step_ctx;

/* Mutable state of one contact coordinate. */
typedef struct vb_cstate {
  double x;          /* compression at step n, m */
  double v;          /* compression rate at n, m/s (three-level: (x - x_prev)/dt) */
  double x_prev;     /* compression at n-1, m (three-level only) */
  double f;          /* contact force held at n (what the scheme reuses), N */
  double dissipated; /* running energy dissipated by the law's damping, J */
  int iterations;    /* Newton iterations of the last step */
  int failed;        /* 1 if the last step's Newton hit its cap */
  int fallback;      /* 1 if the last quadratic step fell back to eq 23 */
  long fallbacks;    /* fallbacks so far */
  long failures;     /* Newton failures so far */
} vb_cstate;

/* A numerical scheme: one const instance per file in solvers/. */
typedef struct vb_scheme {
  const char *name;      /* scene-file name, e.g. "two-point" */
  const char *doc;       /* one line with the paper and equation */
  vb_family family;
  int order;             /* claimed order of accuracy for smooth laws */
  int min_contact_steps; /* shortest contact it resolves (Papetti 3.3.2, Chatziioannou 2.1) */
  int energy_conserving; /* 1 if a lossless contact keeps its discrete energy */
  /* Set the state at n = 0 from x(0) and x'(0). */
  void (*init)(const vb_step_ctx *ctx, vb_cstate *st, double x0, double v0);
  /* Advance one step; VB_OK, VB_ENOCONV (state still advanced with the
   * last iterate) or VB_EDIVERGED. */
  int (*step)(const vb_step_ctx *ctx, vb_cstate *st);
  /* The scheme's discrete energy at n: kinetic, elastic potential and the
   * displacement xbar at which the external (gravity) potential is taken. */
  void (*energy)(const vb_step_ctx *ctx, const vb_cstate *st, double *kinetic,
                 double *potential, double *xbar);
} vb_scheme;

/* Look up a scheme by name; NULL if unknown. */
const vb_scheme *vb_scheme_lookup(const char *name);
/* All registered schemes; *n receives their count. */
const vb_scheme *const *vb_scheme_list(size_t *n);
/* Comma-separated list of registered scheme names, for messages. */
const char *vb_scheme_choices(void);

/* ----------------------------------------------------------------- scene */

/* Body kinds. */
typedef enum { VB_BODY_MASS = 0, VB_BODY_WALL } vb_body_kind;

/* A body of the scene. */
typedef struct vb_body {
  char name[VB_NAME_MAX];
  vb_body_kind kind;
  double mass; /* kg (mass) */
  double u0;   /* initial displacement (mass) or position (wall), m */
  double v0;   /* initial velocity, m/s (mass) */
  int line;    /* line in the scene file */
} vb_body;

/* A contact element between two bodies. */
typedef struct vb_contact {
  char name[VB_NAME_MAX];
  int a, b;                 /* body indices: compression x = u_a - u_b - gap */
  double gap;               /* m */
  vb_law law;
  const vb_scheme *scheme;
  double s;                 /* quadratic scheme parameter */
  double tolerance;         /* Newton relative tolerance */
  int max_iterations;       /* Newton cap */
  int line;                 /* line in the scene file */
} vb_contact;

/* A loaded scene: immutable after vb_scene_load. */
typedef struct vb_scene {
  char name[VB_NAME_MAX];
  char *path;        /* file it came from */
  char *input;       /* full text of the scene file */
  double fs;         /* sample rate, Hz */
  double duration;   /* s */
  double gravity;    /* m/s^2, acting along -u */
  long record_every; /* record one sample in this many steps */
  int nbodies;
  vb_body *bodies;   /* [nbodies] */
  int ncontacts;
  vb_contact *contacts; /* [ncontacts] */
} vb_scene;

/* Load and validate a scene file.  On error returns VB_EINVAL (or VB_EIO,
 * VB_ENOMEM), sets *out to NULL and writes "file:line: message" into err.
 * The caller frees *out with vb_scene_free. */
int vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen);
/* As vb_scene_load, from text; `path` names it in messages. */
int vb_scene_load_string(const char *text, const char *path, vb_scene **out,
                         char *err, size_t errlen);
/* Free a scene; NULL is a no-op. */
void vb_scene_free(vb_scene *scene);
/* Number of steps of a scene: round(duration * fs). */
long vb_scene_steps(const vb_scene *scene);
/* Number of recorded samples: steps / record_every + 1. */
long vb_scene_samples(const vb_scene *scene);
/* Bytes the recording of a scene needs (uncompressed). */
double vb_scene_record_bytes(const vb_scene *scene);

/* ------------------------------------------------------------------- run */

/* One impact of one contact (a row of /scenes/N/contacts/C/events). */
typedef struct vb_event {
  double t_on, t_off;     /* extrapolated zero crossings of penetration, s */
  double duration;        /* t_off - t_on, s */
  double v_in, v_out;     /* penetration rate entering (> 0) and leaving, m/s */
  double x_max;           /* largest sampled penetration, m */
  double peak_force;      /* largest |force| sampled, N */
  double x_max_pred;      /* Papetti eq 4, m */
  double v_out_pred;      /* Papetti eq 7-8, m/s */
  double v_out_exact;     /* root of Papetti eq 6, m/s */
  double duration_pred;   /* Papetti eq 9, s */
  double energy_before;   /* scene energy at the last sample before, J */
  double energy_after;    /* scene energy at the first sample after, J */
  int newton_iterations_max;
  int fallbacks;          /* quadratic steps that fell back to eq 23 */
  int samples;            /* samples with penetration > 0 */
} vb_event;

/* Per-contact results. */
typedef struct vb_contact_result {
  double *compression;   /* [nrec] m */
  double *force;         /* [nrec] N */
  vb_event *events;      /* [nevents] */
  long nevents, cap;
  long newton_failures;  /* steps whose Newton hit the cap */
  long fallbacks;        /* quadratic steps that fell back */
  long iterations;       /* Newton iterations in all */
} vb_contact_result;

/* State and results of one run of a scene.  Sized once by vb_run_alloc. */
typedef struct vb_run vb_run;

/* Allocate a run of a scene (the scene must outlive it).  VB_ENOMEM with
 * the needed size in err when the recording would not fit. */
int vb_run_alloc(const vb_scene *scene, vb_run **out, char *err, size_t errlen);
/* Free a run; NULL is a no-op. */
void vb_run_free(vb_run *run);
/* Simulate the whole scene.  Returns VB_OK when the status is "done",
 * otherwise the first failure's code; the status text says what happened. */
int vb_run_exec(vb_run *run);

/* Read access to a run's results. */
const vb_scene *vb_run_scene(const vb_run *run);
const char *vb_run_status(const vb_run *run);  /* "done", "diverged at t=..." */
long vb_run_samples(const vb_run *run);        /* recorded samples */
const double *vb_run_body_u(const vb_run *run, int body); /* [samples] m */
const double *vb_run_body_v(const vb_run *run, int body); /* [samples] m/s */
const vb_contact_result *vb_run_contact(const vb_run *run, int contact);
/* Energy signals [samples], J: which = 0 total, 1 kinetic, 2 potential,
 * 3 dissipated. */
const double *vb_run_energy(const vb_run *run, int which);
/* Energy balance error at the end: total + dissipated - initial, J. */
double vb_run_balance_error(const vb_run *run);

/* ---------------------------------------------------------------- output */

/* Write runs of one scene file to an HDF5 file (layout "vibro-1", see the
 * README).  The file is written under a temporary name and renamed into
 * place only when complete. */
int vb_output_write(const char *path, const vb_run *const *runs, int nruns,
                    char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* VIBRO_H */
