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
#include "internal.h"
#include "scheme.h"

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
  const double *K;    /* [nc][nc] compliance of the step, m/N */
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
} vb_island_model;

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

/* The part of contact ct's compression that no mode carries (walls and
 * gap, with their drives) at time t, m, and its rate in *rate, m/s. */
double vb_contact_drive(const vb_scene *sc, const vb_contact *ct, double t, double *rate);
/* Whether a wall of contact ct or its gap is driven. */
int vb_contact_driven(const vb_scene *sc, const vb_contact *ct);
/* Chatziioannou's exact-duration omega of contact ct with effective mass
 * meff at step h, rad/s: the contact's own sqrt(k/meff), or 0.99 of the
 * scheme's limit beyond it (*limit, rad/s). */
double vb_exact_omega(const vb_contact *ct, double meff, double h, double *limit);

#endif
