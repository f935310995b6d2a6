//! The runtime interface every launch sequence of the crate is written against: buffers,
//! copies, programs, kernel launches and waiting. [`crate::opencl`] and [`crate::cuda`]
//! implement it; [`crate::filter`], [`crate::crunch`], [`crate::xfloat`] and
//! [`crate::fft`] use nothing else, so a sequence exists once for both runtimes.

use crate::GpuError;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use tmd_kernels::Id;

/// The program of `cache` under `key`, made by `build` on the first call with that key. The
/// lock is held while it builds, so that two threads never build one program twice.
pub(crate) fn built_once<K: Eq + Hash, P: Clone>(
    cache: &Mutex<HashMap<K, P>>,
    key: K,
    build: impl FnOnce() -> Result<P, GpuError>,
) -> Result<P, GpuError> {
    let mut programs = cache.lock().expect("program cache poisoned");
    if let Some(p) = programs.get(&key) {
        return Ok(p.clone());
    }
    let program = build()?;
    programs.insert(key, program.clone());
    Ok(program)
}

/// An element type of device buffers and a scalar kernel argument type.
pub trait Word:
    Copy
    + Default
    + Send
    + Sync
    + 'static
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
{
}

impl Word for u32 {}
impl Word for u64 {}
impl Word for i64 {}
impl Word for f32 {}
impl Word for f64 {}

/// One kernel argument: a scalar by value, or a buffer.
pub enum Arg<M> {
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F64(f64),
    /// A device buffer ([`Backend::mem`]).
    Mem(M),
}

/// How many work-items a launch runs and in work-groups of how many: `group` `None` leaves
/// the size to the runtime ([`Backend::DEFAULT_GROUP`]). The runtime pads `items` up to a
/// multiple of the group; the kernels skip work-items past their data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub items: usize,
    pub group: Option<usize>,
}

impl Grid {
    /// `items` work-items in groups of the runtime's choice.
    pub fn items(items: usize) -> Grid {
        Grid { items, group: None }
    }

    /// `items` work-items in groups of `group`.
    pub fn groups_of(items: usize, group: usize) -> Grid {
        Grid {
            items,
            group: Some(group),
        }
    }
}

/// A device runtime: what the launch sequences need of OpenCL or CUDA.
///
/// Work is queued on a [`Backend::Queue`] (an OpenCL command queue, a CUDA stream): copies and
/// launches on one queue run in order, [`Backend::sync`] waits for them, and a download waits
/// for the queue's work before it returns. A call takes its queues from
/// [`Backend::with_queues`]: a bulk one for long kernels and an urgent one for the short
/// kernels and copies around them (the same queue on OpenCL; two streams of different
/// priorities on CUDA, so that short kernels do not wait behind other host threads' long
/// ones). Work on the bulk queue must be waited for before the urgent queue uses its results,
/// and the other way round.
pub trait Backend: Sync {
    /// A buffer of `T` on the device.
    type Buffer<T: Word>;
    /// A buffer as a kernel argument (a `cl_mem`, a device pointer).
    type Mem: Copy;
    /// A compiled and loaded program.
    type Program;
    /// An in-order queue of device work.
    type Queue;

    /// Work-items per group of a launch that names none: `None` leaves it to the driver.
    const DEFAULT_GROUP: Option<usize>;
    /// The group size of the phase-1 kernel when `--work-group` names none.
    const FILTER_GROUP: Option<usize>;
    /// Work-items of one `crunch_analyse` launch at most (each loops over the inputs with
    /// the grid's stride), and its group size.
    const ANALYSE_ITEMS: u64;
    const ANALYSE_GROUP: Option<usize>;
    /// Group sizes of `crunch_eval`, of the FFT passes and of the `*_elementwise` kernels
    /// (the last at most, fewer where the compiled kernel allows fewer).
    const EVAL_GROUP: Option<usize>;
    const FFT_GROUP: Option<usize>;
    const ELEMENTWISE_GROUP: usize;

    /// Runs `work` with a (bulk, urgent) pair of queues of its own.
    fn with_queues<R>(
        &self,
        work: impl FnOnce(&Self::Queue, &Self::Queue) -> Result<R, GpuError>,
    ) -> Result<R, GpuError>;

    /// Program `id`, compiled (or read from a cache) and loaded once.
    fn program(&self, id: Id) -> Result<Self::Program, GpuError>;
    /// A complete program (a crunch program), compiled and loaded once per `key`: a text
    /// that determines the program's source, which `source` generates on the first call with
    /// that key only (an analysis program's source is some 300 KB of generated text, two
    /// milliseconds a launch to make again); `name` names it in a build error.
    fn source_program(
        &self,
        key: String,
        name: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Self::Program, GpuError>;
    /// The most work-items per group kernel `kernel` of `program` runs with on this device.
    fn max_group(&self, program: &Self::Program, kernel: &str) -> Result<usize, GpuError>;

    /// A buffer holding `data`.
    fn upload<T: Word>(&self, q: &Self::Queue, data: &[T]) -> Result<Self::Buffer<T>, GpuError>;
    /// A buffer of `len` zeros.
    fn zeros<T: Word>(&self, q: &Self::Queue, len: usize) -> Result<Self::Buffer<T>, GpuError>;
    /// A buffer of `len` elements the kernels write before anything reads them.
    fn scratch<T: Word>(&self, q: &Self::Queue, len: usize) -> Result<Self::Buffer<T>, GpuError>;
    /// The first `len` elements of `buffer` (none for 0), after the queue's work.
    fn download<T: Word>(
        &self,
        q: &Self::Queue,
        buffer: &Self::Buffer<T>,
        len: usize,
    ) -> Result<Vec<T>, GpuError>;
    /// `buffer` as a kernel argument.
    fn mem<T: Word>(&self, q: &Self::Queue, buffer: &Self::Buffer<T>) -> Self::Mem;

    /// Queues kernel `kernel` of `program` over `grid` with `args`, in the kernel's order.
    fn launch(
        &self,
        q: &Self::Queue,
        program: &Self::Program,
        kernel: &str,
        grid: Grid,
        args: &[Arg<Self::Mem>],
    ) -> Result<(), GpuError>;
    /// Waits for the queue's work.
    fn sync(&self, q: &Self::Queue) -> Result<(), GpuError>;

    /// `buffer` as an [`Arg`].
    fn arg<T: Word>(&self, q: &Self::Queue, buffer: &Self::Buffer<T>) -> Arg<Self::Mem> {
        Arg::Mem(self.mem(q, buffer))
    }

    /// Nanoseconds from `started` (just before a launch) to the completion of `q`'s work.
    fn nanos_at_completion(
        &self,
        q: &Self::Queue,
        started: std::time::Instant,
    ) -> Result<u64, GpuError> {
        self.sync(q)?;
        Ok(started.elapsed().as_nanos() as u64)
    }
}
