# SPDX-License-Identifier: MIT
# Sourced by tests/*.sh (sh; tools_env.sh sources it): waiting for a
# listener started in the background to be ready, instead of a fixed
# sleep.  A client started before the listener's socket exists is refused
# at once (ICMP port unreachable), and "sleep 0.3" or "0.5" was not enough
# for an ASan listener on a loaded machine.

# wait_proc PATTERN SECONDS FILE...: waits until the local-address field
# of a socket line in FILE... (/proc/net/*) matches PATTERN; returns 1 if
# none does after SECONDS.
wait_proc() {
  _wp_pat=$1
  _wp_n=$(($2 * 20))
  shift 2
  _wp_i=0
  while ! awk '{print $2}' "$@" 2>/dev/null | grep -q "$_wp_pat"; do
    _wp_i=$((_wp_i + 1))
    [ "$_wp_i" -gt "$_wp_n" ] && return 1
    sleep 0.05
  done
  return 0
}

# wait_udp_port PORT SECONDS: waits until a local UDP socket is bound to
# PORT; returns 1 if none is after SECONDS.
wait_udp_port() {
  wait_proc ":$(printf '%04X' "$1")\$" "$2" /proc/net/udp /proc/net/udp6
}

# wait_raw_dccp SECONDS: waits until a raw socket of IP protocol 33 (DCCP)
# exists, as a native-DCCP (--raw) listener opens (/proc/net/raw shows
# the protocol in the port field); returns 1 if none is after SECONDS.
wait_raw_dccp() {
  wait_proc ':0021$' "$1" /proc/net/raw /proc/net/raw6
}
