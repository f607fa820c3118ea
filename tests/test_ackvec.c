/* SPDX-License-Identifier: MIT */
/*
 * Ack Vector (lib/ackvec.h): RFC 4340 §11.4 encoding and decoding,
 * Appendix A receiver buffer (gaps, late arrivals, duplicates, growth,
 * clearing state on acks of acks), 48-bit wraparound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ackvec.h"
#include "seq.h"

/* What udccp_ackvec_parse reported, as one state per packet below ackno:
 * st[i] is the state of ackno - i; 0xFF = not covered. */
#define MAXCOV 70000
typedef struct seen {
  uint64_t ackno;
  size_t n;           /* packets covered */
  size_t runs;
  uint8_t st[MAXCOV];
  int stop_after;     /* stop the walk after this many runs (0: never) */
} seen;

static int seen_cb(uint64_t hi, uint64_t lo, uint8_t state, void *ud) {
  seen *s = ud;
  uint64_t q;
  assert_true(udccp_seq_ge(hi, lo));
  for (q = hi;; q = udccp_seq_add(q, -1)) {
    size_t i = (size_t)udccp_seq_sub(s->ackno, q);
    if (i >= MAXCOV) { /* (also tells the optimiser st[i] is in bounds) */
      fail_msg("run reaches %zu packets back", i);
      return 1;
    }
    assert_int_equal(i, s->n); /* runs are contiguous, newest first */
    s->st[i] = state;
    s->n++;
    if (q == lo) {
      break;
    }
  }
  s->runs++;
  return s->stop_after && s->runs >= (size_t)s->stop_after;
}

/* Writes the ack vector of av into options, parses them back as the peer
 * would (udccp_opts_parse on a DCCP-Ack) and walks them. */
static udccp_optbuf g_ob;
static udccp_opts g_opts;
static seen g_seen;

static seen *roundtrip(udccp_ackvec *av, uint64_t pkt_seq) {
  udccp_optbuf_init(&g_ob);
  assert_int_equal(udccp_ackvec_write(av, &g_ob, pkt_seq), 0);
  assert_int_equal(udccp_opts_parse(&g_opts, UDCCP_PKT_ACK, g_ob.buf, g_ob.len),
                   0);
  memset(&g_seen, 0, sizeof(g_seen));
  g_seen.ackno = av->head;
  assert_int_equal(udccp_ackvec_parse(&g_opts, av->head, seen_cb, &g_seen), 0);
  return &g_seen;
}

static void init_av(udccp_ackvec *av, size_t cap) {
  assert_int_equal(udccp_ackvec_init(av, NULL, cap), 0);
}

static void test_rfc4340_11_4_in_order_single_run(void **state) {
  udccp_ackvec av;
  uint64_t q;
  seen *s;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 10; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  s = roundtrip(&av, 1000);
  /* One option: type 38, length 3, one byte State 0 Run Length 9. */
  assert_int_equal(g_ob.len, 3);
  assert_int_equal(g_ob.buf[0], UDCCP_OPT_ACK_VECTOR_0);
  assert_int_equal(g_ob.buf[1], 3);
  assert_int_equal(g_ob.buf[2], 9);
  assert_int_equal(s->n, 10);
  assert_int_equal(s->runs, 1);
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);
  udccp_ackvec_free(&av);
}

static void test_rfc4340_11_4_gap_becomes_not_received(void **state) {
  udccp_ackvec av;
  seen *s;
  (void)state;
  init_av(&av, 64);
  assert_int_equal(udccp_ackvec_record(&av, 1, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 2, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 5, UDCCP_AV_ECN_MARKED), 0);
  s = roundtrip(&av, 7);
  /* 5 marked, 4..3 not received, 2..1 received. */
  assert_int_equal(g_ob.buf[1], 5);
  assert_int_equal(g_ob.buf[2], 0x40);
  assert_int_equal(g_ob.buf[3], 0xC1);
  assert_int_equal(g_ob.buf[4], 0x01);
  assert_int_equal(s->n, 5);
  assert_int_equal(s->st[0], UDCCP_AV_ECN_MARKED);
  assert_int_equal(s->st[1], UDCCP_AV_NOT_RECEIVED);
  assert_int_equal(s->st[2], UDCCP_AV_NOT_RECEIVED);
  assert_int_equal(s->st[3], UDCCP_AV_RECEIVED);
  assert_int_equal(s->st[4], UDCCP_AV_RECEIVED);
  udccp_ackvec_free(&av);
}

/* The worked example of §11.4: 0,192,3,64,5 with Ack Number 100. */
static void test_rfc4340_11_4_example_vector_decoding(void **state) {
  static const uint8_t vec[] = {0, 192, 3, 64, 5};
  udccp_optbuf ob;
  udccp_opts opts;
  seen *s = &g_seen;
  size_t i;
  (void)state;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_0, 0, vec, 5), 0);
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  memset(s, 0, sizeof(*s));
  s->ackno = 100;
  assert_int_equal(udccp_ackvec_parse(&opts, 100, seen_cb, s), 0);
  assert_int_equal(s->n, 13); /* 100 down to 88 */
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);     /* 100 */
  assert_int_equal(s->st[1], UDCCP_AV_NOT_RECEIVED); /* 99 */
  for (i = 2; i <= 5; i++) {
    assert_int_equal(s->st[i], UDCCP_AV_RECEIVED); /* 98..95 */
  }
  assert_int_equal(s->st[6], UDCCP_AV_ECN_MARKED); /* 94 */
  for (i = 7; i <= 12; i++) {
    assert_int_equal(s->st[i], UDCCP_AV_RECEIVED); /* 93..88 */
  }
}

