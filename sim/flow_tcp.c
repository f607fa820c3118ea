/*
 * The reference TCP: a greedy NewReno sender and a cumulative-ACK receiver,
 * in whole 1460-byte segments, as the yardstick for udccp's fairness.
 *   - slow start and congestion avoidance (RFC 5681 §3.1), Appropriate
 *     Byte Counting with L = 2 (RFC 3465), initial window 3 segments;
 *   - fast retransmit and fast recovery with NewReno partial acks
 *     (RFC 6582 §3.2), `recover` guarding against repeated reductions;
 *   - RTO per RFC 6298 with Karn's rule, exponential backoff and
 *     go-back-N after a timeout.  The minimum RTO is 200 ms as in Linux,
 *     not RFC 6298's 1 s (§2.4 "SHOULD"), so that the yardstick behaves
 *     like the TCP people deploy;
 *   - no delayed ACK, no SACK, no handshake (the flow starts established),
 *     no receive-window limit.
 * Segments carry no payload bytes in memory; the pcap builds real TCP
 * headers (with checksums) and zero payloads.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_pcap.h"
#include "sim_rng.h"

#define TCP_MSS 1460u
#define TCP_HDRS 40u /* IPv4 + TCP without options */
#define TCP_IW 3u    /* RFC 5681 §3.1 for 1095 < SMSS <= 2190 */
#define TCP_RTO_INIT (1 * UDCCP_NS_PER_S)
#define TCP_RTO_MIN (200 * UDCCP_NS_PER_MS)
#define TCP_RTO_MAX (60 * UDCCP_NS_PER_S)

enum { TCP_T_START = 0, TCP_T_RTO = 1 };

typedef struct tcp_flow {
  int started;
  /* sender: sequence numbers count segments */
  uint64_t snd_una, snd_nxt, snd_max, recover;
  uint64_t cwnd, ssthresh; /* bytes */
  uint32_t dupacks;
  int in_recovery;
  int have_rtt;
  udccp_tstamp srtt, rttvar, rto, rto_at;
  udccp_tstamp *sent_at; /* ring over [snd_una, snd_max) */
  uint8_t *retx;
  uint64_t smask;
  /* receiver */
  uint64_t rcv_nxt;
  uint8_t *ooo; /* ring: segment received above rcv_nxt */
  uint64_t rmask;
  uint32_t isn_c, isn_s; /* byte ISNs for the pcap */
  uint64_t retransmits, timeouts, recoveries;
} tcp_flow;

static int ring_grow_sender(tcp_flow *t) {
  uint64_t size = t->smask + 1, nsize = size * 2;
  udccp_tstamp *ns = malloc(nsize * sizeof(*ns));
  uint8_t *nr = malloc(nsize);
  if (ns == NULL || nr == NULL) {
    free(ns);
    free(nr);
    return -1;
  }
  for (uint64_t s = t->snd_una; s < t->snd_max; s++) {
    ns[s & (nsize - 1)] = t->sent_at[s & t->smask];
    nr[s & (nsize - 1)] = t->retx[s & t->smask];
  }
  free(t->sent_at);
  free(t->retx);
  t->sent_at = ns;
  t->retx = nr;
  t->smask = nsize - 1;
  return 0;
}

static int ring_grow_receiver(tcp_flow *t) {
  uint64_t size = t->rmask + 1, nsize = size * 2;
  uint8_t *n = calloc(nsize, 1);
  if (n == NULL) {
    return -1;
  }
  for (uint64_t s = t->rcv_nxt; s < t->rcv_nxt + size; s++) {
    n[s & (nsize - 1)] = t->ooo[s & t->rmask];
  }
  free(t->ooo);
  t->ooo = n;
  t->rmask = nsize - 1;
  return 0;
}

