/* SPDX-License-Identifier: MIT */
/*
 * The CCID interface (RFC 4340 §10).  A CCID is two halves: the sender half
 * (HC-Sender) runs on the packets we send, the receiver half (HC-Receiver)
 * on the packets we receive.  Their state lives inside the connection
 * (udccp_ccid_state, no allocation needed; a half may allocate at init
 * through env->mem and free in exit).  A CCID never sleeps: it says when it
 * may send next, and when its timer expires.
 */
#ifndef UDCCP_CCID_H
#define UDCCP_CCID_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "opt.h"

/* What the connection shares with its CCIDs.  The connection keeps the
 * input fields current; the CCIDs read them, and write the output fields. */
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
                              data waits behind it (UDCCP_CCID_MORE_*);
                              RFC 5348 §8.2.1 data-limited intervals */
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
  const udccp_opts *opts;  /* all options of the packet */
} udccp_ccid_pkt;

/* Storage for one half's state.  A connection allocates only the CCID's
 * tx_size / rx_size bytes of it (udccp_ccid_ops), so a half must never
 * touch the union beyond its own struct. */
#define UDCCP_CCID_STATE_SIZE 2048
typedef union udccp_ccid_state {
  uint64_t u64;
  double d;
  void *p;
  uint8_t bytes[UDCCP_CCID_STATE_SIZE];
} udccp_ccid_state;

/* A feature value a CCID requires (RFC 4340 §10.4 "dependencies"): e.g.
 * CCID 2 needs Send Ack Vector = 1 at the HC-Receiver. */
typedef struct udccp_ccid_dep {
  uint8_t feat;
  uint8_t at_receiver; /* 1: located at the HC-Receiver, 0: HC-Sender */
  uint8_t mandatory;
  uint64_t val;
} udccp_ccid_dep;

typedef struct udccp_ccid_ops {
  uint8_t id;
  const char *name;
  const udccp_ccid_dep *deps;
  size_t n_deps;
  /* Bytes of udccp_ccid_state each half uses (a connection allocates no
   * more; issue 13); 0 means sizeof(udccp_ccid_state). */
  size_t tx_size, rx_size;

  /* --- sender half --- */
  int (*tx_init)(udccp_ccid_state *st, udccp_ccid_env *env, udccp_tstamp ts);
  void (*tx_exit)(udccp_ccid_state *st);
  /* Earliest time a data packet may be sent: <= ts means now;
   * UDCCP_TSTAMP_NEVER means "not until an ack arrives". */
  udccp_tstamp (*tx_next_send)(udccp_ccid_state *st, udccp_tstamp ts);
  /* CCVal for the next packet (CCID 3's window counter); may be NULL. */
  uint8_t (*tx_ccval)(udccp_ccid_state *st, udccp_tstamp ts);
  /* Packet seq was sent; is_data: it carried application data of len
   * bytes. */
  void (*tx_on_sent)(udccp_ccid_state *st, uint64_t seq, int is_data,
                     size_t len, udccp_tstamp ts);
  /* A packet from the peer (any with an Acknowledgement Number) reached the
   * sender half: acknowledgement, Ack Vectors, Data Dropped, CCID options.
   * Returns 0, or a negative code (the packet is then dropped; <=
   * UDCCP_ERR_FATAL resets the connection). */
  int (*tx_on_pkt)(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                   udccp_tstamp ts);
  /* Options the sender half puts on outgoing packets; may be NULL. */
  int (*tx_write_opts)(udccp_ccid_state *st, udccp_optbuf *ob, uint8_t type,
                       udccp_tstamp ts);
  udccp_tstamp (*tx_get_expiry)(const udccp_ccid_state *st);
  void (*tx_on_expiry)(udccp_ccid_state *st, udccp_tstamp ts);
  /* Writes the fields the CCID knows (cwnd, x, ...); reads none of info:
   * the caller may pass one with only the fields it reads set. */
  void (*tx_get_info)(const udccp_ccid_state *st, udccp_conn_info *info);

  /* --- receiver half --- */
  int (*rx_init)(udccp_ccid_state *st, udccp_ccid_env *env, udccp_tstamp ts);
  void (*rx_exit)(udccp_ccid_state *st);
  /* A packet arrived (sequence-valid, after option processing).  Returns 1
   * if an acknowledgement should be sent now, 0 if not, negative on error
   * (e.g. UDCCP_ERR_MANDATORY for a Mandatory CCID option it does not know). */
  int (*rx_on_pkt)(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                   udccp_tstamp ts);
  /* Options the receiver half puts on outgoing acks; may be NULL. */
  int (*rx_write_opts)(udccp_ccid_state *st, udccp_optbuf *ob, uint8_t type,
                       udccp_tstamp ts);
  /* Timer (e.g. CCID 3 feedback); on expiry returns 1 if an ack must be
   * sent.  May be NULL. */
  udccp_tstamp (*rx_get_expiry)(const udccp_ccid_state *st);
  int (*rx_on_expiry)(udccp_ccid_state *st, udccp_tstamp ts);
  void (*rx_get_info)(const udccp_ccid_state *st, udccp_conn_info *info);
} udccp_ccid_ops;

/* Returns the CCID with this identifier, or NULL if udccp lacks it. */
const udccp_ccid_ops *udccp_ccid_find(uint8_t id);

/* 1 if udccp implements this CCID. */
int udccp_ccid_supported(uint8_t id);

#endif /* UDCCP_CCID_H */
