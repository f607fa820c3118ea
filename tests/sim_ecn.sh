#!/bin/sh
# SPDX-License-Identifier: MIT
# ECN in the simulator (issue 3, acceptance 6; RFC 4340 §12, RFC 4341 §7,
# RFC 3168): with --ecn the udccp flows negotiate ECN and the bottleneck
# queue marks CE instead of waiting to drop.  CCID 2 and CCID 3 (RFC 4342
# §7: CE counts as a loss in TFRC's loss history) then keep the link at
# >= 90 % utilization, and after the first slow start (whose overshoot the
# marks cannot stop within one RTT) they lose nothing: every queue drop of
# the run already happened in the first 5 s.  Without --ecn nothing is
# marked and the queue drops, so the test tells the two apart.  CCID 3 is
# measured over 90 s: after its slow start TFRC climbs back to the link
# rate within about 20-30 s (its loss history holds the overshoot's loss
# events), so 30 s would measure mostly that climb.
#   sh tests/sim_ecn.sh BUILD_DIR [SOURCE_DIR]
set -u
BUILD=${1:?usage: sim_ecn.sh BUILD_DIR [SOURCE_DIR]}
SIM="$BUILD/udccp-sim"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$SIM" ] || fail "$SIM not built"
TMP=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT INT TERM

# num FILE FIELD: the first number after "FIELD":
num() {
  sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" "$1" | head -n 1
}

for run in ccid2:30s ccid2,ccid2:30s ccid3:90s ccid3,ccid3:90s \
  ccid3,ccid2:30s; do
  flows=${run%:*}
  dur=${run#*:}
  "$SIM" --flows $flows --rate 50mbit --delay 20ms --duration $dur --ecn \
    --json >"$TMP/long.json" || fail "$flows --ecn $dur run failed"
  "$SIM" --flows $flows --rate 50mbit --delay 20ms --duration 5s --ecn \
    --json >"$TMP/short.json" || fail "$flows --ecn 5s run failed"
  "$SIM" --flows $flows --rate 50mbit --delay 20ms --duration $dur \
    --json >"$TMP/plain.json" || fail "$flows $dur run failed"
  util=$(num "$TMP/long.json" utilization)
  marks=$(num "$TMP/long.json" fwd_ce_marks)
  drops_long=$(num "$TMP/long.json" fwd_queue_drops)
  drops_short=$(num "$TMP/short.json" fwd_queue_drops)
  plain_marks=$(num "$TMP/plain.json" fwd_ce_marks)
  plain_drops=$(num "$TMP/plain.json" fwd_queue_drops)
  echo "$flows --ecn: utilization $util, $marks CE marks, queue drops $drops_short in the first 5 s and $drops_long in $dur; without ECN: $plain_drops drops, $plain_marks marks"
  awk -v u="$util" 'BEGIN { exit !(u >= 0.9) }' ||
    fail "$flows --ecn: utilization $util < 0.9"
  [ "$marks" -gt 0 ] || fail "$flows --ecn: no CE marks"
  [ "$drops_long" -eq "$drops_short" ] ||
    fail "$flows --ecn: $((drops_long - drops_short)) queue drops after the first 5 s of $dur"
  [ "$plain_marks" -eq 0 ] || fail "$flows without --ecn: $plain_marks marks"
  [ "$plain_drops" -gt "$drops_long" ] ||
    fail "$flows without --ecn: $plain_drops drops, not more than with ECN"
  # Every flow negotiated ECN and saw its marks: none lost data to them.
  grep -q '"closed_cleanly": false' "$TMP/long.json" &&
    fail "$flows --ecn: a flow did not close cleanly"
done
echo "sim_ecn: ok"
