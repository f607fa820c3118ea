#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-cat --multipath (RFC 9897) over loopback DCCP-UDP, two local
# addresses (127.0.0.1 and 127.0.0.2), as udccp-perf --multipath:
#  - `udccp-cat -l --multipath PORT` and `udccp-cat --multipath
#    127.0.0.1,127.0.0.2 --mp-sched rr -v 127.0.0.1 PORT < file`: the file
#    arrives intact, both exit 0, -v shows both paths carrying datagrams;
#  - a listener without multipath: the client falls back to plain DCCP
#    (§3.6), the file arrives intact, -v says multipath is off;
#  - the listener killed (SIGKILL) while input is still to come: the
#    client exits 1 and says how much input was not sent (never lost
#    silently);
#  - usage errors exit 2 (--mp-sched without --multipath, or on a
#    listener, was ignored).
# ~10 s under ASan.  Every process is bounded by timeout(1) or killed by
# PID.  A client starts once its listener's UDP port is bound
# (wait_udp_port): started earlier it is refused at once, and "sleep 0.5"
# was too short for an ASan listener on a loaded machine.   sh tests/io_cat_mp.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_cat_mp.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-cat-mp
. "$SRC/tests/support/tools_env.sh"
BASE=$((42000 + ($$ % 2000) * 10))

awk 'BEGIN{for (i = 1; i <= 20000; i++) printf "line %05d of the multipath udccp-cat test\n", i}' >"$T/lines.txt"

# 1. Two paths, round-robin.
P=$((BASE + 1))
timeout -k 5 60 "$CAT" -l --multipath -v "$P" >"$T/mp.out" 2>"$T/mp.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P in 30 s"
timeout -k 5 60 "$CAT" --multipath 127.0.0.1,127.0.0.2 --mp-sched rr -v 127.0.0.1 "$P" \
  <"$T/lines.txt" >/dev/null 2>"$T/mp.cli"
crc=$?
RC=99
wait_pid "$spid" 20 || fail "two paths: the listener did not exit"
p0=$(sed -n 's/.*path 0 127.0.0.1 -> 127.0.0.1: .*, sent \([0-9]*\) datagrams.*/\1/p' "$T/mp.cli")
p1=$(sed -n 's/.*path 1 127.0.0.2 -> 127.0.0.1: .*, sent \([0-9]*\) datagrams.*/\1/p' "$T/mp.cli")
if [ "$crc" -eq 0 ] && [ "$RC" -eq 0 ] && cmp -s "$T/lines.txt" "$T/mp.out" &&
   grep -q "multipath active, 2 paths" "$T/mp.cli" &&
   [ -n "$p0" ] && [ -n "$p1" ] && [ "$p0" -gt 0 ] && [ "$p1" -gt 0 ]; then
  pass "two paths: $(wc -c <"$T/lines.txt") bytes intact, $p0 + $p1 datagrams over the two paths, both exit 0"
else
  fail "two paths: client exit $crc, listener exit $RC, $(wc -c <"$T/mp.out") of $(wc -c <"$T/lines.txt") bytes; client: $(cat "$T/mp.cli"); listener: $(cat "$T/mp.srv")"
fi

# 2. RFC 9897 §3.6: a listener without multipath.
P=$((BASE + 2))
timeout -k 5 60 "$CAT" -l "$P" >"$T/fb.out" 2>"$T/fb.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P in 30 s"
timeout -k 5 60 "$CAT" --multipath=127.0.0.1,127.0.0.2 -v 127.0.0.1 "$P" \
  <"$T/lines.txt" >/dev/null 2>"$T/fb.cli"
crc=$?
RC=99
wait_pid "$spid" 20 || fail "fallback: the listener did not exit"
if [ "$crc" -eq 0 ] && [ "$RC" -eq 0 ] && cmp -s "$T/lines.txt" "$T/fb.out" &&
   grep -q "multipath off" "$T/fb.cli" && grep -q "1 path," "$T/fb.cli"; then
  pass "fallback (RFC 9897 §3.6): plain DCCP, the file intact, both exit 0"
else
  fail "fallback: client exit $crc, listener exit $RC; client: $(cat "$T/fb.cli")"
fi

# 3. The listener killed while input is still to come.
P=$((BASE + 3))
"$CAT" -l --multipath "$P" >"$T/kill.out" 2>"$T/kill.srv" </dev/null &
spid=$!
PIDS="$PIDS $spid"
wait_udp_port "$P" 30 || fail "the listener did not bind UDP port $P in 30 s"
# the rest of the input comes once the listener is dead (a fixed "sleep 1"
# let a slow machine send it all before the kill); bounded, 60 s
(seq 1 1000; j=0
 while [ ! -e "$T/killed" ] && [ $j -lt 600 ]; do sleep 0.1; j=$((j + 1)); done
 seq 1 5000) |
  timeout -k 5 60 "$CAT" --multipath 127.0.0.1,127.0.0.2 -i 3 127.0.0.1 "$P" \
    >/dev/null 2>"$T/kill.cli" &
cpid=$!
PIDS="$PIDS $cpid"
i=0
while [ "$(wc -l <"$T/kill.out")" -lt 1000 ] && [ $i -lt 300 ]; do
  sleep 0.1; i=$((i + 1))
done
kill -KILL "$spid"
: >"$T/killed"
if ! wait_pid "$cpid" 30; then
  fail "killed listener: the client still runs 30 s later"
elif [ "$RC" -eq 1 ] && grep -q "input not sent" "$T/kill.cli"; then
  pass "killed listener: client exit 1: $(cat "$T/kill.cli")"
else
  fail "killed listener: client exit $RC; client: $(cat "$T/kill.cli")"
fi

# 4. Usage errors.
for args in "-l --multipath=127.0.0.1 $BASE" \
            "--multipath --mp-sched fastest 127.0.0.1 $BASE" \
            "--multipath -s 127.0.0.1 127.0.0.1 $BASE" \
            "--mp-sched rr 127.0.0.1 $BASE" \
            "-l --multipath --mp-sched rr $BASE"; do
  # shellcheck disable=SC2086
  timeout -k 5 10 "$CAT" $args </dev/null >/dev/null 2>"$T/usage.err"
  rc=$?
  if [ "$rc" -eq 2 ] && [ -s "$T/usage.err" ]; then
    pass "usage error ($args): exit 2, $(cat "$T/usage.err")"
  else
    fail "usage error ($args): exit $rc"
  fi
done

[ "$FAILS" -eq 0 ] || exit 1
exit 0
