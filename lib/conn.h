/* SPDX-License-Identifier: MIT */
/*
 * The connection: internal structure shared by conn.c (life cycle, API
 * accessors), conn_in.c (RFC 4340 §8.5 input steps), conn_out.c (packet
 * generation) and conn_timer.c (timers); listener.c builds server
 * connections from it.  Not part of the public API.
 *
 * Shape of the engine:
 *   - read_pkt runs the §8.5 steps in order and never emits packets; it
 *     sets UDCCP_PEND_* bits (what to send), or, when the receiving CCID
 *     half asks for an acknowledgement, builds that Ack at once into the
 *     small ack queue (acks must not merge: RFC 4341 §5 grows cwnd per
 *     ack).
 *   - write_pkt sends, in order: a pending Reset, queued acks, SyncAck,
 *     Sync, Listen, Request, Response, CloseReq/Close retransmissions,
 *     application data (paced by the sending CCID half), the Close or
 *     CloseReq of a graceful close once the queue is empty, a pending Ack.
 *   - Each CCID half gets its own udccp_ccid_env: the Ack Ratio the sender
 *     half steers (Ack Ratio/us, §11.3) differs from the one the receiver
 *     half obeys (Ack Ratio/peer); the RTT is copied from the sender's.
 *   - Our Sequence Window follows the packets we send per RTT (§7.5.2).
 */
#ifndef UDCCP_CONN_H
#define UDCCP_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "ackvec.h"
#include "ccid.h"
#include "feat.h"
#include "mp.h"
#include "opt.h"
#include "pkt.h"
#include "qpolicy.h"
#include "rxq.h"
#include "seq.h"

/* Largest Init Cookie we echo (option value, §8.1.4: at most 253 bytes). */
#define UDCCP_CONN_COOKIE_MAX 253

/* PARTOPEN Ack retransmission: first interval (§8.1.5 "e.g. 200 ms"). */
#define UDCCP_CONN_PARTOPEN_RTO (200 * UDCCP_NS_PER_MS)
/* Close/CloseReq first retransmission when no RTT is known (§8.3). */
#define UDCCP_CONN_CLOSE_RTO_MIN (200 * UDCCP_NS_PER_MS)
/* Syncs sent in answer to sequence-invalid packets: at most 8 per second
 * (§7.5.4 "not more than eight DCCP-Syncs per second"). */
#define UDCCP_CONN_SYNC_INTERVAL (UDCCP_NS_PER_S / 8)
/* DCCP-Listen retransmission (RFC 5596 §2.2.1): every 200 ms... */
#define UDCCP_CONN_LISTEN_INTERVAL (200 * UDCCP_NS_PER_MS)
/* ...and at most this many after the first. */
#define UDCCP_CONN_LISTEN_MAX_RETX 2
/* Receive queue fill level (datagrams left) below which Slow Receiver is
 * sent (§11.6). */
#define UDCCP_CONN_SLOW_RX_FREE 4
/* Acks of acks while sending data (RFC 4341 §6.2, RFC 4340 §11.1): once
 * the peer has sent an ack with an Ack Vector since our last
 * acknowledgement, the data packet that follows ackack_every Data packets
 * is a DataAck carrying our Ack Vector, and the peer's next acks free its
 * Ack Vector state (the t_ackack timer still sees to once per RTT when we
 * send less).  ackack_every is a quarter of the CCID's window, at least 1
 * and at most this (tune_seqwin), so that the peer's acks are acked
 * several times per window ("at least once per congestion window") and a
 * small window, or a CCID without one, acks them after each Data packet
 * as before.  Every data packet a DataAck (as Linux does) cost a vector to
 * write, parse and match on each; after every Data packet, about every
 * other packet was one (issue 13). */
#define UDCCP_CONN_ACKACK_EVERY 8
/* Initial Sequence Window before negotiation (§7.5.2). */
#define UDCCP_CONN_SEQWIN_INIT 100
/* Sequence numbers up to the highest received for which a network
 * duplicate is recognised and dropped (a power of 2, so 2^48 is a multiple
 * of it): all that udccp's default Sequence Window (1000) lets below GSR
 * (§7.5.1: SWL = GSR + 1 - W/4); a copy the network delays by more than
 * that in a wider window passes as new.  32 bytes per connection. */
