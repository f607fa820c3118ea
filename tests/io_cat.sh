#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-cat as netcat in a script (issue 15, acceptance 1), over loopback
# DCCP-UDP:
#  - `udccp-cat -l PORT > out &` (stdin at /dev/null, as for any background
#    job of a script) then `udccp-cat HOST PORT < file`: the listener keeps
#    receiving although its stdin is empty, every line arrives, both exit 0;
#  - a 20 MB file of short lines arrives whole (no loss to our queues or
#    to the receiver's socket buffer: the sender's in-flight cap);
#  - the listener killed mid-transfer: the client exits 1 and says how many
#    bytes of its input were not sent;
#  - a listener with stdin at /dev/null waits for lines sent later;
#  - netcat's command line: -p still works, -4/-6, -s, -k, usage errors.
# Costs ~20-40 s under ASan on a loaded machine (the 20 MB file).  Every
# process is bounded by timeout(1) or killed by PID.
#   sh tests/io_cat.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_cat.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-cat
. "$SRC/tests/support/tools_env.sh"
BASE=$((40000 + ($$ % 2000) * 10))

# transfer NAME PORT FILE LISTEN-ARGS -- CLIENT-ARGS: a listener in the
# background as a script starts it (stdin /dev/null, stdout to a file),
# then a client fed FILE; checks both exit 0 and the output equals FILE.
transfer() {
  name=$1 port=$2 file=$3
  shift 3
  largs="" cargs="" side=l
  for a in "$@"; do
    if [ "$a" = "--" ]; then side=c; continue; fi
    if [ $side = l ]; then largs="$largs $a"; else cargs="$cargs $a"; fi
  done
  # shellcheck disable=SC2086
  timeout -k 5 120 "$CAT" -l $largs >"$T/$name.out" 2>"$T/$name.srv" </dev/null &
  spid=$!
  PIDS="$PIDS $spid"
  wait_udp_port "$port" 30 || fail "$name: the listener did not bind UDP port $port"
  # shellcheck disable=SC2086
  timeout -k 5 120 "$CAT" $cargs <"$file" >/dev/null 2>"$T/$name.cli"
  crc=$?
  if ! wait_pid "$spid" 20; then
    fail "$name: the listener did not exit after the client's close: $(cat "$T/$name.srv")"
    return
  fi
  if [ "$crc" -eq 0 ] && [ "$RC" -eq 0 ] && cmp -s "$file" "$T/$name.out"; then
    pass "$name: $(wc -l <"$file") lines, $(wc -c <"$file") bytes intact, both exit 0"
  else
    fail "$name: client exit $crc, listener exit $RC, $(wc -c <"$T/$name.out") of $(wc -c <"$file") bytes; listener: $(cat "$T/$name.srv"); client: $(cat "$T/$name.cli")"
  fi
}

awk 'BEGIN{for (i = 1; i <= 10000; i++) printf "line %05d of the udccp-cat test\n", i}' >"$T/lines.txt"

# 1. The man page's example, netcat's shape: -l PORT, HOST PORT.
transfer lines $((BASE + 1)) "$T/lines.txt" $((BASE + 1)) -- 127.0.0.1 $((BASE + 1))

# 2. 20 MB of 200-byte lines (100,000 datagrams): used to lose ~1-5 % in
# the receiver's kernel buffer on a busy machine, with exit 0.
head -c 15000000 /dev/urandom | base64 -w 199 | head -c 20000000 >"$T/big.txt"
transfer big20mb $((BASE + 2)) "$T/big.txt" $((BASE + 2)) -- 127.0.0.1 $((BASE + 2))

# 3. The listener killed mid-transfer.  It is stopped first, so that the
# client has sent what its in-flight cap allows and waits for room; then
# SIGTERM (Reset "Aborted" to the client) and SIGCONT.
# The input is a sparse file of 64 GB (no disk used): a transfer that
# cannot end before the listener is stopped, however fast it runs (a 3 MB
# file once ended first, and the listener was gone before the STOP).
P=$((BASE + 3))
truncate -s 64G "$T/endless" || fail "truncate -s 64G"
"$CAT" -l "$P" >/dev/null 2>"$T/kill.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
timeout -k 5 60 "$CAT" -v 127.0.0.1 "$P" <"$T/endless" >/dev/null 2>"$T/kill.cli" &
cpid=$!
PIDS="$PIDS $cpid"
# Connected first (on a loaded machine an ASan start takes a while): a
# listener stopped before its accept never learns of the connection.
i=0
while ! grep -q connected "$T/kill.cli" && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
sleep 0.2
kill -STOP "$spid"
sleep 1
kill -TERM "$spid"
kill -CONT "$spid"
if ! wait_pid "$cpid" 20; then
  fail "killed listener: the client still runs 20 s after the listener's Reset"
