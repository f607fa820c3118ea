/* SPDX-License-Identifier: MIT */
/*
 * udccp -- a userspace implementation of DCCP (RFC 4340 and friends).
 *
 * This header is the whole public API and its manual.
 *
 * The core is sans-I/O: it never reads a clock, opens a socket, allocates per
 * packet or prints.  The caller passes packets and a nanosecond timestamp in,
 * and pulls packets and the next timer out:
 *
 *   udccp_conn_read_pkt()      -- a packet arrived from the network
 *   udccp_conn_write_pkt()     -- call until it returns 0: packets to send
 *   udccp_conn_get_expiry()    -- when to call udccp_conn_handle_expiry()
 *   udccp_conn_queue_datagram()/udccp_conn_read_datagram() -- application data
 *     (copied; or in place: udccp_conn_reserve_datagram()/..._commit_datagram()
 *     and udccp_conn_peek_datagram()/..._consume_datagram())
 *
 * Conventions
 *   - Functions return 0 (or a length) on success and a negative UDCCP_ERR_*
 *     code on failure.  udccp_strerror() names every code.
 *   - Bad arguments are refused, never dereferenced: every call takes a
 *     NULL object handle (udccp_conn, udccp_listener, udccp_endpoint,
 *     udccp_sock, udccp_mpsock, udccp_mempool, udccp_pcap, the CCID
 *     calls' packets), a NULL struct or out-pointer it would fill or
 *     read, and a NULL data pointer with a length > 0, and then
 *       - a call returning an error code returns
 *         UDCCP_ERR_INVALID_ARGUMENT (but UDCCP_ERR_NOBUF for a NULL
 *         destination of a packet writer, as for one too small);
 *       - a getter returns its "none": UDCCP_ERR_INVALID_ARGUMENT where it
 *         returns an int (state, error, reset code, is_done, fd,
 *         timeout_ms), 0 where a size, port or count, NULL where a
 *         pointer, UDCCP_TSTAMP_NEVER for udccp_conn_get_expiry();
 *       - a call that fills a struct (get_info, get_stats, get_settings)
 *         zeroes it for a NULL handle, and does nothing for a NULL struct;
 *       - any other call returning void does nothing (del, abort, ...).
 *     Data pointers may be NULL with a length of 0.  tests/test_api_args.c
 *     calls every function so.
 *   - Codes <= UDCCP_ERR_FATAL (-500) mean the connection is dead (it is in
 *     state CLOSED; udccp_conn_get_reset_code() tells why).  Other negative
 *     codes concern one call or one packet only.
 *   - Times are udccp_tstamp: nanoseconds on a monotonic clock chosen by the
 *     caller; UDCCP_TSTAMP_NEVER means "never".  Timers are ts plus an
 *     interval of the settings (minutes with the defaults), so ts must stay
 *     that far below UINT64_MAX -- below 2^63, 292 years of nanoseconds
 *     from the clock's zero, is safe: nearer, a timer wraps and fires at
 *     every call.  A ts that goes backwards a little (two threads'
 *     readings) or jumps far ahead (a suspended host) is taken as it
 *     comes: the connection goes on, and timers that came due run.
 *   - Sequence numbers are 48-bit, carried in uint64_t.
 *   - Rates are in bytes per second unless a name ends in _bps (bits/s).
 *   - Nothing here clashes with <linux/dccp.h>: every name starts with udccp_
 *     or UDCCP_.
 */
#ifndef UDCCP_H
#define UDCCP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version: set here and nowhere else (CMakeLists.txt reads it; the
 * SONAME policy is in doc/abi.md, the history in CHANGELOG.md). */
#define UDCCP_VERSION "0.1.0"

typedef uint64_t udccp_tstamp;
typedef ptrdiff_t udccp_ssize;

#define UDCCP_TSTAMP_NEVER UINT64_MAX
#define UDCCP_NS_PER_MS 1000000ULL
#define UDCCP_NS_PER_S 1000000000ULL

/* ---------------------------------------------------------------- errors */

enum udccp_error {
  UDCCP_ERR_INVALID_ARGUMENT = -201, /* a parameter is out of range or NULL */
  UDCCP_ERR_NOBUF = -202,            /* the destination buffer is too small */
  UDCCP_ERR_PROTO = -203,            /* malformed packet (header) */
  UDCCP_ERR_OPTION = -204,           /* malformed option (RFC 4340 §5.8) */
  UDCCP_ERR_MANDATORY = -205,        /* Mandatory option not understood */
  UDCCP_ERR_CHECKSUM = -206,         /* header or data checksum mismatch */
  UDCCP_ERR_SEQ = -207,              /* sequence-invalid packet (§7.5.3) */
  UDCCP_ERR_INVALID_STATE = -208,    /* call not allowed in this state */
  UDCCP_ERR_AGAIN = -209,            /* nothing to read / queue full: retry */
  UDCCP_ERR_MSGSIZE = -210,          /* datagram larger than the MPS */
  UDCCP_ERR_DROPPED = -211,          /* packet ignored by the rules (counted) */
  UDCCP_ERR_SERVICE = -212,          /* no listener for this Service Code */
  UDCCP_ERR_COOKIE = -213,           /* Init Cookie invalid or expired */
  UDCCP_ERR_FATAL = -500,            /* below this: the connection is dead */
  UDCCP_ERR_NOMEM = -501,            /* allocation failed */
  UDCCP_ERR_RESET = -502,            /* connection reset (see reset code) */
  UDCCP_ERR_REFUSED = -503,          /* peer refused (Bad Service Code, etc.) */
  UDCCP_ERR_TIMEOUT = -504,          /* peer gave no answer in time */
  UDCCP_ERR_CLOSED = -505            /* connection closed normally */
};

/* Returns a static, human-readable description of an UDCCP_ERR_* code. */
const char *udccp_strerror(int err);

/* ----------------------------------------------------- protocol numbers */

/* Packet types, RFC 4340 §5.1, plus DCCP-Listen of RFC 5596 §2. */
enum udccp_pkt_type {
  UDCCP_PKT_REQUEST = 0,
  UDCCP_PKT_RESPONSE = 1,
  UDCCP_PKT_DATA = 2,
  UDCCP_PKT_ACK = 3,
  UDCCP_PKT_DATAACK = 4,
  UDCCP_PKT_CLOSEREQ = 5,
  UDCCP_PKT_CLOSE = 6,
  UDCCP_PKT_RESET = 7,
  UDCCP_PKT_SYNC = 8,
  UDCCP_PKT_SYNCACK = 9,
  UDCCP_PKT_LISTEN = 10
};

/* Reset codes, RFC 4340 §5.6, and RFC 9897 §7.4 (13). */
enum udccp_reset_code {
  UDCCP_RESET_UNSPECIFIED = 0,
  UDCCP_RESET_CLOSED = 1,
  UDCCP_RESET_ABORTED = 2,
  UDCCP_RESET_NO_CONNECTION = 3,
  UDCCP_RESET_PACKET_ERROR = 4,
  UDCCP_RESET_OPTION_ERROR = 5,
  UDCCP_RESET_MANDATORY_ERROR = 6,
  UDCCP_RESET_CONNECTION_REFUSED = 7,
  UDCCP_RESET_BAD_SERVICE_CODE = 8,
  UDCCP_RESET_TOO_BUSY = 9,
  UDCCP_RESET_BAD_INIT_COOKIE = 10,
  UDCCP_RESET_AGGRESSION_PENALTY = 11,
  /* 12: unassigned.  13, "Abrupt MP termination" (RFC 9897 §3.2.3,
   * §7.4): a Multipath DCCP connection closed abruptly with MP_FAST_CLOSE;
   * it comes on every subflow of the connection, and every subflow of the
   * peer answers with one (udccp_mpsock / MP connection only). */
  UDCCP_RESET_MP_ABRUPT = 13,
  /* 128..255: CCID-specific (§5.6).  UDCCP_RESET_NONE shares its value
   * with code 255: udccp_conn_info.reset_from tells "no Reset" (0) from
   * a Reset with code 255. */
  UDCCP_RESET_NONE = 255 /* no Reset was sent or received */
};

/* Who sent the Reset a connection's reset code names
 * (udccp_conn_info.reset_from). */
enum udccp_reset_from {
  UDCCP_RESET_FROM_NONE = 0,  /* no Reset: the code is UDCCP_RESET_NONE */
  UDCCP_RESET_FROM_PEER = 1,  /* received from the peer */
  UDCCP_RESET_FROM_LOCAL = 2  /* sent by this end (abort, error, timeout) */
};

/* Returns a static name for a reset code ("Bad Service Code", ...). */
const char *udccp_reset_code_str(int code);

/* Connection states, RFC 4340 §4.3 (LISTEN also covers RFC 5596). */
enum udccp_state {
  UDCCP_STATE_CLOSED = 0,
  UDCCP_STATE_LISTEN,
  UDCCP_STATE_REQUEST,
  UDCCP_STATE_RESPOND,
  UDCCP_STATE_PARTOPEN,
  UDCCP_STATE_OPEN,
  UDCCP_STATE_CLOSEREQ,
  UDCCP_STATE_CLOSING,
  UDCCP_STATE_TIMEWAIT
};

/* Returns a static name for a state ("OPEN", ...). */
const char *udccp_state_str(int state);

/* Service Code meaning "no service" (RFC 5595 §2.2). */
#define UDCCP_SERVICE_CODE_NONE 0u
/* Service Code that is never valid (RFC 4340 §8.1.2). */
#define UDCCP_SERVICE_CODE_INVALID 4294967295u

/* Reads a Service Code as people write it (RFC 5595 §2.1): up to four
 * ASCII characters 32..126, big-endian and zero-padded ("CHAT" is
 * 0x43484154, "CAT" 0x43415400), or a number (decimal, 0x hex; a string
 * that starts with a digit and parses whole as a number is one).  Returns
 * 0 and sets *code, or UDCCP_ERR_INVALID_ARGUMENT (NULL or empty, more
 * than 4 characters, a character outside 32..126, or 4294967295, never
 * valid by RFC 4340 §8.1.2). */
int udccp_service_code_parse(const char *s, uint32_t *code);

/* Room udccp_service_code_format() needs: 10 digits and the NUL. */
#define UDCCP_SERVICE_CODE_STRLEN 11

/* Writes code as udccp_service_code_parse() reads it back: its characters
 * when they are printable ASCII (then only zero bytes) and the first is
 * not a digit, else the decimal number.  Truncated to cap - 1 characters
 * (cap >= UDCCP_SERVICE_CODE_STRLEN never truncates).  Returns buf, or ""
 * when buf is NULL or cap 0. */
const char *udccp_service_code_format(uint32_t code, char *buf, size_t cap);

/* ----------------------------------------------------------- settings */

/* Allocator hooks; every object allocates through the ones it was given. */
typedef struct udccp_mem {
  void *user_data;
  void *(*malloc)(size_t size, void *user_data);
  void (*free)(void *ptr, void *user_data);
  void *(*calloc)(size_t nmemb, size_t size, void *user_data);
  void *(*realloc)(void *ptr, size_t size, void *user_data);
} udccp_mem;

/* Returns allocator hooks that call the C library's malloc family. */
const udccp_mem *udccp_mem_default(void);

/* An endpoint memory pool (issue 13): allocator hooks that keep freed
 * blocks on per-size free lists (sizes rounded up by at most 12.5 %, plus
 * an 8-byte header; blocks above 64 KiB are not pooled), so that
 * connection objects, and the buffers connections allocate on demand and
 * release when idle, are reused without reaching the underlying allocator
 * in steady state.  At most max_cached bytes stay on the lists (memory
 * returns after a flood); udccp_mempool_trim() gives them all back.
 * Blocks are 8-byte aligned.  Not thread-safe: one pool per endpoint (or
 * thread), shared by its connections and listeners via
 * udccp_settings.mem = udccp_mempool_mem(pool). */
typedef struct udccp_mempool udccp_mempool;

