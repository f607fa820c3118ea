/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP schedulers (lib/mp_sched.c; RFC 9897 §3.11, §3.2.10
 * MP_PRIO classes): min-RTT, active-backup, round-robin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mp_sched.h"

#define MS UDCCP_NS_PER_MS

static udccp_mp_path_view pv(udccp_tstamp srtt, int can, uint8_t prio) {
  udccp_mp_path_view v;
  memset(&v, 0, sizeof(v));
  v.srtt = srtt;
  v.up = 1;
  v.can_send = (uint8_t)can;
  v.prio = prio;
  return v;
}

/* The fastest path with room; the slower one takes the overflow. */
static void test_minrtt_fastest_with_room(void **state) {
  udccp_mp_path_view p[3];
  (void)state;
  p[0] = pv(40 * MS, 1, 3);
  p[1] = pv(10 * MS, 1, 3);
  p[2] = pv(0, 1, 3); /* not measured yet */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 1);
  p[1].can_send = 0;
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 0);
  p[0].can_send = 0;
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 2);
  p[2].can_send = 0;
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), -1);
  p[1].can_send = 1;
  p[1].up = 0; /* down paths are never chosen */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), -1);
}

/* §3.2.10: 0 never; secondary only when the primaries cannot take it;
 * standby only when no primary or secondary is established. */
static void test_rfc9897_3_2_10_minrtt_prio_classes(void **state) {
  udccp_mp_path_view p[3];
  (void)state;
  p[0] = pv(50 * MS, 1, 3);  /* primary, slow */
  p[1] = pv(5 * MS, 1, 2);   /* secondary, fast */
  p[2] = pv(1 * MS, 1, 1);   /* standby, fastest */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 0);
  p[0].can_send = 0;         /* primary congested: overflow */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 1);
  p[1].can_send = 0;         /* standby still not used: others are up */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), -1);
  p[0].up = 0;
  p[1].up = 0;
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), 2);
  p[2].prio = 0;             /* "Do not use" */
  assert_int_equal(udccp_mp_sched_minrtt(p, 3), -1);
}

/* §3.11.1, §3.2.10: path mobility uses only the highest-priority path,
 * standby and secondary included. */
static void test_rfc9897_3_11_1_backup(void **state) {
  udccp_mp_path_view p[2];
  (void)state;
  p[0] = pv(10 * MS, 1, 5);
  p[1] = pv(5 * MS, 1, 3);
  assert_int_equal(udccp_mp_sched_backup(p, 2), 0);
  p[0].can_send = 0; /* no overflow onto the backup */
  assert_int_equal(udccp_mp_sched_backup(p, 2), -1);
  p[0].up = 0;       /* handover */
  assert_int_equal(udccp_mp_sched_backup(p, 2), 1);
  p[1].prio = 1;     /* a standby path is used when it is all there is */
  assert_int_equal(udccp_mp_sched_backup(p, 2), 1);
  p[1].prio = 0;
  assert_int_equal(udccp_mp_sched_backup(p, 2), -1);
}

static void test_rr(void **state) {
  udccp_mp_path_view p[3];
  size_t last = 2;
  (void)state;
  p[0] = pv(10 * MS, 1, 3);
  p[1] = pv(10 * MS, 0, 3);
  p[2] = pv(10 * MS, 1, 3);
  assert_int_equal(udccp_mp_sched_rr(p, 3, &last), 0);
  assert_int_equal(udccp_mp_sched_rr(p, 3, &last), 2);
  assert_int_equal(udccp_mp_sched_rr(p, 3, &last), 0);
  p[0].can_send = p[2].can_send = 0;
  assert_int_equal(udccp_mp_sched_rr(p, 3, &last), -1);
}

/* Redundant: every usable path of the classes in use, once all of them
 * have room; a path down or of priority 0 is left out; standby paths only
 * when no primary or secondary path is up (§3.2.10). */
static void test_redundant_every_path_at_once(void **state) {
  udccp_mp_path_view p[4];
  size_t out[4];
  (void)state;
  p[0] = pv(40 * MS, 1, 3);
  p[1] = pv(10 * MS, 1, 3);
  p[2] = pv(0, 1, 2);
  p[3] = pv(5 * MS, 1, 0); /* never */
  assert_int_equal(udccp_mp_sched_redundant(p, 4, out), 3);
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 1);
  assert_int_equal(out[2], 2);
  p[1].can_send = 0; /* one without room: all wait */
  assert_int_equal(udccp_mp_sched_redundant(p, 4, out), 0);
  p[1].up = 0; /* down (or dead): no longer waited for */
  p[2].up = 0;
  assert_int_equal(udccp_mp_sched_redundant(p, 4, out), 1);
  assert_int_equal(out[0], 0);
  p[3].prio = 1; /* standby: not while a primary is up */
  assert_int_equal(udccp_mp_sched_redundant(p, 4, out), 1);
  p[0].up = 0;
  assert_int_equal(udccp_mp_sched_redundant(p, 4, out), 1);
  assert_int_equal(out[0], 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_minrtt_fastest_with_room),
      cmocka_unit_test(test_rfc9897_3_2_10_minrtt_prio_classes),
      cmocka_unit_test(test_rfc9897_3_11_1_backup),
      cmocka_unit_test(test_rr),
      cmocka_unit_test(test_redundant_every_path_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
