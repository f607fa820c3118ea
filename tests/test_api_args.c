/* SPDX-License-Identifier: MIT */
/*
 * Every public function of include/udccp/udccp.h and <udccp/ccid.h> called
 * with bad arguments -- a NULL handle, a NULL out-pointer or struct, a
 * NULL data pointer with a length, a number out of range -- must return
 * the error its description (or the header's conventions) names, or do
 * nothing, never crash.  Table-driven: each case runs in a child process
 * (fork), so a crash (or an ASan report) names the call and the other
 * cases still run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

/* Objects the cases use, made once in the parent (the children inherit
 * copies). */
static udccp_settings g_set;
static udccp_path g_path;
static udccp_conn *g_conn;
static udccp_listener *g_lis;
static udccp_endpoint *g_ep;
static udccp_sock *g_sock;
static udccp_mempool *g_pool;

static void test_rand(uint8_t *dest, size_t n, void *ud) {
  (void)ud;
  for (size_t i = 0; i < n; ++i) {
    dest[i] = (uint8_t)(i * 37u + 11u);
  }
}

static void make_objects(void) {
  static const uint32_t codes[] = {42};
  udccp_listener_settings ls;
  udccp_settings_default(&g_set);
  g_set.rand = test_rand;
  memset(&g_path, 0, sizeof(g_path));
  g_path.family = UDCCP_AF_INET;
  g_path.local_addr[0] = 127;
  g_path.local_addr[3] = 1;
  g_path.remote_addr[0] = 127;
  g_path.remote_addr[3] = 1;
  g_path.local_port = 40001;
  g_path.remote_port = 5001;
  assert_int_equal(udccp_conn_client_new(&g_conn, &g_set, &g_path, 42, 0), 0);
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = codes;
  ls.n_service_codes = 1;
  assert_int_equal(udccp_listener_new(&g_lis, &g_set, &ls, 0), 0);
  assert_int_equal(udccp_mempool_new(&g_pool, NULL, 0), 0);
  assert_int_equal(
      udccp_endpoint_new(&g_ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0), 0);
  /* Non-blocking: a socket in REQUEST, nothing waited for. */
  assert_int_equal(udccp_connect(g_ep, &g_sock, "127.0.0.1", 5001, 42, 0, 0),
                   0);
}

static void free_objects(void) {
  udccp_abort(g_sock);
  udccp_endpoint_del(g_ep);
  udccp_mempool_del(g_pool);
  udccp_listener_del(g_lis);
  udccp_conn_del(g_conn);
}

static uint8_t big[UDCCP_PMTU_MAX];

static int cb_stop(uint64_t hi, uint64_t lo, uint8_t st, void *u) {
  (void)hi;
  (void)lo;
  (void)st;
  (void)u;
  return 1;
}

/* The cases: run_case(line, ...) runs the case written on that line of
 * this file.  dry: only say whether one is there.  Returns 0 when the
 * call returned what was expected, 1 when not (and prints why), -1 when
 * no case is on that line. */
