#!/usr/bin/env bash
# Runs one fixed set of tmd commands with two binaries and compares their outputs byte for
# byte (timings stripped from JSON reports and stats): the check that a change which must not
# alter behaviour did not. Exit 0 when every output is equal, 1 otherwise.
#   bash scripts/compare-binaries.sh OLD_TMD NEW_TMD [--opencl]
# --opencl adds the OpenCL backend (PoCL on a machine without a GPU) to the set.
set -uo pipefail
old=$1 new=$2 opencl=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip_timings() {
  python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if not any(w in k for w in ("second", "per_s", "rate", "threads"))}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
text = sys.stdin.read()
try:
    print(json.dumps(strip(json.loads(text)), sort_keys=True))
except ValueError:
    for line in text.splitlines():
        try:
            print(json.dumps(strip(json.loads(line)), sort_keys=True))
        except ValueError:
            print(line)
'
}
# name | kind (plain: stdout as is; json: stdout without timings) | arguments
cases=(
  "i0-text|plain|search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q"
  "i0-json|plain|search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q --json"
  "i0-lefevre|plain|search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q --algorithm lefevre"
  "log-window|plain|search log --from 0x1.6a09e667f3bcdp+0 --to 0x1.6a09e6a7f3bcdp+0 --bits 21 -q --json"
  "sin-window|plain|search sin --from 0x1.921fb54442d18p+1 --to 0x1.921fb56442d18p+1 --bits 20 -q --json --exact"
  "expr-window|plain|search x*exp(x) --from 0x1.8p+0 --to 0x1.8000004p+0 --bits 24 -q --json"
  "b32-exhaustive|plain|search exp --format binary32 --from 1 --to 2 --bits 20 -q --json"
  "b32-cbrt-reference|plain|search cbrt --format binary32 --from 0x1p-3 --to 0x1.2p-3 --bits 16 -q --algorithm reference"
  "b16-all|plain|search tan --format binary16 --from -65504 --to 65504 --bits 8 -q --json --exact"
  "gamma-reference|plain|search gamma --from 0x1.8p+1 --to 0x1.8000001p+1 --bits 20 -q --json"
  "hardness|plain|hardness exp 0x1.aca7ae8da5a7bp+0 1 0x1p-60 -0x1.62e42fefa39efp+9"
  "hardness-json|plain|hardness log 0x1.5p+0 2 0 -1 --json"
  "hardness-b32|plain|hardness sin 0x1.921fb6p+1 --format binary32 --json"
  "functions|plain|functions"
  "crunch-expf|json|crunch std:expf --from 1 --to 2 --json"
  "crunch-libm-sin|json|crunch libm:sinf --from 1 --to 4 --json"
  "crunch-exp64|json|crunch std:exp --from 0x1p+0 --to 0x1.0000001p+0 --json"
  "crunch-xfloat-log|json|crunch xfloat:log --from 0x1p+0 --to 0x1.000001p+0 --json"
  "crunch-emul|json|crunch emul:vrecpe-nr3 --from 0x1p+0 --to 0x1.0000001p+0 --json"
  "crunch-emul32|json|crunch emul:vrecpe-nr2f --from 1 --to 2 --json"
  "crunch-list|plain|crunch --list"
)
if [ "$opencl" = "--opencl" ]; then
  cases+=(
    "i0-opencl|plain|search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q --json --backend opencl"
    "window-opencl|plain|search log --from 0x1.6a09e667f3bcdp+0 --to 0x1.6a09e6a7f3bcdp+0 --bits 21 -q --json --backend opencl"
    "crunch-opencl-expf|json|crunch opencl:expf --from 1 --to 2 --json --backend opencl"
    "crunch-opencl-exp64|json|crunch opencl:exp --from 0x1p+0 --to 0x1.0000001p+0 --json --backend opencl"
  )
fi
fail=0
for c in "${cases[@]}"; do
  IFS='|' read -r name kind args <<<"$c"
  read -r -a argv <<<"$args"
  for side in old new; do
    bin=${!side}
    "$bin" "${argv[@]}" >"$work/$name.$side.raw" 2>"$work/$name.$side.err"
    echo "exit $?" >>"$work/$name.$side.raw"
    if [ "$kind" = json ]; then strip_timings <"$work/$name.$side.raw" >"$work/$name.$side"; else cp "$work/$name.$side.raw" "$work/$name.$side"; fi
  done
  if cmp -s "$work/$name.old" "$work/$name.new"; then
    echo "equal    $name ($(wc -l <"$work/$name.old") lines)"
  else
    echo "DIFFER   $name"; diff "$work/$name.old" "$work/$name.new" | head -5; fail=1
  fi
done
# Files: .wc output, stats without timings, and a resumed run's output.
for side in old new; do
  bin=${!side}
  "$bin" search exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed -q \
    --out "$work/i0.$side.wc" --stats "$work/i0.$side.stats" >/dev/null 2>&1
  grep -v '^# command' "$work/i0.$side.wc" >"$work/wc.$side"
  strip_timings <"$work/i0.$side.stats" >"$work/stats.$side"
  "$bin" search exp --from 0x1p+0 --to 0x1.0004p+0 --bits 30 -q --json --resume "$work/r.$side" \
    >"$work/resume.$side" 2>/dev/null
  "$bin" search exp --from 0x1p+0 --to 0x1.0004p+0 --bits 30 -q --json --resume "$work/r.$side" \
    >>"$work/resume.$side" 2>/dev/null
done
for f in wc stats resume; do
  if cmp -s "$work/$f.old" "$work/$f.new"; then echo "equal    $f file ($(wc -l <"$work/$f.old") lines)"; else echo "DIFFER   $f file"; diff "$work/$f.old" "$work/$f.new" | head -5; fail=1; fi
done
exit $fail
