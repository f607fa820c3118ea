/* SPDX-License-Identifier: MIT */
/*
 * Input: the packet-processing steps of RFC 4340 §8.5, in order, with the
 * sequence-validity rules of §7.5, option processing (§5.8, §6, §11, §13),
 * RFC 5596 (DCCP-Listen) and RFC 5595 (Service Codes).
 */
#include <string.h>

#include "ccid2.h"
#include "ccid3.h"
#include "cksum.h"
#include "conn.h"

int udccp_conn_decode(udccp_conn_rxpkt *p, const uint8_t *pkt, size_t len) {
  int rv;
  /* No memset of the whole: the option arrays make it over a kilobyte, on
   * every packet (issue 13); the header decoder sets every header field
   * and the arrays are read only up to their counts. */
  udccp_opts_reset(&p->opts);
  p->seq = p->ack = 0;
  p->ecn = 0;
  p->recorded = 0;
  rv = udccp_hdr_decode(&p->h, pkt, len);
  if (rv != 0) {
    return rv;
  }
  p->seq = p->h.seq;
  p->ack = p->h.ack;
  return 0;
}

int udccp_conn_keep_cookies(udccp_conn *conn, const udccp_conn_rxpkt *p) {
  const udccp_mem *mem = conn->mem;
  const uint8_t *o;
  size_t i = 0, n = 0;
  uint8_t *buf;
  if (conn->echo_cookies != NULL) {
    mem->free(conn->echo_cookies, mem->user_data);
    conn->echo_cookies = NULL;
    conn->echo_cookies_len = 0;
  }
  if (p == NULL || !(p->opts.present & UDCCP_OPTS_HAS_INIT_COOKIE)) {
    return 0;
  }
  o = p->h.opts;
  /* The options parsed already: the walk needs no checks beyond lengths. */
  buf = mem->malloc(p->h.opts_len, mem->user_data);
  if (buf == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  while (i + 1 < p->h.opts_len) {
    size_t len;
    if (o[i] < 32) {
      i++;
      continue;
    }
    len = o[i + 1];
    if (len < 2 || len > p->h.opts_len - i) {
      break; /* §5.8: the rest is ignored */
    }
    if (o[i] == UDCCP_OPT_INIT_COOKIE) {
      memcpy(buf + n, o + i, len);
      n += len;
    }
    i += len;
  }
  conn->echo_cookies = buf;
  conn->echo_cookies_len = (uint16_t)n;
  return 0;
}

/* A Reset numbered from the input packet without tearing anything down
 * (§8.3.1, §8.5 steps 2 and 4). */
static void reset_reply(udccp_conn *conn, const udccp_conn_rxpkt *p,
                        uint8_t code) {
  if (p->h.type == UDCCP_PKT_RESET) {
    return;
  }
  conn->pend_reset_code = code;
  memset(conn->pend_reset_data, 0, 3);
  if (code == UDCCP_RESET_PACKET_ERROR) {
    conn->pend_reset_data[0] = p->h.type; /* §5.6 */
  }
  conn->reset_use_seq = 1;
  conn->reset_seq = p->h.has_ack ? udccp_seq_add(p->ack, 1) : 0;
  conn->reset_ackno = p->seq;
  if (!p->h.x) {
    /* §8.3.1 step 3: answering short sequence numbers, the upper 24 bits
     * of both numbers are zero (P.ackno + 1 may carry into bit 24). */
    conn->reset_seq &= 0xFFFFFFu;
    conn->reset_ackno &= 0xFFFFFFu;
  }
  conn->pending |= UDCCP_PEND_RESET;
}

/* §7.5.4: Sync in answer to a sequence-invalid packet, at most 8/s. */
static void send_sync(udccp_conn *conn, uint64_t ackno, udccp_tstamp ts) {
  if (conn->t_last_sync != UDCCP_TSTAMP_NEVER &&
      ts - conn->t_last_sync < UDCCP_CONN_SYNC_INTERVAL) {
    return;
  }
  conn->t_last_sync = ts;
  conn->sync_ackno = ackno;
  conn->pending |= UDCCP_PEND_SYNC;
}

static void set_gsr(udccp_conn *conn, uint64_t seq) {
  if (!conn->have_isr || udccp_seq_gt(seq, conn->gsr)) {
    conn->gsr = seq;
  }
  udccp_conn_update_sw(conn); /* only GSR moved */
}

int udccp_conn_apply_features(udccp_conn *conn, udccp_tstamp ts) {
  const udccp_feat_set *fs = &conn->feat;
  uint64_t v;
  (void)ts;
  conn->seqwin_local = udccp_feat_get_local(fs, UDCCP_FEAT_SEQ_WINDOW);
  conn->seqwin_remote = udccp_feat_get_remote(fs, UDCCP_FEAT_SEQ_WINDOW);
  conn->env.seq_window_out = conn->seqwin_local;
  conn->env.seq_window_in = conn->seqwin_remote;
  udccp_conn_update_windows(conn);
  /* Ack Ratio/A is located at the HC-Sender A and governs how B acks A's
   * data (§11.3); the receiving half follows the peer's. */
  v = udccp_feat_get_local(fs, UDCCP_FEAT_ACK_RATIO);
  conn->ack_ratio_cur = (uint32_t)v;
  conn->env.ack_ratio = (uint32_t)v;
  conn->env_rx.ack_ratio =
      (uint32_t)udccp_feat_get_remote(fs, UDCCP_FEAT_ACK_RATIO);
  /* RFC 6323 §3.2: the sender half sends RTT Estimates, the receiver
   * half uses the peer's. */
  conn->env.send_rtt_est = (uint8_t)(
      udccp_feat_get_local(fs, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE) == 1);
  conn->env_rx.send_rtt_est = (uint8_t)(
      udccp_feat_get_remote(fs, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE) == 1);
  conn->send_ackvec =
      (uint8_t)(udccp_feat_get_local(fs, UDCCP_FEAT_SEND_ACK_VECTOR) != 0);
  conn->send_ndp =
      (uint8_t)(udccp_feat_get_local(fs, UDCCP_FEAT_SEND_NDP_COUNT) != 0);
  conn->short_seqnos_ok =
      (uint8_t)(udccp_feat_get_remote(fs, UDCCP_FEAT_ALLOW_SHORT_SEQNOS) == 1);
  conn->peer_min_cscov =
      (uint8_t)udccp_feat_get_remote(fs, UDCCP_FEAT_MIN_CSCOV);
  conn->send_data_cksum =
      (uint8_t)(udccp_feat_get_remote(fs, UDCCP_FEAT_CHECK_DATA_CKSUM) != 0);
  conn->check_data_cksum =
      (uint8_t)(udccp_feat_get_local(fs, UDCCP_FEAT_CHECK_DATA_CKSUM) == 1);
  conn->env.ecn = (uint8_t)(conn->settings.ecn_capable &&
                            udccp_feat_get_remote(
                                fs, UDCCP_FEAT_ECN_INCAPABLE) == 0);
  if (!conn->tx_ccid_up) {
    conn->tx_ccid_id = (uint8_t)udccp_feat_get_local(fs, UDCCP_FEAT_CCID);
  }
  if (!conn->rx_ccid_up) {
    conn->rx_ccid_id = (uint8_t)udccp_feat_get_remote(fs, UDCCP_FEAT_CCID);
  }
  udccp_conn_sync_env(conn);
  return 0;
}

/* Handshake end: like Linux (net/dccp/feat.c, activation), a connection
 * whose Changes were not all Confirmed is not used; then the negotiated
 * CCIDs start (§6.6, §10). */
static int finish_negotiation(udccp_conn *conn, const udccp_conn_rxpkt *p,
                              udccp_tstamp ts) {
  int rv;
  /* RFC 9897 §3.6: a Response without Confirm L(Multipath Capable) is a
   * peer without multipath: plain DCCP, not a failed handshake. */
  udccp_feat_mp_fallback(&conn->feat);
  if (!udccp_feat_all_confirmed(&conn->feat)) {
    /* A server's NN Change in its Response (e.g. a Sequence Window other
     * than 100) whose Confirm rode on a lost Ack: Confirms are never
     * retransmitted, the Change is (§6.6.3).  The server goes on with the
     * old value and repeats the Change on its next packet. */
    if (!conn->feat.is_server || !udccp_feat_only_nn_pending(&conn->feat)) {
      return UDCCP_ERR_OPTION;
    }
    conn->feat.repeat = 1;
  }
  udccp_conn_apply_features(conn, ts);
  /* The handshake's round trip is the sender half's first RTT: RFC 5348
   * §4.2 lets TFRC start at W_init/R with it instead of one packet per
   * second.  Only when this packet acknowledges the latest one we sent
   * (Request or Response): a retransmission's sample would be ambiguous. */
  if (conn->env.srtt == 0 && !conn->tx_ccid_up && p->h.has_ack &&
      p->ack == conn->gss && ts > conn->t_last_tx) {
    conn->env.srtt = ts - conn->t_last_tx;
  }
  rv = udccp_conn_start_ccids(conn, ts);
  if (rv == 0) {
    /* §10: a Confirm of a CCID Change would put that CCID in use; the
     * halves cannot switch, so we confirm only the CCIDs we run. */
    udccp_feat_hold_ccids(&conn->feat);
  }
  return rv;
}

/* CCID 2's wish for a new Ack Ratio becomes an NN Change (RFC 4341
 * §6.1.2, RFC 4340 §11.3). */
static void check_ack_ratio(udccp_conn *conn) {
  uint32_t want = conn->env.want_ack_ratio;
  if (want != 0 && want != conn->ack_ratio_asked && want <= 0xFFFF) {
    if (udccp_feat_change_nn(&conn->feat, UDCCP_FEAT_ACK_RATIO, want) == 0) {
      conn->ack_ratio_asked = want;
    }
  }
}

int udccp_conn_accept_request(udccp_conn *conn, const udccp_conn_rxpkt *p,
                              udccp_tstamp ts) {
  /* §8.5 step 3: ISR, GSR, windows from the Request; GAR := ISS. */
  conn->state = UDCCP_STATE_RESPOND;
  conn->isr = p->seq;
  conn->gsr = p->seq;
  conn->have_isr = 1;
  conn->gar = conn->iss;
  conn->t_listen = UDCCP_TSTAMP_NEVER;
  conn->pending &= ~(uint32_t)UDCCP_PEND_LISTEN;
  udccp_conn_update_windows(conn);
  /* A client that never completes must not keep us in RESPOND forever:
   * §8.1.3 allows giving up after no less than 4MSL (the PARTOPEN limit);
   * the Response itself is never resent by timer (the client resends its
   * Request). */
  udccp_conn_timer_start(conn, conn->settings.partopen_timeout, ts);
  return 0;
}

/* Records a dropped datagram for Data Dropped (§11.7): the next one of the
 * newest run, same code, extends it. */
static void note_drop(udccp_conn *conn, uint64_t seq, uint8_t code) {
  conn->ack_needed = 1;
  if (conn->n_drops > 0) {
    udccp_conn_drop *last = &conn->drops[conn->n_drops - 1];
    unsigned run = (unsigned)(last->code_run & 0x0F) + 1;
    if (last->code_run >> 4 == code && run < UDCCP_CONN_DROP_RUN &&
        last->sent == 0 &&
        seq == udccp_seq_add(udccp_conn_drop_seq(last), 1)) {
      udccp_conn_drop_set_seq(last, seq);
      last->code_run++;
      return;
    }
  }
  if (conn->drops == NULL) {
    conn->drops = conn->mem->malloc(
        UDCCP_CONN_MAX_DROPS * sizeof(*conn->drops), conn->mem->user_data);
    if (conn->drops == NULL) {
      return; /* the option is advisory (§11.7): the ack goes without it */
    }
  }
  if (conn->n_drops == UDCCP_CONN_MAX_DROPS) {
    memmove(&conn->drops[0], &conn->drops[1],
            sizeof(conn->drops[0]) * (UDCCP_CONN_MAX_DROPS - 1));
    conn->n_drops--;
  }
  udccp_conn_drop_set_seq(&conn->drops[conn->n_drops], seq);
  conn->drops[conn->n_drops].code_run = (uint8_t)(code << 4);
  conn->drops[conn->n_drops].sent = 0;
  conn->n_drops++;
}

/* RFC 4340 §7.7: data packets lost before this valid packet, for the next
 * datagram the application gets (udccp_recv_info.lost_before).  The
 * sequence numbers missing since the highest one received, less the
 * non-data packets the NDP Count option says came just before it (§7.7.2:
 * a run of NDP Count non-data packets immediately precedes it; without the
 * option, none did).  A late (reordered) packet changes nothing: its gap
 * was counted when a later packet arrived. */
static void note_gap(udccp_conn *conn, const udccp_conn_rxpkt *p) {
  uint64_t gap, ndp;
  if (!conn->rx_high_set) {
    conn->rx_high = p->seq;
    conn->rx_high_set = 1;
    return;
  }
  if (p->seq == udccp_seq_add(conn->rx_high, 1)) {
    conn->rx_high = p->seq; /* the next in order: no gap (issue 13) */
    return;
  }
  if (!udccp_seq_gt(p->seq, conn->rx_high)) {
    return;
  }
  gap = (uint64_t)udccp_seq_sub(p->seq, conn->rx_high) - 1;
  ndp = (p->opts.present & UDCCP_OPTS_HAS_NDP_COUNT) ? p->opts.ndp_count : 0;
  conn->rx_lost_pending += gap > ndp ? gap - ndp : 0;
  conn->rx_high = p->seq;
}

/* §8.5 step 16, §9.3, §11.6, §11.7.  Returns 1 if the data was dropped as
 * corrupt (Drop Code 3), else 0. */
static int deliver(udccp_conn *conn, const udccp_conn_rxpkt *p,
                   udccp_tstamp ts) {
  const uint8_t *data = p->h.payload;
  size_t len = p->h.payload_len;
  conn->info.data_pkts_recv++;
  conn->info.data_bytes_recv += len;
  conn->ack_needed = 1;
  if (p->opts.present & UDCCP_OPTS_HAS_DATA_CHECKSUM) {
    if (udccp_crc32c(data, len) != p->opts.data_checksum) {
      /* §9.3: data corrupt, reported as Drop Code 3. */
      conn->info.pkts_bad_cksum++;
      conn->rx_lost_pending++;
      note_drop(conn, p->seq, 3);
      return 1;
    }
  } else if (conn->check_data_cksum) {
    /* §9.3: without the option the data cannot be checked: Drop Code 0. */
    conn->rx_lost_pending++;
    note_drop(conn, p->seq, 0);
    return 0;
  }
  if (udccp_rxq_push_meta(&conn->rxq, data, len, p->seq,
                          conn->rx_lost_pending) == 0) {
    conn->rx_lost_pending = 0;
    udccp_conn_trim_arm(conn, conn->now);
    /* RFC 9897 §3.2.5: the MP connection orders by MP_SEQ. */
    if (conn->mp != NULL) {
      udccp_mp_note_rx(conn->mp, &conn->feat, &p->opts, p->seq);
    }
  } else {
    /* §11.7.2: dropped in the receive buffer, Drop Code 2; the
     * application never sees it: lost before the next one. */
    conn->rx_lost_pending++;
    conn->info.rx_qdrops++;
    note_drop(conn, p->seq, 2);
    conn->slow_rx_pending = 1;
    conn->pending |= UDCCP_PEND_ACK;
    return 0;
  }
  if (conn->rxq.qlen - conn->rxq.count <= UDCCP_CONN_SLOW_RX_FREE) {
    /* §11.6: keep the sender from speeding up while we lag behind. */
    conn->slow_rx_pending = 1;
  }
  return 0;
}

/* Clears n bits of the duplicate ring from sequence number from on. */
static void dup_clear(uint64_t *bits, uint64_t from, uint64_t n) {
  while (n > 0) {
    unsigned pos = (unsigned)(from & (UDCCP_CONN_DUP_BITS - 1));
    unsigned off = pos & 63u;
    uint64_t take = 64u - off;
    if (take > n) {
      take = n;
    }
    bits[pos >> 6] &= ~(take == 64 ? ~(uint64_t)0
                                   : (((uint64_t)1 << take) - 1) << off);
    from += take;
    n -= take;
  }
}

/* §7: "sequence numbers ... detect ... network duplicates".  Returns 1 if
 * valid packet seq was received before (a copy the network made: the
 * caller drops it, so that the application never reads a datagram twice
 * and the CCID never counts one twice), else records it and returns 0. */
static int dup_check(udccp_conn *conn, uint64_t seq) {
  int64_t d;
  uint64_t bit = seq & (UDCCP_CONN_DUP_BITS - 1);
  if (conn->dup_set && seq == udccp_seq_add(conn->dup_high, 1)) {
    /* The next in order, almost every packet: its bit held seq - BITS,
     * now out of the ring; nothing between to clear. */
    conn->dup_bits[bit >> 6] |= (uint64_t)1 << (bit & 63);
    conn->dup_high = seq;
    return 0;
  }
  if (!conn->dup_set) {
    memset(conn->dup_bits, 0, sizeof(conn->dup_bits));
    conn->dup_set = 1;
    conn->dup_high = seq;
  } else if ((d = udccp_seq_sub(seq, conn->dup_high)) > 0) {
    dup_clear(conn->dup_bits, udccp_seq_add(conn->dup_high, 1),
              (uint64_t)d < UDCCP_CONN_DUP_BITS ? (uint64_t)d
                                                : UDCCP_CONN_DUP_BITS);
    conn->dup_high = seq;
  } else if ((uint64_t)-d >= UDCCP_CONN_DUP_BITS) {
    return 0; /* older than the ring: cannot tell */
  }
  if (conn->dup_bits[bit >> 6] & ((uint64_t)1 << (bit & 63))) {
    return 1;
  }
  conn->dup_bits[bit >> 6] |= (uint64_t)1 << (bit & 63);
  return 0;
}

static int drop(udccp_conn *conn, int err) {
  conn->info.pkts_dropped++;
  return err;
}

/* Dropped by the sequence/acknowledgement number checks (§7.5.3): counted
 * apart, so that an attack suite can tell a blind injection stopped there
 * from a packet that got further. */
static int drop_seq(udccp_conn *conn, int err) {
  conn->info.pkts_seq_invalid++;
  return drop(conn, err);
}

/* Step 8: mark the packet acknowledgeable (§11.4) when our receiving half
 * sends Ack Vectors. */
static inline __attribute__((always_inline)) int
mark_acknowledgeable(udccp_conn *conn, udccp_conn_rxpkt *p) {
  int rv;
  if (!conn->send_ackvec || !conn->av_up || p->recorded) {
    return 0;
  }
  /* CE is state 1; ECT(1) adds a nonce to the Nonce Echo (§12.2). */
  rv = udccp_ackvec_record_ecn(&conn->av, p->seq, p->ecn);
  if (rv == UDCCP_ERR_NOMEM) {
    udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, UDCCP_ERR_NOMEM);
    return UDCCP_ERR_NOMEM;
  }
  p->recorded = 1;
  return 0;
}

