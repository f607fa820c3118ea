/* SPDX-License-Identifier: MIT */
/*
 * MP-DCCP connection over subflows (RFC 9897):
 *   §3.2.5  MP_SEQ numbers every datagram end to end (MUST on DCCP-Data
 *           and DCCP-DataAck: the subflow writes it, mp.c), IDSN random
 *   §3.8    each path keeps its own congestion control (its CCID): a
 *           datagram is placed on a subflow only when that subflow's own
 *           queue is empty and its CCID lets it leave now, so no path gets
 *           more than its CCID lets out and none holds a numbered
 *           datagram while later ones leave on other paths (§3.2.5)
 *   §3.11   scheduling (mp_sched.c) and optional reordering (mp_reorder.c)
 *   §3.11.1 path mobility: a path that stops answering is taken out of
 *           scheduling (dead) until it is heard again, probed with Syncs
 *           (RFC 4340 §7.5.4) meanwhile; its waiting datagram moves on
 *   §3.2.10 MP_PRIO from the peer bounds a path's priority; ours is sent
 *   §3.2.11 MP_CLOSE on every subflow's Close/CloseReq; the peer's valid
 *           MP_CLOSE closes every subflow
 *   §3.2.3  MP_FAST_CLOSE: Reset code 13 on every subflow, torn down;
 *           on receipt every live subflow answers with Reset 13
 *   §3.10   joins beyond UDCCP_MP_MAX_SUBFLOWS: Reset "Too Busy"
 */
#include "mp_conn.h"

#include <string.h>

#include "mp.h"
#include "seq.h"

int udccp_mp_conn_init(udccp_mp_conn *mc, const udccp_mem *mem,
                       uint32_t qlen, size_t max_dgram, uint64_t idsn,
                       int reorder, udccp_tstamp bound) {
  int rv;
  memset(mc, 0, sizeof(*mc));
  if (!mem || qlen == 0 || max_dgram == 0 || max_dgram > 65535) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mc->mem = mem;
  mc->max_dgram = max_dgram;
  mc->tx_seq = idsn & UDCCP_SEQ_MASK;
  mc->reorder = reorder != 0;
  udccp_mp_sig_init(&mc->sig, 0);
  mc->sig.seq_now = mc->tx_seq;
  for (rv = 0; rv < UDCCP_MP_MAX_SUBFLOWS; rv++) {
    mc->live[rv].quiet_since = UDCCP_TSTAMP_NEVER;
    mc->live[rv].next_probe = UDCCP_TSTAMP_NEVER;
  }
  rv = 0;
  rv = udccp_sendq_init(&mc->q, mem, UDCCP_QPOLICY_SIMPLE, qlen, max_dgram);
  if (rv == 0) {
    rv = udccp_rxq_init(&mc->rxq, mem, qlen, (size_t)qlen * max_dgram);
  }
  if (rv == 0 && mc->reorder) {
    rv = udccp_mp_reorder_init(&mc->ro, mem, 4 * (size_t)qlen, max_dgram,
                               bound);
  }
  if (rv == 0) {
    mc->tmp = mem->malloc(3 * max_dgram, mem->user_data);
    rv = mc->tmp ? 0 : UDCCP_ERR_NOMEM;
  }
  if (rv != 0) {
    udccp_mp_conn_free(mc);
  }
  return rv;
}

void udccp_mp_conn_free(udccp_mp_conn *mc) {
  udccp_sendq_free(&mc->q);
  udccp_rxq_free(&mc->rxq);
  if (mc->reorder) {
    udccp_mp_reorder_free(&mc->ro);
  }
  if (mc->tmp && mc->mem) {
    mc->mem->free(mc->tmp, mc->mem->user_data);
  }
  mc->tmp = NULL;
}

