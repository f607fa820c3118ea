#!/bin/sh
# SPDX-License-Identifier: MIT
# Two network namespaces joined by udccp-linkem (tests/netns/linkem-setup.sh,
# doc/linkem.md):
#  (a) the emulator itself, measured with kernel tools only: ping RTT is
#      2 x delay; a UDP flow at twice the rate is cut to the rate; the
#      drop-tail queue stays at its limit; random loss and a fixed burst
#      lose what they should; TAP and UDP ports pass frames (ARP too);
#  (b) issue 4 acceptance 3, at 50 Mbit/s, 20 ms each way, one-BDP queue:
#      a CCID 2 udccp-perf flow reaches >= 80 % of the rate over 30 s, and
#      a CCID 2 flow gets 0.5 to 2 times the goodput of a kernel TCP Reno
#      flow (iperf3 -C reno) sharing the link for 30 s.  The same against
#      CUBIC is measured and printed; it fails the test only with
#      LK_STRICT_CUBIC=1 (acceptance 3 asks for "reno or cubic").
# Needs root and /dev/net/tun (else SKIP, exit 77), iperf3 and ping.
# udccp-perf comes from BUILD (under make check, the ASan build: it keeps up
# with 50 Mbit/s, ~47.7 Mbit/s measured alone).  About 2 minutes.
#   sh tests/netns_link.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: netns_link.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: netns_link.sh BUILD_DIR SOURCE_DIR}
. "$S/tests/netns/linkem-setup.sh"
lk_init "$B"
PERF=$B/udccp-perf
[ -x "$PERF" ] || { echo "FAIL: $PERF not built"; exit 1; }
for t in iperf3 ping awk; do
  command -v $t >/dev/null || { echo "FAIL: $t not installed (make deps)"; exit 1; }
done
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
FAILS=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
# within X LO HI: LO <= X <= HI (decimals)
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x >= lo && x <= hi) }'; }
fmt() { awk -v x="$1" -v d="$2" 'BEGIN { printf "%.*f", d, x }'; }
# wait_log NAME ERE: until NAME's log matches (5 s at most)
wait_log() {
  i=0
  while ! grep -Eq "$2" "$LK_TMP/$1.log" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1)); done
}
# the emulator's view of the last run, A->B: IP bytes delivered, drops
link_msg() {
  echo "link A->B: $(lk_stat a2b delivered) pkts, $(lk_stat a2b delivered_bytes) B in" \
    "$(sed -n 's/^udccp-linkem: duration_s=//p' "$LK_TMP/linkem.out") s, $(lk_stat a2b dropped_queue) dropped"
}
IPORT=5301
# iperf3 server in B, one test, on a port of its own
iperf_srv() {
  IPORT=$((IPORT + 1))
  lk_bg "$1" B "$2" iperf3 -s -1 -p $IPORT --forceflush
  wait_log "$1" 'listening'
}
# udccp-perf server in B, one test
perf_srv() { lk_bg "$1" B "$2" "$PERF" -s -1; wait_log "$1" 'server'; }
# the first "KEY": number of NAME's log (the summary, not an interval)
json_num() {
  grep -o "\"$2\": *[-0-9.eE+]*" "$LK_TMP/$1.log" | head -n 1 | sed 's/.*: *//'
}
# iperf3 -J: the receiver's goodput (end.sum_received)
tcp_bps() {
  awk '/"sum_received"/ { f = 1 } f && /"bits_per_second"/ {
    gsub(/[^0-9.]/, "", $2); print $2; exit }' "$LK_TMP/$1.log"
}
# iperf3 -u text: the receiver line's Mbit/s, lost and total datagrams
udp_rx() {
  awk '/receiver/ { for (i = 1; i <= NF; i++) {
      if ($i == "Mbits/sec") m = $(i - 1)
      if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); l = a[1]; n = a[2] } }
    print m, l, n }' "$LK_TMP/$1.log"
}

