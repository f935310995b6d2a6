//! Memory stays bounded whatever the range: searches where nearly every input is listed, and
//! `tmd hardness --file` on a long list, run under a 4 GiB address-space limit (`ulimit -v`).
//! Each used to abort allocating gigabytes before listing anything.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// The address-space limit of these runs, in KiB (`ulimit -v`).
const LIMIT_KIB: u64 = 4 << 20;

/// Starts `tmd ARGS` under the limit (and a 60 s timeout), reads the first `count` lines of
/// its stdout, then ends it. Returns the lines, and whether it was still running (not dead of
/// a failed allocation) once they had come.
fn first_lines_under_limit(args: &[&str], count: usize) -> (Vec<String>, bool) {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {LIMIT_KIB}; exec timeout 60 \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let reader = BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<String> = reader.lines().take(count).map(Result::unwrap).collect();
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    (lines, running)
}

/// The input of a table line: its sign and its significand bits (as hexadecimal after
/// `0x1.`), and its exponent, all the lines of these tests having one.
fn input(line: &str) -> (bool, u64, String) {
    let x = line.split_whitespace().next().unwrap();
    let (neg, x) = match x.strip_prefix('-') {
        Some(x) => (true, x),
        None => (false, x),
    };
    let (mantissa, exponent) = x.strip_prefix("0x1").unwrap().split_once('p').unwrap();
    let digits = mantissa.strip_prefix('.').unwrap_or("");
    let bits = if digits.is_empty() {
        0
    } else {
        u64::from_str_radix(&format!("{digits:0<13}"), 16).unwrap()
    };
    (neg, bits, exponent.to_string())
}

/// Whether the lines' inputs are consecutive binary64 numbers of one binade, moving away from
/// zero: no input between two listed ones is left out.
fn consecutive(lines: &[String]) -> bool {
    lines.windows(2).all(|w| {
        let (a, b) = (input(&w[0]), input(&w[1]));
        a.0 == b.0 && a.2 == b.2 && b.1 == a.1 + 1
    }) || lines.windows(2).all(|w| {
        let (a, b) = (input(&w[0]), input(&w[1]));
        a.0 == b.0 && a.2 == b.2 && b.1 + 1 == a.1
    })
}

#[test]
fn exp_at_k_1_lists_every_input_as_it_goes_under_a_memory_limit() {
    // At K = 1 every input is hard: a packet of 2^38 inputs held them all as candidates, and
    // the chunk's 2^22 cases were held until it ended.
    let count = 100_000;
    let (lines, running) = first_lines_under_limit(
        &[
            "search", "exp", "--from", "1", "--to", "2", "--bits", "1", "-q",
        ],
        count + 1,
    );
    assert_eq!(lines.len(), count + 1, "the search ended early");
    assert!(running, "the search died");
    let cases = &lines[1..];
    assert!(cases[0].starts_with("0x1p+0 "), "{}", cases[0]);
    assert!(consecutive(cases), "an input is missing");
}

#[test]
fn exp_below_the_underflow_threshold_lists_its_run_of_hard_inputs_under_a_memory_limit() {
    // exp's subnormal results cross the midpoint 2^-1075 so slowly that 2^25 inputs in a row
    // are hard at K = 20: they were all held before the first was printed (3.4 GB).
    let count = 150_000;
    let (lines, running) = first_lines_under_limit(
        &[
            "search", "exp", "--from", "-746", "--to", "-745", "--bits", "20", "-q",
        ],
        count + 1,
    );
    assert_eq!(lines.len(), count + 1, "the search ended early");
    assert!(running, "the search died");
    let cases = &lines[1..];
    assert!(consecutive(cases), "an input is missing");
    // The run starts where the distance to the midpoint drops below 2^-20 ulp: the input just
    // before the first listed one is not hard.
    let first = cases[0].split_whitespace().next().unwrap();
    let (neg, bits, exponent) = input(first);
    assert!(neg);
    let before = format!("-0x1.{:013x}p{exponent}", bits + 1);
    let out = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(["hardness", "exp", &before, first, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    // k, not the printed bits: bits > 20 exactly when k >= 19 (bits lies in (k + 1, k + 2]).
    let k_of = |line: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["k"].as_u64().unwrap()
    };
    let mut lines = text.lines();
    assert!(k_of(lines.next().unwrap()) <= 18, "{text}");
    assert!(k_of(lines.next().unwrap()) >= 19, "{text}");
}

#[test]
fn hardness_file_is_streamed() {
    // The list comes through a pipe that stays open: the whole file was read (and all its
    // inputs and outcomes held: 1.9 GB for 10 million lines) before the first line was
    // printed, so nothing came out here. Now lines come out as the list goes in.
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {LIMIT_KIB}; exec timeout 60 \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_tmd"))
        .args(["hardness", "exp", "--file", "/dev/stdin", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text: String = (0..3 * 4096)
        .map(|i| format!("0x1.{:013x}p+0\n", i % 4 + 1))
        .collect();
    // Written from a thread of its own, which keeps the pipe open until the lines have been
    // read: tmd's output fills its pipe while its input is written.
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
        let _ = input.flush();
        let _ = wait.recv();
    });
    let count = 2 * 4096;
    let reader = BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<String> = reader.lines().take(count).map(Result::unwrap).collect();
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    let _ = done.send(());
    writer.join().unwrap();
    assert_eq!(
        lines.len(),
        count,
        "nothing printed while the list was still coming"
    );
    assert!(running);
    for (i, line) in lines.iter().enumerate() {
        let expected = format!("\"x\":\"0x1.{:013x}p+0\"", i % 4 + 1);
        assert!(line.contains(&expected), "line {i}: {line}");
    }
}

#[test]
fn a_crunch_of_a_huge_range_starts_under_a_memory_limit() {
    // [1, 2) in blocks of 2^20 inputs is 2^32 blocks: they were all listed before the first
    // was crunched (as [-700, 700] in blocks of 2^32: 8 GB after 15 s, then the
    // out-of-memory killer). tmd itself is the child (no `timeout` between), so that the kill
    // below ends it: its output goes nowhere, and nothing else would stop it.
    let dir = std::env::temp_dir().join(format!("tmd-memory-crunch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("exp.ckpt");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_tmd"))
        .args(["crunch", "std:exp", "--from", "1", "--to", "2"])
        .args(["--block-bits", "20", "-q", "--checkpoint"])
        .arg(&checkpoint)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let blocks = || {
        std::fs::read_to_string(&checkpoint)
            .map(|t| t.lines().count().saturating_sub(1))
            .unwrap_or(0)
    };
    while blocks() < 4 && child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 50 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let running = child.try_wait().unwrap().is_none();
    let finished = blocks();
    let _ = child.kill();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(finished >= 4, "{finished} blocks finished in 50 s");
    assert!(running, "the crunch died");
}
