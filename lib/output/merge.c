/* output/merge.c - merge the verified shards of OUT.part/ into OUT, block
 * by block of scene indices (memory bounded by MERGE_BYTES per signal, and
 * the block's rows of one shard's signal),
 * through a temporary renamed into place; then remove OUT.part/.  A study
 * held by one shard in index order is renamed without copying. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5util.h"
#include "output.h"

#define PART_SUFFIX ".part"
#define MERGE_BYTES (64.0 * 1024 * 1024) /* staging of one signal of a block */
#define FINAL_TMP   "final.tmp"
#define IMAGE_MAX   (16.0 * 1024 * 1024) /* merged in memory up to this size (as a shard, IMAGE_BYTES):
                                               the image and its copy are held at once */

/* The merge's state. */
typedef struct merge {
  vb_format f;
  const char *path;
  char *part;
  int dirfd;
  vb_shard *sh;
  long nsh, n;   /* shards, scenes */
  int64_t **idx; /* [nsh][rows] scene indices of each shard */
  long *owner;   /* [n] shard that gives scene i */
  long *pos;     /* [n] its row in that shard */
  long *evcount; /* [n] events of scene i */
  long *xcount[VB_XT_MAX]; /* [n] rows of scene i in each observer table (NULL: absent) */
  long x0[VB_XT_MAX];      /* rows of each written so far */
  long xtotal[VB_XT_MAX];  /* and in all */
  long T;
  double interval;
  vb_wpoints points; /* the kill hook's write points */
  char *err;
  size_t errlen;
} merge;

/* A write point of the merge (the kill hook, VIBRO_TEST_KILL_AT). */
static void
tick(merge *m)
{
  vb_write_point(&m->points);
}

/* Rows r0 .. r0+nr-1 of a shard's signal `name` of `rows` rows of ws
 * values each (malloc'ed), or NULL when it has another shape or cannot be
 * read: the merge holds the rows of a block, not the shard's signal. */
static double *
read_rows(hid_t file, const char *name, long rows, long ws, long r0, long nr)
{
  /* a checkpoint's signals are rows of the ranks' laid-out file beside it
   * (HDF5 external storage, output/writer.c): found from the shard's directory */
  hid_t dapl = vb_h5_external_dapl();
  hid_t ds = dapl >= 0 ? H5Dopen2(file, name, dapl) : -1, fspace = ds >= 0 ? H5Dget_space(ds) : -1;
  hid_t mspace = H5I_INVALID_HID;
  hsize_t off[3] = {0, 0, 0}, cnt[3] = {0, 1, 1};
  int rank = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
  double *buf = NULL;

  if (rank >= 1 && rank <= 3 && H5Sget_simple_extent_dims(fspace, cnt, NULL) >= 0 &&
      (long)cnt[0] == rows && H5Sget_simple_extent_npoints(fspace) == (hssize_t)rows * ws &&
      r0 >= 0 && nr > 0 && r0 + nr <= rows &&
      (buf = malloc((size_t)(nr * ws > 0 ? nr * ws : 1) * sizeof *buf)) != NULL && ws > 0) {
    off[0] = (hsize_t)r0;
    cnt[0] = (hsize_t)nr;
    mspace = H5Screate_simple(rank, cnt, NULL);
    if (mspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
        H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) < 0) {
      free(buf);
      buf = NULL;
    }
  }
  vb_h5_close(mspace);
  vb_h5_close(fspace);
  vb_h5_close(ds);
  vb_h5_close(dapl);
  return buf;
}

