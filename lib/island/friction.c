/* friction.c - the tangential direction w and friction of an island
 * (issue 30, step 1; doc/friction.md): its compiled model, state and step
 * (friction.h); the friction laws are rows of friction_law.c's table, the
 * run's signals friction_run.c's.
 *
 * The discretisation.  The tangential coordinates are stepped by the
 * two-level family's trapezoidal rule (Chatziioannou eq 8a for the bodies,
 * modes.c's vb_mode_two_level with its pre-warped omega and sigma): with a
 * force ft held over the step,
 *   w^(n+1) = ca w^n + cb vw^n + cc ft,   vw^(n+1) = 2 (w^(n+1) - w^n)/dt - vw^n,
 * which is the discrete gradient of the coordinate's energy m vw^2/2 +
 * m w2 w^2/2 (O. Gonzalez, J. Nonlinear Sci. 6, 1996: for a quadratic
 * energy the discrete gradient is the midpoint), so that a step changes that
 * energy by exactly ft (w^(n+1) - w^n) less the damper's 2 m sig (w^(n+1) -
 * w^n)^2 / dt.  The friction of the step is Moreau's time-stepping (Moreau
 * 1988 above, Acary & Brogliato section 10.1): the impulse over the step
 * solves the law at the step's mean slip s = (y^(n+1) - y^n)/dt, y = w_b -
 * w_a; with s = s_free + c ft (c = Kt/dt > 0) the law's solution is
 *   ft_stick = -s_free / c                  (the force that makes s = 0)
 *   ft = ft_stick             if |ft_stick| <= mu_s N  (stick, s = 0)
 *   ft = mu_k N sgn(ft_stick) otherwise                (slip: then s has
 *                                                       the sign of -ft)
 * so the friction work of a step, -ft (y^(n+1) - y^n) = -ft s dt, is never
 * negative (0 in stick, mu_k N |s| dt in slip), and the energy balance
 * E + dissipated - external closes to round-off, the walls' work through
 * friction being -ft times their part of dy.  N is the normal force the
 * contact's scheme holds over the same step (the two-point scheme's
 * discrete gradient, fbar).  For masses the normal and tangential
 * coordinates are distinct modes and the normal force does not depend on
 * the tangential one, so solving the normal contacts first and the friction
 * after them, with the normal force of the step, is the joint solution of
 * the step; so it is for a modal body's modes along w (step 3), distinct
 * coordinates from its modes along u (a moving contact point or a circular
 * gap would couple them: doc/friction.md, what is not done yet).
 *
 * Spin (issue 30, step 2).  A mass with a radius r and inertia I has a
 * second tangential coordinate, its spin angle theta (a free rotor: I
 * theta'' = sum of its contacts' torques r ft), stepped by the same rule.
 * A contact's slip is then T q', the rate of w_b - w_a plus the surface
 * speeds r_b theta_b' + r_a theta_a' of its bodies' spins (vibro.h's
 * vb_body: the contact point is on the side facing the other body), and
 * everything above holds with T in place of the +-1 of w_b - w_a: Kt = T
 * diag(cc) T^T carries the spin's compliance r^2 cc_theta = r^2 dt^2 /
 * (2 I) beside the mass's dt^2 / (2 m), so the stick solve holds rolling
 * without slipping exactly, and the spin's kinetic energy I theta'^2 / 2
 * joins the coordinates' energy.
 *
 * Modes along w (issue 30, step 3).  A modal body's modes along w are
 * tangential coordinates too, each a one-mode oscillator (its modal mass,
 * frequency and damping) stepped by the same rule, and a contact is
 * joined to its bodies by a row of weights, T q' its slip: +1 and -1 at a
 * mass's w as the contact's b and a, its radius at a spin, and +phi_j(p_b)
 * and -phi_j(p_a) at the modes along w of a modal body b or a (their
 * shapes at the contact's points).  A mass is thus a one-mode body of
 * shape 1, and reproduces it to the bit (tests/run/wmodes_ref.py). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "friction.h"
#include "island.h"

/* --------------------------------------------------------------- model */

/* A wall's w drive, or NULL when it is fixed along w. */
static const vb_drive *
w_drive_of(const vb_body *b)
{
  return b->kind == VB_BODY_WALL && b->w_drive.kind != VB_DRIVE_NONE ? &b->w_drive : NULL;
}

/* w of a drive at t (NULL: 0), m, its rate into *rate. */
static double
drive_w(const vb_drive *d, double t, double *rate)
{
  *rate = 0.0;
  return d ? vb_drive_eval(d, t, rate) : 0.0;
}

/* Coordinate of scene body b in the model's list, or -1. */
static int
coordinate_of(const int *tbody, int nt, int b)
{
  for (int j = 0; j < nt; j++)
    if (tbody[j] == b)
      return j;
  return -1;
}

/* T_i . d: contact i's part of coordinate increments (or rates) d, summed
 * along its row (b's w, a's, b's spin, a's, b's modes, a's).  A row of at
 * most four entries (masses and spins) is summed in its order, the values
 * and the order of (d_b - d_a) + rb d_sb + ra d_sa; a longer one (modes
 * along w) in partial sums (four interleaved ones, or vector lanes when
 * its coordinates are consecutive), so that the additions do not wait on
 * each other (a 200-mode string's step is a few such sums). */
static double
t_dot(const vb_friction_model *fm, int i, const double *d)
{
  int e0 = fm->row_first[i], e1 = fm->row_first[i + 1];
  const int *J = fm->row_j;
  const double *T = fm->row_t;
  if (e1 - e0 <= 4) {
    double y = 0.0;
    for (int e = e0; e < e1; e++)
      y += T[e] * d[J[e]];
    return y;
  }
  double y0 = 0.0, y1 = 0.0, y2 = 0.0, y3 = 0.0;
  int e = e0;
  if (fm->row_base[i] >= 0) {
    /* the row's coordinates consecutive (a modal body against a wall):
     * vectorised partial sums without the gather */
    const double *dd = d + fm->row_base[i] - e0;
    if (fm->sparse) /* distributed points: friction_dist.c's kernel */
      return vb_fdist_dot(e1 - e0, T + e0, dd + e0);
#pragma omp simd reduction(+ : y0)
    for (int k = e0; k < e1; k++)
      y0 += T[k] * dd[k];
    return y0;
  }
  for (; e + 3 < e1; e += 4) {
    y0 += T[e] * d[J[e]];
    y1 += T[e + 1] * d[J[e + 1]];
    y2 += T[e + 2] * d[J[e + 2]];
    y3 += T[e + 3] * d[J[e + 3]];
  }
  for (; e < e1; e++)
    y0 += T[e] * d[J[e]];
  return (y0 + y1) + (y2 + y3);
}

/* d += cc_j T_ij f over contact i's coordinates j: a step's force f (a
 * row of at most four entries as cc_j (T_ij f), a longer one, modes along
 * w, with the products cc_j T_ij formed at compile time). */
static void
t_add_force(const vb_friction_model *fm, int i, double f, double *d)
{
  int e0 = fm->row_first[i], e1 = fm->row_first[i + 1];
  const int *J = fm->row_j;
  if (e1 - e0 <= 4) {
    for (int e = e0; e < e1; e++)
      d[J[e]] += fm->cc[J[e]] * (fm->row_t[e] * f);
    return;
  }
  const double *restrict tc = fm->row_tc;
  if (fm->row_base[i] >= 0) {
    double *restrict dd = d + fm->row_base[i] - e0;
    if (fm->sparse) {
      vb_fdist_axpy(e1 - e0, tc + e0, f, dd + e0);
      return;
    }
#pragma omp simd
    for (int e = e0; e < e1; e++)
      dd[e] += tc[e] * f;
    return;
  }
  for (int e = e0; e < e1; e++)
    d[J[e]] += tc[e] * f;
}

