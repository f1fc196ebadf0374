/* nyquist.c - modes at or above the Nyquist frequency fs/2 (issue 18).
 *
 * The three-level families (three-level, sav: levels 3 in the family
 * table) step every mode by its exact recursion
 * (a1 = 2 e^(-sigma h) cos(omega_d h), a2 = e^(-2 sigma h): step.c's
 * mode_three_level), which reproduces the sampled free response of any
 * mode, aliased, so they keep them.  The two-level family's bilinear pre-warp maps
 * only (0, fs/2) and the explicit schemes are unstable there: a body in
 * such an island loses its modes at or above fs/2 at load, and the body
 * records how many and which (vb_body.ndropped, .dropped), which vibro
 * check and vibro run report.
 *
 * Modes along w (issue 30) are stepped by the two-level trapezoidal rule
 * whatever the island's scheme (lib/island/friction.c, doc/friction.md),
 * so theirs at or above fs/2 are always dropped, recorded in
 * vb_body.nwdropped, .wdropped; a body left without any is refused. */
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scheme.h"

/* Whether the family that steps body i keeps its modes at or above fs/2:
 * that of the contacts that move it (one per island, model.c's
 * island_families; two-level without any) steps its modes by the exact
 * centred recursion (levels 3: three-level, sav). */
static int
keeps_aliased(const vb_scene *sc, int i)
{
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (ct->a == i || ct->b == i)
      return vb_family_info_of(ct->scheme->family)->levels == 3;
  }
  return 0;
}

/* Drop the modes with keep[j] == 0 of m, compacting the narrays arrays
 * and, in each of body b's points, the shapes along u (w = 0) or along w
 * (w = 1) in place; their indices into *dropped (allocated, ndrop of
 * them).  The modes kept, or -1 out of memory. */
static int
compact(vb_body *b, int m, const char *keep, int ndrop, double *const *arrays, int narrays,
        int w, int **dropped)
{
  int k = 0, d = 0;
  if ((*dropped = malloc((size_t)ndrop * sizeof **dropped)) == NULL)
    return -1;
  for (int j = 0; j < m; j++) {
    if (!keep[j]) {
      (*dropped)[d++] = j;
      continue;
    }
    for (int a = 0; a < narrays; a++)
      arrays[a][k] = arrays[a][j];
    for (int p = 0; p < b->npoints; p++) {
      double *shape = w ? b->points[p].wshape : b->points[p].shape;
      shape[k] = shape[j];
    }
    k++;
  }
  return k;
}

/* Drop from body b the modes with keep[j] == 0, compacting every modal
 * array and shape in place, and record their indices. */
static int
drop_modes(vb_body *b, const char *keep, int ndrop)
{
  double *arrays[] = {b->freq, b->sigma, b->modal_mass, b->q0, b->dq0, b->gravity};
  int k = compact(b, b->nmodes, keep, ndrop, arrays, 6, 0, &b->dropped);
  if (k < 0)
    return VB_ENOMEM;
  b->ndropped = ndrop;
  b->nmodes = k;
  return VB_OK;
}

/* The same for the modes along w and the points' shapes along w. */
static int
drop_wmodes(vb_body *b, const char *keep, int ndrop)
{
  double *arrays[] = {b->wfreq, b->wsigma, b->wmodal_mass, b->wq0, b->wdq0};
  int k = compact(b, b->nwmodes, keep, ndrop, arrays, 5, 1, &b->wdropped);
  if (k < 0)
    return VB_ENOMEM;
  b->nwdropped = ndrop;
  b->nwmodes = k;
  return VB_OK;
}

/* The modes along w of body b at or above fs/2, dropped; VB_OK, VB_ENOMEM,
 * or VB_EINVAL when none would be left. */
static int
drop_aliased_wmodes(vb_body *b, double fs)
{
  int ndrop = 0;
  for (int j = 0; j < b->nwmodes; j++)
    ndrop += b->wfreq[j] >= 0.5 * fs;
  if (ndrop == 0)
    return VB_OK;
  if (ndrop == b->nwmodes)
    return VB_EINVAL;
  char *keep = malloc((size_t)b->nwmodes);
  if (keep == NULL)
    return VB_ENOMEM;
  for (int j = 0; j < b->nwmodes; j++)
    keep[j] = b->wfreq[j] < 0.5 * fs;
  int rc = drop_wmodes(b, keep, ndrop);
  free(keep);
  return rc;
}

/* Drop the modes at or above fs/2 of every modal body whose island's
 * family cannot step them, and every modal body's modes along w at or
 * above fs/2; VB_OK, VB_ENOMEM, or VB_EINVAL with *bad the body whose
 * modes along w all are. */

int
vb_drop_aliased_modes(vb_scene *sc, int *bad)
{
  for (int i = 0; i < sc->nbodies; i++) {
    vb_body *b = &sc->bodies[i];
    int ndrop = 0;
    if (b->kind == VB_BODY_MODAL && b->nwmodes > 0) {
      int rc = drop_aliased_wmodes(b, sc->fs);
      if (rc != VB_OK) {
        *bad = i;
        return rc;
      }
    }
    if (b->kind != VB_BODY_MODAL || keeps_aliased(sc, i))
      continue;
    for (int j = 0; j < b->nmodes; j++)
      ndrop += b->freq[j] >= 0.5 * sc->fs;
    if (ndrop == 0 || ndrop == b->nmodes) /* none left: model.c refuses the body */
      continue;
    char *keep = malloc((size_t)b->nmodes);
    if (keep == NULL)
      return VB_ENOMEM;
    for (int j = 0; j < b->nmodes; j++)
      keep[j] = b->freq[j] < 0.5 * sc->fs;
    int rc = drop_modes(b, keep, ndrop);
    free(keep);
    if (rc != VB_OK)
      return rc;
  }
  return VB_OK;
}

/* The highest mode a body kept, Hz (0 without modes). */
double
vb_body_highest_mode(const vb_body *b)
{
  double f = 0.0;
  for (int j = 0; j < b->nmodes; j++)
    f = b->freq[j] > f ? b->freq[j] : f;
  return f;
}