static void tcp_send_seg(sim_flow *f, tcp_flow *t, uint64_t seq,
                         udccp_tstamp now) {
  if (seq >= t->snd_max && t->snd_max + 1 - t->snd_una > t->smask + 1 &&
      ring_grow_sender(t) != 0) {
    return;
  }
  sim_pkt *p = sim_flow_pkt_new(f);
  if (p == NULL) {
    return;
  }
  p->dir = SIM_DIR_FWD;
  p->wire_len = TCP_MSS + TCP_HDRS;
  p->meta[0] = seq;
  t->sent_at[seq & t->smask] = now;
  if (seq < t->snd_max) {
    t->retx[seq & t->smask] = 1; /* Karn: no RTT sample from it */
    t->retransmits++;
  } else {
    t->retx[seq & t->smask] = 0;
    t->snd_max = seq + 1;
  }
  f->sent_pkts++;
  sim_flow_xmit(f, p, now);
}

static void tcp_arm_rto(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  if (t->snd_una == t->snd_max) {
    t->rto_at = UDCCP_TSTAMP_NEVER;
    return;
  }
  t->rto_at = now + t->rto;
  sim_flow_arm(f, TCP_T_RTO, t->rto_at);
}

static void tcp_try_send(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  int sent = 0;
  while (!f->stopped && (t->snd_nxt - t->snd_una) * TCP_MSS < t->cwnd) {
    tcp_send_seg(f, t, t->snd_nxt, now);
    t->snd_nxt++;
    sent = 1;
  }
  if (sent && t->rto_at == UDCCP_TSTAMP_NEVER) {
    tcp_arm_rto(f, t, now); /* RFC 6298 §5.1 */
  }
}

static void tcp_rtt_sample(tcp_flow *t, udccp_tstamp r) {
  /* RFC 6298 §2.2, §2.3 with alpha = 1/8, beta = 1/4, K = 4 */
  if (!t->have_rtt) {
    t->srtt = r;
    t->rttvar = r / 2;
    t->have_rtt = 1;
  } else {
    udccp_tstamp diff = t->srtt > r ? t->srtt - r : r - t->srtt;
    t->rttvar = (3 * t->rttvar + diff) / 4;
    t->srtt = (7 * t->srtt + r) / 8;
  }
  t->rto = t->srtt + 4 * t->rttvar;
  if (t->rto < TCP_RTO_MIN) {
    t->rto = TCP_RTO_MIN;
  }
  if (t->rto > TCP_RTO_MAX) {
    t->rto = TCP_RTO_MAX;
  }
}

static void tcp_on_ack(sim_flow *f, tcp_flow *t, uint64_t a, udccp_tstamp now) {
  if (a > t->snd_max) {
    return;
  }
  if (a > t->snd_una) {
    uint64_t acked = a - t->snd_una;
    /* Karn's rule (RFC 6298 §3): no sample if anything this ack covers
     * was retransmitted, since a hole filled by a retransmission makes
     * the ack of older segments late. */
    int clean = 1;
    for (uint64_t s = t->snd_una; s < a && clean; s++) {
      clean = !t->retx[s & t->smask];
    }
    if (clean) {
      tcp_rtt_sample(t, now - t->sent_at[(a - 1) & t->smask]);
    }
    t->snd_una = a;
    if (t->snd_nxt < a) {
      t->snd_nxt = a;
    }
    if (t->in_recovery) {
      if (a >= t->recover) {
        /* full ack: RFC 6582 §3.2 step 3, option (1) */
        uint64_t flight = (t->snd_max - t->snd_una) * TCP_MSS;
        uint64_t w = (flight > TCP_MSS ? flight : TCP_MSS) + TCP_MSS;
        t->cwnd = t->ssthresh < w ? t->ssthresh : w;
        t->in_recovery = 0;
        t->dupacks = 0;
      } else {
        /* partial ack: retransmit the next hole, deflate by the amount
         * acked, add back one segment (RFC 6582 §3.2 step 3) */
        tcp_send_seg(f, t, t->snd_una, now);
        uint64_t dec = acked * TCP_MSS;
        t->cwnd = (t->cwnd > dec ? t->cwnd - dec : 0) + TCP_MSS;
      }
    } else {
      t->dupacks = 0;
      if (t->cwnd < t->ssthresh) {
        t->cwnd += (acked < 2 ? acked : 2) * TCP_MSS; /* RFC 3465 L=2 */
      } else {
        uint64_t inc = (uint64_t)TCP_MSS * TCP_MSS / t->cwnd; /* RFC 5681 (3) */
        t->cwnd += inc ? inc : 1;
      }
    }
    tcp_arm_rto(f, t, now); /* RFC 6298 §5.3 */
  } else if (a == t->snd_una && t->snd_max > t->snd_una) {
    t->dupacks++;
    if (t->in_recovery) {
      t->cwnd += TCP_MSS; /* RFC 5681 §3.2 step 4: inflation */
    } else if (t->dupacks == 3 && a >= t->recover) {
      /* RFC 5681 §3.2 steps 2-3, RFC 6582 §3.2 step 2 */
      uint64_t flight = (t->snd_max - t->snd_una) * TCP_MSS;
      t->ssthresh = flight / 2 > 2 * TCP_MSS ? flight / 2 : 2 * TCP_MSS;
      t->recover = t->snd_max;
      t->in_recovery = 1;
      t->recoveries++;
      tcp_send_seg(f, t, t->snd_una, now);
      t->cwnd = t->ssthresh + 3 * TCP_MSS;
    }
  }
  tcp_try_send(f, t, now);
}