#define UDCCP_CONN_DUP_BITS 256

/* Acks built when the receiver half asks for them, waiting for write_pkt:
 * CCID 2 grows its window per acknowledgement (RFC 4341 §5), so acks due
 * between two write_pkt calls must not merge into one. */
#define UDCCP_CONN_ACKQ 8

/* Issue 13: a busy connection keeps the blocks of its drained send queue,
 * receive queue and ack queue for the next packet (an allocation and a
 * free per packet otherwise); they go back this long after the first of
 * them was taken, if drained by then, else the check repeats: an idle
 * connection holds no buffers after at most twice this, and one timer
 * event per period is the whole cost while busy. */
#define UDCCP_CONN_TRIM_AFTER (100 * UDCCP_NS_PER_MS)

/* Received packets whose data did not reach the application (§11.7): a
 * run of up to UDCCP_CONN_DROP_RUN consecutive Sequence Numbers ending at
 * seq, with one Drop Code (one Drop Block each).  A receive buffer that
 * overflows drops hundreds of packets per ack; one record per packet let
 * the sender hear of only the last 16. */
#define UDCCP_CONN_MAX_DROPS 16
#define UDCCP_CONN_DROP_RUN 16 /* a Drop Block's Run Length field: 4 bits */
typedef struct udccp_conn_drop {
  uint32_t seq_lo;  /* the run's newest 48-bit Sequence Number, in 8 */
  uint16_t seq_hi;  /* bytes with the rest (issue 13: small records) */
  uint8_t code_run; /* Drop Code (Table 7) << 4 | packets in the run - 1 */
  uint8_t sent;     /* acks that carried it */
} udccp_conn_drop;
_Static_assert(sizeof(udccp_conn_drop) == 8, "Data Dropped record: 8 bytes");

static inline uint64_t udccp_conn_drop_seq(const udccp_conn_drop *d) {
  return (uint64_t)d->seq_hi << 32 | d->seq_lo;
}

static inline void udccp_conn_drop_set_seq(udccp_conn_drop *d, uint64_t seq) {
  d->seq_lo = (uint32_t)seq;
  d->seq_hi = (uint16_t)(seq >> 32);
}

/* What the connection counts for udccp_conn_info: only the counters (and
 * the MPS); udccp_conn_get_info fills in the rest from the live state, so
 * that an idle connection does not carry a second copy of it (issue 13). */
typedef struct udccp_conn_counters {
  uint64_t pkts_sent, pkts_recv, bytes_sent, bytes_recv;
  uint64_t data_pkts_sent, data_pkts_recv;
  uint64_t data_bytes_sent, data_bytes_recv;
  uint64_t pkts_dropped, pkts_seq_invalid, pkts_malformed, pkts_bad_cksum;
  uint64_t pkts_dup;
  uint64_t tx_qdrops, rx_qdrops;
  uint64_t syncs_sent, syncs_recv;
  uint64_t retransmits;
  uint64_t keepalive_probes, keepalive_timeouts;
  uint64_t pkts_lost_rx;     /* the receiver CCID's count when it was
                                released (udccp_conn_release_buffers) */
  uint32_t mps;              /* payload bytes per packet */
} udccp_conn_counters;

/* Pending control packets, highest priority first (conn_out.c). */
enum {
  UDCCP_PEND_RESET = 1u << 0,
  UDCCP_PEND_SYNCACK = 1u << 1,
  UDCCP_PEND_SYNC = 1u << 2,
  UDCCP_PEND_RESPONSE = 1u << 3,
  UDCCP_PEND_REQUEST = 1u << 4,
  UDCCP_PEND_CLOSE = 1u << 5,
  UDCCP_PEND_CLOSEREQ = 1u << 6,
  UDCCP_PEND_ACK = 1u << 7,
  UDCCP_PEND_LISTEN = 1u << 8
};

/* The conn's shorter-lived facts about the packet being processed. */
typedef struct udccp_conn_rxpkt {
  udccp_hdr h;
  udccp_opts opts;
  uint64_t seq, ack; /* 48-bit, extended */
  uint8_t ecn;
  uint8_t recorded;  /* entered in our Ack Vector */
} udccp_conn_rxpkt;

