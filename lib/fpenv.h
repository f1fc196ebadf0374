/* fpenv.h - the floating-point environment of a run: flush-to-zero and
 * denormals-are-zero set for the stepping, and the caller's setting given
 * back at the end (fpenv.c). */
#ifndef VIBRO_FPENV_H
#define VIBRO_FPENV_H

/* The caller's floating-point mode, saved by vb_fpenv_flush. */
typedef struct vb_fpenv {
  unsigned int mxcsr; /* the calling thread's MXCSR before the run (x86-64; 0 elsewhere) */
  int saved;          /* 1 when vb_fpenv_flush changed the mode and must restore it */
} vb_fpenv;

/* Save the calling thread's flush-to-zero and denormals-are-zero bits in
 * *saved and set both (x86-64 SSE; a no-op elsewhere). */
void vb_fpenv_flush(vb_fpenv *saved);
/* Give the calling thread back the two bits vb_fpenv_flush saved; the
 * other bits of MXCSR (the rounding mode, the exception masks and the
 * flags the run raised) are left as they are.  A no-op when nothing was
 * saved. */
void vb_fpenv_restore(const vb_fpenv *saved);

#endif
