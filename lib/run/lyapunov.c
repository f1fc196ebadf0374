/* lyapunov.c - the largest Lyapunov exponent of a run by the two-
 * trajectory method (Benettin, Galgani, Giorgilli & Strelcyn 1980, Meccanica
 * 15; Wolf, Swift, Swinney & Vastano 1985, Physica D 16): a twin of the
 * run's islands, started d0 away from the run, is stepped alongside it by
 * the same scheme and step; every interval tau the separation d_k is
 * measured and the twin moved back to d0 along it, and
 *     lambda = sum_k ln(d_k / d0) / (t_end - t_start),
 * d0 being the offset the interval began with: rel times the largest norm
 * of the run's state met so far.
 *
 * The norm (doc/analysis.md): over every mode j of every island,
 *     d^2 = sum_j (dq_j)^2 + (dv_j / Omega)^2,   Omega = 2 pi / T,
 * with dq the modal displacement's and dv the modal velocity's difference
 * (three-level: the velocity of the step into n, (q - q^(n-1)) / dt), so
 * d is a length, m; T is the drive period.  Renormalisation scales the
 * modes' separation and re-derives the contacts' histories and the
 * schemes' states from it (island.c's vb_island_state_blend), so that no
 * part of the separation the norm does not see is scaled up with it.
 *
 * Nothing here allocates after vb_lyapunov_attach; the twin never touches
 * the run's states, so the run's results are those of a run without it. */
#include <math.h>
#include <stdlib.h>
#include "analysis.h"
#include "lyapunov.h"

struct vb_lyapunov {
  vb_island_state **twin; /* [nislands] the twin's states */
  double *dq, *dv;        /* [largest nm] the first displacement, m and m/s */
  double omega;           /* Omega of the norm, rad/s */
  double tau;             /* renormalisation interval, s */
  double rel;             /* d0 relative to the largest state norm met (scale) */
  double d0;              /* the separation the twin is held at now, m */
  double scale;           /* largest norm of the run's state at a measurement, m */
  long n_start;           /* step at which the twin starts */
  long n_mid;             /* intervals beginning at or after it make the second half */
  long n_last;            /* step of the last measurement */
  long n_half;            /* step where the second half's first interval begins, or -1 */
  long k;                 /* intervals measured */
  double sum;             /* sum of ln(d_k / d0) */
  double sum_half;        /* the same over the second half's intervals */
  double rel0;            /* the perturbation before the run's impacts (1) */
  long *seen;             /* [ncontacts] events of each contact already counted */
  double recent[LYAPUNOV_RECENT]; /* steps the last impacts lasted (a ring) */
  long nrecent;           /* impacts put in the ring since the run began */
  int from_impacts;       /* rel follows the run's impacts (the default) */
  int started, failed, done, collapsed;
};

/* ---------------------------------------------------------- allocation */

/* Free a twin and its states. */
void
vb_lyapunov_free(vb_lyapunov *ly)
{
  if (!ly)
    return;
  if (ly->twin)
    for (int i = 0; ly->twin[i]; i++)
      vb_island_state_free(ly->twin[i]);
  free(ly->twin);
  free(ly->dq);
  free(ly->seen);
  free(ly);
}

/* The scene's lowest mode frequency above 0, Hz, or 0 when it has none. */
static double
lowest_frequency(const vb_scene *sc)
{
  double low = 0.0;
  for (int b = 0; b < sc->nbodies; b++)
    for (int k = 0; k < sc->bodies[b].nmodes; k++) {
      double f = sc->bodies[b].freq[k];
      if (f > 0.0 && (low == 0.0 || f < low))
        low = f;
    }
  return low;
}

