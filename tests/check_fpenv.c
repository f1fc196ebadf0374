/* check_fpenv.c - subnormals flushed while a run steps (lib/fpenv.c,
 * vb_run_keep_subnormals): the caller's MXCSR is given back, in every
 * thread that runs a scene, and a long ring-down records the same bits with
 * the flush as without it. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include "testutil.h"
#include "ringdown_scene.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#define FTZ 0x8000u
#define DAZ 0x0040u
#define FLAGS 0x003fu /* the exception flags a run may raise */
#else
#define HAVE_MXCSR 0
#endif

/* Load the ring-down and allocate its run; keep as vb_run_keep_subnormals. */
static tu_sim
ringdown(int nm, double duration, const char *record, int keep)
{
  tu_sim s = {NULL, NULL, 0};
  char err[1024];
  char *text = ringdown_scene(nm, duration, record);
  int rc = vb_scene_load_string(text, "ringdown.cfg", &s.scene, err, sizeof err);
  free(text);
  ck_assert_msg(rc == VB_OK, "scene did not load: %s", err);
  rc = vb_run_alloc(s.scene, &s.run, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "run did not allocate: %s", err);
  vb_run_keep_subnormals(s.run, keep);
  return s;
}

/* Subnormal values among n. */
static long
subnormals(const double *x, long n)
{
  long k = 0;
  for (long i = 0; i < n; i++)
    k += fpclassify(x[i]) == FP_SUBNORMAL;
  return k;
}

/* ------------------------------------------------------------------ core */

#if HAVE_MXCSR
/* The caller's FTZ/DAZ bits, whatever they are, come back from the run;
 * with keep the run leaves them as they were; the rounding mode and the
 * masks are never touched. */
static const unsigned int caller_bits[] = {0u, FTZ, DAZ, FTZ | DAZ};

START_TEST(test_restores_caller)
{
  unsigned int start = _mm_getcsr();
  unsigned int mine = (0x1f80u | caller_bits[_i]) & ~FLAGS;
  for (int keep = 0; keep < 2; keep++) {
    _mm_setcsr(mine);
    tu_sim s = ringdown(24, 0.0213, "every = 1;", keep);
    ck_assert_int_eq(vb_run_exec(s.run), VB_OK);
    unsigned int after = _mm_getcsr();
    ck_assert_msg((after & ~FLAGS) == mine, "caller 0x%04x keep %d: MXCSR 0x%04x after the run",
                  mine, keep, after);
    tu_free(&s);
  }
  _mm_setcsr(start);
}
END_TEST

/* A thread that sets its own caller bits, runs the ring-down past the
 * point where its modes turn subnormal, and says what it found. */
typedef struct {
  unsigned int mine;  /* the thread's MXCSR before the run */
  unsigned int after; /* and after */
  long subnormal;     /* subnormal modal displacements in the recording */
  int rc;
} thread_job;

static void *
thread_main(void *arg)
{
  thread_job *job = arg;
  _mm_setcsr(job->mine);
  tu_sim s = ringdown(100, 9.0, "every = 4410; modes = true;", 0);
  job->rc = vb_run_exec(s.run);
  job->after = _mm_getcsr();
  job->subnormal = subnormals(vb_run_modes_q(s.run, 0), 100 * vb_run_samples(s.run));
  tu_free(&s);
  return NULL;
}

/* MXCSR is per thread: two threads with different settings each flush
 * while they step (no subnormal reaches the recording) and each gets its
 * own bits back. */
