/* check_scene.c - tests of scene loading and validation (lib/scene/scene.c). */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vibro.h"
#include "scene/scene.h" /* the body-type table */

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

#define DATA TEST_SRCDIR "/tests/data/"

/* A scene with every key set, some to irregular values. */
static const char good[] =
    "# A scene with every key.\n"
    "scene = { name = \"papetti-case-b\"; fs = 44100.0; duration = 0.002;\n"
    "          gravity = -9.81; };\n"
    "bodies = (\n"
    "  { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -0.00025;\n"
    "    v0 = 1.25; },\n"
    "  { name = \"wall\"; type = \"wall\"; position = 0.003; },\n"
    "  { name = \"bead_1\"; type = \"mass\"; mass = 2.5e-4; },\n"
    "  { name = \"bead-2\"; type = \"mass\"; mass = 7.0e-4; v0 = -0.5; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"hit\"; between = [\"hammer\", \"wall\"];\n"
    "    law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5;\n"
    "    gap = 1.0e-5; scheme = \"am1\"; tolerance = 1.0e-10;\n"
    "    max_iterations = 20; },\n"
    "  { name = \"rattle\"; between = [\"bead-2\", \"bead_1\"];\n"
    "    law = \"rattle\"; k = 3.3e7; alpha = 2.0; h = 0.0004;\n"
    "    scheme = \"quadratic\"; s = 0.75; }\n"
    ");\n"
    "record = { every = 3; };\n";

/* The smallest valid scene: one mass, no contacts. */
static const char minimal[] =
    "scene = { name = \"m\"; fs = 1000.0; duration = 1.0; };\n"
    "bodies = ( { name = \"a\"; type = \"mass\"; mass = 1.0; } );\n";

/* Load a scene from text that must be valid. */
static vb_scene *load_ok(const char *text)
{
  vb_scene *sc = NULL;
  char err[1024] = "";
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);

  ck_assert_msg(rc == VB_OK, "unexpected error %d: %s", rc, err);
  ck_assert_ptr_nonnull(sc);
  return sc;
}

/* Read a whole file in the test, to compare with scene->input. */
static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;

  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Every field of a scene with every key. */
START_TEST(test_good_fields)
{
  vb_scene *sc = load_ok(good);
  const vb_body *b = sc->bodies;
  const vb_contact *c = sc->contacts;

  ck_assert_str_eq(sc->name, "papetti-case-b");
  ck_assert_str_eq(sc->path, "test.cfg");
  ck_assert_str_eq(sc->input, good);
  ck_assert_double_eq(sc->fs, 44100.0);
  ck_assert_double_eq(sc->duration, 0.002);
  ck_assert_double_eq(sc->gravity, -9.81);
  ck_assert_int_eq(sc->record_every, 3);
  ck_assert_int_eq(sc->nbodies, 4);
  ck_assert_int_eq(sc->ncontacts, 2);

  ck_assert_str_eq(b[0].name, "hammer");
  ck_assert_int_eq(b[0].kind, VB_BODY_MASS);
  ck_assert_double_eq(b[0].mass, 0.0137);
  ck_assert_double_eq(b[0].u0, -0.00025);
  ck_assert_double_eq(b[0].v0, 1.25);
  ck_assert_int_eq(b[0].line, 5);
  ck_assert_str_eq(b[1].name, "wall");
  ck_assert_int_eq(b[1].kind, VB_BODY_WALL);
  ck_assert_double_eq(b[1].mass, 0.0);
  ck_assert_double_eq(b[1].u0, 0.003);
  ck_assert_double_eq(b[1].v0, 0.0);
  ck_assert_int_eq(b[1].line, 7);
  ck_assert_str_eq(b[2].name, "bead_1");
  ck_assert_double_eq(b[2].mass, 2.5e-4);
  ck_assert_double_eq(b[2].u0, 0.0);
  ck_assert_double_eq(b[2].v0, 0.0);
  ck_assert_str_eq(b[3].name, "bead-2");
  ck_assert_double_eq(b[3].mass, 7.0e-4);
  ck_assert_double_eq(b[3].v0, -0.5);

  ck_assert_str_eq(c[0].name, "hit");
  ck_assert_int_eq(c[0].a, 0);
  ck_assert_int_eq(c[0].b, 1);
  ck_assert_int_eq(c[0].law.kind, VB_LAW_HUNT_CROSSLEY);
  ck_assert_double_eq(c[0].law.k, 1.0e9);
  ck_assert_double_eq(c[0].law.alpha, 1.5);
  ck_assert_double_eq(c[0].law.mu, 0.5);
  ck_assert_double_eq(c[0].law.h, 0.0);
  ck_assert_double_eq(c[0].gap, 1.0e-5);
  ck_assert_ptr_eq(c[0].scheme, vb_scheme_lookup("am1"));
  ck_assert_str_eq(c[0].scheme->name, "am1");
  ck_assert_double_eq(c[0].s, 1.0);
  ck_assert_double_eq(c[0].tolerance, 1.0e-10);
  ck_assert_int_eq(c[0].max_iterations, 20);
  ck_assert_int_eq(c[0].line, 12);

  ck_assert_str_eq(c[1].name, "rattle");
  ck_assert_int_eq(c[1].a, 3);
  ck_assert_int_eq(c[1].b, 2);
  ck_assert_int_eq(c[1].law.kind, VB_LAW_RATTLE);
  ck_assert_double_eq(c[1].law.k, 3.3e7);
  ck_assert_double_eq(c[1].law.alpha, 2.0);
  ck_assert_double_eq(c[1].law.mu, 0.0);
  ck_assert_double_eq(c[1].law.h, 0.0004);
  ck_assert_double_eq(c[1].gap, 0.0);
  ck_assert_ptr_eq(c[1].scheme, vb_scheme_lookup("quadratic"));
  ck_assert_double_eq(c[1].s, 0.75);
  ck_assert_double_eq(c[1].tolerance, 1.0e-12);
  ck_assert_int_eq(c[1].max_iterations, 50);
  ck_assert_int_eq(c[1].line, 16);

  /* 0.002 * 44100 = 88.2 -> 88 steps; 88 / 3 + 1 = 30 samples; per
   * sample 2 * 4 + 2 * 2 + 4 = 16 doubles. */
  ck_assert_int_eq(vb_scene_steps(sc), 88);
  ck_assert_int_eq(vb_scene_samples(sc), 30);
  ck_assert_double_eq(vb_scene_record_bytes(sc), 30.0 * 20 * 8);
  vb_scene_free(sc);
}
END_TEST

/* Defaults of every optional key. */
START_TEST(test_defaults)
{
  vb_scene *sc = load_ok(
      "scene = { name = \"d\"; fs = 44100.0; duration = 0.002; };\n"
      "bodies = (\n"
      "  { name = \"hammer\"; type = \"mass\"; mass = 0.01; },\n"
      "  { name = \"wall\"; type = \"wall\"; }\n"
      ");\n"
      "contacts = (\n"
      "  { name = \"hit\"; between = [\"wall\", \"hammer\"];\n"
      "    law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5;\n"
      "    scheme = \"quadratic\"; }\n"
      ");\n");

  ck_assert_double_eq(sc->gravity, 0.0);
  ck_assert_int_eq(sc->record_every, 1);
  ck_assert_double_eq(sc->bodies[0].u0, 0.0);
  ck_assert_double_eq(sc->bodies[0].v0, 0.0);
  ck_assert_double_eq(sc->bodies[1].u0, 0.0);
  ck_assert_int_eq(sc->contacts[0].a, 1);
  ck_assert_int_eq(sc->contacts[0].b, 0);
  ck_assert_double_eq(sc->contacts[0].law.mu, 0.0);
  ck_assert_double_eq(sc->contacts[0].gap, 0.0);
  ck_assert_double_eq(sc->contacts[0].s, 1.0);
  ck_assert_double_eq(sc->contacts[0].tolerance, 1e-12);
  ck_assert_int_eq(sc->contacts[0].max_iterations, 50);
  /* The papetti-case-b numbers: 88 steps, 89 samples of 10 doubles. */
  ck_assert_int_eq(vb_scene_steps(sc), 88);
  ck_assert_int_eq(vb_scene_samples(sc), 89);
  ck_assert_double_eq(vb_scene_record_bytes(sc), 89.0 * 13 * 8);
  vb_scene_free(sc);
}
END_TEST

/* An oscillator is a mass on a spring and damper to ground: k = m omega^2,
 * c = 2 m sigma, its mode at exactly the frequency asked, sigma from zeta,
 * quality or t60 as a modal body's, and it starts at its static sag under
 * gravity unless u0 is given. */