/* udccp_conn_write_pkt_sg(): the packet's ECN codepoint (first: cur_pecn
 * points at it, cur_sg says so) and the data packet's payload, left in
 * the send queue. */
struct udccp_conn_sg {
  uint8_t ecn;
  const uint8_t *data;
  size_t len;
};

struct udccp_conn {
  /* Memory (issue 13).  Everything the connection allocates after its own
   * struct (queues, Ack Vector, CCID state and what the CCIDs allocate)
   * goes through mem, which points at mem_hooks: they forward to base_mem
   * (the settings' allocator) and count mem_bytes, the heap held. */
  const udccp_mem *mem;
  const udccp_mem *base_mem;
  udccp_mem mem_hooks;
  size_t mem_bytes;
  udccp_settings settings;
  udccp_path path;
  uint32_t service_code;
  int error;               /* fatal code once dead, else 0 */
  int16_t reset_code;      /* UDCCP_RESET_NONE while none */
  uint8_t reset_from;      /* who sent the Reset reset_code names (enum
                              udccp_reset_from): code 255 is NONE's value */
  uint32_t pending;        /* what to send next: UDCCP_PEND_* bits */

  /* Sequence state, RFC 4340 §7.1, §8.5 (48-bit values). */
  uint64_t iss, isr, osr, gss, gsr, gar;
  uint64_t swl, swh, awl, awh;
  uint64_t seqwin_local;   /* Sequence Window/A (ours): width of AW */
  uint64_t seqwin_remote;  /* Sequence Window/B (peer's): width of SW */

  /* Feature negotiation (§6) and negotiated values. */
  udccp_feat_set feat;
  udccp_mp_state *mp;      /* Multipath DCCP, RFC 9897 (mp.c); NULL if off */
  uint32_t ack_ratio_cur;  /* Ack Ratio in force */
  uint32_t ack_ratio_asked;/* Ack Ratio we last started a Change for */

  /* CCIDs (§10). */
  udccp_ccid_env env;      /* the sender half's (Ack Ratio/us) */
  udccp_ccid_env env_rx;   /* the receiver half's (Ack Ratio/peer; RTT
                              copied from env) */
  const udccp_ccid_ops *tx_ccid;
  const udccp_ccid_ops *rx_ccid;
  udccp_ccid_state *tx_st, *rx_st; /* ops->tx_size / rx_size bytes, from
                                      udccp_conn_start_ccids; NULL before
                                      and after (TIMEWAIT, CLOSED) */

  /* Ack Vector (§11.4), receive buffer for the peer's packets. */
  udccp_ackvec av;

  /* Queues. */
  udccp_sendq sendq;
  udccp_rxq rxq;

  /* Parameters of what to send next (pending). */
  uint64_t sync_ackno;     /* ackno of the pending Sync */
  uint64_t syncack_ackno;  /* ackno of the pending SyncAck */
  uint64_t reset_ackno;    /* Reset's ackno (GSR unless said otherwise) */
  uint64_t reset_seq;
  uint64_t pkts_since_ack; /* peer acks (with Ack Vector) not yet acked */
  uint64_t win_mark_seq;   /* GSS at win_mark_ts: packets sent per RTT */
  udccp_tstamp win_mark_ts;
  uint64_t sent_per_rtt;
  uint64_t nonce_rng;      /* xorshift64 state for ECN nonces (§12.2) */
  uint8_t *cur_pecn;       /* write_pkt's ECN codepoint out-parameter */
  uint64_t max_ack_lag;    /* largest GSS - ackno seen on a valid packet */
  uint64_t open_seq;       /* server: our first packet after the Response */

