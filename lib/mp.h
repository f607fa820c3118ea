/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP (RFC 9897) on one subflow: the MP_KEY exchange of the
 * first subflow's handshake (§3.3) on top of the Multipath Capable
 * negotiation (feat.c, §3.1), and the fallback to plain DCCP (§3.6).
 * Called by the connection for every packet it writes and every valid
 * packet it reads; state embedded in the connection (no allocation).
 *
 * What a connection does (doc/multipath.md has the whole picture):
 *   client  Request: Change R(MP_CAPABLE, 0) (feat.c) + MP_KEY(CI-A,
 *           plain KeyA); Response: if version 0 was agreed, it MUST carry
 *           MP_KEY(CI-B, one key of a type we offered), else Reset Option
 *           Error (§3.6: "MP_KEY option is malformed"); no agreement:
 *           plain DCCP.
 *   server  Request with Change R(MP_CAPABLE) and an MP_KEY with a plain
 *           key: Confirm L(MP_CAPABLE, 0, 0) + MP_KEY(CI-B, KeyB) on the
 *           Response; without a usable key: Empty Confirm L and plain
 *           DCCP (§3.6: "fall back ... if the MP_KEY Key Type cannot be
 *           negotiated").
 */
#ifndef UDCCP_MP_H
#define UDCCP_MP_H

#include <stdint.h>

#include "feat.h"
#include "mp_auth.h"
#include "opt.h"

enum udccp_mp_phase {
  UDCCP_MP_OFF = 0,      /* multipath not offered, or fallen back */
  UDCCP_MP_OFFERED = 1,  /* our key is ready; waiting for the peer's */
  UDCCP_MP_KEYED = 2     /* version agreed and keys exchanged */
};

/* Finds the keys of the MP-DCCP connection whose local Connection
 * Identifier is ci (a joining subflow names it, §3.2.2): fills *out (its
 * local and remote keys and CIs) and returns 1, or returns 0 (unknown:
 * Reset), UDCCP_MP_RESOLVE_BUSY or UDCCP_MP_RESOLVE_CLOSING. */
typedef int (*udccp_mp_resolve_fn)(void *ud, uint32_t ci, udccp_mp_keys *out);
/* Further answers of a resolver: the connection has as many subflows as
 * it takes (§3.10: the join gets a Reset "Too Busy"), or is closing
 * (§3.2.11: "new subflow requests using MP_JOIN MUST be ignored": no
 * answer at all). */
#define UDCCP_MP_RESOLVE_BUSY (-1)
#define UDCCP_MP_RESOLVE_CLOSING (-2)

/* udccp_mp_read() results besides 0 and UDCCP_ERR_OPTION. */
#define UDCCP_MP_READ_BUSY 1   /* Reset Too Busy (§3.10) */
#define UDCCP_MP_READ_IGNORE 2 /* drop the Request, send nothing */

struct udccp_mp_sig;

typedef struct udccp_mp_state {
  udccp_mp_keys keys;
  void (*rand)(uint8_t *, size_t, void *);
  void *rand_ud;
  udccp_mp_resolve_fn resolve; /* server: joins are looked up here */
  void *resolve_ud;
  uint32_t nonce_local, nonce_remote; /* MP_JOIN nonces, RA / RB */
  uint8_t join;          /* a subflow joining an existing connection */
  uint8_t addr_id_local, addr_id_remote;
  uint8_t hmac_owed;     /* client: MP_HMAC(A) on PARTOPEN packets */
  uint64_t tx_seq;       /* MP_SEQ of the next data packet (§3.2.5) */
  uint64_t rx_dccp_seq;  /* the last data packet read: its DCCP seqno */
  uint64_t rx_seq;       /* ... and its MP_SEQ (if rx_seq_set) */
  uint8_t rx_seq_set;
  uint8_t phase;         /* enum udccp_mp_phase */
  uint8_t have_remote;   /* keys.remote / remote_ci are the peer's */
  struct udccp_mp_sig *sig; /* the MP connection's signalling, or NULL
                               (lib/mp_sig.h; set by udccp_mp_conn_add) */
  uint8_t sig_idx;       /* this subflow's index there */
  uint8_t close_tx;      /* MP_CLOSE on our Close/CloseReq (§3.2.11) */
  uint8_t fast_close_tx; /* MP_FAST_CLOSE on our Reset (§3.2.3) */
  uint8_t close_rx;      /* a valid MP_CLOSE came: on a CloseReq (1) or a
                            Close (2) */
  uint8_t fast_close_rx; /* a valid MP_FAST_CLOSE came on a Reset */
  uint8_t rtt_owed;      /* MP_RTT (rtt_ms) on the next non-data packet */
  uint32_t rtt_ms;
} udccp_mp_state;

/* Makes the multipath state of a connection, *pmp: NULL when multipath
 * is not offered (feat mp_enabled 0: no memory spent on it, issue 13's
 * idle budget); else allocated from mem, with our Connection Identifier
 * and plain-text key drawn from rand (§3.2.4: "a Host-specific CI"; key
 * material per RFC 4086, from the settings' CSPRNG).  The CI is never 0,
 * so that 0 can mean "none".  Returns 0 or UDCCP_ERR_NOMEM. */
int udccp_mp_new(udccp_mp_state **pmp, const udccp_feat_set *fs,
                 void (*rand)(uint8_t *, size_t, void *), void *rand_ud,
                 const udccp_mem *mem);
void udccp_mp_free(udccp_mp_state *mp, const udccp_mem *mem);

/* The functions below take the NULL of a connection without multipath. */

/* Reads the Multipath options of a valid packet of type pkt_type, after
 * its feature options (udccp_feat_read).  Returns 0, UDCCP_ERR_OPTION:
 * the connection must be Reset with code Option Error (a client whose
 * agreed Response lacks a valid MP_KEY, §3.6), UDCCP_MP_READ_BUSY (a
 * join beyond the subflow limit: Reset Too Busy, §3.10) or
 * UDCCP_MP_READ_IGNORE (a join while the connection closes: dropped
 * without an answer, §3.2.11). */
int udccp_mp_read(udccp_mp_state *mp, udccp_feat_set *fs,
                  const udccp_opts *opts, uint8_t pkt_type);

/* Reads the connection-level Multipath options of any valid packet
 * (Data and Reset included) of an MP-DCCP subflow: signals and
 * MP_CONFIRM (lib/mp_sig.c), MP_CLOSE on a Close/CloseReq and
 * MP_FAST_CLOSE on a Reset whose Key Data is our key (§3.2.11, §3.2.3:
 * others are ignored).  Returns 1 if an Ack is owed (an MP_CONFIRM). */
int udccp_mp_read_conn(udccp_mp_state *mp, const udccp_feat_set *fs,
                       const udccp_opts *opts, uint8_t pkt_type);

/* Appends the Multipath options due on a packet of type pkt_type (not a
 * Reset) at ts: MP_KEY on the client's Request and the server's Response,
 * the join's options, MP_CLOSE on Close/CloseReq once closing, and on
 * non-data packets the signals and MP_CONFIRM due (lib/mp_sig.c). */
void udccp_mp_write(udccp_mp_state *mp, const udccp_feat_set *fs,
                    udccp_optbuf *ob, uint8_t pkt_type, int is_data,
                    udccp_tstamp ts);

/* On a Reset being written: MP_FAST_CLOSE with the peer's key if the MP
 * connection closes abruptly (§3.2.3). */
void udccp_mp_write_reset(udccp_mp_state *mp, const udccp_feat_set *fs,
                          udccp_optbuf *ob);

/* §3.2.5: the MP_SEQ the next DCCP-Data/DataAck carries (then the
 * following numbers, until set again).  The MP connection sets it per
 * datagram; a subflow used alone numbers its own, from a random IDSN. */
void udccp_mp_set_tx_seq(udccp_mp_state *mp, uint64_t seq);

/* On a data packet being written: appends MP_SEQ ("MUST be sent with all
 * DCCP-Data and DCCP-DataACK packets", §3.2.5) once MP-DCCP is active. */
void udccp_mp_put_seq(udccp_mp_state *mp, const udccp_feat_set *fs,
                      udccp_optbuf *ob);

/* On a data packet read and queued for the application: notes its DCCP
 * seqno and the MP_SEQ it carried (none: not noted). */
void udccp_mp_note_rx(udccp_mp_state *mp, const udccp_feat_set *fs,
                      const udccp_opts *opts, uint64_t dccp_seq);

/* The MP_SEQ of the datagram with DCCP seqno dccp_seq, if it was the
 * last one read (the MP connection takes datagrams right after each
 * packet).  Returns 1 and sets *mp_seq, else 0. */
int udccp_mp_rx_seq(const udccp_mp_state *mp, uint64_t dccp_seq,
                    uint64_t *mp_seq);

/* Client: makes this (not yet started) connection a subflow joining the
 * MP-DCCP connection whose keys are parent (§3.3, second handshake): its
 * Request carries Change R(MP_CAPABLE) and MP_JOIN(CI-B, addr_id, RA)
 * instead of MP_KEY.  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT (no
 * multipath state). */
int udccp_mp_join_client(udccp_mp_state *mp, const udccp_mp_keys *parent,
                         uint8_t addr_id);

/* Server: joins (MP_JOIN) are resolved with fn (NULL: every join is
 * refused with a Reset, §3.4 "If the CI is unknown, the host MUST send a
 * DCCP-Reset"). */
void udccp_mp_set_resolver(udccp_mp_state *mp, udccp_mp_resolve_fn fn,
                           void *ud);

/* The same for every connection a listener makes from now on. */
struct udccp_listener;
void udccp_listener_set_mp_resolver(struct udccp_listener *lis,
                                    udccp_mp_resolve_fn fn, void *ud);

/* 1 once MP-DCCP is in use on this connection: version agreed and keys
 * exchanged. */
int udccp_mp_active(const udccp_mp_state *mp, const udccp_feat_set *fs);

#endif /* UDCCP_MP_H */
