//! Every kernel program compiles under NVRTC for sm_90 and for sm_80, with the
//! IEEE-preserving options and the layout's -D options, to a non-empty cubin. No GPU is
//! needed: NVRTC comes from the pip wheel nvidia-cuda-nvrtc-cu12 (scripts/setup.sh installs it)
//! or a CUDA toolkit. Catches CUDA-only errors in the shared OpenCL/CUDA sources in CI.

use tmd_gpu::cuda::{compile_cubin, compile_source_cubin, load_nvrtc, nvrtc_version};
use tmd_kernels::Id;

/// Runs `compile` on every item on threads of its own: NVRTC builds programs independently,
/// and each of these takes seconds.
fn compile_all<T: Sync>(items: &[T], compile: impl Fn(&T) + Sync) {
    std::thread::scope(|scope| {
        for item in items {
            let compile = &compile;
            scope.spawn(move || compile(item));
        }
    });
}

/// The large tier compiles every program for sm_90 and sm_80. The fast tier compiles the
/// FFT program and the filter programs of table degree 5 (split and inline, which between
/// them build every line of the filter's source) for sm_90 only: the double- and quad-word
/// programs take NVRTC minutes each on two cores (their elementary functions inline into
/// kernels of megabytes), and the filter of the largest table degree some 40 s (the same
/// source with larger constant tables, a cubin of over a megabyte). The sources shared with
/// OpenCL are built and run on PoCL by the fast tier's `xfloat_opencl` and `search_opencl`
/// tests; CI's large-tier rotation and `scripts/gpu-check.sh` compile all of them under NVRTC.
#[test]
fn every_program_compiles_under_nvrtc_for_sm90_and_sm80() {
    let found = load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    let (major, minor) = nvrtc_version().unwrap();
    println!("NVRTC {major}.{minor} from {found}");
    let archs: &[(u32, u32)] = tmd_test_tier::pick(&[(9, 0)], &[(9, 0), (8, 0)]);
    let slow = |id: &Id| match id {
        Id::XfloatDoubleWord | Id::XfloatQuadWord => true,
        Id::XfloatFft => false,
        Id::Filter { table_degree, .. } => *table_degree > 5,
    };
    let builds: Vec<(Id, (u32, u32))> = Id::ALL
        .iter()
        .filter(|id| tmd_test_tier::extensive() || !slow(id))
        .flat_map(|&id| archs.iter().map(move |&arch| (id, arch)))
        .collect();
    compile_all(&builds, |&(id, (arch_major, arch_minor))| {
        let t = std::time::Instant::now();
        let cubin = compile_cubin(id, arch_major, arch_minor).unwrap_or_else(|e| panic!("{e}"));
        // An ELF image.
        assert_eq!(&cubin[..4], b"\x7fELF", "{}: not a cubin", id.name());
        println!(
            "{} sm_{arch_major}{arch_minor}: {} bytes in {:.1} s",
            id.name(),
            cubin.len(),
            t.elapsed().as_secs_f64()
        );
    });
}

/// The crunch kernel (with the VRECPE emulation and a math-library call as targets,
/// in float and double; all four pairs in the large tier) compiles under NVRTC too.
#[test]
fn crunch_kernel_compiles_under_nvrtc() {
    load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    let mut programs = vec![
        ("float", tmd_kernels::crunch_vrecpe_target("float", 3)),
        (
            "double",
            tmd_kernels::crunch_call_target("double", "exp(x)"),
        ),
    ];
    if tmd_test_tier::extensive() {
        programs.push(("double", tmd_kernels::crunch_vrecpe_target("double", 3)));
        programs.push(("float", tmd_kernels::crunch_call_target("float", "exp(x)")));
    }
    compile_all(&programs, |(real, target)| {
        let source = tmd_kernels::crunch_source(real, target);
        let cubin = compile_source_cubin("crunch", &source, 9, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF", "crunch {real}: not a cubin");
    });
}

/// The crunch program that analyses on the device (kernels/crunch_analyse.cl, with
/// the double-double references of exp, recip and sqrt for binary64, and of every function
/// with a binary32 device reference for binary32) compiles under NVRTC for sm_90.
#[test]
fn crunch_analyse_compiles_under_nvrtc() {
    load_nvrtc().unwrap_or_else(|e| panic!("{e}"));
    // The fast tier builds one program per format; the programs of one format differ only in
    // their reference function, and the large tier builds them all.
    let mut programs = vec![(
        "exp",
        "double",
        tmd_kernels::crunch_call_target("double", "exp(x)"),
    )];
    if tmd_test_tier::extensive() {
        programs.push((
            "recip",
            "double",
            tmd_kernels::crunch_vrecpe_target("double", 3),
        ));
        programs.push((
            "sqrt",
            "double",
            tmd_kernels::crunch_call_target("double", "sqrt(x)"),
        ));
        programs.push((
            "recip",
            "float",
            tmd_kernels::crunch_vrecpe_target("float", 3),
        ));
    }
    let all = [
        "exp", "log", "sin", "cos", "tan", "sqrt", "expm1", "log1p", "atan", "tanh",
    ];
    for &name in tmd_test_tier::pick(&all[..1], &all[..]) {
        let call = format!("{name}f(x)");
        programs.push((
            name,
            "float",
            tmd_kernels::crunch_call_target("float", &call),
        ));
    }
    compile_all(&programs, |(function, real, target)| {
        let source = tmd_kernels::crunch_analyse_source(function, target, real).unwrap();
        let cubin = compile_source_cubin("crunch_analyse", &source, 9, 0)
            .unwrap_or_else(|e| panic!("{function}: {e}"));
        assert_eq!(
            &cubin[..4],
            b"\x7fELF",
            "crunch_analyse {function}: not a cubin"
        );
    });
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