  /* Packet-borne signals. */
  /* Server: the cookie of our Response, in the listener's buffer; set
   * only on the throw-away connection that writes a cookie Response
   * (listener.c), which never outlives that buffer. */
  const uint8_t *init_cookie;
  /* Client, PARTOPEN: every Init Cookie option of the Response our ackno
   * names, whole (type, length, value), in order (§8.1.4), echoed on
   * every packet (§8.1.5); allocated only while held. */
  uint8_t *echo_cookies;
  /* Data Dropped (§11.7): UDCCP_CONN_MAX_DROPS records, allocated while
   * any is held (few connections ever drop data; issue 13). */
  udccp_conn_drop *drops;
  uint64_t ndp_count;      /* our non-data packets since last data (§7.7) */
  uint64_t rx_high;        /* highest sequence number of a valid packet
                              received (§7.7 gaps; rx_high_set) */
  uint64_t rx_lost_pending;/* data packets lost (in the network or dropped
                              here) since the last datagram queued for the
                              application: its udccp_recv_info.lost_before */
  uint8_t rx_high_set;
  uint8_t dup_set;         /* dup_high and dup_bits hold a packet */
  uint64_t dup_high;       /* highest sequence number in dup_bits (48 bits) */
  /* Network duplicates (§7: sequence numbers detect them): bit s mod
   * UDCCP_CONN_DUP_BITS is set when valid packet s of the last
   * UDCCP_CONN_DUP_BITS up to dup_high was received (lib/conn_in.c). */
  uint64_t dup_bits[UDCCP_CONN_DUP_BITS / 64];
  udccp_tstamp peer_ts_rx; /* when it arrived */
  udccp_tstamp slow_until; /* peer sent Slow Receiver: hold rate until */

  /* Timers (ns; UDCCP_TSTAMP_NEVER when off). */
  udccp_tstamp t_start;       /* Request/Close/PARTOPEN phase start */
  udccp_tstamp t_retx;        /* next Request/Close/CloseReq/Ack retransmit */
  udccp_tstamp retx_rto;      /* current back-off interval */
  udccp_tstamp t_timewait;    /* TIMEWAIT end */
  udccp_tstamp t_last_sync;   /* last Sync sent for an invalid packet */
  udccp_tstamp t_stall;       /* data waits for the window since (or the
                                 last probe); NEVER if not */
  uint64_t data_mark;         /* first data packet sent after GAR */
  udccp_tstamp t_last_rx;     /* last valid packet received (idle) */
  udccp_tstamp rx_quiet;      /* the shorter of settings.idle_timeout and
                                 keepalive_idle that is on, NEVER if neither
                                 (conn_timer.c) */
  udccp_tstamp ka_base;       /* t_last_rx the keepalive probes count from */
  udccp_tstamp t_last_ack_tx; /* last Ack/DataAck sent */
  udccp_tstamp t_listen;      /* next DCCP-Listen (RFC 5596) */
  udccp_tstamp ts_origin;     /* Timestamp option origin (§13.1) */
  udccp_tstamp t_last_tx;     /* last packet sent */
  udccp_tstamp t_feat_tx;     /* last packet that carried our Changes */
  uint64_t feat_tx_seq;       /* ... and its Sequence Number */
  udccp_tstamp t_ackack;      /* ack the peer's acks by then (RFC 4341) */
  udccp_tstamp now;           /* latest ts the caller gave us */
  udccp_tstamp t_trim;        /* give drained buffers back then (NEVER:
                                 none held; UDCCP_CONN_TRIM_AFTER) */

  uint8_t *ackq;              /* UDCCP_CONN_ACKQ slots of ackq_slot bytes,
                                 allocated while acks wait (conn_out.c) */
  size_t ackq_slot;

  udccp_conn_counters info;   /* counters */

