/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for the TFRC CCIDs (3 and 4): drive a sender half and a
 * receiver half directly, without a connection, with packets built from
 * fields and feedback options that go through the real option writer and
 * parser; and a small virtual-time loop (fixed one-way delay, seeded
 * random loss on the data path) to check steady-state rates.
 */
#ifndef UDCCP_TESTS_TFRCLOOP_H
#define UDCCP_TESTS_TFRCLOOP_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "ccid.h"
#include "opt.h"

/* One CCID half with its environment. */
typedef struct tl_half {
  udccp_ccid_state st;
  udccp_ccid_env env;
  const udccp_ccid_ops *ops;
} tl_half;

/* An acknowledgement as it reaches the sender: options encoded into ob,
 * parsed into opts, described by pkt. */
typedef struct tl_ack {
  udccp_optbuf ob;
  udccp_opts opts;
  udccp_ccid_pkt pkt;
} tl_ack;

/* Sets up a sender half (srtt: handshake RTT put into env->srtt before
 * tx_init; 0 = none) or a receiver half.  Returns what init returned. */
int tl_tx_init(tl_half *h, uint8_t ccid, size_t mps, udccp_tstamp srtt,
               udccp_tstamp ts);
int tl_rx_init(tl_half *h, uint8_t ccid, size_t mps, udccp_tstamp ts);
void tl_tx_exit(tl_half *h);
void tl_rx_exit(tl_half *h);

/* The sender sends data packet seq of len bytes at ts: tx_ccval, then
 * tx_on_sent.  Returns the CCVal it carries. */
uint8_t tl_send_data(tl_half *tx, uint64_t seq, size_t len, udccp_tstamp ts);

/* The receiver gets a packet (type DATA when is_data, else ACK).  Returns
 * rx_on_pkt's result. */
int tl_rx_pkt(tl_half *rx, uint8_t type, uint64_t seq, uint8_t ccval,
              uint8_t ecn, size_t len, udccp_tstamp ts);

/* The receiver writes its options on a DCCP-Ack with Acknowledgement
 * Number ackno (and sequence number seq) at ts; they are parsed back into
 * a->opts and a->pkt.  Returns rx_write_opts's result, or the parser's
 * error. */
int tl_rx_ack(tl_half *rx, tl_ack *a, uint64_t seq, uint64_t ackno,
              udccp_tstamp ts);

/* Builds a feedback Ack by fields: Elapsed Time el_10us (omitted if
 * UINT32_MAX), Loss Intervals with skip and n intervals given newest first
 * as lossless / loss / data lengths (omitted if n == 0), Receive Rate rr
 * (omitted if UINT64_MAX), Loss Event Rate ler (omitted if 0).
 * Returns 0 or a negative code. */
typedef struct tl_iv {
  uint32_t lossless, loss, data;
} tl_iv;
int tl_fb_build(tl_ack *a, uint64_t seq, uint64_t ackno, uint32_t el_10us,
                uint8_t skip, const tl_iv *iv, size_t n, uint64_t rr,
                uint32_t ler);

/* Appends option type (value val, len bytes; mandatory if nonzero) to an
 * Ack built above and parses it again.  Returns 0 or a negative code. */
int tl_ack_add_opt(tl_ack *a, uint8_t type, int mandatory, const uint8_t *val,
                   size_t len);

/* A hostile receiver (RFC 5348 §4.3 / §8.3 spirit): an application-
 * limited sender offers per_rtt packets of s bytes evenly over each RTT
 * (sending each only if its CCID allows it then) for rounds RTTs; once per
 * RTT the receiver acknowledges the first packet of the previous round
 * reporting no loss and Receive Rate 0xFFFFFFFF, and, with el_lie, an
 * Elapsed Time that leaves a 10 us RTT sample.  cap_on sets the sender's
 * sent-rate cap.  Returns the largest X / max(2 X_sent, initial rate,
 * times 4 with el_lie)
 * after a feedback, X_sent being what was sent in the previous round (-1
 * on error); *x_last gets the final X. */
double tl_rr_lie_ratio(uint8_t ccid, size_t s, unsigned per_rtt,
                       udccp_tstamp rtt, unsigned rounds, int el_lie,
                       int cap_on, double *x_last);

/* ------------------------------------------------------- virtual time */

typedef struct tl_loop_cfg {
  uint8_t ccid;
  size_t s;                /* payload bytes per data packet */
  size_t mps;
  udccp_tstamp owd;        /* one-way delay, both directions */
  double loss;             /* data packets dropped with this probability */
  uint32_t seed;
  udccp_tstamp duration;
  udccp_tstamp measure_from; /* rates are measured over [this, duration) */
} tl_loop_cfg;

typedef struct tl_loop_res {
  uint64_t sent, delivered, dropped, feedbacks;
  uint64_t sent_measured;  /* data packets sent in the measurement window */
  double rate_Bps;         /* payload bytes/s sent in the window */
  double p_rx;             /* the receiver's loss event rate at the end */
  double p_tx;             /* the sender's p at the end */
  udccp_tstamp r_tx;       /* the sender's R at the end */
  udccp_tstamp rx_rtt;     /* the receiver's CCVal RTT estimate */
  udccp_tstamp min_gap;    /* smallest interval between two data packets */
  uint64_t nofb;           /* nofeedback timer expiries */
  uint64_t rx_events, rx_lost; /* the receiver's loss events and losses */
  uint64_t events_measured; /* loss events in the measurement window, so
                               that p = events_measured / sent_measured */
} tl_loop_res;

/* Runs a backlogged sender against a receiver.  Returns 0, or -1 on an
 * internal limit (queue overflow). */
int tl_loop_run(const tl_loop_cfg *cfg, tl_loop_res *res);

#endif /* UDCCP_TESTS_TFRCLOOP_H */
