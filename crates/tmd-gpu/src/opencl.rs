//! The OpenCL runtime (opencl3, `libOpenCL.so.1` loaded at run time): devices, programs
//! built by `clBuildProgram` and kept per device, buffers, and the [`Backend`] the launch
//! sequences run on. One in-order command queue per device serves every call.

use crate::backend::{built_once, Arg, Backend, Grid, Word};
use crate::GpuError;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{get_all_devices, Device, CL_DEVICE_TYPE_ALL};
use opencl3::error_codes::{ClError, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};
use tmd_kernels::Id;

pub use crate::crunch::CrunchReal;
pub use crate::xfloat::{DwOp, DwWord};

fn api(call: &'static str) -> impl FnOnce(ClError) -> GpuError {
    move |e| GpuError::Api {
        call,
        code: String::from(e),
    }
}

/// One OpenCL device with its context, queue and compiled programs.
pub struct OpenClDevice {
    device: Device,
    context: Context,
    queue: CommandQueue,
    programs: Mutex<HashMap<Id, Arc<Program>>>,
    /// Complete programs (crunch targets), keyed by a text that determines their source
    /// (`Backend::source_program`).
    source_programs: Mutex<HashMap<String, Arc<Program>>>,
    /// Held by each call ([`Backend::with_queues`]): the calls of several host threads take
    /// turns on the one queue.
    calls: Mutex<()>,
}

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
            source_programs: Mutex::new(HashMap::new()),
            calls: Mutex::new(()),
        })
    }

    /// The device's OpenCL context, for programs built with options of the caller's own
    /// (the layout tests build kernels without some of the defines).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> String {
        self.device.name().unwrap_or_else(|_| "unknown".into())
    }

    /// Whether the device has IEEE double precision (cl_khr_fp64), which dd kernels need.
    pub fn has_fp64(&self) -> bool {
        self.device.double_fp_config().is_ok_and(|c| c != 0)
    }

    /// Builds program `id` (to check that it compiles on this device).
    pub fn build(&self, id: Id) -> Result<(), GpuError> {
        self.program(id).map(|_| ())
    }

    /// Builds `source` with the options of every program ([`tmd_kernels::opencl_options`]).
    fn build_source(&self, source: &str, name: &'static str) -> Result<Program, GpuError> {
        let options = tmd_kernels::opencl_options(&[]);
        Program::create_and_build_from_source(&self.context, source, &options).map_err(|log| {
            GpuError::Build {
                program: name,
                device: self.name(),
                log,
            }
        })
    }

    /// A buffer initialised from `data` (CL_MEM_COPY_HOST_PTR only reads the host memory, so
    /// the slice is not copied first). OpenCL has no empty buffers.
    fn buffer<T: Word>(&self, data: &[T]) -> Result<Buffer<T>, GpuError> {
        if data.is_empty() {
            return Err(GpuError::Runtime("empty input".into()));
        }
        unsafe {
            Buffer::<T>::create(
                &self.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                data.len(),
                data.as_ptr() as *mut c_void,
            )
        }
        .map_err(api("clCreateBuffer"))
    }
}

impl Backend for OpenClDevice {
    type Buffer<T: Word> = Buffer<T>;
    type Mem = cl_mem;
    type Program = Arc<Program>;
    type Queue = CommandQueue;

    const DEFAULT_GROUP: Option<usize> = None;
    const FILTER_GROUP: Option<usize> = None;
    const ANALYSE_ITEMS: u64 = 1 << 16;
    const ANALYSE_GROUP: Option<usize> = None;
    const EVAL_GROUP: Option<usize> = None;
    const FFT_GROUP: Option<usize> = None;
    /// An explicit size: PoCL's own choice for large arrays (work-groups of thousands of
    /// items) overflowed the stack of its worker threads on the quad-double kernel.
    const ELEMENTWISE_GROUP: usize = 64;

