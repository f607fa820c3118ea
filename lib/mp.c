/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP on a subflow: the first subflow's handshake (RFC 9897,
 * draft-25 section numbers):
 *   §3.3    Request: Change R(MP_CAPABLE) + MP_KEY(CI-A, a key per type
 *           supported); Response: Confirm L(MP_CAPABLE) + MP_KEY(CI-B, a
 *           single key of a type from the Request); then Ack, Ack
 *   §3.2.4  Key Type 0 (plain text, 8 bytes) MUST be supported: the one we
 *           offer and accept; the CI is host-specific and random
 *   §3.6    fallback to plain DCCP when MP_CAPABLE is not agreed, or the
 *           Key Type cannot be negotiated; a malformed MP_KEY closes the
 *           subflow
 * Multipath options on a connection where multipath is off are ignored
 * (the peer's: §3.6 lets us; ours are never sent).
 */
#include "mp.h"

#include <string.h>

#include "mp_sig.h"
#include "pkt.h"
#include "seq.h"

int udccp_mp_new(udccp_mp_state **pmp, const udccp_feat_set *fs,
                 void (*rand)(uint8_t *, size_t, void *), void *rand_ud,
                 const udccp_mem *mem) {
  udccp_mp_state *mp;
  uint8_t b[4];
  int tries;
  *pmp = NULL;
  if (!fs->mp_enabled || rand == NULL) {
    return 0;
  }
  mp = mem->malloc(sizeof(*mp), mem->user_data);
  if (mp == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  memset(mp, 0, sizeof(*mp));
  mp->rand = rand;
  mp->rand_ud = rand_ud;
  for (tries = 0; tries < 4 && mp->keys.local_ci == 0; tries++) {
    rand(b, sizeof(b), rand_ud);
    mp->keys.local_ci = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
                        (uint32_t)b[2] << 8 | b[3];
  }
  if (mp->keys.local_ci == 0) {
    mp->keys.local_ci = 1; /* a generator stuck at zero: still unique here */
  }
  rand(mp->keys.local, sizeof(mp->keys.local), rand_ud);
  /* §3.2.5: "The initial data sequence number (IDSN) SHOULD be set
   * randomly". */
  rand(b, sizeof(b), rand_ud);
  mp->tx_seq = (uint64_t)b[0] << 40 | (uint64_t)b[1] << 32 |
               (uint64_t)b[2] << 24 | (uint64_t)b[3] << 16;
  mp->phase = UDCCP_MP_OFFERED;
  *pmp = mp;
  return 0;
}

void udccp_mp_free(udccp_mp_state *mp, const udccp_mem *mem) {
  if (mp != NULL) {
    memset(mp, 0, sizeof(*mp)); /* key material */
    mem->free(mp, mem->user_data);
  }
}

/* The first well-formed MP_KEY of the packet, or 0. */
static int find_key(const udccp_opts *opts, udccp_mp_opt *k) {
  size_t pos = 0;
  int rv;
  if (opts->mp == NULL) {
    return 0;
  }
  while ((rv = udccp_mp_next(opts->mp, opts->mp_len, &pos, k)) != 2) {
    if (rv == 0 && k->type == UDCCP_MP_KEY) {
      return 1;
    }
  }
  return 0;
}

/* The plain-text key among those offered, or NULL. */
static const udccp_mp_key *plain_key(const udccp_mp_opt *k) {
  size_t i;
  for (i = 0; i < k->u.key.n_keys; i++) {
    if (k->u.key.keys[i].type == UDCCP_MP_KEY_PLAIN) {
      return &k->u.key.keys[i];
    }
  }
  return NULL;
}

static void take_remote(udccp_mp_state *mp, const udccp_mp_opt *k,
                        const udccp_mp_key *key) {
  memcpy(mp->keys.remote, key->data, UDCCP_MP_PLAIN_KEY_LEN);
  mp->keys.remote_ci = k->u.key.ci;
  mp->have_remote = 1;
}

/* The first well-formed suboption of type t, or 0. */
static int find_opt(const udccp_opts *opts, uint8_t t, udccp_mp_opt *o) {
  size_t pos = 0;
  int rv;
  while (opts->mp != NULL &&
         (rv = udccp_mp_next(opts->mp, opts->mp_len, &pos, o)) != 2) {
    if (rv == 0 && o->type == t) {
      return 1;
    }
  }
  return 0;
}

/* 1 if the peer's MP_HMAC of the join verifies.  With join (the MP_JOIN
 * it answers), the MP_HMAC must directly follow that option (§3.2.6);
 * without, it is the lone MP_HMAC of the client's Ack. */
static int hmac_ok(const udccp_mp_state *mp, const udccp_opts *opts,
                   const udccp_mp_opt *join) {
  uint8_t want[UDCCP_MP_HMAC_LEN];
  udccp_mp_opt o;
  size_t pos = 0;
  int rv, after_join = join == NULL;
  if (udccp_mp_hmac_join(&mp->keys, 1, mp->nonce_local, mp->nonce_remote,
                         want) != 0) {
    return 0;
  }
  while (opts->mp != NULL &&
         (rv = udccp_mp_next(opts->mp, opts->mp_len, &pos, &o)) != 2) {
    if (rv != 0) {
      continue;
    }
    if (join != NULL && o.type == UDCCP_MP_JOIN && o.raw == join->raw) {
      after_join = 1;
      continue;
    }
    if (after_join && join == NULL && o.type != UDCCP_MP_HMAC) {
      continue; /* the client's Ack: its lone MP_HMAC, wherever it is */
    }
    if (after_join) {
      return o.type == UDCCP_MP_HMAC && udccp_mp_hmac_equal(o.u.hmac, want);
    }
  }
  return 0;
}

static uint32_t draw32(const udccp_mp_state *mp) {
  uint8_t b[4];
  mp->rand(b, sizeof(b), mp->rand_ud);
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
}

/* §3.3, second handshake, at the server: MP_JOIN(CI-B, RA) on a Request
 * that asks for MP_CAPABLE.  §3.6: without MP_CAPABLE agreed the subflow
 * is closed; §3.2.8: an unknown CI gets a Reset. */
static int server_join(udccp_mp_state *mp, udccp_feat_set *fs,
                       const udccp_mp_opt *k) {
  udccp_mp_keys keys;
  int found;
  if (udccp_feat_mp_version(fs) < 0 || mp->resolve == NULL) {
    return UDCCP_ERR_OPTION;
  }
  found = mp->resolve(mp->resolve_ud, k->u.join.ci, &keys);
  if (found == UDCCP_MP_RESOLVE_CLOSING) {
    return UDCCP_MP_READ_IGNORE; /* §3.2.11 MUST */
  }
  if (found == UDCCP_MP_RESOLVE_BUSY) {
    return UDCCP_MP_READ_BUSY; /* §3.10: Reset "Too Busy" */
  }
  if (found != 1) {
    return UDCCP_ERR_OPTION;
  }
  if (!mp->join) {
    mp->keys = keys;
    mp->join = 1;
    mp->have_remote = 1;
    mp->nonce_local = draw32(mp);
  }
  mp->nonce_remote = k->u.join.nonce; /* a repeated Request may bring a
                                         new RA: answer the latest */
  mp->addr_id_remote = k->u.join.addr_id;
  return 0;
}

int udccp_mp_read(udccp_mp_state *mp, udccp_feat_set *fs,
                  const udccp_opts *opts, uint8_t pkt_type) {
  udccp_mp_opt k;
  const udccp_mp_key *key;
  if (mp == NULL || mp->phase == UDCCP_MP_OFF) {
    return 0;
  }
  if (fs->is_server) {
    if (pkt_type == UDCCP_PKT_REQUEST && find_opt(opts, UDCCP_MP_JOIN, &k)) {
      return server_join(mp, fs, &k);
    }
    if (mp->join) {
      if ((pkt_type == UDCCP_PKT_ACK || pkt_type == UDCCP_PKT_DATAACK) &&
          mp->phase == UDCCP_MP_OFFERED) {
        /* §3.3: "Host A sends a DCCP-Ack with the HMAC computed for the
         * DCCP-Response"; §3.6: a non-verifiable MP_HMAC closes it. */
        if (!hmac_ok(mp, opts, NULL)) {
          return UDCCP_ERR_OPTION;
        }
        mp->phase = UDCCP_MP_KEYED;
      }
      return 0;
    }
    if (pkt_type == UDCCP_PKT_REQUEST) {
      if (udccp_feat_mp_version(fs) < 0) {
        return 0; /* not asked for (or no version agreed): plain DCCP */
      }
      /* §3.3: one key per type the client supports; we take plain text.
       * §3.6: no key type in common: fall back (Empty Confirm L). */
      if (find_key(opts, &k) && (key = plain_key(&k)) != NULL) {
        take_remote(mp, &k, key);
      } else {
        mp->have_remote = 0;
        udccp_feat_mp_refuse(fs);
      }
    } else if ((pkt_type == UDCCP_PKT_ACK ||
                pkt_type == UDCCP_PKT_DATAACK) &&
               mp->phase == UDCCP_MP_OFFERED && mp->have_remote &&
               udccp_feat_mp_version(fs) >= 0) {
      /* §3.3: the client's Ack confirms the key exchange. */
      mp->phase = UDCCP_MP_KEYED;
    }
    return 0;
  }
  if (mp->hmac_owed && pkt_type != UDCCP_PKT_RESPONSE) {
    mp->hmac_owed = 0; /* the server is OPEN: it had our MP_HMAC */
  }
  if (pkt_type != UDCCP_PKT_RESPONSE || mp->phase != UDCCP_MP_OFFERED) {
    return 0;
  }
  if (mp->join) {
    /* §3.6: a join without MP_CAPABLE, with another version, without
     * MP_JOIN(CI-A) or with an MP_HMAC(B) that does not verify: closed. */
    if (udccp_feat_mp_version(fs) < 0 ||
        !find_opt(opts, UDCCP_MP_JOIN, &k) ||
        k.u.join.ci != mp->keys.local_ci) {
      return UDCCP_ERR_OPTION;
    }
    mp->nonce_remote = k.u.join.nonce;
    mp->addr_id_remote = k.u.join.addr_id;
    if (!hmac_ok(mp, opts, &k)) {
      return UDCCP_ERR_OPTION;
    }
    mp->phase = UDCCP_MP_KEYED;
    mp->hmac_owed = 1;
    return 0;
  }
  if (udccp_feat_mp_version(fs) < 0) {
    mp->phase = UDCCP_MP_OFF; /* §3.6: the server did not agree */
    return 0;
  }
  /* §3.3: "MP_Key option with a unique Host-specific CI-B and a single
   * Host-specific KeyB ... chosen from the list of supported types";
   * §3.6: a missing or malformed MP_KEY closes the subflow. */
  if (!find_key(opts, &k) || k.u.key.n_keys != 1 || k.u.key.unknown_type ||
      k.u.key.keys[0].type != UDCCP_MP_KEY_PLAIN) {
    return UDCCP_ERR_OPTION;
  }
  take_remote(mp, &k, &k.u.key.keys[0]);
  mp->phase = UDCCP_MP_KEYED;
  return 0;
}

/* Our MP_HMAC of the join (§3.2.6): d-key mine, R mine + R peer. */
static void put_hmac(const udccp_mp_state *mp, udccp_optbuf *ob) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_HMAC;
  if (udccp_mp_hmac_join(&mp->keys, 0, mp->nonce_local, mp->nonce_remote,
                         o.u.hmac) == 0) {
    (void)udccp_mp_opt_put(ob, &o);
  }
}

static void put_key(const udccp_mp_state *mp, udccp_optbuf *ob) {
  udccp_mp_opt k;
  memset(&k, 0, sizeof(k));
  k.type = UDCCP_MP_KEY;
  k.u.key.ci = mp->keys.local_ci;
  k.u.key.n_keys = 1;
  k.u.key.keys[0].type = UDCCP_MP_KEY_PLAIN;
  k.u.key.keys[0].len = UDCCP_MP_PLAIN_KEY_LEN;
  k.u.key.keys[0].data = mp->keys.local;
  (void)udccp_mp_opt_put(ob, &k); /* 17 bytes; a full area drops it */
}

static void put_join(const udccp_mp_state *mp, udccp_optbuf *ob,
                     int with_hmac) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_JOIN;
  o.u.join.addr_id = mp->addr_id_local;
  o.u.join.ci = mp->keys.remote_ci; /* the peer's CI (§3.2.2) */
  o.u.join.nonce = mp->nonce_local;
  if (udccp_mp_opt_put(ob, &o) != 0 || !with_hmac) {
    return;
  }
  put_hmac(mp, ob);
}

