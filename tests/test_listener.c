/* SPDX-License-Identifier: MIT */
/*
 * The listener's bounds: half-open state, Init Cookies under pressure
 * (RFC 4340 §4.7, §8.1.4), one connection per cookie, cookies bound to the
 * UDP port of DCCP-UDP (RFC 6773 §3.5), the accept backlog and Reset Too
 * Busy (§5.6).  Clients are real client connections; the listener is
 * driven by hand, packet by packet.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "conn.h"
#include "opt.h"

#define MS UDCCP_NS_PER_MS

static const uint32_t code42 = 42;

static void test_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *x = ud;
  size_t i;
  for (i = 0; i < len; ++i) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    dest[i] = (uint8_t)(*x >> 24);
  }
}

/* Counts live heap bytes of everything allocated through it. */
typedef struct counting {
  long long live;
  long long allocs;
} counting;

typedef struct hdr {
  size_t n;
  max_align_t pad;
} hdr;

static void *c_malloc(size_t n, void *ud) {
  counting *c = ud;
  hdr *h = malloc(sizeof(hdr) + n);
  if (h == NULL) {
    return NULL;
  }
  h->n = n;
  c->live += (long long)n;
  c->allocs++;
  return h + 1;
}

static void c_free(void *p, void *ud) {
  counting *c = ud;
  hdr *h;
  if (p == NULL) {
    return;
  }
  h = (hdr *)p - 1;
  c->live -= (long long)h->n;
  free(h);
}

static void *c_calloc(size_t m, size_t n, void *ud) {
  void *p = c_malloc(m * n, ud);
  if (p != NULL) {
    memset(p, 0, m * n);
  }
  return p;
}

static void *c_realloc(void *p, size_t n, void *ud) {
  void *q;
  if (p == NULL) {
    return c_malloc(n, ud);
  }
  q = c_malloc(n, ud);
  if (q != NULL) {
    size_t old = ((hdr *)p - 1)->n;
    memcpy(q, p, old < n ? old : n);
    c_free(p, ud);
  }
  return q;
}

typedef struct fixture {
  uint64_t rng;
  counting cnt;
  udccp_mem mem;
  udccp_settings s;
  udccp_listener *lis;
} fixture;

static void fx_init(fixture *f, uint8_t mode, uint32_t half_open_max,
                    uint32_t backlog) {
  udccp_listener_settings ls;
  memset(f, 0, sizeof(*f));
  f->rng = 0x9E3779B97F4A7C15ULL;
  f->mem.user_data = &f->cnt;
  f->mem.malloc = c_malloc;
  f->mem.free = c_free;
  f->mem.calloc = c_calloc;
  f->mem.realloc = c_realloc;
  udccp_settings_default(&f->s);
  f->s.rand = test_rand;
  f->s.rand_user_data = &f->rng;
  f->s.mem = &f->mem;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code42;
  ls.n_service_codes = 1;
  ls.init_cookie = mode;
  ls.half_open_max = half_open_max;
  ls.backlog = backlog;
  assert_int_equal(udccp_listener_new(&f->lis, &f->s, &ls, 0), 0);
}

/* A client at 10.0.0.1:port (UDP source port udp) talking to the
 * listener at 10.0.0.2:5001. */
typedef struct cli {
  udccp_conn *c;
  udccp_path cp, sp; /* client's view, server's view */
} cli;

static void cli_new(cli *k, fixture *f, uint16_t port, uint16_t udp) {
  udccp_settings cs = f->s;
  cs.mem = NULL;
  memset(k, 0, sizeof(*k));
  k->cp.family = UDCCP_AF_INET;
  k->cp.local_addr[0] = 10;
  k->cp.local_addr[3] = 1;
  k->cp.remote_addr[0] = 10;
  k->cp.remote_addr[3] = 2;
  k->cp.local_port = port;
  k->cp.remote_port = 5001;
  k->sp = k->cp;
  memcpy(k->sp.local_addr, k->cp.remote_addr, 16);
  memcpy(k->sp.remote_addr, k->cp.local_addr, 16);
  k->sp.local_port = 5001;
  k->sp.remote_port = port;
  k->sp.encap_port = udp;
  assert_int_equal(udccp_conn_client_new(&k->c, &cs, &k->cp, 42, 0), 0);
}

static udccp_ssize cli_request(cli *k, uint8_t *pkt, size_t cap) {
  udccp_ssize n = udccp_conn_write_pkt(k->c, pkt, cap, NULL, 0);
  assert_true(n > 0);
  return n;
}

