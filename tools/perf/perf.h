/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf internals (tools/perf/): an iperf3-like throughput test over
 * udccp.  One test is one or more streams; a stream is one DCCP connection
 * (Service Code "PERF") carrying data one way and a few control datagrams
 * both ways (DCCP is unreliable: each control datagram is repeated until
 * answered).  Every end runs all its streams from one event loop.
 *
 *   client -> server   HELLO    test id, stream index/count, direction,
 *                               length, time, rate, interval, limits
 *   server -> client   HELLO_ACK
 *   sender -> receiver DATA     sequence number, send time, padding
 *   receiver -> sender REPORT   every interval: counts, gaps, jitter
 *   sender -> receiver STAT     answers REPORT: sent counts, cwnd/X, RTT
 *   sender -> receiver END      final sent counts, duration, CCID losses
 *   receiver -> sender RESULT   answers every END: final received counts
 *   client -> server   SRVREQ   --get-server-output: text from OFFSET
 *   server -> client   SRVOUT   a piece of the server's text
 *   server -> client   ERROR    why the server ends the test (text)
 *   client -> server   ERROR    why the client gives up after connecting
 *                               (text; before or instead of the HELLO)
 *
 * All integers on the wire are big-endian; fields start at offset 8.
 */
#ifndef UDCCP_PERF_H
#define UDCCP_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <udccp/udccp.h>

#define PERF_SERVICE 0x50455246u /* "PERF" */
#define PERF_MAGIC 0x55445046u   /* "UDPF" */
#define PERF_DEFAULT_PORT 5201
#define PERF_MAX_STREAMS 128 /* -P; --bidir doubles the connections */
#define PERF_IDLE_S 10       /* default: a peer silent this long is gone */
#define PERF_MIN_LEN 24      /* DATA header: type, sequence, send time */
/* Default -l: the MPS, but no more than a 1500-byte path's over IPv4
 * (1500 - 20 - 8 - 24 - 40), so that loopback, whose route MTU makes the
 * MPS ~65 KB, measures the datagrams a network would carry. */
#define PERF_DEFAULT_LEN 1408
/* Not UDCCP_ERR_* codes: why a stream ended. */
#define PERF_ERR_STOPPED (-1000)     /* SIGINT/SIGTERM */
#define PERF_ERR_NO_HELLO_ACK (-1001) /* connected, HELLO unanswered */
#define PERF_ERR_NO_HELLO (-1002)    /* server: no HELLO in --rcv-timeout */
#define PERF_ERR_LIMIT (-1003)       /* server: --server-bitrate-limit */
#define PERF_ERR_SERVER (-1004)      /* client: the server's ERROR */
#define PERF_ERR_CLIENT (-1005)      /* server: the client's ERROR */
#define PERF_ERR_NO_TEST (-1006)     /* server: closed before the HELLO */

enum { M_HELLO = 1, M_HELLO_ACK, M_DATA, M_REPORT, M_END, M_RESULT, M_STAT,
       M_SRVREQ, M_SRVOUT, M_ERROR };
/* DATA, REPORT, STAT: byte 5 of the header is 1 while the sending end is
 * in the --omit period (its counts are left out of the statistics). */
#define PERF_OMIT_BYTE 5
/* DATA: byte 6 is 1 when the send time is CLOCK_REALTIME (nanoseconds
 * since the epoch, perf_now_real), so that the receiver can take one-way
 * delays; 0 (older senders, the interop guest): seconds since the
 * sender's start, good for jitter only. */
#define PERF_CLOCK_BYTE 6

/* HELLO flags */
#define PERF_F_REVERSE 1u /* on this stream the server sends */
#define PERF_F_SRVOUT 2u  /* the client wants the server's text */
#define PERF_F_REPEAT 4u  /* --repeating-payload: "0123456789..." */
/* END flags */
#define PERF_F_INTERRUPTED 1u /* the sender was stopped by a signal */

typedef struct perf_opts {
  int server, once, raw, reverse, bidir, json, no_offload, verbose;
  int get_server_output;
  int threads;  /* server: worker threads on the one port (--threads) */
  int nstreams; /* -P: parallel streams per direction (1..128) */
  int family;   /* 0, 4 or 6 */
  const char *host, *bind, *logfile;
  uint16_t port, udp_port, cport;
  uint64_t duration_ns, interval_ns; /* interval 0: no interval lines */
  uint64_t limit_bytes, limit_pkts;  /* -n/-k: 0 = by time */
  uint8_t ccid;
  uint64_t length; /* 0: the MPS */
  uint64_t rate_bps;
  const char *keepalive;       /* --keepalive, checked; NULL: the default */
  uint8_t cookies;             /* server: enum udccp_init_cookie */
  uint32_t half_open, backlog; /* server: 0 = the library's default */
  int sockbuf;                 /* -w: SO_RCVBUF/SO_SNDBUF bytes, 0: default */
  char format;                 /* -f: k m g (bits) K M G (bytes); 0: m */
  const char *title;           /* -T: prefix of every line */
  const char *timestamps;      /* --timestamps: strftime format, or NULL */
  const char *pidfile;         /* -I */
  int daemon;                  /* -D */
  int connect_timeout_ms;      /* --connect-timeout: default 5000 */
  int rcv_timeout_ms;          /* --rcv-timeout: silence ends a stream */
  int idle_timeout_s;          /* --idle-timeout: server exits when idle */
  int json_stream;             /* --json-stream: a JSON line per event */
  const char *extra_data;      /* --extra-data: copied into the JSON */
  const char *pcap;            /* --pcap FILE: capture of every packet */
  uint64_t omit_ns;            /* -O: left out of the statistics */
  int tos;                     /* -S: IP TOS / traffic class, -1: unset */
  int cpu;                     /* -A: CPU to run on, -1: any */
  const char *bind_dev;        /* --bind-dev: network interface */
  int repeating_payload;       /* --repeating-payload */
  uint64_t srv_limit_bps;      /* server: --server-bitrate-limit, 0: none */
  int srv_limit_secs;          /* ... averaged over this many seconds */
  int multipath;               /* --multipath (mp.c) */
  const char *mp_local;        /* client: its local addresses, a,b,... */
  int mp_sched;                /* --mp-sched: enum udccp_mp_sched */
} perf_opts;