/* Option processing of step 8; returns 0 or a fatal code after queuing the
 * Reset. */
static int process_options(udccp_conn *conn, udccp_conn_rxpkt *p,
                           udccp_tstamp ts) {
  int rv = udccp_opts_parse_inline(&p->opts, p->h.type, p->h.opts,
                                   p->h.opts_len);
  if (rv != 0) {
    /* §5.8, §5.8.2: Option Error or Mandatory Error, with the option in
     * the Reset's data. */
    conn->info.pkts_malformed++;
    udccp_conn_send_reset(conn,
                          rv == UDCCP_ERR_MANDATORY
                              ? UDCCP_RESET_MANDATORY_ERROR
                              : UDCCP_RESET_OPTION_ERROR,
                          p->opts.err_data, UDCCP_ERR_RESET);
    return UDCCP_ERR_RESET;
  }
  if (p->h.type != UDCCP_PKT_DATA) {
    udccp_feat_pkt fp;
    uint8_t code = 0, data[3] = {0, 0, 0};
    uint32_t gen = conn->feat.generation;
    fp.type = p->h.type;
    fp.has_ack = p->h.has_ack;
    fp.seq = p->seq;
    fp.ack = p->ack;
    fp.gsr = conn->gsr;
    rv = udccp_feat_read(&conn->feat, &p->opts, &fp, &code, data);
    if (rv != 0) {
      udccp_conn_send_reset(conn, code, data, UDCCP_ERR_RESET);
      return UDCCP_ERR_RESET;
    }
    /* RFC 9897 §3.3: MP_KEY, once Multipath Capable is settled. */
    rv = conn->mp != NULL
             ? udccp_mp_read(conn->mp, &conn->feat, &p->opts, p->h.type)
             : 0;
    if (rv == UDCCP_MP_READ_IGNORE) {
      /* RFC 9897 §3.2.11: a join while the connection closes is ignored:
       * this subflow dies without a word. */
      udccp_conn_kill(conn, UDCCP_ERR_REFUSED, UDCCP_RESET_NONE);
      return UDCCP_ERR_REFUSED;
    }
    if (rv == UDCCP_MP_READ_BUSY) {
      /* RFC 9897 §3.10: beyond the subflow limit. */
      udccp_conn_send_reset(conn, UDCCP_RESET_TOO_BUSY, NULL,
                            UDCCP_ERR_RESET);
      return UDCCP_ERR_RESET;
    }
    if (rv != 0) {
      static const uint8_t mp_key[3] = {UDCCP_OPT_MULTIPATH, UDCCP_MP_KEY,
                                        0};
      conn->info.pkts_malformed++;
      udccp_conn_send_reset(conn, UDCCP_RESET_OPTION_ERROR, mp_key,
                            UDCCP_ERR_RESET);
      return UDCCP_ERR_RESET;
    }
    if (udccp_feat_all_confirmed(&conn->feat)) {
      conn->feat_backoff = 0; /* the next negotiation starts afresh */
    }
    if (gen != conn->feat.generation &&
        (conn->state == UDCCP_STATE_OPEN ||
         conn->state == UDCCP_STATE_PARTOPEN ||
         conn->state == UDCCP_STATE_CLOSEREQ ||
         conn->state == UDCCP_STATE_CLOSING)) {
      udccp_conn_apply_features(conn, ts);
    }
    if (udccp_feat_owes_confirm(&conn->feat) &&
        p->h.type != UDCCP_PKT_RESET) {
      /* §6.6.1: Confirms are owed; an Ack carries them.  Our own pending
       * Changes wait for the back-off timer (§6.6.3) or a packet that goes
       * anyway. */
      conn->ack_needed = 1;
      conn->pending |= UDCCP_PEND_ACK;
    }
    if (p->h.has_ack && conn->state == UDCCP_STATE_OPEN &&
        conn->feat_tx_valid && udccp_seq_ge(p->ack, conn->feat_tx_seq) &&
        !udccp_feat_all_confirmed(&conn->feat)) {
      /* §6.6.3: the peer acknowledged the packet with our Changes but did
       * not Confirm them all -- a Change or its Confirm was lost.  The next
       * packet repeats them; an RTT passes before this can happen again. */
      conn->feat.repeat = 1;
    }
  }
  /* RFC 9897: signals, MP_CONFIRM, MP_CLOSE, MP_FAST_CLOSE (any type). */
  if (conn->mp != NULL && p->opts.mp != NULL &&
      udccp_mp_read_conn(conn->mp, &conn->feat, &p->opts, p->h.type) &&
      p->h.type != UDCCP_PKT_RESET) {
    conn->pending |= UDCCP_PEND_ACK; /* the MP_CONFIRM rides on it */
  }
  if (p->opts.present & UDCCP_OPTS_HAS_TIMESTAMP) {
    /* §13.3: echo it on our next packet. */
    conn->peer_ts_valid = 1;
    conn->peer_ts = p->opts.timestamp;
    conn->peer_ts_rx = ts;
  }
  if (p->opts.present & UDCCP_OPTS_HAS_SLOW_RECEIVER) {
    /* §11.6: no rate increase for about one RTT; the CCID sees the option
     * in tx_on_pkt, and info shows it. */
    conn->slow_until =
        ts + (conn->env.srtt ? conn->env.srtt : 100 * UDCCP_NS_PER_MS);
  }
  rv = mark_acknowledgeable(conn, p);
  if (rv != 0) {
    return rv;
  }
  if (p->h.has_ack && conn->send_ackvec && conn->av_up &&
      p->h.type != UDCCP_PKT_SYNC && p->h.type != UDCCP_PKT_SYNCACK) {
    /* Appendix A.3: only a packet of ours the peer is known to have got
     * (its ackno, or one its Ack Vector reports received) clears the
     * state its vector record covers; an ackno between two vector
     * packets proves nothing about the older one. */
    udccp_ackvec_on_peer_acks(&conn->av, &p->opts, p->ack);
  }
  return 0;
}

