/* SPDX-License-Identifier: MIT */
/*
 * ECN (RFC 4340 §12, RFC 4341 §7) through the connection: ECT only once
 * negotiated, random ECN nonces on data packets, the Nonce Echo in Ack
 * Vectors checked by the CCID 2 sender, CE marks as congestion without
 * loss, and a receiver that conceals marks caught by its wrong echoes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

typedef struct ecn_tap {
  uint64_t seen[4];    /* data packets client -> server, per codepoint */
  uint64_t nondata[4]; /* other packets client -> server */
  uint64_t n_data;
  int mark_every;      /* mark every n-th ECT data packet CE; 0: never */
  int conceal;         /* a receiver that hides marks: CE becomes ECT(0) */
} ecn_tap;

static int pkt_type(const uint8_t *pkt, size_t len) {
  return len >= 9 ? (pkt[8] >> 1) & 0xF : -1;
}

static void tap(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                uint8_t *ecn, void *ud) {
  ecn_tap *t = ud;
  int type = pkt_type(pkt, len);
  (void)p;
  if (dir != 0) {
    return;
  }
  if (type != UDCCP_PKT_DATA && type != UDCCP_PKT_DATAACK) {
    t->nondata[*ecn & 3]++;
    return;
  }
  t->seen[*ecn & 3]++;
  t->n_data++;
  if (t->mark_every > 0 && (*ecn == 1 || *ecn == 2) &&
      t->n_data % (uint64_t)t->mark_every == 0) {
    *ecn = 3;
  }
  if (t->conceal && *ecn == 3) {
    *ecn = 2; /* the receiver reports "received, not marked" */
  }
}

static void run_transfer(udccp_pair *p, ecn_tap *t, int client_ecn,
                         uint64_t seed, int n) {
  udccp_settings cs, ss;
  uint8_t buf[1000];
  int i, got = 0;
  memset(p, 0, sizeof(*p));
  udccp_pair_settings(p, &cs);
  udccp_pair_settings(p, &ss);
  cs.ecn_capable = (uint8_t)client_ecn;
  ss.ecn_capable = 1;
  assert_int_equal(udccp_pair_init(p, &cs, &ss, NULL, seed), 0);
  p->ecn_fn = tap;
  p->ecn_ud = t;
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  memset(buf, 0x5a, sizeof(buf));
  for (i = 0; i < n; ++i) {
    while (udccp_conn_queue_datagram(p->c[0], buf, sizeof(buf), 0, p->now) !=
           0) {
      udccp_pair_run_for(p, 1 * MS);
    }
    if (i % 8 == 0) {
      udccp_pair_run_for(p, 1 * MS);
    }
    while (udccp_conn_read_datagram(p->c[1], buf, sizeof(buf)) > 0) {
      got++;
    }
  }
  udccp_pair_run_for(p, 2 * S);
  while (udccp_conn_read_datagram(p->c[1], buf, sizeof(buf)) > 0) {
    got++;
  }
  assert_int_equal(got, n); /* ECN marks lose nothing */
}

/* §12.2 SHOULD, RFC 4341 §7: data packets carry random nonces, ECT(0) and
 * ECT(1); the receiver's Nonce Echo checks out. */
static void test_rfc4340_12_2_nonces_random_and_echo_checked(void **state) {
  udccp_pair p;
  ecn_tap t;
  udccp_conn_info ci;
  (void)state;
  memset(&t, 0, sizeof(t));
  run_transfer(&p, &t, 1, 1, 2000);
  assert_true(t.seen[1] > 600 && t.seen[2] > 600); /* about half each */
  assert_int_equal(t.seen[0], 0);
  assert_int_equal(t.seen[3], 0);
  assert_int_equal(t.nondata[1], 0); /* no nonce on non-data packets */
  udccp_conn_get_info(p.c[0], &ci);
  assert_true(ci.nonce_checks > 20);
  assert_int_equal(ci.nonce_mismatches, 0);
  assert_int_equal(ci.ecn_marks, 0);
  udccp_pair_free(&p);
}

