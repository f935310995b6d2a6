#!/usr/bin/env bash
# One-time set-up of a fresh Debian machine with Rust: what the build and the tests need beyond
# the toolchain. Does nothing when everything is there.
# - rug builds GMP and MPFR from source (gmp-mpfr-sys): m4, make and a C compiler.
# - The OpenCL backend loads libOpenCL.so.1 at run time; on machines without a GPU the tests run
#   its kernels on PoCL's CPU device: ocl-icd-libopencl1 and pocl-opencl-icd.
# - The CUDA backend compiles kernels with NVRTC, loaded at run time; the tests compile every
#   kernel for sm_90 with the pip wheel nvidia-cuda-nvrtc-cu12 (no GPU needed).
# - `--features mpi` (mpirun -np P tmd crunch) links OpenMPI and generates its bindings with
#   libclang; the tests build it and run mpirun: openmpi-bin, libopenmpi-dev, libclang-dev.
# - Crunch's library targets and their tests: SLEEF (libsleef-dev: sleef:NAME) and musl's
#   static libc (musl-dev: musl:NAME); glibc's libm and libmvec come with libc6.
# - The lattice search (tmd-lattice) reduces its lattices with fplll, linked statically from
#   libfplll-dev (its headers include MPFR's and GMP's: libmpfr-dev, libgmp-dev; g++ builds
#   the C++ shim).
# - binary80 and binary128 crunch targets: glibc's long double and _Float128 functions come with
#   libc6, libquadmath's __float128 ones with libquadmath0 (gcc links C sources with it); the
#   tests build a reference library with MPFR's C interface (libmpfr-dev).
# - `tmd report`'s HTML page is checked in headless Chromium (crates/tmd/tests/report_page.rs):
#   chromium.
# - The Python module (crates/tmd-py) is built by maturin and tested by pytest (with mpmath for
#   its exact conversions), all three installed from PyPI into the virtual environment .venv at
#   the repository's root (python3-venv on Debian); scripts/test.sh builds the module into it.
set -euo pipefail
fix_dev_null="$(dirname "$0")/fix-dev-null.sh"
bash "$fix_dev_null"
need=()
command -v m4 >/dev/null || need+=(m4)
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc)
[ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 ] || [ -e /usr/lib/libOpenCL.so.1 ] ||
  ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' || need+=(ocl-icd-libopencl1)
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need+=(pocl-opencl-icd)
command -v mpirun >/dev/null || need+=(openmpi-bin)
[ -e /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || [ -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] ||
  command -v mpicc >/dev/null || need+=(libopenmpi-dev)
# (A glob, not `ls | grep -q`: under pipefail, grep -q closing the pipe early fails ls.)
compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null ||
  compgen -G '/usr/lib/llvm-*/lib/libclang-[0-9]*.so' >/dev/null || need+=(libclang-dev)
compgen -G '/usr/lib/*/libsleef.so.3' >/dev/null || [ -e /usr/lib/libsleef.so.3 ] ||
  need+=(libsleef-dev)
[ -e /usr/lib/x86_64-linux-musl/libc.a ] || [ -e /usr/lib/musl/lib/libc.a ] || need+=(musl-dev)
command -v g++ >/dev/null || need+=(g++)
compgen -G '/usr/lib/*/libfplll.a' >/dev/null || need+=(libfplll-dev)
[ -e /usr/include/mpfr.h ] || need+=(libmpfr-dev)
compgen -G '/usr/lib/*/libquadmath.so.0' >/dev/null || need+=(libquadmath0)
compgen -G '/usr/include/*/gmp.h' >/dev/null || [ -e /usr/include/gmp.h ] || need+=(libgmp-dev)
command -v chromium >/dev/null || need+=(chromium)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${need[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
has_nvrtc_wheel() {
  python3 - <<'PY' >/dev/null 2>&1
import os, sys, nvidia.cuda_nvrtc as m
sys.exit(0 if any(os.path.exists(os.path.join(p, "lib", "libnvrtc.so.12")) for p in m.__path__) else 1)
PY
}
if ! has_nvrtc_wheel &&
  ! ls /usr/local/cuda/lib64/libnvrtc.so* >/dev/null 2>&1; then
  command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 || {
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
  }
  echo "setup: installing the pip wheel nvidia-cuda-nvrtc-cu12" >&2
  python3 -m pip install --quiet --disable-pip-version-check nvidia-cuda-nvrtc-cu12 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --break-system-packages nvidia-cuda-nvrtc-cu12
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! "$root/.venv/bin/python" -c 'import pytest, mpmath' >/dev/null 2>&1 ||
  ! [ -x "$root/.venv/bin/maturin" ]; then
  echo "setup: making $root/.venv with maturin and pytest" >&2
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin pytest mpmath
fi
# Last: commands above wrote to /dev/null; where it could not be made a device, empty it.
bash "$fix_dev_null"
