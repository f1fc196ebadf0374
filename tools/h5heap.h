/* h5heap.h - the global heap behind variable-length string attributes
 * checked before libhdf5 reads it (h5heap.c). */
#ifndef VIBRO_H5HEAP_H
#define VIBRO_H5HEAP_H

#include <hdf5.h>

/* Check, from the bytes of file (open in libhdf5 as fid), every
 * variable-length string attribute of every version-1 object header: each
 * string's object in a whole global heap collection, of the string's
 * length.  0, or -1 after one line "FILE: damaged: what". */
int heap_check(const char *file, hid_t fid);

#endif /* VIBRO_H5HEAP_H */
