/* check_record.c - the signal table (lib/run/record.c): every row's instances,
 * groups and data agree with the run's accessors, and the recording's size
 * is the one the scene announces; record.signals selects what is recorded
 * (and allocated), events and the table's figures do not change, and a glob
 * that matches nothing is refused. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <unistd.h>
#include "testutil.h"
#include "run/run.h"

/* A ball, a modal plate with two points, a driven wall, two contacts, and
 * record.modes. */
static const char scene_text[] =
  "scene = { name = \"rec\"; fs = 44100.0; duration = 0.003; gravity = 9.81; };\n"
  "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.0113; u0 = 1.0e-5; v0 = -0.3; },\n"
  "  { name = \"plate\"; type = \"modal\"; freq = [0.0, 211.0, 587.0]; mass = [0.5, 0.2, 0.1];\n"
  "    points = ( { name = \"hit\"; shape = [1.0, 0.7, -0.4]; },\n"
  "               { name = \"pickup\"; shape = [1.0, -0.3, 0.2]; } ); },\n"
  "  { name = \"floor\"; type = \"wall\"; drive = { type = \"sine\"; amplitude = 1.0e-4;\n"
  "    freq = 50.0; }; } );\n"
  "contacts = ( { name = \"strike\"; between = [\"plate.hit\", \"ball\"]; law = \"hunt-crossley\";\n"
  "    k = 1.0e8; alpha = 1.5; mu = 0.2; scheme = \"am1\"; },\n"
  "  { name = \"rest\"; between = [\"floor\", \"plate.pickup\"]; law = \"spring\"; k = 1.0e5;\n"
  "    c = 2.0; scheme = \"two-point\"; } );\n"
  "record = { every = 1; modes = true; signals = [\"*\"]; };\n";

