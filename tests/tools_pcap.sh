#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf and udccp-cat --pcap FILE (issue 15): each end captures what
# it sends and receives, and tshark dissects the files clean.  DCCP-UDP:
# with tools/wireshark/dccp-udp.lua every frame is DCCP inside UDP/IP whose
# UDP ports are the test's (the server's UDP port, the client's ephemeral
# one), IP and UDP checksums good, no malformed frame, no expert warning;
# over IPv4 (udccp-perf) and IPv6 (udccp-cat).  Native DCCP (--raw, as
# root): IP protocol 33 with good DCCP checksums, no plugin needed.  Both
# ends' captures hold the same DCCP packets, seen from each side.  A
# capture with one byte flipped must fail the same checks (self-test).
#
#   sh tests/tools_pcap.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: tools_pcap.sh BUILD SRC}
SRC=${2:?usage: tools_pcap.sh BUILD SRC}
LUA=$SRC/tools/wireshark/dccp-udp.lua
PERF=$BUILD/udccp-perf
CAT=$BUILD/udccp-cat
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v tshark >/dev/null 2>&1 ||
  fail "tshark is not installed (apt-get install tshark, or 'make deps')"
for f in "$LUA" "$PERF" "$CAT"; do [ -e "$f" ] || fail "$f is missing"; done
TMP=$(mktemp -d /tmp/udccp-pcap.XXXXXX)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
port=$((30000 + $$ % 20000))

# One line per frame: ip.proto or ipv6.nxt | udp ports | dccp.type |
# checksum statuses (ip, udp, dccp; 1 good, 0 bad) | expert severities |
# malformed.  $1: file; $2: UDP port of DCCP-UDP ("" for native).
dissect() {
  if [ -n "$2" ]; then set -- "$1" -X lua_script:"$LUA" -o dccp-udp.port:"$2"
  else set -- "$1"; fi
  f=$1; shift
  tshark -n -r "$f" "$@" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
    -o dccp.check_checksum:TRUE -T fields -E separator='|' -E occurrence=a \
    -E aggregator=';' -e ip.proto -e ipv6.nxt -e udp.srcport -e udp.dstport \
    -e dccp.srcport -e dccp.dstport -e dccp.type -e ip.checksum.status \
    -e udp.checksum.status -e dccp.checksum.status -e _ws.expert.severity \
    -e _ws.malformed 2>"$TMP/tshark.err"
}
# "frames dccp bad_cksum warned malformed" for a dissection on stdin;
# warned: expert severity warning (6291456) or error (8388608).
tally() {
  awk -F'|' '
    { n++ }
    $7 != "" { d++ }
    $8 == "0" || $9 == "0" || $10 == "0" { b++ }
    $11 ~ /6291456|8388608/ { w++ }
    $12 != "" { m++ }
    END { printf "%d %d %d %d %d\n", n, d, b, w, m }'
}
# check NAME FILE UDPPORT MINFRAMES DCCPPORT: every frame DCCP, clean.
check() {
  dissect "$2" "$3" >"$TMP/d" || { cat "$TMP/tshark.err"; fail "$1: tshark failed"; }
  set -- "$1" "$2" "$3" "$4" "$5" $(tally <"$TMP/d")
  [ "$6" -ge "$4" ] || fail "$1: only $6 frames captured (want >= $4)"
  [ "$7" = "$6" ] || { head "$TMP/d"; fail "$1: $7 of $6 frames dissect as DCCP"; }
  [ "$8" = 0 ] || { grep -m3 '|0|' "$TMP/d"; fail "$1: $8 frames with a bad IP/UDP/DCCP checksum"; }
  [ "$9" = 0 ] || { grep -m3 '6291456\|8388608' "$TMP/d"; fail "$1: $9 frames with expert warnings"; }
  [ "${10}" = 0 ] || fail "$1: ${10} malformed frames"
  for t in 0 1 3; do # Request, Response, Ack: the handshake
    cut -d'|' -f7 "$TMP/d" | grep -qx "$t" || fail "$1: no DCCP packet of type $t"
  done
  cut -d'|' -f7 "$TMP/d" | grep -qx '[24]' || fail "$1: no Data or DataAck"
  cut -d'|' -f7 "$TMP/d" | grep -qx '[5-7]' || fail "$1: no CloseReq, Close or Reset"
  cut -d'|' -f5,6 "$TMP/d" | grep -q "$5" || fail "$1: DCCP port $5 not seen"
  if [ -n "$3" ]; then
    bad=$(awk -F'|' -v p="$3" '$3 != p && $4 != p' "$TMP/d" | wc -l)
    [ "$bad" = 0 ] || fail "$1: $bad frames not to or from UDP port $3"
  fi
  echo "ok: $1: $6 frames, all DCCP, clean"
}
# The same checks must see one corrupted byte (in the DCCP header of the
# first frame: 24 + 16 (record) + IP + UDP + 9 (within the sequence)).
selftest() {
  cp "$2" "$TMP/bad.pcap"
  printf '\377' | dd of="$TMP/bad.pcap" bs=1 seek="$4" conv=notrunc 2>/dev/null
  set -- $(dissect "$TMP/bad.pcap" "$3" | tally)
  [ "$3" -ge 1 ] || fail "self-test $1: a flipped byte went unnoticed"
}

