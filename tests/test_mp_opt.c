/* SPDX-License-Identifier: MIT */
/*
 * The Multipath option of RFC 9897 (lib/mp_opt.c): every suboption
 * encoded and decoded back, the exact bytes of a few against the figures
 * of §3.2, every length rule of §3.2 (one byte short, one byte long),
 * unknown suboptions and Key Types, MP_CONFIRM lists, and the options
 * parser handing Multipath options over (type 46 on every packet type).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mp_opt.h"
#include "pkt.h"

static const uint8_t key_a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static uint8_t key_x[64];

/* Encodes o, decodes it back and returns the bytes in buf. */
static size_t round_trip(const udccp_mp_opt *o, udccp_mp_opt *back,
                         uint8_t *buf) {
  udccp_ssize n = udccp_mp_opt_encode(o, buf, 255);
  assert_true(n >= 3);
  assert_int_equal(buf[0], 46);
  assert_int_equal(buf[1], n);
  assert_int_equal(buf[2], o->type);
  assert_int_equal(udccp_mp_opt_parse(back, buf, buf + 2, (size_t)n - 2), 0);
  assert_int_equal(back->type, o->type);
  assert_int_equal(back->len, n);
  assert_ptr_equal(back->raw, buf);
  return (size_t)n;
}

/* §3.2.2 figure: 46, 12, 1, Addr ID, CI, Nonce. */
static void test_rfc9897_3_2_2_mp_join_bytes(void **state) {
  udccp_mp_opt o, b;
  uint8_t buf[256];
  static const uint8_t want[12] = {46, 12, 1, 7, 0xA1, 0xA2, 0xA3, 0xA4,
                                   0xB1, 0xB2, 0xB3, 0xB4};
  (void)state;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_JOIN;
  o.u.join.addr_id = 7;
  o.u.join.ci = 0xA1A2A3A4u;
  o.u.join.nonce = 0xB1B2B3B4u;
  assert_int_equal(round_trip(&o, &b, buf), 12);
  assert_memory_equal(buf, want, 12);
  assert_int_equal(b.u.join.addr_id, 7);
  assert_int_equal(b.u.join.ci, 0xA1A2A3A4u);
  assert_int_equal(b.u.join.nonce, 0xB1B2B3B4u);
}

/* §3.2.4: Length 17 for one plain-text key, 73 for one experimental key,
 * 82 for both. */
static void test_rfc9897_3_2_4_mp_key_lengths(void **state) {
  udccp_mp_opt o, b;
  uint8_t buf[256];
  (void)state;
  memset(key_x, 0x5A, sizeof(key_x));
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_KEY;
  o.u.key.ci = 0x01020304u;
  o.u.key.n_keys = 1;
  o.u.key.keys[0].type = UDCCP_MP_KEY_PLAIN;
  o.u.key.keys[0].len = 8;
  o.u.key.keys[0].data = key_a;
  assert_int_equal(round_trip(&o, &b, buf), 17);
  assert_int_equal(buf[3], 0); /* resvd */
  assert_int_equal(b.u.key.ci, 0x01020304u);
  assert_int_equal(b.u.key.n_keys, 1);
  assert_int_equal(b.u.key.keys[0].type, 0);
  assert_memory_equal(b.u.key.keys[0].data, key_a, 8);
  assert_int_equal(b.u.key.unknown_type, 0);

  o.u.key.keys[0].type = UDCCP_MP_KEY_EXPERIMENTAL;
  o.u.key.keys[0].len = 64;
  o.u.key.keys[0].data = key_x;
  assert_int_equal(round_trip(&o, &b, buf), 73);

  o.u.key.n_keys = 2;
  o.u.key.keys[1].type = UDCCP_MP_KEY_PLAIN;
  o.u.key.keys[1].len = 8;
  o.u.key.keys[1].data = key_a;
  assert_int_equal(round_trip(&o, &b, buf), 82);
  assert_int_equal(b.u.key.n_keys, 2);
  assert_int_equal(b.u.key.keys[0].type, 255);
  assert_memory_equal(b.u.key.keys[0].data, key_x, 64);
  assert_int_equal(b.u.key.keys[1].type, 0);
  assert_memory_equal(b.u.key.keys[1].data, key_a, 8);

  /* A key whose length does not match its type is refused. */
  o.u.key.keys[1].len = 7;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);
  /* Unassigned Key Types are not sent. */
  o.u.key.keys[1].len = 8;
  o.u.key.keys[1].type = 17;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §3.2.4, §7.5: Key Types 1..254 are an open registry.  A key of a type
 * we do not know cannot be delimited: the keys before it stand, the rest
 * is skipped, and the caller learns that one was there. */
