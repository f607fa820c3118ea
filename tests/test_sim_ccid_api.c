/* SPDX-License-Identifier: MIT */
/*
 * The public CCID interface (include/udccp/ccid.h, issue 17): the example
 * CCID of examples/ccid_rate.c -- written against the public header only
 * -- registers at run time under an experimental number (RFC 4340 §10:
 * 248..255), is negotiated through the CCID feature like a built-in one
 * and carries data through the simulator at its own rate; the registry
 * refuses what it must, with the documented codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccid.h"
#include "conn.h"
#include "sim.h"
#include "simrun.h"

#define CCID_RATE_NO_MAIN
#include "../examples/ccid_rate.c"

static void fake_rand_for_test(uint8_t *buf, size_t len, void *user) {
  (void)user;
  memset(buf, 0x11, len);
}

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

static sim_result g_res;

static int teardown(void **state) {
  (void)state;
  sim_result_free(&g_res);
  (void)udccp_ccid_unregister(CCID_RATE_ID);
  return 0;
}

/* RFC 4340 §10: 0..4 are reserved or assigned, 5..247 reserved; only
 * 248..255 register without asking; a taken number is refused. */
static void test_register_refuses_out_of_range_and_taken(void **state) {
  udccp_ccid_ops broken = ccid_rate_ops;
  (void)state;
  assert_int_equal(udccp_ccid_register(NULL), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 247, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 5, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 2,
                                          UDCCP_CCID_REG_RESERVED),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 0,
                                          UDCCP_CCID_REG_RESERVED),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 250, 0x80),
                   UDCCP_ERR_INVALID_ARGUMENT);
  broken.tx_on_pkt = NULL;
  assert_int_equal(udccp_ccid_register(&broken), UDCCP_ERR_INVALID_ARGUMENT);
  broken = ccid_rate_ops;
  broken.rx_on_expiry = NULL; /* a timer without its handler */
  assert_int_equal(udccp_ccid_register(&broken), UDCCP_ERR_INVALID_ARGUMENT);
  broken = ccid_rate_ops;
  broken.tx_size = sizeof(udccp_ccid_state) + 1;
  assert_int_equal(udccp_ccid_register(&broken), UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(udccp_ccid_lookup(CCID_RATE_ID));

  assert_int_equal(udccp_ccid_register(&ccid_rate_ops), 0);
  assert_ptr_equal(udccp_ccid_lookup(CCID_RATE_ID), &ccid_rate_ops);
  assert_int_equal(udccp_ccid_register(&ccid_rate_ops),
                   UDCCP_ERR_INVALID_STATE);
  /* the built-in ones are in the same registry, and stay */
  assert_non_null(udccp_ccid_lookup(2));
  assert_int_equal(udccp_ccid_lookup(2)->id, 2);
  assert_int_equal(udccp_ccid_unregister(2), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_unregister(CCID_RATE_ID), 0);
  assert_int_equal(udccp_ccid_unregister(CCID_RATE_ID),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(udccp_ccid_lookup(CCID_RATE_ID));
  /* a reserved number only when asked for (the MP-DCCP fork's 7) */
  assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, 7,
                                          UDCCP_CCID_REG_RESERVED), 0);
  assert_ptr_equal(udccp_ccid_lookup(7), &ccid_rate_ops);
  assert_int_equal(udccp_ccid_unregister(7), 0);

  assert_int_equal(udccp_ccid_parse("2"), 2);
  assert_int_equal(udccp_ccid_parse("ccid250"), 250);
  assert_int_equal(udccp_ccid_parse("1"), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_parse("256"), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_parse("x"), UDCCP_ERR_INVALID_ARGUMENT);
}

typedef struct extra_list {
  uint8_t id[256];
  unsigned n;
} extra_list;

static void extra_collect(uint8_t id, void *user) {
  extra_list *l = user;
  l->id[l->n++] = id;
}

/* The server's list of run-time CCIDs (lib/feat.c ccid_prefs) is exactly
 * the numbers 5..255 whose slot is filled, in increasing order, as
 * registrations come and go (lib/ccid.c keeps them in a bitmap: issue 13). */
static void assert_extras_match_slots(void) {
  extra_list got, want;
  unsigned id, i;
  got.n = 0;
  want.n = 0;
  udccp_ccid_each_extra(extra_collect, &got);
  for (id = 5; id < 256; id++) {
    if (udccp_ccid_find((uint8_t)id) != NULL) {
      want.id[want.n++] = (uint8_t)id;
    }
  }
  assert_int_equal(got.n, want.n);
  for (i = 0; i < got.n; i++) {
    assert_int_equal(got.id[i], want.id[i]);
  }
}

