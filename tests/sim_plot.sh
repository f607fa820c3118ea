#!/bin/sh
# SPDX-License-Identifier: MIT
# udccp-sim --plot FILE.svg (issue 3): the SVG is a document a browser
# renders.  rsvg-convert (librsvg2-bin, in the Makefile's DEPS) must turn it
# into a PNG of the declared size with real content, and must reject a
# broken SVG -- so this test can tell a bad plot from a good one.  The SVG
# must carry the title, axis units and a legend entry per flow.
#   sh tests/sim_plot.sh BUILD_DIR [SOURCE_DIR]
set -u
BUILD=${1:?usage: sim_plot.sh BUILD_DIR [SOURCE_DIR]}
SIM="$BUILD/udccp-sim"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$SIM" ] || fail "$SIM not built"
command -v rsvg-convert >/dev/null 2>&1 ||
  fail "rsvg-convert not found: apt-get install librsvg2-bin (make deps)"
TMP=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT INT TERM

"$SIM" --flows ccid3,tcp --rate 10mbit --delay 10ms --duration 20s \
  --plot "$TMP/p.svg" --csv "$TMP/p.csv" >"$TMP/out" ||
  fail "udccp-sim --plot failed: $(cat "$TMP/out")"
[ -s "$TMP/p.svg" ] || fail "no SVG written"

# what a reader needs: title with the scenario, units, legend, one polyline
# per flow from the same 20 one-second samples as --csv
for want in "udccp-sim: ccid3,tcp over 10.00 Mbit/s" "time (s)" \
  "goodput (Mbit/s)" "one-way delay 10 ms" "0 ccid3" "1 tcp" \
  "flow, mean goodput"; do
  grep -qF -- "$want" "$TMP/p.svg" || fail "SVG lacks '$want'"
done
[ "$(grep -c '<polyline fill="none" stroke="#' "$TMP/p.svg")" -eq 2 ] ||
  fail "expected one polyline per flow"
pts=$(grep '<polyline fill="none" stroke="#' "$TMP/p.svg" | head -1 |
  sed 's/.*points="//; s/".*//' | wc -w)
rows=$(grep -c ',0,ccid3,' "$TMP/p.csv")
[ "$pts" -eq "$rows" ] && [ "$rows" -eq 20 ] ||
  fail "flow 0: $pts points in the plot, $rows samples in the csv (want 20)"

rsvg-convert -o "$TMP/p.png" "$TMP/p.svg" 2>"$TMP/err" ||
  fail "rsvg-convert rejected the plot: $(cat "$TMP/err")"
# PNG signature and IHDR width/height (bytes 17-24): 960 x 540
sig=$(od -An -tx1 -N8 "$TMP/p.png" | tr -d ' \n')
[ "$sig" = "89504e470d0a1a0a" ] || fail "not a PNG: $sig"
dims=$(od -An -tu1 -j16 -N8 "$TMP/p.png" | tr -s ' ' | sed 's/^ //')
[ "$dims" = "0 0 3 192 0 0 2 28" ] || fail "PNG size is not 960x540: $dims"
# a white page with a few lines compresses to far less than text, axes
# and two curves do
size=$(wc -c <"$TMP/p.png")
[ "$size" -gt 15000 ] || fail "PNG only $size bytes: the plot looks empty"
# the same page without its curves must render smaller: they are drawn
grep -v '<polyline fill="none" stroke="#' "$TMP/p.svg" >"$TMP/bare.svg"
rsvg-convert -o "$TMP/bare.png" "$TMP/bare.svg" || fail "bare render"
bare=$(wc -c <"$TMP/bare.png")
[ "$bare" -lt "$size" ] || fail "curves add nothing to the PNG ($bare vs $size)"

# the check itself must catch a broken document: cut the SVG in half
head -c $(($(wc -c <"$TMP/p.svg") / 2)) "$TMP/p.svg" >"$TMP/broken.svg"
if rsvg-convert -o "$TMP/broken.png" "$TMP/broken.svg" 2>/dev/null; then
  fail "rsvg-convert accepted a truncated SVG: the check would not notice"
fi
printf '<svg xmlns="http://www.w3.org/2000/svg"><text>x</svg>\n' \
  >"$TMP/bad.svg"
if rsvg-convert -o "$TMP/bad.png" "$TMP/bad.svg" 2>/dev/null; then
  fail "rsvg-convert accepted mismatched tags"
fi

# an unwritable --plot path fails before the run, naming the file
if "$SIM" --flows tcp --rate 10mbit --delay 10ms --duration 1s \
  --plot "$TMP/no/such/dir/p.svg" >/dev/null 2>"$TMP/err"; then
  fail "unwritable --plot path accepted"
fi
grep -q "cannot create --plot file" "$TMP/err" || fail "error: $(cat "$TMP/err")"
echo "PASS ($size-byte PNG, $pts samples per flow)"
