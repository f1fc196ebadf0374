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

/* What `vibro check` computes of a loaded scene: every contact's start
 * from one search of the modes' free response (vb_scene_contact_states,
 * as tools/cmd_check.c), and the one-contact queries of the first and the
 * last contact (not of each: each is a search of its own, and 64 of them
 * on the tanpura took more than the 20 s a run may take here). */
static void
inspect(const vb_scene *sc)
{
  volatile double sink = (double)vb_scene_steps(sc) + vb_scene_record_bytes(sc);
  vb_contact_start *s = calloc((size_t)sc->ncontacts + 1, sizeof *s);
  if (s != NULL) {
    vb_scene_contact_states(sc, s);
    for (int c = 0; c < sc->ncontacts; c++)
      sink += s[c].rate + s[c].t_on + s[c].meff;
    free(s);
  }
  for (int c = 0; c < sc->ncontacts && c < 64; c++)
    sink += vb_scene_contact_mass(sc, c);
  int ends[2] = {0, sc->ncontacts - 1};
  for (int e = 0; e < (sc->ncontacts > 1 ? 2 : sc->ncontacts); e++) {
    double meff;
    sink += vb_scene_approach_rate(sc, ends[e], &meff);
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
