/* SPDX-License-Identifier: MIT */
/*
 * The event interface (io/events.c, udccp_endpoint_events()): only the
 * sockets with something to report are returned, each with its user
 * pointer; connected, writable, closed and reset come as they happen.
 * Over loopback DCCP-UDP, both endpoints driven from this one thread.
 */
#define _GNU_SOURCE
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
#define NSOCK 1000
#define NREADY 10

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static udccp_endpoint *server_ep(uint16_t *port) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.backlog = 2 * NSOCK;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  *port = udccp_endpoint_local_port(ep);
  uint32_t code = SVC;
  assert_int_equal(udccp_listen(ep, DPORT, &code, 1), 0);
  return ep;
}

static udccp_endpoint *client_ep(uint16_t server_udp_port) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.remote_udp_port = server_udp_port;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

/* Gives the other endpoint a turn while one waits for events. */
static int events_pumping(udccp_endpoint *ep, udccp_endpoint *other,
                          udccp_event *ev, size_t max) {
  (void)udccp_endpoint_run(other, 0);
  return udccp_endpoint_events(ep, ev, max, 2);
}

/* 1,000 connections, data on 10: the server's events name exactly those
 * 10, readable, with their user pointers; the 990 idle ones never appear,
 * and once drained the 10 do not either. */
