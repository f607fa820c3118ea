/* SPDX-License-Identifier: MIT */
/*
 * udccp-ippbench: the sans-I/O cost of one delivered data packet.
 *
 * Two udccp connections joined in memory (tests/support/pair.c for the
 * handshake, then a delay line of our own that holds any window), 10 ms
 * each way, no loss.  The client's application sends 1200-byte datagrams
 * at W packets per RTT, so W packets are in flight and the receiver's Ack
 * Vector covers about W packets between acks of acks: the window the
 * per-packet cost must not grow with (issue 13).  Each end allocates from
 * its own udccp_mempool, as an io/ endpoint does.  After a warm-up, the
 * function measure() moves --packets datagrams end to end; run it under
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=measure
 *
 * and divide the instructions (Ir) by the packets it prints.  --floor runs
 * floor() instead: per packet, 3 copies of 1200 bytes and one Internet
 * checksum, the least any stack does; --cksum runs cksum_run(), the
 * checksum alone (bench/ipp.sh prints the table).
 *
 * With --zc the application uses the zero-copy calls instead of the
 * copying ones: it writes each datagram in place into the send queue
 * (udccp_conn_reserve_datagram/udccp_conn_commit_datagram; here it writes
 * a packet counter in the first 8 bytes and leaves the rest of the slot
 * as it was, the way an application that builds its datagram there
 * would pay for its own bytes only) and reads each in place in the
 * receive queue (udccp_conn_peek_datagram/udccp_conn_consume_datagram),
 * looking at its first byte.  The copying rows copy 1200 bytes in and
 * 1200 bytes out.
 *
 * --dump FILE writes every packet both ends send (warm-up included) to
 * FILE: side (0 client, 1 server), ECN codepoint, length (2 bytes,
 * big-endian), the packet; two builds that must put the same bytes on
 * the wire give identical files.
 *
 *   udccp-ippbench --ccid 2|3|cubic|bbr --window W [--zc] [--udp] [--dump FILE] [--packets N]
 *
 * --udp runs both ends as io/ runs DCCP-UDP: the DCCP checksum is sent as
 * zero and not checked (RFC 6773 §3.3; the UDP checksum, the kernel's, protects
 * the packet), so neither end computes the Internet checksum.
 *   udccp-ippbench --floor|--cksum [--packets N]
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

#include "cksum.h"
#include "pair.h"

#define MS UDCCP_NS_PER_MS
#define PAYLOAD 1200
#define ONE_WAY (10 * MS)

typedef struct slot {
  udccp_tstamp at;
  uint16_t len;
  uint8_t ecn;
  uint8_t data[UDCCP_PAIR_MTU];
} slot;

typedef struct line {
  slot *s;
  size_t cap, head, n;
} line;

typedef struct bench {
  udccp_conn *c[2];
  line q[2];
  udccp_tstamp now, next_app, interval;
  udccp_tstamp exp[2]; /* each end's expiry, as io/sched.c keeps it */
  FILE *dump;          /* --dump: every packet written, for wire checks */
  uint64_t delivered, app_refused, app_seen;
  int zc;              /* the zero-copy application calls */
} bench;

/* The next free slot of l: packets are written straight into it, so that
 * the harness adds no copy of its own to what callgrind counts. */
static slot *line_tail(line *l) {
  if (l->n == l->cap) {
    fprintf(stderr, "ippbench: delay line full\n");
    exit(1);
  }
  return &l->s[(l->head + l->n) % l->cap];
}

/* One turn of an io/ endpoint's loop (io/endpoint.c udccp_endpoint_process):
 * the packets due are read, the application queues what is due and reads
 * what arrived, the connections whose expiry has come run their timers;
 * then only the connections something happened to ("dirty", io/sched.c)
 * write their packets and are asked for their next expiry, which the
 * scheduler keeps until they are touched again.  Time then moves to the
 * next event. */