/* MP_CLOSE / MP_FAST_CLOSE with the peer's Key Data (§3.2.11, §3.2.3:
 * "the selected Key Data of the peer host during the handshaking"). */
static void put_key_data(const udccp_mp_state *mp, udccp_optbuf *ob,
                         uint8_t type) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = type;
  o.u.key_data.data = mp->keys.remote;
  o.u.key_data.len = UDCCP_MP_PLAIN_KEY_LEN;
  (void)udccp_mp_opt_put(ob, &o);
}

/* 1 if the packet carries an option of type t whose Key Data is our key. */
static int key_data_ok(const udccp_mp_state *mp, const udccp_opts *opts,
                       uint8_t t) {
  udccp_mp_opt o;
  size_t pos = 0;
  int rv;
  while (opts->mp != NULL &&
         (rv = udccp_mp_next(opts->mp, opts->mp_len, &pos, &o)) != 2) {
    uint8_t diff = 0;
    size_t i;
    if (rv != 0 || o.type != t ||
        o.u.key_data.len != UDCCP_MP_PLAIN_KEY_LEN) {
      continue;
    }
    for (i = 0; i < UDCCP_MP_PLAIN_KEY_LEN; i++) {
      diff |= (uint8_t)(o.u.key_data.data[i] ^ mp->keys.local[i]);
    }
    if (diff == 0) {
      return 1;
    }
  }
  return 0;
}

