//! Builds the C++ shim around fplll and links fplll statically from the system's libfplll-dev
//! (scripts/setup.sh installs it). fplll's own GMP and MPFR calls then bind to the GMP and
//! MPFR that rug links (gmp-mpfr-sys), so the process holds one copy of each. Only libfplll.a
//! is put on the search path (copied into OUT_DIR): the system directory itself would offer
//! the system's libgmp.a to gmp-mpfr-sys's `-l static=gmp`.
//!
//! With the feature `shared-fplll` (the Python module's shared object, which cannot hold
//! Debian's libfplll.a: its code is not position-independent) the system's libfplll.so is
//! linked instead; fplll's own GMP and MPFR calls then go to the system's shared GMP and MPFR,
//! which agree with rug's on the layout of every value the shim hands over (hex strings and
//! `mpz_t`, whose memory both allocate with malloc).

use std::path::{Path, PathBuf};

fn find_libfplll() -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
        "/usr/local/lib",
    ];
    dirs.iter()
        .map(|d| Path::new(d).join("libfplll.a"))
        .find(|p| p.exists())
}

fn main() {
    println!("cargo:rerun-if-changed=shim/fplll_shim.cpp");
    if std::env::var_os("CARGO_FEATURE_SHARED_FPLLL").is_some() {
        cc::Build::new()
            .cpp(true)
            .std("c++14")
            .pic(true)
            .file("shim/fplll_shim.cpp")
            .compile("tmd_fplll_shim");
        println!("cargo:rustc-link-lib=dylib=fplll");
        return;
    }
    let Some(lib) = find_libfplll() else {
        panic!("libfplll.a not found: install libfplll-dev (bash scripts/setup.sh)");
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy(&lib, out.join("libfplll.a")).expect("copy libfplll.a into OUT_DIR");
    cc::Build::new()
        .cpp(true)
        .std("c++14")
        .file("shim/fplll_shim.cpp")
        .compile("tmd_fplll_shim");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=fplll");
}