#define ERR UDCCP_ERR_INVALID_ARGUMENT
#define EXPECT(call, want)                                                    \
  case __LINE__:                                                              \
    if (dry) {                                                                \
      return 0;                                                               \
    }                                                                         \
    {                                                                         \
      long long got_ = (long long)(call);                                     \
      if (got_ != (long long)(want)) {                                        \
        fprintf(stderr, "%s: returned %lld, want %lld (%s)\n", #call, got_,   \
                (long long)(want), #want);                                    \
        return 1;                                                             \
      }                                                                       \
      return 0;                                                               \
    }
#define EXPECT_PTR(call, want)                                                \
  case __LINE__:                                                              \
    if (dry) {                                                                \
      return 0;                                                               \
    }                                                                         \
    {                                                                         \
      const void *got_ = (const void *)(call);                                \
      if (got_ != (const void *)(want)) {                                     \
        fprintf(stderr, "%s: returned %p, want %s\n", #call, got_, #want);    \
        return 1;                                                             \
      }                                                                       \
      return 0;                                                               \
    }
/* A call that returns nothing: it must only not crash. */
#define SURVIVES(call)                                                        \
  case __LINE__:                                                              \
    if (dry) {                                                                \
      return 0;                                                               \
    }                                                                         \
    call;                                                                     \
    return 0;
/* A struct the call must zero (its handle was NULL). */
#define ZEROES(call, obj)                                                     \
  case __LINE__:                                                              \
    if (dry) {                                                                \
      return 0;                                                               \
    }                                                                         \
    {                                                                         \
      memset(&(obj), 0xA5, sizeof(obj));                                      \
      call;                                                                   \
      static const unsigned char zero_[sizeof(obj)];                          \
      if (memcmp(&(obj), zero_, sizeof(obj)) != 0) {                          \
        fprintf(stderr, "%s: did not zero %s\n", #call, #obj);                \
        return 1;                                                             \
      }                                                                       \
      return 0;                                                               \
    }

static int run_case(int line, int dry) {
  uint8_t buf[2048];
  const uint8_t *cp = NULL;
  uint8_t *p8 = NULL;
  size_t sz = 0;
  uint8_t ecn = 0;
  uint32_t u32 = 0;
  udccp_conn *conn = NULL;
  udccp_listener *lis = NULL;
  udccp_endpoint *ep = NULL;
  udccp_endpoint *eps[2] = {NULL, NULL};
  udccp_sock *sock = NULL;
  udccp_mpsock *mp = NULL;
  udccp_pcap *pc = NULL;
  udccp_mempool *pool = NULL;
  udccp_pkt_peek pk;
  udccp_conn_info ci;
  udccp_listener_stats lst;
  udccp_endpoint_stats est;
  udccp_mempool_stats mst;
  udccp_mp_info mi;
  udccp_settings st;
  udccp_event ev[2];
  udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
  udccp_send_opts sopts = UDCCP_SEND_OPTS_INIT;
  udccp_listener_settings ls;
  udccp_endpoint_config cfg;
  udccp_csprng rng;
  static const uint8_t seed[16];
  memset(buf, 0, sizeof(buf));
  memset(&ls, 0, sizeof(ls));
  udccp_endpoint_config_default(&cfg);
  (void)cp;
  (void)p8;
  switch (line) {
    /* --- errors, names, service codes */
    EXPECT(udccp_strerror(12345) != NULL, 1)
    EXPECT(udccp_reset_code_str(-7) != NULL, 1)
    EXPECT(udccp_state_str(99) != NULL, 1)
    EXPECT(udccp_io_strerror(-99999) != NULL, 1)
    EXPECT(udccp_service_code_parse(NULL, &u32), ERR)
    EXPECT(udccp_service_code_parse("CHAT", NULL), ERR)
    EXPECT(udccp_service_code_format(1, NULL, 4)[0], 0)
    EXPECT(udccp_service_code_parse("", &u32), ERR)
    EXPECT(udccp_service_code_parse("ABCDE", &u32), ERR)
    EXPECT(udccp_service_code_parse("4294967295", &u32), ERR)
    EXPECT(udccp_service_code_parse("4294967296", &u32), ERR)
    EXPECT(udccp_service_code_parse("A\x01", &u32), ERR)
    EXPECT(udccp_service_code_format(1, (char *)buf, 0)[0], 0)
    /* --- settings, memory, randomness */
    SURVIVES(udccp_settings_default(NULL))
    EXPECT(udccp_settings_check(NULL), ERR)
    EXPECT((st = g_set, st.send_cscov = 16, udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.seq_window = 31, udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.seq_window = 1ULL << 46, udccp_settings_check(&st)),
           ERR)
    EXPECT((st = g_set, st.tx_qlen = 0, udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.cksum_mode = 2, udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.qpolicy = 2, udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.pmtu = st.hdr_overhead + 127,
            udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.pmtu = UDCCP_PMTU_MAX + 1,
            udccp_settings_check(&st)), ERR)
    EXPECT((st = g_set, st.keepalive_probes = 256, udccp_settings_check(&st)),
           ERR)
    EXPECT((st = g_set, st.multipath = 2, udccp_settings_check(&st)), ERR)
    EXPECT(udccp_mempool_new(NULL, NULL, 0), ERR)
    SURVIVES(udccp_mempool_del(NULL))
    EXPECT_PTR(udccp_mempool_mem(NULL), NULL)
    SURVIVES(udccp_mempool_trim(NULL))
    ZEROES(udccp_mempool_get_stats(NULL, &mst), mst)
    SURVIVES(udccp_mempool_get_stats(g_pool, NULL))
    SURVIVES(udccp_csprng_seed(NULL, seed))
    SURVIVES(udccp_csprng_seed(&rng, NULL))
    SURVIVES(udccp_csprng_fill(NULL, 0, &rng))
    SURVIVES(udccp_csprng_fill(buf, 16, NULL))
    /* a settings with the library's CSPRNG but no generator */
    EXPECT((st = g_set, st.rand = udccp_csprng_fill, st.rand_user_data = NULL,
            udccp_settings_check(&st)), ERR)
    /* --- packets */
    EXPECT(udccp_pkt_peek_hdr(NULL, buf, 16), ERR)
    EXPECT(udccp_pkt_peek_hdr(&pk, NULL, 16), ERR)
    EXPECT(udccp_pkt_peek_hdr(&pk, NULL, 0), UDCCP_ERR_PROTO)
    EXPECT(udccp_pkt_verify_cksum(NULL, 16, &g_path), ERR)
    EXPECT(udccp_pkt_verify_cksum(buf, 16, NULL), ERR)
    EXPECT(udccp_pkt_write_reset_reply(NULL, 64, buf, 16, &g_path, 0, 3),
           UDCCP_ERR_NOBUF)
    EXPECT(udccp_pkt_write_reset_reply(buf, 64, NULL, 16, &g_path, 0, 3), ERR)
    EXPECT(udccp_pkt_write_reset_reply(buf, 64, buf + 100, 16, NULL, 0, 3),
           ERR)
    /* --- connections */
    EXPECT(udccp_conn_client_new(NULL, &g_set, &g_path, 42, 0), ERR)
    EXPECT(udccp_conn_client_new(&conn, NULL, &g_path, 42, 0), ERR)
    EXPECT(udccp_conn_client_new(&conn, &g_set, NULL, 42, 0), ERR)
    EXPECT(udccp_conn_client_new(&conn, &g_set, &g_path,
                                 UDCCP_SERVICE_CODE_INVALID, 0), ERR)
    EXPECT((st = g_set, st.ccid = 7,
            udccp_conn_client_new(&conn, &st, &g_path, 42, 0)), ERR)
    EXPECT((st = g_set, st.rand = NULL,
            udccp_conn_client_new(&conn, &st, &g_path, 42, 0)), ERR)
    EXPECT(udccp_conn_listen_new(NULL, &g_set, &g_path, 42, 0), ERR)
    EXPECT(udccp_conn_listen_new(&conn, NULL, &g_path, 42, 0), ERR)
    EXPECT(udccp_conn_listen_new(&conn, &g_set, NULL, 42, 0), ERR)
    SURVIVES(udccp_conn_del(NULL))
    EXPECT(udccp_conn_read_pkt(NULL, buf, 16, 0, 0), ERR)
    EXPECT(udccp_conn_read_pkt(g_conn, NULL, 16, 0, 0), ERR)
    EXPECT(udccp_conn_write_pkt(NULL, buf, sizeof(buf), NULL, 0), ERR)
    EXPECT(udccp_conn_write_pkt(g_conn, NULL, sizeof(buf), NULL, 0),
           UDCCP_ERR_NOBUF)
    EXPECT(udccp_conn_write_pkt_sg(NULL, buf, sizeof(buf), &cp, &sz, &ecn, 0),
           ERR)
    EXPECT(udccp_conn_write_pkt_sg(g_conn, buf, sizeof(buf), NULL, &sz, &ecn,
                                   0), ERR)
    EXPECT(udccp_conn_write_pkt_sg(g_conn, buf, sizeof(buf), &cp, NULL, &ecn,
                                   0), ERR)
    EXPECT(udccp_conn_write_pkt_sg(g_conn, buf, sizeof(buf), &cp, &sz, NULL,
                                   0), ERR)
    EXPECT(udccp_conn_get_expiry(NULL), UDCCP_TSTAMP_NEVER)
    EXPECT(udccp_conn_handle_expiry(NULL, 0), ERR)
    EXPECT(udccp_conn_queue_datagram(NULL, buf, 1, 0, 0), ERR)
    EXPECT(udccp_conn_queue_datagram_until(NULL, buf, 1, 0, 5, 0), ERR)
    EXPECT(udccp_conn_get_send_space(NULL), 0)
    EXPECT(udccp_conn_reserve_datagram(NULL, 1, 0, UDCCP_TSTAMP_NEVER, &p8, 0),
           ERR)
    EXPECT(udccp_conn_commit_datagram(NULL, 1, 0), ERR)
    EXPECT(udccp_conn_read_datagram(NULL, buf, sizeof(buf)), ERR)
    EXPECT(udccp_conn_peek_datagram_len(NULL), ERR)
    EXPECT(udccp_conn_read_datagram_ex(NULL, buf, sizeof(buf), &ri), ERR)
    EXPECT(udccp_conn_peek_datagram(NULL, &cp, &ri), ERR)
    EXPECT((ri.size = 4, udccp_conn_read_datagram_ex(g_conn, buf, 16, &ri)),
           ERR)
    EXPECT((ri.size = 4, udccp_conn_peek_datagram(g_conn, &cp, &ri)), ERR)
    EXPECT(udccp_conn_peek_datagram(g_conn, NULL, NULL), ERR)
    EXPECT(udccp_conn_read_datagram(g_conn, NULL, 16), ERR)
    EXPECT(udccp_conn_queue_datagram(g_conn, NULL, 16, 0, 0), ERR)
    EXPECT(udccp_conn_reserve_datagram(g_conn, 16, 0, UDCCP_TSTAMP_NEVER, NULL,
                                       0), ERR)
    EXPECT(udccp_conn_queue_datagram(g_conn, buf, 1500, 0, 0),
           UDCCP_ERR_MSGSIZE)
    EXPECT(udccp_conn_queue_datagram_until(g_conn, buf, 1, 0, 5, 5),
           UDCCP_ERR_DROPPED)
    EXPECT(udccp_conn_commit_datagram(g_conn, 1, 0), UDCCP_ERR_INVALID_STATE)
    /* REQUEST takes datagrams (they leave once OPEN); a closed one not */
    EXPECT(udccp_conn_queue_datagram(g_conn, buf, 16, 0, 0), 0)
    EXPECT((udccp_conn_close(g_conn, 0),
            udccp_conn_queue_datagram(g_conn, buf, 16, 0, 0)),
           UDCCP_ERR_CLOSED)
    EXPECT(udccp_conn_write_pkt(g_conn, buf, 100, NULL, 0), UDCCP_ERR_NOBUF)
    EXPECT(udccp_conn_consume_datagram(NULL), ERR)
    EXPECT(udccp_conn_close(NULL, 0), ERR)
    EXPECT(udccp_conn_set_server_timewait(NULL, 1), ERR)
    EXPECT(udccp_conn_abort(NULL, UDCCP_RESET_ABORTED, 0), ERR)
    EXPECT(udccp_conn_get_state(NULL), ERR)
    EXPECT(udccp_conn_is_done(NULL), ERR)
    EXPECT(udccp_conn_get_error(NULL), ERR)
    EXPECT(udccp_conn_get_reset_code(NULL), ERR)
    EXPECT(udccp_conn_set_pmtu(NULL, 1500), ERR)
    EXPECT(udccp_conn_get_mps(NULL), 0)
    EXPECT_PTR(udccp_conn_get_path(NULL), NULL)
    ZEROES(udccp_conn_get_info(NULL, &ci), ci)
    SURVIVES(udccp_conn_get_info(g_conn, NULL))
    /* --- listeners */
    EXPECT(udccp_listener_new(NULL, &g_set, &ls, 0), ERR)
    EXPECT(udccp_listener_new(&lis, NULL, &ls, 0), ERR)
    EXPECT(udccp_listener_new(&lis, &g_set, NULL, 0), ERR)
    EXPECT(udccp_listener_new(&lis, &g_set, &ls, 0), ERR) /* no codes */
    EXPECT((ls.service_codes = &u32, ls.n_service_codes = 1025,
            udccp_listener_new(&lis, &g_set, &ls, 0)), ERR)
    EXPECT((u32 = UDCCP_SERVICE_CODE_INVALID, ls.service_codes = &u32,
            ls.n_service_codes = 1, udccp_listener_new(&lis, &g_set, &ls, 0)),
           ERR)
    EXPECT((u32 = 42, ls.service_codes = &u32, ls.n_service_codes = 1,
            ls.init_cookie = 3, udccp_listener_new(&lis, &g_set, &ls, 0)), ERR)
    SURVIVES(udccp_listener_del(NULL))
    EXPECT(udccp_listener_read_pkt(NULL, &g_path, buf, 16, 0, &conn, buf + 64,
                                   512), ERR)
    EXPECT(udccp_listener_read_pkt(g_lis, NULL, buf, 16, 0, &conn, buf + 64,
                                   512), ERR)
    EXPECT(udccp_listener_read_pkt(g_lis, &g_path, NULL, 16, 0, &conn,
                                   buf + 64, 512), ERR)
    EXPECT(udccp_listener_read_pkt(g_lis, &g_path, buf, 16, 0, NULL, buf + 64,
                                   512), ERR)
    EXPECT(udccp_listener_read_pkt(g_lis, &g_path, buf, 16, 0, &conn, NULL,
                                   512), ERR)
    SURVIVES(udccp_listener_conn_update(NULL, g_conn))
    SURVIVES(udccp_listener_conn_update(g_lis, NULL))
    SURVIVES(udccp_listener_conn_accepted(NULL, g_conn))
    SURVIVES(udccp_listener_conn_accepted(g_lis, NULL))
    SURVIVES(udccp_listener_conn_gone(NULL, g_conn))
    SURVIVES(udccp_listener_conn_gone(g_lis, NULL))
    SURVIVES(udccp_listener_set_backlog(NULL, 4))
    ZEROES(udccp_listener_get_stats(NULL, &lst), lst)
    SURVIVES(udccp_listener_get_stats(g_lis, NULL))
    /* --- endpoints */
    SURVIVES(udccp_endpoint_config_default(NULL))
    EXPECT(udccp_endpoint_new(NULL, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0), ERR)
    EXPECT(udccp_endpoint_new(&ep, 7, "127.0.0.1", 0), ERR)
    EXPECT(udccp_endpoint_new_config(NULL, &cfg), ERR)
    EXPECT(udccp_endpoint_new_config(&ep, NULL), ERR)
    EXPECT(udccp_endpoint_new_workers(NULL, 2, &cfg), ERR)
    EXPECT(udccp_endpoint_new_workers(eps, 2, NULL), ERR)
    EXPECT(udccp_endpoint_new_workers(eps, 0, &cfg), ERR)
    EXPECT(udccp_endpoint_new_workers(eps, 65, &cfg), ERR)
    EXPECT((cfg.transport = UDCCP_TRANSPORT_RAW,
            udccp_endpoint_new_workers(eps, 2, &cfg)), ERR)
    EXPECT((cfg.transport = 9, udccp_endpoint_new_config(&ep, &cfg)), ERR)
    EXPECT(udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "not-an-address", 0),
           UDCCP_ERR_RESOLVE)
    EXPECT((st = g_set, st.tx_qlen = 0, udccp_endpoint_set_settings(g_ep, &st)),
           ERR)
    EXPECT(udccp_endpoint_set_tos(g_ep, -1), ERR)
    EXPECT(udccp_endpoint_bind_device(g_ep, ""), ERR)
    SURVIVES(udccp_endpoint_del(NULL))
    EXPECT(udccp_endpoint_local_port(NULL), 0)
    ZEROES(udccp_endpoint_get_settings(NULL, &st), st)
    SURVIVES(udccp_endpoint_get_settings(g_ep, NULL))
    EXPECT(udccp_endpoint_set_settings(NULL, &g_set), ERR)
    EXPECT(udccp_endpoint_set_settings(g_ep, NULL), ERR)
    SURVIVES(udccp_endpoint_forget_after_fork(NULL))
    EXPECT(udccp_endpoint_unused_port(NULL), 0)
    EXPECT(udccp_endpoint_fd(NULL), ERR)
    EXPECT(udccp_endpoint_timeout_ms(NULL), ERR)
    EXPECT(udccp_endpoint_process(NULL), ERR)
    EXPECT(udccp_endpoint_run(NULL, 0), ERR)
    EXPECT(udccp_endpoint_events(NULL, ev, 2, 0), ERR)
    EXPECT(udccp_endpoint_events(g_ep, NULL, 2, 0), ERR)
    EXPECT(udccp_endpoint_events(g_ep, ev, 0, 0), ERR)
    ZEROES(udccp_endpoint_get_stats(NULL, &est), est)
    SURVIVES(udccp_endpoint_get_stats(g_ep, NULL))
    SURVIVES(udccp_endpoint_set_pcap(NULL, NULL))
    EXPECT(udccp_endpoint_set_tos(NULL, 0), ERR)
    EXPECT(udccp_endpoint_set_tos(g_ep, 256), ERR)
    EXPECT(udccp_endpoint_bind_device(NULL, "lo"), ERR)
    EXPECT(udccp_endpoint_bind_device(g_ep, NULL), ERR)
    /* --- sockets */
    EXPECT(udccp_connect(NULL, &sock, "127.0.0.1", 5001, 42, 0, 0), ERR)
    EXPECT(udccp_connect(g_ep, NULL, "127.0.0.1", 5001, 42, 0, 0), ERR)
    EXPECT(udccp_connect(g_ep, &sock, NULL, 5001, 42, 0, 0), ERR)
    EXPECT(udccp_connect(g_ep, &sock, "127.0.0.1", 0, 42, 0, 0), ERR)
    EXPECT(udccp_connect(g_ep, &sock, "127.0.0.1", 5001,
                         UDCCP_SERVICE_CODE_INVALID, 0, 0), ERR)
    EXPECT(udccp_connect(g_ep, &sock, "127.0.0.1", 5001, 42, 7, 0), ERR)
    EXPECT(udccp_listen(g_ep, 0, &u32, 1), ERR)
    EXPECT((u32 = UDCCP_SERVICE_CODE_INVALID, udccp_listen(g_ep, 5001, &u32, 1)),
           ERR)
    EXPECT(udccp_unlisten(g_ep, 5001), UDCCP_ERR_INVALID_STATE)
    EXPECT(udccp_listen_set_backlog(g_ep, 5001, 4), UDCCP_ERR_INVALID_STATE)
    EXPECT(udccp_accept(g_ep, &sock, 0), UDCCP_ERR_INVALID_STATE)
    EXPECT(udccp_listen(NULL, 5001, &u32, 1), ERR)
    EXPECT(udccp_listen(g_ep, 5001, NULL, 1), ERR)
    EXPECT(udccp_listen(g_ep, 5001, &u32, 0), ERR)
    EXPECT(udccp_unlisten(NULL, 5001), ERR)
    EXPECT(udccp_listen_set_backlog(NULL, 5001, 4), ERR)
    EXPECT(udccp_accept(NULL, &sock, 0), ERR)
    EXPECT(udccp_accept(g_ep, NULL, 0), ERR)
    EXPECT(udccp_send_ex(NULL, buf, 1, NULL, 0), ERR)
    EXPECT(udccp_send_ex(g_sock, NULL, 1, NULL, 0), ERR)
    EXPECT((sopts.size = 4, udccp_send_ex(g_sock, buf, 1, &sopts, 0)), ERR)
    EXPECT((sopts.flags = 0x80, udccp_send_ex(g_sock, buf, 1, &sopts, 0)), ERR)
    EXPECT((ri.size = 4, udccp_recv_ex(g_sock, buf, 16, &ri, 0)), ERR)
    EXPECT((ri.size = 4, udccp_recv_peek(g_sock, &cp, &ri, 0)), ERR)
    EXPECT(udccp_send(g_sock, big, sizeof(big), 0), UDCCP_ERR_MSGSIZE)
    EXPECT(udccp_send(NULL, buf, 1, 0), ERR)
    EXPECT(udccp_send(g_sock, NULL, 1, 0), ERR)
    EXPECT(udccp_send_more(NULL, buf, 1, 0), ERR)
    EXPECT(udccp_send_more(g_sock, NULL, 1, 0), ERR)
    EXPECT(udccp_recv(NULL, buf, sizeof(buf), 0), ERR)
    EXPECT(udccp_recv(g_sock, NULL, 16, 0), ERR)
    EXPECT(udccp_recv_ex(NULL, buf, sizeof(buf), &ri, 0), ERR)
    EXPECT(udccp_sock_peek_len(NULL), ERR)
    EXPECT(udccp_recv_peek(NULL, &cp, &ri, 0), ERR)
    EXPECT(udccp_recv_peek(g_sock, NULL, &ri, 0), ERR)
    EXPECT(udccp_recv_consume(NULL), ERR)
    EXPECT(udccp_shutdown(NULL), ERR)
    EXPECT(udccp_close(NULL, 0), 0)
    SURVIVES(udccp_abort(NULL))
    SURVIVES(udccp_abort_code(NULL, 2))
    EXPECT(udccp_sock_state(NULL), ERR)
    EXPECT(udccp_sock_error(NULL), ERR)
    EXPECT(udccp_sock_reset_code(NULL), ERR)
    EXPECT(udccp_sock_get_mps(NULL), 0)
    EXPECT_PTR(udccp_sock_get_path(NULL), NULL)
    ZEROES(udccp_sock_get_info(NULL, &ci), ci)
    SURVIVES(udccp_sock_get_info(g_sock, NULL))
    EXPECT_PTR(udccp_sock_get_conn(NULL), NULL)
    SURVIVES(udccp_sock_set_user(NULL, buf))
    EXPECT_PTR(udccp_sock_get_user(NULL), NULL)
    /* --- capture */
    EXPECT(udccp_pcap_open(NULL, "/dev/null"), ERR)
    EXPECT(udccp_pcap_open(&pc, NULL), ERR)
    EXPECT(udccp_pcap_frames(NULL), 0)
    EXPECT(udccp_pcap_close(NULL), 0)
    /* --- multipath */
    EXPECT(udccp_mpsock_connect(NULL, &mp, "127.0.0.1", 5001, 42, 0, NULL, 0,
                                0), ERR)
    EXPECT(udccp_mpsock_connect(g_ep, NULL, "127.0.0.1", 5001, 42, 0, NULL, 0,
                                0), ERR)
    EXPECT(udccp_mpsock_connect(g_ep, &mp, NULL, 5001, 42, 0, NULL, 0, 0),
           ERR)
    EXPECT(udccp_mpsock_connect(g_ep, &mp, "127.0.0.1", 5001, 42, 0, NULL, 1,
                                0), ERR)
    EXPECT(udccp_mpsock_accept(NULL, &mp, 0), ERR)
    EXPECT(udccp_mpsock_accept(g_ep, NULL, 0), ERR)
    EXPECT(udccp_mpsock_send(NULL, buf, 1, 0), ERR)
    EXPECT(udccp_mpsock_recv(NULL, buf, sizeof(buf), 0), ERR)
    EXPECT(udccp_mpsock_set_sched(NULL, 0), ERR)
    EXPECT(udccp_mpsock_set_prio(NULL, 0, 3), ERR)
    EXPECT(udccp_mpsock_get_info(NULL, &mi), ERR)
    EXPECT(udccp_mpsock_announce(NULL, "127.0.0.1", 0), ERR)
    EXPECT(udccp_mpsock_unannounce(NULL, 0), ERR)
    EXPECT_PTR(udccp_mpsock_subflow(NULL, 0), NULL)
    EXPECT(udccp_mpsock_close(NULL, 0), 0)
    SURVIVES(udccp_mpsock_abort(NULL))
    /* --- the CCID interface */
    EXPECT(udccp_ccid_register(NULL), ERR)
    EXPECT(udccp_ccid_register_as(NULL, 250, 0), ERR)
    EXPECT(udccp_ccid_unregister(0), ERR)
    EXPECT_PTR(udccp_ccid_lookup(0), NULL)
    EXPECT(udccp_ccid_parse(NULL), ERR)
    EXPECT(udccp_ccid_parse(""), ERR)
    EXPECT(udccp_ccid_parse("1"), ERR)
    EXPECT(udccp_ccid_parse("256"), ERR)
    EXPECT(udccp_ccid_parse("ccid"), ERR)
    EXPECT(udccp_ccid_parse("2x"), ERR)
    EXPECT(udccp_ccid_unregister(2), ERR)
    EXPECT(udccp_ccid_unregister(200), ERR)
    EXPECT(udccp_ccid_register_as(udccp_ccid_cubic(), 3, 0), ERR)
    EXPECT(udccp_ccid_register_as(udccp_ccid_cubic(), 100, 0), ERR)
    EXPECT(udccp_ccid_opt_put(NULL, 200, 0, buf, 1), ERR)
    EXPECT(udccp_ccid_pkt_n_opts(NULL), 0)
    EXPECT(udccp_ccid_pkt_opt(NULL, 0, buf, &cp, &sz, NULL), ERR)
    EXPECT(udccp_ccid_pkt_ackvec(NULL, cb_stop, NULL), ERR)
    EXPECT(udccp_ccid_pkt_elapsed(NULL), 0)
  default:
    break;
  }
  (void)conn;
  (void)lis;
  (void)ep;
  (void)eps;
  (void)sock;
  (void)mp;
  (void)pc;
  (void)pool;
  (void)ecn;
  (void)pk;
  (void)mst;
  (void)rng;
  (void)sopts;
  return -1;
}

static void test_every_call_rejects_bad_arguments(void **state) {
  int cases = 0, failed = 0;
  (void)state;
  make_objects();
  for (int line = 1; line < 1000; ++line) {
    if (run_case(line, 1) != 0) {
      continue;
    }
    cases++;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      _exit(run_case(line, 0) == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failed++;
      fprintf(stderr, "FAIL: case at tests/test_api_args.c:%d (%s %d)\n", line,
              WIFSIGNALED(status) ? "signal" : "exit",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  }
  printf("%d calls with bad arguments, %d failed\n", cases, failed);
  free_objects();
  assert_true(cases > 150);
  assert_int_equal(failed, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_call_rejects_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
