/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat: netcat for DCCP datagrams (DESIGN.md §4).
 *
 *   udccp-cat [options] HOST PORT        connect
 *   udccp-cat -l [options] [ADDR] PORT   listen (-k: one connection after
 *                                        another)
 *
 * Each line of stdin (newline included) becomes one datagram; a line
 * longer than the connection's MPS is cut into MPS-sized datagrams.  Every
 * datagram received is written to stdout as it is.
 *
 * End of input, as netcat: a side that reaches EOF on stdin after sending
 * something closes once its send queue has drained (Close, RFC 4340 §8.3)
 * and exits when the peer acknowledged it.  A side whose stdin is empty
 * (EOF before anything was sent: a listener in a script has stdin at
 * /dev/null) keeps receiving until the peer closes.
 *
 * Nothing is lost silently.  The sender never drops a line: when the send
 * queue is full it stops reading stdin until there is room (backpressure).
 * If the peer closes or resets while input is still unsent, udccp-cat says
 * how much was not sent and exits 1.  At the end each side reports on
 * stderr what was lost: the datagrams its CCID declared lost (sender), the
 * packets missing from the peer's sequence numbers (receiver: gaps, i.e.
 * lost in the network) and the datagrams its receive queue dropped; any
 * of them makes the exit status 1.
 *
 * Why a bulk transfer used to lose ~5 % on loopback: not in our queues
 * (the send queue refuses rather than drops, the receive queue never
 * filled) but in the receiver's kernel UDP buffer.  Loopback never loses,
 * so CCID 2 stays in slow start and its cwnd grows to thousands of
 * packets (the Sequence Window follows it, RFC 4340 §7.5.2); when the
 * receiver is descheduled on a busy machine that many small datagrams
 * (~1 KiB of kernel memory each) overflow its socket buffer
 * (/proc/net/snmp RcvbufErrors).  DCCP has no flow control, so udccp-cat
 * keeps at most CAT_MAX_INFLIGHT packets in flight (an application-limited
 * sender: CCID 2 stops growing cwnd, RFC 4341 §5.1) and asks for a larger
 * socket buffer, which together hold a stalled receiver's backlog.
 *
 * A peer that goes away is reported: a Reset from it (RFC 4340 §5.6) as
 * "reset by the peer" with its reason, silence beyond --idle-timeout as a
 * timeout.  SIGINT/SIGTERM abort the connection with Reset "Aborted", so
 * the peer learns at once that this end is gone, and so does a standard
 * output that fails (a reader that exited: SIGPIPE is ignored).
 *
 * A listener without -k serves one connection: others that complete
 * their handshake meanwhile are reset (Too Busy) rather than left in the
 * accept queue, acknowledged and never read.
 *
 * It drives the endpoint from its own poll() loop (udccp_endpoint_fd,
 * udccp_endpoint_timeout_ms, udccp_endpoint_process), the way an
 * application embeds udccp in an event loop.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

#include "cat/cat.h"

/* Accepts the next connection, returning 0 or the exit status.  Waits in
 * short steps so that a signal between connections (-k) ends the run. */
static int accept_next(const cat_opts *o, udccp_endpoint *ep, udccp_sock **s,
                       int first) {
  int wait = first && o->wait_ms != -2 ? o->wait_ms : -1;
  for (;;) {
    int step = wait < 0 || wait > 200 ? 200 : wait;
    int rv = udccp_accept(ep, s, step);
    if (rv == 0) {
      return 0;
    }
    if (cat_sig != 0) {
      return 128 + cat_sig;
    }
    if (rv != UDCCP_ERR_AGAIN) {
      return cat_report("accept", rv);
    }
    if (wait >= 0) {
      wait -= step;
      if (wait <= 0) {
        fprintf(stderr, "udccp-cat: no connection came within %.3g s (-w)\n",
                (double)o->wait_ms / 1000.0);
        return 1;
      }
    }
  }
}

