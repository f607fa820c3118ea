#!/bin/sh
# SPDX-License-Identifier: MIT
# Connections start from the route's MTU (io/pmtu.c, at connect and when a
# listener makes the connection), as Linux's DCCP takes dst_mtu: over
# loopback (MTU 65,536) datagrams of 16 KB and ~60 KB go through
# udccp-perf (-l; with and without GSO/GRO, so the receive slots must grow
# on demand; IPv4 and ::1) and udccp-cat (each line one datagram, the
# bytes intact), and a program written for Linux DCCP, preloaded
# (compat/), sends 8 KB messages.  Before, the MPS stayed at 1,408 bytes
# (the configured 1,500-byte PMTU): "-l 16000 is out of range", lines cut,
# EMSGSIZE.  Every process is bounded by timeout(1) or killed by PID.
#   sh tests/io_route_mtu.sh BUILD_DIR SOURCE_DIR
set -u
B=$(cd "${1:?usage: io_route_mtu.sh BUILD_DIR SOURCE_DIR}" && pwd)
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=io-route-mtu
. "$SRC/tests/support/tools_env.sh"

U=$((38001 + ($$ % 4000) * 2)) # this run's UDP port
D=$((22000 + $$ % 5000))       # and first DCCP port

# perf HOST LEN [ARGS...]: one 1 s test with LEN-byte datagrams
perf() {
  host=$1
  len=$2
  shift 2
  D=$((D + 1))
  sargs=""
  case " $* " in *" --no-gso "*) sargs=--no-gso ;; esac
  "$PERF" -s -1 --udp-port "$U" -p "$D" $sargs >"$T/srv.out" 2>&1 &
  spid=$!
  PIDS="$PIDS $spid"
  sleep 0.3
  timeout -k 5 30 "$PERF" -c "$host" --udp-port "$U" -p "$D" -t 1 -l "$len" -J "$@" \
    >"$T/perf.json" 2>"$T/perf.err"
  rc=$?
  n=0
  while kill -0 "$spid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  kill "$spid" 2>/dev/null
  wait "$spid"
  srv=$?
  pk=$(json_num "$T/perf.json" received_pkts)
  if [ "$rc" -eq 0 ] && [ "$srv" -eq 0 ] && [ "${pk:-0}" -gt 100 ] &&
     grep -q "\"length\": $len\|$len-byte" "$T/perf.json" "$T/srv.out"; then
    pass "udccp-perf $host -l $len $*: $pk datagrams, $(json_num "$T/perf.json" goodput_bps) bit/s"
  else
    fail "udccp-perf $host -l $len $*: client $rc server $srv: $(cat "$T/perf.err") $(head -c 300 "$T/perf.json") $(cat "$T/srv.out")"
  fi
}

perf 127.0.0.1 16000
perf 127.0.0.1 60000
perf 127.0.0.1 60000 --no-gso
perf 127.0.0.1 16000 --no-gso -R
perf ::1 16000
perf ::1 60000

# udccp-cat: lines of 16,000 and 60,000 bytes, one datagram each
for len in 16000 60000; do
  awk -v n=60 -v len="$len" 'BEGIN { for (i = 0; i < n; i++) { s = sprintf("%05d", i);
    while (length(s) < len - 1) s = s "abcdefghij"; print substr(s, 1, len - 1) } }' \
    >"$T/in.$len"
  for host in 127.0.0.1 ::1; do
    D=$((D + 1))
    timeout -k 5 30 "$CAT" -l -d -v --udp-port "$U" "$D" >"$T/cat.out" 2>"$T/cat.srv" &
    lpid=$!
    PIDS="$PIDS $lpid"
    sleep 0.3
    timeout -k 5 30 "$CAT" -v --udp-port "$U" "$host" "$D" <"$T/in.$len" 2>"$T/cat.cli"
    rc=$?
    wait "$lpid"
    lrc=$?
    mps=$(sed -n 's/.*MPS \([0-9]*\).*/\1/p' "$T/cat.cli" | head -n 1)
    if [ "$rc" -eq 0 ] && [ "$lrc" -eq 0 ] && cmp -s "$T/cat.out" "$T/in.$len" &&
       grep -q ' 60 datagrams sent' "$T/cat.cli" && [ "${mps:-0}" -gt 60000 ]; then
      pass "udccp-cat $host: 60 lines of $len bytes, 60 datagrams, MPS $mps"
    else
      fail "udccp-cat $host, $len-byte lines: exit $rc/$lrc, MPS '$mps': $(cat "$T/cat.cli" "$T/cat.srv")"
    fi
  done
