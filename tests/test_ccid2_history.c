/* SPDX-License-Identifier: MIT */
/*
 * CCID 2's packet history (lib/ccid2.c, RFC 4341 §5) at large windows and
 * its fast paths (the history push, the usual ack) checked against the
 * general path, with the harness of tests/support/ccid2_harness.h.
 */

#include "ccid2_harness.h"

/* Large windows: the history grows (rarely) and losses are still found;
 * afterwards steady state allocates nothing. */
static void test_rfc4341_5_large_window_history(void **state) {
  h *t = h_new(1000);
  unsigned allocs;
  uint32_t before;
  int round;
  (void)state;
  /* The ring was sized for Sequence Window 100; the connection widened
   * the window since (RFC 4340 §7.5.2). */
  t->env.seq_window_out = 1u << 20;
  h_grow_to(t, 3000);
  assert_true(t->cm.allocs > 1); /* grew beyond the first ring */
  assert_true(t->cm.allocs < 10);
  before = h_window_with_loss(t, 1000);
  assert_int_equal(info(t).cwnd, before / 2);
  allocs = t->cm.allocs;
  h_fill(t);
  for (round = 0; round < 5; round++) {
    h_round(t, 2);
  }
  assert_int_equal(t->cm.allocs, allocs);
  h_free(t);
}

/* A copy of the sender's state with a history of its own. */
static ccid2_tx *tx_clone(const ccid2_tx *tx) {
  ccid2_tx *c = malloc(sizeof(*c));
  assert_non_null(c);
  memcpy(c, tx, sizeof(*c));
  c->ring = malloc(tx->cap * sizeof(*tx->ring));
  assert_non_null(c->ring);
  memcpy(c->ring, tx->ring, tx->cap * sizeof(*tx->ring));
  return c;
}

static void tx_same(const ccid2_tx *a, const ccid2_tx *b) {
  ccid2_tx x = *a, y = *b;
  assert_int_equal(a->cap, b->cap);
  assert_memory_equal(a->ring, b->ring, a->cap * sizeof(*a->ring));
  x.ring = y.ring = NULL;
  assert_memory_equal(&x, &y, sizeof(x));
}

static void tx_clone_free(ccid2_tx *c) {
  free(c->ring);
  free(c);
}

/* RFC 4341 §5, issue 13: the history's usual push (ccid2_hist_push,
 * inline) leaves the state the general path (udccp_ccid2_hist_push_any)
 * leaves, and detect_losses is skipped (ccid2_losses_pending 0) only
 * where the general path would change nothing: checked before every
 * packet sent and after every ack of a sender with random losses, acks
 * of non-data packets, numbers skipped, and acks that arrive late. */
static void test_rfc4341_5_history_fast_paths_match_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 3000, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 31337;
  unsigned round, fast = 0, skipped = 0, pending = 0;
  (void)state;
  for (round = 0; round < 3000 && t->nsent + 64 < MAXP; round++) {
    unsigned k, n;
    lcg = lcg * 1103515245u + 12345u;
    n = 1 + (lcg >> 16) % 6;
    for (k = 0; k < n; k++) {
      uint64_t off = t->nsent;
      int is_data = ((lcg >> (k + 3)) & 3) != 0;
      if (((lcg >> 9) & 63) == 0) {
        t->nsent += 1 + (lcg >> 24) % 3; /* numbers the caller skipped */
        off = t->nsent;
      }
      if (tx->ring != NULL && ccid2_hist_push_fast(tx, seq_of(t, off))) {
        ccid2_tx *a = tx_clone(tx), *b = tx_clone(tx);
        ccid2_hist_push(a, seq_of(t, off), t->now, ENT_SENT | ENT_DATA);
        udccp_ccid2_hist_push_any(b, seq_of(t, off), t->now,
                                  ENT_SENT | ENT_DATA);
        tx_same(a, b);
        tx_clone_free(a);
        tx_clone_free(b);
        fast++;
      }
      h_send(t, is_data);
      /* the receiver got it, mostly */
      t->rstate[off] = ((lcg >> (k + 11)) % 11) == 0 ? AV_NONE : 0;
    }
    t->now += MS;
    /* an ack of one of the newest packets, now and then an older one */
    if (t->nsent > 0 && ((lcg >> 20) & 3) != 0) {
      uint64_t back = ((lcg >> 22) & 7) == 0 ? (lcg >> 25) % 5 : 0;
      uint64_t ackoff = t->nsent - 1 > back ? t->nsent - 1 - back : 0;
      if (t->rstate[ackoff] == AV_NONE) {
        t->rstate[ackoff] = 0; /* its ackno arrived */
      }
      if (t->nsent > 200) {
        t->av_lo = t->nsent - 200;
      }
      assert_int_equal(h_ack(t, ackoff), 0);
      /* The state detect_losses meets after a walk, with the scan's
       * point anywhere around the history (below its tail too). */
      for (k = 0; k < 4 && tx->n > 0; k++) {
        ccid2_tx *c = tx_clone(tx);
        lcg = lcg * 1103515245u + 12345u;
        c->loss_scan = udccp_seq_add(
            c->tail, (int64_t)((lcg >> 16) % (c->n + 8)) - 4);
        if (!ccid2_losses_pending(c)) {
          ccid2_tx *d = tx_clone(c);
          udccp_ccid2_detect_losses(d);
          tx_same(d, c);
          tx_clone_free(d);
          skipped++;
        } else {
          pending++;
        }
        tx_clone_free(c);
      }
    }
  }
  printf("fast pushes %u, detect skipped %u, run %u, lost %llu\n", fast,
         skipped, pending, (unsigned long long)info(t).pkts_lost);
  assert_true(fast > 3000);
  assert_true(skipped > 500);
  assert_true(pending > 50);
  assert_true(info(t).pkts_lost > 50);
  h_free(t);
}

