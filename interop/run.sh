#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# interop/run.sh -- udccp against the real Linux kernel DCCP (make interop).
#
#   interop/run.sh [BUILD_DIR]        (root; default BUILD_DIR: build-interop)
#
# The host kernel (>= 6.16) has no DCCP any more, so we boot Debian 12's 6.1
# kernel (DCCP with CCID 2 and 3) ONCE in QEMU from a tiny initramfs and run
# every scenario of interop/scenarios.sh against it:
#   - the guest's /init runs a command loop on its second serial port
#     (ttyS1 <-> the FIFOs $WORK/ctl.in / ctl.out): each line "ID COMMAND"
#     runs COMMAND in the background; every output line comes back as
#     "ID| line", and "ID| EXIT rc" when it ends.  The kernel console
#     (ttyS0) goes to console.log.
#   - the guest program is interop/guest/dccpt.c (static, kernel socket API);
#   - the host side is udccp in native mode (raw IP protocol 33, full
#     checksums): tools/udccp-cat, tools/udccp-perf and interop/host/*.c;
#   - the tap device lives only inside a network namespace created here
#     (10.233.0.1/30 + fd00:dcc::1/64 host, .2 / ::2 guest); QEMU runs in it,
#     and every scenario is captured there (tcpdump) and checked with tshark.
# Ends with "N passed, M failed"; exit status 0 iff M == 0.
#
# Env knobs: ONLY=REGEX (run the scenarios whose name matches), KEEP=1 (keep
#   the temp dir), ACCEL=auto|tcg|kvm, MEM=512M, KPEER_CACHE (kernel cache,
#   shared with /work/shared/kernel-peer), KERNEL_PKG, BUDGET=720 (seconds from the first scenario;
#   scenarios not started by then are counted as failed "no time left"),
#   PATH_KILL_AFTER=SCENARIO or PATH_KILL_DURING=SCENARIO with
#   PATH_KILL_HOW=down|addr|driver|panic (the harness's test of its path
#   revival, see path_check: the guest's path dies after or during SCENARIO
#   and must be revived; check.sh runs one),
#   REPEAT=N (run the selected scenarios N times: hunting a rare failure),
#   PREPARE_ONLY=1 (fetch and extract the kernel, build the tools and the
#   initramfs, then stop before the guest boots: interop/selftest.sh).
# Artifacts (pcaps, logs per scenario): BUILD_DIR/interop-results/<scenario>/.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build-interop}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
T0=$(date +%s.%N)
ACCEL=${ACCEL:-auto}
MEM=${MEM:-512M}
BUDGET=${BUDGET:-720} REPEAT=${REPEAT:-1} REP=1
NIC_OPTS=${NIC_OPTS-}
CACHE=${KPEER_CACHE:-/var/tmp/dccp-kernel-peer}
NS=udccpi$$
TAP=itap0
HOST4=10.233.0.1 GUEST4=10.233.0.2
# Scenario 3's link: a second tap and guest NIC with udccp-linkem between
# them (itap1 <-> linkem <-> UDP <-> QEMU's -netdev socket <-> guest eth1).
TAPL=itap1
HOST4L=10.233.1.1 GUEST4L=10.233.1.2
LINK_SPEC=${LINK_SPEC:-rate=50mbit,delay=10ms,loss=1%}
HOST6=fd00:dcc::1 GUEST6=fd00:dcc::2
OUT=$BUILD/interop-results

el() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
say() { printf '[interop %6ss] %s\n' "$(el "$T0")" "$*"; }
die() { say "ERROR: $*"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "interop/run.sh: needs root (raw sockets, netns, tap)" >&2; exit 2; }

# ---------------------------------------------------------------- packages
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v python3 >/dev/null || need+=(python3)
command -v ip >/dev/null || need+=(iproute2)
command -v tcpdump >/dev/null || need+=(tcpdump)
command -v tshark >/dev/null || need+=(tshark)
command -v nft >/dev/null || need+=(nftables)
dpkg -s libcmocka-dev >/dev/null 2>&1 || need+=(libcmocka-dev)
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
apt_lists() { ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt-get update -q >/dev/null; }
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  apt_lists
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
    "${need[@]}" >/dev/null
fi

# ---------------------------------------------------------------- kernel
# Debian 12's kernel, extracted (never installed) into a cache shared with
# /work/shared/kernel-peer/run.sh.
MODS="drivers/virtio/virtio_ring.ko drivers/virtio/virtio.ko
  drivers/virtio/virtio_pci_modern_dev.ko drivers/virtio/virtio_pci_legacy_dev.ko
  drivers/virtio/virtio_pci.ko net/core/failover.ko drivers/net/net_failover.ko
  drivers/net/virtio_net.ko net/dccp/dccp.ko net/dccp/dccp_ipv4.ko
  net/dccp/dccp_ipv6.ko net/ipv4/inet_diag.ko net/dccp/dccp_diag.ko"
if [ -z "${KERNEL_PKG:-}" ]; then
  # An empty cache (a fresh machine) is not an error: ls fails, pipefail
  # would end the script without a word.
  KERNEL_PKG=$( (ls -d "$CACHE"/linux-image-6.1.0-*-amd64 2>/dev/null || true) | sort -V | tail -n1)
  KERNEL_PKG=${KERNEL_PKG##*/}
  if [ -z "$KERNEL_PKG" ] || [ ! -f "$CACHE/$KERNEL_PKG/.done" ]; then
    apt_lists
    KERNEL_PKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
      awk '/Depends: linux-image-6\.1/{print $2; exit}')
  fi
