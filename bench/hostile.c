/* SPDX-License-Identifier: MIT */
/*
 * udccp-hostile-bench: the CPU a hostile, authenticated peer costs us per
 * packet (issue 12, "hostile peers are bounded"), against a normal packet
 * of the same connection.  Each case opens a connection in memory (the
 * tests' pair, virtual time), pre-encodes N packets as the peer would send
 * them, then feeds them to our side and drains what it answers; only that
 * loop (one function per case, feed_<case>) is measured.
 *
 *   udccp-hostile-bench [N]          wall-clock ns/packet (noisy); N 300
 *   sh bench/hostile.sh BUILD [N]    instructions/packet under callgrind,
 *                                    one table with ratios to "normal"
 *
 * Cases (the peer asked for Sequence Window 2^46 - 1 in the handshake
 * where it says so; CCID 2 unless it says CCID 3):
 *   normal            Data, seqno + 1, 16-byte payload
 *   seq_jump          Data, seqno + 2^20 each, window 2^46 - 1
 *   seq_invalid       Data, seqno + 2^40 each (outside any window): each
 *                     is answered by a Sync, at most 8 a second
 *   xrecv_lie         CCID 3: Acks with Receive Rate 0xFFFFFFFF, no loss
 *   data_dropped_lie  Acks with a 252-byte Data Dropped (every block
 *                     "15 packets dropped, receive buffer")
 *   ndp_lie           CCID 3: Data, seqno + 2^20, NDP Count 2^48 - 1
 *   elapsed_ts_lie    Acks with Elapsed Time 0xFFFFFFFF, a Timestamp Echo
 *                     of a time never sent, and a random Timestamp
 * Each hostile case is compared with the normal case of its CCID.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <udccp/udccp.h>

#include "conn.h"
#include "pair.h"
#include "pktbuild.h"

#define PKT_MAX 320
#define JUMP (1ULL << 20)
#define WIN_MAX 70368744177663ULL /* 2^46 - 1, RFC 4340 §7.5.2 */

typedef struct batch {
  uint8_t (*pkt)[PKT_MAX];
  size_t *len;
  size_t n;
} batch;

enum kind { K_DATA, K_ACK };

typedef struct bcase {
  const char *name;
  uint8_t ccid;
  int big_window;
  enum kind kind;
  uint64_t step; /* seqno increment */
  const char *what;
} bcase;

static const bcase cases[] = {
    {"normal", 2, 0, K_DATA, 1, "Data, seqno + 1, 16 B"},
    {"seq_jump", 2, 1, K_DATA, JUMP, "W 2^46-1, seqno + 2^20"},
    {"seq_invalid", 2, 0, K_DATA, 1ULL << 40, "seqno + 2^40: Sync, 8/s"},
    {"data_dropped_lie", 2, 0, K_ACK, 1, "Ack, 252 B Data Dropped"},
    {"elapsed_ts_lie", 2, 0, K_ACK, 1, "Ack, Elapsed/Timestamp lies"},
    {"normal_ccid3", 3, 0, K_DATA, 1, "CCID 3 Data, seqno + 1"},
    {"seq_jump_ccid3", 3, 1, K_DATA, JUMP, "CCID 3, W 2^46-1, + 2^20"},
    {"ndp_lie_ccid3", 3, 1, K_DATA, JUMP, "CCID 3, + 2^20, NDP 2^48-1"},
    {"xrecv_lie_ccid3", 3, 0, K_ACK, 1, "CCID 3 Ack, X_recv 0xFFFFFFFF"},
    {"data_dropped_lie_ccid3", 3, 0, K_ACK, 1, "CCID 3 Ack, 252 B Dropped"},
    {"elapsed_ts_lie_ccid3", 3, 0, K_ACK, 1, "CCID 3 Ack, Elapsed/TS lies"},
};

static size_t put_opt(uint8_t *o, uint8_t type, const uint8_t *v,
                      size_t len) {
  o[0] = type;
  o[1] = (uint8_t)(len + 2);
  memcpy(o + 2, v, len);
  return len + 2;
}