START_TEST(test_oscillator)
{
  const double m = 0.37, f = 12.5, w = 2.0 * M_PI * f, g = 9.81;
  vb_scene *sc = load_ok(
      "scene = { name = \"o\"; fs = 44100.0; duration = 0.002; gravity = 9.81; };\n"
      "bodies = (\n"
      "  { name = \"z\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; zeta = 0.031; v0 = 0.2; },\n"
      "  { name = \"q\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; quality = 40.0; u0 = 0.003; },\n"
      "  { name = \"t\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; t60 = 1.7; },\n"
      "  { name = \"u\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; }\n"
      ");\n");
  const double sigma[4] = {0.031 * w, w / (2.0 * 40.0), log(1000.0) / 1.7, 0.0};
  for (int i = 0; i < 4; i++) {
    const vb_body *b = &sc->bodies[i];
    ck_assert_str_eq(b->type, "oscillator");
    ck_assert_int_eq(b->kind, VB_BODY_MASS);
    ck_assert_int_eq(b->nmodes, 1);
    ck_assert_int_eq(b->npoints, 1);
    ck_assert_double_eq(b->freq[0], f);
    ck_assert_double_eq(b->modal_mass[0], m);
    ck_assert_double_eq(b->gravity[0], 1.0);
    ck_assert_double_eq_tol(b->sigma[0], sigma[i], 1e-15 * w);
    ck_assert_double_eq_tol(b->k, m * w * w, 1e-15 * m * w * w);
    ck_assert_double_eq_tol(b->c, 2.0 * m * sigma[i], 1e-15 * m * w);
    ck_assert_double_eq(b->q0[0], b->u0);
    ck_assert_double_eq(b->dq0[0], b->v0);
  }
  ck_assert_double_eq(sc->bodies[0].v0, 0.2);
  ck_assert_double_eq(sc->bodies[1].u0, 0.003);
  ck_assert_double_eq_tol(sc->bodies[2].u0, -g / (w * w), 1e-15);
  ck_assert_double_eq(sc->bodies[3].v0, 0.0);
  vb_scene_free(sc);
}
END_TEST

/* The body-type table: lookup of the first, the last and unknown names,
 * and each row consistent with itself (every numeric key with units is a
 * valid key of the type, "loss[1]" as "loss"; name and type are keys). */
START_TEST(test_body_types)
{
  int n = 0;
  const vb_body_type *first = vb_body_type_at(0, &n);
  ck_assert_int_ge(n, 3);
  ck_assert_ptr_eq(vb_body_type_lookup("mass"), first);
  ck_assert_ptr_eq(vb_body_type_lookup(vb_body_type_at(n - 1, NULL)->name), vb_body_type_at(n - 1, NULL));
  ck_assert_ptr_null(vb_body_type_at(n, NULL));
  ck_assert_ptr_null(vb_body_type_at(-1, NULL));
  ck_assert_ptr_null(vb_body_type_lookup("Mass"));
  ck_assert_ptr_null(vb_body_type_lookup(NULL));
  for (int i = 0; i < n; i++) {
    const vb_body_type *t = vb_body_type_at(i, NULL);
    ck_assert_ptr_eq(vb_body_type_lookup(t->name), t);
    ck_assert_ptr_nonnull(t->load);
    ck_assert(vb_has_key(t->keys, "name") && vb_has_key(t->keys, "type"));
    for (const vb_key_units *k = t->numbers; k->key; k++) {
      char key[64];
      snprintf(key, sizeof key, "%.*s", (int)strcspn(k->key, "["), k->key);
      ck_assert_msg(vb_has_key(t->keys, key), "type %s: numeric key %s is not a key", t->name,
                    k->key);
      ck_assert_ptr_nonnull(k->units);
    }
  }
}
END_TEST

/* The laws set by a coefficient of restitution load k, alpha and e, and
 * no damping of their own (it is set at each impact's onset). */
START_TEST(test_restitution_laws)
{
  vb_scene *sc = load_ok(
      "scene = { name = \"r\"; fs = 44100.0; duration = 0.002; };\n"
      "bodies = (\n"
      "  { name = \"hammer\"; type = \"mass\"; mass = 0.01; },\n"
      "  { name = \"bead\"; type = \"mass\"; mass = 0.003; u0 = 0.1; },\n"
      "  { name = \"wall\"; type = \"wall\"; }\n"
      ");\n"
      "contacts = (\n"
      "  { name = \"ln\"; between = [\"hammer\", \"wall\"];\n"
      "    law = \"lankarani-nikravesh\"; k = 2.385e9; alpha = 1.5; e = 0.83;\n"
      "    scheme = \"two-point\"; },\n"
      "  { name = \"fl\"; between = [\"bead\", \"wall\"];\n"
      "    law = \"flores\"; k = 7.1e7; alpha = 1.0; e = 1;\n"
      "    scheme = \"am1\"; corrections = [\"xmax\"]; }\n"
      ");\n");
  const vb_law *ln = &sc->contacts[0].law, *fl = &sc->contacts[1].law;

  ck_assert_int_eq(ln->kind, VB_LAW_LANKARANI_NIKRAVESH);
  ck_assert_double_eq(ln->k, 2.385e9);
  ck_assert_double_eq(ln->alpha, 1.5);
  ck_assert_double_eq(ln->e, 0.83);
  ck_assert_double_eq(ln->mu, 0.0);
  ck_assert_int_eq(fl->kind, VB_LAW_FLORES);
  ck_assert_double_eq(fl->alpha, 1.0);
  ck_assert_double_eq(fl->e, 1.0);
  ck_assert_int_eq(sc->contacts[1].corrections, VB_CORRECT_XMAX);
  vb_scene_free(sc);
}
END_TEST

/* Integers are accepted where reals are expected. */
START_TEST(test_integers_as_reals_values)
{
  vb_scene *sc = load_ok(
      "scene = { name = \"i\"; fs = 48000; duration = 1; gravity = -10; };\n"
      "bodies = (\n"
      "  { name = \"a\"; type = \"mass\"; mass = 2; u0 = -1; v0 = 3; },\n"
      "  { name = \"w\"; type = \"wall\"; position = 4; }\n"
      ");\n"
      "contacts = (\n"
      "  { name = \"c\"; between = [\"a\", \"w\"]; law = \"polynomial\";\n"
      "    k = 1000000000; alpha = 3; gap = 0; scheme = \"quadratic\";\n"
      "    s = 2; }\n"
      ");\n");

  ck_assert_double_eq(sc->fs, 48000.0);
  ck_assert_double_eq(sc->duration, 1.0);
  ck_assert_double_eq(sc->gravity, -10.0);
  ck_assert_double_eq(sc->bodies[0].mass, 2.0);
  ck_assert_double_eq(sc->bodies[0].u0, -1.0);
  ck_assert_double_eq(sc->bodies[0].v0, 3.0);
  ck_assert_double_eq(sc->bodies[1].u0, 4.0);
  ck_assert_int_eq(sc->contacts[0].law.kind, VB_LAW_POLYNOMIAL);
  ck_assert_double_eq(sc->contacts[0].law.k, 1.0e9);
  ck_assert_double_eq(sc->contacts[0].law.alpha, 3.0);
  ck_assert_double_eq(sc->contacts[0].s, 2.0);
  ck_assert_int_eq(vb_scene_steps(sc), 48000);
  vb_scene_free(sc);
}
END_TEST

/* A file with an @include, resolved against the file's directory. */
START_TEST(test_include_file)
{
  vb_scene *sc = NULL;
  char err[1024] = "";
  char *text = slurp(DATA "scene-include.cfg");
  int rc = vb_scene_load(DATA "scene-include.cfg", &sc, err, sizeof err);

  ck_assert_msg(rc == VB_OK, "%s", err);
  ck_assert_str_eq(sc->path, DATA "scene-include.cfg");
  ck_assert_str_eq(sc->input, text);
  ck_assert_str_eq(sc->name, "include-test");
  ck_assert_double_eq(sc->fs, 48000.0);
  ck_assert_double_eq(sc->gravity, -9.81);
  ck_assert_int_eq(sc->nbodies, 2);
  ck_assert_str_eq(sc->bodies[0].name, "ball");
  ck_assert_double_eq(sc->bodies[0].mass, 0.0137);
  ck_assert_double_eq(sc->bodies[0].u0, 0.002);
  ck_assert_double_eq(sc->bodies[0].v0, -0.75);
  ck_assert_int_eq(sc->bodies[0].line, 3);
  ck_assert_int_eq(sc->bodies[1].kind, VB_BODY_WALL);
  ck_assert_double_eq(sc->bodies[1].u0, -0.0005);
  ck_assert_int_eq(sc->ncontacts, 1);
  ck_assert_int_eq(sc->contacts[0].law.kind, VB_LAW_POWER);
  ck_assert_double_eq(sc->contacts[0].law.k, 2.5e8);
  ck_assert_double_eq(sc->contacts[0].gap, 0.001);
  ck_assert_ptr_eq(sc->contacts[0].scheme, vb_scheme_lookup("two-point"));
  ck_assert_int_eq(sc->contacts[0].line, 5);
  /* 480 steps, every 4: 121 samples of 2 * 2 + 2 + 4 doubles. */
  ck_assert_int_eq(vb_scene_steps(sc), 480);
  ck_assert_int_eq(vb_scene_samples(sc), 121);
  ck_assert_double_eq(vb_scene_record_bytes(sc), 121.0 * 13 * 8);
  vb_scene_free(sc);
  free(text);
}
END_TEST

/* load_string resolves @include against the directory of its path name. */
START_TEST(test_include_string)
{
  static const char text[] =
      "scene = { name = \"s\"; fs = 100.0; duration = 1.0; };\n"
      "@include \"scene-include-bodies.inc\"\n";
  vb_scene *sc = NULL;
  char err[1024] = "";
  int rc = vb_scene_load_string(text, DATA "virtual.cfg", &sc, err,
                                sizeof err);

  ck_assert_msg(rc == VB_OK, "%s", err);
  ck_assert_str_eq(sc->path, DATA "virtual.cfg");
  ck_assert_str_eq(sc->input, text);
  ck_assert_int_eq(sc->nbodies, 2);
  ck_assert_str_eq(sc->bodies[1].name, "floor");
  ck_assert_int_eq(sc->ncontacts, 0);
  vb_scene_free(sc);
}
END_TEST

