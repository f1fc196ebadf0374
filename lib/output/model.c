/* output/model.c - /model of a vibro-3 file: scene 0's bodies and contacts
 * with their parameters as attributes (doc/format.md).  Knows nothing of
 * shards, studies or threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5util.h"
#include "model.h"

/* An attribute `name` of n values of `file_type` from buf (of `mem_type`)
 * on g; 0 or -1. */
static int
array_attr(hid_t g, const char *name, hid_t file_type, hid_t mem_type, const void *buf, int n)
{
  hsize_t len = (hsize_t)n;
  hid_t space = H5Screate_simple(1, &len, NULL);
  hid_t at = space >= 0 ? H5Acreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = at >= 0 && H5Awrite(at, mem_type, buf) >= 0 ? 0 : -1;
  if (at >= 0)
    rc |= vb_h5_close(at);
  if (space >= 0)
    rc |= vb_h5_close(space);
  return rc;
}

/* An int64 attribute of the n indices idx; 0 or -1. */
static int
indices_attr(hid_t g, const char *name, const int *idx, int n)
{
  long long *v = malloc((size_t)n * sizeof *v);
  if (v == NULL)
    return -1;
  for (int j = 0; j < n; j++)
    v[j] = idx[j];
  int rc = array_attr(g, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, v, n);
  free(v);
  return rc;
}

/* The modes of modal body b dropped at load at or above fs/2 (issue 18
 * item 4, lib/scene/nyquist.c): nmodes, the modes stepped, and, when some were
 * dropped, modes_dropped, int64 [ndropped], their indices among the modes
 * as the scene gave them; 0 or -1. */
static int
dropped_write(hid_t g, const vb_body *b)
{
  int rc = vb_h5_attr_int64(g, "nmodes", b->nmodes);
  if (b->ndropped == 0 || rc != 0)
    return rc;
  return indices_attr(g, "modes_dropped", b->dropped, b->ndropped);
}

/* The frequencies of modal body b's modes along w (issue 30 item 6: the
 * fundamental vibro-plot's schelleng counts slips against), w_modes_freq,
 * float64 [nwmodes], Hz, and those dropped at or above fs/2 as
 * modes_dropped is for the modes along u, w_modes_dropped; nothing for a
 * body without modes along w.  0 or -1. */
static int
wfreq_write(hid_t g, const vb_body *b)
{
  if (b->nwmodes <= 0)
    return 0;
  int rc = array_attr(g, "w_modes_freq", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, b->wfreq, b->nwmodes);
  if (b->nwdropped == 0 || rc != 0)
    return rc;
  return indices_attr(g, "w_modes_dropped", b->wdropped, b->nwdropped);
}

