/* SPDX-License-Identifier: MIT */
/*
 * Internals of the socket runtime shared by its files: endpoint.c
 * (creation, sockets), ports.c, socks.c (connection slots), tx.c and
 * rx.c (the batches), loop.c (the event loop), sock.c (the socket-like
 * calls) and the rest of io/.
 */
#ifndef UDCCP_IO_ENDPOINT_H
#define UDCCP_IO_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <udccp/udccp.h>

#include "demux.h"

#define UDCCP_IO_BATCH_MAX 64
/* With UDP GSO the transmit batch holds up to UDCCP_IO_TX_GSO_BATCHES
 * times the batch's packets (tx.c udccp_io_tx_slot): one sendmmsg of a
 * few GSO messages, each up to 64 segments.  A batch of 64 packets of
 * 1,200 bytes left as two messages, 53 + 11 (issue 13). */
#define UDCCP_IO_TX_GSO_BATCHES 4
#define UDCCP_IO_TX_PKTS_MAX (UDCCP_IO_TX_GSO_BATCHES * UDCCP_IO_BATCH_MAX)
/* Kernel limits of one UDP_SEGMENT send (gso.c): at most 64 segments, and
 * the super-datagram with its UDP header (8), IP header (40 for IPv6, the
 * larger) and link header (14: Ethernet, which loopback uses too) under
 * the device's gso_max_size (65,536 unless raised). */
#define UDCCP_IO_GSO_MAX_SEGS 64
#define UDCCP_IO_GSO_MAX_BYTES (65536 - 1 - 14 - 40 - 8)
/* A burst reads the sockets after this many data packets (tx.c
 * drain_every: the peer's unread acks must stay within its W'), whatever
 * the batch. */
#define UDCCP_IO_DRAIN_MIN 32
#define UDCCP_IO_DRAIN_MAX 1024
/* ... and where the batch leaves anyway, after this many (tx.c). */
#define UDCCP_IO_DRAIN_SOFT 128
/* recvmmsg rounds per turn of the loop (rx.c, udccp_io_recv). */
#define UDCCP_IO_RX_ROUNDS 8
/* loop.c: a busy endpoint's looks for input ask epoll at least once in
 * this many (the others read the connections' sockets straight away) */
#define UDCCP_IO_LOOK_EPOLL_EVERY 16
/* The most datagrams the kernel coalesces into one UDP_GRO message. */
#define UDCCP_IO_GRO_SEGS_MAX 64
/* Receive buffers hold a 60-byte IPv4 header plus any packet a peer may
 * send on a 1500-byte-MTU path, with room to spare; larger ones are
 * dropped as truncated. */
#define UDCCP_IO_RXBUF 4096
/* A receive slot for the largest datagram: a 65,535-byte IP datagram
 * (its header included, as a raw IPv4 socket reads it). */
#define UDCCP_IO_RXBUF_MAX 65536
/* The transmit batch's packets are packed into one buffer, each taking
 * what it needs (with its payload in its send queue, just its header); a
 * connection is offered its MPS plus the largest DCCP header, at least
 * UDCCP_IO_TXBUF, at most 64 KiB.  The buffer holds a batch of
 * UDCCP_IO_TX_BYTES_MAX bytes of whole packets (a capture's, a
 * subflow's: tx.c), each aligned to 16 bytes, and room for a 64 KiB
 * offer after them. */
#define UDCCP_IO_TXBUF 2048
#define UDCCP_IO_TXPKT_MAX 65536
#define UDCCP_IO_TXARENA                                  \
  ((size_t)UDCCP_IO_TX_BYTES_MAX + UDCCP_IO_TXPKT_MAX + \
   16 * (size_t)UDCCP_IO_TX_PKTS_MAX)
/* Packets are never larger than an IPv4 datagram's 16-bit total length
 * (the route MTU of loopback is 65,536). */
#define UDCCP_IO_MTU_MAX 65535u
/* Routes remembered per endpoint (pmtu.c: source address and MTU per
 * destination), and for how long. */
#define UDCCP_IO_ROUTES 16
#define UDCCP_IO_ROUTE_TTL (10 * UDCCP_NS_PER_S)
#define UDCCP_IO_CTLBUF 128
/* tx.c: at the end of a connection's turn, payloads still in its send
 * queue are copied into the transmit batch if each is at most
 * UDCCP_IO_SG_COPY_PKT bytes and all together UDCCP_IO_SG_COPY_MAX;
 * otherwise the batch leaves */
