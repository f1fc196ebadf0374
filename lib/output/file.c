/* output/file.c - one HDF5 file of stacked scenes in the vibro-3 layout
 * (doc/format.md), written block by block: /study (its tables through
 * output/table.c), /model, /signals with their dimension scales.  Knows nothing of shards, studies or threads. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <hdf5_hl.h>

#include "h5util.h"
#include "image.h"
#include "model.h"
#include "output.h"

/* ------------------------------------------------- a file of stacked scenes */

struct vb_stack {
  const vb_format *f;
  char *path;
  hid_t file, scene, time, *sig, *params;
  hid_t *table, *events; /* [fields] the tables' datasets; events NULL until created */
  hid_t *xt[VB_XT_MAX]; /* [fields] the observers' tables' datasets, NULL until created */
  hid_t study;
  long rows, T;
  double interval;
  int flags; /* VB_STACK_* */
  const vb_stack_ext *ext; /* the signals' rows in another file, or NULL */
  vb_image_hold *hold; /* built in memory: where its image goes at close (output/image.c) */
};

/* Values of an axis written at a time (1 MiB). */
#define AXIS_BLOCK 131072L

/* Write the time axis of T samples, k * interval s, or with interval 0
 * the sample axis, k: a block at a time (a whole 60 s axis at 44.1 kHz was
 * a buffer of 21 MB, most of the peak memory of a run recording in
 * place).  0 or -1. */
static int
axis_write(hid_t ds, long T, double interval)
{
  long n = T < AXIS_BLOCK ? T : AXIS_BLOCK, k0, k;
  double *t = interval > 0 ? malloc((size_t)(n > 0 ? n : 1) * sizeof *t) : NULL;
  int64_t *i = interval > 0 ? NULL : malloc((size_t)(n > 0 ? n : 1) * sizeof *i);
  int rc = t || i ? 0 : -1;

  for (k0 = 0; rc == 0 && k0 < T; k0 += n) {
    long m = T - k0 < n ? T - k0 : n;
    for (k = 0; k < m; k++) {
      if (t)
        t[k] = (double)(k0 + k) * interval;
      else
        i[k] = k0 + k;
    }
    rc = vb_h5_write_rows(ds, t ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, k0, m, t ? (void *)t
                                                                               : (void *)i);
  }
  free(t);
  free(i);
  return rc;
}

/* The mode scale of body b ("mode.B", int64 0 .. nmodes-1; its modes
 * along w: "wmode.B", 0 .. nwmodes-1); -1 on failure. */
static hid_t
mode_scale(const vb_format *f, hid_t sg, int b, int nmodes, int along_w)
{
  char name[VB_NAME_MAX + 16];
  hsize_t nm = (hsize_t)nmodes;
  int64_t *k = malloc((size_t)(nmodes + 1) * sizeof *k);
  hid_t h;

  snprintf(name, sizeof name, "%s.%s", along_w ? "wmode" : "mode", f->lay.first->bodies[b].name);
  h = vb_h5_scale_dataset(sg, name, H5T_STD_I64LE, 1, &nm, "1");
  for (int i = 0; k && i < nmodes; i++)
    k[i] = i;
  if (!k || h < 0 || H5DSset_scale(h, name) < 0 ||
      (nm > 0 && H5Dwrite(h, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, k) < 0)) {
    vb_h5_close(h);
    h = H5I_INVALID_HID;
  }
  free(k);
  return h;
}

/* The point scale of the distributed contact whose n points are contacts
 * c .. c+n-1 ("point.NAME": float64, each point's position x on its modal
 * body, m; attributes contact, the contact's name, first_contact, the
 * index of point 0 in /study/table/contact, and body); -1 on failure. */
