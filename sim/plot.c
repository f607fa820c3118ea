/* SPDX-License-Identifier: MIT */
/*
 * udccp-sim --plot: goodput over time as SVG (see sim_plot.h).  The image
 * is 960 x 540 user units; everything is drawn with plain SVG 1.1 elements
 * (line, polyline, rect, text) so any browser or rsvg-convert shows it.
 */
#include <math.h>
#include <string.h>

#include "sim_plot.h"
#include "sim_report.h"

#define W 960
#define H 540
#define PX0 80.0  /* plot area: left */
#define PX1 720.0 /* right; the legend sits beyond */
#define PY0 70.0  /* top */
#define PY1 470.0 /* bottom */
#define LEGEND_LINE 18.0

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
#define N_COLORS (sizeof(palette) / sizeof(palette[0]))
/* after every colour was used once, the next round is dashed, then dotted */
static const char *const dashes[] = {"", "8 4", "2 3"};

double sim_plot_tick_step(double max, int target) {
  if (!(max > 0) || !isfinite(max) || target < 1) {
    return 1.0;
  }
  double raw = max / (double)target;
  double mag = pow(10.0, floor(log10(raw)));
  double m = raw / mag;
  double nice = m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0;
  return nice * mag;
}

static void xml_text(FILE *out, const char *s) {
  for (; *s != '\0'; s++) {
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out); break;
    }
  }
}

/* Digits after the point a tick label of this step needs. */
static int step_decimals(double step) {
  int d = (int)-floor(log10(step) + 1e-9);
  return d > 0 ? d : 0;
}

/* The --flows spec back from the result: runs of one kind as NxKIND. */
static void flows_spec(char *buf, size_t cap, const sim_result *res) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < res->n_flows && len + 1 < cap;) {
    size_t j = i;
    while (j < res->n_flows &&
           strcmp(res->flows[j].kind, res->flows[i].kind) == 0) {
      j++;
    }
    int n;
    if (j - i > 1) {
      n = snprintf(buf + len, cap - len, "%s%zux%s", i ? "," : "", j - i,
                   res->flows[i].kind);
    } else {
      n = snprintf(buf + len, cap - len, "%s%s", i ? "," : "",
                   res->flows[i].kind);
    }
    if (n < 0 || (size_t)n >= cap - len) {
      break;
    }
    len += (size_t)n;
    i = j;
  }
}

static void text(FILE *out, double x, double y, const char *anchor,
                 const char *extra, const char *s) {
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y,
          anchor, extra[0] ? " " : "", extra);
  xml_text(out, s);
  fputs("</text>\n", out);
}

