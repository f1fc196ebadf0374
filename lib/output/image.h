/* output/image.h - a file built in memory by HDF5's core driver, its image
 * handed over at close instead of copied (internal; output/image.c). */
#ifndef VB_OUTPUT_IMAGE_H
#define VB_OUTPUT_IMAGE_H

#include <hdf5.h>

#include "output.h"

/* Where the image of a file built in memory goes when the file closes. */
typedef struct vb_image_hold vb_image_hold;

/* Make fapl build the file in memory (the core driver, no backing store),
 * grown by the data of rows scenes of T samples and nevents events at
 * once, its buffer handed to *hold when asked; 0 or -1. */
int vb_image_fapl(hid_t fapl, const vb_format *f, long rows, long T, long nevents,
                  vb_image_hold **hold);
/* Ask for the buffer when the file closes (the file flushed: its first
 * H5Fget_file_image bytes are the image). */
void vb_image_hold_take(vb_image_hold *h);
/* The end of a hold (NULL: none).  closed, the file is closed: the buffer
 * handed over, for the caller to free (NULL when none was), and h freed.
 * Not closed, HDF5 may still free the buffer through h: NULL, h kept. */
void *vb_image_hold_end(vb_image_hold *h, int closed);
/* Bytes of the image of a closed file built so, in a buffer of at least n:
 * its end of file address (superblock 0), or 0 when it is not one. */
size_t vb_image_size(const void *image, size_t n);

#endif
