/* SPDX-License-Identifier: MIT */
/*
 * Keepalive (lib/conn_timer.c, udccp_settings keepalive_*): DCCP has none;
 * idle OPEN connections probe their peer with a Sync, whose SyncAck (RFC
 * 4340 §7.5.4) proves it alive, and a peer silent through every probe is
 * reaped with a Reset (Aborted) and UDCCP_ERR_TIMEOUT.  Over the pair, in
 * virtual time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void open_pair(udccp_pair *p, const udccp_settings *cs,
                      const udccp_settings *ss, uint64_t seed) {
  assert_int_equal(udccp_pair_init(p, cs, ss, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(p, 1 * S); /* the handshake's last acks settle */
}

/* Steps until virtual time t (absolute). */
static void run_to(udccp_pair *p, udccp_tstamp t) {
  if (t > p->now) {
    udccp_pair_run_for(p, t - p->now);
  }
}

static void test_keepalive_defaults_documented(void **state) {
  udccp_settings s;
  (void)state;
  udccp_settings_default(&s);
  assert_int_equal(s.keepalive_idle, 60 * S);
  assert_int_equal(s.keepalive_interval, 10 * S);
  assert_int_equal(s.keepalive_probes, 3);
}

/* A peer that vanished (both directions dead) is reaped keepalive_idle +
 * probes x interval after the last packet it sent: 90 s with the
 * defaults, three Syncs in between. */
static void test_rfc4340_7_5_4_silent_peer_reaped_within_bound(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  udccp_tstamp last, bound;
  uint64_t syncs0;
  (void)state;
  memset(&p, 0, sizeof(p));
  open_pair(&p, NULL, NULL, 21);
  p.loss[0] = p.loss[1] = 1.0; /* the server host is gone */
  last = p.c[0]->t_last_rx;
  syncs0 = udccp_pair_count(&p, 0, UDCCP_PKT_SYNC);
  bound = 60 * S + 3 * 10 * S;
  run_to(&p, last + bound - 1 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) - syncs0, 3);
  run_to(&p, last + bound + 1 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_ABORTED);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 1);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.keepalive_probes, 3);
  assert_int_equal(ci.keepalive_timeouts, 1);
  printf("silent peer reaped %.3f s after its last packet (bound %.0f s)\n",
         (double)(p.now - last) / 1e9, (double)bound / 1e9);
  udccp_pair_free(&p);
}

/* Probing costs no memory: an idle connection whose peer vanished holds
 * the same heap while it sends its three Syncs (issue 12: 10,000 silent
 * connections under probe held 10.6 KB each, the CCID 2 history grown
 * from 1 entry to 256 for a non-data packet). */
static void test_keepalive_probes_do_not_grow_memory(void **state) {
  udccp_pair p;
  udccp_conn_info before, ci;
  (void)state;
  memset(&p, 0, sizeof(p));
  open_pair(&p, NULL, NULL, 23);
  udccp_conn_get_info(p.c[1], &before);
  p.loss[0] = p.loss[1] = 1.0;
  run_to(&p, p.c[1]->t_last_rx + 60 * S + 3 * 10 * S - 1 * MS);
  udccp_conn_get_info(p.c[1], &ci);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  assert_int_equal(ci.keepalive_probes, 3);
  assert_true(ci.mem_bytes <= before.mem_bytes);
  udccp_pair_free(&p);
}

/* Custom settings: 5 s idle, 1 s apart, 2 probes: reaped after 7 s. */
static void test_keepalive_settings_bound(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_tstamp last;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.keepalive_idle = 5 * S;
  cs.keepalive_interval = 1 * S;
  cs.keepalive_probes = 2;
  open_pair(&p, &cs, NULL, 22);
  p.loss[1] = 1.0; /* the server's packets no longer arrive */
  last = p.c[0]->t_last_rx;
  run_to(&p, last + 7 * S - 1 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  run_to(&p, last + 7 * S + 1 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  udccp_pair_free(&p);
}

/* A live peer that sends nothing is probed, answers with SyncAcks, and is
 * never reaped: an hour of idleness. */
static void test_rfc4340_7_5_4_live_idle_peer_never_reaped(void **state) {
  udccp_pair p;
  (void)state;
  memset(&p, 0, sizeof(p));
  open_pair(&p, NULL, NULL, 23);
  udccp_pair_run_for(&p, 3600 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) +
                  udccp_pair_count(&p, 1, UDCCP_PKT_SYNC) >= 50);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNCACK) +
                  udccp_pair_count(&p, 1, UDCCP_PKT_SYNCACK) >= 50);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 0);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 0);
  udccp_pair_free(&p);
}

