#!/bin/sh
# SPDX-License-Identifier: MIT
# The programs in examples/ work as their comments say, built against the
# public header and libudccp.so only: an echo server and client; the chat
# server on its own epoll loop with the event interface, two udccp-cat
# clients each seeing the other's line; the sans-I/O core driven with the
# program's own sockets and clock; a CCID 3 media sender that adapts its
# bitrate through an emulated 4 Mbit/s link.  Loopback DCCP-UDP.
#
#   sh tests/examples.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: examples.sh BUILD SRC}
EX=$BUILD/examples
fail() { echo "FAIL: $*" >&2; exit 1; }
for p in echo_server echo_client chat_server sansio ccid_rate; do
  [ -x "$EX/$p" ] || fail "$EX/$p not built"
done
[ -x "$BUILD/udccp-cat" ] || fail "$BUILD/udccp-cat not built"
TMP=$(mktemp -d /tmp/udccp-examples.XXXXXX)
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
# a UDP port of our own for this run
base=$((20000 + $$ % 20000))

# --- echo
EXAMPLE_MAX_CLIENTS=1 timeout -k 5 30 "$EX/echo_server" $base 7 >"$TMP/echo_srv" 2>&1 &
pids="$pids $!"
sleep 0.5
printf 'first line\nsecond line\n' |
  timeout -k 5 20 "$EX/echo_client" 127.0.0.1 $base 7 >"$TMP/echo_out" 2>&1 ||
  { cat "$TMP/echo_srv" "$TMP/echo_out"; fail "echo_client exited non-zero"; }
printf 'first line\nsecond line\n' | cmp -s - "$TMP/echo_out" ||
  { cat "$TMP/echo_out"; fail "echo_client did not print the two lines back"; }
echo "ok: echo client/server"

# --- echo: a datagram larger than 2 KiB comes back whole (the server's
# buffer was 2048 bytes: it said "buffer too small" and hung up), and a
# port that is not a number is a usage error, not "listening on UDP 0"
EXAMPLE_MAX_CLIENTS=1 timeout -k 5 30 "$EX/echo_server" $((base + 7)) 7 >"$TMP/echo_srv2" 2>&1 &
pids="$pids $!"
sleep 0.5
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "b"; printf "\n" }' >"$TMP/long"
# stdin stays open 2 s after the line: udccp-cat closes at its end, and
# the answer must come back first
(cat "$TMP/long"; sleep 2) |
  timeout -k 5 20 "$BUILD/udccp-cat" --service ECHO --udp-port $((base + 7)) \
    127.0.0.1 7 >"$TMP/long_back" 2>"$TMP/long.err" &
lc=$!
pids="$pids $lc"
wait $lc
cmp -s "$TMP/long" "$TMP/long_back" ||
  { cat "$TMP/echo_srv2" "$TMP/long.err"; fail "echo_server: a 3001-byte datagram came back as $(wc -c <"$TMP/long_back") bytes"; }
if timeout -k 5 5 "$EX/echo_server" --help >"$TMP/echo_usage" 2>&1; then
  fail "echo_server --help: exit 0: $(cat "$TMP/echo_usage")"
fi
grep -q usage "$TMP/echo_usage" || fail "echo_server --help: $(cat "$TMP/echo_usage")"
# too many arguments: a usage error that says so (both servers exited 2
# without a word)
for p in echo_server chat_server; do
  timeout -k 5 5 "$EX/$p" 1 2 3 >/dev/null 2>"$TMP/extra"
  rc=$?
  [ $rc = 2 ] && grep -q "usage: $p .*unexpected argument '3'" "$TMP/extra" ||
    fail "$p 1 2 3: exit $rc, stderr: $(cat "$TMP/extra")"
done
echo "ok: echo server: 3001-byte datagram echoed whole; bad port is a usage error"

