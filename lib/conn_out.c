/* SPDX-License-Identifier: MIT */
/*
 * Output: which packet to send next, its header and options (RFC 4340 §5,
 * §5.8, §6, §7.7, §8, §9, §11, §13), built in the caller's buffer.
 */
#include <string.h>

#include "ccid3.h"
#include "cksum.h"
#include "conn.h"

/* Timestamp (§13.1): units of 10 microseconds since ts_origin. */
static uint32_t ts_value(const udccp_conn *conn, udccp_tstamp ts) {
  return (uint32_t)((ts - conn->ts_origin) / 10000);
}

static int data_checksum_on(const udccp_conn *conn) {
  /* §9.3: Check Data Checksum/B = 1 means B drops data packets without a
   * valid Data Checksum, so we send one when the peer's value is 1. */
  return conn->send_data_cksum;
}

/* Data Dropped option(s) for acks with Acknowledgement Number ackno
 * (§11.7): Normal Blocks down to each run of dropped packets, a Drop Block
 * for it. */
static void put_data_dropped(udccp_conn *conn, udccp_optbuf *ob,
                             uint64_t ackno) {
  uint8_t v[253];
  size_t n = 0, i;
  uint64_t cur = ackno; /* next sequence number to describe */
  if (conn->n_drops == 0) {
    return;
  }
  /* drops[] is in increasing sequence order; blocks go newest first. */
  for (i = conn->n_drops; i-- > 0;) {
    const udccp_conn_drop *d = &conn->drops[i];
    int64_t gap = udccp_seq_sub(cur, udccp_conn_drop_seq(d));
    if (gap < 0) {
      continue;
    }
    while (gap > 0 && n < sizeof(v)) {
      int64_t run = gap > 128 ? 128 : gap;
      v[n++] = (uint8_t)(run - 1); /* Normal Block, Run Length = run - 1 */
      gap -= run;
    }
    if (n < sizeof(v)) {
      v[n++] = (uint8_t)(0x80 | d->code_run); /* Drop Block */
    }
    cur = udccp_seq_add(udccp_conn_drop_seq(d),
                        -(int64_t)((d->code_run & 0x0F) + 1));
    conn->drops[i].sent++;
  }
  if (n > 0) {
    (void)udccp_optbuf_put(ob, UDCCP_OPT_DATA_DROPPED, 0, v, n);
  }
}

/* Forgets Data Dropped records once reported reliably enough: when the
 * Ack Vector no longer covers them, or after a few acks carried them. */
static void trim_drops(udccp_conn *conn) {
  size_t i, j = 0;
  for (i = 0; i < conn->n_drops; ++i) {
    const udccp_conn_drop *d = &conn->drops[i];
    int gone = d->sent >= 4;
    if (conn->send_ackvec && !conn->av.empty &&
        udccp_seq_lt(udccp_conn_drop_seq(d), conn->av.tail)) {
      gone = 1;
    }
    if (!gone) {
      conn->drops[j++] = *d;
    }
  }
  conn->n_drops = (uint8_t)j;
  if (j == 0 && conn->drops != NULL) {
    udccp_conn_drops_release(conn);
  }
}

static uint8_t our_cscov(const udccp_conn *conn, size_t payload_len) {
  uint8_t want = conn->settings.send_cscov;
  /* §9.2.1: only coverage the peer finds acceptable (MinCsCov/peer). */
  if (want == 0 || conn->peer_min_cscov == 0 || want < conn->peer_min_cscov) {
    return 0;
  }
  /* §9.2: a CsCov asking for more payload than there is makes the packet
   * invalid; full coverage (0) then. */
  if ((size_t)(want - 1) * 4 > payload_len) {
    return 0;
  }
  return want;
}

static size_t pkt_max(const udccp_conn *conn) {
  return conn->settings.pmtu - conn->settings.hdr_overhead;
}

/* §11.4: the Ack Vector describes GSR downwards and its record keys acks
 * of acks (Appendix A).  It gets the room the packet has left: the
 * ackvec module writes what fits, newest first, and keeps the rest for
 * the next ack, so an ack never fails for its vector. */
static void put_ackvec(udccp_conn *conn, udccp_optbuf *ob, size_t payload_len,
                       size_t cap, uint64_t seq) {
  size_t limit = cap < pkt_max(conn) ? cap : pkt_max(conn);
  /* §5.1: Data Offset counts the generic header, the type's subheader
   * and the options, at most 1020 bytes in all.  udccp_conn_build keeps
   * the first (fixed - 12) bytes of ob unused for that (UDCCP_OPTS_MAX_LEN
   * assumes the smallest header), so they are in ob->len already. */
  size_t used = 12 + payload_len + ob->len + 3;
  size_t room;
  if (used + 3 > limit || ob->len + 3 > UDCCP_OPTS_MAX_LEN) {
    return;
  }
  /* §11.4: the vector's first byte describes the Acknowledgement Number
   * (GSR).  A packet that moved GSR without reaching step 8 (dropped at
   * step 7, or by option processing) was not received in the Ack Vector's
   * sense: it heads the vector as Not Received. */
  if (udccp_ackvec_skip_to(&conn->av, conn->gsr) != 0) {
    return;
  }
  room = limit - used;
  (void)udccp_ackvec_write_room(&conn->av, ob, room, seq);
}

/* §13.3: the echo of the peer's latest Timestamp, with the time it waited
 * here, goes on the next packet of any type ("permitted in any DCCP
 * packet ... as soon as is convenient"): a Data packet or a Close gets
 * it as well as an Ack. */
static inline void put_ts_echo(udccp_conn *conn, udccp_optbuf *ob,
                               udccp_tstamp ts) {
  uint64_t el, v = conn->peer_ts;
  size_t vlen = 4;
  if (!conn->peer_ts_valid) {
    return;
  }
  el = (ts - conn->peer_ts_rx) / 10000; /* 10 us units */
  /* §13.3: Elapsed Time in 2 bytes when it fits, else 4 (saturated). */
  if (el > 0 && el <= 0xFFFF) {
    v = v << 16 | el;
    vlen = 6;
  } else if (el > 0xFFFF) {
    if (el > 0xFFFFFFFFULL) {
      el = 0xFFFFFFFFULL;
    }
    v = v << 32 | el;
    vlen = 8;
  }
  if (udccp_optbuf_put_be(ob, UDCCP_OPT_TIMESTAMP_ECHO, v, vlen) == 0) {
    conn->peer_ts_valid = 0;
  }
}

