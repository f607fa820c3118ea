/* SPDX-License-Identifier: MIT */
/*
 * ccid_rate: a CCID written outside lib/, against the public interface
 * only (<udccp/ccid.h>, doc/ccid-api.md), registered at run time under an
 * experimental number (RFC 4340 §10: 248..255).
 *
 * The CCID is deliberately simple -- it shows the parts, it is not a
 * congestion control for the Internet:
 *   - sender half: sends data packets at a fixed rate (CCID_RATE_BPS),
 *     paced by tx_next_send; reads the receiver's report option and
 *     counts the data packets the receiver has not seen as lost;
 *   - receiver half: asks for an acknowledgement every CCID_RATE_ACK_EVERY
 *     data packets, or CCID_RATE_ACK_DELAY after the first unacknowledged
 *     one (its timer), and puts on each acknowledgement its own option 128
 *     (a CCID option the HC-Receiver sends, RFC 4340 §10.3): the number of
 *     data packets received so far, 4 bytes, network order.
 *
 *   ccid_rate [COUNT]
 *
 * registers the CCID under 250 (after checking that 247 is refused), then
 * runs a client and a server connection in memory, with a virtual clock
 * and no sockets, the client sending COUNT datagrams (default 200) with
 * CCID 250 negotiated in both directions; exits 0 if all arrived.
 * tests/test_sim_ccid_api.c runs the same CCID in the simulator (it
 * includes this file with CCID_RATE_NO_MAIN).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

#define CCID_RATE_ID 250
#define CCID_RATE_BPS 4000000u               /* bit/s of payload */
#define CCID_RATE_ACK_EVERY 8u
#define CCID_RATE_ACK_DELAY (20 * UDCCP_NS_PER_MS)
#define CCID_RATE_OPT_RECEIVED 128           /* receiver -> sender */

typedef struct rate_tx {
  udccp_ccid_env *env;
  udccp_tstamp next;      /* earliest time of the next data packet */
  uint64_t data_sent;
  uint64_t reported;      /* the receiver's latest count */
  uint64_t lost;
} rate_tx;

typedef struct rate_rx {
  uint64_t data_recv;
  uint32_t unacked;       /* data packets since the last ack */
  udccp_tstamp ack_due;   /* UDCCP_TSTAMP_NEVER: nothing to acknowledge */
} rate_rx;

/* --- sender half */

static int rate_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                        udccp_tstamp ts) {
  rate_tx *tx = (rate_tx *)(void *)st->bytes;
  memset(tx, 0, sizeof(*tx));
  tx->env = env;
  tx->next = ts;
  return 0;
}

static udccp_tstamp rate_tx_next_send(udccp_ccid_state *st, udccp_tstamp ts) {
  rate_tx *tx = (rate_tx *)(void *)st->bytes;
  return tx->next > ts ? tx->next : ts;
}

static void rate_tx_on_sent(udccp_ccid_state *st, uint64_t seq, int is_data,
                            size_t len, udccp_tstamp ts) {
  rate_tx *tx = (rate_tx *)(void *)st->bytes;
  size_t bytes = len > 0 ? len : tx->env->mps;
  (void)seq;
  if (!is_data) {
    return;
  }
  tx->data_sent++;
  /* the next packet leaves bytes x 8 / rate later; a sender that was idle
   * does not bank the time (no burst after idleness) */
  if (tx->next < ts) {
    tx->next = ts;
  }
  tx->next += (udccp_tstamp)bytes * 8u * UDCCP_NS_PER_S / CCID_RATE_BPS;
}

static int rate_tx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts) {
  rate_tx *tx = (rate_tx *)(void *)st->bytes;
  size_t i, n = udccp_ccid_pkt_n_opts(pkt);
  (void)ts;
  for (i = 0; i < n; i++) {
    uint8_t type;
    const uint8_t *v;
    size_t len;
    int mandatory;
    if (udccp_ccid_pkt_opt(pkt, i, &type, &v, &len, &mandatory) != 0) {
      continue;
    }
    if (type == CCID_RATE_OPT_RECEIVED && len == 4) {
      uint64_t r = (uint64_t)v[0] << 24 | (uint64_t)v[1] << 16 |
                   (uint64_t)v[2] << 8 | v[3];
      if (r > tx->reported) {
        tx->reported = r;
      }
    } else if (mandatory) {
      return UDCCP_ERR_MANDATORY; /* RFC 4340 §5.8.2 */
    }
  }
  /* Everything sent up to the report but one ack's worth is settled. */
  if (tx->data_sent > tx->reported + 2 * CCID_RATE_ACK_EVERY) {
    uint64_t l = tx->data_sent - tx->reported - 2 * CCID_RATE_ACK_EVERY;
    if (l > tx->lost) {
      tx->lost = l;
    }
  }
  tx->env->pkts_lost = tx->lost;
  return 0;
}