static void test_rfc9897_3_2_4_mp_key_unknown_type(void **state) {
  uint8_t v[32];
  size_t n = 0;
  udccp_mp_opt o;
  (void)state;
  v[n++] = UDCCP_MP_KEY;
  v[n++] = 0;
  v[n++] = 0xC0;
  v[n++] = 0xC1;
  v[n++] = 0xC2;
  v[n++] = 0xC3;
  v[n++] = 0; /* plain */
  memcpy(v + n, key_a, 8);
  n += 8;
  v[n++] = 42; /* unassigned, some data we cannot size */
  v[n++] = 0xEE;
  v[n++] = 0xEE;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, n), 0);
  assert_int_equal(o.u.key.n_keys, 1);
  assert_int_equal(o.u.key.unknown_type, 1);
  assert_int_equal(o.u.key.ci, 0xC0C1C2C3u);
  /* Only an unknown type: no key, still well-formed. */
  v[6] = 99;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 7), 0);
  assert_int_equal(o.u.key.n_keys, 0);
  assert_int_equal(o.u.key.unknown_type, 1);
  assert_int_equal(udccp_mp_key_len(0), 8);
  assert_int_equal(udccp_mp_key_len(255), 64);
  assert_int_equal(udccp_mp_key_len(1), -1);
  assert_int_equal(udccp_mp_key_len(254), -1);
}

/* §3.2.4: a plain-text key one byte short, and no Key Type at all. */
static void test_rfc9897_3_2_4_mp_key_malformed(void **state) {
  uint8_t v[16] = {UDCCP_MP_KEY, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7};
  udccp_mp_opt o;
  (void)state;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 15), 0); /* 8 key bytes */
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 14), UDCCP_ERR_OPTION);
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 7), UDCCP_ERR_OPTION);
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 6), UDCCP_ERR_OPTION);
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 1), UDCCP_ERR_OPTION);
  /* Plain key then 3 stray bytes: a second key of type 0 cut short. */
  v[15] = 0;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 16), UDCCP_ERR_OPTION);
}

/* §3.2.5, §3.2.6, §3.2.7, §3.2.9, §3.2.10: fixed-length suboptions,
 * round trip and exact bytes. */
static void test_rfc9897_3_2_fixed_suboptions(void **state) {
  udccp_mp_opt o, b;
  uint8_t buf[256];
  size_t i;
  (void)state;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_SEQ;
  o.u.seq = 0xFEDCBA987654ULL;
  assert_int_equal(round_trip(&o, &b, buf), 9);
  assert_true(b.u.seq == 0xFEDCBA987654ULL);
  assert_int_equal(buf[3], 0xFE);
  assert_int_equal(buf[8], 0x54);
  o.u.seq = 1ULL << 48; /* wider than 48 bits */
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);

  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_HMAC;
  for (i = 0; i < 20; i++) {
    o.u.hmac[i] = (uint8_t)(i * 13 + 1);
  }
  assert_int_equal(round_trip(&o, &b, buf), 23);
  assert_memory_equal(b.u.hmac, o.u.hmac, 20);

  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_RTT;
  o.u.rtt.rtt_type = UDCCP_MP_RTT_SMOOTH;
  o.u.rtt.rtt_ms = 0x01020304u;
  o.u.rtt.age_ms = 0xA0B0C0D0u;
  assert_int_equal(round_trip(&o, &b, buf), 12);
  assert_int_equal(b.u.rtt.rtt_type, 3);
  assert_int_equal(b.u.rtt.rtt_ms, 0x01020304u);
  assert_int_equal(b.u.rtt.age_ms, 0xA0B0C0D0u);
  assert_int_equal(buf[4], 0x01);

  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_REMOVEADDR;
  o.u.removeaddr.addr_id = 9;
  o.u.removeaddr.nonce = 0x11223344u;
  assert_int_equal(round_trip(&o, &b, buf), 8);
  assert_int_equal(b.u.removeaddr.addr_id, 9);
  assert_int_equal(b.u.removeaddr.nonce, 0x11223344u);

  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_PRIO;
  o.u.prio = 15;
  assert_int_equal(round_trip(&o, &b, buf), 4);
  assert_int_equal(buf[3], 15); /* resvd sent as zero */
  assert_int_equal(b.u.prio, 15);
  o.u.prio = 16;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §3.2.10: the reserved bits of MP_PRIO MUST be ignored on receipt. */
