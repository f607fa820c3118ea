/* SPDX-License-Identifier: MIT */
/*
 * UDP GSO/GRO in the socket runtime (io/gso.c) over loopback DCCP-UDP: a
 * burst of equal-size datagrams sent with udccp_send_more() leaves as
 * UDP_SEGMENT super-datagrams, arrives coalesced (UDP_GRO) and is cut
 * back into DCCP packets; every datagram arrives intact and in order.
 * Also: no_offload turns both off, and a kernel refusal of GSO (here
 * forced with SO_NO_CHECK, which makes UDP_SEGMENT sends fail with
 * EINVAL) falls back to one datagram per packet without losing any.
 * RFC 4340 §14: a GSO send above the path MTU (EINVAL from the kernel)
 * is retried plainly, whose EMSGSIZE shrinks the MPS; GSO stays on.
 * RFC 6773 §3.3: each segment is one UDP datagram carrying one DCCP
 * packet, so the wire is the same with and without offload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "iopair.h"
#include "privnet.h"

#include "../io/endpoint.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define NDGRAMS 2000
#define DLEN 1000

static uint64_t ms_now(void) { return udccp_test_ms_now(); }

/* Does this kernel have the option at all?  (Linux >= 4.18 / 5.0.) */
static int kernel_has(int opt, int val) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  assert_true(fd >= 0);
  int ok = setsockopt(fd, IPPROTO_UDP, opt, &val, sizeof(val)) == 0;
  close(fd);
  return ok;
}

typedef udccp_io_pair pair;

static void drive_once(pair *p) {
  assert_int_equal(udccp_endpoint_process(p->cep), 0);
  assert_int_equal(udccp_endpoint_process(p->sep), 0);
  struct pollfd fds[2] = {{udccp_endpoint_fd(p->cep), POLLIN, 0},
                          {udccp_endpoint_fd(p->sep), POLLIN, 0}};
  int t1 = udccp_endpoint_timeout_ms(p->cep);
  int t2 = udccp_endpoint_timeout_ms(p->sep);
  int t = t1 < 0 || (t2 >= 0 && t2 < t1) ? t2 : t1;
  (void)poll(fds, 2, t < 0 || t > 1 ? 1 : t);
}

static void open_pair(pair *p, int no_offload) {
  udccp_io_pair_opts o = {.server_host = "127.0.0.1",
                          .no_offload = (uint8_t)no_offload,
                          .port = 6100, .code = 77, .ccid = 2};
  assert_int_equal(udccp_io_pair_open(p, &o), 0);
}

static void close_pair(pair *p) { udccp_io_pair_close(p); }

#define BIGLEN 65536 /* buffers: up to loopback's MPS (io/pmtu.c) */

static void fill(uint8_t *b, uint32_t seq) {
  for (size_t i = 0; i < BIGLEN; i++) {
    b[i] = (uint8_t)(seq * 7 + i * 13);
  }
  memcpy(b, &seq, sizeof(seq));
}

/* Sends NDGRAMS datagrams of len bytes in bursts and checks that each one
 * arrives at most once, in order, with its bytes.  DCCP is unreliable: a
 * datagram may be lost (a loopback socket buffer overflows when the
 * window outgrows it), but only a loss the sender's CCID declared, and
 * few of them. */
