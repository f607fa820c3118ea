/* SPDX-License-Identifier: MIT */
/*
 * CCID 3: TCP-Friendly Rate Control (RFC 4342, with RFC 5348 as its TFRC),
 * and the code CCID 4 (RFC 5622, TFRC-SP of RFC 4828) shares with it:
 * ccid3.c holds the sender half and the ops table, ccid3_rx.c the receiver
 * half.
 *
 * The TFRC mechanics live in tfrc_eq / tfrc_lh / tfrc_tx; this module maps
 * them onto DCCP: the CCVal window counter, the feedback options (Loss
 * Event Rate 192, Loss Intervals 193, Receive Rate 194, Dropped Packets
 * 195 for CCID 4), Elapsed Time, when feedback is due, and the feature
 * dependencies.  One implementation serves both CCIDs; a small parameter
 * struct (udccp_tfrc_ccid_params) selects the TFRC-SP behaviour.
 *
 * How the connection drives it (see lib/ccid.h for the general contract):
 *   - tx_on_sent() for every packet sent (data or not): the sender keeps
 *     the send time and CCVal of each sequence number to take RTT samples
 *     from the receiver's Acknowledgement Number and Elapsed Time.
 *   - tx_ccval() right before each data packet is built.
 *   - tx_on_pkt() for every valid packet from the peer; Acks and DataAcks
 *     with Receive Rate plus Loss Intervals or Loss Event Rate are
 *     feedback (RFC 4342 §6; Loss Event Rate alone is accepted because
 *     Linux never sends Loss Intervals).
 *   - rx_on_pkt() for every valid packet from the peer; 1 means "send an
 *     Ack now".  rx_write_opts() on every Ack / DataAck writes Elapsed
 *     Time, Loss Event Rate, Loss Intervals, Receive Rate (and Dropped
 *     Packets for CCID 4) and counts as "feedback sent".  The Loss
 *     Intervals option is encoded against the greatest sequence number
 *     rx_on_pkt() saw, which is the connection's GSR, i.e. the
 *     Acknowledgement Number of the Ack.
 *   - env->srtt, if set before tx_init() (e.g. the handshake RTT), is
 *     taken as the first RTT (RFC 5348 §4.2); afterwards the sender half
 *     writes its RTT estimate R there, and env->rto gets the nofeedback
 *     interval.
 *   - env->tx_more says whether more data waits behind the data packet
 *     tx_on_sent() reports: with it, RFC 5348 §8.2.1 "sent all it is
 *     allowed to send" is exact.  Left UDCCP_CCID_MORE_UNKNOWN, the sender
 *     infers it from timing: a data packet sent within one t_ipi of its
 *     allowed time or of the previous packet is rate-limited.
 *   - env->ecn and env->tx_nonce (the nonce of the packet tx_on_sent
 *     reports): the sender keeps NonceSums and checks the Nonce Echoes of
 *     Loss Intervals (RFC 4342 §9.1) and Ack Vectors (RFC 4340 §12.2);
 *     udccp_conn_info counts nonce_checks / nonce_mismatches.
 *   - env->send_rtt_est: the negotiated Send RTT Estimate (RFC 6323,
 *     feature 128, one of the CCID's dependencies) of the half; the
 *     connection sets it from the feature (env for the sending half,
 *     env_rx for the receiving one).  tx_write_opts() then puts the RTT
 *     Estimate option on Data, DataAck, Sync and SyncAck, and the receiver
 *     half works with the sender's RTT.
 *   - tx_get_expiry() returns UDCCP_TSTAMP_NEVER while an idle sender sits
 *     at its RFC 4342 §5.1 floor (the nofeedback timer would change
 *     nothing); the next data packet or feedback restarts it.
 */
#ifndef UDCCP_CCID3_H
#define UDCCP_CCID3_H

#include <stddef.h>
#include <stdint.h>

#include "ccid.h"
#include "tfrc_lh.h"
#include "tfrc_tx.h"

