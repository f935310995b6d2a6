#!/usr/bin/env bash
# The test suite: builds everything first (the workspace's tests and the MPI binary that the
# MPI tests and the guides' `console mpi` blocks run, and the Python module), then runs the
# tests (cargo's, then the Python module's with pytest), and says how long the tests
# themselves took. TMD_EXTENSIVE=1 runs the large tier instead of the fast one.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python module (crates/tmd-py, feature `python`) into .venv (scripts/setup.sh makes it),
# first: it writes its library under crates/, which tmd's build script watches (for the
# commit's dirty mark), so the builds after it are the ones the tests use as they are.
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" \
  maturin develop --release --quiet -m crates/tmd-py/Cargo.toml
bash scripts/fix-dev-null.sh
cargo build --workspace --release --all-targets
bash scripts/fix-dev-null.sh
cargo build --release -p tmd --features mpi --target-dir target/mpi
start=$(date +%s)
cargo test --workspace --release "$@"
.venv/bin/python -m pytest -q -p no:cacheprovider crates/tmd-py/tests
echo "test.sh: the tests ran in $(( $(date +%s) - start )) s (TMD_EXTENSIVE=${TMD_EXTENSIVE:-unset})" >&2
