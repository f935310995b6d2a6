#!/usr/bin/env bash
# One call of the device tool: check the CUDA (and NVIDIA OpenCL) backends against the CPU
# backend and time them. Logs go to $OUT (or ./gpu-check-out); the last
# lines printed are a short summary.
#
# The device machine has no Rust toolchain: build here, copy the binaries to a stable place,
# and carry them:
#   bash scripts/gpu-check.sh --prepare
#   run(command="bash scripts/gpu-check.sh [search] [crunch] [binade]", carry=["target/gpu-bin", ".ocl"])
# --prepare also downloads Debian's OpenCL ICD loader (ocl-icd-libopencl1) into .ocl/, since the
# device machine is bare; NVIDIA's OpenCL driver (libnvidia-opencl.so.1) comes with its driver.
# --prepare also puts references in target/gpu-bin/ref/ (see below). Sections: search (random
# windows, I0, NMDM, I0..1023 at equal chunks), crunch (scripts/gpu-crunch.sh), final (the
# timings in priority order), tune (knobs of the search kernel on I0), i0 (I0 end to end
# with traces), estimate (crunch --estimate on the device), dpi (domains per work-item), trace (where a device call's time goes), binade ([1,2) of exp at
# K = 45 against the published list; journaled, resumed by a later call), xfloat (the FFT study
# on CUDA), xbits (xfloat kernels on CUDA against the CPU), xfocl (the same on NVIDIA's OpenCL),
# flat (nearly flat binary64 binades, CUDA against the CPU and the published lists), steep
# (exp's steep binades and sin, cos on [2^11, 2^12): rates, step times, CUDA against the CPU),
# mpi (1, 2 and 3 ranks on the GPU against the CPU output, and their times), newdata (pieces
# of sin and cos on [2^11, 2^12) at K = 43, journaled: scripts/new-data.sh), plan (--plan of
# whole binary64 exp on CUDA, of sin and cos on [2^11, 2^12), of exp's twins).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
  cargo build --release -p tmd || exit 1
  mkdir -p target/gpu-bin/ref
  cp target/release/tmd target/gpu-bin/ && strip target/gpu-bin/tmd
  # The device machine gets no git history: the commit the binaries come from travels with them
  # ("-dirty" when the working tree differed from it), and every log names it.
  commit=$(git rev-parse HEAD)
  git diff --quiet HEAD -- crates scripts Cargo.toml Cargo.lock || commit="$commit-dirty"
  echo "$commit" >target/gpu-bin/COMMIT
  # The xfloat section's FFT study: CUDA transforms checked against the CPU's bits.
  cargo build --release -p tmd-gpu --example fft_study --example xfloat_throughput || exit 1
  for e in fft_study xfloat_throughput; do
    cp "target/release/examples/$e" target/gpu-bin/ && strip "target/gpu-bin/$e"
  done
  # ... and the OpenCL bit-identity tests of the xfloat kernels, run there on the GPU's OpenCL.
  for t in xfloat_opencl xfloat_quad_opencl fft_opencl; do
    exe=$(cargo test --release -p tmd-gpu --test "$t" --no-run 2>&1 | grep -o "target/release/deps/$t-[0-9a-f]*" | head -1)
    [ -n "$exe" ] && cp "$exe" "target/gpu-bin/$t" && strip "target/gpu-bin/$t" || exit 1
  done
  # References for ranges too long to repeat on the CPU there: the published exp worst cases,
  # and the CPU backend's I0..1023 output (its sha256; computed 2026-11-23, 739.5 s on 1 thread).
  cp data/worst-cases/exp.wc data/worst-cases/exp2.wc target/gpu-bin/ref/
  cp docs/logs/search-I0..1023-cpu.sha256 target/gpu-bin/ref/I0..1023-cpu.sha256
  cp docs/logs/search-I0..1023-cpu-1thread.stats.json target/gpu-bin/ref/I0..1023-cpu.stats.json
  # The mpi section: tmd built with MPI, and this machine's OpenMPI (the device machine has
  # none) copied file by file from its Debian packages into target/gpu-bin/mpi, where
  # OPAL_PREFIX relocates it.
  cargo build --release -p tmd --features mpi --target-dir target/mpi || exit 1
  cp target/mpi/release/tmd target/gpu-bin/tmd-mpi && strip target/gpu-bin/tmd-mpi
  rm -rf target/gpu-bin/mpi && mkdir -p target/gpu-bin/mpi
  dest=$PWD/target/gpu-bin/mpi
  for p in openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 \
    libevent-pthreads-2.1-7 libevent-2.1-7; do
    # From / with relative paths: cp --parents then copies the directories' modes too.
    (cd / && dpkg -L "$p" | sed 's|^/||' | while read -r f; do
      if [ -L "$f" ] || [ -f "$f" ]; then cp -a --parents "$f" "$dest/" || exit 1; fi
    done) || exit 1
  done
  rm -rf target/gpu-bin/mpi/usr/share/doc target/gpu-bin/mpi/usr/share/man
  mkdir -p .ocl && (cd .ocl && ls ./*.deb >/dev/null 2>&1 || apt-get download ocl-icd-libopencl1 >/dev/null)
  mkdir -p .git/info && (grep -qx '/.ocl/' .git/info/exclude 2>/dev/null || echo '/.ocl/' >>.git/info/exclude)
  ls -la target/gpu-bin .ocl
  exit 0
fi

script_start=$(date +%s)
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
# Every line says when it was written (seconds since the script started; scripts/gpu-crunch.sh,
# run from here, inherits the start and the function).
export GPU_CHECK_START=${GPU_CHECK_START:-$(date +%s)}
log() { echo "[+$(($(date +%s) - GPU_CHECK_START))s] $*" | tee -a "$OUT/summary.txt"; }
# Seconds left of BUDGET (default 540): sections skip what would not finish.
time_left() { echo $((${BUDGET:-540} - ($(date +%s) - GPU_CHECK_START))); }
bin=target/gpu-bin
tmd=$bin/tmd
sections=${*:-search crunch}

# --- Runtimes: the ICD loader with NVIDIA's OpenCL driver, and NVRTC from the CUDA toolkit
# (cudarc opens libnvrtc.so by name: a directory with that link goes on LD_LIBRARY_PATH).
if ! ldconfig -p | grep -q libOpenCL.so.1; then
  for f in .ocl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
  lib=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null | head -1)
  mkdir -p /etc/OpenCL/vendors
  [ -n "$lib" ] && echo "$lib" >/etc/OpenCL/vendors/nvidia.icd
fi
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.1[0-9]* /usr/local/cuda*/targets/x86_64-linux/lib/libnvrtc.so.1[0-9]* 2>/dev/null | grep -v builtins | head -1)
if [ -n "$nvrtc" ]; then
  mkdir -p /tmp/nvrtc && ln -sf "$nvrtc" /tmp/nvrtc/libnvrtc.so
  export LD_LIBRARY_PATH=/tmp/nvrtc:$(dirname "$nvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
log "date: $(date -u); sections: $sections"
log "commit: $(cat $bin/COMMIT 2>/dev/null || echo 'unknown (run --prepare)')"
log "cuda driver: $(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' || echo none); nvrtc library: $(basename "${nvrtc:-none}")"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$OUT/summary.txt"
log "nvrtc: ${nvrtc:-none found}; libcuda: $(ldconfig -p | grep -c 'libcuda.so') entries; OpenCL vendors: $(ls /etc/OpenCL/vendors/ 2>&1)"
log "cores: $(nproc)"

# Runs `tmd search ARGS` on a backend; writes NAME.txt (cases) and NAME.json (stats).
search() {
  local name=$1 backend=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  timeout "${TMO:-600}" "$tmd" search "$@" --backend "$backend" -q --json --stats "$OUT/s/$name.json" \
    >"$OUT/s/$name.txt" 2>>"$OUT/errors.txt"
  local rc=$?
  t1=$(date +%s.%N)
  echo "$rc $(python3 -c "print(round($t1 - $t0, 3))")"
}

# Phase counts, candidates and NMDM of two stats files, timings aside, and the division
# threshold (the device's default is 3, the CPU's 0: a knob that changes no count).
same_counts() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p))["filter"] for p in sys.argv[1:3])
def strip(f):
    return {k: ({kk: vv for kk, vv in v.items() if kk != "thread_seconds"} if isinstance(v, dict) else v)
            for k, v in f.items() if "seconds" not in k and k not in ("nmdm_warp", "division_threshold")}
