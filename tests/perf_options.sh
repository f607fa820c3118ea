#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf's remaining iperf3 options (doc/udccp-perf.md): --threads, -w, -f, -T,
# --timestamps, -I, -D, --idle-timeout, --connect-timeout, --rcv-timeout,
# -C, and the accepted no-ops -u, --forceflush, --udp-counters-64bit.
# Every process is bounded by timeout(1) or killed by PID.
#   sh tests/perf_options.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_options.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-options
. "$SRC/tests/support/tools_env.sh"

U=$((30001 + ($$ % 4000) * 2)) # this run's UDP port
D=$((20000 + $$ % 5000))       # and DCCP port
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

# jcheck NAME FILE PYTHON-EXPR: the JSON object in FILE as d satisfies EXPR
jcheck() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$T/py.err"; then
    pass "$1"
  else
    fail "$1: $(cat "$T/py.err") $(head -c 600 "$2")"
  fi
}

# -D -I --logfile --idle-timeout: a background server that writes its pid,
# logs to a file and leaves (removing the pid file) after 10 idle seconds
# (4 s ran out between two of the clients below on a loaded machine: the
# next one was refused)
timeout -k 5 10 "$PERF" -s -D -I "$T/pid" --logfile "$T/srv.log" --idle-timeout 10 \
  --udp-port "$U" -p "$D" -w 1M -V >"$T/d.out" 2>&1