static int pkt_type(const uint8_t *pkt, size_t n) {
  udccp_conn_rxpkt rp;
  assert_int_equal(udccp_conn_decode(&rp, pkt, n), 0);
  return rp.h.type;
}

static int reset_code(const uint8_t *pkt, size_t n) {
  udccp_conn_rxpkt rp;
  assert_int_equal(udccp_conn_decode(&rp, pkt, n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  return rp.h.reset_code;
}

static int has_cookie(const uint8_t *pkt, size_t n) {
  udccp_conn_rxpkt rp;
  assert_int_equal(udccp_conn_decode(&rp, pkt, n), 0);
  assert_int_equal(
      udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len), 0);
  return (rp.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE) != 0;
}

/* Request -> listener (must answer with a cookie Response) -> client ->
 * the client's Ack, returned in ack. */
static udccp_ssize cookie_ack(fixture *f, cli *k, uint8_t *ack, size_t cap) {
  uint8_t pkt[1500], out[1500];
  udccp_conn *nc = NULL;
  udccp_ssize n = cli_request(k, pkt, sizeof(pkt));
  n = udccp_listener_read_pkt(f->lis, &k->sp, pkt, (size_t)n, 1 * MS, &nc,
                              out, sizeof(out));
  assert_null(nc);
  assert_true(n > 0);
  assert_int_equal(pkt_type(out, (size_t)n), UDCCP_PKT_RESPONSE);
  assert_true(has_cookie(out, (size_t)n));
  assert_int_equal(udccp_conn_read_pkt(k->c, out, (size_t)n, 0, 2 * MS), 0);
  assert_int_equal(udccp_conn_get_state(k->c), UDCCP_STATE_PARTOPEN);
  n = udccp_conn_write_pkt(k->c, ack, cap, NULL, 2 * MS);
  assert_true(n > 0);
  return n;
}

/* RFC 4340 §8.1.4: "one cookie, one connection" — a captured cookie Ack
 * replayed 1,000 times within the cookie's lifetime, before and after the
 * connection it made is gone, makes no second connection. */
static void test_rfc4340_8_1_4_cookie_replay_makes_one_connection(
    void **state) {
  fixture f;
  cli k;
  uint8_t ack[1500], out[1500];
  udccp_ssize n, m;
  udccp_conn *nc = NULL;
  udccp_listener_stats st;
  int i, made = 0;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_ALWAYS, 0, 0);
  cli_new(&k, &f, 40001, 6511);
  n = cookie_ack(&f, &k, ack, sizeof(ack));
  for (i = 0; i < 1000; ++i) {
    m = udccp_listener_read_pkt(f.lis, &k.sp, ack, (size_t)n, 3 * MS + i, &nc,
                                out, sizeof(out));
    if (nc != NULL) {
      assert_int_equal(m, 0);
      assert_int_equal(udccp_conn_get_state(nc), UDCCP_STATE_OPEN);
      made++;
      /* the connection ends at once: the replays must still fail */
      udccp_listener_conn_gone(f.lis, nc);
      udccp_conn_del(nc);
      nc = NULL;
    } else {
      assert_int_equal(m, UDCCP_ERR_COOKIE); /* dropped, nothing sent */
    }
  }
  assert_int_equal(made, 1);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.cookies_replayed, 999);
  assert_int_equal(st.conns, 0);
  udccp_conn_del(k.c);
  udccp_listener_del(f.lis);
  assert_int_equal(f.cnt.live, 0);
}

/* RFC 6773 §3.5 (DCCP-UDP): the UDP ports are part of the connection's
 * name, so the cookie is bound to the client's UDP source port: the same
 * Ack from another UDP port is a Bad Init Cookie (§8.1.4, Reset Code 10),
 * and makes no connection. */
static void test_rfc6773_3_5_cookie_bound_to_udp_source_port(void **state) {
  fixture f;
  cli k;
  uint8_t ack[1500], out[1500];
  udccp_ssize n, m;
  udccp_conn *nc = NULL;
  udccp_path other;
  uint16_t port;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_ALWAYS, 0, 0);
  cli_new(&k, &f, 40001, 6511);
  n = cookie_ack(&f, &k, ack, sizeof(ack));
  other = k.sp;
  for (port = 1; port < 200; ++port) {
    other.encap_port = (uint16_t)(6511 + port);
    m = udccp_listener_read_pkt(f.lis, &other, ack, (size_t)n, 3 * MS, &nc,
                                out, sizeof(out));
    assert_null(nc);
    assert_true(m > 0);
    assert_int_equal(reset_code(out, (size_t)m), UDCCP_RESET_BAD_INIT_COOKIE);
  }
  /* the right UDP port still works, once */
  m = udccp_listener_read_pkt(f.lis, &k.sp, ack, (size_t)n, 3 * MS, &nc, out,
                              sizeof(out));
  assert_int_equal(m, 0);
  assert_non_null(nc);
  udccp_listener_conn_gone(f.lis, nc);
  udccp_conn_del(nc);
  udccp_conn_del(k.c);
  udccp_listener_del(f.lis);
}