/* Write /model: scene 0's bodies and contacts. */
int
vb_model_write(const vb_format *f, hid_t file)
{
  static const char *const kinds[] = {"mass", "wall", "modal"};
  const vb_scene *sc = f->lay.first;
  hid_t model = H5Gcreate2(file, "model", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t bodies = model >= 0 ? H5Gcreate2(model, "bodies", 0, 0, 0) : -1;
  hid_t contacts = model >= 0 ? H5Gcreate2(model, "contacts", 0, 0, 0) : -1;
  vb_h5_attrs a = {0}; /* a dataspace and string types for all of them */
  int rc = model >= 0 && bodies >= 0 && contacts >= 0 ? 0 : -1, i;

  rc |= vb_h5_attrs_string(&a, model, "name", sc->name);
  rc |= vb_h5_attrs_double(&a, model, "fs", sc->fs);
  rc |= vb_h5_attrs_double(&a, model, "duration", sc->duration);
  rc |= vb_h5_attrs_double(&a, model, "gravity", sc->gravity);
  rc |= vb_h5_attr_int64(model, "record_every", sc->record_every);
  rc |= vb_h5_attr_int64(model, "steps", vb_scene_steps(sc));
  for (i = 0; i < sc->nbodies && rc == 0; i++) {
    const vb_body *b = &sc->bodies[i];
    hid_t g = H5Gcreate2(bodies, b->name, 0, 0, 0);
    rc |= g < 0 ? -1 : 0;
    /* the scene file's type ("oscillator" is a mass on a spring) */
    rc |= vb_h5_attrs_string(&a, g, "type", b->type ? b->type : kinds[b->kind]);
    if (b->kind == VB_BODY_MASS) {
      rc |= vb_h5_attrs_double(&a, g, "mass", b->mass);
      rc |= vb_h5_attrs_double(&a, g, "v0", b->v0);
      if (b->k != 0.0 || b->c != 0.0) {
        rc |= vb_h5_attrs_double(&a, g, "k", b->k);
        rc |= vb_h5_attrs_double(&a, g, "c", b->c);
      }
    }
    if (b->kind != VB_BODY_MODAL)
      rc |= vb_h5_attrs_double(&a, g, "u0", b->u0);
    else {
      rc |= dropped_write(g, b);
      rc |= wfreq_write(g, b);
    }
    rc |= vb_h5_close(g);
  }
  for (i = 0; i < sc->ncontacts && rc == 0; i++) {
    const vb_contact *c = &sc->contacts[i];
    const char *between[2] = {sc->bodies[c->a].name, sc->bodies[c->b].name};
    hid_t g = H5Gcreate2(contacts, c->name, 0, 0, 0);
    rc |= g < 0 ? -1 : 0;
    /* a contact without a normal law (issue 30: a bow) says "none" and
     * its prescribed normal force instead of the law's parameters */
    rc |= vb_h5_attrs_string(&a, g, "law", c->normal_given ? "none" : vb_law_name(c->law.kind));
    rc |= vb_h5_attrs_string(&a, g, "scheme", c->scheme ? c->scheme->name : "");
    if (c->normal_given) {
      rc |= vb_h5_attrs_double(&a, g, "normal_force", c->normal_force);
      rc |= vb_h5_attrs_string(&a, g, "normal_force_units", "N");
      if (c->normal_drive.kind == VB_DRIVE_SINE) {
        /* its profile N + A sin(2 pi f t + phase) */
        rc |= vb_h5_attrs_double(&a, g, "normal_force_amplitude", c->normal_drive.amplitude);
        rc |= vb_h5_attrs_double(&a, g, "normal_force_freq", c->normal_drive.freq);
        rc |= vb_h5_attrs_double(&a, g, "normal_force_phase", c->normal_drive.phase);
      }
    }
    /* the law's own parameters, from the law table (the spring's c, e of
     * the restitution laws), each with its units in "<key>_units" */
    for (const vb_law_param *p = vb_law_info_of(c->law.kind)->params;
         p->key && rc == 0 && !c->normal_given; p++) {
      char units[VB_NAME_MAX + 8];
      snprintf(units, sizeof units, "%s_units", p->key);
      rc |= vb_h5_attrs_double(&a, g, p->key, vb_law_param_value(&c->law, p));
      rc |= vb_h5_attrs_string(&a, g, units, p->units);
    }
    rc |= vb_h5_attrs_double(&a, g, "gap", c->gap);
    rc |= vb_h5_attr_strings(g, "between", between, 2);
    /* its friction law (issue 30 item 6), from the friction table:
     * "friction" its name and "friction_<key>" each parameter with its
     * units in "friction_<key>_units", for vibro-plot's friction curve;
     * nothing for a contact without friction (files unchanged) */
    const vb_friction_info *fi = vb_friction_info_of(c->friction.kind);
    if (fi != NULL) {
      rc |= vb_h5_attrs_string(&a, g, "friction", fi->name);
      for (const vb_friction_param *p = fi->params; p->key && rc == 0; p++) {
        char key[VB_NAME_MAX + 16], units[VB_NAME_MAX + 24];
        double x;
        memcpy(&x, (const char *)&c->friction + p->offset, sizeof x);
        snprintf(key, sizeof key, "friction_%s", p->key);
        snprintf(units, sizeof units, "friction_%s_units", p->key);
        rc |= vb_h5_attrs_double(&a, g, key, x);
        rc |= vb_h5_attrs_string(&a, g, units, p->units);
      }
      /* the points of modal bodies it joins ("" for a mass or a wall),
       * so that its w and vw signals can be found (bodies.B.P.w) */
      const vb_body *ba = &sc->bodies[c->a], *bb = &sc->bodies[c->b];
      const char *points[2] = {ba->kind == VB_BODY_MODAL ? ba->points[c->pa].name : "",
                               bb->kind == VB_BODY_MODAL ? bb->points[c->pb].name : ""};
      rc |= vb_h5_attr_strings(g, "friction_points", points, 2);
    }
    rc |= vb_h5_close(g);
  }
  rc |= vb_h5_attrs_done(&a);
  rc |= vb_h5_close(contacts);
  rc |= vb_h5_close(bodies);
  rc |= vb_h5_close(model);
  return rc;
}
