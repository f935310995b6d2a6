//! CUDA: compiling the portable kernels with NVRTC (cudarc) to a cubin for the device's
//! architecture, and running the filtered search's packet kernel on it ([`CudaDevice`], the
//! twin of the OpenCL runner). Compiling needs no GPU, so CI compiles every program for sm_80
//! and sm_90; running needs the NVIDIA driver (libcuda.so, loaded at run time), so
//! [`CudaDevice::nth`] fails with a clear [`GpuError::Runtime`] where it is absent. NOT YET RUN
//! ON A GPU: the first session with one runs scripts/gpu-check.sh.
//!
//! NVRTC is loaded at run time. cudarc looks for `libnvrtc.so*` by name (system CUDA, or
//! `LD_LIBRARY_PATH`) and panics when it finds none, so [`load_nvrtc`] looks first, in this
//! order: the file named by `TMD_NVRTC_LIB`, the names cudarc tries, and the pip wheel
//! `nvidia-cuda-nvrtc-cu12` (site-packages/nvidia/cuda_nvrtc/lib, found by asking `python3`
//! for its site directories). A library found by path is opened and kept open, so cudarc's
//! later lookup by name finds the already loaded `libnvrtc.so.12`. Nothing found is a
//! [`GpuError::Runtime`] naming what to install.
//!
//! Every library is opened once and kept open ([`keep_first_loaded`]): cudarc's
//! `is_culib_present` opens a library and closes it again, and its loader then opens it anew
//! at the first call. NVRTC is some 100 MB; each opening took 9-11 ms on the 2-core VM
//! (2026-11-24), and the second one used to fall inside the first chunk of a search (the
//! "prepare" of `TMD_TRACE_DEVICE`, 6-9 ms on the H100 machine). [`CudaDevice::nth`] loads
//! NVRTC and asks its version beside the creation of the CUDA context, so that the search's
//! first program costs only reading the cached cubin and loading it.

use crate::fft::{self, DeviceFft, FftDeviceScalar};
use crate::opencl::CrunchReal;
use crate::{AnalyseOutput, AnalysePlan, GpuError, Launched, CRUNCH_COUNT_WORDS};
use cudarc::driver::{
    CudaContext, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{result, sys, Ptx};
use std::collections::HashMap;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tmd_kernels::Id;
use tmd_search::filter::device::{
    add_split_counters, flatten_tables, item_record_words, subpackets_per_packet,
    warp_nmdm_records, DeviceOutput, KernelPlan, PacketDevice, PacketJob, DEFER_WORDS,
    DEVICE_STEPS, FOLD_GROUP, SCAN_BLOCK, SCAN_GROUP, STATS_WORDS, WARP_NMDM_GROUP,
    WARP_NMDM_WORDS,
};
use tmd_xfloat::fft::Complex;

/// Where NVRTC was found (for messages), or why it was not.
static NVRTC: OnceLock<Result<String, String>> = OnceLock::new();

fn pip_wheel_candidates() -> Vec<PathBuf> {
    let script = "import site, sys\nfor p in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(p)";
    let Ok(out) = std::process::Command::new("python3")
        .args(["-c", script])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|dir| PathBuf::from(dir).join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12"))
        .filter(|p| p.exists())
        .collect()
}

/// Finds and opens NVRTC once; returns where it was found.
pub fn load_nvrtc() -> Result<String, GpuError> {
    NVRTC
        .get_or_init(|| {
            if let Ok(path) = std::env::var("TMD_NVRTC_LIB") {
                return open_by_path(PathBuf::from(&path))
                    .ok_or_else(|| format!("TMD_NVRTC_LIB={path} could not be opened"));
            }
            if let Some(name) = keep_first_loaded(&["nvrtc"]) {
                return Ok(format!("{name} (system search path)"));
            }
            pip_wheel_candidates()
                .into_iter()
                .find_map(open_by_path)
                .ok_or_else(|| {
                    "NVRTC (libnvrtc.so) was not found: install the CUDA toolkit, or the pip \
                     wheel nvidia-cuda-nvrtc-cu12 (scripts/setup.sh does), or set \
                     TMD_NVRTC_LIB to the library's path"
                        .to_string()
                })
        })
        .clone()
        .map_err(GpuError::Runtime)
}

/// Opens the first of the names cudarc's loader tries for `libs` (`cudarc::get_lib_name_candidates`,
/// in cudarc's order) and keeps it open for the life of the process, so that cudarc's own
/// opening by name finds it loaded: the name opened, or `None` when none opens.
fn keep_first_loaded(libs: &[&str]) -> Option<String> {
    libs.iter()
        .flat_map(|lib| cudarc::get_lib_name_candidates(lib))
        .find_map(|name| {
            let lib = unsafe { libloading::Library::new(&name) }.ok()?;
            std::mem::forget(lib);
            Some(name)
        })
}

fn open_by_path(path: PathBuf) -> Option<String> {
    let lib = unsafe { libloading::Library::new(&path) }.ok()?;
    // Keep it loaded for the life of the process: cudarc opens it again by name.
    std::mem::forget(lib);
    unsafe { sys::is_culib_present() }.then(|| path.display().to_string())
}

/// NVRTC's version (major, minor), asked once (part of every cache key).
pub fn nvrtc_version() -> Result<(i32, i32), GpuError> {
    static VERSION: OnceLock<Result<(i32, i32), GpuError>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            load_nvrtc()?;
            let (mut major, mut minor) = (0, 0);
            unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
                .result()
                .map_err(|e| GpuError::Api {
                    call: "nvrtcVersion",
                    code: format!("{e:?}"),
                })?;
            Ok((major, minor))
        })
        .clone()
}

