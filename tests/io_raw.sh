#!/bin/sh
# udccp-perf over native DCCP (raw IP sockets, protocol 33) on 127.0.0.1
# and ::1.  Raw sockets need root: without it this test FAILS (it does not
# skip), saying so.
#   sh tests/io_raw.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: io_raw.sh BUILD_DIR SOURCE_DIR}
PERF="$B/udccp-perf"
if [ "$(id -u)" != 0 ]; then
  echo "FAIL: io_raw needs root (raw DCCP sockets need CAP_NET_RAW); run as root"
  exit 1
fi
[ -x "$PERF" ] || { echo "FAIL: $PERF not built"; exit 1; }
T=$(mktemp -d /tmp/udccp-io-raw.XXXXXX)
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT INT TERM
FAILS=0
PORT=$((42000 + ($$ % 1000) * 4))
json_num() {
  sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" "$1" | head -n 1
}
for host in 127.0.0.1 ::1; do
  PORT=$((PORT + 1))
  timeout 30 "$PERF" -s -1 --raw -p "$PORT" >"$T/srv" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  sleep 0.3
  timeout 30 "$PERF" -c "$host" --raw -p "$PORT" -t 2 -J >"$T/out" 2>"$T/err"
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
[ "$FAILS" -eq 0 ] || exit 1
echo "io_raw: all passed"
