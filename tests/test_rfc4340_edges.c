/* SPDX-License-Identifier: MIT */
/*
 * RFC 4340 edge cases (issue 11 §3): each test is named for the rule it
 * checks and fails when that rule is broken.  The rules sit where no
 * single module test covers them: Resets numbered from short sequence
 * numbers in every state that answers from the input packet (§8.3.1), a
 * CCID Change after the handshake (§10, §6.6.1), Init Cookie echo in
 * PARTOPEN (§8.1.4, §8.1.5), where the Ack Vector starts (§11.4), Empty
 * Confirms for many unknown Changes (§6.6.7), Requests to a port without
 * a listener (RFC 5595 §3.3.1) and the SHOULDs of issue 11.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ackvec.h"
#include "conn.h"
#include "opt.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void open_pair(udccp_pair *p, uint64_t seed) {
  assert_int_equal(udccp_pair_open(p, seed), 0);
}

/* ------------------------------------------------ §8.3.1 step 3 */

/* An X=0 Ack whose 24-bit ackno is all ones: P.ackno + 1 carries into bit
 * 24, which step 3 must clear. */
static void short_ack(udccp_tb_pkt *tp, uint64_t seq) {
  udccp_tb_pkt_init(tp, UDCCP_PKT_ACK, seq, 0xFFFFFF);
  tp->x = 0;
}

static void assert_short_reset(udccp_conn *c, udccp_tstamp now, uint8_t code,
                               uint64_t seq) {
  uint8_t out[1500];
  udccp_conn_rxpkt rp;
  udccp_ssize n = udccp_conn_write_pkt(c, out, sizeof(out), NULL, now);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, code);
  /* R.seqno := P.ackno + 1, R.ackno := P.seqno, upper 24 bits zero. */
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, seq);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_timewait(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, 101);
  assert_int_equal(udccp_conn_abort(p.c[1], UDCCP_RESET_ABORTED, p.now), 0);
  udccp_pair_run_for(&p, 100 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  short_ack(&tp, 0x123456);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[0], p.now, UDCCP_RESET_NO_CONNECTION, 0x123456);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_listen(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 102), 0);
  assert_int_equal(udccp_conn_listen_new(&p.c[1], &p.s[1], &p.path[1], 42, 0),
                   0);
  short_ack(&tp, 0xABCDEF);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[1], p.now, UDCCP_RESET_NO_CONNECTION, 0xABCDEF);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_request(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  uint8_t out[1500];
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 103), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, 0) > 0);
  short_ack(&tp, 0x000042);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[0], p.now, UDCCP_RESET_PACKET_ERROR, 0x000042);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_stateless(
    void **state) {
  udccp_pair p;
  udccp_conn *c = NULL;
  uint8_t pkt[256], out[1500];
  udccp_tb_pkt tp;
  udccp_ssize n, len;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 104), 0);
  /* The listener, and io/'s no-listener path (udccp_pkt_write_reset_reply). */
  short_ack(&tp, 0x777777);
  len = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_true(len > 0);
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)len, 0, &c, out,
                              sizeof(out));
  assert_null(c);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, 0x777777);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), pkt, (size_t)len,
                                  &p.path[1], UDCCP_CKSUM_FULL,
                                  UDCCP_RESET_NO_CONNECTION);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, 0x777777);
  udccp_pair_free(&p);
}

/* ------------------------------------------------ §10, §6.6.1 */

/* The next packet side writes, which must be of type want; its options
 * parsed (pointers into buf). */
static udccp_conn_rxpkt next_of(udccp_pair *p, int side, uint8_t *buf,
                                uint8_t want) {
  udccp_conn_rxpkt rp;
  udccp_ssize n = udccp_conn_write_pkt(p->c[side], buf, UDCCP_PAIR_MTU, NULL,
                                       p->now);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
  assert_int_equal(rp.h.type, want);
  assert_int_equal(
      udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len), 0);
  return rp;
}

