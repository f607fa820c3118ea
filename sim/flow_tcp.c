/* SPDX-License-Identifier: MIT */
/*
 * The reference TCP: a greedy Reno sender with SACK loss recovery and a
 * receiver that acks every segment, in whole 1460-byte segments: the
 * yardstick for udccp's fairness.
 *   - slow start and congestion avoidance (RFC 5681 §3.1), Appropriate
 *     Byte Counting with L = 2 (RFC 3465), initial window 3 segments;
 *   - loss detection by RACK (RFC 8985 §6, on by default in Linux): a
 *     segment is lost once a segment sent after it is delivered (ACKed or
 *     SACKed) and RACK.rtt + reo_wnd has passed since it was sent; reo_wnd
 *     is min_rtt / 4 (at most srtt) until reordering is seen, 0 in
 *     recovery or once DupThresh (3) segments are SACKed (§6.2 step 4), and
 *     a timer fires for what is not lost yet (§6.3).  Because RACK goes by
 *     send time, it also finds a lost retransmission, which RFC 6675's
 *     DupThresh rule cannot (the resent segment has no SACKs "above" it
 *     that came later): without it each lost retransmission cost an RTO.
 *     A retransmitted segment delivered sooner than min_rtt after its
 *     resend is ambiguous and does not move RACK (§6.2 step 2).  No
 *     Tail Loss Probe (§7), no DSACK (the simulator does not reorder);
 *   - SACK recovery (RFC 2018, RFC 6675) once a segment is marked lost:
 *     ssthresh = FlightSize / 2, then the pipe algorithm (pipe = segments
 *     sent and neither delivered nor marked lost, as Linux's
 *     tcp_packets_in_flight) with NextSeg rules 1 (the lowest segment
 *     marked lost, again if its resend was lost) and 2 (new data);
 *     `recover` keeps one reduction per window (RFC 6582 §3.2).  SACK
 *     rather than plain NewReno: NewReno repairs one hole per RTT, so
 *     after a slow-start overshoot (hundreds of holes) it stalls for
 *     seconds, which real (SACK) TCP does not, and fairness figures
 *     against it would measure that artefact;
 *   - RTO as Linux's (tcp_rtt_estimator, __tcp_set_rto): srtt + max(4
 *     rttvar, 200 ms), not RFC 6298's max(1 s, srtt + 4 rttvar) nor
 *     max(200 ms, srtt + 4 rttvar), which with a steady queue-full RTT
 *     fired a few ms after srtt, before the resend of a hole had been
 *     acknowledged; Karn's rule, exponential backoff, go-back-N and a
 *     cleared scoreboard after a timeout (RFC 2018 §8);
 *   - no delayed ACK (kind "tcp"; "tcp-delack" acks every second segment
 *     with a 40 ms timer, RFC 5681 §4.2), a three-way handshake: the
 *     client's SYN and the server's SYN-ACK (60 bytes each, as with the
 *     MSS, SACK-permitted, timestamp and window-scale options) cross the
 *     link, data starts when the SYN-ACK arrives (its ACK rides on the
 *     first segment), whose RTT is the first sample; a SYN unanswered
 *     after the RTO (1 s, RFC 6298 §2.1) is sent again with back-off,
 *     and then the RTO is 3 s when data starts (§5.7).  DCCP's handshake
 *     takes the same round trip before data (RFC 4340 §8.1), so neither
 *     side of a fairness run starts a round trip ahead.  No
 *     receive-window limit.  Each ack carries one SACK block: the run of
 *     out-of-order segments around the one that triggered it.
 * Kind "tcp-cubic" is the same TCP with CUBIC's window (RFC 9438): after
 * a loss ssthresh = cwnd x 0.7 (§4.6) with fast convergence (§4.7),
 * in congestion avoidance cwnd follows W_cubic(t + RTT) = C (t + RTT -
 * K)^3 + W_max, C = 0.4, at most x1.5 per RTT, with the Reno-friendly
 * estimate W_est as a floor (§4.3); slow start and recovery as above,
 * with Linux's HyStart (tcp_cubic.c, on by default: hystart_detect =
 * ACK train | delay; not RFC 9406's HyStart++, which Linux does not have):
 * in slow start with cwnd >= 16 segments, per round (until the segment
 * that was snd_nxt when it began is acked) slow start ends (ssthresh =
 * cwnd) when acks arriving within 2 ms of each other reach past
 * (delay_min + ack_delay) / 2 from the round's start (ack_delay = min(1
 * ms, 4 x 64 KiB at the pacing rate Linux computes, 2 cwnd / srtt; the
 * halving because it does not pace), or when the minimum of the round's
 * RTT samples, after 8, exceeds delay_min + clamp(delay_min / 8, 4 ms,
 * 16 ms); delay_min is the lowest sample since the last timeout, when
 * HyStart is also re-armed (bictcp_reset).
 * Written apart from lib/ccid_cubic.c on purpose: the yardstick does not
 * share the code it measures.
 * Kind "tcp-bbr" is the same TCP with a BBR-like window and pacing
 * (sim/tcp_bbr.c, draft-ietf-ccwg-bbr's state machine): SACK recovery
 * decides what to resend, BBR how much and how fast; no ssthresh.
 * Segments carry no payload bytes in memory; the pcap shows real TCP
 * headers (with checksums, without the SACK option) and zero payloads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_pcap.h"
#include "sim_rng.h"
#include "sim_tcp_bbr.h"

#define TCP_MSS 1460u
#define TCP_HDRS 40u /* IPv4 + TCP without options */
#define TCP_IW 3u    /* RFC 5681 §3.1 for 1095 < SMSS <= 2190 */
#define TCP_DUPTHRESH 3u /* RFC 8985 §6.2 step 4: SACKed segments */
#define TCP_SACK_SPAN 32u /* segments a SACK block reaches each side */
#define TCP_RTO_INIT (1 * UDCCP_NS_PER_S)
#define TCP_RTO_MIN (200 * UDCCP_NS_PER_MS)
#define TCP_RTO_MAX (60 * UDCCP_NS_PER_S)

