/* check_law.c - tests of lib/base/law.c and of the scheme registry. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "testutil.h"

static const vb_law laws[] = {
  { .kind = VB_LAW_POWER, .k = 2.385e7, .alpha = 1.37 },
  { .kind = VB_LAW_HUNT_CROSSLEY, .k = 3.1e8, .alpha = 1.62, .mu = 0.43 },
  { .kind = VB_LAW_RATTLE, .k = 4.7e6, .alpha = 1.21, .h = 1.3e-3 },
  { .kind = VB_LAW_POLYNOMIAL, .k = 7.3e9, .alpha = 3.0 },
  { .kind = VB_LAW_POWER, .k = 1.9e9, .alpha = 1.0 },
  { .kind = VB_LAW_SPRING, .k = 4.1e4, .alpha = 1.0, .c = 2.7 },
  { .kind = VB_LAW_LANKARANI_NIKRAVESH, .k = 6.3e7, .alpha = 1.53, .e = 0.71 },
  { .kind = VB_LAW_FLORES, .k = 8.9e6, .alpha = 1.17, .e = 0.44 },
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

/* vb_law_gradient_pair is bit for bit vb_law_gradient and
 * vb_law_gradient_dx1, and vb_law_gradient_pair_v0 with V(x0) given is
 * vb_law_gradient_pair, on random pairs of every law: both engaged, one,
 * none, either side of x = 0, and pairs that coincide to 1e-16 .. 1
 * relative (across both thresholds, 1e-10 and 1e-5, of the two). */
