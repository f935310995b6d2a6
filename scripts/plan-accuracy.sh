#!/usr/bin/env bash
# The plan's accuracy: for each range below, the plan's projection (`--plan`) and the search's
# own time (the seconds of its summary line), one after the other, at K = 45 on 2 threads.
# Prints one line per range: projected, measured, and their ratio. The ranges are pieces of
# different kinds: a filtered binade piece, subnormals, huge sine arguments, sqrt, a piece
# decided input by input (expm1 far out), flat pieces next to 0, special functions.
#   bash scripts/plan-accuracy.sh [TMD]        (default: target/release/tmd)
set -euo pipefail
cd "$(dirname "$0")/.."
tmd=${1:-target/release/tmd}
ranges=(
  "log 0x1p-1021 0x1.001p-1021"
  "log 0x0.0000000000001p-1022 0x0.0000000100000p-1022"
  "sin 0x1p+20 0x1.0000001p+20"
  "sqrt 0x1p+652 0x1.001p+652"
  "expm1 -0x1p+160 -0x1.fffffffff8p+159"
  "exp -0x1p-16 -0x1.ff8p-17"
  "exp 0x1p-17 0x1.008p-17"
  "atan 0x1p+3 0x1.001p+3"
  "erf 0x1p-2 0x1.0002p-2"
  "gamma 0x1.8p+1 0x1.8002p+1"
  "exp2 0x1p-30 0x1.004p-30"
  "cos 0x1p-3 0x1.0002p-3"
)
# "projected 1.23 s" / "projected 4.5 min" / "... h" / "... days" in seconds.
seconds() {
  awk '{for (i = 1; i < NF; i++) if ($i == "projected") {v = $(i + 1); u = $(i + 2);
    gsub(/[^a-z]/, "", u); m = (u == "min") ? 60 : (u == "h") ? 3600 : (u == "days") ? 86400 : 1;
    print v * m; exit}}'
}
printf '%-8s %-28s %-28s %12s %12s %8s\n' function from to projected_s run_s ratio
for r in "${ranges[@]}"; do
  read -r f from to <<<"$r"
  args=(search "$f" --from "$from" --to "$to" --bits 45 --threads 2)
  projected=$("$tmd" "${args[@]}" --plan 2>&1 | grep '^tmd: plan of' | seconds)
  run=$("$tmd" "${args[@]}" --out /dev/null 2>&1 | grep -o '; [0-9.]* s,' | tail -1 | tr -dc '0-9.')
  ratio=$(awk -v p="$projected" -v r="$run" 'BEGIN {printf (r > 0) ? "%.2f" : "-", p / r}')
  printf '%-8s %-28s %-28s %12s %12s %8s\n' "$f" "$from" "$to" "$projected" "$run" "$ratio"
done
