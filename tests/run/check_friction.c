/* check_friction.c - the tangential direction and Coulomb friction (lib/
 * friction.c, load_friction.c, solvers/friction_solve.c; issue 30, step 1)
 * against references written here from the closed form, never from
 * vibro's output:
 *   - stick-slip of a spring-mass on a belt: the first breakaway, the slip
 *     and stick durations and the period against the closed form (the slip
 *     arc is a circle about mu_k N / k in the phase plane), and the observed
 *     order of their errors over five sample rates;
 *   - a block held by static friction: no creep over 10 s, and a block
 *     loaded just past mu_s N that breaks free at once;
 *   - the energy balance with the friction work to round-off, the work
 *     never negative, the force never outside the cone (a block dropped
 *     onto a belt, bouncing, so that N varies and vanishes in flight);
 *   - the law table's lookups and the loader's messages. */
#include <float.h>
#include <math.h>
#include "../testutil.h"

/* ------------------------------------------------------------ helpers */

/* The samples of signal `name` of `object` for instance `inst` (a contact,
 * or a body: its point 0), or NULL when not recorded. */
static const double *
signal_of(const tu_sim *s, vb_signal_object object, const char *name, int inst)
{
  int nt, p;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++) {
    if (t[r].object != object || strcmp(t[r].name, name) != 0)
      continue;
    if (object == VB_SIGNAL_POINT) {
      for (int i = 0, n = vb_signal_count(&t[r], s->scene); i < n; i++)
        if (vb_signal_body(&t[r], s->scene, i, &p) == inst && p == 0)
          return vb_signal_data(s->run, &t[r], i);
      return NULL;
    }
    return vb_signal_data(s->run, &t[r], inst);
  }
  return NULL;
}

/* The belt: a 1 kg block on a belt at VB m/s, spring KW to ground along w,
 * pressed by gravity through a stiff power law at its static equilibrium
 * (N = m g); Coulomb mu_s = MS, mu_k = MK. */
#define M  1.0
#define G  9.81
#define KW 1000.0
#define MS 0.6
#define MK 0.4
#define VB 0.02
static char *
belt_text(double fs, double duration, const char *extra_block)
{
  static const char fmt[] =
      "scene = { name = \"belt\"; fs = %.17g; duration = %.17g; gravity = 9.81; };\n"
      "bodies = (\n"
      "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.02; }; },\n"
      "  { name = \"block\"; type = \"mass\"; mass = 1.0; u0 = -9.81e-7; w0 = 0.0; vw0 = 0.02;\n"
      "    kw = 1000.0; %s } );\n"
      "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; law = \"power\";\n"
      "  k = 1.0e7; alpha = 1.0; scheme = \"two-point\";\n"
      "  friction = { law = \"coulomb\"; mu_s = 0.6; mu_k = 0.4; }; } );\n";
  char *t = malloc(sizeof fmt + 256);
  snprintf(t, sizeof fmt + 256, fmt, fs, duration, extra_block);
  return t;
}

/* The closed form of the belt's stick-slip: breakaway at w_b = mu_s N / k
 * (first at t_b = w_b / v from w = 0 riding the belt); slip on the circle
 * about w_k = mu_k N / k through (w_b, v / omega), radius from D = w_b -
 * w_k and V = v / omega, over the angle pi + 2 atan(V / D), ending at
 * 2 w_k - w_b with the belt's speed; stick back up over 2 D / v. */
typedef struct {
  double tb, slip, stick, period;
} belt_times;

static belt_times
belt_closed(void)
{
  double n = M * G, om = sqrt(KW / M), D = (MS - MK) * n / KW, V = VB / om;
  belt_times c;
  c.tb = MS * n / (KW * VB);
  c.slip = (M_PI + 2.0 * atan(V / D)) / om;
  c.stick = 2.0 * D / VB;
  c.period = c.slip + c.stick;
  return c;
}

/* The same figures measured from a run: the mean over its cycles of the
 * slip and stick durations and the period between breakaways, each
 * transition placed within its step by linear interpolation (a breakaway
 * where the holding force crosses mu_s N, a stick where the slip crosses
 * 0; both signals are the means over the step into each sample, so they
 * belong at the step's midpoint). */
