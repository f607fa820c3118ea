/* SPDX-License-Identifier: MIT */
/*
 * An MP-DCCP connection over N subflows (RFC 9897 §2 "Operation
 * Overview", §3.11 "Path usage strategies"): each subflow is a normal
 * udccp connection with its own CCID (§3.8: per-path congestion control);
 * the application queues and reads datagrams here.  Sending: a
 * connection-level queue; each datagram gets the next MP_SEQ (§3.2.5,
 * random IDSN) and goes to the subflow the scheduler picks among those
 * with room (lib/mp_sched.c).  Receiving: datagrams in MP_SEQ order
 * through the reordering buffer (lib/mp_reorder.c), or as they come when
 * reordering is off.  Sans-I/O: the caller moves the subflows' packets
 * and calls udccp_mp_conn_schedule / _on_read around them.
 *
 * Dead paths (§3.11.1 path mobility, §3.11.2): a subflow that sent data
 * and heard nothing back for UDCCP_MP_DEAD_RTTS x its RTT plus
 * UDCCP_MP_DEAD_SLACK is taken out of scheduling; the datagram waiting on
 * it goes to another path with its MP_SEQ; a Sync every
 * UDCCP_MP_PROBE_INTERVAL probes it (RFC 4340 §7.5.4: the peer MUST
 * answer with a SyncAck), and the first packet heard on it brings it
 * back, with its CCID's pending timeout run at once (a back-off of tens
 * of seconds would otherwise keep the path idle long after it returned).
 *
 * Signalling (lib/mp_sig.c): the MP connection owns the signalling
 * state its subflows share: MP_PRIO for a path (udccp_mp_conn_set_prio),
 * MP_ADDADDR / MP_REMOVEADDR (udccp_mp_conn_announce / _unannounce),
 * each repeated until MP_CONFIRM; the peer's MP_PRIO for a path bounds
 * the priority the scheduler gives it (the lower of ours and the peer's:
 * either side may make a costly path standby, §3.2.10).
 *
 * Closing (§3.2.11, §3.2.3, §3.7): udccp_mp_conn_close puts MP_CLOSE with
 * the peer's key on the Close or CloseReq of every subflow; a valid
 * MP_CLOSE from the peer closes every subflow (a CloseReq: each answers
 * with Close + MP_CLOSE); udccp_mp_conn_fast_close sends Reset code 13
 * (Abrupt MP termination) + MP_FAST_CLOSE on every subflow and tears them
 * down; a valid MP_FAST_CLOSE from the peer makes every live subflow
 * answer with Reset 13.  Joins while closing are ignored, joins beyond
 * UDCCP_MP_MAX_SUBFLOWS refused with Reset "Too Busy" (§3.10):
 * udccp_mp_conn_join_verdict tells a resolver which.
 *
 * Not here yet (doc/multipath.md): forming the subflow set with MP_JOIN
 * (the caller adds subflows that each negotiated MP-DCCP), path manager.
 */
#ifndef UDCCP_MP_CONN_H
#define UDCCP_MP_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "mp_reorder.h"
#include "mp_sched.h"
#include "mp_sig.h"
#include "qpolicy.h"
#include "rxq.h"

#define UDCCP_MP_MAX_SUBFLOWS 8 /* §3.10: implementations limit them */

/* A path is dead after sending data without hearing anything for
 * UDCCP_MP_DEAD_RTTS smoothed RTTs plus UDCCP_MP_DEAD_SLACK (delayed
 * acks, RFC 4341 §6.1; an unmeasured RTT counts as 1 s): about 300 ms on
 * a 30 ms path, so that traffic moves within a second (issue 16,
 * acceptance 2). */
#define UDCCP_MP_DEAD_RTTS 3
#define UDCCP_MP_DEAD_SLACK (200 * UDCCP_NS_PER_MS)
/* Sync probes on a dead path: 2 per second (RFC 4340 §7.5.4 allows 8). */
#define UDCCP_MP_PROBE_INTERVAL (500 * UDCCP_NS_PER_MS)
/* MP_RTT (§3.2.7): each path's smoothed RTT, reported once a second on an
 * Ack (data packets have no room left for it next to MP_SEQ). */
#define UDCCP_MP_RTT_INTERVAL UDCCP_NS_PER_S
/* Without reordering, duplicates are recognised among this many of the
 * latest MP_SEQ numbers (a multiple of 64). */
#define UDCCP_MP_SEEN_BITS 1024

typedef struct udccp_mp_sub_stats {
  uint64_t tx_dgrams, tx_bytes; /* datagrams the scheduler gave it */
  uint64_t rx_dgrams, rx_bytes; /* datagrams that came over it */
  uint64_t deaths;              /* times it was found dead */
  uint64_t revivals;            /* times it came back */
  uint64_t probes;              /* Syncs sent while dead */
  uint64_t moved;               /* datagrams taken off it when it died */
} udccp_mp_sub_stats;