/* Grows our Sequence Window with the CCID's window (§7.5.2: about five
 * times the packets in flight per RTT), so that we never persistently
 * send more than Sequence Window/A packets per RTT.  Short excursions
 * beyond the peer's window are repaired by Sync/SyncAck (§7.5.4).  Here,
 * beside its one caller, after every acknowledgement (issue 13). */
static void tune_seqwin(udccp_conn *conn, udccp_tstamp ts) {
  uint64_t cwnd;
  udccp_feat_entry *e;
  uint64_t want, per_rtt;
  udccp_tstamp rtt = conn->env.srtt ? conn->env.srtt : 100 * UDCCP_NS_PER_MS;
  if (conn->state != UDCCP_STATE_OPEN) {
    return;
  }
  /* Packets of any kind sent per RTT: an endpoint that mostly acks also
   * needs a window wide enough for its acks (the peer checks their
   * numbers against it, §7.5.3). */
  if (conn->win_mark_ts == UDCCP_TSTAMP_NEVER || ts < conn->win_mark_ts) {
    conn->win_mark_seq = conn->gss; /* first sample starts now */
    conn->win_mark_ts = ts;
  } else if (ts - conn->win_mark_ts >= rtt) {
    /* Scaled to one RTT: a sample may span many RTTs when the packets
     * that trigger it come rarely. */
    uint64_t sent = (uint64_t)udccp_seq_sub(conn->gss, conn->win_mark_seq);
    uint64_t span = (uint64_t)(ts - conn->win_mark_ts);
    conn->sent_per_rtt =
        (uint64_t)((double)sent * (double)rtt / (double)span) + 1;
    conn->win_mark_seq = conn->gss;
    conn->win_mark_ts = ts;
  }
  /* Only the window is read, on every ack (issue 13), through the op that
   * answers just that; a CCID without it keeps no window (CCID 3 and 4
   * are rate-based) and the packets sent per RTT decide. */
  cwnd = conn->tx_ccid_up && conn->tx_ccid->tx_cwnd != NULL
             ? conn->tx_ccid->tx_cwnd(conn->tx_st)
             : 0;
  /* conn.h UDCCP_CONN_ACKACK_EVERY: a quarter of the window. */
  conn->ackack_every =
      (uint8_t)(cwnd >= 4 * UDCCP_CONN_ACKACK_EVERY ? UDCCP_CONN_ACKACK_EVERY
                : cwnd >= 8                         ? cwnd / 4
                                                    : 1);
  per_rtt = conn->sent_per_rtt > cwnd ? conn->sent_per_rtt : cwnd;
  want = 5 * per_rtt;
  /* A peer that stalls (a busy sender that does not read for a while)
   * acknowledges numbers far behind GSS: keep W' at four times the worst
   * lag seen, so its packets stay inside [AWL, AWH] (§7.5.1) instead of
   * being refused and answered with Syncs (§7.5.4).  And since our acks
   * answer the peer's packets, a peer sending a wide window makes us send
   * many acks: stay within a quarter of its Sequence Window. */
  if (want < 4 * conn->max_ack_lag) {
    want = 4 * conn->max_ack_lag;
  }
  if (want < conn->seqwin_remote / 4) {
    want = conn->seqwin_remote / 4;
  }
  if (want > conn->seqwin_local && want >= conn->settings.seq_window) {
    /* Looked up only when the window would grow (not on every ack). */
    e = udccp_feat_entry_get(&conn->feat, UDCCP_FEAT_SEQ_WINDOW, 1);
    if (e == NULL || e->state != UDCCP_FEAT_STABLE) {
      return; /* one negotiation at a time */
    }
    /* Grow in steps of at least a half to keep negotiations rare. */
    if (want < conn->seqwin_local + conn->seqwin_local / 2) {
      want = conn->seqwin_local + conn->seqwin_local / 2;
    }
    if (want > 70368744177663ULL) {
      want = 70368744177663ULL;
    }
    (void)udccp_feat_change_nn(&conn->feat, UDCCP_FEAT_SEQ_WINDOW, want);
  }
}

