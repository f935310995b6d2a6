#!/usr/bin/env bash
# The crunch part of scripts/gpu-check.sh, run by it on the device machine with the
# same environment (OUT, tmd, log): CUDA targets whose errors are analysed on the device
# against the same run analysed on the host, CUDA against the CPU backend for a target that
# exists on both, then throughput.
set -uo pipefail
mkdir -p "$OUT/c"

# tmd crunch ARGS > $OUT/c/NAME.json; prints "exit seconds".
crunch() {
  local name=$1
  shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout "${TMO:-300}" "$tmd" crunch "$@" --json -q >"$OUT/c/$name.json" 2>>"${CRUNCH_STDERR:-$OUT/errors.txt}"
  rc=$?
  t1=$(date +%s.%N)
  echo "$rc $(python3 -c "print(round($t1 - $t0, 2))")"
}

# Compares two reports, timings and notes aside (and the keys named in SKIP_KEYS).
same_report() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except Exception as e:
    print(f"unreadable ({e})")
    sys.exit()
skip = {"seconds", "note", "target"} | set(os.environ.get("SKIP_KEYS", "").split())
d = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if k not in skip and a.get(k) != b.get(k)}
print("identical" if not d else f"DIFFER {d}")
PY
}

summary_of() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"inputs {d['inputs']} max_ulp {d['max_ulp']} at {d['argmax']} cr {d['correctly_rounded']} faithful {d['faithful']} worse {d['worse']} mpfr {d['mpfr_inputs']} {d['seconds']:.2f} s = {d['inputs']/d['seconds']:.3e}/s\")" "$1" 2>/dev/null || echo "no report"
}

parts=${CRUNCH_PARTS:-checks speed all}
if [[ " $parts " == *" checks "* ]]; then
# 1. Analysis on the device = analysis on the host, for CUDA's own exp (binary64).
n=0
ok=0
for w in "1 0x1.00000001p+0" "0x1.62e42fefa39p+9 0x1.62e42fefa3ap+9" \
  "-0x1.6232bdd7abcd3p+9 -0x1.6232bdd7ab9p+9" "-0x1.74910d52d3051p+9 -0x1.74910d52d2f51p+9" \
  "-0x1p-30 -0x1.fffffffp-31" "0x1.62e42fefa38p+9 0x1.62e42fefa3ap+9" "-0x1.8p+9 -0x1.7fffffffp+9" \
  "0x1.0000000000001p-1022 0x1.0000000100001p-1022" "-1 -0x1.fffffffp-1" "0x1.5p+5 0x1.5000001p+5"; do
  set -- $w
  n=$((n + 1))
  crunch "exp-host-$n" cuda:exp --backend cuda --host-analysis --from "$1" --to "$2" >/dev/null
  crunch "exp-dev-$n" cuda:exp --backend cuda --from "$1" --to "$2" >/dev/null
  r=$(same_report "$OUT/c/exp-host-$n.json" "$OUT/c/exp-dev-$n.json")
  [ "$r" = identical ] && ok=$((ok + 1)) || log "crunch window [$1, $2): device analysis $r"
done
log "crunch cuda:exp: $ok of $n windows give identical reports with the analysis on the device and on the host"

# 2. CUDA against the CPU backend: the VRECPE emulation (binary64 analysed on the device, and
#    binary32).
n=0
ok=0
for t in "emul:vrecpe-nr3|1|0x1.0000001p+0" "emul:vrecpe-nr1|0x1p-1000|0x1.0000001p-1000" \
  "emul:vrecpe-nr2|-0x1.0000001p+1020|-0x1p+1020" "emul:vrecpe-nr3f|1|2" "emul:vrecpe-nr2f|0x1p-149|0x1p-120"; do
  IFS='|' read -r target from to <<<"$t"
  n=$((n + 1))
  crunch "emul-cpu-$n" "$target" --from "$from" --to "$to" >/dev/null
  res=$(crunch "emul-cuda-$n" "$target" --backend cuda --from "$from" --to "$to")
  r=$(SKIP_KEYS="block_bits blocks" same_report "$OUT/c/emul-cpu-$n.json" "$OUT/c/emul-cuda-$n.json")
  [ "$r" = identical ] && ok=$((ok + 1)) || log "crunch $target [$from, $to): cuda $r"
  log "crunch $target cuda: $(summary_of "$OUT/c/emul-cuda-$n.json"); cpu $(python3 -c "import json; print(round(json.load(open('$OUT/c/emul-cpu-$n.json'))['seconds'],2))") s"
done
log "crunch emul: $ok of $n windows give identical reports on cuda and cpu"
fi