else
  unsent=$(sed -n 's/.*: \([0-9]*\) bytes of input not sent.*/\1/p' "$T/kill.cli")
  if [ "$RC" -eq 1 ] && [ -n "$unsent" ] && [ "$unsent" -gt 0 ] &&
     grep -q "reset by the peer" "$T/kill.cli"; then
    pass "killed listener: client exit 1, $unsent bytes reported unsent: $(cat "$T/kill.cli")"
  else
    fail "killed listener: client exit $RC; client: $(cat "$T/kill.cli")"
  fi
fi
wait_pid "$spid" 10 || fail "killed listener: the listener did not exit"

# 4. A listener with stdin at /dev/null keeps receiving: lines that come
# 1.5 s after the connection opened still arrive.
P=$((BASE + 4))
timeout -k 5 30 "$CAT" -l "$P" >"$T/wait.out" 2>"$T/wait.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
(echo first; sleep 1.5; echo second) | timeout -k 5 30 "$CAT" 127.0.0.1 "$P" 2>"$T/wait.cli"
crc=$?
if wait_pid "$spid" 10 && [ "$crc" -eq 0 ] && [ "$RC" -eq 0 ] &&
   [ "$(cat "$T/wait.out")" = "$(printf 'first\nsecond')" ]; then
  pass "listener with stdin at /dev/null kept receiving: $(tr '\n' ' ' <"$T/wait.out")"
else
  fail "listener with empty stdin: client exit $crc, listener exit ${RC:-?}, got '$(cat "$T/wait.out")'; $(cat "$T/wait.srv" "$T/wait.cli")"
fi

# 5. The command line.  -p as before (and the old HOST-last order).
head -n 500 "$T/lines.txt" >"$T/small.txt"
transfer opt_p $((BASE + 5)) "$T/small.txt" -p $((BASE + 5)) -- -p $((BASE + 5)) 127.0.0.1
transfer opt_v6 $((BASE + 6)) "$T/small.txt" -6 $((BASE + 6)) -- -6 ::1 $((BASE + 6))
transfer opt_v4 $((BASE + 7)) "$T/small.txt" -4 $((BASE + 7)) -- -4 -s 127.0.0.1 localhost $((BASE + 7))
transfer opt_addr $((BASE + 8)) "$T/small.txt" 127.0.0.1 $((BASE + 8)) -- 127.0.0.1 $((BASE + 8))

# -k: two connections one after the other on one listener.
P=$((BASE + 9))
timeout -k 5 30 "$CAT" -l -k "$P" >"$T/keep.out" 2>"$T/keep.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P"
echo one | timeout -k 5 10 "$CAT" 127.0.0.1 "$P" 2>"$T/keep1.cli"
rc1=$?
echo two | timeout -k 5 10 "$CAT" 127.0.0.1 "$P" 2>"$T/keep2.cli"
rc2=$?
sleep 0.3
if kill -0 "$spid" 2>/dev/null && [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] &&
   [ "$(cat "$T/keep.out")" = "$(printf 'one\ntwo')" ]; then
  pass "-k: two connections in turn, the listener still waits"
else
  fail "-k: clients exit $rc1/$rc2, got '$(cat "$T/keep.out")': $(cat "$T/keep.srv")"
fi
kill -TERM "$spid" 2>/dev/null
wait_pid "$spid" 5 || fail "-k: the listener ignored SIGTERM between connections"

# Usage errors exit 2.
for args in "-k 127.0.0.1 1" "-4 -s ::1 127.0.0.1 1" "127.0.0.1 1 2" \
            "-l 1 2 3" "-p 5 127.0.0.1 6" "127.0.0.1 70000"; do
  # shellcheck disable=SC2086
  timeout -k 5 5 "$CAT" $args </dev/null >/dev/null 2>"$T/usage.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "usage '$args': exit $rc (want 2): $(cat "$T/usage.err")"
done
"$CAT" --help | grep -q -- "-k, --keep-open" || fail "udccp-cat --help lacks -k"

if [ "$FAILS" -ne 0 ]; then
  echo "io_cat: $FAILS failure(s)"
  exit 1
fi
echo "io_cat: all passed"
