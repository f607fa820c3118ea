/* SPDX-License-Identifier: MIT */
/*
 * Argument parsing for the simulator.  Strict: anything not understood is
 * an error that says what was expected.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_parse.h"

static int ieq(const char *a, const char *b) {
  while (*a != '\0' && *b != '\0') {
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
      return 0;
    }
    a++;
    b++;
  }
  return *a == *b;
}

/* Splits s into a non-negative decimal number and its unit suffix. */
static int split_number(const char *s, double *v, const char **unit) {
  if (s == NULL || *s == '\0' || !(isdigit((unsigned char)*s) || *s == '.')) {
    return -1;
  }
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  if (errno != 0 || end == s || !isfinite(*v) || *v < 0) {
    return -1;
  }
  *unit = end;
  return 0;
}

int sim_parse_rate(const char *s, uint64_t *bps, char *err, size_t cap) {
  static const struct {
    const char *unit;
    double mult;
  } units[] = {{"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}};
  double v;
  const char *unit;
  if (split_number(s, &v, &unit) != 0) {
    snprintf(err, cap, "bad rate '%s': write a number and a unit, e.g. 50mbit",
             s ? s : "");
    return -1;
  }
  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
    if (ieq(unit, units[i].unit)) {
      double r = v * units[i].mult;
      if (r < 1000 || r > 1e12) {
        snprintf(err, cap,
                 "rate '%s' out of range: use 1kbit to 1000gbit", s);
        return -1;
      }
      *bps = (uint64_t)llround(r);
      return 0;
    }
  }
  if (*unit == '\0' && (v * 1e6 < 1000 || v * 1e6 > 1e12)) {
    /* (no "write e.g. 0mbit": that is out of range too) */
    snprintf(err, cap,
             "rate '%s' has no unit: write a rate from 1kbit to 1000gbit, "
             "e.g. 50mbit", s);
  } else if (*unit == '\0') {
    snprintf(err, cap, "rate '%s' has no unit: write e.g. %smbit", s, s);
  } else {
    snprintf(err, cap,
             "unknown rate unit '%s' in '%s': use bit, kbit, mbit or gbit "
             "(bits per second)", unit, s);
  }
  return -1;
}

int sim_parse_time(const char *s, udccp_tstamp *ns, char *err, size_t cap) {
  static const struct {
    const char *unit;
    double mult;
  } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  double v;
  const char *unit;
  if (split_number(s, &v, &unit) != 0) {
    snprintf(err, cap, "bad time '%s': write a number and a unit, e.g. 20ms",
             s ? s : "");
    return -1;
  }
  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
    if (ieq(unit, units[i].unit)) {
      double t = v * units[i].mult;
      if (t > 1e6 * 1e9) {
        snprintf(err, cap, "time '%s' too long: at most 1000000s", s);
        return -1;
      }
      *ns = (udccp_tstamp)llround(t);
      return 0;
    }
  }
  if (*unit == '\0') {
    snprintf(err, cap, "time '%s' has no unit: write e.g. %sms or %ss", s, s, s);
  } else {
    snprintf(err, cap, "unknown time unit '%s' in '%s': use ns, us, ms or s",
             unit, s);
  }
  return -1;
}

int sim_parse_prob(const char *s, double *p, char *err, size_t cap) {
  double v;
  const char *unit;
  if (split_number(s, &v, &unit) != 0 ||
      (*unit != '\0' && strcmp(unit, "%") != 0)) {
    snprintf(err, cap,
             "bad probability '%s': write a fraction like 0.01 or a "
             "percentage like 1%%", s ? s : "");
    return -1;
  }
  if (*unit == '%') {
    v /= 100.0;
  }
  if (v > 1.0) {
    snprintf(err, cap, "probability '%s' is above 1: use a fraction in [0, 1]",
             s);
    return -1;
  }
  *p = v;
  return 0;
}

