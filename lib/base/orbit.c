/* orbit.c - the steady state of a scene from its sections: the period and
 * class of a stroboscopic section (closure under a shift of m drive
 * periods, or a trend that marks a transient), attractor ids across a
 * study (phase-shift aware matching of period-m cycles in scene order),
 * impacts per period and the grazing flag of an impact map.  Pure
 * functions of their arguments; the rules and their equations are in
 * doc/analysis.md ("Period and class", "Attractors", "Grazing"). */
#include <math.h>
#include <stdlib.h>

#include "orbit.h"

/* Scale of coordinate j (1 when none is given). */
static double
scale_of(const double *scale, int j)
{
  return scale ? scale[j] : 1.0;
}

/* Scaled distance between points i and i - m of a section x[][d]: the
 * largest |x_ij - x_(i-m)j| / scale_j (doc/analysis.md eq A1). */
static double
shift_distance(const double *x, long i, int m, int d, const double *scale)
{
  double e = 0.0;
  for (int j = 0; j < d; j++) {
    double dj = fabs(x[i * d + j] - x[(i - m) * d + j]) / scale_of(scale, j);
    e = dj > e ? dj : e;
  }
  return e;
}

/* Closure window of shift m, points: max(2 m, 8) (eq A2). */
long
vb_orbit_window(int m)
{
  return 2L * m > 8 ? 2L * m : 8;
}

/* Points before a section may be irregular or unsettled (eq A2, A3). */
long
vb_orbit_needed(int pmax)
{
  long closure = 2L * pmax, trend = 2L * VB_ORBIT_BLOCKS;
  return pmax + (closure > trend ? closure : trend);
}

/* Largest shifted distance over shift m's closure window (eq A2); the
 * caller ensures n >= m + vb_orbit_window(m). */
static double
closure(const double *x, long n, int d, const double *scale, int m)
{
  double s = 0.0;
  for (long i = n - vb_orbit_window(m); i < n; i++) {
    double e = shift_distance(x, i, m, d, scale);
    s = e > s ? e : s;
  }
  return s;
}

/* The period a closing shift m with spread s stands for (eq A2b): the
 * smallest divisor p < m of m whose split is unresolved at every place of
 * the cycle, else m.  The split at place r (0 <= r < m) is the smallest,
 * over the points i = r mod m of m's closure window, of e_p(i); it is
 * unresolved when it is at most VB_ORBIT_RESOLVE s, the scatter the
 * closure itself shows.  A period-p orbit whose multiplier nears -1
 * (before a period doubling) turns the discrete contact's scatter from
 * period to period into an alternation whose size wanders through zero;
 * a true period-m cycle keeps some pair of its points p apart further
 * apart than its scatter at every pass. */
static int
resolved_period(const double *x, long n, int d, const double *scale, int m, double s)
{
  long from = n - vb_orbit_window(m);
  for (int p = 1; p < m; p++) {
    int unresolved = m % p == 0;
    for (int r = 0; r < m && unresolved; r++) {
      double low = INFINITY;
      for (long i = from + r; i < n; i += m) {
        double e = shift_distance(x, i, p, d, scale);
        low = e < low ? e : low;
      }
      unresolved = low <= VB_ORBIT_RESOLVE * s;
    }
    if (unresolved)
      return p;
  }
  return m;
}

/* The least-squares multiplier of a flip between the points p apart
 * (eq A2c): each place r < p of the section's p-cycle gives the series
 * z_k = x_(r + k p) - its mean, coordinate by coordinate (scaled), over
 * the latest even number of the place's points, and mu = sum z_(k+1) z_k
 * / sum z_k^2 over k, pooled over places and coordinates; NaN when the
 * section has no deviation. */
static double
flip_multiplier(const double *x, long n, int d, const double *scale, int p)
{
  double num = 0.0, den = 0.0;
  for (int r = 0; r < p; r++)
    for (int j = 0; j < d; j++) {
      /* an even number of the place's points, the latest: the mean of a
       * pure alternation is then its centre */
      long count = (n - r + p - 1) / p / 2 * 2, first = r + ((n - r + p - 1) / p - count) * p;
      double mean = 0.0;
      if (count < 2)
        continue;
      for (long i = first; i < n; i += p)
        mean += x[i * d + j];
      mean /= (double)count;
      for (long i = first; i + p < n; i += p) {
        double z0 = (x[i * d + j] - mean) / scale_of(scale, j);
        double z1 = (x[(i + p) * d + j] - mean) / scale_of(scale, j);
        num += z1 * z0;
        den += z0 * z0;
      }
    }
  return den > 0.0 ? num / den : NAN;
}

