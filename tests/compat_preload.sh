#!/bin/sh
# SPDX-License-Identifier: MIT
# libudccp-preload (issue 6): unmodified Linux DCCP programs on udccp.
#   sh tests/compat_preload.sh BUILD_DIR SOURCE_DIR
#
# 1. tests/compat/dccp_pair (written against <linux/dccp.h> alone): client
#    and server in every mode (blocking, poll, epoll, select, threaded,
#    fork after accept, pre-forked children accepting) with CCID 2 and 3 and a service code, over DCCP-UDP
#    (and, blocking, with the experimental CCIDs 248 BBR and 249 CUBIC)
#    and, as root, over native DCCP (raw IP).
#    With UDCCP_MULTIPATH: Multipath DCCP with two subflows, and fallback.
# 2. Python's socket module: socket.socket(2, 6, 33) as client and server.
#    2b. Two preloaded servers and a udccp-perf server on one UDP port.
#    2c. A peer gone silent: the keepalive, then ETIMEDOUT.
#    2d. settimeout() on connect() to a silent peer: TimeoutError in time.
# 3. tests/compat/dccp_errno: the kernel's errno values (ECONNREFUSED,
#    EBADRQC, EMSGSIZE, EAGAIN, ENOTCONN, ECONNRESET, EPIPE, EINVAL, ...).
# 4. Non-DCCP programs (TCP and UDP echo in Python, dd) run unaffected
#    under the preload library.
# Every process is bounded with timeout(1); ports are unique per run.
BUILD=${1:?usage: compat_preload.sh BUILD_DIR SOURCE_DIR}
LIB=$BUILD/compat/libudccp-preload.so
PAIR=$BUILD/compat/dccp_pair
ERRNO=$BUILD/compat/dccp_errno
PY=/usr/bin/python3
SC=1234567

fail() { echo "FAIL: $*"; exit 1; }
for f in "$LIB" "$PAIR" "$ERRNO"; do
  [ -e "$f" ] || fail "$f is missing: build the compat/ targets"
done
[ -x "$PY" ] || fail "$PY is missing (apt-get install python3)"

T=$(mktemp -d /tmp/udccp-compat.XXXXXX) || fail "mktemp"
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT INT TERM

# Ports below the ephemeral range, different for every run of the script:
# the DCCP port and the DCCP-UDP UDP port of each pair are the same number.
BASE=$((20000 + ($$ % 480) * 25))
N=0
next_port() { N=$((N + 1)); PORT=$((BASE + N)); }

TRANSPORTS=udp
if [ "$(id -u)" = 0 ]; then
  TRANSPORTS="udp raw"
else
  echo "SKIP (part): native DCCP needs root; DCCP-UDP only"
fi

pre() { # transport port: the environment of a preloaded program
  echo "LD_PRELOAD=$LIB UDCCP_TRANSPORT=$1 UDCCP_UDP_PORT=$2"
}

# Starts a preloaded server in the background and waits for "listening".
start_server() { # log cmd...
  log=$1; shift
  env $(pre "$TR" "$PORT") timeout -k 5 60 "$@" >"$log" 2>&1 &
  SPID=$!
  PIDS="$PIDS $SPID"
  k=0
  until grep -q listening "$log" 2>/dev/null; do
    k=$((k + 1))
    [ $k -gt 100 ] && { cat "$log"; fail "server did not start: $*"; }
    sleep 0.05
  done
}

run_pair() { # mode ccid
  mode=$1 ccid=$2
  next_port
  nconn=1
  case $mode in fork | prefork) nconn=3 ;; esac
  start_server "$T/srv.$N" "$PAIR" server "$mode" "$PORT" "$ccid" "$SC" "$nconn"
  k=0
  while [ $k -lt $nconn ]; do
    k=$((k + 1))
    env $(pre "$TR" "$PORT") timeout -k 5 30 "$PAIR" client "$mode" 127.0.0.1 \
      "$PORT" "$ccid" "$SC" 200 >"$T/cli.$N.$k" 2>&1 ||
      { cat "$T/cli.$N.$k" "$T/srv.$N"; fail "$TR $mode CCID $ccid: client $k"; }
  done
  wait "$SPID" || { cat "$T/srv.$N"; fail "$TR $mode CCID $ccid: server"; }
  grep -q "^PASS server" "$T/srv.$N" || { cat "$T/srv.$N"; fail "$TR $mode: no PASS"; }
  echo "ok $TR $mode CCID $ccid: $(tail -1 "$T/cli.$N.1")"
}

