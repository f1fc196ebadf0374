/* presets.c - modal bodies computed from geometry and material (the modes
 * files are read in modes_file.c, by the same conventions).
 *
 * Conventions, shared by every preset and by the modes files:
 *   - The displacement of the body is u(x) = sum_j phi_j(x) q_j; a point's
 *     shape[j] is phi_j at the point, dimensionless, so q_j is in metres.
 *   - The modal mass is M_j = integral of rho phi_j^2 over the body (kg),
 *     with rho the mass per unit length (bar, string) or area (plate,
 *     membrane).
 *   - The gravity participation is gamma_j = (integral of rho phi_j) / M_j,
 *     so that gravity's generalised force on mode j is -g M_j gamma_j (a
 *     rigid translation has phi = 1 and gamma = 1).
 *   - Shapes are the natural mode functions, of order 1:
 *       bar       rigid translation phi = 1; rigid rotation
 *                 phi = sqrt(3) (2x/L - 1) (+-sqrt(3) at the ends);
 *                 flexural phi = cos bx + cosh bx - s_n (sin bx + sinh bx),
 *                 +-2 at the ends.  Every mode has (1/L) integral phi^2 = 1,
 *                 so M = rho A L.
 *       string    phi = sin(n pi x/L), peak 1, M = mu L/2.
 *       plate     phi = sin(m pi x/lx) sin(n pi y/ly), peak 1,
 *                 M = rho h lx ly/4.
 *       membrane  phi = J_m(j_mn r/R) cos(m theta), and for m > 0 also
 *                 J_m(j_mn r/R) sin(m theta); phi(0) = 1 for m = 0, the
 *                 peak of J_m (< 1) otherwise.
 *   - Modes come lowest frequency first; equal frequencies are ordered by
 *     m, then n (then cos before sin).
 *   - sigma, q0 and dq0 are left 0 by the presets (the loader sets damping),
 *     except a string's measured decay rates and its pluck. */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* Most modes a preset or a modes file may give. */
#define MODES_MAX 100000

/* ------------------------------------------------------- root finding */

/* A function whose root is sought, with its derivative in *df. */
typedef double (*root_fn)(double x, const void *data, double *df);

/* Root of f inside [lo, hi], where f(lo) and f(hi) differ in sign: Newton
 * steps kept inside the shrinking bracket, bisection when a step leaves it
 * or does not halve the previous one (the classical safeguarded Newton,
 * e.g. Press et al., Numerical Recipes, sec 9.4).  Converges to the last
 * bits of a double. */
static double
bracketed_root(root_fn f, const void *data, double lo, double hi)
{
  double d, flo = f(lo, data, &d), fhi = f(hi, data, &d);

  if (flo == 0.0)
    return lo;
  if (fhi == 0.0)
    return hi;
  if (flo > 0.0) { /* orient so that f(lo) < 0 < f(hi) */
    double t = lo;
    lo = hi;
    hi = t;
  }
  double x = 0.5 * (lo + hi), step_old = fabs(hi - lo), step = step_old;
  for (int it = 0; it < 200; it++) {
    double fx = f(x, data, &d);
    if (fx == 0.0)
      return x;
    if (fx < 0.0)
      lo = x;
    else
      hi = x;
    double next = x - fx / d;
    double a = fmin(lo, hi), b = fmax(lo, hi);
    if (!(next > a && next < b) || fabs(2.0 * (next - x)) > step_old) {
      next = 0.5 * (lo + hi);
      step_old = step;
      step = fabs(b - a) / 2;
    } else {
      step_old = step;
      step = fabs(next - x);
    }
    if (fabs(next - x) <= 2e-16 * fabs(next) || next == x)
      return next;
    x = next;
  }
  return x;
}

/* ----------------------------------------------------------------- bar */

/* cos z - 1/cosh z, whose positive roots are those of cos z cosh z = 1
 * (the free-free beam's frequency equation) without overflow. */
static double
freefree_equation(double z, const void *data, double *df)
{
  double e = exp(-z), sech = 2.0 * e / (1.0 + e * e), tanh_z = (1.0 - e * e) / (1.0 + e * e);
  (void)data;
  *df = -sin(z) + sech * tanh_z;
  return cos(z) - sech;
}

/* The n-th (n >= 1) positive root beta_n L of cos(bL) cosh(bL) = 1
 * (4.730040745, 7.853204624, ...), bracketed around its asymptote
 * (2n+1) pi/2 within pi/4 (the root is within 2 exp(-bL) of it). */
