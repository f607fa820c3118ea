#!/bin/sh
# udccp-sim --pcap writes native DCCP (and TCP) over raw IPv4 that Wireshark
# dissects without a malformed packet or a bad checksum.  Usage:
#   sh tests/sim_pcap_tshark.sh BUILD_DIR [SOURCE_DIR]
# Fails (never skips) when tshark is missing: it is a test dependency.
set -u
BUILD=${1:?usage: sim_pcap_tshark.sh BUILD_DIR [SOURCE_DIR]}
SIM="$BUILD/udccp-sim"
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v tshark >/dev/null 2>&1 ||
  fail "tshark is not installed (apt-get install tshark, or 'make deps')"
[ -x "$SIM" ] || fail "$SIM not built"

TMP=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT INT TERM
PREFS="-o dccp.check_checksum:TRUE -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE"

count() { # count FILE FILTER
  # shellcheck disable=SC2086
  tshark -n -r "$1" $PREFS -Y "$2" 2>/dev/null | wc -l | tr -d ' '
}

# The detector must see a bad DCCP packet: same checks on a capture with
# one corrupted DCCP byte must fail, or this test could not fail.
"$SIM" --flows ccid2 --rate 10mbit --delay 5ms --duration 200ms \
  --pcap "$TMP/one.pcap" >/dev/null || fail "udccp-sim (ccid2 only) failed"
cp "$TMP/one.pcap" "$TMP/bad.pcap"
# frame 1 is the Request: 24 (file hdr) + 16 (record hdr) + 20 (IPv4) + 12
# puts us in its sequence number; flip that byte
printf '\377' | dd of="$TMP/bad.pcap" bs=1 seek=72 conv=notrunc 2>/dev/null
bad=$(count "$TMP/bad.pcap" 'dccp.checksum.status == 0 || _ws.expert.severity == "Error"')
[ "$bad" -ge 1 ] || fail "self-check: a corrupted DCCP packet went unnoticed ($bad)"

# The capture under test: DCCP and TCP sharing a lossy bottleneck,
# including the handshake, data, acks, losses and the close.
"$SIM" --flows ccid2,tcp,ccid2 --rate 10mbit --delay 10ms --duration 3s \
  --loss 0.01 --pcap "$TMP/sim.pcap" >"$TMP/out.txt" ||
  { cat "$TMP/out.txt"; fail "udccp-sim failed"; }

total=$(count "$TMP/sim.pcap" 'frame')
dccp=$(count "$TMP/sim.pcap" 'dccp')
good=$(count "$TMP/sim.pcap" 'dccp.checksum.status == 1')
malformed=$(count "$TMP/sim.pcap" '_ws.malformed')
errors=$(count "$TMP/sim.pcap" '_ws.expert.severity == "Error"')
dccp_expert=$(count "$TMP/sim.pcap" 'dccp && _ws.expert')
badip=$(count "$TMP/sim.pcap" 'ip.checksum.status != 1')
badtcp=$(count "$TMP/sim.pcap" 'tcp && tcp.checksum.status != 1')
types=$(tshark -n -r "$TMP/sim.pcap" -T fields -e dccp.type -Y dccp 2>/dev/null |
  sort -n | uniq -c | tr -s ' \n' ' ')
echo "frames $total, dccp $dccp (checksum good $good), malformed $malformed," \
  "expert errors $errors, dccp expert items $dccp_expert, bad ip cksum $badip," \
  "bad tcp cksum $badtcp"
echo "dccp types (count type): $types"

[ "$dccp" -gt 100 ] || fail "too few DCCP packets in the capture ($dccp)"
[ "$good" -eq "$dccp" ] || fail "$((dccp - good)) DCCP packets without a good checksum"
[ "$malformed" -eq 0 ] || fail "$malformed malformed packets"
[ "$errors" -eq 0 ] || fail "$errors expert errors"
[ "$dccp_expert" -eq 0 ] || fail "$dccp_expert DCCP packets with expert info"
[ "$badip" -eq 0 ] || fail "$badip bad IPv4 header checksums"
[ "$badtcp" -eq 0 ] || fail "$badtcp bad TCP checksums"
for t in 0 1 2 3 6 7; do # Request Response Data Ack Close Reset
  tshark -n -r "$TMP/sim.pcap" -T fields -e dccp.type -Y "dccp.type == $t" \
    2>/dev/null | grep -q . || fail "no DCCP packet of type $t in the capture"
done
echo "PASS"
