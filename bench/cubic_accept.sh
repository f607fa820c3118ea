#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 17 acceptance runs for the CUBIC CCID, too long for make check
# (minutes; use a release build): 1 Gbit/s x 100 ms RTT with a one-BDP
# queue, CUBIC CCID alone (utilization >= 0.9 wanted), and CUBIC CCID vs
# the simulator's CUBIC TCP over 4 seeds (goodput ratio in [0.7, 1.4]
# wanted).  Prints one line per run and a verdict per item; exits 1 if an
# item is not met.  doc/cubic.md has the last results.
#
#   sh bench/cubic_accept.sh BUILD_DIR [DURATION_FAIR]
set -u
BUILD=${1:?usage: cubic_accept.sh BUILD_DIR [DURATION_FAIR]}
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
r = f[0]["goodput_bps"] / f[1]["goodput_bps"] if len(f) > 1 else 0
print("%s utilization %.4f ratio %.3f %s wall %.0f s" % (sys.argv[1], d["utilization"], r,
      " ".join("%s=%.1fMbit/s,loss=%.4f,rtt=%.0fms" % (x["kind"], x["goodput_bps"] / 1e6,
               x["loss_rate"], x["rtt_ms"]) for x in f), d["wall_time_s"]))' "$1"
}
line=$("$SIM" --flows cubic --rate 1gbit --delay 50ms --duration 30s --seed 1 --json | summ "1gbit-100ms-30s cubic")
echo "$line"
u=$(echo "$line" | sed -n 's/.*utilization \([0-9.]*\).*/\1/p')
if awk -v u="$u" 'BEGIN { exit !(u >= 0.9) }'; then echo "ok: utilization $u >= 0.9"
else echo "NOT MET: utilization $u < 0.9"; ok=1; fi
for path in "100mbit 20ms 90s" "1gbit 50ms $DUR"; do
  set -- $path
  for seed in 1 2 3 4; do
    line=$("$SIM" --flows cubic,tcp-cubic --rate "$1" --delay "$2" --duration "$3" \
             --seed $seed --json | summ "$1-$2-$3 seed $seed")
    echo "$line"
    r=$(echo "$line" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')
    if awk -v r="$r" 'BEGIN { exit !(r >= 0.7 && r <= 1.4) }'; then echo "ok: ratio $r"
    else echo "NOT MET: ratio $r outside [0.7, 1.4]"; ok=1; fi
  done
done
exit $ok
