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

/* libvibro is built with hidden visibility (Makefile.am): what this header
 * declares is its exported interface, and nothing else is. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

#define VB_NAME_MAX 64

/* Status codes returned by library functions; vb_strerror() gives the text. */
enum {
  VB_OK = 0,
  VB_EINVAL = -1,    /* invalid input (scene file, argument) */
  VB_ENOMEM = -2,    /* allocation failed or would not fit */
  VB_ENOCONV = -3,   /* Newton did not converge within its cap */
  VB_EIO = -4,       /* file could not be read or written */
  VB_EDIVERGED = -5, /* the state became non-finite */
  VB_EDISCRIM = -6,  /* quadratic scheme: negative discriminant */
  VB_EINTR = -7      /* stopped on request (a signal); resumable */
};

/* Message text for a status code (static storage, never NULL). */
const char *vb_strerror(int status);

/* Version string of the library, e.g. "0.1.0". */
const char *vb_version(void);

/* ------------------------------------------------------------------ laws */

/* Contact laws. */
typedef enum {
  VB_LAW_POWER = 0,           /* V = k/(a+1) [x]^(a+1)   (Chatziioannou eq 2) */
  VB_LAW_HUNT_CROSSLEY,       /* f = k [x]^a (1 + mu x') (Papetti eq 1) */
  VB_LAW_RATTLE,              /* V = k/(a+1) [|x|-h]^(a+1) (Ducceschi eq 3c) */
  VB_LAW_POLYNOMIAL,          /* V = k/(a+1) x^(a+1), a odd (Ducceschi eq 3a) */
  VB_LAW_SPRING,              /* linear spring-damper, f = k x + c x', always active */
  VB_LAW_LANKARANI_NIKRAVESH, /* f = k [x]^a (1 + 3(1-e^2)/4 x'/v_in) (LN 1990) */
  VB_LAW_FLORES,              /* f = k [x]^a (1 + 8(1-e)/(5e) x'/v_in) (Flores et al. 2011) */
  VB_LAW_RIGID,               /* Signorini + Newton's impact law, restitution e (Moreau 1988;
                                 Acary & Brogliato 2008 ch. 10): no force law, an impulse
                                 (doc/rigid.md) */
  VB_LAW_COUNT
} vb_law_kind;

/* Parameters of one contact law. */
typedef struct vb_law {
  vb_law_kind kind;
  double k;     /* stiffness, N/m^alpha */
  double alpha; /* exponent, dimensionless */
  double mu;    /* Hunt-Crossley damping, s/m (hunt-crossley, rattle on each
                   side; 0 for the other laws) */
  double h;     /* rattle half-clearance, m (0 for the other laws) */
  double c;     /* spring damping, N s/m (0 for the other laws) */
  double e;     /* coefficient of restitution (lankarani-nikravesh, flores:
                   their mu is set at each impact's onset by vb_law_at_onset;
                   rigid: Newton's, 0 <= e <= 1; 0 for the other laws) */
} vb_law;

/* One parameter of a law as the scene file names it (a row of the law
 * table's params, which ends in a row whose key is NULL). */
typedef struct vb_law_param {
  const char *key;       /* scene-file key, e.g. "k" */
  const char *units;     /* SI units, e.g. "N/m^alpha"; "1" when dimensionless */
  const char *condition; /* the valid values in words, e.g. "> 0 and <= 1" */
  const char *doc;       /* what it is, e.g. "stiffness" */
  size_t offset;         /* offset of its double in vb_law */
  double min;            /* smallest valid value (excluded when min_open) */
  int min_open;
  double max;      /* largest valid value (included) */
  int required;    /* 1: the scene file must give it */
  double fallback; /* its value when absent and not required */
} vb_law_param;

/* How a law damps: not at all, Hunt-Crossley (mu V'(x) x'), or linear c x'. */
typedef enum { VB_DAMPING_NONE = 0, VB_DAMPING_HUNT_CROSSLEY, VB_DAMPING_LINEAR } vb_damping_kind;

/* Everything the library knows about a law, one row per vb_law_kind:
 * the loader's keys and checks, the sweepable paths, the output's
 * attributes and `vibro check` all iterate it.  For example
 *   for (const vb_law_param *p = vb_law_info_of(kind)->params; p->key; p++)
 *     printf("%s = %g %s\n", p->key, vb_law_param_value(law, p), p->units); */
typedef struct vb_law_info {
  const char *name;           /* scene-file name, e.g. "hunt-crossley" */
  const char *doc;            /* the force law and its reference, one line */
  const vb_law_param *params; /* its parameters, NULL-key-terminated */
  vb_damping_kind damping; /* how it damps; the schemes and the energy
                              account take its damping from this alone */
  int two_sided;      /* its force is odd in x, sign(x) times a function of
                         |x|: it pushes back on both sides of x = 0 (rattle
                         |x| - h, and the always engaged laws) */
  int always_engaged; /* engaged at every x (polynomial, spring): no impacts,
                         no events; else it engages and releases (impacts) */
  int papetti;        /* Papetti's x_max (eq 4), v_out (eq 6, 7-8) and
                         contact time (eq 9) predict each impact; else they
                         are NaN (law.c's table says why for each law) */
  int exact_duration; /* Chatziioannou eq 14-16 give it an exact contact
                         duration when alpha = 1 */
  int odd_alpha;      /* alpha must be an odd integer */
  double alpha;       /* the exponent when it is not a key (spring: 1), else 0 */
  /* Laws set by a coefficient of restitution e: the damping factor
   * lambda(e), so that mu = lambda / v_in at the impact's onset; NULL for
   * the other laws. */
  double (*onset_damping)(double e);
  /* A rigid contact (Signorini's condition with Newton's impact law, no
   * potential, no force law): only the nonsmooth family's schemes step it
   * (moreau-jean), and they step nothing else (doc/rigid.md). */
  int rigid;
} vb_law_info;

/* The table row of a law kind; NULL for a kind outside the table. */
const vb_law_info *vb_law_info_of(vb_law_kind kind);
/* The parameter of law `kind` with scene-file key `key`, or NULL. */
const vb_law_param *vb_law_param_of(vb_law_kind kind, const char *key);
/* The value of parameter p in a law (in p->units). */
double vb_law_param_value(const vb_law *law, const vb_law_param *p);
/* Set parameter p of a law. */
void vb_law_param_set(vb_law *law, const vb_law_param *p, double value);
/* Whether x is a valid value of parameter p of law `info` (p->condition). */
int vb_law_param_valid(const vb_law_info *info, const vb_law_param *p, double x);

/* Resolve a law name ("power", ...); VB_EINVAL if unknown. */
int vb_law_lookup(const char *name, vb_law_kind *kind);
/* Name of a law kind. */
const char *vb_law_name(vb_law_kind kind);
/* Comma-separated list of valid law names, for messages. */
const char *vb_law_choices(void);

/* Penetration: the argument of the positive part, > 0 means in contact:
 * x for the one-sided laws, |x| - h for two-sided ones (rattle), +inf
 * for the always engaged laws (polynomial, spring). m. */
double vb_law_penetration(const vb_law *law, double x);
/* Elastic potential V(x), J. */
double vb_law_potential(const vb_law *law, double x);
/* Elastic force V'(x), N. */
double vb_law_elastic(const vb_law *law, double x);
/* Elastic stiffness V''(x), N/m. */
double vb_law_curvature(const vb_law *law, double x);
/* Total force V'(x) + d v for compression x and rate v, the damping d
 * being mu |V'(x)| (Hunt-Crossley; on each side of a rattle), c (spring)
 * or 0, N. */
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
  VB_FAMILY_EXPLICIT,      /* one-step explicit: verlet, position-verlet, heun, rk4 */
  VB_FAMILY_SAV,           /* (x^n, x^(n-1)) and an auxiliary variable per contact: sav */
  VB_FAMILY_NONSMOOTH      /* (x, v) as two-level, rigid contacts by impulses at velocity
                              level (Moreau-Jean): moreau-jean */
} vb_family;

struct vb_scheme_ops; /* its operations (solvers/scheme.h, not installed) */

/* A numerical scheme: one const instance per file in solvers/.  Its facts
 * are these fields; the library reaches its operations through ops and
 * never names a scheme. */
