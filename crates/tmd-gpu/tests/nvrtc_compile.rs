//! Every kernel program compiles under NVRTC for sm_90 and for sm_80, with the
//! IEEE-preserving options and the layout's -D options, to a non-empty cubin. No GPU is
//! needed: NVRTC comes from the pip wheel nvidia-cuda-nvrtc-cu12 (scripts/setup.sh installs it)
//! or a CUDA toolkit. Catches CUDA-only errors in the shared OpenCL/CUDA sources in CI.

use tmd_gpu::cuda::{compile_cubin, compile_source_cubin, load_nvrtc, nvrtc_version};
use tmd_kernels::Id;

#[test]
fn every_program_compiles_under_nvrtc_for_sm90_and_sm80() {
    let found = load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    let (major, minor) = nvrtc_version().unwrap();
    println!("NVRTC {major}.{minor} from {found}");
    for id in Id::ALL {
        for (arch_major, arch_minor) in [(9, 0), (8, 0)] {
            let cubin = compile_cubin(id, arch_major, arch_minor).unwrap_or_else(|e| panic!("{e}"));
            // An ELF image.
            assert_eq!(&cubin[..4], b"\x7fELF", "{}: not a cubin", id.name());
            println!(
                "{} sm_{arch_major}{arch_minor}: {} bytes",
                id.name(),
                cubin.len()
            );
        }
    }
}

/// The crunch kernel (with the VRECPE emulation and a math-library call as targets,
/// in float and double) compiles under NVRTC too, for the CUDA crunch backend to come.
#[test]
fn crunch_kernel_compiles_under_nvrtc() {
    load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    for real in ["float", "double"] {
        for target in [
            tmd_kernels::crunch_vrecpe_target(real, 3),
            tmd_kernels::crunch_call_target(real, "exp(x)"),
        ] {
            let source = tmd_kernels::crunch_source(real, &target);
            let cubin =
                compile_source_cubin("crunch", &source, 9, 0).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&cubin[..4], b"\x7fELF", "crunch {real}: not a cubin");
        }
    }
}

/// The crunch program that analyses on the device (kernels/crunch_analyse.cl, with
/// the double-double references of exp, recip and sqrt for binary64, and of every function
/// with a binary32 device reference for binary32) compiles under NVRTC for sm_90.
#[test]
fn crunch_analyse_compiles_under_nvrtc() {
    load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    let mut programs = vec![
        (
            "exp",
            "double",
            tmd_kernels::crunch_call_target("double", "exp(x)"),
        ),
        (
            "recip",
            "double",
            tmd_kernels::crunch_vrecpe_target("double", 3),
        ),
        (
            "sqrt",
            "double",
            tmd_kernels::crunch_call_target("double", "sqrt(x)"),
        ),
        (
            "recip",
            "float",
            tmd_kernels::crunch_vrecpe_target("float", 3),
        ),
    ];
    for name in [
        "exp", "log", "sin", "cos", "tan", "sqrt", "expm1", "log1p", "atan", "tanh",
    ] {
        let call = format!("{name}f(x)");
        programs.push((
            name,
            "float",
            tmd_kernels::crunch_call_target("float", &call),
        ));
    }
    for (function, real, target) in programs {
        let source = tmd_kernels::crunch_analyse_source(function, &target, real).unwrap();
        let cubin = compile_source_cubin("crunch_analyse", &source, 9, 0)
            .unwrap_or_else(|e| panic!("{function}: {e}"));
        assert_eq!(
            &cubin[..4],
            b"\x7fELF",
            "crunch_analyse {function}: not a cubin"
        );
    }
    assert!(tmd_kernels::crunch_analyse_source("cbrt", "", "double").is_none());
    assert!(tmd_kernels::crunch_analyse_source("cbrt", "", "float").is_none());
}

/// On a machine without the NVIDIA driver, opening a CUDA device is a clear error, not a panic
/// (cudarc alone panics when libcuda.so is missing). Where a driver exists, the device opens.
#[test]
fn cuda_device_without_a_driver_is_a_clear_error() {
    let has_driver = ["libcuda.so", "libcuda.so.1"]
        .iter()
        .any(|name| unsafe { libloading::Library::new(*name) }.is_ok());
    match tmd_gpu::cuda::CudaDevice::nth(0) {
        Ok(device) => {
            assert!(has_driver);
            println!("CUDA device: {}", device.describe());
        }
        Err(e) => {
            let text = e.to_string();
            println!("{text}");
            if !has_driver {
                assert!(text.contains("libcuda.so"), "{text}");
            }
        }
    }
}
