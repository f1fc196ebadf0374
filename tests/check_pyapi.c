/* check_pyapi.c - the flat interface of foreign callers (lib/pyapi.c) and
 * vb_run_exec_stop (lib/run/run.c), each against what the structs of vibro.h
 * hold.  python/tests/test_inprocess.py compares the same calls with the
 * program's output files. */
#include <math.h>
#include <stdint.h>
#include <unistd.h>
#include "testutil.h"

/* A modal bar struck by a hammer with Papetti's corrections, a driven
 * wall under a bead, a fixed wall, gravity and record.modes: every kind of
 * signal (points, modes, modal properties, contacts, every energy). */
static const char scene_text[] =
    "scene = { name = \"mix\"; fs = 48000.0; duration = 0.0213; gravity = 9.81; };\n"
    "bodies = (\n"
    "  { name = \"hammer\"; type = \"mass\"; mass = 0.0217; u0 = 1.0e-5; v0 = -0.613; },\n"
    "  { name = \"bar\"; type = \"modal\"; freq = [0.0, 413.7, 1171.3]; mass = [0.173, 0.0871, "
    "0.0913];\n"
    "    quality = [1.0e9, 93.0, 71.0]; points = ( { name = \"top\"; shape = [1.0, 0.83, -0.41]; "
    "},\n"
    "    { name = \"end\"; shape = [1.0, -0.7, 0.37]; } ); },\n"
    "  { name = \"ground\"; type = \"wall\"; },\n"
    "  { name = \"bead\"; type = \"mass\"; mass = 0.00193; u0 = 1.7e-4; v0 = 0.0; },\n"
    "  { name = \"table\"; type = \"wall\"; drive = { type = \"sine\"; amplitude = 2.1e-4;\n"
    "    freq = 61.3; phase = 0.37; }; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"strike\"; between = [\"bar.top\", \"hammer\"]; law = \"hunt-crossley\"; k = "
    "3.7e8;\n"
    "    alpha = 1.5; mu = 0.31; scheme = \"am1\"; corrections = [\"xmax\", \"vout\"]; },\n"
    "  { name = \"hold\"; between = [\"bar.end\", \"ground\"]; law = \"spring\"; k = 2.9e4; c = "
    "1.3;\n"
    "    scheme = \"am1\"; },\n"
    "  { name = \"shake\"; between = [\"table\", \"bead\"]; law = \"power\"; k = 4.1e6; alpha = "
    "1.5;\n"
    "    scheme = \"rk4\"; }\n"
    ");\n"
    "record = { every = 3; modes = true; };\n";

/* Whether instance i of row r is one a file of the scene holds, said
 * independently of pyapi.c: recorded, not a fixed wall's, not a mass's
 * modes; every energy can change here (gravity, a driven wall,
 * corrections). */
static int
expected(const tu_sim *s, const vb_signal *t, int r, int i)
{
  int p, b = vb_signal_body(&t[r], s->scene, i, &p);
  if (b >= 0 && s->scene->bodies[b].kind == VB_BODY_WALL &&
      s->scene->bodies[b].drive.kind == VB_DRIVE_NONE)
    return 0;
  if (t[r].object == VB_SIGNAL_MODES && s->scene->bodies[b].kind != VB_BODY_MODAL)
    return 0;
  return vb_signal_data(s->run, &t[r], i) != NULL;
}

/* Every signal vb_run_signal_at gives is an instance of the table with its
 * own data, named by its path; every instance a file holds is given once;
 * the modal properties are the body's arrays. */
START_TEST(test_signals_are_the_table)
{
  tu_sim s = tu_run_text(scene_text);
  int nt, found[1024] = {0}, k, kind, rows, props = 0;
  const vb_signal *t = vb_signal_table(&nt);
  char name[256], path[256];
  const char *units;
  const double *data;

  ck_assert_int_eq(s.rc, VB_OK);
  for (k = 0; (kind = vb_run_signal_at(s.run, k, name, sizeof name, &units, &rows, &data)) >= 0;
       k++) {
    ck_assert_int_le(kind, 2);
    if (kind == 2) {
      const vb_body *bar = &s.scene->bodies[1];
      ck_assert_int_eq(rows, bar->nmodes);
      ck_assert(data == bar->freq || data == bar->sigma || data == bar->modal_mass);
      ck_assert_str_eq(name, data == bar->freq    ? "bodies.bar.modes.freq"
                             : data == bar->sigma ? "bodies.bar.modes.sigma"
                                                  : "bodies.bar.modes.mass");
      props++;
      continue;
    }
    int match = -1, n = 0;
    for (int r = 0; r < nt; r++)
      for (int i = 0; i < vb_signal_count(&t[r], s.scene); i++, n++) {
        vb_signal_path(&t[r], s.scene, i, path, sizeof path);
        for (char *c = path; *c; c++)
          *c = *c == '/' ? '.' : *c;
        if (strcmp(path, name) == 0) {
          ck_assert_int_eq(match, -1);
          match = n;
          ck_assert(data == vb_signal_data(s.run, &t[r], i));
          ck_assert_str_eq(units, t[r].units);
          ck_assert_int_eq(rows, vb_signal_rows(&t[r], s.scene, i));
          ck_assert_int_eq(kind, t[r].object == VB_SIGNAL_MODES);
          ck_assert(expected(&s, t, r, i));
        }
      }
    ck_assert_msg(match >= 0, "%s is no instance of the table", name);
    ck_assert_int_lt(n, (int)(sizeof found / sizeof found[0])); /* the instances fit */
    found[match]++;
  }
  ck_assert_int_eq(props, 3);
  ck_assert_int_eq(vb_run_signal_at(s.run, k + 1, name, sizeof name, &units, &rows, &data), -1);
  ck_assert_int_eq(vb_run_signal_at(s.run, -1, name, sizeof name, &units, &rows, &data), -1);
  /* every instance a file holds, once */
  int n = 0, held = 0;
  for (int r = 0; r < nt; r++)
    for (int i = 0; i < vb_signal_count(&t[r], s.scene); i++, n++) {
      ck_assert_int_lt(n, (int)(sizeof found / sizeof found[0]));
      ck_assert_int_eq(found[n], expected(&s, t, r, i));
      held += found[n];
    }
  ck_assert_int_eq(held + props, k);
  ck_assert_int_gt(held, 15); /* hammer, bar.top, bar.end, bar modes, bead, table, 3 contacts */
  tu_free(&s);
}
END_TEST