START_TEST(test_gradient_pair)
{
  const vb_law *law = &laws[_i];
  uint64_t seed = 0x2545F4914F6CDD1DULL + (uint64_t)_i;
  for (int k = 0; k < 200000; k++) {
    seed ^= seed >> 12;
    seed ^= seed << 25;
    seed ^= seed >> 27;
    uint64_t r = seed * 2685821657736338717ULL;
    double u1 = (double)(r >> 11) * 0x1.0p-53, u2 = (double)((r * 31) >> 11) * 0x1.0p-53;
    double u3 = (double)((r * 131) >> 11) * 0x1.0p-53;
    double x0 = (u1 - 0.3) * 4e-3 * pow(10.0, -3.0 * u2);
    double rel = pow(10.0, -16.0 * u3) * (k % 2 ? 1.0 : -1.0);
    double x1 = k % 97 == 0 ? x0 : k % 89 == 0 ? 0.0 : x0 + rel * (fabs(x0) + 1e-9 * (k % 3 == 0));
    double dg, g = vb_law_gradient_pair(law, x1, x0, &dg);
    double g_ref = vb_law_gradient(law, x1, x0), dg_ref = vb_law_gradient_dx1(law, x1, x0);
    ck_assert_msg(memcmp(&g, &g_ref, sizeof g) == 0 && memcmp(&dg, &dg_ref, sizeof dg) == 0,
                  "law %d at x1 %.17g, x0 %.17g: %.17g, %.17g; apart %.17g, %.17g", _i, x1, x0, g,
                  dg, g_ref, dg_ref);
    /* with V(x0) given, as the Newton's trials take it */
    double dgv, gv = vb_law_gradient_pair_v0(law, x1, x0, vb_law_potential(law, x0), &dgv);
    ck_assert_msg(memcmp(&gv, &g, sizeof g) == 0 && memcmp(&dgv, &dg, sizeof dg) == 0,
                  "law %d at x1 %.17g, x0 %.17g: v0 given %.17g, %.17g; pair %.17g, %.17g", _i,
                  x1, x0, gv, dgv, g, dg);
  }
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

/* A law of row `kind` with a valid value for each of its parameters,
 * chosen from irregular candidates (an odd exponent where one is asked). */
static vb_law
sample_law(vb_law_kind kind)
{
  static const struct { const char *key; double v[3]; } candidates[] = {
    { "k", { 2.385e6, 0, 0 } }, { "alpha", { 1.37, 3.0, 0 } }, { "mu", { 0.43, 0, 0 } },
    { "h", { 1.3e-3, 0, 0 } },  { "c", { 2.7, 0, 0 } },        { "e", { 0.71, 0, 0 } },
  };
  const vb_law_info *info = vb_law_info_of(kind);
  vb_law law = { .kind = kind, .alpha = info->alpha };
  for (const vb_law_param *p = info->params; p->key; p++) {
    int set = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
      for (int j = 0; j < 3 && !set && strcmp(candidates[i].key, p->key) == 0; j++)
        if (candidates[i].v[j] != 0.0 && vb_law_param_valid(info, p, candidates[i].v[j])) {
          vb_law_param_set(&law, p, candidates[i].v[j]);
          set = 1;
        }
    ck_assert_msg(set, "law %s: no sample value for key %s", info->name, p->key);
  }
  return law;
}

/* Every row's facts agree with each other and with the law's functions, so
 * a new row that forgets one fails here: Papetti's predictions only for a
 * law with impacts, and exactly where the row says; a two-sided law's
 * force odd in x with its side sign(x), a one-sided law's zero on the far
 * side; always engaged means engaged everywhere, else never at x = 0; the
 * damping kind matches the parameters that set it and the force, never
 * feeds energy in, and its slope is its derivative. */
START_TEST(test_law_facts)
{
  const vb_law_kind kind = (vb_law_kind)_i;
  const vb_law_info *info = vb_law_info_of(kind);
  vb_law law = sample_law(kind), act;
  const char *name = info->name;
  vb_prediction pr;
  /* predictions: finite where the row says, NaN elsewhere */
  ck_assert_msg(!(info->papetti && info->always_engaged), "%s: predictions without impacts", name);
  ck_assert_msg(!info->exact_duration || (info->papetti && !info->two_sided &&
                                          info->damping == VB_DAMPING_NONE),
                "%s: exact duration of a law that is not undamped one-sided", name);
  vb_law_predict(&law, 0.0137, 0.87, &pr);
  /* a rigid law: Newton's impact, an impulse */
  if (info->rigid)
    ck_assert_msg(!info->papetti && pr.x_max == 0.0 && pr.v_out == -law.e * 0.87 &&
                      pr.v_out_exact == pr.v_out && pr.duration == 0.0,
                  "%s: predictions %g %g %g %g", name, pr.x_max, pr.v_out, pr.v_out_exact,
                  pr.duration);
  else
  ck_assert_msg(info->papetti ? isfinite(pr.x_max) && isfinite(pr.v_out) &&
                                    isfinite(pr.v_out_exact) && isfinite(pr.duration)
                              : isnan(pr.x_max) && isnan(pr.v_out) && isnan(pr.v_out_exact) &&
                                    isnan(pr.duration),
                "%s: predictions %g %g %g %g", name, pr.x_max, pr.v_out, pr.v_out_exact,
                pr.duration);
  /* engagement */
  ck_assert_msg(info->always_engaged ? vb_law_engaged(&law, 0.0) : !vb_law_engaged(&law, 0.0),
                "%s: engaged at 0", name);
  /* the damping kind and the parameters that set it */
  int has_mu = vb_law_param_of(kind, "mu") != NULL, has_c = vb_law_param_of(kind, "c") != NULL;
  ck_assert_msg(has_mu == (info->damping == VB_DAMPING_HUNT_CROSSLEY && !info->onset_damping),
                "%s: key mu and damping kind disagree", name);
  ck_assert_msg(has_c == (info->damping == VB_DAMPING_LINEAR), "%s: key c and damping", name);
  ck_assert_msg(!info->onset_damping || info->damping == VB_DAMPING_HUNT_CROSSLEY, "%s", name);
  vb_law_at_onset(&law, 0.87, &act);
  unsigned seed = 2385u + (unsigned)_i;
  for (int t = 0; t < 2000; t++) {
    /* compressions over both sides and rates of either sign */
    seed = seed * 1103515245u + 12345u;
    double x = ((seed >> 8) / 16777216.0 - 0.5) * 6.0e-3;
    seed = seed * 1103515245u + 12345u;
    double v = ((seed >> 8) / 16777216.0 - 0.5) * 3.7;
    double fe = vb_law_elastic(&act, x), side = vb_law_side(&act, x);
    ck_assert_msg(fe == 0.0 || (fe > 0.0) == (side > 0.0), "%s: force %g on side %g", name, fe,
                  side);
    if (info->always_engaged)
      ck_assert_msg(vb_law_engaged(&act, x) && isinf(vb_law_penetration(&act, x)), "%s", name);
    if (info->two_sided) {
      /* odd force, even potential, odd side */
      ck_assert_msg(vb_law_elastic(&act, -x) == -fe, "%s: V' not odd at %g", name, x);
      ck_assert_msg(vb_law_potential(&act, -x) == vb_law_potential(&act, x), "%s", name);
      ck_assert_msg(x == 0.0 || vb_law_side(&act, -x) == -side, "%s: side not odd", name);
      ck_assert_msg(vb_law_force(&act, -x, -v) == -vb_law_force(&act, x, v),
                    "%s: force not odd at %g, %g", name, x, v);
    } else {
      ck_assert_msg(side == 1.0, "%s: side %g of a one-sided law", name, side);
      ck_assert_msg(x > 0.0 || vb_law_force(&act, x, v) == 0.0, "%s: force apart", name);
    }
    /* the penetration measured from the pressed side's barrier is the
     * penetration; from the other side's it is not a contact */
    if (!info->always_engaged) {
      ck_assert_msg(vb_law_side_penetration(&act, side, x) == vb_law_penetration(&act, x),
                    "%s at %g", name, x);
      if (info->two_sided)
        ck_assert_msg(x == 0.0 || vb_law_side_penetration(&act, -side, x) < 0.0, "%s", name);
    }
    /* the damping: none, or mu |V'| with the row's mu, or c; never
     * negative (the law does not feed energy in) */
    double d = vb_law_damping(&act, fe), f = vb_law_force(&act, x, v);
    switch (info->damping) {
    case VB_DAMPING_NONE: ck_assert_msg(d == 0.0 && f == fe, "%s: damping %g", name, d); break;
    case VB_DAMPING_HUNT_CROSSLEY:
      ck_assert_msg(d == act.mu * fabs(fe), "%s: damping %g, mu %g, fe %g", name, d, act.mu, fe);
      break;
    case VB_DAMPING_LINEAR: ck_assert_msg(d == act.c, "%s: damping %g", name, d); break;
    }
    ck_assert_msg(vb_law_damping_power(&act, x, v) >= 0.0, "%s: power %g at %g, %g", name,
                  vb_law_damping_power(&act, x, v), x, v);
    ck_assert_msg(f == fe + d * v, "%s", name);
    if (fe != 0.0) {
      double h = 1e-6 * fabs(fe);
      double num = (vb_law_damping(&act, fe + h) - vb_law_damping(&act, fe - h)) / (2.0 * h);
      ck_assert_msg(fabs(num - vb_law_damping_slope(&act, fe)) <= 1e-6 * (fabs(num) + 1e-300),
                    "%s: damping slope %g, difference quotient %g", name,
                    vb_law_damping_slope(&act, fe), num);
    }
  }
}
END_TEST

/* Every row of the law table in a run: a 13.7 g hammer thrown at a wall
 * through the row's sample law (two-point, 192 kHz).  An always engaged
 * law records no impact; any other records impacts, and a two-sided one
 * on both sides; each event carries Papetti's predictions where the row
 * says they apply, and the hammer then leaves at eq 6's v_out (to the
 * scheme's accuracy here, 1e-3), else NaN. */
START_TEST(test_law_rows_run)
{
  const vb_law_kind kind = (vb_law_kind)_i;
  const vb_law_info *info = vb_law_info_of(kind);
  vb_law law = sample_law(kind);
  char keys[512] = "", text[1536];
  for (const vb_law_param *p = info->params; p->key; p++) {
    size_t n = strlen(keys);
    snprintf(keys + n, sizeof keys - n, " %s = %.17g;", p->key, vb_law_param_value(&law, p));
  }
  snprintf(text, sizeof text,
           "scene = { name = \"row\"; fs = 192000.0; duration = 0.006; };\n"
           "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137;\n"
           "             u0 = -1.0e-4; v0 = 1.25; },\n"
           "           { name = \"wall\"; type = \"wall\"; } );\n"
           "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"];\n"
           "  law = \"%s\";%s scheme = \"%s\"; } );\n", info->name, keys,
           info->rigid ? "moreau-jean" : "two-point");
  tu_sim sim = tu_run_text(text);
  ck_assert_msg(sim.rc == VB_OK, "%s: %s", info->name, vb_run_status(sim.run));
  const vb_contact_result *r = vb_run_contact(sim.run, 0);
  const double *u = vb_run_body_u(sim.run, 0);
  int sides[2] = { 0, 0 };
  fprintf(stderr, "law row %-19s: %ld events\n", info->name, r->nevents);
  if (info->always_engaged)
    ck_assert_msg(r->nevents == 0, "%s: %ld impacts of an always engaged law", info->name,
                  r->nevents);
  else
    ck_assert_msg(r->nevents >= (info->two_sided ? 2 : 1), "%s: %ld impacts", info->name,
                  r->nevents);
  for (long i = 0; i < r->nevents; i++) {
    const vb_event *ev = &r->events[i];
    sides[u[lround(ev->t_on * 192000.0)] < 0.0]++;
    if (!info->papetti && !info->rigid) {
      ck_assert_msg(isnan(ev->x_max_pred) && isnan(ev->v_out_pred) && isnan(ev->v_out_exact) &&
                        isnan(ev->duration_pred), "%s: predictions", info->name);
      continue;
    }
    ck_assert_msg(isfinite(ev->x_max_pred) && isfinite(ev->v_out_exact) &&
                      isfinite(ev->duration_pred), "%s: no predictions", info->name);
    if (isfinite(ev->v_out))
      ck_assert_msg(fabs(ev->v_out - ev->v_out_exact) <= 1e-3 * fabs(ev->v_out_exact),
                    "%s impact %ld: v_out %.9g, eq 6 %.9g", info->name, i, ev->v_out,
                    ev->v_out_exact);
  }
  if (info->two_sided && !info->always_engaged)
    ck_assert_msg(sides[0] && sides[1], "%s: impacts on one side only", info->name);
  tu_free(&sim);
}
END_TEST