/* Run Length is 6 bits: 130 packets need runs of 64, 64 and 2. */
static void test_rfc4340_11_4_run_length_split_at_64(void **state) {
  udccp_ackvec av;
  uint64_t q;
  seen *s;
  (void)state;
  init_av(&av, 64);
  for (q = 1000; q < 1130; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  s = roundtrip(&av, 1);
  /* 130 packets need three bytes of at most 64 each (run length 63);
   * where the short run goes is the encoder's choice. */
  assert_int_equal(g_ob.buf[1], 5);
  assert_int_equal((g_ob.buf[2] & 0x3F) + (g_ob.buf[3] & 0x3F) +
                       (g_ob.buf[4] & 0x3F) + 3,
                   130);
  assert_int_equal(g_ob.buf[2] >> 6, UDCCP_AV_RECEIVED);
  assert_int_equal(g_ob.buf[3] >> 6, UDCCP_AV_RECEIVED);
  assert_int_equal(g_ob.buf[4] >> 6, UDCCP_AV_RECEIVED);
  assert_int_equal(s->n, 130);
  udccp_ackvec_free(&av);
}

static void test_appendix_a_1_2_late_arrival_fills_hole(void **state) {
  udccp_ackvec av;
  seen *s;
  (void)state;
  init_av(&av, 64);
  assert_int_equal(udccp_ackvec_record(&av, 10, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 13, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 11, UDCCP_AV_ECN_MARKED), 0);
  assert_int_equal(av.head, 13);
  s = roundtrip(&av, 1);
  assert_int_equal(s->n, 4);
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);     /* 13 */
  assert_int_equal(s->st[1], UDCCP_AV_NOT_RECEIVED); /* 12 */
  assert_int_equal(s->st[2], UDCCP_AV_ECN_MARKED);   /* 11 */
  assert_int_equal(s->st[3], UDCCP_AV_RECEIVED);     /* 10 */
  udccp_ackvec_free(&av);
}

static void test_appendix_a_1_2_duplicate_detected(void **state) {
  udccp_ackvec av;
  seen *s;
  (void)state;
  init_av(&av, 64);
  assert_int_equal(udccp_ackvec_record(&av, 10, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 11, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 11, UDCCP_AV_RECEIVED),
                   UDCCP_ERR_DROPPED);
  assert_int_equal(udccp_ackvec_record(&av, 10, UDCCP_AV_RECEIVED),
                   UDCCP_ERR_DROPPED);
  /* Older than anything we track: also refused. */
  assert_int_equal(udccp_ackvec_record(&av, 9, UDCCP_AV_RECEIVED),
                   UDCCP_ERR_DROPPED);
  /* §11.4.1 receiver table: a marked duplicate may turn 0 into 1. */
  assert_int_equal(udccp_ackvec_record(&av, 10, UDCCP_AV_ECN_MARKED),
                   UDCCP_ERR_DROPPED);
  s = roundtrip(&av, 1);
  assert_int_equal(s->n, 2);
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);
  assert_int_equal(s->st[1], UDCCP_AV_ECN_MARKED);
  /* Only Received and Received ECN Marked may be recorded. */
  assert_int_equal(udccp_ackvec_record(&av, 12, UDCCP_AV_NOT_RECEIVED),
                   UDCCP_ERR_INVALID_ARGUMENT);
  udccp_ackvec_free(&av);
}

/* §7.1: sequence numbers wrap at 2^48; vectors run across the wrap. */
static void test_rfc4340_7_1_vector_across_48bit_wrap(void **state) {
  udccp_ackvec av;
  uint64_t q = UDCCP_SEQ_MASK - 4; /* 2^48 - 5 */
  seen *s;
  int i;
  (void)state;
  init_av(&av, 64);
  for (i = 0; i < 10; i++) {
    if (i != 6) { /* seq 1 lost */
      assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
    }
    q = udccp_seq_add(q, 1);
  }
  assert_int_equal(av.head, 4);
  s = roundtrip(&av, 77);
  assert_int_equal(s->n, 10);
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);     /* 4 */
  assert_int_equal(s->st[3], UDCCP_AV_NOT_RECEIVED); /* 1 */
  assert_int_equal(s->st[4], UDCCP_AV_RECEIVED);     /* 0 */
  assert_int_equal(s->st[5], UDCCP_AV_RECEIVED);     /* 2^48 - 1 */
  assert_int_equal(s->st[9], UDCCP_AV_RECEIVED);     /* 2^48 - 5 */
  /* An old packet from before the wrap is still placed correctly. */
  udccp_ackvec_free(&av);
}

/* §11.4: more than 253 bytes of vector take several options, the second
 * continuing where the first left off. */
static void test_rfc4340_11_4_long_vector_several_options(void **state) {
  udccp_ackvec av;
  uint64_t q;
  seen *s;
  size_t i, off, nopt = 0;
  (void)state;
  init_av(&av, 64);
  /* Every other packet lost: one byte per packet. */
  for (q = 1; q <= 700; q += 2) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  s = roundtrip(&av, 5000);
  for (off = 0; off < g_ob.len; off += g_ob.buf[off + 1]) {
    assert_int_equal(g_ob.buf[off], UDCCP_OPT_ACK_VECTOR_0);
    assert_true(g_ob.buf[off + 1] <= 255); /* at most 253 value bytes */
    nopt++;
  }
  assert_int_equal(nopt, 3); /* 699 bytes: 253 + 253 + 193 */
  assert_int_equal(g_opts.n_ackvec, 3);
  assert_int_equal(s->n, 699);
  for (i = 0; i < s->n; i++) {
    assert_int_equal(s->st[i], (i % 2) ? UDCCP_AV_NOT_RECEIVED
                                       : UDCCP_AV_RECEIVED);
  }
  udccp_ackvec_free(&av);
}

/* When the vector is too long for the space left, the newest part is sent
 * and the oldest forgotten (§11.4.2 coverage starts at the Ack Number). */
static void test_rfc4340_11_4_2_vector_truncated_to_space(void **state) {
  udccp_ackvec av;
  udccp_optbuf ob;
  uint64_t q;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 4000; q += 2) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  udccp_optbuf_init(&ob);
  ob.len = sizeof(ob.buf) - 300; /* other options took most of the room */
  assert_int_equal(udccp_ackvec_write(&av, &ob, 1), 0);
  assert_true(ob.len <= sizeof(ob.buf));
  /* 300 bytes: two options, 296 vector bytes, newest first. */
  assert_int_equal(ob.len, sizeof(ob.buf));
  assert_int_equal(ob.buf[sizeof(ob.buf) - 300 + 1], 255);
  assert_int_equal(ob.buf[sizeof(ob.buf) - 300 + 2] >> 6, UDCCP_AV_RECEIVED);
  assert_int_equal(ob.buf[sizeof(ob.buf) - 300 + 255 + 1], 45);
  udccp_ackvec_free(&av);
}

