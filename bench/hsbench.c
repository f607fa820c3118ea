/* SPDX-License-Identifier: MIT */
/*
 * udccp-hsbench: the sans-I/O core's cost per connection, in one process,
 * without sockets (issue 13):
 *
 *   handshakes  client_new, a listener's server connection from the
 *               Request, the full handshake, one datagram each way, a
 *               graceful close until both ends are done, both freed: the
 *               cycles per CPU-second, with the C heap and with an endpoint
 *               pool (udccp_mempool); randomness from one seeded
 *               udccp_csprng per run (no syscall per connection).  Next to
 *               it, measured in the same run, a floor: one malloc of an
 *               idle connection's size plus a memset of it, and free.
 *   memory      N connections opened and left idle after one datagram each
 *               way: heap bytes (and allocations) held per connection per
 *               end, then what is left once they have all closed.
 *
 *   udccp-hsbench [-n CYCLES] [-c CONNS] [-m both|heap|pool] [-J]
 *
 * Under valgrind --tool=callgrind, run one mode (-m heap or -m pool) with
 * -c 1: instructions per handshake = Ir / n (the set-up is small).
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <udccp/udccp.h>

#include "lpump.h"

/* ------------------------------------------------- a counting allocator */

/* Each block carries its size in a header, so that frees can be counted
 * in bytes.  16 bytes keep the payload aligned for any type. */
typedef struct heap_count {
  udccp_mem mem;
  int64_t bytes, blocks;     /* live */
  int64_t peak_bytes;
} heap_count;

#define HDR 16

static void *hc_malloc(size_t n, void *ud) {
  heap_count *h = ud;
  uint8_t *p = malloc(n + HDR);
  if (p == NULL) {
    return NULL;
  }
  memcpy(p, &n, sizeof(n));
  h->bytes += (int64_t)n;
  h->blocks++;
  if (h->bytes > h->peak_bytes) {
    h->peak_bytes = h->bytes;
  }
  return p + HDR;
}

static void hc_free(void *ptr, void *ud) {
  heap_count *h = ud;
  size_t n;
  if (ptr == NULL) {
    return;
  }
  memcpy(&n, (uint8_t *)ptr - HDR, sizeof(n));
  h->bytes -= (int64_t)n;
  h->blocks--;
  free((uint8_t *)ptr - HDR);
}

static void *hc_calloc(size_t n, size_t sz, void *ud) {
  void *p;
  if (sz != 0 && n > SIZE_MAX / sz) {
    return NULL;
  }
  p = hc_malloc(n * sz, ud);
  if (p != NULL) {
    memset(p, 0, n * sz);
  }
  return p;
}

static void *hc_realloc(void *ptr, size_t n, void *ud) {
  size_t old;
  void *p;
  if (ptr == NULL) {
    return hc_malloc(n, ud);
  }
  memcpy(&old, (uint8_t *)ptr - HDR, sizeof(old));
  p = hc_malloc(n, ud);
  if (p == NULL) {
    return NULL;
  }
  memcpy(p, ptr, old < n ? old : n);
  hc_free(ptr, ud);
  return p;
}

static void heap_count_init(heap_count *h) {
  memset(h, 0, sizeof(*h));
  h->mem.user_data = h;
  h->mem.malloc = hc_malloc;
  h->mem.free = hc_free;
  h->mem.calloc = hc_calloc;
  h->mem.realloc = hc_realloc;
}

/* ------------------------------------------------------------ the pair */

typedef struct bench {
  udccp_settings cs, ss;
  udccp_listener *lis;
  heap_count hc[2]; /* client end, server end */
  udccp_csprng rng;  /* seeded once, as an endpoint would */
  udccp_tstamp now;
  uint8_t buf[2048];
} bench;

/* 1 us per round: the RTT the ends measure.  -1: the listener failed. */
static int pump(bench *b, udccp_conn *c[2], uint32_t i) {
  return udccp_lpump(b->lis, c, i, b->buf, sizeof(b->buf), &b->now, 1000);
}

