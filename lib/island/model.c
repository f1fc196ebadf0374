/* model.c - a scene compiled for stepping: its islands and their families.
 *
 * Every mass and modal object is a set of linear modes, each obeying
 *   M (q'' + 2 sigma q' + omega^2 q) = sum over points shape f + F_ext,
 * and every contact's compression is linear in the modes:
 *   x_c = sum_j S_cj q_j + (wall displacements) - gap.
 * An island is a set of bodies joined by contacts (walls, being fixed or
 * driven, join nothing).  Its family decides how the modes are stepped:
 *
 * Two-level (two-point, am1): the trapezoidal rule (Papetti eq 20;
 *   Chatziioannou eq 8a), with omega and sigma pre-warped through the
 *   bilinear map, s' = (2/dt) tanh(s dt / 2), so that the discrete free
 *   modes ring at exactly the continuous frequency and decay rate.  With the
 *   contact force over the step fbar the update is
 *     q1 = ca q + cb v + cc (F - S^T fbar),  v1 = 2 (q1 - q)/dt - v,
 *   ca = (2/dt + 2 sigma' - dt omega'^2/2)/D, cb = 2/D, cc = dt/(D M),
 *   D = 2/dt + 2 sigma' + dt omega'^2/2; for a free mass (omega = sigma =
 *   0) this is q1 = q + dt v + dt^2/(2m) (F - fbar): eq 20 and eq 8.  The
 *   discrete energy sum M (v^2 + omega'^2 q^2)/2 changes by exactly the
 *   work of the forces, minus 2 M sigma' dt ((v1 + v)/2)^2.
 * Three-level (three-point, quadratic): the centred recursion with the
 *   exact free response, q1 = a1 q - a2 qm + beta (F - S^T fbar)/M with
 *   a1 = z1 + z2, a2 = z1 z2 for the exact poles z = exp(s dt); it is
 *   M (dtt q + 2 sigma* dt. q + Omega^2 q) = force with sigma* dt =
 *   tanh(sigma dt), Omega^2 dt^2 = 2 (1 + a2 - a1)/(1 + a2) and beta =
 *   dt^2 (1 + a2)/2; for a free mass q1 = 2q - qm + dt^2 F/m
 *   (Chatziioannou eq 7, Ducceschi eq 23).  Energy (Bilbao):
 *   M/2 ((q1 - q)/dt)^2 + M Omega^2 q1 q / 2.
 * Explicit (verlet, position-verlet, heun, rk4): the scheme integrates
 *   the whole island's first-order system literally (solvers/).
 * Energy-quadratised (sav): the three-level modes, with each contact's
 *   force carried by an auxiliary variable psi (solvers/sav.c), which
 *   makes the step linear in the new compressions: one linear solve, no
 *   Newton.
 * Each family is a row of step.c's table (vb_family_of): its `mode` hook
 *   computes the coefficients above, its other hooks start and step.
 *
 * The contacts of an implicit island are solved together by the K-method
 * (solvers/kmethod.c) with the compliance K_cd = sum_j S_cj S_dj cc_j. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "friction.h"
#include "clearance.h"
#include "moving.h"

/* ------------------------------------------------------------ storage */

/* An island being compiled: the model and writable views of its arrays. */
typedef struct {
  vb_island_model *m;
  int *contacts, *bodies, *offsets, *forces, *force_mode;
  int *point_first, *point_from, *point_to;
  vb_contact *cts;
  double *mass, *w2, *sig, *ca, *cb, *cc, *dcoef, *mw2, *gconst;
  double *S, *K, *meff, *aext, *P;
} builder;

/* Aligned storage for an island's arrays in one zeroed block: doubles
 * first (each array 64-byte aligned), then contacts, then ints. */
