/* output/model.h - /model of a file (internal; output/model.c). */
#ifndef VB_OUTPUT_MODEL_H
#define VB_OUTPUT_MODEL_H

#include <hdf5.h>

#include "output.h"

/* Write /model into file: scene 0's bodies and contacts (f's layout); 0
 * or -1. */
int vb_model_write(const vb_format *f, hid_t file);

#endif