static void ccid_input(udccp_conn *conn, const udccp_conn_rxpkt *p,
                       udccp_tstamp ts) {
  udccp_ccid_pkt cp;
  int rv;
  cp.type = p->h.type;
  cp.ccval = p->h.ccval;
  cp.ecn = p->ecn;
  cp.seq = p->seq;
  cp.has_ack = p->h.has_ack;
  cp.ack = p->ack;
  cp.payload_len = p->h.payload_len;
  cp.opts = &p->opts;
  if (conn->tx_ccid_up) {
    /* Every valid packet: CCID 2 also learns the peer's sequence numbers
     * from packets without an ackno (lost acks, RFC 4341 §6.1.1).  A
     * sender half that reads only acknowledgements (CCID 3 and 4: RFC
     * 4342 §8, the feedback rides on Ack and DataAck) says so in its
     * flags and is not shown a Data packet (issue 13: every packet a TFRC
     * receiver gets). */
    rv = !p->h.has_ack && (conn->tx_ccid->flags & UDCCP_CCID_F_TX_ACKS_ONLY)
             ? 0
             : conn->tx_ccid->tx_on_pkt(conn->tx_st, &cp, ts);
    if (rv <= UDCCP_ERR_FATAL) {
      udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, rv);
      return;
    }
    if (rv == UDCCP_ERR_MANDATORY) {
      /* §5.8.2: a Mandatory CCID option (128..255) the sender half does
       * not know. */
      udccp_conn_send_reset(conn, UDCCP_RESET_MANDATORY_ERROR, NULL,
                            UDCCP_ERR_RESET);
      return;
    }
    check_ack_ratio(conn);
    udccp_conn_sync_env_rtt(conn);
    if (p->h.has_ack) {
      tune_seqwin(conn, ts);
    }
  }
  if (conn->rx_ccid_up) {
    rv = conn->rx_ccid->rx_on_pkt(conn->rx_st, &cp, ts);
    if (rv <= UDCCP_ERR_FATAL) {
      udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, rv);
      return;
    }
    if (rv == UDCCP_ERR_MANDATORY) {
      /* §5.8.2: a Mandatory CCID option the CCID does not know. */
      udccp_conn_send_reset(conn, UDCCP_RESET_MANDATORY_ERROR, NULL,
                            UDCCP_ERR_RESET);
      return;
    }
    if (rv == UDCCP_ERR_OPTION) {
      /* A CCID option the CCID finds invalid (RFC 6323 §3.3: RTT
       * Estimate) resets with Option Error; the CCID names the option
       * (Data 1..3, RFC 4340 §5.6). */
      const uint8_t *data = conn->env_rx.opt_err;
      conn->info.pkts_malformed++;
      udccp_conn_send_reset(conn, UDCCP_RESET_OPTION_ERROR, data,
                            UDCCP_ERR_RESET);
      return;
    }
    if (rv > 0) {
      udccp_conn_ack_now(conn, ts);
    }
  }
  if (p->h.has_ack && conn->state == UDCCP_STATE_OPEN &&
      p->opts.n_ackvec > 0 && conn->data_since_ackack) {
    /* RFC 4341 §6.1.4: the peer's acks need acks too, at least once per
     * RTT (conn_timer.c), so that its Ack Vector buffer stays bounded. */
    if (conn->pkts_since_ack == 0) {
      udccp_tstamp i = conn->env.srtt ? conn->env.srtt : 200 * UDCCP_NS_PER_MS;
      conn->t_ackack = ts + (i < 10 * UDCCP_NS_PER_MS ? 10 * UDCCP_NS_PER_MS : i);
    }
    conn->pkts_since_ack++;
  }
}

