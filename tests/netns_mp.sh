#!/bin/sh
# SPDX-License-Identifier: MIT
# Multipath DCCP (RFC 9897) over two links (issue 16, acceptance 5): two
# network namespaces C and S joined by two veth pairs, each shaped to
# 20 Mbit/s by tbf in both directions.  S has the server address on its
# loopback; C reaches it over link 1 from 10.81.1.1 and, by a policy route
# (ip rule from 10.81.2.1), over link 2 from 10.81.2.1.
# `udccp-perf -c --multipath 10.81.1.1,10.81.2.1` against
# `udccp-perf -s --multipath` must show >= 36 Mbit/s received in total,
# both paths used (each >= 25 % of it).  Handover over real sockets
# (acceptance 2, §3.11.1): with --mp-sched backup, link 1 down for 3 s in
# the middle of the transfer: link 2 carries data, link 1 is found dead and
# comes back, the connection completes.  Then the fallback (§3.6): the same
# client against a plain `udccp-perf -s` reports plain DCCP and exits 0.
# Needs root (else SKIP, exit 77); about 30 s.  Namespaces are removed on
# exit (trap); only processes started here are killed, by PID.
#   sh tests/netns_mp.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: netns_mp.sh BUILD_DIR SOURCE_DIR}
PERF=$B/udccp-perf
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root (network namespaces)"; exit 77
fi
for t in ip tc timeout python3; do
  command -v $t >/dev/null || { echo "FAIL: $t not installed"; exit 1; }
done
[ -x "$PERF" ] || { echo "FAIL: $PERF not built"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
C=udccpmpC$$
S=udccpmpS$$
TMP=$(mktemp -d /tmp/udccp-mp.XXXXXX)
PIDS=""
cleanup() {
  set +e
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
  done
  ip netns del "$C" 2>/dev/null
  ip netns del "$S" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# one bottleneck test at a time on this machine (tests/netns/linkem-setup.sh)
exec 9>/tmp/udccp-netns.lock
flock -w 600 9 || { echo "FAIL: netns lock busy for 600 s"; exit 1; }

set -e
ip netns add "$C"
ip netns add "$S"
for k in 1 2; do
  ip link add c$k netns "$C" type veth peer name s$k netns "$S"
  ip -n "$C" addr add 10.81.$k.1/24 dev c$k
  ip -n "$S" addr add 10.81.$k.2/24 dev s$k
  ip -n "$C" link set c$k up
  ip -n "$S" link set s$k up
  # 20 Mbit/s each way; a queue of ~20 ms
  tc -n "$C" qdisc add dev c$k root tbf rate 20mbit burst 20kb latency 20ms
  tc -n "$S" qdisc add dev s$k root tbf rate 20mbit burst 20kb latency 20ms
done
ip -n "$C" link set lo up
ip -n "$S" link set lo up
ip -n "$S" addr add 10.81.9.9/32 dev lo
ip -n "$C" route add 10.81.9.9/32 via 10.81.1.2
ip -n "$C" rule add from 10.81.2.1 table 102
ip -n "$C" route add 10.81.9.9/32 via 10.81.2.2 table 102
for ns in "$C" "$S"; do
  ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0
  ip netns exec "$ns" sysctl -qw net.ipv4.conf.default.rp_filter=0
done
set +e

FAILS=0
srv() { # NAME ARGS...: a udccp-perf server in S, one test
  name=$1; shift
  ip netns exec "$S" timeout -k 5 60 "$PERF" -s -1 "$@" >"$TMP/$name.log" 2>&1 &
  PIDS="$PIDS $!"
  i=0
  while ! grep -q server "$TMP/$name.log" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1)); done
}

# (a) aggregation: both links
srv mp --multipath
ip netns exec "$C" timeout -k 5 60 "$PERF" -c 10.81.9.9 \
  --multipath 10.81.1.1,10.81.2.1 -t 10 -l 1400 -J >"$TMP/c.json" 2>"$TMP/c.err"
rc=$?
cat "$TMP/c.err"
python3 - "$TMP/c.json" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
j = json.load(open(sys.argv[1]))
m = j["multipath"]
g = j["goodput_bps"]
paths = m["paths"]
print("total %.2f Mbit/s received, %d paths: %s" % (g / 1e6, len(paths), ", ".join(
    "%s->%s %.2f Mbit/s (share %.2f, rtt %.1f ms, cwnd %d, CCID losses %d)" % (
        p["local"], p["remote"], p["goodput_bps"] / 1e6, p["share"],
        p["rtt_ms"], p["cwnd"], p["ccid_lost_pkts"]) for p in paths)))
ok = m["active"] == 1 and len(paths) == 2 and g >= 36e6 and all(
    p["goodput_bps"] >= 0.25 * g for p in paths)
print("ok:   aggregate >= 36 Mbit/s, both paths used" if ok else
      "FAIL: aggregate >= 36 Mbit/s over both paths")
sys.exit(0 if ok else 1)
PY
[ $rc -eq 0 ] || { echo "FAIL: udccp-perf --multipath exited $rc"; FAILS=$((FAILS + 1)); }

# (c) handover over real sockets: active-backup, link 1 down for 3 s in
# the middle of an 8 s transfer: link 2 takes over, link 1 comes back,
# the connection lives on
srv ho --multipath
ip netns exec "$C" timeout -k 5 60 "$PERF" -c 10.81.9.9 \
  --multipath 10.81.1.1,10.81.2.1 --mp-sched backup -t 8 -l 1400 -J \
  >"$TMP/h.json" 2>"$TMP/h.err" &
HPID=$!
PIDS="$PIDS $HPID"
sleep 3
ip -n "$S" link set s1 down
sleep 3
ip -n "$S" link set s1 up
wait $HPID
rc=$?
cat "$TMP/h.err"
python3 - "$TMP/h.json" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
j = json.load(open(sys.argv[1]))
m = j["multipath"]
p = m["paths"]
print("handover: %.2f Mbit/s received; path 1 %.2f Mbit/s (dead %d times, back %d), "
      "path 2 (backup) %.2f Mbit/s" % (j["goodput_bps"] / 1e6, p[0]["goodput_bps"] / 1e6,
      p[0]["deaths"], p[0]["revivals"], p[1]["goodput_bps"] / 1e6))
ok = (m["result"] and len(p) == 2 and p[0]["deaths"] >= 1 and p[0]["revivals"] >= 1
      and p[1]["received_bytes"] > 0 and p[0]["received_bytes"] > p[1]["received_bytes"])
print("ok:   link 1 down for 3 s: link 2 took over, link 1 came back" if ok else
      "FAIL: handover with link 1 down for 3 s")
sys.exit(0 if ok else 1)
PY
[ $rc -eq 0 ] || { echo "FAIL: udccp-perf --mp-sched backup exited $rc"; FAILS=$((FAILS + 1)); }

# (b) fallback: a server without multipath
srv plain
ip netns exec "$C" timeout -k 5 30 "$PERF" -c 10.81.9.9 \
  --multipath 10.81.1.1,10.81.2.1 -t 2 >"$TMP/f.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'plain DCCP' "$TMP/f.log"; then
  echo "ok:   a plain server: the client falls back to plain DCCP (RFC 9897 §3.6)"
else
  echo "FAIL: fallback against a plain server (exit $rc)"; cat "$TMP/f.log"
  FAILS=$((FAILS + 1))
fi
[ $FAILS -eq 0 ] || exit 1
