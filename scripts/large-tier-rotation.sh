#!/usr/bin/env bash
# A seeded, time-boxed rotation through the large test tier (TMD_EXTENSIVE=1), for CI: the
# large tier as a whole runs for hours on two cores, so each CI run takes the targets in an
# order drawn from a seed (by default the commit's hash, so a rerun of one commit repeats
# itself) and runs them one after the other until BUDGET seconds (default 1200) are spent.
# A failing target fails the script; a target cut off by the end of the budget does not (it
# comes first in some later rotation). Usage: scripts/large-tier-rotation.sh [SEED] [BUDGET]
set -euo pipefail
cd "$(dirname "$0")/.."
seed="${1:-$(git rev-parse HEAD 2>/dev/null || date +%F)}"
budget="${2:-1200}"
targets=(
  "-p tmd-xfloat --tests"
  "-p tmd-core --test taylor_models --test taylor_special"
  "-p tmd-crunch --test crunch_vs_mpfr"
  "-p tmd-crunch --test reference_bounds"
  "-p tmd-crunch --test rounding_modes_vs_mpfr"
  "-p tmd-search --test binary32_binades"
  "-p tmd-search --test lower_bound_properties"
  "-p tmd-search --test published_cases_filter -- --include-ignored"
  "-p tmd-search --test filter_vs_reference -- --include-ignored"
  "-p tmd-gpu --test xfloat_opencl"
  "-p tmd-gpu --test xfloat_quad_opencl"
  "-p tmd-gpu --test fft_opencl"
  "-p tmd-gpu --test nvrtc_compile"
)
# The order: the targets sorted by a hash of the seed and their text.
mapfile -t order < <(for t in "${targets[@]}"; do
  printf '%s\t%s\n' "$(printf '%s %s' "$seed" "$t" | sha256sum | cut -c1-16)" "$t"
done | sort | cut -f2)
echo "large tier: seed $seed, budget $budget s" >&2
start=$(date +%s)
for t in "${order[@]}"; do
  left=$(( budget - ($(date +%s) - start) ))
  if [ "$left" -le 30 ]; then
    echo "large tier: budget spent; not run this time: $t" >&2
    continue
  fi
  echo "large tier: $t (up to $left s)" >&2
  set +e
  # shellcheck disable=SC2086
  TMD_EXTENSIVE=1 timeout --signal=KILL "$left" cargo test --release $t
  rc=$?
  set -e
  if [ "$rc" -eq 137 ]; then
    echo "large tier: cut off by the budget: $t" >&2
  elif [ "$rc" -ne 0 ]; then
    echo "large tier: FAILED: $t" >&2
    exit "$rc"
  fi
done