/* RFC 4340 §4.7, §8.1.4 (the default, AUTO): state is kept for at most
 * half_open_max Requests; every later Request gets a Response with an
 * Init Cookie and leaves no memory behind. */
static void test_rfc4340_4_7_half_open_bounded_then_cookies(void **state) {
  fixture f;
  cli k;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn *held[4];
  udccp_conn *nc = NULL;
  udccp_listener_stats st;
  long long live;
  int i;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_AUTO, 4, 0);
  for (i = 0; i < 4; ++i) {
    cli_new(&k, &f, (uint16_t)(40000 + i), 6511);
    n = cli_request(&k, pkt, sizeof(pkt));
    n = udccp_listener_read_pkt(f.lis, &k.sp, pkt, (size_t)n, 0, &nc, out,
                                sizeof(out));
    assert_int_equal(n, 0);
    assert_non_null(nc);
    assert_int_equal(udccp_conn_get_state(nc), UDCCP_STATE_RESPOND);
    held[i] = nc;
    udccp_conn_del(k.c);
  }
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.half_open, 4);
  live = f.cnt.live;
  for (i = 0; i < 1000; ++i) {
    cli_new(&k, &f, (uint16_t)(41000 + i), 6511);
    n = cli_request(&k, pkt, sizeof(pkt));
    n = udccp_listener_read_pkt(f.lis, &k.sp, pkt, (size_t)n, 0, &nc, out,
                                sizeof(out));
    assert_null(nc);
    assert_true(n > 0);
    assert_int_equal(pkt_type(out, (size_t)n), UDCCP_PKT_RESPONSE);
    assert_true(has_cookie(out, (size_t)n));
    udccp_conn_del(k.c);
  }
  /* no state kept for the 1,000 unverified clients */
  assert_int_equal(f.cnt.live, live);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.half_open, 4);
  assert_int_equal(st.conns, 4);
  assert_int_equal(st.cookies_sent, 1000);
  /* a half-open connection that goes away frees its place */
  udccp_listener_conn_gone(f.lis, held[0]);
  udccp_conn_del(held[0]);
  cli_new(&k, &f, 42000, 6511);
  n = cli_request(&k, pkt, sizeof(pkt));
  n = udccp_listener_read_pkt(f.lis, &k.sp, pkt, (size_t)n, 0, &nc, out,
                              sizeof(out));
  assert_int_equal(n, 0);
  assert_non_null(nc);
  held[0] = nc;
  udccp_conn_del(k.c);
  for (i = 0; i < 4; ++i) {
    udccp_listener_conn_gone(f.lis, held[i]);
    udccp_conn_del(held[i]);
  }
  udccp_listener_del(f.lis);
  assert_int_equal(f.cnt.live, 0);
}

/* NEVER: past half_open_max, Reset Too Busy (§5.6, code 9), no state. */
static void test_rfc4340_5_6_half_open_full_without_cookies_too_busy(
    void **state) {
  fixture f;
  cli k;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn *held[2];
  udccp_conn *nc = NULL;
  int i;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_NEVER, 2, 0);
  for (i = 0; i < 3; ++i) {
    cli_new(&k, &f, (uint16_t)(40000 + i), 6511);
    n = cli_request(&k, pkt, sizeof(pkt));
    n = udccp_listener_read_pkt(f.lis, &k.sp, pkt, (size_t)n, 0, &nc, out,
                                sizeof(out));
    if (i < 2) {
      assert_int_equal(n, 0);
      held[i] = nc;
    } else {
      assert_null(nc);
      assert_true(n > 0);
      assert_int_equal(reset_code(out, (size_t)n), UDCCP_RESET_TOO_BUSY);
    }
    udccp_conn_del(k.c);
  }
  for (i = 0; i < 2; ++i) {
    udccp_listener_conn_gone(f.lis, held[i]);
    udccp_conn_del(held[i]);
  }
  udccp_listener_del(f.lis);
}

/* The accept backlog: completed, unaccepted connections are bounded;
 * past it Requests and cookie Acks get Reset Too Busy, and a refused
 * cookie is not spent (the client's retransmission works once there is
 * room). */
