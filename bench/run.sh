#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: goodput on loopback for 1200-byte payloads, side by side, in
# one run: plain UDP (sendmmsg/recvmmsg: the limit), UDP with GSO/GRO, and
# udccp-perf CCID 2 and CCID 3 over DCCP-UDP and over raw IP; then the
# sans-I/O core's handshakes per CPU-second and heap per idle connection
# (udccp-hsbench, with its malloc+memset floor from the same run).
#
#   sh bench/run.sh BUILD_DIR [SECONDS]     (BENCH_SECONDS, BENCH_LEN too)
#
# BENCH_PERF=PATH: another udccp-perf binary (A/B runs of two builds).
# BENCH_A5=1: only issue 13's acceptance 5, side by side (the UDP GSO/GRO
# blaster, CCID 2 over DCCP-UDP, iperf3 TCP) and its ratio line, for each
# size of BENCH_A5_LENS; BENCH_REPS=N repeats that N times (a range on a
# noisy machine).
# BENCH_A5_LENS: the datagram sizes of the acceptance-5 table, each size's
# rows side by side (default "1200 8900 default 65443": "default" is what
# udccp-perf picks without -l, 1,408 bytes; 65,443 is the MPS of DCCP-UDP
# over IPv4 loopback, whose MTU is 65,536); "" skips the table.
#
# Every figure is payload goodput measured at the receiver.  The ratio is
# to the sendmmsg/recvmmsg row of the same run.  Loopback numbers depend
# on what else the machine runs: compare rows of one run, not runs.
set -u
BUILD=${1:?usage: run.sh BUILD_DIR [SECONDS]}
SECS=${2:-${BENCH_SECONDS:-3}}
LEN=${BENCH_LEN:-1200}
BLAST=$BUILD/bench/udccp-udpblast
HSBENCH=$BUILD/bench/udccp-hsbench
PERF=${BENCH_PERF:-$BUILD/udccp-perf}
CPURUN="python3 $(dirname "$0")/cpurun.py"
for p in "$BLAST" "$PERF" "$HSBENCH"; do
  if [ ! -x "$p" ]; then
    echo "bench: $p not built (cmake --build $BUILD)" >&2
    exit 1
  fi
done
TMP=$(mktemp -d /tmp/udccp-bench.XXXXXX)
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
# Ports: a random base, so that two runs (or other tests) rarely collide.
BASE=$(( 20000 + $$ % 20000 ))

# field NAME FILE: the first number after "NAME": in a JSON line
field() {
  grep -o "\"$1\": [0-9.]*" "$2" 2>/dev/null | head -1 | sed 's/.*: //'
}

