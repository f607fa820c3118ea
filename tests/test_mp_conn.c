/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP (RFC 9897) as two sans-I/O endpoints negotiate it: the
 * Multipath Capable feature in the first subflow's handshake (§3.1) and
 * the fallback to plain DCCP when one side does not offer it (§3.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "feat.h"
#include "mp_opt.h"
#include "pair.h"

#define S UDCCP_NS_PER_S

/* Opens a pair with multipath on the client (cmp) and the server (smp). */
static void open_pair(udccp_pair *p, int cmp, int smp, uint64_t seed) {
  udccp_settings cs, ss;
  memset(p, 0, sizeof(*p));
  udccp_pair_settings(p, &cs);
  udccp_pair_settings(p, &ss);
  cs.multipath = (uint8_t)cmp;
  ss.multipath = (uint8_t)smp;
  assert_int_equal(udccp_pair_init(p, &cs, &ss, NULL, seed), 0);
}

/* The options of the first packet side writes now. */
static udccp_conn_rxpkt first_pkt(udccp_pair *p, int side, uint8_t *buf) {
  udccp_conn_rxpkt r = udccp_pair_next_pkt(p, side, buf);
  assert_int_equal(udccp_opts_parse(&r.opts, r.h.type, r.h.opts,
                                    r.h.opts_len),
                   0);
  return r;
}

/* 1 if opts hold a Change/Confirm of type t for feature 10 with exactly
 * the values v[0..n-1]. */
static int has_feat10(const udccp_opts *o, uint8_t t, const uint8_t *v,
                      size_t n) {
  size_t i;
  for (i = 0; i < o->n_feat; i++) {
    if (o->feat[i].type == t && o->feat[i].val[0] == 10 &&
        o->feat[i].len == n + 1 && memcmp(o->feat[i].val + 1, v, n) == 0) {
      return 1;
    }
  }
  return 0;
}

/* §3.1: "Clients MUST include a Change R option during the initial
 * handshake request to supply a list of supported MP-DCCP protocol
 * versions" -- version 0 only (value 0x00). */
static void test_rfc9897_3_1_client_sends_change_r(void **state) {
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  static const uint8_t v0[] = {0};
  udccp_conn_rxpkt r;
  (void)state;
  open_pair(&p, 1, 1, 1);
  r = first_pkt(&p, 0, buf);
  assert_int_equal(r.h.type, UDCCP_PKT_REQUEST);
  assert_true(has_feat10(&r.opts, UDCCP_OPT_CHANGE_R, v0, 1));
  udccp_pair_free(&p);

  /* Multipath off: no mention of feature 10. */
  open_pair(&p, 0, 1, 1);
  r = first_pkt(&p, 0, buf);
  assert_false(has_feat10(&r.opts, UDCCP_OPT_CHANGE_R, v0, 1));
  udccp_pair_free(&p);
}

/* §3.1: both sides offer version 0: the server's Confirm L carries the
 * agreed version then its own list, and both ends agree on version 0. */
static void test_rfc9897_3_1_both_agree_version_0(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 1, 1, 2);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), 0);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), 0);
  udccp_pair_free(&p);
}

/* §3.6: a server without multipath answers Change R(10) with an Empty
 * Confirm (RFC 4340 §6.6.7, feature unknown to it); the client falls back
 * to plain DCCP and the connection opens and carries data. */
static void test_rfc9897_3_6_fallback_server_without_mp(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 1, 0, 3);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), -1);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), -1);
  assert_true(udccp_pair_stream(&p, 0, 500, 0, S) > 10);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

/* §3.6: a client without multipath and a server with it: plain DCCP. */
static void test_rfc9897_3_6_fallback_client_without_mp(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 0, 1, 4);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), -1);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), -1);
  udccp_pair_free(&p);
}

/* Drop hook that keeps everything and notes a Response carrying an
 * empty Confirm L(10). */
static int spy_response(udccp_pair *p, int dir, const uint8_t *pkt,
                        size_t len, uint64_t idx, void *ud) {
  udccp_hdr h;
  udccp_opts o;
  static const uint8_t none[1] = {0};
  (void)p;
  (void)idx;
  if (dir == 1 && udccp_hdr_decode(&h, pkt, len) == 0 &&
      h.type == UDCCP_PKT_RESPONSE &&
      udccp_opts_parse(&o, h.type, h.opts, h.opts_len) == 0 &&
      has_feat10(&o, UDCCP_OPT_CONFIRM_L, none, 0)) {
    *(int *)ud = 1;
  }
  return 0;
}

/* §3.1 "If no agreement is found, the Server MUST reply with an empty
 * Confirm L option with feature number 10 and no values": a client that
 * lists only version 1 (unassigned) gets an Empty Confirm L(10) and falls
 * back (§3.6).  The low four bits of a value are ignored (§3.1): 0x05
 * is version 0. */
static void test_rfc9897_3_1_no_agreement_empty_confirm(void **state) {
  udccp_pair p;
  static const uint8_t v1[] = {0x10}, v5[] = {0x05};
  int seen = 0;
  (void)state;
  open_pair(&p, 1, 1, 5);
  p.drop = spy_response;
  p.drop_ud = &seen;
  assert_int_equal(udccp_feat_change_sp(&p.c[0]->feat, 10, 0, v1, 1, 0), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(seen, 1); /* Response with Confirm L(10) and no value */
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), -1);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), -1);
  udccp_pair_free(&p);

  open_pair(&p, 1, 1, 6);
  assert_int_equal(udccp_feat_change_sp(&p.c[0]->feat, 10, 0, v5, 1, 0), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), 0);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), 0);
  udccp_pair_free(&p);
}

static void fake_rand(uint8_t *d, size_t n, void *ud) {
  (void)ud;
  memset(d, 0x3C, n);
}

/* §3.6: a Response that leaves Change R(10) unanswered ends the
 * negotiation as "not agreed", without failing the handshake. */
static void test_rfc9897_3_6_unanswered_change_falls_back(void **state) {
  udccp_feat_set fs;
  udccp_settings s;
  (void)state;
  udccp_settings_default(&s);
  s.multipath = 1;
  assert_int_equal(udccp_feat_init(&fs, &s, 0, 1000, NULL), 0);
  assert_false(udccp_feat_entry_get(&fs, 10, 0)->state == UDCCP_FEAT_STABLE);
  udccp_feat_mp_fallback(&fs);
  assert_true(udccp_feat_entry_get(&fs, 10, 0)->state == UDCCP_FEAT_STABLE);
  assert_int_equal(udccp_feat_mp_version(&fs), -1);
  /* Off: feature 10 is unknown here. */
  s.multipath = 0;
  assert_int_equal(udccp_feat_init(&fs, &s, 0, 1000, NULL), 0);
  assert_null(udccp_feat_entry_get(&fs, 10, 0));
  s.rand = fake_rand;
  assert_int_equal(udccp_settings_check(&s), 0);
  s.multipath = 1;
  assert_int_equal(udccp_settings_check(&s), 0);
  s.multipath = 2;
  assert_int_equal(udccp_settings_check(&s), UDCCP_ERR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc9897_3_1_client_sends_change_r),
      cmocka_unit_test(test_rfc9897_3_1_both_agree_version_0),
      cmocka_unit_test(test_rfc9897_3_6_fallback_server_without_mp),
      cmocka_unit_test(test_rfc9897_3_6_fallback_client_without_mp),
      cmocka_unit_test(test_rfc9897_3_1_no_agreement_empty_confirm),
      cmocka_unit_test(test_rfc9897_3_6_unanswered_change_falls_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