#define TCP_DELACK (40 * UDCCP_NS_PER_MS) /* Linux's minimum ATO */
#define TCP_SYN_LEN 60u /* IPv4 + TCP + 20 bytes of SYN options */
#define TCP_RTO_SYN_DATA (3 * UDCCP_NS_PER_S) /* RFC 6298 §5.7 */
/* meta[0] of a SYN (forward) or SYN-ACK (reverse): no segment number or
 * SACK block is all ones */
#define TCP_META_SYN UINT64_MAX

enum {
  TCP_T_START = 0,
  TCP_T_RTO = 1,
  TCP_T_DELACK = 2,
  TCP_T_APP = 3,
  TCP_T_PACE = 4,
  TCP_T_RACK = 5
};

/* One transmission, in the order sent (RACK's time-ordered list). */
typedef struct tcp_tx {
  uint64_t seq;
  udccp_tstamp at;
} tcp_tx;

typedef struct tcp_flow {
  int started;     /* the SYN-ACK arrived: data may flow */
  int syn_sent;    /* handshake in progress */
  int syn_resent;  /* a SYN went twice: no RTT sample, §5.7 */
  udccp_tstamp syn_at, established_at;
  udccp_tstamp app_base; /* application-limited: it writes from here */
  /* sender: sequence numbers count segments */
  uint64_t snd_una, snd_nxt, snd_max, recover;
  uint64_t rexmit_next; /* NextSeg rule 1: no segment below is lost */
  uint64_t cwnd, ssthresh; /* bytes */
  uint64_t bytes_acked;    /* congestion avoidance byte counter */
  int in_recovery;
  int have_rtt;
  udccp_tstamp srtt, rttvar, rto, rto_at, min_rtt;
  /* rings over [snd_una, snd_max), indexed by seq & smask */
  udccp_tstamp *sent_at; /* the latest transmission */
  uint8_t *retx;   /* retransmitted: no RTT sample (Karn) */
  uint8_t *sacked;
  uint8_t *lost;   /* the latest transmission is lost: resend it */
  uint64_t smask;
  uint64_t n_lost; /* segments marked lost, not resent since */
  /* RACK (RFC 8985 §6.1): the most recently sent delivered segment */
  udccp_tstamp rack_xmit, rack_rtt, rack_at;
  uint64_t rack_seq1, rack_fack; /* its seq + 1; highest delivered + 1 */
  int rack_reordering;
  tcp_tx *txq; /* transmissions in send order, [txq_head, txq_tail) */
  uint64_t txq_head, txq_tail, txq_mask;
  uint64_t rack_lost; /* segments RACK marked lost (counter) */
  /* receiver */
  int delack;             /* 1: delayed ACKs (kind tcp-delack) */
  uint32_t unacked;       /* in-order segments not acked yet */
  udccp_tstamp delack_at; /* when the delayed ACK is due */
  uint64_t rcv_nxt;
  uint8_t *ooo; /* ring: segment received above rcv_nxt */
  uint64_t rmask;
  uint32_t isn_c, isn_s; /* byte ISNs for the pcap */
  uint64_t retransmits, timeouts, recoveries;
  /* CUBIC (kind tcp-cubic), in segments and seconds */
  int cubic;
  int cu_epoch;            /* a congestion-avoidance epoch is running */
  udccp_tstamp cu_start;
  double cu_wmax, cu_k, cu_west, cu_prior, cu_cwnd;
  /* Linux's HyStart (tcp-cubic): times in ns */
  int hs_found;
  uint64_t hs_end_seq;
  udccp_tstamp hs_round_start, hs_last_ack, hs_curr_rtt, hs_delay_min;
  uint32_t hs_sample_cnt;
  /* BBR-like (kind tcp-bbr) */
  int bbr;
  tcp_bbr bb;
  uint64_t n_sacked; /* SACKed segments above snd_una */
} tcp_flow;

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

/* RFC 9438 §4.6, §4.7 on a loss (recovery or timeout): W_max, and
 * ssthresh = cwnd x beta_cubic.  §4.6 writes flight_size; SACK recovery
 * sends past the window (snd_max - snd_una reached 3 x cwnd in a recovery
 * with a second loss), and 0.7 of that put cwnd far above the path and
 * into timeouts; cwnd is what Linux's CUBIC reduces too. */
static void cubic_loss(tcp_flow *t) {
  double w = (double)t->cwnd / TCP_MSS;
  t->cu_wmax = w < t->cu_wmax ? w * (1.0 + CUBIC_BETA) / 2.0 : w;
  t->cu_prior = w;
  t->cu_epoch = 0;
  t->ssthresh = (uint64_t)((double)t->cwnd * CUBIC_BETA);
  if (t->ssthresh < 2 * TCP_MSS) {
    t->ssthresh = 2 * TCP_MSS;
  }
  t->cu_west = (double)t->ssthresh / TCP_MSS;
}

/* RFC 9438 §4.2-§4.5: congestion avoidance, acked segments. */
static void cubic_ca(tcp_flow *t, uint64_t acked, udccp_tstamp now) {
  double w = (double)t->cwnd / TCP_MSS, tt, rtt, target, d;
  if (!t->cu_epoch) {
    t->cu_epoch = 1;
    t->cu_start = now;
    t->cu_cwnd = w;
    if (w < t->cu_wmax) {
      t->cu_k = cbrt((t->cu_wmax - w) / CUBIC_C);
    } else {
      t->cu_k = 0;
      t->cu_wmax = w;
    }
    if (t->cu_west < 1) {
      t->cu_west = w;
    }
  }
  if ((uint64_t)(t->cu_cwnd * TCP_MSS) != t->cwnd) {
    t->cu_cwnd = w; /* changed elsewhere */
  }
  tt = (double)(now - t->cu_start) / 1e9;
  rtt = (double)(t->have_rtt ? t->srtt : 100 * UDCCP_NS_PER_MS) / 1e9;
  t->cu_west += (t->cu_west >= t->cu_prior
                     ? 1.0
                     : 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)) *
                (double)acked / t->cu_cwnd;
  d = tt - t->cu_k;
  if (CUBIC_C * d * d * d + t->cu_wmax < t->cu_west) {
    if (t->cu_west > t->cu_cwnd) {
      t->cu_cwnd = t->cu_west;
    }
  } else {
    d = tt + rtt - t->cu_k;
    target = CUBIC_C * d * d * d + t->cu_wmax;
    if (target < t->cu_cwnd) {
      target = t->cu_cwnd;
    } else if (target > 1.5 * t->cu_cwnd) {
      target = 1.5 * t->cu_cwnd;
    }
    t->cu_cwnd += (double)acked * (target - t->cu_cwnd) / t->cu_cwnd;
  }
  t->cwnd = (uint64_t)(t->cu_cwnd * TCP_MSS);
}