fi
[ -n "$KERNEL_PKG" ] || die "cannot resolve the Debian 12 kernel package"
KDIR=$CACHE/$KERNEL_PKG
KVER=${KERNEL_PKG#linux-image-}
if [ ! -f "$KDIR/.done" ]; then
  say "apt-get download $KERNEL_PKG (extracted with dpkg -x, not installed)"
  rm -rf "$KDIR"; mkdir -p "$KDIR"
  (cd "$KDIR" && apt-get download -q "$KERNEL_PKG" >/dev/null 2>&1) ||
    die "apt-get download $KERNEL_PKG failed (no network, or not Debian 12's archive?)"
  (cd "$KDIR" && dpkg -x ./*.deb root && rm -f ./*.deb) || die "dpkg -x of $KERNEL_PKG failed"
  M=$KDIR/root/lib/modules/$KVER/kernel
  for m in $MODS; do mkdir -p "$KDIR/kernel/${m%/*}"; cp "$M/$m" "$KDIR/kernel/$m"; done
  mkdir -p "$KDIR/boot"; cp "$KDIR/root/boot/"{vmlinuz,config,System.map}-"$KVER" "$KDIR/boot/"
  rm -rf "$KDIR/root"; touch "$KDIR/.done"
fi
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
VMLINUX=$KDIR/vmlinux
if [ ! -f "$VMLINUX" ]; then
  # The uncompressed image boots through its PVH note: ~4 s faster (TCG).
  python3 - "$VMLINUZ" "$VMLINUX.tmp" <<'PY' && mv "$VMLINUX.tmp" "$VMLINUX"
import lzma, sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\xfd7zXZ\x00')
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(d[i:])
assert out[:4] == b'\x7fELF'
open(sys.argv[2], 'wb').write(out)
PY
fi
for m in $MODS; do [ -f "$KDIR/kernel/$m" ] || die "module $m missing in $KDIR"; done

# ---------------------------------------------------------------- build
say "building udccp (tools, interop host programs) in $BUILD"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DUDCCP_SANITIZE=ON >/dev/null
cmake --build "$BUILD" -j2 --target udccp-cat udccp-perf udccp-interop-host udccp-linkem \
  >"$BUILD/interop-build.log" 2>&1 ||
  { tail -n 30 "$BUILD/interop-build.log"; die "build failed (see $BUILD/interop-build.log)"; }
CAT=$BUILD/udccp-cat PERF=$BUILD/udccp-perf UHOST=$BUILD/udccp-interop-host
LINKEM=$BUILD/udccp-linkem
# Leak checking would turn a killed-by-timeout tool into noise; the
# sanitizers still abort on memory errors and UB.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# ---------------------------------------------------------------- cleanup
WORK=$(mktemp -d /tmp/udccp-interop.XXXXXX)
PIDS=()          # every background process we start (killed by PID)
QPID=
cleanup() {
  set +e
  exec 7>&- 2>/dev/null
  for p in "${PIDS[@]}" $QPID; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}" $QPID; do kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null; done
  ip netns del "$NS" 2>/dev/null     # also removes the tap inside it
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- initramfs
say "initramfs: busybox, dccpt (static), virtio + dccp modules"
R=$WORK/root
mkdir -p "$R"/{bin,proc,sys,dev,tmp,lib/modules}
cp /bin/busybox "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$R/bin/$a"; done
gcc -static -O2 -Wall -Wextra -Werror -Wshadow -o "$R/bin/dccpt" "$SRC/interop/guest/dccpt.c"
# udccp-perf, static and optimised, for the side-by-side run in the guest
# (getaddrinfo's static-link warning is harmless: the guest uses literals).
gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -DNDEBUG -I"$SRC/include" -I"$SRC/lib" -o "$R/bin/udccp-perf" \
  "$SRC"/lib/*.c "$SRC"/io/*.c "$SRC/tools/udccp-perf.c" "$SRC"/tools/perf/*.c -lcrypto -lm -pthread 2>"$WORK/perf-static.log" ||
  { cat "$WORK/perf-static.log"; die "static udccp-perf build failed"; }
for m in $MODS; do cp "$KDIR/kernel/$m" "$R/lib/modules/"; done
# shellcheck disable=SC2086  # one module path per word
printf '%s\n' $MODS | sed 's,.*/,,' > "$R/modules.order"
cat > "$R/init" <<EOF
#!/bin/sh
# PID 1: set up, then run the host's commands from ttyS1 (see run.sh).
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs dev /dev
for m in \$(cat /modules.order); do insmod /lib/modules/\$m || echo "INSMOD-FAILED \$m"; done
echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad
echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad
ip link set lo up
eth0-setup
# the virtio device behind eth0, for eth0-rebind
readlink /sys/class/net/eth0/device > /eth0.dev
i=0; while [ ! -e /sys/class/net/eth1 ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i+1)); done
ip addr add $GUEST4L/30 dev eth1 && ip link set eth1 up || echo "INFO eth1=missing"
C=/dev/ttyS1
stty -F \$C raw -echo
# the tag of this boot's lines (run.sh boots again when eth0 stays dead)
B=\$(sed -n 's/.*udccp_boot=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
{
  echo "GUEST-READY uptime=\$(cut -d' ' -f1 /proc/uptime) kernel=\$(uname -r)"
  dccpt info
  for f in /proc/sys/net/dccp/default/*; do echo "SYSCTL \${f##*/}=\$(cat \$f)"; done
} 2>&1 | awk -v b="\${B:-boot}" '{ print b "| " \$0; fflush() }' > \$C
while read -r id cmd; do
  case "\$id" in
    QUIT) break ;;
    '') continue ;;
  esac
  ( sh -c "\$cmd" 2>&1; echo "EXIT \$?" ) | awk -v id="\$id" '{ print id "| " \$0; fflush() }' > \$C &