print("equal" if strip(a) == strip(b) else "DIFFER")
PY
}

if [[ " $sections " == *" search "* ]]; then
  mkdir -p "$OUT/s"
  # 1. Random windows: CUDA against the CPU backend, same cases and phase counts.
  python3 - >"$OUT/s/windows.txt" <<'PY'
import random
rng = random.Random(20261123)
# function, domain [lo, hi) as binary64 floats, format args
plan = [("exp", 1.0, 2.0), ("exp", -8.0, -1.0), ("log", 1.0, 2.0), ("sin", 0.5, 1.5),
        ("exp2", 0.5, 1.0), ("cbrt", 1.0, 8.0)]
for func, lo, hi in plan:
    for algo in ("regular", "lefevre"):
        x = rng.uniform(lo, hi)
        w = abs(x) * 2.0 ** -rng.randint(14, 17)
        print(func, algo, float.hex(x), float.hex(x + w))
PY
  n=0
  ok=0
  while read -r func algo from to; do
    n=$((n + 1))
    for bits in "32 --breakpoints directed" "40 --breakpoints all"; do
      # Equal chunks on both backends (the device default is 2^38): equal phase counts.
      args="$func --from $from --to $to --bits $bits --algorithm $algo --chunk-bits 34"
      rc_cpu=$(search "w$n-cpu" cpu $args)
      rc_cuda=$(search "w$n-cuda" cuda $args)
      if cmp -s "$OUT/s/w$n-cpu.txt" "$OUT/s/w$n-cuda.txt" && [ "$(same_counts "$OUT/s/w$n-cpu.json" "$OUT/s/w$n-cuda.json")" = equal ]; then
        ok=$((ok + 1))
      else
        log "MISMATCH $args: cpu $rc_cpu cuda $rc_cuda"
      fi
    done
  done <"$OUT/s/windows.txt"
  log "random windows: $ok of $((2 * n)) runs identical on cuda and cpu (cases, phase counts, NMDM)"

  # 2. I0: CPU (all cores), CUDA and OpenCL, three runs each.
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed --chunk-bits 34"
  for backend in cpu cuda; do
    for r in 1 2 3; do
      res=$(search "I0-$backend-$r" "$backend" $i0)
      log "I0 $backend run $r: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, device', round(f.get('device_thread_seconds',0),4), 's')" "$OUT/s/I0-$backend-$r.json" 2>&1)"
    done
    cmp -s "$OUT/s/I0-$backend-1.txt" "$OUT/s/I0-cpu-1.txt" && log "I0 $backend: cases equal the CPU's; counts $(same_counts "$OUT/s/I0-cpu-1.json" "$OUT/s/I0-$backend-1.json")" \
      || log "I0 $backend: cases DIFFER from the CPU's"
  done
  for algo in regular lefevre; do
    search "I0-nmdm-$algo" cuda $i0 --algorithm "$algo" --warp-nmdm >/dev/null
    log "I0 NMDM $algo: $(python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['filter']; print('per 32 domains', f['nmdm'], 'per warp', f['nmdm_warp'])" "$OUT/s/I0-nmdm-$algo.json")"
  done

  # 3. I0..1023 on CUDA, against the CPU output computed beforehand (target/gpu-bin/ref).
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
  # Chunks of 2^38 (the device default; smaller chunks pay the per-call costs many times over):
  # cases compared, not counts.
  res=$(TMO=300 search I0..1023-cuda cuda $big --chunk-bits 38)
  log "I0..1023 cuda: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],3), 's, device calls', round(f['device_thread_seconds'],1), 'thread-s, steps', {k: round(v, 2) for k, v in f.get('device_step_thread_seconds', {}).items()}, 'generation', round(f['generation_thread_seconds'],1), 'verification', round(f['verification_thread_seconds'],1))" "$OUT/s/I0..1023-cuda.json" 2>&1)"
  if [ -f "$bin/ref/I0..1023-cpu.sha256" ]; then
    [ "$(sha256sum <"$OUT/s/I0..1023-cuda.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
      && log "I0..1023 cuda: cases equal the CPU backend's (sha256 of the output computed beforehand)" \
      || log "I0..1023 cuda: cases DIFFER from the CPU backend's"
  fi
  rm -f "$OUT/s/I0..1023-cuda.txt"
fi

if [[ " $sections " == *" final "* ]]; then
  # The figures after the device-side fixes, in priority order within one lease.
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
  for cfg in "cpu|34|" "cuda|34|" "cuda|38|" "cuda|38|--inline-phases" "cuda|38|--work-group 64" "cuda|38|--work-group 256"; do
    IFS='|' read -r backend cb extra <<<"$cfg"
    for r in 1 2 3; do
      tag="I0-$backend-c$cb${extra// /}-$r"
      res=$(search "$tag" "$backend" $i0 --chunk-bits "$cb" $extra)
      log "I0 $backend chunk 2^$cb $extra run $r: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, device calls', round(f.get('device_thread_seconds',0),4), 'thread-s, kernels', {k: round(v, 4) for k, v in f.get('device_step_thread_seconds', {}).items()}, 'generation', round(f['generation_thread_seconds'],4), 'thread-s')" "$OUT/s/$tag.json" 2>&1)"
    done
    cmp -s "$OUT/s/${tag%-*}-1.txt" "$OUT/s/I0-cpu-c34-1.txt" && log "I0 $backend chunk 2^$cb $extra: cases equal the CPU's"
  done
  log "I0 cuda chunk 2^38 inline: counts $(same_counts "$OUT/s/I0-cuda-c38-1.json" "$OUT/s/I0-cuda-c38--inline-phases-1.json")"
  log "I0 cuda chunk 2^34: counts $(same_counts "$OUT/s/I0-cpu-c34-1.json" "$OUT/s/I0-cuda-c34-1.json")"
  export OUT tmd
  export -f log time_left
  export BUDGET=${BUDGET:-540}
  CRUNCH_PARTS=speed bash scripts/gpu-crunch.sh
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
  res=$(TMO=150 search I0..1023-cuda cuda $big --chunk-bits 38)
  log "I0..1023 cuda chunk 2^38: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],3), 's, device calls', round(f['device_thread_seconds'],1), 'thread-s, kernels', {k: round(v, 1) for k, v in f.get('device_step_thread_seconds', {}).items()}, 'generation', round(f['generation_thread_seconds'],1), 'verification', round(f['verification_thread_seconds'],1))" "$OUT/s/I0..1023-cuda.json" 2>&1)"
  [ "$(sha256sum <"$OUT/s/I0..1023-cuda.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
    && log "I0..1023 cuda: cases equal the CPU backend's (sha256 of the output computed beforehand)" \
    || log "I0..1023 cuda: cases DIFFER from the CPU backend's (or the run did not finish)"
  rm -f "$OUT/s/I0..1023-cuda.txt"
  res=$(TMO=150 search I0..1023-cuda-inline cuda $big --chunk-bits 38 --inline-phases)
  log "I0..1023 cuda chunk 2^38 --inline-phases: exit/seconds $res"
  [ "$(sha256sum <"$OUT/s/I0..1023-cuda-inline.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
    && log "I0..1023 cuda inline: cases equal the CPU backend's" \
    || log "I0..1023 cuda inline: cases DIFFER from the CPU backend's (or the run did not finish)"
  rm -f "$OUT/s/I0..1023-cuda-inline.txt"
  CRUNCH_PARTS="checks all" ALL_TMO=60 bash scripts/gpu-crunch.sh
fi

if [[ " $sections " == *" tune "* ]]; then
  # Knobs of the search kernel on I0 (two runs each, the first warms the cubin cache): work-group
  # size, division threshold, split phases, register cap (TMD_NVRTC_OPTIONS), chunk size.
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
  search I0-ref cpu $i0 >/dev/null
  for cfg in ${TUNE_CONFIGS:-"|38|" "|38|--inline-phases" "|38|--work-group 64" "|38|--work-group 256" \
    "|38|--division-threshold 3" "--maxrregcount=128|38|" "|39|" "|40|"}; do
    IFS='|' read -r nvrtc cb extra <<<"$cfg"
    extra=${extra//,/ } # TUNE_CONFIGS entries write spaces as commas
    for r in 1 2 3; do
      tag="tune-c$cb${extra// /}${nvrtc//[-=]/}-$r"
      res=$(TMD_NVRTC_OPTIONS="$nvrtc" search "$tag" cuda $i0 --chunk-bits "$cb" $extra)
      [ "$r" = 1 ] && continue
      log "I0 cuda chunk 2^$cb $extra $nvrtc run $r: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, device calls', round(f['device_thread_seconds'],4), 'thread-s, steps', {k: round(v, 4) for k, v in f.get('device_step_thread_seconds', {}).items()}, 'thread-s')" "$OUT/s/$tag.json" 2>&1)"
    done
    cmp -s "$OUT/s/${tag%-*}-1.txt" "$OUT/s/I0-ref.txt" || log "I0 cuda chunk 2^$cb $extra $nvrtc: cases DIFFER from the CPU's"
  done
  # I0..1023: chunk size and host threads (the host's share of each device call).
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
  for cfg in ${TUNE_BIG:-"39|16" "40|16" "38|8"}; do
    IFS='|' read -r cb th <<<"$cfg"
    tag="tune-big-c$cb-t$th"
    res=$(TMO=60 search "$tag" cuda $big --chunk-bits "$cb" --threads "$th")
    log "I0..1023 cuda chunk 2^$cb threads $th: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print('search', round(d['seconds'],3), 's, device calls', round(f['device_thread_seconds'],1), 'thread-s, steps', {k: round(v, 2) for k, v in f.get('device_step_thread_seconds', {}).items()}, 'generation', round(f['generation_thread_seconds'],1), 'verification', round(f['verification_thread_seconds'],1))" "$OUT/s/$tag.json" 2>&1)"
    [ "$(sha256sum <"$OUT/s/$tag.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
      || log "I0..1023 cuda chunk 2^$cb threads $th: cases DIFFER from the CPU backend's (or the run did not finish)"
    rm -f "$OUT/s/$tag.txt"
  done
fi

if [[ " $sections " == *" trace "* ]]; then
  # Where a device call's time goes outside its kernels (TMD_TRACE_DEVICE: one stderr line per
  # call with the time of each step), for I0 (one call) and I0..1023 (1024 calls).
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed --chunk-bits 39"
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed --chunk-bits 39"
  for r in 1 2 3; do
    TMD_TRACE_DEVICE=1 "$tmd" search $i0 --backend cuda -q --out /dev/null 2>"$OUT/s/trace-I0-$r.txt"
    log "trace I0 run $r: $(grep tmd-trace "$OUT/s/trace-I0-$r.txt")"
  done
  TMD_TRACE_DEVICE=1 timeout 60 "$tmd" search $big --backend cuda -q --out /dev/null 2>"$OUT/s/trace-big.txt"
  log "trace I0..1023 (mean per call): $(python3 - "$OUT/s/trace-big.txt" <<'PY'
import re, sys
sums, n = {}, 0
for line in open(sys.argv[1]):
    if line.startswith("tmd-trace"):
        n += 1
        for what, us in re.findall(r"(\w+) (\d+) us", line):
            sums[what] = sums.get(what, 0) + int(us)
print(n, "calls:", ", ".join(f"{k} {v / max(n, 1) / 1000:.2f} ms" for k, v in sums.items()))
PY
)"
fi

if [[ " $sections " == *" i0 "* ]]; then
  # I0 end to end at chunks 2^39 (one device call) and 2^38 (two), with each call's trace
  # (TMD_TRACE_DEVICE: the program's preparation, then the steps of the call); run 0 warms
  # the cubin cache and is not logged.
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
  for cb in 39 38; do
    for r in 0 1 2 3; do
      t0=$(date +%s.%N)
      TMD_TRACE_DEVICE=1 "$tmd" search $i0 --chunk-bits "$cb" --backend cuda -q --json --stats "$OUT/s/i0-c$cb-$r.json" >"$OUT/s/i0-c$cb-$r.txt" 2>"$OUT/s/i0-c$cb-$r.trace"
      rc=$?
      t1=$(date +%s.%N)
      [ "$r" = 0 ] && continue
      log "I0 cuda chunk 2^$cb run $r: exit $rc, process $(python3 -c "print(round($t1 - $t0, 3))") s, $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, device', round(f['device_thread_seconds'],4), 'generation', round(f['generation_thread_seconds'],4), 'verification', round(f['verification_thread_seconds'],4), 'thread-s')" "$OUT/s/i0-c$cb-$r.json" 2>&1)"
      log "  $(grep tmd-trace "$OUT/s/i0-c$cb-$r.trace" | tr '\n' ' ')"
    done
  done
