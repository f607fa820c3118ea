/* SPDX-License-Identifier: MIT */
/*
 * udccp flows: a real client and server connection, driven only through
 * the public API (udccp.h) the way a socket runtime would drive them: feed
 * each arriving packet to read_pkt, pull packets with write_pkt until it
 * returns 0, sleep until get_expiry.  The client is a greedy application
 * (it keeps the send queue full); the server's application reads every
 * datagram.  The checksum mode is FULL, so the packets are native DCCP
 * over the simulated IPv4 path and the pcap shows them as they are.
 *
 * One kind object per CCID (SIM_UDCCP_KIND): adding CCID 3 or 4 is a line.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_inv.h"
#include "sim_rng.h"

#define UFLOW_SERVICE_CODE 5001u
/* Guards against a misbehaving engine, which would otherwise spin the
 * simulation at one instant: the flow fails with an error instead. */
#define UFLOW_MAX_BURST 65536  /* packets written at one instant */
#define UFLOW_MAX_STUCK 100000 /* wakeups with the expiry in the past */

enum { UT_START = 0, UT_CLIENT = 1, UT_SERVER = 2, UT_APP = 3, UT_READ = 4 };

typedef struct uflow_end {
  udccp_conn *conn;
  udccp_settings set;
  udccp_path path;
  sim_rng rng;
  int retired;          /* was created and is now freed */
  int error, reset;     /* udccp_conn_get_error/reset_code when retired */
  udccp_tstamp done_at;
  udccp_conn_info info; /* last info (kept after retirement) */
  sim_inv_end inv;      /* invariant state and counting allocator */
} uflow_end;

typedef struct uflow {
  uflow_end cli, srv;
  udccp_listener *lis;
  int started, closing, established;
  udccp_tstamp established_at;
  uint32_t dgram;       /* payload bytes per datagram, once known */
  uint64_t stuck;       /* wakeups where get_expiry stayed in the past */
  int broken;           /* the engine misbehaved: the flow was abandoned */
  uint64_t extra_server_conns;
  uint64_t srv_seq_invalid; /* server read_pkt returned UDCCP_ERR_SEQ */
  /* application-limited sender (f->app_rate_bps): bytes queued since
   * app_base */
  udccp_tstamp app_base;
  uint64_t app_queued;
  int app_based;
  /* slow reader (opts->read_rate_bps): bytes read since read_base */
  udccp_tstamp read_base;
  uint64_t read_bytes;
  int read_based;
  uint8_t tx_buf[SIM_PKT_CAP];
  uint8_t rx_buf[SIM_PKT_CAP];
} uflow;

static void uflow_rand(uint8_t *dest, size_t len, void *user_data) {
  sim_rng_bytes(user_data, dest, len);
}

/* Greedy sender: top the send queue up with datagrams. */
static void app_send(sim_flow *f, uflow *u, udccp_tstamp now) {
  udccp_conn *c = u->cli.conn;
  if (c == NULL || f->stopped || u->closing || f->err[0] != '\0') {
    return;
  }
  int st = udccp_conn_get_state(c);
  if (st != UDCCP_STATE_OPEN && st != UDCCP_STATE_PARTOPEN) {
    return;
  }
  if (u->dgram == 0) {
    uint32_t want = sim_flow_config(f)->pkt_size;
    u->dgram = want ? want : (uint32_t)udccp_conn_get_mps(c);
    f->packet_size = u->dgram;
  }
  if (!u->app_based) {
    u->app_based = 1; /* the application starts writing once open */
    u->app_base = now;
  }
  const sim_flow_opts *o = f->opts;
  if (o->pause_len > 0 && now >= o->pause_at &&
      now - o->pause_at < o->pause_len) {
    sim_flow_arm(f, UT_APP, o->pause_at + o->pause_len);
    return;
  }
  for (;;) {
    if (udccp_conn_get_send_space(c) == 0) {
      /* a blocked writer: the time it spends blocked is not credit */
      if (f->app_rate_bps > 0) {
        u->app_base = now;
        u->app_queued = 0;
      }
      break;
    }
    if (f->app_rate_bps > 0 &&
        sim_flow_app_bytes(f, u->app_base, now) < u->app_queued + u->dgram) {
      sim_flow_arm(f, UT_APP,
                   sim_flow_app_time(f, u->app_base,
                                     u->app_queued + u->dgram));
      break;
    }
    if (f->app_rate_bps > 0 && u->dgram >= sizeof(now)) {
      /* for the write-to-read delay: when the application had it */
      udccp_tstamp made = sim_flow_app_time(f, u->app_base,
                                            u->app_queued + u->dgram);
      memcpy(u->tx_buf, &made, sizeof(made));
    }
    int rv = udccp_conn_queue_datagram(c, u->tx_buf, u->dgram, 0, now);
    if (rv == 0) {
      u->app_queued += u->dgram;
      continue;
    }
    size_t mps = udccp_conn_get_mps(c);
    if (rv == UDCCP_ERR_MSGSIZE && sim_flow_config(f)->pkt_size == 0 &&
        mps > 0 && mps < u->dgram) {
      /* MPS-sized datagrams by default: follow the MPS when it shrinks */
      u->dgram = (uint32_t)mps;
      f->packet_size = u->dgram;
      continue;
    }
    if (rv == UDCCP_ERR_MSGSIZE) {
      snprintf(f->err, sizeof(f->err),
               "datagram of %u bytes exceeds the connection's MPS (%zu); "
               "use -l %zu or less",
               u->dgram, mps, mps);
    }
    break;
  }
}

