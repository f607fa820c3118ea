/* SPDX-License-Identifier: MIT */
/*
 * Two udccp endpoints joined in memory, in virtual time: a client
 * connection and a server side (a listener that creates the server
 * connection, or a connection made with udccp_conn_listen_new()).
 * Each direction has a fixed one-way delay, optional random loss and a
 * drop hook, so tests run handshakes, transfers and closes
 * deterministically.
 *
 *   udccp_pair p;
 *   udccp_pair_init(&p, NULL, NULL, NULL, 1);      // defaults, seed 1
 *   udccp_pair_run_until(&p, udccp_pair_both_open, 10 * UDCCP_NS_PER_S);
 *
 * Direction 0 is client -> server, 1 is server -> client; side 0 is the
 * client, side 1 the server.
 */
#ifndef UDCCP_TESTS_PAIR_H
#define UDCCP_TESTS_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "conn.h"
#include "pktbuild.h"

#define UDCCP_PAIR_QLEN 4096
#define UDCCP_PAIR_MTU 1500
#define UDCCP_PAIR_LOG 8192

typedef struct udccp_pair udccp_pair;

/* Return nonzero to drop the packet (idx: packets offered so far in this
 * direction, from 0). */
typedef int (*udccp_pair_drop_fn)(udccp_pair *p, int dir, const uint8_t *pkt,
                                  size_t len, uint64_t idx, void *ud);
typedef int (*udccp_pair_cond_fn)(udccp_pair *p, void *ud);
/* May rewrite *ecn, the IP ECN codepoint of a packet entering direction
 * dir (a marking router, or a cheat). */
typedef void (*udccp_pair_ecn_fn)(udccp_pair *p, int dir, const uint8_t *pkt,
                                  size_t len, uint8_t *ecn, void *ud);

typedef struct udccp_pair_pkt {
  udccp_tstamp at;
  size_t len;
  uint8_t ecn;               /* IP ECN codepoint the sender chose */
  uint8_t data[UDCCP_PAIR_MTU];
} udccp_pair_pkt;

typedef struct udccp_pair_q {
  udccp_pair_pkt *pkts; /* ring of UDCCP_PAIR_QLEN */
  size_t head, n;
} udccp_pair_q;

struct udccp_pair {
  udccp_conn *c[2];          /* client, server (NULL until created) */
  udccp_listener *lis;       /* server side when not listen_new */
  udccp_path path[2];        /* each side's own view */
  udccp_settings s[2];
  udccp_tstamp now;
  udccp_tstamp delay[2];     /* one-way delay per direction: 10 ms */
  udccp_tstamp spacing[2];   /* serialisation: min gap between arrivals
                                per direction (a bottleneck); 0: none */
  udccp_tstamp last_at[2];
  size_t qmax[2];            /* drop-tail limit of packets in flight per
                                direction; 0: UDCCP_PAIR_QLEN */
  double loss[2];            /* random loss per direction: 0 */
  udccp_pair_drop_fn drop;   /* optional hook */
  void *drop_ud;
  udccp_pair_ecn_fn ecn_fn;  /* optional ECN hook */
  void *ecn_ud;
  udccp_pair_q q[2];
  uint64_t offered[2], dropped[2], delivered[2];
  uint64_t rng;              /* xorshift64* state for loss */
  uint64_t rand_state;       /* for the endpoints' rand callback */
  int last_rv[2];            /* last read_pkt result per receiving side */
  uint64_t n_types[2][11];   /* packets offered per direction and type */
  size_t log_n[2];           /* types offered, in order (first LOG) */
  uint8_t log[2][UDCCP_PAIR_LOG];
  int sg;                    /* 1: sides write with udccp_conn_write_pkt_sg,
                                the payload appended as io's iovec does */
  uint64_t server_conns;     /* connections the listener created */
  uint64_t stateless_replies;
};

/* Settings with a deterministic rand callback bound to p. */
void udccp_pair_settings(udccp_pair *p, udccp_settings *s);

/* Sets up p: client settings cs, server settings ss (NULL: defaults), and
 * listener settings ls (NULL: one Service Code 42, no cookie).  Creates the
 * client connection (Service Code 42) at time 0.  Returns 0 or an error. */
int udccp_pair_init(udccp_pair *p, const udccp_settings *cs,
                    const udccp_settings *ss,
                    const udccp_listener_settings *ls, uint64_t seed);
/* Like udccp_pair_init, the client asking for service_code. */
int udccp_pair_init_sc(udccp_pair *p, const udccp_settings *cs,
                       const udccp_settings *ss,
                       const udccp_listener_settings *ls, uint64_t seed,
                       uint32_t service_code);
void udccp_pair_free(udccp_pair *p);

/* Drains both sides' outgoing packets, advances time to the next event,
 * delivers due packets and runs due timers.  Returns 1, or 0 when nothing
 * will ever happen again. */
int udccp_pair_step(udccp_pair *p);

/* Steps until cond holds (returns 1), or virtual time passes limit after
 * now, or nothing is left to do (returns 0). */
int udccp_pair_run_until(udccp_pair *p, udccp_pair_cond_fn cond, void *ud,
                         udccp_tstamp limit);
/* Steps for the given virtual duration. */
void udccp_pair_run_for(udccp_pair *p, udccp_tstamp duration);

/* Injects a packet as if side `from` sent it (delivered after the delay). */
void udccp_pair_inject(udccp_pair *p, int from, const uint8_t *pkt,
                       size_t len);

/* Conditions. */
int udccp_pair_both_open(udccp_pair *p, void *ud);

/* A pair with the default settings and this seed, run until both ends
 * are OPEN (5 s at most) and then 500 ms more, so that the handshake's
 * acks and confirmations are over.  0 on success, -1 if it did not open
 * (the pair is then freed). */
int udccp_pair_open(udccp_pair *p, uint64_t seed);
int udccp_pair_both_done(udccp_pair *p, void *ud);

/* State of a side, CLOSED when it does not exist. */
int udccp_pair_state(const udccp_pair *p, int side);

/* Number of packets of type offered in direction dir. */
uint64_t udccp_pair_count(const udccp_pair *p, int dir, uint8_t type);

/* Encodes tp as side 1 - to would send it (its path: ports, checksum),
 * feeds it to side `to` at p->now and returns udccp_conn_read_pkt's
 * result.  For packets crafted by a test. */
int udccp_pair_feed(udccp_pair *p, int to, const udccp_tb_pkt *tp);

/* The next packet `side` writes at p->now, decoded (header only); type
 * 0xFF if it has none.  buf (1500 bytes) holds the packet. */
udccp_conn_rxpkt udccp_pair_next_pkt(udccp_pair *p, int side, uint8_t *buf);

/* Side `from` sends datagrams of len bytes (at most UDCCP_PAIR_MTU) for
 * dur of virtual time: one each `every`, or with every 0 as many as its
 * queue takes each millisecond (the CCID is the limit).  The other side
 * reads them all.  Returns the number of datagrams read. */
uint64_t udccp_pair_stream(udccp_pair *p, int from, size_t len,
                           udccp_tstamp every, udccp_tstamp dur);
#endif /* UDCCP_TESTS_PAIR_H */