/* What the MP connection tracks of a subflow's liveness. */
typedef struct udccp_mp_sub_live {
  udccp_tstamp last_rx;     /* the subflow's t_last_rx when last looked at */
  udccp_tstamp quiet_since; /* data sent, nothing heard since; or NEVER */
  udccp_tstamp next_probe;  /* dead: the next Sync probe */
  uint64_t data_at_rx;      /* its data packets sent when it was last heard */
  udccp_tstamp next_rtt;    /* the next MP_RTT report on it (§3.2.7) */
  uint8_t dead;
} udccp_mp_sub_live;

typedef struct udccp_mp_conn {
  const udccp_mem *mem;
  udccp_conn *sub[UDCCP_MP_MAX_SUBFLOWS]; /* not owned */
  uint8_t prio[UDCCP_MP_MAX_SUBFLOWS];    /* MP_PRIO of each path: 3 */
  udccp_mp_sub_stats st[UDCCP_MP_MAX_SUBFLOWS];
  udccp_mp_sub_live live[UDCCP_MP_MAX_SUBFLOWS];
  size_t n_sub;
  uint8_t sched;          /* enum udccp_mp_sched (udccp.h) */
  size_t rr_last;
  udccp_tstamp sched_ts;  /* the last udccp_mp_conn_schedule's time */
  udccp_sendq q;          /* the application's datagrams, not yet placed */
  uint64_t tx_seq;        /* MP_SEQ of the next datagram, 48 bits */
  int reorder;            /* 1: release in MP_SEQ order */
  udccp_mp_reorder ro;
  udccp_rxq rxq;          /* datagrams ready, when reordering is off, or
                             those that came without MP_SEQ */
  uint8_t *tmp;           /* three datagrams, 3 * max_dgram bytes: two
                             for reading, the third the moved datagram */
  size_t max_dgram;
  size_t moved_len;       /* a datagram taken off a dead path, waiting */
  uint64_t moved_seq;     /* ... for another with its MP_SEQ */
  int have_moved;
  udccp_mp_sig sig;       /* signalling shared by the subflows */
  uint8_t close_state;    /* enum udccp_mp_close_state */
  uint8_t subs_closed;    /* closing: the subflows were told */
  /* Without reordering: MP_SEQ numbers delivered lately (bit k: seen_top
   * - k), so that copies from the redundant scheduler are dropped. */
  uint64_t seen[UDCCP_MP_SEEN_BITS / 64];
  uint64_t seen_top;
  int seen_valid;
  uint64_t rx_dup;        /* copies dropped that way */
} udccp_mp_conn;

enum udccp_mp_close_state {
  UDCCP_MP_CONN_OPEN = 0,
  UDCCP_MP_CONN_CLOSING = 1, /* we sent MP_CLOSE */
  UDCCP_MP_CONN_CLOSED = 2,  /* the peer's MP_CLOSE (Close or CloseReq) */
  UDCCP_MP_CONN_ABORTED = 3  /* MP_FAST_CLOSE, sent or received */
};

/* Sets up mc: a send queue of qlen datagrams of up to max_dgram bytes,
 * idsn the first MP_SEQ (§3.2.5: SHOULD be random), reordering on or
 * off with a bound (udccp_mp_reorder_bound).  Returns 0,
 * UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOMEM. */
int udccp_mp_conn_init(udccp_mp_conn *mc, const udccp_mem *mem,
                       uint32_t qlen, size_t max_dgram, uint64_t idsn,
                       int reorder, udccp_tstamp bound);
void udccp_mp_conn_free(udccp_mp_conn *mc);

/* The reordering window: how far past the next MP_SEQ to release datagrams
 * are held (default 4 x qlen; 1..65536).  Memory follows what is held,
 * not the window (lib/mp_reorder.h).  Returns 0, or
 * UDCCP_ERR_INVALID_ARGUMENT (reordering off, out of range) or
 * UDCCP_ERR_INVALID_STATE (datagrams held). */
int udccp_mp_conn_set_reorder_window(udccp_mp_conn *mc, size_t window);

/* Adds a subflow (an MP-DCCP connection, udccp_mp_active once open) with
 * MP_PRIO prio.  Returns its index, or UDCCP_ERR_INVALID_ARGUMENT (full,
 * or without multipath state). */
int udccp_mp_conn_add(udccp_mp_conn *mc, udccp_conn *sub, uint8_t prio);

/* Sets the MP_PRIO of path i (0..15) for our scheduler and signals it to
 * the peer on that subflow (MP_PRIO, repeated until confirmed, §3.2.10).
 * Returns 0 or UDCCP_ERR_INVALID_ARGUMENT / UDCCP_ERR_NOBUF. */