/* Whether a block maximum `from` exceeds a later one `to` by at least the
 * square root of VB_ORBIT_TREND. */
static int
moves(double from, double to)
{
  return to * sqrt(VB_ORBIT_TREND) <= from;
}

/* Whether the shifted distances of shift m trend over the section (eq A3):
 * the distances e_m(i), i = m .. n - 1, cut into VB_ORBIT_BLOCKS blocks of
 * equal length (the earliest left over dropped), have block maxima that
 * fall strictly block after block, by VB_ORBIT_TREND over the section and
 * by its square root over each half (a transient still closing on a
 * cycle: one outlier in an end block, or the slow beat of a quasi-periodic
 * motion near a resonance, does not make a trend), or rise so (moving
 * away).  Needs two distances per block; fewer: no trend. */
static int
trend(const double *x, long n, int d, const double *scale, int m)
{
  long b = (n - m) / VB_ORBIT_BLOCKS, start = n - VB_ORBIT_BLOCKS * b;
  double top[VB_ORBIT_BLOCKS];
  int falls = 1, rises = 1, h = VB_ORBIT_BLOCKS / 2;

  if (b < 2)
    return 0;
  for (int k = 0; k < VB_ORBIT_BLOCKS; k++) {
    top[k] = 0.0;
    for (long i = start + k * b; i < start + (k + 1) * b; i++) {
      double e = shift_distance(x, i, m, d, scale);
      top[k] = e > top[k] ? e : top[k];
    }
    if (k > 0) {
      falls &= top[k] < top[k - 1];
      rises &= top[k] > top[k - 1];
    }
  }
  /* by the factor over the section and its square root over each half */
  falls &= moves(top[0], top[h - 1]) && moves(top[h], top[2 * h - 1]) &&
           top[2 * h - 1] * VB_ORBIT_TREND <= top[0];
  rises &= moves(top[h - 1], top[0]) && moves(top[2 * h - 1], top[h]) &&
           top[2 * h - 1] >= VB_ORBIT_TREND * top[0];
  return falls || rises;
}

/* Whether every coordinate of x[n][d] is finite. */
static int
all_finite(const double *x, long n, int d)
{
  for (long i = 0; i < n * d; i++)
    if (!isfinite(x[i]))
      return 0;
  return 1;
}

/* The period and class of a section (eq A1-A3; orbit.h). */
void
vb_orbit_classify(const double *x, long n, int d, const double *scale, double tol, int pmax,
                  vb_orbit *out)
{
  double best = INFINITY;

  *out = (vb_orbit){.cls = VB_ORBIT_NONE, .period = 0, .tolerance = tol, .spread = NAN};
  if (!x || n <= 0 || d <= 0)
    return;
  out->cls = VB_ORBIT_UNSETTLED;
  if (!all_finite(x, n, d))
    return;
  /* the smallest shift that closes (eq A2); a larger one needs more points */
  for (int m = 1; m <= pmax && n >= m + vb_orbit_window(m); m++) {
    double s = closure(x, n, d, scale, m);
    best = s < best ? s : best;
    if (s <= tol) {
      /* a divisor whose split the scatter does not resolve (eq A2b) */
      int p = resolved_period(x, n, d, scale, m, s);
      /* a stable period 1 flipping its scatter (eq A2c), in a section
       * not still settling onto 2 (A3's trend of e_2: the multiplier would
       * be the transient's).  Only m = 2: at m = 4 and 12 the places of
       * scenes/impact-oscillator.cfg's cycles at 27.1 and 27.6 Hz wander
       * more than they alternate (1 + mu = 0.93 and 0.02), which the rule
       * would read as periods 2 and 6, unchecked */
      if (p == m && m == 2 && !trend(x, n, d, scale, m) &&
          flip_multiplier(x, n, d, scale, 1) > -1.0 + VB_ORBIT_FLIP)
        p = 1;
      out->cls = VB_ORBIT_PERIODIC;
      out->period = p;
      out->spread = p == m ? s : closure(x, n, d, scale, p);
      return;
    }
  }
  out->spread = isinf(best) ? NAN : best;
  if (pmax < 1 || n < vb_orbit_needed(pmax))
    return;
  /* no cycle: a transient when some shift's distances trend (eq A3) */
  for (int m = 1; m <= pmax; m++)
    if (trend(x, n, d, scale, m))
      return;
  out->cls = VB_ORBIT_IRREGULAR;
}

/* Whether two period-m cycles a[m][d] and b[m][d] match under some cyclic
 * shift within tol (doc/analysis.md eq A4). */
