/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the connection: a client and a server (made by a
 * listener) are joined in memory and brought to OPEN, then the input is a
 * script of packets fed to either side, interleaved with the packets the
 * two sides really exchange and with timer runs.  To reach past the
 * sequence-validity check (RFC 4340 §7.5.3) most often, a script entry
 * may ask for its Sequence and Acknowledgement Numbers to be patched to
 * the receiver's current GSR + 1 and GSS.  Nothing may crash, leak or
 * trip the sanitizers, a connection must never loop on write_pkt, every
 * packet a side writes must keep the chaos invariants of sim/sim_inv.h
 * (sequence numbers increase, §7.5.1 windows, MPS, bounded memory, no
 * timer in the past once served), and all memory must come back.
 *
 * Input: a settings byte, then the script.
 *   settings: bits 0-2 CCID of both halves (2, 3, 4, BBR, CUBIC; 5: the
 *             client sends with 2 and the server with 3; 6, 7: 2),
 *             bit 3 Multipath DCCP offered (RFC 9897), bit 4 Ack Vectors
 *             with CCID 3/4 (§11.5), bit 5 short sequence numbers allowed
 *             (§7.6), bit 6 NDP Count sent (§7.7), bit 7 the listener
 *             answers with Init Cookies (§8.1.4).  0: CCID 2, as the
 *             target did before it had this byte.
 * Script entry: flags (1 byte), length (1 byte), that many packet bytes.
 *   flags bit 0: the side receiving it (0 client, 1 server)
 *   flags bit 1: patch seqno/ackno to valid values (48-bit packets)
 *   flags bit 2: afterwards, exchange the sides' packets
 *   flags bits 3-5: advance virtual time by (2^bits) ms before it
 *   flags bit 6: call close on the receiving side first
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "sim_inv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      abort();                                                                \
    }                                                                         \
  } while (0)

typedef struct fz {
  udccp_conn *c[2];
  udccp_listener *lis;
  udccp_path path[2];
  udccp_tstamp now;
  uint64_t rnd;
  sim_inv_end inv[2];
  uint32_t pmtu;
} fz;

static void fz_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *s = ud;
  size_t i;
  for (i = 0; i < len; ++i) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    dest[i] = (uint8_t)(*s >> 56);
  }
}

static void deliver(fz *f, int to, const uint8_t *pkt, size_t len) {
  uint8_t out[1500];
  if (f->c[to] != NULL) {
    (void)udccp_conn_read_pkt(f->c[to], pkt, len, 0, f->now);
    return;
  }
  if (to == 1) {
    udccp_conn *nc = NULL;
    udccp_ssize n = udccp_listener_read_pkt(f->lis, &f->path[1], pkt, len,
                                            f->now, &nc, out, sizeof(out));
    if (nc != NULL) {
      f->c[1] = nc;
    } else if (n > 0 && f->c[0] != NULL) {
      /* a stateless reply (Init Cookie Response, Reset) */
      (void)udccp_conn_read_pkt(f->c[0], out, (size_t)n, 0, f->now);
    }
  }
}

/* Lets the two sides exchange packets (no loss, no delay) and run timers,
 * a bounded number of rounds. */
static void exchange(fz *f, int rounds) {
  uint8_t buf[1500];
  int r, side;
  for (r = 0; r < rounds; ++r) {
    int moved = 0;
    for (side = 0; side < 2; ++side) {
      int guard = 0;
      udccp_ssize n;
      if (f->c[side] == NULL) {
        continue;
      }
      if (udccp_conn_get_expiry(f->c[side]) <= f->now) {
        (void)udccp_conn_handle_expiry(f->c[side], f->now);
      }
      while ((n = udccp_conn_write_pkt(f->c[side], buf, sizeof(buf), NULL,
                                       f->now)) > 0) {
        char why[200];
        CHECK(++guard < 10000); /* write_pkt must reach 0 */
        if (sim_inv_after_write(&f->inv[side], f->c[side], buf, (size_t)n,
                                f->pmtu, 20, why, sizeof(why)) != 0) {
          fprintf(stderr, "fuzz_conn: side %d: %s\n", side, why);
          abort();
        }
        deliver(f, 1 - side, buf, (size_t)n);
        moved = 1;
      }
      if (f->c[side] != NULL && !udccp_conn_is_done(f->c[side])) {
        char why[200];
        if (sim_inv_after_event(&f->inv[side], f->c[side], f->now, why,
                                sizeof(why)) != 0) {
          fprintf(stderr, "fuzz_conn: side %d: %s\n", side, why);
          abort();
        }
      }
    }
    if (!moved) {
      f->now += 5 * UDCCP_NS_PER_MS;
    }
  }
}