int udccp_mp_conn_set_reorder_window(udccp_mp_conn *mc, size_t window) {
  if (!mc->reorder || window == 0 || window > 65536) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (mc->ro.n > 0) {
    return UDCCP_ERR_INVALID_STATE;
  }
  /* empty: the slot table is laid out again by the next push */
  udccp_mp_reorder_free(&mc->ro);
  mc->ro.peak_off = mc->ro.peak_n = 0;
  mc->ro.trim_at = UDCCP_TSTAMP_NEVER;
  mc->ro.cap_max = window;
  return 0;
}

int udccp_mp_conn_add(udccp_mp_conn *mc, udccp_conn *sub, uint8_t prio) {
  if (mc->n_sub == UDCCP_MP_MAX_SUBFLOWS || sub == NULL || sub->mp == NULL ||
      prio > 15) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mc->sub[mc->n_sub] = sub;
  mc->prio[mc->n_sub] = prio;
  sub->mp->sig = &mc->sig;
  sub->mp->sig_idx = (uint8_t)mc->n_sub;
  mc->live[mc->n_sub].last_rx = sub->t_last_rx;
  mc->live[mc->n_sub].data_at_rx = sub->info.data_pkts_sent;
  return (int)mc->n_sub++;
}

int udccp_mp_conn_queue(udccp_mp_conn *mc, const void *data, size_t len) {
  return udccp_sendq_push(&mc->q, data, len, 0);
}

/* When subflow c's CCID lets its next data packet leave (RFC 4340 §10:
 * the CCID decides), at or after ts; UDCCP_TSTAMP_NEVER while it waits
 * for the peer (a full window, RFC 4341 §5) or cannot send data at all.
 * A path with a datagram of its own waiting takes no other. */
static udccp_tstamp path_next_send(udccp_conn *c, udccp_tstamp ts) {
  if (udccp_sendq_len(&c->sendq) > 0 || !c->tx_ccid_up || c->data_blocked ||
      udccp_conn_window_stalled(c)) {
    return UDCCP_TSTAMP_NEVER;
  }
  return c->tx_ccid->tx_next_send(c->tx_st, ts);
}

/* What the schedulers see of each subflow (lib/mp_sched.c).  A path can
 * take a datagram only when its CCID lets it leave now (§3.8: each path
 * keeps its own congestion control).  One placed on a path whose window
 * is full would wait there with its MP_SEQ given (§3.2.5) while later
 * numbers leave on the other paths: the receiver sees a gap as long as
 * that path's wait for an ack or a timeout, far more than the paths'
 * delay difference its reordering waits for (§3.2.7), and gives the
 * number up -- the datagram is lost although it is sent. */
static void path_views(udccp_mp_conn *mc, udccp_mp_path_view *v,
                       udccp_tstamp ts) {
  size_t i;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    v[i].srtt = c->env.srtt;
    v[i].up = c->state == UDCCP_STATE_OPEN &&
              udccp_mp_active(c->mp, &c->feat) && !mc->live[i].dead;
    v[i].can_send = v[i].up && path_next_send(c, ts) <= ts;
    v[i].prio = udccp_mp_conn_prio(mc, i);
  }
}

static int pick(udccp_mp_conn *mc, udccp_tstamp ts) {
  udccp_mp_path_view v[UDCCP_MP_MAX_SUBFLOWS];
  path_views(mc, v, ts);
  switch (mc->sched) {
  case UDCCP_MP_SCHED_BACKUP:
    return udccp_mp_sched_backup(v, mc->n_sub);
  case UDCCP_MP_SCHED_RR:
    return udccp_mp_sched_rr(v, mc->n_sub, &mc->rr_last);
  default:
    return udccp_mp_sched_minrtt(v, mc->n_sub);
  }
}

/* The redundant scheduler's paths for the next datagram (lib/mp_sched.c). */
static size_t redundant_set(udccp_mp_conn *mc, size_t *out,
                            udccp_tstamp ts) {
  udccp_mp_path_view v[UDCCP_MP_MAX_SUBFLOWS];
  path_views(mc, v, ts);
  return udccp_mp_sched_redundant(v, mc->n_sub, out);
}