START_TEST(test_table_is_the_recording)
{
  tu_sim s = tu_run_text(scene_text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_scene *sc = s.scene;
  int n;
  const vb_signal *t = vb_signal_table(&n);
  long samples = vb_run_samples(s.run);
  double series = 0.0;
  char group[256];
  for (int r = 0; r < n; r++) {
    if (t[r].tangential) { /* issue 30: rows a 1-D scene records nothing of */
      for (int i = 0; i < vb_signal_count(&t[r], sc); i++)
        ck_assert(!vb_signal_recorded(&t[r], sc, i) && !vb_signal_data(s.run, &t[r], i));
      continue;
    }
    int count = vb_signal_count(&t[r], sc);
    for (int i = 0; i < count; i++) {
      series += vb_signal_rows(&t[r], sc, i);
      ck_assert_int_gt(vb_signal_group(&t[r], sc, i, group, sizeof group), 0);
    }
    const double *d0 = vb_signal_data(s.run, &t[r], 0);
    switch (t[r].object) {
    case VB_SIGNAL_SCENE:
      ck_assert_int_eq(count, 1);
      ck_assert_ptr_eq(d0, vb_run_energy(s.run, r)); /* vb_energy order */
      vb_signal_group(&t[r], sc, 0, group, sizeof group);
      ck_assert_str_eq(group, "energy");
      break;
    case VB_SIGNAL_POINT:
      /* ball, plate.hit, plate.pickup, floor */
      ck_assert_int_eq(count, 4);
      vb_signal_group(&t[r], sc, 2, group, sizeof group);
      ck_assert_str_eq(group, "bodies/plate/pickup");
      vb_signal_group(&t[r], sc, 3, group, sizeof group);
      ck_assert_str_eq(group, "bodies/floor");
      ck_assert_ptr_eq(vb_signal_data(s.run, &t[r], 2),
                       strcmp(t[r].name, "u") == 0 ? vb_run_point_u(s.run, 1, 1)
                                                   : vb_run_point_v(s.run, 1, 1));
      ck_assert_ptr_eq(vb_signal_data(s.run, &t[r], 3),
                       strcmp(t[r].name, "u") == 0 ? vb_run_body_u(s.run, 2)
                                                   : vb_run_body_v(s.run, 2));
      break;
    case VB_SIGNAL_MODES:
      ck_assert_int_eq(count, 2);
      ck_assert_int_eq(vb_signal_rows(&t[r], sc, 1), 3);
      ck_assert_ptr_eq(vb_signal_data(s.run, &t[r], 1), vb_run_modes_q(s.run, 1));
      vb_signal_group(&t[r], sc, 1, group, sizeof group);
      ck_assert_str_eq(group, "bodies/plate/modes");
      break;
    case VB_SIGNAL_CONTACT: {
      ck_assert_int_eq(count, 2);
      const vb_contact_result *res = vb_run_contact(s.run, 1);
      const double *want = strcmp(t[r].name, "compression") == 0 ? res->compression
                           : strcmp(t[r].name, "rate") == 0    ? res->rate
                           : strcmp(t[r].name, "force") == 0   ? res->force
                                                               : NULL;
      if (t[r].derive) /* a derived signal: its own series (test_contact_potential) */
        ck_assert_ptr_nonnull(vb_signal_data(s.run, &t[r], 1));
      else
        ck_assert_ptr_eq(vb_signal_data(s.run, &t[r], 1), want);
      vb_signal_group(&t[r], sc, 1, group, sizeof group);
      ck_assert_str_eq(group, "contacts/rest");
      break;
    }
    }
  }
  /* the size the scene announces (for memory checks) is the table's */
  ck_assert_double_eq(series * (double)samples * sizeof(double), vb_scene_record_bytes(sc));
  tu_free(&s);
}
END_TEST


/* The row of the table for `object` named `name`. */
static const vb_signal *
row_named(vb_signal_object object, const char *name)
{
  int n;
  const vb_signal *t = vb_signal_table(&n);
  for (int r = 0; r < n; r++)
    if (t[r].object == object && strcmp(t[r].name, name) == 0)
      return &t[r];
  ck_abort_msg("no signal %s", name);
  return NULL;
}

/* contacts/C/potential is the law's potential of the recorded compression
 * at every sample: k/(alpha+1) x^(alpha+1) in contact for the
 * Hunt-Crossley strike (0 out of it), k x^2 / 2 for the spring, J. */
START_TEST(test_contact_potential)
{
  tu_sim s = tu_run_text(scene_text);
  ck_assert_int_eq(s.rc, VB_OK);
  const vb_signal *pot = row_named(VB_SIGNAL_CONTACT, "potential");
  ck_assert_str_eq(pot->units, "J");
  long n = vb_run_samples(s.run), engaged = 0;
  for (int c = 0; c < 2; c++) {
    const vb_law *law = &s.scene->contacts[c].law;
    const double *x = vb_run_contact(s.run, c)->compression, *v = vb_signal_data(s.run, pot, c);
    ck_assert_ptr_nonnull(v);
    for (long k = 0; k < n; k++) {
      double want = c == 0 ? (x[k] > 0.0 ? 1.0e8 / 2.5 * pow(x[k], 2.5) : 0.0)
                           : 0.5 * 1.0e5 * x[k] * x[k];
      ck_assert(v[k] == vb_law_potential(law, x[k]));
      ck_assert_msg(fabs(v[k] - want) <= 1e-14 * want, "contact %d sample %ld: %.17g, want %.17g",
                    c, k, v[k], want);
      engaged += v[k] > 0.0;
    }
  }
  ck_assert_int_gt(engaged, n / 2);
  tu_free(&s);
}
END_TEST

/* A free mass on a two-point contact: the contact's potential is the whole
 * of the discrete potential energy, sample by sample, and holds the energy
 * kinetic energy gives up. */
START_TEST(test_contact_potential_is_the_energy)
{
  static const char text[] =
    "scene = { name = \"pot\"; fs = 44100.0; duration = 0.002; gravity = 0.0; };\n"
    "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; v0 = 1.3; },\n"
    "  { name = \"wall\"; type = \"wall\"; } );\n"
    "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"power\";\n"
    "    k = 2.385e9; alpha = 1.5; scheme = \"two-point\"; } );\n"
    "record = { signals = [\"contacts/*/potential\", \"energy/*\"]; };\n";
  tu_sim s = tu_run_text(text);
  ck_assert_int_eq(s.rc, VB_OK);
  const double *v = vb_signal_data(s.run, row_named(VB_SIGNAL_CONTACT, "potential"), 0);
  const double *pot = vb_run_energy(s.run, VB_ENERGY_POTENTIAL);
  const double *kin = vb_run_energy(s.run, VB_ENERGY_KINETIC);
  double most = 0.0, e0 = 0.5 * 0.0137 * 1.3 * 1.3;
  for (long k = 0; k < vb_run_samples(s.run); k++) {
    ck_assert_msg(v[k] == pot[k], "sample %ld: %.17g, energy/potential %.17g", k, v[k], pot[k]);
    ck_assert(fabs(kin[k] + v[k] - e0) <= 1e-9 * e0);
    most = fmax(most, v[k]);
  }
  ck_assert(most > 0.5 * e0);
  tu_free(&s);
}
END_TEST

/* The scene text with `record` replaced. */
static char *
with_record(const char *record)
{
  char *t = strdup(scene_text);
  ck_assert(t != NULL);
  tu_replace(&t, "record = { every = 1; modes = true; signals = [\"*\"]; };\n", record);
  return t;
}

/* Whether two runs of the same scene found the same impacts, bit for bit. */
static void
same_events(const vb_run *a, const vb_run *b)
{
  const vb_scene *sc = vb_run_scene(a);
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *ra = vb_run_contact(a, c), *rb = vb_run_contact(b, c);
    ck_assert_int_eq(ra->nevents, rb->nevents);
    ck_assert(VB_MEMEQ(ra->events, rb->events, (size_t)ra->nevents * sizeof(vb_event)));
    ck_assert_int_eq(ra->newton_failures, rb->newton_failures);
    ck_assert_int_eq(ra->fallbacks, rb->fallbacks);
    ck_assert_int_eq(ra->iterations, rb->iterations);
  }
}

