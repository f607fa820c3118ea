/* SPDX-License-Identifier: MIT */
/*
 * libudccp-preload: getsockopt/setsockopt on DCCP sockets, with the
 * kernel's numbers (<linux/dccp.h>, SOL_DCCP = 269) and the errors Linux's
 * net/dccp/proto.c gave.  Options that shape the connection (service
 * codes, CCIDs, CsCov, queue policy and length) are kept on the socket and
 * applied when connect() or listen() creates the udccp connection.
 */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "compat.h"

/* <linux/dccp.h> numbers (not included: the compat layer states them). */
enum {
  OPT_PACKET_SIZE = 1,
  OPT_SERVICE = 2,
  OPT_CHANGE_L = 3,
  OPT_CHANGE_R = 4,
  OPT_GET_CUR_MPS = 5,
  OPT_SERVER_TIMEWAIT = 6,
  OPT_SEND_CSCOV = 10,
  OPT_RECV_CSCOV = 11,
  OPT_AVAILABLE_CCIDS = 12,
  OPT_CCID = 13,
  OPT_TX_CCID = 14,
  OPT_RX_CCID = 15,
  OPT_QPOLICY_ID = 16,
  OPT_QPOLICY_TXQLEN = 17,
  OPT_CCID_RX_INFO = 128,
  OPT_CCID_TX_INFO = 192
};
#define UCOMPAT_SOL_DCCP 269
#define UCOMPAT_SOCK_DCCP 6
#define UCOMPAT_IPPROTO_DCCP 33
#define UCOMPAT_SERVICE_INVALID 0xffffffffu

/* The kernel's struct tfrc_rx_info and struct tfrc_tx_info
 * (include/linux/tfrc.h), field for field. */
struct ucompat_tfrc_rx_info {
  uint32_t tfrcrx_x_recv; /* bytes/s */
  uint32_t tfrcrx_rtt;    /* us */
  uint32_t tfrcrx_p;      /* loss event rate x 1e6 */
};
struct ucompat_tfrc_tx_info {
  uint64_t tfrctx_x;      /* 64 x bytes/s */
  uint64_t tfrctx_x_recv; /* 64 x bytes/s */
  uint32_t tfrctx_x_calc; /* bytes/s */
  uint32_t tfrctx_rtt;    /* us */
  uint32_t tfrctx_p;      /* loss event rate x 1e6 */
  uint32_t tfrctx_rto;    /* us */
  uint32_t tfrctx_ipi;    /* us */
};


int ucompat_state(const ucompat_sock *cs);

static int fail(int e) {
  errno = e;
  return -1;
}

/* Any CCID the process has registered: 2, 3, 4 (RFC 4341, 4342, 5622) and
 * the experimental ones (RFC 4340 §10: 248..255; BBR 248 and CUBIC 249 by
 * default, or a number the application moved them to, e.g. the MP-DCCP
 * fork's 5 and 7 with UDCCP_CCID_REG_RESERVED). */
static int ccid_ok(uint8_t id) { return udccp_ccid_lookup(id) != NULL; }

/* The registered CCIDs in ascending order (the kernel's
 * DCCP_SOCKOPT_AVAILABLE_CCIDS lists its built-in ones); the count. */
static size_t ccid_list(uint8_t out[256]) {
  size_t n = 0;
  for (unsigned id = 2; id < 256; id++) {
    if (ccid_ok((uint8_t)id)) {
      out[n++] = (uint8_t)id;
    }
  }
  return n;
}

static int put_int(int v, void *val, socklen_t *len) {
  if (*len < sizeof(int)) {
    return fail(EINVAL);
  }
  memcpy(val, &v, sizeof(int));
  *len = sizeof(int);
  return 0;
}

