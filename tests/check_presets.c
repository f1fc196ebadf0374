/* check_presets.c - tests of lib/scene/presets.c: the modal presets (bar,
 * string, plate, membrane) against their analytic frequencies, integrals
 * of their shapes, and the modes files (CSV and HDF5) with every message. */
#include <math.h>
#include <unistd.h>

#include <hdf5.h>

#include "testutil.h"
#include "scene/scene.h"

/* j of the 100000th mode of a fixed-rim membrane: j_(277,83), from
 * scipy.special.jn_zeros(277, 83), with 99999 modes below it by a scan of
 * sign changes of every J_m. */
#define MEMBRANE_J_100000 633.4917707737497

#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "."
#endif

/* Aluminium bar of irregular size. */
static const vb_preset bar = {.kind = "bar", .nmodes = 7, .length = 0.437, .width = 0.0123,
                              .thickness = 0.0071, .youngs = 6.93e10, .density = 2703.0};
/* A string. */
static const vb_preset string = {.kind = "string", .nmodes = 9, .length = 0.647,
                                 .tension = 83.7, .linear_density = 1.13e-3};
/* A steel plate. */
static const vb_preset plate = {.kind = "plate", .nmodes = 25, .length = 0.613, .width = 0.387,
                                .thickness = 3.1e-3, .youngs = 2.07e11, .density = 7850.0,
                                .poisson = 0.29};
/* A drum head. */
static const vb_preset membrane = {.kind = "membrane", .nmodes = 10, .radius = 0.173,
                                   .tension = 1873.0, .surface_density = 0.262};

/* Fill a body from a preset; fails the test on an error.  Free with
 * vb_body_clear_modes. */
static vb_body
fill(const vb_preset *p, int np, const double *px, const double *py)
{
  vb_body b;
  char err[512] = "";
  memset(&b, 0, sizeof b);
  int rc = vb_preset_fill(&b, p, np, px, py, NULL, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "preset '%s' failed: %s", p->kind, err);
  ck_assert_int_eq(b.nmodes, p->nmodes);
  ck_assert_int_eq(b.npoints, np);
  return b;
}

/* n + 1 equally spaced positions from a to b. */
static double *
grid(double a, double b, int n)
{
  double *x = malloc(((size_t)n + 1) * sizeof *x);
  ck_assert(x != NULL);
  for (int i = 0; i <= n; i++)
    x[i] = a + (b - a) * i / n;
  return x;
}

/* Simpson weight of node i of n (even) intervals of width h. */
static double
simpson(int i, int n, double h)
{
  return h / 3.0 * (i == 0 || i == n ? 1.0 : i % 2 ? 4.0 : 2.0);
}

/* Relative difference. */
static double
rel(double a, double b)
{
  return fabs(a - b) / fmax(fabs(b), 1e-300);
}

/* ----------------------------------------------------------------- bar */

/* beta L from a bar frequency: omega = z^2/L^2 sqrt(E I/(rho A)). */
static double
bar_z(const vb_preset *p, double f)
{
  double h = p->thickness, L = p->length;
  return L * sqrt(2.0 * M_PI * f / sqrt(p->youngs * h * h / (12.0 * p->density)));
}

/* The flexural frequencies follow the roots of cos(bL) cosh(bL) = 1
 * (Blevins table 8-1) and omega = (bL)^2/L^2 sqrt(E I/(rho A)). */