static void test_events_only_ready_sockets_of_1000(void **state) {
  (void)state;
  uint16_t port;
  udccp_endpoint *sep = server_ep(&port);
  udccp_endpoint *cep = client_ep(port);
  static udccp_sock *cs[NSOCK], *ss[NSOCK];
  static int ids[NSOCK];
  static udccp_event ev[64];
  for (int i = 0; i < NSOCK; i++) {
    assert_int_equal(udccp_connect(cep, &cs[i], "127.0.0.1", DPORT, SVC, 0, 0),
                     0);
  }
  /* Accept all of them through the events: ACCEPTABLE, then accept. */
  int accepted = 0, connected = 0;
  uint64_t end = ms_now() + 20000;
  while ((accepted < NSOCK || connected < NSOCK) && ms_now() < end) {
    int n = events_pumping(sep, cep, ev, 64);
    assert_true(n >= 0);
    for (int k = 0; k < n; k++) {
      assert_int_equal(ev[k].events, UDCCP_EV_ACCEPTABLE); /* nothing else */
      assert_null(ev[k].sock);
      udccp_sock *s;
      while (accepted < NSOCK && udccp_accept(sep, &s, 0) == 0) {
        ids[accepted] = accepted;
        udccp_sock_set_user(s, &ids[accepted]);
        ss[accepted++] = s;
      }
    }
    n = events_pumping(cep, sep, ev, 64);
    for (int k = 0; k < n; k++) {
      assert_int_equal(ev[k].events, UDCCP_EV_CONNECTED);
      connected++;
    }
  }
  assert_int_equal(accepted, NSOCK);
  assert_int_equal(connected, NSOCK);
  /* Quiet: no event at all. */
  for (int r = 0; r < 20; r++) {
    assert_int_equal(events_pumping(sep, cep, ev, 64), 0);
  }
  /* Data on 10 client sockets: which server sockets are those?  Ask
   * their paths (the client's local port is the server's remote one). */
  int want[NREADY], seen[NREADY] = {0};
  for (int j = 0; j < NREADY; j++) {
    int i = (j * 97 + 13) % NSOCK;
    assert_int_equal(udccp_send(cs[i], "x", 1, 1000), 1);
    want[j] = -1;
    for (int k = 0; k < NSOCK; k++) {
      if (udccp_sock_get_path(ss[k])->remote_port ==
          udccp_sock_get_path(cs[i])->local_port) {
        want[j] = k;
      }
    }
    assert_true(want[j] >= 0);
  }
  /* Level-triggered but fair: with room for 3 events a call and nothing
   * drained, every one of the 10 still comes up within a few calls
   * (sockets not yet reported go before those reported again). */
  int fair[NREADY] = {0}, nfair = 0, calls = 0;
  end = ms_now() + 10000;
  while (nfair < NREADY && ms_now() < end) {
    int n = events_pumping(sep, cep, ev, 3);
    calls += n > 0;
    for (int k = 0; k < n; k++) {
      int id = *(int *)ev[k].user;
      for (int j = 0; j < NREADY; j++) {
        if (want[j] == id && !fair[j]) {
          fair[j] = 1;
          nfair++;
        }
      }
    }
  }
  printf("all %d readable sockets reported in %d calls of 3 events, none "
         "drained\n", nfair, calls);
  assert_int_equal(nfair, NREADY);
  int got = 0;
  end = ms_now() + 10000;
  while (got < NREADY && ms_now() < end) {
    int n = events_pumping(sep, cep, ev, 64);
    for (int k = 0; k < n; k++) {
      int id = *(int *)ev[k].user;
      assert_ptr_equal(ev[k].sock, ss[id]);
      assert_int_equal(ev[k].events, UDCCP_EV_READABLE);
      int hit = 0;
      for (int j = 0; j < NREADY; j++) {
        if (want[j] == id) {
          hit = 1;
          seen[j]++;
        }
      }
      assert_true(hit); /* never an idle socket */
      uint8_t b[16];
      assert_int_equal(udccp_recv(ev[k].sock, b, sizeof(b), 0), 1);
      got++;
    }
  }
  assert_int_equal(got, NREADY);
  for (int j = 0; j < NREADY; j++) {
    assert_int_equal(seen[j], 1); /* drained: reported once */
  }
  for (int r = 0; r < 10; r++) {
    assert_int_equal(events_pumping(sep, cep, ev, 64), 0);
  }
  for (int i = 0; i < NSOCK; i++) {
    udccp_abort(cs[i]);
    udccp_abort(ss[i]);
  }
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

/* Waits on ep's events (pumping other) for one event with bits of sock;
 * returns its bits, 0 after timeout. */
static uint32_t wait_event_ms(udccp_endpoint *ep, udccp_endpoint *other,
                              udccp_sock *sock, uint32_t bits,
                              udccp_event *out, uint64_t ms) {
  udccp_event ev[16];
  uint64_t end = ms_now() + ms;
  while (ms_now() < end) {
    int n = events_pumping(ep, other, ev, 16);
    for (int k = 0; k < n; k++) {
      if (ev[k].sock == sock && (ev[k].events & bits)) {
        *out = ev[k];
        return ev[k].events;
      }
    }
  }
  return 0;
}

static uint32_t wait_event(udccp_endpoint *ep, udccp_endpoint *other,
                           udccp_sock *sock, uint32_t bits, udccp_event *out) {
  return wait_event_ms(ep, other, sock, bits, out, 8000);
}

/* Opens c -> s without blocking on one side only (both are pumped). */
static void connect_pair(udccp_endpoint *cep, udccp_endpoint *sep,
                         udccp_sock **c, udccp_sock **s) {
  udccp_event e;
  assert_int_equal(udccp_connect(cep, c, "127.0.0.1", DPORT, SVC, 0, 0), 0);
  assert_true(wait_event(cep, sep, *c, UDCCP_EV_CONNECTED, &e) &
              UDCCP_EV_CONNECTED);
  uint64_t end = ms_now() + 5000;
  while (udccp_accept(sep, s, 0) != 0) {
    assert_true(ms_now() < end);
    (void)udccp_endpoint_run(cep, 2);
  }
}

/* Connected, writable after a full queue, closed by the peer, reset by
 * the peer, refused: each reported with the socket's user pointer and
 * the reason. */
static void test_events_connected_writable_closed_reset(void **state) {
  (void)state;
  uint16_t port;
  udccp_endpoint *sep = server_ep(&port);
  udccp_endpoint *cep = client_ep(port);
  udccp_event e;
  int tag = 42;
  udccp_sock *c = NULL, *s = NULL;
  assert_int_equal(udccp_connect(cep, &c, "127.0.0.1", DPORT, SVC, 0, 0), 0);
  udccp_sock_set_user(c, &tag);
  assert_ptr_equal(udccp_sock_get_user(c), &tag);
  assert_true(wait_event(cep, sep, c, UDCCP_EV_CONNECTED, &e) &
              UDCCP_EV_CONNECTED);
  assert_ptr_equal(e.user, &tag);
  assert_int_equal(udccp_accept(sep, &s, 2000), 0);
  /* Fill the send queue without running the loop: AGAIN, then WRITABLE
   * once packets left. */
  static uint8_t big[1000];
  int again = 0;
  for (int i = 0; i < 100000 && !again; i++) {
    udccp_ssize r = udccp_send_more(c, big, sizeof(big), 0);
    if (r == UDCCP_ERR_AGAIN) {
      again = 1;
    } else {
      assert_int_equal(r, (udccp_ssize)sizeof(big));
    }
  }
  assert_true(again);
  assert_true(wait_event(cep, sep, c, UDCCP_EV_WRITABLE, &e) &
              UDCCP_EV_WRITABLE);
  assert_true(udccp_send(c, big, 10, 0) == 10);
  /* The server closes: the client hears CLOSED. */
  udccp_event se[64];
  while (events_pumping(sep, cep, se, 64) > 0) {
    uint8_t b[2000];
    while (udccp_recv(s, b, sizeof(b), 0) >= 0) {
    }
  }
  assert_int_equal(udccp_shutdown(s), 0);
  uint32_t bits = wait_event(cep, sep, c, UDCCP_EV_CLOSED | UDCCP_EV_RESET,
                             &e);
  assert_int_equal(bits & (UDCCP_EV_CLOSED | UDCCP_EV_RESET), UDCCP_EV_CLOSED);
  assert_int_equal(e.error, UDCCP_ERR_CLOSED);
  udccp_abort(c);
  udccp_abort(s);

  /* The server aborts: RESET, error UDCCP_ERR_RESET, code Aborted. */
  connect_pair(cep, sep, &c, &s);
  udccp_abort_code(s, UDCCP_RESET_ABORTED);
  bits = wait_event(cep, sep, c, UDCCP_EV_CLOSED | UDCCP_EV_RESET, &e);
  assert_int_equal(bits & (UDCCP_EV_CLOSED | UDCCP_EV_RESET), UDCCP_EV_RESET);
  assert_int_equal(e.error, UDCCP_ERR_RESET);
  assert_int_equal(e.reset_code, UDCCP_RESET_ABORTED);
  /* reported once */
  assert_int_equal(wait_event_ms(cep, sep, c, UDCCP_EV_RESET, &e, 300), 0);
  udccp_abort(c);

  /* Nobody on that DCCP port: a non-blocking connect ends in RESET with
   * UDCCP_ERR_REFUSED, never in CONNECTED. */
  assert_int_equal(udccp_connect(cep, &c, "127.0.0.1", DPORT + 1, SVC, 0, 0),
                   0);
  bits = wait_event(cep, sep, c, UDCCP_EV_CONNECTED | UDCCP_EV_RESET, &e);
  assert_int_equal(bits, UDCCP_EV_RESET);
  assert_int_equal(e.error, UDCCP_ERR_REFUSED);
  udccp_abort(c);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

static void test_events_bad_arguments(void **state) {
  (void)state;
  udccp_event ev[1];
  uint16_t port;
  udccp_endpoint *sep = server_ep(&port);
  assert_int_equal(udccp_endpoint_events(NULL, ev, 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_endpoint_events(sep, NULL, 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_endpoint_events(sep, ev, 0, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_endpoint_events(sep, ev, 1, 0), 0); /* nothing */
  assert_null(udccp_sock_get_user(NULL));
  udccp_sock_set_user(NULL, ev); /* ignored */
  udccp_endpoint_del(sep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_events_bad_arguments),
      cmocka_unit_test(test_events_connected_writable_closed_reset),
      cmocka_unit_test(test_events_only_ready_sockets_of_1000),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
