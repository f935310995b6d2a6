#!/usr/bin/env bash
# The binary32 accuracy report of the system's libraries in all four rounding modes:
# every finite input of expf, logf, sinf, cosf and tanf of glibc, musl and SLEEF (`tmd report`,
# one cell per library, function and mode), then powf of each library on a seeded random sample
# of pairs and on a structured sample (pairs where x^y is exact or a midpoint), since pairs are
# never exhaustive in binary32. Resumable: the same command with the same DIR goes on from the
# cells and samples already done.
#
#   bash scripts/library-report.sh [DIR]        (default library-report/; TMD=path/to/tmd)
#
# Writes DIR/report.{md,csv,html}, DIR/cells/, DIR/powf.LIB.{random,structured}.json and
# DIR/times.txt (the wall time of each step).
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-library-report}
# The binary of this checkout (built if stale), unless TMD names another.
tmd=${TMD:-target/release/tmd}
[ -n "${TMD:-}" ] || cargo build --release -p tmd || exit 1
mkdir -p "$dir"
stamp() { echo "$(date -u +%FT%TZ) $*" | tee -a "$dir/times.txt"; }

stamp "start: $($tmd --version), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null)"
t0=$(date +%s)
"$tmd" report --targets glibc,musl,sleef --functions expf,logf,sinf,cosf,tanf --rounding all \
  --out "$dir" -q || exit $?
stamp "report: $(($(date +%s) - t0)) s (this run; cells finished by an earlier run are read back)"

# powf: 10^8 random pairs per mode (each argument a finite binary32 number of uniformly random
# bit pattern), and 2^20 structured pairs per mode.
for lib in glibc musl sleef; do
  for kind in random structured; do
    json="$dir/powf.$lib.$kind.json"
    [ -s "$json" ] && continue
    case $kind in
      random) flags=(--sample 100000000 --seed 1) ;;
      structured) flags=(--structured --sample 1048576 --seed 1) ;;
    esac
    t0=$(date +%s)
    "$tmd" crunch "$lib:powf" "${flags[@]}" --rounding all --json -q >"$json.tmp" && mv "$json.tmp" "$json"
    stamp "$lib:powf $kind: exit $?, $(($(date +%s) - t0)) s"
  done
done
stamp "done"