/* The figures the study table takes from the signals, kept whether or not
 * they are recorded: b's are a's, and a's (all recorded) are its series'. */
static void
same_figures(const vb_run *all, const vb_run *b)
{
  long n = vb_run_samples(all);
  ck_assert_int_eq(n, vb_run_samples(b));
  for (int w = 0; w < VB_ENERGY_COUNT; w++) {
    ck_assert(vb_run_final_energy(all, w) == vb_run_energy(all, w)[n - 1]);
    ck_assert(memcmp(&(double){ vb_run_final_energy(all, w) },
                     &(double){ vb_run_final_energy(b, w) }, sizeof(double)) == 0);
  }
  ck_assert(vb_run_balance_error(all) == vb_run_balance_error(b));
  for (int c = 0; c < vb_run_scene(all)->ncontacts; c++) {
    const vb_contact_result *ra = vb_run_contact(all, c), *rb = vb_run_contact(b, c);
    double x = -INFINITY;
    for (long k = 0; k < n; k++)
      x = ra->compression[k] > x ? ra->compression[k] : x;
    ck_assert(ra->max_compression == x);
    ck_assert(rb->max_compression == x);
  }
}

/* Run the scene with record.signals = globs (and record.modes) into *some,
 * and the full recording into *all, and check every signal: recorded
 * exactly when a glob matches, with the full recording's values, and the
 * events and the table's figures unchanged.  Returns the series recorded. */
static double
check_selection(const char *const *globs, int nglobs, tu_sim *all, tu_sim *some)
{
  char record[512] = "record = { modes = true; signals = [", path[256];
  for (int g = 0; g < nglobs; g++)
    snprintf(record + strlen(record), sizeof record - strlen(record), "%s\"%s\"",
             g ? ", " : "", globs[g]);
  strcat(record, "]; };\n");
  char *text = with_record(record);
  *all = tu_run_text(scene_text);
  *some = tu_run_text(text);
  free(text);
  ck_assert_int_eq(all->rc, VB_OK);
  ck_assert_int_eq(some->rc, VB_OK);
  int n;
  double series = 0.0;
  const vb_signal *t = vb_signal_table(&n);
  long samples = vb_run_samples(some->run);
  for (int r = 0; r < n; r++)
    for (int i = 0, count = vb_signal_count(&t[r], some->scene); i < count; i++) {
      int want = 0;
      if (!vb_signal_applies(&t[r], some->scene, i)) { /* issue 30: tangential rows */
        ck_assert(!vb_signal_recorded(&t[r], some->scene, i));
        ck_assert(!vb_signal_recorded(&t[r], all->scene, i));
        continue;
      }
      vb_signal_path(&t[r], some->scene, i, path, sizeof path);
      for (int g = 0; g < nglobs; g++)
        want |= fnmatch(globs[g], path, 0) == 0;
      ck_assert_int_eq(vb_signal_recorded(&t[r], some->scene, i), want);
      ck_assert_int_eq(vb_scene_records(some->scene, path), want);
      ck_assert(vb_signal_recorded(&t[r], all->scene, i));
      const double *d = vb_signal_data(some->run, &t[r], i);
      if (!want) {
        ck_assert_msg(d == NULL, "%s is not selected but recorded", path);
        continue;
      }
      /* the selected signals hold what the full recording holds */
      int rows = vb_signal_rows(&t[r], some->scene, i);
      ck_assert_msg(d != NULL, "%s is selected but not recorded", path);
      ck_assert(memcmp(d, vb_signal_data(all->run, &t[r], i),
                       (size_t)rows * (size_t)samples * sizeof(double)) == 0);
      series += rows;
    }
  ck_assert_double_eq(vb_scene_record_bytes(some->scene),
                      series * (double)samples * sizeof(double));
  same_events(all->run, some->run);
  same_figures(all->run, some->run);
  return series;
}