static void test_rfc9897_3_2_10_mp_prio_resvd_ignored(void **state) {
  uint8_t v[2] = {UDCCP_MP_PRIO, 0xF2};
  udccp_mp_opt o;
  (void)state;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 2), 0);
  assert_int_equal(o.u.prio, 2);
}

/* Every fixed length of §3.2, one byte short and one byte long. */
static void test_rfc9897_3_2_fixed_lengths_enforced(void **state) {
  static const struct {
    uint8_t type, len;
  } fixed[] = {{UDCCP_MP_JOIN, 12},   {UDCCP_MP_SEQ, 9},
               {UDCCP_MP_HMAC, 23},   {UDCCP_MP_RTT, 12},
               {UDCCP_MP_REMOVEADDR, 8}, {UDCCP_MP_PRIO, 4}};
  uint8_t v[64];
  udccp_mp_opt o;
  size_t i;
  (void)state;
  memset(v, 0, sizeof(v));
  for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
    size_t vlen = (size_t)fixed[i].len - 2;
    v[0] = fixed[i].type;
    assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, vlen), 0);
    assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, vlen - 1),
                     UDCCP_ERR_OPTION);
    assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, vlen + 1),
                     UDCCP_ERR_OPTION);
  }
  /* No MP_OPT byte at all. */
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 0), UDCCP_ERR_OPTION);
}

/* §3.2.8: Length 12 (IPv4), 14 (IPv4 + port), 24 (IPv6), 26 (IPv6 +
 * port); every other length is malformed. */
static void test_rfc9897_3_2_8_mp_addaddr(void **state) {
  udccp_mp_opt o, b;
  uint8_t buf[256], v[32];
  size_t len;
  (void)state;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_ADDADDR;
  o.u.addaddr.addr_id = 2;
  o.u.addaddr.nonce = 0xCAFEBABEu;
  o.u.addaddr.family = UDCCP_AF_INET;
  o.u.addaddr.addr[0] = 192;
  o.u.addaddr.addr[1] = 0;
  o.u.addaddr.addr[2] = 2;
  o.u.addaddr.addr[3] = 7;
  assert_int_equal(round_trip(&o, &b, buf), 12);
  assert_int_equal(b.u.addaddr.family, UDCCP_AF_INET);
  assert_int_equal(b.u.addaddr.has_port, 0);
  assert_memory_equal(b.u.addaddr.addr, o.u.addaddr.addr, 4);
  assert_int_equal(b.u.addaddr.nonce, 0xCAFEBABEu);
  o.u.addaddr.has_port = 1;
  o.u.addaddr.port = 5001;
  assert_int_equal(round_trip(&o, &b, buf), 14);
  assert_int_equal(b.u.addaddr.port, 5001);
  assert_int_equal(buf[12], 5001 >> 8);
  o.u.addaddr.family = UDCCP_AF_INET6;
  o.u.addaddr.addr[15] = 1;
  assert_int_equal(round_trip(&o, &b, buf), 26);
  assert_int_equal(b.u.addaddr.family, UDCCP_AF_INET6);
  assert_memory_equal(b.u.addaddr.addr, o.u.addaddr.addr, 16);
  o.u.addaddr.has_port = 0;
  assert_int_equal(round_trip(&o, &b, buf), 24);
  o.u.addaddr.family = 5;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);

  memset(v, 0, sizeof(v));
  v[0] = UDCCP_MP_ADDADDR;
  for (len = 3; len <= 30; len++) {
    int ok = len == 12 || len == 14 || len == 24 || len == 26;
    assert_int_equal(udccp_mp_opt_parse(&b, NULL, v, len - 2),
                     ok ? 0 : UDCCP_ERR_OPTION);
  }
}