/* How long subflow c may send without hearing back before it is dead. */
static udccp_tstamp dead_after(const udccp_conn *c) {
  udccp_tstamp rtt = c->env.srtt ? c->env.srtt : UDCCP_NS_PER_S;
  return UDCCP_MP_DEAD_RTTS * rtt + UDCCP_MP_DEAD_SLACK;
}

/* Path i came back: its CCID may sit in a timeout back-off (RFC 4341 §5,
 * RFC 6298 §5.5: up to 64 s for CCID 2, a no-feedback timer for CCID 3)
 * that would keep it from sending for as long; run that timeout now, so
 * that the next datagram probes the path and restarts its window. */
static void revive(udccp_mp_conn *mc, size_t i, udccp_tstamp ts) {
  udccp_conn *c = mc->sub[i];
  mc->live[i].dead = 0;
  mc->live[i].next_probe = UDCCP_TSTAMP_NEVER;
  mc->st[i].revivals++;
  if (c->tx_ccid_up && c->tx_ccid->tx_get_expiry && c->tx_ccid->tx_on_expiry) {
    udccp_tstamp e = c->tx_ccid->tx_get_expiry(c->tx_st);
    if (e != UDCCP_TSTAMP_NEVER && e > ts) {
      c->tx_ccid->tx_on_expiry(c->tx_st, e);
    }
  }
}

/* Path i is dead: out of scheduling; the datagram waiting in its queue
 * (at most one: datagrams are placed only on empty queues) moves to
 * another path with the MP_SEQ it was given (§3.2.5). */
static void bury(udccp_mp_conn *mc, size_t i, udccp_tstamp ts) {
  udccp_conn *c = mc->sub[i];
  const uint8_t *data;
  size_t len;
  mc->live[i].dead = 1;
  mc->live[i].next_probe = ts;
  mc->st[i].deaths++;
  if (!mc->have_moved && udccp_sendq_len(&c->sendq) == 1 &&
      udccp_sendq_peek(&c->sendq, &data, &len, NULL) == 0 &&
      len <= mc->max_dgram) {
    memcpy(mc->tmp + 2 * mc->max_dgram, data, len);
    mc->moved_len = len;
    mc->moved_seq = c->mp->tx_seq;
    mc->have_moved = 1;
    (void)udccp_sendq_pop(&c->sendq);
    mc->st[i].moved++;
    mc->st[i].tx_dgrams--;
    mc->st[i].tx_bytes -= len;
  }
}

static void watch(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t i;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    udccp_mp_sub_live *l = &mc->live[i];
    if (c->state != UDCCP_STATE_OPEN) {
      continue;
    }
    if (c->t_last_rx != l->last_rx) { /* heard from it */
      l->last_rx = c->t_last_rx;
      l->data_at_rx = c->info.data_pkts_sent;
      l->quiet_since = UDCCP_TSTAMP_NEVER;
      if (l->dead) {
        revive(mc, i, ts);
      }
    }
    if (l->quiet_since == UDCCP_TSTAMP_NEVER &&
        c->info.data_pkts_sent != l->data_at_rx) {
      l->quiet_since = c->t_last_tx; /* about the first one unanswered */
    }
    if (!l->dead && l->quiet_since != UDCCP_TSTAMP_NEVER &&
        ts >= l->quiet_since + dead_after(c)) {
      bury(mc, i, ts);
    }
    if (l->dead && ts >= l->next_probe) {
      /* RFC 4340 §7.5.4: a Sync MUST be answered with a SyncAck. */
      c->sync_ackno = c->gsr;
      c->pending |= UDCCP_PEND_SYNC;
      l->next_probe = ts + UDCCP_MP_PROBE_INTERVAL;
      mc->st[i].probes++;
    }
  }
}