typedef struct vb_scheme {
  const char *name; /* scene-file name, e.g. "two-point" */
  const char *doc;  /* one line with the paper and equation */
  vb_family family;
  int order;              /* claimed order of accuracy for smooth laws */
  int min_contact_steps;  /* shortest contact it resolves (Papetti 3.3.2, Chatziioannou 2.1) */
  int energy_conserving;  /* 1 if a lossless contact keeps its discrete energy */
  double stability_limit; /* explicit family: the largest omega dt of an
                             undamped mode it steps stably (0 for the
                             implicit families, which have none) */
  const struct vb_scheme *fallback; /* the scheme that steps a contact where
                             this one's closed form has no real root
                             (quadratic: three-point), or NULL */
  const char *const *params;        /* scene keys of the scheme's own parameters,
                                    NULL-terminated (quadratic: "s"), or NULL */
  int exact_duration_eq;            /* Chatziioannou's equation of the exact contact
                                       duration for alpha = 1 it supports (15: two-point,
                                       16: three-point), or 0 */
  const struct vb_scheme_ops *ops;  /* operations (solvers/scheme.h) */
  int friction;                     /* 1 if it steps a contact's friction
                                       (lib/friction.c; issue 30) */
} vb_scheme;

/* Look up a scheme by name; NULL if unknown. */
const vb_scheme *vb_scheme_lookup(const char *name);
/* All registered schemes; *n receives their count. */
const vb_scheme *const *vb_scheme_list(size_t *n);
/* Comma-separated list of registered scheme names, for messages. */
const char *vb_scheme_choices(void);

/* ----------------------------------------------------------------- scene */

/* Body kinds: the structure the model, recording and output see.  Every
 * mass and modal object is a set of linear modes with points (a mass is
 * one mode at its stiffness to ground, 0 Hz when free, with one unnamed
 * point of shape 1; a modal object has named points); a wall has no modes
 * and a prescribed displacement.  Several scene-file types may share a
 * kind (vb_body.type tells them apart). */
typedef enum { VB_BODY_MASS = 0, VB_BODY_WALL, VB_BODY_MODAL } vb_body_kind;

/* Prescribed displacements (driven walls). */
typedef enum {
  VB_DRIVE_NONE = 0, /* fixed at `position` */
  VB_DRIVE_SINE,     /* position + amplitude sin(2 pi freq t + phase) */
  VB_DRIVE_PROFILE,  /* a sampled surface profile swept at `speed` */
  VB_DRIVE_NOISE,    /* seeded band-limited noise of rms `amplitude` */
  VB_DRIVE_VELOCITY  /* w_drive only: speed t (a belt, a turntable), speed in m/s */
} vb_drive_kind;

/* A prescribed displacement w(t) (added to a wall's position). */
typedef struct vb_drive {
  vb_drive_kind kind;
  double amplitude;              /* sine: m; noise: rms, m; profile: height scale (1) */
  double freq;                   /* sine: Hz; noise: band limit, Hz */
  double phase;                  /* sine: rad */
  double speed;                  /* profile: sweep speed along the profile, m/s */
  double spacing;                /* profile: distance between samples, m */
  double start;                  /* profile: position along the profile at t = 0, m */
  unsigned long seed;            /* noise */
  long nsamples;                 /* profile: samples; noise: components */
  double *samples;               /* profile: heights, m [nsamples] (owned by the scene) */
  double *nfreq, *nphase, *namp; /* noise: components [nsamples] (owned) */
} vb_drive;

/* A named point of a body, where contacts and forces attach. */
typedef struct vb_point {
  char name[VB_NAME_MAX]; /* "" for a mass's single point */
  double *shape;          /* [body's nmodes] displacement per unit modal
                             displacement; owned by the scene */
  double x, y;            /* position used by a preset, m (else 0) */
  double *wshape;         /* [body's nwmodes] displacement along w per unit modal
                             displacement of the modes along w (issue 30), NULL
                             without them; owned by the scene */
} vb_point;

/* A body of the scene. */
typedef struct vb_body {
  char name[VB_NAME_MAX];
  vb_body_kind kind;
  const char *type; /* scene-file type, e.g. "mass" (a static string) */
  double mass;    /* kg (mass) */
  double u0;      /* initial displacement (mass) or position (wall), m */
  double v0;      /* initial velocity, m/s (mass) */
  double k;       /* mass: spring to ground, N/m (0 = none) */
  double c;       /* mass: damper to ground, N s/m (0 = none) */
  vb_drive drive; /* wall: prescribed motion */
  /* Modes (masses too: one mode).  Each obeys
   * modal_mass (q'' + 2 sigma q' + omega^2 q) = sum over points shape f. */
  int nmodes;
  double *freq;       /* [nmodes] undamped frequency, Hz (0 = rigid-body) */
  double *sigma;      /* [nmodes] amplitude decay rate, 1/s (omega/(2Q)) */
  double *modal_mass; /* [nmodes] kg */
  double *q0, *dq0;   /* [nmodes] initial modal displacement m, velocity m/s */
  double *gravity;    /* [nmodes] gravity participation: gravity pushes mode
                         j with -g modal_mass gravity[j] (1 for a mass) */
  int npoints;
  vb_point *points; /* [npoints]; a mass has one, named "" */
  int line;         /* line in the scene file */
  int ndropped;     /* modes at or above fs/2 dropped at load: the island's
                       two-level or explicit scheme cannot step them (the
                       three-level family keeps them), 0 when none */
  int *dropped;     /* [ndropped] their indices among the modes as given,
                       from 0 (owned) */
  /* The tangential direction w (issue 30): a mass's coordinate along w
   * (has_w: one of w0, vw0, kw, cw given) with its spring and damper to
   * ground, m (u'' ...) beside m w'' = -kw w - cw w' + ft; a wall's motion
   * along w (w_drive, VB_DRIVE_NONE: fixed at w = 0). */
  int has_w;
  double w0;        /* mass: initial w, m */
  double vw0;       /* mass: initial w velocity, m/s */
  double kw;        /* mass: spring to ground along w, N/m (0 = none) */
  double cw;        /* mass: damper to ground along w, N s/m (0 = none) */
  vb_drive w_drive; /* wall: prescribed w(t), m */
  /* A mass's spin (issue 30, step 2; has_spin: radius and inertia given,
   * which needs has_w): its angular velocity about the axis e_w x e_u
   * (counter-clockwise with w to the right and u up).  Its contact point
   * in a contact is r from its centre towards the other body (on its -u
   * side as the contact's b, +u as its a), so that point moves along w at
   * vw + r spin (as b) or vw - r spin (as a), and a friction force ft on
   * b along +w turns b's spin with the torque r ft (a's with r ft too). */
  int has_spin;
  double radius;  /* mass: lever of the contact point about the spin axis, m (> 0) */
  double inertia; /* mass: moment of inertia about the spin axis, kg m^2 (> 0) */
  double spin0;   /* mass: initial angular velocity, rad/s */
  /* A modal body's modes along w (issue 30, `directions`; has_w set): each
   * obeys wmodal_mass (q'' + 2 wsigma q' + omega^2 q) = sum over points
   * wshape ft, a string's second polarisation.  The body's modes along u
   * are nmodes (0 for directions = ["w"]). */
  int nwmodes;
  double *wfreq;       /* [nwmodes] undamped frequency, Hz */
  double *wsigma;      /* [nwmodes] amplitude decay rate, 1/s */
  double *wmodal_mass; /* [nwmodes] kg */
  double *wq0, *wdq0;  /* [nwmodes] initial modal displacement m, velocity m/s */
  int nwdropped;       /* modes along w at or above fs/2 dropped at load (their
                          trapezoidal step cannot resolve them), 0 when none */
  int *wdropped;       /* [nwdropped] their indices among the modes along w as
                          given, from 0 (owned) */
} vb_body;

/* External forces at points. */
typedef enum { VB_FORCE_CONSTANT = 0, VB_FORCE_HARMONIC } vb_force_kind;

/* A force applied at a point of a mass or modal object, N along +u:
 * value + amplitude sin(2 pi freq t + phase). */
typedef struct vb_force {
  char name[VB_NAME_MAX];
  vb_force_kind kind;
  int body, point;
  double value;     /* constant part, N */
  double amplitude; /* harmonic amplitude, N */
  double freq;      /* Hz */
  double phase;     /* rad */
  int line;
} vb_force;

/* ------------------------------------------- friction (issue 30, step 1)
 * A contact may add friction along the tangential direction w beside its
 * normal u (lib/friction.c, doc/friction.md).  Its law is a row of the
 * friction table (vb_friction_info_of), as a normal law is a row of the
 * law table. */

