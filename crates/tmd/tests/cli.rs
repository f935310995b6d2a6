//! The command line as a user meets it: output formats, files, exit codes, and every
//! kind of bad input (one line on stderr naming the problem, exit code 2, no output file).

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn tmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

/// The stdout of a run that must succeed (its stderr shown if not).
fn succeeded(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assert_bad_input(args: &[&str], needle: &str) {
    let out = tmd(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    assert_eq!(
        stderr.lines().count(),
        1,
        "{args:?}: one line expected, got {stderr}"
    );
    assert!(
        stderr.contains(needle),
        "{args:?}: '{needle}' not in {stderr}"
    );
}

#[test]
fn bad_inputs_exit_2_with_one_line() {
    let s = ["search"];
    let search = |extra: &[&'static str]| -> Vec<&'static str> {
        s.iter().copied().chain(extra.iter().copied()).collect()
    };
    assert_bad_input(
        &search(&["foo", "--from", "1", "--to", "2"]),
        "unknown function 'foo'",
    );
    assert_bad_input(&search(&["x*", "--from", "1", "--to", "2"]), "expression");
    for threads in ["0", "100000", "x"] {
        assert_bad_input(
            &search(&["exp", "--from", "1", "--to", "2", "--threads", threads]),
            "--threads",
        );
    }
    assert_bad_input(
        &search(&["bar(x)+1", "--from", "1", "--to", "2"]),
        "unknown function 'bar'",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1.2.3", "--to", "2"]),
        "number '1.2.3'",
    );
    assert_bad_input(&search(&["exp", "--from", "0x1.8q", "--to", "2"]), "number");
    assert_bad_input(&search(&["exp", "--from", "1", "--to", "1"]), "range");
    assert_bad_input(&search(&["exp", "--from", "2", "--to", "1"]), "range");
    assert_bad_input(
        &search(&["log", "--from", "-2", "--to", "-1"]),
        "domain of log",
    );
    assert_bad_input(
        &search(&[
            "acosh", "--from", "-2", "--to", "0.5", "--format", "binary32",
        ]),
        "domain of acosh",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--bits", "0"]),
        "--bits 0",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--bits", "999"]),
        "--bits 999",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--format", "binary256"]),
        "unknown format",
    );
    // binary128's [1, 2) holds 2^112 inputs: more than a search counts.
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--format", "binary128"]),
        "search it in pieces",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--format", "p65"]),
        "p65",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "1e40", "--format", "binary32"]),
        "largest finite",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--breakpoints", "odd"]),
        "breakpoints",
    );
    assert_bad_input(
        &search(&["exp", "--from", "1", "--to", "2", "--algorithm", "magic"]),
        "algorithm",
    );
    assert_bad_input(&search(&["exp", "--from", "1"]), "--to");
    assert_bad_input(&["hardness", "exp", "0.1"], "not a binary64 number");
    assert_bad_input(&["hardness", "exp", "nan"], "not a finite number");
    assert_bad_input(&["hardness", "nope", "1"], "unknown function 'nope'");
    assert_bad_input(&["frobnicate"], "unrecognized subcommand");
}