/* Check the options and the scene against what the twin can do. */
static int
check(const vb_run *run, const vb_lyapunov_opts *o, char *err, size_t errlen)
{
  const vb_scene *sc = run->scene;
  if (!(o->perturbation > 0.0 && o->perturbation < 1.0))
    return vb_errf(err, errlen, VB_EINVAL,
                   "scene '%s': analysis 'lyapunov': perturbation %g is out of range (valid: > 0 "
                   "and < 1)",
                   sc->name, o->perturbation);
  if (!(o->renormalise > 0.0 && isfinite(o->renormalise)))
    return vb_errf(err, errlen, VB_EINVAL,
                   "scene '%s': analysis 'lyapunov': renormalise %g is not a positive number of "
                   "periods (valid: > 0)",
                   sc->name, o->renormalise);
  if (!(o->period >= 0.0 && isfinite(o->period)) || !(o->start >= 0.0 && isfinite(o->start)))
    return vb_errf(err, errlen, VB_EINVAL,
                   "scene '%s': analysis 'lyapunov': period %g s or start %g s is negative "
                   "(valid: >= 0)",
                   sc->name, o->period, o->start);
  for (int c = 0; c < sc->ncontacts; c++)
    if (sc->contacts[c].corrections)
      return vb_errf(err, errlen, VB_EINVAL,
                     "scene '%s': analysis 'lyapunov': contact '%s' has corrections, which the "
                     "twin cannot apply: it keeps no events (valid: corrections = [] with "
                     "lyapunov)",
                     sc->name, sc->contacts[c].name);
  return VB_OK;
}

/* Check the options, allocate the twin's states and set its schedule. */
int
vb_lyapunov_attach(vb_run *run, const vb_lyapunov_opts *o, char *err, size_t errlen)
{
  int rc = check(run, o, err, errlen);
  if (rc != VB_OK)
    return rc;
  const vb_model *m = run->model;
  vb_lyapunov *ly = calloc(1, sizeof *ly);
  int nm = 1;
  for (int i = 0; i < m->nislands; i++) {
    nm = m->islands[i].nm > nm ? m->islands[i].nm : nm;
    if (m->islands[i].fric) /* the tangential coordinates' displacement too */
      nm = m->islands[i].fric->nt > nm ? m->islands[i].fric->nt : nm;
  }
  if (!ly || !(ly->twin = calloc((size_t)m->nislands + 1, sizeof *ly->twin)) ||
      !(ly->dq = calloc(2 * (size_t)nm, sizeof(double))) ||
      !(ly->seen = calloc((size_t)run->scene->ncontacts + 1, sizeof *ly->seen)))
    goto nomem;
  ly->dv = ly->dq + nm;
  for (int i = 0; i < m->nislands; i++) {
    if (vb_island_state_alloc(&m->islands[i], &ly->twin[i]) != VB_OK)
      goto nomem;
    /* the twin is copied from and blended with the run's state contact by
     * contact: both step every contact (no skipping, sparse.c) */
    for (int c = 0; c < m->islands[i].nc; c++) {
      vb_island_pin(&m->islands[i], ly->twin[i], c);
      vb_island_pin(&m->islands[i], run->states[i], c);
    }
  }
  /* T: the drive's period, else the slowest free oscillation, else 1000 steps */
  double T = o->period, low = lowest_frequency(run->scene);
  if (T <= 0.0)
    T = low > 0.0 ? 1.0 / low : 1000.0 * run->dt;
  ly->omega = 2.0 * M_PI / T;
  ly->tau = o->renormalise * T;
  ly->rel = ly->rel0 = o->perturbation;
  ly->from_impacts = o->from_impacts;
  ly->n_start = (long)ceil(o->start / run->dt - 1e-9);
  if (ly->n_start < 1)
    ly->n_start = 1;
  ly->n_mid = ly->n_start + (run->nsteps - ly->n_start + 1) / 2;
  vb_lyapunov_free(run->lyap);
  run->lyap = ly;
  return VB_OK;
nomem:
  vb_lyapunov_free(ly);
  return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory allocating the Lyapunov twin",
                 run->scene->name);
}

/* The fewest steps a contact lasts among those free flight from the
 * initial state brings to an impact: Papetti eq 9's predicted duration
 * times fs, as vibro check predicts it (lib/study/check.c); 0 when no contact
 * can close or none has a prediction; -1 when memory ran out (the
 * contacts' states or the model they are computed from could not be
 * allocated; the lyapunov_nomem test hook makes it so, vb_test_control). */