/* v += T_ij P / mass_j over contact i's coordinates j: an impulse P (a
 * long row with T_ij / mass_j formed at compile time). */
static void
t_add_impulse(const vb_friction_model *fm, int i, double P, double *v)
{
  int e0 = fm->row_first[i], e1 = fm->row_first[i + 1];
  const int *J = fm->row_j;
  if (e1 - e0 <= 4) {
    for (int e = e0; e < e1; e++)
      v[J[e]] += fm->row_t[e] * P / fm->mass[J[e]];
    return;
  }
  const double *restrict tm = fm->row_tm;
  if (fm->row_base[i] >= 0) {
    double *restrict vv = v + fm->row_base[i] - e0;
    if (fm->sparse) {
      vb_fdist_axpy(e1 - e0, tm + e0, P, vv + e0);
      return;
    }
#pragma omp simd
    for (int e = e0; e < e1; e++)
      vv[e] += tm[e] * P;
    return;
  }
  for (int e = e0; e < e1; e++)
    v[J[e]] += tm[e] * P;
}

/* The entries of contact i's row. */
static int
row_len(const vb_friction_model *fm, int i)
{
  return fm->row_first[i + 1] - fm->row_first[i];
}

/* Whether the catch's impulse on contact i may wait for the next reading
 * of the rates (a distributed point's row over consecutive modes, which
 * t_add_impulse adds with vb_fdist_axpy), and whether it may be added in
 * the pass of contact k's slip (the same coordinates). */
static int
pendable(const vb_friction_model *fm, int i)
{
  return fm->sparse && fm->row_base[i] >= 0 && row_len(fm, i) > 4;
}

static int
same_span(const vb_friction_model *fm, int i, int k)
{
  return pendable(fm, k) && fm->row_base[k] == fm->row_base[i] && row_len(fm, k) == row_len(fm, i);
}

/* A body's entries in a contact's row: a mass's w (weight sign) or, for a
 * modal body, all its modes along w with sign times their shapes at point
 * p (consecutive coordinates); a spin's are added by the caller.
 * Returns the count; with j, t NULL it only counts. */
static int
row_entries(const vb_body *b, int p, int sign, int first_mode, int mass_j, int *j, double *t)
{
  int n = 0;
  if (b->kind == VB_BODY_MASS && mass_j >= 0) {
    if (j) {
      j[0] = mass_j;
      t[0] = (double)sign;
    }
    return 1;
  }
  if (b->kind != VB_BODY_MODAL || first_mode < 0)
    return 0;
  for (int k = 0; k < b->nwmodes; k++) {
    double sh = b->points[p].wshape[k];
    if (j) {
      j[n] = first_mode + k;
      t[n] = sign > 0 ? sh : -sh;
    }
    n++;
  }
  return n;
}