static hid_t
point_scale(const vb_format *f, hid_t sg, int c, int n)
{
  const vb_scene *sc = f->lay.first;
  const vb_contact *ct = &sc->contacts[c];
  int modal = sc->bodies[ct->a].kind == VB_BODY_MODAL ? ct->a : ct->b;
  char name[VB_NAME_MAX + 16];
  hsize_t np = (hsize_t)n;
  double *x = malloc((size_t)(n + 1) * sizeof *x);
  hid_t h;

  snprintf(name, sizeof name, "point.%s", ct->group);
  h = vb_h5_scale_dataset(sg, name, H5T_IEEE_F64LE, 1, &np, "m");
  for (int k = 0; x && k < n; k++) {
    const vb_contact *e = &sc->contacts[c + k];
    x[k] = sc->bodies[modal].points[modal == e->a ? e->pa : e->pb].x;
  }
  if (!x || h < 0 || H5DSset_scale(h, name) < 0 ||
      (np > 0 && H5Dwrite(h, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) ||
      vb_h5_attr_string(h, "contact", ct->group) < 0 ||
      vb_h5_attr_int64(h, "first_contact", c) < 0 ||
      vb_h5_attr_string(h, "body", sc->bodies[modal].name) < 0) {
    vb_h5_close(h);
    h = H5I_INVALID_HID;
  }
  free(x);
  return h;
}

/* The scale of a [rows][time] or [rows] signal's rows, made on first use:
 * scales[b] a body's modes, scales[nbodies + c] the points of the
 * distributed contact from contact c, scales[nbodies + ncontacts + b] a
 * body's modes along w; -1 on failure. */
static hid_t
rows_scale(const vb_format *f, hid_t sg, const vb_signal_desc *sd, hid_t *scales)
{
  const vb_scene *sc = f->lay.first;
  int at = sd->shape == SHAPE_POINTS_SERIES ? sc->nbodies + sd->instance
           : sd->along_w                    ? sc->nbodies + sc->ncontacts + sd->body
                                            : sd->body;

  if (scales[at] < 0)
    scales[at] = sd->shape == SHAPE_POINTS_SERIES
                     ? point_scale(f, sg, sd->instance, sd->nmodes)
                     : mode_scale(f, sg, sd->body, sd->nmodes, sd->along_w);
  return scales[at];
}

/* Create the /signals group: coordinates, swept values and signals. */
static int
signals_create(vb_stack *st, hid_t sg)
{
  const vb_format *f = st->f;
  hsize_t d[3];
  hid_t sample = H5I_INVALID_HID;
  vb_h5_dims dims = {0};
  int s, p, b, rc = 0, nscales = 2 * f->lay.first->nbodies + f->lay.first->ncontacts;
  hid_t *scales = calloc((size_t)nscales + 1, sizeof *scales);

  if (!scales)
    return -1;
  for (b = 0; b < nscales; b++)
    scales[b] = H5I_INVALID_HID;
  d[0] = (hsize_t)st->rows;
  st->scene = vb_h5_scale_dataset(sg, "scene", H5T_STD_I64LE, 1, d, "1");
  rc |= st->scene < 0 || H5DSset_scale(st->scene, "scene") < 0 ? -1 : 0;
  if (st->interval > 0) {
    d[0] = (hsize_t)st->T;
    st->time = vb_h5_scale_dataset(sg, "time", H5T_IEEE_F64LE, 1, d, "s");
    rc |= st->time < 0 || H5DSset_scale(st->time, "time") < 0 ? -1 : 0;
  } else {
    d[0] = (hsize_t)st->T;
    sample = vb_h5_scale_dataset(sg, "sample", H5T_STD_I64LE, 1, d, "1");
    rc |= sample < 0 || H5DSset_scale(sample, "sample") < 0 ? -1 : 0;
    d[0] = (hsize_t)st->rows;
    d[1] = (hsize_t)st->T;
    st->time = vb_h5_dataset(sg, "time", H5T_IEEE_F64LE, 2, d, "s");
    if (st->time < 0)
      rc = -1;
    else
      rc |= vb_h5_dims_attach(&dims, st->time, (hid_t[2]){st->scene, sample}, 2);
  }
  if (rc == 0)
    rc = axis_write(st->interval > 0 ? st->time : sample, st->T, st->interval);
  for (p = 0; p < f->lay.nparams && rc == 0; p++) {
    d[0] = (hsize_t)st->rows;
    st->params[p] = vb_h5_dataset(sg, f->lay.param_names[p], H5T_IEEE_F64LE, 1, d, f->lay.param_units[p]);
    rc |= st->params[p] < 0 || vb_h5_dims_attach(&dims, st->params[p], &st->scene, 1) < 0 ? -1 : 0;
  }
  for (s = 0; s < f->nsig && rc == 0; s++) {
    const vb_signal_desc *sd = &f->sig[s];
    hid_t tscale = st->interval > 0 ? st->time : sample;
    hid_t rows = sd->shape == SHAPE_SERIES ? H5I_INVALID_HID : rows_scale(f, sg, sd, scales);
    hid_t at[3];
    int rank = 0;

    d[rank++] = (hsize_t)st->rows;
    if (sd->shape != SHAPE_SERIES) {
      if (rows < 0) {
        rc = -1;
        break;
      }
      d[rank++] = (hsize_t)sd->nmodes;
    }
    if (sd->shape != SHAPE_MODES)
      d[rank++] = (hsize_t)st->T;
    if (st->ext) {
      /* its rows where they are: a segment per run of consecutive rows */
      const vb_stack_ext *x = st->ext;
      int64_t len = (int64_t)vb_signal_width(sd, st->T) * 8, *seg = NULL;
      if (len > 0 && !(seg = malloc((size_t)x->nruns * 2 * sizeof *seg))) {
        rc = -1;
        break;
      }
      for (long j = 0; len > 0 && j < x->nruns; j++) {
        seg[2 * j] = x->off[s] + (int64_t)x->runs[2 * j] * len;
        seg[2 * j + 1] = (int64_t)x->runs[2 * j + 1] * len;
      }
      st->sig[s] = len > 0 ? vb_h5_dataset_external(sg, sd->name, rank, d, sd->units, x->name, seg,
                                                    (int)x->nruns)
                           : vb_h5_dataset(sg, sd->name, H5T_IEEE_F64LE, rank, d, sd->units);
      free(seg);
    } else
      st->sig[s] = vb_h5_dataset_early(sg, sd->name, H5T_IEEE_F64LE, rank, d, sd->units,
                                       (st->flags & VB_STACK_LAID) != 0);
    /* [scene], then the modes' or points' scale, then time */
    at[0] = st->scene;
    at[1] = sd->shape == SHAPE_SERIES ? tscale : rows;
    at[2] = tscale;
    if (st->sig[s] < 0 || vb_h5_dims_attach(&dims, st->sig[s], at, rank) < 0)
      rc = -1;
  }
  /* each scale's list of its datasets, once (vb_h5_dims_attach) */
  if (vb_h5_dims_done(&dims) < 0)
    rc = -1;
  for (b = 0; b < nscales; b++)
    vb_h5_close(scales[b]);
  free(scales);
  vb_h5_close(sample);
  return rc;
}

/* Create /study/events of n rows. */
static int
events_create(vb_stack *st, long n)
{
  st->events = malloc(((size_t)st->f->events.nfields + 1) * sizeof *st->events);
  if (!st->events)
    return -1;
  return vb_table_create(st->study, &st->f->events, n, st->events);
}

/* Create a stacked file. */
static int
stack_create(const vb_format *f, const char *path, long rows, long T, double interval,
             long nevents, int flags, const vb_stack_ext *ext, vb_stack **out, char *err,
             size_t errlen)
{
  const vb_output_layout *l = &f->lay;
  vb_stack *st = calloc(1, sizeof *st);
  hid_t fapl = H5I_INVALID_HID, study, sg = H5I_INVALID_HID;
  int rc = -1, s;

  *out = NULL;
  if (!st)
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  st->f = f;
  st->ext = ext;
  st->rows = rows;
  st->T = T;
  st->interval = interval;
  st->flags = flags;
  st->file = st->study = st->scene = st->time = H5I_INVALID_HID;
  st->path = strdup(path);
  st->sig = malloc(((size_t)f->nsig + 1) * sizeof *st->sig);
  st->params = malloc(((size_t)l->nparams + 1) * sizeof *st->params);
  st->table = malloc(((size_t)f->table.nfields + 1) * sizeof *st->table);
  if (!st->path || !st->sig || !st->params || !st->table) {
    vb_stack_close(st, NULL, 0);
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  }
  for (s = 0; s < f->nsig; s++)
    st->sig[s] = H5I_INVALID_HID;
  for (s = 0; s < l->nparams; s++)
    st->params[s] = H5I_INVALID_HID;
  for (s = 0; s < f->table.nfields; s++)
    st->table[s] = H5I_INVALID_HID;
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* built in memory: the caller takes the image (vb_stack_close_image) and
   * writes it, so a full disk is an error of write(), not of HDF5 */
  if ((flags & VB_STACK_IN_MEMORY) && fapl >= 0 &&
      vb_image_fapl(fapl, f, rows, T, nevents, &st->hold) < 0)
    vb_h5_close(fapl), fapl = H5I_INVALID_HID;
  /* laid out for writes from outside HDF5: no sieve buffer may hold (and
   * write back) raw data of the file */
  if ((flags & VB_STACK_LAID) && fapl >= 0 && H5Pset_sieve_buf_size(fapl, 0) < 0)
    vb_h5_close(fapl), fapl = H5I_INVALID_HID;
  /* and its signals start on a page (64 KiB or more of them), where a
   * scene's recording is mapped (output/laid.c, vb_laid_map_scene) */
  if ((flags & VB_STACK_LAID) && fapl >= 0 && H5Pset_alignment(fapl, 65536, 4096) < 0)
    vb_h5_close(fapl), fapl = H5I_INVALID_HID;
  /* the earliest format that holds the layout (superblock 0: a file
   * image of it is valid, which 1.10 does not ensure for superblock 2),
   * at most 1.8's: readable by HDF5 >= 1.8 */
  if (fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18) >= 0)
    st->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  vb_h5_close(fapl);
  if (st->file < 0)
    goto done;
  if (vb_h5_attr_string(st->file, "format", VB_FORMAT_NAME) < 0 ||
      vb_h5_attr_string(st->file, "vibro_version", vb_version()) < 0 ||
      vb_h5_attr_string(st->file, "input", l->input) < 0 ||
      vb_h5_attr_string(st->file, "source", l->source) < 0 ||
      (l->inputs && vb_h5_attr_fixed(st->file, "inputs", l->inputs) < 0) ||
      vb_h5_attr_int64(st->file, "scenes", rows) < 0)
    goto done;
  study = st->study = H5Gcreate2(st->file, "study", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (study < 0 || vb_h5_attr_string(study, "mode", l->mode) < 0 ||
      vb_h5_attr_string(study, "sweep", l->sweep) < 0 ||
      vb_h5_attr_int64(study, "scenes", l->nscenes) < 0 ||
      vb_h5_attr_strings(study, "params", (const char *const *)l->param_names, (size_t)l->nparams) <
          0 ||
      vb_h5_attr_strings(study, "param_units", (const char *const *)l->param_units,
                         (size_t)l->nparams) < 0)
    goto done;
  if (vb_table_create(study, &f->table, rows, st->table) < 0 ||
      (nevents >= 0 && events_create(st, nevents) < 0))
    goto done;
  if (vb_model_write(f, st->file) < 0)
    goto done;
  sg = H5Gcreate2(st->file, "signals", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (sg < 0 || signals_create(st, sg) < 0)
    goto done;
  rc = 0;
done:
  vb_h5_close(sg);
  st->ext = NULL; /* the caller's, used while the signals are created */
  if (rc < 0) {
    vb_stack_close(st, NULL, 0);
    return vb_errf_first(err, errlen, VB_EIO, "cannot create %s", path);
  }
  *out = st;
  return VB_OK;
}

int
vb_stack_create(const vb_format *f, const char *path, long rows, long T, double interval,
                long nevents, int flags, vb_stack **out, char *err, size_t errlen)
{
  return stack_create(f, path, rows, T, interval, nevents, flags, NULL, out, err, errlen);
}

/* A file whose signals are rows of another file (ext): HDF5 external
 * storage, no signal value written here. */
int
vb_stack_create_external(const vb_format *f, const char *path, long rows, long T, double interval,
                         long nevents, const vb_stack_ext *ext, vb_stack **out, char *err,
                         size_t errlen)
{
  return stack_create(f, path, rows, T, interval, nevents, 0, ext, out, err, errlen);
}

/* Write rows [r0, r0 + nr) of a dataset of rank 1-3 from buf: a write
 * point, then the writeback of what was written before, when there is
 * something to write. */
static int
rows_write(const vb_format *f, hid_t ds, hid_t mtype, long r0, long nr, const void *buf)
{
  long w = vb_h5_row_values(ds);

  if (w < 0)
    return -1;
  if (nr == 0 || w == 0)
    return 0;
  vb_write_point(f->points);
  vb_wb_push(f->wb);
  return vb_h5_write_rows(ds, mtype, r0, nr, buf);
}

/* Write rows of the file. */
int
vb_stack_write_rows(vb_stack *st, long r0, long nr, const unsigned char *rows,
                    double *const *sigbuf, char *err, size_t errlen)
{
  const vb_format *f = st->f;
  const vb_table *t = &f->table;
  int64_t *idx = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *idx);
  double *col = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *col), *tbuf = NULL;
  long r, k;
  int s, p, rc = 0;

  if (!idx || !col)
    rc = -1;
  for (r = 0; rc == 0 && r < nr; r++)
    idx[r] = vb_row_long(t, rows + (size_t)r * t->rowsize, VB_TC_SCENE);
  if (rc == 0 && nr > 0) {
    vb_write_point(f->points);
    vb_wb_push(f->wb);
  }
  if (rc == 0 && (vb_table_write(t, st->table, r0, nr, rows) < 0 ||
                  rows_write(f, st->scene, H5T_NATIVE_INT64, r0, nr, idx) < 0))
    rc = -1;
  for (p = 0; p < f->lay.nparams && rc == 0; p++) {
    for (r = 0; r < nr; r++)
      memcpy(&col[r], rows + (size_t)r * t->rowsize + t->at[VB_TC_SWEPT] + 8 * (size_t)p, 8);
    rc = rows_write(f, st->params[p], H5T_NATIVE_DOUBLE, r0, nr, col);
  }
  if (rc == 0 && st->interval <= 0 && st->T > 0) {
    /* time per scene: its own interval, NaN past its samples */
    tbuf = malloc((size_t)nr * (size_t)st->T * sizeof *tbuf);
    for (r = 0; tbuf && r < nr; r++) {
      const unsigned char *row = rows + (size_t)r * t->rowsize;
      long n = vb_row_long(t, row, VB_TC_SAMPLES);
      double dt = vb_row_double(t, row, VB_TC_INTERVAL);
      for (k = 0; k < st->T; k++)
        tbuf[r * st->T + k] = k < n ? (double)k * dt : NAN;
    }
    rc = tbuf ? rows_write(f, st->time, H5T_NATIVE_DOUBLE, r0, nr, tbuf) : -1;
  }
  for (s = 0; sigbuf && s < f->nsig && rc == 0; s++)
    rc = rows_write(f, st->sig[s], H5T_NATIVE_DOUBLE, r0, nr, sigbuf[s]);
  free(idx);
  free(col);
  free(tbuf);
  if (rc < 0)
    return vb_errf_first(err, errlen, VB_EIO, "cannot write scenes to %s", st->path);
  return VB_OK;
}