# ---------------------------------------------------------------- (a)
lk_say "(a) emulator: 20 Mbit/s, 20 ms each way, queue 1 BDP (100000 B)"
lk_start "rate=20mbit,delay=20ms"
lk_a ping -n -q -c 20 -i 0.2 -W 2 "$LK_IP_B" > "$LK_TMP/ping.log" 2>&1
rtt=$(sed -n 's/^rtt [^=]*= *\([0-9.]*\)\/\([0-9.]*\)\/.*/\1 \2/p' "$LK_TMP/ping.log")
rmin=${rtt% *} ravg=${rtt#* }
if [ -n "$rtt" ] && within "$rmin" 40.0 42.0 && within "$ravg" 40.0 45.0; then
  ok "ping RTT min $rmin ms, avg $ravg ms (2 x 20 ms)"
else
  bad "ping RTT '$rtt' not 40..42 (min) / 40..45 (avg) ms: $(tail -n 2 "$LK_TMP/ping.log")"
fi
iperf_srv usrv 20
lk_bg ucli A 20 iperf3 -c "$LK_IP_B" -p $IPORT -u -b 40M -l 1400 -t 4 -f m
lk_wait ucli
lk_wait usrv
# shellcheck disable=SC2046  # three numbers
set -- $(udp_rx ucli)
# goodput of 1400-byte payloads in 1428-byte IP packets at 20 Mbit/s
want=$(awk 'BEGIN { print 20 * 1400 / 1428 }')
if [ $# -eq 3 ] && within "$1" "$(awk -v w="$want" 'BEGIN{print 0.92*w}')" \
     "$(awk -v w="$want" 'BEGIN{print 1.03*w}')"; then
  ok "UDP at 40 Mbit/s offered: $1 Mbit/s received (payload at the rate: $(fmt "$want" 2))"
else
  bad "UDP at 40 Mbit/s through a 20 Mbit/s link: '$*' (want ~$(fmt "$want" 2) Mbit/s): $(tail -n 4 "$LK_TMP/ucli.log")"
fi
lk_stop
mb=$(lk_stat a2b max_backlog_bytes)
if within "$mb" 95000 100000; then
  ok "drop-tail: largest backlog $mb B of 100000 B"
else
  bad "drop-tail: largest backlog '$mb' B, want 95000..100000"
fi

lk_say "(a) loss: 100 Mbit/s, 5 ms; A->B 5 % random loss and 200 packets lost after 1000"
lk_start "rate=100mbit,delay=5ms" --ab "loss=5%,burst=1000p/200"
iperf_srv lsrv 20
# 500 datagrams/s: a receiver starved of CPU for a while (ASan builds in
# parallel) must not overflow its socket buffer and count that as loss
lk_bg lcli A 20 iperf3 -c "$LK_IP_B" -p $IPORT -u -b 2M -l 500 -t 5 -f m
lk_wait lcli
lk_wait lsrv
# shellcheck disable=SC2046  # three numbers
set -- $(udp_rx lcli)
lk_stop
fb=$(lk_stat a2b lost_fixed_burst)
lr=$(lk_stat a2b lost_random)
if [ $# -eq 3 ] && [ "$3" -gt 2000 ] &&
   within "$2" "$(awk -v n="$3" 'BEGIN{print 200 + 0.035 * n}')" \
     "$(awk -v n="$3" 'BEGIN{print 200 + 0.065 * n}')" && [ "$fb" = 200 ]; then
  ok "loss: $2 of $3 datagrams lost ($(awk -v l="$2" -v n="$3" 'BEGIN{printf "%.2f", 100*(l-200)/n}') % + the burst of $fb; emulator: $lr random)"
else
  bad "loss: '$*' (lost, total), emulator: burst '$fb', random '$lr': want 200 + 3.5..6.5 % of total: $(tail -n 4 "$LK_TMP/lcli.log")"
fi

lk_stop
lk_say "(a) tap and udp ports (as for a QEMU -netdev socket): A tap <-> udp <-> tap B"
# two emulators chained by UDP on A's loopback: 10 ms, then 0 ms
"$LK_EMU" -a "tap:lkt0@$LK_A" -b "udp:127.0.0.1:10001:127.0.0.1:10002@$LK_A" \
  --link rate=10mbit,delay=10ms --time 60s > "$LK_TMP/q1.out" 2> "$LK_TMP/q1.err" &
LK_PIDS="$LK_PIDS $!" Q1=$!
"$LK_EMU" -a "udp:127.0.0.1:10002:127.0.0.1:10001@$LK_A" -b "tap:lkt1@$LK_B" \
  --link rate=1gbit --time 60s > "$LK_TMP/q2.out" 2> "$LK_TMP/q2.err" &
LK_PIDS="$LK_PIDS $!" Q2=$!
i=0
while ! { grep -q ' ready ' "$LK_TMP/q1.err" && grep -q ' ready ' "$LK_TMP/q2.err"; } &&
      [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ip -n "$LK_A" addr add 10.78.0.1/24 dev lkt0
ip -n "$LK_B" addr add 10.78.0.2/24 dev lkt1
lk_a ping -n -q -c 8 -i 0.2 -W 2 10.78.0.2 > "$LK_TMP/qping.log" 2>&1
kill "$Q1" "$Q2"; wait "$Q1" "$Q2"
qrtt=$(sed -n 's/^rtt [^=]*= *\([0-9.]*\)\/.*/\1/p' "$LK_TMP/qping.log")
qarp=$(sed -n 's/^udccp-linkem: a2b .* delivered=\([0-9]*\).*/\1/p' "$LK_TMP/q1.out")
if grep -q ' 0% packet loss' "$LK_TMP/qping.log" && within "$qrtt" 20.0 22.0 &&
   [ "${qarp:-0}" -ge 9 ]; then
  ok "tap/udp ports: ping RTT min $qrtt ms (2 x 10 ms), $qarp frames A->B (ARP included)"
else
  bad "tap/udp ports: RTT min '$qrtt', $qarp frames: $(cat "$LK_TMP/q1.err" "$LK_TMP/q2.err") $(tail -n 2 "$LK_TMP/qping.log")"
fi

# ---------------------------------------------------------------- (b)
LINK="rate=50mbit,delay=20ms,queue=1bdp"
T=30
lk_say "(b) acceptance 3: $LINK (queue 250000 B); CCID 2 alone, ${T} s"
lk_start "$LINK"
perf_srv psrv $((T + 20))
lk_bg pcli A $((T + 15)) "$PERF" -c "$LK_IP_B" -t $T -J
lk_wait pcli
lk_wait psrv
gp=$(json_num pcli goodput_bps)
lk_stop
if [ -n "$gp" ] && within "$gp" 40000000 50000000; then
  ok "CCID 2 alone: $(fmt "$gp" 0) bit/s = $(awk -v g="$gp" 'BEGIN{printf "%.1f", g/5e5}') % of 50 Mbit/s (>= 80 %); $(link_msg)"
else
  bad "CCID 2 alone: goodput '$gp' bit/s, want >= 40 Mbit/s: $(tail -c 400 "$LK_TMP/pcli.log")"
fi

# share CCA: a CCID 2 flow and an iperf3 TCP flow (-C CCA) start together
share() {
  cca=$1 MSG=
  lk_say "(b) CCID 2 and TCP $cca together, ${T} s"
  lk_start "$LINK"
  perf_srv "s2$cca" $((T + 20))
  iperf_srv "st$cca" $((T + 20))
  lk_bg "ct$cca" A $((T + 15)) iperf3 -c "$LK_IP_B" -p $IPORT -t $T -C "$cca" -J
  lk_bg "c2$cca" A $((T + 15)) "$PERF" -c "$LK_IP_B" -t $T -J
  lk_wait "c2$cca"
  lk_wait "ct$cca"
  lk_wait "s2$cca"
  lk_wait "st$cca"
  lk_stop
  LINKMSG=$(link_msg)
  dg=$(json_num "c2$cca" goodput_bps)
  tg=$(tcp_bps "ct$cca")
  used=$(sed -n 's/.*"sender_tcp_congestion":[^"]*"\([a-z]*\)".*/\1/p' "$LK_TMP/ct$cca.log")
  RATIO=
  if [ -z "$dg" ] || [ -z "$tg" ] || [ "$used" != "$cca" ]; then
    echo "  no result: CCID 2 '$dg', TCP '$tg' ($used): $(tail -c 300 "$LK_TMP/c2$cca.log") $(tail -c 300 "$LK_TMP/ct$cca.log")"
    return 1
  fi
  RATIO=$(awk -v d="$dg" -v t="$tg" 'BEGIN { printf "%.3f", d / t }')
  MSG="CCID 2 $(fmt "$dg" 0) bit/s, TCP $cca $(fmt "$tg" 0) bit/s: ratio $RATIO (0.5..2), utilization $(awk -v d="$dg" -v t="$tg" 'BEGIN{printf "%.1f", (d+t)/5e5}') %; $LINKMSG"
  within "$RATIO" 0.5 2
}
if share reno; then ok "$MSG"; else bad "${MSG:-CCID 2 vs TCP reno: no result}"; fi
if share cubic; then
  ok "$MSG"
elif [ "${LK_STRICT_CUBIC:-0}" = 1 ]; then
  bad "${MSG:-CCID 2 vs TCP cubic: no result}"
else
  echo "note: ${MSG:-CCID 2 vs TCP cubic: no result} (not checked; LK_STRICT_CUBIC=1 checks it)"
fi

[ "$FAILS" -eq 0 ] || { echo "netns_link: $FAILS failed"; exit 1; }
echo "netns_link: all passed"