START_TEST(test_signals_select)
{
  static const char *const globs[] = { "contacts/*/force", "bodies/ball/*", "energy/total" };
  tu_sim all, some;
  /* energy/total, ball u, v and modes/q, force of both contacts */
  ck_assert_double_eq(check_selection(globs, 3, &all, &some), 6.0);
  ck_assert_ptr_null(vb_run_energy(some.run, VB_ENERGY_KINETIC));
  ck_assert_ptr_nonnull(vb_run_energy(some.run, VB_ENERGY_TOTAL));
  ck_assert_ptr_null(vb_run_point_u(some.run, 1, 1));
  ck_assert_ptr_null(vb_run_modes_q(some.run, 1));
  ck_assert_ptr_null(vb_run_contact(some.run, 0)->compression);
  ck_assert_ptr_nonnull(vb_run_contact(some.run, 0)->force);
  tu_free(&some);
  tu_free(&all);
}
END_TEST

/* record.signals selects the contacts' potentials like any signal: the
 * glob records them alone, with the values of the full recording. */
START_TEST(test_potential_selected)
{
  static const char *const globs[] = { "contacts/*/potential" };
  tu_sim all, some;
  ck_assert_double_eq(check_selection(globs, 1, &all, &some), 2.0);
  const vb_signal *pot = row_named(VB_SIGNAL_CONTACT, "potential");
  for (int c = 0; c < 2; c++) {
    ck_assert_ptr_nonnull(vb_signal_data(some.run, pot, c));
    ck_assert_ptr_null(vb_run_contact(some.run, c)->compression);
    ck_assert_ptr_null(vb_run_contact(some.run, c)->force);
  }
  ck_assert_ptr_null(vb_run_energy(some.run, VB_ENERGY_POTENTIAL));
  tu_free(&some);
  tu_free(&all);
}
END_TEST

START_TEST(test_events_only)
{
  char *text = with_record("record = { signals = []; };\n");
  tu_sim all = tu_run_text(scene_text), none = tu_run_text(text);
  ck_assert_int_eq(none.rc, VB_OK);
  ck_assert_int_ge(vb_run_contact(all.run, 0)->nevents, 1);
  ck_assert_double_eq(vb_scene_record_bytes(none.scene), 0.0);
  int n;
  const vb_signal *t = vb_signal_table(&n);
  for (int r = 0; r < n; r++)
    for (int i = 0, count = vb_signal_count(&t[r], none.scene); i < count; i++)
      ck_assert_ptr_null(vb_signal_data(none.run, &t[r], i));
  same_events(all.run, none.run);
  same_figures(all.run, none.run);
  tu_free(&none);
  tu_free(&all);
  /* the ball moving away: the strike's compression stays negative */
  char *away = strdup(scene_text);
  tu_replace(&away, "v0 = -0.3;", "v0 = 0.3;");
  tu_replace(&text, "v0 = -0.3;", "v0 = 0.3;");
  all = tu_run_text(away);
  none = tu_run_text(text);
  ck_assert_int_eq(vb_run_contact(all.run, 0)->nevents, 0);
  ck_assert(vb_run_contact(all.run, 0)->max_compression < 0.0);
  same_events(all.run, none.run);
  same_figures(all.run, none.run);
  tu_free(&none);
  tu_free(&all);
  free(away);
  free(text);
}
END_TEST

/* The memory check sizes what is selected: a recording far beyond any
 * memory is refused, the same scene recording events only is not. */