/* Skips packets side writes until one of type want (at most 8). */
static udccp_conn_rxpkt next_type(udccp_pair *p, int side, uint8_t *buf,
                                  uint8_t want) {
  int i;
  for (i = 0; i < 8; ++i) {
    udccp_conn_rxpkt rp;
    udccp_ssize n = udccp_conn_write_pkt(p->c[side], buf, UDCCP_PAIR_MTU,
                                         NULL, p->now);
    assert_true(n > 0);
    assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
    if (rp.h.type == want) {
      assert_int_equal(
          udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len), 0);
      return rp;
    }
  }
  fail_msg("no packet of type %u", want);
  return next_of(p, side, buf, want);
}

/* Feeds side `to` an Ack with the given options, numbered to be valid. */
static int feed_ack_opts(udccp_pair *p, int to, const uint8_t *opts,
                         size_t olen) {
  udccp_conn_info info;
  udccp_tb_pkt tp;
  udccp_conn_get_info(p->c[to], &info);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (info.gsr + 1) & UDCCP_SEQ_MASK,
                    info.gss);
  tp.opts = opts;
  tp.opts_len = olen;
  return udccp_pair_feed(p, to, &tp);
}

/* The value a Confirm of type t for the CCID feature selects on the next
 * Ack side sends; -1 if there is none. */
static int confirmed_ccid(udccp_pair *p, int side, uint8_t t) {
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp = next_type(p, side, buf, UDCCP_PKT_ACK);
  size_t i;
  for (i = 0; i < rp.opts.n_feat; ++i) {
    const udccp_opt *o = &rp.opts.feat[i];
    if (o->type == t && o->len >= 2 && o->val[0] == UDCCP_FEAT_CCID) {
      return o->val[1];
    }
  }
  return -1;
}

static void test_rfc4340_10_ccid_confirm_after_handshake_is_ccid_in_use(
    void **state) {
  /* Change R(CCID, 3): "use CCID 3 for your data" (§10). */
  static const uint8_t change_r[] = {UDCCP_OPT_CHANGE_R, 4, 1, 3};
  /* Change L(CCID, 3, 4): "I will send with CCID 3 (or 4)". */
  static const uint8_t change_l[] = {UDCCP_OPT_CHANGE_L, 5, 1, 3, 4};
  udccp_pair p;
  udccp_conn_info info;
  (void)state;
  open_pair(&p, 201);
  udccp_conn_get_info(p.c[1], &info);
  assert_int_equal(info.tx_ccid, 2);
  assert_int_equal(info.rx_ccid, 2);
  /* §6.6.1: every Change gets a Confirm; §10: a Confirm names the CCID in
   * use for that half-connection, so it must be the one we run. */
  assert_int_equal(feed_ack_opts(&p, 1, change_r, sizeof(change_r)), 0);
  assert_int_equal(confirmed_ccid(&p, 1, UDCCP_OPT_CONFIRM_L), 2);
  assert_int_equal(feed_ack_opts(&p, 1, change_l, sizeof(change_l)), 0);
  assert_int_equal(confirmed_ccid(&p, 1, UDCCP_OPT_CONFIRM_R), 2);
  udccp_conn_get_info(p.c[1], &info);
  assert_int_equal(info.tx_ccid, 2);
  assert_int_equal(info.rx_ccid, 2);
  assert_int_equal(udccp_feat_get_local(&p.c[1]->feat, UDCCP_FEAT_CCID), 2);
  assert_int_equal(udccp_feat_get_remote(&p.c[1]->feat, UDCCP_FEAT_CCID), 2);
  /* The connection goes on with CCID 2 on both sides. */
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

static void test_rfc4340_6_6_9_mandatory_ccid_change_after_handshake_resets(
    void **state) {
  /* Mandatory Change R(CCID, 3): no shared value with the CCID we run. */
  static const uint8_t change_r[] = {UDCCP_OPT_MANDATORY, UDCCP_OPT_CHANGE_R,
                                     4, 1, 3};
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  (void)state;
  open_pair(&p, 202);
  assert_int_equal(feed_ack_opts(&p, 1, change_r, sizeof(change_r)),
                   UDCCP_ERR_RESET);
  rp = next_of(&p, 1, buf, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_MANDATORY_ERROR);
  udccp_pair_free(&p);
}

/* ------------------------------------------------ §8.1.4, §8.1.5 */

/* The raw options of type t in a packet, in order, concatenated as
 * (length, value) pairs into out; returns the bytes written. */
static size_t opts_of_type(const udccp_conn_rxpkt *rp, uint8_t t, uint8_t *out,
                           size_t cap) {
  const uint8_t *o = rp->h.opts;
  size_t i = 0, n = 0;
  while (i < rp->h.opts_len) {
    uint8_t type = o[i];
    size_t len;
    if (type < 32) {
      i++;
      continue;
    }
    assert_true(i + 1 < rp->h.opts_len);
    len = o[i + 1];
    assert_true(len >= 2 && i + len <= rp->h.opts_len);
    if (type == t) {
      assert_true(n + len - 1 <= cap);
      out[n++] = (uint8_t)(len - 2);
      memcpy(out + n, o + i + 2, len - 2);
      n += len - 2;
    }
    i += len;
  }
  return n;
}

typedef struct captured {
  uint8_t pkt[UDCCP_PAIR_MTU];
  size_t len;
} captured;

/* Keeps the server's packets from the client; the first Response is kept
 * in ud (it carries the Confirms, which are never repeated, §6.6.1). */
static int drop_to_client(udccp_pair *p, int dir, const uint8_t *pkt,
                          size_t len, uint64_t idx, void *ud) {
  captured *c = ud;
  (void)p;
  (void)idx;
  if (dir == 1 && c->len == 0 && len > 8 &&
      ((pkt[8] >> 1) & 0xF) == UDCCP_PKT_RESPONSE) {
    memcpy(c->pkt, pkt, len);
    c->len = len;
  }
  return dir == 1;
}

/* Response rp re-sent to the client with the Init Cookie options
 * `cookies` appended. */
static uint64_t feed_response(udccp_pair *p, const udccp_conn_rxpkt *rp,
                              const uint8_t *cookies, size_t clen) {
  uint8_t opts[1020];
  udccp_tb_pkt tp;
  int rv;
  assert_true(rp->h.opts_len + clen <= sizeof(opts));
  memcpy(opts, rp->h.opts, rp->h.opts_len);
  memcpy(opts + rp->h.opts_len, cookies, clen);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESPONSE, rp->h.seq, rp->h.ack);
  tp.service_code = rp->h.service_code;
  tp.opts = opts;
  tp.opts_len = rp->h.opts_len + clen;
  rv = udccp_pair_feed(p, 0, &tp);
  assert_int_equal(rv, 0);
  return rp->h.seq;
}