static int
island_alloc(builder *bd, vb_island_model *m, int nm, int nc, int nf, int nb, int npts,
             int no_compliance)
{
  size_t mp = ((size_t)nm + 7) / 8 * 8, c = (size_t)nc;
  m->nm = nm;
  m->nmp = (int)mp;
  m->nc = nc;
  m->nf = nf;
  m->nb = nb;
  m->npts = npts;
  /* 9 mode arrays, S and P rows, K, meff, aext; each rounded up to 8 */
  size_t r8 = no_compliance ? 0 : (c * c + 7) / 8 * 8, rc = (c + 7) / 8 * 8;
  size_t cs = c > 0 ? c : 1; /* a zero row for an island in no contact */
  size_t ndouble = 9 * mp + (cs + (size_t)npts) * mp + r8 + 2 * rc;
  size_t nint = 3 * c + 2 * (size_t)nf + 3 * (size_t)nb + 2 * (size_t)npts;
  size_t bytes = ndouble * sizeof(double) + c * sizeof(vb_contact) + nint * sizeof(int);
  bytes = (bytes + 63) / 64 * 64 + 64;
  char *block = aligned_alloc(64, bytes);
  if (!block)
    return VB_ENOMEM;
  memset(block, 0, bytes);
  m->block = block;
  bd->m = m;
  double *p = (double *)block;
  double **mode[9] = {&bd->mass, &bd->w2,    &bd->sig, &bd->ca,    &bd->cb,
                      &bd->cc,   &bd->dcoef, &bd->mw2, &bd->gconst};
  for (int k = 0; k < 9; k++, p += mp)
    *mode[k] = p;
  bd->S = p;
  p += cs * mp;
  bd->P = p;
  p += (size_t)npts * mp;
  bd->K = no_compliance ? NULL : p;
  p += r8;
  bd->meff = p;
  bd->aext = p + rc;
  p += 2 * rc;
  bd->cts = (vb_contact *)p;
  int *q = (int *)(bd->cts + c);
  bd->contacts = q;
  bd->bodies = q += c;
  bd->offsets = q += nb;
  bd->forces = q += nb;
  bd->force_mode = q += nf;
  bd->point_first = q += nf;
  bd->point_from = q += nb;
  bd->point_to = q += npts;
  for (size_t j = (size_t)nm; j < mp; j++)
    bd->mass[j] = 1.0; /* padding: inert */
  m->contacts = bd->contacts;
  m->cts = bd->cts;
  m->bodies = bd->bodies;
  m->offsets = bd->offsets;
  m->forces = bd->forces;
  m->force_mode = bd->force_mode;
  m->mass = bd->mass;
  m->w2 = bd->w2;
  m->sig = bd->sig;
  m->ca = bd->ca;
  m->cb = bd->cb;
  m->cc = bd->cc;
  m->dcoef = bd->dcoef;
  m->mw2 = bd->mw2;
  m->gconst = bd->gconst;
  m->S = bd->S;
  m->K = bd->K;
  m->meff = bd->meff;
  m->aext = bd->aext;
  m->P = bd->P;
  m->point_first = bd->point_first;
  m->point_from = bd->point_from;
  m->point_to = bd->point_to;
  return VB_OK;
}

/* Free a model. */
void
vb_model_free(vb_model *m)
{
  if (!m)
    return;
  if (m->islands)
    for (int i = 0; i < m->nislands; i++) {
      free(m->islands[i].block);
      vb_friction_model_free(m->islands[i].fric);
      vb_clearance_model_free(m->islands[i].clr);
      vb_moving_model_free(m->islands[i].mov);
    }
  free(m->islands);
  free(m->contact_island);
  free(m);
}

/* Island mode index of the first mode of scene body b, or -1. */
static int
body_offset(const vb_island_model *m, int b)
{
  for (int i = 0; i < m->nb; i++)
    if (m->bodies[i] == b)
      return m->offsets[i];
  return -1;
}

/* Row of point p of body b among the island's recorded points. */
int
vb_island_point_row(const vb_island_model *m, int b, int p)
{
  for (int i = 0; i < m->nb; i++)
    if (m->bodies[i] == b)
      return m->point_first[i] + p;
  return -1;
}

/* -------------------------------------------------------------- modes */

/* Coefficients of mode k of a body (island mode j) from the island's
 * family (its mode hook, step.c); VB_EINVAL with a message when it cannot
 * be stepped. */
static int
mode_coefficients(builder *bd, const vb_scene *sc, const vb_body *b, int k, int j, char *err,
                  size_t errlen)
{
  const vb_island_model *m = bd->m;
  bd->mass[j] = b->modal_mass[k];
  bd->gconst[j] = -sc->gravity * b->modal_mass[k] * b->gravity[k];
  /* the three-level families' exact recursion (levels 3: three-level,
   * sav) steps a mode at or above fs/2 as its sampled (aliased) free
   * response; the loader drops such modes for the others (lib/scene/nyquist.c)
   * unless none would be left */
  if (b->freq[k] >= 0.5 * sc->fs && m->fam->info->levels != 3)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: body '%s': mode %d at %g Hz is at or "
                   "above the Nyquist frequency %g Hz (valid: raise scene.fs or drop the "
                   "mode)",
                   sc->path, b->line, b->name, k, b->freq[k], 0.5 * sc->fs);
  const vb_mode_in in = {.freq = b->freq[k],
                         .sigma = b->sigma[k],
                         .mass = bd->mass[j],
                         .fs = sc->fs,
                         .dt = m->dt,
                         .scheme = m->scheme};
  vb_mode_coef c = {0};
  char why[320] = "";
  int rc = m->fam->mode(&in, &c, why, sizeof why);
  bd->w2[j] = c.w2;
  bd->sig[j] = c.sig;
  bd->ca[j] = c.ca;
  bd->cb[j] = c.cb;
  bd->cc[j] = c.cc;
  bd->dcoef[j] = c.dcoef;
  bd->mw2[j] = c.mw2;
  if (rc != VB_OK)
    return vb_errf(err, errlen, rc, "%s:%d: body '%s': mode %d%s", sc->path, b->line, b->name, k,
                   why);
  return VB_OK;
}

