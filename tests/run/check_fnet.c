/* check_fnet.c - random networks with friction (issue 30's proof: "energy
 * balance to round-off and zero cone violations on random networks with
 * friction, including distributed contacts and several islands").
 *
 * Each seed writes a scene of 1 to 3 islands of stacked masses under
 * gravity (1 to 3 masses on a wall that stands, slides as a belt or
 * swings along w), joined by a chain of contacts whose normal law is a
 * force law (power, hunt-crossley: one island's scheme two-point or
 * three-point) or the rigid law (moreau-jean, e in [0, 1], 0 and 1
 * included), most with a friction law of the table (coulomb with mu_s 0
 * and mu_k = mu_s among them, stribeck with its viscous term, bow,
 * exponential, elasto-plastic off the rigid law), masses with springs and
 * dampers along w and spins; beside them, at random, a block pressed on a
 * belt by a prescribed (sometimes sine) normal force and a string on its
 * frets (a distributed contact with friction).  For every seed:
 *   1. the run ends done, or with a failure that names itself (never a
 *      crash, never NaN in a done run);
 *   2. the energy balance E + dissipated - external closes within 1e-9 of
 *      the largest energy in play at every sample (check_random's bound;
 *      the worst, per step, is printed);
 *   3. no friction force outside its law's bound times the step's normal
 *      force, none while apart, and the friction work never falls under
 *      the force laws;
 *   4. under the rigid law (Moreau-Jean: the law holds the node slip s1 at
 *      n+1, the work is the impulse times the step's mean slip, P (s0 +
 *      s1) / 2, doc/rigid.md "The friction work of a step"), a step's work
 *      is never below the bounds proven there, written here from the
 *      scene's own numbers: an island's total at most (1/8) D' A^-1 D
 *      below zero (D the free change of the node slips over the step, A
 *      the node compliance T M^-1 T'), a contact's own at most D_i^2 /
 *      (8 A_ii) plus its share of the others' impulses |P_i| sum_j |A_ij|
 *      |P_j| / 2 below zero;
 *   5. a second run is bitwise the first.
 * The reference is the law's bound and the energy account written here,
 * not vibro's own output.  VIBRO_FNET_SCENES (default 60) seeds from
 * VIBRO_FNET_SEED (default 1); FNET_PRINT=1 prints each scene (a failure
 * names its seed: VIBRO_FNET_SEED=s VIBRO_FNET_SCENES=1 FNET_PRINT=1). */
#include <float.h>
#include <math.h>
#include "../testutil.h"