static void transfer_n(pair *p, size_t len, uint32_t ndgrams) {
  static uint8_t out[BIGLEN], in[BIGLEN + 16], want[BIGLEN];
  uint32_t sent = 0, got = 0, next = 0;
  uint64_t end = ms_now() + 20000;
  udccp_conn_info ci;
  memset(&ci, 0, sizeof(ci));
  while (next < ndgrams && ms_now() < end) {
    while (sent < ndgrams) {
      fill(out, sent);
      udccp_ssize n = sent + 1 == ndgrams
                          ? udccp_send(p->c, out, len, 0)
                          : udccp_send_more(p->c, out, len, 0);
      if (n == UDCCP_ERR_AGAIN) {
        break;
      }
      assert_int_equal(n, len);
      sent++;
    }
    drive_once(p);
    for (;;) {
      udccp_ssize n = udccp_recv(p->s, in, sizeof(in), 0);
      if (n == UDCCP_ERR_AGAIN) {
        break;
      }
      assert_int_equal(n, len);
      uint32_t seq;
      memcpy(&seq, in, sizeof(seq));
      assert_true(seq >= next && seq < ndgrams); /* in order, once */
      fill(want, seq);
      assert_memory_equal(in, want, len);
      next = seq + 1;
      got++;
    }
    udccp_sock_get_info(p->c, &ci);
    if (sent == ndgrams && ci.pipe == 0 &&
        udccp_conn_get_send_space(udccp_sock_get_conn(p->c)) > 0 &&
        ci.data_pkts_sent >= ndgrams) {
      break; /* all sent and acknowledged or declared lost */
    }
  }
  assert_int_equal(sent, ndgrams);
  if (got < ndgrams) {
    udccp_endpoint_stats ss;
    udccp_conn_info si;
    udccp_endpoint_get_stats(p->sep, &ss);
    udccp_sock_get_info(p->s, &si);
    printf("%u of %u datagrams lost; the sender's CCID declared %llu lost; "
           "server: %llu cut or bad, %llu dropped in its receive queue\n",
           ndgrams - got, ndgrams, (unsigned long long)ci.pkts_lost,
           (unsigned long long)ss.rx_bad, (unsigned long long)si.rx_qdrops);
  }
  assert_true(ndgrams - got <= ci.pkts_lost);
  assert_true((ndgrams - got) * 20 <= ndgrams);
}

static void transfer_len(pair *p, size_t len) { transfer_n(p, len, NDGRAMS); }

static void transfer(pair *p) { transfer_len(p, DLEN); }

static void print_stats(const char *what, const udccp_endpoint_stats *c,
                        const udccp_endpoint_stats *s) {
  printf("%s: client tx %llu pkts, %llu GSO sends carrying %llu, %llu "
         "fallbacks; server rx %llu pkts, %llu GRO datagrams carrying %llu\n",
         what, (unsigned long long)c->tx_pkts,
         (unsigned long long)c->tx_gso_sends,
         (unsigned long long)c->tx_gso_pkts,
         (unsigned long long)c->gso_fallbacks,
         (unsigned long long)s->rx_pkts, (unsigned long long)s->rx_gro_msgs,
         (unsigned long long)s->rx_gro_pkts);
}

static void test_rfc6773_gso_gro_used_data_intact(void **state) {
  (void)state;
  pair p;
  open_pair(&p, 0);
  transfer(&p);
  udccp_endpoint_stats cs, ss;
  udccp_endpoint_get_stats(p.cep, &cs);
  udccp_endpoint_get_stats(p.sep, &ss);
  print_stats("offload on", &cs, &ss);
  if (kernel_has(UDP_SEGMENT, 0)) {
    assert_true(cs.tx_gso_sends > 0);
    assert_true(cs.tx_gso_pkts >= 2 * cs.tx_gso_sends);
    assert_true(cs.tx_gso_pkts <= cs.tx_pkts);
    assert_int_equal(cs.gso_fallbacks, 0);
  } else {
    printf("kernel without UDP_SEGMENT: checking the plain path only\n");
    assert_int_equal(cs.tx_gso_sends, 0);
  }
  if (kernel_has(UDP_GRO, 1) && kernel_has(UDP_SEGMENT, 0)) {
    /* Loopback keeps a GSO super-datagram whole up to a UDP_GRO
     * socket, which gets it coalesced. */
    assert_true(ss.rx_gro_msgs > 0);
    assert_true(ss.rx_gro_pkts >= 2 * ss.rx_gro_msgs);
  }
  close_pair(&p);
}