# wait_for PATTERN FILE: up to 5 s
wait_for() {
  i=0
  while [ $i -lt 50 ]; do
    grep -q "$1" "$2" 2>/dev/null && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# cpu_per_gb NAME: CPU seconds of both ends ($TMP/NAME.cpu_s, .cpu_c) per
# gigabyte of goodput ($TMP/NAME.bps over SECS); also kept in NAME.spgb
cpu_per_gb() {
  cat "$TMP/$1.cpu_s" "$TMP/$1.cpu_c" "$TMP/$1.bps" 2>/dev/null |
    awk -v t="$SECS" -v out="$TMP/$1.spgb" 'NR <= 2 { c += $1 } NR == 3 { b = $1 }
      END { if (b > 0) { v = c / (b * t / 8 / 1e9); printf "%.2f", v;
                         printf "%.4f\n", v > out } else printf "-" }'
}

# blast NAME PORT SENDER_OPT RECEIVER_OPT -> goodput in $TMP/NAME.bps
blast() {
  out=$TMP/$1.rx
  $CPURUN "$TMP/$1.cpu_s" "$BLAST" -r -a 127.0.0.1 -p "$2" -l "$LEN" -T $((SECS + 15)) $4 \
    >"$out" 2>"$TMP/$1.rxerr" &
  rpid=$!
  PIDS="$PIDS $rpid"
  if ! wait_for ready "$out"; then
    wait $rpid; rc=$?
    if [ $rc = 3 ]; then echo "n/a (no UDP_GRO)"; else echo "error"; fi >"$TMP/$1.note"
    return
  fi
  $CPURUN "$TMP/$1.cpu_c" "$BLAST" -s -a 127.0.0.1 -p "$2" -l "$LEN" -t "$SECS" $3 \
    2>"$TMP/$1.txerr"
  src=$?
  wait $rpid
  if [ $src = 3 ]; then
    echo "n/a (no UDP_SEGMENT)" >"$TMP/$1.note"
    return
  fi
  field goodput_bps "$out" >"$TMP/$1.bps"
  echo "$(field received_pkts "$out")/$(field sent_pkts "$out") pkts received, $(cpu_per_gb "$1") CPU s/GB" \
    >"$TMP/$1.note"
}

# perf NAME PORT CCID [OPTIONS]   (OPTIONS for both ends: --raw, --no-gso)
perf() {
  srv=$TMP/$1.srv
  # Its own UDP port too: another program holding 6511 without sharing
  # it (a test, a preloaded server) made the row fail.
  uport="--udp-port $2"
  case "$4" in *--raw*) uport="" ;; esac
  $CPURUN "$TMP/$1.cpu_s" "$PERF" -s -1 -p "$2" $uport $4 >"$srv" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  if ! wait_for "udccp-perf server" "$srv"; then
    kill $spid 2>/dev/null
    if grep -q "needs root" "$srv"; then
      echo "n/a (needs root)" >"$TMP/$1.note"
    else
      echo "error: $(head -1 "$srv")" >"$TMP/$1.note"
    fi
    return
  fi
  lopt="-l $LEN"
  [ "$LEN" = default ] && lopt=""
  $CPURUN "$TMP/$1.cpu_c" "$PERF" -c 127.0.0.1 -p "$2" $uport -t "$SECS" $lopt \
    --ccid "$3" $4 -J >"$TMP/$1.json" 2>"$TMP/$1.err"
  wait $spid
  bps=$(field goodput_bps "$TMP/$1.json")
  if [ -z "$bps" ]; then
    echo "error: $(head -1 "$TMP/$1.err")" >"$TMP/$1.note"
    return
  fi
  echo "$bps" >"$TMP/$1.bps"
  field blksize "$TMP/$1.json" >"$TMP/$1.len"
  echo "loss $(field loss_rate "$TMP/$1.json"), rtt $(field rtt_ms "$TMP/$1.json") ms, $(field tx_pkts_per_batch "$TMP/$1.json") pkts/sendmmsg, $(cpu_per_gb "$1") CPU s/GB" \
    >"$TMP/$1.note"
}