/* RFC 4340 §12.2 SHOULD, RFC 4341 §7: a data packet carries a random ECN
 * nonce, ECT(1) for 1 and ECT(0) for 0 (RFC 3540 §2), from the
 * connection's xorshift generator; the caller checked that ECN is on
 * (*cur_pecn != 0). */
static inline void pick_nonce(udccp_conn *conn) {
  uint64_t x = conn->nonce_rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  conn->nonce_rng = x;
  conn->env.tx_nonce = (uint8_t)(x >> 63);
  *conn->cur_pecn = conn->env.tx_nonce ? 1 : 2;
}

/* An options area of up to 32 bytes (a data packet's or an ack's, issue
 * 13) moved to d: ob zero-padded to its word (§5.8.1: Padding is option
 * 0), then 8-byte copies of fixed size instead of a memcpy call and the
 * zeroed word.  Bytes copied past the area land in the caller's room (it
 * checked fixed + 32 <= cap and ob->len + 4 <= sizeof(ob->buf)), under the
 * payload or past the packet. */
static inline void opts_move32(uint8_t *d, udccp_optbuf *ob, size_t ob_res,
                               size_t olen) {
  static const uint8_t zero4[4] = {0, 0, 0, 0};
  const uint8_t *o = ob->buf + ob_res;
  memcpy(ob->buf + ob->len, zero4, 4);
  memcpy(d, o, 8);
  if (olen > 8) {
    memcpy(d + 8, o + 8, 8);
    if (olen > 16) {
      memcpy(d + 16, o + 16, 8);
      if (olen > 24) {
        memcpy(d + 24, o + 24, 8);
      }
    }
  }
}

/* The fast builders' options (after `fixed` bytes of header, ending at
 * `hdr`): opts_move32 when they fit its room, else a copy after a zeroed
 * last word (the padding). */
static inline __attribute__((always_inline)) void
put_opts(uint8_t *dst, size_t fixed, size_t hdr, size_t cap,
         udccp_optbuf *ob, size_t ob_res, size_t olen) {
  static const uint8_t zero4[4] = {0, 0, 0, 0};
  if (olen <= 32 && fixed + 32 <= cap && ob->len + 4 <= sizeof(ob->buf)) {
    opts_move32(dst + fixed, ob, ob_res, olen);
  } else if (olen > 0) {
    memcpy(dst + hdr - 4, zero4, 4);
    memcpy(dst + fixed, ob->buf + ob_res, ob->len - ob_res);
  }
}

/* The fast builders' payload: sg_len > 0 hands it to the caller's
 * scatter-gather entry (zero-copy send), else it is copied after the
 * header. */
static inline __attribute__((always_inline)) void
put_payload(udccp_conn *conn, uint8_t *dst, size_t hdr,
            const uint8_t *payload, size_t payload_len, size_t sg_len) {
  if (sg_len > 0) {
    /* cur_pecn points at the first member (C11 6.7.2.1 §15) */
    struct udccp_conn_sg *sg = (struct udccp_conn_sg *)(void *)conn->cur_pecn;
    sg->data = payload;
    sg->len = sg_len;
  } else {
    memcpy(dst + hdr, payload, payload_len);
  }
}

/* The packet udccp_conn_build sends most (issue 13): DCCP-Data in OPEN
 * whose options are a Timestamp Echo if one is owed (§13.3) and the
 * sender CCID's -- no NDP Count (§7.7: the previous packet carried data
 * or the option is off), no Data Checksum (§9.3), no multipath option,
 * CsCov 0 -- as udccp_conn_build would build it, in the same order and
 * with the same effects (§6: Data carries no feature options,
 * udccp_feat_write only keeps FGSS <= GSS), without its tests for other
 * types and states and its header structure: the fields are written in
 * place.  The caller checked the conditions (data_plain). */
static udccp_ssize build_data(udccp_conn *conn, uint8_t *dst, size_t cap,
                              const uint8_t *payload, size_t payload_len,
                              udccp_tstamp ts) {
  /* fixed: the 16-byte header of Data with X = 1 (§5.1, §5.2) */
  enum { fixed = 16, ob_res = fixed - 12 };
  udccp_optbuf ob;
  uint64_t seq = udccp_seq_add(conn->gss, 1);
  uint8_t ccval = 0;
  size_t olen, hdr, total, sg_len;
  udccp_ssize n;
  const udccp_ccid_ops *cc = conn->tx_ccid;
  if (cc->tx_data == NULL && cc->tx_ccval != NULL) {
    ccval = (uint8_t)(cc->tx_ccval(conn->tx_st, ts) & 0xF);
  }
  ob.len = ob_res; /* as udccp_conn_build: the room Data Offset leaves */
  (void)udccp_feat_write(&conn->feat, &ob, UDCCP_PKT_DATA, seq);
  put_ts_echo(conn, &ob, ts); /* §13.3: on any packet */
  if (cc->tx_data != NULL) {
    /* the options and CCVal in one call (CCID 3 and 4's window counter
     * and RTT Estimate) */
    ccval = (uint8_t)(cc->tx_data(conn->tx_st, &ob, ts) & 0xF);
  } else if (cc->tx_write_opts) {
    (void)conn->tx_ccid->tx_write_opts(conn->tx_st, &ob, UDCCP_PKT_DATA, ts);
  }
  olen = (ob.len - ob_res + 3) & ~(size_t)3;
  hdr = fixed + olen;
  total = hdr + payload_len;
  if (total > cap || total > pkt_max(conn)) {
    return UDCCP_ERR_NOBUF;
  }
  sg_len = conn->cur_sg ? payload_len : 0;
  /* §5.1: ports, Data Offset, CCVal, CsCov 0, checksum 0 (set below or
   * by the UDP layer, RFC 6773 §3.3), Res 0, Type, X = 1, Reserved 0, the
   * 48-bit Sequence Number */
  dst[0] = (uint8_t)(conn->path.local_port >> 8);
  dst[1] = (uint8_t)conn->path.local_port;
  dst[2] = (uint8_t)(conn->path.remote_port >> 8);
  dst[3] = (uint8_t)conn->path.remote_port;
  dst[4] = (uint8_t)(hdr / 4);
  dst[5] = (uint8_t)(ccval << 4);
  dst[6] = 0;
  dst[7] = 0;
  dst[8] = (uint8_t)(UDCCP_PKT_DATA << 1 | 1);
  dst[9] = 0;
  udccp_put48(dst + 10, seq);
  put_opts(dst, fixed, hdr, cap, &ob, ob_res, olen);
  put_payload(conn, dst, hdr, payload, payload_len, sg_len);
  n = (udccp_ssize)(hdr + payload_len - sg_len);
  if (conn->settings.cksum_mode == UDCCP_CKSUM_FULL) {
    (void)udccp_cksum_set(dst, (size_t)n, &conn->path);
  }
  conn->gss = seq;
  udccp_conn_update_aw(conn); /* only GSS moved */
  udccp_feat_check_wrap(&conn->feat, conn->gsr, conn->gss);
  conn->env.tx_nonce = 0;
  if (conn->cur_pecn != NULL && *conn->cur_pecn != 0) {
    pick_nonce(conn); /* as in udccp_conn_build */
  }
  if (conn->tx_ccid->tx_on_sent) {
    /* the datagram being sent is still the head of the queue */
    conn->env.tx_more = udccp_sendq_len(&conn->sendq) > 1u
                            ? UDCCP_CCID_MORE_YES
                            : UDCCP_CCID_MORE_NO;
    conn->tx_ccid->tx_on_sent(conn->tx_st, seq, 1, payload_len, ts);
  }
  conn->ndp_count = 0; /* §7.7 */
  conn->data_since_ackack = 1;
  if (conn->data_unacking < UDCCP_CONN_ACKACK_EVERY) {
    conn->data_unacking++;
  }
  conn->t_last_tx = ts;
  conn->info.pkts_sent++;
  conn->info.bytes_sent += (uint64_t)n + sg_len;
  conn->info.data_pkts_sent++;
  conn->info.data_bytes_sent += payload_len;
  return n;
}