# --- chat: two clients, each sees the other's line and the joins
chat=$((base + 1))
# -k 5: once stopped, the server gets 5 s to exit; under a loaded machine
# LeakSanitizer's exit-time check was once seen to hang in chat_server
# after its work was done (its tracer thread asleep), and nothing else
# would end it.
EXAMPLE_MAX_SECONDS=25 timeout -k 5 40 "$EX/chat_server" $chat 5300 >"$TMP/chat_srv" 2>&1 &
srv=$!
pids="$pids $srv"
sleep 0.5
# A first says a 2000-byte line: the server's 1500-byte buffer refused it
# and left it first in A's queue, so that nothing A said was read again.
( sleep 1.5; awk 'BEGIN { for (i = 0; i < 2000; i++) printf "L"; printf "\n" }'
  echo "hello from A"; sleep 4 ) |
  timeout -k 5 20 "$BUILD/udccp-cat" --service CHAT --udp-port $chat 127.0.0.1 5300 \
    >"$TMP/a" 2>"$TMP/a.err" &
a=$!
( sleep 2.5; echo "hi from B"; sleep 3 ) |
  timeout -k 5 20 "$BUILD/udccp-cat" --service CHAT --udp-port $chat 127.0.0.1 5300 \
    >"$TMP/b" 2>"$TMP/b.err" &
b=$!
pids="$pids $a $b"
wait $a; ra=$?
wait $b; rb=$?
kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
show() { for f in chat_srv a a.err b b.err; do echo "--- $f"; cat "$TMP/$f"; done; }
[ $ra = 0 ] && [ $rb = 0 ] || { show; fail "a chat client failed ($ra, $rb)"; }
grep -q '\] hi from B$' "$TMP/a" || { show; fail "client A did not get B's line"; }
grep -q '\] hello from A$' "$TMP/b" || { show; fail "client B did not get A's line"; }
grep -q 'hello from A' "$TMP/a" && { show; fail "client A got its own line back"; }
grep -q '^\* guest[0-9]* joined$' "$TMP/a" || { show; fail "no join announced"; }
grep -q 'LLLL \[600 bytes cut\]$' "$TMP/b" || { show; fail "client B did not get A's long line, cut"; }
grep -q 'left (closed)' "$TMP/chat_srv" || { show; fail "the server saw no client leave"; }
echo "ok: chat server (event interface) with two clients"

# --- sans-I/O
timeout -k 5 30 "$EX/sansio" 300 >"$TMP/sansio" 2>&1 || { cat "$TMP/sansio"; fail "sansio"; }
grep -q 'sent 300, received [1-9][0-9]*.*closed cleanly' "$TMP/sansio" ||
  { cat "$TMP/sansio"; fail "sansio did not transfer and close"; }
echo "ok: sans-I/O core with the program's own sockets: $(cat "$TMP/sansio")"
# --- Python through the preload library (Linux socket API only)
LIB=$(cd "$BUILD" && pwd)/compat/libudccp-preload.so
[ -e "$LIB" ] || fail "$LIB not built"
# Debian's python3: a shim (pyenv) would run other programs under the
# preload first
PY=/usr/bin/python3
[ -x "$PY" ] || fail "$PY is missing (apt-get install python3)"
SRC=${2:?usage: examples.sh BUILD SRC}
py=$((base + 2))
env LD_PRELOAD="$LIB" UDCCP_UDP_PORT=$py timeout -k 5 30 "$PY" \
  "$SRC/examples/dccp_echo.py" server 5007 >"$TMP/py_srv" 2>&1 &
pids="$pids $!"
k=0
until grep -q listening "$TMP/py_srv" 2>/dev/null; do
  k=$((k + 1)); [ $k -lt 100 ] || { cat "$TMP/py_srv"; fail "python server did not start"; }
  sleep 0.1
done
env LD_PRELOAD="$LIB" UDCCP_UDP_PORT=$py timeout -k 5 30 "$PY" \
  "$SRC/examples/dccp_echo.py" client 5007 one two three >"$TMP/py_cli" 2>&1 ||
  { cat "$TMP/py_srv" "$TMP/py_cli"; fail "dccp_echo.py client"; }
printf 'one\ntwo\nthree\n' | cmp -s - "$TMP/py_cli" ||
  { cat -A "$TMP/py_cli"; fail "dccp_echo.py did not echo its words"; }
