/* SPDX-License-Identifier: MIT */
/*
 * Connection timers: Request back-off (RFC 4340 §8.1.1), PARTOPEN Ack
 * (§8.1.5), Close/CloseReq retransmission (§8.3), TIMEWAIT (§8.3),
 * DCCP-Listen repetition (RFC 5596 §2.2.2), delayed and ack-of-ack acks
 * (RFC 4341 §6.1.4), idle timeout, keepalive, CCID timers and the CCID's
 * send time.
 *
 * Keepalive (udccp.h, udccp_settings): DCCP has none, and a peer that
 * vanished would hold an OPEN connection for ever.  After keepalive_idle
 * without a valid packet, a Sync probes the peer (RFC 4340 §7.5.4: it
 * MUST answer with a SyncAck, which moves t_last_rx); keepalive_probes of
 * them keepalive_interval apart, then a Reset (Aborted) and
 * UDCCP_ERR_TIMEOUT.  The probes count from the t_last_rx they saw
 * (ka_base): any packet received since starts the count again.
 */
#include "conn.h"

static udccp_tstamp tmin(udccp_tstamp a, udccp_tstamp b) {
  return a < b ? a : b;
}

void udccp_conn_timer_start(udccp_conn *conn, udccp_tstamp first_rto,
                            udccp_tstamp ts) {
  conn->t_start = ts;
  conn->retx_rto = first_rto;
  conn->t_retx = ts + first_rto;
}

void udccp_conn_timer_stop(udccp_conn *conn) {
  conn->t_retx = UDCCP_TSTAMP_NEVER;
}

/* The next keepalive event: a probe, or (after the last probe) the end. */
static udccp_tstamp keepalive_time(const udccp_conn *conn) {
  const udccp_settings *s = &conn->settings;
  uint32_t n;
  udccp_tstamp t;
  if (!s->keepalive_idle || conn->state != UDCCP_STATE_OPEN) {
    return UDCCP_TSTAMP_NEVER;
  }
  n = conn->ka_base == conn->t_last_rx ? conn->ka_probes : 0;
  t = conn->t_last_rx + s->keepalive_idle;
  if (n > 0) {
    t += (udccp_tstamp)n * s->keepalive_interval;
  }
  return t < conn->t_last_rx ? UDCCP_TSTAMP_NEVER : t; /* overflow */
}

static int data_state(const udccp_conn *conn) {
  return conn->state == UDCCP_STATE_OPEN ||
         conn->state == UDCCP_STATE_PARTOPEN;
}

/* RFC 4340 §6.6.3: a Change is repeated until Confirmed, this long after
 * the last packet that carried it (at least an RTT: the RTO).  Repetitions
 * MUST use an exponential back-off: the interval doubles with each one, up
 * to 64 RTOs.  The next packet carries it, or an Ack made for it. */
static udccp_tstamp feat_retx_time(const udccp_conn *conn) {
  udccp_tstamp rto;
  if (udccp_feat_all_confirmed(&conn->feat) ||
      conn->state != UDCCP_STATE_OPEN) {
    return UDCCP_TSTAMP_NEVER; /* the usual answer, tested first */
  }
  rto = conn->env.rto ? conn->env.rto : UDCCP_NS_PER_S;
  return conn->t_feat_tx + (rto << conn->feat_backoff);
}

void udccp_conn_trim(udccp_conn *conn, udccp_tstamp ts) {
  int held = udccp_sendq_trim(&conn->sendq);
  held |= udccp_rxq_trim(&conn->rxq);
  if (conn->ackq_n == 0) {
    udccp_conn_ackq_release(conn);
  }
  held |= conn->ackq != NULL;
  /* The CCIDs' own memory (their trim op): histories sized for a burst */
  if (conn->tx_ccid_up && conn->tx_ccid->trim != NULL) {
    held |= conn->tx_ccid->trim(conn->tx_st, 1, ts) != 0;
  }
  if (conn->rx_ccid_up && conn->rx_ccid->trim != NULL) {
    held |= conn->rx_ccid->trim(conn->rx_st, 0, ts) != 0;
  }
  conn->t_trim = held ? ts + UDCCP_CONN_TRIM_AFTER : UDCCP_TSTAMP_NEVER;
}