#[test]
fn bad_input_leaves_no_output_file() {
    let dir = scratch("bad");
    let out = dir.join("cases.json");
    let o = tmd(&[
        "search",
        "exp",
        "--from",
        "2",
        "--to",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
    assert!(!dir.join("cases.json.partial").exists());
}

/// The small search the output-file tests run, and its JSON lines on stdout.
const SMALL_SEARCH: [&str; 12] = [
    "search", "sin", "--from", "0.5", "--to", "1", "--format", "bfloat16", "--bits", "10",
    "--json", "-q",
];

fn small_search_with(extra: &[&str]) -> Output {
    let mut args: Vec<&str> = SMALL_SEARCH.to_vec();
    args.extend(extra);
    tmd(&args)
}

#[test]
fn output_paths_in_a_missing_directory_are_bad_input_before_any_work() {
    let dir = scratch("nodir");
    let missing = dir.join("no-such-dir").join("x.jsonl");
    let missing = missing.to_str().unwrap();
    let mut args: Vec<&str> = SMALL_SEARCH.to_vec();
    for flag in ["--out", "--stats"] {
        args.truncate(SMALL_SEARCH.len());
        args.extend([flag, missing]);
        assert_bad_input(&args, "does not exist");
    }
    assert_bad_input(
        &[
            "crunch", "std:expf", "--from", "1", "--to", "2", "--plot", missing,
        ],
        "does not exist",
    );
    let d = dir.to_str().unwrap();
    let mut args: Vec<&str> = SMALL_SEARCH.to_vec();
    args.extend(["--out", d]);
    assert_bad_input(&args, "is a directory");
}

#[test]
fn output_to_a_symlink_writes_its_target_and_keeps_the_link() {
    let dir = scratch("symlink");
    let target = dir.join("target.jsonl");
    let link = dir.join("link.jsonl");
    std::fs::write(&target, "old contents that must go\n".repeat(100)).unwrap();
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let direct = tmd(&SMALL_SEARCH);
    let o = small_search_with(&["--out", link.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), direct.stdout);
    assert!(!dir.join("link.jsonl.partial").exists());
}

#[test]
fn output_to_a_device_or_fifo_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let o = small_search_with(&["--out", "/dev/null", "--stats", "/dev/null"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let meta = std::fs::metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device(), "/dev/null was replaced");
    let full = small_search_with(&["--out", "/dev/full"]);
    assert_eq!(full.status.code(), Some(1), "a full device is a failed run");
    if let Ok(meta) = std::fs::metadata("/dev/full") {
        assert!(meta.file_type().is_char_device(), "/dev/full was replaced");
    }
    let dir = scratch("fifo");
    let fifo = dir.join("cases.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = small_search_with(&["--out", fifo.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(reader.join().unwrap(), tmd(&SMALL_SEARCH).stdout);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn search_json_lines_have_the_design_fields() {
    let o = tmd(&[
        "search", "exp", "--from", "-4", "--to", "4", "--format", "binary16", "--bits", "14",
        "--json", "--exact", "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut kinds = std::collections::HashSet::new();
    let mut last_x = f64::NEG_INFINITY;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["function"], "exp");
        assert_eq!(v["format"], "binary16");
        let kind = v["kind"].as_str().unwrap().to_string();
        let x = f64::from_str_radix_hex(v["x"].as_str().unwrap());
        assert!(x > last_x, "sorted by x");
        last_x = x;
        if kind != "exact" {
            // dist < 2^-14; printed to 3 decimals, 14.0000012 shows as 14.000.
            assert!(v["bits"].as_f64().unwrap() >= 14.0);
            // dist in [2^-(k+2), 2^-(k+1)) (or (..] for a run of ones of a dyadic y).
            let k = v["k"].as_u64().unwrap() as f64;
            let bits = v["bits"].as_f64().unwrap();
            assert!(bits.ceil() - 2.0 == k || bits.floor() - 1.0 == k, "{line}");
            // bits printed with 3 decimals
            assert!(line.contains(&format!("\"bits\":{:.3}", v["bits"].as_f64().unwrap())));
        }
        kinds.insert(kind);
    }
    assert!(kinds.contains("exact"), "exp(0) = 1 with --exact");
    assert!(kinds.contains("directed") || kinds.contains("nearest"));
}

trait HexFloat {
    fn from_str_radix_hex(s: &str) -> f64;
}
impl HexFloat for f64 {
    fn from_str_radix_hex(s: &str) -> f64 {
        let q = tmd_core::number::parse_number(s).unwrap();
        rug::Float::with_val(64, q).to_f64()
    }
}

#[test]
fn search_out_and_stats_files_are_complete_and_agree_with_stdout() {
    let dir = scratch("out");
    let out = dir.join("cases.jsonl");
    let stats = dir.join("stats.json");
    let args = [
        "search", "sin", "--from", "0.5", "--to", "1", "--format", "bfloat16", "--bits", "10",
        "--json", "-q",
    ];
    let direct = tmd(&args);
    let mut with_files: Vec<&str> = args.to_vec();
    with_files.extend([
        "--out",
        out.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
    ]);
    let o = tmd(&with_files);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&out).unwrap(), direct.stdout);
    assert!(!dir.join("cases.jsonl.partial").exists());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["inputs"], 128, "bfloat16 has 2^7 numbers per binade");
    assert_eq!(
        s["hard"].as_u64().unwrap() as usize,
        String::from_utf8_lossy(&direct.stdout).lines().count()
    );
}

