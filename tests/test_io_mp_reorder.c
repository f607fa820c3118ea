/* SPDX-License-Identifier: MIT */
/*
 * The receiver's reordering window of io/mp.c (RFC 9897 §3.2.5 MP_SEQ,
 * §3.11 and Appendix A: reordering at the receiver) on loopback DCCP-UDP:
 * the client's second subflow (from 127.0.0.2) goes through a relay in
 * this test that delays it by ONE_WAY_MS each way, the first one is
 * relayed at once.  With the round-robin scheduler the receiver must hold
 * every datagram of the fast path while a slow one is on its way -- more
 * than the 512 datagrams the window used to be fixed at.  A window too
 * small gives the slow path's numbers up, and their datagrams are then
 * dropped as late (rx_late_dropped) or released out of order.  The other
 * half: the window's memory follows what is held (nothing before the
 * first datagram, all given back once idle; lib/mp_reorder.h).
 *
 * Everything runs in one thread: both endpoints, the relay, the app.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#define SVC 43
#define DPORT 7100
#define LEN 1000
#define ONE_WAY_MS 100  /* the slow path's delay, each way */
#define PACE_PER_MS 10  /* datagrams the app offers per millisecond */
#define SEND_MS 1500    /* how long it offers them */
#define OLD_WINDOW 512  /* the window io/mp.c used to have */
#define RING 8192       /* delayed packets in flight, both ways */

static uint64_t us_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

typedef struct delayed {
  uint64_t due_us;
  int to_client;          /* 1: front -> client B; 0: back B -> server */
  uint16_t len;
  uint8_t buf[1600];
} delayed;

typedef struct relay {
  int front;              /* 127.0.0.1:rport, what the client sends to */
  int back[2];            /* 127.0.0.1 / 127.0.0.2 -> the server */
  struct sockaddr_in client[2], server;
  int have_client[2];
  delayed *ring;
  size_t head, n;
  uint64_t dropped, relayed;
} relay;

static int udp_bound(const char *ip, uint16_t port) {
  struct sockaddr_in a;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int big = 4 << 20;
  assert_true(fd >= 0);
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
  return fd;
}

static uint16_t port_of(int fd) {
  struct sockaddr_in a;
  socklen_t l = sizeof(a);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
  return ntohs(a.sin_port);
}

static void relay_init(relay *r, uint16_t server_port) {
  memset(r, 0, sizeof(*r));
  r->front = udp_bound("127.0.0.1", 0);
  r->back[0] = udp_bound("127.0.0.1", 0);
  r->back[1] = udp_bound("127.0.0.2", 0);
  r->server.sin_family = AF_INET;
  r->server.sin_port = htons(server_port);
  r->server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  r->ring = calloc(RING, sizeof(*r->ring));
  assert_non_null(r->ring);
}

static void relay_free(relay *r) {
  close(r->front);
  close(r->back[0]);
  close(r->back[1]);
  free(r->ring);
}

static void delay_push(relay *r, const uint8_t *b, size_t len,
                       int to_client) {
  delayed *d;
  if (r->n == RING || len > sizeof(d->buf)) {
    r->dropped++;
    return;
  }
  d = &r->ring[(r->head + r->n++) % RING];
  d->due_us = us_now() + ONE_WAY_MS * 1000;
  d->to_client = to_client;
  d->len = (uint16_t)len;
  memcpy(d->buf, b, len);
}