int
vb_friction_compile(const vb_island_model *m, vb_friction_model **out, char *err, size_t errlen)
{
  const vb_scene *sc = m->scene;
  int nt = 0, nw = 0, nsp = 0, nfc = 0, nrow = 0;
  *out = NULL;
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    nw += b->kind == VB_BODY_MASS && b->has_w;
    nsp += b->kind == VB_BODY_MASS && b->has_w && b->has_spin;
    nt += b->kind == VB_BODY_MODAL ? b->nwmodes : 0;
  }
  nt += nw + nsp;
  /* each body's first mode along w among the coordinates */
  int *mfirst = malloc(((size_t)m->nb + 1) * sizeof *mfirst);
  if (!mfirst)
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory building friction",
                   sc->name);
  for (int i = 0, at = nw + nsp; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    mfirst[i] = b->kind == VB_BODY_MODAL && b->nwmodes > 0 ? at : -1;
    at += mfirst[i] >= 0 ? b->nwmodes : 0;
  }
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &m->cts[c];
    if (ct->friction.kind == VB_FRICTION_NONE)
      continue;
    nfc++;
    /* a generous count: every mode, both w's and both spins */
    nrow += 4 + sc->bodies[ct->a].nwmodes + sc->bodies[ct->b].nwmodes;
  }
  if (nt == 0 && nfc == 0) {
    free(mfirst);
    return VB_OK;
  }
  /* doubles: mass, w2, sig, cq, cb, cc [nt], Kt [nfc^2], kv, ra, rb, given [nfc],
   * row_t, row_tc, row_tm [nrow]; pointers: da, db, info, law, ndrive [nfc]; ints: tbody, touch,
   * tmode [nt], local, scene_c, ia, ib, two_sided, alone, sa, sb [nfc], st_first,
   * row_first [nfc + 1], row_j [nrow] */
  size_t nkt = nfc <= VB_FRICTION_KT_DENSE ? (size_t)nfc * nfc : 0; /* friction_dist.c */
  size_t nd = 6 * (size_t)nt + nkt + 4 * (size_t)nfc + 3 * (size_t)nrow;
  size_t ni = 3 * (size_t)nt + 11 * (size_t)nfc + 2 + (size_t)nrow;
  size_t np = 5 * (size_t)nfc;
  vb_friction_model *fm = calloc(1, sizeof *fm);
  char *block = calloc(1, nd * sizeof(double) + np * sizeof(void *) + ni * sizeof(int) + 64);
  double *T = calloc((size_t)nfc * nt + 1, sizeof *T);
  if (!fm || !block || !T) {
    free(fm);
    free(block);
    free(T);
    free(mfirst);
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory building friction",
                   sc->name);
  }
  fm->block = block;
  double *d = (double *)block;
  void **p = (void **)(d + nd);
  int *q = (int *)(p + np);
  double *mass = d, *w2 = d + nt, *sig = d + 2 * nt, *cq = d + 3 * nt, *cb = d + 4 * nt;
  double *cc = d + 5 * nt, *Kt = d + 6 * nt, *kv = Kt + nkt;
  double *ra = kv + nfc, *rb = ra + nfc, *given = rb + nfc, *row_t = given + nfc;
  double *row_tc = row_t + nrow, *row_tm = row_tc + nrow;
  const vb_drive **da = (const vb_drive **)p, **db = da + nfc;
  const vb_friction_info **info = (const vb_friction_info **)(db + nfc);
  const vb_friction **law = (const vb_friction **)(info + nfc);
  const vb_drive **ndrive = (const vb_drive **)(law + nfc);
  int *tbody = q, *local = q + nt, *scene_c = local + nfc, *ia = scene_c + nfc, *ib = ia + nfc;
  int *two_sided = ib + nfc, *st_first = two_sided + nfc, *alone = st_first + nfc + 1;
  int *touch = alone + nfc, *sa = touch + nt, *sb = sa + nfc, *tmode = sb + nfc;
  int *row_first = tmode + nt, *row_j = row_first + nfc + 1, *row_base = row_j + nrow;
  fm->dt = m->dt;
  fm->nt = nt;
  fm->nw = nw;
  fm->nmw = nw + nsp;
  fm->nfc = nfc;
  /* the coordinates, in the island's body order (by name: model.c): the
   * masses' w, then the spins' angles (a free rotor: inertia, no spring,
   * no damper), then the modal bodies' modes along w, each stepped by the
   * same two-level rule */
  nt = 0;
  for (int k = 0; k < 3 * m->nb; k++) {
    int pass = k / m->nb, i = k % m->nb;
    const vb_body *b = &sc->bodies[m->bodies[i]];
    int nmodes = pass == 2 ? (b->kind == VB_BODY_MODAL ? b->nwmodes : 0)
                           : (b->kind == VB_BODY_MASS && b->has_w && (pass == 0 || b->has_spin));
    for (int mode = 0; mode < nmodes; mode++) {
      double w0 = pass == 0 ? sqrt(b->kw / b->mass) : 0.0;
      vb_mode_in in = {.freq = pass == 2 ? b->wfreq[mode] : w0 / (2.0 * M_PI),
                       .sigma = pass == 0   ? b->cw / (2.0 * b->mass)
                                : pass == 2 ? b->wsigma[mode]
                                            : 0.0,
                       .mass = pass == 0 ? b->mass : pass == 2 ? b->wmodal_mass[mode] : b->inertia,
                       .fs = 1.0 / m->dt,
                       .dt = m->dt};
      vb_mode_coef co;
      char why[160];
      if (vb_mode_two_level(&in, &co, why, sizeof why) != VB_OK) {
        free(T);
        free(mfirst);
        vb_friction_model_free(fm);
        return vb_errf(err, errlen, VB_EINVAL, "%s:%d: body '%s': its %s%s", sc->path, b->line,
                       b->name, pass == 0 ? "w coordinate" : pass == 1 ? "spin" : "mode along w",
                       why);
      }
      tbody[nt] = m->bodies[i];
      tmode[nt] = pass == 2 ? mode : -1;
      mass[nt] = in.mass;
      w2[nt] = co.w2;
      sig[nt] = co.sig;
      cq[nt] = -0.5 * m->dt * co.w2 * co.cb; /* ca - 1 = -dt w2 / D, cb = 2 / D */
      cb[nt] = co.cb;
      cc[nt] = co.cc;
      nt++;
    }
  }
  /* the contacts with friction, in the island's contact order, and their
   * rows of T */
  nfc = 0;
  st_first[0] = 0;
  row_first[0] = 0;
  for (int c = 0; c < m->nc; c++) {
    const vb_contact *ct = &m->cts[c];
    if (ct->friction.kind == VB_FRICTION_NONE)
      continue;
    const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
    int la = -1, lb = -1;
    for (int i = 0; i < m->nb; i++) {
      la = m->bodies[i] == ct->a ? i : la;
      lb = m->bodies[i] == ct->b ? i : lb;
    }
    local[nfc] = c;
    scene_c[nfc] = m->contacts[c];
    ia[nfc] = a->kind == VB_BODY_MASS ? coordinate_of(tbody, nw, ct->a) : -1;
    ib[nfc] = b->kind == VB_BODY_MASS ? coordinate_of(tbody, nw, ct->b) : -1;
    sa[nfc] = a->has_spin ? nw + coordinate_of(tbody + nw, nsp, ct->a) : -1;
    sb[nfc] = b->has_spin ? nw + coordinate_of(tbody + nw, nsp, ct->b) : -1;
    ra[nfc] = sa[nfc] >= 0 ? a->radius : 0.0;
    rb[nfc] = sb[nfc] >= 0 ? b->radius : 0.0;
    da[nfc] = w_drive_of(a);
    db[nfc] = w_drive_of(b);
    info[nfc] = vb_friction_info_of(ct->friction.kind);
    law[nfc] = &ct->friction;
    two_sided[nfc] = vb_law_info_of(ct->law.kind)->two_sided;
    given[nfc] = ct->normal_given ? ct->normal_force : -1.0;
    ndrive[nfc] = ct->normal_given && ct->normal_drive.kind != VB_DRIVE_NONE ? &ct->normal_drive
                                                                              : NULL;
    /* the loader refuses these (load_friction.c); a model of a scene
     * built otherwise says so too */
    int ma = la >= 0 ? mfirst[la] : -1, mb = lb >= 0 ? mfirst[lb] : -1;
    /* (a point following a mass's w across a modal body without modes
     * along w: the body's surface is fixed along w, as a wall's; moving.c
     * steps it) */
    int fixed_w = ct->track_follow;
    if (!info[nfc] || !ct->scheme->friction ||
        (ia[nfc] < 0 && ma < 0 && a->kind != VB_BODY_WALL && !fixed_w) ||
        (ib[nfc] < 0 && mb < 0 && b->kind != VB_BODY_WALL && !fixed_w)) {
      free(T);
      free(mfirst);
      vb_friction_model_free(fm);
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: contact '%s': friction needs a scheme that steps it and bodies "
                     "with a w direction (valid: masses with w0, vw0, kw or cw, modal bodies "
                     "with directions along w, and walls)",
                     sc->path, ct->line, ct->name);
    }
    /* the row: b's w (or modes), a's, b's spin, a's */
    int at = row_first[nfc];
    at += row_entries(b, ct->pb, +1, mb, ib[nfc], row_j + at, row_t + at);
    at += row_entries(a, ct->pa, -1, ma, ia[nfc], row_j + at, row_t + at);
    if (sb[nfc] >= 0) {
      row_j[at] = sb[nfc];
      row_t[at++] = rb[nfc];
    }
    if (sa[nfc] >= 0) {
      row_j[at] = sa[nfc];
      row_t[at++] = ra[nfc];
    }
    row_first[nfc + 1] = at;
    /* a long row of consecutive coordinates: its first, else -1 */
    row_base[nfc] = at - row_first[nfc] > 4 ? row_j[row_first[nfc]] : -1;
    for (int e = row_first[nfc]; row_base[nfc] >= 0 && e < at; e++)
      if (row_j[e] != row_j[row_first[nfc]] + (e - row_first[nfc]))
        row_base[nfc] = -1;
    for (int e = row_first[nfc]; e < at; e++) {
      T[(size_t)nfc * nt + row_j[e]] += row_t[e];
      row_tc[e] = cc[row_j[e]] * row_t[e];
      row_tm[e] = row_t[e] / mass[row_j[e]];
    }
    st_first[nfc + 1] = st_first[nfc] + info[nfc]->nstate;
    nfc++;
  }
  free(mfirst);
  /* Kt = T diag(cc) T^T and kv = T diag(1/mass) T^T's diagonal (the spin's
   * compliance r^2 cc beside the w's, a mode's shape^2 cc) */
  fm->ia = ia;
  fm->ib = ib;
  fm->sa = sa;
  fm->sb = sb;
  fm->ra = ra;
  fm->rb = rb;
  fm->row_first = row_first;
  fm->row_j = row_j;
  fm->row_t = row_t;
  fm->row_tc = row_tc;
  fm->row_base = row_base;
  fm->row_tm = row_tm;
  for (int i = 0; nkt > 0 && i < nfc; i++)
    for (int k = 0; k < nfc; k++) {
      double s = 0.0;
      for (int j = 0; j < nt; j++)
        s += T[(size_t)i * nt + j] * cc[j] * T[(size_t)k * nt + j];
      Kt[(size_t)i * nfc + k] = s;
    }
  for (int i = 0; i < nfc; i++) {
    kv[i] = 0.0;
    for (int j = 0; j < nt; j++)
      kv[i] += T[(size_t)i * nt + j] * T[(size_t)i * nt + j] / mass[j];
    for (int e = row_first[i]; e < row_first[i + 1]; e++)
      touch[row_j[e]]++;
  }
  free(T);
  /* a contact of a wall and one coordinate of weight +-1 (a mass, or a
   * one-mode body of shape +-1 at its point) that no other contact moves */
  for (int i = 0; i < nfc; i++) {
    int e = row_first[i];
    alone[i] = row_first[i + 1] - e == 1 && fabs(row_t[e]) == 1.0 && touch[row_j[e]] == 1 &&
               (da[i] || sc->bodies[m->cts[local[i]].a].kind == VB_BODY_WALL) !=
                   (db[i] || sc->bodies[m->cts[local[i]].b].kind == VB_BODY_WALL);
  }
  fm->tbody = tbody;
  fm->tmode = tmode;
  fm->mass = mass;
  fm->w2 = w2;
  fm->sig = sig;
  fm->cq = cq;
  fm->cb = cb;
  fm->cc = cc;
  fm->local = local;
  fm->scene_c = scene_c;
  fm->da = da;
  fm->db = db;
  fm->Kt = nkt > 0 ? Kt : NULL;
  fm->kv = kv;
  fm->info = info;
  fm->law = law;
  fm->two_sided = two_sided;
  fm->given = given;
  fm->ndrive = ndrive;
  fm->st_first = st_first;
  fm->alone = alone;
  fm->max_sweeps = 200;
  fm->tolerance = 1e-13;
  if (vb_friction_dist_compile(m, fm) != VB_OK) {
    vb_friction_model_free(fm);
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory building friction",
                   sc->name);
  }
  fm->one_row = !fm->sparse && nfc == 1 && row_base[0] == fm->nmw && row_base[0] < nt &&
                row_first[1] - row_first[0] == nt - fm->nmw && !alone[0] &&
                !vb_test_hooks_now()->no_one_row;
  *out = fm;
  return VB_OK;
}