static void rate_tx_get_info(const udccp_ccid_state *st,
                             udccp_conn_info *info) {
  const rate_tx *tx = (const rate_tx *)(const void *)st->bytes;
  info->x = CCID_RATE_BPS / 8;
  info->pkts_lost = tx->lost;
}

/* --- receiver half */

static int rate_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                        udccp_tstamp ts) {
  rate_rx *rx = (rate_rx *)(void *)st->bytes;
  (void)env;
  (void)ts;
  memset(rx, 0, sizeof(*rx));
  rx->ack_due = UDCCP_TSTAMP_NEVER;
  return 0;
}

static int rate_rx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts) {
  rate_rx *rx = (rate_rx *)(void *)st->bytes;
  if (pkt->type != UDCCP_PKT_DATA && pkt->type != UDCCP_PKT_DATAACK) {
    return 0;
  }
  rx->data_recv++;
  if (rx->unacked++ == 0) {
    rx->ack_due = ts + CCID_RATE_ACK_DELAY;
  }
  return rx->unacked >= CCID_RATE_ACK_EVERY;
}

static int rate_rx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                              uint8_t type, udccp_tstamp ts) {
  rate_rx *rx = (rate_rx *)(void *)st->bytes;
  uint8_t v[4];
  (void)type;
  (void)ts;
  v[0] = (uint8_t)(rx->data_recv >> 24);
  v[1] = (uint8_t)(rx->data_recv >> 16);
  v[2] = (uint8_t)(rx->data_recv >> 8);
  v[3] = (uint8_t)rx->data_recv;
  rx->unacked = 0; /* an acknowledgement goes out */
  rx->ack_due = UDCCP_TSTAMP_NEVER;
  return udccp_ccid_opt_put(ob, CCID_RATE_OPT_RECEIVED, 0, v, sizeof(v));
}

static udccp_tstamp rate_rx_get_expiry(const udccp_ccid_state *st) {
  return ((const rate_rx *)(const void *)st->bytes)->ack_due;
}

static int rate_rx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts) {
  rate_rx *rx = (rate_rx *)(void *)st->bytes;
  if (ts < rx->ack_due) {
    return 0;
  }
  rx->ack_due = UDCCP_TSTAMP_NEVER; /* once; the ack's options reset it */
  return rx->unacked > 0;
}

static const udccp_ccid_ops ccid_rate_ops = {
    .id = CCID_RATE_ID,
    .name = "fixed rate (example)",
    .tx_size = sizeof(rate_tx),
    .rx_size = sizeof(rate_rx),
    .tx_init = rate_tx_init,
    .tx_next_send = rate_tx_next_send,
    .tx_on_sent = rate_tx_on_sent,
    .tx_on_pkt = rate_tx_on_pkt,
    .tx_get_info = rate_tx_get_info,
    .rx_init = rate_rx_init,
    .rx_on_pkt = rate_rx_on_pkt,
    .rx_write_opts = rate_rx_write_opts,
    .rx_get_expiry = rate_rx_get_expiry,
    .rx_on_expiry = rate_rx_on_expiry,
};

#ifndef CCID_RATE_NO_MAIN

/* Fixed "random" bytes: a demo on a virtual clock need not be secret. */
static void fake_rand(uint8_t *buf, size_t len, void *user) {
  (void)user;
  memset(buf, 0x5a, len);
}

static udccp_path make_path(int server) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 127;
  p.local_addr[3] = p.remote_addr[3] = 1;
  p.local_port = server ? 5001 : 50000;
  p.remote_port = server ? 50000 : 5001;
  return p;
}

