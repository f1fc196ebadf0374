/* ringdown_scene.h - a hammer strikes a modal object whose modes ring down
 * at very different rates (issue 33 item 1): nm modes from 60 Hz to 21 kHz,
 * t60 from 3 s down to 0.075 s (geometric), 44.1 kHz, am1.  After a few
 * seconds the high modes, and before them their energy products, are
 * subnormal numbers.  Shared by tests/check_fpenv.c and
 * tests/bench/bench_ringdown.c. */
#ifndef VIBRO_RINGDOWN_SCENE_H
#define VIBRO_RINGDOWN_SCENE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append printf-style text to a growing string. */
static void
ringdown_cat(char **s, size_t *n, size_t *cap, const char *piece)
{
  size_t k = strlen(piece);
  if (*n + k + 1 > *cap) {
    *cap = 2 * (*cap + k + 1);
    *s = realloc(*s, *cap);
  }
  memcpy(*s + *n, piece, k + 1);
  *n += k;
}

/* Scene text of the ring-down (nm >= 2 modes, `duration` s), its record
 * block `record` (e.g. "every = 1; modes = true;"); the
 * caller frees it. */
static char *
ringdown_scene(int nm, double duration, const char *record)
{
  char *s = NULL, buf[512];
  size_t n = 0, cap = 0;
  snprintf(buf, sizeof buf,
           "scene = { name = \"ringdown\"; fs = 44100.0; duration = %.17g; gravity = 0.0; };\n"
           "bodies = (\n  { name = \"bar\"; type = \"modal\"; mass = 0.05;\n    freq = [",
           duration);
  ringdown_cat(&s, &n, &cap, buf);
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.17e", j ? ", " : "",
             60.0 + (21000.0 - 60.0) * pow((double)j / nm, 1.5));
    ringdown_cat(&s, &n, &cap, buf);
  }
  ringdown_cat(&s, &n, &cap, "];\n    t60 = [");
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.17e", j ? ", " : "", 3.0 * pow(0.075 / 3.0, (double)j / (nm - 1)));
    ringdown_cat(&s, &n, &cap, buf);
  }
  ringdown_cat(&s, &n, &cap, "];\n    points = ( { name = \"strike\"; shape = [");
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.17e", j ? ", " : "", cos(0.37 * j + 0.1));
    ringdown_cat(&s, &n, &cap, buf);
  }
  ringdown_cat(&s, &n, &cap, "]; },\n      { name = \"pickup\"; shape = [");
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.17e", j ? ", " : "", sin(0.91 * j + 0.4));
    ringdown_cat(&s, &n, &cap, buf);
  }
  snprintf(buf, sizeof buf,
           "]; } ); },\n  { name = \"hammer\"; type = \"mass\"; mass = 0.01; u0 = 0.002; "
           "v0 = -1.0; }\n);\n"
           "contacts = ( { name = \"hit\"; between = [\"bar.strike\", \"hammer\"]; "
           "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; } );\n"
           "record = { %s };\n",
           record);
  ringdown_cat(&s, &n, &cap, buf);
  return s;
}

#endif
