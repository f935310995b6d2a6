#!/usr/bin/env bash
# Runs one fixed set of tmd commands with two binaries and compares their outputs byte for
# byte (timings stripped from JSON reports and stats): the check that a change which must not
# alter behaviour did not. Exit 0 when every output is equal, 1 otherwise.
#   bash scripts/compare-binaries.sh OLD_TMD NEW_TMD [--opencl]
# --opencl adds the OpenCL backend (PoCL on a machine without a GPU) to the set. The mpirun
# cases compare OLD_MPI and NEW_MPI (default: tmd-mpi beside OLD_TMD, and the build of
# `--features mpi --target-dir target/mpi`); they are skipped when mpirun or either is missing.
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
  # Per-function columns: each Taylor model family, exact values, asymptotes, anchored
  # references and the device-reference-free crunch paths.
  "col-tanpi|plain|search tanpi --from 0x1.1p-3 --to 0x1.1000001p-3 --bits 20 -q --json"
  "col-cospi|plain|search cospi --from 0x1.3p-2 --to 0x1.3000001p-2 --bits 20 -q --json"
  "col-acospi|plain|search acospi --from 0x1.3p-2 --to 0x1.3000001p-2 --bits 20 -q --json"
  "col-erfc|plain|search erfc --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-sinh-atan|plain|search sinh(x)+atan(x) --from 0x1.8p+0 --to 0x1.8000004p+0 --bits 24 -q --json"
  "col-lgamma|plain|search lgamma --from -0x1.4p+1 --to -0x1.3ffffffp+1 --bits 20 -q --json"
  "col-j0|plain|search j0 --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-y1|plain|search y1 --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-zeta|plain|search zeta --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-eint|plain|search eint --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-li2|plain|search li2 --from 0x1.3p-1 --to 0x1.3000001p-1 --bits 20 -q --json"
  "col-ai|plain|search ai --from 0x1.3p+1 --to 0x1.3000001p+1 --bits 20 -q --json"
  "col-cosh-b16|plain|search cosh --format binary16 --from -0x1p-4 --to 0x1p-4 --bits 8 -q --json"
  "col-cbrt-b16|plain|search cbrt --format binary16 --from -0x1p-4 --to 0x1p-4 --bits 8 -q --json"
  "col-tanh-b16|plain|search tanh --format binary16 --from 0x1p+2 --to 0x1p+4 --bits 8 -q --json --exact"
  "col-erf-b16|plain|search erf --format binary16 --from 2 --to 8 --bits 8 -q --json --exact"
  "col-expm1-bf16|plain|search expm1 --format bfloat16 --from -inf --to inf --bits 8 -q --json --exact"
  "col-tanhf-near0|json|crunch glibc:tanhf --from 0x1p-30 --to 0x1.01p-30 --rounding all --json"
  "col-tanhf-far|json|crunch glibc:tanhf --from 10 --to 10.01 --rounding up --json"
  "col-erfcf-far|json|crunch glibc:erfcf --from -30 --to -1 --rounding up --json"
  "col-sin-tiny|json|crunch glibc:sin --from 0x1p-40 --to 0x1.0000001p-40 --rounding down --json"
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
  # The header names the commit each binary was built from.
  grep -v '^# command' "$work/i0.$side.wc" | sed -E 's/\(commit [0-9a-f]*(, dirty)?\)/(commit)/' >"$work/wc.$side"
  strip_timings <"$work/i0.$side.stats" >"$work/stats.$side"
  "$bin" search exp --from 0x1p+0 --to 0x1.0004p+0 --bits 30 -q --json --resume "$work/r.$side" \
    >"$work/resume.$side" 2>/dev/null
  "$bin" search exp --from 0x1p+0 --to 0x1.0004p+0 --bits 30 -q --json --resume "$work/r.$side" \
    >>"$work/resume.$side" 2>/dev/null
done
for f in wc stats resume; do
  if cmp -s "$work/$f.old" "$work/$f.new"; then echo "equal    $f file ($(wc -l <"$work/$f.old") lines)"; else echo "DIFFER   $f file"; diff "$work/$f.old" "$work/$f.new" | head -5; fail=1; fi