START_TEST(test_bar_frequencies)
{
  static const double roots[] = {4.730040745, 7.853204624, 10.99560784, 14.13716549,
                                 17.27875966};
  double I = bar.width * pow(bar.thickness, 3) / 12.0, A = bar.width * bar.thickness;
  vb_body b = fill(&bar, 0, NULL, NULL);
  for (int n = 0; n < 5; n++) {
    double omega = roots[n] * roots[n] / (bar.length * bar.length) *
                   sqrt(bar.youngs * I / (bar.density * A));
    ck_assert_msg(rel(b.freq[n + 2], omega / (2 * M_PI)) < 2e-9, "mode %d: %.12g vs %.12g",
                  n + 2, b.freq[n + 2], omega / (2 * M_PI));
  }
  vb_body_clear_modes(&b);

  /* further roots: the frequency equation holds to round-off */
  vb_preset p = bar;
  p.nmodes = 40;
  b = fill(&p, 0, NULL, NULL);
  for (int j = 2; j < p.nmodes; j++) {
    double z = bar_z(&p, b.freq[j]), asym = (2 * (j - 1) + 1) * M_PI / 2;
    double residual = cos(z) - 1.0 / cosh(z);
    ck_assert_msg(fabs(residual) < 1e-13 * z, "mode %d: cos z - sech z = %g", j, residual);
    ck_assert_msg(fabs(z - asym) < 0.1, "mode %d: root %.10g far from %.10g", j, z, asym);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* Two rigid modes at 0 Hz (translation 1, rotation sqrt(3)(2x/L - 1)),
 * every modal mass rho A L, gravity only on the translation, and the
 * flexural shapes 2 and +-2 at the free ends. */
START_TEST(test_bar_rigid)
{
  const double x[] = {0.0, 0.1173, 0.2519, 0.437};
  vb_body b = fill(&bar, 4, x, NULL);
  double M = bar.density * bar.width * bar.thickness * bar.length;
  ck_assert_double_eq(b.freq[0], 0.0);
  ck_assert_double_eq(b.freq[1], 0.0);
  ck_assert(b.freq[2] > 0.0);
  for (int j = 0; j < b.nmodes; j++) {
    ck_assert_msg(rel(b.modal_mass[j], M) < 1e-14, "mode %d mass %g", j, b.modal_mass[j]);
    ck_assert_double_eq(b.gravity[j], j == 0 ? 1.0 : 0.0);
    ck_assert_double_eq(b.sigma[j], 0.0);
    ck_assert_double_eq(b.q0[j], 0.0);
    ck_assert_double_eq(b.dq0[j], 0.0);
  }
  for (int i = 0; i < 4; i++) {
    ck_assert_double_eq(b.points[i].x, x[i]);
    ck_assert_double_eq_tol(b.points[i].shape[0], 1.0, 1e-15);
    ck_assert_double_eq_tol(b.points[i].shape[1], sqrt(3.0) * (2 * x[i] / bar.length - 1),
                            1e-15);
  }
  for (int j = 2; j < b.nmodes; j++) {
    ck_assert_double_eq_tol(b.points[0].shape[j], 2.0, 1e-12);
    ck_assert_double_eq_tol(fabs(b.points[3].shape[j]), 2.0, 1e-12);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* Gram matrix (1/L) integral phi_i phi_j by Simpson's rule over shapes
 * sampled through the fill function: the identity; and the gravity
 * participation is the integral of rho phi over M. */
static void
check_bar_gram(int nmodes, int intervals, int first, double tol)
{
  vb_preset p = bar;
  p.nmodes = nmodes;
  double *x = grid(0.0, p.length, intervals), h = p.length / intervals, worst = 0.0;
  vb_body b = fill(&p, intervals + 1, x, NULL);
  double rhoA = p.density * p.width * p.thickness;
  for (int j = first; j < nmodes; j++) {
    double lin = 0.0;
    for (int i = 0; i <= intervals; i++)
      lin += simpson(i, intervals, h) * rhoA * b.points[i].shape[j];
    ck_assert_msg(fabs(lin / b.modal_mass[j] - b.gravity[j]) < tol, "mode %d: gamma %g vs %g",
                  j, lin / b.modal_mass[j], b.gravity[j]);
    for (int k = j; k < nmodes; k++) {
      double g = 0.0;
      for (int i = 0; i <= intervals; i++)
        g += simpson(i, intervals, h) * b.points[i].shape[j] * b.points[i].shape[k];
      g /= p.length;
      worst = fmax(worst, fabs(g - (j == k)));
      ck_assert_msg(fabs(g - (j == k)) < tol, "modes %d, %d: gram %.3e", j, k, g);
    }
    /* M = integral rho A phi^2 */
  }
  printf("bar: %d modes from %d, %d intervals: Gram matrix within %.2e of I\n", nmodes, first,
         intervals, worst);
  vb_body_clear_modes(&b);
  free(x);
}

START_TEST(test_bar_orthogonality)
{
  check_bar_gram(14, 4000, 0, 1e-12);
  /* high modes (beta L up to 190): the stable form neither overflows nor
   * cancels */
  check_bar_gram(62, 30000, 50, 1e-12);
}
END_TEST

/* Rayleigh's quotient of the sampled shapes, E I integral phi''^2 /
 * (rho A integral phi^2), gives back omega^2: the shapes belong to their
 * frequencies (phi'' by central differences, O((beta h)^2)). */
START_TEST(test_bar_rayleigh)
{
  vb_preset p = bar;
  p.nmodes = 12;
  int n = 8000;
  double *x = grid(0.0, p.length, n), h = p.length / n, worst = 0.0;
  vb_body b = fill(&p, n + 1, x, NULL);
  double I = p.width * pow(p.thickness, 3) / 12.0, A = p.width * p.thickness;
  for (int j = 2; j < p.nmodes; j++) {
    double curv = 0.0, sq = 0.0;
    for (int i = 1; i < n; i++) {
      double d2 = (b.points[i + 1].shape[j] - 2 * b.points[i].shape[j] +
                   b.points[i - 1].shape[j]) / (h * h);
      curv += h * d2 * d2;
    }
    for (int i = 0; i <= n; i++)
      sq += simpson(i, n, h) * b.points[i].shape[j] * b.points[i].shape[j];
    double w2 = p.youngs * I * curv / (p.density * A * sq), w = 2 * M_PI * b.freq[j];
    worst = fmax(worst, rel(w2, w * w));
    ck_assert_msg(rel(w2, w * w) < 1e-4, "mode %d: Rayleigh %g vs %g", j, w2, w * w);
  }
  printf("bar: Rayleigh quotient within %.2e of omega^2 (modes 2-11)\n", worst);
  vb_body_clear_modes(&b);
  free(x);
}
END_TEST

/* -------------------------------------------------------------- string */

/* f_n = n c/(2L), phi = sin(n pi x/L), M = mu L/2,
 * gamma_n = (2/(n pi))(1 - cos n pi), and Simpson integrals agree. */
START_TEST(test_string)
{
  int n = 2000;
  double *x = grid(0.0, string.length, n), h = string.length / n;
  vb_body b = fill(&string, n + 1, x, NULL);
  double c = sqrt(string.tension / string.linear_density);
  double M = string.linear_density * string.length / 2;
  for (int j = 0; j < b.nmodes; j++) {
    int k = j + 1;
    ck_assert(rel(b.freq[j], k * c / (2 * string.length)) < 1e-14);
    ck_assert(rel(b.modal_mass[j], M) < 1e-14);
    double gamma = 2.0 / (k * M_PI) * (1 - cos(k * M_PI));
    ck_assert_double_eq_tol(b.gravity[j], gamma, 1e-15);
    double lin = 0.0, sq = 0.0;
    for (int i = 0; i <= n; i++) {
      double s = b.points[i].shape[j];
      ck_assert_double_eq_tol(s, sin(k * M_PI * x[i] / string.length), 1e-14);
      lin += simpson(i, n, h) * string.linear_density * s;
      sq += simpson(i, n, h) * string.linear_density * s * s;
    }
    ck_assert_msg(rel(sq, M) < 1e-10, "mode %d: integral mu phi^2 %g vs %g", j, sq, M);
    ck_assert_double_eq_tol(lin / M, b.gravity[j], 1e-10);
  }
  vb_body_clear_modes(&b);
  free(x);
}
END_TEST

static void expect_preset_error(const vb_preset *p, int np, const double *px, const double *py,
                                const char *const *names, const char *want);

/* A stiff string, random B and sizes: f_n = n f_0 sqrt(1 + B n^2)
 * (Fletcher 1964), the shapes and masses of the ideal string. */
START_TEST(test_string_stiff)
{
  srand(77u + (unsigned)_i);
  vb_preset p = string;
  p.nmodes = 1 + rand() % 3000;
  p.inharmonicity = _i == 0 ? 0.0 : pow(10.0, -6.0 + 4.0 * rand() / (double)RAND_MAX);
  double x[3] = {0.0, 0.3 * p.length, p.length},
         f0 = sqrt(p.tension / p.linear_density) / (2 * p.length);
  vb_body b = fill(&p, 3, x, NULL);
  for (int j = 0; j < b.nmodes; j++) {
    double n = j + 1.0;
    ck_assert_msg(rel(b.freq[j], n * f0 * sqrt(1.0 + p.inharmonicity * n * n)) < 1e-14,
                  "B %g mode %d: %.17g", p.inharmonicity, j, b.freq[j]);
    ck_assert(b.modal_mass[j] == p.linear_density * p.length / 2);
    ck_assert(b.points[1].shape[j] == sin(n * M_PI * x[1] / p.length));
    ck_assert(b.sigma[j] == 0.0 && b.q0[j] == 0.0);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* Measured frequencies and decay rates replace the formula, mode by mode. */
START_TEST(test_string_measured)
{
  vb_preset p = string;
  double f[9], sg[9], x[1] = {0.2};
  for (int j = 0; j < 9; j++) {
    f[j] = 97.3 * (j + 1) * (1.0 + 1e-4 * j * j);
    sg[j] = 0.1 + 0.37 * j;
  }
  p.freq = f;
  p.sigma = sg;
  vb_body b = fill(&p, 1, x, NULL);
  for (int j = 0; j < 9; j++)
    ck_assert(b.freq[j] == f[j] && b.sigma[j] == sg[j]);
  vb_body_clear_modes(&b);
}
END_TEST

/* A pluck's q_n against (2/L) integral u phi_n by composite Simpson on
 * each side of the apex (the triangle is smooth there), random x0 and h. */
START_TEST(test_string_pluck)
{
  srand(91u + (unsigned)_i);
  vb_preset p = string;
  double L = p.length;
  p.nmodes = 40;
  p.pluck_x = L * (0.05 + 0.9 * rand() / (double)RAND_MAX);
  p.pluck_h = 1e-3 * (rand() / (double)RAND_MAX - 0.5);
  double x[1] = {0.1};
  vb_body b = fill(&p, 1, x, NULL);
  int n = 20000;
  for (int j = 0; j < p.nmodes; j++) {
    double q = 0.0;
    for (int side = 0; side < 2; side++) {
      double a = side ? p.pluck_x : 0.0, c = side ? L : p.pluck_x, h = (c - a) / n;
      for (int i = 0; i <= n; i++) {
        double xi = a + i * h;
        double u =
            xi <= p.pluck_x ? p.pluck_h * xi / p.pluck_x : p.pluck_h * (L - xi) / (L - p.pluck_x);
        q += 2.0 / L * simpson(i, n, h) * u * sin((j + 1) * M_PI * xi / L);
      }
    }
    ck_assert_msg(fabs(b.q0[j] - q) < 1e-12 * fabs(p.pluck_h),
                  "mode %d: q0 %.17g, quadrature %.17g", j, b.q0[j], q);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* A string's bad stiffness, measured modes and pluck. */
START_TEST(test_string_errors)
{
  vb_preset p = string;
  double f[9] = {100, 200, 300, 400, 0, 600, 700, 800, 900}, x[1] = {0.1};
  p.inharmonicity = -1e-4;
  expect_preset_error(&p, 1, x, NULL, NULL,
                      "preset 'string': 'inharmonicity' must be >= 0 (got -0.0001)");
  p.inharmonicity = 1e-4;
  p.freq = f;
  expect_preset_error(&p, 1, x, NULL, NULL,
                      "preset 'string': 'inharmonicity' and measured frequencies both give the "
                      "frequencies (valid: one of them)");
  p.inharmonicity = 0.0;
  expect_preset_error(&p, 1, x, NULL, NULL,
                      "preset 'string': mode 5 has frequency 0 Hz and sigma 0 1/s (valid: "
                      "frequency > 0, sigma >= 0)");
  p.freq = NULL;
  p.pluck_x = 0.647;
  p.pluck_h = 1e-3;
  expect_preset_error(&p, 1, x, NULL, NULL,
                      "preset 'string': 'pluck' = [0.647, 0.001] (valid: [x0, height] with 0 < "
                      "x0 < 0.647 and a finite height)");
}
END_TEST

/* --------------------------------------------------------------- plate */

typedef struct {
  double f;
  int m, n;
} plate_mode;

static int
by_frequency(const void *a, const void *b)
{
  const plate_mode *p = a, *q = b;
  return (p->f > q->f) - (p->f < q->f);
}

/* The 25 lowest modes of an irregular plate, enumerated here by brute
 * force: omega_mn, phi, M = rho h lx ly/4, gamma = 16/(m n pi^2). */
START_TEST(test_plate)
{
  const double px[] = {0.1013, 0.3371, 0.5907}, py[] = {0.0519, 0.2113, 0.3611};
  plate_mode all[900];
  double D = plate.youngs * pow(plate.thickness, 3) / (12 * (1 - plate.poisson * plate.poisson));
  int count = 0;
  for (int m = 1; m <= 30; m++)
    for (int n = 1; n <= 30; n++) {
      double w = sqrt(D / (plate.density * plate.thickness)) *
                 (pow(m * M_PI / plate.length, 2) + pow(n * M_PI / plate.width, 2));
      all[count++] = (plate_mode){w / (2 * M_PI), m, n};
    }
  qsort(all, (size_t)count, sizeof all[0], by_frequency);
  vb_body b = fill(&plate, 3, px, py);
  double M = plate.density * plate.thickness * plate.length * plate.width / 4;
  for (int j = 0; j < b.nmodes; j++) {
    int m = all[j].m, n = all[j].n;
    ck_assert_msg(rel(b.freq[j], all[j].f) < 1e-13, "mode %d: %g vs %g", j, b.freq[j], all[j].f);
    ck_assert(rel(b.modal_mass[j], M) < 1e-14);
    ck_assert_double_eq_tol(b.gravity[j], m % 2 && n % 2 ? 16 / (m * n * M_PI * M_PI) : 0.0,
                            1e-15);
    for (int i = 0; i < 3; i++)
      ck_assert_double_eq_tol(b.points[i].shape[j],
                              sin(m * M_PI * px[i] / plate.length) *
                                  sin(n * M_PI * py[i] / plate.width),
                              1e-14);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* Simpson integrals over the plate: integral rho h phi_i phi_j = M delta_ij
 * and (integral rho h phi)/M = gamma. */
START_TEST(test_plate_integrals)
{
  vb_preset p = plate;
  p.nmodes = 10;
  int n = 240, np = (n + 1) * (n + 1);
  double *gx = grid(0.0, p.length, n), *gy = grid(0.0, p.width, n);
  double *px = malloc((size_t)np * sizeof *px), *py = malloc((size_t)np * sizeof *py);
  for (int i = 0; i <= n; i++)
    for (int k = 0; k <= n; k++) {
      px[i * (n + 1) + k] = gx[i];
      py[i * (n + 1) + k] = gy[k];
    }
  vb_body b = fill(&p, np, px, py);
  double rh = p.density * p.thickness, hx = p.length / n, hy = p.width / n;
  for (int j = 0; j < p.nmodes; j++) {
    for (int l = j; l < p.nmodes; l++) {
      double s = 0.0;
      for (int i = 0; i < np; i++)
        s += simpson(i / (n + 1), n, hx) * simpson(i % (n + 1), n, hy) * rh *
             b.points[i].shape[j] * b.points[i].shape[l];
      ck_assert_msg(fabs(s - (j == l) * b.modal_mass[j]) < 1e-8 * b.modal_mass[j],
                    "modes %d, %d: %g", j, l, s);
    }
    double lin = 0.0;
    for (int i = 0; i < np; i++)
      lin += simpson(i / (n + 1), n, hx) * simpson(i % (n + 1), n, hy) * rh *
             b.points[i].shape[j];
    ck_assert_double_eq_tol(lin / b.modal_mass[j], b.gravity[j], 1e-8);
  }
  vb_body_clear_modes(&b);
  free(gx);
  free(gy);
  free(px);
  free(py);
}
END_TEST

/* Shape of plate mode (m, n) of an lx x ly plate at (x, y). */
static double
plate_shape(int m, int n, double lx, double ly, double x, double y)
{
  return sin(m * M_PI * x / lx) * sin(n * M_PI * y / ly);
}

/* Equal frequencies tie exactly and are ordered by m, then n: a square
 * plate's (1,2) before (2,1); with lx = 2 ly, (2,2) before (4,1). */
START_TEST(test_plate_ties)
{
  const double px[] = {0.1371}, py[] = {0.0917};
  vb_preset p = plate;
  p.nmodes = 6;
  p.length = p.width = 0.5;
  vb_body b = fill(&p, 1, px, py);
  ck_assert_double_eq(b.freq[1], b.freq[2]);
  ck_assert_double_eq_tol(b.points[0].shape[1], plate_shape(1, 2, 0.5, 0.5, px[0], py[0]), 1e-15);
  ck_assert_double_eq_tol(b.points[0].shape[2], plate_shape(2, 1, 0.5, 0.5, px[0], py[0]), 1e-15);
  vb_body_clear_modes(&b);

  p.length = 0.8;
  p.width = 0.4; /* keys m^2 + 4 n^2: 5, 8, 13, 17, 20 (2,2), 20 (4,1) */
  b = fill(&p, 1, px, py);
  ck_assert_double_eq(b.freq[4], b.freq[5]);
  ck_assert(b.freq[3] < b.freq[4]);
  ck_assert_double_eq_tol(b.points[0].shape[4], plate_shape(2, 2, 0.8, 0.4, px[0], py[0]), 1e-15);
  ck_assert_double_eq_tol(b.points[0].shape[5], plate_shape(4, 1, 0.8, 0.4, px[0], py[0]), 1e-15);
  vb_body_clear_modes(&b);
}
END_TEST

/* ------------------------------------------------------------ membrane */

/* The first zeros j_mn and the modes they give, lowest first. */
static const struct {
  double j;
  int m;
} zeros[] = {{2.404825558, 0}, {3.831705970, 1}, {5.135622302, 2},
             {5.520078110, 0}, {6.380161896, 3}, {7.015586670, 1}};

/* Zero j_mn from a membrane frequency: omega = j c/R. */
static double
membrane_j(const vb_preset *p, double f)
{
  return 2 * M_PI * f * p->radius / sqrt(p->tension / p->surface_density);
}

/* Bessel zeros, frequency ratios 1, 1.593, 2.136, 2.295, 2.653, 2.917
 * (j_mn/j_01 rounded; the often quoted 1.594, 2.296, 2.918 are not),
 * degenerate pairs, masses pi R^2 J_1^2 sigma and pi R^2 J_(m+1)^2 sigma/2,
 * gamma = 2/(j J_1(j)) for m = 0 only, shapes J_m cos, J_m sin. */
START_TEST(test_membrane)
{
  static const double ratios[] = {1.0, 1.593, 2.136, 2.295, 2.653, 2.917};
  const double px[] = {0.0413, -0.0902, 0.0, 0.0, 0.1223};
  const double py[] = {0.0271, 0.0517, -0.1371, 0.0, 0.1223};
  vb_body b = fill(&membrane, 5, px, py);
  double R = membrane.radius, sigma = membrane.surface_density, worst = 0.0;
  int j = 0;
  for (int k = 0; k < 6; k++) {
    int m = zeros[k].m;
    for (int part = 0; part < (m ? 2 : 1); part++, j++) {
      double z = membrane_j(&membrane, b.freq[j]);
      worst = fmax(worst, fabs(z - zeros[k].j));
      ck_assert_msg(fabs(z - zeros[k].j) < 1e-9, "mode %d: j = %.12g vs %.12g", j, z, zeros[k].j);
      ck_assert_msg(fabs(jn(m, z)) < 1e-15, "mode %d: J_%d(j) = %g", j, m, jn(m, z));
      ck_assert_msg(fabs(b.freq[j] / b.freq[0] - ratios[k]) < 5e-4, "mode %d: ratio %g", j,
                    b.freq[j] / b.freq[0]);
      double Jm1 = jn(m + 1, z);
      ck_assert(rel(b.modal_mass[j], sigma * M_PI * R * R * Jm1 * Jm1 / (m ? 2 : 1)) < 1e-13);
      ck_assert_double_eq_tol(b.gravity[j], m ? 0.0 : 2 / (z * Jm1), 1e-13);
      for (int i = 0; i < 5; i++) {
        double r = hypot(px[i], py[i]), th = atan2(py[i], px[i]);
        double want = jn(m, z * r / R) * (part ? sin(m * th) : cos(m * th));
        ck_assert_msg(fabs(b.points[i].shape[j] - want) < 1e-13, "mode %d point %d: %g vs %g",
                      j, i, b.points[i].shape[j], want);
      }
      if (part == 1)
        ck_assert_double_eq(b.freq[j], b.freq[j - 1]);
    }
  }
  ck_assert_int_eq(j, membrane.nmodes);
  printf("membrane: Bessel zeros within %.2e of the 10-digit table\n", worst);
  vb_body_clear_modes(&b);
}
END_TEST

/* Integrals over the disc (Simpson in r, trapezoid in theta, exact for
 * these trigonometric polynomials): integral sigma phi_i phi_j dA =
 * M delta_ij, (integral sigma phi dA)/M = gamma. */
START_TEST(test_membrane_integrals)
{
  int nr = 400, nt = 64, np = (nr + 1) * nt;
  double R = membrane.radius, hr = R / nr, worst = 0.0;
  double *px = malloc((size_t)np * sizeof *px), *py = malloc((size_t)np * sizeof *py);
  double *w = malloc((size_t)np * sizeof *w);
  for (int i = 0; i <= nr; i++)
    for (int k = 0; k < nt; k++) {
      double r = i * hr, th = 2 * M_PI * k / nt;
      px[i * nt + k] = r * cos(th);
      py[i * nt + k] = r * sin(th);
      w[i * nt + k] = simpson(i, nr, hr) * r * 2 * M_PI / nt * membrane.surface_density;
    }
  vb_body b = fill(&membrane, np, px, py);
  for (int j = 0; j < b.nmodes; j++) {
    double lin = 0.0;
    for (int l = j; l < b.nmodes; l++) {
      double s = 0.0;
      for (int i = 0; i < np; i++)
        s += w[i] * b.points[i].shape[j] * b.points[i].shape[l];
      double e = fabs(s - (j == l) * b.modal_mass[j]) / sqrt(b.modal_mass[j] * b.modal_mass[l]);
      worst = fmax(worst, e);
      ck_assert_msg(e < 1e-8, "modes %d, %d: %g", j, l, s);
    }
    for (int i = 0; i < np; i++)
      lin += w[i] * b.points[i].shape[j];
    ck_assert_double_eq_tol(lin / b.modal_mass[j], b.gravity[j], 1e-8);
  }
  printf("membrane: mass matrix within %.2e of diag(M)\n", worst);
  vb_body_clear_modes(&b);
  free(px);
  free(py);
  free(w);
}
END_TEST

/* ---------------------------------------------------------- modes files */

/* Read a modes file; fails the test on an error. */
static vb_body
read_modes(const char *path)
{
  vb_body b;
  char err[1024] = "";
  memset(&b, 0, sizeof b);
  int rc = vb_modes_file_read(&b, path, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  return b;
}

/* tests/data/modes-plate.csv: comments, blank lines, spaces, an empty
 * t60 (undamped), empty and given gravity, point columns after gravity. */
START_TEST(test_csv)
{
  vb_body b = read_modes(TEST_SRCDIR "/tests/data/modes-plate.csv");
  const double freq[] = {0.0, 187.3, 413.9, 977.25}, t60[] = {0.0, 1.85, 0.0, 0.62};
  const double mass[] = {0.731, 0.182, 0.207, 0.0931}, gravity[] = {1.0, 0.41, 0.0, 0.0};
  const double corner[] = {1.0, -0.732, 0.318, 0.12}, centre[] = {1.0, 0.996, -0.054, 0.025};
  ck_assert_int_eq(b.nmodes, 4);
  ck_assert_int_eq(b.npoints, 2);
  ck_assert_str_eq(b.points[0].name, "corner");
  ck_assert_str_eq(b.points[1].name, "centre");
  for (int j = 0; j < 4; j++) {
    ck_assert_double_eq(b.freq[j], freq[j]);
    ck_assert_double_eq(b.modal_mass[j], mass[j]);
    ck_assert_double_eq(b.gravity[j], gravity[j]);
    ck_assert_double_eq_tol(b.sigma[j], t60[j] > 0 ? log(1000.0) / t60[j] : 0.0, 1e-15);
    ck_assert_double_eq(b.points[0].shape[j], corner[j]);
    ck_assert_double_eq(b.points[1].shape[j], centre[j]);
    ck_assert_double_eq(b.q0[j], 0.0);
  }
  vb_body_clear_modes(&b);
}
END_TEST

/* A scratch directory under the build tree for files the tests write. */
static void
scratch_dir(char *dir, size_t n)
{
  snprintf(dir, n, "%s/tests/modes-XXXXXX", TEST_BUILDDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "cannot create %s", dir);
}

/* Write text into dir/name; path receives the file's path. */
static void
write_file(const char *dir, const char *name, const char *text, size_t len, char *path,
           size_t n)
{
  snprintf(path, n, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  ck_assert(fwrite(text, 1, len, f) == len);
  fclose(f);
}

/* CRLF line ends, tabs, columns in another order, no t60 and no gravity
 * column: every 0 Hz mode gets gravity 1, others 0. */
START_TEST(test_csv_layout)
{
  static const char text[] = "\t# header next\r\n"
                             "tip ,mass,\tfreq , base\r\n"
                             "  0.5 , 0.0173 , 0 , 0.25\r\n"
                             "-1.25,0.0131,2.5e3,+3E-1\r\n";
  char dir[1024], path[1200];
  scratch_dir(dir, sizeof dir);
  write_file(dir, "modes.csv", text, sizeof text - 1, path, sizeof path);
  vb_body b = read_modes(path);
  ck_assert_int_eq(b.nmodes, 2);
  ck_assert_int_eq(b.npoints, 2);
  ck_assert_str_eq(b.points[0].name, "tip");
  ck_assert_str_eq(b.points[1].name, "base");
  ck_assert_double_eq(b.freq[0], 0.0);
  ck_assert_double_eq(b.freq[1], 2500.0);
  ck_assert_double_eq(b.modal_mass[0], 0.0173);
  ck_assert_double_eq(b.modal_mass[1], 0.0131);
  ck_assert_double_eq(b.gravity[0], 1.0);
  ck_assert_double_eq(b.gravity[1], 0.0);
  ck_assert_double_eq(b.sigma[1], 0.0);
  ck_assert_double_eq(b.points[0].shape[1], -1.25);
  ck_assert_double_eq(b.points[1].shape[1], 0.3);
  vb_body_clear_modes(&b);
  remove(path);
  rmdir(dir);
}
END_TEST

/* Write an HDF5 modes file: freq (double), mass (float), t60, optional
 * gravity, and /shapes with the points in the order given, the group
 * tracking creation order when `tracked`. */
static void
write_h5(const char *path, int tracked, const char *const *names, int np, int nmodes,
         const double *freq, const float *mass, const double *t60, const double *gravity,
         const double *shapes)
{
  hsize_t n = (hsize_t)nmodes;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(f >= 0);
  hid_t space = H5Screate_simple(1, &n, NULL);
  struct {
    const char *name;
    hid_t type, mtype;
    const void *data;
  } sets[] = {{"/freq", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, freq},
              {"/mass", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, mass},
              {"/t60", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, t60},
              {"/gravity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, gravity}};
  for (int s = 0; s < 4; s++) {
    if (sets[s].data == NULL)
      continue;
    hid_t d = H5Dcreate2(f, sets[s].name, sets[s].type, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    ck_assert(d >= 0);
    ck_assert(H5Dwrite(d, sets[s].mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, sets[s].data) >= 0);
    H5Dclose(d);
  }
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (tracked)
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
  hid_t g = H5Gcreate2(f, "/shapes", H5P_DEFAULT, gcpl, H5P_DEFAULT);
  ck_assert(g >= 0);
  for (int i = 0; i < np; i++) {
    hid_t d = H5Dcreate2(g, names[i], H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    ck_assert(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 shapes + i * nmodes) >= 0);
    H5Dclose(d);
  }
  H5Gclose(g);
  H5Pclose(gcpl);
  H5Sclose(space);
  H5Fclose(f);
}

/* HDF5: values, float masses converted, t60 to sigma, gravity given or
 * defaulted, points in creation order when tracked, else by name. */
START_TEST(test_hdf5)
{
  const char *names[] = {"tip", "mid", "base"};
  const double freq[] = {0.0, 211.7, 583.9}, t60[] = {0.0, 2.3, 0.0};
  const double gravity[] = {0.83, 0.21, -0.07};
  const float mass[] = {0.0413f, 0.0209f, 0.0187f};
  const double shapes[] = {1.0, 1.91, -1.73, 1.0, -0.61, 0.12, 1.0, 0.35, 0.88};
  char dir[1024], path[1200];
  scratch_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/modes.h5", dir);
  for (int tracked = 1; tracked >= 0; tracked--) {
    write_h5(path, tracked, names, 3, 3, freq, mass, t60, tracked ? gravity : NULL, shapes);
    vb_body b = read_modes(path);
    ck_assert_int_eq(b.nmodes, 3);
    ck_assert_int_eq(b.npoints, 3);
    /* creation order tip, mid, base; by name base, mid, tip */
    const int order[2][3] = {{2, 1, 0}, {0, 1, 2}};
    for (int i = 0; i < 3; i++) {
      int src = order[tracked][i];
      ck_assert_str_eq(b.points[i].name, names[src]);
      for (int j = 0; j < 3; j++)
        ck_assert_double_eq(b.points[i].shape[j], shapes[src * 3 + j]);
    }
    for (int j = 0; j < 3; j++) {
      ck_assert_double_eq(b.freq[j], freq[j]);
      ck_assert_double_eq(b.modal_mass[j], (double)mass[j]);
      ck_assert_double_eq_tol(b.sigma[j], t60[j] > 0 ? log(1000.0) / t60[j] : 0.0, 1e-15);
      ck_assert_double_eq(b.gravity[j], tracked ? gravity[j] : (j == 0 ? 1.0 : 0.0));
    }
    vb_body_clear_modes(&b);
  }
  remove(path);
  rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------- limits */

/* 100000 bar modes: roots on their asymptote, shapes finite and bounded
 * by 2 at the ends, nothing overflows. */
START_TEST(test_bar_many)
{
  const double x[] = {0.0, 0.2017, 0.437};
  vb_preset p = bar;
  p.nmodes = 100000;
  vb_body b = fill(&p, 3, x, NULL);
  for (int j = 2; j < p.nmodes; j++) {
    ck_assert(b.freq[j] > b.freq[j - 1]);
    for (int i = 0; i < 3; i++)
      ck_assert_msg(isfinite(b.points[i].shape[j]) && fabs(b.points[i].shape[j]) < 2 + 1e-9,
                    "mode %d point %d: %g", j, i, b.points[i].shape[j]);
  }
  double z = bar_z(&p, b.freq[p.nmodes - 1]);
  ck_assert(rel(z, (2 * (p.nmodes - 2) + 1) * M_PI / 2) < 1e-13);
  ck_assert_double_eq_tol(b.points[0].shape[p.nmodes - 1], 2.0, 1e-9);
  vb_body_clear_modes(&b);

  p.nmodes = 1; /* only the translation */
  b = fill(&p, 3, x, NULL);
  ck_assert_double_eq(b.freq[0], 0.0);
  ck_assert_double_eq(b.points[2].shape[0], 1.0);
  vb_body_clear_modes(&b);
}
END_TEST

/* Points on the edges are on the body; a fixed edge does not move;
 * a body may have no points. */
START_TEST(test_edges)
{
  const double sx[] = {0.0, 0.647};
  vb_body b = fill(&string, 2, sx, NULL);
  for (int j = 0; j < b.nmodes; j++)
    for (int i = 0; i < 2; i++)
      ck_assert(fabs(b.points[i].shape[j]) < 1e-14);
  vb_body_clear_modes(&b);

  const double px[] = {0.0, 0.613, 0.613}, py[] = {0.0, 0.387, 0.2};
  b = fill(&plate, 3, px, py);
  for (int j = 0; j < b.nmodes; j++)
    for (int i = 0; i < 3; i++)
      ck_assert(fabs(b.points[i].shape[j]) < 1e-13);
  vb_body_clear_modes(&b);

  /* on the rim up to rounding (one ulp outside), and J_m(j_mn) = 0 there */
  const double mx[] = {0.16600686636726114}, my[] = {0.048690043324300943};
  ck_assert(hypot(mx[0], my[0]) > 0.173);
  b = fill(&membrane, 1, mx, my);
  for (int j = 0; j < b.nmodes; j++)
    ck_assert(fabs(b.points[0].shape[j]) < 1e-14);
  vb_body_clear_modes(&b);

  b = fill(&bar, 0, NULL, NULL);
  ck_assert_int_eq(b.npoints, 0);
  vb_body_clear_modes(&b);
}
END_TEST

/* 100000 plate modes are the 100000 lowest: the count of pairs (m, n)
 * below the last frequency, made here, brackets 100000. */
START_TEST(test_plate_many)
{
  vb_preset p = plate;
  p.nmodes = 100000;
  vb_body b = fill(&p, 0, NULL, NULL);
  double last = b.freq[p.nmodes - 1];
  double scale = b.freq[0] / (1 / pow(p.length, 2) + 1 / pow(p.width, 2));
  long below = 0, upto = 0;
  for (int j = 1; j < p.nmodes; j++)
    ck_assert(b.freq[j] >= b.freq[j - 1]);
  for (long m = 1; scale * m * m / pow(p.length, 2) < last * 1.01; m++)
    for (long n = 1;; n++) {
      double f = scale * (m * m / pow(p.length, 2) + n * n / pow(p.width, 2));
      if (f > last * (1 + 1e-12))
        break;
      upto++;
      below += f < last * (1 - 1e-12);
    }
  ck_assert_msg(below < p.nmodes && upto >= p.nmodes, "below %ld, up to %ld", below, upto);
  vb_body_clear_modes(&b);
}
END_TEST

/* 3000 membrane modes miss no zero: modes below a frequency, counted here
 * by a fine scan of sign changes of every J_m, agree; and the 100000th
 * mode's zero is the one scipy.special.jn_zeros gives. */
START_TEST(test_membrane_many)
{
  vb_preset p = membrane;
  p.nmodes = 3000;
  vb_body b = fill(&p, 0, NULL, NULL);
  for (int j = 1; j < p.nmodes; j++)
    ck_assert(b.freq[j] >= b.freq[j - 1]);
  double top = membrane_j(&p, b.freq[p.nmodes - 1]);
  double cut = 0.5 * (top + membrane_j(&p, b.freq[p.nmodes - 3])); /* between two zeros */
  long counted = 0, have = 0;
  for (int m = 0; m < cut; m++) {
    double a = m + 1e-9, fa = jn(m, a);
    for (int k = 1; a + 0.05 * (k - 1) < cut; k++) {
      double fx = jn(m, fmin(a + 0.05 * k, cut));
      if ((fa < 0) != (fx < 0))
        counted += m ? 2 : 1;
      fa = fx;
    }
  }
  for (int j = 0; j < p.nmodes; j++)
    have += membrane_j(&p, b.freq[j]) < cut;
  ck_assert_msg(counted == have, "scan finds %ld modes below j = %g, the preset %ld", counted, cut,
                have);
  vb_body_clear_modes(&b);

  p.nmodes = 100000;
  b = fill(&p, 0, NULL, NULL);
  ck_assert_msg(fabs(membrane_j(&p, b.freq[p.nmodes - 1]) - MEMBRANE_J_100000) < 1e-9,
                "j = %.15g", membrane_j(&p, b.freq[p.nmodes - 1]));
  vb_body_clear_modes(&b);
}
END_TEST

/* ------------------------------------------------------------- errors */

/* A preset that fails with exactly this message and leaves no modes. */
static void
expect_preset_error(const vb_preset *p, int np, const double *px, const double *py,
                    const char *const *names, const char *want)
{
  vb_body b;
  char err[512] = "";
  memset(&b, 0, sizeof b);
  int rc = vb_preset_fill(&b, p, np, px, py, names, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_str_eq(err, want);
  ck_assert_int_eq(b.nmodes, 0);
  ck_assert(b.freq == NULL && b.points == NULL);
}

START_TEST(test_preset_errors)
{
  vb_preset p = bar;
  p.kind = "beam";
  expect_preset_error(&p, 0, NULL, NULL, NULL,
                      "preset: unknown kind 'beam' (valid: bar, string, plate, membrane)");
  p.kind = NULL;
  expect_preset_error(&p, 0, NULL, NULL, NULL,
                      "preset: unknown kind '' (valid: bar, string, plate, membrane)");
  p = bar;
  p.nmodes = 0;
  expect_preset_error(&p, 0, NULL, NULL, NULL,
                      "preset 'bar': 'nmodes' must be between 1 and 100000 (got 0)");
  p.nmodes = 100001;
  expect_preset_error(&p, 0, NULL, NULL, NULL,
                      "preset 'bar': 'nmodes' must be between 1 and 100000 (got 100001)");

  /* every parameter each kind uses */
  struct {
    const vb_preset *base;
    size_t offset;
    double value;
    const char *want;
  } cases[] = {
    {&bar, offsetof(vb_preset, length), -0.437, "preset 'bar': 'length' must be > 0 (got -0.437)"},
    {&bar, offsetof(vb_preset, width), 0.0, "preset 'bar': 'width' is missing or 0 (valid: a number > 0)"},
    {&bar, offsetof(vb_preset, thickness), NAN, "preset 'bar': 'thickness' must be > 0 (got nan)"},
    {&bar, offsetof(vb_preset, youngs), -1e9, "preset 'bar': 'youngs' must be > 0 (got -1000000000)"},
    {&bar, offsetof(vb_preset, density), INFINITY, "preset 'bar': 'density' must be > 0 (got inf)"},
    {&string, offsetof(vb_preset, length), 0.0, "preset 'string': 'length' is missing or 0 (valid: a number > 0)"},
    {&string, offsetof(vb_preset, tension), -83.7,
     "preset 'string': 'tension' must be > 0 (got -83.7)"},
    {&string, offsetof(vb_preset, linear_density), 0.0,
     "preset 'string': 'linear_density' is missing or 0 (valid: a number > 0)"},
    {&plate, offsetof(vb_preset, length), 0.0, "preset 'plate': 'length' is missing or 0 (valid: a number > 0)"},
    {&plate, offsetof(vb_preset, width), -0.1, "preset 'plate': 'width' must be > 0 (got -0.1)"},
    {&plate, offsetof(vb_preset, thickness), 0.0,
     "preset 'plate': 'thickness' is missing or 0 (valid: a number > 0)"},
    {&plate, offsetof(vb_preset, youngs), 0.0, "preset 'plate': 'youngs' is missing or 0 (valid: a number > 0)"},
    {&plate, offsetof(vb_preset, density), 0.0, "preset 'plate': 'density' is missing or 0 (valid: a number > 0)"},
    {&plate, offsetof(vb_preset, poisson), 0.5,
     "preset 'plate': 'poisson' must be > -1 and < 0.5 (got 0.5)"},
    {&plate, offsetof(vb_preset, poisson), -1.0,
     "preset 'plate': 'poisson' must be > -1 and < 0.5 (got -1)"},
    {&membrane, offsetof(vb_preset, radius), 0.0, "preset 'membrane': 'radius' is missing or 0 (valid: a number > 0)"},
    {&membrane, offsetof(vb_preset, tension), -5.0,
     "preset 'membrane': 'tension' must be > 0 (got -5)"},
    {&membrane, offsetof(vb_preset, surface_density), 0.0,
     "preset 'membrane': 'surface_density' is missing or 0 (valid: a number > 0)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    p = *cases[i].base;
    *(double *)((char *)&p + cases[i].offset) = cases[i].value;
    expect_preset_error(&p, 0, NULL, NULL, NULL, cases[i].want);
  }
}
END_TEST

START_TEST(test_point_errors)
{
  const char *names[] = {"strike", "tip"};
  double x[] = {0.05, 0.52}, y[] = {0.1, 0.2};
  vb_preset p = bar;
  p.length = 0.5;
  expect_preset_error(&p, 2, x, NULL, names,
                      "preset 'bar': point 'tip' at x = 0.52 is outside the bar "
                      "(valid: 0 <= x <= 0.5)");
  x[1] = -1e-3;
  expect_preset_error(&string, 2, x, NULL, names,
                      "preset 'string': point 'tip' at x = -0.001 is outside the string "
                      "(valid: 0 <= x <= 0.647)");
  x[1] = 0.61300000000000011; /* one ulp beyond the edge */
  expect_preset_error(&plate, 2, x, y, names,
                      "preset 'plate': point 'tip' at (x, y) = (0.6130000000000001, 0.2) is "
                      "outside the plate (valid: 0 <= x <= 0.613, 0 <= y <= 0.387)");
  x[1] = 0.3;
  y[1] = 0.3871;
  expect_preset_error(&plate, 2, x, y, names,
                      "preset 'plate': point 'tip' at (x, y) = (0.3, 0.3871) is outside the "
                      "plate (valid: 0 <= x <= 0.613, 0 <= y <= 0.387)");
  x[1] = 0.1;
  y[1] = -0.15;
  expect_preset_error(&membrane, 2, x, y, names,
                      "preset 'membrane': point 'tip' at (x, y) = (0.1, -0.15) is outside the "
                      "membrane (valid: sqrt(x^2 + y^2) <= 0.173)");
  char longname[VB_NAME_MAX + 1];
  memset(longname, 'a', VB_NAME_MAX);
  longname[VB_NAME_MAX] = '\0';
  const char *lnames[] = {"strike", longname};
  char want[512];
  snprintf(want, sizeof want,
           "preset 'bar': point name '%s' is too long (valid: at most 63 characters)", longname);
  x[1] = 0.1;
  expect_preset_error(&bar, 2, x, NULL, lnames, want);
}
END_TEST

/* A modes file that fails with exactly "<path><suffix>". */
static void
expect_file_error(const char *path, int status, const char *suffix)
{
  vb_body b;
  char err[1024] = "", want[2048];
  memset(&b, 0, sizeof b);
  int rc = vb_modes_file_read(&b, path, err, sizeof err);
  snprintf(want, sizeof want, "%s%s", path, suffix);
  ck_assert_msg(rc == status, "%s: status %d (%s)", path, rc, err);
  ck_assert_str_eq(err, want);
  ck_assert_int_eq(b.nmodes, 0);
  ck_assert(b.freq == NULL && b.points == NULL);
}

START_TEST(test_csv_errors)
{
  static const struct {
    const char *text, *suffix;
  } cases[] = {
    {"# modes\n"
     "freq,t60,mass,tip,base\n"
     "\n"
     "440,1.5,0.01,1,0.5\n"
     "# a comment does not count\n"
     "880,1.2,0.01,-1,0.25\n"
     "1320,1.1,0.01,0.5\n",
     ":7: expected 5 numbers, got 4"},
    {"freq,t60,mass,tip,base\n440,1.5,0.01,1,0.5,\n", ":2: expected 5 numbers, got 6"},
    {"freq,t60,mass,tip\n1,2,3,4\nabc,1,0.1,1\n", ":3: 'abc' is not a number (valid: a decimal number, e.g. 2.5e-3)"},
    {"freq,t60,mass,tip\n1,2,3,4 5\n", ":2: '4 5' is not a number (valid: a decimal number, e.g. 2.5e-3)"},
    {"freq,t60,mass,tip\n440,1.5,,1\n", ":2: no value in column 'mass'"},
    {"freq,t60,mass,tip\n-3,1.5,0.1,1\n", ":2: 'freq' must be >= 0 (got -3)"},
    {"freq,t60,mass,tip\n3,-1.5,0.1,1\n", ":2: 't60' must be > 0, or 0 for undamped (got -1.5)"},
    {"freq,t60,mass,tip\n3,1.5,0,1\n", ":2: 'mass' must be > 0 (got 0)"},
    {"freq,t60,mass,tip\n3,1.5,0.1,inf\n", ":2: 'tip' must be finite (got inf)"},
    {"freq,t60,mass,gravity,tip\n3,1.5,0.1,nan,1\n", ":2: 'gravity' must be finite (got nan)"},
    {"freq,t60,tip\n3,1.5,1\n", ":1: no column 'mass' (expected: freq,t60,mass,<point>,...)"},
    {"# no freq\nmass,tip\n3,1\n", ":2: no column 'freq' (expected: freq,t60,mass,<point>,...)"},
    {"freq,t60,mass\n3,1.5,0.1\n", ":1: no point columns (expected: freq,t60,mass,<point>,...)"},
    {"freq,t60,mass,tip,tip\n", ":1: duplicate column 'tip'"},
    {"freq,,mass,tip\n", ":1: column 2 has no name"},
    /* issue 10: a mistyped reserved column is an error, not a point */
    {"freq,t6O,mass,tip\n1,1,1,1\n", ":1: column 't6O' looks like a mistyped 't60' (valid: "
     "freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq,t60,mass,gravty,tip\n1,1,1,0,1\n", ":1: column 'gravty' looks like a mistyped "
     "'gravity' (valid: freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq,T60,mass,tip\n1,1,1,1\n", ":1: column 'T60' looks like a mistyped 't60' (valid: "
     "freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq,mass,t06,tip\n1,1,1,1\n", ":1: column 't06' looks like a mistyped 't60' (valid: "
     "freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq,mass_kg,tip\n1,1,1\n", ":1: column 'mass_kg' looks like a mistyped 'mass' "
     "(valid: freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq (Hz),mass,tip\n1,1,1\n", ":1: column 'freq (Hz)' looks like a mistyped 'freq' "
     "(valid: freq, t60, mass, gravity, or a point name that is not one of them)"},
    {"freq,mass,tip point\n1,1,1\n", ":1: invalid point name 'tip point' in column 3 "
     "(valid: letters, digits, '_' and '-')"},
    {"freq,t60,mass,tip\n# nothing else\n\n", ": no modes (expected one line per mode after the header)"},
    {"# only comments\n\n", ": no header line (expected: freq,t60,mass,<point>,...)"},
    {"", ": no header line (expected: freq,t60,mass,<point>,...)"},
  };
  char dir[1024], path[1200];
  scratch_dir(dir, sizeof dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_file(dir, "modes.csv", cases[i].text, strlen(cases[i].text), path, sizeof path);
    expect_file_error(path, VB_EINVAL, cases[i].suffix);
  }
  /* a column name too long for a point */
  char text[256], suffix[256], name[VB_NAME_MAX + 1];
  memset(name, 'p', VB_NAME_MAX);
  name[VB_NAME_MAX] = '\0';
  snprintf(text, sizeof text, "freq,t60,mass,%s\n1,1,1,1\n", name);
  snprintf(suffix, sizeof suffix,
           ":1: column name '%s' is too long (valid: at most 63 characters)", name);
  write_file(dir, "modes.csv", text, strlen(text), path, sizeof path);
  expect_file_error(path, VB_EINVAL, suffix);
  /* a NUL byte: not text */
  write_file(dir, "modes.csv", "freq,mass,a\n1,\0002,3\n", 19, path, sizeof path);
  expect_file_error(path, VB_EINVAL, ": not a text file (it holds a NUL byte)");
  /* more than 100000 modes */
  FILE *f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs("freq,mass,a\n", f);
  for (int j = 0; j < 100001; j++)
    fputs("1,1,1\n", f);
  fclose(f);
  expect_file_error(path, VB_EINVAL, ":100002: more than 100000 modes");
  remove(path);
  snprintf(path, sizeof path, "%s/missing.csv", dir);
  expect_file_error(path, VB_EIO, ": cannot read: No such file or directory");
  rmdir(dir);
}
END_TEST

START_TEST(test_hdf5_errors)
{
  const char *names[] = {"tip", "base"};
  const double freq[] = {0.0, 211.7, 583.9}, t60[] = {0.0, -2.3, 0.0};
  const float mass[] = {0.0413f, 0.0209f, 0.0f};
  const double shapes[] = {1.0, 1.91, -1.73, 1.0, -0.61, 0.12};
  char dir[1024], path[1200];
  scratch_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/modes.h5", dir);

  expect_file_error(path, VB_EIO, ": cannot read: No such file or directory");
  write_h5(path, 0, names, 2, 3, freq, NULL, NULL, NULL, shapes);
  expect_file_error(path, VB_EINVAL, ": no dataset /mass");
  write_h5(path, 0, names, 2, 3, NULL, mass, NULL, NULL, shapes);
  expect_file_error(path, VB_EINVAL, ": no dataset /freq");
  write_h5(path, 0, names, 2, 3, freq, mass, NULL, NULL, shapes);
  expect_file_error(path, VB_EINVAL, ": /mass[2] must be > 0 (got 0)");
  const float good_mass[] = {0.0413f, 0.0209f, 0.0187f};
  write_h5(path, 0, names, 2, 3, freq, good_mass, t60, NULL, shapes);
  expect_file_error(path, VB_EINVAL, ": /t60[1] must be > 0, or 0 for undamped (got -2.3)");
  write_h5(path, 0, names, 0, 3, freq, good_mass, NULL, NULL, shapes);
  expect_file_error(path, VB_EINVAL, ": group /shapes has no datasets (one per point)");

  /* edit a good file: wrong lengths, wrong rank and type, missing group */
  struct {
    const char *name;
    int rank;
    hsize_t dims[2];
    int string;
    const char *suffix;
  } cases[] = {
    {"/mass", 1, {2, 0}, 0, ": /mass has 2 values, /freq has 3"},
    {"/gravity", 1, {4, 0}, 0, ": /gravity has 4 values, /freq has 3"},
    {"/shapes/base", 1, {2, 0}, 0, ": /shapes/base has 2 values, /freq has 3"},
    {"/freq", 2, {3, 2}, 0, ": /freq is not a 1-D dataset"},
    {"/freq", 1, {0, 0}, 0, ": /freq has 0 values (valid: 1 to 100000 modes)"},
    {"/mass", 1, {3, 0}, 1, ": /mass is not numeric"},
    {"/shapes", 0, {0, 0}, 0, ": no group /shapes"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_h5(path, 0, names, 2, 3, freq, good_mass, NULL, NULL, shapes);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert(f >= 0);
    if (H5Lexists(f, cases[i].name, H5P_DEFAULT) > 0)
      ck_assert(H5Ldelete(f, cases[i].name, H5P_DEFAULT) >= 0);
    if (cases[i].rank > 0) {
      hid_t space = H5Screate_simple(cases[i].rank, cases[i].dims, NULL);
      hid_t type = H5Tcopy(cases[i].string ? H5T_C_S1 : H5T_IEEE_F64LE);
      if (cases[i].string)
        H5Tset_size(type, 8);
      hid_t d = H5Dcreate2(f, cases[i].name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      ck_assert(d >= 0);
      H5Dclose(d);
      H5Tclose(type);
      H5Sclose(space);
    }
    H5Fclose(f);
    expect_file_error(path, VB_EINVAL, cases[i].suffix);
  }

  /* not an HDF5 file */
  write_file(dir, "modes.h5", "freq,mass,a\n1,1,1\n", 18, path, sizeof path);
  expect_file_error(path, VB_EIO, ": cannot read: not an HDF5 file");
  remove(path);
  rmdir(dir);
}
END_TEST

static Suite *
presets_suite(void)
{
  Suite *s = suite_create("presets");
  TCase *core = tcase_create("core");
  tcase_add_test(core, test_bar_frequencies);
  tcase_add_test(core, test_bar_rigid);
  tcase_add_test(core, test_bar_orthogonality);
  tcase_add_test(core, test_bar_rayleigh);
  tcase_add_test(core, test_string);
  tcase_add_loop_test(core, test_string_stiff, 0, 6);
  tcase_add_test(core, test_string_measured);
  tcase_add_loop_test(core, test_string_pluck, 0, 6);
  tcase_add_test(core, test_plate);
  tcase_add_test(core, test_plate_integrals);
  tcase_add_test(core, test_plate_ties);
  tcase_add_test(core, test_membrane);
  tcase_add_test(core, test_membrane_integrals);
  tcase_add_test(core, test_csv);
  tcase_add_test(core, test_csv_layout);
  tcase_add_test(core, test_hdf5);
  tcase_set_timeout(core, 60);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_add_test(limits, test_bar_many);
  tcase_add_test(limits, test_edges);
  tcase_add_test(limits, test_plate_many);
  tcase_add_test(limits, test_membrane_many);
  tcase_set_timeout(limits, 120);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_preset_errors);
  tcase_add_test(errors, test_point_errors);
  tcase_add_test(errors, test_string_errors);
  tcase_add_test(errors, test_csv_errors);
  tcase_add_test(errors, test_hdf5_errors);
  tcase_set_timeout(errors, 60);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(presets_suite());
}