/// Compiles program `id` with NVRTC to a cubin for compute capability `major.minor`
/// (`sm_XY`), with the options that keep IEEE semantics ([`tmd_kernels::cuda_options`]).
pub fn compile_cubin(id: Id, major: u32, minor: u32) -> Result<Vec<u8>, GpuError> {
    compile_source_cubin(id.name(), &tmd_kernels::source(id), major, minor)
}

/// The NVRTC options of every program: [`tmd_kernels::cuda_options`], then the words of
/// `TMD_NVRTC_OPTIONS` if set (a tuning aid, e.g. `--maxrregcount=128`; part of the cache key).
fn nvrtc_options(major: u32, minor: u32) -> Vec<String> {
    let mut options = tmd_kernels::cuda_options(major, minor, &[]);
    if let Ok(extra) = std::env::var("TMD_NVRTC_OPTIONS") {
        options.extend(extra.split_whitespace().map(str::to_string));
    }
    options
}

/// FNV-1a, 64 bits: a hash that stays the same across builds, for cache file names.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for part in parts {
        for &b in *part {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h = (h ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The directory of compiled kernels: `TMD_CACHE_DIR`, else `$XDG_CACHE_HOME/tmd` or
/// `$HOME/.cache/tmd`; `None` (no caching) when none is set.
fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TMD_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("tmd"))
}

/// [`compile_source_cubin`] with an on-disk cache keyed by the source, the NVRTC options and
/// NVRTC's version, so that a second run skips the compiler (a few hundred milliseconds per
/// program). A cache that cannot be read or written is ignored.
pub fn cached_cubin(
    name: &'static str,
    source: &str,
    major: u32,
    minor: u32,
) -> Result<Vec<u8>, GpuError> {
    let (v_major, v_minor) = nvrtc_version()?;
    let options = nvrtc_options(major, minor).join(" ");
    let version = format!("nvrtc {v_major}.{v_minor}");
    let key = fnv1a(&[source.as_bytes(), options.as_bytes(), version.as_bytes()]);
    let path = cache_dir().map(|d| d.join(format!("{name}-sm_{major}{minor}-{key:016x}.cubin")));
    if let Some(bytes) = path.as_ref().and_then(|p| std::fs::read(p).ok()) {
        return Ok(bytes);
    }
    let cubin = compile_source_cubin(name, source, major, minor)?;
    if let Some(path) = path {
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = path
            .parent()
            .map(|d| std::fs::create_dir_all(d).is_ok())
            .unwrap_or(false)
            && std::fs::write(&tmp, &cubin).is_ok();
        if !written || std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    Ok(cubin)
}

/// Compiles a complete kernel source (vendor header included) with NVRTC to a cubin for
/// `sm_{major}{minor}`; `name` names the program in errors.
pub fn compile_source_cubin(
    name: &'static str,
    source: &str,
    major: u32,
    minor: u32,
) -> Result<Vec<u8>, GpuError> {
    load_nvrtc()?;
    let api = |call: &'static str| {
        move |e: result::NvrtcError| GpuError::Api {
            call,
            code: format!("{e:?}"),
        }
    };
    let program_name = name;
    let source = CString::new(source).expect("kernel sources hold no NUL");
    let name = CString::new(format!("{program_name}.cu")).expect("no NUL");
    let program =
        result::create_program(&source, Some(&name)).map_err(api("nvrtcCreateProgram"))?;
    let options = nvrtc_options(major, minor);
    let compiled = unsafe { result::compile_program(program, &options) };
    let outcome = match compiled {
        Err(_) => {
            let log = unsafe { result::get_program_log(program) }
                .map(|chars| {
                    let bytes: Vec<u8> = chars.iter().map(|&c| c as u8).collect();
                    String::from_utf8_lossy(&bytes)
                        .trim_end_matches('\0')
                        .to_string()
                })
                .unwrap_or_default();
            Err(GpuError::Build {
                program: program_name,
                device: format!("sm_{major}{minor} (NVRTC)"),
                log,
            })
        }
        Ok(()) => cubin(program),
    };
    unsafe { result::destroy_program(program) }.map_err(api("nvrtcDestroyProgram"))?;
    outcome
}

fn cubin(program: sys::nvrtcProgram) -> Result<Vec<u8>, GpuError> {
    let err = |call: &'static str| {
        move |e: result::NvrtcError| GpuError::Api {
            call,
            code: format!("{e:?}"),
        }
    };
    let mut size = 0usize;
    unsafe { sys::nvrtcGetCUBINSize(program, &mut size) }
        .result()
        .map_err(err("nvrtcGetCUBINSize"))?;
    let mut bytes = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(program, bytes.as_mut_ptr() as *mut std::ffi::c_char) }
        .result()
        .map_err(err("nvrtcGetCUBIN"))?;
    Ok(bytes)
}

/// One CUDA device: its context, idle streams, and the modules loaded so far.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    /// Streams not in use: each call takes one (or makes one), so calls from several host
    /// threads overlap on the device instead of queueing on one stream.
    /// Streams not in use, as (bulk, urgent) pairs; each call takes a pair. The phase-1
    /// kernel, which fills the device for milliseconds, runs on the bulk stream (lowest
    /// priority); the short kernels after it (statistics, compaction, phases 2-3) run on the
    /// urgent one (highest priority), so that the block scheduler starts them before the
    /// queued blocks of other threads' phase-1 kernels instead of after them.
    streams: Mutex<Vec<(Arc<CudaStream>, Arc<CudaStream>)>>,
    /// The highest stream priority of the device (the urgent streams').
    urgent_priority: i32,
    capability: (u32, u32),
    name: String,
    modules: Mutex<HashMap<Id, Arc<CudaModule>>>,
    /// Crunch programs, one per target, keyed by their source text.
    crunch_modules: Mutex<HashMap<String, Arc<CudaModule>>>,
}

