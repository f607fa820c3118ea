#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the functions include/udccp/udccp.h declares, and the headers of
# include/udccp/ it includes (<udccp/ccid.h>), one per line, sorted:
# the library's whole ABI.  The shared library's version script is made
# from this list (cmake/abi.cmake) and tests/abi_symbols.sh checks that
# `nm -D` shows exactly these.
#
#   usage: sh cmake/abi_symbols.sh HEADER
set -eu
[ $# -eq 1 ] || { echo "usage: $0 HEADER" >&2; exit 2; }
# drop /* */ comments (they name functions in prose), then take every
# udccp_ identifier directly followed by "(": a declaration.  "(*name)"
# function-pointer types and members ("T (*name)(...)", with the type
# before them) are not, and typedefs are skipped.
awk '
{
  line = $0; out = "";
  while (length(line) > 0) {
    if (incomment) {
      i = index(line, "*/");
      if (i == 0) { line = ""; break; }
      line = substr(line, i + 2); incomment = 0;
    } else {
      i = index(line, "/*");
      if (i == 0) { out = out line; line = ""; break; }
      out = out substr(line, 1, i - 1); line = substr(line, i + 2);
      incomment = 1;
    }
  }
  print out;
}' "$1" $(sed -n 's|^#include <udccp/\(.*\)>.*|\1|p' "$1" |
       sed "s|^|$(dirname "$1")/|") | grep -v '^[[:space:]]*typedef' |
  sed -E 's/[A-Za-z0-9_]*[[:space:]]*\([[:space:]]*\*[[:space:]]*[A-Za-z0-9_]+[[:space:]]*\)//g' |
  grep -oE '(^|[^A-Za-z0-9_])udccp_[a-z0-9_]+[[:space:]]*\(' |
  sed -E 's/^[^u]*//; s/[[:space:]]*\($//' | sort -u
