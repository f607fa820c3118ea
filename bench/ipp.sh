#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per delivered data packet (issue 13), sans-I/O, counted by
# callgrind: CCID 2 and CCID 3 at windows of 50, 500 and 5,000 packets in
# flight (1200-byte payloads, 20 ms RTT, no loss), through the copying
# application calls and the zero-copy ones, on both transports: native
# DCCP (the DCCP checksum computed and checked) and DCCP-UDP (RFC 6773
# §3.3: no DCCP checksum; the UDP checksum is the kernel's), which is what
# io/ runs by default; next to the floor of 3 copies of 1200 bytes and one
# Internet checksum, measured in the same run.
#
#   sh bench/ipp.sh BUILD_DIR [PACKETS]      (IPP_PACKETS too)
set -u
BUILD=${1:?usage: ipp.sh BUILD_DIR [PACKETS]}
N=${2:-${IPP_PACKETS:-10000}}
BIN=$BUILD/bench/udccp-ippbench
if [ ! -x "$BIN" ]; then
  echo "ipp: $BIN not built (cmake --build $BUILD --target udccp-ippbench)" >&2
  exit 1
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "ipp: n/a (no valgrind)"
  exit 0
fi
TMP=$(mktemp -d /tmp/udccp-ipp.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

# ir FN ARGS...: instructions counted in function FN (inclusive) / packets,
# less what the harness's own loop executes (the self cost of its functions
# step, run_for, measure and line_tail: the delay line, the event loop):
# the table counts what the library does, both ends; $TMP/harness holds the
# part left out, per packet.
ir() {
  fn=$1
  shift
  out=$TMP/cg.out
  if ! valgrind --tool=callgrind --callgrind-out-file="$out" \
      --collect-atstart=no --toggle-collect="$fn" \
      "$BIN" "$@" --packets "$N" >"$TMP/stdout" 2>"$TMP/stderr"; then
    echo "error"
    return
  fi
  tot=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out" | head -1)
  [ -z "$tot" ] && tot=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out" | head -1)
  # (lines with "=>" are calls, shown when the build has debug info)
  self=$(callgrind_annotate --threshold=100 "$out" 2>/dev/null | awk '
    !/=>/ && /:(step|run_for|measure|line_tail|floor_run|cksum_run)( |$)/ {
      n = $1; gsub(",", "", n); s += n }
    END { print s + 0 }')
  case $fn in floor_run|cksum_run) self=0 ;; esac
  awk -v h="$self" -v n="$N" 'BEGIN { printf "%.0f\n", h / n }' >"$TMP/harness"
  awk -v t="$tot" -v h="$self" -v n="$N" 'BEGIN { printf "%.0f", (t - h) / n }'
  cwnd=$(sed -n 's/.* cwnd \([0-9]*\).*/\1/p' "$TMP/stdout")
  [ -n "$cwnd" ] && printf ' %s' "$cwnd"
}

FLOOR=$(ir floor_run --floor)
CKSUM=$(ir cksum_run --cksum)
echo "instructions per delivered 1200-byte data packet (callgrind, $N packets, sans-I/O pair)"
printf '%-8s %-6s %-5s %8s %8s %12s %10s %8s\n' "ccid" "wire" "api" "window" \
  "cwnd" "instr/pkt" "vs floor" "harness"
for c in 2 3; do
  for wire in native udp; do
    udp=
    [ "$wire" = udp ] && udp=--udp
    for api in copy zc; do
      zc=
      [ "$api" = zc ] && zc=--zc
      for w in 50 500 5000; do
        r=$(ir measure --ccid $c --window $w $zc $udp)
        set -- $r
        [ "$c" = 3 ] && set -- "${1:-0}" "-" # TFRC has no window
        awk -v c="$c" -v t="$wire" -v a="$api" -v w="$w" -v i="${1:-0}" \
            -v cw="${2:--}" -v f="$FLOOR" \
            -v h="$(sed -n 1p "$TMP/harness" 2>/dev/null)" 'BEGIN {
          printf "%-8s %-6s %-5s %8s %8s %12s %9.2fx %8s\n", "CCID " c, t, a, w,
                 cw, i, (f > 0 ? i / f : 0), h }'
      done
    done
  done
done
printf '%-8s %-6s %-5s %8s %8s %12s %10s %8s\n' "floor" "-" "-" "-" "-" "$FLOOR" \
  "1.00x" "-"
awk -v i="$CKSUM" -v f="$FLOOR" 'BEGIN {
  printf "%-8s %-6s %-5s %8s %8s %12s %9.2fx %8s\n", "cksum", "-", "-", "-", "-",
         i, (f > 0 ? i / f : 0), "-" }'
echo "instr/pkt: the library, both ends (harness: its own event loop, left out);"
echo "wire native: raw-IP DCCP, the DCCP checksum computed and checked by both"
echo "ends (UDCCP_CKSUM_FULL); wire udp: DCCP-UDP (RFC 6773 §3.3), the DCCP"
echo "checksum sent as zero and not checked -- what io/ runs by default;"
echo "api copy: udccp_conn_queue_datagram/udccp_conn_read_datagram (the payload"
echo "copied in and out); api zc: udccp_conn_reserve_datagram/..._commit_datagram"
echo "and udccp_conn_peek_datagram/..._consume_datagram (written and read in place);"
echo "floor = 3 x memcpy(1200) + Internet checksum per packet; cksum = one"
echo "Internet checksum of 1216 bytes (a data packet pays two); CCID 3 cwnd: -"