/* Write rows of one signal from buf [nr][width(T)]. */
int
vb_stack_write_signal(vb_stack *st, int s, long r0, long nr, const double *buf, char *err,
                      size_t errlen)
{
  if (rows_write(st->f, st->sig[s], H5T_NATIVE_DOUBLE, r0, nr, buf) < 0)
    return vb_errf_first(err, errlen, VB_EIO, "cannot write %s to %s", st->f->sig[s].name,
                         st->path);
  return VB_OK;
}

/* File offset of signal s's data, or -1 (not allocated, not contiguous). */
int64_t
vb_stack_signal_offset(const vb_stack *st, int s)
{
  haddr_t a = s >= 0 && s < st->f->nsig ? H5Dget_offset(st->sig[s]) : HADDR_UNDEF;

  return a == HADDR_UNDEF ? -1 : (int64_t)a;
}

/* Write event rows. */
int
vb_stack_write_events(vb_stack *st, long e0, long ne, const unsigned char *events, char *err,
                      size_t errlen)
{
  if (!st->events && e0 == 0 && events_create(st, ne) < 0)
    /* created by vb_stack_create with nevents < 0: ne rows now */
    return vb_errf_first(err, errlen, VB_EIO, "cannot create events in %s", st->path);
  if (ne > 0) {
    vb_write_point(st->f->points);
    vb_wb_push(st->f->wb);
  }
  if (!st->events || vb_table_write(&st->f->events, st->events, e0, ne, events) < 0)
    return vb_errf_first(err, errlen, VB_EIO, "cannot write events to %s", st->path);
  return VB_OK;
}

