/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat --multipath (tools/cat/cat.h).
 *
 * RFC 9897 through udccp_mpsock: the same loop as cat_run(), the same
 * promise (nothing lost silently): input the connection did not take,
 * datagrams its paths' CCIDs declared lost, and MP_SEQ numbers the
 * receiver never got are reported and make the exit status 1.
 */
#define _GNU_SOURCE /* strtok_r */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"

/* cat_refuse_waiting() for a --multipath listener: the waiting connections
 * are reset (udccp_mpsock_abort, every subflow). */
static void refuse_waiting_mp(udccp_endpoint *ep, const char *why) {
  udccp_mpsock *x = NULL;
  while (udccp_mpsock_accept(ep, &x, 0) == 0) {
    udccp_mp_info mi;
    char a[64];
    udccp_mpsock_get_info(x, &mi);
    cat_addr_str(a, sizeof(a), mi.sub[0].path.family,
                 mi.sub[0].path.remote_addr);
    fprintf(stderr, "udccp-cat: refused the multipath connection from %s "
                    "port %u: %s\n",
            a, (unsigned)mi.sub[0].path.remote_port, why);
    udccp_mpsock_abort(x);
  }
}

static const char *sched_name(int s) {
  switch (s) {
  case UDCCP_MP_SCHED_BACKUP: return "backup";
  case UDCCP_MP_SCHED_RR: return "rr";
  case UDCCP_MP_SCHED_REDUNDANT: return "redundant";
  default: return "minrtt";
  }
}

/* Per path, on stderr (-v): addresses, state, what it carried, its RTT
 * and losses, its share of the datagrams sent. */
static void mp_print_paths(const udccp_mp_info *mi) {
  fprintf(stderr, "udccp-cat: multipath %s, %u path%s, scheduler %s; "
                  "receiver: %llu datagrams released after a gap, %llu "
                  "came too late, %llu MP_SEQ numbers never came\n",
          mi->active ? "active" : "off (plain DCCP: the peer did not agree)",
          (unsigned)mi->n_subflows, mi->n_subflows == 1 ? "" : "s",
          sched_name(mi->sched), (unsigned long long)mi->rx_released_late,
          (unsigned long long)mi->rx_late_dropped,
          (unsigned long long)mi->rx_mp_seq_skipped);
  for (size_t i = 0; i < mi->n_subflows; i++) {
    const udccp_mp_subflow_info *p = &mi->sub[i];
    char la[64], ra[64];
    cat_addr_str(la, sizeof(la), p->path.family, p->path.local_addr);
    cat_addr_str(ra, sizeof(ra), p->path.family, p->path.remote_addr);
    fprintf(stderr, "udccp-cat: path %zu %s -> %s: %s%s, sent %llu "
                    "datagrams (%llu bytes, %u.%u %%), received %llu (%llu "
                    "bytes), rtt %.1f ms, %llu lost\n",
            i, la, ra, udccp_state_str(p->state), p->dead ? " (dead)" : "",
            (unsigned long long)p->tx_dgrams,
            (unsigned long long)p->tx_bytes, p->share_permille / 10,
            p->share_permille % 10, (unsigned long long)p->rx_dgrams,
            (unsigned long long)p->rx_bytes, (double)p->srtt / 1e6,
            (unsigned long long)p->pkts_lost);
  }
}

/* The largest datagram every path takes. */
static size_t mp_mps(udccp_mpsock *m) {
  size_t mps = 0;
  udccp_sock *s;
  for (size_t i = 0; (s = udccp_mpsock_subflow(m, i)) != NULL; i++) {
    size_t x = udccp_sock_get_mps(s);
    mps = x > 0 && (mps == 0 || x < mps) ? x : mps;
  }
  return mps > 0 ? mps : 536;
}

