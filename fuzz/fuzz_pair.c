/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: two udccp endpoints (a client and a listener's server
 * connection) over a network the input schedules packet by packet, with
 * application calls and time jumps up to minutes (issue 11 §2).  After
 * every event each connection must keep the chaos invariants of
 * sim/sim_inv.h (sequence numbers increase, §7.5.1 windows, MPS, bounded
 * memory, no timer in the past once served), and write_pkt must not loop.
 *
 * Input: three settings bytes, then a stream of operations.  Whenever a
 * written packet needs a fate, the next stream byte is taken as one (so
 * fates and operations interleave); an exhausted stream delivers.
 *   settings[0]: bits 0-1 CCID (0, 1: 2; 2: 3; 3: 4; 0 also puts the
 *                server on a udccp_mempool and both send queues on the
 *                priority policy, 1 makes the listener answer with Init
 *                Cookies always, §8.1.4), bit 2 short
 *                sequence numbers, bit 3 ECN, bits 4-7 CsCov sent (0-15)
 *   settings[1]: bits 0-3 Sequence Window 32 << n (n < 12), bits 4-5 Ack
 *                Ratio 1 + n, bit 6 server holds TIMEWAIT, bit 7 Data
 *                Checksum asked
 *   settings[2]: bits 0-1 CCID override (0: settings[0]'s; 1: CUBIC and
 *                2: BBR both ways; 3: mixed, the client sends with
 *                settings[0]'s CCID and the server with the next of 2, 3,
 *                4, each asking the other for it, §10), bit 2 Multipath
 *                DCCP offered (RFC 9897: MP_KEY, MP_SEQ), bit 3 Ack
 *                Vectors with CCID 3/4 (§11.5), bit 4 a 10 Mbit/s
 *                bottleneck each way (50 ms drop-tail queue) and NDP
 *                Count sent (§7.7), bit 5 the server is made by
 *                udccp_conn_listen_new (RFC 5596 DCCP-Listen) rather than
 *                by the listener, bit 6 keepalive (2 s idle, 1 s x 2
 *                probes) and a 20 s idle timeout, bit 7 IPv6 paths, PMTU
 *                1280, queues of 4 datagrams and a server that requires
 *                CsCov >= 8 (§9.2.1).  0: as before this byte existed.
 *   operation byte: bits 0-2 kind, bits 3-7 argument a
 *     0 client queues a + 1 datagrams of 1 + next byte * 5 bytes
 *     1 an application reads all: the server's (a & 2: the client's); a
 *       odd: it stops reading until its next 1; a & 4: with
 *       read_datagram_ex (lost_before must be < 2^48), a & 8: peeking the
 *       length first (which the read must return); a & 16, with the
 *       bottleneck: that side's application becomes greedy (keeps its
 *       send queue full of 1000-byte datagrams, at most 3,000 in a run),
 *       else stops being
 *     2 time advances a^3 ms (up to ~30 s)
 *     3 time advances a x 10 s (up to ~5 minutes)
 *     4 close or abort: a % 4 = client close, client abort, server close,
 *       server abort
 *     5 server queues a + 1 datagrams (the reverse direction)
 *     6 a % 8: 0-3 the listener: set backlog a / 8, read its stats,
 *       report the server connection accepted, report it updated (and
 *       the server's pool, if any, is trimmed); 4 both sides' PMTU :=
 *       576, 1000, 1280 or 1500 (a / 8); 5 the getters agree with
 *       get_info; 6 the client queues a datagram with a deadline a / 8 x
 *       20 ms away; 7, a / 8 < 2: server_timewait := a / 8 on the
 *       server; 7, a / 8 >= 2 (op bytes 0xbe, 0xfe): a zero-copy
 *       operation on side a / 8 & 1 (0xbe the client, 0xfe the server),
 *       the next byte z: bits 0-2 kind, bits 3-7 argument c
 *         0 reserve a datagram of 1 + next byte * 5 bytes, priority c & 7,
 *           deadline (c >> 3): none, now (must be refused), 20, 100 ms;
 *           the whole room reserved is written (ASan: a short slot)
 *         1 commit the reservation, length mode c (see zc_commit_len)
 *         2 reserve as 0 and commit at once, the mode from the next byte
 *           m & 3 (the commit must succeed if the length fits)
 *         3 reserve as 0, then by m >> 2 & 3: a copied datagram, a
 *           second reservation, the side served (packets written), the
 *           PMTU set again; then commit as 2 (the push must cancel, the
 *           second reservation replace)
 *         4 peek the oldest datagram (every byte read, checked as a read
 *           datagram); c & 1: then consume it
 *         5 consume without a peek
 *         6 c & 1: that side's application reads by peek and consume
 *           (and every other datagram also by the copying read, which
 *           must return the bytes the peek showed)
 *         7 c & 1: that side queues its datagrams by reserve and commit
 *     7 client queues a + 1 datagrams with priority next byte
 *   fate byte: bits 0-2 0-2 deliver, 3 drop, 4 duplicate, 5 deliver late
 *     (reordered, + bits 3-7 x 7 ms), 6 CE-mark, 7 flip bit (bits 3-7)
 *
 * Datagrams carry their number (first 4 bytes, little-endian) and bytes
 * derived from it: with full checksum coverage (CsCov 0, §9.2) every
 * datagram an application reads must be one its peer queued, of the
 * length queued, byte for byte (duplicates may come: DCCP does not
 * suppress them).  A packet for a side that has no connection is
 * answered as a host would, with Reset No Connection (§8.5 step 1).
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

/* An invariant broken: says which side and why before aborting. */
#define CHECK_WHY(c, side, why)                                               \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "fuzz_pair: %s: %s\n", (side) ? "server" : "client",   \
              (why));                                                         \
      abort();                                                                \
    }                                                                         \
  } while (0)