static void app_recv(sim_flow *f, uflow *u, udccp_tstamp now) {
  udccp_ssize n;
  uint64_t rate = f->opts->read_rate_bps;
  if (rate > 0 && !u->read_based) {
    u->read_based = 1;
    u->read_base = now;
  }
  for (;;) {
    if (rate > 0) {
      /* a slow reader: reads only what its rate allows by now */
      udccp_ssize len = udccp_conn_peek_datagram_len(u->srv.conn);
      if (len < 0) {
        return;
      }
      double t = (double)(u->read_bytes + (uint64_t)len) * 8.0 /
                 (double)rate * 1e9;
      udccp_tstamp at = u->read_base + (udccp_tstamp)t;
      if (at > now) {
        sim_flow_arm(f, UT_READ, at);
        return;
      }
    }
    n = udccp_conn_read_datagram(u->srv.conn, u->rx_buf, sizeof(u->rx_buf));
    if (n < 0) {
      return;
    }
    u->read_bytes += (uint64_t)n;
    sim_flow_delivered(f, (size_t)n);
    if (f->app_rate_bps > 0 && (size_t)n >= sizeof(udccp_tstamp)) {
      udccp_tstamp written;
      memcpy(&written, u->rx_buf, sizeof(written));
      sim_flow_app_delay(f, written, now);
    }
  }
}

/* A chaos invariant broke: the flow fails with it and is abandoned. */
static void inv_fail(sim_flow *f, uflow *u, int server, const char *what) {
  u->broken = 1;
  snprintf(f->err, sizeof(f->err), "invariant (%s side): %s",
           server ? "server" : "client", what);
}

static void write_all(sim_flow *f, uflow *u, uflow_end *e, int server,
                      udccp_tstamp now) {
  for (int i = 0; i < UFLOW_MAX_BURST; i++) {
    sim_pkt *p = sim_flow_pkt_new(f);
    if (p == NULL) {
      return;
    }
    uint8_t ecn = 0;
    udccp_ssize n = udccp_conn_write_pkt(e->conn, p->data, SIM_PKT_CAP, &ecn, now);
    if (n <= 0) {
      sim_flow_pkt_free(f, p);
      return;
    }
    if (sim_flow_config(f)->check_invariants) {
      char why[200];
      if (sim_inv_after_write(&e->inv, e->conn, p->data, (size_t)n,
                              e->set.pmtu, e->set.hdr_overhead, why,
                              sizeof(why)) != 0) {
        sim_flow_pkt_free(f, p);
        inv_fail(f, u, server, why);
        return;
      }
    }
    p->len = (uint16_t)n;
    p->wire_len = (uint32_t)n + 20; /* IPv4 header */
    p->ecn = ecn;
    p->dir = server ? SIM_DIR_REV : SIM_DIR_FWD;
    if (!server && n > 8) {
      uint8_t type = (p->data[8] >> 1) & 0x0F; /* RFC 4340 §5.1 */
      if (type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK) {
        f->sent_pkts++;
      }
    }
    sim_flow_xmit(f, p, now);
    if (!server) {
      app_send(f, u, now);
    }
  }
  u->broken = 1;
  snprintf(f->err, sizeof(f->err),
           "udccp_conn_write_pkt gave more than %d packets at one instant "
           "(%s side, state %s): flow abandoned", UFLOW_MAX_BURST,
           server ? "server" : "client",
           udccp_state_str(udccp_conn_get_state(e->conn)));
}