/* Fill the modes of an island and check each can be stepped. */
static int
island_modes(builder *bd, const vb_scene *sc, char *err, size_t errlen)
{
  const vb_island_model *m = bd->m;
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    for (int k = 0; k < b->nmodes; k++) {
      int rc = mode_coefficients(bd, sc, b, k, m->offsets[i] + k, err, errlen);
      if (rc != VB_OK)
        return rc;
    }
  }
  return VB_OK;
}

/* ----------------------------------------------------------- contacts */

/* Chatziioannou section 3: for alpha = 1 the beta* substitutions make the
 * contact duration exact, pi / omega_c with omega_c = sqrt(k / m):
 *   eq 15 (two-point):   beta2* = (1 - cos(w dt)) / (1 + cos(w dt)),
 *   eq 16 (three-point): beta3* = (1 - cos(w dt)) / cos(w dt),
 * with beta2 = k dt^2 / (4 m) and beta3 = k dt^2 / (2 m) for alpha = 1, so
 * the scheme steps the contact with k* = 4 m beta2* / dt^2 (resp.
 * 2 m beta3* / dt^2), m the contact's effective mass (for a mass against a
 * wall exactly the paper's substitution).  Beyond the limits (w dt < pi,
 * resp. pi/2) the scene is refused unless `saturate` is set; then
 * w = 0.99 of the limit is used, a contact of 1.01 times the shortest
 * duration the scheme can resolve. */
double
vb_exact_omega(const vb_contact *ct, double meff, double h, double *limit)
{
  double w = sqrt(ct->law.k / meff);
  *limit = (ct->scheme->exact_duration_eq == 16 ? 0.5 : 1.0) * M_PI / h;
  return w < *limit ? w : 0.99 * *limit;
}

/* The beta* stiffness of an exact-duration contact (eq 15 or 16). */
static void
exact_duration(builder *bd, int c)
{
  vb_contact *ct = &bd->cts[c];
  if (!ct->exact_duration)
    return;
  double limit, h = bd->m->dt, m = bd->meff[c];
  double cw = cos(vb_exact_omega(ct, m, h, &limit) * h);
  if (ct->scheme->exact_duration_eq == 16)
    ct->law.k = 2.0 * m / (h * h) * (1.0 - cw) / cw; /* eq 16 */
  else
    ct->law.k = 4.0 * m / (h * h) * (1.0 - cw) / (1.0 + cw); /* eq 15 */
}

/* The compliance K_cd = sum_j S_cj S_dj cc_j (cc = 0 in the explicit
 * family: K = 0) of nc rows of S (stride nmp, nm modes) into K[nc * nc].
 * K is symmetric bit for bit (S_cj S_dj = S_dj S_cj in IEEE arithmetic),
 * so only d >= c is summed and mirrored, and four d at a time, each sum
 * in mode order as before: the same bits in an eighth of the time (10,000
 * contacts in four islands on 200-mode strings: 5e9 multiply-adds per
 * build before, a build at load and one per run). */
static void
island_compliance(const double *S, int nmp, int nm, int nc, const double *cc, double *K)
{
  for (int c = 0; c < nc; c++) {
    const double *rc = S + (size_t)c * nmp;
    int d = c;
    for (; d + 4 <= nc; d += 4) {
      const double *r0 = S + (size_t)d * nmp, *r1 = r0 + nmp, *r2 = r1 + nmp, *r3 = r2 + nmp;
      double k0 = 0.0, k1 = 0.0, k2 = 0.0, k3 = 0.0;
      for (int j = 0; j < nm; j++) {
        k0 += rc[j] * r0[j] * cc[j];
        k1 += rc[j] * r1[j] * cc[j];
        k2 += rc[j] * r2[j] * cc[j];
        k3 += rc[j] * r3[j] * cc[j];
      }
      double k[4] = {k0, k1, k2, k3};
      for (int i = 0; i < 4; i++)
        K[(size_t)c * nc + d + i] = K[(size_t)(d + i) * nc + c] = k[i];
    }
    for (; d < nc; d++) {
      const double *rd = S + (size_t)d * nmp;
      double k = 0.0;
      for (int j = 0; j < nm; j++)
        k += rc[j] * rd[j] * cc[j];
      K[(size_t)c * nc + d] = K[(size_t)d * nc + c] = k;
    }
  }
}

