/* bench_dalembert.c - the ideal string released onto a flat barrier
 * against its exact d'Alembert solution (tests/dalembert.h,
 * doc/dalembert.md), at length (make bench): 44.1 kHz to 705.6 kHz with
 * 100 to 1,600 modes and barrier points, two-point and three-point, the
 * errors, the observed orders of convergence and the CPU time of each run.
 * tests/check_strings.c runs the first three rates and asserts the order.
 * Option: --rates N (default 5) runs the first N rates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dalembert.h"

int
main(int argc, char **argv)
{
  static const char *const schemes[] = {"three-point", "two-point"};
  int rates = 5;
  if (argc == 3 && strcmp(argv[1], "--rates") == 0)
    rates = atoi(argv[2]);
  if (rates < 2 || rates > 8) {
    fprintf(stderr, "usage: bench_dalembert [--rates N], 2 <= N <= 8\n");
    return 2;
  }
  printf("d'Alembert: ideal string (L = %g m, f0 = %.1f Hz) plucked %g mm at x = %g m onto a flat "
         "barrier at its rest line, power law k = 1e11 N/m^1.5, alpha 1.5, 12 ms\n",
         dal_case.length, sqrt(dal_case.tension / dal_case.density) / (2.0 * dal_case.length),
         1e3 * dal_case.height, dal_case.x0);
  printf("%-12s %9s %6s %11s %11s %9s %9s %8s %8s\n", "scheme", "fs (kHz)", "modes", "max (m)",
         "rms (m)", "p (max)", "p (rms)", "impacts", "cpu (s)");
  for (int s = 0; s < 2; s++) {
    dal_result prev = {0};
    for (int i = 0; i < rates; i++) {
      char err[2048] = "";
      int m = 100 << i;
      dal_result r = dal_run(44100.0 * (1 << i), 0.012, m, m, 1e11, 1.5, schemes[s], err, sizeof err);
      if (r.rc != VB_OK) {
        fprintf(stderr, "%s at %d modes: %s (code %d)\n", schemes[s], m, err, r.rc);
        return 1;
      }
      printf("%-12s %9.1f %6d %11.3e %11.3e", schemes[s], 44.1 * (1 << i), m, r.max, r.rms);
      if (i > 0)
        printf(" %9.2f %9.2f", log2(prev.max / r.max), log2(prev.rms / r.rms));
      else
        printf(" %9s %9s", "", "");
      printf(" %8ld %8.2f\n", r.impacts, r.cpu);
      fflush(stdout);
      prev = r;
    }
  }
  return 0;
}