done < \$C
echo "\${B:-boot}| GUEST-QUIT" > \$C
poweroff -f
EOF
# eth0's configuration, at boot and after eth0-rebind
cat > "$R/bin/eth0-setup" <<EOF
#!/bin/sh
i=0; while [ ! -e /sys/class/net/eth0 ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i+1)); done
echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_dad
echo 1 > /proc/sys/net/ipv6/conf/eth0/keep_addr_on_down
ip addr add $GUEST4/30 dev eth0
ip -6 addr add $GUEST6/64 dev eth0
ip link set eth0 up
EOF
# eth0's virtio device unbound from its driver and bound again: the device
# is reset (fresh virtqueues on both sides, QEMU's backend queue flushed),
# which a link bounce does not do.
cat > "$R/bin/eth0-rebind" <<'EOF'
#!/bin/sh
d=$(basename "$(cat /eth0.dev)")
D=/sys/bus/virtio/drivers/virtio_net
[ -e "$D/$d" ] && echo "$d" > "$D/unbind"
echo "$d" > "$D/bind" || exit 1
eth0-setup 2>/dev/null
ip link show eth0 >/dev/null
EOF
chmod +x "$R/init" "$R/bin/eth0-setup" "$R/bin/eth0-rebind"
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initramfs.gz"
if [ "${PREPARE_ONLY:-0}" = 1 ]; then
  # The harness's own test (interop/selftest.sh): everything a fresh machine
  # must do before the guest boots, without booting it.
  say "prepared: $KERNEL_PKG in $KDIR, vmlinux $(stat -c %s "$VMLINUX") B," \
    "initramfs $(stat -c %s "$WORK/initramfs.gz") B"
  exit 0
fi

# ---------------------------------------------------------------- network
if [ "$ACCEL" = auto ]; then
  ACCEL=tcg
  if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then ACCEL=kvm; fi
fi
ip netns add "$NS"
ip -n "$NS" link set lo up
ip netns exec "$NS" ip tuntap add dev "$TAP" mode tap
ip -n "$NS" addr add "$HOST4/30" dev "$TAP"
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$TAP.keep_addr_on_down=1"
ip -n "$NS" -6 addr add "$HOST6/64" dev "$TAP" nodad
# The tap's queue (txqueuelen, 1000 by default) is what QEMU's emulated
# NIC reads from, slowly under TCG: a slow-start burst of small packets
# (CCID 2 with a Sequence Window of 1000, 40,000 packets/s) overflows it.
# A deeper queue makes the path a link with a buffer rather than one that
# drops what the emulator has not read yet; drops still counted below.
ip -n "$NS" link set "$TAP" txqueuelen 10000
ip -n "$NS" link set "$TAP" up
say "netns $NS: $TAP $HOST4 / $HOST6 <-> guest $GUEST4 / $GUEST6 ($ACCEL)"
# The emulated link: linkem attaches to the persistent tap and to a UDP
# port that QEMU's socket netdev talks to, all inside the namespace.
ip netns exec "$NS" ip tuntap add dev "$TAPL" mode tap
ip -n "$NS" addr add "$HOST4L/30" dev "$TAPL"
ip -n "$NS" link set "$TAPL" up
LK_LOG=$WORK/linkem.log
ip netns exec "$NS" "$LINKEM" -a "tap:$TAPL" -b udp:127.0.0.1:47001:127.0.0.1:47002 \
  --link "$LINK_SPEC" --seed 7 > "$LK_LOG" 2>&1 &
LKPID=$!
PIDS+=("$LKPID")
for i in $(seq 1 50); do grep -q 'ready' "$LK_LOG" 2>/dev/null && break; sleep 0.1; done
grep -q 'ready' "$LK_LOG" || { cat "$LK_LOG"; die "udccp-linkem did not start"; }
say "netns $NS: $TAPL $HOST4L <-> udccp-linkem ($LINK_SPEC) <-> guest eth1 $GUEST4L"
# A raw protocol-33 socket (v4 + v6) open, and drained, for the whole run:
# without one, the host kernel (no DCCP) answers guest packets that arrive
# between scenarios with ICMP protocol-unreachable.  It must be read: a raw
# socket whose receive buffer is full counts as absent (IpInUnknownProtos,
# ICMP again).
ip netns exec "$NS" python3 -c '
import select, socket
a = socket.socket(socket.AF_INET, socket.SOCK_RAW, 33)
b = socket.socket(socket.AF_INET6, socket.SOCK_RAW, 33)
for s in (a, b):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
while True:
    for s in select.select([a, b], [], [], 3600)[0]:
        s.recv(1)' &
PIDS+=("$!")

# ---------------------------------------------------------------- boot
mkfifo "$WORK/ctl.in" "$WORK/ctl.out"
: > "$WORK/ctl.log"
CTL=$WORK/ctl.log
BOOTN=0
# boot_guest: start QEMU (again) and its control channel; the guest tags
# its boot lines "boot" the first time, "boot2", "boot3"... after that.
boot_guest() {
  BOOTN=$((BOOTN + 1))
  BOOTTAG=boot; [ "$BOOTN" = 1 ] || BOOTTAG=boot$BOOTN
  TB=$(date +%s.%N)
  ip netns exec "$NS" qemu-system-x86_64 -accel "$ACCEL" -m "$MEM" -smp 1 \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev "file,id=con,path=$WORK/console.log,append=on" -serial chardev:con \
    -serial "pipe:$WORK/ctl" \
    -kernel "$VMLINUX" -initrd "$WORK/initramfs.gz" \
    -append "console=ttyS0 panic=-1 loglevel=4 udccp_boot=$BOOTTAG" \
    -netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no" \
    -device "virtio-net-pci,netdev=n0,mac=52:54:00:d0:cc:02,romfile=$NIC_OPTS" \
    -netdev "socket,id=n1,udp=127.0.0.1:47001,localaddr=127.0.0.1:47002" \
    -device "virtio-net-pci,netdev=n1,mac=52:54:00:d0:cc:03,romfile=" \
    >> "$WORK/qemu.log" 2>&1 &
  QPID=$!
  cat "$WORK/ctl.out" >> "$CTL" &
  CATPID=$!
  PIDS+=("$CATPID")
  exec 7<>"$WORK/ctl.in"
}
# stop_guest: QEMU killed; our end of the command FIFO closed too, so that
# commands the dead guest never read are not run by the next one.
stop_guest() {
  exec 7>&- 2>/dev/null || true
  kill "$QPID" 2>/dev/null
  local i; for i in $(seq 1 30); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$QPID" 2>/dev/null; wait "$QPID" 2>/dev/null
  kill "$CATPID" 2>/dev/null; wait "$CATPID" 2>/dev/null
  return 0
}
boot_guest

