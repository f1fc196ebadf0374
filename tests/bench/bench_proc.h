/* bench_proc.h - timing a whole process as the user runs it, for the
 * benches that start `vibro` (bench_short.c, bench_tanpura.c): its CPU
 * (user + system, from wait4's rusage), and the comparison to sort runs. */
#ifndef VIBRO_BENCH_PROC_H
#define VIBRO_BENCH_PROC_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* CPU seconds (user + system) of one run of argv, its output to /dev/null;
 * -1 when it could not be run or did not exit 0. */
static double
cpu_of(char *const argv[])
{
  struct rusage ru;
  int status;
  fflush(stdout); /* (else the child's freopen writes our buffer again) */
  pid_t pid = fork();
  if (pid < 0)
    return -1.0;
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
      _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1.0;
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* qsort's order of doubles. */
static int
by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
