//! tmd-gpu: the portable kernels of `tmd-kernels` run on OpenCL and CUDA devices.
//!
//! # Design
//!
//! Two layers. At the bottom, [`Backend`] is what a device runtime offers: buffers,
//! uploads and downloads, programs compiled once per device, launching a kernel of a program
//! over a grid with a list of arguments ([`Arg`]), and waiting for a queue. Each runtime
//! implements it once and does nothing else: [`opencl`] (the `opencl3` crate with its
//! `dynamic` feature, `libOpenCL.so.1` opened at run time) and [`cuda`] (cudarc, the sources
//! compiled by NVRTC to a cubin for the device's architecture and cached on disk by source,
//! options and NVRTC version). On top, every launch sequence is written once, generic over
//! the trait: the filtered search's device call ([`filter`]: the phase-1 kernel, the
//! statistics fold, the per-warp NMDM, the split pipeline's prefix sums and its phase-2 and
//! phase-3 kernels), the crunch kernels ([`crunch`]), the double- and quad-word kernels
//! ([`xfloat`]) and the FFT ([`fft`]). The runtimes differ only in a few launch parameters,
//! associated constants of the trait (group sizes, the analysis kernel's work-items), and in
//! queues: OpenCL serves every call from one in-order queue, while a CUDA call takes a pair of
//! streams of its own, the phase-1 kernel, which fills the device for milliseconds, on a
//! lowest-priority stream and the short kernels after it on a highest-priority one, so that
//! they do not wait behind other host threads' phase-1 blocks.
//!
//! A search's device is a [`Device`] opened from the plan's backend by
//! [`filter::open_search_device`]; the search job (`tmd_search::job`) takes it as a value.
//!
//! The numbers the kernels and the host share (record sizes, work-group sizes) come from
//! `tmd_kernels::layout`, which also hands them to the compilers as `-D` options.
//!
//! Runtimes are loaded at run time, so the crate builds and its users run on machines without
//! them: a missing runtime or device is a [`GpuError::Runtime`] that names what to install,
//! never a panic or a link error. On a machine without a GPU, PoCL (Debian
//! `pocl-opencl-icd`) provides an OpenCL CPU device, which is how CI runs every kernel; CUDA
//! programs are compiled there by NVRTC without running.
//!
//! [`crunch_target`] is the crunch command's device target (`--backend opencl|cuda`): the
//! device evaluates the target and, for binary64 targets with a device reference, analyses
//! the errors too. A device failure in the middle of a run goes to a handler the caller
//! chooses.
//!
//! What the kernels compute is checked against the CPU crates bit for bit
//! (`tests/xfloat_opencl.rs`, `tests/search_opencl.rs`): a device result that differs is a
//! bug, not a tolerance.

pub mod backend;
pub mod crunch;
pub mod crunch_target;
pub mod cuda;
pub mod device;
pub mod fft;
pub mod filter;
pub mod opencl;
mod trace;
pub mod xfloat;

pub use backend::{Arg, Backend, Grid, Word};
pub use crunch::{AnalyseOutput, AnalysePlan, CrunchReal};
pub use device::{Device, Runtime};
use thiserror::Error;
pub use tmd_kernels::layout::CRUNCH_COUNT_WORDS;

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

/// Results of a timed run of a kernel: the values, and the seconds of each timed launch.
pub type Timed<T> = (Vec<T>, Vec<f64>);