/* A copy of the whole sender state (tx_on_pkt runs on it) with a history
 * and a record of undoable losses of its own; the caller copies a state
 * without a record of a timeout's losses (rto_bits). */
static udccp_ccid_state *st_clone(const udccp_ccid_state *st) {
  udccp_ccid_state *c = malloc(sizeof(*c));
  ccid2_tx *tx;
  assert_non_null(c);
  memcpy(c, st, sizeof(*c));
  tx = (ccid2_tx *)(void *)c->bytes;
  assert_null(tx->rto_bits);
  if (tx->undo != NULL) {
    void *u = tx->mem->malloc(udccp_ccid2_undo_size(), tx->mem->user_data);
    assert_non_null(u);
    memcpy(u, tx->undo, udccp_ccid2_undo_size());
    tx->undo = u;
  }
  if (tx->nonces != NULL) {
    uint8_t *nn = malloc(tx->nonce_bits / 8);
    assert_non_null(nn);
    memcpy(nn, tx->nonces, tx->nonce_bits / 8);
    tx->nonces = nn;
  }
  if (tx->cap == 0) {
    return c; /* nothing sent yet: no history */
  }
  tx->ring = malloc(tx->cap * sizeof(*tx->ring));
  assert_non_null(tx->ring);
  memcpy(tx->ring, ((const ccid2_tx *)(const void *)st->bytes)->ring,
         tx->cap * sizeof(*tx->ring));
  return c;
}

static void st_clone_free(udccp_ccid_state *c) {
  ccid2_tx *tx = (ccid2_tx *)(void *)c->bytes;
  udccp_ccid2_loss_free(tx);
  free(tx->ring);
  free(tx->nonces);
  free(c);
}

/* The two states alike but for their own memory (and the flag). */
static void st_same(const udccp_ccid_state *a, const udccp_ccid_state *b) {
  ccid2_tx x = *(const ccid2_tx *)(const void *)a->bytes;
  ccid2_tx y = *(const ccid2_tx *)(const void *)b->bytes;
  assert_int_equal(x.cap, y.cap);
  assert_int_equal(x.undo == NULL, y.undo == NULL);
  if (x.undo != NULL) {
    assert_memory_equal(x.undo, y.undo, udccp_ccid2_undo_size());
  }
  assert_int_equal(x.rto_bits == NULL, y.rto_bits == NULL);
  if (x.cap > 0) {
    assert_memory_equal(x.ring, y.ring, x.cap * sizeof(*x.ring));
  }
  assert_int_equal(x.nonces == NULL, y.nonces == NULL);
  if (x.nonces != NULL) {
    assert_int_equal(x.nonce_bits, y.nonce_bits);
    assert_memory_equal(x.nonces, y.nonces, x.nonce_bits / 8);
  }
  x.ring = y.ring = NULL;
  x.nonces = y.nonces = NULL;
  x.undo = y.undo = NULL;
  x.rto_bits = y.rto_bits = NULL;
  x.general = y.general = 0;
  assert_memory_equal(&x, &y, sizeof(x));
}

