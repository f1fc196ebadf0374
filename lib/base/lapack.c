/* lapack.c - LAPACK loaded at its first call, and a threaded BLAS held to
 * one thread while a study runs.
 *
 * vibro calls LAPACK for two things only: dgetf2 and dgetrs, the LU of an
 * island's active set once it passes 32 contacts (solvers/dense.c; below
 * that vb_dense_lu repeats their operations).  Linking liblapacke made
 * every process load LAPACK, BLAS and gfortran at its start, whether it
 * factored anything or not: `vibro --version` spent 98 % of its 7 ms of
 * CPU in the dynamic loader, 16,065 of its 17,174 relocations OpenBLAS's
 * where OpenBLAS is the system's LAPACK (issue 33 item 5).  So the library
 * links no LAPACK: the first factorisation opens liblapack.so.3 (the name
 * Debian's alternatives, and most systems, give the LAPACK in use), or
 * the file $VIBRO_LAPACK names, with dlopen and looks up the two Fortran
 * entry points, once per process (pthread_once).  In a process that
 * already has a LAPACK (a test linked with LAPACKE, Python with numpy),
 * dlopen of the same soname returns that library: the calls go to the
 * LAPACK loaded.  The calls are LAPACKE's _work functions' own (column
 * major, one right-hand side), so the bits are those of before.  Where it
 * cannot be loaded, the first caller's factorisation fails (the step
 * reports Newton's failure) and the reason is printed once to stderr. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vibro.h"
#include "base.h"

/* LAPACK's Fortran entry points (the trailing length of a character
 * argument as gfortran passes it; ignored by a LAPACK that takes none). */
typedef void (*dgetf2_fn)(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                          int *info);
typedef void (*dgetrs_fn)(const char *trans, const int *n, const int *nrhs, const double *a,
                          const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                          size_t trans_len);

/* The loaded LAPACK: written once under pthread_once, read only after. */
static struct {
  void *handle;     /* dlopen's, or NULL when it could not be loaded */
  dgetf2_fn dgetf2; /* its dgetf2_ */
  dgetrs_fn dgetrs; /* its dgetrs_ */
  char file[1024];  /* the file that provides dgetf2_, or why it failed */
} lapack;
static pthread_once_t lapack_once = PTHREAD_ONCE_INIT;

static void blas_loaded(void *handle);

static void
lapack_load(void)
{
  const char *name = getenv("VIBRO_LAPACK");
  void *h, *f2, *rs;
  Dl_info info;

  if (name == NULL || name[0] == '\0')
    name = "liblapack.so.3";
  h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    snprintf(lapack.file, sizeof lapack.file, "%s", dlerror());
    return;
  }
  f2 = dlsym(h, "dgetf2_");
  rs = dlsym(h, "dgetrs_");
  if (f2 == NULL || rs == NULL) {
    snprintf(lapack.file, sizeof lapack.file, "%s has no dgetf2_ or dgetrs_", name);
    dlclose(h);
    return;
  }
  /* object to function pointers through memcpy (ISO C has no cast) */
  memcpy(&lapack.dgetf2, &f2, sizeof f2);
  memcpy(&lapack.dgetrs, &rs, sizeof rs);
  snprintf(lapack.file, sizeof lapack.file, "%s",
           dladdr(f2, &info) && info.dli_fname ? info.dli_fname : name);
  /* published last: vb_lapack_handle_if_loaded reads it without the once */
  __atomic_store_n(&lapack.handle, h, __ATOMIC_RELEASE);
  /* a threaded BLAS that came with it: held to one thread if a study or a
   * run asked for that before it was there (below) */
  blas_loaded(h);
}

/* Load LAPACK once; 0 when it is there, -1 (the reason printed once). */
static int
lapack_ready(void)
{
  static pthread_once_t told = PTHREAD_ONCE_INIT;
  pthread_once(&lapack_once, lapack_load);
  if (lapack.handle != NULL)
    return 0;
  pthread_once(&told, vb_lapack_tell);
  return -1;
}

void
vb_lapack_tell(void)
{
  fprintf(stderr,
          "vibro: cannot load LAPACK (%s): an island whose active set passes 32 contacts "
          "factors it with LAPACK's dgetf2; install one that provides liblapack.so.3 "
          "(Debian: liblapack3 or libopenblas0), or name its file in VIBRO_LAPACK\n",
          lapack.file);
}