/* Friction laws. */
typedef enum {
  VB_FRICTION_NONE = 0, /* no friction: the contact acts along u alone */
  VB_FRICTION_COULOMB,  /* Coulomb with static and kinetic coefficients, exact stick */
  VB_FRICTION_STRIBECK, /* Stribeck curve with a viscous term, exact stick (issue 30, step 3) */
  VB_FRICTION_BOW,      /* the hyperbolic bow curve of Woodhouse, exact stick (step 3) */
  VB_FRICTION_EXPONENTIAL, /* the exponential bow curve of Desvages & Bilbao, no stick set */
  VB_FRICTION_ELASTOPLASTIC, /* the elasto-plastic bristle law of Dupont et al. 2002, its
                                bristle deflection z a state per contact (issue 30, step 4) */
  VB_FRICTION_COUNT
} vb_friction_kind;

/* Parameters of one friction law. */
typedef struct vb_friction {
  vb_friction_kind kind;
  double mu_s; /* static coefficient: stick holds while |ft| <= mu_s N, 1 */
  double mu_k; /* kinetic coefficient: |ft| = mu_k N while slipping, 1 (the bow
                  curve's mu_d, its limit at large slip) */
  double v_s;  /* stribeck: the Stribeck velocity, m/s; bow: v0, m/s */
  double delta; /* stribeck: the exponent of the Stribeck curve, 1 */
  double viscous; /* stribeck: viscous term per newton of normal force, s/m
                     (|ft| gains viscous |s| N) */
  double a;       /* exponential: the curve's shape, s^2/m^2 (its peak, |ft| = N,
                     at |s| = 1 / sqrt(2 a)) */
  /* elasto-plastic (Dupont et al. 2002): every force per newton of normal
   * force, ft = -N (sigma0 z + sigma1 z' + sigma2 s), with mu_s, mu_k and
   * v_s its steady-state (Stribeck) curve */
  double sigma0;  /* bristle stiffness per newton of normal force, 1/m (N/m per N) */
  double sigma1;  /* bristle damping per newton of normal force, s/m */
  double sigma2;  /* viscous coefficient per newton of normal force, s/m */
  double z_ba;    /* breakaway deflection as a fraction of the steady-state one
                     |z_ss(s)|, 1 (in [0, 1)) */
} vb_friction;

/* A contact element between a point of body a and a point of body b. */
typedef struct vb_contact {
  char name[VB_NAME_MAX];
  int a, b;           /* body indices: compression x = u_a - u_b - gap */
  int pa, pb;         /* point indices within a and b (0 for masses and walls) */
  double gap;         /* m */
  vb_drive gap_drive; /* gap_drive: the gap's prescribed motion, added
                         to gap (a rolling ball's surface profile) */
  vb_law law;
  const vb_scheme *scheme;
  double s;             /* quadratic scheme parameter */
  double tolerance;     /* Newton relative tolerance */
  int max_iterations;   /* Newton cap */
  unsigned corrections; /* VB_CORRECT_XMAX | VB_CORRECT_VOUT (Papetti 4.2) */
  int vout_exact;       /* vout target: 1 root of eq 6, 0 eq 7-8 */
  int exact_duration;   /* beta* substitution (Chatziioannou eq 15, 16) */
  int saturate;         /* exact_duration beyond its limit: use the limit */
  int line;             /* line in the scene file */
  char group[VB_NAME_MAX]; /* the distributed contact it is point group_point
                              of, "" for a point contact (doc/scene-file.md, "Distributed
                              contact") */
  int group_point;         /* its index among that block's points, from 0 */
  int element;             /* index of its group in the file's contacts list */
  /* Friction (issue 30): its law along w; kind VB_FRICTION_NONE without.
   * Its tangential force ft acts on body b along +w and on a along -w;
   * the slip is the rate of w_b - w_a at the contact. */
  vb_friction friction;
  /* A prescribed normal force (issue 30, step 3: a bow): normal_given 1
   * when the contact has no normal law (law omitted or "none") and its
   * friction is bounded by normal_force instead; its normal direction then
   * carries no contact force (the loader gives it a spring of k = 0). */
  int normal_given;
  double normal_force; /* N, >= 0 */
  vb_drive normal_drive; /* its time profile, added to normal_force (N; sine
                            only: amplitude in N), VB_DRIVE_NONE without */
  /* The geometry of its gap (issue 30, item 4; doc/geometry.md):
   * VB_GEOMETRY_LINE (0), along the normal u alone, x = u_a - u_b - gap;
   * VB_GEOMETRY_CIRCULAR, a point in a circular clearance (a pin in a
   * hole, a rotor in its stator): x = |(u_b - u_a, w_b - w_a)| - clearance,
   * its force along the radial direction in the (u, w) plane. */
  int geometry;
  double clearance; /* circular: the hole's radius less the pin's, m (> 0) */
  /* A contact point that moves along its modal body (issue 30, item 5;
   * doc/geometry.md): ntrack > 0 points of the contact's modal body in
   * order along a track, at positions track_at (m, ascending), the point
   * at track_drive(t) (m, clamped to the track's ends), its shapes linear
   * between the two points around it; 0 without (owned by the scene). */
  int ntrack;
  int *track_point;   /* [ntrack] point indices of the modal body */
  double *track_at;   /* [ntrack] their positions along the track, m */
  vb_drive track_drive; /* the point's position along the track, m */
  /* track_follow: the point follows the contact's mass's w instead of a
   * drive, at track_start + w (m) along the track (`follow = "w"`) */
  int track_follow;
  double track_start;
} vb_contact;

/* A contact's geometry (vb_contact.geometry). */
enum { VB_GEOMETRY_LINE = 0, VB_GEOMETRY_CIRCULAR = 1 };

/* Papetti's corrections (section 4.2), as flags in vb_contact.corrections
 * and in each event's `corrections` field. */
enum {
  VB_CORRECT_XMAX = 1, /* compression clipped to the analytic x_max (eq 4) */
  VB_CORRECT_VOUT = 2  /* exit rate set to v_out (eq 6, or eq 7-8) */
};

/* A loaded scene: immutable after vb_scene_load. */
typedef struct vb_scene {
  char name[VB_NAME_MAX];
  char *path;        /* file it came from */
  char *input;       /* full text of the scene file; a scene a study built
                        shares its study's (free the scene before the study) */
  int input_shared;  /* input belongs to the study, not to the scene */
  double fs;         /* sample rate, Hz */
  double duration;   /* s */
  double gravity;    /* m/s^2, acting along -u */
  long record_every; /* record one sample in this many steps */
  int nbodies;
  vb_body *bodies; /* [nbodies] */
  int ncontacts;
  vb_contact *contacts; /* [ncontacts] */
  int nforces;
  vb_force *forces;  /* [nforces] */
  int record_modes;  /* record.modes: write /bodies/<body>/modes/q */
  int record_select; /* record.signals given: record only what its globs match */
  int nrecord_globs;
  char **record_globs; /* [nrecord_globs] record.signals: fnmatch(3) globs over
                          signal paths (vb_signal_path); none: events only */
  int *point_first;    /* [nbodies + 1] first point-signal instance of each
                          body (record.c, at load; NULL: counted each time) */
  int *modes_first;    /* [nbodies + 1] the same for modes signals */
  struct vb_analysis *analysis; /* the `analysis` block (lib/run/analysis.h), NULL
                                   without one (owned) */
} vb_scene;

/* Load and validate a scene file.  On error returns VB_EINVAL (or VB_EIO,
 * VB_ENOMEM), sets *out to NULL and writes "file:line: message" into err.
 * The caller frees *out with vb_scene_free. */
int vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen);
/* As vb_scene_load, from text; `path` names it in messages. */
int vb_scene_load_string(const char *text, const char *path, vb_scene **out, char *err,
                         size_t errlen);
/* Free a scene; NULL is a no-op. */
void vb_scene_free(vb_scene *scene);
/* Number of steps of a scene: round(duration * fs). */
long vb_scene_steps(const vb_scene *scene);
/* Number of recorded samples: steps / record_every + 1. */
long vb_scene_samples(const vb_scene *scene);
/* Bytes the recording of a scene needs (uncompressed): the selected
 * signals only (record.signals). */
double vb_scene_record_bytes(const vb_scene *scene);
/* Effective mass along contact c (1 / sum over its modes of S^2 / M), kg;
 * NaN if it cannot be computed. */
double vb_scene_contact_mass(const vb_scene *scene, int c);
/* The impact rate a contact will have when free flight from its initial
 * state reaches it, m/s (0 if none follows); its effective mass (kg) into
 * *meff when meff is not NULL (one island build for both). */
double vb_scene_approach_rate(const vb_scene *scene, int c, double *meff);
/* vb_scene_approach_rate of every contact c into rate[c] (m/s) and
 * meff[c] (kg), from one island build (NaN when the scene cannot build). */
