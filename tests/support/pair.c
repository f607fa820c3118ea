/* SPDX-License-Identifier: MIT */
/*
 * Two endpoints joined in memory with virtual time (see pair.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pair.h"

static uint64_t xs64(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ULL;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static void pair_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *st = ud;
  size_t i;
  for (i = 0; i < len; ++i) {
    dest[i] = (uint8_t)(xs64(st) >> 56);
  }
}

void udccp_pair_settings(udccp_pair *p, udccp_settings *s) {
  udccp_settings_default(s);
  s->rand = pair_rand;
  s->rand_user_data = &p->rand_state;
}

static void set_paths(udccp_pair *p) {
  udccp_path *c = &p->path[0], *s = &p->path[1];
  memset(c, 0, sizeof(*c));
  c->family = UDCCP_AF_INET;
  c->local_addr[0] = 10;
  c->local_addr[3] = 1;
  c->remote_addr[0] = 10;
  c->remote_addr[3] = 2;
  c->local_port = 40001;
  c->remote_port = 5001;
  *s = *c;
  memcpy(s->local_addr, c->remote_addr, 16);
  memcpy(s->remote_addr, c->local_addr, 16);
  s->local_port = c->remote_port;
  s->remote_port = c->local_port;
}

int udccp_pair_init_sc(udccp_pair *p, const udccp_settings *cs,
                       const udccp_settings *ss,
                       const udccp_listener_settings *ls, uint64_t seed,
                       uint32_t service_code) {
  static const uint32_t default_code = 42;
  udccp_listener_settings dls;
  int rv, i;
  memset(p, 0, sizeof(*p));
  p->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
  p->rand_state = seed + 12345;
  set_paths(p);
  for (i = 0; i < 2; ++i) {
    const udccp_settings *given = i == 0 ? cs : ss;
    if (given != NULL) {
      p->s[i] = *given;
    } else {
      udccp_pair_settings(p, &p->s[i]);
    }
    if (p->s[i].rand == NULL) {
      p->s[i].rand = pair_rand;
      p->s[i].rand_user_data = &p->rand_state;
    }
    p->delay[i] = 10 * UDCCP_NS_PER_MS;
    p->q[i].pkts = calloc(UDCCP_PAIR_QLEN, sizeof(udccp_pair_pkt));
    if (p->q[i].pkts == NULL) {
      return UDCCP_ERR_NOMEM;
    }
  }
  if (ls == NULL) {
    memset(&dls, 0, sizeof(dls));
    dls.service_codes = &default_code;
    dls.n_service_codes = 1;
    ls = &dls;
  }
  rv = udccp_listener_new(&p->lis, &p->s[1], ls, 0);
  if (rv != 0) {
    return rv;
  }
  return udccp_conn_client_new(&p->c[0], &p->s[0], &p->path[0], service_code,
                               0);
}

int udccp_pair_init(udccp_pair *p, const udccp_settings *cs,
                    const udccp_settings *ss,
                    const udccp_listener_settings *ls, uint64_t seed) {
  return udccp_pair_init_sc(p, cs, ss, ls, seed, 42);
}

void udccp_pair_free(udccp_pair *p) {
  int i;
  for (i = 0; i < 2; ++i) {
    udccp_conn_del(p->c[i]);
    p->c[i] = NULL;
    free(p->q[i].pkts);
    p->q[i].pkts = NULL;
  }
  udccp_listener_del(p->lis);
  p->lis = NULL;
}

static void enqueue_ecn(udccp_pair *p, int dir, const uint8_t *pkt,
                        size_t len, uint8_t ecn) {
  udccp_pair_q *q = &p->q[dir];
  udccp_pair_pkt *slot;
  uint8_t type = len >= 9 ? (uint8_t)((pkt[8] >> 1) & 0xF) : 0xFF;
  uint64_t idx = p->offered[dir]++;
  if (type < 11) {
    p->n_types[dir][type]++;
  }
  if (p->log_n[dir] < UDCCP_PAIR_LOG) {
    p->log[dir][p->log_n[dir]++] = type;
  }
  if (p->drop && p->drop(p, dir, pkt, len, idx, p->drop_ud)) {
    p->dropped[dir]++;
    return;
  }
  if (p->loss[dir] > 0 &&
      (double)(xs64(&p->rng) >> 11) / 9007199254740992.0 < p->loss[dir]) {
    p->dropped[dir]++;
    return;
  }
  if (q->n == UDCCP_PAIR_QLEN || len > UDCCP_PAIR_MTU ||
      (p->qmax[dir] != 0 && q->n >= p->qmax[dir])) {
    p->dropped[dir]++;
    return;
  }
  slot = &q->pkts[(q->head + q->n) % UDCCP_PAIR_QLEN];
  slot->at = p->now + p->delay[dir];
  if (p->spacing[dir] && slot->at < p->last_at[dir] + p->spacing[dir]) {
    slot->at = p->last_at[dir] + p->spacing[dir];
  }
  p->last_at[dir] = slot->at;
  if (p->ecn_fn != NULL) {
    p->ecn_fn(p, dir, pkt, len, &ecn, p->ecn_ud);
  }
  slot->ecn = ecn;
  slot->len = len;
  memcpy(slot->data, pkt, len);
  q->n++;
}

static void enqueue(udccp_pair *p, int dir, const uint8_t *pkt, size_t len) {
  enqueue_ecn(p, dir, pkt, len, 0);
}

void udccp_pair_inject(udccp_pair *p, int from, const uint8_t *pkt,
                       size_t len) {
  enqueue(p, from, pkt, len);
}

static int side_alive(const udccp_pair *p, int side) {
  return p->c[side] != NULL && !udccp_conn_is_done(p->c[side]);
}

static void drain(udccp_pair *p, int side) {
  uint8_t buf[UDCCP_PAIR_MTU];
  int guard = 0;
  while (p->c[side] != NULL && guard++ < 100000) {
    uint8_t ecn = 0;
    const uint8_t *pl = NULL;
    size_t pl_len = 0;
    udccp_ssize n =
        p->sg ? udccp_conn_write_pkt_sg(p->c[side], buf, sizeof(buf), &pl,
                                        &pl_len, &ecn, p->now)
              : udccp_conn_write_pkt(p->c[side], buf, sizeof(buf), &ecn,
                                     p->now);
    if (n <= 0) {
      break;
    }
    if (pl_len > 0) {
      if ((size_t)n + pl_len > sizeof(buf)) {
        break; /* (the MPS keeps it below the MTU: never) */
      }
      memcpy(buf + n, pl, pl_len);
      n += (udccp_ssize)pl_len;
    }
    enqueue_ecn(p, side, buf, (size_t)n, ecn);
  }
}