static void tcp_on_timeout(sim_flow *f, tcp_flow *t, udccp_tstamp now) {
  /* RFC 5681 §3.1 (4), RFC 6298 §5.4-5.6 */
  uint64_t flight = (t->snd_max - t->snd_una) * TCP_MSS;
  t->ssthresh = flight / 2 > 2 * TCP_MSS ? flight / 2 : 2 * TCP_MSS;
  t->cwnd = TCP_MSS;
  t->in_recovery = 0;
  t->dupacks = 0;
  t->recover = t->snd_max;
  t->snd_nxt = t->snd_una;
  t->timeouts++;
  t->rto = t->rto * 2 > TCP_RTO_MAX ? TCP_RTO_MAX : t->rto * 2;
  t->rto_at = UDCCP_TSTAMP_NEVER;
  tcp_try_send(f, t, now);
}

static void tcp_on_data(sim_flow *f, tcp_flow *t, uint64_t s, udccp_tstamp now) {
  if (s == t->rcv_nxt) {
    sim_flow_delivered(f, TCP_MSS);
    t->rcv_nxt++;
    while (t->ooo[t->rcv_nxt & t->rmask]) {
      t->ooo[t->rcv_nxt & t->rmask] = 0;
      sim_flow_delivered(f, TCP_MSS);
      t->rcv_nxt++;
    }
  } else if (s > t->rcv_nxt) {
    while (s - t->rcv_nxt > t->rmask) {
      if (ring_grow_receiver(t) != 0) {
        return;
      }
    }
    t->ooo[s & t->rmask] = 1;
  }
  sim_pkt *ack = sim_flow_pkt_new(f);
  if (ack == NULL) {
    return;
  }
  ack->dir = SIM_DIR_REV;
  ack->wire_len = TCP_HDRS;
  ack->meta[1] = t->rcv_nxt;
  sim_flow_xmit(f, ack, now);
}

/* ------------------------------------------------------ kind methods */