/* Write rows of observer table x, creating it at the first write. */
int
vb_stack_write_xt(vb_stack *st, int x, long r0, long nr, long total, const unsigned char *rows,
                  char *err, size_t errlen)
{
  const vb_table *t = &st->f->xt[x];

  if (!st->xt[x]) {
    st->xt[x] = malloc(((size_t)t->nfields + 1) * sizeof *st->xt[x]);
    if (!st->xt[x] || vb_table_create(st->study, t, total, st->xt[x]) < 0)
      return vb_errf_first(err, errlen, VB_EIO, "cannot create /study/%s in %s", t->name,
                           st->path);
  }
  if (nr > 0) {
    vb_write_point(st->f->points);
    vb_wb_push(st->f->wb);
  }
  if (vb_table_write(t, st->xt[x], r0, nr, rows) < 0)
    return vb_errf_first(err, errlen, VB_EIO, "cannot write /study/%s to %s", t->name, st->path);
  return VB_OK;
}

/* The open u and v datasets of a file's sections, for the attractor pass. */
typedef struct cycle_src {
  hid_t u, v;
  int np;
} cycle_src;

/* Rows first .. first+m-1 of a [section][point] dataset into buf[m][np]. */
static int
rows_read(hid_t ds, long first, long m, int np, double *buf)
{
  hsize_t start[2] = {(hsize_t)first, 0}, count[2] = {(hsize_t)m, (hsize_t)np};
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(2, count, NULL);
  int rc = fs >= 0 && ms >= 0 &&
                   H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                   H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf) >= 0
               ? 0
               : -1;
  vb_h5_close(fs);
  vb_h5_close(ms);
  return rc;
}