/* RFC 4340 §3.4: the RTT assumed for the window counter before a sample. */
#define UDCCP_CCID3_DEFAULT_RTT (200 * UDCCP_NS_PER_MS)
/* An RTT sample that reads 0 -- the round trip is shorter than the
 * resolution of the caller's clock (a millisecond event-loop clock on a
 * LAN or loopback) -- counts as this, Linux's DCCP_SANE_RTT_MIN (ns). */
#define UDCCP_CCID3_RTT_ZERO_SAMPLE (100 * 1000)
/* Sent-packet history (send time, CCVal, nonces) for RTT samples, Ack
 * Vector and Loss Intervals echoes.  It starts at HIST_INIT entries (an
 * idle connection stays that small, issue 13) and doubles before a send
 * would overwrite an entry, up to HIST_MIN: until then it keeps every
 * packet sent, and from then on what a ring of HIST_MIN keeps.  Beyond
 * HIST_MIN it doubles when an acknowledged packet was already overwritten
 * (growing rarely, never per packet), up to HIST_MAX. */
#define UDCCP_CCID3_HIST_INIT 4u
/* A history grown past HIST_INIT goes back to its HIST_INIT newest entries
 * once the sender has sent nothing for this long and four RTTs (the trim
 * op, udccp_tfrc_ccid_trim): feedback on older packets has come by then. */
#define UDCCP_CCID3_HIST_IDLE UDCCP_NS_PER_S
#define UDCCP_CCID3_HIST_MIN 1024u
#define UDCCP_CCID3_HIST_MAX (1u << 20)
/* Bytes of the connection's udccp_ccid_state each TFRC half (CCID 3 and
 * 4) uses: tx_size / rx_size, so that a connection holds its halves' own
 * size, not UDCCP_CCID_STATE_SIZE each (issue 13); ccid3.c and ccid3_rx.c
 * check their structs against them. */
#define UDCCP_TFRC_CCID_TX_STATE_SIZE 1032u
#define UDCCP_TFRC_CCID_RX_STATE_SIZE 1736u
/* Receiver: snapshots of the received byte count for X_recv over the last
 * RTT (RFC 5348 §6.2 step 2), one at most every R/8. */
#define UDCCP_CCID3_RATE_SNAPS 16u
/* Receiver: the feedback timer, in RTTs (a backup for the counter rule). */
#define UDCCP_CCID3_FB_TIMER_RTTS 2u
/* Receiver, initial slow start (ccid3_rx.c ss_round): the rate of the
 * sender's latest round is measured over at least R/SPAN_DIV, the feedback
 * waits for it at most R/WAIT_DIV, and only while at least MIN_PKTS
 * packets arrive per R. */
#define UDCCP_CCID3_SS_SPAN_DIV 16u
#define UDCCP_CCID3_SS_WAIT_DIV 4u
#define UDCCP_CCID3_SS_MIN_PKTS 4u
/* Sender: weight of a new packet in the mean segment size (CCID 4's
 * s_true, RFC 4828 §3), as a shift: 1/16. */
#define UDCCP_CCID3_S_EWMA_SHIFT 4

/* CCID-specific option numbers (RFC 4342 §8, RFC 5622 §8). */
#define UDCCP_CCID3_OPT_LOSS_EVENT_RATE UDCCP_TFRC_OPT_LOSS_EVENT_RATE
#define UDCCP_CCID3_OPT_LOSS_INTERVALS UDCCP_TFRC_OPT_LOSS_INTERVALS
#define UDCCP_CCID3_OPT_RECEIVE_RATE UDCCP_TFRC_OPT_RECEIVE_RATE
#define UDCCP_CCID4_OPT_DROPPED_PACKETS UDCCP_TFRC_OPT_DROPPED_PACKETS
/* RFC 6323 §3.2.1: RTT Estimate, sender to receiver (1 us units) */
#define UDCCP_CCID3_OPT_RTT_ESTIMATE 128
#define UDCCP_CCID3_RTT_EST_MAX 0xFFFFFEu   /* larger: 0xFFFFFF */
#define UDCCP_CCID3_RTT_EST_INIT (500 * UDCCP_NS_PER_MS) /* §3.4 */

