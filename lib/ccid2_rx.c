/* SPDX-License-Identifier: MIT */
/*
 * CCID 2 receiver half (RFC 4341 §6, RFC 4340 §11.3): decides when the
 * HC-Receiver owes an acknowledgement.
 *
 * RFC 4341 §6.1   one DCCP-Ack per Ack Ratio data packets;
 * RFC 4340 §11.3  an ack at once when a sequence gap may mean loss, when a
 *                 late packet fills one, or on a CE mark (at most once per
 *                 RTT); a delayed-ack timer bounds the wait;
 *                 piggybacked acks (DataAck) count as acks;
 * RFC 4340 §11.1  no acks of the sender's pure acks.
 */
#include <string.h>

#include "ccid2.h"
#include "seq.h"

typedef struct ccid2_rx {
  udccp_ccid_env *env;
  int started;
  int data_seen;
  uint64_t high;           /* newest sequence number received */
  uint32_t data_since_ack; /* data packets not yet acknowledged */
  udccp_tstamp ack_due;    /* the delayed-ack deadline: the first data
                              packet not yet acknowledged + ACK_DELAY
                              (saturated); NEVER when none waits */
  int ce_acked;
  udccp_tstamp last_ce_ack;
} ccid2_rx;

_Static_assert(sizeof(ccid2_rx) <= UDCCP_CCID2_RX_STATE_SIZE, "rx state size");

static ccid2_rx *rx_of(udccp_ccid_state *st) {
  return (ccid2_rx *)(void *)st->bytes;
}
static const ccid2_rx *crx_of(const udccp_ccid_state *st) {
  return (const ccid2_rx *)(const void *)st->bytes;
}

static udccp_tstamp since(udccp_tstamp now, udccp_tstamp then) {
  return now > then ? now - then : 0;
}

static udccp_tstamp add_ts(udccp_tstamp a, udccp_tstamp b) {
  return a > UDCCP_TSTAMP_NEVER - b ? UDCCP_TSTAMP_NEVER : a + b;
}

int udccp_ccid2_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                        udccp_tstamp ts) {
  ccid2_rx *rx = rx_of(st);
  (void)ts;
  memset(rx, 0, sizeof(*rx));
  rx->env = env;
  rx->ack_due = UDCCP_TSTAMP_NEVER;
  return 0;
}

void udccp_ccid2_rx_exit(udccp_ccid_state *st) { (void)st; }

static void rx_acked(ccid2_rx *rx) {
  rx->data_since_ack = 0;
  rx->ack_due = UDCCP_TSTAMP_NEVER;
}

/* RFC 4341 §6, RFC 4340 §11.3. */
int udccp_ccid2_rx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts) {
  ccid2_rx *rx = rx_of(st);
  uint64_t s = pkt->seq & UDCCP_SEQ_MASK;
  int is_data = pkt->type == UDCCP_PKT_DATA || pkt->type == UDCCP_PKT_DATAACK ||
                pkt->payload_len > 0;
  int now = 0;
  uint32_t r = rx->env->ack_ratio;
  if (!rx->started) {
    rx->started = 1;
    rx->high = s;
  } else {
    int64_t d = udccp_seq_sub(s, rx->high);
    if (d == 0) {
      return 0; /* duplicate */
    }
    /* A gap may be a lost data packet, a late packet fills one: either
     * way the sender should hear at once (§11.3). */
    if ((d > 1 || d < 0) && (is_data || rx->data_seen)) {
      now = 1;
    }
    if (d > 0) {
      rx->high = s;
    }
  }
  if (is_data) {
    udccp_tstamp rtt = rx->env->srtt ? rx->env->srtt : UDCCP_CCID2_DEFAULT_RTT;
    rx->data_seen = 1;
    if (rx->data_since_ack == 0) {
      /* the deadline computed once, not at every expiry query */
      rx->ack_due = add_ts(ts, UDCCP_CCID2_ACK_DELAY);
    }
    rx->data_since_ack++;
    /* §11.3: CE marks at once, but no more than once per RTT. */
    if (pkt->ecn == 3 && (!rx->ce_acked || since(ts, rx->last_ce_ack) >= rtt)) {
      rx->ce_acked = 1;
      rx->last_ce_ack = ts;
      now = 1;
    }
    /* Ack Ratio 0: the half-connection does not use one (§11.3); acking
     * every data packet is then the safe choice. */
    if (rx->data_since_ack >= (r ? r : 1)) {
      now = 1;
    }
  }
  if (now) {
    rx_acked(rx);
  }
  return now;
}

int udccp_ccid2_rx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                              uint8_t type, udccp_tstamp ts) {
  (void)ob;
  (void)ts;
  /* Piggybacked acks count as acks for the Ack Ratio pace (§11.3). */
  if (type == UDCCP_PKT_ACK || type == UDCCP_PKT_DATAACK) {
    rx_acked(rx_of(st));
  }
  return 0;
}

udccp_tstamp udccp_ccid2_rx_get_expiry(const udccp_ccid_state *st) {
  const ccid2_rx *rx = crx_of(st);
  return rx->ack_due;
}

int udccp_ccid2_rx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts) {
  ccid2_rx *rx = rx_of(st);
  if (rx->ack_due == UDCCP_TSTAMP_NEVER || ts < rx->ack_due) {
    return 0;
  }
  rx_acked(rx);
  return 1;
}

void udccp_ccid2_rx_get_info(const udccp_ccid_state *st,
                             udccp_conn_info *info) {
  (void)st;
  (void)info; /* the receiver half has nothing of its own to report */
}
