/* SPDX-License-Identifier: MIT */
/*
 * Connection life cycle and accessors: creation, settings validation,
 * state changes, MPS (RFC 4340 §14), windows (§7.5.1), close and abort
 * (§8.3), info.
 */
#include <stddef.h>
#include <string.h>

#include "conn.h"

/* Room for the largest header, some options and one payload byte; at most
 * UDCCP_PMTU_MAX, the largest packet IP carries without jumbograms (a
 * larger one sized queues of gigabytes). */
static int pmtu_valid(const udccp_settings *s, uint32_t pmtu) {
  return pmtu <= UDCCP_PMTU_MAX && pmtu >= s->hdr_overhead &&
         pmtu - s->hdr_overhead >= 128;
}

static int settings_valid(const udccp_settings *s) {
  if (s == NULL || s->rand == NULL) {
    return 0;
  }
  /* The library's CSPRNG draws from the generator in rand_user_data:
   * without one it would crash (or, as now, give zeros: RFC 4340 §7.2
   * wants unpredictable initial sequence numbers). */
  if (s->rand == udccp_csprng_fill && s->rand_user_data == NULL) {
    return 0;
  }
  if (s->cksum_mode > UDCCP_CKSUM_NONE || s->send_cscov > 15 ||
      s->min_cscov > 15 || s->qpolicy > UDCCP_QPOLICY_PRIO) {
    return 0;
  }
  if (s->tx_qlen == 0 || s->rx_qlen == 0 || s->ack_ratio == 0) {
    return 0;
  }
  /* RFC 4340 §7.5.2: Wmin = 32, Wmax = 2^46 - 1. */
  if (s->seq_window < 32 || s->seq_window > 70368744177663ULL) {
    return 0;
  }
  /* Room for the largest header, some options and one payload byte. */
  if (!pmtu_valid(s, s->pmtu)) {
    return 0;
  }
  if (s->request_rto == 0 || s->request_timeout == 0 ||
      s->close_timeout == 0 || s->timewait == 0 || s->partopen_timeout == 0) {
    return 0;
  }
  if (s->keepalive_idle != 0 &&
      (s->keepalive_interval == 0 || s->keepalive_probes == 0 ||
       s->keepalive_probes > 255)) {
    return 0;
  }
  if (s->multipath > 1) {
    return 0;
  }
  return 1;
}

int udccp_conn_set_server_timewait(udccp_conn *conn, int on) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  conn->settings.server_timewait = (uint8_t)(on != 0);
  return 0;
}

int udccp_settings_check(const udccp_settings *s) {
  return settings_valid(s) ? 0 : UDCCP_ERR_INVALID_ARGUMENT;
}

/* Per-connection allocator hooks (issue 13): forward to the settings'
 * allocator and count the bytes the connection holds, reported in
 * udccp_conn_info.mem_bytes.  Each block carries its size in a header of
 * CONN_MEM_HDR bytes.  8 keeps the payload aligned for everything the
 * library allocates through these hooks (integers up to 64 bits, doubles,
 * pointers; no long double or vector types), and an idle connection's
 * handful of blocks is part of its 4 KiB budget. */
#define CONN_MEM_HDR 8u

static void *conn_mem_malloc(size_t n, void *ud) {
  udccp_conn *conn = ud;
  uint8_t *p;
  if (n > SIZE_MAX - CONN_MEM_HDR) {
    return NULL;
  }
  p = conn->base_mem->malloc(n + CONN_MEM_HDR, conn->base_mem->user_data);
  if (p == NULL) {
    return NULL;
  }
  memcpy(p, &n, sizeof(n));
  conn->mem_bytes += n + CONN_MEM_HDR;
  return p + CONN_MEM_HDR;
}

static void conn_mem_free(void *ptr, void *ud) {
  udccp_conn *conn = ud;
  uint8_t *p = ptr;
  size_t n;
  if (p == NULL) {
    return;
  }
  p -= CONN_MEM_HDR;
  memcpy(&n, p, sizeof(n));
  conn->mem_bytes -= n + CONN_MEM_HDR;
  conn->base_mem->free(p, conn->base_mem->user_data);
}

static void *conn_mem_calloc(size_t n, size_t sz, void *ud) {
  void *p;
  if (sz != 0 && n > SIZE_MAX / sz) {
    return NULL;
  }
  p = conn_mem_malloc(n * sz, ud);
  if (p != NULL) {
    memset(p, 0, n * sz);
  }
  return p;
}

