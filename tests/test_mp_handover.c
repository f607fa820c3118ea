/* SPDX-License-Identifier: MIT */
/*
 * Handover (issue 16, acceptance 2; RFC 9897 §3.11.1 "Path mobility"):
 * an MP-DCCP connection over two simulated paths (lib/mp_conn.c over
 * sim/link.c, CCID 2 on each subflow) during a bulk transfer; path A
 * blacks out in both directions for 30 s.  With active-backup (A
 * primary, B standby) and with min-RTT (both primary): the application
 * keeps receiving over B within 1 s of the blackout's start, traffic
 * returns to A once it is back, and no subflow is reset.
 *
 * Path A 4 Mbit/s, 10 ms one way; path B 2 Mbit/s, 40 ms (small rates:
 * 40 s of virtual time under ASan stay short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "mp_conn.h"
#include "sim_link.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S
#define MAXF 4096
#define DGRAM 1200
#define WIRE_EXTRA 28

#define BO_AT (5 * S)    /* the blackout of path A */
#define BO_LEN (30 * S)
#define END (45 * S)

typedef struct flight {
  udccp_tstamp at;
  int path, to_server;
  uint8_t ecn;
  size_t len;
  uint8_t data[1500];
} flight;

typedef struct world {
  udccp_conn *c[2], *s[2];
  sim_link fwd[2], rev[2];
  udccp_mp_conn tx, rx;
  flight *f;
  size_t nf;
  udccp_tstamp now;
  uint64_t rng;
  udccp_settings st;
  udccp_path pc[2];
  uint8_t prio[2];
  /* what the receiving application saw */
  uint64_t rx_dgrams, rx_seen[2];
  udccp_tstamp last_rx_any, max_gap_bo; /* longest silence in the blackout */
  udccp_tstamp first_b_after_bo, first_a_after_bo;
  uint64_t bo_bytes; /* received from BO_AT + 1 s to the blackout's end */
  uint64_t tail_a, tail_b; /* datagrams per path, the last 5 s */
} world;

static const uint64_t rate[2] = {4000000, 2000000};
static const udccp_tstamp delay[2] = {10 * MS, 40 * MS};

static int resolve(void *ud, uint32_t ci, udccp_mp_keys *out) {
  world *w = ud;
  if (w->s[0]->mp == NULL || w->s[0]->mp->keys.local_ci != ci) {
    return 0;
  }
  *out = w->s[0]->mp->keys;
  return 1;
}

static void xrand(uint8_t *d, size_t n, void *ud) {
  uint64_t *st = ud;
  size_t i;
  for (i = 0; i < n; i++) {
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    d[i] = (uint8_t)(*st >> 24);
  }
}

static udccp_path mkpath(int k, int server) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 10;
  p.local_addr[2] = p.remote_addr[2] = (uint8_t)k;
  p.local_addr[3] = server ? 2 : 1;
  p.remote_addr[3] = server ? 1 : 2;
  p.local_port = server ? 6000 : 5000;
  p.remote_port = server ? 5000 : 6000;
  return p;
}

static void link_cfg(sim_link_cfg *lc, int k) {
  uint64_t bdp = rate[k] * 2 * (delay[k] / MS) / 1000 / 8 / 1500;
  memset(lc, 0, sizeof(*lc));
  lc->rate_bps = rate[k];
  lc->delay = delay[k];
  lc->queue_pkts = (uint32_t)(bdp < 8 ? 8 : bdp);
  if (k == 0) {
    lc->n_blackouts = 1;
    lc->blackouts[0].at = BO_AT;
    lc->blackouts[0].len = BO_LEN;
  }
}

