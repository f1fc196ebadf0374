/* model.h - the compiled model of a scene: its islands, the families'
 * coefficients and the geometry of its contacts (not installed).
 *
 * An island is a set of bodies joined by contacts (walls, being fixed or
 * driven, join nothing; a body in no contact is an island of its own).
 * vb_model_compile builds, once per scene, a const vb_island_model per
 * island (model.c): modes laid out contiguously, the family's update
 * coefficients (its row's mode hook, step.c), the compression rows S and
 * the step compliance K.  The run state is island.h's. */
#ifndef VIBRO_MODEL_H
#define VIBRO_MODEL_H

#include <stddef.h>
#include "base/base.h"
#include "scheme.h"

/* ------------------------------------------------------------ families */

/* One mode as a family compiles it: its frequency (Hz), decay rate (1/s),
 * modal mass (kg), the scene's rate fs (Hz) and step dt (s), and the
 * island's scheme when the family steps with one (explicit). */
typedef struct vb_mode_in {
  double freq, sigma, mass, fs, dt;
  const vb_scheme *scheme;
} vb_mode_in;

/* A mode's update coefficients in its family (model.c's header). */
typedef struct vb_mode_coef {
  double w2, sig;    /* omega^2 (1/s^2) and sigma (1/s) the family uses */
  double ca, cb, cc; /* update coefficients */
  double dcoef;      /* dissipation coefficient of a step */
  double mw2;        /* modal mass times w2, N/m */
} vb_mode_coef;

/* A scheme family: how an island's modes and contacts are stepped.  One
 * row per vb_family in step.c's table (vb_family_of); the model, the
 * state, the step, the events, the loader and the registry's check ask
 * it, never the enum.  The island is opaque here: a scheme sees only its
 * contacts' histories, a vb_kproblem or a vb_system. */
typedef struct vb_family_ops {
  const vb_family_info *info; /* its facts (solvers/registry.c's row) */
  /* Update coefficients of one mode; VB_OK, or VB_EINVAL with what is
   * wrong after "mode k" in why[len] (" at 30000 Hz is beyond ..."). */
  int (*mode)(const vb_mode_in *in, vb_mode_coef *out, char *why, size_t len);
  /* Start: the family's velocity of mode j (of continuous omega w0,
   * rad/s, and sigma sig, 1/s) from the initial q0 (m), v0 (m/s) and
   * generalised force g (N); NULL to keep v0. */
  double (*start_velocity)(const struct vb_island_model *m, int j, double w0, double sig, double q0,
                           double v0, double g);
  /* After the start and after a correction: the family's own derived
   * state (explicit: accelerations and powers), or NULL. */
  void (*refresh)(const struct vb_island_model *m, struct vb_island_state *s);
  /* Free motion of the island over the step from n to n + 1: the
   * generalised force, qt and xt (implicit families), or NULL. */
  void (*predict)(const struct vb_island_model *m, struct vb_island_state *s, long n);
  /* Solve one implicit step's contacts (the K-method, or the scheme's
   * linear solve); NULL for a family whose step needs none. */
  int (*solve)(const struct vb_kproblem *p);
  /* Advance the island from n to n + 1; VB_OK, VB_ENOCONV, VB_EDIVERGED. */
  int (*step)(const struct vb_island_model *m, struct vb_island_state *s, long n);
  /* The modes' discrete energy: kinetic and potential, J. */
  void (*energy)(const struct vb_island_model *m, const struct vb_island_state *s, double *kin,
                 double *pot);
} vb_family_ops;

/* The row of family f (step.c). */
const vb_family_ops *vb_family_of(vb_family f);

/* --------------------------------------------------------------- model */