static void put48(uint8_t *p, uint64_t v) {
  int i;
  for (i = 5; i >= 0; --i) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t code = 42;
  static const uint8_t ccids[8] = {2, 3, 4, UDCCP_CCID_BBR_DEFAULT,
                                   UDCCP_CCID_CUBIC_DEFAULT, 2, 2, 2};
  udccp_settings s, srv;
  udccp_listener_settings ls;
  fz f;
  size_t i = 0;
  int k;
  uint8_t d[200];

  memset(&f, 0, sizeof(f));
  f.rnd = 1;
  udccp_settings_default(&s);
  s.rand = fz_rand;
  s.rand_user_data = &f.rnd;
  s.cksum_mode = UDCCP_CKSUM_NONE; /* let fuzzed packets past step 1 */
  s.rx_qlen = 16;
  s.tx_qlen = 16;
  const uint8_t set = size > 0 ? data[0] : 0;
  i = size > 0 ? 1 : 0;
  s.ccid = ccids[set & 7];
  s.multipath = (set >> 3) & 1;
  s.ack_vectors = (set >> 4) & 1;
  s.allow_short_seqnos = (set >> 5) & 1;
  s.send_ndp_count = (set >> 6) & 1;
  sim_inv_end_init(&f.inv[0]);
  sim_inv_end_init(&f.inv[1]);
  f.pmtu = s.pmtu;
  s.mem = &f.inv[0].mem;
  srv = s;
  srv.mem = &f.inv[1].mem;
  if ((set & 7) == 5) {
    /* each half-connection its own CCID (§10): client 2, server 3 */
    s.rx_ccid = 3;
    srv.ccid = 3;
    srv.rx_ccid = 2;
  }
  memset(&f.path[0], 0, sizeof(f.path[0]));
  f.path[0].family = UDCCP_AF_INET;
  f.path[0].local_port = 40001;
  f.path[0].remote_port = 5001;
  f.path[1] = f.path[0];
  f.path[1].local_port = 5001;
  f.path[1].remote_port = 40001;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code;
  ls.n_service_codes = 1;
  ls.init_cookie = (set >> 7) & 1;
  CHECK(udccp_listener_new(&f.lis, &srv, &ls, 0) == 0);
  CHECK(udccp_conn_client_new(&f.c[0], &s, &f.path[0], 42, 0) == 0);
  exchange(&f, 20);
  memset(d, 0x55, sizeof(d));
  for (k = 0; k < 4 && f.c[0] && f.c[1]; ++k) {
    (void)udccp_conn_queue_datagram(f.c[0], d, 100, 0, f.now);
    (void)udccp_conn_queue_datagram(f.c[1], d, 60, 0, f.now);
  }
  exchange(&f, 10);

  while (i + 2 <= size) {
    uint8_t flags = data[i];
    size_t len = data[i + 1];
    uint8_t pkt[256];
    int to = flags & 1;
    i += 2;
    if (len > size - i) {
      len = size - i;
    }
    memcpy(pkt, data + i, len);
    i += len;
    f.now += (udccp_tstamp)(1u << ((flags >> 3) & 7)) * UDCCP_NS_PER_MS;
    if ((flags & 0x40) && f.c[to] != NULL) {
      (void)udccp_conn_close(f.c[to], f.now);
    }
    if ((flags & 2) && f.c[to] != NULL && len >= 24 && (pkt[8] & 1)) {
      /* X = 1: seqno at 10..15, ackno at 18..23 when the type has one. */
      put48(pkt + 10, udccp_seq_add(f.c[to]->gsr, 1));
      put48(pkt + 18, f.c[to]->gss);
    }
    deliver(&f, to, pkt, len);
    if (flags & 4) {
      exchange(&f, 4);
    }
    for (k = 0; k < 2; ++k) {
      if (f.c[k] != NULL) {
        udccp_conn_info info;
        uint8_t rb[1500];
        udccp_conn_get_info(f.c[k], &info);
        CHECK(info.state <= UDCCP_STATE_TIMEWAIT);
        while (udccp_conn_read_datagram(f.c[k], rb, sizeof(rb)) > 0) {
        }
      }
    }
  }
  exchange(&f, 10);
  udccp_conn_del(f.c[0]);
  if (f.c[1] != NULL) {
    udccp_listener_conn_gone(f.lis, f.c[1]);
  }
  udccp_conn_del(f.c[1]);
  udccp_listener_del(f.lis);
  CHECK(f.inv[0].mem_now == 0 && f.inv[1].mem_now == 0);
  return 0;
}