fi

if [[ " $sections " == *" probe "* ]]; then
  # Where the program preparation of a search goes (CUDA's module loading mode), and which
  # OpenCL platforms the ICD loader sees with the NVIDIA library alone.
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed --chunk-bits 39"
  for mode in LAZY EAGER LAZY EAGER; do
    CUDA_MODULE_LOADING=$mode TMD_TRACE_DEVICE=1 "$tmd" search $i0 --backend cuda -q --json --stats "$OUT/s/probe-$mode.json" >/dev/null 2>"$OUT/s/probe-$mode.trace"
    log "I0 CUDA_MODULE_LOADING=$mode: search $(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['seconds'],4))" "$OUT/s/probe-$mode.json") s; $(grep tmd-trace "$OUT/s/probe-$mode.trace" | tr '\n' ' ')"
  done
  nvocl=$(find / -xdev -name 'libnvidia-opencl.so*' 2>/dev/null | tr '\n' ' ')
  log "NVIDIA OpenCL libraries: ${nvocl:-none}; ICD loader: $(ldconfig -p | grep libOpenCL.so | head -2 | tr '\n' ' ')"
  mkdir -p /tmp/nv-icd && echo "$(echo $nvocl | cut -d' ' -f1)" >/tmp/nv-icd/nvidia.icd
  OCL_ICD_DEBUG=7 OCL_ICD_VENDORS=/tmp/nv-icd timeout 60 "$bin/fft_opencl" --nocapture 2>&1 | head -30 >"$OUT/s/ocl-probe.txt"
  log "OpenCL probe (OCL_ICD_VENDORS=/tmp/nv-icd): $(head -c 1500 "$OUT/s/ocl-probe.txt" | tr '\n' ' ')"
  # The FFT study's larger sizes alone (PROBE_FFT="MIN MAX").
  if [ -n "${PROBE_FFT:-}" ]; then
    read -r fmin fmax <<<"$PROBE_FFT"
    timeout 280 "$bin/fft_study" --min "$fmin" --max "$fmax" --cuda 0 >"$OUT/fft-study-cuda-$fmin-$fmax.txt" 2>>"$OUT/errors.txt"
    log "fft study 2^$fmin..2^$fmax (exit $?): $(grep -c '| yes |' "$OUT/fft-study-cuda-$fmin-$fmax.txt") rows with the CPU's bits, $(grep -c '| NO |' "$OUT/fft-study-cuda-$fmin-$fmax.txt") differing"
  fi