START_TEST(test_memory_follows_selection)
{
  char *full = with_record("record = { every = 1; };\n");
  char *none = with_record("record = { signals = []; };\n");
  tu_replace(&full, "duration = 0.003;", "duration = 1.0e9;");
  tu_replace(&none, "duration = 0.003;", "duration = 1.0e9;");
  vb_scene *a, *b;
  vb_run *run = NULL;
  char err[1024];
  ck_assert_int_eq(vb_scene_load_string(full, "big.cfg", &a, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_scene_load_string(none, "big.cfg", &b, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_alloc(a, &run, err, sizeof err), VB_ENOMEM);
  ck_assert_ptr_null(run);
  ck_assert_msg(strstr(err, "the recording needs") != NULL, "%s", err);
  ck_assert_int_eq(vb_run_alloc(b, &run, err, sizeof err), VB_OK);
  vb_run_free(run);
  vb_scene_free(a);
  vb_scene_free(b);
  free(full);
  free(none);
}
END_TEST

/* A glob that matches nothing, or a signals that is not a list of strings,
 * is refused at its line with the valid paths. */
START_TEST(test_signals_errors)
{
  static const struct {
    const char *record, *expect;
  } cases[] = {
    { "record = { signals = [\"energy/total\",\n  \"contacts/*/forse\"]; };\n",
      "bad.cfg:13: record: 'signals' glob \"contacts/*/forse\" matches no signal of the "
      "scene (valid: energy/total, energy/kinetic, energy/potential, energy/dissipated, "
      "energy/external, energy/correction, bodies/ball/u, bodies/plate/hit/u, "
      "bodies/plate/pickup/u, bodies/floor/u, bodies/ball/v, bodies/plate/hit/v, "
      "bodies/plate/pickup/v, bodies/floor/v, contacts/strike/compression, "
      "contacts/rest/compression, contacts/strike/rate, contacts/rest/rate, "
      "contacts/strike/force, contacts/rest/force, contacts/strike/potential, "
      "contacts/rest/potential, contacts/strike/aux, contacts/rest/aux)" },
    { "record = { signals = \"energy/total\"; };\n",
      "bad.cfg:12: record: 'signals' must be a list of glob strings, such as "
      "[\"contacts/*/force\", \"energy/total\"] ([] for events only)" },
    { "record = { signals = [\"\"]; };\n",
      "bad.cfg:12: record: 'signals' element 1 must be a non-empty string (valid: a glob "
      "such as \"contacts/*/force\")" },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *text = with_record(cases[k].record), err[2048] = "";
    vb_scene *sc = (vb_scene *)1;
    int rc = vb_scene_load_string(text, "bad.cfg", &sc, err, sizeof err);
    ck_assert_int_eq(rc, VB_EINVAL);
    ck_assert_ptr_null(sc);
    ck_assert_str_eq(err, cases[k].expect);
    free(text);
  }
  /* many signals: the list of valid paths is cut short */
  char *text = with_record("record = { modes = true; signals = [\"x\"]; };\n"), err[4096];
  vb_scene *sc;
  for (int i = 0; i < 40; i++) {
    char point[128];
    snprintf(point, sizeof point, "points = ( { name = \"p%d\"; shape = [1.0, 0.1, 0.1]; }, ", i);
    tu_replace(&text, "points = ( ", point);
  }
  ck_assert_int_eq(vb_scene_load_string(text, "bad.cfg", &sc, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strlen(err) < 700 && strstr(err, ", ...)") != NULL, "%s", err);
  free(text);
}
END_TEST

/* Without record.signals every signal is recorded but those on request
 * (the contact's potential), so files without a record block keep their
 * layout; "*" takes them too. */
START_TEST(test_on_request_by_default)
{
  char *text = strdup(scene_text);
  ck_assert(text != NULL);
  tu_replace(&text, "signals = [\"*\"]; ", "");
  tu_sim s = tu_run_text(text), all = tu_run_text(scene_text);
  free(text);
  ck_assert_int_eq(s.rc, VB_OK);
  ck_assert_int_eq(all.rc, VB_OK);
  ck_assert(row_named(VB_SIGNAL_CONTACT, "potential")->on_request);
  int n, asked = 0;
  const vb_signal *t = vb_signal_table(&n);
  double series = 0.0;
  for (int r = 0; r < n; r++)
    for (int i = 0, count = vb_signal_count(&t[r], s.scene); i < count; i++) {
      if (t[r].tangential) { /* issue 30: nothing of a 1-D scene */
        ck_assert(!vb_signal_recorded(&t[r], s.scene, i));
        continue;
      }
      ck_assert_int_eq(vb_signal_recorded(&t[r], s.scene, i), !t[r].on_request);
      ck_assert(vb_signal_recorded(&t[r], all.scene, i));
      ck_assert_int_eq(vb_signal_data(s.run, &t[r], i) != NULL, !t[r].on_request);
      series += t[r].on_request ? 0 : vb_signal_rows(&t[r], s.scene, i);
      asked += t[r].on_request;
    }
  ck_assert_int_eq(asked, 4); /* the two contacts' potentials and auxiliary variables */
  ck_assert_double_eq(vb_scene_record_bytes(s.scene),
                      series * (double)vb_run_samples(s.run) * sizeof(double));
  same_events(all.run, s.run);
  tu_free(&s);
  tu_free(&all);
}
END_TEST

/* The instances' index (vb_record_index, made at load) gives every point
 * and modes instance the body and point the count from the first body
 * gives, on a scene of masses, walls and modal bodies of 1 to 4 points in
 * a random order, with and without record.modes. */
START_TEST(test_index_is_the_count)
{
  char *text = malloc(1 << 16), err[512];
  unsigned seed = 2385u;
  for (int modes = 0; modes < 2; modes++) {
    int len = snprintf(text, 1 << 16,
                       "scene = { name = \"idx\"; fs = 44100.0; duration = 0.001; };\n"
                       "bodies = (\n");
    for (int b = 0; b < 40; b++) {
      seed = seed * 1103515245u + 12345u;
      int kind = (int)(seed >> 16) % 3, np = 1 + (int)(seed >> 20) % 4;
      if (kind == 0)
        len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
                        "  { name = \"b%d\"; type = \"mass\"; mass = 0.01; },\n", b);
      else if (kind == 1)
        len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
                        "  { name = \"b%d\"; type = \"wall\"; },\n", b);
      else {
        len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
                        "  { name = \"b%d\"; type = \"modal\"; freq = [100.0, 250.0]; "
                        "mass = [0.1, 0.2]; points = (",
                        b);
        for (int p = 0; p < np; p++)
          len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
                          "%s{ name = \"p%d\"; shape = [1.0, 0.5]; }", p ? ", " : "", p);
        len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "); },\n");
      }
    }
    snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
             "  { name = \"last\"; type = \"mass\"; mass = 0.01; } );\n"
             "record = { modes = %s; };\n",
             modes ? "true" : "false");
    vb_scene *sc;
    ck_assert_msg(vb_scene_load_string(text, "idx.cfg", &sc, err, sizeof err) == VB_OK, "%s", err);
    ck_assert_ptr_nonnull(sc->point_first);
    int n;
    const vb_signal *t = vb_signal_table(&n);
    for (int r = 0; r < n; r++) {
      int count = vb_signal_count(&t[r], sc);
      for (int i = 0; i <= count; i++) { /* count: past the last, -1 */
        int p1, p2, b1 = vb_signal_body(&t[r], sc, i, &p1);
        int *pf = sc->point_first, *mf = sc->modes_first;
        sc->point_first = sc->modes_first = NULL; /* counted from the first body */
        int b2 = vb_signal_body(&t[r], sc, i, &p2);
        sc->point_first = pf;
        sc->modes_first = mf;
        ck_assert_int_eq(b1, b2);
        ck_assert_int_eq(p1, p2);
      }
    }
    vb_scene_free(sc);
  }
  free(text);
}
END_TEST