/* §3.2.3, §3.2.11: MP_FAST_CLOSE and MP_CLOSE carry the peer's Key Data;
 * §3.2.12: MP_EXP carries up to 252 bytes. */
static void test_rfc9897_3_2_close_and_exp(void **state) {
  udccp_mp_opt o, b;
  uint8_t buf[256], data[252];
  uint8_t bare[1];
  (void)state;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_FAST_CLOSE;
  o.u.key_data.data = key_a;
  o.u.key_data.len = 8;
  assert_int_equal(round_trip(&o, &b, buf), 11);
  assert_memory_equal(b.u.key_data.data, key_a, 8);
  o.type = UDCCP_MP_CLOSE;
  assert_int_equal(round_trip(&o, &b, buf), 11);
  assert_int_equal(b.u.key_data.len, 8);
  o.u.key_data.len = 0;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);
  bare[0] = UDCCP_MP_CLOSE; /* no Key Data */
  assert_int_equal(udccp_mp_opt_parse(&b, NULL, bare, 1), UDCCP_ERR_OPTION);
  bare[0] = UDCCP_MP_FAST_CLOSE;
  assert_int_equal(udccp_mp_opt_parse(&b, NULL, bare, 1), UDCCP_ERR_OPTION);

  memset(data, 0x77, sizeof(data));
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_EXP;
  o.u.exp.data = data;
  o.u.exp.len = 252;
  assert_int_equal(round_trip(&o, &b, buf), 255);
  assert_int_equal(b.u.exp.len, 252);
  o.u.exp.len = 0;
  assert_int_equal(round_trip(&o, &b, buf), 3);
}

/* §3.2, §7.3: MP_OPT above 11 is unassigned: reported as unknown (1),
 * never as malformed, and never sent. */
