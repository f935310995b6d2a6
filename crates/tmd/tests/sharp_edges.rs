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
    assert!(
        stderr.contains("--device is for --backend opencl or cuda"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Starts a long search, sends `signal`, and returns its exit status and stderr.
fn stopped_by(signal: &str, args: &[&str]) -> (Option<i32>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn each_signal_ends_a_run_with_its_own_exit_status_and_a_line() {
    let search = [
        "search", "exp", "--from", "1", "--to", "2", "--bits", "40", "-q",
    ];
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let (status, stderr) = stopped_by(signal, &search);
        assert_eq!(status, Some(code), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains("tmd: interrupted;"),
            "SIG{signal}: {stderr}"
        );
    }
}

#[test]
fn an_interrupted_hardness_list_says_so() {
    // A list that never ends: the inputs of a pipe that stays open.
    let child = Command::new("bash")
        .args([
            "-c",
            &format!(
                "(echo 0x1p+0; sleep 3) | {} hardness exp --file /dev/stdin",
                env!("CARGO_BIN_EXE_tmd")
            ),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // The signal to tmd alone, as Ctrl-C would send it to the whole pipeline.
    let pid = child.id();
    let killed = Command::new("pkill")
        .args(["-INT", "-P", &pid.to_string(), "-x", "tmd"])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tmd: interrupted; every line printed so far is complete"),
        "{stderr}"
    );
}

#[test]
fn a_device_number_on_the_cpu_backend_is_refused_by_crunch_too() {
    let out = tmd(&[
        "crunch", "std:expf", "--from", "1", "--to", "2", "--device", "1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("are for --backend opencl or cuda"),
        "{stderr}"
    );
    let out = tmd(&[
        "crunch",
        "std:expf",
        "--from",
        "1",
        "--to",
        "2",
        "--host-analysis",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_decimal_of_a_hundred_thousand_digits_is_a_number_and_is_not_echoed_whole() {
    // 10^-100002: valid, below every binary64 number: rounded to 0 as a range bound.
    let tiny = format!("0.{}1", "0".repeat(100_001));
    let out = tmd(&[
        "search",
        "exp",
        "--from",
        &tiny,
        "--to",
        "0x1p-1074",
        "--bits",
        "30",
        "-q",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("(100004 characters)"), "{stderr}");
    assert!(stderr.len() < 1000, "echoed whole: {} bytes", stderr.len());
    // Not a binary64 number: refused as an input of hardness, in one short line.
    let out = tmd(&["hardness", "exp", &tiny]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.len() < 300, "echoed whole: {} bytes", stderr.len());
}

#[test]
fn a_list_line_without_a_number_of_the_format_is_skipped_with_a_note_or_refused_by_strict() {
    let dir = std::env::temp_dir().join(format!("tmd-sharp-{}-wc", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("erf.wc");
    // Line 2 is a threshold with more bits than binary64 has; line 4 is a tool's error text.
    std::fs::write(
        &list,
        "0x1.8p+0\n0x1.00000000000001p+0 # a threshold\n-0x1p-3\nError 10290\n",
    )
    .unwrap();
    let path = list.to_str().unwrap();
    let out = tmd(&["hardness", "erf", "--file", path, "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    assert!(stderr.contains("2 lines"), "{stderr}");
    assert!(stderr.contains("erf.wc:2:"), "{stderr}");
    let strict = tmd(&["hardness", "erf", "--file", path, "--strict"]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(2), "{stderr}");
    assert!(strict.stdout.is_empty());
    assert!(stderr.contains("erf.wc:2:"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

fn sh(script: &str) -> std::process::Output {
    Command::new("bash")
        .args(["-c", script])
        .env("TMD", env!("CARGO_BIN_EXE_tmd"))
        .output()
        .expect("bash runs")
}

#[test]
fn an_empty_list_never_passes_a_gate() {
    let dir = std::env::temp_dir().join(format!("tmd-sharp-{}-empty", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("empty.txt", ""),
        ("comments.wc", "# nothing\n"),
        ("nan.txt", "nan\ninf\n"),
    ] {
        let list = dir.join(name);
        std::fs::write(&list, text).unwrap();
        let out = tmd(&[
            "crunch",
            "glibc:exp",
            "--inputs",
            list.to_str().unwrap(),
            "--max-ulp",
            "0.5",
            "-q",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains("holds no binary64 input"),
            "{name}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_precision_caps_and_endless_lists_are_bad_input_not_crashes() {
    for args in [
        &["hardness", "exp", "1", "--max-precision", "0"][..],
        &["hardness", "exp", "1", "--max-precision", "4000000000"],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "1.001",
            "--max-precision",
            "4000000000",
        ],
        &["hardness", "exp", "--file", "/dev/zero"],
    ] {
        let out = tmd(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    // A garbage token that merely holds "inf" is no special entry.
    let out =
        sh("printf 'infinity_garbage\\n1\\n' | \"$TMD\" hardness exp --file /dev/stdin --strict");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn writes_that_fail_are_errors_not_panics_nor_signals() {
    for command in ["completions bash", "--version", "--help", "man"] {
        let out = sh(&format!("\"$TMD\" {command} > /dev/full"));
        assert_eq!(
            out.status.code(),
            Some(1),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    // Past the file-size limit: exit 1 naming the file, no temporary file left.
    let dir = std::env::temp_dir().join(format!("tmd-sharp-{}-fsize", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = sh(&format!(
        "cd {} && ulimit -f 1 && \"$TMD\" search exp --format binary32 --from 1 --to 2 --bits 8 -q --out big.txt",
        dir.display()
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("big.txt"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tmd_alone_says_in_one_line_that_a_command_is_needed() {
    let out = tmd(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_foreign_target_that_never_returns_dies_with_tmd() {
    let dir = std::env::temp_dir().join(format!("tmd-sharp-{}-spin", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("spin.c");
    std::fs::write(
        &source,
        "float spin_expf(float x) { for (;;) { } return x; }\n",
    )
    .unwrap();
    let spec = format!("c:{}:spin_expf", source.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args([
            "crunch",
            &spec,
            "--function",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "-q",
            "--target-timeout",
            "0",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let workers = || {
        let out = sh(&format!(
            "pgrep -f -P {} tmd-eval-worker || true",
            child.id()
        ));
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let started = std::time::Instant::now();
    let mut seen = Vec::new();
    while seen.is_empty() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        seen = workers();
    }
    assert!(!seen.is_empty(), "no worker started");
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // Running, not a zombie waiting for whoever adopted it to reap it.
    let running = |pid: &String| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| !s.trim_start().starts_with('Z'))
        })
    };
    let alive: Vec<_> = seen.iter().filter(|pid| running(pid)).collect();
    assert!(alive.is_empty(), "workers outlived tmd: {alive:?}");
    std::fs::remove_dir_all(&dir).ok();
}
