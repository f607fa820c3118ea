/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP over the socket runtime (io/mp.c, RFC 9897) on loopback
 * DCCP-UDP: a client with two local addresses (127.0.0.1 and 127.0.0.2)
 * opens a first subflow and joins from the second (§3.3); the server
 * attaches the join to the connection it accepted (§3.2.2: by CI); both
 * subflows carry datagrams, which arrive in MP_SEQ order (§3.2.5).
 * Fallback (§3.6): against a server without multipath, and a plain
 * client against a multipath server, the connection is plain DCCP and
 * carries data.  Two endpoints in one thread; drive() runs both loops.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#define SVC 42
#define DPORT 7000
#define NDG 3000
#define LEN 1000

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void drive_once(udccp_endpoint *a, udccp_endpoint *b) {
  struct pollfd p[2];
  assert_int_equal(udccp_endpoint_process(a), 0);
  assert_int_equal(udccp_endpoint_process(b), 0);
  p[0].fd = udccp_endpoint_fd(a);
  p[0].events = POLLIN;
  p[1].fd = udccp_endpoint_fd(b);
  p[1].events = POLLIN;
  (void)poll(p, 2, 1);
}

static udccp_endpoint *mk_ep(int multipath, uint16_t remote_udp_port) {
  udccp_endpoint_config cfg;
  udccp_settings st;
  udccp_endpoint *ep = NULL;
  udccp_settings_default(&st);
  st.multipath = (uint8_t)multipath;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = NULL; /* every address: subflows from each */
  cfg.remote_udp_port = remote_udp_port;
  cfg.settings = &st;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

typedef struct run {
  udccp_endpoint *cep, *sep;
  udccp_mpsock *c, *s;
  uint64_t sent, got, disorder;
  uint32_t last;
} run;

/* The client's connect, non-blocking, then both loops until accepted. */
static void open_pair(run *r, int server_mp, size_t nlocal) {
  static const char *const local[2] = {"127.0.0.1", "127.0.0.2"};
  static const uint32_t svc = SVC;
  uint16_t port;
  uint64_t end;
  memset(r, 0, sizeof(*r));
  r->sep = mk_ep(server_mp, 0);
  port = udccp_endpoint_local_port(r->sep);
  assert_int_equal(udccp_listen(r->sep, DPORT, &svc, 1), 0);
  r->cep = mk_ep(1, port);
  assert_int_equal(udccp_mpsock_connect(r->cep, &r->c, "127.0.0.1", DPORT,
                                        SVC, 2, local, nlocal, 0),
                   0);
  end = ms_now() + 5000;
  while (r->s == NULL && ms_now() < end) {
    drive_once(r->cep, r->sep);
    if (udccp_mpsock_accept(r->sep, &r->s, 0) != 0) {
      r->s = NULL;
    }
  }
  assert_non_null(r->s);
}

/* Both loops until the server has the second subflow (the join follows
 * once the first is OPEN); its info into *si. */
static void wait_joined(run *r, udccp_mp_info *si) {
  uint64_t end = ms_now() + 5000;
  do {
    drive_once(r->cep, r->sep);
    assert_int_equal(udccp_mpsock_get_info(r->s, si), 0);
  } while (si->n_subflows < 2 && ms_now() < end);
  assert_int_equal(si->n_subflows, 2);
}

/* Sends NDG numbered datagrams and reads them; bounded by time. */
static void transfer(run *r) {
  uint8_t buf[LEN];
  uint64_t end = ms_now() + 15000;
  memset(buf, 0x33, sizeof(buf));
  while (r->got < NDG && ms_now() < end) {
    while (r->sent < NDG) {
      buf[0] = (uint8_t)(r->sent >> 24);
      buf[1] = (uint8_t)(r->sent >> 16);
      buf[2] = (uint8_t)(r->sent >> 8);
      buf[3] = (uint8_t)r->sent;
      if (udccp_mpsock_send(r->c, buf, sizeof(buf), 0) != (udccp_ssize)LEN) {
        break;
      }
      r->sent++;
    }
    drive_once(r->cep, r->sep);
    for (;;) {
      uint8_t in[2000];
      udccp_ssize n = udccp_mpsock_recv(r->s, in, sizeof(in), 0);
      uint32_t k;
      if (n < 0) {
        break;
      }
      assert_int_equal(n, LEN);
      k = (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 |
          (uint32_t)in[2] << 8 | in[3];
      if (r->got > 0 && k <= r->last) {
        r->disorder++;
      }
      r->last = k;
      r->got++;
    }
  }
}

static void close_pair(run *r) {
  /* one thread: nobody runs the peer while a close would wait */
  (void)udccp_mpsock_close(r->c, 0);
  (void)udccp_mpsock_close(r->s, 0);
  udccp_endpoint_del(r->cep);
  udccp_endpoint_del(r->sep);
}

/* RFC 9897 §3.3: the join from the second address is attached at the
 * server; the scheduler uses both subflows; MP_SEQ order at the app. */
static void test_io_mp_two_subflows_3_3(void **state) {
  run r;
  udccp_mp_info ci, si;
  (void)state;
  open_pair(&r, 1, 2);
  /* the join follows once the first subflow is OPEN */
  wait_joined(&r, &si);
  assert_int_equal(udccp_mpsock_set_sched(r.c, UDCCP_MP_SCHED_RR), 0);
  transfer(&r);
  assert_int_equal(udccp_mpsock_get_info(r.c, &ci), 0);
  assert_int_equal(udccp_mpsock_get_info(r.s, &si), 0);
  print_message("client: %u subflows, sent %llu+%llu datagrams (share "
                "%u/%u permille); server got %llu (%llu+%llu), %llu out "
                "of order\n",
                ci.n_subflows, (unsigned long long)ci.sub[0].tx_dgrams,
                (unsigned long long)ci.sub[1].tx_dgrams,
                ci.sub[0].share_permille, ci.sub[1].share_permille,
                (unsigned long long)r.got,
                (unsigned long long)si.sub[0].rx_dgrams,
                (unsigned long long)si.sub[1].rx_dgrams,
                (unsigned long long)r.disorder);
  assert_int_equal(ci.active, 1);
  assert_int_equal(si.active, 1);
  assert_int_equal(ci.n_subflows, 2);
  assert_int_equal(ci.sub[1].joined, 1);
  assert_int_equal(ci.sub[1].path.local_addr[3], 2); /* from 127.0.0.2 */
  assert_true(ci.sub[0].tx_dgrams > 0 && ci.sub[1].tx_dgrams > 0);
  assert_true(si.sub[0].rx_dgrams > 0 && si.sub[1].rx_dgrams > 0);
  assert_true(r.got >= NDG * 9 / 10); /* loopback: next to no loss */
  assert_int_equal(r.disorder, 0);
  close_pair(&r);
}

/* The MP_SEQ numbers (RFC 9897 §3.2.5) of the Data and DataAck packets
 * in a capture (LINKTYPE_RAW: IPv4, UDP, DCCP with 48-bit numbers), in
 * the order they were written; returns how many went into seq[]. */
static size_t capture_mp_seqs(const char *path, uint64_t *seq, size_t cap) {
  FILE *f = fopen(path, "rb");
  uint8_t rec[16], pkt[2048];
  size_t n = 0;
  assert_non_null(f);
  assert_int_equal(fread(pkt, 1, 24, f), 24); /* the file header */
  while (fread(rec, 1, 16, f) == 16) {
    uint32_t len = (uint32_t)rec[8] | (uint32_t)rec[9] << 8 |
                   (uint32_t)rec[10] << 16 | (uint32_t)rec[11] << 24;
    size_t ip, d, doff, pos, type;
    assert_true(len <= sizeof(pkt));
    assert_int_equal(fread(pkt, 1, len, f), len);
    ip = (size_t)(pkt[0] & 15) * 4;
    if ((pkt[0] >> 4) != 4 || pkt[9] != 17 || len < ip + 8 + 16) {
      continue;
    }
    d = ip + 8; /* RFC 6773: the DCCP packet is the UDP payload */
    doff = (size_t)pkt[d + 4] * 4;
    type = (pkt[d + 8] >> 1) & 15;
    if ((type != 2 && type != 4) || !(pkt[d + 8] & 1) || d + doff > len) {
      continue; /* RFC 4340 §5.1: Data 2, DataAck 4 (+ 8 bytes) */
    }
    /* RFC 4340 §5.8: single-byte options below 32, then type-length */
    for (pos = d + 16 + (type == 4 ? 8 : 0); pos < d + doff;) {
      if (pkt[pos] < 32) {
        pos++;
        continue;
      }
      if (pos + 1 >= d + doff || pkt[pos + 1] < 2) {
        break;
      }
      if (pkt[pos] == 46 && pkt[pos + 1] == 9 && pkt[pos + 2] == 4 &&
          n < cap) {
        uint64_t v = 0;
        for (size_t k = 0; k < 6; k++) {
          v = v << 8 | pkt[pos + 3 + k];
        }
        seq[n++] = v;
      }
      pos += pkt[pos + 1];
    }
  }
  fclose(f);
  return n;
}

/* RFC 9897 §3.2.5: the datagrams leave in MP_SEQ order.  A subflow given a
 * datagram by the scheduler used to send it only at its own turn in the
 * loop, after the subflow being written had taken and sent later numbers
 * for as long as its window let it: reordered on the wire by the sender
 * alone, and on a loaded machine (a preemption in between) by more than
 * the receiver's reordering bound, which then gave the number up (lines
 * lost by udccp-cat --multipath, tests/io_cat_mp.sh).  The client's
 * capture is in the order the packets were written. */
static void test_io_mp_wire_order_3_2_5(void **state) {
  run r;
  udccp_mp_info si;
  udccp_pcap *pc = NULL;
  char path[] = "/tmp/udccp-io-mp-order.XXXXXX";
  static uint64_t seq[2 * NDG];
  size_t n, k, behind = 0;
  uint64_t top = 0;
  int fd = mkstemp(path);
  (void)state;
  assert_true(fd >= 0);
  close(fd);
  open_pair(&r, 1, 2);
  wait_joined(&r, &si);
  assert_int_equal(udccp_pcap_open(&pc, path), 0);
  udccp_endpoint_set_pcap(r.cep, pc);
  assert_int_equal(udccp_mpsock_set_sched(r.c, UDCCP_MP_SCHED_RR), 0);
  transfer(&r);
  udccp_endpoint_set_pcap(r.cep, NULL);
  assert_int_equal(udccp_pcap_close(pc), 0);
  n = capture_mp_seqs(path, seq, sizeof(seq) / sizeof(seq[0]));
  unlink(path);
  for (k = 0; k < n; k++) {
    /* 48-bit numbers: top is the highest so far */
    if (k > 0 && ((seq[k] - top) & 0xFFFFFFFFFFFFULL) >= (1ULL << 47)) {
      behind++;
    } else {
      top = seq[k];
    }
  }
  print_message("%zu datagrams with MP_SEQ in the client's capture, %zu "
                "written after a higher number\n",
                n, behind);
  assert_true(n >= NDG * 9 / 10);
  assert_int_equal(behind, 0);
  close_pair(&r);
}

/* RFC 9897 §3.2.3: udccp_mpsock_abort sends Reset code 13 with
 * MP_FAST_CLOSE on every subflow; the server's subflows all end with
 * Reset 13 and its connection reports the end. */
static void test_io_mp_abort_fast_close_3_2_3(void **state) {
  run r;
  udccp_mp_info si;
  uint64_t end;
  int done = 0;
  (void)state;
  open_pair(&r, 1, 2);
  wait_joined(&r, &si);
  udccp_mpsock_abort(r.c);
  r.c = NULL;
  end = ms_now() + 5000;
  while (!done && ms_now() < end) {
    uint8_t in[2000];
    drive_once(r.cep, r.sep);
    udccp_ssize n = udccp_mpsock_recv(r.s, in, sizeof(in), 0);
    done = n < 0 && n != UDCCP_ERR_AGAIN;
  }
  assert_int_equal(udccp_mpsock_get_info(r.s, &si), 0);
  print_message("server after the client's abort: subflow states %d, %d; "
                "reset codes %d, %d\n", si.sub[0].state, si.sub[1].state,
                udccp_sock_reset_code(udccp_mpsock_subflow(r.s, 0)),
                udccp_sock_reset_code(udccp_mpsock_subflow(r.s, 1)));
  assert_true(done);
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(udccp_sock_reset_code(udccp_mpsock_subflow(r.s, i)),
                     UDCCP_RESET_MP_ABRUPT);
    assert_int_not_equal(si.sub[i].state, UDCCP_STATE_OPEN);
  }
  close_pair(&r);
}

/* RFC 9897 §3.6: a server without multipath: plain DCCP, data flows. */
static void test_io_mp_fallback_server_plain_3_6(void **state) {
  run r;
  udccp_mp_info ci, si;
  (void)state;
  open_pair(&r, 0, 2);
  transfer(&r);
  assert_int_equal(udccp_mpsock_get_info(r.c, &ci), 0);
  assert_int_equal(udccp_mpsock_get_info(r.s, &si), 0);
  assert_int_equal(ci.active, 0);
  assert_int_equal(si.active, 0);
  assert_int_equal(ci.n_subflows, 1); /* no join was tried */
  assert_true(r.got >= NDG * 9 / 10);
  close_pair(&r);
}

/* RFC 9897 §3.6: a plain client (udccp_connect) against a multipath
 * server: the accepted connection is plain DCCP. */
static void test_io_mp_fallback_client_plain_3_6(void **state) {
  static const uint32_t svc = SVC;
  udccp_endpoint *sep = mk_ep(1, 0), *cep;
  udccp_sock *c = NULL;
  udccp_mpsock *s = NULL;
  udccp_mp_info si;
  uint8_t buf[LEN], in[2000];
  uint64_t end, got = 0;
  int i;
  (void)state;
  assert_int_equal(udccp_listen(sep, DPORT, &svc, 1), 0);
  cep = mk_ep(0, udccp_endpoint_local_port(sep));
  assert_int_equal(udccp_connect(cep, &c, "127.0.0.1", DPORT, SVC, 2, 0), 0);
  end = ms_now() + 5000;
  while (s == NULL && ms_now() < end) {
    drive_once(cep, sep);
    if (udccp_mpsock_accept(sep, &s, 0) != 0) {
      s = NULL;
    }
  }
  assert_non_null(s);
  memset(buf, 1, sizeof(buf));
  for (i = 0; i < 20; i++) {
    assert_int_equal(udccp_send(c, buf, sizeof(buf), 1000), LEN);
  }
  end = ms_now() + 5000;
  while (got < 20 && ms_now() < end) {
    drive_once(cep, sep);
    while (udccp_mpsock_recv(s, in, sizeof(in), 0) == LEN) {
      got++;
    }
  }
  assert_int_equal(got, 20);
  assert_int_equal(udccp_mpsock_get_info(s, &si), 0);
  assert_int_equal(si.active, 0);
  (void)udccp_close(c, 0);
  (void)udccp_mpsock_close(s, 0);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

/* RFC 9897 §3.6 against a plain server that speaks first, as Linux's
 * (which knows neither feature 10 nor option 46) does in the kernel
 * interop: the server sends the moment it accepts, while the client is
 * still PARTOPEN; and a server that only receives never sends a packet
 * that would move the client out of PARTOPEN.  The client must take the
 * fallback from the Response: its first datagrams reach the application
 * (none kept back for MP_SEQ), and its own data leaves in PARTOPEN. */
static void test_io_mp_fallback_partopen_3_6(void **state) {
  static const char *const local[1] = {"127.0.0.1"};
  static const uint32_t svc = SVC;
  udccp_endpoint *sep = mk_ep(0, 0), *cep;
  udccp_mpsock *c = NULL;
  udccp_sock *s = NULL;
  udccp_mp_info ci;
  uint8_t buf[LEN], in[2000];
  uint64_t end, got = 0, sgot = 0;
  int i;
  (void)state;
  assert_int_equal(udccp_listen(sep, DPORT, &svc, 1), 0);
  cep = mk_ep(1, udccp_endpoint_local_port(sep));
  assert_int_equal(udccp_mpsock_connect(cep, &c, "127.0.0.1", DPORT, SVC, 2,
                                        local, 1, 0),
                   0);
  end = ms_now() + 5000;
  while (s == NULL && ms_now() < end) {
    /* the server's loop alone until it accepts: the client has read the
     * Response (PARTOPEN) and sent its Ack, nothing since */
    assert_int_equal(udccp_endpoint_process(cep), 0);
    assert_int_equal(udccp_endpoint_process(sep), 0);
    if (udccp_accept(sep, &s, 0) != 0) {
      s = NULL;
      (void)poll(NULL, 0, 1);
    }
  }
  assert_non_null(s);
  for (i = 0; i < 3; i++) {
    memset(buf, 'a' + i, sizeof(buf));
    assert_int_equal(udccp_send(s, buf, sizeof(buf), 1000), LEN);
  }
  for (i = 0; i < 3; i++) {
    memset(buf, 'x', sizeof(buf));
    assert_int_equal(udccp_mpsock_send(c, buf, sizeof(buf), 0), LEN);
  }
  end = ms_now() + 5000;
  while ((got < 3 || sgot < 3) && ms_now() < end) {
    drive_once(cep, sep);
    while (udccp_mpsock_recv(c, in, sizeof(in), 0) == LEN) {
      assert_int_equal(in[0], 'a' + (int)got); /* in order, none missing */
      got++;
    }
    while (udccp_recv(s, in, sizeof(in), 0) == LEN) {
      sgot++;
    }
  }
  printf("fallback from PARTOPEN: client got %llu of 3, server %llu of 3\n",
         (unsigned long long)got, (unsigned long long)sgot);
  assert_int_equal(got, 3);
  assert_int_equal(sgot, 3);
  assert_int_equal(udccp_mpsock_get_info(c, &ci), 0);
  assert_int_equal(ci.active, 0);
  assert_int_equal(ci.n_subflows, 1);
  (void)udccp_mpsock_close(c, 0);
  (void)udccp_close(s, 0);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

/* RFC 9897 §3.2.8 / §3.2.9: the server announces 127.0.0.2; the client
 * (one local address) opens a join to it, and the server attaches it;
 * once the server withdraws it, the client closes that subflow. */
static void test_io_mp_addaddr_join_removeaddr_3_2_8(void **state) {
  run r;
  udccp_mp_info ci, si;
  uint64_t end;
  int id;
  (void)state;
  open_pair(&r, 1, 1);
  end = ms_now() + 5000;
  do {
    drive_once(r.cep, r.sep);
    id = udccp_mpsock_announce(r.s, "127.0.0.2", 0);
  } while (id == UDCCP_ERR_INVALID_STATE && ms_now() < end);
  assert_true(id >= 0);
  end = ms_now() + 5000;
  do {
    drive_once(r.cep, r.sep);
    assert_int_equal(udccp_mpsock_get_info(r.s, &si), 0);
  } while (si.n_subflows < 2 && ms_now() < end);
  assert_int_equal(udccp_mpsock_get_info(r.c, &ci), 0);
  print_message("after MP_ADDADDR 127.0.0.2 (id %d): client %u subflows, "
                "server %u\n", id, ci.n_subflows, si.n_subflows);
  assert_int_equal(ci.n_subflows, 2);
  assert_int_equal(si.n_subflows, 2);
  assert_int_equal(ci.sub[1].path.remote_addr[3], 2); /* to 127.0.0.2 */
  assert_int_equal(ci.sub[1].path.local_addr[3], 1);  /* from ours */
  end = ms_now() + 5000;
  do {
    drive_once(r.cep, r.sep);
    assert_int_equal(udccp_mpsock_get_info(r.c, &ci), 0);
  } while (ci.sub[1].state != UDCCP_STATE_OPEN && ms_now() < end);
  assert_int_equal(ci.sub[1].state, UDCCP_STATE_OPEN);
  assert_int_equal(udccp_mpsock_unannounce(r.s, id), 0);
  end = ms_now() + 5000;
  do {
    drive_once(r.cep, r.sep);
    assert_int_equal(udccp_mpsock_get_info(r.c, &ci), 0);
  } while (ci.sub[1].state == UDCCP_STATE_OPEN && ms_now() < end);
  print_message("after MP_REMOVEADDR: the client's subflow to 127.0.0.2 "
                "is %s\n", udccp_state_str(ci.sub[1].state));
  assert_int_not_equal(ci.sub[1].state, UDCCP_STATE_OPEN);
  assert_int_equal(ci.sub[0].state, UDCCP_STATE_OPEN);
  /* data still flows on the first path */
  transfer(&r);
  assert_true(r.got >= NDG * 9 / 10);
  close_pair(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_mp_two_subflows_3_3),
      cmocka_unit_test(test_io_mp_wire_order_3_2_5),
      cmocka_unit_test(test_io_mp_abort_fast_close_3_2_3),
      cmocka_unit_test(test_io_mp_fallback_server_plain_3_6),
      cmocka_unit_test(test_io_mp_fallback_client_plain_3_6),
      cmocka_unit_test(test_io_mp_fallback_partopen_3_6),
      cmocka_unit_test(test_io_mp_addaddr_join_removeaddr_3_2_8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