#define MS UDCCP_NS_PER_MS
#define NET_MAX 512   /* packets in flight */
#define BURST_MAX 4096 /* packets one side may write at one instant */
#define REC_MAX 8192   /* datagrams whose length is remembered, per side */

typedef struct npkt {
  udccp_tstamp at;
  uint64_t order;
  int to;
  uint8_t ecn;
  uint16_t len;
  uint8_t data[1500];
} npkt;

/* What the harness knows of a side's reservation: none (a commit must
 * fail), sure (nothing happened since: a commit that fits must succeed),
 * or maybe (other calls since, which may have cancelled it). */
enum { RESV_NONE, RESV_SURE, RESV_MAYBE };

typedef struct zc_resv {
  int state;
  size_t len;             /* reserved length */
  uint32_t k;             /* the number written into it */
  uint64_t data_pkts_sent; /* at the reservation: a datagram sent since
                              means the queue was popped (cancelled) */
} zc_resv;

typedef struct fz {
  const uint8_t *in;
  size_t n, pos;
  udccp_conn *c[2];
  udccp_listener *lis;
  udccp_mempool *pool; /* the server's allocator, when settings[0] & 3 == 0 */
  int srv_own;          /* c[1] came from udccp_conn_listen_new */
  uint32_t lis_pmtu;    /* the PMTU the listener gives its connections */
  int check_data;       /* datagrams are checked byte for byte */
  uint32_t sent[2];     /* datagrams each side queued */
  uint16_t (*sent_len)[REC_MAX];
  udccp_settings set[2];
  sim_inv_end inv[2];
  udccp_path path[2];
  udccp_tstamp now;
  int bottleneck;            /* 10 Mbit/s each way, 50 ms drop-tail */
  udccp_tstamp link_free[2]; /* ... when each direction's link is idle */
  int greedy[2];             /* the application keeps its queue full */
  unsigned greedy_left;      /* datagrams greedy applications may queue */
  uint64_t rnd, order;
  int reads[2];         /* the application reads (side 1 by default) */
  uint8_t read_mode[2]; /* op 1's a & 12 */
  uint8_t zc_read[2];   /* the application reads by peek and consume */
  uint8_t zc_write[2];  /* ... and queues by reserve and commit */
  unsigned zc_reads;    /* datagrams read by peek (every other one also
                           by the copying read) */
  zc_resv resv[2];      /* each side's reservation, as the harness knows */
  size_t nnet;
  npkt *net;
  uint8_t buf[1500];
  uint8_t peeked[1500]; /* a copy of the datagram a peek showed */
} fz;

static void fz_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *s = ud;
  for (size_t i = 0; i < len; ++i) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    dest[i] = (uint8_t)(*s >> 56);
  }
}

static int next_byte(fz *f, uint8_t *b) {
  if (f->pos >= f->n) {
    return 0;
  }
  *b = f->in[f->pos++];
  return 1;
}

static void net_push(fz *f, int to, const uint8_t *pkt, size_t len,
                     uint8_t ecn, udccp_tstamp at) {
  if (f->nnet >= NET_MAX) {
    return; /* the queue overflows: dropped */
  }
  npkt *p = &f->net[f->nnet++];
  p->at = at;
  p->order = f->order++;
  p->to = to;
  p->ecn = ecn;
  p->len = (uint16_t)len;
  memcpy(p->data, pkt, len);
}

