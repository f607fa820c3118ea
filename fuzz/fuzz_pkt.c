/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the codec: header decoding, option parsing,
 * checksums, the stateless Reset reply, and round-trip properties.
 * Any property violation aborts, which libFuzzer reports as a crash.
 *
 *   CC=clang cmake -S . -B build-fuzz -DUDCCP_FUZZ=ON -DUDCCP_TESTS=OFF
 *   cmake --build build-fuzz && fuzz/run.sh build-fuzz 60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cksum.h"
#include "mp_opt.h"
#include "mp_sig.h"
#include "opt.h"
#include "pkt.h"
#include "seq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      abort();                                                                \
    }                                                                         \
  } while (0)

static udccp_path fuzz_path(uint8_t family) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = family;
  p.local_addr[0] = 10;
  p.local_addr[3] = 1;
  p.remote_addr[0] = 10;
  p.remote_addr[3] = 2;
  if (family == UDCCP_AF_INET6) {
    p.local_addr[15] = 1;
    p.remote_addr[15] = 2;
  }
  p.local_port = 5001;
  p.remote_port = 6001;
  return p;
}

static void same_hdr(const udccp_hdr *a, const udccp_hdr *b) {
  CHECK(a->sport == b->sport && a->dport == b->dport);
  CHECK(a->doff == b->doff && a->ccval == b->ccval && a->cscov == b->cscov);
  CHECK(a->type == b->type && a->x == b->x && a->has_ack == b->has_ack);
  CHECK(a->seq == b->seq && a->ack == b->ack);
  CHECK(a->service_code == b->service_code);
  CHECK(a->reset_code == b->reset_code);
  CHECK(memcmp(a->reset_data, b->reset_data, 3) == 0);
  CHECK(a->hdr_len == b->hdr_len && a->opts_len == b->opts_len);
  CHECK(a->payload_len == b->payload_len);
  CHECK(memcmp(a->opts, b->opts, a->opts_len) == 0);
  CHECK(a->payload_len == 0 ||
        memcmp(a->payload, b->payload, a->payload_len) == 0);
}

/* Every recorded option lies inside the options area. */
static void opts_inside(const udccp_opts *o, const uint8_t *area, size_t len) {
  size_t i;
  for (i = 0; i < o->n_feat; i++) {
    CHECK(o->feat[i].val >= area && o->feat[i].val + o->feat[i].len <= area + len);
  }
  for (i = 0; i < o->n_ackvec; i++) {
    CHECK(o->ackvec[i].val >= area &&
          o->ackvec[i].val + o->ackvec[i].len <= area + len);
  }
  for (i = 0; i < o->n_ccid; i++) {
    CHECK(o->ccid[i].val >= area && o->ccid[i].val + o->ccid[i].len <= area + len);
  }
  CHECK(o->n_feat <= UDCCP_OPTS_MAX_FEAT && o->n_ackvec <= UDCCP_OPTS_MAX_AV &&
        o->n_ccid <= UDCCP_OPTS_MAX_CCID);
}

/* RFC 9897 §3.2: every Multipath option the parser recorded decodes
 * inside the options area, and one that decodes re-encodes to the same
 * bytes (MP_PRIO and MP_KEY: but for their ignored reserved bits; MP_KEY:
 * when every key was kept). */
/* RFC 9897 signalling (lib/mp_sig.c) reading the area twice (the second
 * time every signal in it is a repeat) with signals of its own pending:
 * what it writes back is well-formed Multipath options (an MP_CONFIRM
 * list of [MP_SEQ, option] pairs, the signals, one MP_SEQ), and its
 * tables stay within bounds. */
static void fuzz_sig(const uint8_t *mp, size_t len) {
  static const uint8_t a2[4] = {192, 0, 2, 7};
  udccp_mp_sig s;
  udccp_mp_keys k;
  udccp_optbuf ob;
  udccp_mp_opt m;
  size_t pos = 0, i, seqs = 0;
  int id, rv;
  memset(&k, 0x42, sizeof(k));
  udccp_mp_sig_init(&s, 0);
  s.seq_now = 7;
  id = udccp_mp_sig_local_id(&s, UDCCP_AF_INET, a2, 0, 0);
  CHECK(id >= 0);
  CHECK(udccp_mp_sig_announce(&s, &k, (uint8_t)id, 1) == 0);
  CHECK(udccp_mp_sig_prio(&s, 0, 2) == 0);
  for (i = 0; i < 2; i++) {
    (void)udccp_mp_sig_read(&s, &k, i, mp, len);
    CHECK(s.n_ack <= UDCCP_MP_SIG_CONFIRMS);
  }
  udccp_optbuf_init(&ob);
  (void)udccp_mp_sig_write(&s, 0, &ob, 0);
  CHECK(ob.len <= sizeof(ob.buf));
  while ((rv = udccp_mp_next(ob.buf, ob.len, &pos, &m)) != 2) {
    CHECK(rv == 0);
    seqs += m.type == UDCCP_MP_SEQ;
  }
  CHECK(pos == ob.len);
  CHECK(ob.len == 0 || seqs == 1);
  CHECK(udccp_mp_sig_unconfirmed(&s) <= 2);
}

