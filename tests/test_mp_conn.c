/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP (RFC 9897) as two sans-I/O endpoints negotiate it: the
 * Multipath Capable feature in the first subflow's handshake (§3.1), the
 * MP_KEY exchange (§3.3) and the fallback to plain DCCP when one side
 * does not offer it or no key type is shared (§3.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "feat.h"
#include "mp.h"
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


/* Steps until the listener made the server connection (its Response not
 * yet written). */
static void until_server(udccp_pair *p) {
  int i;
  for (i = 0; i < 100 && p->c[1] == NULL; i++) {
    udccp_pair_step(p);
  }
  assert_non_null(p->c[1]);
}

/* The MP_KEY of a packet's options, or 0. */
static int get_key(const udccp_opts *o, udccp_mp_opt *k) {
  size_t pos = 0;
  int rv;
  while (o->mp && (rv = udccp_mp_next(o->mp, o->mp_len, &pos, k)) != 2) {
    if (rv == 0 && k->type == UDCCP_MP_KEY) {
      return 1;
    }
  }
  return 0;
}

/* §3.3: the Request carries MP_KEY(CI-A, KeyA) with a plain-text key
 * (§3.2.4: Key Type 0 MUST be supported), Length 17. */
static void test_rfc9897_3_3_request_carries_mp_key(void **state) {
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_conn_rxpkt r;
  udccp_mp_opt k;
  (void)state;
  open_pair(&p, 1, 1, 7);
  r = first_pkt(&p, 0, buf);
  assert_int_equal(r.h.type, UDCCP_PKT_REQUEST);
  assert_true(get_key(&r.opts, &k));
  assert_int_equal(k.len, 17);
  assert_int_equal(k.u.key.n_keys, 1);
  assert_int_equal(k.u.key.keys[0].type, UDCCP_MP_KEY_PLAIN);
  assert_int_equal(k.u.key.ci, p.c[0]->mp->keys.local_ci);
  assert_memory_equal(k.u.key.keys[0].data, p.c[0]->mp->keys.local, 8);
  assert_true(k.u.key.ci != 0);
  udccp_pair_free(&p);
  /* Off: no Multipath option at all. */
  open_pair(&p, 0, 1, 7);
  r = first_pkt(&p, 0, buf);
  assert_int_equal(r.opts.n_mp, 0);
  udccp_pair_free(&p);
}

/* §3.3: the Response carries MP_KEY(CI-B, a single KeyB); after the Acks
 * both ends hold the other's CI and key, and the derived keys match
 * (d-keyA on A is what B computes for A, §3.2.4). */
static void test_rfc9897_3_3_keys_exchanged(void **state) {
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU], da[16], da_at_b[16];
  udccp_conn_rxpkt r;
  udccp_mp_opt k;
  const udccp_mp_keys *a, *b;
  (void)state;
  open_pair(&p, 1, 1, 8);
  until_server(&p);
  r = first_pkt(&p, 1, buf);
  assert_int_equal(r.h.type, UDCCP_PKT_RESPONSE);
  assert_true(get_key(&r.opts, &k));
  assert_int_equal(k.u.key.n_keys, 1);
  assert_int_equal(k.len, 17);
  udccp_pair_free(&p);

  open_pair(&p, 1, 1, 8);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, S / 2);
  assert_true(udccp_mp_active(p.c[0]->mp, &p.c[0]->feat));
  assert_true(udccp_mp_active(p.c[1]->mp, &p.c[1]->feat));
  a = &p.c[0]->mp->keys;
  b = &p.c[1]->mp->keys;
  assert_int_equal(a->remote_ci, b->local_ci);
  assert_int_equal(b->remote_ci, a->local_ci);
  assert_memory_equal(a->remote, b->local, 8);
  assert_memory_equal(b->remote, a->local, 8);
  assert_memory_not_equal(a->local, b->local, 8);
  udccp_mp_dkey(a, 0, da);
  udccp_mp_dkey(b, 1, da_at_b);
  assert_memory_equal(da, da_at_b, 16);
  udccp_pair_free(&p);
}

