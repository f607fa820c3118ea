/* SPDX-License-Identifier: MIT */
/*
 * echo_client: connects to an echo server, sends each line of standard
 * input as one datagram and prints the answer.
 *
 *   echo_client HOST [UDP_PORT [DCCP_PORT]]   (defaults 6511 and 7)
 *
 * DCCP is unreliable: a datagram or its answer may be lost, or come late.
 * The client waits 2 s for each answer; when none comes it says so on
 * stderr, goes on with the next line, and exits 1 at the end.  An answer
 * is the line it sent: a late answer to a line given up on is skipped
 * (said on stderr), never printed as the answer to a later line.
 * Exit status: 0 every line came back, 1 one did not (or the connection
 * failed), 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <udccp/udccp.h>

#define ANSWER_WAIT_MS 2000

/* A port argument: 1..65535 (0 for the UDP port: any free one). */
static int port_arg(const char *s, unsigned min, uint16_t *port) {
  char *end = NULL;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > 65535) {
    fprintf(stderr, "usage: echo_client HOST [UDP_PORT [DCCP_PORT]] (ports "
                    "are numbers 1..65535, e.g. 6511 7; not '%s')\n", s);
    return -1;
  }
  *port = (uint16_t)v;
  return 0;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Lines sent and not answered in time: a late answer matching one of them
 * is skipped.  The last few are enough: later ones would be older than
 * any queue in between. */
#define LATE_MAX 16
typedef struct late_line {
  char *text;
  size_t len;
  long no;
} late_line;

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4 || argv[1][0] == '-') {
    fprintf(stderr, "usage: echo_client HOST [UDP_PORT [DCCP_PORT]] "
                    "(defaults 6511 and 7)\n");
    return 2;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  uint16_t dccp_port = 7;
  if ((argc > 2 && port_arg(argv[2], 1, &cfg.remote_udp_port) != 0) ||
      (argc > 3 && port_arg(argv[3], 1, &dccp_port) != 0)) {
    return 2;
  }
  uint32_t service;
  (void)udccp_service_code_parse("ECHO", &service);
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    fprintf(stderr, "echo_client: %s\n", udccp_io_strerror(rv));
    return 1;
  }
  udccp_sock *s = NULL;
  rv = udccp_connect(ep, &s, argv[1], dccp_port, service, 2, 5000);
  if (rv != 0) {
    fprintf(stderr, "echo_client: %s UDP %u DCCP %u: %s\n", argv[1],
            (unsigned)cfg.remote_udp_port, (unsigned)dccp_port,
            udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  /* the largest datagram a connection carries (about 64 KiB on loopback) */
  static char back[65536];
  late_line late[LATE_MAX];
  int n_late = 0;
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t got;
  long no = 0;
  int failed = 0, dead = 0;
  while (!dead && (got = getline(&line, &line_cap, stdin)) >= 0) {
    size_t len = (size_t)got;
    if (len > 0 && line[len - 1] == '\n') {
      len--;
    }
    no++;
    udccp_ssize sent = udccp_send(s, line, len, 5000);
    if (sent < 0) {
      fprintf(stderr, "echo_client: line %ld (%zu bytes) not sent: %s\n", no,
              len, udccp_io_strerror((int)sent));
      failed = 1;
      if (sent != UDCCP_ERR_MSGSIZE && sent != UDCCP_ERR_AGAIN) {
        break; /* the connection is gone */
      }
      continue;
    }
    long long deadline = now_ms() + ANSWER_WAIT_MS;
    int answered = 0;
    while (!answered) {
      long long left = deadline - now_ms();
      udccp_ssize n = left > 0 ? udccp_recv(s, back, sizeof(back), (int)left)
                               : UDCCP_ERR_AGAIN;
      if (n == UDCCP_ERR_AGAIN) {
        fprintf(stderr, "echo_client: no answer to line %ld within %d s "
                "(the datagram or its answer was lost, or the server is "
                "slow)\n", no, ANSWER_WAIT_MS / 1000);
        failed = 1;
        if (n_late == LATE_MAX) {
          free(late[0].text);
          memmove(late, late + 1, (LATE_MAX - 1) * sizeof(late[0]));
          n_late--;
        }
        late[n_late].text = malloc(len + 1);
        if (late[n_late].text != NULL) {
          memcpy(late[n_late].text, line, len);
          late[n_late].len = len;
          late[n_late].no = no;
          n_late++;
        }
        break;
      }
      if (n < 0) {
        fprintf(stderr, "echo_client: waiting for the answer to line %ld: "
                "%s\n", no, udccp_io_strerror((int)n));
        failed = dead = 1;
        break;
      }
      if ((size_t)n == len && memcmp(back, line, len) == 0) {
        fwrite(back, 1, (size_t)n, stdout);
        putchar('\n');
        answered = 1;
        continue;
      }
      int k;
      for (k = 0; k < n_late; k++) {
        if (late[k].len == (size_t)n &&
            memcmp(late[k].text, back, (size_t)n) == 0) {
          break;
        }
      }
      if (k < n_late) {
        fprintf(stderr, "echo_client: late answer to line %ld skipped\n",
                late[k].no);
        free(late[k].text);
        memmove(late + k, late + k + 1, (size_t)(n_late - k - 1) *
                                             sizeof(late[0]));
        n_late--;
      } else {
        fprintf(stderr, "echo_client: an answer of %zd bytes while waiting "
                "for line %ld is none of the lines sent: skipped\n", n, no);
        failed = 1;
      }
    }
  }
  free(line);
  for (int k = 0; k < n_late; k++) {
    free(late[k].text);
  }
  fflush(stdout);
  (void)udccp_close(s, 2000);
  udccp_endpoint_del(ep);
  return failed;
}