/* Which shard gives each scene; the table facts of each scene. */
static int
plan(merge *m)
{
  long k, r, i;
  int first = 1;

  m->idx = calloc((size_t)m->nsh + 1, sizeof *m->idx);
  m->owner = malloc((size_t)m->n * sizeof *m->owner);
  m->pos = malloc((size_t)m->n * sizeof *m->pos);
  m->evcount = calloc((size_t)m->n, sizeof *m->evcount);
  if (!m->idx || !m->owner || !m->pos || !m->evcount)
    return vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
  for (i = 0; i < m->n; i++)
    m->owner[i] = -1;
  m->T = 0;
  m->interval = 0.0;
  for (k = 0; k < m->nsh; k++) {
    vb_shard *s = &m->sh[k];
    m->idx[k] = malloc((size_t)(s->rows > 0 ? s->rows : 1) * sizeof **m->idx);
    if (!m->idx[k] || vb_shard_scenes(m->part, s, m->n, m->idx[k], NULL, NULL, NULL, &s->T) < 0)
      return vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read %s/%s", m->path, m->part,
                           s->name);
    for (r = 0; r < s->rows; r++)
      if (m->owner[m->idx[k][r]] < 0) {
        m->owner[m->idx[k][r]] = k;
        m->pos[m->idx[k][r]] = r;
      }
  }
  for (i = 0; i < m->n; i++)
    if (m->owner[i] < 0)
      return vb_errf_first(m->err, m->errlen, VB_EIO,
                           "%s: scene %ld is in no verified shard of %s; run "
                           "again with --resume",
                           m->path, i, m->part);
  /* samples, interval and events of each scene, from the shards' tables */
  for (k = 0; k < m->nsh; k++) {
    const vb_table *t = &m->f.table;
    char *path = vb_part_file(m->part, m->sh[k].name);
    hid_t file = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    unsigned char *rows = NULL;
    long nrows = 0;
    int bad = file < 0 || vb_table_read(file, t, &rows, &nrows) < 0 || nrows != m->sh[k].rows;
    free(path);
    vb_h5_close(file);
    if (bad) {
      free(rows);
      return vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read the table of %s/%s", m->path,
                           m->part, m->sh[k].name);
    }
    for (r = 0; r < m->sh[k].rows; r++) {
      const unsigned char *row = rows + (size_t)r * t->rowsize;
      long n;
      double dt;
      i = m->idx[k][r];
      if (m->owner[i] != k || m->pos[i] != r)
        continue;
      n = vb_row_long(t, row, VB_TC_SAMPLES);
      dt = vb_row_double(t, row, VB_TC_INTERVAL);
      m->evcount[i] = vb_row_long(t, row, VB_TC_EVENTS_COUNT);
      m->T = n > m->T ? n : m->T;
      if (first)
        m->interval = dt;
      else if (dt != m->interval)
        m->interval = 0.0;
      first = 0;
    }
    free(rows);
  }
  return VB_OK;
}

/* The rows of each scene in the observers' tables of the shards (those of
 * the shard that gives the scene). */
static int
plan_xt(merge *m)
{
  for (int x = 0; x < vb_xtable_count(); x++) {
    const vb_table *t = &m->f.xt[x];
    if (t->nfields == 0)
      continue;
    if (!(m->xcount[x] = calloc((size_t)m->n + 1, sizeof *m->xcount[x])))
      return vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
    for (long k = 0; k < m->nsh; k++) {
      char *path = vb_part_file(m->part, m->sh[k].name);
      hid_t file = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
      unsigned char *rows = NULL;
      long nrows = 0;
      int bad = file < 0 || vb_table_read(file, t, &rows, &nrows) < 0;
      free(path);
      vb_h5_close(file);
      for (long r = 0; !bad && r < nrows; r++) {
        long i = vb_row_long(t, rows + (size_t)r * t->rowsize, 0);
        bad = i < 0 || i >= m->n;
        if (!bad && m->owner[i] == k)
          m->xcount[x][i]++;
      }
      free(rows);
      if (bad)
        return vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read /study/%s of %s/%s",
                             m->path, t->name, m->part, m->sh[k].name);
    }
    for (long i = 0; i < m->n; i++)
      m->xtotal[x] += m->xcount[x][i];
  }
  return VB_OK;
}

/* Merge the observers' tables' rows of scenes b0 .. b0+nr-1 from the open
 * shards files[] into st, after the rows of the scenes before them. */
static int
merge_xt(merge *m, vb_stack *st, const hid_t *files, long b0, long nr)
{
  int rc = VB_OK;

  for (int x = 0; x < vb_xtable_count() && rc == VB_OK; x++) {
    const vb_table *t = &m->f.xt[x];
    long total = 0, *at = malloc(((size_t)nr + 1) * sizeof *at);
    unsigned char *out = NULL;
    if (t->nfields == 0) {
      free(at);
      continue;
    }
    for (long i = b0; at && i < b0 + nr; i++) {
      at[i - b0] = total;
      total += m->xcount[x][i];
    }
    if (!at || !(out = malloc(total > 0 ? (size_t)total * t->rowsize : 1)))
      rc = vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
    for (long k = 0; k < m->nsh && rc == VB_OK; k++) {
      unsigned char *rows = NULL;
      long nrows = 0;
      if (files[k] < 0)
        continue;
      if (vb_table_read(files[k], t, &rows, &nrows) < 0)
        rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read /study/%s of %s/%s",
                           m->path, t->name, m->part, m->sh[k].name);
      for (long r = 0; rc == VB_OK && r < nrows; r++) {
        const unsigned char *row = rows + (size_t)r * t->rowsize;
        long i = vb_row_long(t, row, 0);
        if (i >= b0 && i < b0 + nr && m->owner[i] == k)
          memcpy(out + (size_t)at[i - b0]++ * t->rowsize, row, t->rowsize);
      }
      free(rows);
    }
    if (rc == VB_OK)
      rc = vb_stack_write_xt(st, x, m->x0[x], total, m->xtotal[x], out, m->err, m->errlen);
    m->x0[x] += total;
    free(out);
    free(at);
  }
  return rc;
}