static void test_rfc9897_3_2_unknown_suboption(void **state) {
  uint8_t v[4] = {12, 1, 2, 3};
  udccp_mp_opt o;
  uint8_t buf[16];
  (void)state;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 4), 1);
  assert_int_equal(o.type, 12);
  assert_int_equal(o.u.exp.len, 3);
  v[0] = 255;
  assert_int_equal(udccp_mp_opt_parse(&o, NULL, v, 1), 1);
  memset(&o, 0, sizeof(o));
  o.type = 12;
  assert_int_equal(udccp_mp_opt_encode(&o, buf, sizeof(buf)),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* Builds an MP_CONFIRM: [MP_SEQ s2, MP_ADDADDR, MP_SEQ s1, MP_PRIO], the
 * most recent first (§3.2.1). */
static size_t mk_confirm(uint8_t *list) {
  udccp_mp_opt e;
  size_t n = 0;
  memset(&e, 0, sizeof(e));
  e.type = UDCCP_MP_SEQ;
  e.u.seq = 2;
  n += (size_t)udccp_mp_opt_encode(&e, list + n, 64);
  memset(&e, 0, sizeof(e));
  e.type = UDCCP_MP_ADDADDR;
  e.u.addaddr.addr_id = 2;
  e.u.addaddr.family = UDCCP_AF_INET;
  e.u.addaddr.addr[0] = 10;
  n += (size_t)udccp_mp_opt_encode(&e, list + n, 64);
  memset(&e, 0, sizeof(e));
  e.type = UDCCP_MP_SEQ;
  e.u.seq = 1;
  n += (size_t)udccp_mp_opt_encode(&e, list + n, 64);
  memset(&e, 0, sizeof(e));
  e.type = UDCCP_MP_PRIO;
  e.u.prio = 1;
  n += (size_t)udccp_mp_opt_encode(&e, list + n, 64);
  return n;
}

/* §3.2.1: the list of confirmations, MP_SEQ + options, concatenated. */
static void test_rfc9897_3_2_1_mp_confirm_list(void **state) {
  uint8_t list[128], buf[256];
  size_t n = mk_confirm(list), pos = 0;
  udccp_mp_opt o, b, e;
  uint64_t seq = 0;
  (void)state;
  assert_int_equal(n, 9 + 12 + 9 + 4);
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_CONFIRM;
  o.u.confirm.list = list;
  o.u.confirm.list_len = (uint8_t)n;
  assert_int_equal(round_trip(&o, &b, buf), 3 + n);
  assert_int_equal(b.u.confirm.list_len, n);
  assert_int_equal(udccp_mp_confirm_next(b.u.confirm.list, n, &pos, &seq, &e),
                   1);
  assert_int_equal(e.type, UDCCP_MP_ADDADDR);
  assert_int_equal(seq, 2);
  assert_int_equal(udccp_mp_confirm_next(b.u.confirm.list, n, &pos, &seq, &e),
                   1);
  assert_int_equal(e.type, UDCCP_MP_PRIO);
  assert_int_equal(seq, 1);
  assert_int_equal(e.u.prio, 1);
  assert_int_equal(udccp_mp_confirm_next(b.u.confirm.list, n, &pos, &seq, &e),
                   0);
}

static int parse_confirm(const uint8_t *list, size_t n) {
  uint8_t v[260];
  udccp_mp_opt o;
  v[0] = UDCCP_MP_CONFIRM;
  memcpy(v + 1, list, n);
  return udccp_mp_opt_parse(&o, NULL, v, n + 1);
}

/* §3.2.1: lists that are not [MP_SEQ, option...]... are malformed. */
static void test_rfc9897_3_2_1_mp_confirm_malformed(void **state) {
  uint8_t list[128], bad[128];
  size_t n = mk_confirm(list);
  (void)state;
  assert_int_equal(parse_confirm(list, n), 0);
  assert_int_equal(parse_confirm(list, 0), UDCCP_ERR_OPTION); /* empty */
  assert_int_equal(parse_confirm(list, 9), UDCCP_ERR_OPTION); /* SEQ only */
  assert_int_equal(parse_confirm(list + 9, 12), UDCCP_ERR_OPTION); /* no SEQ */
  assert_int_equal(parse_confirm(list, n - 1), UDCCP_ERR_OPTION); /* cut */
  /* Two MP_SEQs in a row: the first confirms nothing. */
  memcpy(bad, list, 9);
  memcpy(bad + 9, list, n);
  assert_int_equal(parse_confirm(bad, 9 + n), UDCCP_ERR_OPTION);
  /* An embedded option that is not type 46. */
  memcpy(bad, list, n);
  bad[9] = 45;
  assert_int_equal(parse_confirm(bad, n), UDCCP_ERR_OPTION);
  /* An embedded option of the wrong length for its type. */
  memcpy(bad, list, n);
  bad[n - 3] = 5; /* MP_PRIO with Length 5 */
  assert_int_equal(parse_confirm(bad, n), UDCCP_ERR_OPTION);
  /* An embedded length byte of 0 (would loop) and of 2. */
  memcpy(bad, list, n);
  bad[10] = 0;
  assert_int_equal(parse_confirm(bad, n), UDCCP_ERR_OPTION);
  bad[10] = 2;
  assert_int_equal(parse_confirm(bad, n), UDCCP_ERR_OPTION);
  /* An MP_CONFIRM inside an MP_CONFIRM. */
  memcpy(bad, list, 9);
  bad[9] = 46;
  bad[10] = 3;
  bad[11] = UDCCP_MP_CONFIRM;
  assert_int_equal(parse_confirm(bad, 12), UDCCP_ERR_OPTION);
}

/* RFC 4340 §5.8 + RFC 9897 §3.2: the options parser records Multipath
 * options on every packet type, DCCP-Data included ("DCCP-Data? Y"), and
 * udccp_mp_next walks them in order among other options. */
static void test_rfc9897_3_opts_parser_hands_over(void **state) {
  udccp_opts opts;
  uint8_t area[64];
  size_t n = 0, pos = 0;
  udccp_mp_opt o;
  uint8_t t;
  (void)state;
  area[n++] = 0; /* Padding */
  area[n++] = 46;
  area[n++] = 9;
  area[n++] = UDCCP_MP_SEQ;
  memset(area + n, 0, 5);
  n += 5;
  area[n++] = 42;
  area[n++] = 41; /* Timestamp */
  area[n++] = 6;
  memset(area + n, 0, 4);
  n += 4;
  area[n++] = 46;
  area[n++] = 4;
  area[n++] = UDCCP_MP_PRIO;
  area[n++] = 3;
  area[n++] = 46; /* malformed: MP_SEQ of Length 8 */
  area[n++] = 8;
  area[n++] = UDCCP_MP_SEQ;
  memset(area + n, 0, 5);
  n += 5;
  for (t = 0; t < UDCCP_NUM_PKT_TYPES; t++) {
    if (t == UDCCP_PKT_LISTEN) {
      continue;
    }
    assert_int_equal(udccp_opts_parse(&opts, t, area, n), 0);
    assert_int_equal(opts.n_mp, 3);
    assert_ptr_equal(opts.mp, area + 1);
  }
  assert_int_equal(udccp_mp_next(opts.mp, opts.mp_len, &pos, &o), 0);
  assert_int_equal(o.type, UDCCP_MP_SEQ);
  assert_true(o.u.seq == 42);
  assert_int_equal(udccp_mp_next(opts.mp, opts.mp_len, &pos, &o), 0);
  assert_int_equal(o.type, UDCCP_MP_PRIO);
  assert_int_equal(o.u.prio, 3);
  assert_int_equal(udccp_mp_next(opts.mp, opts.mp_len, &pos, &o),
                   UDCCP_ERR_OPTION);
  assert_int_equal(udccp_mp_next(opts.mp, opts.mp_len, &pos, &o), 2);
  /* A Multipath option with no MP_OPT byte is not recorded. */
  area[1] = 46;
  area[2] = 2;
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, area, 3), 0);
  assert_int_equal(opts.n_mp, 0);
  assert_null(opts.mp);
}

