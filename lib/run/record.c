/* record.c - what a run records: the signal table, the recording, and
 * each sample.
 *
 * The table below is the one list of recorded signals.  vb_run_alloc sizes
 * the recording by iterating it, one block holding every series of nrec
 * samples in table order (object by object); the scene loader checks
 * record.signals against it, and the writer (output/layout.c) lists the
 * file's signals from it, with names, groups and units (vb_signal_*). */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "run.h"

/* Contact c's stored energy: its law's potential V(x) at the compression
 * the sample records (NaN where that is NaN), J.  Its sum over the
 * contacts plus the bodies' potential is energy.potential for two-level
 * and explicit schemes; three-level ones average V over two levels. */
static double
contact_potential(const vb_run *run, int c)
{
  const vb_island_state *is = run->states[run->contact_island[c]];
  double x = is->hist[run->contact_local[c]].x;
  return isnan(x) ? x : vb_law_potential(&is->act[run->contact_local[c]].law, x);
}

/* Contact c's scheme state, its first double (sav: psi, J^(1/2)); NaN for
 * a scheme without state. */
static double
contact_aux(const vb_run *run, int c)
{
  const vb_chist *h = &run->states[run->contact_island[c]]->hist[run->contact_local[c]];
  return h->st ? h->st[0] : NAN;
}

/* Any point signal (vb_signal_body reads its object alone). */
static const vb_signal table_w_row = {"w", "m", VB_SIGNAL_POINT, NULL, NULL, 0, 1};

/* The tangential signals (issue 30): a point's w and its rate (instance i
 * of a point signal is a mass's point 0) and a spin; a contact's
 * friction force, slip, work, stick and bristle are friction_run.c's
 * accessors, named in the table as they are. */
static double
point_w(const vb_run *run, int i)
{
  int p, b = vb_signal_body(&table_w_row, run->scene, i, &p);
  return vb_run_point_w(run, b, p);
}

static double
point_vw(const vb_run *run, int i)
{
  int p, b = vb_signal_body(&table_w_row, run->scene, i, &p);
  return vb_run_point_vw(run, b, p);
}

static double
point_spin(const vb_run *run, int i)
{
  int p;
  return vb_run_body_spin(run, vb_signal_body(&table_w_row, run->scene, i, &p));
}

/* The recorded signals, in the order of the recording.  The energies
 * follow vb_energy. */
static const vb_signal table[] = {
    {"total", "J", VB_SIGNAL_SCENE, "kinetic + potential energy", NULL, 0, 0},
    {"kinetic", "J", VB_SIGNAL_SCENE, "kinetic energy of the modes", NULL, 0, 0},
    {"potential", "J", VB_SIGNAL_SCENE, "potential energy of the modes and contacts", NULL, 0, 0},
    {"dissipated", "J", VB_SIGNAL_SCENE, "energy taken by damping, running", NULL, 0, 0},
    {"external", "J", VB_SIGNAL_SCENE, "work of gravity, forces and drivers, running", NULL, 0, 0},
    {"correction", "J", VB_SIGNAL_SCENE, "energy added by Papetti's corrections, running", NULL, 0, 0},
    {"u", "m", VB_SIGNAL_POINT, "displacement", NULL, 0, 0},
    {"v", "m/s", VB_SIGNAL_POINT, "velocity (three-level: of the step into the sample)", NULL, 0, 0},
    {"q", "m", VB_SIGNAL_MODES, "modal displacements, one row per mode", NULL, 0, 0},
    {"compression", "m", VB_SIGNAL_CONTACT, "compression, positive in contact", NULL, 0, 0},
    {"rate", "m/s", VB_SIGNAL_CONTACT, "compression rate", NULL, 0, 0},
    {"force", "N", VB_SIGNAL_CONTACT, "contact force (what the scheme holds)", NULL, 0, 0},
    {"potential", "J", VB_SIGNAL_CONTACT, "the law's potential V(x) at the compression",
     contact_potential, 1, 0},
    {"aux", "J^(1/2)", VB_SIGNAL_CONTACT,
     "the scheme's auxiliary variable (sav: psi, sqrt(2 V) as stepped); NaN without one",
     contact_aux, 1, 0},
    /* the tangential direction and friction (issue 30; friction.c): only
     * where a scene has them (vb_signal_applies) */
    {"w", "m", VB_SIGNAL_POINT, "displacement along the tangential direction w", point_w, 0, 1},
    {"vw", "m/s", VB_SIGNAL_POINT, "velocity along w", point_vw, 0, 1},
    {"spin", "rad/s", VB_SIGNAL_POINT,
     "angular velocity of a mass's spin (counter-clockwise with w to the right, u up)",
     point_spin, 0, 2},
    {"ft", "N", VB_SIGNAL_CONTACT,
     "friction force on body b along +w (on a along -w), held over the step into the sample",
     vb_run_friction_force, 0, 1},
    {"slip", "m/s", VB_SIGNAL_CONTACT,
     "slip rate, the mean rate of w_b - w_a over the step into the sample (0 while sticking)",
     vb_run_friction_slip, 0, 1},
    {"friction_work", "J", VB_SIGNAL_CONTACT,
     "energy taken by friction, running (a rigid contact's may fall at a step: doc/rigid.md)",
     vb_run_friction_work, 0, 1},
    {"normal", "N", VB_SIGNAL_CONTACT,
     "normal force that bounded the friction of the step into the sample (|ft| <= mu N)",
     vb_run_friction_normal, 1, 1},
    {"stick", "1", VB_SIGNAL_CONTACT, "1 while the contact sticks over the step into the sample, "
     "0 while it slips", vb_run_friction_sticks, 0, 1},
    {"bristle", "m", VB_SIGNAL_CONTACT,
     "bristle deflection z of an elasto-plastic friction law at the sample (its state)",
     vb_run_friction_bristle, 0, 3},
    /* last, so that the rows before keep their indices (ROW_WQ) */
    {"q", "m", VB_SIGNAL_MODES, "modal displacements along w, one row per mode along w "
     "(bodies/B/wmodes/q)", NULL, 0, 4},
};
#define NSIGNALS ((int)(sizeof table / sizeof table[0]))
enum { ROW_U = VB_ENERGY_COUNT, ROW_V, ROW_Q, ROW_COMPRESSION, ROW_RATE, ROW_FORCE };
#define ROW_WQ (NSIGNALS - 1) /* a modal body's modes along w (issue 30 item 6) */

