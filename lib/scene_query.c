/* scene_query.c - figures of a scene's contacts from its compiled model
 * only (vibro check and the loader's reports): effective mass, initial
 * state along the compression, impact rate, exact-duration figures. */
#include <math.h>
#include <stdlib.h>

#include "model.h"

/* Time until free flight from penetration p < 0 at rate r under constant
 * acceleration a reaches p = 0 (p + r t + a t^2 / 2 = 0), s; +inf if never. */
static double
time_to_contact(double p, double r, double a)
{
  double disc = r * r - 2.0 * a * p;
  if (a == 0.0)
    return r > 0.0 ? -p / r : INFINITY;
  if (disc < 0.0)
    return INFINITY;
  /* the smallest positive root, in the form free of cancellation */
  double q = -0.5 * (r + (r >= 0.0 ? sqrt(disc) : -sqrt(disc)));
  double t1 = q / (0.5 * a), t2 = q != 0.0 ? p / q : INFINITY;
  double lo = fmin(t1, t2), hi = fmax(t1, t2);
  return lo > 0.0 ? lo : hi > 0.0 ? hi : INFINITY;
}

/* Side of the barrier a contact at compression x, rate v and acceleration
 * a presses on, or, for a two-sided law inside its clearance, the side its
 * free flight reaches first (a bead thrown up in a box hits the lid). */
static double
first_side(const vb_law *law, double x, double v, double a)
{
  double up = vb_law_side_penetration(law, 1.0, x), down = vb_law_side_penetration(law, -1.0, x);
  if (!vb_law_info_of(law->kind)->two_sided || !(up < 0.0 && down < 0.0))
    return vb_law_side(law, x);
  return time_to_contact(down, -v, -a) < time_to_contact(up, v, a) ? -1.0 : 1.0;
}

/* Initial state of contact c along its compression, from a model. */
static void
contact_state(const vb_model *md, int c, double *p0, double *v0, double *a0, double *meff)
{
  const vb_scene *scene = md->scene;
  const vb_island_model *m = &md->islands[md->contact_island[c]];
  int k = md->contact_local[c];
  const vb_contact *ct = &scene->contacts[c];
  const double *row = m->S + (size_t)k * m->nmp;
  double x = 0.0, v = 0.0, rate;
  for (int ib = 0; ib < m->nb; ib++) {
    const vb_body *b = &scene->bodies[m->bodies[ib]];
    for (int j = 0; j < b->nmodes; j++) {
      x += row[m->offsets[ib] + j] * b->q0[j];
      v += row[m->offsets[ib] + j] * b->dq0[j];
    }
  }
  x += vb_contact_drive(scene, ct, 0.0, &rate);
  v += rate;
  double sign = first_side(&ct->law, x, v, m->aext[k]);
  *p0 = vb_law_side_penetration(&ct->law, sign, x);
  *v0 = sign * v;
  *a0 = sign * m->aext[k];
  *meff = m->meff[k];
}

/* Effective mass along a contact of a scene. */
double
vb_scene_contact_mass(const vb_scene *scene, int c)
{
  vb_model *md;
  char err[8];
  if (vb_model_compile(scene, &md, err, sizeof err) != VB_OK)
    return NAN;
  double m = md->islands[md->contact_island[c]].meff[md->contact_local[c]];
  vb_model_free(md);
  return m;
}

/* A contact's initial state along its compression: penetration p0 (m),
 * its rate v0 (m/s), the constant free-flight acceleration of the
 * penetration from gravity a0 (m/s^2), and the effective mass meff (kg);
 * NaN when the scene cannot build. */
static void
scene_contact_state(const vb_scene *scene, int c, double *p0, double *v0, double *a0,
                    double *meff)
{
  vb_model *md;
  char err[8];
  *p0 = *v0 = *a0 = *meff = NAN;
  if (vb_model_compile(scene, &md, err, sizeof err) != VB_OK)
    return;
  contact_state(md, c, p0, v0, a0, meff);
  vb_model_free(md);
}

/* Impact rate from free flight out of the initial state. */
double
vb_scene_approach_rate(const vb_scene *scene, int c, double *meff)
{
  double p0, v0, a0, m;
  scene_contact_state(scene, c, &p0, &v0, &a0, &m);
  if (meff)
    *meff = m;
  if (!(p0 <= 0.0) || (v0 <= 0.0 && a0 <= 0.0))
    return 0.0;
  double v2 = v0 * v0 - 2.0 * a0 * p0;
  return v2 > 0.0 ? sqrt(v2) : 0.0;
}

/* The initial state of every contact from one build of the islands
 * (vibro check on many contacts: one build, not one each). */
void
vb_scene_contact_states(const vb_scene *scene, vb_contact_start *out)
{
  vb_model *md;
  char err[8];

  if (vb_model_compile(scene, &md, err, sizeof err) != VB_OK) {
    for (int c = 0; c < scene->ncontacts; c++)
      out[c] = (vb_contact_start){NAN, NAN, NAN, NAN, NAN};
    return;
  }
  for (int c = 0; c < scene->ncontacts; c++) {
    vb_contact_start *s = &out[c];
    contact_state(md, c, &s->p0, &s->v0, &s->a0, &s->meff);
    double v2 = s->v0 * s->v0 - 2.0 * s->a0 * s->p0;
    s->rate = !(s->p0 <= 0.0) || (s->v0 <= 0.0 && s->a0 <= 0.0) ? 0.0 : v2 > 0.0 ? sqrt(v2) : 0.0;
  }
  vb_model_free(md);
}

/* The impact rate and effective mass of every contact from one build. */
void
vb_scene_approach_rates(const vb_scene *scene, double *rate, double *meff)
{
  vb_contact_start *s = malloc(((size_t)scene->ncontacts + 1) * sizeof *s);

  for (int c = 0; !s && c < scene->ncontacts; c++) /* out of memory: a build each */
    rate[c] = vb_scene_approach_rate(scene, c, &meff[c]);
  if (!s)
    return;
  vb_scene_contact_states(scene, s);
  for (int c = 0; c < scene->ncontacts; c++) {
    rate[c] = s[c].rate;
    meff[c] = s[c].meff;
  }
  free(s);
}

/* Exact-duration figures of an alpha = 1 contact. */
void
vb_contact_exact_duration(const vb_scene *scene, int c, double *omega, double *limit, double *used)
{
  const vb_contact *ct = &scene->contacts[c];
  double m = vb_scene_contact_mass(scene, c);
  *omega = sqrt(ct->law.k / m);
  *used = vb_exact_omega(ct, m, 1.0 / scene->fs, limit);
}
