/* SPDX-License-Identifier: MIT */
/*
 * CCID 2: TCP-like Congestion Control (RFC 4341).
 *
 * The sender half keeps cwnd, ssthresh and pipe in packets, learns from the
 * receiver's Ack Vectors which packets arrived, were ECN marked or are lost,
 * runs the RFC 6298 retransmission timer (DCCP never retransmits: the timer
 * only reopens the window) and steers the receiver's Ack Ratio.  The
 * receiver half decides when an acknowledgement is due.
 *
 * How the connection drives it (see lib/ccid.h for the general contract):
 *   - tx_on_sent() for EVERY packet sent on the connection, data or not:
 *     non-data packets count towards the three-dupack rule (RFC 4341 §5)
 *     and their acknowledgement gives RTT samples.
 *   - tx_on_pkt() for every sequence-valid packet from the peer.  Packets
 *     without an Acknowledgement Number are used only for the peer's
 *     sequence numbers (lost acknowledgements, RFC 4341 §6.1.1); if the
 *     connection withholds them, their sequence numbers look like lost
 *     acks and Ack Ratio grows more than it should.
 *   - env->want_ack_ratio: after any call, nonzero means "please negotiate
 *     Ack Ratio = this value" (Change L(Ack Ratio), RFC 4340 §11.3); it
 *     reads 0 once env->ack_ratio equals the wanted value.
 *   - tx_next_send() may name a time shortly ahead (pacing, RFC 4341 §5)
 *     or, in timeout back-off, the timer's expiry; queued data waits.
 *   - rx_write_opts() writes nothing; the receiver half uses the call to
 *     learn that an acknowledgement (DCCP-Ack or DCCP-DataAck) went out.
 */
#ifndef UDCCP_CCID2_H
#define UDCCP_CCID2_H

#include <stddef.h>
#include <stdint.h>

#include "ccid.h"

/* RFC 4341 §5: losses are inferred after NUMDUPACK later packets arrived. */
#define UDCCP_CCID2_NUMDUPACK 3

/* RFC 4341 §5 slow start, Appropriate Byte Counting (RFC 3465 §2.2): the
 * increase per acknowledgement is at most L x Ack Ratio / 2 packets; L = 2
 * means one packet per packet acked, TCP's doubling per RTT. */
#define UDCCP_CCID2_ABC_L 2u

/* RFC 4341 §5 lets DCCP go below TCP's one-second minimum RTO because
 * nothing is retransmitted; 200 ms (as Linux TCP) still stays clear of
 * the receiver's delayed-ack timer (UDCCP_CCID2_ACK_DELAY) and of timer
 * granularity, so a lone packet of an application-limited sender is acked
 * before its timer fires. */
#define UDCCP_CCID2_RTO_MIN (200 * UDCCP_NS_PER_MS)
/* RFC 6298 §2.4: an upper bound of at least 60 s is allowed. */
#define UDCCP_CCID2_RTO_MAX (64 * UDCCP_NS_PER_S)
/* RFC 6298 §2.1: RTO before the first RTT sample. */
#define UDCCP_CCID2_RTO_INIT (1 * UDCCP_NS_PER_S)
/* RFC 6298 §2 clock granularity G of the caller's timers. */
#define UDCCP_CCID2_CLOCK_G (1 * UDCCP_NS_PER_MS)
/* RFC 4340 §3.4: RTT to assume before one is measured. */
#define UDCCP_CCID2_DEFAULT_RTT (200 * UDCCP_NS_PER_MS)

/* Receiver: RFC 4340 §11.3 delays an acknowledgement by at most T (0.2 s by
 * default).  We use less so that a sender whose window holds fewer packets
 * than Ack Ratio hears back before a 200 ms minimum RTO. */
#define UDCCP_CCID2_ACK_DELAY (50 * UDCCP_NS_PER_MS)

/* Pacing: how much lateness of the caller's timer the sender may make up
 * in one burst. */
#define UDCCP_CCID2_PACE_QUANTUM (1 * UDCCP_NS_PER_MS)

