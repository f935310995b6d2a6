//! One device handle that is a value: [`Device`], an enum over the runtimes, opened from a
//! [`Runtime`] and an index. The search's filter, the crunch's device targets and the
//! examples all hold a `Device`, so the choice between OpenCL and CUDA is made once, here.
//!
//! [`Backend`](crate::Backend) cannot be a trait object (its launch sequences are generic), so
//! the handle is an enum whose methods dispatch to the runtime's own methods; the enum itself
//! implements the filter's `PacketDevice`, which is a trait object.

use crate::cuda::CudaDevice;
use crate::opencl::OpenClDevice;
use crate::{AnalyseOutput, AnalysePlan, CrunchReal, GpuError, Timed};
use std::sync::Arc;
use tmd_search::filter::device::{DeviceOutput, KernelPlan, PacketDevice, PacketJob};
use tmd_xfloat::fft::Complex;

/// A device runtime: what `--backend opencl|cuda` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    OpenCl,
    Cuda,
}

impl Runtime {
    /// The runtime of a search backend; `None` for the CPU cores.
    pub fn of(backend: tmd_search::Backend) -> Option<Runtime> {
        match backend {
            tmd_search::Backend::Cpu => None,
            tmd_search::Backend::OpenCl => Some(Runtime::OpenCl),
            tmd_search::Backend::Cuda => Some(Runtime::Cuda),
        }
    }

    /// The runtime `--backend NAME` names; `None` for any other name.
    pub fn parse(name: &str) -> Option<Runtime> {
        match name {
            "opencl" => Some(Runtime::OpenCl),
            "cuda" => Some(Runtime::Cuda),
            _ => None,
        }
    }

    /// The flag value that names it (`opencl`, `cuda`).
    pub fn flag(self) -> &'static str {
        match self {
            Runtime::OpenCl => "opencl",
            Runtime::Cuda => "cuda",
        }
    }

    /// The API's name in messages (`OpenCL`, `CUDA`).
    pub fn api(self) -> &'static str {
        match self {
            Runtime::OpenCl => "OpenCL",
            Runtime::Cuda => "CUDA",
        }
    }
}

/// An open device of either runtime; cloning shares it.
#[derive(Clone, Debug)]
pub enum Device {
    OpenCl(Arc<OpenClDevice>),
    Cuda(Arc<CudaDevice>),
}

/// Runs `$body` with `$d` bound to the runtime's device, whichever it is.
macro_rules! on_runtime {
    ($device:expr, $d:ident => $body:expr) => {
        match $device {
            Device::OpenCl($d) => $body,
            Device::Cuda($d) => $body,
        }
    };
}

impl Device {
    /// Opens device `index` of `runtime` (a missing runtime or device is
    /// [`GpuError::Runtime`], naming what to install).
    pub fn open(runtime: Runtime, index: usize) -> Result<Device, GpuError> {
        Ok(match runtime {
            Runtime::OpenCl => Device::OpenCl(Arc::new(OpenClDevice::nth(index)?)),
            Runtime::Cuda => Device::Cuda(Arc::new(CudaDevice::nth(index)?)),
        })
    }

    pub fn runtime(&self) -> Runtime {
        match self {
            Device::OpenCl(_) => Runtime::OpenCl,
            Device::Cuda(_) => Runtime::Cuda,
        }
    }

    /// The device's own name (OpenCL's device name; CUDA's name, ordinal and architecture).
    pub fn describe(&self) -> String {
        match self {
            Device::OpenCl(d) => d.name(),
            Device::Cuda(d) => d.describe(),
        }
    }

    /// Whether the device computes in binary64 (every CUDA device does).
    pub fn has_fp64(&self) -> bool {
        match self {
            Device::OpenCl(d) => d.has_fp64(),
            Device::Cuda(_) => true,
        }
    }

    /// See `crunch_eval` of the runtime devices.
    pub fn crunch_eval<T: CrunchReal>(&self, target: &str, xs: &[T]) -> Result<Vec<T>, GpuError> {
        on_runtime!(self, d => d.crunch_eval(target, xs))
    }

    /// See `crunch_analyse` of the runtime devices.
    pub fn crunch_analyse(
        &self,
        function: &str,
        target: &str,
        plan: &AnalysePlan,
    ) -> Result<Option<AnalyseOutput>, GpuError> {
        on_runtime!(self, d => d.crunch_analyse(function, target, plan))
    }

    /// See `fft_forward` of the runtime devices.
    pub fn fft_forward<T: crate::fft::FftDeviceScalar>(
        &self,
        data: &[Complex<T>],
        w: &[Complex<T>],
    ) -> Result<crate::fft::DeviceFft<T>, GpuError> {
        on_runtime!(self, d => d.fft_forward(data, w))
    }

    /// See `double_word_elementwise_timed` of the runtime devices.
    pub fn double_word_elementwise_timed<W: crate::xfloat::DwWord>(
        &self,
        op: crate::xfloat::DwOp,
        a: &[(W, W)],
        b: &[(W, W)],
        repeats: usize,
    ) -> Result<Timed<(W, W)>, GpuError> {
        on_runtime!(self, d => d.double_word_elementwise_timed(op, a, b, repeats))
    }

    /// See `quad_word_elementwise_timed` of the runtime devices.
    pub fn quad_word_elementwise_timed<W: crate::xfloat::DwWord>(
        &self,
        op: crate::xfloat::DwOp,
        a: &[[W; 4]],
        b: &[[W; 4]],
        repeats: usize,
    ) -> Result<Timed<[W; 4]>, GpuError> {
        on_runtime!(self, d => d.quad_word_elementwise_timed(op, a, b, repeats))
    }
}

impl PacketDevice for Device {
    fn name(&self) -> String {
        on_runtime!(self, d => PacketDevice::name(&**d))
    }

    fn run_packets(&self, plan: &KernelPlan, jobs: &[PacketJob]) -> Result<DeviceOutput, String> {
        on_runtime!(self, d => d.run_packets(plan, jobs))
    }

    fn prepare(&self, plan: &KernelPlan) -> Result<(), String> {
        on_runtime!(self, d => d.prepare(plan))
    }
}
