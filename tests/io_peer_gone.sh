#!/bin/sh
# SPDX-License-Identifier: MIT
# Peer gone (issue 4, acceptance 5), with the tools over loopback DCCP-UDP:
#  - the peer resets mid-transfer (SIGTERM makes udccp-perf / udccp-cat
#    abort with Reset "Aborted", RFC 4340 §5.6): the other end stops at
#    once and says "connection reset by the peer (Reset: Aborted)";
#  - the peer vanishes silently (SIGKILL, or SIGSTOP: its packets pile up
#    unread): the other end times out within its idle timeout (udccp-perf
#    10 s, udccp-cat -i) and says "connection timed out".
# Every process is bounded (timeout(1), or killed by PID: those the test
# signals run without timeout(1), which would take the signal itself).
# A client starts once its listener's UDP port is bound (wait_udp_port),
# not after a fixed "sleep 0.3" a slow listener (ASan, loaded) outlasted.
#   sh tests/io_peer_gone.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_peer_gone.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-gone
. "$SRC/tests/support/tools_env.sh"
BASE=$((30000 + ($$ % 2000) * 8))

now_ms() { date +%s%3N; }

# wait_pid PID SECONDS: waits for a background process; 1 if it is late.
wait_pid() {
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt $(($2 * 10)) ] && return 1
    sleep 0.1
  done
  return 0
}


# --- udccp-perf: the server resets mid-transfer ----------------------------
# Each server has its own UDP port (--udp-port): a server stopped with
# SIGSTOP on a UDP port shared with others (6511) would swallow its share
# of their flows.
P=$((BASE + 1))
"$PERF" -s -1 -p "$P" --udp-port "$P" >"$T/p1.srv" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the server did not bind UDP port $P"
timeout -k 5 40 "$PERF" -c 127.0.0.1 -p "$P" --udp-port "$P" -t 20 >"$T/p1.cli" 2>&1 &
cpid=$!
PIDS="$PIDS $cpid"
sleep 2
kill -TERM "$spid"
t0=$(now_ms)
if ! wait_pid "$cpid" 10; then
  fail "perf reset: the client still runs 10 s after the server's Reset"
else
  wait "$cpid"; rc=$?
  dt=$(($(now_ms) - t0))
  if [ "$rc" -eq 1 ] && grep -q "connection reset by the peer (Reset: Aborted)" "$T/p1.cli" &&
     grep -q "connection aborted (Reset sent" "$T/p1.srv" && [ "$dt" -lt 3000 ]; then
    pass "perf reset: client exit $rc after ${dt} ms: $(grep 'reset by' "$T/p1.cli")"
  else
    fail "perf reset: client exit $rc after ${dt} ms; client: $(cat "$T/p1.cli"); server: $(cat "$T/p1.srv")"
  fi
fi

# --- udccp-perf: the server vanishes (SIGKILL), then frozen (SIGSTOP) ------
for sig in KILL STOP; do
  for dir in send recv; do
    # the silent cases cost 10 s each: SIGKILL with the client sending,
    # SIGSTOP with the client receiving (-R)
    [ "$sig" = KILL ] && [ "$dir" = recv ] && continue
    [ "$sig" = STOP ] && [ "$dir" = send ] && continue
    P=$((P + 1))
    rflag=""
    [ "$dir" = recv ] && rflag="-R"
    "$PERF" -s -1 -p "$P" --udp-port "$P" >"$T/p2.srv" 2>&1 &
    spid=$!
    PIDS="$PIDS $spid"
    wait_udp_port "$P" 30 || fail "the server did not bind UDP port $P"
    timeout -k 5 60 "$PERF" -c 127.0.0.1 -p "$P" --udp-port "$P" -t 40 $rflag >"$T/p2.cli" 2>&1 &
    cpid=$!
    PIDS="$PIDS $cpid"
    sleep 2
    kill -"$sig" "$spid"
    t0=$(now_ms)
    if ! wait_pid "$cpid" 20; then
      fail "perf silent ($sig, client ${dir}s): the client still runs 20 s later"
      continue
    fi
    wait "$cpid"; rc=$?
    dt=$(($(now_ms) - t0))
    kill -CONT "$spid" 2>/dev/null
    kill -KILL "$spid" 2>/dev/null
    if [ "$rc" -eq 1 ] && grep -q "connection timed out: nothing from the peer for 10 s" "$T/p2.cli" &&
       [ "$dt" -ge 8000 ] && [ "$dt" -lt 15000 ]; then
      pass "perf silent ($sig, client ${dir}s): exit $rc after ${dt} ms: $(grep 'timed out' "$T/p2.cli")"
    else
      fail "perf silent ($sig, client ${dir}s): exit $rc after ${dt} ms: $(cat "$T/p2.cli")"
    fi
  done
