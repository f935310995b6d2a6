#!/usr/bin/env bash
# Every finite binary32 input of expf, logf, sinf, cosf from the platform libm (std:) and the
# libm crate (libm:), one `tmd crunch --json` run each; the reports go to
# docs/logs/crunch-binary32-full.jsonl (one JSON object per line) and the argmax of each is
# cross-checked by scripts/crunch-check-argmax.py's independent MPFR evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tmd >/dev/null
# A copy, so that rebuilding while this runs does not touch the binary in use.
tmd=$(mktemp -d)/tmd
cp target/release/tmd "$tmd"
out=${1:-docs/logs/crunch-binary32-full.jsonl}
mkdir -p "$(dirname "$out")"
: > "$out"
for target in std:expf libm:expf std:logf libm:logf std:sinf libm:sinf std:cosf libm:cosf; do
    "$tmd" crunch "$target" --from -inf --to inf --json -q >> "$out"
    tail -n 1 "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["target"], r["inputs"], r["max_ulp"], r["argmax"], "%.1f s" % r["seconds"])'
done
