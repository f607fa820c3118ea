#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf's addresses and ports (issue 15, doc/udccp-perf.md): -B,
# --cport, -4/-6 (and -V), the one-port model (-p names the DCCP port only,
# UDP 6511 unless --udp-port) and a non-root server on UDP port 80.
# Every process is bounded by timeout(1) or killed by PID.
#   sh tests/perf_ports.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_ports.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-ports
. "$SRC/tests/support/tools_env.sh"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }

U=$((50000 + ($$ % 5000) * 2)) # this run's UDP port
D=$((25000 + $$ % 5000))       # and DCCP port
timeout -k 5 60 "$PERF" -s --udp-port "$U" -p "$D" >"$T/srv.log" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

# jcheck NAME FILE PYTHON-EXPR: the JSON object in FILE as d satisfies EXPR
jcheck() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$T/py.err"; then
    pass "$1"
  else
    fail "$1: $(cat "$T/py.err") $(head -c 600 "$2")"
  fi
}

# -B, --cport, -4 and -V: the local UDP port is the one asked for
CP=$((U + 1))
timeout -k 5 20 $C -B 127.0.0.1 --cport "$CP" -4 -V -t 0.3 -b 5m >"$T/b.txt" 2>&1 ||
  fail "-B --cport -4 -V: exit $?: $(cat "$T/b.txt")"
if grep -q "^local UDP port $CP;" "$T/b.txt" && grep -q '^udccp-perf [0-9]' "$T/b.txt" &&
   grep -q '^endpoint: [0-9]* datagrams sent' "$T/b.txt"; then
  pass "-B 127.0.0.1 --cport $CP -4 -V"
else
  fail "-B --cport -4 -V: $(cat "$T/b.txt")"
fi
# -6: IPv6 only; an IPv4 host is then an error
timeout -k 5 20 "$PERF" -c ::1 --udp-port "$U" -p "$D" -6 -t 0.3 -b 5m >"$T/6.txt" 2>&1 ||
  fail "-6 to ::1: exit $?: $(cat "$T/6.txt")"
timeout -k 5 20 $C -6 -t 0.3 >"$T/6b.txt" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'IPv6' "$T/6b.txt"; then
  pass "-6 with an IPv4 host: $(cat "$T/6b.txt")"
else
  fail "-6 with an IPv4 host: exit $rc: $(cat "$T/6b.txt")"
fi

kill "$spid" 2>/dev/null

# One-port model: -p names the DCCP port; both ends meet on UDP 6511
# (shared with other servers by DCCP port) without --udp-port.
timeout -k 5 20 "$PERF" -s -1 -p "$D" >"$T/op.srv" 2>&1 &
spid=$!
PIDS="$PIDS $spid"
sleep 0.4
timeout -k 5 20 "$PERF" -c 127.0.0.1 -p "$D" -t 0.3 -b 5m -J >"$T/op.json" 2>"$T/op.err" ||
  fail "-p $D over UDP 6511: exit $?: $(cat "$T/op.err") $(cat "$T/op.srv")"
jcheck "-p $D: DCCP port $D over UDP port 6511" "$T/op.json" "d['complete']"
grep -q "DCCP port $D over UDP port 6511" "$T/op.srv" || fail "-p $D: server: $(cat "$T/op.srv")"

# A non-root server on UDP port 80 is told why it cannot bind (not
# "--raw needs root"); a DCCP port 80 over UDP 6511 needs no privilege.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  cp "$PERF" "$T/perf-copy" && chmod 755 "$T" "$T/perf-copy"
  timeout -k 5 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$T/perf-copy" -s -1 --udp-port 80 >/dev/null 2>"$T/80.err"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q 'UDP port 80 needs privilege' "$T/80.err" &&
     ! grep -q 'raw needs root' "$T/80.err"; then
    pass "non-root, UDP port 80: $(cat "$T/80.err")"
  else
    fail "non-root, UDP port 80: exit $rc: $(cat "$T/80.err")"
  fi
else
  echo "note: not root or no setpriv: the non-root UDP port 80 case needs both (not run)"
fi

if [ "$FAILS" -ne 0 ]; then
  echo "perf_ports: $FAILS failure(s)"
  exit 1
fi
echo "perf_ports: all passed"