void vb_scene_approach_rates(const vb_scene *scene, double *rate, double *meff);
/* A contact's initial state along its compression (p0, v0, a0: a0 the
 * constant free-flight acceleration of the penetration from gravity), its
 * effective mass and its impact rate (vb_scene_approach_rate); when the
 * contact's island has oscillating modes and nothing drives it (a string
 * released from a displacement onto a bridge or frets), rate and t_on
 * are those of the first impact of the modes' exact free response within
 * the scene's duration (each mode rings and decays from its q0, dq0:
 * scene_query.c); of a distributed block, only the points that touch in
 * the step its first point does have a rate then. */
typedef struct vb_contact_start {
  double p0, v0, a0; /* penetration (m), its rate (m/s), acceleration (m/s^2) */
  double meff;       /* effective mass, kg */
  double rate;       /* impact rate free flight reaches, m/s (0: none) */
  double t_on;       /* when free flight reaches the barrier, s (0: engaged
                        at t = 0 or no impact) */
  double horizon;    /* s of free flight searched for it: inf for the
                        closed form of a constant acceleration; for a body
                        whose modes oscillate, the scene's duration, or
                        less when the search hit its cost cap */
} vb_contact_start;
/* Every contact's, out[ncontacts], from one island build (NaN when the
 * scene cannot build). */
void vb_scene_contact_states(const vb_scene *scene, vb_contact_start *out);

/* Natural frequency sqrt(k / m_eff) of an alpha = 1 contact, the largest
 * the scheme's exact-duration substitution allows (pi/dt two-point,
 * pi/(2 dt) three-point), and the one used after saturation, rad/s. */
void vb_contact_exact_duration(const vb_scene *scene, int c, double *omega, double *limit,
                               double *used);
/* The same at the effective mass m (kg) a caller has already (from
 * vb_scene_contact_states or vb_scene_contact_masses), without building
 * the islands: a loop over N contacts builds them once, not N times. */
void vb_contact_exact_duration_at(const vb_scene *scene, int c, double m, double *omega,
                                  double *limit, double *used);
/* Effective mass along every contact, meff[ncontacts] (kg), from one
 * island build (NaN when the scene cannot build). */
void vb_scene_contact_masses(const vb_scene *scene, double *meff);

/* ------------------------------------------------------------------- run */

/* One impact of one contact (a row of /scenes/N/contacts/C/events). */
typedef struct vb_event {
  double t_on, t_off;       /* extrapolated zero crossings of penetration, s */
  double duration;          /* t_off - t_on, s */
  double v_in, v_out;       /* penetration rate entering (> 0) and leaving, m/s */
  double x_max;             /* largest sampled penetration, m */
  double peak_force;        /* largest |force| sampled, N */
  double x_max_pred;        /* Papetti eq 4, m */
  double v_out_pred;        /* Papetti eq 7-8, m/s */
  double v_out_exact;       /* root of Papetti eq 6, m/s */
  double duration_pred;     /* Papetti eq 9, s */
  double energy_before;     /* energy of the contact's island at the last sample before, J */
  double energy_after;      /* energy of the contact's island at the first sample after, J */
  double energy_correction; /* energy the corrections added (< 0: removed), J */
  int newton_iterations_max;
  int fallbacks;   /* quadratic steps that fell back to eq 23 */
  int samples;     /* samples with penetration > 0 */
  int corrections; /* VB_CORRECT_* flags of the corrections that fired */
} vb_event;

/* A stick or slip phase of a contact with friction (issue 30; lib/run/
 * phases.c, doc/friction.md): a run of steps with a normal force that
 * stick (slip exactly 0) or slip; a step without normal force is in no
 * phase (the contact is apart: its impacts say when). */
typedef struct vb_phase {
  int contact;          /* the scene's contact index */
  int stick;            /* 1: a stick, 0: a slip */
  double t_on, t_off;   /* onset and end, s: a stick's onset where the slip's zero
                           extrapolates from the last two slipping steps, a slip's
                           where the holding force reaches mu_s N; a phase after
                           or before a step apart starts or ends at the step's
                           edge; t_off NaN for the phase the run ended in */
  double duration;      /* t_off - t_on, s (NaN with t_off) */
  double mean_slip;     /* the slip displacement over the phase's steps / its duration
                           (the steps' span for the last phase), m/s: 0 in a stick */
  double friction_work; /* the friction work of the phase, J (>= 0; the catch of a
                           stick's first step, which ends the slip before it, is
                           that slip's) */
  long steps;           /* steps of the phase */
} vb_phase;

/* Per-contact results. */
typedef struct vb_contact_result {
  double *compression;    /* [nrec] m (NULL when not recorded, as rate, force) */
  double *rate;           /* [nrec] compression rate, m/s (three-level: of the
                             step into the sample) */
  double *force;          /* [nrec] N */
  double max_compression; /* largest compression at a recorded sample, recorded
                             or not (NaN if a sample was not reached), m */
  vb_event *events;       /* [nevents]; NULL while nevents is 0 (the table is
                             made at the contact's first event) */
  long nevents, cap;
  long newton_failures; /* steps whose Newton hit the cap */
  long fallbacks;       /* quadratic steps that fell back */
  long iterations;      /* Newton iterations in all (the globalised
                           fall-back's included) */
  long engaged_at_end;  /* 1 when the contact was still closed as the run ended:
                           its last impact has NaN t_off, duration and v_out */
  long global_solves;   /* steps whose Newton failed and the K-method's
                           globalised fall-back solved (solvers/kglobal.c) */
  long global_iterations; /* the fall-back's iterations in those steps (in
                             iterations too) */
  double state_drift;   /* the largest drift of the contact's scheme state from its
                           definition over the run (sav: |psi - sqrt(2 V)|), J^(1/2);
                           NaN for a scheme without one */
  long under_resolved;  /* 1 when the run says the scheme stopped resolving the
                           contact (run.c's under_resolved: a drift past its
                           bound, or engaged for most of the run against a
                           prediction of a few samples), else 0 */
} vb_contact_result;

/* State and results of one run of a scene.  Sized once by vb_run_alloc. */
typedef struct vb_run vb_run;

/* Allocate a run of a scene (the scene must outlive it).  VB_ENOMEM with
 * the needed size in err when the recording would not fit. */
int vb_run_alloc(const vb_scene *scene, vb_run **out, char *err, size_t errlen);
/* Free a run; NULL is a no-op. */
void vb_run_free(vb_run *run);
/* Simulate the whole scene.  Returns VB_OK when the status is "done",
 * otherwise the first failure's code; the status text says what happened.
 * A state, contact force or energy that becomes non-finite ends the run
 * with VB_EDIVERGED and a status "diverged at t=T s: <quantity> is inf"
 * naming the first non-finite quantity; the samples not reached are NaN.
 * So does an energy (kinetic + potential) past 10 times what the scene can
 * hold (its initial energy, the total variation of the work of forces,
 * gravity and drivers, the energy corrections added, and 1e-12 J), checked
 * after every step: "diverged at t=T s: energy grew from X J to Y J: the
 * scheme is unstable here (try two-point)". */
int vb_run_exec(vb_run *run);
/* Status code of a run: VB_OK (done, or not run yet), VB_EDIVERGED,
 * VB_ENOCONV (Newton hit its cap in some step), VB_ENOMEM or VB_EINTR
 * (vb_run_exec_stop was stopped); the code vb_run_exec returned.  Use it
 * instead of parsing vb_run_status. */
int vb_run_code(const vb_run *run);

/* Read access to a run's results. */
const vb_scene *vb_run_scene(const vb_run *run);
const char *vb_run_status(const vb_run *run); /* "done", "diverged at t=..." */
long vb_run_samples(const vb_run *run);       /* recorded samples */
/* Displacement and velocity of body `body` at its point `point` (0 for a
 * mass or wall) [samples], m and m/s.  Three-level schemes record the rate
 * of the step into each sample.  These accessors (and vb_run_modes_q,
 * vb_run_energy, a contact's compression, rate and force) give NULL for a
 * signal that record.signals does not select. */
const double *vb_run_point_u(const vb_run *run, int body, int point);
const double *vb_run_point_v(const vb_run *run, int body, int point);
/* The same at point 0 (masses and walls). */
const double *vb_run_body_u(const vb_run *run, int body);
const double *vb_run_body_v(const vb_run *run, int body);
/* Modal displacements of a body [nmodes][samples], m, when record.modes
 * is set; NULL otherwise. */
