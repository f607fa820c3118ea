/* SPDX-License-Identifier: MIT */
/*
 * udccp-interop-host -- the host side of the kernel interop scenarios that
 * udccp-cat and udccp-perf cannot express (partial checksum coverage, Reset
 * in the middle of a transfer, connection facts for the checks).  It uses
 * only the public API of <udccp/udccp.h>, in native mode (raw IP, full
 * DCCP checksums), like an application would.
 *
 *   udccp-interop-host client HOST PORT SERVICE [OPTIONS]
 *   udccp-interop-host server PORT SERVICE [OPTIONS]
 *
 *   --ccid N          CCID for both half-connections (default: settings)
 *   --send-cscov N    settings.send_cscov: CsCov of the packets we send
 *   --min-cscov N     settings.min_cscov: Minimum Checksum Coverage we ask
 *   --send N          send N datagrams "udccp-msg-<i>"
 *   --expect N        wait (--wait) until N datagrams have arrived
 *   --bulk SECS       send -l-byte datagrams for SECS seconds
 *   -l BYTES          bulk datagram size (default 1000)
 *   --abort-after S   udccp_abort() S seconds into the bulk transfer (or
 *                     after S seconds of receiving)
 *   --close MODE      close (udccp_close), wait (for the peer's close), abort
 *   --server-timewait settings.server_timewait: a server closes with Close
 *                     (and holds TIMEWAIT) instead of CloseReq
 *   --wait SECS       bound of every wait (default 10)
 *
 * Output: one fact per line ("KEY k=v"), like the guest's dccpt.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <udccp/udccp.h>

typedef struct host_opts {
  int server;
  const char *host;
  uint16_t port;
  uint32_t service;
  int ccid, send_cscov, min_cscov, nsend, expect, close_mode, server_timewait;
  double bulk_s, abort_after_s, wait_s;
  size_t length;
} host_opts;

enum { CLOSE_NOW, CLOSE_WAIT, CLOSE_ABORT };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_info(udccp_sock *s, const char *tag) {
  udccp_conn_info i;
  udccp_sock_get_info(s, &i);
  printf("%s state=%s tx_ccid=%u rx_ccid=%u mps=%u srtt_ms=%.3f cwnd=%u"
         " pkts_sent=%" PRIu64 " pkts_recv=%" PRIu64
         " data_pkts_sent=%" PRIu64 " data_pkts_recv=%" PRIu64
         " lost=%" PRIu64 " dropped=%" PRIu64 " malformed=%" PRIu64
         " bad_cksum=%" PRIu64 " syncs_sent=%" PRIu64 " syncs_recv=%" PRIu64
         " p=%.6f reset=%s\n",
         tag, udccp_state_str(i.state), i.tx_ccid, i.rx_ccid, i.mps,
         (double)i.srtt / 1e6, i.cwnd, i.pkts_sent, i.pkts_recv,
         i.data_pkts_sent, i.data_pkts_recv, i.pkts_lost, i.pkts_dropped,
         i.pkts_malformed, i.pkts_bad_cksum, i.syncs_sent, i.syncs_recv, i.p,
         udccp_reset_code_str(udccp_sock_reset_code(s)));
}

static void print_dead(udccp_sock *s, int err, const char *what) {
  printf("%s err=%s reset=%s\n", what, udccp_io_strerror(err),
         udccp_reset_code_str(udccp_sock_reset_code(s)));
}

static void print_text(const uint8_t *b, udccp_ssize n) {
  printf("RECV len=%td data=\"", n);
  for (udccp_ssize i = 0; i < n && i < 200; i++) {
    putchar(b[i] >= 32 && b[i] < 127 && b[i] != '"' ? b[i] : '.');
  }
  printf("\"\n");
}

/* Returns 1 once the connection is over (peer closed, reset, aborted). */
static int workload(const host_opts *o, udccp_sock *s) {
  static uint8_t buf[65536];
  for (int i = 0; i < o->nsend; i++) {
    char m[64];
    int n = snprintf(m, sizeof(m), "udccp-msg-%d", i);
    udccp_ssize r = udccp_send(s, m, (size_t)n, 3000);
    if (r < 0) {
      print_dead(s, (int)r, "SEND-ERROR");
      return 1;
    }
    printf("SENT len=%d data=\"%s\"\n", n, m);
  }
  if (o->bulk_s > 0) {
    uint8_t *d = calloc(1, o->length);
    if (d == NULL) {
      return 1;
    }
    memset(d, 'u', o->length);
    uint64_t pkts = 0;
    double t0 = now_s(), t;
    while ((t = now_s()) < t0 + o->bulk_s) {
      if (o->abort_after_s > 0 && t - t0 >= o->abort_after_s) {
        printf("BULK-TX pkts=%" PRIu64 " before abort\n", pkts);
        print_info(s, "INFO");
        udccp_abort(s);
        printf("ABORTED (udccp_abort: Reset Aborted)\n");
        free(d);
        return 2;
      }
      memcpy(d, &pkts, sizeof(pkts));
      udccp_ssize r = udccp_send(s, d, o->length, 100);
      if (r == UDCCP_ERR_AGAIN) {
        continue;
      }
      if (r < 0) {
        print_dead(s, (int)r, "SEND-ERROR");
        free(d);
        return 1;
      }
      pkts++;
    }
    free(d);
    double el = now_s() - t0;
    printf("BULK-TX pkts=%" PRIu64 " bytes=%" PRIu64 " secs=%.2f mbit=%.3f\n",
           pkts, pkts * o->length, el, (double)(pkts * o->length) * 8 / el / 1e6);
  }
  int got = 0;
  double t0 = now_s(), until = t0 + o->wait_s;
  while (now_s() < until) {
    if (o->expect >= 0 && got >= o->expect && o->close_mode != CLOSE_WAIT) {
      break;
    }
    if (o->bulk_s == 0 && o->abort_after_s > 0 && now_s() - t0 >= o->abort_after_s) {
      printf("RECEIVED count=%d before abort\n", got);
      print_info(s, "INFO");
      udccp_abort(s);
      printf("ABORTED (udccp_abort: Reset Aborted)\n");
      return 2;
    }
    udccp_ssize n = udccp_recv(s, buf, sizeof(buf), 100);
    if (n == UDCCP_ERR_AGAIN) {
      continue;
    }
    if (n == UDCCP_ERR_CLOSED) {
      printf("PEER-CLOSED received=%d\n", got);
      return 1;
    }
    if (n < 0) {
      print_dead(s, (int)n, "RECV-ERROR");
      return 1;
    }
    got++;
    if (got <= 20) {
      print_text(buf, n);
    }
  }
  printf("MESSAGES received=%d\n", got);
  return 0;
}

