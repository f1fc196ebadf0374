/* fuzz_scene.c - libFuzzer target for the scene loader and the sweep
 * expansion (issue 10 item 3).  Built by ./configure --enable-fuzz (clang);
 * how to run it: tests/fuzz/README.md.
 *
 * Each input is a scene or study file's text.  It is loaded as a study
 * (every scene of the sweep validated), its first and last scenes built,
 * their contacts' effective masses and approach rates computed (what
 * `vibro check` prints), and loaded again as a plain scene.  Any crash,
 * sanitizer report, leak or exit is a bug; bad input must only give a
 * message.  Paths in messages and @include resolve against the current
 * directory, so run it from the source tree to let @include reach scenes/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vibro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What `vibro check` computes of a loaded scene. */
static void
inspect(const vb_scene *sc)
{
  volatile double sink = (double)vb_scene_steps(sc) + vb_scene_record_bytes(sc);
  for (int c = 0; c < sc->ncontacts && c < 64; c++) {
    double meff;
    sink += vb_scene_contact_mass(sc, c);
    sink += vb_scene_approach_rate(sc, c, &meff);
  }
  (void)sink;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[2048];
  if (size > 1 << 16)
    return 0;
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';

  vb_study *st = NULL;
  if (vb_study_load_string(text, "fuzz.cfg", &st, err, sizeof err) == VB_OK) {
    long n = vb_study_scenes(st);
    volatile double sink = 0.0;
    for (int p = 0; p < vb_study_nparams(st); p++)
      sink += vb_study_value(st, 0, p) + vb_study_value(st, n - 1, p)
              + (double)strlen(vb_study_param(st, p));
    sink += (double)strlen(vb_study_sweep(st)) + (double)strlen(vb_study_mode(st));
    (void)sink;
    inspect(vb_study_first(st));
    long ends[2] = { 0, n - 1 };
    for (int i = 0; i < (n > 1 ? 2 : 1); i++) {
      vb_scene *sc = NULL;
      if (vb_study_scene(st, ends[i], &sc, err, sizeof err) == VB_OK)
        inspect(sc);
      vb_scene_free(sc);
    }
    vb_study_free(st);
  }

  vb_scene *sc = NULL;
  if (vb_scene_load_string(text, "fuzz.cfg", &sc, err, sizeof err) == VB_OK)
    inspect(sc);
  vb_scene_free(sc);
  free(text);
  return 0;
}