  /* The small fields of every section above, together so that the struct
   * has no padding (issue 13: every connection holds one). */
  uint32_t peer_ts;           /* the peer's Timestamp to echo (§13.3) */
  uint32_t listen_sent;       /* DCCP-Listens sent (RFC 5596) */
  int data_mark_set;          /* data_mark is valid */
  uint16_t ackq_len[UDCCP_CONN_ACKQ];
  uint16_t echo_cookies_len;
  uint8_t ackq_head, ackq_n;
  uint8_t is_server;
  uint8_t lis_phase;       /* made by a listener: enum udccp_listener_phase */
  uint8_t state;           /* enum udccp_state */
  uint8_t closing_after_q; /* close requested; Close/CloseReq once queue empty */
  uint8_t have_isr;        /* ISR known (§7.1) */
  uint8_t tx_ccid_id, rx_ccid_id;
  uint8_t short_seqnos_ok; /* peer may send X=0 (our Allow Short Seqnos) */
  uint8_t send_ackvec;     /* our receiving half writes Ack Vectors */
  uint8_t send_ndp;        /* we send NDP Count */
  uint8_t peer_min_cscov;  /* peer requires CsCov >= this on our packets */
  uint8_t send_data_cksum; /* peer asked for Data Checksum */
  uint8_t check_data_cksum; /* we asked for it (Check Data Checksum/us) */
  uint8_t tx_ccid_up, rx_ccid_up;
  uint8_t av_up;
  uint8_t pend_reset_code;
  uint8_t pend_reset_data[3];
  uint8_t reset_use_seq;   /* Reset numbered from the input (§8.3.1) */
  uint8_t ack_needed;      /* something new to acknowledge */
  uint8_t data_since_ackack; /* we sent data since our last ack */
  uint8_t data_unacking;   /* Data (not DataAck) packets since our last ack,
                              saturating (UDCCP_CONN_ACKACK_EVERY) */
  uint8_t ackack_every;    /* ...after this many of them (1..ACKACK_EVERY) */
  uint8_t build_general;   /* tests: every packet through udccp_conn_build's
                              general path, none through build_data or
                              build_ack (conn_out.c) */
  uint8_t read_general;    /* tests: every Ack and DataAck received through
                              udccp_conn_read_pkt's general path, none
                              through its fast path (conn_in.c) */
  uint8_t peer_partopen;   /* server: the client may still be in PARTOPEN */
  uint8_t fallback_ack;    /* a DataAck did not fit; its Ack went alone */
  uint8_t data_blocked;    /* PARTOPEN: the head datagram waits for OPEN */
  uint8_t init_cookie_len;
  uint8_t slow_rx_pending; /* send Slow Receiver (§11.6) */
  uint8_t n_drops;         /* entries in drops */
  uint8_t peer_ts_valid;   /* echo the peer's Timestamp (§13.3) */
  uint8_t ka_probes;       /* keepalive Syncs sent since ka_base */
  uint8_t feat_tx_valid;   /* t_feat_tx and feat_tx_seq are valid */
  uint8_t feat_backoff;    /* Change repetitions by timer since the last
                              Confirm (§6.6.3 back-off) */
  uint8_t listen_triggered; /* RFC 5596 §2.2.3.1: one triggered Request */
  uint8_t peer_closed;     /* read_datagram reports CLOSED once drained */
  uint8_t cur_sg;          /* 1: cur_pecn is a struct udccp_conn_sg's
                              (write_pkt_sg: the payload is not copied) */
};

/* --- conn.c --- */
/* Common constructor (both roles), state given. */
int udccp_conn_new_common(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          int is_server, udccp_tstamp ts);
/* Moves to state, with the side effects each state entry has. */
void udccp_conn_set_state(udccp_conn *conn, uint8_t state, udccp_tstamp ts);
/* The connection is dead with error err (fatal code) and reset code. */
void udccp_conn_kill(udccp_conn *conn, int err, int reset_code);
/* Frees what a dead connection no longer needs (queues, Ack Vector, CCID
 * state): CLOSED and TIMEWAIT keep a tombstone of the struct only. */
void udccp_conn_release_buffers(udccp_conn *conn);
/* The ack queue's memory, allocated on first use: 0 or UDCCP_ERR_NOMEM. */
int udccp_conn_ackq_alloc(udccp_conn *conn);

/* A queue or the ack queue took a block: make sure the trim timer runs
 * (UDCCP_CONN_TRIM_AFTER). */
static inline void udccp_conn_trim_arm(udccp_conn *conn, udccp_tstamp ts) {
  if (conn->t_trim == UDCCP_TSTAMP_NEVER) {
    conn->t_trim = ts + UDCCP_CONN_TRIM_AFTER;
  }
}