static void test_io_no_offload_sends_plain(void **state) {
  (void)state;
  pair p;
  open_pair(&p, 1);
  transfer(&p);
  udccp_endpoint_stats cs, ss;
  udccp_endpoint_get_stats(p.cep, &cs);
  udccp_endpoint_get_stats(p.sep, &ss);
  print_stats("no_offload", &cs, &ss);
  assert_int_equal(cs.tx_gso_sends, 0);
  assert_int_equal(cs.tx_gso_pkts, 0);
  assert_int_equal(ss.rx_gro_msgs, 0);
  /* send_more still batches: fewer sendmmsg calls than packets */
  assert_true(cs.tx_batches < cs.tx_pkts);
  close_pair(&p);
}

static void test_io_gso_refused_falls_back(void **state) {
  (void)state;
  if (!kernel_has(UDP_SEGMENT, 0)) {
    printf("kernel without UDP_SEGMENT: the endpoint never tries GSO\n");
    pair p;
    open_pair(&p, 0);
    assert_int_equal(p.cep->gso, 0);
    close_pair(&p);
    return;
  }
  pair p;
  open_pair(&p, 0);
  assert_int_equal(p.cep->gso, 1);
  /* UDP_SEGMENT sends on a socket without UDP checksums fail (EINVAL);
   * plain ones go through with a zero checksum. */
  int one = 1;
  assert_int_equal(setsockopt(p.cep->fd[UDCCP_IO_V4], SOL_SOCKET, SO_NO_CHECK,
                              &one, sizeof(one)),
                   0);
  transfer(&p);
  udccp_endpoint_stats cs, ss;
  udccp_endpoint_get_stats(p.cep, &cs);
  udccp_endpoint_get_stats(p.sep, &ss);
  print_stats("GSO refused", &cs, &ss);
  assert_int_equal(cs.gso_fallbacks, 1);
  assert_int_equal(p.cep->gso, 0);
  assert_int_equal(cs.tx_gso_sends, 0);
  close_pair(&p);
}

/* Over loopback a connection starts from the route's MTU (io/pmtu.c):
 * 16,000-byte packets leave four to a GSO send (64 KiB at most), packets
 * near 64 KiB one by one; both arrive intact, with and without GRO (the
 * receive slots grow for them), and GSO stays on. */
static void test_io_route_mtu_large_packets(void **state) {
  (void)state;
  for (int no_offload = 0; no_offload < 2; no_offload++) {
    pair p;
    open_pair(&p, no_offload);
    size_t mps = udccp_sock_get_mps(p.c);
    assert_true(mps > 60000);
    transfer_n(&p, 16000, 400);
    udccp_endpoint_stats cs, ss;
    udccp_endpoint_get_stats(p.cep, &cs);
    uint64_t gso16 = cs.tx_gso_sends;
    transfer_n(&p, mps, 200);
    udccp_endpoint_get_stats(p.cep, &cs);
    udccp_endpoint_get_stats(p.sep, &ss);
    printf("MPS %zu, offload %s: 16000-byte packets in %llu GSO sends, "
           "%zu-byte ones in %llu more; %llu fallbacks; server rx %llu pkts, "
           "%llu cut\n",
           mps, no_offload ? "off" : "on", (unsigned long long)gso16, mps,
           (unsigned long long)(cs.tx_gso_sends - gso16),
           (unsigned long long)cs.gso_fallbacks,
           (unsigned long long)ss.rx_pkts, (unsigned long long)ss.rx_bad);
    assert_int_equal(ss.rx_bad, 0); /* no datagram was cut */
    if (!no_offload && kernel_has(UDP_SEGMENT, 0)) {
      assert_true(gso16 > 0);
      assert_true(cs.tx_gso_sends == gso16); /* too big to join */
      assert_int_equal(cs.gso_fallbacks, 0);
      assert_int_equal(p.cep->gso, 1);
    }
    close_pair(&p);
  }
}

