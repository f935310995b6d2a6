//! The OpenCL runner (opencl3, runtime loaded at run time).

use crate::fft::{self, DeviceFft, FftDeviceScalar};
use crate::{AnalyseOutput, AnalysePlan, GpuError, Launched, CRUNCH_COUNT_WORDS};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{get_all_devices, Device, CL_DEVICE_TYPE_ALL};
use opencl3::error_codes::{ClError, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{
    Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY,
};
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;
use std::time::Instant;
use tmd_kernels::Id;
use tmd_search::filter::device::{
    add_split_counters, flatten_tables, item_record_words, subpackets_per_packet,
    warp_nmdm_records, DeviceOutput, KernelPlan, PacketDevice, PacketJob, DEFER_WORDS,
    DEVICE_STEPS, FOLD_GROUP, SCAN_BLOCK, SCAN_GROUP, STATS_WORDS, WARP_NMDM_GROUP,
    WARP_NMDM_WORDS,
};
use tmd_xfloat::fft::Complex;

pub(crate) fn api(call: &'static str) -> impl FnOnce(ClError) -> GpuError {
    move |e| GpuError::Api {
        call,
        code: String::from(e),
    }
}

/// One OpenCL device with its context, queue and compiled programs.
pub struct OpenClDevice {
    device: Device,
    context: Context,
    pub(crate) queue: CommandQueue,
    programs: Mutex<HashMap<Id, Program>>,
    /// Crunch programs, one per target, keyed by their source text.
    crunch_programs: Mutex<HashMap<String, Program>>,
}

/// A format the crunch kernel evaluates (on OpenCL and CUDA devices).
pub trait CrunchReal:
    Copy + Default + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
    /// The C type.
    const C_TYPE: &'static str;
}

impl CrunchReal for f32 {
    const C_TYPE: &'static str = "float";
}

impl CrunchReal for f64 {
    const C_TYPE: &'static str = "double";
}

/// A base format of the double- and quad-word kernels.
pub trait DwWord: Copy + Default {
    /// The double-word kernels' instance prefix.
    const PREFIX: &'static str;
    /// The quad-word kernels' instance prefix.
    const QUAD_PREFIX: &'static str;
}

impl DwWord for f32 {
    const PREFIX: &'static str = "df64";
    const QUAD_PREFIX: &'static str = "qf128";
}

impl DwWord for f64 {
    const PREFIX: &'static str = "dd";
    const QUAD_PREFIX: &'static str = "qd";
}

/// The operations of the `*_elementwise` kernels of double and quad words (their `op`
/// argument, the same codes in double_word_ops.cl and quad_word_ops.cl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DwOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Sqrt = 4,
    Recip = 5,
    Exp = 6,
    /// expm1 of `a` (kernels/multi_word_exp_log.cl).
    Expm1 = 7,
    /// log of `a`.
    Log = 8,
    /// log1p of `a`.
    Log1p = 9,
    /// sinh of `a` (kernels/multi_word_hyperbolic.cl).
    Sinh = 10,
    /// cosh of `a`.
    Cosh = 11,
    /// tanh of `a`.
    Tanh = 12,
    /// sin of `a` (kernels/multi_word_trig.cl).
    Sin = 13,
    /// cos of `a`.
    Cos = 14,
    /// tan of `a`.
    Tan = 15,
    /// atan of `a`.
    Atan = 16,
}

/// The work-group size of the `*_elementwise` kernels (the global size is rounded up to a
/// multiple; the kernels skip indices `>= n`). An explicit size, because PoCL's own choice for
/// large arrays (work-groups of thousands of items) overflowed the stack of its worker
/// threads (SIGSEGV) on the quad-double kernel once the elementary functions were compiled
/// into it.
pub(crate) const ELEMENTWISE_GROUP: usize = 64;

