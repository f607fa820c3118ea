/* SPDX-License-Identifier: MIT */
/*
 * dccpt -- the guest side of udccp's kernel interop tests (make interop).
 *
 * A small static program written against the Linux kernel's own DCCP socket
 * API (<linux/dccp.h>, Linux <= 6.15).  It runs inside the QEMU guest, whose
 * 6.1 kernel still has DCCP, and plays the kernel's part in each scenario of
 * interop/scenarios.sh against udccp on the host.
 *
 *   dccpt info
 *   dccpt server [OPTIONS]         listen, accept one connection
 *   dccpt client HOST [OPTIONS]    connect (HOST: IPv4 or IPv6 literal)
 *
 * After the handshake one of three workloads runs:
 *   messages (default)  send --send N datagrams "kernel-msg-<i>", print every
 *                       datagram received ("RECV"), echo with --echo, stop
 *                       after --expect N datagrams or when the peer closes
 *   --perf              udccp-perf's own application protocol (HELLO,
 *                       DATA, REPORT, END, RESULT; see tools/udccp-perf.c), as
 *                       its server (dccpt server) or client (dccpt client),
 *                       so the host runs the unmodified udccp-perf
 *   --bulk-send SECS    send -l-byte datagrams as fast as the CCID allows
 *   --bulk-recv         count what arrives until the peer closes
 * and then the socket is closed as --close says:
 *   close  close() at once (a server sends CloseReq, a client Close)
 *   wait   wait for the peer to close first (recv() == 0), then close()
 *   abort  SO_LINGER 0 + close(): Reset "Aborted"
 * --abort-after SECS aborts in the middle of a bulk/perf transfer.
 * --rcvbuf BYTES sets SO_RCVBUF (SO_RCVBUFFORCE as root) on the socket.
 *
 * Output: one fact per line, "KEY k=v ...", for the host script to grep.
 * Every blocking step is bounded (poll timeouts, alarm()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/dccp.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOCK_DCCP
#define SOCK_DCCP 6
#endif
#ifndef IPPROTO_DCCP
#define IPPROTO_DCCP 33
#endif
#ifndef SOL_DCCP
#define SOL_DCCP 269
#endif

/* CCID 3's getsockopt structures (net/dccp/ccids/lib/tfrc.h: not uapi). */
struct t_tfrc_tx_info {
	uint64_t x;      /* allowed sending rate, bytes/s */
	uint64_t x_recv; /* receive rate reported by the peer, bytes/s */
	uint32_t x_calc; /* TCP throughput equation, bytes/s */
	uint32_t rtt;    /* microseconds */
	uint32_t p;      /* loss event rate, scaled by 1e6 */
	uint32_t rto;    /* microseconds */
	uint32_t ipi;    /* inter-packet interval, microseconds */
};
struct t_tfrc_rx_info {
	uint32_t x_recv; /* bytes/s */
	uint32_t rtt;    /* microseconds */
	uint32_t p;      /* scaled by 1e6 */
};

enum { CLOSE_NOW, CLOSE_WAIT, CLOSE_ABORT };

struct opts {
	int server, v6, port, ccid, nsend, expect, echo, perf, reverse;
	int close_mode, send_cscov, recv_cscov, server_timewait, bulk_recv;
	int rcvbuf; /* SO_RCVBUF(FORCE) bytes, 0: the kernel's default */
	double wait_s, bulk_send_s, abort_after_s, perf_time_s;
	uint32_t service;
	size_t length;
	const char *host;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *errname(int e)
{
	switch (e) {
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case ECONNABORTED: return "ECONNABORTED";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EPIPE: return "EPIPE";
	case ENOTCONN: return "ENOTCONN";
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ENETUNREACH: return "ENETUNREACH";
	case EMSGSIZE: return "EMSGSIZE";
	case EPROTO: return "EPROTO";
	case EINTR: return "EINTR";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBADRQC: return "EBADRQC"; /* Linux: Reset "Bad Service Code" */
	default: return "E?";
	}
}

static void on_alarm(int sig)
{
	static const char m[] = "TIMEOUT dccpt alarm fired, exiting\n";
	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0) { /* nothing to do */ }
	_exit(3);
}

static void fail(const char *what)
{
	printf("ERROR %s errno=%s (%s)\n", what, errname(errno), strerror(errno));
	exit(1);
}

/* ---------------------------------------------------------------- stats */

static int getopt_int(int fd, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);
	if (getsockopt(fd, SOL_DCCP, name, &v, &l) < 0)
		return -1;
	return v;
}