#define UDCCP_IO_SG_COPY_PKT 2048
#define UDCCP_IO_SG_COPY_MAX 65536
/* tx.c: the batch leaves once its packets carry this many bytes: it may
 * hold 64 packets of 64 KB that their send queues keep, and one
 * sendmmsg of 4 MB overran the 4 MB socket buffers on loopback */
#define UDCCP_IO_TX_BYTES_MAX (256 * 1024)
#define UDCCP_IO_EPHEMERAL_LO 49152u
#define UDCCP_IO_PORT_TABLE 64u /* RFC 6056 §3.3.4's table T */

enum { UDCCP_IO_V4 = 0, UDCCP_IO_V6 = 1 };

struct udccp_sock {
  udccp_endpoint *ep;
  udccp_conn *conn;             /* NULL: a TIMEWAIT tombstone (socks.c,
                                   sock_entomb): closed by the application,
                                   its connection freed, exp its end */
  udccp_path path;              /* local/remote addresses and DCCP ports;
                                   packets go to path's remote address and
                                   remote_udp_port (one per connection:
                                   issue 13 counts its bytes) */
  udccp_listener *lis;          /* the listener that made it; NULL: client */
  size_t idx;                   /* position in ep->socks */
  udccp_sock *acc_next;         /* accept queue link */
  udccp_tstamp exp;             /* cached udccp_conn_get_expiry() */
  size_t heap_idx;              /* position in ep->heap, SIZE_MAX if none */
  int fidx;                     /* UDCCP_IO_V4 / UDCCP_IO_V6: which socket */
  int io_error;                 /* error learnt from ICMP (e.g. REFUSED) */
  uint16_t remote_udp_port;     /* DCCP-UDP; 0 on raw */
  uint8_t in_demux;             /* reachable by incoming packets */
  uint8_t in_acceptq;
  uint8_t app_owned;            /* the application holds this handle */
  uint8_t orphan;               /* closed by the application: free when done */
  uint8_t shut;                 /* udccp_shutdown() was called */
  uint8_t seen_open;            /* reached PARTOPEN/OPEN at some point */
  uint8_t dirty;                /* in ep->dirty */
  uint8_t tx_held;              /* in ep->theld: packets in the transmit
                                   batch point into its send queue, which
                                   holds their bytes (tx.c) */
  /* events.c: udccp_endpoint_events() */
  uint8_t want_write;           /* a send found the queue full */
  uint8_t ev_connected;         /* UDCCP_EV_CONNECTED reported */
  uint8_t ev_dead;              /* UDCCP_EV_CLOSED/RESET reported */
  size_t ready_idx;             /* position in ep->ready, SIZE_MAX if none */
  void *user;                   /* udccp_sock_set_user() */
  struct udccp_mpsock *mp;      /* mp.c: the multipath connection this is
                                   a subflow of, or NULL */
  uint8_t mp_idx;               /* ... its index there */
  uint32_t more_queued;         /* datagrams queued by udccp_send_more()
                                   since its packets were last generated
                                   (sock.c: one generation per batch) */
};

/* A destination's route as the kernel told a probe socket (pmtu.c). */
typedef struct udccp_io_route {
  uint8_t family;    /* 0: empty */
  uint8_t dst[16], src[16];
  uint32_t mtu;      /* IP_MTU / IPV6_MTU, at most UDCCP_IO_MTU_MAX; 0:
                        unknown */
  udccp_tstamp until; /* looked up again after this */
} udccp_io_route;

typedef struct udccp_io_listen {
  uint16_t port;
  int claim_fd;           /* share.c: the DCCP port's claim, or -1 */
  udccp_listener *lis[2]; /* per address family (their header overhead) */
} udccp_io_listen;