udccp_tstamp udccp_mp_conn_path_rtt(const udccp_mp_conn *mc, size_t i) {
  if (i >= mc->n_sub) {
    return 0;
  }
  if (i < UDCCP_MP_SIG_SUBS && mc->sig.rtt_rx_set[i] &&
      mc->sig.rtt_rx_ms[i] > 0) {
    return (udccp_tstamp)mc->sig.rtt_rx_ms[i] * UDCCP_NS_PER_MS;
  }
  return mc->sub[i]->env.srtt;
}

int udccp_mp_conn_dead(const udccp_mp_conn *mc, size_t i) {
  return i < mc->n_sub && mc->live[i].dead;
}

uint8_t udccp_mp_conn_prio(const udccp_mp_conn *mc, size_t i) {
  int peer = udccp_mp_sig_peer_prio(&mc->sig, i);
  if (i >= mc->n_sub) {
    return 0;
  }
  return peer >= 0 && peer < mc->prio[i] ? (uint8_t)peer : mc->prio[i];
}

int udccp_mp_conn_set_prio(udccp_mp_conn *mc, size_t i, uint8_t prio) {
  int rv;
  if (i >= mc->n_sub || prio > 15) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  rv = udccp_mp_sig_prio(&mc->sig, i, prio);
  if (rv == 0) {
    mc->prio[i] = prio;
  }
  return rv;
}

/* The keys and a generator: from the first keyed subflow. */
static udccp_mp_state *keyed(const udccp_mp_conn *mc) {
  size_t i;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    if (udccp_mp_active(c->mp, &c->feat)) {
      return c->mp;
    }
  }
  return NULL;
}

static uint32_t nonce(const udccp_mp_state *mp) {
  uint8_t b[4];
  mp->rand(b, sizeof(b), mp->rand_ud);
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
}

int udccp_mp_conn_announce(udccp_mp_conn *mc, uint8_t family,
                           const uint8_t *addr, uint16_t port) {
  udccp_mp_state *mp = keyed(mc);
  int id, rv;
  if (mp == NULL) {
    return UDCCP_ERR_INVALID_STATE;
  }
  id = udccp_mp_sig_local_id(&mc->sig, family, addr, port, port != 0);
  if (id < 0) {
    return id;
  }
  rv = udccp_mp_sig_announce(&mc->sig, &mp->keys, (uint8_t)id, nonce(mp));
  return rv < 0 ? rv : id;
}

int udccp_mp_conn_unannounce(udccp_mp_conn *mc, uint8_t id) {
  udccp_mp_state *mp = keyed(mc);
  if (mp == NULL) {
    return UDCCP_ERR_INVALID_STATE;
  }
  return udccp_mp_sig_remove(&mc->sig, &mp->keys, id, nonce(mp));
}

/* Closing: once the connection-level queue drained onto the subflows,
 * each subflow closes after its own queue. */
static void close_subs(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t i;
  if (mc->close_state != UDCCP_MP_CONN_CLOSING || mc->subs_closed ||
      udccp_sendq_len(&mc->q) > 0 || mc->have_moved) {
    return;
  }
  mc->subs_closed = 1;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    c->mp->close_tx = 1; /* §3.2.11: "using MP_CLOSE in the initial packet" */
    (void)udccp_conn_close(c, ts);
  }
}

int udccp_mp_conn_close(udccp_mp_conn *mc, udccp_tstamp ts) {
  if (mc->close_state == UDCCP_MP_CONN_OPEN) {
    mc->close_state = UDCCP_MP_CONN_CLOSING;
  }
  close_subs(mc, ts);
  return 0;
}

int udccp_mp_conn_fast_close(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t i;
  mc->close_state = UDCCP_MP_CONN_ABORTED;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    /* §3.2.3: "MUST be sent from Host A on all subflows using a
     * DCCP-Reset packet with Reset Code 13" and "MUST tear down all
     * subflows": the Reset is the subflow's last packet. */
    c->mp->fast_close_tx = 1;
    (void)udccp_conn_abort(c, UDCCP_RESET_MP_ABRUPT, ts);
  }
  udccp_sendq_clear(&mc->q);
  return 0;
}