static int state_before(uint8_t state, uint8_t ref) {
  /* Numeric order of enum udccp_state follows §8.5's "S.state >= OPEN". */
  return state < ref;
}

/* The fast paths' packet (udccp_conn_read_pkt: an in-order Data, or Ack or
 * DataAck, X = 1, checked there): p filled as step 1 would, and what steps
 * 6-7 change in the in-order case (§7's duplicate ring, GSR, the windows
 * that follow it).  Always inlined: type and has_ack are constants or
 * already loaded at both callers (callgrind: +19-32 per packet if not). */
static inline __attribute__((always_inline)) void
fast_accept(udccp_conn *conn, udccp_conn_rxpkt *p, const uint8_t *pkt,
            size_t len, size_t doff, uint8_t type, int has_ack, uint64_t seq,
            uint64_t ack, uint8_t ecn, udccp_tstamp ts) {
  size_t hlen = has_ack ? 24 : 16;
  uint64_t bit = seq & (UDCCP_CONN_DUP_BITS - 1);
  p->h.ccval = pkt[5] >> 4;
  p->h.cscov = 0;
  p->h.type = type;
  p->h.x = 1;
  p->h.has_ack = (uint8_t)has_ack;
  p->h.opts = pkt + hlen;
  p->h.opts_len = doff - hlen;
  p->h.payload = pkt + doff;
  p->h.payload_len = len - doff;
  p->seq = seq;
  p->ack = ack;
  p->ecn = (uint8_t)(ecn & 3);
  p->recorded = 0;
  conn->info.pkts_recv++;
  conn->info.bytes_recv += len;
  conn->dup_bits[bit >> 6] |= (uint64_t)1 << (bit & 63);
  conn->dup_high = seq;
  conn->gsr = seq;
  udccp_conn_update_sw(conn); /* only GSR moved */
  conn->t_last_rx = ts;
}

