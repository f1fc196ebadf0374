/* output_v1.c - the layout "vibro-1" (transitional: `vibro run` writes it until
 * the inspectors read vibro-2; see doc/format.md).  Write runs of a scene file to HDF5.
 *
 *   /                      attributes format, vibro_version, input, source
 *   /scenes/NNNNNN/        one group per run (index in runs[]), attributes
 *                          name, fs, duration, gravity, record_every, steps,
 *                          status, energy_balance_error
 *     time                 time of each recorded sample, s
 *     bodies/B/u, v        displacement m, velocity m/s (group attributes
 *                          type, and mass for masses)
 *     contacts/C/compression, force, events
 *                          m, N, and one compound row per impact
 *     energy/total, kinetic, potential, dissipated    J
 *
 *   /study                 attributes mode, sweep, scenes
 *     table                one compound row per scene: index, swept
 *                          parameters, status, summary figures
 *     done                 uint8 per scene: 1 once the scene is complete
 *
 * Every dataset carries a string attribute "units".  The file is written
 * as PATH.part, scene by scene (vb_v1_open / vb_v1_scene /
 * vb_v1_finish), and renamed onto PATH once it is complete and
 * closed; an interrupted PATH.part is resumed by vb_v1_open. */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "sweep.h"
#include "vibro.h"
#include "output_v1.h"

#define FORMAT_NAME "vibro-1"
#define PART_SUFFIX ".part"
#define CHUNK_BYTES ((hsize_t)65536 * 8) /* 64 Ki doubles per chunk */
#define DEFLATE_LEVEL 4
#define WHERE_MAX (3 * VB_NAME_MAX + 64)  /* longest object path we name */

/* State of one call of vb_v1_write. */
typedef struct writer {
  const char *path;  /* destination, names every message */
  char *err;
  size_t errlen;
  int failed;        /* a message has been written */
  hid_t gcpl;        /* group creation: track link creation order */
  hid_t event_mtype; /* vb_event as laid out in memory */
  hid_t event_ftype; /* vb_event packed, little-endian, in the file */
  char event_units[512];
  const vb_v1_chunks *chunks; /* the scene's datasets compressed ahead, or NULL */
  int cursor;        /* next dataset of chunks to look at */
} writer;

/* One field of vb_event as stored in /events. */
typedef struct event_field {
  const char *name;
  size_t offset;
  int is_int; /* int32 rather than float64 */
  const char *units;
} event_field;

static const event_field event_fields[] = {
  { "t_on", HOFFSET(vb_event, t_on), 0, "s" },
  { "t_off", HOFFSET(vb_event, t_off), 0, "s" },
  { "duration", HOFFSET(vb_event, duration), 0, "s" },
  { "v_in", HOFFSET(vb_event, v_in), 0, "m/s" },
  { "v_out", HOFFSET(vb_event, v_out), 0, "m/s" },
  { "x_max", HOFFSET(vb_event, x_max), 0, "m" },
  { "peak_force", HOFFSET(vb_event, peak_force), 0, "N" },
  { "x_max_pred", HOFFSET(vb_event, x_max_pred), 0, "m" },
  { "v_out_pred", HOFFSET(vb_event, v_out_pred), 0, "m/s" },
  { "v_out_exact", HOFFSET(vb_event, v_out_exact), 0, "m/s" },
  { "duration_pred", HOFFSET(vb_event, duration_pred), 0, "s" },
  { "energy_before", HOFFSET(vb_event, energy_before), 0, "J" },
  { "energy_after", HOFFSET(vb_event, energy_after), 0, "J" },
  { "energy_correction", HOFFSET(vb_event, energy_correction), 0, "J" },
  { "newton_iterations_max", HOFFSET(vb_event, newton_iterations_max), 1, "1" },
  { "fallbacks", HOFFSET(vb_event, fallbacks), 1, "1" },
  { "samples", HOFFSET(vb_event, samples), 1, "1" },
  { "corrections", HOFFSET(vb_event, corrections), 1, "1" },
};

#define NEVENT_FIELDS (sizeof event_fields / sizeof event_fields[0])

/* The datasets of /energy, in vb_run_energy's order. */
static const char *const energy_names[] = { "total", "kinetic", "potential", "dissipated",
                                            "external", "correction" };

#define NENERGY ((int)(sizeof energy_names / sizeof energy_names[0]))

