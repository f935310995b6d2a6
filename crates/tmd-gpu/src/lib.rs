//! tmd-gpu: runners for the portable kernels of `tmd-kernels`.
//!
//! # Design
//!
//! A runner owns a device, compiles the programs it is asked for (lazily, once per program)
//! and moves data in and out. The OpenCL runner uses the `opencl3` crate with its `dynamic`
//! feature: `libOpenCL.so.1` (the ICD loader) is opened at run time, so the crate builds and
//! its users run on machines without OpenCL, and a missing runtime is a
//! [`GpuError::Runtime`] that names what to install — never a panic or a link error. On a machine without a GPU, PoCL (Debian `pocl-opencl-icd`) provides an OpenCL CPU
//! device, which is how CI runs every kernel.
//!
//! The CUDA side ([`cuda`]) compiles the same sources with NVRTC (cudarc, libraries loaded at
//! run time) to a cubin for the device's architecture, cached on disk by source, options and
//! NVRTC version. Each host thread's device call takes a pair of streams of its own: the
//! phase-1 kernel, which fills the device for milliseconds, goes on a lowest-priority stream,
//! the short kernels after it (statistics, the prefix sums of the split pipeline, phases 2-3)
//! on a highest-priority one, so that they do not queue behind other threads' phase-1 blocks.
//! A missing driver or NVRTC is a [`GpuError::Runtime`] naming what to install.
//!
//! What the kernels compute is checked against the CPU crates bit for bit
//! (`tests/xfloat_opencl.rs`): a device result that differs is a bug, not a tolerance.

pub mod cuda;
mod cuda_xfloat;
pub mod fft;
pub mod opencl;
mod opencl_xfloat_timing;

use thiserror::Error;

/// Why a device run failed.
#[derive(Clone, Debug, Error)]
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
    /// A work-group size the kernel cannot run with on this device (its registers or local
    /// memory per work-item allow fewer).
    #[error(
        "--work-group {requested}: {kernel} runs at most {max} work-items per group on this device"
    )]
    WorkGroup {
        kernel: &'static str,
        requested: u32,
        max: u32,
    },
}

/// Counter words of the `crunch_analyse` kernel (kernels/crunch_analyse.cl): correctly
/// rounded, faithful, worse, NaN expected and wrong, overflow and wrong, subnormal and wrong,
/// decided on the device, then the 42 histogram bins.
pub const CRUNCH_COUNT_WORDS: usize = 52;

/// One launch of `crunch_analyse` over the binary64 ordinals `lo..lo + n`.
#[derive(Clone, Copy, Debug)]
pub struct AnalysePlan {
    pub lo: i64,
    pub n: u64,
    /// Relative bound of the double-double reference.
    pub eps: f64,
    /// The saturation thresholds of `tmd_crunch::saturation` (binary64).
    pub overflow_from: Option<f64>,
    pub overflow_symmetric: bool,
    pub tiny_until: Option<f64>,
    /// Room for near-max candidates and for inputs left to the host.
    pub candidate_capacity: u32,
    pub host_capacity: u32,
    /// Candidates with a smaller fast error are not listed (`f64::NEG_INFINITY`: none
    /// left out); see `tmd_crunch::device::candidate_floor`.
    pub candidate_floor: f64,
}

impl AnalysePlan {
    /// The saturation rules as the kernel takes them: (has overflow, overflow threshold,
    /// symmetric, has tiny region, tiny threshold).
    pub fn saturation_args(&self) -> (i32, f64, i32, i32, f64) {
        (
            self.overflow_from.is_some() as i32,
            self.overflow_from.unwrap_or(0.0),
            self.overflow_symmetric as i32,
            self.tiny_until.is_some() as i32,
            self.tiny_until.unwrap_or(0.0),
        )
    }
}

/// What one launch of `crunch_analyse` returns.
#[derive(Clone, Debug, Default)]
pub struct AnalyseOutput {
    /// [`CRUNCH_COUNT_WORDS`] counters.
    pub counts: Vec<u64>,
    /// (ordinal, fast error) of inputs that may be near the maximum (unordered).
    pub candidates: Vec<(i64, f64)>,
    /// How many there were, or when the room was too small more than stored (the count
    /// stops once the list is full).
    pub candidates_found: u64,
    /// When there was no room for all: fast errors of candidates left out, the largest per
    /// bucket of a hash of the ordinal (at most `candidate_capacity` distinct inputs), for
    /// `tmd_crunch::device::candidate_floor`.
    pub sampled_errors: Vec<f64>,
    /// (ordinal, result) of inputs the device did not decide (unordered).
    pub host: Vec<(i64, f64)>,
    pub host_found: u64,
}

/// Results of a timed run of a kernel: the values, and the seconds of each timed launch.
pub type Timed<T> = (Vec<T>, Vec<f64>);

