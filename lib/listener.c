/* SPDX-License-Identifier: MIT */
/*
 * Listener: Requests for one port, several Service Codes (RFC 5595 §4),
 * stateless replies (Bad Service Code, Too Busy, No Connection) and the
 * stateless Init Cookie path (RFC 4340 §8.1.4, §8.5 step 3).
 *
 * Bounds (udccp.h explains the settings):
 * - RFC 4340 §4.7, §8.1.4: the server "MAY" keep no state for a Request
 *   and answer with an Init Cookie.  We keep state for at most
 *   half_open_max Requests (AUTO) and send cookies past that, or always
 *   (ALWAYS).  The Response of the cookie path is built by a throw-away
 *   connection with one-slot queues, so a spoofed Request costs no memory
 *   that outlives the packet.
 * - A cookie makes at most one connection: the MACs of the cookies that
 *   made one are remembered for as long as their secret verifies (two
 *   lifetimes), one table per secret epoch, dropped when the epoch
 *   retires.  The table is bounded (cookie_replay_max); past that, cookie
 *   Acks get Too Busy (fail closed, never replayable).
 * - The accept backlog (phase QUEUED) and max_conns: Reset Too Busy
 *   (§5.6, Reset Code 9) to Requests and cookie Acks past them.
 */
#include <string.h>

#include "cksum.h"
#include "conn.h"
#include "cookie.h"

/* MACs of the cookies one secret epoch made that already made a
 * connection: open addressing, 0 = empty slot. */
typedef struct replay_set {
  uint64_t epoch;
  uint64_t *tab;
  uint32_t cap; /* slots: 0 or a power of two */
  uint32_t n;
  uint8_t used; /* epoch is meaningful */
} replay_set;

struct udccp_listener {
  const udccp_mem *mem;
  udccp_settings settings;
  udccp_settings scratch; /* settings of the cookie path's throw-away conn */
  uint32_t *codes;
  size_t n_codes;
  uint8_t init_cookie;
  uint32_t max_conns;
  uint32_t half_open_max;
  uint32_t backlog;
  uint32_t replay_max;
  uint32_t n_conns;
  uint32_t n_half_open;
  uint32_t n_queued;
  uint64_t cookies_sent, cookies_replayed, too_busy;
  udccp_cookie_jar jar;
  replay_set replay[2]; /* [epoch & 1] */
  udccp_mp_resolve_fn mp_resolve; /* RFC 9897 joins (mp.h) */
  void *mp_resolve_ud;
};

static void replay_free(udccp_listener *lis, replay_set *rs) {
  lis->mem->free(rs->tab, lis->mem->user_data);
  rs->tab = NULL;
  rs->cap = 0;
  rs->n = 0;
}

/* Slot of key in a table of cap (a power of two) slots: the MAC is keyed
 * and uniform, its low bits index well. */
static uint32_t replay_slot(const uint64_t *tab, uint32_t cap, uint64_t key) {
  uint32_t i = (uint32_t)key & (cap - 1);
  while (tab[i] != 0 && tab[i] != key) {
    i = (i + 1) & (cap - 1);
  }
  return i;
}

/* Records the cookie (epoch, mac).  Returns 0 if it is new, 1 if it was
 * already recorded (a replay), UDCCP_ERR_NOMEM if the table is full or
 * cannot grow. */
static int replay_record(udccp_listener *lis, uint64_t epoch, uint64_t mac) {
  replay_set *rs = &lis->replay[epoch & 1];
  uint64_t key = mac != 0 ? mac : 1;
  uint32_t i;
  if (!rs->used || rs->epoch != epoch) {
    /* The epoch this table held retired: its cookies verify no more. */
    replay_free(lis, rs);
    rs->epoch = epoch;
    rs->used = 1;
  }
  if (rs->cap != 0) {
    i = replay_slot(rs->tab, rs->cap, key);
    if (rs->tab[i] == key) {
      return 1;
    }
  }
  if (rs->n >= lis->replay_max) {
    return UDCCP_ERR_NOMEM;
  }
  if (2 * (rs->n + 1) > rs->cap) { /* load <= 1/2 */
    uint32_t nc = rs->cap ? 2 * rs->cap : 64, k;
    uint64_t *nt = lis->mem->calloc(nc, sizeof(*nt), lis->mem->user_data);
    if (nt == NULL) {
      return UDCCP_ERR_NOMEM;
    }
    for (k = 0; k < rs->cap; ++k) {
      if (rs->tab[k] != 0) {
        nt[replay_slot(nt, nc, rs->tab[k])] = rs->tab[k];
      }
    }
    lis->mem->free(rs->tab, lis->mem->user_data);
    rs->tab = nt;
    rs->cap = nc;
  }
  rs->tab[replay_slot(rs->tab, rs->cap, key)] = key;
  rs->n++;
  return 0;
}