static uint32_t clamp32(uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int is_tfrc(uint8_t id) { return id == 3 || id == 4; }

static int get_ccid_info(ucompat_sock *cs, int name, void *val,
                         socklen_t *len) {
  int st = ucompat_state(cs);
  if (st != UCOMPAT_OPEN && st != UCOMPAT_CLOSED) {
    return fail(ENOPROTOOPT); /* no CCID before the connection */
  }
  pthread_mutex_lock(&ucompat_mu);
  ucompat_svc_refresh(cs);
  pthread_mutex_unlock(&ucompat_mu);
  ucompat_stat snap;
  ucompat_snap_read(cs, &snap);
  const udccp_conn_info *in = &snap.info;
  if (name == OPT_CCID_RX_INFO) {
    /* CCID 2 has none: Linux answers ENOPROTOOPT. */
    if (!is_tfrc(in->rx_ccid)) {
      return fail(ENOPROTOOPT);
    }
    struct ucompat_tfrc_rx_info r;
    if (*len < sizeof(r)) {
      return fail(EINVAL);
    }
    r.tfrcrx_x_recv = clamp32(in->x_recv);
    r.tfrcrx_rtt = clamp32(in->srtt / 1000);
    r.tfrcrx_p = clamp32((uint64_t)(in->p * 1e6));
    memcpy(val, &r, sizeof(r));
    *len = sizeof(r);
    return 0;
  }
  if (!is_tfrc(in->tx_ccid)) {
    return fail(ENOPROTOOPT);
  }
  struct ucompat_tfrc_tx_info t;
  if (*len < sizeof(t)) {
    return fail(EINVAL);
  }
  memset(&t, 0, sizeof(t));
  t.tfrctx_x = in->x << 6;
  t.tfrctx_x_recv = in->x_recv << 6;
  t.tfrctx_x_calc = clamp32(in->x_calc);
  t.tfrctx_rtt = clamp32(in->srtt / 1000);
  t.tfrctx_p = clamp32((uint64_t)(in->p * 1e6));
  t.tfrctx_rto = clamp32(in->rto / 1000);
  t.tfrctx_ipi = clamp32(in->t_ipi / 1000);
  memcpy(val, &t, sizeof(t));
  *len = sizeof(t);
  return 0;
}

static int get_dccp(ucompat_sock *cs, int name, void *val, socklen_t *len) {
  int st = ucompat_state(cs);
  switch (name) {
  case OPT_PACKET_SIZE:
    return put_int(0, val, len); /* deprecated in Linux, no effect */
  case OPT_SERVICE: {
    /* Linux: the service code, then the listener's other codes. */
    size_t n = cs->nsc > 0 ? cs->nsc : 1;
    if (*len < n * sizeof(uint32_t)) {
      return fail(EINVAL);
    }
    for (size_t i = 0; i < n; i++) {
      uint32_t v = htonl(cs->nsc > 0 ? cs->sc[i] : 0);
      memcpy((uint8_t *)val + i * 4, &v, 4);
    }
    *len = (socklen_t)(n * sizeof(uint32_t));
    return 0;
  }
  case OPT_GET_CUR_MPS: {
    uint32_t mps = ucompat_slot_valid(cs) ? atomic_load(&cs->st->mps) : 0;
    return put_int((int)mps, val, len);
  }
  case OPT_SERVER_TIMEWAIT:
    return put_int(cs->server_timewait, val, len);
  case OPT_SEND_CSCOV:
    return put_int(cs->send_cscov, val, len);
  case OPT_RECV_CSCOV:
    return put_int(cs->recv_cscov, val, len);
  case OPT_QPOLICY_ID:
    return put_int(cs->qpolicy, val, len);
  case OPT_QPOLICY_TXQLEN:
    return put_int((int)(cs->txqlen != 0 ? cs->txqlen : 32), val, len);
  case OPT_AVAILABLE_CCIDS: {
    uint8_t ids[256];
    size_t n = ccid_list(ids);
    if (*len < n) {
      return fail(EINVAL);
    }
    memcpy(val, ids, n);
    *len = (socklen_t)n;
    return 0;
  }
  case OPT_TX_CCID:
  case OPT_RX_CCID: {
    if (st != UCOMPAT_OPEN && st != UCOMPAT_CLOSED) {
      return fail(ENOPROTOOPT); /* Linux: no CCID yet */
    }
    ucompat_stat snap;
    ucompat_snap_read(cs, &snap);
    return put_int(name == OPT_TX_CCID ? snap.info.tx_ccid
                                       : snap.info.rx_ccid,
                   val, len);
  }
  case OPT_CCID_RX_INFO:
  case OPT_CCID_TX_INFO:
    return get_ccid_info(cs, name, val, len);
  default:
    return fail(ENOPROTOOPT);
  }
}

int ucompat_getsockopt(ucompat_sock *cs, int fd, int level, int name,
                       void *val, socklen_t *len) {
  if (val == NULL || len == NULL) {
    return fail(EFAULT);
  }
  if (level == UCOMPAT_SOL_DCCP) {
    return get_dccp(cs, name, val, len);
  }
  if (level == SOL_SOCKET) {
    switch (name) {
    case SO_TYPE: return put_int(UCOMPAT_SOCK_DCCP, val, len);
    case SO_PROTOCOL: return put_int(UCOMPAT_IPPROTO_DCCP, val, len);
    case SO_DOMAIN: return put_int(cs->family, val, len);
    case SO_ACCEPTCONN:
      return put_int(ucompat_state(cs) == UCOMPAT_LISTENING, val, len);
    default:
      return ucompat_libc.getsockopt(fd, level, name, val, len);
    }
  }
  return fail(ENOPROTOOPT);
}

static int get_val_int(const void *val, socklen_t len, int *out) {
  if (val == NULL || len < sizeof(int)) {
    return fail(EINVAL);
  }
  memcpy(out, val, sizeof(int));
  return 0;
}

static int set_dccp(ucompat_sock *cs, int name, const void *val,
                    socklen_t len) {
  int st = ucompat_state(cs);
  int v = 0;
  switch (name) {
  case OPT_PACKET_SIZE:
    return 0; /* deprecated in Linux, no effect */
  case OPT_CHANGE_L:
  case OPT_CHANGE_R:
    return fail(ENOPROTOOPT); /* removed from Linux in 2.6.30 */
  case OPT_SERVICE: {
    /* RFC 5595 §4: a listener may serve up to 32 codes (Linux limit);
     * network byte order, as the wire carries them. */
    if (val == NULL || len < sizeof(uint32_t) ||
        len > UCOMPAT_MAX_SC * sizeof(uint32_t) || len % 4 != 0) {
      return fail(EINVAL);
    }
    size_t n = len / 4;
    uint32_t sc[UCOMPAT_MAX_SC];
    for (size_t i = 0; i < n; i++) {
      uint32_t x;
      memcpy(&x, (const uint8_t *)val + i * 4, 4);
      sc[i] = ntohl(x);
      if (sc[i] == UCOMPAT_SERVICE_INVALID) {
        return fail(EINVAL); /* RFC 4340 §8.1.2 */
      }
    }
    memcpy(cs->sc, sc, n * sizeof(uint32_t));
    cs->nsc = n;
    return 0;
  }
  case OPT_CCID:
  case OPT_TX_CCID:
  case OPT_RX_CCID: {
    /* Linux takes a preference list of CCIDs, before the connection. */
    if (st != UCOMPAT_NEW) {
      return fail(EISCONN);
    }
    if (val == NULL || len < 1 || len > 16) {
      return fail(EINVAL);
    }
    const uint8_t *ids = val;
    for (socklen_t i = 0; i < len; i++) {
      if (!ccid_ok(ids[i])) {
        return fail(EINVAL);
      }
    }
    if (name != OPT_RX_CCID) {
      cs->tx_ccid = ids[0];
    }
    if (name != OPT_TX_CCID) {
      cs->rx_ccid = ids[0];
    }
    return 0;
  }
  case OPT_SERVER_TIMEWAIT: {
    if (get_val_int(val, len, &v) != 0) {
      return -1;
    }
    /* Linux: only a socket in the server role (after accept()). */
    if (!cs->is_server) {
      return fail(EOPNOTSUPP);
    }
    cs->server_timewait = v != 0;
    pthread_mutex_lock(&ucompat_mu);
    (void)ucompat_svc_set_timewait(cs, v);
    pthread_mutex_unlock(&ucompat_mu);
    return 0;
  }
  case OPT_SEND_CSCOV:
  case OPT_RECV_CSCOV:
    if (get_val_int(val, len, &v) != 0) {
      return -1;
    }
    if (v < 0 || v > 15) { /* RFC 4340 §9.2: CsCov is 4 bits */
      return fail(EINVAL);
    }
    if (name == OPT_SEND_CSCOV) {
      cs->send_cscov = (uint8_t)v;
    } else {
      cs->recv_cscov = (uint8_t)v;
    }
    return 0;
  case OPT_QPOLICY_ID:
    if (get_val_int(val, len, &v) != 0) {
      return -1;
    }
    if (st != UCOMPAT_NEW) {
      return fail(EISCONN);
    }
    if (v != UDCCP_QPOLICY_SIMPLE && v != UDCCP_QPOLICY_PRIO) {
      return fail(EINVAL);
    }
    cs->qpolicy = (uint8_t)v;
    return 0;
  case OPT_QPOLICY_TXQLEN:
    if (get_val_int(val, len, &v) != 0) {
      return -1;
    }
    if (v < 0) {
      return fail(EINVAL);
    }
    if (st != UCOMPAT_NEW && st != UCOMPAT_LISTENING) {
      return 0; /* takes effect on the next connection only */
    }
    cs->txqlen = (uint32_t)v;
    return 0;
  default:
    return fail(ENOPROTOOPT);
  }
}

int ucompat_setsockopt(ucompat_sock *cs, int fd, int level, int name,
                       const void *val, socklen_t len) {
  if (level == UCOMPAT_SOL_DCCP) {
    return set_dccp(cs, name, val, len);
  }
  if (level == SOL_SOCKET) {
    return ucompat_libc.setsockopt(fd, level, name, val, len);
  }
  if (level == IPPROTO_IP || level == IPPROTO_IPV6) {
    return 0; /* IP-level options do not reach udccp's sockets: ignored */
  }
  return fail(ENOPROTOOPT);
}
