#!/usr/bin/env bash
# The measurements behind docs/search-cost.md: one thread, one window of 2^36 inputs (2^32 for
# sin and cos) per steep binade, the filter's phase counts and times from --stats, and the
# lattice method and the exhaustive method on smaller windows of the same binades. Prints one
# line per window. Usage: bash scripts/steep-binades.sh [TMD_BINARY]
set -euo pipefail
tmd=${1:-target/release/tmd}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
row() { # FUNCTION FROM TO ALGORITHM
    local stats="$scratch/stats.json"
    "$tmd" search "$1" --from "$2" --to "$3" --bits 45 --algorithm "$4" --threads 1 -q \
        --stats "$stats" > /dev/null 2>&1
    python3 - "$stats" "$1" "$2" "$4" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s.get("filter") or {}
line = f"{sys.argv[2]:4} {sys.argv[3]:>14} {sys.argv[4]:10} {s['inputs']:>12} inputs {s['seconds']:8.2f} s {s['inputs']/s['seconds']:10.3e} inputs/s"
p1 = f.get("phase1")
if p1 and p1["domains_in"]:
    line += (f"  N={f['domain_sizes_used']} d={f['degrees_used']}"
             f" phase1 {p1['thread_seconds']/p1['domains_in']*1e9:6.0f} ns/domain,"
             f" {p1['domains_failed']/p1['domains_in']*100:5.2f}% fail;"
             f" phase2 {f['phase2']['thread_seconds']:.2f} s, phase3 {f['phase3']['thread_seconds']:.2f} s,"
             f" tables {f['generation_thread_seconds']:.2f} s")
print(line)
PY
}
for e in 5 6 7 8 9; do row exp "0x1p+$e" "0x1.0001p+$e" regular; done
row exp -0x1.0001p+8 -0x1p+8 regular
row exp 0x1.4p+9 0x1.4001p+9 regular
row exp 0x1p+5 0x1.0000001p+5 exhaustive
row exp 0x1p+9 0x1.0000001p+9 exhaustive
row exp 0x1p+5 0x1.0000001p+5 lattice
row exp 0x1p+9 0x1.0000001p+9 lattice
row sin 0x1.8p+11 0x1.80001p+11 regular
row cos 0x1.8p+11 0x1.80001p+11 regular
row sin 0x1.8p+11 0x1.8000001p+11 exhaustive
row sin 0x1.8p+11 0x1.8000001p+11 lattice