static void retire(sim_flow *f, uflow *u, uflow_end *e, int server,
                   udccp_tstamp now) {
  udccp_conn_get_info(e->conn, &e->info);
  e->error = udccp_conn_get_error(e->conn);
  e->reset = udccp_conn_get_reset_code(e->conn);
  e->done_at = now;
  e->retired = 1;
  if (server && u->lis != NULL) {
    udccp_listener_conn_gone(u->lis, e->conn);
  }
  udccp_conn_del(e->conn);
  e->conn = NULL;
  (void)f;
}

/* Gives up on both connections (after an engine failure). */
static void abandon(sim_flow *f, uflow *u, udccp_tstamp now) {
  if (u->cli.conn != NULL) {
    retire(f, u, &u->cli, 0, now);
  }
  if (u->srv.conn != NULL) {
    retire(f, u, &u->srv, 1, now);
  }
}

static void pump(sim_flow *f, uflow *u, int server, udccp_tstamp now) {
  uflow_end *e = server ? &u->srv : &u->cli;
  if (e->conn == NULL || u->broken) {
    return;
  }
  if (udccp_conn_get_expiry(e->conn) <= now) {
    udccp_conn_handle_expiry(e->conn, now); /* a fatal end shows in is_done */
  }
  if (server) {
    app_recv(f, u, now);
  } else {
    app_send(f, u, now);
  }
  write_all(f, u, e, server, now);
  if (u->broken) {
    abandon(f, u, now);
    return;
  }
  if (!server && !u->established &&
      udccp_conn_get_state(e->conn) == UDCCP_STATE_OPEN) {
    u->established = 1;
    u->established_at = now;
  }
  if (udccp_conn_is_done(e->conn)) {
    retire(f, u, e, server, now);
    return;
  }
  if (sim_flow_config(f)->check_invariants) {
    char why[200];
    if (sim_inv_after_event(&e->inv, e->conn, now, why, sizeof(why)) != 0) {
      inv_fail(f, u, server, why);
      abandon(f, u, now);
      return;
    }
  }
  udccp_tstamp at = udccp_conn_get_expiry(e->conn);
  if (at <= now) {
    /* Everything due now was just done; an expiry still in the past would
     * spin the loop at one instant.  Count it and look again in 1 us. */
    if (++u->stuck > UFLOW_MAX_STUCK) {
      snprintf(f->err, sizeof(f->err),
               "udccp_conn_get_expiry stayed in the past %d times (%s side, "
               "state %s): flow abandoned", UFLOW_MAX_STUCK,
               server ? "server" : "client",
               udccp_state_str(udccp_conn_get_state(e->conn)));
      u->broken = 1;
      abandon(f, u, now);
      return;
    }
    at = now + 1000;
  }
  sim_flow_arm(f, server ? UT_SERVER : UT_CLIENT, at);
}

/* A listener refused the packet as damaged: a checksum mismatch (RFC 4340
 * §9), or a header too malformed to check it. */
static int refused(int rv) {
  return rv == UDCCP_ERR_CHECKSUM || rv == UDCCP_ERR_PROTO ||
         rv == UDCCP_ERR_OPTION || rv == UDCCP_ERR_MANDATORY;
}

/* Reads p into conn.  For a corrupted packet, it was accepted if it got
 * past the header checks of §8.5 step 1 (checksum included): the
 * connection's pkts_recv counts exactly those. */
static int conn_read(sim_flow *f, udccp_conn *c, const sim_pkt *p,
                     udccp_tstamp now) {
  udccp_conn_info before, after;
  if (p->corrupt) {
    udccp_conn_get_info(c, &before);
  }
  int rv = udccp_conn_read_pkt(c, p->data, p->len, p->ecn, now);
  if (p->corrupt) {
    udccp_conn_get_info(c, &after);
    sim_flow_corrupt_seen(f, p, after.pkts_recv != before.pkts_recv);
  }
  return rv;
}

