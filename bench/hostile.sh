#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile-peer CPU cost (issue 12): instructions per packet of each case of
# udccp-hostile-bench (bench/hostile.c), counted by callgrind (stable under
# load, unlike time), and the ratio to the normal packet of the same CCID
# measured in the same run.  Target: every hostile case <= 5x.
#
#   sh bench/hostile.sh BUILD_DIR [PACKETS]      (default 300 per case)
#
# Prints one table; exit status 0 even when a case is over the target (it
# is a measurement: the "ok" column says which are within 5x).
set -u
BUILD=${1:?usage: hostile.sh BUILD_DIR [PACKETS]}
N=${2:-300}
BIN=$BUILD/bench/udccp-hostile-bench
[ -x "$BIN" ] || { echo "hostile.sh: $BIN not built (cmake --build $BUILD --target udccp-hostile-bench)" >&2; exit 1; }
command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1 ||
  { echo "hostile.sh: needs valgrind (callgrind, callgrind_annotate)" >&2; exit 1; }
T=$(mktemp -d /tmp/udccp-hostile.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$BIN" "$N" \
  >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$T/cg.out" 2>/dev/null |
  sed -n 's/^ *\([0-9,]*\) .*feed_\([a-z0-9_]*\) .*/\2 \1/p' | tr -d , >"$T/ir"
awk -v N="$N" '
  FNR == NR { ir[$1] = $2; next }
  /^#/ { next }
  { name[++n] = $1; acc[n] = $3; x[n] = $5
    what[n] = $6; for (i = 7; i <= NF; i++) what[n] = what[n] " " $i }
  END {
    printf "%-22s %-30s %12s %8s %6s %9s\n", "case", "packets", "instr/pkt",
           "ratio", "<=5x", "accepted"
    for (i = 1; i <= n; i++) {
      c = name[i]; base = (c ~ /ccid3$/) ? "normal_ccid3" : "normal"
      per = ir[c] / N; b = ir[base] / N
      r = b > 0 ? per / b : 0
      printf "%-22s %-30s %12.0f %7.2fx %6s %5d/%d\n", c, what[i], per, r,
             (r <= 5.0 ? "ok" : "OVER"), acc[i], N
      if (r > 5.0) over = over " " c
    }
    # issue 12, acceptance 3: every hostile case <= 5x a normal packet
    if (over != "") {
      print "hostile: OVER 5x a normal packet:" over
      exit 1
    }
    print "hostile: every case within 5x a normal packet"
  }' "$T/ir" "$T/out"
