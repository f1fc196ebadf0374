/* output.c - write runs of a scene file to HDF5, layout "vibro-1".
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
 * Every dataset carries a string attribute "units".  The file is written
 * as PATH.part and renamed onto PATH once it is complete and closed. */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "vibro.h"

#define FORMAT_NAME "vibro-1"
#define PART_SUFFIX ".part"
#define CHUNK_BYTES ((hsize_t)65536 * 8) /* 64 Ki doubles per chunk */
#define DEFLATE_LEVEL 4
#define TIME_BLOCK 65536L                /* samples of time computed at once */
#define WHERE_MAX (3 * VB_NAME_MAX + 64)  /* longest object path we name */

/* State of one call of vb_output_write. */
typedef struct writer {
  const char *path;  /* destination, names every message */
  char *err;
  size_t errlen;
  int failed;        /* a message has been written */
  hid_t gcpl;        /* group creation: track link creation order */
  hid_t event_mtype; /* vb_event as laid out in memory */
  hid_t event_ftype; /* vb_event packed, little-endian, in the file */
  char event_units[512];
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
  { "newton_iterations_max", HOFFSET(vb_event, newton_iterations_max), 1, "1" },
  { "fallbacks", HOFFSET(vb_event, fallbacks), 1, "1" },
  { "samples", HOFFSET(vb_event, samples), 1, "1" },
};

#define NEVENT_FIELDS (sizeof event_fields / sizeof event_fields[0])

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

/* Create a 1-d dataset of n elements of ftype with a "units" attribute:
 * chunked, shuffled and deflated when n > 0, contiguous and empty when
 * n == 0.  Returns the dataset or a negative id. */
static hid_t dataset_create(writer *w, hid_t loc, const char *parent, const char *name,
                            hid_t ftype, long n, const char *units)
{
  char where[WHERE_MAX];
  hsize_t dims[1], chunk[1], cap;
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
    cap = CHUNK_BYTES / esize;
    if (cap < 1)
      cap = 1;
    chunk[0] = dims[0] < cap ? dims[0] : cap;
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

/* Write n doubles as float64. */
static int doubles_write(writer *w, hid_t loc, const char *parent, const char *name,
                         const double *data, long n, const char *units)
{
  return dataset_write(w, loc, parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data,
                       n, units);
}

/* Write the time of sample k, k * every / fs, block by block so that no
 * full-length buffer is needed. */
static int time_write(writer *w, hid_t loc, const char *parent, long n, long every,
                      double fs)
{
  hid_t ds = H5I_INVALID_HID, fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  double *buf = NULL;
  long start, count, i;
  hsize_t off[1], cnt[1];
  int rc = -1;

  ds = dataset_create(w, loc, parent, "time", H5T_IEEE_F64LE, n, "s");
  if (ds < 0)
    return -1;
  if (n > 0) {
    buf = malloc((size_t)(n < TIME_BLOCK ? n : TIME_BLOCK) * sizeof *buf);
    if (!buf) {
      fail(w, "out of memory writing %s/time", parent);
      goto done;
    }
    fspace = H5Dget_space(ds);
    if (fspace < 0)
      goto bad;
    for (start = 0; start < n; start += count) {
      count = n - start < TIME_BLOCK ? n - start : TIME_BLOCK;
      for (i = 0; i < count; i++)
        buf[i] = (double)((start + i) * every) / fs;
      off[0] = (hsize_t)start;
      cnt[0] = (hsize_t)count;
      if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0)
        goto bad;
      mspace = H5Screate_simple(1, cnt, NULL);
      if (mspace < 0)
        goto bad;
      if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) < 0)
        goto bad;
      if (close_id(mspace) < 0) {
        mspace = H5I_INVALID_HID;
        goto bad;
      }
      mspace = H5I_INVALID_HID;
    }
  }
  rc = 0;
  goto done;
bad:
  fail(w, "cannot write dataset %s/time", parent);
done:
  free(buf);
  if (close_id(mspace) < 0 && rc == 0)
    rc = fail(w, "cannot close a dataspace of %s/time", parent);
  if (close_id(fspace) < 0 && rc == 0)
    rc = fail(w, "cannot close a dataspace of %s/time", parent);
  if (close_id(ds) < 0 && rc == 0)
    rc = fail(w, "cannot close dataset %s/time", parent);
  return rc;
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
    for (int j = 0; mrc == 0 && vb_run_modes_q(run, index) && j < b->nmodes; j++) {
      char qn[32];
      snprintf(qn, sizeof qn, "q%04d", j);
      mrc = doubles_write(w, mg, mw, qn, vb_run_modes_q(run, index) + (size_t)j * n, n, "m");
    }
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
  static const char *const names[5] = { "total", "kinetic", "potential", "dissipated",
                                        "external" };
  char where[WHERE_MAX];
  hid_t g;
  int rc = 0, i;

  g = group_create(w, scene, parent, "energy", where);
  if (g < 0)
    return -1;
  for (i = 0; i < 5 && rc == 0; i++)
    rc = doubles_write(w, g, where, names[i], vb_run_energy(run, i), n, "J");
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