static belt_times
belt_measured(const tu_sim *s, int *cycles)
{
  const double *ft = signal_of(s, VB_SIGNAL_CONTACT, "ft", 0);
  const double *slip = signal_of(s, VB_SIGNAL_CONTACT, "slip", 0);
  long n = vb_run_samples(s->run);
  double h = 1.0 / s->scene->fs, hold = MS * M * G;
  double tbr[64], tst[64];
  int nb = 0, ns = 0;
  ck_assert_ptr_nonnull(ft);
  ck_assert_ptr_nonnull(slip);
  for (long k = 2; k < n; k++) {
    /* the values of samples k-2 and k-1 belong at mid - dt and mid */
    double mid = (k - 1) * h - 0.5 * h;
    if (slip[k - 1] == 0.0 && slip[k] != 0.0 && nb < 64)
      tbr[nb++] = mid + (hold - ft[k - 1]) / (ft[k - 1] - ft[k - 2]) * h;
    if (slip[k - 1] != 0.0 && slip[k] == 0.0 && ns < 64)
      tst[ns++] = mid - slip[k - 1] / (slip[k - 1] - slip[k - 2]) * h;
  }
  belt_times m = {tbr[0], 0.0, 0.0, 0.0};
  int c = 0;
  /* cycle i: breakaway i, stick i (after it), breakaway i + 1 */
  for (int i = 0; i + 1 < nb && i < ns; i++, c++) {
    m.slip += tst[i] - tbr[i];
    m.stick += tbr[i + 1] - tst[i];
    m.period += tbr[i + 1] - tbr[i];
  }
  ck_assert_int_ge(c, 1);
  m.slip /= c;
  m.stick /= c;
  m.period /= c;
  *cycles = c;
  return m;
}

/* -------------------------------------------------------------- belt */

/* At 20 kHz, each figure within two steps of the closed form, the
 * breakaway within 1e-6 s; the slip's force is exactly mu_k N, a stick's
 * slip exactly 0. */
START_TEST(test_belt_closed_form)
{
  char *text = belt_text(20000.0, 1.6, "");
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_int_eq(s.rc, VB_OK);
  int cycles;
  belt_times c = belt_closed(), m = belt_measured(&s, &cycles);
  double h = 1.0 / 20000.0;
  printf("belt 20 kHz, %d cycles: breakaway %.9f s (closed %.9f, error %.3g), slip %.9f "
         "(%.9f, %.3g), stick %.9f (%.9f, %.3g), period %.9f (%.9f, %.3g)\n",
         cycles, m.tb, c.tb, m.tb - c.tb, m.slip, c.slip, m.slip - c.slip, m.stick, c.stick,
         m.stick - c.stick, m.period, c.period, m.period - c.period);
  ck_assert_int_ge(cycles, 3);
  ck_assert_double_le(fabs(m.tb - c.tb), 1e-6);
  ck_assert_double_le(fabs(m.slip - c.slip), 2.0 * h);
  ck_assert_double_le(fabs(m.stick - c.stick), 2.0 * h);
  ck_assert_double_le(fabs(m.period - c.period), 2.0 * h);
  /* slipping: |ft| = mu_k N (N = m g to the normal law's round-off) */
  const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", 0);
  const double *slip = signal_of(&s, VB_SIGNAL_CONTACT, "slip", 0);
  const double *nf = signal_of(&s, VB_SIGNAL_CONTACT, "force", 0);
  long slipping = 0, sticking = 0;
  for (long k = 1; k < vb_run_samples(s.run); k++) {
    if (slip[k] != 0.0 && slip[k - 1] != 0.0) {
      ck_assert_double_le(fabs(fabs(ft[k]) - MK * nf[k]), 1e-12 * MK * nf[k]);
      ck_assert_double_lt(slip[k], 0.0); /* slower than the belt */
      slipping++;
    } else if (slip[k] == 0.0) {
      sticking++;
    }
    ck_assert_double_le(fabs(ft[k]), MS * nf[k] * (1.0 + 1e-12));
  }
  ck_assert_int_gt(slipping, 1000);
  ck_assert_int_gt(sticking, 1000);
  tu_free(&s);
}
END_TEST

