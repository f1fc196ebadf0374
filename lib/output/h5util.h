/* h5util.h - small HDF5 helpers shared by the writer (internal). */
#ifndef VB_H5UTIL_H
#define VB_H5UTIL_H

#include <stddef.h>
#include <stdint.h>
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
/* Many attributes written in a row (the /model of a 64-point bridge
 * writes 450): one scalar dataspace and the string types of each length
 * made once, where each vb_h5_attr_* call made and closed its own (a third
 * of a string attribute's cost).  The files are the same.  Start zeroed;
 * end with vb_h5_attrs_done. */
#define VB_H5_ATTR_TYPES 16
typedef struct vb_h5_attrs {
  hid_t scalar;                  /* the scalar dataspace (0 before its first use) */
  hid_t type[VB_H5_ATTR_TYPES];  /* [ntypes] fixed-length string types */
  size_t size[VB_H5_ATTR_TYPES]; /* their sizes, bytes with the NUL */
  int utf8[VB_H5_ATTR_TYPES];    /* their character sets: 1 UTF-8, 0 ASCII */
  int ntypes;
  hid_t dcpl[2]; /* vb_h5_dataset_in's creation properties: [1] float64's */
} vb_h5_attrs;
/* vb_h5_attr_string and vb_h5_attr_double through c; 0 or -1. */
int vb_h5_attrs_string(vb_h5_attrs *c, hid_t obj, const char *name, const char *value);
int vb_h5_attrs_double(vb_h5_attrs *c, hid_t obj, const char *name, double value);
/* vb_h5_dataset with c's creation properties and types (the columns of
 * a table); the dataset, or a negative id. */
hid_t vb_h5_dataset_in(vb_h5_attrs *c, hid_t loc, const char *name, hid_t type, int rank,
                       const hsize_t *dims, const char *units);
/* Close what c made and zero it; 0 or -1. */
int vb_h5_attrs_done(vb_h5_attrs *c);
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
/* A float64 dataset stored in nseg segments (offset, bytes) of file name
 * (HDF5 external storage), and the access properties that find name
 * beside the file holding it. */
hid_t vb_h5_dataset_external(hid_t loc, const char *dsname, int rank, const hsize_t *dims,
                             const char *units, const char *name, const int64_t *seg, int nseg);
hid_t vb_h5_external_dapl(void);
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

/* Dimension scales attached in bulk: the attachments of the datasets of a
 * group being created, each scale's list of them (REFERENCE_LIST) written
 * once at the end.  Start zeroed: vb_h5_dims d = {0}. */
typedef struct vb_h5_dims {
  struct vb_h5_scale_refs *s; /* [n] the scales attached so far */
  int n, cap;
  int failed; /* an attachment failed */
} vb_h5_dims;
/* Attach scales[k] to dimension k of ds (rank 1 to 3; a negative scale:
 * none), as H5DSattach_scale does for each k: ds's DIMENSION_LIST is written
 * now, the scales' entries when d is done.  0 or -1. */
int vb_h5_dims_attach(vb_h5_dims *d, hid_t ds, const hid_t *scales, int rank);
/* Write every scale's REFERENCE_LIST (the scales still open) and free d.
 * 0, or -1 when it or an attachment failed. */
int vb_h5_dims_done(vb_h5_dims *d);

#endif