struct udccp_endpoint {
  udccp_endpoint_config cfg;
  udccp_settings settings; /* template: cksum_mode and rand filled in */
  udccp_csprng rng;        /* settings.rand's state, seeded once (rng.c) */
  /* Ephemeral ports, RFC 6056 §3.3.4 (double-hash): a secret offset per
   * destination plus a counter per hash bucket, so that connections to
   * one peer take consecutive ports and do not reuse one the peer may
   * still hold in TIMEWAIT (udccp_io_pick_port_for) */
  uint8_t port_key[16];
  uint16_t port_table[UDCCP_IO_PORT_TABLE];
  udccp_mempool *pool;     /* settings.mem unless the caller gave one:
                              connection objects and their on-demand
                              buffers recycled (issue 13) */
  /* pmtu.c: source address and MTU of the routes to recent destinations,
   * so that many connections to one peer cost no probe socket each (a
   * connection starts from its route's MTU, as Linux's DCCP does) */
  udccp_io_route routes[UDCCP_IO_ROUTES];
  size_t rx_want;          /* receive slot size a connection needs: the
                              next receive turn grows rbuf to it */
  int fd[2];               /* UDCCP_IO_V4, UDCCP_IO_V6; -1 if absent */
  int epfd;
  uint16_t udp_port;
  uint8_t local_family;    /* family of cfg.local_host, 0 if NULL */
  uint8_t local_addr[16];
  udccp_demux demux;
  udccp_sock **socks;
  size_t nsocks, capsocks;
  size_t nsocks_fam[2];    /* of them on UDCCP_IO_V4 / _V6 (rx.c: a burst
                              reads only a socket with connections) */
  udccp_io_listen *lis;
  size_t nlis, caplis;
  uint16_t *portref;       /* 65536 counters: DCCP ports this endpoint owns */
  int filter_dirty;        /* raw: the BPF port filter needs rebuilding */
  udccp_sock *acc_head, *acc_tail;
  /* sched.c: timer heap and dirty list, capsched entries each */
  udccp_sock **heap, **dirty;
  size_t nheap, ndirty, capsched;
  /* events.c: application-owned sockets that had a turn since the last
   * udccp_endpoint_events() (capsched entries too) */
  udccp_sock **ready;
  size_t nready;
  uint32_t batch;
  /* receive batch, preallocated */
  struct mmsghdr rmsg[UDCCP_IO_BATCH_MAX];
  struct iovec riov[UDCCP_IO_BATCH_MAX];
  struct sockaddr_storage rname[UDCCP_IO_BATCH_MAX];
  uint8_t rctl[UDCCP_IO_BATCH_MAX][UDCCP_IO_CTLBUF];
  uint8_t *rbuf;
  /* transmit batch, preallocated */
  struct mmsghdr tmsg[UDCCP_IO_TX_PKTS_MAX];
  /* A packet's iovecs: its header (all of it when copied) in tbuf, then
   * its payload in its connection's send queue (zero-copy, tx.c); the
   * batch's packets take adjacent entries, in order */
  struct iovec tiov[2 * UDCCP_IO_TX_PKTS_MAX];
  size_t ntiov;
  uint32_t tlen[UDCCP_IO_TX_PKTS_MAX]; /* bytes of packet i, all iovecs */
  uint32_t tx_epoch;       /* flushes of the batch (tx.c) */
  struct sockaddr_storage tname[UDCCP_IO_TX_PKTS_MAX];
  uint8_t tctl[UDCCP_IO_TX_PKTS_MAX][UDCCP_IO_CTLBUF];
  udccp_sock *towner[UDCCP_IO_TX_PKTS_MAX];
  int tfidx[UDCCP_IO_TX_PKTS_MAX];
  uint8_t tecn[UDCCP_IO_TX_PKTS_MAX]; /* ECN codepoint of each packet */
  uint8_t tsame[UDCCP_IO_TX_PKTS_MAX]; /* packet i continues packet i-1's
                                        burst: the same connection, socket,
                                        address, ancillary data (tx.c;
                                        gso.c joins it without comparing) */
  uint8_t *tbuf;           /* UDCCP_IO_TXARENA bytes, packets packed */
  /* connections whose send queues hold the payloads of packets in the
   * batch until it leaves (tx.c; udccp_sendq_hold) */
  udccp_sock *theld[UDCCP_IO_TX_PKTS_MAX];
  size_t nheld;
  size_t tbytes;           /* bytes of the batch's packets, all iovecs */
  size_t ntx;
  size_t tused;            /* bytes of tbuf the batch's packets take */
  uint32_t gso_seg_max;    /* gso.c: larger packets are sent one by one
                              (a run of them was refused) */
  /* data packets put in the transmit batch since the sockets were last
   * read: a long burst reads in between (tx.c, udccp_io_rx_drain) */
  uint32_t tx_since_rx;
  /* tx.c: the last GSO message the batch's packets make (as gso.c will
   * group them, for bursts): packets, bytes, segment size, and 1 if a
   * shorter packet ended it; tx_due: the batch leaves before the next
   * packet (whole messages, no room for another full one) */
  uint32_t trun_n, trun_bytes, trun_seg;
  uint8_t trun_end, tx_due;
  /* the last clock reading of the loop or of a call that generated
   * packets (udccp_io_ep_now): what a queued datagram is stamped with
   * when it does not need a reading of its own (sock.c) */
  udccp_tstamp now;
  /* gso.c: UDP GSO/GRO (DCCP-UDP only) */
  uint8_t gso;             /* UDP_SEGMENT in use */
  uint8_t gro;             /* UDP_GRO enabled on the sockets */
  size_t rxbufsz;          /* bytes per receive slot */
  uint32_t rslots;         /* receive slots in rbuf (<= batch) */
  size_t rx_per_msg;       /* packets per received message, last call */
  struct mmsghdr gmsg[UDCCP_IO_TX_PKTS_MAX];
  uint8_t gctl[UDCCP_IO_TX_PKTS_MAX][UDCCP_IO_CTLBUF];
  uint16_t gfirst[UDCCP_IO_TX_PKTS_MAX], gcount[UDCCP_IO_TX_PKTS_MAX];
  /* share.c: a shared UDP port (cfg.reuseport) */
  uint32_t group_n, group_k; /* worker group size and our index: 1, 0 */
  int inbox_fd;              /* worker k > 0: what worker 0 relays, or -1 */
  int fwd_fd;                /* unbound, for passing packets on, or -1 */
  udccp_endpoint_stats stats;
  uint32_t looks_direct;   /* loop.c: looks for input without epoll in a row */
  int rx_hot;              /* rx.c: the last recvmmsg took packets */
  struct udccp_pcap *pcap; /* pcap.c: udccp_endpoint_set_pcap(), or NULL */
  uint8_t tos;             /* udccp_endpoint_set_tos(): DSCP, ECN bits 0 */
  udccp_tstamp trim_at;    /* last look at the churn (malloc_trim) */
  uint64_t trim_mark;      /* churn count at that look */
  uint64_t socks_freed;    /* connections freed, ever */
  /* mp.c: the multipath connections (udccp_mpsock) */
  udccp_mpsock **mps;
  size_t nmps, capmps;
};