static void fuzz_mp(const udccp_opts *o, const uint8_t *area, size_t len) {
  size_t pos = 0, n = 0;
  udccp_mp_opt m;
  int rv;
  if (o->mp == NULL) {
    CHECK(o->n_mp == 0);
    return;
  }
  CHECK(o->mp >= area && o->mp + o->mp_len == area + len);
  while ((rv = udccp_mp_next(o->mp, o->mp_len, &pos, &m)) != 2) {
    uint8_t enc[256];
    udccp_ssize el;
    CHECK(rv == 0 || rv == 1 || rv == UDCCP_ERR_OPTION);
    CHECK(pos <= o->mp_len);
    n++;
    if (rv != 0) {
      continue;
    }
    CHECK(m.raw >= o->mp && m.raw + m.len <= o->mp + o->mp_len);
    if (m.type == UDCCP_MP_CONFIRM) {
      size_t cp = 0, k = 0;
      uint64_t seq;
      udccp_mp_opt e;
      while (udccp_mp_confirm_next(m.u.confirm.list, m.u.confirm.list_len,
                                   &cp, &seq, &e)) {
        CHECK(cp <= m.u.confirm.list_len && ++k < 128);
        CHECK(seq < (1ULL << 48));
      }
      CHECK(k >= 1);
    }
    el = udccp_mp_opt_encode(&m, enc, sizeof(enc));
    if (m.type == UDCCP_MP_KEY && (m.u.key.unknown_type || el != m.len)) {
      CHECK(el > 0 || m.u.key.n_keys == 0);
      continue;
    }
    CHECK(el == m.len);
    if (m.type == UDCCP_MP_PRIO) {
      CHECK((enc[3] & 0x0F) == (m.raw[3] & 0x0F));
    } else if (m.type == UDCCP_MP_KEY) {
      /* byte 3 is MP_KEY's resvd: sent as 0, not read */
      CHECK(memcmp(enc, m.raw, 3) == 0 &&
            memcmp(enc + 4, m.raw + 4, (size_t)el - 4) == 0);
    } else {
      CHECK(memcmp(enc, m.raw, (size_t)el) == 0);
    }
  }
  CHECK(n >= o->n_mp || o->n_mp == UINT8_MAX);
  fuzz_sig(o->mp, o->mp_len);
}

static void fuzz_opts(uint8_t pkt_type, const uint8_t *opts, size_t len) {
  udccp_opts o;
  udccp_optbuf ob;
  int rv = udccp_opts_parse(&o, pkt_type, opts, len);
  CHECK(rv == 0 || rv == UDCCP_ERR_OPTION || rv == UDCCP_ERR_MANDATORY);
  if (rv != 0) {
    return;
  }
  opts_inside(&o, opts, len);
  fuzz_mp(&o, opts, len);
  /* Writing back what was recorded parses to the same records. */
  if (o.n_feat > 0 && len <= UDCCP_OPTS_MAX_LEN) {
    udccp_opts o2;
    size_t i;
    udccp_optbuf_init(&ob);
    for (i = 0; i < o.n_feat; i++) {
      CHECK(udccp_optbuf_put(&ob, o.feat[i].type, o.feat[i].mandatory,
                             o.feat[i].val, o.feat[i].len) == 0);
    }
    CHECK(udccp_opts_parse(&o2, pkt_type, ob.buf, ob.len) == 0);
    CHECK(o2.n_feat == o.n_feat);
    for (i = 0; i < o.n_feat; i++) {
      CHECK(o2.feat[i].type == o.feat[i].type &&
            o2.feat[i].mandatory == o.feat[i].mandatory &&
            o2.feat[i].len == o.feat[i].len &&
            memcmp(o2.feat[i].val, o.feat[i].val, o.feat[i].len) == 0);
    }
  }
}