void
vb_friction_model_free(vb_friction_model *fm)
{
  if (!fm)
    return;
  vb_friction_dist_model_free(fm);
  free(fm->block);
  free(fm);
}

/* --------------------------------------------------------------- state */

int
vb_friction_state_alloc(const vb_friction_model *fm, vb_friction_state **out)
{
  *out = NULL;
  if (!fm)
    return VB_OK;
  int nt = fm->nt, nfc = fm->nfc, nst = fm->st_first[nfc];
  size_t nd = 3 * (size_t)nt + 7 * (size_t)nfc + 2 * (size_t)nst + 1;
  vb_friction_state *fs = calloc(1, sizeof *fs);
  double *d = calloc(1, nd * sizeof *d + (2 * (size_t)nfc + 1) * sizeof(int));
  if (!fs || !d) {
    free(fs);
    free(d);
    return VB_ENOMEM;
  }
  fs->block = d;
  fs->w = d;
  fs->vw = d + nt;
  fs->dfree = d + 2 * nt;
  fs->ft = d + 3 * nt;
  fs->slip = fs->ft + nfc;
  fs->normal = fs->slip + nfc;
  fs->work = fs->normal + nfc;
  fs->dyfree = fs->work + nfc;
  fs->dydrv = fs->dyfree + nfc;
  fs->st = fs->dydrv + nfc;
  fs->st_old = fs->st + nst;
  fs->broke = (int *)(d + nd);
  fs->stk = fs->broke + nfc;
  if (vb_friction_dist_alloc(fm, fs) != VB_OK) {
    vb_friction_state_free(fs);
    return VB_ENOMEM;
  }
  *out = fs;
  return VB_OK;
}

void
vb_friction_state_free(vb_friction_state *fs)
{
  if (!fs)
    return;
  vb_friction_dist_free(fs);
  free(fs->block);
  free(fs);
}

void
vb_friction_state_copy(const vb_friction_model *fm, vb_friction_state *dst,
                       const vb_friction_state *src)
{
  if (!fm || !dst || !src)
    return;
  int nt = fm->nt, nfc = fm->nfc, nst = fm->st_first[nfc];
  size_t nd = 3 * (size_t)nt + 7 * (size_t)nfc + 2 * (size_t)nst + 1;
  memcpy(dst->block, src->block, nd * sizeof(double));
  dst->kinetic = src->kinetic;
  dst->potential = src->potential;
  dst->dissipated = src->dissipated;
  dst->external = src->external;
  dst->work_min = src->work_min;
  dst->sweeps_failed = src->sweeps_failed;
  dst->dfree_next = src->dfree_next;
}

static void energy_of(const vb_friction_model *fm, const vb_friction_state *fs, double k1,
                      double p1, double *kin, double *pot);

/* Energy of the coordinates at n: m vw^2/2 and m w2 w^2/2 (the two-level
 * family's, with its warped w2), and what the laws' states store (the
 * elasto-plastic bristle's N sigma0 z^2/2, under the normal force of the
 * step that set z). */
static void
energy(const vb_friction_model *fm, const vb_friction_state *fs, double *kin, double *pot)
{
  const double *mass = fm->mass, *w2 = fm->w2, *w = fs->w, *vw = fs->vw;
  int j = fm->nmw;
  /* masses and spins in order (energy_of), then modes along w in
   * vectorised partial sums (0 without them: the masses' sums unchanged;
   * the same order at every step and on every thread, so results stay
   * deterministic) */
  double k1 = 0.0, p1 = 0.0;
  if (fm->sparse) /* distributed points: friction_dist.c's kernel */
    vb_fdist_energy(fm->nt - j, mass + j, w2 + j, w + j, vw + j, &k1, &p1);
  else
#pragma omp simd reduction(+ : k1, p1)
  for (int i = j; i < fm->nt; i++) {
    k1 += 0.5 * mass[i] * vw[i] * vw[i];
    p1 += 0.5 * mass[i] * w2[i] * w[i] * w[i];
  }
  energy_of(fm, fs, k1, p1, kin, pot);
}

/* energy() with the modes' sums k1, p1 given: the masses' and spins'
 * terms added to *kin, *pot in order, the modes' sums after them, then the
 * laws' stored energies. */
static void
energy_of(const vb_friction_model *fm, const vb_friction_state *fs, double k1, double p1,
          double *kin, double *pot)
{
  const double *mass = fm->mass, *w2 = fm->w2, *w = fs->w, *vw = fs->vw;
  double k = *kin, p = *pot;
  for (int j = 0; j < fm->nmw; j++) {
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
  }
  *kin = k + k1;
  *pot = p + p1;
  for (int i = 0; i < fm->nfc; i++)
    if (fm->info[i]->stored)
      *pot += fm->info[i]->stored(fm->law[i], fs->normal[i], fs->st + fm->st_first[i]);
}

/* The coordinates' energy from the masses' and spins' sums k, p and the
 * modes' k1, p1, with the laws' stored energies; the next free increments
 * formed. */
static void
energy_sum(const vb_friction_model *fm, vb_friction_state *fs, double k, double p, double k1,
           double p1)
{
  fs->kinetic = k + k1;
  fs->potential = p + p1;
  for (int i = 0; !fm->plain && i < fm->nfc; i++)
    if (fm->info[i]->stored)
      fs->potential += fm->info[i]->stored(fm->law[i], fs->normal[i], fs->st + fm->st_first[i]);
  fs->dfree_next = 1;
}

/* An island with distributed points: energy() into fs->kinetic and
 * potential (from 0), and in the same pass over the modes the next step's
 * free increments into dfree (friction_dist.c). */
static void
energy_and_next(const vb_friction_model *fm, vb_friction_state *fs, int pi, double pP)
{
  const double *mass = fm->mass, *w2 = fm->w2, *w = fs->w, *vw = fs->vw;
  double k = 0.0, p = 0.0, k1, p1;
  int j = 0;
  if (pi >= 0 && !(fm->row_base[pi] == fm->nmw && row_len(fm, pi) == fm->nt - fm->nmw)) {
    t_add_impulse(fm, pi, pP, fs->vw); /* a row that is not all the modes */
    pi = -1;
  }
  for (; j < fm->nmw; j++) {
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
    fs->dfree[j] = fm->cq[j] * w[j] + fm->cb[j] * vw[j];
  }
  if (pi >= 0) /* contact pi's catch, pending: the rates first */
    vb_fdist_imp_energy_free(fm->nt - j, fm->row_tm + fm->row_first[pi], pP, mass + j, w2 + j,
                             fm->cq + j, fm->cb + j, w + j, fs->vw + j, fs->dfree + j, &k1, &p1);
  else
    vb_fdist_energy_free(fm->nt - j, mass + j, w2 + j, fm->cq + j, fm->cb + j, w + j, vw + j,
                         fs->dfree + j, &k1, &p1);
  energy_sum(fm, fs, k, p, k1, p1);
}

