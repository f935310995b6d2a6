#!/usr/bin/env bash
# log next to 1 in binary64, binade by binade of t = |x - 1| < 2^-20 (x = 1 + t above 1,
# x = 1 - t below), at K = 45 (BITS) with every breakpoint on the CPU: each binade's time, and
# its cases against the published list (data/worst-cases/log.wc, which is not complete: a case
# listed here and not there is MPFR-verified like every case, and counted, not flagged as an
# error; its cases next to 1 have k <= 40, so a run at BITS=31 is the one that meets them).
#
#   [BITS=K] bash scripts/log-near-one.sh [DIR]      (default log-near-one/; TMD=path/to/tmd)
#
# Writes DIR/SIDE-J.jsonl (the cases of t in [2^-(J+1), 2^-J)), DIR/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-log-near-one}
# The binary of this checkout (built if stale), unless TMD names another.
tmd=${TMD:-target/release/tmd}
[ -n "${TMD:-}" ] || cargo build --release -p tmd || exit 1
mkdir -p "$dir"
hex() { python3 -c "import sys; print(float.hex(float(eval(sys.argv[1]))))" "$1"; }
echo "# $(date -u +%FT%TZ) K=${BITS:-45} $($tmd --version), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) cores" | tee -a "$dir/summary.txt"
bits=${BITS:-45}
for side in above below; do
  # Above 1 the last range is [1, 1 + 2^-52) (x = 1 alone); below 1, [1 - 2^-53, 1).
  for j in $(seq 20 $([ "$side" = above ] && echo 52 || echo 53)); do
    if [ "$side" = above ]; then
      from=$(hex "1 + 2**-$((j + 1))") to=$(hex "1 + 2**-$j")
    else
      from=$(hex "1 - 2**-$j") to=$(hex "1 - 2**-$((j + 1))")
    fi
    out="$dir/$side-$j.jsonl"
    t0=$(date +%s.%N)
    "$tmd" search log --from "$from" --to "$to" --bits "$bits" --breakpoints all --json -q \
      --stats "$dir/$side-$j.stats.json" >"$out" 2>>"$dir/errors.txt"
    rc=$?
    secs=$(python3 -c "print(round($(date +%s.%N) - $t0, 2))")
    check=$(python3 scripts/binade-check.py "$out" data/worst-cases/log.wc "$from" "$to" "$((bits - 1))")
    echo "$side j=$j exit $rc, $secs s: $check" | tee -a "$dir/summary.txt"
  done
done

# The decisive comparison: the published cases next to 1 whose hardness (MPFR, tmd hardness)
# reaches the search's threshold k >= K - 1 must all be listed; the per-binade lines above count
# every published case, most of which are below the threshold.
"$tmd" hardness log --file data/worst-cases/log.wc --json >"$dir/published-hardness.jsonl" 2>/dev/null
python3 - "$dir" "$bits" <<'PY' | tee -a "$dir/summary.txt"
import glob, json, sys
d, kmin = sys.argv[1], int(sys.argv[2]) - 1
near = lambda x: abs(x - 1) < 2**-20
listed = {}
for p in glob.glob(f"{d}/above-*.jsonl") + glob.glob(f"{d}/below-*.jsonl"):
    for line in open(p):
        c = json.loads(line)
        if "x" in c and "k" in c:
            listed[float.fromhex(c["x"])] = c["k"]
published = {}
for line in open(f"{d}/published-hardness.jsonl"):
    c = json.loads(line)
    if "x" in c and near(float.fromhex(c["x"])):
        published[float.fromhex(c["x"])] = c["k"]
due = {x for x, k in published.items() if k >= kmin}
missing = sorted(due - set(listed))
extra = sorted(x for x in listed if x not in published)
print(f"|x - 1| < 2^-20 at K = {kmin + 1}: {len(listed)} cases listed; {len(published)} published, "
      f"{len(due)} of them with k >= {kmin} (max k {max(published.values())}), {len(due) - len(missing)} "
      f"of those listed, {len(missing)} missing" + (": " + " ".join(map(float.hex, missing[:5])) if missing else "")
      + f"; {len(extra)} listed cases not published")
PY
