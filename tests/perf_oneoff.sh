#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf -s -1 ends after one test whether it passed or failed (iperf3's
# -1): a client that gives up after connecting (-l beyond the MPS) tells the
# server why; a client that closes before its HELLO, or goes silent (killed)
# before or during the test, ends the test within --rcv-timeout; the exit
# status says which.  A server without -1 goes on serving after such a test.
# Ctrl-C while the client connects ends it at once.
# Before the fix the -1 server of each failing case waited for ever.
# Every process is bounded by timeout(1), a polled deadline, or killed by PID.
#   sh tests/perf_oneoff.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_oneoff.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-oneoff
. "$SRC/tests/support/tools_env.sh"

U=$((34001 + ($$ % 4000) * 2)) # this run's UDP port
D=$((21000 + $$ % 5000))       # and DCCP port
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

# server OUT [ARGS...]: a -1 server in the background (SPID)
server() {
  out=$1
  shift
  : >"$out"
  "$PERF" -s --udp-port "$U" -p "$D" "$@" >"$out" 2>&1 &
  SPID=$!
  PIDS="$PIDS $SPID"
  i=0 # ready once it printed its banner
  while ! grep -q '^udccp-perf server:' "$out" && [ $i -lt 100 ]; do
    sleep 0.05; i=$((i + 1))
  done
}

# ends PID SECS: waits up to SECS for PID to exit; sets RC (its status, or
# "running"; then it is killed) and ELAPSED (tenths of a second)
ends() {
  n=0
  while kill -0 "$1" 2>/dev/null && [ $n -lt $(($2 * 10)) ]; do
    sleep 0.1; n=$((n + 1))
  done
  ELAPSED=$n
  if kill -0 "$1" 2>/dev/null; then
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    RC=running
  else
    wait "$1"
    RC=$?
  fi
}

# 1. The client gives up after connecting: -l above any MPS (65507 bytes
# of UDP payload leave no room for the DCCP header).
server "$T/s1.out" -1
timeout -k 5 20 $C -t 3 -l 65507 --ccid 2 >"$T/c1.out" 2>&1
crc=$?
ends "$SPID" 8
if [ "$crc" -eq 1 ] && grep -q 'out of range' "$T/c1.out"; then
  pass "client -l 65507: exit 1, out of range"
else
  fail "client -l 65507: exit $crc: $(cat "$T/c1.out")"
fi
if [ "$RC" = 1 ] && grep -q 'the client gave up: -l 65507 is out of range' "$T/s1.out"; then
  pass "-1 server: reports the client's reason, exits 1 ($ELAPSED/10 s)"
else
  fail "-1 server after a client that gave up: status $RC: $(cat "$T/s1.out")"
fi

# 2. A complete test: the -1 server exits 0.
server "$T/s2.out" -1
timeout -k 5 20 $C -t 0.5 -b 5m >"$T/c2.out" 2>&1 || fail "short test: exit $?: $(cat "$T/c2.out")"
ends "$SPID" 10
[ "$RC" = 0 ] && pass "-1 server: complete test, exit 0" ||
  fail "-1 server after a complete test: status $RC: $(cat "$T/s2.out")"

# 3. A connection that closes without a HELLO (udccp-cat speaking the
# Service Code PERF: one junk line, then EOF).
server "$T/s3.out" -1
echo junk | timeout -k 5 10 "$CAT" --service PERF --udp-port "$U" 127.0.0.1 "$D" \
  >"$T/c3.out" 2>&1
ends "$SPID" 8
if [ "$RC" = 1 ] && grep -q 'without starting a test' "$T/s3.out"; then
  pass "-1 server: a connection closed before its HELLO is a failed test"
else
  fail "-1 server after a close before HELLO: status $RC: $(cat "$T/s3.out")"
fi

# 4. A client killed before its HELLO (connected, then silent):
# --rcv-timeout bounds the wait.
server "$T/s4.out" -1 --rcv-timeout 1500
sleep 30 | "$CAT" --service PERF --udp-port "$U" 127.0.0.1 "$D" \
  >"$T/c4.out" 2>&1 &