/* Losses and unsent input; returns 1 if any. */
static int mp_report(const udccp_mp_info *mi, uint64_t sent_dgrams,
                     const cat_input *in) {
  uint64_t tx = 0, lost = 0;
  int bad = 0;
  for (size_t i = 0; i < mi->n_subflows; i++) {
    tx += mi->sub[i].tx_dgrams;
    lost += mi->sub[i].pkts_lost;
  }
  uint64_t queued = sent_dgrams > tx ? sent_dgrams - tx : 0;
  uint64_t held = in->len - in->off, unread = cat_stdin_unread(in);
  if (queued + held + unread > 0) {
    fprintf(stderr, "udccp-cat: input not sent: %llu datagrams queued, "
                    "%llu bytes read from stdin, %llu bytes of the file not "
                    "read (%llu datagrams were sent)\n",
            (unsigned long long)queued, (unsigned long long)held,
            (unsigned long long)unread, (unsigned long long)tx);
    bad = 1;
  }
  if (lost > 0) {
    fprintf(stderr, "udccp-cat: %llu datagrams sent were lost in the network "
                    "(declared lost by the paths' CCIDs)\n",
            (unsigned long long)lost);
    bad = 1;
  }
  if (mi->rx_mp_seq_skipped + mi->rx_late_dropped > 0) {
    fprintf(stderr, "udccp-cat: %llu datagrams from the peer never arrived "
                    "(gaps in MP_SEQ), %llu came after their gap was given "
                    "up and were dropped\n",
            (unsigned long long)mi->rx_mp_seq_skipped,
            (unsigned long long)mi->rx_late_dropped);
    bad = 1;
  }
  return bad;
}

/* Runs one multipath connection to its end; returns the exit status. */
static int run_mp(const cat_opts *o, udccp_endpoint *ep, udccp_mpsock *m,
                  cat_input *in) {
  static uint8_t rbuf[65536];
  uint64_t sent = 0;
  udccp_mp_info mi;
  int status = 0, closed = 0;
  uint64_t next_refuse = 0;
  for (;;) {
    udccp_ssize n;
    int end = 0;
    if (o->listen && !o->keep && cat_mono_ms() >= next_refuse) {
      refuse_waiting_mp(ep, "serving one connection already (-k serves "
                            "them in turn)");
      next_refuse = cat_mono_ms() + 100;
    }
    while ((n = udccp_mpsock_recv(m, rbuf, sizeof(rbuf), 0)) >= 0) {
      cat_out_write(rbuf, (size_t)n);
    }
    if (cat_out_flush() != 0) {
      cat_report_stdout();
      udccp_mpsock_get_info(m, &mi);
      (void)mp_report(&mi, sent, in);
      udccp_mpsock_abort(m);
      in->len = in->off = 0;
      return 1;
    }
    if (n != UDCCP_ERR_AGAIN) {
      /* the peer closed (or reset): fine unless input was left */
      if (n != UDCCP_ERR_CLOSED) {
        fprintf(stderr, "udccp-cat: connection: %s\n",
                udccp_io_strerror((int)n));
        status = 1;
      } else if (in->len > in->off || cat_stdin_unread(in) > 0) {
        fprintf(stderr, "udccp-cat: the peer closed the connection\n");
      }
      end = 1;
    }
    if (!end && cat_sig != 0) {
      fprintf(stderr, "udccp-cat: %s: connection aborted (Reset sent to the "
                      "peer)\n",
              cat_sig == SIGINT ? "interrupted" : "terminated");
      udccp_mpsock_get_info(m, &mi);
      (void)mp_report(&mi, sent, in);
      udccp_mpsock_abort(m);
      return 128 + cat_sig;
    }
    int blocked = 0;
    while (!end && !o->no_stdin && in->off < in->len) {
      size_t mps = mp_mps(m);
      char *start = in->buf + in->off;
      size_t avail = in->len - in->off;
      char *nl = memchr(start, '\n', avail);
      size_t len = nl ? (size_t)(nl - start) + 1 : avail;
      if (nl == NULL && !in->eof && avail < mps) {
        break; /* wait for the rest of the line */
      }
      len = len > mps ? mps : len;
      udccp_ssize r = udccp_mpsock_send(m, start, len, 0);
      if (r == UDCCP_ERR_AGAIN) {
        blocked = 1;
        break;
      }
      if (r < 0) {
        fprintf(stderr, "udccp-cat: connection: %s\n",
                udccp_io_strerror((int)r));
        status = 1;
        end = 1;
        break;
      }
      sent++;
      in->off += len;
    }
    cat_input_compact(in);
    /* EOF after sending: close once drained (as cat_run()) */
    if (!end && !o->no_stdin && in->eof && in->len == 0 && sent > 0) {
      udccp_mpsock_get_info(m, &mi);
      int crv = udccp_mpsock_close(m, 30000);
      closed = 1;
      if (o->verbose) {
        mp_print_paths(&mi);
      }
      if (crv != 0) {
        fprintf(stderr, "udccp-cat: close: %s (%llu datagrams had been "
                        "handed to the connection)\n",
                udccp_io_strerror(crv), (unsigned long long)sent);
        status = 1;
      }
      /* what the paths declared lost up to the close; a clean close
       * sent what was queued then */
      status |= mp_report(&mi, crv == 0 ? 0 : sent, in);
      break;
    }
    if (end) {
      break;
    }
    if (cat_wait_and_read(o, ep, in, blocked) != 0) {
      status = 1;
      break;
    }
  }
  if (!closed) {
    udccp_mpsock_get_info(m, &mi);
    if (o->verbose) {
      mp_print_paths(&mi);
    }
    status |= mp_report(&mi, sent, in);
    (void)udccp_mpsock_close(m, 2000);
  }
  fflush(stdout);
  in->len = in->off = 0;
  return status;
}