/* A GSO send stays one datagram up to the receiver only while it, with
 * its UDP, IP and link headers, is under the device's gso_max_size
 * (65,536): Linux segments a larger one in software and loopback hands
 * the receiver each segment alone, no GRO (io/gso.c).  46 DCCP-UDP
 * packets of 1,408-byte datagrams (udccp-perf's default size; 1,424
 * bytes with the Data header) are 65,504 bytes: above it.  A batch of 64
 * such packets must reach the receiver as GRO messages only.  (The
 * packets are Data packets of no connection, put straight into the
 * transmit batch: a connection's window rarely lets 46 go at once.) */
/* A Data packet of no connection (DCCP ports 1 -> 2, one byte of tag at
 * the end of its header) put straight into the client's transmit batch,
 * owned by OWNER (NULL: none). */
static void push_raw_data(pair *p, udccp_sock *owner, const udccp_path *path,
                          size_t plen, uint8_t tag) {
  uint8_t *b = udccp_io_tx_slot(p->cep, plen);
  memset(b, 0, plen);
  b[1] = 1, b[3] = 2;  /* DCCP ports 1 -> 2 */
  b[4] = 4;            /* Data Offset: 16 bytes */
  b[8] = (2 << 1) | 1; /* Type Data, X = 1 (RFC 4340 §5.1) */
  b[15] = tag;
  udccp_io_tx_commit(p->cep, p->c->fidx, owner, path, p->c->remote_udp_port,
                     plen, 0);
}

static void test_io_gso_run_stays_whole(void **state) {
  (void)state;
  if (!kernel_has(UDP_SEGMENT, 0) || !kernel_has(UDP_GRO, 1)) {
    skip();
  }
  pair p;
  open_pair(&p, 0);
  enum { NPKT = 64, PLEN = 1424 };
  udccp_path path = p.c->path;
  path.local_port = 1;
  path.remote_port = 2;
  udccp_endpoint_stats cs0, ss0, cs, ss;
  udccp_endpoint_get_stats(p.cep, &cs0);
  udccp_endpoint_get_stats(p.sep, &ss0);
  for (int k = 0; k < NPKT; k++) {
    push_raw_data(&p, NULL, &path, PLEN, 0);
  }
  udccp_io_tx_flush(p.cep);
  udccp_endpoint_get_stats(p.cep, &cs);
  uint64_t end = ms_now() + 3000;
  do {
    drive_once(&p);
    udccp_endpoint_get_stats(p.sep, &ss);
  } while (ss.rx_pkts - ss0.rx_pkts < NPKT && ms_now() < end);
  printf("%d packets of %d bytes: %llu GSO sends carrying %llu; the "
         "receiver got %llu packets, %llu in %llu GRO messages\n",
         NPKT, PLEN,
         (unsigned long long)(cs.tx_gso_sends - cs0.tx_gso_sends),
         (unsigned long long)(cs.tx_gso_pkts - cs0.tx_gso_pkts),
         (unsigned long long)(ss.rx_pkts - ss0.rx_pkts),
         (unsigned long long)(ss.rx_gro_pkts - ss0.rx_gro_pkts),
         (unsigned long long)(ss.rx_gro_msgs - ss0.rx_gro_msgs));
  assert_int_equal(cs.tx_gso_pkts - cs0.tx_gso_pkts, NPKT);
  assert_true(ss.rx_pkts - ss0.rx_pkts >= NPKT);
  assert_true(ss.rx_gro_pkts - ss0.rx_gro_pkts >= NPKT);
  assert_true(ss.rx_gro_msgs - ss0.rx_gro_msgs <= 3);
  close_pair(&p);
}

/* Issue 13: with GSO the transmit batch leaves as whole GSO messages.  A
 * burst of 1,216-byte packets (1,200 bytes of data behind a 16-byte
 * header) makes messages of 53 (64,448 bytes: a 54th would pass the
 * kernel's 65,536 with the headers); the batch holds four of them, 212
 * packets, and leaves before the 213th.  A batch of 64 packets left as
 * 53 + 11, two messages per 64 packets (and a sendmmsg per 64). */