CATPID=$!
PIDS="$PIDS $CATPID"
i=0
while ! grep -q '^accepted\|HELLO' "$T/s4.out" && [ $i -lt 10 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$CATPID" 2>/dev/null
ends "$SPID" 8
if [ "$RC" = 1 ] && grep -q 'no test parameters (HELLO).* 1.5 s\|nothing from the peer for 1.5 s' "$T/s4.out"; then
  pass "-1 server: a silent connection without HELLO ends after --rcv-timeout ($ELAPSED/10 s)"
else
  fail "-1 server, silent client before HELLO: status $RC: $(cat "$T/s4.out")"
fi

# 5. A client killed during the test, both directions.
for dir in "" -R; do
  server "$T/s5.out" -1 --rcv-timeout 1500
  $C -t 30 -b 5m $dir >"$T/c5.out" 2>&1 &
  CPID=$!
  PIDS="$PIDS $CPID"
  i=0
  while ! grep -q '0.00-' "$T/s5.out" "$T/c5.out" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  sleep 0.5
  kill -KILL "$CPID" 2>/dev/null
  ends "$SPID" 10
  if [ "$RC" = 1 ]; then
    pass "-1 server: client killed during the test ($dir), exit 1 after $ELAPSED/10 s"
  else
    fail "-1 server, client killed during the test ($dir): status $RC: $(cat "$T/s5.out")"
  fi
done

# 7. Worker threads: each sees only the streams the steering gave it, so
# the workers without a part in the test end too (before the fix the idle
# worker of a one-stream test kept the -1 server running for ever).
for P in 1 3; do
  server "$T/s7.out" -1 --threads 2
  timeout -k 5 20 $C -t 0.5 -b 5m -P $P >"$T/c7.out" 2>&1 ||
    fail "--threads 2, -P $P: client exit $?: $(cat "$T/c7.out")"
  ends "$SPID" 10
  [ "$RC" = 0 ] && pass "-1 --threads 2 server: -P $P test, exit 0 ($ELAPSED/10 s)" ||
    fail "-1 --threads 2 server after a -P $P test: status $RC: $(cat "$T/s7.out")"
done

# 6. Without -1 the server goes on serving after a failed test.
server "$T/s6.out"
timeout -k 5 20 $C -t 1 -l 65507 >/dev/null 2>&1
timeout -k 5 20 $C -t 0.5 -b 5m >"$T/c6.out" 2>&1
crc=$?
if [ "$crc" -eq 0 ] && kill -0 "$SPID" 2>/dev/null &&
   grep -q 'the client gave up' "$T/s6.out"; then
  pass "server without -1: a failed test, then a complete one"
else
  fail "server without -1: client exit $crc: $(cat "$T/c6.out") server: $(cat "$T/s6.out")"
fi
kill -TERM "$SPID" 2>/dev/null
ends "$SPID" 5

# 8. Ctrl-C while connecting (the server is stopped: no answer) ends the
# client at once, saying so; before, it waited out --connect-timeout and
# then blamed the server.
server "$T/s7.out"
kill -STOP "$SPID"
$C -t 1 --connect-timeout 8000 >"$T/c7.out" 2>&1 &
CPID=$!
PIDS="$PIDS $CPID"
sleep 0.5
kill -INT "$CPID"
ends "$CPID" 3
if [ "$RC" = 1 ] && grep -q 'interrupted while connecting' "$T/c7.out"; then
  pass "Ctrl-C while connecting: exit 1 after $ELAPSED/10 s"
else
  fail "Ctrl-C while connecting: status $RC after $ELAPSED/10 s: $(cat "$T/c7.out")"
fi
kill -CONT "$SPID" 2>/dev/null
kill -TERM "$SPID" 2>/dev/null
ends "$SPID" 5

[ "$FAILS" -eq 0 ] && echo "perf_oneoff: all passed" && exit 0
echo "perf_oneoff: $FAILS failed"
exit 1
