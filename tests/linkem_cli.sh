#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-linkem's command line (issue 15): usage errors exit 2 with a
# message and open nothing: a malformed port, an unknown port kind, a bad
# UDP port spec, TUN with TAP (different layers, doc/linkem.md), a missing
# rate, a malformed link spec; --help exits 0.  No root needed: all fail
# before any device.
#
#   sh tests/linkem_cli.sh BUILD_DIR SOURCE_DIR
set -u
L=${1:?usage: linkem_cli.sh BUILD SRC}/udccp-linkem
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$L" ] || fail "$L not built"
TMP=$(mktemp -d /tmp/udccp-lkcli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
# expect2 PATTERN ARGS...: exit 2, PATTERN on stderr
expect2() {
  pat=$1; shift
  # bounded: a spec taken for valid would run the emulator for ever
  timeout -k 5 10 "$L" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc = 2 ] || fail "udccp-linkem $*: exit $rc, not 2 ($(cat "$TMP/err"))"
  grep -q "$pat" "$TMP/err" || fail "udccp-linkem $*: no '$pat' in: $(cat "$TMP/err")"
  if ip link show lkcli0 >/dev/null 2>&1; then
    fail "udccp-linkem $*: a device was created"
  fi
}
expect2 "different layers" -a tun:lkcli0 -b tap:lkcli1 --link rate=1mbit
expect2 "different layers" -a tap:lkcli0 -b tun:lkcli1 --link rate=1mbit
expect2 "write tun:NAME" -a bogus:x -b tun:lkcli1 --link rate=1mbit
expect2 "write tun:NAME" -a tun: -b tun:lkcli1 --link rate=1mbit
expect2 "write tun:NAME" -a tun:lkcli0@ -b tun:lkcli1 --link rate=1mbit
expect2 "udp:LADDR:LPORT:RADDR:RPORT" -a udp:1.2.3:5:6 -b tun:lkcli1 --link rate=1mbit
expect2 "udp:LADDR:LPORT:RADDR:RPORT" -a udp:127.0.0.1:0:127.0.0.1:9 -b tun:lkcli1 --link rate=1mbit
expect2 "ports 1..65535" -a udp:127.0.0.1:5000x:127.0.0.1:9 -b tun:lkcli1 --link rate=1mbit
expect2 "ports 1..65535" -a udp:127.0.0.1:5000:127.0.0.1:6000:7 -b tun:lkcli1 --link rate=1mbit
expect2 "ports 1..65535" -a udp:127.0.0.1:99999:127.0.0.1:9 -b tun:lkcli1 --link rate=1mbit
expect2 "no rate" -a tun:lkcli0 -b tun:lkcli1 --link delay=1ms
expect2 "need -a PORT" -a tun:lkcli0
# Malformed link specs (each was accepted, and the emulator ran): an empty
# item (trailing, leading or doubled comma), Gilbert-Elliott with P or R
# zero (0/0 does nothing, R = 0 kills the link at the first bad packet),
# an empty value in P/R/H, loss=1 (drops everything), a key given twice
# (the second silently won), --time 0 (ran until a signal).
expect2 "a comma at the end" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,
expect2 "a comma at the start" -a tun:lkcli0 -b tun:lkcli1 --link ,rate=1mbit
expect2 "a comma doubled" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,,delay=1ms
expect2 "ge=0/0: P (good->bad) and R (bad->good) must both be > 0" \
  -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,ge=0/0
expect2 "must both be > 0" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit --ab ge=0.1/0
expect2 "expected P/R\[/H\] with probabilities" \
  -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,ge=0.1//0.3
expect2 "expected P/R\[/H\] with probabilities" \
  -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,ge=0.1/0.3/
expect2 "too many values" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,ge=0.1/0.3/1/1
expect2 "loss=100%: would drop everything" \
  -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,loss=100%
expect2 "'rate' given twice" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit,rate=2mbit
expect2 "empty link spec" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit --ba ""
expect2 "time must be > 0" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit --time 0s
expect2 "interface name 'lkcli0123456789ab' is not valid" \
  -a tun:lkcli0 -b tun:lkcli0123456789ab --link rate=1mbit
# a link the emulator cannot hold (rate x delay over 1 GiB): exit 1 before
expect2 "need more than 1 GiB" -a tun:lkcli0 -b tun:lkcli1 --link rate=1gbit,delay=1000000s
expect2 "Try 'udccp-linkem --help'" -a tun:lkcli0 -b tun:lkcli1 --link rate=1mbit --bogus
"$L" --version | grep -q "^udccp-linkem (udccp) " || fail "--version"
"$L" --help >/dev/null 2>&1 || fail "--help exit $?"
echo "PASS: udccp-linkem usage errors exit 2 before opening anything"
