/* SPDX-License-Identifier: MIT */
/*
 * The socket-like calls (io/sock.c) when the peer misbehaves or goes away:
 * data sent in PARTOPEN to a server that only reads (RFC 4340 §8.1.5), a
 * Reset in the middle of a transfer (§5.6), and a peer that falls silent
 * (the idle timeout: UDCCP_ERR_TIMEOUT).  Over loopback DCCP-UDP; where a
 * call blocks, the peer's endpoint runs in a second thread.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#define SVC 77
#define DPORT 6001

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static udccp_endpoint *server_ep(uint16_t *port, int cookie,
                                 const udccp_settings *st) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.init_cookie = (uint8_t)cookie;
  cfg.settings = st;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  *port = udccp_endpoint_local_port(ep);
  uint32_t code = SVC;
  assert_int_equal(udccp_listen(ep, DPORT, &code, 1), 0);
  return ep;
}

static udccp_endpoint *client_ep(uint16_t server_udp_port,
                                 const udccp_settings *st) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.remote_udp_port = server_udp_port;
  cfg.settings = st;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

/* ------------------------------------------------ a server that only reads */

typedef struct reader {
  udccp_endpoint *ep;
  int accept_rv;
  udccp_ssize got[2]; /* lengths of the first two datagrams, or errors */
  int close_rv;
} reader;

/* Accepts one connection, reads two datagrams (blocking, bounded), waits
 * for the client's close.  It never sends data: the client's data must
 * not wait for anything from us. */
static void *reader_main(void *arg) {
  reader *r = arg;
  udccp_sock *s = NULL;
  r->accept_rv = udccp_accept(r->ep, &s, 5000);
  r->got[0] = r->got[1] = UDCCP_ERR_AGAIN;
  if (r->accept_rv != 0) {
    return NULL;
  }
  static uint8_t buf[65536];
  for (int i = 0; i < 2; i++) {
    r->got[i] = udccp_recv(s, buf, sizeof(buf), 5000);
  }
  udccp_ssize n = udccp_recv(s, buf, sizeof(buf), 5000);
  r->close_rv = n == UDCCP_ERR_CLOSED ? 0 : (int)n;
  (void)udccp_close(s, 1000);
  return NULL;
}

/* RFC 4340 §8.1.5: a client in PARTOPEN may send data (in DataAck
 * packets).  udccp_connect() returns in PARTOPEN; udccp_send() at once
 * must deliver to a server that only reads, with a full-MPS datagram too
 * (beside the Init Cookie it may not fit a DataAck: it must then go once
 * OPEN, and OPEN must come without the server sending data). */
static void send_first_to_reader(int cookie) {
  uint16_t port;
  reader r;
  memset(&r, 0, sizeof(r));
  r.ep = server_ep(&port, cookie, NULL);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, reader_main, &r), 0);
  udccp_endpoint *cep = client_ep(port, NULL);
  udccp_sock *c = NULL;
  assert_int_equal(udccp_connect(cep, &c, "127.0.0.1", DPORT, SVC, 0, 5000),
                   0);
  size_t mps = udccp_sock_get_mps(c);
  static uint8_t big[65536]; /* MPS-sized: the route's MTU (loopback) */
  memset(big, 0x5a, sizeof(big));
  uint64_t t0 = ms_now();
  assert_int_equal(udccp_send(c, "first", 5, 3000), 5);
  assert_int_equal(udccp_send(c, big, mps, 3000), (udccp_ssize)mps);
  int crv = udccp_close(c, 3000);
  uint64_t dt = ms_now() - t0;
  assert_int_equal(pthread_join(th, NULL), 0);
  printf("init cookie %d: send, send, close -> %d, %llu ms; server "
         "got %zd and %zd bytes (MPS %zu)\n",
         cookie, crv, (unsigned long long)dt, r.got[0], r.got[1], mps);
  assert_int_equal(r.accept_rv, 0);
  assert_int_equal(r.got[0], 5);
  assert_int_equal(r.got[1], (udccp_ssize)mps);
  assert_int_equal(crv, 0);
  assert_int_equal(r.close_rv, 0);
  assert_true(dt < 2000);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(r.ep);
}