/* A packet side `from` wrote meets its fate. */
static void net_send(fz *f, int from, const uint8_t *pkt, size_t len,
                     uint8_t ecn) {
  uint8_t fate = 0;
  udccp_tstamp at = f->now + 10 * MS;
  (void)next_byte(f, &fate);
  if (f->bottleneck) {
    udccp_tstamp start =
        f->link_free[from] > f->now ? f->link_free[from] : f->now;
    if (start - f->now > 50 * MS) {
      return; /* the bottleneck's queue is full */
    }
    /* 10 Mbit/s: 800 ns per byte, IP and UDP headers included */
    f->link_free[from] = start + (udccp_tstamp)(len + 28) * 800;
    at = f->link_free[from] + 10 * MS;
  }
  switch (fate & 7) {
  case 3:
    return;
  case 4:
    net_push(f, 1 - from, pkt, len, ecn, at);
    break;
  case 5:
    at += (udccp_tstamp)(fate >> 3) * 7 * MS;
    break;
  case 6:
    if (ecn == 1 || ecn == 2) {
      ecn = 3;
    }
    break;
  case 7: {
    uint8_t tmp[1500];
    memcpy(tmp, pkt, len);
    size_t bit = ((size_t)(fate >> 3) * 37) % (len * 8);
    tmp[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    net_push(f, 1 - from, tmp, len, ecn, at);
    return;
  }
  default:
    break;
  }
  net_push(f, 1 - from, pkt, len, ecn, at);
}

/* Byte i of datagram number k (the first 4 bytes are k itself). */
static uint8_t pat(uint32_t k, size_t i) {
  return (uint8_t)(k * 131u + (k >> 9) + i * 7u);
}

/* A datagram side `side` read: with full checksum coverage, one its peer
 * queued, of that length, byte for byte. */
static void check_dgram(fz *f, int side, const uint8_t *d, size_t len) {
  int from = 1 - side;
  if (!f->check_data || len < 4) {
    return;
  }
  uint32_t k = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
               (uint32_t)d[3] << 24;
  CHECK_WHY(k < f->sent[from], side, "read a datagram its peer never queued");
  CHECK_WHY(k >= REC_MAX || f->sent_len[from][k] == len, side,
            "read a datagram of another length than queued");
  for (size_t i = 4; i < len; i++) {
    CHECK_WHY(d[i] == pat(k, i), side,
              "read a datagram with other bytes than queued");
  }
}

/* Side `side` peeks at its oldest datagram: the length peek_datagram_len
 * says, every byte read and checked as a read datagram's, a copy kept in
 * f->peeked.  Returns the length or the peek's error. */
static udccp_ssize zc_peek(fz *f, int side, udccp_recv_info *ri) {
  udccp_conn *c = f->c[side];
  const uint8_t *d = NULL;
  udccp_ssize want = udccp_conn_peek_datagram_len(c);
  udccp_ssize n = udccp_conn_peek_datagram(c, &d, ri);
  if (n < 0) {
    CHECK_WHY(want < 0, side, "peek_datagram_len saw one the peek did not");
    return n;
  }
  CHECK_WHY(n == want, side, "peek's length is not peek_datagram_len's");
  CHECK_WHY((size_t)n <= sizeof(f->peeked) && (n == 0 || d != NULL), side,
            "peek gave no bytes");
  CHECK_WHY(ri == NULL || (ri->lost_before >> 48) == 0, side,
            "peek's lost_before beyond the sequence space");
  if (n > 0) {
    memcpy(f->peeked, d, (size_t)n); /* ASan: every byte must be there */
  }
  check_dgram(f, side, f->peeked, (size_t)n);
  return n;
}

/* Reads one datagram in place (op 6's zero-copy reader): peek, then every
 * other time the copying read, which must give the same datagram, else a
 * second peek, which must too, and consume.  Returns 0 or the error. */
static int zc_read_one(fz *f, int side) {
  udccp_conn *c = f->c[side];
  udccp_recv_info ri = UDCCP_RECV_INFO_INIT, ri2 = UDCCP_RECV_INFO_INIT;
  udccp_ssize n = zc_peek(f, side, &ri), m;
  if (n < 0) {
    return (int)n;
  }
  if (f->zc_reads++ & 1) {
    m = udccp_conn_read_datagram_ex(c, f->buf, sizeof(f->buf), &ri2);
  } else {
    const uint8_t *d = NULL;
    m = udccp_conn_peek_datagram(c, &d, &ri2);
    CHECK_WHY(m == n && (m == 0 || d != NULL), side,
              "a second peek gave another length");
    if (m > 0) {
      memcpy(f->buf, d, (size_t)m);
    }
    CHECK_WHY(udccp_conn_consume_datagram(c) == 0, side,
              "consume after a peek failed");
  }
  CHECK_WHY(m == n && (n == 0 || memcmp(f->buf, f->peeked, (size_t)n) == 0),
            side,
            "the peek showed another datagram than the read gave");
  CHECK_WHY(ri.lost_before == ri2.lost_before && ri.seq == ri2.seq, side,
            "the peek's recv_info is not the read's");
  return 0;
}

/* Side `side`'s application reads everything waiting, the way op 1 set. */
static void app_read(fz *f, int side) {
  udccp_conn *c = f->c[side];
  for (int guard = 0; guard < 100000; guard++) {
    udccp_ssize n, want = -1;
    if (f->zc_read[side]) {
      if (zc_read_one(f, side) != 0) {
        break;
      }
      continue;
    }
    if (f->read_mode[side] & 8) {
      want = udccp_conn_peek_datagram_len(c);
      if (want < 0) {
        break;
      }
      if (want > 0) {
        CHECK_WHY(udccp_conn_read_datagram(c, f->buf, (size_t)want - 1) ==
                      UDCCP_ERR_NOBUF,
                  side, "a buffer one byte short did not get NOBUF");
      }
    }
    if (f->read_mode[side] & 4) {
      udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
      n = udccp_conn_read_datagram_ex(c, f->buf, sizeof(f->buf), &ri);
      /* counts of lost packets: never an underflow's wrap */
      CHECK_WHY(n < 0 || (ri.lost_before >> 48) == 0, side,
                "lost_before beyond the sequence space");
    } else {
      n = udccp_conn_read_datagram(c, f->buf, sizeof(f->buf));
    }
    if (n < 0) {
      CHECK_WHY(want < 0, side, "peek saw a datagram the read did not give");
      break;
    }
    CHECK_WHY(want < 0 || n == want, side, "peeked length is not the read's");
    check_dgram(f, side, f->buf, (size_t)n);
  }
}

/* Writes datagram number k's len bytes at d. */
static void fill(uint8_t *d, uint32_t k, size_t len) {
  for (size_t j = 0; j < len; j++) {
    d[j] = j < 4 ? (uint8_t)(k >> (8 * j)) : pat(k, j);
  }
}

/* Side `side` queued datagram number sent[side] of len bytes: remembered;
 * the queue changed, so no reservation survives. */
static void queued(fz *f, int side, size_t len) {
  uint32_t k = f->sent[side];
  if (k < REC_MAX) {
    f->sent_len[side][k] = (uint16_t)len;
  }
  f->sent[side]++;
  f->resv[side].state = RESV_NONE;
}

/* Side `side`'s application queues its next numbered datagram, copied. */
static int queue_copy(fz *f, int side, size_t len, uint32_t prio,
                      udccp_tstamp until) {
  uint8_t payload[1500];
  fill(payload, f->sent[side], len);
  int rv = until == UDCCP_TSTAMP_NEVER
               ? udccp_conn_queue_datagram(f->c[side], payload, len, prio,
                                           f->now)
               : udccp_conn_queue_datagram_until(f->c[side], payload, len,
                                                 prio, until, f->now);
  if (rv == 0) {
    queued(f, side, len);
  }
  return rv;
}

/* The same in place: reserve, write the whole room, commit at once (which
 * must then succeed). */
static int queue_zc(fz *f, int side, size_t len, uint32_t prio,
                    udccp_tstamp until) {
  uint8_t *d = NULL;
  int rv = udccp_conn_reserve_datagram(f->c[side], len, prio, until, &d,
                                       f->now);
  if (rv != 0) {
    if (f->resv[side].state == RESV_SURE) {
      f->resv[side].state = RESV_MAYBE;
    }
    return rv;
  }
  CHECK_WHY(d != NULL, side, "reserve gave no room");
  fill(d, f->sent[side], len);
  rv = udccp_conn_commit_datagram(f->c[side], len, f->now);
  CHECK_WHY(rv == 0, side, "commit right after its reservation failed");
  queued(f, side, len);
  return 0;
}

/* Side `side`'s application queues its next numbered datagram. */
static int queue_one(fz *f, int side, size_t len, uint32_t prio,
                     udccp_tstamp until) {
  return f->zc_write[side] ? queue_zc(f, side, len, prio, until)
                           : queue_copy(f, side, len, prio, until);
}

/* A greedy application keeps its send queue full (bulk transfer), within
 * the run's budget. */
static void top_up(fz *f, int side) {
  udccp_conn *c = f->c[side];
  while (f->greedy[side] && f->greedy_left > 0 &&
         udccp_conn_get_send_space(c) > 0) {
    size_t mps = udccp_conn_get_mps(c);
    if (queue_one(f, side, mps < 1000 ? mps : 1000, 0, UDCCP_TSTAMP_NEVER) !=
        0) {
      break;
    }
    f->greedy_left--;
  }
}

static void retire(fz *f, int side) {
  if (side == 1 && !f->srv_own) {
    udccp_listener_conn_gone(f->lis, f->c[1]);
  }
  if (side == 1) {
    f->srv_own = 0;
  }
  udccp_conn_del(f->c[side]);
  f->c[side] = NULL;
  f->resv[side].state = RESV_NONE;
}

/* Serves one side at f->now: timers, the application, every packet it
 * has; then the invariants. */
static void serve(fz *f, int side) {
  udccp_conn *c = f->c[side];
  if (c == NULL) {
    return;
  }
  if (udccp_conn_get_expiry(c) <= f->now) {
    (void)udccp_conn_handle_expiry(c, f->now);
  }
  if (f->reads[side]) {
    app_read(f, side);
  }
  top_up(f, side);
  int n = 0;
  for (;;) {
    uint8_t ecn = 0;
    udccp_ssize len = udccp_conn_write_pkt(c, f->buf, sizeof(f->buf), &ecn,
                                           f->now);
    if (len <= 0) {
      break;
    }
    char why[200];
    CHECK_WHY(sim_inv_after_write(&f->inv[side], c, f->buf, (size_t)len,
                                  f->set[side].pmtu,
                                  f->set[side].hdr_overhead, why,
                                  sizeof(why)) == 0,
              side, why);
    CHECK(++n < BURST_MAX);
    net_send(f, side, f->buf, (size_t)len, ecn);
  }
  if (udccp_conn_is_done(c)) {
    retire(f, side);
    return;
  }
  char why[200];
  CHECK_WHY(sim_inv_after_event(&f->inv[side], c, f->now, why, sizeof(why)) ==
                0,
            side, why);
}

static void deliver(fz *f, const npkt *p) {
  uint8_t out[1500];
  if (f->c[p->to] != NULL) {
    (void)udccp_conn_read_pkt(f->c[p->to], p->data, p->len, p->ecn, f->now);
  } else if (p->to == 1) {
    udccp_conn *nc = NULL;
    udccp_ssize n = udccp_listener_read_pkt(f->lis, &f->path[1], p->data,
                                            p->len, f->now, &nc, out,
                                            sizeof(out));
    if (nc != NULL && f->inv[1].have_gss == 0) {
      f->c[1] = nc;
      /* a new connection has the listener's PMTU, not one op 6 gave the
       * connection it replaces */
      f->set[1].pmtu = f->lis_pmtu;
    } else if (nc != NULL) {
      /* one server connection per run: a second is refused */
      udccp_listener_conn_gone(f->lis, nc);
      udccp_conn_del(nc);
    } else if (n > 0) {
      net_send(f, 1, out, (size_t)n, 0);
    }
  } else {
    /* the client's host without the connection (§8.5 step 1) */
    udccp_ssize n = udccp_pkt_write_reset_reply(
        out, sizeof(out), p->data, p->len, &f->path[0], f->set[0].cksum_mode,
        UDCCP_RESET_NO_CONNECTION);
    if (n > 0) {
      net_send(f, 0, out, (size_t)n, 0);
    }
  }
  serve(f, p->to);
}

/* Runs the network and both sides up to time `until`. */
static void run_until(fz *f, udccp_tstamp until) {
  for (int guard = 0; guard < 100000; guard++) {
    /* earliest of: a packet, a side's expiry */
    udccp_tstamp next = until;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < f->nnet; i++) {
      if (f->net[i].at < next ||
          (f->net[i].at == next && best != SIZE_MAX &&
           f->net[i].order < f->net[best].order)) {
        next = f->net[i].at;
        best = i;
      }
    }
    for (int s = 0; s < 2; s++) {
      if (f->c[s] != NULL && udccp_conn_get_expiry(f->c[s]) < next) {
        next = udccp_conn_get_expiry(f->c[s]);
        best = SIZE_MAX;
      }
    }
    if (next > f->now) {
      f->now = next;
    }
    if (best != SIZE_MAX && f->net[best].at <= f->now) {
      npkt p = f->net[best];
      f->net[best] = f->net[--f->nnet];
      deliver(f, &p);
      continue;
    }
    int served = 0;
    for (int s = 0; s < 2; s++) {
      if (f->c[s] != NULL && udccp_conn_get_expiry(f->c[s]) <= f->now) {
        serve(f, s);
        served = 1;
      }
    }
    if (!served && f->now >= until) {
      return;
    }
  }
}