/* Issue 11: what did not fit stays for the next ack.  A 600-byte vector
 * written beside other options (room for 296 bytes) keeps its tail: the
 * ack of that truncated ack clears nothing, and the next ack with room
 * reports it all.  (Before: the tail was forgotten at the first write,
 * never reported.) */
static void test_rfc4340_11_4_2_unreported_tail_kept(void **state) {
  udccp_ackvec av;
  udccp_optbuf ob;
  uint64_t q;
  seen *s;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 600; q += 2) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  udccp_optbuf_init(&ob);
  ob.len = sizeof(ob.buf) - 300;
  assert_int_equal(udccp_ackvec_write(&av, &ob, 700), 0);
  assert_int_equal(av.tail, 1);
  udccp_ackvec_on_ack(&av, 700); /* the truncated ack arrived */
  assert_int_equal(av.tail, 1);
  s = roundtrip(&av, 701);
  assert_int_equal(s->n, 599); /* 599 down to 1 */
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);   /* 599 */
  assert_int_equal(s->st[598], UDCCP_AV_RECEIVED); /* 1 */
  udccp_ackvec_on_ack(&av, 701); /* the whole one arrived: cleared */
  assert_true(av.empty);
  udccp_ackvec_free(&av);
}

/* The ring grows past its initial size up to UDCCP_ACKVEC_MAX. */
static void test_appendix_a_buffer_grows(void **state) {
  udccp_ackvec av;
  uint64_t q;
  seen *s;
  size_t i;
  (void)state;
  init_av(&av, 16);
  for (q = 100; q < 100 + 20000; q++) {
    if (q % 500 != 0) {
      assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
    }
  }
  assert_true(av.cap >= 20000);
  s = roundtrip(&av, 1);
  assert_int_equal(s->n, 20000); /* 100 .. 20099 */
  for (i = 0; i < s->n; i++) {
    uint64_t sq = udccp_seq_add(s->ackno, -(int64_t)i);
    assert_int_equal(s->st[i], sq % 500 == 0 ? UDCCP_AV_NOT_RECEIVED
                                              : UDCCP_AV_RECEIVED);
  }
  udccp_ackvec_free(&av);
}

/* Appendix A.3: an ack of our ack clears what that ack reported. */
static void test_appendix_a_3_ack_of_ack_trims(void **state) {
  udccp_ackvec av;
  uint64_t q;
  seen *s;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 10; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  (void)roundtrip(&av, 500); /* our packet 500 acks 10..1 */
  for (q = 11; q <= 15; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  (void)roundtrip(&av, 502); /* 502 acks 15..1 */
  udccp_ackvec_on_ack(&av, 499); /* older than any vector of ours */
  assert_int_equal(av.tail, 1);
  /* 501 carried no vector: the newest record below it (500) counts. */
  udccp_ackvec_on_ack(&av, 501);
  assert_int_equal(av.tail, 11);
  assert_int_equal(av.rec_n, 1);
  s = roundtrip(&av, 503);
  assert_int_equal(s->n, 5); /* 15..11 */
  /* Packets at or below the trimmed part are refused as old. */
  assert_int_equal(udccp_ackvec_record(&av, 5, UDCCP_AV_RECEIVED),
                   UDCCP_ERR_DROPPED);
  udccp_ackvec_on_ack(&av, 503);
  assert_int_equal(av.rec_n, 0); /* 503 and all older records gone */
  /* Everything acknowledged: nothing left to write, head still known. */
  assert_true(av.empty);
  udccp_optbuf_init(&g_ob);
  assert_int_equal(udccp_ackvec_write(&av, &g_ob, 504), 0);
  assert_int_equal(g_ob.len, 0);
  assert_int_equal(udccp_ackvec_record(&av, 18, UDCCP_AV_RECEIVED), 0);
  assert_false(av.empty);
  s = roundtrip(&av, 505);
  assert_int_equal(s->n, 3); /* 18, 17 and 16 not received */
  assert_int_equal(s->st[1], UDCCP_AV_NOT_RECEIVED);
  assert_int_equal(s->st[2], UDCCP_AV_NOT_RECEIVED);
  udccp_ackvec_free(&av);
}

/* Appendix A.3: a hole filled after an ack reported it Not Received must
 * not be cleared by the ack of that older ack. */
static void test_appendix_a_3_late_arrival_holds_tail(void **state) {
  udccp_ackvec av;
  seen *s;
  (void)state;
  init_av(&av, 64);
  assert_int_equal(udccp_ackvec_record(&av, 1, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 2, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&av, 4, UDCCP_AV_RECEIVED), 0);
  (void)roundtrip(&av, 700); /* says 3 is missing */
  assert_int_equal(udccp_ackvec_record(&av, 3, UDCCP_AV_RECEIVED), 0);
  udccp_ackvec_on_ack(&av, 700);
  assert_int_equal(av.tail, 3);
  s = roundtrip(&av, 701);
  assert_int_equal(s->n, 2);
  assert_int_equal(s->st[1], UDCCP_AV_RECEIVED); /* 3 now reported */
  udccp_ackvec_free(&av);
}

/* Appendix A.3 at high rates: many acks are in flight before the first
 * ack of an ack returns; their records must all survive. */
static void test_appendix_a_3_many_acks_in_flight(void **state) {
  udccp_ackvec av;
  uint64_t q;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 1000; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
    udccp_optbuf_init(&g_ob);
    assert_int_equal(udccp_ackvec_write(&av, &g_ob, 10000 + q), 0);
  }
  assert_true(av.rec_n >= 1000);
  udccp_ackvec_on_ack(&av, 10001); /* the oldest ack: covers 1 */
  assert_int_equal(av.tail, 2);
  udccp_ackvec_on_ack(&av, 10900);
  assert_int_equal(av.tail, 901);
  assert_int_equal(av.rec_n, 100);
  udccp_ackvec_free(&av);
}

/* Our acks 600 (vector up to 10) and 602 (up to 20) were sent; the
 * peer's packet acknowledges 603 (no vector) and its Ack Vector says 602
 * was lost but 600 arrived: only what 600 reported may be cleared. */