#[test]
fn search_wc_output_is_core_math_format() {
    let dir = scratch("wc");
    let out = dir.join("exp.wc");
    let o = tmd(&[
        "search",
        "exp",
        "--from",
        "1",
        "--to",
        "2",
        "--format",
        "binary16",
        "--bits",
        "12",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("# hard-to-round cases of exp in binary16"));
    let inputs: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(!inputs.is_empty());
    assert!(inputs.iter().all(|x| x.starts_with("0x1.")));
}

#[test]
fn a_killed_search_leaves_only_a_partial_file() {
    let dir = scratch("kill");
    let out = dir.join("big.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args([
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--json",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !out.exists(),
        "an interrupted run must not leave a file that looks complete"
    );
    let partial = std::fs::read_dir(&dir).unwrap().any(|e| {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        name.starts_with("big.jsonl.") && name.ends_with(".partial")
    });
    assert!(
        partial,
        "a kill -9 leaves the temporary file big.jsonl.*.partial"
    );
}

/// A reader that has all it wanted (`| head -1`) ends the search: the write fails with a
/// closed pipe, and the search stops at its next finished job instead of searching on (here
/// 2^60 inputs, every one hard, listed one by one).
#[test]
fn search_stops_when_its_reader_closes_the_pipe() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args([
            "search",
            "exp",
            "--from",
            "0x1p-200",
            "--to",
            "0x1p-100",
            "--bits",
            "45",
            "--expand-ranges",
            "--json",
            "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("\"kind\":\"directed\""), "{first}");
    // The reader is dropped: the pipe is closed.
    let closed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if closed.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the search went on for a minute after its reader left");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn hardness_prints_all_roundings() {
    let o = tmd(&[
        "hardness",
        "--json",
        "exp",
        "0x1.aca7ae8da5a7bp+0",
        "-0x1p+0",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(v["kind"], "nearest");
    assert_eq!(v["k"], 53);
    assert_eq!(v["rn"], "0x1.557d4acd7e557p+2");
    assert_eq!(v["rd"], "0x1.557d4acd7e556p+2");
    assert_eq!(v["ru"], "0x1.557d4acd7e557p+2");
    assert_eq!(v["rz"], "0x1.557d4acd7e556p+2");
    assert_eq!(text.lines().count(), 2);
}

#[test]
fn functions_lists_the_whole_registry() {
    let o = tmd(&["functions"]);
    let text = String::from_utf8(o.stdout).unwrap();
    for f in tmd_core::FUNCTIONS {
        assert!(
            text.lines().any(|l| l.starts_with(f.name)),
            "{} missing",
            f.name
        );
    }
}

#[test]
fn hardness_file_classifies_a_published_list() {
    let dir = scratch("file");
    let wc = dir.join("some.wc");
    std::fs::write(
        &wc,
        "# a list\n0x1.aca7ae8da5a7bp+0 # the exp example\nnan\n\n-0x1p+0\n",
    )
    .unwrap();
    let o = tmd(&["hardness", "--json", "exp", "--file", wc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 2);
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.contains("1 special entries"), "{stderr}");
    assert!(stderr.contains("2 inputs"), "{stderr}");
    std::fs::write(&wc, "0x1p+0\n0.1\n").unwrap();
    assert_bad_input(
        &[
            "hardness",
            "exp",
            "--file",
            wc.to_str().unwrap(),
            "--strict",
        ],
        "some.wc:2",
    );
}

#[test]
fn special_function_searches_through_the_filter_equal_the_reference_search() {
    for (func, from, to) in [
        ("eint", "0.75", "0.7505"),
        ("lgamma", "-2.5", "-2.499"),
        ("y1", "7.5", "7.502"),
        ("zeta", "-3.5", "-3.499"),
    ] {
        let listing = |algorithm: &str| {
            let args = [
                "search",
                func,
                "--format",
                "binary32",
                "--from",
                from,
                "--to",
                to,
                "--bits",
                "10",
                "--algorithm",
                algorithm,
                "-q",
            ];
            let out = tmd(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let reference = listing("reference");
        assert!(
            reference.lines().count() > 1,
            "{func}: no cases\n{reference}"
        );
        for algorithm in ["regular", "exhaustive", "auto"] {
            assert_eq!(
                listing(algorithm),
                reference,
                "{func} --algorithm {algorithm}"
            );
        }
    }
}

#[test]
fn filter_parameters_out_of_range_are_refused() {
    for bad in [
        ["--domain-size", "1000"],
        ["--domain-size", "4"],
        ["--kappa", "3"],
    ] {
        let mut args = vec![
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--algorithm",
            "regular",
        ];
        args.extend(bad);
        assert_bad_input(&args, bad[0]);
    }
}

#[test]
fn every_algorithm_lists_the_same_cases() {
    let run = |algorithm: &str| {
        let out = tmd(&[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "1.0000000001",
            "--format",
            "binary64",
            "--bits",
            "16",
            "--json",
            "-q",
            "--algorithm",
            algorithm,
        ]);
        assert_eq!(out.status.code(), Some(0), "{algorithm}");
        String::from_utf8(out.stdout).unwrap()
    };
    let reference = run("reference");
    assert!(reference.lines().count() >= 5, "the window holds cases");
    for algorithm in ["auto", "regular", "lefevre", "lefevre-swap", "exhaustive"] {
        assert_eq!(run(algorithm), reference, "{algorithm}");
    }
}

/// `--resume DIR` after a kill -9 continues where the run stopped; the final output is
/// that of an uninterrupted run (no case lost or duplicated).
#[test]
fn resume_after_kill_gives_the_uninterrupted_output() {
    let dir = scratch("resume");
    let journal = dir.join("journal");
    let out = dir.join("cases.txt");
    let args = |out: &PathBuf, journal: Option<&PathBuf>| -> Vec<String> {
        let mut a: Vec<String> = [
            "search",
            "sin",
            "--from",
            "1",
            "--to",
            "1.25",
            "--format",
            "binary32",
            "--bits",
            "18",
            "--algorithm",
            "reference",
            "--threads",
            "1",
            "--json",
            "-q",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.push(out.display().to_string());
        if let Some(j) = journal {
            a.push("--resume".into());
            a.push(j.display().to_string());
        }
        a
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&out, Some(&journal)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill (SIGKILL) as soon as the journal holds a checkpoint: a fixed delay made the test
    // depend on the machine's speed.
    let journal_file = journal.join("journal.tmd");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&journal_file)
        .is_ok_and(|t| t.lines().any(|l| l.starts_with("k ")))
    {
        assert!(
            started.elapsed().as_secs() < 60,
            "no checkpoint within 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !out.exists(),
        "a killed run must not leave a complete-looking output"
    );
    let text = std::fs::read_to_string(journal.join("journal.tmd")).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("k ")),
        "a checkpoint was written: {text}"
    );
    let resumed = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&out, Some(&journal)))
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("resuming"));
    let whole = dir.join("whole.txt");
    let plain = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&whole, None))
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
    let (a, b) = (
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&whole).unwrap(),
    );
    assert!(a.lines().count() > 10);
    assert_eq!(a, b, "resumed output differs from the uninterrupted one");
    // Running the finished command again changes nothing.
    let again = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&out, Some(&journal)))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), b);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn opencl_backend_lists_what_the_cpu_backend_lists() {
    let window = [
        "search",
        "exp",
        "--from",
        "0x1.0000000012345p+0",
        "--to",
        "0x1.0000001012345p+0",
        "--bits",
        "22",
        "--json",
        "-q",
    ];
    let cpu = tmd(&window);
    let mut args = window.to_vec();
    args.extend(["--backend", "opencl"]);
    let opencl = tmd(&args);
    assert_eq!(cpu.status.code(), Some(0));
    assert_eq!(
        opencl.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&opencl.stderr)
    );
    assert!(String::from_utf8_lossy(&cpu.stdout).lines().count() >= 5);
    assert_eq!(cpu.stdout, opencl.stdout);
}