/* §3.6: "The fall back procedure to regular DCCP MUST be also applied if
 * the MP_KEY Key Type cannot be negotiated": a Request asking for
 * MP_CAPABLE without a usable MP_KEY gets an Empty Confirm L(10), and
 * both ends run plain DCCP. */
static void test_rfc9897_3_6_no_key_type_falls_back(void **state) {
  udccp_pair p;
  int seen = 0;
  (void)state;
  open_pair(&p, 1, 1, 9);
  p.c[0]->mp->phase = UDCCP_MP_OFF; /* the Request goes without MP_KEY */
  p.drop = spy_response;
  p.drop_ud = &seen;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_int_equal(seen, 1);
  assert_int_equal(udccp_feat_mp_version(&p.c[0]->feat), -1);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), -1);
  assert_false(udccp_mp_active(p.c[1]->mp, &p.c[1]->feat));
  assert_true(udccp_pair_stream(&p, 0, 500, 0, S) > 10);
  udccp_pair_free(&p);
}

/* §3.6: an agreed Response without MP_KEY (malformed key exchange):
 * "that subflow MUST be closed" -- the client resets with Option Error. */
static void test_rfc9897_3_6_agreed_without_key_closes(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 1, 1, 10);
  until_server(&p);
  p.c[1]->mp->phase = UDCCP_MP_OFF; /* Confirm L(10, 0) but no MP_KEY */
  udccp_pair_run_for(&p, 2 * S);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]),
                   UDCCP_RESET_OPTION_ERROR);
  assert_true(udccp_pair_state(&p, 0) != UDCCP_STATE_OPEN);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_RESET) >= 1);
  udccp_pair_free(&p);
}

typedef struct seq_spy {
  uint64_t data_pkts, with_seq, consecutive;
  uint64_t last;
  int have_last;
} seq_spy;

/* Drop hook that keeps everything and checks the client's data packets
 * for MP_SEQ. */
static int spy_mp_seq(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                      uint64_t idx, void *ud) {
  seq_spy *sp = ud;
  udccp_hdr h;
  udccp_opts o;
  udccp_mp_opt m;
  size_t pos = 0;
  int rv;
  (void)p;
  (void)idx;
  if (dir != 0 || udccp_hdr_decode(&h, pkt, len) != 0 ||
      (h.type != UDCCP_PKT_DATA && h.type != UDCCP_PKT_DATAACK) ||
      h.payload_len == 0 ||
      udccp_opts_parse(&o, h.type, h.opts, h.opts_len) != 0) {
    return 0;
  }
  sp->data_pkts++;
  while (o.mp && (rv = udccp_mp_next(o.mp, o.mp_len, &pos, &m)) != 2) {
    if (rv == 0 && m.type == UDCCP_MP_SEQ) {
      sp->with_seq++;
      if (sp->have_last && m.u.seq == ((sp->last + 1) & UDCCP_SEQ_MASK)) {
        sp->consecutive++;
      }
      sp->last = m.u.seq;
      sp->have_last = 1;
      break;
    }
  }
  return 0;
}

/* §3.2.5: MP_SEQ "MUST be sent with all DCCP-Data and DCCP-DataACK
 * packets"; a subflow used alone numbers its datagrams one by one from a
 * random IDSN; without multipath no MP_SEQ is sent. */