/// A breakdown of one device call on stderr when `TMD_TRACE_DEVICE` is set (a diagnostic for
/// tuning runs: `--stats` has the totals).
struct Trace {
    on: bool,
    last: Instant,
    marks: Vec<(&'static str, u64)>,
}

impl Trace {
    fn new(started: Instant) -> Trace {
        Trace {
            on: std::env::var_os("TMD_TRACE_DEVICE").is_some(),
            last: started,
            marks: Vec::new(),
        }
    }

    fn mark(&mut self, what: &'static str) {
        if self.on {
            let now = Instant::now();
            self.marks
                .push((what, now.duration_since(self.last).as_micros() as u64));
            self.last = now;
        }
    }

    fn print(&self, items: usize) {
        if self.on {
            let parts: Vec<String> = self
                .marks
                .iter()
                .map(|(what, us)| format!("{what} {us} us"))
                .collect();
            eprintln!("tmd-trace: {items} work-items: {}", parts.join(", "));
        }
    }
}

/// Nanoseconds from `started` (just before a launch) to the completion of the stream's work.
fn nanos_at_completion(s: &Arc<CudaStream>, started: Instant) -> Result<u64, GpuError> {
    s.synchronize().map_err(driver("cuStreamSynchronize"))?;
    Ok(started.elapsed().as_nanos() as u64)
}

/// The first `len` elements of a device buffer (none for 0, which cudarc cannot slice).
fn dtoh_prefix<T: cudarc::driver::DeviceRepr + Default + Clone>(
    s: &Arc<CudaStream>,
    buffer: &cudarc::driver::CudaSlice<T>,
    len: usize,
) -> Result<Vec<T>, GpuError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    s.clone_dtoh(&buffer.slice(0..len))
        .map_err(driver("cuMemcpyDtoH"))
}

pub(crate) fn driver(call: &'static str) -> impl FnOnce(DriverError) -> GpuError {
    move |e| GpuError::Api {
        call,
        code: e.to_string(),
    }
}

/// Bytes the device's memory pool is grown by when the device is opened (see `warm_up`).
const POOL_RESERVE: usize = 256 << 20;

/// Threads per block of the packet kernel.
const BLOCK: u32 = 128;

/// Threads per block and at most threads per launch of `crunch_analyse` (each thread loops
/// over inputs with the grid's stride).
const ANALYSE_BLOCK: u32 = 256;
const ANALYSE_THREADS: u64 = 1 << 20;

/// Lets the device's default memory pool keep freed memory instead of returning it to the
/// system at every synchronisation (the default release threshold is 0): each launch of the
/// search allocates some 100 MB of scratch (cudarc allocates with cuMemAllocAsync from this
/// pool), which would otherwise be mapped and unmapped again per chunk.
fn keep_pool_memory(ctx: &Arc<CudaContext>) -> Result<(), GpuError> {
    use cudarc::driver::sys as dsys;
    if !ctx.has_async_alloc() {
        return Ok(());
    }
    ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent"))?;
    let mut pool: dsys::CUmemoryPool = std::ptr::null_mut();
    unsafe { dsys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) }
        .result()
        .map_err(driver("cuDeviceGetDefaultMemPool"))?;
    let mut threshold = u64::MAX;
    unsafe {
        dsys::cuMemPoolSetAttribute(
            pool,
            dsys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut threshold as *mut u64 as *mut std::ffi::c_void,
        )
    }
    .result()
    .map_err(driver("cuMemPoolSetAttribute"))
}

