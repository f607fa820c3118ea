# SPDX-License-Identifier: MIT
# interop/compat_scenarios.sh -- issue 6, acceptance 2: the test programs
# of tests/compat/ (written against <linux/dccp.h> alone), unmodified, on
# both sides of the interop harness's tap: under libudccp-preload in native
# mode on the host, and on Linux 6.1's own DCCP in the guest.  Sourced by
# interop/run.sh through interop/compat.sh (which provides $PAIR, $ERRNO,
# $PRELOAD); every capture is checked as in scenarios.sh.
# shellcheck shell=bash disable=SC2154

# compat.sh sources scenarios.sh first (guest_ok, host_ok, expect_*, ...);
# its run_all_scenarios is replaced below.
COMPAT_SC=1234567
GBIN=/tmp/c   # where the guest keeps the fetched binaries and their libc

# The guest runs the very binaries the host runs: they and their dynamic
# loader and libc are fetched over the tap (HTTP) and started through the
# loader, since the initramfs has only static programs.
compat_fetch() {
  local dir=$WORK/compat-http
  mkdir -p "$dir"
  cp "$PAIR" "$ERRNO" "$dir/"
  local lib
  for lib in $(ldd "$PAIR" "$ERRNO" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | sort -u); do
    cp -L "$lib" "$dir/"
  done
  ip netns exec "$NS" timeout 900 python3 -m http.server 8765 --bind "$HOST4" \
    --directory "$dir" > "$WORK/compat-http.log" 2>&1 &
  PIDS+=("$!")
  # up to 15 s for the server to listen (a fixed 1 s was too short under
  # load: the guest's wget then failed)
  local i
  for i in $(seq 1 150); do
    ip netns exec "$NS" bash -c "exec 3<>/dev/tcp/$HOST4/8765" 2>/dev/null && break
    sleep 0.1
  done
  local files; files=$(cd "$dir" && ls | tr '\n' ' ')
  g_run fetch "mkdir -p $GBIN && cd $GBIN && for f in $files; do wget -q http://$HOST4:8765/\$f || exit 1; done && chmod +x * && ls"
  g_wait fetch 60 || die "guest could not fetch the compat binaries: $(g_out fetch | tr '\n' ' ')"
  local ld; ld=$(cd "$dir" && ls ld-linux* | head -n1)
  GRUN="$GBIN/$ld --library-path $GBIN"
  say "guest fetched: $files"
}

# k2u: kernel client (guest) -> preloaded server (host)
compat_k2u() { # MODE CCID PORT
  local mode=$1 ccid=$2 p=$3
  host_bg srv 40 env LD_PRELOAD="$PRELOAD" UDCCP_TRANSPORT=raw \
    "$PAIR" server "$mode" "$p" "$ccid" "$COMPAT_SC" 1
  host_wait_line srv listening 10 || REASONS+=("host server did not start")
  g_run "${G}a" "timeout 40 $GRUN $GBIN/dccp_pair client $mode $HOST4 $p $ccid $COMPAT_SC 200"
  guest_ok "${G}a" 45
  host_ok srv
  expect_guest "${G}a" "^PASS client $mode: 200 datagrams echoed, CCID $ccid" "kernel client"
  expect_host srv "^PASS server $mode: 1 connections" "preloaded server"
  expect_pkts "dccp.service_code == $COMPAT_SC && dccp.type == 0" 1 "the Request with the service code"
}

# u2k: preloaded client (host) -> kernel server (guest)
compat_u2k() { # MODE CCID PORT
  local mode=$1 ccid=$2 p=$3
  g_run "${G}a" "timeout 40 $GRUN $GBIN/dccp_pair server $mode $p $ccid $COMPAT_SC 1"
  g_wait_line "${G}a" '^listening' 10 || REASONS+=("guest server did not start")
  host_bg cli 40 env LD_PRELOAD="$PRELOAD" UDCCP_TRANSPORT=raw \
    "$PAIR" client "$mode" "$GUEST4" "$p" "$ccid" "$COMPAT_SC" 200
  host_ok cli
  guest_ok "${G}a" 45
  expect_host cli "^PASS client $mode: 200 datagrams echoed, CCID $ccid" "preloaded client"
  expect_guest "${G}a" "^PASS server $mode: 1 connections" "kernel server"
  expect_pkts "dccp.service_code == $COMPAT_SC && dccp.type == 0" 1 "the Request with the service code"
}

sc_compat_k2u_blocking() { compat_k2u blocking 2 5301; }
sc_compat_u2k_blocking() { compat_u2k blocking 2 5302; }
sc_compat_k2u_poll()     { compat_k2u poll 3 5303; }
sc_compat_u2k_poll()     { compat_u2k poll 3 5304; }
sc_compat_k2u_epoll()    { compat_k2u epoll 2 5305; }
sc_compat_u2k_epoll()    { compat_u2k epoll 2 5306; }
sc_compat_k2u_select()   { compat_k2u select 3 5307; }
sc_compat_u2k_select()   { compat_u2k select 3 5308; }
sc_compat_k2u_threaded() { compat_k2u threaded 2 5309; }
sc_compat_u2k_threaded() { compat_u2k threaded 3 5310; }
sc_compat_k2u_fork()     { compat_k2u fork 3 5311; }
sc_compat_u2k_fork()     { compat_u2k fork 2 5312; }
sc_compat_k2u_prefork()  { compat_k2u prefork 2 5313; }
sc_compat_u2k_prefork()  { compat_u2k prefork 3 5314; }

# dccp_errno on the kernel itself: the errno values the preload library
# reproduces (tests/compat_preload.sh) are the kernel's.  It runs on the
# guest's loopback, so it is counted here rather than as a captured
# scenario (whose check wants DCCP on the tap).
compat_errno_kernel() {
  local rc=0 out=$OUT/compat_errno_kernel
  mkdir -p "$out"
  g_run errno "timeout 60 $GRUN $GBIN/dccp_errno 5320 noconn"
  g_wait errno 65 || rc=$?
  g_out errno > "$out/guest.log"
  if [ "$rc" = 0 ] && grep -q '^PASS dccp_errno' "$out/guest.log"; then
    NPASS=$((NPASS + 1))
    RESULTS+=("PASS compat_errno_kernel ($(grep -c '^ok' "$out/guest.log") checks on Linux 6.1)")
    say "PASS compat_errno_kernel: tests/compat/dccp_errno on the kernel's DCCP"
  else
    NFAIL=$((NFAIL + 1))
    RESULTS+=("FAIL compat_errno_kernel: $(grep -m1 '^FAIL' "$out/guest.log")")
    say "FAIL compat_errno_kernel: $(grep -m1 '^FAIL' "$out/guest.log")"
  fi
}

run_all_scenarios() {
  compat_fetch
  local m
  for m in blocking poll epoll select threaded fork prefork; do
    run_scenario "compat_k2u_$m" "tests/compat/dccp_pair $m: kernel client -> preloaded server"
    run_scenario "compat_u2k_$m" "tests/compat/dccp_pair $m: preloaded client -> kernel server"
  done
  if [ -z "${ONLY:-}" ] || [[ compat_errno_kernel =~ $ONLY ]]; then
    compat_errno_kernel
  fi
}
