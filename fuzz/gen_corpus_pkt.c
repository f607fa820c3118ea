/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpus of fuzz_pkt: a valid packet of every type, short
 * sequence number variants, every RFC 4340 option, Mandatory cases and
 * partial checksum coverage.  Not part of the build; regenerate with
 *
 *   cc -std=c11 -Iinclude -Ilib fuzz/gen_corpus_pkt.c lib/pkt.c lib/opt.c \
 *      lib/cksum.c lib/mp_opt.c -o /tmp/gen && /tmp/gen fuzz/corpus/fuzz_pkt
 *
 * (The corpus keeps libFuzzer's names, the SHA-1 of each file: rename
 * new seeds with sha1sum.)  The mp_* seeds carry every Multipath
 * suboption of RFC 9897 §3.2.
 */
#include <stdio.h>
#include <string.h>

#include "cksum.h"
#include "mp_opt.h"
#include "opt.h"
#include "pkt.h"

int main(int argc, char **argv);

static const char *dir;
static udccp_path path;

static void emit(const char *name, const udccp_hdr *h, const uint8_t *opts,
                 size_t olen, const uint8_t *pl, size_t plen) {
  uint8_t buf[2048];
  char fn[512];
  FILE *f;
  udccp_ssize n = udccp_pkt_encode(buf, sizeof(buf), h, opts, olen, pl, plen);
  if (n < 0 || udccp_cksum_set(buf, (size_t)n, &path) != 0) {
    fprintf(stderr, "cannot encode %s\n", name);
    return;
  }
  snprintf(fn, sizeof(fn), "%s/%s", dir, name);
  f = fopen(fn, "wb");
  if (!f) {
    perror(fn);
    return;
  }
  fwrite(buf, 1, (size_t)n, f);
  fclose(f);
}

static void hdr(udccp_hdr *h, uint8_t type, uint8_t x) {
  memset(h, 0, sizeof(*h));
  h->sport = 6001;
  h->dport = 5001;
  h->type = type;
  h->x = x;
  h->seq = x ? 0x0000DEADBEEFULL : 0xBEEF;
  h->ack = x ? 0x00001234567ULL : 0x4567;
  h->service_code = 0x50455246u;
  h->reset_code = type == 7 ? UDCCP_RESET_NO_CONNECTION : 0;
}

