#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The operating envelope of CCID 2 and CCID 3 (issue 11 §1), in udccp-sim.

Every cell is one udccp run and one run of the simulator's TCP (SACK) in the
same scenario (rate, one-way delay, drop-tail queue, random loss, seed), as
separate runs.  A cell passes when:
  - loss-free: utilization >= 0.8 x TCP's;
  - lossy: goodput within [0.5, 2] x TCP's;
  - no 5-second interval after the first 10 s with zero goodput (whole
    seconds of the --csv samples);
  - the connection closes cleanly (both ends).
The rules are the issue's; this script only measures.

Recovery scenarios (--recovery): a slow-start overshoot, Gilbert-Elliott
bursts and blackouts shorter and longer than the Sequence Window; see
RECOVERY below for each rule.

usage: envelope.py --sim BUILD/udccp-sim [--set full|check] [--jobs N]
                   [--md doc/envelope.md] [--svg doc/envelope.svg]
Exit status 0 if every cell and scenario passed, 1 otherwise, 2 on usage.
"""
import argparse
import concurrent.futures as cf
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time

RATES = [1e6, 10e6, 100e6, 1e9, 10e9]
DELAYS_MS = [0.5, 5, 25, 100]
QUEUES_BDP = [0.25, 1, 2]
LOSSES = [0.0, 0.01]
CCIDS = [2, 3]
SEED = 1
# The stationary Gilbert-Elliott scenario is judged over this many seeds
# (SEED, SEED + 1, ...): its bursts are a random process, and one 15-s
# sample of it holds about a dozen, so a single seed is a draw, not the
# scenario (doc/perf.md: over 12 seeds, CCID 2 and TCP alike swing 2-4x).
# The rule compares the sums over the same seeds, i.e. one longer run.
GE_SEEDS = 4

# The make-check subset: cells that passed on main when it was chosen (see
# doc/envelope.md); small rates so that the set runs in < 3 min under ASan.
CHECK_CELLS = [
    (2, 10e6, 5, 1, 0.0), (2, 10e6, 5, 1, 0.01), (2, 10e6, 25, 2, 0.0),
    (2, 1e6, 25, 1, 0.01),
    (3, 10e6, 5, 1, 0.0), (3, 10e6, 5, 1, 0.01), (3, 10e6, 25, 2, 0.0),
    (3, 1e6, 25, 1, 0.01),
]


def fmt_rate(bps):
    if bps >= 1e9:
        return "%g Gbit/s" % (bps / 1e9)
    if bps >= 1e6:
        return "%g Mbit/s" % (bps / 1e6)
    return "%g kbit/s" % (bps / 1e3)


def rate_arg(bps):
    return "%dkbit" % int(bps / 1e3)


def bdp_pkts(rate, delay_ms):
    # as sim_bdp_pkts(): rate x RTT in 1500-byte packets, rounded up
    return max(2, math.ceil(rate * 2 * delay_ms / 1e3 / (8 * 1500)))


def queue_pkts(rate, delay_ms, qf):
    return max(4, int(round(qf * bdp_pkts(rate, delay_ms))))


def duration_s(rate):
    return 20 if rate >= 10e9 else 60


def run_sim(sim, flows, rate, delay_ms, queue, loss, dur, extra=(),
            timeout=3600, seed=SEED):
    """One udccp-sim run: returns dict(json=..., series=[bps per s],
    cwnd=[...], err=str)."""
    with tempfile.TemporaryDirectory() as tmp:
        csvp = os.path.join(tmp, "s.csv")
        cmd = [sim, "--flows", flows, "--rate", rate_arg(rate), "--delay",
               "%gms" % delay_ms, "--queue", str(queue), "--loss", repr(loss),
               "--duration", "%ds" % dur, "--seed", str(seed), "--json",
               "--csv", csvp] + list(extra)
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"err": "timeout after %d s wall" % timeout, "cmd": cmd}
        wall = time.time() - t0
        out = {"cmd": cmd, "wall": wall, "err": ""}
        try:
            out["json"] = json.loads(p.stdout)
        except ValueError:
            out["err"] = "udccp-sim failed (%d): %s" % (p.returncode,
                                                        p.stderr.strip()[:200])
            return out
        if p.returncode != 0:
            out["err"] = p.stderr.strip()[:200]
        series, cwnd = [], []
        with open(csvp) as f:
            for row in csv.DictReader(f):
                if row["flow"] == "0":
                    series.append(float(row["goodput_bps"]))
                    cwnd.append(int(row["cwnd"]))
        out["series"] = series
        out["cwnd"] = cwnd
        return out


def stall_at(series, after=10, span=5):
    """First second s >= after starting `span` whole seconds of zero
    goodput, or None.  series[k] is the second [k, k+1)."""
    run = 0
    for k in range(after, len(series)):
        run = run + 1 if series[k] == 0 else 0
        if run >= span:
            return k - span + 1
    return None


def cwnd1_at(cwnd, after=1, span=5):
    run = 0
    for k in range(after, len(cwnd)):
        run = run + 1 if 0 < cwnd[k] <= 1 else 0
        if run >= span:
            return k - span + 1
    return None


# ------------------------------------------------------------------ cells

def cells(which):
    if which == "check":
        return list(CHECK_CELLS)
    out = []
    for ccid in CCIDS:
        for rate in RATES:
            for d in DELAYS_MS:
                for q in QUEUES_BDP:
                    for loss in LOSSES:
                        out.append((ccid, rate, d, q, loss))
    return out


def judge(cell, u, t):
    ccid, rate, d, q, loss = cell
    reasons = []
    if u.get("err"):
        return "FAIL", "ccid run: " + u["err"]
    if t.get("err"):
        return "FAIL", "tcp run: " + t["err"]
    uf, tf = u["json"]["flows"][0], t["json"]["flows"][0]
    ug, tg = uf["goodput_bps"], tf["goodput_bps"]
    ratio = ug / tg if tg > 0 else float("inf")
    if loss == 0:
        if u["json"]["utilization"] < 0.8 * t["json"]["utilization"]:
            reasons.append("utilization %.3f < 0.8 x TCP's %.3f" %
                           (u["json"]["utilization"],
                            t["json"]["utilization"]))
    elif not 0.5 <= ratio <= 2.0:
        reasons.append("goodput %.2f x TCP's, outside [0.5, 2]" % ratio)
    s = stall_at(u["series"])
    if s is not None:
        reasons.append("zero goodput for 5 s from %d s" % s)
    if not uf.get("closed_cleanly"):
        reasons.append("not closed cleanly (%s)" % uf.get("close", "?"))
    return ("FAIL" if reasons else "PASS"), "; ".join(reasons)


# -------------------------------------------------------------- recovery

# Each scenario: (name, ccid, rate, delay_ms, queue_bdp, extra args,
# event_end_s, event_len_s, duration).  Rule: the whole second that starts
# at or after the deadline has goodput >= 50 % of the link, no 5 s of zero
# goodput after it, CCID 2 never at cwnd 1 for 5 s after it, clean close.
#   CCID 2: deadline = end + 5 RTT + 1 RTO; after a blackout of B s the RTO
#     in force has doubled from 1 s with every expiry, and the next probe
#     comes at most B + 1 s after the end, so 1 RTO = B + 1 s (1 s for
#     the overshoot and bursts);
#   CCID 3: the TFRC no-feedback rules (RFC 5348 §4.4): X halves each
#     no-feedback period, so the inter-packet interval when the link comes
#     back is at most min(B, t_mbi = 64 s); then slow start doubles per RTT
#     (§4.3): deadline = end + min(B, 64) + (log2(BDP) + 5) RTT + 1 s.
RECOVERY = []
for _ccid in CCIDS:
    RECOVERY += [
        ("slow-start overshoot, queue 0.25 BDP", _ccid, 100e6, 25, 0.25, [],
         2.0, 0.0, 20),
        ("Gilbert-Elliott bursts (20 pkts mean, P(g->b) 1e-4)", _ccid, 100e6, 25,
         1, ["--burst-loss", "0.0001,0.05,1"], None, 0.0, 20),
        ("blackout 0.5 s (< Sequence Window: 1000 pkts = 1.2 s)", _ccid,
         10e6, 10, 1, ["--blackout", "10s+0.5s"], 10.5, 0.5, 30),
        ("blackout 5 s (> Sequence Window)", _ccid, 10e6, 10, 1,
         ["--blackout", "10s+5s"], 15.0, 5.0, 40),
        ("blackout 30 s (> Sequence Window)", _ccid, 10e6, 10, 1,
         ["--blackout", "10s+30s"], 40.0, 30.0, 120),
    ]


# The make-check recovery subset: scenarios that passed on main when chosen.
CHECK_RECOVERY = [(2, "slow-start"), (2, "Gilbert"), (2, "blackout 0.5"),
                  (2, "blackout 5 "), (2, "blackout 30"), (3, "slow-start"),
                  (3, "Gilbert"), (3, "blackout 0.5"), (3, "blackout 5 ")]


def recovery_set(which):
    if which == "full":
        return list(RECOVERY)
    return [sc for sc in RECOVERY
            if any(sc[1] == c and sc[0].startswith(n)
                   for c, n in CHECK_RECOVERY)]


def recovery_deadline(sc, rtt):
    name, ccid, rate, d, q, extra, end, blen, dur = sc
    if ccid == 2:
        return end + 5 * rtt + (blen + 1.0)
    bdp = bdp_pkts(rate, d)
    return end + min(blen, 64.0) + (math.log2(bdp) + 5) * rtt + 1.0


def from5(series):
    return sum(series[5:]) / max(1, len(series) - 5)


def judge_recovery(sc, us, ts):
    """us: the udccp runs (one, or GE_SEEDS for the stationary bursts);
    ts: TCP's runs on the same seeds, or None."""
    name, ccid, rate, d, q, extra, end, blen, dur = sc
    for u in us:
        if u.get("err"):
            return "FAIL", u["err"], None
    for t in ts or []:
        if t.get("err"):
            return "FAIL", "tcp run: " + t["err"], None
    rtt = 2 * d / 1e3
    reasons = []
    if end is None:
        # Stationary bursts (both directions, state per packet) keep even
        # TCP well below the link, so 50 % of the link cannot be the rule
        # here: from 5 s on, goodput >= 0.5 x TCP's in the same scenario,
        # summed over the GE_SEEDS seeds.
        mine = [from5(u["series"]) for u in us]
        ref = [from5(t["series"]) for t in ts]
        info = ("goodput from 5 s, mean of seeds %d..%d, %.2f Mbit/s "
                "(%s) %s 0.5 x TCP's %.2f Mbit/s (%s)" % (
                    SEED, SEED + len(us) - 1, sum(mine) / len(mine) / 1e6,
                    " ".join("%.2f" % (m / 1e6) for m in mine),
                    "<" if sum(mine) < 0.5 * sum(ref) else ">=",
                    sum(ref) / len(ref) / 1e6,
                    " ".join("%.2f" % (r / 1e6) for r in ref)))
        if sum(mine) < 0.5 * sum(ref):
            reasons.append(info)
        deadline = 5
    else:
        series = us[0]["series"]
        deadline = recovery_deadline(sc, rtt)
        k = math.ceil(deadline)
        if k >= len(series):
            reasons.append("deadline %.2f s after the run" % deadline)
        elif series[k] < 0.5 * rate:
            first = next((j for j in range(int(end), len(series))
                          if series[j] >= 0.5 * rate), None)
            reasons.append("second %d: %.2f Mbit/s < 50 %% of the link "
                           "(deadline %.2f s; first >= 50 %%: %s)" %
                           (k, series[k] / 1e6, deadline,
                            "%d s" % first if first is not None else "never"))
        deadline = k
    for i, u in enumerate(us):
        tag = " (seed %d)" % (SEED + i) if len(us) > 1 else ""
        reasons += [r + tag for r in run_reasons(u, ccid, deadline)]
    if not reasons and end is None:
        return "PASS", info, deadline  # the figures compared
    return ("FAIL" if reasons else "PASS"), "; ".join(reasons), deadline