/* Moves what arrived, and what is due; bounded per call. */
static void relay_run(relay *r) {
  uint8_t b[2048];
  for (int k = 0; k < 256; k++) {
    struct sockaddr_in from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(r->front, b, sizeof(b), 0,
                         (struct sockaddr *)&from, &fl);
    if (n < 0) {
      break;
    }
    /* the client's path is told by its source address */
    int i = (ntohl(from.sin_addr.s_addr) & 0xff) == 2;
    r->client[i] = from;
    r->have_client[i] = 1;
    if (i == 1) {
      delay_push(r, b, (size_t)n, 0);
    } else {
      (void)sendto(r->back[0], b, (size_t)n, 0,
                   (struct sockaddr *)&r->server, sizeof(r->server));
    }
    r->relayed++;
  }
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 256; k++) {
      ssize_t n = recv(r->back[i], b, sizeof(b), 0);
      if (n < 0) {
        break;
      }
      if (i == 1) {
        delay_push(r, b, (size_t)n, 1);
      } else if (r->have_client[0]) {
        (void)sendto(r->front, b, (size_t)n, 0,
                     (struct sockaddr *)&r->client[0],
                     sizeof(r->client[0]));
      }
      r->relayed++;
    }
  }
  uint64_t now = us_now();
  while (r->n > 0 && r->ring[r->head].due_us <= now) {
    delayed *d = &r->ring[r->head];
    if (d->to_client) {
      (void)sendto(r->front, d->buf, d->len, 0,
                   (struct sockaddr *)&r->client[1], sizeof(r->client[1]));
    } else {
      (void)sendto(r->back[1], d->buf, d->len, 0,
                   (struct sockaddr *)&r->server, sizeof(r->server));
    }
    r->head = (r->head + 1) % RING;
    r->n--;
  }
}

