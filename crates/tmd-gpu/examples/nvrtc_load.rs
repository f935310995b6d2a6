//! What a CUDA search's first program costs on the host before the driver loads it: opening
//! NVRTC, asking its version (part of the cubin cache's key), building the filter program's
//! source and reading its cached cubin (compiling it on the first run). Runs without a GPU.
//!
//! `cargo run --release -p tmd-gpu --example nvrtc_load` (set `LD_LIBRARY_PATH` to a directory
//! with `libnvrtc.so` to open it by name, as scripts/gpu-check.sh does on the device machine).

use std::time::Instant;

fn main() {
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    match tmd_gpu::cuda::load_nvrtc() {
        Ok(found) => println!("load_nvrtc: {found}: {:.2} ms", ms(t)),
        Err(e) => {
            eprintln!("nvrtc_load: {e}");
            std::process::exit(1);
        }
    }
    let t = Instant::now();
    let version = tmd_gpu::cuda::nvrtc_version();
    println!("nvrtc_version: {version:?}: {:.2} ms", ms(t));
    let id = tmd_kernels::Id::filter_for([4, 3, 2], true, 32);
    let t = Instant::now();
    let source = tmd_kernels::source(id);
    println!(
        "source of {}: {} bytes: {:.2} ms",
        id.name(),
        source.len(),
        ms(t)
    );
    for run in 1..=2 {
        let t = Instant::now();
        match tmd_gpu::cuda::cached_cubin(id.name(), &source, 9, 0) {
            Ok(cubin) => println!(
                "cached_cubin sm_90, call {run}: {} bytes: {:.2} ms",
                cubin.len(),
                ms(t)
            ),
            Err(e) => println!("cached_cubin sm_90: {e}"),
        }
    }
}
