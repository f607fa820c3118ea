#!/bin/sh
# SPDX-License-Identifier: MIT
# lib/ line coverage reached by the fuzz corpora (issue 11 §2), with clang's
# source-based coverage: builds the fuzz targets instrumented (BUILD_DIR),
# grows each target's corpus from fuzz/corpus/<name> for SECONDS (0: the
# stored seeds only), replays it, and prints llvm-cov's per-file table for
# lib/ and the TOTAL line.  The repository is not modified.
#
#   usage: sh fuzz/coverage.sh BUILD_DIR SECONDS
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
secs=$2
src=$(cd "$(dirname "$0")/.." && pwd)
for t in clang llvm-profdata llvm-cov; do
  command -v $t >/dev/null 2>&1 || { echo "error: $t not found (apt-get install clang llvm)" >&2; exit 1; }
done
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DUDCCP_FUZZ=ON -DUDCCP_TESTS=OFF \
  -DCMAKE_C_FLAGS="-fprofile-instr-generate -fcoverage-mapping" >/dev/null
# Only the fuzz targets: the tools and tests are not what is measured, and
# a tool that fails to link with these flags must not stop the report.
targets=$(for f in "$src"/fuzz/fuzz_*.c; do basename "$f" .c; done)
# shellcheck disable=SC2086
cmake --build "$build" -j 2 --target $targets >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/udccp-fuzzcov.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
objs=""
for bin in "$build"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  mkdir -p "$work/$name"
  [ -d "$src/fuzz/corpus/$name" ] && cp -R "$src/fuzz/corpus/$name/." "$work/$name/"
  if [ "$secs" -gt 0 ]; then
    LLVM_PROFILE_FILE="$work/grow.profraw" "$bin" -max_total_time="$secs" \
      -timeout=10 -rss_limit_mb=2048 "$work/$name" >/dev/null 2>&1 || true
  fi
  LLVM_PROFILE_FILE="$work/$name.profraw" "$bin" -runs=0 "$work/$name" \
    >/dev/null 2>&1 || { echo "error: $name failed replaying its corpus" >&2; exit 1; }
  echo "$name: $(ls "$work/$name" | wc -l) corpus inputs"
  if [ -z "$objs" ]; then objs="$bin"; else objs="$objs -object $bin"; fi
done
llvm-profdata merge -sparse "$work"/fuzz_*.profraw -o "$work/all.profdata"
# shellcheck disable=SC2086
llvm-cov report $objs -instr-profile="$work/all.profdata" "$src"/lib/*.c |
  sed "s|$src/||"