static void test_appendix_a_3_peer_vector_proves_receipt(void **state) {
  udccp_ackvec av, peer;
  udccp_optbuf ob;
  udccp_opts opts;
  uint64_t q;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 10; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  (void)roundtrip(&av, 600);
  for (q = 11; q <= 20; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  (void)roundtrip(&av, 602);
  /* The peer's view of our packets 599..603: 602 lost. */
  init_av(&peer, 64);
  assert_int_equal(udccp_ackvec_record(&peer, 599, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&peer, 600, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&peer, 601, UDCCP_AV_RECEIVED), 0);
  assert_int_equal(udccp_ackvec_record(&peer, 603, UDCCP_AV_RECEIVED), 0);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_ackvec_write(&peer, &ob, 77), 0);
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  udccp_ackvec_on_peer_acks(&av, &opts, 603);
  assert_int_equal(av.tail, 11); /* not 21: 602's report never arrived */
  assert_int_equal(av.rec_n, 1);
  /* Without a vector, only an exact ackno counts. */
  udccp_ackvec_on_peer_acks(&av, NULL, 603);
  assert_int_equal(av.tail, 11);
  udccp_ackvec_on_peer_acks(&av, NULL, 602);
  assert_int_equal(av.tail, 21);
  assert_int_equal(av.rec_n, 0);
  udccp_ackvec_free(&peer);
  udccp_ackvec_free(&av);
}

static void test_rfc4340_11_4_reserved_state_rejected(void **state) {
  static const uint8_t vec[] = {0x05, 0x80, 0x01};
  udccp_optbuf ob;
  udccp_opts opts;
  (void)state;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_0, 0, vec, 3), 0);
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  memset(&g_seen, 0, sizeof(g_seen));
  g_seen.ackno = 50;
  assert_int_equal(udccp_ackvec_parse(&opts, 50, seen_cb, &g_seen),
                   UDCCP_ERR_OPTION);
  assert_int_equal(g_seen.runs, 0); /* nothing reported from a bad vector */
}

/* §11.4 State 2 is reserved wherever it sits in a long vector (the check
 * reads eight bytes at a time), and bytes of states 3, 1 and 0 next to
 * each other (bit 7 of one beside bit 6 of the next) are not taken for
 * it. */
static void test_rfc4340_11_4_reserved_state_anywhere_in_long_vector(
    void **state) {
  uint8_t vec[40];
  udccp_optbuf ob;
  udccp_opts opts;
  size_t k, i;
  (void)state;
  for (k = 0; k <= sizeof(vec); k++) {
    for (i = 0; i < sizeof(vec); i++) {
      static const uint8_t st[3] = {0xC0, 0x40, 0x00}; /* 3, 1, 0 */
      vec[i] = (uint8_t)(st[i % 3] | (i & 0x3F));
    }
    if (k < sizeof(vec)) {
      vec[k] = 0x80 | 0x3F; /* State 2 */
    }
    udccp_optbuf_init(&ob);
    assert_int_equal(
        udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_0, 0, vec, sizeof(vec)), 0);
    assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, ob.buf, ob.len),
                     0);
    memset(&g_seen, 0, sizeof(g_seen));
    g_seen.ackno = 5000;
    assert_int_equal(udccp_ackvec_parse(&opts, 5000, seen_cb, &g_seen),
                     k < sizeof(vec) ? UDCCP_ERR_OPTION : 0);
    assert_int_equal(g_seen.runs, k < sizeof(vec) ? 0 : (int)sizeof(vec));
  }
}

/* A callback can stop the walk; option 39 (nonce 1) is walked like 38. */
static void test_rfc4340_11_4_parse_stop_and_type_39(void **state) {
  static const uint8_t v1[] = {0x00, 0xC0};
  static const uint8_t v2[] = {0x02};
  udccp_optbuf ob;
  udccp_opts opts;
  (void)state;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_1, 0, v1, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_0, 0, v2, 1), 0);
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_DATAACK, ob.buf, ob.len),
                   0);
  memset(&g_seen, 0, sizeof(g_seen));
  g_seen.ackno = 2;
  assert_int_equal(udccp_ackvec_parse(&opts, 2, seen_cb, &g_seen), 0);
  assert_int_equal(g_seen.n, 5); /* 2, 1, then 0 and 2^48-1, 2^48-2 */
  assert_int_equal(g_seen.st[1], UDCCP_AV_NOT_RECEIVED);
  memset(&g_seen, 0, sizeof(g_seen));
  g_seen.ackno = 2;
  g_seen.stop_after = 2;
  assert_int_equal(udccp_ackvec_parse(&opts, 2, seen_cb, &g_seen), 0);
  assert_int_equal(g_seen.runs, 2);
}

/* Random loss and reordering, checked packet by packet against a
 * reference bitmap; the vector is written after every tenth arrival. */
static void test_rfc4340_11_4_random_roundtrip(void **state) {
  enum { N = 2000 };
  static uint8_t ref[N];
  udccp_ackvec av;
  uint64_t base = UDCCP_SEQ_MASK - 1500, head = 0;
  uint32_t lcg = 12345;
  int have = 0;
  size_t i, k;
  (void)state;
  init_av(&av, 32);
  memset(ref, 0xFF, sizeof(ref));
  for (i = 0; i < N; i++) {
    size_t j = i;
    lcg = lcg * 1103515245u + 12345u;
    if ((lcg >> 16) % 10 == 0) {
      continue; /* lost */
    }
    if ((lcg >> 20) % 7 == 0 && i >= 3) {
      j = i - 3; /* a late one (maybe a duplicate) */
    }
    {
      uint8_t st = (lcg >> 24) % 50 == 0 ? UDCCP_AV_ECN_MARKED
                                         : UDCCP_AV_RECEIVED;
      uint64_t sq = udccp_seq_add(base, (int64_t)j);
      int old = av.head_valid && udccp_seq_lt(sq, av.tail);
      int rv = udccp_ackvec_record(&av, sq, st);
      if (old) {
        assert_int_equal(rv, UDCCP_ERR_DROPPED);
        continue;
      }
      if (ref[j] != 0xFF) {
        assert_int_equal(rv, UDCCP_ERR_DROPPED);
        if (ref[j] == UDCCP_AV_RECEIVED && st == UDCCP_AV_ECN_MARKED) {
          ref[j] = UDCCP_AV_ECN_MARKED;
        }
      } else {
        assert_int_equal(rv, 0);
        ref[j] = st;
      }
    }
    if (!have || j > head) {
      head = j;
      have = 1;
    }
    if (i % 10 == 0) {
      seen *s = roundtrip(&av, i);
      assert_int_equal(s->ackno, udccp_seq_add(base, (int64_t)head));
      assert_int_equal(s->n, head + 1 - (size_t)udccp_seq_sub(av.tail, base));
      for (k = 0; k < s->n; k++) {
        uint8_t want = ref[head - k] == 0xFF ? UDCCP_AV_NOT_RECEIVED
                                             : ref[head - k];
        assert_int_equal(s->st[k], want);
      }
    }
  }
  udccp_ackvec_free(&av);
}