int udccp_mp_read_conn(udccp_mp_state *mp, const udccp_feat_set *fs,
                       const udccp_opts *opts, uint8_t pkt_type) {
  int owed = 0;
  if (!udccp_mp_active(mp, fs) || opts->mp == NULL) {
    return 0;
  }
  if (mp->sig != NULL &&
      (udccp_mp_sig_read(mp->sig, &mp->keys, mp->sig_idx, opts->mp,
                         opts->mp_len) &
       UDCCP_MP_SIG_EV_CONFIRM)) {
    owed = 1;
  }
  if ((pkt_type == UDCCP_PKT_CLOSE || pkt_type == UDCCP_PKT_CLOSEREQ) &&
      key_data_ok(mp, opts, UDCCP_MP_CLOSE)) {
    /* §3.2.11: a CloseReq with MP_CLOSE: our Close "MUST also carry the
     * MP_CLOSE"; a Close: the whole connection closes. */
    mp->close_rx = pkt_type == UDCCP_PKT_CLOSE ? 2 : 1;
    mp->close_tx = 1;
  }
  if (pkt_type == UDCCP_PKT_RESET &&
      key_data_ok(mp, opts, UDCCP_MP_FAST_CLOSE)) {
    mp->fast_close_rx = 1; /* §3.2.3 */
  }
  return owed;
}