/* Compression rows, compliance, effective masses of an island. */
static void
island_contacts(builder *bd, const vb_scene *sc)
{
  const vb_island_model *m = bd->m;
  int nm = m->nm, nc = m->nc;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &bd->cts[c];
    double *row = bd->S + (size_t)c * m->nmp;
    int ends[2] = {ct->a, ct->b}, pts[2] = {ct->pa, ct->pb};
    for (int e = 0; e < 2; e++) {
      const vb_body *b = &sc->bodies[ends[e]];
      if (b->kind == VB_BODY_WALL)
        continue;
      int off = body_offset(m, ends[e]);
      const double *shape = b->points[pts[e]].shape;
      for (int k = 0; k < b->nmodes; k++)
        row[off + k] += (e == 0 ? 1.0 : -1.0) * shape[k];
    }
    /* free-flight acceleration of the compression: gravity on the rigid
     * (0 Hz) modes; on the elastic modes springs hold it as a static sag */
    double mob = 0.0, acc = 0.0;
    for (int j = 0; j < nm; j++) {
      mob += row[j] * row[j] / bd->mass[j];
      if (bd->w2[j] == 0.0)
        acc += row[j] * bd->gconst[j] / bd->mass[j];
    }
    bd->meff[c] = mob > 0.0 ? 1.0 / mob : INFINITY;
    bd->aext[c] = acc;
  }
  for (int c = 0; c < nc; c++)
    exact_duration(bd, c);
  if (bd->K)
    island_compliance(bd->S, m->nmp, nm, nc, bd->cc, bd->K);
}

/* An exact-duration contact whose omega_c is beyond its scheme's limit,
 * unless saturate is set. */
static int
check_exact_duration(const vb_island_model *m, const vb_scene *sc, char *err, size_t errlen)
{
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &sc->contacts[m->contacts[c]];
    double limit, w = ct->exact_duration ? sqrt(ct->law.k / m->meff[c]) : 0.0;
    char who[VB_LABEL_MAX];
    vb_exact_omega(ct, m->meff[c], m->dt, &limit);
    int steps = ct->scheme->exact_duration_eq == 16 ? 2 : 1;
    if (ct->exact_duration && !ct->saturate && !(w < limit))
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: contact %s: exact_duration: omega_c = "
                     "%.6g rad/s (contact time %.4g s) is beyond the limit of scheme '%s', "
                     "%.6g rad/s (contact time %.4g s = %d steps) (valid: raise scene.fs "
                     "above %.6g Hz, or set saturate = true to use the limit)",
                     sc->path, ct->line, vb_contact_label(sc, ct, who, sizeof who), w, M_PI / w,
                     ct->scheme->name, limit,
                     M_PI / limit, steps, w * steps / M_PI);
  }
  return VB_OK;
}

/* A contact whose law its scheme cannot step (ops->accepts). */
static int
check_schemes(const vb_island_model *m, const vb_scene *sc, char *err, size_t errlen)
{
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &sc->contacts[m->contacts[c]];
    char why[256] = "", who[VB_LABEL_MAX];
    if (ct->scheme->ops->accepts && !ct->scheme->ops->accepts(ct, why, sizeof why))
      return vb_errf(err, errlen, VB_EINVAL, "%s:%d: contact %s: scheme '%s' needs %s", sc->path,
                     ct->line, vb_contact_label(sc, ct, who, sizeof who), ct->scheme->name, why);
  }
  return VB_OK;
}

/* ------------------------------------------------------------ islands */

/* The scene's bodies, contacts and forces in a canonical order, by name:
 * an island's modes, its contact solve's sweep, its corrections (contact
 * by contact, each moving the bodies the next one sees) and every sum over
 * them then follow the names, and the results cannot depend on the order
 * in which the scene lists them. */
typedef struct {
  int *bodies;   /* [nbodies] scene body indices by name */
  int *contacts; /* [ncontacts] */
  int *forces;   /* [nforces] */
} name_order;

typedef struct {
  const char *name;
  int index;
} named;

