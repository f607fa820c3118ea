/* SPDX-License-Identifier: MIT */
/*
 * Feature negotiation (RFC 4340 §6, with erratum 974 on FGSR/FGSS).
 *
 * Every feature F exists twice on a connection: F/A, located at endpoint A,
 * and F/B, located at B (§6).  A udccp_feat_set keeps both copies as seen
 * from this endpoint: the "local" value (located here; we send Change L /
 * Confirm L for it) and the "remote" value (located at the peer; we send
 * Change R / Confirm R).
 *
 * Use by the connection:
 *   udccp_feat_init()         at creation, from the settings (queues the
 *                             initial Changes, including the dependencies
 *                             of the chosen CCIDs, RFC 4340 §10)
 *   udccp_feat_read()         for every valid received packet, after the
 *                             sequence-validity check (§8.5 step 8 ff.)
 *   udccp_feat_write()        for every non-Data packet we send: adds the
 *                             Changes still unconfirmed and the Confirms owed
 *   udccp_feat_want_packet()  1 if a Confirm is owed or a Change is waiting:
 *                             send an Ack (or Sync) for it (§6.6.1)
 *   udccp_feat_all_confirmed() at the end of the handshake: like Linux, reset
 *                             if our Changes were not all answered
 *   udccp_feat_get_local() / udccp_feat_get_remote()  current values
 *   udccp_feat_change_nn()    mid-connection NN changes (Ack Ratio of CCID 2,
 *                             Sequence Window)
 *
 * Fixed size, no allocation: embed the struct in the connection.
 */
#ifndef UDCCP_FEAT_H
#define UDCCP_FEAT_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "ccid.h"
#include "opt.h"
#include "seq.h"

/* Feature numbers, RFC 4340 §6.4 (names differ from <linux/dccp.h>). */
enum udccp_feat_num {
  UDCCP_FEAT_CCID = 1,
  UDCCP_FEAT_ALLOW_SHORT_SEQNOS = 2,
  UDCCP_FEAT_SEQ_WINDOW = 3,
  UDCCP_FEAT_ECN_INCAPABLE = 4,
  UDCCP_FEAT_ACK_RATIO = 5,
  UDCCP_FEAT_SEND_ACK_VECTOR = 6,
  UDCCP_FEAT_SEND_NDP_COUNT = 7,
  UDCCP_FEAT_MIN_CSCOV = 8,
  UDCCP_FEAT_CHECK_DATA_CKSUM = 9,
  UDCCP_FEAT_MP_CAPABLE = 10, /* RFC 9897 §3.1: SP, initial 0, not Req'd */
  /* CCID-specific (§10.3): 128..191 located at the HC-Sender, 192..255 at
   * the HC-Receiver. */
  UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE = 128, /* RFC 6323 §3.2.2, CCID 3/4 */
  UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE = 192 /* RFC 4342 §8.5, also CCID 4 */
};

/* Sequence Window limits, §7.5.2. */
#define UDCCP_SEQ_WINDOW_MIN 32ULL
#define UDCCP_SEQ_WINDOW_MAX 70368744177663ULL /* 2^46 - 1 */

/* Per-feature state, §6.6.2. */
enum udccp_feat_state {
  UDCCP_FEAT_STABLE = 0,
  UDCCP_FEAT_CHANGING = 1,
  UDCCP_FEAT_UNSTABLE = 2
};

/* Reconciliation rules, §6.3. */
enum udccp_feat_rule { UDCCP_FEAT_SP = 1, UDCCP_FEAT_NN = 2 };

#define UDCCP_FEAT_MAX_PREF 16   /* SP preference list length we keep */
#define UDCCP_FEAT_N_KNOWN 12    /* features 1..10, 192 and 128 */
/* Entries: two per feature, but one for Multipath Capable (the last of
 * the table), which only ever lives at the server (RFC 9897 §3.1). */
#define UDCCP_FEAT_N_ENT (2 * UDCCP_FEAT_N_KNOWN - 1)

/* One feature at one location.  Every connection holds 23 of these
 * (issue 13: kept to 32 bytes): an NN feature needs only the value it
 * asks for, an SP feature only its preference list, so the two share
 * storage; the flags are bits. */
