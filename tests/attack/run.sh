#!/bin/sh
# The attack suite (issue 12, doc/security.md): spoofed Request floods
# against udccp-perf -s, udccp-cat -l and a preloaded SOCK_DCCP server
# (tests/compat/dccp_sink.c), each in a network namespace of its own,
# with legitimate handshakes made during the flood and the victim's RSS
# sampled before, during and after.  Prints one table.
#
#   sh tests/attack/run.sh BUILD_DIR SOURCE_DIR [short|full]
#
# full (make attack): 100k packets/s for 60 s, 200 handshakes; short (make
# check, ctest attack_short): 20k packets/s for 4 s, 20 handshakes, ~40 s.  Override
# with ATTACK_SECONDS, ATTACK_PPS, ATTACK_LEGIT, ATTACK_COOKIES.  Needs root (namespaces,
# raw sockets): else SKIP (exit 77) with the reason.
#
# Two namespaces joined by a veth pair: the victim (10.77.0.1) routes
# 172.16.0.0/12 to the attacker (10.77.0.2), which sends Requests from
# random addresses of that range and drops the victim's answers (no
# forwarding).  The legitimate client runs in the attacker's namespace
# from 10.77.0.2.  The namespaces go away on exit (trap), whatever happens.
#
# Checks, full: >= 99 % of the handshakes complete within 3 s; RSS grows
# <= 16 MB and is back within 4 MB of its start 10 s after the flood; no
# sanitizer report.  Short (make check: victims built with ASan, 20k
# packets/s; its timing is at the mercy of the machine's load, so it
# only asks that the victim still completes handshakes): no sanitizer
# report, at least one handshake within 3 s, the figures printed.  RSS is
# not checked there: ASan's allocator keeps freed memory in quarantine.
set -u
B=${1:?usage: run.sh BUILD_DIR SOURCE_DIR [short|full]}
S=${2:?usage: run.sh BUILD_DIR SOURCE_DIR [short|full]}
MODE=${3:-full}
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the attack suite needs root (network namespaces, raw sockets with forged source addresses)"
  exit 77
fi
command -v ip >/dev/null || { echo "SKIP: iproute2 (ip) is not installed"; exit 77; }
if [ "$MODE" = short ]; then
  SECS=${ATTACK_SECONDS:-4}; NLEGIT=${ATTACK_LEGIT:-20}
  PPS=${ATTACK_PPS:-20000}
  NEED=1
else
  SECS=${ATTACK_SECONDS:-60}; NLEGIT=${ATTACK_LEGIT:-200}
  PPS=${ATTACK_PPS:-100000}
  NEED=$(( (NLEGIT * 99 + 99) / 100 ))