static void print_conn(int fd, const char *tag)
{
	printf("%s tx_ccid=%d rx_ccid=%d mps=%d\n", tag,
	       getopt_int(fd, DCCP_SOCKOPT_TX_CCID),
	       getopt_int(fd, DCCP_SOCKOPT_RX_CCID),
	       getopt_int(fd, DCCP_SOCKOPT_GET_CUR_MPS));
}

/* The kernel's own CCID state: CCID 3 answers DCCP_SOCKOPT_CCID_TX_INFO /
 * _RX_INFO; CCID 2 has no such option (ENOPROTOOPT), which is printed. */
static void print_kstats(int fd)
{
	struct t_tfrc_tx_info tx;
	struct t_tfrc_rx_info rx;
	socklen_t l = sizeof(tx);
	memset(&tx, 0, sizeof(tx));
	if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID_TX_INFO, &tx, &l) == 0)
		printf("KSTAT ccid_tx_info x=%llu x_recv=%llu x_calc=%u rtt_us=%u"
		       " p=%u rto_us=%u ipi_us=%u\n",
		       (unsigned long long)tx.x, (unsigned long long)tx.x_recv,
		       tx.x_calc, tx.rtt, tx.p, tx.rto, tx.ipi);
	else
		printf("KSTAT ccid_tx_info unavailable errno=%s\n", errname(errno));
	l = sizeof(rx);
	memset(&rx, 0, sizeof(rx));
	if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID_RX_INFO, &rx, &l) == 0)
		printf("KSTAT ccid_rx_info x_recv=%u rtt_us=%u p=%u\n", rx.x_recv,
		       rx.rtt, rx.p);
	else
		printf("KSTAT ccid_rx_info unavailable errno=%s\n", errname(errno));
}

/* ------------------------------------------------------------- sockets */

static int make_socket(const struct opts *o)
{
	int fd = socket(o->v6 ? AF_INET6 : AF_INET, SOCK_DCCP, IPPROTO_DCCP);
	if (fd < 0)
		fail("socket(SOCK_DCCP)");
	uint32_t sc = htonl(o->service); /* the kernel wants network order */
	if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, &sc, sizeof(sc)) < 0)
		fail("setsockopt(DCCP_SOCKOPT_SERVICE)");
	if (o->ccid) {
		uint8_t c = (uint8_t)o->ccid;
		if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, &c, 1) < 0)
			fail("setsockopt(DCCP_SOCKOPT_CCID)");
	}
	if (o->send_cscov >= 0 &&
	    setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SEND_CSCOV, &o->send_cscov,
		       sizeof(int)) < 0)
		fail("setsockopt(DCCP_SOCKOPT_SEND_CSCOV)");
	if (o->recv_cscov >= 0 &&
	    setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_RECV_CSCOV, &o->recv_cscov,
		       sizeof(int)) < 0)
		fail("setsockopt(DCCP_SOCKOPT_RECV_CSCOV)");
	/* An application's own receive buffer (accept() inherits it).  The
	 * default (~200 KB of skb truesize, a few hundred small packets) is
	 * what a slow 1-vCPU guest overflows during a burst. */
	if (o->rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &o->rcvbuf, sizeof(int)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(int)) < 0)
		fail("setsockopt(SO_RCVBUF)");
	return fd;
}

/* Packets the kernel dropped at this socket (receive buffer or backlog
 * full: they never reached DCCP, so its Ack Vector reports them lost). */
static unsigned long sock_drops(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mi);
	memset(mi, 0, sizeof(mi));
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &l) < 0 ||
	    l <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mi[SK_MEMINFO_DROPS];
}

static socklen_t make_addr(const struct opts *o, const char *host,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (o->v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)o->port);
		if (host && inet_pton(AF_INET6, host, &a->sin6_addr) != 1) {
			printf("ERROR bad IPv6 address %s\n", host);
			exit(2);
		}
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)o->port);
	if (host && inet_pton(AF_INET, host, &a->sin_addr) != 1) {
		printf("ERROR bad IPv4 address %s\n", host);
		exit(2);
	}
	return sizeof(*a);
}

static void print_peer(const struct sockaddr_storage *ss)
{
	char b[INET6_ADDRSTRLEN] = "?";
	int port = 0;
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, b, sizeof(b));
		port = ntohs(a->sin6_port);
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, b, sizeof(b));
		port = ntohs(a->sin_port);
	}
	printf("PEER addr=%s port=%d\n", b, port);
}

