//! Timed runs of the double- and quad-word `*_elementwise` kernels on an OpenCL device, for
//! throughput measurements (`examples/xfloat_throughput.rs`, issue 3): the same kernels,
//! arguments and work-group size as [`OpenClDevice::double_word_elementwise`] and
//! [`OpenClDevice::quad_word_elementwise`], with the kernel alone timed.

use crate::opencl::{api, DwOp, DwWord, OpenClDevice, ELEMENTWISE_GROUP};
use crate::{
    double_word_arrays, double_words_from, quad_word_arrays, quad_words_from, GpuError, Timed,
};
use opencl3::kernel::{ExecuteKernel, Kernel};
use std::time::Instant;
use tmd_kernels::Id;

impl OpenClDevice {
    /// [`OpenClDevice::double_word_elementwise`], timed: the result words, and the seconds of
    /// each of `repeats` launches (enqueue to `clFinish`, host clock). The inputs are copied
    /// to the device once before and the results read once after, outside the timed region;
    /// a first launch, not timed, warms up (the program is built before it), so that the
    /// times are those of the kernel alone, which is what a throughput figure needs.
    pub fn double_word_elementwise_timed<W: DwWord>(
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

    /// [`OpenClDevice::quad_word_elementwise`], timed as
    /// [`OpenClDevice::double_word_elementwise_timed`] is: the result words (most significant
    /// first) and the kernel-only seconds of each of `repeats` launches.
    pub fn quad_word_elementwise_timed<W: DwWord>(
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
    /// the output words and the seconds of each timed launch.
    fn elementwise_timed<W: DwWord>(
        &self,
        id: Id,
        name: &str,
        op: DwOp,
        inputs: &[Vec<W>],
        outputs: usize,
        repeats: usize,
    ) -> Result<Timed<Vec<W>>, GpuError> {
        let n = inputs[0].len();
        let ins = inputs
            .iter()
            .map(|v| self.input(v))
            .collect::<Result<Vec<_>, _>>()?;
        let outs = (0..outputs)
            .map(|_| self.output::<W>(n))
            .collect::<Result<Vec<_>, _>>()?;
        let (count, op) = (n as u64, op as i32);
        let global = n.div_ceil(ELEMENTWISE_GROUP) * ELEMENTWISE_GROUP;
        let seconds = self.with_program(id, |program| {
            let kernel = Kernel::create(program, name).map_err(api("clCreateKernel"))?;
            let launch = || -> Result<f64, GpuError> {
                let mut exec = ExecuteKernel::new(&kernel);
                unsafe {
                    for buffer in ins.iter().chain(&outs) {
                        exec.set_arg(buffer);
                    }
                    exec.set_arg(&count).set_arg(&op);
                }
                exec.set_global_work_size(global)
                    .set_local_work_size(ELEMENTWISE_GROUP);
                let started = Instant::now();
                unsafe { exec.enqueue_nd_range(&self.queue) }
                    .map_err(api("clEnqueueNDRangeKernel"))?;
                self.queue.finish().map_err(api("clFinish"))?;
                Ok(started.elapsed().as_secs_f64())
            };
            launch()?;
            (0..repeats).map(|_| launch()).collect()
        })?;
        let words = outs
            .iter()
            .map(|buffer| self.read(buffer, n))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((words, seconds))
    }
}