fi

if [[ " $sections " == *" estimate "* ]]; then
  # crunch --estimate over the whole binary64 domain of exp on the device.
  export OUT tmd
  export -f log time_left
  export BUDGET=${BUDGET:-540}
  CRUNCH_PARTS=estimate bash scripts/gpu-crunch.sh
fi

if [[ " $sections " == *" dpi "* ]]; then
  # Domains per work-item: the default 32 against 64 and 128, on I0 (a first run
  # warms the cubin cache; runs 1-3 timed) and on I0..1023 (DPI_BIG_RUNS rounds, default 3,
  # the values interleaved within a round since one run's noise is about the gap measured;
  # cases by sha256).
  mkdir -p "$OUT/s"
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
  search I0-dpi-ref cpu $i0 >/dev/null
  for d in ${DPI_VALUES:-32 64 128}; do
    for r in 0 1 2 3; do
      res=$(search "I0-dpi$d-$r" cuda $i0 --domains-per-item "$d")
      [ "$r" = 0 ] && continue
      log "I0 cuda --domains-per-item $d run $r: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, kernels', {k: round(v, 4) for k, v in f.get('device_step_thread_seconds', {}).items()})" "$OUT/s/I0-dpi$d-$r.json" 2>&1)"
    done
    cmp -s "$OUT/s/I0-dpi$d-1.txt" "$OUT/s/I0-dpi-ref.txt" && log "I0 dpi $d: cases equal the CPU's" || log "I0 dpi $d: cases DIFFER from the CPU's"
  done
  for r in $(seq 1 "${DPI_BIG_RUNS:-3}"); do
    for d in ${DPI_VALUES:-32 64 128}; do
      res=$(TMO=120 search "big-dpi$d-$r" cuda $big --domains-per-item "$d")
      log "I0..1023 cuda --domains-per-item $d round $r: exit/seconds $res $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print('search', round(d['seconds'],3), 's, device calls', round(f['device_thread_seconds'],1), 'thread-s, filter_packets', round(f.get('device_step_thread_seconds', {}).get('filter_packets', 0), 2))" "$OUT/s/big-dpi$d-$r.json" 2>&1)"
      [ "$(sha256sum <"$OUT/s/big-dpi$d-$r.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
        && log "I0..1023 dpi $d round $r: cases equal the CPU backend's (sha256)" \
        || log "I0..1023 dpi $d round $r: cases DIFFER from the CPU backend's (or the run did not finish)"
      rm -f "$OUT/s/big-dpi$d-$r.txt"
    done
  done
fi

if [[ " $sections " == *" flat "* ]]; then
  # Nearly flat binary64 binades (exp and exp2 next to 1: the lower-bound tests' short-orbit
  # step, domains of up to 2^22 inputs, the exact chord term of the filter's error, chunks
  # of up to 2^40 inputs, the lattice beside the device): CUDA against the CPU backend (cases;
  # the phase counts differ where the two choose the lattice for different chunks), and the
  # cases with k >= 44 against the published lists.
  mkdir -p "$OUT/s"
  n=0
  for cfg in ${FLAT_BINADES:-"exp 0x1p-40 0x1p-39" "exp -0x1p-34 -0x1p-35" "exp 0x1p-22 0x1p-21" "exp2 0x1p-30 0x1p-29"}; do
    read -r func from to <<<"${cfg//,/ }"
    n=$((n + 1))
    [ "$(time_left)" -lt 60 ] && { log "flat $func [$from, $to): skipped (time)"; continue; }
    # The default chunks (nearly flat pieces take larger ones) unless FLAT_EXTRA says otherwise.
    args="$func --from $from --to $to --bits 45 --breakpoints all ${FLAT_EXTRA:-}"
    rc_cuda=$(TMO=120 search "flat$n-cuda" cuda $args)
    rc_cpu=$(TMO=120 search "flat$n-cpu" cpu $args)
    same=$(cmp -s "$OUT/s/flat$n-cpu.txt" "$OUT/s/flat$n-cuda.txt" && echo "cases identical" || echo "cases DIFFER")
    log "flat $func [$from, $to) K=45: cuda exit/seconds $rc_cuda, cpu exit/seconds $rc_cpu; $same; counts $(same_counts "$OUT/s/flat$n-cpu.json" "$OUT/s/flat$n-cuda.json")"
    python3 scripts/binade-check.py "$OUT/s/flat$n-cuda.txt" "$bin/ref/$func.wc" "$from" "$to" | while read -r l; do log "  $l"; done
  done
fi

if [[ " $sections " == *" steep "* ]]; then
  # The steep binades on the device (docs/search-cost.md, "Bounds and what tmd reaches"): for
  # each, a long window on CUDA with its rate, --stats' step times and the mean device call of
  # TMD_TRACE_DEVICE, and a window of 2^34 inputs on CUDA and on the CPU (cases and counts).
  # Fields: function, long window (2^36-2^40 inputs), short window, K.
  mkdir -p "$OUT/s"
  n=0
  for cfg in ${STEEP_WINDOWS:-"exp,0x1p+5,0x1.001p+5,0x1p+5,0x1.00004p+5,45" \
    "exp,0x1p+8,0x1.0004p+8,0x1p+8,0x1.00004p+8,45" "exp,-0x1.0004p+8,-0x1p+8,-0x1.00004p+8,-0x1p+8,45" \
    "exp,0x1p+9,0x1.0004p+9,0x1p+9,0x1.00004p+9,45" "sin,0x1.8p+11,0x1.8001p+11,0x1.8p+11,0x1.80004p+11,44" \
    "cos,0x1.8p+11,0x1.8001p+11,0x1.8p+11,0x1.80004p+11,44"}; do
    IFS=, read -r func from to sfrom sto bits <<<"$cfg"
    n=$((n + 1))
    [ "$(time_left)" -lt 90 ] && { log "steep $func [$from, $to): skipped (time)"; continue; }
    t0=$(date +%s.%N)
    TMD_TRACE_DEVICE=1 timeout 120 "$tmd" search "$func" --from "$from" --to "$to" --bits "$bits" --backend cuda \
      -q --out /dev/null --stats "$OUT/s/steep$n-long.json" 2>"$OUT/s/steep$n-trace.txt"
    rc=$?
    t1=$(date +%s.%N)
    log "steep $func [$from, $to) K=$bits cuda: exit $rc, $(python3 -c "print(round($t1 - $t0, 2))") s; $(python3 - "$OUT/s/steep$n-long.json" "$OUT/s/steep$n-trace.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
f = d["filter"]
p1 = f["phase1"]
print(f"{d['inputs'] / max(d['seconds'], 1e-9):.3e} inputs/s, search {d['seconds']:.2f} s,",
      f"phase 1 {p1['domains_in']} domains, {p1['domains_failed'] / max(p1['domains_in'], 1):.2%} fail;",
      "steps", {k: round(v, 3) for k, v in f.get("device_step_thread_seconds", {}).items()},
      "generation", round(f["generation_thread_seconds"], 3), "verification", round(f["verification_thread_seconds"], 3))
sums, n = {}, 0
for line in open(sys.argv[2]):
    if line.startswith("tmd-trace") and "work-items" in line:
        n += 1
        for what, us in re.findall(r"(\w+) (\d+) us", line):
            sums[what] = sums.get(what, 0) + int(us)
print(f"; {n} traced calls, mean:", ", ".join(f"{k} {v / max(n, 1) / 1000:.2f} ms" for k, v in sums.items()))
PY
)"
    args="$func --from $sfrom --to $sto --bits $bits"
    rc_cuda=$(TMO=120 search "steep$n-cuda" cuda $args)
    rc_cpu=$(TMO=120 search "steep$n-cpu" cpu $args)
    same=$(cmp -s "$OUT/s/steep$n-cpu.txt" "$OUT/s/steep$n-cuda.txt" && echo "cases identical" || echo "cases DIFFER")
    log "  [$sfrom, $sto): cuda exit/seconds $rc_cuda, cpu exit/seconds $rc_cpu; $same; counts $(same_counts "$OUT/s/steep$n-cpu.json" "$OUT/s/steep$n-cuda.json")"
  done
