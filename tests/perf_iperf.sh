#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf's iperf3 options on loopback (issue 15, doc/udccp-perf.md):
# -P, --bidir, -i, -n/-k, --logfile, --get-server-output, server interval
# and [SUM] lines (perf_ports: addresses and ports).
# Every process is bounded by timeout(1) or killed by PID.
#   sh tests/perf_iperf.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_iperf.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-iperf
. "$SRC/tests/support/tools_env.sh"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }

U=$((40000 + ($$ % 5000) * 2)) # this run's UDP port
D=$((10000 + $$ % 5000))       # and DCCP port
timeout -k 5 60 "$PERF" -s --udp-port "$U" -p "$D" >"$T/srv.log" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

# jcheck NAME FILE PYTHON-EXPR: the JSON object in FILE as d satisfies EXPR
jcheck() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$T/py.err"; then
    pass "$1"
  else
    fail "$1: $(cat "$T/py.err") $(head -c 600 "$2")"
  fi
}

# -P 3: three connections, per-stream and summed figures
timeout -k 5 20 $C -P 3 -t 0.6 -b 5m -J >"$T/p3.json" 2>"$T/p3.err" ||
  fail "-P 3: exit $?: $(cat "$T/p3.err")"
jcheck "-P 3: 3 streams, sum = streams, all complete" "$T/p3.json" \
  "d['num_streams'] == 3 and len(d['end']['streams']) == 3 and d['complete'] and \
   d['received_pkts'] == sum(s['packets'] for s in d['end']['streams']) > 0 and \
   all(len(i['streams']) == 3 for i in d['intervals'][:1])"

# --bidir: both directions at once, each with data
timeout -k 5 20 $C --bidir -t 0.6 -b 5m -J >"$T/bi.json" 2>"$T/bi.err" ||
  fail "--bidir: exit $?: $(cat "$T/bi.err")"
jcheck "--bidir: data both ways" "$T/bi.json" \
  "d['bidir'] and d['end']['sum']['packets'] > 50 and \
   d['end']['sum_reverse']['packets'] > 50 and \
   sorted(c['role'] for c in d['start']['connected']) == ['RX-C', 'TX-C']"

# -i 0.3: about three lines a second; -i 0: none
timeout -k 5 20 $C -t 1 -b 5m -i 0.3 >"$T/i.txt" 2>&1 || fail "-i 0.3: exit $?"
n=$(grep -c '^\[ *[0-9.]*- *[0-9.]* s\]' "$T/i.txt")
if [ "$n" -ge 3 ] && grep -q '^\[  0.00-  0.[23][0-9] s\]' "$T/i.txt"; then
  pass "-i 0.3: $n interval lines"
else
  fail "-i 0.3: $n interval lines: $(cat "$T/i.txt")"
fi
timeout -k 5 20 $C -t 0.3 -b 5m -i 0 >"$T/i0.txt" 2>&1 || fail "-i 0: exit $?"
if ! grep -q ' s\] ' "$T/i0.txt" && grep -q 'sender: goodput' "$T/i0.txt"; then
  pass "-i 0: no interval lines, a summary"
else
  fail "-i 0: $(cat "$T/i0.txt")"
fi

# -n / -k: an amount instead of a time
timeout -k 5 20 $C -n 400p -b 20m -J >"$T/n.json" 2>&1 || fail "-n 400p: exit $?"
jcheck "-n 400p: exactly 400 datagrams" "$T/n.json" \
  "d['sent_pkts'] == 400 and d['complete']"
timeout -k 5 20 $C -k 250 -b 20m -J >"$T/k.json" 2>&1 || fail "-k 250: exit $?"
jcheck "-k 250: exactly 250 datagrams" "$T/k.json" "d['sent_pkts'] == 250"
timeout -k 5 20 $C -n 100000 -l 1000 -b 20m -J >"$T/nb.json" 2>&1 || fail "-n 100000: exit $?"
jcheck "-n 100000 -l 1000: 100 datagrams of 1000 bytes" "$T/nb.json" \
  "d['sent_bytes'] == 100000 and d['sent_pkts'] == 100"

# -b: a paced sender sleeps between its datagrams.  It once spun instead
# (waits under a millisecond were cut to 0): a whole core at any rate,
# about 2 CPU-seconds for these 2 s; now a few hundredths.
timeout -k 5 20 python3 "$SRC/bench/cpurun.py" "$T/pace.cpu" $C -t 2 -b 20m -J \
  >"$T/pace.json" 2>"$T/pace.err" || fail "-b 20m -t 2: exit $?"
jcheck "-b 20m: paced at 20 Mbit/s" "$T/pace.json" \
  "d['complete'] and abs(d['goodput_bps'] - 20e6) < 1e6"
if awk -v c="$(cat "$T/pace.cpu" 2>/dev/null)" 'BEGIN { exit !(c != "" && c < 1.0) }'; then
  pass "-b 20m: the client waits (CPU $(cat "$T/pace.cpu") s in 2 s)"
else
  fail "-b 20m: the client used $(cat "$T/pace.cpu" 2>/dev/null) CPU s in 2 s (busy-waits?)"
fi

# --logfile: nothing on stdout, all in the file
rm -f "$T/log"
timeout -k 5 20 $C -t 0.3 -b 5m --logfile "$T/log" >"$T/lf.out" 2>&1 || fail "--logfile: exit $?"
if [ ! -s "$T/lf.out" ] && grep -q 'sender: goodput' "$T/log"; then
  pass "--logfile: output in the file only"
else
  fail "--logfile: stdout: $(cat "$T/lf.out"); file: $(cat "$T/log" 2>&1)"
fi

# --get-server-output: the server's lines for this test, text and JSON
timeout -k 5 20 $C -t 0.5 -b 5m --get-server-output >"$T/so.txt" 2>&1 || fail "--get-server-output: exit $?"
if sed -n '/^Server output:/,$p' "$T/so.txt" | grep -q '^server: goodput' &&
   sed -n '/^Server output:/,$p' "$T/so.txt" | grep -q '^accepted '; then
  pass "--get-server-output: the server's summary came back"
else
  fail "--get-server-output: $(cat "$T/so.txt")"
fi
timeout -k 5 20 $C -t 0.5 -b 5m -R --get-server-output -J >"$T/so.json" 2>&1 || fail "--get-server-output -R -J: exit $?"
jcheck "--get-server-output -R -J: server_output_text" "$T/so.json" \
  "'server: goodput' in d['server_output_text'] and 'server sends' in d['server_output_text']"

# the server's own lines: intervals, per-stream summaries, [SUM] for -P
if grep -q '^\[  0.00-  0.[0-9]* s\] .*Mbit/s  loss' "$T/srv.log" &&
   grep -q '^\[SUM\]\[RX\] receiver: goodput' "$T/srv.log" &&
   grep -q '^\[  2\]\[RX-S\] \[  0.00-' "$T/srv.log"; then
  pass "server: interval lines, per-stream and [SUM] lines"
else
  fail "server lines: $(cat "$T/srv.log")"
fi
kill "$spid" 2>/dev/null

if [ "$FAILS" -ne 0 ]; then
  echo "perf_iperf: $FAILS failure(s)"
  exit 1
fi
echo "perf_iperf: all passed"
