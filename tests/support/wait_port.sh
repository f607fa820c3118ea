# SPDX-License-Identifier: MIT
# Sourced by tests/*.sh (sh; tools_env.sh sources it): waiting for a
# listener started in the background to be ready, instead of a fixed
# sleep.  A client started before the listener's socket exists is refused
# at once (ICMP port unreachable), and "sleep 0.3" or "0.5" was not enough
# for an ASan listener on a loaded machine.

# wait_udp_port PORT SECONDS: waits until a local UDP socket is bound to
# PORT; returns 1 if none is after SECONDS.
wait_udp_port() {
  hex=$(printf '%04X' "$1")
  i=0
  while ! awk '{print $2}' /proc/net/udp /proc/net/udp6 2>/dev/null |
        grep -q ":$hex\$"; do
    i=$((i + 1))
    [ "$i" -gt $(($2 * 20)) ] && return 1
    sleep 0.05
  done
  return 0
}

# wait_raw_dccp SECONDS: waits until a raw socket of IP protocol 33 (DCCP)
# exists, as a native-DCCP (--raw) listener opens (/proc/net/raw shows
# the protocol in the port field); returns 1 if none is after SECONDS.
wait_raw_dccp() {
  i=0
  while ! awk '{print $2}' /proc/net/raw /proc/net/raw6 2>/dev/null |
        grep -q ":0021\$"; do
    i=$((i + 1))
    [ "$i" -gt $(($1 * 20)) ] && return 1
    sleep 0.05
  done
  return 0
}
