#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-cat used as a demanding netcat user would, over loopback DCCP-UDP:
#  1. a reader that exits early (udccp-cat -l PORT | head -c 1000): the
#     listener must not die of SIGPIPE and leave its peer waiting for the
#     keepalive (90 s); it resets the connection, says why and exits 1,
#     and the client learns at once (reset by the peer, input unsent);
#     standard output on a full disk (/dev/full) is reported the same way;
#  2. a second client while a listener without -k serves the first: it is
#     refused (Reset Too Busy) and exits 1, instead of having its data
#     acknowledged, never written anywhere, and exiting 0; the first
#     client's lines arrive intact; the same with --multipath;
#  3. a -k listener ended by SIGTERM while a client waits in its accept
#     queue: that client is reset (Aborted) at once, not left waiting;
#  4. -w 0 (connect returns before the handshake, then a garbage loss
#     report of ~10^14 packets) is a usage error; -l -w says how long it
#     waited;
#  5. --multipath from a local address no interface holds fails at once
#     with the reason (its subflow's packets were all refused by sendmsg
#     and it waited 10 s for a handshake that could not happen);
#  6. stdin or stdout closed by the shell is a usage error (a socket took
#     the descriptor: the client read its own socket, and hung).
# Each process is bounded by timeout(1) or killed by PID.
#   sh tests/io_cat_edges.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_cat_edges.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-cat-edges
. "$SRC/tests/support/tools_env.sh"
BASE=$((30000 + ($$ % 900) * 10))

# wait_for FILE PATTERN: up to 10 s for PATTERN in FILE.
wait_for() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
}

head -c 3000000 /dev/urandom >"$T/bin"

# 1. The reader exits early.  The listener's exit status comes out of the
# pipeline through a file (sh has no pipefail).
P=$((BASE + 1))
( timeout -k 5 60 "$CAT" -l "$P" </dev/null 2>"$T/pipe.srv"
  echo $? >"$T/pipe.rc" ) | head -c 1000 >/dev/null &
ppid=$!
PIDS="$PIDS $ppid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 60 "$CAT" 127.0.0.1 "$P" <"$T/bin" >/dev/null 2>"$T/pipe.cli" &
cpid=$!
PIDS="$PIDS $cpid"
if ! wait_pid "$cpid" 20; then
  fail "reader gone: the client still runs 20 s later (nobody told it): $(cat "$T/pipe.srv")"
else
  crc=$RC
  wait_pid "$ppid" 10
  src=$(cat "$T/pipe.rc" 2>/dev/null)
  if [ "$src" = 1 ] && grep -q "cannot write to standard output" "$T/pipe.srv" &&
     [ "$crc" -eq 1 ] && grep -q "reset by the peer (Reset: Aborted)" "$T/pipe.cli"; then
    pass "reader gone: listener exit 1 ($(cat "$T/pipe.srv")); client exit 1 at once: $(head -n 1 "$T/pipe.cli")"
  else
    fail "reader gone: listener exit ${src:-?} (want 1, not 141: SIGPIPE), client exit $crc; listener: $(cat "$T/pipe.srv"); client: $(cat "$T/pipe.cli")"
  fi
fi

# 1b. Standard output on a full disk (/dev/full): the same, with the
# reason.  The client keeps its stdin open so that the Reset finds it.
if [ -w /dev/full ]; then
  P=$((BASE + 6))
  timeout -k 5 30 "$CAT" -l "$P" </dev/null >/dev/full 2>"$T/full.srv" &
  spid=$!
  PIDS="$PIDS $spid"
  wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
  (echo hello; sleep 3) | timeout -k 5 30 "$CAT" 127.0.0.1 "$P" >/dev/null 2>"$T/full.cli"
  crc=$?
  wait_pid "$spid" 10 || fail "full disk: the listener hangs"
  if [ "$RC" -eq 1 ] && grep -q "No space left on device" "$T/full.srv" &&
     [ "$crc" -eq 1 ]; then
    pass "full disk: listener exit 1 ($(cat "$T/full.srv")), client exit 1"
  else
    fail "full disk: listener exit $RC, client exit $crc; listener: $(cat "$T/full.srv"); client: $(cat "$T/full.cli")"
  fi
