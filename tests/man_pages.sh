#!/bin/sh
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
for page in udccp-perf.1 udccp-cat.1 udccp-sim.1 udccp.3; do
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
[ $bad = 0 ] || fail "man pages"
echo "PASS: 4 man pages render without warnings and cover every --help option"
