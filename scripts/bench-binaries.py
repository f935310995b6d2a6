#!/usr/bin/env python3
"""Two tmd binaries side by side on one command, run interleaved (old, new, old, new, ...)
so that the machine's noise hits both alike; prints min / median / max wall seconds of each
and the ratio of the medians, as a markdown table row for docs/BENCHMARKS.md.

  python3 scripts/bench-binaries.py OLD_TMD NEW_TMD [--runs R] -- ARGS...

Example (I0):
  python3 scripts/bench-binaries.py /tmp/tmd-base target/release/tmd --runs 15 -- \\
      search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q
"""
import argparse
import statistics
import subprocess
import sys
import time


def wall_seconds(binary, args):
    started = time.perf_counter()
    subprocess.run([binary, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main():
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.exit("bench-binaries.py: no tmd arguments given after --")
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--runs", type=int, default=10)
    opts = parser.parse_args(argv[:split])
    args = argv[split + 1:]
    times = {opts.old: [], opts.new: []}
    # One untimed run each: page cache, kernel caches.
    for binary in times:
        wall_seconds(binary, args)
    for _ in range(opts.runs):
        for binary in times:
            times[binary].append(wall_seconds(binary, args))
    cells = []
    for binary, ts in times.items():
        cells.append(f"{min(ts):.3f} / {statistics.median(ts):.3f} / {max(ts):.3f}")
    ratio = statistics.median(times[opts.new]) / statistics.median(times[opts.old])
    print(f"| `tmd {' '.join(args)}` | {opts.runs} | {cells[0]} | {cells[1]} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