/* The law table: every row complete, names unique and all in the
 * choices, lookups of the first, the last and an unknown name, and
 * parameter access by offset. */
START_TEST(test_law_table)
{
  size_t listed = 0;
  ck_assert_ptr_null(vb_law_info_of(VB_LAW_COUNT));
  ck_assert_ptr_null(vb_law_info_of((vb_law_kind)-1));
  for (int l = 0; l < VB_LAW_COUNT; l++) {
    const vb_law_info *info = vb_law_info_of((vb_law_kind)l);
    vb_law_kind k;
    ck_assert_ptr_nonnull(info);
    ck_assert_int_eq(vb_law_lookup(info->name, &k), VB_OK);
    ck_assert_int_eq(k, l);
    ck_assert_str_eq(vb_law_name(k), info->name);
    ck_assert_msg(strlen(info->doc) > 10, "law %s has no doc", info->name);
    /* the choices list each name once, as a whole item */
    const char *c = vb_law_choices(), *hit = strstr(c, info->name);
    size_t n = strlen(info->name);
    while (hit && !((hit == c || hit[-1] == ' ') && (hit[n] == ',' || hit[n] == '\0')))
      hit = strstr(hit + 1, info->name);
    ck_assert_msg(hit != NULL, "%s not in choices '%s'", info->name, c);
    listed++;
    /* (a rigid law has no stiffness: its first parameter is e) */
    ck_assert_msg(info->params[0].key != NULL &&
                      strcmp(info->params[0].key, info->rigid ? "e" : "k") == 0,
                  "law %s: first parameter is not %s", info->name, info->rigid ? "e" : "k");
    for (const vb_law_param *p = info->params; p->key; p++) {
      vb_law law = { .kind = k };
      ck_assert_msg(p->units && *p->units && p->condition && *p->condition && p->doc,
                    "law %s key %s", info->name, p->key);
      ck_assert_ptr_eq(vb_law_param_of(k, p->key), p);
      vb_law_param_set(&law, p, 2.385);
      ck_assert_double_eq(vb_law_param_value(&law, p), 2.385);
      /* the offset names the field the key means */
      if (strcmp(p->key, "k") == 0) ck_assert_double_eq(law.k, 2.385);
      if (strcmp(p->key, "alpha") == 0) ck_assert_double_eq(law.alpha, 2.385);
      if (strcmp(p->key, "mu") == 0) ck_assert_double_eq(law.mu, 2.385);
      if (strcmp(p->key, "h") == 0) ck_assert_double_eq(law.h, 2.385);
      if (strcmp(p->key, "c") == 0) ck_assert_double_eq(law.c, 2.385);
      if (strcmp(p->key, "e") == 0) ck_assert_double_eq(law.e, 2.385);
    }
    for (int m = 0; m < l; m++)
      ck_assert_str_ne(vb_law_info_of((vb_law_kind)m)->name, info->name);
  }
  /* as many commas as names less one: nothing else is listed */
  const char *c = vb_law_choices();
  size_t commas = 0;
  for (; *c; c++)
    commas += *c == ',';
  ck_assert_int_eq(commas + 1, listed);
  ck_assert_ptr_null(vb_law_param_of(VB_LAW_POWER, "mu"));
  ck_assert_ptr_null(vb_law_param_of(VB_LAW_SPRING, "alpha"));
  ck_assert_str_eq(vb_law_param_of(VB_LAW_POWER, "k")->units, "N/m^alpha");
  ck_assert_str_eq(vb_law_param_of(VB_LAW_SPRING, "c")->units, "N s/m");
  ck_assert_str_eq(vb_law_param_of(VB_LAW_HUNT_CROSSLEY, "mu")->units, "s/m");
  /* conditions: the odd exponent of the polynomial, e in (0, 1] */
  const vb_law_info *poly = vb_law_info_of(VB_LAW_POLYNOMIAL);
  const vb_law_param *pa = vb_law_param_of(VB_LAW_POLYNOMIAL, "alpha");
  ck_assert(vb_law_param_valid(poly, pa, 3.0) && !vb_law_param_valid(poly, pa, 2.0));
  ck_assert(!vb_law_param_valid(poly, pa, 3.5) && !vb_law_param_valid(poly, pa, -1.0));
  const vb_law_info *fl = vb_law_info_of(VB_LAW_FLORES);
  const vb_law_param *pe = vb_law_param_of(VB_LAW_FLORES, "e");
  ck_assert(vb_law_param_valid(fl, pe, 1.0) && vb_law_param_valid(fl, pe, 1e-9));
  ck_assert(!vb_law_param_valid(fl, pe, 0.0) && !vb_law_param_valid(fl, pe, 1.0000001));
  ck_assert(!vb_law_param_valid(fl, pe, NAN));
  /* the rigid law's Newton restitution: e in [0, 1], 0 included */
  const vb_law_info *rg = vb_law_info_of(VB_LAW_RIGID);
  const vb_law_param *re = vb_law_param_of(VB_LAW_RIGID, "e");
  ck_assert(rg->rigid && !fl->rigid && vb_law_param_of(VB_LAW_RIGID, "k") == NULL);
  ck_assert(vb_law_param_valid(rg, re, 0.0) && vb_law_param_valid(rg, re, 1.0));
  ck_assert(!vb_law_param_valid(rg, re, -1e-300) && !vb_law_param_valid(rg, re, 1.0000001));
  ck_assert(!vb_law_param_valid(rg, re, NAN));
}
END_TEST