else
  fail "/dev/full is not writable here"
fi

# 2. A second client while the first is served (no -k).
P=$((BASE + 2))
timeout -k 5 60 "$CAT" -l "$P" </dev/null >"$T/two.out" 2>"$T/two.srv" &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
(echo first-a; sleep 4; echo first-b) |
  timeout -k 5 30 "$CAT" 127.0.0.1 "$P" >/dev/null 2>"$T/two1.cli" &
c1=$!
PIDS="$PIDS $c1"
# the first is being served (not only started) before the second comes
wait_for "$T/two.out" first-a
(echo second-a; sleep 1; echo second-b) |
  timeout -k 5 30 "$CAT" 127.0.0.1 "$P" >/dev/null 2>"$T/two2.cli"
rc2=$?
wait_pid "$c1" 20 || fail "two clients: the first client hangs"
rc1=$RC
wait_pid "$spid" 20 || fail "two clients: the listener hangs"
if [ "$rc1" -eq 0 ] && [ "$RC" -eq 0 ] &&
   [ "$(cat "$T/two.out")" = "$(printf 'first-a\nfirst-b')" ] &&
   [ "$rc2" -eq 1 ] && grep -q "Reset: Too Busy" "$T/two2.cli" &&
   grep -q "refused the connection" "$T/two.srv"; then
  pass "two clients, no -k: the second refused ($(head -n 1 "$T/two2.cli")), the first intact"
else
  fail "two clients: first exit $rc1, second exit $rc2 (want 1), listener exit $RC, got '$(cat "$T/two.out")'; listener: $(cat "$T/two.srv"); second: $(cat "$T/two2.cli")"
fi

# 2b. The same with --multipath (udccp_mpsock_accept) on both ends.
P=$((BASE + 7))
timeout -k 5 60 "$CAT" -l --multipath "$P" </dev/null >"$T/mp.out" 2>"$T/mp.srv" &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
(echo first-a; sleep 4; echo first-b) |
  timeout -k 5 30 "$CAT" --multipath 127.0.0.1 "$P" >/dev/null 2>"$T/mp1.cli" &
c1=$!
PIDS="$PIDS $c1"
# the first is being served (not only started) before the second comes
wait_for "$T/mp.out" first-a
(echo second-a; sleep 1; echo second-b) |
  timeout -k 5 30 "$CAT" --multipath 127.0.0.1 "$P" >/dev/null 2>"$T/mp2.cli"
rc2=$?
wait_pid "$c1" 20 || fail "two multipath clients: the first client hangs"
rc1=$RC
wait_pid "$spid" 20 || fail "two multipath clients: the listener hangs"
if [ "$rc1" -eq 0 ] && [ "$RC" -eq 0 ] &&
   [ "$(cat "$T/mp.out")" = "$(printf 'first-a\nfirst-b')" ] &&
   [ "$rc2" -eq 1 ] && grep -q "refused the multipath connection" "$T/mp.srv"; then
  pass "two multipath clients, no -k: the second refused ($(head -n 1 "$T/mp2.cli")), the first intact"
else
  fail "two multipath clients: first exit $rc1, second exit $rc2 (want 1), listener exit $RC, got '$(cat "$T/mp.out")'; listener: $(cat "$T/mp.srv"); second: $(cat "$T/mp2.cli")"
fi

# 3. -k listener stopped by SIGTERM with a client in its accept queue
# (both clients -d: connected, sending nothing, until the listener goes).
P=$((BASE + 3))
timeout -k 5 60 "$CAT" -l -k "$P" </dev/null >"$T/k.out" 2>"$T/k.srv" &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 40 "$CAT" -d -v 127.0.0.1 "$P" >/dev/null 2>"$T/k1.cli" &
c1=$!
PIDS="$PIDS $c1"
wait_for "$T/k1.cli" connected
sleep 0.3
timeout -k 5 40 "$CAT" -d -v 127.0.0.1 "$P" >/dev/null 2>"$T/k2.cli" &
c2=$!
PIDS="$PIDS $c2"
wait_for "$T/k2.cli" connected
sleep 0.3
kill -TERM "$spid"
wait_pid "$spid" 10 || fail "-k SIGTERM: the listener did not exit"
if wait_pid "$c2" 10 && [ "$RC" -eq 1 ] &&
   grep -q "reset by the peer (Reset: Aborted)" "$T/k2.cli"; then
  pass "-k SIGTERM: the waiting client was reset at once: $(grep reset "$T/k2.cli")"
