/* bodies.c - the modal arrays every mass and modal object carries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"

/* Allocate a body's modal arrays for nmodes modes and npoints points, all
 * zero (one block for the arrays, one for the shapes). */
int
vb_body_alloc_modes(vb_body *b, int nmodes, int npoints)
{
  size_t m = (size_t)nmodes;
  vb_body_clear_modes(b);
  b->freq = calloc(6 * m + (size_t)npoints * m + 1, sizeof(double));
  b->points = calloc((size_t)npoints + 1, sizeof(vb_point));
  if (!b->freq || !b->points) {
    vb_body_clear_modes(b);
    return VB_ENOMEM;
  }
  b->nmodes = nmodes;
  b->npoints = npoints;
  b->sigma = b->freq + m;
  b->modal_mass = b->freq + 2 * m;
  b->q0 = b->freq + 3 * m;
  b->dq0 = b->freq + 4 * m;
  b->gravity = b->freq + 5 * m;
  for (int p = 0; p < npoints; p++)
    b->points[p].shape = b->freq + 6 * m + (size_t)p * m;
  return VB_OK;
}

/* A modal body's nwmodes modes along w (issue 30): wfreq, wsigma,
 * wmodal_mass, wq0, wdq0 and each point's wshape, zeroed, in one block the
 * body owns (vb_body_clear frees it). */
int
vb_body_alloc_wmodes(vb_body *b, int nwmodes)
{
  size_t m = (size_t)nwmodes;
  free(b->wfreq);
  b->wfreq = calloc(5 * m + (size_t)b->npoints * m + 1, sizeof(double));
  if (!b->wfreq) {
    b->nwmodes = 0;
    return VB_ENOMEM;
  }
  b->nwmodes = nwmodes;
  b->wsigma = b->wfreq + m;
  b->wmodal_mass = b->wfreq + 2 * m;
  b->wq0 = b->wfreq + 3 * m;
  b->wdq0 = b->wfreq + 4 * m;
  for (int p = 0; p < b->npoints; p++)
    b->points[p].wshape = b->wfreq + 5 * m + (size_t)p * m;
  return VB_OK;
}

/* Free a body's modal arrays, points and drive data. */
void
vb_body_clear_modes(vb_body *b)
{
  free(b->freq);
  free(b->points);
  b->freq = b->sigma = b->modal_mass = b->q0 = b->dq0 = b->gravity = NULL;
  b->points = NULL;
  b->nmodes = b->npoints = 0;
}

/* Free the data a drive owns. */
void
vb_drive_clear(vb_drive *d)
{
  free(d->samples);
  free(d->nfreq);
  free(d->nphase);
  free(d->namp);
  d->samples = d->nfreq = d->nphase = d->namp = NULL;
}

/* Free everything a body owns. */
void
vb_body_clear(vb_body *b)
{
  vb_body_clear_modes(b);
  vb_drive_clear(&b->drive);
  vb_drive_clear(&b->w_drive); /* issue 30 */
  free(b->wfreq);
  b->wfreq = b->wsigma = b->wmodal_mass = b->wq0 = b->wdq0 = NULL;
  b->nwmodes = 0;
  free(b->dropped);
  b->dropped = NULL;
  b->ndropped = 0;
  free(b->wdropped);
  b->wdropped = NULL;
  b->nwdropped = 0;
}

/* A mass is one mode: m (q'' + (c/m) q' + (k/m) q) = f, shape 1 at its one
 * unnamed point, pulled by gravity with participation 1. */
int
vb_body_mass_modes(vb_body *b)
{
  int rc = vb_body_alloc_modes(b, 1, 1);
  if (rc != VB_OK)
    return rc;
  b->freq[0] = sqrt(b->k / b->mass) / (2.0 * M_PI);
  b->sigma[0] = b->c / (2.0 * b->mass);
  b->modal_mass[0] = b->mass;
  b->q0[0] = b->u0;
  b->dq0[0] = b->v0;
  b->gravity[0] = 1.0;
  b->points[0].name[0] = '\0';
  b->points[0].shape[0] = 1.0;
  return VB_OK;
}
