/* fpenv.c - subnormal numbers off for the stepping.
 *
 * A modal body rings down geometrically: once its high modes have decayed
 * by some 300 orders of magnitude their displacements, and long before
 * that the per-step energy products (m w^2 q^2 and the like), are
 * subnormal, and on many x86-64 processors every operation on a subnormal
 * operand or result takes a microcode assist, 15 to 20 times the cost of
 * a normal one (issue 33 item 1).  Flush-to-zero (FTZ, MXCSR bit 15:
 * subnormal results become 0) and denormals-are-zero (DAZ, bit 6:
 * subnormal operands read as 0) remove the assists.  They change a result
 * only where a subnormal would have reached it, that is in quantities
 * below about 2.2e-308 or in sums they would have changed by less than
 * that: the outputs of the scenes in scenes/ are bitwise the same with and
 * without them (tests/check_fpenv.c and the commit that added this file).
 *
 * MXCSR is per thread, so the run sets it in the thread that steps it
 * (each OpenMP thread of a study sets its own) and gives the caller's two
 * bits back when it returns: a host process (Python, a plug-in host) keeps
 * its own setting.  Elsewhere than x86-64 both functions do nothing. */
#include "base.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>

/* the two bits: FTZ (15) and DAZ (6) */
#define FTZ_DAZ 0x8040u

void
vb_fpenv_flush(vb_fpenv *saved)
{
  unsigned int csr = _mm_getcsr();
  saved->mxcsr = csr;
  saved->saved = 1;
  if ((csr & FTZ_DAZ) != FTZ_DAZ)
    _mm_setcsr(csr | FTZ_DAZ);
}

void
vb_fpenv_restore(const vb_fpenv *saved)
{
  if (!saved->saved)
    return;
  unsigned int csr = _mm_getcsr();
  unsigned int back = (csr & ~FTZ_DAZ) | (saved->mxcsr & FTZ_DAZ);
  if (back != csr)
    _mm_setcsr(back);
}

#else

void
vb_fpenv_flush(vb_fpenv *saved)
{
  saved->mxcsr = 0;
  saved->saved = 0;
}

void
vb_fpenv_restore(const vb_fpenv *saved)
{
  (void)saved;
}

#endif
