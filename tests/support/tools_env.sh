# SPDX-License-Identifier: MIT
# Sourced by tests/io_*.sh (sh): the common set-up of a test of the tools.
#   NAME=io-raw; . "$SRC/tests/support/tools_env.sh"
# after B (the build directory) is set ('.' takes no arguments in sh).
# Sets PERF and CAT (failing at once when either is not built), T (a temp
# dir named after NAME), PIDS (append
# background PIDs: cleanup resumes and kills them by PID) and FAILS, with
# fail/pass to report a case, json_num to read udccp-perf -J and wait_pid
# to wait for a background process with a bound.
PERF="$B/udccp-perf"
CAT="$B/udccp-cat"
for f in "$PERF" "$CAT"; do
  [ -x "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
T=$(mktemp -d "/tmp/udccp-${NAME:?}.XXXXXX") && [ -d "$T" ] ||
  { echo "FAIL: mktemp"; exit 1; }
PIDS=""
FAILS=0
# A PID may be timeout(1)'s: killing it alone would leave its child
# running for ever (orphaned, past the timeout), so its children go first.
cleanup() {
  for p in $PIDS; do
    for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
      kill -CONT "$c" 2>/dev/null; kill -KILL "$c" 2>/dev/null
    done
    kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok:   $*"; }

# json_num FILE FIELD: the summary's FIELD in the one-line object.  The
# intervals array is cut off first: it repeats goodput_bps etc. per
# interval, and a greedy match would take an interval's number.
json_num() {
  sed -e 's/, *"intervals":.*//' "$1" |
    sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" | head -n 1
}

# wait_pid PID SECONDS: waits for a background process and sets RC to its
# exit status; returns 1 (and kills it) if it is still running after
# SECONDS.
wait_pid() {
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt $(($2 * 10)) ]; then
      kill -KILL "$1" 2>/dev/null
      return 1
    fi
    sleep 0.1
  done
  wait "$1"
  RC=$?
  return 0
}

# wait_udp_port PORT SECONDS (wait_port.sh): a listener is ready.
. "$SRC/tests/support/wait_port.sh"