int udccp_listener_new(udccp_listener **plis, const udccp_settings *settings,
                       const udccp_listener_settings *ls, udccp_tstamp ts) {
  const udccp_mem *mem;
  udccp_listener *lis;
  size_t i;
  if (plis == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *plis = NULL;
  if (settings == NULL || ls == NULL || ls->service_codes == NULL ||
      ls->n_service_codes == 0 || ls->n_service_codes > 1024) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* The settings every connection it makes gets, judged now as
   * udccp_conn_client_new() judges them: a listener that took unusable
   * ones failed every Request (no reply: its clients timed out). */
  if (udccp_settings_check(settings) != 0 ||
      udccp_ccid_find(settings->ccid) == NULL ||
      udccp_ccid_find(settings->rx_ccid ? settings->rx_ccid
                                        : settings->ccid) == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < ls->n_service_codes; ++i) {
    if (ls->service_codes[i] == UDCCP_SERVICE_CODE_INVALID) {
      return UDCCP_ERR_INVALID_ARGUMENT; /* RFC 4340 §8.1.2 */
    }
  }
  mem = settings->mem ? settings->mem : udccp_mem_default();
  lis = mem->calloc(1, sizeof(*lis), mem->user_data);
  if (lis == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  lis->codes = mem->calloc(ls->n_service_codes, sizeof(uint32_t),
                           mem->user_data);
  if (lis->codes == NULL) {
    mem->free(lis, mem->user_data);
    return UDCCP_ERR_NOMEM;
  }
  memcpy(lis->codes, ls->service_codes,
         ls->n_service_codes * sizeof(uint32_t));
  lis->n_codes = ls->n_service_codes;
  lis->mem = mem;
  lis->settings = *settings;
  lis->scratch = *settings;
  /* The cookie path's connection only writes one Response: queues of one
   * slot are enough and keep that path's allocations small. */
  lis->scratch.tx_qlen = 1;
  lis->scratch.rx_qlen = 1;
  lis->init_cookie = ls->init_cookie;
  if (lis->init_cookie > UDCCP_INIT_COOKIE_NEVER) {
    udccp_listener_del(lis);
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  lis->max_conns = ls->max_conns;
  lis->half_open_max =
      ls->half_open_max ? ls->half_open_max : UDCCP_HALF_OPEN_MAX_DEFAULT;
  lis->backlog = ls->backlog ? ls->backlog : UDCCP_BACKLOG_DEFAULT;
  /* at most 2^30 entries: the table's slot count stays a uint32_t */
  lis->replay_max = ls->cookie_replay_max ? ls->cookie_replay_max
                                          : UDCCP_COOKIE_REPLAY_MAX_DEFAULT;
  if (lis->replay_max > (1u << 30)) {
    lis->replay_max = 1u << 30;
  }
  if (udccp_cookie_jar_init(&lis->jar, settings->rand,
                            settings->rand_user_data, ls->cookie_lifetime,
                            ts) != 0) {
    udccp_listener_del(lis);
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *plis = lis;
  return 0;
}

void udccp_listener_del(udccp_listener *lis) {
  if (lis == NULL) {
    return;
  }
  udccp_cookie_jar_clear(&lis->jar);
  replay_free(lis, &lis->replay[0]);
  replay_free(lis, &lis->replay[1]);
  lis->mem->free(lis->codes, lis->mem->user_data);
  lis->mem->free(lis, lis->mem->user_data);
}

static void phase_leave(udccp_listener *lis, udccp_conn *conn) {
  if (conn->lis_phase == UDCCP_LISTENER_HALF_OPEN && lis->n_half_open > 0) {
    lis->n_half_open--;
  } else if (conn->lis_phase == UDCCP_LISTENER_QUEUED && lis->n_queued > 0) {
    lis->n_queued--;
  }
}

void udccp_listener_conn_update(udccp_listener *lis, udccp_conn *conn) {
  if (lis == NULL || conn == NULL ||
      conn->lis_phase != UDCCP_LISTENER_HALF_OPEN ||
      conn->state < UDCCP_STATE_PARTOPEN) {
    return;
  }
  /* The client acknowledged our Response (§8.1.5): no longer half-open. */
  phase_leave(lis, conn);
  conn->lis_phase = UDCCP_LISTENER_QUEUED;
  lis->n_queued++;
}

void udccp_listener_conn_accepted(udccp_listener *lis, udccp_conn *conn) {
  if (lis == NULL || conn == NULL ||
      conn->lis_phase == UDCCP_LISTENER_ACCEPTED) {
    return;
  }
  phase_leave(lis, conn);
  conn->lis_phase = UDCCP_LISTENER_ACCEPTED;
}

void udccp_listener_conn_gone(udccp_listener *lis, udccp_conn *conn) {
  if (lis == NULL) {
    return;
  }
  if (conn != NULL) {
    phase_leave(lis, conn);
    conn->lis_phase = UDCCP_LISTENER_ACCEPTED;
  }
  if (lis->n_conns > 0) {
    lis->n_conns--;
  }
}

void udccp_listener_set_backlog(udccp_listener *lis, uint32_t backlog) {
  if (lis != NULL) {
    lis->backlog = backlog ? backlog : UDCCP_BACKLOG_DEFAULT;
  }
}

void udccp_listener_get_stats(const udccp_listener *lis,
                              udccp_listener_stats *st) {
  if (st == NULL) {
    return;
  }
  memset(st, 0, sizeof(*st));
  if (lis == NULL) {
    return;
  }
  st->conns = lis->n_conns;
  st->half_open = lis->n_half_open;
  st->queued = lis->n_queued;
  st->cookies_sent = lis->cookies_sent;
  st->cookies_replayed = lis->cookies_replayed;
  st->too_busy = lis->too_busy;
}

static int has_code(const udccp_listener *lis, uint32_t code) {
  size_t i;
  for (i = 0; i < lis->n_codes; ++i) {
    if (lis->codes[i] == code) {
      return 1;
    }
  }
  return 0;
}

static udccp_ssize reply_reset(const udccp_listener *lis,
                               const udccp_path *path, const uint8_t *pkt,
                               size_t len, uint8_t code, uint8_t *out,
                               size_t outcap) {
  udccp_ssize n = udccp_pkt_write_reset_reply(
      out, outcap, pkt, len, path, lis->settings.cksum_mode, code);
  return n == 0 ? UDCCP_ERR_DROPPED : n;
}

/* The negotiated values a cookie carries (the connection defines the
 * bytes, cookie.h): a bitmap of the features still CHANGING (3 bytes, bit
 * 2 * i + location for the i-th known feature), then for every known
 * feature whose value differs from its §6.4 default <num, location,
 * length, value big-endian>. */
static const uint8_t known_feats[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 192};
#define N_KNOWN (sizeof(known_feats))

static size_t feat_pack(udccp_conn *conn, uint8_t *out, size_t cap) {
  size_t i, n = 3;
  int loc;
  if (cap < 3) {
    return (size_t)-1;
  }
  memset(out, 0, 3);
  for (i = 0; i < N_KNOWN; ++i) {
    for (loc = 0; loc < 2; ++loc) {
      udccp_feat_entry *e =
          udccp_feat_entry_get(&conn->feat, known_feats[i], loc);
      uint64_t v;
      uint8_t vlen = 0, k;
      if (e == NULL) {
        continue;
      }
      if (e->state != UDCCP_FEAT_STABLE) {
        out[(2 * i + (size_t)loc) / 8] |=
            (uint8_t)(1u << ((2 * i + (size_t)loc) % 8));
      }
      v = e->val;
      if (v == udccp_feat_default(known_feats[i])) {
        continue;
      }
      while (vlen < 6 && (v >> (8 * vlen)) != 0) {
        vlen++;
      }
      if (n + 3 + vlen > cap) {
        return (size_t)-1;
      }
      out[n++] = known_feats[i];
      out[n++] = (uint8_t)loc;
      out[n++] = vlen;
      for (k = vlen; k-- > 0;) {
        out[n++] = (uint8_t)(v >> (8 * k));
      }
    }
  }
  return n;
}

static int feat_unpack(udccp_conn *conn, const uint8_t *in, size_t len) {
  size_t i;
  int loc;
  if (len < 3) {
    return UDCCP_ERR_COOKIE;
  }
  /* What the Response left unanswered stays CHANGING (the Ack confirms
   * it); everything else was settled by the Request and Response. */
  for (i = 0; i < N_KNOWN; ++i) {
    for (loc = 0; loc < 2; ++loc) {
      udccp_feat_entry *e =
          udccp_feat_entry_get(&conn->feat, known_feats[i], loc);
      size_t bit = 2 * i + (size_t)loc;
      if (e == NULL) {
        continue;
      }
      if (!(in[bit / 8] & (1u << (bit % 8)))) {
        e->state = UDCCP_FEAT_STABLE;
      } else {
        e->change_new = 0; /* the Response carried this Change (§6.6.2) */
      }
    }
  }
  udccp_feat_settle(&conn->feat);
  i = 3;
  while (i + 3 <= len) {
    uint8_t num = in[i], l = in[i + 1], vlen = in[i + 2], k;
    uint64_t v = 0;
    udccp_feat_entry *e;
    i += 3;
    if (vlen > 6 || i + vlen > len || l > 1) {
      return UDCCP_ERR_COOKIE;
    }
    for (k = 0; k < vlen; ++k) {
      v = (v << 8) | in[i + k];
    }
    i += vlen;
    e = udccp_feat_entry_get(&conn->feat, num, l);
    if (e == NULL) {
      return UDCCP_ERR_COOKIE;
    }
    e->val = v;
  }
  return i == len ? 0 : UDCCP_ERR_COOKIE;
}

/* A server connection for pkt, processed through §8.5 from LISTEN. */
static int make_conn(const udccp_listener *lis,
                     const udccp_settings *settings, const udccp_path *path,
                     uint32_t service_code, udccp_tstamp ts,
                     udccp_conn **pconn) {
  int rv = udccp_conn_new_common(pconn, settings, path, service_code, 1, ts);
  if (rv != 0) {
    return rv;
  }
  (*pconn)->state = UDCCP_STATE_LISTEN;
  udccp_mp_set_resolver((*pconn)->mp, lis->mp_resolve, lis->mp_resolve_ud);
  return 0;
}

void udccp_listener_set_mp_resolver(struct udccp_listener *lis,
                                    udccp_mp_resolve_fn fn, void *ud) {
  lis->mp_resolve = fn;
  lis->mp_resolve_ud = ud;
}

/* Copies a dead connection's pending Reset into out. */
static udccp_ssize take_reset(udccp_conn *conn, uint8_t *out, size_t outcap,
                              udccp_tstamp ts) {
  udccp_ssize n = 0;
  if (conn->pending & UDCCP_PEND_RESET) {
    n = udccp_conn_write_pkt(conn, out, outcap, NULL, ts);
  }
  return n > 0 ? n : UDCCP_ERR_DROPPED;
}

static udccp_ssize too_busy(udccp_listener *lis, const udccp_path *path,
                            const uint8_t *pkt, size_t len, uint8_t *out,
                            size_t outcap) {
  lis->too_busy++;
  return reply_reset(lis, path, pkt, len, UDCCP_RESET_TOO_BUSY, out, outcap);
}

/* §8.1.4: answers the Request with a Response carrying an Init Cookie and
 * forgets everything.  Returns the reply's length, a negative code (the
 * packet is dropped), or 0 when the negotiated values do not fit in a
 * cookie (nothing written). */
static udccp_ssize cookie_response(udccp_listener *lis, const udccp_path *path,
                                   uint32_t service_code, const uint8_t *pkt,
                                   size_t len, udccp_tstamp ts, uint8_t *out,
                                   size_t outcap) {
  udccp_cookie_state cs;
  uint8_t cookie[UDCCP_CONN_COOKIE_MAX];
  udccp_conn *conn;
  udccp_ssize n = 0;
  size_t fl;
  int rv = make_conn(lis, &lis->scratch, path, service_code, ts, &conn);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_conn_read_pkt(conn, pkt, len, 0, ts);
  if (rv <= UDCCP_ERR_FATAL || conn->state != UDCCP_STATE_RESPOND) {
    n = take_reset(conn, out, outcap, ts);
    udccp_conn_del(conn);
    return n;
  }
  memset(&cs, 0, sizeof(cs));
  cs.isr = conn->isr;
  cs.iss = conn->iss;
  cs.service_code = conn->service_code;
  fl = feat_pack(conn, cs.feat, sizeof(cs.feat));
  if (fl != (size_t)-1) {
    cs.feat_len = (uint8_t)fl;
    n = udccp_cookie_make(&lis->jar, path, &cs, cookie, sizeof(cookie), ts);
    if (n > 0) {
      conn->init_cookie = cookie;
      conn->init_cookie_len = (uint8_t)n;
      n = udccp_conn_write_pkt(conn, out, outcap, NULL, ts);
      n = n > 0 ? n : UDCCP_ERR_NOBUF;
      lis->cookies_sent += n > 0;
    } else {
      n = 0;
    }
  }
  udccp_conn_del(conn);
  return n;
}

static udccp_ssize on_request(udccp_listener *lis, const udccp_path *path,
                              const udccp_conn_rxpkt *p, const uint8_t *pkt,
                              size_t len, udccp_tstamp ts,
                              udccp_conn **pconn, uint8_t *out,
                              size_t outcap) {
  udccp_conn *conn;
  udccp_ssize n;
  int rv;
  /* RFC 5595 §4.2, RFC 4340 §8.1.2: unknown or invalid Service Code. */
  if (p->h.service_code == UDCCP_SERVICE_CODE_INVALID ||
      !has_code(lis, p->h.service_code)) {
    return reply_reset(lis, path, pkt, len, UDCCP_RESET_BAD_SERVICE_CODE, out,
                       outcap);
  }
  if ((lis->max_conns != 0 && lis->n_conns >= lis->max_conns) ||
      lis->n_queued >= lis->backlog) {
    return too_busy(lis, path, pkt, len, out, outcap);
  }
  if (lis->init_cookie == UDCCP_INIT_COOKIE_ALWAYS ||
      (lis->init_cookie == UDCCP_INIT_COOKIE_AUTO &&
       lis->n_half_open >= lis->half_open_max)) {
    n = cookie_response(lis, path, p->h.service_code, pkt, len, ts, out,
                        outcap);
    if (n != 0) {
      return n;
    }
    /* Too many negotiated values for a cookie: keep state if allowed. */
  }
  if (lis->n_half_open >= lis->half_open_max) {
    return too_busy(lis, path, pkt, len, out, outcap);
  }
  rv = make_conn(lis, &lis->settings, path, p->h.service_code, ts, &conn);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_conn_read_pkt(conn, pkt, len, 0, ts);
  if (rv <= UDCCP_ERR_FATAL || conn->state != UDCCP_STATE_RESPOND) {
    n = take_reset(conn, out, outcap, ts);
    udccp_conn_del(conn);
    return n;
  }
  conn->lis_phase = UDCCP_LISTENER_HALF_OPEN;
  lis->n_half_open++;
  lis->n_conns++;
  *pconn = conn;
  return 0;
}

static udccp_ssize on_cookie(udccp_listener *lis, const udccp_path *path,
                             const udccp_conn_rxpkt *p, const uint8_t *pkt,
                             size_t len, udccp_tstamp ts, udccp_conn **pconn,
                             uint8_t *out, size_t outcap) {
  udccp_cookie_state cs;
  udccp_conn *conn;
  int rv;
  if (udccp_cookie_open(&lis->jar, path, p->opts.init_cookie,
                        p->opts.init_cookie_len, &cs, ts) != 0 ||
      udccp_seq_sub(p->ack, cs.iss) != 0 || udccp_seq_le(p->seq, cs.isr) ||
      !has_code(lis, cs.service_code)) {
    return reply_reset(lis, path, pkt, len, UDCCP_RESET_BAD_INIT_COOKIE, out,
                       outcap);
  }
  if ((lis->max_conns != 0 && lis->n_conns >= lis->max_conns) ||
      lis->n_queued >= lis->backlog) {
    return too_busy(lis, path, pkt, len, out, outcap);
  }
  /* One cookie, one connection (§8.1.4 leaves replay to the server): the
   * cookie is spent before the connection is made, so a failure below
   * burns it too. */
  rv = replay_record(lis, cs.epoch, cs.mac);
  if (rv == 1) {
    lis->cookies_replayed++;
    return UDCCP_ERR_COOKIE;
  }
  if (rv != 0) {
    return too_busy(lis, path, pkt, len, out, outcap);
  }
  rv = make_conn(lis, &lis->settings, path, cs.service_code, ts, &conn);
  if (rv != 0) {
    return rv;
  }
  /* §8.5 step 3: ISS, ISR and the windows from the cookie; the Response
   * with Sequence Number ISS was sent. */
  conn->iss = cs.iss;
  conn->gss = cs.iss;
  conn->gar = cs.iss;
  rv = udccp_feat_init(&conn->feat, &lis->settings, 1, cs.iss,
                       udccp_ccid_find);
  if (rv == 0) {
    rv = feat_unpack(conn, cs.feat, cs.feat_len);
  }
  if (rv != 0) {
    udccp_conn_del(conn);
    return reply_reset(lis, path, pkt, len, UDCCP_RESET_BAD_INIT_COOKIE, out,
                       outcap);
  }
  conn->isr = cs.isr;
  conn->gsr = cs.isr;
  conn->have_isr = 1;
  udccp_conn_apply_features(conn, ts);
  conn->state = UDCCP_STATE_RESPOND;
  rv = udccp_conn_read_pkt(conn, pkt, len, 0, ts);
  if (rv <= UDCCP_ERR_FATAL || conn->state != UDCCP_STATE_OPEN) {
    udccp_ssize n = take_reset(conn, out, outcap, ts);
    udccp_conn_del(conn);
    return n;
  }
  conn->lis_phase = UDCCP_LISTENER_QUEUED;
  lis->n_queued++;
  lis->n_conns++;
  *pconn = conn;
  return 0;
}

udccp_ssize udccp_listener_read_pkt(udccp_listener *lis, const udccp_path *path,
                                    const uint8_t *pkt, size_t len,
                                    udccp_tstamp ts, udccp_conn **pconn,
                                    uint8_t *out, size_t outcap) {
  udccp_conn_rxpkt p;
  if (pconn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *pconn = NULL;
  if (lis == NULL || path == NULL || pkt == NULL || out == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* §8.5 step 1 */
  if (udccp_conn_decode(&p, pkt, len) != 0) {
    return UDCCP_ERR_PROTO;
  }
  if (lis->settings.cksum_mode == UDCCP_CKSUM_FULL) {
    int rv = udccp_cksum_check(pkt, len, path);
    if (rv != 0) {
      return rv;
    }
  }
  if (p.h.dport != path->local_port || p.h.sport != path->remote_port) {
    return UDCCP_ERR_DROPPED;
  }
  /* Step 3: LISTEN takes a Request, or a packet with a valid cookie. */
  if (p.h.type == UDCCP_PKT_REQUEST) {
    return on_request(lis, path, &p, pkt, len, ts, pconn, out, outcap);
  }
  /* Even a listener that sends no cookies now (AUTO below its bound)
   * may have sent some that are still valid. */
  if (lis->init_cookie != UDCCP_INIT_COOKIE_NEVER &&
      (p.h.type == UDCCP_PKT_ACK || p.h.type == UDCCP_PKT_DATAACK) &&
      p.h.x == 1) {
    if (udccp_opts_parse(&p.opts, p.h.type, p.h.opts, p.h.opts_len) == 0 &&
        (p.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE)) {
      return on_cookie(lis, path, &p, pkt, len, ts, pconn, out, outcap);
    }
  }
  /* RFC 5596 §2.2.2: a Listen reaching a server is ignored. */
  if (p.h.type == UDCCP_PKT_LISTEN) {
    return UDCCP_ERR_DROPPED;
  }
  return reply_reset(lis, path, pkt, len, UDCCP_RESET_NO_CONNECTION, out,
                     outcap);
}
