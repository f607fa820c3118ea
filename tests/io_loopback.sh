#!/bin/sh
# SPDX-License-Identifier: MIT
# Socket runtime end to end over loopback DCCP-UDP (RFC 6773): udccp-perf
# on 127.0.0.1 and ::1 (JSON checked), udccp-cat moving a 10,000-line file
# intact, and the error cases (unknown host, port in use, wrong service
# code).  Every process is bounded by timeout(1) and killed by PID.
#   sh tests/io_loopback.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_loopback.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-loopback
. "$SRC/tests/support/tools_env.sh"

# Ports from the PID so parallel runs do not collide.  A client starts
# once its listener's UDP port is bound (wait_udp_port), not after a fixed
# "sleep 0.3": a listener slower to start (ASan, a loaded machine) refused
# it at once.
# expect_error LABEL PATTERN ERRFILE RC: a command that must fail (RC not
# 0) with an error message matching PATTERN (grep) in ERRFILE
expect_error() {
  if [ "$4" -ne 0 ] && grep -q "$2" "$3"; then
    pass "$1: $(cat "$3")"
  else
    fail "$1: exit $4, stderr: $(cat "$3")"
  fi
}
BASE=$((20000 + ($$ % 2000) * 10))

# wait_pid PID SECONDS: wait for a background process, kill it if late.
wait_pid() {
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt $(($2 * 10)) ]; then
      kill "$1" 2>/dev/null
      return 1
    fi
    sleep 0.1
  done
  wait "$1" 2>/dev/null
  return 0
}

# perf_case NAME HOST PORT CLIENT_ARGS...
perf_case() {
  name=$1 host=$2 port=$3
  shift 3
  timeout -k 5 40 "$PERF" -s -1 -p "$port" --udp-port "$port" >"$T/$name.srv" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  wait_udp_port "$port" 30 || fail "$name: the server did not bind UDP port $port"
  timeout -k 5 40 "$PERF" -c "$host" -p "$port" --udp-port "$port" -J "$@" >"$T/$name.json" 2>"$T/$name.err"
  rc=$?
  wait_pid "$spid" 10 || fail "$name: server did not exit after -1"
  if [ "$rc" -ne 0 ]; then
    fail "$name: client exit $rc: $(cat "$T/$name.err")"
    return
  fi
  ok=1
  for k in ccid duration_s sent_pkts received_pkts lost_pkts goodput_bps \
           rtt_ms loss_rate; do
    v=$(json_num "$T/$name.json" "$k")
    if [ -z "$v" ]; then
      fail "$name: JSON lacks $k: $(cat "$T/$name.json")"
      ok=0
    fi
  done
  [ "$ok" = 1 ] || return
  gp=$(json_num "$T/$name.json" goodput_bps)
  rx=$(json_num "$T/$name.json" received_pkts)
  dur=$(json_num "$T/$name.json" duration_s)
  ccid=$(json_num "$T/$name.json" ccid)
  if awk "BEGIN{exit !($gp > 0 && $rx > 0 && $dur > 2.5 && $dur < 4.5)}"; then
    pass "$name: goodput $(awk "BEGIN{printf \"%.1f\", $gp/1e6}") Mbit/s, $rx pkts, ${dur}s, CCID $ccid"
  else
    fail "$name: implausible result: $(cat "$T/$name.json")"
  fi
}

perf_case perf_v4 127.0.0.1 $((BASE + 1)) -t 3
perf_case perf_v6 ::1 $((BASE + 2)) -t 3
perf_case perf_v4_reverse 127.0.0.1 $((BASE + 3)) -t 3 -R