fi

if [[ " $sections " == *" mpi "* ]]; then
  # Device ranks (docs/cluster.md, "Ranks that drive devices"): 1, 2 and 3 ranks sharing the
  # one GPU (--device 0) against the single-process CPU output, byte for byte, and the time of
  # each on a longer range. OpenMPI comes from target/gpu-bin/mpi (--prepare), relocated.
  mkdir -p "$OUT/s"
  mroot=$PWD/$bin/mpi/usr
  mlib=$mroot/lib/x86_64-linux-gnu
  # The .wc files without their provenance lines (binary, command, date), which differ by design.
  wc_body() { grep -v '^# \(found by \|command: \|made \)' "$1"; }
  same_as_cpu() {
    local a=$OUT/s/mpi-$1-cpu b=$OUT/s/mpi-$1-$2
    if cmp -s "$a.txt" "$b.txt" && cmp -s <(wc_body "$a.wc") <(wc_body "$b.wc"); then
      echo "stdout and .wc identical to the cpu's ($(grep -vc '^#' "$b.wc") cases)"
    else
      echo "output DIFFERS from the cpu's"
    fi
  }
  mpi() {
    local np=$1
    shift
    OPAL_PREFIX=$mroot PATH=$mroot/bin:$PATH LD_LIBRARY_PATH=$mlib:$mlib/openmpi/lib:${LD_LIBRARY_PATH:-} \
      OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader \
      timeout "${TMO:-300}" "$mroot/bin/orterun" --allow-run-as-root --oversubscribe -np "$np" "$PWD/$bin/tmd-mpi" "$@"
  }
  log "mpi: $(OPAL_PREFIX=$mroot LD_LIBRARY_PATH=$mlib:$mlib/openmpi/lib "$mroot/bin/ompi_info" --version 2>&1 | head -1); prefix $(OPAL_PREFIX=$mroot LD_LIBRARY_PATH=$mlib:$mlib/openmpi/lib "$mroot/bin/ompi_info" --path prefix 2>&1 | tail -1)"
  # A window with cases (I0 at K = 32) and a longer one for the times (I0..63: 2^45 inputs);
  # MPI_WINDOWS (entries TAG,FROM,TO,BITS) and MPI_BACKEND (cuda) change them.
  backend=${MPI_BACKEND:-cuda}
  for cfg in ${MPI_WINDOWS:-"i0,0x1p+0,0x1.0008p+0,32" "i0x64,0x1p+0,0x1.02p+0,32"}; do
    IFS=, read -r tag from to bits <<<"$cfg"
    args="exp --from $from --to $to --bits $bits --breakpoints directed"
    t0=$(date +%s.%N)
    "$tmd" search $args --backend cpu -q --out "$OUT/s/mpi-$tag-cpu.wc" >"$OUT/s/mpi-$tag-cpu.txt" 2>>"$OUT/errors.txt"
    log "mpi $tag: single process, cpu: exit $?, $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s"
    t0=$(date +%s.%N)
    "$tmd" search $args --backend "$backend" -q --out "$OUT/s/mpi-$tag-$backend.wc" >"$OUT/s/mpi-$tag-$backend.txt" 2>>"$OUT/errors.txt"
    rc=$?
    same=$(same_as_cpu "$tag" "$backend")
    log "mpi $tag: single process, $backend: exit $rc, $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s; $same"
    for np in 1 2 3; do
      [ "$(time_left)" -lt 60 ] && { log "mpi $tag $np ranks: skipped (time)"; continue; }
      t0=$(date +%s.%N)
      mpi "$np" search $args --backend "$backend" --device 0 -q --out "$OUT/s/mpi-$tag-np$np.wc" \
        >"$OUT/s/mpi-$tag-np$np.txt" 2>"$OUT/s/mpi-$tag-np$np.err"
      rc=$?
      t1=$(date +%s.%N)
      log "mpi $tag: $np ranks on $backend device 0: exit $rc, $(python3 -c "print(round($t1 - $t0, 2))") s; $(same_as_cpu "$tag" "np$np"); $(tail -1 "$OUT/s/mpi-$tag-np$np.err")"
    done
  done
