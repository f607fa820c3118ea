#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# interop/compat.sh -- issue 6, acceptance 2: the test programs of
# tests/compat/, unmodified, against Linux 6.1's DCCP in the interop
# harness's QEMU guest (native DCCP; the host side runs them under
# libudccp-preload with UDCCP_TRANSPORT=raw, the guest on its kernel).
#
#   interop/compat.sh [BUILD_DIR]       (root; default BUILD_DIR: build-compat)
#
# It runs interop/run.sh (boot, netns, capture checks) with the scenarios
# of interop/compat_scenarios.sh instead of interop/scenarios.sh, without
# editing run.sh: the two lines naming them are substituted in a copy of
# its text.  Env knobs as run.sh (ONLY, KEEP, BUDGET, ...).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build-compat}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
[ "$(id -u)" = 0 ] || { echo "interop/compat.sh: needs root" >&2; exit 2; }
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DUDCCP_SANITIZE=ON >/dev/null
cmake --build "$BUILD" -j2 --target udccp-preload compat_dccp_pair compat_dccp_errno >/dev/null
export PRELOAD=$BUILD/compat/libudccp-preload.so
export PAIR=$BUILD/compat/dccp_pair ERRNO=$BUILD/compat/dccp_errno
script=$(sed -e "s|^SRC=\$(cd .*|SRC=$SRC|" \
  -e "s|^\. \"\$SRC/interop/scenarios.sh\"|. \"\$SRC/interop/scenarios.sh\"; . \"\$SRC/interop/compat_scenarios.sh\"|" \
  "$SRC/interop/run.sh")
grep -q "^SRC=$SRC\$" <<<"$script" && grep -q 'compat_scenarios.sh"$' <<<"$script" ||
  { echo "interop/compat.sh: interop/run.sh changed shape; update the substitutions" >&2; exit 2; }
tmp=$(mktemp /tmp/udccp-compat-run.XXXXXX.sh)
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$script" > "$tmp"
bash "$tmp" "$BUILD"