typedef struct udccp_feat_entry {
  uint64_t val;           /* current value */
  union {
    struct {
      uint64_t nn_want;   /* NN: the value our Change L carries */
      uint64_t nn_prev;   /* NN: the value our previous Change L carried,
                             when a new one replaced it while CHANGING (0:
                             none; no NN feature takes 0) */
    };
    uint8_t pref[UDCCP_FEAT_MAX_PREF]; /* SP: our preference list, most
                                          preferred first */
  };
  uint8_t num;            /* feature number */
  uint8_t n_pref;         /* SP: entries in pref */
  unsigned int local : 1;     /* 1: located at this endpoint */
  unsigned int state : 2;     /* enum udccp_feat_state */
  unsigned int mandatory : 1; /* our Change is sent with Mandatory (§6.6.9) */
  /* A Confirm owed to the peer's latest Change (§6.6.1), sent once. */
  unsigned int confirm_owed : 1;
  unsigned int confirm_empty : 1; /* owed Confirm is empty (§6.6.7, §6.6.8) */
  unsigned int confirm_hs : 1; /* a Confirm of the Response's Change: the
                                  client repeats it on every PARTOPEN packet
                                  (udccp_feat_repeat_handshake_confirms) */
  unsigned int change_new : 1; /* our Change has new contents not yet sent:
                                  sending it moves FGSS (§6.6.4) */
  unsigned int flexible : 1;  /* we do not care which listed value wins: as
                                 server, take the client's first acceptable
                                 one (and list it first in our Confirm) */
  unsigned int agreed : 1;    /* Multipath Capable: a version was agreed
                                 (a non-empty Confirm, RFC 9897 §3.1) */
  /* §6.6.4's alternative FGSS(F/X): the low 32 bits of the packet that
   * carried this entry's latest new Change.  Its Confirm is checked
   * against it, so that a new Change of another feature (Ack Ratio, say)
   * does not void the Confirm in flight for this one (Sequence Window,
   * say): with the connection-wide FGSS, a sender whose Ack Ratio and
   * Sequence Window both follow a growing cwnd had its Confirms ignored
   * RTT after RTT.  32 bits: the check matters only while the entry is
   * CHANGING, when the Confirm answers a packet of the last flight, far
   * within 2^31 of it.  (It fills what was padding: no bytes added.) */
  uint32_t fgss_lo;
} udccp_feat_entry;
_Static_assert(sizeof(udccp_feat_entry) <= 32,
               "a feature entry grew: 23 of them are in every connection");

/* The state of one connection's feature negotiation. */
typedef struct udccp_feat_set {
  uint64_t fgsr;          /* §6.6.4: Feature Greatest Seqno Received */
  uint64_t fgss;          /* §6.6.4: Feature Greatest Seqno Sent */
  const udccp_ccid_ops *(*ccid_find)(uint8_t id);
  udccp_feat_entry ent[UDCCP_FEAT_N_ENT]; /* [i*2+0] remote, +1 local */
  uint32_t generation;    /* bumped whenever any current value changes */
  uint16_t n_empty;       /* Empty Confirms owed for unknown features */
  uint8_t is_server;
  uint8_t fgsr_valid;     /* FGSR set (from the first packet received) */
  uint8_t want_ackvec;    /* settings.ack_vectors: ask a TFRC CCID's
                             receiver for Ack Vectors (apply_deps) */
  uint8_t dep_ccid[2];    /* CCID whose §10 dependencies were applied:
                             [0] half we send on, [1] half we receive on */
  uint8_t pending;        /* some entry is not STABLE: set when a Change
                             starts, recomputed when an entry settles */
  uint8_t owed;           /* some entry may owe a Confirm: set with
                             confirm_owed, cleared when feat_write finds
                             none left (so that packets need no scan) */
  uint8_t repeat;         /* set by the caller: the next packet repeats
                             every unconfirmed Change (handshake packets,
                             the §6.6.3 back-off timer); cleared once sent */
  /* §6.6.7: one Empty Confirm owed per unknown feature number and
   * location, however many Changes arrive: a bit per feature number,
   * [0] Confirm L (the peer's Change R), [1] Confirm R. */
  uint8_t empty[2][32];
  /* RFC 9897 §3.1: Multipath Capable (feature 10) is known only when the
   * settings offer multipath; otherwise it is an unknown feature (§6.6.7:
   * Empty Confirm), as at an endpoint without multipath. */
  uint8_t mp_enabled;
} udccp_feat_set;

