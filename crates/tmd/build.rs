//! Names the commit tmd is built from, for `tmd --version` and the headers of its outputs:
//! `TMD_VERSION` is `0.1.0 (commit 1a2b3c4d5e6f)`, with `, dirty` when tracked files differ
//! from that commit, or `0.1.0 (commit unknown)` outside a git checkout.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    let described = match commit {
        Some(commit) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            let mark = if dirty { ", dirty" } else { "" };
            format!("{version} (commit {commit}{mark})")
        }
        None => format!("{version} (commit unknown)"),
    };
    println!("cargo:rustc-env=TMD_VERSION={described}");
    // Built again when the commit or any tracked source changes, so the mark stays true.
    for path in ["HEAD", "index"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for tracked in ["crates", "Cargo.toml", "Cargo.lock", "data", "scripts"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(tracked).display()
        );
    }
}
