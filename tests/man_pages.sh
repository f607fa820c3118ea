#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages in doc/: each renders with man -l (groff) without a single
# warning, and each tool's page documents every long option its --help
# lists (the help is the reference; the pages must follow it).
#
#   sh tests/man_pages.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: man_pages.sh BUILD SRC}
SRC=${2:?usage: man_pages.sh BUILD SRC}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v man >/dev/null 2>&1 || fail "man is not installed (apt-get install man-db groff-base)"
TMP=$(mktemp -d /tmp/udccp-man.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
bad=0
for page in udccp-perf.1 udccp-cat.1 udccp-sim.1 udccp-linkem.1 udccp.3; do
  f=$SRC/doc/$page
  [ -f "$f" ] || fail "doc/$page is missing"
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" >"$TMP/out" 2>"$TMP/err"
  if [ -s "$TMP/err" ]; then
    echo "doc/$page: warnings:"; cat "$TMP/err"; bad=1
  fi
  [ "$(wc -l <"$TMP/out")" -gt 20 ] || { echo "doc/$page: renders to almost nothing"; bad=1; }
  name=${page%.*}
  if [ "${page##*.}" = 1 ]; then
    tool=$BUILD/$name
    [ -x "$tool" ] || fail "$tool not built"
    "$tool" --help >"$TMP/help" 2>&1 || fail "$name --help exited non-zero"
    for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$TMP/help" | sort -u); do
      # in roff source a dash is written \-
      esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
      if ! grep -q -- "$esc" "$f"; then
        echo "doc/$page: option $opt of '$name --help' is not documented"; bad=1
      fi
    done
    v=$("$tool" --version 2>/dev/null | grep -o '[0-9][0-9.]*' | tail -1)
    grep -q "^\.TH .*\"udccp $v\"" "$f" || { echo "doc/$page: .TH does not say udccp $v"; bad=1; }
  fi
done
# One page per public function, made from the header (doc/gen_man3.py):
# every function udccp.h declares has one that renders cleanly and says
# what the header says, and man finds it by name (man udccp_connect).
sh "$SRC/cmake/abi_symbols.sh" "$SRC/include/udccp/udccp.h" >"$TMP/funcs" ||
  fail "cmake/abi_symbols.sh failed"
nf=0
pages=""
for fn in $(cat "$TMP/funcs"); do
  f=$BUILD/man/man3/$fn.3
  [ -f "$f" ] || { echo "no man page $f for $fn"; bad=1; continue; }
  grep -q "^\.SH DESCRIPTION" "$f" || { echo "$fn.3: no DESCRIPTION"; bad=1; }
  grep -qF "$fn(" "$f" || { echo "$fn.3: no synopsis of $fn"; bad=1; }
  pages="$pages $f"
  nf=$((nf + 1))
done
# all pages through groff at once (one process: man -l per page is slow)
if [ -n "$pages" ]; then
  # shellcheck disable=SC2086
  LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z -K utf8 $pages 2>"$TMP/err"
  if [ -s "$TMP/err" ]; then
    echo "function pages: groff warnings:"; head -20 "$TMP/err"; bad=1
  fi
fi
[ "$nf" -gt 50 ] || { echo "only $nf functions found in udccp.h"; bad=1; }
MANWIDTH=80 man -M "$BUILD/man" udccp_connect 2>/dev/null | grep -q "Errors" ||
  { echo "man -M $BUILD/man udccp_connect does not show its page"; bad=1; }
[ $bad = 0 ] || fail "man pages"
echo "PASS: 4 man pages and $nf function pages render without warnings; the tool pages cover every --help option"