static void *conn_mem_realloc(void *ptr, size_t n, void *ud) {
  size_t old;
  void *p;
  if (ptr == NULL) {
    return conn_mem_malloc(n, ud);
  }
  memcpy(&old, (uint8_t *)ptr - CONN_MEM_HDR, sizeof(old));
  p = conn_mem_malloc(n, ud);
  if (p != NULL) {
    memcpy(p, ptr, old < n ? old : n);
    conn_mem_free(ptr, ud);
  }
  return p;
}

static uint64_t rand48(udccp_conn *conn) {
  uint8_t b[6];
  uint64_t v = 0;
  size_t i;
  conn->settings.rand(b, sizeof(b), conn->settings.rand_user_data);
  for (i = 0; i < sizeof(b); ++i) {
    v = (v << 8) | b[i];
  }
  return v & UDCCP_SEQ_MASK;
}

int udccp_conn_new_common(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          int is_server, udccp_tstamp ts) {
  const udccp_mem *mem;
  udccp_conn *conn;
  uint8_t rx_ccid;
  int rv;

  if (pconn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *pconn = NULL;
  if (!settings_valid(settings) || path == NULL ||
      (path->family != UDCCP_AF_INET && path->family != UDCCP_AF_INET6) ||
      service_code == UDCCP_SERVICE_CODE_INVALID) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  rx_ccid = settings->rx_ccid ? settings->rx_ccid : settings->ccid;
  if (udccp_ccid_find(settings->ccid) == NULL ||
      udccp_ccid_find(rx_ccid) == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mem = settings->mem ? settings->mem : udccp_mem_default();
  conn = mem->calloc(1, sizeof(*conn), mem->user_data);
  if (conn == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  conn->base_mem = mem;
  conn->mem_hooks.user_data = conn;
  conn->mem_hooks.malloc = conn_mem_malloc;
  conn->mem_hooks.free = conn_mem_free;
  conn->mem_hooks.calloc = conn_mem_calloc;
  conn->mem_hooks.realloc = conn_mem_realloc;
  mem = &conn->mem_hooks;
  conn->mem = mem;
  conn->settings = *settings;
  conn->settings.mem = mem;
  conn->path = *path;
  conn->is_server = (uint8_t)(is_server != 0);
  conn->service_code = service_code;
  conn->reset_code = UDCCP_RESET_NONE;
  conn->tx_ccid_id = settings->ccid;
  conn->rx_ccid_id = rx_ccid;
  conn->seqwin_local = UDCCP_CONN_SEQWIN_INIT;
  conn->seqwin_remote = UDCCP_CONN_SEQWIN_INIT;
  conn->ack_ratio_cur = 2; /* RFC 4341 §6.1.2: initial Ack Ratio 2 */
  conn->env.mem = mem;
  conn->env.ack_ratio = conn->ack_ratio_cur;
  conn->env.seq_window_out = conn->seqwin_local;
  conn->env.seq_window_in = conn->seqwin_remote;
  conn->env_rx = conn->env;
  conn->ts_origin = ts;
  conn->t_retx = UDCCP_TSTAMP_NEVER;
  conn->t_timewait = UDCCP_TSTAMP_NEVER;
  conn->t_listen = UDCCP_TSTAMP_NEVER;
  conn->t_last_sync = UDCCP_TSTAMP_NEVER;
  conn->t_stall = UDCCP_TSTAMP_NEVER;
  conn->t_last_tx = ts;
  conn->win_mark_ts = UDCCP_TSTAMP_NEVER;
  conn->t_ackack = UDCCP_TSTAMP_NEVER;
  conn->ackack_every = 1; /* until the CCID's window is known */
  conn->t_trim = UDCCP_TSTAMP_NEVER;
  conn->now = ts;
  conn->t_last_rx = ts;
  conn->rx_quiet = settings->idle_timeout ? settings->idle_timeout
                                          : UDCCP_TSTAMP_NEVER;
  if (settings->keepalive_idle && settings->keepalive_idle < conn->rx_quiet) {
    conn->rx_quiet = settings->keepalive_idle;
  }
  conn->t_last_ack_tx = ts;
  conn->slow_until = 0;

  /* RFC 4340 §7.2: the initial sequence number is random. */
  conn->iss = rand48(conn);
  conn->nonce_rng = (rand48(conn) << 16) | 1u; /* xorshift: never 0 */
  conn->gss = udccp_seq_add(conn->iss, -1);
  conn->gar = conn->iss;

  rv = udccp_feat_init(&conn->feat, settings, is_server, conn->iss,
                       udccp_ccid_find);
  if (rv != 0) {
    conn->base_mem->free(conn, conn->base_mem->user_data);
    return rv;
  }
  rv = udccp_mp_new(&conn->mp, &conn->feat, conn->settings.rand,
                    conn->settings.rand_user_data, conn->mem);
  if (rv != 0) {
    conn->base_mem->free(conn, conn->base_mem->user_data);
    return rv;
  }
  udccp_conn_update_mps(conn);
  rv = udccp_sendq_init(&conn->sendq, mem, settings->qpolicy,
                        settings->tx_qlen, conn->info.mps);
  if (rv == 0) {
    /* One MPS per slot is the worst case; bound the arena by it. */
    rv = udccp_rxq_init(&conn->rxq, mem, settings->rx_qlen,
                        (size_t)settings->rx_qlen *
                            (settings->pmtu - settings->hdr_overhead));
  }
  /* Drained queues keep their blocks while the connection is busy
   * (UDCCP_CONN_TRIM_AFTER). */
  conn->sendq.keep = 1;
  conn->rxq.keep = 1;
  if (rv == 0) {
    /* Small at first: the Ack Vector grows with the packets it must
     * report. */
    rv = udccp_ackvec_init(&conn->av, mem, 16);
    conn->av_up = rv == 0;
  }
  /* The ack queue is allocated when an ack waits (udccp_conn_ack_now). */
  conn->ackq_slot = settings->pmtu - settings->hdr_overhead;
  if (rv != 0) {
    udccp_conn_del(conn);
    return rv == UDCCP_ERR_NOMEM ? UDCCP_ERR_NOMEM : rv;
  }
  *pconn = conn;
  return 0;
}

int udccp_conn_client_new(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          udccp_tstamp ts) {
  udccp_conn *conn;
  int rv = udccp_conn_new_common(pconn, settings, path, service_code, 0, ts);
  if (rv != 0) {
    return rv;
  }
  conn = *pconn;
  /* RFC 4340 §8.1.1: the client sends the Request and retransmits it with
   * exponential back-off. */
  conn->state = UDCCP_STATE_REQUEST;
  conn->pending |= UDCCP_PEND_REQUEST;
  conn->t_start = ts;
  udccp_conn_timer_start(conn, conn->settings.request_rto, ts);
  udccp_conn_update_windows(conn);
  return 0;
}

int udccp_conn_listen_new(udccp_conn **pconn, const udccp_settings *settings,
                          const udccp_path *path, uint32_t service_code,
                          udccp_tstamp ts) {
  udccp_conn *conn;
  int rv = udccp_conn_new_common(pconn, settings, path, service_code, 1, ts);
  if (rv != 0) {
    return rv;
  }
  conn = *pconn;
  /* RFC 5596 §2.2: a server in LISTEN for a known client sends Listen
   * packets so that middleboxes let the client's Request through. */
  conn->state = UDCCP_STATE_LISTEN;
  conn->pending |= UDCCP_PEND_LISTEN;
  conn->t_listen = ts;
  conn->t_start = ts;
  return 0;
}

int udccp_conn_ackq_alloc(udccp_conn *conn) {
  if (conn->ackq == NULL) {
    conn->ackq = conn->mem->malloc(UDCCP_CONN_ACKQ * conn->ackq_slot,
                                   conn->mem->user_data);
    if (conn->ackq == NULL) {
      return UDCCP_ERR_NOMEM;
    }
  }
  return 0;
}

void udccp_conn_ackq_release(udccp_conn *conn) {
  if (conn->ackq != NULL && conn->ackq_n == 0) {
    conn->mem->free(conn->ackq, conn->mem->user_data);
    conn->ackq = NULL;
    conn->ackq_head = 0;
  }
}

void udccp_conn_release_buffers(udccp_conn *conn) {
  if (conn->tx_st != NULL) {
    if (conn->tx_ccid_up && conn->tx_ccid->tx_exit) {
      conn->tx_ccid->tx_exit(conn->tx_st);
    }
    conn->mem->free(conn->tx_st, conn->mem->user_data);
    conn->tx_st = NULL;
  }
  conn->tx_ccid_up = 0;
  if (conn->rx_st != NULL) {
    if (conn->rx_ccid_up && conn->rx_ccid->rx_get_info) {
      /* the receiver's loss count outlives its CCID (a closed
       * connection still reports what it lost) */
      udccp_conn_info last;
      memset(&last, 0, sizeof(last));
      conn->rx_ccid->rx_get_info(conn->rx_st, &last);
      conn->info.pkts_lost_rx = last.pkts_lost_rx;
    }
    if (conn->rx_ccid_up && conn->rx_ccid->rx_exit) {
      conn->rx_ccid->rx_exit(conn->rx_st);
    }
    conn->mem->free(conn->rx_st, conn->mem->user_data);
    conn->rx_st = NULL;
  }
  conn->rx_ccid_up = 0;
  /* Queued datagrams can no longer go; the queue keeps its length, so
   * that the application sees space, tries, and learns the error. */
  udccp_sendq_clear(&conn->sendq);
  if (conn->av_up) {
    udccp_ackvec_free(&conn->av);
    conn->av_up = 0;
    conn->av.empty = 1;
  }
  conn->ackq_n = 0;
  udccp_conn_ackq_release(conn);
  udccp_conn_drops_release(conn);
  /* Data that arrived before the close stays readable (§8.3: the
   * application reads it after the peer closed); the queue frees itself
   * once drained (no timer trims a dead connection's queue). */
  conn->sendq.keep = 0;
  conn->rxq.keep = 0;
  (void)udccp_rxq_trim(&conn->rxq);
  conn->t_trim = UDCCP_TSTAMP_NEVER;
}

void udccp_conn_drops_release(udccp_conn *conn) {
  if (conn->drops != NULL) {
    conn->mem->free(conn->drops, conn->mem->user_data);
    conn->drops = NULL;
  }
  conn->n_drops = 0;
}

void udccp_conn_del(udccp_conn *conn) {
  if (conn == NULL) {
    return;
  }
  udccp_conn_release_buffers(conn);
  udccp_sendq_free(&conn->sendq);
  udccp_rxq_free(&conn->rxq);
  if (conn->echo_cookies != NULL) {
    conn->mem->free(conn->echo_cookies, conn->mem->user_data);
  }
  udccp_mp_free(conn->mp, conn->mem);
  conn->base_mem->free(conn, conn->base_mem->user_data);
}

/* A CCID half's state, sized by the CCID (zeroed). */
static udccp_ccid_state *ccid_state_new(udccp_conn *conn, size_t size) {
  return conn->mem->calloc(1, size ? size : sizeof(udccp_ccid_state),
                           conn->mem->user_data);
}

int udccp_conn_start_ccids(udccp_conn *conn, udccp_tstamp ts) {
  int rv;
  if (conn->state == UDCCP_STATE_CLOSED ||
      conn->state == UDCCP_STATE_TIMEWAIT) {
    return 0; /* a tombstone does not start CCIDs again */
  }
  if (!conn->tx_ccid_up) {
    conn->tx_ccid = udccp_ccid_find(conn->tx_ccid_id);
    if (conn->tx_ccid == NULL) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    if (conn->tx_st == NULL) {
      conn->tx_st = ccid_state_new(conn, conn->tx_ccid->tx_size);
      if (conn->tx_st == NULL) {
        return UDCCP_ERR_NOMEM;
      }
    }
    rv = conn->tx_ccid->tx_init(conn->tx_st, &conn->env, ts);
    if (rv != 0) {
      return rv;
    }
    conn->tx_ccid_up = 1;
  }
  if (!conn->rx_ccid_up) {
    conn->rx_ccid = udccp_ccid_find(conn->rx_ccid_id);
    if (conn->rx_ccid == NULL) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    if (conn->rx_st == NULL) {
      conn->rx_st = ccid_state_new(conn, conn->rx_ccid->rx_size);
      if (conn->rx_st == NULL) {
        return UDCCP_ERR_NOMEM;
      }
    }
    udccp_conn_sync_env(conn);
    rv = conn->rx_ccid->rx_init(conn->rx_st, &conn->env_rx, ts);
    if (rv != 0) {
      return rv;
    }
    conn->rx_ccid_up = 1;
  }
  return 0;
}

void udccp_conn_set_state(udccp_conn *conn, uint8_t state, udccp_tstamp ts) {
  (void)ts;
  conn->state = state;
}

void udccp_conn_kill(udccp_conn *conn, int err, int reset_code) {
  conn->state = UDCCP_STATE_CLOSED;
  if (conn->error == 0) {
    conn->error = err;
  }
  if (reset_code != UDCCP_RESET_NONE || conn->reset_code == UDCCP_RESET_NONE) {
    if (reset_code != UDCCP_RESET_NONE) {
      conn->reset_code = (int16_t)reset_code;
    }
  }
  /* Only a Reset may still leave a dead connection. */
  conn->pending &= UDCCP_PEND_RESET;
  conn->ackq_n = 0;
  udccp_conn_release_buffers(conn);
  udccp_conn_timer_stop(conn);
  conn->t_timewait = UDCCP_TSTAMP_NEVER;
  conn->t_listen = UDCCP_TSTAMP_NEVER;
}

void udccp_conn_enter_timewait(udccp_conn *conn, udccp_tstamp ts) {
  /* RFC 4340 §8.3: TIMEWAIT lasts 2 MSL (settings.timewait). */
  conn->state = UDCCP_STATE_TIMEWAIT;
  conn->pending &= UDCCP_PEND_RESET;
  conn->ackq_n = 0;
  /* Issue 12/13: TIMEWAIT keeps a tombstone (this struct: numbers and
   * timers), not buffers or CCID state. */
  udccp_conn_release_buffers(conn);
  udccp_conn_timer_stop(conn);
  conn->t_timewait = ts + conn->settings.timewait;
  if (conn->error == 0) {
    conn->error = UDCCP_ERR_CLOSED;
  }
  conn->peer_closed = 1;
}

void udccp_conn_send_reset(udccp_conn *conn, uint8_t code, const uint8_t *data,
                           int fatal_err) {
  conn->pend_reset_code = code;
  if (data != NULL) {
    memcpy(conn->pend_reset_data, data, 3);
  } else {
    memset(conn->pend_reset_data, 0, 3);
  }
  /* RFC 4340 §7.4: the Acknowledgement Number is GSR -- but a client in
   * REQUEST has received no sequence number (no ISR): §8.1.1 says its
   * Reset's Acknowledgement Number MUST be zero. */
  conn->reset_ackno = conn->have_isr ? conn->gsr : 0;
  /* Our own Reset, numbered GSS + 1: not the stateless reply to an input
   * (§8.3.1) that may have been waiting to go. */
  conn->reset_use_seq = 0;
  udccp_conn_kill(conn, fatal_err, UDCCP_RESET_NONE);
  /* Recorded here, not through udccp_conn_kill(): code 255 is a valid
   * CCID-specific code (§5.6), the value of UDCCP_RESET_NONE. */
  conn->reset_code = code;
  conn->reset_from = UDCCP_RESET_FROM_LOCAL;
  conn->pending |= UDCCP_PEND_RESET;
}

size_t udccp_conn_opts_reserve(const udccp_conn *conn) {
  /* Options a data packet normally carries: Timestamp (6), Timestamp Echo
   * with Elapsed Time (10), NDP Count (up to 8 with Mandatory-free 6-byte
   * value), Data Checksum (6), a few bytes of CCID options; rounded to 4.
   * Ack Vectors that do not fit next to a full datagram travel on a
   * separate Ack (conn_out.c). */
  (void)conn;
  return 40;
}

void udccp_conn_update_mps(udccp_conn *conn) {
  size_t pkt_max = conn->settings.pmtu - conn->settings.hdr_overhead;
  /* RFC 4340 §14: MPS = PMTU - lower headers - DCCP header - options.
   * The DCCP header is the DataAck one with 48-bit numbers (24 bytes). */
  size_t hdr = 24 + udccp_conn_opts_reserve(conn);
  conn->info.mps = pkt_max > hdr ? (uint32_t)(pkt_max - hdr) : 0;
  conn->env.mps = conn->info.mps;
  conn->env_rx.mps = conn->info.mps;
}

int udccp_conn_set_pmtu(udccp_conn *conn, uint32_t pmtu) {
  if (conn == NULL || !pmtu_valid(&conn->settings, pmtu)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* A dead connection sends nothing more: its queues are gone (TIMEWAIT
   * and CLOSED keep only the object), and a resize would bring them
   * back. */
  if (conn->state == UDCCP_STATE_CLOSED ||
      conn->state == UDCCP_STATE_TIMEWAIT) {
    return UDCCP_ERR_INVALID_STATE;
  }
  conn->settings.pmtu = pmtu;
  /* The receive queue's byte bound (one packet per slot, set at creation
   * from the configured PMTU) follows a larger path: io/ raises the PMTU
   * to the route's at connect.  Only a bound: memory still grows with
   * what is queued.  Never lowered (queued datagrams may exceed it). */
  size_t rx_bound =
      (size_t)conn->rxq.qlen * (pmtu - conn->settings.hdr_overhead);
  if (rx_bound > conn->rxq.arena_size) {
    conn->rxq.arena_size = rx_bound;
  }
  udccp_conn_update_mps(conn);
  if (conn->info.mps > conn->sendq.max_dgram) {
    int rv = udccp_sendq_resize(&conn->sendq, conn->info.mps);
    if (rv != 0) {
      return rv;
    }
  } else {
    (void)udccp_sendq_resize(&conn->sendq, conn->info.mps);
  }
  return 0;
}

size_t udccp_conn_get_mps(const udccp_conn *conn) {
  return conn != NULL ? conn->info.mps : 0;
}

const udccp_path *udccp_conn_get_path(const udccp_conn *conn) {
  return conn != NULL ? &conn->path : NULL;
}

int udccp_conn_get_state(const udccp_conn *conn) {
  return conn != NULL ? conn->state : UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_conn_get_error(const udccp_conn *conn) {
  return conn != NULL ? conn->error : UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_conn_get_reset_code(const udccp_conn *conn) {
  return conn != NULL ? conn->reset_code : UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_conn_is_done(const udccp_conn *conn) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (conn->state == UDCCP_STATE_CLOSED) {
    return (conn->pending & UDCCP_PEND_RESET) == 0;
  }
  return 0;
}

int udccp_conn_queue_datagram(udccp_conn *conn, const void *data, size_t len,
                              uint32_t prio, udccp_tstamp ts) {
  return udccp_conn_queue_datagram_until(conn, data, len, prio,
                                         UDCCP_TSTAMP_NEVER, ts);
}

/* Whether the connection takes a datagram of len bytes from the
 * application now: 0 or the error udccp_conn_queue_datagram() returns. */
static int may_take(const udccp_conn *conn, size_t len) {
  if (conn->error <= UDCCP_ERR_FATAL && conn->state == UDCCP_STATE_CLOSED) {
    return conn->error;
  }
  if (conn->closing_after_q ||
      (conn->state != UDCCP_STATE_OPEN && conn->state != UDCCP_STATE_PARTOPEN &&
       conn->state != UDCCP_STATE_REQUEST &&
       conn->state != UDCCP_STATE_RESPOND)) {
    return UDCCP_ERR_INVALID_STATE;
  }
  if (len > conn->info.mps) {
    return UDCCP_ERR_MSGSIZE;
  }
  return 0;
}

/* may_take(), the deadline, and the expired datagrams' room given back:
 * for udccp_conn_queue_datagram_until() and udccp_conn_reserve_datagram(). */
static int may_queue(udccp_conn *conn, size_t len, udccp_tstamp expires,
                     udccp_tstamp ts) {
  int rv = may_take(conn, len);
  if (rv != 0) {
    return rv;
  }
  if (expires <= ts) {
    /* Too late already: never queued, counted as expired. */
    conn->sendq.expired++;
    return UDCCP_ERR_DROPPED;
  }
  /* Expired datagrams give their room back before the push is judged. */
  (void)udccp_sendq_expire(&conn->sendq, ts);
  return 0;
}

int udccp_conn_queue_datagram_until(udccp_conn *conn, const void *data,
                                    size_t len, uint32_t prio,
                                    udccp_tstamp expires, udccp_tstamp ts) {
  int rv;
  if (conn == NULL || (data == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT; /* was a copy from NULL */
  }
  rv = may_queue(conn, len, expires, ts);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_sendq_push_until(&conn->sendq, data, len, prio, expires);
  if (rv == 0) {
    udccp_conn_trim_arm(conn, ts);
  }
  return rv;
}

int udccp_conn_reserve_datagram(udccp_conn *conn, size_t len, uint32_t prio,
                                udccp_tstamp expires, uint8_t **pbuf,
                                udccp_tstamp ts) {
  int rv;
  if (conn == NULL || pbuf == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  rv = may_queue(conn, len, expires, ts);
  if (rv != 0) {
    return rv;
  }
  return udccp_sendq_reserve_inline(&conn->sendq, len, prio, expires, pbuf);
}

int udccp_conn_commit_datagram(udccp_conn *conn, size_t len, udccp_tstamp ts) {
  /* The state may have changed since the reservation (a packet read, a
   * close): the rules of udccp_conn_queue_datagram() apply at commit. */
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  int rv = may_take(conn, len);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_sendq_commit_inline(&conn->sendq, len);
  if (rv == 0) {
    udccp_conn_trim_arm(conn, ts);
  }
  return rv;
}

size_t udccp_conn_get_send_space(const udccp_conn *conn) {
  if (conn == NULL) {
    return 0;
  }
  return udccp_sendq_space(&conn->sendq);
}

udccp_ssize udccp_conn_read_datagram(udccp_conn *conn, void *buf, size_t cap) {
  return udccp_conn_read_datagram_ex(conn, buf, cap, NULL);
}

/* An empty receive queue's answer to a read (udccp_conn_read_datagram_ex()
 * and udccp_conn_peek_datagram()). */
static udccp_ssize read_empty(const udccp_conn *conn) {
  if (conn->error <= UDCCP_ERR_FATAL &&
      (conn->peer_closed || conn->state == UDCCP_STATE_CLOSED ||
       conn->state == UDCCP_STATE_TIMEWAIT)) {
    return conn->error;
  }
  return UDCCP_ERR_AGAIN;
}

/* Fills the members of *ri the caller's struct has (ri->size): the
 * datagram's losses before it and its sequence number. */
static void fill_recv_info(udccp_recv_info *ri, uint64_t lost, uint64_t seq) {
  if (ri->size >= offsetof(udccp_recv_info, lost_before) + 8) {
    ri->lost_before = lost;
  }
  if (ri->size >= offsetof(udccp_recv_info, seq) + 8) {
    ri->seq = seq;
  }
}

udccp_ssize udccp_conn_read_datagram_ex(udccp_conn *conn, void *buf,
                                        size_t cap, udccp_recv_info *ri) {
  const udccp_rxq_ent *e;
  uint64_t seq, lost;
  udccp_ssize n;
  if (conn == NULL || (ri != NULL && ri->size < 8) ||
      (buf == NULL && cap > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* An empty queue answered first: the application reads until it is
   * (issue 13: every batch ends with this call). */
  if (udccp_rxq_len(&conn->rxq) == 0) {
    return read_empty(conn);
  }
  e = udccp_rxq_head(&conn->rxq);
  seq = e->seq;
  lost = e->lost;
  n = udccp_rxq_pop(&conn->rxq, buf, cap);
  if (n >= 0 && ri != NULL) {
    fill_recv_info(ri, lost, seq);
  }
  return n;
}

udccp_ssize udccp_conn_peek_datagram(udccp_conn *conn, const uint8_t **pdata,
                                     udccp_recv_info *ri) {
  const udccp_rxq_ent *e;
  if (conn == NULL || pdata == NULL || (ri != NULL && ri->size < 8)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (udccp_rxq_len(&conn->rxq) == 0) {
    return read_empty(conn);
  }
  e = udccp_rxq_head(&conn->rxq);
  if (ri != NULL) {
    fill_recv_info(ri, e->lost, e->seq);
  }
  return udccp_rxq_peek_inline(&conn->rxq, pdata);
}

int udccp_conn_consume_datagram(udccp_conn *conn) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_rxq_discard_inline(&conn->rxq);
}

udccp_ssize udccp_conn_peek_datagram_len(const udccp_conn *conn) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_rxq_peek_len(&conn->rxq);
}

int udccp_conn_close(udccp_conn *conn, udccp_tstamp ts) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  switch (conn->state) {
  case UDCCP_STATE_OPEN:
  case UDCCP_STATE_PARTOPEN:
  case UDCCP_STATE_RESPOND:
    /* RFC 4340 §8.3: queued data goes first; conn_out.c sends Close or
     * CloseReq once the send queue is empty. */
    conn->closing_after_q = 1;
    return 0;
  case UDCCP_STATE_REQUEST:
  case UDCCP_STATE_LISTEN:
    /* Nothing to close gracefully yet: no handshake completed, so the
     * peer holds at most a half-open RESPOND, which times out (§8.1.3). */
    udccp_conn_kill(conn, UDCCP_ERR_CLOSED, UDCCP_RESET_NONE);
    (void)ts;
    return 0;
  case UDCCP_STATE_CLOSEREQ:
  case UDCCP_STATE_CLOSING:
    return 0; /* a close under way (ours or the peer's): idempotent */
  default:
    /* CLOSED or TIMEWAIT: done.  After a close (either side's) a second
     * one is no error, as POSIX shutdown() twice; a connection that died
     * otherwise (Reset, timeout) has nothing to close. */
    return conn->error == UDCCP_ERR_CLOSED ? 0 : UDCCP_ERR_INVALID_STATE;
  }
}

int udccp_conn_abort(udccp_conn *conn, uint8_t reset_code, udccp_tstamp ts) {
  (void)ts;
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (conn->state == UDCCP_STATE_CLOSED ||
      conn->state == UDCCP_STATE_TIMEWAIT) {
    return UDCCP_ERR_INVALID_STATE;
  }
  /* LISTEN (RFC 5596): no client has spoken yet; REQUEST before the
   * first Request left: nobody holds state to clean up.  Nothing is sent
   * (udccp_conn_get_reset_code() stays UDCCP_RESET_NONE). */
  if (conn->state == UDCCP_STATE_LISTEN ||
      (conn->state == UDCCP_STATE_REQUEST && conn->info.pkts_sent == 0)) {
    udccp_conn_kill(conn, UDCCP_ERR_RESET, UDCCP_RESET_NONE);
    return 0;
  }
  /* REQUEST: §8.1.1, a client giving up sends a Reset in case a Request
   * arrived, acknowledging 0 (udccp_conn_send_reset()). */
  udccp_conn_send_reset(conn, reset_code, NULL, UDCCP_ERR_RESET);
  return 0;
}

void udccp_conn_get_info(const udccp_conn *conn, udccp_conn_info *info) {
  const udccp_conn_counters *k;
  if (info == NULL) {
    return;
  }
  memset(info, 0, sizeof(*info));
  if (conn == NULL) {
    return;
  }
  k = &conn->info;
  info->mps = k->mps;
  info->pkts_sent = k->pkts_sent;
  info->pkts_recv = k->pkts_recv;
  info->bytes_sent = k->bytes_sent;
  info->bytes_recv = k->bytes_recv;
  info->data_pkts_sent = k->data_pkts_sent;
  info->data_pkts_recv = k->data_pkts_recv;
  info->data_bytes_sent = k->data_bytes_sent;
  info->data_bytes_recv = k->data_bytes_recv;
  info->pkts_dropped = k->pkts_dropped;
  info->pkts_seq_invalid = k->pkts_seq_invalid;
  info->pkts_dup = k->pkts_dup;
  info->pkts_malformed = k->pkts_malformed;
  info->pkts_bad_cksum = k->pkts_bad_cksum;
  info->rx_qdrops = k->rx_qdrops;
  info->syncs_sent = k->syncs_sent;
  info->syncs_recv = k->syncs_recv;
  info->retransmits = k->retransmits;
  info->keepalive_probes = k->keepalive_probes;
  info->keepalive_timeouts = k->keepalive_timeouts;
  info->pkts_lost_rx = k->pkts_lost_rx; /* the CCID's, if it runs, below */
  info->reset_from = conn->reset_from;
  info->state = conn->state;
  info->tx_ccid = conn->tx_ccid_id;
  info->rx_ccid = conn->rx_ccid_id;
  info->gss = conn->gss;
  info->gsr = conn->gsr;
  info->gar = conn->gar;
  info->swl = conn->swl;
  info->swh = conn->swh;
  info->awl = conn->awl;
  info->awh = conn->awh;
  info->ack_ratio = conn->ack_ratio_cur;
  info->srtt = conn->env.srtt;
  info->rttvar = conn->env.rttvar;
  info->rto = conn->env.rto;
  info->min_rtt = conn->env.min_rtt;
  info->pkts_lost = conn->env.pkts_lost;
  /* Policy drops plus datagrams the connection itself had to drop. */
  info->tx_qdrops = conn->info.tx_qdrops + udccp_sendq_drops(&conn->sendq);
  info->mem_bytes = sizeof(*conn) + conn->mem_bytes;
  info->tx_expired = udccp_sendq_expired(&conn->sendq);
  if (conn->tx_ccid_up && conn->tx_ccid->tx_get_info) {
    conn->tx_ccid->tx_get_info(conn->tx_st, info);
  }
  if (conn->rx_ccid_up && conn->rx_ccid->rx_get_info) {
    conn->rx_ccid->rx_get_info(conn->rx_st, info);
  }
  /* Queueing delay: a CCID may have its own estimate (a delay model);
   * otherwise the standing queue is what the smoothed RTT has above the
   * smallest RTT seen (the path's base RTT as far as the sender knows). */
  if (info->qdelay == 0 && info->min_rtt > 0 && info->srtt > info->min_rtt) {
    info->qdelay = info->srtt - info->min_rtt;
  }
}
