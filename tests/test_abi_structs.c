/* SPDX-License-Identifier: MIT */
/*
 * The public structs keep their sizes (doc/abi.md, issue 14): a member
 * added later takes one of the struct's reserved words instead of growing
 * it, so a program built against an older header passes and receives
 * structs of the size the library expects.  Each struct's size is pinned
 * here (x86-64 / LP64), and the library writes its reserved words as 0
 * (the _default() functions and every getter), so that a later member's
 * 0 means "as before".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <udccp/udccp.h>

/* The sizes of this version (LP64). */
#define SETTINGS_SIZE 176
#define ENDPOINT_CONFIG_SIZE 128
#define LISTENER_SETTINGS_SIZE 80
#define CONN_INFO_SIZE 496
#define ENDPOINT_STATS_SIZE 192
#define LISTENER_STATS_SIZE 72
#define MEMPOOL_STATS_SIZE 64
#define EVENT_SIZE 48
#define SEND_OPTS_SIZE 24
#define RECV_INFO_SIZE 24
#define MP_SUBFLOW_INFO_SIZE 168
#define MP_INFO_SIZE 1440
#define CCID_OPS_SIZE 240 /* grows only into reserved[] (doc/abi.md) */

#define RESERVED_ZERO(st)                                                      \
  do {                                                                         \
    for (size_t i_ = 0; i_ < sizeof((st).reserved) / 8; i_++) {                \
      assert_int_equal((st).reserved[i_], 0);                                  \
    }                                                                          \
  } while (0)

static void test_sizes_pinned(void **state) {
  (void)state;
  if (sizeof(void *) != 8) {
    skip(); /* the pinned values are LP64's */
  }
  /* Changing one of these is an ABI break (a new SONAME, doc/abi.md):
   * take a reserved word instead. */
  assert_int_equal(sizeof(udccp_settings), SETTINGS_SIZE);
  assert_int_equal(sizeof(udccp_endpoint_config), ENDPOINT_CONFIG_SIZE);
  assert_int_equal(sizeof(udccp_listener_settings), LISTENER_SETTINGS_SIZE);
  assert_int_equal(sizeof(udccp_conn_info), CONN_INFO_SIZE);
  assert_int_equal(sizeof(udccp_ccid_ops), CCID_OPS_SIZE);
  assert_int_equal(sizeof(udccp_endpoint_stats), ENDPOINT_STATS_SIZE);
  assert_int_equal(sizeof(udccp_listener_stats), LISTENER_STATS_SIZE);
  assert_int_equal(sizeof(udccp_mempool_stats), MEMPOOL_STATS_SIZE);
  assert_int_equal(sizeof(udccp_event), EVENT_SIZE);
  assert_int_equal(sizeof(udccp_send_opts), SEND_OPTS_SIZE);
  assert_int_equal(sizeof(udccp_recv_info), RECV_INFO_SIZE);
  assert_int_equal(sizeof(udccp_mp_subflow_info), MP_SUBFLOW_INFO_SIZE);
  assert_int_equal(sizeof(udccp_mp_info), MP_INFO_SIZE);
}

static void test_library_writes_reserved_as_zero(void **state) {
  (void)state;
  udccp_settings s;
  memset(&s, 0xab, sizeof(s));
  udccp_settings_default(&s);
  RESERVED_ZERO(s);
  udccp_endpoint_config c;
  memset(&c, 0xab, sizeof(c));
  udccp_endpoint_config_default(&c);
  RESERVED_ZERO(c);
  /* a connection's info */
  uint8_t seed[16] = {1};
  udccp_csprng rng;
  udccp_csprng_seed(&rng, seed);
  s.rand = udccp_csprng_fill;
  s.rand_user_data = &rng;
  udccp_path path;
  memset(&path, 0, sizeof(path));
  path.family = UDCCP_AF_INET;
  path.local_port = 1000;
  path.remote_port = 2000;
  udccp_conn *conn = NULL;
  assert_int_equal(udccp_conn_client_new(&conn, &s, &path, 42, 1), 0);
  udccp_conn_info ci;
  memset(&ci, 0xab, sizeof(ci));
  udccp_conn_get_info(conn, &ci);
  RESERVED_ZERO(ci);
  udccp_conn_del(conn);
  udccp_mempool *pool = NULL;
  assert_int_equal(udccp_mempool_new(&pool, NULL, 0), 0);
  udccp_mempool_stats ms;
  memset(&ms, 0xab, sizeof(ms));
  udccp_mempool_get_stats(pool, &ms);
  RESERVED_ZERO(ms);
  udccp_mempool_del(pool);
  /* an endpoint's stats and events */
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0),
                   0);
  uint32_t code = 5;
  assert_int_equal(udccp_listen(ep, 9, &code, 1), 0);
  udccp_endpoint_stats es;
  memset(&es, 0xab, sizeof(es));
  udccp_endpoint_get_stats(ep, &es);
  RESERVED_ZERO(es);
  udccp_endpoint_config cc;
  udccp_endpoint_config_default(&cc);
  cc.local_host = "127.0.0.1";
  cc.remote_udp_port = udccp_endpoint_local_port(ep);
  udccp_endpoint *cep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&cep, &cc), 0);
  udccp_sock *cs = NULL;
  assert_int_equal(udccp_connect(cep, &cs, "127.0.0.1", 9, code, 0, 0), 0);
  udccp_event ev[4];
  memset(ev, 0xab, sizeof(ev));
  int n = 0;
  for (int i = 0; i < 200 && n == 0; i++) {
    (void)udccp_endpoint_run(cep, 1);
    n = udccp_endpoint_events(ep, ev, 4, 1);
  }
  assert_true(n > 0);
  RESERVED_ZERO(ev[0]);
  udccp_abort(cs);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(ep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes_pinned),
      cmocka_unit_test(test_library_writes_reserved_as_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
