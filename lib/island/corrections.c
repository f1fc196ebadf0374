/* corrections.c - Papetti section 4.2: moving a contact's compression and
 * rate by a given amount at the current step, the change shared between
 * the contact's bodies by their compliance.  The run decides when (the
 * x_max clip and the v_out impulse, events.c); this file says how. */
#include <math.h>
#include "island.h"

/* Papetti 4.2 corrections, shared by compliance. */
double
vb_island_correct(const vb_island_model *m, vb_island_state *s, int c, double dx, double dv)
{
  s->ahead = 0; /* the prediction made in passing is stale */
  int nm = m->nm;
  const double *row = m->S + (size_t)c * m->nmp;
  double before = s->kinetic + s->potential;
  for (int j = 0; j < nm; j++) {
    /* the minimal mass-weighted change: delta q_j = S_j / M_j * m_eff * dx */
    double g = row[j] / m->mass[j] * m->meff[c];
    s->q[j] += g * dx;
    s->v[j] += g * dv;
  }
  vb_chist *hc = &s->hist[c];
  hc->x += dx;
  hc->rate += dv;
  hc->xm = hc->x;
  hc->f = vb_law_force(&s->act[c].law, hc->x, hc->rate);
  s->fbar[c] = hc->f;
  /* the other contacts of the island see their bodies move too */
  for (int d = 0; d < m->nc; d++) {
    if (d == c)
      continue;
    const double *rd = m->S + (size_t)d * m->nmp;
    double sx = 0.0, sv = 0.0;
    for (int j = 0; j < nm; j++) {
      double g = row[j] / m->mass[j] * m->meff[c];
      sx += rd[j] * g;
      sv += rd[j] * g;
    }
    s->hist[d].x += sx * dx;
    s->hist[d].rate += sv * dv;
  }
  if (m->fam->refresh)
    m->fam->refresh(m, s); /* explicit: accelerations and powers */
  vb_island_energy(m, s);
  double added = s->kinetic + s->potential - before;
  s->corrected += added;
  return added;
}
