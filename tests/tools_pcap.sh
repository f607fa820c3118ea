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
# each client starts once its listener's socket exists (wait_port.sh), not
# after a fixed "sleep 0.5" that a slow listener (ASan, loaded) outlasted
. "$SRC/tests/support/wait_port.sh"

# Every capture is dissected in one tshark run (tshark takes seconds to
# start): the files are concatenated (mergecap -a) and each one's frames
# are cut out by count, the count each tool said it captured (-V/-v).
# All DCCP-UDP captures use one UDP port (the runs follow each other).
count() { # count FILE OUTPUT: the "N packets captured in FILE" of OUTPUT
  n=$(sed -n "s|^.*udccp-[a-z]*: \([0-9]*\) packets captured in $1\$|\1|p; s|^\([0-9]*\) packets captured in $1\$|\1|p" "$2")
  [ -n "$n" ] || { cat "$2"; fail "no packet count for $1 in $2"; }
  echo "$n"
}

# 1. udccp-perf over DCCP-UDP on IPv4: both ends capture.
timeout -k 5 30 "$PERF" -s -1 -V -p 5301 --udp-port $port --pcap "$TMP/srv.pcap" \
  >"$TMP/srv.out" 2>&1 &
spid=$!; pids="$pids $spid"
wait_udp_port $port 30 || fail "the udccp-perf server did not bind UDP port $port"
timeout -k 5 30 "$PERF" -c 127.0.0.1 -p 5301 --udp-port $port -t 0.5 -b 8mbit -l 500 \
  -V --pcap "$TMP/cli.pcap" >"$TMP/cli.out" 2>&1 ||
  { cat "$TMP/cli.out" "$TMP/srv.out"; fail "udccp-perf test failed"; }
wait $spid || { cat "$TMP/srv.out"; fail "udccp-perf server failed"; }
n_cli=$(count "$TMP/cli.pcap" "$TMP/cli.out") || exit 1
n_srv=$(count "$TMP/srv.pcap" "$TMP/srv.out") || exit 1

# 2. udccp-cat over DCCP-UDP on IPv6.
timeout -k 5 20 "$CAT" -l -6 -v --udp-port $port ::1 5302 --pcap "$TMP/l.pcap" \
  >"$TMP/cat.out" 2>"$TMP/l.err" &
lpid=$!; pids="$pids $lpid"
wait_udp_port $port 30 || fail "the udccp-cat listener did not bind UDP port $port"
seq 1 200 | timeout -k 5 20 "$CAT" --udp-port $port -v --pcap "$TMP/c.pcap" ::1 5302 \
  2>"$TMP/c.err" || { cat "$TMP/l.err" "$TMP/c.err"; fail "udccp-cat transfer failed"; }
wait $lpid || { cat "$TMP/l.err"; fail "udccp-cat listener failed"; }
[ "$(wc -l <"$TMP/cat.out")" = 200 ] || fail "udccp-cat: $(wc -l <"$TMP/cat.out") of 200 lines arrived"
n_c=$(count "$TMP/c.pcap" "$TMP/c.err") || exit 1
n_l=$(count "$TMP/l.pcap" "$TMP/l.err") || exit 1

# 3. native DCCP (--raw): IP protocol 33, needs root.
n_raw=0
if [ "$(id -u)" = 0 ]; then
  timeout -k 5 30 "$PERF" -s -1 --raw -p 5303 >"$TMP/rsrv.out" 2>&1 &
  spid=$!; pids="$pids $spid"
  wait_raw_dccp 30 || fail "the udccp-perf --raw server opened no raw DCCP socket"
  timeout -k 5 30 "$PERF" -c 127.0.0.1 --raw -p 5303 -t 0.5 -b 4mbit -l 500 -V \
    --pcap "$TMP/raw.pcap" >"$TMP/rcli.out" 2>&1 ||
    { cat "$TMP/rcli.out" "$TMP/rsrv.out"; fail "udccp-perf --raw failed"; }
  wait $spid || { cat "$TMP/rsrv.out"; fail "udccp-perf --raw server failed"; }
  n_raw=$(count "$TMP/raw.pcap" "$TMP/rcli.out") || exit 1
  raw=$TMP/raw.pcap
else
  echo "note: not root: the native DCCP (--raw) capture is not tested"
  raw=""
fi

