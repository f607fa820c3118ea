#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-perf's last iperf3 options (doc/udccp-perf.md): -O/--omit,
# -S/--tos, --repeating-payload, --server-bitrate-limit, -A, --bind-dev.  Each case
# measures what the option must change, so that it fails when the option
# does nothing: -O leaves the first seconds out of the counts (half the
# datagrams of a paced run), --repeating-payload puts "0123456789..." in
# every DATA (and random bytes are there without it), -S sets the DSCP
# seen on the wire by tcpdump (root; else only the --pcap capture is
# looked at, said) with the ECN bits left to the stack, and the server's
# limit ends a test that goes faster than it (or refuses one that asks).
# Every process is bounded by timeout(1) or killed by PID.
#   sh tests/perf_omit_tos.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?usage: perf_omit_tos.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
NAME=perf-omit-tos
. "$SRC/tests/support/tools_env.sh"

U=$((30001 + ($$ % 4000) * 2)) # this run's UDP port (and U + 1)
D=$((20000 + $$ % 5000))       # and DCCP port
C="$PERF -c 127.0.0.1 --udp-port $U -p $D"

# jcheck NAME FILE PYTHON-EXPR: the JSON object in FILE as d satisfies EXPR
jcheck() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$T/py.err"; then
    pass "$1"
  else
    fail "$1: $(cat "$T/py.err") $(head -c 600 "$2")"
  fi
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

timeout -k 5 60 "$PERF" -s --udp-port "$U" -p "$D" >"$T/srv.txt" 2>&1 &
PIDS="$PIDS $!"
sleep 0.4

# -O: 4 Mbit/s of 1000-byte datagrams is 500 a second; -t 0.5 -O 0.5 runs
# one second and counts half: about 250 datagrams, not 500.
t0=$(now_ms)
timeout -k 5 20 $C -t 0.5 -O 0.5 -i 0.2 -b 4m -l 1000 >"$T/o.txt" 2>&1 || fail "-O: exit $?: $(cat "$T/o.txt")"
ms=$(($(now_ms) - t0))
sent=$(sed -n 's/^sender: CCID 2, [0-9.]* s, sent \([0-9]*\) pkts.*/\1/p' "$T/o.txt")
dur=$(sed -n 's/^sender: CCID 2, \([0-9.]*\) s, sent.*/\1/p' "$T/o.txt")
nom=$(grep -c '(omitted)$' "$T/o.txt")
if [ -n "$sent" ] && [ "$sent" -ge 200 ] && [ "$sent" -le 300 ] && [ "$nom" -ge 1 ] &&
   [ "$ms" -ge 950 ] && awk -v d="$dur" 'BEGIN { exit !(d >= 0.45 && d <= 0.7) }'; then
  pass "-O 0.5 -t 0.5: ran $ms ms, $nom omitted interval lines, counted $sent datagrams in $dur s"
else
  fail "-O 0.5: $ms ms, sent '$sent', duration '$dur', $nom omitted lines: $(cat "$T/o.txt")"
fi
# -O with -R (the server omits) and in the JSON: only the counted half
timeout -k 5 20 $C -t 0.4 -O 0.4 -R -b 4m -l 1000 -J >"$T/o.json" 2>&1 || fail "-O -R: exit $?"
jcheck "-O 0.4 -R -J: the server's sending counted for 0.4 s only" "$T/o.json" \
  "d['complete'] and 150 <= d['sent_pkts'] <= 250 and d['received_pkts'] == d['sent_pkts'] and 0.3 <= d['duration_s'] <= 0.6 and all(i['end'] <= 0.7 for i in d['intervals'])"

# --repeating-payload, both directions (--bidir), seen in the client's
# capture; without it the payload is random
timeout -k 5 20 $C -t 0.4 --bidir -b 2m -l 500 --repeating-payload --pcap "$T/rp.pcap" \
  >"$T/rp.txt" 2>&1 || fail "--repeating-payload: exit $?: $(cat "$T/rp.txt")"
timeout -k 5 20 $C -t 0.4 -b 2m -l 500 --pcap "$T/rnd.pcap" >"$T/rnd.txt" 2>&1 ||
  fail "random payload run: exit $?"

# -S: usage, then the wire (tcpdump, root) and our own capture
for bad in "-S 256" "-S x"; do
  # shellcheck disable=SC2086
  timeout -k 5 10 $C $bad -t 1 >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$bad: exit $rc, not a usage error (2)"
done
wire=""
if [ "$(id -u)" = 0 ] && command -v tcpdump >/dev/null 2>&1; then
  chmod 755 "$T"
  timeout -k 5 20 tcpdump -U -n -i lo -w "$T/tos.pcap" udp port "$U" >/dev/null 2>"$T/td.err" &
  tpid=$!
  PIDS="$PIDS $tpid"
  i=0
  until grep -q listening "$T/td.err" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
  done
  wire=$T/tos.pcap