int udccp_mp_conn_join_verdict(const udccp_mp_conn *mc) {
  if (mc->close_state != UDCCP_MP_CONN_OPEN) {
    return UDCCP_MP_RESOLVE_CLOSING;
  }
  if (mc->n_sub >= UDCCP_MP_MAX_SUBFLOWS) {
    return UDCCP_MP_RESOLVE_BUSY;
  }
  return 1;
}

/* The peer's MP_CLOSE or MP_FAST_CLOSE on one subflow acts on all. */
static void peer_close(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t i;
  int fast = 0, close = 0;
  for (i = 0; i < mc->n_sub; i++) {
    fast |= mc->sub[i]->mp->fast_close_rx;
    close |= mc->sub[i]->mp->close_rx;
  }
  if (fast && mc->close_state != UDCCP_MP_CONN_ABORTED) {
    mc->close_state = UDCCP_MP_CONN_ABORTED;
    for (i = 0; i < mc->n_sub; i++) {
      /* §3.2.3: "Host B will send a DCCP-Reset packet response on all
       * subflows to Host A with Reset Code 13 ... MUST then tear down all
       * subflows" (the one the Reset came on is dead already). */
      udccp_conn *c = mc->sub[i];
      if (c->state != UDCCP_STATE_CLOSED &&
          c->state != UDCCP_STATE_TIMEWAIT) {
        (void)udccp_conn_abort(c, UDCCP_RESET_MP_ABRUPT, ts);
      }
    }
    udccp_sendq_clear(&mc->q);
  } else if (close && mc->close_state == UDCCP_MP_CONN_OPEN) {
    /* §3.2.11: a CloseReq with MP_CLOSE: "all subflows transition to
     * the CLOSING state before transmitting a DCCP-Close carrying
     * MP_CLOSE"; a Close: every subflow closes (the others get their
     * own Close + MP_CLOSE and answer it with Reset code 1). */
    mc->close_state = UDCCP_MP_CONN_CLOSED;
    for (i = 0; i < mc->n_sub; i++) {
      udccp_conn *c = mc->sub[i];
      c->mp->close_tx = 1;
      if (c->state == UDCCP_STATE_OPEN || c->state == UDCCP_STATE_PARTOPEN) {
        c->closing_after_q = 1;
        udccp_sendq_clear(&c->sendq);
      }
    }
    udccp_sendq_clear(&mc->q);
  }
}

/* Signals and MP_CONFIRMs ride on an Ack: MP_PRIO on its own path, the
 * others on the first live path. */
static void sig_kick(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t i;
  int shared_done = 0;
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    if (ts < mc->live[i].next_rtt || c->state != UDCCP_STATE_OPEN ||
        c->env.srtt == 0 || !udccp_mp_active(c->mp, &c->feat)) {
      continue;
    }
    /* §3.2.7: MP_RTT, in milliseconds (rounded up: never 0 on a
     * measured path). */
    c->mp->rtt_ms = (uint32_t)((c->env.srtt + UDCCP_NS_PER_MS - 1) /
                               UDCCP_NS_PER_MS);
    c->mp->rtt_owed = 1;
    udccp_conn_ack_now(c, ts); /* a sender's data packets have no room */
    mc->live[i].next_rtt = ts + UDCCP_MP_RTT_INTERVAL;
  }
  if (mc->sig.n_ack == 0 && udccp_mp_sig_expiry(&mc->sig) > ts) {
    return;
  }
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    if (c->state != UDCCP_STATE_OPEN || mc->live[i].dead ||
        !udccp_mp_active(c->mp, &c->feat)) {
      continue;
    }
    if (udccp_mp_sig_due_prio(&mc->sig, i, ts) ||
        (!shared_done && udccp_mp_sig_due_shared(&mc->sig, ts))) {
      /* An Ack of its own: a busy sender's DataAcks would satisfy a
       * pending Ack without room for the signals. */
      udccp_conn_ack_now(c, ts);
    }
    shared_done = 1;
  }
}

