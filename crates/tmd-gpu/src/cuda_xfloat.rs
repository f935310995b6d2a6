//! The double- and quad-word `*_elementwise` kernels on a CUDA device: the twins of
//! [`OpenClDevice::double_word_elementwise`](crate::opencl::OpenClDevice::double_word_elementwise)
//! and [`OpenClDevice::quad_word_elementwise`](crate::opencl::OpenClDevice::quad_word_elementwise)
//! (the same programs, kernels and argument order), so that the bit-for-bit checks and the
//! throughput measurements of issue 3 (`examples/xfloat_throughput.rs`) run on NVIDIA GPUs
//! too, plus timed variants that time the kernel alone.

use crate::cuda::{driver, CudaDevice};
use crate::opencl::{DwOp, DwWord};
use crate::{
    double_word_arrays, double_words_from, quad_word_arrays, quad_words_from, GpuError, Timed,
};
use cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use std::time::Instant;
use tmd_kernels::Id;

/// Threads per block of the `*_elementwise` kernels (fewer when the compiled kernel allows
/// fewer, see `max_threads_per_block`); the kernels skip indices `>= n`.
const ELEMENTWISE_BLOCK: u32 = 128;

impl CudaDevice {
    /// Runs the double-word kernel `op` element-wise (program [`Id::XfloatDoubleWord`]):
    /// `r[i] = a[i] op b[i]` (or `op a[i]` for the unary ones), words given as (leading,
    /// trailing) pairs. Returns the result words.
    pub fn double_word_elementwise<W: DwWord + DeviceRepr>(
        &self,
        op: DwOp,
        a: &[(W, W)],
        b: &[(W, W)],
    ) -> Result<Vec<(W, W)>, GpuError> {
        Ok(self.double_word_elementwise_timed(op, a, b, 0)?.0)
    }

    /// [`CudaDevice::double_word_elementwise`], timed: the result words, and the seconds of
    /// each of `repeats` launches (launch to `cuStreamSynchronize`, host clock). The inputs
    /// are copied to the device once before and the results read once after, outside the
    /// timed region; a first launch, not timed, warms up (the module is compiled or read from
    /// the cache and loaded before it), so that the times are those of the kernel alone,
    /// which is what a throughput figure needs.
    pub fn double_word_elementwise_timed<W: DwWord + DeviceRepr>(
        &self,
        op: DwOp,
        a: &[(W, W)],
        b: &[(W, W)],
        repeats: usize,
    ) -> Result<Timed<(W, W)>, GpuError> {
        let name = format!("{}_elementwise", W::PREFIX);
        let inputs = double_word_arrays(a, b);
        let (words, seconds) =
            self.elementwise_timed(Id::XfloatDoubleWord, &name, op, &inputs, 2, repeats)?;
        Ok((double_words_from(&words), seconds))
    }

    /// Runs the quad-word kernel `op` element-wise (program [`Id::XfloatQuadWord`]):
    /// `r[i] = a[i] op b[i]` (or `op a[i]` for the unary ones), words most significant first.
    /// Returns the result words.
    pub fn quad_word_elementwise<W: DwWord + DeviceRepr>(
        &self,
        op: DwOp,
        a: &[[W; 4]],
        b: &[[W; 4]],
    ) -> Result<Vec<[W; 4]>, GpuError> {
        Ok(self.quad_word_elementwise_timed(op, a, b, 0)?.0)
    }

    /// [`CudaDevice::quad_word_elementwise`], timed as
    /// [`CudaDevice::double_word_elementwise_timed`] is: the result words and the kernel-only
    /// seconds of each of `repeats` launches.
    pub fn quad_word_elementwise_timed<W: DwWord + DeviceRepr>(
        &self,
        op: DwOp,
        a: &[[W; 4]],
        b: &[[W; 4]],
        repeats: usize,
    ) -> Result<Timed<[W; 4]>, GpuError> {
        let name = format!("{}_elementwise", W::QUAD_PREFIX);
        let inputs = quad_word_arrays(a, b);
        let (words, seconds) =
            self.elementwise_timed(Id::XfloatQuadWord, &name, op, &inputs, 4, repeats)?;
        Ok((quad_words_from(&words), seconds))
    }

    /// Runs kernel `name` of program `id` over the word arrays `inputs` (all of one length
    /// n), writing `outputs` word arrays: once untimed, then `repeats` times timed. Returns
    /// the output words and the seconds of each timed launch. Nothing runs for n = 0.
    fn elementwise_timed<W: DwWord + DeviceRepr>(
        &self,
        id: Id,
        name: &str,
        op: DwOp,
        inputs: &[Vec<W>],
        outputs: usize,
        repeats: usize,
    ) -> Result<Timed<Vec<W>>, GpuError> {
        let n = inputs[0].len();
        if n == 0 {
            return Ok((vec![Vec::new(); outputs], Vec::new()));
        }
        let items = u32::try_from(n)
            .map_err(|_| GpuError::Runtime(format!("{name}: {n} elements, at most 2^32 - 1")))?;
        let function = self
            .module(id)?
            .load_function(name)
            .map_err(driver("cuModuleGetFunction"))?;
        let max = function
            .max_threads_per_block()
            .map_err(driver("cuFuncGetAttribute"))?;
        let block = ELEMENTWISE_BLOCK.min(max.max(1) as u32);
        let config = LaunchConfig {
            grid_dim: (items.div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let (count, op) = (n as u64, op as i32);
        self.with_stream(|s| {
            let ins = inputs
                .iter()
                .map(|v| s.clone_htod(v))
                .collect::<Result<Vec<_>, _>>()
                .map_err(driver("cuMemcpyHtoD"))?;
            // SAFETY: the kernel writes every element below n before anything reads them.
            let mut outs = (0..outputs)
                .map(|_| unsafe { s.alloc::<W>(n) })
                .collect::<Result<Vec<_>, _>>()
                .map_err(driver("cuMemAlloc"))?;
            s.synchronize().map_err(driver("cuStreamSynchronize"))?;
            let mut seconds = Vec::with_capacity(repeats);
            for timed in std::iter::once(false).chain(std::iter::repeat_n(true, repeats)) {
                let mut launch = s.launch_builder(&function);
                for input in &ins {
                    launch.arg(input);
                }
                for output in outs.iter_mut() {
                    launch.arg(output);
                }
                launch.arg(&count).arg(&op);
                let started = Instant::now();
                unsafe { launch.launch(config) }.map_err(driver("cuLaunchKernel"))?;
                s.synchronize().map_err(driver("cuStreamSynchronize"))?;
                if timed {
                    seconds.push(started.elapsed().as_secs_f64());
                }
            }
            let words = outs
                .iter()
                .map(|buffer| s.clone_dtoh(buffer))
                .collect::<Result<Vec<_>, _>>()
                .map_err(driver("cuMemcpyDtoH"))?;
            Ok((words, seconds))
        })
    }
}
