#!/usr/bin/env bash
# The 20 slowest tests of the suite (the fast tier unless TMD_EXTENSIVE=1), one process per
# test under cargo-nextest, which times each test on its own. Installs cargo-nextest when it
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-nextest >/dev/null || cargo install --locked cargo-nextest
log=$(mktemp)
cargo nextest run --workspace --release --no-fail-fast "$@" 2>&1 | tee "$log" >/dev/null || true
grep -E '^\s+(PASS|FAIL|SIGSEGV|TIMEOUT) \[' "$log" |
  sed -E 's/^\s+(\S+) \[\s*([0-9.]+)s\] \([^)]*\) (.*)$/\2\t\1\t\3/' |
  sort -rn | head -20
rm -f "$log"
