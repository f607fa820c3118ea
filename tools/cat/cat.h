/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat internals (tools/cat/), netcat for DCCP datagrams: see the
 * opening comment of tools/udccp-cat.c for what the tool promises.
 *
 *   tools/udccp-cat.c  main: the endpoint, connect or accept, one
 *                      connection after another (-k)
 *   conn.c             one connection's loop: stdin lines to datagrams,
 *                      datagrams to stdout, the close, the loss and unsent
 *                      input reports
 *   mp.c               the same over Multipath DCCP (--multipath, RFC 9897)
 *   opts.c             the command line and --help
 *   inout.c            standard input and output, signals, one turn of the
 *                      poll() loop
 */
#ifndef UDCCP_CAT_H
#define UDCCP_CAT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <udccp/udccp.h>

#define CAT_DEFAULT_PORT 5202
#define CAT_DEFAULT_SERVICE 0x43415400u /* "CAT" */
#define CAT_INBUF (256 * 1024)
/* Packets in flight at most (CCID 2's pipe): about 2.5 MB of kernel
 * memory at the receiver even for MPS-sized datagrams, within the socket
 * buffer asked for below, and still 110 Mbit/s at 100 ms RTT. */
#define CAT_MAX_INFLIGHT 1024
#define CAT_SOCKBUF (8 * 1024 * 1024)

typedef struct cat_opts {
  int listen, keep, raw, no_stdin, verbose;
  int multipath;      /* --multipath: RFC 9897 */
  const char *mp_local; /* --multipath ADDR,ADDR: the client's addresses */
  int mp_sched;       /* --mp-sched */
  int family; /* 0, 4 or 6 */
  uint16_t port, udp_port;
  uint8_t ccid;
  uint32_t service;
  int wait_ms;
  uint64_t idle_ns;
  udccp_settings ka; /* keepalive_* from --keepalive (else the defaults) */
  const char *host;
  const char *source; /* -s: local address */
  const char *pcap;   /* --pcap FILE: capture of what we send and receive */
  uint8_t cookies;             /* -l: enum udccp_init_cookie */
  uint32_t half_open, backlog; /* -l: 0 = the library's default */
} cat_opts;

/* stdin, shared by the connections of one run (-k). */
typedef struct cat_input {
  char *buf;
  size_t len, off;
  int eof;
} cat_input;

/* ---- inout.c */
/* The signal that asked us to stop (0: none).  Caught once connected, so
 * that the main loop aborts the connection instead of leaving the peer
 * waiting; a second one ends the program at once. */
extern volatile sig_atomic_t cat_sig;
/* errno of the first failure to write standard output, 0 while it works */
extern int cat_out_errno;
void cat_catch_signals(void);
void cat_input_compact(cat_input *in);
uint64_t cat_stdin_unread(const cat_input *in);
int cat_wait_and_read(const cat_opts *o, udccp_endpoint *ep, cat_input *in,
                      int blocked);
void cat_out_write(const uint8_t *buf, size_t n);
int cat_out_flush(void);
void cat_report_stdout(void);
int cat_report(const char *what, int err);
void cat_addr_str(char *b, size_t cap, uint8_t family, const uint8_t *a);
uint64_t cat_mono_ms(void);
unsigned cat_reserve_std_fds(void);

/* ---- opts.c */
int cat_parse_args(int argc, char **argv, unsigned std_closed, cat_opts *o);
int cat_local_host(const cat_opts *o, const char **host);

/* ---- conn.c */
int cat_run(const cat_opts *o, udccp_endpoint *ep, udccp_sock *s,
            cat_input *in);
void cat_refuse_waiting(udccp_endpoint *ep, uint8_t code, const char *why);

/* ---- mp.c */
int cat_main_mp(const cat_opts *o, udccp_endpoint *ep);

#endif /* UDCCP_CAT_H */
