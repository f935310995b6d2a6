//! The `mpirun`-capable tmd (cargo feature `mpi`), built once into target/mpi: the default
//! build has no MPI, so the plain binary runs where OpenMPI is absent. Shared by the MPI tests
//! and the guides' `console mpi` blocks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds `tmd --features mpi` once (a no-op when it is up to date); panics with what to
/// install when OpenMPI is missing.
pub fn mpi_tmd() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let mpirun = Command::new("mpirun").arg("--version").output();
        assert!(
            mpirun.is_ok_and(|o| o.status.success()),
            "mpirun not found: run scripts/setup.sh (installs openmpi-bin, libopenmpi-dev)"
        );
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let target = workspace().join("target/mpi");
        let status = Command::new(cargo)
            .current_dir(workspace())
            .args([
                "build",
                "--release",
                "-p",
                "tmd",
                "--features",
                "mpi",
                "--target-dir",
            ])
            .arg(&target)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building tmd with --features mpi failed");
        target.join("release/tmd")
    })
}