/* 1 if build_data builds this packet. */
static inline int data_plain(const udccp_conn *conn, uint8_t type) {
  return type == UDCCP_PKT_DATA &&
         conn->state == UDCCP_STATE_OPEN && conn->tx_ccid_up &&
         !conn->build_general &&
         conn->mp == NULL &&
         !(conn->send_ndp && conn->ndp_count > 0) &&
         !data_checksum_on(conn) && conn->settings.send_cscov == 0;
}

udccp_ssize udccp_conn_build(udccp_conn *conn, uint8_t *dst, size_t cap,
                             uint8_t type, const uint8_t *payload,
                             size_t payload_len, udccp_tstamp ts) {
  udccp_hdr h;
  udccp_optbuf ob;
  udccp_ssize n;
  uint64_t seq;
  /* RFC 4340 §7.7: DCCP-Data and DCCP-DataAck are data packets whatever
   * their length: only write_data_once builds them, each with a datagram,
   * which may be empty (udccp_recv() returns 0 for it). */
  int is_data = type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK;
  int acking, data_op;
  int own_seq;
  /* Data, Ack or DataAck on an OPEN connection, almost every packet: the
   * tests for other types and states below are skipped (issue 13). */
  int plain = conn->state == UDCCP_STATE_OPEN &&
              ((1u << type) & ((1u << UDCCP_PKT_DATA) | (1u << UDCCP_PKT_ACK) |
                               (1u << UDCCP_PKT_DATAACK))) != 0;
  size_t ob_res;
  size_t sg_len;
  uint16_t empty_owed = 0;

  /* The fields udccp_pkt_write_inline reads, no more (not a memset of the
   * whole header on every packet, issue 13); the type-specific ones
   * (Service Code, Reset code and data) below, for the types that carry
   * them. */
  h.ccval = 0;
  h.cscov = 0;
  if (!plain) {
    h.service_code = 0;
    h.reset_code = 0;
    memset(h.reset_data, 0, sizeof(h.reset_data));
  }
  udccp_optbuf_init(&ob);
  /* §5.8: options end at Data Offset's limit, 1020 bytes from the start
   * of the header: a header longer than 12 bytes leaves them less than
   * ob's UDCCP_OPTS_MAX_LEN.  The first ob_res bytes of ob stay unused so
   * that every writer sees the room this packet type really has. */
  ob_res = udccp_hdr_fixed_len(type, 1);
  ob_res = ob_res > 12 ? ob_res - 12 : 0;
  ob.len = ob_res;
  h.sport = conn->path.local_port;
  h.dport = conn->path.remote_port;
  h.type = type;
  h.x = 1;
  h.has_ack = (uint8_t)udccp_pkt_type_has_ack(type);
  own_seq = type != UDCCP_PKT_LISTEN &&
                !(type == UDCCP_PKT_RESET && conn->reset_use_seq);
  if (plain) {
    seq = udccp_seq_add(conn->gss, 1);
  } else if (type == UDCCP_PKT_LISTEN) {
    seq = 0; /* RFC 5596 §2.2.1 */
  } else if (!own_seq) {
    seq = conn->reset_seq;
  } else {
    seq = udccp_seq_add(conn->gss, 1);
  }
  h.seq = seq;
  h.ack = conn->gsr;
  if (plain) {
    /* none of the other types' fields */
  } else if (type == UDCCP_PKT_SYNC) {
    h.ack = conn->sync_ackno;
  } else if (type == UDCCP_PKT_SYNCACK) {
    h.ack = conn->syncack_ackno;
  } else if (type == UDCCP_PKT_RESET) {
    h.ack = conn->reset_ackno;
    h.reset_code = conn->pend_reset_code;
    memcpy(h.reset_data, conn->pend_reset_data, 3);
  }
  if (!plain && (type == UDCCP_PKT_REQUEST || type == UDCCP_PKT_RESPONSE ||
                 type == UDCCP_PKT_LISTEN)) {
    h.service_code = conn->service_code;
  }
  if (type != UDCCP_PKT_LISTEN) {
    h.cscov = our_cscov(conn, payload_len);
  }
  data_op = type == UDCCP_PKT_DATA && conn->tx_ccid_up &&
            conn->tx_ccid->tx_data != NULL; /* CCVal with the options */
  if (is_data && !data_op && conn->tx_ccid_up && conn->tx_ccid->tx_ccval) {
    h.ccval = (uint8_t)(conn->tx_ccid->tx_ccval(conn->tx_st, ts) & 0xF);
  }

  acking = type == UDCCP_PKT_ACK || type == UDCCP_PKT_DATAACK;
  if (type != UDCCP_PKT_RESET && type != UDCCP_PKT_LISTEN) {
    /* §6: Confirms and new Changes ride on the next non-Data packet.
     * Unconfirmed Changes are repeated on every handshake packet (each has
     * its own retransmission timer) and, once OPEN, when the §6.6.3
     * back-off timer says so (conn_timer.c): repeating them on every
     * packet would draw a Confirm, hence an Ack, for each (§6.6.1). */
    if (!plain) {
      if (conn->state != UDCCP_STATE_OPEN) {
        conn->feat.repeat = 1;
      }
      /* §8.1.4, §8.1.5: every packet the client sends in PARTOPEN (Ack,
       * DataAck, Sync, SyncAck, Close) echoes all the Response's Init
       * Cookies, in order.  First, so that they always fit: they came in
       * one options area. */
      if (!conn->is_server && conn->state == UDCCP_STATE_PARTOPEN &&
          conn->echo_cookies_len > 0 && type != UDCCP_PKT_DATA) {
        memcpy(ob.buf + ob.len, conn->echo_cookies, conn->echo_cookies_len);
        ob.len += conn->echo_cookies_len;
      }
      if (!conn->is_server && conn->state == UDCCP_STATE_PARTOPEN &&
          type != UDCCP_PKT_DATA) {
        /* Every PARTOPEN packet repeats the handshake's Confirms: Linux's
         * server refuses the connection if the one that reaches it first
         * lacks any (feat.h). */
        udccp_feat_repeat_handshake_confirms(&conn->feat);
      }
    }
    empty_owed = conn->feat.n_empty;
    if (udccp_feat_write(&conn->feat, &ob, type, seq) > 0) {
      conn->t_feat_tx = ts;
      conn->feat_tx_seq = seq;
      conn->feat_tx_valid = 1;
    }
    /* RFC 9897 §3.3: MP_KEY on the first subflow's Request/Response. */
    if (conn->mp != NULL) {
      udccp_mp_write(conn->mp, &conn->feat, &ob, type, is_data, ts);
    }
    /* §8.1.4: the listener's cookie on our Response. */
    if (!plain && conn->init_cookie_len > 0 && conn->is_server &&
        type == UDCCP_PKT_RESPONSE) {
      (void)udccp_optbuf_put(&ob, UDCCP_OPT_INIT_COOKIE, 0, conn->init_cookie,
                             conn->init_cookie_len);
    }
    /* §7.7: NDP Count after a run of non-data packets. */
    if (conn->send_ndp && conn->ndp_count > 0) {
      uint64_t c = conn->ndp_count & UDCCP_SEQ_MASK;
      size_t len = 1;
      while (len < 6 && (c >> (8 * len)) != 0) {
        len++;
      }
      (void)udccp_optbuf_put_be(&ob, UDCCP_OPT_NDP_COUNT, c, len);
    }
    if (acking || (!plain && (type == UDCCP_PKT_SYNC ||
                              type == UDCCP_PKT_SYNCACK ||
                              type == UDCCP_PKT_REQUEST ||
                              type == UDCCP_PKT_RESPONSE))) {
      /* §13.1, §13.3: a Timestamp, and an echo of the peer's with the
       * time it waited here, for RTT measurement. */
      (void)udccp_optbuf_put_be(&ob, UDCCP_OPT_TIMESTAMP,
                                ts_value(conn, ts), 4);
    }
    if (plain || type != UDCCP_PKT_REQUEST) {
      put_ts_echo(conn, &ob, ts);
    }
    if (acking) {
      if (conn->slow_rx_pending) {
        /* §11.6 */
        (void)udccp_optbuf_put(&ob, UDCCP_OPT_SLOW_RECEIVER, 0, NULL, 0);
      }
      put_data_dropped(conn, &ob, h.ack);
      if (conn->rx_ccid_up && conn->rx_ccid->rx_write_opts) {
        (void)conn->rx_ccid->rx_write_opts(conn->rx_st, &ob, type, ts);
      }
    }
    if (data_op) {
      h.ccval = (uint8_t)(conn->tx_ccid->tx_data(conn->tx_st, &ob, ts) & 0xF);
    } else if (conn->tx_ccid_up && conn->tx_ccid->tx_write_opts) {
      (void)conn->tx_ccid->tx_write_opts(conn->tx_st, &ob, type, ts);
    }
    if (is_data && conn->mp != NULL) {
      udccp_mp_put_seq(conn->mp, &conn->feat, &ob); /* RFC 9897 §3.2.5 */
    }
    if (is_data && data_checksum_on(conn)) {
      /* §9.3: CRC-32c of the application data. */
      (void)udccp_optbuf_put_uint(&ob, UDCCP_OPT_DATA_CHECKSUM,
                                  udccp_crc32c(payload, payload_len), 4);
    }
    if (acking && conn->send_ackvec && conn->av_up) {
      put_ackvec(conn, &ob, payload_len, cap, seq);
    }
  }
  if (!plain && type == UDCCP_PKT_RESET) {
    put_ts_echo(conn, &ob, ts); /* §13.3: any packet */
    if (conn->mp != NULL) {
      udccp_mp_write_reset(conn->mp, &conn->feat, &ob); /* RFC 9897 §3.2.3 */
    }
  }
  {
    /* What udccp_pkt_encode_inline would check holds by construction: a
     * type with a header (fixed > 0), CCVal masked to 4 bits, CsCov from
     * settings checked at creation (<= 15), options from ob, whose
     * UDCCP_OPTS_MAX_LEN less ob_res keeps the header within Data
     * Offset's 1020 bytes (§5.1); the total is checked here. */
    size_t fixed = udccp_hdr_fixed_len(type, 1);
    size_t hdr = fixed + ((ob.len - ob_res + 3) & ~(size_t)3);
    size_t total = hdr + payload_len;
    if (total > cap || (payload_len > 0 && total > pkt_max(conn))) {
      return UDCCP_ERR_NOBUF;
    }
    /* udccp_conn_write_pkt_sg: the header alone (it does not depend on
     * the payload: no length field, the checksum zero); the payload
     * stays in the send queue and is counted below. */
    sg_len = conn->cur_sg && is_data ? payload_len : 0;
    if (hdr - fixed <= 32 && fixed + 32 <= cap &&
        ob.len + 4 <= sizeof(ob.buf)) {
      opts_move32(dst + fixed, &ob, ob_res, hdr - fixed);
      n = (udccp_ssize)udccp_pkt_write_inline(dst, &h, fixed, hdr, NULL, 0,
                                              payload, payload_len - sg_len);
    } else {
      n = (udccp_ssize)udccp_pkt_write_inline(dst, &h, fixed, hdr,
                                              ob.buf + ob_res, ob.len - ob_res,
                                              payload, payload_len - sg_len);
    }
  }
  if (sg_len > 0) {
    /* cur_pecn points at the first member (C11 6.7.2.1 §15) */
    struct udccp_conn_sg *sg = (struct udccp_conn_sg *)(void *)conn->cur_pecn;
    sg->data = payload;
    sg->len = sg_len;
  }
  if (conn->settings.cksum_mode == UDCCP_CKSUM_FULL) {
    (void)udccp_cksum_set(dst, (size_t)n, &conn->path);
  }
  if (own_seq) {
    conn->gss = seq;
    udccp_conn_update_aw(conn); /* only GSS moved */
    udccp_feat_check_wrap(&conn->feat, conn->gsr, conn->gss);
    conn->env.tx_nonce = 0;
    if (is_data && conn->cur_pecn != NULL && *conn->cur_pecn != 0) {
      pick_nonce(conn);
    }
    if (conn->tx_ccid_up && conn->tx_ccid->tx_on_sent) {
      /* the datagram being sent is still the head of the queue */
      conn->env.tx_more = udccp_sendq_len(&conn->sendq) > (is_data ? 1u : 0u)
                              ? UDCCP_CCID_MORE_YES
                              : UDCCP_CCID_MORE_NO;
      conn->tx_ccid->tx_on_sent(conn->tx_st, seq, is_data, payload_len, ts);
    }
    /* §7.7: count runs of non-data packets. */
    conn->ndp_count = is_data ? 0 : conn->ndp_count + 1;
  }
  if (acking) {
    conn->ack_needed = 0;
    conn->pkts_since_ack = 0;
    conn->t_last_ack_tx = ts;
    conn->t_ackack = UDCCP_TSTAMP_NEVER;
    conn->slow_rx_pending = 0;
    conn->pending &= ~(uint32_t)UDCCP_PEND_ACK;
    if (conn->feat.n_empty > 0 && conn->feat.n_empty < empty_owed) {
      /* §6.6.7: more Empty Confirms than one options area holds (a packet
       * full of unknown Changes): the rest go on the next Ack at once,
       * while each Ack still makes progress. */
      conn->pending |= UDCCP_PEND_ACK;
    }
    trim_drops(conn);
    conn->data_since_ackack = 0;
    conn->data_unacking = 0;
  }
  if (is_data) {
    conn->data_since_ackack = 1;
    if (!acking && conn->data_unacking < UDCCP_CONN_ACKACK_EVERY) {
      conn->data_unacking++;
    }
  }
  conn->t_last_tx = ts;
  conn->info.pkts_sent++;
  conn->info.bytes_sent += (uint64_t)n + sg_len;
  if (is_data) {
    conn->info.data_pkts_sent++;
    conn->info.data_bytes_sent += payload_len;
  }
  return n;
}

