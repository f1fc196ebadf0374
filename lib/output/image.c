/* output/image.c - a file built in memory (HDF5's core driver, no backing
 * store) whose image is handed over when it closes: the driver's memory
 * goes through the file image callbacks, which keep the closing file's
 * buffer instead of freeing it, so that the caller writes it as it is
 * (output.c shard_write) where H5Fget_file_image copied it out (3.5 MB for
 * a 64-point bridge's 14,000 events: a copy and 900 page faults of fresh
 * memory).  Knows nothing of shards, studies or threads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

/* The closing file's buffer, when asked for. */
struct vb_image_hold {
  void *image; /* the driver's buffer, once the file closed with take set */
  int take;    /* hand the buffer over instead of freeing it */
};

/* The driver's memory as its own (malloc, realloc, memcpy, free), except
 * that image_free hands a closing file's buffer to its hold. */
static void *
image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
  (void)op, (void)udata;
  return malloc(size);
}

static void *
image_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op, void *udata)
{
  (void)op, (void)udata;
  return memcpy(dest, src, size);
}

static void *
image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
  (void)op, (void)udata;
  return realloc(ptr, size);
}

static herr_t
image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
  vb_image_hold *h = udata;

  if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && h && h->take && !h->image)
    h->image = ptr;
  else
    free(ptr);
  return 0;
}

/* The hold is shared by the property lists' copies: the stack owns it. */
static void *
udata_copy(void *udata)
{
  return udata;
}

static herr_t
udata_free(void *udata)
{
  (void)udata;
  return 0;
}

/* Bytes by which the image grows: the file's data (signals, time axis,
 * tables) and 1 MiB for the rest, so that it is allocated once.  Grown
 * 1 MiB at a time, the 3.5 MB of a 64-point bridge's 14,000 events were
 * four reallocations (the driver copies the image each time: 1.6 M
 * instructions) and four zeroings of 1 MiB. */
static size_t
increment(const vb_format *f, long rows, long T, long nevents)
{
  double bytes = (double)(1 << 20) + 8.0 * (double)T + (double)rows * (double)f->table.rowsize +
                 (double)(nevents > 0 ? nevents : 0) * (double)f->events.rowsize;

  for (int s = 0; s < f->nsig; s++)
    bytes += 8.0 * (double)rows * (double)vb_signal_width(&f->sig[s], T);
  bytes = bytes < (double)(1L << 30) ? bytes : (double)(1L << 30);
  return ((size_t)bytes + 65535) & ~(size_t)65535;
}

/* Build the file in memory, its buffer handed to *hold when asked. */
int
vb_image_fapl(hid_t fapl, const vb_format *f, long rows, long T, long nevents,
              vb_image_hold **hold)
{
  H5FD_file_image_callbacks_t cb = {
      .image_malloc = image_malloc,
      .image_memcpy = image_memcpy,
      .image_realloc = image_realloc,
      .image_free = image_free,
      .udata_copy = udata_copy,
      .udata_free = udata_free,
  };

  *hold = calloc(1, sizeof **hold);
  cb.udata = *hold;
  if (!*hold || H5Pset_fapl_core(fapl, increment(f, rows, T, nevents), 0) < 0 ||
      H5Pset_file_image_callbacks(fapl, &cb) < 0) {
    free(*hold);
    *hold = NULL;
    return -1;
  }
  return 0;
}

/* Ask for the buffer at close. */
void
vb_image_hold_take(vb_image_hold *h)
{
  if (h)
    h->take = 1;
}

/* The buffer handed over (closed), and the hold freed; or the hold kept. */
void *
vb_image_hold_end(vb_image_hold *h, int closed)
{
  void *image;

  if (!h || !closed)
    return NULL;
  image = h->image;
  free(h);
  return image;
}

/* Bytes of a closed file's image of at most n bytes: its end of file
 * address, from a version 0 superblock with 8-byte addresses at the start
 * (what vb_stack_create makes: libver bounds earliest; the HDF5 file format
 * specification, II.A: signature, versions at byte 8, sizes of offsets at
 * 13, base address at 24, end of file address at 40), or 0. */
size_t
vb_image_size(const void *image, size_t n)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  const unsigned char *p = image;
  uint64_t base = 0, eoa = 0;

  if (n < 56 || memcmp(p, sig, 8) != 0 || p[8] != 0 || p[13] != 8)
    return 0;
  for (int k = 7; k >= 0; k--) {
    base = base << 8 | p[24 + k];
    eoa = eoa << 8 | p[40 + k];
  }
  return base == 0 && eoa >= 56 && eoa <= n ? (size_t)eoa : 0;
}