static int
cycles_match(const double *a, const double *b, int m, int d, const double *scale, double tol)
{
  for (int k = 0; k < m; k++) {
    int ok = 1;
    for (int i = 0; i < m && ok; i++)
      for (int j = 0; j < d && ok; j++)
        ok = fabs(a[((i + k) % m) * d + j] - b[i * d + j]) / scale_of(scale, j) <= tol;
    if (ok)
      return 1;
  }
  return 0;
}

/* Attractor ids in scene order, each scene against every attractor's
 * first scene (eq A4; orbit.h). */
long
vb_orbit_attractors(const double *const *cycle, const int *period, long nscenes, int d,
                    const double *scale, double tol, long *id)
{
  long *first = NULL, count = 0, cap = 0;

  for (long s = 0; s < nscenes; s++) {
    id[s] = -1;
    if (!cycle[s] || period[s] < 1)
      continue;
    /* the first attractor, in id order, whose first scene matches */
    for (long a = 0; a < count && id[s] < 0; a++)
      if (period[first[a]] == period[s] &&
          cycles_match(cycle[first[a]], cycle[s], period[s], d, scale, tol))
        id[s] = a;
    if (id[s] >= 0)
      continue;
    if (count == cap) {
      long *grown = realloc(first, (size_t)(cap ? 2 * cap : 16) * sizeof *grown);
      if (!grown) {
        free(first);
        return VB_ENOMEM;
      }
      first = grown;
      cap = cap ? 2 * cap : 16;
    }
    first[count] = s;
    id[s] = count++;
  }
  free(first);
  return count;
}

/* Order of doubles for qsort. */
static int
ascending(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The phase (fraction of the cycle, in [0, 1)) farthest from the phases
 * p[n] of the impacts in a cycle (sorted here): the middle of their
 * largest circular gap; 0 with none. */
static double
quiet_phase(double *p, long n)
{
  double gap, edge;
  if (n == 0)
    return 0.0;
  qsort(p, (size_t)n, sizeof *p, ascending);
  gap = p[0] + 1.0 - p[n - 1];
  edge = fmod(p[n - 1] + 0.5 * gap, 1.0);
  for (long i = 1; i < n; i++)
    if (p[i] - p[i - 1] > gap) {
      gap = p[i] - p[i - 1];
      edge = p[i - 1] + 0.5 * gap;
    }
  return edge;
}

/* Impacts per cycle of a period-m section (eq A6; orbit.h). */
int
vb_orbit_impacts(const double *t_impact, long nimpacts, const double *t_section, long ns, int m)
{
  long cycles, count = 0, k = 0;
  double from, cycle, *p;

  if (m < 1)
    return -1;
  cycles = vb_orbit_window(m) / m;
  if (ns < cycles * m + 1)
    return -1;
  from = t_section[ns - 1 - cycles * m];
  cycle = (t_section[ns - 1] - from) / (double)cycles;
  p = malloc((size_t)(nimpacts > 0 ? nimpacts : 1) * sizeof *p);
  if (!p)
    return -1;
  for (long i = 0; i < nimpacts; i++)
    if (t_impact[i] >= from && t_impact[i] < from + (double)cycles * cycle)
      p[k++] = fmod((t_impact[i] - from) / cycle, 1.0);
  /* cycles - 1 whole cycles from the phase no impact is near (eq A6) */
  from += quiet_phase(p, k) * cycle;
  free(p);
  for (long i = 0; i < nimpacts; i++)
    count += t_impact[i] >= from && t_impact[i] < from + (double)(cycles - 1) * cycle;
  return (int)floor((double)count / (double)(cycles - 1) + 0.5);
}

/* The median of v[n], sorting it (orbit.h). */
double
vb_orbit_median(double *v, long n)
{
  if (n <= 0)
    return NAN;
  qsort(v, (size_t)n, sizeof *v, ascending);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The grazing flags of an impact map (eq A5; orbit.h). */
int
vb_orbit_grazing(const double *v_in, long n, double fraction, int *flag, double *median)
{
  double *speed = malloc((size_t)(n > 0 ? n : 1) * sizeof *speed), mid;
  long k = 0;

  if (!speed)
    return VB_ENOMEM;
  for (long i = 0; i < n; i++)
    if (isfinite(v_in[i]))
      speed[k++] = fabs(v_in[i]);
  /* the median of the finite speeds (eq A5) */
  mid = vb_orbit_median(speed, k);
  free(speed);
  for (long i = 0; i < n; i++)
    flag[i] = isfinite(v_in[i]) && fabs(v_in[i]) < fraction * mid;
  if (median)
    *median = mid;
  return VB_OK;
}