# ------------------------------------------------------- guest control API
# g_run ID CMD         start CMD in the guest (background), output tagged ID
# g_wait ID SECS       wait for it to end; its exit status becomes ours
#                      (124 on timeout)
# g_wait_line ID ERE SECS   wait for a line of ID matching ERE
# g_out ID             its output lines so far (tag stripped)
g_run() { printf '%s %s\n' "$1" "$2" >&7; printf '%s %s\n' "$1" "$2" >> "$WORK/ctl.sent"; }
g_out() { { grep -a "^$1| " "$CTL" || true; } | sed "s/^$1| //" | tr -d '\r'; }
g_wait_line() {
  local end=$(( $(date +%s) + $3 ))
  while [ "$(date +%s)" -le "$end" ]; do
    grep -Eq "$2" <<< "$(g_out "$1")" && return 0
    kill -0 "$QPID" 2>/dev/null || return 125
    sleep 0.1
  done
  return 124
}
g_wait() {
  g_wait_line "$1" '^EXIT [0-9]+$' "$2" || return $?
  return "$(g_out "$1" | sed -n 's/^EXIT \([0-9]*\)$/\1/p' | tail -n1)"
}

say "qemu pid $QPID booting $KERNEL_PKG"
g_wait_line boot '^GUEST-READY' 90 ||
  { tail -n 30 "$WORK/console.log"; cat "$WORK/qemu.log"; die "guest did not come up"; }
say "guest ready after $(el "$TB")s: $(g_out boot | grep -E '^(GUEST-READY|INFO)' | tr '\n' ' ')"
TB0=$TB

# ---------------------------------------------------------------- scenarios
rm -rf "$OUT"; mkdir -p "$OUT"
g_out boot > "$OUT/guest-boot.txt"
NPASS=0 NFAIL=0 RESULTS=() SKIPPED=()
# host_bg NAME SECS CMD...  run a host command in the netns, bounded by
# timeout(1); stdout+stderr -> $SD/NAME.log; its PID in HPID_<NAME>
host_bg() {
  local name=$1 secs=$2; shift 2
  # (fds 7 and 8, the guest control FIFO and a feed FIFO, stay with us:
  # a child holding the feed open would never see its EOF)
  ip netns exec "$NS" timeout -k 2 "$secs" "$@" > "$SD/$name.log" 2>&1 \
    < "${HOST_STDIN:-/dev/null}" 7>&- 8>&- &
  local p=$!
  PIDS+=("$p")
  eval "HPID_$name=$p"
}
# host_wait NAME: wait for it; its exit status becomes ours
host_wait() { local p; eval "p=\$HPID_$1"; wait "$p"; }
host_run() { local name=$1; host_bg "$@"; host_wait "$name"; }
# check: record a failed expectation (the scenario goes on, to collect all)
check() { # check "what" test-command...
  local what=$1; shift
  if "$@"; then return 0; fi
  REASONS+=("$what")
  return 0
}
has() { grep -Eq "$2" "$SD/$1.log"; }          # has LOG ERE
# (not "g_out | grep -q": grep -q may exit before g_out has written all,
# and pipefail turns the writer's SIGPIPE into a failure: a false "no")
ghas() { grep -Eq "$2" <<< "$(g_out "$1")"; }   # ghas ID ERE
gcount() { g_out "$1" | grep -Ec "$2" || true; }