/* Linux's HyStart (tcp_cubic.c: bictcp_hystart_reset, hystart_update,
 * with its defaults hystart_low_window 16, hystart_ack_delta_us 2000,
 * HYSTART_MIN_SAMPLES 8, HYSTART_DELAY_MIN/MAX 4/16 ms). */
#define HS_LOW_WINDOW 16u
#define HS_ACK_DELTA (2 * UDCCP_NS_PER_MS)
#define HS_MIN_SAMPLES 8u
#define HS_DELAY_MIN (4 * UDCCP_NS_PER_MS)
#define HS_DELAY_MAX (16 * UDCCP_NS_PER_MS)

static void hystart_reset(tcp_flow *t, udccp_tstamp now) {
  t->hs_round_start = t->hs_last_ack = now;
  t->hs_end_seq = t->snd_max;
  t->hs_curr_rtt = UDCCP_TSTAMP_NEVER;
  t->hs_sample_cnt = 0;
}

/* hystart_ack_delay: min(1 ms, GSO_MAX_SIZE x 4 / sk_pacing_rate), the
 * rate as tcp_update_pacing_rate sets it in slow start (200 % of cwnd /
 * srtt). */
static udccp_tstamp hystart_ack_delay(const tcp_flow *t) {
  double rate, d;
  if (!t->have_rtt || t->srtt == 0) {
    return 0;
  }
  rate = 2.0 * (double)t->cwnd / ((double)t->srtt / 1e9); /* bytes/s */
  d = 65536.0 * 4 / rate * 1e9;
  return d < (double)UDCCP_NS_PER_MS ? (udccp_tstamp)d : UDCCP_NS_PER_MS;
}

/* bictcp_acked's HyStart part, for an ack in slow start with RTT sample
 * rtt (segment a - 1 newly acked, not retransmitted) */
static void hystart_update(tcp_flow *t, uint64_t a, udccp_tstamp rtt,
                           udccp_tstamp now) {
  udccp_tstamp thresh;
  if (t->hs_delay_min == 0 || rtt < t->hs_delay_min) {
    t->hs_delay_min = rtt;
  }
  if (t->hs_found) {
    return;
  }
  if (a > t->hs_end_seq) { /* after(snd_una, end_seq) */
    hystart_reset(t, now);
  }
  if (t->cwnd < HS_LOW_WINDOW * TCP_MSS) {
    return;
  }
  /* ACK train: the round's acks came back to back for half a delay_min */
  if (now - t->hs_last_ack <= HS_ACK_DELTA) {
    t->hs_last_ack = now;
    thresh = (t->hs_delay_min + hystart_ack_delay(t)) / 2; /* not paced */
    if (now - t->hs_round_start > thresh) {
      t->hs_found = 1;
      t->ssthresh = t->cwnd;
      return;
    }
  }
  /* delay increase */
  if (rtt < t->hs_curr_rtt) {
    t->hs_curr_rtt = rtt;
  }
  if (t->hs_sample_cnt < HS_MIN_SAMPLES) {
    t->hs_sample_cnt++;
  } else {
    thresh = t->hs_delay_min / 8;
    thresh = thresh < HS_DELAY_MIN ? HS_DELAY_MIN
             : thresh > HS_DELAY_MAX ? HS_DELAY_MAX : thresh;
    if (t->hs_curr_rtt > t->hs_delay_min + thresh) {
      t->hs_found = 1;
      t->ssthresh = t->cwnd;
    }
  }
}

/* An ack's SACK block in pkt->meta[0]: start | length << 56, 0 = none. */
#define SACK_PACK(lo, hi) ((lo) | ((uint64_t)((hi) - (lo)) << 56))
#define SACK_LO(m) ((m) & ((1ULL << 56) - 1))
#define SACK_LEN(m) ((m) >> 56)

/* Segments in flight (RFC 6675's pipe, Linux's tcp_packets_in_flight):
 * sent (after a timeout: resent) and neither cumulatively acked, SACKed
 * nor marked lost since they were last sent. */
static uint64_t tcp_inflight(const tcp_flow *t) {
  uint64_t top = t->in_recovery || t->snd_nxt > t->snd_max ? t->snd_max
                                                            : t->snd_nxt;
  uint64_t n = top - t->snd_una, gone = t->n_sacked + t->n_lost;
  return n > gone ? n - gone : 0;
}

static int ring_grow_sender(tcp_flow *t) {
  uint64_t nsize = (t->smask + 1) * 2;
  udccp_tstamp *ns = malloc(nsize * sizeof(*ns));
  uint8_t *nr = malloc(nsize), *nk = malloc(nsize), *nl = malloc(nsize);
  if (ns == NULL || nr == NULL || nk == NULL || nl == NULL) {
    free(ns);
    free(nr);
    free(nk);
    free(nl);
    return -1;
  }
  for (uint64_t s = t->snd_una; s < t->snd_max; s++) {
    ns[s & (nsize - 1)] = t->sent_at[s & t->smask];
    nr[s & (nsize - 1)] = t->retx[s & t->smask];
    nk[s & (nsize - 1)] = t->sacked[s & t->smask];
    nl[s & (nsize - 1)] = t->lost[s & t->smask];
  }
  free(t->sent_at);
  free(t->retx);
  free(t->sacked);
  free(t->lost);
  t->sent_at = ns;
  t->retx = nr;
  t->sacked = nk;
  t->lost = nl;
  t->smask = nsize - 1;
  return 0;
}

