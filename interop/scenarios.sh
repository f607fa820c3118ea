# SPDX-License-Identifier: MIT
# interop/scenarios.sh -- the scenarios of the kernel interop run, sourced by
# interop/run.sh (which provides g_run/g_wait/g_out, host_bg/host_wait,
# has/ghas, tcount, $CAT $PERF $UHOST, addresses, and checks every capture
# for Malformed packets, bad checksums and ICMP unreachables).
#
# "k2u" = kernel client -> udccp server, "u2k" = udccp client -> kernel
# server.  Guest command ids are ${G}a, ${G}b; host logs are $SD/<name>.log.
# A scenario adds to REASONS what went wrong, with the evidence.
# shellcheck shell=bash disable=SC2154

PERF_SVC=0x50455246   # udccp-perf's Service Code "PERF"

# ---------------------------------------------------------------- helpers
# wait for a host program's listening socket to exist (the raw endpoint is
# open once the process printed LISTENING / has run a moment)
host_ready() { sleep 0.8; }

# A FIFO as a host program's stdin: feed_open, then HOST_STDIN=$SD/stdin
# host_bg ...; feed TEXT writes to it; feed_close gives the program EOF.
feed_open() { rm -f "$SD/stdin"; mkfifo "$SD/stdin"; exec 8<>"$SD/stdin"; }
feed() { printf '%b' "$1" >&8; }
feed_close() { exec 8>&- 2>/dev/null || true; }
# host_wait_line NAME ERE SECS: wait until the host log has a matching line
host_wait_line() {
  local end=$(( $(date +%s) + $3 ))
  while [ "$(date +%s)" -le "$end" ]; do
    grep -Eq "$2" "$SD/$1.log" 2>/dev/null && return 0
    sleep 0.1
  done
  return 124
}

# guest_ok ID SECS: the guest command ended with status 0
guest_ok() {
  local rc=0
  g_wait "$1" "$2" || rc=$?
  [ "$rc" = 0 ] || REASONS+=("guest '$1' exit status $rc: $(g_out "$1" | grep -E 'ERROR|FAILED|TIMEOUT|CLOSED|ABORT' | tr '\n' ' ' | cut -c1-300)")
}
# host_ok NAME: the host program ended with status 0
host_ok() {
  local rc=0
  host_wait "$1" || rc=$?
  [ "$rc" = 0 ] || REASONS+=("host '$1' exit status $rc: $(grep -vE '^(RECV|SENT) ' "$SD/$1.log" | tail -n 4 | tr '\n' ' ' | cut -c1-300)")
}
expect_guest() { ghas "$1" "$2" || REASONS+=("guest '$1': no line matching /$2/ ($3)"); }
expect_host() { has "$1" "$2" || REASONS+=("host '$1': no line matching /$2/ ($3)"); }
# expect_pkts FILTER MIN WHAT: at least MIN packets of the capture match
# (checked once the capture has stopped)
expect_pkts() { PKT_CHECKS+=("$(printf 'check_pkts %q %q %q' "$1" "$2" "$3")"); }
check_pkts() {
  local n; n=$(tcount "$1")
  [ "$n" -ge "$2" ] || REASONS+=("capture: $n packet(s) '$1', expected >= $2 ($3)")
}
# expect_no_pkts FILTER WHAT: no packet of the capture matches
expect_no_pkts() { PKT_CHECKS+=("$(printf 'check_no_pkts %q %q' "$1" "$2")"); }
check_no_pkts() {
  local n; n=$(tcount "$1")
  [ "$n" = 0 ] || REASONS+=("capture: $n packet(s) '$1', expected none ($2)")
}
# Every Change option the kernel sends in the handshake must be answered
# by a Confirm of the same feature from udccp (RFC 4340 §6.2; Linux resets
# the connection otherwise).  featcheck.py prints the whole negotiation.
expect_confirms() { PKT_CHECKS+=("check_confirms $GUEST4"); }
check_confirms() {
  local r rc=0
  r=$(tshark -n -r "$SD/capture.pcap" -Y dccp -T fields -E separator='|' \
        -E occurrence=a -e ip.src -e ipv6.src -e dccp.type -e dccp.option_type \
        -e dccp.feature_number 2>/dev/null | python3 "$SRC/interop/featcheck.py" "$1") || rc=$?
  echo "$r" > "$SD/features.txt"
  # (a run with no NOT CONFIRMED line, e.g. "no DCCP packets", must not
  # end the harness: grep's status 1 under set -e and pipefail did)
  [ "$rc" = 0 ] ||
    REASONS+=("feature negotiation: $(echo "$r" | { grep 'NOT CONFIRMED' || echo "$r"; } | tr '\n' ';')")
}