/* The sender's view for the nonce tests: nonce of seq, -1 if unknown. */
typedef struct nonce_map {
  uint64_t lo, hi;
  uint8_t bit[512];
} nonce_map;

static int map_nonce(uint64_t seq, void *ud) {
  const nonce_map *m = ud;
  if (seq < m->lo || seq > m->hi) {
    return -1;
  }
  return m->bit[seq - m->lo];
}

/* §12.2: the Nonce Echo is the parity of the nonces of the packets the
 * option reports in state 0: marked (CE) and lost packets do not count,
 * and the option type (38 or 39) carries it.  The sender's check agrees,
 * and catches a receiver that hides a loss. */
static void test_rfc4340_12_2_nonce_echo_in_option_type(void **state) {
  udccp_ackvec av;
  nonce_map m;
  uint64_t q;
  unsigned checked = 0, parity = 0;
  uint32_t rng = 7;
  (void)state;
  init_av(&av, 64);
  memset(&m, 0, sizeof(m));
  m.lo = 1;
  m.hi = 300;
  for (q = 1; q <= 300; q++) {
    rng = rng * 1103515245u + 12345u;
    m.bit[q - 1] = (uint8_t)((rng >> 16) & 1);
    if (q % 17 == 0) {
      continue; /* lost */
    }
    if (q % 23 == 0) {
      /* CE destroys the nonce */
      assert_int_equal(udccp_ackvec_record_ecn(&av, q, 3), 0);
      continue;
    }
    assert_int_equal(udccp_ackvec_record_ecn(&av, q, m.bit[q - 1] ? 1 : 2),
                     0);
    parity ^= m.bit[q - 1];
  }
  (void)roundtrip(&av, 1000);
  assert_int_equal(g_opts.n_ackvec, 1);
  assert_int_equal(g_ob.buf[0], parity ? UDCCP_OPT_ACK_VECTOR_1
                                       : UDCCP_OPT_ACK_VECTOR_0);
  assert_int_equal(udccp_ackvec_nonce_check(&g_opts, av.head, map_nonce, &m,
                                            &checked),
                   0);
  assert_int_equal(checked, 1);
  /* A cheating receiver claims lost packet 17 arrived: the echo it keeps
   * is wrong half the time; with 17's nonce set, it is wrong now. */
  m.bit[17 - 1] = 1;
  assert_int_equal(udccp_ackvec_record_ecn(&av, 17, 2), 0); /* fills hole */
  (void)roundtrip(&av, 1001);
  assert_int_equal(udccp_ackvec_nonce_check(&g_opts, av.head, map_nonce, &m,
                                            &checked),
                   1);
  /* An option reaching packets the sender forgot is not judged. */
  m.lo = 100;
  assert_int_equal(udccp_ackvec_nonce_check(&g_opts, av.head, map_nonce, &m,
                                            &checked),
                   0);
  assert_int_equal(checked, 0);
  udccp_ackvec_free(&av);
}

/* §12.2: several options each carry the echo of their own packets. */
static void test_rfc4340_12_2_nonce_echo_per_option(void **state) {
  udccp_ackvec av;
  nonce_map m;
  uint64_t q;
  unsigned checked = 0;
  (void)state;
  init_av(&av, 512);
  memset(&m, 0, sizeof(m));
  m.lo = 1;
  m.hi = 500;
  /* Alternate received and lost packets: one byte per packet, so 500
   * packets need two options. */
  for (q = 1; q <= 500; q += 2) {
    m.bit[q - 1] = (uint8_t)((q / 2) % 3 == 0);
    assert_int_equal(udccp_ackvec_record_ecn(&av, q, m.bit[q - 1] ? 1 : 2), 0);
  }
  (void)roundtrip(&av, 2000);
  assert_true(g_opts.n_ackvec >= 2);
  assert_int_equal(udccp_ackvec_nonce_check(&g_opts, av.head, map_nonce, &m,
                                            &checked),
                   0);
  assert_int_equal(checked, g_opts.n_ackvec);
  udccp_ackvec_free(&av);
}

/* The incremental encoding (Appendix A.1) against a model: random loss,
 * late packets, duplicates, marks and nonces, acks written with random
 * room and cleared by random acks of acks (A.3).  Every ack must report
 * exactly the model's states from its Acknowledgement Number down, and
 * every option's Nonce Echo must be the sum of its state-0 nonces
 * (§12.2). */
typedef struct model {
  uint64_t base;
  uint8_t st[4000];
  uint8_t nonce[4000];
} model;

static int model_nonce(uint64_t seq, void *ud) {
  const model *m = ud;
  uint64_t j = (uint64_t)udccp_seq_sub(seq, m->base);
  return j < 4000 ? m->nonce[j] : -1;
}

/* Appendix A.3: an ack of ack finds the newest record at or below its
 * Acknowledgement Number and throws it and every older one away, whatever
 * the spacing of the records (one per packet, or sparse) and however far
 * the ackno moves: checked against a list, ackno by ackno. */
