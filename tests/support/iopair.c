/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "iopair.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

uint64_t udccp_test_ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int fail(udccp_io_pair *p, const char *what, int rc) {
  fprintf(stderr, "udccp_io_pair_open: %s: %d\n", what, rc);
  udccp_io_pair_close(p);
  return -1;
}

int udccp_io_pair_open(udccp_io_pair *p, const udccp_io_pair_opts *o) {
  memset(p, 0, sizeof(*p));
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = o->server_host;
  cfg.no_offload = o->no_offload;
  int rc = udccp_endpoint_new_config(&p->sep, &cfg);
  if (rc != 0) {
    return fail(p, "server endpoint", rc);
  }
  cfg.local_host = "127.0.0.1";
  cfg.remote_udp_port = udccp_endpoint_local_port(p->sep);
  if ((rc = udccp_endpoint_new_config(&p->cep, &cfg)) != 0) {
    return fail(p, "client endpoint", rc);
  }
  if (o->client_set != NULL &&
      (rc = udccp_endpoint_set_settings(p->cep, o->client_set)) != 0) {
    return fail(p, "client settings", rc);
  }
  uint32_t code = o->code;
  if ((rc = udccp_listen(p->sep, o->port, &code, 1)) != 0) {
    return fail(p, "listen", rc);
  }
  if ((rc = udccp_connect(p->cep, &p->c, "127.0.0.1", o->port, code, o->ccid,
                          0)) != 0) {
    return fail(p, "connect", rc);
  }
  uint64_t end = udccp_test_ms_now() + 5000;
  while (udccp_test_ms_now() < end &&
         (p->s == NULL || udccp_sock_state(p->c) != UDCCP_STATE_OPEN ||
          udccp_sock_state(p->s) != UDCCP_STATE_OPEN)) {
    (void)udccp_endpoint_run(p->cep, 1);
    (void)udccp_endpoint_run(p->sep, 1);
    if (p->s == NULL && udccp_accept(p->sep, &p->s, 0) != 0) {
      p->s = NULL;
    }
  }
  if (p->s == NULL || udccp_sock_state(p->c) != UDCCP_STATE_OPEN ||
      udccp_sock_state(p->s) != UDCCP_STATE_OPEN) {
    return fail(p, "not OPEN within 5 s, client state",
                (int)udccp_sock_state(p->c));
  }
  return 0;
}

void udccp_io_pair_close(udccp_io_pair *p) {
  if (p->c != NULL) {
    udccp_abort(p->c);
  }
  if (p->s != NULL) {
    udccp_abort(p->s);
  }
  if (p->cep != NULL) {
    udccp_endpoint_del(p->cep);
  }
  if (p->sep != NULL) {
    udccp_endpoint_del(p->sep);
  }
  memset(p, 0, sizeof(*p));
}
