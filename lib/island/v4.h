/* island/v4.h - the 4-lane vectors of the island's kernels (kernels.c,
 * friction_dist.c): GCC's vector extension, each kernel compiled for AVX2
 * and the baseline with the clone chosen at run time (VB_CLONES), the
 * same bits either way (no FMA contraction: -ffp-contract=off). */
#ifndef VB_ISLAND_V4_H
#define VB_ISLAND_V4_H

#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define VB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VB_CLONES
#endif

typedef double v4 __attribute__((vector_size(32)));

/* No function takes or returns a v4: on the first v4 parameter GCC's x86-64
 * back end prints a note on the GCC 4.6 change of the ABI for 32-byte
 * arguments, which "#pragma GCC diagnostic ignored \"-Wpsabi\"" cannot
 * silence (the note is gated on the command-line flag, not on the
 * diagnostic state), and a v4 returned from a function of the baseline
 * clone draws "AVX vector return without AVX enabled changes the ABI".
 * So the four helpers are macros (GCC statement expressions), and the
 * build is quiet without -Wno-psabi.  Each evaluates its arguments once. */

/* The 4 doubles at p[0..3] as a v4 (p need not be aligned). */
#define ld4(p)                                                                                     \
  __extension__({                                                                                  \
    v4 ld4_x;                                                                                      \
    memcpy(&ld4_x, (p), sizeof ld4_x);                                                             \
    ld4_x;                                                                                         \
  })

/* Stores the 4 lanes of x at p[0..3]. */
#define st4(p, x)                                                                                  \
  do {                                                                                             \
    v4 st4_x = (x);                                                                                \
    memcpy((p), &st4_x, sizeof st4_x);                                                             \
  } while (0)

/* The double x in all 4 lanes (x is evaluated once). */
#define splat(x)                                                                                   \
  __extension__({                                                                                  \
    double splat_x = (x);                                                                          \
    (v4){splat_x, splat_x, splat_x, splat_x};                                                      \
  })

/* Fixed-order horizontal sum of the 4 lanes of a v4 expression. */
#define hsum(s)                                                                                    \
  __extension__({                                                                                  \
    v4 hsum_s = (s);                                                                               \
    (hsum_s[0] + hsum_s[1]) + (hsum_s[2] + hsum_s[3]);                                             \
  })

#endif
