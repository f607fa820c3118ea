#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# interop/selftest.sh -- the interop harness on a machine that never ran it
# (issue 11 §4): interop/check.sh with KPEER_CACHE pointing at a new, empty
# directory and PREPARE_ONLY=1 must fetch Debian 12's kernel, extract it,
# build the tools and the guest's initramfs, and end with status 0 and a
# "prepared:" line -- or SKIP, saying why, where check.sh itself would.
# A harness that dies silently on an empty cache (status 2, no message)
# fails here.
#
#   interop/selftest.sh [BUILD_DIR]      (default: build-interop)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build-interop}
cache=$(mktemp -d /var/tmp/udccp-selftest-cache.XXXXXX)
log=$(mktemp /tmp/udccp-selftest.XXXXXX)
trap 'rm -rf "$cache" "$log"' EXIT
echo "interop selftest: empty kernel cache $cache"
KPEER_CACHE=$cache PREPARE_ONLY=1 timeout -k 10 600 bash "$SRC/interop/check.sh" "$BUILD" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if grep -q '^SKIP interop:' "$log"; then
  exit 0       # check.sh said why; the full run will say the same
fi
fail() { echo "interop selftest: FAILED: $*"; exit 1; }
[ "$rc" = 0 ] || fail "check.sh exited $rc on an empty cache"
grep -q 'prepared: linux-image-6\.1\.0-' "$log" || fail "no 'prepared:' line naming the kernel"
ls "$cache"/linux-image-6.1.0-*-amd64/.done >/dev/null 2>&1 || fail "the cache has no extracted kernel"
ls "$cache"/linux-image-6.1.0-*-amd64/vmlinux >/dev/null 2>&1 || fail "the cache has no vmlinux"
echo "interop selftest: passed (fresh cache: kernel fetched, extracted, initramfs built)"