static void test_appendix_a_3_ack_of_ack_finds_its_record(void **state) {
  uint64_t recs[300];
  size_t n = 0, first = 0, r;
  uint64_t ackno, seq = 5000;
  udccp_ackvec av;
  udccp_optbuf ob;
  (void)state;
  init_av(&av, 64);
  for (r = 1; r <= 300; r++) {
    assert_int_equal(udccp_ackvec_record(&av, r, UDCCP_AV_RECEIVED), 0);
    /* one record per packet for a while, then gaps of 1..6 */
    seq += r < 100 ? 1 : 1 + r % 7;
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_ackvec_write(&av, &ob, seq), 0);
    recs[n++] = seq;
  }
  assert_int_equal(av.rec_n, n);
  for (ackno = 4990; ackno < seq + 5; ackno += 1 + ackno % 13) {
    size_t k = first;
    while (k < n && recs[k] <= ackno) {
      k++;
    }
    udccp_ackvec_on_ack(&av, ackno);
    /* records [first, k) were at or below ackno: all gone */
    first = k;
    assert_int_equal(av.rec_n, n - first);
  }
  udccp_ackvec_free(&av);
}

/* Appendix A.3 with a data sender's records: one per DataAck, every other
 * packet (conn.h UDCCP_CONN_ACKACK_EVERY), and acknos on every number, on
 * the records and between them (the lookup guesses that spacing first). */
static void test_appendix_a_3_records_every_other_packet(void **state) {
  uint64_t recs[400];
  size_t n = 0, first = 0, r;
  uint64_t ackno, seq = UDCCP_SEQ_MASK - 300; /* across the 48-bit wrap */
  udccp_ackvec av;
  udccp_optbuf ob;
  (void)state;
  init_av(&av, 64);
  for (r = 1; r <= 400; r++) {
    assert_int_equal(udccp_ackvec_record(&av, r, UDCCP_AV_RECEIVED), 0);
    seq = udccp_seq_add(seq, 2);
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_ackvec_write(&av, &ob, seq), 0);
    recs[n++] = seq;
  }
  assert_int_equal(av.rec_n, n);
  for (ackno = udccp_seq_add(recs[0], -3);
       udccp_seq_lt(ackno, udccp_seq_add(seq, 3));
       ackno = udccp_seq_add(ackno, 1)) {
    size_t k = first;
    while (k < n && udccp_seq_le(recs[k], ackno)) {
      k++;
    }
    udccp_ackvec_on_ack(&av, ackno);
    first = k;
    assert_int_equal(av.rec_n, n - first);
  }
  udccp_ackvec_free(&av);
}

static void test_appendix_a_incremental_vector_matches_model(void **state) {
  static model m;
  udccp_ackvec av;
  uint64_t head = 0, sent[64];
  uint32_t lcg = 777;
  size_t i, k, n_sent = 0;
  int have = 0;
  (void)state;
  init_av(&av, 16);
  m.base = UDCCP_SEQ_MASK - 2000;
  memset(m.st, 0xFF, sizeof(m.st));
  memset(m.nonce, 0, sizeof(m.nonce));
  for (i = 0; i < 4000; i++) {
    size_t j = i;
    uint8_t ecn;
    uint64_t sq;
    int old, rv;
    lcg = lcg * 1103515245u + 12345u;
    if ((lcg >> 16) % 8 == 0) {
      continue; /* lost */
    }
    if ((lcg >> 19) % 6 == 0 && i >= 30) {
      j = i - 1 - (lcg >> 22) % 30; /* late, or a duplicate */
    }
    ecn = (lcg >> 27) % 40 == 0 ? 3 : (uint8_t)((lcg >> 25) & 1);
    sq = udccp_seq_add(m.base, (int64_t)j);
    old = av.head_valid && udccp_seq_lt(sq, av.tail);
    rv = udccp_ackvec_record_ecn(&av, sq, ecn);
    if (old) {
      assert_int_equal(rv, UDCCP_ERR_DROPPED);
    } else if (m.st[j] != 0xFF) {
      assert_int_equal(rv, UDCCP_ERR_DROPPED);
      if (m.st[j] == UDCCP_AV_RECEIVED && ecn == 3) {
        m.st[j] = UDCCP_AV_ECN_MARKED;
      }
    } else {
      assert_int_equal(rv, 0);
      m.st[j] = ecn == 3 ? UDCCP_AV_ECN_MARKED : UDCCP_AV_RECEIVED;
      m.nonce[j] = ecn == 1 ? 1 : 0;
    }
    if (!have || j > head) {
      head = j;
      have = 1;
    }
    if (i % 3 == 0) {
      seen *s;
      unsigned checked = 0;
      size_t room = (lcg >> 8) % 4 == 0 ? 40 + (lcg >> 10) % 300 : 0;
      uint64_t pkt = 10000 + i;
      udccp_optbuf_init(&g_ob);
      if (room) {
        g_ob.len = sizeof(g_ob.buf) - room;
      }
      assert_int_equal(udccp_ackvec_write(&av, &g_ob, pkt), 0);
      sent[n_sent++ % 64] = pkt;
      if (g_ob.len > (room ? sizeof(g_ob.buf) - room : 0)) {
        size_t off = room ? sizeof(g_ob.buf) - room : 0;
        assert_int_equal(udccp_opts_parse(&g_opts, UDCCP_PKT_ACK,
                                          g_ob.buf + off, g_ob.len - off),
                         0);
        memset(&g_seen, 0, sizeof(g_seen));
        s = &g_seen;
        s->ackno = av.head;
        assert_int_equal(udccp_ackvec_parse(&g_opts, av.head, seen_cb, s), 0);
        assert_int_equal(av.head, udccp_seq_add(m.base, (int64_t)head));
        assert_true(s->n <= head + 1 - (size_t)udccp_seq_sub(av.tail, m.base));
        for (k = 0; k < s->n; k++) {
          uint8_t want = m.st[head - k] == 0xFF ? UDCCP_AV_NOT_RECEIVED
                                                : m.st[head - k];
          assert_int_equal(s->st[k], want);
        }
        assert_int_equal(udccp_ackvec_nonce_check(&g_opts, av.head,
                                                  model_nonce, &m, &checked),
                         0);
        assert_int_equal(checked, g_opts.n_ackvec);
      }
      /* An ack of one of our recent acks. */
      if ((lcg >> 12) % 3 == 0 && n_sent > 8) {
        udccp_ackvec_on_ack(&av, sent[(n_sent - 1 - (lcg >> 14) % 8) % 64]);
      }
    }
  }
  udccp_ackvec_free(&av);
}

/* Two vectors that must hold the same state: head, tail, the encoded
 * bytes with their nonce parities, and every slot's state. */