/* RFC 4341 §5, §6.1.1, issue 13: tx_on_pkt's fast path for the usual ack
 * (the peer's next packet, one Ack Vector whose first run of received
 * packets reaches down to the oldest unresolved one) leaves the state the
 * general path leaves (udccp_ccid2_tx_set_general): checked on every ack
 * of a greedy sender whose receiver loses a packet now and then, marks
 * one (Ack Vector state 1), whose acks are lost now and then (the peer's
 * numbers skip), come late, or report packets a run below the tail does
 * not reach.  Fails if the fast path resolves other packets, moves pipe,
 * cwnd, the top three, the history's tail, the RTT, RTO or Ack Ratio, or
 * judges the peer's numbers otherwise than the general path. */
static void test_rfc4341_5_ack_fast_path_matches_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 2000, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 777;
  unsigned round, compared = 0, late = 0;
  uint64_t late_off = 0, late_at = 0; /* a packet overtaken, and when */
  (void)state;
  h_grow_to(t, 40);
  for (round = 0; round < 400 && t->nsent + 1000 < MAXP; round++) {
    uint64_t from, to, off;
    h_send_until(t, t->now);
    from = t->acked_to;
    to = t->nsent;
    assert_true(to > from);
    t->av_lo = from > 3 ? from - 3 : 0;
    for (off = from; off < to; off++) {
      lcg = lcg * 1103515245u + 12345u;
      t->rstate[off] = ((lcg >> 16) % 397) == 0 ? AV_NONE
                       : ((lcg >> 16) % 353) == 1 ? 1
                                                 : 0;
      if (late_at != 0 && off == late_off + 1 && (late & 1)) {
        /* marked (§11.4 State 1): the run of the late one is not the
         * first run any more */
        t->rstate[off] = 1;
      }
      if (late_at == 0 && ((lcg >> 16) % 149) == 2) {
        /* overtaken by the next few: declared lost (§5 (2)), then it
         * arrives (RFC 4015: the loss undone) */
        t->rstate[off] = AV_NONE;
        late_off = off;
        late_at = off + 5 + (lcg >> 26) % 12;
      }
      if (late_at != 0 && off >= late_at) {
        t->rstate[late_off] = 0;
        late_at = 0;
        late++;
      }
      if ((off - from + 1) % 2 == 0 || off + 1 == to) {
        udccp_opts o;
        udccp_ccid_pkt pkt;
        uint64_t ackoff = off;
        udccp_ccid_state *g = NULL;
        h_send_until(t, t->sent_at[off] + t->rtt);
        if (((lcg >> 8) % 13) == 0 && off > from + 4) {
          ackoff = off - 3; /* a late ack */
        }
        if (t->rstate[ackoff] == AV_NONE) {
          t->rstate[ackoff] = 0; /* its ackno arrived */
        }
        memset(&o, 0, sizeof(o));
        memset(&pkt, 0, sizeof(pkt));
        av_encode(t, ackoff, &o);
        o.present |= UDCCP_OPTS_AV_CHECKED; /* as the parser sets it */
        if (((lcg >> 12) % 17) == 0) {
          t->peer_seq += 1; /* an ack of the peer's lost */
        }
        pkt.type = UDCCP_PKT_ACK;
        pkt.seq = t->peer_seq++;
        pkt.has_ack = 1;
        pkt.ack = seq_of(t, ackoff);
        pkt.opts = &o;
        if (t->now < t->sent_at[ackoff] + t->rtt) {
          t->now = t->sent_at[ackoff] + t->rtt;
        }
        if (tx->rto_bits == NULL) {
          g = st_clone(&t->st);
          udccp_ccid2_tx_set_general(g, 1);
          assert_int_equal(t->ops->tx_on_pkt(g, &pkt, t->now), 0);
        }
        assert_int_equal(t->ops->tx_on_pkt(&t->st, &pkt, t->now), 0);
        if (g != NULL) {
          st_same(&t->st, g);
          st_clone_free(g);
          compared++;
        }
      }
    }
    t->acked_to = to;
  }
  printf("acks compared %u, late packets %u, cwnd %u, lost %llu, marks "
         "%llu\n",
         compared, late, info(t).cwnd, (unsigned long long)info(t).pkts_lost,
         (unsigned long long)info(t).ecn_marks);
  assert_true(compared > 1000);
  assert_true(late > 15);
  assert_true(info(t).pkts_lost > 5);
  assert_true(info(t).ecn_marks > 5);
  h_free(t);
}