impl CudaDevice {
    /// Device `ordinal` (the CLI's `--device N`). The driver library and NVRTC are loaded at
    /// run time; missing ones are a [`GpuError::Runtime`] that says what to install.
    pub fn nth(ordinal: usize) -> Result<CudaDevice, GpuError> {
        let started = Instant::now();
        if keep_first_loaded(&["cuda", "nvcuda"]).is_none() {
            return Err(GpuError::Runtime(
                "CUDA is not available: the NVIDIA driver library (libcuda.so) was not found; \
                 install the NVIDIA driver, or use --backend opencl or cpu"
                    .to_string(),
            ));
        }
        // NVRTC loads beside the context's creation (hundreds of milliseconds), not in the
        // search's first chunk.
        let (nvrtc, ctx) = std::thread::scope(|scope| {
            let nvrtc = scope.spawn(nvrtc_version);
            let ctx = CudaContext::new(ordinal);
            let nvrtc = nvrtc
                .join()
                .unwrap_or_else(|_| Err(GpuError::Runtime("loading NVRTC panicked".to_string())));
            (nvrtc, ctx)
        });
        nvrtc?;
        let ctx = ctx.map_err(driver("cuCtxCreate"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("cuDeviceGetAttribute"))?;
        let name = ctx.name().map_err(driver("cuDeviceGetName"))?;
        keep_pool_memory(&ctx)?;
        ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent"))?;
        let (_, urgent_priority) = cudarc::driver::result::stream::get_priority_range()
            .map_err(driver("cuCtxGetStreamPriorityRange"))?;
        let device = CudaDevice {
            urgent_priority,
            streams: Mutex::new(Vec::new()),
            ctx,
            capability: (major as u32, minor as u32),
            name,
            modules: Mutex::new(HashMap::new()),
            crunch_modules: Mutex::new(HashMap::new()),
        };
        device.warm_up()?;
        if std::env::var_os("TMD_TRACE_DEVICE").is_some() {
            eprintln!(
                "tmd-trace: device opened in {} us (context, NVRTC, warm-up)",
                started.elapsed().as_micros()
            );
        }
        Ok(device)
    }

    /// Part of opening the device: the driver sets up a context's memory paths lazily, and on
    /// an H100 the first copy to the device took 8-13 ms (`TMD_TRACE_DEVICE`, 2026-11-23)
    /// against well under 1 ms for the next ones. One small round trip through the pool on a
    /// first stream pair pays that here, once per process, instead of in the first chunk.
    ///
    /// It also grows the memory pool once by [`POOL_RESERVE`] bytes, which the pool keeps
    /// ([`keep_pool_memory`]): the first call of a search allocates some 135 MB of scratch at
    /// chunk 2^39, and its allocations took 0.24-0.41 ms on the H100 (third lease), growing
    /// the pool on the search's clock.
    fn warm_up(&self) -> Result<(), GpuError> {
        const WORDS: usize = 1 << 16;
        self.with_streams(|bulk, urgent| {
            for s in [bulk, urgent] {
                let buffer = s
                    .clone_htod(&vec![0u64; WORDS])
                    .map_err(driver("cuMemcpyHtoD"))?;
                s.clone_dtoh(&buffer).map_err(driver("cuMemcpyDtoH"))?;
                s.synchronize().map_err(driver("cuStreamSynchronize"))?;
            }
            if self.ctx.has_async_alloc() {
                let reserve =
                    unsafe { bulk.alloc::<u8>(POOL_RESERVE) }.map_err(driver("cuMemAllocAsync"))?;
                drop(reserve);
                bulk.synchronize().map_err(driver("cuStreamSynchronize"))?;
            }
            Ok(())
        })
    }

    /// The device's name and compute capability.
    pub fn describe(&self) -> String {
        format!(
            "{} (sm_{}{})",
            self.name, self.capability.0, self.capability.1
        )
    }

    /// Runs `work` on a stream of its own (taken from the idle ones or made), then returns the
    /// stream to the idle list.
    pub(crate) fn with_stream<T>(
        &self,
        work: impl FnOnce(&Arc<CudaStream>) -> Result<T, GpuError>,
    ) -> Result<T, GpuError> {
        self.with_streams(|bulk, _| work(bulk))
    }

    /// Runs `work` on a (bulk, urgent) pair of streams of its own (see `streams`).
    fn with_streams<T>(
        &self,
        work: impl FnOnce(&Arc<CudaStream>, &Arc<CudaStream>) -> Result<T, GpuError>,
    ) -> Result<T, GpuError> {
        let idle = self.streams.lock().expect("stream list poisoned").pop();
        let pair = match idle {
            Some(pair) => pair,
            None => {
                let bulk = self.ctx.new_stream().map_err(driver("cuStreamCreate"))?;
                let urgent = self
                    .ctx
                    .new_stream_with_priority(self.urgent_priority)
                    .map_err(driver("cuStreamCreateWithPriority"))?;
                (bulk, urgent)
            }
        };
        let result = work(&pair.0, &pair.1);
        self.streams
            .lock()
            .expect("stream list poisoned")
            .push(pair);
        result
    }

    /// Program `id` compiled to a cubin for this device (or read from the cache) and loaded,
    /// once.
    pub(crate) fn module(&self, id: Id) -> Result<Arc<CudaModule>, GpuError> {
        let mut modules = self.modules.lock().expect("module cache poisoned");
        if let Some(m) = modules.get(&id) {
            return Ok(m.clone());
        }
        let (major, minor) = self.capability;
        let cubin = cached_cubin(id.name(), &tmd_kernels::source(id), major, minor)?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("cuModuleLoadData"))?;
        modules.insert(id, module.clone());
        Ok(module)
    }