static udccp_endpoint *mk_ep(uint16_t remote_udp_port) {
  udccp_endpoint_config cfg;
  udccp_settings st;
  udccp_endpoint *ep = NULL;
  udccp_settings_default(&st);
  st.multipath = 1;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = NULL;
  cfg.remote_udp_port = remote_udp_port;
  cfg.settings = &st;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

static void drive_once(udccp_endpoint *a, udccp_endpoint *b, relay *r) {
  struct pollfd p[5];
  assert_int_equal(udccp_endpoint_process(a), 0);
  assert_int_equal(udccp_endpoint_process(b), 0);
  relay_run(r);
  p[0].fd = udccp_endpoint_fd(a);
  p[1].fd = udccp_endpoint_fd(b);
  p[2].fd = r->front;
  p[3].fd = r->back[0];
  p[4].fd = r->back[1];
  for (int i = 0; i < 5; i++) {
    p[i].events = POLLIN;
  }
  (void)poll(p, 5, 1);
}

/* RFC 9897 §3.2.5 / Appendix A: paths 200 ms of RTT apart at ~10,000
 * datagrams/s need a window of well over 512 datagrams; the window grows
 * to it, nothing is given up, and the application gets every datagram
 * in MP_SEQ order. */
static void test_io_mp_reorder_window_grows_3_2_5(void **state) {
  static const char *const local[2] = {"127.0.0.1", "127.0.0.2"};
  static const uint32_t svc = SVC;
  udccp_endpoint *sep, *cep;
  udccp_mpsock *c = NULL, *s = NULL;
  udccp_mp_info ci, si;
  relay rl;
  uint8_t buf[LEN];
  uint64_t sent = 0, got = 0, disorder = 0, t0, end;
  uint32_t last = 0;
  (void)state;
  sep = mk_ep(0);
  relay_init(&rl, udccp_endpoint_local_port(sep));
  assert_int_equal(udccp_listen(sep, DPORT, &svc, 1), 0);
  cep = mk_ep(port_of(rl.front));
  assert_int_equal(udccp_mpsock_connect(cep, &c, "127.0.0.1", DPORT, SVC, 2,
                                        local, 2, 0),
                   0);
  end = us_now() + 5000000;
  while (s == NULL && us_now() < end) {
    drive_once(cep, sep, &rl);
    if (udccp_mpsock_accept(sep, &s, 0) != 0) {
      s = NULL;
    }
  }
  assert_non_null(s);
  /* nothing held yet: the window has no memory */
  assert_int_equal(udccp_mpsock_get_info(s, &si), 0);
  assert_int_equal(si.rx_reorder_bytes, 0);
  end = us_now() + 5000000;
  do {
    drive_once(cep, sep, &rl);
    assert_int_equal(udccp_mpsock_get_info(c, &ci), 0);
  } while ((ci.n_subflows < 2 || ci.sub[1].state != UDCCP_STATE_OPEN) &&
           us_now() < end);
  assert_int_equal(ci.n_subflows, 2);
  assert_int_equal(udccp_mpsock_set_sched(c, UDCCP_MP_SCHED_RR), 0);
  memset(buf, 0x5a, sizeof(buf));
  t0 = us_now();
  end = t0 + 20000000;
  uint64_t last_rx = us_now();
  while (us_now() < end) {
    uint64_t el = (us_now() - t0) / 1000;
    uint64_t allow = el < SEND_MS ? el * PACE_PER_MS
                                  : (uint64_t)SEND_MS * PACE_PER_MS;
    while (sent < allow) {
      buf[0] = (uint8_t)(sent >> 24);
      buf[1] = (uint8_t)(sent >> 16);
      buf[2] = (uint8_t)(sent >> 8);
      buf[3] = (uint8_t)sent;
      if (udccp_mpsock_send(c, buf, sizeof(buf), 0) != (udccp_ssize)LEN) {
        break;
      }
      sent++;
    }
    drive_once(cep, sep, &rl);
    for (;;) {
      uint8_t in[2000];
      udccp_ssize n = udccp_mpsock_recv(s, in, sizeof(in), 0);
      uint32_t k;
      if (n < 0) {
        break;
      }
      assert_int_equal(n, LEN);
      k = (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 |
          (uint32_t)in[2] << 8 | in[3];
      disorder += got > 0 && k <= last;
      last = k;
      got++;
      last_rx = us_now();
    }
    /* all offered, and nothing came for a while: the transfer is over */
    if (el >= SEND_MS && sent == (uint64_t)SEND_MS * PACE_PER_MS &&
        us_now() - last_rx > 3 * ONE_WAY_MS * 1000) {
      break;
    }
  }
  assert_int_equal(udccp_mpsock_get_info(c, &ci), 0);
  assert_int_equal(udccp_mpsock_get_info(s, &si), 0);
  print_message("sent %llu (path 0: %llu, path 1 delayed %d ms each way: "
                "%llu) in %llu ms; got %llu, %llu out of order; window "
                "held up to %llu datagrams (the old window: %d), released "
                "late %llu, dropped late %llu, given up for a full window %llu; "
                "relay dropped %llu\n",
                (unsigned long long)sent,
                (unsigned long long)ci.sub[0].tx_dgrams, ONE_WAY_MS,
                (unsigned long long)ci.sub[1].tx_dgrams,
                (unsigned long long)((us_now() - t0) / 1000),
                (unsigned long long)got, (unsigned long long)disorder,
                (unsigned long long)si.rx_reorder_max_held, OLD_WINDOW,
                (unsigned long long)si.rx_released_late,
                (unsigned long long)si.rx_late_dropped,
                (unsigned long long)si.rx_reorder_window_full,
                (unsigned long long)rl.dropped);
  assert_true(ci.sub[1].tx_dgrams > 0);
  /* the scenario needs more than the old window, else it proves nothing */
  assert_true(si.rx_reorder_max_held > OLD_WINDOW);
  /* nothing given up for want of room; what the time bound gives up is
   * the few datagrams that waited for the slow path's CCID on top of its
   * delay (bounded here: most of the slow path's datagrams arrive) */
  assert_int_equal(si.rx_reorder_window_full, 0);
  assert_true(si.rx_late_dropped * 4 <= ci.sub[1].tx_dgrams);
  assert_int_equal(disorder, 0);
  assert_true(got + rl.dropped >= sent * 99 / 100);
  /* idle: the window's memory is given back (lib/mp_reorder.h: after
   * UDCCP_MP_REORDER_TRIM_AFTER oversized, twice at most) */
  uint64_t grown = si.rx_reorder_bytes;
  end = us_now() + 4000000;
  do {
    drive_once(cep, sep, &rl);
    assert_int_equal(udccp_mpsock_get_info(s, &si), 0);
  } while (si.rx_reorder_bytes > 0 && us_now() < end);
  print_message("reordering memory after the transfer %llu bytes, idle "
                "%llu bytes\n", (unsigned long long)grown,
                (unsigned long long)si.rx_reorder_bytes);
  assert_int_equal(si.rx_reorder_bytes, 0);
  (void)udccp_mpsock_close(c, 0);
  (void)udccp_mpsock_close(s, 0);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
  relay_free(&rl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_mp_reorder_window_grows_3_2_5),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