/* epoll data of share.c's sockets: this bit plus the descriptor (the
 * UDP sockets use their index, 0 or 1). */
#define UDCCP_IO_EV_SHARE 0x80000000u

/* CLOCK_MONOTONIC in nanoseconds. */
udccp_tstamp udccp_io_now(void);

/* udccp_io_now(), kept in ep->now. */
static inline udccp_tstamp udccp_io_ep_now(udccp_endpoint *ep) {
  ep->now = udccp_io_now();
  return ep->now;
}

/* Packets one turn of rounds reads at most: rounds batches, but no more
 * than an application's receive queue holds (a larger transmit batch
 * must not make a turn overrun it: the excess would be dropped there). */
static inline size_t udccp_io_rx_budget(const udccp_endpoint *ep,
                                        int rounds) {
  size_t b = (size_t)rounds * ep->batch;
  if (ep->settings.rx_qlen > 0 && b > ep->settings.rx_qlen) {
    b = ep->settings.rx_qlen;
  }
  return b;
}

/* Fills dest with random bytes (getrandom); the core's udccp_rand_cb. */
void udccp_io_rand(uint8_t *dest, size_t len, void *user_data);

/* rng.c.  Seeds the core's generator (udccp_csprng) from getrandom(2). */
void udccp_io_rng_seed(udccp_csprng *r);

/* Creates a connection slot for conn and makes it reachable by incoming
 * packets.  Returns it, or NULL (out of memory; conn is not freed). */
udccp_sock *udccp_io_sock_add(udccp_endpoint *ep, udccp_conn *conn,
                              const udccp_path *path, uint16_t remote_udp_port,
                              udccp_listener *lis);

/* Removes s from the endpoint and frees it and its connection. */
void udccp_io_sock_free(udccp_sock *s);

/* The application let go of s (udccp_close, udccp_abort): frees it if its
 * connection is done, keeps only a tombstone if it is in TIMEWAIT, else
 * lets it finish (the loop frees it then). */
void udccp_io_sock_orphaned(udccp_sock *s);

/* Generates s's packets now and sends every batched packet.  The _at
 * form takes a clock reading the caller already has. */