static unsigned long long
next(unsigned long long *x)
{
  unsigned long long z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double
uni(unsigned long long *x, double lo, double hi)
{
  return lo + (hi - lo) * (double)(next(x) >> 11) / 9007199254740992.0;
}
static int
chance(unsigned long long *x, double p)
{
  return uni(x, 0.0, 1.0) < p;
}

/* What the checks need of a contact, by its index in the scene (the
 * contacts are listed in the order written). */
typedef struct {
  int friction;   /* 0 none, 1 coulomb, 2 stribeck, 3 bow, 4 exponential, 5 elasto-plastic */
  double mu;      /* the bound on |ft| / N at zero slip */
  double viscous; /* its growth with |slip| (stribeck's viscous term; the
                     bristle's damping sigma1 + sigma2 for elasto-plastic) */
  int rigid;
} fcontact;

typedef struct {
  int nc, rigid_islands, force_islands, pressed, strings;
  fcontact c[32];
  int laws[6];
} fscene;

/* A friction group of law `law` on contact c, its bound written into c. */
static void
friction_text(text *t, unsigned long long *x, int law, fcontact *c, int rigid)
{
  double ms = chance(x, 0.1) ? 0.0 : uni(x, 0.1, 0.9);
  double mk = chance(x, 0.2) ? ms : ms * uni(x, 0.3, 1.0);
  c->friction = law;
  c->mu = ms;
  c->viscous = 0.0;
  switch (law) {
  case 1:
    add(t, " friction = { law = \"coulomb\"; mu_s = %.17g; mu_k = %.17g; };", ms, mk);
    break;
  case 2:
    /* not under the rigid law: its viscous term is taken at the node slip
     * (doc/rigid.md), which no signal records, so its bound is not
     * checkable from the recorded mean slip */
    c->viscous = !rigid && chance(x, 0.5) ? uni(x, 0.0, 0.5) : 0.0;
    add(t, " friction = { law = \"stribeck\"; mu_s = %.17g; mu_k = %.17g; v_s = %.17g; delta = %.17g; "
           "viscous = %.17g; };",
        ms, mk, uni(x, 0.003, 0.05), uni(x, 0.7, 3.0), c->viscous);
    break;
  case 3:
    add(t, " friction = { law = \"bow\"; mu_s = %.17g; mu_d = %.17g; v0 = %.17g; };", ms, mk,
        uni(x, 0.02, 0.3));
    break;
  case 4:
    c->mu = 1.0;
    add(t, " friction = { law = \"exponential\"; a = %.17g; };", pow(10.0, uni(x, 1.0, 4.0)));
    break;
  default: {
    ms = uni(x, 0.2, 0.9);
    mk = ms * uni(x, 0.4, 1.0);
    double s1 = chance(x, 0.5) ? uni(x, 0.0, 0.5) : 0.0, s2 = chance(x, 0.5) ? uni(x, 0.0, 0.3) : 0.0;
    c->mu = ms;
    c->viscous = s1 + s2;
    add(t, " friction = { law = \"elasto-plastic\"; mu_s = %.17g; mu_k = %.17g; v_s = %.17g; "
           "sigma0 = %.17g; sigma1 = %.17g; sigma2 = %.17g; z_ba = %.17g; };",
        ms, mk, uni(x, 0.005, 0.05), pow(10.0, uni(x, 4.0, 6.0)), s1, s2, uni(x, 0.0, 0.9));
  }
  }
}

/* Scene `seed`'s text (the caller frees it) and what the checks need. */
static char *
fnet_text(unsigned long long seed, fscene *fs_)
{
  text b = {NULL, 0, 0}, c = {NULL, 0, 0}, h = {NULL, 0, 0};
  unsigned long long x = seed * 104729ULL + 3ULL;
  memset(fs_, 0, sizeof *fs_);
  double fs = uni(&x, 20000.0, 60000.0);
  int ni = 1 + (int)(next(&x) % 3);
  for (int i = 0; i < ni; i++) {
    int rigid = chance(&x, 0.35), nm = 1 + (int)(next(&x) % 3);
    const char *scheme = rigid ? "moreau-jean" : chance(&x, 0.5) ? "two-point" : "three-point";
    if (rigid)
      fs_->rigid_islands++;
    else
      fs_->force_islands++;
    int drive = (int)(next(&x) % 3);
    add(&b, "  { name = \"wall%d\"; type = \"wall\";", i);
    if (drive == 1)
      add(&b, " w_drive = { type = \"velocity\"; v = %.17g; };", uni(&x, -0.2, 0.2));
    else if (drive == 2)
      add(&b, " w_drive = { type = \"sine\"; amplitude = %.17g; freq = %.17g; };", uni(&x, 1e-3, 5e-3),
          uni(&x, 1.0, 6.0));
    add(&b, " },\n");
    double u = rigid ? uni(&x, 0.0, 2e-3) : uni(&x, -1e-6, 2e-3);
    for (int m = 0; m < nm; m++) {
      double mass = uni(&x, 0.05, 1.0);
      add(&b, "  { name = \"m%d_%d\"; type = \"mass\"; mass = %.17g; u0 = %.17g; w0 = %.17g; vw0 = %.17g;",
          i, m, mass, u, uni(&x, -1e-3, 1e-3), uni(&x, -0.05, 0.05));
      if (chance(&x, 0.6))
        add(&b, " kw = %.17g;", uni(&x, 10.0, 1000.0));
      if (chance(&x, 0.3))
        add(&b, " cw = %.17g;", uni(&x, 0.0, 0.3));
      if (chance(&x, 0.3)) {
        double r = uni(&x, 0.005, 0.02);
        add(&b, " radius = %.17g; inertia = %.17g; spin0 = %.17g;", r, 0.4 * mass * r * r * uni(&x, 0.5, 1.0),
            uni(&x, -20.0, 20.0));
      }
      add(&b, " },\n");
      /* the contact below it: the wall's or the mass's under it */
      fcontact *fc = &fs_->c[fs_->nc];
      fc->rigid = rigid;
      char below[32];
      if (m == 0)
        snprintf(below, sizeof below, "wall%d", i);
      else
        snprintf(below, sizeof below, "m%d_%d", i, m - 1);
      add(&c, "  { name = \"c%d\"; between = [\"%s\", \"m%d_%d\"]; scheme = \"%s\";", fs_->nc, below, i, m,
          scheme);
      if (rigid) {
        double e = chance(&x, 0.15) ? 0.0 : chance(&x, 0.15) ? 1.0 : uni(&x, 0.0, 1.0);
        add(&c, " law = \"rigid\"; e = %.17g;", e);
      } else if (chance(&x, 0.5)) {
        double alpha = chance(&x, 0.3) ? 1.0 : uni(&x, 1.0, 2.0);
        add(&c, " law = \"power\"; k = %.17g; alpha = %.17g;", pow(10.0, uni(&x, 5.0, 7.0)) / pow(1e-4, alpha - 1.0),
            alpha);
      } else {
        double alpha = uni(&x, 1.0, 2.0);
        add(&c, " law = \"hunt-crossley\"; k = %.17g; alpha = %.17g; mu = %.17g;",
            pow(10.0, uni(&x, 5.0, 7.0)) / pow(1e-4, alpha - 1.0), alpha, uni(&x, 0.0, 1.0));
      }
      if (chance(&x, 0.85)) {
        int law = 1 + (int)(next(&x) % (rigid ? 4 : 5));
        friction_text(&c, &x, law, fc, rigid);
        fs_->laws[law]++;
      }
      add(&c, " },\n");
      fs_->nc++;
      u += uni(&x, 0.0, 1e-3);
    }
  }
  if (chance(&x, 0.3)) { /* a block pressed on a belt */
    fs_->pressed = 1;
    fcontact *fc = &fs_->c[fs_->nc];
    add(&b, "  { name = \"belt\"; type = \"wall\"; w_drive = { type = \"velocity\"; v = %.17g; }; },\n"
            "  { name = \"block\"; type = \"mass\"; mass = %.17g; kw = %.17g; w0 = %.17g; vw0 = %.17g; k = 2000.0; },\n",
        uni(&x, -0.1, 0.1), uni(&x, 0.1, 1.0), uni(&x, 100.0, 2000.0), uni(&x, -1e-3, 1e-3), uni(&x, -0.05, 0.05));
    double N = uni(&x, 0.5, 5.0);
    add(&c, "  { name = \"c%d\"; between = [\"belt\", \"block\"]; normal_force = %.17g; scheme = \"two-point\";",
        fs_->nc, N);
    if (chance(&x, 0.5))
      add(&c, " normal_force_drive = { type = \"sine\"; amplitude = %.17g; freq = %.17g; };", N * uni(&x, 0.2, 1.5),
          uni(&x, 2.0, 20.0));
    int law = 1 + (int)(next(&x) % 5);
    friction_text(&c, &x, law, fc, 0);
    fs_->laws[law]++;
    add(&c, " },\n");
    fs_->nc++;
  }
  if (chance(&x, 0.25)) { /* a string on 1 to 3 frets */
    fs_->strings = 1;
    fcontact *fc = &fs_->c[fs_->nc];
    int np = 1 + (int)(next(&x) % 3);
    double L = uni(&x, 0.4, 1.0), amp = uni(&x, 0.5e-3, 2e-3);
    add(&b, "  { name = \"fret\"; type = \"wall\"; },\n"
            "  { name = \"str\"; type = \"modal\"; directions = [\"u\", \"w\"]; pluck_angle = %.17g;\n"
            "    preset = { kind = \"string\"; nmodes = %d; length = %.17g; tension = %.17g; linear_density = %.17g; "
            "pluck = [%.17g, %.17g]; };\n"
            "    points = ( { name = \"pickup\"; x = %.17g; } ); },\n",
        uni(&x, -80.0, 80.0), 4 * np + (int)(next(&x) % 20), L, uni(&x, 20.0, 200.0), uni(&x, 0.0005, 0.008),
        uni(&x, 0.2, 0.8) * L, amp, uni(&x, 0.1, 0.9) * L);
    add(&c, "  { name = \"c%d\"; between = [\"fret\", \"str\"]; points = { x = [", fs_->nc);
    for (int k = 0; k < np; k++)
      add(&c, "%s%.17g", k ? ", " : "", L * (0.05 + 0.9 * (k + uni(&x, 0.1, 0.9)) / np));
    add(&c, "]; }; profile = { height = %.17g; }; law = \"power\"; k = %.17g; alpha = 1.5; scheme = \"two-point\";",
        -uni(&x, 0.0, 0.5e-3), pow(10.0, uni(&x, 5.0, 8.0)));
    int law = 1 + (int)(next(&x) % 4);
    friction_text(&c, &x, law, fc, 0);
    fs_->laws[law]++;
    add(&c, " },\n");
    fs_->nc++;
  }
  int any = 0;
  for (int k = 0; k < fs_->nc; k++)
    any |= fs_->c[k].friction != 0;
  b.s[b.n -= 2] = '\0'; /* the last ",\n" */
  c.s[c.n -= 2] = '\0';
  add(&h,
      "scene = { name = \"fnet%llu\"; fs = %.17g; duration = %.17g; gravity = 9.81; };\n"
      "bodies = (\n%s\n);\ncontacts = (\n%s\n);\n"
      "record = { signals = [\"energy/*\"%s]; };\n",
      seed, fs, 0.25, b.s, c.s,
      any ? ", \"contacts/*/ft\", \"contacts/*/normal\", \"contacts/*/slip\", \"contacts/*/friction_work\"" : "");
  free(b.s);
  free(c.s);
  return h.s;
}

/* The samples of contact signal `name` of contact c (the whole of a
 * distributed contact: [point][time]), or NULL. */
static const double *
series(const tu_sim *s, const char *name, int c)
{
  int nt;
  const vb_signal *t = vb_signal_table(&nt);
  for (int r = 0; r < nt; r++)
    if (t[r].object == VB_SIGNAL_CONTACT && strcmp(t[r].name, name) == 0)
      return vb_signal_data(s->run, &t[r], c);
  return NULL;
}

/* The node slip's free change over a step at a body's side of a contact
 * (doc/rigid.md, "The friction work of a step"), at most, m/s: a mass's
 * two-level free step changes its node velocity by at most h (w'^2 |w| +
 * (2 sig' + h w'^2 / 2) |vw|), w' and sig' its pre-warped omega and sigma
 * (within 1e-4 of omega and sigma at these fs: taken twice), with |w| <=
 * sqrt(2 E / kw) and |vw| <= sqrt(2 E / m) (E >= 0 the largest energy of
 * the run, gravity's work being external); a spin, a free rotor, not at
 * all; a wall along w by at most h max |w''| (a sine's A (2 pi f)^2, a
 * belt's 0). */
static double
free_change(const vb_body *b, double h, double emax)
{
  if (b->kind == VB_BODY_WALL)
    return b->w_drive.kind == VB_DRIVE_SINE
               ? h * b->w_drive.amplitude * pow(2.0 * M_PI * b->w_drive.freq, 2.0)
               : 0.0;
  double m = b->mass, vmax = sqrt(2.0 * emax / m);
  return 2.0 * h * (sqrt(2.0 * emax * b->kw) / m + (b->cw / m + 0.5 * h * b->kw / m) * vmax);
}

/* Contact ct's row of T over coordinates (2 j: body j's w, 2 j + 1: its
 * spin), into t[2 nbodies]: +1 at b's w, -1 at a's, each spin's radius. */
static void
t_row(const vb_scene *sc, const vb_contact *ct, double *t)
{
  memset(t, 0, 2 * (size_t)sc->nbodies * sizeof *t);
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  if (b->kind == VB_BODY_MASS) {
    t[2 * ct->b] = 1.0;
    t[2 * ct->b + 1] = b->has_spin ? b->radius : 0.0;
  }
  if (a->kind == VB_BODY_MASS) {
    t[2 * ct->a] = -1.0;
    t[2 * ct->a + 1] = a->has_spin ? a->radius : 0.0;
  }
}

/* The inverse of the n x n matrix a (n <= 8) into ai, by Gauss-Jordan with
 * partial pivoting; 0 if singular. */
static int
invert(int n, const double *a, double *ai)
{
  double w[8][16];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2 * n; j++)
      w[i][j] = j < n ? a[i * n + j] : (j - n == i);
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(w[r][c]) > fabs(w[p][c]))
        p = r;
    if (w[p][c] == 0.0)
      return 0;
    for (int j = 0; j < 2 * n; j++) {
      double x = w[c][j];
      w[c][j] = w[p][j];
      w[p][j] = x;
    }
    for (int r = 0; r < n; r++) {
      if (r == c)
        continue;
      double f = w[r][c] / w[c][c];
      for (int j = 0; j < 2 * n; j++)
        w[r][j] -= f * w[c][j];
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      ai[i * n + j] = w[i][n + j] / w[i][i];
  return 1;
}