/* Write the file under PATH.part, then rename it onto PATH. */
int vb_output_write(const char *path, const vb_run *const *runs, int nruns,
                    char *err, size_t errlen)
{
  writer w;
  H5E_auto2_t old_func = NULL;
  void *old_data = NULL;
  int have_auto;
  hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, scenes = H5I_INVALID_HID;
  const vb_scene *first;
  char *part = NULL;
  char where[WHERE_MAX];
  int rc = VB_EIO, created = 0, i, e;

  if (err && errlen > 0)
    err[0] = '\0';
  if (!path || !path[0] || !runs || nruns < 1) {
    if (err && errlen > 0)
      snprintf(err, errlen, "vb_output_write: %s", !path || !path[0] ? "no output path"
                                                                     : "no runs to write");
    return VB_EINVAL;
  }
  for (i = 0; i < nruns; i++)
    if (!runs[i] || !vb_run_scene(runs[i])) {
      if (err && errlen > 0)
        snprintf(err, errlen, "%s: run %d is missing", path, i);
      return VB_EINVAL;
    }
  part = malloc(strlen(path) + sizeof PART_SUFFIX);
  if (!part) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%s: out of memory", path);
    return VB_ENOMEM;
  }
  strcpy(part, path);
  strcat(part, PART_SUFFIX);

  memset(&w, 0, sizeof w);
  w.path = path;
  w.err = err;
  w.errlen = errlen;
  w.gcpl = w.event_mtype = w.event_ftype = H5I_INVALID_HID;

  have_auto = H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data) >= 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  if (event_types(&w) < 0)
    goto done;
  w.gcpl = H5Pcreate(H5P_GROUP_CREATE);
  /* Groups list their links in creation order (bodies and contacts as in
   * the scene) and keep up to 16 attributes in the object header. */
  if (w.gcpl < 0 ||
      H5Pset_link_creation_order(w.gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
      H5Pset_attr_phase_change(w.gcpl, 16, 12) < 0) {
    fail(&w, "cannot set up group creation properties");
    goto done;
  }
  /* The 1.8 format: readable by HDF5 >= 1.8, and stores attributes larger
   * than 64 KiB (a long scene text) densely instead of failing. */
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
      H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) < 0) {
    fail(&w, "cannot set up file access properties");
    goto done;
  }

  errno = 0;
  file = H5Fcreate(part, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) {
    e = errno;
    fail(&w, "cannot create %s%s%s", part, e ? ": " : "", e ? strerror(e) : "");
    goto done;
  }
  created = 1;

  first = vb_run_scene(runs[0]);
  if (attr_string(&w, file, "/", "format", FORMAT_NAME) < 0 ||
      attr_string(&w, file, "/", "vibro_version", vb_version()) < 0 ||
      attr_string(&w, file, "/", "input", first->input) < 0 ||
      attr_string(&w, file, "/", "source", first->path) < 0)
    goto done;

  scenes = group_create(&w, file, "/", "scenes", where);
  if (scenes < 0)
    goto done;
  for (i = 0; i < nruns; i++)
    if (scene_write(&w, scenes, i, runs[i]) < 0)
      goto done;
  e = close_id(scenes);
  scenes = H5I_INVALID_HID;
  if (e < 0) {
    fail(&w, "cannot close group /scenes");
    goto done;
  }

  e = close_id(file);
  file = H5I_INVALID_HID;
  if (e < 0) {
    fail(&w, "cannot close %s", part);
    goto done;
  }
  if (sync_file(&w, part) < 0)
    goto done;
  if (rename(part, path) < 0) {
    fail(&w, "cannot rename %s into place: %s", part, strerror(errno));
    goto done;
  }
  rc = VB_OK;

done:
  close_id(scenes);
  close_id(file);
  close_id(fapl);
  close_id(w.gcpl);
  close_id(w.event_ftype);
  close_id(w.event_mtype);
  if (rc != VB_OK) {
    if (created)
      remove(part);
    if (!w.failed)
      fail(&w, "cannot write the file");
  }
  if (have_auto)
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  free(part);
  return rc;
}