# 3. Throughput of binary64 exp against the double-double reference, on the device.
if [[ " $parts " == *" speed "* ]]; then
for r in 1 2 3; do
  TMO=60 crunch "exp-speed-$r" cuda:exp --backend cuda --from 1 --to 0x1.0001p+0 >/dev/null
  log "crunch cuda:exp [1, 1+2^-16) run $r: $(summary_of "$OUT/c/exp-speed-$r.json")"
done
fi
if [[ " $parts " == *" speed "* || " $parts " == *" estimate "* ]]; then
for r in 1 2; do
  TMO=60 crunch "exp-estimate-$r" cuda:exp --backend cuda --from -inf --to inf --estimate >/dev/null
  log "crunch cuda:exp whole-domain estimate run $r: $(head -c 600 "$OUT/c/exp-estimate-$r.json")"
done
fi

# 4. Every binary32 input of CUDA's expf and __expf (errors analysed on the host's 16 cores).
[[ " $parts " == *" all "* ]] && for t in cuda:expf cuda:__expf; do
  TMO=${ALL_TMO:-200} crunch "all-$t" "$t" --backend cuda --from -inf --to inf >/dev/null
  log "crunch $t all binary32: $(summary_of "$OUT/c/all-$t.json")"
done

# 5. binary32 targets analysed on the device (a double-double reference there): on sampled
# windows the report equals the host analysis's (the MPFR count and the reference's name
# aside: the host's binary64 reference leaves more inputs to MPFR), then every binary32
# input, twice.
[[ " $parts " == *" b32 "* ]] && for f in ${B32_FUNCTIONS:-expf logf sinf cosf tanf}; do
  [ "$(time_left)" -lt 60 ] && { log "crunch cuda:$f: skipped (time)"; continue; }
  crunch "b32-$f-host" "cuda:$f" --backend cuda --host-analysis --from -inf --to inf --sample 64 >/dev/null
  crunch "b32-$f-dev" "cuda:$f" --backend cuda --from -inf --to inf --sample 64 >/dev/null
  log "crunch cuda:$f 64 sampled windows, device against host analysis: $(SKIP_KEYS="mpfr_inputs reference" same_report "$OUT/c/b32-$f-host.json" "$OUT/c/b32-$f-dev.json")"
  # Every input three times at blocks of 2^24 (the device default): run 1 traced (launches
  # per block, batches given to the host's analysis), runs 2 and 3 timed.
  for r in 1 2 3; do
    [ "$(time_left)" -lt 50 ] && { log "crunch cuda:$f run $r: skipped (time)"; continue; }
    if [ "$r" = 1 ]; then
      CRUNCH_STDERR="$OUT/c/b32-$f-trace.txt" TMD_TRACE_DEVICE=1 TMO=${B32_TMO:-40} crunch "b32-$f-all-$r" "cuda:$f" --backend cuda --from -inf --to inf >/dev/null
    else
      TMO=${B32_TMO:-40} crunch "b32-$f-all-$r" "cuda:$f" --backend cuda --from -inf --to inf >/dev/null
    fi
    log "crunch cuda:$f all binary32 (device analysis, blocks 2^24) run $r: $(summary_of "$OUT/c/b32-$f-all-$r.json"); note $(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('note'))" "$OUT/c/b32-$f-all-$r.json" 2>/dev/null)"
  done
  log "crunch cuda:$f traced run: $(grep -c 'launch 1 ' "$OUT/c/b32-$f-trace.txt") batches, $(grep -c 'tmd-trace: analyse.*launch' "$OUT/c/b32-$f-trace.txt") launches, $(grep -c 'launch 2 ' "$OUT/c/b32-$f-trace.txt") relaunched, $(grep -c 'given to the host' "$OUT/c/b32-$f-trace.txt") given to the host"
  log "crunch cuda:$f all binary32: runs 1 and 2 give $(same_report "$OUT/c/b32-$f-all-1.json" "$OUT/c/b32-$f-all-2.json") reports"
done

# 6. Where a binary32 trigonometric crunch spends its time: the positive inputs below 2^21
# (the reference's Cody-Waite reduction; CUDA's fast path) against those above (Payne-Hanek
# on both sides), for sinf against tanf (B32_SPLIT="sinf tanf").
for f in ${B32_SPLIT:-}; do
  for w in "0 0x1p+21" "0x1p+21 inf"; do
    set -- $w
    [ "$(time_left)" -lt 30 ] && { log "crunch cuda:$f [$1, $2): skipped (time)"; continue; }
    TMO=${B32_TMO:-40} crunch "b32-$f-split-$1" "cuda:$f" --backend cuda --from "$1" --to "$2" >/dev/null
    log "crunch cuda:$f [$1, $2): $(summary_of "$OUT/c/b32-$f-split-$1.json")"
  done
done