/* energy_and_next's end once the modes' sums k1, p1 and their next free
 * increments are formed (in the step's pass, vb_fdist_pass_run): the
 * masses' and spins' part, then the sums. */
static void
energy_done(const vb_friction_model *fm, vb_friction_state *fs, double k1, double p1)
{
  const double *mass = fm->mass, *w2 = fm->w2, *w = fs->w, *vw = fs->vw;
  double k = 0.0, p = 0.0;
  for (int j = 0; j < fm->nmw; j++) {
    k += 0.5 * mass[j] * vw[j] * vw[j];
    p += 0.5 * mass[j] * w2[j] * w[j] * w[j];
    fs->dfree[j] = fm->cq[j] * w[j] + fm->cb[j] * vw[j];
  }
  energy_sum(fm, fs, k, p, k1, p1);
}

void
vb_friction_energy(const vb_island_model *m, const vb_island_state *s, double *kin, double *pot)
{
  if (m->fric && s->fric && !s->fric->stepping)
    energy(m->fric, s->fric, kin, pot);
}

/* Contact i's slip rate at t, the rate of its y = w_b - w_a plus the
 * spins' surface speeds, from the coordinates' rates vw and the walls'
 * drives, m/s. */
static double
slip_rate(const vb_friction_model *fm, const double *vw, int i, double t)
{
  double ra, rb;
  drive_w(fm->da[i], t, &ra);
  drive_w(fm->db[i], t, &rb);
  return t_dot(fm, i, vw) + (rb - ra);
}

void
vb_friction_start(const vb_island_model *m, vb_island_state *s)
{
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  if (!fm || !fs)
    return;
  const vb_scene *sc = m->scene;
  for (int j = 0; j < fm->nt; j++) {
    const vb_body *b = &sc->bodies[fm->tbody[j]];
    /* a spin's angle from 0; a mode along w from its wq0, wdq0 */
    fs->w[j] = j < fm->nw ? b->w0 : j >= fm->nmw ? b->wq0[fm->tmode[j]] : 0.0;
    fs->vw[j] = j < fm->nw ? b->vw0 : j >= fm->nmw ? b->wdq0[fm->tmode[j]] : b->spin0;
  }
  for (int i = 0; i < fm->nfc; i++) {
    double s0 = slip_rate(fm, fs->vw, i, 0.0);
    fm->info[i]->start(fm->law[i], s0, fs->st + fm->st_first[i]);
    fs->ft[i] = 0.0;
    fs->slip[i] = s0;
    fs->normal[i] = 0.0;
    fs->work[i] = 0.0;
  }
  fs->kinetic = fs->potential = 0.0;
  energy(fm, fs, &fs->kinetic, &fs->potential);
  fs->dissipated = fs->external = fs->work_min = 0.0;
  fs->sweeps_failed = 0;
  fs->dfree_next = 0;
}

/* ---------------------------------------------------------------- step */

/* The step's one pass over the modes along w (vb_fdist_pass_run) filled
 * into *p, or NULL where it does not apply: an island without distributed
 * points, a touching contact whose row is not all the modes along w (or a
 * wall's lone coordinate, whose stick is set apart), more than
 * VB_FDIST_FUSE touching. */
static vb_fdist_pass *
fused_pass(const vb_friction_model *fm, vb_friction_state *fs, int nstk, vb_fdist_pass *p)
{
  if (!fm->sparse)
    return NULL;
  int nm = fm->nt - fm->nmw, nf = 0;
  for (int i = 0; i < fm->nfc; i++) {
    if (vb_friction_skips(fm, fs, i))
      continue;
    if (nf == VB_FDIST_FUSE || fm->alone[i] || !pendable(fm, i) || fm->row_base[i] != fm->nmw ||
        row_len(fm, i) != nm)
      return NULL;
    int e0 = fm->row_first[i];
    p->tc[nf] = fm->row_tc + e0;
    p->t[nf] = fm->row_t + e0;
    p->f[nf++] = fs->ft[i];
  }
  int j = fm->nmw, c = nstk > 0 ? fs->stk[0] : -1;
  p->n = nm;
  p->nf = nf;
  p->tv = c >= 0 && pendable(fm, c) && fm->row_base[c] == j && row_len(fm, c) == nm
              ? fm->row_t + fm->row_first[c]
              : NULL;
  p->mass = fm->mass + j;
  p->sig = fm->sig + j;
  p->w2 = fm->w2 + j;
  p->cq = fm->cq + j;
  p->cb = fm->cb + j;
  p->msig = fm->msig + j;
  p->hm = fm->hm + j;
  p->hmw2 = fm->hmw2 + j;
  p->d = fs->dfree + j;
  p->w = fs->w + j;
  p->vw = fs->vw + j;
  p->h = fm->dt;
  p->energy = nstk == 0;
  return p;
}

/* A one-row island (fm->one_row: a modal body bowed by a wall) sums its
 * modes in three passes a step instead of seven (two without a catch):
 * each sum in the order of the loop it replaces (friction.h's vb_lanes,
 * the modes from the first along w), so that every output is the same to
 * the bit, but side by side in one pass, each waiting on its own additions
 * only. */

/* The free increments dfree = cq w + cb vw (element by element, as the
 * loop of vb_friction_step) and the row's sum T . dfree (t_dot's). */
static double
free_one_row(const vb_friction_model *fm, vb_friction_state *fs)
{
  const double *restrict cq = fm->cq, *restrict cb = fm->cb, *restrict w = fs->w;
  const double *restrict vw = fs->vw, *restrict t = fm->row_t + fm->row_first[0] - fm->nmw;
  double *restrict dfree = fs->dfree;
  int j = 0, nt = fm->nt;
  for (; j < fm->nmw; j++)
    dfree[j] = cq[j] * w[j] + cb[j] * vw[j];
  vb_lanes y = {0.0, 0.0};
  for (; j + 1 < nt; j += 2) {
    vb_lanes a =
        vb_lanes_at(cq + j) * vb_lanes_at(w + j) + vb_lanes_at(cb + j) * vb_lanes_at(vw + j);
    vb_lanes_put(dfree + j, a);
    y += vb_lanes_at(t + j) * a;
  }
  if (j < nt) {
    double a = cq[j] * w[j] + cb[j] * vw[j];
    dfree[j] = a;
    y[0] += t[j] * a;
  }
  return vb_lanes_sum(y);
}

/* The sums of a one-row island's step after its solve, in one pass over
 * its modes along w: the force f into their increments (t_add_force), the
 * dampers' work (sum[0], without the masses'), the row's sum T . dw
 * (sum[1]), the move to n+1 (of the modes: the masses' is the caller's),
 * the row's T . vw at n+1 (sum[2], the catch's slip) and the modes'
 * kinetic and potential energies at n+1 (sum[3], sum[4], energy()'s). */
