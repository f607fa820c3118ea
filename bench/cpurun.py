#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpurun.py OUT CMD [ARG...]: run CMD, then write the CPU seconds (user +
system) it and its children used to OUT; exit with CMD's status.  For the
CPU-per-gigabyte figures of make bench (bench/run.sh)."""
import resource
import subprocess
import sys

if len(sys.argv) < 3:
    sys.stderr.write("usage: cpurun.py OUT CMD [ARG...]\n")
    sys.exit(2)
rc = subprocess.call(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%.4f\n" % (u.ru_utime + u.ru_stime))
sys.exit(rc if rc >= 0 else 128 - rc)