static void test_rfc4340_8_1_5_partopen_data_to_reading_server(void **state) {
  (void)state;
  send_first_to_reader(0);
}

static void test_rfc4340_8_1_5_partopen_data_with_init_cookie(void **state) {
  (void)state;
  send_first_to_reader(1);
}

/* ------------------------------------------------------ peer resets */

typedef struct pair {
  udccp_endpoint *cep, *sep;
  udccp_sock *c, *s;
} pair;

/* Runs both endpoints (either may be NULL: not run, its packets wait
 * unread in its socket) until cond or ms pass. */
static int drive(pair *p, int run_c, int run_s, int (*cond)(pair *),
                 int ms) {
  uint64_t end = ms_now() + (uint64_t)ms;
  while (ms_now() < end) {
    if (run_c) {
      assert_int_equal(udccp_endpoint_process(p->cep), 0);
    }
    if (run_s) {
      assert_int_equal(udccp_endpoint_process(p->sep), 0);
    }
    if (cond != NULL && cond(p)) {
      return 1;
    }
    struct pollfd fds[2];
    nfds_t n = 0;
    if (run_c) {
      fds[n].fd = udccp_endpoint_fd(p->cep);
      fds[n++].events = POLLIN;
    }
    if (run_s) {
      fds[n].fd = udccp_endpoint_fd(p->sep);
      fds[n++].events = POLLIN;
    }
    (void)poll(fds, n, 1);
  }
  return cond != NULL && cond(p);
}

static int accepted(pair *p) { return udccp_accept(p->sep, &p->s, 0) == 0; }

static void open_pair(pair *p, const udccp_settings *cst) {
  uint16_t port;
  memset(p, 0, sizeof(*p));
  p->sep = server_ep(&port, 0, NULL);
  p->cep = client_ep(port, cst);
  assert_int_equal(udccp_connect(p->cep, &p->c, "127.0.0.1", DPORT, SVC, 0, 0),
                   0);
  assert_true(drive(p, 1, 1, accepted, 5000));
}

static int client_partopen(pair *p) {
  return udccp_sock_state(p->c) == UDCCP_STATE_PARTOPEN;
}

static int server_has_data(pair *p);

/* RFC 4340 §8.1.5: in PARTOPEN the client MAY send data (DataAck); it
 * need not wait for OPEN.  The server answers the Request and then is not
 * run: the client stays in PARTOPEN, and udccp_send() must queue and send
 * at once all the same. */