# udccp-cat: 10,000 lines, one datagram each, must arrive intact.
i=1
: >"$T/in.txt"
awk 'BEGIN{for (i = 1; i <= 10000; i++) printf "line %05d of the udccp-cat test %s\n", i, (i % 7 ? "" : "with a longer tail to vary the datagram sizes")}' >"$T/in.txt"
P=$((BASE + 4))
timeout -k 5 60 "$CAT" -l -d -v -p "$P" >"$T/out.txt" 2>"$T/cat_srv.err" &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 60 "$CAT" -v -p "$P" 127.0.0.1 <"$T/in.txt" 2>"$T/cat_cli.err"
rc=$?
wait_pid "$spid" 15 || fail "udccp-cat listener did not exit after the close"
if [ "$rc" -ne 0 ]; then
  fail "udccp-cat client exit $rc: $(cat "$T/cat_cli.err")"
elif cmp -s "$T/in.txt" "$T/out.txt"; then
  pass "udccp-cat: 10,000 lines intact ($(wc -c <"$T/in.txt") bytes); $(grep datagrams "$T/cat_srv.err")"
elif missing=$(awk 'NR == FNR { want[++n] = $0; next }
                    { while (i < n && want[++i] != $0) miss++
                      if (want[i] != $0) { bad = 1; exit } }
                    END { if (bad) exit 1; print miss + (n - i) }' \
                 "$T/in.txt" "$T/out.txt") &&
     lost=$(sed -n 's/.* \([0-9]*\) declared lost by the CCID.*/\1/p' "$T/cat_cli.err") &&
     [ -n "$lost" ] && [ "$missing" -le "$lost" ] && [ "$missing" -le 500 ]; then
  # DCCP is unreliable: a datagram may be lost (on a loaded machine the
  # kernel or a Sync exchange can drop some), but never silently: what
  # arrived is in order, uncorrupted, and the sender's CCID reported at
  # least as many losses as lines are missing.
  pass "udccp-cat: $((10000 - missing)) of 10,000 lines in order, $missing lost and reported ($lost declared lost by the CCID)"
else
  fail "udccp-cat: output differs: $(wc -l <"$T/out.txt") of 10000 lines; server: $(cat "$T/cat_srv.err"); client: $(cat "$T/cat_cli.err")"
fi

# Unknown host.  A label over 63 bytes fails inside the resolver, so no
# query leaves the host.
BAD=$(awk 'BEGIN{for (i = 0; i < 70; i++) printf "x"; printf ".invalid"}')
timeout -k 5 20 "$PERF" -c "$BAD" -p $((BASE + 5)) -t 1 >/dev/null 2>"$T/bad.err"
rc=$?
expect_error "unknown host" "cannot resolve" "$T/bad.err" "$rc"

# Port in use.
P=$((BASE + 6))
timeout -k 5 20 "$PERF" -s -p "$P" --udp-port "$P" >/dev/null 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 10 "$PERF" -s -p "$P" --udp-port "$P" >/dev/null 2>"$T/inuse.err"
rc=$?
kill "$spid" 2>/dev/null
expect_error "port in use" "already in use" "$T/inuse.err" "$rc"

# Wrong service code: the client says refused.
P=$((BASE + 7))
timeout -k 5 20 "$CAT" -l -d -w 8 -p "$P" --service 1234 >/dev/null 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
echo hello | timeout -k 5 10 "$CAT" -p "$P" --service 999 127.0.0.1 >/dev/null 2>"$T/svc.err"
rc=$?
kill "$spid" 2>/dev/null
expect_error "wrong service code" "refused" "$T/svc.err" "$rc"

# The same errors from the other tool: each of unknown host, port in use
# and wrong service code is checked with both udccp-perf and udccp-cat.
echo hi | timeout -k 5 20 "$CAT" -p $((BASE + 5)) "$BAD" >/dev/null 2>"$T/bad2.err"
rc=$?
expect_error "unknown host (cat)" "cannot resolve" "$T/bad2.err" "$rc"
P=$((BASE + 8))
timeout -k 5 20 "$CAT" -l -d -w 8 -p "$P" >/dev/null 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 10 "$CAT" -l -d -w 2 -p "$P" >/dev/null 2>"$T/inuse2.err"
rc=$?
expect_error "port in use (cat)" "already in use" "$T/inuse2.err" "$rc"
# udccp-perf (Service Code "PERF") against a udccp-cat listener ("CAT").
# (udccp-cat's -p is also its UDP port; udccp-perf's -p is the DCCP port
# only, UDP 6511 unless --udp-port)
timeout -k 5 10 "$PERF" -c 127.0.0.1 -p "$P" --udp-port "$P" -t 1 >/dev/null 2>"$T/svc2.err"
rc=$?
kill "$spid" 2>/dev/null
expect_error "wrong service code (perf)" "refused" "$T/svc2.err" "$rc"

# A listener with the right Service Code that does not speak udccp-perf's
# protocol (udccp-cat --service PERF): the client gives up after 10 HELLOs
# in 3 s and says so, rather than waiting for a peer that answers.
P=$((BASE + 9))
timeout -k 5 20 "$CAT" -l -d -w 8 -p "$P" --service PERF >/dev/null 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 10 "$PERF" -c 127.0.0.1 -p "$P" --udp-port "$P" -t 1 >/dev/null 2>"$T/hello.err"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null # its port is used again below
if [ "$rc" -eq 1 ] && grep -q "did not answer the test parameters" "$T/hello.err"; then
  pass "not a udccp-perf server: $(cat "$T/hello.err")"
else
  fail "not a udccp-perf server: exit $rc, stderr: $(cat "$T/hello.err")"
fi

# Datagram over the MPS: udccp-perf -l above the connection's MPS is
# refused with the MPS named (the API's UDCCP_ERR_MSGSIZE is checked in
# test_io_endpoint).  udccp-cat never sends one: it cuts a line longer
# than the MPS into MPS-sized datagrams, checked here with a 70000-byte
# line arriving whole (loopback's MPS is ~65 KB: io/pmtu.c).
P=$((BASE + 9))
timeout -k 5 20 "$PERF" -s -1 -p "$P" --udp-port "$P" >/dev/null 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 10 "$PERF" -c 127.0.0.1 -p "$P" --udp-port "$P" -t 1 -l 65507 >/dev/null 2>"$T/mps.err"
rc=$?
kill "$spid" 2>/dev/null
expect_error "datagram over the MPS (perf)" "out of range: 24\.\.[0-9]* bytes (the connection's maximum packet size)" "$T/mps.err" "$rc"
P=$((BASE + 10))
awk 'BEGIN{for (i = 0; i < 70000; i++) printf "%c", 97 + i % 26; printf "\n"}' >"$T/long.txt"
timeout -k 5 20 "$CAT" -l -d -p "$P" >"$T/long.out" 2>/dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 10 "$CAT" -p "$P" 127.0.0.1 <"$T/long.txt" 2>"$T/long.err"
rc=$?
wait_pid "$spid" 10 || fail "long line: listener did not exit"
if [ "$rc" -eq 0 ] && cmp -s "$T/long.txt" "$T/long.out"; then
  pass "line over the MPS (cat): 70000 bytes cut into datagrams, arrived whole"
else
  fail "line over the MPS (cat): exit $rc, $(wc -c <"$T/long.out") bytes arrived: $(cat "$T/long.err")"
fi

# Command line: help, version, a CCID that does not exist.
"$PERF" --help | grep -q -- "--ccid" || fail "udccp-perf --help"
"$PERF" --version | grep -q "udccp-perf" || fail "udccp-perf --version"
"$CAT" --help | grep -q -- "--service" || fail "udccp-cat --help"
"$PERF" -c 127.0.0.1 --ccid 5 >/dev/null 2>&1
[ $? -eq 2 ] || fail "udccp-perf --ccid 5 must be rejected (exit 2)"

if [ "$FAILS" -ne 0 ]; then
  echo "io_loopback: $FAILS failure(s)"
  exit 1
fi
echo "io_loopback: all passed"