size_t udccp_mp_conn_schedule(udccp_mp_conn *mc, udccp_tstamp ts) {
  size_t placed = 0;
  peer_close(mc, ts);
  if (mc->close_state == UDCCP_MP_CONN_ABORTED) {
    return 0;
  }
  mc->sched_ts = ts;
  watch(mc, ts);
  sig_kick(mc, ts);
  if (mc->have_moved) {
    int i = pick(mc, ts);
    if (i >= 0 && udccp_conn_queue_datagram(mc->sub[i],
                                            mc->tmp + 2 * mc->max_dgram,
                                            mc->moved_len, 0, ts) == 0) {
      udccp_mp_set_tx_seq(mc->sub[i]->mp, mc->moved_seq);
      mc->st[i].tx_dgrams++;
      mc->st[i].tx_bytes += mc->moved_len;
      mc->have_moved = 0;
      placed++;
    } else {
      return placed; /* it goes first: MP_SEQ order on the wire */
    }
  }
  while (udccp_sendq_len(&mc->q) > 0) {
    const uint8_t *data;
    size_t len, k, n, on = 0, to[UDCCP_MP_MAX_SUBFLOWS];
    uint32_t prio;
    if (mc->sched == UDCCP_MP_SCHED_REDUNDANT) {
      n = redundant_set(mc, to, ts);
    } else {
      int i = pick(mc, ts);
      n = i >= 0;
      to[0] = (size_t)(i >= 0 ? i : 0);
    }
    if (n == 0) {
      break;
    }
    (void)udccp_sendq_peek(&mc->q, &data, &len, &prio);
    for (k = 0; k < n; k++) {
      size_t i = to[k];
      if (udccp_conn_queue_datagram(mc->sub[i], data, len, 0, ts) != 0) {
        continue; /* the subflow refuses (MPS, state) */
      }
      /* §3.2.5: the datagram's MP_SEQ rides on its Data/DataAck (the
       * same number on every copy of a redundant one). */
      udccp_mp_set_tx_seq(mc->sub[i]->mp, mc->tx_seq);
      mc->st[i].tx_dgrams++;
      mc->st[i].tx_bytes += len;
      on++;
    }
    if (on == 0) {
      break; /* try again later */
    }
    mc->sig.seq_now = mc->tx_seq; /* signals date from the last datagram */
    mc->tx_seq = udccp_seq_add(mc->tx_seq, 1);
    (void)udccp_sendq_pop(&mc->q);
    placed++;
  }
  close_subs(mc, ts);
  return placed;
}

/* Without reordering, the MP_SEQ numbers of the last UDCCP_MP_SEEN_BITS
 * datagrams delivered: a copy of one of them (the redundant scheduler
 * sends each datagram on several paths) is dropped.  Returns 1 if seq was
 * seen, else records it and returns 0; a number older than the window
 * cannot be told from a late original and is delivered. */
