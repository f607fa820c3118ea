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


/* A spy: CCID 3's ops table (from the registry, as an application gets it)
 * with every op the connection chooses between wrapped, so that the
 * connection cannot tell it from a CCID of its own by the functions'
 * addresses (issue 17: CCID 2/3/4 use the public interface, no private
 * shortcuts).  Registered under 251 with CCID 3's flags and under 252
 * without them. */
#define SPY_ID 251
#define SPY_NOFLAG_ID 252
static const udccp_ccid_ops *spy_base;
static struct {
  unsigned long on_pkt_noack; /* tx_on_pkt calls for a packet without ackno */
  unsigned long on_pkt;
  unsigned long write_opts_data; /* tx_write_opts(.., DATA, ..) */
  unsigned long tx_data;
  unsigned long cwnd;
} spy_n;

static int spy_tx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                         udccp_tstamp ts) {
  spy_n.on_pkt++;
  spy_n.on_pkt_noack += !pkt->has_ack;
  return spy_base->tx_on_pkt(st, pkt, ts);
}

static int spy_tx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                             uint8_t type, udccp_tstamp ts) {
  spy_n.write_opts_data += type == UDCCP_PKT_DATA;
  return spy_base->tx_write_opts(st, ob, type, ts);
}

static uint8_t spy_tx_data(udccp_ccid_state *st, udccp_optbuf *ob,
                           udccp_tstamp ts) {
  spy_n.tx_data++;
  return spy_base->tx_data(st, ob, ts);
}

static uint8_t spy_tx_ccval(udccp_ccid_state *st, udccp_tstamp ts) {
  return spy_base->tx_ccval(st, ts);
}

static uint32_t spy_tx_cwnd(const udccp_ccid_state *st) {
  spy_n.cwnd++;
  return spy_base->tx_cwnd(st);
}

static udccp_ccid_ops spy_ops(const udccp_ccid_ops *base, uint8_t id) {
  udccp_ccid_ops o = *base;
  spy_base = base;
  o.id = id;
  o.tx_on_pkt = spy_tx_on_pkt;
  o.tx_write_opts = base->tx_write_opts ? spy_tx_write_opts : NULL;
  o.tx_data = base->tx_data ? spy_tx_data : NULL;
  o.tx_ccval = base->tx_ccval ? spy_tx_ccval : NULL;
  o.tx_cwnd = base->tx_cwnd ? spy_tx_cwnd : NULL;
  return o;
}

static int spy_teardown(void **state) {
  (void)state;
  sim_result_free(&g_res);
  (void)udccp_ccid_unregister(SPY_ID);
  (void)udccp_ccid_unregister(SPY_NOFLAG_ID);
  return 0;
}

/* What the connection shows the sender half follows the table's flags
 * and ops, whoever wrote it: with UDCCP_CCID_F_TX_ACKS_ONLY (CCID 3's,
 * RFC 4342 §8) no packet without an ackno reaches tx_on_pkt, without it
 * every Data packet the peer sends does; a table with tx_data gets every
 * DCCP-Data packet's options and CCVal from it and tx_write_opts is never
 * asked for DCCP-Data.  Both runs carry CCID 3's rate. */
