/* blas_pin.h - a threaded BLAS held to one thread while a study's threads
 * call it (blas_pin.c). */
#ifndef VIBRO_BLAS_PIN_H
#define VIBRO_BLAS_PIN_H

/* Set a threaded BLAS found in the process (OpenBLAS) to one thread; the
 * thread count it had, to give to vb_blas_unpin, or 0 when there was
 * nothing to change. */
int vb_blas_pin(void);
/* Give the BLAS back the thread count vb_blas_pin returned (0: nothing). */
void vb_blas_unpin(int saved);

#endif