static int txq_grow(tcp_flow *t) {
  uint64_t nsize = (t->txq_mask + 1) * 2;
  tcp_tx *n = malloc(nsize * sizeof(*n));
  if (n == NULL) {
    return -1;
  }
  for (uint64_t i = t->txq_head; i < t->txq_tail; i++) {
    n[i & (nsize - 1)] = t->txq[i & t->txq_mask];
  }
  free(t->txq);
  t->txq = n;
  t->txq_mask = nsize - 1;
  return 0;
}

static int ring_grow_receiver(tcp_flow *t) {
  uint64_t size = t->rmask + 1, nsize = size * 2;
  uint8_t *n = calloc(nsize, 1);
  if (n == NULL) {
    return -1;
  }
  for (uint64_t s = t->rcv_nxt; s < t->rcv_nxt + size; s++) {
    n[s & (nsize - 1)] = t->ooo[s & t->rmask];
  }
  free(t->ooo);
  t->ooo = n;
  t->rmask = nsize - 1;
  return 0;
}

static void tcp_send_seg(sim_flow *f, tcp_flow *t, uint64_t seq,
                         udccp_tstamp now) {
  if (seq >= t->snd_max && t->snd_max + 1 - t->snd_una > t->smask + 1 &&
      ring_grow_sender(t) != 0) {
    return;
  }
  if (t->txq_tail - t->txq_head > t->txq_mask && txq_grow(t) != 0) {
    return;
  }
  sim_pkt *p = sim_flow_pkt_new(f);
  if (p == NULL) {
    return;
  }
  p->dir = SIM_DIR_FWD;
  p->wire_len = TCP_MSS + TCP_HDRS;
  p->meta[0] = seq;
  t->sent_at[seq & t->smask] = now;
  t->txq[t->txq_tail & t->txq_mask] = (tcp_tx){seq, now};
  t->txq_tail++;
  if (seq < t->snd_max) {
    if (t->lost[seq & t->smask]) {
      t->lost[seq & t->smask] = 0;
      t->n_lost--;
    }
    t->retx[seq & t->smask] = 1;
    t->retransmits++;
  } else {
    t->retx[seq & t->smask] = 0;
    t->sacked[seq & t->smask] = 0;
    t->lost[seq & t->smask] = 0;
    t->snd_max = seq + 1;
  }
  if (t->bbr && tcp_bbr_sent(&t->bb, seq, t->snd_una,
                             tcp_inflight(t) + (seq >= t->snd_nxt), now) != 0) {
    snprintf(f->err, sizeof(f->err), "out of memory");
  }
  f->sent_pkts++;
  sim_flow_xmit(f, p, now);
}

static void tcp_arm_rto(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  if (t->snd_una == t->snd_max) {
    t->rto_at = UDCCP_TSTAMP_NEVER;
    return;
  }
  t->rto_at = now + t->rto;
  sim_flow_arm(f, TCP_T_RTO, t->rto_at);
}

/* Has the application written segment seg yet?  A greedy one always has;
 * an application-limited one writes f->app_rate_bps from its start (into
 * an unbounded socket buffer).  If not, wake up when it has. */
static int tcp_app_has(sim_flow *f, tcp_flow *t, uint64_t seg,
                       udccp_tstamp now) {
  if (f->app_rate_bps == 0) {
    return 1;
  }
  uint64_t need = (seg + 1) * TCP_MSS;
  if (sim_flow_app_bytes(f, t->app_base, now) >= need) {
    return 1;
  }
  sim_flow_arm(f, TCP_T_APP, sim_flow_app_time(f, t->app_base, need));
  return 0;
}

/* tcp-bbr: 1 if pacing holds the next segment (the timer is armed). */
static int tcp_paced(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  if (!t->bbr || t->bb.next_send <= now) {
    return 0;
  }
  sim_flow_arm(f, TCP_T_PACE, t->bb.next_send);
  return 1;
}

static void tcp_try_send(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  int sent = 0;
  if (t->in_recovery) {
    /* RFC 6675 §5 step (C): send while pipe < cwnd, pipe counted (O(1))
     * as tcp_inflight; the segments marked lost are resent first, lowest
     * first (NextSeg rule 1; rexmit_next moves back when RACK marks a
     * resent segment lost again). */
    uint64_t pipe = tcp_inflight(t);
    if (t->rexmit_next < t->snd_una) {
      t->rexmit_next = t->snd_una;
    }
    while (pipe * TCP_MSS < t->cwnd && !tcp_paced(f, t, now)) {
      if (t->n_lost > 0) { /* NextSeg (1) */
        while (!t->lost[t->rexmit_next & t->smask]) {
          t->rexmit_next++;
        }
        tcp_send_seg(f, t, t->rexmit_next++, now);
      } else if (!f->stopped &&
                 tcp_app_has(f, t, t->snd_max, now)) { /* rule 2: new data */
        tcp_send_seg(f, t, t->snd_max, now);
        t->snd_nxt = t->snd_max;
      } else {
        break;
      }
      pipe++;
      sent = 1;
    }
  } else {
    while (!f->stopped && (t->snd_nxt - t->snd_una) * TCP_MSS < t->cwnd &&
           (t->snd_nxt < t->snd_max || tcp_app_has(f, t, t->snd_nxt, now)) &&
           !tcp_paced(f, t, now)) {
      tcp_send_seg(f, t, t->snd_nxt, now);
      t->snd_nxt++;
      sent = 1;
    }
  }
  if (sent && t->rto_at == UDCCP_TSTAMP_NEVER) {
    tcp_arm_rto(f, t, now); /* RFC 6298 §5.1 */
  }
}

