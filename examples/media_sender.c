/* SPDX-License-Identifier: MIT */
/*
 * media_sender: a CCID 3 (TFRC, RFC 4342) media sender that adapts its
 * bitrate to the rate the network allows, and the receiver it sends to.
 *
 *   media_sender recv UDP_PORT [READ_KBPS]
 *   media_sender send HOST UDP_PORT SECONDS [MAX_KBPS [LOCAL_UDP_PORT]]
 *
 * The sender makes 25 frames a second.  Every 250 ms it reads
 * udccp_conn_info.x (bytes/s of payload it may send now: the rate to
 * follow) and sets its encoder bitrate to 90 % of it, within 64 kbit/s ..
 * MAX_KBPS (default 20000).  Each frame is cut into datagrams of at most
 * 1000 bytes and sent with udccp_send_ex(): a key frame (one in 25) with
 * priority 2, the others with 1 (UDCCP_QPOLICY_PRIO: when the send queue
 * is full, a key frame pushes out a delta frame's datagram), and a 200 ms
 * deadline: a datagram that could not leave in time is dropped, not sent
 * late.  It prints the allowed rate, its bitrate and what the receiver
 * reports receiving, twice a second.
 *
 * The receiver accepts one sender, reads at most READ_KBPS kbit/s
 * (default: as fast as it comes; a slow reader makes the sender slow down,
 * RFC 4340 §11.6 / §11.7) and prints what it received each second.
 *
 * DCCP port 5004, service code "MEDI".  Both stop after SECONDS (the
 * receiver when the sender closes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

#define DCCP_PORT 5004
#define FPS 25
#define DGRAM_MAX 1000
#define MIN_BPS 64000.0

static uint32_t service(void) {
  uint32_t code = 0;
  (void)udccp_service_code_parse("MEDI", &code);
  return code;
}

static double secs(udccp_tstamp t) { return (double)t / 1e9; }

static int receiver(uint16_t udp_port, double read_bps) {
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", udp_port);
  uint32_t code = service();
  if (rv == 0) {
    rv = udccp_listen(ep, DCCP_PORT, &code, 1);
  }
  if (rv != 0) {
    fprintf(stderr, "media_sender recv: UDP %u, DCCP %u: %s\n",
            (unsigned)udp_port, DCCP_PORT, udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  printf("receiver: listening on UDP %u, DCCP %u\n", (unsigned)udp_port,
         DCCP_PORT);
  fflush(stdout);
  udccp_sock *s = NULL;
  if ((rv = udccp_accept(ep, &s, 30000)) != 0) {
    fprintf(stderr, "media_sender recv: accept: %s\n", udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  udccp_tstamp start = udccp_now(), mark = start;
  uint64_t bytes = 0, total = 0, dgrams = 0;
  static uint8_t buf[65536]; /* any datagram: less refuses big ones */
  for (;;) {
    udccp_tstamp now = udccp_now();
    if (read_bps > 0 && (double)total * 8.0 > read_bps * secs(now - start)) {
      /* ahead of the read rate: let the loop run without reading */
      (void)udccp_endpoint_run(ep, 5);
      continue;
    }
    udccp_ssize n = udccp_recv(s, buf, sizeof(buf), 100);
    now = udccp_now();
    if (n >= 0) {
      bytes += (uint64_t)n;
      total += (uint64_t)n;
      dgrams++;
    } else if (n != UDCCP_ERR_AGAIN) {
      if (n != UDCCP_ERR_CLOSED) { /* the sender closed: the normal end */
        fprintf(stderr, "media_sender recv: %s\n", udccp_io_strerror((int)n));
      }
      break;
    }
    if (now - mark >= UDCCP_NS_PER_S) {
      printf("receiver: %5.1f s  %8.3f Mbit/s\n", secs(now - start),
             (double)bytes * 8.0 / secs(now - mark) / 1e6);
      fflush(stdout);
      bytes = 0;
      mark = now;
    }
  }
  udccp_conn_info ci;
  udccp_sock_get_info(s, &ci);
  printf("receiver: done: %llu datagrams, %llu bytes, %llu lost in the "
         "network, %llu dropped by the receive queue\n",
         (unsigned long long)dgrams, (unsigned long long)total,
         (unsigned long long)ci.pkts_lost_rx, (unsigned long long)ci.rx_qdrops);
  (void)udccp_close(s, 2000);
  udccp_endpoint_del(ep);
  return 0;
}

