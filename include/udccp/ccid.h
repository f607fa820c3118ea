/* SPDX-License-Identifier: MIT */
/*
 * udccp/ccid.h -- the CCID interface (RFC 4340 §10), public.
 *
 * Included by <udccp/udccp.h>; see doc/ccid-api.md for the guide.
 *
 * A CCID is two halves: the sender half (HC-Sender) runs on the packets
 * the connection sends, the receiver half (HC-Receiver) on the packets it
 * receives.  Both halves are one udccp_ccid_ops table; the built-in CCIDs
 * 2, 3 and 4 are such tables, looked up through the same registry as the
 * ones an application registers (udccp_ccid_register), and negotiated the
 * same way through the CCID feature (RFC 4340 §6, §10).
 *
 * State: each half's state lives in a udccp_ccid_state the connection
 * allocates (tx_size / rx_size bytes of it, zeroed); a half may allocate
 * more through env->mem at init and free it in exit.  A CCID never reads a
 * clock and never sleeps: every call gets the time `ts` (ns, monotonic),
 * the sender half says when it may send next (tx_next_send), and each half
 * names its timer (tx_get_expiry / rx_get_expiry), which the connection
 * folds into udccp_conn_get_expiry().
 *
 * What a CCID may read of the connection: the udccp_ccid_env it gets at
 * init (kept current by the connection: MPS, Sequence Windows, Ack Ratio,
 * ECN) and the packets it is shown (udccp_ccid_pkt).  Options: a half
 * owns the CCID-specific options 128..255 (RFC 4340 §10.3) of its
 * direction -- options 128..191 are sent by the HC-Receiver and read by
 * the HC-Sender, 192..255 the other way round -- and writes them through
 * udccp_ccid_opt_put() from tx_write_opts / rx_write_opts; it reads the
 * generic feedback of a packet (Ack Vector, Elapsed Time) and its CCID
 * options through the udccp_ccid_pkt_* functions below.  Everything else
 * (sequence numbers, feature negotiation, Sync, close) stays the
 * connection's.
 *
 * Threads: the registry is process-wide.  Register before creating the
 * connections that may use a CCID and unregister only once none uses it.
 * Registration itself is safe against concurrent lookups.
 */
#ifndef UDCCP_CCID_PUBLIC_H
#define UDCCP_CCID_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque to a CCID: the options area being written, and the options of a
 * received packet (read them with the udccp_ccid_pkt_* functions). */
typedef struct udccp_optbuf udccp_optbuf;
typedef struct udccp_opts udccp_opts;

/* What the connection shares with a CCID half.  The connection keeps the
 * input fields current; the CCID reads them, and writes the outputs. */
typedef struct udccp_ccid_env {
  const udccp_mem *mem;
  /* inputs (connection -> CCID) */
  size_t mps;              /* payload bytes per packet */
  uint64_t seq_window_out; /* Sequence Window the peer uses for our packets */
  uint64_t seq_window_in;  /* the peer's Sequence Window: the width of its
                              window for our acknowledgement numbers */
  uint32_t ack_ratio;      /* current Ack Ratio (feature 5) */
  uint32_t want_ack_ratio; /* output, sender half: Ack Ratio to negotiate;
                              0 = none */
  uint8_t ecn;             /* 1: ECN negotiated on */
  uint8_t tx_nonce;        /* ECN nonce of the packet tx_on_sent reports:
                              1 if sent ECT(1), else 0 (RFC 4340 §12.2) */
  uint8_t send_rtt_est;    /* RFC 6323 Send RTT Estimate (feature 128) of
                              this half-connection is 1 */
  uint8_t tx_more;         /* for the data packet tx_on_sent reports: more
                              data waits behind it (UDCCP_CCID_MORE_*) */
  uint8_t opt_err[3];      /* output: with UDCCP_ERR_OPTION from rx_on_pkt:
                              Data 1..3 of the Option Error Reset, the first
                              bytes of the offending option (RFC 4340 §5.6) */
  /* outputs (CCID -> connection) */
  uint64_t pkts_lost;      /* sender half: data packets declared lost */
  udccp_tstamp srtt, rttvar, rto, min_rtt; /* sender half's RTT estimate */
} udccp_ccid_env;