/* Sends one datagram, waiting up to timeout_ms for room: Linux's DCCP
 * returns EAGAIN when its tx queue (tx_qlen) is full, even when blocking. */
static int send_dgram(int fd, const void *b, size_t n, int timeout_ms,
		      unsigned long *eagain)
{
	double until = now_s() + timeout_ms / 1e3;
	for (;;) {
		ssize_t r = send(fd, b, n, MSG_DONTWAIT);
		if (r == (ssize_t)n)
			return 0;
		if (r < 0 && errno != EAGAIN && errno != ENOBUFS)
			return -errno;
		if (eagain)
			(*eagain)++;
		if (now_s() >= until)
			return -EAGAIN;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		(void)poll(&p, 1, 1);
	}
}

/* Waits up to timeout_ms for a datagram.  Returns its length, 0 when the
 * peer closed, -EAGAIN on timeout, or -errno. */
static ssize_t recv_dgram(int fd, void *b, size_t cap, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);
	if (r == 0)
		return -EAGAIN;
	if (r < 0)
		return -errno;
	ssize_t n = recv(fd, b, cap, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	return n;
}

/* After recv() == 0 the socket's pending error tells a Reset (ECONNRESET
 * for Aborted, ...) from a graceful Close (none). */
static void print_soerror(int fd)
{
	int e = 0;
	socklen_t l = sizeof(e);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) == 0)
		printf("SO_ERROR=%s\n", e ? errname(e) : "0");
}

static void do_abort(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		fail("setsockopt(SO_LINGER)");
	close(fd);
	printf("ABORTED (SO_LINGER 0 + close: Reset Aborted)\n");
}

/* ------------------------------------------------------ message workload */

static void print_text(const char *tag, const unsigned char *b, ssize_t n)
{
	printf("%s len=%zd data=\"", tag, n);
	for (ssize_t i = 0; i < n && i < 200; i++)
		putchar(b[i] >= 32 && b[i] < 127 && b[i] != '"' ? b[i] : '.');
	printf("\"\n");
}

/* Returns 1 if the peer closed (or the connection died), else 0. */
static int run_messages(int fd, const struct opts *o)
{
	unsigned char buf[65536];
	for (int i = 0; i < o->nsend; i++) {
		char m[64];
		int n = snprintf(m, sizeof(m), "kernel-msg-%d", i);
		int r = send_dgram(fd, m, (size_t)n, 3000, NULL);
		if (r < 0)
			printf("SEND-ERROR errno=%s\n", errname(-r));
		else
			printf("SENT len=%d data=\"%s\"\n", n, m);
	}
	int got = 0;
	double until = now_s() + o->wait_s;
	while (now_s() < until) {
		if (o->expect >= 0 && got >= o->expect && o->close_mode != CLOSE_WAIT)
			break;
		ssize_t n = recv_dgram(fd, buf, sizeof(buf), 100);
		if (n == -EAGAIN)
			continue;
		if (n == 0) {
			printf("PEER-CLOSED received=%d\n", got);
			print_soerror(fd);
			return 1;
		}
		if (n < 0) {
			printf("RECV-ERROR errno=%s received=%d\n", errname((int)-n), got);
			print_soerror(fd);
			return 1;
		}
		got++;
		print_text("RECV", buf, n);
		if (o->echo) {
			int r = send_dgram(fd, buf, (size_t)n, 3000, NULL);
			printf(r < 0 ? "ECHO-ERROR\n" : "ECHOED len=%zd\n", n);
		}
	}
	printf("MESSAGES received=%d%s\n", got,
	       o->expect >= 0 && got < o->expect ? " (fewer than expected)" : "");
	return 0;
}

/* --------------------------------------------------------- bulk workload */