/* ------------------------------------------- recording into a file */

/* The text of scene_text for nrec samples at record.every = every, with
 * contact 'rest' stepped by `scheme` at stiffness k (a large k with the
 * explicit Verlet diverges: the samples not reached are NaN). */
static char *
file_scene(long nrec, int every, const char *scheme, double k)
{
  char *t = strdup(scene_text), dur[64], rec[96], rest[128];
  /* (nrec - 1) * every + every - 1 steps: nrec samples */
  snprintf(dur, sizeof dur, "duration = %.17g;", ((double)nrec * every - 0.75) / 44100.0);
  snprintf(rec, sizeof rec, "record = { every = %d; modes = true; signals = [\"*\"]; };", every);
  snprintf(rest, sizeof rest, "law = \"spring\"; k = %.6e;\n    c = 2.0; scheme = \"%s\";", k,
           scheme);
  tu_replace(&t, "duration = 0.003;", dur);
  tu_replace(&t, "record = { every = 1; modes = true; signals = [\"*\"]; };", rec);
  tu_replace(&t, "law = \"spring\"; k = 1.0e5;\n    c = 2.0; scheme = \"two-point\";", rest);
  if (strcmp(scheme, "verlet") == 0) /* one explicit scheme for the island */
    tu_replace(&t, "scheme = \"am1\";", "scheme = \"verlet\";");
  return t;
}