const double *vb_run_modes_q(const vb_run *run, int body);
const vb_contact_result *vb_run_contact(const vb_run *run, int contact);
/* The recorded energy signals, J (the discrete energies of the schemes). */
typedef enum {
  VB_ENERGY_TOTAL = 0,  /* kinetic + potential */
  VB_ENERGY_KINETIC,    /* of the modes */
  VB_ENERGY_POTENTIAL,  /* of the modes and the contacts */
  VB_ENERGY_DISSIPATED, /* running: damping of modes and contacts */
  VB_ENERGY_EXTERNAL,   /* running: work done by gravity, forces and drivers */
  VB_ENERGY_CORRECTION, /* running: energy added by Papetti's corrections */
  VB_ENERGY_COUNT
} vb_energy;
/* Energy signal `which` (a vb_energy) [samples], J; NULL when not recorded. */
const double *vb_run_energy(const vb_run *run, int which);
/* Energy `which` (a vb_energy) at the last recorded sample, J, whether or
 * not its signal is recorded; NaN when the run did not reach that sample. */
double vb_run_final_energy(const vb_run *run, int which);
/* What a recorded signal belongs to, and its group under the scene's
 * group in the output (B: body, P: point, C: contact names). */
typedef enum {
  VB_SIGNAL_SCENE = 0, /* one per scene: "energy" */
  VB_SIGNAL_POINT,     /* one per recorded point: each mass and wall
                          ("bodies/B") and each named point of a modal
                          object ("bodies/B/P"), bodies in order */
  VB_SIGNAL_MODES,     /* one per mass or modal object when record.modes is
                          set: "bodies/B/modes", one row per mode */
  VB_SIGNAL_CONTACT    /* one per contact: "contacts/C" */
} vb_signal_object;

/* One recorded signal: a row of the table that the run's allocation
 * iterates, and that writers and readers can iterate. */
typedef struct vb_signal {
  const char *name;        /* dataset name in its group: "u", "force", "total" */
  const char *units;       /* "m", "m/s", "N", "J" */
  vb_signal_object object; /* what it is recorded for */
  const char *doc;         /* one line */
  /* Its value for instance i at the sample being recorded, from the run's
   * state; NULL for the signals the run copies from its islands (u, v, q,
   * a contact's compression, rate and force) or sums (the energies). */
  double (*derive)(const vb_run *run, int i);
  /* Recorded only when record.signals selects it (a figure the others
   * give, such as a contact's potential from its compression): files and
   * runs without a record block stay as they were. */
  int on_request;
  /* Recorded only for the instances the tangential direction concerns
   * (issue 30): contacts with friction, masses with a w coordinate
   * (vb_signal_applies); 1-D scenes record none of them.  2: masses with a
   * spin alone (has_spin); 3: contacts whose friction law has a bristle
   * deflection alone (vb_friction_info.deflection). */
  int tangential;
} vb_signal;

/* The table of recorded signals, in the order of the recording (the
 * energies first, in vb_energy order); *n receives its length. */
const vb_signal *vb_signal_table(int *n);
/* Instances of signal s in a scene (points, bodies with modes, contacts, or
 * 1 for the scene). */
int vb_signal_count(const vb_signal *s, const vb_scene *sc);
/* Body of instance i of a point or modes signal, its point in *point (0
 * for masses and walls); -1 for scene and contact signals. */
int vb_signal_body(const vb_signal *s, const vb_scene *sc, int i, int *point);
/* Rows of instance i: the body's modes for VB_SIGNAL_MODES, else 1. */
int vb_signal_rows(const vb_signal *s, const vb_scene *sc, int i);
/* Group of instance i ("energy", "bodies/ball", "bodies/plate/pickup",
 * "bodies/plate/modes", "contacts/hit") into buf; snprintf's count. */
int vb_signal_group(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len);
/* Path of instance i, its group and name ("energy/total",
 * "bodies/plate/pickup/u", "bodies/plate/modes/q", "contacts/hit/force"),
 * what record.signals matches; snprintf's count. */
int vb_signal_path(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len);
/* Whether a scene records the signal at `path` (a vb_signal_path): true
 * without record.signals, else when one of its globs matches. */
int vb_scene_records(const vb_scene *sc, const char *path);
/* Whether instance i of signal s is recorded (vb_scene_records of its
 * path, or of its distributed contact's; without record.signals every
 * signal but those on request and those of a distributed contact's points,
 * on the body and as contacts). */
int vb_signal_recorded(const vb_signal *s, const vb_scene *sc, int i);
/* Path of the distributed contact that contact instance i is a point of,
 * as a whole ("contacts/neck/force"), into buf; snprintf's count, or -1
 * when instance i is no point of a distributed contact. */
int vb_signal_block_path(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len);
/* Whether instance i is recorded as a row of its distributed contact's
 * [point][time] signal (record.signals selects the contact's path). */
int vb_signal_whole(const vb_signal *s, const vb_scene *sc, int i);
/* Samples of instance i of signal s (an entry of the table) in a run,
 * [rows][samples]; NULL when it is not recorded. */
const double *vb_signal_data(const vb_run *run, const vb_signal *s, int i);
/* Energy balance error at the end (from vb_run_final_energy, recorded or
 * not): total + dissipated - external - correction - initial, J. */
double vb_run_balance_error(const vb_run *run);
/* The same sum at the step where its magnitude was largest over the run
 * (checked after every step, recorded or not; signed), J: the end value
 * can be small where the run went far off (issue 32 item 7). */
double vb_run_balance_worst(const vb_run *run);
/* Largest distance of a scheme's per-contact state from its definition
 * over the run so far, in the state's units (sav: |psi - sqrt(2 V)|,
 * J^(1/2)); NaN when no contact of the scene keeps state. */
double vb_run_state_drift(const vb_run *run);
/* vb_run_exec that stops when *stop (may be NULL) becomes nonzero, checked
 * before every step (a signal handler or another thread sets it): the run
 * then ends with VB_EINTR, the status "stopped at t=T s on request", its
 * events so far and NaN in the samples not reached. */
int vb_run_exec_stop(vb_run *run, const volatile int *stop);

/* ------------------------------------------------------ stepping a run
 * A run in blocks with its state in hand (lib/run/stepping.c), after
 * MuJoCo's mj_step: vb_run_begin (t = 0, sample 0 recorded), then
 * vb_run_advance or vb_run_advance_to as often as wanted, reading the
 * state and changing parameters between blocks, then vb_run_end.  The
 * recording, events, status and code are then what vb_run_exec gives: a
 * scene advanced in blocks of any size equals the whole run bit for bit
 * (vb_run_exec is these calls over every step).  Each returns VB_OK, or
 * the code that ended the run (its status says why; vb_run_advance and
 * vb_run_advance_to then end it, as vb_run_exec does), or VB_EINVAL when
 * called out of order (advance before begin) or with a negative count. */
int vb_run_begin(vb_run *run);
/* Up to count steps more (fewer at the scene's duration; then the run is
 * at its end but still open: vb_run_end ends it). */
int vb_run_advance(vb_run *run, long count);
/* Steps up to the one nearest time t (s; at most the scene's duration);
 * none when the run is there already. */
int vb_run_advance_to(vb_run *run, double t);
/* End the run: its events and observers finished, its status set.  Before
 * the scene's duration, the run ends there: VB_EINTR and the status
 * "ended at t=T s by the caller (duration D s)", the samples not reached
 * NaN.  Again after the end: the run's code. */
int vb_run_end(vb_run *run);
/* Steps taken so far, steps in all (round(duration fs)), and the time of
 * the state now, s. */
long vb_run_steps_done(const vb_run *run);
long vb_run_steps_total(const vb_run *run);
double vb_run_now(const vb_run *run);
/* The state now.  Point `point` of body `body` (a mass's or wall's only
 * point is 0): displacement *u (m) and velocity *v (m/s; three-level
 * schemes: the rate of the last step, as their samples record it);
 * VB_EINVAL for no such point. */
int vb_run_point_now(const vb_run *run, int body, int point, double *u, double *v);
/* A mass's or modal body's modal displacements q[j] (m) and velocities
 * v[j] (m/s) now, the first n of them (either may be NULL); the body's
 * number of modes (1 for a mass), or -1 for a wall or no such body. */
int vb_run_modes_now(const vb_run *run, int body, double *q, double *v, int n);
/* Contact c now: its force (N, what the scheme holds), compression (m)
 * or compression rate (m/s); NaN for no contact c. */