static void test_rfc4340_8_1_5_send_in_partopen_without_waiting(void **st) {
  (void)st;
  pair p;
  uint16_t port;
  memset(&p, 0, sizeof(p));
  p.sep = server_ep(&port, 0, NULL);
  p.cep = client_ep(port, NULL);
  assert_int_equal(udccp_connect(p.cep, &p.c, "127.0.0.1", DPORT, SVC, 0, 0),
                   0);
  /* A non-blocking connect queues its Request in the batch: one turn of
   * the client's loop sends it (issue 13); from then on only the server
   * runs until the client must see the Response. */
  assert_int_equal(udccp_endpoint_process(p.cep), 0);
  (void)drive(&p, 0, 1, NULL, 50); /* Request in, Response out */
  assert_true(drive(&p, 1, 0, client_partopen, 2000));
  uint64_t t0 = ms_now();
  assert_int_equal(udccp_send(p.c, "first", 5, 500), 5);
  assert_true(ms_now() - t0 < 250);
  assert_int_equal(udccp_sock_state(p.c), UDCCP_STATE_PARTOPEN);
  udccp_conn_info info;
  udccp_sock_get_info(p.c, &info);
  assert_int_equal(info.data_pkts_sent, 1);
  /* Now the server runs: it opens and reads, without sending data. */
  assert_true(drive(&p, 0, 1, accepted, 2000));
  assert_true(drive(&p, 0, 1, server_has_data, 2000));
  uint8_t buf[16];
  assert_int_equal(udccp_recv(p.s, buf, sizeof(buf), 0), 5);
  assert_memory_equal(buf, "first", 5);
  udccp_abort(p.c);
  udccp_abort(p.s);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

/* ------------------------------------------------ handshakes in batches */

#define NBATCH 8

typedef struct many {
  pair p;
  udccp_sock *c[NBATCH];
} many;

static int all_open(pair *p) {
  many *m = (many *)(void *)p;
  for (int i = 0; i < NBATCH; i++) {
    if (udccp_sock_state(m->c[i]) != UDCCP_STATE_OPEN) {
      return 0;
    }
  }
  return 1;
}

/* Issue 13: non-blocking udccp_connect() and udccp_close() queue their
 * packet in the endpoint's transmit batch, and udccp_accept() hands out a
 * waiting connection without a turn of the loop; the next turn (which
 * udccp_endpoint_timeout_ms() asks for at once) sends them all in one
 * sendmmsg.  Fails when any of the three sends, or runs the loop, per
 * connection. */
static void test_io_connect_accept_close_share_one_batch(void **st) {
  (void)st;
  many m;
  uint16_t port;
  udccp_endpoint_stats a, b;
  memset(&m, 0, sizeof(m));
  m.p.sep = server_ep(&port, 0, NULL);
  m.p.cep = client_ep(port, NULL);
  for (int i = 0; i < NBATCH; i++) {
    assert_int_equal(
        udccp_connect(m.p.cep, &m.c[i], "127.0.0.1", DPORT, SVC, 0, 0), 0);
  }
  udccp_endpoint_get_stats(m.p.cep, &a);
  assert_int_equal(a.tx_pkts, 0);
  assert_int_equal(udccp_endpoint_timeout_ms(m.p.cep), 0);
  assert_int_equal(udccp_endpoint_process(m.p.cep), 0);
  udccp_endpoint_get_stats(m.p.cep, &b);
  printf("%d connects: %llu packets in %llu sendmmsg\n", NBATCH,
         (unsigned long long)b.tx_pkts, (unsigned long long)b.tx_batches);
  assert_int_equal(b.tx_pkts, NBATCH);
  assert_int_equal(b.tx_batches, 1);
  /* All OPEN: every connection waits in the server's accept queue. */
  assert_true(drive(&m.p, 1, 1, all_open, 5000));
  udccp_endpoint_get_stats(m.p.sep, &a);
  for (int i = 0; i < NBATCH; i++) {
    udccp_sock *s = NULL;
    assert_int_equal(udccp_accept(m.p.sep, &s, 0), 0);
    assert_int_equal(udccp_close(s, 0), UDCCP_ERR_TIMEOUT); /* not done */
    udccp_endpoint_get_stats(m.p.sep, &b);
    assert_int_equal(b.tx_pkts, a.tx_pkts);
    assert_int_equal(b.rx_batches, a.rx_batches);
  }
  assert_int_equal(udccp_endpoint_timeout_ms(m.p.sep), 0);
  assert_int_equal(udccp_endpoint_process(m.p.sep), 0);
  udccp_endpoint_get_stats(m.p.sep, &b);
  printf("%d closes: %llu packets in %llu sendmmsg\n", NBATCH,
         (unsigned long long)(b.tx_pkts - a.tx_pkts),
         (unsigned long long)(b.tx_batches - a.tx_batches));
  assert_true(b.tx_pkts - a.tx_pkts >= NBATCH);
  assert_int_equal(b.tx_batches - a.tx_batches, 1);
  for (int i = 0; i < NBATCH; i++) {
    udccp_abort(m.c[i]);
  }
  udccp_endpoint_del(m.p.cep);
  udccp_endpoint_del(m.p.sep);
}

/* Sends (non-blocking) as much as the client's queue takes. */
static void fill(pair *p, int n) {
  static uint8_t d[1000];
  for (int i = 0; i < n; i++) {
    if (udccp_send(p->c, d, sizeof(d), 0) < 0) {
      break;
    }
  }
}

static int server_has_data(pair *p) {
  return udccp_sock_peek_len(p->s) >= 0;
}

static int client_dead(pair *p) { return udccp_sock_error(p->c) != 0; }

static int server_has_three(pair *p) {
  udccp_conn_info ci;
  udccp_sock_get_info(p->s, &ci);
  return ci.data_pkts_recv >= 3;
}

/* The zero-copy receive (udccp_recv_peek, udccp_recv_consume): the bytes
 * and lengths of udccp_recv(), in order; a peek neither copies nor
 * removes (twice the same datagram), a consume removes exactly one; an
 * empty queue is UDCCP_ERR_AGAIN for both; the peer's close ends a peek
 * as it ends udccp_recv(). */
static void test_io_recv_peek_consume(void **state) {
  (void)state;
  pair p;
  open_pair(&p, NULL);
  uint8_t d[3][300];
  for (int i = 0; i < 3; i++) {
    memset(d[i], 'a' + i, sizeof(d[i]));
    assert_int_equal(udccp_send(p.c, d[i], 100 + 100 * (size_t)i, 1000),
                     100 + 100 * i);
  }
  assert_true(drive(&p, 1, 1, server_has_three, 3000));
  const uint8_t *b = NULL, *b2 = NULL;
  udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
  assert_int_equal(udccp_recv_peek(p.s, NULL, NULL, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_recv_peek(p.s, &b, &ri, 0), 100);
  assert_int_equal(udccp_recv_peek(p.s, &b2, NULL, 0), 100);
  assert_ptr_equal(b, b2); /* in place, not removed */
  assert_int_equal(ri.lost_before, 0);
  assert_memory_equal(b, d[0], 100);
  assert_int_equal(udccp_recv_consume(p.s), 0);
  assert_int_equal(udccp_recv_peek(p.s, &b, NULL, 1000), 200);
  assert_memory_equal(b, d[1], 200);
  assert_int_equal(udccp_recv_consume(p.s), 0);
  uint8_t buf[400]; /* the copying read sees the same stream */
  assert_int_equal(udccp_recv(p.s, buf, sizeof(buf), 1000), 300);
  assert_memory_equal(buf, d[2], 300);
  assert_int_equal(udccp_recv_peek(p.s, &b, NULL, 0), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_recv_consume(p.s), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_close(p.c, 0), UDCCP_ERR_TIMEOUT);
  p.c = NULL;
  assert_int_equal(udccp_endpoint_process(p.cep), 0); /* sends the Close */
  assert_int_equal(udccp_recv_peek(p.s, &b, NULL, 3000), UDCCP_ERR_CLOSED);
  udccp_close(p.s, 0);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

/* RFC 4340 §5.6, §8.5: a Reset ends the connection at once.  The server
 * aborts in the middle of a transfer: the client's recv and send return
 * UDCCP_ERR_RESET (udccp.h), and the Reset's code is Aborted. */
static void test_rfc4340_5_6_peer_reset_mid_transfer(void **state) {
  (void)state;
  pair p;
  open_pair(&p, NULL);
  fill(&p, 20);
  assert_true(drive(&p, 1, 1, server_has_data, 3000));
  fill(&p, 20);
  udccp_abort(p.s); /* Reset "Aborted" goes out now */
  p.s = NULL;
  assert_true(drive(&p, 1, 1, client_dead, 3000));
  uint8_t buf[64];
  assert_int_equal(udccp_recv(p.c, buf, sizeof(buf), 0), UDCCP_ERR_RESET);
  assert_int_equal(udccp_recv(p.c, buf, sizeof(buf), 1000), UDCCP_ERR_RESET);
  assert_int_equal(udccp_send(p.c, "x", 1, 1000), UDCCP_ERR_RESET);
  assert_int_equal(udccp_sock_error(p.c), UDCCP_ERR_RESET);
  assert_int_equal(udccp_sock_reset_code(p.c), UDCCP_RESET_ABORTED);
  /* §8.5 step 9: a Reset received tears down into TIMEWAIT */
  assert_int_equal(udccp_sock_state(p.c), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_close(p.c, 1000), UDCCP_ERR_RESET);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

/* The same while the client blocks in udccp_recv(): the Reset wakes it. */
static void *abort_later(void *arg) {
  pair *p = arg;
  struct timespec ts = {0, 200 * 1000 * 1000};
  nanosleep(&ts, NULL);
  udccp_abort(p->s);
  return NULL;
}

static void test_rfc4340_5_6_reset_wakes_blocked_recv(void **state) {
  (void)state;
  pair p;
  open_pair(&p, NULL);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, abort_later, &p), 0);
  uint8_t buf[64];
  uint64_t t0 = ms_now();
  udccp_ssize n = udccp_recv(p.c, buf, sizeof(buf), 5000);
  uint64_t dt = ms_now() - t0;
  assert_int_equal(pthread_join(th, NULL), 0);
  printf("blocked recv returned %zd after %llu ms\n", n,
         (unsigned long long)dt);
  assert_int_equal(n, UDCCP_ERR_RESET);
  assert_true(dt < 2000);
  udccp_abort(p.c);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

/* ------------------------------------------------- peer falls silent */

/* The peer stops answering (its endpoint is no longer run: every packet
 * to it is lost).  With idle_timeout set, the connection resets itself
 * (Aborted) within that time plus a timer tick, and both a blocked send
 * and a blocked recv return UDCCP_ERR_TIMEOUT. */
static void silent_peer(int blocked_in_send) {
  udccp_settings st;
  udccp_settings_default(&st);
  st.idle_timeout = 500 * UDCCP_NS_PER_MS;
  pair p;
  open_pair(&p, &st);
  fill(&p, 5);
  assert_true(drive(&p, 1, 1, server_has_data, 3000));
  /* From here the server is gone. */
  uint64_t t0 = ms_now();
  udccp_ssize r = 0;
  if (blocked_in_send) {
    static uint8_t d[1000];
    for (int i = 0; i < 100000 && r >= 0; i++) {
      r = udccp_send(p.c, d, sizeof(d), 5000);
    }
  } else {
    uint8_t buf[64];
    r = udccp_recv(p.c, buf, sizeof(buf), 5000);
  }
  uint64_t dt = ms_now() - t0;
  printf("silent peer, blocked in %s: %zd (%s) after %llu ms\n",
         blocked_in_send ? "send" : "recv", r,
         udccp_io_strerror((int)r), (unsigned long long)dt);
  assert_int_equal(r, UDCCP_ERR_TIMEOUT);
  assert_true(dt >= 300 && dt < 2500);
  assert_int_equal(udccp_sock_error(p.c), UDCCP_ERR_TIMEOUT);
  assert_int_equal(udccp_close(p.c, 1000), UDCCP_ERR_TIMEOUT);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

static void test_io_idle_timeout_silent_peer_recv(void **state) {
  (void)state;
  silent_peer(0);
}

static void test_io_idle_timeout_silent_peer_send(void **state) {
  (void)state;
  silent_peer(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_1_5_partopen_data_to_reading_server),
      cmocka_unit_test(test_rfc4340_8_1_5_partopen_data_with_init_cookie),
      cmocka_unit_test(test_rfc4340_8_1_5_send_in_partopen_without_waiting),
      cmocka_unit_test(test_rfc4340_5_6_peer_reset_mid_transfer),
      cmocka_unit_test(test_rfc4340_5_6_reset_wakes_blocked_recv),
      cmocka_unit_test(test_io_idle_timeout_silent_peer_recv),
      cmocka_unit_test(test_io_idle_timeout_silent_peer_send),
      cmocka_unit_test(test_io_connect_accept_close_share_one_batch),
      cmocka_unit_test(test_io_recv_peek_consume),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
