#!/bin/sh
# SPDX-License-Identifier: MIT
# The make-check subset of the envelope (issue 11 §1): the cells and
# recovery scenarios listed in tests/envelope.py (CHECK_CELLS,
# CHECK_RECOVERY), chosen among those that pass on main; the full sweep is
# `make envelope`.  Costs about 1 min under ASan on 2 cores.
#   sh tests/envelope_check.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: envelope_check.sh BUILD_DIR SOURCE_DIR}
SRC=${2:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 ||
  { echo "FAIL: python3 not found (make deps)" >&2; exit 1; }
[ -x "$BUILD/udccp-sim" ] || { echo "FAIL: $BUILD/udccp-sim not built" >&2; exit 1; }
exec python3 "$SRC/tests/envelope.py" --sim "$BUILD/udccp-sim" --set check \
  --recovery --jobs 2