static int two_probes_unanswered(udccp_pair *p, void *ud) {
  (void)ud;
  return p->c[0]->ka_base == p->c[0]->t_last_rx && p->c[0]->ka_probes >= 2;
}

/* A peer silent through two probes (80 s: idle + one interval, and more)
 * that then answers the third is kept, and the probe count starts again:
 * it may do so any number of times. */
static void test_keepalive_late_answer_restarts_count(void **state) {
  udccp_pair p;
  int round;
  (void)state;
  memset(&p, 0, sizeof(p));
  open_pair(&p, NULL, NULL, 24);
  for (round = 0; round < 4; round++) {
    p.loss[1] = 1.0;
    assert_true(udccp_pair_run_until(&p, two_probes_unanswered, NULL,
                                     200 * S));
    p.loss[1] = 0.0;
    udccp_pair_run_for(&p, 15 * S); /* the peer is heard again */
    assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  }
  /* two unanswered probes a round; the third may be spared when the
   * server's own probe reaches the client first */
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) >= 4 * 2);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 0);
  udccp_pair_free(&p);
}

/* keepalive_idle = 0 turns it off: a dead peer then holds the connection
 * OPEN (as before keepalives existed), and no Sync is sent. */
static void test_keepalive_off_switch(void **state) {
  udccp_pair p;
  udccp_settings cs, ss;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.keepalive_idle = 0;
  ss = cs;
  open_pair(&p, &cs, &ss, 25);
  p.loss[0] = p.loss[1] = 1.0;
  udccp_pair_run_for(&p, 3600 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC), 0);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_SYNC), 0);
  assert_int_equal(udccp_conn_get_expiry(p.c[0]), UDCCP_TSTAMP_NEVER);
  udccp_pair_free(&p);
}

/* Data and its acks reset the idle clock: a datagram every 30 s for ten
 * minutes draws no probe in either direction; once it stops, probes come
 * 60 s later. */
static void test_keepalive_traffic_resets_idle_clock(void **state) {
  udccp_pair p;
  uint8_t buf[100];
  udccp_tstamp stop;
  int i;
  (void)state;
  memset(&p, 0, sizeof(p));
  memset(buf, 'k', sizeof(buf));
  open_pair(&p, NULL, NULL, 26);
  for (i = 0; i < 20; i++) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, sizeof(buf), 0,
                                               p.now),
                     0);
    udccp_pair_run_for(&p, 30 * S);
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    }
  }
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC), 0);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_SYNC), 0);
  stop = p.now;
  udccp_pair_run_for(&p, 65 * S);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) +
                  udccp_pair_count(&p, 1, UDCCP_PKT_SYNC) > 0);
  assert_true(p.now - stop >= 60 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

/* Settings checks: on needs an interval and 1..255 probes. */
static void test_keepalive_settings_checked(void **state) {
  udccp_settings s;
  udccp_pair p;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &s);
  assert_int_equal(udccp_settings_check(&s), 0);
  s.keepalive_interval = 0;
  assert_int_equal(udccp_settings_check(&s), UDCCP_ERR_INVALID_ARGUMENT);
  s.keepalive_interval = S;
  s.keepalive_probes = 0;
  assert_int_equal(udccp_settings_check(&s), UDCCP_ERR_INVALID_ARGUMENT);
  s.keepalive_probes = 256;
  assert_int_equal(udccp_settings_check(&s), UDCCP_ERR_INVALID_ARGUMENT);
  s.keepalive_idle = 0; /* off: the others do not matter */
  assert_int_equal(udccp_settings_check(&s), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keepalive_defaults_documented),
      cmocka_unit_test(test_rfc4340_7_5_4_silent_peer_reaped_within_bound),
      cmocka_unit_test(test_keepalive_settings_bound),
      cmocka_unit_test(test_keepalive_probes_do_not_grow_memory),
      cmocka_unit_test(test_rfc4340_7_5_4_live_idle_peer_never_reaped),
      cmocka_unit_test(test_keepalive_late_answer_restarts_count),
      cmocka_unit_test(test_keepalive_off_switch),
      cmocka_unit_test(test_keepalive_traffic_resets_idle_clock),
      cmocka_unit_test(test_keepalive_settings_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