int udccp_conn_read_pkt(udccp_conn *conn, const uint8_t *pkt, size_t len,
                        uint8_t ecn, udccp_tstamp ts) {
  udccp_conn_rxpkt p;
  uint8_t type;
  uint64_t lswl, lawl;
  int seq_ok, rv, req_checked, cov_refused, plain;

  if (conn == NULL || (pkt == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  conn->now = ts;
  if (pkt == NULL) {
    return drop(conn, UDCCP_ERR_PROTO); /* empty: too short */
  }
  if (conn->state == UDCCP_STATE_CLOSED) {
    return drop(conn, UDCCP_ERR_DROPPED);
  }
  /* The packet received most (issue 13): DCCP-Data with X = 1 (§5.1),
   * CsCov 0, data after its options, on an OPEN connection, the next
   * sequence number after GSR and after the duplicate ring's newest, our
   * ports.  Steps 1-7 as the general path runs them for this plain packet
   * (the header checks of step 1, step 6's validity, §7's duplicate ring
   * in its in-order case, GSR), without the header structure's other
   * fields and the tests for other types and states; then step 8 on. */
  if (len > 16 && (pkt[8] & 0x1F) == (UDCCP_PKT_DATA << 1 | 1) &&
      (pkt[5] & 0x0F) == 0 && conn->state == UDCCP_STATE_OPEN &&
      conn->dup_set) {
    size_t doff = (size_t)pkt[4] * 4;
    uint64_t seq = udccp_get48(pkt + 10);
    if (doff >= 16 && doff < len &&
        seq == udccp_seq_add(conn->dup_high, 1) &&
        seq == udccp_seq_add(conn->gsr, 1) &&
        udccp_seq_between(seq, conn->swl, conn->swh) &&
        (uint16_t)(pkt[0] << 8 | pkt[1]) == conn->path.remote_port &&
        (uint16_t)(pkt[2] << 8 | pkt[3]) == conn->path.local_port &&
        (conn->settings.cksum_mode != UDCCP_CKSUM_FULL ||
         udccp_cksum_check(pkt, len, &conn->path) == 0)) {
      type = UDCCP_PKT_DATA;
      fast_accept(conn, &p, pkt, len, doff, UDCCP_PKT_DATA, 0, seq, 0, ecn, ts);
      plain = 1;
      cov_refused = 0;
      goto step8;
    }
  }
  /* The same for DCCP-Ack and DCCP-DataAck (X = 1: §5.1's 24-byte header
   * with the Acknowledgement Number Subheader; an Ack's data is ignored,
   * §5.5), a sender's most received packets (issue 13): step 6 also
   * checks the Acknowledgement Number against [AWL, AWH] (§7.5.3), and
   * GAR and the largest lag seen move as in the general path.
   * conn->read_general (tests) sends these through the general path. */
  if (len >= 24 &&
      ((pkt[8] & 0x1F) == (UDCCP_PKT_ACK << 1 | 1) ||
       (pkt[8] & 0x1F) == (UDCCP_PKT_DATAACK << 1 | 1)) &&
      (pkt[5] & 0x0F) == 0 && conn->state == UDCCP_STATE_OPEN &&
      conn->dup_set && !conn->read_general) {
    size_t doff = (size_t)pkt[4] * 4;
    uint64_t seq = udccp_get48(pkt + 10);
    uint64_t ack = udccp_get48(pkt + 18);
    if (doff >= 24 && doff <= len &&
        seq == udccp_seq_add(conn->dup_high, 1) &&
        seq == udccp_seq_add(conn->gsr, 1) &&
        udccp_seq_between(seq, conn->swl, conn->swh) &&
        udccp_seq_between(ack, conn->awl, conn->awh) &&
        (uint16_t)(pkt[0] << 8 | pkt[1]) == conn->path.remote_port &&
        (uint16_t)(pkt[2] << 8 | pkt[3]) == conn->path.local_port &&
        (conn->settings.cksum_mode != UDCCP_CKSUM_FULL ||
         udccp_cksum_check(pkt, len, &conn->path) == 0)) {
      uint64_t lag = (uint64_t)udccp_seq_sub(conn->gss, ack);
      type = (pkt[8] >> 1) & 0x0F;
      fast_accept(conn, &p, pkt, len, doff, type, 1, seq, ack, ecn, ts);
      if (lag > conn->max_ack_lag) {
        conn->max_ack_lag = lag;
      }
      conn->gar = udccp_seq_max(conn->gar, ack);
      plain = 1;
      cov_refused = 0;
      goto step8;
    }
  }
  /* Step 1: header basics.  Malformed packets get no Reset.  What
   * udccp_conn_decode does, but the options stay unset until a step reads
   * them: step 8 parses them (resetting them first), and a plain packet
   * (below) reads them in no earlier step (issue 13: not reset twice). */
  p.recorded = 0;
  if (udccp_hdr_decode_inline(&p.h, pkt, len) != 0) {
    conn->info.pkts_malformed++;
    return drop(conn, UDCCP_ERR_PROTO);
  }
  p.seq = p.h.seq;
  p.ack = p.h.ack;
  p.ecn = (uint8_t)(ecn & 3);
  type = p.h.type;
  if (conn->settings.cksum_mode == UDCCP_CKSUM_FULL) {
    rv = udccp_cksum_check(pkt, len, &conn->path);
    if (rv == UDCCP_ERR_CHECKSUM) {
      conn->info.pkts_bad_cksum++;
      return drop(conn, UDCCP_ERR_CHECKSUM);
    }
    if (rv != 0) { /* CsCov larger than the packet (§9.2) */
      conn->info.pkts_malformed++;
      return drop(conn, UDCCP_ERR_PROTO);
    }
  }
  /* §9.2.1: CsCov values we find unacceptable (MinCsCov/us): the header
   * is sound (its checksum passed), so the packet is processed; only its
   * application data is refused, reported as Drop Code 0 (step 16). */
  cov_refused = 0;
  if (p.h.cscov != 0) {
    uint64_t mincov = udccp_feat_get_local(&conn->feat, UDCCP_FEAT_MIN_CSCOV);
    cov_refused = mincov == 0 || p.h.cscov < mincov;
  }
  if (p.h.sport != conn->path.remote_port ||
      p.h.dport != conn->path.local_port) {
    return drop(conn, UDCCP_ERR_DROPPED);
  }
  conn->info.pkts_recv++;
  conn->info.bytes_recv += len;
  /* Data, Ack or DataAck on an OPEN connection, almost every packet: none
   * of the steps below that are about other types or states (2-5, the
   * special cases of 6, 7, 9-15) applies to it, and it skips their tests
   * (issue 13).  The state stays OPEN through step 8 unless a Reset is
   * queued, which returns at once. */
  plain = conn->state == UDCCP_STATE_OPEN &&
          ((1u << type) & ((1u << UDCCP_PKT_DATA) | (1u << UDCCP_PKT_ACK) |
                           (1u << UDCCP_PKT_DATAACK))) != 0;
  req_checked = 0;
  if (plain) {
    goto step6;
  }
  udccp_opts_reset(&p.opts); /* as udccp_conn_decode leaves them */

  /* RFC 5596 §2.2.2, §2.2.3: servers ignore Listen; a client in REQUEST
   * may retransmit its Request once, at once; everyone else discards it. */
  if (type == UDCCP_PKT_LISTEN) {
    if (conn->state == UDCCP_STATE_REQUEST && !conn->listen_triggered &&
        p.h.service_code == conn->service_code) {
      conn->listen_triggered = 1;
      conn->pending |= UDCCP_PEND_REQUEST;
      conn->info.retransmits++;
      conn->retx_rto *= 2; /* §2.2.3.1: the back-off increases */
      conn->t_retx = ts + conn->retx_rto;
      return 0;
    }
    return drop(conn, UDCCP_ERR_DROPPED);
  }

  /* Step 2: TIMEWAIT answers everything but a Reset with Reset(No
   * Connection), numbered from the packet (§8.3.1). */
  if (conn->state == UDCCP_STATE_TIMEWAIT) {
    reset_reply(conn, &p, UDCCP_RESET_NO_CONNECTION);
    return drop(conn, UDCCP_ERR_DROPPED);
  }

  /* Step 3: LISTEN (the RFC 5596 server waiting for its one client). */
  if (conn->state == UDCCP_STATE_LISTEN) {
    if (type != UDCCP_PKT_REQUEST) {
      reset_reply(conn, &p, UDCCP_RESET_NO_CONNECTION);
      return drop(conn, UDCCP_ERR_DROPPED);
    }
    if (p.h.service_code != conn->service_code) {
      /* RFC 5595 §4.2 */
      reset_reply(conn, &p, UDCCP_RESET_BAD_SERVICE_CODE);
      return drop(conn, UDCCP_ERR_SERVICE);
    }
    udccp_conn_accept_request(conn, &p, ts);
  }

  /* Step 4: REQUEST accepts only a Response or Reset acking a Request. */
  req_checked = conn->state == UDCCP_STATE_REQUEST;
  if (req_checked) {
    if ((type == UDCCP_PKT_RESPONSE || type == UDCCP_PKT_RESET) &&
        udccp_seq_between(p.ack, conn->awl, conn->awh)) {
      conn->isr = p.seq;
      conn->gsr = p.seq;
      conn->have_isr = 1;
      udccp_conn_update_windows(conn);
    } else {
      reset_reply(conn, &p, UDCCP_RESET_PACKET_ERROR);
      return drop_seq(conn, UDCCP_ERR_DROPPED);
    }
  }

  /* Step 5: Sync and SyncAck move GSR when their ackno is valid. */
  if (type == UDCCP_PKT_SYNC || type == UDCCP_PKT_SYNCACK) {
    /* §7.5.3: an active connection (a valid packet within the last three
     * RTTs) checks Sync and SyncAck seqnos against SWH too: leniency is
     * for crashes and long loss, not for ongoing communication. */
    int active = conn->state == UDCCP_STATE_OPEN && conn->env.srtt > 0 &&
                 conn->t_last_rx != UDCCP_TSTAMP_NEVER &&
                 ts >= conn->t_last_rx &&
                 ts - conn->t_last_rx <= 3 * conn->env.srtt;
    if (udccp_seq_between(p.ack, conn->awl, conn->awh) &&
        udccp_seq_ge(p.seq, conn->swl) &&
        (!active || udccp_seq_le(p.seq, conn->swh))) {
      set_gsr(conn, p.seq);
    } else {
      return drop_seq(conn, UDCCP_ERR_SEQ);
    }
  }

  /* Step 6: sequence validity, the table of §7.5.3. */
step6:
  if (p.h.x == 0) {
    if (!conn->short_seqnos_ok) {
      return drop_seq(conn, UDCCP_ERR_DROPPED);
    }
    /* §7.6: extend with GSR for seqnos, GSS for acknos. */
    p.seq = udccp_seq_extend24(conn->gsr, (uint32_t)p.h.seq);
    if (p.h.has_ack) {
      p.ack = udccp_seq_extend24(conn->gss, (uint32_t)p.h.ack);
    }
  }
  lswl = conn->swl;
  lawl = conn->awl;
  if (!plain && (type == UDCCP_PKT_CLOSEREQ || type == UDCCP_PKT_CLOSE ||
                 type == UDCCP_PKT_RESET)) {
    lswl = udccp_seq_add(conn->gsr, 1);
    lawl = conn->gar;
  }
  if (plain) {
    seq_ok = udccp_seq_between(p.seq, lswl, conn->swh);
  } else if (req_checked) {
    /* Step 4 checked the ackno and set GSR := seqno, which a Reset's
     * "GSR < seqno" test would otherwise refuse. */
    seq_ok = 1;
  } else if (type == UDCCP_PKT_SYNC || type == UDCCP_PKT_SYNCACK) {
    seq_ok = udccp_seq_ge(p.seq, conn->swl); /* no upper bound (§7.5.3) */
  } else if ((type == UDCCP_PKT_REQUEST || type == UDCCP_PKT_RESPONSE) &&
             conn->state == UDCCP_STATE_RESPOND &&
             udccp_seq_sub(p.seq, conn->isr) == 0) {
    seq_ok = 1; /* the Request that created us (step 3) */
  } else {
    seq_ok = udccp_seq_between(p.seq, lswl, conn->swh);
  }
  if (seq_ok && p.h.has_ack && !req_checked) {
    seq_ok = udccp_seq_between(p.ack, lawl, conn->awh);
  }
  if (!seq_ok) {
    /* §7.5.4: answer with a Sync (rate-limited); never Sync a Sync. */
    if (type == UDCCP_PKT_RESET) {
      send_sync(conn, conn->gsr, ts);
    } else if (type != UDCCP_PKT_SYNC && type != UDCCP_PKT_SYNCACK) {
      send_sync(conn, p.seq, ts);
    }
    return drop_seq(conn, UDCCP_ERR_SEQ);
  }
  if ((type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK ||
       type == UDCCP_PKT_ACK) &&
      dup_check(conn, p.seq)) {
    conn->info.pkts_dup++;
    return drop(conn, UDCCP_ERR_DROPPED);
  }
  set_gsr(conn, p.seq);
  if (p.h.has_ack && type != UDCCP_PKT_SYNC && type != UDCCP_PKT_SYNCACK) {
    uint64_t lag = (uint64_t)udccp_seq_sub(conn->gss, p.ack);
    if (lag > conn->max_ack_lag) {
      conn->max_ack_lag = lag;
    }
    conn->gar = udccp_seq_max(conn->gar, p.ack);
  } else if (type == UDCCP_PKT_SYNCACK) {
    /* It acknowledges our Sync: the peer got that far (and a sender
     * stalled on its window, conn.h, may go on). */
    conn->gar = udccp_seq_max(conn->gar, p.ack);
  }
  conn->t_last_rx = ts;

  /* Step 7: unexpected packet types. */
  if (!plain &&
      ((conn->is_server && type == UDCCP_PKT_CLOSEREQ) ||
      (conn->is_server && type == UDCCP_PKT_RESPONSE) ||
      (!conn->is_server && type == UDCCP_PKT_REQUEST) ||
      (!state_before(conn->state, UDCCP_STATE_OPEN) &&
       type == UDCCP_PKT_REQUEST && udccp_seq_ge(p.seq, conn->osr)) ||
      (!state_before(conn->state, UDCCP_STATE_OPEN) &&
       type == UDCCP_PKT_RESPONSE && udccp_seq_ge(p.seq, conn->osr)) ||
      (conn->state == UDCCP_STATE_RESPOND && type == UDCCP_PKT_DATA))) {
    conn->t_last_sync = UDCCP_TSTAMP_NEVER; /* not an attack response */
    send_sync(conn, p.seq, ts);
    return drop(conn, UDCCP_ERR_DROPPED);
  }

  /* Step 8: options, and mark the packet acknowledgeable. */
step8:
  rv = process_options(conn, &p, ts);
  if (rv != 0) {
    return rv;
  }
  if (plain) {
    goto step_partopen;
  }

  /* Step 9: Reset. */
  if (type == UDCCP_PKT_RESET) {
    int err = UDCCP_ERR_RESET;
    uint8_t code = p.h.reset_code;
    if (conn->state == UDCCP_STATE_REQUEST &&
        (code == UDCCP_RESET_BAD_SERVICE_CODE ||
         code == UDCCP_RESET_CONNECTION_REFUSED ||
         code == UDCCP_RESET_TOO_BUSY)) {
      err = UDCCP_ERR_REFUSED; /* RFC 5595 §4.2 */
    } else if ((code == UDCCP_RESET_CLOSED ||
                code == UDCCP_RESET_NO_CONNECTION) &&
               (conn->state == UDCCP_STATE_CLOSING ||
                conn->state == UDCCP_STATE_CLOSEREQ)) {
      /* The end of our own close (§8.3); No Connection when the peer's
       * Reset(Closed) was lost and it already forgot us. */
      err = UDCCP_ERR_CLOSED;
    }
    conn->error = err;
    conn->reset_code = code;
    conn->reset_from = UDCCP_RESET_FROM_PEER;
    udccp_conn_enter_timewait(conn, ts);
    return err;
  }

  /* Step 10: REQUEST -> PARTOPEN on a valid Response. */
  if (conn->state == UDCCP_STATE_REQUEST) {
    if (p.h.service_code != conn->service_code) {
      /* §5.3: the Response's Service Code MUST equal the Request's; this
       * is not the service we asked for (§8.1.2, RFC 5595 §4). */
      udccp_conn_send_reset(conn, UDCCP_RESET_BAD_SERVICE_CODE, NULL,
                            UDCCP_ERR_SERVICE);
      return UDCCP_ERR_SERVICE;
    }
    if (finish_negotiation(conn, &p, ts) != 0) {
      udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, UDCCP_ERR_RESET);
      return UDCCP_ERR_RESET;
    }
    conn->state = UDCCP_STATE_PARTOPEN;
    /* Linux's server needs them on every PARTOPEN packet (feat.h). */
    udccp_feat_keep_handshake_confirms(&conn->feat);
    /* Send Ack Vector became known only now: the Response counts too. */
    if (mark_acknowledgeable(conn, &p) != 0) {
      return UDCCP_ERR_NOMEM;
    }
    /* §8.1.4: its Init Cookies are echoed on every PARTOPEN packet. */
    if (udccp_conn_keep_cookies(conn, &p) != 0) {
      udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, UDCCP_ERR_NOMEM);
      return UDCCP_ERR_NOMEM;
    }
    /* §8.1.5: PARTOPEN timer, about 200 ms, backed off. */
    udccp_conn_timer_start(conn, UDCCP_CONN_PARTOPEN_RTO, ts);
  }

  /* Step 11: RESPOND. */
  if (conn->state == UDCCP_STATE_RESPOND) {
    if (type == UDCCP_PKT_REQUEST) {
      conn->pending |= UDCCP_PEND_RESPONSE;
    } else {
      if (finish_negotiation(conn, &p, ts) != 0) {
        /* Linux (net/dccp/minisocks.c) refuses such a child socket and
         * answers Too Busy. */
        udccp_conn_send_reset(conn, UDCCP_RESET_TOO_BUSY, NULL,
                              UDCCP_ERR_RESET);
        return UDCCP_ERR_RESET;
      }
      conn->osr = p.seq;
      conn->state = UDCCP_STATE_OPEN;
      udccp_conn_timer_stop(conn);
      conn->peer_partopen = 1;
      /* Send Ack Vector took effect with this packet, which step 8 could
       * not record yet: the client's CCID must see it arrived.  The vector
       * starts after the Request: a packet of the client's this one
       * overtook (its first Data, say) fills its hole when it comes. */
      if (conn->send_ackvec && conn->av_up &&
          udccp_seq_gt(p.seq, udccp_seq_add(conn->isr, 1))) {
        (void)udccp_ackvec_start_at(&conn->av, udccp_seq_add(conn->isr, 1));
      }
      if (mark_acknowledgeable(conn, &p) != 0) {
        return UDCCP_ERR_NOMEM;
      }
      conn->open_seq = udccp_seq_add(conn->gss, 1);
    }
  }
  /* §8.1.5: the client leaves PARTOPEN only when a packet other than the
   * Response reaches it.  Until its acks show one did, the server answers
   * each of its Acks, so that an idle server does not leave it there. */
step_partopen:
  if (conn->peer_partopen) {
    if (p.h.has_ack && udccp_seq_ge(p.ack, conn->open_seq)) {
      conn->peer_partopen = 0;
    } else if (type == UDCCP_PKT_ACK || type == UDCCP_PKT_DATAACK) {
      conn->pending |= UDCCP_PEND_ACK;
    }
  }

  if (plain) {
    goto step16;
  }

  /* Step 12: PARTOPEN. */
  if (conn->state == UDCCP_STATE_PARTOPEN) {
    if (type == UDCCP_PKT_RESPONSE) {
      conn->pending |= UDCCP_PEND_ACK;
      /* §8.1.4: our cookies are those of the Response our ackno (GSR)
       * names: a newer Response may carry others. */
      if (p.seq == conn->gsr && udccp_conn_keep_cookies(conn, &p) != 0) {
        udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL,
                              UDCCP_ERR_NOMEM);
        return UDCCP_ERR_NOMEM;
      }
    } else if (type != UDCCP_PKT_SYNC) {
      conn->osr = p.seq;
      conn->state = UDCCP_STATE_OPEN;
      (void)udccp_conn_keep_cookies(conn, NULL);
      conn->data_blocked = 0;
      conn->fallback_ack = 0;
      udccp_conn_timer_stop(conn);
    }
  }

  /* Step 13: CloseReq.  The client closes and will hold TIMEWAIT. */
  if (type == UDCCP_PKT_CLOSEREQ &&
      state_before(conn->state, UDCCP_STATE_CLOSEREQ)) {
    udccp_tstamp rto = conn->env.rto ? conn->env.rto : UDCCP_NS_PER_S;
    conn->state = UDCCP_STATE_CLOSING;
    conn->pending |= UDCCP_PEND_CLOSE;
    /* The Close acknowledges the CloseReq; an Ack built before it would
     * reach a server that may already have closed and draw a Reset (No
     * Connection) -- seen against Linux 6.1. */
    conn->pending &= ~(uint32_t)UDCCP_PEND_ACK;
    conn->ackq_n = 0;
    udccp_conn_ackq_release(conn);
    conn->closing_after_q = 0;
    conn->peer_closed = 1;
    udccp_conn_timer_start(conn,
                           rto < UDCCP_CONN_CLOSE_RTO_MIN
                               ? UDCCP_CONN_CLOSE_RTO_MIN
                               : rto,
                           ts);
  }

  /* Step 14: Close: answer Reset(Closed) and tear down. */
  if (type == UDCCP_PKT_CLOSE) {
    udccp_conn_send_reset(conn, UDCCP_RESET_CLOSED, NULL, UDCCP_ERR_CLOSED);
    conn->peer_closed = 1;
    return 0;
  }

  /* Step 15: Sync gets a SyncAck acknowledging it. */
  if (type == UDCCP_PKT_SYNC) {
    conn->info.syncs_recv++;
    conn->syncack_ackno = p.seq;
    conn->pending |= UDCCP_PEND_SYNCACK;
  }