void udccp_io_sock_flush(udccp_sock *s);
void udccp_io_sock_flush_at(udccp_sock *s, udccp_tstamp now);

/* Generates s's packets now into the transmit batch, sending only full
 * batches; the loop (or the next flush) sends the rest. */
void udccp_io_sock_gen(udccp_sock *s);
void udccp_io_sock_gen_at(udccp_sock *s, udccp_tstamp now);

/* tx.c.  Sends the transmit batch (GSO runs where on) and empties it. */
void udccp_io_tx_flush(udccp_endpoint *ep);
/* Before s's connection is freed: no packet of the batch may point into
 * its send queue (the batch leaves now if one does). */
void udccp_io_tx_forget(udccp_sock *s);
/* Room for a packet of up to cap bytes in the transmit batch (flushed
 * first when full); udccp_io_tx_commit() takes what the packet used. */
uint8_t *udccp_io_tx_slot(udccp_endpoint *ep, size_t cap);
/* Adds the len-byte packet written at udccp_io_tx_slot() to the batch,
 * to path's remote address and udp_port, from socket fidx with ECN
 * codepoint ecn; owner is its connection's socket (NULL: an answer of
 * the endpoint's own). */
void udccp_io_tx_commit(udccp_endpoint *ep, int fidx, udccp_sock *owner,
                        const udccp_path *path, uint16_t udp_port, size_t len,
                        uint8_t ecn);
/* Lets s's connection write its packets into the transmit batch (full
 * batches leave; a long burst reads the sockets as often as the peer's
 * W' needs: tx.c drain_every). */
void udccp_io_sock_output(udccp_sock *s, udccp_tstamp now);

/* rx.c.  Reads socket fidx: up to rounds batches, within the receive
 * budget.  Returns 0 or UDCCP_ERR_SOCKET. */
int udccp_io_recv(udccp_endpoint *ep, int fidx, udccp_tstamp now, int rounds);
/* Reads both sockets once (one batch each), without waiting and without
 * generating output: the connections that got packets are marked dirty
 * for the loop.  Returns the time after reading. */
udccp_tstamp udccp_io_rx_drain(udccp_endpoint *ep);

/* ports.c.  Rebuilds the raw transport's BPF port filter (clears
 * filter_dirty; nothing to do on DCCP-UDP). */
void udccp_io_filter_update(udccp_endpoint *ep);

/* socks.c.  After s's turn of the loop: its new expiry, and its end
 * (freed, entombed, or unlinked from the demultiplexer). */
void udccp_io_sock_settle(udccp_sock *s);

/* Sends tmsg[from..to) one packet per message (sendmmsg); returns how
 * many the kernel took.  EMSGSIZE updates the path MTU; other failures
 * count in tx_errors (a full buffer loses the packet, as a router would). */
size_t udccp_io_tx_plain(udccp_endpoint *ep, size_t from, size_t to);

/* gso.c.  Turns on UDP_GRO on fd and checks that UDP_SEGMENT exists;
 * sets ep->gso/ep->gro accordingly (DCCP-UDP sockets). */
void udccp_io_offload_setup(udccp_endpoint *ep, int fd);
/* Sends tmsg[0..ntx) with GSO: runs of equal-size packets (the last may
 * be shorter) to one peer with the same ancillary data become one
 * UDP_SEGMENT send.  A GSO send the kernel refuses (EIO, EINVAL,
 * ENOPROTOOPT, EOPNOTSUPP) is resent packet by packet; if those go
 * through, GSO is switched off for the endpoint. */
void udccp_io_gso_flush(udccp_endpoint *ep);
/* Turns UDP_GRO off on fd (errors ignored). */
void udccp_io_gro_off(int fd);
/* The gso_size of a coalesced datagram (UDP_GRO control message), or 0. */
size_t udccp_io_gro_size(struct msghdr *m);

/* Picks an unused local DCCP port in 49152..65535, or returns 0. */
uint16_t udccp_io_pick_port(udccp_endpoint *ep);

/* Picks a local DCCP port in 49152..65535 for a connection to path's
 * remote address and port (remote_udp_port on DCCP-UDP): one no listener
 * of this endpoint holds and no connection to the same remote uses, or 0
 * if every one is taken.  Ports are reused across remotes as TCP does:
 * only the whole tuple must be unique. */