fi

if [[ " $sections " == *" newdata "* ]]; then
  # New hard cases of sin and cos on [2^11, 2^12) at K = 43 (scripts/new-data.sh): the next
  # piece of each function of NEWDATA_FUNCS (default "sin cos"), the time left shared among
  # them, each journaled in newdata/FUNC/ with its range in newdata/FUNC/piece. Everything comes
  # back in $OUT/newdata.tar.gz: a finished piece as newdata/FUNC.wc (for `bash
  # scripts/new-data.sh add`), a piece cut by the time limit as its journal, which the next call
  # resumes when target/gpu-bin/newdata/FUNC holds piece and journal.tmd.
  funcs=(${NEWDATA_FUNCS:-sin cos})
  for i in "${!funcs[@]}"; do
    func=${funcs[$i]}
    nd=$OUT/newdata/$func
    mkdir -p "$nd"
    if [ -f "$bin/newdata/$func/piece" ] && [ -f "$bin/newdata/$func/journal.tmd" ]; then
      cp "$bin/newdata/$func/piece" "$bin/newdata/$func/journal.tmd" "$nd/"
    else
      bash scripts/new-data.sh next "$func" >"$nd/piece" || { log "newdata $func: no next piece"; continue; }
    fi
    read -r from to <"$nd/piece"
    share=$(( ($(time_left) - 30) / (${#funcs[@]} - i) ))
    [ "$share" -lt 30 ] && { log "newdata $func: skipped (time)"; continue; }
    t0=$(date +%s)
    timeout "$share" "$tmd" search "$func" --from "$from" --to "$to" --bits 43 --breakpoints all \
      --backend "${NEWDATA_BACKEND:-cuda}" --resume "$nd" -q --out "$OUT/newdata/$func.wc" >/dev/null 2>>"$OUT/errors.txt"
    rc=$?
    rm -f "$OUT/newdata/$func.wc".*.partial "$OUT/newdata/$func.wc.lock" "$nd/journal.lock"
    if [ "$rc" = 0 ]; then
      log "newdata $func [$from, $to) K=43 ${NEWDATA_BACKEND:-cuda}: done in $(($(date +%s) - t0)) s, $(grep -vc '^#' "$OUT/newdata/$func.wc") cases"
      rm -f "$nd/journal.tmd" "$nd/piece"
    else
      log "newdata $func [$from, $to) K=43 ${NEWDATA_BACKEND:-cuda}: exit $rc after $(($(date +%s) - t0)) s; its journal comes back"
    fi
  done
  tar -czf "$OUT/newdata.tar.gz" -C "$OUT" newdata && rm -rf "$OUT/newdata"
fi

if [[ " $sections " == *" plan "* ]]; then
  # --plan on the device: whole binary64 exp at K = 45, sin, cos on [2^11, 2^12) at K = 44, and
  # exp's steep twins [-2^9, -2^8) and [2^8, 2^9) twice each (their device plans differed by
  # 2.7 times before the costliest parts were timed at spread places; docs/search-cost.md).
  default="exp|-inf|inf|45 sin|0x1p+11|0x1p+12|44 cos|0x1p+11|0x1p+12|44"
  twins="exp|-0x1p+9|-0x1p+8|45 exp|0x1p+8|0x1p+9|45"
  n=0
  for cfg in ${PLAN_CONFIGS:-$default $twins $twins}; do
    IFS='|' read -r func from to bits <<<"$cfg"
    n=$((n + 1))
    [ "$(time_left)" -lt 40 ] && { log "plan $func: skipped (time)"; continue; }
    t0=$(date +%s)
    timeout $(($(time_left) - 20)) "$tmd" search "$func" --from "$from" --to "$to" --bits "$bits" --plan --backend cuda \
      >"$OUT/plan$n-$func-cuda.txt" 2>"$OUT/plan$n-$func-cuda.err"
    log "plan $func [$from, $to) K=$bits on cuda (exit $?, $(($(date +%s) - t0)) s): $(tail -1 "$OUT/plan$n-$func-cuda.err")"
  done
fi

if [[ " $sections " == *" binade "* ]]; then
  mkdir -p "$OUT/s" "$OUT/binade-journal"
  # 4. The whole binade [1,2) of exp at K = 45, every breakpoint: the published worst cases.
  # Journaled: a run cut by the time limit comes back with its journal, which the next call
  # carries in target/gpu-bin/binade-journal and resumes from.
  full="exp --from 0x1p+0 --to 0x1p+1 --bits 45 --breakpoints all"
  [ -f "$bin/binade-journal/journal.tmd" ] && cp "$bin/binade-journal/journal.tmd" "$OUT/binade-journal/"
  # By default the binade gets what is left of 560 s since the script started.
  left=$((560 - ($(date +%s) - script_start)))
  res=$(TMO=${BINADE_TMO:-$((left > 60 ? left : 60))} search binade-cuda cuda $full --chunk-bits 38 --resume "$OUT/binade-journal")
  log "binade [1,2) K=45 cuda: exit/seconds $res (resumed: $([ -f "$bin/binade-journal/journal.tmd" ] && echo yes || echo no))"
  python3 scripts/binade-check.py "$OUT/s/binade-cuda.txt" "$bin/ref/exp.wc" | tee -a "$OUT/summary.txt"
fi

if [[ " $sections " == *" xfloat "* ]]; then
  # 5. The transposed Stockham FFT on the device in f32, f64, df64 and dd, n = 2^10 ..
  # 2^22: GFLOP/s next to the host's, and every transform's bits against the CPU's ("same bits").
  timeout "${FFT_TMO:-300}" "$bin/fft_study" --min "${FFT_MIN:-10}" --max "${FFT_MAX:-22}" --cuda 0 >"$OUT/fft-study-cuda.txt" 2>>"$OUT/errors.txt"
  log "fft study (exit $?): $(grep -c '| yes |' "$OUT/fft-study-cuda.txt") rows with the CPU's bits, $(grep -c '| NO |' "$OUT/fft-study-cuda.txt") differing"
  grep -E '^\| (df64|dd) \| 2\^(16|20|22) ' "$OUT/fft-study-cuda.txt" | tee -a "$OUT/summary.txt"
  # Throughput of the arithmetic and function kernels on CUDA (kernel time alone), every
  # result checked against the CPU crate bit for bit; the quad types on fewer inputs, since
  # the host's one-thread reference is what takes the time there.
  for cfg in "df64,dd|22" "qf128,qd|18"; do
    IFS='|' read -r types l2 <<<"$cfg"
    timeout 240 "$bin/xfloat_throughput" --cuda 0 --types "$types" --log2n "$l2" --repeats 5 >>"$OUT/xfloat-throughput-cuda.txt" 2>>"$OUT/errors.txt"
    log "xfloat throughput $types 2^$l2 (exit $?): $(grep -c '| yes |' "$OUT/xfloat-throughput-cuda.txt") rows with the CPU's bits so far, $(grep -c '| NO' "$OUT/xfloat-throughput-cuda.txt") differing"
  done
  cat "$OUT/xfloat-throughput-cuda.txt" >>"$OUT/summary.txt"
  # The xfloat kernels (arithmetic and functions of all four types, FFT passes) on the GPU's
  # OpenCL, against the CPU crate bit for bit (10^6 inputs per operation and type), where the
  # driver has an OpenCL library (the ICD list is narrowed to it: PoCL may be there too).
  # The machine's ICD loader (CUDA's libOpenCL.so.1, 2026-11-23) reads /etc/OpenCL/vendors,
  # which listed PoCL alone: NVIDIA's library is registered there, and the tests pick the
  # device by name (TMD_OPENCL_DEVICE_NAME), since PoCL may still come first.
  nvocl=$(find / -xdev -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
  log "NVIDIA OpenCL library: ${nvocl:-none found}"
  [ -n "$nvocl" ] && mkdir -p /etc/OpenCL/vendors && echo "$nvocl" >/etc/OpenCL/vendors/nvidia.icd
  [ -n "$nvocl" ] && for t in xfloat_opencl xfloat_quad_opencl fft_opencl; do
    TMD_OPENCL_DEVICE_NAME=NVIDIA timeout 100 "$bin/$t" --test-threads 1 --nocapture >"$OUT/$t.txt" 2>&1
    rc=$?
    log "$t with TMD_OPENCL_DEVICE_NAME=NVIDIA (exit $rc; $(grep -m1 -o 'OpenCL device: .*' "$OUT/$t.txt")): $(grep -c ' 0 mismatches' "$OUT/$t.txt") op lines with 0 mismatches, $(grep -E '[1-9][0-9]* mismatches' "$OUT/$t.txt" | grep -vc ' 0 mismatches') with some; $(grep 'test result' "$OUT/$t.txt" | tail -1)"
  done
fi

if [[ " $sections " == *" crunch "* ]] && [[ " $sections " != *" final "* ]]; then
  export OUT tmd
  export -f log time_left
  export BUDGET=${BUDGET:-540}
  bash scripts/gpu-crunch.sh
fi
if [[ " $sections " == *" opencl "* ]]; then
  # The search on NVIDIA's OpenCL driver, side by side with CUDA on the same GPU: I0,
  # I0..1023 and the binade [1,2) at K = 45. The machine lists PoCL as its OpenCL vendor: it
  # is set aside for this section, NVIDIA's library registered alone, and each run's stats
  # name the device it ran on.
  mkdir -p "$OUT/s" /tmp/icd-aside
  nvocl=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null | head -1)
  [ -z "$nvocl" ] && nvocl=$(find / -xdev -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
  mkdir -p /etc/OpenCL/vendors
  mv /etc/OpenCL/vendors/*.icd /tmp/icd-aside/ 2>/dev/null
  echo "$nvocl" >/etc/OpenCL/vendors/nvidia.icd
  export OCL_ICD_FILENAMES=$nvocl
  log "OpenCL: NVIDIA library ${nvocl:-not found}; vendors now $(ls /etc/OpenCL/vendors)"
  device_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('device'))" "$1" 2>/dev/null; }
  stat_of() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filter']; print(d['hard'], 'cases, search', round(d['seconds'],4), 's, kernels', {k: round(v, 3) for k, v in f.get('device_step_thread_seconds', {}).items()})" "$1" 2>&1; }
  i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
  [ -f "$OUT/s/I0-cpu-1.txt" ] || search I0-cpu-1 cpu $i0 --chunk-bits 34 >/dev/null
  for r in 0 1 2 3; do
    for backend in cuda opencl; do
      res=$(search "I0-side-$backend-$r" "$backend" $i0)
      [ "$r" = 0 ] && continue
      log "I0 $backend ($(device_of "$OUT/s/I0-side-$backend-$r.json")) run $r: exit/seconds $res $(stat_of "$OUT/s/I0-side-$backend-$r.json")"
    done
  done
  for backend in cuda opencl; do
    cmp -s "$OUT/s/I0-side-$backend-1.txt" "$OUT/s/I0-cpu-1.txt" && log "I0 $backend: cases equal the CPU's" || log "I0 $backend: cases DIFFER from the CPU's"
  done
  big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
  for backend in cuda opencl; do
    [ "$(time_left)" -lt 100 ] && { log "I0..1023 $backend: skipped (time)"; continue; }
    res=$(TMO=90 search "big-side-$backend" "$backend" $big)
    log "I0..1023 $backend: exit/seconds $res $(stat_of "$OUT/s/big-side-$backend.json")"
    [ "$(sha256sum <"$OUT/s/big-side-$backend.txt" | cut -d' ' -f1)" = "$(cat "$bin/ref/I0..1023-cpu.sha256")" ] \
      && log "I0..1023 $backend: cases equal the CPU backend's (sha256)" \
      || log "I0..1023 $backend: cases DIFFER from the CPU backend's (or the run did not finish)"
    rm -f "$OUT/s/big-side-$backend.txt"
  done
  full="exp --from 0x1p+0 --to 0x1p+1 --bits 45 --breakpoints all"
  for backend in ${BINADE_BACKENDS:-cuda opencl}; do
    left=$(time_left)
    [ "$left" -lt 80 ] && { log "binade $backend: skipped (time)"; continue; }
    res=$(TMO=$((left - 30 < 200 ? left - 30 : 200)) search "binade-$backend" "$backend" $full)
    log "binade [1,2) K=45 $backend ($(device_of "$OUT/s/binade-$backend.json")): exit/seconds $res"
    python3 scripts/binade-check.py "$OUT/s/binade-$backend.txt" "$bin/ref/exp.wc" | while read -r l; do log "$l"; done
  done
  [ -f "$OUT/s/binade-cuda.txt" ] && [ -f "$OUT/s/binade-opencl.txt" ] && \
    { cmp -s "$OUT/s/binade-cuda.txt" "$OUT/s/binade-opencl.txt" && log "binade: cuda and opencl outputs identical" || log "binade: cuda and opencl outputs DIFFER"; }
  # The xfloat kernels on NVIDIA's OpenCL against the CPU crate, bit for bit.
  for t in ${XF_OPENCL_TESTS-xfloat_opencl xfloat_quad_opencl}; do
    [ "$(time_left)" -lt 70 ] && { log "$t: skipped (time)"; continue; }
    TMD_OPENCL_DEVICE_NAME=NVIDIA timeout 60 "$bin/$t" --test-threads 4 --nocapture >"$OUT/s/$t.txt" 2>&1
    log "$t on NVIDIA OpenCL (exit $?; $(grep -m1 -o 'OpenCL device: .*' "$OUT/s/$t.txt")): $(grep -c ' 0 mismatches' "$OUT/s/$t.txt") op lines with 0 mismatches, $(grep -E '[1-9][0-9]* mismatches' "$OUT/s/$t.txt" | grep -vc ' 0 mismatches') with some; $(grep 'test result' "$OUT/s/$t.txt" | tail -1)"
  done
  mv /etc/OpenCL/vendors/nvidia.icd /tmp/ && mv /tmp/icd-aside/*.icd /etc/OpenCL/vendors/ 2>/dev/null
  unset OCL_ICD_FILENAMES
fi

if [[ " $sections " == *" xbits "* ]]; then
  # The xfloat kernels on CUDA against the CPU crate bit for bit (arithmetic, the division,
  # the table-driven exp, log and sin), on fewer inputs than the throughput study.
  # The quad types' kernels take NVRTC longer to build (the 60 s of 2026-11-26 ran out).
  for cfg in "df64,dd|18|60" "qf128,qd|14|${XBITS_QUAD_TMO:-150}"; do
    [ "$(time_left)" -lt 60 ] && { log "xfloat $cfg: skipped (time)"; continue; }
    IFS='|' read -r types l2 tmo <<<"$cfg"
    timeout "$tmo" "$bin/xfloat_throughput" --cuda 0 --types "$types" --log2n "$l2" --repeats 3 >>"$OUT/xfloat-bits-cuda.txt" 2>>"$OUT/errors.txt"
    log "xfloat $types 2^$l2 on CUDA (exit $?): $(grep -c '| yes |' "$OUT/xfloat-bits-cuda.txt") rows with the CPU's bits so far, $(grep -c '| NO' "$OUT/xfloat-bits-cuda.txt") differing"
  done
fi

if [[ " $sections " == *" xfocl "* ]]; then
  # The xfloat kernels on NVIDIA's OpenCL against the CPU crate, bit for bit, after every
  # other section (their build on that driver took over 60 s on 2026-11-26): each gets what
  # is left, up to 150 s.
  mkdir -p "$OUT/s" /tmp/icd-aside
  nvocl=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null | head -1)
  mkdir -p /etc/OpenCL/vendors && mv /etc/OpenCL/vendors/*.icd /tmp/icd-aside/ 2>/dev/null
  echo "$nvocl" >/etc/OpenCL/vendors/nvidia.icd
  for t in xfloat_opencl xfloat_quad_opencl; do
    left=$(time_left)
    [ "$left" -lt 40 ] && { log "$t: skipped (time)"; continue; }
    # Every test at once (each waits mostly on the driver's compiler), and without the test
    # that builds every program (the search's among them, which the opencl section runs).
    TMD_OPENCL_DEVICE_NAME=NVIDIA OCL_ICD_FILENAMES=$nvocl timeout $((left - 15 < ${XFOCL_TMO:-150} ? left - 15 : ${XFOCL_TMO:-150})) "$bin/$t" --test-threads 8 --skip every_program_builds --nocapture >"$OUT/s/$t.txt" 2>&1
    log "$t on NVIDIA OpenCL (exit $?; $(grep -m1 -o 'OpenCL device: .*' "$OUT/s/$t.txt")): $(grep -c ' 0 mismatches' "$OUT/s/$t.txt") op lines with 0 mismatches, $(grep -E '[1-9][0-9]* mismatches' "$OUT/s/$t.txt" | grep -vc ' 0 mismatches') with some; $(grep 'test result' "$OUT/s/$t.txt" | tail -1); tests passed: $(grep -c '\.\.\. ok' "$OUT/s/$t.txt")"
  done
  mv /etc/OpenCL/vendors/nvidia.icd /tmp/ && mv /tmp/icd-aside/*.icd /etc/OpenCL/vendors/ 2>/dev/null
fi

# At most 8 files come back: everything but the summary and errors goes in one archive.
details=$(cd "$OUT" && ls -d s c 2>/dev/null)
[ -n "$details" ] && tar -czf "$OUT/details.tar.gz" -C "$OUT" $details && rm -rf "$OUT/s" "$OUT/c"
log "done"