double
vb_lyapunov_contact_steps(const vb_scene *sc)
{
  vb_contact_start *s = vb_test_hooks_now()->lyapunov_nomem
                            ? NULL
                            : malloc(((size_t)sc->ncontacts + 1) * sizeof *s);
  double fewest = 0.0;
  int built = sc->ncontacts == 0;
  if (!s)
    return -1.0;
  vb_scene_contact_states(sc, s);
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    vb_prediction pr;
    /* the states are all NaN when the model could not be built */
    built |= !isnan(s[c].p0);
    if (!info || !info->papetti || !(s[c].rate > 0.0))
      continue;
    vb_law_predict(&ct->law, s[c].meff, s[c].rate, &pr);
    double n = pr.duration * sc->fs;
    if (n > 0.0 && isfinite(n) && (fewest == 0.0 || n < fewest))
      fewest = n;
  }
  free(s);
  return built ? fewest : -1.0;
}

/* The default perturbation for impacts resolved in n steps, 1:
 * clamp(12 / N^2, 1e-8, 1e-2). */
static double
from_steps(double n)
{
  return fmin(fmax(LYAPUNOV_SCATTER / (n * n), LYAPUNOV_FLOOR), LYAPUNOV_CEILING);
}

/* The perturbation a scene's twin starts with: the analysis block's when
 * given, else clamp(12 / N^2, 1e-8, 1e-2) for the N of
 * vb_lyapunov_contact_steps (1e-8 without a contact that closes):
 * above the section's scatter, about 7 / N^2 of the orbit, that a
 * smaller twin follows as a sawtooth and measures as chaos, and below
 * an impact's own scale v_in t_c (doc/analysis.md, "The default
 * perturbation").  The run then takes N from its own impacts
 * (update_perturbation).  *steps: that N, 0 when none or when given,
 * -1 when memory ran out predicting it (the perturbation is then NaN). */
double
vb_lyapunov_perturbation(const vb_scene *sc, double *steps)
{
  const vb_analysis *an = sc->analysis;
  double n = 0.0, p = LYAPUNOV_FLOOR;
  if (an && an->perturbation > 0.0) {
    p = an->perturbation;
  } else if ((n = vb_lyapunov_contact_steps(sc)) > 0.0) {
    p = from_steps(n);
  } else if (n < 0.0) {
    p = NAN;
  }
  if (steps)
    *steps = n;
  return p;
}

/* The twin the scene's analysis block asks for. */
int
vb_lyapunov_alloc(vb_run *run, char *err, size_t errlen)
{
  const vb_analysis *an = run->scene->analysis;
  if (!an || !an->lyapunov)
    return VB_OK;
  double p = vb_lyapunov_perturbation(run->scene, NULL);
  if (isnan(p))
    return vb_errf(err, errlen, VB_ENOMEM,
                   "scene '%s': analysis 'lyapunov': out of memory predicting the contacts' "
                   "durations for the default perturbation",
                   run->scene->name);
  /* T and the transient are the section's; without one, no drive */
  const vb_lyapunov_opts o = {
      .perturbation = p,
      .from_impacts = !(an->perturbation > 0.0),
      .renormalise = (double)an->renormalise,
      .period = an->section ? an->period : 0.0,
      .start = an->section ? an->transient_time : 0.0,
  };
  return vb_lyapunov_attach(run, &o, err, errlen);
}

/* ---------------------------------------------------------------- norm */

/* Velocity of mode j of a state: v, or the rate of the step into n. */
static inline double
mode_velocity(const vb_island_model *m, const vb_island_state *s, int j)
{
  return m->fam->info->levels == 3 ? (s->q[j] - s->qm[j]) / m->dt : s->v[j];
}

/* The norm of the separation of the twin from the run, m (or of the
 * run's state itself when twin is NULL). */
static double
separation(const vb_run *run, vb_island_state *const *twin, double omega)
{
  double d2 = 0.0;
  for (int i = 0; i < run->nislands; i++) {
    const vb_island_model *m = &run->model->islands[i];
    const vb_island_state *a = run->states[i];
    for (int j = 0; j < m->nm; j++) {
      double dq = a->q[j], dv = mode_velocity(m, a, j);
      if (twin) {
        dq = twin[i]->q[j] - dq;
        dv = mode_velocity(m, twin[i], j) - dv;
      }
      dv /= omega;
      d2 += dq * dq + dv * dv;
    }
    if (m->fric) /* the tangential coordinates (issue 30) */
      d2 += vb_friction_separation2(m->fric, twin ? twin[i]->fric : NULL, a->fric, omega);
  }
  return sqrt(d2);
}

