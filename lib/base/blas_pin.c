/* blas_pin.c - a threaded BLAS held to one thread while a study runs.
 *
 * A study steps its scenes in parallel, one OpenMP thread each, and an
 * island whose active set passes 32 contacts factors it through LAPACK
 * (solvers/dense.c).  Where liblapack.so.3 is OpenBLAS's threaded build
 * (Debian's alternatives choose it as soon as any package pulls in
 * libopenblas0-pthread), each such call may hand its few hundred
 * operations to OpenBLAS's thread pool, whose threads then compete with
 * the study's own for the cores (issue 33 item 7: the bass on its frets at
 * 3.3 to 4.0 us per step with the pool, 1.9 to 2.05 us with one thread).
 * So vb_study_run sets OpenBLAS to one thread around its parallel loop, and
 * a run (vb_run_exec*) outside a study around its steps, and each gives
 * the caller's count back after it (a run inside a study finds one thread
 * set and changes nothing: its threads do not race on the setting).  The entry points are looked up
 * by name in the process (dlsym), so nothing is linked against OpenBLAS
 * and any other LAPACK is left alone.  The setting is OpenBLAS's own, for
 * the whole process: a host that calls OpenBLAS from other threads while a
 * study runs sees one thread meanwhile. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <string.h>
#include "vibro.h"

typedef int (*get_threads_fn)(void);
typedef void (*set_threads_fn)(int);

/* OpenBLAS's openblas_get_num_threads and openblas_set_num_threads in
 * this process; 0 unless both are there. */
static int
openblas(get_threads_fn *get, set_threads_fn *set)
{
  void *g = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  void *s = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (!g || !s)
    return 0;
  /* object to function pointers through memcpy (ISO C has no cast) */
  memcpy(get, &g, sizeof g);
  memcpy(set, &s, sizeof s);
  return 1;
}

int
vb_blas_pin(void)
{
  get_threads_fn get;
  set_threads_fn set;
  if (!openblas(&get, &set))
    return 0;
  int n = get();
  if (n <= 1)
    return 0;
  set(1);
  return n;
}

void
vb_blas_unpin(int saved)
{
  get_threads_fn get;
  set_threads_fn set;
  if (saved > 1 && openblas(&get, &set))
    set(saved);
}
