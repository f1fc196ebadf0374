/* check_law.c - tests of lib/law.c and of the scheme registry. */
#include <math.h>
#include "testutil.h"

static const vb_law laws[] = {
  { .kind = VB_LAW_POWER, .k = 2.385e7, .alpha = 1.37 },
  { .kind = VB_LAW_HUNT_CROSSLEY, .k = 3.1e8, .alpha = 1.62, .mu = 0.43 },
  { .kind = VB_LAW_RATTLE, .k = 4.7e6, .alpha = 1.21, .h = 1.3e-3 },
  { .kind = VB_LAW_POLYNOMIAL, .k = 7.3e9, .alpha = 3.0 },
  { .kind = VB_LAW_POWER, .k = 1.9e9, .alpha = 1.0 },
  { .kind = VB_LAW_SPRING, .k = 4.1e4, .alpha = 1.0, .c = 2.7 },
};
#define NLAWS (int)(sizeof laws / sizeof laws[0])

/* V' and V'' agree with central differences of V and V' at engaged points. */
START_TEST(test_derivatives)
{
  const vb_law *law = &laws[_i];
  const double xs[] = { 2.1e-3, 3.7e-4, -2.9e-3, 1.7e-3 };
  for (int j = 0; j < 4; j++) {
    double x = xs[j], h = 1e-6 * fabs(x);
    if (vb_law_penetration(law, x) <= 0.0)
      continue;
    double dv = (vb_law_potential(law, x + h) - vb_law_potential(law, x - h)) / (2 * h);
    double ddv = (vb_law_elastic(law, x + h) - vb_law_elastic(law, x - h)) / (2 * h);
    ck_assert_msg(fabs(dv - vb_law_elastic(law, x)) <= 1e-7 * fabs(dv), "law %d V' at %g", _i, x);
    ck_assert_msg(fabs(ddv - vb_law_curvature(law, x)) <= 1e-6 * fabs(ddv), "law %d V'' at %g", _i, x);
  }
}
END_TEST

/* The discrete gradient times the difference is exactly the potential
 * difference (what makes the schemes conserve energy), and tends to V'. */
START_TEST(test_gradient)
{
  const vb_law *law = &laws[_i];
  double x1 = 2.3e-3, x0 = 1.1e-3;
  double g = vb_law_gradient(law, x1, x0);
  double dv = vb_law_potential(law, x1) - vb_law_potential(law, x0);
  ck_assert(fabs(g * (x1 - x0) - dv) <= 1e-14 * fabs(dv) + 1e-300);
  /* coincident points: V' at the point */
  ck_assert_double_eq_tol(vb_law_gradient(law, x1, x1), vb_law_elastic(law, x1),
                          1e-12 * fabs(vb_law_elastic(law, x1)));
  /* d/dx1 by a difference quotient */
  double h = 1e-7 * x1;
  double num = (vb_law_gradient(law, x1 + h, x0) - vb_law_gradient(law, x1 - h, x0)) / (2 * h);
  ck_assert_msg(fabs(num - vb_law_gradient_dx1(law, x1, x0)) <= 1e-5 * fabs(num) + 1e-300,
                "law %d: d grad/dx1 %g vs %g", _i, vb_law_gradient_dx1(law, x1, x0), num);
}
END_TEST

