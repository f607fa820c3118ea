#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages of `make deb` (cmake/package.cmake; issue 15):
#   1. apt-get resolves them on this Debian (apt-get -s install ./*.deb);
#   2. they install into a throwaway root (dpkg --root), where
#   3. a program (examples/sansio.c) builds against libudccp-dev with
#      pkg-config and with CMake's find_package, and runs on libudccp0;
#      the tools run; `man udccp_connect` renders from the package;
#   4. they remove cleanly: purged, not one of their files is left.
#
#   sh tests/packaging/deb.sh BUILD_DEB_DIR SOURCE_DIR   (make check-deb; not a
#   ctest: it needs the packages of make deb)
set -u
B=${1:?usage: deb.sh BUILD_DEB_DIR SOURCE_DIR}
SRC=${2:?usage: deb.sh BUILD_DEB_DIR SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
B=$(cd "$B" && pwd) || fail "no $B"
SRC=$(cd "$SRC" && pwd)
PKGS="libudccp0 libudccp-dev udccp-tools libudccp-preload"
debs=""
for p in $PKGS; do
  f=$(ls "$B"/${p}_*.deb 2>/dev/null | head -n 1)
  [ -n "$f" ] || fail "no ${p}_*.deb in $B (make deb)"
  debs="$debs $f"
done
R=$(mktemp -d /tmp/udccp-debroot.XXXXXX)
W=$(mktemp -d /tmp/udccp-debwork.XXXXXX)
trap 'rm -rf "$R" "$W"' EXIT INT TERM

# 1. installable here: apt resolves every dependency (simulated)
# shellcheck disable=SC2086
apt-get -s -o Debug::NoLocking=1 install $debs >"$W/apt" 2>&1 ||
  { cat "$W/apt"; fail "apt-get cannot install the packages"; }
for p in $PKGS; do
  grep -Eq "^(Inst $p |$p is already)" "$W/apt" ||
    { cat "$W/apt"; fail "apt-get would not install $p"; }
done
echo "ok: apt-get resolves $PKGS"

# 2. a throwaway root: dpkg's own database, nothing of the host's
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
: >"$R/var/lib/dpkg/status"
dp() { dpkg --root="$R" --log=/dev/null --force-script-chrootless "$@"; }
# libc6 is the host's, not recorded in the throwaway root: --force-depends
# shellcheck disable=SC2086
dp --force-depends -i $debs >"$W/dpkg" 2>&1 || { cat "$W/dpkg"; fail "dpkg -i"; }
for p in $PKGS; do
  dp -s "$p" 2>/dev/null | grep -q "^Status: install ok installed" ||
    fail "$p not installed in the throwaway root"
done
LIBDIR=$(dirname "$(find "$R/usr/lib" -name 'libudccp.so.0' | head -n 1)")
[ -f "$LIBDIR/libudccp.so.0" ] || fail "libudccp.so.0 not installed"
echo "ok: installed into $R"

# 3. build and run against the installed -dev package
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
flags=$(pkg-config --cflags --libs libudccp) || fail "pkg-config libudccp"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror -o "$W/sansio" "$SRC/examples/sansio.c" $flags ||
  fail "examples/sansio.c does not build against libudccp-dev (pkg-config)"
LD_LIBRARY_PATH=$LIBDIR timeout 30 "$W/sansio" 50 >"$W/run" 2>&1 ||
  { cat "$W/run"; fail "sansio built against the package failed"; }
grep -q "closed cleanly" "$W/run" || { cat "$W/run"; fail "sansio output"; }
LD_LIBRARY_PATH=$LIBDIR ldd "$W/sansio" | grep -q "$LIBDIR/libudccp.so.0" ||
  fail "the program did not load the packaged libudccp.so.0"
mkdir -p "$W/cm"
cat >"$W/cm/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.20)
project(pkgtest C)
find_package(udccp REQUIRED)
add_executable(sansio $SRC/examples/sansio.c)
target_link_libraries(sansio PRIVATE udccp::udccp)
CMK
cmake -S "$W/cm" -B "$W/cm/b" -DCMAKE_PREFIX_PATH="$R/usr" >"$W/cmake" 2>&1 &&
  cmake --build "$W/cm/b" >>"$W/cmake" 2>&1 ||
  { cat "$W/cmake"; fail "find_package(udccp) from libudccp-dev"; }
"$R/usr/bin/udccp-perf" --version | grep -q "udccp-perf" || fail "udccp-perf from udccp-tools"
MANWIDTH=80 man -M "$R/usr/share/man" udccp_connect 2>/dev/null | grep -q "Errors" ||
  fail "man udccp_connect from libudccp-dev"
[ -f "$R/usr/lib/x86_64-linux-gnu/wireshark/plugins/dccp-udp.lua" ] ||
  [ -n "$(find "$R" -name dccp-udp.lua)" ] || fail "the Wireshark plugin is not packaged"
echo "ok: sansio builds (pkg-config, CMake) and runs on the packages; tools and man pages present"

# 4. removal leaves nothing of theirs
# shellcheck disable=SC2086
dp --force-depends --purge $PKGS >"$W/rm" 2>&1 || { cat "$W/rm"; fail "dpkg --purge"; }
left=$(find "$R" -type f ! -path "$R/var/lib/dpkg/*" | head -n 5)
[ -z "$left" ] || fail "files left after purge: $left"
echo "PASS: the .deb packages resolve, install, build a program, run, and purge cleanly"