/* The observed order of the errors over 5, 10, 20, 40 and 80 kHz: the
 * breakaway's (the smooth stick phase and the interpolation: 2) and the
 * cycle's (the scheme decides a transition at a step's end, so a slip
 * starts up to a step late: 1), by least squares on log |error| against
 * log h. */
START_TEST(test_belt_order)
{
  const double rates[] = {5000.0, 10000.0, 20000.0, 40000.0, 80000.0};
  enum { NR = 5 };
  double lh[NR], ltb[NR], lsl[NR], lst[NR], lpe[NR];
  belt_times c = belt_closed();
  for (int r = 0; r < NR; r++) {
    char *text = belt_text(rates[r], 1.6, "");
    tu_sim s = tu_run_text(text);
    free(text);
    int cycles;
    belt_times m = belt_measured(&s, &cycles);
    printf("belt %6.0f Hz: errors breakaway %+.3e s, slip %+.3e s, stick %+.3e s, period %+.3e s\n",
           rates[r], m.tb - c.tb, m.slip - c.slip, m.stick - c.stick, m.period - c.period);
    lh[r] = log(1.0 / rates[r]);
    ltb[r] = log(fabs(m.tb - c.tb));
    lsl[r] = log(fabs(m.slip - c.slip));
    lst[r] = log(fabs(m.stick - c.stick));
    lpe[r] = log(fabs(m.period - c.period));
    tu_free(&s);
  }
  double *ys[4] = {ltb, lsl, lst, lpe}, order[4];
  for (int q = 0; q < 4; q++) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int r = 0; r < NR; r++) {
      sx += lh[r];
      sy += ys[q][r];
      sxx += lh[r] * lh[r];
      sxy += lh[r] * ys[q][r];
    }
    order[q] = (NR * sxy - sx * sy) / (NR * sxx - sx * sx);
  }
  printf("belt observed orders: breakaway %.2f, slip %.2f, stick %.2f, period %.2f\n", order[0],
         order[1], order[2], order[3]);
  ck_assert_double_ge(order[0], 1.8);
  ck_assert_double_ge(order[1], 0.8);
  ck_assert_double_ge(order[2], 0.8);
  ck_assert_double_ge(order[3], 0.8);
}
END_TEST

/* -------------------------------------------------------------- held */

static char *
held_text(double w0, double duration)
{
  static const char fmt[] =
      "scene = { name = \"held\"; fs = 10000.0; duration = %.17g; gravity = 9.81; };\n"
      "bodies = (\n"
      "  { name = \"floor\"; type = \"wall\"; position = 0.0; },\n"
      "  { name = \"block\"; type = \"mass\"; mass = 2.0; u0 = -1.962e-6; w0 = %.17g;\n"
      "    kw = 1500.0; cw = 0.3; } );\n"
      "contacts = ( { name = \"rub\"; between = [\"floor\", \"block\"]; law = \"power\";\n"
      "  k = 1.0e7; alpha = 1.0; scheme = \"two-point\";\n"
      "  friction = { law = \"coulomb\"; mu_s = 0.5; mu_k = 0.3; }; } );\n";
  char *t = malloc(sizeof fmt + 128);
  snprintf(t, sizeof fmt + 128, fmt, duration, w0);
  return t;
}

/* 10 s held at 4.5 mm (6.75 N of the 9.81 N static friction holds): w
 * exactly where it started, the slip exactly 0, no friction work, the
 * holding force the spring's pull. */