static void send_pkt(world *w, int k, int to_server, const uint8_t *pkt,
                     size_t len, uint8_t ecn) {
  udccp_tstamp arr[2];
  int verdict, n, j;
  sim_link *l = to_server ? &w->fwd[k] : &w->rev[k];
  n = sim_link_send_ecn(l, (uint32_t)(len + WIRE_EXTRA), w->now, arr,
                        &verdict, &ecn);
  for (j = 0; j < n && w->nf < MAXF; j++) {
    flight *f = &w->f[w->nf++];
    f->at = arr[j];
    f->path = k;
    f->to_server = to_server;
    f->ecn = ecn;
    f->len = len;
    memcpy(f->data, pkt, len);
  }
}

static void drain(world *w, udccp_conn *c, int k, int to_server) {
  uint8_t buf[1500];
  int i;
  for (i = 0; i < 1000; i++) {
    uint8_t ecn = 0;
    udccp_ssize n = udccp_conn_write_pkt(c, buf, sizeof(buf), &ecn, w->now);
    if (n <= 0) {
      break;
    }
    send_pkt(w, k, to_server, buf, (size_t)n, ecn);
  }
}

static void setup(world *w, uint8_t sched, uint8_t prio_a, uint8_t prio_b) {
  udccp_settings st;
  int k;
  memset(w, 0, sizeof(*w));
  w->rng = 0x9E3779B97F4A7C15ULL;
  w->f = test_malloc(sizeof(flight) * MAXF);
  w->prio[0] = prio_a;
  w->prio[1] = prio_b;
  w->first_a_after_bo = w->first_b_after_bo = UDCCP_TSTAMP_NEVER;
  udccp_settings_default(&st);
  st.rand = xrand;
  st.rand_user_data = &w->rng;
  st.multipath = 1;
  st.ccid = 2;
  st.tx_qlen = 64;
  st.rx_qlen = 1024;
  for (k = 0; k < 2; k++) {
    sim_link_cfg lc;
    udccp_path ps = mkpath(k, 1);
    link_cfg(&lc, k);
    assert_int_equal(sim_link_init(&w->fwd[k], &lc, 11, 2 * (uint64_t)k), 0);
    assert_int_equal(
        sim_link_init(&w->rev[k], &lc, 11, 2 * (uint64_t)k + 1), 0);
    assert_int_equal(udccp_conn_listen_new(&w->s[k], &st, &ps, 42, 0), 0);
    udccp_mp_set_resolver(w->s[k]->mp, resolve, w);
    w->pc[k] = mkpath(k, 0);
  }
  w->st = st;
  assert_int_equal(udccp_conn_client_new(&w->c[0], &st, &w->pc[0], 42, 0), 0);
  assert_int_equal(udccp_mp_conn_init(&w->tx, udccp_mem_default(), 256,
                                      DGRAM, 77, 0, 0),
                   0);
  w->tx.sched = sched;
  assert_int_equal(udccp_mp_conn_init(&w->rx, udccp_mem_default(), 256,
                                      DGRAM, 0, 1,
                                      udccp_mp_reorder_bound(60 * MS,
                                                             200 * MS)),
                   0);
  assert_int_equal(udccp_mp_conn_add(&w->tx, w->c[0], prio_a), 0);
  for (k = 0; k < 2; k++) {
    assert_int_equal(udccp_mp_conn_add(&w->rx, w->s[k], 3), k);
  }
}

static void maybe_join(world *w) {
  if (w->c[1] != NULL || w->c[0]->state != UDCCP_STATE_OPEN ||
      !udccp_mp_active(w->c[0]->mp, &w->c[0]->feat)) {
    return;
  }
  assert_int_equal(
      udccp_conn_client_new(&w->c[1], &w->st, &w->pc[1], 42, w->now), 0);
  assert_int_equal(udccp_mp_join_client(w->c[1]->mp, &w->c[0]->mp->keys, 1),
                   0);
  assert_int_equal(udccp_mp_conn_add(&w->tx, w->c[1], w->prio[1]), 1);
}

static void teardown_world(world *w) {
  int k;
  for (k = 0; k < 2; k++) {
    udccp_conn_del(w->c[k]);
    udccp_conn_del(w->s[k]);
    sim_link_free(&w->fwd[k]);
    sim_link_free(&w->rev[k]);
  }
  udccp_mp_conn_free(&w->tx);
  udccp_mp_conn_free(&w->rx);
  test_free(w->f);
}

