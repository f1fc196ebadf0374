/* scene.c - loading and validation of scene files.
 *
 * A scene file is a libconfig document with the top-level keys scene,
 * bodies, contacts, forces and record (see the README).  Everything is
 * checked once, here and in load_body.c and load_contact.c: an unknown
 * key, a wrong type or a value out of range is an error with the file and
 * line, never a silent fallback to a default. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "sweep.h"

/* Largest number of steps a scene may ask for (keeps lround defined). */
#define MAX_STEPS 1e15

/* Load the scene group: name, fs, duration, gravity. */
static int load_scene_group(vb_loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"name", "fs", "duration", "gravity", NULL};
  const char *obj = "scene", *name = NULL;
  vb_scene *sc = ld->scene;
  double steps;
  char num[32];
  int rc;

  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, obj, "name", 1, &name)) != VB_OK)
    return rc;
  if (name[0] == '\0')
    return vb_src_fail(ld, vb_src_at(g, "name"), obj, "'name' must not be empty");
  if (strlen(name) >= VB_NAME_MAX)
    return vb_src_fail(ld, vb_src_at(g, "name"), obj,
                "'name' is too long (valid: at most %d characters)",
                VB_NAME_MAX - 1);
  strcpy(sc->name, name);
  if ((rc = vb_src_number(ld, g, obj, "fs", 1, &sc->fs)) != VB_OK)
    return rc;
  if (!(sc->fs > 0))
    return vb_src_refuse(ld, g, obj, "fs", "> 0", sc->fs);
  if ((rc = vb_src_number(ld, g, obj, "duration", 1, &sc->duration)) != VB_OK)
    return rc;
  if (!(sc->duration > 0))
    return vb_src_refuse(ld, g, obj, "duration", "> 0", sc->duration);
  steps = sc->duration * sc->fs;
  if (!(steps >= 0.5))
    return vb_src_fail(ld, vb_src_at(g, "duration"), obj,
                "'duration' * 'fs' must give at least one step (got %s)",
                vb_number_text(steps, num, sizeof num));
  if (!(steps <= MAX_STEPS))
    return vb_src_fail(ld, vb_src_at(g, "duration"), obj,
                "'duration' * 'fs' must give at most %g steps (got %s)",
                MAX_STEPS, vb_number_text(steps, num, sizeof num));
  sc->gravity = 0.0;
  return vb_src_number(ld, g, obj, "gravity", 0, &sc->gravity);
}

/* Load the record group: every. */
static int load_record(vb_loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"every", "modes", NULL};
  const char *obj = "record";
  const config_setting_t *m;
  int rc;

  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_integer(ld, g, obj, "every", 0, &ld->scene->record_every)) !=
          VB_OK)
    return rc;
  if (ld->scene->record_every < 1)
    return vb_src_refuse(ld, g, obj, "every", ">= 1", (double)ld->scene->record_every);
  m = vb_src_member(g, "modes");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_BOOL)
      return vb_src_fail(ld, m, obj, "'modes' must be true or false");
    ld->scene->record_modes = config_setting_get_bool(m);
  }
  return VB_OK;
}

/* Load a whole parsed document into ld->scene. */
static int load_root(vb_loader *ld, const config_setting_t *root)
{
  static const char *const keys[] = {"scene", "bodies", "contacts", "forces", "record",
                                     NULL};
  const config_setting_t *m;
  char valid[LIST_MAX];
  int i, n = config_setting_length(root), rc;

  vb_key_list(keys, valid, sizeof valid);
  for (i = 0; i < n; i++) {
    const char *key;

    m = config_setting_get_elem(root, (unsigned)i);
    key = config_setting_name(m);
    if (strcmp(key, "sweep") == 0)
      return vb_src_fail(ld, m, "sweep",
                  "a sweep makes this file a study of several scenes (valid: "
                  "load it with vb_study_load)");
    if (!vb_has_key(keys, key))
      return vb_src_fail(ld, m, "top level", "unknown key '%s' (valid: %s)", key,
                  valid);
  }
  m = vb_src_member(root, "scene");
  if (m == NULL)
    return vb_src_fail(ld, root, "top level", "missing required key 'scene'");
  if (config_setting_type(m) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, m, "top level", "'scene' must be a group { ... }");
  if ((rc = load_scene_group(ld, m)) != VB_OK)
    return rc;
  ld->scene->record_every = 1;
  m = vb_src_member(root, "record");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_GROUP)
      return vb_src_fail(ld, m, "top level", "'record' must be a group { ... }");
    if ((rc = load_record(ld, m)) != VB_OK)
      return rc;
  }
  m = vb_src_member(root, "bodies");
  if (m == NULL)
    return vb_src_fail(ld, root, "top level", "missing required key 'bodies'");
  if ((rc = vb_load_bodies(ld, m)) != VB_OK)
    return rc;
  m = vb_src_member(root, "contacts");
  if (m != NULL && (rc = vb_load_contacts(ld, m)) != VB_OK)
    return rc;
  m = vb_src_member(root, "forces");
  return m != NULL ? vb_load_forces(ld, m) : VB_OK;
}

