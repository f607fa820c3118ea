#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target BUILD_DIR/fuzz_* for SECONDS each, seeded with
# a temporary copy of fuzz/corpus/<name> (the repository is not modified).
# Exits non-zero if any target crashes, leaks, times out or fails to start;
# crash inputs are kept under the temporary directory, whose path is printed.
#
#   usage: sh fuzz/run.sh BUILD_DIR SECONDS
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
secs=$2
case $secs in
  ''|*[!0-9]*) echo "error: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;;
esac
srcdir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/udccp-fuzz.XXXXXX")

found=0
failed=0
for bin in "$build"/fuzz_*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  found=$((found + 1))
  name=$(basename "$bin")
  corpus="$work/$name/corpus"
  artifacts="$work/$name/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "$srcdir/corpus/$name" ]; then
    cp -R "$srcdir/corpus/$name/." "$corpus/"
  fi
  log="$work/$name/log"
  echo "== $name: ${secs}s, seeds: $(ls "$corpus" | wc -l)"
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1
  rc=$?
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed 's/^/   /'
  tail -n 3 "$log" | grep -E '^#[0-9]+' | sed 's/^/   /'
  crashes=$(ls "$artifacts" 2>/dev/null | wc -l)
  if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=$((failed + 1))
    echo "FAIL: $name exited $rc with $crashes artifact(s) in $artifacts" >&2
    grep -E 'ERROR|SUMMARY|deadly signal|Test unit written' "$log" | head -n 10 >&2
  else
    echo "   ok"
  fi
done

if [ $found -eq 0 ]; then
  echo "error: no fuzz_* binaries in $build; build them with" >&2
  echo "  CC=clang cmake -S . -B $build -DUDCCP_FUZZ=ON -DUDCCP_TESTS=OFF && cmake --build $build" >&2
  exit 1
fi
if [ $failed -ne 0 ]; then
  echo "$failed of $found fuzz target(s) failed; logs in $work" >&2
  exit 1
fi
echo "all $found fuzz target(s) passed"
rm -rf "$work"
exit 0
