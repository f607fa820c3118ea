#!/bin/sh
# SPDX-License-Identifier: MIT
# Every source file says its license in its first lines (issue 14): the
# SPDX tag of LICENSE (MIT) in C sources and headers, shell, Python, Lua,
# CMake files and the Makefile; and LICENSE itself is the MIT text.
#
#   sh tests/spdx.sh BUILD_DIR SOURCE_DIR
set -u
SRC=${2:?usage: spdx.sh BUILD SRC}
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -q "^MIT License" "$SRC/LICENSE" || fail "LICENSE is not the MIT license"
missing=$(cd "$SRC" && find . \( -path ./build\* -o -path ./.git -o -path ./fuzz/corpus -o -path ./doc \) -prune -o \
  -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o \
  -name '*.lua' -o -name '*.cmake' -o -name CMakeLists.txt -o -name Makefile \) -print |
  while read -r f; do
    head -n 2 "$f" | grep -q "SPDX-License-Identifier: MIT" || echo "$f"
  done)
[ -z "$missing" ] || fail "no SPDX-License-Identifier: MIT in: $(echo $missing | head -c 600)"
n=$(cd "$SRC" && find . \( -path ./build\* -o -path ./.git \) -prune -o -type f -name '*.c' -print | wc -l)
echo "PASS: every source file carries SPDX-License-Identifier: MIT ($n C files among them)"