/* Number of steps of a scene: round(duration * fs). */
long
vb_scene_steps(const vb_scene *scene)
{
  return lround(scene->duration * scene->fs);
}

/* Number of recorded samples: steps / record_every + 1 (here, with the
 * recording, so that the loader's use of the signal table is the only
 * arrow between scene.c and record.c). */
long
vb_scene_samples(const vb_scene *scene)
{
  return vb_scene_steps(scene) / scene->record_every + 1;
}

/* The table of recorded signals. */
const vb_signal *
vb_signal_table(int *n)
{
  *n = NSIGNALS;
  return table;
}

/* Recorded points of a body: its named points, or one for masses and walls. */
static int
points_of(const vb_body *b)
{
  return b->kind == VB_BODY_MODAL ? b->npoints : 1;
}

/* Whether body b records its modes. */
static int
records_modes(const vb_scene *sc, int b)
{
  return sc->record_modes && sc->bodies[b].kind != VB_BODY_WALL;
}

/* Instances of a signal in a scene: from the index of vb_record_index
 * where the scene has one (counted body by body, the layout's walk over
 * bodies made a run of 10^5 masses n^2: 36 % of 3 10^4 masses' run). */
int
vb_signal_count(const vb_signal *s, const vb_scene *sc)
{
  int n = 0;
  switch (s->object) {
  case VB_SIGNAL_SCENE: return 1;
  case VB_SIGNAL_POINT:
    if (sc->point_first)
      return sc->point_first[sc->nbodies];
    for (int b = 0; b < sc->nbodies; b++)
      n += points_of(&sc->bodies[b]);
    return n;
  case VB_SIGNAL_MODES:
    if (sc->modes_first)
      return sc->modes_first[sc->nbodies];
    for (int b = 0; b < sc->nbodies; b++)
      n += records_modes(sc, b);
    return n;
  case VB_SIGNAL_CONTACT: return sc->ncontacts;
  }
  return 0;
}

/* Index the point and modes signals' instances by body (the prefix sums of
 * points_of and records_modes), so that vb_signal_body is a binary search:
 * counted from the first body each time it made a run of 100,000 masses
 * cost 10^10 steps before its first.  VB_OK or VB_ENOMEM. */
int
vb_record_index(vb_scene *sc)
{
  sc->point_first = malloc(((size_t)sc->nbodies + 1) * sizeof *sc->point_first);
  sc->modes_first = malloc(((size_t)sc->nbodies + 1) * sizeof *sc->modes_first);
  if (!sc->point_first || !sc->modes_first)
    return VB_ENOMEM;
  sc->point_first[0] = sc->modes_first[0] = 0;
  for (int b = 0; b < sc->nbodies; b++) {
    sc->point_first[b + 1] = sc->point_first[b] + points_of(&sc->bodies[b]);
    sc->modes_first[b + 1] = sc->modes_first[b] + records_modes(sc, b);
  }
  return VB_OK;
}