# 1. udccp-perf over DCCP-UDP on IPv4: both ends capture.
timeout 30 "$PERF" -s -1 -p 5301 --udp-port $port --pcap "$TMP/srv.pcap" \
  >"$TMP/srv.out" 2>&1 &
spid=$!; pids="$pids $spid"
sleep 0.5
timeout 30 "$PERF" -c 127.0.0.1 -p 5301 --udp-port $port -t 1 -b 4mbit -l 500 \
  -V --pcap "$TMP/cli.pcap" >"$TMP/cli.out" 2>&1 ||
  { cat "$TMP/cli.out" "$TMP/srv.out"; fail "udccp-perf test failed"; }
wait $spid || { cat "$TMP/srv.out"; fail "udccp-perf server failed"; }
grep -q "packets captured in $TMP/cli.pcap" "$TMP/cli.out" ||
  fail "udccp-perf -V does not say how many packets it captured"
check "udccp-perf client (IPv4)" "$TMP/cli.pcap" $port 600 5301
nc=$(cut -d'|' -f7 "$TMP/d" | grep -cx '[24]')
check "udccp-perf server (IPv4)" "$TMP/srv.pcap" $port 600 5301
ns=$(cut -d'|' -f7 "$TMP/d" | grep -cx '[24]')
selftest perf "$TMP/cli.pcap" $port $((24 + 16 + 20 + 8 + 9))
# both ends saw the same packets: the data ones in the client's are in the
# server's capture too, up to the losses (none on loopback at 4 Mbit/s)
[ "$nc" -ge 500 ] && [ $((nc - ns)) -le $((nc / 100)) ] && [ "$ns" -le "$nc" ] ||
  fail "data packets: client captured $nc, server $ns"
echo "ok: data packets: client sent $nc, server captured $ns"

# 2. udccp-cat over DCCP-UDP on IPv6.
port2=$((port + 1))
timeout 20 "$CAT" -l -6 --udp-port $port2 ::1 5302 --pcap "$TMP/l.pcap" \
  >"$TMP/cat.out" 2>"$TMP/l.err" &
lpid=$!; pids="$pids $lpid"
sleep 0.5
seq 1 200 | timeout 20 "$CAT" --udp-port $port2 -v --pcap "$TMP/c.pcap" ::1 5302 \
  2>"$TMP/c.err" || { cat "$TMP/l.err" "$TMP/c.err"; fail "udccp-cat transfer failed"; }
wait $lpid || { cat "$TMP/l.err"; fail "udccp-cat listener failed"; }
[ "$(wc -l <"$TMP/cat.out")" = 200 ] || fail "udccp-cat: $(wc -l <"$TMP/cat.out") of 200 lines arrived"
grep -q "packets captured in $TMP/c.pcap" "$TMP/c.err" ||
  fail "udccp-cat -v does not say how many packets it captured"
check "udccp-cat client (IPv6)" "$TMP/c.pcap" $port2 200 5302
check "udccp-cat listener (IPv6)" "$TMP/l.pcap" $port2 200 5302
v6=$(cut -d'|' -f2 "$TMP/d" | grep -cx 17)
[ "$v6" -ge 200 ] || fail "udccp-cat: the IPv6 capture has $v6 UDP-in-IPv6 frames"
selftest cat "$TMP/c.pcap" $port2 $((24 + 16 + 40 + 8 + 9))

# 3. native DCCP (--raw): IP protocol 33, needs root.
if [ "$(id -u)" = 0 ]; then
  timeout 30 "$PERF" -s -1 --raw -p 5303 >"$TMP/rsrv.out" 2>&1 &
  spid=$!; pids="$pids $spid"
  sleep 0.5
  timeout 30 "$PERF" -c 127.0.0.1 --raw -p 5303 -t 1 -b 2mbit -l 500 \
    --pcap "$TMP/raw.pcap" >"$TMP/rcli.out" 2>&1 ||
    { cat "$TMP/rcli.out" "$TMP/rsrv.out"; fail "udccp-perf --raw failed"; }
  wait $spid || { cat "$TMP/rsrv.out"; fail "udccp-perf --raw server failed"; }
  check "udccp-perf --raw client" "$TMP/raw.pcap" "" 300 5303
  p33=$(cut -d'|' -f1 "$TMP/d" | grep -cx 33)
  [ "$p33" -ge 300 ] || fail "--raw: only $p33 frames of IP protocol 33"
  selftest raw "$TMP/raw.pcap" "" $((24 + 16 + 20 + 9))
else
  echo "note: not root: the native DCCP (--raw) capture is not tested"
fi
echo "PASS: --pcap captures of udccp-perf and udccp-cat dissect clean"