/* One island, compiled: const after vb_model_compile. */
typedef struct vb_island_model {
  const vb_scene *scene;
  vb_family family;
  const vb_family_ops *fam; /* its row of the family table */
  const vb_scheme *scheme;  /* a one-scheme family (explicit): the scheme; else NULL */
  double dt;               /* s */
  int nm;                  /* modes */
  int nmp;                 /* modes padded to a multiple of 8 (zeros beyond nm):
                              the stride of every per-mode row */
  int nc;                  /* contacts */
  int nb;                  /* bodies */
  int nf;                  /* forces of the scene acting on the island */
  int npts;                /* recorded points of the island's bodies */
  int has_gen;             /* some mode has a generalised force (gravity, forces) */
  const int *contacts;     /* [nc] scene contact indices */
  const vb_contact *cts;   /* [nc] the contacts as compiled: exact_duration
                              sets the stiffness to its beta* value */
  const int *bodies;       /* [nb] scene body indices */
  const int *offsets;      /* [nb] island index of each body's first mode */
  const int *forces;       /* [nf] scene force indices */
  const int *force_mode;   /* [nf] first island mode of the force's body */
  /* modes [nmp] */
  const double *mass;         /* modal mass, kg (1 in the padding) */
  const double *w2;           /* omega^2 used by the family (warped), 1/s^2 */
  const double *sig;          /* sigma used by the family (warped), 1/s */
  const double *ca, *cb, *cc; /* the family's update coefficients (model.c) */
  const double *dcoef;        /* per-mode dissipation coefficient of a step */
  const double *mw2;          /* modal mass times omega^2, N/m */
  const double *gconst;       /* constant generalised force (gravity), N */
  /* contacts */
  const double *S;    /* [nc][nmp] compression per unit modal displacement */
  const double *K;    /* [nc][nc] compliance of the step, m/N; NULL where
                         `lowrank` (and in a model for queries) */
  int lowrank;        /* no dense K: the solve forms K's entries and products
                         from S and cc (solvers/lowrank.c), an island of more
                         than VB_LOWRANK_MIN_CONTACTS contacts (model.c) */
  int kcap;           /* lowrank: the largest active set whose K_AA the solve
                         forms (vb_kproblem.kcap); 0 otherwise */
  const double *meff; /* [nc] effective mass along each contact, kg */
  const double *aext; /* [nc] free-flight acceleration of each compression, m/s^2 */
  /* recorded points */
  const double *P;                  /* [npts][nmp] displacement per unit modal displacement */
  const int *point_first;           /* [nb] row of each body's first recorded point */
  const int *point_from, *point_to; /* [npts] the row's nonzero modes, in blocks of 8 */
  void *block;                      /* the storage behind the arrays (model.c) */
  /* The tangential direction and friction (issue 30; friction.h): NULL
   * when the island has no w coordinate and no friction. */
  struct vb_friction_model *fric;
  /* Its circular clearances (issue 30, item 4; clearance.h): NULL when it
   * has none (then the family steps it). */
  struct vb_clearance_model *clr;
  /* Its contact point moving along a modal body (issue 30, item 5;
   * moving.h): NULL when it has none. */
  struct vb_moving_model *mov;
} vb_island_model;

/* Islands of more contacts than this and than four times their modes
 * (that can: the K-method without friction or closed forms, model.c) keep
 * no dense nc x nc compliance and are solved through their modes
 * (solvers/lowrank.c).  Measured (tests/bench/bench_lowrank, the bridge
 * string of 200 modes, 0.05 s, per step / set-up / MiB, dense then
 * through the modes): 256 points 55 / 75 us, 1024 points 1293 / 1363 us
 * (0.069 / 0.006 s, 22.5 / 7.2 MiB: the same whole run), 2048 points 9380
 * / 3518 us (0.315 / 0.010 s, 77 / 13.7 MiB).  Below 4 nm contacts the
 * active sets stay under the modes, where the dense K's rows are cheaper
 * than forming K_AA from them. */
#define VB_LOWRANK_MIN_CONTACTS 1024

/* A scene compiled for stepping at dt = 1/fs: its islands, and where each
 * body and contact lives.  Const after compilation; shared by the runs of
 * the scene. */
typedef struct vb_model {
  const vb_scene *scene;
  double dt; /* s */
  int nislands;
  vb_island_model *islands; /* [nislands] */
  int *contact_island;      /* [ncontacts] island of each contact */
  int *contact_local;       /* [ncontacts] its index within the island */
  int *body_island;         /* [nbodies] island of each body, -1 for walls */
  int *body_offset;         /* [nbodies] island index of its first mode, or -1 */
  int no_compliance;        /* built by vb_model_compile_queries: islands' K is NULL */
} vb_model;

/* Compile a scene (model.c).  *out receives the model (free with
 * vb_model_free).  VB_EINVAL with "file:line: object: what (valid: ...)"
 * when a mode cannot be stepped (at or above Nyquist, beyond an explicit
 * scheme's stability limit, no positive three-level energy), when two
 * families meet in one island or an exact duration is out of reach;
 * VB_ENOMEM. */
int vb_model_compile(const vb_scene *sc, vb_model **out, char *err, size_t errlen);
/* The same, with the same checks and refusals, but without the islands'
 * dense compliance K (NULL): what the loader's validation and the queries
 * of a scene's contacts (scene_query.c: S rows, effective masses, the
 * modes' free response) read.  K is nc^2 doubles formed in nc^2 x modes
 * multiply-adds: 512 MiB and most of a build at 8192 points, which vibro
 * check paid for twice more than the run it times.  Not for stepping. */
int vb_model_compile_queries(const vb_scene *sc, vb_model **out, char *err, size_t errlen);
/* Free a model; NULL is a no-op. */
void vb_model_free(vb_model *m);
/* Row of point p of scene body b among the island's recorded points, or -1. */
int vb_island_point_row(const vb_island_model *m, int b, int p);

/* Chatziioannou's exact-duration omega of contact ct with effective mass
 * meff at step h, rad/s: the contact's own sqrt(k/meff), or 0.99 of the
 * scheme's limit beyond it (*limit, rad/s). */
double vb_exact_omega(const vb_contact *ct, double meff, double h, double *limit);

#endif