START_TEST(test_random_networks)
{
  const char *e = getenv("VIBRO_FNET_SCENES"), *e0 = getenv("VIBRO_FNET_SEED");
  int nscenes = e ? atoi(e) : 60;
  unsigned long long seed0 = e0 ? strtoull(e0, NULL, 10) : 1;
  int done = 0, failed = 0, rigid = 0, force = 0, pressed = 0, strings = 0, laws[6] = {0};
  long sticking = 0, slipping = 0, apart = 0, reversals = 0, island_neg = 0, coupled_neg = 0;
  double worst_fall = 0.0, worst_bristle = 0.0, worst_island = 0.0, island_ratio = 0.0;
  double contact_ratio = 0.0, single_fall = 0.0, lowest_running = 0.0;
  double worst = 0.0, worst_cone = -INFINITY;
  for (unsigned long long seed = seed0; seed < seed0 + (unsigned long long)nscenes; seed++) {
    fscene f;
    char *txt = fnet_text(seed, &f);
    if (getenv("FNET_PRINT"))
      printf("%s\n", txt);
    tu_sim s = tu_run_text(txt);
    /* 1: done, or a failure that says what failed */
    ck_assert_msg(s.rc == VB_OK || s.rc == VB_ENOCONV || s.rc == VB_EDIVERGED, "seed %llu: rc %d: %s", seed,
                  s.rc, vb_run_status(s.run));
    if (s.rc != VB_OK) {
      failed++;
      printf("fnet: seed %llu: %s\n", seed, vb_run_status(s.run));
      ck_assert_msg(strstr(vb_run_status(s.run), " at t=") != NULL, "seed %llu: '%s' does not say when",
                    seed, vb_run_status(s.run));
      tu_free(&s);
      free(txt);
      continue;
    }
    done++;
    rigid += f.rigid_islands;
    force += f.force_islands;
    pressed += f.pressed;
    strings += f.strings;
    for (int k = 0; k < 6; k++)
      laws[k] += f.laws[k];
    long n = vb_run_samples(s.run);
    /* 2: the balance, against the largest energy in play */
    const double *E = vb_run_energy(s.run, VB_ENERGY_TOTAL);
    const double *D = vb_run_energy(s.run, VB_ENERGY_DISSIPATED);
    const double *X = vb_run_energy(s.run, VB_ENERGY_EXTERNAL);
    double scale = 0.0, err = 0.0;
    for (long k = 0; k < n; k++) {
      ck_assert_msg(isfinite(E[k]) && isfinite(D[k]) && isfinite(X[k]), "seed %llu: energy not finite at %ld",
                    seed, k);
      scale = fmax(scale, fmax(fabs(E[k]), fmax(fabs(D[k]), fabs(X[k]))));
      err = fmax(err, fabs(E[k] + D[k] - X[k] - E[0]));
    }
    worst = fmax(worst, err / (scale * (double)n));
    /* check_random's criterion for energy-conserving islands (1e-9 of the
     * largest energy in play: a stiff contact's Newton stops at its
     * tolerance, not at round-off); the worst per step is reported */
    ck_assert_msg(err <= 1e-9 * scale,
                  "seed %llu: balance off by %g J of %g J over %ld samples", seed, err, scale, n);
    /* 3: the cone, apart, the work (a distributed contact is one contact
     * instance a point, named for its group) */
    const vb_scene *sc = s.scene;
    for (int ci = 0; ci < sc->ncontacts; ci++) {
      int which = -1;
      if (sc->contacts[ci].group[0])
        which = f.nc - 1;
      else
        ck_assert_int_eq(sscanf(sc->contacts[ci].name, "c%d", &which), 1);
      const fcontact *fc = &f.c[which];
      if (!fc->friction)
        continue;
      const double *ftp = series(&s, "ft", ci), *Np = series(&s, "normal", ci);
      const double *slp = series(&s, "slip", ci), *Wp = series(&s, "friction_work", ci);
      ck_assert_ptr_nonnull(ftp);
      ck_assert_ptr_nonnull(Np);
      ck_assert_ptr_nonnull(slp);
      ck_assert_ptr_nonnull(Wp);
      for (long k = 1; k < n; k++) {
        /* the elasto-plastic bristle's discrete deflection may pass z_ss
         * within a step (alpha = 1 pulls it back over the next ones): its
         * bound is taken loosely at 2 mu_s, as check_dfric does, and its
         * largest |ft| / (mu_s N) reported */
        double sabs = isnan(slp[k]) ? 0.0 : fabs(slp[k]);
        double bound = ((fc->friction == 5 ? 2.0 : 1.0) * fc->mu + fc->viscous * sabs) * Np[k];
        if (fc->friction == 5 && Np[k] > 0.0)
          worst_bristle = fmax(worst_bristle, (fabs(ftp[k]) - fc->viscous * sabs * Np[k]) / (fc->mu * Np[k]));
        double over = fabs(ftp[k]) - bound;
        worst_cone = fmax(worst_cone, over / fmax(Np[k], DBL_MIN));
        /* round-off: of the bound's own arithmetic, and of the recorded
         * slip (a difference of displacements over dt) against the slip
         * the law solved, which the viscous term multiplies */
        ck_assert_msg(over <= 16.0 * DBL_EPSILON * bound + 1e-12 * fc->viscous * sabs * Np[k], "seed %llu contact %s sample %ld: |ft| %.17g N above "
                      "%.17g N (N %.17g, slip %.17g)", seed, sc->contacts[ci].name, k, fabs(ftp[k]), bound,
                      Np[k], slp[k]);
        if (Np[k] == 0.0) {
          ck_assert_msg(ftp[k] == 0.0, "seed %llu %s: ft %g while apart", seed, sc->contacts[ci].name, ftp[k]);
          apart++;
        } else if (fc->friction != 5 && slp[k] == 0.0)
          sticking++;
        else
          slipping++;
        /* the rigid law's work: against its bounds below (4) */
        if (fc->rigid)
          continue;
        ck_assert_msg(Wp[k] >= Wp[k - 1] - 8.0 * DBL_EPSILON * (fabs(Wp[k]) + fabs(ftp[k]) * 1e-2),
                      "seed %llu %s: friction work falls at %ld: %.17g to %.17g (slip %.17g to %.17g, N %.17g)", seed,
                      sc->contacts[ci].name, k, Wp[k - 1], Wp[k], slp[k - 1], slp[k], Np[k]);
      }
    }
    /* 4: the rigid islands' friction work, against the bounds of
     * doc/rigid.md from the scene's own numbers (every step recorded) */
    ck_assert_int_eq(sc->record_every, 1);
    double h = 1.0 / sc->fs, emax = 0.0;
    for (long k = 0; k < n; k++)
      emax = fmax(emax, E[k]);
    for (int isl = 0; isl < 3; isl++) {
      int fci[8], nf = 0, nb2 = 2 * sc->nbodies;
      char wall[32];
      snprintf(wall, sizeof wall, "wall%d", isl);
      for (int ci = 0; ci < sc->ncontacts && nf < 8; ci++) {
        int which = -1, i2 = -1, m2 = -1;
        if (sc->contacts[ci].group[0] || sscanf(sc->contacts[ci].name, "c%d", &which) != 1)
          continue;
        const char *bn = sc->bodies[sc->contacts[ci].b].name;
        if (f.c[which].rigid && f.c[which].friction && sscanf(bn, "m%d_%d", &i2, &m2) == 2 && i2 == isl)
          fci[nf++] = ci;
      }
      if (nf == 0)
        continue;
      /* A = T M^-1 T' (a mass's w of its mass, a spin of its inertia),
       * Abar with |T_ik T_jk|, and each contact's D bound */
      double A[64], Ai[64], Abar[64], D[8], t1[64], t2[64];
      ck_assert_int_le(nb2, 64);
      for (int i = 0; i < nf; i++) {
        const vb_contact *ci = &sc->contacts[fci[i]];
        D[i] = free_change(&sc->bodies[ci->a], h, emax) + free_change(&sc->bodies[ci->b], h, emax);
        t_row(sc, ci, t1);
        for (int j = 0; j < nf; j++) {
          t_row(sc, &sc->contacts[fci[j]], t2);
          double s1 = 0.0, s2 = 0.0;
          for (int q = 0; q < nb2; q++) {
            const vb_body *bq = &sc->bodies[q / 2];
            if (t1[q] == 0.0 || t2[q] == 0.0)
              continue;
            double mq = q % 2 ? bq->inertia : bq->mass;
            s1 += t1[q] * t2[q] / mq;
            s2 += fabs(t1[q] * t2[q]) / mq;
          }
          A[i * nf + j] = s1;
          Abar[i * nf + j] = s2;
        }
      }
      ck_assert(invert(nf, A, Ai));
      /* the island's bound (1/8) D' A_node^-1 D with A_node^-1 <= 2 A^-1
       * (the node compliance's 1 / (1 + h sig' + h^2 w'^2 / 4) <= 1) */
      double B = 0.0;
      for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++)
          B += 0.25 * fabs(Ai[i * nf + j]) * D[i] * D[j];
      const double *W[8], *F[8];
      for (int i = 0; i < nf; i++) {
        W[i] = series(&s, "friction_work", fci[i]);
        F[i] = series(&s, "ft", fci[i]);
      }
      for (long k = 1; k < n; k++) {
        double sum = 0.0, tol = 0.0;
        for (int i = 0; i < nf; i++) {
          double dw = W[i][k] - W[i][k - 1], ti = 8.0 * DBL_EPSILON * (fabs(W[i][k]) + fabs(F[i][k]) * 1e-2);
          sum += dw;
          tol += ti;
          /* the contact's own: D_i^2 / (8 A_node,ii) with A_node,ii >=
           * A_ii / 2, and half its impulse times the others' through
           * |A_node,ij| <= Abar_ij */
          double share = 0.0;
          for (int j = 0; j < nf; j++)
            if (j != i)
              share += 0.5 * fabs(F[i][k] * h) * Abar[i * nf + j] * fabs(F[j][k] * h);
          double bi = D[i] * D[i] / (4.0 * A[i * nf + i]) + share;
          lowest_running = fmin(lowest_running, W[i][k]);
          if (dw < 0.0) {
            reversals++;
            worst_fall = fmax(worst_fall, -dw);
            coupled_neg += nf > 1;
            if (nf == 1)
              single_fall = fmax(single_fall, -dw);
            contact_ratio = fmax(contact_ratio, -dw / bi);
          }
          /* (1e-9 of it: the recorded force is the solve's and the
           * catch's, a node slip of the solve's tolerance) */
          ck_assert_msg(dw >= -bi * (1.0 + 1e-9) - ti,
                        "seed %llu %s: friction work falls by %.3g J at %ld, beyond its bound %.3g J", seed,
                        sc->contacts[fci[i]].name, -dw, k, bi);
        }
        if (sum < 0.0) {
          island_neg++;
          worst_island = fmax(worst_island, -sum);
          island_ratio = fmax(island_ratio, -sum / B);
        }
        ck_assert_msg(sum >= -B - tol, "seed %llu island %d: friction work falls by %.3g J at %ld, beyond %.3g J",
                      seed, isl, -sum, k, B);
      }
    }
    /* 5: a second run, bitwise */
    tu_sim t = tu_run_text(txt);
    ck_assert_int_eq(t.rc, s.rc);
    ck_assert_msg(memcmp(E, vb_run_energy(t.run, VB_ENERGY_TOTAL), (size_t)n * sizeof *E) == 0,
                  "seed %llu: a second run differs", seed);
    for (int ci = 0; ci < sc->ncontacts; ci++) {
      const double *a = series(&s, "ft", ci), *b2 = series(&t, "ft", ci);
      if (a)
        ck_assert_msg(b2 && memcmp(a, b2, (size_t)n * sizeof *a) == 0, "seed %llu: %s's ft differs in a second run",
                      seed, sc->contacts[ci].name);
    }
    tu_free(&t);
    tu_free(&s);
    free(txt);
  }
  printf("fnet: %d scenes done, %d failed (reported); %d rigid and %d force islands, %d pressed blocks, %d "
         "strings on frets; laws coulomb %d, stribeck %d, bow %d, exponential %d, elasto-plastic %d; %ld samples "
         "sticking, %ld slipping, %ld apart; balance at most %.3g of the largest energy a step; |ft| - bound at "
         "most %.3g of N; elasto-plastic |ft| at most %.3g mu_s N\n",
         done, failed, rigid, force, pressed, strings, laws[1], laws[2], laws[3], laws[4], laws[5], sticking,
         slipping, apart, worst, worst_cone, worst_bristle);
  printf("fnet: rigid law: %ld contact steps of negative friction work, %ld of them in islands of coupled friction "
         "contacts (at most %.3g J, %.3g of the contact's bound; alone on an island at most %.3g J); %ld island "
         "steps of negative total (at most %.3g J, %.3g of the island's bound); running work at least %.3g J\n",
         reversals, coupled_neg, worst_fall, contact_ratio, single_fall, island_neg, worst_island, island_ratio,
         lowest_running);
  /* the space is covered: every family and law, both phases */
  ck_assert_int_ge(done, nscenes * 9 / 10);
  ck_assert_int_gt(rigid, 0);
  ck_assert_int_gt(force, 0);
  ck_assert_int_gt(pressed, 0);
  ck_assert_int_gt(strings, 0);
  for (int k = 1; k <= 5; k++)
    ck_assert_int_gt(laws[k], 0);
  ck_assert_int_gt(sticking, 1000);
  ck_assert_int_gt(slipping, 1000);
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("fnet");
  TCase *t = tcase_create("networks");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_random_networks);
  suite_add_tcase(s, t);
  return tu_main(s);
}