/* The other packets udccp_conn_build sends most (issue 13): a CCID 2
 * receiver's DCCP-Ack in OPEN, one per Ack Ratio data packets (RFC 4341
 * §6), and a CCID 2 sender's DCCP-DataAck, its ack of acks (RFC 4341
 * §6.2, conn.h UDCCP_CONN_ACKACK_EVERY), whose options are the Changes or
 * Confirms owed (§6), a Timestamp (§13.1), the echo of the peer's
 * (§13.3), the CCIDs' and the Ack Vector (§11.4) -- no NDP Count (§7.7:
 * none owed or the option off), Slow Receiver (§11.6), Data Dropped
 * (§11.7: no drop recorded), Data Checksum (§9.3), multipath option,
 * CsCov 0 -- as udccp_conn_build would build it, in the same order and
 * with the same effects, without its tests for other types, states and
 * options and its header structure: the fields are written in place.
 * type is UDCCP_PKT_ACK (payload_len 0) or UDCCP_PKT_DATAACK (payload_len
 * > 0).  The callers checked the conditions (ack_plain, dataack_plain).
 * Compared with the general path packet by packet in
 * tests/test_conn_ackvec.c (conn->build_general).  Always inlined into
 * build_ack and build_dataack, each with its type a constant (callgrind:
 * the Ack's +20 instructions if shared). */