/* Returns 1 if the connection is gone (aborted or died). */
static int run_bulk_send(int fd, const struct opts *o)
{
	unsigned char *b = calloc(1, o->length);
	if (b == NULL)
		fail("calloc");
	memset(b, 'k', o->length);
	unsigned long pkts = 0, eagain = 0;
	double t0 = now_s(), stop = t0 + o->bulk_send_s, t = t0;
	int gone = 0;
	while ((t = now_s()) < stop) {
		if (o->abort_after_s > 0 && t - t0 >= o->abort_after_s) {
			printf("BULK-TX pkts=%lu bytes=%lu before abort\n", pkts,
			       pkts * o->length);
			print_kstats(fd);
			do_abort(fd);
			free(b);
			return 1;
		}
		memcpy(b, &pkts, sizeof(pkts));
		int r = send_dgram(fd, b, o->length, 200, &eagain);
		if (r == -EAGAIN)
			continue;
		if (r < 0) {
			printf("SEND-ERROR errno=%s after pkts=%lu\n", errname(-r), pkts);
			/* ENOTCONN: the Reset was processed while send() had let go
			 * of the socket lock (dccp_sendmsg rechecks for CLOSED after
			 * allocating); its error is then still pending. */
			if (r == -ENOTCONN)
				print_soerror(fd);
			gone = 1;
			break;
		}
		pkts++;
	}
	double d = now_s() - t0;
	printf("BULK-TX pkts=%lu bytes=%lu secs=%.2f mbit=%.3f eagain=%lu\n", pkts,
	       pkts * o->length, d, pkts * o->length * 8 / d / 1e6, eagain);
	print_kstats(fd);
	free(b);
	return gone;
}

static int run_bulk_recv(int fd, const struct opts *o)
{
	static unsigned char b[65536];
	unsigned long pkts = 0, bytes = 0;
	double t0 = 0, t1 = 0, start = now_s(), until = start + o->wait_s;
	int rv = 0;
	while (now_s() < until) {
		if (o->abort_after_s > 0 && t0 > 0 && now_s() - t0 >= o->abort_after_s) {
			printf("BULK-RX pkts=%lu bytes=%lu before abort\n", pkts, bytes);
			print_kstats(fd);
			do_abort(fd);
			return 1;
		}
		ssize_t n = recv_dgram(fd, b, sizeof(b), 200);
		if (n == -EAGAIN)
			continue;
		if (n == 0) {
			printf("PEER-CLOSED\n");
			print_soerror(fd);
			rv = 1;
			break;
		}
		if (n < 0) {
			printf("RECV-ERROR errno=%s\n", errname((int)-n));
			rv = 1;
			break;
		}
		t1 = now_s();
		if (t0 == 0)
			t0 = t1;
		pkts++;
		bytes += (unsigned long)n;
	}
	double d = t1 > t0 ? t1 - t0 : 0;
	printf("BULK-RX pkts=%lu bytes=%lu secs=%.2f mbit=%.3f sock_drops=%lu\n", pkts,
	       bytes, d, d > 0 ? bytes * 8 / d / 1e6 : 0.0, sock_drops(fd));
	print_kstats(fd);
	return rv;
}

/* ------------------------------------------ udccp-perf's protocol (--perf) */

/* Mirrors tools/udccp-perf.c: magic "UDPF", type byte at 4, big-endian
 * fields from offset 8. */
#define PERF_MAGIC 0x55445046u
enum { M_HELLO = 1, M_HELLO_ACK, M_DATA, M_REPORT, M_END, M_RESULT };

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}
static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}
static size_t msg_init(unsigned char *b, int type)
{
	memset(b, 0, 8);
	b[0] = 'U'; b[1] = 'D'; b[2] = 'P'; b[3] = 'F';
	b[4] = (unsigned char)type;
	return 8;
}
static int msg_type(const unsigned char *b, ssize_t n)
{
	if (n < 8 || get64(b) >> 32 != PERF_MAGIC)
		return -1;
	return b[4];
}

struct perf_rx {
	uint64_t pkts, bytes, max_seq1, rep_pkts, rep_bytes, res_pkts, res_bytes;
	int got_end, got_result, got_hello_ack, closed, err;
	int fd_hello; /* as server: the fd on which to answer a repeated HELLO */
};

/* Reads every waiting datagram (the first wait up to timeout_ms).  Returns
 * the last control type seen, 0 for none. */