static int
by_name(const void *a, const void *b)
{
  return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* order[0..n) = 0..n-1 sorted by the names at base + i * stride. */
static void
sort_by_name(const char *base, size_t stride, int n, named *tmp, int *order)
{
  for (int i = 0; i < n; i++)
    tmp[i] = (named){base + (size_t)i * stride, i};
  qsort(tmp, (size_t)n, sizeof *tmp, by_name);
  for (int i = 0; i < n; i++)
    order[i] = tmp[i].index;
}

static int
find(int *parent, int i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* The non-wall body a contact moves (a contact joins at most two). */
static int
moved_body(const vb_scene *sc, const vb_contact *ct)
{
  return sc->bodies[ct->a].kind != VB_BODY_WALL ? ct->a : ct->b;
}

/* "two-point/am1, three-point/quadratic, sav, or a single explicit scheme":
 * the schemes of each family that can share an island, from the registry
 * and the family table (so the message follows both). */
static void
family_choices(char *buf, size_t len)
{
  size_t n, at = 0;
  const vb_scheme *const *all = vb_scheme_list(&n);
  const char *single = NULL;
  buf[0] = '\0';
  for (int f = 0; vb_family_info_of((vb_family)f); f++) {
    const char *sep = at ? ", " : "";
    for (size_t i = 0; i < n; i++) {
      if (all[i]->family != (vb_family)f)
        continue;
      if (vb_family_info_of((vb_family)f)->one_scheme) {
        single = vb_family_info_of((vb_family)f)->name;
        break;
      }
      at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", sep, all[i]->name);
      sep = "/";
    }
  }
  if (single && at < len)
    snprintf(buf + at, len - at, ", or a single %s scheme", single);
}

/* The first contact of each island (first[root]); VB_EINVAL when two
 * contacts of one island need different families or explicit schemes. */
static int
island_families(const vb_scene *sc, int *parent, int *first, char *err, size_t errlen)
{
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    int body = moved_body(sc, ct), r = find(parent, body);
    if (first[r] < 0) {
      first[r] = c;
      continue;
    }
    const vb_contact *c0 = &sc->contacts[first[r]];
    int clash = c0->scheme->family != ct->scheme->family ||
                (vb_family_info_of(ct->scheme->family)->one_scheme && c0->scheme != ct->scheme);
    if (!clash)
      continue;
    /* name a body the two contacts share, if they touch one */
    int walls[2] = {sc->bodies[ct->a].kind == VB_BODY_WALL, sc->bodies[ct->b].kind == VB_BODY_WALL};
    if (!walls[0] && (ct->a == c0->a || ct->a == c0->b))
      body = ct->a;
    else if (!walls[1] && (ct->b == c0->a || ct->b == c0->b))
      body = ct->b;
    char valid[256], who[VB_LABEL_MAX], who0[VB_LABEL_MAX];
    family_choices(valid, sizeof valid);
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact %s: scheme '%s' cannot step body "
                   "'%s' together with contact %s (scheme '%s') in one island (valid: one "
                   "family per island: %s)",
                   sc->path, ct->line, vb_contact_label(sc, ct, who, sizeof who), ct->scheme->name,
                   sc->bodies[body].name, vb_contact_label(sc, c0, who0, sizeof who0),
                   c0->scheme->name, valid);
  }
  return VB_OK;
}

/* The members of every island, each list in name order: island k's
 * bodies are body[bstart[k] .. bstart[k + 1]), and so on (one pass over
 * the scene for all islands, not one per island). */
typedef struct {
  int *body, *bstart;
  int *contact, *cstart;
  int *force, *fstart;
} island_members;

/* Bucket n objects (order[0..n), name order) by island: island_of(i) is
 * an island number or -1; list/start as in island_members. */
static void
bucket(int n, const int *order, const int *island_of, int count, int *list, int *start)
{
  for (int k = 0; k <= count; k++)
    start[k] = 0;
  for (int k = 0; k < n; k++)
    if (island_of[order[k]] >= 0)
      start[island_of[order[k]] + 1]++;
  for (int k = 0; k < count; k++)
    start[k + 1] += start[k];
  int *at = start + count + 1; /* [count] fill positions */
  for (int k = 0; k < count; k++)
    at[k] = start[k];
  for (int k = 0; k < n; k++)
    if (island_of[order[k]] >= 0)
      list[at[island_of[order[k]]]++] = order[k];
}

/* Fill mem (one allocation, mem->body) for `count` islands numbered by
 * root_island[root]; VB_OK or VB_ENOMEM. */
static int
members_build(const vb_scene *sc, int *parent, const int *root_island, int count,
              const name_order *by, island_members *mem)
{
  int nb = sc->nbodies, nc = sc->ncontacts, nf = sc->nforces;
  size_t n = (size_t)nb + nc + nf + 3 * (2 * (size_t)count + 2);
  int *of = malloc(((size_t)(nb > nc ? (nb > nf ? nb : nf) : (nc > nf ? nc : nf)) + 1) * sizeof *of);
  mem->body = malloc(n * sizeof *mem->body);
  if (!of || !mem->body) {
    free(of);
    free(mem->body);
    mem->body = NULL;
    return VB_ENOMEM;
  }
  mem->contact = mem->body + nb;
  mem->force = mem->contact + nc;
  mem->bstart = mem->force + nf;
  mem->cstart = mem->bstart + 2 * count + 2;
  mem->fstart = mem->cstart + 2 * count + 2;
  for (int i = 0; i < nb; i++)
    of[i] = sc->bodies[i].kind != VB_BODY_WALL ? root_island[find(parent, i)] : -1;
  bucket(nb, by->bodies, of, count, mem->body, mem->bstart);
  for (int c = 0; c < nc; c++)
    of[c] = root_island[find(parent, moved_body(sc, &sc->contacts[c]))];
  bucket(nc, by->contacts, of, count, mem->contact, mem->cstart);
  for (int f = 0; f < nf; f++)
    of[f] = root_island[find(parent, sc->forces[f].body)];
  bucket(nf, by->forces, of, count, mem->force, mem->fstart);
  free(of);
  return VB_OK;
}

/* Lay out the bodies, recorded points, contacts and forces of island k,
 * each in name order. */