static void test_rfc4340_5_6_backlog_full_too_busy(void **state) {
  fixture f;
  cli k[3];
  uint8_t ack[3][1500], out[1500], pkt[1500];
  udccp_ssize n[3], m;
  udccp_conn *nc = NULL, *made[3];
  udccp_listener_stats st;
  int i;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_ALWAYS, 0, 2);
  for (i = 0; i < 3; ++i) {
    cli_new(&k[i], &f, (uint16_t)(40000 + i), 6511);
    n[i] = cookie_ack(&f, &k[i], ack[i], sizeof(ack[i]));
  }
  for (i = 0; i < 2; ++i) {
    m = udccp_listener_read_pkt(f.lis, &k[i].sp, ack[i], (size_t)n[i], 3 * MS,
                                &made[i], out, sizeof(out));
    assert_int_equal(m, 0);
    assert_non_null(made[i]);
  }
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.queued, 2);
  m = udccp_listener_read_pkt(f.lis, &k[2].sp, ack[2], (size_t)n[2], 3 * MS,
                              &nc, out, sizeof(out));
  assert_null(nc);
  assert_int_equal(reset_code(out, (size_t)m), UDCCP_RESET_TOO_BUSY);
  /* a new Request too */
  {
    cli x;
    cli_new(&x, &f, 45000, 6511);
    m = cli_request(&x, pkt, sizeof(pkt));
    m = udccp_listener_read_pkt(f.lis, &x.sp, pkt, (size_t)m, 3 * MS, &nc,
                                out, sizeof(out));
    assert_null(nc);
    assert_int_equal(reset_code(out, (size_t)m), UDCCP_RESET_TOO_BUSY);
    udccp_conn_del(x.c);
  }
  /* the application accepts one: the refused Ack now makes its
   * connection */
  udccp_listener_conn_accepted(f.lis, made[0]);
  m = udccp_listener_read_pkt(f.lis, &k[2].sp, ack[2], (size_t)n[2], 4 * MS,
                              &made[2], out, sizeof(out));
  assert_int_equal(m, 0);
  assert_non_null(made[2]);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.queued, 2);
  assert_int_equal(st.conns, 3);
  for (i = 0; i < 3; ++i) {
    udccp_listener_conn_gone(f.lis, made[i]);
    udccp_conn_del(made[i]);
    udccp_conn_del(k[i].c);
  }
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.conns, 0);
  assert_int_equal(st.queued, 0);
  udccp_listener_del(f.lis);
}

/* A stateful handshake leaves HALF_OPEN for QUEUED when the client's Ack
 * arrives (§8.1.5), and ACCEPTED when the application takes it. */
static void test_rfc4340_8_1_5_phases_follow_the_handshake(void **state) {
  fixture f;
  cli k;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn *sc = NULL;
  udccp_listener_stats st;
  (void)state;
  fx_init(&f, UDCCP_INIT_COOKIE_AUTO, 0, 0);
  cli_new(&k, &f, 40001, 6511);
  n = cli_request(&k, pkt, sizeof(pkt));
  assert_int_equal(udccp_listener_read_pkt(f.lis, &k.sp, pkt, (size_t)n, 0,
                                           &sc, out, sizeof(out)),
                   0);
  n = udccp_conn_write_pkt(sc, pkt, sizeof(pkt), NULL, 1 * MS);
  assert_true(n > 0);
  assert_false(has_cookie(pkt, (size_t)n));
  udccp_listener_conn_update(f.lis, sc);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.half_open, 1);
  assert_int_equal(udccp_conn_read_pkt(k.c, pkt, (size_t)n, 0, 2 * MS), 0);
  n = udccp_conn_write_pkt(k.c, pkt, sizeof(pkt), NULL, 2 * MS);
  assert_true(n > 0);
  (void)udccp_conn_read_pkt(sc, pkt, (size_t)n, 0, 3 * MS);
  assert_int_equal(udccp_conn_get_state(sc), UDCCP_STATE_OPEN);
  udccp_listener_conn_update(f.lis, sc);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.half_open, 0);
  assert_int_equal(st.queued, 1);
  udccp_listener_conn_accepted(f.lis, sc);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.queued, 0);
  assert_int_equal(st.conns, 1);
  udccp_listener_conn_gone(f.lis, sc);
  udccp_conn_del(sc);
  udccp_conn_del(k.c);
  udccp_listener_get_stats(f.lis, &st);
  assert_int_equal(st.conns, 0);
  udccp_listener_del(f.lis);
}