/* Copy row r of a shard's signal (width of T_s samples) into a row of the
 * merged file (T samples), NaN past the shard's samples. */
static void
row_copy(const vb_signal_desc *s, double *dst, long T, const double *src, long Ts)
{
  long w = vb_signal_width(s, T), ws = vb_signal_width(s, Ts), k;
  int md;

  if (s->shape == SHAPE_SERIES || s->shape == SHAPE_MODES) {
    /* (a checkpoint's rows may be longer than the study's longest scene,
     * laid out for more: NaN past it) */
    ws = ws < w ? ws : w;
    memcpy(dst, src, (size_t)ws * sizeof *dst);
    for (k = ws; k < w; k++)
      dst[k] = NAN;
    return;
  }
  for (md = 0; md < s->nmodes; md++)
    for (k = 0; k < T; k++)
      dst[(long)md * T + k] = k < Ts ? src[(long)md * Ts + k] : NAN;
}

/* Merge the signals of scenes b0 .. b0+nr-1, one signal at a time, from
 * the open shards files[]. */
static int
merge_signals(merge *m, vb_stack *st, const hid_t *files, long b0, long nr)
{
  const vb_format *f = &m->f;
  long i, k;
  int s, rc = VB_OK;

  for (s = 0; s < f->nsig && rc == VB_OK; s++) {
    long w = vb_signal_width(&f->sig[s], m->T);
    double *stage = malloc((size_t)(nr * w > 0 ? nr * w : 1) * sizeof(double));
    if (!stage) {
      rc = vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
      break;
    }
    for (k = 0; k < m->nsh && rc == VB_OK; k++) {
      char name[sizeof f->sig[s].name + 16];
      double *data;
      long ws = vb_signal_width(&f->sig[s], m->sh[k].T), p0 = -1, p1 = -1;
      if (files[k] < 0)
        continue;
      /* the shard's rows in this block: consecutive (both ascend by index) */
      for (i = b0; i < b0 + nr; i++)
        if (m->owner[i] == k) {
          p0 = p0 < 0 || m->pos[i] < p0 ? m->pos[i] : p0;
          p1 = m->pos[i] > p1 ? m->pos[i] : p1;
        }
      if (p0 < 0)
        continue;
      snprintf(name, sizeof name, "signals/%s", f->sig[s].name);
      data = read_rows(files[k], name, m->sh[k].rows, ws, p0, p1 - p0 + 1);
      if (!data) {
        rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read %s of %s/%s", m->path, name,
                           m->part, m->sh[k].name);
        break;
      }
      for (i = b0; i < b0 + nr; i++)
        if (m->owner[i] == k)
          row_copy(&f->sig[s], stage + (i - b0) * w, m->T, data + (m->pos[i] - p0) * ws,
                   m->sh[k].T);
      free(data);
    }
    if (rc == VB_OK)
      rc = vb_stack_write_signal(st, s, b0, nr, stage, m->err, m->errlen);
    free(stage);
  }
  return rc;
}

/* Gather the table rows and events of scenes b0 .. b0+nr-1 from the open
 * shards files[] into rows and events (the block's first event is row
 * ev0 of the file, scene i's is evat[i - b0]). */