int sim_plot_svg(FILE *out, const sim_config *cfg, const sim_result *res) {
  char buf[512], spec[160], rate[32];
  double dur = res->sim_time_s > 0 ? res->sim_time_s : 1.0;
  double ymax = 0;
  for (size_t i = 0; i < res->n_flows; i++) {
    for (size_t k = 0; k < res->flows[i].n_series; k++) {
      if (res->flows[i].rate_series[k] > ymax) {
        ymax = res->flows[i].rate_series[k];
      }
    }
  }
  /* show the bottleneck rate when the flows come near it */
  double link = (double)cfg->rate_bps;
  int show_link = link > 0 && link <= 1.25 * ymax;
  if (show_link && link > ymax) {
    ymax = link;
  }
  double unit = 1.0;
  const char *uname = "bit/s";
  if (ymax >= 1e9) {
    unit = 1e9, uname = "Gbit/s";
  } else if (ymax >= 1e6) {
    unit = 1e6, uname = "Mbit/s";
  } else if (ymax >= 1e3) {
    unit = 1e3, uname = "kbit/s";
  }
  double ystep = sim_plot_tick_step(ymax / unit, 5);
  double ytop = ceil(ymax / unit / ystep - 1e-9) * ystep;
  if (!(ytop > 0)) {
    ytop = ystep;
  }
  double xstep = sim_plot_tick_step(dur, 8);
  double xr = (PX1 - PX0) / dur, yr = (PY1 - PY0) / ytop;

  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" "
               "font-size=\"13\">\n", W, H, W, H);
  fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
               "fill=\"white\"/>\n", W, H);

  /* title: the scenario */
  flows_spec(spec, sizeof(spec), res);
  snprintf(buf, sizeof(buf), "udccp-sim: %s over %s", spec,
           sim_fmt_rate(rate, sizeof(rate), link));
  text(out, W / 2.0, 26, "middle", "font-size=\"17\" font-weight=\"bold\"",
       buf);
  snprintf(buf, sizeof(buf),
           "one-way delay %.6g ms, queue %u packets, random loss %.4g, "
           "seed %llu, %.6g s measured: goodput per 1-s interval",
           (double)cfg->delay / 1e6, res->queue_pkts, cfg->loss,
           (unsigned long long)cfg->seed, res->sim_time_s);
  text(out, W / 2.0, 48, "middle", "fill=\"#444\"", buf);

  /* grid and ticks */
  for (int i = 0;; i++) {
    double v = ystep * i;
    if (v > ytop + ystep * 1e-6) {
      break;
    }
    double y = PY1 - v * yr;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"#e0e0e0\"/>\n", PX0, y, PX1, y);
    snprintf(buf, sizeof(buf), "%.*f", step_decimals(ystep), v);
    text(out, PX0 - 8, y + 4, "end", "", buf);
  }
  for (int i = 0;; i++) {
    double v = xstep * i;
    if (v > dur + xstep * 1e-6) {
      break;
    }
    double x = PX0 + v * xr;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"#e0e0e0\"/>\n", x, PY0, x, PY1);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"black\"/>\n", x, PY1, x, PY1 + 5);
    snprintf(buf, sizeof(buf), "%.*f", step_decimals(xstep), v);
    text(out, x, PY1 + 20, "middle", "", buf);
  }
  /* axes and their labels */
  fprintf(out, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
               "fill=\"none\" stroke=\"black\"/>\n",
          PX0, PY0, PX0, PY1, PX1, PY1);
  text(out, (PX0 + PX1) / 2, PY1 + 45, "middle", "", "time (s)");
  snprintf(buf, sizeof(buf), "goodput (%s)", uname);
  fprintf(out, "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 22 %.1f)\">", (PY0 + PY1) / 2,
          (PY0 + PY1) / 2);
  xml_text(out, buf);
  fputs("</text>\n", out);

  if (show_link) {
    double y = PY1 - link / unit * yr;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n",
            PX0, y, PX1, y);
    snprintf(buf, sizeof(buf), "bottleneck %s", rate);
    text(out, PX1 - 4, y + 15, "end", "fill=\"#555\"", buf);
  }

  /* the flows, each sample at the middle of its second */
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    if (r->n_series == 0) {
      continue;
    }
    size_t round = (i / N_COLORS) % 3;
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\""
                 "%s%s%s points=\"",
            palette[i % N_COLORS], round ? " stroke-dasharray=\"" : "",
            dashes[round], round ? "\"" : "");
    for (size_t k = 0; k < r->n_series; k++) {
      double t = ((double)k + 0.5) > dur ? dur : (double)k + 0.5;
      fprintf(out, "%s%.1f,%.1f", k ? " " : "", PX0 + t * xr,
              PY1 - r->rate_series[k] / unit * yr);
    }
    fputs("\"/>\n", out);
  }
  if (res->n_flows > 0 && res->flows[0].n_series == 0) {
    text(out, (PX0 + PX1) / 2, (PY0 + PY1) / 2, "middle", "",
         "no whole second measured: use a --duration of 1 s or more");
  }

  /* legend */
  double lx = PX1 + 20, ly = PY0 + 4;
  text(out, lx, ly, "start", "font-weight=\"bold\"", "flow, mean goodput");
  size_t max_rows = (size_t)((PY1 - PY0) / LEGEND_LINE) - 2;
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    double y = ly + LEGEND_LINE * (double)(i + 1);
    if (i == max_rows && res->n_flows > max_rows + 1) {
      snprintf(buf, sizeof(buf), "... and %zu more flows",
               res->n_flows - max_rows);
      text(out, lx, y + 4, "start", "", buf);
      break;
    }
    size_t round = (i / N_COLORS) % 3;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"%s\" stroke-width=\"3\"%s%s%s/>\n",
            lx, y, lx + 24, y, palette[i % N_COLORS],
            round ? " stroke-dasharray=\"" : "", dashes[round],
            round ? "\"" : "");
    snprintf(buf, sizeof(buf), "%zu %s  %s", i, r->kind,
             sim_fmt_rate(rate, sizeof(rate), r->goodput_bps));
    text(out, lx + 30, y + 4, "start", "", buf);
  }
  fputs("</svg>\n", out);
  return ferror(out) ? -1 : 0;
}
