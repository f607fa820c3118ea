/* SPDX-License-Identifier: MIT */
/*
 * Command-line value parsers (see parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "parse.h"

/* Splits s into a finite non-negative number and its unit suffix. */
static int split_number(const char *s, double *v, const char **unit) {
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s) || *s == '-') {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  char *end = NULL;
  errno = 0;
  double d = strtod(s, &end);
  if (end == s || errno != 0 || !isfinite(d) || d < 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *v = d;
  *unit = end;
  return 0;
}

static int to_u64(double d, uint64_t *out) {
  if (!(d < 18446744073709551616.0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *out = (uint64_t)(d + 0.5);
  return 0;
}

int udccp_io_parse_rate(const char *s, uint64_t *bps) {
  double v;
  const char *u;
  if (split_number(s, &v, &u) != 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  double mult = 1;
  switch (*u) {
  case 'k': case 'K': mult = 1e3; u++; break;
  case 'm': case 'M': mult = 1e6; u++; break;
  case 'g': case 'G': mult = 1e9; u++; break;
  default: break;
  }
  double unit = 1; /* bits */
  if (*u == '\0' || strcmp(u, "bit") == 0 || strcmp(u, "bps") == 0 ||
      strcmp(u, "b") == 0 || strcmp(u, "bit/s") == 0) {
    unit = 1;
  } else if (strcmp(u, "Bps") == 0 || strcmp(u, "B/s") == 0 ||
             strcmp(u, "B") == 0) {
    unit = 8;
  } else {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return to_u64(v * mult * unit, bps);
}

int udccp_io_parse_size(const char *s, uint64_t *bytes) {
  double v;
  const char *u;
  if (split_number(s, &v, &u) != 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  double mult = 1;
  switch (*u) {
  case 'k': case 'K': mult = 1024.0; u++; break;
  case 'm': case 'M': mult = 1024.0 * 1024; u++; break;
  case 'g': case 'G': mult = 1024.0 * 1024 * 1024; u++; break;
  default: break;
  }
  if (*u == 'B' || *u == 'b') {
    u++;
  }
  if (*u != '\0') {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return to_u64(v * mult, bytes);
}

int udccp_io_parse_time(const char *s, uint64_t *ns) {
  double v;
  const char *u;
  if (split_number(s, &v, &u) != 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  double mult;
  if (*u == '\0' || strcmp(u, "s") == 0) {
    mult = 1e9;
  } else if (strcmp(u, "ms") == 0) {
    mult = 1e6;
  } else if (strcmp(u, "us") == 0) {
    mult = 1e3;
  } else if (strcmp(u, "ns") == 0) {
    mult = 1;
  } else if (strcmp(u, "m") == 0 || strcmp(u, "min") == 0) {
    mult = 60e9;
  } else {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return to_u64(v * mult, ns);
}

int udccp_io_parse_keepalive(const char *s, udccp_settings *st) {
  char buf[96], *f[3] = {NULL, NULL, NULL}, *c;
  uint64_t idle, iv = st->keepalive_interval, probes = st->keepalive_probes;
  size_t n = 0;
  if (s == NULL || strlen(s) >= sizeof(buf)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (strcmp(s, "off") == 0) {
    st->keepalive_idle = 0;
    return 0;
  }
  memcpy(buf, s, strlen(s) + 1);
  f[n++] = buf;
  for (c = buf; *c != '\0'; c++) {
    if (*c == ',') {
      if (n == 3) {
        return UDCCP_ERR_INVALID_ARGUMENT;
      }
      *c = '\0';
      f[n++] = c + 1;
    }
  }
  if (udccp_io_parse_time(f[0], &idle) != 0 ||
      (f[1] != NULL && (udccp_io_parse_time(f[1], &iv) != 0 || iv == 0))) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (f[2] != NULL) {
    char *end = NULL;
    errno = 0;
    probes = strtoull(f[2], &end, 10);
    if (errno != 0 || end == f[2] || *end != '\0' || probes < 1 ||
        probes > 255 || !isdigit((unsigned char)f[2][0])) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
  }
  if (idle != 0 && (iv == 0 || probes == 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  st->keepalive_idle = idle;
  st->keepalive_interval = iv;
  st->keepalive_probes = (uint32_t)probes;
  return 0;
}

int udccp_io_parse_cookie_mode(const char *s, uint8_t *mode) {
  if (strcmp(s, "auto") == 0) {
    *mode = UDCCP_INIT_COOKIE_AUTO;
  } else if (strcmp(s, "always") == 0) {
    *mode = UDCCP_INIT_COOKIE_ALWAYS;
  } else if (strcmp(s, "never") == 0) {
    *mode = UDCCP_INIT_COOKIE_NEVER;
  } else {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return 0;
}

int udccp_io_parse_mp_sched(const char *s, int *sched) {
  static const struct {
    const char *name;
    int sched;
  } names[] = {{"minrtt", UDCCP_MP_SCHED_MINRTT},
               {"backup", UDCCP_MP_SCHED_BACKUP},
               {"rr", UDCCP_MP_SCHED_RR},
               {"redundant", UDCCP_MP_SCHED_REDUNDANT}};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if (strcmp(s, names[i].name) == 0) {
      *sched = names[i].sched;
      return 0;
    }
  }
  return UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_io_parse_bound(const char *s, uint32_t *n) {
  if (strcmp(s, "unlimited") == 0) {
    *n = UINT32_MAX;
    return 0;
  }
  if (*s < '0' || *s > '9') {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (uint64_t)(*s - '0');
    if (v >= UINT32_MAX) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
  }
  if (*s != '\0' || v == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *n = (uint32_t)v;
  return 0;
}

const char *udccp_io_parse_listen_opt(const char *name, const char *arg,
                                      uint8_t *cookies, uint32_t *half_open,
                                      uint32_t *backlog) {
  if (strcmp(name, "cookies") == 0) {
    return udccp_io_parse_cookie_mode(arg, cookies) == 0
               ? NULL
               : "must be auto, always or never";
  }
  uint32_t *n = strcmp(name, "backlog") == 0 ? backlog : half_open;
  return udccp_io_parse_bound(arg, n) == 0
             ? NULL
             : "must be a count, 1..4294967294, or unlimited";
}

/* A standard descriptor the shell closed (<&-, >&-) would be the next
 * socket's number: stdin then read the endpoint's own UDP socket (the
 * client hung), stdout wrote datagrams into a socket ("Destination address
 * required").  Each closed one gets /dev/null opened the other way round,
 * so that using it fails with EBADF as it would have.  Returns a bit per
 * descriptor that was closed. */
unsigned udccp_io_reserve_std_fds(void) {
  unsigned closed = 0;
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      closed |= 1u << fd;
      int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (n >= 0 && n != fd) {
        close(n);
      }
    }
  }
  return closed;
}