/* The received packet, as feature negotiation needs it. */
typedef struct udccp_feat_pkt {
  uint8_t type;      /* enum udccp_pkt_type */
  uint8_t has_ack;   /* 1 if it carries an Acknowledgement Number */
  uint64_t seq;      /* its Sequence Number, 48 bits */
  uint64_t ack;      /* its Acknowledgement Number, 48 bits */
  uint64_t gsr;      /* GSR after accepting this packet (erratum 974) */
} udccp_feat_pkt;

/* Sets up fs from settings for a client (is_server 0) or a server (1);
 * iss is our Initial Sequence Number (FGSS starts at ISS, §6.6.4).
 * ccid_find looks up the CCIDs udccp implements (pass udccp_ccid_find;
 * tests may pass their own table): it gives the preference lists for the
 * CCID feature and each CCID's dependencies (§10).  Queues the initial
 * Changes:
 *   Change L(CCID, [settings->ccid, other supported])
 *   Change R(CCID, [settings->rx_ccid or ->ccid, other supported])
 *   Change L(Sequence Window), Change L(Ack Ratio) if not the defaults
 *   Change R(Send NDP Count, 1) if send_ndp_count
 *   Change L(Minimum Checksum Coverage) if min_cscov, Change R(...) if
 *     send_cscov (so the peer accepts our partial coverage)
 *   Mandatory Change R(Check Data Checksum, 1) if check_data_checksum
 *   the CCIDs' dependencies, e.g. for CCID 2 as sender Mandatory Change
 *     R(Send Ack Vector, 1), as receiver Mandatory Change L(Send Ack Vector, 1)
 * allow_short_seqnos=1 lets the peer turn Allow Short Seqnos/peer on; we
 * never ask for it ourselves.  ECN Incapable/local stays 0: udccp reads
 * ECN bits (the caller passes them to udccp_conn_read_pkt); ecn_capable
 * only decides whether we set ECT on what we send.
 * Returns 0 or UDCCP_ERR_INVALID_ARGUMENT (a setting out of range). */
int udccp_feat_init(udccp_feat_set *fs, const udccp_settings *settings,
                    int is_server, uint64_t iss,
                    const udccp_ccid_ops *(*ccid_find)(uint8_t id));

/* Processes the Change/Confirm options of a received packet (§6.6.2),
 * in packet order.  Call for every packet that passed the sequence-
 * validity check; Data packets and feature options on them are ignored
 * (§6).  The first packet read also sets FGSR = its seq - 1 (ISR - 1).
 * Returns 0, or UDCCP_ERR_OPTION / UDCCP_ERR_MANDATORY: the connection must
 * be reset with *reset_code (Option Error or Mandatory Error) and
 * reset_data (option type and first two value bytes, §5.6). */
int udccp_feat_read_opts(udccp_feat_set *fs, const udccp_opts *opts,
                         const udccp_feat_pkt *pkt, uint8_t *reset_code,
                         uint8_t reset_data[3]);
static inline int udccp_feat_read(udccp_feat_set *fs, const udccp_opts *opts,
                                  const udccp_feat_pkt *pkt,
                                  uint8_t *reset_code, uint8_t reset_data[3]) {
  if (!fs->fgsr_valid) {
    fs->fgsr = udccp_seq_add(pkt->seq & UDCCP_SEQ_MASK, -1); /* ISR - 1 */
    fs->fgsr_valid = 1;
  }
  if (udccp_seq_gt(fs->fgsr, pkt->gsr & UDCCP_SEQ_MASK)) { /* erratum 974 */
    fs->fgsr = udccp_seq_add(pkt->gsr, -(int64_t)UDCCP_SEQ_WINDOW_MAX);
  }
  /* §6: feature options on DCCP-Data are ignored; without any, nothing
   * to do (almost every packet: inline, issue 13). */
  if (pkt->type == UDCCP_PKT_DATA || opts->n_feat == 0) {
    return 0;
  }
  return udccp_feat_read_opts(fs, opts, pkt, reset_code, reset_data);
}