/* Run sc recording into the file fd, at offsets laid out one instance
 * after another from byte 4096 (every skip-th recorded instance left out:
 * offset -1), its windows written by a thread of the run's own when async
 * (record_file.c); the run (freed by the caller) in *out, its offsets in
 * off. */
static int
run_into(const vb_scene *sc, int fd, int skip, int async, int64_t *off, vb_run **out,
         const volatile int *stop)
{
  int n, ninst = vb_signal_instances(sc), j = 0, rec = 0;
  const vb_signal *t = vb_signal_table(&n);
  int64_t at = 4096;
  char err[512];
  for (int r = 0; r < n; r++)
    for (int i = 0; i < vb_signal_count(&t[r], sc); i++, j++) {
      off[j] = -1;
      if (!vb_signal_recorded(&t[r], sc, i) || (skip && ++rec % skip == 0))
        continue;
      off[j] = at;
      at += (int64_t)vb_signal_rows(&t[r], sc, i) * vb_scene_samples(sc) * 8;
    }
  ck_assert_int_eq(j, ninst);
  vb_record_file to = {.fd = fd, .offset = off, .async = async};
  int rc = vb_run_alloc_into(sc, &to, out, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  return vb_run_exec_stop(*out, stop);
}

/* Whether b kept a's figures (energies at the end, largest compressions),
 * bit for bit (NaN where a run failed). */
static void
same_kept(const vb_run *a, const vb_run *b)
{
  for (int w = 0; w < VB_ENERGY_COUNT; w++)
    ck_assert(memcmp(&(double){vb_run_final_energy(a, w)}, &(double){vb_run_final_energy(b, w)},
                     sizeof(double)) == 0);
  for (int c = 0; c < vb_run_scene(a)->ncontacts; c++)
    ck_assert(memcmp(&vb_run_contact(a, c)->max_compression, &vb_run_contact(b, c)->max_compression,
                     sizeof(double)) == 0);
}

/* Whether the file's bytes at instance j's offset are the series of the
 * run in memory (bit for bit, NaN included). */
static void
same_in_file(int fd, const vb_run *mem, const vb_scene *sc, const int64_t *off)
{
  int n, j = 0;
  const vb_signal *t = vb_signal_table(&n);
  long nrec = vb_scene_samples(sc);
  for (int r = 0; r < n; r++)
    for (int i = 0; i < vb_signal_count(&t[r], sc); i++, j++) {
      if (off[j] < 0)
        continue;
      size_t len = (size_t)vb_signal_rows(&t[r], sc, i) * (size_t)nrec * sizeof(double);
      double *got = malloc(len);
      const double *want = vb_signal_data(mem, &t[r], i);
      ck_assert(got && want);
      ck_assert_int_eq(pread(fd, got, len, (off_t)off[j]), (ssize_t)len);
      ck_assert_msg(memcmp(got, want, len) == 0, "%s of instance %d: %ld samples differ",
                    t[r].name, i, nrec);
      free(got);
    }
}

/* A run recording into a file through its window writes there, bit for
 * bit, what a run holding the whole recording holds, and keeps the same
 * figures: random lengths about the window's and far past it, random
 * intervals, runs that diverge or are stopped (NaN from there on), series
 * the file does not hold (not written); written by the run (even _i) or
 * by its writer thread through the ring of windows (odd _i: lengths about
 * the ring's, which the run goes round several times). */
START_TEST(test_record_into_file)
{
  unsigned seed = 1234567u + (unsigned)_i / 2;
  int async = _i % 2;
  char path[] = "/tmp/check_record_XXXXXX";
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  unlink(path);
  /* the window of this scene's recording (a long one: not all of it) */
  char *probe = file_scene(1000000, 1, "two-point", 1.0e5);
  vb_scene *psc;
  vb_run *prun;
  char perr[256];
  ck_assert(vb_scene_load_string(probe, "t.cfg", &psc, perr, sizeof perr) == VB_OK);
  vb_record_file pto = {.fd = fd, .offset = NULL};
  int64_t *poff = calloc((size_t)vb_signal_instances(psc) + 1, sizeof *poff);
  pto.offset = poff;
  ck_assert(vb_run_alloc_into(psc, &pto, &prun, perr, sizeof perr) == VB_OK);
  long W = vb_run_record_window(prun);
  ck_assert(W > 1 && W < 1000000);
  vb_run_free(prun);
  vb_scene_free(psc);
  free(poff);
  free(probe);
  const long edges[] = {1, 2, W - 1, W, W + 1, 2 * W, 2 * W + 1, 3 * W, 3 * W + 1, 7 * W + 5};
  for (int c = 0; c < 17; c++) {
    seed = seed * 1103515245u + 12345u;
    int every = 1 + (int)(seed >> 16) % 3, skip = (int)(seed >> 20) % 4;
    long nrec = c < 10 ? edges[c] : 1 + (long)(seed >> 8) % (8 * W);
    every = nrec == 1 && every == 1 ? 2 : every; /* at least one step */
    int diverge = c % 5 == 4, stopped = c % 7 == 6;
    char *text = file_scene(nrec, every, diverge ? "verlet" : "two-point", diverge ? 1.0e13 : 1.0e5);
    tu_sim mem = tu_run_text(text);
    ck_assert_int_eq(vb_run_samples(mem.run), nrec);
    volatile int stop = 1;
    if (stopped) { /* stopped before its first step: only sample 0 */
      vb_run_free(mem.run);
      char err[256];
      ck_assert(vb_run_alloc(mem.scene, &mem.run, err, sizeof err) == VB_OK);
      mem.rc = vb_run_exec_stop(mem.run, &stop);
    }
    ck_assert_int_eq(mem.rc, diverge ? VB_EDIVERGED : stopped ? VB_EINTR : VB_OK);
    int64_t *off = malloc(((size_t)vb_signal_instances(mem.scene) + 1) * sizeof *off);
    vb_run *run;
    ck_assert(ftruncate(fd, 0) == 0);
    int rc = run_into(mem.scene, fd, skip, async, off, &run, stopped ? &stop : NULL);
    ck_assert_int_eq(rc, mem.rc);
    ck_assert_str_eq(vb_run_status(run), vb_run_status(mem.run));
    ck_assert_int_eq(vb_run_record_errno(run), 0);
    same_in_file(fd, mem.run, mem.scene, off);
    same_events(mem.run, run);
    same_kept(mem.run, run);
    vb_run_free(run);
    free(off);
    tu_free(&mem);
    free(text);
  }
  close(fd);
}
END_TEST

/* A write that fails is kept (its errno), not lost, whether the run or
 * its writer thread wrote it (_i odd): a descriptor open for reading only
 * (EBADF), and /dev/full, a disk that is full (ENOSPC); a run of 80,000
 * samples goes round the ring (windows of 18,432 samples here) and writes
 * the rest at its end. */
START_TEST(test_record_into_file_fails)
{
  char *text = file_scene(80000, 1, "two-point", 1.0e5), path[] = "/tmp/check_record_XXXXXX";
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  int ro = open(path, O_RDONLY), full = open("/dev/full", O_WRONLY);
  unlink(path);
  close(fd);
  vb_scene *sc;
  char err[256];
  ck_assert(vb_scene_load_string(text, "t.cfg", &sc, err, sizeof err) == VB_OK);
  int64_t *off = malloc(((size_t)vb_signal_instances(sc) + 1) * sizeof *off);
  vb_run *run;
  ck_assert_int_eq(run_into(sc, ro, 0, _i % 2, off, &run, NULL), VB_OK);
  ck_assert_int_lt(vb_run_record_window(run), 80000 / 4);
  ck_assert_int_eq(vb_run_record_errno(run), EBADF);
  vb_run_free(run);
  if (full >= 0) {
    ck_assert_int_eq(run_into(sc, full, 0, _i % 2, off, &run, NULL), VB_OK);
    ck_assert_int_eq(vb_run_record_errno(run), ENOSPC);
    vb_run_free(run);
    close(full);
  }
  vb_scene_free(sc);
  close(ro);
  free(off);
  free(text);
}
END_TEST

static Suite *
record_suite(void)
{
  Suite *s = suite_create("record");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_table_is_the_recording);
  tcase_add_test(core, test_signals_select);
  tcase_add_test(core, test_contact_potential);
  tcase_add_test(core, test_contact_potential_is_the_energy);
  tcase_add_test(core, test_potential_selected);
  tcase_add_test(core, test_on_request_by_default);
  tcase_add_test(core, test_events_only);
  tcase_add_test(core, test_memory_follows_selection);
  tcase_add_test(core, test_signals_errors);
  tcase_add_test(core, test_index_is_the_count);
  tcase_add_loop_test(core, test_record_into_file, 0, 6);
  tcase_add_loop_test(core, test_record_into_file_fails, 0, 2);
  tcase_set_timeout(core, 120);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(record_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
