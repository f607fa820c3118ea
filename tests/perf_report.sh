#!/bin/sh
# SPDX-License-Identifier: MIT
# What udccp-perf reports (issue 15, doc/udccp-perf.md): -s -J, the JSON
# error object on every failure, jitter and per-interval loss from the
# receiver (the intervals add up to the totals), -R columns from the
# sending side (the client's cwnd is the server's), the last interval, and
# a Ctrl-C summary that counts only confirmed losses.
# Every process is bounded by timeout(1) or killed by PID.
#   sh tests/perf_report.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_report.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-report
. "$SRC/tests/support/tools_env.sh"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }

U=$((40001 + ($$ % 5000) * 2)) # this run's UDP port
D=$((15000 + $$ % 5000))       # and DCCP port
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

jcheck() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None; sys.exit(0 if ($3) else 1)" "$2" ${4:-} 2>"$T/py.err"; then
    pass "$1"
  else
    fail "$1: $(cat "$T/py.err") $(head -c 800 "$2")"
  fi
}

# 1. -R, unpaced CCID 2, with a -s -J -1 server: both JSON objects.
timeout -k 5 30 "$PERF" -s -1 -J --udp-port "$U" -p "$D" >"$T/srv.json" 2>"$T/srv.err" &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
timeout -k 5 20 $C -R -t 3 -i 0.5 --ccid 2 -J >"$T/r.json" 2>"$T/r.err" || fail "-R: exit $?: $(cat "$T/r.err")"
wait_pid "$spid" 10 || fail "-s -1 -J: the server did not exit"
jcheck "-s -J: the server's object (receiver figures, intervals)" "$T/srv.json" \
  "d['received_pkts'] > 0 and d['reverse'] and len(d['intervals']) >= 2 and \
   d['end']['streams'][0]['sender']"
# the receiver's intervals add up to its totals; its loss is per interval
jcheck "-R: intervals add up to received_pkts and lost_pkts" "$T/r.json" \
  "sum(i['sum']['packets'] for i in d['intervals']) == d['received_pkts'] > 0 and \
   sum(i['sum']['lost_packets'] for i in d['intervals']) == d['lost_pkts'] and \
   d['sent_pkts'] == d['received_pkts'] + d['lost_pkts']"
jcheck "-R: jitter (RFC 3550) reported, plausible" "$T/r.json" \
  "0 < d['jitter_ms'] < 1000 and all('jitter_ms' in i['sum'] for i in d['intervals'])"
# -R: the cwnd column is the server's (sending) half: a client interval
# shows what the server had at one of its own intervals (from the STAT
# answering a REPORT: 0 before the first one arrives; on a loaded machine
# a STAT may come an interval late, or be lost with the data), never the
# client's own half.
jcheck "-R: cwnd column from the sending side" "$T/r.json" \
  "len(d['intervals']) >= 5 and \
   all(i['cwnd'] == 0 or i['cwnd'] in [j['cwnd'] for j in s['intervals']] \
       for i in d['intervals']) and \
   sum(i['cwnd'] != 0 for i in d['intervals']) >= 2" \
  "$T/srv.json"
jcheck "-R: the last interval is there (ends at the test's end)" "$T/r.json" \
  "d['intervals'][-1]['end'] > 2.8"
# one-way delays (issue 17): the receiving client's own, in order and
# plausible for loopback (a send time relative to the sender's start, the
# jitter clock, would give thousands of seconds), and the same figures at
# the sending server (they come back in RESULT)
jcheck "-R: one-way delay min/p50/p95/p99/max at both ends" "$T/r.json" \
  "(o := d['owd_ms']) and 0 < o['min'] <= o['p50'] <= o['p95'] <= o['p99'] <= o['max'] < 5000 \
   and s['owd_ms'] == o and d['end']['streams'][0]['owd_ms'] == o" "$T/srv.json"

# 2. Ctrl-C on a sending client: a summary within a second, losses
# confirmed only (paced at 20 Mbit/s on loopback: nothing is really lost,
# but datagrams are in flight when the signal comes).
timeout -k 5 30 "$PERF" -s -1 --udp-port "$U" -p "$D" >"$T/c.srv" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
"$PERF" -c 127.0.0.1 --udp-port "$U" -p "$D" -t 20 -b 20m -J >"$T/c.json" 2>"$T/c.err" &
cpid=$!
PIDS="$PIDS $cpid"
sleep 1.5
kill -INT "$cpid"
if wait_pid "$cpid" 5; then
  rc=$RC
  [ "$rc" -eq 1 ] && grep -q 'interrupted' "$T/c.err" || fail "Ctrl-C: exit $rc: $(cat "$T/c.err")"
  jcheck "Ctrl-C: summary with confirmed losses only (interrupted, complete)" "$T/c.json" \
    "d['interrupted'] and d['complete'] and d['sent_pkts'] > 500 and \
     d['lost_pkts'] == sum(i['sum']['lost_packets'] for i in d['intervals']) and \
     d['loss_rate'] < 0.05 and 'interrupted' in d['error']"
else
  fail "Ctrl-C: the client still runs 5 s after SIGINT"
fi
wait_pid "$spid" 10 || fail "Ctrl-C: the server did not exit"
grep -q 'interrupted: datagrams still in flight are not counted' "$T/c.srv" ||
  fail "Ctrl-C: server: $(cat "$T/c.srv")"

