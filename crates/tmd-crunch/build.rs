//! Compiles the C loops that call foreign functions under a rounding mode
//! (`src/foreign/eval_under.c`, and `eval_wide.c` for binary80 and binary128): the mode must
//! be set, and the calls made, where no Rust floating-point code runs, because LLVM assumes
//! the default floating-point environment. The same loops, with `src/foreign/worker.c`, make
//! the evaluation worker, the executable in which foreign functions run
//! (`tmd_crunch::foreign::worker`); the library embeds it.

use std::path::PathBuf;

const LOOPS: [&str; 2] = ["src/foreign/eval_under.c", "src/foreign/eval_wide.c"];

fn main() {
    for file in LOOPS.iter().chain(&["src/foreign/worker.c"]) {
        println!("cargo:rerun-if-changed={file}");
    }
    let mut build = cc::Build::new();
    build.opt_level(2).flag_if_supported("-frounding-math");
    build.clone().files(LOOPS).compile("tmd_eval_under");
    // fesetround and fegetround live in libm on glibc.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-lib=m");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let worker = out.join("tmd-eval-worker");
    let status = build
        .get_compiler()
        .to_command()
        .arg("src/foreign/worker.c")
        .args(LOOPS)
        .arg("-o")
        .arg(&worker)
        .args(["-ldl", "-lm", "-pthread"])
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "compiling the evaluation worker failed");
}
