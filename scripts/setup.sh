#!/usr/bin/env bash
# One-time set-up of a fresh Debian machine with Rust: what the build and the tests need beyond
# the toolchain. Does nothing when everything is there.
# - rug builds GMP and MPFR from source (gmp-mpfr-sys): m4, make and a C compiler.
# - The OpenCL backend loads libOpenCL.so.1 at run time; on machines without a GPU the tests run
#   its kernels on PoCL's CPU device: ocl-icd-libopencl1 and pocl-opencl-icd.
set -euo pipefail
need=()
command -v m4 >/dev/null || need+=(m4)
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc)
[ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 ] || [ -e /usr/lib/libOpenCL.so.1 ] ||
  ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' || need+=(ocl-icd-libopencl1)
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need+=(pocl-opencl-icd)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${need[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
