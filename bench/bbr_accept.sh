#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 17 acceptance runs for the BBR CCID, too long for make check
# (minutes; use a release build): 1 Gbit/s x 100 ms RTT with a one-BDP
# queue, BBR CCID alone (utilization >= 0.9 and p95 queueing delay <=
# 0.25 x base RTT wanted); BBR CCID vs the simulator's BBR-like TCP over 4
# seeds (goodput ratio in [0.7, 1.4] wanted); a 2 Mbit/s media flow (BBR,
# CCID 2, CCID 3) beside a bulk TCP (Reno, CUBIC, BBR-like) on 10 Mbit/s x
# 40 ms, its one-way and write-to-read delay percentiles printed.  Exits 1
# if an item is not met.  doc/bbr.md has the last results.
#
#   sh bench/bbr_accept.sh BUILD_DIR [DURATION_FAIR]
set -u
BUILD=${1:?usage: bbr_accept.sh BUILD_DIR [DURATION_FAIR]}
DUR=${2:-60s}
SIM=$BUILD/udccp-sim
[ -x "$SIM" ] || { echo "FAIL: $SIM not built" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 needed" >&2; exit 1; }
ok=0
summ() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["flows"]
r = f[0]["goodput_bps"] / f[1]["goodput_bps"] if len(f) > 1 and f[1]["goodput_bps"] > 0 else 0
print("%s utilization %.4f (link %.4f) ratio %.3f q95 %.1f %s wall %.0f s" % (sys.argv[1], d["utilization"], d["link_utilization"], r,
      f[0]["owd_p95_ms"] - f[0]["owd_min_ms"],
      " ".join("%s=%.2fMbit/s,loss=%.4f,owd=%.1f/%.1f/%.1fms%s" % (x["kind"], x["goodput_bps"] / 1e6,
               x["loss_rate"], x["owd_p50_ms"], x["owd_p95_ms"], x["owd_p99_ms"],
               ",write-to-read=%.1f/%.1f/%.1fms" % (x["app_delay_p50_ms"], x["app_delay_p95_ms"],
               x["app_delay_p99_ms"]) if "app_delay_p95_ms" in x else "") for x in f),
      d["wall_time_s"]))' "$1"
}
line=$("$SIM" --flows bbr --rate 1gbit --delay 50ms --duration 30s --seed 1 --json | summ "1gbit-100ms-30s bbr")
echo "$line"
u=$(echo "$line" | sed -n 's/.*utilization \([0-9.]*\).*/\1/p')
q=$(echo "$line" | sed -n 's/.* q95 \([0-9.]*\).*/\1/p')
if awk -v u="$u" 'BEGIN { exit !(u >= 0.9) }'; then echo "ok: utilization $u >= 0.9"
else echo "NOT MET: utilization $u < 0.9"; ok=1; fi
if awk -v q="$q" 'BEGIN { exit !(q <= 25) }'; then echo "ok: p95 queueing $q ms <= 25 ms"
else echo "NOT MET: p95 queueing $q ms > 25 ms"; ok=1; fi
for path in "100mbit 20ms 90s" "1gbit 50ms $DUR"; do
  set -- $path
  for seed in 1 2 3 4; do
    line=$("$SIM" --flows bbr,tcp-bbr --rate "$1" --delay "$2" --duration "$3" \
             --seed $seed --json | summ "$1-$2-$3 seed $seed")
    echo "$line"
    r=$(echo "$line" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')
    if awk -v r="$r" 'BEGIN { exit !(r >= 0.7 && r <= 1.4) }'; then echo "ok: ratio $r"
    else echo "NOT MET: ratio $r outside [0.7, 1.4]"; ok=1; fi
  done
done
# the media table twice: the default one-BDP queue (33 packets, 40 ms) and
# half of it (17 packets, 20 ms); the one-way delays say which queue is met
for q in 33 17; do
  for bulk in tcp tcp-cubic tcp-bbr; do
    for media in bbr ccid2 ccid3; do
      "$SIM" --flows "$media:app=2mbit,$bulk" --rate 10mbit --delay 20ms --queue $q \
        --duration 60s --seed 1 --json | summ "media $media + $bulk, queue $q"
    done
  done
done
exit $ok