impl OpenClDevice {
    /// The OpenCL devices of every platform, in the ICD loader's order.
    pub fn list() -> Result<Vec<OpenClDevice>, GpuError> {
        // The ICD loader's first enumeration is not safe to race (two threads at once have
        // seen no device at all): enumerate under one process-wide lock.
        static ENUMERATION: Mutex<()> = Mutex::new(());
        let _guard = ENUMERATION.lock().unwrap_or_else(|e| e.into_inner());
        let ids = get_all_devices(CL_DEVICE_TYPE_ALL).map_err(|e| {
            if e.0 == DLOPEN_RUNTIME_LOAD_FAILED {
                GpuError::Runtime(
                    "OpenCL is not available: libOpenCL.so.1 (the ICD loader) was not found; \
                     install an OpenCL driver, e.g. Debian's pocl-opencl-icd for the CPU \
                     (scripts/setup.sh does)"
                        .to_string(),
                )
            } else {
                GpuError::Runtime(format!(
                    "OpenCL has no usable platform or device ({}); install a driver, e.g. \
                     Debian's pocl-opencl-icd",
                    String::from(e)
                ))
            }
        })?;
        ids.into_iter()
            .map(|id| Self::open(Device::new(id)))
            .collect()
    }

    /// Device number `index` of [`OpenClDevice::list`] (the CLI's `--device N`).
    pub fn nth(index: usize) -> Result<OpenClDevice, GpuError> {
        let mut all = Self::list()?;
        if index >= all.len() {
            return Err(GpuError::Runtime(format!(
                "OpenCL device {index} does not exist ({} found)",
                all.len()
            )));
        }
        Ok(all.swap_remove(index))
    }

    fn open(device: Device) -> Result<OpenClDevice, GpuError> {
        let context = Context::from_device(&device).map_err(api("clCreateContext"))?;
        #[allow(deprecated)]
        let queue =
            CommandQueue::create_default(&context, 0).map_err(api("clCreateCommandQueue"))?;
        Ok(OpenClDevice {
            device,
            context,
            queue,
            programs: Mutex::new(HashMap::new()),
            crunch_programs: Mutex::new(HashMap::new()),
        })
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> String {
        self.device.name().unwrap_or_else(|_| "unknown".into())
    }

    /// Whether the device has IEEE double precision (cl_khr_fp64), which dd kernels need.
    pub fn has_fp64(&self) -> bool {
        self.device.double_fp_config().is_ok_and(|c| c != 0)
    }

    /// Compiles program `id` once (later calls reuse it) and runs `f` with it.
    pub(crate) fn with_program<T>(
        &self,
        id: Id,
        f: impl FnOnce(&Program) -> Result<T, GpuError>,
    ) -> Result<T, GpuError> {
        let mut programs = self.programs.lock().expect("program cache poisoned");
        let program = match programs.entry(id) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let source = tmd_kernels::source(id);
                let options = tmd_kernels::opencl_options(&[]);
                let program =
                    Program::create_and_build_from_source(&self.context, &source, &options)
                        .map_err(|log| GpuError::Build {
                            program: id.name(),
                            device: self.name(),
                            log,
                        })?;
                e.insert(program)
            }
        };
        f(program)
    }

    /// Builds program `id` (to check that it compiles on this device).
    pub fn build(&self, id: Id) -> Result<(), GpuError> {
        self.with_program(id, |_| Ok(()))
    }

    pub(crate) fn input<T: Copy>(&self, data: &[T]) -> Result<Buffer<T>, GpuError> {
        self.buffer(data, CL_MEM_READ_ONLY)
    }

    /// A device buffer initialised from `data` (CL_MEM_COPY_HOST_PTR only reads the host
    /// memory, so the slice is not copied first). OpenCL has no empty buffers.
    fn buffer<T: Copy>(&self, data: &[T], flags: u64) -> Result<Buffer<T>, GpuError> {
        if data.is_empty() {
            return Err(GpuError::Runtime("empty input".into()));
        }
        unsafe {
            Buffer::<T>::create(
                &self.context,
                flags | CL_MEM_COPY_HOST_PTR,
                data.len(),
                data.as_ptr() as *mut c_void,
            )
        }
        .map_err(api("clCreateBuffer"))
    }

    /// A buffer kernels write and later kernels read.
    fn scratch<T>(&self, len: usize) -> Result<Buffer<T>, GpuError> {
        unsafe { Buffer::<T>::create(&self.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut()) }
            .map_err(api("clCreateBuffer"))
    }

    pub(crate) fn output<T>(&self, len: usize) -> Result<Buffer<T>, GpuError> {
        unsafe { Buffer::<T>::create(&self.context, CL_MEM_WRITE_ONLY, len, std::ptr::null_mut()) }
            .map_err(api("clCreateBuffer"))
    }

    /// The first `len` elements of `buffer` (none for 0).
    pub(crate) fn read<T: Copy + Default>(
        &self,
        buffer: &Buffer<T>,
        len: usize,
    ) -> Result<Vec<T>, GpuError> {
        let mut out = vec![T::default(); len];
        if len == 0 {
            return Ok(out);
        }
        unsafe {
            self.queue
                .enqueue_read_buffer(buffer, CL_BLOCKING, 0, &mut out, &[])
                .map_err(api("clEnqueueReadBuffer"))?;
        }
        Ok(out)
    }

    /// Runs the double-word kernel `op` element-wise: `r[i] = a[i] op b[i]` (or `op a[i]` for
    /// the unary ones), words given as (leading, trailing) pairs. Returns the result words.
    pub fn double_word_elementwise<W: DwWord>(
        &self,
        op: DwOp,
        a: &[(W, W)],
        b: &[(W, W)],
    ) -> Result<Vec<(W, W)>, GpuError> {
        Ok(self.double_word_elementwise_timed(op, a, b, 0)?.0)
    }

    /// Runs the quad-word kernel `op` element-wise (program [`Id::XfloatQuadWord`]):
    /// `r[i] = a[i] op b[i]` (or `op a[i]` for the unary ones), words most significant first.
    /// Returns the result words.
    pub fn quad_word_elementwise<W: DwWord>(
        &self,
        op: DwOp,
        a: &[[W; 4]],
        b: &[[W; 4]],
    ) -> Result<Vec<[W; 4]>, GpuError> {
        Ok(self.quad_word_elementwise_timed(op, a, b, 0)?.0)
    }
}