static void
move_one_row(const vb_friction_model *fm, vb_friction_state *fs, double f, double h,
             double sum[5])
{
  const double *restrict tc = fm->row_tc + fm->row_first[0] - fm->nmw;
  const double *restrict t = fm->row_t + fm->row_first[0] - fm->nmw;
  const double *restrict mass = fm->mass, *restrict sig = fm->sig, *restrict w2 = fm->w2;
  double *restrict dfree = fs->dfree, *restrict w = fs->w, *restrict vw = fs->vw;
  vb_lanes d = {0.0, 0.0}, y = d, s = d, k = d, p = d;
  int j = fm->nmw, nt = fm->nt;
  for (; j + 1 < nt; j += 2) {
    vb_lanes a = vb_lanes_at(dfree + j) + vb_lanes_at(tc + j) * f, m = vb_lanes_at(mass + j);
    vb_lanes_put(dfree + j, a);
    d += 2.0 * m * vb_lanes_at(sig + j) * a * a / h;
    vb_lanes tj = vb_lanes_at(t + j);
    y += tj * a;
    vb_lanes wa = vb_lanes_at(w + j) + a, va = 2.0 * a / h - vb_lanes_at(vw + j);
    vb_lanes_put(w + j, wa);
    vb_lanes_put(vw + j, va);
    s += tj * va;
    k += 0.5 * m * va * va;
    p += 0.5 * m * vb_lanes_at(w2 + j) * wa * wa;
  }
  if (j < nt) {
    double a = dfree[j] + tc[j] * f;
    dfree[j] = a;
    d[0] += 2.0 * mass[j] * sig[j] * a * a / h;
    y[0] += t[j] * a;
    double wa = w[j] + a, va = 2.0 * a / h - vw[j];
    w[j] = wa;
    vw[j] = va;
    s[0] += t[j] * va;
    k[0] += 0.5 * mass[j] * va * va;
    p[0] += 0.5 * mass[j] * w2[j] * wa * wa;
  }
  sum[0] = vb_lanes_sum(d);
  sum[1] = vb_lanes_sum(y);
  sum[2] = vb_lanes_sum(s);
  sum[3] = vb_lanes_sum(k);
  sum[4] = vb_lanes_sum(p);
}

/* The catch's impulse P into a one-row island's modes (t_add_impulse's
 * vw += T P / m) and, in the same pass, their kinetic energy at n+1 after
 * it (energy()'s sum; the potential one does not change). */
static double
impulse_one_row(const vb_friction_model *fm, vb_friction_state *fs, double P)
{
  const double *restrict tm = fm->row_tm + fm->row_first[0] - fm->nmw;
  const double *restrict mass = fm->mass;
  double *restrict vw = fs->vw;
  vb_lanes k = {0.0, 0.0};
  int j = fm->nmw, nt = fm->nt;
  for (; j + 1 < nt; j += 2) {
    vb_lanes v = vb_lanes_at(vw + j) + vb_lanes_at(tm + j) * P;
    vb_lanes_put(vw + j, v);
    k += 0.5 * vb_lanes_at(mass + j) * v * v;
  }
  if (j < nt) {
    double v = vw[j] + tm[j] * P;
    vw[j] = v;
    k[0] += 0.5 * mass[j] * v * v;
  }
  return vb_lanes_sum(k);
}