/* env.tx_more: unknown (the CCID guesses from timing), yes, no. */
#define UDCCP_CCID_MORE_UNKNOWN 0
#define UDCCP_CCID_MORE_YES 1
#define UDCCP_CCID_MORE_NO 2

/* An incoming packet, as the CCID halves see it. */
typedef struct udccp_ccid_pkt {
  uint8_t type;            /* enum udccp_pkt_type */
  uint8_t ccval;
  uint8_t ecn;             /* IP ECN codepoint 0..3 */
  uint64_t seq;            /* 48-bit */
  uint8_t has_ack;
  uint64_t ack;            /* 48-bit */
  size_t payload_len;
  const udccp_opts *opts;  /* all options of the packet (opaque) */
} udccp_ccid_pkt;

/* Storage for one half's state.  A connection allocates only the CCID's
 * tx_size / rx_size bytes of it, so a half must never touch the union
 * beyond its own struct. */
#define UDCCP_CCID_STATE_SIZE 2048
typedef union udccp_ccid_state {
  uint64_t u64;
  double d;
  void *p;
  uint8_t bytes[UDCCP_CCID_STATE_SIZE];
} udccp_ccid_state;

/* Feature numbers a CCID may depend on (RFC 4340 §6.4). */
#define UDCCP_CCID_FEAT_ACK_RATIO 5
#define UDCCP_CCID_FEAT_SEND_ACK_VECTOR 6
#define UDCCP_CCID_FEAT_SEND_NDP_COUNT 7

/* A feature value a CCID requires (RFC 4340 §10 "dependencies"): e.g.
 * CCID 2 needs Send Ack Vector = 1 at the HC-Receiver. */
typedef struct udccp_ccid_dep {
  uint8_t feat;
  uint8_t at_receiver; /* 1: located at the HC-Receiver, 0: HC-Sender */
  uint8_t mandatory;
  uint64_t val;
} udccp_ccid_dep;

