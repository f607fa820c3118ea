# SPDX-License-Identifier: MIT
# udccp -- top-level convenience targets.  The build itself is CMake.
#   make demo    build, then show a transfer (simulated until io/ exists)
#   make check   install what is missing, build with ASan+UBSan (gcc and
#                clang), run every test, build the Debian packages and
#                check them (check-deb), build and briefly run the
#                fuzzers, then the kernel interop suite (check-interop)
#   make deb     Debian packages (build-deb/*.deb: libudccp0, libudccp-dev,
#                udccp-tools, libudccp-preload); make check-deb installs
#                them into a throwaway root and builds against them
#   make fuzz    run the fuzz targets for FUZZ_SECONDS each (default 300)
#   make bench   loopback goodput table: UDP sendmmsg/GSO vs udccp-perf
#                CCID 2/3 over DCCP-UDP and raw IP (Release, build-bench/)
#   make interop kernel interop: udccp against Linux 6.1's DCCP in a QEMU
#                guest, booted once (root; interop/run.sh, build-interop/)
#   make check-interop  the same, skipped with the reason when it cannot run
#   make attack  the attack suite (root; tests/attack/run.sh, a Release
#                build in build-attack/): spoofed Request floods of 100k
#                packets/s for 60 s against the three listeners, 10,000
#                completed-then-silent connections (keepalive 2,1,3 and the
#                defaults), hostile-peer CPU (callgrind), 1 M blind
#                injected packets per type; ~15 minutes.  ATTACK_ROWS picks
#                rows (flood,silent,inject,hostile,replay).  make check runs
#                its short version (ctest attack_short)
#   make envelope CCID 2/3 operating envelope vs the simulator's TCP, and the
#                recovery scenarios: table, doc/envelope.md + envelope.svg
#                (Release, build-rel/; ~1 h of CPU, 2 parallel runs)
#   make chaos   SEEDS random chaos scenarios with invariant checks
#                (default 1000; Release, build-rel/)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 300
CHECK_FUZZ_SECONDS ?= 20
DEPS = cmake gcc clang make pkg-config libcmocka-dev libssl-dev tshark librsvg2-bin iperf3 iputils-ping iproute2 man-db python3 tcpdump
CTEST_ARGS ?= --output-on-failure

.PHONY: all deps build demo check check-gcc check-clang fuzz-build fuzz fuzz-check clean attack

all: build

deps:
	@missing=""; for p in $(DEPS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "error: need root to apt-get install$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 $$missing >/dev/null; \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DUDCCP_TESTS=OFF >/dev/null
	cmake --build build -j $(JOBS)

demo: build
	@sh tools/demo.sh build

check: deps check-gcc check-clang check-deb fuzz-check check-interop
	@echo "make check: all passed"

check-gcc:
	CC=gcc cmake -S . -B build-asan-gcc -DCMAKE_BUILD_TYPE=Debug -DUDCCP_SANITIZE=ON >/dev/null
	cmake --build build-asan-gcc -j $(JOBS)
	cd build-asan-gcc && ctest -j $(JOBS) $(CTEST_ARGS) -LE netns

check-clang:
	CC=clang cmake -S . -B build-asan-clang -DCMAKE_BUILD_TYPE=Debug -DUDCCP_SANITIZE=ON >/dev/null
	cmake --build build-asan-clang -j $(JOBS)
	cd build-asan-clang && ctest -j $(JOBS) $(CTEST_ARGS) -LE slow

fuzz-build: deps
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUDCCP_FUZZ=ON -DUDCCP_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS)

fuzz-check: fuzz-build
	@sh fuzz/run.sh build-fuzz $(CHECK_FUZZ_SECONDS)

fuzz: fuzz-build
	@sh fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

BENCH_SECONDS ?= 3
.PHONY: bench
bench: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DUDCCP_TESTS=OFF >/dev/null
	cmake --build build-bench -j $(JOBS) --target udccp-perf udccp-udpblast udccp-hsbench udccp-ippbench udccp-ioscale udccp-hostile-bench
	@sh bench/run.sh build-bench $(BENCH_SECONDS)

# Debian packages of a Release build installed to /usr (cmake/package.cmake):
# build-deb/*.deb; check-deb installs them into a throwaway root, builds an
# example against libudccp-dev and removes them (tests/packaging/deb.sh)
.PHONY: deb check-deb
deb: deps
	cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DUDCCP_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	cmake --build build-deb -j $(JOBS)
	cd build-deb && rm -f *.deb && cpack -G DEB >/dev/null && ls *.deb

check-deb: deb
	@sh tests/packaging/deb.sh build-deb .

clean:
	rm -rf build build-asan-gcc build-asan-clang build-fuzz build-bench build-deb

# The real-time link emulator tests (root, network namespaces, ~2 min):
# their CCID 2 vs kernel TCP ratio is a measurement on a shared machine,
# so they run here rather than in every make check.
.PHONY: check-netns
check-netns: deps
	CC=gcc cmake -S . -B build-asan-gcc -DCMAKE_BUILD_TYPE=Debug -DUDCCP_SANITIZE=ON >/dev/null
	cmake --build build-asan-gcc -j $(JOBS)
	cd build-asan-gcc && ctest $(CTEST_ARGS) -L netns

.PHONY: interop check-interop
interop:
	bash interop/run.sh build-interop
# The same run as a test step: skipped, saying why, when this machine
# cannot run it (not root, no /dev/net/tun, no Debian 12 kernel package).
# First the harness's own test: it prepares a run from an empty kernel
# cache, as a machine that never ran it must (interop/selftest.sh).
check-interop:
	bash interop/selftest.sh build-interop
	bash interop/check.sh build-interop

attack:
	cmake -S . -B build-attack -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build-attack -j $(JOBS) --target udccp-perf udccp-cat \
	  udccp-spoof udccp-preload compat_dccp_sink test_listener test_ccid3 \
	  udccp-hostile-bench
	sh tests/attack/run.sh $(CURDIR)/build-attack $(CURDIR) full

# ---- issue 13: 100,000 connections between two endpoints in one process
# over loopback DCCP-UDP, idle 30 s, heap <= 4 KiB per idle connection per
# end and RSS <= 1 GB (tests/test_io_scale.c; Release build, minutes)
SCALE_N ?= 100000
.PHONY: check-scale
check-scale: deps
	cmake -S . -B build-scale -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build-scale -j $(JOBS) --target test_io_scale
	ulimit -n 1048576 2>/dev/null || true; \
	UDCCP_SCALE_N=$(SCALE_N) UDCCP_SCALE_IDLE_S=30 UDCCP_SCALE_MEM=1 build-scale/test_io_scale

# ---- issue 11: the operating envelope and chaos (long: not in make check;
# their short subsets are the ctests envelope_check and chaos_check)
.PHONY: envelope chaos sim-rel fuzz-coverage
SEEDS ?= 1000
sim-rel:
	cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release -DUDCCP_TESTS=OFF >/dev/null
	cmake --build build-rel -j $(JOBS) --target udccp-sim
envelope: deps sim-rel
	python3 tests/envelope.py --sim build-rel/udccp-sim --set full --recovery \
	  --jobs 2 --md doc/envelope.md --svg doc/envelope.svg
chaos: deps sim-rel
	build-rel/udccp-sim --chaos $(SEEDS)
# lib/ line coverage of the fuzz corpora (clang source-based coverage);
# FUZZ_COV_SECONDS of fuzzing per target first grows the stored corpora
FUZZ_COV_SECONDS ?= 60
fuzz-coverage: deps
	@sh fuzz/coverage.sh build-fuzzcov $(FUZZ_COV_SECONDS)
