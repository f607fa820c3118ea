/*
 * Listener: Requests for one port, several Service Codes (RFC 5595 §4),
 * stateless replies (Bad Service Code, Too Busy, No Connection) and the
 * stateless Init Cookie path (RFC 4340 §8.1.4, §8.5 step 3).
 */
#include <string.h>

#include "cksum.h"
#include "conn.h"
#include "cookie.h"

struct udccp_listener {
  const udccp_mem *mem;
  udccp_settings settings;
  uint32_t *codes;
  size_t n_codes;
  uint8_t init_cookie;
  uint32_t max_conns;
  uint32_t n_conns;
  udccp_cookie_jar jar;
};

int udccp_listener_new(udccp_listener **plis, const udccp_settings *settings,
                       const udccp_listener_settings *ls, udccp_tstamp ts) {
  const udccp_mem *mem;
  udccp_listener *lis;
  size_t i;
  if (plis == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *plis = NULL;
  if (settings == NULL || settings->rand == NULL || ls == NULL ||
      ls->service_codes == NULL || ls->n_service_codes == 0 ||
      ls->n_service_codes > 1024) {
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
  lis->init_cookie = ls->init_cookie;
  lis->max_conns = ls->max_conns;
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
  lis->mem->free(lis->codes, lis->mem->user_data);
  lis->mem->free(lis, lis->mem->user_data);
}

void udccp_listener_conn_gone(udccp_listener *lis) {
  if (lis != NULL && lis->n_conns > 0) {
    lis->n_conns--;
  }
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
static int make_conn(udccp_listener *lis, const udccp_path *path,
                     uint32_t service_code, udccp_tstamp ts,
                     udccp_conn **pconn) {
  int rv = udccp_conn_new_common(pconn, &lis->settings, path, service_code,
                                 1, ts);
  if (rv != 0) {
    return rv;
  }
  (*pconn)->state = UDCCP_STATE_LISTEN;
  return 0;
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
  if (lis->max_conns != 0 && lis->n_conns >= lis->max_conns) {
    return reply_reset(lis, path, pkt, len, UDCCP_RESET_TOO_BUSY, out,
                       outcap);
  }
  rv = make_conn(lis, path, p->h.service_code, ts, &conn);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_conn_read_pkt(conn, pkt, len, 0, ts);
  if (rv <= UDCCP_ERR_FATAL || conn->state != UDCCP_STATE_RESPOND) {
    n = take_reset(conn, out, outcap, ts);
    udccp_conn_del(conn);
    return n;
  }
  if (lis->init_cookie) {
    /* §8.1.4: answer with the cookie and forget everything. */
    udccp_cookie_state cs;
    size_t fl;
    memset(&cs, 0, sizeof(cs));
    cs.isr = conn->isr;
    cs.iss = conn->iss;
    cs.service_code = conn->service_code;
    fl = feat_pack(conn, cs.feat, sizeof(cs.feat));
    if (fl != (size_t)-1) {
      cs.feat_len = (uint8_t)fl;
      n = udccp_cookie_make(&lis->jar, path, &cs, conn->init_cookie,
                            sizeof(conn->init_cookie), ts);
      if (n > 0) {
        conn->init_cookie_len = (uint8_t)n;
        n = udccp_conn_write_pkt(conn, out, outcap, NULL, ts);
        udccp_conn_del(conn);
        return n > 0 ? n : UDCCP_ERR_NOBUF;
      }
    }
    /* Too many negotiated values for a cookie: keep state after all. */
  }
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
  if (lis->max_conns != 0 && lis->n_conns >= lis->max_conns) {
    return reply_reset(lis, path, pkt, len, UDCCP_RESET_TOO_BUSY, out,
                       outcap);
  }
  rv = make_conn(lis, path, cs.service_code, ts, &conn);
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
  if (lis->init_cookie &&
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