/* Record the first failure as "PATH: message"; always returns -1. */
static int fail(writer *w, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (w->failed)
    return -1;
  w->failed = 1;
  if (!w->err || w->errlen == 0)
    return -1;
  n = snprintf(w->err, w->errlen, "%s: ", w->path);
  if (n >= 0 && (size_t)n < w->errlen) {
    va_start(ap, fmt);
    vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Close an HDF5 identifier of any kind; negative ids are ignored.
 * Returns 0, or -1 if closing failed. */
static int close_id(hid_t id)
{
  herr_t r;

  if (id < 0)
    return 0;
  switch (H5Iget_type(id)) {
  case H5I_FILE: r = H5Fclose(id); break;
  case H5I_GROUP: r = H5Gclose(id); break;
  case H5I_DATASET: r = H5Dclose(id); break;
  case H5I_DATASPACE: r = H5Sclose(id); break;
  case H5I_DATATYPE: r = H5Tclose(id); break;
  case H5I_ATTR: r = H5Aclose(id); break;
  case H5I_GENPROP_LST: r = H5Pclose(id); break;
  default: r = -1; break;
  }
  return r < 0 ? -1 : 0;
}

/* Check that a body or contact name can be an HDF5 link name. */
static int check_name(writer *w, const char *what, const char *name)
{
  if (name[0] == '\0' || strchr(name, '/') || strcmp(name, ".") == 0)
    return fail(w, "%s name \"%s\" cannot name an HDF5 group", what, name);
  return 0;
}

/* Write a scalar attribute `name` on obj (named `where` in messages). */
static int attr_write(writer *w, hid_t obj, const char *where, const char *name,
                      hid_t ftype, hid_t mtype, const void *value)
{
  hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
  int rc = -1;

  space = H5Screate(H5S_SCALAR);
  if (space < 0)
    goto done;
  attr = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0)
    goto done;
  if (H5Awrite(attr, mtype, value) < 0)
    goto done;
  rc = 0;
done:
  if (close_id(attr) < 0)
    rc = -1;
  if (close_id(space) < 0)
    rc = -1;
  if (rc < 0)
    fail(w, "cannot write attribute %s of %s", name, where);
  return rc;
}

/* Write a variable-length UTF-8 string attribute (NULL as ""): h5py reads
 * it as str and MATLAB's h5readatt as char, with no padding to strip. */
static int attr_string(writer *w, hid_t obj, const char *where, const char *name,
                       const char *value)
{
  hid_t type;
  int rc;

  if (!value)
    value = "";
  type = H5Tcopy(H5T_C_S1);
  if (type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 ||
      H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
    close_id(type);
    return fail(w, "cannot make a string type for attribute %s of %s", name, where);
  }
  rc = attr_write(w, obj, where, name, type, type, &value);
  if (close_id(type) < 0 && rc == 0)
    rc = fail(w, "cannot close the type of attribute %s of %s", name, where);
  return rc;
}

/* Write a float64 attribute. */
static int attr_double(writer *w, hid_t obj, const char *where, const char *name,
                       double value)
{
  return attr_write(w, obj, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

/* Write an int64 attribute. */
static int attr_int64(writer *w, hid_t obj, const char *where, const char *name,
                      long value)
{
  int64_t v = (int64_t)value;
  return attr_write(w, obj, where, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

/* Create group `name` under loc; `where` receives its path, built from
 * `parent` (the path of loc).  Returns the group or a negative id. */
static hid_t group_create(writer *w, hid_t loc, const char *parent, const char *name,
                          char *where)
{
  hid_t g;

  snprintf(where, WHERE_MAX, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name);
  g = H5Gcreate2(loc, name, H5P_DEFAULT, w->gcpl, H5P_DEFAULT);
  if (g < 0)
    fail(w, "cannot create group %s", where);
  return g;
}

/* ------------------------------------------- datasets compressed ahead */

/* A float64 dataset is stored in chunks of CHUNK_BYTES, each passed
 * through HDF5's shuffle filter (byte k of every element, then byte k+1)
 * and its deflate filter (zlib's compress2 at DEFLATE_LEVEL).  The thread
 * that ran a scene does that work (vb_v1_chunks_alloc) and the one writer
 * stores the finished chunks with H5Dwrite_chunk into datasets created
 * with the same chunk size and filters: the file is the one H5Dwrite
 * would make, readable by any HDF5 reader. */

/* One float64 dataset, compressed chunk by chunk. */
typedef struct packed {
  const double *data;   /* the run's array it was made from; NULL for time */
  long n;               /* elements */
  long chunk;           /* elements per chunk */
  long nchunks;
  size_t *ends;         /* [nchunks] end of each chunk in bytes, bytes */
  unsigned char *bytes; /* [ends[nchunks - 1]] the compressed chunks */
} packed;

struct vb_v1_chunks {
  packed *sets; /* [nsets] in the order the writer writes them */
  int nsets, cap;
};

/* Elements per chunk of a dataset of n > 0 elements of esize bytes. */
static long chunk_length(long n, size_t esize)
{
  long cap = (long)(CHUNK_BYTES / esize);

  if (cap < 1)
    cap = 1;
  return n < cap ? n : cap;
}

/* Free what a packed dataset holds. */
static void packed_clear(packed *p)
{
  free(p->ends);
  free(p->bytes);
  p->ends = NULL;
  p->bytes = NULL;
}

/* Compress a float64 dataset: n elements of data, or with data NULL the
 * times k * every / fs of the samples.  Each chunk is shuffled as HDF5's
 * shuffle filter shuffles 8-byte elements in the file's little-endian
 * order (a partial last chunk is padded with zeros to the full chunk, as
 * HDF5 stores it) and deflated.  VB_OK, VB_ENOMEM or VB_EIO. */
static int packed_make(packed *p, const double *data, long n, long every, double fs)
{
  unsigned char *plane = NULL, *grown;
  double *times = NULL;
  size_t chunk_bytes, used = 0, cap = 0;
  uLong bound;
  uLongf out;
  long k, j, start, count;
  int b, rc = VB_ENOMEM;

  memset(p, 0, sizeof *p);
  p->data = data;
  p->n = n;
  p->chunk = chunk_length(n, 8);
  p->nchunks = (n + p->chunk - 1) / p->chunk;
  chunk_bytes = (size_t)p->chunk * 8;
  bound = compressBound((uLong)chunk_bytes);
  p->ends = malloc((size_t)p->nchunks * sizeof *p->ends);
  plane = malloc(chunk_bytes);
  if (!data)
    times = malloc(chunk_bytes);
  if (!p->ends || !plane || (!data && !times))
    goto done;
  for (k = 0; k < p->nchunks; k++) {
    const double *src;

    start = k * p->chunk;
    count = n - start < p->chunk ? n - start : p->chunk;
    if (data) {
      src = data + start;
    } else {
      for (j = 0; j < count; j++)
        times[j] = (double)((start + j) * every) / fs;
      src = times;
    }
    /* shuffle: byte b of element j goes to plane[b * chunk + j] */
    for (j = 0; j < count; j++) {
      uint64_t bits;

      memcpy(&bits, &src[j], 8);
      for (b = 0; b < 8; b++)
        plane[(size_t)b * (size_t)p->chunk + (size_t)j] = (unsigned char)(bits >> (8 * b));
    }
    if (count < p->chunk)
      for (b = 0; b < 8; b++)
        memset(plane + (size_t)b * (size_t)p->chunk + (size_t)count, 0,
               (size_t)(p->chunk - count));
    if (cap - used < bound) {
      cap = used + bound > 2 * cap ? used + bound : 2 * cap;
      grown = realloc(p->bytes, cap);
      if (!grown)
        goto done;
      p->bytes = grown;
    }
    /* deflate exactly as HDF5's deflate filter does */
    out = (uLongf)bound;
    b = compress2(p->bytes + used, &out, plane, (uLong)chunk_bytes, DEFLATE_LEVEL);
    if (b != Z_OK) {
      rc = b == Z_MEM_ERROR ? VB_ENOMEM : VB_EIO;
      goto done;
    }
    used += out;
    p->ends[k] = used;
  }
  /* give back what compression saved */
  grown = realloc(p->bytes, used > 0 ? used : 1);
  if (grown)
    p->bytes = grown;
  rc = VB_OK;
done:
  free(plane);
  free(times);
  if (rc != VB_OK)
    packed_clear(p);
  return rc;
}

/* Free compressed datasets; NULL is a no-op. */
void vb_v1_chunks_free(vb_v1_chunks *chunks)
{
  int i;

  if (!chunks)
    return;
  for (i = 0; i < chunks->nsets; i++)
    packed_clear(&chunks->sets[i]);
  free(chunks->sets);
  free(chunks);
}

/* Append the compressed dataset of n elements of data (NULL: the times)
 * to chunks; an absent array (n > 0, data NULL) is left to the writer,
 * which reports it. */
static int chunks_add(vb_v1_chunks *c, const double *data, long n, long every, double fs,
                      int is_time)
{
  packed *grown;
  int rc;

  if (n <= 0 || (!data && !is_time))
    return VB_OK;
  if (c->nsets == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;

    grown = realloc(c->sets, (size_t)cap * sizeof *grown);
    if (!grown)
      return VB_ENOMEM;
    c->sets = grown;
    c->cap = cap;
  }
  rc = packed_make(&c->sets[c->nsets], data, n, every, fs);
  if (rc == VB_OK)
    c->nsets++;
  return rc;
}

/* Compress a finished run's float64 datasets in the order scene_write
 * writes them.  Touches no HDF5 state and no shared data: any thread may
 * call it for its own run.  The caller frees *out with vb_v1_chunks_free. */
int vb_v1_chunks_alloc(const vb_run *run, vb_v1_chunks **out, char *err, size_t errlen)
{
  const vb_scene *sc = run ? vb_run_scene(run) : NULL;
  vb_v1_chunks *c;
  long n;
  int i, p, rc;

  *out = NULL;
  if (!sc) {
    if (err && errlen > 0)
      snprintf(err, errlen, "vb_v1_chunks_alloc: no run");
    return VB_EINVAL;
  }
  c = calloc(1, sizeof *c);
  if (!c) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: out of memory compressing the output", sc->name);
    return VB_ENOMEM;
  }
  n = vb_run_samples(run);
  rc = chunks_add(c, NULL, n, sc->record_every, sc->fs, 1);
  for (i = 0; rc == VB_OK && i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    const double *q = vb_run_modes_q(run, i);

    if (b->kind != VB_BODY_MODAL) {
      rc = chunks_add(c, vb_run_body_u(run, i), n, 0, 0.0, 0);
      if (rc == VB_OK)
        rc = chunks_add(c, vb_run_body_v(run, i), n, 0, 0.0, 0);
      continue;
    }
    for (p = 0; rc == VB_OK && p < b->npoints; p++) {
      rc = chunks_add(c, vb_run_point_u(run, i, p), n, 0, 0.0, 0);
      if (rc == VB_OK)
        rc = chunks_add(c, vb_run_point_v(run, i, p), n, 0, 0.0, 0);
    }
    (void)q; /* the modes matrix is written by HDF5's filters (matrix_write) */
  }
  for (i = 0; rc == VB_OK && i < sc->ncontacts; i++) {
    const vb_contact_result *res = vb_run_contact(run, i);

    if (!res)
      continue;
    rc = chunks_add(c, res->compression, n, 0, 0.0, 0);
    if (rc == VB_OK)
      rc = chunks_add(c, res->rate, n, 0, 0.0, 0);
    if (rc == VB_OK)
      rc = chunks_add(c, res->force, n, 0, 0.0, 0);
  }
  for (i = 0; rc == VB_OK && i < NENERGY; i++)
    rc = chunks_add(c, vb_run_energy(run, i), n, 0, 0.0, 0);
  if (rc != VB_OK) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: %s compressing the output", sc->name,
               rc == VB_ENOMEM ? "out of memory" : "zlib failed");
    vb_v1_chunks_free(c);
    return rc;
  }
  *out = c;
  return VB_OK;
}

/* The dataset of chunks made from (data, n), data NULL for the time, or
 * NULL: searched from the cursor on, since the writer takes them in
 * order. */
static const packed *chunks_find(writer *w, const double *data, long n)
{
  const vb_v1_chunks *c = w->chunks;
  int i;

  for (i = c ? w->cursor : 0; c && i < c->nsets; i++)
    if (c->sets[i].data == data && c->sets[i].n == n) {
      w->cursor = i + 1;
      return &c->sets[i];
    }
  return NULL;
}

/* Create a 1-d dataset of n elements of ftype with a "units" attribute:
 * chunked, shuffled and deflated when n > 0, contiguous and empty when
 * n == 0.  Returns the dataset or a negative id. */
static hid_t dataset_create(writer *w, hid_t loc, const char *parent, const char *name,
                            hid_t ftype, long n, const char *units)
{
  char where[WHERE_MAX];
  hsize_t dims[1], chunk[1];
  hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, ds = H5I_INVALID_HID;
  size_t esize;
  int ok = 0;

  snprintf(where, sizeof where, "%s/%s", parent, name);
  if (n < 0) {
    fail(w, "negative length %ld for dataset %s", n, where);
    return H5I_INVALID_HID;
  }
  dims[0] = (hsize_t)n;
  space = H5Screate_simple(1, dims, NULL);
  if (space < 0)
    goto done;
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (dcpl < 0)
    goto done;
  if (n > 0) {
    esize = H5Tget_size(ftype);
    if (esize == 0)
      goto done;
    chunk[0] = (hsize_t)chunk_length(n, esize);
    if (H5Pset_chunk(dcpl, 1, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
        H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0)
      goto done;
  }
  ds = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (ds < 0)
    goto done;
  if (attr_string(w, ds, where, "units", units) < 0)
    goto done;
  ok = 1;
done:
  if (close_id(dcpl) < 0)
    ok = 0;
  if (close_id(space) < 0)
    ok = 0;
  if (!ok) {
    close_id(ds);
    ds = H5I_INVALID_HID;
    fail(w, "cannot create dataset %s", where);
  }
  return ds;
}

/* Write a rows x cols matrix of doubles (row-major) as one 2-D dataset,
 * chunked by rows and compressed by HDF5's filters. */
static int matrix_write(writer *w, hid_t loc, const char *parent, const char *name,
                        const double *data, long rows, long cols, const char *units)
{
  char where[WHERE_MAX + VB_NAME_MAX + 2];
  hsize_t dims[2] = { (hsize_t)rows, (hsize_t)cols };
  hsize_t chunk[2] = { 1, (hsize_t)(cols < 65536 ? cols : 65536) };
  hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, ds = H5I_INVALID_HID;
  int rc = -1;

  snprintf(where, sizeof where, "%s/%s", parent, name);
  space = H5Screate_simple(2, dims, NULL);
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (space < 0 || dcpl < 0)
    goto done;
  if (rows > 0 && cols > 0 &&
      (H5Pset_chunk(dcpl, 2, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
       H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0))
    goto done;
  ds = H5Dcreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (ds < 0 || attr_string(w, ds, where, "units", units) < 0)
    goto done;
  if (rows > 0 && cols > 0 &&
      H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    goto done;
  rc = 0;
done:
  close_id(dcpl);
  close_id(space);
  if (close_id(ds) < 0)
    rc = -1;
  if (rc < 0)
    fail(w, "cannot write dataset %s", where);
  return rc;
}

/* Write a whole dataset of n elements from data (memory type mtype). */
static int dataset_write(writer *w, hid_t loc, const char *parent, const char *name,
                         hid_t ftype, hid_t mtype, const void *data, long n,
                         const char *units)
{
  hid_t ds;
  int rc = 0;

  if (n > 0 && !data)
    return fail(w, "the run has no data for %s/%s", parent, name);
  ds = dataset_create(w, loc, parent, name, ftype, n, units);
  if (ds < 0)
    return -1;
  if (n > 0 && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    rc = fail(w, "cannot write dataset %s/%s", parent, name);
  if (close_id(ds) < 0 && rc == 0)
    rc = fail(w, "cannot close dataset %s/%s", parent, name);
  return rc;
}

/* Write a float64 dataset of n > 0 elements from its compressed chunks
 * (data NULL: the times k * every / fs), taken from the scene's chunks
 * made ahead, or made here when there are none. */
static int packed_write(writer *w, hid_t loc, const char *parent, const char *name,
                        const double *data, long n, long every, double fs,
                        const char *units)
{
  const packed *p = chunks_find(w, data, n);
  packed own;
  hsize_t off[1];
  hid_t ds;
  size_t start;
  long k;
  int rc = 0;

  memset(&own, 0, sizeof own);
  if (!p) {
    rc = packed_make(&own, data, n, every, fs);
    if (rc != VB_OK)
      return fail(w, "%s compressing %s/%s", rc == VB_ENOMEM ? "out of memory"
                  : "zlib failed", parent, name);
    p = &own;
  }
  ds = dataset_create(w, loc, parent, name, H5T_IEEE_F64LE, n, units);
  if (ds < 0) {
    packed_clear(&own);
    return -1;
  }
  /* filter mask 0: every filter of the pipeline was applied */
  for (k = 0; k < p->nchunks && rc == 0; k++) {
    start = k > 0 ? p->ends[k - 1] : 0;
    off[0] = (hsize_t)(k * p->chunk);
    if (H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, p->ends[k] - start, p->bytes + start) < 0)
      rc = fail(w, "cannot write dataset %s/%s", parent, name);
  }
  if (close_id(ds) < 0 && rc == 0)
    rc = fail(w, "cannot close dataset %s/%s", parent, name);
  packed_clear(&own);
  return rc;
}

/* Write n doubles as float64. */
static int doubles_write(writer *w, hid_t loc, const char *parent, const char *name,
                         const double *data, long n, const char *units)
{
  if (n > 0 && data)
    return packed_write(w, loc, parent, name, data, n, 0, 0.0, units);
  return dataset_write(w, loc, parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data,
                       n, units);
}

/* Write the time of sample k, k * every / fs. */
static int time_write(writer *w, hid_t loc, const char *parent, long n, long every,
                      double fs)
{
  if (n > 0)
    return packed_write(w, loc, parent, "time", NULL, n, every, fs, "s");
  return dataset_write(w, loc, parent, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, NULL,
                       0, "s");
}

/* Write one body group: attributes type (and mass), datasets u and v. */
static int body_write(writer *w, hid_t bodies, const char *parent, const vb_run *run,
                      int index, long n)
{
  const vb_body *b = &vb_run_scene(run)->bodies[index];
  char where[WHERE_MAX];
  hid_t g;
  int rc = -1;

  if (check_name(w, "body", b->name) < 0)
    return -1;
  g = group_create(w, bodies, parent, b->name, where);
  if (g < 0)
    return -1;
  static const char *const kinds[] = { "mass", "wall", "modal" };
  if (attr_string(w, g, where, "type", kinds[b->kind]) < 0)
    goto done;
  if (b->kind == VB_BODY_MASS && attr_double(w, g, where, "mass", b->mass) < 0)
    goto done;
  if (b->kind != VB_BODY_MODAL) {
    if (doubles_write(w, g, where, "u", vb_run_body_u(run, index), n, "m") < 0)
      goto done;
    if (doubles_write(w, g, where, "v", vb_run_body_v(run, index), n, "m/s") < 0)
      goto done;
  } else {
    /* modal objects: one group per named point, and the modes */
    for (int p = 0; p < b->npoints; p++) {
      char pw[WHERE_MAX];
      if (check_name(w, "point", b->points[p].name) < 0)
        goto done;
      hid_t pg = group_create(w, g, where, b->points[p].name, pw);
      if (pg < 0)
        goto done;
      int prc = doubles_write(w, pg, pw, "u", vb_run_point_u(run, index, p), n, "m");
      if (prc == 0)
        prc = doubles_write(w, pg, pw, "v", vb_run_point_v(run, index, p), n, "m/s");
      if (close_id(pg) < 0 || prc < 0)
        goto done;
    }
    char mw[WHERE_MAX];
    hid_t mg = group_create(w, g, where, "modes", mw);
    if (mg < 0)
      goto done;
    int mrc = doubles_write(w, mg, mw, "freq", b->freq, b->nmodes, "Hz");
    if (mrc == 0)
      mrc = doubles_write(w, mg, mw, "sigma", b->sigma, b->nmodes, "1/s");
    if (mrc == 0)
      mrc = doubles_write(w, mg, mw, "mass", b->modal_mass, b->nmodes, "kg");
    /* record.modes: q[mode][sample] */
    if (mrc == 0 && vb_run_modes_q(run, index))
      mrc = matrix_write(w, mg, mw, "q", vb_run_modes_q(run, index), b->nmodes, n, "m");
    if (close_id(mg) < 0 || mrc < 0)
      goto done;
  }
  rc = 0;
done:
  if (close_id(g) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s", where);
  return rc;
}

/* Write one contact group: parameters and counters as attributes,
 * datasets compression, force and events. */
static int contact_write(writer *w, hid_t contacts, const char *parent, const vb_run *run,
                         int index, long n)
{
  const vb_contact *c = &vb_run_scene(run)->contacts[index];
  const vb_contact_result *res = vb_run_contact(run, index);
  char where[WHERE_MAX];
  hid_t g;
  int rc = -1;

  if (check_name(w, "contact", c->name) < 0)
    return -1;
  if (!res)
    return fail(w, "the run has no results for contact %s", c->name);
  g = group_create(w, contacts, parent, c->name, where);
  if (g < 0)
    return -1;
  if (attr_string(w, g, where, "law", vb_law_name(c->law.kind)) < 0 ||
      attr_string(w, g, where, "scheme", c->scheme ? c->scheme->name : "") < 0 ||
      attr_double(w, g, where, "k", c->law.k) < 0 ||
      attr_double(w, g, where, "alpha", c->law.alpha) < 0 ||
      attr_double(w, g, where, "mu", c->law.mu) < 0 ||
      attr_double(w, g, where, "h", c->law.h) < 0 ||
      attr_double(w, g, where, "gap", c->gap) < 0 ||
      attr_int64(w, g, where, "newton_failures", res->newton_failures) < 0 ||
      attr_int64(w, g, where, "fallbacks", res->fallbacks) < 0 ||
      attr_int64(w, g, where, "newton_iterations", res->iterations) < 0)
    goto done;
  if (doubles_write(w, g, where, "compression", res->compression, n, "m") < 0 ||
      doubles_write(w, g, where, "rate", res->rate, n, "m/s") < 0 ||
      doubles_write(w, g, where, "force", res->force, n, "N") < 0)
    goto done;
  if (dataset_write(w, g, where, "events", w->event_ftype, w->event_mtype, res->events,
                    res->nevents, w->event_units) < 0)
    goto done;
  rc = 0;
done:
  if (close_id(g) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s", where);
  return rc;
}

/* Write the energy group: total, kinetic, potential, dissipated. */
static int energy_write(writer *w, hid_t scene, const char *parent, const vb_run *run,
                        long n)
{
  char where[WHERE_MAX];
  hid_t g;
  int rc = 0, i;

  g = group_create(w, scene, parent, "energy", where);
  if (g < 0)
    return -1;
  for (i = 0; i < NENERGY && rc == 0; i++)
    rc = doubles_write(w, g, where, energy_names[i], vb_run_energy(run, i), n, "J");
  if (close_id(g) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s", where);
  return rc;
}

/* Write /scenes/NNNNNN for runs[index]. */
static int scene_write(writer *w, hid_t scenes, int index, const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  char name[32], where[WHERE_MAX], sub[WHERE_MAX];
  hid_t g = H5I_INVALID_HID, bodies = H5I_INVALID_HID, contacts = H5I_INVALID_HID;
  long n = vb_run_samples(run);
  int rc = -1, i;

  snprintf(name, sizeof name, "%06d", index);
  g = group_create(w, scenes, "/scenes", name, where);
  if (g < 0)
    return -1;
  if (attr_string(w, g, where, "name", sc->name) < 0 ||
      attr_double(w, g, where, "fs", sc->fs) < 0 ||
      attr_double(w, g, where, "duration", sc->duration) < 0 ||
      attr_double(w, g, where, "gravity", sc->gravity) < 0 ||
      attr_int64(w, g, where, "record_every", sc->record_every) < 0 ||
      attr_int64(w, g, where, "steps", vb_scene_steps(sc)) < 0 ||
      attr_string(w, g, where, "status", vb_run_status(run)) < 0 ||
      attr_double(w, g, where, "energy_balance_error", vb_run_balance_error(run)) < 0)
    goto done;
  if (time_write(w, g, where, n, sc->record_every, sc->fs) < 0)
    goto done;

  bodies = group_create(w, g, where, "bodies", sub);
  if (bodies < 0)
    goto done;
  for (i = 0; i < sc->nbodies; i++)
    if (body_write(w, bodies, sub, run, i, n) < 0)
      goto done;

  contacts = group_create(w, g, where, "contacts", sub);
  if (contacts < 0)
    goto done;
  for (i = 0; i < sc->ncontacts; i++)
    if (contact_write(w, contacts, sub, run, i, n) < 0)
      goto done;

  if (energy_write(w, g, where, run, n) < 0)
    goto done;
  rc = 0;
done:
  if (close_id(contacts) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s/contacts", where);
  if (close_id(bodies) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s/bodies", where);
  if (close_id(g) < 0 && rc == 0)
    rc = fail(w, "cannot close group %s", where);
  return rc;
}

/* Build the memory and (packed, little-endian) file types of vb_event and
 * the units string of /events. */
static int event_types(writer *w)
{
  hid_t m, f;
  size_t i, used = 0;
  int n;

  m = w->event_mtype = H5Tcreate(H5T_COMPOUND, sizeof(vb_event));
  f = w->event_ftype = H5Tcreate(H5T_COMPOUND, sizeof(vb_event));
  if (m < 0 || f < 0)
    return fail(w, "cannot create the event types");
  for (i = 0; i < NEVENT_FIELDS; i++) {
    const event_field *e = &event_fields[i];
    if (H5Tinsert(m, e->name, e->offset, e->is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE) < 0 ||
        H5Tinsert(f, e->name, e->offset, e->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE) < 0)
      return fail(w, "cannot build the event types");
    n = snprintf(w->event_units + used, sizeof w->event_units - used, "%s%s:%s",
                 i ? " " : "", e->name, e->units);
    if (n < 0 || (size_t)n >= sizeof w->event_units - used)
      return fail(w, "event units do not fit");
    used += (size_t)n;
  }
  if (H5Tpack(f) < 0)
    return fail(w, "cannot pack the event file type");
  return 0;
}

/* Flush a closed file's data to the disk before it is renamed. */
static int sync_file(writer *w, const char *part)
{
  int fd, rc = 0;

  fd = open(part, O_RDONLY);
  if (fd < 0)
    return fail(w, "cannot reopen %s: %s", part, strerror(errno));
  if (fsync(fd) < 0)
    rc = fail(w, "cannot sync %s: %s", part, strerror(errno));
  if (close(fd) < 0 && rc == 0)
    rc = fail(w, "cannot close %s: %s", part, strerror(errno));
  return rc;
}

/* ------------------------------------------------- the file, scene by scene */

#define STATUS_LEN 128                  /* bytes of the table's status column */
#define CONTACT_COLUMNS 4               /* table columns per contact */
#define MARK_PERIOD 1.0                 /* s between flushes that mark scenes complete */

/* What the top level of a file describes: a study, or the runs handed to
 * vb_v1_write (a study of that many scenes without parameters). */
typedef struct layout {
  const char *input;     /* the scene or study text */
  const char *source;    /* its path */
  const char *mode;      /* "grid", "zip", "random", "none" */
  const char *sweep;     /* canonical sweep text, "" without one */
  long nscenes;
  const vb_study *study; /* parameter values, or NULL */
  int nparams;
  const vb_scene *first; /* contact names of every scene */
} layout;

struct vb_v1_output {
  writer w;
  layout lay;
  char *path, *part;
  hid_t fapl, file, scenes, table, done;
  hid_t row_mtype, row_ftype, code_mtype;
  size_t rowsize;        /* bytes of one table row (packed) */
  size_t off_params, off_code, off_status, off_final, off_balance, off_contacts;
  unsigned char *row;    /* [rowsize] */
  unsigned char *complete; /* [nscenes] 1 when the scene is marked complete */
  long *unmarked;        /* [nunmarked] written, awaiting the flush that marks them */
  long nunmarked, cap_unmarked;
  double last_mark;      /* time of the last marking flush, s */
  int *codes;            /* [nscenes] status_code of complete scenes */
  char *units;           /* units attribute of the table */
  H5E_auto2_t old_func;  /* HDF5's error printer, silenced during calls */
  void *old_data;
  int have_auto;
};

/* Silence HDF5's error stack printing for the span of a call (messages
 * go through err instead) and point the writer's messages at err. */
static void call_begin(vb_v1_output *o, char *err, size_t errlen)
{
  o->w.err = err;
  o->w.errlen = errlen;
  o->w.failed = 0;
  if (err && errlen > 0)
    err[0] = '\0';
  o->have_auto = H5Eget_auto2(H5E_DEFAULT, &o->old_func, &o->old_data) >= 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Restore HDF5's error printing. */
static void call_end(vb_v1_output *o)
{
  if (o->have_auto)
    H5Eset_auto2(H5E_DEFAULT, o->old_func, o->old_data);
}

/* Status code of a status text: 0 for "done", else the code of the
 * failure the text names (VB_EDIVERGED, VB_ENOCONV) or VB_EINVAL. */
static int status_code(const char *status)
{
  if (strcmp(status, "done") == 0)
    return VB_OK;
  if (strncmp(status, "diverged", 8) == 0)
    return VB_EDIVERGED;
  if (strncmp(status, "newton", 6) == 0)
    return VB_ENOCONV;
  return VB_EINVAL;
}

/* Append "name:units" to the table's units text. */
static int units_add(vb_v1_output *o, size_t *len, const char *name, const char *units)
{
  size_t n = strlen(name) + strlen(units) + 3;
  char *grown = realloc(o->units, *len + n);

  if (!grown)
    return -1;
  o->units = grown;
  snprintf(o->units + *len, n, "%s%s:%s", *len ? " " : "", name, units);
  *len += strlen(o->units + *len);
  return 0;
}

/* Add a column to the memory and file row types. */
static int column_add(vb_v1_output *o, size_t *len, const char *name, size_t offset,
                      hid_t mtype, hid_t ftype, const char *units)
{
  if (H5Tinsert(o->row_mtype, name, offset, mtype) < 0 ||
      H5Tinsert(o->row_ftype, name, offset, ftype) < 0 ||
      units_add(o, len, name, units) < 0)
    return fail(&o->w, "cannot add column %s to the study table", name);
  return 0;
}

/* Build the row types of /study/table: index, one float64 per swept
 * parameter, status_code, status, final_energy, energy_balance_error,
 * then per contact impacts, first_impact, mean_contact_duration and
 * max_compression (named "<figure>:<contact>"). */
static int row_types(vb_v1_output *o)
{
  static const char *const figures[CONTACT_COLUMNS] = {
    "impacts", "first_impact", "mean_contact_duration", "max_compression" };
  static const char *const figure_units[CONTACT_COLUMNS] = { "1", "s", "s", "m" };
  const layout *l = &o->lay;
  char name[VB_NAME_MAX + 64];
  size_t len = 0, off;
  hid_t str = H5I_INVALID_HID;
  int p, c, k, rc = -1;

  o->off_params = 8;
  o->off_code = o->off_params + 8 * (size_t)l->nparams;
  o->off_status = o->off_code + 4;
  o->off_final = o->off_status + STATUS_LEN;
  o->off_balance = o->off_final + 8;
  o->off_contacts = o->off_balance + 8;
  o->rowsize = o->off_contacts + 8 * CONTACT_COLUMNS * (size_t)l->first->ncontacts;
  o->row = calloc(1, o->rowsize);
  o->row_mtype = H5Tcreate(H5T_COMPOUND, o->rowsize);
  o->row_ftype = H5Tcreate(H5T_COMPOUND, o->rowsize);
  o->code_mtype = H5Tcreate(H5T_COMPOUND, sizeof(int));
  str = H5Tcopy(H5T_C_S1);
  if (!o->row || o->row_mtype < 0 || o->row_ftype < 0 || o->code_mtype < 0 || str < 0 ||
      H5Tset_size(str, STATUS_LEN) < 0 || H5Tset_strpad(str, H5T_STR_NULLPAD) < 0 ||
      H5Tinsert(o->code_mtype, "status_code", 0, H5T_NATIVE_INT) < 0) {
    fail(&o->w, "cannot build the study table types");
    goto done;
  }
  if (column_add(o, &len, "index", 0, H5T_NATIVE_INT64, H5T_STD_I64LE, "1") < 0)
    goto done;
  for (p = 0; p < l->nparams; p++)
    if (column_add(o, &len, vb_study_param(l->study, p), o->off_params + 8 * (size_t)p,
                   H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, "SI") < 0)
      goto done;
  if (column_add(o, &len, "status_code", o->off_code, H5T_NATIVE_INT32, H5T_STD_I32LE,
                 "1") < 0 ||
      column_add(o, &len, "status", o->off_status, str, str, "-") < 0 ||
      column_add(o, &len, "final_energy", o->off_final, H5T_NATIVE_DOUBLE,
                 H5T_IEEE_F64LE, "J") < 0 ||
      column_add(o, &len, "energy_balance_error", o->off_balance, H5T_NATIVE_DOUBLE,
                 H5T_IEEE_F64LE, "J") < 0)
    goto done;
  for (c = 0; c < l->first->ncontacts; c++) {
    if (check_name(&o->w, "contact", l->first->contacts[c].name) < 0)
      goto done;
    for (k = 0; k < CONTACT_COLUMNS; k++) {
      off = o->off_contacts + 8 * ((size_t)c * CONTACT_COLUMNS + (size_t)k);
      snprintf(name, sizeof name, "%s:%s", figures[k], l->first->contacts[c].name);
      if (column_add(o, &len, name, off, k == 0 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                     k == 0 ? H5T_STD_I64LE : H5T_IEEE_F64LE, figure_units[k]) < 0)
        goto done;
    }
  }
  rc = 0;
done:
  close_id(str);
  return rc;
}

/* Fill the row buffer with the table row of scene `index`. */
static int row_fill(vb_v1_output *o, long index, const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  const char *status = vb_run_status(run);
  const double *total = vb_run_energy(run, 0);
  long n = vb_run_samples(run), i, e, counted;
  int64_t i64;
  int32_t code;
  double x, sum, nan = NAN;
  int p, c;

  if (sc->ncontacts != o->lay.first->ncontacts)
    return fail(&o->w, "scene %ld has %d contacts, scene 0 has %d", index, sc->ncontacts,
                o->lay.first->ncontacts);
  for (c = 0; c < sc->ncontacts; c++)
    if (strcmp(sc->contacts[c].name, o->lay.first->contacts[c].name) != 0)
      return fail(&o->w, "contact %d of scene %ld is '%s', of scene 0 '%s'", c, index,
                  sc->contacts[c].name, o->lay.first->contacts[c].name);
  memset(o->row, 0, o->rowsize);
  i64 = index;
  memcpy(o->row, &i64, 8);
  for (p = 0; p < o->lay.nparams; p++) {
    x = vb_study_value(o->lay.study, index, p);
    memcpy(o->row + o->off_params + 8 * (size_t)p, &x, 8);
  }
  code = status_code(status);
  memcpy(o->row + o->off_code, &code, 4);
  memcpy(o->row + o->off_status, status,
         strlen(status) < STATUS_LEN ? strlen(status) : STATUS_LEN);
  x = n > 0 && total ? total[n - 1] : nan;
  memcpy(o->row + o->off_final, &x, 8);
  x = vb_run_balance_error(run);
  memcpy(o->row + o->off_balance, &x, 8);
  for (c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *r = vb_run_contact(run, c);
    unsigned char *at = o->row + o->off_contacts + 8 * (size_t)c * CONTACT_COLUMNS;

    if (!r)
      return fail(&o->w, "the run has no results for contact %s", sc->contacts[c].name);
    i64 = r->nevents;
    memcpy(at, &i64, 8);
    /* the first impact with a measured onset (a contact engaged at t = 0
     * has none) */
    x = nan;
    for (e = 0; e < r->nevents && !isfinite(x); e++)
      x = r->events[e].t_on;
    memcpy(at + 8, &x, 8);
    sum = 0.0;
    counted = 0;
    for (e = 0; e < r->nevents; e++)
      if (isfinite(r->events[e].duration)) {
        sum += r->events[e].duration;
        counted++;
      }
    x = counted > 0 ? sum / (double)counted : nan;
    memcpy(at + 16, &x, 8);
    x = nan;
    for (i = 0; i < n && r->compression; i++)
      if (!(r->compression[i] <= x))
        x = r->compression[i];
    memcpy(at + 24, &x, 8);
  }
  return 0;
}

/* Create a fixed-size, contiguous, early-allocated 1-d dataset: its rows
 * are rewritten in place, never moved, so a flush leaves earlier rows
 * untouched. */
static hid_t fixed_create(vb_v1_output *o, hid_t loc, const char *name, hid_t ftype,
                          long n, const char *units)
{
  hsize_t dims[1] = { (hsize_t)n };
  hid_t space, dcpl, ds = H5I_INVALID_HID;
  char where[WHERE_MAX];

  snprintf(where, sizeof where, "/study/%s", name);
  space = H5Screate_simple(1, dims, NULL);
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (space >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
      H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
      H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) >= 0)
    ds = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  close_id(dcpl);
  close_id(space);
  if (ds < 0) {
    fail(&o->w, "cannot create dataset %s", where);
    return H5I_INVALID_HID;
  }
  if (attr_string(&o->w, ds, where, "units", units) < 0) {
    close_id(ds);
    return H5I_INVALID_HID;
  }
  return ds;
}

/* Write element `index` of a 1-d dataset from buf (memory type mtype). */
static int element_write(vb_v1_output *o, hid_t ds, const char *what, long index,
                         hid_t mtype, const void *buf)
{
  hsize_t off[1] = { (hsize_t)index }, one[1] = { 1 };
  hid_t fspace = H5Dget_space(ds), mspace = H5Screate_simple(1, one, NULL);
  int rc = -1;

  if (fspace >= 0 && mspace >= 0 &&
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, one, NULL) >= 0 &&
      H5Dwrite(ds, mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  close_id(mspace);
  close_id(fspace);
  if (rc < 0)
    fail(&o->w, "cannot write row %ld of %s", index, what);
  return rc;
}

/* Read a variable-length string attribute; the caller frees the copy. */
static char *attr_read_string(hid_t obj, const char *name)
{
  hid_t attr, type;
  char *value = NULL, *copy = NULL;

  attr = H5Aopen(obj, name, H5P_DEFAULT);
  type = H5Tcopy(H5T_C_S1);
  if (attr >= 0 && type >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
      H5Tset_cset(type, H5T_CSET_UTF8) >= 0 && H5Aread(attr, type, &value) >= 0 && value) {
    copy = strdup(value);
    H5free_memory(value);
  }
  close_id(type);
  close_id(attr);
  return copy;
}

/* Create the file's top level: root attributes, /scenes, /study with its
 * attributes, table and completion marks. */
static int top_create(vb_v1_output *o)
{
  const layout *l = &o->lay;
  hid_t study;
  char where[WHERE_MAX];
  int e;

  errno = 0;
  o->file = H5Fcreate(o->part, H5F_ACC_TRUNC, H5P_DEFAULT, o->fapl);
  if (o->file < 0) {
    e = errno;
    return fail(&o->w, "cannot create %s%s%s", o->part, e ? ": " : "", e ? strerror(e) : "");
  }
  if (attr_string(&o->w, o->file, "/", "format", FORMAT_NAME) < 0 ||
      attr_string(&o->w, o->file, "/", "vibro_version", vb_version()) < 0 ||
      attr_string(&o->w, o->file, "/", "input", l->input) < 0 ||
      attr_string(&o->w, o->file, "/", "source", l->source) < 0)
    return -1;
  /* /scenes lists its groups by name, that is by index, whatever order
   * the threads finished them in */
  o->scenes = H5Gcreate2(o->file, "scenes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (o->scenes < 0)
    return fail(&o->w, "cannot create group /scenes");
  study = group_create(&o->w, o->file, "/", "study", where);
  if (study < 0)
    return -1;
  if (attr_string(&o->w, study, where, "mode", l->mode) < 0 ||
      attr_string(&o->w, study, where, "sweep", l->sweep) < 0 ||
      attr_int64(&o->w, study, where, "scenes", l->nscenes) < 0 ||
      (o->table = fixed_create(o, study, "table", o->row_ftype, l->nscenes,
                               o->units)) < 0 ||
      (o->done = fixed_create(o, study, "done", H5T_STD_U8LE, l->nscenes, "1")) < 0) {
    close_id(study);
    return -1;
  }
  if (close_id(study) < 0)
    return fail(&o->w, "cannot close group /study");
  if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
    return fail(&o->w, "cannot flush %s", o->part);
  return 0;
}

/* Reopen OUT.part to resume: same input, same table; the completion marks
 * are read and every scene group not marked complete is deleted. */
static int top_reopen(vb_v1_output *o)
{
  const layout *l = &o->lay;
  char *text, name[32];
  hid_t space, ftype;
  hssize_t n1 = -1, n2 = -1;
  int same = 0;
  long i;

  o->file = H5Fopen(o->part, H5F_ACC_RDWR, o->fapl);
  if (o->file < 0)
    return fail(&o->w, "cannot reopen %s to resume (damaged, or not an HDF5 file?); run "
                "without --resume to start over", o->part);
  text = attr_read_string(o->file, "format");
  same = text && strcmp(text, FORMAT_NAME) == 0;
  free(text);
  if (!same)
    return fail(&o->w, "%s is not a vibro file (format is not %s); run without --resume "
                "to start over", o->part, FORMAT_NAME);
  text = attr_read_string(o->file, "input");
  same = text && strcmp(text, l->input) == 0;
  free(text);
  if (!same)
    return fail(&o->w, "%s was written for a different input than %s (its input "
                "attribute differs); run without --resume to start over", o->part,
                l->source);
  o->scenes = H5Gopen2(o->file, "scenes", H5P_DEFAULT);
  o->table = H5Dopen2(o->file, "study/table", H5P_DEFAULT);
  o->done = H5Dopen2(o->file, "study/done", H5P_DEFAULT);
  if (o->scenes < 0 || o->table < 0 || o->done < 0)
    return fail(&o->w, "%s lacks /scenes, /study/table or /study/done; run without "
                "--resume to start over", o->part);
  space = H5Dget_space(o->table);
  n1 = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  close_id(space);
  space = H5Dget_space(o->done);
  n2 = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  close_id(space);
  ftype = H5Dget_type(o->table);
  same = ftype >= 0 && H5Tequal(ftype, o->row_ftype) > 0;
  close_id(ftype);
  if (n1 != l->nscenes || n2 != l->nscenes || !same)
    return fail(&o->w, "%s has a study table of another shape; run without --resume to "
                "start over", o->part);
  if (H5Dread(o->done, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, o->complete) < 0 ||
      H5Dread(o->table, o->code_mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, o->codes) < 0)
    return fail(&o->w, "cannot read the completion marks of %s", o->part);
  for (i = 0; i < l->nscenes; i++) {
    if (o->complete[i])
      continue;
    snprintf(name, sizeof name, "%06ld", i);
    if (H5Lexists(o->scenes, name, H5P_DEFAULT) > 0 &&
        H5Ldelete(o->scenes, name, H5P_DEFAULT) < 0)
      return fail(&o->w, "cannot delete the incomplete scene /scenes/%s", name);
  }
  if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
    return fail(&o->w, "cannot flush %s", o->part);
  return 0;
}

/* Release everything an output holds (the file is closed, not renamed). */
static void output_close(vb_v1_output *o)
{
  close_id(o->done);
  close_id(o->table);
  close_id(o->scenes);
  close_id(o->file);
  o->done = o->table = o->scenes = o->file = H5I_INVALID_HID;
}

/* Free an output and its memory; the caller has closed its file. */
static void output_release(vb_v1_output *o)
{
  close_id(o->fapl);
  close_id(o->w.gcpl);
  close_id(o->w.event_ftype);
  close_id(o->w.event_mtype);
  close_id(o->row_mtype);
  close_id(o->row_ftype);
  close_id(o->code_mtype);
  free(o->row);
  free(o->complete);
  free(o->codes);
  free(o->unmarked);
  free(o->units);
  free(o->path);
  free(o->part);
  free(o);
}

/* Open an output for a layout: create OUT.part, or reopen it to resume. */
static int output_open(const char *path, const layout *lay, int resume, vb_v1_output **out,
                       char *err, size_t errlen)
{
  vb_v1_output *o;
  int rc = VB_EIO;

  *out = NULL;
  if (err && errlen > 0)
    err[0] = '\0';
  o = calloc(1, sizeof *o);
  if (!o) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: out of memory", path);
    return VB_ENOMEM;
  }
  o->lay = *lay;
  o->fapl = o->file = o->scenes = o->table = o->done = H5I_INVALID_HID;
  o->row_mtype = o->row_ftype = o->code_mtype = H5I_INVALID_HID;
  o->w.gcpl = o->w.event_mtype = o->w.event_ftype = H5I_INVALID_HID;
  o->w.path = path;
  call_begin(o, err, errlen);
  o->path = strdup(path);
  o->part = malloc(strlen(path) + sizeof PART_SUFFIX);
  o->complete = calloc((size_t)lay->nscenes, 1);
  o->codes = calloc((size_t)lay->nscenes, sizeof *o->codes);
  if (!o->path || !o->part || !o->complete || !o->codes) {
    fail(&o->w, "out of memory");
    rc = VB_ENOMEM;
    goto bad;
  }
  o->w.path = o->path;
  strcpy(o->part, path);
  strcat(o->part, PART_SUFFIX);
  if (event_types(&o->w) < 0 || row_types(o) < 0)
    goto bad;
  o->w.gcpl = H5Pcreate(H5P_GROUP_CREATE);
  /* Groups list their links in creation order (bodies and contacts as in
   * the scene) and keep up to 16 attributes in the object header. */
  if (o->w.gcpl < 0 ||
      H5Pset_link_creation_order(o->w.gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
      H5Pset_attr_phase_change(o->w.gcpl, 16, 12) < 0) {
    fail(&o->w, "cannot set up group creation properties");
    goto bad;
  }
  /* The 1.8 format: readable by HDF5 >= 1.8, and stores attributes larger
   * than 64 KiB (a long scene text) densely instead of failing.  (A large
   * fixed metadata cache, which would hold a scene's changed metadata
   * until its flush, was measured: each flush then walks the whole cache
   * and a study of n scenes costs O(n^2); HDF5's default adaptive cache
   * stays linear.) */
  o->fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (o->fapl < 0 || H5Pset_libver_bounds(o->fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
      H5Pset_fclose_degree(o->fapl, H5F_CLOSE_SEMI) < 0) {
    fail(&o->w, "cannot set up file access properties");
    goto bad;
  }
  if ((resume ? top_reopen(o) : top_create(o)) < 0) {
    rc = resume && o->file >= 0 ? VB_EINVAL : VB_EIO;
    output_close(o);
    if (!resume)
      remove(o->part);
    goto bad;
  }
  call_end(o);
  *out = o;
  return VB_OK;
bad:
  if (!o->w.failed)
    fail(&o->w, "cannot open the output");
  call_end(o);
  output_release(o);
  return rc;
}

/* Open the output of a study. */
int vb_v1_open(const char *path, const vb_study *study, int resume, vb_v1_output **out,
                   char *err, size_t errlen)
{
  layout lay;

  *out = NULL;
  if (!path || !path[0] || !study) {
    if (err && errlen > 0)
      snprintf(err, errlen, "vb_v1_open: %s", study ? "no output path" : "no study");
    return VB_EINVAL;
  }
  lay.input = vb_study_input(study);
  lay.source = vb_study_path(study);
  lay.mode = vb_study_mode(study);
  lay.sweep = vb_study_sweep(study);
  lay.nscenes = vb_study_scenes(study);
  lay.study = study;
  lay.nparams = vb_study_nparams(study);
  lay.first = vb_study_first(study);
  if (lay.first->record_select) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: record.signals needs the vibro-2 format "
               "(VIBRO_FORMAT=vibro-2)", lay.source ? lay.source : path);
    return VB_EINVAL;
  }
  return output_open(path, &lay, resume, out, err, errlen);
}

/* Seconds on a monotonic clock. */
static double seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Mark the scenes written since the last mark complete: flush (their data
 * reaches the file before their marks do), set their marks, flush. */
static int mark_written(vb_v1_output *o)
{
  static const unsigned char one = 1;
  long k;

  o->last_mark = seconds();
  if (o->nunmarked == 0)
    return 0;
  if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
    return fail(&o->w, "cannot flush %s", o->part);
  for (k = 0; k < o->nunmarked; k++)
    if (element_write(o, o->done, "/study/done", o->unmarked[k], H5T_NATIVE_UCHAR, &one) < 0)
      return -1;
  if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
    return fail(&o->w, "cannot flush %s", o->part);
  for (k = 0; k < o->nunmarked; k++)
    o->complete[o->unmarked[k]] = 1;
  o->nunmarked = 0;
  return 0;
}

/* Whether a scene is marked complete. */
int vb_v1_complete(const vb_v1_output *output, long index)
{
  return index >= 0 && index < output->lay.nscenes && output->complete[index];
}

/* Status code of a complete scene. */
int vb_v1_status_code(const vb_v1_output *output, long index)
{
  return vb_v1_complete(output, index) ? output->codes[index] : VB_EINVAL;
}

/* Write one scene, compressing its datasets here. */
int vb_v1_scene(vb_v1_output *o, long index, const vb_run *run, char *err, size_t errlen)
{
  return vb_v1_scene_chunks(o, index, run, NULL, err, errlen);
}

/* Write one scene, its datasets from chunks made ahead by vb_v1_chunks_alloc
 * (NULL: compressed here); mark the scenes written so far complete when
 * the last marking flush is MARK_PERIOD old (flushing after every scene
 * would cost more than a short scene's simulation). */
int vb_v1_scene_chunks(vb_v1_output *o, long index, const vb_run *run,
                           const vb_v1_chunks *chunks, char *err, size_t errlen)
{
  int rc = -1;

  call_begin(o, err, errlen);
  o->w.chunks = chunks;
  o->w.cursor = 0;
  if (index < 0 || index >= o->lay.nscenes || !run || !vb_run_scene(run)) {
    fail(&o->w, "no scene %ld to write (the study has %ld)", index, o->lay.nscenes);
    goto done;
  }
  if (o->complete[index]) {
    fail(&o->w, "scene %ld is already complete", index);
    goto done;
  }
  if (o->nunmarked == o->cap_unmarked) {
    long cap = o->cap_unmarked ? 2 * o->cap_unmarked : 64;
    long *grown = realloc(o->unmarked, (size_t)cap * sizeof *grown);

    if (!grown) {
      fail(&o->w, "out of memory");
      goto done;
    }
    o->unmarked = grown;
    o->cap_unmarked = cap;
  }
  if (row_fill(o, index, run) < 0 || scene_write(&o->w, o->scenes, (int)index, run) < 0 ||
      element_write(o, o->table, "/study/table", index, o->row_mtype, o->row) < 0)
    goto done;
  memcpy(&o->codes[index], o->row + o->off_code, sizeof(int32_t));
  o->unmarked[o->nunmarked++] = index;
  if (seconds() - o->last_mark >= MARK_PERIOD && mark_written(o) < 0)
    goto done;
  rc = 0;
done:
  o->w.chunks = NULL;
  call_end(o);
  return rc == 0 ? VB_OK : VB_EIO;
}

/* Close the file and rename it into place. */
int vb_v1_finish(vb_v1_output *o, char *err, size_t errlen)
{
  int rc = VB_EIO, e;

  call_begin(o, err, errlen);
  if (mark_written(o) < 0) {
    output_close(o);
    goto done;
  }
  close_id(o->done);
  close_id(o->table);
  e = close_id(o->scenes);
  o->done = o->table = o->scenes = H5I_INVALID_HID;
  if (e < 0) {
    fail(&o->w, "cannot close group /scenes");
    output_close(o);
    goto done;
  }
  e = close_id(o->file);
  o->file = H5I_INVALID_HID;
  if (e < 0) {
    fail(&o->w, "cannot close %s", o->part);
    goto done;
  }
  if (sync_file(&o->w, o->part) < 0)
    goto done;
  if (rename(o->part, o->path) < 0) {
    fail(&o->w, "cannot rename %s into place: %s", o->part, strerror(errno));
    goto done;
  }
  rc = VB_OK;
done:
  call_end(o);
  output_release(o);
  return rc;
}

/* Close without finishing; OUT.part stays for a resume. */
void vb_v1_free(vb_v1_output *output)
{
  if (!output)
    return;
  call_begin(output, NULL, 0);
  if (output->file >= 0)
    mark_written(output); /* keep what was written */
  output_close(output);
  call_end(output);
  output_release(output);
}

/* Close without finishing and remove OUT.part. */
static void output_discard(vb_v1_output *o)
{
  char *part = strdup(o->part);

  vb_v1_free(o);
  if (part)
    remove(part);
  free(part);
}

/* Write runs of one scene file: a study of nruns scenes without a sweep. */
int vb_v1_write(const char *path, const vb_run *const *runs, int nruns,
                    char *err, size_t errlen)
{
  layout lay;
  vb_v1_output *o;
  const vb_scene *first;
  char *part;
  int rc, i;

  if (err && errlen > 0)
    err[0] = '\0';
  if (!path || !path[0] || !runs || nruns < 1) {
    if (err && errlen > 0)
      snprintf(err, errlen, "vb_v1_write: %s", !path || !path[0] ? "no output path"
                                                                     : "no runs to write");
    return VB_EINVAL;
  }
  for (i = 0; i < nruns; i++)
    if (runs[i] && vb_run_scene(runs[i]) && vb_run_scene(runs[i])->record_select) {
      if (err && errlen > 0)
        snprintf(err, errlen, "%s: record.signals needs the vibro-2 format", path);
      return VB_EINVAL;
    }
  for (i = 0; i < nruns; i++)
    if (!runs[i] || !vb_run_scene(runs[i])) {
      if (err && errlen > 0)
        snprintf(err, errlen, "%s: run %d is missing", path, i);
      return VB_EINVAL;
    }
  first = vb_run_scene(runs[0]);
  lay.input = first->input;
  lay.source = first->path;
  lay.mode = "none";
  lay.sweep = "";
  lay.nscenes = nruns;
  lay.study = NULL;
  lay.nparams = 0;
  lay.first = first;
  rc = output_open(path, &lay, 0, &o, err, errlen);
  if (rc != VB_OK)
    return rc;
  for (i = 0; i < nruns; i++)
    if ((rc = vb_v1_scene(o, i, runs[i], err, errlen)) != VB_OK) {
      output_discard(o);
      return rc;
    }
  /* no partial file is left behind, even when the rename fails */
  part = strdup(o->part);
  if (!part) {
    output_discard(o);
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: out of memory", path);
    return VB_ENOMEM;
  }
  rc = vb_v1_finish(o, err, errlen);
  if (rc != VB_OK)
    remove(part);
  free(part);
  return rc;
}

/* Join complete per-process files into one. */
int vb_v1_merge(const char *path, const vb_study *study, const char *const *parts,
                    int nparts, char *err, size_t errlen)
{
  static const unsigned char one = 1;
  vb_v1_output *o;
  hid_t *files = NULL, *tables = NULL, *dones = NULL;
  char name[32], src[48];
  long i, n;
  int rc, k, found;

  rc = vb_v1_open(path, study, 0, &o, err, errlen);
  if (rc != VB_OK)
    return rc;
  call_begin(o, err, errlen);
  rc = VB_EIO;
  n = o->lay.nscenes;
  files = malloc((size_t)nparts * sizeof *files);
  tables = malloc((size_t)nparts * sizeof *tables);
  dones = malloc((size_t)nparts * sizeof *dones);
  if (!files || !tables || !dones) {
    fail(&o->w, "out of memory");
    goto done;
  }
  for (k = 0; k < nparts; k++)
    files[k] = tables[k] = dones[k] = H5I_INVALID_HID;
  for (k = 0; k < nparts; k++) {
    files[k] = H5Fopen(parts[k], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (files[k] < 0) {
      fail(&o->w, "cannot open %s", parts[k]);
      goto done;
    }
    tables[k] = H5Dopen2(files[k], "study/table", H5P_DEFAULT);
    dones[k] = H5Dopen2(files[k], "study/done", H5P_DEFAULT);
    if (tables[k] < 0 || dones[k] < 0) {
      fail(&o->w, "%s has no study table", parts[k]);
      goto done;
    }
  }
  /* scene by scene, in index order, from the first part that has it */
  for (i = 0; i < n; i++) {
    hsize_t off[1] = { (hsize_t)i }, cnt[1] = { 1 };

    found = 0;
    for (k = 0; k < nparts && !found; k++) {
      hid_t fspace = H5Dget_space(dones[k]), mspace = H5Screate_simple(1, cnt, NULL);
      unsigned char m = 0;

      if (fspace < 0 || mspace < 0 ||
          H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
          H5Dread(dones[k], H5T_NATIVE_UCHAR, mspace, fspace, H5P_DEFAULT, &m) < 0 ||
          (m && H5Dread(tables[k], o->row_mtype, mspace, fspace, H5P_DEFAULT, o->row) < 0)) {
        close_id(mspace);
        close_id(fspace);
        fail(&o->w, "cannot read scene %ld of %s", i, parts[k]);
        goto done;
      }
      close_id(mspace);
      close_id(fspace);
      if (!m)
        continue;
      found = 1;
      snprintf(name, sizeof name, "%06ld", i);
      snprintf(src, sizeof src, "scenes/%s", name);
      if (H5Ocopy(files[k], src, o->scenes, name, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        fail(&o->w, "cannot copy /scenes/%s from %s", name, parts[k]);
        goto done;
      }
      if (element_write(o, o->table, "/study/table", i, o->row_mtype, o->row) < 0 ||
          element_write(o, o->done, "/study/done", i, H5T_NATIVE_UCHAR, &one) < 0)
        goto done;
      o->complete[i] = 1;
      memcpy(&o->codes[i], o->row + o->off_code, sizeof(int32_t));
    }
    if (!found) {
      fail(&o->w, "scene %ld is complete in none of the %d parts", i, nparts);
      goto done;
    }
  }
  rc = VB_OK;
done:
  for (k = 0; files && k < nparts; k++) {
    close_id(tables ? tables[k] : H5I_INVALID_HID);
    close_id(dones ? dones[k] : H5I_INVALID_HID);
    close_id(files[k]);
  }
  free(files);
  free(tables);
  free(dones);
  call_end(o);
  if (rc != VB_OK) {
    output_discard(o);
    return rc;
  }
  return vb_v1_finish(o, err, errlen);
}