static inline __attribute__((always_inline)) udccp_ssize
build_ack_any(udccp_conn *conn, uint8_t *dst, size_t cap, uint8_t type,
              const uint8_t *payload, size_t payload_len, udccp_tstamp ts) {
  /* fixed: the 24-byte header of Ack and DataAck with X = 1 (§5.1, §5.3) */
  enum { fixed = 24, ob_res = fixed - 12 };
  udccp_optbuf ob;
  uint64_t seq = udccp_seq_add(conn->gss, 1);
  uint16_t empty_owed = conn->feat.n_empty;
  uint8_t ccval = 0;
  size_t olen, hdr, total, sg_len = 0;
  if (payload_len > 0 && conn->tx_ccid->tx_ccval != NULL) {
    /* DataAck: CCVal as udccp_conn_build sets it for data (§5.1) */
    ccval = (uint8_t)(conn->tx_ccid->tx_ccval(conn->tx_st, ts) & 0xF);
  }
  ob.len = ob_res; /* as udccp_conn_build: the room Data Offset leaves */
  if (udccp_feat_write(&conn->feat, &ob, type, seq) > 0) {
    conn->t_feat_tx = ts;
    conn->feat_tx_seq = seq;
    conn->feat_tx_valid = 1;
  }
  (void)udccp_optbuf_put_be(&ob, UDCCP_OPT_TIMESTAMP, ts_value(conn, ts), 4);
  put_ts_echo(conn, &ob, ts);
  if (conn->rx_ccid_up && conn->rx_ccid->rx_write_opts) {
    (void)conn->rx_ccid->rx_write_opts(conn->rx_st, &ob, type, ts);
  }
  if (conn->tx_ccid_up && conn->tx_ccid->tx_write_opts) {
    (void)conn->tx_ccid->tx_write_opts(conn->tx_st, &ob, type, ts);
  }
  if (conn->send_ackvec && conn->av_up) {
    put_ackvec(conn, &ob, payload_len, cap, seq);
  }
  olen = (ob.len - ob_res + 3) & ~(size_t)3;
  hdr = fixed + olen;
  total = hdr + payload_len;
  if (total > cap || (payload_len > 0 && total > pkt_max(conn))) {
    return UDCCP_ERR_NOBUF;
  }
  /* §5.1: ports, Data Offset, CCVal, CsCov 0, checksum 0 (set below or by
   * the UDP layer, RFC 6773 §3.3), Res 0, Type, X = 1, Reserved 0, the
   * 48-bit Sequence Number; §5.3: Reserved 0, the 48-bit Acknowledgement
   * Number (GSR) */
  dst[0] = (uint8_t)(conn->path.local_port >> 8);
  dst[1] = (uint8_t)conn->path.local_port;
  dst[2] = (uint8_t)(conn->path.remote_port >> 8);
  dst[3] = (uint8_t)conn->path.remote_port;
  dst[4] = (uint8_t)(hdr / 4);
  dst[5] = (uint8_t)(ccval << 4);
  dst[6] = 0;
  dst[7] = 0;
  dst[8] = (uint8_t)(type << 1 | 1);
  dst[9] = 0;
  udccp_put48(dst + 10, seq);
  dst[16] = 0;
  dst[17] = 0;
  udccp_put48(dst + 18, conn->gsr);
  put_opts(dst, fixed, hdr, cap, &ob, ob_res, olen);
  if (payload_len > 0) {
    sg_len = conn->cur_sg ? payload_len : 0;
    put_payload(conn, dst, hdr, payload, payload_len, sg_len);
  }
  total -= sg_len;
  if (conn->settings.cksum_mode == UDCCP_CKSUM_FULL) {
    (void)udccp_cksum_set(dst, total, &conn->path);
  }
  conn->gss = seq;
  udccp_conn_update_aw(conn); /* only GSS moved */
  udccp_feat_check_wrap(&conn->feat, conn->gsr, conn->gss);
  conn->env.tx_nonce = 0;
  if (payload_len > 0 && conn->cur_pecn != NULL && *conn->cur_pecn != 0) {
    pick_nonce(conn); /* as in udccp_conn_build */
  }
  if (conn->tx_ccid_up && conn->tx_ccid->tx_on_sent) {
    /* a DataAck's datagram is still the head of the queue */
    conn->env.tx_more =
        udccp_sendq_len(&conn->sendq) > (payload_len > 0 ? 1u : 0u)
            ? UDCCP_CCID_MORE_YES
            : UDCCP_CCID_MORE_NO;
    conn->tx_ccid->tx_on_sent(conn->tx_st, seq, payload_len > 0, payload_len,
                              ts);
  }
  conn->ndp_count = payload_len > 0 ? 0 : conn->ndp_count + 1; /* §7.7 */
  conn->ack_needed = 0;
  conn->pkts_since_ack = 0;
  conn->t_last_ack_tx = ts;
  conn->t_ackack = UDCCP_TSTAMP_NEVER;
  conn->pending &= ~(uint32_t)UDCCP_PEND_ACK;
  if (conn->feat.n_empty > 0 && conn->feat.n_empty < empty_owed) {
    conn->pending |= UDCCP_PEND_ACK; /* §6.6.7, as udccp_conn_build */
  }
  conn->data_since_ackack = payload_len > 0;
  conn->data_unacking = 0;
  conn->t_last_tx = ts;
  conn->info.pkts_sent++;
  conn->info.bytes_sent += total + sg_len;
  if (payload_len > 0) {
    conn->info.data_pkts_sent++;
    conn->info.data_bytes_sent += payload_len;
  }
  return (udccp_ssize)total;
}

