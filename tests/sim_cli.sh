#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-sim's command line (DESIGN.md §4): --help lists every option,
# errors name the problem and the fix and exit non-zero, --json carries the
# contract fields, and the same seed gives the same JSON (but wall time).
#   sh tests/sim_cli.sh BUILD_DIR [SOURCE_DIR]
set -u
BUILD=${1:?usage: sim_cli.sh BUILD_DIR [SOURCE_DIR]}
SIM="$BUILD/udccp-sim"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$SIM" ] || fail "$SIM not built"
TMP=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT INT TERM

"$SIM" --help >"$TMP/help" || fail "--help exited non-zero"
for o in --flows --rate --delay --queue --loss --duration --seed --json \
  --csv --pcap --plot --length --burst-loss --reorder --dup --progress \
  --help --version ccid2 tcp "default 30s" "default 1"; do
  grep -q -- "$o" "$TMP/help" || fail "--help does not mention $o"
done
"$SIM" --version | grep -q "udccp" || fail "--version"

# expect_error MESSAGE_PART ARGS...: non-zero exit, message on stderr
expect_error() {
  want=$1
  shift
  if "$SIM" "$@" >"$TMP/out" 2>"$TMP/err"; then
    fail "'$*' succeeded"
  fi
  grep -q -- "$want" "$TMP/err" ||
    fail "'$*': stderr lacks '$want': $(cat "$TMP/err")"
  echo "ok: $* -> $(head -1 "$TMP/err")"
}
BASE="--rate 10mbit --delay 10ms --duration 1s"
expect_error "unknown flow kind 'ccid9'" --flows ccid9 $BASE
expect_error "has no unit" --flows tcp --rate 50 --delay 10ms
expect_error "has no unit: write a rate from 1kbit" --flows tcp --rate 0 --delay 10ms
expect_error "use bit, kbit, mbit or gbit" --flows tcp --rate 50mbps --delay 10ms
expect_error "has no unit" --flows tcp --rate 10mbit --delay 20
expect_error "cannot create --plot file" --flows tcp $BASE --plot /nonexistent/x.svg
expect_error "No such file or directory" --flows tcp $BASE --csv /nonexistent/x.csv
expect_error "cannot create --pcap file '/nonexistent/x.pcap' (No such" --flows tcp $BASE --pcap /nonexistent/x.pcap
expect_error "missing --flows" $BASE
expect_error "would drop everything" --flows tcp $BASE --loss 1
expect_error "probability" --flows tcp $BASE --loss 2
expect_error "packets" --flows tcp $BASE --queue -3
expect_error "--burst-loss" --flows tcp $BASE --burst-loss 0.1
expect_error "unexpected argument" --flows tcp $BASE extra
# which option a bad number belongs to
expect_error "(--chaos: number of runs)" --chaos 0
expect_error "(-l/--length: datagram payload bytes)" --flows tcp $BASE -l 0
expect_error "(--seed)" --flows tcp $BASE --seed abc

# JSON contract and determinism (tcp flows: no connection engine needed)
"$SIM" --flows tcp,tcp $BASE --loss 0.02 --seed 7 --json >"$TMP/a.json" ||
  fail "json run"
"$SIM" --flows tcp,tcp $BASE --loss 0.02 --seed 7 --json >"$TMP/b.json" ||
  fail "json run"
"$SIM" --flows tcp,tcp $BASE --loss 0.02 --seed 8 --json >"$TMP/c.json" ||
  fail "json run"
for k in flows ccid packet_size goodput_bps loss_rate rtt_ms sent_pkts \
  delivered_pkts rate_cov utilization jain_fairness sim_time_s wall_time_s; do
  grep -q "\"$k\"" "$TMP/a.json" || fail "JSON lacks $k"
done
grep -v wall_time_s "$TMP/a.json" >"$TMP/a2"
grep -v wall_time_s "$TMP/b.json" >"$TMP/b2"
grep -v wall_time_s "$TMP/c.json" >"$TMP/c2"
cmp -s "$TMP/a2" "$TMP/b2" || fail "same seed, different JSON"
cmp -s "$TMP/a2" "$TMP/c2" && fail "different seeds, same JSON"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/a.json" ||
    fail "--json output is not valid JSON"
fi
# several paths and a multipath flow (--paths, RFC 9897): per-path figures
expect_error "write RATE/DELAY" --flows mp-ccid2 --paths 8mbit --duration 1s
expect_error "unknown attribute 'lag'" --flows mp-ccid2 \
  --paths 8mbit/10ms:lag=1 --duration 1s
