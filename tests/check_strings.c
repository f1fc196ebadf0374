/* check_strings.c - the proof of issue 18 on strings: an ideal string
 * released onto a flat barrier against its exact d'Alembert solution
 * (tests/dalembert.h, doc/dalembert.md), with the observed order of
 * convergence. */
#include <math.h>

#include "testutil.h"
#include "dalembert.h"

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

/* The ideal string on its barrier at 44.1, 88.2 and 176.4 kHz, the modes
 * and barrier points refined with the rate (100, 200, 400: every mode
 * below fs/4), k = 1e11 N/m^1.5, alpha 1.5, over 1.3 periods of the free
 * string (every point bounces).  First order is what can be justified
 * (doc/dalembert.md): the exact solution's velocity jumps at every bounce,
 * and a discrete contact lasts at least one step (two-point) or two
 * (three-point: Chatziioannou & van Walstijn's minimum durations), so each
 * bounce comes O(h) late; the modal truncation of the kinks is O(1/N).
 * Measured: p = 0.82 to 0.99 in both norms and both schemes.  Asserted:
 * 0.75 < p < 1.25 for each doubling.  A scheme that missed the barrier or
 * converged to another solution stalls at p near 0; p well above 1 means
 * errors cancelling (a string 0.2 % too fast gives 2.2). */
START_TEST(test_dalembert_order)
{
  static const char *const schemes[] = {"three-point", "two-point"};
  const char *scheme = schemes[_i];
  dal_result r[3];
  char err[2048] = "";
  for (int i = 0; i < 3; i++) {
    int m = 100 << i;
    r[i] = dal_run(44100.0 * (1 << i), 0.012, m, m, 1e11, 1.5, scheme, err, sizeof err);
    ck_assert_msg(r[i].rc == VB_OK, "%s at %d modes: %s", scheme, m, err);
    ck_assert_int_gt(r[i].impacts, r[i].npoints); /* every point bounces, most more than once */
    printf("d'Alembert, %s: fs %6.1f kHz, %3d modes and points: max error %.3e m (%.2f %% of the "
           "pluck), rms %.3e m",
           scheme, 44.1 * (1 << i), m, r[i].max, 100.0 * r[i].max / dal_case.height, r[i].rms);
    if (i > 0)
      printf(", order %.2f (max), %.2f (rms)", log2(r[i - 1].max / r[i].max),
             log2(r[i - 1].rms / r[i].rms));
    printf("\n");
  }
  for (int i = 1; i < 3; i++) {
    double pmax = log2(r[i - 1].max / r[i].max), prms = log2(r[i - 1].rms / r[i].rms);
    ck_assert_msg(pmax > 0.75 && prms > 0.75 && pmax < 1.25 && prms < 1.25, "%s: observed order %.3f (max), %.3f (rms) at %g kHz",
                  scheme, pmax, prms, 44.1 * (1 << i));
  }
}
END_TEST

/* The exact solution is the free string's absolute value: it never goes
 * below the barrier, it is the free string until the first touch, its
 * energy (the free string's, checked on a grid) does not change, and it
 * is periodic in 2L/c. */
START_TEST(test_dalembert_exact)
{
  const dal_string *s = &dal_case;
  double c = sqrt(s->tension / s->density), period = 2.0 * s->length / c;
  ck_assert(dal_exact(s, s->x0, 0.0) == s->height);
  for (int i = 0; i <= 1000; i++) {
    double x = s->length * i / 1000.0;
    ck_assert(fabs(dal_free(s, x, 0.0) - dal_pluck(s, x)) < 1e-18);
    for (int j = 0; j < 97; j++) {
      double t = period * j / 41.3;
      ck_assert(dal_exact(s, x, t) >= 0.0);
      ck_assert(fabs(dal_exact(s, x, t + period) - dal_exact(s, x, t)) < 1e-15);
    }
  }
  /* the first touch: the kink leaving x0 toward the nearer end reaches
   * it at x0/c, and the string near that end then goes below zero */
  double t_touch = fmin(s->x0, s->length - s->x0) / c;
  for (int i = 1; i < 1000; i++) {
    double x = s->length * i / 1000.0;
    ck_assert(dal_free(s, x, 0.999 * t_touch) >= -1e-18);
  }
  int below = 0;
  for (int i = 1; i < 1000; i++)
    below += dal_free(s, s->length * i / 1000.0, 1.2 * t_touch) < 0.0;
  ck_assert_int_gt(below, 0);
}
END_TEST

static Suite *
strings_suite(void)
{
  Suite *s = suite_create("strings");
  TCase *t = tcase_create("dalembert");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_dalembert_exact);
  tcase_add_loop_test(t, test_dalembert_order, 0, 2);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return tu_main(strings_suite());
}
