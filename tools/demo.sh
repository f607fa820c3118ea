#!/bin/sh
# make demo: a short, readable transfer.  Until the socket runtime has its
# own demo this is simulated: a udccp CCID 2 connection and a reference TCP
# flow share a 20 Mbit/s bottleneck with 20 ms one-way delay for 20 s of
# virtual time (a real udccp client and server, driven through the public
# API; see sim/).  Usage: sh tools/demo.sh BUILD_DIR   (builds nothing)
set -eu
BUILD=${1:-build}
SIM="$BUILD/udccp-sim"
if [ ! -x "$SIM" ]; then
  echo "demo: $SIM not found; build first (make build)" >&2
  exit 1
fi
echo "== udccp demo: CCID 2 and TCP sharing 20 Mbit/s, 20 ms one-way, 20 s =="
echo "   $SIM --flows ccid2,tcp --rate 20mbit --delay 20ms --duration 20s"
echo
"$SIM" --flows ccid2,tcp --rate 20mbit --delay 20ms --duration 20s
echo
echo "== the same CCID 2 connection alone, with 2% random loss =="
echo "   $SIM --flows ccid2 --rate 20mbit --delay 20ms --duration 20s --loss 0.02"
echo
"$SIM" --flows ccid2 --rate 20mbit --delay 20ms --duration 20s --loss 0.02