/* Side `side` queues count datagrams of len bytes, numbered; with a
 * deadline `until` unless UDCCP_TSTAMP_NEVER. */
static void queue(fz *f, int side, unsigned count, size_t len, uint32_t prio,
                  udccp_tstamp until) {
  for (unsigned i = 0; i < count && f->c[side] != NULL; i++) {
    if (queue_one(f, side, len, prio, until) != 0) {
      break;
    }
  }
  serve(f, side);
}

/* Op 6, a % 8 = 5: what the getters say is what get_info says. */
static void check_getters(fz *f) {
  for (int s = 0; s < 2; s++) {
    udccp_conn *c = f->c[s];
    udccp_conn_info in;
    if (c == NULL) {
      continue;
    }
    udccp_conn_get_info(c, &in);
    CHECK_WHY(udccp_conn_get_state(c) == in.state, s, "get_state");
    CHECK_WHY(udccp_conn_get_mps(c) == in.mps, s, "get_mps");
    CHECK_WHY(in.mps + f->set[s].hdr_overhead <= f->set[s].pmtu, s,
              "MPS above the PMTU's room (§14)");
    CHECK_WHY(udccp_conn_get_send_space(c) <= f->set[s].tx_qlen, s,
              "send space above the queue length");
    const udccp_path *p = udccp_conn_get_path(c);
    CHECK_WHY(p->family == f->path[s].family &&
                  p->local_port == f->path[s].local_port &&
                  p->remote_port == f->path[s].remote_port &&
                  memcmp(p->remote_addr, f->path[s].remote_addr, 16) == 0,
              s, "get_path");
    CHECK_WHY(udccp_conn_get_error(c) <= 0, s, "get_error positive");
    CHECK_WHY(udccp_conn_get_reset_code(c) >= 0 &&
                  udccp_conn_get_reset_code(c) <= 255,
              s, "get_reset_code");
  }
}