/// The word arrays the `*_elementwise` kernels take for double words: a_hi, a_lo, b_hi, b_lo.
pub(crate) fn double_word_arrays<W: Copy>(a: &[(W, W)], b: &[(W, W)]) -> Vec<Vec<W>> {
    assert_eq!(a.len(), b.len(), "operands of equal length");
    let split = |v: &[(W, W)]| -> (Vec<W>, Vec<W>) { v.iter().copied().unzip() };
    let ((a_hi, a_lo), (b_hi, b_lo)) = (split(a), split(b));
    vec![a_hi, a_lo, b_hi, b_lo]
}

/// Double words from the kernels' (leading, trailing) output arrays.
pub(crate) fn double_words_from<W: Copy>(words: &[Vec<W>]) -> Vec<(W, W)> {
    words[0]
        .iter()
        .copied()
        .zip(words[1].iter().copied())
        .collect()
}

/// The word arrays the `*_elementwise` kernels take for quad words: one per word, a0..a3
/// then b0..b3.
pub(crate) fn quad_word_arrays<W: Copy>(a: &[[W; 4]], b: &[[W; 4]]) -> Vec<Vec<W>> {
    assert_eq!(a.len(), b.len(), "operands of equal length");
    [a, b]
        .iter()
        .flat_map(|operand| (0..4).map(move |k| operand.iter().map(|w| w[k]).collect()))
        .collect()
}

/// Quad words (most significant first) from the kernels' four output arrays.
pub(crate) fn quad_words_from<W: Copy>(words: &[Vec<W>]) -> Vec<[W; 4]> {
    (0..words[0].len())
        .map(|i| [words[0][i], words[1][i], words[2][i], words[3][i]])
        .collect()
}

/// The errors of the kernel's sample words (bits + 1; 0 for an empty position).
pub(crate) fn sampled_errors(words: &[u64]) -> Vec<f64> {
    words
        .iter()
        .filter(|&&w| w != 0)
        .map(|&w| f64::from_bits(w - 1))
        .collect()
}

impl AnalyseOutput {
    /// Whether every candidate and every undecided input was stored.
    pub fn complete(&self) -> bool {
        self.candidates_found == self.candidates.len() as u64
            && self.host_found == self.host.len() as u64
    }
}

/// Candidates a packet kernel can store per launch before the host relaunches with more room.
pub(crate) const FIRST_CAPACITY: usize = 1 << 16;

/// What one packet-kernel launch returns: the candidates stored and found, the statistics
/// words per packet, and the `warp_nmdm` records.
pub(crate) struct Launched {
    pub stored: Vec<u64>,
    pub total: usize,
    pub stats: Vec<u64>,
    pub warps: Vec<u64>,
    /// Per kernel (`tmd_search::filter::device::DEVICE_STEPS`), host-measured nanoseconds.
    pub step_nanos: [u64; tmd_search::filter::device::DEVICE_STEPS.len()],
}

/// The filter program a launch of `plan` needs (its table degree, pipeline and domains per
/// work-item), for both runners.
pub(crate) fn filter_id(plan: &tmd_search::filter::device::KernelPlan) -> tmd_kernels::Id {
    tmd_kernels::Id::filter_for(plan.degrees, plan.split_phases, plan.domains_per_item)
}

/// The `buffers_and_copies` step of a device call: its time not spent in its kernels (the
/// steps before the last of `step_nanos`).
pub(crate) fn rest_of_call(call_started: std::time::Instant, step_nanos: &[u64]) -> u64 {
    let kernels: u64 = step_nanos[..step_nanos.len() - 1].iter().sum();
    (call_started.elapsed().as_nanos() as u64).saturating_sub(kernels)
}

/// Runs a packet-kernel launch (`launch(capacity)` returns the stored candidates, how many
/// were found, and one statistics record per packet, folded on the device), once more with
/// exactly enough room when the first launch found more candidates than it could store; sorts
/// the candidates. Shared by the OpenCL and CUDA runners.
pub(crate) fn run_with_capacity(
    launch: impl Fn(usize) -> Result<Launched, GpuError>,
) -> Result<tmd_search::filter::device::DeviceOutput, String> {
    use tmd_search::filter::device::{decode_stats, sum_warp_nmdm, DeviceOutput, STATS_WORDS};
    let t = std::time::Instant::now();
    let mut capacity = FIRST_CAPACITY;
    let mut run = launch(capacity).map_err(|e| e.to_string())?;
    if run.total > capacity {
        capacity = run.total;
        run = launch(capacity).map_err(|e| e.to_string())?;
    }
    let Launched {
        mut stored,
        total,
        stats,
        warps,
        step_nanos,
    } = run;
    stored.truncate(total);
    stored.sort_unstable();
    Ok(DeviceOutput {
        candidates: stored,
        packet_stats: stats.chunks(STATS_WORDS).map(decode_stats).collect(),
        device_nanos: t.elapsed().as_nanos() as u64,
        warp_nmdm: sum_warp_nmdm(&warps),
        step_nanos,
    })
}