int udccp_mp_conn_set_prio(udccp_mp_conn *mc, size_t i, uint8_t prio);

/* The priority the scheduler uses for path i: ours, bounded by the
 * peer's MP_PRIO for it if one came. */
uint8_t udccp_mp_conn_prio(const udccp_mp_conn *mc, size_t i);

/* Announces a local address (MP_ADDADDR with MP_HMAC, §3.2.8) under its
 * unique Address ID; port 0: the port of the subflow it goes on.
 * Returns the ID, or UDCCP_ERR_INVALID_STATE (no keyed subflow yet),
 * UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOBUF. */
int udccp_mp_conn_announce(udccp_mp_conn *mc, uint8_t family,
                           const uint8_t *addr, uint16_t port);

/* Withdraws address id (MP_REMOVEADDR, §3.2.9).  Returns 0 or as above. */
int udccp_mp_conn_unannounce(udccp_mp_conn *mc, uint8_t id);

/* Closes the MP-DCCP connection (§3.2.11): once the queued datagrams
 * are on the subflows (udccp_mp_conn_schedule), every subflow's Close or
 * CloseReq carries MP_CLOSE, after its own queue.  Returns 0. */
int udccp_mp_conn_close(udccp_mp_conn *mc, udccp_tstamp ts);

/* Closes it abruptly (§3.2.3): Reset code 13 + MP_FAST_CLOSE on every
 * subflow, torn down at once.  Returns 0. */
int udccp_mp_conn_fast_close(udccp_mp_conn *mc, udccp_tstamp ts);

/* What a resolver answers for a join to this connection: 1 (take it),
 * UDCCP_MP_RESOLVE_CLOSING (§3.2.11) or UDCCP_MP_RESOLVE_BUSY (§3.10). */
int udccp_mp_conn_join_verdict(const udccp_mp_conn *mc);

/* Queues a datagram.  Returns 0, UDCCP_ERR_MSGSIZE or UDCCP_ERR_AGAIN. */
int udccp_mp_conn_queue(udccp_mp_conn *mc, const void *data, size_t len);

/* Looks at every subflow's liveness at ts (dead paths, probes, paths
 * back: see the opening comment), then places queued datagrams on
 * subflows as the scheduler says, each with its MP_SEQ, while a subflow
 * has room: nothing waiting in its own queue, and its CCID lets a packet
 * leave at ts (a full window or a pacing gap is no room).  Call before
 * writing the subflows' packets, again after, and at
 * udccp_mp_conn_expiry().
 * Returns the number placed. */
size_t udccp_mp_conn_schedule(udccp_mp_conn *mc, udccp_tstamp ts);

/* After subflow i read packets: takes its datagrams (into the reordering
 * buffer, or the ready queue). */
void udccp_mp_conn_on_read(udccp_mp_conn *mc, size_t i, udccp_tstamp ts);

/* The next datagram for the application at ts; *seq its MP_SEQ
 * (UINT64_MAX if it came without one).  Returns its length or
 * UDCCP_ERR_AGAIN / UDCCP_ERR_NOBUF. */
udccp_ssize udccp_mp_conn_read(udccp_mp_conn *mc, void *buf, size_t cap,
                               uint64_t *seq, udccp_tstamp ts);

/* The RTT of path i for reordering: the peer's MP_RTT for it if one came
 * (the data sender measures the path, §3.2.7), else our own estimate; 0
 * if neither is known. */
udccp_tstamp udccp_mp_conn_path_rtt(const udccp_mp_conn *mc, size_t i);

/* The receiver's reordering bound for paths whose RTTs span lo..hi:
 * udccp_mp_reorder_bound_var(lo, hi, the largest RTT variation of the
 * open subflows).  The sender does not hold a numbered datagram back on a
 * path that cannot send it (udccp_mp_conn_schedule), so what a gap waits
 * for is the paths' delay difference and their jitter, not a CCID's
 * queue.  Used by io/mp.c and sim/flow_mp.c. */
udccp_tstamp udccp_mp_conn_rx_bound(const udccp_mp_conn *mc,
                                    udccp_tstamp lo, udccp_tstamp hi);

/* 1 if subflow i is taken out of scheduling as dead. */
int udccp_mp_conn_dead(const udccp_mp_conn *mc, size_t i);

/* The earliest time udccp_mp_conn_read may have something new without a
 * packet arriving (a reordering bound running out), or udccp_mp_conn_
 * schedule has something to do (a path to declare dead, a probe, a path
 * whose CCID lets the next waiting datagram go). */
udccp_tstamp udccp_mp_conn_expiry(const udccp_mp_conn *mc);

#endif /* UDCCP_MP_CONN_H */
