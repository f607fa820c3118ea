#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dccp_echo.py: a DCCP echo server and client written against the Linux
socket API only (SOCK_DCCP, SOL_DCCP), as for the kernel's DCCP.  Run it
under libudccp-preload.so and it runs on udccp (doc/preload.md):

    LD_PRELOAD=build/compat/libudccp-preload.so UDCCP_UDP_PORT=6511 \\
        python3 examples/dccp_echo.py server 5007 &
    LD_PRELOAD=build/compat/libudccp-preload.so UDCCP_UDP_PORT=6511 \\
        python3 examples/dccp_echo.py client 5007 hello world

The server answers one connection, then exits; the client prints what
came back and exits 1 if anything was lost or differs.
"""
import socket
import struct
import sys

# <linux/socket.h>, <linux/dccp.h>: Python's socket module names none of
# them on every build, so the numbers are spelled out
SOCK_DCCP = 6
IPPROTO_DCCP = 33
SOL_DCCP = 269
DCCP_SOCKOPT_SERVICE = 2
DCCP_SOCKOPT_GET_CUR_MPS = 5
SERVICE = int.from_bytes(b"ECHO", "big")  # RFC 5595 Service Code "ECHO"


def dccp_socket():
    s = socket.socket(socket.AF_INET, SOCK_DCCP, IPPROTO_DCCP)
    s.setsockopt(SOL_DCCP, DCCP_SOCKOPT_SERVICE, struct.pack("!I", SERVICE))
    return s


def server(port):
    s = dccp_socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(1)
    print("listening", flush=True)
    s.settimeout(20)
    conn, peer = s.accept()
    conn.settimeout(20)
    while True:
        data = conn.recv(65536)
        if not data:  # the client closed
            break
        conn.send(data)
    conn.close()
    s.close()


def client(port, words):
    s = dccp_socket()
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    mps = struct.unpack("i", s.getsockopt(SOL_DCCP, DCCP_SOCKOPT_GET_CUR_MPS, 4))[0]
    bad = 0
    for w in words:
        s.send(w.encode())
        back = s.recv(mps).decode()
        print(back)
        bad += back != w
    s.close()
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("server", "client"):
        sys.exit("usage: dccp_echo.py server PORT | client PORT WORD...")
    if sys.argv[1] == "server":
        server(int(sys.argv[2]))
    else:
        sys.exit(client(int(sys.argv[2]), sys.argv[3:]))