/* Appends to ob the options due on the packet we are about to send, of
 * type pkt_type and Sequence Number seq: every owed Confirm (once; only on
 * packets with an Acknowledgement Number, §6.6.1), every Change with new
 * contents, and -- when fs->repeat is set -- every unconfirmed Change
 * (§6.6.3: repeated once the endpoint "realizes that it has not heard
 * back", not on every packet).  Nothing on Data, Reset or Listen packets
 * (but call it for them too: it keeps FGSS <= GSS, erratum 974).  What
 * does not fit stays pending.  Returns the number of Changes written. */
int udccp_feat_write_opts(udccp_feat_set *fs, udccp_optbuf *ob,
                          uint8_t pkt_type, uint64_t seq);
static inline int udccp_feat_write(udccp_feat_set *fs, udccp_optbuf *ob,
                                   uint8_t pkt_type, uint64_t seq) {
  seq &= UDCCP_SEQ_MASK;
  if (udccp_seq_gt(fs->fgss, seq)) { /* erratum 974 */
    fs->fgss = udccp_seq_add(seq, -(int64_t)UDCCP_SEQ_WINDOW_MAX);
  }
  /* §6: none on Data; Reset and Listen carry no negotiation. */
  if (pkt_type == UDCCP_PKT_DATA || pkt_type == UDCCP_PKT_RESET ||
      pkt_type == UDCCP_PKT_LISTEN) {
    return 0;
  }
  /* Nothing to negotiate (every entry STABLE, no Confirm owed): the
   * common case once OPEN, answered inline (issue 13: feature work only
   * while something is pending). */
  if (!fs->pending && !fs->owed && fs->n_empty == 0) {
    fs->repeat = 0;
    return 0;
  }
  return udccp_feat_write_opts(fs, ob, pkt_type, seq);
}

/* Erratum 974: keeps FGSR <= GSR and FGSS <= GSS when they wrap.  Call
 * after each packet sent (udccp_feat_write and udccp_feat_read do it for
 * the packets they see). */
static inline void udccp_feat_check_wrap(udccp_feat_set *fs, uint64_t gsr,
                                         uint64_t gss) {
  /* Erratum 974: If FGSR > GSR, FGSR := GSR - Wmax (same for FGSS). */
  if (fs->fgsr_valid && udccp_seq_gt(fs->fgsr, gsr)) {
    fs->fgsr = udccp_seq_add(gsr, -(int64_t)UDCCP_SEQ_WINDOW_MAX);
  }
  if (udccp_seq_gt(fs->fgss, gss)) {
    fs->fgss = udccp_seq_add(gss, -(int64_t)UDCCP_SEQ_WINDOW_MAX);
  }
}

/* 1 if the next packet has negotiation options to carry: a Confirm owed,
 * a Change not sent yet, or a repetition asked for (fs->repeat).  The
 * common answer (nothing owed, nothing pending) inline: asked for every
 * packet (issue 13); the scan apart. */
int udccp_feat_want_packet_scan(const udccp_feat_set *fs);
static inline int udccp_feat_want_packet(const udccp_feat_set *fs) {
  if (fs->n_empty > 0) {
    return 1;
  }
  if (!fs->owed && !fs->pending) {
    return 0;
  }
  return udccp_feat_want_packet_scan(fs);
}

/* 1 if a Confirm (or an empty Confirm) is owed: the peer's Change asks for
 * an answer now (§6.6.1).  Our own unanswered Changes do not: they are
 * repeated on the back-off timer (§6.6.3). */
int udccp_feat_owes_confirm_scan(const udccp_feat_set *fs);
static inline int udccp_feat_owes_confirm(const udccp_feat_set *fs) {
  if (fs->n_empty > 0) {
    return 1;
  }
  if (!fs->owed) {
    return 0;
  }
  return udccp_feat_owes_confirm_scan(fs);
}

/* Client side of the handshake.  keep: called once the Response's options
 * are processed, remembers which Confirms answer its Changes.  repeat:
 * called before each non-Data packet sent in PARTOPEN, owes them again.
 * §6.6.3 says Confirms "need not" be retransmitted; Linux's server
 * (net/dccp) nevertheless activates its features on the first Ack or
 * DataAck that reaches it and resets the connection (Too Busy) when one is
 * still unconfirmed -- e.g. when the client's first Ack was lost and a
 * DataAck came next.  Linux's client repeats its Confirms on every
 * PARTOPEN packet; so do we. */