static double
freefree_root(int n)
{
  double a = (2.0 * n + 1.0) * M_PI / 2.0;
  return bracketed_root(freefree_equation, NULL, a - M_PI / 4, a + M_PI / 4);
}

/* Flexural mode of a free-free Euler-Bernoulli beam at s = x/L for root
 * z = beta L: phi = cos bx + cosh bx - s_n (sin bx + sinh bx) with
 * s_n = (cosh z - cos z)/(sinh z - sin z) (Blevins, Formulas for Natural
 * Frequency and Mode Shape, table 8-1).  With E = exp(-z) and
 * D = 1 - E^2 - 2 E sin z, s_n = (1 + E^2 - 2 E cos z)/D, and
 * cosh bx - s_n sinh bx = (1 + s_n)/2 exp(-bx)
 *                         + (cos z - sin z - E)/D exp(-b(L - x)),
 * which neither overflows nor cancels for large z. */
static double
freefree_shape(double z, double s)
{
  double e = exp(-z), d = 1.0 - e * e - 2.0 * e * sin(z);
  double sn = (1.0 + e * e - 2.0 * e * cos(z)) / d;
  double bx = z * s;
  return cos(bx) - sn * sin(bx) + 0.5 * (1.0 + sn) * exp(-bx) +
         (cos(z) - sin(z) - e) / d * exp(-(z - bx));
}

/* Free-free bar, length L, section b x h: two rigid modes at 0 Hz
 * (translation 1, rotation sqrt(3)(2x/L - 1)), then flexural modes with
 * omega_n = (beta_n L)^2 / L^2 sqrt(E I/(rho A)), I = b h^3/12, A = b h
 * (Euler-Bernoulli; Blevins table 8-1).  M = rho A L for every mode;
 * gamma = 1 for the translation, 0 otherwise (integral phi = 0: the
 * flexural modes are orthogonal to the translation). */
static void
fill_bar(vb_body *b, const vb_preset *p)
{
  double L = p->length, area = p->width * p->thickness;
  double inertia = p->width * p->thickness * p->thickness * p->thickness / 12.0;
  double wave = sqrt(p->youngs * inertia / (p->density * area)) / (L * L);
  double mass = p->density * area * L;

  for (int j = 0; j < b->nmodes; j++) {
    double z = j >= 2 ? freefree_root(j - 1) : 0.0;
    b->freq[j] = z * z * wave / (2.0 * M_PI);
    b->modal_mass[j] = mass;
    b->gravity[j] = j == 0 ? 1.0 : 0.0;
    for (int i = 0; i < b->npoints; i++) {
      double s = b->points[i].x / L;
      double phi = j == 0 ? 1.0 : j == 1 ? sqrt(3.0) * (2.0 * s - 1.0) : freefree_shape(z, s);
      b->points[i].shape[j] = phi;
    }
  }
}

/* -------------------------------------------------------------- string */

/* String with fixed ends: f_n = n c/(2L), c = sqrt(T/mu),
 * phi_n = sin(n pi x/L), M_n = mu L/2,
 * gamma_n = (1/M_n) mu integral phi_n = (2/(n pi)) (1 - cos n pi)
 * (4/(n pi) for odd n, 0 for even n).
 * A stiff string keeps the shapes and masses (the simply supported stiff
 * string's modes are sines too) with f_n = n f_0 sqrt(1 + B n^2),
 * B the inharmonicity (Fletcher, "Normal vibration frequencies of a stiff
 * piano string", JASA 36, 1964); measured frequencies and decay rates
 * (p->freq, p->sigma: Issanchou et al. 2018's bass) replace the formula.
 * A pluck, a triangle of height h at x0 released from rest, has the modal
 * displacements q_n = (2/L) integral u phi_n
 *                   = 2 h L^2 sin(n pi x0/L) / (n^2 pi^2 x0 (L - x0)). */
static void
fill_string(vb_body *b, const vb_preset *p)
{
  double L = p->length, c = sqrt(p->tension / p->linear_density);
  double x0 = p->pluck_x, h = p->pluck_h;

  for (int j = 0; j < b->nmodes; j++) {
    int n = j + 1;
    b->freq[j] = p->freq ? p->freq[j] : n * c / (2.0 * L) * sqrt(1.0 + p->inharmonicity * n * n);
    b->sigma[j] = p->sigma ? p->sigma[j] : 0.0;
    b->modal_mass[j] = p->linear_density * L / 2.0;
    b->gravity[j] = n % 2 ? 4.0 / (n * M_PI) : 0.0;
    if (h != 0.0)
      b->q0[j] = 2.0 * h * L * L * sin(n * M_PI * x0 / L) / (n * n * M_PI * M_PI * x0 * (L - x0));
    for (int i = 0; i < b->npoints; i++)
      b->points[i].shape[j] = sin(n * M_PI * b->points[i].x / L);
  }
}

