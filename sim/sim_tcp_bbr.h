/* SPDX-License-Identifier: MIT */
/*
 * The BBR-like window and pacing of the simulator's reference TCP (kind
 * "tcp-bbr", sim/flow_tcp.c): a model of what BBR TCP senders deployed
 * today do (draft-ietf-ccwg-bbr's state machine, v3 gains), in segments.
 * Written apart from lib/ccid_bbr.c on purpose: the yardstick does not
 * share the code it measures, and smaller.  Its ProbeBW follows the
 * draft's pseudocode (UpdateProbeBWCyclePhase, AdaptLongTermModel).
 *
 * The TCP calls tcp_bbr_sent for every segment it transmits,
 * tcp_bbr_delivered for each segment an ack newly covers (cumulatively or
 * by SACK), tcp_bbr_lost for each one it retransmits as lost, tcp_bbr_ack
 * at the end of each ack, tcp_bbr_timeout on an RTO; it reads cwnd and
 * the pacing interval.
 */
#ifndef UDCCP_SIM_TCP_BBR_H
#define UDCCP_SIM_TCP_BBR_H

#include <stdint.h>

#include <udccp/udccp.h>

#include "sim_rng.h"

#define TCP_BBR_EXTRA_ROUNDS 10

/* tcp_bbr.state */
enum {
  TCP_BBR_STARTUP,
  TCP_BBR_DRAIN,
  TCP_BBR_DOWN,
  TCP_BBR_CRUISE,
  TCP_BBR_REFILL,
  TCP_BBR_UP,
  TCP_BBR_PROBE_RTT
};

typedef struct tcp_bbr_seg {
  uint64_t seq1;  /* seq + 1 of the segment in this slot, 0: none */
  int done;       /* delivered (a resend after a timeout is not news) */
  uint64_t delivered, lost, inflight;
  udccp_tstamp sent, delivered_time, first_sent;
  int app_limited; /* P.is_app_limited: sent in ProbeRTT's marked span */
} tcp_bbr_seg;

typedef struct tcp_bbr {
  tcp_bbr_seg *ring;
  uint64_t mask;
  sim_rng rng;
  /* connection */
  uint64_t delivered, lost;
  udccp_tstamp delivered_time, first_sent;
  double cwnd, pacing_rate; /* segments, segments/s */
  udccp_tstamp next_send;
  /* C.app_limited: delivered count ending the marked span, 0 = none
   * (MarkConnectionAppLimited in ProbeRTT; a bulk TCP is otherwise never
   * application-limited) */
  uint64_t app_limited;
  /* this ack's sample */
  int rs_valid, rs_app_limited;
  int loss_too_high; /* a loss on this ack was too high (HandleLostPacket) */
  uint64_t rs_prior_delivered, rs_lost, rs_inflight;
  udccp_tstamp rs_prior_time, rs_interval_send, rs_rtt;
  uint64_t newly_acked, newly_lost;
  double rs_rate, rs_delivered;
  /* model */
  int state;
  double pacing_gain, cwnd_gain;
  double bw_slot[2], max_bw, bw, bw_lo, bw_latest;
  double inflight_hi, inflight_lo, inflight_latest, bdp, prior_cwnd;
  udccp_tstamp min_rtt, min_rtt_at, probe_min, probe_min_at, probe_rtt_end;
  uint64_t round_end, rounds, loss_round_end;
  int round_start, loss_in_round, rtt_round_done;
  uint64_t round_lost0, round_delivered0;
  /* Startup's loss exit: discontiguous lost ranges since the loss round
   * began (a lost segment not next to the last lost one opens a range) */
  unsigned lost_ranges;
  uint64_t last_lost;
  int have_last_lost;
  double full_bw;
  unsigned full_cnt;
  int full_now, filled;
  int probe_sample, up_cnt;
  /* ProbeBW_UP's inflight_hi growth (bw_probe_up_rounds, _acked,
   * probe_up_acked_per_inc), the probe's ack phase, precautionary probing */
  unsigned up_rounds;
  double up_acked, up_per_inc, max_inflight;
  int ack_phase, prev_probe_too_high, prev_probe_precautionary;
  int cwnd_limited, cwnd_limited_prev; /* this round, the last one */
  udccp_tstamp cycle_at, wait;
  double up_max_bw; /* max_bw when this UP began */
  uint64_t drain_round;
  int in_rto;
  uint64_t rto_end;
  /* ACK aggregation: segments acked beyond bw x time since extra_start,
   * the max per round for the last TCP_BBR_EXTRA_ROUNDS rounds */
  double extra_delivered, extra_acked;
  double extra_round[TCP_BBR_EXTRA_ROUNDS];
  udccp_tstamp extra_start;
} tcp_bbr;

int tcp_bbr_init(tcp_bbr *b, uint32_t iw, uint64_t seed);
void tcp_bbr_free(tcp_bbr *b);
/* inflight: segments in flight with this one; una: oldest unacked. */
int tcp_bbr_sent(tcp_bbr *b, uint64_t seq, uint64_t una, uint64_t inflight,
                 udccp_tstamp now);
/* retx: the segment was resent (its RTT is ambiguous, Karn). */
void tcp_bbr_delivered(tcp_bbr *b, uint64_t seq, int retx, udccp_tstamp now);
void tcp_bbr_lost(tcp_bbr *b, uint64_t seq);
void tcp_bbr_ack(tcp_bbr *b, uint64_t inflight, udccp_tstamp now);
void tcp_bbr_timeout(tcp_bbr *b);
/* Segments the window allows; time between segments. */
uint64_t tcp_bbr_cwnd(const tcp_bbr *b);
udccp_tstamp tcp_bbr_interval(const tcp_bbr *b);

#endif /* UDCCP_SIM_TCP_BBR_H */