static int tcp_init(sim_flow *f) {
  tcp_flow *t = calloc(1, sizeof(*t));
  if (t == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  f->priv = t;
  t->smask = t->rmask = 1023;
  t->sent_at = malloc((t->smask + 1) * sizeof(*t->sent_at));
  t->retx = calloc(t->smask + 1, 1);
  t->ooo = calloc(t->rmask + 1, 1);
  if (t->sent_at == NULL || t->retx == NULL || t->ooo == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  t->cwnd = TCP_IW * TCP_MSS;
  t->ssthresh = UINT64_MAX / 2;
  t->rto = TCP_RTO_INIT;
  t->rto_at = UDCCP_TSTAMP_NEVER;
  sim_rng r;
  sim_rng_seed(&r, sim_flow_seed(f), 0);
  t->isn_c = (uint32_t)sim_rng_next(&r);
  t->isn_s = (uint32_t)sim_rng_next(&r);
  f->packet_size = TCP_MSS;
  sim_flow_arm(f, TCP_T_START, f->start_at);
  return 0;
}

static void tcp_recv(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  tcp_flow *t = f->priv;
  int dir = p->dir;
  uint64_t seq = p->meta[0], ack = p->meta[1];
  sim_flow_pkt_free(f, p);
  if (f->stopped) {
    return;
  }
  if (dir == SIM_DIR_FWD) {
    tcp_on_data(f, t, seq, now);
  } else {
    tcp_on_ack(f, t, ack, now);
  }
}

static void tcp_timer(sim_flow *f, unsigned which, udccp_tstamp now) {
  tcp_flow *t = f->priv;
  if (f->stopped) {
    return;
  }
  if (which == TCP_T_START) {
    if (!t->started) {
      t->started = 1;
      tcp_try_send(f, t, now);
    }
    return;
  }
  if (t->rto_at == UDCCP_TSTAMP_NEVER) {
    return;
  }
  if (now >= t->rto_at) {
    tcp_on_timeout(f, t, now);
  } else {
    sim_flow_arm(f, TCP_T_RTO, t->rto_at);
  }
}

static void tcp_stop(sim_flow *f, udccp_tstamp now) { (void)f, (void)now; }

static int tcp_done(const sim_flow *f) { return f->stopped; }

static void tcp_sample(const sim_flow *f, sim_flow_sample *s) {
  const tcp_flow *t = f->priv;
  s->srtt = t->have_rtt ? t->srtt : 0;
  s->cwnd = (uint32_t)(t->cwnd / TCP_MSS);
}

static void tcp_finish(sim_flow *f, sim_flow_result *r) {
  const tcp_flow *t = f->priv;
  r->established = 1;
  r->established_s = (double)f->start_at / 1e9;
  r->closed_ok = 1;
  snprintf(r->close_desc, sizeof(r->close_desc),
           "n/a (model has no handshake); %llu retransmits, %llu "
           "recoveries, %llu timeouts",
           (unsigned long long)t->retransmits,
           (unsigned long long)t->recoveries, (unsigned long long)t->timeouts);
}

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v & 0xFFFF);
}

static const uint8_t *tcp_pcap_l4(const sim_flow *f, const sim_pkt *p,
                                  uint8_t *buf, size_t cap, size_t *len,
                                  uint8_t *proto) {
  const tcp_flow *t = f->priv;
  int fwd = p->dir == SIM_DIR_FWD;
  size_t n = 20 + (fwd ? TCP_MSS : 0);
  if (cap < n) {
    return NULL;
  }
  memset(buf, 0, n);
  put16(buf, fwd ? f->cli_port : f->srv_port);
  put16(buf + 2, fwd ? f->srv_port : f->cli_port);
  /* +1: the SYN the model does not simulate took one sequence number */
  put32(buf + 4, fwd ? t->isn_c + 1 + (uint32_t)(p->meta[0] * TCP_MSS)
                     : t->isn_s + 1);
  put32(buf + 8, fwd ? t->isn_s + 1
                     : t->isn_c + 1 + (uint32_t)(p->meta[1] * TCP_MSS));
  buf[12] = 5 << 4;
  buf[13] = fwd ? 0x18 : 0x10; /* PSH|ACK, ACK */
  put16(buf + 14, 65535);
  uint8_t ph[12];
  memcpy(ph, fwd ? f->cli_addr : f->srv_addr, 4);
  memcpy(ph + 4, fwd ? f->srv_addr : f->cli_addr, 4);
  ph[8] = 0;
  ph[9] = 6;
  put16(ph + 10, (uint32_t)n);
  uint32_t sum = sim_inet_sum(0, ph, sizeof(ph));
  put16(buf + 16, sim_inet_fold(sim_inet_sum(sum, buf, n)));
  *len = n;
  *proto = 6;
  return buf;
}

static void tcp_destroy(sim_flow *f) {
  tcp_flow *t = f->priv;
  if (t != NULL) {
    free(t->sent_at);
    free(t->retx);
    free(t->ooo);
    free(t);
  }
  f->priv = NULL;
}

const sim_flow_kind sim_kind_tcp = {
    "tcp", 0, 0, "reference TCP NewReno flow inside the simulator (MSS 1460)",
    tcp_init, tcp_recv, tcp_timer, tcp_stop, tcp_done, tcp_sample, tcp_finish,
    tcp_pcap_l4, tcp_destroy};