static int both_open(udccp_conn *c[2]) {
  return c[0] != NULL && c[1] != NULL &&
         udccp_conn_get_state(c[0]) == UDCCP_STATE_OPEN &&
         udccp_conn_get_state(c[1]) == UDCCP_STATE_OPEN;
}

/* Opens connection i: both ends OPEN with one datagram read each way. */
static int open_one(bench *b, udccp_conn *c[2], uint32_t i) {
  udccp_path cp;
  uint8_t d[64];
  int side;
  memset(d, 'x', sizeof(d));
  udccp_lpump_path(&cp, i, 0);
  c[0] = c[1] = NULL;
  if (udccp_conn_client_new(&c[0], &b->cs, &cp, 42, b->now) != 0) {
    return -1;
  }
  if (pump(b, c, i) != 0 || !both_open(c)) {
    return -1;
  }
  for (side = 0; side < 2; ++side) {
    if (udccp_conn_queue_datagram(c[side], d, sizeof(d), 0, b->now) != 0) {
      return -1;
    }
  }
  (void)pump(b, c, i);
  for (side = 0; side < 2; ++side) {
    if (udccp_conn_read_datagram(c[side], d, sizeof(d)) != (udccp_ssize)sizeof(d)) {
      return -1;
    }
  }
  return 0;
}

/* Closes connection i gracefully and frees both ends.  The TIMEWAIT end is
 * run to its end by expiring its timer. */
static int close_one(bench *b, udccp_conn *c[2], uint32_t i) {
  int side, k;
  if (udccp_conn_close(c[0], b->now) != 0) {
    return -1;
  }
  (void)pump(b, c, i);
  for (k = 0; k < 4; ++k) {
    for (side = 0; side < 2; ++side) {
      if (c[side] != NULL && !udccp_conn_is_done(c[side])) {
        udccp_tstamp t = udccp_conn_get_expiry(c[side]);
        if (t != UDCCP_TSTAMP_NEVER) {
          (void)udccp_conn_handle_expiry(c[side], t > b->now ? t : b->now);
        }
      }
    }
    (void)pump(b, c, i);
  }
  udccp_listener_conn_gone(b->lis, c[1]);
  for (side = 0; side < 2; ++side) {
    if (!udccp_conn_is_done(c[side])) {
      return -1;
    }
    udccp_conn_del(c[side]);
    c[side] = NULL;
  }
  return 0;
}

static double cpu_now(void);

/* (Re)creates the listener with the ends' allocators cmem and smem. */
static int bench_use(bench *b, const udccp_mem *cmem, const udccp_mem *smem) {
  static const uint32_t codes[] = {42};
  udccp_listener_settings ls;
  udccp_listener_del(b->lis);
  b->cs.mem = cmem;
  b->ss.mem = smem;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = codes;
  ls.n_service_codes = 1;
  /* The core's cost per connection, not the listener's bounds: every
   * Request makes a connection, however many are open. */
  ls.init_cookie = UDCCP_INIT_COOKIE_NEVER;
  ls.half_open_max = UINT32_MAX;
  ls.backlog = UINT32_MAX;
  return udccp_listener_new(&b->lis, &b->ss, &ls, b->now);
}

/* The CCID both ends ask for (--ccid; 0: the default, CCID 2). */
static uint8_t g_ccid;

static int bench_init(bench *b) {
  /* A real endpoint seeds from getrandom(2) once; a fixed seed here keeps
   * runs comparable. */
  static const uint8_t seed[16] = "udccp-hsbench-01";
  memset(b, 0, sizeof(*b));
  heap_count_init(&b->hc[0]);
  heap_count_init(&b->hc[1]);
  udccp_csprng_seed(&b->rng, seed);
  b->now = 1000000000;
  udccp_settings_default(&b->cs);
  b->cs.cksum_mode = UDCCP_CKSUM_NONE; /* DCCP-UDP */
  b->cs.hdr_overhead = 28;
  b->cs.rand = udccp_csprng_fill;
  b->cs.rand_user_data = &b->rng;
  if (g_ccid != 0) {
    b->cs.ccid = g_ccid;
  }
  b->ss = b->cs;
  return bench_use(b, &b->hc[0].mem, &b->hc[1].mem);
}