else
  echo "note: not root (or no tcpdump): -S is checked in the --pcap capture only"
fi
# 0x2b: DSCP 10 (AF11) with both ECN bits set, which must not reach the
# wire (ECN is the CCID's: Not-ECT here); IPv6: 0x48, DSCP 18
timeout -k 5 20 $C -t 0.3 -b 2m -l 500 -S 0x2b --pcap "$T/s4.pcap" >/dev/null 2>"$T/s4.err" ||
  fail "-S 0x2b: exit $?: $(cat "$T/s4.err")"
timeout -k 5 20 "$PERF" -c ::1 --udp-port "$U" -p "$D" -t 0.3 -b 2m -l 500 -S 0x48 \
  >/dev/null 2>"$T/s6.err" || fail "-S 0x48 (IPv6): exit $?: $(cat "$T/s6.err")"
if [ -n "$wire" ]; then
  sleep 1 # tcpdump, slow on a loaded machine, reads what the kernel holds
  kill -INT "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
fi

# Every capture read by one python (its start-up is slow on a loaded
# machine): pcap files, LINKTYPE_RAW (ours) or Ethernet (tcpdump on lo).
cat >"$T/pcap.py" <<'PY'
import struct, sys
def frames(path):
    d = open(path, 'rb').read()
    link = struct.unpack_from('=I', d, 20)[0]
    off = 24
    while off + 16 <= len(d):
        caplen = struct.unpack_from('=I', d, off + 8)[0]
        f = d[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if link == 1:  # Ethernet
            f = f[14:]
        if f[0] >> 4 == 4:
            ihl = (f[0] & 15) * 4
            tos, l4 = f[1], f[ihl:]
        else:
            tos, l4 = ((f[0] & 15) << 4) | (f[1] >> 4), f[40:]
        yield f[0] >> 4, tos, struct.unpack_from('>H', l4, 2)[0], l4[8:]
port = int(sys.argv[1])
PAT = b'0123456789012345678901234567890123456789'
# perf DATA (type 3) starts "UDPF\3"; its payload 24 bytes after
def pattern(path):
    n = out_n = in_n = 0
    for v, tos, dport, dccp in frames(path):
        i = dccp.find(b'UDPF\x03')
        if i < 0:
            continue
        n += 1
        if PAT in dccp[i + 24:]:
            out_n += dport == port
            in_n += dport != port
    return n, out_n, in_n
print('rp %d %d %d' % pattern(sys.argv[2]))
print('rnd %d %d %d' % pattern(sys.argv[3]))
n28 = sum(1 for v, tos, dport, _ in frames(sys.argv[4]) if tos == 0x28 and dport == port)
print('s4 %d' % n28)
if len(sys.argv) > 5:
    c = {}
    for v, tos, dport, _ in frames(sys.argv[5]):
        k = (v, dport == port, tos)
        c[k] = c.get(k, 0) + 1
    v4 = c.get((4, True, 0x28), 0)
    v6 = c.get((6, True, 0x48), 0)
    back = c.get((4, False, 0), 0) + c.get((6, False, 0), 0)
    other = sum(n for k, n in c.items()) - v4 - v6 - back
    print('wire %d %d %d %d %s' % (v4, v6, back, other, str(c).replace(' ', '')))
PY
python3 "$T/pcap.py" "$U" "$T/rp.pcap" "$T/rnd.pcap" "$T/s4.pcap" $wire >"$T/pcap.txt" ||
  fail "reading the captures: $(cat "$T/pcap.txt")"
set -- $(sed -n 's/^rp //p' "$T/pcap.txt")
if [ "$#" = 3 ] && [ "$2" -ge 50 ] && [ "$3" -ge 50 ] && [ $(($2 + $3)) = "$1" ]; then
  pass "--repeating-payload: all $1 DATA have the pattern ($2 sent, $3 from the server)"
else
  fail "--repeating-payload: DATA, with the pattern sent and received: $*"
fi
set -- $(sed -n 's/^rnd //p' "$T/pcap.txt")
if [ "$#" = 3 ] && [ "$1" -ge 50 ] && [ "$2" = 0 ] && [ "$3" = 0 ]; then
  pass "default payload: none of $1 DATA repeats a pattern (random bytes)"
else
  fail "default payload: DATA, with the pattern: $*"
fi
n28=$(sed -n 's/^s4 //p' "$T/pcap.txt")
[ "${n28:-0}" -ge 50 ] && pass "-S 0x2b: $n28 captured (--pcap) packets to the server with TOS 0x28" ||
  fail "-S 0x2b: '$n28' packets with TOS 0x28 in the capture"
if [ -n "$wire" ]; then
  set -- $(sed -n 's/^wire //p' "$T/pcap.txt")
  if [ "$#" = 5 ] && [ "$1" -ge 50 ] && [ "$2" -ge 50 ] && [ "$3" -ge 20 ] && [ "$4" = 0 ]; then
    pass "-S on the wire: $1 IPv4 packets TOS 0x28, $2 IPv6 traffic class 0x48 (ECN bits 0); the server's $3 TOS 0"
  else
    fail "-S on the wire (v4, v6, back, other, by version/to-server/tos): $*"
  fi
fi

# --server-bitrate-limit 1m/1 on a second server
U2=$((U + 1))
timeout -k 5 60 "$PERF" -s --udp-port "$U2" -p "$D" --server-bitrate-limit 1m/1 >"$T/lim.txt" 2>&1 &
PIDS="$PIDS $!"
sleep 0.4
L="$PERF -c 127.0.0.1 --udp-port $U2 -p $D"
t0=$(now_ms)
timeout -k 5 20 $L -t 4 -l 1000 >"$T/l1.txt" 2>&1
rc=$?
ms=$(($(now_ms) - t0))
if [ "$rc" = 1 ] && [ "$ms" -lt 3500 ] &&
   grep -q "the server ended the test: total bitrate .* over the last 1 s exceeds the server's limit (1.000 Mbit/s)" "$T/l1.txt"; then
  pass "--server-bitrate-limit 1m/1: an unpaced test ended after $ms ms"
else
  fail "--server-bitrate-limit: exit $rc after $ms ms: $(cat "$T/l1.txt")"
fi
timeout -k 5 20 $L -t 2 -b 3m -l 1000 -J >"$T/l2.json" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "-b 3m against a 1m limit: exit $rc"
jcheck "--server-bitrate-limit: a test asking for 3 Mbit/s is refused (JSON error)" "$T/l2.json" \
  "'exceeds the server' in d['error'] and d['sent_pkts'] < 50"
timeout -k 5 20 $L -t 1.2 -b 400k -l 1000 >"$T/l3.txt" 2>&1 &&
  pass "--server-bitrate-limit: a 400 kbit/s test runs to its end" ||
  fail "400 kbit/s under a 1m limit: exit $?: $(cat "$T/l3.txt")"
for bad in "-s --server-bitrate-limit 1m/0" "-c 127.0.0.1 --server-bitrate-limit 1m"; do
  # shellcheck disable=SC2086
  timeout -k 5 10 "$PERF" $bad >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "$bad: exit $rc, not a usage error (2)"
done
grep -q "exceeds the server's limit" "$T/lim.txt" || fail "the server did not say why: $(cat "$T/lim.txt")"

# -A: the process runs on that CPU only (a server, not under timeout(1),
# so that its own pid is asked); --bind-dev: lo works, another interface
# cannot reach 127.0.0.1, a missing one is an error
ncpu=$(nproc)
cpu=$((ncpu - 1))
"$PERF" -s -1 -A "$cpu" --bind-dev lo --udp-port "$U2" -p $((D + 1)) >"$T/a.txt" 2>&1 &
apid=$!
PIDS="$PIDS $apid"
sleep 0.4
aff=$(taskset -cp "$apid" 2>/dev/null | sed 's/.*: //')
[ "$aff" = "$cpu" ] && pass "-A $cpu: the server runs on CPU $aff only" ||
  fail "-A $cpu: affinity '$aff' ($(cat "$T/a.txt"))"
timeout -k 5 20 "$PERF" -c 127.0.0.1 --udp-port "$U2" -p $((D + 1)) -t 0.3 -b 1m --bind-dev lo \
  >"$T/bd.txt" 2>&1 && pass "--bind-dev lo: a test over loopback on both ends" ||
  fail "--bind-dev lo: exit $?: $(cat "$T/bd.txt")"
kill "$apid" 2>/dev/null
timeout -k 5 10 $C -t 0.3 --bind-dev nosuch0 >/dev/null 2>"$T/bd2.err"
rc=$?
[ "$rc" = 1 ] && grep -q "no such network interface" "$T/bd2.err" ||
  fail "--bind-dev nosuch0: exit $rc: $(cat "$T/bd2.err")"
other=$(ip -o link 2>/dev/null | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2; exit }')
if [ -n "$other" ]; then
  timeout -k 5 10 $C -t 0.3 --connect-timeout 500 --bind-dev "$other" >/dev/null 2>"$T/bd3.err"
  rc=$?
  [ "$rc" = 1 ] && pass "--bind-dev $other: 127.0.0.1 is out of reach (exit 1)" ||
    fail "--bind-dev $other: exit $rc, the binding had no effect: $(cat "$T/bd3.err")"
fi

if [ "$FAILS" -ne 0 ]; then
  echo "perf_omit_tos: $FAILS failure(s)"
  exit 1
fi
echo "perf_omit_tos: all passed"
