/* bridge_scene.h - the tanpura-like scene of scenes/make-tanpura-bridge.py
 * as text, for any number of modes, bridge points and duration (the
 * regression tests of check_kmethod.c and tests/bench/bench_kmethod.c).
 *
 * A plucked lossless string (1 m, 40 N, 1 g/m: f1 = 100 Hz; 1 mm at 0.3 m)
 * on a 2 cm parabolic bridge from 5 to 25 mm, apex 10 um below the string
 * at 15 mm, curvature 0.5 /m; n points evenly spaced on it, each a power
 * law (k = 1e9 N/m^1.5, alpha 1.5) stepped by `scheme`; a pickup at 0.7 m,
 * recording the pickup and the energies.  `extra` (may be "") is added to
 * every contact block, e.g. "max_iterations = 1000;". */
#ifndef VIBRO_BRIDGE_SCENE_H
#define VIBRO_BRIDGE_SCENE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The scene text (malloc'd; NULL when out of memory). */
static inline char *
bridge_scene(int modes, int points, double duration, const char *scheme, const char *extra)
{
  const double L = 1.0, T = 40.0, MU = 1.0e-3, A = 1.0e-3, XP = 0.3;
  const double X0 = 0.005, X1 = 0.025, XC = 0.015, DEPTH = 1.0e-5, CURVE = 0.5;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  fprintf(f,
          "scene = { name = \"tanpura-bridge\"; fs = 44100.0; duration = %.17g; gravity = 0.0; "
          "};\nbodies = (\n  { name = \"bridge\"; type = \"wall\"; },\n"
          "  { name = \"string\"; type = \"modal\";\n"
          "    preset = { kind = \"string\"; nmodes = %d; length = %g; tension = %g; "
          "linear_density = %g; };\n    q0 = [",
          duration, modes, L, T, MU);
  for (int n = 1; n <= modes; n++)
    fprintf(f, "%s%.17g", n > 1 ? ", " : "",
            2 * A * L * L * sin(n * M_PI * XP / L) / (n * n * M_PI * M_PI * XP * (L - XP)));
  fprintf(f, "];\n    points = (\n");
  for (int i = 0; i < points; i++)
    fprintf(f, "      { name = \"p%d\"; x = %.17g; },\n", i,
            points > 1 ? X0 + (X1 - X0) * i / (points - 1) : XC);
  fprintf(f, "      { name = \"pickup\"; x = 0.7; } ); } );\ncontacts = (\n");
  for (int i = 0; i < points; i++) {
    double x = points > 1 ? X0 + (X1 - X0) * i / (points - 1) : XC;
    fprintf(f,
            "  { name = \"b%d\"; between = [\"bridge\", \"string.p%d\"]; law = \"power\"; "
            "k = 1.0e9; alpha = 1.5; gap = %.17g; scheme = \"%s\"; %s }%s\n",
            i, i, DEPTH + CURVE * (x - XC) * (x - XC), scheme, extra, i + 1 < points ? "," : "");
  }
  fprintf(f, ");\nrecord = { signals = [\"bodies/string/pickup/*\", \"energy/*\"]; };\n");
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

#endif