else
  fail "-k SIGTERM: the client in the accept queue: exit ${RC:-?} or still waiting; $(cat "$T/k2.cli")"
fi
wait_pid "$c1" 10 || fail "-k SIGTERM: the served client still runs"

# 4. -w 0 and -l -w.
timeout -k 5 10 "$CAT" -w 0 127.0.0.1 $((BASE + 4)) </dev/null >/dev/null 2>"$T/w0.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid wait" "$T/w0.err" ||
  fail "-w 0: exit $rc (want 2): $(cat "$T/w0.err")"
timeout -k 5 10 "$CAT" -l -w 0.3 $((BASE + 5)) </dev/null >/dev/null 2>"$T/lw.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "no connection came within 0.3 s" "$T/lw.err"; then
  pass "-w 0 refused; -l -w 0.3: $(cat "$T/lw.err")"
else
  fail "-l -w 0.3: exit $rc: $(cat "$T/lw.err")"
fi

# 5. A multipath client from an address not on this host (192.0.2.1,
# TEST-NET-1: bound, never sent to).
t0=$(date +%s)
timeout -k 5 20 "$CAT" --multipath=192.0.2.1 127.0.0.1 $((BASE + 6)) \
  </dev/null >/dev/null 2>"$T/mpl.err"
rc=$?
t1=$(date +%s)
if [ "$rc" -eq 1 ] && [ $((t1 - t0)) -le 2 ] &&
   grep -q "Cannot assign requested address" "$T/mpl.err"; then
  pass "--multipath from a foreign address: at once: $(cat "$T/mpl.err")"
else
  fail "--multipath=192.0.2.1: exit $rc after $((t1 - t0)) s: $(cat "$T/mpl.err")"
fi

# 6. Standard input or output closed by the shell (<&-, >&-): the
# endpoint's socket took descriptor 0 or 1; a client read its own socket
# as stdin and hung (until timeout), a listener wrote a received datagram
# into a socket ("Destination address required").  Now a usage error
# that says so; -d (nothing to read) still works with stdin closed.
timeout -k 5 10 "$CAT" 127.0.0.1 $((BASE + 7)) <&- >/dev/null 2>"$T/c0.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "standard input is closed: give -d" "$T/c0.err" ||
  fail "stdin closed: exit $rc (want 2): $(cat "$T/c0.err")"
timeout -k 5 10 "$CAT" -l $((BASE + 7)) </dev/null >&- 2>"$T/c1.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "standard output is closed" "$T/c1.err" ||
  fail "stdout closed: exit $rc (want 2): $(cat "$T/c1.err")"
timeout -k 5 10 "$CAT" -d -w 0.3 127.0.0.1 $((BASE + 8)) <&- >/dev/null 2>"$T/c2.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "refused\|timed out\|no answer" "$T/c2.err"; then
  pass "stdin/stdout closed: usage errors; -d with stdin closed connects: $(cat "$T/c2.err")"
else
  fail "-d with stdin closed: exit $rc: $(cat "$T/c2.err")"
fi

# 7. --pcap to a path that cannot be created: a usage error, as
# udccp-sim's (exit 1 before).
timeout -k 5 10 "$CAT" --pcap /nonexistent/x.pcap 127.0.0.1 $((BASE + 9)) \
  </dev/null >/dev/null 2>"$T/pc.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "cannot create --pcap file '/nonexistent/x.pcap' (No such" "$T/pc.err"; then
  pass "--pcap unwritable: $(cat "$T/pc.err")"
else
  fail "--pcap /nonexistent/x.pcap: exit $rc (want 2): $(cat "$T/pc.err")"
fi

if [ "$FAILS" -ne 0 ]; then
  echo "io_cat_edges: $FAILS failure(s)"
  exit 1
fi
echo "io_cat_edges: all passed"