/* udccp_conn_get_expiry for an OPEN connection, the caller's question
 * after every batch (issue 13): the same timers as the general path below,
 * in fewer tests.  The idle timeout and the first keepalive probe both
 * count from t_last_rx: one addition of the shorter of the two (rx_quiet).
 * A keepalive already probing (its later probes), a sum past UINT64_MAX
 * (the two treat overflow differently) and a stalled window go the
 * general way (UDCCP_TSTAMP_NEVER - 1). */
static udccp_tstamp open_expiry(const udccp_conn *conn) {
  udccp_tstamp lr = conn->t_last_rx, t = lr + conn->rx_quiet;
  int sending = 0;
  if (t < lr) { /* past UINT64_MAX: neither is on, or the general path */
    if (conn->rx_quiet != UDCCP_TSTAMP_NEVER) {
      return UDCCP_TSTAMP_NEVER - 1;
    }
    t = UDCCP_TSTAMP_NEVER;
  }
  if ((conn->ka_probes != 0 && conn->ka_base == lr) ||
      conn->t_stall != UDCCP_TSTAMP_NEVER) {
    return UDCCP_TSTAMP_NEVER - 1; /* the general path */
  }
  t = tmin(t, conn->t_retx);
  t = tmin(t, conn->t_trim);
  /* A queued datagram's expiry: it is dropped then, not sent late. */
  t = tmin(t, udccp_sendq_next_expiry(&conn->sendq));
  if (conn->tx_ccid_up) {
    if (conn->tx_ccid->tx_get_expiry) {
      t = tmin(t, conn->tx_ccid->tx_get_expiry(conn->tx_st));
    }
    if (udccp_sendq_len(&conn->sendq) > 0 && !conn->data_blocked &&
        !udccp_conn_window_stalled(conn)) {
      /* The CCID says when the next data packet may go (§10). */
      t = tmin(t, conn->tx_ccid->tx_next_send(conn->tx_st, conn->now));
      sending = 1;
    }
  }
  if (conn->rx_ccid_up && conn->rx_ccid->rx_get_expiry) {
    t = tmin(t, conn->rx_ccid->rx_get_expiry(conn->rx_st));
  }
  if (!sending && conn->closing_after_q) {
    return 0; /* write_pkt starts the close at once */
  }
  if (conn->pkts_since_ack > 0) {
    t = tmin(t, conn->t_ackack);
  }
  return tmin(t, feat_retx_time(conn));
}

udccp_tstamp udccp_conn_get_expiry(const udccp_conn *conn) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  if (conn == NULL) {
    return UDCCP_TSTAMP_NEVER;
  }
  if (conn->state == UDCCP_STATE_OPEN &&
      (conn->pending & ~(uint32_t)UDCCP_PEND_LISTEN) == 0 &&
      conn->ackq_n == 0) {
    t = open_expiry(conn);
    if (t != UDCCP_TSTAMP_NEVER - 1) {
      return t;
    }
    t = UDCCP_TSTAMP_NEVER;
  }
  if (conn->state == UDCCP_STATE_CLOSED) {
    /* A pending Reset is sent at once. */
    return (conn->pending & UDCCP_PEND_RESET) ? 0 : UDCCP_TSTAMP_NEVER;
  }
  if ((conn->pending & ~(uint32_t)UDCCP_PEND_LISTEN) || conn->ackq_n > 0) {
    return 0;
  }
  t = tmin(t, conn->t_retx);
  /* A queued datagram's expiry: it is dropped then, not sent late. */
  t = tmin(t, udccp_sendq_next_expiry(&conn->sendq));
  t = tmin(t, conn->t_trim);
  if (conn->state != UDCCP_STATE_OPEN) {
    /* TIMEWAIT's end and LISTEN's repetitions: set only in those states
     * (never again once OPEN), so not looked at on the busy path. */
    t = tmin(t, conn->t_timewait);
    t = tmin(t, conn->t_listen);
    if (conn->state == UDCCP_STATE_TIMEWAIT) {
      return t;
    }
  }
  if (conn->settings.idle_timeout && conn->state != UDCCP_STATE_LISTEN) {
    /* not in LISTEN, where handle_expiry does not apply it (RFC 5596: the
     * server waits for the client's Request as long as it is told to) */
    t = tmin(t, conn->t_last_rx + conn->settings.idle_timeout);
  }
  t = tmin(t, keepalive_time(conn));
  if (conn->tx_ccid_up && conn->tx_ccid->tx_get_expiry) {
    t = tmin(t, conn->tx_ccid->tx_get_expiry(conn->tx_st));
  }
  if (conn->rx_ccid_up && conn->rx_ccid->rx_get_expiry) {
    t = tmin(t, conn->rx_ccid->rx_get_expiry(conn->rx_st));
  }
  if (data_state(conn)) {
    if (conn->t_stall != UDCCP_TSTAMP_NEVER &&
        udccp_conn_window_stalled(conn) &&
        udccp_sendq_len(&conn->sendq) > 0) {
      /* The Sync probe is an OPEN-state thing (handle_expiry); in
       * PARTOPEN the Ack timer (§8.1.5) draws the acks that end the
       * stall, and an expiry here would never be served. */
      if (conn->state == UDCCP_STATE_OPEN) {
        t = tmin(t, udccp_conn_stall_probe_at(conn));
      }
    } else if (udccp_sendq_len(&conn->sendq) > 0 && conn->tx_ccid_up &&
        !conn->data_blocked && !udccp_conn_window_stalled(conn)) {
      /* The CCID says when the next data packet may go (§10). */
      udccp_tstamp ns = conn->tx_ccid->tx_next_send(conn->tx_st, conn->now);
      t = tmin(t, ns);
    } else if (conn->closing_after_q && conn->state == UDCCP_STATE_OPEN) {
      /* write_pkt starts the close at once; from PARTOPEN it waits for
       * OPEN (§8.1.5), so "now" would only spin the caller */
      return 0;
    }
    if (conn->pkts_since_ack > 0) {
      t = tmin(t, conn->t_ackack);
    }
    t = tmin(t, feat_retx_time(conn));
  }
  return t;
}