    /// A crunch program (`source` complete), compiled (or read from the cache) and loaded once.
    fn crunch_module(&self, source: String) -> Result<Arc<CudaModule>, GpuError> {
        let mut modules = self.crunch_modules.lock().expect("module cache poisoned");
        if let Some(m) = modules.get(&source) {
            return Ok(m.clone());
        }
        let (major, minor) = self.capability;
        let cubin = cached_cubin("crunch", &source, major, minor)?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("cuModuleLoadData"))?;
        modules.insert(source, module.clone());
        Ok(module)
    }

    /// Evaluates a crunch target (the C definition of `crunch_target`, see
    /// `tmd_kernels::crunch_source`) on every input. A build failure (a bad user snippet) is
    /// `GpuError::Build` with the compiler's log.
    pub fn crunch_eval<T: CrunchReal>(&self, target: &str, xs: &[T]) -> Result<Vec<T>, GpuError> {
        let module = self.crunch_module(tmd_kernels::crunch_source(T::C_TYPE, target))?;
        if xs.is_empty() {
            return Ok(Vec::new());
        }
        let function = module
            .load_function("crunch_eval")
            .map_err(driver("cuModuleGetFunction"))?;
        self.with_stream(|s| {
            let input = s.clone_htod(xs).map_err(driver("cuMemcpyHtoD"))?;
            let mut output = s.alloc_zeros::<T>(xs.len()).map_err(driver("cuMemAlloc"))?;
            let n = xs.len() as u64;
            let config = LaunchConfig {
                grid_dim: ((xs.len() as u32).div_ceil(256), 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = s.launch_builder(&function);
            launch.arg(&input).arg(&mut output).arg(&n);
            unsafe { launch.launch(config) }.map_err(driver("cuLaunchKernel"))?;
            s.clone_dtoh(&output).map_err(driver("cuMemcpyDtoH"))
        })
    }

    /// Runs `crunch_analyse` (kernels/crunch_analyse.cl) for a binary64 target of `function`
    /// over one range of ordinals, as the OpenCL runner does. `None` when the function has no
    /// device reference.
    pub fn crunch_analyse(
        &self,
        function: &str,
        target: &str,
        plan: &AnalysePlan,
    ) -> Result<Option<AnalyseOutput>, GpuError> {
        let Some(source) = tmd_kernels::crunch_analyse_source(function, target) else {
            return Ok(None);
        };
        let function = self
            .crunch_module(source)?
            .load_function("crunch_analyse")
            .map_err(driver("cuModuleGetFunction"))?;
        self.with_stream(|s| {
            let up = |call| driver(call);
            let cand_cap = plan.candidate_capacity.max(1);
            let host_cap = plan.host_capacity.max(1);
            let mut counts = s
                .alloc_zeros::<u64>(CRUNCH_COUNT_WORDS)
                .map_err(up("cuMemAlloc"))?;
            let mut max_bits = s.alloc_zeros::<u64>(1).map_err(up("cuMemAlloc"))?;
            let mut cand_ord = s
                .alloc_zeros::<i64>(cand_cap as usize)
                .map_err(up("cuMemAlloc"))?;
            let mut cand_err = s
                .alloc_zeros::<f64>(cand_cap as usize)
                .map_err(up("cuMemAlloc"))?;
            let mut cand_found = s.alloc_zeros::<u32>(1).map_err(up("cuMemAlloc"))?;
            let mut cand_sample = s
                .alloc_zeros::<u64>(cand_cap as usize)
                .map_err(up("cuMemAlloc"))?;
            let mut host_ord = s
                .alloc_zeros::<i64>(host_cap as usize)
                .map_err(up("cuMemAlloc"))?;
            let mut host_a = s
                .alloc_zeros::<f64>(host_cap as usize)
                .map_err(up("cuMemAlloc"))?;
            let mut host_found = s.alloc_zeros::<u32>(1).map_err(up("cuMemAlloc"))?;
            let (has_over, over, symmetric, has_tiny, tiny) = plan.saturation_args();
            let threads = plan.n.clamp(1, ANALYSE_THREADS) as u32;
            let config = LaunchConfig {
                grid_dim: (threads.div_ceil(ANALYSE_BLOCK), 1, 1),
                block_dim: (ANALYSE_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = s.launch_builder(&function);
            launch
                .arg(&plan.lo)
                .arg(&plan.n)
                .arg(&plan.eps)
                .arg(&has_over)
                .arg(&over)
                .arg(&symmetric)
                .arg(&has_tiny)
                .arg(&tiny)
                .arg(&mut counts)
                .arg(&mut max_bits)
                .arg(&mut cand_ord)
                .arg(&mut cand_err)
                .arg(&cand_cap)
                .arg(&plan.candidate_floor)
                .arg(&mut cand_found)
                .arg(&mut cand_sample)
                .arg(&mut host_ord)
                .arg(&mut host_a)
                .arg(&host_cap)
                .arg(&mut host_found);
            unsafe { launch.launch(config) }.map_err(up("cuLaunchKernel"))?;
            let candidates_found = s.clone_dtoh(&cand_found).map_err(up("cuMemcpyDtoH"))?[0] as u64;
            let host_found_n = s.clone_dtoh(&host_found).map_err(up("cuMemcpyDtoH"))?[0] as u64;
            let stored = candidates_found.min(cand_cap as u64) as usize;
            let host_stored = host_found_n.min(host_cap as u64) as usize;
            let sampled_errors = if candidates_found > cand_cap as u64 {
                crate::sampled_errors(&s.clone_dtoh(&cand_sample).map_err(up("cuMemcpyDtoH"))?)
            } else {
                Vec::new()
            };
            Ok(Some(AnalyseOutput {
                counts: s.clone_dtoh(&counts).map_err(up("cuMemcpyDtoH"))?,
                sampled_errors,
                candidates: dtoh_prefix(s, &cand_ord, stored)?
                    .into_iter()
                    .zip(dtoh_prefix(s, &cand_err, stored)?)
                    .collect(),
                candidates_found,
                host: dtoh_prefix(s, &host_ord, host_stored)?
                    .into_iter()
                    .zip(dtoh_prefix(s, &host_a, host_stored)?)
                    .collect(),
                host_found: host_found_n,
            }))
        })
    }

    /// One launch of `filter_packets` (see the OpenCL runner, which this mirrors).
    fn launch_filter(
        &self,
        plan: &KernelPlan,
        jobs: &[PacketJob],
        capacity: usize,
    ) -> Result<Launched, GpuError> {
        self.with_streams(|bulk, urgent| self.launch_filter_on(bulk, urgent, plan, jobs, capacity))
    }

    fn launch_filter_on(
        &self,
        bulk: &Arc<CudaStream>,
        s: &Arc<CudaStream>,
        plan: &KernelPlan,
        jobs: &[PacketJob],
        capacity: usize,
    ) -> Result<Launched, GpuError> {
        let call_started = Instant::now();
        let mut trace = Trace::new(call_started);
        let packets = jobs.len();
        let subpackets = subpackets_per_packet(jobs, plan.domains_per_item);
        let items = packets * subpackets as usize;
        let up = |call| driver(call);
        let tables = s
            .clone_htod(&flatten_tables(jobs))
            .map_err(up("cuMemcpyHtoD"))?;
        let firsts: Vec<u64> = jobs.iter().map(|j| j.first).collect();
        let counts: Vec<u64> = jobs.iter().map(|j| j.count).collect();
        let firsts = s.clone_htod(&firsts).map_err(up("cuMemcpyHtoD"))?;
        let counts = s.clone_htod(&counts).map_err(up("cuMemcpyHtoD"))?;
        trace.mark("htod");
        // Scratch the kernels write in full before anything reads it (statistics and lane
        // records of every work-item, the per-warp records) or read only up to a counter
        // (candidates, deferrals) needs no zeroing; the counters do.
        let uninit = |n: usize| unsafe { s.alloc::<u64>(n.max(1)) }.map_err(up("cuMemAlloc"));
        let mut candidates = uninit(capacity)?;
        let mut found = s.alloc_zeros::<u32>(1).map_err(up("cuMemAlloc"))?;
        let per_item = plan.domains_per_item as usize;
        let mask_words = items * per_item / 32;
        let mut stats = uninit(items * item_record_words(plan.domains_per_item))?;
        // One bit mask of phase-1 failures per sub-packet (written when split).
        let mut fail_masks = unsafe { s.alloc::<u32>(mask_words) }.map_err(up("cuMemAlloc"))?;
        let mut lanes = unsafe { s.alloc::<u32>(items * per_item) }.map_err(up("cuMemAlloc"))?;
        let warp_records = warp_nmdm_records(items);
        let mut warp_words = uninit(warp_records * WARP_NMDM_WORDS)?;
        trace.mark("alloc");
        let module = self.module(crate::filter_id(plan))?;
        let function = module
            .load_function("filter_packets")
            .map_err(up("cuModuleGetFunction"))?;
        trace.mark("module");
        let (t_lo, t_hi) = (plan.threshold3 as u64, (plan.threshold3 >> 64) as u64);
        let packets64 = packets as u64;
        let capacity32 = capacity as u32;
        let block = if plan.work_group > 0 {
            plan.work_group
        } else {
            BLOCK
        };
        let max = function
            .max_threads_per_block()
            .map_err(up("cuFuncGetAttribute"))? as u32;
        if block > max {
            return Err(GpuError::WorkGroup {
                kernel: "filter_packets",
                requested: block,
                max,
            });
        }
        let config = LaunchConfig {
            grid_dim: ((items as u32).div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        // The buffers were filled on `s`: the bulk stream starts after that.
        s.synchronize().map_err(up("cuStreamSynchronize"))?;
        let mut launch = bulk.launch_builder(&function);
        launch
            .arg(&tables)
            .arg(&firsts)
            .arg(&counts)
            .arg(&packets64)
            .arg(&plan.chunk_len)
            .arg(&plan.n)
            .arg(&plan.kappa)
            .arg(&plan.algorithm)
            .arg(&plan.division_threshold)
            .arg(&plan.base1)
            .arg(&plan.base2)
            .arg(&t_lo)
            .arg(&t_hi)
            .arg(&subpackets)
            .arg(&mut candidates)
            .arg(&capacity32)
            .arg(&mut found)
            .arg(&mut stats)
            .arg(&mut fail_masks)
            .arg(&mut lanes);
        let mut step_nanos = [0u64; DEVICE_STEPS.len()];
        let started = Instant::now();
        unsafe { launch.launch(config) }.map_err(up("cuLaunchKernel"))?;
        step_nanos[0] = nanos_at_completion(bulk, started)?;
        trace.mark("filter_packets");
        let nmdm = module
            .load_function("warp_nmdm")
            .map_err(up("cuModuleGetFunction"))?;
        let items64 = items as u64;
        let mut launch = s.launch_builder(&nmdm);
        launch.arg(&lanes).arg(&items64).arg(&mut warp_words);
        let warp_config = LaunchConfig {
            grid_dim: (warp_records as u32, 1, 1),
            block_dim: (WARP_NMDM_GROUP as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let started = Instant::now();
        unsafe { launch.launch(warp_config) }.map_err(up("cuLaunchKernel"))?;
        step_nanos[4] = nanos_at_completion(s, started)?;
        trace.mark("warp_nmdm");
        // One statistics record per packet comes back, folded on the device.
        let fold = module
            .load_function("fold_packet_stats")
            .map_err(up("cuModuleGetFunction"))?;
        let mut folded = s
            .alloc_zeros::<u64>(packets * STATS_WORDS)
            .map_err(up("cuMemAlloc"))?;
        let fold_config = LaunchConfig {
            grid_dim: (packets as u32, 1, 1),
            block_dim: (FOLD_GROUP as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(&fold);
        launch
            .arg(&stats)
            .arg(&packets64)
            .arg(&subpackets)
            .arg(&mut folded);
        let started = Instant::now();
        unsafe { launch.launch(fold_config) }.map_err(up("cuLaunchKernel"))?;
        step_nanos[3] = nanos_at_completion(s, started)?;
        trace.mark("fold");
        let mut folded_words = s.clone_dtoh(&folded).map_err(up("cuMemcpyDtoH"))?;
        trace.mark("dtoh_folded");
        if plan.split_phases {
            // The failing domains, listed in input order at offsets from a prefix sum.
            let started = Instant::now();
            let (offsets, failed) =
                self.exclusive_scan(s, &module, &fail_masks, mask_words, true)?;
            let mut deferred = uninit(failed * DEFER_WORDS)?;
            if failed > 0 {
                let gather = module
                    .load_function("gather_phase1_failures")
                    .map_err(up("cuModuleGetFunction"))?;
                let mut launch = s.launch_builder(&gather);
                launch
                    .arg(&tables)
                    .arg(&firsts)
                    .arg(&counts)
                    .arg(&packets64)
                    .arg(&plan.chunk_len)
                    .arg(&plan.n)
                    .arg(&subpackets)
                    .arg(&fail_masks)
                    .arg(&offsets)
                    .arg(&mut deferred);
                unsafe { launch.launch(grid(items)) }.map_err(up("cuLaunchKernel"))?;
            }
            let gather_nanos = nanos_at_completion(s, started)?;
            let (counters, split_nanos) = self.split_phases_2_3(
                s,
                plan,
                &deferred,
                failed,
                (&mut candidates, capacity32, &mut found),
            )?;
            add_split_counters(&mut folded_words[..STATS_WORDS], &counters);
            step_nanos[1] = split_nanos[0];
            step_nanos[2] = split_nanos[1];
            step_nanos[5] = gather_nanos + split_nanos[2];
            trace.mark("split");
        }
        let total = s.clone_dtoh(&found).map_err(up("cuMemcpyDtoH"))?[0] as usize;
        let stored = dtoh_prefix(s, &candidates, total.min(capacity))?;
        trace.mark("dtoh_candidates");
        let warps = s.clone_dtoh(&warp_words).map_err(up("cuMemcpyDtoH"))?;
        trace.mark("dtoh_warps");
        trace.print(items);
        step_nanos[6] = crate::rest_of_call(call_started, &step_nanos);
        Ok(Launched {
            stored,
            total,
            stats: folded_words,
            warps,
            step_nanos,
        })
    }

    /// Phases 2 and 3 of a split launch (see the OpenCL runner, which this mirrors): the
    /// counters they add, and the nanoseconds of phase 2, phase 3 and the compaction between.
    fn split_phases_2_3(
        &self,
        s: &Arc<CudaStream>,
        plan: &KernelPlan,
        deferred: &CudaSlice<u64>,
        failed: usize,
        out: (&mut CudaSlice<u64>, u32, &mut CudaSlice<u32>),
    ) -> Result<(Vec<u64>, [u64; 3]), GpuError> {
        let up = |call| driver(call);
        let (candidates, capacity32, found) = out;
        let mut counters = s
            .alloc_zeros::<u64>(STATS_WORDS)
            .map_err(up("cuMemAlloc"))?;
        let mut nanos = [0u64; 3];
        if failed == 0 {
            return Ok((s.clone_dtoh(&counters).map_err(up("cuMemcpyDtoH"))?, nanos));
        }
        let (t_lo, t_hi) = (plan.threshold3 as u64, (plan.threshold3 >> 64) as u64);
        let kappa = plan.kappa as usize;
        // Each domain's own region of kappa subdomain slots, and how many it used.
        let mut regions =
            unsafe { s.alloc::<u64>(failed * kappa * DEFER_WORDS) }.map_err(up("cuMemAlloc"))?;
        let mut sub_counts = unsafe { s.alloc::<u32>(failed) }.map_err(up("cuMemAlloc"))?;
        let module = self.module(crate::filter_id(plan))?;
        let k2 = module
            .load_function("phase2_deferred")
            .map_err(up("cuModuleGetFunction"))?;
        let failed64 = failed as u64;
        let mut launch = s.launch_builder(&k2);
        launch
            .arg(deferred)
            .arg(&failed64)
            .arg(&plan.n)
            .arg(&plan.kappa)
            .arg(&plan.algorithm)
            .arg(&plan.division_threshold)
            .arg(&plan.base2)
            .arg(&t_lo)
            .arg(&t_hi)
            .arg(&mut *candidates)
            .arg(&capacity32)
            .arg(&mut *found)
            .arg(&mut counters)
            .arg(&mut regions)
            .arg(&mut sub_counts);
        let started = Instant::now();
        unsafe { launch.launch(grid(failed)) }.map_err(up("cuLaunchKernel"))?;
        nanos[0] = nanos_at_completion(s, started)?;
        let started = Instant::now();
        let (offsets, sub_failed) = self.exclusive_scan(s, &module, &sub_counts, failed, false)?;
        if sub_failed > 0 {
            let mut subdomains =
                unsafe { s.alloc::<u64>(sub_failed * DEFER_WORDS) }.map_err(up("cuMemAlloc"))?;
            let compact = module
                .load_function("compact_subdomains")
                .map_err(up("cuModuleGetFunction"))?;
            let mut launch = s.launch_builder(&compact);
            launch
                .arg(&regions)
                .arg(&sub_counts)
                .arg(&offsets)
                .arg(&failed64)
                .arg(&plan.kappa)
                .arg(&mut subdomains);
            unsafe { launch.launch(grid(failed)) }.map_err(up("cuLaunchKernel"))?;
            nanos[2] = nanos_at_completion(s, started)?;
            let k3 = module
                .load_function("phase3_deferred")
                .map_err(up("cuModuleGetFunction"))?;
            let sub_failed64 = sub_failed as u64;
            let mut launch = s.launch_builder(&k3);
            launch
                .arg(&subdomains)
                .arg(&sub_failed64)
                .arg(&t_lo)
                .arg(&t_hi)
                .arg(&mut *candidates)
                .arg(&capacity32)
                .arg(&mut *found)
                .arg(&mut counters);
            let started = Instant::now();
            unsafe { launch.launch(grid(sub_failed)) }.map_err(up("cuLaunchKernel"))?;
            nanos[1] = nanos_at_completion(s, started)?;
        } else {
            nanos[2] = started.elapsed().as_nanos() as u64;
        }
        Ok((s.clone_dtoh(&counters).map_err(up("cuMemcpyDtoH"))?, nanos))
    }

    /// The exclusive prefix sum of the first `len` values of `input` (of their popcounts when
    /// `popcount`), by `scan_blocks` and `add_block_offsets`, repeated over the block totals
    /// while there is more than one block: the offsets and the total.
    fn exclusive_scan(
        &self,
        s: &Arc<CudaStream>,
        module: &Arc<CudaModule>,
        input: &CudaSlice<u32>,
        len: usize,
        popcount: bool,
    ) -> Result<(CudaSlice<u32>, usize), GpuError> {
        let up = |call| driver(call);
        let blocks = len.div_ceil(SCAN_BLOCK).max(1);
        let mut out = unsafe { s.alloc::<u32>(len.max(1)) }.map_err(up("cuMemAlloc"))?;
        let mut sums = unsafe { s.alloc::<u32>(blocks) }.map_err(up("cuMemAlloc"))?;
        let scan = module
            .load_function("scan_blocks")
            .map_err(up("cuModuleGetFunction"))?;
        let (len64, pop) = (len as u64, popcount as i32);
        let mut launch = s.launch_builder(&scan);
        launch
            .arg(input)
            .arg(&len64)
            .arg(&pop)
            .arg(&mut out)
            .arg(&mut sums);
        let config = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (SCAN_GROUP as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe { launch.launch(config) }.map_err(up("cuLaunchKernel"))?;
        if blocks == 1 {
            let total = s.clone_dtoh(&sums).map_err(up("cuMemcpyDtoH"))?[0] as usize;
            return Ok((out, total));
        }
        let (block_offsets, total) = self.exclusive_scan(s, module, &sums, blocks, false)?;
        let add = module
            .load_function("add_block_offsets")
            .map_err(up("cuModuleGetFunction"))?;
        let mut launch = s.launch_builder(&add);
        launch.arg(&mut out).arg(&len64).arg(&block_offsets);
        unsafe { launch.launch(grid(len)) }.map_err(up("cuLaunchKernel"))?;
        Ok((out, total))
    }
}

/// One work-item per element, in blocks of [`BLOCK`].
fn grid(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(BLOCK), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaDevice({})", self.describe())
    }
}

impl PacketDevice for CudaDevice {
    fn name(&self) -> String {
        format!("CUDA device '{}'", self.describe())
    }

    fn run_packets(&self, plan: &KernelPlan, jobs: &[PacketJob]) -> Result<DeviceOutput, String> {
        crate::run_with_capacity(|capacity| self.launch_filter(plan, jobs, capacity))
    }

    fn prepare(&self, plan: &KernelPlan) -> Result<(), String> {
        let started = Instant::now();
        let loaded = self.module(crate::filter_id(plan));
        if std::env::var_os("TMD_TRACE_DEVICE").is_some() {
            eprintln!("tmd-trace: prepare {} us", started.elapsed().as_micros());
        }
        loaded.map(|_| ()).map_err(|e| e.to_string())
    }
}

impl CudaDevice {
    /// The forward FFT of `data` (power-of-two length) on the device, `kernels/fft.cl`, with
    /// the twiddles `w` of `tmd_xfloat::fft::fill_twiddles`, as the OpenCL runner does.
    pub fn fft_forward<T: FftDeviceScalar>(
        &self,
        data: &[Complex<T>],
        w: &[Complex<T>],
    ) -> Result<DeviceFft<T>, GpuError> {
        if let Some(done) = fft::trivial_or_checked(data, w) {
            return Ok(done);
        }
        let n = data.len();
        let function = self
            .module(Id::XfloatFft)?
            .load_function(&format!("{}_stockham_pass", T::PREFIX))
            .map_err(driver("cuModuleGetFunction"))?;
        self.with_stream(|s| {
            let mut from = s
                .clone_htod(&fft::to_words(data))
                .map_err(driver("cuMemcpyHtoD"))?;
            let mut to = s
                .alloc_zeros::<T::Word>(from.len())
                .map_err(driver("cuMemAlloc"))?;
            let twiddles = s
                .clone_htod(&fft::to_words(w))
                .map_err(driver("cuMemcpyHtoD"))?;
            s.synchronize().map_err(driver("cuStreamSynchronize"))?;
            let count = n as u64;
            let config = LaunchConfig {
                grid_dim: ((n as u32 / 2).div_ceil(256), 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let start = Instant::now();
            for log2_l_half in fft::passes(n) {
                let mut launch = s.launch_builder(&function);
                launch
                    .arg(&from)
                    .arg(&mut to)
                    .arg(&twiddles)
                    .arg(&count)
                    .arg(&log2_l_half);
                unsafe { launch.launch(config) }.map_err(driver("cuLaunchKernel"))?;
                std::mem::swap(&mut from, &mut to);
            }
            s.synchronize().map_err(driver("cuStreamSynchronize"))?;
            let kernel_seconds = start.elapsed().as_secs_f64();
            let words = s.clone_dtoh(&from).map_err(driver("cuMemcpyDtoH"))?;
            Ok(DeviceFft {
                output: fft::from_words(&words),
                kernel_seconds,
            })
        })
    }
}
