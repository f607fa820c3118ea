/* SPDX-License-Identifier: MIT */
/*
 * TFRC CCID test helpers; see tfrcloop.h.
 */
#include "tfrcloop.h"

#include <stdlib.h>
#include <string.h>

#include "ccid.h"
#include "ccid3.h"

static void put_be(uint8_t *p, uint64_t v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    p[n - 1 - i] = (uint8_t)(v >> (8 * i));
  }
}

static int half_init(tl_half *h, uint8_t ccid, size_t mps, udccp_tstamp srtt) {
  memset(h, 0, sizeof(*h));
  h->ops = udccp_ccid_find(ccid);
  if (!h->ops) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  h->env.mem = udccp_mem_default();
  h->env.mps = mps;
  h->env.seq_window_out = 100;
  h->env.ack_ratio = 2;
  h->env.srtt = srtt;
  return 0;
}

int tl_tx_init(tl_half *h, uint8_t ccid, size_t mps, udccp_tstamp srtt,
               udccp_tstamp ts) {
  int rv = half_init(h, ccid, mps, srtt);
  return rv ? rv : h->ops->tx_init(&h->st, &h->env, ts);
}

int tl_rx_init(tl_half *h, uint8_t ccid, size_t mps, udccp_tstamp ts) {
  int rv = half_init(h, ccid, mps, 0);
  return rv ? rv : h->ops->rx_init(&h->st, &h->env, ts);
}

void tl_tx_exit(tl_half *h) {
  if (h->ops && h->ops->tx_exit) {
    h->ops->tx_exit(&h->st);
  }
}

void tl_rx_exit(tl_half *h) {
  if (h->ops && h->ops->rx_exit) {
    h->ops->rx_exit(&h->st);
  }
}

uint8_t tl_send_data(tl_half *tx, uint64_t seq, size_t len, udccp_tstamp ts) {
  uint8_t cc = tx->ops->tx_ccval ? tx->ops->tx_ccval(&tx->st, ts) : 0;
  tx->ops->tx_on_sent(&tx->st, seq, 1, len, ts);
  return cc;
}

int tl_rx_pkt(tl_half *rx, uint8_t type, uint64_t seq, uint8_t ccval,
              uint8_t ecn, size_t len, udccp_tstamp ts) {
  udccp_ccid_pkt p;
  udccp_opts o;
  memset(&p, 0, sizeof(p));
  (void)udccp_opts_parse(&o, type, NULL, 0);
  p.type = type;
  p.ccval = ccval;
  p.ecn = ecn;
  p.seq = seq;
  p.payload_len = len;
  p.opts = &o;
  return rx->ops->rx_on_pkt(&rx->st, &p, ts);
}

static int ack_finish(tl_ack *a, uint64_t seq, uint64_t ackno) {
  int rv = udccp_opts_parse(&a->opts, UDCCP_PKT_ACK, a->ob.buf, a->ob.len);
  memset(&a->pkt, 0, sizeof(a->pkt));
  a->pkt.type = UDCCP_PKT_ACK;
  a->pkt.seq = seq;
  a->pkt.has_ack = 1;
  a->pkt.ack = ackno;
  a->pkt.opts = &a->opts;
  return rv;
}

int tl_rx_ack(tl_half *rx, tl_ack *a, uint64_t seq, uint64_t ackno,
              udccp_tstamp ts) {
  int rv;
  udccp_optbuf_init(&a->ob);
  rv = rx->ops->rx_write_opts(&rx->st, &a->ob, UDCCP_PKT_ACK, ts);
  if (rv < 0) {
    return rv;
  }
  return ack_finish(a, seq, ackno);
}

int tl_fb_build(tl_ack *a, uint64_t seq, uint64_t ackno, uint32_t el_10us,
                uint8_t skip, const tl_iv *iv, size_t n, uint64_t rr,
                uint32_t ler) {
  uint8_t buf[1 + 9 * 28];
  size_t i;
  int rv = 0;
  udccp_optbuf_init(&a->ob);
  if (el_10us != UINT32_MAX) {
    rv |= udccp_optbuf_put_uint(&a->ob, UDCCP_OPT_ELAPSED_TIME, el_10us,
                                el_10us <= 0xFFFF ? 2 : 4);
  }
  if (n > 0 && n <= 28) {
    buf[0] = skip;
    for (i = 0; i < n; i++) {
      put_be(buf + 1 + 9 * i, iv[i].lossless, 3);
      put_be(buf + 4 + 9 * i, iv[i].loss, 3);
      put_be(buf + 7 + 9 * i, iv[i].data, 3);
    }
    rv |= udccp_optbuf_put(&a->ob, 193, 0, buf, 1 + 9 * n);
  }
  if (rr != UINT64_MAX) {
    rv |= udccp_optbuf_put_uint(&a->ob, 194, rr, 4);
  }
  if (ler != 0) {
    rv |= udccp_optbuf_put_uint(&a->ob, 192, ler, 4);
  }
  if (rv) {
    return UDCCP_ERR_NOBUF;
  }
  return ack_finish(a, seq, ackno);
}