expect_error "unknown --mp-sched 'fast'" --flows mp-ccid2 \
  --paths 8mbit/10ms,2mbit/20ms --mp-sched fast
# single-path options were ignored with --paths (and --rate printed as the
# link's rate in the header)
expect_error "--rate does not go with --paths" --flows mp-ccid2 \
  --paths 4mbit/10ms --rate 50mbit --duration 1s
expect_error "--delay does not go with --paths" --flows ccid2 --delay 1ms \
  --paths 4mbit/10ms --duration 1s
expect_error "--loss does not go with --paths" --flows ccid2 --loss 0.1 \
  --paths 4mbit/10ms --duration 1s
expect_error "--blackout does not go with --paths" --flows ccid2 \
  --paths 4mbit/10ms --blackout 0s+1s --duration 1s
expect_error "--queue does not go with --paths" --flows ccid2 \
  --paths 4mbit/10ms --queue 5 --duration 1s
for o in --paths --mp-sched --mp-no-reorder mp-ccid2; do
  grep -q -- "$o" "$TMP/help" || fail "--help does not mention $o"
done
"$SIM" --flows mp-ccid2,ccid2 --paths \
  4mbit/10ms,2mbit/20ms:loss=1%:queue=20:blackout=1s+500ms --duration 3s \
  --json >"$TMP/mp.json" || fail "multipath json run"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$TMP/mp.json" <<'PY' || fail "multipath JSON: see above"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["paths"]
assert len(p) == 2 and p[1]["queue_pkts"] == 20 and p[1]["loss"] == 0.01, p
assert p[1]["blackout_losses"] > 0 and p[0]["blackout_losses"] == 0, p
mp = d["flows"][0]["multipath"]
assert mp["active"] and len(mp["paths"]) == 2, mp
assert all(x["tx_dgrams"] > 0 and x["goodput_bps"] > 0 for x in mp["paths"]), mp
assert abs(sum(x["share"] for x in mp["paths"]) - 1) < 1e-3, mp
assert "multipath" not in d["flows"][1], d["flows"][1]
PY
fi
"$SIM" --flows mp-ccid2 --paths 4mbit/10ms,2mbit/20ms --duration 2s \
  >"$TMP/mp.txt" || fail "multipath table run"
grep -q "^flow 0 path 1: .*share" "$TMP/mp.txt" || fail "no per-path line"
grep -q "^path 1: 2.00 Mbit/s, 20 ms" "$TMP/mp.txt" || fail "no path line"
"$SIM" --flows 2xtcp $BASE --csv "$TMP/s.csv" >/dev/null || fail "csv run"
[ "$(wc -l <"$TMP/s.csv")" -eq 3 ] || fail "csv: expected header + 2 rows"
# Numbers a person can read: a long delay in seconds, not "1e+08 ms".
# (that flow never establishes: exit 1, next test)
"$SIM" --flows ccid2 --rate 10mbit --delay 100000s --duration 1s \
  >"$TMP/long.txt" 2>/dev/null
[ $? = 1 ] || fail "long delay run: exit status not 1"
head -n 1 "$TMP/long.txt" | grep -q "100000 s one-way delay" ||
  fail "long delay: $(head -n 1 "$TMP/long.txt")"
# Utilization is over the capacity the link had: with --rate-change it is
# the time-weighted rate (over the last rate, a drop to 1kbit at 1 s gave
# 1449.984), and for 10 -> 20 Mbit/s at 5 s a full link reads about 0.9.
"$SIM" --flows ccid2 --rate 10mbit --delay 10ms --duration 3s \
  --rate-change 1s:1kbit --json >"$TMP/rc1.json" || fail "rate-change run"
"$SIM" --flows ccid2 --rate 10mbit --delay 10ms --duration 10s \
  --rate-change 5s:20mbit --json >"$TMP/rc2.json" || fail "rate-change run 2"
for f in rc1 rc2; do
  u=$(sed -n 's/.*"utilization": *\([-0-9.eE+]*\).*/\1/p' "$TMP/$f.json" | head -n 1)
  awk -v u="$u" -v f="$f" 'BEGIN { exit !(u != "" && u > (f == "rc2" ? 0.8 : 0.1) && u <= 1.0) }' ||
    fail "--rate-change ($f): utilization '$u' is not the share of the capacity"