static void tcp_rtt_sample(tcp_flow *t, udccp_tstamp r) {
  /* RFC 6298 §2.2, §2.3 with alpha = 1/8, beta = 1/4; the RTO as Linux
   * sets it: srtt + max(4 rttvar, 200 ms) (rttvar floored at
   * tcp_rto_min), then backed off by the timeouts */
  if (r < t->min_rtt) {
    t->min_rtt = r;
  }
  if (!t->have_rtt) {
    t->srtt = r;
    t->rttvar = r / 2;
    t->have_rtt = 1;
  } else {
    udccp_tstamp diff = t->srtt > r ? t->srtt - r : r - t->srtt;
    t->rttvar = (3 * t->rttvar + diff) / 4;
    t->srtt = (7 * t->srtt + r) / 8;
  }
  t->rto = t->srtt + (4 * t->rttvar > TCP_RTO_MIN ? 4 * t->rttvar
                                                   : TCP_RTO_MIN);
  if (t->rto > TCP_RTO_MAX) {
    t->rto = TCP_RTO_MAX;
  }
}

/* RFC 8985 §6.2 steps 2 and 3: segment s newly delivered (ACKed or
 * SACKed).  RACK follows the most recently sent delivered segment. */
static void rack_delivered(tcp_flow *t, uint64_t s, udccp_tstamp now) {
  uint64_t m = s & t->smask;
  udccp_tstamp at = t->sent_at[m], rtt = now - at;
  if (t->retx[m] && rtt < t->min_rtt) {
    return; /* the original's delivery, or a resend's: ambiguous */
  }
  if (!t->retx[m] && s + 1 < t->rack_fack) {
    t->rack_reordering = 1;
  }
  if (s + 1 > t->rack_fack) {
    t->rack_fack = s + 1;
  }
  if (at > t->rack_xmit || (at == t->rack_xmit && s + 1 > t->rack_seq1)) {
    t->rack_xmit = at;
    t->rack_seq1 = s + 1;
    t->rack_rtt = rtt;
  }
}

/* §6.2 step 4: reo_wnd, 0 while no reordering was seen and either loss
 * recovery runs or DupThresh segments are SACKed. */
static udccp_tstamp rack_reo_wnd(const tcp_flow *t) {
  udccp_tstamp w;
  if (!t->rack_reordering &&
      (t->in_recovery || t->n_sacked >= TCP_DUPTHRESH)) {
    return 0;
  }
  w = t->min_rtt / 4;
  return w < t->srtt ? w : t->srtt;
}

/* §6.2 step 5, §6.3: every segment sent before RACK's and RACK.rtt +
 * reo_wnd ago is lost; the timer waits for the next one.  txq is in send
 * order, so the walk stops at the first segment that is not lost yet;
 * what it passes (delivered, marked lost, resent since) leaves it. */
static void rack_detect(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  udccp_tstamp reo = rack_reo_wnd(t);
  t->rack_at = UDCCP_TSTAMP_NEVER;
  for (; t->txq_head < t->txq_tail; t->txq_head++) {
    const tcp_tx *x = &t->txq[t->txq_head & t->txq_mask];
    uint64_t m = x->seq & t->smask;
    if (x->seq < t->snd_una || t->sacked[m] || t->lost[m] ||
        t->sent_at[m] != x->at) {
      continue;
    }
    if (x->at > t->rack_xmit ||
        (x->at == t->rack_xmit && x->seq + 1 >= t->rack_seq1)) {
      break; /* sent after RACK's segment */
    }
    if (x->at + t->rack_rtt + reo > now) {
      t->rack_at = x->at + t->rack_rtt + reo;
      sim_flow_arm(f, TCP_T_RACK, t->rack_at);
      break;
    }
    t->lost[m] = 1;
    t->n_lost++;
    t->rack_lost++;
    if (x->seq < t->rexmit_next) {
      t->rexmit_next = x->seq;
    }
    if (t->bbr) {
      tcp_bbr_lost(&t->bb, x->seq);
    }
  }
}

/* RACK marks losses outside the go-back-N after a timeout (which resends
 * everything below `recover` anyway); a marked loss starts SACK recovery
 * (RFC 6675 §5 step (4), once per window, RFC 6582 §3.2). */
static void tcp_detect_loss(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  if (!t->in_recovery && t->snd_una < t->recover) {
    return;
  }
  rack_detect(f, t, now);
  if (t->in_recovery || t->n_lost == 0 || t->snd_una >= t->snd_max) {
    return;
  }
  uint64_t flight = (t->snd_max - t->snd_una) * TCP_MSS;
  t->ssthresh = flight / 2 > 2 * TCP_MSS ? flight / 2 : 2 * TCP_MSS;
  if (t->cubic) {
    cubic_loss(t); /* RFC 9438 §4.6 */
  }
  if (!t->bbr) {
    t->cwnd = t->ssthresh;
  }
  t->bytes_acked = 0;
  t->recover = t->snd_max;
  t->in_recovery = 1;
  t->recoveries++;
}

