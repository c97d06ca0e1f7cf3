#!/usr/bin/env python3
"""make bench: what a whole `rodd` process costs, start-up included (issue 30, item 3).

A script that calls `rodd solve` in a loop pays the dynamic loader every time: rodd links the
engine's libraries only and hands serve, probe and run --format hdf5 to rodd-full, which links
the daemon's and HDF5's too (server/front/delegate.h), and loads muparser at the first
expression (server/front/muparser_lazy.c: a spec without any skips it). Each command runs REPEATS times; the
medians of CPU (user + sys, from the kernel's accounting of the finished child) and wall are
printed for rodd and, beside it, for rodd-full running the same command (what every command
cost before the split).
Usage: startup.py BUILD_DIR [REPEATS]"""
import os
import statistics
import subprocess
import sys
import time


def run_once(argv):
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"startup: {' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def libraries(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if "=>" in line or line.strip().startswith("/"))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    rodd, full = os.path.join(build, "rodd"), os.path.join(build, "rodd-full")
    reaching = "api/examples/octopus-reaching.json"
    cases = [
        ("version", ["version"]),
        ("check octopus-reaching", ["check", reaching]),
        ("check stiffness-tuning", ["check", "api/examples/stiffness-tuning.json"]),
        ("solve stiffness-tuning", ["solve", "api/examples/stiffness-tuning.json"]),
        ("run octopus-reaching 3.5 s", ["run", reaching, "--until", "3.5", "--every", "0.01"]),
    ]
    print(f"start-up: rodd loads {libraries(rodd)} shared libraries, rodd-full {libraries(full)} "
          f"(what every command loaded before the split); CPU and wall medians of {repeats} whole processes")
    for name, args in cases:
        row = []
        for binary in (rodd, full):
            run_once([binary] + args)  # warm the page cache
            cpu, wall = zip(*(run_once([binary] + args) for _ in range(repeats)))
            row.append(f"cpu {1e3 * statistics.median(cpu):6.2f} ms wall {1e3 * statistics.median(wall):6.2f} ms")
        print(f"  {name:28s} rodd {row[0]}   rodd-full {row[1]}")

if __name__ == "__main__":
    main()