static void assert_av_same(const udccp_ackvec *a, const udccp_ackvec *b) {
  size_t i;
  uint64_t q;
  assert_int_equal(a->head_valid, b->head_valid);
  assert_int_equal(a->empty, b->empty);
  if (!a->head_valid) {
    return;
  }
  assert_int_equal(a->head, b->head);
  assert_int_equal(a->tail, b->tail);
  assert_int_equal(a->en, b->en);
  for (i = 0; i < a->en; i++) {
    assert_int_equal(a->enc[a->eh + i], b->enc[b->eh + i]);
    assert_int_equal(a->epar[a->eh + i], b->epar[b->eh + i]);
  }
  for (q = a->tail; !a->empty; q = udccp_seq_add(q, 1)) {
    assert_int_equal(a->states[q & (a->cap - 1)], b->states[q & (b->cap - 1)]);
    if (q == a->head) {
      break;
    }
  }
}

/* Appendix A.1.1, issue 13: udccp_ackvec_record_ecn answers the next
 * packet in order, state 0 without a nonce, inline; the general path
 * (udccp_ackvec_record_ecn_any) must leave the same vector behind for
 * every packet: in order across runs of 63 and 64, with gaps, late
 * packets, duplicates, marks (CE) and nonces (ECT(1)), from the first
 * packet on, across the 48-bit wrap, with the ring growing and acks of
 * acks trimming it (to nothing, too), and the same answer. */
static void test_appendix_a_1_1_record_fast_path_matches_general(
    void **state) {
  udccp_ackvec fast, gen;
  udccp_optbuf ob;
  uint64_t seq = UDCCP_SEQ_MASK - 300, pkt = 1;
  uint32_t lcg = 4242;
  size_t i, fast_hits = 0;
  (void)state;
  init_av(&fast, 16);
  init_av(&gen, 16);
  for (i = 0; i < 20000; i++) {
    uint8_t ecn;
    uint64_t sq = seq;
    unsigned r;
    int before, rf, rg;
    lcg = lcg * 1103515245u + 12345u;
    r = (lcg >> 16) & 1023;
    ecn = r < 20 ? 3 : r < 40 ? 1 : (r & 2) ? 2 : 0;
    if (r >= 1000 && r < 1010) {
      seq = udccp_seq_add(seq, (int64_t)(2 + (lcg >> 26)));  /* a gap */
      sq = seq;
    } else if (r >= 1010 && r < 1016 && i > 100) {
      sq = udccp_seq_add(seq, -(int64_t)(1 + (lcg >> 27)));   /* late/dup */
    } else {
      seq = udccp_seq_add(seq, 1);
      sq = seq;
    }
    before = fast.en > 0 && (ecn & 1) == 0 &&
             sq == udccp_seq_add(fast.head, 1) && fast.enc[fast.eh] < 63 &&
             udccp_seq_sub(sq, fast.tail) < (int64_t)fast.cap;
    fast_hits += (size_t)before;
    rf = udccp_ackvec_record_ecn(&fast, sq, ecn);
    rg = udccp_ackvec_record_ecn_any(&gen, sq, ecn);
    assert_int_equal(rf, rg);
    assert_av_same(&fast, &gen);
    /* Acks now and then, their acks of acks later (A.3); a long stretch
     * without any, so that the ring grows. */
    if ((i % 7) == 0 && (i < 5000 || i > 9000)) {
      udccp_optbuf_init(&ob);
      assert_int_equal(udccp_ackvec_write(&fast, &ob, pkt), 0);
      udccp_optbuf_init(&ob);
      assert_int_equal(udccp_ackvec_write(&gen, &ob, pkt), 0);
      pkt++;
      if ((lcg >> 12) % 4 == 0 && pkt > 3) {
        uint64_t a = pkt - 1 - (lcg >> 14) % 3;
        udccp_ackvec_on_ack(&fast, a);
        udccp_ackvec_on_ack(&gen, a);
        assert_av_same(&fast, &gen);
      }
    }
  }
  /* the fast path was taken for most packets */
  assert_true(fast_hits > 15000);
  udccp_ackvec_free(&fast);
  udccp_ackvec_free(&gen);
}

/* Appendix A.3, issue 13: udccp_ackvec_on_peer_acks answers its usual
 * cases (the ackno names a record; the first run of the first vector
 * reports the newest record below it) without the walk; the general
 * path (udccp_ackvec_on_peer_acks_any) must clear exactly the same
 * state, for records one per packet or sparse, acknos on, between and
 * below records, vectors whose first run is Received, Marked or Not
 * Received, short or long, empty, two options, or none. */