/* What distinguishes CCID 4 from CCID 3. */
typedef struct udccp_tfrc_ccid_params {
  uint8_t id; /* 3 or 4 */
  uint8_t sp; /* 1: TFRC-SP (RFC 4828): nominal 1460-byte segments, header
                 overhead, 10 ms minimum interval, short loss intervals
                 counted by their drops, Dropped Packets option */
} udccp_tfrc_ccid_params;

extern const udccp_tfrc_ccid_params udccp_ccid3_params;

/* The CCID 3 operations table (registered in lib/ccid.c). */
extern const udccp_ccid_ops udccp_ccid3_ops;

/* RFC 4342 §5/§8, RFC 5622 §4: the features CCID 3 and CCID 4 depend on
 * (Send Loss Event Rate = 1, Send NDP Count = 1 at the HC-Sender, Send Ack
 * Vector = 0); all non-mandatory, as Linux accepts and sends them.  And
 * RFC 6323 §3.2.2 Send RTT Estimate = 1 at the HC-Sender, non-mandatory:
 * a peer that does not know it (Linux) answers with an empty Confirm and
 * it stays 0. */
#define UDCCP_TFRC_CCID_N_DEPS 4
extern const udccp_ccid_dep udccp_tfrc_ccid_deps[UDCCP_TFRC_CCID_N_DEPS];

/* RFC 4342 §8.1 window counter step: the counter after `last` when
 * `elapsed` ns have passed since last_WC_time at round-trip time rtt:
 * last + min(floor(elapsed / (rtt/4)), 5) mod 16.  *advanced is set to 1
 * if it moved.  rtt 0 counts as UDCCP_CCID3_DEFAULT_RTT. */
uint8_t udccp_ccid3_wc_next(uint8_t last, udccp_tstamp elapsed,
                            udccp_tstamp rtt, int *advanced);

/* RFC 4342 §8.5: the Loss Event Rate option value for p: ceil(1/p), or
 * 2^32 - 1 for p = 0 (no loss yet).  And back: p for a value (0 for
 * 2^32 - 1 and for 0). */
uint32_t udccp_ccid3_p_to_opt(double p);
double udccp_ccid3_opt_to_p(uint32_t v);

/* 1 if an option this half handles (the HC-Receiver 128..191, the
 * HC-Sender 192..255, RFC 4340 §10.3) is preceded by Mandatory and unknown
 * (§5.8.2): the packet then gets a Reset with Mandatory Error. */
int udccp_tfrc_ccid_mandatory_scan(const udccp_opts *o, int sender, int sp);
/* Inline: every packet asks, and almost none has a Mandatory CCID option
 * (issue 13). */
static inline int udccp_tfrc_ccid_mandatory_unknown(const udccp_opts *o,
                                                    int sender, int sp) {
  if (o == NULL || !(o->present & UDCCP_OPTS_HAS_MANDATORY_CCID)) {
    return 0;
  }
  return udccp_tfrc_ccid_mandatory_scan(o, sender, sp);
}

/* The halves, shared by CCID 3 and CCID 4; the *_init functions take the
 * parameters.  The others have the signatures of udccp_ccid_ops. */
int udccp_tfrc_ccid_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                            udccp_tstamp ts,
                            const udccp_tfrc_ccid_params *params);
int udccp_tfrc_ccid_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                            udccp_tstamp ts,
                            const udccp_tfrc_ccid_params *params);
void udccp_tfrc_ccid_tx_exit(udccp_ccid_state *st);
/* The trim op of CCID 3 and 4 (udccp_ccid_ops.trim): the sender's history
 * back to UDCCP_CCID3_HIST_INIT entries after UDCCP_CCID3_HIST_IDLE quiet. */