done
# --- crunch and report (the crunch job of tmd-crunch, tmd-report): stdout, stderr and exit
# code of each case, then the files a run writes (checkpoint status, plots, a report's tables
# and cells), timings and what names the build or the date masked.
mask_times() {
  sed -E 's/ in [0-9.]+ s/ in T s/; s/\([0-9.]+e[-+]?[0-9]+ (inputs|pairs)\/s, [0-9]+ threads/(R \1\/s, N threads/;
    s/, [0-9.]+ s of block time/, T s of block time/; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC/DATE/g;
    s/tmd [0-9.]+ \(commit [0-9a-f]+(, dirty)?\)/tmd VERSION/g'
}
cat >"$work/my.c" <<'C'
#include <math.h>
float my_expf(float x) { return expf(x) * (1.0f + 0x1p-23f); }
C
head -2000 data/worst-cases/exp.wc >"$work/exp.wc"
printf '1.5\n0x1.8p+0\n-3\n# a comment\nnot a number\n0x1.62e42fefa39ef358p+13\n1e-4940\n' >"$work/wide.txt"
printf '0x1.8p+0 2\n3 -0.5\n0x1p-3 7\n' >"$work/pairs.txt"
printf '0x1.0201p+0\n0x1.1p+0\n1.0625\n-0x1.2p+1\n0x1.62e43p+6\n' >"$work/b32.txt"
crunch_cases=(
  "c-target|text|crunch c:$work/my.c:my_expf --from 1 --to 1.25 -q"
  "c-target-all|json|crunch c:$work/my.c:my_expf --function exp --from 1 --to 1.0625 --rounding all --json -q"
  "dl-target|text|crunch dl:libm.so.6:cosf --from 1 --to 1.0625 -q --max-ulp 0.5"
  "pairs-sample|text|crunch std:powf --sample 3000 --seed 5 -q"
  "pairs-list-json|json|crunch libm:hypotf --inputs $work/pairs.txt --json -q --max-ulp 1"
  "pairs-structured|json|crunch std:hypotf --structured --sample 500 --json -q --rounding all"
  "wide-list|text|crunch glibc:expl --inputs $work/wide.txt --max-ulp 0.5 --rounding all"
  "wide-list-json|json|crunch glibc:expf128 --inputs $work/wide.txt --json"
  "wc-list-gate|text|crunch glibc:exp --inputs $work/exp.wc --max-ulp 0.5"
  "wc-list-gate-json|json|crunch libm:exp --inputs $work/exp.wc --max-ulp 1 --json"
  "range-gate|text|crunch libm:sinf --from 1 --to 2 --max-ulp 0.5 -q"
  "range-sample|text|crunch std:exp --from 1 --to 2 --sample 4 --block-bits 16 -q"
  "estimate-json|json|crunch std:expf --from 1 --to 2 --estimate --json"
  "bad-strict|plain|crunch std:expf --strict --from 1 --to 2"
  "bad-pair-range|plain|crunch std:powf --from 1 --to 2"
  "bad-wide-range|plain|crunch glibc:expl --from 1 --to 2"
  "bad-arity|plain|crunch std:expf --seed 3 --from 1 --to 2"
  "bad-function|plain|crunch std:expf --function exp --from 1 --to 2"
  "bad-device|plain|crunch std:expf --device 1 --from 1 --to 2"
  "bad-sample|plain|crunch std:expf --from 1 --to 2 --sample 0"
  "bad-list|plain|crunch std:expf --inputs $work/none.txt"
  "bad-status|plain|crunch-status $work/none.ckpt"
  "bad-report|plain|report --targets glibc --out $work/nowhere"
  "bad-report-twice|plain|report --targets std:expf,std:expf --out $work/nowhere"
)
for c in "${crunch_cases[@]}"; do
  IFS='|' read -r name kind args <<<"$c"
  read -r -a argv <<<"$args"
  for side in old new; do
    bin=${!side}
    "$bin" "${argv[@]}" >"$work/$name.$side.raw" 2>"$work/$name.$side.err"
    echo "exit $?" >>"$work/$name.$side.raw"
    case $kind in
      json) strip_timings <"$work/$name.$side.raw" | mask_times >"$work/$name.$side" ;;
      text) mask_times <"$work/$name.$side.raw" >"$work/$name.$side" ;;
      *) cp "$work/$name.$side.raw" "$work/$name.$side" ;;
    esac
    echo "stderr:" >>"$work/$name.$side"
    cat "$work/$name.$side.err" >>"$work/$name.$side"
  done
  if cmp -s "$work/$name.old" "$work/$name.new"; then
    echo "equal    $name ($(wc -l <"$work/$name.old") lines)"
  else
    echo "DIFFER   $name"; diff "$work/$name.old" "$work/$name.new" | head -5; fail=1
  fi
