/* SPDX-License-Identifier: MIT */
/*
 * MP-DCCP connection-level signalling (RFC 9897, draft-25 sections):
 * address knowledge (MP_ADDADDR §3.2.8, MP_REMOVEADDR §3.2.9), path
 * priorities (MP_PRIO §3.2.10), their reliable delivery (MP_CONFIRM
 * §3.2.1) and path RTTs (MP_RTT §3.2.7).  One object per MP-DCCP
 * connection, shared by its subflows (lib/mp.c calls it for every packet
 * a subflow reads or writes); sans-I/O, no allocation.
 *
 * Sending: a signal is queued (udccp_mp_sig_announce / _remove / _prio),
 * rides on the next non-data packet of a subflow (an Ack the connection
 * sends for it) with an MP_SEQ (§3.2.1 MUST; the connection-level
 * number of the last datagram placed, so that signals and data share one
 * order without opening a gap in the receiver's reordering), and is
 * repeated every rto until an MP_CONFIRM echoes it with an MP_SEQ not
 * older than its first transmission (§3.2.1: the echoed MP_SEQ tells the
 * most recent option from an older one of the same content).  A newer
 * signal for the same dataset (the Address ID; for MP_PRIO the subflow)
 * replaces an unconfirmed one (§3.2.1: "considered irrelevant because the
 * data ... has already been replaced by newer information").
 *
 * Receiving: MP_ADDADDR and MP_REMOVEADDR whose MP_HMAC (directly after
 * them) does not verify are silently ignored (§3.2.8, §3.2.9 MUST), as
 * are those without an MP_SEQ in the packet (they cannot be ordered); an
 * option older (MP_SEQ) than the last applied one of its dataset is
 * outdated and ignored (§3.2.1); broadcast and multicast addresses are
 * ignored (§3.2.8 MUST), so is an MP_ADDADDR that reuses a known Address
 * ID for another address (§3.2.8 MUST).  Every applied option is
 * confirmed: the MP_CONFIRM lists [MP_SEQ, option] pairs, the most recent
 * first (§3.2.1 MUST), options copied verbatim.
 */
#ifndef UDCCP_MP_SIG_H
#define UDCCP_MP_SIG_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "mp_auth.h"
#include "mp_opt.h"
#include "opt.h"

#define UDCCP_MP_SIG_ADDRS 8     /* addresses kept per side */
#define UDCCP_MP_SIG_SUBS 8      /* subflows (UDCCP_MP_MAX_SUBFLOWS) */
#define UDCCP_MP_SIG_OUT 8       /* signals awaiting MP_CONFIRM */
#define UDCCP_MP_SIG_CONFIRMS 8  /* received options waiting to be confirmed */
#define UDCCP_MP_SIG_OPT_MAX 26  /* longest confirmable option (MP_ADDADDR) */
#define UDCCP_MP_SIG_ANY 0xFF    /* an out entry that may use any subflow */

/* What udccp_mp_sig_read() saw (bits). */
enum {
  UDCCP_MP_SIG_EV_CONFIRM = 1u << 0, /* an MP_CONFIRM is owed: send an Ack */
  UDCCP_MP_SIG_EV_PRIO = 1u << 1,    /* the peer set a path's priority */
  UDCCP_MP_SIG_EV_ADDR = 1u << 2,    /* the peer's address list changed */
  UDCCP_MP_SIG_EV_CONFIRMED = 1u << 3, /* one of ours was confirmed */
  UDCCP_MP_SIG_EV_RTT = 1u << 4      /* an MP_RTT came */
};

/* An address: ours (with its ID, §3.2.8) or one the peer announced. */
typedef struct udccp_mp_addr {
  uint8_t state;    /* 0 free; 1 in use; 2 removed (remote: a tombstone
                       keeping the MP_SEQ; local: removal unconfirmed) */
  uint8_t id;       /* Address ID */
  uint8_t family;   /* UDCCP_AF_INET / UDCCP_AF_INET6 */
  uint8_t has_port;
  uint16_t port;
  uint8_t addr[16]; /* network order */
  uint8_t seq_set;
  uint64_t seq;     /* remote: MP_SEQ of the last option applied for it */
} udccp_mp_addr;

/* A signal of ours waiting for its MP_CONFIRM. */
typedef struct udccp_mp_sig_out {
  uint8_t used;
  uint8_t type;     /* UDCCP_MP_ADDADDR, _REMOVEADDR or _PRIO */
  uint8_t sub;      /* MP_PRIO: the subflow it is about (and sent on) */
  uint8_t id;       /* MP_ADDADDR / MP_REMOVEADDR: the Address ID */
  uint8_t len;      /* opt[] bytes */
  uint8_t has_hmac;
  uint8_t sent;
  uint8_t opt[UDCCP_MP_SIG_OPT_MAX]; /* the option as sent */
  uint8_t hmac[UDCCP_MP_HMAC_LEN];   /* its MP_HMAC (ADDADDR, REMOVEADDR) */
  uint64_t seq_first;  /* MP_SEQ of its first transmission */
  udccp_tstamp next_tx;
  uint32_t tx_count;
} udccp_mp_sig_out;

/* A received option to confirm. */
typedef struct udccp_mp_sig_ack {
  uint64_t seq;
  uint8_t len;
  uint8_t opt[UDCCP_MP_SIG_OPT_MAX];
} udccp_mp_sig_ack;

typedef struct udccp_mp_sig_stats {
  uint64_t tx_signals;    /* transmissions, first ones and repeats */
  uint64_t tx_repeats;
  uint64_t tx_confirms;   /* MP_CONFIRM options sent */
  uint64_t rx_confirmed;  /* of ours confirmed */
  uint64_t rx_applied;    /* received options applied */
  uint64_t rx_bad_hmac;   /* ignored: MP_HMAC missing or wrong */
  uint64_t rx_outdated;   /* ignored: older than one applied */
  uint64_t rx_no_seq;     /* ignored: no MP_SEQ in the packet */
  uint64_t rx_bad_addr;   /* ignored: broadcast/multicast, ID reused */
} udccp_mp_sig_stats;

