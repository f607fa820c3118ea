#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the main job on loopback in one command.  A udccp-perf server
# and client talk DCCP-UDP (RFC 6773) over 127.0.0.1: CCID 2, then CCID 3,
# a few seconds each, with interval lines and a summary; then a simulated
# CCID 2 flow sharing a bottleneck with TCP Reno (sim/, virtual time).
# Usage: sh tools/demo.sh BUILD_DIR   (builds nothing)
set -eu
BUILD=${1:-build}
PERF="$BUILD/udccp-perf"
SIM="$BUILD/udccp-sim"
for t in "$PERF" "$SIM"; do
  if [ ! -x "$t" ]; then
    echo "demo: $t not found; build first (make build)" >&2
    exit 1
  fi
done
PORT=${DEMO_PORT:-7521}
srv=""
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

for ccid in 2 3; do
  echo "== udccp-perf, CCID $ccid, DCCP-UDP over 127.0.0.1, 4 s =="
  "$PERF" -s -1 -p "$PORT" >/dev/null 2>&1 &
  srv=$!
  sleep 0.5
  timeout 30 "$PERF" -c 127.0.0.1 -p "$PORT" -t 4 --ccid "$ccid"
  wait "$srv" 2>/dev/null || true
  srv=""
  echo
done

echo "== simulated: CCID 2 and TCP Reno sharing 20 Mbit/s, 20 ms one-way, 20 s =="
echo "   $SIM --flows ccid2,tcp --rate 20mbit --delay 20ms --duration 20s"
"$SIM" --flows ccid2,tcp --rate 20mbit --delay 20ms --duration 20s