    fn with_queues<R>(
        &self,
        work: impl FnOnce(&CommandQueue, &CommandQueue) -> Result<R, GpuError>,
    ) -> Result<R, GpuError> {
        let _turn = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        work(&self.queue, &self.queue)
    }

    fn program(&self, id: Id) -> Result<Arc<Program>, GpuError> {
        built_once(&self.programs, id, || {
            Ok(Arc::new(
                self.build_source(&tmd_kernels::source(id), id.name())?,
            ))
        })
    }

    fn source_program(
        &self,
        key: String,
        name: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Program>, GpuError> {
        built_once(&self.source_programs, key, || {
            Ok(Arc::new(self.build_source(&source(), name)?))
        })
    }

    fn max_group(&self, program: &Arc<Program>, kernel: &str) -> Result<usize, GpuError> {
        Kernel::create(program, kernel)
            .map_err(api("clCreateKernel"))?
            .get_work_group_size(self.device.id())
            .map_err(api("clGetKernelWorkGroupInfo"))
    }

    fn upload<T: Word>(&self, _q: &CommandQueue, data: &[T]) -> Result<Buffer<T>, GpuError> {
        self.buffer(data)
    }

    fn zeros<T: Word>(&self, _q: &CommandQueue, len: usize) -> Result<Buffer<T>, GpuError> {
        self.buffer(&vec![T::default(); len])
    }

    fn scratch<T: Word>(&self, _q: &CommandQueue, len: usize) -> Result<Buffer<T>, GpuError> {
        unsafe { Buffer::<T>::create(&self.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut()) }
            .map_err(api("clCreateBuffer"))
    }

    fn download<T: Word>(
        &self,
        q: &CommandQueue,
        buffer: &Buffer<T>,
        len: usize,
    ) -> Result<Vec<T>, GpuError> {
        let mut out = vec![T::default(); len];
        if len > 0 {
            unsafe { q.enqueue_read_buffer(buffer, CL_BLOCKING, 0, &mut out, &[]) }
                .map_err(api("clEnqueueReadBuffer"))?;
        }
        Ok(out)
    }

    fn mem<T: Word>(&self, _q: &CommandQueue, buffer: &Buffer<T>) -> cl_mem {
        buffer.get()
    }

    fn launch(
        &self,
        q: &CommandQueue,
        program: &Arc<Program>,
        kernel: &str,
        grid: Grid,
        args: &[Arg<cl_mem>],
    ) -> Result<(), GpuError> {
        let kernel = Kernel::create(program, kernel).map_err(api("clCreateKernel"))?;
        let mut exec = ExecuteKernel::new(&kernel);
        for arg in args {
            // clSetKernelArg copies the value (a cl_mem for buffers).
            unsafe {
                match arg {
                    Arg::U32(v) => exec.set_arg(v),
                    Arg::I32(v) => exec.set_arg(v),
                    Arg::U64(v) => exec.set_arg(v),
                    Arg::I64(v) => exec.set_arg(v),
                    Arg::F64(v) => exec.set_arg(v),
                    Arg::Mem(m) => exec.set_arg(m),
                };
            }
        }
        // OpenCL 1.x wants the global size a multiple of the work-group size: work-items
        // past the data return at once.
        match grid.group.or(Self::DEFAULT_GROUP) {
            Some(group) => exec
                .set_global_work_size(grid.items.div_ceil(group) * group)
                .set_local_work_size(group),
            None => exec.set_global_work_size(grid.items),
        };
        unsafe { exec.enqueue_nd_range(q) }.map_err(api("clEnqueueNDRangeKernel"))?;
        Ok(())
    }

    fn sync(&self, q: &CommandQueue) -> Result<(), GpuError> {
        q.finish().map_err(api("clFinish"))
    }
}

impl std::fmt::Debug for OpenClDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpenClDevice({})", self.name())
    }
}

crate::device_operations!(OpenClDevice, |d: &OpenClDevice| format!(
    "OpenCL device '{}'",
    OpenClDevice::name(d)
));