# 3. A JSON error object on stdout for every failure.
timeout -k 5 20 $C -t 1 -J >"$T/e1.json" 2>/dev/null
rc=$?
[ "$rc" -eq 1 ] || fail "no server: exit $rc"
jcheck "no server: JSON error naming the UDP port" "$T/e1.json" \
  "'UDP port $U' in d['error'] and d['intervals'] == []"
timeout -k 5 20 "$PERF" -c 127.0.0.1 -P 0 -J >"$T/e2.json" 2>/dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "-P 0: exit $rc"
jcheck "usage error: JSON error" "$T/e2.json" "'-P' in d['error']"
timeout -k 5 20 "$PERF" -c 127.0.0.1 --udp-port "$U" -l 100000 -J >"$T/e3.json" 2>/dev/null
[ $? -eq 2 ] || fail "-l 100000: not a usage error"
jcheck "-l too large: JSON error" "$T/e3.json" "'length' in d['error']"
# the server side: a UDP port held by a socket that does not share it
python3 -c "
import socket, time, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', 0))
print(s.getsockname()[1], flush=True)
time.sleep(8)" >"$T/held" &
hpid=$!
PIDS="$PIDS $hpid"
i=0
while [ ! -s "$T/held" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
HP=$(cat "$T/held")
timeout -k 5 20 "$PERF" -s -1 -J --udp-port "$HP" >"$T/e4.json" 2>/dev/null
rc=$?
kill "$hpid" 2>/dev/null
[ "$rc" -eq 1 ] || fail "server, UDP port $HP held: exit $rc"
jcheck "-s -J, UDP port in use: JSON error naming it" "$T/e4.json" \
  "'UDP port $HP' in d['error'] and 'in use' in d['error']"

# The report has nowhere to go: standard output closed is a usage error
# (it exited 0 having printed nothing), and a reader that goes away (| head)
# stops the test as Ctrl-C does, the server told (SIGPIPE killed the
# client: exit 141, and the server waited for a report that never came).
timeout -k 5 20 $C -t 1 >&- 2>"$T/c.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "standard output is closed" "$T/c.err" &&
  pass "stdout closed: usage error" ||
  fail "stdout closed: exit $rc: $(cat "$T/c.err")"
timeout -k 5 30 "$PERF" -s -1 -J --udp-port "$U" -p "$D" >"$T/srv2.json" 2>"$T/srv2.err" &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
t0=$(date +%s)
(timeout -k 5 20 $C -t 10 -i 0.2 2>"$T/h.err"; echo $? >"$T/h.rc") | head -1 >/dev/null
t1=$(date +%s)
rc=$(cat "$T/h.rc" 2>/dev/null)
[ "$rc" = 1 ] && grep -q "output closed" "$T/h.err" && [ $((t1 - t0)) -lt 8 ] &&
  pass "| head -1: the client stops (exit 1, $((t1 - t0)) s of 10)" ||
  fail "| head -1: exit '$rc' after $((t1 - t0)) s: $(cat "$T/h.err")"
wait_pid "$spid" 10 || fail "| head -1: the server did not exit"
jcheck "| head -1: the server's report is whole" "$T/srv2.json" \
  "d['received_pkts'] > 0 and 'error' not in d"

# The same with -J, whose report is written at the end only: a reader of
# JSON lines (--json-stream | head -c 100) that has its fill, and one that
# goes away without reading (| sleep 1), stop the test as the text
# output's does, the server's report whole.  Both ran the whole 10 s,
# the client exiting 0 (nothing told it: no line written, or the EPIPE of
# a JSON line not looked at).
for how in stream gone; do
  timeout -k 5 30 "$PERF" -s -1 -J --udp-port "$U" -p "$D" >"$T/srv3.json" 2>"$T/srv3.err" &
  spid=$!
  PIDS="$PIDS $spid"
  wait_udp_port "$U" 30 || fail "-J $how: the server did not bind UDP port $U"
  t0=$(date +%s)
  if [ "$how" = stream ]; then
    (timeout -k 5 20 $C -t 10 -i 0.2 -J --json-stream 2>"$T/j.err"; echo $? >"$T/j.rc") |
      head -c 100 >/dev/null
  else
    (timeout -k 5 20 $C -t 10 -i 0.2 -J 2>"$T/j.err"; echo $? >"$T/j.rc") | sleep 1
  fi
  t1=$(date +%s)
  rc=$(cat "$T/j.rc" 2>/dev/null)
  [ "$rc" = 1 ] && grep -q "output closed" "$T/j.err" && [ $((t1 - t0)) -lt 8 ] &&
    pass "-J, reader gone ($how): the client stops (exit 1, $((t1 - t0)) s of 10)" ||
    fail "-J, reader gone ($how): exit '$rc' after $((t1 - t0)) s: $(cat "$T/j.err")"
  wait_pid "$spid" 10 || fail "-J, reader gone ($how): the server did not exit"
  jcheck "-J, reader gone ($how): the server's report is whole" "$T/srv3.json" \
    "d['received_pkts'] > 0 and 'error' not in d"
done

if [ "$FAILS" -ne 0 ]; then
  echo "perf_report: $FAILS failure(s)"
  exit 1
fi
echo "perf_report: all passed"