int
vb_lapack_load(const char **file)
{
  pthread_once(&lapack_once, lapack_load);
  if (file)
    *file = lapack.file;
  return lapack.handle != NULL ? 0 : -1;
}

void *
vb_lapack_handle_if_loaded(void)
{
  /* (pthread_once has run when the handle is set: it is set inside it) */
  return __atomic_load_n(&lapack.handle, __ATOMIC_ACQUIRE);
}

int
vb_lapack_dgetf2(int n, double *a, int *ipiv)
{
  int info = 0;
  if (lapack_ready() != 0)
    return -1;
  lapack.dgetf2(&n, &n, a, &n, ipiv, &info);
  return info < 0 ? info - 1 : info; /* (LAPACKE's shift of a bad argument's index) */
}

int
vb_lapack_dgetrs(int n, const double *a, const int *ipiv, double *b)
{
  int info = 0, one = 1;
  if (lapack_ready() != 0)
    return -1;
  lapack.dgetrs("N", &n, &one, a, &n, ipiv, b, &n, &info, 1);
  return info < 0 ? info - 1 : info;
}

/* A threaded BLAS held to one thread.
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
 * study runs sees one thread meanwhile.
 *
 * LAPACK is loaded at its first call (lapack.c), often after the pin: a
 * pin that finds no OpenBLAS while LAPACK is not loaded yet is kept as
 * pending (vb_blas_pin returns -1), and the load, if it brings OpenBLAS
 * in while pins are pending, sets it to one thread then and gives the
 * count back when the last of them is undone.  The counts are kept under
 * a mutex: pins are taken once per run, not per step. */
typedef int (*get_threads_fn)(void);
typedef void (*set_threads_fn)(int);

/* Pins taken while LAPACK was not loaded, and the thread count the load
 * found and set to one for them (0: none); under pin_lock. */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static int pending;
static int load_saved;

/* OpenBLAS's openblas_get_num_threads and openblas_set_num_threads in
 * this process (linked, or in the LAPACK lapack.c loaded); 0 unless both
 * are there. */
static int
openblas_in(void *where, get_threads_fn *get, set_threads_fn *set)
{
  void *g = dlsym(where, "openblas_get_num_threads");
  void *s = dlsym(where, "openblas_set_num_threads");
  if (!g || !s)
    return 0;
  /* object to function pointers through memcpy (ISO C has no cast) */
  memcpy(get, &g, sizeof g);
  memcpy(set, &s, sizeof s);
  return 1;
}

static int
openblas(get_threads_fn *get, set_threads_fn *set)
{
  void *h = vb_lapack_handle_if_loaded();
  return openblas_in(RTLD_DEFAULT, get, set) || (h && openblas_in(h, get, set));
}

int
vb_blas_pin(void)
{
  get_threads_fn get;
  set_threads_fn set;
  int n = 0;
  pthread_mutex_lock(&pin_lock);
  if (openblas(&get, &set)) {
    n = get();
    if (n > 1)
      set(1);
    else
      n = 0;
  } else if (!vb_lapack_handle_if_loaded()) {
    pending++; /* (LAPACK may still bring OpenBLAS in) */
    n = -1;
  }
  pthread_mutex_unlock(&pin_lock);
  return n;
}

void
vb_blas_unpin(int saved)
{
  get_threads_fn get;
  set_threads_fn set;
  pthread_mutex_lock(&pin_lock);
  if (saved == -1 && pending > 0 && --pending == 0) {
    if (load_saved > 1 && openblas(&get, &set))
      set(load_saved);
    load_saved = 0;
  } else if (saved > 1 && openblas(&get, &set)) {
    set(saved);
  }
  pthread_mutex_unlock(&pin_lock);
}

/* Called once LAPACK is loaded (handle: dlopen's): hold a threaded BLAS
 * that came with it to one thread while pins taken before it are pending. */
static void
blas_loaded(void *handle)
{
  get_threads_fn get;
  set_threads_fn set;
  pthread_mutex_lock(&pin_lock);
  if (pending > 0 && openblas_in(handle, &get, &set)) {
    int n = get();
    if (n > 1) {
      set(1);
      load_saved = n;
    }
  }
  pthread_mutex_unlock(&pin_lock);
}
