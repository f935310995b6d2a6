//! The CUDA runtime: the portable kernels compiled by NVRTC (cudarc) to a cubin for the
//! device's architecture, cached on disk, loaded into the device's context, and the
//! [`Backend`] the launch sequences run on ([`CudaDevice`]). Compiling needs no GPU, so CI
//! compiles every program for sm_80 and sm_90; running needs the NVIDIA driver (libcuda.so,
//! loaded at run time), so [`CudaDevice::nth`] fails with a clear [`GpuError::Runtime`] where
//! it is absent.
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
//! at the first call. NVRTC is some 100 MB, and each opening takes milliseconds; a second one
//! would fall inside the first chunk of a search. [`CudaDevice::nth`] loads NVRTC and asks
//! its version beside the creation of the CUDA context, so that the search's first program
//! costs only reading the cached cubin and loading it.
//!
//! Kernel arguments are passed as raw device pointers, so cudarc's tracking of buffers across
//! streams does not apply: the launch sequences wait for a stream ([`Backend::sync`]) before
//! another stream uses its results, and every call ends with its downloads.

use crate::backend::{built_once, Arg, Backend, Grid, Word};
use crate::GpuError;
use cudarc::driver::{
    CudaContext, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::{result, sys, Ptx};
use std::collections::HashMap;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tmd_kernels::Id;

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
    /// Complete programs (crunch targets), keyed by a text that determines their source
    /// (`Backend::source_program`).
    source_modules: Mutex<HashMap<String, Arc<CudaModule>>>,
}

pub(crate) fn driver(call: &'static str) -> impl FnOnce(DriverError) -> GpuError {
    move |e| GpuError::Api {
        call,
        code: e.to_string(),
    }
}

/// Bytes the device's memory pool is grown by when the device is opened (see `warm_up`).
const POOL_RESERVE: usize = 256 << 20;

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
            source_modules: Mutex::new(HashMap::new()),
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

    /// Part of opening the device: the driver sets up a context's memory paths lazily, and the
    /// first copy to the device takes milliseconds against well under one for the next ones. One small round trip through the pool on a
    /// first stream pair pays that here, once per process, instead of in the first chunk.
    ///
    /// It also grows the memory pool once by [`POOL_RESERVE`] bytes, which the pool keeps
    /// ([`keep_pool_memory`]): the first call of a search allocates some 135 MB of scratch at
    /// chunk 2^39, whose allocations would otherwise grow the pool on the search's clock.
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

    /// Runs `work` on a (bulk, urgent) pair of streams of its own (taken from the idle ones or
    /// made, see `streams`), then returns the pair to the idle list.
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
    fn module(&self, id: Id) -> Result<Arc<CudaModule>, GpuError> {
        built_once(&self.modules, id, || {
            self.load(id.name(), &tmd_kernels::source(id))
        })
    }

    /// A complete program, compiled (or read from the cache) and loaded once per `key`
    /// ([`Backend::source_program`]).
    fn source_module(
        &self,
        key: String,
        name: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<CudaModule>, GpuError> {
        built_once(&self.source_modules, key, || self.load(name, &source()))
    }

    /// `source` compiled to a cubin for this device (or read from the cache) and loaded.
    fn load(&self, name: &'static str, source: &str) -> Result<Arc<CudaModule>, GpuError> {
        let (major, minor) = self.capability;
        let cubin = cached_cubin(name, source, major, minor)?;
        self.ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("cuModuleLoadData"))
    }
}

impl Backend for CudaDevice {
    type Buffer<T: Word> = CudaSlice<T>;
    type Mem = u64;
    type Program = Arc<CudaModule>;
    type Queue = Arc<CudaStream>;

    /// Threads per block of a launch that names none.
    const DEFAULT_GROUP: Option<usize> = Some(128);
    const FILTER_GROUP: Option<usize> = Some(128);
    const ANALYSE_ITEMS: u64 = 1 << 20;
    const ANALYSE_GROUP: Option<usize> = Some(256);
    const EVAL_GROUP: Option<usize> = Some(256);
    const FFT_GROUP: Option<usize> = Some(256);
    const ELEMENTWISE_GROUP: usize = 128;

    fn with_queues<R>(
        &self,
        work: impl FnOnce(&Arc<CudaStream>, &Arc<CudaStream>) -> Result<R, GpuError>,
    ) -> Result<R, GpuError> {
        self.with_streams(work)
    }

    fn program(&self, id: Id) -> Result<Arc<CudaModule>, GpuError> {
        self.module(id)
    }

    fn source_program(
        &self,
        key: String,
        name: &'static str,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<CudaModule>, GpuError> {
        self.source_module(key, name, source)
    }

    fn max_group(&self, program: &Arc<CudaModule>, kernel: &str) -> Result<usize, GpuError> {
        let function = program
            .load_function(kernel)
            .map_err(driver("cuModuleGetFunction"))?;
        let max = function
            .max_threads_per_block()
            .map_err(driver("cuFuncGetAttribute"))?;
        Ok(max.max(0) as usize)
    }

    fn upload<T: Word>(&self, q: &Arc<CudaStream>, data: &[T]) -> Result<CudaSlice<T>, GpuError> {
        q.clone_htod(data).map_err(driver("cuMemcpyHtoD"))
    }

    fn zeros<T: Word>(&self, q: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>, GpuError> {
        q.alloc_zeros::<T>(len).map_err(driver("cuMemAlloc"))
    }

    fn scratch<T: Word>(&self, q: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>, GpuError> {
        // SAFETY: the launch sequences read only what their kernels wrote.
        unsafe { q.alloc::<T>(len) }.map_err(driver("cuMemAlloc"))
    }

    fn download<T: Word>(
        &self,
        q: &Arc<CudaStream>,
        buffer: &CudaSlice<T>,
        len: usize,
    ) -> Result<Vec<T>, GpuError> {
        // None for 0, which cudarc cannot slice.
        if len == 0 {
            return Ok(Vec::new());
        }
        q.clone_dtoh(&buffer.slice(0..len))
            .map_err(driver("cuMemcpyDtoH"))
    }

    fn mem<T: Word>(&self, q: &Arc<CudaStream>, buffer: &CudaSlice<T>) -> u64 {
        buffer.device_ptr(q).0
    }

    fn launch(
        &self,
        q: &Arc<CudaStream>,
        program: &Arc<CudaModule>,
        kernel: &str,
        grid: Grid,
        args: &[Arg<u64>],
    ) -> Result<(), GpuError> {
        let function = program
            .load_function(kernel)
            .map_err(driver("cuModuleGetFunction"))?;
        let block = grid.group.or(Self::DEFAULT_GROUP).unwrap_or(128) as u32;
        let config = LaunchConfig {
            grid_dim: ((grid.items as u32).div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = q.launch_builder(&function);
        for arg in args {
            match arg {
                Arg::U32(v) => launch.arg(v),
                Arg::I32(v) => launch.arg(v),
                Arg::U64(v) => launch.arg(v),
                Arg::I64(v) => launch.arg(v),
                Arg::F64(v) => launch.arg(v),
                // The device pointer's value is the kernel's pointer argument.
                Arg::Mem(m) => launch.arg(m),
            };
        }
        unsafe { launch.launch(config) }.map_err(driver("cuLaunchKernel"))?;
        Ok(())
    }

    fn sync(&self, q: &Arc<CudaStream>) -> Result<(), GpuError> {
        q.synchronize().map_err(driver("cuStreamSynchronize"))
    }
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaDevice({})", self.describe())
    }
}

crate::device_operations!(CudaDevice, |d: &CudaDevice| format!(
    "CUDA device '{}'",
    d.describe()
));
