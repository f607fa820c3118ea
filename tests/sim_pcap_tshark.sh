#!/bin/sh
# SPDX-License-Identifier: MIT
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

# One line per frame: ip.proto|dccp.type|dccp cksum|ip cksum|tcp cksum|
# expert severities|malformed.  Checksum status 1 = good, 0 = bad;
# severity 8388608 = error (Wireshark's PI_ERROR).
dissect() {
  tshark -n -r "$1" -o dccp.check_checksum:TRUE -o ip.check_checksum:TRUE \
    -o tcp.check_checksum:TRUE -T fields -E separator='|' -E occurrence=a \
    -E aggregator=';' -e ip.proto -e dccp.type -e dccp.checksum.status \
    -e ip.checksum.status -e tcp.checksum.status -e _ws.expert.severity \
    -e _ws.malformed 2>/dev/null
}

# Prints "frames dccp dccp_good malformed errors dccp_expert bad_ip
# bad_tcp" for a dissection on stdin.
tally() {
  awk -F'|' '
    { n++ }
    $1 == 33 { d++; if ($3 == "1") g++; if ($6 != "") de++ }
    $7 != "" { m++ }
    $6 ~ /8388608/ { e++ }
    $4 != "1" { bi++ }
    $1 == 6 && $5 != "1" { bt++ }
    END { printf "%d %d %d %d %d %d %d %d\n", n, d, g, m, e, de, bi, bt }'
}

# The detector must see a bad DCCP packet: the same checks on a capture
# with one corrupted DCCP byte must fail, or this test could not fail.
"$SIM" --flows ccid2 --rate 10mbit --delay 5ms --duration 200ms \
  --pcap "$TMP/one.pcap" >/dev/null || fail "udccp-sim (ccid2 only) failed"
cp "$TMP/one.pcap" "$TMP/bad.pcap"
# frame 1 is the Request: 24 (file header) + 16 (record header) + 20
# (IPv4) + 12 lands in its sequence number; flip that byte
printf '\377' | dd of="$TMP/bad.pcap" bs=1 seek=72 conv=notrunc 2>/dev/null
set -- $(dissect "$TMP/bad.pcap" | tally)
[ "$2" -ge 1 ] || fail "self-check: no DCCP in the corrupted capture"
[ "$3" -lt "$2" ] && [ "$5" -ge 1 ] ||
  fail "self-check: a corrupted DCCP packet went unnoticed (good $3 of $2, errors $5)"

# The capture under test: DCCP and TCP sharing a lossy bottleneck,
# with handshakes, data, acks, losses and closes.
"$SIM" --flows ccid2,tcp,ccid2 --rate 10mbit --delay 10ms --duration 3s \
  --loss 0.01 --pcap "$TMP/sim.pcap" >"$TMP/out.txt" ||
  { cat "$TMP/out.txt"; fail "udccp-sim failed"; }
dissect "$TMP/sim.pcap" >"$TMP/fields.txt"
set -- $(tally <"$TMP/fields.txt")
echo "frames $1, dccp $2 (checksum good $3), malformed $4, expert errors $5," \
  "dccp frames with expert info $6, bad ip cksum $7, bad tcp cksum $8"
types=$(awk -F'|' '$1 == 33 { print $2 }' "$TMP/fields.txt" | sort -n | uniq -c |
  awk '{ printf "type %s: %s; ", $2, $1 }')
echo "dccp $types"

[ "$2" -gt 100 ] || fail "too few DCCP packets in the capture ($2)"
[ "$3" -eq "$2" ] || fail "$(($2 - $3)) DCCP packets without a good checksum"
[ "$4" -eq 0 ] || fail "$4 malformed packets"
[ "$5" -eq 0 ] || fail "$5 packets with expert errors"
[ "$6" -eq 0 ] || fail "$6 DCCP packets with expert info"
[ "$7" -eq 0 ] || fail "$7 bad IPv4 header checksums"
[ "$8" -eq 0 ] || fail "$8 bad TCP checksums"
# Request, Response, Ack, Close, Reset, and data (Data or DataAck)
for t in 0 1 3 6 7 "[24]"; do
  awk -F'|' -v t="^$t\$" '$1 == 33 && $2 ~ t { f = 1 } END { exit !f }' \
    "$TMP/fields.txt" || fail "no DCCP packet of type $t in the capture"
done

# Multipath DCCP (RFC 9897): an mp-ccid2 flow over two paths (--paths):
# the Multipath option (type 46: MP_KEY on the handshake, MP_JOIN and
# MP_HMAC on the join, MP_SEQ on data, MP_RTT / MP_CONFIRM on acks,
# MP_CLOSE on the close) dissects without a malformed packet or expert
# error, and every checksum is good on both paths (each with its own
# addresses, 10.0.x and 10.1.x).
"$SIM" --flows mp-ccid2 --paths 4mbit/10ms,2mbit/20ms:loss=1% --duration 2s \
  --pcap "$TMP/mp.pcap" >"$TMP/mp.txt" ||
  { cat "$TMP/mp.txt"; fail "udccp-sim (mp-ccid2) failed"; }
dissect "$TMP/mp.pcap" >"$TMP/mpf.txt"
set -- $(tally <"$TMP/mpf.txt")
[ "$2" -gt 100 ] || fail "multipath: too few DCCP packets ($2)"
[ "$3" -eq "$2" ] || fail "multipath: $(($2 - $3)) DCCP packets without a good checksum"
[ "$4" -eq 0 ] || fail "multipath: $4 malformed packets"
[ "$5" -eq 0 ] || fail "multipath: $5 packets with expert errors"
[ "$6" -eq 0 ] || fail "multipath: $6 DCCP packets with expert info"
tshark -n -r "$TMP/mp.pcap" -T fields -E separator='|' -E occurrence=a \
  -E aggregator=';' -e ip.dst -e dccp.type -e dccp.option_type \
  2>/dev/null >"$TMP/mpo.txt"
mp46=$(awk -F'|' '$3 ~ /(^|;)46(;|$)/' "$TMP/mpo.txt" | wc -l)
# a Request with option 46 on each path (MP_KEY on path 0, MP_JOIN on 1)
for dst in 10.0.1.1 10.1.1.1; do
  awk -F'|' -v d="$dst" '$1 == d && $2 == 0 && $3 ~ /(^|;)46(;|$)/ { f = 1 }
    END { exit !f }' "$TMP/mpo.txt" ||
    fail "multipath: no Request with the Multipath option to $dst"
  awk -F'|' -v d="$dst" '$1 == d && ($2 == 2 || $2 == 4) && $3 ~ /(^|;)46(;|$)/ { f = 1 }
    END { exit !f }' "$TMP/mpo.txt" ||
    fail "multipath: no data with MP_SEQ to $dst"
done
echo "multipath: $2 DCCP frames (checksum good $3), $mp46 with option 46," \
  "malformed $4, expert errors $5"
echo "PASS"