/* The body whose instances [first[b], first[b + 1]) hold instance i, or -1. */
static int
indexed_body(const int *first, int nbodies, int i)
{
  int lo = 0, hi = nbodies;
  if (i < 0 || i >= first[nbodies])
    return -1;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (first[mid] <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Body of instance i of a point or modes signal, and its point in *point
 * (0 for masses and walls); -1 for the other signals. */
int
vb_signal_body(const vb_signal *s, const vb_scene *sc, int i, int *point)
{
  *point = -1;
  if (s->object != VB_SIGNAL_POINT && s->object != VB_SIGNAL_MODES)
    return -1;
  const int *first = s->object == VB_SIGNAL_POINT ? sc->point_first : sc->modes_first;
  if (first) {
    int b = indexed_body(first, sc->nbodies, i);
    if (b >= 0)
      *point = i - first[b];
    return b;
  }
  for (int b = 0; b < sc->nbodies; b++) {
    int n = s->object == VB_SIGNAL_POINT ? points_of(&sc->bodies[b]) : records_modes(sc, b);
    if (i < n) {
      *point = i;
      return b;
    }
    i -= n;
  }
  return -1;
}

/* Rows of instance i (nmodes for modes, nwmodes for the modes along w,
 * else 1). */
int
vb_signal_rows(const vb_signal *s, const vb_scene *sc, int i)
{
  int p, b = s->object == VB_SIGNAL_MODES ? vb_signal_body(s, sc, i, &p) : -1;
  if (b < 0)
    return 1;
  return s->tangential == 4 ? sc->bodies[b].nwmodes : sc->bodies[b].nmodes;
}

/* Group of instance i under the scene's group. */
int
vb_signal_group(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len)
{
  int p, b;
  switch (s->object) {
  case VB_SIGNAL_SCENE: return snprintf(buf, len, "energy");
  case VB_SIGNAL_POINT:
    b = vb_signal_body(s, sc, i, &p);
    if (sc->bodies[b].kind == VB_BODY_MODAL)
      return snprintf(buf, len, "bodies/%s/%s", sc->bodies[b].name, sc->bodies[b].points[p].name);
    return snprintf(buf, len, "bodies/%s", sc->bodies[b].name);
  case VB_SIGNAL_MODES:
    b = vb_signal_body(s, sc, i, &p);
    return snprintf(buf, len, "bodies/%s/%s", sc->bodies[b].name,
                    s->tangential == 4 ? "wmodes" : "modes");
  case VB_SIGNAL_CONTACT: return snprintf(buf, len, "contacts/%s", sc->contacts[i].name);
  }
  return -1;
}

/* Path of instance i: group and name. */
int
vb_signal_path(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len)
{
  char group[3 * VB_NAME_MAX + 16];
  vb_signal_group(s, sc, i, group, sizeof group);
  return snprintf(buf, len, "%s/%s", group, s->name);
}

/* Whether a scene records the signal at a path: a glob of record.signals
 * matches it, or is the path itself (so that "contacts/neck[3]/force",
 * where fnmatch reads [3] as a set of characters, selects that point). */
int
vb_scene_records(const vb_scene *sc, const char *path)
{
  if (!sc->record_select)
    return 1;
  for (int g = 0; g < sc->nrecord_globs; g++)
    if (strcmp(sc->record_globs[g], path) == 0 || fnmatch(sc->record_globs[g], path, 0) == 0)
      return 1;
  return 0;
}

/* Whether instance i of a signal is a point of a distributed contact: one
 * of its point contacts, or one of the points it added to its body (named
 * "NAME[k]", which no name of a scene file can be). */
static int
of_block(const vb_signal *s, const vb_scene *sc, int i)
{
  int p, b;

  if (s->object == VB_SIGNAL_CONTACT)
    return sc->contacts[i].group[0] != '\0';
  if (s->object != VB_SIGNAL_POINT || (b = vb_signal_body(s, sc, i, &p)) < 0)
    return 0;
  return sc->bodies[b].kind == VB_BODY_MODAL && strchr(sc->bodies[b].points[p].name, '[') != NULL;
}

/* Path of the whole distributed contact that contact instance i is a
 * point of ("contacts/neck/force"); -1 for any other instance. */
int
vb_signal_block_path(const vb_signal *s, const vb_scene *sc, int i, char *buf, size_t len)
{
  if (s->object != VB_SIGNAL_CONTACT || !of_block(s, sc, i))
    return -1;
  return snprintf(buf, len, "contacts/%s/%s", sc->contacts[i].group, s->name);
}

/* Whether instance i is recorded as a point of its distributed contact's
 * [point][time] signal: record.signals selects the whole contact's path. */
int
vb_signal_whole(const vb_signal *s, const vb_scene *sc, int i)
{
  char path[4 * VB_NAME_MAX + 32];
  if (!sc->record_select || sc->nrecord_globs == 0 || !vb_signal_applies(s, sc, i) ||
      vb_signal_block_path(s, sc, i, path, sizeof path) < 0)
    return 0; /* (issue 30: a tangential row is no distributed contact's) */
  return vb_scene_records(sc, path);
}

/* Whether instance i of signal s concerns the scene (issue 30: the
 * tangential rows only a contact with friction or a mass with w). */
int
vb_signal_applies(const vb_signal *s, const vb_scene *sc, int i)
{
  int p, b;
  if (!s->tangential)
    return 1;
  if (s->object == VB_SIGNAL_CONTACT)
    return i >= 0 && i < sc->ncontacts && sc->contacts[i].friction.kind != VB_FRICTION_NONE &&
           (s->tangential != 3 || vb_friction_info_of(sc->contacts[i].friction.kind)->deflection);
  if (s->object == VB_SIGNAL_MODES && (b = vb_signal_body(s, sc, i, &p)) >= 0)
    return s->tangential == 4 && sc->bodies[b].kind == VB_BODY_MODAL && sc->bodies[b].nwmodes > 0;
  if (s->object == VB_SIGNAL_POINT && (b = vb_signal_body(s, sc, i, &p)) >= 0)
    return (sc->bodies[b].kind == VB_BODY_MASS && sc->bodies[b].has_w &&
            (s->tangential != 2 || sc->bodies[b].has_spin)) ||
           (sc->bodies[b].kind == VB_BODY_MODAL && sc->bodies[b].nwmodes > 0 &&
            s->tangential != 2);
  return 0;
}

/* Whether instance i of a signal is recorded.  Without record.signals,
 * every signal but those on request and a distributed contact's points'
 * (their u and v on the body, their contacts' signals): those are recorded
 * only when asked for (862 points, each computed at every sample, and each
 * recorded contact stepped at every step; doc/format.md). */
int
vb_signal_recorded(const vb_signal *s, const vb_scene *sc, int i)
{
  char path[4 * VB_NAME_MAX + 32];
  if (!vb_signal_applies(s, sc, i))
    return 0;
  if (!sc->record_select)
    return !s->on_request && !of_block(s, sc, i);
  if (sc->nrecord_globs == 0) /* `signals = [];`: events only, no path to match */
    return 0;
  if (vb_signal_whole(s, sc, i))
    return 1;
  vb_signal_path(s, sc, i, path, sizeof path);
  return vb_scene_records(sc, path);
}

/* Bytes of the in-memory recording: nrec samples of each row of each
 * recorded instance of the table. */
double
vb_scene_record_bytes(const vb_scene *scene)
{
  double series = 0.0;
  for (int r = 0; r < NSIGNALS; r++)
    for (int i = 0, n = vb_signal_count(&table[r], scene); i < n; i++)
      if (vb_signal_recorded(&table[r], scene, i))
        series += vb_signal_rows(&table[r], scene, i);
  return (double)vb_scene_samples(scene) * series * sizeof(double);
}

/* Samples of instance i of a signal, [rows][samples]. */
const double *
vb_signal_data(const vb_run *run, const vb_signal *s, int i)
{
  return run->series[run->series_first[s - table] + i];
}

/* ------------------------------------------------------------ recording */

/* Bytes of memory available now, or 0 if unknown: Linux's MemAvailable
 * (free memory plus the page cache and other memory the kernel can
 * reclaim), else the free pages.  Free pages alone leave out the cache,
 * which a study that has just written gigabytes fills: a scene that fits
 * was then refused, or not, depending on what ran before it. */
static double
available_memory(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[128];
    double kib = 0.0;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
        break;
    fclose(f);
    if (kib > 0.0)
      return kib * 1024.0;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* Whether the recording of a scene fits in the memory available now;
 * VB_ENOMEM with the figures in err if not. */
int
vb_record_fits(const vb_scene *scene, char *err, size_t errlen)
{
  double need = vb_scene_record_bytes(scene);
  if (!(need > 0.0)) /* events only: nothing to fit, no need to read /proc/meminfo */
    return VB_OK;
  double avail = available_memory();
  if (avail > 0.0 && need > 0.8 * avail)
    return vb_errf(err, errlen, VB_ENOMEM,
                   "%s: scene '%s': the recording needs %.3g bytes "
                   "(%ld samples), more than the %.3g bytes of memory available; raise "
                   "record.every or shorten the duration",
                   scene->path ? scene->path : "scene", scene->name, need, vb_scene_samples(scene),
                   avail);
  return VB_OK;
}

/* Zeroed memory for the recording.  A large one is mapped, aligned to
 * 2 MiB and offered to the kernel for transparent huge pages: a 10 s
 * recording then costs a few dozen page faults instead of thousands in the
 * middle of the run, and its pages come zeroed from the kernel (no pass
 * over them here).  *mapped receives the bytes mapped (munmap), or 0 for
 * memory from calloc (free). */
static double *
record_alloc(size_t n, size_t *mapped)
{
  size_t bytes = n * sizeof(double), huge = (size_t)2 << 20;
  *mapped = 0;
  if (bytes < 2 * huge)
    return calloc(n ? n : 1, sizeof(double));
  size_t size = (bytes + huge - 1) / huge * huge;
  char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  /* keep the aligned [a, a + size) */
  char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
  if (a > p)
    munmap(p, (size_t)(a - p));
  if (a + size < p + size + huge)
    munmap(a + size, (size_t)(p + size + huge - (a + size)));
#ifdef MADV_HUGEPAGE
  madvise(a, size, MADV_HUGEPAGE); /* a hint: no error if refused */
#endif
  *mapped = size;
  return (double *)a;
}

/* Add a copy to the plan of a sample (dst NULL: not recorded). */
static void
plan_add(vb_run *run, const double *src, double *dst)
{
  if (dst) {
    run->plan_src[run->nplan] = src;
    run->plan_dst[run->nplan++] = dst;
  }
}

/* Whether some signal of contact c is recorded (in run->series). */
static int
contact_recorded(const vb_run *run, int c)
{
  for (int r = ROW_COMPRESSION; r < NSIGNALS; r++)
    if (table[r].object == VB_SIGNAL_CONTACT && run->series[run->series_first[r] + c])
      return 1;
  return 0;
}

/* The copies, points and walls each sample records: room for them (none
 * yet). */
static int
plan_alloc(vb_run *run)
{
  const vb_scene *sc = run->scene;
  size_t n = 0, npts = 0;
  for (int b = 0; b < sc->nbodies; b++) {
    n += (size_t)sc->bodies[b].nmodes + (size_t)sc->bodies[b].nwmodes;
    npts += (size_t)points_of(&sc->bodies[b]);
  }
  n += 3 * (size_t)sc->ncontacts;
  run->plan_src = calloc(n + 1, sizeof *run->plan_src);
  run->plan_dst = calloc(n + 1, sizeof *run->plan_dst);
  run->points_rec = calloc(npts + 1, sizeof *run->points_rec);
  run->walls_rec = calloc((size_t)sc->nbodies + 1, sizeof *run->walls_rec);
  return run->plan_src && run->plan_dst && run->points_rec && run->walls_rec ? VB_OK
                                                                              : VB_ENOMEM;
}

/* The copies of modal body b's modes along w into its bodies/B/wmodes/q
 * when recorded: from its island's tangential state, the coordinates from
 * nmw on whose body is b, each in row tmode (its index among the body's
 * modes along w; friction.h). */
static void
wmodes_plan(vb_run *run, int b, size_t stride)
{
  int i = run->body_island[b], inst = 0;
  if (run->scene->modes_first)
    inst = run->scene->modes_first[b];
  else
    for (int a = 0; a < b; a++)
      inst += records_modes(run->scene, a);
  double *dst = run->series[run->series_first[ROW_WQ] + inst];
  const vb_friction_model *fm = run->model->islands[i].fric;
  const vb_friction_state *fs = run->states[i]->fric;
  if (!dst || !fm || !fs)
    return;
  for (int j = fm->nmw; j < fm->nt; j++)
    if (fm->tbody[j] == b && fm->tmode[j] >= 0 && fm->tmode[j] < run->scene->bodies[b].nwmodes)
      plan_add(run, &fs->w[j], dst + (size_t)fm->tmode[j] * stride);
}

/* What each sample records from the islands: the recorded points,
 * computed straight into their series, and the copies of the modes and
 * the contacts' histories (the walls, energies and the figures kept are
 * computed by vb_record_sample itself). */
static int
plan(vb_run *run)
{
  const vb_scene *sc = run->scene;
  size_t stride = (size_t)run->stride;
  if (plan_alloc(run) != VB_OK)
    return VB_ENOMEM;
  for (int b = 0; b < sc->nbodies; b++) {
    int i = run->body_island[b], at = run->point_first[b];
    for (int pt = 0; pt < points_of(&sc->bodies[b]); pt++) {
      double *u = run->point_u[at + pt], *v = run->point_v[at + pt];
      /* a sample computes only the points recorded */
      if (!u && !v)
        continue;
      if (i < 0)
        run->walls_rec[run->nwalls_rec++] = b; /* its drive, evaluated per sample */
      else {
        vb_point_rec *p = &run->points_rec[run->npoints_rec++];
        vb_island_point_ops(&run->model->islands[i], run->states[i], run->point_row[b] + pt,
                            &p->ops);
        p->u = u;
        p->v = v;
      }
    }
    if (i >= 0 && run->modes_q[b])
      for (int j = 0; j < sc->bodies[b].nmodes; j++)
        plan_add(run, &run->states[i]->q[run->body_offset[b] + j],
                 run->modes_q[b] + (size_t)j * stride);
    if (i >= 0 && records_modes(sc, b) && sc->bodies[b].nwmodes > 0)
      wmodes_plan(run, b, stride);
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_chist *hc = &run->states[run->contact_island[c]]->hist[run->contact_local[c]];
    plan_add(run, &hc->x, run->results[c].compression);
    plan_add(run, &hc->rate, run->results[c].rate);
    plan_add(run, &hc->f, run->results[c].force);
  }
  for (int e = 0; e < VB_ENERGY_COUNT; e++)
    if (run->energy[e])
      run->energy_rec[run->nenergy_rec++] = e;
  /* the points recording u and v first: a sample computes them into their
   * series with no test */
  for (int a = 0, b = run->npoints_rec - 1; a <= b;)
    if (run->points_rec[a].u && run->points_rec[a].v)
      a++, run->npoints_both++;
    else {
      vb_point_rec t = run->points_rec[a];
      run->points_rec[a] = run->points_rec[b];
      run->points_rec[b--] = t;
    }
  return VB_OK;
}

/* The series each sample computes (the recorded instances of the rows
 * with derive). */
static int
plan_derived(vb_run *run)
{
  size_t n = 0;
  for (int r = 0; r < NSIGNALS; r++)
    if (table[r].derive)
      n += (size_t)vb_signal_count(&table[r], run->scene);
  run->derived = calloc(n + 1, sizeof *run->derived);
  run->wpoints = calloc(n + 1, sizeof *run->wpoints);
  if (!run->derived || !run->wpoints)
    return VB_ENOMEM;
  for (int r = 0; r < NSIGNALS; r++)
    for (int i = 0, m = vb_signal_count(&table[r], run->scene); i < m && table[r].derive; i++) {
      double *dst = run->series[run->series_first[r] + i];
      int p, b = vb_signal_body(&table_w_row, run->scene, i, &p);
      if (!dst)
        continue;
      /* a modal body's point along w: with the body's others (wpoints;
       * the rows told by name, not by their functions' addresses, which
       * tests/layers.sh would read as handed down) */
      int is_w = strcmp(table[r].name, "w") == 0, is_vw = strcmp(table[r].name, "vw") == 0;
      if ((is_w || is_vw) && b >= 0 && run->scene->bodies[b].kind == VB_BODY_MODAL &&
          !vb_test_hooks_now()->no_one_row) {
        int k = 0;
        while (k < run->nwpoints && (run->wpoints[k].b != b || run->wpoints[k].p != p))
          k++;
        if (k == run->nwpoints)
          run->wpoints[run->nwpoints++] = (vb_wpoint_rec){b, p, NULL, NULL};
        *(is_w ? &run->wpoints[k].w : &run->wpoints[k].vw) = dst;
        continue;
      }
      run->derived[run->nderived++] = (vb_derived){&table[r], i, dst};
    }
  return VB_OK;
}

/* Series (rows of nrec samples) of instance i of signal r when recorded,
 * else 0. */
static size_t
series_of(const vb_scene *sc, int r, int i)
{
  return vb_signal_recorded(&table[r], sc, i) ? (size_t)vb_signal_rows(&table[r], sc, i) : 0;
}

/* Index of instance i of row s among the scene's instances (table
 * order), the index of vb_run_alloc_into's `into`. */
int
vb_signal_instance(const vb_signal *s, const vb_scene *sc, int i)
{
  int first = 0;
  for (int r = 0; r < s - table; r++)
    first += vb_signal_count(&table[r], sc);
  return first + i;
}

/* Instances of every row of a scene. */
int
vb_signal_instances(const vb_scene *sc)
{
  return vb_signal_instance(&table[NSIGNALS], sc, 0);
}

/* Point every recorded series into the block p (a row every stride
 * samples); the rows and offsets of those the file holds, for
 * vb_record_flush. */
static int
series_place(vb_run *run, const vb_record_file *to, double *p)
{
  const vb_scene *sc = run->scene;
  size_t nrec = (size_t)run->nrec, stride = (size_t)run->stride, m = 0;
  double **at = run->series;
  if (to) {
    run->wsrc = calloc(run->nseries + 1, sizeof *run->wsrc);
    run->wat = calloc(run->nseries + 1, sizeof *run->wat);
    if (!run->wsrc || !run->wat)
      return VB_ENOMEM;
  }
  /* table order, instance by instance */
  for (int r = 0, j = 0; r < NSIGNALS; r++)
    for (int i = 0, n = vb_signal_count(&table[r], sc); i < n; i++, at++, j++) {
      size_t rows = series_of(sc, r, i);
      if (!rows)
        continue;
      *at = p;
      /* a series the file does not hold (zero by construction) is kept
       * in the window, and not written */
      for (size_t q = 0; to && to->offset[j] >= 0 && q < rows; q++, m++) {
        run->wsrc[m] = p + q * stride;
        run->wat[m] = to->offset[j] + (int64_t)(q * nrec * sizeof(double));
      }
      p += rows * stride;
    }
  run->nwrite = m;
  return VB_OK;
}

/* Size the recording from the table, the selected signals only, and point
 * every recorded series into it (the others stay NULL): the whole
 * recording, or, into the file `to`, a window of it. */
int
vb_record_alloc(vb_run *run, const vb_record_file *to)
{
  const vb_scene *sc = run->scene;
  int nb = sc->nbodies, ninst = 0;
  size_t series = 0;
  run->record_fd = -1;
  run->series_first = calloc(NSIGNALS + 1, sizeof *run->series_first);
  if (!run->series_first)
    return VB_ENOMEM;
  for (int r = 0; r < NSIGNALS; r++) {
    run->series_first[r] = ninst;
    for (int i = 0, n = vb_signal_count(&table[r], sc); i < n; i++) {
      series += series_of(sc, r, i);
    }
    ninst += vb_signal_count(&table[r], sc);
  }
  run->series_first[NSIGNALS] = ninst;
  run->nseries = series;
  run->win = to ? vb_record_window(series, run->nrec) : run->nrec;
  /* a ring of windows for a writer thread, when one is asked for and the
   * run fills more than one window */
  run->nslot = to && to->async && run->win < run->nrec ? VB_RECORD_RING : 1;
  /* a window's rows a cache line apart beyond whole pages: rows a
   * multiple of 4 KiB apart share the cache's sets, and a sample's stores
   * into a dozen of them evicted each other */
  run->stride = to ? run->nslot * run->win + 8 : run->nrec;
  if (to)
    run->record_fd = to->fd;
  run->record = series > 0 ? record_alloc(series * (size_t)run->stride, &run->record_mapped) : NULL;
  run->series = calloc((size_t)ninst + 1, sizeof *run->series);
  run->modes_q = calloc((size_t)nb + 1, sizeof *run->modes_q);
  run->point_first = calloc(2 * (size_t)nb + 1, sizeof(int));
  if ((series > 0 && !run->record) || !run->series || !run->modes_q || !run->point_first ||
      series_place(run, to, run->record) != VB_OK)
    return VB_ENOMEM;
  /* the run's named views of them */
  for (int e = 0; e < VB_ENERGY_COUNT; e++)
    run->energy[e] = run->series[run->series_first[e]];
  run->point_u = run->series + run->series_first[ROW_U];
  run->point_v = run->series + run->series_first[ROW_V];
  for (int b = 0, i = run->series_first[ROW_Q]; b < nb; b++)
    run->modes_q[b] = records_modes(sc, b) ? run->series[i++] : NULL;
  for (int c = 0; c < sc->ncontacts; c++) {
    run->results[c].compression = run->series[run->series_first[ROW_COMPRESSION] + c];
    run->results[c].rate = run->series[run->series_first[ROW_RATE] + c];
    run->results[c].force = run->series[run->series_first[ROW_FORCE] + c];
    /* a contact whose signals are recorded is stepped at every step */
    if (contact_recorded(run, c))
      vb_island_pin(&run->model->islands[run->contact_island[c]],
                    run->states[run->contact_island[c]], run->contact_local[c]);
  }
  run->point_row = run->point_first + nb;
  for (int b = 0, first = 0; b < nb; b++) {
    run->point_first[b] = first;
    first += points_of(&sc->bodies[b]);
    if (run->body_island[b] >= 0)
      run->point_row[b] = vb_island_point_row(&run->model->islands[run->body_island[b]], b, 0);
  }
  int rc = plan(run);
  if (rc == VB_OK && run->nslot > 1 && run->nwrite > 0 && !vb_record_writer_start(run))
    run->nslot = 1; /* no thread: the run writes its windows itself */
  return rc == VB_OK ? plan_derived(run) : rc;
}

/* Free the recording. */
void
vb_record_free(vb_run *run)
{
  vb_record_writer_end(run);
  if (run->record_mapped)
    munmap(run->record, run->record_mapped);
  else
    free(run->record);
  free(run->series);
  free(run->series_first);
  free(run->modes_q);
  free(run->point_first);
  free(run->plan_src);
  free(run->plan_dst);
  free(run->points_rec);
  free(run->walls_rec);
  free(run->derived);
  free(run->wpoints);
  free(run->wsrc);
  free(run->wat);
}

/* Fill the samples a failed run did not reach with NaN: the window's from
 * k0 on, and, recording into a file, every window after it. */
void
vb_record_blank_from(vb_run *run, long k0)
{
  size_t stride = (size_t)run->stride;
  if (k0 == 0)
    run->win_k0 = run->win_fill = run->win_base = 0;
  if (k0 < run->win_k0)
    k0 = run->win_k0; /* written already (vb_record_sample never goes back) */
  for (long k = k0; k < run->nrec;) {
    if (k - run->win_k0 >= run->win)
      vb_record_post(run);
    long from = k - run->win_k0, to = run->nrec - run->win_k0 < run->win ? run->nrec - run->win_k0
                                                                          : run->win;
    /* every recorded instance is [rows][stride], in run->record */
    for (int r = 0; r < NSIGNALS; r++)
      for (int i = 0, n = vb_signal_count(&table[r], run->scene); i < n; i++) {
        double *sr = run->series[run->series_first[r] + i];
        for (size_t q = 0; sr && q < series_of(run->scene, r, i); q++)
          for (long j = from; j < to; j++)
            sr[q * stride + (size_t)(run->win_base + j)] = NAN; /* its window in the ring */
      }
    run->win_fill = to;
    k = run->win_k0 + to;
  }
  /* the figures kept whether or not their signals are recorded */
  if (k0 < run->nrec) {
    for (int e = 0; e < VB_ENERGY_COUNT; e++)
      run->e_last[e] = NAN;
    for (int c = 0; c < run->scene->ncontacts; c++)
      run->results[c].max_compression = NAN;
  }
}

/* The energies of vb_energy at the islands' current step into e, J:
 * summed island by island, the total last (inlined into each sample). */
static inline void
energy_sum(const vb_run *run, double e[VB_ENERGY_COUNT])
{
  double k = 0.0, p = 0.0, d = 0.0, x = 0.0, c = 0.0;
  for (int i = 0, n = run->nislands; i < n; i++) {
    const vb_island_state *is = run->states[i];
    k += is->kinetic;
    p += is->potential;
    d += is->dissipated;
    x += is->external;
    c += is->corrected;
  }
  e[VB_ENERGY_KINETIC] = k;
  e[VB_ENERGY_POTENTIAL] = p;
  e[VB_ENERGY_DISSIPATED] = d;
  e[VB_ENERGY_EXTERNAL] = x;
  e[VB_ENERGY_CORRECTION] = c;
  e[VB_ENERGY_TOTAL] = k + p;
}

/* The scene's discrete energy at the islands' current step, kept for the
 * step's sample (run->e_sum: summed once a step). */
void
vb_record_energy(vb_run *run, double *kin, double *pot, double *diss, double *ext, double *corr)
{
  double *e = run->e_sum;
  energy_sum(run, e);
  *kin = e[VB_ENERGY_KINETIC];
  *pot = e[VB_ENERGY_POTENTIAL];
  *diss = e[VB_ENERGY_DISSIPATED];
  *ext = e[VB_ENERGY_EXTERNAL];
  *corr = e[VB_ENERGY_CORRECTION];
}

/* Store v at sample k of a series that may not be recorded. */
static inline void
put(double *series, long k, double v)
{
  if (series)
    series[k] = v;
}

/* Store the sample kk of the recorded points, computed straight into
 * their series, the plan's copies, the derived series and the walls
 * (their drive at step n). */
static void
sample_signals(vb_run *run, long n, long kk)
{
  const vb_point_rec *p = run->points_rec, *both = p + run->npoints_both,
                     *end = p + run->npoints_rec;
  for (; p < both; p++)
    vb_point_eval(&p->ops, p->u + kk, p->v + kk);
  for (; p < end; p++) {
    double u, v;
    vb_point_eval(&p->ops, &u, &v);
    put(p->u, kk, u);
    put(p->v, kk, v);
  }
  const double *const *src = run->plan_src;
  double *const *dst = run->plan_dst;
  for (int m = 0, nm = run->nplan; m < nm; m++)
    dst[m][kk] = *src[m];
  for (int m = 0; m < run->nderived; m++)
    run->derived[m].dst[kk] = run->derived[m].row->derive(run, run->derived[m].instance);
  for (int a = 0, e; a < run->nwpoints; a = e) {
    /* a body's points, two at a time (vb_run_wpoints) */
    for (e = a + 1; e < run->nwpoints && run->wpoints[e].b == run->wpoints[a].b;)
      e++;
    vb_run_wpoints(run, run->wpoints + a, e - a, kk);
  }
  for (int w = 0; w < run->nwalls_rec; w++) {
    const vb_body *body = &run->scene->bodies[run->walls_rec[w]];
    int at = run->point_first[run->walls_rec[w]];
    double r = 0.0, u = body->u0;
    if (body->drive.kind != VB_DRIVE_NONE)
      u += vb_drive_eval(&body->drive, n * run->dt, &r);
    put(run->point_u[at], kk, u);
    put(run->point_v[at], kk, r);
  }
}

/* Each contact's largest compression up to sample k, as a reader of its
 * whole series finds it (a NaN sample replaces it, the next sample
 * replaces a NaN), into its island's xmax: straight from the histories
 * where the island steps every contact (a pinned one, whose signals are
 * recorded, always), a skipped contact's bounded from above (sparse.c;
 * doc/format.md).  The table's figure is set at the last sample (a run
 * stopped before it leaves NaN, vb_record_blank_from). */
static void
max_compressions(vb_run *run, long k)
{
  for (int i = 0; i < run->nislands; i++) {
    const vb_island_model *m = &run->model->islands[i];
    vb_island_state *st = run->states[i];
    double *xmax = st->xmax;
    if (k == 0 || st->ntrk < m->nc) {
      for (int lc = 0; lc < m->nc; lc++) {
        double x = vb_island_compression_bound(m, st, lc);
        if (k == 0 || !(x <= xmax[lc]))
          xmax[lc] = x;
      }
    } else {
      const vb_chist *hist = st->hist;
      for (int lc = 0; lc < m->nc; lc++)
        if (!(hist[lc].x <= xmax[lc]))
          xmax[lc] = hist[lc].x;
    }
    if (k == run->nrec - 1)
      for (int lc = 0; lc < m->nc; lc++)
        run->results[m->contacts[lc]].max_compression = xmax[lc];
  }
}

/* Record sample k of step n: the selected signals, and the figures kept
 * whether or not their signals are (each contact's largest compression,
 * the energies at the last sample). */
void
vb_record_sample(vb_run *run, long n, long k)
{
  if (k == 0)
    run->win_k0 = run->win_fill = run->win_base = 0;
  if (k - run->win_k0 >= run->win)
    vb_record_post(run); /* full (into a file: else win is nrec) */
  run->win_fill = k - run->win_k0 + 1;
  long kk = run->win_base + k - run->win_k0; /* in the window of the ring */
  sample_signals(run, n, kk);
  max_compressions(run, k);
  /* the energies: for their signals, or at the last sample for the table
   * (summed by vb_record_energy at this step) */
  int last = k == run->nrec - 1;
  if (!run->nenergy_rec && !last)
    return;
  const double *e = run->e_sum;
  double *const *to = run->energy;
  if (run->nenergy_rec == VB_ENERGY_COUNT) { /* all of them (the default): stored in registers */
    to[VB_ENERGY_TOTAL][kk] = e[VB_ENERGY_TOTAL];
    to[VB_ENERGY_KINETIC][kk] = e[VB_ENERGY_KINETIC];
    to[VB_ENERGY_POTENTIAL][kk] = e[VB_ENERGY_POTENTIAL];
    to[VB_ENERGY_DISSIPATED][kk] = e[VB_ENERGY_DISSIPATED];
    to[VB_ENERGY_EXTERNAL][kk] = e[VB_ENERGY_EXTERNAL];
    to[VB_ENERGY_CORRECTION][kk] = e[VB_ENERGY_CORRECTION];
  } else
    for (int m = 0; m < run->nenergy_rec; m++)
      to[run->energy_rec[m]][kk] = e[run->energy_rec[m]];
  /* the figures kept: those of the last sample (a run stopped before it
   * leaves them NaN, vb_record_blank_from) */
  if (last)
    memcpy(run->e_last, e, sizeof run->e_last);
}
