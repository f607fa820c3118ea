#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library's ABI is the header (issue 14): `nm -D` on
# libudccp.so shows every function include/udccp/udccp.h declares, each
# under the version node UDCCP_0, and not one other symbol; the SONAME is
# libudccp.so.0.  Fails on an internal symbol that leaks (a missing or
# broken version script) and on a declared function that is not built.
#
#   sh tests/abi_symbols.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: abi_symbols.sh BUILD SRC}
SRC=${2:?usage: abi_symbols.sh BUILD SRC}
fail() { echo "FAIL: $*" >&2; exit 1; }
# a list, on one line, at most 20 names
few() { echo $(printf '%s\n' "$1" | head -n 20) "($(printf '%s\n' "$1" | wc -l) in all)"; }
command -v nm >/dev/null 2>&1 || fail "nm is not installed (apt-get install binutils)"
so=$BUILD/libudccp.so
[ -f "$so" ] || fail "$so not built"
TMP=$(mktemp -d /tmp/udccp-abi.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

sh "$SRC/cmake/abi_symbols.sh" "$SRC/include/udccp/udccp.h" >"$TMP/header" ||
  fail "cmake/abi_symbols.sh failed"
[ "$(wc -l <"$TMP/header")" -gt 50 ] || fail "the header parse found almost nothing"

# defined dynamic symbols, but the version node itself (type A)
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' >"$TMP/raw"
unversioned=$(grep -v '@@UDCCP_0$' "$TMP/raw" || true)
[ -z "$unversioned" ] || fail "symbols without version UDCCP_0: $(few "$unversioned")"
sed 's/@@UDCCP_0$//' "$TMP/raw" | sort -u >"$TMP/exported"

extra=$(comm -13 "$TMP/header" "$TMP/exported")
missing=$(comm -23 "$TMP/header" "$TMP/exported")
[ -z "$extra" ] || fail "exported but not in udccp.h: $(few "$extra")"
[ -z "$missing" ] || fail "declared in udccp.h but not exported: $(few "$missing")"

soname=$(LC_ALL=C readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libudccp.so.0 ] || fail "SONAME is '$soname', not libudccp.so.0"
echo "ok: libudccp.so exports the $(wc -l <"$TMP/exported") functions of udccp.h, version UDCCP_0, SONAME $soname"
