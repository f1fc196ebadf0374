/* moving.h - a contact point that moves along its modal body (issue 30,
 * item 5; doc/geometry.md): the point of a modal body where a contact with
 * a mass acts follows a drive, or the mass's own w, along a track of the
 * body's points, its shapes interpolated between the two points around it
 * at each step.  An
 * island with such a contact (its only contact, two-point) is stepped by
 * moving.c as a whole (not installed). */
#ifndef VIBRO_MOVING_H
#define VIBRO_MOVING_H

#include <stddef.h>
#include "base/base.h"

struct vb_island_model;
struct vb_island_state;

/* The island's moving contact, compiled (const). */
typedef struct vb_moving_model {
  int first, nmodes;       /* the modal body's first island mode and its modes */
  double sign;             /* +1 when the modal body is the contact's a, -1 as its b */
  int mass_mode;           /* the mass's island mode */
  double mass_sign;        /* its S entry: +1 as a, -1 as b */
  int ntrack;
  const double *const *shape; /* [ntrack] the track points' shapes, [nmodes] each */
  const double *at;        /* [ntrack] their positions, m */
  const vb_drive *drive;   /* the point's position along the track, m */
  int follow;              /* the point follows the mass's w: p = start + w */
  int wj;                  /* follow: the mass's w among the friction model's coordinates */
  int fi;                  /* follow: the contact among the friction model's contacts, -1
                              without friction (its row: the mass's w, its spin) */
  double start;            /* follow: the point's position at w = 0, m */
  void *block;
} vb_moving_model;

/* Doubles per island mode of a following point's scratch (s->mws). */
#define VB_MOVING_WS 7

/* Compile island m's moving contact: *out NULL when it has none (a point
 * that follows its mass's w may have friction, and the mass a spin, only
 * together: moving.c); VB_EINVAL
 * ("file:line: object: what (valid: ...)") when the island has another
 * contact; VB_ENOMEM. */
int vb_moving_compile(const struct vb_island_model *m, vb_moving_model **out, char *err,
                      size_t errlen);
void vb_moving_model_free(vb_moving_model *mm);
/* The compression row S of the point at position p along the track into
 * row[nmp] (zero elsewhere): the modal body's shapes linear between the
 * two track points around p (clamped to the ends), and the mass's +-1. */
void vb_moving_row(const struct vb_island_model *m, double p, double *row);
/* The contact's history at t = 0 with the row at the point's position
 * then (vb_island_start, before vb_island_energy). */
void vb_moving_start(const struct vb_island_model *m, struct vb_island_state *s);
/* The point's position along the track now, m (the drive at t, or start
 * + the mass's w). */
double vb_moving_position(const struct vb_island_model *m, const struct vb_island_state *s,
                          double t);
/* Step the island from n to n + 1 under the external forces s->gen holds
 * (vb_island_step forms them and the energy after): VB_OK, VB_ENOCONV,
 * VB_EDIVERGED. */
int vb_moving_step(const struct vb_island_model *m, struct vb_island_state *s, long n);

#endif
