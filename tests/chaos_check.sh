#!/bin/sh
# SPDX-License-Identifier: MIT
# make check's share of the chaos runs (issue 11 §2): 100 seeds of
# udccp-sim --chaos, every connection checked against the invariants of
# sim/sim_inv.h after every event and judged by sim_chaos_judge().
# Seeds 1001..1100 (seeds 1..1000 are make chaos's; all 1,000 pass, see
# doc/envelope.md).  Costs ~30 s under ASan.
#   sh tests/chaos_check.sh BUILD_DIR [SOURCE_DIR]
set -u
BUILD=${1:?usage: chaos_check.sh BUILD_DIR [SOURCE_DIR]}
[ -x "$BUILD/udccp-sim" ] || { echo "FAIL: $BUILD/udccp-sim not built" >&2; exit 1; }
exec "$BUILD/udccp-sim" --chaos 100 --seed 1001