static int
merge_rows(merge *m, const hid_t *files, long b0, long nr, const long *evat, long ev0,
           unsigned char *rows, unsigned char *events)
{
  const vb_format *f = &m->f;
  long i, k;
  int rc = VB_OK;

  for (k = 0; k < m->nsh && rc == VB_OK; k++) {
    const vb_table *t = &f->table, *te = &f->events;
    unsigned char *srows = NULL, *sev = NULL;
    long nrows, nev;
    if (files[k] < 0)
      continue;
    if (vb_table_read(files[k], t, &srows, &nrows) < 0 || nrows != m->sh[k].rows ||
        vb_table_read(files[k], te, &sev, &nev) < 0) {
      free(srows);
      free(sev);
      rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot read %s/%s", m->path, m->part,
                         m->sh[k].name);
      break;
    }
    for (i = b0; i < b0 + nr; i++) {
      unsigned char *row = rows + (size_t)(i - b0) * t->rowsize;
      long start, at;
      if (m->owner[i] != k)
        continue;
      memcpy(row, srows + (size_t)m->pos[i] * t->rowsize, t->rowsize);
      start = vb_row_long(t, row, VB_TC_EVENTS_START);
      /* this scene's events go after those of the scenes before it */
      at = evat[i - b0];
      if (m->evcount[i] > 0 && (start < 0 || start + m->evcount[i] > nev)) {
        rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: the events of scene %ld in %s/%s are not in its events", m->path, i, m->part, m->sh[k].name);
        break;
      }
      if (m->evcount[i] > 0)
        memcpy(events + (size_t)(at - ev0) * te->rowsize, sev + (size_t)start * te->rowsize,
               (size_t)m->evcount[i] * te->rowsize);
      vb_row_set_long(t, row, VB_TC_EVENTS_START, at);
    }
    free(srows);
    free(sev);
  }
  return rc;
}

/* Merge scenes b0 .. b0+nr-1 into st. */
static int
merge_block(merge *m, vb_stack *st, long b0, long nr, long *ev0)
{
  const vb_format *f = &m->f;
  hid_t *files = calloc((size_t)m->nsh, sizeof *files);
  unsigned char *rows = malloc((size_t)nr * f->table.rowsize), *events = NULL;
  long *evat = NULL; /* [nr] first event row of each scene */
  long nev = 0, i, k;
  int rc = VB_OK;

  if (!files || !rows) {
    rc = vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
    goto out;
  }
  for (k = 0; k < m->nsh; k++)
    files[k] = H5I_INVALID_HID;
  evat = malloc((size_t)nr * sizeof *evat);
  for (i = b0; evat && i < b0 + nr; i++) {
    evat[i - b0] = *ev0 + nev;
    nev += m->evcount[i];
  }
  events = malloc(nev > 0 ? (size_t)nev * f->events.rowsize : 1);
  if (!events || !evat) {
    rc = vb_errf_first(m->err, m->errlen, VB_ENOMEM, "%s: out of memory merging", m->path);
    goto out;
  }
  /* open the shards this block needs */
  for (i = b0; i < b0 + nr && rc == VB_OK; i++) {
    k = m->owner[i];
    if (files[k] < 0) {
      char *path = vb_part_file(m->part, m->sh[k].name);
      files[k] = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
      free(path);
      if (files[k] < 0)
        rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot open %s/%s", m->path, m->part,
                           m->sh[k].name);
    }
  }
  if (rc == VB_OK)
    rc = merge_rows(m, files, b0, nr, evat, *ev0, rows, events);
  if (rc == VB_OK)
    rc = vb_stack_write_rows(st, b0, nr, rows, NULL, m->err, m->errlen);
  if (rc == VB_OK)
    rc = vb_stack_write_events(st, *ev0, nev, events, m->err, m->errlen);
  *ev0 += nev;
  if (rc == VB_OK)
    rc = merge_xt(m, st, files, b0, nr);
  if (rc == VB_OK)
    rc = merge_signals(m, st, files, b0, nr);
out:
  for (k = 0; files && k < m->nsh; k++)
    vb_h5_close(files[k]);
  free(files);
  free(rows);
  free(events);
  free(evat);
  return rc;
}

/* Free a merge's memory. */
static void
merge_clear(merge *m)
{
  long k;

  for (k = 0; m->idx && k < m->nsh; k++)
    free(m->idx[k]);
  free(m->idx);
  free(m->owner);
  free(m->pos);
  free(m->evcount);
  for (int x = 0; x < vb_xtable_count(); x++)
    free(m->xcount[x]);
  free(m->sh);
  free(m->part);
  vb_format_clear(&m->f);
  if (m->dirfd >= 0)
    close(m->dirfd);
}

/* Write every scene into tmp (built in memory when it fits: then a full
 * disk is an error of write(), not of HDF5), fsync it and rename it onto
 * OUT.  A nonzero *stop abandons it between blocks. */