start_capture() {
  # -B: bulk scenarios run ~10k pkt/s on a busy 2-core box.  Immediate
  # mode: without it, packets in libpcap's current TPACKET_V3 block are lost
  # when tcpdump is stopped ("received by filter" > "captured").
  ip netns exec "$NS" tcpdump -n -U --immediate-mode -B 65536 -i "${CAPIF:-$TAP}" -w "$SD/capture.pcap" \
    'ip proto 33 or ip6 proto 33 or icmp or icmp6' > "$SD/tcpdump.log" 2>&1 &
  CAPPID=$!
  PIDS+=("$CAPPID")
  local i=0
  while ! grep -q 'listening on' "$SD/tcpdump.log" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1)); done
}
stop_capture() {
  sleep 0.3
  kill -INT "$CAPPID" 2>/dev/null; wait "$CAPPID" 2>/dev/null || true
  local dr cap rcv
  dr=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$SD/tcpdump.log")
  cap=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$SD/tcpdump.log")
  rcv=$(sed -n 's/^\([0-9]*\) packets received by filter.*/\1/p' "$SD/tcpdump.log")
  [ "${dr:-0}" = 0 ] || NOTES+=("capture dropped $dr packets")
  [ "${cap:-0}" = "${rcv:-0}" ] || NOTES+=("capture: $cap of $rcv packets written")
}
TSHARK_PREFS="-o dccp.check_checksum:TRUE -o ip.check_checksum:TRUE"
# Each tshark start costs seconds on a loaded 2-core machine (~2.5 s seen
# with a load average of 12), and a scenario asked up to ten counts: the
# run then overran its budget.  tcount_batch counts every filter of a
# scenario in ONE pass (io,stat: a Frames column per filter); tcount reads
# those, and runs tshark itself only for a filter not in the batch.
declare -A TCOUNT=()
tcount_batch() { # tcount_batch FILTER...
  TCOUNT=()
  local f i=0 row out
  for f in "$@"; do case $f in *,*) return 0 ;; esac; done  # io,stat splits on ','
  # shellcheck disable=SC2086
  out=$(IFS=,; tshark -n -r "$SD/capture.pcap" $TSHARK_PREFS -q -z "io,stat,0,$*" 2>/dev/null) || return 0
  row=$(grep -E '^\| *[0-9.]+ <> ' <<< "$out" | tail -n1)
  [ -n "$row" ] || return 0
  local -a cols
  IFS='|' read -ra cols <<< "$row"
  [ ${#cols[@]} -ge $((2 + 2 * $#)) ] || return 0
  for f in "$@"; do
    TCOUNT["$f"]=$(tr -d ' ' <<< "${cols[$((2 + 2 * i))]}")
    i=$((i + 1))
  done
}
tcount() { # tcount FILTER
  if [ -n "${TCOUNT[$1]+set}" ]; then echo "${TCOUNT[$1]}"; return 0; fi
  # shellcheck disable=SC2086
  tshark -n -r "$SD/capture.pcap" $TSHARK_PREFS -Y "$1" 2>/dev/null | wc -l | tr -d ' '
}
# the scenario's expect_pkts filters, for the batch
collect_pkts() { FILTERS+=("$1"); }
# Readable dumps of the capture, for a failed scenario (the pcap is kept
# for every scenario).
dump_capture() {
  # shellcheck disable=SC2086
  tshark -n -r "$SD/capture.pcap" $TSHARK_PREFS > "$SD/capture.txt" 2>&1 || true
  # shellcheck disable=SC2086
  tshark -n -r "$SD/capture.pcap" $TSHARK_PREFS -c 300 -V -Y dccp > "$SD/capture-verbose.txt" 2>&1 || true
}
check_capture() {
  local n bad mal icmp c
  FILTERS=(dccp '_ws.malformed' 'dccp.checksum.status == 0 || _ws.expert.severity == "Error"'
    '(icmp && icmp.type == 3) || (icmpv6 && icmpv6.type == 1)'
    'dccp && !icmp && !icmpv6 && dccp.checksum.status != 1')
  for c in "${PKT_CHECKS[@]}"; do
    case $c in
      check_pkts\ *) eval "collect_pkts${c#check_pkts}" ;;
      check_no_pkts\ *) eval "collect_pkts${c#check_no_pkts}" ;;
    esac
  done
  tcount_batch "${FILTERS[@]}"
  n=$(tcount dccp); mal=$(tcount '_ws.malformed')
  bad=$(tcount 'dccp.checksum.status == 0 || _ws.expert.severity == "Error"')
  icmp=$(tcount '(icmp && icmp.type == 3) || (icmpv6 && icmpv6.type == 1)')
  [ "$n" -gt 0 ] || [ "${NO_TAP_TRAFFIC:-0}" = 1 ] || REASONS+=("capture: no DCCP packet")
  # every DCCP checksum verified (status 1 = Good; 2 would mean unchecked)
  local unv; unv=$(tcount 'dccp && !icmp && !icmpv6 && dccp.checksum.status != 1')
  [ "$unv" = 0 ] || REASONS+=("capture: $unv DCCP packet(s) whose checksum tshark did not find Good")
  [ "$mal" = 0 ] || REASONS+=("capture: $mal Malformed packet(s) (tshark)")
  [ "$bad" = 0 ] || REASONS+=("capture: $bad packet(s) with bad checksum / Error expert info")
  # With the drained raw socket open all the time, an ICMP unreachable from
  # the host means a raw socket overflowed (udccp's own, under load) or a
  # real unreachable: the kernel peer reacts to it, so it fails the run.
  [ "$icmp" = 0 ] || REASONS+=("capture: $icmp ICMP unreachable(s) sent to the guest")
  CAPSUM="$n DCCP pkts"
}