done

# --- udccp-cat: the sender resets mid-stream ------------------------------
# A slow writer feeds the client through a FIFO, so the connection is busy
# when the client is told to stop.
slow_lines() {
  i=0
  while [ $i -lt 400 ]; do echo "line $i"; i=$((i + 1)); sleep 0.02; done
}
# cat_pair NAME LISTENER-OPTIONS...: a listener (output $T/NAME.out,
# stderr $T/NAME.srv) and a client fed by slow_lines (stderr $T/NAME.cli)
# on a new port; sets spid, wpid, cpid.
cat_pair() {
  name=$1
  shift
  P=$((P + 1))
  timeout -k 5 40 "$CAT" -l -d "$@" -p "$P" >"$T/$name.out" 2>"$T/$name.srv" &
  spid=$!
  PIDS="$PIDS $spid"
  wait_udp_port "$P" 30 || fail "$name: the listener did not bind UDP port $P"
  mkfifo "$T/$name.fifo"
  slow_lines >"$T/$name.fifo" &
  wpid=$!
  PIDS="$PIDS $wpid"
  "$CAT" -p "$P" 127.0.0.1 <"$T/$name.fifo" 2>"$T/$name.cli" &
  cpid=$!
  PIDS="$PIDS $cpid"
}
cat_pair c1
sleep 2
kill -TERM "$cpid"
t0=$(now_ms)
if ! wait_pid "$spid" 10; then
  fail "cat reset: the listener still runs 10 s after the client's Reset"
else
  wait "$spid"; rc=$?
  dt=$(($(now_ms) - t0))
  n=$(wc -l <"$T/c1.out")
  if [ "$rc" -eq 1 ] && grep -q "connection reset by the peer (Reset: Aborted)" "$T/c1.srv" &&
     grep -q "terminated: connection aborted" "$T/c1.cli" && [ "$dt" -lt 3000 ] &&
     [ "$n" -gt 10 ]; then
    pass "cat reset: listener exit $rc after ${dt} ms, $n lines written: $(cat "$T/c1.srv")"
  else
    fail "cat reset: listener exit $rc after ${dt} ms, $n lines; listener: $(cat "$T/c1.srv"); client: $(cat "$T/c1.cli")"
  fi
fi
kill "$wpid" 2>/dev/null

# --- udccp-cat: the sender freezes; the listener has -i 2 -----------------
cat_pair c2 -i 2
sleep 1.5
kill -STOP "$cpid"
t0=$(now_ms)
if ! wait_pid "$spid" 10; then
  fail "cat silent: the listener (-i 2) still runs 10 s after the client froze"
else
  wait "$spid"; rc=$?
  dt=$(($(now_ms) - t0))
  if [ "$rc" -eq 1 ] && grep -q "connection timed out: nothing from the peer for 2.0 s" "$T/c2.srv" &&
     [ "$dt" -ge 1500 ] && [ "$dt" -lt 4000 ]; then
    pass "cat silent: listener exit $rc after ${dt} ms: $(cat "$T/c2.srv")"
  else
    fail "cat silent: listener exit $rc after ${dt} ms: $(cat "$T/c2.srv")"
  fi
fi
kill -CONT "$cpid" 2>/dev/null
kill -KILL "$cpid" "$wpid" 2>/dev/null

if [ "$FAILS" -ne 0 ]; then
  echo "io_peer_gone: $FAILS failure(s)"
  exit 1
fi
echo "io_peer_gone: all passed"