fi
AFTER=10
SPOOF=$B/udccp-spoof
PRELOAD=$B/compat/libudccp-preload.so
SINK=$B/compat/dccp_sink
for f in "$SPOOF" "$B/udccp-perf" "$B/udccp-cat" "$PRELOAD" "$SINK"; do
  [ -e "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
NV=udccp-atk-v-$$
NA=udccp-atk-a-$$
TMP=$(mktemp -d /tmp/udccp-attack.XXXXXX)
VPID=
cleanup() {
  [ -n "$VPID" ] && kill "$VPID" 2>/dev/null
  ip netns del "$NV" 2>/dev/null
  ip netns del "$NA" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! ip netns add "$NV" 2>/dev/null || ! ip netns add "$NA" 2>/dev/null ||
   ! ip link add "uav$$" type veth peer name "uaa$$" 2>/dev/null; then
  echo "SKIP: cannot make network namespaces with a veth pair here"
  exit 77
fi
ip link set "uav$$" netns "$NV"
ip link set "uaa$$" netns "$NA"
ip -n "$NV" link set lo up
ip -n "$NA" link set lo up
ip -n "$NV" addr add 10.77.0.1/24 dev "uav$$"
ip -n "$NA" addr add 10.77.0.2/24 dev "uaa$$"
ip -n "$NV" link set "uav$$" up
ip -n "$NA" link set "uaa$$" up
ip -n "$NV" route add 172.16.0.0/12 via 10.77.0.2
ip netns exec "$NV" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
  "net.ipv4.conf.uav$$.rp_filter=0" 2>/dev/null
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

FAILS=0
ROWS=
rss() {
  r=$(awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null)
  echo "${r:-0}"
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# victim NAME UDPPORT DCCPPORT SERVICE HOLD COMMAND...
victim() {
  name=$1 uport=$2 dport=$3 svc=$4 hold=$5
  shift 5
  ip netns exec "$NV" "$@" >"$TMP/$name.log" 2>&1 </dev/null &
  VPID=$!
  sleep 1
  if ! kill -0 "$VPID" 2>/dev/null; then
    echo "FAIL: $name did not start:"; cat "$TMP/$name.log"
    FAILS=$((FAILS + 1)); VPID=; return
  fi
  r0=$(rss "$VPID")
  peak=$r0
  ip netns exec "$NA" "$SPOOF" flood 10.77.0.1 "$uport" "$dport" "$svc" \
    "$PPS" "$SECS" >"$TMP/$name.flood" 2>&1 &
  fpid=$!
  sleep 0.5
  ip netns exec "$NA" "$SPOOF" connect 10.77.0.1 "$uport" "$dport" "$svc" \
    "$NLEGIT" 3000 $hold >"$TMP/$name.legit" 2>"$TMP/$name.legit.err" &
  lpid=$!
  while kill -0 "$fpid" 2>/dev/null; do
    r=$(rss "$VPID"); [ "$r" -gt "$peak" ] && peak=$r
    sleep 0.2
  done
  wait "$lpid"
  rend=$(rss "$VPID")
  i=0
  rafter=$rend
  while [ $i -lt $((AFTER * 5)) ]; do
    rafter=$(rss "$VPID")
    [ "$rafter" -le $((r0 + 4096)) ] && break
    sleep 0.2; i=$((i + 1))
  done
  back_s=$(awk -v i=$i 'BEGIN { printf "%.1f", i / 5 }')
  kill "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=
  sent=$(awk '{ print $3 }' "$TMP/$name.flood"); pps=$(awk '{ print $5 }' "$TMP/$name.flood")
  ok=$(awk '{ print $5 }' "$TMP/$name.legit"); maxms=$(awk '{ print $9 }' "$TMP/$name.legit")
  [ -n "$ok" ] || ok=0
  verdict=ok
  if [ "$ok" -lt "$NEED" ]; then
    verdict=FAIL; echo "FAIL: $name: only $ok of $NLEGIT handshakes within 3 s (need $NEED)"
    sed 's/^/    /' "$TMP/$name.legit.err" | head -5
  fi
  if grep -Eq "ERROR: AddressSanitizer|runtime error:|LeakSanitizer" "$TMP/$name.log"; then
    verdict=FAIL; echo "FAIL: $name: sanitizer report:"; head -20 "$TMP/$name.log"
  fi
  if [ "$MODE" = full ]; then
    if [ $((peak - r0)) -gt 16384 ]; then
      verdict=FAIL; echo "FAIL: $name: RSS grew $(mb $((peak - r0))) MB (> 16)"
    fi
    if [ "$rafter" -gt $((r0 + 4096)) ]; then
      verdict=FAIL; echo "FAIL: $name: RSS $(mb "$rafter") MB $AFTER s after (start $(mb "$r0") MB)"
    fi
  fi
  [ "$verdict" = ok ] || FAILS=$((FAILS + 1))
  ROWS="$ROWS
| spoofed Request flood, $pps packets/s for $SECS s ($sent sent), against $name | RSS $(mb "$r0") MB -> peak $(mb "$peak") MB (+$(mb $((peak - r0)))) -> $(mb "$rafter") MB ${back_s} s after; $ok of $NLEGIT legitimate handshakes within 3 s (slowest $maxms ms) | $verdict |"
  echo "$name: done ($verdict)"
}

# ATTACK_COOKIES: the victims' Init Cookie mode (auto, the default;
# always; never) to compare them
CK=${ATTACK_COOKIES:-auto}
victim "udccp-perf -s" 6511 5201 PERF "" \
  "$B/udccp-perf" -s -p 5201 --udp-port 6511 --cookies "$CK"
victim "udccp-cat -l" 6512 5202 CAT hold \
  "$B/udccp-cat" -l -d -p 5202 --udp-port 6512 --cookies "$CK"
victim "preloaded SOCK_DCCP server (dccp_sink)" 6513 5203 42 "" \
  env LD_PRELOAD="$PRELOAD" UDCCP_UDP_PORT=6513 UDCCP_INIT_COOKIE="$CK" \
  "$SINK" 5203 42 128

REPLAY="not measured here (tests/test_listener.c, ctest)"
if [ -x "$B/test_listener" ]; then
  if "$B/test_listener" >"$TMP/replay.log" 2>&1; then
    REPLAY="1 connection of 1,000 replays (test_listener: cookie_replay_makes_one_connection; other UDP ports: Bad Init Cookie)"
  else
    REPLAY="FAIL (test_listener)"; FAILS=$((FAILS + 1))
  fi
fi
echo
echo "| attack | result | verdict |"
echo "|---|---|---|$ROWS"
echo "| one captured Init Cookie Ack replayed 1,000 times | $REPLAY | |"
echo "| 10,000 completed-then-silent connections | not measured: waits for keepalive (\"peer\") | |"
echo "| hostile options from an authenticated peer | not measured: CPU-per-packet row from \"peer\" | |"
echo "| blind injection of every packet type (X=1, X=0) | not measured by this suite yet | |"
[ $FAILS -eq 0 ] || { echo "attack: $FAILS failure(s)"; exit 1; }
echo "attack: all checks passed ($MODE)"
exit 0
