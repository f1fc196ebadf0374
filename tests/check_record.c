/* check_record.c - the signal table (lib/record.c): every row's instances,
 * groups and data agree with the run's accessors, and the recording's size
 * is the one the scene announces. */
#include "testutil.h"

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
  "record = { every = 1; modes = true; };\n";

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
                                                               : res->force;
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

static Suite *
record_suite(void)
{
  Suite *s = suite_create("record");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_table_is_the_recording);
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