impl OpenClDevice {
    /// Evaluates a crunch target (the C definition of `crunch_target`, see
    /// `tmd_kernels::crunch_source`) on every input; the program is built once per target.
    /// A build failure (a bad user snippet) is `GpuError::Build` with the compiler's log.
    pub fn crunch_eval<T: CrunchReal>(&self, target: &str, xs: &[T]) -> Result<Vec<T>, GpuError> {
        self.crunch_eval_source(tmd_kernels::crunch_source(T::C_TYPE, target), xs)
    }

    /// `crunch_eval` of a complete program `source` (one that defines `crunch_target` and
    /// includes `kernels/crunch.cl`, as `tmd_kernels::crunch_analyse_source` does): the tests
    /// run the analysis program's own helpers through it (the fast exp reference).
    pub fn crunch_eval_source<T: CrunchReal>(
        &self,
        source: String,
        xs: &[T],
    ) -> Result<Vec<T>, GpuError> {
        let output = self.with_crunch_program(source, "crunch", |program| {
            if xs.is_empty() {
                return Ok(None);
            }
            let input = self.input(xs)?;
            let output = self.output::<T>(xs.len())?;
            let kernel = Kernel::create(program, "crunch_eval").map_err(api("clCreateKernel"))?;
            let n = xs.len() as u64;
            unsafe {
                ExecuteKernel::new(&kernel)
                    .set_arg(&input)
                    .set_arg(&output)
                    .set_arg(&n)
                    .set_global_work_size(xs.len())
                    .enqueue_nd_range(&self.queue)
                    .map_err(api("clEnqueueNDRangeKernel"))?;
            }
            self.queue.finish().map_err(api("clFinish"))?;
            Ok(Some(output))
        })?;
        match output {
            Some(output) => self.read(&output, xs.len()),
            None => Ok(Vec::new()),
        }
    }

