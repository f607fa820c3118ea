#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# interop/check.sh -- the kernel interop run as a step of a test target
# (make check-interop): runs interop/run.sh when this machine can, and
# says clearly why not when it cannot.
#
#   interop/check.sh [BUILD_DIR]       (default: build-interop)
#
# Exit status: 0 when every scenario passed, or when the run is skipped
# (a line "SKIP interop: <reason>" says why); 1 when a scenario failed or
# the harness broke.  The run itself is bounded: run.sh counts scenarios
# not started within BUDGET (default 720 s from the first scenario) as failed, and the whole run
# is killed after TIMEOUT (default 960 s).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build-interop}
skip() { echo "SKIP interop: $*"; exit 0; }

[ "$(id -u)" = 0 ] ||
  skip "not root (raw IP sockets, a network namespace and a tap device need root; run 'sudo make interop')"
[ -c /dev/net/tun ] || skip "no /dev/net/tun (QEMU's tap device needs the tun driver)"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 ||
  skip "no network namespaces here (iproute2 'ip netns' failed)"
if [ "$(uname -m)" != x86_64 ]; then
  skip "the guest is Debian 12's amd64 kernel; this machine is $(uname -m)"
fi
# Debian's kernel package must be reachable (or already in the cache that
# run.sh shares with /work/shared/kernel-peer).
CACHE=${KPEER_CACHE:-/var/tmp/dccp-kernel-peer}
if ! ls "$CACHE"/linux-image-6.1.0-*-amd64/.done >/dev/null 2>&1; then
  command -v apt-get >/dev/null || skip "no apt-get: cannot fetch Debian 12's linux-image-6.1 package"
  ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt-get update -q >/dev/null 2>&1 ||
    skip "apt-get update failed (no network?): cannot fetch Debian 12's linux-image-6.1 package"
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-6\.1/{print $2; exit}')
  [ -n "$pkg" ] ||
    skip "the apt sources have no linux-image-6.1.0 kernel (not Debian 12?): DCCP left Linux in 6.16"
fi

# Listing namespaces is not making one: a container may allow the first
# and not the second, or no tap device inside it.  Try both.
probe=udccpprobe$$
ip netns add "$probe" 2>/dev/null ||
  skip "cannot create a network namespace here ('ip netns add' failed: no CAP_SYS_ADMIN?)"
if ! ip netns exec "$probe" ip tuntap add dev uprobe0 mode tap 2>/dev/null; then
  ip netns del "$probe" 2>/dev/null
  skip "cannot create a tap device in a network namespace (QEMU's guest NIC needs one)"
fi
ip netns del "$probe" 2>/dev/null

log=$(mktemp /tmp/udccp-interop-check.XXXXXX)
trap 'rm -f "$log"' EXIT
# The harness's revival of a dead guest path (run.sh, path_check) is tested
# in every run: the guest kernel panics at the start of the first scenario
# (QEMU exits), which must fail it, boot the guest again and pass on the
# re-run.  PATH_KILL_DURING= (empty) turns this off.
if [ "${PREPARE_ONLY:-0}" != 1 ] && [ -z "${ONLY:-}" ]; then
  export PATH_KILL_DURING=${PATH_KILL_DURING-k2u_basic}
  export PATH_KILL_HOW=${PATH_KILL_HOW:-panic}
fi
timeout -k 10 "${TIMEOUT:-960}" bash "$SRC/interop/run.sh" "$BUILD" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" = 124 ]; then
  echo "interop: FAILED: the run took more than ${TIMEOUT:-960} s"
  exit 1
fi
if [ "$rc" != 0 ]; then
  echo "interop: FAILED (exit status $rc; artifacts in $BUILD/interop-results)"
  exit 1
fi
if [ "${PREPARE_ONLY:-0}" = 1 ]; then
  grep -q 'prepared: ' "$log" || { echo "interop: preparation did not finish"; exit 1; }
  exit 0
fi
grep -Eq '^[0-9]+ passed, 0 failed' "$log" || { echo "interop: no summary line"; exit 1; }
if [ -n "${PATH_KILL_DURING:-}" ]; then
  grep -Eq "^PASS $PATH_KILL_DURING .*RE-RUN" "$log" && grep -q 'revived: the guest booted again' "$log" || {
    echo "interop: FAILED: the harness's self-test: $PATH_KILL_DURING (path killed: $PATH_KILL_HOW) was not failed, revived by a new boot and re-run"
    exit 1
  }
  echo "interop: harness self-test passed ($PATH_KILL_DURING: guest path killed ($PATH_KILL_HOW), guest booted again, scenario re-run and passed)"
fi
exit 0