/* The options of packet i of case c. */
static size_t case_opts(const bcase *c, uint64_t i, uint8_t *o) {
  size_t n = 0;
  uint8_t v[256];
  if (strncmp(c->name, "data_dropped", 12) == 0) {
    memset(v, 0xAF, 252); /* drop, code 2 (receive buffer), run 15 */
    n += put_opt(o + n, UDCCP_OPT_DATA_DROPPED, v, 252);
  } else if (strncmp(c->name, "ndp_lie", 7) == 0) {
    memset(v, 0xFF, 6); /* NDP Count 2^48 - 1 */
    n += put_opt(o + n, UDCCP_OPT_NDP_COUNT, v, 6);
  } else if (strncmp(c->name, "elapsed_ts", 10) == 0) {
    uint32_t r = (uint32_t)(i * 2654435761u);
    memset(v, 0xFF, 4);
    n += put_opt(o + n, UDCCP_OPT_ELAPSED_TIME, v, 4);
    v[0] = (uint8_t)(r >> 24);
    v[1] = (uint8_t)(r >> 16);
    v[2] = (uint8_t)(r >> 8);
    v[3] = (uint8_t)r;
    n += put_opt(o + n, UDCCP_OPT_TIMESTAMP, v, 4);
    memset(v, 0x7F, 8); /* echo of a time we never sent, elapsed max */
    n += put_opt(o + n, UDCCP_OPT_TIMESTAMP_ECHO, v, 8);
  }
  if (strncmp(c->name, "xrecv_lie", 9) == 0 ||
      strcmp(c->name, "data_dropped_lie_ccid3") == 0) {
    static const uint8_t li[9] = {0, 0, 0, 0x10, 0, 0, 0, 0, 0};
    memset(v, 0xFF, 4);
    n += put_opt(o + n, 194, v, 4); /* Receive Rate 0xFFFFFFFF */
    n += put_opt(o + n, 193, li, sizeof(li)); /* Loss Intervals: none */
  }
  return n;
}

static void fatal(const char *what) {
  fprintf(stderr, "udccp-hostile-bench: %s\n", what);
  exit(1);
}

/* Opens the connection of case c; our side is the server, p->c[1]. */
static void open_case(udccp_pair *p, const bcase *c) {
  udccp_settings cs, ss;
  memset(p, 0, sizeof(*p));
  udccp_pair_settings(p, &cs);
  udccp_pair_settings(p, &ss);
  cs.ccid = ss.ccid = c->ccid;
  cs.keepalive_idle = ss.keepalive_idle = 0;
  if (c->big_window) {
    cs.seq_window = WIN_MAX; /* the peer's Change L(Sequence Window) */
  }
  if (udccp_pair_init(p, &cs, &ss, NULL, 7) != 0 ||
      !udccp_pair_run_until(p, udccp_pair_both_open, NULL,
                            5 * UDCCP_NS_PER_S)) {
    fatal("handshake failed");
  }
  /* some normal traffic both ways, so that every half is warm */
  (void)udccp_pair_stream(p, 0, 100, UDCCP_NS_PER_MS, 300 * UDCCP_NS_PER_MS);
  (void)udccp_pair_stream(p, 1, 100, UDCCP_NS_PER_MS, 300 * UDCCP_NS_PER_MS);
  udccp_pair_run_for(p, 1 * UDCCP_NS_PER_S);
}