typedef struct udccp_mp_sig {
  udccp_mp_addr local[UDCCP_MP_SIG_ADDRS];
  udccp_mp_addr remote[UDCCP_MP_SIG_ADDRS];
  udccp_mp_sig_out out[UDCCP_MP_SIG_OUT];
  udccp_mp_sig_ack ack[UDCCP_MP_SIG_CONFIRMS]; /* oldest first */
  size_t n_ack;
  uint8_t prio_rx[UDCCP_MP_SIG_SUBS];     /* the peer's MP_PRIO per path */
  uint8_t prio_rx_set[UDCCP_MP_SIG_SUBS];
  uint64_t prio_rx_seq[UDCCP_MP_SIG_SUBS];
  uint32_t rtt_rx_ms[UDCCP_MP_SIG_SUBS];  /* the peer's MP_RTT per path */
  uint8_t rtt_rx_set[UDCCP_MP_SIG_SUBS];
  uint64_t seq_now;   /* MP_SEQ for signals on non-data packets */
  udccp_tstamp rto;   /* repeat interval until confirmed */
  uint8_t next_id;    /* the next local Address ID to try */
  udccp_mp_sig_stats st;
} udccp_mp_sig;

/* Empty state; signals repeat every rto (0: 200 ms). */
void udccp_mp_sig_init(udccp_mp_sig *s, udccp_tstamp rto);

/* §3.2.8: "The Address ID MUST uniquely identify the address for the
 * sender of the option (within the scope of the connection)": returns
 * the ID of this local address, the one it already has if known (also
 * while its removal is unconfirmed: the ID is released only then,
 * §3.2.9), else a fresh ID no other address holds.  family is
 * UDCCP_AF_INET or UDCCP_AF_INET6, addr in network order.  Returns the ID
 * (0..255) or UDCCP_ERR_INVALID_ARGUMENT / UDCCP_ERR_NOBUF (table full). */
int udccp_mp_sig_local_id(udccp_mp_sig *s, uint8_t family,
                          const uint8_t *addr, uint16_t port, int has_port);

/* Queues MP_ADDADDR for local address id (udccp_mp_sig_local_id) with
 * its MP_HMAC (keys: d-key ours, §3.2.6), nonce fresh from the caller's
 * generator.  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT (unknown ID) /
 * UDCCP_ERR_NOBUF (too many unconfirmed signals). */
int udccp_mp_sig_announce(udccp_mp_sig *s, const udccp_mp_keys *keys,
                          uint8_t id, uint32_t nonce);

/* Queues MP_REMOVEADDR for local address id; it replaces an unconfirmed
 * MP_ADDADDR of that ID.  The ID stays taken until confirmed (§3.2.9).
 * Returns as udccp_mp_sig_announce. */
int udccp_mp_sig_remove(udccp_mp_sig *s, const udccp_mp_keys *keys,
                        uint8_t id, uint32_t nonce);

/* Queues MP_PRIO prio (0..15) for the path of subflow sub (sent on that
 * subflow: it sets "the subflow over which the suboption is received",
 * §3.2.10); replaces an unconfirmed MP_PRIO of the same subflow.
 * Returns as udccp_mp_sig_announce. */
int udccp_mp_sig_prio(udccp_mp_sig *s, size_t sub, uint8_t prio);

/* 1 if subflow sub has a signal or MP_CONFIRM to send at ts. */
int udccp_mp_sig_due(const udccp_mp_sig *s, size_t sub, udccp_tstamp ts);

/* The same, split: an MP_PRIO due for subflow sub; an MP_CONFIRM,
 * MP_ADDADDR or MP_REMOVEADDR due (any subflow may carry those). */
int udccp_mp_sig_due_prio(const udccp_mp_sig *s, size_t sub,
                          udccp_tstamp ts);
int udccp_mp_sig_due_shared(const udccp_mp_sig *s, udccp_tstamp ts);

/* The earliest repeat of an unconfirmed signal, or UDCCP_TSTAMP_NEVER. */
udccp_tstamp udccp_mp_sig_expiry(const udccp_mp_sig *s);

/* Writes into ob what subflow sub sends on a non-data packet at ts: the
 * owed MP_CONFIRM, the due signals (each MP_ADDADDR / MP_REMOVEADDR with
 * its MP_HMAC), then one MP_SEQ (seq_now) if anything was written.
 * Returns the number of options written (0: nothing fitted or nothing
 * was due). */
size_t udccp_mp_sig_write(udccp_mp_sig *s, size_t sub, udccp_optbuf *ob,
                          udccp_tstamp ts);

/* Reads the Multipath options of a packet subflow sub received (opts:
 * its options area) with the connection's keys.  Returns UDCCP_MP_SIG_EV_*
 * bits. */
unsigned udccp_mp_sig_read(udccp_mp_sig *s, const udccp_mp_keys *keys,
                           size_t sub, const uint8_t *opts, size_t len);

/* The peer's MP_PRIO for subflow sub, or -1 if it never sent one. */
int udccp_mp_sig_peer_prio(const udccp_mp_sig *s, size_t sub);

/* The peer's announced address with ID id (state 1), or NULL. */
const udccp_mp_addr *udccp_mp_sig_peer_addr(const udccp_mp_sig *s,
                                            uint8_t id);

/* The number of our signals not yet confirmed. */
size_t udccp_mp_sig_unconfirmed(const udccp_mp_sig *s);

#endif /* UDCCP_MP_SIG_H */