/* m samples of the sections from row first, [m][u0 v0 u1 v1 ...]. */
static int
cycle_read(void *ctx, long first, long m, double *x)
{
  const cycle_src *c = ctx;
  double *u = malloc(2 * (size_t)m * (size_t)c->np * sizeof *u);
  int rc = u && rows_read(c->u, first, m, c->np, u) == 0 &&
                   rows_read(c->v, first, m, c->np, u + (size_t)m * (size_t)c->np) == 0
               ? 0
               : -1;

  for (long r = 0; rc == 0 && r < m; r++)
    for (int p = 0; p < c->np; p++) {
      x[(r * c->np + p) * 2] = u[r * c->np + p];
      x[(r * c->np + p) * 2 + 1] = u[(m + r) * c->np + p];
    }
  free(u);
  return rc;
}

/* Assign the file's attractor ids from its own table and sections: the
 * table whole (it is rewritten), of the sections only each periodic
 * scene's last cycle. */
int
vb_stack_attractors(vb_stack *st, char *err, size_t errlen)
{
  const vb_format *f = st->f;
  const int xs = vb_xtable_index("sections"); /* the analysis's (run/analysis.c) */
  const vb_table *sx = xs >= 0 ? &f->xt[xs] : NULL;
  cycle_src src = {.u = H5I_INVALID_HID, .v = H5I_INVALID_HID};
  unsigned char *rows = NULL;
  long n = 0;
  int rc = VB_OK;

  if (!sx || sx->nfields == 0 || !st->xt[xs])
    return VB_OK;
  for (int i = 0; i < sx->nfields; i++)
    if (strcmp(sx->field[i].name, "u") == 0 || strcmp(sx->field[i].name, "v") == 0) {
      *(sx->field[i].name[0] == 'u' ? &src.u : &src.v) = st->xt[xs][i];
      src.np = sx->field[i].width;
    }
  if (vb_table_read(st->file, &f->table, &rows, &n) < 0)
    rc = vb_errf_first(err, errlen, VB_EIO, "cannot read the table back from %s", st->path);
  else if (vb_table_attractors(&f->table, rows, n, src.np, cycle_read, &src, f->lay.first) < 0)
    rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot match the attractors (out of memory, "
                                            "or the sections could not be read)",
                       st->path);
  else if (vb_table_write(&f->table, st->table, 0, n, rows) < 0)
    rc = vb_errf_first(err, errlen, VB_EIO, "cannot write the attractors to %s", st->path);
  free(rows);
  return rc;
}