/* Every registered scheme loads, and resolves to the registry's instance. */
START_TEST(test_every_scheme)
{
  char names[512], text[1024], *name, *save = NULL;
  int count = 0;

  snprintf(names, sizeof names, "%s", vb_scheme_choices());
  for (name = strtok_r(names, ", ", &save); name != NULL;
       name = strtok_r(NULL, ", ", &save)) {
    vb_scene *sc;

    /* (a scheme of the nonsmooth family steps the rigid law alone) */
    int rigid = vb_scheme_lookup(name)->family == VB_FAMILY_NONSMOOTH;
    snprintf(text, sizeof text,
             "scene = { name = \"s\"; fs = 44100.0; duration = 0.002; };\n"
             "bodies = ( { name = \"m\"; type = \"mass\"; mass = 0.01; },\n"
             "           { name = \"w\"; type = \"wall\"; } );\n"
             "contacts = ( { name = \"c\"; between = [\"m\", \"w\"];\n"
             "  %s scheme = \"%s\"; } );\n",
             rigid ? "law = \"rigid\"; e = 0.5;" : "law = \"power\"; k = 1e9; alpha = 1.5;", name);
    sc = load_ok(text);
    ck_assert_ptr_eq(sc->contacts[0].scheme, vb_scheme_lookup(name));
    vb_scene_free(sc);
    count++;
  }
  ck_assert_int_ge(count, 1);
}
END_TEST

/* A scene with no contacts (absent or empty) and vb_scene_free(NULL). */
START_TEST(test_no_contacts)
{
  vb_scene *sc = load_ok(minimal);
  char text[512];

  ck_assert_int_eq(sc->ncontacts, 0);
  ck_assert_ptr_null(sc->contacts);
  ck_assert_int_eq(vb_scene_steps(sc), 1000);
  ck_assert_int_eq(vb_scene_samples(sc), 1001);
  ck_assert_double_eq(vb_scene_record_bytes(sc), 1001.0 * 8 * 8);
  vb_scene_free(sc);
  snprintf(text, sizeof text, "%scontacts = ();\n", minimal);
  sc = load_ok(text);
  ck_assert_int_eq(sc->ncontacts, 0);
  vb_scene_free(sc);
  snprintf(text, sizeof text, "%scontacts = [];\n", minimal);
  sc = load_ok(text);
  ck_assert_int_eq(sc->ncontacts, 0);
  vb_scene_free(sc);
  vb_scene_free(NULL);
}
END_TEST

/* Build a scene around one contact's parameters (line 5 of the text). */
static void contact_scene(char *buf, size_t size, const char *params)
{
  snprintf(buf, size,
           "scene = { name = \"t\"; fs = 44100.0; duration = 0.002; };\n"
           "bodies = ( { name = \"m\"; type = \"mass\"; mass = 0.01; },\n"
           "           { name = \"w\"; type = \"wall\"; } );\n"
           "contacts = ( { name = \"c\"; between = [\"m\", \"w\"];\n"
           "  %s } );\n",
           params);
}

/* Values on the edges of their ranges are accepted. */
START_TEST(test_edges)
{
  static const char *const params[] = {
      "law = \"hunt-crossley\"; k = 1e-300; alpha = 1; mu = 0; scheme = \"am1\";",
      "law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; tolerance = 9.99e-4;",
      "law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; tolerance = 1e-300;",
      "law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; max_iterations = 1;",
      "law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; max_iterations = 1000;",
      "law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; max_iterations = 7L;",
      "law = \"rattle\"; k = 1; alpha = 1; h = 0; scheme = \"am1\";",
      "law = \"polynomial\"; k = 1; alpha = 1; scheme = \"am1\";",
      "law = \"polynomial\"; k = 1; alpha = 7.0; scheme = \"am1\";",
      "law = \"power\"; k = 5000000000L; alpha = 1.5; scheme = \"am1\";",
      "law = \"power\"; k = 1; alpha = 1; gap = -0.5; scheme = \"quadratic\"; s = 1e-9;",
  };
  char text[1024];
  size_t i;

  for (i = 0; i < sizeof params / sizeof *params; i++) {
    vb_scene *sc;

    contact_scene(text, sizeof text, params[i]);
    sc = load_ok(text);
    ck_assert_int_eq(sc->ncontacts, 1);
    if (i == 5)
      ck_assert_int_eq(sc->contacts[0].max_iterations, 7);
    if (i == 9)
      ck_assert_double_eq(sc->contacts[0].law.k, 5.0e9);
    if (i == 10) {
      ck_assert_double_eq(sc->contacts[0].gap, -0.5);
      ck_assert_double_eq(sc->contacts[0].s, 1e-9);
    }
    vb_scene_free(sc);
  }
}
END_TEST

/* Names of exactly VB_NAME_MAX - 1 characters are accepted. */
START_TEST(test_long_names)
{
  char name[VB_NAME_MAX], text[1024];
  vb_scene *sc;

  memset(name, 'x', VB_NAME_MAX - 1);
  name[VB_NAME_MAX - 1] = '\0';
  snprintf(text, sizeof text,
           "scene = { name = \"%s\"; fs = 1.0; duration = 1.0; };\n"
           "bodies = ( { name = \"%s\"; type = \"mass\"; mass = 1.0; },\n"
           "           { name = \"w\"; type = \"wall\"; } );\n"
           "contacts = ( { name = \"%s\"; between = [\"%s\", \"w\"];\n"
           "  law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; } );\n",
           name, name, name, name);
  sc = load_ok(text);
  ck_assert_str_eq(sc->name, name);
  ck_assert_str_eq(sc->bodies[0].name, name);
  ck_assert_str_eq(sc->contacts[0].name, name);
  vb_scene_free(sc);
}
END_TEST

/* Step counts round to nearest; samples count the first one. */
START_TEST(test_steps)
{
  static const struct {
    double fs, duration;
    long every, steps, samples;
  } cases[] = {
      {2.0, 1.25, 1, 3, 4},        /* 2.5 rounds away from zero */
      {2.0, 0.25, 1, 1, 2},        /* 0.5: the fewest steps allowed */
      {44100.0, 0.002, 1, 88, 89}, /* 88.2 */
      {44100.0, 0.002, 88, 88, 2},
      {44100.0, 0.002, 89, 88, 1}, /* every > steps: only the start */
      {96000.0, 60.0, 1000000000000L, 5760000, 1},
      {1e9, 1e3, 1, 1000000000000L, 1000000000001L},
  };
  char text[1024];
  size_t i;

  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    vb_scene *sc;

    snprintf(text, sizeof text,
             "scene = { name = \"s\"; fs = %.17g; duration = %.17g; };\n"
             "bodies = ( { name = \"a\"; type = \"mass\"; mass = 1.0; } );\n"
             "record = { every = %ldL; };\n",
             cases[i].fs, cases[i].duration, cases[i].every);
    sc = load_ok(text);
    ck_assert_int_eq(sc->record_every, cases[i].every);
    ck_assert_int_eq(vb_scene_steps(sc), cases[i].steps);
    ck_assert_int_eq(vb_scene_samples(sc), cases[i].samples);
    ck_assert_double_eq(vb_scene_record_bytes(sc),
                        (double)cases[i].samples * 8 * 8);
    vb_scene_free(sc);
  }
}
END_TEST

/* Messages are truncated safely; a NULL buffer is allowed. */
START_TEST(test_truncation)
{
  vb_scene *sc = (vb_scene *)&sc;
  char err[16];
  int rc;

  memset(err, '#', sizeof err);
  rc = vb_scene_load_string("scene = 1;\n", "bad.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, "bad.cfg:1: top ");
  sc = (vb_scene *)&sc;
  rc = vb_scene_load_string("scene = 1;\n", "bad.cfg", &sc, NULL, 0);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  rc = vb_scene_load("/nonexistent/dir/x.cfg", &sc, err, 1);
  ck_assert_int_eq(rc, VB_EIO);
  ck_assert_str_eq(err, "");
}
END_TEST

/* The list of bodies in a message is cut short when long. */
START_TEST(test_long_list)
{
  char *text = malloc(65536), *p = text, err[4096];
  vb_scene *sc = NULL;
  size_t n;
  int i, rc;

  p += sprintf(p, "scene = { name = \"s\"; fs = 1.0; duration = 1.0; };\n"
                  "bodies = (\n");
  for (i = 0; i < 200; i++)
    p += sprintf(p, "  { name = \"body_%03d_with_a_long_name\"; type = \"mass\";"
                    " mass = 1.0; },\n", i);
  p += sprintf(p, "  { name = \"w\"; type = \"wall\"; }\n);\n"
                  "contacts = ( { name = \"c\"; between = [\"x\", \"w\"];\n"
                  "  law = \"power\"; k = 1; alpha = 1; scheme = \"am1\"; } );\n");
  rc = vb_scene_load_string(text, "big.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strncmp(err, "big.cfg:205: contact 'c': 'between' names unknown "
                             "body 'x' (valid: body_000_with_a_long_name, ",
                        84) == 0, "%s", err);
  n = strlen(err);
  ck_assert_str_eq(err + n - 4, "...)");
  ck_assert_ptr_null(strchr(err, '\n'));
  free(text);
}
END_TEST

/* One bad scene and the exact message it must give. */
typedef struct bad_case {
  const char *text;
  const char *message; /* @SCHEMES@ and @LAWS@ stand for the choices */
} bad_case;