static void assert_cookies(const udccp_conn_rxpkt *rp, const uint8_t *want,
                           size_t n) {
  uint8_t got[1020];
  assert_int_equal(opts_of_type(rp, UDCCP_OPT_INIT_COOKIE, got, sizeof(got)),
                   n);
  assert_memory_equal(got, want, n);
}

static void test_rfc4340_8_1_4_client_echoes_all_init_cookies_in_order(
    void **state) {
  static const uint8_t two[] = {UDCCP_OPT_INIT_COOKIE, 5, 'a', 'b', 'c',
                                UDCCP_OPT_INIT_COOKIE, 4, 'd', 'e'};
  static const uint8_t two_echo[] = {3, 'a', 'b', 'c', 2, 'd', 'e'};
  static const uint8_t other[] = {UDCCP_OPT_INIT_COOKIE, 3, 'z'};
  static const uint8_t other_echo[] = {1, 'z'};
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  udccp_conn_info ci;
  udccp_tb_pkt tp;
  captured cap;
  uint64_t rs, rs2;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 301), 0);
  memset(&cap, 0, sizeof(cap));
  p.drop = drop_to_client;
  p.drop_ud = &cap;
  udccp_pair_run_for(&p, 50 * MS);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_RESPOND);
  assert_true(cap.len > 0);
  assert_int_equal(udccp_conn_decode(&rp, cap.pkt, cap.len), 0);
  rs = feed_response(&p, &rp, two, sizeof(two));
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_PARTOPEN);
  /* The Ack completing the handshake. */
  rp = next_of(&p, 0, buf, UDCCP_PKT_ACK);
  assert_int_equal(rp.h.ack, rs);
  assert_cookies(&rp, two_echo, sizeof(two_echo));
  /* A SyncAck sent in PARTOPEN echoes them too. */
  udccp_conn_get_info(p.c[0], &ci);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, rs + 1, ci.gss);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), 0);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_PARTOPEN);
  rp = next_type(&p, 0, buf, UDCCP_PKT_SYNCACK);
  assert_cookies(&rp, two_echo, sizeof(two_echo));
  /* So does a retransmitted Ack (the PARTOPEN timer). */
  p.now += 300 * MS;
  assert_int_equal(udccp_conn_handle_expiry(p.c[0], p.now), 0);
  rp = next_type(&p, 0, buf, UDCCP_PKT_ACK);
  assert_cookies(&rp, two_echo, sizeof(two_echo));
  /* A newer Response with another cookie: the echo follows the Response
   * the ackno names. */
  p.c[1]->gss = rs + 1; /* its next Response is rs + 2 */
  p.c[1]->pending |= UDCCP_PEND_RESPONSE;
  rp = next_of(&p, 1, cap.pkt, UDCCP_PKT_RESPONSE);
  rs2 = feed_response(&p, &rp, other, sizeof(other));
  assert_int_equal(rs2, rs + 2);
  rp = next_type(&p, 0, buf, UDCCP_PKT_ACK);
  assert_int_equal(rp.h.ack, rs2);
  assert_cookies(&rp, other_echo, sizeof(other_echo));
  udccp_pair_free(&p);
}