/* Out of contact nothing acts; Hunt-Crossley damping scales the force. */
START_TEST(test_one_sided)
{
  const vb_law *pw = &laws[0], *hc = &laws[1], *rt = &laws[2], *poly = &laws[3];
  ck_assert_double_eq(vb_law_potential(pw, -1e-3), 0.0);
  ck_assert_double_eq(vb_law_elastic(pw, -1e-3), 0.0);
  ck_assert_double_eq(vb_law_force(hc, -1e-3, 5.0), 0.0);
  double x = 1.7e-4, v = -0.83;
  ck_assert_double_eq_tol(vb_law_force(hc, x, v),
                          hc->k * pow(x, hc->alpha) * (1 + hc->mu * v), 1e-12 * hc->k * pow(x, hc->alpha));
  /* rattle: free inside |x| < h, symmetric outside */
  ck_assert_double_eq(vb_law_elastic(rt, 0.9e-3), 0.0);
  ck_assert_double_eq(vb_law_elastic(rt, -0.9e-3), 0.0);
  ck_assert_double_eq(vb_law_elastic(rt, 2.0e-3), -vb_law_elastic(rt, -2.0e-3));
  ck_assert(vb_law_elastic(rt, 2.0e-3) > 0.0);
  ck_assert_double_eq_tol(vb_law_elastic(rt, 2.0e-3), rt->k * pow(0.7e-3, rt->alpha),
                          1e-12 * rt->k * pow(0.7e-3, rt->alpha));
  ck_assert_double_eq_tol(vb_law_penetration(rt, -2.0e-3), 0.7e-3, 1e-18);
  /* polynomial: odd, always engaged */
  ck_assert_double_eq(vb_law_elastic(poly, -1e-3), -vb_law_elastic(poly, 1e-3));
  ck_assert(isinf(vb_law_penetration(poly, -1.0)));
  ck_assert_double_eq_tol(vb_law_potential(poly, -1e-3), poly->k / 4 * 1e-12, 1e-12 * poly->k / 4 * 1e-12);
}
END_TEST

/* Law names: first, last and unknown (REBOUND's registry bug). */
START_TEST(test_law_lookup)
{
  vb_law_kind k;
  ck_assert_int_eq(vb_law_lookup("power", &k), VB_OK);
  ck_assert_int_eq(k, VB_LAW_POWER);
  ck_assert_int_eq(vb_law_lookup("polynomial", &k), VB_OK);
  ck_assert_int_eq(k, VB_LAW_POLYNOMIAL);
  ck_assert_int_eq(vb_law_lookup("hertz", &k), VB_EINVAL);
  ck_assert_int_eq(vb_law_lookup(NULL, &k), VB_EINVAL);
  ck_assert_str_eq(vb_law_name(VB_LAW_RATTLE), "rattle");
}
END_TEST

/* Scheme registry: first, last, unknown; every name listed in the choices. */
START_TEST(test_scheme_lookup)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  ck_assert_int_eq(n, 7);
  ck_assert_ptr_eq(vb_scheme_lookup("two-point"), all[0]);
  ck_assert_ptr_eq(vb_scheme_lookup("rk4"), all[n - 1]);
  ck_assert_ptr_null(vb_scheme_lookup("rk5"));
  ck_assert_ptr_null(vb_scheme_lookup(""));
  ck_assert_ptr_null(vb_scheme_lookup(NULL));
  for (size_t i = 0; i < n; i++) {
    ck_assert_ptr_eq(vb_scheme_lookup(all[i]->name), all[i]);
    ck_assert_ptr_nonnull(strstr(vb_scheme_choices(), all[i]->name));
    /* SUNDIALS-style: every operation the family needs is there */
    if (all[i]->family == VB_FAMILY_EXPLICIT) {
      ck_assert_ptr_nonnull(all[i]->step_explicit);
    } else {
      ck_assert_ptr_nonnull(all[i]->step_force);
      ck_assert_ptr_nonnull(all[i]->held_force);
      ck_assert_ptr_nonnull(all[i]->dissipation);
      ck_assert_ptr_nonnull(all[i]->potential);
    }
    ck_assert(strlen(all[i]->doc) > 10);
  }
}
END_TEST

START_TEST(test_strerror)
{
  ck_assert_str_eq(vb_strerror(VB_OK), "success");
  ck_assert_str_eq(vb_strerror(VB_ENOCONV), "Newton iteration did not converge");
  ck_assert_str_eq(vb_strerror(12345), "unknown status");
}
END_TEST

static Suite *
law_suite(void)
{
  Suite *s = suite_create("law");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
  tcase_add_loop_test(core, test_derivatives, 0, NLAWS);
  tcase_add_loop_test(core, test_gradient, 0, NLAWS);
  tcase_add_test(core, test_one_sided);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 60);
  tcase_add_test(errors, test_law_lookup);
  tcase_add_test(errors, test_scheme_lookup);
  tcase_add_test(errors, test_strerror);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(law_suite());
}