static void
island_layout(builder *bd, const vb_scene *sc, const island_members *mem, int k)
{
  vb_island_model *m = bd->m;
  int at = 0, ib = 0, row = 0;
  for (int q = mem->bstart[k]; q < mem->bstart[k + 1]; q++) {
    int i = mem->body[q];
    const vb_body *b = &sc->bodies[i];
    bd->bodies[ib] = i;
    bd->point_first[ib] = row;
    bd->offsets[ib++] = at;
    /* recorded point rows over the island's modes */
    for (int pt = 0; pt < (b->kind == VB_BODY_MODAL ? b->npoints : 1); pt++, row++) {
      for (int j = 0; j < b->nmodes; j++)
        bd->P[(size_t)row * m->nmp + at + j] = b->points[pt].shape[j];
      bd->point_from[row] = at / 8 * 8;
      bd->point_to[row] = (at + b->nmodes + 7) / 8 * 8;
    }
    at += b->nmodes;
  }
  int ic = 0;
  for (int q = mem->cstart[k]; q < mem->cstart[k + 1]; q++) {
    int c = mem->contact[q];
    bd->cts[ic] = sc->contacts[c];
    bd->contacts[ic++] = c;
  }
  int jf = 0;
  for (int q = mem->fstart[k]; q < mem->fstart[k + 1]; q++) {
    int f = mem->force[q];
    bd->forces[jf] = f;
    bd->force_mode[jf++] = body_offset(m, sc->forces[f].body);
  }
}

/* Most contacts on one island whose solve holds a dense nc x nc
 * compliance (8 nc^2 bytes, 512 MiB here) and forms it in nc^2 x modes
 * operations, so a larger island would take minutes and gigabytes before
 * its first step (doc/scene-file.md, "Limits"): the islands that cannot
 * solve through the modes (island_lowrank). */
#define ISLAND_CONTACTS_MAX 8192
/* Most contacts on one island solved through the modes (no dense K,
 * solvers/lowrank.c): its arrays are O(nc nm), 8 nc nmp bytes of S
 * alone (1.6 GB at 200 modes here). */
#define ISLAND_LOWRANK_CONTACTS_MAX 1048576

/* Why island k's contacts (of nm modes in all) cannot be solved through
 * the modes without a dense K (solvers/lowrank.c), or NULL where they
 * can: the K-method (two-level, three-level) without a closed-form
 * scheme (quadratic's Gauss-Seidel reads K's rows), friction, a
 * tangential direction, a circular clearance or a moving point (whose
 * solves keep dense matrices of their own); *who the contact (or -1). */
static const char *
lowrank_refusal(const vb_scene *sc, const island_members *mem, int k, int *who)
{
  int c0 = mem->cstart[k], c1 = mem->cstart[k + 1];
  *who = c1 > c0 ? mem->contact[c0] : -1;
  if (c1 - c0 < 2)
    return "fewer than two contacts";
  const vb_contact *first = &sc->contacts[mem->contact[c0]];
  if (vb_family_of(first->scheme->family)->solve != vb_kmethod_solve)
    return "its scheme's family is not solved by the K-method";
  for (int q = mem->bstart[k]; q < mem->bstart[k + 1]; q++) {
    const vb_body *b = &sc->bodies[mem->body[q]];
    if (b->has_w || b->nwmodes > 0)
      return "a body has a tangential direction (w)";
  }
  for (int q = c0; q < c1; q++) {
    const vb_contact *ct = &sc->contacts[mem->contact[q]];
    *who = mem->contact[q];
    if (ct->scheme->ops->solve_single)
      return "its scheme has a closed form (solved by Gauss-Seidel over the dense compliance)";
    if (ct->friction.kind != VB_FRICTION_NONE)
      return "it has friction";
    if (ct->geometry == VB_GEOMETRY_CIRCULAR)
      return "it has a circular clearance";
    if (ct->ntrack > 0)
      return "its point moves along its body";
  }
  *who = mem->contact[c0];
  return NULL;
}

/* The largest active set whose K_AA a lowrank island of nc contacts and
 * nm modes forms (vb_kproblem.kcap): nm (or nc).  Up to nm contacts the
 * packed K_AA (na^2 nm / 2 multiply-adds to form, O(na^2) a residual) and
 * the LU of J (na^3 / 3) cost less than the products through the modes
 * (O(na nm) a residual) and the modes' nm x nm system (dense.c's
 * lowrank_solve, n nm^2 / 2 + 2 nm^3 / 3); above, more.  At least nm
 * also because dense.c's pivots (nm) and index list of a block solved
 * through the modes (above kcap) share vb_kproblem.iterations. */
static int
lowrank_kcap(int nc, int nm)
{
  return nm < nc ? nm : nc;
}

/* Whether island k (nm modes) keeps no dense compliance and is solved
 * through its modes (solvers/lowrank.c): where it can (lowrank_refusal)
 * and it has more than VB_LOWRANK_MIN_CONTACTS contacts and more than 4 nm,
 * or wherever it can under the lowrank test hook (1; 0: never). */
