/* friction_solve.c - one step's friction forces of an island: each
 * contact's local problem (its law's row, lib/friction.c), and several
 * coupled contacts by nonsmooth Gauss-Seidel.
 *
 * The problem (scheme.h, vb_fproblem) is linear in the forces apart from
 * the laws: dy = dyfree + Kt ft, slip s = dy / dt.  For contact i alone,
 * with the others' forces fixed, it is the scalar set-valued problem
 *   ft_i in -N_i Mu(s_i),  s_i = s_free_i + c_i ft_i,
 *   s_free_i = (dyfree_i + sum_(k != i) Kt_ik ft_k) / dt,  c_i = Kt_ii / dt,
 * which the law solves in closed form (Coulomb: the projection of the
 * sticking force -s_free_i / c_i on the static cone, else the kinetic
 * force; friction.c).  Several contacts: Gauss-Seidel sweeps of these
 * local solves, the nonsmooth contact dynamics method of Jean & Moreau
 * (M. Jean, J.J. Moreau, "Unilaterality and dry friction in the dynamics
 * of rigid body collections", Contact Mechanics Int. Symp., 1992; M.
 * Jean, Comput. Methods Appl. Mech. Engrg. 177, 1999, section 6): each
 * sweep leaves every force in its law's set, and the iteration stops when
 * a sweep changes none by more than the tolerance. */
#include <math.h>
#include <string.h>
#include "scheme.h"

/* Contact i's local problem given the others' current forces. */
static double
local_solve(const vb_fproblem *p, int i)
{
  int n = p->nfc;
  const double *row = p->Kt + (size_t)i * n;
  double dy = p->dyfree[i];
  for (int k = 0; k < n; k++)
    if (k != i)
      dy += row[k] * p->ft[k];
  double *st = p->st + p->st_first[i];
  const double *st0 = p->st_old + p->st_first[i];
  int ns = p->st_first[i + 1] - p->st_first[i];
  /* each local solve starts from the state at n, however many sweeps */
  if (ns > 0)
    memcpy(st, st0, (size_t)ns * sizeof *st);
  return p->info[i]->local(p->law[i], p->normal[i], dy / p->dt, row[i] / p->dt, p->dt,
                          &p->broke[i], st);
}

int
vb_friction_solve(const vb_fproblem *p)
{
  int n = p->nfc, sweep;
  for (int i = 0; i < n; i++)
    p->broke[i] = 0;
  if (n == 1) {
    p->ft[0] = local_solve(p, 0);
    *p->sweeps = 1;
    return VB_OK;
  }
  for (sweep = 1; sweep <= p->max_sweeps; sweep++) {
    double change = 0.0, scale = 0.0;
    for (int i = 0; i < n; i++) {
      double f = local_solve(p, i);
      change = fmax(change, fabs(f - p->ft[i]));
      scale = fmax(scale, fabs(f));
      p->ft[i] = f;
    }
    if (change <= p->tolerance * scale || change == 0.0) {
      *p->sweeps = sweep;
      return VB_OK;
    }
  }
  *p->sweeps = p->max_sweeps;
  return VB_ENOCONV;
}