/* --------------------------------------------------------------- plate */

/* A mode (m, n) with its ordering key. */
typedef struct index_pair {
  double key; /* plate: m^2 + r n^2; membrane: the Bessel zero j_mn */
  int m, n;
} index_pair;

/* Order by key, then m, then n. */
static int
pair_compare(const void *pa, const void *pb)
{
  const index_pair *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  if (a->m != b->m)
    return a->m < b->m ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

/* Pairs (m, n) >= 1 with m^2 + r n^2 <= kmax, into out (if not NULL);
 * returns their count. */
static size_t
plate_pairs(double r, double kmax, index_pair *out)
{
  size_t count = 0;
  for (int m = 1; (double)m * m + r <= kmax; m++)
    for (int n = 1; (double)m * m + r * n * n <= kmax; n++) {
      if (out != NULL)
        out[count] = (index_pair){(double)m * m + r * (double)n * n, m, n};
      count++;
    }
  return count;
}

/* Simply supported rectangular plate lx x ly, thickness h (Kirchhoff;
 * Leissa, Vibration of Plates, NASA SP-160, eq 4.20):
 * omega_mn = sqrt(D/(rho h)) ((m pi/lx)^2 + (n pi/ly)^2),
 * D = E h^3/(12 (1 - nu^2)); phi = sin(m pi x/lx) sin(n pi y/ly);
 * M = rho h lx ly/4; gamma = 16/(m n pi^2) for odd m and n, else 0.
 * Modes are ordered by the key m^2 + r n^2, r = (lx/ly)^2, which is
 * exact in integers when r is, so equal frequencies tie exactly. */
static int
fill_plate(vb_body *b, const vb_preset *p)
{
  double lx = p->length, ly = p->width, h = p->thickness;
  double rigidity = p->youngs * h * h * h / (12.0 * (1.0 - p->poisson * p->poisson));
  double speed = sqrt(rigidity / (p->density * h));
  double r = (lx / ly) * (lx / ly);
  /* quarter ellipse m^2 + r n^2 <= k holds about pi k/(4 sqrt r) pairs */
  double kmax = 4.0 * sqrt(r) * b->nmodes / M_PI * 1.1 + 2.0 * (1.0 + r);
  size_t count;

  while ((count = plate_pairs(r, kmax, NULL)) < (size_t)b->nmodes)
    kmax *= 1.5;
  index_pair *pairs = malloc(count * sizeof *pairs);
  if (pairs == NULL)
    return VB_ENOMEM;
  plate_pairs(r, kmax, pairs);
  qsort(pairs, count, sizeof *pairs, pair_compare);
  for (int j = 0; j < b->nmodes; j++) {
    int m = pairs[j].m, n = pairs[j].n;
    double km = m * M_PI / lx, kn = n * M_PI / ly;
    b->freq[j] = speed * (km * km + kn * kn) / (2.0 * M_PI);
    b->modal_mass[j] = p->density * h * lx * ly / 4.0;
    b->gravity[j] = (m % 2 && n % 2) ? 16.0 / (m * n * M_PI * M_PI) : 0.0;
    for (int i = 0; i < b->npoints; i++)
      b->points[i].shape[j] = sin(km * b->points[i].x) * sin(kn * b->points[i].y);
  }
  free(pairs);
  return VB_OK;
}

/* ------------------------------------------------------------ membrane */

/* J_m(x) and its derivative (m/x) J_m - J_(m+1) (Abramowitz & Stegun
 * 9.1.27). */
static double
bessel_equation(double x, const void *data, double *df)
{
  int m = *(const int *)data;
  double j = jn(m, x);
  *df = (m == 0 ? 0.0 : m / x * j) - jn(m + 1, x);
  return j;
}

/* Zeros j_mn < xmax of J_m for every m, appended to the growing array
 * *z (capacity *cap, count *count).  J_m has no zero in (0, m], and its
 * zeros are more than 3.1 apart (Abramowitz & Stegun 9.5), so a scan from
 * m in steps of 0.5 meets every sign change, each refined by the
 * bracketed root finder. */
static int
bessel_zeros(double xmax, index_pair **z, size_t *cap, size_t *count)
{
  const double step = 0.5;

  for (int m = 0;; m++) {
    int n = 0;
    double a = m, fa = m == 0 ? 1.0 : jn(m, a);
    while (a < xmax) {
      double b = a + step, fb = jn(m, b);
      if ((fa < 0.0) != (fb < 0.0) || fb == 0.0) {
        double root = bracketed_root(bessel_equation, &m, a, b);
        if (root >= xmax)
          break;
        if (*count == *cap) {
          size_t grown = 2 * *cap + 64;
          index_pair *more = realloc(*z, grown * sizeof *more);
          if (more == NULL)
            return VB_ENOMEM;
          *z = more;
          *cap = grown;
        }
        (*z)[(*count)++] = (index_pair){root, m, ++n};
        /* step past an exact zero at b so it is not found twice */
        if (fb == 0.0) {
          b += step;
          fb = jn(m, b);
        }
      }
      a = b;
      fa = fb;
    }
    if (n == 0)
      return VB_OK; /* j_(m+1),1 > j_m,1 >= xmax: no more zeros below xmax */
  }
}

/* Modes (counting the sin/cos pairs of m > 0 twice) in a list of zeros. */
static size_t
membrane_modes(const index_pair *z, size_t count)
{
  size_t modes = 0;
  for (size_t i = 0; i < count; i++)
    modes += z[i].m == 0 ? 1 : 2;
  return modes;
}

/* Circular membrane of radius R with a fixed rim (Morse & Ingard,
 * Theoretical Acoustics, sec 5.2): omega_mn = j_mn c/R, c = sqrt(T/sigma),
 * j_mn the n-th positive zero of J_m; phi = J_m(j_mn r/R) cos(m theta)
 * and, for m > 0, J_m(j_mn r/R) sin(m theta).  M = sigma integral phi^2 dA
 * = sigma pi R^2 J_1(j_0n)^2 (m = 0), sigma pi R^2 J_(m+1)(j_mn)^2/2
 * (m > 0), from integral_0^R J_m(j r/R)^2 r dr = R^2 J_(m+1)(j)^2/2;
 * gamma = 2/(j_0n J_1(j_0n)) for m = 0 (from integral of x J_0 = x J_1),
 * 0 for m > 0. */
static int
fill_membrane(vb_body *b, const vb_preset *p)
{
  double R = p->radius, c = sqrt(p->tension / p->surface_density);
  /* Weyl: about x^2/4 - x/2 modes have j < x */
  double xmax = 4.0 + 1.05 * sqrt(1.0 + 4.0 * b->nmodes);
  index_pair *zeros = NULL;
  size_t cap = 0, count = 0;

  for (;;) {
    count = 0;
    if (bessel_zeros(xmax, &zeros, &cap, &count) != VB_OK) {
      free(zeros);
      return VB_ENOMEM;
    }
    if (membrane_modes(zeros, count) >= (size_t)b->nmodes)
      break;
    xmax *= 1.2;
  }
  qsort(zeros, count, sizeof *zeros, pair_compare);
  for (int j = 0, k = 0; j < b->nmodes; k++) {
    int m = zeros[k].m;
    double z = zeros[k].key, jm1 = jn(m + 1, z);
    for (int part = 0; part < (m == 0 ? 1 : 2) && j < b->nmodes; part++, j++) {
      b->freq[j] = z * c / (2.0 * M_PI * R);
      b->modal_mass[j] = p->surface_density * M_PI * R * R * jm1 * jm1 / (m == 0 ? 1.0 : 2.0);
      b->gravity[j] = m == 0 ? 2.0 / (z * jm1) : 0.0;
      for (int i = 0; i < b->npoints; i++) {
        double x = b->points[i].x, y = b->points[i].y;
        double radial = jn(m, z * hypot(x, y) / R), theta = m * atan2(y, x);
        b->points[i].shape[j] = radial * (part == 0 ? cos(theta) : sin(theta));
      }
    }
  }
  free(zeros);
  return VB_OK;
}

/* ---------------------------------------------------------- validation */

/* Preset kinds, in the order of vb_preset_choices. */
typedef enum { KIND_BAR = 0, KIND_STRING, KIND_PLATE, KIND_MEMBRANE, KIND_COUNT } kind_id;

static const char *const kind_names[KIND_COUNT] = {"bar", "string", "plate", "membrane"};

/* Comma-separated list of preset kinds, for messages. */
const char *
vb_preset_choices(void)
{
  return "bar, string, plate, membrane";
}

/* Refuse a parameter unless it is finite and > 0. */
static int
check_positive(const char *kind, const char *key, double v, char *err, size_t errlen)
{
  char num[32];
  if (isfinite(v) && v > 0.0)
    return VB_OK;
  /* a key the file leaves out reads 0 (vb_load_preset_params): say so,
   * rather than "must be > 0 (got 0)" of a value nobody wrote */
  if (v == 0.0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset '%s': '%s' is missing or 0 (valid: a number > 0)", kind, key);
  return vb_errf(err, errlen, VB_EINVAL, "preset '%s': '%s' must be > 0 (got %s)", kind, key,
                 vb_number_text(v, num, sizeof num));
}

/* Check a string's stiffness, measured modes and pluck. */
static int
check_string(const vb_preset *p, char *err, size_t errlen)
{
  char n1[32], n2[32], n3[32];
  if (!(isfinite(p->inharmonicity) && p->inharmonicity >= 0.0))
    return vb_errf(err, errlen, VB_EINVAL, "preset 'string': 'inharmonicity' must be >= 0 (got %s)",
                   vb_number_text(p->inharmonicity, n1, sizeof n1));
  if (p->freq != NULL && p->inharmonicity != 0.0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset 'string': 'inharmonicity' and measured frequencies both give the "
                   "frequencies (valid: one of them)");
  for (int j = 0; p->freq != NULL && j < p->nmodes; j++)
    if (!(isfinite(p->freq[j]) && p->freq[j] > 0.0) ||
        (p->sigma != NULL && !(isfinite(p->sigma[j]) && p->sigma[j] >= 0.0)))
      return vb_errf(err, errlen, VB_EINVAL,
                     "preset 'string': mode %d has frequency %s Hz and sigma %s 1/s (valid: "
                     "frequency > 0, sigma >= 0)",
                     j + 1, vb_number_text(p->freq[j], n1, sizeof n1),
                     vb_number_text(p->sigma ? p->sigma[j] : 0.0, n2, sizeof n2));
  if (!isfinite(p->pluck_h) || (p->pluck_h != 0.0 && !(p->pluck_x > 0.0 && p->pluck_x < p->length)))
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset 'string': 'pluck' = [%s, %s] (valid: [x0, height] with 0 < x0 < %s and "
                   "a finite height)",
                   vb_number_text(p->pluck_x, n1, sizeof n1),
                   vb_number_text(p->pluck_h, n2, sizeof n2),
                   vb_number_text(p->length, n3, sizeof n3));
  return VB_OK;
}

/* Check the parameters a kind uses (the others are ignored). */
static int
check_parameters(kind_id kind, const vb_preset *p, char *err, size_t errlen)
{
  const char *k = kind_names[kind];
  char num[32];
  int rc = VB_OK;

  switch (kind) {
  case KIND_BAR:
  case KIND_PLATE:
    if ((rc = check_positive(k, "length", p->length, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "width", p->width, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "thickness", p->thickness, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "youngs", p->youngs, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "density", p->density, err, errlen)) != VB_OK)
      return rc;
    if (kind == KIND_PLATE && !(p->poisson > -1.0 && p->poisson < 0.5))
      return vb_errf(err, errlen, VB_EINVAL,
                     "preset 'plate': 'poisson' must be > -1 and < 0.5 (got %s)",
                     vb_number_text(p->poisson, num, sizeof num));
    return VB_OK;
  case KIND_STRING:
    if ((rc = check_positive(k, "length", p->length, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "tension", p->tension, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "linear_density", p->linear_density, err, errlen)) != VB_OK)
      return rc;
    return check_string(p, err, errlen);
  case KIND_MEMBRANE:
    if ((rc = check_positive(k, "radius", p->radius, err, errlen)) != VB_OK ||
        (rc = check_positive(k, "tension", p->tension, err, errlen)) != VB_OK)
      return rc;
    return check_positive(k, "surface_density", p->surface_density, err, errlen);
  default: return VB_EINVAL;
  }
}

/* Check that a point lies on the body (edges and rim included). */
static int
check_point(kind_id kind, const vb_preset *p, const char *given, double x, double y,
            char *err, size_t errlen)
{
  char nx[32], ny[32], l1[32], l2[32], name[VB_NAME_MAX + 4];
  const char *k = kind_names[kind];

  /* a point without a name (a distributed contact's, whose block the
   * caller names) by its position alone */
  snprintf(name, sizeof name, given[0] ? " '%s'" : "%s", given);

  switch (kind) {
  case KIND_BAR:
  case KIND_STRING:
    if (x >= 0.0 && x <= p->length)
      return VB_OK;
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset '%s': point%s at x = %s is outside the %s (valid: 0 <= x <= %s)", k,
                   name, vb_number_text(x, nx, sizeof nx), k,
                   vb_number_text(p->length, l1, sizeof l1));
  case KIND_PLATE:
    if (x >= 0.0 && x <= p->length && y >= 0.0 && y <= p->width)
      return VB_OK;
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset 'plate': point%s at (x, y) = (%s, %s) is outside the plate "
                   "(valid: 0 <= x <= %s, 0 <= y <= %s)",
                   name, vb_number_text(x, nx, sizeof nx), vb_number_text(y, ny, sizeof ny),
                   vb_number_text(p->length, l1, sizeof l1),
                   vb_number_text(p->width, l2, sizeof l2));
  case KIND_MEMBRANE:
    /* the rim is included up to rounding of a point placed on it */
    if (hypot(x, y) <= p->radius * (1.0 + 1e-12))
      return VB_OK;
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset 'membrane': point%s at (x, y) = (%s, %s) is outside the "
                   "membrane (valid: sqrt(x^2 + y^2) <= %s)",
                   name, vb_number_text(x, nx, sizeof nx), vb_number_text(y, ny, sizeof ny),
                   vb_number_text(p->radius, l1, sizeof l1));
  default: return VB_EINVAL;
  }
}