static void test_appendix_a_3_peer_acks_fast_path_matches_general(
    void **state) {
  udccp_ackvec fast, gen;
  udccp_optbuf ob;
  udccp_opts o;
  uint8_t v1[8], v2[4];
  uint64_t seq = 100, pkt = UDCCP_SEQ_MASK - 500, sent[32];
  uint32_t lcg = 99;
  size_t i, n_sent = 0, cleared = 0;
  (void)state;
  init_av(&fast, 16);
  init_av(&gen, 16);
  for (i = 0; i < 30000; i++) {
    unsigned r;
    lcg = lcg * 1103515245u + 12345u;
    r = (lcg >> 16) & 1023;
    assert_int_equal(udccp_ackvec_record_ecn(&fast, seq, 0),
                     udccp_ackvec_record_ecn(&gen, seq, 0));
    seq++;
    /* our packet: with a vector (a record) or, now and then, without */
    pkt = udccp_seq_add(pkt, 1);
    if (r % 3 != 0) {
      udccp_optbuf_init(&ob);
      assert_int_equal(udccp_ackvec_write(&fast, &ob, pkt), 0);
      udccp_optbuf_init(&ob);
      assert_int_equal(udccp_ackvec_write(&gen, &ob, pkt), 0);
    }
    sent[n_sent++ % 32] = pkt;
    if (n_sent > 20 && r < 512) {
      /* the peer's packet: its ackno one of ours, a vector below it */
      uint64_t ackno = sent[(n_sent - 1 - (lcg >> 11) % 20) % 32];
      size_t k, nv = (lcg >> 5) % 8;
      udccp_opts_reset(&o);
      for (k = 0; k < sizeof(v1); k++) {
        lcg = lcg * 1103515245u + 12345u;
        v1[k] = (uint8_t)(((lcg >> 20) % 3 == 0 ? 3u : (lcg >> 22) % 2) << 6 |
                          (lcg >> 8) % 64);
        if (k < sizeof(v2)) {
          v2[k] = (uint8_t)((lcg >> 24) % 64);
        }
      }
      if (nv > 0) {
        o.n_ackvec = nv == 7 ? 2 : 1;
        o.ackvec[0].type = UDCCP_OPT_ACK_VECTOR_0;
        o.ackvec[0].val = v1;
        o.ackvec[0].len = (uint8_t)(nv == 6 ? 0 : nv);
        o.ackvec[1].type = UDCCP_OPT_ACK_VECTOR_0;
        o.ackvec[1].val = v2;
        o.ackvec[1].len = sizeof(v2);
        if ((lcg >> 3) & 1) {
          o.present |= UDCCP_OPTS_AV_CHECKED;
        }
      }
      udccp_ackvec_on_peer_acks(&fast, (lcg >> 4) % 16 ? &o : NULL, ackno);
      udccp_ackvec_on_peer_acks_any(&gen, (lcg >> 4) % 16 ? &o : NULL, ackno);
      assert_av_same(&fast, &gen);
      assert_int_equal(fast.rec_n, gen.rec_n);
      for (k = 0; k < fast.rec_n; k++) {
        const udccp_ackvec_rec *a =
            &fast.recs[(fast.rec_head + fast.rec_cap - fast.rec_n + k) &
                       (fast.rec_cap - 1)];
        const udccp_ackvec_rec *b =
            &gen.recs[(gen.rec_head + gen.rec_cap - gen.rec_n + k) &
                      (gen.rec_cap - 1)];
        assert_int_equal(a->seq, b->seq);
        assert_int_equal(a->ackno, b->ackno);
      }
      cleared += fast.empty;
    }
  }
  assert_true(cleared > 100);
  udccp_ackvec_free(&fast);
  udccp_ackvec_free(&gen);
}

/* Issue 12: an authenticated peer may jump its sequence numbers by 2^20
 * inside a huge Sequence Window.  The gap is not filled number by number
 * (or byte by byte): the older state goes, the buffers stay as they
 * were, and the vector reports the new packet. */
static void test_rfc4340_11_4_huge_jump_costs_nothing(void **state) {
  udccp_ackvec av;
  uint64_t q;
  size_t cap, ecap;
  seen *s;
  (void)state;
  init_av(&av, 64);
  for (q = 1; q <= 50; q++) {
    assert_int_equal(udccp_ackvec_record(&av, q, UDCCP_AV_RECEIVED), 0);
  }
  cap = av.cap;
  ecap = av.ecap;
  for (q = 1; q <= 100; q++) {
    assert_int_equal(
        udccp_ackvec_record(&av, 50 + q * (1u << 20), UDCCP_AV_RECEIVED), 0);
  }
  assert_int_equal(av.cap, cap);
  assert_int_equal(av.ecap, ecap);
  s = roundtrip(&av, 9);
  assert_int_equal(s->n, 1);
  assert_int_equal(s->st[0], UDCCP_AV_RECEIVED);
  /* A gap within UDCCP_ACKVEC_GAP_MAX is reported, one byte per 64. */
  q = av.head;
  assert_int_equal(udccp_ackvec_record(&av, q + 1001, UDCCP_AV_RECEIVED), 0);
  s = roundtrip(&av, 10);
  assert_int_equal(s->n, 1002);
  assert_int_equal(s->st[1], UDCCP_AV_NOT_RECEIVED);
  assert_int_equal(s->st[1000], UDCCP_AV_NOT_RECEIVED);
  assert_int_equal(s->st[1001], UDCCP_AV_RECEIVED);
  assert_true(g_ob.len <= 2 + 1 + 16 + 1);
  udccp_ackvec_free(&av);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_11_4_in_order_single_run),
      cmocka_unit_test(test_rfc4340_11_4_gap_becomes_not_received),
      cmocka_unit_test(test_rfc4340_11_4_example_vector_decoding),
      cmocka_unit_test(test_rfc4340_11_4_run_length_split_at_64),
      cmocka_unit_test(test_appendix_a_1_2_late_arrival_fills_hole),
      cmocka_unit_test(test_appendix_a_1_2_duplicate_detected),
      cmocka_unit_test(test_rfc4340_7_1_vector_across_48bit_wrap),
      cmocka_unit_test(test_rfc4340_11_4_long_vector_several_options),
      cmocka_unit_test(test_rfc4340_11_4_2_vector_truncated_to_space),
      cmocka_unit_test(test_rfc4340_11_4_2_unreported_tail_kept),
      cmocka_unit_test(test_appendix_a_buffer_grows),
      cmocka_unit_test(test_appendix_a_3_ack_of_ack_trims),
      cmocka_unit_test(test_appendix_a_3_late_arrival_holds_tail),
      cmocka_unit_test(test_appendix_a_3_many_acks_in_flight),
      cmocka_unit_test(test_appendix_a_3_peer_vector_proves_receipt),
      cmocka_unit_test(test_rfc4340_11_4_reserved_state_rejected),
      cmocka_unit_test(test_rfc4340_11_4_reserved_state_anywhere_in_long_vector),
      cmocka_unit_test(test_rfc4340_11_4_parse_stop_and_type_39),
      cmocka_unit_test(test_rfc4340_11_4_random_roundtrip),
      cmocka_unit_test(test_appendix_a_incremental_vector_matches_model),
      cmocka_unit_test(test_appendix_a_3_ack_of_ack_finds_its_record),
      cmocka_unit_test(test_appendix_a_3_records_every_other_packet),
      cmocka_unit_test(test_rfc4340_11_4_huge_jump_costs_nothing),
      cmocka_unit_test(test_appendix_a_1_1_record_fast_path_matches_general),
      cmocka_unit_test(test_appendix_a_3_peer_acks_fast_path_matches_general),
      cmocka_unit_test(test_rfc4340_12_2_nonce_echo_in_option_type),
      cmocka_unit_test(test_rfc4340_12_2_nonce_echo_per_option),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
