/* SPDX-License-Identifier: MIT */
/*
 * CCID 4 (RFC 5622): the CCID 3 halves of lib/ccid3.c run with TFRC-SP
 * parameters (RFC 4828); see ccid4.h for what that changes.
 */
#include "ccid4.h"

const udccp_tfrc_ccid_params udccp_ccid4_params = {4, 1};

static int ccid4_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_tfrc_ccid_tx_init(st, env, ts, &udccp_ccid4_params);
}

static int ccid4_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_tfrc_ccid_rx_init(st, env, ts, &udccp_ccid4_params);
}

const udccp_ccid_ops udccp_ccid4_ops = {
    .id = 4,
    .name = "TFRC-SP (CCID 4)",
    .deps = udccp_tfrc_ccid_deps, /* RFC 5622 §4, §8: as CCID 3 */
    .n_deps = UDCCP_TFRC_CCID_N_DEPS,
    .tx_size = UDCCP_TFRC_CCID_TX_STATE_SIZE,
    .rx_size = UDCCP_TFRC_CCID_RX_STATE_SIZE,
    .tx_init = ccid4_tx_init,
    .tx_exit = udccp_tfrc_ccid_tx_exit,
    .tx_next_send = udccp_tfrc_ccid_tx_next_send,
    .tx_ccval = udccp_tfrc_ccid_tx_ccval,
    .tx_on_sent = udccp_tfrc_ccid_tx_on_sent,
    .tx_on_pkt = udccp_tfrc_ccid_tx_on_pkt,
    .tx_write_opts = udccp_tfrc_ccid_tx_write_opts, /* RFC 6323 */
    .tx_get_expiry = udccp_tfrc_ccid_tx_get_expiry,
    .tx_on_expiry = udccp_tfrc_ccid_tx_on_expiry,
    .tx_get_info = udccp_tfrc_ccid_tx_get_info,
    .flags = UDCCP_CCID_F_TX_ACKS_ONLY, /* RFC 5622 §5: CCID 3's feedback */
    .tx_data = udccp_tfrc_ccid_tx_data,
    .tx_cwnd = NULL, /* rate-based */
    .trim = udccp_tfrc_ccid_trim,
    .rx_init = ccid4_rx_init,
    .rx_exit = udccp_tfrc_ccid_rx_exit,
    .rx_on_pkt = udccp_tfrc_ccid_rx_on_pkt,
    .rx_write_opts = udccp_tfrc_ccid_rx_write_opts,
    .rx_get_expiry = udccp_tfrc_ccid_rx_get_expiry,
    .rx_on_expiry = udccp_tfrc_ccid_rx_on_expiry,
    .rx_get_info = udccp_tfrc_ccid_rx_get_info,
};
