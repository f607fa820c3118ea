/* SPDX-License-Identifier: MIT */
/*
 * The keepalive through the io/ runtime (lib/conn_timer.c does the work;
 * the endpoint's timers must run it): over loopback DCCP-UDP, clients
 * complete their handshakes and then vanish without a packet (their
 * endpoints deleted) -- the attack of issue 12, in small -- and the
 * server's connections are reaped within keepalive_idle + probes x
 * interval; a client that is alive but sends nothing answers the probes
 * and stays.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#define SVC 78
#define DPORT 6002
#define NCLI 4

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static udccp_endpoint *make_ep(uint16_t remote_udp_port,
                               const udccp_settings *st) {
  udccp_endpoint_config cfg;
  udccp_endpoint *ep = NULL;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.remote_udp_port = remote_udp_port;
  cfg.settings = st;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

/* Runs the endpoints given (NULL entries skipped) for about 1 ms. */
static void run_eps(udccp_endpoint **eps, int n) {
  struct pollfd fds[NCLI + 2];
  nfds_t k = 0;
  int i;
  for (i = 0; i < n; i++) {
    if (eps[i] != NULL) {
      assert_int_equal(udccp_endpoint_process(eps[i]), 0);
      fds[k].fd = udccp_endpoint_fd(eps[i]);
      fds[k++].events = POLLIN;
    }
  }
  (void)poll(fds, k, 1);
}

/* Server keepalive 300 ms, 100 ms apart, 2 probes: bound 500 ms. */
static void test_io_keepalive_reaps_silent_handshakes(void **state) {
  udccp_settings sst, cst;
  udccp_endpoint *eps[NCLI + 2];
  udccp_sock *cs[NCLI + 1], *ss[NCLI + 1];
  uint64_t t0, dead_at[NCLI + 1], end;
  uint16_t port;
  uint32_t code = SVC;
  int i, n_acc = 0, n_dead = 0;
  udccp_conn_info info;
  (void)state;
  udccp_settings_default(&sst);
  assert_int_equal(sst.keepalive_idle, 60 * UDCCP_NS_PER_S); /* on */
  sst.keepalive_idle = 300 * UDCCP_NS_PER_MS;
  sst.keepalive_interval = 100 * UDCCP_NS_PER_MS;
  sst.keepalive_probes = 2;
  udccp_settings_default(&cst);
  cst.keepalive_idle = 0; /* the clients never probe: silence is theirs */
  memset(eps, 0, sizeof(eps));
  memset(ss, 0, sizeof(ss));
  eps[0] = make_ep(0, &sst);
  port = udccp_endpoint_local_port(eps[0]);
  assert_int_equal(udccp_listen(eps[0], DPORT, &code, 1), 0);
  /* NCLI clients that will vanish, and one (the last) that stays */
  for (i = 0; i <= NCLI; i++) {
    eps[i + 1] = make_ep(port, &cst);
    assert_int_equal(udccp_connect(eps[i + 1], &cs[i], "127.0.0.1", DPORT,
                                   SVC, 0, 0),
                     0);
  }
  end = ms_now() + 5000;
  while (n_acc <= NCLI && ms_now() < end) {
    run_eps(eps, NCLI + 2);
    if (udccp_accept(eps[0], &ss[n_acc], 0) == 0) {
      n_acc++;
    }
  }
  assert_int_equal(n_acc, NCLI + 1);
  /* let every client reach OPEN (its Ack of the Response arrives) */
  end = ms_now() + 300;
  while (ms_now() < end) {
    run_eps(eps, NCLI + 2);
  }
  for (i = 0; i <= NCLI; i++) {
    assert_int_equal(udccp_sock_state(cs[i]), UDCCP_STATE_OPEN);
  }
  /* the first NCLI clients vanish: no Close, no Reset, nothing */
  for (i = 0; i < NCLI; i++) {
    udccp_endpoint_del(eps[i + 1]);
    eps[i + 1] = NULL;
  }
  t0 = ms_now();
  memset(dead_at, 0, sizeof(dead_at));
  end = t0 + 3000;
  while (n_dead < NCLI && ms_now() < end) {
    run_eps(eps, NCLI + 2);
    for (i = 0; i <= NCLI; i++) {
      if (dead_at[i] == 0 && udccp_sock_error(ss[i]) != 0) {
        dead_at[i] = ms_now() - t0;
        n_dead++;
      }
    }
  }
  /* a little longer: the live one must stay */
  end = ms_now() + 700;
  while (ms_now() < end) {
    run_eps(eps, NCLI + 2);
  }
  /* which server sock belongs to which client does not matter: NCLI of
   * the NCLI + 1 end, by timeout */
  n_dead = 0;
  for (i = 0; i <= NCLI; i++) {
    int err = udccp_sock_error(ss[i]);
    printf("server conn %d: %s after %llu ms\n", i,
           err ? udccp_io_strerror(err) : "alive",
           (unsigned long long)dead_at[i]);
    if (err != 0) {
      assert_int_equal(err, UDCCP_ERR_TIMEOUT);
      assert_int_equal(udccp_sock_reset_code(ss[i]), UDCCP_RESET_ABORTED);
      /* bound 500 ms after the last packet (before t0), plus timer and
       * scheduling slack on a loaded machine */
      assert_true(dead_at[i] < 2500);
      n_dead++;
    } else {
      /* the live client answered the probes */
      assert_int_equal(udccp_sock_state(ss[i]), UDCCP_STATE_OPEN);
      udccp_sock_get_info(ss[i], &info);
      assert_true(info.keepalive_probes >= 2);
      assert_int_equal(info.keepalive_timeouts, 0);
    }
  }
  assert_int_equal(n_dead, NCLI);
  assert_int_equal(udccp_sock_state(cs[NCLI]), UDCCP_STATE_OPEN);
  for (i = 0; i <= NCLI; i++) {
    udccp_abort(ss[i]);
  }
  udccp_abort(cs[NCLI]);
  udccp_endpoint_del(eps[NCLI + 1]);
  udccp_endpoint_del(eps[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_keepalive_reaps_silent_handshakes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