/* Lankarani-Nikravesh and Flores: at rest the law is the power law (the
 * scene's law has no damping until an impact sets it); at the onset of an
 * impact at v_in it is Hunt-Crossley with mu = lambda(e) / v_in, lambda =
 * 3 (1 - e^2)/4 (Lankarani & Nikravesh 1990) or 8 (1 - e)/(5 e) (Flores et
 * al. 2011). */
START_TEST(test_restitution_laws)
{
  const double e = 0.637, v_in = 1.183, x = 2.3e-4, v = -0.417;
  const vb_law_kind kinds[2] = { VB_LAW_LANKARANI_NIKRAVESH, VB_LAW_FLORES };
  const double lambda[2] = { 3.0 * (1.0 - e * e) / 4.0, 8.0 * (1.0 - e) / (5.0 * e) };
  for (int i = 0; i < 2; i++) {
    vb_law law = { .kind = kinds[i], .k = 3.7e8, .alpha = 1.41, .e = e }, act;
    double fe = law.k * pow(x, law.alpha);
    /* at rest: elastic only */
    ck_assert_double_eq_tol(vb_law_force(&law, x, v), fe, 1e-13 * fe);
    ck_assert_double_eq(vb_law_damping(&law, fe), 0.0);
    /* at onset: Hunt-Crossley with mu = lambda / v_in */
    vb_law_at_onset(&law, v_in, &act);
    ck_assert_int_eq(act.kind, law.kind);
    ck_assert_double_eq(act.k, law.k);
    ck_assert_double_eq(act.e, law.e);
    ck_assert_double_eq_tol(act.mu, lambda[i] / v_in, 1e-15 * lambda[i] / v_in);
    ck_assert_double_eq_tol(vb_law_force(&act, x, v), fe * (1.0 + lambda[i] / v_in * v),
                            1e-13 * fe);
    ck_assert_double_eq_tol(vb_law_damping(&act, fe), act.mu * fe, 1e-15 * act.mu * fe);
    ck_assert_double_eq(vb_law_damping_slope(&act, fe), act.mu);
    ck_assert_double_eq_tol(vb_law_damping_power(&act, x, v), act.mu * fe * v * v,
                            1e-13 * act.mu * fe * v * v);
    ck_assert_double_eq(vb_law_force(&act, -x, v), 0.0); /* one-sided */
    ck_assert_double_eq(vb_law_penetration(&act, x), x);
    /* guards: no usable v_in leaves the law undamped */
    const double bad[] = { 0.0, -1.2, NAN, INFINITY, 1e-320 };
    for (int j = 0; j < 5; j++) {
      vb_law_at_onset(&law, bad[j], &act);
      ck_assert_msg(act.mu == 0.0, "law %d v_in %g: mu %g", i, bad[j], act.mu);
    }
    /* e = 1: perfectly elastic, no damping at any rate */
    law.e = 1.0;
    vb_law_at_onset(&law, v_in, &act);
    ck_assert_double_eq(act.mu, 0.0);
  }
  /* the other laws are their own active law */
  for (int l = 0; l < NLAWS; l++) {
    vb_law act;
    if (vb_law_info_of(laws[l].kind)->onset_damping != NULL)
      continue;
    vb_law_at_onset(&laws[l], v_in, &act);
    ck_assert(act.kind == laws[l].kind && act.k == laws[l].k && act.alpha == laws[l].alpha &&
              act.mu == laws[l].mu && act.h == laws[l].h && act.c == laws[l].c &&
              act.e == laws[l].e);
  }
}
END_TEST