# ---- 1. the test programs, every mode, CCID 2 and 3
for TR in $TRANSPORTS; do
  for ccid in 2 3; do
    for mode in blocking poll epoll select threaded fork prefork; do
      run_pair "$mode" "$ccid"
    done
  done
done

# ---- 1b. the experimental CCIDs udccp registers by default (issue 17):
#      BBR 248 and CUBIC 249, negotiated through DCCP_SOCKOPT_CCID
for TR in $TRANSPORTS; do
  for ccid in 248 249; do
    run_pair blocking "$ccid"
  done
done

# ---- 1c. UDCCP_MULTIPATH (issue 16): the same programs over Multipath DCCP
#      (RFC 9897, udccp_mpsock), the client's subflows from 127.0.0.1 and
#      127.0.0.2.  UDCCP_DEBUG=1 makes each end print what its connection
#      was (udccp_mpsock_get_info) as it ends: both must say "multipath
#      active, 2 subflows"; against a server without the variable the
#      client says "multipath off" (§3.6 fallback).  DCCP-UDP.
mp_pair() { # mode ccid server_multipath expect_client expect_server
  mode=$1 ccid=$2
  next_port
  nconn=1
  case $mode in fork | prefork) nconn=3 ;; esac
  start_server "$T/srv.$N" env UDCCP_MULTIPATH="$3" UDCCP_DEBUG=1 \
    "$PAIR" server "$mode" "$PORT" "$ccid" "$SC" "$nconn"
  k=0
  while [ $k -lt $nconn ]; do
    k=$((k + 1))
    env $(pre udp "$PORT") UDCCP_MULTIPATH=127.0.0.1,127.0.0.2 UDCCP_DEBUG=1 \
      timeout -k 5 30 "$PAIR" client "$mode" 127.0.0.1 "$PORT" "$ccid" "$SC" 200 \
      >"$T/cli.$N.$k" 2>&1 ||
      { cat "$T/cli.$N.$k" "$T/srv.$N"; fail "multipath $mode: client $k"; }
    grep -q "client connection, $4" "$T/cli.$N.$k" ||
      { cat "$T/cli.$N.$k"; fail "multipath $mode: client $k did not report '$4'"; }
  done
  wait "$SPID" || { cat "$T/srv.$N"; fail "multipath $mode: server"; }
  grep -q "^PASS server" "$T/srv.$N" || { cat "$T/srv.$N"; fail "multipath $mode: no PASS"; }
  [ -z "$5" ] || [ "$(grep -c "accepted connection, $5" "$T/srv.$N")" = "$nconn" ] ||
    { cat "$T/srv.$N"; fail "multipath $mode: the server did not report '$5' $nconn times"; }
  echo "ok multipath $mode CCID $ccid: $(grep -h 'udccp-preload:' "$T/cli.$N.1")"
}
TR=udp
for mode in blocking epoll fork; do
  mp_pair "$mode" 2 1 "multipath active, 2 subflows, 200 datagrams sent, 200 received" \
    "multipath active, 2 subflows, 200 datagrams sent, 200 received"
done
mp_pair poll 3 1 "multipath active, 2 subflows" "multipath active, 2 subflows"
mp_pair blocking 2 0 "multipath off" ""

# ---- 2. Python's socket module with the numeric constants
PYCLIENT='
import socket, struct, sys
port = int(sys.argv[1])
s = socket.socket(2, 6, 33)              # AF_INET, SOCK_DCCP, IPPROTO_DCCP
s.setsockopt(269, 2, struct.pack("!I", int(sys.argv[2])))  # SERVICE
s.setsockopt(269, 13, bytes([2]))                          # CCID 2
s.settimeout(10)
s.connect(("127.0.0.1", port))
assert s.getpeername() == ("127.0.0.1", port), s.getpeername()
mps = struct.unpack("i", s.getsockopt(269, 5, 4))[0]      # GET_CUR_MPS
assert 500 < mps < 65536, mps
assert struct.unpack("i", s.getsockopt(269, 14, 4))[0] == 2  # TX_CCID
for i in range(50):
    msg = b"python %d " % i * (i + 1)
    s.send(msg)
    assert s.recv(4096) == msg