typedef struct udccp_ccid_ops {
  uint8_t id;          /* the CCID number it is meant for (the registry
                          may file it under another: udccp_ccid_register_as) */
  const char *name;
  const udccp_ccid_dep *deps;
  size_t n_deps;
  /* Bytes of udccp_ccid_state each half uses (a connection allocates no
   * more); 0 means sizeof(udccp_ccid_state). */
  size_t tx_size, rx_size;

  /* --- sender half (required: tx_init, tx_next_send, tx_on_sent,
   *     tx_on_pkt; the rest may be NULL) --- */
  int (*tx_init)(udccp_ccid_state *st, udccp_ccid_env *env, udccp_tstamp ts);
  void (*tx_exit)(udccp_ccid_state *st);
  /* Earliest time a data packet may be sent: <= ts means now;
   * UDCCP_TSTAMP_NEVER means "not until a packet from the peer arrives". */
  udccp_tstamp (*tx_next_send)(udccp_ccid_state *st, udccp_tstamp ts);
  /* CCVal for the next packet (CCID 3's window counter); may be NULL. */
  uint8_t (*tx_ccval)(udccp_ccid_state *st, udccp_tstamp ts);
  /* Packet seq was sent (every packet of the connection, data or not);
   * is_data: it carried application data of len bytes. */
  void (*tx_on_sent)(udccp_ccid_state *st, uint64_t seq, int is_data,
                     size_t len, udccp_tstamp ts);
  /* A sequence-valid packet from the peer reached the sender half
   * (acknowledgement, Ack Vectors, Data Dropped, CCID options).  Returns 0,
   * or a negative code (the packet is then dropped; <= UDCCP_ERR_FATAL
   * resets the connection). */
  int (*tx_on_pkt)(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                   udccp_tstamp ts);
  /* Options the sender half puts on outgoing packets of this type. */
  int (*tx_write_opts)(udccp_ccid_state *st, udccp_optbuf *ob, uint8_t type,
                       udccp_tstamp ts);
  udccp_tstamp (*tx_get_expiry)(const udccp_ccid_state *st);
  void (*tx_on_expiry)(udccp_ccid_state *st, udccp_tstamp ts);
  /* Writes the fields of udccp_conn_info the CCID knows (cwnd, x, ...);
   * reads none of info. */
  void (*tx_get_info)(const udccp_ccid_state *st, udccp_conn_info *info);

  /* --- receiver half (required: rx_init, rx_on_pkt) --- */
  int (*rx_init)(udccp_ccid_state *st, udccp_ccid_env *env, udccp_tstamp ts);
  void (*rx_exit)(udccp_ccid_state *st);
  /* A packet arrived (sequence-valid, after option processing).  Returns 1
   * if an acknowledgement should be sent now, 0 if not, negative on error
   * (e.g. UDCCP_ERR_MANDATORY for a Mandatory CCID option it does not
   * know). */
  int (*rx_on_pkt)(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                   udccp_tstamp ts);
  /* Options the receiver half puts on outgoing acks; the call also tells
   * it that an acknowledgement goes out. */
  int (*rx_write_opts)(udccp_ccid_state *st, udccp_optbuf *ob, uint8_t type,
                       udccp_tstamp ts);
  /* Timer (e.g. CCID 3 feedback); on expiry returns 1 if an ack must be
   * sent. */
  udccp_tstamp (*rx_get_expiry)(const udccp_ccid_state *st);
  int (*rx_on_expiry)(udccp_ccid_state *st, udccp_tstamp ts);
  void (*rx_get_info)(const udccp_ccid_state *st, udccp_conn_info *info);

  /* --- added after the first layout; 0 / NULL means "not used" --- */
  /* UDCCP_CCID_F_* bits; any other bit set is refused at registration. */
  uint32_t flags;
  /* Sender half, optional: the options of an outgoing DCCP-Data packet and
   * its CCVal (low 4 bits) in one call.  When set, the connection calls it
   * for every DCCP-Data packet instead of tx_write_opts(.., DATA, ..) and
   * tx_ccval, in that order (the options first); packets of other types
   * still get tx_write_opts and tx_ccval.  For a CCID that puts options on
   * every data packet (CCID 3 and 4's RTT Estimate, RFC 6323). */
  uint8_t (*tx_data)(udccp_ccid_state *st, udccp_optbuf *ob, udccp_tstamp ts);
  /* Sender half, optional: its congestion window in packets.  The
   * connection sizes its Sequence Window from it (RFC 4340 §7.5.2: about
   * five windows), reading it on every acknowledgement; NULL: the CCID
   * keeps no window (rate-based) and the packets sent per RTT decide. */
  uint32_t (*tx_cwnd)(const udccp_ccid_state *st);
  /* Optional, either half (tx: 1 the sender half, 0 the receiver half):
   * give back memory sized for traffic that is over (e.g. a history of
   * packets in flight that grew for a burst), so that an idle connection
   * shrinks back.  Called by the connection's trim timer, every
   * UDCCP_CONN_TRIM_AFTER (100 ms) while its buffers or a half hold
   * more than an idle connection needs.  Returns 1 while the half holds
   * something it may give back later (the timer comes again), else 0. */
  int (*trim)(udccp_ccid_state *st, int tx, udccp_tstamp ts);
  /* Room for members of later versions: must be NULL (registration
   * refuses the table otherwise). */
  void (*reserved[3])(void);
} udccp_ccid_ops;

/* udccp_ccid_ops.flags: the sender half reads only acknowledgements.  The
 * connection shows tx_on_pkt only packets that carry an Acknowledgement
 * Number (RFC 4340 §5.1: every type but DCCP-Request and DCCP-Data), e.g.
 * CCID 3 and 4, whose feedback rides on Ack and DataAck (RFC 4342 §8).
 * Without the flag tx_on_pkt sees every sequence-valid packet (CCID 2
 * learns the peer's sequence numbers from them, RFC 4341 §6.1.1). */
#define UDCCP_CCID_F_TX_ACKS_ONLY 0x1u

/* RFC 4340 §10: CCIDs 248..255 are for experimental use. */
#define UDCCP_CCID_EXPERIMENTAL_MIN 248
#define UDCCP_CCID_EXPERIMENTAL_MAX 255

/* udccp_ccid_register_as flags: also allow a number of the reserved range
 * 5..247 (not IANA-assigned; e.g. 7, the MP-DCCP fork's CUBIC). */
#define UDCCP_CCID_REG_RESERVED 1u

