#!/usr/bin/env bash
# A binary64 function next to its anchor, binade by binade, against its published list: exp and
# exp2 next to 0 (x in [2^-(j+1), 2^-j) above 0 and [-2^-j, -2^-(j+1)) below, j = 20 .. 60, then
# one range per sign for everything below 2^-61, which the regime rule decides), log next to 1
# (x = 1 + t, t in [2^-(j+1), 2^-j), j = 20 .. 52 above 1; x = 1 - t, j = 20 .. 53 below). Each
# range runs at K = 45 (BITS) with every breakpoint on the CPU; the summary gives its time and
# its cases against data/worst-cases/FUNC.wc, then the decisive comparison: every published
# input next to the anchor whose hardness (MPFR, `tmd hardness`) reaches k >= K - 1 must be
# listed, and the listed cases the list lacks are counted (each is MPFR-verified by the search).
#
#   [BITS=K] bash scripts/near-anchor.sh FUNC [DIR]   (FUNC: exp, exp2 or log; default DIR
#                                                      FUNC-near-anchor/; TMD=path/to/tmd)
#
# SIDES="below" or FROM_J=J run part of it (one side, or the binades from j = J on), to go on
# from an interrupted run in the same DIR; the final comparison reads every range's file there.
#
# Writes DIR/SIDE-J.jsonl (the cases of one range; J = rest for the ranges below 2^-61),
# DIR/SIDE-J.stats.json, DIR/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
func=${1:?usage: near-anchor.sh FUNC [DIR]}
case $func in
  exp | exp2) anchor=0 last_above=60 last_below=60 ;;
  # Above 1 the last range is [1, 1 + 2^-52) (x = 1 alone); below 1, [1 - 2^-53, 1).
  log) anchor=1 last_above=52 last_below=53 ;;
  *) echo "near-anchor.sh: FUNC must be exp, exp2 or log, not \`$func'" >&2; exit 2 ;;
esac
published_list=data/worst-cases/$func.wc
dir=${2:-$func-near-anchor}
# The binary of this checkout (built if stale), unless TMD names another.
tmd=${TMD:-target/release/tmd}
[ -n "${TMD:-}" ] || cargo build --release -p tmd || exit 1
mkdir -p "$dir"
hex() { python3 -c "import sys; print(float.hex(float(eval(sys.argv[1]))))" "$1"; }
bits=${BITS:-45}
echo "# $(date -u +%FT%TZ) $func K=$bits $($tmd --version), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) cores" | tee -a "$dir/summary.txt"

# One range: its cases, its stats, its line in the summary.
run_range() { # SIDE J FROM TO
  local out="$dir/$1-$2.jsonl" t0 rc secs check
  t0=$(date +%s.%N)
  "$tmd" search "$func" --from "$3" --to "$4" --bits "$bits" --breakpoints all --json -q \
    --stats "$dir/$1-$2.stats.json" >"$out" 2>>"$dir/errors.txt"
  rc=$?
  secs=$(python3 -c "print(round($(date +%s.%N) - $t0, 2))")
  check=$(python3 scripts/binade-check.py "$out" "$published_list" "$3" "$4" "$((bits - 1))")
  echo "$1 j=$2 exit $rc, $secs s: $check" | tee -a "$dir/summary.txt"
}

for side in ${SIDES:-above below}; do
  last=$([ "$side" = above ] && echo "$last_above" || echo "$last_below")
  for j in $(seq "${FROM_J:-20}" "$last"); do
    if [ "$side" = above ]; then
      run_range "$side" "$j" "$(hex "$anchor + 2**-$((j + 1))")" "$(hex "$anchor + 2**-$j")"
    else
      run_range "$side" "$j" "$(hex "$anchor - 2**-$j")" "$(hex "$anchor - 2**-$((j + 1))")"
    fi
  done
done
if [ "$anchor" = 0 ]; then
  # Zero and every binade below 2^-(last + 1), subnormals included, per sign.
  for side in ${SIDES:-above below}; do
    if [ "$side" = above ]; then
      run_range above rest 0x0p+0 "$(hex "2**-$((last_above + 1))")"
    else
      run_range below rest "$(hex "-2**-$((last_below + 1))")" -0x0p+0
    fi
  done
fi

# The decisive comparison: the published cases next to the anchor whose hardness reaches the
# search's threshold k >= K - 1 must all be listed; the per-range lines above count every
# published case, some of which are below the threshold.
"$tmd" hardness "$func" --file "$published_list" --json >"$dir/published-hardness.jsonl" 2>/dev/null
python3 - "$dir" "$bits" "$anchor" <<'PY' | tee -a "$dir/summary.txt"
import glob, json, sys
d, kmin, anchor = sys.argv[1], int(sys.argv[2]) - 1, float(sys.argv[3])
near = lambda x: abs(x - anchor) < 2**-20
listed = {}
for p in glob.glob(f"{d}/above-*.jsonl") + glob.glob(f"{d}/below-*.jsonl"):
    for line in open(p):
        c = json.loads(line)
        if "x" in c and "k" in c:
            listed[float.fromhex(c["x"])] = c["k"]
published = {}
for line in open(f"{d}/published-hardness.jsonl"):
    c = json.loads(line)
    if "x" in c and "k" in c and near(float.fromhex(c["x"])):
        published[float.fromhex(c["x"])] = c["k"]
due = {x for x, k in published.items() if k >= kmin}
missing = sorted(due - set(listed))
extra = sorted(x for x in listed if x not in published)
top = max(published.values()) if published else None
print(f"|x - {anchor:g}| < 2^-20 at K = {kmin + 1}: {len(listed)} cases listed; {len(published)} published, "
      f"{len(due)} of them with k >= {kmin} (max k {top}), {len(due) - len(missing)} "
      f"of those listed, {len(missing)} missing" + (": " + " ".join(map(float.hex, missing[:5])) if missing else "")
      + f"; {len(extra)} listed cases not published" + (": " + " ".join(map(float.hex, extra[:5])) if extra else ""))
PY