/* One-way delays of the received DATA (owd.c): min, p50, p95, p99, max */
#define PERF_OWD_N 5
typedef struct perf_owd {
  float *s;               /* the reservoir: microseconds after base */
  uint32_t len, cap;
  uint64_t n;             /* delays seen */
  uint64_t rng;
  double base, min, max;  /* seconds */
  uint64_t summed_n;      /* n when summary[] was made (0: never) */
  double summary[PERF_OWD_N];
} perf_owd;
void perf_owd_reset(perf_owd *o);
void perf_owd_add(perf_owd *o, double delay_s);
/* Fills ms[] (min, p50, p95, p99, max in milliseconds) and returns 1, or
 * returns 0 when no delay was seen.  Sorts the reservoir only when a
 * delay came since the last call (a RESULT is sent again until the
 * sender confirms it). */
int perf_owd_summary(perf_owd *o, double ms[PERF_OWD_N]);

/* One interval line (RFC 3550 jitter; loss from sequence gaps). */
typedef struct perf_iv {
  double t0, t1;
  uint64_t bytes, pkts, lost;     /* received (the receiver's counts) */
  uint64_t sent_bytes, sent_pkts; /* sent (the sender's counts) */
  double jitter_ms, rtt_ms, x_bps;
  uint64_t cwnd;
  uint8_t ccid;
  uint8_t omitted; /* of the --omit period (printed, never kept) */
} perf_iv;

/* A stream's final figures. */
typedef struct perf_final {
  uint8_t ccid;
  uint64_t sent_pkts, sent_bytes, recv_pkts, recv_bytes;
  uint64_t lost;      /* confirmed losses only */
  uint64_t ccid_lost; /* what the sender's CCID declared lost */
  double duration_s, rtt_ms, jitter_ms;
  double owd_ms[PERF_OWD_N]; /* one-way delay min/p50/p95/p99/max */
  int owd_set;               /* owd_ms filled (receiver, or RESULT had it) */
  int complete;    /* both ends' final counts known */
  int interrupted; /* stopped by a signal */
  int set;         /* filled */
} perf_final;

enum { P_HELLO, P_RUN, P_END, P_LINGER, P_SRVOUT, P_WAITCLOSE, P_DONE };

typedef struct perf_stream {
  udccp_sock *s;
  int id;             /* 1.. as printed ("[ 1]") */
  int sender, client; /* this end sends DATA; this end is the client */
  int phase, tries;
  int err; /* 0, or why the stream ended early */
  int summarized;
  char peer[80];
  /* parameters: the options (client) or the HELLO (server) */
  uint64_t test_id;
  int index, nstreams, want_srvout; /* nstreams: connections in the test */
  uint64_t duration_ns, length, rate_bps, interval_ns;
  uint64_t limit_bytes, limit_pkts;
  uint64_t omit_ns;   /* -O (from the HELLO at the server) */
  int omitting;       /* in the omit period: counts are thrown away */
  int repeat;         /* --repeating-payload */
  uint64_t wire_bytes; /* data bytes sent or received, never reset */
  char srv_err[160];   /* the peer's ERROR text */
  double t_start, t_stop, t_phase, t_next_send, t_next_report, t_next_poll;
  double t_retry, t_last_rx, t_first_rx, t_last_data;
  /* sender */
  uint8_t *data;
  uint64_t seq, sent_bytes;
  /* receiver */
  uint64_t pkts, bytes, max_seq_plus1, ooo;
  double jitter_s, last_transit;
  int have_transit;
  perf_owd owd;
  /* the peer's latest figures: REPORT/RESULT (from a receiver) */
  uint64_t r_pkts, r_bytes, r_lost;
  double r_jitter_ms;
  double r_owd_ms[PERF_OWD_N]; /* RESULT's one-way delays, if r_owd_set */
  int r_owd_set;
  int got_result, stat_pending; /* stat_pending: a STAT to send */
  /* STAT/END (from a sender) */
  uint64_t s_pkts, s_bytes, s_cwnd, s_x, s_srtt, s_ccid_lost, s_dur_ns;
  uint8_t s_ccid, s_flags;
  int got_stat, got_end;
  /* the previous interval's marks */
  double prev_t;
  uint64_t prev_bytes, prev_pkts, prev_lost, prev_sent_pkts, prev_sent_bytes;
  perf_iv *iv;
  size_t niv, capiv, ivshown; /* ivshown: lines printed */
  perf_final fin;
  /* server: its text for --get-server-output; client: what it received */
  char *out;
  size_t outlen, outcap;
  int out_ready, out_done;
  struct perf_test *test; /* the test it belongs to, once known */
  /* receive time of what drain() hands over: the clocks are read once
   * per PERF_CLOCK_EVERY datagrams, not for each (clock_gettime was 13 %
   * of a receiver's CPU at 10 Gbit/s in a VM) */
  double rx_now, rx_now_real;
} perf_stream;