#[test]
fn backend_misuse_is_bad_input() {
    let base = ["search", "exp", "--from", "1", "--to", "2"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    assert_bad_input(
        &with(&["--backend", "cuda", "--algorithm", "reference"]),
        "runs on the CPU",
    );
    assert_bad_input(
        &with(&["--backend", "opencl", "--algorithm", "reference"]),
        "runs on the CPU",
    );
    assert_bad_input(&with(&["--backend", "vulkan"]), "unknown --backend");
    assert_bad_input(&with(&["--chunk-bits", "50"]), "--chunk-bits 50");
    assert_bad_input(
        &with(&["--split-phases"]),
        "are for --backend opencl or cuda",
    );
    assert_bad_input(
        &with(&["--inline-phases"]),
        "are for --backend opencl or cuda",
    );
    assert_bad_input(
        &with(&["--domains-per-item", "64"]),
        "are for --backend opencl or cuda",
    );
    assert_bad_input(
        &with(&["--backend", "opencl", "--domains-per-item", "48"]),
        "--domains-per-item 48: expected 32, 64 or 128",
    );
    assert_bad_input(
        &with(&["--backend", "opencl", "--split-phases", "--inline-phases"]),
        "cannot be used with",
    );
    assert_bad_input(
        &with(&["--backend", "opencl", "--work-group", "48"]),
        "--work-group 48",
    );
}

/// Where a CUDA driver is installed, `--backend cuda` must list what the CPU backend lists;
/// where none is, the run fails with one line naming the missing library (exit 1: the input
/// was fine, the machine lacks the runtime).
#[test]
fn cuda_backend_lists_the_cpu_cases_or_names_the_missing_driver() {
    let window = [
        "search",
        "exp",
        "--from",
        "0x1.0000000012345p+0",
        "--to",
        "0x1.0000001012345p+0",
        "--bits",
        "22",
        "--json",
        "-q",
    ];
    let mut args = window.to_vec();
    args.extend(["--backend", "cuda"]);
    let cuda = tmd(&args);
    let stderr = String::from_utf8_lossy(&cuda.stderr);
    let has_driver = std::path::Path::new("/usr/lib/x86_64-linux-gnu/libcuda.so.1").exists()
        || std::path::Path::new("/usr/local/nvidia/lib64/libcuda.so.1").exists();
    if has_driver {
        let cpu = tmd(&window);
        assert_eq!(cpu.status.code(), Some(0));
        assert_eq!(cuda.status.code(), Some(0), "{stderr}");
        assert!(String::from_utf8_lossy(&cpu.stdout).lines().count() >= 5);
        assert_eq!(cpu.stdout, cuda.stdout);
    } else {
        assert_eq!(cuda.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("libcuda.so"), "{stderr}");
        assert!(cuda.stdout.is_empty());
    }
}

/// `tmd ARGS` under a 1 GiB address-space limit (`ulimit -v`) and a wall-clock limit, on two
/// threads (each thread's malloc arena reserves address space of its own).
fn tmd_in_1gib(seconds: u32, args: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576; exec timeout {seconds} {} {args} --threads 2 -q",
            env!("CARGO_BIN_EXE_tmd")
        ))
        .output()
        .expect("bash runs")
}

#[test]
fn search_memory_stays_bounded_when_every_input_is_a_candidate() {
    // Every input of x+1 on [1, 1 + 2^-29) is exact: 2^23 candidates in one chunk, twice the
    // cap; held at once with their decisions they need about 1.5 GB.
    let out = tmd_in_1gib(
        120,
        "search x+1 --from 1 --to 0x1.00000008p+0 --chunk-bits 23 --json --stats /dev/stdout",
    );
    let stdout = succeeded(&out);
    assert!(stdout.contains("\"exact\": 8388608"), "{stdout}");
}

#[test]
fn search_memory_stays_bounded_on_a_range_of_2_to_the_59_inputs() {
    // 2^25 chunks of 2^34, every result below the tiny threshold: the binade pieces are decided
    // whole by one enclosure each (halved at the threshold), so the run ends at once, under
    // 1 GiB, with every input counted and none listed.
    let out = tmd_in_1gib(
        20,
        "search exp --from -0x1.fffffffffffffp+1023 --to -0x1p+900 --bits 50",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().count() <= 1,
        "only the table's header: {stdout}"
    );
    assert!(
        stderr.contains("558446353793941503 inputs, 0 hard-to-round"),
        "{stderr}"
    );
}