static void step(bench *b) {
  static const uint8_t app[PAYLOAD];
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_tstamp next;
  int side, dirty[2] = {0, 0};
  for (side = 0; side < 2; side++) {
    line *l = &b->q[side];
    while (l->n > 0 && l->s[l->head].at <= b->now) {
      slot *s = &l->s[l->head];
      l->head = (l->head + 1) % l->cap;
      l->n--;
      (void)udccp_conn_read_pkt(b->c[1 - side], s->data, s->len, s->ecn,
                                b->now);
      dirty[1 - side] = 1;
    }
  }
  while (b->next_app <= b->now) {
    if (b->zc) {
      uint8_t *d;
      if (udccp_conn_reserve_datagram(b->c[0], PAYLOAD, 0, UDCCP_TSTAMP_NEVER,
                                      &d, b->now) != 0) {
        b->app_refused++;
      } else {
        uint64_t ctr = b->delivered + b->app_refused;
        memcpy(d, &ctr, sizeof(ctr));
        (void)udccp_conn_commit_datagram(b->c[0], PAYLOAD, b->now);
      }
    } else if (udccp_conn_queue_datagram(b->c[0], app, sizeof(app), 0,
                                         b->now) != 0) {
      b->app_refused++;
    }
    dirty[0] = 1;
    b->next_app += b->interval;
  }
  if (dirty[1]) {
    if (b->zc) {
      const uint8_t *d;
      while (udccp_conn_peek_datagram(b->c[1], &d, NULL) > 0) {
        b->app_seen += d[0];
        (void)udccp_conn_consume_datagram(b->c[1]);
        b->delivered++;
      }
    } else {
      while (udccp_conn_read_datagram(b->c[1], buf, sizeof(buf)) > 0) {
        b->delivered++;
      }
    }
  }
  for (side = 0; side < 2; side++) {
    if (b->exp[side] <= b->now) {
      (void)udccp_conn_handle_expiry(b->c[side], b->now);
      dirty[side] = 1;
    }
  }
  for (side = 0; side < 2; side++) {
    if (!dirty[side]) {
      continue;
    }
    for (;;) {
      slot *s = line_tail(&b->q[side]);
      udccp_ssize n = udccp_conn_write_pkt(b->c[side], s->data,
                                           sizeof(s->data), &s->ecn, b->now);
      if (n <= 0) {
        break;
      }
      s->at = b->now + ONE_WAY;
      s->len = (uint16_t)n;
      b->q[side].n++;
      if (b->dump != NULL) {
        /* side, ECN, length (2 bytes, big-endian), the packet */
        uint8_t h[4] = {(uint8_t)side, s->ecn, (uint8_t)(n >> 8), (uint8_t)n};
        fwrite(h, 1, 4, b->dump);
        fwrite(s->data, 1, (size_t)n, b->dump);
      }
    }
    b->exp[side] = udccp_conn_get_expiry(b->c[side]);
  }
  next = b->next_app;
  for (side = 0; side < 2; side++) {
    if (b->q[side].n > 0 && b->q[side].s[b->q[side].head].at < next) {
      next = b->q[side].s[b->q[side].head].at;
    }
    if (b->exp[side] < next) {
      next = b->exp[side];
    }
  }
  if (next > b->now) {
    b->now = next;
  }
}

static void run_for(bench *b, uint64_t packets) {
  uint64_t end = b->delivered + packets;
  while (b->delivered < end) {
    step(b);
  }
}

/* Separate functions, so that callgrind counts only measure(). */
__attribute__((noinline)) void warm_up(bench *b, uint64_t packets);
__attribute__((noinline)) void warm_up(bench *b, uint64_t packets) {
  run_for(b, packets);
}
__attribute__((noinline)) void measure(bench *b, uint64_t packets);
__attribute__((noinline)) void measure(bench *b, uint64_t packets) {
  run_for(b, packets);
}

__attribute__((noinline)) uint32_t floor_run(uint64_t packets);
__attribute__((noinline)) uint32_t floor_run(uint64_t packets) {
  static uint8_t app[PAYLOAD], txq[PAYLOAD], wire[PAYLOAD + 16], rxq[PAYLOAD];
  static const uint8_t a4[4] = {127, 0, 0, 1};
  uint32_t acc = 0;
  uint64_t i;
  for (i = 0; i < packets; i++) {
    app[i % PAYLOAD] = (uint8_t)i;
    memcpy(txq, app, PAYLOAD);     /* application -> send queue */
    memcpy(wire + 16, txq, PAYLOAD); /* send queue -> packet */
    acc += udccp_cksum_compute(wire, sizeof(wire), 4, a4, a4);
    memcpy(rxq, wire + 16, PAYLOAD); /* packet -> receive queue */
    acc += rxq[i % PAYLOAD];
  }
  return acc;
}

/* The checksum alone: one Internet checksum of a 1216-byte packet (DCCP
 * header and 1200 bytes) per packet, as the sender computes it; a data
 * packet pays it twice (sender and receiver). */
__attribute__((noinline)) uint32_t cksum_run(uint64_t packets);
__attribute__((noinline)) uint32_t cksum_run(uint64_t packets) {
  static uint8_t wire[PAYLOAD + 16];
  static const uint8_t a4[4] = {127, 0, 0, 1};
  uint32_t acc = 0;
  uint64_t i;
  for (i = 0; i < packets; i++) {
    wire[16 + i % PAYLOAD] = (uint8_t)i;
    acc += udccp_cksum_compute(wire, sizeof(wire), 4, a4, a4);
  }
  return acc;
}