/* --multipath: connect (a subflow from each local address) or listen,
 * then run_mp; returns the exit status. */
int cat_main_mp(const cat_opts *o, udccp_endpoint *ep) {
  const char *local[UDCCP_MP_SUBFLOWS_MAX];
  char list[512];
  size_t n = 0;
  udccp_mpsock *m = NULL;
  int rv;
  if (o->mp_local != NULL) {
    snprintf(list, sizeof(list), "%s", o->mp_local);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
      if (n == UDCCP_MP_SUBFLOWS_MAX) {
        fprintf(stderr, "udccp-cat: --multipath: at most %d addresses\n",
                UDCCP_MP_SUBFLOWS_MAX);
        return 2;
      }
      local[n++] = t;
    }
  }
  cat_catch_signals();
  if (o->listen) {
    rv = udccp_listen(ep, o->port, &o->service, 1);
    if (rv != 0) {
      return cat_report("listen", rv);
    }
  }
  cat_input in;
  memset(&in, 0, sizeof(in));
  in.buf = malloc(CAT_INBUF);
  in.eof = o->no_stdin;
  int status = in.buf == NULL ? 1 : 0;
  for (int first = 1; status == 0 || (o->keep && cat_sig == 0); first = 0) {
    if (o->listen) {
      int wait = first && o->wait_ms != -2 ? o->wait_ms : -1;
      for (;;) {
        int step = wait < 0 || wait > 200 ? 200 : wait;
        rv = udccp_mpsock_accept(ep, &m, step);
        if (rv == 0 || cat_sig != 0 || rv != UDCCP_ERR_AGAIN) {
          break;
        }
        if (wait >= 0 && (wait -= step) <= 0) {
          break;
        }
      }
      if (rv != 0) {
        if (status == 0 && cat_sig == 0 && rv == UDCCP_ERR_AGAIN) {
          fprintf(stderr, "udccp-cat: no connection came within %.3g s "
                          "(-w)\n", (double)o->wait_ms / 1000.0);
        }
        status = status != 0 ? status
                 : cat_sig != 0 ? 128 + cat_sig
                 : rv == UDCCP_ERR_AGAIN ? 1
                              : cat_report("accept", rv);
        break;
      }
    } else {
      rv = udccp_mpsock_connect(ep, &m, o->host, o->port, o->service,
                                o->ccid, local, n,
                                o->wait_ms == -2 ? 10000 : o->wait_ms);
      if (rv != 0) {
        fprintf(stderr, "udccp-cat: cannot open a multipath connection to "
                        "%s port %u%s: %s\n",
                o->host, (unsigned)o->port,
                n ? " from the addresses given" : "",
                rv == UDCCP_ERR_SOCKET && errno != 0
                    ? strerror(errno) /* e.g. an address not on this host */
                    : udccp_io_strerror(rv));
        status = 1;
        break;
      }
      (void)udccp_mpsock_set_sched(m, o->mp_sched);
      if (o->mp_sched == UDCCP_MP_SCHED_BACKUP) {
        for (size_t i = 1; i < n; i++) {
          (void)udccp_mpsock_set_prio(m, i, 1); /* standby (§3.2.10) */
        }
      }
    }
    if (o->verbose) {
      udccp_mp_info mi;
      udccp_mpsock_get_info(m, &mi);
      fprintf(stderr, "udccp-cat: multipath connection, DCCP ports %u -> %u,"
                      " %s\n",
              (unsigned)mi.sub[0].path.local_port,
              (unsigned)mi.sub[0].path.remote_port,
              o->listen ? "accepted" : "connected");
    }
    int r = run_mp(o, ep, m, &in);
    m = NULL;
    status = status != 0 ? status : r;
    if (!o->keep || cat_sig != 0 || cat_out_errno != 0) {
      break;
    }
  }
  free(in.buf);
  if (o->listen) {
    /* handshakes whose last Ack already came are completed first */
    (void)udccp_endpoint_process(ep);
    refuse_waiting_mp(ep, "udccp-cat is exiting");
  }
  return status;
}