#[test]
fn search_memory_stays_bounded_where_every_input_is_hard() {
    // exp(x) for x in [2^-110, 2^-109) lies within 2^-58 ulp of 1: all 2^52 inputs are hard
    // at K = 45 (the regime rule proves it), and they must stream out, not pile up in memory
    // (a chunk of 2^34 cases did). Cut by the time limit (exit 124), with cases printed.
    // --expand-ranges: without it the piece is one range record.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576; timeout 4 {} search exp --from 0x1p-110 --to 0x1p-109 --bits 45 \
             --expand-ranges --threads 2 -q | head -c 1000000 | wc -l; exit ${{PIPESTATUS[0]}}",
            env!("CARGO_BIN_EXE_tmd")
        ))
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("memory allocation"), "{stderr}");
    let lines: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(lines > 10_000, "{lines} lines in 4 s");
}

#[test]
fn search_takes_infinities_as_range_ends() {
    // inf ends the range after the largest finite number, -inf starts it at the most negative.
    let out = tmd(&[
        "search",
        "exp",
        "--format",
        "binary32",
        "--from",
        "0x1.fffffcp+127",
        "--to",
        "inf",
        "--bits",
        "10",
        "-q",
        "--stats",
        "/dev/stdout",
    ]);
    let stdout = succeeded(&out);
    assert!(stdout.contains("\"inputs\": 2"), "{stdout}");
    assert!(stdout.contains("\"overflow\": 2"), "{stdout}");
    assert!(stdout.contains("\"to\": \"inf\""), "{stdout}");
    let out = tmd(&[
        "search",
        "exp",
        "--format",
        "binary32",
        "--from",
        "-inf",
        "--to",
        "-0x1.fffffcp+127",
        "-q",
        "--stats",
        "/dev/stdout",
    ]);
    let stdout = succeeded(&out);
    assert!(stdout.contains("\"inputs\": 1"), "{stdout}");
    assert!(stdout.contains("\"from\": \"-inf\""), "{stdout}");
    assert_bad_input(
        &["search", "exp", "--from", "inf", "--to", "inf"],
        "holds no",
    );
    assert_bad_input(
        &["search", "exp", "--from", "1", "--to", "-inf"],
        "holds no",
    );
}