/* ------------------------------------------------ §11.4 */

typedef struct av_probe {
  uint64_t seq;
  int state;
} av_probe;

static int probe_run(uint64_t hi, uint64_t lo, uint8_t st, void *ud) {
  av_probe *pr = ud;
  if (udccp_seq_le(lo, pr->seq) && udccp_seq_ge(hi, pr->seq)) {
    pr->state = st;
    return 1;
  }
  return 0;
}

static void test_rfc4340_11_4_ackvec_never_reports_unprocessed_packet(
    void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  av_probe pr;
  uint64_t bad;
  (void)state;
  open_pair(&p, 401);
  (void)udccp_pair_stream(&p, 0, 100, 10 * MS, 200 * MS);
  udccp_pair_run_for(&p, 100 * MS);
  /* A Response reaching the server is dropped at step 7 (after step 6
   * moved GSR): it was never processed. */
  udccp_conn_get_info(p.c[1], &si);
  bad = (si.gsr + 1) & UDCCP_SEQ_MASK;
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESPONSE, bad, si.gss);
  tp.service_code = 42;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  p.c[1]->pending |= UDCCP_PEND_ACK;
  rp = next_type(&p, 1, buf, UDCCP_PKT_ACK);
  assert_true(rp.opts.n_ackvec > 0);
  /* §7.4: the Acknowledgement Number is GSR; §11.4: the vector starts
   * there, and says the packet was not received. */
  assert_int_equal(rp.h.ack, bad);
  pr.seq = bad;
  pr.state = -1;
  assert_int_equal(udccp_ackvec_parse(&rp.opts, rp.h.ack, probe_run, &pr), 0);
  assert_int_equal(pr.state, UDCCP_AV_NOT_RECEIVED);
  /* The packet before it did arrive and is still reported so. */
  pr.seq = si.gsr;
  pr.state = -1;
  assert_int_equal(udccp_ackvec_parse(&rp.opts, rp.h.ack, probe_run, &pr), 0);
  assert_int_equal(pr.state, UDCCP_AV_RECEIVED);
  udccp_pair_free(&p);
}

/* ------------------------------------------------ §6.6.7 */

static int unknown_feat(size_t i) {
  return i >= 10 && i != 128 && i != 192; /* 128: RFC 6323, 192: RFC 4342 */
}