static int seen(udccp_mp_conn *mc, uint64_t seq) {
  int64_t d;
  uint64_t off;
  if (!mc->seen_valid) {
    mc->seen_valid = 1;
    mc->seen_top = seq;
    memset(mc->seen, 0, sizeof(mc->seen));
    mc->seen[0] |= 1;
    return 0;
  }
  d = udccp_seq_sub(seq, mc->seen_top);
  if (d > 0) {
    /* slide the window: bit k is the number seen_top - k, so every bit
     * moves up by d */
    const size_t nw = UDCCP_MP_SEEN_BITS / 64;
    size_t w;
    if ((uint64_t)d >= UDCCP_MP_SEEN_BITS) {
      memset(mc->seen, 0, sizeof(mc->seen));
    } else {
      size_t ws = (size_t)d / 64;
      unsigned bs = (unsigned)((uint64_t)d % 64);
      for (w = nw; w-- > 0;) {
        uint64_t v = 0;
        if (w >= ws) {
          v = mc->seen[w - ws] << bs;
          if (bs != 0 && w - ws >= 1) {
            v |= mc->seen[w - ws - 1] >> (64 - bs);
          }
        }
        mc->seen[w] = v;
      }
    }
    mc->seen_top = seq;
    mc->seen[0] |= 1;
    return 0;
  }
  off = (uint64_t)(-d);
  if (off >= UDCCP_MP_SEEN_BITS) {
    return 0;
  }
  if ((mc->seen[off / 64] >> (off % 64)) & 1) {
    return 1;
  }
  mc->seen[off / 64] |= (uint64_t)1 << (off % 64);
  return 0;
}

udccp_tstamp udccp_mp_conn_rx_bound(const udccp_mp_conn *mc,
                                    udccp_tstamp lo, udccp_tstamp hi) {
  udccp_tstamp var = 0;
  for (size_t i = 0; i < mc->n_sub; i++) {
    const udccp_conn *c = mc->sub[i];
    udccp_tstamp r = udccp_mp_conn_path_rtt(mc, i), v;
    if (c->state != UDCCP_STATE_OPEN || r == 0) {
      continue;
    }
    /* our own estimate of the path's variation; none (CCID 3 keeps
     * none): RFC 6298 §2.2's for a first measurement R, R/2 */
    v = c->env.rttvar != 0 ? c->env.rttvar : r / 2;
    var = v > var ? v : var;
  }
  return udccp_mp_reorder_bound_var(lo, hi, var);
}

void udccp_mp_conn_on_read(udccp_mp_conn *mc, size_t i, udccp_tstamp ts) {
  udccp_conn *c;
  if (i >= mc->n_sub) {
    return;
  }
  c = mc->sub[i];
  peer_close(mc, ts);
  for (;;) {
    udccp_recv_info ri;
    uint64_t mseq;
    udccp_ssize n;
    memset(&ri, 0, sizeof(ri));
    ri.size = sizeof(ri);
    n = udccp_conn_read_datagram_ex(c, mc->tmp, mc->max_dgram, &ri);
    if (n < 0) {
      break;
    }
    mc->st[i].rx_dgrams++;
    mc->st[i].rx_bytes += (uint64_t)n;
    if (!mc->reorder && udccp_mp_rx_seq(c->mp, ri.seq, &mseq) &&
        seen(mc, mseq)) {
      mc->rx_dup++; /* a copy (redundant scheduler): dropped by MP_SEQ */
      continue;
    }
    if (mc->reorder && udccp_mp_rx_seq(c->mp, ri.seq, &mseq)) {
      int rv = udccp_mp_reorder_push(&mc->ro, mseq, mc->tmp, (size_t)n, ts);
      if (rv == UDCCP_ERR_AGAIN) {
        /* Window full: the oldest held one goes to the ready queue now
         * (released late), then there is room. */
        uint64_t s;
        uint8_t *spare = mc->tmp + mc->max_dgram;
        udccp_ssize m =
            udccp_mp_reorder_pop(&mc->ro, spare, mc->max_dgram, &s, ts);
        if (m >= 0) {
          (void)udccp_rxq_push_meta(&mc->rxq, spare, (size_t)m, s, 0);
        }
        (void)udccp_mp_reorder_push(&mc->ro, mseq, mc->tmp, (size_t)n, ts);
      }
    } else {
      (void)udccp_rxq_push_meta(&mc->rxq, mc->tmp, (size_t)n, UINT64_MAX, 0);
    }
  }
}