/* §12.1: an endpoint that did not agree to ECN sends Not-ECT. */
static void test_rfc4340_12_1_not_ect_unless_negotiated(void **state) {
  udccp_pair p;
  ecn_tap t;
  (void)state;
  memset(&t, 0, sizeof(t));
  run_transfer(&p, &t, 0, 2, 300);
  assert_int_equal(t.seen[0], t.n_data);
  assert_int_equal(t.nondata[1] + t.nondata[2] + t.nondata[3], 0);
  udccp_pair_free(&p);
}

/* RFC 3540 §2: a Not-ECT packet carries no nonce, so a sender without
 * ECN keeps no nonce record (issue 13): its heap is an ECN sender's less
 * the 8 KiB bitmap of 2^16 nonces, and it checks no echo. */
static void test_rfc4340_12_2_no_nonce_record_without_ecn(void **state) {
  udccp_pair on, off;
  ecn_tap t_on, t_off;
  udccp_conn_info ci_on, ci_off;
  (void)state;
  memset(&t_on, 0, sizeof(t_on));
  memset(&t_off, 0, sizeof(t_off));
  run_transfer(&on, &t_on, 1, 3, 2000);
  run_transfer(&off, &t_off, 0, 3, 2000);
  udccp_conn_get_info(on.c[0], &ci_on);
  udccp_conn_get_info(off.c[0], &ci_off);
  print_message("sender heap: ECN %llu B, no ECN %llu B\n",
                (unsigned long long)ci_on.mem_bytes,
                (unsigned long long)ci_off.mem_bytes);
  assert_true(ci_on.nonce_checks > 0);
  assert_int_equal(ci_off.nonce_checks, 0);
  assert_true(ci_on.mem_bytes >= ci_off.mem_bytes + 8192);
  udccp_pair_free(&on);
  udccp_pair_free(&off);
}

/* RFC 4341 §5, §7: a CE mark reported in state 1 is a congestion event:
 * the window shrinks although nothing is lost. */
static void test_rfc4341_7_ce_mark_is_congestion_without_loss(void **state) {
  udccp_pair p, q;
  ecn_tap t, u;
  udccp_conn_info marked, clean;
  (void)state;
  memset(&t, 0, sizeof(t));
  t.mark_every = 50;
  run_transfer(&p, &t, 1, 3, 2000);
  memset(&u, 0, sizeof(u));
  run_transfer(&q, &u, 1, 3, 2000);
  udccp_conn_get_info(p.c[0], &marked);
  udccp_conn_get_info(q.c[0], &clean);
  assert_true(marked.ecn_marks >= 30);
  assert_int_equal(marked.pkts_lost, 0);
  assert_int_equal(marked.nonce_mismatches, 0); /* marks are honest */
  assert_true(marked.ssthresh < clean.ssthresh);
  udccp_pair_free(&p);
  udccp_pair_free(&q);
}

/* §12.2, §12.3: a receiver that reports marked packets as unmarked gets
 * the Nonce Echo wrong about half the time; the sender responds as to a
 * mark. */
static void test_rfc4340_12_3_concealed_marks_caught_by_nonce(void **state) {
  udccp_pair p;
  ecn_tap t;
  udccp_conn_info ci;
  (void)state;
  memset(&t, 0, sizeof(t));
  t.mark_every = 50;
  t.conceal = 1;
  run_transfer(&p, &t, 1, 4, 2000);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.ecn_marks, 0); /* nothing reported marked ... */
  assert_true(ci.nonce_mismatches > 0); /* ... but the echo gives it away */
  assert_true(ci.ssthresh < UINT32_MAX); /* and the window was cut */
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_12_2_nonces_random_and_echo_checked),
      cmocka_unit_test(test_rfc4340_12_2_no_nonce_record_without_ecn),
      cmocka_unit_test(test_rfc4340_12_1_not_ect_unless_negotiated),
      cmocka_unit_test(test_rfc4341_7_ce_mark_is_congestion_without_loss),
      cmocka_unit_test(test_rfc4340_12_3_concealed_marks_caught_by_nonce),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