/* Close a stacked file held in memory, returning its image. */
int
vb_stack_close_image(vb_stack *st, void **image, size_t *len, char *err, size_t errlen)
{
  ssize_t n;
  vb_image_hold *h = st->hold;
  char where[256];
  int rc;

  *image = NULL;
  *len = 0;
  if (!h || H5Fflush(st->file, H5F_SCOPE_LOCAL) < 0 ||
      (n = H5Fget_file_image(st->file, NULL, 0)) <= 0) {
    vb_stack_close(st, NULL, 0);
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory making the file image",
                         st->path);
  }
  /* the driver's buffer is handed over when the file closes: the closed
   * file, its end (which the close lowers, releasing the space HDF5 kept
   * for more metadata) read from its superblock (vb_image_size) */
  vb_image_hold_take(h);
  st->hold = NULL;
  snprintf(where, sizeof where, "%s", st->path);
  rc = vb_stack_close(st, err, errlen);
  *image = vb_image_hold_end(h, rc == VB_OK);
  *len = *image ? vb_image_size(*image, (size_t)n) : 0;
  if (rc == VB_OK && *len == 0) {
    /* closed, but nothing (or no superblock 0) handed over */
    free(*image);
    *image = NULL;
    return vb_errf_first(err, errlen, VB_EIO, "%s: HDF5 handed over no image of it at its close",
                         where);
  }
  return rc;
}

/* Free a stack's memory (its HDF5 objects closed, or with closed 0 left
 * open: the image's hold, which HDF5 may still use, is then kept). */
static void
stack_free(vb_stack *st, int closed)
{
  free(vb_image_hold_end(st->hold, closed));
  free(st->sig);
  free(st->params);
  free(st->table);
  free(st->events);
  for (int s = 0; s < vb_xtable_count(); s++)
    free(st->xt[s]);
  free(st->path);
  free(st);
}