static void fuzz_cksum(const uint8_t *data, size_t size, const udccp_hdr *h) {
  static uint8_t copy[65536];
  udccp_path p4 = fuzz_path(UDCCP_AF_INET), p6 = fuzz_path(UDCCP_AF_INET6);
  udccp_path r4 = p4;
  udccp_ssize cov = udccp_cksum_coverage(data, size);
  (void)h;
  if (cov < 0) {
    CHECK(udccp_cksum_check(data, size, &p4) == UDCCP_ERR_PROTO);
    return;
  }
  CHECK((size_t)cov <= size && cov >= 12);
  (void)udccp_cksum_check(data, size, &p6);
  if (size > sizeof(copy)) {
    return;
  }
  memcpy(copy, data, size);
  CHECK(udccp_cksum_set(copy, size, &p4) == 0);
  memcpy(r4.local_addr, p4.remote_addr, 16);
  memcpy(r4.remote_addr, p4.local_addr, 16);
  CHECK(udccp_cksum_check(copy, size, &r4) == 0);
  (void)udccp_pkt_verify_cksum(copy, size, &p6);
}

static void fuzz_reset_reply(const uint8_t *data, size_t size,
                             const udccp_hdr *h) {
  uint8_t out[64];
  udccp_path p = fuzz_path(UDCCP_AF_INET);
  udccp_hdr r;
  udccp_ssize n = udccp_pkt_write_reset_reply(out, sizeof(out), data, size, &p,
                                              UDCCP_CKSUM_FULL,
                                              UDCCP_RESET_NO_CONNECTION);
  if (h->type == UDCCP_PKT_RESET || h->type == UDCCP_PKT_LISTEN) {
    CHECK(n == 0);
    return;
  }
  CHECK(n == 28);
  CHECK(udccp_hdr_decode(&r, out, (size_t)n) == 0);
  CHECK(r.type == UDCCP_PKT_RESET && r.x == 1);
  CHECK(r.sport == h->dport && r.dport == h->sport);
  CHECK(r.ack == h->seq);
  CHECK(r.seq == (h->has_ack ? (h->ack + 1) & (h->x ? UDCCP_SEQ_MASK : 0xFFFFFFu)
                             : 0));
  CHECK(r.reset_code == UDCCP_RESET_NO_CONNECTION);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint8_t buf[65536 + 1024];
  udccp_hdr h, h2;
  udccp_pkt_peek pk;
  udccp_ssize n;
  int rv;

  /* Options on their own, as every packet type sees them. */
  if (size > 0) {
    fuzz_opts((uint8_t)(data[0] % 12), data + 1, size - 1);
  }
  (void)udccp_crc32c(data, size);

  rv = udccp_hdr_decode(&h, data, size);
  CHECK(rv == 0 || rv == UDCCP_ERR_PROTO);
  CHECK((udccp_pkt_peek_hdr(&pk, data, size) == 0) == (rv == 0));
  fuzz_cksum(data, size, &h);
  if (rv != 0) {
    /* a malformed packet gets no reply (a NULL path is refused first:
     * INVALID_ARGUMENT, the header's conventions) */
    udccp_path p = fuzz_path(UDCCP_AF_INET);
    CHECK(udccp_pkt_write_reset_reply(buf, sizeof(buf), data, size, &p, 0,
                                      0) == UDCCP_ERR_PROTO);
    return 0;
  }
  CHECK(pk.type == h.type && pk.seq == h.seq && pk.sport == h.sport);
  CHECK(h.hdr_len + h.opts_len + h.payload_len == size);
  CHECK(h.opts == data + h.hdr_len && h.payload == h.opts + h.opts_len);
  fuzz_opts(h.type, h.opts, h.opts_len);
  fuzz_reset_reply(data, size, &h);

  /* decode -> encode -> decode gives the same packet. */
  if (size > sizeof(buf)) {
    return 0;
  }
  n = udccp_pkt_encode(buf, sizeof(buf), &h, h.opts, h.opts_len, h.payload,
                       h.payload_len);
  CHECK(n == (udccp_ssize)size);
  CHECK(udccp_hdr_decode(&h2, buf, (size_t)n) == 0);
  h2.cksum = h.cksum;
  same_hdr(&h, &h2);
  /* Apart from the checksum and the reserved bits, the bytes are the
   * input's. */
  {
    uint8_t a[32], b[32];
    size_t k, hl = h.hdr_len;
    memcpy(a, data, hl);
    memcpy(b, buf, hl);
    a[6] = a[7] = b[6] = b[7] = 0;
    a[8] &= 0x1F;
    if (h.x) {
      a[9] = 0;
      if (h.has_ack) {
        a[16] = a[17] = 0;
      }
    } else if (h.has_ack) {
      a[12] = 0;
    }
    for (k = 0; k < hl; k++) {
      CHECK(a[k] == b[k]);
    }
    CHECK(memcmp(data + hl, buf + hl, size - hl) == 0);
  }
  return 0;
}
