/* SPDX-License-Identifier: MIT */
/*
 * A window-clocked sender's path for tests of a congestion model alone
 * (tests/test_ccid_bbr.c, tests/test_sim_tcp.c): a FIFO bottleneck that
 * serves one packet per gap (1 ms by default: 1,000 packets/s), 50 ms of
 * propagation each way (a 100 ms base RTT), an optional standing queue of
 * other flows' packets, no loss.  Packets are numbered from 0 in order.
 */
#ifndef UDCCP_TEST_BNECK_H
#define UDCCP_TEST_BNECK_H

#include <stdint.h>

#include <udccp/udccp.h>

#define BNECK_RING 8192u

typedef struct bneck {
  uint64_t next, una;     /* next packet to send, oldest unacknowledged */
  udccp_tstamp now;       /* the time of the last acknowledgement */
  udccp_tstamp last_dep;  /* the last departure from the bottleneck */
  udccp_tstamp cross_queue; /* other flows' standing queue (delay) */
  udccp_tstamp gap;       /* the bottleneck's time per packet, 0: 1 ms */
  udccp_tstamp ack_at[BNECK_RING], arr_at[BNECK_RING];
} bneck;

/* Packets in flight. */
static inline uint64_t bneck_inflight(const bneck *b) {
  return b->next - b->una;
}

/* Whether a packet may be sent with cwnd: below it and within the ring. */
static inline int bneck_room(const bneck *b, uint64_t cwnd) {
  return bneck_inflight(b) < cwnd && bneck_inflight(b) < BNECK_RING;
}

/* The acknowledgement of the oldest packet in flight arrives: now moves
 * to it; returns that packet's number (the caller checks inflight > 0). */
uint64_t bneck_ack(bneck *b);

/* Sends packet next at now: works out when its acknowledgement comes back
 * and returns its number. */
uint64_t bneck_send(bneck *b);

/* The bottleneck serves one packet per gap from now on: the departures of
 * the packets not yet through it are worked out again. */
void bneck_set_gap(bneck *b, udccp_tstamp gap);

#endif