START_TEST(test_held_no_creep)
{
  char *text = held_text(4.5e-3, 10.0);
  tu_sim s = tu_run_text(text);
  free(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const double *w = signal_of(&s, VB_SIGNAL_POINT, "w", 1);
  const double *slip = signal_of(&s, VB_SIGNAL_CONTACT, "slip", 0);
  const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", 0);
  const double *work = signal_of(&s, VB_SIGNAL_CONTACT, "friction_work", 0);
  double creep = 0.0, flo = INFINITY, fhi = -INFINITY;
  long n = vb_run_samples(s.run);
  ck_assert_int_eq(n, 100001);
  for (long k = 0; k < n; k++) {
    creep = fmax(creep, fabs(w[k] - 4.5e-3));
    ck_assert_double_eq(slip[k], 0.0);
    ck_assert_double_le(fabs(work[k]), 0.0);
    if (k > 0) {
      flo = flo < ft[k] ? flo : ft[k];
      fhi = fhi > ft[k] ? fhi : ft[k];
    }
  }
  printf("held block: creep %.3g m over 10 s, holding force %.12g .. %.12g N (k w0 = 6.75)\n", creep,
         flo, fhi);
  ck_assert_double_le(creep, 1e-18);
  /* the pull of the (pre-warped: 1 + (omega dt)^2 / 12 stiffer) spring */
  ck_assert_double_le(fabs(flo - 6.75), 1e-5 * 6.75);
  ck_assert_double_le(fhi - flo, 1e-12);
  tu_free(&s);
}
END_TEST

/* Just past the static limit (mu_s N / kw = 6.54 mm): the block breaks free
 * in the first step and slips under mu_k N; just within it, it holds. */
START_TEST(test_held_threshold)
{
  double limit = 0.5 * 2.0 * 9.81 / 1500.0;
  for (int past = 0; past < 2; past++) {
    char *text = held_text(limit * (past ? 1.002 : 0.998), 0.05);
    tu_sim s = tu_run_text(text);
    free(text);
    const double *slip = signal_of(&s, VB_SIGNAL_CONTACT, "slip", 0);
    const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", 0);
    if (past) {
      ck_assert_double_lt(slip[1], 0.0);
      ck_assert_double_le(fabs(ft[1] - 0.3 * 2.0 * 9.81), 1e-9);
    } else {
      for (long k = 0; k < vb_run_samples(s.run); k++)
        ck_assert_double_eq(slip[k], 0.0);
    }
    tu_free(&s);
  }
}
END_TEST

/* ------------------------------------------------------- energy, cone */

/* Scenes whose normal forces vary: 0, a 0.3 kg block dropped from 2 mm
 * onto a belt at 0.05 m/s through a Hunt-Crossley contact, spring and
 * damper along w: it bounces (N vanishes in flight), slips and sticks; 1,
 * two blocks stacked on a belt that swings (a sine w drive), each with its
 * spring to ground: two friction contacts coupled through the lower
 * block (one between two masses), solved by Gauss-Seidel.  The balance E +
 * dissipated - external closes to round-off of the work through the run,
 * no step's friction work is negative, ft is within mu_s N (0 when N is),
 * a slipping step's |ft| is mu_k N, against the slip. */
static const struct {
  const char *text;
  int nc;
  double mu_s[2], mu_k[2];
} varying[] = {
    {"scene = { name = \"drop\"; fs = 40000.0; duration = 1.5; gravity = 9.81; };\n"
     "bodies = (\n"
     "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = 0.05; }; },\n"
     "  { name = \"block\"; type = \"mass\"; mass = 0.3; u0 = 2.0e-3; w0 = 1.3e-3; vw0 = -0.017;\n"
     "    kw = 613.0; cw = 0.21; } );\n"
     "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; law = \"hunt-crossley\";\n"
     "  k = 3.1e6; alpha = 1.3; mu = 0.6; scheme = \"two-point\";\n"
     "  friction = { law = \"coulomb\"; mu_s = 0.73; mu_k = 0.41; }; } );\n",
     1, {0.73, 0.0}, {0.41, 0.0}},
    {"scene = { name = \"stack\"; fs = 40000.0; duration = 1.5; gravity = 9.81; };\n"
     "bodies = (\n"
     "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"sine\"; amplitude = 6.0e-3;\n"
     "    freq = 2.3; }; },\n"
     "  { name = \"lower\"; type = \"mass\"; mass = 0.7; u0 = -1.0e-6; w0 = 0.0; kw = 410.0;\n"
     "    cw = 0.13; },\n"
     "  { name = \"upper\"; type = \"mass\"; mass = 0.3; u0 = 3.0e-4; w0 = 1.1e-3; vw0 = 0.01;\n"
     "    kw = 97.0; } );\n"
     "contacts = (\n"
     "  { name = \"base\"; between = [\"belt\", \"lower\"]; law = \"hunt-crossley\"; k = 2.3e6;\n"
     "    alpha = 1.2; mu = 0.4; scheme = \"two-point\";\n"
     "    friction = { law = \"coulomb\"; mu_s = 0.45; mu_k = 0.31; }; },\n"
     "  { name = \"top\"; between = [\"lower\", \"upper\"]; law = \"power\"; k = 1.7e6;\n"
     "    alpha = 1.5; scheme = \"two-point\";\n"
     "    friction = { law = \"coulomb\"; mu_s = 0.62; mu_k = 0.38; }; } );\n",
     2, {0.45, 0.62}, {0.31, 0.38}},
};

START_TEST(test_energy_and_cone)
{
  tu_sim s = tu_run_text(varying[_i].text);
  ck_assert_int_eq(s.rc, VB_OK);
  long n = vb_run_samples(s.run);
  const double *tot = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *dis = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  const double *ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
  double worst = 0.0, through = fabs(tot[0]);
  for (long k = 0; k < n; k++) {
    worst = fmax(worst, fabs(tot[k] + dis[k] - ext[k] - tot[0]));
    through = fmax(through, fabs(dis[k]) + fabs(ext[k]));
  }
  printf("%s: balance %.3g J of %.3g J through (%.3g)\n", s.scene->name, worst, through,
         worst / through);
  ck_assert_double_le(worst, 16.0 * DBL_EPSILON * through * sqrt((double)n));
  for (int c = 0; c < varying[_i].nc; c++) {
    double ms = varying[_i].mu_s[c], mk = varying[_i].mu_k[c];
    const double *ft = signal_of(&s, VB_SIGNAL_CONTACT, "ft", c);
    const double *nf = signal_of(&s, VB_SIGNAL_CONTACT, "force", c);
    const double *slip = signal_of(&s, VB_SIGNAL_CONTACT, "slip", c);
    const double *work = signal_of(&s, VB_SIGNAL_CONTACT, "friction_work", c);
    const double *stick = signal_of(&s, VB_SIGNAL_CONTACT, "stick", c);
    double wmin = 0.0, cone = -INFINITY, stuck_slip = 0.0;
    long flight = 0, slipping = 0, sticking = 0;
    for (long k = 1; k < n; k++) {
      double N = nf[k] > 0.0 ? nf[k] : 0.0;
      wmin = fmin(wmin, work[k] - work[k - 1]);
      cone = fmax(cone, fabs(ft[k]) - ms * N);
      if (N == 0.0) {
        ck_assert_double_eq(ft[k], 0.0);
        flight++;
      } else if (stick[k] == 1.0) {
        /* a stick of one mass on a wall is exact; of coupled contacts, to
         * the Gauss-Seidel's round-off */
        stuck_slip = fmax(stuck_slip, fabs(slip[k]));
        sticking++;
      } else if (stick[k - 1] == 0.0 && nf[k - 1] > 0.0) {
        ck_assert_double_le(fabs(fabs(ft[k]) - mk * N), 1e-12 * N);
        ck_assert(ft[k] * slip[k] < 0.0); /* against the slip */
        slipping++;
      }
    }
    printf("  contact %s: least step work %.3g J, |ft| - mu_s N at most %.3g N; %ld samples "
           "with N = 0, %ld slipping, %ld sticking (slip at most %.3g m/s); friction work "
           "%.6g J\n",
           s.scene->contacts[c].name, wmin, cone, flight, slipping, sticking, stuck_slip,
           work[n - 1]);
    ck_assert_double_le(stuck_slip, _i == 0 ? 0.0 : 1e-12);
    ck_assert_double_ge(wmin, 0.0);
    ck_assert_double_le(cone, 1e-12);
    ck_assert_int_gt(slipping, 10);
    ck_assert_int_gt(sticking, 10);
    ck_assert_double_gt(work[n - 1], 0.0);
    if (_i == 0)
      ck_assert_int_gt(flight, 10);
  }
  tu_free(&s);
}
END_TEST

/* The belt's balance to round-off too (a steady wall, long stick). */
START_TEST(test_belt_balance)
{
  char *text = belt_text(20000.0, 2.0, "cw = 0.37;");
  tu_sim s = tu_run_text(text);
  free(text);
  long n = vb_run_samples(s.run);
  const double *tot = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  const double *dis = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
  const double *ext = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
  double worst = 0.0;
  for (long k = 0; k < n; k++)
    worst = fmax(worst, fabs(tot[k] + dis[k] - ext[k] - tot[0]));
  printf("belt balance: %.3g J against %.3g J of external work (%.3g per step and J)\n", worst,
         ext[n - 1], worst / ext[n - 1] / (double)n);
  ck_assert_double_gt(ext[n - 1], 0.1);
  ck_assert_double_le(worst, 16.0 * DBL_EPSILON * ext[n - 1] * sqrt((double)n));
  tu_free(&s);
}
END_TEST

/* ------------------------------------------------------------ families */

/* A ball with a w coordinate bouncing on a floor (no friction) and a free
 * mass oscillating along w alone, under every registered scheme: the u
 * motion is the 1-D scene's to the bit, the w oscillator's energy enters
 * the account without adding to its error (each family's own), and the
 * free oscillator swings to the far side of its start (the two-level
 * rule's energy, m vw^2 / 2 + m w2 w^2 / 2, is kept: the sampled crest at
 * 20 kHz is within (omega dt)^2 / 8 of it). */
static char *
family_text(const char *scheme, int with_w)
{
  static const char fmt[] =
      "scene = { name = \"fam\"; fs = 20000.0; duration = 0.3; gravity = 9.81; };\n"
      "bodies = (\n"
      "  { name = \"floor\"; type = \"wall\"; },\n"
      "  { name = \"ball\"; type = \"mass\"; mass = 0.05; u0 = 1.0e-3; %s },\n"
      "  { name = \"free\"; type = \"mass\"; mass = 0.02; %s } );\n"
      "contacts = ( { name = \"hit\"; between = [\"floor\", \"ball\"]; law = \"power\";\n"
      "  k = 1.0e6; alpha = 1.5; scheme = \"%s\"; } );\n";
  char *t = malloc(sizeof fmt + 256);
  snprintf(t, sizeof fmt + 256, fmt, with_w ? "w0 = 2.0e-3; vw0 = 0.1; kw = 40.0; cw = 0.01;" : "",
           with_w ? "w0 = -1.0e-3; kw = 13.0;" : "", scheme);
  return t;
}

START_TEST(test_w_in_every_family)
{
  size_t ns;
  const vb_scheme *const *all = vb_scheme_list(&ns);
  for (size_t k = 0; k < ns; k++) {
    char *t1 = family_text(all[k]->name, 1), *t0 = family_text(all[k]->name, 0);
    tu_sim s1 = tu_run_text(t1), s0 = tu_run_text(t0);
    free(t1);
    free(t0);
    long n = vb_run_samples(s1.run);
    const double *u1 = vb_run_body_u(s1.run, 1), *u0 = vb_run_body_u(s0.run, 1);
    const double *w = signal_of(&s1, VB_SIGNAL_POINT, "w", 2);
    double e1 = 0.0, e0 = 0.0, amp = 0.0;
    for (long i = 0; i < n; i++) {
      ck_assert_msg(u1[i] == u0[i], "%s: u differs at sample %ld", all[k]->name, i);
      for (int which = 0; which < 2; which++) {
        const vb_run *r = which ? s1.run : s0.run;
        double b = vb_run_energy(r, VB_ENERGY_TOTAL)[i] + vb_run_energy(r, VB_ENERGY_DISSIPATED)[i] -
                   vb_run_energy(r, VB_ENERGY_TOTAL)[0];
        if (vb_run_energy(r, VB_ENERGY_EXTERNAL))
          b -= vb_run_energy(r, VB_ENERGY_EXTERNAL)[i];
        if (which)
          e1 = fmax(e1, fabs(b));
        else
          e0 = fmax(e0, fabs(b));
      }
      amp = fmax(amp, w[i]); /* from -1 mm at rest: the far side, +1 mm */
    }
    double etot = vb_run_energy(s1.run, VB_ENERGY_TOTAL)[0];
    ck_assert_msg(fabs(e1 - e0) <= 1e-12 * etot, "%s: balance %g J with w, %g J without",
                  all[k]->name, e1, e0);
    ck_assert_msg(amp >= 1.0e-3 * (1.0 - 1e-6) && amp <= 1.0e-3 * (1.0 + 1e-12),
                  "%s: the free oscillator reaches %.12g m", all[k]->name, amp);
    tu_free(&s1);
    tu_free(&s0);
  }
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(test_table)
{
  const vb_friction_info *c = vb_friction_lookup("coulomb");
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_eq(vb_friction_info_of(VB_FRICTION_COULOMB), c);
  /* the first row, the last and an unknown name (REBOUND's lesson) */
  ck_assert_ptr_eq(vb_friction_info_of((vb_friction_kind)(VB_FRICTION_COUNT - 1)),
                   vb_friction_lookup("exponential"));
  ck_assert_ptr_eq(vb_friction_info_of(VB_FRICTION_STRIBECK), vb_friction_lookup("stribeck"));
  ck_assert_ptr_null(vb_friction_info_of(VB_FRICTION_NONE));
  ck_assert_ptr_null(vb_friction_info_of(VB_FRICTION_COUNT));
  ck_assert_ptr_null(vb_friction_lookup("dahl"));
  ck_assert_ptr_null(vb_friction_lookup(NULL));
  ck_assert_str_eq(vb_friction_choices(), "coulomb, stribeck, bow, exponential");
  for (int k = 1; k < VB_FRICTION_COUNT; k++) {
    const vb_friction_info *r = vb_friction_info_of((vb_friction_kind)k);
    ck_assert_int_eq(r->kind, k);
    ck_assert_ptr_eq(vb_friction_lookup(r->name), r);
    ck_assert(r->valid && r->local && r->start && r->sticks && r->hold && r->curve);
  }
  char buf[128];
  ck_assert_str_eq(vb_friction_schemes(buf, sizeof buf), "two-point");
  /* the local problem: stick inside the static cone, kinetic outside */
  vb_friction law = {.kind = VB_FRICTION_COULOMB, .mu_s = 0.6, .mu_k = 0.4};
  double st = 0.0;
  int broke = 0;
  ck_assert_double_eq_tol(c->local(&law, 10.0, 2.0, 0.5, &broke, &st), -4.0, 1e-15);
  ck_assert(c->sticks(&st) && !broke);
  ck_assert_double_eq(c->local(&law, 10.0, 3.5, 0.5, &broke, &st), -4.0);
  ck_assert(!c->sticks(&st) && broke);
  /* broken free in this step's solve: the kinetic cone (5 N would stick
   * within mu_s N = 6 N, not within mu_k N = 4 N) */
  ck_assert_double_eq(c->local(&law, 10.0, -2.5, 0.5, &broke, &st), 4.0);
  ck_assert(!c->sticks(&st));
  broke = 0;
  ck_assert_double_eq_tol(c->local(&law, 10.0, -2.5, 0.5, &broke, &st), 5.0, 1e-15);
  ck_assert(c->sticks(&st));
  ck_assert_double_eq(c->local(&law, 0.0, 1e-9, 0.5, &broke, &st), 0.0);
}
END_TEST

/* Bad input: file:line, the object, what is wrong, the valid choices. */
static const struct {
  const char *body, *contact, *want;
} bad[] = {
    {"", "scheme = \"three-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:6: contact 'rub': scheme 'three-point' cannot step friction yet (valid: two-point)"},
    {"", "scheme = \"two-point\"; friction = { law = \"dahl\"; mu_s = 0.5; };",
     "test.cfg:6: contact 'rub' friction: unknown friction law 'dahl' (valid: coulomb, stribeck, "
     "bow, exponential)"},
    {"", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; mu_k = 0.7; };",
     "test.cfg:6: contact 'rub' friction: 'mu_k' = 0.7 is above 'mu_s' = 0.5 (valid: mu_k <= mu_s)"},
    {"", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = -0.5; };",
     "test.cfg:6: contact 'rub' friction: 'mu_s'"},
    {"", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; nu = 1.0; };",
     "test.cfg:6: contact 'rub' friction: unknown key 'nu'"},
    {"", "scheme = \"two-point\"; friction = { law = \"coulomb\"; };",
     "test.cfg:6: contact 'rub' friction: missing required key 'mu_s'"},
    {"nowall", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:6: contact 'rub': friction needs a w direction on both bodies: mass 'block' has "
     "no w coordinate (valid: give it w0, vw0, kw or cw)"},
    {"badrive", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:3: body 'belt' w_drive: unknown drive type 'conveyor' (valid: velocity, sine, "
     "profile, noise)"},
    {"negkw", "scheme = \"two-point\"; friction = { law = \"coulomb\"; mu_s = 0.5; };",
     "test.cfg:4: body 'block': 'kw'"},
};