/* Close a stacked file. */
int
vb_stack_close(vb_stack *st, char *err, size_t errlen)
{
  int rc = 0, s, closed;

  if (!st)
    return VB_OK;
  if (st->file >= 0 && H5Fflush(st->file, H5F_SCOPE_LOCAL) < 0) {
    /* the last writes failed (a full disk, a file size limit): flushed
     * again by H5Fclose, HDF5 1.10 tears the file down half way and loses
     * it (LeakSanitizer: 1 MB lost from H5F__dest, a 14 MB scene under
     * ulimit -f 4000, tests/study.sh).  Leave the file and its objects
     * open, reachable from HDF5's tables: the run ends on this error and
     * vibro's main skips HDF5's exit handler (H5dont_atexit) */
    vb_errf_first(err, errlen, VB_EIO, "cannot close %s", st->path ? st->path : "the output");
    stack_free(st, 0);
    return VB_EIO;
  }
  for (s = 0; st->sig && s < st->f->nsig; s++)
    rc |= vb_h5_close(st->sig[s]);
  for (s = 0; st->params && s < st->f->lay.nparams; s++)
    rc |= vb_h5_close(st->params[s]);
  rc |= vb_h5_close(st->scene);
  rc |= vb_h5_close(st->time);
  for (s = 0; st->table && s < st->f->table.nfields; s++)
    rc |= vb_h5_close(st->table[s]);
  for (s = 0; st->events && s < st->f->events.nfields; s++)
    rc |= vb_h5_close(st->events[s]);
  for (int x = 0; x < vb_xtable_count(); x++)
    for (s = 0; st->xt[x] && s < st->f->xt[x].nfields; s++)
      rc |= vb_h5_close(st->xt[x][s]);
  rc |= vb_h5_close(st->study);
  closed = st->file < 0 || H5Fclose(st->file) >= 0;
  if (!closed) {
    /* a write failed (a full disk): HDF5 keeps the file open, and would
     * crash flushing it again at exit; drop every object of it.  The file
     * itself is left open: closing it again crashed in H5F__close (HDF5
     * 1.10, a 14 MB scene under ulimit -f 4000, tests/study.sh); vibro's
     * main skips HDF5's exit handler (H5dont_atexit) */
    hid_t ids[64];
    ssize_t n, i;
    rc = -1;
    while ((n = H5Fget_obj_ids(st->file, H5F_OBJ_ALL & ~H5F_OBJ_FILE, 64, ids)) > 0) {
      for (i = 0; i < n; i++)
        H5Idec_ref(ids[i]);
      if (n < 64)
        break;
    }
  }
  if (rc != 0)
    vb_errf_first(err, errlen, VB_EIO, "cannot close %s", st->path ? st->path : "the output");
  stack_free(st, closed);
  return rc ? VB_EIO : VB_OK;
}

/* Copy a scene's values of signal s (n samples) into a row of T samples,
 * NaN past its own. */
static void
stage_row(const vb_signal_desc *s, double *row, long T, const double *src, long n)
{
  long w = vb_signal_width(s, T), own = vb_signal_width(s, n), k;
  int m;

  if (s->shape == SHAPE_SERIES || s->shape == SHAPE_MODES) {
    memcpy(row, src, (size_t)own * sizeof(double));
    for (k = own; k < w; k++)
      row[k] = NAN;
    return;
  }
  /* [mode][T] from [mode][n], or [point][T] from [point][n] */
  for (m = 0; m < s->nmodes; m++)
    for (k = 0; k < T; k++)
      row[(long)m * T + k] = k < n ? src[(long)m * n + k] : NAN;
}

/* The rows of observer table x of packed scenes, one after another. */
static int
xt_write(vb_stack *st, int x, vb_packed_scene *const *sc, long n, char *err, size_t errlen)
{
  size_t size = st->f->xt[x].rowsize;
  long total = 0, at = 0;
  unsigned char *rows;
  int rc;

  for (long i = 0; i < n; i++)
    total += sc[i]->nx[x];
  if (!(rows = malloc(total > 0 ? (size_t)total * size : 1)))
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", st->path);
  for (long i = 0; i < n; i++) {
    if (sc[i]->nx[x] > 0)
      memcpy(rows + (size_t)at * size, sc[i]->xrows[x], (size_t)sc[i]->nx[x] * size);
    at += sc[i]->nx[x];
  }
  rc = vb_stack_write_xt(st, x, 0, total, total, rows, err, errlen);
  free(rows);
  return rc;
}