/* End to end: a mass hitting a wall through each restitution law, run by
 * each implicit family and an explicit scheme; the events table's
 * -v_out/v_in is what the analytic root of Papetti eq 6 predicts for the
 * mu of the impact (to the schemes' accuracy at this rate, 2e-4), and so
 * the e asked for within each paper's range of validity: Flores et al.
 * (2011) over the whole range (0.046, as check_analytic measures),
 * Lankarani & Nikravesh (1990) for e near 1 (0.05 for e >= 0.8). */
START_TEST(test_restitution_events)
{
  static const struct { const char *law; double e, within; } cases[] = {
    { "flores", 0.93, 0.012 }, { "flores", 0.61, 0.046 }, { "flores", 0.27, 0.046 },
    { "lankarani-nikravesh", 0.97, 0.015 }, { "lankarani-nikravesh", 0.83, 0.05 },
  };
  static const char *const schemes[] = { "two-point", "am1", "three-point", "rk4" };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t j = 0; j < sizeof schemes / sizeof schemes[0]; j++) {
      char text[1024];
      snprintf(text, sizeof text,
               "scene = { name = \"e\"; fs = 2.0e6; duration = 0.0012; };\n"
               "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137;\n"
               "             u0 = -1.0e-4; v0 = 1.25; },\n"
               "           { name = \"wall\"; type = \"wall\"; } );\n"
               "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"];\n"
               "  law = \"%s\"; k = 2.385e9; alpha = 1.5; e = %.17g;\n"
               "  scheme = \"%s\"; } );\n", cases[i].law, cases[i].e, schemes[j]);
      tu_sim sim = tu_run_text(text);
      const vb_contact_result *r = vb_run_contact(sim.run, 0);
      ck_assert_int_eq(sim.rc, VB_OK);
      ck_assert_msg(r->nevents == 1, "%s %s: %ld events", cases[i].law, schemes[j],
                    r->nevents);
      const vb_event *ev = &r->events[0];
      double e_sim = -ev->v_out / ev->v_in, e_pred = -ev->v_out_exact / ev->v_in;
      ck_assert_msg(fabs(e_sim - e_pred) <= 2e-4, "%s e %g %s: delivered %.6f, eq 6 %.6f",
                    cases[i].law, cases[i].e, schemes[j], e_sim, e_pred);
      ck_assert_msg(fabs(e_sim - cases[i].e) <= cases[i].within,
                    "%s e %g %s: delivered %.6f", cases[i].law, cases[i].e, schemes[j], e_sim);
      tu_free(&sim);
    }
}
END_TEST