START_TEST(test_bad_input)
{
  char text[2048], err[512];
  const char *belt = "w_drive = { type = \"velocity\"; v = 0.02; };";
  const char *block = "w0 = 0.0; kw = 100.0;";
  if (strcmp(bad[_i].body, "nowall") == 0)
    block = "";
  if (strcmp(bad[_i].body, "badrive") == 0)
    belt = "w_drive = { type = \"conveyor\"; v = 0.02; };";
  if (strcmp(bad[_i].body, "negkw") == 0)
    block = "kw = -3.0;";
  snprintf(text, sizeof text,
           "scene = { name = \"bad\"; fs = 10000.0; duration = 0.01; gravity = 9.81; };\n"
           "bodies = (\n"
           "  { name = \"belt\"; type = \"wall\"; %s },\n"
           "  { name = \"block\"; type = \"mass\"; mass = 1.0; u0 = -1e-6; %s } );\n"
           "contacts = ( { name = \"rub\"; between = [\"belt\", \"block\"]; law = \"power\";\n"
           "  k = 1.0e7; alpha = 1.0; %s } );\n",
           belt, block, bad[_i].contact);
  vb_scene *sc = NULL;
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strncmp(err, bad[_i].want, strlen(bad[_i].want)) == 0, "got: %s\nwant: %s", err,
                bad[_i].want);
}
END_TEST