/* RFC 4341 §5, issue 13: a receiver's 1-entry history (its acks, each
 * left behind by the peer's next ack; several of ours between two acks of
 * acks) takes the inline push as the general path would leave it: checked
 * before every packet of a receiver whose acks are acked now and then,
 * late or not at all, with numbers skipped and, at the end, data of its
 * own.  Fails if the inline push keeps the old entry, or takes an older
 * number or a data entry still unresolved. */
static void test_rfc4341_5_history_one_entry_push_matches_general(
    void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 300, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 4242;
  unsigned i, fast = 0, general = 0;
  (void)state;
  for (i = 0; i < 3000 && t->nsent + 8 < MAXP; i++) {
    uint64_t off;
    int is_data;
    lcg = lcg * 1103515245u + 12345u;
    is_data = i > 2500 && ((lcg >> 18) & 1);
    if (((lcg >> 9) & 31) == 0) {
      t->nsent += 1 + (lcg >> 24) % 3; /* numbers the caller skipped */
    }
    off = t->nsent;
    if (tx->ring != NULL && tx->cap == 1) {
      uint64_t s = seq_of(t, ((lcg >> 14) & 15) == 0 && off > 2 ? off - 2 : off);
      if (ccid2_hist_push_fast(tx, s)) {
        ccid2_tx *a = tx_clone(tx), *b = tx_clone(tx);
        ccid2_hist_push(a, s, t->now, ENT_SENT);
        udccp_ccid2_hist_push_any(b, s, t->now, ENT_SENT);
        tx_same(a, b);
        tx_clone_free(a);
        tx_clone_free(b);
        fast++;
      } else {
        general++;
      }
    }
    h_send(t, is_data);
    t->rstate[off] = 0;
    t->now += MS / 10;
    if (((lcg >> 20) & 7) == 0) {
      /* an ack of ack naming one of our latest packets */
      uint64_t back = (lcg >> 23) % 4;
      assert_int_equal(h_ack(t, off > back ? off - back : 0), 0);
    }
  }
  printf("1-entry pushes inline %u, general %u, cap %u\n", fast, general,
         (unsigned)tx->cap);
  assert_true(fast > 2000);
  assert_true(general > 0);
  h_free(t);
}

/* RFC 4341 §5.2, §6.1.1, issue 13: a pure receiver's sender half (it has
 * sent only acks) answers a packet without an Acknowledgement Number at
 * once; the state is the one the general path leaves
 * (udccp_ccid2_tx_set_general): checked before every packet of a
 * receiver that gets Data, with a Slow Receiver option now and then (in
 * either form), CE marks, acks of acks among them, numbers skipped, and
 * at the end data of its own.  Fails if the early answer takes a Slow
 * Receiver option, a packet with an ackno, or a half that sent data. */
static void test_rfc4341_5_2_receiver_no_ackno_matches_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 300, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 9001;
  unsigned i, early = 0, slow = 0, other = 0;
  (void)state;
  for (i = 0; i < 4000 && t->nsent + 8 < MAXP; i++) {
    udccp_opts o;
    udccp_ccid_pkt pkt;
    udccp_ccid_state *g;
    int rg, rf;
    lcg = lcg * 1103515245u + 12345u;
    memset(&o, 0, sizeof(o));
    memset(&pkt, 0, sizeof(pkt));
    pkt.type = UDCCP_PKT_DATA;
    pkt.payload_len = 100;
    pkt.seq = t->peer_seq++;
    if (((lcg >> 9) & 15) == 0) {
      t->peer_seq += 1 + (lcg >> 24) % 3; /* the peer's packets lost */
    }
    if (((lcg >> 13) & 31) == 0) {
      o.slow_receiver = 1;
    } else if (((lcg >> 13) & 31) == 1) {
      o.present |= UDCCP_OPTS_HAS_SLOW_RECEIVER;
    }
    pkt.ecn = ((lcg >> 18) & 15) == 0 ? 3 : 0;
    pkt.opts = ((lcg >> 20) & 7) == 0 ? NULL : &o;
    if (t->nsent > 0 && ((lcg >> 23) & 7) == 0) {
      /* an ack of ack naming one of our latest packets */
      pkt.type = UDCCP_PKT_DATAACK;
      pkt.has_ack = 1;
      pkt.ack = seq_of(t, t->nsent - 1);
    }
    if (!pkt.has_ack && !tx->sent_any && pkt.opts != NULL &&
        (o.slow_receiver || (o.present & UDCCP_OPTS_HAS_SLOW_RECEIVER))) {
      slow++;
    } else if (!pkt.has_ack && !tx->sent_any) {
      early++;
    } else {
      other++;
    }
    g = st_clone(&t->st);
    udccp_ccid2_tx_set_general(g, 1);
    rg = t->ops->tx_on_pkt(g, &pkt, t->now);
    rf = t->ops->tx_on_pkt(&t->st, &pkt, t->now);
    assert_int_equal(rf, rg);
    st_same(&t->st, g);
    st_clone_free(g);
    t->now += MS / 10;
    if (((lcg >> 26) & 1) == 0) {
      h_send(t, i > 3500 && ((lcg >> 27) & 1)); /* our ack, late: data */
    }
  }
  printf("no-ackno packets answered early %u, with Slow Receiver %u, "
         "others %u, ssthresh %u\n",
         early, slow, other, (unsigned)tx->ssthresh);
  assert_true(early > 2000);
  assert_true(slow > 50);
  assert_true(other > 300);
  assert_true(tx->sent_any);
  h_free(t);
}