static udccp_ssize build_ack(udccp_conn *conn, uint8_t *dst, size_t cap,
                             udccp_tstamp ts) {
  return build_ack_any(conn, dst, cap, UDCCP_PKT_ACK, NULL, 0, ts);
}

static udccp_ssize build_dataack(udccp_conn *conn, uint8_t *dst, size_t cap,
                                 const uint8_t *payload, size_t payload_len,
                                 udccp_tstamp ts) {
  return build_ack_any(conn, dst, cap, UDCCP_PKT_DATAACK, payload,
                       payload_len, ts);
}

/* 1 if build_ack builds this Ack: nothing it leaves out is owed (trim_drops
 * has nothing to forget without a drop record). */
static inline int ack_plain(const udccp_conn *conn) {
  return conn->state == UDCCP_STATE_OPEN && conn->mp == NULL &&
         !conn->build_general && !(conn->send_ndp && conn->ndp_count > 0) &&
         !conn->slow_rx_pending && conn->n_drops == 0 && conn->drops == NULL &&
         conn->settings.send_cscov == 0;
}

/* 1 if build_dataack builds this DataAck: as ack_plain, with data (the CCID
 * up, no Data Checksum owed, §9.3).  build_ack_any tells an Ack from a
 * DataAck by its payload: an empty datagram's DataAck, a data packet all
 * the same (§7.7), takes udccp_conn_build. */
static inline int dataack_plain(const udccp_conn *conn, uint8_t type,
                                size_t payload_len) {
  return type == UDCCP_PKT_DATAACK && payload_len > 0 && conn->tx_ccid_up &&
         !data_checksum_on(conn) && ack_plain(conn);
}

/* The packet type to use for an acknowledgement in this state. */
static int can_ack(const udccp_conn *conn) {
  return conn->state == UDCCP_STATE_OPEN ||
         conn->state == UDCCP_STATE_PARTOPEN ||
         conn->state == UDCCP_STATE_CLOSEREQ;
  /* Not in CLOSING: our Close (and its retransmissions) carries the
   * acknowledgement, and the peer answers it with a Reset (§8.3); a
   * separate Ack after the Close only draws Reset(No Connection). */
}

void udccp_conn_ack_now(udccp_conn *conn, udccp_tstamp ts) {
  size_t k;
  udccp_ssize n;
  if (!can_ack(conn) || conn->ackq_n == UDCCP_CONN_ACKQ ||
      conn->ackq_slot < pkt_max(conn) ||
      (conn->ackq == NULL && udccp_conn_ackq_alloc(conn) != 0)) {
    conn->pending |= UDCCP_PEND_ACK;
    return;
  }
  udccp_conn_trim_arm(conn, ts);
  k = (size_t)(conn->ackq_head + conn->ackq_n) % UDCCP_CONN_ACKQ;
  n = ack_plain(conn)
          ? build_ack(conn, conn->ackq + k * conn->ackq_slot, conn->ackq_slot,
                      ts)
          : udccp_conn_build(conn, conn->ackq + k * conn->ackq_slot,
                             conn->ackq_slot, UDCCP_PKT_ACK, NULL, 0, ts);
  if (n <= 0) {
    conn->pending |= UDCCP_PEND_ACK;
    return;
  }
  conn->ackq_len[k] = (uint16_t)n;
  conn->ackq_n++;
}

/* One try at the datagram at the head of the queue: the packet's length,
 * 0, or UDCCP_ERR_DROPPED when that datagram could never be sent and was
 * dropped (then the next one may go now). */
