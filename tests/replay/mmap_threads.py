#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Three threads of one process, each looping: mmap() 1 MiB anonymous, write
one page, munmap() (close). Recorded with tlbgen-trace as the fixture
amd-mmap-3t: its threads block on the GIL, so the CPUs go idle (lazily)
between flushes, and munmap() frees the 1 MiB mapping's page table.

usage: mmap_threads.py [ROUNDS]   (default 2000 per thread)"""
import mmap
import sys
import threading


def loop(rounds):
    for _ in range(rounds):
        m = mmap.mmap(-1, 1 << 20)
        m[0] = 1
        m.close()


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
threads = [threading.Thread(target=loop, args=(rounds,)) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
