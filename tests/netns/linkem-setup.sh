# SPDX-License-Identifier: MIT
# tests/netns/linkem-setup.sh -- sourced (POSIX sh) by tests that need a
# bottleneck between two network namespaces: udccp-linkem joins them with
# one TUN device in each (doc/linkem.md).
#
#   . "$SRC/tests/netns/linkem-setup.sh"
#   lk_init BUILD_DIR [LINKEM]   root + /dev/net/tun (else SKIP, exit 77);
#                                temp dir $LK_TMP; trap that removes all;
#                                $LK_BUILD, $LK_EMU (the emulator binary)
#   lk_start SPEC [ARGS...]      (re)start the emulator: --link SPEC ARGS;
#                                namespaces $LK_A, $LK_B (created once),
#                                device lk0 in each, $LK_IP_A / $LK_IP_B
#   lk_a CMD... / lk_b CMD...    run CMD in namespace A / B
#   lk_bg NAME A|B SECS CMD...   CMD in the background in A or B, bounded by
#                                timeout(1), output in $LK_TMP/NAME.log; its
#                                PID in $LK_PID_<NAME> (also killed at exit)
#   lk_wait NAME                 wait for it; its exit status becomes ours
#   lk_stop                      SIGTERM the emulator, its statistics in
#                                $LK_TMP/linkem.out (key=value lines)
#   lk_stat a2b|b2a KEY          one number from those statistics
#   lk_cleanup                   (the trap) kill our PIDs, delete namespaces
#
# Only processes started here are killed, by PID.  Runs of tests that use
# this file are serialised with a lock (measurements on a 2-core machine).

LK_IP_A=10.77.0.1
LK_IP_B=10.77.0.2
LK_A=udccpA$$
LK_B=udccpB$$
LK_PIDS=""
LK_EMU_PID=""
LK_NS_MADE=""

lk_say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }

lk_cleanup() {
  set +e
  for p in $LK_EMU_PID $LK_PIDS; do kill "$p" 2>/dev/null; done
  for p in $LK_EMU_PID $LK_PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
  done
  for ns in $LK_NS_MADE; do ip netns del "$ns" 2>/dev/null; done
  [ -n "${LK_TMP:-}" ] && [ "${LK_KEEP:-0}" != 1 ] && rm -rf "$LK_TMP"
  [ "${LK_KEEP:-0}" = 1 ] && echo "kept $LK_TMP"
}

lk_init() {
  # shellcheck disable=SC2034  # for the tests that source this file
  LK_BUILD=$1
  LK_EMU=${2:-$1/udccp-linkem}
  if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (network namespaces, TUN devices)"; exit 77
  fi
  if [ ! -c /dev/net/tun ]; then
    echo "SKIP: no /dev/net/tun"; exit 77
  fi
  for t in ip timeout flock; do
    command -v "$t" >/dev/null || { echo "FAIL: $t not installed"; exit 1; }
  done
  [ -x "$LK_EMU" ] || { echo "FAIL: $LK_EMU not built"; exit 1; }
  LK_TMP=$(mktemp -d /tmp/udccp-linkem.XXXXXX)
  trap lk_cleanup EXIT
  trap 'exit 130' INT TERM HUP
  # One bottleneck test at a time on this machine (other build dirs too).
  exec 9>/tmp/udccp-netns.lock
  if ! flock -n 9; then
    lk_say "waiting for /tmp/udccp-netns.lock (another netns test runs)"
    flock -w 600 9 || { echo "FAIL: netns lock busy for 600 s"; exit 1; }
  fi
}

lk_a() { ip netns exec "$LK_A" "$@"; }
lk_b() { ip netns exec "$LK_B" "$@"; }

lk_start() {
  spec=$1; shift
  [ -z "$LK_EMU_PID" ] || lk_stop
  for ns in "$LK_A" "$LK_B"; do
    case " $LK_NS_MADE " in *" $ns "*) continue ;; esac
    ip netns add "$ns" || { echo "FAIL: ip netns add $ns"; exit 1; }
    LK_NS_MADE="$LK_NS_MADE $ns"
    ip -n "$ns" link set lo up
  done
  : > "$LK_TMP/linkem.err"
  # The emulator's own bound: it never outlives a test by much.
  "$LK_EMU" -a "tun:lk0@$LK_A" -b "tun:lk0@$LK_B" --link "$spec" \
    --time "${LK_MAX_TIME:-900s}" "$@" > "$LK_TMP/linkem.out" 2> "$LK_TMP/linkem.err" &
  LK_EMU_PID=$!
  i=0
  while ! grep -q ' ready ' "$LK_TMP/linkem.err" 2>/dev/null; do
    if ! kill -0 "$LK_EMU_PID" 2>/dev/null || [ $i -ge 50 ]; then
      echo "FAIL: udccp-linkem did not start: $(cat "$LK_TMP/linkem.err")"; exit 1
    fi
    sleep 0.1; i=$((i + 1))
  done
  if ! ip -n "$LK_A" addr add "$LK_IP_A/24" dev lk0 ||
     ! ip -n "$LK_B" addr add "$LK_IP_B/24" dev lk0; then
    echo "FAIL: cannot address lk0"; exit 1
  fi
}

lk_stop() {
  [ -n "$LK_EMU_PID" ] || return 0
  kill -TERM "$LK_EMU_PID" 2>/dev/null
  wait "$LK_EMU_PID" 2>/dev/null
  LK_EMU_PID=""
}

lk_stat() {
  sed -n "s/^udccp-linkem: $1 .* $2=\([0-9]*\).*/\1/p" "$LK_TMP/linkem.out" | tail -n 1
}

lk_bg() {
  name=$1 side=$2 secs=$3; shift 3
  case $side in A) ns=$LK_A ;; B) ns=$LK_B ;; *) echo "lk_bg: A or B"; exit 1 ;; esac
  ip netns exec "$ns" timeout -k 2 "$secs" "$@" > "$LK_TMP/$name.log" 2>&1 < /dev/null &
  eval "LK_PID_$name=$!"
  LK_PIDS="$LK_PIDS $!"
}

lk_wait() {
  eval "p=\$LK_PID_$1"
  wait "$p"
}