/* ---------------------------------------------------------------- twin */

/* The next of a portable seeded sequence, uniform in [-1, 1) (so that the
 * first displacement is the same on every machine and thread). */
static double
uniform(unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) * 0x1.0p-52 - 1.0;
}

/* The default perturbation from the run's own impacts: the steps (duration
 * x fs) each impact the event tracker finished since the last call lasted
 * go into a ring of the last LYAPUNOV_RECENT, and rel becomes
 * clamp(12 / N^2, 1e-8, 1e-2) for N their median, the same statistic as
 * the period tolerance's (doc/analysis.md, "The default perturbation").
 * Before the first impact rel stays the prediction's.  No allocation. */
static void
update_perturbation(const vb_run *run, vb_lyapunov *ly)
{
  double sorted[LYAPUNOV_RECENT];
  long n;

  for (int c = 0; c < run->scene->ncontacts; c++) {
    const vb_contact_result *r = &run->results[c];
    for (; ly->seen[c] < r->nevents; ly->seen[c]++) {
      double d = r->events[ly->seen[c]].duration * run->scene->fs;
      if (isfinite(d) && d > 0.0)
        ly->recent[ly->nrecent++ % LYAPUNOV_RECENT] = d;
    }
  }
  n = ly->nrecent < LYAPUNOV_RECENT ? ly->nrecent : LYAPUNOV_RECENT;
  if (n == 0)
    return;
  for (long i = 0; i < n; i++)
    sorted[i] = ly->recent[i];
  ly->rel = from_steps(vb_orbit_median(sorted, n));
}

/* Start the twin at step n: a copy of the run displaced by d0 along a
 * fixed pseudo-random direction of (q, v / Omega), every mode's. */
static void
start_twin(vb_run *run, vb_lyapunov *ly)
{
  double scale = separation(run, NULL, ly->omega), norm2 = 0.0;
  unsigned long long seed = 0x5eed1a9b0f2c4d17ULL;
  if (ly->from_impacts)
    update_perturbation(run, ly);
  /* a first pass for the direction's length, a second to apply it */
  for (int pass = 0; pass < 2; pass++) {
    unsigned long long st = seed;
    double f = pass ? ly->d0 / sqrt(norm2) : 0.0;
    for (int i = 0; i < run->nislands; i++) {
      const vb_island_model *m = &run->model->islands[i];
      for (int j = 0; j < m->nm; j++) {
        double a = uniform(&st), b = uniform(&st);
        norm2 += pass ? 0.0 : a * a + b * b;
        ly->dq[j] = f * a;
        ly->dv[j] = f * b * ly->omega;
      }
      if (pass) {
        vb_island_state_copy(ly->twin[i], run->states[i]);
        vb_island_state_displace(m, ly->twin[i], ly->dq, ly->dv);
      }
      if (m->fric) {
        /* the tangential coordinates, drawn after the island's modes (an
         * island without them draws what it did); a spin's angle is not
         * displaced (the norm does not see it), its rate by the surface
         * speed drawn over its lever */
        const vb_friction_model *fm = m->fric;
        for (int j = 0; j < fm->nt; j++) {
          int spin = j >= fm->nw && j < fm->nmw;
          double a = spin ? 0.0 : uniform(&st), b = uniform(&st);
          norm2 += pass ? 0.0 : a * a + b * b;
          ly->dq[j] = f * a;
          ly->dv[j] = f * b * ly->omega / vb_friction_lever(fm, j);
        }
        if (pass)
          vb_friction_state_displace(fm, ly->twin[i]->fric, ly->dq, ly->dv);
      }
    }
    /* d0 relative to the state's own size (1 m for a state at rest) */
    ly->scale = scale;
    ly->d0 = ly->rel * (scale > 0.0 ? scale : 1.0);
  }
  ly->started = 1;
}

/* Measure the separation at step n, add the interval to the sums and,
 * unless it is the last, move the twin back to d0. */
