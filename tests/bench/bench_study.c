/* bench_study.c - a 512-scene bouncing study (a 50 g mass dropped under
 * gravity on a Hunt-Crossley floor, 0.2 s each at fs = 882 kHz, recorded
 * at 44.1 kHz, swept over drop height and stiffness) run with 1 and 2
 * threads: scenes/s, the speed-up, and the time spent writing.  On Linux
 * it also prints the time the threads waited for a CPU (other programs
 * running): a speed-up measured on a busy machine says little.  Not a
 * test: run it with `make bench`.
 * Usage: bench_study [RECORD_EVERY [FS]] (default 20, 882000). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vibro.h"
#include "bench_util.h"

static const char study_fmt[] =
  "scene = { name = \"bounce\"; fs = %.17g; duration = 0.2; gravity = 9.81; };\n"
  "bodies = ( { name = \"ball\"; type = \"mass\"; mass = 0.05; u0 = 0.05; v0 = 0.0; },\n"
  "           { name = \"floor\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"bounce\"; between = [\"ball\", \"floor\"]; law = \"hunt-crossley\";\n"
  "               k = 1.0e7; alpha = 1.5; mu = 0.3; scheme = \"am1\"; } );\n"
  "record = { every = %ld; };\n"
  "sweep = { mode = \"grid\"; params = (\n"
  "  { path = \"bodies.ball.u0\"; linspace = [0.005, 0.05]; n = 32; },\n"
  "  { path = \"contacts.bounce.k\"; logspace = [1.0e6, 1.0e8]; n = 16; } ); };\n";

int main(int argc, char **argv)
{
  char text[2048], err[1024], out[256];
  long every = argc > 1 ? atol(argv[1]) : 20;
  double fs = argc > 2 ? atof(argv[2]) : 882000.0;
  vb_study *st;
  vb_study_report rep[2];
  double waited;
  int t;

  snprintf(text, sizeof text, study_fmt, fs, every < 1 ? 1 : every);
  if (vb_study_load_string(text, "bench-study.cfg", &st, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  snprintf(out, sizeof out, "bench-study-%ld.h5", (long)getpid());
  printf("bench_study: %ld scenes of %.3g s at %g Hz, record.every %ld\n",
         vb_study_scenes(st), vb_study_first(st)->duration, vb_study_first(st)->fs, every);
  /* each configuration three times, alternating, so that a noisy moment
   * of the machine hits both: the best time is the estimate, the spread
   * is printed too */
  double best[2] = { 1e300, 1e300 }, worst[2] = { 0.0, 0.0 }, wbest[2] = { 0.0, 0.0 };
  long ran = 0;
  for (int rep_i = 0; rep_i < 3; rep_i++)
    for (t = 0; t < 2; t++) {
      vb_study_options opt = { .threads = t + 1, .nranks = 1 };

      waited = cpu_wait();
      if (vb_study_run(st, out, &opt, &rep[t], err, sizeof err) != VB_OK) {
        fprintf(stderr, "%s\n", err);
        remove(out);
        vb_study_free(st);
        return 1;
      }
      waited = cpu_wait() - waited;
      ran = rep[t].ran;
      if (rep[t].seconds < best[t]) {
        best[t] = rep[t].seconds;
        wbest[t] = rep[t].write_seconds;
      }
      if (rep[t].seconds > worst[t])
        worst[t] = rep[t].seconds;
      if (waited > 0.05 * rep[t].seconds)
        printf("  (run %d, %d thread%s: the threads waited %.3f s for a CPU: the machine is "
               "busy)\n", rep_i + 1, t + 1, t ? "s" : "", waited);
    }
  for (t = 0; t < 2; t++)
    printf("  %d thread%s: %7.1f scenes/s  (best of 3: %.3f s, of which writing %.3f s = "
           "%.0f %%; slowest %.3f s)\n", t + 1, t ? "s" : " ", (double)ran / best[t], best[t],
           wbest[t], 100.0 * wbest[t] / best[t], worst[t]);
  printf("  speed-up 2 threads / 1: %.2fx best/best, %.2fx to %.2fx over the runs "
         "(target >= 1.85x)\n", best[0] / best[1], best[0] / worst[1], worst[0] / best[1]);
  remove(out);
  vb_study_free(st);
  return 0;
}