/* Zero-copy op 0: side `side` reserves len bytes and writes every one. */
static void zc_reserve(fz *f, int side, size_t len, unsigned c) {
  static const udccp_tstamp after[4] = {0, 0, 20 * MS, 100 * MS};
  udccp_conn *conn = f->c[side];
  zc_resv *r = &f->resv[side];
  udccp_tstamp until =
      (c >> 3) == 0 ? UDCCP_TSTAMP_NEVER : f->now + after[(c >> 3) & 3];
  size_t mps = udccp_conn_get_mps(conn);
  uint8_t *d = NULL;
  int rv = udccp_conn_reserve_datagram(conn, len, c & 7, until, &d, f->now);
  if (rv != 0) {
    CHECK_WHY(len <= mps || rv == UDCCP_ERR_MSGSIZE ||
                  rv == UDCCP_ERR_INVALID_STATE || rv <= UDCCP_ERR_FATAL,
              side, "a reservation above the MPS not refused MSGSIZE");
    if (r->state == RESV_SURE) {
      r->state = RESV_MAYBE;
    }
    return;
  }
  CHECK_WHY(d != NULL && len <= mps, side, "reserved more than the MPS");
  CHECK_WHY(until > f->now, side, "reserved past its deadline");
  fill(d, f->sent[side], len);
  udccp_conn_info in;
  udccp_conn_get_info(conn, &in);
  r->state = RESV_SURE;
  r->len = len;
  r->k = f->sent[side];
  r->data_pkts_sent = in.data_pkts_sent;
}