#define SCENE "scene = { name = \"t\"; fs = 44100.0; duration = 0.002; };\n"
#define BODIES                                                          \
  "bodies = (\n"                                                        \
  "  { name = \"hammer\"; type = \"mass\"; mass = 0.01; v0 = 1.0; },\n" \
  "  { name = \"wall\"; type = \"wall\"; position = 0.0; }\n"           \
  ");\n"
/* A contact on lines 6-9: the group and 'between' on 7, params on 8. */
#define CONTACT(params)                                           \
  "contacts = (\n"                                                \
  "  { name = \"hit\"; between = [\"hammer\", \"wall\"];\n"       \
  "    " params "\n"                                              \
  "  }\n"                                                         \
  ");\n"
#define HC "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; "
#define POWER "law = \"power\"; k = 1.0e9; alpha = 1.5; "
#define AM1 "scheme = \"am1\";"
#define POWER_KEYS \
  "name, between, law, k, alpha, gap, gap_drive, scheme, tolerance, max_iterations, " \
  "corrections, vout, exact_duration, saturate, points, profile, friction, normal_force, normal_force_drive, geometry, track"

static const bad_case bad[] = {
    /* 0: registries */
    {SCENE BODIES CONTACT(POWER "scheme = \"rk5\";"),
     "bad.cfg:8: contact 'hit': unknown scheme 'rk5' (valid: @SCHEMES@)"},
    {SCENE BODIES CONTACT("law = \"hertz\"; k = 1.0e9; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': unknown law 'hertz' (valid: @LAWS@)"},
    /* 2: unknown keys at every level */
    {"output = \"x.h5\";\n" SCENE BODIES,
     "bad.cfg:1: top level: unknown key 'output' (valid: scene, bodies, "
     "contacts, forces, record, analysis)"},
    {"scene = { name = \"t\"; fps = 44100.0; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: unknown key 'fps' (valid: name, fs, duration, "
     "gravity)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mas = 0.01; },\n"
           "  { name = \"wall\"; type = \"wall\"; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': unknown key 'mas' (valid: name, type, mass, "
     "u0, v0, k, c, w0, vw0, kw, cw, radius, inertia, spin0)"},
    {SCENE BODIES CONTACT(POWER "stiffness = 2.0; " AM1),
     "bad.cfg:8: contact 'hit': unknown key 'stiffness' (valid: " POWER_KEYS
     ")"},
    {SCENE BODIES CONTACT(POWER AM1) "record = { evry = 2; };\n",
     "bad.cfg:11: record: unknown key 'evry' (valid: every, modes, signals)"},
    /* 7: keys that do not apply */
    {SCENE BODIES CONTACT(POWER "mu = 0.5; " AM1),
     "bad.cfg:8: contact 'hit': 'mu' applies only to laws hunt-crossley and rattle "
     "(valid: " POWER_KEYS ")"},
    {SCENE BODIES CONTACT(HC "h = 0.001; " AM1),
     "bad.cfg:8: contact 'hit': 'h' applies only to law 'rattle' (valid: "
     "name, between, law, k, alpha, mu, gap, gap_drive, scheme, tolerance, "
     "max_iterations, corrections, vout, exact_duration, saturate, points, profile, friction, "
     "normal_force, normal_force_drive, geometry, track)"},
    {SCENE BODIES CONTACT(POWER "s = 0.5; " AM1),
     "bad.cfg:8: contact 'hit': 's' applies only to scheme 'quadratic' "
     "(valid: " POWER_KEYS ")"},
    {SCENE "bodies = (\n"
           "  { name = \"wall\"; type = \"wall\"; mass = 1.0; }\n"
           ");\n",
     "bad.cfg:3: body 'wall': 'mass' applies only to types mass, modal and oscillator (valid: "
     "name, type, position, drive, w_drive)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = 1.0;\n"
           "    position = 0.5; }\n"
           ");\n",
     "bad.cfg:4: body 'hammer': 'position' applies only to type 'wall' "
     "(valid: name, type, mass, u0, v0, k, c, w0, vw0, kw, cw, radius, inertia, spin0)"},
    /* 12: missing required keys */
    {SCENE BODIES CONTACT("law = \"power\"; k = 1.0e9; " AM1),
     "bad.cfg:7: contact 'hit': missing required key 'alpha'"},
    {SCENE BODIES CONTACT("law = \"rattle\"; k = 1.0e9; alpha = 1.5; " AM1),
     "bad.cfg:7: contact 'hit': missing required key 'h'"},
    {SCENE BODIES CONTACT("law = \"power\"; alpha = 1.5; " AM1),
     "bad.cfg:7: contact 'hit': missing required key 'k'"},
    {SCENE BODIES CONTACT(POWER),
     "bad.cfg:7: contact 'hit': missing required key 'scheme'"},
    {SCENE BODIES CONTACT("k = 1.0e9; alpha = 1.5; " AM1),
     "bad.cfg:7: contact 'hit': missing required key 'law'"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\";\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact 'hit': missing required key 'between'"},
    {SCENE BODIES
     "contacts = (\n"
     "  { between = [\"hammer\", \"wall\"];\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact #1: missing required key 'name'"},
    {SCENE "bodies = (\n"
           "  { name = \"wall\"; type = \"wall\"; },\n"
           "  { name = \"hammer\"; type = \"mass\"; v0 = 1.0; }\n"
           ");\n",
     "bad.cfg:4: body 'hammer': missing required key 'mass'"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; mass = 1.0; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': missing required key 'type'"},
    {"scene = { name = \"t\";\n"
     "  duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: missing required key 'fs'"},
    {"scene = { fs = 44100.0; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: missing required key 'name'"},
    {"# no scene\n" BODIES,
     "bad.cfg:1: top level: missing required key 'scene'"},
    {SCENE "contacts = ();\n",
     "bad.cfg:1: top level: missing required key 'bodies'"},
    /* 25: wrong types */
    {"scene = { name = \"t\";\n"
     "  fs = \"44100\"; duration = 0.002; };\n" BODIES,
     "bad.cfg:2: scene: 'fs' must be a number"},
    {"scene = { name = 5; fs = 44100.0; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: 'name' must be a string"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = true; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': 'mass' must be a number"},
    {SCENE BODIES CONTACT(POWER "max_iterations = 50.0; " AM1),
     "bad.cfg:8: contact 'hit': 'max_iterations' must be an integer"},
    {SCENE BODIES "record = { every = 1.5; };\n",
     "bad.cfg:6: record: 'every' must be an integer"},
    {SCENE BODIES CONTACT("law = 1; k = 1.0e9; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'law' must be a string"},
    {"scene = [1, 2];\n" BODIES,
     "bad.cfg:1: top level: 'scene' must be a group { ... }"},
    {SCENE "bodies = { name = \"hammer\"; };\n",
     "bad.cfg:2: top level: 'bodies' must be a list of groups ( { ... }, ... )"},
    {SCENE "bodies = ( \"hammer\" );\n",
     "bad.cfg:2: body #1: must be a group { name = ...; type = ...; }"},
    {SCENE BODIES "record = 1;\n",
     "bad.cfg:6: top level: 'record' must be a group { ... }"},
    /* 35: values out of range */
    {SCENE BODIES CONTACT("law = \"power\"; k = -1; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'k' must be > 0 (got -1)"},
    {SCENE BODIES CONTACT("law = \"power\"; k = 0.0; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'k' must be > 0 (got 0)"},
    {SCENE BODIES CONTACT("law = \"polynomial\"; k = 1e9; alpha = 2; " AM1),
     "bad.cfg:8: contact 'hit': 'alpha' must be an odd integer >= 1 for law "
     "'polynomial' (got 2)"},
    {SCENE BODIES CONTACT("law = \"polynomial\"; k = 1e9; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'alpha' must be an odd integer >= 1 for law "
     "'polynomial' (got 1.5)"},
    {SCENE BODIES CONTACT("law = \"polynomial\"; k = 1e9; alpha = -1; " AM1),
     "bad.cfg:8: contact 'hit': 'alpha' must be an odd integer >= 1 for law "
     "'polynomial' (got -1)"},
    {SCENE BODIES CONTACT("law = \"power\"; k = 1e9; alpha = 0.99; " AM1),
     "bad.cfg:8: contact 'hit': 'alpha' must be >= 1 (got 0.99)"},
    {SCENE BODIES CONTACT(HC "mu = -0.1; " AM1),
     "bad.cfg:8: contact 'hit': 'mu' must be >= 0 (got -0.1)"},
    /* issue 10: overflow that the loader can see */
    {"scene = { name = \"t\"; fs = 44100.0; duration = 0.002; gravity = -1e308; };\n" BODIES,
     "bad.cfg:1: scene: 'gravity' = -1e+308 overflows: the energy it gives body 'hammer' "
     "over the duration, m (g T)^2/2, is not finite (valid: a smaller |gravity| or "
     "duration)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = 0.01; v0 = 1.0e160; },\n"
           "  { name = \"wall\"; type = \"wall\"; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': its initial energy (mode 0) is not finite (valid: smaller "
     "start values)"},
    {SCENE BODIES CONTACT("law = \"power\"; k = 1e300; alpha = 1.0; gap = 1e10; " AM1),
     "bad.cfg:8: contact 'hit': 'k' = 1e+300 overflows: the force or potential at a "
     "compression of 1e+10 m, which the bodies can reach, is not finite (valid: a smaller "
     "k or alpha)"},
    /* the laws set by a coefficient of restitution */
    {SCENE BODIES CONTACT("law = \"flores\"; k = 1e9; alpha = 1.5; " AM1),
     "bad.cfg:7: contact 'hit': missing required key 'e'"},
    {SCENE BODIES CONTACT("law = \"flores\"; k = 1e9; alpha = 1.5; e = 0.0; " AM1),
     "bad.cfg:8: contact 'hit': 'e' must be > 0 and <= 1 (got 0)"},
    {SCENE BODIES CONTACT("law = \"lankarani-nikravesh\"; k = 1e9; alpha = 1.5; "
                          "e = 1.25; " AM1),
     "bad.cfg:8: contact 'hit': 'e' must be > 0 and <= 1 (got 1.25)"},
    {SCENE BODIES CONTACT("law = \"lankarani-nikravesh\"; k = 1e9; alpha = 0.5; "
                          "e = 0.5; " AM1),
     "bad.cfg:8: contact 'hit': 'alpha' must be >= 1 (got 0.5)"},
    {SCENE BODIES CONTACT("law = \"flores\"; k = 1e9; alpha = 1.5; e = 0.5; mu = 0.1; "
                          AM1),
     "bad.cfg:8: contact 'hit': 'mu' applies only to laws hunt-crossley and rattle (valid: "
     "name, between, law, k, alpha, e, gap, gap_drive, scheme, tolerance, "
     "max_iterations, corrections, vout, exact_duration, saturate, points, profile, friction, "
     "normal_force, normal_force_drive, geometry, track)"},
    {SCENE BODIES CONTACT(HC "e = 0.5; " AM1),
     "bad.cfg:8: contact 'hit': 'e' applies only to laws lankarani-nikravesh, flores and rigid "
     "(valid: name, between, law, k, alpha, mu, gap, gap_drive, scheme, tolerance, "
     "max_iterations, corrections, vout, exact_duration, saturate, points, profile, friction, "
     "normal_force, normal_force_drive, geometry, track)"},
    {SCENE BODIES CONTACT("law = \"rattle\"; k = 1e9; alpha = 1.5; h = -1e-3; "
                          AM1),
     "bad.cfg:8: contact 'hit': 'h' must be >= 0 (got -0.001)"},
    {SCENE BODIES CONTACT(POWER "scheme = \"quadratic\"; s = 0;"),
     "bad.cfg:8: contact 'hit': 's' must be > 0 (got 0)"},
    {SCENE BODIES CONTACT(POWER AM1 " tolerance = 1e-3;"),
     "bad.cfg:8: contact 'hit': 'tolerance' must be > 0 and < 0.001 (got "
     "0.001)"},
    {SCENE BODIES CONTACT(POWER AM1 " tolerance = 0.0;"),
     "bad.cfg:8: contact 'hit': 'tolerance' must be > 0 and < 0.001 (got 0)"},
    {SCENE BODIES CONTACT(POWER AM1 " max_iterations = 0;"),
     "bad.cfg:8: contact 'hit': 'max_iterations' must be between 1 and 1000 "
     "(got 0)"},
    {SCENE BODIES CONTACT(POWER AM1 " max_iterations = 1001;"),
     "bad.cfg:8: contact 'hit': 'max_iterations' must be between 1 and 1000 "
     "(got 1001)"},
    {SCENE BODIES "record = { every = 0; };\n",
     "bad.cfg:6: record: 'every' must be >= 1 (got 0)"},
    {SCENE BODIES "record = { every = -3; };\n",
     "bad.cfg:6: record: 'every' must be >= 1 (got -3)"},
    {"scene = { name = \"t\"; fs = 0; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: 'fs' must be > 0 (got 0)"},
    {"scene = { name = \"t\"; fs = 44100.0;\n"
     "          duration = -0.002; };\n" BODIES,
     "bad.cfg:2: scene: 'duration' must be > 0 (got -0.002)"},
    {"scene = { name = \"t\"; fs = 1000.0; duration = 1e-4; };\n" BODIES,
     "bad.cfg:1: scene: 'duration' * 'fs' must give at least one step (got "
     "0.1)"},
    {"scene = { name = \"t\"; fs = 1e9; duration = 1e7; };\n" BODIES,
     "bad.cfg:1: scene: 'duration' * 'fs' must give at most 1e+15 steps (got "
     "1e+16)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = -0.01; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': 'mass' must be > 0 (got -0.01)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = 0; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': 'mass' must be > 0 (got 0)"},
    /* 56: non-finite and overflowing numbers */
    {SCENE BODIES CONTACT("law = \"power\"; k = 1e400; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'k' must be finite (got inf)"},
    {"scene = { name = \"t\"; fs = 44100.0; duration = 0.002;\n"
     "  gravity = -1e999; };\n" BODIES,
     "bad.cfg:2: scene: 'gravity' must be finite (got -inf)"},
    {SCENE BODIES CONTACT("law = \"power\"; k = 5000000000; alpha = 1.5; " AM1),
     "bad.cfg:8: contact 'hit': 'k' = 5000000000 does not fit an integer "
     "(valid: write 5000000000.0 or use an exponent)"},
    {SCENE BODIES "record = { every = 4294967297; };\n",
     "bad.cfg:6: record: 'every' = 4294967297 does not fit an integer "
     "(valid: append L for a 64-bit integer)"},
    /* 60: names */
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"hammer\"; type = \"wall\"; }\n"
           ");\n",
     "bad.cfg:4: body 'hammer': duplicate body name (first defined at "
     "bad.cfg:3)"},
    {SCENE "bodies = (\n"
           "  { name = \"a\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"b\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"c\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"d\"; type = \"mass\"; mass = 0.01; }\n"
           ");\n"
           "contacts = (\n"
           "  { name = \"x\"; between = [\"a\", \"b\"]; " POWER AM1 " },\n"
           "  { name = \"x\"; between = [\"c\", \"d\"]; " POWER AM1 " }\n"
           ");\n",
     "bad.cfg:10: contact 'x': duplicate contact name (first defined at "
     "bad.cfg:9)"},
    {SCENE "bodies = (\n"
           "  { name = \"my hammer\"; type = \"mass\"; mass = 0.01; }\n"
           ");\n",
     "bad.cfg:3: body #1: invalid name 'my hammer' (valid: letters, digits, "
     "'_' and '-')"},
    {SCENE "bodies = (\n"
           "  { name = \"a/b\"; type = \"mass\"; mass = 0.01; }\n"
           ");\n",
     "bad.cfg:3: body #1: invalid name 'a/b' (valid: letters, digits, '_' "
     "and '-')"},
    {SCENE "bodies = (\n"
           "  { name = \"\"; type = \"mass\"; mass = 0.01; }\n"
           ");\n",
     "bad.cfg:3: body #1: 'name' must not be empty"},
    {SCENE "bodies = (\n"
           "  { name = \"a\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"x123456789x123456789x123456789x123456789x123456789"
           "x123456789wxyz\"; type = \"wall\"; }\n"
           ");\n",
     "bad.cfg:4: body #2: 'name' is too long (valid: at most 63 characters)"},
    {"scene = { name = \"\"; fs = 44100.0; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: scene: 'name' must not be empty"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit!\"; between = [\"hammer\", \"wall\"]; " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact #1: invalid name 'hit!' (valid: letters, digits, "
     "'_' and '-')"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"spring\"; }\n"
           ");\n",
     "bad.cfg:3: body 'hammer': unknown type 'spring' (valid: mass, wall, modal, oscillator)"},
    {SCENE "bodies = ();\n",
     "bad.cfg:2: bodies: at least one body is required"},
    /* 70: between */
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\"; between = [\"hammer\"];\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact 'hit': 'between' must name exactly two bodies (got "
     "1)"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\"; between = [\"hammer\", \"wall\", \"hammer\"];\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact 'hit': 'between' must name exactly two bodies (got "
     "3)"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\";\n"
     "    " POWER AM1 "\n"
     "    between = [\"hamer\", \"wall\"]; }\n"
     ");\n",
     "bad.cfg:9: contact 'hit': 'between' names unknown body 'hamer' (valid: "
     "hammer, wall)"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\"; between = \"hammer\";\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact 'hit': 'between' must be an array of two body names"},
    {SCENE BODIES
     "contacts = (\n"
     "  { name = \"hit\"; between = [\"hammer\", \"hammer\"];\n"
     "    " POWER AM1 " }\n"
     ");\n",
     "bad.cfg:7: contact 'hit': 'between' names body 'hammer' twice (valid: "
     "two different bodies)"},
    {SCENE "bodies = (\n"
           "  { name = \"w1\"; type = \"wall\"; },\n"
           "  { name = \"w2\"; type = \"wall\"; position = 1.0; }\n"
           ");\n"
           "contacts = (\n"
           "  { name = \"hit\"; between = [\"w1\", \"w2\"]; " POWER AM1 " }\n"
           ");\n",
     "bad.cfg:7: contact 'hit': 'between' joins two walls 'w1' and 'w2' "
     "(valid: at least one body of type 'mass', 'modal' or 'oscillator')"},
    {SCENE "bodies = (\n"
           "  { name = \"a\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"b\"; type = \"mass\"; mass = 0.01; },\n"
           "  { name = \"c\"; type = \"mass\"; mass = 0.01; }\n"
           ");\n"
           "contacts = (\n"
           "  { name = \"ab\"; between = [\"a\", \"b\"]; " POWER AM1 " },\n"
           "  { name = \"cb\"; between = [\"c\", \"b\"];\n"
           "    law = \"power\"; k = 1.0e8; alpha = 1.5; scheme = \"three-point\"; }\n"
           ");\n",
     "bad.cfg:9: contact 'cb': scheme 'three-point' cannot step body 'b' together "
     "with contact 'ab' (scheme 'am1') in one island (valid: one family per island: "
     "two-point/am1, three-point/quadratic, sav, moreau-jean, or a single explicit scheme)"},
    /* 77: top level and syntax */
    {SCENE BODIES "sweep = { k = [1.0e8, 1.0e9]; };\n",
     "bad.cfg:6: sweep: a sweep makes this file a study of several scenes "
     "(valid: load it with vb_study_load)"},
    {SCENE "bodies = (\n"
           "  { name = \"hammer\"; type = \"mass\"; mass = ; }\n"
           ");\n",
     "bad.cfg:3: syntax error: libconfig cannot parse this line (look for a missing value, ';' "
     "after a setting, ',' between list elements, or an unclosed '{', '(', '[' or '\"')"},
    {SCENE SCENE BODIES,
     "bad.cfg:2: syntax error: duplicate setting name"},
    {SCENE "@include \"scene-no-such-file.inc\"\n",
     "bad.cfg:2: @include 'scene-no-such-file.inc': cannot read "
     "'scene-no-such-file.inc': No such file or directory"},
    /* the oscillator body type */
#define OSC_KEYS "name, type, mass, freq, zeta, quality, t60, u0, v0"
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5;\n"
           "    k = 2.0e3; }\n"
           ");\n",
     "bad.cfg:4: body 'osc': 'k' applies only to type 'mass' (valid: " OSC_KEYS ")"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5;\n"
           "    loss = [1.0, 0.0]; }\n"
           ");\n",
     "bad.cfg:4: body 'osc': 'loss' applies only to type 'modal' (valid: " OSC_KEYS ")"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; }\n"
           ");\n",
     "bad.cfg:3: body 'osc': missing required key 'freq'"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 0.0; }\n"
           ");\n",
     "bad.cfg:3: body 'osc': 'freq' must be > 0 (a mass without a spring is type 'mass') (got 0)"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = -0.37; freq = 12.5; }\n"
           ");\n",
     "bad.cfg:3: body 'osc': 'mass' must be > 0 (got -0.37)"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5;\n"
           "    zeta = 0.02; quality = 25.0; }\n"
           ");\n",
     "bad.cfg:4: body 'osc': 'quality' and 'zeta' both give the damping "
     "(valid: one of quality, t60, zeta)"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5;\n"
           "    zeta = -0.02; }\n"
           ");\n",
     "bad.cfg:4: body 'osc': 'zeta' must be >= 0 (got -0.02)"},
    {SCENE "bodies = (\n"
           "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; },\n"
           "  { name = \"wall\"; type = \"wall\"; }\n"
           ");\n"
           "contacts = (\n"
           "  { name = \"hit\"; between = [\"osc.tip\", \"wall\"]; " POWER AM1 " }\n"
           ");\n",
     "bad.cfg:7: contact 'hit': 'between' names point 'tip' of oscillator 'osc', which has "
     "no points (valid: 'osc')"},
    /* literals libconfig would keep wrong in 32 bits (issue 19, item 4): hex
     * anywhere, a decimal array element */
    {"scene = { name = \"t\"; fs = 0x10000AC44; duration = 0.002; };\n" BODIES,
     "bad.cfg:1: integer literal 0x10000AC44 does not fit 32 bits, and libconfig would keep a "
     "wrong value (valid: append L for a 64-bit integer, or write a decimal number with a "
     "decimal point)"},
    {SCENE BODIES CONTACT("law = \"power\"; k = 0xFFFFFFFF; alpha = 1.5; " AM1),
     "bad.cfg:8: integer literal 0xFFFFFFFF does not fit 32 bits, and libconfig would keep a "
     "wrong value (valid: append L for a 64-bit integer, or write a decimal number with a "
     "decimal point)"},
    {SCENE BODIES "# a comment: 0x10000AC44, \"5000000000\"\nrecord = { every = 4; };\n"
                  "extra = [1, -5000000000];\n",
     "bad.cfg:8: integer literal -5000000000 does not fit 32 bits, and libconfig would keep a "
     "wrong value (valid: append L for a 64-bit integer, or write a decimal number with a "
     "decimal point)"},
    /* parameters that make the analytic predictions non-finite */
    {SCENE BODIES CONTACT("law = \"power\"; k = 4.9e-324; alpha = 1.5; " AM1),
     "bad.cfg:7: contact 'hit': k = 4.94065645841247e-324, alpha = 1.5 give non-finite "
     "analytic predictions (x_max inf m, v_out -1 m/s, contact time inf s at an impact of 1 m/s, "
     "effective mass 0.01 kg) (valid: law parameters of normal size, whose predictions are "
     "finite)"},
    {SCENE BODIES CONTACT("law = \"hunt-crossley\"; k = 1e9; alpha = 1e308; mu = 0.5; " AM1),
     "bad.cfg:7: contact 'hit': k = 1000000000, alpha = 1e+308, mu = 0.5 give non-finite "
     "analytic predictions (x_max 1 m, v_out -0.748435 m/s, contact time inf s at an impact "
     "of 1 m/s, effective mass 0.01 kg) (valid: law parameters of normal size, whose "
     "predictions are finite)"},
};

/* Replace the placeholders of an expected message. */
static void expand(const char *pattern, char *out, size_t size)
{
  const char *p = pattern;
  size_t n = 0;

  out[0] = '\0';
  while (*p != '\0' && n + 1 < size) {
    if (strncmp(p, "@SCHEMES@", 9) == 0) {
      n += (size_t)snprintf(out + n, size - n, "%s", vb_scheme_choices());
      p += 9;
    } else if (strncmp(p, "@LAWS@", 6) == 0) {
      n += (size_t)snprintf(out + n, size - n, "%s", vb_law_choices());
      p += 6;
    } else {
      out[n++] = *p++;
      out[n] = '\0';
    }
  }
}

/* Each bad scene fails with VB_EINVAL, *out NULL and its exact message. */
START_TEST(test_bad_scene)
{
  vb_scene *sc = (vb_scene *)&sc;
  char err[2048] = "", expected[2048];
  int rc = vb_scene_load_string(bad[_i].text, "bad.cfg", &sc, err, sizeof err);

  expand(bad[_i].message, expected, sizeof expected);
  ck_assert_msg(rc == VB_EINVAL, "case %d: status %d, message %s", _i, rc, err);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strcmp(err, expected) == 0,
                "case %d:\n  got      %s\n  expected %s", _i, err, expected);
}
END_TEST

/* A missing file is VB_EIO with the system's reason. */
START_TEST(test_missing_file)
{
  vb_scene *sc = (vb_scene *)&sc;
  char err[1024], expected[1024];
  int rc = vb_scene_load(DATA "scene-no-such-file.cfg", &sc, err, sizeof err);

  snprintf(expected, sizeof expected,
           "%s: cannot read scene file: %s", DATA "scene-no-such-file.cfg",
           strerror(ENOENT));
  ck_assert_int_eq(rc, VB_EIO);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, expected);
  rc = vb_scene_load(DATA, &sc, err, sizeof err);
  snprintf(expected, sizeof expected, "%s: cannot read scene file: %s", DATA,
           strerror(EISDIR));
  ck_assert_int_eq(rc, VB_EIO);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, expected);
}
END_TEST