static udccp_tstamp tmin(udccp_tstamp a, udccp_tstamp b) {
  return a < b ? a : b;
}

/* The receiving application: reads, and notes over which path each
 * datagram came (the receiver's per-subflow counters). */
static void app_read(world *w) {
  int k;
  for (k = 0; k < 2; k++) {
    uint64_t n = w->rx.st[k].rx_dgrams;
    if (n == w->rx_seen[k]) {
      continue;
    }
    if (k == 1 && w->now >= BO_AT &&
        w->first_b_after_bo == UDCCP_TSTAMP_NEVER) {
      w->first_b_after_bo = w->now;
    }
    if (k == 0 && w->now >= BO_AT + BO_LEN &&
        w->first_a_after_bo == UDCCP_TSTAMP_NEVER) {
      w->first_a_after_bo = w->now;
    }
    if (w->now >= END - 5 * S) {
      *(k == 0 ? &w->tail_a : &w->tail_b) += n - w->rx_seen[k];
    }
    w->rx_seen[k] = n;
  }
  /* silence so far (also when nothing arrives for the rest of it) */
  if (w->now >= BO_AT && w->now < BO_AT + BO_LEN &&
      w->now - w->last_rx_any > w->max_gap_bo) {
    w->max_gap_bo = w->now - w->last_rx_any;
  }
  for (;;) {
    uint8_t buf[DGRAM];
    uint64_t seq;
    udccp_ssize n =
        udccp_mp_conn_read(&w->rx, buf, sizeof(buf), &seq, w->now);
    if (n < 0) {
      break;
    }
    if (w->now >= BO_AT && w->now < BO_AT + BO_LEN &&
        w->now - w->last_rx_any > w->max_gap_bo) {
      w->max_gap_bo = w->now - w->last_rx_any;
    }
    if (w->now >= BO_AT + S && w->now < BO_AT + BO_LEN) {
      w->bo_bytes += (uint64_t)n;
    }
    w->last_rx_any = w->now;
    w->rx_dgrams++;
  }
}

static void run(world *w) {
  uint8_t dg[DGRAM];
  memset(dg, 0x5A, sizeof(dg));
  while (w->now < END) {
    udccp_tstamp next = END;
    size_t i;
    int k, round;
    while (udccp_mp_conn_queue(&w->tx, dg, sizeof(dg)) == 0) {
    }
    maybe_join(w);
    for (round = 0; round < 64; round++) {
      size_t placed = udccp_mp_conn_schedule(&w->tx, w->now);
      for (k = 0; k < 2; k++) {
        if (w->c[k] != NULL) {
          drain(w, w->c[k], k, 1);
        }
        drain(w, w->s[k], k, 0);
      }
      if (placed == 0) {
        break;
      }
    }
    for (i = 0; i < w->nf; i++) {
      next = tmin(next, w->f[i].at);
    }
    for (k = 0; k < 2; k++) {
      if (w->c[k] != NULL) {
        next = tmin(next, udccp_conn_get_expiry(w->c[k]));
      }
      next = tmin(next, udccp_conn_get_expiry(w->s[k]));
    }
    next = tmin(next, udccp_mp_conn_expiry(&w->rx));
    next = tmin(next, udccp_mp_conn_expiry(&w->tx));
    if (next > w->now) {
      w->now = next;
    }
    for (i = 0; i < w->nf;) {
      flight *f = &w->f[i];
      if (f->at <= w->now) {
        int p = f->path;
        if (f->to_server) {
          (void)udccp_conn_read_pkt(w->s[p], f->data, f->len, f->ecn, w->now);
          udccp_mp_conn_on_read(&w->rx, (size_t)p, w->now);
        } else if (w->c[p] != NULL) {
          (void)udccp_conn_read_pkt(w->c[p], f->data, f->len, f->ecn, w->now);
        }
        *f = w->f[--w->nf];
        continue;
      }
      i++;
    }
    for (k = 0; k < 2; k++) {
      if (w->c[k] && udccp_conn_get_expiry(w->c[k]) <= w->now) {
        (void)udccp_conn_handle_expiry(w->c[k], w->now);
      }
      if (udccp_conn_get_expiry(w->s[k]) <= w->now) {
        (void)udccp_conn_handle_expiry(w->s[k], w->now);
      }
    }
    app_read(w);
  }
}