# The self-test: the client's capture with one byte flipped in the first
# frame's DCCP header (24 file + 16 record + 20 IPv4 + 8 UDP + 9: within
# its sequence number) must fail the checks below (UDP checksum).
cp "$TMP/cli.pcap" "$TMP/bad.pcap"
printf '\377' | dd of="$TMP/bad.pcap" bs=1 seek=77 conv=notrunc 2>/dev/null

mergecap -a -F nsecpcap -w "$TMP/all.pcap" "$TMP/cli.pcap" "$TMP/srv.pcap" \
  "$TMP/c.pcap" "$TMP/l.pcap" $raw "$TMP/bad.pcap" || fail "mergecap failed"
# One line per frame: ip.proto | ipv6.nxt | udp ports | dccp ports |
# dccp.type | checksum statuses (ip, udp, dccp; 1 good, 0 bad) | expert
# severities | malformed.
tshark -n -r "$TMP/all.pcap" -X lua_script:"$LUA" -o dccp-udp.port:$port \
  -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
  -o dccp.check_checksum:TRUE -T fields -E separator='|' -E occurrence=a \
  -E aggregator=';' -e ip.proto -e ipv6.nxt -e udp.srcport -e udp.dstport \
  -e dccp.srcport -e dccp.dstport -e dccp.type -e ip.checksum.status \
  -e udp.checksum.status -e dccp.checksum.status -e _ws.expert.severity \
  -e _ws.malformed >"$TMP/all" 2>"$TMP/tshark.err" ||
  { cat "$TMP/tshark.err"; fail "tshark failed"; }
total=$((n_cli + n_srv + n_c + n_l + n_raw + n_cli))
[ "$(wc -l <"$TMP/all")" = "$total" ] ||
  fail "tshark read $(wc -l <"$TMP/all") frames; the tools said they captured $total"

# "frames dccp bad_cksum warned malformed" of a dissection on stdin;
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
at=0
# check NAME FRAMES MINFRAMES UDPPORT DCCPPORT: the next FRAMES lines of
# the dissection (into $TMP/d): every frame DCCP, clean.
check() {
  sed -n "$((at + 1)),$((at + $2))p" "$TMP/all" >"$TMP/d"
  at=$((at + $2))
  set -- "$1" "$2" "$3" "$4" "$5" $(tally <"$TMP/d")
  [ "$6" -ge "$3" ] || fail "$1: only $6 frames captured (want >= $3)"
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
  if [ -n "$4" ]; then
    bad=$(awk -F'|' -v p="$4" '$3 != p && $4 != p' "$TMP/d" | wc -l)
    [ "$bad" = 0 ] || fail "$1: $bad frames not to or from UDP port $4"
  fi
  echo "ok: $1: $6 frames, all DCCP, clean"
}
check "udccp-perf client (IPv4)" "$n_cli" 600 $port 5301
nc=$(cut -d'|' -f7 "$TMP/d" | grep -cx '[24]')
check "udccp-perf server (IPv4)" "$n_srv" 600 $port 5301
ns=$(cut -d'|' -f7 "$TMP/d" | grep -cx '[24]')
# both ends saw the same packets: the data ones in the client's are in the
# server's capture too, up to the losses (none on loopback at 8 Mbit/s)
[ "$nc" -ge 500 ] && [ $((nc - ns)) -le $((nc / 100)) ] && [ "$ns" -le "$nc" ] ||
  fail "data packets: client captured $nc, server $ns"
echo "ok: data packets: client sent $nc, server captured $ns"
check "udccp-cat client (IPv6)" "$n_c" 200 $port 5302
v6=$(cut -d'|' -f2 "$TMP/d" | grep -cx 17)
[ "$v6" = "$n_c" ] || fail "udccp-cat: $v6 of $n_c frames are UDP in IPv6"
check "udccp-cat listener (IPv6)" "$n_l" 200 $port 5302
if [ -n "$raw" ]; then
  check "udccp-perf --raw client" "$n_raw" 300 "" 5303
  p33=$(cut -d'|' -f1 "$TMP/d" | grep -cx 33)
  [ "$p33" = "$n_raw" ] || fail "--raw: $p33 of $n_raw frames are IP protocol 33"
fi
sed -n "$((at + 1)),$((at + n_cli))p" "$TMP/all" >"$TMP/d"
set -- $(tally <"$TMP/d")
[ "$3" -ge 1 ] || fail "self-test: a flipped byte went unnoticed"
echo "ok: self-test: the flipped byte shows as $3 bad checksum"
echo "PASS: --pcap captures of udccp-perf and udccp-cat dissect clean"