step16:
  note_gap(conn, &p);

  /* Step 16: data.  Request and Response payloads are not delivered.
   * Before the CCID halves run, so that an acknowledgement they ask for
   * reports this packet's fate (Data Dropped, Slow Receiver).  An empty
   * DCCP-Data or DCCP-DataAck is an empty datagram, delivered as one
   * (§7.7: a data packet by its type; Linux sends and delivers them). */
  if (type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK) {
    if (cov_refused) {
      conn->info.data_pkts_recv++;
      conn->rx_lost_pending++;
      note_drop(conn, p.seq, 0); /* §9.2.1, §11.7: Protocol Constraints */
      cov_refused = 2;
    } else if (conn->state == UDCCP_STATE_OPEN ||
        conn->state == UDCCP_STATE_CLOSEREQ ||
        conn->state == UDCCP_STATE_CLOSING) {
      if (deliver(conn, &p, ts)) {
        /* §11.7.2: Drop Code 3 (corrupt) MUST make the CCID behave as if
         * the packet were ECN marked: a TFRC receiver (CCID 3/4) counts
         * it as a loss in its history (RFC 5348 §5.1); a CCID 2 sender
         * reacts to the Data Dropped report itself. */
        p.ecn = 3;
      }
    }
  }

  ccid_input(conn, &p, ts);
  if (conn->state == UDCCP_STATE_CLOSED) {
    return conn->error;
  }
  if (cov_refused == 2) {
    /* The header counted; the caller learns that the data did not. */
    return drop(conn, UDCCP_ERR_DROPPED);
  }
  return 0;
}