/* Registers ops under its number ops->id, process-wide.  Returns 0, or
 *   UDCCP_ERR_INVALID_ARGUMENT -- ops NULL, a required function missing
 *                                 (or a get_expiry without its on_expiry),
 *                                 tx_size/rx_size above the state size, or
 *                                 ops->id outside 248..255;
 *   UDCCP_ERR_INVALID_STATE    -- the number is taken (unregister first). */
int udccp_ccid_register(const udccp_ccid_ops *ops);

/* As udccp_ccid_register, under number id instead of ops->id; with
 * UDCCP_CCID_REG_RESERVED, id may also be 5..247.  0..4 (reserved and
 * RFC 4341/4342/5622) are always refused. */
int udccp_ccid_register_as(const udccp_ccid_ops *ops, uint8_t id,
                           unsigned flags);

/* Removes the CCID registered under id.  Returns 0,
 * UDCCP_ERR_INVALID_ARGUMENT for the built-in 2, 3, 4 or an empty number. */
int udccp_ccid_unregister(uint8_t id);

/* The CCID registered under id, or NULL. */
const udccp_ccid_ops *udccp_ccid_lookup(uint8_t id);

/* CUBIC (RFC 9438) on CCID 2's feedback (doc/cubic.md).  Registered by
 * default under UDCCP_CCID_CUBIC_DEFAULT; to use another number,
 * udccp_ccid_unregister(UDCCP_CCID_CUBIC_DEFAULT) and
 * udccp_ccid_register_as(udccp_ccid_cubic(), n, flags). */
#define UDCCP_CCID_CUBIC_DEFAULT 249
const udccp_ccid_ops *udccp_ccid_cubic(void);

/* BBR (draft-ietf-ccwg-bbr) on CCID 2's feedback (doc/bbr.md).  Registered
 * by default under UDCCP_CCID_BBR_DEFAULT; moved as CUBIC is. */
#define UDCCP_CCID_BBR_DEFAULT 248
const udccp_ccid_ops *udccp_ccid_bbr(void);

/* Parses a CCID name as tools take it: "2", "3", "4", "cubic" (the number
 * CUBIC is registered under, UDCCP_CCID_CUBIC_DEFAULT unless moved), "bbr"
 * (likewise, UDCCP_CCID_BBR_DEFAULT), or a
 * number 2..255 ("ccid" before it is allowed).  Returns the number, or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_ccid_parse(const char *s);

/* --- for CCID halves: options and feedback --- */

/* Appends option type (128..255 for a CCID) with vlen bytes of val to the
 * options area; mandatory != 0 writes Mandatory first.  Returns 0,
 * UDCCP_ERR_NOBUF (no room) or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_ccid_opt_put(udccp_optbuf *ob, uint8_t type, int mandatory,
                       const void *val, size_t vlen);

/* The number of CCID-specific options (128..255) on pkt, and the i-th:
 * type, value, length, whether Mandatory preceded it.  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (i out of range). */
size_t udccp_ccid_pkt_n_opts(const udccp_ccid_pkt *pkt);
int udccp_ccid_pkt_opt(const udccp_ccid_pkt *pkt, size_t i, uint8_t *type,
                       const uint8_t **val, size_t *len, int *mandatory);

/* Ack Vector states (RFC 4340 §11.4). */
#define UDCCP_CCID_AV_RECEIVED 0
#define UDCCP_CCID_AV_ECN_MARKED 1
#define UDCCP_CCID_AV_NOT_RECEIVED 3

/* Walks the Ack Vector(s) of pkt from the Acknowledgement Number down:
 * cb(hi, lo, state, user) for each run of sequence numbers hi..lo (48-bit,
 * hi first) in one state; cb returns nonzero to stop.  Returns 0 (also
 * when the packet has no Ack Vector or no Acknowledgement Number), or
 * UDCCP_ERR_OPTION if the vectors are inconsistent. */
int udccp_ccid_pkt_ackvec(const udccp_ccid_pkt *pkt,
                          int (*cb)(uint64_t hi, uint64_t lo, uint8_t state,
                                    void *user),
                          void *user);

/* The Elapsed Time option of pkt (RFC 4340 §13.2) in ns; 0 if absent. */
udccp_tstamp udccp_ccid_pkt_elapsed(const udccp_ccid_pkt *pkt);

#ifdef __cplusplus
}
#endif

#endif /* UDCCP_CCID_PUBLIC_H */