# tcp NAME PORT: iperf3 over loopback TCP (congestion control cubic, named
# because this machine's default is bbr), goodput and CPU per GB
tcp() {
  if ! command -v iperf3 >/dev/null 2>&1; then
    echo "n/a (no iperf3)" >"$TMP/$1.note"
    return
  fi
  $CPURUN "$TMP/$1.cpu_s" iperf3 -s -1 -p "$2" --forceflush >"$TMP/$1.srv" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  # Until it listens (a loaded machine took more than the 0.5 s once
  # slept here: the client was refused and -1 kept the server waiting).
  wait_for "listening" "$TMP/$1.srv" || sleep 1
  if ! $CPURUN "$TMP/$1.cpu_c" iperf3 -c 127.0.0.1 -p "$2" -t "$SECS" -C cubic -J \
    >"$TMP/$1.json" 2>"$TMP/$1.err"; then
    kill $spid 2>/dev/null
  fi
  wait $spid
  bps=$(python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"])' "$TMP/$1.json" 2>/dev/null)
  if [ -z "$bps" ]; then
    echo "error: iperf3 $(head -c 200 "$TMP/$1.json" | tr '\n' ' ')" >"$TMP/$1.note"
    return
  fi
  echo "$bps" >"$TMP/$1.bps"
  echo "cubic, $(cpu_per_gb "$1") CPU s/GB" >"$TMP/$1.note"
}

echo "udccp bench: loopback, $LEN-byte payloads, $SECS s per row ($(uname -r), $(nproc) CPUs)"

# The acceptance-5 line: CCID 2 over DCCP-UDP against the UDP GSO/GRO
# blaster, and its CPU per GB against TCP's, all of this run.
# a5_line [SUFFIX]: the rows named ccid2_udpSUFFIX, udp_gsoSUFFIX,
# tcp_iperf3SUFFIX.
a5_line() {
  x=${1:-}
  for f in ccid2_udp$x.bps udp_gso$x.bps ccid2_udp$x.spgb tcp_iperf3$x.spgb \
           udp_gso$x.spgb; do
    cat "$TMP/$f" 2>/dev/null || echo 0
  done | awk '{ v[NR] = $1 } END {
      if (v[1] > 0 && v[2] > 0)
        printf "CCID 2 DCCP-UDP / UDP GSO/GRO: %.2fx (%.2f / %.2f Gbit/s)", v[1] / v[2], v[1] / 1e9, v[2] / 1e9;
      if (v[3] > 0 && v[4] > 0)
        printf "; CPU per GB, CCID 2 / iperf3 TCP: %.2fx (%.2f / %.2f s/GB)", v[3] / v[4], v[3], v[4];
      if (v[5] > 0 && v[4] > 0)
        printf " (UDP GSO/GRO blaster / TCP: %.2fx)", v[5] / v[4];
      printf "\n" }'
}
# Acceptance 5 by datagram size: for each size of BENCH_A5_LENS, the UDP
# GSO/GRO blaster, CCID 2 over DCCP-UDP and iperf3 TCP (its own write
# size: TCP has no datagrams), side by side, then the ratio line.  TCP's
# row is measured again for each size so that every line compares rows
# taken within seconds of each other.
a5_sizes() {
  LEN0=$LEN
  k=0
  for LEN in ${BENCH_A5_LENS-1200 8900 default 65443}; do
    k=$((k + 1))
    sfx=_a5_$k
    # udccp-perf first: "default" is the size it picks, the blaster's too.
    perf ccid2_udp$sfx $((BASE + 10 + 3 * k)) 2 ""
    shown=$LEN
    if [ "$LEN" = default ]; then
      LEN=$(cat "$TMP/ccid2_udp$sfx.len" 2>/dev/null)
      [ -z "$LEN" ] && LEN=1408
      shown="$LEN (udccp-perf's default)"
    fi
    blast udp_gso$sfx $((BASE + 11 + 3 * k)) --gso --gro
    tcp tcp_iperf3$sfx $((BASE + 12 + 3 * k))
    echo "$shown bytes:"
    for nm in udp_gso tcp_iperf3 ccid2_udp; do
      bps=$(cat "$TMP/$nm$sfx.bps" 2>/dev/null || true)
      note=$(cat "$TMP/$nm$sfx.note" 2>/dev/null || true)
      awk -v b="${bps:-0}" -v name="$nm" -v note="$note" 'BEGIN {
        g = b > 0 ? sprintf("%.2f Gbit/s", b / 1e9) : "-";
        printf "  %-12s %14s  %s\n", name, g, note }'
    done
    printf '  '
    a5_line "$sfx"
  done
  LEN=$LEN0
}
if [ "${BENCH_A5:-0}" = 1 ]; then
  r=0
  while [ $r -lt "${BENCH_REPS:-1}" ]; do
    rm -f "$TMP"/*.bps "$TMP"/*.spgb "$TMP"/*.note
    a5_sizes
    r=$((r + 1))
  done
  exit 0
fi
# The limit is measured first and last; the better of the two counts, so
# that a busy machine makes the ratios smaller, never larger.
blast udp_mmsg $BASE "" ""
blast udp_gso $((BASE + 1)) --gso --gro
perf ccid2_udp $((BASE + 2)) 2 ""
perf ccid3_udp $((BASE + 3)) 3 ""
perf ccid2_udp_nogso $((BASE + 4)) 2 --no-gso
perf ccid3_udp_nogso $((BASE + 5)) 3 --no-gso
if [ "$(id -u)" = 0 ]; then
  perf ccid2_raw $((BASE + 6)) 2 --raw
  perf ccid3_raw $((BASE + 7)) 3 --raw
else
  echo "n/a (needs root)" >"$TMP/ccid2_raw.note"
  echo "n/a (needs root)" >"$TMP/ccid3_raw.note"
fi
tcp tcp_iperf3 $((BASE + 9))
blast udp_mmsg2 $((BASE + 8)) "" ""

LIMIT=$(cat "$TMP/udp_mmsg.bps" "$TMP/udp_mmsg2.bps" 2>/dev/null |
  awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { printf "%.0f", m }')
printf '\n%-34s %14s %9s  %s\n' "sender -> receiver" "goodput" "vs limit" "notes"
printf '%-34s %14s %9s  %s\n' "----------------------------------" \
  "--------------" "---------" "-----"
row() {
  bps=$(cat "$TMP/$1.bps" 2>/dev/null || true)
  note=$(cat "$TMP/$1.note" 2>/dev/null || true)
  if [ -z "$bps" ]; then
    printf '%-34s %14s %9s  %s\n' "$2" "-" "-" "$note"
    return
  fi
  awk -v b="$bps" -v l="$LIMIT" -v name="$2" -v note="$note" 'BEGIN {
    if (b >= 1e9) g = sprintf("%.2f Gbit/s", b / 1e9);
    else g = sprintf("%.1f Mbit/s", b / 1e6);
    r = l > 0 ? sprintf("%.0f %%", 100 * b / l) : "-";
    printf "%-34s %14s %9s  %s\n", name, g, r, note }'
}
row udp_mmsg  "UDP sendmmsg/recvmmsg (first)"
row udp_mmsg2 "UDP sendmmsg/recvmmsg (last)"
row udp_gso   "UDP GSO/GRO"
row ccid2_udp "udccp-perf CCID 2, DCCP-UDP"
row ccid3_udp "udccp-perf CCID 3, DCCP-UDP"
row ccid2_udp_nogso "  CCID 2, DCCP-UDP, --no-gso"
row ccid3_udp_nogso "  CCID 3, DCCP-UDP, --no-gso"
row ccid2_raw "udccp-perf CCID 2, raw IP"
row ccid3_raw "udccp-perf CCID 3, raw IP"
row tcp_iperf3 "iperf3 TCP (for CPU per GB)"
echo "limit = the better sendmmsg/recvmmsg row; goodput = payload bytes at the receiver"
# Issue 13 acceptance 5, side by side in this run: CCID 2 over DCCP-UDP
# against the UDP GSO/GRO blaster, and its CPU per GB against TCP's.
# The blaster's own CPU per GB is the floor for 1200-byte datagrams.
a5_line
if [ -n "${BENCH_A5_LENS-1200 8900 default 65443}" ]; then
  echo
  echo "Acceptance 5 by datagram size (each size's rows side by side):"
  a5_sizes
fi

# The sans-I/O core per connection (issue 13): handshakes per CPU-second
# (C heap and endpoint pool) next to a malloc+memset floor, heap per idle
# connection.  Instruction counts: see bench/hsbench.c (callgrind).
echo
"$HSBENCH" -n 20000 -c 1000 || echo "udccp-hsbench: error"
# The same idle-connection heap for the other CCIDs (their handshakes
# per CPU-second too): CCID 3 and 4 (TFRC), CUBIC (249), BBR (248).
for c in 3 4 249 248; do
  "$HSBENCH" -n 5000 -c 1000 -C $c -m heap 2>&1 |
    sed -n "s/^handshakes (\([^)]*\)).*: \([0-9]*\) per CPU-second.*/CCID $c: \2 handshakes per CPU-second/p; s/^heap per idle OPEN connection/CCID $c: heap per idle OPEN connection/p" ||
    echo "udccp-hsbench --ccid $c: error"