/* A modal body cannot take friction yet. */
START_TEST(test_modal_refused)
{
  static const char text[] =
      "scene = { name = \"bad\"; fs = 10000.0; duration = 0.01; };\n"
      "bodies = (\n"
      "  { name = \"belt\"; type = \"wall\"; },\n"
      "  { name = \"bar\"; type = \"modal\"; freq = [0.0, 100.0]; mass = [1.0, 1.0];\n"
      "    points = ( { name = \"end\"; shape = [1.0, 1.0]; } ); } );\n"
      "contacts = ( { name = \"rub\"; between = [\"belt\", \"bar.end\"]; law = \"power\";\n"
      "  k = 1.0e7; alpha = 1.0; scheme = \"two-point\";\n"
      "  friction = { law = \"coulomb\"; mu_s = 0.5; }; } );\n";
  char err[512];
  vb_scene *sc = NULL;
  ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "test.cfg:8: contact 'rub': friction needs a w direction on both "
                            "bodies: body 'bar' (type modal) has no w direction yet") == err,
                "got: %s", err);
}
END_TEST

static Suite *
friction_suite(void)
{
  Suite *s = suite_create("friction");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 120);
  tcase_add_test(core, test_belt_closed_form);
  tcase_add_test(core, test_held_no_creep);
  tcase_add_loop_test(core, test_energy_and_cone, 0, (int)(sizeof varying / sizeof varying[0]));
  tcase_add_test(core, test_belt_balance);
  tcase_add_test(core, test_w_in_every_family);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 120);
  tcase_add_test(limits, test_belt_order);
  tcase_add_test(limits, test_held_threshold);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_table);
  tcase_add_loop_test(errors, test_bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(errors, test_modal_refused);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(friction_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