/* The writer refuses what does not fit. */
static void test_mp_opt_put_nobuf(void **state) {
  udccp_optbuf ob;
  udccp_mp_opt o;
  (void)state;
  udccp_optbuf_init(&ob);
  ob.len = sizeof(ob.buf) - 8;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_SEQ;
  o.u.seq = 5;
  assert_int_equal(udccp_mp_opt_put(&ob, &o), UDCCP_ERR_NOBUF);
  ob.len = sizeof(ob.buf) - 9;
  assert_int_equal(udccp_mp_opt_put(&ob, &o), 0);
  assert_int_equal(ob.len, sizeof(ob.buf));
  assert_int_equal(ob.buf[sizeof(ob.buf) - 1], 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc9897_3_2_2_mp_join_bytes),
      cmocka_unit_test(test_rfc9897_3_2_4_mp_key_lengths),
      cmocka_unit_test(test_rfc9897_3_2_4_mp_key_unknown_type),
      cmocka_unit_test(test_rfc9897_3_2_4_mp_key_malformed),
      cmocka_unit_test(test_rfc9897_3_2_fixed_suboptions),
      cmocka_unit_test(test_rfc9897_3_2_10_mp_prio_resvd_ignored),
      cmocka_unit_test(test_rfc9897_3_2_fixed_lengths_enforced),
      cmocka_unit_test(test_rfc9897_3_2_8_mp_addaddr),
      cmocka_unit_test(test_rfc9897_3_2_close_and_exp),
      cmocka_unit_test(test_rfc9897_3_2_unknown_suboption),
      cmocka_unit_test(test_rfc9897_3_2_1_mp_confirm_list),
      cmocka_unit_test(test_rfc9897_3_2_1_mp_confirm_malformed),
      cmocka_unit_test(test_rfc9897_3_opts_parser_hands_over),
      cmocka_unit_test(test_mp_opt_put_nobuf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