static void test_rfc4340_10_server_lists_every_registered_ccid(void **state) {
  static const uint8_t ids[] = {5, 63, 64, 100, 191, 192, 200, 255};
  unsigned i;
  (void)state;
  assert_extras_match_slots(); /* CUBIC and BBR, registered by default */
  for (i = 0; i < sizeof(ids); i++) {
    if (udccp_ccid_find(ids[i]) != NULL) {
      continue; /* a default (255 is free unless BBR or CUBIC moved) */
    }
    assert_int_equal(udccp_ccid_register_as(&ccid_rate_ops, ids[i],
                                            UDCCP_CCID_REG_RESERVED),
                     0);
    assert_extras_match_slots();
  }
  for (i = 0; i < sizeof(ids); i += 2) {
    assert_int_equal(udccp_ccid_unregister(ids[i]), 0);
    assert_extras_match_slots();
  }
  for (i = 0; i < sizeof(ids); i++) {
    (void)udccp_ccid_unregister(ids[i]);
  }
  assert_extras_match_slots();
}

/* A connection asking for an unregistered number is refused at creation,
 * as for any CCID the library lacks. */
static void test_unregistered_ccid_is_refused(void **state) {
  udccp_settings st;
  udccp_conn *c = NULL;
  udccp_path p;
  (void)state;
  udccp_settings_default(&st);
  st.rand = fake_rand_for_test;
  st.ccid = CCID_RATE_ID;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  assert_int_equal(udccp_conn_client_new(&c, &st, &p, 42, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(c);
}

/* udccp_conn_info.qdelay: srtt - min_rtt of the sender half's estimate
 * when the CCID gives none (issue 17). */
static void test_info_reports_queueing_delay(void **state) {
  udccp_settings st;
  udccp_conn *c = NULL;
  udccp_path p;
  udccp_conn_info info;
  (void)state;
  udccp_settings_default(&st);
  st.rand = fake_rand_for_test;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  assert_int_equal(udccp_conn_client_new(&c, &st, &p, 42, 0), 0);
  udccp_conn_get_info(c, &info);
  assert_int_equal(info.qdelay, 0); /* no RTT yet */
  c->env.srtt = 130 * MS;
  c->env.min_rtt = 100 * MS;
  udccp_conn_get_info(c, &info);
  assert_int_equal(info.qdelay, 30 * MS);
  c->env.srtt = 90 * MS; /* below the minimum (a fresh sample): none */
  udccp_conn_get_info(c, &info);
  assert_int_equal(info.qdelay, 0);
  udccp_conn_del(c);
}

/* Registered under 250, the example CCID is negotiated by both ends and
 * sends at its fixed 4 Mbit/s of payload on a 10 Mbit/s link: a CCID 2
 * connection would fill the link, so the rate shows whose CCID ran. */
static void test_registered_ccid_carries_data_in_sim(void **state) {
  const sim_flow_result *r;
  double want = CCID_RATE_BPS;
  (void)state;
  assert_int_equal(udccp_ccid_register(&ccid_rate_ops), 0);
  udccp_test_sim_run("ccid250", 10000000, 10 * MS, 10 * S, 0, &g_res);
  assert_int_equal(g_res.n_flows, 1);
  r = &g_res.flows[0];
  printf("ccid250 (example, fixed %.1f Mbit/s): goodput %.3f Mbit/s "
         "(need within 5%%)\n", want / 1e6, r->goodput_bps / 1e6);
  assert_int_equal(r->ccid, CCID_RATE_ID);
  assert_string_equal(r->err, "");
  assert_true(r->established);
  assert_true(r->closed_ok);
  assert_true(r->goodput_bps > 0.95 * want);
  assert_true(r->goodput_bps < 1.05 * want);
  assert_true(r->loss_rate < 0.001);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_register_refuses_out_of_range_and_taken,
                                teardown),
      cmocka_unit_test_teardown(test_unregistered_ccid_is_refused, teardown),
      cmocka_unit_test_teardown(
          test_rfc4340_10_server_lists_every_registered_ccid, teardown),
      cmocka_unit_test_teardown(test_info_reports_queueing_delay, teardown),
      cmocka_unit_test_teardown(test_registered_ccid_carries_data_in_sim,
                                teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