int main(int argc, char **argv) {
  static const char *names[] = {"request", "response", "data",  "ack",
                                "dataack", "closereq", "close", "reset",
                                "sync",    "syncack",  "listen"};
  static const uint8_t payload[] = "The quick brown fox jumps over the dog";
  udccp_optbuf ob;
  udccp_hdr h;
  uint8_t t;
  char name[64];
  static const uint8_t feat[] = {1, 2, 3};
  static const uint8_t av[] = {0x05, 0xC2, 0x40};
  static const uint8_t cookie[] = "cookie-value-0123456789";
  static const uint8_t dd[] = {0x80, 0x03};
  static const uint8_t echo[] = {0, 0, 0, 9, 0, 5};
  static const uint8_t ccid_opt[] = {0, 1, 2, 3};
  static const uint8_t bad_mand[] = {1, 50, 4, 0xAA, 0xBB, 1};
  static const uint8_t mand_last[] = {41, 6, 0, 0, 0, 1, 1};

  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  memset(&path, 0, sizeof(path));
  path.family = UDCCP_AF_INET;
  path.local_addr[0] = 10;
  path.local_addr[3] = 2;
  path.remote_addr[0] = 10;
  path.remote_addr[3] = 1;

  for (t = 0; t < UDCCP_NUM_PKT_TYPES; t++) {
    hdr(&h, t, 1);
    snprintf(name, sizeof(name), "%s_plain", names[t]);
    emit(name, &h, NULL, 0, NULL, 0);
    snprintf(name, sizeof(name), "%s_payload", names[t]);
    emit(name, &h, NULL, 0, payload, sizeof(payload));
    if (t == UDCCP_PKT_DATA || t == UDCCP_PKT_ACK || t == UDCCP_PKT_DATAACK) {
      hdr(&h, t, 0);
      snprintf(name, sizeof(name), "%s_short", names[t]);
      emit(name, &h, NULL, 0, payload, 7);
    }
  }

  /* Every RFC 4340 option on a DataAck, one packet. */
  udccp_optbuf_init(&ob);
  udccp_optbuf_put(&ob, UDCCP_OPT_PADDING, 0, NULL, 0);
  udccp_optbuf_put(&ob, UDCCP_OPT_SLOW_RECEIVER, 0, NULL, 0);
  udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, feat, 2);
  udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, feat, 1);
  udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, feat, 3);
  udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, feat, 2);
  udccp_optbuf_put(&ob, UDCCP_OPT_INIT_COOKIE, 0, cookie, sizeof(cookie));
  udccp_optbuf_put_uint(&ob, UDCCP_OPT_NDP_COUNT, 3, 1);
  udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_0, 0, av, sizeof(av));
  udccp_optbuf_put(&ob, UDCCP_OPT_ACK_VECTOR_1, 0, av, 1);
  udccp_optbuf_put(&ob, UDCCP_OPT_DATA_DROPPED, 0, dd, sizeof(dd));
  udccp_optbuf_put_uint(&ob, UDCCP_OPT_TIMESTAMP, 123456, 4);
  udccp_optbuf_put(&ob, UDCCP_OPT_TIMESTAMP_ECHO, 0, echo, 6);
  udccp_optbuf_put_uint(&ob, UDCCP_OPT_ELAPSED_TIME, 77, 2);
  udccp_optbuf_put_uint(&ob, UDCCP_OPT_DATA_CHECKSUM,
                        udccp_crc32c(payload, sizeof(payload)), 4);
  udccp_optbuf_put(&ob, 192, 0, ccid_opt, sizeof(ccid_opt));
  udccp_optbuf_put(&ob, 128, 1, NULL, 0);
  hdr(&h, UDCCP_PKT_DATAACK, 1);
  emit("dataack_all_options", &h, ob.buf, ob.len, payload, sizeof(payload));
  hdr(&h, UDCCP_PKT_DATA, 1);
  emit("data_all_options", &h, ob.buf, ob.len, payload, sizeof(payload));
  hdr(&h, UDCCP_PKT_REQUEST, 1);
  emit("request_all_options", &h, ob.buf, ob.len, NULL, 0);
  hdr(&h, UDCCP_PKT_ACK, 1);
  emit("ack_mandatory_unknown", &h, bad_mand, sizeof(bad_mand), NULL, 0);
  emit("ack_mandatory_last", &h, mand_last, sizeof(mand_last), NULL, 0);

  /* RFC 9897 §3.2: every Multipath suboption. */
  {
    static const uint8_t k8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static uint8_t k64[64];
    uint8_t list[64];
    size_t ln = 0;
    udccp_mp_opt m;
    memset(k64, 0x42, sizeof(k64));
    udccp_optbuf_init(&ob);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_KEY;
    m.u.key.ci = 0x11223344u;
    m.u.key.n_keys = 2;
    m.u.key.keys[0].type = UDCCP_MP_KEY_PLAIN;
    m.u.key.keys[0].len = 8;
    m.u.key.keys[0].data = k8;
    m.u.key.keys[1].type = UDCCP_MP_KEY_EXPERIMENTAL;
    m.u.key.keys[1].len = 64;
    m.u.key.keys[1].data = k64;
    udccp_mp_opt_put(&ob, &m);
    udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, (const uint8_t[]){10, 0}, 2);
    hdr(&h, UDCCP_PKT_REQUEST, 1);
    emit("mp_request_key", &h, ob.buf, ob.len, NULL, 0);

    udccp_optbuf_init(&ob);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_SEQ;
    m.u.seq = 77;
    ln += (size_t)udccp_mp_opt_encode(&m, list + ln, sizeof(list) - ln);
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_PRIO;
    m.u.prio = 2;
    ln += (size_t)udccp_mp_opt_encode(&m, list + ln, sizeof(list) - ln);
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_ADDADDR;
    m.u.addaddr.addr_id = 3;
    m.u.addaddr.family = UDCCP_AF_INET6;
    m.u.addaddr.addr[0] = 0x20;
    m.u.addaddr.has_port = 1;
    m.u.addaddr.port = 6511;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_HMAC;
    memset(m.u.hmac, 0xAB, sizeof(m.u.hmac));
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_REMOVEADDR;
    m.u.removeaddr.addr_id = 4;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_RTT;
    m.u.rtt.rtt_ms = 40;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_CONFIRM;
    m.u.confirm.list = list;
    m.u.confirm.list_len = (uint8_t)ln;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_JOIN;
    m.u.join.ci = 0x55667788u;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_CLOSE;
    m.u.key_data.data = k8;
    m.u.key_data.len = 8;
    udccp_mp_opt_put(&ob, &m);
    m.type = UDCCP_MP_FAST_CLOSE;
    udccp_mp_opt_put(&ob, &m);
    memset(&m, 0, sizeof(m));
    m.type = UDCCP_MP_EXP;
    m.u.exp.data = k8;
    m.u.exp.len = 3;
    udccp_mp_opt_put(&ob, &m);
    hdr(&h, UDCCP_PKT_DATAACK, 1);
    emit("mp_dataack_all", &h, ob.buf, ob.len, payload, sizeof(payload));
    hdr(&h, UDCCP_PKT_DATA, 1);
    emit("mp_data_all", &h, ob.buf, ob.len, payload, sizeof(payload));
  }

  /* Partial checksum coverage. */
  hdr(&h, UDCCP_PKT_DATA, 1);
  h.cscov = 3;
  h.ccval = 5;
  emit("data_cscov3", &h, NULL, 0, payload, sizeof(payload));
  h.cscov = 1;
  emit("data_cscov1", &h, NULL, 0, payload, 9);
  return 0;
}