/* Gives back the drained buffers kept for reuse (conn_timer.c). */
void udccp_conn_trim(udccp_conn *conn, udccp_tstamp ts);
/* Gives the ack queue's memory back once it is empty. */
void udccp_conn_ackq_release(udccp_conn *conn);
/* Frees the Data Dropped records (all of them reported or given up). */
void udccp_conn_drops_release(udccp_conn *conn);
/* Enter TIMEWAIT (§8.3). */
void udccp_conn_enter_timewait(udccp_conn *conn, udccp_tstamp ts);
/* The AWL/AWH half of udccp_conn_update_windows, for when only GSS moved
 * (every packet sent, issue 13): RFC 4340 §7.5.1, [GSS + 1 - W', GSS]
 * with W' ours, not below ISS within the first window. */
static inline void udccp_conn_update_aw(udccp_conn *conn) {
  uint64_t wl = conn->seqwin_local;
  conn->awh = conn->gss;
  conn->awl = udccp_seq_add(conn->gss, 1 - (int64_t)wl);
  if (udccp_seq_sub(conn->gss, conn->iss) < (int64_t)wl &&
      udccp_seq_lt(conn->awl, conn->iss)) {
    conn->awl = conn->iss;
  }
}

/* The SWL/SWH half of udccp_conn_update_windows, for when only GSR moved
 * (every packet received, issue 13: AWL/AWH follow GSS, W' and ISS, and
 * every change to those recomputes them where it happens).  RFC 4340
 * §7.5.1: [GSR + 1 - floor(W/4), GSR + ceil(3W/4)] with W the peer's
 * Sequence Window. */
static inline __attribute__((always_inline)) void
udccp_conn_update_sw(udccp_conn *conn) {
  uint64_t w = conn->seqwin_remote;
  if (conn->have_isr) {
    conn->swl = udccp_seq_add(conn->gsr, 1 - (int64_t)(w / 4));
    conn->swh = udccp_seq_add(conn->gsr, (int64_t)((3 * w + 3) / 4));
    /* The start-of-connection adjustment applies while GSR is within the
     * first window; after wrapping it must not (§7.5.1). */
    if (udccp_seq_sub(conn->gsr, conn->isr) < (int64_t)w &&
        udccp_seq_lt(conn->swl, conn->isr)) {
      conn->swl = conn->isr;
    }
  }
}

/* Recomputes SWL/SWH, AWL/AWH from GSR/GSS and the windows (§7.5.1). */
static inline void udccp_conn_update_windows(udccp_conn *conn) {
  udccp_conn_update_sw(conn);
  udccp_conn_update_aw(conn);
}

/* RFC 4340 §7.5.1: the peer's acknowledgement numbers are valid only
 * within our last W' sequence numbers ([AWL, AWH]), and the peer takes
 * our packets only up to 3W'/4 beyond its GSR ([SWL, SWH], the peer uses
 * our Sequence Window).  A sender that runs 3W'/4 packets past the first
 * data packet the peer has not acknowledged (data_mark > GAR) risks both:
 * if the peer lost that run, it refuses what follows, and its acks and
 * Syncs for it fall below AWL.  Data then waits for an ack (the window
 * grows meanwhile, conn_in.c tune_seqwin).  Only data counts: our own
 * Acks for a peer that sends plain Data draw no acks, so GAR rightly
 * stays behind them (§7.5.2: W' reflects the packets we expect in
 * flight).  1 if stalled. */
static inline int udccp_conn_window_stalled(const udccp_conn *conn) {
  if (!conn->data_mark_set || udccp_seq_le(conn->data_mark, conn->gar)) {
    return 0;
  }
  return udccp_seq_sub(conn->gss, conn->data_mark) + 1 >=
         (int64_t)(3 * conn->seqwin_local / 4);
}

/* When a stall lasts this long, a Sync probes the peer (§7.5.4): its
 * SyncAck acknowledges our GSS, and resynchronises a peer that lost a
 * burst of our packets. */