int tl_ack_add_opt(tl_ack *a, uint8_t type, int mandatory, const uint8_t *val,
                   size_t len) {
  int rv = udccp_optbuf_put(&a->ob, type, mandatory, val, len);
  return rv ? rv : ack_finish(a, a->pkt.seq, a->pkt.ack);
}

/* ------------------------------------------------------- virtual time */

#define FWD_CAP (1u << 16)
#define REV_CAP 256u

typedef struct fwd_pkt {
  udccp_tstamp t;
  uint64_t seq;
  uint8_t ccval;
  size_t len;
} fwd_pkt;

typedef struct rev_pkt {
  udccp_tstamp t;
  uint64_t seq, ackno;
  udccp_optbuf ob;
} rev_pkt;

static uint32_t rnd_next(uint32_t *s) {
  /* xorshift32: deterministic for a seed */
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}

static udccp_tstamp tmin(udccp_tstamp a, udccp_tstamp b) {
  return a < b ? a : b;
}

int tl_loop_run(const tl_loop_cfg *cfg, tl_loop_res *res) {
  tl_half tx, rx;
  fwd_pkt *fwd = calloc(FWD_CAP, sizeof(*fwd));
  rev_pkt *rev = calloc(REV_CAP, sizeof(*rev));
  size_t fh = 0, fn = 0, rh = 0, rn = 0;
  uint64_t dseq = 1000, aseq = 500000, gsr = 0;
  uint32_t rs = (cfg->seed * 0x9E3779B9u) | 1u; /* spread small seeds */
  udccp_tstamp ts = 0, last_send = 0;
  int have_last = 0, rv = 0, measuring = 0;
  uint64_t ev0 = 0;
  tl_ack a;
  udccp_conn_info info;

  memset(res, 0, sizeof(*res));
  res->min_gap = UDCCP_TSTAMP_NEVER;
  if (!fwd || !rev || tl_tx_init(&tx, cfg->ccid, cfg->mps, 0, 0) != 0 ||
      tl_rx_init(&rx, cfg->ccid, cfg->mps, 0) != 0) {
    free(fwd);
    free(rev);
    return -1;
  }
  while (ts < cfg->duration) {
    udccp_tstamp t_send = tx.ops->tx_next_send(&tx.st, ts);
    udccp_tstamp t_txe = tx.ops->tx_get_expiry(&tx.st);
    udccp_tstamp t_rxe = rx.ops->rx_get_expiry(&rx.st);
    udccp_tstamp next = tmin(tmin(t_send, t_txe), t_rxe);
    int ack_due = 0;
    if (fn > 0) {
      next = tmin(next, fwd[fh].t);
    }
    if (rn > 0) {
      next = tmin(next, rev[rh].t);
    }
    if (next > ts) {
      ts = next;
    }
    while (fn > 0 && fwd[fh].t <= ts) {
      if (tl_rx_pkt(&rx, UDCCP_PKT_DATA, fwd[fh].seq, fwd[fh].ccval, 0,
                    fwd[fh].len, fwd[fh].t) == 1) {
        ack_due = 1;
      }
      res->delivered++;
      gsr = fwd[fh].seq;
      fh = (fh + 1) % FWD_CAP;
      fn--;
    }
    if (ts >= rx.ops->rx_get_expiry(&rx.st) &&
        rx.ops->rx_on_expiry(&rx.st, ts) == 1) {
      ack_due = 1;
    }
    if (ack_due) {
      rev_pkt *r;
      if (rn == REV_CAP) {
        rv = -1;
        break;
      }
      r = &rev[(rh + rn) % REV_CAP];
      udccp_optbuf_init(&r->ob);
      (void)rx.ops->rx_write_opts(&rx.st, &r->ob, UDCCP_PKT_ACK, ts);
      r->t = ts + cfg->owd;
      r->seq = aseq++;
      /* the receiver acknowledges the greatest sequence number it got */
      r->ackno = gsr;
      rn++;
      res->feedbacks++;
    }
    while (rn > 0 && rev[rh].t <= ts) {
      rev_pkt *r = &rev[rh];
      a.ob = r->ob;
      (void)ack_finish(&a, r->seq, r->ackno);
      (void)tx.ops->tx_on_pkt(&tx.st, &a.pkt, ts);
      rh = (rh + 1) % REV_CAP;
      rn--;
    }
    if (ts >= tx.ops->tx_get_expiry(&tx.st)) {
      tx.ops->tx_on_expiry(&tx.st, ts);
      res->nofb++;
    }
    if (!measuring && ts >= cfg->measure_from) {
      measuring = 1;
      ev0 = udccp_tfrc_ccid_rx_lh(&rx.st)->n_events;
    }
    if (tx.ops->tx_next_send(&tx.st, ts) <= ts) {
      uint8_t cc = tl_send_data(&tx, dseq, cfg->s, ts);
      if (have_last && ts - last_send < res->min_gap) {
        res->min_gap = ts - last_send;
      }
      have_last = 1;
      last_send = ts;
      res->sent++;
      if (ts >= cfg->measure_from) {
        res->sent_measured++;
      }
      if ((double)rnd_next(&rs) / 4294967296.0 < cfg->loss) {
        res->dropped++;
      } else {
        if (fn == FWD_CAP) {
          rv = -1;
          break;
        }
        fwd[(fh + fn) % FWD_CAP] =
            (fwd_pkt){ts + cfg->owd, dseq, cc, cfg->s};
        fn++;
      }
      dseq++;
    }
  }
  res->rate_Bps = (double)res->sent_measured * (double)cfg->s /
                  ((double)(cfg->duration - cfg->measure_from) * 1e-9);
  memset(&info, 0, sizeof(info));
  tx.ops->tx_get_info(&tx.st, &info);
  res->p_tx = info.p;
  res->r_tx = info.srtt;
  memset(&info, 0, sizeof(info));
  rx.ops->rx_get_info(&rx.st, &info);
  res->p_rx = info.p;
  res->rx_rtt = udccp_tfrc_ccid_rx_rtt(&rx.st);
  res->rx_events = udccp_tfrc_ccid_rx_lh(&rx.st)->n_events;
  res->rx_lost = udccp_tfrc_ccid_rx_lh(&rx.st)->n_lost;
  res->events_measured = res->rx_events - ev0;
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
  free(fwd);
  free(rev);
  return rv;
}