int main(int argc, char **argv) {
  static const struct option lo[] = {{"ccid", required_argument, NULL, 'c'},
                                     {"window", required_argument, NULL, 'w'},
                                     {"packets", required_argument, NULL, 'n'},
                                     {"floor", no_argument, NULL, 'f'},
                                     {"cksum", no_argument, NULL, 'k'},
                                     {"dump", required_argument, NULL, 'd'},
                                     {"zc", no_argument, NULL, 'z'},
                                     {"udp", no_argument, NULL, 'u'},
                                     {NULL, 0, NULL, 0}};
  const char *dump = NULL;
  int ccid = 2, do_floor = 0, zc = 0, udp = 0, o;
  unsigned long w = 50, packets = 20000;
  udccp_pair p;
  udccp_settings cs, ss;
  udccp_conn_info ci;
  udccp_mempool *pool[2];
  bench b;
  while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (o) {
    case 'c': ccid = udccp_ccid_parse(optarg); break;
    case 'w': w = strtoul(optarg, NULL, 10); break;
    case 'n': packets = strtoul(optarg, NULL, 10); break;
    case 'f': do_floor = 1; break;
    case 'k': do_floor = 2; break;
    case 'd': dump = optarg; break;
    case 'z': zc = 1; break;
    case 'u': udp = 1; break;
    default:
      fprintf(stderr, "usage: udccp-ippbench --ccid 2|3|cubic|bbr --window W "
                      "[--zc] [--udp] [--dump FILE] [--packets N] | --floor|--cksum [--packets N]\n");
      return 2;
    }
  }
  if (do_floor) {
    uint32_t acc = do_floor == 1 ? floor_run(packets) : cksum_run(packets);
    printf("%s packets %lu (%u)\n", do_floor == 1 ? "floor" : "cksum",
           packets, (unsigned)(acc & 1));
    return 0;
  }
  if (w < 1 || ccid < 2) {
    fprintf(stderr, "ippbench: --ccid 2, 3, 4, cubic or bbr, --window >= 1\n");
    return 2;
  }
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.ccid = ss.ccid = (uint8_t)ccid;
  if (udp) {
    /* DCCP-UDP, as io/ runs it: the UDP checksum protects the packet and
     * the DCCP checksum is sent as zero and not checked (RFC 6773 §3.3). */
    cs.cksum_mode = ss.cksum_mode = UDCCP_CKSUM_NONE;
  }
  /* Each end allocates from an endpoint pool, as io/endpoint.c sets up:
   * buffers a connection gives back when its queues drain come back from
   * the pool's free lists, not from the C heap. */
  if (udccp_mempool_new(&pool[0], NULL, 0) != 0 ||
      udccp_mempool_new(&pool[1], NULL, 0) != 0) {
    return 1;
  }
  cs.mem = udccp_mempool_mem(pool[0]);
  ss.mem = udccp_mempool_mem(pool[1]);
  /* Room for the window in the queues and in the Sequence Window. */
  cs.tx_qlen = ss.tx_qlen = (uint32_t)(w < 64 ? 64 : w);
  cs.rx_qlen = ss.rx_qlen = 256;
  cs.seq_window = ss.seq_window = 8 * (uint64_t)w < 1000 ? 1000 : 8 * w;
  if (udccp_pair_init(&p, &cs, &ss, NULL, 1) != 0 ||
      !udccp_pair_run_until(&p, udccp_pair_both_open, NULL,
                            5 * UDCCP_NS_PER_S)) {
    fprintf(stderr, "ippbench: handshake failed\n");
    return 1;
  }
  memset(&b, 0, sizeof(b));
  b.c[0] = p.c[0];
  b.c[1] = p.c[1];
  b.zc = zc;
  b.now = p.now;
  b.interval = 2 * ONE_WAY / w;
  b.next_app = b.now;
  for (o = 0; o < 2; o++) {
    b.q[o].cap = 4 * w + 1024;
    b.q[o].s = calloc(b.q[o].cap, sizeof(slot));
    if (!b.q[o].s) {
      return 1;
    }
  }
  if (dump != NULL && (b.dump = fopen(dump, "wb")) == NULL) {
    perror(dump);
    return 1;
  }
  /* Warm-up: slow start, then a few RTTs at the full window. */
  warm_up(&b, 20 * w + 2000);
  b.app_refused = 0;
  measure(&b, packets);
  udccp_conn_get_info(b.c[0], &ci);
  printf("ccid %d window %lu %s packets %lu cwnd %llu srtt_ms %.1f "
         "app_refused %llu (%u)\n",
         ccid, w, zc ? "zero-copy" : "copying", packets,
         (unsigned long long)ci.cwnd, (double)ci.srtt / 1e6,
         (unsigned long long)b.app_refused, (unsigned)(b.app_seen & 1));
  if (b.dump != NULL) {
    fclose(b.dump);
  }
  free(b.q[0].s);
  free(b.q[1].s);
  udccp_pair_free(&p);
  udccp_mempool_del(pool[0]);
  udccp_mempool_del(pool[1]);
  return 0;
}