static int
merge_write(merge *m, const char *tmp, const volatile int *stop)
{
  vb_stack *st = NULL;
  long b0, B, maxw = 1, ev0 = 0, nev = 0, i;
  int rc, s, in_memory;
  double total = 0.0;
  void *image = NULL;
  size_t ilen = 0;

  for (i = 0; i < m->n; i++)
    nev += m->evcount[i];
  m->T = vb_format_time_length(&m->f, m->T); /* no time axis without signals */
  /* rows per block: one signal's staging within MERGE_BYTES */
  for (s = 0; s < m->f.nsig; s++)
    if (vb_signal_width(&m->f.sig[s], m->T) > maxw)
      maxw = vb_signal_width(&m->f.sig[s], m->T);
  B = (long)(MERGE_BYTES / (8.0 * (double)maxw));
  /* and the block's table rows too (a row per scene holds every contact's) */
  if ((double)B * (double)m->f.table.rowsize > MERGE_BYTES)
    B = (long)(MERGE_BYTES / (double)m->f.table.rowsize);
  B = B < 1 ? 1 : B;
  /* a file that fits is built in memory and written here (write() errors,
   * not HDF5's, on a full disk) */
  for (i = 0; i < m->nsh; i++)
    total += (double)m->sh[i].size;
  /* and its signals (a checkpoint's shard is small: they are elsewhere) */
  {
    double sig = 0.0;
    for (s = 0; s < m->f.nsig; s++)
      sig += 8.0 * (double)m->n * (double)vb_signal_width(&m->f.sig[s], m->T);
    in_memory = total <= IMAGE_MAX && sig <= IMAGE_MAX;
  }
  tick(m);
  rc = vb_stack_create(&m->f, tmp, m->n, m->T, m->interval, nev, in_memory ? VB_STACK_IN_MEMORY : 0,
                       &st, m->err, m->errlen);
  for (b0 = 0; rc == VB_OK && b0 < m->n; b0 += B) {
    if (stop && *stop) {
      rc = vb_errf_first(m->err, m->errlen, VB_EINTR,
                         "%s: interrupted after %ld of %ld scenes; run again "
                         "with --resume (to merge them)",
                         m->path, m->n, m->n);
      break;
    }
    rc = merge_block(m, st, b0, b0 + B <= m->n ? B : m->n - b0, &ev0);
  }
  /* the attractors of the whole study, in scene order */
  if (rc == VB_OK)
    rc = vb_stack_attractors(st, m->err, m->errlen);
  if (rc == VB_OK && in_memory) {
    rc = vb_stack_close_image(st, &image, &ilen, m->err, m->errlen);
    if (rc == VB_OK) {
      int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
      int e = fd < 0 ? errno : vb_write_all(fd, image, ilen, &m->points);
      if (fd >= 0 && close(fd) < 0 && e == 0)
        e = errno;
      if (e != 0) {
        errno = e;
        rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot write %s: %s", m->path, tmp,
                           strerror(e));
      }
    }
    free(image);
  } else if (rc == VB_OK) {
    rc = vb_stack_close(st, m->err, m->errlen);
  } else {
    vb_stack_close(st, NULL, 0);
  }
  st = NULL;
  tick(m);
  if (rc == VB_OK && vb_sync_path(tmp, 0) < 0)
    rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot sync %s: %s", m->path, tmp,
                       strerror(errno));
  tick(m);
  if (rc == VB_OK && rename(tmp, m->path) < 0)
    rc = vb_errf_first(m->err, m->errlen, VB_EIO, "%s: cannot rename %s into place: %s", m->path,
                       tmp, strerror(errno));
  if (rc != VB_OK) {
    if (rc == VB_EIO && m->err && errno && (errno == ENOSPC || errno == EFBIG || errno == EDQUOT)) {
      m->err[0] = '\0';
      vb_errf_first(m->err, m->errlen, VB_EIO,
                    "%s: cannot write the merged file: %s; every scene is kept "
                    "in %s: run again with --resume to finish",
                    m->path,
                    errno == EFBIG ? "the file size limit was reached" : "the disk is full",
                    m->part);
    }
    unlink(tmp);
    return rc;
  }
  return VB_OK;
}

/* Merge every verified shard into OUT. */
int
vb_output_merge(const char *path, const vb_output_layout *lay, const volatile int *stop, char *err,
                size_t errlen)
{
  return vb_output_merge_shards(path, lay, 1, stop, err, errlen);
}