done

# native DCCP (root): the IP header counts in the MTU, the slots hold it
if [ "$(id -u)" = 0 ]; then
  D=$((D + 1))
  timeout -k 5 30 "$CAT" -l -d --raw "$D" >"$T/cat.out" 2>"$T/cat.srv" &
  lpid=$!
  PIDS="$PIDS $lpid"
  sleep 0.3
  timeout -k 5 30 "$CAT" -v --raw 127.0.0.1 "$D" <"$T/in.60000" 2>"$T/cat.cli"
  rc=$?
  wait "$lpid"
  lrc=$?
  if [ "$rc" -eq 0 ] && [ "$lrc" -eq 0 ] && cmp -s "$T/cat.out" "$T/in.60000" &&
     grep -q ' 60 datagrams sent' "$T/cat.cli"; then
    pass "udccp-cat --raw: 60 lines of 60000 bytes"
  else
    fail "udccp-cat --raw, 60000-byte lines: exit $rc/$lrc: $(cat "$T/cat.cli" "$T/cat.srv")"
  fi
else
  echo "note: not root, native DCCP case not run"
fi

# A Linux DCCP program through the preload layer: 8 KB messages each way.
LIB=$B/compat/libudccp-preload.so
if [ -e "$LIB" ]; then
  D=$((D + 1))
  PYSRV='
import socket, struct, sys
s = socket.socket(socket.AF_INET, 6, 33)   # SOCK_DCCP, IPPROTO_DCCP
s.setsockopt(269, 2, struct.pack("!I", 42))  # DCCP_SOCKOPT_SERVICE
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
print("listening", flush=True)
assert "libudccp-preload" in open("/proc/self/maps").read(), "not preloaded"
c, peer = s.accept()
n = 0
while True:
    d = c.recv(65536)
    if not d:
        break
    c.send(d)
    n += 1
c.close()
print("served", n, flush=True)
'
  PYCLI='
import socket, struct, sys
s = socket.socket(socket.AF_INET, 6, 33)
s.setsockopt(269, 2, struct.pack("!I", 42))
s.settimeout(10)
assert "libudccp-preload" in open("/proc/self/maps").read(), "not preloaded"
s.connect(("127.0.0.1", int(sys.argv[1])))
mps = struct.unpack("i", s.getsockopt(269, 5, 4))[0]   # DCCP_SOCKOPT_GET_CUR_MPS
assert mps >= 8192, "MPS %d" % mps
for i in range(200):
    msg = bytes([i % 251]) * 8192
    s.send(msg)
    got = s.recv(65536)
    assert got == msg, (i, len(got))
s.close()
print("ok mps", mps)
'
  env LD_PRELOAD="$LIB" UDCCP_UDP_PORT="$U" timeout -k 5 30 python3 -c "$PYSRV" "$D" \
    >"$T/py.srv" 2>&1 &
  ppid=$!
  PIDS="$PIDS $ppid"
  n=0
  while ! grep -q listening "$T/py.srv" && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
  env LD_PRELOAD="$LIB" UDCCP_UDP_PORT="$U" timeout -k 5 30 python3 -c "$PYCLI" "$D" \
    >"$T/py.cli" 2>&1
  rc=$?
  wait "$ppid"
  prc=$?
  if [ "$rc" -eq 0 ] && [ "$prc" -eq 0 ] && grep -q 'served 200' "$T/py.srv"; then
    pass "preloaded Linux DCCP program: 200 messages of 8192 bytes echoed, $(cat "$T/py.cli")"
  else
    fail "preloaded 8 KB messages: client $rc server $prc: $(cat "$T/py.cli" "$T/py.srv")"
  fi
else
  fail "$LIB not built"
fi

[ "$FAILS" -eq 0 ] && echo "io_route_mtu: all passed" && exit 0
echo "io_route_mtu: $FAILS failed"
exit 1