int sim_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
                   char *err, size_t cap) {
  if (s == NULL || !isdigit((unsigned char)*s)) {
    snprintf(err, cap, "'%s' is not a number: write an integer in [%llu, %llu]",
             s ? s : "", (unsigned long long)min, (unsigned long long)max);
    return -1;
  }
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || x < min || x > max) {
    snprintf(err, cap, "'%s' is not an integer in [%llu, %llu]", s,
             (unsigned long long)min, (unsigned long long)max);
    return -1;
  }
  *v = x;
  return 0;
}

static void kind_names(char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = '\0';
  for (size_t i = 0; sim_flow_kinds[i] != NULL && off < cap; i++) {
    int n = snprintf(buf + off, cap - off, "%s%s", i ? ", " : "",
                     sim_flow_kinds[i]->name);
    if (n < 0) {
      break;
    }
    off += (size_t)n;
  }
}

/* The ":key=value" attributes of one flow item (start, stop, app). */
static int parse_flow_attrs(char *attrs, const char *item,
                            sim_flow_opts *o, char *err, size_t cap) {
  char sub[256];
  if (*attrs == '\0') {
    snprintf(err, cap, "bad flow item '%s': nothing after ':' (attributes: "
             "start=TIME, stop=TIME, app=RATE, e.g. ccid2:start=5s)", item);
    return -1;
  }
  for (char *a = attrs; a != NULL && *a != '\0';) {
    char *next = strchr(a, ':');
    if (next != NULL) {
      *next++ = '\0';
    }
    char *eq = strchr(a, '=');
    int bad = 1;
    if (eq != NULL) {
      *eq = '\0';
      const char *v = eq + 1;
      if (strcmp(a, "start") == 0) {
        bad = sim_parse_time(v, &o->start, sub, sizeof(sub));
        o->has_start = 1;
      } else if (strcmp(a, "stop") == 0) {
        bad = sim_parse_time(v, &o->stop, sub, sizeof(sub));
        if (!bad && o->stop == 0) {
          snprintf(sub, sizeof(sub), "stop must be > 0");
          bad = 1;
        }
      } else if (strcmp(a, "app") == 0) {
        bad = sim_parse_rate(v, &o->app_rate_bps, sub, sizeof(sub));
      } else {
        snprintf(sub, sizeof(sub), "unknown attribute '%s'", a);
      }
    } else {
      snprintf(sub, sizeof(sub), "'%s' is not key=value", a);
    }
    if (bad) {
      snprintf(err, cap, "bad flow item '%s': %s (attributes: start=TIME, "
               "stop=TIME, app=RATE, e.g. ccid2:start=5s:stop=20s)", item,
               sub);
      return -1;
    }
    a = next;
  }
  return 0;
}