/* The length zero-copy commit mode m asks for, given the reserved length:
 * m & 3 = 0 all of it, 1 (m >> 2) x 13 bytes less (at least 0), 2 (m >> 2)
 * + 1 bytes more (must fail MSGSIZE, the reservation staying), 3 as 2 and
 * then all of it (see zc_commit). */
static size_t zc_commit_len(size_t rlen, unsigned m) {
  size_t less = (size_t)(m >> 2) * 13;
  switch (m & 3) {
  case 0:
    return rlen;
  case 1:
    return rlen > less ? rlen - less : 0;
  default:
    return rlen + 1 + (m >> 2);
  }
}

/* Zero-copy op 1: commit in mode m, against what the harness knows. */
static void zc_commit(fz *f, int side, unsigned m) {
  udccp_conn *conn = f->c[side];
  zc_resv *r = &f->resv[side];
  size_t len = zc_commit_len(r->len, m);
  udccp_conn_info in;
  udccp_conn_get_info(conn, &in);
  if (r->state != RESV_NONE && in.data_pkts_sent != r->data_pkts_sent) {
    r->state = RESV_NONE; /* a datagram left: the queue was popped */
  }
  int rv = udccp_conn_commit_datagram(conn, len, f->now);
  if (rv != 0) {
    CHECK_WHY(r->state != RESV_SURE || len > r->len, side,
              "the commit of a reservation held failed");
    CHECK_WHY(r->state != RESV_SURE || rv == UDCCP_ERR_MSGSIZE, side,
              "a commit too long not refused MSGSIZE");
    if (rv != UDCCP_ERR_MSGSIZE) {
      r->state = RESV_NONE;
    } else if ((m & 3) == 3) {
      zc_commit(f, side, 0); /* the reservation stayed: all of it */
    }
    return;
  }
  CHECK_WHY(r->state != RESV_NONE, side, "a commit without a reservation");
  CHECK_WHY(len <= r->len, side, "a commit longer than the reservation");
  CHECK_WHY(r->k == f->sent[side], side, "a reservation outlived a push");
  queued(f, side, len);
}