static int usage(void) {
  fprintf(stderr,
          "usage: udccp-interop-host client HOST PORT SERVICE [OPTIONS]\n"
          "       udccp-interop-host server PORT SERVICE [OPTIONS]\n"
          "options: --ccid N --send-cscov N --min-cscov N --send N --expect N\n"
          "         --bulk SECS -l BYTES --abort-after SECS\n"
          "         --close close|wait|abort --wait SECS --server-timewait\n");
  return 2;
}

int main(int argc, char **argv) {
  host_opts o;
  memset(&o, 0, sizeof(o));
  o.expect = -1;
  o.wait_s = 10;
  o.length = 1000;
  setvbuf(stdout, NULL, _IOLBF, 0);
  int i = 1;
  if (argc < 4) {
    return usage();
  }
  if (strcmp(argv[i], "client") == 0) {
    if (argc < 5) {
      return usage();
    }
    o.host = argv[i + 1];
    i += 2;
  } else if (strcmp(argv[i], "server") == 0) {
    o.server = 1;
    i += 1;
  } else {
    return usage();
  }
  o.port = (uint16_t)atoi(argv[i++]);
  o.service = (uint32_t)strtoul(argv[i++], NULL, 0);
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--close") == 0 && v) {
      o.close_mode = strcmp(v, "wait") == 0    ? CLOSE_WAIT
                     : strcmp(v, "abort") == 0 ? CLOSE_ABORT
                                               : CLOSE_NOW;
    } else if (strcmp(a, "--server-timewait") == 0) {
      o.server_timewait = 1;
      continue;
    } else if (strcmp(a, "--ccid") == 0 && v) {
      o.ccid = atoi(v);
    } else if (strcmp(a, "--send-cscov") == 0 && v) {
      o.send_cscov = atoi(v);
    } else if (strcmp(a, "--min-cscov") == 0 && v) {
      o.min_cscov = atoi(v);
    } else if (strcmp(a, "--send") == 0 && v) {
      o.nsend = atoi(v);
    } else if (strcmp(a, "--expect") == 0 && v) {
      o.expect = atoi(v);
    } else if (strcmp(a, "--bulk") == 0 && v) {
      o.bulk_s = atof(v);
    } else if (strcmp(a, "-l") == 0 && v) {
      o.length = (size_t)atol(v);
    } else if (strcmp(a, "--abort-after") == 0 && v) {
      o.abort_after_s = atof(v);
    } else if (strcmp(a, "--wait") == 0 && v) {
      o.wait_s = atof(v);
    } else {
      return usage();
    }
    i++;
  }

  udccp_settings st;
  udccp_settings_default(&st);
  st.send_cscov = (uint8_t)o.send_cscov;
  st.min_cscov = (uint8_t)o.min_cscov;
  st.server_timewait = (uint8_t)o.server_timewait;
  if (o.ccid) {
    st.ccid = (uint8_t)o.ccid;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = UDCCP_TRANSPORT_RAW;
  cfg.settings = &st;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    printf("ERROR endpoint err=%s\n", udccp_io_strerror(rv));
    return 1;
  }
  udccp_sock *s = NULL;
  int wait_ms = (int)(o.wait_s * 1000);
  if (o.server) {
    rv = udccp_listen(ep, o.port, &o.service, 1);
    if (rv == 0) {
      printf("LISTENING port=%u service=%u\n", (unsigned)o.port, o.service);
      fflush(stdout);
      rv = udccp_accept(ep, &s, wait_ms);
    }
    if (rv != 0) {
      printf("ACCEPT-FAILED err=%s\n", udccp_io_strerror(rv));
      udccp_endpoint_del(ep);
      return 1;
    }
  } else {
    rv = udccp_connect(ep, &s, o.host, o.port, o.service, (uint8_t)o.ccid,
                       wait_ms);
    if (rv != 0) {
      printf("CONNECT-FAILED err=%s\n", udccp_io_strerror(rv));
      udccp_endpoint_del(ep);
      return 1;
    }
  }
  print_info(s, "CONNECTED");
  int over = workload(&o, s);
  int status = 0;
  if (over == 2) {
    s = NULL; /* aborted: the handle is gone */
  } else if (over) {
    print_info(s, "INFO");
    (void)udccp_close(s, 1000);
  } else if (o.close_mode == CLOSE_ABORT) {
    print_info(s, "INFO");
    udccp_abort(s);
    printf("ABORTED (udccp_abort: Reset Aborted)\n");
  } else {
    if (o.close_mode == CLOSE_WAIT) {
      static uint8_t b[65536];
      double until = now_s() + o.wait_s;
      for (;;) {
        udccp_ssize n = udccp_recv(s, b, sizeof(b), 100);
        if (n == UDCCP_ERR_CLOSED) {
          printf("PEER-CLOSED\n");
          break;
        }
        if (n < 0 && n != UDCCP_ERR_AGAIN) {
          print_dead(s, (int)n, "RECV-ERROR");
          break;
        }
        if (now_s() > until) {
          printf("WAIT-CLOSE timed out\n");
          status = 1;
          break;
        }
      }
    }
    print_info(s, "INFO");
    rv = udccp_close(s, wait_ms);
    printf("CLOSE rv=%s\n", rv == 0 ? "ok" : udccp_io_strerror(rv));
    if (rv != 0) {
      status = 1;
    }
  }
  /* Let the endpoint finish a close still in progress (bounded). */
  for (int k = 0; k < 20; k++) {
    (void)udccp_endpoint_run(ep, 50);
  }
  udccp_endpoint_del(ep);
  printf("DONE rc=%d\n", status);
  return status;
}