START_TEST(test_per_thread)
{
  thread_job job[2] = {{.mine = 0x1f80u}, {.mine = 0x1f80u | FTZ}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &job[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(job[i].rc, VB_OK);
    ck_assert_msg((job[i].after & ~FLAGS) == job[i].mine, "thread %d: 0x%04x before, 0x%04x after",
                  i, job[i].mine, job[i].after);
    ck_assert_int_eq(job[i].subnormal, 0);
  }
}
END_TEST
#endif

/* A 9 s ring-down whose modal displacements turn subnormal (kept, they
 * are there in the recording; flushed, they are 0): every recorded energy,
 * point displacement and force is bitwise the same, and the modal
 * displacements differ only in modes already within a few orders of
 * magnitude of the subnormals (a mode flushed to 0 rings on at about
 * DBL_MIN from there: 1.9e-307 flushed against -1.6e-308 kept). */
START_TEST(test_ringdown_equal)
{
  static const char *const fine = "every = 1; signals = [\"energy/*\", \"bodies/*/*/u\", "
                                  "\"bodies/*/u\", \"contacts/*/force\"];";
  static const char *const coarse = "every = 4410; modes = true;";
#if HAVE_MXCSR
  unsigned int start = _mm_getcsr();
  _mm_setcsr(0x1f80u); /* the kept run keeps them */
#endif
  tu_sim keep = ringdown(100, 9.0, fine, 1), flush = ringdown(100, 9.0, fine, 0);
  ck_assert_int_eq(vb_run_exec(keep.run), VB_OK);
  ck_assert_int_eq(vb_run_exec(flush.run), VB_OK);
  long ns = vb_run_samples(keep.run), compared = 0;
  ck_assert_int_eq(ns, 396901);
  for (int w = 0; w < VB_ENERGY_COUNT; w++) {
    const double *a = vb_run_energy(keep.run, w), *b = vb_run_energy(flush.run, w);
    ck_assert(a != NULL && b != NULL);
    ck_assert_msg(memcmp(a, b, ns * sizeof *a) == 0, "energy %d differs", w);
    compared++;
  }
  for (int p = 0; p < 2; p++) {
    const double *a = vb_run_point_u(keep.run, 0, p), *b = vb_run_point_u(flush.run, 0, p);
    ck_assert(a != NULL && b != NULL);
    ck_assert_msg(memcmp(a, b, ns * sizeof *a) == 0, "point %d's u differs", p);
    compared++;
  }
  const double *a = vb_run_body_u(keep.run, 1), *b = vb_run_body_u(flush.run, 1);
  ck_assert(a != NULL && b != NULL);
  ck_assert(memcmp(a, b, ns * sizeof *a) == 0);
  const vb_contact_result *ca = vb_run_contact(keep.run, 0), *cb = vb_run_contact(flush.run, 0);
  ck_assert(ca->force != NULL && cb->force != NULL);
  ck_assert(memcmp(ca->force, cb->force, ns * sizeof *a) == 0);
  ck_assert_int_eq(ca->nevents, cb->nevents);
  ck_assert_int_ge(ca->nevents, 1);
  for (long k = 0; k < ca->nevents; k++) {
    const vb_event *ea = &ca->events[k], *eb = &cb->events[k];
    const double fa[] = {ea->t_on, ea->t_off, ea->v_in, ea->v_out, ea->x_max, ea->peak_force,
                         ea->energy_before, ea->energy_after};
    const double fb[] = {eb->t_on, eb->t_off, eb->v_in, eb->v_out, eb->x_max, eb->peak_force,
                         eb->energy_before, eb->energy_after};
    ck_assert_msg(memcmp(fa, fb, sizeof fa) == 0, "impact %ld differs", k);
  }
  ck_assert_int_eq(compared, VB_ENERGY_COUNT + 2);
  tu_free(&keep);
  tu_free(&flush);

  /* the same run seen through its modes, once every 0.1 s */
  keep = ringdown(100, 9.0, coarse, 1);
  flush = ringdown(100, 9.0, coarse, 0);
  ck_assert_int_eq(vb_run_exec(keep.run), VB_OK);
  ck_assert_int_eq(vb_run_exec(flush.run), VB_OK);
  ns = vb_run_samples(keep.run);
  const double *qa = vb_run_modes_q(keep.run, 0), *qb = vb_run_modes_q(flush.run, 0);
  long kept = subnormals(qa, 100 * ns), differ = 0;
  ck_assert_msg(kept > 0, "no mode turned subnormal: the test proves nothing");
  ck_assert_int_eq(subnormals(qb, 100 * ns), 0);
  for (long i = 0; i < 100 * ns; i++)
    if (memcmp(&qa[i], &qb[i], sizeof qa[i]) != 0) {
      differ++;
      ck_assert_msg(fabs(qa[i]) < 1e4 * DBL_MIN && fabs(qb[i]) < 1e4 * DBL_MIN,
                    "q[%ld]: %.17g kept, %.17g flushed", i, qa[i], qb[i]);
    }
  ck_assert(differ > 0);
  tu_free(&keep);
  tu_free(&flush);
#if HAVE_MXCSR
  _mm_setcsr(start);
#endif
}
END_TEST

static Suite *
fpenv_suite(void)
{
  Suite *s = suite_create("fpenv");
  TCase *core = tcase_create("core");
  tcase_set_timeout(core, 60);
#if HAVE_MXCSR
  tcase_add_loop_test(core, test_restores_caller, 0, 4);
  tcase_add_test(core, test_per_thread);
#endif
  tcase_add_test(core, test_ringdown_equal);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(fpenv_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
