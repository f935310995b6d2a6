#!/usr/bin/env python3
"""Benchmarks of the filtered search, printed as the markdown tables of
docs/BENCHMARKS.md.

  python3 scripts/bench-filter.py [--runs R] [--only i0|backends|methods|binades]

(The whole binary32 range of exp is scripts/bench-binary32-exp.sh.)

Every configuration runs R times (default 3) through the release CLI; each table row gives
min / median / max wall seconds and the per-phase thread seconds of the median run (from
`--stats`). Configurations that are compared (Lefevre vs regular, filter vs exhaustive vs
reference) run interleaved, run by run, so that the machine's noise hits them alike.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMD = os.path.join(ROOT, "target", "release", "tmd")


def run(args, stats_path):
    """One search; returns (wall seconds, stats dict)."""
    started = time.perf_counter()
    subprocess.run([TMD, "search", *args, "-q", "--json", "--stats", stats_path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    with open(stats_path) as f:
        return wall, json.load(f)


def measure(configs, runs):
    """Interleaved runs of several configurations: {name: [(wall, stats), ...]}."""
    out = {name: [] for name, _ in configs}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.json")
        for _ in range(runs):
            for name, args in configs:
                out[name].append(run(args, path))
    return out


def median_run(results):
    walls = sorted(w for w, _ in results)
    med = statistics.median_low(walls)
    stats = next(s for w, s in results if w == med)
    return walls[0], med, walls[-1], stats


def phase_cells(stats):
    f = stats.get("filter")
    if not f:
        return "-", "-", "-", "-", "-"
    return (f"{f['generation_thread_seconds']:.3f}",
            f"{f['phase1']['thread_seconds']:.3f}",
            f"{f['phase2']['thread_seconds']:.3f}",
            f"{f['phase3']['thread_seconds']:.3f}",
            f"{f['verification_thread_seconds']:.3f}")


def table(title, configs, runs, baseline=None):
    results = measure(configs, runs)
    print(f"\n{title} ({runs} runs each, interleaved)\n")
    print("| configuration | inputs | cases | min s | median s | max s | generation | phase 1 | phase 2 | phase 3 | MPFR | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    base = None
    if baseline is not None:
        base = median_run(results[baseline])[1]
    for name, _ in configs:
        lo, med, hi, stats = median_run(results[name])
        ratio = f"{med / base:.2f}" if base else "-"
        cells = " | ".join(phase_cells(stats))
        print(f"| {name} | {stats['inputs']} | {stats['hard']} | {lo:.3f} | {med:.3f} | {hi:.3f} | {cells} | {ratio} |")
    sys.stdout.flush()
    return results


def filter_details(stats):
    f = stats["filter"]
    p1, p2, p3 = f["phase1"], f["phase2"], f["phase3"]
    return (f"phase 1: {p1['domains_in']} domains / {p1['arguments_in']} arguments in, "
            f"{p1['domains_failed']} / {p1['arguments_failed']} failed; "
            f"phase 2: {p2['domains_in']} / {p2['arguments_in']} in, "
            f"{p2['domains_failed']} / {p2['arguments_failed']} failed; "
            f"phase 3: {p3['arguments_in']} arguments, {f['candidates']} candidates; "
            f"N {f['domain_sizes_used']}, degrees {f['degrees_used']}; "
            f"NMDM {100 * f['nmdm']['mean']:.2f}% (mean iterations {f['nmdm']['mean_iterations']:.1f})")


I0 = ["exp", "--from", "0x1p+0", "--to", "0x1.0008p+0", "--bits", "32", "--breakpoints", "directed"]


def bench_i0(runs):
    configs = [(a, I0 + ["--algorithm", a]) for a in ["regular", "lefevre", "lefevre-swap"]]
    results = table("I0 = [1, 1+2^-13) of exp, binary64, K = 32, directed", configs, runs,
                    baseline="regular")
    for name, _ in configs:
        print(f"\n- {name}: {filter_details(median_run(results[name])[3])}")


def bench_backends(runs):
    configs = [(f"regular, --backend {b}", I0 + ["--algorithm", "regular", "--backend", b])
               for b in ["cpu", "opencl"]]
    results = table("I0 on the CPU backend and on OpenCL (PoCL's CPU device here)", configs, runs,
                    baseline="regular, --backend cpu")
    for name, _ in configs:
        stats = median_run(results[name])[3]
        print(f"\n- {name}: device calls {stats['filter']['device_thread_seconds']:.3f} thread-seconds (summed over the chunks run at once)")


def bench_methods(runs):
    window = ["exp", "--from", "0x1p+0", "--to", "0x1.0000002p+0", "--bits", "22",
              "--breakpoints", "all"]
    configs = [(a, window + ["--algorithm", a]) for a in
               ["regular", "lefevre", "exhaustive", "reference"]]
    table("One window of 2^25 inputs: exp, binary64, [1, 1+2^-27), K = 22, all", configs, runs,
          baseline="regular")


# Slices of 2^36 inputs (1/65536 of a binade) at 8 evenly spaced places of each binade; the
# binade's time is projected as 65536 times their mean.
BINADES = [
    ("exp", "binade 0 [1, 2)", 0),
    ("exp", "binade 4 [16, 32)", 4),
    ("exp", "binade 7 [128, 256)", 7),
    ("sin", "binade -1 [1/2, 1)", -1),
    ("log", "binade 0 [1, 2)", 0),
]


def bench_binades(runs):
    print(f"\nBinades of binary64, K = 32, directed, regular: 8 slices of 2^36 inputs each "
          f"({runs} runs each); projection = 65536 x mean slice time\n")
    print("| function | binade | slice min s | slice median s | slice max s | cases in slices | projected binade s (2 cores) | generation | phase 1 | phase 2 | phase 3 | MPFR |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for func, label, e in BINADES:
        configs = []
        for j in range(8):
            # start = 2^e (1 + j/8), as a hex float with 13 hex digits of fraction.
            frac = j << 49
            start = f"0x1.{frac:013x}p{e:+d}"
            end = f"0x1.{frac + (1 << 36):013x}p{e:+d}"
            configs.append((start, [func, "--from", start, "--to", end, "--bits", "32",
                                    "--breakpoints", "directed", "--algorithm", "regular"]))
        results = measure(configs, runs)
        meds = [median_run(results[name]) for name, _ in configs]
        walls = [m[1] for m in meds]
        cases = sum(m[3]["hard"] for m in meds)
        sums = [0.0] * 5
        for m in meds:
            cells = phase_cells(m[3])
            for i, c in enumerate(cells):
                sums[i] += float(c) if c != "-" else 0.0
        phases = " | ".join(f"{s / len(meds):.3f}" for s in sums)
        print(f"| {func} | {label} | {min(walls):.3f} | {statistics.median(walls):.3f} | {max(walls):.3f} | {cases} | {65536 * statistics.mean(walls):.0f} | {phases} |")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=["i0", "backends", "methods", "binades"])
    a = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tmd"], cwd=ROOT, check=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} on {os.cpu_count()} cores: {os.uname().nodename}")
    benches = {"i0": bench_i0, "backends": bench_backends, "methods": bench_methods,
               "binades": bench_binades}
    for name, bench in benches.items():
        if a.only in (None, name):
            bench(a.runs)


if __name__ == "__main__":
    main()