static int perf_drain(int fd, struct perf_rx *rx, int timeout_ms)
{
	static unsigned char b[65536];
	int last = 0;
	for (int k = 0; k < 10000; k++) {
		ssize_t n = recv_dgram(fd, b, sizeof(b), k == 0 ? timeout_ms : 0);
		if (n == -EAGAIN)
			break;
		if (n == 0) {
			rx->closed = 1;
			break;
		}
		if (n < 0) {
			rx->err = (int)-n;
			break;
		}
		int t = msg_type(b, n);
		if (t == M_DATA && n >= 16) {
			uint64_t s = get64(b + 8);
			rx->pkts++;
			rx->bytes += (uint64_t)n;
			if (s + 1 > rx->max_seq1)
				rx->max_seq1 = s + 1;
		} else if (t == M_REPORT && n >= 32) {
			rx->rep_pkts = get64(b + 8);
			rx->rep_bytes = get64(b + 16);
		} else if (t == M_END && n >= 56) {
			rx->got_end = 1;
			printf("PERF-END peer_sent_pkts=%llu peer_sent_bytes=%llu"
			       " peer_rtt_ms=%.3f peer_ccid=%u\n",
			       (unsigned long long)get64(b + 8),
			       (unsigned long long)get64(b + 16),
			       get64(b + 32) / 1e6, b[48]);
		} else if (t == M_RESULT && n >= 24) {
			rx->got_result = 1;
			rx->res_pkts = get64(b + 8);
			rx->res_bytes = get64(b + 16);
		} else if (t == M_HELLO_ACK) {
			rx->got_hello_ack = 1;
		} else if (t == M_HELLO && rx->fd_hello >= 0) {
			/* Our HELLO_ACK was lost (a lossy link): the client repeats
			 * HELLO until one arrives, as udccp-perf's server answers. */
			unsigned char a[16];
			(void)send_dgram(rx->fd_hello, a, msg_init(a, M_HELLO_ACK), 200, NULL);
		}
		if (t > 0 && t != M_DATA)
			last = t;
	}
	return last;
}

static int perf_receiver(int fd, const struct opts *o, double dur)
{
	struct perf_rx rx;
	memset(&rx, 0, sizeof(rx));
	rx.fd_hello = o->server ? fd : -1;
	double start = now_s(), next = start + 1, end_seen = 0;
	double hard = start + dur + 30;
	while (!rx.closed && !rx.err && now_s() < hard) {
		if (o->abort_after_s > 0 && now_s() - start >= o->abort_after_s) {
			printf("PERF-RX pkts=%llu bytes=%llu before abort\n",
			       (unsigned long long)rx.pkts, (unsigned long long)rx.bytes);
			print_kstats(fd);
			do_abort(fd);
			return 1;
		}
		int t = perf_drain(fd, &rx, 100);
		unsigned char m[64];
		size_t n;
		double now = now_s();
		if (t == M_END) {
			/* udccp-perf's RESULT: received pkts, bytes, lost,
			 * jitter (ns), out of order: 48 bytes */
			memset(m, 0, sizeof(m));
			n = msg_init(m, M_RESULT);
			put64(m + n, rx.pkts);
			put64(m + n + 8, rx.bytes);
			put64(m + n + 16, rx.max_seq1 > rx.pkts ? rx.max_seq1 - rx.pkts : 0);
			(void)send_dgram(fd, m, n + 40, 200, NULL);
			if (end_seen == 0)
				end_seen = now;
		}
		if (now >= next && !rx.got_end) {
			memset(m, 0, sizeof(m));
			n = msg_init(m, M_REPORT);
			put64(m + n, rx.pkts);
			put64(m + n + 8, rx.bytes);
			put64(m + n + 16, rx.max_seq1 - rx.pkts);
			(void)send_dgram(fd, m, n + 40, 200, NULL);
			printf("PERF-INTERVAL t=%.1f pkts=%llu bytes=%llu\n", now - start,
			       (unsigned long long)rx.pkts, (unsigned long long)rx.bytes);
			next += 1;
		}
		/* The kernel as perf client lingers briefly after END, then closes;
		 * as perf server it waits for the peer's close. */
		if (end_seen != 0 && now - end_seen > (o->server ? 5.0 : 0.3))
			break;
	}
	double d = now_s() - start;
	printf("PERF-RX pkts=%llu bytes=%llu lost=%llu secs=%.2f mbit=%.3f%s%s\n",
	       (unsigned long long)rx.pkts, (unsigned long long)rx.bytes,
	       (unsigned long long)(rx.max_seq1 - rx.pkts), d,
	       rx.bytes * 8 / d / 1e6, rx.closed ? " peer-closed" : "",
	       rx.err ? " error" : "");
	if (rx.err)
		printf("RECV-ERROR errno=%s\n", errname(rx.err));
	print_kstats(fd);
	return rx.closed || rx.err;
}

