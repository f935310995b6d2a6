#!/usr/bin/env bash
# The test suite: builds everything first (the workspace's tests and the MPI binary that the
# MPI tests and the guides' `console mpi` blocks run), then runs the tests, and says how long
# the tests themselves took. TMD_EXTENSIVE=1 runs the large tier instead of the fast one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fix-dev-null.sh
cargo build --workspace --release --all-targets
bash scripts/fix-dev-null.sh
cargo build --release -p tmd --features mpi --target-dir target/mpi
start=$(date +%s)
cargo test --workspace --release "$@"
echo "test.sh: the tests ran in $(( $(date +%s) - start )) s (TMD_EXTENSIVE=${TMD_EXTENSIVE:-unset})" >&2