static void tcp_on_ack(sim_flow *f, tcp_flow *t, uint64_t a, uint64_t sack,
                       udccp_tstamp now) {
  if (a > t->snd_max) {
    return;
  }
  if (SACK_LEN(sack) > 0) {
    uint64_t lo = SACK_LO(sack), hi = lo + SACK_LEN(sack);
    if (lo < a) {
      lo = a;
    }
    if (hi > t->snd_max) {
      hi = t->snd_max;
    }
    for (uint64_t s = lo; s < hi; s++) {
      if (!t->sacked[s & t->smask]) {
        t->sacked[s & t->smask] = 1;
        t->n_sacked++;
        if (t->lost[s & t->smask]) { /* marked lost, came after all */
          t->lost[s & t->smask] = 0;
          t->n_lost--;
        }
        rack_delivered(t, s, now);
        if (t->bbr) {
          tcp_bbr_delivered(&t->bb, s, t->retx[s & t->smask], now);
        }
      }
    }
  }
  if (a > t->snd_una) {
    uint64_t acked = a - t->snd_una;
    /* Karn's rule (RFC 6298 §3): no sample if anything this ack covers
     * was retransmitted, since a hole filled by a retransmission makes
     * the ack of older segments late. */
    int clean = 1;
    for (uint64_t s = t->snd_una; s < a && clean; s++) {
      clean = !t->retx[s & t->smask];
    }
    if (clean) {
      tcp_rtt_sample(t, now - t->sent_at[(a - 1) & t->smask]);
      if (t->cubic && !t->in_recovery && t->cwnd < t->ssthresh) {
        hystart_update(t, a, now - t->sent_at[(a - 1) & t->smask], now);
      }
    }
    for (uint64_t s = t->snd_una; s < a; s++) {
      if (t->sacked[s & t->smask]) {
        t->n_sacked--;
        continue;
      }
      if (t->lost[s & t->smask]) {
        t->lost[s & t->smask] = 0;
        t->n_lost--;
      }
      rack_delivered(t, s, now);
      if (t->bbr) {
        tcp_bbr_delivered(&t->bb, s, t->retx[s & t->smask], now);
      }
    }
    t->snd_una = a;
    if (t->snd_nxt < a) {
      t->snd_nxt = a;
    }
    if (t->in_recovery) {
      if (a >= t->recover) { /* RFC 6675 §5 (A): recovery over */
        t->in_recovery = 0;
        t->cwnd = t->bbr ? t->cwnd : t->ssthresh;
        t->snd_nxt = t->snd_max;
      }
    } else if (t->bbr) {
      /* the window is BBR's, set below */
    } else if (t->cwnd < t->ssthresh) {
      t->cwnd += (acked < 2 ? acked : 2) * TCP_MSS; /* RFC 3465 L=2 */
    } else if (t->cubic) {
      cubic_ca(t, acked, now);
    } else {
      /* RFC 5681 §3.1: byte counting, one SMSS per cwnd of bytes acked
       * (equation (3) would grow half as fast with delayed ACKs) */
      t->bytes_acked += acked * TCP_MSS;
      if (t->bytes_acked >= t->cwnd) {
        t->bytes_acked -= t->cwnd;
        t->cwnd += TCP_MSS;
      }
    }
    tcp_arm_rto(f, t, now); /* RFC 6298 §5.3 */
  }
  tcp_detect_loss(f, t, now);
  if (t->bbr) {
    tcp_bbr_ack(&t->bb, tcp_inflight(t), now);
    t->cwnd = tcp_bbr_cwnd(&t->bb) * TCP_MSS;
  }
  tcp_try_send(f, t, now);
}

static void tcp_on_timeout(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  /* RFC 5681 §3.1 (4), RFC 6298 §5.4-5.6; RFC 2018 §8: forget the SACK
   * scoreboard, the receiver may have reneged. */
  uint64_t flight = (t->snd_max - t->snd_una) * TCP_MSS;
  if (!t->cubic) {
    t->ssthresh = flight / 2 > 2 * TCP_MSS ? flight / 2 : 2 * TCP_MSS;
  } else if (t->cwnd > TCP_MSS) {
    cubic_loss(t); /* RFC 9438 §4.8; a repeated timeout keeps ssthresh */
  }
  if (t->cubic) { /* Linux: bictcp_state(TCP_CA_Loss) re-arms HyStart */
    t->hs_found = 0;
    t->hs_delay_min = 0;
    hystart_reset(t, now);
  }
  t->cwnd = TCP_MSS;
  if (t->bbr) {
    tcp_bbr_timeout(&t->bb);
  }
  t->bytes_acked = 0;
  t->in_recovery = 0;
  t->recover = t->snd_max;
  t->snd_nxt = t->snd_una;
  for (uint64_t s = t->snd_una; s < t->snd_max; s++) {
    t->sacked[s & t->smask] = 0;
    t->lost[s & t->smask] = 0;
  }
  t->n_sacked = 0;
  t->n_lost = 0;
  t->txq_head = t->txq_tail; /* go-back-N resends all of it */
  t->rack_at = UDCCP_TSTAMP_NEVER;
  t->timeouts++;
  t->rto = t->rto * 2 > TCP_RTO_MAX ? TCP_RTO_MAX : t->rto * 2;
  t->rto_at = UDCCP_TSTAMP_NEVER;
  tcp_try_send(f, t, now);
}

static void tcp_send_ack(sim_flow *f, tcp_flow *t, uint64_t sack,
                         udccp_tstamp now) {
  t->unacked = 0;
  t->delack_at = UDCCP_TSTAMP_NEVER;
  sim_pkt *ack = sim_flow_pkt_new(f);
  if (ack == NULL) {
    return;
  }
  ack->dir = SIM_DIR_REV;
  ack->wire_len = TCP_HDRS;
  ack->meta[0] = sack;
  ack->meta[1] = t->rcv_nxt;
  sim_flow_xmit(f, ack, now);
}

static void tcp_on_data(sim_flow *f, tcp_flow *t, uint64_t s, udccp_tstamp now) {
  uint64_t sack = 0;
  uint64_t before = t->rcv_nxt;
  if (s == t->rcv_nxt) {
    sim_flow_delivered(f, TCP_MSS);
    t->rcv_nxt++;
    while (t->ooo[t->rcv_nxt & t->rmask]) {
      t->ooo[t->rcv_nxt & t->rmask] = 0;
      sim_flow_delivered(f, TCP_MSS);
      t->rcv_nxt++;
    }
  } else if (s > t->rcv_nxt) {
    while (s - t->rcv_nxt > t->rmask) {
      if (ring_grow_receiver(t) != 0) {
        return;
      }
    }
    t->ooo[s & t->rmask] = 1;
    /* RFC 2018 §4: the first block holds the segment that triggered it */
    uint64_t lo = s, hi = s + 1;
    while (lo > t->rcv_nxt + 1 && s - lo < TCP_SACK_SPAN &&
           t->ooo[(lo - 1) & t->rmask]) {
      lo--;
    }
    while (hi - s < TCP_SACK_SPAN && hi - t->rcv_nxt <= t->rmask &&
           t->ooo[hi & t->rmask]) {
      hi++;
    }
    sack = SACK_PACK(lo, hi);
  }
  /* RFC 5681 §4.2: an ACK for at least every second full-sized segment,
   * none later than 500 ms (40 ms here), and at once for out-of-order
   * segments and for segments that fill a hole. */
  if (t->delack && s == before && t->rcv_nxt == before + 1) {
    if (++t->unacked < 2) {
      t->delack_at = now + TCP_DELACK;
      sim_flow_arm(f, TCP_T_DELACK, t->delack_at);
      return;
    }
  }
  tcp_send_ack(f, t, sack, now);
}