static int perf_sender(int fd, const struct opts *o, double dur, size_t len)
{
	struct perf_rx rx;
	memset(&rx, 0, sizeof(rx));
	rx.fd_hello = o->server ? fd : -1;
	unsigned char *d = calloc(1, len < 64 ? 64 : len);
	if (d == NULL)
		fail("calloc");
	memset(d, 0xa5, len);
	msg_init(d, M_DATA);
	uint64_t seq = 0;
	unsigned long eagain = 0;
	double start = now_s(), stop = start + dur;
	while (now_s() < stop) {
		if (o->abort_after_s > 0 && now_s() - start >= o->abort_after_s) {
			printf("PERF-TX pkts=%llu before abort\n", (unsigned long long)seq);
			print_kstats(fd);
			do_abort(fd);
			free(d);
			return 1;
		}
		(void)perf_drain(fd, &rx, 0);
		if (rx.closed || rx.err)
			break;
		put64(d + 8, seq);
		int r = send_dgram(fd, d, len, 100, &eagain);
		if (r == 0)
			seq++;
		else if (r != -EAGAIN) {
			printf("SEND-ERROR errno=%s\n", errname(-r));
			free(d);
			return 1;
		}
	}
	free(d);
	double el = now_s() - start;
	for (int k = 0; k < 20 && !rx.got_result && !rx.closed && !rx.err; k++) {
		unsigned char m[64];
		size_t n = msg_init(m, M_END);
		put64(m + n, seq);
		put64(m + n + 8, seq * len);
		put64(m + n + 16, (uint64_t)(el * 1e9));
		put64(m + n + 24, 0);
		put64(m + n + 32, 0);
		m[n + 40] = (unsigned char)getopt_int(fd, DCCP_SOCKOPT_TX_CCID);
		(void)send_dgram(fd, m, n + 48, 200, NULL);
		double until = now_s() + 0.25;
		while (!rx.got_result && !rx.closed && !rx.err && now_s() < until)
			(void)perf_drain(fd, &rx, 50);
	}
	printf("PERF-TX pkts=%llu bytes=%llu secs=%.2f mbit=%.3f eagain=%lu"
	       " peer_received_pkts=%llu result=%s\n",
	       (unsigned long long)seq, (unsigned long long)(seq * len), el,
	       seq * len * 8 / el / 1e6, eagain,
	       (unsigned long long)(rx.got_result ? rx.res_pkts : rx.rep_pkts),
	       rx.got_result ? "yes" : "no");
	print_kstats(fd);
	return rx.closed || rx.err;
}

/* Kernel as udccp-perf's server: wait for HELLO, then play the role asked. */
static int perf_serve(int fd, const struct opts *o)
{
	unsigned char h[256];
	ssize_t n = -EAGAIN;
	for (int k = 0; k < 100; k++) {
		n = recv_dgram(fd, h, sizeof(h), 100);
		if (n >= 32 && msg_type(h, n) == M_HELLO)
			break;
		if (n == 0 || (n < 0 && n != -EAGAIN))
			break;
		n = -EAGAIN;
	}
	if (n < 32) {
		printf("PERF-ERROR no HELLO\n");
		return 1;
	}
	int reverse = h[8] & 1;
	double dur = get64(h + 16) / 1e9;
	size_t len = (size_t)get64(h + 24);
	printf("PERF-HELLO reverse=%d secs=%.1f length=%zu\n", reverse, dur, len);
	unsigned char a[16];
	(void)send_dgram(fd, a, msg_init(a, M_HELLO_ACK), 200, NULL);
	if (reverse)
		return perf_sender(fd, o, dur, len);
	return perf_receiver(fd, o, dur);
}

/* Kernel as udccp-perf's client. */
static int perf_client(int fd, const struct opts *o)
{
	struct perf_rx rx;
	memset(&rx, 0, sizeof(rx));
	rx.fd_hello = -1;
	int mps = getopt_int(fd, DCCP_SOCKOPT_GET_CUR_MPS);
	size_t len = o->length ? o->length : (size_t)(mps > 0 ? mps : 1000);
	for (int k = 0; k < 10 && !rx.got_hello_ack; k++) {
		/* udccp-perf's HELLO (tools/perf/stream.c): flags at 8
		 * (1: reverse), stream index 9, streams 10, then duration,
		 * length, rate, interval, byte and packet limits, test id at
		 * 16..64: 72 bytes; zero is "none" / one stream. */
		unsigned char m[72];
		memset(m, 0, sizeof(m));
		size_t n = msg_init(m, M_HELLO);
		m[n] = (unsigned char)(o->reverse ? 1 : 0);
		put64(m + 16, (uint64_t)(o->perf_time_s * 1e9));
		put64(m + 24, len);
		put64(m + 32, 0);
		(void)send_dgram(fd, m, sizeof(m), 200, NULL);
		double until = now_s() + 0.3;
		while (!rx.got_hello_ack && now_s() < until && !rx.closed && !rx.err)
			(void)perf_drain(fd, &rx, 50);
	}
	if (!rx.got_hello_ack) {
		printf("PERF-ERROR no HELLO_ACK\n");
		return 1;
	}
	if (o->reverse)
		return perf_receiver(fd, o, o->perf_time_s);
	return perf_sender(fd, o, o->perf_time_s, len);
}