static inline udccp_tstamp udccp_conn_stall_probe_at(const udccp_conn *conn) {
  udccp_tstamp d = conn->env.rto ? conn->env.rto : UDCCP_NS_PER_S;
  if (d < UDCCP_NS_PER_S / 8) {
    d = UDCCP_NS_PER_S / 8; /* the §7.5.4 rate limit for Syncs */
  }
  return conn->t_stall + d;
}
/* Recomputes the MPS from the PMTU (§14) and keeps the env current. */
void udccp_conn_update_mps(udccp_conn *conn);
/* Applies negotiated feature values (called when they change). */
int udccp_conn_apply_features(udccp_conn *conn, udccp_tstamp ts);
/* Queues a Reset with code and data (RFC 4340 §5.6), then CLOSED. */
void udccp_conn_send_reset(udccp_conn *conn, uint8_t code, const uint8_t *data,
                           int fatal_err);
/* Server connection set up from a Request (§8.5 step 3), used by the
 * listener and by a LISTEN-state conn. */
int udccp_conn_accept_request(udccp_conn *conn, const udccp_conn_rxpkt *p,
                              udccp_tstamp ts);
/* Copies the sender half's RTT estimate to the receiver half's env
 * (after every packet the sender half reads: inline, issue 13). */
static inline void udccp_conn_sync_env(udccp_conn *conn) {
  conn->env_rx.mps = conn->env.mps;
  conn->env_rx.seq_window_out = conn->env.seq_window_out;
  conn->env_rx.seq_window_in = conn->env.seq_window_in;
  conn->env_rx.ecn = conn->env.ecn;
  conn->env_rx.srtt = conn->env.srtt;
  conn->env_rx.rttvar = conn->env.rttvar;
  conn->env_rx.rto = conn->env.rto;
  conn->env_rx.min_rtt = conn->env.min_rtt;
}
/* The part of udccp_conn_sync_env that a sender half's packet may move:
 * its RTT estimate (the CCID's outputs).  MPS, the Sequence Windows and
 * ECN are inputs, changed only where udccp_conn_update_mps and
 * udccp_conn_apply_features set both envs (issue 13: after every packet
 * the sender half reads). */
static inline void udccp_conn_sync_env_rtt(udccp_conn *conn) {
  conn->env_rx.srtt = conn->env.srtt;
  conn->env_rx.rttvar = conn->env.rttvar;
  conn->env_rx.rto = conn->env.rto;
  conn->env_rx.min_rtt = conn->env.min_rtt;
}
/* Starts both CCID halves (once the CCIDs are known). */
int udccp_conn_start_ccids(udccp_conn *conn, udccp_tstamp ts);

/* --- conn_in.c --- */
/* Decodes pkt into p: header, 48-bit numbers extended; options parsed
 * into p->opts.  Returns 0 or a negative code (also used by listener.c). */
int udccp_conn_decode(udccp_conn_rxpkt *p, const uint8_t *pkt, size_t len);

/* Client: keeps the Init Cookie options of Response p for the PARTOPEN
 * echo (none: forgets those held).  Returns 0 or UDCCP_ERR_NOMEM. */
int udccp_conn_keep_cookies(udccp_conn *conn, const udccp_conn_rxpkt *p);

/* --- conn_out.c --- */
/* Writes a complete packet of type into dst with options for that type. */
udccp_ssize udccp_conn_build(udccp_conn *conn, uint8_t *dst, size_t cap,
                             uint8_t type, const uint8_t *payload,
                             size_t payload_len, udccp_tstamp ts);
/* udccp_conn_write_pkt past its checks (dst has room, something may be
 * sent): the next packet, or 0.  Kept out of line so that the call that
 * finds nothing to send pays for none of its set-up (issue 13). */
udccp_ssize udccp_conn_write_pkt_next(udccp_conn *conn, uint8_t *dst,
                                      size_t cap, udccp_tstamp ts);
/* The receiver half wants an acknowledgement now: builds it at once into
 * the ack queue (or, if that is full, leaves it pending). */
void udccp_conn_ack_now(udccp_conn *conn, udccp_tstamp ts);
/* Largest payload one packet can carry after the header and the options
 * we typically add (§14). */
size_t udccp_conn_opts_reserve(const udccp_conn *conn);

/* --- conn_timer.c --- */
/* Starts the retransmission timer of the current handshake/close phase. */
void udccp_conn_timer_start(udccp_conn *conn, udccp_tstamp first_rto,
                            udccp_tstamp ts);
void udccp_conn_timer_stop(udccp_conn *conn);

#endif /* UDCCP_CONN_H */