done

# Hostile peers (issue 12): instructions per packet under callgrind, as
# ratios to a normal packet of the same run (bench/hostile.sh).
echo
if command -v valgrind >/dev/null 2>&1 && [ -x "$BUILD/bench/udccp-hostile-bench" ]; then
  sh "$(dirname "$0")/hostile.sh" "$BUILD" "${BENCH_HOSTILE_PKTS:-300}" ||
    HOSTILE_FAIL=1
else
  echo "hostile-peer table skipped: needs valgrind and $BUILD/bench/udccp-hostile-bench"
fi

# The socket runtime at scale (issue 13): RTT of one active connection
# with N idle ones on the same endpoints, as a ratio to N = 1 measured in
# this run; handshakes per second over loopback (one server thread).
# BENCH_IDLE_MAX (default 100000) bounds N: 100,000 idle connections take
# ~10 s to open and ~0.7 GB (both ends, one process).
SCALE=$BUILD/bench/udccp-ioscale
if [ -x "$SCALE" ]; then
  IDLE_MAX=${BENCH_IDLE_MAX:-100000}
  echo
  printf '%-34s %14s %9s\n' "idle connections" "RTT (median)" "vs 1 idle"
  base=""
  for n in 1 1000 10000 100000; do
    if [ "$n" -gt "$IDLE_MAX" ]; then
      printf '%-34s %14s %9s  %s\n' "$n" "-" "-" "skipped (BENCH_IDLE_MAX=$IDLE_MAX)"
      continue
    fi
    us=$(timeout 900 "$SCALE" rtt "$n" 2000 2>/dev/null | sed -n 's/^rtt_us=\([0-9.]*\).*/\1/p')
    if [ -z "$us" ]; then
      printf '%-34s %14s %9s  %s\n' "$n" "-" "-" "error"
      continue
    fi
    [ -z "$base" ] && base=$us
    awk -v n="$n" -v u="$us" -v b="$base" \
      'BEGIN { printf "%-34s %11.1f us %8.2fx\n", n, u, u / b }'
  done
  hs=$(timeout 120 "$SCALE" hs "$SECS" 2>/dev/null | sed -n 's/^hs_per_s=\([0-9]*\).*/\1/p')
  printf '%-34s %14s\n' "handshakes/s, loopback (1 thread)" "${hs:-error}"
  # Cores (issue 13): worker threads on one UDP port.  The clients are
  # threads of this machine too, so two views, each against its own
  # baseline of this run:
  #  - per core: one worker and its flow on one CPU, then two workers
  #    with a flow each, each pair on its own CPU (taskset-like pinning);
  #  - per worker: the same two flows into one worker, then two workers
  #    (unpinned: the scheduler places the four threads).
  #  Each of the four runs three times, interleaved (a burst of other load
  #  then hits both sides of a ratio alike), and the medians are shown.
  mt() { timeout 60 "$SCALE" mt "$@" 2>/dev/null | sed -n 's/^goodput_mbps=\([0-9.]*\).*/\1/p'; }
  # med3 "A B C": the median of three figures; nothing if a run failed
  med3() { set -- $1; [ $# -eq 3 ] && printf '%s\n' "$@" | sort -g | sed -n 2p; }
  ones=; twos=; w1s=; w2s=
  for r in 1 2 3; do
    ones="$ones $(mt 1 1 "$SECS" pin)"; twos="$twos $(mt 2 2 "$SECS" pin)"
    w1s="$w1s $(mt 2 1 "$SECS")"; w2s="$w2s $(mt 2 2 "$SECS")"
  done
  one=$(med3 "$ones"); two=$(med3 "$twos"); w1=$(med3 "$w1s"); w2=$(med3 "$w2s")
  if [ -n "$one" ] && [ -n "$two" ] && [ -n "$w1" ] && [ -n "$w2" ]; then
    awk -v a="$one" -v b="$two" -v c="$w1" -v d="$w2" 'BEGIN {
      printf "%-34s %9.1f Mbit/s\n", "1 worker + 1 flow on 1 CPU (base)", a
      printf "%-34s %9.1f Mbit/s %8.2fx\n", "2 workers + 2 flows on 2 CPUs", b, b / a
      printf "%-34s %9.1f Mbit/s\n", "2 flows into 1 worker (base)", c
      printf "%-34s %9.1f Mbit/s %8.2fx\n", "2 flows into 2 workers, one port", d, d / c }'
  else
    printf '%-34s %14s\n' "worker scaling" "error"
  fi
fi

# Instructions per delivered data packet (callgrind): CCID 2 and CCID 3 at
# windows of 50, 500 and 5,000 packets, next to the copy floor.
if [ -x "$BUILD/bench/udccp-ippbench" ]; then
  echo
  sh "$(dirname "$0")/ipp.sh" "$BUILD" "${BENCH_IPP_PACKETS:-10000}"
fi

# a hostile case above 5x is a broken acceptance rule (issue 12), not a
# figure to read past: make bench fails
if [ -n "${HOSTILE_FAIL:-}" ]; then
  echo "bench: a hostile-peer case costs more than 5x a normal packet (above)" >&2
  exit 1
fi