/// The operations of a device type, as inherent methods over the generic launch sequences,
/// and the filter's `PacketDevice` (one definition for both runtimes); `$label` names the
/// device in reports.
macro_rules! device_operations {
    ($device:ty, $label:expr) => {
        impl tmd_search::filter::device::PacketDevice for $device {
            fn name(&self) -> String {
                $label(self)
            }

            fn run_packets(
                &self,
                plan: &tmd_search::filter::device::KernelPlan,
                jobs: &[tmd_search::filter::device::PacketJob],
            ) -> Result<tmd_search::filter::device::DeviceOutput, String> {
                $crate::filter::run_packets(self, plan, jobs)
            }

            fn prepare(&self, plan: &tmd_search::filter::device::KernelPlan) -> Result<(), String> {
                $crate::filter::prepare(self, plan)
            }
        }

        impl $device {
            /// Runs the double-word kernel `op` element-wise (program
            /// `Id::XfloatDoubleWord`): `r[i] = a[i] op b[i]` (or `op a[i]` for the unary
            /// ones), words given as (leading, trailing) pairs. Returns the result words.
            pub fn double_word_elementwise<W: $crate::xfloat::DwWord>(
                &self,
                op: $crate::xfloat::DwOp,
                a: &[(W, W)],
                b: &[(W, W)],
            ) -> Result<Vec<(W, W)>, $crate::GpuError> {
                Ok($crate::xfloat::double_word(self, op, a, b, 0)?.0)
            }

            /// The double-word kernel, timed: the result words, and the seconds of each of
            /// `repeats` launches (launch to completion, host clock), after one untimed
            /// launch; the copies are outside the timed region.
            pub fn double_word_elementwise_timed<W: $crate::xfloat::DwWord>(
                &self,
                op: $crate::xfloat::DwOp,
                a: &[(W, W)],
                b: &[(W, W)],
                repeats: usize,
            ) -> Result<$crate::Timed<(W, W)>, $crate::GpuError> {
                $crate::xfloat::double_word(self, op, a, b, repeats)
            }

            /// Runs the quad-word kernel `op` element-wise (program `Id::XfloatQuadWord`),
            /// words most significant first. Returns the result words.
            pub fn quad_word_elementwise<W: $crate::xfloat::DwWord>(
                &self,
                op: $crate::xfloat::DwOp,
                a: &[[W; 4]],
                b: &[[W; 4]],
            ) -> Result<Vec<[W; 4]>, $crate::GpuError> {
                Ok($crate::xfloat::quad_word(self, op, a, b, 0)?.0)
            }

            /// The quad-word kernel, timed as the double-word one is.
            pub fn quad_word_elementwise_timed<W: $crate::xfloat::DwWord>(
                &self,
                op: $crate::xfloat::DwOp,
                a: &[[W; 4]],
                b: &[[W; 4]],
                repeats: usize,
            ) -> Result<$crate::Timed<[W; 4]>, $crate::GpuError> {
                $crate::xfloat::quad_word(self, op, a, b, repeats)
            }

            /// Evaluates a crunch target (the C definition of `crunch_target`, see
            /// `tmd_kernels::crunch_source`) on every input; the program is built once per
            /// target. A build failure (a bad user snippet) is `GpuError::Build` with the
            /// compiler's log.
            pub fn crunch_eval<T: $crate::CrunchReal>(
                &self,
                target: &str,
                xs: &[T],
            ) -> Result<Vec<T>, $crate::GpuError> {
                $crate::crunch::eval_source(
                    self,
                    format!("crunch\n{}\n{target}", T::C_TYPE),
                    || tmd_kernels::crunch_source(T::C_TYPE, target),
                    xs,
                )
            }

            /// `crunch_eval` of a complete program `source` (one that defines
            /// `crunch_target` and includes `kernels/crunch.cl`, as
            /// `tmd_kernels::crunch_analyse_source` does): the tests run the analysis
            /// program's own helpers through it (the fast exp reference).
            pub fn crunch_eval_source<T: $crate::CrunchReal>(
                &self,
                source: String,
                xs: &[T],
            ) -> Result<Vec<T>, $crate::GpuError> {
                $crate::crunch::eval_source(self, source.clone(), || source, xs)
            }

            /// Runs `crunch_analyse` (kernels/crunch_analyse.cl) for a target of `function`
            /// in the plan's format over one range of ordinals: the target, the
            /// double-double reference and the fast decisions on the device. `None` when the
            /// function has no device reference for the format.
            pub fn crunch_analyse(
                &self,
                function: &str,
                target: &str,
                plan: &$crate::AnalysePlan,
            ) -> Result<Option<$crate::AnalyseOutput>, $crate::GpuError> {
                $crate::crunch::analyse(self, function, target, plan)
            }

            /// The forward FFT of `data` (power-of-two length) on the device,
            /// `kernels/fft.cl`, with the twiddles `w` of `tmd_xfloat::fft::fill_twiddles`
            /// for that length; equal bit for bit to `tmd_xfloat::fft::fft_forward`.
            pub fn fft_forward<T: $crate::fft::FftDeviceScalar>(
                &self,
                data: &[tmd_xfloat::fft::Complex<T>],
                w: &[tmd_xfloat::fft::Complex<T>],
            ) -> Result<$crate::fft::DeviceFft<T>, $crate::GpuError> {
                $crate::fft::forward(self, data, w)
            }

            /// The exclusive prefix sums of `values` (of their popcounts when `popcount`)
            /// computed by the split pipeline's scan kernels, and their total: for tests of
            /// the compaction.
            pub fn prefix_sums(
                &self,
                values: &[u32],
                popcount: bool,
            ) -> Result<(Vec<u32>, usize), $crate::GpuError> {
                $crate::filter::prefix_sums(self, values, popcount)
            }
        }
    };
}
pub(crate) use device_operations;