/* Event rows: every field of vb_event, in order, exactly. */
START_TEST(test_events_are_the_structs)
{
  tu_sim s = tu_run_text(scene_text);
  const char *units, *name;
  int is_int, nf = 0, total = 0;

  while ((name = vb_event_field(nf, &units, &is_int)) != NULL) {
    ck_assert(*units != '\0');
    for (int j = 0; j < nf; j++) {
      const char *u2;
      int i2;
      ck_assert_str_ne(name, vb_event_field(j, &u2, &i2));
    }
    nf++;
  }
  /* 14 doubles and 4 ints: the fields of vb_event, none left out */
  ck_assert_int_eq(nf, 18);
  ck_assert_uint_eq(sizeof(vb_event), 14 * sizeof(double) + 4 * sizeof(int));
  ck_assert_ptr_null(vb_event_field(-1, &units, &is_int));
  for (int c = 0; c < s.scene->ncontacts; c++) {
    const vb_contact_result *res = vb_run_contact(s.run, c);
    long n = vb_run_events(s.run, c, NULL);
    double *rows = malloc(sizeof *rows * (size_t)(n * nf + 1));
    ck_assert_int_eq(n, res->nevents);
    ck_assert_int_eq(vb_run_events(s.run, c, rows), n);
    for (long e = 0; e < n; e++) {
      const vb_event *ev = &res->events[e];
      const double *row = rows + e * nf;
      const double want[18] = {ev->t_on,
                               ev->t_off,
                               ev->duration,
                               ev->v_in,
                               ev->v_out,
                               ev->x_max,
                               ev->peak_force,
                               ev->x_max_pred,
                               ev->v_out_pred,
                               ev->v_out_exact,
                               ev->duration_pred,
                               ev->energy_before,
                               ev->energy_after,
                               ev->energy_correction,
                               ev->newton_iterations_max,
                               ev->fallbacks,
                               ev->samples,
                               ev->corrections};
      ck_assert_mem_eq(row, want, sizeof want);
    }
    total += (int)n;
    free(rows);
  }
  ck_assert_int_gt(total, 0);
  ck_assert_int_eq(vb_run_events(s.run, s.scene->ncontacts, NULL), -1);
  ck_assert_str_eq(vb_scene_contact_name(s.scene, 2), "shake");
  ck_assert_ptr_null(vb_scene_contact_name(s.scene, 3));
  ck_assert_str_eq(vb_scene_title(s.scene), "mix");
  ck_assert(vb_scene_sample_interval(s.scene) == 3.0 / 48000.0);
  tu_free(&s);
}
END_TEST

/* A stop flag: set before the run, nothing is stepped; never set (or
 * NULL), the bits of vb_run_exec. */