rc=$?
i=0
while [ ! -s "$T/pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
DPID=$(cat "$T/pid" 2>/dev/null)
[ -n "$DPID" ] && PIDS="$PIDS $DPID"
if [ "$rc" -eq 0 ] && [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null && [ ! -s "$T/d.out" ]; then
  pass "-D -I: in the background as pid $DPID"
else
  fail "-D -I: exit $rc, pid '$DPID', output: $(cat "$T/d.out")"
fi

# -f, -T, --timestamps, -w, -V, -u, --forceflush, --udp-counters-64bit, -C
timeout -k 5 20 $C -t 0.5 -b 5m -f K -T tag --timestamps -w 65536 -V -u --forceflush \
  --udp-counters-64bit -C 2 >"$T/c.txt" 2>&1 || fail "client: exit $?: $(cat "$T/c.txt")"
if grep -q '^.* tag:  \[  0.00-  0.[0-9]* s\] .*KByte/s' "$T/c.txt" &&
   grep -q ' tag:  sender: goodput [0-9.]* KByte/s' "$T/c.txt" &&
   grep -q 'socket buffers 65536 bytes' "$T/c.txt" &&
   grep -q "^[A-Z][a-z][a-z] [A-Z][a-z][a-z] .*[0-9]:[0-9][0-9]:[0-9][0-9] [0-9]* tag:  connected" "$T/c.txt"; then
  pass "-f K -T tag --timestamps -w 65536 -V"
else
  fail "-f -T --timestamps -w: $(cat "$T/c.txt")"
fi
timeout -k 5 20 $C -t 0.3 -b 5m -f k -C 3 -J >"$T/c3.json" 2>&1 || fail "-C 3: exit $?"
ccid=$(json_num "$T/c3.json" ccid)
[ "$ccid" = 3 ] && pass "-C 3: CCID 3" || fail "-C 3: $(cat "$T/c3.json")"
# --json-stream, --extra-data, --dont-fragment: JSON lines, the end last
timeout -k 5 20 $C -t 1 -i 0.4 -b 5m --json-stream --extra-data 'run "7"' --dont-fragment \
  >"$T/js.txt" 2>"$T/js.err" || fail "--json-stream: exit $?: $(cat "$T/js.err")"
if python3 -c "
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
iv = [e for e in ev if e['event'] == 'interval']
assert len(iv) >= 2 and all(e['data']['sum']['packets'] > 0 for e in iv), ev
assert ev[-1]['event'] == 'end' and ev[-1]['data']['complete'], ev[-1]
assert ev[-1]['data']['extra_data'] == 'run \"7\"', ev[-1]['data'].get('extra_data')
" "$T/js.txt" 2>"$T/py.err"; then
  pass "--json-stream --extra-data: $(grep -c interval "$T/js.txt") interval events, then the end"
else
  fail "--json-stream: $(cat "$T/py.err") $(head -c 400 "$T/js.txt")"
fi
timeout -k 5 20 $C -t 0.3 -b 5m -f g >"$T/g.txt" 2>&1 || fail "-f g: exit $?"
grep -q 'sender: goodput 0.00[0-9] Gbit/s' "$T/g.txt" || fail "-f g: $(cat "$T/g.txt")"
# --mp-sched without --multipath, or on a server, was silently ignored
for bad in "-w 100" "-f x" "--connect-timeout 0" "--rcv-timeout x" "--mp-sched rr"; do
  # shellcheck disable=SC2086
  timeout -k 5 10 $C $bad -t 1 >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$bad: exit $rc, not a usage error (2)"
done
timeout -k 5 10 "$PERF" -s --udp-port "$U" -p $((D + 7)) --multipath --mp-sched rr -1 \
  >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "-s --multipath --mp-sched rr: exit $rc, not a usage error (2)"
if grep -q 'socket buffers 1048576 bytes' "$T/srv.log" && grep -q '^accepted ' "$T/srv.log"; then
  pass "--logfile (server): its lines, -w 1M"
else
  fail "--logfile (server): $(cat "$T/srv.log")"
fi

# --idle-timeout 10: the daemon leaves by itself, pid file removed
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 140 ]; do sleep 0.1; i=$((i + 1)); done
if ! kill -0 "$DPID" 2>/dev/null && [ ! -e "$T/pid" ] &&
   grep -q 'no test for 10 s (--idle-timeout): exiting' "$T/srv.log"; then
  pass "--idle-timeout 10: the server left, pid file removed"
else
  fail "--idle-timeout: still running or pid file left: $(cat "$T/srv.log")"
fi

# --connect-timeout 400: a UDP port that swallows everything
python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', 0))
print(s.getsockname()[1], flush=True)
time.sleep(10)" >"$T/hole" &
hpid=$!
PIDS="$PIDS $hpid"
i=0
while [ ! -s "$T/hole" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
HP=$(cat "$T/hole")
t0=$(date +%s%N)
timeout -k 5 20 "$PERF" -c 127.0.0.1 --udp-port "$HP" --connect-timeout 400 -t 1 >/dev/null 2>"$T/ct.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
kill "$hpid" 2>/dev/null
if [ "$rc" -eq 1 ] && grep -q "over UDP port $HP within 0.4 s" "$T/ct.err" && [ "$ms" -lt 3000 ]; then
  pass "--connect-timeout 400: gave up after $ms ms"
else
  fail "--connect-timeout 400: exit $rc after $ms ms: $(cat "$T/ct.err")"
fi

# --rcv-timeout 1000: a receiving client whose server stops (SIGSTOP)
# (no timeout(1) around the server: SIGSTOP must reach it; killed by PID)
"$PERF" -s -1 --udp-port "$U" -p "$D" >"$T/r.srv" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
"$PERF" -c 127.0.0.1 --udp-port "$U" -p "$D" -R -t 20 -b 5m --rcv-timeout 1000 >"$T/r.txt" 2>&1 &
cpid=$!
PIDS="$PIDS $cpid"
sleep 1
kill -STOP "$spid"
t0=$(date +%s%N)
i=0
while kill -0 "$cpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ms=$((($(date +%s%N) - t0) / 1000000))
kill -CONT "$spid"
kill "$spid" 2>/dev/null
if ! kill -0 "$cpid" 2>/dev/null && grep -q 'nothing from the peer for 1 s' "$T/r.txt" && [ "$ms" -lt 5000 ]; then
  pass "--rcv-timeout 1000: the client left $ms ms after the server stopped"
else
  kill "$cpid" 2>/dev/null
  fail "--rcv-timeout 1000: after $ms ms: $(cat "$T/r.txt")"
fi

# --threads 2: streams of one test spread over two workers on one port
timeout -k 5 30 "$PERF" -s --threads 2 --udp-port "$((U + 1))" -p "$D" >"$T/th.srv" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
timeout -k 5 20 "$PERF" -c 127.0.0.1 --udp-port "$((U + 1))" -p "$D" -P 4 -t 0.5 -b 5m -J \
  >"$T/th.json" 2>"$T/th.err" || fail "--threads 2: exit $?: $(cat "$T/th.err")"
jcheck "--threads 2: a -P 4 test completes" "$T/th.json" \
  "d['complete'] and len(d['end']['streams']) == 4"
grep -q '2 worker threads' "$T/th.srv" || fail "--threads 2: server: $(cat "$T/th.srv")"
kill "$spid" 2>/dev/null

if [ "$FAILS" -ne 0 ]; then
  echo "perf_options: $FAILS failure(s)"
  exit 1
fi
echo "perf_options: all passed"