static void test_rfc4340_6_6_7_every_unknown_change_gets_empty_confirm(
    void **state) {
  /* A Change L and a Change R for every unknown feature number: 488
   * Changes in two packets, the first as full as an options area gets.
   * Their 488 Empty Confirms (1464 bytes) cannot fit on one packet: what
   * does not fit goes on the next packets (§6.6.1 asks for a Confirm per
   * Change, not for one packet); none is lost or repeated. */
  uint8_t opts[2][1008];
  size_t olen[2] = {0, 0};
  uint8_t seen[2][256];
  udccp_pair p;
  size_t i, want = 0, got = 0;
  int k, t;
  (void)state;
  memset(seen, 0, sizeof(seen));
  for (t = 0; t < 2; t++) {
    for (i = 0; i < 256; i++) {
      size_t w;
      if (!unknown_feat(i)) {
        continue;
      }
      w = olen[0] + 3 <= 990 ? 0 : 1;
      opts[w][olen[w]++] = t == 0 ? UDCCP_OPT_CHANGE_L : UDCCP_OPT_CHANGE_R;
      opts[w][olen[w]++] = 3;
      opts[w][olen[w]++] = (uint8_t)i;
      want++;
    }
  }
  assert_int_equal(want, 488);
  open_pair(&p, 501);
  assert_int_equal(feed_ack_opts(&p, 1, opts[0], olen[0]), 0);
  assert_int_equal(feed_ack_opts(&p, 1, opts[1], olen[1]), 0);
  for (k = 0; k < 8; ++k) {
    uint8_t buf[UDCCP_PAIR_MTU];
    udccp_conn_rxpkt rp;
    udccp_ssize len = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL,
                                           p.now);
    const uint8_t *o;
    if (len == 0) {
      break;
    }
    if (len < 0) {
      fail_msg("write_pkt: %d", (int)len);
    }
    assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)len), 0);
    o = rp.h.opts;
    for (i = 0; i < rp.h.opts_len;) {
      if (o[i] < 32) {
        i++;
        continue;
      }
      if ((o[i] == UDCCP_OPT_CONFIRM_L || o[i] == UDCCP_OPT_CONFIRM_R) &&
          unknown_feat(o[i + 2])) {
        int loc = o[i] == UDCCP_OPT_CONFIRM_L;
        assert_int_equal(o[i + 1], 3); /* empty */
        assert_int_equal(seen[loc][o[i + 2]], 0);
        seen[loc][o[i + 2]] = 1;
        got++;
      }
      i += o[i + 1];
    }
  }
  assert_true(k > 1); /* more than one packet was needed */
  assert_int_equal(got, want);
  for (i = 0; i < 256; i++) {
    if (unknown_feat(i)) {
      /* Change R(i) asks for Confirm L(i); Change L(i) for Confirm R(i). */
      assert_true(seen[0][i] && seen[1][i]);
    }
  }
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

/* ------------------------------------------------ the SHOULDs */

static int drop_all_but_first_request(udccp_pair *p, int dir,
                                      const uint8_t *pkt, size_t len,
                                      uint64_t idx, void *ud) {
  (void)p;
  (void)pkt;
  (void)len;
  (void)ud;
  return dir == 1 || idx > 0;
}

static void test_rfc4340_8_1_1_client_giving_up_sends_reset_aborted(
    void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt last;
  int i;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.request_timeout = 20 * S;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 601), 0);
  memset(&last, 0, sizeof(last));
  /* Nobody answers: Requests until the client gives up. */
  for (i = 0; i < 64 && udccp_pair_state(&p, 0) != UDCCP_STATE_CLOSED; ++i) {
    udccp_tstamp t = udccp_conn_get_expiry(p.c[0]);
    if (t > p.now) {
      p.now = t;
    }
    (void)udccp_conn_handle_expiry(p.c[0], p.now);
    for (;;) {
      udccp_conn_rxpkt rp = udccp_pair_next_pkt(&p, 0, buf);
      if (rp.h.type == 0xFF) {
        break;
      }
      last = rp;
    }
  }
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  /* §8.1.1: a Reset(Aborted), Acknowledgement Number zero. */
  assert_int_equal(last.h.type, UDCCP_PKT_RESET);
  assert_int_equal(last.h.reset_code, UDCCP_RESET_ABORTED);
  assert_int_equal(last.h.ack, 0);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_3_respond_timeout_at_least_4msl_then_aborted(
    void **state) {
  udccp_pair p;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 602), 0);
  p.drop = drop_all_but_first_request;
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_RESPOND);
  /* §8.1.3: not less than 4MSL (8 minutes) in RESPOND... */
  udccp_pair_run_for(&p, 7 * 60 * S);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_RESPOND);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 0);
  /* The Response is not resent by timer (§8.1.3: the client resends its
   * Request). */
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESPONSE), 1);
  /* ...then CLOSED with a Reset(Aborted) for the client. */
  udccp_pair_run_for(&p, 2 * 60 * S);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 1);
  assert_int_equal(udccp_conn_get_reset_code(p.c[1]), UDCCP_RESET_ABORTED);
  udccp_pair_free(&p);
}