enum { VB_NOW_FORCE, VB_NOW_COMPRESSION, VB_NOW_RATE };
double vb_run_contact_now(const vb_run *run, int c, int what);
/* Change a parameter between blocks, from the next step on: a force's
 * value, amplitude, freq or phase (forces.F.KEY), a wall's position
 * (bodies.W.position), a contact's gap or a parameter of its law
 * (contacts.C.KEY: k, alpha, mu, ... as its law's row lists them, judged
 * by the same rules as in a scene file; not on an exact_duration contact,
 * whose stiffness its scheme sets).  It changes the scene the run was
 * made from (which must then not be shared with another run): the
 * predictions of later impacts use the new value.  A law's damping set at
 * an impact's onset (lankarani-nikravesh, flores) keeps the onset's until
 * the next impact.  VB_OK, or VB_EINVAL with "PATH: what is wrong (valid:
 * ...)" in err. */
int vb_run_set(vb_run *run, const char *path, double value, char *err, size_t errlen);
/* (Declared with the studies below: vb_study_write_run writes an ended
 * stepped run as its one-scene study's output file.) */

/* ---------------------------------------------------------------- output */

/* What an output file describes (layout "vibro-3", doc/format.md): the
 * writer knows this, not studies. */
typedef struct vb_output_layout {
  const char *input;              /* the scene or study text */
  const char *source;             /* its path */
  const char *inputs;             /* every file read, "PATH CRC32\n" each; NULL: input alone */
  const char *mode;               /* sweep mode: "grid", "zip", "random", "none" */
  const char *sweep;              /* canonical sweep text, "" without one */
  long nscenes;                   /* scenes of the whole study */
  int nparams;                    /* swept parameters */
  const char *const *param_names; /* [nparams] paths, "contacts.hit.k" */
  const char *const *param_units; /* [nparams] units, "N/m^alpha" */
  const vb_scene *first;          /* scene 0: names of bodies and contacts */
} vb_output_layout;

/* The shards of an output being written (OUT.part/, doc/format.md). */
typedef struct vb_output vb_output;

/* vb_study_run opens and writes its output itself.  A program that runs
 * a study on several MPI ranks opens and frees it on rank 0 first, with
 * the layout of vb_study_layout, so that an earlier run's OUT.part/ is
 * cleared before any rank takes its lock (tools/cmd_run.c).
 *
 * Open OUT.part/ for this process (rank `rank` of an MPI run, else 0):
 * create it (refusing a symlink or a foreign directory there), lock it
 * (refusing a second writer, named with its PID), and with resume = 1 keep
 * the shards whose size and CRC-32 match the manifest, deleting the rest.
 * resume = 0 refuses an OUT.part/ that lists finished scenes of this
 * input (naming --resume and --restart); VB_RESTART discards them.
 * Free with vb_output_free. */
int vb_output_open(const char *path, const vb_output_layout *lay, int resume, int rank,
                   vb_output **out, char *err, size_t errlen);
/* Unlock and free, dropping scenes not flushed; OUT.part stays (unless
 * the output was discarded: an error before any scene was finished in an
 * OUT.part this run created).  NULL is a no-op. */
void vb_output_free(vb_output *output);
/* The shards of a running (or interrupted) study writing OUT: the files
 * its manifests list, complete and of the listed size, as malloc'ed paths
 * "OUT.part/rRRR-NNNNNN.h5".  Each is a closed vibro-3 file holding some
 * finished scenes (doc/format.md), readable while the study runs.  No
 * OUT.part: VB_EINVAL.  Free with vb_output_running_free. */
int vb_output_running(const char *path, char ***paths, long *n, char *err, size_t errlen);
/* Free the list of vb_output_running; NULL is a no-op. */
void vb_output_running_free(char **paths, long n);
/* Write runs of one scene file to OUT (a study of nruns scenes without
 * a sweep), through OUT.part/, renamed into place when complete. */
int vb_output_write(const char *path, const vb_run *const *runs, int nruns, char *err,
                    size_t errlen);

/* --------------------------------------------------------------- studies */

/* A study: a scene file, with an optional `sweep` block that turns it into
 * many scenes differing in a few numeric settings (doc/studies.md).  A
 * file without a sweep is a study of one scene.  Immutable after loading;
 * any number of threads may build scenes from it at once. */
typedef struct vb_study vb_study;

/* Load a study file and validate every scene it makes (each swept scene
 * gets the checks of a plain scene; a message about scene i names its
 * parameter values).  On error returns VB_EINVAL (or VB_EIO, VB_ENOMEM),
 * sets *out to NULL and writes "file:line: message" into err.  The caller
 * frees *out with vb_study_free. */
int vb_study_load(const char *path, vb_study **out, char *err, size_t errlen);
/* As vb_study_load, from text; `path` names it in messages. */
int vb_study_load_string(const char *text, const char *path, vb_study **out, char *err,
                         size_t errlen);
/* Free a study; NULL is a no-op. */
void vb_study_free(vb_study *study);
/* Number of scenes. */
long vb_study_scenes(const vb_study *study);
/* Number of swept parameters (0 without a sweep). */
int vb_study_nparams(const vb_study *study);
/* Path of swept parameter p, e.g. "contacts.hit.k". */
const char *vb_study_param(const vb_study *study, int p);
/* The scenes vb_study_load validated one by one, for tools that look at
 * every scene (vibro check): their number; *indices is NULL when that is
 * every scene (0 .. count-1), else the sorted indices of the scenes that
 * stand for a sweep of more than 20000 scenes (each parameter's values and
 * the grid's corners; lib/study/study.h vb_sweep_sample says why they suffice).
 * The array belongs to the study. */
long vb_study_checked(const vb_study *study, const long **indices);
/* SI units of swept parameter p, from the law table and the loader's
 * tables: "N/m^alpha" (a law's k), "m/s" (a mass's v0), "kg", "Hz", "s",
 * "1" when dimensionless, "" when no table knows the key; NULL when p is
 * not a parameter.  Static text, valid for the life of the program. */
const char *vb_study_param_units(const vb_study *study, int p);
/* Value of parameter p in scene `index`. */
double vb_study_value(const vb_study *study, long index, int p);
/* Sweep mode: "grid", "zip", "random", or "none" without a sweep. */
const char *vb_study_mode(const vb_study *study);
/* Canonical text of the sweep ("" without one). */
const char *vb_study_sweep(const vb_study *study);
/* The file's full text and its path. */
const char *vb_study_input(const vb_study *study);
/* Every file loading the study read (the study file first, then each
 * @include, modes file and profile in reading order), one "PATH CRC32\n"
 * line each, the CRC-32 of its bytes in 8 hex digits (doc/format.md,
 * `inputs`). */
const char *vb_study_inputs(const vb_study *study);
const char *vb_study_path(const vb_study *study);
/* Scene 0, as loaded during validation (contacts and bodies of every
 * scene of the study have the same names, in the same order). */
const vb_scene *vb_study_first(const vb_study *study);
/* Largest recording of one scene and the sum over all scenes, bytes. */
double vb_study_record_max(const vb_study *study);
double vb_study_record_total(const vb_study *study);
/* Build scene `index` (0 <= index < vb_study_scenes).  Thread-safe.  The
 * caller frees *out with vb_scene_free. */
int vb_study_scene(const vb_study *study, long index, vb_scene **out, char *err, size_t errlen);
/* A study's text parsed once, for building many of its scenes in one
 * thread (vb_study_scene parses it for every scene, which costs N^2 for N
 * scenes of a `values` list of N values).  Not shared between threads. */
typedef struct vb_study_doc vb_study_doc;
int vb_study_doc_open(const vb_study *study, vb_study_doc **out, char *err, size_t errlen);
/* vb_study_scene through a parsed document: the same scene, bit for bit. */
int vb_study_doc_scene(vb_study_doc *doc, long index, vb_scene **out, char *err, size_t errlen);
/* Free a document; NULL is a no-op. */
void vb_study_doc_free(vb_study_doc *doc);

/* Progress of a running study, handed to vb_study_options.on_progress. */
typedef struct vb_study_progress {
  long done;   /* scenes of this process finished (kept and run) */
  long total;  /* scenes of this process */
  double rate; /* scenes run per second of wall time so far */
  double left; /* estimated seconds left (NaN before the first scene) */
} vb_study_progress;

/* vb_study_options.resume (and vb_output_open's): start over, discarding
 * the finished scenes an OUT.part/ holds. */
#define VB_RESTART 2

/* vb_study_options.stop at this value abandons the scenes in flight. */
#define VB_STOP_ABANDON 2