static void deliver(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                    uint8_t ecn) {
  int to = 1 - dir;
  uint8_t out[UDCCP_PAIR_MTU];
  p->delivered[dir]++;
  if (side_alive(p, to)) {
    p->last_rv[to] = udccp_conn_read_pkt(p->c[to], pkt, len, ecn, p->now);
    return;
  }
  if (to == 1 && p->lis != NULL) {
    udccp_conn *nc = NULL;
    udccp_ssize n = udccp_listener_read_pkt(p->lis, &p->path[1], pkt, len,
                                            p->now, &nc, out, sizeof(out));
    p->last_rv[1] = n < 0 ? (int)n : 0;
    if (nc != NULL) {
      if (p->c[1] != NULL) {
        udccp_listener_conn_gone(p->lis, p->c[1]);
        udccp_conn_del(p->c[1]);
      }
      p->c[1] = nc;
      p->server_conns++;
    } else if (n > 0) {
      p->stateless_replies++;
      enqueue(p, 1, out, (size_t)n);
    }
    return;
  }
  /* RFC 4340 §8.5 step 2: no connection. */
  {
    udccp_ssize n = udccp_pkt_write_reset_reply(
        out, sizeof(out), pkt, len, &p->path[to], p->s[to].cksum_mode,
        UDCCP_RESET_NO_CONNECTION);
    if (n > 0) {
      enqueue(p, to, out, (size_t)n);
    }
  }
}

static int step_lim(udccp_pair *p, udccp_tstamp lim) {
  udccp_tstamp next = UDCCP_TSTAMP_NEVER;
  int side, dir;
  for (side = 0; side < 2; ++side) {
    drain(p, side);
  }
  for (dir = 0; dir < 2; ++dir) {
    if (p->q[dir].n > 0 && p->q[dir].pkts[p->q[dir].head].at < next) {
      next = p->q[dir].pkts[p->q[dir].head].at;
    }
  }
  for (side = 0; side < 2; ++side) {
    if (side_alive(p, side)) {
      udccp_tstamp e = udccp_conn_get_expiry(p->c[side]);
      if (e < next) {
        next = e;
      }
    }
  }
  if (next == UDCCP_TSTAMP_NEVER) {
    return 0;
  }
  if (next > lim) {
    p->now = lim;
    return 1;
  }
  if (next > p->now) {
    p->now = next;
  }
  for (dir = 0; dir < 2; ++dir) {
    udccp_pair_q *q = &p->q[dir];
    while (q->n > 0 && q->pkts[q->head].at <= p->now) {
      udccp_pair_pkt *pk = &q->pkts[q->head];
      q->head = (q->head + 1) % UDCCP_PAIR_QLEN;
      q->n--;
      deliver(p, dir, pk->data, pk->len, pk->ecn);
    }
  }
  for (side = 0; side < 2; ++side) {
    if (side_alive(p, side) &&
        udccp_conn_get_expiry(p->c[side]) <= p->now) {
      (void)udccp_conn_handle_expiry(p->c[side], p->now);
    }
  }
  return 1;
}