int main(int argc, char **argv) {
  unsigned std_closed = cat_reserve_std_fds();
  cat_opts o;
  (void)signal(SIGPIPE, SIG_IGN); /* a reader gone is cat_out_flush()'s */
  int prv = cat_parse_args(argc, argv, std_closed, &o);
  if (prv >= 0) {
    return prv;
  }
  const char *lhost = NULL;
  if (cat_local_host(&o, &lhost) != 0) {
    return 2;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o.raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.local_host = lhost;
  /* The receiver's kernel buffer holds the packets in flight while this
   * process is descheduled (see CAT_MAX_INFLIGHT); without privilege the
   * kernel caps it at net.core.rmem_max. */
  cfg.sockbuf = CAT_SOCKBUF;
  /* DCCP has no flow control: a reader that falls behind loses datagrams
   * (Data Dropped, RFC 4340 §11.7).  A deep receive queue lets a file
   * cross intact even when this process is short of CPU for a while. */
  udccp_settings st;
  udccp_settings_default(&st);
  st.rx_qlen = 8192;
  st.idle_timeout = o.idle_ns;
  st.keepalive_idle = o.ka.keepalive_idle;
  st.keepalive_interval = o.ka.keepalive_interval;
  st.keepalive_probes = o.ka.keepalive_probes;
  if (o.multipath) {
    st.multipath = 1; /* RFC 9897 §3.1: Multipath Capable on the Request */
    if (!o.listen) {
      cfg.local_host = NULL; /* a subflow from every address given */
    }
  }
  cfg.settings = &st;
  if (o.listen) {
    cfg.local_port = o.udp_port;
    cfg.init_cookie = o.cookies;
    cfg.half_open_max = o.half_open;
    cfg.backlog = o.backlog;
  } else {
    cfg.remote_udp_port = o.udp_port;
  }
  udccp_endpoint *ep = NULL;
  errno = 0;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == UDCCP_ERR_ADDRINUSE) {
    fprintf(stderr, "udccp-cat: UDP port %u is already in use; choose "
                    "another with -p or --udp-port\n",
            (unsigned)o.udp_port);
    return 1;
  }
  if (rv == UDCCP_ERR_PERM) {
    fprintf(stderr, "udccp-cat: --raw needs root (or CAP_NET_RAW)\n");
    return 1;
  }
  if (rv == UDCCP_ERR_RESOLVE) {
    fprintf(stderr, "udccp-cat: invalid local address '%s' (give a numeric "
                    "IPv4 or IPv6 address)\n", lhost);
    return 2;
  }
  if (rv == UDCCP_ERR_SOCKET && errno != 0) {
    /* bind(2) said why: an address not on this host, a port taken */
    fprintf(stderr, "udccp-cat: cannot open the endpoint%s%s: %s\n",
            lhost != NULL ? " on " : "", lhost != NULL ? lhost : "",
            strerror(errno));
    return 1;
  }
  if (rv != 0) {
    return cat_report("cannot open the endpoint", rv);
  }
  udccp_pcap *cap = NULL;
  if (o.pcap != NULL) {
    rv = udccp_pcap_open(&cap, o.pcap);
    if (rv != 0) {
      /* a usage error, as udccp-sim's --pcap (it was exit 1) */
      fprintf(stderr, "udccp-cat: cannot create --pcap file '%s' (%s): "
                      "check the directory exists and is writable\n",
              o.pcap, strerror(errno));
      udccp_endpoint_del(ep);
      return 2;
    }
    udccp_endpoint_set_pcap(ep, cap);
  }
  udccp_sock *s = NULL;
  if (o.multipath) {
    int mrv = cat_main_mp(&o, ep);
    udccp_endpoint_del(ep);
    if (cap != NULL && udccp_pcap_close(cap) != 0 && mrv == 0) {
      fprintf(stderr, "udccp-cat: writing %s failed: it is incomplete\n",
              o.pcap);
      mrv = 1;
    }
    return mrv;
  }
  if (o.listen) {
    rv = udccp_listen(ep, o.port, &o.service, 1);
    if (rv != 0) {
      udccp_endpoint_del(ep);
      udccp_pcap_close(cap);
      return cat_report("listen", rv);
    }
  } else {
    rv = udccp_connect(ep, &s, o.host, o.port, o.service, o.ccid,
                       o.wait_ms == -2 ? 10000 : o.wait_ms);
    if (rv != 0) {
      if (rv == UDCCP_ERR_REFUSED) {
        fprintf(stderr, "udccp-cat: connection to %s port %u refused (wrong "
                        "service code, or nobody listening)\n",
                o.host, (unsigned)o.port);
      } else if (rv == UDCCP_ERR_RESOLVE) {
        fprintf(stderr, "udccp-cat: cannot resolve host '%s'\n", o.host);
      } else if (rv == UDCCP_ERR_AFNOSUPPORT && o.family != 0) {
        fprintf(stderr, "udccp-cat: host '%s' has no IPv%d address\n",
                o.host, o.family);
      } else if (rv == UDCCP_ERR_INVALID_ARGUMENT && o.ccid != 0) {
        fprintf(stderr, "udccp-cat: CCID %u is not available in this build "
                        "of libudccp; try --ccid 2\n", (unsigned)o.ccid);
      } else {
        cat_report("connect", rv);
      }
      udccp_endpoint_del(ep);
      udccp_pcap_close(cap);
      return 1;
    }
  }
  cat_catch_signals();
  cat_input in;
  memset(&in, 0, sizeof(in));
  in.buf = malloc(CAT_INBUF);
  in.eof = o.no_stdin;
  int status = in.buf == NULL ? 1 : 0;
  for (int first = 1; status == 0 || (o.keep && cat_sig == 0); first = 0) {
    if (o.listen) {
      int arv = accept_next(&o, ep, &s, first);
      if (arv != 0) {
        status = status != 0 ? status : arv;
        break;
      }
    }
    if (o.verbose) {
      const udccp_path *p = udccp_sock_get_path(s);
      fprintf(stderr, "udccp-cat: connected, DCCP ports %u -> %u, MPS %zu\n",
              (unsigned)p->local_port, (unsigned)p->remote_port,
              udccp_sock_get_mps(s));
    }
    int r = cat_run(&o, ep, s, &in);
    s = NULL;
    status = status != 0 ? status : r;
    if (!o.keep || cat_sig != 0 || cat_out_errno != 0) {
      break;
    }
  }
  free(in.buf);
  if (o.listen) {
    /* A client whose handshake's last Ack is in the socket buffer already
     * says "connected": complete it, so that it is reset too (under load,
     * a SIGTERM before the listener read that Ack left the client waiting
     * for its keepalive, 90 s: tests/io_cat_edges.sh section 3). */
    (void)udccp_endpoint_process(ep);
    cat_refuse_waiting(ep, UDCCP_RESET_ABORTED, "udccp-cat is exiting");
  }
  udccp_endpoint_del(ep);
  if (cap != NULL) {
    uint64_t frames = udccp_pcap_frames(cap);
    if (udccp_pcap_close(cap) != 0) {
      fprintf(stderr, "udccp-cat: writing %s failed: it is incomplete\n",
              o.pcap);
      status = status != 0 ? status : 1;
    } else if (o.verbose) {
      fprintf(stderr, "udccp-cat: %llu packets captured in %s\n",
              (unsigned long long)frames, o.pcap);
    }
  }
  return status;
}
