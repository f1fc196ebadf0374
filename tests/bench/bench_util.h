/* bench_util.h - shared by the benchmarks: how long this process's
 * threads waited for a CPU, so a run on a loaded machine says so. */
#ifndef VIBRO_BENCH_UTIL_H
#define VIBRO_BENCH_UTIL_H

#include <dirent.h>
#include <stdio.h>

/* Seconds the threads of this process have waited for a CPU, from
 * /proc/self/task/N/schedstat (0 where there is none).  OpenMP keeps its
 * threads between runs, so the difference over a run counts them all. */
static inline double
cpu_wait(void)
{
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  double wait = 0.0;

  while (d && (e = readdir(d)) != NULL) {
    char path[300];
    unsigned long long on_cpu, waiting;
    FILE *f;

    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    f = fopen(path, "r");
    if (f && fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2)
      wait += 1e-9 * (double)waiting;
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  return wait;
}

#endif
