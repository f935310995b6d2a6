//! Compiles the C loops that call foreign functions under a rounding mode
//! (`src/foreign/eval_under.c`, and `eval_wide.c` for binary80 and binary128): the mode must be set, and the calls made, where no Rust
//! floating-point code runs, because LLVM assumes the default floating-point environment.

fn main() {
    println!("cargo:rerun-if-changed=src/foreign/eval_under.c");
    println!("cargo:rerun-if-changed=src/foreign/eval_wide.c");
    cc::Build::new()
        .file("src/foreign/eval_under.c")
        .file("src/foreign/eval_wide.c")
        .opt_level(2)
        .flag_if_supported("-frounding-math")
        .compile("tmd_eval_under");
    // fesetround and fegetround live in libm on glibc.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-lib=m");
    }
}
