/* SPDX-License-Identifier: MIT */
/*
 * Names for codes, default settings and the default allocator.
 */
#include <stdlib.h>

#include <udccp/udccp.h>

const char *udccp_strerror(int err) {
  switch (err) {
  case 0: return "success";
  case UDCCP_ERR_INVALID_ARGUMENT: return "invalid argument";
  case UDCCP_ERR_NOBUF: return "buffer too small";
  case UDCCP_ERR_PROTO: return "malformed packet";
  case UDCCP_ERR_OPTION: return "malformed option";
  case UDCCP_ERR_MANDATORY: return "mandatory option not understood";
  case UDCCP_ERR_CHECKSUM: return "bad checksum";
  case UDCCP_ERR_SEQ: return "sequence number out of window";
  case UDCCP_ERR_INVALID_STATE: return "not allowed in this connection state";
  case UDCCP_ERR_AGAIN: return "try again (nothing ready, or queue full)";
  case UDCCP_ERR_MSGSIZE: return "datagram larger than the maximum packet size";
  case UDCCP_ERR_DROPPED: return "dropped (protocol rules, or a datagram past its deadline)";
  case UDCCP_ERR_SERVICE: return "no listener for this service code";
  case UDCCP_ERR_COOKIE: return "invalid or expired init cookie";
  case UDCCP_ERR_NOMEM: return "out of memory";
  case UDCCP_ERR_RESET: return "connection reset by peer";
  case UDCCP_ERR_REFUSED: return "connection refused by peer";
  case UDCCP_ERR_TIMEOUT: return "connection timed out";
  case UDCCP_ERR_CLOSED: return "connection closed";
  /* the socket runtime's codes (io/), named here too so that one call
   * names every code */
  case -220: return "address already in use";
  case -221: return "unknown host or bad address";
  case -222: return "socket system call failed";
  case -223: return "permission denied (raw sockets need root)";
  case -224: return "address family not supported";
  default: return "unknown error";
  }
}

const char *udccp_reset_code_str(int code) {
  static const char *const names[] = {
      "Unspecified",     "Closed",           "Aborted",
      "No Connection",   "Packet Error",     "Option Error",
      "Mandatory Error", "Connection Refused", "Bad Service Code",
      "Too Busy",        "Bad Init Cookie",  "Aggression Penalty",
      "Reserved",        "Abrupt MP termination"};
  if (code >= 0 && code < (int)(sizeof(names) / sizeof(names[0]))) {
    return names[code];
  }
  if (code == UDCCP_RESET_NONE) {
    return "none";
  }
  if (code >= 128 && code <= 255) {
    return "CCID-specific";
  }
  return "Reserved";
}

const char *udccp_state_str(int state) {
  static const char *const names[] = {"CLOSED",   "LISTEN", "REQUEST",
                                      "RESPOND",  "PARTOPEN", "OPEN",
                                      "CLOSEREQ", "CLOSING", "TIMEWAIT"};
  if (state >= 0 && state < (int)(sizeof(names) / sizeof(names[0]))) {
    return names[state];
  }
  return "UNKNOWN";
}

static void *mem_malloc(size_t size, void *ud) {
  (void)ud;
  return malloc(size);
}
static void mem_free(void *ptr, void *ud) {
  (void)ud;
  free(ptr);
}
static void *mem_calloc(size_t n, size_t size, void *ud) {
  (void)ud;
  return calloc(n, size);
}
static void *mem_realloc(void *ptr, size_t size, void *ud) {
  (void)ud;
  return realloc(ptr, size);
}

static const udccp_mem default_mem = {NULL, mem_malloc, mem_free, mem_calloc,
                                      mem_realloc};

const udccp_mem *udccp_mem_default(void) { return &default_mem; }

void udccp_settings_default(udccp_settings *s) {
  if (s == NULL) {
    return;
  }
  *s = (udccp_settings){0};
  s->mem = NULL;
  s->ccid = 2;
  s->rx_ccid = 0;
  s->cksum_mode = UDCCP_CKSUM_FULL;
  s->send_ndp_count = 0;
  s->allow_short_seqnos = 0;
  s->qpolicy = UDCCP_QPOLICY_SIMPLE;
  s->tx_qlen = 32;
  s->rx_qlen = 256;
  /* RFC 4340 §7.5.2: W should cover the packets we expect in flight.
   * The feature starts at 100, but a fast start (CCID 3's initial rate
   * from a sub-millisecond handshake RTT) into a peer that pauses for a
   * few milliseconds runs past 3W/4 of 100 before its first ack: its acks
   * then fall below our AWL and it refuses our packets.  So we ask for
   * 1000 from the handshake on (a blind attacker's odds per packet stay
   * ~W/2^48, §7.5.5); it grows with the rate (conn_in.c tune_seqwin). */
  s->seq_window = 1000;
  s->ack_ratio = 2;
  s->pmtu = 1500;
  s->hdr_overhead = 20;
  s->request_rto = 1 * UDCCP_NS_PER_S;      /* RFC 4340 §8.1.1 */
  s->request_timeout = 64 * UDCCP_NS_PER_S;
  s->close_timeout = 64 * UDCCP_NS_PER_S;
  s->timewait = 60 * UDCCP_NS_PER_S;        /* 2 MSL, §8.3 */
  s->partopen_timeout = 8 * 60 * UDCCP_NS_PER_S; /* §8.1.5 */
  s->idle_timeout = 0;
  /* Dead peers are reaped by default (90 s after their last packet). */
  s->keepalive_idle = 60 * UDCCP_NS_PER_S;
  s->keepalive_interval = 10 * UDCCP_NS_PER_S;
  s->keepalive_probes = 3;
}