udccp_ssize udccp_mp_conn_read(udccp_mp_conn *mc, void *buf, size_t cap,
                               uint64_t *seq, udccp_tstamp ts) {
  const udccp_rxq_ent *e = udccp_rxq_head(&mc->rxq);
  if (e != NULL) {
    *seq = e->seq;
    return udccp_rxq_pop(&mc->rxq, buf, cap);
  }
  if (mc->reorder) {
    return udccp_mp_reorder_pop(&mc->ro, buf, cap, seq, ts); /* trims */
  }
  return UDCCP_ERR_AGAIN;
}

static int can_signal(const udccp_mp_conn *mc, size_t i) {
  const udccp_conn *c = mc->sub[i];
  return c->state == UDCCP_STATE_OPEN && !mc->live[i].dead &&
         udccp_mp_active(c->mp, &c->feat);
}

/* The next signal repeat that a subflow can carry now (a signal waiting
 * for its subflow to open is no deadline). */
static udccp_tstamp sig_expiry(const udccp_mp_conn *mc) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  size_t i, k;
  int any = 0;
  for (i = 0; i < mc->n_sub; i++) {
    any |= can_signal(mc, i);
  }
  if (!any) {
    return t;
  }
  if (mc->sig.n_ack > 0) {
    return 0;
  }
  for (k = 0; k < UDCCP_MP_SIG_OUT; k++) {
    const udccp_mp_sig_out *e = &mc->sig.out[k];
    if (e->used && e->next_tx < t &&
        (e->type != UDCCP_MP_PRIO ||
         (e->sub < mc->n_sub && can_signal(mc, e->sub)))) {
      t = e->next_tx;
    }
  }
  return t;
}

/* When a datagram waiting for a path may be placed: the earliest time a
 * path that could not take one at the last schedule lets its next packet
 * leave (CCID 2's pacing, CCID 3's send time).  A path whose window is
 * full reopens on an ack, which brings a schedule of its own; a path that
 * could send then and was not picked is no reason to wake. */
static udccp_tstamp place_expiry(const udccp_mp_conn *mc) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  size_t i;
  if ((udccp_sendq_len(&mc->q) == 0 && !mc->have_moved) ||
      mc->close_state == UDCCP_MP_CONN_ABORTED) {
    return t;
  }
  for (i = 0; i < mc->n_sub; i++) {
    udccp_conn *c = mc->sub[i];
    udccp_tstamp e;
    if (c->state != UDCCP_STATE_OPEN || mc->live[i].dead ||
        !udccp_mp_active(c->mp, &c->feat)) {
      continue;
    }
    e = path_next_send(c, mc->sched_ts);
    if (e > mc->sched_ts && e < t) {
      t = e;
    }
  }
  return t;
}

udccp_tstamp udccp_mp_conn_expiry(const udccp_mp_conn *mc) {
  udccp_tstamp place_at = place_expiry(mc);
  udccp_tstamp t =
      mc->reorder ? udccp_mp_reorder_expiry(&mc->ro) : UDCCP_TSTAMP_NEVER;
  udccp_tstamp sig = sig_expiry(mc);
  udccp_tstamp trim =
      mc->reorder ? udccp_mp_reorder_trim_at(&mc->ro) : UDCCP_TSTAMP_NEVER;
  size_t i;
  t = sig < t ? sig : t;
  t = trim < t ? trim : t;
  t = place_at < t ? place_at : t;
  for (i = 0; i < mc->n_sub; i++) {
    const udccp_mp_sub_live *l = &mc->live[i];
    udccp_tstamp e = UDCCP_TSTAMP_NEVER;
    if (mc->sub[i]->state != UDCCP_STATE_OPEN) {
      continue;
    }
    if (l->dead) {
      e = l->next_probe;
    } else if (l->quiet_since != UDCCP_TSTAMP_NEVER) {
      e = l->quiet_since + dead_after(mc->sub[i]);
    }
    t = e < t ? e : t;
  }
  return t;
}