typedef struct udccp_mempool_stats {
  size_t in_use;   /* bytes handed out (class sizes, headers included) */
  size_t cached;   /* bytes on the free lists */
  uint64_t hits;   /* allocations served from a free list */
  uint64_t misses; /* allocations that reached the underlying allocator */
  uint64_t reserved[4];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_mempool_stats;

/* Creates a pool over mem (NULL: udccp_mem_default()), caching at most
 * max_cached bytes (0: 1 MiB).  Returns 0, UDCCP_ERR_INVALID_ARGUMENT
 * (ppool NULL) or UDCCP_ERR_NOMEM. */
int udccp_mempool_new(udccp_mempool **ppool, const udccp_mem *mem,
                      size_t max_cached);

/* Frees the pool and its cached blocks.  Every block it handed out must
 * have been freed first.  NULL is ignored. */
void udccp_mempool_del(udccp_mempool *pool);

/* The pool's allocator hooks (valid until udccp_mempool_del). */
const udccp_mem *udccp_mempool_mem(udccp_mempool *pool);

/* Returns every cached block to the underlying allocator. */
void udccp_mempool_trim(udccp_mempool *pool);

void udccp_mempool_get_stats(const udccp_mempool *pool,
                             udccp_mempool_stats *st);

/* Fills dest with destlen random bytes (initial sequence numbers, cookies).
 * The library has no randomness of its own: the caller supplies it. */
typedef void (*udccp_rand_cb)(uint8_t *dest, size_t destlen, void *user_data);

/* A seeded CSPRNG that fits udccp_rand_cb (issue 13: one getrandom per
 * endpoint, not one per connection).  SipHash-2-4 in counter mode with a
 * key replaced after every fill, so that captured state does not reveal
 * earlier outputs; its outputs are unpredictable without the seed, as
 * initial sequence numbers must be (RFC 4340 §7.2).  The caller seeds it
 * once with 16 truly random bytes and sets
 *   settings.rand = udccp_csprng_fill; settings.rand_user_data = &rng;
 * Not thread-safe: one per endpoint (or thread). */
typedef struct udccp_csprng {
  uint8_t key[16];
  uint64_t ctr;
} udccp_csprng;

void udccp_csprng_seed(udccp_csprng *rng, const uint8_t seed[16]);

/* Fills dest with destlen bytes; user_data is the udccp_csprng (NULL: dest
 * is zeroed -- never random; udccp_settings_check() refuses settings whose
 * rand is udccp_csprng_fill with rand_user_data NULL). */
void udccp_csprng_fill(uint8_t *dest, size_t destlen, void *user_data);

/* How the DCCP checksum is handled (RFC 4340 §9, RFC 6773 §3.3). */
enum udccp_cksum_mode {
  UDCCP_CKSUM_FULL = 0, /* native DCCP: pseudo-header checksum with CsCov */
  UDCCP_CKSUM_NONE = 1  /* DCCP-UDP: sent as zero, not checked on receipt */
};

/* Send queue policies, as Linux's DCCP_SOCKOPT_QPOLICY_ID. */
enum udccp_qpolicy {
  UDCCP_QPOLICY_SIMPLE = 0, /* bounded FIFO: refuse (UDCCP_ERR_AGAIN) when full */
  UDCCP_QPOLICY_PRIO = 1    /* highest priority first; drop the lowest when full */
};

typedef struct udccp_settings {
  const udccp_mem *mem;       /* NULL: udccp_mem_default() */
  udccp_rand_cb rand;         /* required */
  void *rand_user_data;
  uint8_t ccid;               /* CCID for the half-connection we send on: 2 */
  uint8_t rx_ccid;            /* CCID we ask the peer to send with; 0 = same */
  uint8_t cksum_mode;         /* enum udccp_cksum_mode: FULL */
  uint8_t send_cscov;         /* CsCov on packets we send, 0..15: 0 = all */
  uint8_t min_cscov;          /* Minimum Checksum Coverage we require, 0..15 */
  uint8_t ecn_capable;        /* 1: offer ECN (feature ECN Incapable = 0) */
  uint8_t send_ndp_count;     /* 1: ask the peer to send NDP Count */
  uint8_t allow_short_seqnos; /* 1: accept X=0 packets from the peer */
  uint8_t check_data_checksum;/* 1: ask the peer to check our Data Checksums
                                (Mandatory Change R of feature 9, §9.3.1) */
  uint8_t server_timewait;    /* server: hold TIMEWAIT (send CloseReq-less Close) */
  uint8_t qpolicy;            /* enum udccp_qpolicy: SIMPLE */
  uint32_t tx_qlen;           /* send queue length in datagrams: 32.  Its
                                memory follows the bytes queued (about
                                twice the most queued lately, plus 40 B
                                a datagram), not tx_qlen x MPS; given
                                back 100-200 ms after the queue drains */
  uint32_t rx_qlen;           /* receive queue length in datagrams: 256 */
  uint64_t seq_window;        /* local Sequence Window feature (§7.5.2):
                                1000, asked for in the handshake */
  uint16_t ack_ratio;         /* Ack Ratio we ask for (CCID 2): 2 */
  uint32_t pmtu;              /* path MTU in bytes incl. IP header: 1500 */
  uint32_t hdr_overhead;      /* bytes below DCCP (IP, UDP): 20 */
  udccp_tstamp request_rto;   /* first Request retransmission: 1 s (§8.1.1) */
  udccp_tstamp request_timeout; /* give up on a Request after: 64 s */
  udccp_tstamp close_timeout; /* give up on Close/CloseReq after: 64 s */
  udccp_tstamp timewait;      /* TIMEWAIT length, 2 MSL: 2 x 30 s = 60 s */
  udccp_tstamp partopen_timeout; /* PARTOPEN, and a server's RESPOND, give up
                                    after: 8 minutes (§8.1.5, §8.1.3) */
  udccp_tstamp idle_timeout;  /* reset after this long with no packet; 0 = off */
  /* Keepalive (DCCP has none of its own): when an OPEN connection has
   * received no valid packet for keepalive_idle, it probes the peer with a
   * DCCP-Sync, whose SyncAck (or any other valid packet) proves the peer
   * alive (RFC 4340 §7.5.4) and restarts the idle clock.  Unanswered, a
   * probe is repeated every keepalive_interval; keepalive_interval after
   * the keepalive_probes-th, the connection ends: it sends a Reset with
   * code Aborted (UDCCP_RESET_ABORTED) and handle_expiry returns
   * UDCCP_ERR_TIMEOUT (the connection's error from then on).  A silent
   * peer is thus reaped at most
   *   keepalive_idle + keepalive_probes * keepalive_interval
   * after the last packet it sent (defaults: 60 + 3 x 10 = 90 s).  Any
   * valid packet from the peer (data, ack, Sync, SyncAck) resets the
   * clock; our own sending does not (a peer that never answers is dead
   * whatever we send it). */
  udccp_tstamp keepalive_idle;     /* 60 s; 0 = keepalive off */
  udccp_tstamp keepalive_interval; /* between probes: 10 s (> 0 if on) */
  uint32_t keepalive_probes;       /* unanswered probes before the end: 3
                                      (1..255 if on) */
  /* 1: offer Multipath DCCP (RFC 9897): the client asks for feature
   * Multipath Capable (10) and sends MP_KEY in its Request, a server
   * agrees to it when the client asks; 0 (the default): plain DCCP, and
   * feature 10 is unknown to this endpoint.  A peer that does not agree
   * leaves a plain DCCP connection (RFC 9897 §3.6 fallback).  What is
   * implemented so far: doc/multipath.md. */
  uint8_t multipath;
  /* 1: with CCID 3 or 4 on the half-connection we send on, ask the peer's
   * receiver to send Ack Vectors as well (a non-mandatory Change R(Send Ack
   * Vector, 1), RFC 4340 §11.5; RFC 4342 §5: "Ack Vector may be useful for
   * applications that need to determine exactly which packets were
   * lost"), and count in udccp_conn_info.pkts_lost each data packet they
   * report not received.  Costs the receiver's Ack Vector (a few bytes
   * per feedback packet) and our acks of its acks (§11.4.2).  A peer that
   * declines (Linux's CCID 3 may) leaves pkts_lost at 0.  Ignored with
   * CCID 2, which always has them.  Default 0. */
  uint8_t ack_vectors;
  uint8_t reserved_bytes[6]; /* 0 */
  uint64_t reserved[3];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_settings;

/* The largest path MTU a connection takes (udccp_settings.pmtu,
 * udccp_conn_set_pmtu()): an IPv6 header and the largest payload its
 * 16-bit length field allows (RFC 8200 §3; no jumbograms).  Loopback's
 * 65536 fits. */
#define UDCCP_PMTU_MAX 65575u

/* Fills *s with the defaults named above (rand must still be set). */
void udccp_settings_default(udccp_settings *s);

/* Returns 0 if *s is usable for a connection (rand set, fields within
 * their ranges: CsCov <= 15, Sequence Window 32 .. 2^46 - 1 (RFC 4340
 * §7.5.2), queue lengths and timers non-zero, PMTU room for a packet --
 * pmtu - hdr_overhead >= 128 -- and at most UDCCP_PMTU_MAX; rand
 * udccp_csprng_fill only with its generator in rand_user_data), else
 * UDCCP_ERR_INVALID_ARGUMENT.  The CCIDs are checked when a
 * connection is made (the library may lack one). */
int udccp_settings_check(const udccp_settings *s);

/* Addresses and DCCP ports of a connection, as seen from this endpoint. */
enum udccp_family { UDCCP_AF_INET = 4, UDCCP_AF_INET6 = 6 };

typedef struct udccp_path {
  uint8_t family;            /* enum udccp_family */
  uint8_t local_addr[16];    /* IPv4 in the first 4 bytes, network order */
  uint8_t remote_addr[16];
  uint16_t local_port;       /* DCCP ports, host byte order */
  uint16_t remote_port;
  uint16_t encap_port;       /* DCCP-UDP (RFC 6773): the remote UDP port,
                                host byte order; 0 for native DCCP.  Init
                                Cookies are bound to it. */
} udccp_path;

/* ------------------------------------------------------------ packets */

/* A packet's basic facts, read without any state: for demultiplexing. */
typedef struct udccp_pkt_peek {
  uint16_t sport, dport; /* host byte order */
  uint8_t type;          /* enum udccp_pkt_type */
  uint8_t x;             /* 1: 48-bit sequence numbers */
  uint64_t seq;          /* 48 bits if x, else the low 24 bits */
  uint32_t service_code; /* Request, Response and Listen only */
} udccp_pkt_peek;

/* Reads the generic header of pkt.  Returns 0, or UDCCP_ERR_PROTO if the
 * packet is too short or its header is malformed. */
int udccp_pkt_peek_hdr(udccp_pkt_peek *out, const uint8_t *pkt, size_t len);

/* Verifies the DCCP checksum of a native packet received on path (the
 * path's remote address is the packet's source).  Returns 0 or
 * UDCCP_ERR_CHECKSUM / UDCCP_ERR_PROTO. */
int udccp_pkt_verify_cksum(const uint8_t *pkt, size_t len, const udccp_path *path);

/* Writes into dst the Reset that answers pkt when no connection exists for
 * it (RFC 4340 §8.5 step 1: Reset code No Connection, unless pkt is itself a
 * Reset).  path is the path as seen from this endpoint.  Returns the Reset's
 * length, 0 if no Reset must be sent, or UDCCP_ERR_NOBUF / UDCCP_ERR_PROTO. */
udccp_ssize udccp_pkt_write_reset_reply(uint8_t *dst, size_t cap,
                                        const uint8_t *pkt, size_t len,
                                        const udccp_path *path,
                                        uint8_t cksum_mode, uint8_t code);

/* ------------------------------------------------------- connections */

typedef struct udccp_conn udccp_conn;

/* Creates a client connection in state REQUEST towards path's remote end,
 * asking for service_code.  Its first write_pkt call returns the Request.
 * Returns 0 and sets *pconn, or UDCCP_ERR_INVALID_ARGUMENT (bad settings,
 * service_code UDCCP_SERVICE_CODE_INVALID) or UDCCP_ERR_NOMEM.
 * The caller owns *pconn and frees it with udccp_conn_del(). */
int udccp_conn_client_new(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          udccp_tstamp ts);

/* Creates a server connection in state LISTEN for one expected client at
 * path's remote address (RFC 5596): it sends DCCP-Listen packets so that a
 * NAT or firewall in front of the server lets the client's Request in, and
 * then accepts that Request.  Returns as udccp_conn_client_new(). */
int udccp_conn_listen_new(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          udccp_tstamp ts);

/* Frees the connection and everything it holds.  NULL is ignored. */
void udccp_conn_del(udccp_conn *conn);

/* Processes one received DCCP packet (without IP/UDP header) through the
 * RFC 4340 §8.5 steps.  ecn is the packet's IP ECN codepoint (0..3; only
 * its two low bits are read, so the TOS byte may be passed whole).
 * Returns 0 if processed; a non-fatal negative code if the packet was
 * dropped (counted in udccp_conn_info); or a fatal code (<= UDCCP_ERR_FATAL)
 * if the connection is now dead. */
int udccp_conn_read_pkt(udccp_conn *conn, const uint8_t *pkt, size_t len,
                        uint8_t ecn, udccp_tstamp ts);

/* Writes the next packet to send into dst.  Returns its length, 0 if nothing
 * may be sent now (see udccp_conn_get_expiry), UDCCP_ERR_NOBUF if dst is
 * NULL or cap is smaller than the largest packet the connection may write
 * -- its path MTU less hdr_overhead (settings; udccp_conn_set_pmtu()), i.e.
 * the MPS plus room for the header and options: 1480 bytes with the
 * defaults, where the MPS is 1416 -- or a fatal code.  If pecn is not
 * NULL, it receives the ECN codepoint to set on the packet (when one is
 * written). */
udccp_ssize udccp_conn_write_pkt(udccp_conn *conn, uint8_t *dst, size_t cap,
                                 uint8_t *pecn, udccp_tstamp ts);

/* As udccp_conn_write_pkt() (the same packets, decisions and errors; cap
 * is judged as there: at least the path MTU less hdr_overhead), but a
 * data packet's payload is not copied (scatter-gather write, issue 13):
 * dst receives the header and options, whose length is returned, and
 * *payload / *payload_len the datagram's bytes where they lie in the
 * send queue.  The packet on the wire is dst's n bytes followed by those.  *payload_len is 0 for a
 * packet without data, and for every packet of a connection whose
 * checksum covers the payload (UDCCP_CKSUM_FULL, raw IP): those are
 * written whole into dst.  The payload's bytes stay valid until the next
 * call on conn other than udccp_conn_write_pkt() and
 * udccp_conn_write_pkt_sg(): read, queue, reserve, expiry, trim, close
 * or delete may reuse or free them, so send (or copy) first.  pecn must
 * not be NULL (UDCCP_ERR_INVALID_ARGUMENT): it receives the packet's ECN
 * codepoint, as udccp_conn_write_pkt()'s does, 0 when nothing is
 * written. */
udccp_ssize udccp_conn_write_pkt_sg(udccp_conn *conn, uint8_t *dst,
                                    size_t cap, const uint8_t **payload,
                                    size_t *payload_len, uint8_t *pecn,
                                    udccp_tstamp ts);

/* Returns when udccp_conn_handle_expiry() must be called next (a timer, or
 * the time the CCID allows the next packet), or UDCCP_TSTAMP_NEVER. */
udccp_tstamp udccp_conn_get_expiry(const udccp_conn *conn);

/* Runs the timers that expired at ts.  Returns 0, or a fatal code if the
 * connection gave up (UDCCP_ERR_TIMEOUT) or finished closing. */
int udccp_conn_handle_expiry(udccp_conn *conn, udccp_tstamp ts);

/* Queues one datagram for sending, with priority prio (higher is more
 * important; used by UDCCP_QPOLICY_PRIO).  The data is copied into the
 * send queue, which holds what is queued, not a slot per MPS: it grows
 * when the datagrams queued need more room than it has, without
 * allocating per datagram once grown, and shrinks back once drained.
 * Returns 0, UDCCP_ERR_MSGSIZE (len > current MPS payload),
 * UDCCP_ERR_AGAIN (queue full under the simple policy),
 * UDCCP_ERR_INVALID_STATE (LISTEN, or a close started: CLOSEREQ, CLOSING,
 * TIMEWAIT, udccp_conn_close() called; a connection still in its
 * handshake, REQUEST or RESPOND, takes datagrams, which leave once it is
 * PARTOPEN or OPEN), UDCCP_ERR_INVALID_ARGUMENT (data NULL with len > 0;
 * len 0 queues an empty datagram), or the fatal code of a dead
 * connection. */
int udccp_conn_queue_datagram(udccp_conn *conn, const void *data, size_t len,
                              uint32_t prio, udccp_tstamp ts);

/* As udccp_conn_queue_datagram(), with a deadline: a datagram still queued
 * at expires (same clock as ts) is dropped, never sent late (RFC 4340 §2.1:
 * DCCP does not retransmit data, so a stale media frame is worth less
 * than the bandwidth).  Expired datagrams are counted in
 * udccp_conn_info.tx_expired (and tx_qdrops); the connection's expiry
 * (udccp_conn_get_expiry()) includes the earliest deadline, so the queue
 * gives their room back on time.  UDCCP_TSTAMP_NEVER: no deadline.
 * Returns as udccp_conn_queue_datagram(), or UDCCP_ERR_DROPPED when
 * expires <= ts (not queued; counted as expired). */
int udccp_conn_queue_datagram_until(udccp_conn *conn, const void *data,
                                    size_t len, uint32_t prio,
                                    udccp_tstamp expires, udccp_tstamp ts);

/* Returns the number of datagrams the send queue can still take. */
size_t udccp_conn_get_send_space(const udccp_conn *conn);

/* Zero-copy write, part 1: makes room in the send queue for a datagram of
 * up to len bytes with priority prio and deadline expires (as
 * udccp_conn_queue_datagram_until(); UDCCP_TSTAMP_NEVER: none) and points
 * *pbuf at it: the application writes the datagram there and then calls
 * udccp_conn_commit_datagram(), which queues it without a copy.  The
 * same rules as udccp_conn_queue_datagram_until() apply, judged now:
 * returns 0, UDCCP_ERR_MSGSIZE (len > current MPS payload),
 * UDCCP_ERR_AGAIN (queue full under the simple policy, or full of
 * datagrams at least as important under UDCCP_QPOLICY_PRIO),
 * UDCCP_ERR_DROPPED (expires <= ts; counted as expired),
 * UDCCP_ERR_INVALID_STATE (as for udccp_conn_queue_datagram()),
 * UDCCP_ERR_NOMEM,
 * UDCCP_ERR_INVALID_ARGUMENT (pbuf NULL), or a fatal code.  Under
 * UDCCP_QPOLICY_PRIO a full queue evicts its worst datagram here, as a
 * queued datagram would, even if the reservation is never committed.
 * Nothing is queued until the commit; the room stays the application's
 * only until the next other call on the connection (a new reservation
 * replaces the old one; one that changes the send queue cancels it, and
 * the commit then fails): write and commit before anything else.  *pbuf
 * is 8-byte aligned.  The room is len contiguous bytes of the send
 * queue's memory; what the commit does not use, or a reservation never
 * committed, is the next datagram's.  Reserve what will be written:
 * reserving the MPS for short datagrams makes the queue hold room for an
 * MPS besides them (about 2 x (bytes queued + MPS); the MPS is 65 KB
 * over loopback). */
int udccp_conn_reserve_datagram(udccp_conn *conn, size_t len, uint32_t prio,
                                udccp_tstamp expires, uint8_t **pbuf,
                                udccp_tstamp ts);

/* Zero-copy write, part 2: queues the first len bytes written at the
 * buffer udccp_conn_reserve_datagram() gave (len <= the length reserved).
 * Returns 0; UDCCP_ERR_MSGSIZE if len is larger than reserved or than
 * the current MPS payload (the reservation stays); UDCCP_ERR_INVALID_STATE
 * if no reservation is held (none made, already committed, or cancelled
 * by a call that changed the send queue) or the connection no longer
 * takes data; or a fatal code. */
int udccp_conn_commit_datagram(udccp_conn *conn, size_t len,
                               udccp_tstamp ts);

/* Copies the oldest received datagram into buf and removes it.  Returns its
 * length (0 for an empty datagram); UDCCP_ERR_NOBUF if cap is too small
 * (the datagram stays queued; udccp_conn_peek_datagram_len() tells its
 * size); UDCCP_ERR_AGAIN if none is waiting; UDCCP_ERR_INVALID_ARGUMENT if
 * buf is NULL with cap > 0; or a fatal code once the peer closed and the
 * queue is empty. */
udccp_ssize udccp_conn_read_datagram(udccp_conn *conn, void *buf, size_t cap);

/* Returns the length of the oldest received datagram, or UDCCP_ERR_AGAIN. */
udccp_ssize udccp_conn_peek_datagram_len(const udccp_conn *conn);

/* What a receiver learns with a datagram (udccp_conn_read_datagram_ex(),
 * udccp_recv_ex()), so that it can report or conceal gaps.  Set size to
 * sizeof(udccp_recv_info) (UDCCP_RECV_INFO_INIT): the library writes only
 * the members that fit in size, so the struct can grow at its end. */
typedef struct udccp_recv_info {
  uint32_t size;        /* sizeof(udccp_recv_info), at least 8 */
  uint32_t reserved;
  uint64_t lost_before; /* the peer's data packets lost between the
                           previous datagram returned and this one: the
                           sequence gaps less the NDP Count (RFC 4340
                           §7.7; exact when the peer sends NDP Count, i.e.
                           udccp_settings.send_ndp_count = 1 or CCID 3/4,
                           but for non-data packets lost right before a
                           lost data packet, which then count as data;
                           else lost acknowledgements count too), plus
                           datagrams this end had to drop (receive queue
                           full, bad Data Checksum, checksum coverage
                           refused).  Reordered packets are not losses:
                           a late one comes with 0 */
  uint64_t seq;         /* the packet's DCCP sequence number (48 bits) */
} udccp_recv_info;

#define UDCCP_RECV_INFO_INIT {sizeof(udccp_recv_info), 0, 0, 0}

/* As udccp_conn_read_datagram(), and fills *ri (if not NULL) for the
 * datagram returned.  UDCCP_ERR_INVALID_ARGUMENT if ri->size < 8. */
udccp_ssize udccp_conn_read_datagram_ex(udccp_conn *conn, void *buf,
                                        size_t cap, udccp_recv_info *ri);

/* Zero-copy read: points *pdata at the oldest received datagram where it
 * lies in the receive queue, without removing it, and fills *ri (if not
 * NULL) as udccp_conn_read_datagram_ex() would.  Returns its length
 * (*pdata is then valid for that many bytes until
 * udccp_conn_consume_datagram() or any other call on the connection);
 * UDCCP_ERR_AGAIN if none is waiting; UDCCP_ERR_INVALID_ARGUMENT if pdata
 * is NULL or ri->size < 8; or a fatal code once the peer closed and the
 * queue is empty.  Peeking again returns the same datagram. */
udccp_ssize udccp_conn_peek_datagram(udccp_conn *conn, const uint8_t **pdata,
                                     udccp_recv_info *ri);

/* Removes the oldest received datagram (the one udccp_conn_peek_datagram()
 * showed) without copying it.  Returns 0 or UDCCP_ERR_AGAIN if none is
 * waiting. */
int udccp_conn_consume_datagram(udccp_conn *conn);

/* Starts a graceful close (RFC 4340 §8.3): data already queued is sent
 * first, then Close (or CloseReq from a server unless server_timewait).
 * In REQUEST or LISTEN, before any handshake completed, the connection
 * is CLOSED at once (UDCCP_ERR_CLOSED), nothing sent.  Idempotent:
 * returns 0 also when a close is already under way or done, started by
 * either end (OPEN with a close pending, CLOSEREQ, CLOSING, and TIMEWAIT
 * or CLOSED after a close: udccp_conn_get_error() UDCCP_ERR_CLOSED);
 * UDCCP_ERR_INVALID_STATE only for a connection that died otherwise (a
 * Reset, a timeout: get_error() says which). */
int udccp_conn_close(udccp_conn *conn, udccp_tstamp ts);

/* Server side: on 1, a later close sends Close and this endpoint holds
 * TIMEWAIT; on 0 (default) it sends CloseReq so that the client holds it
 * (RFC 4340 §8.3, Linux's DCCP_SOCKOPT_SERVER_TIMEWAIT).  Takes effect for
 * a close not yet started.  Returns 0. */
int udccp_conn_set_server_timewait(udccp_conn *conn, int on);

/* Aborts: the connection is CLOSED at once (udccp_conn_get_error():
 * UDCCP_ERR_RESET) and the next write_pkt returns a Reset with the given
 * code (any 0..255; 128..255 are CCID-specific, RFC 4340 §5.6), numbered
 * GSS + 1 and acknowledging GSR (§7.4).  In REQUEST, the client has
 * received no sequence number: the Reset acknowledges 0 (§8.1.1, as when
 * its Requests time out), and is sent only if a Request was (written by
 * write_pkt); in LISTEN (udccp_conn_listen_new()) nothing is sent.  When
 * nothing is sent the reset code stays UDCCP_RESET_NONE.  Returns 0, or
 * UDCCP_ERR_INVALID_STATE once CLOSED or in TIMEWAIT. */
int udccp_conn_abort(udccp_conn *conn, uint8_t reset_code, udccp_tstamp ts);

/* Returns the current state (enum udccp_state). */
int udccp_conn_get_state(const udccp_conn *conn);

/* Returns 1 once the connection is fully closed (CLOSED with nothing left to
 * send, or TIMEWAIT over) and may be freed; 0 otherwise. */
int udccp_conn_is_done(const udccp_conn *conn);

/* Returns the reason a dead connection died: 0 while alive, else a fatal
 * UDCCP_ERR_* code (UDCCP_ERR_CLOSED for a normal close). */
int udccp_conn_get_error(const udccp_conn *conn);

/* Returns the Reset code received from or sent to the peer, or
 * UDCCP_RESET_NONE (255) if none -- the value of the CCID-specific code
 * 255 too: udccp_conn_info.reset_from is 0 only when there was none. */
int udccp_conn_get_reset_code(const udccp_conn *conn);

/* Sets the path MTU (bytes, IP header included); the MPS follows (§14):
 * pmtu - hdr_overhead - 64 (the largest header and the options a data
 * packet reserves room for).  Returns 0; UDCCP_ERR_INVALID_ARGUMENT for
 * conn NULL or a pmtu out of range, as udccp_settings_check() judges it
 * (room for less than 128 bytes above hdr_overhead, or above
 * UDCCP_PMTU_MAX); UDCCP_ERR_INVALID_STATE once the connection is CLOSED
 * or in TIMEWAIT (nothing more will be sent).  A refused pmtu changes
 * nothing.  Any state before, LISTEN to CLOSING, takes it. */
int udccp_conn_set_pmtu(udccp_conn *conn, uint32_t pmtu);

/* Returns the largest datagram payload a single packet can carry now. */
size_t udccp_conn_get_mps(const udccp_conn *conn);

/* Returns the connection's path. */
const udccp_path *udccp_conn_get_path(const udccp_conn *conn);

/* Statistics and congestion state. */
typedef struct udccp_conn_info {
  int state;
  uint8_t tx_ccid, rx_ccid;
  uint32_t mps;              /* payload bytes per packet */
  uint64_t gss, gsr, gar;    /* §7.1 */
  uint64_t swl, swh, awl, awh;
  udccp_tstamp srtt, rttvar, rto, min_rtt; /* ns; 0 if unknown */
  /* CCID 2 (RFC 4341) */
  uint32_t cwnd, ssthresh, pipe; /* packets */
  uint32_t ack_ratio;
  /* CCID 3/4 (RFC 4342, 5622), sender half; 0 with CCID 2.  Rates in
   * bytes/s of payload (the datagrams' own bytes, no headers), at the
   * mean size of the datagrams sent so far, so that an application that
   * keeps its datagram size can compare them with its own bitrate:
   *   x       the rate the CCID lets it send now (RFC 5348 §4.3 X, at
   *           most 2 x_recv): the rate to adapt to, as a media sender's
   *           target bitrate / 8 (tests/test_sim_ccid3_signals.c);
   *   x_recv  the rate the receiver reported receiving over the last
   *           round-trip time (RFC 4342 §8.3, Receive Rate);
   *   x_calc  the TCP throughput equation's rate for p and srtt (RFC 5348
   *           §3.1; UINT64_MAX while no loss was seen);
   *   p       the loss event rate, 0..1 (loss events, not packets, per
   *           packet: RFC 5348 §5);
   *   t_ipi   the packet interval now paced, ns.
   * srtt (above) is the TFRC R.  A TFRC sender learns loss events, not
   * each lost packet: pkts_lost stays 0 with CCID 3/4 unless the
   * settings asked for Ack Vectors (udccp_settings.ack_vectors) and the
   * peer sends them; the receiving half always counts the lost packets
   * (pkts_lost_rx, below). */
  uint64_t x, x_recv, x_calc; /* bytes/s */
  double p;                   /* loss event rate */
  udccp_tstamp t_ipi;         /* ns */
  /* counters */
  uint64_t pkts_sent, pkts_recv, bytes_sent, bytes_recv;
  uint64_t data_pkts_sent, data_pkts_recv;     /* datagrams */
  uint64_t data_bytes_sent, data_bytes_recv;   /* payload bytes */
  uint64_t pkts_lost;         /* data packets the CCID declared lost
                                 (CCID 2, from Ack Vectors; CCID 3/4
                                 only with settings.ack_vectors: those
                                 the receiver's Ack Vectors report not
                                 received, less those reported received
                                 later; see above) */
  uint64_t pkts_lost_rx;      /* receiver half: the peer's data packets
                                 that never arrived, from sequence gaps
                                 less the NDP Count (RFC 4340 §7.7), as
                                 the TFRC receiver declares them lost
                                 (CCID 3 and 4; 0 with a CCID 2 receiver,
                                 whose sender counts in pkts_lost) */
  uint64_t pkts_dropped;      /* received packets dropped by the rules */
  uint64_t pkts_seq_invalid;  /* ... of them: refused by the sequence and
                                 acknowledgement number checks (RFC 4340
                                 §7.5.3, §8.5 steps 4-6; X=0 when short
                                 seqnos are not allowed, §7.6): what a
                                 blind injection meets */
  uint64_t pkts_malformed;    /* received packets that failed to parse */
  uint64_t pkts_bad_cksum;
  uint64_t tx_qdrops;         /* datagrams dropped by the send queue policy */
  uint64_t rx_qdrops;         /* datagrams dropped: receive queue full */
  uint64_t syncs_sent, syncs_recv;
  uint64_t retransmits;       /* Requests, Closes, CloseReqs resent */
  uint64_t keepalive_probes;  /* keepalive Syncs sent (settings) */
  uint64_t keepalive_timeouts;/* 1 once the keepalive ended the connection */
  /* ECN (RFC 4340 §12), sender half */
  uint64_t ecn_marks;         /* our data packets reported CE-marked */
  uint64_t nonce_checks;      /* Ack Vectors whose Nonce Echo was checked */
  uint64_t nonce_mismatches;  /* ... and found wrong (§12.2) */
  /* Memory (issue 13): heap bytes the connection holds now, its own
   * object included: queues sized by what they hold (the send queue about
   * twice the bytes it held at most lately, not tx_qlen x MPS), Ack
   * Vector, CCID state and history, allocator headers.  An idle OPEN CCID 2
   * connection holds under 3 KiB; TIMEWAIT and CLOSED only the object. */
  uint64_t mem_bytes;
  uint64_t tx_expired;        /* datagrams dropped unsent at their deadline
                                 (udccp_send_ex(), also in tx_qdrops) */
  udccp_tstamp qdelay;        /* sender half's queueing-delay estimate, ns:
                                 what its CCID reports, else srtt - min_rtt
                                 of its RTT estimate; 0 if unknown (issue
                                 17: every CCID has one this way) */
  uint64_t pkts_dup;          /* received packets dropped as network
                                 duplicates of a Data, DataAck or Ack
                                 already received (RFC 4340 §7; also in
                                 pkts_dropped): the application reads each
                                 datagram once */
  uint32_t reset_from;        /* enum udccp_reset_from: who sent the Reset
                                 udccp_conn_get_reset_code() names; 0
                                 (none) also for a Reset's code 255, which
                                 reads as UDCCP_RESET_NONE there */
  uint32_t reserved32;        /* 0 */
  uint64_t reserved[13];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_conn_info;

void udccp_conn_get_info(const udccp_conn *conn, udccp_conn_info *info);

/* --------------------------------------------------------- listeners */

/* A listener answers Requests for one DCCP port, with one or more Service
 * Codes (RFC 5595 §4), and creates server connections.  With Init Cookies
 * (RFC 4340 §8.1.4) it keeps no state until the client's Ack returns the
 * cookie, authenticated with a keyed MAC under a secret that rotates.
 *
 * Safe by default (a zeroed udccp_listener_settings but for the service
 * codes): at most UDCCP_HALF_OPEN_MAX_DEFAULT connections are kept in
 * RESPOND (half-open); past that every Request is answered with an Init
 * Cookie and forgotten, as TCP's SYN cookies do, so that a flood of
 * spoofed Requests costs CPU but no memory.  At most
 * UDCCP_BACKLOG_DEFAULT completed connections wait for the application;
 * past that, and past max_conns, Requests and cookie Acks get Reset Too
 * Busy.  One cookie makes at most one connection (a replayed cookie Ack is
 * dropped), and its MAC covers both addresses, both DCCP ports and, on
 * DCCP-UDP, the client's UDP port (udccp_path.encap_port). */
typedef struct udccp_listener udccp_listener;

/* When a listener answers with an Init Cookie. */
enum udccp_init_cookie {
  UDCCP_INIT_COOKIE_AUTO = 0,   /* once half_open_max connections are
                                   half-open (default) */
  UDCCP_INIT_COOKIE_ALWAYS = 1, /* every Request: no state before the Ack */
  UDCCP_INIT_COOKIE_NEVER = 2   /* never; beyond half_open_max, Too Busy */
};

#define UDCCP_HALF_OPEN_MAX_DEFAULT 16
#define UDCCP_BACKLOG_DEFAULT 128
#define UDCCP_COOKIE_REPLAY_MAX_DEFAULT 65536

typedef struct udccp_listener_settings {
  const uint32_t *service_codes; /* copied; at least one */
  size_t n_service_codes;
  uint8_t init_cookie;           /* enum udccp_init_cookie: AUTO */
  udccp_tstamp cookie_lifetime;  /* secret rotation period: 8 s (a cookie
                                    is valid 1 to 2 of them) */
  uint32_t max_conns;            /* refuse (Too Busy) above this; 0: no limit */
  uint32_t half_open_max;        /* connections kept in RESPOND (stateful
                                    half-open); 0: UDCCP_HALF_OPEN_MAX_DEFAULT;
                                    UINT32_MAX: no limit */
  uint32_t backlog;              /* completed connections not yet accepted
                                    (phase QUEUED) before Too Busy; 0:
                                    UDCCP_BACKLOG_DEFAULT; UINT32_MAX: none */
  uint32_t cookie_replay_max;    /* cookies remembered per secret (replay
                                    guard); when full, cookie Acks get Too
                                    Busy until the secret rotates; 0:
                                    UDCCP_COOKIE_REPLAY_MAX_DEFAULT */
  uint64_t reserved[4];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_listener_settings;

/* Where a connection made by a listener is, for the listener's bounds. */
enum udccp_listener_phase {
  UDCCP_LISTENER_HALF_OPEN = 0, /* RESPOND: Request seen, not acknowledged */
  UDCCP_LISTENER_QUEUED = 1,    /* handshake done, not yet accepted */
  UDCCP_LISTENER_ACCEPTED = 2   /* handed to the application */
};

/* Creates a listener.  settings are the ones new connections get, judged
 * now as udccp_conn_client_new() judges them.  Returns 0,
 * UDCCP_ERR_INVALID_ARGUMENT (settings that fail udccp_settings_check(), a
 * CCID the library lacks, no service code or more than 1024, the invalid
 * service code, an unknown init_cookie) or UDCCP_ERR_NOMEM. */
int udccp_listener_new(udccp_listener **plis, const udccp_settings *settings,
                       const udccp_listener_settings *lsettings,
                       udccp_tstamp ts);

/* Frees the listener.  Its connections stay valid; do not report them to
 * it afterwards. */
void udccp_listener_del(udccp_listener *lis);

/* Processes a packet addressed to the listener's port for which no
 * connection exists.  Exactly one of three outcomes:
 *   - returns 0 and sets *pconn: a new server connection (state RESPOND,
 *     phase HALF_OPEN; or OPEN, phase QUEUED, when it came from a valid
 *     Init Cookie); the caller owns it, pulls its packets with
 *     udccp_conn_write_pkt() and reports it with the calls below;
 *   - returns n > 0 with *pconn NULL: a stateless reply of n bytes was
 *     written to out (a Reset: Bad Service Code, No Connection, Too Busy,
 *     Bad Init Cookie; or a Response carrying an Init Cookie);
 *   - returns a negative code with *pconn NULL: the packet was ignored
 *     (UDCCP_ERR_PROTO, UDCCP_ERR_CHECKSUM, UDCCP_ERR_DROPPED, ...;
 *     UDCCP_ERR_COOKIE for a cookie that already made a connection). */
udccp_ssize udccp_listener_read_pkt(udccp_listener *lis, const udccp_path *path,
                                    const uint8_t *pkt, size_t len,
                                    udccp_tstamp ts, udccp_conn **pconn,
                                    uint8_t *out, size_t outcap);

/* After conn (made by lis) processed packets or timers: moves it from
 * HALF_OPEN to QUEUED once its handshake completed.  Cheap; call it after
 * every udccp_conn_read_pkt() on a listener's connection. */
void udccp_listener_conn_update(udccp_listener *lis, udccp_conn *conn);

/* The application took conn from the accept queue (phase ACCEPTED). */
void udccp_listener_conn_accepted(udccp_listener *lis, udccp_conn *conn);

/* Tells the listener that conn, one of its connections, is about to be
 * freed (for max_conns and the phase counts).  Call it before
 * udccp_conn_del(). */
void udccp_listener_conn_gone(udccp_listener *lis, udccp_conn *conn);

/* Changes the listener's backlog (0: UDCCP_BACKLOG_DEFAULT).  Connections
 * already queued stay. */
void udccp_listener_set_backlog(udccp_listener *lis, uint32_t backlog);

/* The listener's counts, for monitoring and tests. */
typedef struct udccp_listener_stats {
  uint32_t conns;            /* connections alive (all phases) */
  uint32_t half_open;        /* phase HALF_OPEN */
  uint32_t queued;           /* phase QUEUED */
  uint64_t cookies_sent;     /* Responses with an Init Cookie */
  uint64_t cookies_replayed; /* cookie Acks dropped: cookie already used */
  uint64_t too_busy;         /* Resets Too Busy sent */
  uint64_t reserved[4];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_listener_stats;

void udccp_listener_get_stats(const udccp_listener *lis,
                              udccp_listener_stats *st);

/* =====================================================================
 * Socket runtime (io/)
 *
 * Everything from here to the end of this section lives in io/, outside
 * the sans-I/O core: it owns sockets, reads CLOCK_MONOTONIC and runs an
 * epoll loop.  One udccp_endpoint is one transport socket set (DCCP-UDP of
 * RFC 6773, or native DCCP over raw IP sockets) that drives any number of
 * connections (udccp_sock).  The API is socket-like:
 *
 *   client:  udccp_endpoint_new() -> udccp_connect() -> udccp_send()/
 *            udccp_recv() -> udccp_close() -> udccp_endpoint_del()
 *   server:  udccp_endpoint_new() -> udccp_listen() -> udccp_accept() -> ...
 *
 * Blocking: every call that may wait takes timeout_ms: -1 waits without
 * limit, 0 never waits (non-blocking), > 0 waits at most that long.  While
 * a call waits it runs the endpoint's event loop, so every connection of
 * the endpoint makes progress.
 *
 * Embedding in an application's own event loop: poll udccp_endpoint_fd()
 * for readability with the timeout udccp_endpoint_timeout_ms(), then call
 * udccp_endpoint_process(), then use the calls above with timeout_ms = 0.
 *
 * Threads: an endpoint and its connections are not thread-safe; use them
 * from one thread at a time.
 * ===================================================================== */

/* ------------------------------------------- socket runtime: errors */

/* Errors of the runtime (non-fatal range).  udccp_io_strerror() names them
 * and every UDCCP_ERR_* code. */
enum udccp_io_error {
  UDCCP_ERR_ADDRINUSE = -220,  /* the local address/port is already bound */
  UDCCP_ERR_RESOLVE = -221,    /* unknown host, or unparsable address */
  UDCCP_ERR_SOCKET = -222,     /* a system call failed; errno tells which */
  UDCCP_ERR_PERM = -223,       /* raw sockets need root or CAP_NET_RAW */
  UDCCP_ERR_AFNOSUPPORT = -224 /* no socket of the host's address family */
};

/* Returns a static description of any UDCCP_ERR_* code, including the
 * runtime's own. */
const char *udccp_io_strerror(int err);

/* Transports (DESIGN.md §3). */
enum udccp_transport {
  UDCCP_TRANSPORT_UDP = 0, /* DCCP-UDP, RFC 6773: no root needed (default) */
  UDCCP_TRANSPORT_RAW = 1  /* native DCCP, IP protocol 33: needs root */
};

/* The IANA UDP port of DCCP-UDP (RFC 6773 §3.8). */
#define UDCCP_UDP_PORT_DEFAULT 6511

/* ----------------------------------------- socket runtime: endpoints */

typedef struct udccp_endpoint udccp_endpoint;
typedef struct udccp_sock udccp_sock;

typedef struct udccp_endpoint_config {
  uint8_t transport;       /* enum udccp_transport: UDCCP_TRANSPORT_UDP */
  const char *local_host;  /* numeric address to bind; NULL: every local
                              address, IPv4 and IPv6 (two sockets) */
  uint16_t local_port;     /* DCCP-UDP: the UDP port to bind, 0 = ephemeral
                              (a client); raw: unused */
  uint16_t remote_udp_port;/* DCCP-UDP: UDP port udccp_connect() sends to,
                              whatever the DCCP port: 6511
                              (UDCCP_UDP_PORT_DEFAULT, also for 0) */
  const udccp_settings *settings; /* template for every connection, copied;
                              NULL: udccp_settings_default().  The runtime
                              sets rand (a udccp_csprng seeded once from
                              getrandom), cksum_mode and hdr_overhead; with
                              mem NULL, its connections allocate from an
                              endpoint pool (udccp_mempool, 1 MiB cache). */
  uint32_t max_conns;      /* per listener (Reset Too Busy above); 0: none */
  uint8_t init_cookie;     /* enum udccp_init_cookie: when listeners answer
                              with an Init Cookie and keep no state until
                              the client's Ack returns it (RFC 4340
                              §8.1.4): AUTO, past half_open_max */
  uint32_t half_open_max;  /* per listener: handshakes kept in RESPOND;
                              0: UDCCP_HALF_OPEN_MAX_DEFAULT (16) */
  uint32_t backlog;        /* per listener: completed connections waiting
                              for udccp_accept() before Reset Too Busy; 0:
                              UDCCP_BACKLOG_DEFAULT (128); see also
                              udccp_listen_set_backlog() */
  uint32_t batch;          /* messages per recvmmsg/sendmmsg, 1..64: 64;
                              with UDP GSO a transmit batch holds up to
                              4 x batch packets, sent as whole GSO
                              messages (doc/io.md) */
  int sockbuf;             /* SO_RCVBUF/SO_SNDBUF bytes: 4 MiB; 0: system
                              default */
  uint8_t no_offload;      /* DCCP-UDP: 1 = no UDP GSO/GRO; 0 (default):
                              UDP_SEGMENT for runs of equal-size packets
                              to one peer and UDP_GRO on receive, where
                              the kernel has them (Linux >= 5.0) */
  uint8_t reuseport;       /* DCCP-UDP: 1 = share the UDP port with other
                              endpoints of this user (SO_REUSEPORT), each
                              with its own DCCP ports: see "Sharing a UDP
                              port" below.  0 (default): exclusive. */
  uint64_t reserved[8];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_endpoint_config;

/* Fills *cfg with the defaults named above. */
void udccp_endpoint_config_default(udccp_endpoint_config *cfg);

/* Creates an endpoint: opens and binds its sockets, its epoll set and its
 * preallocated packet buffers.  For DCCP-UDP, local_port is the UDP port
 * (0: ephemeral); for raw, it is ignored (DCCP ports are per connection).
 * Returns 0 and sets *pep, or UDCCP_ERR_INVALID_ARGUMENT (bad transport),
 * UDCCP_ERR_RESOLVE (local_host not a numeric address), UDCCP_ERR_ADDRINUSE,
 * UDCCP_ERR_PERM (raw without privilege), UDCCP_ERR_SOCKET, UDCCP_ERR_NOMEM.
 */
int udccp_endpoint_new(udccp_endpoint **pep, int transport,
                       const char *local_host, uint16_t local_port);

/* As udccp_endpoint_new(), with every knob of udccp_endpoint_config. */
int udccp_endpoint_new_config(udccp_endpoint **pep,
                              const udccp_endpoint_config *cfg);

/* Sharing a UDP port (RFC 6773 §3.8 demultiplexes on the DCCP ports, so
 * one UDP port such as 6511 can serve many DCCP services):
 *
 *   Several processes: each creates its endpoint with reuseport = 1 on the
 *   same UDP port and listens on its own DCCP ports.  udccp_listen() then
 *   claims the DCCP port for this user on the host (an abstract Unix
 *   socket named after the UDP and DCCP ports); a second claim of the same
 *   DCCP port fails with UDCCP_ERR_ADDRINUSE.  The kernel hands each
 *   datagram to one of the sharing sockets; one that arrives at an
 *   endpoint that has neither its connection nor a listener on its DCCP
 *   port is passed on to the endpoint that claimed the port (one extra
 *   local hop; only senders of the same user are believed), and only when
 *   nobody claimed it does the receiver answer Reset No Connection.
 *
 *   Several threads (workers) of one process on one port: see
 *   udccp_endpoint_new_workers(). */

/* Creates n endpoints (1..64) sharing one UDP port, one per worker thread,
 * as udccp_endpoint_new_config() does with reuseport = 1 (cfg->local_port
 * 0: an ephemeral port, the same for all).  A classic BPF program
 * (SO_ATTACH_REUSEPORT_CBPF, no privilege needed) steers every datagram
 * by its DCCP ports to worker (source port XOR destination port) mod n, so
 * all packets of a connection reach the endpoint that accepted it.  Each
 * worker calls udccp_listen() on its own endpoint for the same DCCP ports
 * and runs its own loop; the endpoints share nothing else (one thread
 * each, as ever).  Returns 0 and fills eps[0..n-1], or
 * UDCCP_ERR_INVALID_ARGUMENT (n out of range, raw transport) or an error
 * of udccp_endpoint_new_config(); on error no endpoint is left. */
int udccp_endpoint_new_workers(udccp_endpoint **eps, size_t n,
                               const udccp_endpoint_config *cfg);

/* Closes the sockets and frees the endpoint and every connection it still
 * holds, including handles the application did not close (they become
 * invalid).  No packet is sent.  NULL is ignored. */
void udccp_endpoint_del(udccp_endpoint *ep);

/* Returns the bound UDP port (DCCP-UDP; useful after port 0), 0 for raw. */
uint16_t udccp_endpoint_local_port(const udccp_endpoint *ep);

/* Copies into *s the settings the endpoint's later udccp_connect() and
 * udccp_listen() calls start from (udccp_endpoint_config.settings, with the
 * runtime's rand and cksum_mode). */
void udccp_endpoint_get_settings(const udccp_endpoint *ep, udccp_settings *s);

/* Replaces that template: connections made and listeners started from now
 * on use *s (copied); existing ones keep theirs.  rand, rand_user_data and
 * cksum_mode stay the runtime's.  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT
 * (see udccp_settings_check()). */
int udccp_endpoint_set_settings(udccp_endpoint *ep, const udccp_settings *s);

/* In a child process after fork(): closes the child's copies of the
 * endpoint's sockets and epoll descriptor, which it shares with the
 * parent, without sending anything or touching the parent's state.  The
 * endpoint's memory is left alone (it is the parent's copy); ep must not
 * be used afterwards in the child. */
void udccp_endpoint_forget_after_fork(udccp_endpoint *ep);

/* Returns a DCCP port in the ephemeral range (49152..65535) that no
 * connection or listener of this endpoint uses, or 0 if none was found. */
uint16_t udccp_endpoint_unused_port(udccp_endpoint *ep);

/* Returns a file descriptor (an epoll set) that becomes readable when the
 * endpoint has packets to process.  Do not read from it or close it. */
int udccp_endpoint_fd(const udccp_endpoint *ep);

/* Returns the milliseconds (rounded up) until the endpoint's next timer,
 * 0 if one is due, or -1 if none is armed: the poll() timeout to use. */
int udccp_endpoint_timeout_ms(const udccp_endpoint *ep);

/* Without waiting: receives every packet waiting on the sockets (recvmmsg),
 * runs the connections through them and through their expired timers, and
 * sends what they have to send (sendmmsg).  Frees connections that closed
 * after their handle was closed.  Returns 0, or UDCCP_ERR_SOCKET if a
 * socket failed (errno tells). */
int udccp_endpoint_process(udccp_endpoint *ep);

/* Waits up to timeout_ms (-1: until something happens) for packets or the
 * next timer, then runs udccp_endpoint_process().  Returns as it. */
int udccp_endpoint_run(udccp_endpoint *ep, int timeout_ms);

/* ------------------------------------------- socket runtime: sockets */

/* Opens a connection to host (a name or numeric IPv4/IPv6 address) at DCCP
 * port port, asking for service_code (RFC 5595) and for CCID ccid on both
 * half-connections (0: the endpoint's settings).  Over DCCP-UDP the
 * packets go to UDP port remote_udp_port (config): 6511 unless set, the
 * port every DCCP-UDP server shares (RFC 6773 §3.8), whatever port is.  The local DCCP port is chosen at random
 * among 49152..65535.
 * timeout_ms -1 or > 0 waits for the handshake: returns 0 and sets *psock
 * once the connection is OPEN or PARTOPEN (data may be sent).  timeout_ms
 * 0 returns 0 and sets *psock at once: the handshake runs in the
 * background (udccp_sock_state(); udccp_send() returns UDCCP_ERR_AGAIN
 * until it is done, UDCCP_ERR_MSGSIZE at once for a datagram above
 * udccp_sock_get_mps()).  Its Request then waits in the endpoint's transmit
 * batch, as with udccp_send_more(): the next turn of the loop (any call
 * that waits, udccp_endpoint_process(); meanwhile
 * udccp_endpoint_timeout_ms() returns 0) sends it with the others, in one
 * sendmmsg for many connections.
 * Errors (*psock untouched): UDCCP_ERR_RESOLVE (unknown host),
 * UDCCP_ERR_AFNOSUPPORT (no socket of its family), UDCCP_ERR_REFUSED (the
 * peer answered with a Reset: Bad Service Code, Connection Refused, No
 * Connection, Too Busy), UDCCP_ERR_RESET (any other Reset),
 * UDCCP_ERR_TIMEOUT (no answer within timeout_ms or the core's Request
 * timeout), UDCCP_ERR_INVALID_ARGUMENT (e.g. a CCID the library lacks),
 * UDCCP_ERR_ADDRINUSE (no free local DCCP port), UDCCP_ERR_NOMEM,
 * UDCCP_ERR_SOCKET (e.g. no route to host; errno tells).
 * The CCID is a preference: feature negotiation (RFC 4340 §6.3.1) may
 * settle on another one; udccp_sock_get_info() tells which. */
int udccp_connect(udccp_endpoint *ep, udccp_sock **psock, const char *host,
                  uint16_t port, uint32_t service_code, uint8_t ccid,
                  int timeout_ms);

/* Accepts connections on DCCP port port for the n service codes (RFC 5595
 * §4: several codes may share a port), over both address families the
 * endpoint has.  Returns 0, UDCCP_ERR_ADDRINUSE (this endpoint already
 * listens on port), UDCCP_ERR_INVALID_ARGUMENT (n == 0, an invalid code,
 * port 0, or endpoint settings naming a CCID the library lacks) or
 * UDCCP_ERR_NOMEM.  Requests with another service code are answered
 * with Reset "Bad Service Code" by the core. */
int udccp_listen(udccp_endpoint *ep, uint16_t port,
                 const uint32_t *service_codes, size_t n);

/* Stops listening on port: later Requests to it are answered with Reset
 * (No Connection, RFC 4340 §8.5 step 2).  Connections already accepted or
 * still in their handshake go on.  Returns 0, or UDCCP_ERR_INVALID_STATE
 * if the endpoint does not listen on port. */
int udccp_unlisten(udccp_endpoint *ep, uint16_t port);

/* Sets the accept backlog of the listener on port (as listen()'s backlog):
 * at most backlog completed connections wait for udccp_accept(); further
 * Requests and cookie Acks get Reset Too Busy.  0 means
 * UDCCP_BACKLOG_DEFAULT.  Returns 0, or UDCCP_ERR_INVALID_STATE if the
 * endpoint does not listen on port. */
int udccp_listen_set_backlog(udccp_endpoint *ep, uint16_t port,
                             uint32_t backlog);

/* Returns, in *psock, the oldest connection that completed its handshake
 * on any of the endpoint's listening ports.  Returns 0, UDCCP_ERR_AGAIN
 * (none within timeout_ms), UDCCP_ERR_INVALID_STATE (not listening).
 * A connection already waiting is returned without running the loop; the
 * loop runs (and sends what waits in the batch) when none waits. */
int udccp_accept(udccp_endpoint *ep, udccp_sock **psock, int timeout_ms);

/* The runtime's clock: CLOCK_MONOTONIC in nanoseconds, the clock of
 * udccp_send_opts.expires. */
udccp_tstamp udccp_now(void);

/* Options of one datagram for udccp_send_ex().  Initialise with
 * UDCCP_SEND_OPTS_INIT (or zero it and set size = sizeof(udccp_send_opts)):
 * the library reads only the first size bytes, so a program built against
 * an older header keeps working when members are added at the end. */
typedef struct udccp_send_opts {
  uint32_t size;        /* sizeof(udccp_send_opts), at least 8 */
  uint32_t flags;       /* UDCCP_SEND_F_* bits */
  uint32_t prio;        /* priority under UDCCP_QPOLICY_PRIO (higher is more
                           important; as Linux's DCCP_SCM_PRIORITY); ignored
                           under UDCCP_QPOLICY_SIMPLE */
  uint32_t reserved;    /* 0 */
  udccp_tstamp expires; /* deadline on the udccp_now() clock: a datagram not
                           sent by then is dropped, never sent late; 0 or
                           UDCCP_TSTAMP_NEVER: none */
} udccp_send_opts;

#define UDCCP_SEND_F_MORE 1u /* as udccp_send_more(): more follow at once */

#define UDCCP_SEND_OPTS_INIT {sizeof(udccp_send_opts), 0, 0, 0, 0}

/* Sends one datagram of len bytes (copied) with a priority and a deadline
 * (opts NULL: as udccp_send()).  The priority queue policy is chosen per
 * connection with udccp_settings.qpolicy (and tx_qlen) on the endpoint's
 * settings (udccp_endpoint_set_settings()) before the connection is made.
 * Under UDCCP_QPOLICY_PRIO a full queue takes the datagram by dropping
 * the oldest one of a strictly lower priority (counted in tx_qdrops); a
 * datagram never displaces one at least as important.  The runtime sees
 * the datagram at once: it leaves within this call when the CCID allows
 * (no loop turn or timer needed), else when the CCID next allows.
 * Waits up to timeout_ms, as udccp_send(), for the handshake and for
 * room, but never past expires.  Returns len, or:
 *   UDCCP_ERR_INVALID_ARGUMENT  sock or opts invalid (size < 8, unknown
 *                               flags), buf NULL with len > 0;
 *   UDCCP_ERR_DROPPED           expires passed before the datagram could
 *                               be queued (counted in tx_expired);
 *   UDCCP_ERR_MSGSIZE, UDCCP_ERR_AGAIN (no room within timeout_ms: the
 *                               queue is full, under PRIO of datagrams at
 *                               least as important), UDCCP_ERR_INVALID_STATE
 *                               and the fatal codes, as udccp_send(). */
udccp_ssize udccp_send_ex(udccp_sock *sock, const void *buf, size_t len,
                          const udccp_send_opts *opts, int timeout_ms);

/* Sends one datagram of len bytes (copied).  Waits up to timeout_ms for
 * the handshake to finish and for room in the send queue.  Returns len,
 * UDCCP_ERR_MSGSIZE (len larger than udccp_sock_get_mps()), UDCCP_ERR_AGAIN
 * (no room within timeout_ms), UDCCP_ERR_INVALID_STATE (after
 * udccp_shutdown()), or the fatal code the connection died with
 * (UDCCP_ERR_CLOSED, UDCCP_ERR_RESET, UDCCP_ERR_TIMEOUT, ...). */
udccp_ssize udccp_send(udccp_sock *sock, const void *buf, size_t len,
                       int timeout_ms);

/* As udccp_send(), but more datagrams follow at once (as Linux's
 * MSG_MORE): the datagrams may wait, in the send queue until a batch's
 * worth is queued (or the queue is full) and then as packets in the
 * endpoint's transmit batch until it is full, until the next udccp_send()
 * on this socket, or until the endpoint's loop runs (any call that waits,
 * udccp_endpoint_process(); meanwhile udccp_endpoint_timeout_ms() returns
 * 0).  A bulk sender that uses it for all but its last datagram hands the
 * kernel one sendmmsg (or one GSO send) per batch instead of one system
 * call per datagram, and the runtime its per-call work once per batch. */
udccp_ssize udccp_send_more(udccp_sock *sock, const void *buf, size_t len,
                            int timeout_ms);

/* Receives one whole datagram into buf.  Returns its length (0 is a valid
 * empty datagram), UDCCP_ERR_NOBUF (cap too small; the datagram stays
 * queued, udccp_sock_peek_len() tells its size), UDCCP_ERR_AGAIN (none
 * within timeout_ms), UDCCP_ERR_CLOSED once the peer closed and every
 * datagram was read, or another fatal code (UDCCP_ERR_RESET, ...). */
udccp_ssize udccp_recv(udccp_sock *sock, void *buf, size_t cap,
                       int timeout_ms);

/* As udccp_recv(), and fills *ri (if not NULL) for the datagram returned:
 * how many of the peer's data packets were lost before it, its sequence
 * number (udccp_recv_info).  UDCCP_ERR_INVALID_ARGUMENT if ri->size < 8. */
udccp_ssize udccp_recv_ex(udccp_sock *sock, void *buf, size_t cap,
                          udccp_recv_info *ri, int timeout_ms);

/* Returns the length of the next datagram udccp_recv() would return, or
 * UDCCP_ERR_AGAIN. */
udccp_ssize udccp_sock_peek_len(udccp_sock *sock);

/* Zero-copy receive: as udccp_recv_ex() (the same waiting, returns and
 * *ri), but the datagram is not copied nor removed: *pdata points at it
 * where it lies in the connection's receive queue.  It stays valid for
 * the returned length until udccp_recv_consume(), or until any other call
 * on this socket or its endpoint (one that runs the endpoint's loop may
 * queue more packets and move the queue's bytes).  Peeking again returns
 * the same datagram.  UDCCP_ERR_INVALID_ARGUMENT if pdata is NULL or
 * ri->size < 8. */
udccp_ssize udccp_recv_peek(udccp_sock *sock, const uint8_t **pdata,
                            udccp_recv_info *ri, int timeout_ms);

/* Removes the datagram udccp_recv_peek() returned.  Returns 0, or
 * UDCCP_ERR_AGAIN if none is queued. */
int udccp_recv_consume(udccp_sock *sock);


/* Starts the graceful close (RFC 4340 §8.3) without waiting: queued
 * datagrams are sent first, then Close (client) or CloseReq (server).
 * udccp_recv() still returns datagrams that arrive meanwhile.  Idempotent,
 * as udccp_conn_close(): returns 0 also when the connection is already
 * closing or closed by a close of either end (a second udccp_shutdown()
 * included), UDCCP_ERR_INVALID_STATE if it died otherwise (a Reset, a
 * timeout: udccp_sock_error() says which). */
int udccp_shutdown(udccp_sock *sock);

/* Closes gracefully, as udccp_shutdown(), waits up to timeout_ms for the
 * send queue to drain and the close to complete (the peer acknowledged it:
 * TIMEWAIT or CLOSED), and frees the handle in every case.  A connection
 * still closing when this returns is finished by the endpoint in later
 * udccp_endpoint_process() calls (and dropped by udccp_endpoint_del()).
 * Returns 0 (closed cleanly, or the peer had closed already),
 * UDCCP_ERR_TIMEOUT (not done within timeout_ms), or the fatal code the
 * connection died with (UDCCP_ERR_RESET, ...).  NULL is ignored (0).
 * With timeout_ms 0 it does not run the loop: the Close (or CloseReq)
 * waits in the endpoint's transmit batch for the next turn, as a
 * non-blocking udccp_connect()'s Request does. */
int udccp_close(udccp_sock *sock, int timeout_ms);

/* Aborts: sends Reset "Aborted" (RFC 4340 §5.6) and frees the handle. */
void udccp_abort(udccp_sock *sock);

/* As udccp_abort(), with another Reset Code (enum udccp_reset_code), e.g.
 * UDCCP_RESET_TOO_BUSY for an accepted connection the application cannot
 * take (the preload layer, past listen()'s backlog). */
void udccp_abort_code(udccp_sock *sock, uint8_t reset_code);

/* Returns the connection's state (enum udccp_state). */
int udccp_sock_state(const udccp_sock *sock);

/* Returns 0 while the connection lives, else the fatal code it died with
 * (UDCCP_ERR_CLOSED after a normal close). */
int udccp_sock_error(const udccp_sock *sock);

/* Returns the Reset code sent or received, or UDCCP_RESET_NONE (also the
 * CCID-specific code 255: udccp_sock_get_info()'s reset_from tells). */
int udccp_sock_reset_code(const udccp_sock *sock);

/* Returns the largest datagram udccp_send() accepts now (the MPS payload;
 * it shrinks when the path MTU does, RFC 4340 §14). */
size_t udccp_sock_get_mps(const udccp_sock *sock);

/* Returns the connection's addresses and DCCP ports. */
const udccp_path *udccp_sock_get_path(const udccp_sock *sock);

/* Fills *info with the connection's statistics (udccp_conn_get_info()). */
void udccp_sock_get_info(const udccp_sock *sock, udccp_conn_info *info);

/* Returns the underlying core connection (for calls this section does not
 * wrap).  The endpoint still owns it; never free it or feed it packets
 * yourself.  Calling this marks the socket for the endpoint's next loop
 * turn, which sends what a core call made right after it queued: fetch
 * the pointer again before every such call (a pointer kept and used later
 * is not seen until the connection's own next timer).  To send with a
 * priority or a deadline, use udccp_send_ex(), which needs neither. */
udccp_conn *udccp_sock_get_conn(udccp_sock *sock);

/* ------------------------------------------- socket runtime: events */

/* What udccp_endpoint_events() reports (bits of udccp_event.events). */
enum udccp_event_kind {
  UDCCP_EV_READABLE = 1u << 0,   /* a datagram waits: udccp_recv() it.
                                    Level-triggered: reported again while
                                    one is left */
  UDCCP_EV_WRITABLE = 1u << 1,   /* a send that found the queue full
                                    (UDCCP_ERR_AGAIN) may be retried now;
                                    once per such send */
  UDCCP_EV_CONNECTED = 1u << 2,  /* a non-blocking udccp_connect() (timeout
                                    0) completed its handshake; once */
  UDCCP_EV_ACCEPTABLE = 1u << 3, /* sock NULL: a connection waits for
                                    udccp_accept(); level-triggered */
  UDCCP_EV_CLOSED = 1u << 4,     /* the connection ended normally (a close
                                    by either side); once.  Data still
                                    queued stays readable */
  UDCCP_EV_RESET = 1u << 5       /* the connection died: error says why
                                    (UDCCP_ERR_RESET, _REFUSED, _TIMEOUT,
                                    ...), reset_code which Reset; once */
};

typedef struct udccp_event {
  udccp_sock *sock;  /* NULL for UDCCP_EV_ACCEPTABLE */
  void *user;        /* udccp_sock_set_user()'s pointer for sock */
  uint32_t events;   /* UDCCP_EV_* bits, several at once possible */
  int error;         /* CLOSED/RESET: udccp_sock_error(); else 0 */
  int reset_code;    /* enum udccp_reset_code, UDCCP_RESET_NONE if none
                        (or code 255: udccp_sock_get_info()'s reset_from
                        tells) */
  uint64_t reserved[2];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_event;

/* Runs the endpoint's loop for up to timeout_ms (-1: until an event; 0:
 * no wait) and fills ev[0..max) with the sockets that have something to
 * report, oldest first, each once per call: an epoll_wait() for udccp
 * sockets.  Only sockets the application holds (returned by
 * udccp_connect() or udccp_accept(), not yet closed or aborted) are
 * reported, and only those that had a packet, a timer or a call since
 * they were last reported are looked at: the cost does not grow with idle
 * sockets.  Returns the number of events (0: timeout_ms passed without
 * one), or UDCCP_ERR_INVALID_ARGUMENT (ep or ev NULL, max 0) or
 * UDCCP_ERR_SOCKET.  Works with an external event loop: poll
 * udccp_endpoint_fd() with udccp_endpoint_timeout_ms(), then call this
 * with timeout_ms 0.  The other calls (udccp_recv() with timeout_ms 0,
 * ...) still work alongside. */
int udccp_endpoint_events(udccp_endpoint *ep, udccp_event *ev, size_t max,
                          int timeout_ms);

/* Attaches the application's pointer to sock; udccp_endpoint_events()
 * returns it with every event of sock.  NULL sock is ignored. */
void udccp_sock_set_user(udccp_sock *sock, void *user);

/* Returns the pointer udccp_sock_set_user() attached (NULL if none or sock
 * is NULL). */
void *udccp_sock_get_user(const udccp_sock *sock);

/* Counters of one endpoint. */
typedef struct udccp_endpoint_stats {
  uint64_t rx_pkts, tx_pkts;       /* datagrams through the sockets */
  uint64_t rx_batches, tx_batches; /* recvmmsg/sendmmsg calls that moved any */
  uint64_t rx_ignored;   /* not ours: raw packets for other ports/hosts */
  uint64_t rx_bad;       /* too short, bad checksum, truncated */
  uint64_t resets_sent;  /* Reset No Connection for unknown connections */
  uint64_t tx_errors;    /* sendmmsg failures other than EMSGSIZE */
  uint64_t pmtu_updates; /* EMSGSIZE or ICMP Too Big applied to a conn */
  uint64_t tx_gso_sends; /* UDP GSO super-datagrams handed to the kernel */
  uint64_t tx_gso_pkts;  /* packets inside them (counted in tx_pkts too) */
  uint64_t rx_gro_msgs;  /* coalesced datagrams received (UDP_GRO) */
  uint64_t rx_gro_pkts;  /* packets split out of them (in rx_pkts too) */
  uint64_t gso_fallbacks;/* GSO switched off: the kernel refused it */
  uint64_t rx_forwarded; /* reuseport: passed to the DCCP port's owner */
  uint64_t rx_from_peer; /* reuseport: received from a sharing endpoint */
  uint64_t polls;        /* epoll_wait calls of the endpoint's loop */
  uint64_t reserved[7];  /* 0: room for members added later without
                           changing the size (doc/abi.md) */
} udccp_endpoint_stats;

void udccp_endpoint_get_stats(const udccp_endpoint *ep,
                              udccp_endpoint_stats *stats);

/* ---------------------- socket runtime: capture, TOS, device */

/* A packet capture file that endpoints write what they send and receive
 * into (issue 15: udccp-perf and udccp-cat --pcap): classic pcap,
 * nanosecond timestamps (wall clock), LINKTYPE_RAW.  Every datagram is
 * one frame with a synthesized IPv4 or IPv6 header: on DCCP-UDP a UDP
 * header too (the endpoint's UDP port and the peer's, UDP checksum
 * right), which Wireshark decodes with tools/wireshark/dccp-udp.lua; on
 * native DCCP IP protocol 33.  The TOS / traffic class byte is the one
 * the packet was sent or received with (udccp_endpoint_set_tos() and the
 * ECN codepoint).  Packets go in as the endpoint hands them to the kernel
 * or reads them, one frame per DCCP packet (GSO and GRO batches are
 * split).  Several endpoints, also of other threads, may share one file. */
typedef struct udccp_pcap udccp_pcap;

/* Creates (truncates) path and writes the pcap file header.  Returns 0 and
 * sets *pp, or UDCCP_ERR_INVALID_ARGUMENT, UDCCP_ERR_NOMEM or
 * UDCCP_ERR_SOCKET (the file cannot be created; errno tells why). */
int udccp_pcap_open(udccp_pcap **pp, const char *path);

/* Frames written so far. */
uint64_t udccp_pcap_frames(const udccp_pcap *p);

/* Flushes and closes the file and frees p; detach it from every endpoint
 * first (udccp_endpoint_set_pcap(ep, NULL), or udccp_endpoint_del()).
 * Returns 0, or UDCCP_ERR_SOCKET if a write failed (the file is
 * incomplete).  NULL is ignored. */
int udccp_pcap_close(udccp_pcap *p);

/* Writes every datagram ep sends or receives from now on into p; NULL
 * stops.  The endpoint does not own p. */
void udccp_endpoint_set_pcap(udccp_endpoint *ep, udccp_pcap *p);

/* Sets the IPv4 TOS byte / IPv6 traffic class of ep's packets (IP_TOS and
 * IPV6_TCLASS on its sockets, both transports): its upper six bits, the
 * DSCP (RFC 2474), are kept; its lower two, the ECN field (RFC 3168), stay
 * the runtime's (each packet's ECN codepoint as its CCID asks).  Returns
 * 0, UDCCP_ERR_INVALID_ARGUMENT (tos outside 0..255) or UDCCP_ERR_SOCKET. */
int udccp_endpoint_set_tos(udccp_endpoint *ep, int tos);

/* Binds ep's sockets to the network interface ifname (SO_BINDTODEVICE):
 * its packets leave, and only packets that arrive, through it.  Call it
 * before connecting or listening.  Returns 0, UDCCP_ERR_INVALID_ARGUMENT,
 * UDCCP_ERR_RESOLVE (no such interface), UDCCP_ERR_PERM (kernels before
 * 5.7 want CAP_NET_RAW) or UDCCP_ERR_SOCKET. */
int udccp_endpoint_bind_device(udccp_endpoint *ep, const char *ifname);

/* ------------------------------- socket runtime: Multipath DCCP */

/* Multipath DCCP (RFC 9897) over the runtime: one connection, the
 * udccp_mpsock, over several subflows, each a DCCP connection with its
 * own CCID (§3.8) between one local address and the server's address.
 * The client opens the first subflow (feature Multipath Capable and
 * MP_KEY, §3.3), then, once it is OPEN, one joining subflow (MP_JOIN with
 * the HMAC of §3.2.6) from each further local address it was given; the
 * server finds the connection a join names by its Connection Identifier.
 * Datagrams are numbered end to end (MP_SEQ, §3.2.5), spread over the
 * subflows by a scheduler (enum udccp_mp_sched) and put back in MP_SEQ
 * order at the receiver for at most a bound derived from the subflows'
 * RTTs (then a missing one is given up: DCCP does not retransmit).  A path
 * that stops answering is taken out of use within about a second and
 * probed until it answers again (lib/mp_conn.h).
 *
 * Fallback (§3.6): a peer that does not agree to Multipath DCCP leaves a
 * plain DCCP connection on the first subflow (the client knows it from the
 * server's Response); the calls below then work on it as
 * udccp_send()/udccp_recv() do, and udccp_mpsock_get_info() reports
 * active = 0.  Subflows run over the endpoint's transport, DCCP-UDP or
 * native DCCP (raw: the Linux kernel's DCCP falls back this way).
 *
 * Multipath needs an endpoint bound to every local address (local_host
 * NULL): each subflow's packets leave from its own address (IP_PKTINFO);
 * on a host whose routes do not depend on the source address, add policy
 * routes ("ip rule add from ADDR table N") so that each address takes its
 * own link.  A server accepts multipath connections on an endpoint whose
 * settings have multipath = 1, with udccp_mpsock_accept().  Closing:
 * udccp_mpsock_close() (MP_CLOSE) or udccp_mpsock_abort() (MP_FAST_CLOSE).
 * Not yet: coupled congestion control (doc/multipath.md). */

typedef struct udccp_mpsock udccp_mpsock;

/* Schedulers (RFC 9897 §3.11): which subflow the next datagram takes. */
enum udccp_mp_sched {
  UDCCP_MP_SCHED_MINRTT = 0, /* the default: the lowest-RTT path that has
                                room in its CCID's window (§3.11.2) */
  UDCCP_MP_SCHED_BACKUP = 1, /* active-backup: only the path of highest
                                priority that is alive (path mobility,
                                §3.11.1); the others wait as backups */
  UDCCP_MP_SCHED_RR = 2,     /* round-robin over the paths with room */
  UDCCP_MP_SCHED_REDUNDANT = 3 /* every datagram on every usable path,
                                once all have room (the slowest live path
                                sets the pace); the receiver drops the
                                copies by MP_SEQ.  For latency and loss,
                                not throughput */
};

/* The most subflows of one multipath connection (RFC 9897 §3.10). */
#define UDCCP_MP_SUBFLOWS_MAX 8

/* One subflow, as udccp_mpsock_get_info() reports it. */
typedef struct udccp_mp_subflow_info {
  udccp_path path;          /* its addresses and DCCP ports */
  uint8_t state;            /* enum udccp_state */
  uint8_t prio;             /* its priority (MP_PRIO values, §3.2.10):
                               0 unused, 1 backup, 2 secondary, 3..15 primary */
  uint8_t dead;             /* 1: taken out of use, no answer lately */
  uint8_t joined;           /* 1: a joining subflow (MP_JOIN), 0: the first */
  uint8_t ccid;             /* the CCID it sends with */
  uint8_t pad[3];
  uint64_t tx_dgrams, tx_bytes; /* datagrams the scheduler gave it */
  uint64_t rx_dgrams, rx_bytes; /* datagrams received over it */
  uint32_t share_permille;  /* its part of the bytes sent, 0..1000 */
  uint32_t cwnd;            /* CCID 2: window, packets; else 0 */
  udccp_tstamp srtt;        /* ns; 0 if unknown */
  uint64_t rate_bps;        /* what its CCID allows, bits/s: CCID 2 cwnd x
                               MPS / srtt, CCID 3/4 X; 0 if unknown */
  uint64_t pkts_lost;       /* data packets its CCID declared lost */
  uint64_t data_pkts_sent;  /* data packets it sent (loss = lost / sent) */
  uint64_t deaths, revivals;/* times it was found dead / came back */
  uint64_t reserved[4];     /* 0 */
} udccp_mp_subflow_info;

/* A multipath connection's figures (udccp_mpsock_get_info()). */
typedef struct udccp_mp_info {
  uint8_t active;           /* 1: Multipath DCCP; 0: fallen back to plain
                               DCCP on the first subflow (§3.6) */
  uint8_t sched;            /* enum udccp_mp_sched */
  uint8_t n_subflows;       /* sub[0 .. n_subflows - 1] are filled */
  uint8_t pad[5];
  udccp_tstamp reorder_bound; /* receiver: longest wait for a gap, ns */
  uint64_t rx_released_late;  /* datagrams released after a gap was given
                                 up (their predecessors never came) */
  uint64_t rx_late_dropped;   /* datagrams that came after their number
                                 was given up, dropped */
  udccp_mp_subflow_info sub[UDCCP_MP_SUBFLOWS_MAX];
  uint64_t rx_reorder_bytes;  /* memory the reordering buffer holds now:
                                 it grows with what is held (up to 4096
                                 datagrams waiting for a gap) and is given
                                 back once idle -- 0 on an idle connection */
  uint64_t rx_reorder_max_held; /* most datagrams it held at once */
  uint64_t rx_reorder_window_full; /* MP_SEQ numbers given up because a
                                 datagram came beyond the window (4096
                                 numbers past the next to release) rather
                                 than for the time bound */
  uint64_t rx_mp_seq_skipped; /* MP_SEQ numbers given up (never came in
                                 time: lost, or on a path that died) */
  uint64_t reserved[4];     /* 0 */
} udccp_mp_info;

/* Opens a multipath connection to host (as udccp_connect(): a name or
 * numeric address, DCCP port, service code, CCID or 0) with one subflow
 * from each of the n numeric addresses in local[] (the first from
 * local[0]; n == 0: one subflow from the address the route picks).  Waits
 * up to timeout_ms (-1: no limit, 0: not at all) for the first subflow's
 * handshake; the joining subflows follow in the background once it is
 * OPEN.  Returns 0 and sets *pmp, or UDCCP_ERR_INVALID_ARGUMENT (NULL
 * arguments, n > UDCCP_MP_SUBFLOWS_MAX, a local address of another family
 * than host's, or an endpoint bound to one address),
 * UDCCP_ERR_RESOLVE (host or a local address not understood),
 * UDCCP_ERR_SOCKET with errno set (a local address this host cannot send
 * from: EADDRNOTAVAIL), or any
 * error of udccp_connect() (UDCCP_ERR_REFUSED, UDCCP_ERR_TIMEOUT,
 * UDCCP_ERR_NOMEM, ...).  A server without multipath is no error: the
 * connection falls back to plain DCCP (udccp_mp_info.active = 0). */
int udccp_mpsock_connect(udccp_endpoint *ep, udccp_mpsock **pmp,
                         const char *host, uint16_t port,
                         uint32_t service_code, uint8_t ccid,
                         const char *const *local, size_t n,
                         int timeout_ms);

/* Server: returns in *pmp the oldest connection that completed its
 * handshake on the endpoint's listeners (as udccp_accept()), as a
 * multipath connection; joining subflows of connections already accepted
 * are attached to them, never returned.  The endpoint's settings must
 * have multipath = 1 before udccp_listen() for clients to get multipath;
 * a client without it gets a fallen-back connection.  Returns 0,
 * UDCCP_ERR_AGAIN (none within timeout_ms), UDCCP_ERR_INVALID_STATE (not
 * listening), UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOMEM. */
int udccp_mpsock_accept(udccp_endpoint *ep, udccp_mpsock **pmp,
                        int timeout_ms);

/* Queues one datagram of len bytes (copied) for the scheduler; waits up to
 * timeout_ms for room.  Returns len, UDCCP_ERR_MSGSIZE (larger than the
 * smallest MPS of the subflows), UDCCP_ERR_AGAIN (no room in time),
 * UDCCP_ERR_INVALID_STATE (closing), UDCCP_ERR_INVALID_ARGUMENT, or the
 * fatal code of the first subflow once every subflow is dead. */
udccp_ssize udccp_mpsock_send(udccp_mpsock *mp, const void *buf, size_t len,
                              int timeout_ms);

/* Receives one datagram, in MP_SEQ order.  Returns its length,
 * UDCCP_ERR_NOBUF (cap too small: the datagram is dropped), UDCCP_ERR_AGAIN
 * (none within timeout_ms), UDCCP_ERR_INVALID_ARGUMENT, or, once every
 * subflow is closed or dead and everything was read, the first subflow's
 * fatal code (UDCCP_ERR_CLOSED after a normal close). */
udccp_ssize udccp_mpsock_recv(udccp_mpsock *mp, void *buf, size_t cap,
                              int timeout_ms);

/* Chooses the scheduler (enum udccp_mp_sched; UDCCP_MP_SCHED_MINRTT
 * unless set) for the datagrams mp sends from now on.  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (mp NULL, unknown scheduler). */
int udccp_mpsock_set_sched(udccp_mpsock *mp, int sched);

/* Sets subflow i's priority (0..15, the MP_PRIO values of RFC 9897
 * §3.2.10: 0 unused, 1 backup, 2 secondary, 3..15 primary, higher first;
 * every subflow starts at 3).  Subflow i counts in the order of local[] of
 * udccp_mpsock_connect(), or of joining at the server; a priority set
 * before subflow i exists applies when it does.  It is signalled to the
 * peer with MP_PRIO on that subflow (repeated until MP_CONFIRM), and the
 * peer's scheduler then uses no higher a priority for that path; the
 * peer's MP_PRIO bounds ours the same way (the lower of the two counts:
 * either side can make a costly path a backup).  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (mp NULL, i >= UDCCP_MP_SUBFLOWS_MAX,
 * prio > 15). */
int udccp_mpsock_set_prio(udccp_mpsock *mp, size_t i, uint8_t prio);

/* Fills *info (zeroed first).  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_mpsock_get_info(const udccp_mpsock *mp, udccp_mp_info *info);

/* Announces a local address to the peer (RFC 9897 §3.2.8: MP_ADDADDR with
 * MP_HMAC, repeated until confirmed): addr numeric, port the DCCP port
 * joins should go to (0: this connection's).  A udccp client's path
 * manager opens a subflow from its first address to each address
 * announced (at most UDCCP_MP_SUBFLOWS_MAX subflows, and 2 x that many
 * such joins over the connection's life).  Returns the Address ID
 * (0..255), UDCCP_ERR_INVALID_STATE (not multipath, or not keyed yet),
 * UDCCP_ERR_RESOLVE, UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOBUF (the
 * signal or address table is full). */
int udccp_mpsock_announce(udccp_mpsock *mp, const char *addr, uint16_t port);

/* Withdraws address id (§3.2.9: MP_REMOVEADDR with MP_HMAC); the peer's
 * path manager closes its subflows to that address.  Returns 0, or as
 * udccp_mpsock_announce(). */
int udccp_mpsock_unannounce(udccp_mpsock *mp, int id);

/* Returns subflow i's socket (for udccp_sock_get_info()), or NULL; the
 * multipath connection owns it: never close it yourself. */
udccp_sock *udccp_mpsock_subflow(udccp_mpsock *mp, size_t i);

/* Sends what is queued (up to timeout_ms), closes every subflow
 * gracefully (RFC 4340 §8.3) and frees mp in every case.  Returns 0,
 * UDCCP_ERR_TIMEOUT (not all done in time: the endpoint finishes them),
 * or the first subflow's fatal code.  NULL is ignored (0).  Multipath
 * connections still open when their endpoint is deleted are freed with
 * it. */
int udccp_mpsock_close(udccp_mpsock *mp, int timeout_ms);

/* Aborts the multipath connection (RFC 9897 §3.2.3): every subflow sends
 * a Reset with code 13 (UDCCP_RESET_MP_ABRUPT, "abrupt MP termination")
 * carrying MP_FAST_CLOSE with the peer's key, and is torn down at once;
 * the peer answers with Reset 13 on the subflows still open and ends the
 * connection.  Queued data is dropped.  A connection that fell back to
 * plain DCCP (§3.6) sends Reset "Aborted".  Frees mp; NULL is ignored. */
void udccp_mpsock_abort(udccp_mpsock *mp);

/* ===================================================== end of io/ section */

#ifdef __cplusplus
}
#endif

/* The CCID interface (RFC 4340 §10): sender and receiver halves,
 * registration of experimental CCIDs at run time. */
#include <udccp/ccid.h>

#endif /* UDCCP_H */
