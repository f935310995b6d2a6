//! tmd-gpu: runners for the portable kernels of `tmd-kernels`.
//!
//! # Design
//!
//! A runner owns a device, compiles the programs it is asked for (lazily, once per program:
//! [`opencl::OpenClDevice::program`]) and moves data in and out. The OpenCL runner uses the
//! `opencl3` crate with its `dynamic` feature: `libOpenCL.so.1` (the ICD loader) is opened at
//! run time, so the crate builds and its users run on machines without OpenCL, and a missing
//! runtime is a [`GpuError::Runtime`] that names what to install — never a panic or a link
//! error. On a machine without a GPU, PoCL (Debian `pocl-opencl-icd`) provides an OpenCL CPU
//! device, which is how CI runs every kernel.
//!
//! The CUDA side ([`cuda`]) compiles the same sources with NVRTC (cudarc, library loaded at run
//! time) to a cubin for the device's architecture; running them on a device is issue 5's part,
//! and until then `--backend cuda` is refused by the CLI.
//!
//! What the kernels compute is checked against the CPU crates bit for bit
//! (`tests/xfloat_opencl.rs`): a device result that differs is a bug, not a tolerance.

pub mod cuda;
pub mod opencl;

use thiserror::Error;

/// Why a device run failed.
#[derive(Debug, Error)]
pub enum GpuError {
    /// The API's runtime library is not installed (or has no usable device).
    #[error("{0}")]
    Runtime(String),
    /// A kernel program did not compile; the message holds the compiler's log.
    #[error("compiling {program} for {device}: {log}")]
    Build {
        program: &'static str,
        device: String,
        log: String,
    },
    /// Any other API error, with the call that returned it.
    #[error("{call}: {code}")]
    Api { call: &'static str, code: String },
}

/// Candidates a packet kernel can store per launch before the host relaunches with more room.
pub(crate) const FIRST_CAPACITY: usize = 1 << 20;

/// Runs a packet-kernel launch (`launch(capacity)` returns the stored candidates, how many
/// were found, and the statistics words of `subpackets` sub-packets per packet), once more
/// with exactly enough room when the first launch found more candidates than it could store;
/// sorts the candidates. Shared by the OpenCL and CUDA runners.
pub(crate) fn run_with_capacity(
    subpackets: u64,
    launch: impl Fn(usize) -> Result<(Vec<u64>, usize, Vec<u64>), GpuError>,
) -> Result<tmd_search::filter::device::DeviceOutput, String> {
    use tmd_search::filter::device::{fold_stats, DeviceOutput};
    let t = std::time::Instant::now();
    let mut capacity = FIRST_CAPACITY;
    let (mut stored, mut total, mut stats) = launch(capacity).map_err(|e| e.to_string())?;
    if total > capacity {
        capacity = total;
        (stored, total, stats) = launch(capacity).map_err(|e| e.to_string())?;
    }
    stored.truncate(total);
    stored.sort_unstable();
    Ok(DeviceOutput {
        candidates: stored,
        packet_stats: fold_stats(&stats, subpackets as usize),
        device_nanos: t.elapsed().as_nanos() as u64,
    })
}