/* Write the table rows (with where their events start) and the events of
 * packed scenes, rows 0 .. n-1 of the file. */
int
vb_stack_write_scenes(vb_stack *st, vb_packed_scene *const *sc, long n, char *err, size_t errlen)
{
  const vb_format *f = st->f;
  unsigned char *rows = NULL, *events = NULL;
  long nev = 0, i, e = 0;
  int rc;

  for (i = 0; i < n; i++)
    nev += sc[i]->nevents;
  rows = malloc((size_t)(n > 0 ? n : 1) * f->table.rowsize);
  events = malloc(nev > 0 && n > 1 ? (size_t)nev * f->events.rowsize : 1);
  if (!rows || !events) {
    free(rows);
    free(events);
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", st->path);
  }
  for (i = 0; i < n; i++) {
    unsigned char *row = rows + (size_t)i * f->table.rowsize;
    memcpy(row, sc[i]->row, f->table.rowsize);
    vb_row_set_long(&f->table, row, VB_TC_EVENTS_START, e);
    vb_row_set_long(&f->table, row, VB_TC_EVENTS_COUNT, sc[i]->nevents);
    /* one scene's events are written from where they are */
    if (sc[i]->nevents > 0 && n > 1)
      memcpy(events + (size_t)e * f->events.rowsize, sc[i]->events,
             (size_t)sc[i]->nevents * f->events.rowsize);
    e += sc[i]->nevents;
  }
  rc = vb_stack_write_rows(st, 0, n, rows, NULL, err, errlen);
  if (rc == VB_OK)
    rc = vb_stack_write_events(st, 0, nev, n == 1 && nev > 0 ? sc[0]->events : events, err,
                               errlen);
  for (int x = 0; x < vb_xtable_count() && rc == VB_OK; x++)
    if (f->xt[x].nfields > 0)
      rc = xt_write(st, x, sc, n, err, errlen);
  /* the attractors among this file's scenes (the whole study's in the
   * finished file; a shard's are its own until the merge) */
  if (rc == VB_OK)
    rc = vb_stack_attractors(st, err, errlen);
  free(rows);
  free(events);
  return rc;
}

/* Write a batch of packed scenes as one file. */
int
vb_stack_write_batch(const vb_format *f, const char *path, vb_packed_scene *const *sc, long n,
                     void **image, size_t *image_len, char *err, size_t errlen)
{
  vb_stack *st = NULL;
  double interval = n > 0 ? sc[0]->interval : 1.0;
  long T = 0, nev = 0, i, wmax = 1;
  int s, rc, borrowed = n == 1;
  double *stage = NULL;

  for (i = 0; i < n; i++) {
    T = sc[i]->samples > T ? sc[i]->samples : T;
    nev += sc[i]->nevents;
    if (sc[i]->interval != interval)
      interval = 0.0;
  }
  T = vb_format_time_length(f, T);
  rc = vb_stack_create(f, path, n, T, interval, nev, image ? VB_STACK_IN_MEMORY : 0, &st, err,
                       errlen);
  if (rc == VB_OK)
    rc = vb_stack_write_scenes(st, sc, n, err, errlen);
  /* signals one at a time, stacked [scene][T] and padded with NaN, in one
   * staging buffer (filled by the threads when not called from a parallel
   * region); one scene is written from where it is */
  for (s = 0; s < f->nsig; s++)
    wmax = vb_signal_width(&f->sig[s], T) > wmax ? vb_signal_width(&f->sig[s], T) : wmax;
  if (!borrowed && rc == VB_OK) {
    stage = malloc((size_t)(n * wmax > 0 ? n * wmax : 1) * sizeof(double));
    if (!stage)
      rc = vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  }
  for (s = 0; s < f->nsig && rc == VB_OK; s++) {
    long w = vb_signal_width(&f->sig[s], T);

#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > 64)                                              \
    num_threads(f->threads > 0 ? f->threads : omp_get_max_threads())
#endif
    for (i = 0; i < (stage ? n : 0); i++)
      stage_row(&f->sig[s], stage + i * w, T, sc[i]->sig[s], sc[i]->samples);
    rc = vb_stack_write_signal(st, s, 0, n, stage ? stage : sc[0]->sig[s], err, errlen);
  }
  free(stage);
  if (rc == VB_OK && image)
    rc = vb_stack_close_image(st, image, image_len, err, errlen);
  else if (rc == VB_OK)
    rc = vb_stack_close(st, err, errlen);
  else
    vb_stack_close(st, NULL, 0);
  return rc;
}