void udccp_feat_keep_handshake_confirms(udccp_feat_set *fs);
void udccp_feat_repeat_handshake_confirms(udccp_feat_set *fs);

/* 1 if every feature is STABLE (all our Changes were Confirmed).  O(1),
 * asked on every packet: fs->pending is set by a Change that starts and
 * recomputed whenever an entry becomes STABLE (feat.c). */
static inline int udccp_feat_all_confirmed(const udccp_feat_set *fs) {
  return !fs->pending;
}
/* Recomputes what udccp_feat_all_confirmed() answers in O(1): for code
 * that sets entries' states directly (a connection restored from a
 * cookie). */
void udccp_feat_settle(udccp_feat_set *fs);

/* 1 if every Change still unconfirmed is of a non-negotiable feature
 * (§6.3.2: Sequence Window, Ack Ratio): its old value stays in use until
 * the Confirm, so negotiation may go on after the handshake. */
int udccp_feat_only_nn_pending(const udccp_feat_set *fs);

/* Current value of feature num located here / at the peer; the §6.4
 * default for features we do not know. */
uint64_t udccp_feat_get_local(const udccp_feat_set *fs, uint8_t num);
uint64_t udccp_feat_get_remote(const udccp_feat_set *fs, uint8_t num);

/* Starts a negotiation of the NN feature num located here (Ack Ratio,
 * Sequence Window) towards value (§6.3.2, §6.6.5).  The value takes effect
 * when the peer Confirms it.  Returns 0, or UDCCP_ERR_INVALID_ARGUMENT (not
 * a known NN feature, or value invalid: Sequence Window outside 32..2^46-1,
 * Ack Ratio above 65535). */
int udccp_feat_change_nn(udccp_feat_set *fs, uint8_t num, uint64_t value);

/* Starts (or restarts, §6.6.5) a negotiation of the SP feature num located
 * here (local 1) or at the peer (local 0) with the preference list
 * prefs[0..n-1]; mandatory sends it with Mandatory.  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_feat_change_sp(udccp_feat_set *fs, uint8_t num, int local,
                         const uint8_t *prefs, size_t n, int mandatory);

/* RFC 4340 §10, §6.6.1, §10.5: once the CCID halves run, the CCID in use
 * is the only value we accept for either half.  A later Change(CCID) is
 * answered with a Confirm of the CCID we run (no shared value: the old
 * value, §6.3.1; Mandatory: Reset, §6.6.9), never with a value we would
 * not run.  Call when the CCIDs start. */
void udccp_feat_hold_ccids(udccp_feat_set *fs);

/* Multipath Capable (RFC 9897 §3.1).  The version agreed in the
 * handshake (0), or -1 if none: the peer sent an Empty Confirm (it does
 * not know the feature, or no version matched), never answered, or
 * multipath is off here.  §3.6: the connection then is plain DCCP. */
int udccp_feat_mp_version(const udccp_feat_set *fs);

/* Handshake end, client side: a Change R(Multipath Capable) the Response
 * did not answer at all ends as "not agreed" instead of failing the
 * handshake (§3.6: "the handshake SHOULD fall back to regular DCCP"). */
void udccp_feat_mp_fallback(udccp_feat_set *fs);

/* Server: withdraws an agreement on Multipath Capable not yet confirmed
 * (the owed Confirm L becomes empty): the Request's MP_KEY offered no key
 * type we support (RFC 9897 §3.6). */
void udccp_feat_mp_refuse(udccp_feat_set *fs);

/* Table queries: the rule (enum udccp_feat_rule) of a feature we know, 0
 * if unknown; its §6.4 initial value. */
int udccp_feat_rule(uint8_t num);
uint64_t udccp_feat_default(uint8_t num);

/* The entry for feature num at a location, or NULL if unknown. */
udccp_feat_entry *udccp_feat_entry_get(udccp_feat_set *fs, uint8_t num,
                                       int local);

#endif /* UDCCP_FEAT_H */