/* ms from `from` to t, -1 for never */
static double ms_after(udccp_tstamp t, udccp_tstamp from) {
  return t == UDCCP_TSTAMP_NEVER ? -1.0 : (double)(t - from) / MS;
}

static void check(world *w, const char *name) {
  int k;
  double bo_mbps = (double)w->bo_bytes * 8 / ((double)(BO_LEN - S) / S) / 1e6;
  print_message(
      "%s: %llu datagrams received; path B first used after the blackout's "
      "start: +%.0f ms; longest silence in the blackout %.0f ms; %.2f "
      "Mbit/s during it (B alone: %.1f); path A back +%.0f ms after its "
      "end; last 5 s: %llu on A, %llu on B; A found dead %llu times, "
      "probed %llu times, %llu datagram(s) moved\n",
      name, (unsigned long long)w->rx_dgrams,
      ms_after(w->first_b_after_bo, BO_AT),
      (double)w->max_gap_bo / MS, bo_mbps, (double)rate[1] / 1e6,
      ms_after(w->first_a_after_bo, BO_AT + BO_LEN),
      (unsigned long long)w->tail_a, (unsigned long long)w->tail_b,
      (unsigned long long)w->tx.st[0].deaths,
      (unsigned long long)w->tx.st[0].probes,
      (unsigned long long)w->tx.st[0].moved);
  /* the connection never drops: every subflow is still OPEN */
  for (k = 0; k < 2; k++) {
    assert_non_null(w->c[k]);
    assert_int_equal(w->c[k]->state, UDCCP_STATE_OPEN);
    assert_int_equal(w->s[k]->state, UDCCP_STATE_OPEN);
    assert_int_equal(w->c[k]->error, 0);
    assert_int_equal(w->s[k]->error, 0);
  }
  /* traffic goes on over B within 1 s */
  assert_true(w->first_b_after_bo < BO_AT + S);
  assert_true(w->max_gap_bo < S);
  assert_true(bo_mbps * 1e6 > 0.7 * (double)rate[1]);
  /* ... and comes back to A when A does (probes every 500 ms, then the
   * path's RTT and its CCID's restart) */
  assert_true(w->first_a_after_bo < BO_AT + BO_LEN + 2 * S);
  assert_true(w->tx.st[0].deaths >= 1);
  assert_true(w->tx.st[0].revivals >= 1);
  assert_false(udccp_mp_conn_dead(&w->tx, 0));
  assert_true(w->tail_a > 0);
}

static void test_mp_handover_3_11_1_active_backup(void **state) {
  world w;
  (void)state;
  setup(&w, UDCCP_MP_SCHED_BACKUP, 3, 1);
  run(&w);
  check(&w, "active-backup");
  /* before and after the blackout, B (standby) is idle: nearly all of
   * the last 5 s went over A */
  assert_true(w.tail_b * 20 <= w.tail_a);
  teardown_world(&w);
}

static void test_mp_handover_3_11_2_min_rtt(void **state) {
  world w;
  (void)state;
  setup(&w, UDCCP_MP_SCHED_MINRTT, 3, 3);
  run(&w);
  check(&w, "min-RTT");
  /* both paths carry traffic again */
  assert_true(w.tail_a > w.tail_b / 2);
  assert_true(w.tail_b > 0);
  teardown_world(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mp_handover_3_11_1_active_backup),
      cmocka_unit_test(test_mp_handover_3_11_2_min_rtt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
