/* SPDX-License-Identifier: MIT */
#include "simrun.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "sim_parse.h"

sim_result udccp_test_res;

int udccp_test_sim_free(void **state) {
  (void)state;
  sim_result_free(&udccp_test_res);
  return 0;
}

void udccp_test_sim_run(const char *flows, uint64_t rate, udccp_tstamp delay,
                        udccp_tstamp duration, double loss, sim_result *res) {
  sim_config cfg;
  char err[256];
  size_t i;
  sim_config_default(&cfg);
  assert_int_equal(sim_parse_flows(flows, &cfg, err, sizeof(err)), 0);
  cfg.rate_bps = rate;
  cfg.delay = delay;
  cfg.duration = duration;
  cfg.loss = loss;
  if (sim_run(&cfg, res) != 0) {
    fail_msg("sim_run: %s", res->err);
  }
  printf("%s over %.0f Mbit/s, %.0f ms, %.0f s, loss %.2f:\n", flows,
         (double)rate / 1e6, (double)delay / 1e6, (double)duration / 1e9, loss);
  for (i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    printf("  flow %zu %s: goodput %.3f Mbit/s, loss %.4f, rtt %.1f ms, "
           "sent %llu, delivered %llu, cov %.3f%s%s\n", i, r->kind,
           r->goodput_bps / 1e6, r->loss_rate, r->rtt_ms,
           (unsigned long long)r->sent_pkts,
           (unsigned long long)r->delivered_pkts, r->rate_cov,
           r->err[0] ? ", ERROR: " : "", r->err);
    if (r->ccid != 0) {
      printf("    established %s at %.3f s; close: %s (%s)\n",
             r->established ? "yes" : "NO", r->established_s,
             r->closed_ok ? "clean" : "NOT CLEAN", r->close_desc);
    }
  }
}