/* COUNT: 1..1000000 (atoi() read "abc" as 0: "0 of 0 arrived", exit 0). */
static int count_arg(int argc, char **argv, int dflt, int *count) {
  if (argc > 2) {
    return -1;
  }
  if (argc < 2) {
    *count = dflt;
    return 0;
  }
  char *end = NULL;
  long v = strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || v < 1 || v > 1000000) {
    return -1;
  }
  *count = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int count, sent = 0, got = 0;
  if (count_arg(argc, argv, 200, &count) != 0) {
    fprintf(stderr, "usage: ccid_rate [COUNT] (datagrams to send, "
                    "1..1000000, default 200)\n");
    return 2;
  }
  uint32_t service = 42;
  udccp_settings st;
  udccp_listener_settings ls;
  udccp_listener *lis = NULL;
  udccp_conn *cli = NULL, *srv = NULL;
  udccp_path cpath = make_path(0), spath = make_path(1);
  udccp_tstamp now = UDCCP_NS_PER_S, end = now + 60 * UDCCP_NS_PER_S;
  udccp_conn_info ci;
  int rc;

  /* 247 is reserved (RFC 4340 §10), not experimental: refused */
  rc = udccp_ccid_register_as(&ccid_rate_ops, 247, 0);
  if (rc != UDCCP_ERR_INVALID_ARGUMENT) {
    fprintf(stderr, "ccid_rate: 247 was not refused (%d)\n", rc);
    return 1;
  }
  if ((rc = udccp_ccid_register(&ccid_rate_ops)) != 0) {
    fprintf(stderr, "ccid_rate: register: %s\n", udccp_strerror(rc));
    return 1;
  }
  udccp_settings_default(&st);
  st.rand = fake_rand;
  st.ccid = CCID_RATE_ID;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &service;
  ls.n_service_codes = 1;
  if (udccp_listener_new(&lis, &st, &ls, now) != 0 ||
      udccp_conn_client_new(&cli, &st, &cpath, service, now) != 0) {
    fprintf(stderr, "ccid_rate: cannot create the connections\n");
    return 1;
  }
  /* Each step: both ends write what they have, the other reads it (no
   * loss, no delay), then the clock moves to the earliest timer. */
  while (now < end && got < count) {
    uint8_t pkt[2048], out[2048];
    udccp_ssize n;
    udccp_tstamp next;
    while ((n = udccp_conn_write_pkt(cli, pkt, sizeof(pkt), NULL, now)) > 0) {
      if (srv != NULL) {
        (void)udccp_conn_read_pkt(srv, pkt, (size_t)n, 0, now);
      } else {
        n = udccp_listener_read_pkt(lis, &spath, pkt, (size_t)n, now, &srv,
                                    out, sizeof(out));
        if (srv == NULL && n > 0) {
          (void)udccp_conn_read_pkt(cli, out, (size_t)n, 0, now);
        }
      }
    }
    while (srv != NULL &&
           (n = udccp_conn_write_pkt(srv, pkt, sizeof(pkt), NULL, now)) > 0) {
      (void)udccp_conn_read_pkt(cli, pkt, (size_t)n, 0, now);
    }
    if (srv != NULL) {
      char buf[2048];
      udccp_listener_conn_accepted(lis, srv);
      while (udccp_conn_read_datagram(srv, buf, sizeof(buf)) >= 0) {
        got++;
      }
    }
    while (sent < count && udccp_conn_get_state(cli) >= UDCCP_STATE_PARTOPEN &&
           udccp_conn_queue_datagram(cli, "0123456789abcdef", 16, 0, now) == 0) {
      sent++;
    }
    next = udccp_conn_get_expiry(cli);
    if (srv != NULL && udccp_conn_get_expiry(srv) < next) {
      next = udccp_conn_get_expiry(srv);
    }
    now = next > now && next != UDCCP_TSTAMP_NEVER ? next : now + UDCCP_NS_PER_MS;
    (void)udccp_conn_handle_expiry(cli, now);
    if (srv != NULL) {
      (void)udccp_conn_handle_expiry(srv, now);
    }
  }
  udccp_conn_get_info(cli, &ci);
  printf("ccid_rate: CCID %u/%u negotiated, %d of %d datagrams arrived in "
         "%.3f s (virtual)\n", ci.tx_ccid, ci.rx_ccid, got, count,
         (double)(now - UDCCP_NS_PER_S) / 1e9);
  rc = got == count && ci.tx_ccid == CCID_RATE_ID ? 0 : 1;
  udccp_conn_del(cli);
  if (srv != NULL) {
    udccp_conn_del(srv);
  }
  udccp_listener_del(lis);
  (void)udccp_ccid_unregister(CCID_RATE_ID);
  return rc;
}

#endif /* CCID_RATE_NO_MAIN */