/* Sequence-number history: initial and largest size (entries). */
#define UDCCP_CCID2_HIST_MIN 256u
/* Bytes of udccp_ccid_state the receiver half (ccid2_rx.c) uses. */
#define UDCCP_CCID2_RX_STATE_SIZE 64u
#define UDCCP_CCID2_HIST_MAX (1u << 20)
/* cwnd never grows past this (half the history, so losses stay visible). */
#define UDCCP_CCID2_CWND_MAX (UDCCP_CCID2_HIST_MAX / 2)

/* The CCID 2 operations table (registered in lib/ccid.c). */
extern const udccp_ccid_ops udccp_ccid2_ops;

/* Its dependencies (RFC 4341 §4), shared with the CCIDs on its feedback. */
#define UDCCP_CCID2_N_DEPS 2
extern const udccp_ccid_dep udccp_ccid2_deps[UDCCP_CCID2_N_DEPS];

/* --- window policies on CCID 2's sender (CUBIC: lib/ccid_cubic.c) ---
 *
 * CCID 2's sender does the feedback: Ack Vectors, losses (NUMDUPACK), ECN
 * marks and nonces, Data Dropped, Ack Ratio, RTT and timeout, RFC 2861,
 * pacing, slow start.  A policy replaces what RFC 4341 §5 does to the
 * window in congestion avoidance, on a congestion event (once per window)
 * and on a timeout.  It sees the window through udccp_ccid2_win (packets)
 * and keeps its own state in UDCCP_CCID2_CC_STATE_SIZE bytes. */
typedef struct udccp_ccid2_win {
  uint32_t cwnd, ssthresh;      /* read and write */
  uint32_t pipe;                /* read */
  udccp_tstamp srtt, min_rtt;   /* read; 0 before the first sample */
} udccp_ccid2_win;

#define UDCCP_CCID2_CC_STATE_SIZE 64

typedef struct udccp_ccid2_cc {
  const char *name;
  void (*init)(void *cs, udccp_ccid2_win *w, udccp_tstamp ts);
  /* a congestion event: sets cwnd and ssthresh (RFC 4341: halve) */
  void (*on_congestion)(void *cs, udccp_ccid2_win *w, udccp_tstamp ts);
  /* congestion avoidance: acked unmarked data packets newly acknowledged */
  void (*on_ca_ack)(void *cs, udccp_ccid2_win *w, uint32_t acked,
                    udccp_tstamp ts);
  /* timeout: sets ssthresh (repeated: during back-off); cwnd becomes 1 */
  void (*on_timeout)(void *cs, udccp_ccid2_win *w, int repeated,
                     udccp_tstamp ts);
  /* CCID 2 shrank cwnd (idle or application-limited, RFC 2861); may be
   * NULL */
  void (*on_restart)(void *cs, udccp_ccid2_win *w, udccp_tstamp ts);

  /* --- rate-based policies (BBR: lib/ccid_bbr.c); NULL / 0 for CUBIC ---
   * state_size: bytes of policy state; above UDCCP_CCID2_CC_STATE_SIZE
   * it lives after CCID 2's state, at UDCCP_CCID2_TX_STATE_SIZE of the
   * udccp_ccid_state (the CCID's tx_size must cover it). */
  size_t state_size;
  void (*exit)(void *cs);
  /* A data packet went out; app_limited: no more data waited behind it
   * and the window had room (the draft's C.app_limited test). */
  void (*on_sent)(void *cs, const udccp_ccid2_win *w, uint64_t seq,
                  int app_limited, udccp_tstamp ts);
  /* A data packet was newly acknowledged (marked: ECN state 1) or
   * declared lost; called while CCID 2 walks the feedback. */
  void (*on_acked)(void *cs, uint64_t seq, int marked, udccp_tstamp ts);
  void (*on_lost)(void *cs, uint64_t seq, udccp_tstamp ts);
  /* The end of an acknowledgement's processing.  With on_ack set the
   * policy owns cwnd: CCID 2 does no slow start and no growth, RFC 2861
   * leaves cwnd alone, and on_ca_ack is not called. */
  void (*on_ack)(void *cs, udccp_ccid2_win *w, udccp_tstamp ts);
  /* Time between data packets (pacing); NULL: CCID 2's gain x
   * cwnd/srtt.  0 sends without pacing. */
  udccp_tstamp (*pace_interval)(const void *cs, const udccp_ccid2_win *w);

  /* Slow start (cwnd < ssthresh), an ack that grows the window (CUBIC:
   * HyStart++, RFC 9406).  inc is what RFC 4341 §5 (ABC, RFC 3465) would
   * add; the policy returns what to add instead and may end slow start
   * (w->ssthresh = w->cwnd).  rtt: this ack's RTT sample (its
   * Acknowledgement Number's send time to now, less the Elapsed Time
   * option; 0: none); ackno: the Acknowledgement Number; gss: the newest
   * sequence number sent.  NULL: RFC 4341 §5 alone. */
  uint32_t (*on_ss_ack)(void *cs, udccp_ccid2_win *w, uint32_t inc,
                        udccp_tstamp rtt, uint64_t ackno, uint64_t gss,
                        udccp_tstamp ts);
  /* The policy's part of udccp_ccid2_trim (its own per-packet memory);
   * returns 1 while it holds some it may give back later.  May be NULL. */
  int (*trim)(void *cs);
} udccp_ccid2_cc;