static void test_io_gso_batch_leaves_whole_messages(void **state) {
  (void)state;
  if (!kernel_has(UDP_SEGMENT, 0) || !kernel_has(UDP_GRO, 1)) {
    skip();
  }
  pair p;
  open_pair(&p, 0);
  enum { PLEN = 1216, RUN = 53, NPKT = 4 * RUN };
  udccp_path path = p.c->path;
  path.local_port = 1;
  path.remote_port = 2;
  udccp_endpoint_stats cs0, ss0, cs, ss;
  udccp_endpoint_get_stats(p.cep, &cs0);
  udccp_endpoint_get_stats(p.sep, &ss0);
  for (int k = 0; k < NPKT; k++) { /* (a burst: one owner, as a connection's) */
    push_raw_data(&p, p.c, &path, PLEN, (uint8_t)k);
  }
  /* the 213th's slot makes the batch of 212 leave */
  (void)udccp_io_tx_slot(p.cep, PLEN);
  udccp_endpoint_get_stats(p.cep, &cs);
  push_raw_data(&p, p.c, &path, PLEN, (uint8_t)NPKT);
  printf("%d packets of %d bytes before the %dth: %llu sends of %llu GSO "
         "messages carrying %llu\n",
         NPKT, PLEN, NPKT + 1,
         (unsigned long long)(cs.tx_batches - cs0.tx_batches),
         (unsigned long long)(cs.tx_gso_sends - cs0.tx_gso_sends),
         (unsigned long long)(cs.tx_gso_pkts - cs0.tx_gso_pkts));
  assert_int_equal(cs.tx_batches - cs0.tx_batches, 1);
  assert_int_equal(cs.tx_gso_sends - cs0.tx_gso_sends, 4);
  assert_int_equal(cs.tx_gso_pkts - cs0.tx_gso_pkts, NPKT);
  udccp_io_tx_flush(p.cep);
  uint64_t end = ms_now() + 3000;
  do {
    drive_once(&p);
    udccp_endpoint_get_stats(p.sep, &ss);
  } while (ss.rx_pkts - ss0.rx_pkts < NPKT + 1 && ms_now() < end);
  printf("the receiver got %llu packets\n",
         (unsigned long long)(ss.rx_pkts - ss0.rx_pkts));
  assert_true(ss.rx_pkts - ss0.rx_pkts >= NPKT + 1);
  close_pair(&p);
}

/* Issue 13: the transmit batch points at payloads in the send queue
 * (udccp_conn_write_pkt_sg), and the queue keeps their bytes until the
 * batch has left (udccp_sendq_hold).  So a turn's packets of more than
 * 2 KiB no longer make the batch leave at the turn's end (they were too
 * large to copy), and datagrams queued after it, which a drained queue
 * writes at its arena's start, over the first ones' bytes, change
 * nothing that is sent. */