#[test]
fn a_second_run_on_the_same_journal_or_checkpoint_is_refused_with_the_first_ones_pid() {
    let dir = scratch("locks");
    let journal = dir.join("journal");
    let checkpoint = dir.join("c.jsonl");
    let long_runs = [
        vec![
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--bits",
            "40",
            "-q",
            "--out",
            "/dev/null",
            "--resume",
            journal.to_str().unwrap(),
        ],
        vec![
            "crunch",
            "std:exp",
            "--from",
            "1",
            "--to",
            "2",
            "-q",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
        ],
    ];
    for args in &long_runs {
        let mut first = Command::new(env!("CARGO_BIN_EXE_tmd"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The first run takes its lock at once; give it time to start.
        std::thread::sleep(std::time::Duration::from_millis(700));
        let out = tmd(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        first.kill().unwrap();
        first.wait().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "in use by another tmd run (process {})",
                first.id()
            )),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_after_hardness_inputs_are_options() {
    let out = tmd(&[
        "hardness", "exp", "1", "--format", "binary32", "-0x1p-2", "--json",
    ]);
    let stdout = succeeded(&out);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        stdout
            .lines()
            .all(|l| l.contains("\"format\":\"binary32\"")),
        "{stdout}"
    );
    assert!(stdout.contains("\"x\":\"-0x1p-2\""), "{stdout}");
    assert_bad_input(
        &["hardness", "exp", "1", "--bogus"],
        "unknown option --bogus",
    );
}

#[test]
fn paths_that_cannot_be_used_are_bad_input_found_before_any_work() {
    let dir = scratch("paths");
    let plain = dir.join("plain");
    std::fs::write(&plain, "x").unwrap();
    let d = dir.to_str().unwrap();
    let missing = dir.join("missing");
    let m = missing.to_str().unwrap();
    let nodir = dir.join("nodir").join("x");
    assert_bad_input(&["hardness", "exp", "--file", m], "no such file");
    assert_bad_input(&["hardness", "exp", "--file", d], "is a directory");
    assert_bad_input(&["crunch-status", m], "no such file");
    assert_bad_input(&["crunch-format", d], "is a directory");
    let crunch = |c: &str| {
        tmd(&[
            "crunch",
            "std:expf",
            "--from",
            "1",
            "--to",
            "2",
            "-q",
            "--checkpoint",
            c,
        ])
    };
    for (path, needle) in [
        (d, "is a directory"),
        (nodir.to_str().unwrap(), "does not exist"),
    ] {
        let out = crunch(path);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(needle) && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
    // A rounded bound's note is not printed when the run is refused: one line only.
    assert_bad_input(
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "1.001",
            "--resume",
            plain.to_str().unwrap(),
        ],
        "not a directory",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_that_would_be_ignored_are_refused() {
    assert_bad_input(
        &[
            "search", "exp", "--from", "1", "--to", "2", "--json", "--out", "x.wc",
        ],
        "a .wc file has a format of its own",
    );
    assert_bad_input(
        &[
            "crunch",
            "std:expf",
            "--function",
            "log",
            "--from",
            "1",
            "--to",
            "2",
        ],
        "--function is for file:, dl: and c: targets",
    );
    // A sample that covers the range is no sample: the report says so by not saying it.
    let out = tmd(&[
        "crunch",
        "std:expf",
        "--from",
        "1",
        "--to",
        "2",
        "--sample",
        "99999999999",
        "--json",
        "-q",
    ]);
    let stdout = succeeded(&out);
    assert!(stdout.contains("\"sample_windows\":null"), "{stdout}");
    assert!(stdout.contains("\"inputs\":8388608"), "{stdout}");
}

#[test]
fn an_interrupted_search_says_how_to_go_on_and_the_same_command_does() {
    let dir = scratch("interrupt");
    let journal = dir.join("journal");
    let args = [
        "search",
        "exp",
        "--from",
        "1",
        "--to",
        "0x1.002p+0",
        "--bits",
        "40",
        "-q",
        "--json",
        "--resume",
        journal.to_str().unwrap(),
    ];
    let first = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = first.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("the same command goes on from there"),
        "{stderr}"
    );
    // The same command finishes the search, with every case a fresh run lists.
    let resumed = tmd(&args);
    assert_eq!(resumed.status.code(), Some(0));
    let fresh = tmd(&args[..10]);
    assert_eq!(resumed.stdout, fresh.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_whose_stderr_is_gone_still_ends_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args([
            "search", "exp", "--from", "1", "--to", "2", "--bits", "40", "-q",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take()); // the reader is gone: writing the message fails
    std::thread::sleep(std::time::Duration::from_millis(500));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("tmd did not end within 10 s of SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(child.wait().unwrap().code(), Some(143), "128 + SIGTERM");
}

/// Malformed invocations a new user tries: each is refused at once with exit 2 and one line.
#[test]
fn malformed_invocations_exit_2_with_one_line() {
    let corpus: &[&[&str]] = &[
        &["search"],
        &["search", "exp"],
        &["search", "exp", "--from", "1"],
        &["search", "exp", "--from", "2", "--to", "1"],
        &["search", "exp", "--from", "1", "--to", "1"],
        &["search", "exp", "--from", "abc", "--to", "2"],
        &["search", "exp", "--from", "nan", "--to", "2"],
        &["search", "exp", "--from", "1e400", "--to", "2"],
        &["search", "exp", "--from", "1", "--to", "2", "--bits", "0"],
        &["search", "exp", "--from", "1", "--to", "2", "--bits", "-3"],
        &[
            "search", "exp", "--from", "1", "--to", "2", "--format", "binary99",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--breakpoints",
            "sideways",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--algorithm",
            "magic",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--chunk-bits",
            "3",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--domain-size",
            "7",
        ],
        &["search", "exp", "--from", "1", "--to", "2", "--kappa", "3"],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--threads",
            "0",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--threads",
            "x",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--backend",
            "tpu",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--max-precision",
            "10",
        ],
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--domains-per-item",
            "7",
        ],
        &["search", "exp", "--from", "1", "--to", "2", "--resume"],
        &["search", "nosuchfn", "--from", "1", "--to", "2"],
        &["search", "exp(", "--from", "1", "--to", "2"],
        &["search", "log", "--from", "-2", "--to", "-1"],
        &["hardness"],
        &["hardness", "exp"],
        &["hardness", "exp", "abc"],
        &["hardness", "exp", "0.1", "--format", "binary32"],
        &["hardness", "nosuchfn", "1"],
        &["crunch"],
        &["crunch", "std:expf"],
        &["crunch", "std:nosuch", "--from", "1", "--to", "2"],
        &["crunch", "nosuch:expf", "--from", "1", "--to", "2"],
        &["crunch", "std:expf", "--from", "2", "--to", "1"],
        &["crunch", "std:expf", "--from", "x", "--to", "2"],
        &[
            "crunch", "std:expf", "--from", "1", "--to", "2", "--format", "binary64",
        ],
        &[
            "crunch",
            "std:expf",
            "--from",
            "1",
            "--to",
            "2",
            "--block-bits",
            "99",
        ],
        &[
            "crunch", "std:expf", "--from", "1", "--to", "2", "--sample", "0",
        ],
        &[
            "crunch",
            "std:expf",
            "--from",
            "1",
            "--to",
            "2",
            "--backend",
            "tpu",
        ],
        &["crunch-status"],
        &["crunch-format", "/etc/passwd"],
        &["functions", "extra"],
        &["nosuchcommand"],
    ];
    for args in corpus {
        let out = tmd(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn hardness_prints_negative_zero_and_signed_poles() {
    let text = succeeded(&tmd(&["hardness", "sin", "-0"]));
    assert!(text.starts_with("sin(-0x0p+0) in binary64\n"), "{text}");
    assert!(text.contains("  y  -0x0p+0   (RN -0x0p+0"), "{text}");
    let text = succeeded(&tmd(&["hardness", "exp", "-0"]));
    assert!(text.starts_with("exp(-0x0p+0)"), "{text}");
    let json = succeeded(&tmd(&["hardness", "sin", "-0", "--json"]));
    assert!(
        json.contains("\"x\":\"-0x0p+0\",\"y\":\"-0x0p+0\""),
        "{json}"
    );

    let json = succeeded(&tmd(&["hardness", "1/x", "0", "-0", "--json"]));
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("\"y\":\"inf\",\"rn\":\"inf\""), "{json}");
    assert!(lines[0].ends_with("\"kind\":\"pole\"}"), "{json}");
    assert!(
        lines[1].contains("\"x\":\"-0x0p+0\",\"y\":\"-inf\""),
        "{json}"
    );
    let text = succeeded(&tmd(&["hardness", "log", "0"]));
    assert!(text.contains("  y  -inf"), "{text}");
    assert!(text.contains("kind pole"), "{text}");
    // digamma's one-sided limits at -1 differ: a pole without a sign, and no y.
    let json = succeeded(&tmd(&["hardness", "digamma", "-1", "--json"]));
    assert!(
        json.contains("\"kind\":\"pole\"") && !json.contains("\"y\""),
        "{json}"
    );
    // A NaN result stays undefined.
    let text = succeeded(&tmd(&["hardness", "log", "-1"]));
    assert!(text.contains("kind undefined"), "{text}");
}

#[test]
fn plan_lists_pieces_with_methods_and_projected_times() {
    // exp over [2^-70, 2^-60) at K = 45: within 2^-18 ulp of 1 and far from every midpoint,
    // so the rule decides every binade; [1, 1 + 2^-20) is searched by the filter.
    let out = tmd(&[
        "search", "exp", "--from", "0x1p-70", "--to", "0x1p-60", "--bits", "45", "--plan", "--json",
    ]);
    let stdout = succeeded(&out);
    let pieces: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!pieces.is_empty());
    let inputs: u64 = pieces.iter().map(|p| p["inputs"].as_u64().unwrap()).sum();
    assert_eq!(inputs, 10 << 52, "the pieces tile the range");
    for p in &pieces {
        assert_eq!(p["method"], "rule: none hard", "{p}");
        assert_eq!(p["projected_seconds"], 0.0, "{p}");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("decided by the rule"), "{stderr}");
    let out = tmd(&[
        "search",
        "exp",
        "--from",
        "1",
        "--to",
        "0x1.00001p+0",
        "--bits",
        "40",
        "--plan",
        "--json",
    ]);
    let stdout = succeeded(&out);
    let piece: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(piece["method"], "filter");
    assert!(piece["projected_seconds"].as_f64().unwrap() > 0.0);
    // Huge binary32 arguments of sin: no chunk polynomial, the per-input screen.
    let screened = tmd(&[
        "search", "sin", "--format", "binary32", "--from", "0x1p20", "--to", "0x1p21", "--plan",
        "--json",
    ]);
    let line = succeeded(&screened);
    let screened: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(screened["method"], "screen per input", "{screened}");
    // Timed on windows of one chunk of the search each, or the whole piece where it is
    // shorter (these 2^32 inputs: one place), never more than the piece; the sampled search
    // walks a bounded part of each window.
    let sampled = piece["sample_inputs"].as_u64().unwrap();
    assert!(
        (1 << 24..=1 << 32).contains(&sampled),
        "samples of 2^24 inputs or more, at most the piece's 2^32: {sampled}"
    );
    assert!(piece["sample_seconds"].as_f64().unwrap() < 5.0, "{piece}");
    assert_bad_input(
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "2",
            "--plan",
            "--algorithm",
            "reference",
        ],
        "--plan projects the filtered algorithms",
    );
    assert_bad_input(
        &[
            "search", "exp", "--from", "1", "--to", "2", "--plan", "--out", "x.wc",
        ],
        "cannot be used with",
    );
}

/// Tiny inputs of sin, where a rule proves every input hard: one range record per piece in
/// every output format (a `.wc` comment line), and `--expand-ranges` lists the same inputs one
/// by one.
#[test]
fn rule_pieces_are_listed_as_range_records() {
    let dir = scratch("range_records");
    let common = [
        "search", "sin", "--format", "binary32", "--bits", "24", "-q", "--from", "0x1p-100",
    ];
    let with = |extra: &[&str]| {
        let mut a = common.to_vec();
        a.extend_from_slice(extra);
        tmd(&a)
    };
    let json = succeeded(&with(&["--to", "0x1p-98", "--json"]));
    let records: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!records.is_empty(), "{json}");
    let mut inputs = 0;
    for r in &records {
        assert_eq!(r["record"], "range", "{r}");
        assert_eq!(r["kind"], "directed", "{r}");
        assert_eq!(r["rule"], "next-to-x", "{r}");
        assert!(r["bits_at_least"].as_f64().unwrap() > 24.0, "{r}");
        inputs += r["inputs"].as_u64().unwrap();
    }
    assert_eq!(records[0]["x_from"], "0x1p-100");
    assert_eq!(records.last().unwrap()["x_to"], "0x1.fffffep-99");
    assert_eq!(inputs, 1 << 24, "two binades of 2^23 inputs");
    let wc = dir.join("sin.wc");
    succeeded(&with(&["--to", "0x1p-98", "--out", wc.to_str().unwrap()]));
    let text = std::fs::read_to_string(&wc).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("# range 0x1p-100 ") && l.contains("rule=next-to-x")),
        "{text}"
    );
    assert!(text.lines().all(|l| l.starts_with('#')), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("# made 20") && l.ends_with(" UTC")),
        "{text}"
    );
    assert!(text.contains("are '# range' lines"), "{text}");
    // A window of 4096 inputs, expanded: one JSON line per input, all hard and directed.
    let expanded = succeeded(&with(&[
        "--to",
        "0x1.002p-100",
        "--json",
        "--expand-ranges",
    ]));
    assert_eq!(expanded.lines().count(), 4096);
    assert!(expanded
        .lines()
        .all(|l| l.contains("\"kind\":\"directed\"")));
}