void udccp_mp_write_reset(udccp_mp_state *mp, const udccp_feat_set *fs,
                          udccp_optbuf *ob) {
  if (udccp_mp_active(mp, fs) && mp->fast_close_tx) {
    put_key_data(mp, ob, UDCCP_MP_FAST_CLOSE); /* §3.2.3 MUST */
  }
}

static void write_handshake(udccp_mp_state *mp, const udccp_feat_set *fs,
                            udccp_optbuf *ob, uint8_t pkt_type);

/* Connection-level options (§3.2.11 MP_CLOSE, lib/mp_sig.c signals,
 * §3.2.7 MP_RTT) once MP-DCCP is active; not on the client's PARTOPEN
 * Acks, which carry the join's MP_HMAC(A) alone. */
static void write_conn(udccp_mp_state *mp, const udccp_feat_set *fs,
                       udccp_optbuf *ob, uint8_t pkt_type, int is_data,
                       udccp_tstamp ts) {
  if (!udccp_mp_active(mp, fs) || mp->hmac_owed) {
    return;
  }
  if (mp->close_tx &&
      (pkt_type == UDCCP_PKT_CLOSE || pkt_type == UDCCP_PKT_CLOSEREQ)) {
    put_key_data(mp, ob, UDCCP_MP_CLOSE); /* §3.2.11 MUST */
  }
  if (mp->sig != NULL && !is_data) {
    (void)udccp_mp_sig_write(mp->sig, mp->sig_idx, ob, ts);
  }
  if (mp->rtt_owed && !is_data) {
    /* §3.2.7: this path's smoothed RTT; Age 0, the estimate is kept
     * current by every acknowledgement. */
    udccp_mp_opt o;
    memset(&o, 0, sizeof(o));
    o.type = UDCCP_MP_RTT;
    o.u.rtt.rtt_type = UDCCP_MP_RTT_SMOOTH;
    o.u.rtt.rtt_ms = mp->rtt_ms;
    if (udccp_mp_opt_put(ob, &o) == 0) {
      mp->rtt_owed = 0;
    }
  }
}

