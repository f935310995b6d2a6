#!/usr/bin/env bash
# The lattice method (its shape chosen per chunk), the regular filter and `auto` on the same
# ranges: binary64 at K = 45 (2^30 inputs each: exp next to 1 and at 2^8, sin at 2^10, log at
# 2^1000) and binary128 at K = 133 (2^36 inputs each: exp and sin at 1.5), every breakpoint.
# Prints one line per run (range, its input count as tmd states it, algorithm, cases,
# seconds), the algorithms interleaved, RUNS times each (default 2). The lists must be equal;
# the script says when they are not.
#
#   bash scripts/lattice-vs-filter.sh            (TMD=path/to/tmd, RUNS=N)
set -uo pipefail
cd "$(dirname "$0")/.."
tmd=${TMD:-target/release/tmd}
[ -n "${TMD:-}" ] || cargo build --release -p tmd -q || exit 1
runs=${RUNS:-2}
out=$(mktemp -d)
echo "# $($tmd --version), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) cores, $(date -u +%FT%TZ)"
while read -r func format bits from to; do
  for run in $(seq "$runs"); do
    for alg in regular lattice auto; do
      s=$(date +%s.%N)
      "$tmd" search "$func" --format "$format" --from "$from" --to "$to" --bits "$bits" \
        --breakpoints all --algorithm "$alg" -q >"$out/$func.$alg.txt" 2>"$out/err.txt" ||
        { cat "$out/err.txt"; exit 1; }
      e=$(date +%s.%N)
      inputs=$(grep -o '[0-9]* inputs' "$out/err.txt" | head -1)
      cases=$(grep -c '^0x\|^-0x' "$out/$func.$alg.txt")
      printf '%-4s %-9s [%s, %s) %s %-8s run %s: %3d cases, %8.2f s\n' "$func" "$format" \
        "$from" "$to" "$inputs" "$alg" "$run" "$cases" "$(echo "$e - $s" | bc)"
    done
    cmp -s "$out/$func.regular.txt" "$out/$func.lattice.txt" || echo "  DIFFERENT outputs for $func"
    cmp -s "$out/$func.regular.txt" "$out/$func.auto.txt" || echo "  DIFFERENT outputs for $func"
  done
done <<'RANGES'
exp binary64 45 0x1p+0 0x1.000004p+0
exp binary64 45 0x1p+8 0x1.000004p+8
sin binary64 45 0x1p+10 0x1.000004p+10
log binary64 45 0x1p+1000 0x1.000004p+1000
exp binary128 133 0x1.8p+0 0x1.8000000000000000001p+0
sin binary128 133 0x1.8p+0 0x1.8000000000000000001p+0
RANGES
rm -rf "$out"
