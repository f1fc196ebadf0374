/* clearance.h - a point in a circular clearance (issue 30, item 4;
 * doc/geometry.md): a pin of a mass in a hole of a wall or of another mass,
 * a rotor in its stator.  Its gap is |d| - c with d = (u_b - u_a, w_b - w_a)
 * the relative position of the two centres in the (u, w) plane and c the
 * clearance, and its force acts along the radial direction, so it couples
 * the bodies' coordinates along u (the island's modes) and along w (the
 * tangential coordinates of friction.h).  An island with a circular
 * contact is stepped by clearance.c as a whole: the two-level family's
 * trapezoidal rule on every coordinate, and each contact's force the
 * discrete gradient of a central potential (LaBudde & Greenspan 1974;
 * Gonzalez 1996), found by Newton on the 2-D unknowns d^(n+1) of its
 * contacts; a contact's friction acts along the tangent of the step's mean
 * position, solved with that Newton by block Gauss-Seidel (not installed). */
#ifndef VIBRO_CLEARANCE_H
#define VIBRO_CLEARANCE_H

#include <stddef.h>
#include "base/base.h"

struct vb_island_model;
struct vb_island_state;

/* The circular contacts of one island, compiled: const after
 * vb_clearance_compile.  Every contact of such an island is circular. */
typedef struct vb_clearance_model {
  int nc;                 /* contacts (the island's, all circular) */
  const int *ua, *ub;     /* [nc] island mode of body a's and b's u, -1 for a wall */
  const int *wa, *wb;     /* [nc] tangential coordinate (friction.h) of their w, -1
                             for a wall */
  const vb_body **walla;  /* [nc] body a when a wall, else NULL */
  const vb_body **wallb;  /* [nc] body b when a wall, else NULL */
  const double *clear;    /* [nc] clearance c, m */
  const double *W;        /* [2nc][2nc] compliance of a step: d^(n+1) = d~ + W F, F the
                             forces on the contacts' b (a takes -F), rows and columns
                             (u, w) per contact, m/N */
  /* Friction in the clearance (one contact per island): its index among
   * the tangential model's friction contacts (friction.h, whose arrays
   * ft, slip, normal, work and st it fills, so that the signals, phases and
   * tables read it as any), -1 without friction; its spins, -1 for none. */
  int fi;
  int sa, sb;             /* the spin coordinates of a and b (friction.h) */
  double ra, rb;          /* their levers: the hole's radius (a), the pin's (b), m */
  int max_iterations;     /* Newton's cap: the largest of the contacts' */
  double tolerance;       /* its relative tolerance: the smallest of theirs */
  void *block;            /* the storage behind the arrays */
} vb_clearance_model;

/* Scratch of a step, sized once from the model. */
typedef struct vb_clearance_state {
  double *d0, *dfree, *d1, *dtry; /* [2nc] d^n, the free d~, Newton's iterate, a trial, m */
  double *F, *R, *Rtry, *dx;      /* [2nc] forces (N), residuals (m), the update (m) */
  double *G;                      /* [nc][4] dF/dd^(n+1) of each contact, N/m */
  double *fb, *x1;                /* [nc] radial step force (N) and penetration (m) */
  double *ftan;                   /* [nc] tangential force of the step (N, on b along t) */
  double *J;                      /* [2nc][2nc] Newton's matrix */
  int *piv;                       /* [2nc] */
  void *block;
} vb_clearance_state;

/* Compile island m's circular contacts (after its modes, contacts and
 * tangential coordinates): *out NULL when it has none.  VB_EINVAL with
 * "file:line: object: what (valid: ...)" for what is not done (a line
 * contact in the same island, more than 8 circular contacts in one
 * island); VB_ENOMEM. */
int vb_clearance_compile(const struct vb_island_model *m, vb_clearance_model **out, char *err,
                         size_t errlen);
/* Free a model; NULL is a no-op. */
void vb_clearance_model_free(vb_clearance_model *cm);
/* Allocate the scratch of a model (NULL model: *out NULL, VB_OK); free with
 * vb_clearance_state_free (NULL is a no-op). */
int vb_clearance_state_alloc(const vb_clearance_model *cm, vb_clearance_state **out);
void vb_clearance_state_free(vb_clearance_state *cs);
/* The contacts' histories at t = 0 from the bodies' (u, w) (vb_island_start,
 * after vb_friction_start, before vb_island_energy). */
void vb_clearance_start(const struct vb_island_model *m, struct vb_island_state *s);
/* Step the whole island from n to n + 1 under the external forces that
 * s->gen holds for the step (vb_island_step forms them and adds the energy
 * at n+1 after): VB_OK,
 * VB_ENOCONV (Newton hit its cap; the step is taken with its last iterate's
 * forces), VB_EDIVERGED (a non-finite state). */
int vb_clearance_step(const struct vb_island_model *m, struct vb_island_state *s, long n);

#endif
