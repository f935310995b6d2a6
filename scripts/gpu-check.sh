#!/usr/bin/env bash
# One call of the device tool: check the CUDA and OpenCL backends on the GPU against the CPU
# backend (same cases, same phase counts) and time them (issue 5). Logs go to $OUT (or ./gpu-check-out). NOT YET RUN ON A GPU: written in a
# session without one; the first GPU session should run it and fix what the machine needs.
#
# Prepare here (the device machine may have no Rust toolchain): build, then copy the binaries
# to a stable place and carry them:
#   bash scripts/gpu-check.sh --prepare
#   run(command="bash scripts/gpu-check.sh", carry=["target/gpu-bin", ".ocl"])
# --prepare also downloads Debian's OpenCL ICD loader (ocl-icd-libopencl1) into .ocl/, since the
# device machine is bare; NVIDIA's OpenCL driver (libnvidia-opencl.so.1) comes with its driver.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
  cargo build --release -p tmd && cargo test --release -p tmd-gpu --no-run 2>&1 | tail -1
  mkdir -p target/gpu-bin
  cp target/release/tmd target/gpu-bin/
  for t in search_opencl xfloat_opencl; do
    cp "$(ls -t target/release/deps/$t-* | grep -v '\.d$' | head -1)" "target/gpu-bin/$t"
  done
  mkdir -p .ocl && (cd .ocl && apt-get download ocl-icd-libopencl1 >/dev/null)
  grep -qx '/.ocl/' .git/info/exclude 2>/dev/null || echo '/.ocl/' >>.git/info/exclude
  ls -la target/gpu-bin .ocl
  exit 0
fi

OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
log() { echo "$@" | tee -a "$OUT/summary.txt"; }
bin=target/gpu-bin

# The ICD loader, and NVIDIA's OpenCL driver registered with it.
if ! ldconfig -p | grep -q libOpenCL.so.1; then
  for f in .ocl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
  lib=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null | head -1)
  mkdir -p /etc/OpenCL/vendors
  [ -n "$lib" ] && echo "$lib" >/etc/OpenCL/vendors/nvidia.icd
fi
log "date: $(date -u)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$OUT/summary.txt"
ls /etc/OpenCL/vendors/ 2>&1 | tee -a "$OUT/summary.txt"

# 1. Bit-identity: kernels vs CPU (double-word arithmetic; the search on windows and I0).
"$bin/xfloat_opencl" --nocapture >"$OUT/xfloat_opencl.log" 2>&1
log "xfloat_opencl: exit $? ($(grep -c ' 0 mismatches' "$OUT/xfloat_opencl.log") of 12 operations without mismatch)"
"$bin/search_opencl" --nocapture --test-threads 1 >"$OUT/search_opencl.log" 2>&1
log "search_opencl: exit $? ($(grep 'test result' "$OUT/search_opencl.log"))"

# 2. Timings, CPU (16 cores) and GPU side by side, same command, three runs each.
i0="exp --from 0x1p+0 --to 0x1.0008p+0 --bits 32 --breakpoints directed"
big="exp --from 0x1p+0 --to 0x1.2p+0 --bits 32 --breakpoints directed"
for cfg in "I0|$i0" "I0..1023|$big"; do
  name=${cfg%%|*}
  args=${cfg#*|}
  for backend in cpu cuda opencl; do
    for r in 1 2 3; do
      "$bin/tmd" search $args --backend "$backend" -q --json --stats "$OUT/$name-$backend-$r.json" \
        >"$OUT/$name-$backend-$r.txt" 2>>"$OUT/errors.txt"
      log "$name $backend run $r: exit $? $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['hard'], 'cases', round(d['seconds'],3), 's, device calls', round(d['filter']['device_thread_seconds'],3), 'thread-s')" "$OUT/$name-$backend-$r.json" 2>&1)"
    done
    cmp -s "$OUT/$name-$backend-1.txt" "$OUT/$name-cpu-1.txt" 2>/dev/null && log "$name $backend output equals the CPU's"
  done
done
# Same phase counts and candidates as the CPU (timings aside).
python3 - "$OUT" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys, os
out = sys.argv[1]
keys = ("phase1", "phase2", "phase3")
for name in ("I0", "I0..1023"):
    try:
        ref = json.load(open(os.path.join(out, f"{name}-cpu-1.json")))["filter"]
    except OSError:
        continue
    for backend in ("cuda", "opencl"):
        try:
            f = json.load(open(os.path.join(out, f"{name}-{backend}-1.json")))["filter"]
        except OSError:
            print(f"{name} {backend}: no run")
            continue
        same = all(
            {k: v for k, v in f[p].items() if k != "thread_seconds"}
            == {k: v for k, v in ref[p].items() if k != "thread_seconds"}
            for p in keys
        ) and f["candidates"] == ref["candidates"] and f["nmdm"] == ref["nmdm"]
        print(f"{name} {backend}: phase counts, candidates and NMDM {'equal' if same else 'DIFFER'} to the CPU's")
PY
log "done"