done
# A checkpointed run with its plot, its status and blocks (read by both binaries from the new
# run's checkpoint), and a report run twice (the second reads its cells back).
for side in old new; do
  bin=$(realpath "$(command -v "${!side}")") # the runs below change directory
  mkdir -p "$work/$side"
  (
    cd "$work/$side" || exit 1
    "$bin" crunch std:expf --from 1 --to 1.5 --block-bits 18 --checkpoint run.ckpt \
      --plot max.svg -q --rounding nearest 2>&1 | mask_times
    "$bin" report --targets std,libm --functions expf,logf --from 1 --to 1.125 \
      --block-bits 18 --inputs ../b32.txt --out rep -q 2>&1
    echo "exit $?"
    rm rep/report.md
    "$bin" report --targets std,libm --functions expf,logf --from 1 --to 1.125 \
      --block-bits 18 --inputs ../b32.txt --out rep -q 2>&1
    echo "exit $?"
  ) >"$work/runs.$side"
  cat "$work/$side/max.svg" >"$work/plot.$side"
  for f in "$work/$side"/rep/report.{md,html}; do mask_times <"$f"; done >"$work/pages.$side"
  sed -E 's/,[0-9.]+$/,T/' "$work/$side/rep/report.csv" >"$work/csv.$side"
  for f in "$work/$side"/rep/cells/*.json; do echo "${f##*/}"; strip_timings <"$f" | mask_times; done \
    >"$work/cells.$side"
  for f in "$work/$side"/rep/cells/*.svg; do echo "${f##*/}"; cat "$f"; done >"$work/cell-plots.$side"
done
for side in old new; do
  bin=${!side}
  {
    "$bin" crunch-status "$work/new/run.ckpt"
    "$bin" crunch-format "$work/new/run.ckpt"
  } 2>&1 | mask_times >"$work/status.$side"
done
sed -i -E 's/\| [0-9]+\.[0-9]{2} \|/| T |/; s/<td>[0-9]+\.[0-9]{2}<\/td>/<td>T<\/td>/' "$work"/pages.{old,new}
for f in runs status plot pages csv cells cell-plots; do
  if cmp -s "$work/$f.old" "$work/$f.new"; then echo "equal    $f file ($(wc -l <"$work/$f.old") lines)"; else echo "DIFFER   $f file"; diff "$work/$f.old" "$work/$f.new" | head -5; fail=1; fi
done
# Search jobs: --plan (without the projected times, and the sample sizes and polynomial degrees
# that the timed samples decide), a journal run interrupted by SIGINT and resumed, --out and
# --stats files, hardness --file on a .wc list, and mpirun. Each compares stdout, the exit
# status and, where it holds no timing, stderr.
same() {
  if cmp -s "$work/$1.old" "$work/$1.new"; then echo "equal    $1 ($(wc -l <"$work/$1.old") lines)"; else echo "DIFFER   $1"; diff "$work/$1.old" "$work/$1.new" | head -5; fail=1; fi
}
mask_projected() { sed -E 's/ +[0-9.]+ (s|min|h|days)$/ T/; s/projected [0-9.]+ (s|min|h|days)/projected T/'; }
printf '%s\n' '# hard-to-round cases of exp in binary64 (a header line)' \
  '0x1.aca7ae8da5a7bp+0 # directed k=1 bits=59.000' '0x1p-60' \
  '1.5   # a decimal that is a binary64 number' 'nan' '-inf' \
  '# range 0x1p-54 0x1p-53 directed bits>=53.000 inputs=2 rule=identity anchor=x' \
  'not-a-number' '-0x1.62e42fefa39efp+9' >"$work/list.wc"
