#!/usr/bin/env bash
# One-time set-up of a fresh Debian machine with Rust: what the build needs beyond the toolchain.
# rug builds GMP and MPFR from source (gmp-mpfr-sys), which needs m4, make and a C compiler.
set -euo pipefail
need=()
command -v m4 >/dev/null || need+=(m4)
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${need[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