static void to_server(sim_flow *f, uflow *u, sim_pkt *p, udccp_tstamp now) {
  if (u->srv.conn != NULL) {
    if (conn_read(f, u->srv.conn, p, now) == UDCCP_ERR_SEQ) {
      u->srv_seq_invalid++;
    }
    sim_flow_pkt_free(f, p);
    pump(f, u, 1, now);
    return;
  }
  sim_pkt *out = sim_flow_pkt_new(f);
  if (out == NULL) {
    sim_flow_pkt_free(f, p);
    return;
  }
  udccp_conn *nc = NULL;
  udccp_ssize n = udccp_listener_read_pkt(u->lis, &u->srv.path, p->data,
                                          p->len, now, &nc, out->data,
                                          SIM_PKT_CAP);
  sim_flow_corrupt_seen(f, p, nc != NULL || n > 0 || !refused((int)n));
  sim_flow_pkt_free(f, p);
  if (nc != NULL) {
    sim_flow_pkt_free(f, out);
    if (u->srv.retired) {
      /* A stray Request after the flow's server connection is gone:
       * one connection per flow, so refuse it silently. */
      u->extra_server_conns++;
      udccp_listener_conn_gone(u->lis, nc);
      udccp_conn_del(nc);
      return;
    }
    u->srv.conn = nc;
    pump(f, u, 1, now);
    return;
  }
  if (n > 0) {
    out->len = (uint16_t)n;
    out->wire_len = (uint32_t)n + 20;
    out->dir = SIM_DIR_REV;
    sim_flow_xmit(f, out, now);
  } else {
    sim_flow_pkt_free(f, out);
  }
}

static void to_client(sim_flow *f, uflow *u, sim_pkt *p, udccp_tstamp now) {
  if (u->cli.conn != NULL) {
    conn_read(f, u->cli.conn, p, now);
    sim_flow_pkt_free(f, p);
    pump(f, u, 0, now);
    return;
  }
  /* The host checks the checksum before it looks for a connection (RFC
   * 4340 §9): a corrupted packet gets no Reset. */
  if (udccp_pkt_verify_cksum(p->data, p->len, &u->cli.path) != 0) {
    sim_flow_corrupt_seen(f, p, 0);
    sim_flow_pkt_free(f, p);
    return;
  }
  sim_flow_corrupt_seen(f, p, 1);
  /* No connection any more: answer as the host would (RFC 4340 §8.5
   * step 1, Reset "No Connection" unless it is a Reset). */
  sim_pkt *out = sim_flow_pkt_new(f);
  if (out != NULL) {
    udccp_ssize n = udccp_pkt_write_reset_reply(
        out->data, SIM_PKT_CAP, p->data, p->len, &u->cli.path,
        UDCCP_CKSUM_FULL, UDCCP_RESET_NO_CONNECTION);
    if (n > 0) {
      out->len = (uint16_t)n;
      out->wire_len = (uint32_t)n + 20;
      out->dir = SIM_DIR_FWD;
      sim_flow_xmit(f, out, now);
    } else {
      sim_flow_pkt_free(f, out);
    }
  }
  sim_flow_pkt_free(f, p);
}

/* ------------------------------------------------------ kind methods */

static void end_setup(sim_flow *f, uflow_end *e, int server) {
  udccp_settings_default(&e->set);
  e->set.rand = uflow_rand;
  e->set.rand_user_data = &e->rng;
  e->set.ccid = (uint8_t)f->kind->ccid;
  e->set.cksum_mode = UDCCP_CKSUM_FULL;
  e->set.ecn_capable = (uint8_t)(sim_flow_config(f)->ecn != 0);
  e->set.allow_short_seqnos = (uint8_t)(sim_flow_config(f)->short_seqnos != 0);
  e->set.ack_vectors = (uint8_t)(sim_flow_config(f)->ack_vectors != 0);
  e->set.send_cscov = sim_flow_config(f)->send_cscov;
  e->set.idle_timeout = sim_flow_config(f)->idle_timeout;
  if (sim_flow_config(f)->check_invariants) {
    sim_inv_end_init(&e->inv);
    e->set.mem = &e->inv.mem;
  }
  if (sim_flow_config(f)->seq_window != 0) {
    e->set.seq_window = sim_flow_config(f)->seq_window;
  }
  sim_rng_seed(&e->rng, sim_flow_seed(f), server ? 2 : 1);
  e->path.family = UDCCP_AF_INET;
  memcpy(e->path.local_addr, server ? f->srv_addr : f->cli_addr, 4);
  memcpy(e->path.remote_addr, server ? f->cli_addr : f->srv_addr, 4);
  e->path.local_port = server ? f->srv_port : f->cli_port;
  e->path.remote_port = server ? f->cli_port : f->srv_port;
  e->error = 0;
  e->reset = UDCCP_RESET_NONE;
}

