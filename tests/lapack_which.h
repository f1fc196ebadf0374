/* lapack_which.h - which LAPACK this process loaded: a test that compares
 * bits with LAPACK does so only with the reference implementation
 * (Netlib's, Debian's liblapack3), whose operations vibro's small dense LU
 * repeats; OpenBLAS, BLIS, MKL and the like order their sums otherwise. */
#ifndef VIBRO_LAPACK_WHICH_H
#define VIBRO_LAPACK_WHICH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The file that provides dgetrf_ in this process, into path[len] ("?"
 * when it cannot be told); 1 when it is the reference LAPACK: a library
 * named liblapack.so* that carries none of OpenBLAS's, MKL's or BLIS's
 * own entry points. */
static inline int
tl_reference_lapack(char *path, size_t len)
{
  static const char *const others[] = {"openblas_get_config", "openblas_set_num_threads",
                                       "mkl_get_version", "MKL_Get_Version", "bli_info_get_version",
                                       "flexiblas_avail"};
  Dl_info info;
  void *f = dlsym(RTLD_DEFAULT, "dgetrf_");
  snprintf(path, len, "?");
  if (!f || !dladdr(f, &info) || !info.dli_fname)
    return 0;
  snprintf(path, len, "%s", info.dli_fname);
  const char *base = strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  if (strncmp(base, "liblapack.so", 12) != 0)
    return 0;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    if (dlsym(RTLD_DEFAULT, others[i]))
      return 0;
  return 1;
}

#endif