double tl_rr_lie_ratio(uint8_t ccid, size_t s, unsigned per_rtt,
                       udccp_tstamp rtt, unsigned rounds, int el_lie,
                       int cap_on, double *x_last) {
  tl_half tx;
  tl_ack a;
  uint64_t seq = 1, first = 0;
  unsigned r, i, sent_prev = 0;
  double worst = 0.0, w_init;
  const udccp_tfrc_tx *t;
  if (tl_tx_init(&tx, ccid, s, rtt, 0) != 0) {
    return -1.0;
  }
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, cap_on);
  t = udccp_tfrc_ccid_tx_tfrc(&tx.st);
  w_init = (double)s * 4.0 < 4380.0 ? (double)s * 4.0
           : ((double)s * 2.0 > 4380.0 ? (double)s * 2.0 : 4380.0);
  for (r = 0; r < rounds; r++) {
    udccp_tstamp t0 = (udccp_tstamp)r * rtt;
    unsigned sent = 0;
    double actual, allowed, x;
    if (r > 0) {
      /* feedback for the first packet of the previous round, one RTT on:
       * "no loss", Receive Rate 0xFFFFFFFF, maybe an Elapsed Time that
       * leaves a 10 us RTT sample */
      uint32_t el = el_lie ? (uint32_t)((rtt - 10000) / 10000) : 0;
      const tl_iv iv = {(uint32_t)seq, 0, (uint32_t)seq};
      if (tl_fb_build(&a, 900 + r, first, el, 0, &iv, 1, 0xFFFFFFFFu, 0) ||
          tx.ops->tx_on_pkt(&tx.st, &a.pkt, t0) != 0) {
        tl_tx_exit(&tx);
        return -1.0;
      }
      x = udccp_tfrc_tx_rate(t);
      actual = (double)(sent_prev) * (double)s / ((double)rtt * 1e-9);
      allowed = 2.0 * actual;
      /* the initial rate; R shrunk by Elapsed Time lies counts as at
       * least a quarter of the true RTT (udccp_tfrc_tx_sent_cap) */
      if (allowed < (el_lie ? 4.0 : 1.0) * w_init / ((double)rtt * 1e-9)) {
        allowed = (el_lie ? 4.0 : 1.0) * w_init / ((double)rtt * 1e-9);
      }
      if (x / allowed > worst) {
        worst = x / allowed;
      }
    }
    first = seq;
    for (i = 0; i < per_rtt; i++) {
      udccp_tstamp ts = t0 + (udccp_tstamp)i * (rtt / per_rtt);
      if (tx.ops->tx_next_send(&tx.st, ts) <= ts) {
        (void)tl_send_data(&tx, seq++, s, ts);
        sent++;
      }
    }
    if (sent == 0) {
      /* nothing went: the feedback acknowledges the newest packet */
      first = seq - 1;
    }
    sent_prev = sent;
  }
  if (x_last) {
    *x_last = udccp_tfrc_tx_rate(t);
  }
  tl_tx_exit(&tx);
  return worst;
}