static int sender(const char *host, uint16_t udp_port, double seconds,
                  double max_bps, uint16_t local_port) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.remote_udp_port = udp_port;
  cfg.local_port = local_port; /* 0: ephemeral */
  udccp_settings set;
  udccp_settings_default(&set);
  set.qpolicy = UDCCP_QPOLICY_PRIO; /* key frames before delta frames */
  set.tx_qlen = 256; /* a whole frame at the highest bitrate */
  set.ack_vectors = 1; /* learn each lost datagram (pkts_lost), not only
                          loss events: RFC 4342 §5 */
  cfg.settings = &set;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  udccp_sock *s = NULL;
  if (rv == 0) {
    rv = udccp_connect(ep, &s, host, DCCP_PORT, service(), 3, 5000);
  }
  if (rv != 0) {
    fprintf(stderr, "media_sender send: %s UDP %u DCCP %u: %s\n", host,
            (unsigned)udp_port, DCCP_PORT, udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  udccp_conn_info ci;
  udccp_sock_get_info(s, &ci);
  if (ci.tx_ccid != 3) {
    fprintf(stderr, "media_sender send: the peer settled on CCID %u\n",
            (unsigned)ci.tx_ccid);
  }
  double bitrate = MIN_BPS, sent_bits = 0;
  uint64_t frames = 0, dropped = 0, refused = 0;
  udccp_tstamp start = udccp_now(), next_frame = start, next_adapt = start,
               next_print = start + UDCCP_NS_PER_S / 2;
  udccp_tstamp end = start + (udccp_tstamp)(seconds * 1e9);
  uint8_t dgram[DGRAM_MAX];
  memset(dgram, 0x5a, sizeof(dgram));
  while (udccp_now() < end) {
    udccp_tstamp now = udccp_now();
    if (now >= next_adapt) {
      /* Follow x: the payload rate the CCID allows now (bytes/s). */
      udccp_sock_get_info(s, &ci);
      double allowed = (double)ci.x * 8.0;
      bitrate = 0.9 * allowed;
      bitrate = bitrate < MIN_BPS ? MIN_BPS : bitrate;
      bitrate = bitrate > max_bps ? max_bps : bitrate;
      next_adapt = now + UDCCP_NS_PER_S / 4;
    }
    if (now >= next_frame) {
      /* One frame: bitrate / FPS bits in datagrams of <= DGRAM_MAX. */
      int key = frames % FPS == 0;
      size_t left = (size_t)(bitrate / 8.0 / FPS);
      udccp_send_opts o = UDCCP_SEND_OPTS_INIT;
      o.prio = key ? 2 : 1;
      o.expires = next_frame + 200 * UDCCP_NS_PER_MS;
      while (left > 0) {
        size_t len = left < DGRAM_MAX ? left : DGRAM_MAX;
        dgram[0] = (uint8_t)key;
        udccp_ssize r = udccp_send_ex(s, dgram, len, &o, 0);
        if (r == (udccp_ssize)len) {
          sent_bits += (double)len * 8.0;
        } else if (r == UDCCP_ERR_AGAIN || r == UDCCP_ERR_DROPPED) {
          refused++; /* the queue is full: this frame loses a piece */
        } else {
          fprintf(stderr, "media_sender send: %s\n", udccp_io_strerror((int)r));
          udccp_endpoint_del(ep);
          return 1;
        }
        left -= len;
      }
      frames++;
      next_frame += UDCCP_NS_PER_S / FPS;
    }
    if (now >= next_print) {
      udccp_sock_get_info(s, &ci);
      dropped = ci.tx_expired;
      printf("sender: %5.1f s  allowed %8.3f Mbit/s  bitrate %8.3f Mbit/s  "
             "receiver reports %8.3f Mbit/s  rtt %.2f ms  p %.4f\n",
             secs(now - start), (double)ci.x * 8.0 / 1e6, bitrate / 1e6,
             (double)ci.x_recv * 8.0 / 1e6, secs(ci.srtt) * 1e3, ci.p);
      fflush(stdout);
      next_print += UDCCP_NS_PER_S / 2;
    }
    /* Sleep until the next frame, running the endpoint meanwhile. */
    now = udccp_now();
    int wait = next_frame > now ? (int)((next_frame - now) / UDCCP_NS_PER_MS)
                                : 0;
    (void)udccp_endpoint_run(ep, wait);
  }
  udccp_sock_get_info(s, &ci);
  printf("sender: done: %llu frames, %.3f Mbit/s on average, final bitrate "
         "%.3f Mbit/s; %llu datagrams dropped at their deadline, %llu "
         "refused by a full queue, %llu lost in the network\n",
         (unsigned long long)frames, sent_bits / seconds / 1e6,
         bitrate / 1e6, (unsigned long long)ci.tx_expired,
         (unsigned long long)refused, (unsigned long long)ci.pkts_lost);
  (void)dropped;
  rv = udccp_close(s, 5000);
  udccp_endpoint_del(ep);
  return rv == 0 || rv == UDCCP_ERR_TIMEOUT ? 0 : 1;
}

/* A number argument in [min, max] (atoi() read "abc" as 0: "recv abc"
 * listened on a random UDP port). */
static int num_arg(const char *s, double min, double max, double *v) {
  char *end = NULL;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && *v >= min && *v <= max ? 0 : -1;
}

static int usage(void) {
  fprintf(stderr, "usage: media_sender recv UDP_PORT [READ_KBPS]\n"
                  "       media_sender send HOST UDP_PORT SECONDS "
                  "[MAX_KBPS [LOCAL_UDP_PORT]]\n"
                  "(ports 1..65535, SECONDS and the rates > 0)\n");
  return 2;
}

int main(int argc, char **argv) {
  double port, kbps = 0, secs, local = 0;
  if (argc >= 3 && argc <= 4 && strcmp(argv[1], "recv") == 0) {
    if (num_arg(argv[2], 1, 65535, &port) != 0 || port != (int)port ||
        (argc > 3 && num_arg(argv[3], 1e-3, 1e9, &kbps) != 0)) {
      return usage();
    }
    return receiver((uint16_t)port, kbps * 1000.0);
  }
  if (argc >= 5 && argc <= 7 && strcmp(argv[1], "send") == 0) {
    double max_kbps = 20000;
    if (num_arg(argv[3], 1, 65535, &port) != 0 || port != (int)port ||
        num_arg(argv[4], 1e-3, 1e6, &secs) != 0 ||
        (argc > 5 && num_arg(argv[5], 64, 1e9, &max_kbps) != 0) ||
        (argc > 6 && (num_arg(argv[6], 1, 65535, &local) != 0 ||
                      local != (int)local))) {
      return usage();
    }
    return sender(argv[2], (uint16_t)port, secs, max_kbps * 1000.0,
                  (uint16_t)local);
  }
  return usage();
}