void udccp_mp_write(udccp_mp_state *mp, const udccp_feat_set *fs,
                    udccp_optbuf *ob, uint8_t pkt_type, int is_data,
                    udccp_tstamp ts) {
  if (mp == NULL) {
    return;
  }
  write_conn(mp, fs, ob, pkt_type, is_data, ts);
  write_handshake(mp, fs, ob, pkt_type);
}

/* The handshake's options: MP_KEY, MP_JOIN, MP_HMAC. */
static void write_handshake(udccp_mp_state *mp, const udccp_feat_set *fs,
                            udccp_optbuf *ob, uint8_t pkt_type) {
  if (mp->join) {
    if (!fs->is_server && pkt_type == UDCCP_PKT_REQUEST &&
        mp->phase == UDCCP_MP_OFFERED) {
      put_join(mp, ob, 0);
    } else if (fs->is_server && pkt_type == UDCCP_PKT_RESPONSE &&
               udccp_feat_mp_version(fs) >= 0) {
      put_join(mp, ob, 1); /* MP_JOIN(CI-A, RB) + MP_HMAC(B) */
    } else if (!fs->is_server && mp->hmac_owed &&
               (pkt_type == UDCCP_PKT_ACK || pkt_type == UDCCP_PKT_DATAACK)) {
      put_hmac(mp, ob); /* MP_HMAC(A), on every PARTOPEN Ack */
    }
    return;
  }
  if (mp->phase != UDCCP_MP_OFFERED) {
    return;
  }
  if (!fs->is_server && pkt_type == UDCCP_PKT_REQUEST) {
    put_key(mp, ob);
  } else if (fs->is_server && pkt_type == UDCCP_PKT_RESPONSE &&
             mp->have_remote && udccp_feat_mp_version(fs) >= 0) {
    put_key(mp, ob);
  }
}

int udccp_mp_active(const udccp_mp_state *mp, const udccp_feat_set *fs) {
  return mp != NULL && mp->phase == UDCCP_MP_KEYED &&
         udccp_feat_mp_version(fs) >= 0;
}

void udccp_mp_set_tx_seq(udccp_mp_state *mp, uint64_t seq) {
  if (mp != NULL) {
    mp->tx_seq = seq & UDCCP_SEQ_MASK;
  }
}

void udccp_mp_put_seq(udccp_mp_state *mp, const udccp_feat_set *fs,
                      udccp_optbuf *ob) {
  udccp_mp_opt o;
  if (!udccp_mp_active(mp, fs)) {
    return;
  }
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_SEQ;
  o.u.seq = mp->tx_seq;
  if (udccp_mp_opt_put(ob, &o) == 0) {
    mp->tx_seq = udccp_seq_add(mp->tx_seq, 1);
  }
}

void udccp_mp_note_rx(udccp_mp_state *mp, const udccp_feat_set *fs,
                      const udccp_opts *opts, uint64_t dccp_seq) {
  udccp_mp_opt o;
  size_t pos = 0;
  int rv;
  if (!udccp_mp_active(mp, fs)) {
    return;
  }
  mp->rx_dccp_seq = dccp_seq;
  mp->rx_seq_set = 0;
  while (opts->mp != NULL &&
         (rv = udccp_mp_next(opts->mp, opts->mp_len, &pos, &o)) != 2) {
    if (rv == 0 && o.type == UDCCP_MP_SEQ) {
      mp->rx_seq = o.u.seq;
      mp->rx_seq_set = 1;
      return;
    }
  }
}

int udccp_mp_rx_seq(const udccp_mp_state *mp, uint64_t dccp_seq,
                    uint64_t *mp_seq) {
  if (mp == NULL || !mp->rx_seq_set || mp->rx_dccp_seq != dccp_seq) {
    return 0;
  }
  *mp_seq = mp->rx_seq;
  return 1;
}

int udccp_mp_join_client(udccp_mp_state *mp, const udccp_mp_keys *parent,
                         uint8_t addr_id) {
  if (mp == NULL || parent == NULL || mp->rand == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mp->keys = *parent;
  mp->join = 1;
  mp->have_remote = 1;
  mp->addr_id_local = addr_id;
  mp->nonce_local = draw32(mp); /* §3.2.2: fresh for every MP_JOIN */
  mp->phase = UDCCP_MP_OFFERED;
  return 0;
}

void udccp_mp_set_resolver(udccp_mp_state *mp, udccp_mp_resolve_fn fn,
                           void *ud) {
  if (mp != NULL) {
    mp->resolve = fn;
    mp->resolve_ud = ud;
  }
}