static void build_batch(udccp_pair *p, const bcase *c, batch *b, size_t n) {
  static const uint8_t payload[16] = "hostile-bench-16";
  udccp_conn *me = p->c[1];
  uint64_t seq = udccp_seq_add(me->gsr, 1);
  size_t i;
  b->pkt = malloc(n * sizeof(*b->pkt));
  b->len = malloc(n * sizeof(*b->len));
  b->n = n;
  if (!b->pkt || !b->len) {
    fatal("out of memory");
  }
  for (i = 0; i < n; i++) {
    udccp_tb_pkt tp;
    uint8_t opts[300];
    udccp_ssize len;
    udccp_tb_pkt_init(&tp, c->kind == K_DATA ? UDCCP_PKT_DATA : UDCCP_PKT_ACK,
                      seq, me->gss);
    tp.opts = opts;
    tp.opts_len = case_opts(c, i, opts);
    if (c->kind == K_DATA) {
      tp.payload = payload;
      tp.payload_len = sizeof(payload);
      tp.ccval = (uint8_t)((i / 4) & 15);
    }
    len = udccp_tb_encode(b->pkt[i], PKT_MAX, &p->path[0], &tp);
    if (len <= 0) {
      fatal("encode failed");
    }
    b->len[i] = (size_t)len;
    seq = udccp_seq_add(seq, (int64_t)c->step);
  }
}

/* The measured loop: our side reads each packet, answers (write_pkt until
 * it has nothing more) and hands received data to the application. */
static uint64_t run_batch(udccp_pair *p, const batch *b) {
  udccp_conn *me = p->c[1];
  uint8_t out[UDCCP_PAIR_MTU], app[64];
  uint64_t accepted = 0;
  size_t i;
  for (i = 0; i < b->n; i++) {
    p->now += 20000;
    if (udccp_conn_read_pkt(me, b->pkt[i], b->len[i], 0, p->now) == 0) {
      accepted++;
    }
    while (udccp_conn_read_datagram(me, app, sizeof(app)) > 0) {
    }
    if (udccp_conn_get_expiry(me) <= p->now) {
      (void)udccp_conn_handle_expiry(me, p->now);
    }
    while (udccp_conn_write_pkt(me, out, sizeof(out), NULL, p->now) > 0) {
    }
  }
  return accepted;
}

/* One function per case, so that callgrind reports each loop alone. */
#define FEED(name)                                                          \
  __attribute__((noinline)) uint64_t feed_##name(udccp_pair *p,           \
                                                 const batch *b);         \
  __attribute__((noinline)) uint64_t feed_##name(udccp_pair *p,           \
                                                 const batch *b) {        \
    return run_batch(p, b);                                                \
  }
FEED(normal)
FEED(seq_jump)
FEED(seq_invalid)
FEED(data_dropped_lie)
FEED(elapsed_ts_lie)
FEED(normal_ccid3)
FEED(seq_jump_ccid3)
FEED(ndp_lie_ccid3)
FEED(xrecv_lie_ccid3)
FEED(data_dropped_lie_ccid3)
FEED(elapsed_ts_lie_ccid3)

typedef uint64_t (*feed_fn)(udccp_pair *, const batch *);
static const feed_fn feeds[] = {
    feed_normal,        feed_seq_jump,       feed_seq_invalid,
    feed_data_dropped_lie,
    feed_elapsed_ts_lie, feed_normal_ccid3,  feed_seq_jump_ccid3,
    feed_ndp_lie_ccid3, feed_xrecv_lie_ccid3, feed_data_dropped_lie_ccid3,
    feed_elapsed_ts_lie_ccid3};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 300, k;
  if (n == 0 || n > 1000000) {
    fatal("usage: udccp-hostile-bench [PACKETS (1..1000000, default 300)]");
  }
  /* case name, packets fed, accepted, ns/packet, X our sender allows */
  printf("# case packets accepted ns_per_pkt x_bytes_per_s what\n");
  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    udccp_pair p;
    batch b;
    udccp_conn_info ci;
    uint64_t acc;
    double t0, t1;
    open_case(&p, &cases[k]);
    build_batch(&p, &cases[k], &b, n);
    t0 = now_ns();
    acc = feeds[k](&p, &b);
    t1 = now_ns();
    udccp_conn_get_info(p.c[1], &ci);
    printf("%s %zu %llu %.0f %llu %s\n", cases[k].name, n,
           (unsigned long long)acc, (t1 - t0) / (double)n,
           (unsigned long long)ci.x, cases[k].what);
    free(b.pkt);
    free(b.len);
    udccp_pair_free(&p);
  }
  return 0;
}