s.close()
print("PASS python client, mps", mps)
'
PYSERVER='
import socket, struct, sys
s = socket.socket(socket.AF_INET, 6, 0)  # SOCK_DCCP, protocol 0
s.setsockopt(269, 2, struct.pack("!I", int(sys.argv[2])))
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(1)
assert s.getsockname()[1] == int(sys.argv[1])
print("listening", flush=True)
c, peer = s.accept()
n = 0
while True:
    d = c.recv(4096)
    if not d:
        break
    c.send(d)
    n += 1
c.close(); s.close()
print("PASS python server,", n, "datagrams")
'
for TR in $TRANSPORTS; do
  next_port
  start_server "$T/srv.$N" "$PAIR" server blocking "$PORT" 2 "$SC" 1
  env $(pre "$TR" "$PORT") timeout -k 5 30 "$PY" -c "$PYCLIENT" "$PORT" "$SC" \
    >"$T/py.$N" 2>&1 || { cat "$T/py.$N" "$T/srv.$N"; fail "$TR: python client"; }
  wait "$SPID" || { cat "$T/srv.$N"; fail "$TR: server for python"; }
  echo "ok $TR $(tail -1 "$T/py.$N")"
  next_port
  start_server "$T/srv.$N" "$PY" -c "$PYSERVER" "$PORT" "$SC"
  env $(pre "$TR" "$PORT") timeout -k 5 30 "$PAIR" client blocking 127.0.0.1 \
    "$PORT" 2 "$SC" 100 >"$T/cli.$N" 2>&1 ||
    { cat "$T/cli.$N" "$T/srv.$N"; fail "$TR: client of the python server"; }
  wait "$SPID" || { cat "$T/srv.$N"; fail "$TR: python server"; }
  echo "ok $TR $(tail -1 "$T/srv.$N")"
done

# ---- 2c. a peer that goes silent (UDCCP_KEEPALIVE, doc/preload.md): the
# server stops itself (SIGSTOP) once its echo of one datagram arrived; the
# client's keepalive (1 s idle, 2 probes 500 ms apart) ends the connection
# and its next send fails with ETIMEDOUT, as documented (it said
# ECONNRESET: the Reset Aborted the keepalive itself sends was taken for
# the peer's).
PYSTOPSRV='
import os, signal, socket, struct, sys
s = socket.socket(2, 6, 33)
s.setsockopt(269, 2, struct.pack("!I", int(sys.argv[2])))
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
open(sys.argv[3], "w").write(str(os.getpid()))
print("listening", flush=True)
c, _ = s.accept()
c.send(c.recv(4096))
c.recv(4096)                             # the echo has arrived: stop
os.kill(os.getpid(), signal.SIGSTOP)
'
PYSILENT='
import errno, socket, struct, sys, time
s = socket.socket(2, 6, 33)
s.setsockopt(269, 2, struct.pack("!I", int(sys.argv[2])))
s.settimeout(10)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.send(b"ping"); assert s.recv(100) == b"ping"
s.send(b"stop")
t = time.time()
try:
    d = s.recv(100)                      # the keepalive ends it: EOF
    assert d == b"", d
except OSError as e:
    assert e.errno == errno.ETIMEDOUT, e
waited = time.time() - t
try:
    s.send(b"x")
    sys.exit("send after the keepalive timeout succeeded")
except OSError as e:
    assert e.errno == errno.ETIMEDOUT, "send: %s, want ETIMEDOUT" % e