START_TEST(test_exec_stop)
{
  tu_sim a = tu_run_text(scene_text);
  tu_sim b = tu_run_text(scene_text);
  volatile int stop = 0;
  long n = vb_run_samples(a.run);

  ck_assert_int_eq(vb_run_exec_stop(b.run, &stop), VB_OK);
  ck_assert_mem_eq(vb_run_contact(a.run, 0)->force, vb_run_contact(b.run, 0)->force,
                   sizeof(double) * (size_t)n);
  ck_assert_int_eq(vb_run_exec_stop(b.run, NULL), VB_OK);
  ck_assert_mem_eq(vb_run_contact(a.run, 0)->force, vb_run_contact(b.run, 0)->force,
                   sizeof(double) * (size_t)n);
  stop = 1;
  ck_assert_int_eq(vb_run_exec_stop(b.run, &stop), VB_EINTR);
  ck_assert_int_eq(vb_run_code(b.run), VB_EINTR);
  ck_assert_str_eq(vb_run_status(b.run), "stopped at t=0 s on request");
  const double *u = vb_run_body_u(b.run, 0);
  ck_assert(u[0] == 1.0e-5);
  for (long k = 1; k < n; k++)
    ck_assert(isnan(u[k]));
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* Warnings: the too-short contact and the study's other scenes, one a
 * line, and a short buffer stays terminated. */
START_TEST(test_warnings)
{
  static const char hammer[] =
      "scene = { name = \"h\"; fs = 44100.0; duration = 0.002; gravity = 0.0; };\n"
      "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.01; v0 = 1.0; },\n"
      "  { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
      "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
      "  k = %s; alpha = 1.5; mu = 0.5; scheme = \"am1\"; } );\n%s";
  char text[2048], buf[1024], err[1024], tiny[12];
  vb_study *st;
  vb_scene *sc;

  snprintf(text, sizeof text, hammer, "1.0e12", "");
  ck_assert_int_eq(vb_scene_load_string(text, "w.cfg", &sc, err, sizeof err), VB_OK);
  buf[0] = '\0';
  ck_assert_int_eq(vb_scene_warnings(sc, buf, sizeof buf), 1);
  ck_assert_msg(strncmp(buf, "contact 'hit' lasts ", 20) == 0, "%s", buf);
  ck_assert(strstr(buf, "shorter than the 4 scheme 'am1' resolves; raise fs above ") != NULL);
  ck_assert_int_eq(buf[strlen(buf) - 1], '\n');
  tiny[0] = '\0';
  ck_assert_int_eq(vb_scene_warnings(sc, tiny, sizeof tiny), 1);
  ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
  vb_scene_free(sc);

  snprintf(text, sizeof text, hammer, "1.0e9",
           "sweep = { mode = \"grid\"; params = ( { path = \"contacts.hit.k\";\n"
           "  values = [1.0e9, 1.0e12, 2.0e9, 3.0e12]; } ); };\n");
  ck_assert_int_eq(vb_study_load_string(text, "s.cfg", &st, err, sizeof err), VB_OK);
  buf[0] = '\0';
  ck_assert_int_eq(vb_study_warnings(st, buf, sizeof buf), 1);
  ck_assert_str_eq(buf, "2 of the other 3 scenes have a contact shorter than its scheme "
                        "resolves (first: scene 1)\n");
  vb_study_free(st);
}
END_TEST

/* The study without structs: its report and progress, and a stop. */
static void
count_progress(long done, long total, double rate, double left, void *ctx)
{
  long *last = ctx;
  ck_assert_int_le(done, total);
  ck_assert(rate >= 0.0 && (isnan(left) || left >= 0.0));
  last[0] = done;
  last[1] = total;
  last[2]++;
}

START_TEST(test_study_run_flat)
{
  static const char text[] =
      "scene = { name = \"h\"; fs = 44100.0; duration = 0.002; gravity = 0.0; };\n"
      "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.01; v0 = 1.0; },\n"
      "  { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
      "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
      "  k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; } );\n"
      "sweep = { mode = \"grid\"; params = ( { path = \"bodies.hammer.v0\";\n"
      "  values = [0.3, 0.7, 1.1, 40.0, 2.3]; } ); };\n";
  char out[512], err[1024], status[160];
  long report[5], last[3] = {0, 0, 0};
  volatile int stop = 1;
  vb_study *st;

  snprintf(out, sizeof out, "%s/check_pyapi-%ld.h5", TEST_BUILDDIR, (long)getpid());
  ck_assert_int_eq(vb_study_load_string(text, "f.cfg", &st, err, sizeof err), VB_OK);
  /* stopped before any scene: interrupted, OUT not written */
  ck_assert_int_eq(vb_study_run_flat(st, out, 1, 0, &stop, NULL, NULL, 0.0, NULL, report, status,
                                     sizeof status, err, sizeof err),
                   VB_EINTR);
  ck_assert_msg(strstr(err, "interrupted after 0 of 5 scenes") != NULL, "%s", err);
  ck_assert_int_eq(access(out, F_OK), -1);
  stop = 0;
  ck_assert_int_eq(vb_study_run_flat(st, out, 2, 1, &stop, count_progress, last, 0.0, NULL, report,
                                     status, sizeof status, err, sizeof err),
                   VB_OK);
  ck_assert_int_eq(report[0], 5);
  ck_assert_int_eq(report[1] + report[2], 5);
  ck_assert_int_eq(report[3], 0);
  ck_assert_int_eq(report[4], -1);
  ck_assert_int_eq(last[0], 5);
  ck_assert_int_eq(last[1], 5);
  ck_assert_int_ge(last[2], 1);
  ck_assert_int_eq(access(out, F_OK), 0);
  ck_assert_int_eq(unlink(out), 0);
  vb_study_free(st);
}
END_TEST

static Suite *
pyapi_suite(void)
{
  Suite *s = suite_create("pyapi");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_test(core, test_signals_are_the_table);
  tcase_add_test(core, test_events_are_the_structs);
  tcase_add_test(core, test_exec_stop);
  tcase_add_test(core, test_warnings);
  tcase_add_test(core, test_study_run_flat);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(pyapi_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
