#!/bin/sh
# SPDX-License-Identifier: MIT
# cmake --install into a temporary DESTDIR, then build a small program
# against the installed copy only -- once with pkg-config (libudccp.pc) and
# once with the CMake package (find_package(udccp): udccp::udccp and
# udccp::udccp_static) -- and run them.  The program calls real API
# functions: udccp_strerror, a client connection whose Request it parses
# back with udccp_pkt_peek_hdr, and an endpoint on 127.0.0.1.
#
#   sh tests/install_pkgconfig.sh BUILD_DIR SOURCE_DIR
set -eu
BUILD=$(cd "${1:?usage: install_pkgconfig.sh BUILD SRC}" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in pkg-config cmake; do
  command -v $t >/dev/null 2>&1 || fail "$t is not installed (make deps)"
done
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
CC_USED=$(cache CMAKE_C_COMPILER)
PREFIX=$(cache CMAKE_INSTALL_PREFIX)
LIBDIR=$(cache CMAKE_INSTALL_LIBDIR)
[ -n "$CC_USED" ] && [ -n "$PREFIX" ] || fail "$BUILD is not a configured build"
[ -n "$LIBDIR" ] || LIBDIR=lib
# A library built with sanitizers needs them in the program too.
SAN=""
if [ "$(cache UDCCP_SANITIZE)" = ON ]; then SAN="-fsanitize=address,undefined"; fi

TMP=$(mktemp -d /tmp/udccp-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
DEST=$TMP/dest
DESTDIR=$DEST cmake --install "$BUILD" >"$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log"; fail "cmake --install"; }
P=$DEST$PREFIX
case "$LIBDIR" in /*) L=$DEST$LIBDIR ;; *) L=$P/$LIBDIR ;; esac

for f in "$L/libudccp.a" "$L/libudccp.so" "$P/include/udccp/udccp.h" \
         "$L/pkgconfig/libudccp.pc" "$L/cmake/udccp/udccpConfig.cmake" \
         "$L/cmake/udccp/udccpConfigVersion.cmake" \
         "$L/cmake/udccp/udccpTargets.cmake" \
         "$P/bin/udccp-perf" "$P/bin/udccp-cat" "$P/bin/udccp-sim"; do
  [ -e "$f" ] || fail "not installed: ${f#$DEST}"
done
for m in man1/udccp-perf.1 man1/udccp-cat.1 man1/udccp-sim.1 man3/udccp.3; do
  [ -e "$P/share/man/$m" ] || fail "man page not installed: share/man/$m"
done
echo "installed under DESTDIR: $(cd "$DEST" && find . -type f | wc -l) files"

cat >"$TMP/main.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <udccp/udccp.h>

static void fake_rand(uint8_t *d, size_t n, void *u) {
  (void)u;
  for (size_t i = 0; i < n; i++) d[i] = (uint8_t)(i * 37 + 11);
}

int main(void) {
  const char *e = udccp_strerror(UDCCP_ERR_AGAIN);
  if (e == NULL || e[0] == '\0') return 1;
  udccp_settings st;
  udccp_settings_default(&st);
  st.rand = fake_rand;
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 127;
  p.local_addr[3] = p.remote_addr[3] = 1;
  p.local_port = 40000;
  p.remote_port = 5001;
  udccp_conn *c = NULL;
  if (udccp_conn_client_new(&c, &st, &p, 42, 1000) != 0) return 2;
  uint8_t buf[1500], ecn = 0;
  udccp_ssize n = udccp_conn_write_pkt(c, buf, sizeof(buf), &ecn, 1000);
  if (n <= 0) return 3;
  udccp_pkt_peek pk;
  if (udccp_pkt_peek_hdr(&pk, buf, (size_t)n) != 0) return 4;
  if (pk.type != UDCCP_PKT_REQUEST || pk.sport != 40000 || pk.dport != 5001 ||
      pk.service_code != 42) return 5;
  udccp_conn_del(c);
  udccp_endpoint *ep = NULL;
  if (udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0) != 0) return 6;
  if (udccp_endpoint_local_port(ep) == 0) return 7;
  udccp_endpoint_del(ep);
  printf("libudccp %s: \"%s\"; a %td-byte Request to port %u; an endpoint\n",
         UDCCP_VERSION, e, n, (unsigned)pk.dport);
  return 0;
}
EOF

# 1. pkg-config, against the shared library
export PKG_CONFIG_PATH="$L/pkgconfig"
V=$(pkg-config --modversion libudccp) || fail "pkg-config does not find libudccp"
HV=$(sed -n 's/^#define UDCCP_VERSION "\(.*\)"/\1/p' "$P/include/udccp/udccp.h")
[ "$V" = "$HV" ] || fail "libudccp.pc says $V, udccp.h says $HV"
CFLAGS=$(pkg-config --cflags libudccp)
LIBS=$(pkg-config --libs libudccp)
case "$CFLAGS $LIBS" in
  *"$BUILD"*|*/work/*/include*) fail "pkg-config points outside the install: $CFLAGS $LIBS" ;;
esac
# shellcheck disable=SC2086
"$CC_USED" $SAN $CFLAGS -o "$TMP/prog_pc" "$TMP/main.c" $LIBS ||
  fail "cannot build against the installed copy with pkg-config"
LD_LIBRARY_PATH="$L" "$TMP/prog_pc" || fail "pkg-config program exited $?"
LD_LIBRARY_PATH="$L" ldd "$TMP/prog_pc" 2>/dev/null | grep -q "$L/libudccp.so" ||
  fail "the program did not load the installed libudccp.so"

# 2. the CMake package: udccp::udccp (shared) and udccp::udccp_static
mkdir -p "$TMP/consumer"
cat >"$TMP/consumer/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(udccp_consumer C)
find_package(udccp $V REQUIRED)
add_executable(prog_shared $TMP/main.c)
target_link_libraries(prog_shared PRIVATE udccp::udccp)
add_executable(prog_static $TMP/main.c)
target_link_libraries(prog_static PRIVATE udccp::udccp_static)
EOF
cmake -S "$TMP/consumer" -B "$TMP/consumer/build" -DCMAKE_C_COMPILER="$CC_USED" \
  -DCMAKE_C_FLAGS="$SAN" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  >"$TMP/cm.log" 2>&1 || { cat "$TMP/cm.log"; fail "find_package(udccp) failed"; }
grep -q "udccp_DIR:PATH=$L/cmake/udccp" "$TMP/consumer/build/CMakeCache.txt" ||
  fail "find_package(udccp) found another copy: $(grep udccp_DIR "$TMP/consumer/build/CMakeCache.txt")"
cmake --build "$TMP/consumer/build" >"$TMP/cb.log" 2>&1 ||
  { cat "$TMP/cb.log"; fail "cannot build with the CMake package"; }
"$TMP/consumer/build/prog_shared" || fail "udccp::udccp program exited $?"
"$TMP/consumer/build/prog_static" || fail "udccp::udccp_static program exited $?"
echo "PASS: pkg-config and CMake package builds against the installed copy"
