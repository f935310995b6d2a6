//! Foreign targets that crash, abort, exit or never return at one input: tmd survives them,
//! says on one line what happened and at which input, exits with 1 (never 0: a `--max-ulp`
//! gate must not pass), and keeps the finished blocks of its checkpoint.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-foreign-crash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A C source in `dir` defining `float NAME(float)` (or `TYPE NAME(TYPE)`) that does `bad` at
/// 1.5 and is exp elsewhere.
fn source(dir: &Path, name: &str, ty: &str, exp: &str, bad: &str) -> String {
    let path = dir.join(format!("{name}.c"));
    let text = format!(
        "#include <math.h>\n#include <stdlib.h>\n#include <unistd.h>\n\
         {ty} {name}({ty} x) {{ if (x == 1.5) {{ {bad} }} return {exp}(x); }}\n"
    );
    std::fs::write(&path, text).unwrap();
    format!("c:{}:{name}", path.display())
}

const SEGFAULT: &str = "*(volatile int *)0 = 0;";

/// Runs tmd and checks a failure of the target: exit 1, nothing on stdout, one line on
/// stderr holding every needle.
fn assert_target_failure(args: &[&str], needles: &[&str]) -> String {
    let out = tmd(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let own: Vec<&str> = stderr.lines().filter(|l| l.starts_with("tmd:")).collect();
    assert_eq!(own.len(), 1, "{args:?}: {stderr}");
    for needle in needles {
        assert!(
            own[0].contains(needle),
            "{args:?}: '{needle}' not in {stderr}"
        );
    }
    own[0].to_string()
}

#[test]
fn a_target_that_segfaults_is_reported_with_its_input() {
    let dir = scratch("segv");
    let spec = source(&dir, "segv_expf", "float", "expf", SEGFAULT);
    assert_target_failure(
        &["crunch", &spec, "--from", "1", "--to", "2", "-q"],
        &["the target crashed (SIGSEGV) at x = 0x1.8p+0"],
    );
}

#[test]
fn a_target_that_aborts_is_reported_with_its_input() {
    let dir = scratch("abort");
    let spec = source(&dir, "abort_expf", "float", "expf", "abort();");
    assert_target_failure(
        &["crunch", &spec, "--from", "1", "--to", "2", "-q"],
        &["the target crashed (SIGABRT) at x = 0x1.8p+0"],
    );
}

#[test]
fn a_target_that_calls_exit_0_fails_the_gate() {
    let dir = scratch("exit");
    let spec = source(&dir, "exit_expf", "float", "expf", "exit(0);");
    assert_target_failure(
        &[
            "crunch",
            &spec,
            "--from",
            "1",
            "--to",
            "2",
            "--max-ulp",
            "0.5",
            "-q",
        ],
        &["the target exited (status 0) at x = 0x1.8p+0"],
    );
    // exit itself as the target: it ends the worker at the first input.
    assert_target_failure(
        &[
            "crunch",
            "dl:libc.so.6:exit",
            "--function",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--max-ulp",
            "0.5",
            "-q",
        ],
        &["the target exited (status", "at x = 0x1"],
    );
}

#[test]
fn a_target_that_exits_without_cleanup_is_found_by_running_its_batch_again() {
    // _exit skips the worker's atexit record, so the input is found one at a time.
    let dir = scratch("underscore-exit");
    let spec = source(&dir, "quit_expf", "float", "expf", "_exit(3);");
    assert_target_failure(
        &["crunch", &spec, "--from", "1", "--to", "2", "-q"],
        &["the target exited (status 3) at x = 0x1.8p+0"],
    );
}

#[test]
fn a_target_that_never_returns_is_stopped_after_the_time_limit() {
    let dir = scratch("loop");
    let spec = source(
        &dir,
        "loop_expf",
        "float",
        "expf",
        "for (;;) { volatile int k = 0; (void)k; }",
    );
    let started = std::time::Instant::now();
    assert_target_failure(
        &[
            "crunch",
            &spec,
            "--from",
            "1",
            "--to",
            "2",
            "--target-timeout",
            "1",
            "-q",
        ],
        &["the target did not return within 1 s at x = 0x1.8p+0"],
    );
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

#[test]
fn a_crash_keeps_the_finished_blocks_of_the_checkpoint() {
    let dir = scratch("checkpoint");
    let spec = source(&dir, "ck_expf", "float", "expf", SEGFAULT);
    let ck = dir.join("run.ckpt");
    let ck = ck.to_str().unwrap();
    // 2^15 inputs of [1.4961, 1.5) come first: two blocks of 2^14, then the crash.
    let args = [
        "crunch",
        &spec,
        "--from",
        "0x1.7fp+0",
        "--to",
        "0x1.81p+0",
        "--block-bits",
        "14",
        "--checkpoint",
        ck,
        "-q",
    ];
    let line = assert_target_failure(&args, &["crashed (SIGSEGV) at x = 0x1.8p+0", ck]);
    assert!(line.contains("holds every finished block"), "{line}");
    let blocks = |out: Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1) // the header line
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    assert_eq!(blocks(tmd(&["crunch-format", ck])), 2);
    // The same command resumes them and stops at the same input, recording nothing more.
    assert_target_failure(&args, &["crashed (SIGSEGV) at x = 0x1.8p+0"]);
    assert_eq!(blocks(tmd(&["crunch-format", ck])), 2);
}

#[test]
fn a_crash_is_reported_in_every_rounding_mode_and_for_binary64() {
    let dir = scratch("modes");
    let spec = source(&dir, "segv_exp", "double", "exp", SEGFAULT);
    for mode in ["nearest", "up", "down", "zero", "all"] {
        assert_target_failure(
            &[
                "crunch",
                &spec,
                "--from",
                "0x1.7ffffffffff00p+0",
                "--to",
                "0x1.8000000000100p+0",
                "--rounding",
                mode,
                "-q",
            ],
            &["the target crashed (SIGSEGV) at x = 0x1.8p+0"],
        );
    }
}

#[test]
fn a_crash_in_an_input_list_is_reported_before_any_result() {
    let dir = scratch("list");
    let spec = source(&dir, "list_expf", "float", "expf", SEGFAULT);
    let list = dir.join("inputs.txt");
    std::fs::write(&list, "1.25\n1.5\n1.75\n").unwrap();
    assert_target_failure(
        &["crunch", &spec, "--inputs", list.to_str().unwrap()],
        &["the target crashed (SIGSEGV) at x = 0x1.8p+0"],
    );
}

#[test]
fn a_two_argument_target_that_crashes_is_reported_with_its_pair() {
    let dir = scratch("pairs");
    let path = dir.join("bad_pow.c");
    std::fs::write(
        &path,
        "#include <math.h>\ndouble bad_pow(double x, double y) {\n\
         if (x == 1.5 && y == 2) *(volatile int *)0 = 0; return pow(x, y); }\n",
    )
    .unwrap();
    let spec = format!("c:{}:bad_pow", path.display());
    let pairs = dir.join("pairs.txt");
    std::fs::write(&pairs, "1.25 2\n1.5 2\n1.75 2\n").unwrap();
    for mode in ["nearest", "down"] {
        assert_target_failure(
            &[
                "crunch",
                &spec,
                "--inputs",
                pairs.to_str().unwrap(),
                "--rounding",
                mode,
            ],
            &["the target crashed (SIGSEGV) at (x, y) = (0x1.8p+0, 0x1p+1)"],
        );
    }
}

#[test]
fn a_binary80_target_that_crashes_is_reported_with_its_input() {
    let dir = scratch("wide");
    let spec = source(&dir, "segv_expl", "long double", "expl", SEGFAULT);
    let list = dir.join("inputs.txt");
    std::fs::write(&list, "1.25\n1.5\n1.75\n").unwrap();
    assert_target_failure(
        &[
            "crunch",
            &spec,
            "--format",
            "binary80",
            "--inputs",
            list.to_str().unwrap(),
        ],
        &["the target crashed (SIGSEGV) at x = "],
    );
}