/* Fill a modal body from a preset (see the header of this file and
 * base/base.h). */
int
vb_preset_fill(vb_body *b, const vb_preset *p, int npoints, const double *px, const double *py,
               const char *const *names, char *err, size_t errlen)
{
  int kind, rc;

  for (kind = 0; kind < KIND_COUNT; kind++)
    if (p->kind != NULL && strcmp(p->kind, kind_names[kind]) == 0)
      break;
  if (kind == KIND_COUNT)
    return vb_errf(err, errlen, VB_EINVAL, "preset: unknown kind '%s' (valid: %s)",
                   p->kind ? p->kind : "", vb_preset_choices());
  if (p->nmodes < 1 || p->nmodes > MODES_MAX)
    return vb_errf(err, errlen, VB_EINVAL,
                   "preset '%s': 'nmodes' must be between 1 and %d (got %d)", kind_names[kind],
                   MODES_MAX, p->nmodes);
  if ((rc = check_parameters((kind_id)kind, p, err, errlen)) != VB_OK)
    return rc;
  if (npoints < 0 || (npoints > 0 && px == NULL))
    return vb_errf(err, errlen, VB_EINVAL, "preset '%s': no point positions", kind_names[kind]);
  for (int i = 0; i < npoints; i++) {
    const char *name = names && names[i] ? names[i] : "";
    if (strlen(name) >= VB_NAME_MAX)
      return vb_errf(err, errlen, VB_EINVAL,
                     "preset '%s': point name '%s' is too long (valid: at most %d "
                     "characters)",
                     kind_names[kind], name, VB_NAME_MAX - 1);
    if ((rc = check_point((kind_id)kind, p, name, px[i], py ? py[i] : 0.0, err, errlen)) != VB_OK)
      return rc;
  }

  if ((rc = vb_body_alloc_modes(b, p->nmodes, npoints)) != VB_OK)
    return vb_errf(err, errlen, rc, "preset '%s': out of memory", kind_names[kind]);
  for (int i = 0; i < npoints; i++) {
    const char *name = names && names[i] ? names[i] : "";
    strncpy(b->points[i].name, name, VB_NAME_MAX - 1);
    b->points[i].name[VB_NAME_MAX - 1] = '\0';
    b->points[i].x = px[i];
    b->points[i].y = py ? py[i] : 0.0;
  }
  switch ((kind_id)kind) {
  case KIND_BAR: fill_bar(b, p); break;
  case KIND_STRING: fill_string(b, p); break;
  case KIND_PLATE: rc = fill_plate(b, p); break;
  default: rc = fill_membrane(b, p); break;
  }
  if (rc != VB_OK) {
    vb_body_clear_modes(b);
    return vb_errf(err, errlen, rc, "preset '%s': out of memory", kind_names[kind]);
  }
  return VB_OK;
}