/* ---------------------------------------------------------------- main */

static int finish(int fd, const struct opts *o, int gone)
{
	if (gone) {
		if (o->close_mode != CLOSE_ABORT)
			close(fd);
		printf("CLOSED\n");
		return 0;
	}
	if (o->close_mode == CLOSE_ABORT) {
		print_kstats(fd);
		do_abort(fd);
		return 0;
	}
	if (o->close_mode == CLOSE_WAIT) {
		unsigned char b[2048];
		double until = now_s() + o->wait_s;
		for (;;) {
			ssize_t n = recv_dgram(fd, b, sizeof(b), 100);
			if (n == 0) {
				printf("PEER-CLOSED\n");
				print_soerror(fd);
				break;
			}
			if (n < 0 && n != -EAGAIN) {
				printf("RECV-ERROR errno=%s\n", errname((int)-n));
				break;
			}
			if (n > 0)
				print_text("RECV", b, n);
			if (now_s() > until) {
				printf("WAIT-CLOSE timed out\n");
				break;
			}
		}
	}
	close(fd);
	printf("CLOSED\n");
	return 0;
}

static int workload(int fd, const struct opts *o)
{
	int gone;
	if (o->perf)
		gone = o->server ? perf_serve(fd, o) : perf_client(fd, o);
	else if (o->bulk_send_s > 0)
		gone = run_bulk_send(fd, o);
	else if (o->bulk_recv)
		gone = run_bulk_recv(fd, o);
	else
		gone = run_messages(fd, o);
	return finish(fd, o, gone);
}

static int cmd_server(const struct opts *o)
{
	int fd = make_socket(o), one = 1;
	struct sockaddr_storage ss;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	socklen_t sl = make_addr(o, NULL, &ss);
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0)
		fail("bind");
	if (listen(fd, 4) < 0)
		fail("listen");
	printf("LISTENING port=%d service=%u\n", o->port, o->service);
	fflush(stdout);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, (int)(o->wait_s * 1000)) <= 0) {
		printf("ACCEPT-TIMEOUT\n");
		return 1;
	}
	sl = sizeof(ss);
	int c = accept(fd, (struct sockaddr *)&ss, &sl);
	if (c < 0)
		fail("accept");
	close(fd);
	/* Only a socket in the server role takes it (EOPNOTSUPP before). */
	if (o->server_timewait &&
	    setsockopt(c, SOL_DCCP, DCCP_SOCKOPT_SERVER_TIMEWAIT, &one,
		       sizeof(one)) < 0)
		fail("setsockopt(DCCP_SOCKOPT_SERVER_TIMEWAIT)");
	print_peer(&ss);
	print_conn(c, "CONNECTED");
	return workload(c, o);
}

static int cmd_client(const struct opts *o)
{
	int fd = make_socket(o);
	struct sockaddr_storage ss;
	socklen_t sl = make_addr(o, o->host, &ss);
	printf("CONNECTING host=%s port=%d service=%u\n", o->host, o->port,
	       o->service);
	fflush(stdout);
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		printf("CONNECT-FAILED errno=%s (%s)\n", errname(errno),
		       strerror(errno));
		close(fd);
		return 1;
	}
	print_conn(fd, "CONNECTED");
	return workload(fd, o);
}

static int cmd_info(void)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.send_cscov = o.recv_cscov = -1;
	int fd = make_socket(&o);
	uint8_t ccids[16];
	socklen_t l = sizeof(ccids);
	if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_AVAILABLE_CCIDS, ccids, &l) < 0)
		fail("getsockopt(DCCP_SOCKOPT_AVAILABLE_CCIDS)");
	printf("INFO available_ccids=");
	for (socklen_t i = 0; i < l; i++)
		printf("%s%u", i ? "," : "", ccids[i]);
	printf("\n");
	print_conn(fd, "INFO fresh-socket");
	close(fd);
	int fd6 = socket(AF_INET6, SOCK_DCCP, IPPROTO_DCCP);
	printf("INFO ipv6=%s\n", fd6 >= 0 ? "yes" : errname(errno));
	if (fd6 >= 0)
		close(fd6);
	return 0;
}