/* The library's one message helper: formats, truncates safely, tolerates
 * no buffer, and returns the status it is given. */
START_TEST(test_errf)
{
  char err[16];
  memset(err, 'x', sizeof err);
  ck_assert_int_eq(vb_errf(err, sizeof err, VB_ENOMEM, "%s:%d: %s", "scene.cfg", 17,
                           "out of memory"), VB_ENOMEM);
  ck_assert_str_eq(err, "scene.cfg:17: o");
  ck_assert_int_eq(vb_errf(err, 4, VB_EINVAL, "%d", 123456), VB_EINVAL);
  ck_assert_str_eq(err, "123");
  ck_assert_int_eq(vb_errf(NULL, 100, VB_EIO, "%s", "x"), VB_EIO);
  ck_assert_int_eq(vb_errf(err, 0, VB_OK, "%s", "y"), VB_OK);
  ck_assert_str_eq(err, "123");
}
END_TEST

/* Its keep-first entry writes into an empty buffer only: the innermost
 * failure's message survives the callers' own. */
START_TEST(test_errf_first)
{
  char err[32] = "";
  ck_assert_int_eq(vb_errf_first(err, sizeof err, VB_EIO, "cannot write %s", "x.h5"), VB_EIO);
  ck_assert_str_eq(err, "cannot write x.h5");
  ck_assert_int_eq(vb_errf_first(err, sizeof err, VB_ENOMEM, "out of memory"), VB_ENOMEM);
  ck_assert_str_eq(err, "cannot write x.h5");
  ck_assert_int_eq(vb_errf_first(NULL, 8, VB_EINVAL, "%s", "y"), VB_EINVAL);
  err[0] = '\0';
  ck_assert_int_eq(vb_errf_first(err, 6, VB_EINVAL, "%d", 1234567), VB_EINVAL);
  ck_assert_str_eq(err, "12345");
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
  tcase_add_loop_test(core, test_gradient_pair, 0, NLAWS);
  tcase_add_test(core, test_one_sided);
  tcase_add_test(core, test_restitution_laws);
  tcase_add_test(core, test_restitution_events);
  tcase_add_loop_test(core, test_law_rows_run, 0, VB_LAW_COUNT);
  tcase_set_timeout(core, 60);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 60);
  tcase_add_test(errors, test_law_lookup);
  tcase_add_test(errors, test_strerror);
  tcase_add_test(errors, test_errf);
  tcase_add_test(errors, test_errf_first);
  tcase_add_test(errors, test_law_table);
  tcase_add_loop_test(errors, test_law_facts, 0, VB_LAW_COUNT);
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(law_suite());
}