    /// Runs `f` with the crunch program of `source` (complete, see `tmd_kernels`), built once
    /// per source text; `name` names it in a build error.
    fn with_crunch_program<R>(
        &self,
        source: String,
        name: &'static str,
        f: impl FnOnce(&Program) -> Result<R, GpuError>,
    ) -> Result<R, GpuError> {
        let mut programs = self.crunch_programs.lock().expect("program cache poisoned");
        let program = match programs.entry(source) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let options = tmd_kernels::opencl_options(&[]);
                let program =
                    Program::create_and_build_from_source(&self.context, e.key(), &options)
                        .map_err(|log| GpuError::Build {
                            program: name,
                            device: self.name(),
                            log,
                        })?;
                e.insert(program)
            }
        };
        f(program)
    }

    /// Runs `crunch_analyse` (kernels/crunch_analyse.cl) for a binary64 target of `function`
    /// over one range of ordinals: the target, the double-double reference and the fast
    /// decisions on the device. `None` when the function has no device reference.
    pub fn crunch_analyse(
        &self,
        function: &str,
        target: &str,
        plan: &AnalysePlan,
    ) -> Result<Option<AnalyseOutput>, GpuError> {
        let Some(source) = tmd_kernels::crunch_analyse_source(function, target) else {
            return Ok(None);
        };
        let counts = self.buffer(&[0u64; CRUNCH_COUNT_WORDS], CL_MEM_READ_WRITE)?;
        let max_bits = self.buffer(&[0u64], CL_MEM_READ_WRITE)?;
        let cand_cap = plan.candidate_capacity.max(1);
        let host_cap = plan.host_capacity.max(1);
        let cand_ord = self.output::<i64>(cand_cap as usize)?;
        let cand_err = self.output::<f64>(cand_cap as usize)?;
        let cand_found = self.buffer(&[0u32], CL_MEM_READ_WRITE)?;
        let cand_sample = self.buffer(&vec![0u64; cand_cap as usize], CL_MEM_READ_WRITE)?;
        let host_ord = self.output::<i64>(host_cap as usize)?;
        let host_a = self.output::<f64>(host_cap as usize)?;
        let host_found = self.buffer(&[0u32], CL_MEM_READ_WRITE)?;
        let (has_over, over, symmetric, has_tiny, tiny) = plan.saturation_args();
        let items = plan.n.clamp(1, 1 << 16) as usize;
        self.with_crunch_program(source, "crunch_analyse", |program| {
            let kernel =
                Kernel::create(program, "crunch_analyse").map_err(api("clCreateKernel"))?;
            unsafe {
                ExecuteKernel::new(&kernel)
                    .set_arg(&plan.lo)
                    .set_arg(&plan.n)
                    .set_arg(&plan.eps)
                    .set_arg(&has_over)
                    .set_arg(&over)
                    .set_arg(&symmetric)
                    .set_arg(&has_tiny)
                    .set_arg(&tiny)
                    .set_arg(&counts)
                    .set_arg(&max_bits)
                    .set_arg(&cand_ord)
                    .set_arg(&cand_err)
                    .set_arg(&cand_cap)
                    .set_arg(&plan.candidate_floor)
                    .set_arg(&cand_found)
                    .set_arg(&cand_sample)
                    .set_arg(&host_ord)
                    .set_arg(&host_a)
                    .set_arg(&host_cap)
                    .set_arg(&host_found)
                    .set_global_work_size(items)
                    .enqueue_nd_range(&self.queue)
                    .map_err(api("clEnqueueNDRangeKernel"))?;
            }
            self.queue.finish().map_err(api("clFinish"))
        })?;
        let pairs = |ords: Vec<i64>, vals: Vec<f64>| ords.into_iter().zip(vals).collect();
        let candidates_found = self.read(&cand_found, 1)?[0] as u64;
        let stored = candidates_found.min(cand_cap as u64) as usize;
        let host_found_n = self.read(&host_found, 1)?[0] as u64;
        let host_stored = host_found_n.min(host_cap as u64) as usize;
        let sampled_errors = if candidates_found > cand_cap as u64 {
            crate::sampled_errors(&self.read(&cand_sample, cand_cap as usize)?)
        } else {
            Vec::new()
        };
        Ok(Some(AnalyseOutput {
            counts: self.read(&counts, CRUNCH_COUNT_WORDS)?,
            candidates: pairs(self.read(&cand_ord, stored)?, self.read(&cand_err, stored)?),
            candidates_found,
            sampled_errors,
            host: pairs(
                self.read(&host_ord, host_stored)?,
                self.read(&host_a, host_stored)?,
            ),
            host_found: host_found_n,
        }))
    }

    /// One launch of `filter_packets` (and, split, of `phase2_deferred` and `phase3_deferred`);
    /// returns (candidates stored, candidates found, statistics per packet).
    fn launch_filter(
        &self,
        plan: &KernelPlan,
        jobs: &[PacketJob],
        capacity: usize,
    ) -> Result<Launched, GpuError> {
        let call_started = Instant::now();
        let packets = jobs.len();
        let tables = self.input(&flatten_tables(jobs))?;
        let firsts = self.input(&jobs.iter().map(|j| j.first).collect::<Vec<u64>>())?;
        let counts = self.input(&jobs.iter().map(|j| j.count).collect::<Vec<u64>>())?;
        let candidates = self.output::<u64>(capacity)?;
        let found = self.buffer(&[0u32], CL_MEM_READ_WRITE)?;
        let subpackets = subpackets_per_packet(jobs, plan.domains_per_item);
        let per_item = plan.domains_per_item as usize;
        let items = packets * subpackets as usize;
        let mask_words = items * per_item / 32;
        let stats = self.scratch::<u64>(items * item_record_words(plan.domains_per_item))?;
        let folded = self.output::<u64>(packets * STATS_WORDS)?;
        // One bit mask of phase-1 failures per sub-packet (written when split).
        let fail_masks = self.scratch::<u32>(mask_words)?;
        let lanes = self.scratch::<u32>(items * per_item)?;
        let warp_records = warp_nmdm_records(items);
        let warp_words = self.output::<u64>(warp_records * WARP_NMDM_WORDS)?;
        let (t_lo, t_hi) = (plan.threshold3 as u64, (plan.threshold3 >> 64) as u64);
        let capacity32 = capacity as u32;
        // Work-items past the last sub-packet return at once, so the global size may be
        // padded to a multiple of the work-group size (OpenCL 1.x requires it).
        let (global, local) = match plan.work_group as usize {
            0 => (items, 0),
            w => (items.div_ceil(w) * w, w),
        };
        let mut step_nanos = [0u64; DEVICE_STEPS.len()];
        self.with_program(crate::filter_id(plan), |program| {
            let kernel =
                Kernel::create(program, "filter_packets").map_err(api("clCreateKernel"))?;
            if local > 0 {
                let max = kernel
                    .get_work_group_size(self.device.id())
                    .map_err(api("clGetKernelWorkGroupInfo"))?;
                if local > max {
                    return Err(GpuError::WorkGroup {
                        kernel: "filter_packets",
                        requested: local as u32,
                        max: max as u32,
                    });
                }
            }
            let started = Instant::now();
            let mut exec = ExecuteKernel::new(&kernel);
            unsafe {
                exec.set_arg(&tables)
                    .set_arg(&firsts)
                    .set_arg(&counts)
                    .set_arg(&(packets as u64))
                    .set_arg(&plan.chunk_len)
                    .set_arg(&plan.n)
                    .set_arg(&plan.kappa)
                    .set_arg(&plan.algorithm)
                    .set_arg(&plan.division_threshold)
                    .set_arg(&plan.base1)
                    .set_arg(&plan.base2)
                    .set_arg(&t_lo)
                    .set_arg(&t_hi)
                    .set_arg(&subpackets)
                    .set_arg(&candidates)
                    .set_arg(&capacity32)
                    .set_arg(&found)
                    .set_arg(&stats)
                    .set_arg(&fail_masks)
                    .set_arg(&lanes)
                    .set_global_work_size(global);
                if local > 0 {
                    exec.set_local_work_size(local);
                }
                exec.enqueue_nd_range(&self.queue)
                    .map_err(api("clEnqueueNDRangeKernel"))?;
            }
            self.queue.finish().map_err(api("clFinish"))?;
            step_nanos[0] = started.elapsed().as_nanos() as u64;
            // One statistics record per packet comes back, folded on the device.
            let fold =
                Kernel::create(program, "fold_packet_stats").map_err(api("clCreateKernel"))?;
            let started = Instant::now();
            unsafe {
                ExecuteKernel::new(&fold)
                    .set_arg(&stats)
                    .set_arg(&(packets as u64))
                    .set_arg(&subpackets)
                    .set_arg(&folded)
                    .set_global_work_size(packets * FOLD_GROUP)
                    .set_local_work_size(FOLD_GROUP)
                    .enqueue_nd_range(&self.queue)
                    .map_err(api("clEnqueueNDRangeKernel"))?;
            }
            self.queue.finish().map_err(api("clFinish"))?;
            step_nanos[3] = started.elapsed().as_nanos() as u64;
            let nmdm = Kernel::create(program, "warp_nmdm").map_err(api("clCreateKernel"))?;
            let started = Instant::now();
            unsafe {
                ExecuteKernel::new(&nmdm)
                    .set_arg(&lanes)
                    .set_arg(&(items as u64))
                    .set_arg(&warp_words)
                    .set_global_work_size(warp_records * WARP_NMDM_GROUP)
                    .set_local_work_size(WARP_NMDM_GROUP)
                    .enqueue_nd_range(&self.queue)
                    .map_err(api("clEnqueueNDRangeKernel"))?;
            }
            self.queue.finish().map_err(api("clFinish"))?;
            step_nanos[4] = started.elapsed().as_nanos() as u64;
            Ok(())
        })?;
        let mut folded_words = self.read(&folded, packets * STATS_WORDS)?;
        if plan.split_phases {
            // The failing domains, listed in input order at offsets from a prefix sum.
            let started = Instant::now();
            let id = crate::filter_id(plan);
            let (offsets, failed) = self.exclusive_scan(id, &fail_masks, mask_words, true)?;
            let deferred = self.scratch::<u64>(failed.max(1) * DEFER_WORDS)?;
            if failed > 0 {
                self.run_kernel(id, "gather_phase1_failures", items, 0, |e| unsafe {
                    e.set_arg(&tables)
                        .set_arg(&firsts)
                        .set_arg(&counts)
                        .set_arg(&(packets as u64))
                        .set_arg(&plan.chunk_len)
                        .set_arg(&plan.n)
                        .set_arg(&subpackets)
                        .set_arg(&fail_masks)
                        .set_arg(&offsets)
                        .set_arg(&deferred);
                })?;
            }
            let gather_nanos = started.elapsed().as_nanos() as u64;
            let (counters, split_nanos) =
                self.split_phases_2_3(plan, &deferred, failed, &candidates, capacity32, &found)?;
            add_split_counters(&mut folded_words[..STATS_WORDS], &counters);
            step_nanos[1] = split_nanos[0];
            step_nanos[2] = split_nanos[1];
            step_nanos[5] = gather_nanos + split_nanos[2];
        }
        let total = self.read(&found, 1)?[0] as usize;
        let stored = self.read(&candidates, total.min(capacity))?;
        let warps = self.read(&warp_words, warp_records * WARP_NMDM_WORDS)?;
        step_nanos[6] = crate::rest_of_call(call_started, &step_nanos);
        Ok(Launched {
            stored,
            total,
            stats: folded_words,
            warps,
            step_nanos,
        })
    }

    /// Phases 2 and 3 of a split launch: `phase2_deferred` over the `failed` domains (each
    /// writing its failing subdomains to its own region of kappa slots), the prefix sum and
    /// `compact_subdomains` that list them, then `phase3_deferred` over that list. Returns the
    /// phase-2/3 counters (statistics words 4..12) and the nanoseconds of phase 2, phase 3 and
    /// the compaction.
    fn split_phases_2_3(
        &self,
        plan: &KernelPlan,
        deferred: &Buffer<u64>,
        failed: usize,
        candidates: &Buffer<u64>,
        capacity32: u32,
        found: &Buffer<u32>,
    ) -> Result<(Vec<u64>, [u64; 3]), GpuError> {
        let counters = self.buffer(&[0u64; STATS_WORDS], CL_MEM_READ_WRITE)?;
        let mut nanos = [0u64; 3];
        if failed == 0 {
            return Ok((self.read(&counters, STATS_WORDS)?, nanos));
        }
        let id = crate::filter_id(plan);
        let (t_lo, t_hi) = (plan.threshold3 as u64, (plan.threshold3 >> 64) as u64);
        let regions = self.scratch::<u64>(failed * plan.kappa as usize * DEFER_WORDS)?;
        let sub_counts = self.scratch::<u32>(failed)?;
        let started = Instant::now();
        self.run_kernel(id, "phase2_deferred", failed, 0, |e| unsafe {
            e.set_arg(deferred)
                .set_arg(&(failed as u64))
                .set_arg(&plan.n)
                .set_arg(&plan.kappa)
                .set_arg(&plan.algorithm)
                .set_arg(&plan.division_threshold)
                .set_arg(&plan.base2)
                .set_arg(&t_lo)
                .set_arg(&t_hi)
                .set_arg(candidates)
                .set_arg(&capacity32)
                .set_arg(found)
                .set_arg(&counters)
                .set_arg(&regions)
                .set_arg(&sub_counts);
        })?;
        nanos[0] = started.elapsed().as_nanos() as u64;
        let started = Instant::now();
        let (offsets, sub_failed) = self.exclusive_scan(id, &sub_counts, failed, false)?;
        if sub_failed > 0 {
            let subdomains = self.scratch::<u64>(sub_failed * DEFER_WORDS)?;
            self.run_kernel(id, "compact_subdomains", failed, 0, |e| unsafe {
                e.set_arg(&regions)
                    .set_arg(&sub_counts)
                    .set_arg(&offsets)
                    .set_arg(&(failed as u64))
                    .set_arg(&plan.kappa)
                    .set_arg(&subdomains);
            })?;
            nanos[2] = started.elapsed().as_nanos() as u64;
            let started = Instant::now();
            self.run_kernel(id, "phase3_deferred", sub_failed, 0, |e| unsafe {
                e.set_arg(&subdomains)
                    .set_arg(&(sub_failed as u64))
                    .set_arg(&t_lo)
                    .set_arg(&t_hi)
                    .set_arg(candidates)
                    .set_arg(&capacity32)
                    .set_arg(found)
                    .set_arg(&counters);
            })?;
            nanos[1] = started.elapsed().as_nanos() as u64;
        } else {
            nanos[2] = started.elapsed().as_nanos() as u64;
        }
        Ok((self.read(&counters, STATS_WORDS)?, nanos))
    }

    /// The exclusive prefix sums of `values` (of their popcounts when `popcount`) computed by
    /// the split pipeline's scan kernels, and their total: for tests of the compaction.
    pub fn prefix_sums(
        &self,
        values: &[u32],
        popcount: bool,
    ) -> Result<(Vec<u32>, usize), GpuError> {
        let id = Id::filter_for([2, 1, 0], true, 32);
        let input = self.input(values)?;
        let (offsets, total) = self.exclusive_scan(id, &input, values.len(), popcount)?;
        Ok((self.read(&offsets, values.len())?, total))
    }

    /// The exclusive prefix sum of the first `len` values of `input` (of their popcounts when
    /// `popcount`), by `scan_blocks` and `add_block_offsets` of program `id`, repeated over
    /// the block totals while there is more than one block: the offsets and the total.
    fn exclusive_scan(
        &self,
        id: Id,
        input: &Buffer<u32>,
        len: usize,
        popcount: bool,
    ) -> Result<(Buffer<u32>, usize), GpuError> {
        let blocks = len.div_ceil(SCAN_BLOCK).max(1);
        let out = self.scratch::<u32>(len.max(1))?;
        let sums = self.scratch::<u32>(blocks)?;
        let (len64, pop) = (len as u64, popcount as i32);
        self.run_kernel(
            id,
            "scan_blocks",
            blocks * SCAN_GROUP,
            SCAN_GROUP,
            |e| unsafe {
                e.set_arg(input)
                    .set_arg(&len64)
                    .set_arg(&pop)
                    .set_arg(&out)
                    .set_arg(&sums);
            },
        )?;
        if blocks == 1 {
            let total = self.read(&sums, 1)?[0] as usize;
            return Ok((out, total));
        }
        let (block_offsets, total) = self.exclusive_scan(id, &sums, blocks, false)?;
        self.run_kernel(id, "add_block_offsets", len, 0, |e| unsafe {
            e.set_arg(&out).set_arg(&len64).set_arg(&block_offsets);
        })?;
        Ok((out, total))
    }

    /// Runs kernel `name` of program `id` over `global` work-items (in work-groups of `local`,
    /// or the driver's choice for 0), its arguments set by `args`, and waits for it.
    fn run_kernel(
        &self,
        id: Id,
        name: &str,
        global: usize,
        local: usize,
        args: impl FnOnce(&mut ExecuteKernel),
    ) -> Result<(), GpuError> {
        self.with_program(id, |program| {
            let kernel = Kernel::create(program, name).map_err(api("clCreateKernel"))?;
            let mut exec = ExecuteKernel::new(&kernel);
            args(&mut exec);
            exec.set_global_work_size(global);
            if local > 0 {
                exec.set_local_work_size(local);
            }
            unsafe { exec.enqueue_nd_range(&self.queue) }.map_err(api("clEnqueueNDRangeKernel"))?;
            self.queue.finish().map_err(api("clFinish"))
        })
    }
}