def run_reasons(u, ccid, deadline):
    """The rules every run of a recovery scenario keeps after its
    deadline: no stall, (CCID 2) no cwnd stuck at 1, a clean close."""
    reasons = []
    uf = u["json"]["flows"][0]
    s = stall_at(u["series"], after=int(deadline))
    if s is not None:
        reasons.append("zero goodput for 5 s from %d s" % s)
    if ccid == 2:
        c1 = cwnd1_at(u["cwnd"], after=int(deadline))
        if c1 is not None:
            reasons.append("cwnd 1 for 5 s from %d s" % c1)
    if not uf.get("closed_cleanly"):
        reasons.append("not closed cleanly (%s)" % uf.get("close", "?"))
    return reasons


# ------------------------------------------------------------------ output

def svg_plot(results, path):
    """Heat map: per CCID a grid, rows rate x delay, columns queue x loss;
    colour = goodput relative to TCP's (log scale), red frame = FAIL."""
    cw, ch, x0, y0 = 62, 18, 150, 70
    ncol = len(QUEUES_BDP) * len(LOSSES)
    nrow = len(RATES) * len(DELAYS_MS)
    panel_w = ncol * cw + 40
    W = x0 + len(CCIDS) * panel_w + 20
    H = y0 + nrow * ch + 90
    o = io.StringIO()
    o.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    o.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">\n'
            % (W, H, W, H))
    o.write('<rect width="100%" height="100%" fill="white"/>\n')
    o.write('<text x="%d" y="24" font-size="16">udccp envelope: goodput '
            'relative to the simulator\'s TCP (SACK), same scenario</text>\n'
            % x0)
    o.write('<text x="%d" y="42">colour: ratio (red &lt; 1 &lt; green); '
            'red frame: cell FAILS a rule; grey: not run</text>\n' % x0)

    def colour(r):
        if r is None:
            return "#dddddd"
        v = max(-1.0, min(1.0, math.log2(max(r, 1e-3))))  # -1 .. 1
        if v < 0:  # towards blue-ish red at 0.5x
            a = -v
            return "#%02x%02x%02x" % (int(255 - 40 * a), int(255 - 200 * a),
                                      int(255 - 200 * a))
        return "#%02x%02x%02x" % (int(255 - 200 * v), 255,
                                  int(255 - 200 * v))

    for pi, ccid in enumerate(CCIDS):
        px = x0 + pi * panel_w
        o.write('<text x="%d" y="%d" font-size="13">CCID %d</text>\n' %
                (px, y0 - 10, ccid))
        for qi, q in enumerate(QUEUES_BDP):
            for li, loss in enumerate(LOSSES):
                c = qi * len(LOSSES) + li
                o.write('<text x="%d" y="%d" font-size="9">q %gB %s</text>\n'
                        % (px + c * cw + 2, y0 + nrow * ch + 14, q,
                           "1%" if loss else "0%"))
        for ri, rate in enumerate(RATES):
            for di, d in enumerate(DELAYS_MS):
                r = ri * len(DELAYS_MS) + di
                if pi == 0:
                    o.write('<text x="10" y="%d">%s, %g ms</text>\n' %
                            (y0 + r * ch + 13, fmt_rate(rate), d))
                for qi, q in enumerate(QUEUES_BDP):
                    for li, loss in enumerate(LOSSES):
                        c = qi * len(LOSSES) + li
                        res = results.get((ccid, rate, d, q, loss))
                        ratio = res["ratio"] if res else None
                        fail = res and res["verdict"] == "FAIL"
                        o.write('<rect x="%d" y="%d" width="%d" height="%d" '
                                'fill="%s" stroke="%s" stroke-width="%s"/>\n'
                                % (px + c * cw, y0 + r * ch, cw - 2, ch - 2,
                                   colour(ratio),
                                   "#d62728" if fail else "#888888",
                                   "2" if fail else "0.5"))
                        if ratio is not None:
                            o.write('<text x="%d" y="%d" font-size="9">%.2f'
                                    '</text>\n' % (px + c * cw + 4,
                                                   y0 + r * ch + 12, ratio))
    o.write('<text x="%d" y="%d">columns: drop-tail queue (BDP) and random '
            'loss; rows: rate and one-way delay</text>\n' %
            (x0, y0 + nrow * ch + 40))
    o.write('</svg>\n')
    with open(path, "w") as f:
        f.write(o.getvalue())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--set", choices=["full", "check"], default="full")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--recovery", action="store_true")
    ap.add_argument("--no-cells", action="store_true")
    ap.add_argument("--md")
    ap.add_argument("--svg")
    ap.add_argument("--rates", help="comma list of bit/s, e.g. 1e6,10e6")
    ap.add_argument("--ccids", help="comma list of CCIDs, e.g. 3")
    ap.add_argument("--timeout", type=int, default=3600)
    a = ap.parse_args()
    if a.jobs < 1 or a.jobs > 2:
        print("envelope: --jobs must be 1 or 2 (the machine is shared)",
              file=sys.stderr)
        return 2
    if not os.access(a.sim, os.X_OK):
        print("envelope: %s is not an executable udccp-sim" % a.sim,
              file=sys.stderr)
        return 2
    todo = [] if a.no_cells else cells(a.set)
    if a.rates:
        keep = [float(x) for x in a.rates.split(",")]
        todo = [c for c in todo if c[1] in keep]
    if a.ccids:
        keep = [int(x) for x in a.ccids.split(",")]
        todo = [c for c in todo if c[0] in keep]
    # the TCP reference, once per scenario
    scen = sorted({c[1:] for c in todo})
    t_start = time.time()
    jobs = {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        # longest first, so that two workers end together
        def cost(c):
            return c[1] * duration_s(c[1])
        for s in sorted(scen, key=lambda s: -cost((0,) + s)):
            rate, d, q, loss = s
            jobs[("tcp",) + s] = ex.submit(
                run_sim, a.sim, "tcp", rate, d, queue_pkts(rate, d, q), loss,
                duration_s(rate), (), a.timeout)
        for c in sorted(todo, key=lambda c: -cost(c)):
            ccid, rate, d, q, loss = c
            jobs[c] = ex.submit(run_sim, a.sim, "ccid%d" % ccid, rate, d,
                                queue_pkts(rate, d, q), loss,
                                duration_s(rate), (), a.timeout)
        rec = []
        if a.recovery:
            for sc in recovery_set(a.set):
                name, ccid, rate, d, q, extra, end, blen, dur = sc
                # Stationary bursts: GE_SEEDS seeds each, udccp and TCP.
                seeds = [SEED + i for i in
                         range(GE_SEEDS if end is None else 1)]
                rec.append((sc, [ex.submit(
                    run_sim, a.sim, "ccid%d" % ccid, rate, d,
                    queue_pkts(rate, d, q), 0.0, dur, extra, a.timeout,
                    sd) for sd in seeds],
                    [ex.submit(run_sim, a.sim, "tcp", rate, d,
                               queue_pkts(rate, d, q), 0.0, dur, extra,
                               a.timeout, sd) for sd in seeds]
                    if end is None else None))
    results = {}
    hdr = "%-5s %-11s %6s %6s %6s %5s %14s %14s %6s %s" % (
        "ccid", "rate", "delay", "queue", "pkts", "loss", "goodput",
        "tcp goodput", "ratio", "verdict")
    lines = [hdr] if todo else []
    npass = {c: 0 for c in CCIDS}
    ntot = {c: 0 for c in CCIDS}
    for c in sorted(todo):
        ccid, rate, d, q, loss = c
        u = jobs[c].result()
        t = jobs[("tcp", rate, d, q, loss)].result()
        verdict, why = judge(c, u, t)
        ug = u["json"]["flows"][0]["goodput_bps"] if "json" in u else 0
        tg = t["json"]["flows"][0]["goodput_bps"] if "json" in t else 0
        ratio = ug / tg if tg > 0 else None
        results[c] = {"verdict": verdict, "why": why, "ratio": ratio,
                      "ug": ug, "tg": tg}
        ntot[ccid] += 1
        npass[ccid] += verdict == "PASS"
        lines.append("%-5d %-11s %4gms %5gB %6d %4g%% %14s %14s %6s %s%s" % (
            ccid, fmt_rate(rate), d, q, queue_pkts(rate, d, q), loss * 100,
            "%.3f Mbit/s" % (ug / 1e6), "%.3f Mbit/s" % (tg / 1e6),
            "%.2f" % ratio if ratio is not None else "-", verdict,
            ": " + why if why else ""))
    rlines = []
    rpass = 0
    for sc, futs, tfuts in rec:
        verdict, why, dl = judge_recovery(
            sc, [f.result() for f in futs],
            [f.result() for f in tfuts] if tfuts is not None else None)
        rpass += verdict == "PASS"
        rlines.append("CCID %d, %s (%s, %g ms): %s%s" % (
            sc[1], sc[0], fmt_rate(sc[2]), sc[3], verdict,
            ": " + why if why else ""))
    wall = time.time() - t_start
    out = "\n".join(lines) + "\n"
    if todo:
        out += "summary: " + ", ".join(
            "CCID %d %d/%d cells pass" % (c, npass[c], ntot[c])
            for c in CCIDS if ntot[c]) + "\n"
    if rec:
        out += "recovery:\n" + "\n".join("  " + x for x in rlines) + "\n"
        out += "recovery: %d/%d scenarios pass\n" % (rpass, len(rec))
    out += "wall time %.0f s, %d parallel runs\n" % (wall, a.jobs)
    sys.stdout.write(out)
    if a.svg:
        svg_plot(results, a.svg)
    if a.md:
        write_md(a, results, lines, rlines, npass, ntot, rpass, len(rec),
                 wall)
    ok = all(r["verdict"] == "PASS" for r in results.values()) and \
        rpass == len(rec)
    return 0 if ok else 1


def write_md(a, results, lines, rlines, npass, ntot, rpass, nrec, wall):
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    with open(a.md, "w") as f:
        f.write("# The operating envelope (issue 11 §1)\n\n")
        f.write("Written by `make envelope` (`tests/envelope.py`), commit %s, "
                "%s; %.0f s wall with %d parallel runs.\n\n" %
                (commit, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 wall, a.jobs))
        f.write("Each cell: one udccp-sim run of the CCID and one of the "
                "simulator's TCP (SACK) in the same scenario (seed %d), "
                "60 s measured (10 Gbit/s: 20 s).  Rules: utilization >= 0.8 "
                "x TCP's (loss-free), goodput within [0.5, 2] x TCP's (1 %% "
                "loss), no 5 s of zero goodput after the first 10 s, clean "
                "close.  Queue = max(4, factor x BDP of 1500-byte "
                "packets).\n\n" % SEED)
        if a.svg:
            f.write("![goodput relative to TCP per cell](%s)\n\n" %
                    os.path.basename(a.svg))
        f.write("## Summary\n\n")
        for c in CCIDS:
            if ntot[c]:
                f.write("- CCID %d: %d of %d cells pass\n" %
                        (c, npass[c], ntot[c]))
        if nrec:
            f.write("- recovery: %d of %d scenarios pass\n" % (rpass, nrec))
        f.write("\n## Known failures\n\n")
        fails = [(c, r) for c, r in sorted(results.items())
                 if r["verdict"] == "FAIL"]
        if not fails:
            f.write("None.\n")
        for c, r in fails:
            f.write("- CCID %d, %s, %g ms, queue %g BDP, loss %g %%: %s\n" %
                    (c[0], fmt_rate(c[1]), c[2], c[3], c[4] * 100, r["why"]))
        f.write("\n## Cells\n\n```\n" + "\n".join(lines) + "\n```\n")
        if rlines:
            f.write("\n## Recovery\n\n"
                    "Rules (see RECOVERY in tests/envelope.py): the whole "
                    "second starting at or after the deadline carries >= "
                    "50 % of the link; CCID 2: deadline = end + 5 RTT + 1 "
                    "RTO (after a blackout of B s: B + 1 s, the backed-off "
                    "RTO); CCID 3: end + min(B, 64 s) + (log2 BDP + 5) RTT "
                    "+ 1 s (TFRC no-feedback halving, then slow start); "
                    "Gilbert-Elliott bursts: goodput from 5 s >= 0.5 x TCP's "
                    "in the same scenario, summed over seeds " +
                    "%d..%d" % (SEED, SEED + GE_SEEDS - 1) +
                    "; no 5 s of zero goodput and (CCID 2) no 5 s at cwnd 1 "
                    "after it; clean close.\n\n```\n" + "\n".join(rlines) +
                    "\n```\n")


if __name__ == "__main__":
    sys.exit(main())