uint16_t udccp_io_pick_port_for(udccp_endpoint *ep, const udccp_path *path,
                                uint16_t remote_udp_port);

/* Marks a DCCP port owned (delta +1) or released (-1) by this endpoint. */
void udccp_io_port_ref(udccp_endpoint *ep, uint16_t port, int delta);

/* Settings for a new connection on socket fidx with the given CCID. */
void udccp_io_conn_settings(const udccp_endpoint *ep, int fidx, uint8_t ccid,
                            udccp_settings *out);

/* Learns the path MTU towards dst (mtu_hint if non-zero, else the route's
 * as the kernel knows it) and applies it to every connection on that
 * path (pmtu.c). */
void udccp_io_route_pmtu(udccp_endpoint *ep, int fidx,
                         const struct sockaddr_storage *dst, socklen_t dlen,
                         uint32_t mtu_hint);

/* Reads socket fidx's IP_RECVERR queue: EMSGSIZE and ICMP Too Big update
 * the PMTU; unreachable during REQUEST marks the connection refused. */
void udccp_io_drain_errqueue(udccp_endpoint *ep, int fidx);

/* The route to (family, addr): source address and MTU, from the cache
 * or a probe socket.  Returns NULL when there is no route. */
const udccp_io_route *udccp_io_route_get(udccp_endpoint *ep, uint8_t family,
                                         const uint8_t *addr,
                                         udccp_tstamp now);

/* A new connection s (connect, or a listener's) starts from its route's
 * MTU instead of the configured default (pmtu.c); the receive slots grow
 * to hold what the route carries. */
void udccp_io_route_mtu_apply(udccp_sock *s, udccp_tstamp now);

/* What one control message of the error queue says (pmtu.c). */
enum udccp_io_errq_kind {
  UDCCP_IO_ERRQ_NONE = 0,       /* not an IP(V6)_RECVERR we act on */
  UDCCP_IO_ERRQ_PMTU = 1,       /* EMSGSIZE, ICMP Too Big: *mtu (0: ask
                                   the route) */
  UDCCP_IO_ERRQ_UNREACHABLE = 2 /* ICMP port or protocol unreachable */
};

/* Classifies control message c of a recvmsg(MSG_ERRQUEUE) (a pure
 * function, fuzzed by fuzz_io): returns an enum udccp_io_errq_kind, and
 * for UDCCP_IO_ERRQ_PMTU the MTU the kernel reported in *mtu.  A message
 * too short for its sock_extended_err is UDCCP_IO_ERRQ_NONE. */
int udccp_io_errq_cmsg(const struct cmsghdr *c, uint32_t *mtu);

/* Hands one DCCP packet to its connection or listener, else answers it.
 * from_peer: it came from a sharing endpoint (share.c), never pass it on
 * again. */
void udccp_io_input(udccp_endpoint *ep, int fidx, udccp_path *path,
                    uint16_t udp_rport, const uint8_t *pkt, size_t len,
                    uint8_t ecn, udccp_tstamp now, int from_peer);

/* share.c.  The worker a packet with these DCCP ports belongs to, of n. */
uint32_t udccp_io_steer(uint16_t sport, uint16_t dport, uint32_t n);
/* Attaches the steering program (n workers) to fd's reuseport group. */
int udccp_io_steer_attach(int fd, uint32_t n);
/* Claims DCCP port dport on a sharing endpoint (*pfd = -1 otherwise).
 * Returns 0, UDCCP_ERR_ADDRINUSE (claimed elsewhere) or UDCCP_ERR_SOCKET. */
int udccp_io_share_claim(udccp_endpoint *ep, uint16_t dport, int *pfd);
/* Binds worker group_k's inbox.  Returns 0 or an error as above. */
int udccp_io_share_inbox(udccp_endpoint *ep);
/* Stops watching and closes a claim or inbox (fd < 0: nothing). */
void udccp_io_share_close(udccp_endpoint *ep, int fd);
/* Passes a packet nobody here takes to the endpoint that claimed its
 * DCCP port.  Returns 1 if it went, 0 if the port is unclaimed. */
int udccp_io_share_forward(udccp_endpoint *ep, const udccp_path *path,
                           uint16_t udp_rport, const uint8_t *pkt, size_t len,
                           uint8_t ecn);
/* Passes a packet to worker's inbox in this endpoint's group. */
void udccp_io_share_relay(udccp_endpoint *ep, uint32_t worker,
                          const udccp_path *path, uint16_t udp_rport,
                          const uint8_t *pkt, size_t len, uint8_t ecn);