print("PASS keepalive: silent peer dropped after %.1f s, send: ETIMEDOUT" % waited)
'
next_port
TR=udp start_server "$T/stop.srv" "$PY" -c "$PYSTOPSRV" "$PORT" "$SC" "$T/stop.pid"
env $(pre udp "$PORT") UDCCP_KEEPALIVE=1,500ms,2 timeout -k 5 30 "$PY" -c "$PYSILENT" \
  "$PORT" "$SC" >"$T/silent" 2>&1
rc=$?
kill -KILL "$(cat "$T/stop.pid")" 2>/dev/null
[ "$rc" -eq 0 ] || { cat "$T/silent" "$T/stop.srv"; fail "keepalive against a silent peer"; }
echo "ok $(tail -1 "$T/silent")"

# ---- 2d. Python's socket timeout on connect() (settimeout, as
# socket.create_connection(timeout=...)): a non-blocking connect() and a
# poll for POLLOUT.  Against a peer that never answers (a plain UDP
# socket that reads and drops) it must raise TimeoutError after the
# program's 1.5 s; the pair was writable at once and SO_ERROR waited for
# the whole handshake: 64 s, then ECONNRESET.
PYSINK='
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", int(sys.argv[1]))); u.settimeout(30)
print("listening", flush=True)
try:
    while True:
        u.recv(2000)
except OSError:
    pass
'
PYTIMEOUT='
import socket, struct, sys, time
s = socket.socket(2, 6, 33)
s.setsockopt(269, 2, struct.pack("!I", int(sys.argv[2])))
s.settimeout(1.5)
t = time.time()
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    sys.exit("connected to a silent peer")
except TimeoutError:
    pass
waited = time.time() - t
assert waited < 6, waited
print("PASS connect timeout: TimeoutError after %.1f s (settimeout 1.5)" % waited)
'
next_port
TR=udp start_server "$T/sink" "$PY" -c "$PYSINK" "$PORT"
env $(pre udp "$PORT") timeout -k 5 20 "$PY" -c "$PYTIMEOUT" "$PORT" "$SC" \
  >"$T/ctimeout" 2>&1 || { cat "$T/ctimeout"; fail "connect timeout against a silent peer"; }
kill "$SPID" 2>/dev/null
echo "ok $(tail -1 "$T/ctimeout")"

# ---- 2b. one UDP port, several processes (issue 13; RFC 6773 §3.8): two
# preloaded servers and a udccp-perf server serve different DCCP ports on
# the same UDP port at the same time; each one's clients reach it.
PERF=$BUILD/udccp-perf
if [ -x "$PERF" ]; then
  TR=udp
  next_port
  UPORT=$PORT
  next_port
  P1=$PORT
  next_port
  P2=$PORT
  next_port
  P3=$PORT
  timeout -k 5 60 "$PERF" -s -p "$P3" --udp-port "$UPORT" >"$T/share.perf" 2>&1 &
  PPID3=$!
  PIDS="$PIDS $PPID3"
  for P in $P1 $P2; do
    env $(pre udp "$UPORT") timeout -k 5 60 "$PAIR" server blocking "$P" 2 "$SC" 1 \
      >"$T/share.srv.$P" 2>&1 &
    PIDS="$PIDS $!"
    eval "SPID_$P=$!"
  done
  for f in "$T/share.srv.$P1" "$T/share.srv.$P2" "$T/share.perf"; do
    k=0
    until grep -q "listening\|server:" "$f" 2>/dev/null; do
      k=$((k + 1))
      [ $k -gt 100 ] && { cat "$f"; fail "shared UDP port $UPORT: a server did not start ($f)"; }
      sleep 0.05
    done
  done
  for P in $P1 $P2; do
    env $(pre udp "$UPORT") timeout -k 5 30 "$PAIR" client blocking 127.0.0.1 "$P" 2 \
      "$SC" 50 >"$T/share.cli.$P" 2>&1 ||
      { cat "$T/share.cli.$P" "$T/share.srv.$P"; fail "shared UDP port: client of DCCP port $P"; }
  done
  timeout -k 5 30 "$PERF" -c 127.0.0.1 -p "$P3" --udp-port "$UPORT" -t 1 -J \
    >"$T/share.perfc" 2>&1 ||
    { cat "$T/share.perfc" "$T/share.perf"; fail "shared UDP port: udccp-perf client"; }
  for P in $P1 $P2; do
    eval "wait \$SPID_$P" || { cat "$T/share.srv.$P"; fail "shared UDP port: server $P"; }
    grep -q "^PASS server" "$T/share.srv.$P" || { cat "$T/share.srv.$P"; fail "shared UDP port: server $P no PASS"; }
  done
  kill "$PPID3" 2>/dev/null
  echo "ok UDP port $UPORT shared: preloaded servers on DCCP ports $P1 and $P2, udccp-perf on $P3"