/* How vb_study_run runs a study. */
typedef struct vb_study_options {
  int threads;  /* OpenMP threads over scenes; 0 for the OpenMP default */
  int resume;   /* 1: continue OUT.part, keeping its verified shards; 0: start,
                   refusing an OUT.part with finished scenes of this input;
                   VB_RESTART: start, discarding them */
  int rank;     /* this process runs the scenes with index % nranks == rank */
  int nranks;   /* 1 for a single process */
  /* Called once at the start, about every progress_period seconds and
   * once at the end, from the writer (one thread at a time); NULL for
   * none. */
  void (*on_progress)(const vb_study_progress *p, void *ctx);
  void *progress_ctx;
  double progress_period; /* s; 0 for 10 s */
  /* Set nonzero (e.g. by a signal handler) to stop: no new scene starts,
   * those in flight are written, and vb_study_run returns VB_EINTR with
   * "OUT: interrupted after N of M scenes; run again with --resume".  Set
   * to VB_STOP_ABANDON (a second signal) to abandon the scenes in flight
   * as well: they stop at their next step and are not written (a resume
   * runs them again); the finished ones are. */
  const volatile int *stop;
  /* Called once, within about 0.05 s of *stop becoming nonzero (from a
   * thread of its own), with the scenes in flight and the seconds they
   * need to finish, estimated from their steps done so far (NaN when
   * unknown); NULL for none. */
  void (*on_stop)(long running, double seconds, void *ctx);
  void *stop_ctx;
  /* Not NULL: receives the descriptor holding this rank's lock on
   * OUT.part/ (flock on lock.rRRR), or -1, instead of its release; the
   * caller closes it once rank 0 has merged, so that no second writer can
   * start while this rank waits (an MPI rank). */
  int *lock;
  /* 1: the scenes' runs keep subnormal numbers (vb_run_keep_subnormals);
   * 0, the default: they flush them */
  int keep_subnormals;
  /* Not NULL (an MPI run of nranks > 1): the ranks' collectives, with
   * which the ranks lay out one file of every scene's signals before they
   * run and each writes its own scenes' rows into it, so that rank 0 ends
   * the run writing only the tables, with no merge (doc/mpi.md).  Every
   * rank calls them at the same points of vb_study_run, from the calling
   * thread.  NULL: each rank writes its shards, merged by rank 0. */
  const struct vb_study_ranks *ranks;
} vb_study_options;

/* Collectives over the ranks of an MPI run (vb_study_options.ranks); each
 * returns 0, or -1 when the collective failed.  A rank waiting in one
 * should sleep, not spin: the other ranks' threads need the cores. */
typedef struct vb_study_ranks {
  /* The least over the ranks of each of v[0 .. n-1], into v. */
  int (*min)(long *v, int n, void *ctx);
  /* Rank 0's buf [len bytes] into every rank's buf. */
  int (*bcast)(void *buf, long len, void *ctx);
  /* Every rank's buf [len bytes] to rank 0: there *all (malloc'ed, freed
   * by the caller) holds them rank after rank, lens[rank] bytes each
   * (lens of nranks); elsewhere *all is NULL. */
  int (*gather)(const void *buf, long len, unsigned char **all, long *lens, void *ctx);
  void *ctx;
} vb_study_ranks;

/* What vb_study_run did. */
typedef struct vb_study_report {
  long scenes;            /* scenes this process had to run in all */
  long kept;              /* of those, complete already (resume) */
  long ran;               /* run now */
  long failed;            /* scenes whose status is not "done" (kept or run) */
  double seconds;         /* wall time of the run, s */
  double write_seconds;   /* wall time spent writing, s */
  long first_failed;      /* index of the first scene that failed (run now or kept), or -1 */
  char first_status[160]; /* its status */
} vb_study_report;

/* Run a study's scenes (those of this rank) in parallel into OUT.part/
 * shards and, with one rank, merge them into `out` (vb_study_merge does
 * that for an MPI run).  VB_OK when done (some scenes may have failed: see
 * report->failed and the table's status); VB_EINTR when stopped; otherwise
 * an error code with the message in err, and OUT.part left for a later run
 * with resume = 1.  `out` that is a directory, an input of the study (any
 * file its load read) or an existing file that is not a vibro output is
 * refused before anything runs.  A data file that changed since the study
 * was loaded stops the run at the next scene built (VB_EINVAL, naming it). */
int vb_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
                 vb_study_report *report, char *err, size_t errlen);
/* Merge the shards every rank wrote into `out` (rank 0, after all ranks
 * returned from vb_study_run). */
int vb_study_merge(const vb_study *study, const char *out, const volatile int *stop, char *err,
                   size_t errlen);
/* The output layout of a study; param_names and param_units must hold
 * vb_study_nparams entries and outlive the layout. */
void vb_study_layout(const vb_study *study, vb_output_layout *lay, const char **param_names,
                     const char **param_units);
/* Write run (of the study's one scene, stepped by its caller and ended:
 * vb_run_end) as the study's output file out, as vb_study_run would have
 * written it, by the same crash-safe path; out is refused as vb_study_run
 * refuses it (a directory, an input, an existing file that is not a vibro
 * output).  VB_EINVAL for a study of more than one scene. */
int vb_study_write_run(const vb_study *study, const vb_run *run, const char *out, char *err,
                       size_t errlen);

/* ------------------------------------------------------ foreign callers */

/* A flat interface for callers through a foreign-function interface (the
 * Python package's ctypes): numbers, strings and opaque pointers only. */

/* Name of a scene. */
const char *vb_scene_title(const vb_scene *sc);
/* Time between recorded samples, record_every / fs, s. */
double vb_scene_sample_interval(const vb_scene *sc);
/* Name of contact c of a scene, or NULL when there is no contact c. */
const char *vb_scene_contact_name(const vb_scene *sc, int c);
/* Name of body b of a scene, or NULL when there is no body b. */
const char *vb_scene_body_name(const vb_scene *sc, int b);
/* Position x of contact c's point on its modal body, m; NaN when neither
 * of its bodies is modal or there is no contact c. */
double vb_scene_contact_x(const vb_scene *sc, int c);
/* Signal k of a run as an output file of its scene alone holds it (the
 * order and names of doc/format.md's /signals, "contacts.hit.force"): its
 * name into name, its units, rows and data; returns 0 for a series
 * [samples], 1 for modal displacements [rows][samples] (bodies.B.modes.q,
 * and its modes along w bodies.B.wmodes.q), 2 for a modal property [rows]
 * (bodies.B.modes.freq Hz, .sigma 1/s, .mass kg; with record.modes the
 * same of its modes along w, bodies.B.wmodes.*), 3 for a
 * distributed contact's signal [rows = points][samples]
 * ("contacts.D.force"), -1 when there is no signal k. */
int vb_run_signal_at(const vb_run *run, int k, char *name, size_t len, const char **units,
                     int *rows, const double **data);
/* Field k of an event row as output files store it (t_on, ...): its name,
 * units and whether it is an integer; NULL past the last. */
const char *vb_event_field(int k, const char **units, int *is_int);
/* Events of contact c of a run: their number, and with rows not NULL
 * every field of each into rows [events][fields] (doubles); -1 for no
 * contact c. */
long vb_run_events(const vb_run *run, int c, double *rows);
/* The stick and slip phases of a run's contacts with friction, in the
 * order they ended (each contact's in time order): their number into *n,
 * the array (the run's; NULL with *n = 0 for a scene without friction).
 * Each contact's share of steps sticking (over all the run's steps, NaN
 * for a contact without friction) from vb_run_stick_share. */
const vb_phase *vb_run_phases(const vb_run *run, long *n);
double vb_run_stick_share(const vb_run *run, int c);
/* The warnings `vibro check` prints for a scene, one a line without
 * "warning: ", appended to buf (len bytes); their number. */
int vb_scene_warnings(const vb_scene *sc, char *buf, size_t len);
/* The same for a study: scene 0's, then one for its other scenes. */
int vb_study_warnings(const vb_study *st, char *buf, size_t len);
/* The same with scene 0's contact starts s0[ncontacts] from
 * vb_scene_contact_states (NULL: computed here), so that `vibro check`,
 * which prints them first, builds the islands and searches the modes'
 * free response once. */
int vb_study_warnings_from(const vb_study *st, const vb_contact_start *s0, char *buf, size_t len);
/* What a scene's `analysis` block will compute, as `vibro check` says it
 * (what is sampled, how many points a scene, the impact map, Lyapunov's
 * cost), one a line appended to buf; the number of lines. */