/* Errors inside an included file name that file and its line. */
START_TEST(test_error_in_include)
{
  vb_scene *sc = (vb_scene *)&sc;
  char err[1024];
  int rc = vb_scene_load(DATA "scene-include-bad.cfg", &sc, err, sizeof err);

  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, DATA "scene-include-bad-bodies.inc:3: body 'ball': "
                             "unknown key 'mas' (valid: name, type, mass, u0, "
                             "v0, k, c, w0, vw0, kw, cw, radius, inertia, spin0)");
  sc = (vb_scene *)&sc;
  rc = vb_scene_load_string(
      "scene = { name = \"s\"; fs = 1.0; duration = 1.0; };\n"
      "@include \"scene-include-bigint.inc\"\n",
      DATA "virtual.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, DATA "scene-include-bigint.inc:3: body 'ball': 'mass' "
                             "= 3000000000 does not fit an integer (valid: "
                             "write 3000000000.0 or use an exponent)");
}
END_TEST

/* A scratch directory for the tests that need files; removed by rm_tree. */
static void make_dir(char *dir)
{
  strcpy(dir, "/tmp/check_scene_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Write n bytes of text to dir/name (n = -1: strlen). */
static void put_file(const char *dir, const char *name, const char *text, long n)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(text, 1, n < 0 ? strlen(text) : (size_t)n, f);
  fclose(f);
}

/* Load dir/name, which must fail with VB_EINVAL and the message `want`
 * (with "DIR" standing for dir). */
static void load_fails(const char *dir, const char *name, const char *want)
{
  char path[512], err[2048], expected[2048];
  vb_scene *sc = NULL;
  const char *d = strstr(want, "DIR");
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = vb_scene_load(path, &sc, err, sizeof err);
  ck_assert_msg(rc == VB_EINVAL, "%s: rc %d (%s)", name, rc, err);
  ck_assert_ptr_null(sc);
  expected[0] = '\0';
  for (const char *w = want; *w;) {
    if (d == w) {
      strcat(expected, dir);
      w += 3;
      d = strstr(w, "DIR");
    } else {
      strncat(expected, w, 1);
      w++;
    }
  }
  ck_assert_str_eq(err, expected);
}

/* Remove the scratch directory and what the tests put there. */
static void rm_tree(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Issue 10: an @include of a directory, of an empty name, of a missing
 * file, of a device or in a cycle is a file:line error, found before
 * libconfig's scanner sees it (which exits the process on the first two
 * and reads a device forever). */
START_TEST(test_include_robust)
{
  char dir[64], sub[128];
  make_dir(dir);
  snprintf(sub, sizeof sub, "%s/inc", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  put_file(dir, "dir.cfg", SCENE "@include \"inc\"\n", -1);
  load_fails(dir, "dir.cfg", "DIR/dir.cfg:2: @include 'inc': 'DIR/inc' is a directory "
                             "(valid: a scene file)");
  put_file(dir, "empty.cfg", SCENE "\n  @include \"\"\n", -1);
  load_fails(dir, "empty.cfg", "DIR/empty.cfg:3: @include \"\": empty file name (valid: the "
                               "name of a scene file)");
  put_file(dir, "missing.cfg", SCENE "@include \"nope.inc\"\n", -1);
  load_fails(dir, "missing.cfg", "DIR/missing.cfg:2: @include 'nope.inc': cannot read "
                                 "'DIR/nope.inc': No such file or directory");
  put_file(dir, "self.cfg", SCENE "@include \"self.cfg\"\n", -1);
  load_fails(dir, "self.cfg", "DIR/self.cfg:2: @include 'self.cfg': 'DIR/self.cfg' "
                              "includes itself (valid: includes that do not form a cycle)");
  /* a -> b -> a: reported where b includes a */
  put_file(dir, "a.cfg", SCENE "@include \"b.inc\"\n", -1);
  put_file(dir, "b.inc", "# b\n\n@include \"a.cfg\"\n", -1);
  load_fails(dir, "a.cfg", "DIR/b.inc:3: @include 'a.cfg': 'DIR/a.cfg' includes itself "
                           "(valid: includes that do not form a cycle)");
  put_file(dir, "dev.cfg", SCENE "@include \"/dev/zero\"\n", -1);
  load_fails(dir, "dev.cfg", "DIR/dev.cfg:2: @include '/dev/zero': '/dev/zero' is not a "
                             "regular file (valid: a scene file)");
  put_file(dir, "bin.inc", "bodies = ();\n\0\0", 15);
  put_file(dir, "bin.cfg", SCENE "@include \"bin.inc\"\n", -1);
  load_fails(dir, "bin.cfg", "DIR/bin.cfg:2: @include 'bin.inc': binary content (a NUL "
                             "byte) in 'DIR/bin.inc'");
  /* a commented-out include is not looked at; a good one still loads */
  put_file(dir, "bodies.inc", "bodies = ( { name = \"m\"; type = \"mass\"; mass = 1.0; } );\n",
           -1);
  put_file(dir, "ok.cfg", SCENE "/* @include \"nope.inc\"\n @include \"inc\" */\n"
                          "@include \"bodies.inc\"\n", -1);
  char path[512], err[1024];
  vb_scene *sc = NULL;
  snprintf(path, sizeof path, "%s/ok.cfg", dir);
  ck_assert_msg(vb_scene_load(path, &sc, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(sc->nbodies, 1);
  vb_scene_free(sc);
  rm_tree(dir);
}
END_TEST

/* Issue 10: data files hold text: a profile of NUL bytes (/dev/zero hung
 * the loader, NUL reading as a blank line) or with a NUL inside is refused
 * with its file:line, and so is a CSV modes file. */
START_TEST(test_data_files_binary)
{
  char dir[64];
  make_dir(dir);
#define WALL_PROFILE(file)                                                               \
  SCENE "bodies = (\n"                                                                   \
  "  { name = \"m\"; type = \"mass\"; mass = 0.01; },\n"                                 \
  "  { name = \"w\"; type = \"wall\"; drive = { type = \"profile\"; file = \"" file "\";\n" \
  "    speed = 1.0; spacing = 0.001; }; } );\n"
  put_file(dir, "zero.cfg", WALL_PROFILE("/dev/zero"), -1);
  /* issue 32: a device is not read at all (nor a FIFO, which would block) */
  load_fails(dir, "zero.cfg", "DIR/zero.cfg:4: body 'w' drive: profile '/dev/zero' is not a "
                              "regular file (valid: a text file, one number per line)");
  put_file(dir, "p.txt", "0.0\n1e-4\n# c\n2e-4\n\0003e-4\n", 24);
  put_file(dir, "nul.cfg", WALL_PROFILE("p.txt"), -1);
  load_fails(dir, "nul.cfg", "DIR/nul.cfg:4: body 'w' drive: profile 'DIR/p.txt' line 5: "
                             "binary content (a NUL byte; valid: one number per line)");
  put_file(dir, "q.txt", "0.0\n1e-4\n2e-4\n3e-4\n", -1);
  put_file(dir, "good.cfg", WALL_PROFILE("q.txt"), -1);
  char path[512], err[1024];
  vb_scene *sc = NULL;
  snprintf(path, sizeof path, "%s/good.cfg", dir);
  ck_assert_msg(vb_scene_load(path, &sc, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(sc->bodies[1].drive.nsamples, 4);
  ck_assert_double_eq(sc->bodies[1].drive.samples[3], 3e-4);
  vb_scene_free(sc);
  put_file(dir, "modes.csv", "freq,mass,p\n100,0.1,1\n\0", 24);
  put_file(dir, "csv.cfg", SCENE "bodies = ( { name = \"b\"; type = \"modal\";\n"
                           "  modes_file = \"modes.csv\"; } );\n", -1);
  load_fails(dir, "csv.cfg", "DIR/csv.cfg:3: body 'b': DIR/modes.csv: not a text file (it "
                             "holds a NUL byte)");
  put_file(dir, "zcsv.cfg", SCENE "bodies = ( { name = \"b\"; type = \"modal\";\n"
                            "  modes_file = \"/dev/zero\"; } );\n", -1);
  load_fails(dir, "zcsv.cfg", "DIR/zcsv.cfg:3: body 'b': '/dev/zero' is not a regular file "
                              "(valid: a CSV modes file)");
#undef WALL_PROFILE
  rm_tree(dir);
}
END_TEST

/* A NUL byte inside a file is refused rather than silently cut. */
START_TEST(test_nul_byte)
{
  static const char path[] = "/tmp/check_scene_nul.cfg";
  static const char text[] = SCENE "\0bodies = ();\n";
  vb_scene *sc = (vb_scene *)&sc;
  char err[1024];
  FILE *f = fopen(path, "wb");
  int rc;

  ck_assert_ptr_nonnull(f);
  fwrite(text, 1, sizeof text - 1, f);
  fclose(f);
  rc = vb_scene_load(path, &sc, err, sizeof err);
  remove(path);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_str_eq(err, "/tmp/check_scene_nul.cfg:2: syntax error: NUL byte "
                        "in the scene file");
}
END_TEST

/* The suite: core loading, limits of the values, and error messages. */
/* vb_scene_approach_rates (one island build for every contact, what
 * vibro check uses) equals vb_scene_approach_rate contact by contact (a
 * build each) on random scenes: masses and modal-free oscillators in
 * chains and on walls, with gravity, random gaps and velocities. */
/* A uniform number in [0, 1) from a 64-bit LCG state. */
static double uniform(unsigned long *x)
{
  *x = *x * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*x >> 11) / 9007199254740992.0;
}

START_TEST(test_approach_rates_match)
{
  unsigned long x = 12345;
#define RND() uniform(&x)
  for (int trial = 0; trial < 20; trial++) {
    int n = 2 + (int)(RND() * 40);
    size_t size = 512 + (size_t)n * 400, used = 0;
    char *t = malloc(size);
    ck_assert_ptr_nonnull(t);
    used += (size_t)snprintf(t, size, "scene = { name = \"r\"; fs = 44100.0; duration = 0.001; "
                                      "gravity = %.6g; };\nbodies = ( { name = \"w\"; type = \"wall\"; }",
                             RND() < 0.5 ? 0.0 : 9.81);
    for (int i = 0; i < n; i++)
      used += (size_t)snprintf(t + used, size - used,
                               ",\n { name = \"m%d\"; type = \"mass\"; mass = %.6g; u0 = %.6g; "
                               "v0 = %.6g; }",
                               i, 0.001 + RND(), (RND() - 0.5) * 1e-2, (RND() - 0.5) * 4.0);
    used += (size_t)snprintf(t + used, size - used, " );\ncontacts = (");
    for (int i = 0; i < n; i++) {
      /* to the wall, or (a chain) to the mass before it */
      int other = i > 0 && RND() < 0.5 ? i - 1 : -1;
      char b[16];
      snprintf(b, sizeof b, other < 0 ? "w" : "m%d", other);
      used += (size_t)snprintf(t + used, size - used,
                               "%s\n { name = \"c%d\"; between = [\"m%d\", \"%s\"]; law = \"power\"; "
                               "k = 1e8; alpha = 1.5; gap = %.6g; scheme = \"two-point\"; }",
                               i ? "," : "", i, i, b, RND() * 1e-3);
    }
    snprintf(t + used, size - used, " );\n");
    vb_scene *sc = load_ok(t);
    double *rate = malloc((size_t)n * sizeof *rate), *meff = malloc((size_t)n * sizeof *meff);
    ck_assert(rate && meff);
    vb_scene_approach_rates(sc, rate, meff);
    for (int c = 0; c < n; c++) {
      double m, r = vb_scene_approach_rate(sc, c, &m);
      ck_assert_msg(r == rate[c] && m == meff[c], "trial %d contact %d: %g/%g against %g/%g",
                    trial, c, rate[c], meff[c], r, m);
    }
    free(rate);
    free(meff);
    vb_scene_free(sc);
    free(t);
  }
#undef RND
}
END_TEST

/* One island that cannot be solved through its modes may hold at most 8192
 * contacts (a dense compliance of 8 N^2 bytes): 8192 quadratic contacts
 * on one mass load, 8193 are refused at the contact past the cap, with
 * the line it is on and why (quadratic's closed form); 8193 two-point
 * ones load (their island solved through its mode, solvers/lowrank.c). */
START_TEST(test_island_contacts_cap)
{
  for (int k = 0; k < 3; k++) {
    int n = k == 0 ? 8192 : 8193;
    const char *scheme = k < 2 ? "quadratic" : "two-point";
    size_t size = 512 + (size_t)n * 200, used = 0;
    char *t = malloc(size), err[1024];
    vb_scene *sc = NULL;
    ck_assert_ptr_nonnull(t);
    used += (size_t)snprintf(t, size, "scene = { name = \"cap\"; fs = 44100.0; duration = 0.001; };\n"
                                      "bodies = ( { name = \"m\"; type = \"mass\"; mass = 0.01; v0 = -1.0; }");
    for (int i = 0; i < n; i++)
      used += (size_t)snprintf(t + used, size - used,
                               ",\n { name = \"w%d\"; type = \"wall\"; position = -1e-3; }", i);
    used += (size_t)snprintf(t + used, size - used, " );\ncontacts = (");
    for (int i = 0; i < n; i++)
      used += (size_t)snprintf(t + used, size - used,
                               "%s\n { name = \"c%05d\"; between = [\"m\", \"w%d\"]; law = \"power\"; "
                               "k = 1e8; alpha = 1.5; scheme = \"%s\"; }",
                               i ? "," : "", i, i, scheme);
    snprintf(t + used, size - used, " );\n");
    int rc = vb_scene_load_string(t, "cap.cfg", &sc, err, sizeof err);
    if (k != 1) {
      ck_assert_msg(rc == VB_OK, "%s", err);
    } else {
      ck_assert_int_eq(rc, VB_EINVAL);
      ck_assert_str_eq(err, "cap.cfg:16389: contact 'c08192': the island of body 'm' (the bodies its "
                            "contacts join) has 8193 contacts, more than the 8192 one island may "
                            "have where it cannot be solved through its modes (contact 'c00000': "
                            "its scheme has a closed form (solved by Gauss-Seidel over the dense "
                            "compliance)): its dense compliance would take 0.5 GiB (valid: at most "
                            "8192 contacts on the bodies of such an island; up to 1048576 for the "
                            "K-method, two-point or three-point, without friction, a tangential "
                            "direction, clearances, moving points or a closed-form scheme)");
    }
    vb_scene_free(sc);
    free(t);
  }
}
END_TEST


/* The name index against a linear search on random lists: lookups of
 * present and absent names give the lowest index, and the first duplicate
 * is the lowest element with an earlier namesake (the one a loader
 * reading in order meets first). */
START_TEST(test_names_index_random)
{
  unsigned long x = 99;
  for (int trial = 0; trial < 200; trial++) {
    int n = (int)(uniform(&x) * 300), alphabet = 2 + (int)(uniform(&x) * 400);
    char (*names)[8] = malloc(((size_t)n + 1) * sizeof *names);
    vb_names ix;
    ck_assert_ptr_nonnull(names);
    for (int i = 0; i < n; i++)
      snprintf(names[i], sizeof names[i], "n%d", (int)(uniform(&x) * alphabet));
    ck_assert_int_eq(vb_names_build(&ix, names, sizeof names[0], n), VB_OK);
    for (int q = 0; q < 50; q++) {
      char probe[8];
      int want = -1;
      snprintf(probe, sizeof probe, "n%d", (int)(uniform(&x) * (alphabet + 10)));
      for (int i = 0; i < n && want < 0; i++)
        if (strcmp(names[i], probe) == 0)
          want = i;
      ck_assert_int_eq(vb_names_find(&ix, probe), want);
    }
    int at = -1, first = -1, got_first = -1;
    for (int i = 0; i < n && at < 0; i++)
      for (int j = 0; j < i && at < 0; j++)
        if (strcmp(names[i], names[j]) == 0)
          at = i, first = j;
    ck_assert_int_eq(vb_names_duplicate(&ix, &got_first), at);
    if (at >= 0)
      ck_assert_int_eq(got_first, first);
    vb_names_free(&ix);
    free(names);
  }
}
END_TEST

/* The literal scan against strtoll/strtoull on random integer literals in
 * the three places they can stand (a named scalar, a list element, an
 * array element), with comments and strings around: it refuses exactly
 * the hex literals anywhere and the decimal elements beyond 32 bits
 * (named decimal scalars are left to the key's own check). */
START_TEST(test_literal_scan_random)
{
  unsigned long x = 7;
  for (int trial = 0; trial < 2000; trial++) {
    char lit[40], text[256], err[512];
    int hex = uniform(&x) < 0.5, place = (int)(uniform(&x) * 3), l = uniform(&x) < 0.1;
    unsigned long long v = (unsigned long long)(uniform(&x) * 9.3e9) >> (int)(uniform(&x) * 34);
    int neg = !hex && uniform(&x) < 0.3;
    if (hex)
      snprintf(lit, sizeof lit, "0x%llX%s", v, l ? "L" : "");
    else
      snprintf(lit, sizeof lit, "%s%llu%s", neg ? "-" : "", v, l ? "L" : "");
    static const char *const shapes[] = {"a = { k = %s; };\n", "a = ( 1, %s );\n",
                                         "a = [ 1, %s ];\n"};
    char body[128];
    snprintf(body, sizeof body, shapes[place], lit);
    snprintf(text, sizeof text, "# 0x10000AC44 in a comment\ns = \"5000000000\";\n%s", body);
    long long sv = neg ? -(long long)v : (long long)v;
    int wide = hex ? v > 2147483647ULL : (sv > 2147483647LL || sv < -2147483648LL);
    int refused_want = !l && wide && (hex || place > 0);
    int rc = vb_src_check_literals(text, "r.cfg", err, sizeof err);
    ck_assert_msg((rc != VB_OK) == refused_want, "%s: got %d (%s)", body, rc, rc ? err : "");
    if (refused_want) {
      char want[128];
      snprintf(want, sizeof want, "r.cfg:3: integer literal %s does not fit", lit);
      ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s against %s", err, want);
    }
  }
}
END_TEST

/* A text that ends in a name: the scan stops at its end.  It read on past
 * the terminating NUL (strchr finds the NUL in any set), which the smoke
 * fuzz caught as a heap overflow; here the bytes after the NUL hold a
 * literal it would refuse. */
START_TEST(test_literal_scan_stops_at_end)
{
  static const char *const ends[] = {"word", "x_", "y*", "z-", "q@"};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    char buf[128], err[512];
    int n = snprintf(buf, sizeof buf, "a = 1;\n%s", ends[i]);
    memcpy(buf + n + 1, " = [ 0x10000AC44 ];", 20);
    ck_assert_msg(vb_src_check_literals(buf, "end.cfg", err, sizeof err) == VB_OK, "%s: %s",
                  ends[i], err);
  }
}
END_TEST

static Suite *scene_suite(void)
{
  Suite *s = suite_create("scene");
  TCase *core = tcase_create("core");
  TCase *limits = tcase_create("limits");
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(core, 60);
  tcase_set_timeout(limits, 60);
  tcase_set_timeout(errors, 60);

  tcase_add_test(core, test_good_fields);
  tcase_add_test(core, test_literal_scan_stops_at_end);
  tcase_add_test(core, test_defaults);
  tcase_add_test(core, test_restitution_laws);
  tcase_add_test(core, test_oscillator);
  tcase_add_test(core, test_body_types);
  tcase_add_test(core, test_include_robust);
  tcase_add_test(core, test_data_files_binary);
  tcase_add_test(core, test_integers_as_reals_values);
  tcase_add_test(core, test_include_file);
  tcase_add_test(core, test_include_string);
  tcase_add_test(core, test_every_scheme);
  tcase_add_test(core, test_no_contacts);
  suite_add_tcase(s, core);

  tcase_add_test(limits, test_edges);
  tcase_add_test(limits, test_long_names);
  tcase_add_test(limits, test_steps);
  tcase_add_test(limits, test_truncation);
  tcase_add_test(limits, test_long_list);
  tcase_add_test(limits, test_approach_rates_match);
  tcase_add_test(limits, test_island_contacts_cap);
  tcase_add_test(limits, test_names_index_random);
  tcase_add_test(limits, test_literal_scan_random);
  suite_add_tcase(s, limits);

  tcase_add_loop_test(errors, test_bad_scene, 0,
                      (int)(sizeof bad / sizeof *bad));
  tcase_add_test(errors, test_missing_file);
  tcase_add_test(errors, test_error_in_include);
  tcase_add_test(errors, test_nul_byte);
  suite_add_tcase(s, errors);
  return s;
}

/* Run the suite; non-zero exit status on any failure. */
int main(void)
{
  SRunner *sr = srunner_create(scene_suite());
  int failed;

  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