/* Runs n open/close cycles; returns cycles per CPU-second, or -1. */
static double cycles_rate(bench *b, uint64_t n) {
  udccp_conn *c[2];
  double t0 = cpu_now(), t;
  uint64_t i;
  for (i = 0; i < n; ++i) {
    if (open_one(b, c, (uint32_t)i) != 0 || close_one(b, c, (uint32_t)i) != 0) {
      fprintf(stderr, "udccp-hsbench: cycle %llu failed\n",
              (unsigned long long)i);
      return -1;
    }
  }
  t = cpu_now() - t0;
  return t > 0 ? (double)n / t : 0;
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The floor: malloc + memset + free of `size` bytes, per CPU-second. */
static double floor_rate(size_t size, uint64_t n) {
  volatile uint8_t sink = 0;
  double t0 = cpu_now(), t;
  uint64_t i;
  for (i = 0; i < n; ++i) {
    uint8_t *p = malloc(size);
    if (p == NULL) {
      return 0;
    }
    memset(p, (int)i, size);
    sink ^= p[size - 1];
    free(p);
  }
  t = cpu_now() - t0;
  (void)sink;
  return t > 0 ? (double)n / t : 0;
}

int main(int argc, char **argv) {
  static const struct option lopts[] = {{"cycles", required_argument, 0, 'n'},
                                        {"conns", required_argument, 0, 'c'},
                                        {"json", no_argument, 0, 'J'},
                                        {"mode", required_argument, 0, 'm'},
                                        {"ccid", required_argument, 0, 'C'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  uint64_t cycles = 20000;
  uint32_t nconns = 1000, k;
  int json = 0, o, mode = 0; /* 0 both, 1 heap, 2 pool */
  bench *b;
  udccp_conn *(*idle)[2];
  udccp_mempool *pool = NULL;
  double rate, rate_pool, floor;
  int64_t idle_bytes[2], idle_blocks[2], base_bytes[2], left_bytes[2];
  size_t conn_size = 0;

  while ((o = getopt_long(argc, argv, "n:c:m:C:Jh", lopts, NULL)) != -1) {
    switch (o) {
    case 'm':
      mode = strcmp(optarg, "heap") == 0 ? 1 : strcmp(optarg, "pool") == 0 ? 2 : 0;
      break;
    case 'n':
      cycles = strtoull(optarg, NULL, 10);
      break;
    case 'c':
      nconns = (uint32_t)strtoul(optarg, NULL, 10);
      break;
    case 'J':
      json = 1;
      break;
    case 'C': {
      unsigned long v = strtoul(optarg, NULL, 10);
      if (v < 2 || v > 255) {
        fprintf(stderr, "udccp-hsbench: --ccid must be 2..255\n");
        return 2;
      }
      g_ccid = (uint8_t)v;
      break;
    }
    default:
      printf("usage: udccp-hsbench [-n CYCLES (20000)] [-c CONNS (1000)] "
             "[-m|--mode both|heap|pool (both)] [-C|--ccid N (2)] "
             "[-J|--json]\n");
      return o == 'h' ? 0 : 2;
    }
  }
  if (cycles == 0 || nconns == 0) {
    fprintf(stderr, "udccp-hsbench: -n and -c must be > 0\n");
    return 2;
  }
  b = calloc(1, sizeof(*b));
  idle = calloc(nconns, sizeof(*idle));
  if (b == NULL || idle == NULL || bench_init(b) != 0) {
    fprintf(stderr, "udccp-hsbench: set-up failed\n");
    return 1;
  }

  /* Memory: nconns idle connections. */
  base_bytes[0] = b->hc[0].bytes;
  base_bytes[1] = b->hc[1].bytes;
  for (k = 0; k < nconns; ++k) {
    if (open_one(b, idle[k], k) != 0) {
      fprintf(stderr, "udccp-hsbench: connection %u failed to open\n", k);
      return 1;
    }
  }
  /* Idle: a busy connection keeps its drained queue blocks for reuse and
   * gives them back 100 ms after taking them (UDCCP_CONN_TRIM_AFTER):
   * let 2 x 250 ms pass, running the timers due. */
  for (o = 0; o < 2; ++o) {
    b->now += 250 * UDCCP_NS_PER_MS;
    for (k = 0; k < nconns; ++k) {
      int side;
      for (side = 0; side < 2; ++side) {
        if (udccp_conn_get_expiry(idle[k][side]) <= b->now) {
          (void)udccp_conn_handle_expiry(idle[k][side], b->now);
        }
      }
      (void)pump(b, idle[k], k);
    }
  }
  for (o = 0; o < 2; ++o) {
    idle_bytes[o] = b->hc[o].bytes - base_bytes[o];
    idle_blocks[o] = b->hc[o].blocks;
  }
  for (k = 0; k < nconns; ++k) {
    if (close_one(b, idle[k], k) != 0) {
      fprintf(stderr, "udccp-hsbench: connection %u failed to close\n", k);
      return 1;
    }
  }
  for (o = 0; o < 2; ++o) {
    left_bytes[o] = b->hc[o].bytes - base_bytes[o];
  }

  /* Handshakes: open and close, one pair at a time; the C heap (through
   * the counting hooks), then an endpoint pool over the C heap. */
  rate = mode != 2 ? cycles_rate(b, cycles) : 0;
  if (udccp_mempool_new(&pool, NULL, 0) != 0 ||
      bench_use(b, udccp_mempool_mem(pool), udccp_mempool_mem(pool)) != 0) {
    fprintf(stderr, "udccp-hsbench: pool set-up failed\n");
    return 1;
  }
  rate_pool = mode != 1 ? cycles_rate(b, cycles) : 0;
  if (rate < 0 || rate_pool < 0) {
    return 1;
  }
  /* The floor's size: what one idle connection held at one end. */
  conn_size = (size_t)(idle_bytes[1] / nconns);
  floor = floor_rate(conn_size > 0 ? conn_size : 1, cycles);

  if (json) {
    printf("{\"handshakes_per_cpu_s\": %.0f, "
           "\"handshakes_per_cpu_s_pool\": %.0f, \"floor_per_cpu_s\": %.0f, "
           "\"floor_bytes\": %zu, \"cycles\": %llu, \"conns\": %u, "
           "\"idle_bytes_per_conn_client\": %.0f, "
           "\"idle_bytes_per_conn_server\": %.0f, "
           "\"idle_allocs_per_conn_client\": %.1f, "
           "\"idle_allocs_per_conn_server\": %.1f, "
           "\"bytes_left_after_close\": %lld}\n",
           rate, rate_pool, floor, conn_size, (unsigned long long)cycles,
           nconns,
           (double)idle_bytes[0] / nconns, (double)idle_bytes[1] / nconns,
           (double)idle_blocks[0] / nconns, (double)idle_blocks[1] / nconns,
           (long long)(left_bytes[0] + left_bytes[1]));
  } else {
    printf("handshakes (open, 1 datagram each way, close; sans-I/O core): "
           "%.0f per CPU-second with the C heap, %.0f with an endpoint "
           "pool (%llu cycles each)\n",
           rate, rate_pool, (unsigned long long)cycles);
    printf("floor (malloc+memset+free of %zu B, one end's idle size): "
           "%.0f per CPU-second; core/floor %.2f\n",
           conn_size, floor, floor > 0 ? rate / floor : 0);
    printf("heap per idle OPEN connection (%u conns): client %.0f B in "
           "%.1f blocks, server %.0f B in %.1f blocks\n",
           nconns, (double)idle_bytes[0] / nconns,
           (double)idle_blocks[0] / nconns, (double)idle_bytes[1] / nconns,
           (double)idle_blocks[1] / nconns);
    printf("heap left after all closed: %lld B\n",
           (long long)(left_bytes[0] + left_bytes[1]));
  }
  udccp_listener_del(b->lis);
  udccp_mempool_del(pool);
  free(idle);
  free(b);
  return 0;
}