int sim_parse_flows(const char *s, sim_config *cfg, char *err, size_t cap) {
  char names[128];
  kind_names(names, sizeof(names));
  cfg->n_flows = 0;
  if (s == NULL || *s == '\0') {
    snprintf(err, cap, "empty --flows: list flow kinds, e.g. ccid2,tcp (kinds: %s)",
             names);
    return -1;
  }
  const char *p = s;
  while (*p != '\0') {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[128], whole[128];
    if (len == 0 || len >= sizeof(item)) {
      snprintf(err, cap, "bad flow list '%s': expected KIND or NxKIND items "
               "separated by commas (kinds: %s)", s, names);
      return -1;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    memcpy(whole, item, len + 1);
    sim_flow_opts opts;
    memset(&opts, 0, sizeof(opts));
    char *attrs = strchr(item, ':');
    if (attrs != NULL) {
      *attrs++ = '\0';
      if (parse_flow_attrs(attrs, whole, &opts, err, cap) != 0) {
        return -1;
      }
    }
    unsigned long count = 1;
    const char *name = item;
    if (isdigit((unsigned char)item[0])) {
      char *end;
      count = strtoul(item, &end, 10);
      if ((*end != 'x' && *end != '*') || count == 0) {
        snprintf(err, cap, "bad flow item '%s': write NxKIND, e.g. 4xccid2",
                 item);
        return -1;
      }
      name = end + 1;
    }
    const sim_flow_kind *k = sim_flow_kind_find(name);
    if (k == NULL) {
      snprintf(err, cap, "unknown flow kind '%s': use one of %s", name, names);
      return -1;
    }
    if (count > SIM_MAX_FLOWS - cfg->n_flows) {
      snprintf(err, cap, "too many flows in '%s': at most %d", s, SIM_MAX_FLOWS);
      return -1;
    }
    for (unsigned long i = 0; i < count; i++) {
      cfg->flow_opts[cfg->n_flows] = opts;
      cfg->kinds[cfg->n_flows++] = k;
    }
    p += len;
    if (*p == ',') {
      p++;
      if (*p == '\0') {
        snprintf(err, cap, "flow list '%s' ends with a comma", s);
        return -1;
      }
    }
  }
  return 0;
}

int sim_parse_blackout(const char *s, sim_config *cfg, char *err, size_t cap) {
  char buf[64], sub[256];
  const char *plus = s != NULL ? strchr(s, '+') : NULL;
  sim_blackout b;
  if (plus == NULL || (size_t)(plus - s) >= sizeof(buf)) {
    snprintf(err, cap, "bad --blackout '%s': write AT+LENGTH, e.g. 10s+2s",
             s ? s : "");
    return -1;
  }
  memcpy(buf, s, (size_t)(plus - s));
  buf[plus - s] = '\0';
  if (sim_parse_time(buf, &b.at, sub, sizeof(sub)) != 0 ||
      sim_parse_time(plus + 1, &b.len, sub, sizeof(sub)) != 0 || b.len == 0) {
    snprintf(err, cap, "bad --blackout '%s': write AT+LENGTH with times, "
             "LENGTH > 0, e.g. 10s+2s", s);
    return -1;
  }
  if (cfg->n_blackouts >= SIM_MAX_SCHED) {
    snprintf(err, cap, "too many --blackout: at most %d", SIM_MAX_SCHED);
    return -1;
  }
  cfg->blackouts[cfg->n_blackouts++] = b;
  return 0;
}

int sim_parse_rate_step(const char *s, sim_config *cfg, char *err,
                        size_t cap) {
  char buf[64], sub[256];
  const char *colon = s != NULL ? strchr(s, ':') : NULL;
  sim_rate_step r;
  if (colon == NULL || (size_t)(colon - s) >= sizeof(buf)) {
    snprintf(err, cap, "bad --rate-change '%s': write AT:RATE, e.g. 10s:5mbit",
             s ? s : "");
    return -1;
  }
  memcpy(buf, s, (size_t)(colon - s));
  buf[colon - s] = '\0';
  if (sim_parse_time(buf, &r.at, sub, sizeof(sub)) != 0 ||
      sim_parse_rate(colon + 1, &r.rate_bps, sub, sizeof(sub)) != 0) {
    snprintf(err, cap, "bad --rate-change '%s': %s", s, sub);
    return -1;
  }
  if (cfg->n_rate_steps >= SIM_MAX_SCHED) {
    snprintf(err, cap, "too many --rate-change: at most %d", SIM_MAX_SCHED);
    return -1;
  }
  cfg->rate_steps[cfg->n_rate_steps++] = r;
  return 0;
}

/* One path of --paths: RATE/DELAY then ":queue=N", ":loss=P",
 * ":blackout=AT+LEN" (repeatable). */
static int parse_path(char *item, sim_path_cfg *pc, char *err, size_t cap) {
  char sub[256];
  char *attrs = strchr(item, ':');
  if (attrs != NULL) {
    *attrs++ = '\0';
  }
  char *slash = strchr(item, '/');
  memset(pc, 0, sizeof(*pc));
  if (slash == NULL) {
    snprintf(err, cap, "bad path '%s': write RATE/DELAY, e.g. 50mbit/10ms",
             item);
    return -1;
  }
  *slash = '\0';
  if (sim_parse_rate(item, &pc->rate_bps, sub, sizeof(sub)) != 0 ||
      sim_parse_time(slash + 1, &pc->delay, sub, sizeof(sub)) != 0) {
    snprintf(err, cap, "bad path '%s/%s': %s (write RATE/DELAY, e.g. "
             "50mbit/10ms)", item, slash + 1, sub);
    return -1;
  }
  if (pc->rate_bps == 0) {
    snprintf(err, cap, "bad path '%s/%s': the rate must be > 0", item,
             slash + 1);
    return -1;
  }
  for (char *a = attrs; a != NULL && *a != '\0';) {
    char *next = strchr(a, ':');
    if (next != NULL) {
      *next++ = '\0';
    }
    char *eq = strchr(a, '=');
    int bad = 1;
    if (eq != NULL) {
      *eq = '\0';
      const char *v = eq + 1;
      uint64_t q;
      if (strcmp(a, "queue") == 0) {
        bad = sim_parse_uint(v, 1, 10000000, &q, sub, sizeof(sub));
        pc->queue_pkts = (uint32_t)q;
      } else if (strcmp(a, "loss") == 0) {
        bad = sim_parse_prob(v, &pc->loss, sub, sizeof(sub));
        if (!bad && pc->loss >= 1.0) {
          snprintf(sub, sizeof(sub), "loss %s would drop everything", v);
          bad = 1;
        }
      } else if (strcmp(a, "blackout") == 0) {
        sim_config tmp;
        tmp.n_blackouts = 0;
        bad = sim_parse_blackout(v, &tmp, sub, sizeof(sub));
        if (!bad && pc->n_blackouts >= SIM_MAX_SCHED) {
          snprintf(sub, sizeof(sub), "at most %d blackouts", SIM_MAX_SCHED);
          bad = 1;
        }
        if (!bad) {
          pc->blackouts[pc->n_blackouts++] = tmp.blackouts[0];
        }
      } else {
        snprintf(sub, sizeof(sub), "unknown attribute '%s'", a);
      }
    } else {
      snprintf(sub, sizeof(sub), "'%s' is not key=value", a);
    }
    if (bad) {
      snprintf(err, cap, "bad path attribute: %s (attributes: queue=PKTS, "
               "loss=P, blackout=AT+LEN, e.g. 20mbit/40ms:blackout=5s+30s)",
               sub);
      return -1;
    }
    a = next;
  }
  return 0;
}

int sim_parse_paths(const char *s, sim_config *cfg, char *err, size_t cap) {
  char buf[1024];
  if (s == NULL || *s == '\0' || strlen(s) >= sizeof(buf)) {
    snprintf(err, cap, "bad --paths: write RATE/DELAY[:attr=value...],... "
             "e.g. 50mbit/10ms,20mbit/40ms");
    return -1;
  }
  memcpy(buf, s, strlen(s) + 1);
  cfg->n_paths = 0;
  for (char *item = buf; item != NULL;) {
    char *next = strchr(item, ',');
    if (next != NULL) {
      *next++ = '\0';
    }
    if (cfg->n_paths >= SIM_MAX_PATHS) {
      snprintf(err, cap, "too many paths in --paths: at most %d",
               SIM_MAX_PATHS);
      return -1;
    }
    if (parse_path(item, &cfg->paths[cfg->n_paths], err, cap) != 0) {
      return -1;
    }
    cfg->n_paths++;
    item = next;
  }
  /* path 0 is the simulator's bottleneck for everything else */
  cfg->rate_bps = cfg->paths[0].rate_bps;
  cfg->delay = cfg->paths[0].delay;
  return 0;
}