echo "ok: Python socket API (SOCK_DCCP) through libudccp-preload"
# --- echo_client against a server whose first answer comes 3 s late
# (Python through the preload): the client gives line 1 up after 2 s and
# says so, skips the late answer when it comes (it printed it as the
# answer to line 2, and each later answer one line off), prints the
# other lines' answers, and exits 1.  A port that is not a number is a
# usage error (it was read as 0).
sl=$((base + 9))
cat >"$TMP/slow_echo.py" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, 6, 33)
s.setsockopt(269, 2, struct.pack("!I", int.from_bytes(b"ECHO", "big")))
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
print("listening", flush=True)
s.settimeout(20)
c, _ = s.accept()
c.settimeout(20)
first = True
while True:
    d = c.recv(65536)
    if not d:
        break
    if first:
        time.sleep(3)
        first = False
    c.send(d)
c.close()
PY
env LD_PRELOAD="$LIB" UDCCP_UDP_PORT=$sl timeout -k 5 30 "$PY" \
  "$TMP/slow_echo.py" 5008 >"$TMP/slow_srv" 2>&1 &
pids="$pids $!"
k=0
until grep -q listening "$TMP/slow_srv" 2>/dev/null; do
  k=$((k + 1)); [ $k -lt 100 ] || { cat "$TMP/slow_srv"; fail "slow echo server did not start"; }
  sleep 0.1
done
printf 'one\ntwo\nthree\n' |
  timeout -k 5 20 "$EX/echo_client" 127.0.0.1 $sl 5008 >"$TMP/slow_out" 2>"$TMP/slow_err"
rc=$?
showslow() { for f in slow_srv slow_out slow_err; do echo "--- $f"; cat "$TMP/$f"; done; }
[ $rc = 1 ] || { showslow; fail "echo_client: a lost answer, exit $rc (want 1)"; }
printf 'two\nthree\n' | cmp -s - "$TMP/slow_out" ||
  { showslow; fail "echo_client printed answers that were not the lines'"; }
grep -q "no answer to line 1 within 2 s" "$TMP/slow_err" || { showslow; fail "no timeout message"; }
grep -q "late answer to line 1 skipped" "$TMP/slow_err" || { showslow; fail "late answer not reported"; }
timeout -k 5 10 "$EX/echo_client" 127.0.0.1 notaport >"$TMP/ec_usage" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "usage" "$TMP/ec_usage" ||
  fail "echo_client 127.0.0.1 notaport: exit $rc: $(cat "$TMP/ec_usage")"
echo "ok: echo_client: a late answer is reported and skipped, exit 1; bad port is a usage error"
# Arguments that are not numbers are usage errors (atoi() took them for
# 0: "media_sender recv abc" listened on a random port for ever, "ccid_rate
# abc" sent 0 of 0 datagrams and exited 0, "sansio -5" hung).
for args in "media_sender recv abc" "media_sender recv 5004 -1" \
    "media_sender send 127.0.0.1 6511 abc" "media_sender send 127.0.0.1 0 5" \
    "ccid_rate abc" "ccid_rate 0" "sansio -5" "sansio 10 extra"; do
  set -- $args
  p=$1; shift
  timeout -k 5 10 "$EX/$p" "$@" </dev/null >"$TMP/num_usage" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q "usage" "$TMP/num_usage" ||
    fail "$args: exit $rc, not a usage error: $(head -c 300 "$TMP/num_usage")"
done
echo "ok: examples: arguments that are not numbers in range are usage errors"
# --- the media receiver takes any datagram (a 2 KiB buffer ended its run
# at the first 3001-byte one, with exit 0 and the rest unread)
mb=$((base + 8))
timeout -k 5 30 "$EX/media_sender" recv $mb >"$TMP/media_big" 2>&1 &
mbx=$!
pids="$pids $mbx"
sleep 0.5
(cat "$TMP/long"; echo after; sleep 1) |
  timeout -k 5 20 "$BUILD/udccp-cat" --service MEDI --udp-port $mb \
    127.0.0.1 5004 >/dev/null 2>"$TMP/media_big.cli"
wait $mbx
grep -q "^receiver: done: 2 datagrams, 3007 bytes" "$TMP/media_big" ||
  { cat "$TMP/media_big" "$TMP/media_big.cli"; fail "media_sender recv: a 3001-byte datagram"; }
