#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/wireshark/dccp-udp.lua (issue 15): tshark decodes a DCCP-UDP
# capture (RFC 6773) as DCCP, clean.  A udccp-cat transfer over loopback
# is captured with tcpdump; with the plugin every frame dissects as DCCP
# (Request, Response, DataAck, ... Reset) with no expert warning or error,
# in particular no "Bad checksum" (RFC 6773 §3.3: the DCCP checksum field
# is zero); without it, the same frames are plain UDP.
# Capturing needs root (tcpdump on lo): otherwise SKIP (exit 77), said.
#
#   sh tests/wireshark_dccp_udp.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: wireshark_dccp_udp.sh BUILD SRC}
SRC=${2:?usage: wireshark_dccp_udp.sh BUILD SRC}
LUA=$SRC/tools/wireshark/dccp-udp.lua
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: capturing on lo needs root (tcpdump)"; exit 77
fi
for t in tshark tcpdump; do
  command -v $t >/dev/null 2>&1 || fail "$t is not installed (apt-get install $t)"
done
[ -f "$LUA" ] || fail "$LUA is missing"
CAT=$BUILD/udccp-cat
[ -x "$CAT" ] || fail "$CAT not built"
TMP=$(mktemp -d /tmp/udccp-ws.XXXXXX)
chmod 755 "$TMP" # tcpdump drops to its own user to write the file
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
port=$((30000 + $$ % 20000))

timeout -k 5 30 tcpdump -U -n -i lo -w "$TMP/cap.pcap" udp port $port \
  >/dev/null 2>"$TMP/tcpdump.err" &
tpid=$!
pids="$pids $tpid"
k=0
until grep -q listening "$TMP/tcpdump.err" 2>/dev/null; do
  k=$((k + 1)); [ $k -lt 100 ] || { cat "$TMP/tcpdump.err"; fail "tcpdump did not start"; }
  sleep 0.1
done
timeout -k 5 20 "$CAT" -l --udp-port $port 127.0.0.1 5555 >"$TMP/out" 2>"$TMP/l.err" &
pids="$pids $!"
sleep 0.5
seq 1 50 | timeout -k 5 20 "$CAT" --udp-port $port 127.0.0.1 5555 2>"$TMP/c.err" ||
  { cat "$TMP/l.err" "$TMP/c.err"; fail "udccp-cat transfer failed"; }
sleep 1
kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null

ts() { tshark -n -X lua_script:"$LUA" -o dccp-udp.port:$port -r "$TMP/cap.pcap" "$@" 2>"$TMP/tshark.err"; }
n=$(tshark -n -r "$TMP/cap.pcap" 2>/dev/null | wc -l)
[ "$n" -ge 20 ] || fail "only $n frames captured"
# without the plugin: UDP only
plain=$(tshark -n -r "$TMP/cap.pcap" -Y dccp 2>/dev/null | wc -l)
[ "$plain" = 0 ] || fail "tshark decodes DCCP-UDP without the plugin ($plain frames): the test proves nothing"
# with it: every frame is DCCP, of the expected types
dccp=$(ts -Y dccp | wc -l)
[ "$dccp" = "$n" ] || { cat "$TMP/tshark.err"; fail "$dccp of $n frames dissect as DCCP"; }
for type in Request Response DataAck Reset; do
  ts | grep -q "\[$type\]" || fail "no $type frame decoded"
done
ts -T fields -e dccp.srcport -e dccp.dstport | sort -u | grep -q "5555" ||
  fail "DCCP ports (5555) not decoded"
# clean: no expert info at all (a bad checksum, a malformed option, ...)
ts -q -z expert >"$TMP/expert"
if grep -Eq "Errors|Warns|Malformed|Bad checksum" "$TMP/expert"; then
  cat "$TMP/expert"; fail "expert infos in the dissection"
fi
ts -Y "_ws.malformed || _ws.expert.severity >= 6291456" | grep -q . &&
  fail "malformed or warned frames"
echo "PASS: $n DCCP-UDP frames dissect as DCCP with the plugin, no expert warnings"