static udccp_ssize write_data_once(udccp_conn *conn, uint8_t *dst, size_t cap,
                                   udccp_tstamp ts) {
  const uint8_t *data;
  size_t len;
  uint8_t type;
  udccp_ssize n;
  /* A datagram whose expiry has come is dropped, never sent late. */
  (void)udccp_sendq_expire(&conn->sendq, ts);
  data = udccp_sendq_head(&conn->sendq, &len);
  if (data == NULL) {
    return 0;
  }
  if (len > conn->info.mps) {
    /* The MPS shrank under it (§14): it can no longer be sent. */
    (void)udccp_sendq_pop(&conn->sendq);
    conn->info.tx_qdrops++;
    return UDCCP_ERR_DROPPED;
  }
  if (udccp_conn_window_stalled(conn)) {
    if (conn->t_stall == UDCCP_TSTAMP_NEVER) {
      conn->t_stall = ts;
    }
    return 0;
  }
  conn->t_stall = UDCCP_TSTAMP_NEVER;
  if (conn->tx_ccid->tx_next_send(conn->tx_st, ts) > ts) {
    return 0;
  }
  /* §8.1.5: from PARTOPEN only DataAck; otherwise piggyback an ack when we
   * owe one, when Confirms are owed (they need an ackno), or, while our
   * Ack Vector holds state the peer has not acknowledged, when the peer
   * has acked since our last ack and ackack_every Data packets went
   * without one (conn.h UDCCP_CONN_ACKACK_EVERY; RFC 4341 §6.2:
   * "at least once per congestion window"; RFC 4340 §11.1: "a DCCP-DataAck
   * packet instead of DCCP-Data every now and then").  The peer's acks
   * then report that DataAck received and its vector buffer shrinks
   * (Appendix A.3, udccp_ackvec_on_peer_acks). */
  type = (conn->state == UDCCP_STATE_PARTOPEN || conn->ack_needed ||
          (conn->pending & UDCCP_PEND_ACK) ||
          (conn->send_ackvec && conn->av_up && !conn->av.empty &&
           conn->pkts_since_ack > 0 &&
           conn->data_unacking >= conn->ackack_every) ||
          udccp_feat_want_packet(&conn->feat))
             ? UDCCP_PKT_DATAACK
             : UDCCP_PKT_DATA;
  if (conn->fallback_ack && conn->state == UDCCP_STATE_OPEN) {
    /* The acknowledgement just went alone: plain Data has room. */
    type = UDCCP_PKT_DATA;
  }
  n = data_plain(conn, type) ? build_data(conn, dst, cap, data, len, ts)
      : dataack_plain(conn, type, len)
          ? build_dataack(conn, dst, cap, data, len, ts)
          : udccp_conn_build(conn, dst, cap, type, data, len, ts);
  if (n == UDCCP_ERR_NOBUF && type == UDCCP_PKT_DATAACK) {
    if (conn->fallback_ack) {
      /* PARTOPEN: only DataAck with the Init Cookie may carry data
       * (§8.1.5), and this datagram does not fit beside it: it waits for
       * OPEN. */
      conn->data_blocked = 1;
      return 0;
    }
    /* The options and the data do not fit together: the ack goes alone
     * now, the datagram next. */
    n = udccp_conn_build(conn, dst, cap, UDCCP_PKT_ACK, NULL, 0, ts);
    if (n > 0) {
      conn->fallback_ack = 1;
    }
    return n;
  }
  if (n == UDCCP_ERR_NOBUF) {
    /* A Data packet whose options leave no room for this datagram (§14):
     * it can never go; drop it rather than block the queue. */
    (void)udccp_sendq_pop(&conn->sendq);
    conn->info.tx_qdrops++;
    return UDCCP_ERR_DROPPED;
  }
  if (n > 0) {
    udccp_sendq_pop_inline(&conn->sendq);
    conn->fallback_ack = 0;
    if (!conn->data_mark_set || udccp_seq_le(conn->data_mark, conn->gar)) {
      conn->data_mark = conn->gss; /* for udccp_conn_window_stalled */
      conn->data_mark_set = 1;
    }
    if (conn->state == UDCCP_STATE_PARTOPEN) {
      /* §8.1.5: the PARTOPEN timer restarts with every packet sent. */
      conn->t_retx = ts + conn->retx_rto;
    }
  }
  return n;
}

/* The next data packet.  Datagrams that can never be sent are dropped
 * and the next one tried at once: returning 0 while one may go now would
 * leave the caller a timer in the past (found by fuzz_pair). */
static udccp_ssize write_data(udccp_conn *conn, uint8_t *dst, size_t cap,
                              udccp_tstamp ts) {
  udccp_ssize n;
  while ((n = write_data_once(conn, dst, cap, ts)) == UDCCP_ERR_DROPPED) {
  }
  return n;
}

udccp_ssize udccp_conn_write_pkt(udccp_conn *conn, uint8_t *dst, size_t cap,
                                 uint8_t *pecn, udccp_tstamp ts) {
  udccp_ssize n;
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  conn->now = ts;
  if (dst == NULL || cap < pkt_max(conn)) {
    return UDCCP_ERR_NOBUF;
  }
  /* Nothing pending, no ack built, no datagram queued, no close waiting:
   * what the steps of udccp_conn_write_pkt_next would conclude, in one
   * test, before its set-up.  The caller asks until it gets 0, so every
   * batch ends with this call (issue 13); with no packet, *pecn has
   * nothing to describe. */
  if ((conn->pending | conn->ackq_n | conn->closing_after_q) == 0 &&
      udccp_sendq_len(&conn->sendq) == 0) {
    return 0;
  }
  if (pecn != NULL) {
    /* RFC 4340 §12.1: ECT(0) when the peer reads ECN (ECN Incapable/peer
     * is 0) and the application allowed it. */
    *pecn = (conn->env.ecn && (conn->state == UDCCP_STATE_OPEN ||
                               conn->state == UDCCP_STATE_PARTOPEN))
                ? 2
                : 0;
  }
  conn->cur_pecn = pecn; /* the nonce may pick ECT(1) for a data packet */
  n = udccp_conn_write_pkt_next(conn, dst, cap, ts);
  conn->cur_pecn = NULL;
  return n;
}

