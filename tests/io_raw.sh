#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf and udccp-cat over native DCCP (raw IP sockets, protocol 33)
# on 127.0.0.1 and ::1: perf's JSON summary, and cat moving a 10,000-line
# file (one datagram a line) intact with a clean close on EOF.  Raw sockets
# need root: without it this test FAILS (it does not skip), saying so.
#   sh tests/io_raw.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_raw.sh BUILD_DIR SOURCE_DIR}
if [ "$(id -u)" != 0 ]; then
  echo "FAIL: io_raw needs root (raw DCCP sockets need CAP_NET_RAW); run as root"
  exit 1
fi
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-raw
. "$SRC/tests/support/tools_env.sh"
PORT=$((42000 + ($$ % 1000) * 4))
for host in 127.0.0.1 ::1; do
  PORT=$((PORT + 1))
  timeout -k 5 30 "$PERF" -s -1 --raw -p "$PORT" >"$T/srv" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  sleep 0.3
  timeout -k 5 30 "$PERF" -c "$host" --raw -p "$PORT" -t 2 -J >"$T/out" 2>"$T/err"
  rc=$?
  i=0
  while kill -0 "$spid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill "$spid" 2>/dev/null
  gp=$(json_num "$T/out" goodput_bps)
  rx=$(json_num "$T/out" received_pkts)
  if [ "$rc" -eq 0 ] && [ -n "$gp" ] && [ -n "$rx" ] &&
     awk "BEGIN{exit !($gp > 0 && $rx > 0)}"; then
    echo "ok:   raw $host: goodput $(awk "BEGIN{printf \"%.1f\", $gp/1e6}") Mbit/s, $rx pkts"
  else
    echo "FAIL: raw $host: exit $rc: $(cat "$T/err") $(cat "$T/out")"
    FAILS=$((FAILS + 1))
  fi
done

# udccp-cat: each line one datagram; EOF closes (Close, RFC 4340 §8.3) and
# both ends exit 0 once the close completed.
awk 'BEGIN{for (i = 1; i <= 10000; i++) printf "raw line %05d %s\n", i, (i % 5 ? "" : "with a longer tail to vary the datagram sizes")}' >"$T/in.txt"
for host in 127.0.0.1 ::1; do
  PORT=$((PORT + 1))
  timeout -k 5 60 "$CAT" --raw -l -d -v -p "$PORT" >"$T/cat.out" 2>"$T/cat.srv" &
  spid=$!
  PIDS="$PIDS $spid"
  sleep 0.3
  timeout -k 5 60 "$CAT" --raw -v -p "$PORT" "$host" <"$T/in.txt" 2>"$T/cat.cli"
  rc=$?
  i=0
  while kill -0 "$spid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
  if kill -0 "$spid" 2>/dev/null; then
    kill "$spid" 2>/dev/null
    echo "FAIL: raw cat $host: the listener did not exit after the close"
    FAILS=$((FAILS + 1))
    continue
  fi
  wait "$spid"
  src=$?
  if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ] && cmp -s "$T/in.txt" "$T/cat.out"; then
    echo "ok:   raw cat $host: 10,000 lines intact, clean close; $(grep datagrams "$T/cat.srv")"
  else
    echo "FAIL: raw cat $host: client exit $rc, listener exit $src, $(wc -l <"$T/cat.out") of 10000 lines; listener: $(cat "$T/cat.srv"); client: $(cat "$T/cat.cli")"
    FAILS=$((FAILS + 1))
  fi
done
# -6 / -4 on both ends: the endpoint is bound to the family's wildcard,
# and the client still puts the route's source address in the checksum's
# pseudo-header (before, -6 --raw made every packet fail the listener's
# check: the connect timed out).
for fam in 6 4; do
  PORT=$((PORT + 1))
  host=::1
  [ "$fam" = 4 ] && host=127.0.0.1
  timeout -k 5 20 "$CAT" --raw -l -d -"$fam" -p "$PORT" >"$T/fam.out" 2>"$T/fam.srv" &
  spid=$!
  PIDS="$PIDS $spid"
  sleep 0.3
  echo "hello over -$fam" | timeout -k 5 15 "$CAT" --raw -"$fam" -w 5 -p "$PORT" "$host" 2>"$T/fam.cli"
  rc=$?
  wait "$spid"
  src=$?
  if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ] && grep -q "hello over -$fam" "$T/fam.out"; then
    echo "ok:   raw cat -$fam (wildcard-bound endpoints): the line arrived"
  else
    echo "FAIL: raw cat -$fam: client exit $rc, listener exit $src: $(cat "$T/fam.cli" "$T/fam.srv")"
    FAILS=$((FAILS + 1))
  fi
done
[ "$FAILS" -eq 0 ] || exit 1
echo "io_raw: all passed"