interrupted=(search exp --format binary32 --from 1 --to 1.25 --bits 12 --algorithm reference -q --json --threads 2)
for side in old new; do
  bin=${!side}
  { "$bin" search exp --format binary32 --from 0x1p-30 --to 4 --plan 2>&1; echo "exit $?"; } | mask_projected \
    | sed -E '/^(-?0x|from )/ s/^(.{87}).{7}/\1 degrees/' >"$work/plan-text.$side"
  { "$bin" search exp --format binary32 --from 0x1p-30 --to 4 --plan --json 2>/dev/null; echo "exit $?"; } | strip_timings \
    | sed -E 's/"degrees": \[[0-9]+, [0-9]+\], //; s/"sample_inputs": [0-9]+, //' >"$work/plan-json.$side"
  { "$bin" search exp --from 1 --to 2 --algorithm reference --plan 2>&1; echo "exit $?"; } >"$work/plan-reference.$side"
  "$bin" "${interrupted[@]}" >"$work/uninterrupted.$side" 2>/dev/null
  "$bin" "${interrupted[@]}" --resume "$work/j.$side" >/dev/null 2>"$work/sigint.$side.err" &
  pid=$!
  # SIGINT once the journal holds a checkpoint (a line after its header), whatever the speed.
  while kill -0 $pid 2>/dev/null && [ "$(cat "$work/j.$side/journal.tmd" 2>/dev/null | wc -l)" -lt 2 ]; do
    sleep 0.1
  done
  kill -INT $pid 2>/dev/null
  wait $pid
  echo "exit $?" >"$work/interrupted.$side"
  sed "s#$work/j.$side#DIR#" "$work/sigint.$side.err" | grep interrupted >>"$work/interrupted.$side"
  "$bin" "${interrupted[@]}" --resume "$work/j.$side" >"$work/resumed.$side" 2>/dev/null
  echo "exit $?" >>"$work/resumed.$side"
  cmp -s <(head -n -1 "$work/resumed.$side") "$work/uninterrupted.$side" || { echo "DIFFER   $side: resumed run against uninterrupted run"; fail=1; }
  "$bin" search cbrt --format binary32 --from 0x1p-3 --to 0x1.2p-3 --bits 16 -q --algorithm reference \
    --out "$work/cbrt.$side.txt" --stats "$work/cbrt.$side.stats" >"$work/out-stdout.$side" 2>&1
  echo "exit $?" >>"$work/out-stdout.$side"
  sed -i -E 's/; [0-9.]+ s, [0-9]+ inputs\/s on [0-9]+ threads//' "$work/out-stdout.$side"
  cat "$work/cbrt.$side.txt" >"$work/out-table.$side"
  strip_timings <"$work/cbrt.$side.stats" >"$work/stats-reference.$side"
  "$bin" search exp --from 0x1p+0 --to 0x1.0004p+0 --bits 30 -q --json --resume "$work/js.$side" \
    --out "$work/exp.$side.jsonl" --stats "$work/exp.$side.stats" >/dev/null 2>&1
  cat "$work/exp.$side.jsonl" >"$work/out-json.$side"
  strip_timings <"$work/exp.$side.stats" >"$work/stats-journal.$side"
  "$bin" search exp --format binary32 --from 0x1p-60 --to 0x1p-56 --bits 30 --out "$work/rule.$side.wc" \
    >"$work/ranges-wc.$side" 2>&1
  echo "exit $?" >>"$work/ranges-wc.$side"
  sed -i -E 's/; [0-9.]+ s, [0-9]+ inputs\/s on [0-9]+ threads//' "$work/ranges-wc.$side"
  grep -v -e '^# command' -e '^# found by' -e '^# made' "$work/rule.$side.wc" >>"$work/ranges-wc.$side"
  "$bin" search exp --from 1 --to 2 --json --out "$work/bad.$side.wc" -q >"$work/out-refused.$side" 2>&1
  echo "exit $?" >>"$work/out-refused.$side"
  sed -i "s#$work/bad.$side.wc#FILE#" "$work/out-refused.$side"
  for h in "hardness-file|" "hardness-file-json|--json 0x1p-1" "hardness-strict|--strict"; do
    IFS='|' read -r name more <<<"$h"
    read -r -a extra <<<"$more"
    "$bin" hardness exp --file "$work/list.wc" "${extra[@]}" >"$work/$name.$side" 2>&1
    echo "exit $?" >>"$work/$name.$side"
    sed -i "s#$work/##" "$work/$name.$side"
  done
  cat "$work/list.wc" | "$bin" hardness exp --file /dev/stdin --strict >"$work/hardness-pipe.$side" 2>&1
  echo "exit $?" >>"$work/hardness-pipe.$side"
done
for f in plan-text plan-json plan-reference uninterrupted interrupted resumed out-stdout out-table \
  stats-reference out-json stats-journal ranges-wc out-refused hardness-file hardness-file-json \
  hardness-strict hardness-pipe; do
  same "$f"
done
old_mpi=${OLD_MPI:-$(dirname "$old")/tmd-mpi}
new_mpi=${NEW_MPI:-$(dirname "$0")/../target/mpi/release/tmd}
if command -v mpirun >/dev/null && [ -x "$old_mpi" ] && [ -x "$new_mpi" ]; then
  mpi_args=(search exp2 --format binary32 --from 0x1p+0 --to 0x1p+2 --bits 16 --json --exact -q)
  for side in old new; do
    var=${side}_mpi
    bin=${!var}
    for np in 1 2; do
      # A TMPDIR of its own: OpenMPI launchers started at once race on their session directory.
      mkdir -p "$work/ompi.$side.$np"
      TMPDIR="$work/ompi.$side.$np" mpirun --allow-run-as-root --oversubscribe -np $np "$bin" \
        "${mpi_args[@]}" --resume "$work/mpi.$side.$np" >"$work/mpi-np$np.$side" 2>/dev/null
      echo "exit $?" >>"$work/mpi-np$np.$side"
    done
  done
  same mpi-np1
  same mpi-np2
  { "$new" "${mpi_args[@]}" 2>/dev/null; echo "exit $?"; } >"$work/mpi-single"
  cmp -s "$work/mpi-np2.new" "$work/mpi-single" || { echo "DIFFER   mpirun -np 2 against a single process"; fail=1; }
else
  echo "skipped  mpirun cases (mpirun, $old_mpi or $new_mpi missing)"
fi
exit $fail