/* Op 6, a % 8 = 7, a / 8 >= 2: a zero-copy operation (see the top). */
static void zc_op(fz *f, int side) {
  uint8_t z, b = 0, m = 0;
  if (!next_byte(f, &z)) {
    return;
  }
  unsigned c = z >> 3;
  udccp_conn *conn = f->c[side];
  if ((z & 7) == 0 || (z & 7) == 2 || (z & 7) == 3) {
    (void)next_byte(f, &b);
  }
  if ((z & 7) == 2 || (z & 7) == 3) {
    (void)next_byte(f, &m);
  }
  if ((z & 7) == 6) {
    f->zc_read[side] = c & 1; /* the application's habits: kept */
  } else if ((z & 7) == 7) {
    f->zc_write[side] = c & 1;
  }
  if (conn == NULL) {
    return;
  }
  switch (z & 7) {
  case 0:
    zc_reserve(f, side, 1 + (size_t)b * 5, c);
    break;
  case 1:
    zc_commit(f, side, c);
    break;
  case 2:
  case 3:
    zc_reserve(f, side, 1 + (size_t)b * 5, c);
    if ((z & 7) == 3 && f->resv[side].state == RESV_SURE) {
      switch ((m >> 2) & 3) {
      case 0:
        (void)queue_copy(f, side, 1 + (size_t)(m >> 4) * 7, c & 7,
                         UDCCP_TSTAMP_NEVER);
        break;
      case 1:
        zc_reserve(f, side, 1 + (size_t)(m >> 4) * 80, c ^ 5);
        break;
      case 2:
        f->resv[side].state = RESV_MAYBE;
        serve(f, side);
        break;
      default:
        f->resv[side].state = RESV_MAYBE;
        (void)udccp_conn_set_pmtu(conn, f->set[side].pmtu);
        break;
      }
      if (f->c[side] == NULL) {
        return; /* serving retired it */
      }
    }
    zc_commit(f, side, (m & 3) | (unsigned)(m >> 4) << 2);
    break;
  case 4: {
    udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
    if (zc_peek(f, side, (c & 2) ? &ri : NULL) >= 0 && (c & 1)) {
      CHECK_WHY(udccp_conn_consume_datagram(conn) == 0, side,
                "consume after a peek failed");
    }
    break;
  }
  case 5: {
    udccp_ssize want = udccp_conn_peek_datagram_len(conn);
    int rv = udccp_conn_consume_datagram(conn);
    CHECK_WHY((want >= 0) == (rv == 0), side,
              "consume disagrees with peek_datagram_len");
    break;
  }
  default:
    break; /* 6, 7: set above */
  }
  /* the application's next call may come after others (a packet, a
   * timer) that change the queue */
  if (f->resv[side].state == RESV_SURE) {
    f->resv[side].state = RESV_MAYBE;
  }
  serve(f, side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t codes[] = {42};
  if (size < 3) {
    return 0;
  }
  fz *f = calloc(1, sizeof(*f));
  CHECK(f != NULL);
  f->net = calloc(NET_MAX, sizeof(*f->net));
  CHECK(f->net != NULL);
  f->sent_len = calloc(2, sizeof(*f->sent_len));
  CHECK(f->sent_len != NULL);
  f->in = data + 3;
  f->n = size - 3;
  f->rnd = 0x1234567;
  f->reads[1] = 1;
  f->greedy_left = 3000;
  static const uint8_t ccids[4] = {2, 2, 3, 4};
  const uint8_t x = data[2];
  uint8_t ccid[2];
  ccid[0] = ccid[1] = ccids[data[0] & 3];
  switch (x & 3) {
  case 1:
    ccid[0] = ccid[1] = UDCCP_CCID_CUBIC_DEFAULT;
    break;
  case 2:
    ccid[0] = ccid[1] = UDCCP_CCID_BBR_DEFAULT;
    break;
  case 3:
    ccid[1] = (uint8_t)(ccid[0] == 4 ? 2 : ccid[0] + 1);
    break;
  default:
    break;
  }
  for (int s = 0; s < 2; s++) {
    udccp_settings *st = &f->set[s];
    udccp_settings_default(st);
    sim_inv_end_init(&f->inv[s]);
    st->mem = &f->inv[s].mem;
    st->rand = fz_rand;
    st->rand_user_data = &f->rnd;
    st->ccid = ccid[s];
    st->rx_ccid = ccid[1 - s];
    st->allow_short_seqnos = (data[0] >> 2) & 1;
    st->ecn_capable = (data[0] >> 3) & 1;
    st->send_cscov = (uint8_t)(data[0] >> 4);
    st->seq_window = 32ULL << ((data[1] & 15) % 12);
    st->ack_ratio = (uint16_t)(1 + ((data[1] >> 4) & 3));
    st->server_timewait = (data[1] >> 6) & 1;
    st->check_data_checksum = (data[1] >> 7) & 1;
    st->multipath = (x >> 2) & 1;
    st->ack_vectors = (x >> 3) & 1;
    st->send_ndp_count = (x >> 4) & 1;
    f->bottleneck = (x >> 4) & 1;
    if (x & 0x40) {
      st->keepalive_idle = 2 * UDCCP_NS_PER_S;
      st->keepalive_interval = 1 * UDCCP_NS_PER_S;
      st->keepalive_probes = 2;
      st->idle_timeout = 20 * UDCCP_NS_PER_S;
    }
    udccp_path *p = &f->path[s];
    p->family = UDCCP_AF_INET;
    p->local_addr[0] = 10;
    p->local_addr[3] = (uint8_t)(1 + s);
    p->remote_addr[0] = 10;
    p->remote_addr[3] = (uint8_t)(2 - s);
    if (x & 0x80) {
      p->family = UDCCP_AF_INET6;
      p->local_addr[0] = p->remote_addr[0] = 0xfd;
      p->local_addr[15] = (uint8_t)(1 + s);
      p->remote_addr[15] = (uint8_t)(2 - s);
      st->pmtu = 1280;
      st->hdr_overhead = 40;
      st->tx_qlen = 4;
      st->rx_qlen = 4;
      st->min_cscov = s ? 8 : 0;
    }
    p->local_port = s ? 5001 : 40000;
    p->remote_port = s ? 40000 : 5001;
  }
  f->check_data = f->set[0].send_cscov == 0;
  if ((data[0] & 3) == 0) {
    /* a small cache, so that blocks also go back to the base allocator */
    CHECK(udccp_mempool_new(&f->pool, f->set[1].mem, 16384) == 0);
    f->set[1].mem = udccp_mempool_mem(f->pool);
    f->set[0].qpolicy = UDCCP_QPOLICY_PRIO;
    f->set[1].qpolicy = UDCCP_QPOLICY_PRIO;
  }
  udccp_listener_settings ls;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = codes;
  ls.n_service_codes = 1;
  ls.cookie_lifetime = 8 * UDCCP_NS_PER_S;
  if ((data[0] & 3) == 1) {
    ls.init_cookie = UDCCP_INIT_COOKIE_ALWAYS;
  }
  CHECK(udccp_listener_new(&f->lis, &f->set[1], &ls, 0) == 0);
  f->lis_pmtu = f->set[1].pmtu;
  if (x & 0x20) {
    /* RFC 5596: a server in LISTEN for this client, sending Listen */
    CHECK(udccp_conn_listen_new(&f->c[1], &f->set[1], &f->path[1], 42, 0) ==
          0);
    f->srv_own = 1;
    serve(f, 1);
  }
  CHECK(udccp_conn_client_new(&f->c[0], &f->set[0], &f->path[0], 42, 0) == 0);
  serve(f, 0);
  uint8_t op;
  while (next_byte(f, &op)) {
    unsigned a = op >> 3;
    uint8_t b = 0;
    switch (op & 7) {
    case 0:
      (void)next_byte(f, &b);
      queue(f, 0, a + 1, 1 + (size_t)b * 5, 0, UDCCP_TSTAMP_NEVER);
      break;
    case 1: {
      int side = (a & 2) ? 0 : 1;
      f->reads[side] = !(a & 1);
      f->read_mode[side] = (uint8_t)(a & 12);
      f->greedy[side] = f->bottleneck && ((a >> 4) & 1);
      serve(f, side);
      break;
    }
    case 2:
      run_until(f, f->now + (udccp_tstamp)a * a * a * MS);
      break;
    case 3:
      run_until(f, f->now + (udccp_tstamp)a * 10 * UDCCP_NS_PER_S);
      break;
    case 4: {
      int side = (a % 4) >= 2;
      if (f->c[side] != NULL) {
        if ((a & 1) || udccp_conn_close(f->c[side], f->now) != 0) {
          (void)udccp_conn_abort(f->c[side], UDCCP_RESET_ABORTED, f->now);
        }
        serve(f, side);
      }
      break;
    }
    case 5:
      (void)next_byte(f, &b);
      queue(f, 1, a + 1, 1 + (size_t)b * 5, 0, UDCCP_TSTAMP_NEVER);
      break;
    case 6: {
      static const uint32_t pmtus[4] = {576, 1000, 1280, 1500};
      udccp_listener_stats ls_st;
      switch (a % 8) {
      case 0:
        udccp_listener_set_backlog(f->lis, a / 8);
        break;
      case 1:
        udccp_listener_get_stats(f->lis, &ls_st);
        CHECK(ls_st.half_open + ls_st.queued <= ls_st.conns);
        break;
      case 2:
        if (f->c[1] != NULL && !f->srv_own) {
          udccp_listener_conn_accepted(f->lis, f->c[1]);
        }
        break;
      case 3:
        if (f->c[1] != NULL && !f->srv_own) {
          udccp_listener_conn_update(f->lis, f->c[1]);
        }
        break;
      case 4:
        for (int s = 0; s < 2; s++) {
          if (f->c[s] != NULL &&
              udccp_conn_set_pmtu(f->c[s], pmtus[a / 8]) == 0) {
            f->set[s].pmtu = pmtus[a / 8];
          }
        }
        break;
      case 5:
        check_getters(f);
        break;
      case 6:
        (void)next_byte(f, &b);
        queue(f, 0, 1, 1 + (size_t)b * 5, 0,
              f->now + (udccp_tstamp)(a / 8) * 20 * MS);
        break;
      default:
        if (a / 8 >= 2) {
          zc_op(f, (a / 8) & 1);
        } else if (f->c[1] != NULL) {
          (void)udccp_conn_set_server_timewait(f->c[1], a / 8);
        }
        break;
      }
      if (f->pool != NULL) {
        udccp_mempool_trim(f->pool);
      }
      break;
    }
    case 7:
      (void)next_byte(f, &b);
      queue(f, 0, a + 1, 1 + (size_t)(b % 64) * 20, b, UDCCP_TSTAMP_NEVER);
      break;
    default:
      break;
    }
    run_until(f, f->now + 1 * MS);
  }
  /* the rest of the life, undisturbed: a few minutes */
  run_until(f, f->now + 300 * UDCCP_NS_PER_S);
  for (int s = 0; s < 2; s++) {
    if (f->c[s] != NULL) {
      retire(f, s);
    }
  }
  udccp_listener_del(f->lis);
  udccp_mempool_del(f->pool);
  CHECK(f->inv[0].mem_now == 0);
  CHECK(f->inv[1].mem_now == 0);
  free(f->sent_len);
  free(f->net);
  free(f);
  return 0;
}