impl std::fmt::Debug for OpenClDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpenClDevice({})", self.name())
    }
}

impl PacketDevice for OpenClDevice {
    fn name(&self) -> String {
        format!("OpenCL device '{}'", OpenClDevice::name(self))
    }

    fn run_packets(&self, plan: &KernelPlan, jobs: &[PacketJob]) -> Result<DeviceOutput, String> {
        crate::run_with_capacity(|capacity| self.launch_filter(plan, jobs, capacity))
    }
}

impl OpenClDevice {
    /// The forward FFT of `data` (power-of-two length) on the device, `kernels/fft.cl`, with
    /// the twiddles `w` of `tmd_xfloat::fft::fill_twiddles` for that length; equal bit for bit
    /// to `tmd_xfloat::fft::fft_forward`.
    pub fn fft_forward<T: FftDeviceScalar>(
        &self,
        data: &[Complex<T>],
        w: &[Complex<T>],
    ) -> Result<DeviceFft<T>, GpuError> {
        if let Some(done) = fft::trivial_or_checked(data, w) {
            return Ok(done);
        }
        let n = data.len();
        let words = fft::to_words(data);
        let len = words.len();
        let mut from = self.buffer(&words, CL_MEM_READ_WRITE)?;
        let mut to = self.scratch::<T::Word>(len)?;
        let twiddles = self.input(&fft::to_words(w))?;
        let name = format!("{}_stockham_pass", T::PREFIX);
        let kernel_seconds = self.with_program(Id::XfloatFft, |program| {
            let kernel = Kernel::create(program, &name).map_err(api("clCreateKernel"))?;
            let count = n as u64;
            let start = Instant::now();
            for log2_l_half in fft::passes(n) {
                unsafe {
                    ExecuteKernel::new(&kernel)
                        .set_arg(&from)
                        .set_arg(&to)
                        .set_arg(&twiddles)
                        .set_arg(&count)
                        .set_arg(&log2_l_half)
                        .set_global_work_size(n / 2)
                        .enqueue_nd_range(&self.queue)
                        .map_err(api("clEnqueueNDRangeKernel"))?;
                }
                std::mem::swap(&mut from, &mut to);
            }
            self.queue.finish().map_err(api("clFinish"))?;
            Ok(start.elapsed().as_secs_f64())
        })?;
        Ok(DeviceFft {
            output: fft::from_words(&self.read(&from, len)?),
            kernel_seconds,
        })
    }
}