/* ------------------------------------------------- through the runtime */

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Drives both endpoints until done(s) or ms pass. */
static int drive(udccp_endpoint *a, udccp_endpoint *b,
                 int (*done)(udccp_sock *), udccp_sock *s, int ms) {
  uint64_t end = ms_now() + (uint64_t)ms;
  while (ms_now() < end) {
    (void)udccp_endpoint_run(a, 1);
    (void)udccp_endpoint_run(b, 1);
    if (done != NULL && done(s)) {
      return 1;
    }
  }
  return 0;
}

static int opened(udccp_sock *s) {
  return udccp_sock_state(s) == UDCCP_STATE_OPEN;
}

static int died(udccp_sock *s) { return udccp_sock_error(s) != 0; }

/* RFC 4340 §5.6 through udccp_listen_set_backlog() (listen()'s backlog in
 * the preload layer): with a backlog of 1 and one completed connection
 * not accepted, the next client is refused with Reset Too Busy. */
static void test_rfc4340_5_6_io_backlog_too_busy(void **state) {
  udccp_endpoint *sep = NULL, *cep = NULL;
  udccp_endpoint_config cfg;
  udccp_sock *a = NULL, *b = NULL, *acc = NULL;
  (void)state;
  assert_int_equal(
      udccp_endpoint_new(&sep, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0), 0);
  assert_int_equal(udccp_listen(sep, 5003, &code42, 1), 0);
  assert_int_equal(udccp_listen_set_backlog(sep, 5003, 1), 0);
  assert_int_equal(udccp_listen_set_backlog(sep, 5004, 1),
                   UDCCP_ERR_INVALID_STATE);
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.remote_udp_port = udccp_endpoint_local_port(sep);
  assert_int_equal(udccp_endpoint_new_config(&cep, &cfg), 0);
  assert_int_equal(udccp_connect(cep, &a, "127.0.0.1", 5003, 42, 0, 0), 0);
  assert_true(drive(cep, sep, opened, a, 5000));
  assert_int_equal(udccp_connect(cep, &b, "127.0.0.1", 5003, 42, 0, 0), 0);
  assert_true(drive(cep, sep, died, b, 5000));
  assert_int_equal(udccp_sock_reset_code(b), UDCCP_RESET_TOO_BUSY);
  /* the first one is still there to accept */
  assert_int_equal(udccp_accept(sep, &acc, 0), 0);
  udccp_abort(b);
  udccp_abort(a);
  udccp_abort(acc);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

/* udccp_listener_new() judges the settings its connections get as
 * udccp_conn_client_new() does.  It took any with rand set, then failed
 * every Request with UDCCP_ERR_INVALID_ARGUMENT and no reply: the
 * clients waited out their Request timeout, the server's application saw
 * a listener that never answered. */
static void test_listener_refuses_unusable_settings(void **state) {
  udccp_listener_settings ls;
  udccp_listener *lis;
  udccp_settings st;
  uint64_t x = 7;
  int k;
  (void)state;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code42;
  ls.n_service_codes = 1;
  for (k = 0; k < 6; k++) {
    udccp_settings_default(&st);
    st.rand = test_rand;
    st.rand_user_data = &x;
    if (k == 0) {
      assert_int_equal(udccp_listener_new(&lis, &st, &ls, 0), 0);
      udccp_listener_del(lis);
      continue;
    }
    if (k == 1) {
      st.seq_window = 0; /* RFC 4340 §7.5.2: at least 32 */
    } else if (k == 2) {
      st.ccid = 7; /* no such CCID in the registry */
    } else if (k == 3) {
      st.rx_ccid = 9;
    } else if (k == 4) {
      st.pmtu = 60;
    } else {
      st.tx_qlen = 0;
    }
    lis = (udccp_listener *)&x;
    assert_int_equal(udccp_listener_new(&lis, &st, &ls, 0),
                     UDCCP_ERR_INVALID_ARGUMENT);
    assert_null(lis);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_replay_makes_one_connection),
      cmocka_unit_test(test_rfc6773_3_5_cookie_bound_to_udp_source_port),
      cmocka_unit_test(test_rfc4340_4_7_half_open_bounded_then_cookies),
      cmocka_unit_test(
          test_rfc4340_5_6_half_open_full_without_cookies_too_busy),
      cmocka_unit_test(test_rfc4340_5_6_backlog_full_too_busy),
      cmocka_unit_test(test_rfc4340_8_1_5_phases_follow_the_handshake),
      cmocka_unit_test(test_rfc4340_5_6_io_backlog_too_busy),
      cmocka_unit_test(test_listener_refuses_unusable_settings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
