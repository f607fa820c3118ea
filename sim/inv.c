/* SPDX-License-Identifier: MIT */
/*
 * The chaos invariants (sim_inv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seq.h"
#include "sim_inv.h"

/* Allocations carry their size in front so that frees can be counted. */
#define HDR 16

static void *inv_malloc(size_t size, void *ud) {
  sim_inv_end *e = ud;
  uint8_t *p = malloc(size + HDR);
  if (p == NULL) {
    return NULL;
  }
  memcpy(p, &size, sizeof(size));
  e->mem_now += size;
  if (e->mem_now > e->mem_peak) {
    e->mem_peak = e->mem_now;
  }
  return p + HDR;
}

static void inv_free(void *ptr, void *ud) {
  sim_inv_end *e = ud;
  if (ptr == NULL) {
    return;
  }
  uint8_t *p = (uint8_t *)ptr - HDR;
  size_t size;
  memcpy(&size, p, sizeof(size));
  e->mem_now -= size;
  free(p);
}

static void *inv_calloc(size_t n, size_t size, void *ud) {
  if (size != 0 && n > SIZE_MAX / size) {
    return NULL;
  }
  void *p = inv_malloc(n * size, ud);
  if (p != NULL) {
    memset(p, 0, n * size);
  }
  return p;
}

static void *inv_realloc(void *ptr, size_t size, void *ud) {
  if (ptr == NULL) {
    return inv_malloc(size, ud);
  }
  uint8_t *old = (uint8_t *)ptr - HDR;
  size_t old_size;
  memcpy(&old_size, old, sizeof(old_size));
  void *n = inv_malloc(size, ud);
  if (n == NULL) {
    return NULL;
  }
  memcpy(n, ptr, old_size < size ? old_size : size);
  inv_free(ptr, ud);
  return n;
}

void sim_inv_end_init(sim_inv_end *e) {
  memset(e, 0, sizeof(*e));
  e->mem.user_data = e;
  e->mem.malloc = inv_malloc;
  e->mem.free = inv_free;
  e->mem.calloc = inv_calloc;
  e->mem.realloc = inv_realloc;
}

int sim_inv_after_write(sim_inv_end *e, const udccp_conn *c,
                        const uint8_t *pkt, size_t n, uint32_t pmtu,
                        uint32_t hdr_overhead, char *err, size_t cap) {
  if (n + hdr_overhead > pmtu) {
    snprintf(err, cap, "packet of %zu bytes exceeds the path MTU %u less "
             "%u bytes of headers (MPS, RFC 4340 §14)", n, pmtu,
             hdr_overhead);
    return -1;
  }
  udccp_conn_info info;
  udccp_conn_get_info(c, &info);
  udccp_pkt_peek pk;
  if (udccp_pkt_peek_hdr(&pk, pkt, n) != 0) {
    snprintf(err, cap, "write_pkt gave a packet its own parser refuses");
    return -1;
  }
  if (pk.type == UDCCP_PKT_LISTEN) {
    return 0; /* sequence number 0, not a GSS (RFC 5596 §2.2.1) */
  }
  if (pk.type == UDCCP_PKT_RESET &&
      (info.state == UDCCP_STATE_TIMEWAIT || info.state == UDCCP_STATE_CLOSED ||
       info.state == UDCCP_STATE_LISTEN || info.state == UDCCP_STATE_REQUEST)) {
    /* a Reset answering a packet where no connection is (TIMEWAIT acts as
     * one), or one a client in REQUEST cannot take: numbered from that
     * packet's ackno (RFC 4340 §8.5 steps 1, 2 and 4, as Linux does), not
     * from GSS */
    return 0;
  }
  /* Every packet takes a new sequence number, in the order sent (§7.1);
   * GSS is the greatest.  X=0 packets carry the low 24 bits only. */
  uint64_t mask = pk.x ? (1ULL << 48) - 1 : (1ULL << 24) - 1;
  uint64_t seq = (info.gss & ~mask) | pk.seq;
  if (udccp_seq_gt(seq, info.gss)) {
    seq = udccp_seq_add(seq, -(int64_t)(mask + 1));
  }
  if (udccp_seq_sub(info.gss, seq) > (int64_t)mask / 2) {
    snprintf(err, cap, "packet seqno %llu (type %u, state %s) is far below "
             "GSS %llu (RFC 4340 §7.1)", (unsigned long long)pk.seq, pk.type,
             udccp_state_str(info.state), (unsigned long long)info.gss);
    return -1;
  }
  if (e->have_gss && !udccp_seq_gt(seq, e->last_gss)) {
    snprintf(err, cap, "packet seqno %llu after %llu, type %u in state %s: "
             "sequence numbers must increase (RFC 4340 §7.1)",
             (unsigned long long)seq, (unsigned long long)e->last_gss,
             pk.type, udccp_state_str(info.state));
    return -1;
  }
  e->last_gss = seq;
  e->have_gss = 1;
  return 0;
}

int sim_inv_after_event(sim_inv_end *e, const udccp_conn *c, udccp_tstamp now,
                        char *err, size_t cap) {
  udccp_conn_info in;
  udccp_conn_get_info(c, &in);
  const int64_t wmax = (int64_t)70368744177663LL; /* 2^46 - 1, §7.5.2 */
  if (e->mem_now > SIM_INV_MEM_LIMIT) {
    snprintf(err, cap, "connection holds %zu bytes (limit %u)", e->mem_now,
             SIM_INV_MEM_LIMIT);
    return -1;
  }
  if (in.state != UDCCP_STATE_CLOSED && in.state != UDCCP_STATE_TIMEWAIT &&
      e->have_gss) {
    int64_t aw = udccp_seq_sub(in.awh, in.awl);
    if (in.awh != in.gss || aw < 0 || aw >= wmax) {
      snprintf(err, cap, "acknowledgement window [%llu, %llu] with GSS %llu "
               "(RFC 4340 §7.5.1)", (unsigned long long)in.awl,
               (unsigned long long)in.awh, (unsigned long long)in.gss);
      return -1;
    }
  }
  if (in.state == UDCCP_STATE_PARTOPEN || in.state == UDCCP_STATE_OPEN ||
      in.state == UDCCP_STATE_CLOSEREQ || in.state == UDCCP_STATE_CLOSING) {
    uint64_t g1 = udccp_seq_add(in.gsr, 1);
    int64_t sw = udccp_seq_sub(in.swh, in.swl);
    if (udccp_seq_lt(g1, in.swl) || udccp_seq_gt(g1, in.swh) || sw < 0 ||
        sw >= wmax) {
      snprintf(err, cap, "sequence window [%llu, %llu] with GSR %llu "
               "(RFC 4340 §7.5.1)", (unsigned long long)in.swl,
               (unsigned long long)in.swh, (unsigned long long)in.gsr);
      return -1;
    }
  }
  if (!udccp_conn_is_done(c) && udccp_conn_get_expiry(c) <= now) {
    snprintf(err, cap, "expiry %llu ns is not after now %llu ns once "
             "served (state %s): a timer in the past",
             (unsigned long long)udccp_conn_get_expiry(c),
             (unsigned long long)now, udccp_state_str(in.state));
    return -1;
  }
  return 0;
}