int udccp_pair_step(udccp_pair *p) {
  return step_lim(p, UDCCP_TSTAMP_NEVER);
}

int udccp_pair_run_until(udccp_pair *p, udccp_pair_cond_fn cond, void *ud,
                         udccp_tstamp limit) {
  udccp_tstamp end = p->now + limit;
  long guard = 0;
  while (!cond(p, ud)) {
    if (p->now >= end || ++guard > 20000000L) {
      return 0;
    }
    if (!step_lim(p, end)) {
      return cond(p, ud);
    }
  }
  return 1;
}

void udccp_pair_run_for(udccp_pair *p, udccp_tstamp duration) {
  udccp_tstamp end = p->now + duration;
  long guard = 0;
  while (p->now < end && ++guard < 20000000L) {
    if (!step_lim(p, end)) {
      break;
    }
  }
  if (p->now < end) {
    p->now = end;
  }
}

int udccp_pair_state(const udccp_pair *p, int side) {
  return p->c[side] ? udccp_conn_get_state(p->c[side]) : UDCCP_STATE_CLOSED;
}

int udccp_pair_both_open(udccp_pair *p, void *ud) {
  (void)ud;
  return udccp_pair_state(p, 0) == UDCCP_STATE_OPEN &&
         udccp_pair_state(p, 1) == UDCCP_STATE_OPEN;
}

int udccp_pair_both_done(udccp_pair *p, void *ud) {
  (void)ud;
  return p->c[0] != NULL && udccp_conn_is_done(p->c[0]) &&
         (p->c[1] == NULL || udccp_conn_is_done(p->c[1]));
}

uint64_t udccp_pair_count(const udccp_pair *p, int dir, uint8_t type) {
  return type < 11 ? p->n_types[dir][type] : 0;
}

int udccp_pair_feed(udccp_pair *p, int to, const udccp_tb_pkt *tp) {
  uint8_t pkt[UDCCP_PAIR_MTU];
  udccp_ssize n = udccp_tb_encode(pkt, sizeof(pkt), &p->path[1 - to], tp);
  if (n <= 0) {
    return (int)n;
  }
  return udccp_conn_read_pkt(p->c[to], pkt, (size_t)n, 0, p->now);
}

udccp_conn_rxpkt udccp_pair_next_pkt(udccp_pair *p, int side, uint8_t *buf) {
  udccp_conn_rxpkt rp;
  udccp_ssize n = udccp_conn_write_pkt(p->c[side], buf, UDCCP_PAIR_MTU, NULL,
                                       p->now);
  memset(&rp, 0, sizeof(rp));
  rp.h.type = 0xFF;
  if (n > 0 && udccp_conn_decode(&rp, buf, (size_t)n) != 0) {
    rp.h.type = 0xFE; /* undecodable: no test expects that */
  }
  return rp;
}

uint64_t udccp_pair_stream(udccp_pair *p, int from, size_t len,
                           udccp_tstamp every, udccp_tstamp dur) {
  static const uint8_t d[UDCCP_PAIR_MTU];
  uint8_t buf[UDCCP_PAIR_MTU];
  udccp_tstamp end = p->now + dur;
  udccp_tstamp tick = every ? every : UDCCP_NS_PER_MS;
  uint64_t got = 0;
  size_t n = len < sizeof(d) ? len : sizeof(d);
  while (p->now < end) {
    if (every) {
      (void)udccp_conn_queue_datagram(p->c[from], d, n, 0, p->now);
    } else {
      while (udccp_conn_queue_datagram(p->c[from], d, n, 0, p->now) == 0) {
      }
    }
    udccp_pair_run_for(p, tick);
    while (udccp_conn_read_datagram(p->c[1 - from], buf, sizeof(buf)) > 0) {
      got++;
    }
  }
  return got;
}

int udccp_pair_open(udccp_pair *p, uint64_t seed) {
  if (udccp_pair_init(p, NULL, NULL, NULL, seed) != 0) {
    return -1;
  }
  if (!udccp_pair_run_until(p, udccp_pair_both_open, NULL,
                            5 * UDCCP_NS_PER_S)) {
    udccp_pair_free(p);
    return -1;
  }
  udccp_pair_run_for(p, 500 * UDCCP_NS_PER_MS);
  return 0;
}