static void
measure(vb_run *run, vb_lyapunov *ly, long n, int last)
{
  double d = separation(run, ly->twin, ly->omega);
  if (!isfinite(d)) {
    ly->failed = 1;
    return;
  }
  if (d == 0.0) {
    /* the twin fell onto the run: contraction past double precision */
    ly->collapsed = ly->done = 1;
    return;
  }
  double l = log(d / ly->d0);
  /* d0 follows the largest state norm met, so that it stays rel of the
   * motion's size even when the twin started near rest */
  ly->scale = fmax(ly->scale, separation(run, NULL, ly->omega));
  ly->sum += l;
  if (ly->n_last >= ly->n_mid) {
    if (ly->n_half < 0)
      ly->n_half = ly->n_last;
    ly->sum_half += l;
  }
  ly->k++;
  ly->n_last = n;
  if (!last) {
    if (ly->from_impacts)
      update_perturbation(run, ly);
    ly->d0 = ly->rel * (ly->scale > 0.0 ? ly->scale : 1.0);
    for (int i = 0; i < run->nislands; i++)
      vb_island_state_blend(ly->twin[i], run->states[i], ly->d0 / d);
  }
}

/* Reset the sums for a run from its start. */
static void
reset(const vb_run *run, vb_lyapunov *ly)
{
  ly->started = ly->failed = ly->done = ly->collapsed = 0;
  ly->k = 0;
  ly->rel = ly->rel0;
  ly->nrecent = 0;
  for (int c = 0; c < run->scene->ncontacts; c++)
    ly->seen[c] = 0;
  ly->sum = ly->sum_half = 0.0;
  ly->n_last = ly->n_start;
  ly->n_half = -1;
}

/* The run's hook after step n: step, start, measure. */
void
vb_lyapunov_step(vb_run *run, long n)
{
  vb_lyapunov *ly = run->lyap;
  if (n == 1)
    reset(run, ly);
  if (ly->failed || ly->done)
    return;
  if (ly->started) {
    for (int i = 0; i < run->nislands; i++) {
      const vb_island_model *m = &run->model->islands[i];
      int rc = vb_island_step(m, ly->twin[i], n - 1);
      if (rc != VB_OK || !vb_island_finite(m, ly->twin[i])) {
        ly->failed = 1;
        return;
      }
    }
    /* the interval ends at the first step at or past t_start + (k+1) tau */
    double t_end = (ly->n_start + 0.0) * run->dt + (ly->k + 1) * ly->tau;
    int last = n == run->nsteps;
    if (last || n * run->dt >= t_end - 1e-9 * run->dt)
      measure(run, ly, n, last);
    if (last)
      ly->done = 1;
  } else if (n == ly->n_start) {
    start_twin(run, ly);
    if (n == run->nsteps)
      ly->done = 1;
  }
}

/* ------------------------------------------------------------- results */

/* The exponent over the measured time and its second half, 1/s. */
double
vb_run_lyapunov(const vb_run *run, double *second_half)
{
  const vb_lyapunov *ly = run->lyap;
  double l = NAN, h = NAN;
  if (ly && ly->done && !ly->failed) {
    if (ly->collapsed) {
      l = h = -INFINITY;
    } else {
      if (ly->n_last > ly->n_start)
        l = ly->sum / ((double)(ly->n_last - ly->n_start) * run->dt);
      if (ly->n_half >= 0 && ly->n_last > ly->n_half)
        h = ly->sum_half / ((double)(ly->n_last - ly->n_half) * run->dt);
    }
  }
  if (second_half)
    *second_half = h;
  return l;
}

/* The relative perturbation the twin was last brought back to, 1 (the
 * one given, or the default from the run's impacts); NaN without. */
double
vb_run_lyapunov_perturbation(const vb_run *run)
{
  return run->lyap ? run->lyap->rel : NAN;
}

/* Intervals measured and the current d0, m. */
long
vb_run_lyapunov_intervals(const vb_run *run, double *d0)
{
  const vb_lyapunov *ly = run->lyap;
  if (d0)
    *d0 = ly ? ly->d0 : 0.0;
  return ly ? ly->k : 0;
}