# The guest's eth0 path (tap <-> QEMU's virtio-net, emulated) must still
# carry packets after a scenario.  It died in CI twice, each time while the
# guest kernel sent at full speed (u2k_bulk_ccid2_reverse, k2u_bulk_ccid3):
# the guest still ran commands, its ARP got no answer, and flushing the
# neighbour caches and bouncing both links did not bring it back (every
# later scenario failed with EHOSTUNREACH).  One ping after each scenario
# tells; when it fails, both ends' state goes to path-dead.txt and the path
# is revived in steps, each checked with a ping:
#   1. neighbour caches flushed, the guest's eth0 and the tap bounced;
#   2. eth0's virtio device reset (guest: eth0-rebind);
#   3. the guest booted again (also when QEMU itself is gone).
# A scenario that failed with the path dead after it runs again on a
# freshly booted guest (at most twice; 4 re-runs per run), with the earlier
# attempts' failures in its notes and their artifacts in attemptN/.  A path
# that stays dead fails the scenario.  Each death, what the ends' counters,
# dmesg and QEMU said, and how it came back are listed after the summary
# (PATH_EVENTS: the run's last lines are what CI shows).
# The harness's test of this (interop/check.sh runs one): PATH_KILL_AFTER
# or PATH_KILL_DURING=SCENARIO kills the path after the scenario's checks
# or before its script (so that it fails and is re-run), as
# PATH_KILL_HOW says: down (step 1 revives it), addr (eth0's addresses
# flushed: step 2), driver (virtio_net unloaded: step 3), panic (the guest
# kernel panics and QEMU exits: step 3).
PATH_REVIVED=0 RERUNS=0 PATH_STATE=ok
path_kill() { # path_kill after|during
  local v=${PATH_KILL_AFTER:-} cmd
  [ "$1" = after ] || v=${PATH_KILL_DURING:-}
  [ -n "$v" ] && [ "$v" = "$name" ] && [ "$ATTEMPT" = 1 ] || return 0
  case ${PATH_KILL_HOW:-down} in
    down) cmd="ip link set eth0 down" ;;
    addr) cmd="ip addr flush dev eth0" ;;
    driver) cmd="rmmod virtio_net" ;;
    panic) cmd="echo c > /proc/sysrq-trigger" ;;
    *) die "PATH_KILL_HOW=${PATH_KILL_HOW}: not down, addr, driver or panic" ;;
  esac
  say "PATH_KILL: $cmd ($1 $name)"
  g_run "k${SC_N}$1" "$cmd"; g_wait "k${SC_N}$1" 8 >/dev/null 2>&1 || true
}
path_ping() { # path_ping ID COUNT WAIT: the guest reaches the host over eth0
  # (busybox ping: -W waits WAIT s for the first answer; status 0 when any)
  g_run "$1" "ping -c $2 -W $3 $HOST4 >/dev/null 2>&1 && echo PATH-OK || echo PATH-DEAD"
  g_wait "$1" $((5 + $2 + $3)) >/dev/null 2>&1 || true
  ghas "$1" '^PATH-OK'
}
REVIVED_BY=
path_revived() {
  path_event "revived: $1"
  REVIVED_BY=other; case $1 in *booted*) REVIVED_BY=boot ;; esac
  PATH_STATE=revived PATH_REVIVED=$((PATH_REVIVED + 1))
  NOTES+=("the guest's eth0 path was dead after this scenario; revived: $1 ($SD/path-dead.txt)")
  say "eth0 path was dead after $name; revived: $1 (see $SD/path-dead.txt)"
}
# reboot_guest: QEMU started again; ready when the guest says GUEST-READY
# and its eth0 carries a ping (tried 3 times: the first answer may wait
# for ARP and the tap's carrier).  What happened goes to PATH_EVENTS.
reboot_guest() {
  local rc=0 i
  stop_guest
  boot_guest
  g_wait_line "$BOOTTAG" '^GUEST-READY' 150 || rc=$?
  if [ "$rc" != 0 ]; then
    path_event "boot $BOOTN: no GUEST-READY ($( [ "$rc" = 125 ] && echo "QEMU exited" || echo "not in 150 s"));" \
      "qemu.log: $(tail -n 3 "$WORK/qemu.log" 2>/dev/null | tr '\n' ' ' | cut -c1-200);" \
      "console: $(tail -n 3 "$WORK/console.log" 2>/dev/null | tr -d '\r' | tr '\n' ' ' | cut -c1-200)"
    return 1
  fi
  say "guest booted again ($BOOTTAG, qemu pid $QPID) in $(el "$TB")s"
  for i in 1 2 3; do
    if path_ping "${1}b$i" 3 5; then
      path_event "boot $BOOTN: ready in $(el "$TB") s, eth0 answered (ping try $i)"; return 0
    fi
  done
  path_event "boot $BOOTN: ready in $(el "$TB") s, eth0 silent after 3 pings x 3 tries;" \
    "tap: $(ip -n "$NS" -o link show "$TAP" 2>/dev/null | cut -c1-160)"
  return 1
}
# path_event TEXT...: one line for the run's end (the part CI shows)
PATH_EVENTS=()
path_event() { PATH_EVENTS+=("$name (attempt $ATTEMPT): $*"); say "path: $*"; }
path_check() {
  local id=p${SC_N}x$ATTEMPT
  PATH_STATE=ok REVIVED_BY=
  path_kill after
  path_ping "${id}0" 1 3 && return 0
  PATH_STATE=dead
  g_run "${id}d" "ip link show eth0; ip addr show eth0; ip neigh show; ip route; cat /proc/net/dev; grep -i virtio /proc/interrupts; cat /sys/class/net/eth0/queues/tx-0/tx_timeout; dmesg | tail -n 15"
  g_wait "${id}d" 8 >/dev/null 2>&1 || true
  { echo "== guest"; g_out "${id}d"
    echo "== host"; ip -n "$NS" -s link show "$TAP" || true
    ip -n "$NS" neigh show || true; tc -n "$NS" -s qdisc show dev "$TAP" || true
    echo "== qemu (pid $QPID)"; kill -0 "$QPID" 2>/dev/null && echo running || echo gone
    tail -n 5 "$WORK/qemu.log" 2>/dev/null
    echo "== guest console (tail)"; tail -n 20 "$WORK/console.log" | tr -d '\r' || true
  } > "$SD/path-dead.txt" 2>&1
  if kill -0 "$QPID" 2>/dev/null; then
    # the few facts that tell where it stopped, for the run's last lines
    path_event "dead; guest eth0 $(g_out "${id}d" | sed 's/^ *eth0:/eth0: /' | awk '$1 == "eth0:" { printf "rx %s pkts, tx %s pkts", $3, $11 }')," \
      "tx_timeout $(g_out "${id}d" | grep -E '^[0-9]+$' | tail -n 1)," \
      "tap $(ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/rx_packets" \
        "/sys/class/net/$TAP/statistics/tx_packets" 2>/dev/null | tr '\n' ' ')(rx tx);" \
      "dmesg: $(g_out "${id}d" | grep -aiE 'watchdog|timed out|virtio|NETDEV' | tail -n 1 | cut -c1-120);" \
      "qemu: $(tail -n 2 "$WORK/qemu.log" 2>/dev/null | tr '\n' ' ' | cut -c1-160)"
  fi
  if ! kill -0 "$QPID" 2>/dev/null; then   # QEMU is gone: only step 3 can help
    path_event "QEMU gone (guest kernel: $(tail -n 40 "$WORK/console.log" | tr -d '\r' |
      grep -aE 'panic|Oops|BUG' | tail -n 1 | cut -c1-120))"
    if reboot_guest "$id"; then path_revived "the guest booted again"; return 0; fi
    REASONS+=("the guest is gone after this scenario and did not boot again (${PATH_EVENTS[-1]#*: }; $SD/path-dead.txt)")
    return 0
  fi
  ip -n "$NS" neigh flush dev "$TAP" 2>/dev/null || true
  ip -n "$NS" link set "$TAP" down || true; ip -n "$NS" link set "$TAP" up || true
  g_run "${id}r1" "ip neigh flush dev eth0; ip link set eth0 down; ip link set eth0 up; sleep 1"
  g_wait "${id}r1" 10 >/dev/null 2>&1 || true
  if path_ping "${id}1" 3 5; then path_revived "links bounced"; return 0; fi
  # which way the bounced path fails: the counters again (did the guest's
  # ARP and pings reach the tap? did anything go back?)
  g_run "${id}d2" "cat /proc/net/dev; ip neigh show"
  g_wait "${id}d2" 8 >/dev/null 2>&1 || true
  { echo "== after step 1 (links bounced), guest"; g_out "${id}d2"
    echo "== host"; ip -n "$NS" -s link show "$TAP"; ip -n "$NS" neigh show
  } >> "$SD/path-dead.txt" 2>&1
  g_run "${id}r2" "eth0-rebind && sleep 1 && echo REBOUND"
  g_wait "${id}r2" 20 >/dev/null 2>&1 || true
  ip -n "$NS" neigh flush dev "$TAP" 2>/dev/null || true
  if ghas "${id}r2" '^REBOUND' && path_ping "${id}2" 3 5; then
    path_revived "eth0's virtio device reset"; return 0
  fi
  if reboot_guest "$id"; then path_revived "the guest booted again"; return 0; fi
  REASONS+=("the guest's eth0 path is dead after this scenario (links bounced, device reset, guest rebooted: still dead; $SD/path-dead.txt)")
}