int vb_analysis_summary(const vb_scene *sc, char *buf, size_t len);
/* vb_study_run of one rank without structs: on_progress(done, total,
 * scenes/s, seconds left, ctx) about every period s (0: 10 s), may be
 * NULL; on_stop(scenes in flight, seconds they need, ctx) once at a stop
 * request (vb_study_options.on_stop), may be NULL; report [5] receives
 * scenes, kept, ran, failed, first_failed; status the first failed
 * scene's status. */
int vb_study_run_flat(
    const vb_study *study, const char *out, int threads, int resume, const volatile int *stop,
    void (*on_progress)(long done, long total, double rate, double left, void *ctx), void *ctx,
    double period, void (*on_stop)(long running, double seconds, void *ctx), long *report,
    char *status, size_t statuslen, char *err, size_t errlen);

/* ---------------------------------------------------- subnormal numbers */

/* vb_run_exec, vb_run_exec_stop and the runs of vb_study_run set
 * flush-to-zero and denormals-are-zero (x86-64 MXCSR bits 15 and 6) in the
 * thread that steps the run, for the run only: that thread gets its own two
 * bits back when they return, so a host process keeps its setting.  A
 * ring-down's subnormal numbers would otherwise cost 15 to 20 times a
 * normal operation on many processors.  keep = 1 leaves the thread's mode
 * as the caller set it; keep = 0 (the default) flushes.  Nothing elsewhere
 * than x86-64. */
void vb_run_keep_subnormals(vb_run *run, int keep);

/* ------------------------------------------------------ a threaded BLAS */

/* Set a threaded BLAS loaded in the process (OpenBLAS, found by name) to
 * one thread; its thread count before, to give to vb_blas_unpin, or 0 when
 * there was nothing to change, or -1 when the library has not loaded its
 * LAPACK yet (it does so at the first large factorisation): the pin is then
 * kept until vb_blas_unpin(-1), and applied to OpenBLAS if that load
 * brings it in.  vb_study_run and vb_run_exec* do this for
 * their own duration; a program that calls the library's other entry
 * points (a scene's checks, its contacts' starts) may do it once at its
 * start, as `vibro` does.  OpenBLAS's setting is for the whole process. */
int vb_blas_pin(void);
/* Give the BLAS back the thread count vb_blas_pin returned (0: nothing). */
void vb_blas_unpin(int saved);

/* ------------------------------------------- friction (issue 30, step 1)
 * The friction laws' table (lib/friction.c): one row per vb_friction_kind
 * but NONE, read by the loader, the step and the output. */

/* One parameter of a friction law as the scene file names it. */
typedef struct vb_friction_param {
  const char *key;       /* scene-file key, e.g. "mu_s" */
  const char *units;     /* SI units, "1" when dimensionless */
  const char *condition; /* the valid values in words, e.g. ">= 0" */
  const char *doc;       /* what it is */
  size_t offset;         /* offset of its double in vb_friction */
  double min;            /* smallest valid value (included) */
  int required;          /* 1: the scene file must give it */
  double fallback;       /* its value when absent and not required */
} vb_friction_param;

/* Everything the library knows about a friction law. */
typedef struct vb_friction_info {
  const char *name;                /* scene-file name, "coulomb" */
  const char *doc;                 /* the law and its reference, one line */
  const vb_friction_param *params; /* NULL-key-terminated */
  vb_friction_kind kind;
  int nstate; /* doubles of state per contact (coulomb: 1, stick or slip;
                 elasto-plastic: its bristle deflection z and the step's slip) */
  /* Whether the parameters are consistent beyond each one's condition
   * (coulomb: mu_k <= mu_s); else what is wrong into why[len]. */
  int (*valid)(const vb_friction *law, char *why, size_t len);
  /* The contact's local problem of a step: the force ft (N, on body b
   * along +w) with ft in the law's set at the slip s = s_free + c ft
   * (m/s: s_free the slip the step has without friction, c > 0 its
   * compliance in m/s per N), under the normal force n >= 0 (N), over a
   * step of dt (s: a law with a state that evolves, the elasto-plastic
   * bristle, steps it); st holds the law's state at n (read) and
   * receives it at n+1.  *broke
   * is 0 at the start of a step's solve; the law sets it when the
   * contact leaves its static set and from then on answers from its slip
   * branch alone (coulomb: the kinetic cone), so that the Gauss-Seidel of
   * several contacts iterates a fixed, continuous projection. */
  double (*local)(const vb_friction *law, double n, double s_free, double c, double dt,
                  int *broke, double *st);
  /* The state at t = 0 from the initial slip rate s0, m/s. */
  void (*start)(const vb_friction *law, double s0, double *st);
  /* Whether the state says the contact sticks. */
  int (*sticks)(const double *st);
  /* The largest force it holds while sticking under the normal force n,
   * N (coulomb: mu_s n). */
  double (*hold)(const vb_friction *law, double n);
  /* The law's coefficient while slipping at slip rate s != 0 (m/s):
   * |ft| = n curve(|s|) (coulomb: mu_k; stribeck, bow: their curves); the
   * tests' cone, `vibro check` and plots read it. */
  double (*curve)(const vb_friction *law, double s);
  /* The energy the law's state stores under the normal force n (N), J:
   * the elasto-plastic bristle's n sigma0 z^2 / 2, in the potential
   * energy; NULL for a law that stores none (the step then counts all of
   * its work as friction work). */
  double (*stored)(const vb_friction *law, double n, const double *st);
  /* The bristle deflection the state holds, m; NULL for a law without
   * one (the `bristle` signal). */
  double (*deflection)(const double *st);
  /* A smooth law's force at the slip s (m/s) of a step of dt under the
   * normal force n: ft (N), its slope dft/ds into *slope, the state at
   * n+1 from st0 (the state at n) into st1; NULL for a law with a stick
   * set.  The friction solve's Newton on a stalled block reads it
   * (solvers/friction_solve.c, newton_solve): exponential, elasto-plastic. */
  double (*force)(const vb_friction *law, double n, double s, double dt, const double *st0,
                  double *st1, double *slope);
} vb_friction_info;

/* The row of a friction kind; NULL for NONE or outside the table. */
const vb_friction_info *vb_friction_info_of(vb_friction_kind kind);
/* The row of a scene-file name, or NULL. */
const vb_friction_info *vb_friction_lookup(const char *name);
/* Comma-separated names of the friction laws, for messages. */
const char *vb_friction_choices(void);
/* Comma-separated names of the schemes that step friction (vb_scheme's
 * `friction`), for messages, into buf[len]; returns buf. */
const char *vb_friction_schemes(char *buf, size_t len);

/* A run's friction signals at its last step: contact c's tangential force
 * ft (N, on b along +w), slip rate (m/s, mean over the step: 0 exactly
 * while it sticks; NaN for a point of a distributed contact while it is
 * apart, its force then 0) and running friction work (J, >= 0); NaN for a
 * contact without friction. */
double vb_run_friction_force(const vb_run *run, int c);
double vb_run_friction_slip(const vb_run *run, int c);
double vb_run_friction_work(const vb_run *run, int c);
/* The normal force N that bounded contact c's friction over its last step
 * (N: its normal law's force held over the step, or its prescribed one);
 * NaN for a contact without friction (issue 30: a distributed contact's
 * points). */
double vb_run_friction_normal(const vb_run *run, int c);
/* 1 while contact c sticks (over its last step), 0 while it slips; NaN
 * for a contact without friction. */
double vb_run_friction_sticks(const vb_run *run, int c);
/* Contact c's bristle deflection z now (m, the elasto-plastic law's
 * state); NaN for a contact whose friction law has none. */
double vb_run_friction_bristle(const vb_run *run, int c);
/* Body b's w (m) and its rate (m/s) now (a wall: its w drive); NaN for a
 * body without a w coordinate. */
double vb_run_body_w(const vb_run *run, int b);
double vb_run_body_vw(const vb_run *run, int b);
/* Point p of body b's w (m) and its rate (m/s) now: a modal body's sum
 * over its modes along w of wshape q (issue 30), a mass's or a wall's as
 * vb_run_body_w; NaN without a w direction. */
double vb_run_point_w(const vb_run *run, int b, int p);
double vb_run_point_vw(const vb_run *run, int b, int p);
/* Body b's spin now, rad/s (vb_body's sign); NaN for a body without one. */
double vb_run_body_spin(const vb_run *run, int b);
/* Whether instance i of signal s concerns the scene: always, but for the
 * tangential rows (vb_signal.tangential), which concern contacts with
 * friction and masses with a w coordinate alone. */
int vb_signal_applies(const vb_signal *s, const vb_scene *sc, int i);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VIBRO_H */