else
  fail "$PERF is missing"
fi

# ---- 3. error numbers
for TR in $TRANSPORTS; do
  next_port
  extra=""
  [ "$TR" = udp ] && extra=noconn # raw: nobody answers for unowned ports
  env $(pre "$TR" "$PORT") timeout -k 5 60 "$ERRNO" "$PORT" $extra \
    >"$T/errno.$N" 2>&1 || { cat "$T/errno.$N"; fail "$TR: dccp_errno"; }
  grep -q "^PASS" "$T/errno.$N" || { cat "$T/errno.$N"; fail "$TR: dccp_errno"; }
  # it knew it ran under the preload (the experimental CCIDs were checked)
  grep -q "^ok AVAILABLE_CCIDS lists 248" "$T/errno.$N" ||
    { cat "$T/errno.$N"; fail "$TR: dccp_errno did not check CCIDs 248/249"; }
  echo "ok $TR dccp_errno: $(grep -c '^ok' "$T/errno.$N") checks"
done

# ---- 4. programs without DCCP are unaffected
PYPLAIN='
import socket, threading
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.bind(("127.0.0.1", 0)); t.listen(1)
def serve():
    c, _ = t.accept()
    f = c.makefile("rwb")                  # dup() of a TCP socket
    for line in f:
        f.write(line.upper()); f.flush()
    f.close(); c.close()
th = threading.Thread(target=serve); th.start()
c = socket.create_connection(t.getsockname())
c.sendall(b"hello\nworld\n"); c.shutdown(socket.SHUT_WR)
data = b""
while True:
    d = c.recv(100)
    if not d: break
    data += d
assert data == b"HELLO\nWORLD\n", data
th.join(); c.close(); t.close()
u1 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u1.bind(("127.0.0.1", 0))
u2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u2.bind(("127.0.0.1", 0))
u1.sendto(b"dgram", u2.getsockname())
d, a = u2.recvfrom(100)
assert d == b"dgram" and a == u1.getsockname(), (d, a)
assert u2.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_DGRAM
u1.close(); u2.close()
print("PASS tcp+udp unaffected")
'
env LD_PRELOAD="$LIB" timeout -k 5 30 "$PY" -c "$PYPLAIN" >"$T/plain" 2>&1 ||
  { cat "$T/plain"; fail "TCP/UDP program under the preload library"; }
echo "ok $(tail -1 "$T/plain")"
out=$(printf 'a\nb\n' | env LD_PRELOAD="$LIB" timeout -k 5 10 sort -r | tr -d '\n')
[ "$out" = ba ] || fail "sort under the preload library: '$out'"
# Cost on non-DCCP descriptors: a million 1-byte read()+write() calls.
t0=$(date +%s%N)
timeout -k 5 60 dd if=/dev/zero of=/dev/null bs=1 count=1000000 2>/dev/null ||
  fail "dd"
t1=$(date +%s%N)
env LD_PRELOAD="$LIB" timeout -k 5 60 dd if=/dev/zero of=/dev/null bs=1 \
  count=1000000 2>/dev/null || fail "dd under the preload library"
t2=$(date +%s%N)
plain=$(((t1 - t0) / 1000000)) pre=$(((t2 - t1) / 1000000))
echo "ok dd 1e6 read+write: ${plain} ms plain, ${pre} ms preloaded"
# Generous bound (shared machine): a lock or a syscall per call would
# show as several times slower.
[ "$pre" -le $((plain * 3 + 200)) ] || fail "preload slows plain I/O: $pre ms vs $plain ms"

echo "PASS compat_preload: $N runs"