SC_N=0
# scenario_attempt: one run of sc_$name with its checks (REASONS, NOTES)
scenario_attempt() {
  local con0; con0=$(wc -l < "$WORK/console.log")
  CAPIF=$TAP
  case $name in *_lossy_*) CAPIF=$TAPL ;; esac   # scenario 3: the emulated link
  local txd0; txd0=$(ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/tx_dropped")
  start_capture
  G="s$SC_N"       # guest command ids of this scenario: s<N>a, s<N>b, ...
  [ "$ATTEMPT" = 1 ] || G="s${SC_N}r$ATTEMPT"
  PKT_CHECKS=(); NO_TAP_TRAFFIC=0
  path_kill during
  "sc_$name" || REASONS+=("scenario script error")
  stop_capture
  local txd; txd=$(( $(ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/tx_dropped") - txd0 ))
  [ "$txd" -eq 0 ] || NOTES+=("$TAP dropped $txd packets to the guest (queue full)")
  check_capture
  local c
  # (each check records its own REASONS; "|| true" keeps set -e off inside,
  # as for the scenario script: a grep that finds nothing in a dead guest's
  # output must not end the whole run)
  for c in "${PKT_CHECKS[@]}"; do eval "$c" || true; done
  exec 8>&- 2>/dev/null || true
  # the guest kernel's complaints during this scenario (dmesg on ttyS0)
  local kw; kw=$(tail -n +"$((con0 + 1))" "$WORK/console.log" | tr -d '\r' |
    { grep -aE 'BUG|WARNING|Oops|dccp|DCCP' || true; } | sed -n 1,3p | cut -c1-160 | tr '\n' ' ')
  [ -z "$kw" ] || NOTES+=("guest kernel: $kw")
  g_out "${G}a" > "$SD/guest-a.log"; g_out "${G}b" > "$SD/guest-b.log" 2>/dev/null
  [ -s "$SD/guest-b.log" ] || rm -f "$SD/guest-b.log"
  path_check
}
run_scenario() { # run_scenario NAME DESCRIPTION
  local name=$1 desc=$2
  if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then return 0; fi
  SC_N=$((SC_N + 1))
  SD=$OUT/$name; [ "$REP" = 1 ] || SD=$OUT/$name.$REP; mkdir -p "$SD"
  REASONS=(); NOTES=(); CAPSUM=; ATTEMPT=1
  local ts; ts=$(date +%s.%N)
  if [ "$(el "$TS0" | cut -d. -f1)" -ge "$BUDGET" ]; then
    REASONS+=("no time left (BUDGET=${BUDGET}s)")
  elif ! kill -0 "$QPID" 2>/dev/null; then
    REASONS+=("the guest is gone")
  else
    scenario_attempt
    # A scenario that failed with the path dead after it runs again (at
    # most twice, 4 re-runs per run) on a freshly booted guest: a path that
    # came back after a link bounce or a device reset may hold what killed it.
    local rr=()
    while [ ${#REASONS[@]} -gt 0 ] && [ "$PATH_STATE" = revived ] && [ "$ATTEMPT" -lt 3 ] &&
          [ "$RERUNS" -lt 4 ] && [ "$(el "$TS0" | cut -d. -f1)" -lt "$BUDGET" ]; do
      local nr=${#REASONS[@]} first=${REASONS[0]} a=attempt$ATTEMPT
      printf '%s\n' "${REASONS[@]}" > "$SD/FAILED"
      printf '%s\n' "${NOTES[@]}" > "$SD/NOTES"
      mkdir -p "$SD/$a"
      find "$SD" -mindepth 1 -maxdepth 1 ! -name 'attempt*' -exec mv -t "$SD/$a" {} +
      rr+=("RE-RUN: attempt $ATTEMPT had $nr failed check(s) and the guest's eth0 path dead after it (the first: ${first:0:120}; all in $SD/$a/FAILED, path-dead.txt)")
      if [ "$REVIVED_BY" != boot ] && ! reboot_guest "p${SC_N}f$ATTEMPT"; then
        REASONS=("attempt $ATTEMPT failed ($first) and the guest did not boot again for a re-run")
        break
      fi
      RERUNS=$((RERUNS + 1)) ATTEMPT=$((ATTEMPT + 1))
      REASONS=(); NOTES=()
      say "re-running $name (attempt $ATTEMPT): the guest's eth0 path was dead after it ($nr failed check(s), the first: $first)"
      scenario_attempt
    done
    NOTES+=("${rr[@]}")
  fi
  local d; d=$(el "$ts")
  if [ ${#REASONS[@]} -eq 0 ]; then
    local nt=
    [ ${#NOTES[@]} -eq 0 ] || nt="; note: $(printf '%s; ' "${NOTES[@]}")"
    NPASS=$((NPASS + 1)); RESULTS+=("PASS $name (${d}s, $CAPSUM${nt%; })")
    say "PASS $name: $desc (${d}s, $CAPSUM${nt%; })"
  else
    NFAIL=$((NFAIL + 1))
    [ ! -f "$SD/capture.pcap" ] || dump_capture
    local r; r=$(printf '%s; ' "${REASONS[@]}")
    RESULTS+=("FAIL $name: ${r%; }")
    say "FAIL $name: $desc (${d}s)"
    printf '       - %s\n' "${REASONS[@]}"
    printf '%s\n' "${REASONS[@]}" > "$SD/FAILED"
  fi
}

# shellcheck source=interop/scenarios.sh
. "$SRC/interop/scenarios.sh"
# BUDGET counts from here: the build before (1-2 min, more on a loaded
# machine) is bounded by check.sh's TIMEOUT only
TS0=$(date +%s.%N)
# REPEAT=N runs the (ONLY-selected) scenarios N times, the later rounds'
# artifacts in NAME.2, NAME.3...: for hunting a rare failure (with BUDGET
# raised to match)
for REP in $(seq 1 "$REPEAT"); do run_all_scenarios; done

# The capture check must be able to fail: one flipped byte (in the sequence
# number of the first IPv4 DCCP packet) in a copy of a capture must be
# reported.
selftest_capture_check() {
  local f= c
  SD=$OUT/selftest; mkdir -p "$SD"
  # the first capture that has an IPv4 DCCP packet (not the loopback-only
  # side-by-side one)
  for c in "$OUT"/*/capture.pcap; do
    [ -f "$c" ] && [ "$c" != "$SD/capture.pcap" ] || continue
    if corrupt_one "$c" "$SD/capture.pcap"; then f=$c; break; fi
  done
  [ -n "$f" ] || { say "selftest: no IPv4 DCCP packet to corrupt"; return 0; }
  REASONS=(); NOTES=(); PKT_CHECKS=()
  check_capture
  if [ ${#REASONS[@]} -eq 0 ]; then
    NFAIL=$((NFAIL + 1)); RESULTS+=("FAIL capture-check selftest: a corrupted packet went unnoticed")
  else
    say "capture-check selftest: corrupted copy of ${f#"$OUT"/} flagged (${REASONS[0]})"
  fi
}
corrupt_one() {  # corrupt_one IN OUT: flip a sequence number byte
  python3 - "$1" "$2" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 24                                   # pcap file header
while off + 16 <= len(d):
    incl = struct.unpack_from('<I', d, off + 8)[0]
    pkt = off + 16                         # Ethernet frame
    if d[pkt + 12:pkt + 14] == b'\x08\x00' and d[pkt + 23] == 33:
        ihl = (d[pkt + 14] & 15) * 4
        d[pkt + 14 + ihl + 10] ^= 0xFF     # DCCP sequence number byte
        open(sys.argv[2], 'wb').write(d)
        sys.exit(0)
    off = pkt + incl
sys.exit(1)
PY
}
selftest_capture_check

g_run QUIT ""
for i in $(seq 1 30); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
cp "$WORK/console.log" "$OUT/console.log" 2>/dev/null || true
cp "$CTL" "$OUT/guest-ctl.log" 2>/dev/null || true
echo
echo "================ kernel interop summary (artifacts: $OUT) ================"
printf '%s\n' "${RESULTS[@]}"
[ ${#SKIPPED[@]} -eq 0 ] || printf 'SKIP %s\n' "${SKIPPED[@]}"
if grep -aqiE 'BUG:|WARNING:|Oops|general protection' "$WORK/console.log"; then
  # each distinct complaint once, with its count (the kernel's CCID 3
  # prints its tx_t_ipi assertion hundreds of times in the side-by-side run)
  echo "guest kernel log has warnings (count, message):"
  tr -d '\r' < "$WORK/console.log" | grep -aiE 'BUG:|WARNING:|Oops|general protection' |
    sed 's/^\[ *[0-9.]*\] //' | sort | uniq -c | sort -rn | sed -n 1,8p | cut -c1-200
fi
if [ ${#PATH_EVENTS[@]} -gt 0 ]; then
  echo "guest eth0 path events (details in each scenario's path-dead.txt):"
  printf '  %s\n' "${PATH_EVENTS[@]}" | cut -c1-400
fi
[ "$PATH_REVIVED" = 0 ] || say "the guest's eth0 path went dead and was revived $PATH_REVIVED time(s), $RERUNS scenario(s) re-run"
say "total $(el "$T0")s (guest booted $BOOTN time(s), first up $(el "$TB0")s)"
echo "$NPASS passed, $NFAIL failed${SKIPPED[*]:+, ${#SKIPPED[@]} skipped}"
[ "$NFAIL" = 0 ]