static void usage(void)
{
	printf("usage: dccpt info | server [OPTS] | client HOST [OPTS]\n"
	       "  -p PORT  -s SERVICE  -6  --ccid N  --send N  --expect N  --echo\n"
	       "  --wait SECS (default 10)  --close close|wait|abort\n"
	       "  --bulk-send SECS  --bulk-recv  -l BYTES  --abort-after SECS\n"
	       "  --rcvbuf BYTES\n"
	       "  --perf [-t SECS] [-R]  --send-cscov N  --recv-cscov N\n"
	       "  --server-timewait  --alarm SECS (default 120)\n");
}

int main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.port = 5001;
	o.expect = -1;
	o.wait_s = 10;
	o.length = 1000;
	o.perf_time_s = 3;
	o.send_cscov = o.recv_cscov = -1;
	int alarm_s = 120;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage();
		return 2;
	}
	const char *cmd = argv[1];
	int first = 2;
	if (!strcmp(cmd, "info"))
		return cmd_info();
	if (!strcmp(cmd, "client")) {
		if (argc < 3) {
			usage();
			return 2;
		}
		o.host = argv[2];
		first = 3;
	} else if (!strcmp(cmd, "server")) {
		o.server = 1;
	} else {
		usage();
		return 2;
	}
	enum { O_CCID = 256, O_SEND, O_EXPECT, O_ECHO, O_WAIT, O_CLOSE, O_BSEND,
	       O_BRECV, O_ABORT, O_PERF, O_SCOV, O_RCOV, O_STW, O_ALARM,
	       O_RCVBUF };
	static const struct option lo[] = {
		{ "ccid", 1, NULL, O_CCID },    { "send", 1, NULL, O_SEND },
		{ "expect", 1, NULL, O_EXPECT }, { "echo", 0, NULL, O_ECHO },
		{ "wait", 1, NULL, O_WAIT },    { "close", 1, NULL, O_CLOSE },
		{ "bulk-send", 1, NULL, O_BSEND }, { "bulk-recv", 0, NULL, O_BRECV },
		{ "abort-after", 1, NULL, O_ABORT }, { "perf", 0, NULL, O_PERF },
		{ "send-cscov", 1, NULL, O_SCOV }, { "recv-cscov", 1, NULL, O_RCOV },
		{ "server-timewait", 0, NULL, O_STW }, { "alarm", 1, NULL, O_ALARM },
		{ "rcvbuf", 1, NULL, O_RCVBUF },
		{ NULL, 0, NULL, 0 }
	};
	optind = first;
	int c;
	while ((c = getopt_long(argc, argv, "p:s:6l:t:R", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.port = atoi(optarg); break;
		case 's': o.service = (uint32_t)strtoul(optarg, NULL, 0); break;
		case '6': o.v6 = 1; break;
		case 'l': o.length = (size_t)atol(optarg); break;
		case 't': o.perf_time_s = atof(optarg); break;
		case 'R': o.reverse = 1; break;
		case O_CCID: o.ccid = atoi(optarg); break;
		case O_SEND: o.nsend = atoi(optarg); break;
		case O_EXPECT: o.expect = atoi(optarg); break;
		case O_ECHO: o.echo = 1; break;
		case O_WAIT: o.wait_s = atof(optarg); break;
		case O_CLOSE:
			o.close_mode = !strcmp(optarg, "wait") ? CLOSE_WAIT :
				       !strcmp(optarg, "abort") ? CLOSE_ABORT : CLOSE_NOW;
			break;
		case O_BSEND: o.bulk_send_s = atof(optarg); break;
		case O_BRECV: o.bulk_recv = 1; break;
		case O_ABORT: o.abort_after_s = atof(optarg); break;
		case O_PERF: o.perf = 1; break;
		case O_SCOV: o.send_cscov = atoi(optarg); break;
		case O_RCOV: o.recv_cscov = atoi(optarg); break;
		case O_STW: o.server_timewait = 1; break;
		case O_ALARM: alarm_s = atoi(optarg); break;
		case O_RCVBUF: o.rcvbuf = atoi(optarg); break;
		default: usage(); return 2;
		}
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned)alarm_s);
	int rc = o.server ? cmd_server(&o) : cmd_client(&o);
	printf("DONE rc=%d\n", rc);
	return rc;
}