int udccp_tfrc_ccid_trim(udccp_ccid_state *st, int tx, udccp_tstamp ts);
udccp_tstamp udccp_tfrc_ccid_tx_next_send(udccp_ccid_state *st,
                                          udccp_tstamp ts);
uint8_t udccp_tfrc_ccid_tx_ccval(udccp_ccid_state *st, udccp_tstamp ts);
/* tx_write_opts for a DCCP-Data packet, then tx_ccval, in one call: what
 * the connection's Data builder asks of CCID 3 and 4 (issue 13); the
 * window counter depends on nothing the options change. */
uint8_t udccp_tfrc_ccid_tx_data(udccp_ccid_state *st, udccp_optbuf *ob,
                                udccp_tstamp ts);
void udccp_tfrc_ccid_tx_on_sent(udccp_ccid_state *st, uint64_t seq,
                                int is_data, size_t len, udccp_tstamp ts);
int udccp_tfrc_ccid_tx_on_pkt(udccp_ccid_state *st,
                              const udccp_ccid_pkt *pkt, udccp_tstamp ts);
/* udccp_tfrc_ccid_tx_on_pkt for an Ack or DataAck (pkt->has_ack), the
 * feedback; apart, and not static so that it stays a call of its own,
 * so that tx_on_pkt returns for every DCCP-Data the peer sends before
 * this one's set-up (issue 13). */
int udccp_tfrc_ccid_tx_on_ack(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                              udccp_tstamp ts);
udccp_tstamp udccp_tfrc_ccid_tx_get_expiry(const udccp_ccid_state *st);
void udccp_tfrc_ccid_tx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts);
void udccp_tfrc_ccid_tx_get_info(const udccp_ccid_state *st,
                                 udccp_conn_info *info);
void udccp_tfrc_ccid_rx_exit(udccp_ccid_state *st);
int udccp_tfrc_ccid_rx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                              udccp_tstamp ts);
int udccp_tfrc_ccid_rx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                                  uint8_t type, udccp_tstamp ts);
udccp_tstamp udccp_tfrc_ccid_rx_get_expiry(const udccp_ccid_state *st);
int udccp_tfrc_ccid_rx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts);
void udccp_tfrc_ccid_rx_get_info(const udccp_ccid_state *st,
                                 udccp_conn_info *info);

/* Read-only views for tests and tools. */
const udccp_tfrc_tx *udccp_tfrc_ccid_tx_tfrc(const udccp_ccid_state *st);
/* The sent-rate cap (udccp_tfrc_tx_sent_cap) is on from tx_init; unit
 * tests of the RFC formulas that feed reports about packets never sent
 * turn it off (on = 0).  Nothing else should. */
void udccp_tfrc_ccid_tx_set_sent_cap(udccp_ccid_state *st, int on);
const udccp_tfrc_lh *udccp_tfrc_ccid_rx_lh(const udccp_ccid_state *st);
/* The receiver's RTT estimate (ns, 0 = none) from CCVal (RFC 4342 §8.1). */
udccp_tstamp udccp_tfrc_ccid_rx_rtt(const udccp_ccid_state *st);
/* The RTT the receiver works with: with Send RTT Estimate on, RFC 6323
 * §3.3 receiver_RTT from the sender's RTT Estimate options; else the CCVal
 * estimate (or env->srtt before one exists; 0 = none). */
udccp_tstamp udccp_tfrc_ccid_rx_rtt_used(const udccp_ccid_state *st);

/* Sender half: writes the RTT Estimate option (RFC 6323 §3.2.1) when Send
 * RTT Estimate is on, on Data, DataAck, Sync and SyncAck (§3.3). */
int udccp_tfrc_ccid_tx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                                  uint8_t type, udccp_tstamp ts);

#endif /* UDCCP_CCID3_H */