static void test_rfc4340_9_2_1_unacceptable_cscov_refuses_data_only(
    void **state) {
  static const uint8_t data[100] = {1};
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  uint64_t seq;
  (void)state;
  open_pair(&p, 603);
  /* MinCsCov/server is 0: only full coverage is acceptable. */
  udccp_conn_get_info(p.c[1], &si);
  seq = (si.gsr + 1) & UDCCP_SEQ_MASK;
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, seq, si.gss);
  tp.cscov = 1;
  tp.payload = data;
  tp.payload_len = sizeof(data);
  /* The header is processed (GSR moves), the data dropped... */
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.gsr, seq);
  /* ...not delivered... */
  assert_true(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) <= 0);
  /* ...and the next ack reports it dropped, Drop Code 0 (§11.7). */
  p.c[1]->pending |= UDCCP_PEND_ACK;
  rp = next_type(&p, 1, buf, UDCCP_PKT_ACK);
  assert_int_equal(rp.h.ack, seq);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_DATA_DROPPED);
  assert_true(rp.opts.data_dropped_len >= 1);
  /* First block describes the ackno: Drop Block, code 0, run length 0. */
  assert_int_equal(rp.opts.data_dropped[0], 0x80);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_3_stringent_sync_check_when_active(
    void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t buf[UDCCP_PAIR_MTU];
  (void)state;
  open_pair(&p, 604);
  (void)udccp_pair_stream(&p, 0, 100, 10 * MS, 100 * MS);
  udccp_conn_get_info(p.c[1], &si);
  assert_true(si.srtt > 0);
  /* Active (a valid packet within 3 RTTs): a Sync beyond SWH is
   * sequence-invalid. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, (si.swh + 10) & UDCCP_SEQ_MASK,
                    si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_conn_get_info(p.c[1], &si);
  assert_true(udccp_seq_lt(si.gsr, tp.seq));
  assert_int_equal(p.c[1]->pending & UDCCP_PEND_SYNCACK, 0);
  /* Silent for more than 3 RTTs: the lenient check of the table (no upper
   * bound) lets it resynchronise. */
  p.now += 3 * si.srtt + 100 * MS;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.gsr, tp.seq);
  (void)next_type(&p, 1, buf, UDCCP_PKT_SYNCACK);
  udccp_pair_free(&p);
}

/* The state the Ack Vector of side's next Ack gives packet seq; -1 if it
 * does not describe it. */
static int av_state_of(udccp_pair *p, int side, uint64_t seq) {
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  av_probe pr;
  p->c[side]->pending |= UDCCP_PEND_ACK;
  rp = next_type(p, side, buf, UDCCP_PKT_ACK);
  pr.seq = seq;
  pr.state = -1;
  assert_int_equal(udccp_ackvec_parse(&rp.opts, rp.h.ack, probe_run, &pr), 0);
  return pr.state;
}

static void feed_ack_for(udccp_pair *p, int to, uint64_t ackno) {
  udccp_conn_info i;
  udccp_tb_pkt tp;
  udccp_conn_get_info(p->c[to], &i);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (i.gsr + 1) & UDCCP_SEQ_MASK, ackno);
  assert_int_equal(udccp_pair_feed(p, to, &tp), 0);
}