done
# A run that measured nothing is no success (it exited 0): a flow that
# never established (a blackout over the whole run; every packet lost in
# a burst) prints its report, says so on stderr and exits 1; a flow that
# starts once --duration is over is a usage error before the run.
for how in "--blackout 0s+10s" "--burst-loss 1,0.001"; do
  for j in "" --json; do
    "$SIM" --flows tcp,ccid2 $BASE $how $j >"$TMP/ne.out" 2>"$TMP/ne.err"
    rc=$?
    [ $rc = 1 ] || fail "$how $j: every flow never established, exit $rc"
    grep -q "flow 1 (ccid2) never established its connection" "$TMP/ne.err" ||
      fail "$how $j: stderr: $(cat "$TMP/ne.err")"
    grep -q "flow 0 (tcp) never established" "$TMP/ne.err" ||
      fail "$how $j: stderr: $(cat "$TMP/ne.err")"
    if [ -n "$j" ]; then
      grep -q '"established": false' "$TMP/ne.out" || fail "$how: JSON"
    else
      grep -q "never established" "$TMP/ne.out" || fail "$how: table"
    fi
  done
done
echo "ok: never established -> exit 1: $(head -n 1 "$TMP/ne.err")"
"$SIM" --flows ccid2 --rate 10mbit --delay 10ms --duration 5s \
  --blackout 0s+200ms >/dev/null 2>"$TMP/ne.err" ||
  fail "a flow established after a short blackout: $(cat "$TMP/ne.err")"
expect_error "flow 1 (ccid2) starts at 5s, when the measured period is over" \
  --flows tcp,ccid2:start=5s $BASE
expect_error "starts at 1s, when the measured period is over" \
  --flows tcp:start=1s $BASE
expect_error "stops (stop=1s) before it starts (start=2s)" \
  --flows tcp:start=2s:stop=1s --rate 10mbit --delay 10ms --duration 5s
# Timed events past the measured period changed nothing measured and the
# run exited 0 as if they had been left out: a usage error that names the
# option, whichever comes first on the command line.
expect_error "--blackout 40s+2s starts at 40s, when the measured period is over (--duration 1s)" \
  --flows tcp --blackout 40s+2s $BASE
expect_error "--blackout 1s+2s starts at 1s" --flows tcp --blackout 1s+2s $BASE
expect_error "--rate-change at 40s comes when the measured period is over (--duration 1s)" \
  --flows tcp --rate-change 40s:5mbit --rate 10mbit --delay 10ms --duration 1s
expect_error "--rate-change at 5s comes when" --flows tcp --duration 5s \
  --rate-change 5s:5mbit --rate 10mbit --delay 10ms
expect_error "--paths: path 1's blackout=3s+1s starts at 3s" --flows mp-ccid2 \
  --paths 4mbit/10ms,2mbit/20ms:blackout=3s+1s --duration 2s
expect_error "--flows: flow 0 (tcp) stops at 5s (stop=)" \
  --flows tcp:stop=5s --rate 10mbit --delay 10ms --duration 5s
expect_error "--flows: flow 1 (tcp) stops at 9s" \
  --flows tcp,tcp:start=1s:stop=9s --rate 10mbit --delay 10ms --duration 5s
# no sign: a negative time is refused by the parser, with the option
expect_error "bad --blackout '-1s+2s'" --flows tcp --blackout -1s+2s $BASE
expect_error "bad --rate-change '-1s:5mbit'" --flows tcp $BASE \
  --rate-change -1s:5mbit
# the edges inside the period still run
"$SIM" --flows tcp:stop=900ms --rate 10mbit --delay 10ms --duration 1s \
  --blackout 500ms+10ms --blackout 999ms+5s --rate-change 0s:5mbit \
  --rate-change 999ms:1mbit >/dev/null || fail "events inside the period"
# Gilbert-Elliott with P + R > 1 (a chain that flips more often than it
# stays) lost nothing at all: pow() of a negative number at a fractional
# step count is NaN.  0.9,0.2,0.1: about 0.82 x 0.1 of the packets lost.
"$SIM" --flows tcp --rate 10mbit --delay 10ms --duration 5s \
  --burst-loss 0.9,0.2,0.1 --json >"$TMP/ge.json" || fail "burst-loss run"
lr=$(sed -n 's/.*"loss_rate": \([0-9.]*\).*/\1/p' "$TMP/ge.json" | head -n 1)
awk -v l="$lr" 'BEGIN { exit !(l > 0.05 && l < 0.12) }' ||
  fail "--burst-loss 0.9,0.2,0.1: loss rate '$lr', want 0.05..0.12"
echo "ok: --burst-loss 0.9,0.2,0.1 loses $lr"
echo "PASS"