/* Validate a parsed document into a new scene; the common part of all
 * loaders. */
static int load_parsed(const vb_source *src, const config_t *cfg, vb_scene **out,
                       char *err, size_t errlen)
{
  vb_loader ld;
  vb_scene *sc;
  int rc;

  *out = NULL;
  sc = calloc(1, sizeof *sc);
  if (sc == NULL || (sc->path = strdup(src->path)) == NULL ||
      (sc->input = strdup(src->text)) == NULL) {
    vb_scene_free(sc);
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the scene",
                   src->path);
  }
  vb_loader_init(&ld, src, err, errlen, sc);
  rc = load_root(&ld, config_root_setting(cfg));
  if (rc == VB_OK) {
    /* islands: one family each, every mode steppable at this rate */
    vb_island *is;
    int nis;
    rc = vb_islands_build(sc, 1.0 / sc->fs, &is, &nis, err, errlen);
    vb_islands_free(is, nis);
  }
  if (rc != VB_OK) {
    vb_scene_free(sc);
    return rc;
  }
  *out = sc;
  return VB_OK;
}

/* Parse and validate a source. */
static int load_source(const vb_source *src, vb_scene **out, char *err, size_t errlen)
{
  config_t cfg;
  int rc;

  *out = NULL;
  rc = vb_source_parse(src, &cfg, err, errlen);
  if (rc == VB_OK)
    rc = load_parsed(src, &cfg, out, err, errlen);
  config_destroy(&cfg);
  return rc;
}

/* Load one scene of a study from its parsed document, overrides applied:
 * the sweep block is dropped and the rest validated as a plain scene. */
int vb_scene_load_config(const vb_source *src, config_t *cfg, vb_scene **out, char *err,
                         size_t errlen)
{
  config_setting_t *root = config_root_setting(cfg);

  if (config_setting_get_member(root, "sweep") != NULL)
    config_setting_remove(root, "sweep");
  return load_parsed(src, cfg, out, err, errlen);
}

/* Load and validate a scene file. */
int vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_read(path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Load and validate a scene from text, named `path` in messages. */
int vb_scene_load_string(const char *text, const char *path, vb_scene **out,
                         char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_copy(text, path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Free a scene; NULL is a no-op. */
void vb_scene_free(vb_scene *scene)
{
  if (scene == NULL)
    return;
  free(scene->path);
  free(scene->input);
  for (int i = 0; scene->bodies && i < scene->nbodies; i++)
    vb_body_clear(&scene->bodies[i]);
  for (int i = 0; scene->contacts && i < scene->ncontacts; i++)
    vb_drive_clear(&scene->contacts[i].gap_drive);
  free(scene->bodies);
  free(scene->forces);
  free(scene->contacts);
  free(scene);
}

/* Number of steps of a scene: round(duration * fs). */
long vb_scene_steps(const vb_scene *scene)
{
  return lround(scene->duration * scene->fs);
}

/* Number of recorded samples: steps / record_every + 1. */
long vb_scene_samples(const vb_scene *scene)
{
  return vb_scene_steps(scene) / scene->record_every + 1;
}

/* Bytes of the in-memory recording: per sample, u and v of each mass and
 * wall and of each point of a modal object, its modes when recorded,
 * compression, rate and force of each contact and the six energy signals. */
double vb_scene_record_bytes(const vb_scene *scene)
{
  double per_sample = 3.0 * scene->ncontacts + 6.0;

  for (int i = 0; i < scene->nbodies; i++) {
    const vb_body *b = &scene->bodies[i];
    per_sample += 2.0 * (b->kind == VB_BODY_MODAL ? b->npoints : 1);
    if (scene->record_modes && b->kind != VB_BODY_WALL)
      per_sample += b->nmodes;
  }

  return (double)vb_scene_samples(scene) * per_sample * sizeof(double);
}