/// A search whose journal holds range records, killed after a checkpoint and resumed, prints
/// what an uninterrupted run prints (the records rebuilt from the rule).
#[test]
fn resume_after_kill_keeps_the_range_records() {
    kill_after_a_range_then_resume("resume_ranges", &[]);
}

/// A journal does not belong to a backend: a run killed on the CPU backend and finished on
/// OpenCL (PoCL here) prints what an uninterrupted CPU run prints, range records included.
#[test]
fn a_run_killed_on_the_cpu_is_finished_on_opencl_with_the_same_output() {
    kill_after_a_range_then_resume("resume_on_opencl", &["--backend", "opencl"]);
}

/// Runs binary32 sin over [-2^-4, 8) with a journal on the CPU backend, kills it (SIGKILL)
/// once a checkpoint holds a range record, resumes it with `resume_with` added to the
/// command, and checks the output against an uninterrupted run on the CPU.
fn kill_after_a_range_then_resume(name: &str, resume_with: &[&str]) {
    let dir = scratch(name);
    let journal = dir.join("journal");
    let args = |out: &PathBuf, journal: Option<&PathBuf>| -> Vec<String> {
        let mut a: Vec<String> = [
            "search",
            "sin",
            "--format",
            "binary32",
            "--bits",
            "24",
            "--from",
            "-0x1p-4",
            "--to",
            "0x1p+3",
            "--threads",
            "1",
            "--json",
            "-q",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.push(out.display().to_string());
        if let Some(j) = journal {
            a.extend(["--resume".to_string(), j.display().to_string()]);
        }
        a
    };
    let out = dir.join("resumed.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&out, Some(&journal)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once a checkpoint holds a range record: the tiny negative inputs come after
    // [-2^-4, -2^-12), and [2^-12, 8) is left to search for some seconds.
    let journal_file = journal.join("journal.tmd");
    let started = std::time::Instant::now();
    let holds_a_committed_range = |t: &str| {
        t.lines()
            .skip_while(|l| !l.starts_with("r "))
            .any(|l| l.starts_with("k "))
    };
    while !std::fs::read_to_string(&journal_file).is_ok_and(|t| holds_a_committed_range(&t)) {
        assert!(started.elapsed().as_secs() < 120, "no range checkpointed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let finished_first = out.exists();
    let killed_with = std::fs::read_to_string(&journal_file).unwrap();
    assert!(
        !killed_with.lines().any(|l| l.starts_with("end ")),
        "the run ended before the kill: {killed_with}"
    );
    let mut resume_args = args(&out, Some(&journal));
    resume_args.extend(resume_with.iter().map(|s| s.to_string()));
    let resumed = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(&resume_args)
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(
        String::from_utf8_lossy(&resumed.stderr).contains("resuming"),
        "{resumed:?}"
    );
    let whole = dir.join("whole.jsonl");
    succeeded(&tmd(&args(&whole, None)
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()));
    let (a, b) = (
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&whole).unwrap(),
    );
    assert!(a.contains("\"record\":\"range\""), "{a}");
    assert_eq!(
        a, b,
        "resumed output differs from the uninterrupted one (first run finished: {finished_first})"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn resume_with_a_changed_case_line_is_refused_not_dropped() {
    // One digit of a case changed in the journal of a finished search: the case still parsed,
    // the resumed run dropped it (MPFR found it not hard) and reported the old counts.
    let dir = scratch("journal-digit");
    let journal = dir.join("journal");
    let args = |j: &std::path::Path| -> Vec<String> {
        let j = j.display().to_string();
        [
            "search", "sin", "--from", "1", "--to", "1.125", "--format", "binary32", "--bits",
            "20", "-q", "--resume", &j,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let first = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&journal))
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0));
    let file = journal.join("journal.tmd");
    let text = std::fs::read_to_string(&file).unwrap();
    let case = text
        .lines()
        .find(|l| l.starts_with("c "))
        .expect("a case line");
    let ordinal = case.split(' ').nth(1).unwrap();
    let last = ordinal.chars().last().unwrap();
    let other = if last == '9' {
        '8'
    } else {
        (last as u8 + 1) as char
    };
    let changed = format!("{}{other}", &ordinal[..ordinal.len() - 1]);
    let damaged_line = case.replacen(ordinal, &changed, 1);
    std::fs::write(&file, text.replacen(case, &damaged_line, 1)).unwrap();
    let args = args(&journal);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_bad_input(&args, "corrupt journal");
    let _ = std::fs::remove_dir_all(&dir);
}