/* Merge the shards into OUT, summing their CRC-32s again with verify. */
int
vb_output_merge_shards(const char *path, const vb_output_layout *lay, int verify,
                       const volatile int *stop, char *err, size_t errlen)
{
  merge m;
  vb_h5quiet q;
  char *tmp = NULL;
  vb_test_hooks hooks;
  int rc;

  if (err && errlen > 0)
    err[0] = '\0';
  memset(&m, 0, sizeof m);
  m.dirfd = -1;
  m.path = path;
  m.n = lay->nscenes;
  m.err = err;
  m.errlen = errlen;
  vb_test_hooks_read(&hooks);
  m.points = (vb_wpoints){.kill_at = hooks.kill_at, .sig = hooks.kill_sig};
  m.part = malloc(strlen(path) + sizeof PART_SUFFIX);
  if (!m.part)
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  strcpy(m.part, path);
  strcat(m.part, PART_SUFFIX);
  vb_h5_quiet_begin(&q);
  rc = vb_format_init(&m.f, lay, err, errlen);
  m.f.points = &m.points;
  if (rc == VB_OK) {
    m.dirfd = open(m.part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (m.dirfd < 0)
      rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot open %s: %s", path, m.part,
                         strerror(errno));
  }
  if (rc == VB_OK)
    rc = vb_part_verified(m.dirfd, m.part, lay, verify, &m.sh, &m.nsh, err, errlen);
  if (rc == VB_OK)
    rc = plan(&m);
  if (rc == VB_OK)
    rc = plan_xt(&m);
  if (rc != VB_OK)
    goto done;
  /* one shard in index order is the file already */
  if (m.nsh == 1 && m.sh[0].rows == m.n && m.sh[0].lo == 0 && m.sh[0].hi == m.n - 1) {
    tmp = vb_part_file(m.part, m.sh[0].name);
    tick(&m);
    if (!tmp || rename(tmp, path) < 0) {
      rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot rename %s into place: %s", path,
                         tmp ? tmp : m.part, strerror(errno));
      goto done;
    }
    goto finished;
  }
  tmp = vb_part_file(m.part, FINAL_TMP);
  if (!tmp) {
    rc = vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  rc = merge_write(&m, tmp, stop);
  if (rc != VB_OK)
    goto done;
finished:
  tick(&m);
  vb_sync_path(path, 1);
  tick(&m);
  vb_part_remove(m.dirfd, m.part);
  rc = VB_OK;
done:
  vb_h5_quiet_end(&q);
  free(tmp);
  merge_clear(&m);
  return rc;
}

/* Write runs of one scene file through OUT.part/ (one batch: written as
 * OUT at once, vb_output_finish). */
int
vb_output_write(const char *path, const vb_run *const *runs, int nruns, char *err, size_t errlen)
{
  vb_output_layout lay;
  vb_output *o;
  const vb_scene *first;
  int rc, i, finished = 0;

  if (err && errlen > 0)
    err[0] = '\0';
  if (!path || !path[0] || !runs || nruns < 1)
    return vb_errf_first(err, errlen, VB_EINVAL, "vb_output_write: %s",
                         !path || !path[0] ? "no output path" : "no runs to write");
  for (i = 0; i < nruns; i++)
    if (!runs[i] || !vb_run_scene(runs[i]))
      return vb_errf_first(err, errlen, VB_EINVAL, "%s: run %d is missing", path, i);
  first = vb_run_scene(runs[0]);
  memset(&lay, 0, sizeof lay);
  lay.input = first->input;
  lay.source = first->path;
  lay.mode = "none";
  lay.sweep = "";
  lay.nscenes = nruns;
  lay.first = first;
  rc = vb_output_open(path, &lay, 0, 0, &o, err, errlen);
  for (i = 0; rc == VB_OK && i < nruns; i++)
    rc = vb_output_scene(o, i, NULL, runs[i], err, errlen);
  /* every scene in one batch, nothing written before: the batch is OUT,
   * fsync'ed and renamed into place with no manifest line or merge (as
   * `vibro run` writes a study run to its end); else shards, merged */
  if (rc == VB_OK)
    rc = vb_output_finish(o, &finished, err, errlen);
  vb_output_free(o);
  if (rc == VB_OK && !finished)
    rc = vb_output_merge(path, &lay, NULL, err, errlen);
  return rc;
}