int
vb_friction_step(const vb_island_model *m, vb_island_state *s, long n)
{
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  double h = fm->dt, t0 = (double)n * h, t1 = (double)(n + 1) * h;
  int nt = fm->nt, nfc = fm->nfc, rc = VB_OK;
  double diss = 0.0, ext = 0.0, dot_free = 0.0, sums[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  int one_row = fm->one_row;

  /* free increments of the coordinates: w~ - w = cq w + cb vw */
  {
    const double *restrict cq = fm->cq, *restrict cb = fm->cb, *restrict w = fs->w;
    const double *restrict vw = fs->vw;
    double *restrict dfree = fs->dfree;
    /* (element by element: vectorised, each value as the scalar rule's) */
    if (fm->sparse) {
      if (!fs->dfree_next) /* else formed with the last step's energy */
        vb_fdist_free(nt, cq, cb, w, vw, dfree);
      fs->dfree_next = 0;
    } else if (fm->one_row)
      dot_free = free_one_row(fm, fs);
    else
#pragma omp simd
    for (int j = 0; j < nt; j++)
      dfree[j] = cq[j] * w[j] + cb[j] * vw[j];
  }
  /* each contact's free relative increment, its walls' part, and its
   * normal force of the step (an island of distributed points without
   * walls' drives, prescribed forces or stored energies: the same values
   * without those terms, the walls' part 0 - 0) */
  for (int i = 0; fm->sparse && fm->plain && i < nfc; i++) {
    double f = s->solved ? s->fbar[fm->local[i]] : 0.0;
    fs->dydrv[i] = 0.0;
    fs->normal[i] = fm->two_sided[i] ? fabs(f) : (f > 0.0 ? f : 0.0);
    fs->dyfree[i] = vb_friction_skips(fm, fs, i) ? 0.0 : t_dot(fm, i, fs->dfree) + fs->dydrv[i];
  }
  for (int i = 0; !(fm->sparse && fm->plain) && i < nfc; i++) {
    double r, dA = drive_w(fm->da[i], t1, &r) - drive_w(fm->da[i], t0, &r);
    double dB = drive_w(fm->db[i], t1, &r) - drive_w(fm->db[i], t0, &r);
    fs->dydrv[i] = dB - dA;
    int c = fm->local[i];
    double n_old = fs->normal[i];
    /* the normal force the contact's scheme holds over the step: fbar
     * (0 when the step solved no contact, or skipped this one), or the
     * prescribed one of a contact without a normal law (a bow) */
    double f = s->solved ? s->fbar[c] : 0.0;
    if (fm->given[i] >= 0.0) {
      /* a time profile at the step's middle (the force held over it), 0
       * where it would pull: the bow lifted off */
      double r, g = fm->given[i] + drive_w(fm->ndrive[i], 0.5 * (t0 + t1), &r);
      fs->normal[i] = g > 0.0 ? g : 0.0;
    } else
      fs->normal[i] = fm->two_sided[i] ? fabs(f) : (f > 0.0 ? f : 0.0);
    /* a law's stored energy scales with N (the elasto-plastic bristle's
     * N sigma0 z^2/2): the change of N from the last step's to this one's
     * at the state of n is the normal load's work on it, external */
    if (fm->info[i]->stored && fs->normal[i] != n_old) {
      const double *st = fs->st + fm->st_first[i];
      ext += fm->info[i]->stored(fm->law[i], fs->normal[i], st) -
             fm->info[i]->stored(fm->law[i], n_old, st);
    }
    /* a distributed contact's point apart: no friction, no row to sum
     * (friction_dist.c) */
    fs->dyfree[i] = vb_friction_skips(fm, fs, i) ? 0.0
                    : (one_row ? dot_free : t_dot(fm, i, fs->dfree)) + fs->dydrv[i];
  }
  /* A rigid contact's normal impulse (the nonsmooth family, doc/rigid.md)
   * is solved at velocity level, U at n+1: so is its friction (Moreau's
   * impulse formulation, the tangential impulse within mu P), at the node
   * slip s1 = 2 dy / dt - s^n rather than the mean dy / dt.  That is the
   * same local problem with dy - dt s^n / 2 over dt / 2 (the laws allowed
   * there have no state that integrates over dt: load_friction.c).  The
   * work booked below, -ft dy = -P (s^n + s1) / 2, is then not the one the
   * law makes nonnegative, -P s1: an island's step gives back at most
   * D A^-1 D / 8 (D the free change of the node slips, A their
   * compliance), a contact's own also its share of the others' impulses
   * (doc/rigid.md, "The friction work of a step"; tests/run/check_fnet.c). */
  int node = m->fam->info->impulse;
  for (int i = 0; node && i < nfc; i++)
    fs->dyfree[i] -= 0.5 * h * slip_rate(fm, fs->vw, i, t0);
  if (nfc > 0) {
    int sweeps = 0;
    memcpy(fs->st_old, fs->st, (size_t)fm->st_first[nfc] * sizeof *fs->st);
    vb_fproblem p = {.nfc = nfc,
                     .dt = node ? 0.5 * h : h,
                     .Kt = fm->Kt,
                     .dyfree = fs->dyfree,
                     .normal = fs->normal,
                     .info = fm->info,
                     .law = fm->law,
                     .st_first = fm->st_first,
                     .st_old = fs->st_old,
                     .st = fs->st,
                     .ft = fs->ft,
                     .max_sweeps = fm->max_sweeps,
                     .tolerance = fm->tolerance,
                     .sweeps = &sweeps,
                     .broke = fs->broke};
    if ((fm->sparse ? vb_friction_dist_solve(fm, fs, &p) : vb_friction_solve(&p)) != VB_OK) {
      fs->sweeps_failed++;
      rc = VB_ENOCONV;
    }
  }
  /* (The contacts that stick are listed once: neither the forces below
   * nor the catch change a law's state.) */
  int nstk = 0;
  for (int i = 0; i < nfc; i++)
    if (fm->info[i]->sticks(fs->st + fm->st_first[i]))
      fs->stk[nstk++] = i;
  /* An island with distributed points whose touching rows all span its
   * modes along w: the forces, the dampers' work, the move, the slips,
   * the catch's first node slip and, when nothing sticks, the energy and
   * the next free increments, in one pass over the modes (friction_dist.c's
   * vb_fdist_pass_run; the loops below then read its sums) */
  vb_fdist_pass fp_store, *fp = fused_pass(fm, fs, nstk, &fp_store);
  if (fp) {
    const double *mass = fm->mass, *sig = fm->sig, *dfree = fs->dfree;
    int j = 0;
    for (; j < fm->nmw; j++)
      diss += 2.0 * mass[j] * sig[j] * dfree[j] * dfree[j] / h;
    vb_fdist_pass_run(fp);
    vb_fdist_move(j, dfree, fs->w, fs->vw, h);
    diss += fp->diss;
  }
  /* the coordinates' increments with the forces: dw = dfree + cc sum T ft
   * (kept in dfree), and their damping.  A sticking contact of a wall and
   * a coordinate of its own moves it by the wall's increment itself (dy =
   * 0 to the bit; dfree + cc (-dfree / cc) would leave an ulp of dfree a
   * step), its force the one that does that. */
  for (int i = 0; !fp && i < nfc; i++) {
    if (vb_friction_skips(fm, fs, i))
      continue;
    /* (a node-slip stick moves by half the slip at n: not the wall's) */
    if (fm->alone[i] && !node && fm->info[i]->sticks(fs->st + fm->st_first[i])) {
      int e = fm->row_first[i], j = fm->row_j[e];
      double t = fm->row_t[e], dw = -fs->dydrv[i] * t; /* t = +-1 */
      fs->ft[i] = t * (dw - fs->dfree[j]) / fm->cc[j];
      fs->dfree[j] = dw;
      continue;
    }
    if (!one_row) /* else in move_one_row below */
      t_add_force(fm, i, fs->ft[i], fs->dfree);
  }
  if (!fp) {
    /* the dampers' work: masses and spins in order, modes along w in
     * vectorised partial sums (as energy() does) */
    const double *dfree = fs->dfree, *mass = fm->mass, *sig = fm->sig;
    int j = 0;
    for (; j < fm->nmw; j++)
      diss += 2.0 * mass[j] * sig[j] * dfree[j] * dfree[j] / h;
    double d1 = 0.0;
    if (fm->sparse) {
      /* with the move to n+1 below in the same pass: the contacts' slips
       * that come between read only dfree */
      d1 = vb_fdist_damp_move(nt - j, mass + j, sig + j, dfree + j, fs->w + j, fs->vw + j, h);
      vb_fdist_move(j, dfree, fs->w, fs->vw, h);
    } else if (one_row) {
      /* with the force, the row's sums and the move of the modes */
      move_one_row(fm, fs, fs->ft[0], h, sums);
      d1 = sums[0];
    } else
#pragma omp simd reduction(+ : d1)
    for (int i = j; i < nt; i++)
      d1 += 2.0 * mass[i] * sig[i] * dfree[i] * dfree[i] / h;
    diss += d1;
  }
  /* each contact's slip, friction work -ft dy (never negative under the
   * force laws: the law opposes the slip it leaves; a rigid contact's,
   * above) and the walls' work -ft dy_walls */
  for (int i = 0, k = 0; i < nfc; i++) {
    if (vb_friction_skips(fm, fs, i)) {
      fs->slip[i] = NAN; /* apart: no slip at the contact (friction_dist.c) */
      continue;
    }
    double dy = (fp ? fp->dy[k++] : one_row ? sums[1] : t_dot(fm, i, fs->dfree)) + fs->dydrv[i];
    double work = -fs->ft[i] * dy;
    /* a law with a stored energy (the elasto-plastic bristle): the part
     * of the work its state keeps is potential energy (energy() counts
     * it), the rest friction work, dissipated */
    if (fm->info[i]->stored)
      work -= fm->info[i]->stored(fm->law[i], fs->normal[i], fs->st + fm->st_first[i]) -
              fm->info[i]->stored(fm->law[i], fs->normal[i], fs->st_old + fm->st_first[i]);
    fs->slip[i] = dy / h;
    fs->work[i] += work;
    fs->work_min = fmin(fs->work_min, work);
    diss += work;
    ext += -fs->ft[i] * fs->dydrv[i];
  }
  /* move on: w^(n+1) = w^n + dw, vw^(n+1) = 2 dw / dt - vw^n */
  {
    const double *restrict dfree = fs->dfree;
    double *restrict w = fs->w, *restrict vw = fs->vw;
    if (fm->sparse)
      ; /* moved with the dampers' work above */
    else
#pragma omp simd
    for (int j = 0; j < (one_row ? fm->nmw : nt); j++) { /* one_row: the modes moved above */
      double dw = dfree[j];
      w[j] += dw;
      vw[j] = 2.0 * dw / h - vw[j];
    }
  }
  /* The catch of a sticking contact's velocity.  The stick above holds
   * the step's mean slip (y^(n+1) - y^n)/dt at zero, which is what keeps
   * the friction work non-negative, but the trapezoidal rule's velocity at
   * n+1 is 2 (mean) - (velocity at n): a contact that comes to stick from
   * a slip s^n keeps a node slip -s^n, +s^n, ... that alternates from step
   * to step for as long as it sticks (the rule's undamped parasitic
   * mode), and the force that holds it alternates with it (by m s^n / dt:
   * enough to break a stick early, 1.7 N of 5.9 in the belt scene at 20
   * kHz).  A sticking contact's node slip is zero, so it is caught: the
   * impulse P = -s / kv (kv = sum T^2 / m) sets it to zero, clipped so that
   * the step's whole impulse ft dt + P stays within what the law holds,
   * +-hold(N) dt.  With s' = s + kv P the catch changes the kinetic energy
   * by P ((s + s')/2 - r) (r the walls' part of the slip rate): the walls
   * do -P r and friction takes -P (s + s')/2 = lambda (2 - lambda) s^2 /
   * (2 kv) >= 0 (lambda = -kv P / s in [0, 1]), so the balance stays exact
   * and the work non-negative.  Once caught, the node slip of a stick
   * that continues under a steadily moving wall is zero by itself (2 * 0 -
   * 0): the catch acts at the stick's onset and, under an accelerating
   * wall, by the wall's rate mismatch at each step. */
  /* several coupled contacts: sweeps of these single catches (each
   * dissipates >= 0; on the sticking set they are Gauss-Seidel on the
   * positive definite T M^-1 T^T) until what a sweep takes away is
   * round-off of the largest slip or wall rate any sweep of this step saw
   * (scale is kept over the sweeps: were it each sweep's own, at fixed
   * walls, once the first sweep has caught the slips, left and scale would
   * be the same round-off and every sweep would run, 200 at a sticking fret
   * of the bass: doc/friction.md, "The catch's sweeps"). */
  /* (A distributed point's impulse waits for the next reading of the
   * rates, the next contact's slip or the energy, and is added in its
   * pass: the same additions in the same order, one pass fewer.) */
  int pi = -1;
  double pP = 0.0;
  double scale = 0.0;
  for (int sweep = 0; nstk > 0 && sweep < (nfc > 1 ? fm->max_sweeps : 1); sweep++) {
    double left = 0.0;
    for (int k = 0; k < nstk; k++) {
      int i = fs->stk[k];
      double ra, rb, s1, hold;
      if (fp && fp->tv && sweep == 0 && k == 0) { /* read in the pass */
        drive_w(fm->da[i], t1, &ra);
        drive_w(fm->db[i], t1, &rb);
        s1 = fp->sv + (rb - ra);
      } else if (one_row) { /* slip_rate with the row's sum of the move */
        drive_w(fm->da[i], t1, &ra);
        drive_w(fm->db[i], t1, &rb);
        s1 = sums[2] + (rb - ra);
      } else if (pi >= 0 && same_span(fm, pi, i)) {
        int e0 = fm->row_first[i];
        drive_w(fm->da[i], t1, &ra);
        drive_w(fm->db[i], t1, &rb);
        s1 = vb_fdist_axpy_dot(row_len(fm, i), fm->row_tm + fm->row_first[pi], pP,
                               fs->vw + fm->row_base[i], fm->row_t + e0) +
             (rb - ra);
        pi = -1;
      } else {
        if (pi >= 0)
          t_add_impulse(fm, pi, pP, fs->vw);
        pi = -1;
        s1 = slip_rate(fm, fs->vw, i, t1);
        drive_w(fm->da[i], t1, &ra);
        drive_w(fm->db[i], t1, &rb);
      }
      scale = fmax(scale, fabs(ra) + fabs(rb) + fabs(s1));
      if (s1 == 0.0 || fm->kv[i] == 0.0)
        continue;
      hold = fm->info[i]->hold(fm->law[i], fs->normal[i]) * h;
      double P = -s1 / fm->kv[i], J = fs->ft[i] * h;
      P = fmin(fmax(P, -hold - J), hold - J);
      if (P == 0.0)
        continue;
      if (pendable(fm, i)) {
        pi = i;
        pP = P;
      } else if (one_row) /* with the modes' kinetic energy after it */
        sums[3] = impulse_one_row(fm, fs, P);
      else
        t_add_impulse(fm, i, P, fs->vw);
      double s2 = s1 + fm->kv[i] * P, work = -P * 0.5 * (s1 + s2);
      double r = (fm->db[i] ? rb : 0.0) - (fm->da[i] ? ra : 0.0); /* the walls' rates */
      fs->ft[i] += P / h; /* the step's whole force, within the cone: */
      /* (J + P is within +-hold, so J/h + P/h is, but for the rounding of
       * the sum: the recorded force is held to the cone exactly) */
      double cone = fm->info[i]->hold(fm->law[i], fs->normal[i]);
      fs->ft[i] = fmin(fmax(fs->ft[i], -cone), cone);
      fs->work[i] += work;
      fs->work_min = fmin(fs->work_min, work);
      diss += work;
      ext += -P * r;
      left = fmax(left, fabs(P) * fm->kv[i]); /* the node slip it took away */
    }
    if (left <= fm->tolerance * scale)
      break;
  }
  fs->kinetic = fs->potential = 0.0;
  if (fp && fp->energy)
    energy_done(fm, fs, fp->kin, fp->pot);
  else if (fm->sparse)
    energy_and_next(fm, fs, pi, pP);
  else if (one_row) /* the modes' sums of the move (and of the catch) */
    energy_of(fm, fs, sums[3], sums[4], &fs->kinetic, &fs->potential);
  else
    energy(fm, fs, &fs->kinetic, &fs->potential);
  fs->dissipated += diss;
  fs->external += ext;
  s->kinetic += fs->kinetic;
  s->potential += fs->potential;
  s->dissipated += diss;
  s->external += ext;
  return rc;
}

/* ------------------------------------------------- the Lyapunov twin */

double
vb_friction_lever(const vb_friction_model *fm, int j)
{
  if (j < fm->nw || j >= fm->nmw)
    return 1.0;
  for (int i = 0; i < fm->nfc; i++) {
    if (fm->sa[i] == j)
      return fm->ra[i];
    if (fm->sb[i] == j)
      return fm->rb[i];
  }
  return 1.0;
}

/* Whether contact i's law state is a continuous coordinate of the motion
 * (the elasto-plastic bristle's), which the twin measures and blends, as
 * opposed to a stick flag. */
static int
state_continuous(const vb_friction_model *fm, int i)
{
  return fm->info[i]->deflection != NULL;
}

double
vb_friction_separation2(const vb_friction_model *fm, const vb_friction_state *b,
                        const vb_friction_state *a, double omega)
{
  double d2 = 0.0;
  for (int j = 0; j < fm->nt; j++) {
    int spin = j >= fm->nw && j < fm->nmw;
    /* a spin's angle moves nothing (the dynamics depend on its rate) */
    double dw = spin ? 0.0 : a->w[j], dv = a->vw[j];
    if (b) {
      dw = spin ? 0.0 : b->w[j] - dw;
      dv = b->vw[j] - dv;
    }
    dv *= vb_friction_lever(fm, j) / omega;
    d2 += dw * dw + dv * dv;
  }
  for (int i = 0; i < fm->nfc; i++) {
    if (!state_continuous(fm, i))
      continue;
    double z = fm->info[i]->deflection(a->st + fm->st_first[i]);
    if (b)
      z = fm->info[i]->deflection(b->st + fm->st_first[i]) - z;
    d2 += z * z;
  }
  return d2;
}

void
vb_friction_state_blend(const vb_friction_model *fm, vb_friction_state *b,
                        const vb_friction_state *a, double r)
{
  for (int j = 0; j < fm->nt; j++) {
    b->w[j] = a->w[j] + r * (b->w[j] - a->w[j]);
    b->vw[j] = a->vw[j] + r * (b->vw[j] - a->vw[j]);
  }
  for (int i = 0; i < fm->nfc; i++) {
    if (!state_continuous(fm, i))
      continue;
    for (int k = fm->st_first[i]; k < fm->st_first[i + 1]; k++)
      b->st[k] = a->st[k] + r * (b->st[k] - a->st[k]);
  }
  b->dfree_next = 0; /* w and vw moved: the next free increments again */
}

void
vb_friction_state_displace(const vb_friction_model *fm, vb_friction_state *s, const double *dw,
                           const double *dvw)
{
  for (int j = 0; j < fm->nt; j++) {
    s->w[j] += dw[j];
    s->vw[j] += dvw[j];
  }
  s->dfree_next = 0; /* w and vw moved: the next free increments again */
}