/* Bytes of udccp_ccid_state CCID 2's sender half uses. */
#define UDCCP_CCID2_TX_STATE_SIZE 512u

/* The sender half with window policy cc (NULL: RFC 4341's own). */
int udccp_ccid2_tx_init_cc(udccp_ccid_state *st, udccp_ccid_env *env,
                           udccp_tstamp ts, const udccp_ccid2_cc *cc);
void udccp_ccid2_tx_exit(udccp_ccid_state *st);
/* The trim op (udccp_ccid_ops.trim) of CCID 2 and of the CCIDs on its
 * feedback: the sender's history goes back to nothing once no packet in
 * it is unresolved (issue 13: an idle connection shrinks back). */
int udccp_ccid2_trim(udccp_ccid_state *st, int tx, udccp_tstamp ts);
udccp_tstamp udccp_ccid2_tx_next_send(udccp_ccid_state *st, udccp_tstamp ts);
void udccp_ccid2_tx_on_sent(udccp_ccid_state *st, uint64_t seq, int is_data,
                            size_t len, udccp_tstamp ts);
int udccp_ccid2_tx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts);
udccp_tstamp udccp_ccid2_tx_get_expiry(const udccp_ccid_state *st);
void udccp_ccid2_tx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts);
void udccp_ccid2_tx_get_info(const udccp_ccid_state *st, udccp_conn_info *info);
/* cwnd alone: the tx_cwnd op of CCID 2 and of the policies built on its
 * sender (the connection's Sequence Window follows it on every ack,
 * conn_in.c tune_seqwin). */
uint32_t udccp_ccid2_tx_cwnd(const udccp_ccid_state *st);
/* Tests: on != 0 sends every ack through tx_on_pkt's general path
 * instead of its fast path for the usual in-order ack, so that a test
 * can compare the two (the same state after the same packets). */
void udccp_ccid2_tx_set_general(udccp_ccid_state *st, int on);

/* The receiver half (lib/ccid2_rx.c); the connection reaches these
 * through udccp_ccid2_ops, as lib/ccid.h describes. */
int udccp_ccid2_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                        udccp_tstamp ts);
void udccp_ccid2_rx_exit(udccp_ccid_state *st);
int udccp_ccid2_rx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts);
int udccp_ccid2_rx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                              uint8_t type, udccp_tstamp ts);
udccp_tstamp udccp_ccid2_rx_get_expiry(const udccp_ccid_state *st);
int udccp_ccid2_rx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts);
void udccp_ccid2_rx_get_info(const udccp_ccid_state *st, udccp_conn_info *info);

/* RFC 4341 §5 / RFC 3390: initial window in packets for payloads of mps
 * bytes, min(4, max(2, 4380 / mps)); mps 0 counts as 1460. */
uint32_t udccp_ccid2_initial_cwnd(size_t mps);

#endif /* UDCCP_CCID2_H */