static int uflow_init(sim_flow *f) {
  uflow *u = calloc(1, sizeof(*u));
  if (u == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  f->priv = u;
  end_setup(f, &u->cli, 0);
  end_setup(f, &u->srv, 1);
  for (size_t i = 0; i < sizeof(u->tx_buf); i++) {
    u->tx_buf[i] = (uint8_t)i;
  }
  static const uint32_t codes[] = {UFLOW_SERVICE_CODE};
  udccp_listener_settings ls = {0};
  ls.service_codes = codes;
  ls.n_service_codes = 1;
  ls.cookie_lifetime = 8 * UDCCP_NS_PER_S;
  int rv = udccp_listener_new(&u->lis, &u->srv.set, &ls, 0);
  if (rv != 0) {
    snprintf(f->err, sizeof(f->err), "udccp_listener_new (CCID %d): %s",
             f->kind->ccid, udccp_strerror(rv));
    u->lis = NULL;
    return -1;
  }
  sim_flow_arm(f, UT_START, f->start_at);
  return 0;
}

static void uflow_timer(sim_flow *f, unsigned which, udccp_tstamp now) {
  uflow *u = f->priv;
  if (which == UT_START) {
    if (u->started || f->stopped) {
      return;
    }
    u->started = 1;
    int rv = udccp_conn_client_new(&u->cli.conn, &u->cli.set, &u->cli.path,
                                   UFLOW_SERVICE_CODE, now);
    if (rv != 0) {
      u->cli.conn = NULL;
      snprintf(f->err, sizeof(f->err), "udccp_conn_client_new (CCID %d): %s",
               f->kind->ccid, udccp_strerror(rv));
      return;
    }
    pump(f, u, 0, now);
    return;
  }
  pump(f, u, which == UT_SERVER || which == UT_READ, now);
}

static void uflow_recv(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  uflow *u = f->priv;
  if (u->broken) {
    sim_flow_pkt_free(f, p);
    return;
  }
  if (p->dir == SIM_DIR_FWD) {
    to_server(f, u, p, now);
  } else {
    to_client(f, u, p, now);
  }
}

static void uflow_stop(sim_flow *f, udccp_tstamp now) {
  uflow *u = f->priv;
  u->closing = 1;
  int how = f->opts->stop_how;
  if ((how == SIM_STOP_SERVER_CLOSE || how == SIM_STOP_SERVER_ABORT) &&
      u->srv.conn != NULL && !u->broken) {
    if (how == SIM_STOP_SERVER_ABORT ||
        udccp_conn_close(u->srv.conn, now) != 0) {
      udccp_conn_abort(u->srv.conn, UDCCP_RESET_ABORTED, now);
    }
    pump(f, u, 1, now);
    return;
  }
  if (u->cli.conn == NULL || u->broken) {
    return;
  }
  if (how == SIM_STOP_CLIENT_ABORT ||
      udccp_conn_close(u->cli.conn, now) != 0) {
    /* not open yet (a handshake still under way): abort instead */
    udccp_conn_abort(u->cli.conn, UDCCP_RESET_ABORTED, now);
  }
  pump(f, u, 0, now);
}

static int uflow_done(const sim_flow *f) {
  const uflow *u = f->priv;
  if (u->cli.conn != NULL || u->srv.conn != NULL) {
    return 0;
  }
  return 1;
}

static void uflow_sample(const sim_flow *f, sim_flow_sample *s) {
  const uflow *u = f->priv;
  if (u->cli.conn == NULL) {
    return;
  }
  udccp_conn_info info;
  udccp_conn_get_info(u->cli.conn, &info);
  s->srtt = info.srtt;
  s->cwnd = info.cwnd;
  s->ack_ratio = info.ack_ratio;
  if (f->kind->tfrc) {
    s->x_bps = (double)info.x * 8.0;
    s->x_recv_bps = (double)info.x_recv * 8.0;
    s->p = info.p;
  }
}

static int end_clean(const uflow_end *e) {
  if (!e->retired) {
    return 0;
  }
  if (e->error == UDCCP_ERR_CLOSED) {
    return 1;
  }
  /* A Reset "Closed" is the normal end of the side that did not close
   * first (RFC 4340 §8.3). */
  return e->error == UDCCP_ERR_RESET && e->reset == UDCCP_RESET_CLOSED;
}

static void end_desc(char *buf, size_t cap, const char *who,
                     const uflow_end *e) {
  if (!e->retired) {
    snprintf(buf, cap, "%s: %s", who,
             e->conn ? udccp_state_str(udccp_conn_get_state(e->conn))
                     : "never created");
    return;
  }
  snprintf(buf, cap, "%s: %s, reset %s", who,
           e->error ? udccp_strerror(e->error) : "no error",
           udccp_reset_code_str(e->reset));
}

static void uflow_finish(sim_flow *f, sim_flow_result *r) {
  uflow *u = f->priv;
  r->established = u->established;
  r->established_s = (double)u->established_at / 1e9;
  uflow_end *ends[2] = {&u->cli, &u->srv};
  for (int i = 0; i < 2; i++) {
    if (ends[i]->conn != NULL) {
      udccp_conn_get_info(ends[i]->conn, &ends[i]->info);
      ends[i]->error = udccp_conn_get_error(ends[i]->conn);
      ends[i]->reset = udccp_conn_get_reset_code(ends[i]->conn);
    }
  }
  r->client_error = u->cli.error;
  r->server_error = u->srv.error;
  r->client_reset = u->cli.reset;
  r->server_reset = u->srv.reset;
  r->closed_ok = end_clean(&u->cli) && end_clean(&u->srv);
  r->client_ended = u->cli.retired || (!u->started);
  r->server_ended = u->srv.retired || (u->srv.conn == NULL);
  r->mem_peak = u->cli.inv.mem_peak > u->srv.inv.mem_peak
                    ? u->cli.inv.mem_peak
                    : u->srv.inv.mem_peak;
  udccp_tstamp done = u->cli.done_at > u->srv.done_at ? u->cli.done_at
                                                      : u->srv.done_at;
  r->closed_s = u->cli.retired && u->srv.retired ? (double)done / 1e9 : 0;
  char a[60], b[60];
  end_desc(a, sizeof(a), "client", &u->cli);
  end_desc(b, sizeof(b), "server", &u->srv);
  snprintf(r->close_desc, sizeof(r->close_desc), "%s; %s", a, b);
  r->declared_lost = u->cli.info.pkts_lost;
  r->rx_lost = u->srv.info.pkts_lost_rx;
  r->rx_dropped = u->srv.info.pkts_dropped;
  r->rx_seq_invalid = u->srv_seq_invalid;
  if (f->packet_size == 0) {
    f->packet_size = u->dgram;
  }
}

static void uflow_destroy(sim_flow *f) {
  uflow *u = f->priv;
  if (u != NULL) {
    udccp_conn_del(u->cli.conn);
    udccp_conn_del(u->srv.conn);
    udccp_listener_del(u->lis);
    free(u);
  }
  f->priv = NULL;
}

#define SIM_UDCCP_KIND(name_, ccid_, tfrc_, help_)                           \
  {name_,       ccid_,       tfrc_,        help_,        uflow_init,          \
   uflow_recv,  uflow_timer, uflow_stop,   uflow_done,   uflow_sample,        \
   uflow_finish, sim_flow_pcap_dccp, uflow_destroy}

const sim_flow_kind sim_kind_ccid2 =
    SIM_UDCCP_KIND("ccid2", 2, 0, "udccp connection, CCID 2 (TCP-like, RFC 4341)");
const sim_flow_kind sim_kind_ccid3 =
    SIM_UDCCP_KIND("ccid3", 3, 1, "udccp connection, CCID 3 (TFRC, RFC 4342)");
const sim_flow_kind sim_kind_cubic =
    SIM_UDCCP_KIND("cubic", UDCCP_CCID_CUBIC_DEFAULT, 0,
                   "udccp connection, CUBIC CCID (RFC 9438 on CCID 2 feedback)");
const sim_flow_kind sim_kind_bbr =
    SIM_UDCCP_KIND("bbr", UDCCP_CCID_BBR_DEFAULT, 0,
                   "udccp connection, BBR CCID (draft-ietf-ccwg-bbr on CCID 2 "
                   "feedback)");
const sim_flow_kind sim_kind_ccid4 =
    SIM_UDCCP_KIND("ccid4", 4, 1, "udccp connection, CCID 4 (TFRC-SP, RFC 5622)");