/* RFC 4341 §5, RFC 2861, issue 13: tx_on_sent's usual packet (history
 * started, ECN off, Reno, no RFC 2861 tick or idle restart due, the
 * inline history push) leaves the state the general path leaves
 * (udccp_ccid2_tx_set_general): checked on every packet of a sender of
 * data and acks whose peer acks now and then, with pauses of a fraction
 * of an RTT, more than an RTT and more than an RTO, and ECN on for a
 * while.  Fails if the fast path skips an RFC 2861 tick or idle restart,
 * a nonce, or moves pipe, the pacing time or the history otherwise. */
static void test_rfc4341_5_sent_fast_path_matches_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 500, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 31337;
  unsigned i, fast = 0, slow = 0, idle = 0, ticks = 0;
  (void)state;
  for (i = 0; i < 6000 && t->nsent + 8 < MAXP; i++) {
    udccp_ccid_state *g;
    uint64_t off = t->nsent;
    int is_data;
    unsigned r;
    lcg = lcg * 1103515245u + 12345u;
    r = (lcg >> 8) & 1023;
    is_data = ((lcg >> 18) & 3) != 0;
    t->env.ecn = i >= 3000 && i < 3400;
    t->env.tx_nonce = (uint8_t)((lcg >> 20) & 1);
    if (tx->started && !t->env.ecn &&
        (t->now - tx->cwv_start >= tx->rtt_use ||
         (is_data && tx->sent_any &&
          t->now - tx->last_data_sent >= tx->rto))) {
      slow++;
      if (t->now - tx->cwv_start >= tx->rtt_use) {
        ticks++;
      } else {
        idle++;
      }
    } else if (tx->started && !t->env.ecn) {
      fast++;
    }
    g = st_clone(&t->st);
    udccp_ccid2_tx_set_general(g, 1);
    t->ops->tx_on_sent(g, seq_of(t, off), is_data, 100, t->now);
    h_send(t, is_data);
    st_same(&t->st, g);
    st_clone_free(g);
    t->rstate[off] = ((lcg >> 22) & 63) == 0 ? AV_NONE : 0;
    if (((lcg >> 24) & 3) == 0) {
      t->av_lo = off > 40 ? off - 40 : 0;
      t->rstate[off] = 0;
      (void)h_ack(t, off);
    }
    /* pauses: mostly short, some over an RTT, a few over an RTO */
    t->now += r < 1000 ? (udccp_tstamp)(r % 50) * MS / 10
              : r < 1020 ? 2 * RTT
                         : 4 * UDCCP_NS_PER_S;
  }
  printf("packets sent on the fast path %u, general %u (RFC 2861 ticks %u, "
         "idle restarts %u)\n",
         fast, slow, ticks, idle);
  assert_true(fast > 4000);
  assert_true(ticks > 20);
  assert_true(idle > 5);
  h_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4341_5_large_window_history),
      cmocka_unit_test(test_rfc4341_5_history_fast_paths_match_general),
      cmocka_unit_test(test_rfc4341_5_ack_fast_path_matches_general),
      cmocka_unit_test(test_rfc4341_5_history_one_entry_push_matches_general),
      cmocka_unit_test(test_rfc4341_5_2_receiver_no_ackno_matches_general),
      cmocka_unit_test(test_rfc4341_5_sent_fast_path_matches_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
