/* check_reference.c - results stay bitwise identical across restructures.
 *
 * Runs every scene of every study in scenes/ (the first three and the last
 * scene of a sweep) through the public API and hashes each recorded
 * signal and each event field (FNV-1a 64 over the IEEE bytes).  The hashes
 * are compared with tests/data/reference.txt, one line per signal:
 *   <file>#<scene> <signal> <hash>
 * A deliberate change of results regenerates the file with
 *   VIBRO_REFERENCE_WRITE=1 tests/check_reference
 * and says in the commit which lines moved and why. */
#include <stddef.h>
#include <stdint.h>
#include "testutil.h"

static const char *const files[] = {
  "scenes/avanzini-hammer-bar.cfg", "scenes/bouncing-ball.cfg",
  "scenes/bouncing-on-plate.cfg",   "scenes/chatziioannou-hard.cfg",
  "scenes/ducceschi-fig4.cfg",      "scenes/impact-oscillator.cfg",
  "scenes/papetti-case-a.cfg",      "scenes/papetti-case-b.cfg",
  "scenes/papetti-sweep.cfg",       "scenes/rattle-box.cfg",
  "scenes/rattle-settle.cfg",       "scenes/rolling-ball.cfg",
  "scenes/snare-membrane.cfg",
};

static uint64_t
fnv(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 1099511628211ULL;
  }
  return h;
}

/* Event fields by name, so a field added later does not move the others. */
static const struct { const char *name; size_t offset, size; } fields[] = {
#define D(f) { #f, offsetof(vb_event, f), sizeof(double) }
#define I(f) { #f, offsetof(vb_event, f), sizeof(int) }
  D(t_on), D(t_off), D(duration), D(v_in), D(v_out), D(x_max), D(peak_force),
  D(x_max_pred), D(v_out_pred), D(v_out_exact), D(duration_pred), D(energy_before),
  D(energy_after), D(energy_correction), I(newton_iterations_max), I(fallbacks),
  I(samples), I(corrections),
#undef D
#undef I
};

static void
line(FILE *out, const char *where, const char *what, uint64_t h)
{
  fprintf(out, "%s %s %016llx\n", where, what, (unsigned long long)h);
}

static void
hash_run(FILE *out, const char *where, const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  long n = vb_run_samples(run);
  size_t bytes = (size_t)n * sizeof(double);
  char what[256];
  line(out, where, "status", fnv(vb_run_status(run), strlen(vb_run_status(run))));
  for (int b = 0; b < sc->nbodies; b++) {
    const vb_body *body = &sc->bodies[b];
    int np = body->kind == VB_BODY_MODAL ? body->npoints : 1;
    for (int p = 0; p < np; p++) {
      /* a wall has no points: its lines have always read "(null)" (glibc's
       * text for a NULL %s, which UBSan rightly refused to compute) */
      const char *pname = body->points ? body->points[p].name : "(null)";
      snprintf(what, sizeof what, "bodies/%s/%s/u", body->name, pname);
      line(out, where, what, fnv(vb_run_point_u(run, b, p), bytes));
      snprintf(what, sizeof what, "bodies/%s/%s/v", body->name, pname);
      line(out, where, what, fnv(vb_run_point_v(run, b, p), bytes));
    }
    const double *q = vb_run_modes_q(run, b);
    if (q) {
      snprintf(what, sizeof what, "bodies/%s/modes/q", body->name);
      line(out, where, what, fnv(q, bytes * (size_t)body->nmodes));
    }
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(run, c);
    const char *name = sc->contacts[c].name;
    snprintf(what, sizeof what, "contacts/%s/compression", name);
    line(out, where, what, fnv(r->compression, bytes));
    snprintf(what, sizeof what, "contacts/%s/rate", name);
    line(out, where, what, fnv(r->rate, bytes));
    snprintf(what, sizeof what, "contacts/%s/force", name);
    line(out, where, what, fnv(r->force, bytes));
    snprintf(what, sizeof what, "contacts/%s/counts", name);
    long counts[4] = { r->nevents, r->newton_failures, r->fallbacks, r->iterations };
    line(out, where, what, fnv(counts, sizeof counts));
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
      uint64_t h = 1469598103934665603ULL;
      for (long e = 0; e < r->nevents; e++)
        h ^= fnv((const char *)&r->events[e] + fields[f].offset, fields[f].size) + (uint64_t)e;
      snprintf(what, sizeof what, "contacts/%s/events.%s", name, fields[f].name);
      line(out, where, what, h);
    }
  }
  for (int e = 0; e < 6; e++) {
    snprintf(what, sizeof what, "energy/%d", e);
    line(out, where, what, fnv(vb_run_energy(run, e), bytes));
  }
}

/* The hash lines of every reference scene, in a memory stream. */
static char *
compute(void)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  ck_assert(out != NULL);
  char err[2048], path[4096], where[512];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", TEST_SRCDIR, files[i]);
    vb_study *st = NULL;
    ck_assert_msg(vb_study_load(path, &st, err, sizeof err) == VB_OK, "%s", err);
    long n = vb_study_scenes(st);
    for (long k = 0; k < n; k++) {
      if (k >= 3 && k != n - 1)
        continue;
      vb_scene *sc = NULL;
      vb_run *run = NULL;
      ck_assert_msg(vb_study_scene(st, k, &sc, err, sizeof err) == VB_OK, "%s", err);
      ck_assert_msg(vb_run_alloc(sc, &run, err, sizeof err) == VB_OK, "%s", err);
      vb_run_exec(run);
      snprintf(where, sizeof where, "%s#%ld", files[i], k);
      hash_run(out, where, run);
      vb_run_free(run);
      vb_scene_free(sc);
    }
    vb_study_free(st);
  }
  fclose(out);
  return text;
}

START_TEST(test_reference)
{
  char *now = compute();
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/data/reference.txt", TEST_SRCDIR);
  if (getenv("VIBRO_REFERENCE_WRITE")) {
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(now, f);
    fclose(f);
    printf("wrote %s\n", path);
  }
  char *ref = tu_read("tests/data/reference.txt");
  /* Compare line by line and name every line that moved. */
  int moved = 0, lines = 0;
  char *sa = NULL, *sb = NULL;
  char *a = strtok_r(now, "\n", &sa), *b = strtok_r(ref, "\n", &sb);
  while (a || b) {
    lines++;
    if (!a || !b || strcmp(a, b) != 0) {
      if (moved++ < 20)
        fprintf(stderr, "reference: now '%s', recorded '%s'\n", a ? a : "(none)",
                b ? b : "(none)");
    }
    a = a ? strtok_r(NULL, "\n", &sa) : NULL;
    b = b ? strtok_r(NULL, "\n", &sb) : NULL;
  }
  ck_assert_msg(lines > 500, "only %d reference lines", lines);
  ck_assert_msg(moved == 0, "%d of %d reference lines moved (see stderr)", moved, lines);
  free(now);
  free(ref);
}
END_TEST

int
main(void)
{
  Suite *s = suite_create("reference");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_reference);
  suite_add_tcase(s, tc);
  return tu_main(s);
}