echo "ok: media receiver: $(tail -n 1 "$TMP/media_big")"

# --- CCID 3 media sender through a 4 Mbit/s, 10 ms link (udccp-linkem):
# it asks for up to 20 Mbit/s and must settle below the link's rate,
# following udccp_conn_info.x
[ -x "$EX/media_sender" ] || fail "$EX/media_sender not built"
[ -x "$BUILD/udccp-linkem" ] || fail "$BUILD/udccp-linkem not built"
mr=$((base + 3)); ms=$((base + 4)); la=$((base + 5)); lb=$((base + 6))
timeout -k 5 30 "$BUILD/udccp-linkem" -a udp:127.0.0.1:$la:127.0.0.1:$ms \
  -b udp:127.0.0.1:$lb:127.0.0.1:$mr --link rate=4mbit,delay=10ms \
  --time 25s >"$TMP/linkem" 2>&1 &
lk=$!
pids="$pids $lk"
timeout -k 5 30 "$EX/media_sender" recv $mr >"$TMP/media_rx" 2>&1 &
mrx=$!
pids="$pids $mrx"
sleep 0.5
timeout -k 5 30 "$EX/media_sender" send 127.0.0.1 $la 8 20000 $ms >"$TMP/media_tx" 2>&1 ||
  { cat "$TMP/media_tx" "$TMP/media_rx" "$TMP/linkem"; fail "media_sender send exited non-zero"; }
wait $mrx || { cat "$TMP/media_tx" "$TMP/media_rx"; fail "media_sender recv exited non-zero"; }
kill $lk 2>/dev/null
avg=$(sed -n 's/.*frames, \([0-9.]*\) Mbit\/s on average.*/\1/p' "$TMP/media_tx")
got=$(sed -n 's/^receiver: done: \([0-9]*\) datagrams.*/\1/p' "$TMP/media_rx")
[ -n "$avg" ] && [ -n "$got" ] || { cat "$TMP/media_tx" "$TMP/media_rx"; fail "media_sender printed no summary"; }
grep -q 'allowed .* bitrate ' "$TMP/media_tx" || fail "media_sender showed no allowed rate"
awk -v a="$avg" 'BEGIN { exit !(a > 0.5 && a < 4.0) }' ||
  { cat "$TMP/media_tx"; fail "media_sender sent $avg Mbit/s on average through a 4 Mbit/s link (want 0.5..4)"; }
[ "$got" -gt 500 ] || { cat "$TMP/media_rx"; fail "the media receiver got only $got datagrams"; }
# the sender asked for Ack Vectors (settings.ack_vectors): its count of
# datagrams lost in the network matches the receiver's (sequence gaps)
slost=$(sed -n 's/.*full queue, \([0-9]*\) lost in the network.*/\1/p' "$TMP/media_tx")
rlost=$(sed -n 's/^receiver: done: .* bytes, \([0-9]*\) lost in the network.*/\1/p' "$TMP/media_rx")
[ -n "$slost" ] && [ -n "$rlost" ] || { cat "$TMP/media_tx" "$TMP/media_rx"; fail "media_sender printed no loss counts"; }
awk -v s="$slost" -v r="$rlost" 'BEGIN { d = s - r; if (d < 0) d = -d; exit !(d <= 2 + r / 10) }' ||
  { cat "$TMP/media_tx" "$TMP/media_rx"; fail "sender counted $slost lost datagrams, receiver $rlost"; }
echo "ok: CCID 3 media sender adapts: $avg Mbit/s on average through 4 Mbit/s, $got datagrams received, lost: sender $slost, receiver $rlost"
# --- a CCID written against the public interface, registered under 250
timeout -k 5 30 "$EX/ccid_rate" 300 >"$TMP/ccid_rate" 2>&1 ||
  { cat "$TMP/ccid_rate"; fail "ccid_rate exited non-zero"; }
grep -q 'CCID 250/250 negotiated, 300 of 300 datagrams' "$TMP/ccid_rate" ||
  { cat "$TMP/ccid_rate"; fail "ccid_rate: CCID 250 not negotiated or data lost"; }
echo "ok: example CCID (ccid_rate) registered and negotiated"
echo "PASS: examples"