static void test_io_batch_keeps_send_queue_bytes(void **state) {
  (void)state;
  pair p;
  open_pair(&p, 0);
  enum { LEN = 4000, N = 4 };
  static uint8_t out[BIGLEN], in[BIGLEN + 16], want[BIGLEN];
  udccp_endpoint_stats cs0;
  udccp_endpoint_get_stats(p.cep, &cs0);
  /* one datagram, generated into the batch: the queue is drained */
  fill(out, 0);
  assert_int_equal(udccp_send_more(p.c, out, LEN, 0), LEN);
  udccp_io_sock_gen(p.c);
  printf("after the turn: %zu packets in the batch, %llu sent\n", p.cep->ntx,
         (unsigned long long)(p.cep->stats.tx_pkts - cs0.tx_pkts));
  assert_int_equal(p.cep->ntx, 1);
  assert_int_equal(p.cep->stats.tx_pkts, cs0.tx_pkts);
  /* the next datagrams go where the first one was */
  for (uint32_t k = 1; k < N; k++) {
    fill(out, k);
    assert_int_equal(udccp_send_more(p.c, out, LEN, 0), LEN);
  }
  udccp_io_sock_gen(p.c);
  udccp_io_tx_flush(p.cep);
  uint32_t next = 0;
  uint64_t end = ms_now() + 5000;
  while (next < N && ms_now() < end) {
    drive_once(&p);
    for (;;) {
      udccp_ssize n = udccp_recv(p.s, in, sizeof(in), 0);
      if (n == UDCCP_ERR_AGAIN) {
        break;
      }
      assert_int_equal(n, LEN);
      fill(want, next);
      assert_memory_equal(in, want, LEN); /* in order, each intact */
      next++;
    }
  }
  assert_int_equal(next, N);
  /* held packets, then the connection closed without waiting: its queue
   * outlives them (ASan would see a read of freed memory) */
  fill(out, 9);
  assert_int_equal(udccp_send_more(p.c, out, LEN, 0), LEN);
  udccp_io_sock_gen(p.c);
  (void)udccp_close(p.c, 0);
  p.c = NULL;
  udccp_abort(p.s);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

/* Runs last: it moves the process into its own network namespace. */
static void test_rfc4340_14_gso_above_pmtu_shrinks_mps(void **state) {
  (void)state;
  if (!kernel_has(UDP_SEGMENT, 0)) {
    skip();
  }
  if (udccp_test_private_loopback(1500) != 0) {
    fail_msg("needs root (a network namespace with its own loopback)");
  }
  pair p;
  open_pair(&p, 0);
  assert_int_equal(p.cep->gso, 1);
  size_t mps0 = udccp_sock_get_mps(p.c);
  assert_true(mps0 >= 1300); /* the route's 1500-byte MTU at connect */
  /* the path's MTU drops to 1280 under the open connection */
  assert_int_equal(udccp_test_set_loopback_mtu(1280), 0);
  /* A burst of 1300-byte datagrams: the GSO send is refused (EINVAL:
   * segment above the MTU), the plain retry gets EMSGSIZE, and the MPS
   * shrinks.  Those packets are lost, as in the network. */
  static uint8_t out[BIGLEN];
  fill(out, 0);
  for (int k = 0; k < 8; k++) {
    assert_int_equal(udccp_send_more(p.c, out, 1300, 0), 1300);
  }
  assert_int_equal(udccp_endpoint_process(p.cep), 0);
  size_t mps1 = udccp_sock_get_mps(p.c);
  udccp_endpoint_stats cs;
  udccp_endpoint_get_stats(p.cep, &cs);
  printf("path MTU 1280: MPS %zu -> %zu, %llu PMTU updates, %llu GSO "
         "fallbacks\n", mps0, mps1, (unsigned long long)cs.pmtu_updates,
         (unsigned long long)cs.gso_fallbacks);
  assert_true(cs.pmtu_updates > 0);
  assert_true(mps1 < 1300);
  assert_int_equal(udccp_send(p.c, out, 1300, 0), UDCCP_ERR_MSGSIZE);
  /* not the kernel's lack of GSO: it stays on, and works below the MTU */
  assert_int_equal(cs.gso_fallbacks, 0);
  assert_int_equal(p.cep->gso, 1);
  uint64_t before = cs.tx_gso_sends;
  /* the lost 1300-byte datagrams do not count: DCCP does not resend */
  udccp_ssize junk;
  static uint8_t in[BIGLEN];
  while ((junk = udccp_recv(p.s, in, sizeof(in), 0)) >= 0) {
  }
  transfer_len(&p, 1000);
  udccp_endpoint_get_stats(p.cep, &cs);
  assert_true(cs.tx_gso_sends > before);
  close_pair(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc6773_gso_gro_used_data_intact),
      cmocka_unit_test(test_io_no_offload_sends_plain),
      cmocka_unit_test(test_io_gso_refused_falls_back),
      cmocka_unit_test(test_io_route_mtu_large_packets),
      cmocka_unit_test(test_io_gso_run_stays_whole),
      cmocka_unit_test(test_io_gso_batch_leaves_whole_messages),
      cmocka_unit_test(test_io_batch_keeps_send_queue_bytes),
      cmocka_unit_test(test_rfc4340_14_gso_above_pmtu_shrinks_mps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
