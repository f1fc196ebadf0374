/* h5util.h - small HDF5 helpers shared by the writer (internal). */
#ifndef VB_H5UTIL_H
#define VB_H5UTIL_H

#include <stddef.h>
#include <hdf5.h>

/* HDF5's error printing, saved while a call runs silenced. */
typedef struct vb_h5quiet {
  H5E_auto2_t func;
  void *data;
  int saved;
} vb_h5quiet;

/* Silence HDF5's error stack printing (messages go through err instead). */
void vb_h5_quiet_begin(vb_h5quiet *q);
/* Restore what vb_h5_quiet_begin saved. */
void vb_h5_quiet_end(vb_h5quiet *q);
/* Close an identifier of any kind; negative ids are ignored.  0 or -1. */
int vb_h5_close(hid_t id);
/* Scalar attributes; 0 or -1.  Strings are fixed-length UTF-8 (no
 * global heap): vibro writes no variable-length string. */
int vb_h5_attr_string(hid_t obj, const char *name, const char *value);
/* The same as vb_h5_attr_string; 0 or -1. */
int vb_h5_attr_fixed(hid_t obj, const char *name, const char *value);
int vb_h5_attr_double(hid_t obj, const char *name, double value);
int vb_h5_attr_int64(hid_t obj, const char *name, long value);
/* A 1-d attribute of n fixed-length UTF-8 strings; 0 or -1. */
int vb_h5_attr_strings(hid_t obj, const char *name, const char *const *values, size_t n);
/* Read a scalar string attribute (variable- or fixed-length); the caller frees the copy (NULL
 * if there is none). */
char *vb_h5_attr_read_string(hid_t obj, const char *name);
/* Read a scalar int64 attribute into *value; 0 or -1. */
int vb_h5_attr_read_int64(hid_t obj, const char *name, long *value);

/* Create a dataset of rank 1-3 and file type `type`, contiguous,
 * NaN-filled when float64, with a `units` attribute (units not NULL);
 * with early set, its space is allocated now and never filled (the caller
 * writes every byte of it).  The dataset, or a negative id. */
hid_t vb_h5_dataset_early(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const char *units, int early);
/* vb_h5_dataset_early, allocated when first written and NaN-filled. */
hid_t vb_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                    const char *units);
/* vb_h5_dataset for a dimension scale: its attributes are kept in dense
 * storage (a version 2 object header), so that the list of the datasets
 * attached to it can pass the 64 KiB an attribute of a compact header holds
 * (about 5,000 datasets: 2,000 contacts recording their signals). */
hid_t vb_h5_scale_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const char *units);
/* Values in a row of a dataset of rank 1 to 3 (the product of its
 * dimensions after the first), or -1. */
long vb_h5_row_values(hid_t ds);
/* Write rows [r0, r0 + nr) of a dataset of rank 1 to 3 (whole along its
 * other dimensions) from buf, of memory type mtype; nothing when they hold
 * no value.  0 or -1. */
int vb_h5_write_rows(hid_t ds, hid_t mtype, long r0, long nr, const void *buf);

#endif