/* ------------------------------------------------------ handshake */

/* A SYN (forward) or SYN-ACK (reverse). */
static void tcp_send_ctl(sim_flow *f, int dir, udccp_tstamp now) {
  sim_pkt *p = sim_flow_pkt_new(f);
  if (p == NULL) {
    return;
  }
  p->dir = (uint8_t)dir;
  p->wire_len = TCP_SYN_LEN;
  p->meta[0] = TCP_META_SYN;
  p->meta[1] = 0;
  sim_flow_xmit(f, p, now);
}

static void tcp_send_syn(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  t->syn_at = now;
  tcp_send_ctl(f, SIM_DIR_FWD, now);
  t->rto_at = now + t->rto;
  sim_flow_arm(f, TCP_T_RTO, t->rto_at);
}

/* The SYN-ACK arrived: the RTT of the SYN is the first sample (Karn: not
 * if it was resent, and then RFC 6298 §5.7's 3 s), data may go. */
static void tcp_established(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  t->started = 1;
  t->established_at = now;
  hystart_reset(t, now); /* bictcp_init */
  t->rto_at = UDCCP_TSTAMP_NEVER;
  if (t->syn_resent) {
    t->rto = TCP_RTO_SYN_DATA;
  } else {
    tcp_rtt_sample(t, now - t->syn_at);
  }
  tcp_try_send(f, t, now);
}

/* ------------------------------------------------------ kind methods */

static int tcp_init(sim_flow *f) {
  tcp_flow *t = calloc(1, sizeof(*t));
  if (t == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  f->priv = t;
  t->smask = t->rmask = 1023;
  t->sent_at = malloc((t->smask + 1) * sizeof(*t->sent_at));
  t->retx = calloc(t->smask + 1, 1);
  t->sacked = calloc(t->smask + 1, 1);
  t->lost = calloc(t->smask + 1, 1);
  t->ooo = calloc(t->rmask + 1, 1);
  t->txq_mask = 1023;
  t->txq = malloc((t->txq_mask + 1) * sizeof(*t->txq));
  if (t->sent_at == NULL || t->retx == NULL || t->sacked == NULL ||
      t->lost == NULL || t->ooo == NULL || t->txq == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  t->cwnd = TCP_IW * TCP_MSS;
  t->ssthresh = UINT64_MAX / 2;
  t->rto = TCP_RTO_INIT;
  t->rto_at = t->rack_at = UDCCP_TSTAMP_NEVER;
  t->min_rtt = UDCCP_TSTAMP_NEVER;
  t->delack_at = UDCCP_TSTAMP_NEVER;
  sim_rng r;
  sim_rng_seed(&r, sim_flow_seed(f), 0);
  t->isn_c = (uint32_t)sim_rng_next(&r);
  t->isn_s = (uint32_t)sim_rng_next(&r);
  f->packet_size = TCP_MSS;
  sim_flow_arm(f, TCP_T_START, f->start_at);
  return 0;
}

static void tcp_recv(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  tcp_flow *t = f->priv;
  int dir = p->dir;
  uint64_t m0 = p->meta[0], m1 = p->meta[1];
  sim_flow_pkt_free(f, p);
  if (f->stopped) {
    return;
  }
  if (m0 == TCP_META_SYN) {
    if (dir == SIM_DIR_FWD) {
      tcp_send_ctl(f, SIM_DIR_REV, now); /* SYN-ACK, again for a resent SYN */
    } else if (!t->started) {
      tcp_established(f, t, now);
    }
    return;
  }
  if (dir == SIM_DIR_FWD) {
    tcp_on_data(f, t, m0, now);
  } else if (t->started) {
    tcp_on_ack(f, t, m1, m0, now);
  }
}

static void tcp_timer(sim_flow *f, unsigned which, udccp_tstamp now) {
  tcp_flow *t = f->priv;
  if (f->stopped) {
    return;
  }
  if (which == TCP_T_DELACK) {
    if (t->delack_at != UDCCP_TSTAMP_NEVER) {
      if (now >= t->delack_at) {
        tcp_send_ack(f, t, 0, now);
      } else {
        sim_flow_arm(f, TCP_T_DELACK, t->delack_at);
      }
    }
    return;
  }
  if (which == TCP_T_RACK) { /* RFC 8985 §6.3 */
    if (t->rack_at != UDCCP_TSTAMP_NEVER) {
      if (now >= t->rack_at) {
        tcp_detect_loss(f, t, now);
        tcp_try_send(f, t, now);
      } else {
        sim_flow_arm(f, TCP_T_RACK, t->rack_at);
      }
    }
    return;
  }
  if (which == TCP_T_APP || which == TCP_T_PACE) {
    if (t->started) {
      tcp_try_send(f, t, now);
    }
    return;
  }
  if (which == TCP_T_START) {
    if (!t->syn_sent) {
      t->syn_sent = 1;
      t->app_base = now; /* the application writes from connect() on */
      tcp_send_syn(f, t, now);
    }
    return;
  }
  if (t->rto_at == UDCCP_TSTAMP_NEVER) {
    return;
  }
  if (!t->started) { /* the SYN went unanswered: again, backed off */
    if (now >= t->rto_at) {
      t->syn_resent = 1;
      t->timeouts++;
      t->rto = t->rto * 2 > TCP_RTO_MAX ? TCP_RTO_MAX : t->rto * 2;
      tcp_send_syn(f, t, now);
    } else {
      sim_flow_arm(f, TCP_T_RTO, t->rto_at);
    }
    return;
  }
  if (now >= t->rto_at) {
    tcp_on_timeout(f, t, now);
  } else {
    sim_flow_arm(f, TCP_T_RTO, t->rto_at);
  }
}

static void tcp_stop(sim_flow *f, udccp_tstamp now) { (void)f, (void)now; }

static int tcp_done(const sim_flow *f) { return f->stopped; }

static void tcp_sample(const sim_flow *f, sim_flow_sample *s) {
  const tcp_flow *t = f->priv;
  s->srtt = t->have_rtt ? t->srtt : 0;
  s->cwnd = (uint32_t)(t->cwnd / TCP_MSS);
  s->ack_ratio = t->delack ? 2 : 1;
}

static void tcp_finish(sim_flow *f, sim_flow_result *r) {
  const tcp_flow *t = f->priv;
  r->established = t->started;
  r->established_s = (double)t->established_at / 1e9;
  r->closed_ok = 1;
  r->declared_lost = t->retransmits;
  snprintf(r->close_desc, sizeof(r->close_desc),
           "n/a (the model does not close); %llu retransmits, %llu "
           "recoveries, %llu timeouts, %llu RACK losses",
           (unsigned long long)t->retransmits,
           (unsigned long long)t->recoveries, (unsigned long long)t->timeouts,
           (unsigned long long)t->rack_lost);
}

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v & 0xFFFF);
}