static int
island_lowrank(const vb_scene *sc, const island_members *mem, int k, int nm)
{
  int who, nc = mem->cstart[k + 1] - mem->cstart[k], hook = vb_test_hooks_now()->lowrank;
  if (hook == 0 || lowrank_refusal(sc, mem, k, &who))
    return 0;
  return hook > 0 || (nc > VB_LOWRANK_MIN_CONTACTS && nc > 4L * nm);
}

/* Refuse an island of more contacts than it may have (ISLAND_CONTACTS_MAX
 * with a dense compliance, ISLAND_LOWRANK_CONTACTS_MAX through the modes),
 * naming the first contact past the cap (in name order) and a body of the
 * island, and why it cannot be solved through its modes. */
static int
check_island_size(const vb_scene *sc, const island_members *mem, int k, int lowrank, char *err,
                  size_t errlen)
{
  int nc = mem->cstart[k + 1] - mem->cstart[k];
  int cap = lowrank ? ISLAND_LOWRANK_CONTACTS_MAX : ISLAND_CONTACTS_MAX;
  if (nc <= cap)
    return VB_OK;
  const vb_contact *ct = &sc->contacts[mem->contact[mem->cstart[k] + cap]];
  char who[VB_LABEL_MAX], whyc[VB_LABEL_MAX];
  const char *bname = sc->bodies[mem->body[mem->bstart[k]]].name;
  if (lowrank)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact %s: the island of body '%s' (the bodies its contacts join) "
                   "has %d contacts (valid: at most %d contacts on the bodies of one island)",
                   sc->path, ct->line, vb_contact_label(sc, ct, who, sizeof who), bname, nc, cap);
  int c;
  const char *why = lowrank_refusal(sc, mem, k, &c);
  if (!why)
    why = "the solve through the modes is turned off (VIBRO_TEST_LOWRANK=0)";
  return vb_errf(err, errlen, VB_EINVAL,
                 "%s:%d: contact %s: the island of body '%s' (the bodies its contacts join) "
                 "has %d contacts, more than the %d one island may have where it cannot be "
                 "solved through its modes (contact %s: %s): its dense compliance would take "
                 "%.3g GiB (valid: at most %d contacts on the bodies of such an island; up to %d "
                 "for the K-method, two-point or three-point, without friction, a tangential "
                 "direction, clearances, moving points or a closed-form scheme)",
                 sc->path, ct->line, vb_contact_label(sc, ct, who, sizeof who), bname, nc, cap,
                 c >= 0 ? vb_contact_label(sc, &sc->contacts[c], whyc, sizeof whyc) : "-", why,
                 8.0 * nc * (double)nc / 1073741824.0, cap, ISLAND_LOWRANK_CONTACTS_MAX);
}

/* Compile island k (members mem, first contact `first`, or -1 for a body
 * in no contact). */
static int
island_compile(vb_model *md, int k, const island_members *mem, int first, char *err,
               size_t errlen)
{
  const vb_scene *sc = md->scene;
  vb_island_model *m = &md->islands[k];
  int nm = 0, npts = 0, nb = mem->bstart[k + 1] - mem->bstart[k];
  int nc = mem->cstart[k + 1] - mem->cstart[k], nf = mem->fstart[k + 1] - mem->fstart[k];
  for (int q = mem->bstart[k]; q < mem->bstart[k + 1]; q++) {
    const vb_body *b = &sc->bodies[mem->body[q]];
    nm += b->nmodes;
    npts += b->kind == VB_BODY_MODAL ? b->npoints : 1;
  }
  m->lowrank = island_lowrank(sc, mem, k, nm);
  int rc = check_island_size(sc, mem, k, m->lowrank, err, errlen);
  if (rc != VB_OK)
    return rc;
  m->scene = sc;
  m->dt = md->dt;
  builder bd;
  if (island_alloc(&bd, m, nm, nc, nf, nb, npts, md->no_compliance || m->lowrank) != VB_OK)
    return VB_ENOMEM;
  m->kcap = m->lowrank ? lowrank_kcap(nc, nm) : 0;
  m->family = first >= 0 ? sc->contacts[first].scheme->family : VB_FAMILY_TWO_LEVEL;
  m->fam = vb_family_of(m->family);
  m->scheme = m->fam->info->one_scheme ? sc->contacts[first].scheme : NULL;
  island_layout(&bd, sc, mem, k);
  rc = island_modes(&bd, sc, err, errlen);
  if (rc != VB_OK)
    return rc;
  island_contacts(&bd, sc);
  m->has_gen = m->nf > 0;
  for (int j = 0; j < m->nm; j++)
    m->has_gen |= m->gconst[j] != 0.0;
  rc = check_schemes(m, sc, err, errlen);
  if (rc == VB_OK)
    rc = check_exact_duration(m, sc, err, errlen);
  /* the tangential direction and friction (issue 30) */
  if (rc == VB_OK)
    rc = vb_friction_compile(m, &m->fric, err, errlen);
  /* a circular clearance (issue 30, item 4) */
  if (rc == VB_OK)
    rc = vb_clearance_compile(m, &m->clr, err, errlen);
  /* a contact point moving along its body (issue 30, item 5) */
  return rc != VB_OK ? rc : vb_moving_compile(m, &m->mov, err, errlen);
}