static void test_rfc9897_3_2_5_mp_seq_on_every_data_packet(void **state) {
  udccp_pair p;
  seq_spy sp;
  uint64_t got;
  (void)state;
  memset(&sp, 0, sizeof(sp));
  open_pair(&p, 1, 1, 11);
  p.drop = spy_mp_seq;
  p.drop_ud = &sp;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  got = udccp_pair_stream(&p, 0, 400, UDCCP_NS_PER_MS, S);
  print_message("%llu datagrams read, %llu data packets, %llu with MP_SEQ, "
                "%llu consecutive\n", (unsigned long long)got,
                (unsigned long long)sp.data_pkts,
                (unsigned long long)sp.with_seq,
                (unsigned long long)sp.consecutive);
  assert_true(sp.data_pkts > 50);
  assert_true(sp.with_seq == sp.data_pkts);
  assert_true(sp.consecutive == sp.data_pkts - 1);
  udccp_pair_free(&p);

  memset(&sp, 0, sizeof(sp));
  open_pair(&p, 1, 0, 11); /* fallen back: plain DCCP */
  p.drop = spy_mp_seq;
  p.drop_ud = &sp;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  (void)udccp_pair_stream(&p, 0, 400, UDCCP_NS_PER_MS, S);
  assert_true(sp.data_pkts > 50);
  assert_int_equal(sp.with_seq, 0);
  udccp_pair_free(&p);
}

/* The keys of the first subflow's server, for the listener of a second
 * subflow (the application's table of MP connections by CI). */
static int resolve_first(void *ud, uint32_t ci, udccp_mp_keys *out) {
  udccp_pair *first = ud;
  if (first->c[1] == NULL || first->c[1]->mp == NULL ||
      first->c[1]->mp->keys.local_ci != ci) {
    return 0;
  }
  *out = first->c[1]->mp->keys;
  return 1;
}

/* A second pair whose client joins the MP connection of `first`. */
static void open_join(udccp_pair *p, udccp_pair *first, uint64_t seed,
                      const udccp_mp_keys *keys) {
  open_pair(p, 1, 1, seed);
  udccp_listener_set_mp_resolver(p->lis, resolve_first, first);
  assert_int_equal(udccp_mp_join_client(p->c[0]->mp, keys, 1), 0);
}

/* §3.3 second handshake: Request + Change R(MP_CAPABLE) + MP_JOIN(CI-B,
 * RA); Response + Confirm L + MP_JOIN(CI-A, RB) + MP_HMAC(B); Ack +
 * MP_HMAC(A).  Both ends verify and the subflow is in the connection. */
static void test_rfc9897_3_3_join_second_subflow(void **state) {
  udccp_pair first, p;
  (void)state;
  open_pair(&first, 1, 1, 20);
  assert_true(udccp_pair_run_until(&first, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&first, S / 2);
  assert_true(udccp_mp_active(first.c[1]->mp, &first.c[1]->feat));
  open_join(&p, &first, 21, &first.c[0]->mp->keys);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, S / 2);
  assert_true(udccp_mp_active(p.c[0]->mp, &p.c[0]->feat));
  assert_true(udccp_mp_active(p.c[1]->mp, &p.c[1]->feat));
  assert_int_equal(p.c[1]->mp->join, 1);
  assert_int_equal(p.c[1]->mp->addr_id_remote, 1);
  assert_int_equal(p.c[1]->mp->keys.remote_ci, first.c[0]->mp->keys.local_ci);
  assert_int_equal(p.c[0]->mp->hmac_owed, 0);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
  udccp_pair_free(&first);
}

/* §3.2.2/§3.4: a join naming an unknown CI is Reset; §3.6: an MP_HMAC
 * that does not verify closes the subflow (the client's keys are wrong:
 * it refuses the server's MP_HMAC(B)). */