/* Reads passed-on packets from a claim or inbox descriptor. */
void udccp_io_share_recv(udccp_endpoint *ep, int fd, udccp_tstamp now);

/* sched.c.  Room for cap connections in the heap and the dirty list. */
int udccp_io_sched_reserve(udccp_endpoint *ep, size_t cap);
void udccp_io_sched_init_sock(udccp_sock *s);
/* Marks s as needing a turn of the loop (output, expiry, reaping). */
void udccp_io_sched_touch(udccp_sock *s);
/* Re-reads s's expiry into the heap. */
void udccp_io_sched_update(udccp_sock *s);
/* Forgets s (before it is freed). */
void udccp_io_sched_remove(udccp_sock *s);
/* Takes out of the heap a connection whose expiry is <= now, or NULL. */
udccp_sock *udccp_io_sched_pop_due(udccp_endpoint *ep, udccp_tstamp now);
/* When the loop must run next: 0 if connections are dirty. */
udccp_tstamp udccp_io_sched_next(const udccp_endpoint *ep);

/* pcap.c.  Writes one DCCP packet ep sends (out = 1) or receives on path
 * into ep->pcap (call only when it is set). */
void udccp_io_capture(udccp_endpoint *ep, int out, const udccp_path *path,
                      uint16_t udp_rport, const uint8_t *pkt, size_t len,
                      uint8_t ecn);

/* events.c.  s (application-owned) had a turn: udccp_endpoint_events()
 * looks at it next time. */
void udccp_io_ev_note(udccp_sock *s);
/* Forgets s (before it is freed). */
void udccp_io_ev_remove(udccp_sock *s);

/* sock.c.  1 if s's connection is over (closed, reset, refused). */
int udccp_io_sock_dead(const udccp_sock *s);
/* Why a dead connection failed (0 while it lives; UDCCP_ERR_CLOSED after
 * a normal close). */
int udccp_io_sock_dead_error(const udccp_sock *s);
/* 1 if udccp_accept() has a connection to return now. */
int udccp_io_accept_pending(udccp_endpoint *ep);

/* Runs the event loop until ready(arg) returns non-zero or deadline (ns,
 * UDCCP_TSTAMP_NEVER) passes.  Returns 0, UDCCP_ERR_AGAIN (deadline) or
 * UDCCP_ERR_SOCKET. */
int udccp_io_wait(udccp_endpoint *ep, udccp_tstamp deadline,
                  int (*ready)(void *arg), void *arg);

/* The deadline timeout_ms from now (-1: never). */
udccp_tstamp udccp_io_deadline(int timeout_ms);

/* socks.c.  Takes s out of the accept queue (if it is in it). */
void udccp_io_acceptq_remove(udccp_endpoint *ep, udccp_sock *s);

/* sock.c.  The source address the routing table picks towards addr. */
int udccp_io_route_source(uint8_t family, const uint8_t *addr,
                          uint8_t local[16]);

/* mp.c: Multipath DCCP (RFC 9897) over the runtime. */
/* A listener of ep resolves joins (MP_JOIN) to ep's connections, if the
 * endpoint's settings offer multipath. */
void udccp_io_mp_listener(udccp_endpoint *ep, udccp_listener *lis);
/* A listener made s: if it is a join of a multipath connection already
 * accepted, attaches it there and returns 1 (keep it out of the accept
 * queue); else 0. */
int udccp_io_mp_adopt(udccp_endpoint *ep, udccp_sock *s);
/* Subflow s read a packet: its datagram goes to the MP connection. */
void udccp_io_mp_on_read(udccp_sock *s, udccp_tstamp now);
/* Before a subflow's packets are written, and when it has written all it
 * had: joins, scheduling, liveness, datagrams the reordering bound
 * released.  Returns the number of datagrams placed on subflows. */
size_t udccp_io_mp_turn(struct udccp_mpsock *m, udccp_tstamp now);
/* The MP connection's next timer (reordering bound, dead-path watch). */
udccp_tstamp udccp_io_mp_expiry(const struct udccp_mpsock *m);
/* Frees every multipath connection of ep (udccp_endpoint_del). */
void udccp_io_mp_free_all(udccp_endpoint *ep);

#endif /* UDCCP_IO_ENDPOINT_H */