static const uint8_t *tcp_pcap_l4(const sim_flow *f, const sim_pkt *p,
                                  uint8_t *buf, size_t cap, size_t *len,
                                  uint8_t *proto) {
  const tcp_flow *t = f->priv;
  int fwd = p->dir == SIM_DIR_FWD;
  int syn = p->meta[0] == TCP_META_SYN;
  size_t n = syn ? TCP_SYN_LEN - 20 : 20 + (fwd ? TCP_MSS : 0);
  if (cap < n) {
    return NULL;
  }
  memset(buf, 0, n);
  put16(buf, fwd ? f->cli_port : f->srv_port);
  put16(buf + 2, fwd ? f->srv_port : f->cli_port);
  if (syn) {
    /* MSS 1460, SACK permitted, timestamps (zero), NOP, window scale 7 */
    static const uint8_t synopt[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0,
                                       0, 0, 0, 0, 0, 0, 1, 3, 3, 7};
    put32(buf + 4, fwd ? t->isn_c : t->isn_s);
    put32(buf + 8, fwd ? 0 : t->isn_c + 1);
    buf[12] = (uint8_t)((n / 4) << 4);
    buf[13] = fwd ? 0x02 : 0x12; /* SYN, SYN|ACK */
    memcpy(buf + 20, synopt, sizeof(synopt));
  } else {
    /* +1: the SYN took one sequence number */
    put32(buf + 4, fwd ? t->isn_c + 1 + (uint32_t)(p->meta[0] * TCP_MSS)
                       : t->isn_s + 1);
    put32(buf + 8, fwd ? t->isn_s + 1
                       : t->isn_c + 1 + (uint32_t)(p->meta[1] * TCP_MSS));
    buf[12] = 5 << 4;
    buf[13] = fwd ? 0x18 : 0x10; /* PSH|ACK, ACK */
  }
  put16(buf + 14, 65535);
  uint8_t ph[12];
  memcpy(ph, fwd ? f->cli_addr : f->srv_addr, 4);
  memcpy(ph + 4, fwd ? f->srv_addr : f->cli_addr, 4);
  ph[8] = 0;
  ph[9] = 6;
  put16(ph + 10, (uint32_t)n);
  uint32_t sum = udccp_io_inet_sum(0, ph, sizeof(ph));
  put16(buf + 16, udccp_io_inet_fold(udccp_io_inet_sum(sum, buf, n)));
  *len = n;
  *proto = 6;
  return buf;
}

static void tcp_destroy(sim_flow *f) {
  tcp_flow *t = f->priv;
  if (t != NULL) {
    free(t->sent_at);
    free(t->retx);
    free(t->sacked);
    free(t->lost);
    free(t->txq);
    free(t->ooo);
    if (t->bbr) {
      tcp_bbr_free(&t->bb);
    }
    free(t);
  }
  f->priv = NULL;
}

static int tcp_init_delack(sim_flow *f) {
  if (tcp_init(f) != 0) {
    return -1;
  }
  ((tcp_flow *)f->priv)->delack = 1;
  return 0;
}

static int tcp_init_cubic(sim_flow *f) {
  if (tcp_init(f) != 0) {
    return -1;
  }
  ((tcp_flow *)f->priv)->cubic = 1;
  return 0;
}

static int tcp_init_bbr(sim_flow *f) {
  tcp_flow *t;
  if (tcp_init(f) != 0) {
    return -1;
  }
  t = f->priv;
  if (tcp_bbr_init(&t->bb, TCP_IW, sim_flow_seed(f)) != 0) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  t->bbr = 1;
  return 0;
}

const sim_flow_kind sim_kind_tcp_bbr = {
    "tcp-bbr", 0, 0,
    "the reference TCP with a BBR-like window and pacing, SACK recovery",
    tcp_init_bbr, tcp_recv, tcp_timer, tcp_stop, tcp_done, tcp_sample,
    tcp_finish, tcp_pcap_l4, tcp_destroy};

const sim_flow_kind sim_kind_tcp_cubic = {
    "tcp-cubic", 0, 0,
    "the reference TCP with CUBIC's window (RFC 9438), Linux's HyStart, SACK recovery",
    tcp_init_cubic, tcp_recv, tcp_timer, tcp_stop, tcp_done, tcp_sample,
    tcp_finish, tcp_pcap_l4, tcp_destroy};

const sim_flow_kind sim_kind_tcp_delack = {
    "tcp-delack", 0, 0,
    "the reference TCP with delayed ACKs (every 2nd segment, 40 ms)",
    tcp_init_delack, tcp_recv, tcp_timer, tcp_stop, tcp_done, tcp_sample,
    tcp_finish, tcp_pcap_l4, tcp_destroy};

const sim_flow_kind sim_kind_tcp = {
    "tcp", 0, 0, "reference TCP in the simulator (Reno, SACK recovery, MSS 1460)",
    tcp_init, tcp_recv, tcp_timer, tcp_stop, tcp_done, tcp_sample, tcp_finish,
    tcp_pcap_l4, tcp_destroy};