static void test_rfc4340_a_3_ack_of_ack_clears_exactly_acknowledged_record(
    void **state) {
  udccp_pair p;
  udccp_conn_info si;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt a1;
  uint64_t g1, s_sync;
  (void)state;
  open_pair(&p, 605);
  (void)udccp_pair_stream(&p, 0, 100, 10 * MS, 200 * MS);
  /* A1: an Ack with a vector (record: A1's seq, ackno g1). */
  udccp_conn_get_info(p.c[1], &si);
  g1 = si.gsr;
  p.c[1]->pending |= UDCCP_PEND_ACK;
  a1 = next_type(&p, 1, buf, UDCCP_PKT_ACK);
  assert_true(a1.opts.n_ackvec > 0);
  /* Then a packet without a vector: a Sync. */
  p.c[1]->sync_ackno = si.gsr;
  p.c[1]->pending |= UDCCP_PEND_SYNC;
  s_sync = next_type(&p, 1, buf, UDCCP_PKT_SYNC).h.seq;
  /* The peer acknowledges the Sync: that proves nothing about A1, so the
   * state A1 reported stays in the vector. */
  feed_ack_for(&p, 1, s_sync);
  assert_int_equal(av_state_of(&p, 1, g1), UDCCP_AV_RECEIVED);
  /* The peer acknowledges A1 itself: what A1 reported (up to g1) is
   * acknowledged and goes; what came after stays. */
  feed_ack_for(&p, 1, a1.h.seq);
  assert_int_equal(av_state_of(&p, 1, g1), -1);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(av_state_of(&p, 1, si.gsr), UDCCP_AV_RECEIVED);
  udccp_pair_free(&p);
}

static void test_rfc4340_13_3_timestamp_echo_on_next_packet_of_any_type(
    void **state) {
  static const uint8_t ts1[] = {UDCCP_OPT_TIMESTAMP, 6, 0, 0, 0, 5};
  static const uint8_t ts2[] = {UDCCP_OPT_TIMESTAMP, 6, 0, 0, 0, 9};
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt rp;
  (void)state;
  open_pair(&p, 606);
  /* The next packet is a CloseReq (no acknowledgement pending). */
  assert_int_equal(feed_ack_opts(&p, 1, ts1, sizeof(ts1)), 0);
  p.c[1]->pending = 0;
  p.c[1]->ackq_n = 0;
  p.c[1]->ack_needed = 0;
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  rp = next_of(&p, 1, buf, UDCCP_PKT_CLOSEREQ);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_TS_ECHO);
  assert_int_equal(rp.opts.ts_echo, 5);
  /* A Reset too. */
  assert_int_equal(feed_ack_opts(&p, 1, ts2, sizeof(ts2)), 0);
  assert_int_equal(udccp_conn_abort(p.c[1], UDCCP_RESET_ABORTED, p.now), 0);
  rp = next_of(&p, 1, buf, UDCCP_PKT_RESET);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_TS_ECHO);
  assert_int_equal(rp.opts.ts_echo, 9);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_timewait),
      cmocka_unit_test(test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_listen),
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_request),
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_stateless),
      cmocka_unit_test(
          test_rfc4340_10_ccid_confirm_after_handshake_is_ccid_in_use),
      cmocka_unit_test(
          test_rfc4340_6_6_9_mandatory_ccid_change_after_handshake_resets),
      cmocka_unit_test(
          test_rfc4340_8_1_4_client_echoes_all_init_cookies_in_order),
      cmocka_unit_test(
          test_rfc4340_11_4_ackvec_never_reports_unprocessed_packet),
      cmocka_unit_test(
          test_rfc4340_6_6_7_every_unknown_change_gets_empty_confirm),
      cmocka_unit_test(
          test_rfc4340_8_1_1_client_giving_up_sends_reset_aborted),
      cmocka_unit_test(
          test_rfc4340_8_1_3_respond_timeout_at_least_4msl_then_aborted),
      cmocka_unit_test(
          test_rfc4340_9_2_1_unacceptable_cscov_refuses_data_only),
      cmocka_unit_test(test_rfc4340_7_5_3_stringent_sync_check_when_active),
      cmocka_unit_test(
          test_rfc4340_a_3_ack_of_ack_clears_exactly_acknowledged_record),
      cmocka_unit_test(
          test_rfc4340_13_3_timestamp_echo_on_next_packet_of_any_type),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