static void test_rfc9897_3_6_join_bad_ci_or_hmac_closed(void **state) {
  udccp_pair first, p;
  udccp_mp_keys k;
  (void)state;
  open_pair(&first, 1, 1, 22);
  assert_true(udccp_pair_run_until(&first, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&first, S / 2);

  k = first.c[0]->mp->keys;
  k.remote_ci ^= 1; /* a CI the server does not know */
  open_join(&p, &first, 23, &k);
  udccp_pair_run_for(&p, 3 * S);
  assert_true(udccp_pair_state(&p, 0) != UDCCP_STATE_OPEN);
  assert_true(udccp_pair_count(&p, 1, UDCCP_PKT_RESET) >= 1);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESPONSE), 0);
  udccp_pair_free(&p);

  k = first.c[0]->mp->keys;
  k.local[0] ^= 0x80; /* the client's view of KeyA is wrong */
  open_join(&p, &first, 24, &k);
  udccp_pair_run_for(&p, 3 * S);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]),
                   UDCCP_RESET_OPTION_ERROR);
  assert_true(udccp_pair_state(&p, 0) != UDCCP_STATE_OPEN);
  assert_true(udccp_pair_count(&p, 1, UDCCP_PKT_RESPONSE) >= 1);
  assert_false(udccp_mp_active(p.c[0]->mp, &p.c[0]->feat));
  udccp_pair_free(&p);

  /* The server checks MP_HMAC(A) on the client's Ack: one computed over
   * another nonce is refused with a Reset (Option Error). */
  open_join(&p, &first, 25, &first.c[0]->mp->keys);
  {
    int i;
    for (i = 0; i < 200 && udccp_pair_state(&p, 0) != UDCCP_STATE_PARTOPEN;
         i++) {
      udccp_pair_step(&p);
    }
  }
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_PARTOPEN);
  p.c[0]->mp->nonce_local ^= 1;
  udccp_pair_run_for(&p, 3 * S);
  assert_int_equal(udccp_conn_get_reset_code(p.c[1]),
                   UDCCP_RESET_OPTION_ERROR);
  assert_true(udccp_pair_state(&p, 0) != UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
  udccp_pair_free(&first);
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

/* §3.1: "No subsequent re-negotiation of the MP_CAPABLE feature is
 * allowed for the same MP-DCCP connection": a Change R(10) offering only
 * version 1 after the handshake leaves the server at version 0, still
 * multipath (without the rule it found no common version and dropped
 * multipath in the middle of the connection). */
static void test_rfc9897_3_1_no_renegotiation_after_handshake(void **state) {
  udccp_pair p;
  static const uint8_t v1 = 0x10;
  (void)state;
  open_pair(&p, 1, 1, 7);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_true(udccp_mp_active(p.c[1]->mp, &p.c[1]->feat));
  assert_int_equal(udccp_feat_change_sp(&p.c[0]->feat, UDCCP_FEAT_MP_CAPABLE,
                                        0, &v1, 1, 0),
                   0);
  assert_true(udccp_pair_stream(&p, 0, 100, S / 100, 2 * S) > 0);
  assert_int_equal(udccp_feat_mp_version(&p.c[1]->feat), 0);
  assert_true(udccp_mp_active(p.c[1]->mp, &p.c[1]->feat));
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc9897_3_1_client_sends_change_r),
      cmocka_unit_test(test_rfc9897_3_1_both_agree_version_0),
      cmocka_unit_test(test_rfc9897_3_1_no_renegotiation_after_handshake),
      cmocka_unit_test(test_rfc9897_3_6_fallback_server_without_mp),
      cmocka_unit_test(test_rfc9897_3_6_fallback_client_without_mp),
      cmocka_unit_test(test_rfc9897_3_1_no_agreement_empty_confirm),
      cmocka_unit_test(test_rfc9897_3_6_unanswered_change_falls_back),
      cmocka_unit_test(test_rfc9897_3_3_request_carries_mp_key),
      cmocka_unit_test(test_rfc9897_3_3_keys_exchanged),
      cmocka_unit_test(test_rfc9897_3_6_no_key_type_falls_back),
      cmocka_unit_test(test_rfc9897_3_6_agreed_without_key_closes),
      cmocka_unit_test(test_rfc9897_3_2_5_mp_seq_on_every_data_packet),
      cmocka_unit_test(test_rfc9897_3_3_join_second_subflow),
      cmocka_unit_test(test_rfc9897_3_6_join_bad_ci_or_hmac_closed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
