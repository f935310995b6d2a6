//! CUDA: compiling the portable kernels with NVRTC (cudarc) to a cubin for a device
//! architecture. Running them on a device is issue 5's part; compiling needs no GPU, so CI
//! compiles every program for sm_90 to catch CUDA-only errors in the shared sources.
//!
//! NVRTC is loaded at run time. cudarc looks for `libnvrtc.so*` by name (system CUDA, or
//! `LD_LIBRARY_PATH`) and panics when it finds none, so [`load_nvrtc`] looks first, in this
//! order: the file named by `TMD_NVRTC_LIB`, the names cudarc tries, and the pip wheel
//! `nvidia-cuda-nvrtc-cu12` (site-packages/nvidia/cuda_nvrtc/lib, found by asking `python3`
//! for its site directories). A library found by path is opened and kept open, so cudarc's
//! later lookup by name finds the already loaded `libnvrtc.so.12`. Nothing found is a
//! [`GpuError::Runtime`] naming what to install.

use crate::GpuError;
use cudarc::nvrtc::{result, sys};
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::OnceLock;
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
            if unsafe { sys::is_culib_present() } {
                return Ok("libnvrtc (system search path)".to_string());
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

fn open_by_path(path: PathBuf) -> Option<String> {
    let lib = unsafe { libloading::Library::new(&path) }.ok()?;
    // Keep it loaded for the life of the process: cudarc opens it again by name.
    std::mem::forget(lib);
    unsafe { sys::is_culib_present() }.then(|| path.display().to_string())
}

/// NVRTC's version (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32), GpuError> {
    load_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| GpuError::Api {
            call: "nvrtcVersion",
            code: format!("{e:?}"),
        })?;
    Ok((major, minor))
}

/// Compiles program `id` with NVRTC to a cubin for compute capability `major.minor`
/// (`sm_XY`), with the options that keep IEEE semantics ([`tmd_kernels::cuda_options`]).
pub fn compile_cubin(id: Id, major: u32, minor: u32) -> Result<Vec<u8>, GpuError> {
    load_nvrtc()?;
    let api = |call: &'static str| {
        move |e: result::NvrtcError| GpuError::Api {
            call,
            code: format!("{e:?}"),
        }
    };
    let source = CString::new(tmd_kernels::source(id)).expect("kernel sources hold no NUL");
    let name = CString::new(format!("{}.cu", id.name())).expect("no NUL");
    let program =
        result::create_program(&source, Some(&name)).map_err(api("nvrtcCreateProgram"))?;
    let options = tmd_kernels::cuda_options(major, minor, &[]);
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
                program: id.name(),
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