# After its Close, an endpoint sends nothing but Close retransmissions
# (RFC 4340 §8.3: CLOSING waits for the Reset).  A stray Ack there is
# answered by Linux, already CLOSED, with Reset(No Connection).
expect_quiet_after_close() { PKT_CHECKS+=("check_quiet_after_close $1"); }
check_quiet_after_close() {
  local r
  r=$(tshark -n -r "$SD/capture.pcap" -Y dccp -T fields -E separator=' ' \
        -e frame.number -e ip.src -e ipv6.src -e dccp.type 2>/dev/null |
      awk -v src="$1" '$2 == src && $3 == 6 && !c { c = $1; next }
                       c && $2 == src && $3 != 6 && $3 != 7 { n++; f = f " " $1 "(type " $3 ")" }
                       END { if (n) print n " packet(s) after its Close, frames" f }')
  [ -z "$r" ] || REASONS+=("$1 sent $r")
}

# ------------------------------------------------ 1. handshake + data + close
sc_k2u_basic() {  # kernel client -> udccp-cat -l: data both ways, client Close
  local p=5011
  feed_open; feed 'udccp-msg-0\nudccp-msg-1\n'
  HOST_STDIN=$SD/stdin host_bg srv 25 "$CAT" -l --raw -p $p --service 43 -w 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 43 --send 3 --expect 2 --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_guest "${G}a" 'CONNECTED tx_ccid=2 rx_ccid=2' "kernel default CCID 2 both ways"
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's first datagram"
  expect_guest "${G}a" 'RECV .*udccp-msg-1' "udccp's second datagram"
  for i in 0 1 2; do expect_host srv "kernel-msg-$i" "kernel datagram $i at udccp"; done
  expect_pkts "dccp.type == 6 && ip.src == $GUEST4" 1 "kernel Close"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $HOST4" 1 "udccp Reset(Closed)"
  expect_confirms
}

# u2k_echo PORT [udccp-cat options]: udccp-cat -> kernel server, data both
# ways (the kernel sends two and echoes one), udccp closes
u2k_echo() {
  local p=$1; shift
  g_run "${G}a" "dccpt server -p $p -s 42 --send 2 --echo --close wait --wait 15"
  g_wait_line "${G}a" '^LISTENING' 10
  feed_open; feed 'udccp-msg-0\n'
  HOST_STDIN=$SD/stdin host_bg cli 25 "$CAT" "$@" --raw -p "$p" --service 42 "$GUEST4"
  # EOF (udccp's Close) once the kernel's echo is back
  host_wait_line cli 'udccp-msg-0' 10 || REASONS+=("no echo from the kernel within 10 s")
  feed_close
  host_ok cli
  guest_ok "${G}a" 20
  expect_guest "${G}a" 'CONNECTED tx_ccid=2 rx_ccid=2' "kernel default CCID 2 both ways"
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram at the kernel"
  expect_guest "${G}a" 'PEER-CLOSED' "recv() == 0 after udccp's Close"
  expect_host cli 'kernel-msg-0' "kernel datagram 0 at udccp"
  expect_host cli 'kernel-msg-1' "kernel datagram 1 at udccp"
  expect_host cli 'udccp-msg-0' "the kernel's echo at udccp"
  expect_pkts "dccp.type == 6 && ip.src == $HOST4" 1 "udccp Close"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $GUEST4" 1 "kernel Reset(Closed)"
  expect_quiet_after_close "$HOST4"
  expect_confirms
}
sc_u2k_basic() { u2k_echo 5012; }  # udccp-cat -> kernel server

# ------------------------------------------------------------ 2. bulk
# kernel client sends to udccp-perf -s (udccp-perf's own protocol, spoken
# by dccpt --perf)
bulk_k2u() {  # bulk_k2u CCID PORT [-R]
  local ccid=$1 p=$2 rev=${3:-}
  host_bg srv 40 "$PERF" -s --raw -p "$p" -1
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s $PERF_SVC --ccid $ccid --perf -t 3 $rev --alarm 60"
  guest_ok "${G}a" 40
  host_ok srv
  expect_guest "${G}a" "CONNECTED tx_ccid=$ccid rx_ccid=$ccid" "CCID $ccid negotiated"
  if [ -z "$rev" ]; then
    expect_guest "${G}a" 'PERF-TX pkts=[1-9][0-9]{2,}.*result=yes' "kernel sent >= 100 pkts and got RESULT"
    expect_host srv 'received [1-9][0-9]{2,} pkts' "udccp received >= 100 pkts"
  else
    expect_guest "${G}a" 'PERF-RX pkts=[1-9][0-9]{2,}' "kernel received >= 100 pkts"
  fi
  expect_guest "${G}a" '^KSTAT' "kernel CCID stats printed"
  bulk_notes
}
# the figures, for the summary line
bulk_notes() {
  local h k
  h=$(grep -hE 'goodput [0-9.]+ Mbit/s' "$SD"/*.log 2>/dev/null | sed -n '1s/^[a-z]*: //p')
  k=$(g_out "${G}a" | grep -E '^PERF-(TX|RX)' | tail -n1 | grep -oE 'mbit=[0-9.]+')
  NOTES+=("udccp-perf: ${h:-?}; kernel ${k:-?}")
}
bulk_u2k() {  # bulk_u2k CCID PORT [-R]
  local ccid=$1 p=$2 rev=${3:-}
  g_run "${G}a" "dccpt server -p $p -s $PERF_SVC --ccid $ccid --perf --wait 20 --alarm 60"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 40 "$PERF" -c "$GUEST4" --raw -p "$p" -t 3 --ccid "$ccid" $rev
  host_ok cli
  guest_ok "${G}a" 30
  expect_guest "${G}a" "CONNECTED tx_ccid=$ccid rx_ccid=$ccid" "CCID $ccid negotiated"
  expect_host cli 'goodput [0-9.]+ Mbit/s' "udccp-perf summary"
  if [ -z "$rev" ]; then
    expect_guest "${G}a" 'PERF-RX pkts=[1-9][0-9]{2,}' "kernel received >= 100 pkts"
  else
    expect_guest "${G}a" 'PERF-TX pkts=[1-9][0-9]{2,}.*result=yes' "kernel sent >= 100 pkts"
  fi
  expect_guest "${G}a" '^KSTAT' "kernel CCID stats printed"
  bulk_notes
}
sc_k2u_bulk_ccid2() { bulk_k2u 2 5021; }
sc_u2k_bulk_ccid2() { bulk_u2k 2 5022; }
sc_u2k_bulk_ccid2_reverse() { bulk_u2k 2 5023 -R; }
sc_k2u_bulk_ccid3() { bulk_k2u 3 5024; }
sc_u2k_bulk_ccid3() { bulk_u2k 3 5025; }

# ------------------------------------------ 3. bulk over a lossy, slow link
# The same transfers over the guest's second NIC, wired through
# udccp-linkem ($LINK_SPEC: 20 ms RTT, 1 % random loss each way; run.sh).
# Pass: the transfer completes with goodput, the link really lost packets,
# and the sending CCID reported loss: udccp-perf's ccid_lost_pkts (what
# udccp's CCID declared lost), the kernel's CCID 3 loss event rate p
# (DCCP_SOCKOPT_CCID_TX_INFO).  The kernel's CCID 2 exports no statistics:
# there the loss shows at the application (udccp-perf -s: sent > received).
# lk_lost: packets linkem has lost at random so far (both directions)
lk_lost() {
  kill -USR1 "$LKPID" 2>/dev/null; sleep 0.3
  grep -E '^udccp-linkem: (a2b|b2a) ' "$LK_LOG" | tail -n 2 |
    sed -n 's/.*lost_random=\([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}
lossy_k2u() {  # lossy_k2u CCID PORT
  local ccid=$1 p=$2 l0 l1
  l0=$(lk_lost)
  host_bg srv 40 "$PERF" -s --raw -p "$p" -1
  host_ready
  g_run "${G}a" "dccpt client $HOST4L -p $p -s $PERF_SVC --ccid $ccid --perf -t 4 --alarm 60"
  guest_ok "${G}a" 40
  host_ok srv
  l1=$(lk_lost)
  expect_guest "${G}a" "CONNECTED tx_ccid=$ccid rx_ccid=$ccid" "CCID $ccid negotiated"
  expect_guest "${G}a" 'PERF-TX pkts=[1-9][0-9]{2,}.*result=yes' "kernel sent >= 100 pkts and got RESULT"
  expect_host srv 'goodput [0-9]*[1-9][0-9.]* Mbit/s' "udccp-perf goodput > 0"
  if [ "$ccid" = 3 ]; then
    expect_guest "${G}a" 'KSTAT ccid_tx_info .* p=[1-9]' "the kernel's CCID 3 reports a loss event rate"
  else
    expect_host srv 'lost [1-9]' "datagrams lost on the way (the kernel's CCID 2 has no statistics)"
  fi
  [ $((l1 - l0)) -gt 0 ] || REASONS+=("udccp-linkem lost no packet during the transfer")
  NOTES+=("linkem lost $((l1 - l0)) pkts")
  bulk_notes
}
lossy_u2k() {  # lossy_u2k CCID PORT
  local ccid=$1 p=$2 l0 l1 j
  l0=$(lk_lost)
  if [ "$ccid" = 2 ]; then
    g_run "${G}a" "dccpt server -p $p -s $PERF_SVC --ccid $ccid --perf --wait 20 --alarm 60"
    g_wait_line "${G}a" '^LISTENING' 10
    host_bg cli 40 "$PERF" -c "$GUEST4L" --raw -p "$p" -t 4 --ccid "$ccid" -J
  else
    # udccp-perf shows no loss event rate: the host tool prints udccp's p
    g_run "${G}a" "dccpt server -p $p -s 46 --ccid $ccid --bulk-recv --rcvbuf 8388608 --wait 20"
    g_wait_line "${G}a" '^LISTENING' 10
    host_bg cli 40 "$UHOST" client "$GUEST4L" "$p" 46 --ccid "$ccid" --bulk 4 --wait 2
  fi
  host_ok cli
  guest_ok "${G}a" 30
  l1=$(lk_lost)
  expect_guest "${G}a" "CONNECTED tx_ccid=$ccid rx_ccid=$ccid" "CCID $ccid negotiated"
  [ $((l1 - l0)) -gt 0 ] || REASONS+=("udccp-linkem lost no packet during the transfer")
  if [ "$ccid" = 2 ]; then
    j=$(grep -E '^\{' "$SD/cli.log" | tail -n 1)
    expect_guest "${G}a" 'PERF-RX pkts=[1-9][0-9]{2,}' "kernel received >= 100 pkts"
    grep -Eq '"goodput_bps": [1-9]' <<< "$j" || REASONS+=("udccp-perf: no goodput ($j)")
    grep -Eq '"ccid_lost_pkts": [1-9]' <<< "$j" ||
      REASONS+=("udccp's CCID 2 declared no packet lost ($(echo "$j" | grep -oE '"ccid_lost_pkts": [0-9]+'))")
    grep -q '"complete": true' <<< "$j" || REASONS+=("udccp-perf: no final report")
    NOTES+=("linkem lost $((l1 - l0)) pkts; udccp-perf $(grep -oE '"(goodput_bps|ccid_lost_pkts)": [0-9]+' <<< "${j%%\"intervals\"*}" | tr '\n' ' ')")
  else
    expect_guest "${G}a" 'BULK-RX pkts=[1-9][0-9]{2,} .*mbit=[0-9]*[1-9]' "kernel received >= 100 pkts, goodput > 0"
    expect_host cli '^INFO .* p=0\.[0-9]*[1-9]' "udccp's CCID 3 loss event rate p > 0"
    NOTES+=("linkem lost $((l1 - l0)) pkts; kernel $(g_out "${G}a" | grep -oE 'BULK-RX pkts=[0-9]+ .*mbit=[0-9.]+' | sed 's/bytes=[0-9]* //'); udccp $(grep -oE ' p=[0-9.]+' "$SD/cli.log" | tail -n 1)")
  fi
}
sc_k2u_lossy_ccid2() { lossy_k2u 2 5031; }
sc_u2k_lossy_ccid2() { lossy_u2k 2 5032; }
sc_k2u_lossy_ccid3() { lossy_k2u 3 5033; }
sc_u2k_lossy_ccid3() { lossy_u2k 3 5034; }

# ------------------------------------------------------------ 4. closes
sc_u2k_closereq() {  # kernel server closes first: CloseReq -> udccp Close
  local p=5041
  g_run "${G}a" "dccpt server -p $p -s 42 --send 2 --expect 0 --close close --wait 15"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 20 "$CAT" --raw -d -p "$p" --service 42 "$GUEST4"
  host_ok cli
  guest_ok "${G}a" 20
  expect_host cli 'kernel-msg-1' "both kernel datagrams before the close"
  expect_pkts "dccp.type == 5 && ip.src == $GUEST4" 1 "kernel CloseReq"
  expect_pkts "dccp.type == 6 && ip.src == $HOST4" 1 "udccp Close answering it"
  expect_quiet_after_close "$HOST4"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $GUEST4" 1 "kernel Reset(Closed)"
}
sc_k2u_closereq() {  # udccp server closes first: CloseReq -> kernel Close
  local p=5042
  printf 'udccp-msg-0\n' > "$SD/stdin.txt"   # then EOF: udccp closes first
  HOST_STDIN=$SD/stdin.txt host_bg srv 25 "$CAT" -l --raw -p $p --service 43 -w 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 43 --expect 1 --close wait --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram before its close"
  expect_guest "${G}a" 'PEER-CLOSED' "recv() == 0 after udccp's CloseReq"
  expect_pkts "dccp.type == 5 && ip.src == $HOST4" 1 "udccp CloseReq"
  expect_pkts "dccp.type == 6 && ip.src == $GUEST4" 1 "kernel Close answering it"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $HOST4" 1 "udccp Reset(Closed)"
}

sc_u2k_server_close() {  # kernel server with SERVER_TIMEWAIT: Close, not CloseReq
  local p=5043
  g_run "${G}a" "dccpt server -p $p -s 42 --server-timewait --send 1 --expect 0 --close close --wait 15"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 20 "$CAT" --raw -d -p "$p" --service 42 "$GUEST4"
  host_ok cli
  guest_ok "${G}a" 20
  expect_host cli 'kernel-msg-0' "the kernel datagram before the close"
  expect_pkts "dccp.type == 6 && ip.src == $GUEST4" 1 "kernel server Close"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $HOST4" 1 "udccp Reset(Closed)"
}
sc_k2u_server_close() {  # udccp server with server_timewait: Close, not CloseReq
  local p=5044
  host_bg srv 25 "$UHOST" server "$p" 46 --server-timewait --send 1 --expect 0 --close close --wait 10
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 46 --expect 1 --close wait --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram before its close"
  expect_guest "${G}a" 'PEER-CLOSED' "recv() == 0 after udccp's Close"
  expect_pkts "dccp.type == 6 && ip.src == $HOST4" 1 "udccp server Close"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $GUEST4" 1 "kernel Reset(Closed)"
  expect_quiet_after_close "$HOST4"
}

# ------------------------------------------------------ 5. wrong service code
sc_u2k_bad_service() {  # kernel answers Reset(Bad Service Code): refused
  local p=5051
  g_run "${G}a" "dccpt server -p $p -s 42 --wait 6"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 20 "$CAT" --raw -p "$p" --service 99 -w 5 "$GUEST4" </dev/null
  local rc=0; host_wait cli || rc=$?
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || REASONS+=("udccp-cat exit status $rc, expected a refusal (1)")
  expect_host cli 'refused' "udccp-cat reports the refusal"
  g_wait "${G}a" 10 || true
  expect_guest "${G}a" 'ACCEPT-TIMEOUT' "nothing accepted by the kernel"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 8 && ip.src == $GUEST4" 1 "kernel Reset(Bad Service Code)"
}
sc_k2u_bad_service() {  # udccp answers Reset(Bad Service Code): EBADRQC
  local p=5052
  host_bg srv 15 "$CAT" -l --raw -d -p "$p" --service 43 -w 6
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 99 --wait 5"
  g_wait "${G}a" 20 || true
  host_wait srv || true
  # Linux maps Reset(Bad Service Code) to EBADRQC (dccp_reset_code_convert)
  expect_guest "${G}a" 'CONNECT-FAILED errno=EBADRQC' "connect() fails as for a Bad Service Code Reset"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 8 && ip.src == $HOST4" 1 "udccp Reset(Bad Service Code)"
}

# ------------------------------------------------------ 6. Reset mid-transfer
sc_u2k_kernel_aborts() {  # udccp-perf sends; the kernel aborts after 1.5 s
  local p=5061
  g_run "${G}a" "dccpt server -p $p -s $PERF_SVC --perf --abort-after 1.5 --wait 20"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 30 "$PERF" -c "$GUEST4" --raw -p "$p" -t 4
  local rc=0; host_wait cli || rc=$?
  guest_ok "${G}a" 20
  expect_guest "${G}a" '^ABORTED' "kernel aborted"
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || REASONS+=("udccp-perf exit status $rc, expected a failure report")
  expect_host cli 'Reset: Aborted' "udccp-perf reports the Reset code"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 2 && ip.src == $GUEST4" 1 "kernel Reset(Aborted)"
}
sc_k2u_udccp_aborts() {  # the kernel sends; udccp aborts after 1.5 s
  local p=5062
  host_bg srv 30 "$UHOST" server "$p" 44 --abort-after 1.5 --wait 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 44 --bulk-send 4 --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_host srv '^ABORTED' "udccp aborted"
  # send() says ECONNRESET (or EPIPE once that was read); ENOTCONN when
  # the Reset came while dccp_sendmsg had released the socket lock, and
  # then SO_ERROR still holds the Reset's ECONNRESET.
  expect_guest "${G}a" 'SEND-ERROR errno=(ECONNRESET|EPIPE)|SO_ERROR=ECONNRESET' "kernel send() fails after the Reset, with its ECONNRESET"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 2 && ip.src == $HOST4" 1 "udccp Reset(Aborted)"
}
sc_u2k_udccp_aborts() {  # udccp sends; udccp aborts after 1.5 s
  local p=5063
  # --rcvbuf: with the default buffer the slow (TCG) guest dropped ~200-400
  # packets at its socket (backlog full), and once the Reset among them: the
  # kernel never saw it and closed normally at its own timeout (1 run in ~5,
  # 12-07); the backlog's limit grows with SO_RCVBUF.
  g_run "${G}a" "dccpt server -p $p -s 44 --bulk-recv --rcvbuf 8388608 --wait 10"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 30 "$UHOST" client "$GUEST4" "$p" 44 --bulk 4 --abort-after 1.5
  host_ok cli
  guest_ok "${G}a" 20
  expect_host cli '^ABORTED' "udccp aborted"
  expect_guest "${G}a" 'BULK-RX pkts=[1-9]' "kernel received data before the Reset"
  expect_guest "${G}a" 'SO_ERROR=ECONNRESET' "kernel socket error ECONNRESET after Reset(Aborted)"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 2 && ip.src == $HOST4" 1 "udccp Reset(Aborted)"
}

# --------------------------------------------------- 8. checksum coverage
sc_k2u_cscov() {  # kernel sends CsCov=1 (SEND_CSCOV); udccp accepts MinCsCov 1
  local p=5081
  host_bg srv 25 "$UHOST" server "$p" 45 --min-cscov 1 --send 1 --expect 3 --close wait --wait 10
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 45 --send-cscov 1 --send 3 --expect 1 --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_host srv 'RECV .*kernel-msg-2' "all kernel datagrams (partial coverage) delivered"
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram"
  expect_pkts "dccp.cscov == 1 && dccp.type == 4 && ip.src == $GUEST4" 1 "kernel DataAck with CsCov 1"
}
sc_u2k_cscov() {  # udccp sends CsCov=1; the kernel accepts (RECV_CSCOV 1)
  local p=5082
  g_run "${G}a" "dccpt server -p $p -s 45 --recv-cscov 1 --send 1 --expect 3 --close wait --wait 10"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 25 "$UHOST" client "$GUEST4" "$p" 45 --send-cscov 1 --send 3 --expect 1
  host_ok cli
  guest_ok "${G}a" 20
  expect_guest "${G}a" 'RECV .*udccp-msg-2' "all udccp datagrams (partial coverage) delivered"
  expect_host cli 'RECV .*kernel-msg-0' "kernel datagram"
  expect_pkts "dccp.cscov == 1 && (dccp.type == 2 || dccp.type == 4) && ip.src == $HOST4" 1 "udccp Data/DataAck with CsCov 1"
}

# ------------------------------------------------------------ 9. IPv6
sc_k2u_ipv6() {
  local p=5091
  feed_open; feed 'udccp-msg-0\n'
  HOST_STDIN=$SD/stdin host_bg srv 25 "$CAT" -l --raw -p $p --service 43 -w 20
  host_ready
  g_run "${G}a" "dccpt client $HOST6 -6 -p $p -s 43 --send 2 --expect 1 --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram over IPv6"
  expect_host srv 'kernel-msg-1' "kernel datagrams over IPv6"
  expect_pkts "ipv6 && dccp.type == 7 && dccp.reset_code == 1" 1 "Reset(Closed) over IPv6"
}
sc_u2k_ipv6() {
  local p=5092
  g_run "${G}a" "dccpt server -6 -p $p -s 42 --send 1 --echo --close wait --wait 15"
  g_wait_line "${G}a" '^LISTENING' 10
  feed_open; feed 'udccp-msg-0\n'
  HOST_STDIN=$SD/stdin host_bg cli 25 "$CAT" --raw -p $p --service 42 "$GUEST6"
  host_wait_line cli 'udccp-msg-0' 10 || REASONS+=("no echo from the kernel within 10 s")
  feed_close
  host_ok cli
  guest_ok "${G}a" 20
  expect_guest "${G}a" 'RECV .*udccp-msg-0' "udccp's datagram over IPv6"
  expect_host cli 'kernel-msg-0' "kernel datagram over IPv6"
  expect_pkts "ipv6 && dccp.type == 7 && dccp.reset_code == 1" 1 "Reset(Closed) over IPv6"
}

# ------------------------------------------------- 4. close with data queued
sc_u2k_close_queued() {  # udccp queues 3000 datagrams and closes at once
  local p=5041 n=3000
  g_run "${G}a" "dccpt server -p $p -s 47 --bulk-recv --rcvbuf 8388608 --wait 20"
  g_wait_line "${G}a" '^LISTENING' 10
  # --send N then close(): udccp_close() drains the send queue first
  # (RFC 4340 §8.3: Close after the data), so every datagram arrives.
  host_bg cli 40 "$UHOST" client "$GUEST4" "$p" 47 --send "$n" --close now --expect 0 --wait 20
  host_ok cli
  guest_ok "${G}a" 30
  expect_guest "${G}a" "BULK-RX pkts=$n " "the kernel received all $n datagrams queued before the Close"
  expect_pkts "dccp.type == 6 && ip.src == $HOST4" 1 "udccp Close"
  expect_quiet_after_close "$HOST4"
}
sc_k2u_close_queued() {  # the kernel sends 3000 datagrams and closes at once
  local p=5042 n=3000
  host_bg srv 40 "$UHOST" server "$p" 47 --expect "$n" --close wait --wait 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 47 --send $n --close close --wait 15"
  guest_ok "${G}a" 30
  host_ok srv
  expect_host srv "PEER-CLOSED received=$n\$" "udccp received all $n datagrams before the kernel's Close"
  expect_pkts "dccp.type == 6 && ip.src == $GUEST4" 1 "kernel Close"
}

# -------------------------------------------------- 7. loss burst > window
# nftables in the host's namespace drops every DCCP packet at one hook for
# SECS seconds in the middle of a CCID 3 transfer.  CCID 3 is rate-based:
# the sender keeps sending through the blackout (its nofeedback timer only
# halves the rate), far more packets than 3/4 of its Sequence Window, so
# the receiver finds the first packets after the burst sequence-invalid and
# resynchronises with Sync/SyncAck (RFC 4340 §7.5.4, §7.5.6 example).
nft_blackhole() {  # nft_blackhole input|output SECS
  ip netns exec "$NS" nft add table inet ublack
  ip netns exec "$NS" nft add chain inet ublack c "{ type filter hook $1 priority 0; }"
  ip netns exec "$NS" nft add rule inet ublack c meta l4proto 33 counter drop
  sleep "$2"
  ip netns exec "$NS" nft list table inet ublack > "$SD/nft.txt" 2>&1
  ip netns exec "$NS" nft delete table inet ublack
  BURST=$(sed -n 's/.*counter packets \([0-9]*\).*/\1/p' "$SD/nft.txt" | sed -n 1p)
  NOTES+=("burst: ${BURST:-?} packets dropped at $1")
}
# expect_resync SENDER RECEIVER: the receiver Synced, the sender SyncAcked,
# and the sender's data got through after the SyncAck.
expect_resync() { PKT_CHECKS+=("check_resync $1 $2"); }
check_resync() {
  local r
  r=$(tshark -n -r "$SD/capture.pcap" -Y dccp -T fields -E separator=' ' \
        -e frame.number -e ip.src -e dccp.type -e dccp.seq -e dccp.ack 2>/dev/null |
      awk -v snd="$1" -v rcv="$2" '
        $2 == rcv && $3 == 8 && !sync { sync = $1 }
        $2 == snd && $3 == 9 && sync && !sack { sack = $1 }
        sack && $2 == snd && ($3 == 2 || $3 == 4) { after++; if (!first) first = $4 }
        first && $2 == rcv && $5 != "" && $5 >= first && !acked { acked = $1 }
        END { printf "%d %d %d %d", sync, sack, after, acked }')
  set -- $r
  [ "${1:-0}" != 0 ] || { REASONS+=("no Sync from the receiver after the burst"); return; }
  [ "${2:-0}" != 0 ] || { REASONS+=("no SyncAck from the sender after the receiver's Sync"); return; }
  # After a long blackout the sending CCID may have backed off far (CCID
  # 3's nofeedback timer halves X down to s/t_mbi, RFC 5348 §4.4): what
  # the resync must give is data that the receiver accepts again.
  [ "${3:-0}" -ge 1 ] || REASONS+=("no data packet after the SyncAck: the transfer did not resume")
  [ "${4:-0}" != 0 ] || REASONS+=("the receiver acknowledged no data packet sent after the SyncAck")
  NOTES+=("Sync frame $1, SyncAck frame $2, $3 data packets after it, first acked in frame $4")
}
# expect_resume SENDER RECEIVER: after the longest gap in the sender's
# sequence numbers (the burst, dropped before the capture point), the
# receiver acknowledges the first packet after it, either at once (the
# packet was sequence-valid) or after a Sync answered by a SyncAck.
# Records the gap and which of the two happened.
expect_resume() { PKT_CHECKS+=("check_resume $1 $2"); }
check_resume() {
  local r
  r=$(tshark -n -r "$SD/capture.pcap" -Y dccp -T fields -E separator=' ' \
        -e frame.number -e ip.src -e dccp.type -e dccp.seq -e dccp.ack \
        -e dccp.reset_code 2>/dev/null |
      awk -v snd="$1" -v rcv="$2" '
        { fr[NR] = $1; src[NR] = $2; ty[NR] = $3; sq[NR] = $4; ak[NR] = $5; rc[NR] = $6 }
        $2 == snd && ($3 == 2 || $3 == 4) {
          if (last != "" && $4 - last > gap) { gap = $4 - last; s1 = $4; at = NR }
          last = $4 }
        END {
          for (i = at; i <= NR; i++) {
            if (src[i] == rcv && ty[i] == 8 && !sync) sync = fr[i]
            if (src[i] == snd && ty[i] == 9 && sync && !sack) sack = fr[i]
            if (src[i] == rcv && ty[i] == 7 && rc[i] != 1) reset = fr[i]
            if (src[i] == rcv && ak[i] != "" && ak[i] >= s1 && ty[i] != 8 && !acked) acked = fr[i]
            if (src[i] == snd && (ty[i] == 2 || ty[i] == 4)) after++
          }
          printf "%d %d %d %d %d %d", gap - 1, acked, sync, sack, reset, after }')
  set -- $r
  NOTES+=("gap of ${1:-?} seqnos in the capture; first packet after it acked in frame ${2:-0}; Sync frame ${3:-0}, SyncAck frame ${4:-0}")
  [ "${5:-0}" = 0 ] || REASONS+=("the receiver sent a Reset other than Closed (frame $5) after the burst")
  [ "${2:-0}" != 0 ] || REASONS+=("the receiver never acknowledged the first packet after the burst")
  [ "${3:-0}" = 0 ] || [ "${4:-0}" != 0 ] || REASONS+=("the receiver Synced (frame $3) but no SyncAck came back")
  [ "${6:-0}" -ge 50 ] || REASONS+=("only ${6:-0} data packets after the burst: the transfer did not resume")
}
# udccp sends (CCID 3); its packets vanish for 1 s at the host's output.
# What the RFC asks here depends on udccp's own Sequence Window W (the
# feature Sequence Window/udccp sets the kernel's [SWL, SWH] for udccp's
# packets, RFC 4340 §7.5.1-2): udccp widens W to about five times what it
# sends per RTT (§7.5.2; ~750 in this transfer), while CCID 3's nofeedback
# timer halves the rate every few RTTs of the blackout (RFC 5348 §4.4), so
# the burst (~200-300 packets) stays below 3W/4 and the first packet after
# it is sequence-valid: the kernel acknowledges it, no Sync is due
# (§7.5.3).  A burst longer than the window, and the Sync/SyncAck it
# forces, needs a sender that keeps sending into the blackout against a
# fixed W = 100: that is the kernel, in k2u_loss_burst.  Should a Sync
# come here anyway (e.g. acknowledgement numbers below the kernel's
# AWL), udccp must answer it with a SyncAck.
# The blackout lasts 1 s: after T seconds without feedback CCID 3 sends
# about 4/T packets a second (nofeedback halvings, RFC 5348 §4.4), and
# Linux's CCID 3 receiver gives no feedback until 3 packets have followed
# the hole (its loss detection), so a 2 s blackout meant ~3 s of silence
# before the rate could climb again, longer than the rest of the transfer.
sc_u2k_loss_burst() {
  local p=5071
  g_run "${G}a" "dccpt server -p $p -s 46 --ccid 3 --bulk-recv --wait 20"
  g_wait_line "${G}a" '^LISTENING' 10
  host_bg cli 40 "$UHOST" client "$GUEST4" "$p" 46 --ccid 3 --bulk 8 --expect 0
  sleep 2
  # CCID 3's nofeedback timer (RFC 5348 §4.4, 4 R at sub-ms RTT) brings
  # the rate to its floor within tens of ms of the blackout, so the burst
  # is what was in flight then: 200+ packets at full rate, a few dozen if
  # the 1-vCPU guest (busy after earlier scenarios) slowed CCID 3 at the
  # start.  20 is a burst; what is checked is the recovery after it.
  nft_blackhole output 1
  host_ok cli
  guest_ok "${G}a" 30
  [ "${BURST:-0}" -ge 20 ] || REASONS+=("the burst dropped only ${BURST:-0} packets")
  expect_guest "${G}a" 'BULK-RX pkts=[1-9]' "the kernel received data"
  expect_resume "$HOST4" "$GUEST4"
}
sc_k2u_loss_burst() {  # the kernel sends CCID 3; its packets vanish for 1 s
  local p=5072
  host_bg srv 40 "$UHOST" server "$p" 46 --ccid 3 --close wait --wait 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 46 --ccid 3 --bulk-send 5 --wait 15"
  sleep 2
  nft_blackhole input 1
  guest_ok "${G}a" 30
  host_ok srv
  [ "${BURST:-0}" -ge 100 ] || REASONS+=("the burst dropped only ${BURST:-0} packets (< 100, udccp's Sequence Window)")
  expect_host srv 'syncs_sent=[1-9]' "udccp sent Sync"
  expect_resync "$GUEST4" "$HOST4"
}

# ------------------------------------ side by side, inside the guest
# The kernel's DCCP on the guest's loopback (dccpt --perf at both ends)
# against udccp-perf (static, DCCP-UDP) on the same loopback: the same
# single CPU, the same kernel, one after the other.
sc_guest_side_by_side() {
  local ccid kt ut
  NO_TAP_TRAFFIC=1  # everything runs on the guest's loopback
  for ccid in 2 3; do
    g_run "${G}k$ccid" "dccpt server -p 509$ccid -s $PERF_SVC --ccid $ccid --perf --wait 20 --alarm 40"
    g_wait_line "${G}k$ccid" '^LISTENING' 10
    g_run "${G}c$ccid" "dccpt client 127.0.0.1 -p 509$ccid -s $PERF_SVC --ccid $ccid --perf -t 3 --alarm 40"
    g_wait "${G}c$ccid" 30 || REASONS+=("kernel CCID $ccid loopback run failed")
    g_wait "${G}k$ccid" 10 || true
    kt=$(g_out "${G}c$ccid" | grep -E '^PERF-TX' | grep -oE 'mbit=[0-9.]+' | cut -d= -f2)
    g_run "${G}s$ccid" "udccp-perf -s -1 -p 519$ccid"
    sleep 1
    g_run "${G}u$ccid" "udccp-perf -c 127.0.0.1 -p 519$ccid -t 3 --ccid $ccid"
    g_wait "${G}u$ccid" 30 || REASONS+=("udccp-perf CCID $ccid loopback run failed")
    g_wait "${G}s$ccid" 10 || true
    ut=$(g_out "${G}u$ccid" | grep -oE 'goodput [0-9.]+ Mbit/s' | tail -n1 | cut -d' ' -f2)
    [ -n "$kt" ] || REASONS+=("no kernel CCID $ccid figure")
    [ -n "$ut" ] || REASONS+=("no udccp CCID $ccid figure: $(g_out "${G}u$ccid" | tail -n 2 | tr '\n' ' ')")
    SIDE+=("$(printf '  CCID %s   kernel DCCP %10s Mbit/s   udccp DCCP-UDP %10s Mbit/s' "$ccid" "${kt:-?}" "${ut:-?}")")
  done
  NOTES+=("in-guest loopback, 1 vCPU: $(printf '%s;' "${SIDE[@]}" | tr -s ' ')")
}

# ------------------------------------- 10. Multipath DCCP: fallback (§3.6)
# udccp with multipath on (RFC 9897) against the kernel, which knows
# neither feature 10 (Multipath Capable) nor option 46 (Multipath): the
# connection must fall back to plain DCCP on its one subflow and carry
# the data of scenario 1 (issue 16, acceptance 3).  udccp-cat -v says
# "multipath off" when the peer did not agree.  Linux answers Change
# R(10) with an empty Confirm L(10) (RFC 4340 §6.6.7) and skips option 46
# ("option 46 not implemented, ignoring" on its console, §5.8).  The
# client knows from the Response, in PARTOPEN, and must act on it there:
# the kernel server of u2k_mp_fallback sends at once (its first datagram
# must not wait for MP_SEQ order), the one of u2k_mp_fallback_bulk sends
# nothing until udccp's data comes (udccp must not wait for OPEN).
sc_u2k_mp_fallback() {  # udccp-cat --multipath -> kernel server
  u2k_echo 5101 --multipath -v
  expect_host cli 'multipath off \(plain DCCP.*, 1 path,' "udccp-cat reports the fallback, one subflow"
  # §3.1: the Request offers Multipath Capable and carries MP_KEY
  expect_pkts "dccp.type == 0 && ip.src == $HOST4 && dccp.feature_number == 10" 1 "udccp's Request: Change R(Multipath Capable)"
  expect_pkts "dccp.type == 0 && ip.src == $HOST4 && dccp.option_type == 46" 1 "udccp's Request: Multipath option (MP_KEY)"
  # RFC 4340 §6.6.7: an unknown feature gets an empty Confirm
  expect_pkts "dccp.type == 1 && ip.src == $GUEST4 && dccp.option_type == 33 && dccp.feature_number == 10" 1 "kernel Response: empty Confirm L(Multipath Capable)"
  expect_no_pkts "dccp.type != 0 && dccp.option_type == 46" "after the Request, no Multipath option: plain DCCP"
  expect_no_pkts "dccp.type == 7 && dccp.reset_code != 1" "no Reset but Closed"
}
sc_u2k_mp_fallback_bulk() {  # udccp-cat --multipath sends 1000 datagrams, closes
  local p=5102 n=1000
  g_run "${G}a" "dccpt server -p $p -s 47 --bulk-recv --rcvbuf 8388608 --wait 20"
  g_wait_line "${G}a" '^LISTENING' 10
  seq -f 'udccp-mp-%g' 1 $n > "$SD/stdin.txt"
  HOST_STDIN=$SD/stdin.txt host_bg cli 40 "$CAT" --multipath --raw -v -p $p --service 47 "$GUEST4"
  host_ok cli
  guest_ok "${G}a" 30
  expect_guest "${G}a" "BULK-RX pkts=$n " "the kernel received all $n datagrams"
  expect_host cli 'multipath off \(plain DCCP.*, 1 path,' "udccp-cat reports the fallback, one subflow"
  expect_no_pkts "dccp.type != 0 && dccp.option_type == 46" "after the Request, no Multipath option: plain DCCP"
  expect_pkts "dccp.type == 6 && ip.src == $HOST4" 1 "udccp Close"
}
sc_k2u_mp_fallback() {  # kernel client -> udccp-cat -l --multipath
  local p=5103
  feed_open; feed 'udccp-msg-0\nudccp-msg-1\n'
  HOST_STDIN=$SD/stdin host_bg srv 25 "$CAT" -l --multipath --raw -v -p $p --service 43 -w 20
  host_ready
  g_run "${G}a" "dccpt client $GUEST_HOST4 -p $p -s 43 --send 3 --expect 2 --wait 10"
  guest_ok "${G}a" 30
  host_ok srv
  expect_guest "${G}a" 'CONNECTED tx_ccid=2 rx_ccid=2' "kernel default CCID 2 both ways"
  expect_guest "${G}a" 'RECV .*udccp-msg-1' "udccp's datagrams"
  for i in 0 1 2; do expect_host srv "kernel-msg-$i" "kernel datagram $i at udccp"; done
  expect_host srv 'multipath off \(plain DCCP.*, 1 path,' "udccp-cat reports the fallback, one subflow"
  # the kernel's Request does not offer it, so udccp must not either
  expect_no_pkts "dccp.feature_number == 10" "Multipath Capable negotiated by neither side"
  expect_no_pkts "dccp.option_type == 46" "no Multipath option: plain DCCP"
  expect_pkts "dccp.type == 7 && dccp.reset_code == 1 && ip.src == $HOST4" 1 "udccp Reset(Closed)"
  expect_confirms
}

run_all_scenarios() {
  GUEST_HOST4=$HOST4
  run_scenario k2u_basic        "1 kernel client -> udccp server: service code, features, data both ways, close"
  run_scenario u2k_basic        "1 udccp client -> kernel server: service code, features, data both ways, close"
  run_scenario k2u_bulk_ccid2   "2 bulk CCID 2, kernel -> udccp-perf -s"
  run_scenario u2k_bulk_ccid2   "2 bulk CCID 2, udccp-perf -c -> kernel"
  run_scenario u2k_bulk_ccid2_reverse "2 bulk CCID 2, udccp-perf -c -R: kernel server sends"
  run_scenario k2u_bulk_ccid3   "2 bulk CCID 3, kernel -> udccp-perf -s"
  run_scenario u2k_bulk_ccid3   "2 bulk CCID 3, udccp-perf -c -> kernel"
  run_scenario k2u_lossy_ccid2  "3 bulk CCID 2 over linkem ($LINK_SPEC), kernel -> udccp-perf -s"
  run_scenario u2k_lossy_ccid2  "3 bulk CCID 2 over linkem ($LINK_SPEC), udccp-perf -c -> kernel"
  run_scenario k2u_lossy_ccid3  "3 bulk CCID 3 over linkem ($LINK_SPEC), kernel -> udccp-perf -s"
  run_scenario u2k_lossy_ccid3  "3 bulk CCID 3 over linkem ($LINK_SPEC), udccp-interop-host -> kernel"
  run_scenario u2k_close_queued "4 udccp client closes with 3000 datagrams queued: all arrive"
  run_scenario k2u_close_queued "4 kernel client closes with 3000 datagrams queued: all arrive"
  run_scenario u2k_closereq     "4 kernel server closes: CloseReq -> udccp client"
  run_scenario k2u_closereq     "4 udccp server closes: CloseReq -> kernel client"
  run_scenario u2k_server_close "4 kernel server closes with SERVER_TIMEWAIT: Close -> udccp client"
  run_scenario k2u_server_close "4 udccp server closes with server_timewait: Close -> kernel client"
  run_scenario u2k_bad_service  "5 udccp client, wrong service code: kernel refuses"
  run_scenario k2u_bad_service  "5 kernel client, wrong service code: udccp refuses"
  run_scenario u2k_kernel_aborts "6 Reset mid-transfer: kernel aborts, udccp-perf sending"
  run_scenario k2u_udccp_aborts "6 Reset mid-transfer: udccp aborts, kernel sending"
  run_scenario u2k_udccp_aborts "6 Reset mid-transfer: udccp aborts, udccp sending"
  run_scenario u2k_loss_burst   "7 loss burst, udccp sending: within its widened window, the kernel acks what follows"
  run_scenario k2u_loss_burst   "7 loss burst longer than the window, kernel sending: Sync/SyncAck"
  run_scenario k2u_cscov        "8 CsCov: kernel SEND_CSCOV 1 -> udccp min_cscov 1"
  run_scenario u2k_cscov        "8 CsCov: udccp send_cscov 1 -> kernel RECV_CSCOV 1"
  if grep -q 'INFO ipv6=yes' <<< "$(g_out boot)"; then
    run_scenario k2u_ipv6       "9 IPv6 kernel client -> udccp server"
    run_scenario u2k_ipv6       "9 IPv6 udccp client -> kernel server"
  else
    # dccp_ipv6.ko is in run.sh's module list; socket(AF_INET6, SOCK_DCCP)
    # failed in the guest (INFO ipv6=<errno>), e.g. INSMOD-FAILED below.
    REASONS=()
    say "SKIP 9 IPv6 (k2u_ipv6, u2k_ipv6): the guest kernel has no DCCP over IPv6: $(g_out boot | grep -E '^(INFO ipv6|INSMOD-FAILED)' | tr '\n' ' ')"
    SKIPPED+=("k2u_ipv6 u2k_ipv6: no dccp_ipv6 in the guest")
  fi
  run_scenario u2k_mp_fallback  "10 udccp-cat --multipath -> kernel server: plain DCCP (RFC 9897 §3.6), data both ways"
  run_scenario u2k_mp_fallback_bulk "10 udccp-cat --multipath -> kernel: 1000 datagrams, the kernel silent until then"
  run_scenario k2u_mp_fallback  "10 kernel client -> udccp-cat -l --multipath: plain DCCP, data both ways"
  SIDE=()
  run_scenario guest_side_by_side "side by side in the guest: kernel DCCP vs udccp-perf on loopback"
  if [ ${#SIDE[@]} -gt 0 ]; then
    say "in-guest loopback goodput (1 vCPU, same kernel, one run):"
    printf '%s\n' "${SIDE[@]}"
  fi
}