int udccp_conn_handle_expiry(udccp_conn *conn, udccp_tstamp ts) {
  if (conn == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  conn->now = ts;
  if (conn->state == UDCCP_STATE_CLOSED) {
    return conn->error;
  }
  (void)udccp_sendq_expire(&conn->sendq, ts);
  if (conn->t_trim <= ts) {
    udccp_conn_trim(conn, ts);
  }
  if (conn->t_timewait <= ts) {
    /* RFC 4340 §8.3: TIMEWAIT over; the connection is gone. */
    conn->t_timewait = UDCCP_TSTAMP_NEVER;
    udccp_conn_kill(conn, UDCCP_ERR_CLOSED, UDCCP_RESET_NONE);
    return conn->error;
  }
  if (conn->settings.idle_timeout && conn->state != UDCCP_STATE_TIMEWAIT &&
      conn->state != UDCCP_STATE_LISTEN &&
      conn->t_last_rx + conn->settings.idle_timeout <= ts) {
    udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL, UDCCP_ERR_TIMEOUT);
    return UDCCP_ERR_TIMEOUT;
  }
  if (keepalive_time(conn) <= ts) {
    if (conn->ka_base != conn->t_last_rx) {
      conn->ka_base = conn->t_last_rx; /* the peer spoke since: anew */
      conn->ka_probes = 0;
    }
    if (conn->ka_probes >= conn->settings.keepalive_probes) {
      /* keepalive_probes Syncs unanswered: the peer is gone. */
      conn->info.keepalive_timeouts++;
      udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL,
                            UDCCP_ERR_TIMEOUT);
      return UDCCP_ERR_TIMEOUT;
    }
    /* RFC 4340 §7.5.4: the peer MUST answer a Sync with a SyncAck. */
    conn->sync_ackno = conn->gsr;
    conn->pending |= UDCCP_PEND_SYNC;
    conn->ka_probes++;
    conn->info.keepalive_probes++;
  }
  if (conn->t_listen <= ts) {
    /* RFC 5596 §2.2.2: a Listen, then up to 2 repetitions 200 ms apart;
     * 200 ms after the third the server stops (LISTEN1). */
    if (conn->state == UDCCP_STATE_LISTEN &&
        conn->listen_sent < 1 + UDCCP_CONN_LISTEN_MAX_RETX) {
      conn->pending |= UDCCP_PEND_LISTEN;
      conn->t_listen = UDCCP_TSTAMP_NEVER; /* rearmed when sent */
    } else {
      conn->t_listen = UDCCP_TSTAMP_NEVER;
    }
  }
  if (conn->t_retx <= ts) {
    udccp_tstamp limit;
    uint32_t what = 0;
    switch (conn->state) {
    case UDCCP_STATE_REQUEST:
      limit = conn->settings.request_timeout;
      what = UDCCP_PEND_REQUEST;
      break;
    case UDCCP_STATE_PARTOPEN:
      limit = conn->settings.partopen_timeout;
      what = UDCCP_PEND_ACK;
      break;
    case UDCCP_STATE_RESPOND:
      /* §8.1.3: RESPOND may end after no less than 4MSL (8 minutes), the
       * PARTOPEN limit (§8.1.5). */
      limit = conn->settings.partopen_timeout;
      what = UDCCP_PEND_RESPONSE; /* never resent: the limit is reached */
      break;
    case UDCCP_STATE_CLOSEREQ:
      limit = conn->settings.close_timeout;
      what = UDCCP_PEND_CLOSEREQ;
      break;
    case UDCCP_STATE_CLOSING:
      limit = conn->settings.close_timeout;
      what = UDCCP_PEND_CLOSE;
      break;
    default:
      limit = 0;
      break;
    }
    if (what == 0) {
      conn->t_retx = UDCCP_TSTAMP_NEVER;
    } else if (ts - conn->t_start >= limit) {
      if (conn->state == UDCCP_STATE_REQUEST) {
        /* §8.1.1: giving up, the client SHOULD send Reset(Aborted) in
         * case a Request arrived; it holds no ISR: ackno 0. */
        udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL,
                              UDCCP_ERR_TIMEOUT);
      } else if (conn->state == UDCCP_STATE_RESPOND) {
        /* §8.1.3: Reset(Aborted) cleans up state at the client. */
        udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL,
                              UDCCP_ERR_TIMEOUT);
      } else {
        /* §8.1.5: PARTOPEN beyond its limit resets with Aborted; so does
         * an unanswered Close/CloseReq. */
        udccp_conn_send_reset(conn, UDCCP_RESET_ABORTED, NULL,
                              UDCCP_ERR_TIMEOUT);
      }
      return UDCCP_ERR_TIMEOUT;
    } else {
      /* Exponential back-off, never past the give-up time. */
      conn->pending |= what;
      conn->retx_rto *= 2;
      conn->t_retx = ts + conn->retx_rto;
      if (conn->t_retx > conn->t_start + limit) {
        conn->t_retx = conn->t_start + limit;
      }
      if (what != UDCCP_PEND_ACK) {
        conn->info.retransmits++;
      }
    }
  }
  if (conn->tx_ccid_up && conn->tx_ccid->tx_get_expiry &&
      conn->tx_ccid->tx_get_expiry(conn->tx_st) <= ts) {
    conn->tx_ccid->tx_on_expiry(conn->tx_st, ts);
  }
  if (conn->rx_ccid_up && conn->rx_ccid->rx_get_expiry &&
      conn->rx_ccid->rx_get_expiry(conn->rx_st) <= ts) {
    if (conn->rx_ccid->rx_on_expiry(conn->rx_st, ts) > 0) {
      conn->pending |= UDCCP_PEND_ACK;
    }
  }
  if (data_state(conn)) {
    if (udccp_feat_all_confirmed(&conn->feat)) {
      conn->feat_backoff = 0;
    } else if (feat_retx_time(conn) <= ts) {
      conn->feat.repeat = 1;
      conn->t_feat_tx = ts; /* counts from now, even if the Ack waits */
      conn->pending |= UDCCP_PEND_ACK;
      if (conn->feat_backoff < 6) {
        conn->feat_backoff++;
      }
    }
    if (conn->state == UDCCP_STATE_OPEN &&
        conn->t_stall != UDCCP_TSTAMP_NEVER &&
        udccp_conn_window_stalled(conn) &&
        udccp_sendq_len(&conn->sendq) > 0 &&
        udccp_conn_stall_probe_at(conn) <= ts) {
      /* §7.5.4: probe with a Sync; the SyncAck moves GAR. */
      conn->sync_ackno = conn->gsr;
      conn->pending |= UDCCP_PEND_SYNC;
      conn->t_stall = ts;
    }
    if (conn->pkts_since_ack > 0 && conn->t_ackack <= ts) {
      /* RFC 4341 §6.1.4: acknowledge the peer's acks at least once per
       * RTT so that its Ack Vector buffer can shrink. */
      conn->pending |= UDCCP_PEND_ACK;
    }
  }
  return 0;
}