/* Where each body and contact lives. */
static void
model_index(vb_model *md)
{
  const vb_scene *sc = md->scene;
  for (int b = 0; b < sc->nbodies; b++)
    md->body_island[b] = md->body_offset[b] = -1;
  for (int i = 0; i < md->nislands; i++) {
    const vb_island_model *m = &md->islands[i];
    for (int k = 0; k < m->nb; k++) {
      md->body_island[m->bodies[k]] = i;
      md->body_offset[m->bodies[k]] = m->offsets[k];
    }
    for (int c = 0; c < m->nc; c++) {
      md->contact_island[m->contacts[c]] = i;
      md->contact_local[m->contacts[c]] = c;
    }
  }
}

/* Compile a scene, with its islands' compliance unless no_compliance. */
static int
compile(const vb_scene *sc, int no_compliance, vb_model **out, char *err, size_t errlen)
{
  int nb = sc->nbodies, nc = sc->ncontacts, nf = sc->nforces, count = 0, rc = VB_OK;
  int most = nb > nc ? (nb > nf ? nb : nf) : (nc > nf ? nc : nf);
  int *parent = malloc((4 * ((size_t)nb + 1) + (size_t)nc + (size_t)nf + 2) * sizeof(int));
  named *tmp = malloc(((size_t)most + 1) * sizeof *tmp);
  vb_model *md = calloc(1, sizeof *md);
  island_members mem = {0};
  *out = NULL;
  if (!parent || !tmp || !md)
    goto nomem;
  int *root_island = parent + nb + 1, *first = root_island + nb + 1;
  name_order by = {first + nb + 1, NULL, NULL};
  by.contacts = by.bodies + nb + 1;
  by.forces = by.contacts + nc + 1;
  if (nb > 0)
    sort_by_name(sc->bodies[0].name, sizeof sc->bodies[0], nb, tmp, by.bodies);
  if (nc > 0)
    sort_by_name(sc->contacts[0].name, sizeof sc->contacts[0], nc, tmp, by.contacts);
  if (nf > 0)
    sort_by_name(sc->forces[0].name, sizeof sc->forces[0], nf, tmp, by.forces);
  md->scene = sc;
  md->dt = 1.0 / sc->fs;
  md->no_compliance = no_compliance;
  for (int i = 0; i < nb; i++) {
    parent[i] = i;
    root_island[i] = first[i] = -1;
  }
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (sc->bodies[ct->a].kind != VB_BODY_WALL && sc->bodies[ct->b].kind != VB_BODY_WALL)
      parent[find(parent, ct->a)] = find(parent, ct->b);
  }
  /* islands numbered in the name order of their bodies */
  for (int k = 0; k < nb; k++) {
    int i = by.bodies[k];
    if (sc->bodies[i].kind != VB_BODY_WALL && root_island[find(parent, i)] < 0)
      root_island[find(parent, i)] = count++;
  }
  md->nislands = count;
  md->islands = calloc((size_t)count + 1, sizeof *md->islands);
  md->contact_island = calloc(2 * (size_t)nc + 2 * (size_t)nb + 1, sizeof(int));
  if (!md->islands || !md->contact_island)
    goto nomem;
  md->contact_local = md->contact_island + nc;
  md->body_island = md->contact_local + nc;
  md->body_offset = md->body_island + nb;
  if ((rc = island_families(sc, parent, first, err, errlen)) != VB_OK)
    goto fail;
  if (members_build(sc, parent, root_island, count, &by, &mem) != VB_OK)
    goto nomem;
  for (int k = 0; k < count; k++) {
    int root = find(parent, mem.body[mem.bstart[k]]); /* an island has a body */
    rc = island_compile(md, k, &mem, first[root], err, errlen);
    if (rc == VB_ENOMEM)
      goto nomem;
    if (rc != VB_OK)
      goto fail;
  }
  model_index(md);
  free(mem.body);
  free(parent);
  free(tmp);
  *out = md;
  return VB_OK;
nomem:
  rc = vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory building islands", sc->name);
fail:
  free(mem.body);
  free(parent);
  free(tmp);
  vb_model_free(md);
  return rc;
}

/* Compile a scene for stepping. */
int
vb_model_compile(const vb_scene *sc, vb_model **out, char *err, size_t errlen)
{
  return compile(sc, 0, out, err, errlen);
}

/* Compile a scene for its loader's checks and its queries: no compliance. */
int
vb_model_compile_queries(const vb_scene *sc, vb_model **out, char *err, size_t errlen)
{
  return compile(sc, 1, out, err, errlen);
}
