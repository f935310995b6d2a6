#!/usr/bin/env bash
# The lattice method beside the regular filter on the same ranges of binary64 (2^30 inputs
# each at K = 45, every breakpoint): exp next to 1 and at 2^8, sin at 2^10, log at 2^1000.
# Prints one line per run (range, algorithm, cases, seconds), the two algorithms interleaved,
# RUNS times each (default 2). Both lists must be equal; the script says when they are not.
#
#   bash scripts/lattice-vs-filter.sh            (TMD=path/to/tmd, RUNS=N, BITS=K)
set -uo pipefail
cd "$(dirname "$0")/.."
tmd=${TMD:-target/release/tmd}
[ -n "${TMD:-}" ] || cargo build --release -p tmd -q || exit 1
runs=${RUNS:-2}
bits=${BITS:-45}
out=$(mktemp -d)
echo "# $($tmd --version), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) cores, $(date -u +%FT%TZ), K = $bits"
while read -r func from to; do
  for run in $(seq "$runs"); do
    for alg in regular lattice; do
      s=$(date +%s.%N)
      "$tmd" search "$func" --from "$from" --to "$to" --bits "$bits" --breakpoints all \
        --algorithm "$alg" -q >"$out/$func.$alg.txt" 2>"$out/err.txt" || { cat "$out/err.txt"; exit 1; }
      e=$(date +%s.%N)
      cases=$(grep -c '^0x\|^-0x' "$out/$func.$alg.txt")
      printf '%-5s [%s, %s) %-8s run %s: %3d cases, %8.2f s\n' "$func" "$from" "$to" "$alg" "$run" "$cases" "$(echo "$e - $s" | bc)"
    done
    cmp -s "$out/$func.regular.txt" "$out/$func.lattice.txt" || echo "  DIFFERENT outputs for $func"
  done
done <<'RANGES'
exp 0x1p+0 0x1.000004p+0
exp 0x1p+8 0x1.0004p+8
sin 0x1p+10 0x1.001p+10
log 0x1p+1000 0x1.000004p+1000
RANGES
rm -rf "$out"
