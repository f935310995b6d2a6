//! Options that cannot apply are refused, not ignored: one line on stderr, exit 2.

use std::process::Command;

fn tmd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

#[test]
fn a_device_number_on_the_cpu_backend_is_refused() {
    let out = tmd(&[
        "search", "exp", "--from", "1", "--to", "1.0001", "--bits", "30", "--device", "99",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--device is for --backend opencl or cuda"), "{stderr}");
    assert!(out.stdout.is_empty());
}