/* A test: the streams of one client run. */
typedef struct perf_test {
  uint64_t id;
  int nstreams; /* expected */
  perf_stream *st[2 * PERF_MAX_STREAMS];
  int n;
  size_t emitted; /* interval lines printed */
  double t_last;
  const perf_opts *o;
  int is_client, json_shown;
  /* server: --server-bitrate-limit, the test's data bytes each second */
  uint64_t *lim_ring;
  int lim_n;
  double lim_next;
} perf_test;

/* wire.c */
void perf_put32(uint8_t *p, uint32_t v);
void perf_put64(uint8_t *p, uint64_t v);
uint32_t perf_get32(const uint8_t *p);
uint64_t perf_get64(const uint8_t *p);
size_t perf_msg_init(uint8_t *b, int type);
int perf_msg_type(const uint8_t *b, udccp_ssize n);
double perf_now(void);
/* CLOCK_REALTIME in seconds: the send times of DATA (one-way delays) */
double perf_now_real(void);

/* stream.c */
extern volatile int perf_sig; /* the signal that asked us to stop, or 0 */
/* What perf_sig says, for messages: "interrupted" (SIGINT), "output
 * closed" (SIGPIPE: the report's reader went away), "terminated". */
const char *perf_stop_reason(void);
/* -J writes nothing before the end of a test, so a reader of the report
 * that went away (| head) is not told by a failed write as the text
 * output's is: the pipe's write end polls POLLERR once no reader is left.
 * Sets perf_sig to SIGPIPE then, which stops the test as the text output's
 * EPIPE does (the peer told).  One poll(); called per interval and by the
 * client's loop. */
void perf_check_output(void);
perf_stream *perf_stream_new(udccp_sock *s, int id, int client);
void perf_stream_free(perf_stream *st);
/* Starts the stream's run (after the HELLO exchange). */
int perf_stream_start(perf_stream *st, double now);
/* Runs one step: reads what arrived, sends what is due.  Returns the
 * milliseconds this stream can wait for (0: it has more to send now). */
int perf_stream_step(perf_stream *st, udccp_endpoint *ep, uint8_t *buf,
                     size_t cap, double now);
/* A signal: a sender ends with END (flagged: counts confirmed losses
 * only), a receiver stops; hard: every stream stops at once. */
void perf_stream_interrupt(perf_stream *st, double now, int hard);
void perf_stream_say(perf_stream *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void perf_send_ctrl(udccp_sock *s, const uint8_t *b, size_t n);
/* Sends ERROR with text (server) and ends the stream with err. */
void perf_stream_fail(perf_stream *st, int err, const char *text);

/* report.c */
extern const perf_opts *perf_o;
extern udccp_pcap *perf_pcap; /* --pcap: every endpoint writes to it */
extern int perf_json_count; /* JSON objects printed */
void perf_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *perf_first_error(void);
void perf_report_end(const char *who, const perf_stream *st, int err);
void perf_test_emit_intervals(perf_test *t, int final);
void perf_stream_summary(perf_stream *st);
/* streams: print each stream's lines too (else only the [SUM]s) */
void perf_test_summary(perf_test *t, int streams);
/* Prints the stream's intervals not printed yet (before its summary). */
void perf_stream_flush_intervals(perf_stream *st);
/* "[ ID][TX-C] " when the test has several streams, else "". */
void perf_stream_prefix(char *p, size_t cap, const perf_stream *st);
void perf_test_json(perf_test *t, const udccp_endpoint_stats *es);
void perf_json_error_only(void);
const char *perf_mode_str(const perf_stream *st);
/* An interval of the --omit period: printed with "(omitted)", not kept. */
void perf_iv_omitted(perf_stream *st, const perf_iv *iv);

/* client.c, server.c */
int perf_run_client(const perf_opts *o);
int perf_run_server(const perf_opts *o);
/* mp.c: --multipath, one Multipath DCCP connection (RFC 9897) */
int perf_mp_client(const perf_opts *o);
int perf_mp_server(const perf_opts *o);
void perf_settings(udccp_settings *st, const char *keepalive);

#endif /* UDCCP_PERF_H */