udccp_ssize udccp_conn_write_pkt_sg(udccp_conn *conn, uint8_t *dst,
                                    size_t cap, const uint8_t **payload,
                                    size_t *payload_len, uint8_t *pecn,
                                    udccp_tstamp ts) {
  struct udccp_conn_sg sg = {0, NULL, 0};
  udccp_ssize n;
  if (conn == NULL || payload == NULL || payload_len == NULL || pecn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *payload = NULL;
  *payload_len = 0;
  /* A full checksum covers the payload (§9): such packets are written
   * whole.  The connection finds sg through the ECN out-parameter (no
   * pointer of its own: issue 13's bytes per connection). */
  conn->cur_sg = conn->settings.cksum_mode != UDCCP_CKSUM_FULL;
  n = udccp_conn_write_pkt(conn, dst, cap, &sg.ecn, ts);
  conn->cur_sg = 0;
  *pecn = sg.ecn;
  if (n > 0) {
    *payload = sg.data;
    *payload_len = sg.len;
  }
  return n;
}

udccp_ssize udccp_conn_write_pkt_next(udccp_conn *conn, uint8_t *dst,
                                      size_t cap, udccp_tstamp ts) {
  udccp_ssize n = 0;
  if (conn->pending & UDCCP_PEND_RESET) {
    udccp_ssize rn;
    conn->pending &= ~(uint32_t)UDCCP_PEND_RESET;
    rn = udccp_conn_build(conn, dst, cap, UDCCP_PKT_RESET, NULL, 0, ts);
    conn->reset_use_seq = 0;
    return rn;
  }
  if (conn->state == UDCCP_STATE_CLOSED ||
      conn->state == UDCCP_STATE_TIMEWAIT) {
    conn->pending = 0;
    conn->ackq_n = 0;
    udccp_conn_ackq_release(conn);
    return 0;
  }
  if (conn->ackq_n > 0) {
    /* Acks built when they fell due, oldest first, before anything built
     * later (their sequence numbers are older). */
    size_t k = conn->ackq_head;
    size_t len = conn->ackq_len[k];
    conn->ackq_head = (uint8_t)((k + 1) % UDCCP_CONN_ACKQ);
    conn->ackq_n--;
    memcpy(dst, conn->ackq + k * conn->ackq_slot, len);
    /* Kept for the next ack while busy; udccp_conn_trim() frees it once
     * idle (issue 13). */
    return (udccp_ssize)len;
  }
  /* Control packets other than acks: none pending on almost every call
   * (issue 13), one test for all. */
  if (conn->pending &
      (UDCCP_PEND_SYNCACK | UDCCP_PEND_SYNC | UDCCP_PEND_LISTEN |
       UDCCP_PEND_REQUEST | UDCCP_PEND_RESPONSE | UDCCP_PEND_CLOSEREQ |
       UDCCP_PEND_CLOSE)) {
    if (conn->pending & UDCCP_PEND_SYNCACK) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_SYNCACK;
      return udccp_conn_build(conn, dst, cap, UDCCP_PKT_SYNCACK, NULL, 0, ts);
    }
    if (conn->pending & UDCCP_PEND_SYNC) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_SYNC;
      conn->info.syncs_sent++;
      return udccp_conn_build(conn, dst, cap, UDCCP_PKT_SYNC, NULL, 0, ts);
    }
    if (conn->pending & UDCCP_PEND_LISTEN) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_LISTEN;
      if (conn->state == UDCCP_STATE_LISTEN) {
        conn->listen_sent++;
        /* RFC 5596 §2.2.2: next repetition (or the LISTEN1 move) in 200 ms. */
        conn->t_listen = ts + UDCCP_CONN_LISTEN_INTERVAL;
        return udccp_conn_build(conn, dst, cap, UDCCP_PKT_LISTEN, NULL, 0, ts);
      }
    }
    if (conn->pending & UDCCP_PEND_REQUEST) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_REQUEST;
      if (conn->state == UDCCP_STATE_REQUEST) {
        return udccp_conn_build(conn, dst, cap, UDCCP_PKT_REQUEST, NULL, 0, ts);
      }
    }
    if (conn->pending & UDCCP_PEND_RESPONSE) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_RESPONSE;
      if (conn->state == UDCCP_STATE_RESPOND) {
        return udccp_conn_build(conn, dst, cap, UDCCP_PKT_RESPONSE, NULL, 0,
                                ts);
      }
    }
    if (conn->pending & UDCCP_PEND_CLOSEREQ) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_CLOSEREQ;
      if (conn->state == UDCCP_STATE_CLOSEREQ) {
        return udccp_conn_build(conn, dst, cap, UDCCP_PKT_CLOSEREQ, NULL, 0,
                                ts);
      }
    }
    if (conn->pending & UDCCP_PEND_CLOSE) {
      conn->pending &= ~(uint32_t)UDCCP_PEND_CLOSE;
      if (conn->state == UDCCP_STATE_CLOSING) {
        return udccp_conn_build(conn, dst, cap, UDCCP_PKT_CLOSE, NULL, 0, ts);
      }
    }
  }
  /* Application data. */
  if ((conn->state == UDCCP_STATE_OPEN ||
       conn->state == UDCCP_STATE_PARTOPEN) &&
      conn->tx_ccid_up && !conn->data_blocked) {
    n = write_data(conn, dst, cap, ts);
    if (n != 0) {
      return n;
    }
  }
  /* A graceful close starts once the queue is empty (§8.3). */
  if (conn->closing_after_q && conn->state == UDCCP_STATE_OPEN &&
      udccp_sendq_len(&conn->sendq) == 0) {
    conn->closing_after_q = 0;
    if (conn->is_server && !conn->settings.server_timewait) {
      /* §8.3: the server asks the client to close and hold TIMEWAIT. */
      conn->state = UDCCP_STATE_CLOSEREQ;
      n = udccp_conn_build(conn, dst, cap, UDCCP_PKT_CLOSEREQ, NULL, 0, ts);
    } else {
      conn->state = UDCCP_STATE_CLOSING;
      n = udccp_conn_build(conn, dst, cap, UDCCP_PKT_CLOSE, NULL, 0, ts);
    }
    {
      udccp_tstamp rto = conn->env.rto ? conn->env.rto : UDCCP_NS_PER_S;
      if (rto < UDCCP_CONN_CLOSE_RTO_MIN) {
        rto = UDCCP_CONN_CLOSE_RTO_MIN;
      }
      udccp_conn_timer_start(conn, rto, ts);
    }
    return n;
  }
  if ((conn->pending & UDCCP_PEND_ACK) && can_ack(conn)) {
    conn->pending &= ~(uint32_t)UDCCP_PEND_ACK;
    n = udccp_conn_build(conn, dst, cap, UDCCP_PKT_ACK, NULL, 0, ts);
    if (n > 0 && conn->state == UDCCP_STATE_PARTOPEN) {
      conn->t_retx = ts + conn->retx_rto;
    }
    return n;
  }
  conn->pending &= ~(uint32_t)UDCCP_PEND_ACK;
  return 0;
}
