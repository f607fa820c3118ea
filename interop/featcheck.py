#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""featcheck.py -- feature negotiation in a capture (RFC 4340 §6).

    featcheck.py KERNEL_ADDR < tshark-fields

Reads tshark lines "ip.src|ipv6.src|dccp.type|option_types|feature_numbers"
(occurrence=a: comma lists) on stdin.  Every Change L/R the kernel
(KERNEL_ADDR) sends in the handshake (its first 4 packets) must be answered
by a later Confirm R/L of the same feature from udccp: Linux resets a
connection whose Changes go unconfirmed.  udccp's own Changes are listed
too, for information: Linux sometimes answers one with its own Change of
the same feature (CCID 2's dependency on Send Ack Vector) instead of a
Confirm.  Prints one line per Change; exit 1 if a kernel Change is left
unconfirmed.
"""
import sys

CHANGE_L, CONFIRM_L, CHANGE_R, CONFIRM_R = 32, 33, 34, 35
NAMES = {CHANGE_L: "ChangeL", CHANGE_R: "ChangeR", CONFIRM_L: "ConfirmL",
         CONFIRM_R: "ConfirmR"}
FEATS = {1: "CCID", 2: "AllowShortSeqnos", 3: "SequenceWindow",
         4: "ECNIncapable", 5: "AckRatio", 6: "SendAckVector",
         7: "SendNDPCount", 8: "MinCsCov", 9: "CheckDataChecksum",
         192: "SendLossEventRate"}
TYPES = ["Request", "Response", "Data", "Ack", "DataAck", "CloseReq", "Close",
         "Reset", "Sync", "SyncAck", "Listen"]


def ints(s):
    return [int(x, 0) for x in s.split(",") if x.strip()] if s else []


def main():
    pkts = []  # (src, type, [(opt, feat)])
    for line in sys.stdin:
        f = line.rstrip("\n").split("|")
        if len(f) < 5 or not f[2]:
            continue
        src = f[0] or f[1]
        opts = ints(f[3])
        feats = ints(f[4])
        fo = [o for o in opts if CHANGE_L <= o <= CONFIRM_R]
        pkts.append((src, int(f[2], 0), list(zip(fo, feats))))
    if not pkts:
        print("no DCCP packets")
        return 1
    seen = {}
    bad = 0
    for i, (src, ptype, fl) in enumerate(pkts):
        n = seen.get(src, 0)
        seen[src] = n + 1
        if n >= 4:
            continue
        for o, feat in fl:
            if o not in (CHANGE_L, CHANGE_R):
                continue
            want = CONFIRM_R if o == CHANGE_L else CONFIRM_L
            ok = any(s2 != src and (want, feat) in fl2
                     for s2, _, fl2 in pkts[i + 1:])
            print("%s %s %s(%s) -> %s" % (
                src, TYPES[ptype] if ptype < len(TYPES) else ptype, NAMES[o],
                FEATS.get(feat, feat), "confirmed" if ok else "NOT CONFIRMED"))
            if src == sys.argv[1]:
                bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