static void test_ccid_ops_flags_and_data_op_from_table(void **state) {
  static udccp_ccid_ops with, without;
  const udccp_ccid_ops *c3 = udccp_ccid_lookup(3);
  double gp[2];
  (void)state;
  assert_non_null(c3);
  assert_true(c3->flags & UDCCP_CCID_F_TX_ACKS_ONLY);
  assert_non_null(c3->tx_data);
  with = spy_ops(c3, SPY_ID);
  without = spy_ops(c3, SPY_NOFLAG_ID);
  without.flags = 0;
  assert_int_equal(udccp_ccid_register(&with), 0);
  assert_int_equal(udccp_ccid_register(&without), 0);

  memset(&spy_n, 0, sizeof(spy_n));
  udccp_test_sim_run("ccid251", 10000000, 10 * MS, 5 * S, 0, &g_res);
  assert_int_equal(g_res.n_flows, 1);
  assert_string_equal(g_res.flows[0].err, "");
  assert_int_equal(g_res.flows[0].ccid, SPY_ID);
  gp[0] = g_res.flows[0].goodput_bps;
  printf("flagged: tx_on_pkt %lu (%lu without ackno), tx_data %lu, "
         "tx_write_opts(Data) %lu, %.2f Mbit/s\n", spy_n.on_pkt,
         spy_n.on_pkt_noack, spy_n.tx_data, spy_n.write_opts_data,
         gp[0] / 1e6);
  assert_true(spy_n.on_pkt > 10);
  assert_int_equal(spy_n.on_pkt_noack, 0);
  assert_true(spy_n.tx_data > 1000); /* one per data packet */
  assert_int_equal(spy_n.write_opts_data, 0);
  sim_result_free(&g_res);

  memset(&spy_n, 0, sizeof(spy_n));
  udccp_test_sim_run("ccid252", 10000000, 10 * MS, 5 * S, 0, &g_res);
  assert_int_equal(g_res.n_flows, 1);
  assert_string_equal(g_res.flows[0].err, "");
  gp[1] = g_res.flows[0].goodput_bps;
  printf("unflagged: tx_on_pkt %lu (%lu without ackno), %.2f Mbit/s\n",
         spy_n.on_pkt, spy_n.on_pkt_noack, gp[1] / 1e6);
  assert_true(spy_n.on_pkt_noack > 1000); /* the receiver's sender half */
  assert_true(gp[0] > 8e6);
  assert_true(gp[1] > 0.95 * gp[0] && gp[1] < 1.05 * gp[0]);
}

/* The Sequence Window follows a windowed CCID through its tx_cwnd op: a
 * copy of CCID 2's table under 251 is asked on every acknowledgement. */
static void test_ccid_tx_cwnd_op_is_read(void **state) {
  static udccp_ccid_ops spy;
  const udccp_ccid_ops *c2 = udccp_ccid_lookup(2);
  (void)state;
  assert_non_null(c2);
  assert_non_null(c2->tx_cwnd);
  spy = spy_ops(c2, SPY_ID);
  assert_int_equal(udccp_ccid_register(&spy), 0);
  memset(&spy_n, 0, sizeof(spy_n));
  udccp_test_sim_run("ccid251", 10000000, 10 * MS, 2 * S, 0, &g_res);
  assert_int_equal(g_res.n_flows, 1);
  assert_string_equal(g_res.flows[0].err, "");
  printf("tx_cwnd read %lu times, tx_on_pkt %lu\n", spy_n.cwnd, spy_n.on_pkt);
  assert_true(spy_n.cwnd > 100);
  assert_true(g_res.flows[0].goodput_bps > 8e6);
}

/* Unknown flag bits and the reserved slots: refused (room kept for later
 * members, doc/abi.md). */
static void test_register_refuses_unknown_flags_and_reserved(void **state) {
  udccp_ccid_ops broken = ccid_rate_ops;
  (void)state;
  broken.flags = 0x2;
  assert_int_equal(udccp_ccid_register(&broken), UDCCP_ERR_INVALID_ARGUMENT);
  broken = ccid_rate_ops;
  broken.reserved[2] = (void (*)(void))spy_teardown;
  assert_int_equal(udccp_ccid_register(&broken), UDCCP_ERR_INVALID_ARGUMENT);
  broken = ccid_rate_ops;
  broken.flags = UDCCP_CCID_F_TX_ACKS_ONLY;
  assert_int_equal(udccp_ccid_register(&broken), 0);
  assert_int_equal(udccp_ccid_unregister(broken.id), 0);
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
      cmocka_unit_test_teardown(test_ccid_ops_flags_and_data_op_from_table,
                                spy_teardown),
      cmocka_unit_test_teardown(test_ccid_tx_cwnd_op_is_read, spy_teardown),
      cmocka_unit_test_teardown(
          test_register_refuses_unknown_flags_and_reserved, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
