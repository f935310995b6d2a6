//! `tmd crunch`, `crunch-status` and `crunch-format` as a user meets them: the JSON
//! report's fields, plots, estimates, resuming after kill -9, and bad input (one line on
//! stderr, exit code 2).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-crunch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json_report(args: &[&str]) -> Value {
    let out = tmd(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The report without what legitimately differs between runs and backends.
fn comparable(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("blocks_resumed");
    o.remove("note");
    v
}

fn assert_bad_input(args: &[&str], needle: &str) {
    let out = tmd(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: '{needle}' not in {stderr}"
    );
}

#[test]
fn json_report_has_the_required_fields() {
    // [-104, 90) without (-64, 64): subnormal results below -87.3, overflow above 88.72.
    let v = json_report(&[
        "crunch", "std:expf", "--from", "-104", "--to", "-64", "--json", "-q",
    ]);
    let w = json_report(&[
        "crunch", "std:expf", "--from", "64", "--to", "90", "--json", "-q",
    ]);
    for field in [
        "target",
        "format",
        "from",
        "to",
        "inputs",
        "max_ulp",
        "argmax",
        "correctly_rounded",
        "faithful",
        "worse",
        "specials",
        "histogram",
    ] {
        assert!(v.get(field).is_some(), "missing {field}: {v}");
    }
    let inputs = v["inputs"].as_u64().unwrap();
    let classes = ["correctly_rounded", "faithful", "worse"].map(|k| v[k].as_u64().unwrap());
    assert_eq!(classes.iter().sum::<u64>(), inputs);
    assert_eq!(inputs, 40 << 17);
    assert!(v["specials"]["subnormal"].as_u64().unwrap() > 0);
    assert!(w["specials"]["overflow"].as_u64().unwrap() > 0);
    assert_eq!(w["specials"]["overflow_wrong"].as_u64().unwrap(), 0);
    assert!(
        v["argmax"].as_str().unwrap().starts_with("0x")
            || v["argmax"].as_str().unwrap().starts_with("-0x")
    );
    assert!(v["max_verified"].as_bool().unwrap());
}

#[test]
fn resume_after_kill_gives_the_uninterrupted_report() {
    let dir = scratch("resume");
    let cp = dir.join("sinf.jsonl");
    let args = [
        "crunch",
        "std:sinf",
        "--from",
        "0x1p-4",
        "--to",
        "0x1p+4",
        "--block-bits",
        "16",
        "--json",
        "-q",
    ];
    let reference = comparable(json_report(&args));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .args(["--threads", "1", "--checkpoint", cp.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&cp)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 4 || t0.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the run finished before it could be killed"
    );
    let status_out = tmd(&["crunch-status", cp.to_str().unwrap()]);
    assert!(status_out.status.success());
    let text = String::from_utf8_lossy(&status_out.stdout);
    assert!(text.contains("blocks done"), "{text}");
    let mut resumed_args = args.to_vec();
    resumed_args.extend(["--checkpoint", cp.to_str().unwrap()]);
    let resumed = json_report(&resumed_args);
    assert!(
        resumed["blocks_resumed"].as_u64().unwrap() >= 3,
        "{resumed}"
    );
    assert_eq!(comparable(resumed), reference);
    // Running it again resumes every block and reports the same.
    let again = json_report(&resumed_args);
    assert_eq!(again["blocks_resumed"], again["blocks"]);
    assert_eq!(comparable(again), reference);
    // crunch-format: one line per block plus the header.
    let tsv = tmd(&["crunch-format", cp.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&tsv.stdout);
    assert_eq!(
        text.lines().count() as u64,
        reference["blocks"].as_u64().unwrap() + 1
    );
    assert!(text.lines().nth(1).unwrap().split('\t').count() == 10);
}

#[test]
fn plot_and_estimate() {
    let dir = scratch("plot");
    let svg = dir.join("expf.svg");
    let out = tmd(&[
        "crunch",
        "libm:expf",
        "--from",
        "1",
        "--to",
        "10",
        "--block-bits",
        "18",
        "-q",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") && text.contains("<circle"),
        "not a plot"
    );
    let est = json_report(&[
        "crunch",
        "std:expf",
        "--from",
        "-0x1p+7",
        "--to",
        "0x1p+7",
        "--estimate",
        "--json",
    ]);
    assert!(est["inputs_per_second"].as_f64().unwrap() > 0.0);
    assert!(est["projected_seconds"].as_f64().unwrap() > 0.0);
    assert!(est["sample_inputs"].as_u64().unwrap() < est["inputs"].as_u64().unwrap());
}

#[test]
fn list_names_every_source() {
    let out = tmd(&["crunch", "--list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "std:expf",
        "libm:exp",
        "xfloat:sin",
        "emul:vrecpe-nrN",
        "emul:rcpps-nrNf",
        "glibc:NAMEf128",
        "quadmath:NAMEq",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name}\t"))),
            "{name} not listed"
        );
    }
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let base = |t: &'static str| vec!["crunch", t, "--from", "1", "--to", "2"];
    assert_bad_input(&base("std:nosuch"), "unknown crunch target");
    assert_bad_input(&base("nosource:expf"), "unknown crunch target");
    assert_bad_input(&base("cuda:expf"), "add --backend cuda");
    assert_bad_input(&base("opencl:expf"), "add --backend opencl");
    let mut b = base("std:expf");
    b.extend(["--backend", "opencl"]);
    assert_bad_input(&b, "on the opencl backend");
    let mut b = base("std:expf");
    b.extend(["--backend", "cuda"]);
    assert_bad_input(&b, "on the cuda backend");
    let mut b = base("cuda:nosuchf");
    b.extend(["--backend", "cuda"]);
    assert_bad_input(&b, "not a CUDA math function");
    let mut b = base("std:expf");
    b.extend(["--format", "binary64"]);
    assert_bad_input(&b, "binary32 function");
    assert_bad_input(
        &["crunch", "std:expf", "--from", "1", "--to", "1e39"],
        "beyond the largest finite",
    );
    assert_bad_input(
        &["crunch", "std:expf", "--from", "2", "--to", "1"],
        "empty range",
    );
    assert_bad_input(
        &["crunch", "std:expf", "--from", "x", "--to", "1"],
        "--from",
    );
    let dir = scratch("bad");
    let garbage = dir.join("garbage");
    std::fs::write(&garbage, "hello\n").unwrap();
    let mut b = base("std:expf");
    b.extend(["--checkpoint", garbage.to_str().unwrap()]);
    assert_bad_input(&b, "not a crunch checkpoint");
    assert_bad_input(
        &["crunch-status", garbage.to_str().unwrap()],
        "not a crunch checkpoint",
    );
    assert_bad_input(
        &["crunch-format", garbage.to_str().unwrap()],
        "not a crunch checkpoint",
    );
    let foreign = dir.join("foreign");
    let mut b = base("std:expf");
    b.extend(["--checkpoint", foreign.to_str().unwrap(), "-q"]);
    assert!(tmd(&b).status.success());
    let mut b = base("libm:expf");
    b.extend(["--checkpoint", foreign.to_str().unwrap()]);
    assert_bad_input(&b, "belongs to another run");
}

#[test]
fn opencl_backend_gives_the_cpu_report_bit_for_bit() {
    // The emulation exists on both backends: same results, hence the same report.
    for (target, from, to) in [
        ("emul:vrecpe-nr3", "1", "0x1.00000001p+0"),
        ("emul:vrecpe-nr1", "-0x1.00000008p-1000", "-0x1p-1000"),
        ("emul:vrecpe-nr2f", "0x1p-130", "0x1p-125"),
        ("emul:vrecpe-nr2f", "0x1p+0", "0x1p+2"),
    ] {
        // The same blocks on both (a device's binary32 default is larger).
        let args = [
            "crunch",
            target,
            "--from",
            from,
            "--to",
            to,
            "--json",
            "-q",
            "--block-bits",
            "20",
        ];
        let cpu = json_report(&args);
        let mut ocl_args = args.to_vec();
        ocl_args.extend(["--backend", "opencl"]);
        let ocl = json_report(&ocl_args);
        assert!(ocl["note"].as_str().unwrap().contains("OpenCL device"));
        assert_eq!(comparable(ocl), comparable(cpu), "{target}");
    }
}

/// Binary64 targets of exp, recip and sqrt are analysed on the device
/// (kernels/crunch_analyse.cl); the report equals the one analysed on the host, on windows
/// where every rule fires: ordinary results, the saturation regions of exp (overflow from
/// 0x1.62e42fefa39fp+9, f below 2^-1100), subnormal and zero results, sqrt's NaN domain and
/// subnormal inputs, and results the fast path leaves to MPFR.
#[test]
fn device_analysis_equals_host_analysis() {
    for (target, from, to) in [
        ("opencl:exp", "1", "0x1.00000001p+0"),
        ("opencl:exp", "-0x1.00000001p+3", "-0x1p+3"),
        ("opencl:exp", "0x1.62e42fefa38p+9", "0x1.62e42fefa3ap+9"),
        ("opencl:exp", "-0x1.6232bdd7abcd3p+9", "-0x1.6232bdd7ab9p+9"),
        (
            "opencl:exp",
            "-0x1.74910d52d3051p+9",
            "-0x1.74910d52d2f51p+9",
        ),
        ("opencl:exp", "-0x1.8p+9", "-0x1.7ffffffffp+9"),
        ("opencl:exp", "-0x1p-1060", "0x1p-1060"),
        ("opencl:sqrt", "-0x1p-1065", "0x1p-1065"),
        ("opencl:sqrt", "0x1.fffffffp+1", "0x1.00000001p+2"),
        ("emul:vrecpe-nr1", "0x1.fffffffp-1", "0x1.00000001p+0"),
    ] {
        let args = [
            "crunch",
            target,
            "--from",
            from,
            "--to",
            to,
            "--backend",
            "opencl",
            "--json",
            "-q",
        ];
        let device = json_report(&args);
        let mut host_args = args.to_vec();
        host_args.push("--host-analysis");
        let host = json_report(&host_args);
        assert!(
            device["note"].as_str().unwrap().contains("analysed there"),
            "{target}: {}",
            device["note"]
        );
        assert!(host["note"].as_str().unwrap().contains("on the host"));
        assert!(device["inputs"].as_u64().unwrap() > 0);
        assert_eq!(
            comparable(device),
            comparable(host),
            "{target} [{from}, {to})"
        );
    }
}

/// Binary32 targets of functions with a binary32 device reference are analysed on the device
/// against a double-double reference (kernels/crunch_analyse.cl with CRUNCH_BINARY32); the
/// CPU's binary32 analysis uses a binary64 reference, so the two send different inputs to
/// MPFR (`mpfr_inputs`), but every decision is exact and the maximum is recomputed by MPFR:
/// the reports are otherwise equal. Windows where every rule fires: overflow (exp beyond
/// 88.72, and results the fast path leaves to MPFR just below), subnormal and zero results
/// (exp below -87.3 and at -2^127), log's NaN domain, its pole at 0 and subnormal inputs,
/// arguments around 1, pi/2 and 2^-4, and huge ones (Payne-Hanek for 2^100 and 2^127); expm1's
/// overflow, log1p's NaN domain and pole at -1, atan, sinh just below its overflow.
#[test]
fn binary32_device_analysis_equals_host_analysis() {
    let windows: &[(&str, &str, &str)] = &[
        ("opencl:expf", "0x1.62p+6", "0x1.63p+6"),
        ("opencl:expf", "0x1.fep+6", "0x1.02p+7"),
        ("opencl:expf", "-0x1.5dp+6", "-0x1.5cp+6"),
        ("opencl:expf", "-0x1.ap+6", "-0x1.9ep+6"),
        ("opencl:expf", "-0x1.02p+127", "-0x1p+127"),
        ("opencl:expf", "0x1p+0", "0x1.02p+0"),
        ("opencl:expf", "-0x1.02p-12", "-0x1p-12"),
        ("opencl:logf", "-0x1p-140", "0x1p-140"),
        ("opencl:logf", "0x1p-146", "0x1p-126"),
        ("opencl:logf", "0x1.fcp-1", "0x1.04p+0"),
        ("opencl:logf", "-0x1.02p+3", "-0x1p+3"),
        ("opencl:logf", "0x1.fep+127", "0x1.fffffep+127"),
        ("opencl:sinf", "0x1p+100", "0x1.02p+100"),
        ("opencl:sinf", "0x1.9p+0", "0x1.94p+0"),
        ("opencl:sinf", "0x1.fep+127", "0x1.fffffep+127"),
        ("opencl:sinf", "-0x1.02p-4", "-0x1p-4"),
        ("opencl:cosf", "0x1p+100", "0x1.02p+100"),
        ("opencl:cosf", "0x1.9p+0", "0x1.94p+0"),
        ("opencl:cosf", "-0x1.02p-4", "-0x1p-4"),
        ("opencl:tanf", "0x1p+100", "0x1.02p+100"),
        ("opencl:tanf", "0x1.9p+0", "0x1.94p+0"),
        ("opencl:tanf", "-0x1.02p-4", "-0x1p-4"),
        ("opencl:native_sinf", "0x1.8p+1", "0x1.84p+1"),
        ("opencl:sqrtf", "-0x1p-140", "0x1p-140"),
        ("emul:vrecpe-nr1f", "0x1.fcp-1", "0x1.04p+0"),
        // the quad-word-based references
        ("opencl:expm1f", "0x1.fep+6", "0x1.02p+7"),
        ("opencl:log1pf", "-0x1.0000fep+0", "-0x1.fffffep-1"),
        ("opencl:atanf", "0x1p+0", "0x1.02p+0"),
        ("opencl:sinhf", "0x1.62p+6", "0x1.63p+6"),
    ];
    // Each target is two programs (evaluation, analysis) that PoCL compiles anew on a fresh
    // machine, a few seconds apiece: the fast tier checks the targets of each kind of
    // reference (exp, log, sin with its Payne-Hanek reduction, sqrt, the emulation, a
    // quad-word one), the large tier every one.
    let fast = [
        "opencl:expf",
        "opencl:logf",
        "opencl:sinf",
        "opencl:sqrtf",
        "emul:vrecpe-nr1f",
        "opencl:expm1f",
    ];
    for &(target, from, to) in windows {
        if !tmd_test_tier::extensive() && !fast.contains(&target) {
            continue;
        }
        let args = [
            "crunch",
            target,
            "--from",
            from,
            "--to",
            to,
            "--backend",
            "opencl",
            "--json",
            "-q",
        ];
        let device = json_report(&args);
        let mut host_args = args.to_vec();
        host_args.push("--host-analysis");
        let host = json_report(&host_args);
        let what = format!("{target} [{from}, {to})");
        assert!(
            device["note"].as_str().unwrap().contains("analysed there"),
            "{what}: {}",
            device["note"]
        );
        assert!(device["inputs"].as_u64().unwrap() > 0, "{what}");
        // A truncated near-max list keeps other inputs per reference (the report then gives
        // the error of one of them, exact, and a bound); these windows keep them all, except
        // where every error is 0 (exp at -2^127: the zero-result rule on both sides).
        if device["max_ulp"].as_f64().is_some_and(|m| m > 0.0) {
            assert_eq!(device["max_verified"], true, "{what}");
        }
        let without_mpfr = |v: Value| {
            let mut v = comparable(v);
            v.as_object_mut().unwrap().remove("mpfr_inputs");
            v
        };
        assert_eq!(without_mpfr(device), without_mpfr(host), "{what}");
    }
}

/// The binary32 analysis runs on the device: launches of `crunch_analyse` are traced, and
/// over exp's overflow region (2^30 inputs for the host otherwise) the host decides only
/// the inputs left to MPFR.
#[test]
fn binary32_analysis_runs_on_the_device() {
    let (out, stderr) = traced_device_run(&[
        "crunch",
        "opencl:expf",
        "--from",
        "0x1.62p+6",
        "--to",
        "0x1.7p+6",
        "--backend",
        "opencl",
        "--json",
        "-q",
    ]);
    let launch = stderr
        .lines()
        .find(|l| l.contains("tmd-trace: analyse"))
        .unwrap_or_else(|| panic!("no device analysis traced: {stderr}"));
    let undecided: u64 = launch
        .split(", ")
        .find_map(|part| part.strip_suffix(" undecided"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{launch}"));
    let device: Value = serde_json::from_slice(&out).expect("one JSON object");
    let inputs = device["inputs"].as_u64().unwrap();
    assert_eq!(inputs, 0x70000);
    assert!(device["specials"]["overflow"].as_u64().unwrap() > inputs / 2);
    assert!(
        undecided < inputs / 8,
        "{undecided} of {inputs} left to the host"
    );
}

/// `tmd ARGS` with the device trace on: its stdout and stderr, after checking that it succeeded.
fn traced_device_run(args: &[&str]) -> (Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .env("TMD_TRACE_DEVICE", "1")
        .output()
        .expect("tmd runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (out.stdout, stderr)
}

/// A batch where every input is a near-max candidate (exp at 2^-600: every error far below
/// the window) overflows the device's list; the relaunch with a candidate floor gives the
/// host analysis's report.
#[test]
fn overflowing_candidate_list_is_relaunched_with_a_floor() {
    let args = [
        "crunch",
        "opencl:exp",
        "--from",
        "0x1p-600",
        "--to",
        "0x1.0000000030000p-600",
        "--backend",
        "opencl",
        "--json",
        "-q",
    ];
    let (out, stderr) = traced_device_run(&args);
    assert!(
        stderr.contains("launch 2") && !stderr.contains("launch 3"),
        "one relaunch expected: {stderr}"
    );
    let device: Value = serde_json::from_slice(&out).expect("one JSON object");
    let mut host_args = args.to_vec();
    host_args.push("--host-analysis");
    let host = json_report(&host_args);
    assert_eq!(device["inputs"].as_u64(), Some(0x30000));
    assert_eq!(comparable(device), comparable(host));
}

/// A batch where every error ties (exp of binary32 inputs below about -848: every result a
/// correctly rounded 0 whose error, e^x in ulps of 2^-149, is 0 in binary64) overflows the
/// list under every floor; the relaunch lists the tied inputs only below a cut, stays on the
/// device, and gives the host analysis's report.
#[test]
fn tied_candidate_errors_are_cut_on_the_device() {
    let args = [
        "crunch",
        "opencl:expf",
        "--from",
        "-0x1.08p+10",
        "--to",
        "-0x1p+10",
        "--backend",
        "opencl",
        "--json",
        "-q",
    ];
    let (out, stderr) = traced_device_run(&args);
    assert!(
        !stderr.contains("given to the host") && !stderr.contains("launch 4"),
        "the batch should stay on the device: {stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("launch 2") && !l.contains("cut at 9223372036854775807")),
        "a relaunch with a cut expected: {stderr}"
    );
    let device: Value = serde_json::from_slice(&out).expect("one JSON object");
    let mut host_args = args.to_vec();
    host_args.push("--host-analysis");
    let host = json_report(&host_args);
    assert_eq!(device["inputs"].as_u64(), Some(0x40000));
    assert_eq!(device["max_ulp"].as_f64(), Some(0.0));
    let without_mpfr = |v: Value| {
        let mut v = comparable(v);
        v.as_object_mut().unwrap().remove("mpfr_inputs");
        v
    };
    assert_eq!(without_mpfr(device), without_mpfr(host));
}

#[test]
fn opencl_builtins_and_snippets() {
    let dir = scratch("snippet");
    let builtin = json_report(&[
        "crunch",
        "opencl:expf",
        "--from",
        "1",
        "--to",
        "4",
        "--backend",
        "opencl",
        "--json",
        "-q",
    ]);
    let m = builtin["max_ulp"].as_f64().unwrap();
    assert!(
        m > 0.0 && m < 4.0,
        "OpenCL's expf within its 3-ulp requirement: {m}"
    );
    // A snippet that calls the same built-in gives the same report.
    let snippet = dir.join("expf.cl");
    std::fs::write(
        &snippet,
        "DEVICE_FN float crunch_target(float x) { return exp(x); }\n",
    )
    .unwrap();
    let spec = format!("file:{}", snippet.display());
    let from_file = json_report(&[
        "crunch",
        &spec,
        "--function",
        "exp",
        "--from",
        "1",
        "--to",
        "4",
        "--backend",
        "opencl",
        "--json",
        "-q",
    ]);
    let strip = |mut v: Value| {
        let o = v.as_object_mut().unwrap();
        o.remove("target");
        comparable(v)
    };
    assert_eq!(strip(from_file), strip(builtin));
    // A snippet that does not compile, or whose function is not given, is bad input.
    let broken = dir.join("broken.cl");
    std::fs::write(
        &broken,
        "DEVICE_FN float crunch_target(float x) { return x +; }\n",
    )
    .unwrap();
    let spec = format!("file:{}", broken.display());
    // (PoCL's compiler also writes its own diagnostics to stderr: only our line is checked.)
    let out = tmd(&[
        "crunch",
        &spec,
        "--function",
        "exp",
        "--from",
        "1",
        "--to",
        "2",
        "--backend",
        "opencl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("tmd: ") && l.contains("does not compile")),
        "{stderr}"
    );
    let spec = format!("file:{}", snippet.display());
    assert_bad_input(
        &[
            "crunch",
            &spec,
            "--from",
            "1",
            "--to",
            "2",
            "--backend",
            "opencl",
        ],
        "--function",
    );
}

#[test]
fn binary32_blocks_are_2_to_the_20_on_the_cpu_and_2_to_the_24_on_a_device() {
    let common = ["--from", "1", "--to", "1.5", "--json", "-q"];
    let mut cpu = vec!["crunch", "std:expf"];
    cpu.extend(common);
    let mut device = vec!["crunch", "opencl:expf", "--backend", "opencl"];
    device.extend(common);
    assert_eq!(json_report(&cpu)["block_bits"], 20);
    assert_eq!(json_report(&device)["block_bits"], 24);
}

/// Writes `text` to a file of the scratch directory `dir` and returns its path.
fn list_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn an_input_list_prints_each_input_not_correctly_rounded() {
    let dir = scratch("inputs");
    // exp(2^-53) = 1 + 2^-53 + ...: above the midpoint, so RN is 1 + 2^-52; the libm crate
    // returns 1 (a faithful result, 0.5000... ulp). exp(0) = 1 is exact.
    let list = list_file(&dir, "l.wc", "# comment\n0x1p-53\n0x0p+0 # one\nnan\n");
    let out = tmd(&["crunch", "libm:exp", "--inputs", &list]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "x = 0x1p-53: got 0x1p+0, expected 0x1.0000000000001p+0, 0.500000 ulp (faithful; line 2)"
    );
    assert!(
        stdout.contains("rounding nearest: the 2 inputs of"),
        "{stdout}"
    );
    assert!(
        stdout.contains("correctly rounded 1, faithful 1, worse 0"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 special entries (nan, inf)"), "{stderr}");

    let out = tmd(&["crunch", "libm:exp", "--inputs", &list, "--json"]);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["x"], "0x1p-53");
    assert_eq!(lines[0]["expected"], "0x1.0000000000001p+0");
    assert_eq!(lines[0]["class"], "faithful");
    assert_eq!(lines[1]["inputs"], 2);
    assert_eq!(lines[1]["faithful"], 1);
    assert_eq!(lines[1]["skipped"], 1);
}

#[test]
fn max_ulp_is_a_gate_with_exit_code_1() {
    let dir = scratch("gate");
    let list = list_file(&dir, "l.txt", "0x1p-53\n0x1.8p+0\n");
    // Not correctly rounded at 2^-53: fails "correctly rounded", passes 0.6 ulp.
    let out = tmd(&["crunch", "libm:exp", "--inputs", &list, "--max-ulp", "0.5"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("1 result is not correctly rounded"),
        "{stderr}"
    );
    assert!(stderr.contains("0x1p-53"), "{stderr}");
    let out = tmd(&["crunch", "libm:exp", "--inputs", &list, "--max-ulp", "0.6"]);
    assert_eq!(out.status.code(), Some(0));
    // A range run: libm's expf on [1, 1.0001) is within 1 ulp, not correctly rounded.
    let range = ["crunch", "libm:expf", "--from", "1", "--to", "1.0001", "-q"];
    let out = tmd(&[&range[..], &["--max-ulp", "1"]].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = tmd(&[&range[..], &["--max-ulp", "0.5"]].concat());
    assert_eq!(out.status.code(), Some(1));
}

/// Targets with known errors at known inputs: `exp1` returns 2^-24 below the exact expf(0) =
/// 1 (1/2 ulp of 1, a worse result), `cbrt64` the number below the exact cbrt(2^-1074) =
/// 2^-358 (1/2 ulp, worse), `nan1` NaN at 1; expf and cbrt elsewhere. `above` gives exp(2^-40)
/// one ulp below the number below f (1 + 2^-29 ulp), `below` three ulps above it
/// (3 - 2^-29 ulp); exp elsewhere.
const KNOWN_ERRORS: &str = r#"
#include <math.h>
float exp1(float x) { return x == 0 ? 0x1.fffffep-1f : expf(x); }
double cbrt64(double x) { return x == 0x1p-1074 ? 0x1.fffffffffffffp-359 : cbrt(x); }
float nan1(float x) { return x == 1 ? nanf("") : expf(x); }
double above(double x) { return x == 0x1p-40 ? 0x1.0000000000fffp+0 : exp(x); }
double below(double x) { return x == 0x1p-40 ? 0x1.0000000001003p+0 : exp(x); }
"#;

/// `tmd crunch c:SOURCE:SYMBOL ARGS...` with `KNOWN_ERRORS` written in `dir`.
fn known_errors_run(dir: &std::path::Path, symbol: &str, args: &[&str]) -> Output {
    let source = dir.join("known.c");
    std::fs::write(&source, KNOWN_ERRORS).unwrap();
    let spec = format!("c:{}:{symbol}", source.display());
    let (function, format) = match symbol {
        "exp1" | "nan1" => ("exp", "binary32"),
        "cbrt64" => ("cbrt", "binary64"),
        _ => ("exp", "binary64"),
    };
    let named = ["crunch", &spec, "--function", function, "--format", format];
    tmd(&[&named[..], args].concat())
}

#[test]
fn an_exact_result_missed_by_a_finite_error_is_an_ordinary_error() {
    let dir = scratch("exactmiss");
    let list32 = list_file(&dir, "e.wc", "0x0p+0\n0x1p+1\n");
    let list64 = list_file(&dir, "c.wc", "0x1p-1074\n0x1p+3\n");
    for (symbol, list) in [("exp1", &list32), ("cbrt64", &list64)] {
        for limit in ["1", "3", "100", "1e300"] {
            let out = known_errors_run(&dir, symbol, &["--inputs", list, "--max-ulp", limit]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{symbol} --max-ulp {limit}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let out = known_errors_run(&dir, symbol, &["--inputs", list, "--json"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert_eq!(report["worse"], 1, "{symbol}: {report}");
        assert_eq!(report["worse_below_one_ulp"], 1, "{symbol}: {report}");
        assert_eq!(report["max_ulp"], 0.5, "{symbol}: {report}");
        assert_eq!(report["histogram"][1], 1, "{symbol}: {report}");
        // Still not correctly rounded: the gate at 1/2 fails.
        let out = known_errors_run(&dir, symbol, &["--inputs", list, "--max-ulp", "0.5"]);
        assert_eq!(out.status.code(), Some(1), "{symbol}");
    }
    // A range run: the same verdict, the error of 1/2 shown in the bin [0.5, 1).
    let range = ["--from", "0", "--to", "0x1p-146", "-q"];
    let out = known_errors_run(&dir, "exp1", &[&range[..], &["--max-ulp", "1"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("worse 1 "), "{stdout}");
    assert!(stdout.contains("[0.5, 1): 1"), "{stdout}");
}

#[test]
fn gate_messages_print_the_digits_that_decide_them() {
    let dir = scratch("gatedigits");
    let list = list_file(&dir, "l.wc", "0x1p-40\n");
    // 1 + 2^-29 ulp exceeds 1: its digits say so, in the report and the gate's line.
    let out = known_errors_run(&dir, "above", &["--inputs", &list, "--max-ulp", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stderr.contains("max error 1.000000002 ulp at x = 0x1p-40 exceeds --max-ulp 1"),
        "{stderr}"
    );
    assert!(stdout.contains("max error 1.000000002 ulp"), "{stdout}");
    // 3 - 2^-29 ulp passes 3 and is not printed as 3.
    let out = known_errors_run(&dir, "below", &["--inputs", &list, "--max-ulp", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("max error 2.999999998 ulp"), "{stdout}");
    // Without a threshold: six decimals; in JSON the exact binary64 value.
    let out = known_errors_run(&dir, "above", &["--inputs", &list]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("max error 1.000000 ulp"));
    let out = known_errors_run(&dir, "above", &["--inputs", &list, "--json"]);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let exact = 1.0 + 2f64.powi(-29);
    assert_eq!(lines[0]["ulp"].as_f64(), Some(exact));
    assert_eq!(lines[1]["max_ulp"].as_f64(), Some(exact));
    // The threshold echoed in its shortest form.
    let list = list_file(&dir, "n.wc", "1\n");
    let out = known_errors_run(&dir, "nan1", &["--inputs", &list, "--max-ulp", "1e300"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("(--max-ulp 1e300)"), "{stderr}");
}

#[test]
fn bad_input_lists_exit_2_with_one_line() {
    let dir = scratch("badlists");
    let bad = list_file(&dir, "bad.txt", "1\n0x1.000001p+0\n");
    assert_bad_input(
        &["crunch", "libm:expf", "--inputs", &bad, "--strict"],
        "bad.txt:2:",
    );
    // A list of which no line is an input of the format, with or without --strict.
    let json = list_file(
        &dir,
        "j.txt",
        "{\"format\":\"binary32\",\"x\":\"0x1p+0\"}\n",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--inputs", &json],
        "a binary32 input",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--from", "1", "--to", "2", "--strict"],
        "--strict is for --inputs",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--inputs", "/dev/null", "--strict"],
        "give a regular file",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--inputs", "/no/such/list"],
        "no such file",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--inputs", dir.to_str().unwrap()],
        "is a directory",
    );
    assert_bad_input(
        &[
            "crunch", "libm:exp", "--inputs", &bad, "--from", "1", "--to", "2",
        ],
        "cannot be used with",
    );
    assert_bad_input(
        &["crunch", "libm:exp", "--inputs", &bad, "--max-ulp", "-1"],
        "--max-ulp",
    );
}

/// `tmd crunch ARGS...`: exit code, stdout, stderr.
fn run_text(args: &[&str]) -> (Option<i32>, String, String) {
    let out = tmd(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lines_that_hold_no_input_are_skipped_with_a_note_or_refused_by_strict() {
    let dir = scratch("notinputs");
    // Line 1 fails (libm's exp(2^-53) is faithful) before the lines that are no binary64
    // input: CORE-MATH-like threshold entries, an "Error" line, a binary32 JSON record.
    let list = list_file(
        &dir,
        "erf.wc",
        "0x1p-53\n0x1.00000000000001p+0 # threshold\nError 10290\n0x1.8p+0\n\
         {\"format\":\"binary32\",\"x\":\"0x1p+0\"}\n0x1.000000000000008p+0\n",
    );
    let (code, stdout, stderr) = run_text(&["crunch", "libm:exp", "--inputs", &list]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("the 2 inputs of"), "{stdout}");
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 4, "{stderr}");
    assert!(
        notes[0].contains("4 lines of") && notes[0].contains("skipped"),
        "{stderr}"
    );
    for (note, line) in notes[1..].iter().zip([2, 3, 5]) {
        assert!(note.contains(&format!("erf.wc:{line}: ")), "{stderr}");
    }
    let (code, _, stderr) = run_text(&["crunch", "libm:exp", "--inputs", &list, "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    // --strict: refused before any output, the first line and the count on one line.
    for extra in [&[][..], &["--json"], &["--rounding", "all"]] {
        let args = [
            &["crunch", "glibc:exp", "--inputs", &list, "--strict"][..],
            extra,
        ]
        .concat();
        let (code, stdout, stderr) = run_text(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?} printed {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("erf.wc:2: ") && stderr.contains("4 lines"),
            "{stderr}"
        );
    }
    // binary80: inputs with more bits than its subnormals have; binary128 "Error" lines.
    let list80 = list_file(
        &dir,
        "log2l.wc",
        "0x1.4p+0\n0x1.8p-16445\n0x1.0000000000000001p-16440\n0x1.8p+0\n",
    );
    let (code, stdout, stderr) = run_text(&["crunch", "glibc:expl", "--inputs", &list80]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("the 2 inputs of"), "{stdout}");
    assert!(
        stderr.contains("2 lines of") && stderr.contains("log2l.wc:3: "),
        "{stderr}"
    );
    let strict80 = ["crunch", "glibc:expl", "--inputs", &list80, "--strict"];
    let (code, stdout, stderr) = run_text(&strict80);
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
    let list128 = list_file(&dir, "exp2q.wc", "0x1.8p+0\nError 10290\n");
    let wrapped = dir.join("wrapped.c");
    std::fs::write(&wrapped, WRAPPED_WIDE_EXP).unwrap();
    let spec128 = format!("c:{}:wrapped_expq", wrapped.display());
    let (code, _, stderr) = run_text(&["crunch", &spec128, "--inputs", &list128]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("exp2q.wc:2: "), "{stderr}");
    let (code, stdout, stderr) = run_text(&["crunch", &spec128, "--inputs", &list128, "--strict"]);
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
}

#[test]
fn range_records_of_a_search_are_skipped_with_a_count() {
    let dir = scratch("ranges");
    // Every input of [2^-60, 2^-58) is hard for expf at 30 bits: two range records.
    let search = [
        "search", "exp", "--format", "binary32", "--from", "0x1p-60", "--to", "0x1p-58", "--bits",
        "30", "--json",
    ];
    let out = tmd(&search);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("\"record\":\"range\"").count(), 2, "{text}");
    text +=
        "{\"function\":\"exp\",\"format\":\"binary32\",\"x\":\"0x1.8p+0\",\"kind\":\"nearest\"}\n";
    let list = list_file(&dir, "r.json", &text);
    let (code, stdout, stderr) = run_text(&["crunch", "libm:expf", "--inputs", &list, "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "2 range records skipped; use tmd search --expand-ranges to list their inputs"
        ),
        "{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["inputs"], 1, "{report}");
    assert_eq!(report["range_records"], 2, "{report}");
    // A .wc file's range comment lines are the same records.
    let wc = list_file(
        &dir,
        "r.wc",
        "# range 0x1p-60 0x1.fffffep-60 directed bits>=35.999 inputs=8388608 \
         rule=next-to-constant anchor=0x1p+0\n0x1.8p+0\n",
    );
    let (code, _, stderr) = run_text(&["crunch", "libm:expf", "--inputs", &wc, "--strict"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("1 range record skipped"), "{stderr}");
}

#[test]
fn foreign_targets_from_the_command_line() {
    let out = tmd(&["crunch", "--list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "dl:PATH:SYMBOL\t",
        "c:FILE.c:SYMBOL\t",
        "glibc:NAMEf\t",
        "sleef",
        "musl:",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} not listed"
        );
    }
    let range = |t: &str| -> Vec<String> {
        ["crunch", t, "--from", "1", "--to", "1.001", "-q"]
            .map(str::to_string)
            .to_vec()
    };
    let run = |args: Vec<String>| tmd(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let bad = |args: Vec<String>, needle: &str| {
        assert_bad_input(&args.iter().map(String::as_str).collect::<Vec<_>>(), needle)
    };
    bad(
        range("dl:libnosuch.so.9:expf"),
        "cannot load libnosuch.so.9",
    );
    bad(range("dl:libm.so.6:cr_expf"), "no symbol cr_expf");
    bad(range("dl:libm.so.6:frexpf"), "give --function");
    let mut b = range("std:expf");
    b.extend(["--function".into(), "exp".into()]);
    bad(b, "--function is for");

    let dir = scratch("foreign");
    let good = dir.join("approx.c");
    std::fs::write(&good, "float approx(float x) { return 1.0f + x; }\n").unwrap();
    let mut args = range(&format!("c:{}:approx", good.display()));
    args.extend(["--function", "exp", "--format", "binary32", "--json"].map(str::to_string));
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["worse"].as_u64().unwrap() > 0, "1 + x is not exp: {v}");
    assert!(v["note"].as_str().unwrap().contains("compiled by"), "{v}");

    let broken = dir.join("broken.c");
    std::fs::write(&broken, "float broken(float x) { return x +; }\n").unwrap();
    let out = run(range(&format!("c:{}:broken", broken.display())));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    let own: Vec<&str> = stderr.lines().filter(|l| l.starts_with("tmd:")).collect();
    assert_eq!(own.len(), 1, "{stderr}");
    assert!(
        own[0].contains("failed") && own[0].contains("broken.c"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error"),
        "the compiler's message is shown: {stderr}"
    );
}

#[test]
fn rust_and_device_targets_refuse_directed_rounding_with_one_line() {
    let base = ["crunch", "std:expf", "--from", "1", "--to", "2", "-q"];
    for mode in ["up", "down", "zero", "all"] {
        let mut args = base.to_vec();
        args.extend(["--rounding", mode]);
        let shown = if mode == "all" { "up" } else { mode };
        assert_bad_input(
            &args,
            &format!(
                "tmd: target std:expf runs only under round-to-nearest (Rust code); \
                 --rounding {shown} needs a dl:, c: or library target"
            ),
        );
    }
    assert_bad_input(
        &[
            "crunch",
            "opencl:expf",
            "--backend",
            "opencl",
            "--from",
            "1",
            "--to",
            "2",
            "--rounding",
            "down",
        ],
        "target opencl:expf runs only under round-to-nearest (device code)",
    );
    assert_bad_input(
        &[
            "crunch",
            "std:expf",
            "--from",
            "1",
            "--to",
            "2",
            "--rounding",
            "bogus",
        ],
        "expected nearest, up, down, zero or all",
    );
}

#[test]
fn reports_name_the_rounding_mode() {
    let range = ["--from", "1", "--to", "1.001", "-q"];
    for extra in [&[][..], &["--rounding", "nearest"][..]] {
        let mut args = vec!["crunch", "std:expf", "--json"];
        args.extend(range);
        args.extend(extra);
        let v = json_report(&args);
        assert_eq!(v["rounding"], "nearest", "{args:?}");
    }
    let mut args = vec!["crunch", "std:expf"];
    args.extend(range);
    let out = tmd(&args);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("), rounding nearest: "),
        "{text}"
    );
}

/// A checkpoint of the layout before line checks (and before rounding modes) cannot be
/// appended to: the run is refused before any work, saying to start again.
#[test]
fn a_checkpoint_of_the_layout_without_checks_is_refused_with_a_way_on() {
    let dir = scratch("old-checkpoint");
    let cp = dir.join("expf.jsonl");
    let cp_arg = cp.to_str().unwrap();
    let args = [
        "crunch",
        "std:expf",
        "--from",
        "1",
        "--to",
        "1.01",
        "--block-bits",
        "12",
        "--json",
        "-q",
        "--checkpoint",
        cp_arg,
    ];
    json_report(&args);
    // The lines as tmd wrote them before: no check, no "rounding" field, layout 1.
    let text = std::fs::read_to_string(&cp).unwrap();
    let old: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("crc32");
            if i == 0 {
                o.remove("rounding");
                o.insert("tmd_crunch_checkpoint".into(), 1.into());
            }
            v.to_string()
        })
        .collect();
    std::fs::write(&cp, old.join("\n") + "\n").unwrap();
    let out = tmd(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("start the crunch again"), "{stderr}");
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_input_list_is_judged_in_every_rounding_mode() {
    let dir = scratch("listmodes");
    // sqrt is correctly rounded in every mode (an IEEE operation); this one is one ulp up
    // under upward rounding only.
    let source = dir.join("upsqrt.c");
    std::fs::write(
        &source,
        "#include <fenv.h>\n#include <math.h>\n\
         double upsqrt(double x) {\n  double y = sqrt(x);\n\
         return fegetround() == FE_UPWARD ? nextafter(y, INFINITY) : y;\n}\n",
    )
    .unwrap();
    let list = list_file(&dir, "l.txt", "2\n3\n0x1.8p+0\n10\n");
    let spec = format!("c:{}:upsqrt", source.display());
    let out = tmd(&[
        "crunch",
        &spec,
        "--function",
        "sqrt",
        "--inputs",
        &list,
        "--rounding",
        "all",
        "--max-ulp",
        "0.5",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reports: Vec<&Value> = lines
        .iter()
        .filter(|v| v.get("rounding").is_some())
        .collect();
    let modes: Vec<&str> = reports
        .iter()
        .map(|r| r["rounding"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["nearest", "up", "down", "zero"]);
    for r in &reports {
        let wrong = r["faithful"].as_u64().unwrap() + r["worse"].as_u64().unwrap();
        let expected_wrong = if r["rounding"] == "up" { 4 } else { 0 };
        assert_eq!(wrong, expected_wrong, "{r}");
    }
    // The four failures are listed, each under upward rounding, before the reports after it.
    assert_eq!(lines.iter().filter(|v| v.get("got").is_some()).count(), 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("4 results are not correctly rounded"),
        "{stderr}"
    );
}

/// glibc's expl and libquadmath's expq wrapped in a C source, NaN at 2.
const WRAPPED_WIDE_EXP: &str = r#"
#include <math.h>
extern __float128 expq(__float128);
long double wrapped_expl(long double x) { return x == 2.0L ? nanl("") : expl(x); }
__float128 wrapped_expq(__float128 x) { return x == 2.0Q ? __builtin_nanq("") : expq(x); }
"#;

/// The inputs of the failures a `--json` list run printed (its last line is the report).
fn failing_inputs(out: &Output) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    lines[..lines.len().saturating_sub(1)]
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["x"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn binary80_and_binary128_targets_crunch_input_lists_in_every_mode() {
    let dir = scratch("wide");
    let source = list_file(&dir, "wrapped.c", WRAPPED_WIDE_EXP);
    // 2^24 inputs next to 1 in each format: about 500 cases at 2^-16 ulp.
    for (format, library, wrapped, to) in [
        (
            "binary80",
            "glibc:expl",
            "wrapped_expl",
            "0x1.0000000002p+0",
        ),
        (
            "binary128",
            "quadmath:expq",
            "wrapped_expq",
            "0x1.0000000000000000000002p+0",
        ),
    ] {
        // The hard cases of exp next to 1, from tmd's own search, then 2.
        let search = tmd(&[
            "search", "exp", "--format", format, "--from", "1", "--to", to, "--bits", "16",
            "--json", "-q",
        ]);
        assert!(
            search.status.success(),
            "{}",
            String::from_utf8_lossy(&search.stderr)
        );
        let mut text = String::from_utf8_lossy(&search.stdout).to_string();
        let cases = text.lines().count();
        assert!(cases > 10, "{format}: {cases} hard cases");
        text.push_str("2\n");
        let list = list_file(&dir, &format!("{format}.json"), &text);
        let c_target = format!("c:{source}:{wrapped}");
        for mode in ["nearest", "up", "down", "zero"] {
            let run = |target: &str| {
                let out = tmd(&[
                    "crunch",
                    target,
                    "--inputs",
                    &list,
                    "--rounding",
                    mode,
                    "--json",
                ]);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{target} {mode}: {stderr}");
                out
            };
            let library_run = run(library);
            let c_run = run(&c_target);
            let mut expected = failing_inputs(&library_run);
            expected.push("0x1p+1".into());
            assert_eq!(
                failing_inputs(&c_run),
                expected,
                "{c_target} in mode {mode}"
            );
            let stdout = String::from_utf8_lossy(&c_run.stdout);
            let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
            assert_eq!(report["format"], format);
            assert_eq!(report["rounding"], mode);
            assert_eq!(report["inputs"], cases as u64 + 1);
            assert_eq!(report["function"], "exp");
        }
    }
    // glibc's x87 expl is not correctly rounded on these cases in mode up: a gate fails.
    let list = dir.join("binary80.json").display().to_string();
    let out = tmd(&[
        "crunch",
        "glibc:expl",
        "--inputs",
        &list,
        "--rounding",
        "up",
        "--max-ulp",
        "0.5",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().next().unwrap().starts_with("x = 0x1.0000"),
        "{stdout}"
    );
}

#[test]
fn bad_binary80_and_binary128_runs_exit_2_with_one_line() {
    let dir = scratch("wide-bad");
    let list = list_file(&dir, "l.txt", "1\n");
    assert_bad_input(&["crunch", "glibc:expl"], "give --inputs FILE");
    assert_bad_input(
        &["crunch", "glibc:expl", "--from", "1", "--to", "2"],
        "--from is for binary32 and binary64 runs",
    );
    assert_bad_input(
        &[
            "crunch", "std:exp", "--format", "binary80", "--inputs", &list,
        ],
        "not std:",
    );
    assert_bad_input(
        &[
            "crunch",
            "glibc:expl",
            "--format",
            "binary128",
            "--inputs",
            &list,
        ],
        "expl is a binary80 function",
    );
    assert_bad_input(
        &[
            "crunch",
            "glibc:expl",
            "--inputs",
            &list,
            "--backend",
            "opencl",
        ],
        "CPU only",
    );
    assert_bad_input(
        &["crunch", "quadmath:frobq", "--inputs", &list],
        "does not know a function",
    );
    assert_bad_input(
        &["crunch", "dl:/no/such/lib.so:expl", "--inputs", &list],
        "cannot load",
    );
    assert_bad_input(
        &["crunch", "quadmath:my_frob_expq", "--inputs", &list],
        "no symbol",
    );
    let b64 = list_file(
        &dir,
        "j.txt",
        "{\"format\":\"binary64\",\"x\":\"0x1p+0\"}\n",
    );
    assert_bad_input(
        &["crunch", "quadmath:expq", "--inputs", &b64],
        "a binary64 input",
    );
    let inexact = list_file(&dir, "i.txt", "0x1.00000000000000001p+0\n");
    assert_bad_input(
        &["crunch", "glibc:expl", "--inputs", &inexact],
        "not a binary80 number",
    );
}
