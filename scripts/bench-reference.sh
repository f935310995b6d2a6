#!/usr/bin/env bash
# Reference-search throughput (inputs per second), exp/log/sin in binary32 and binary64.
# Each configuration runs RUNS times (default 3); prints min/median/max inputs/s and the
# hard-case count. Usage: scripts/bench-reference.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release -q -p tmd
tmd=target/release/tmd
tmp=$(mktemp -d)
printf '%-8s %-9s %-32s %10s %10s %10s %6s\n' function format range min median max cases
# binary32: 2^21 inputs; binary64: 2^20 inputs; both K = p/2 so every input takes the fast path.
while read -r f fmt from to bits; do
  rates=()
  for i in $(seq "$runs"); do
    "$tmd" search "$f" --from "$from" --to "$to" --format "$fmt" --bits "$bits" \
      --algorithm reference --json -q --out "$tmp/out" --stats "$tmp/stats.json" 2>/dev/null
    rates+=("$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["inputs_per_second"]))' "$tmp/stats.json")")
  done
  cases=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hard"])' "$tmp/stats.json")
  sorted=($(printf '%s\n' "${rates[@]}" | sort -n))
  printf '%-8s %-9s %-32s %10s %10s %10s %6s\n' "$f" "$fmt" "[$from, $to)" "${sorted[0]}" "${sorted[$((runs / 2))]}" "${sorted[$((runs - 1))]}" "$cases"
done <<'CONFIGS'
exp binary32 0x1p+0 0x1.4p+0 12
log binary32 0x1p+0 0x1.4p+0 12
sin binary32 0x1p+0 0x1.4p+0 12
exp binary64 0x1p+0 0x1.00000001p+0 26
log binary64 0x1p+0 0x1.00000001p+0 26
sin binary64 0x1p+0 0x1.00000001p+0 26
CONFIGS
rm -rf "$tmp"
