//! `tmd report` as a user meets it: the tables hold what `tmd crunch` finds for each cell,
//! rounded upwards; a kill -9 and a rerun give the uninterrupted run's tables; binary64 cells
//! are samples and say so; bad input is one line on stderr and exit code 2, before any cell
//! runs. Ranges are narrow so that each test takes seconds on two cores.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn succeed(args: &[&str]) -> Output {
    let out = tmd(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A crunch report without what legitimately differs between runs.
fn comparable(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("blocks_resumed");
    o.remove("note");
    v
}

/// The parts of a report that do not depend on when and how fast it ran: the Markdown from
/// the table to the timings, and the CSV without its seconds column.
fn deterministic_parts(dir: &Path) -> (String, String) {
    let md = read(&dir.join("report.md"));
    let start = md.find("## Maximum known error").expect("the table");
    let end = md.find("## Timings").expect("the timings");
    let csv: Vec<String> = read(&dir.join("report.csv"))
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect();
    (md[start..end].to_string(), csv.join("\n"))
}

/// Checks that `text` is `x` rounded upwards to three significant digits.
fn assert_rounded_up(text: &str, x: f64) {
    let shown: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("{text} is a number"));
    assert!(shown >= x, "{text} < {x}");
    let (mantissa, exponent) = format!("{shown:.2e}")
        .split_once('e')
        .map(|(m, e)| (m.replace('.', ""), e.parse::<i32>().unwrap()))
        .unwrap();
    let one_less: f64 = format!("{}e{}", mantissa.parse::<u32>().unwrap() - 1, exponent - 2)
        .parse()
        .unwrap();
    assert!(one_less < x, "{text}: {one_less} is already >= {x}");
}

fn as_strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
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
fn tables_hold_the_crunch_maxima_rounded_upwards() {
    let dir = scratch("tables");
    // A deliberately wrong expf: a few ulps off, so the rounding is not of 0.5.
    let wrong = dir.join("wrong.c");
    std::fs::write(
        &wrong,
        "#include <math.h>\nfloat wrong_expf(float x) { return expf(x) * 1.0000003f; }\n",
    )
    .unwrap();
    let wrong_target = format!("c:{}:wrong_expf", wrong.display());
    let out = dir.join("r");
    let range = ["--from", "1", "--to", "1.25"];
    let targets = format!("std,libm,glibc,{wrong_target}");
    let mut args = vec!["report", "--targets", &targets, "--functions", "expf"];
    args.extend(range);
    args.extend(["--out", out.to_str().unwrap(), "-q"]);
    succeed(&args);
    let md = read(&out.join("report.md"));
    let csv = read(&out.join("report.csv"));
    let html = read(&out.join("report.html"));
    assert!(md.contains("4 of 4 cells done"), "{md}");
    assert!(
        md.contains("every binary32 input of [0x1p+0, 0x1.4p+0)"),
        "{md}"
    );
    let table_row = md
        .lines()
        .find(|l| l.starts_with("| expf |"))
        .expect("the expf row");
    let cells: Vec<&str> = table_row.split(" | ").skip(1).collect();
    assert_eq!(cells.len(), 4, "{table_row}");
    let stems = [
        "expf.std.nearest",
        "expf.libm.nearest",
        "expf.glibc.nearest",
    ];
    let names = ["std:expf", "libm:expf", "glibc:expf", &wrong_target];
    for (i, name) in names.iter().enumerate() {
        let mut crunch = vec!["crunch", name, "--json", "-q"];
        crunch.extend(range);
        let expected: Value = serde_json::from_slice(&succeed(&crunch).stdout).unwrap();
        let stem = stems.get(i).map_or_else(
            || format!("expf.{}.nearest", stem_of(&wrong_target)),
            |s| s.to_string(),
        );
        let cell: Value = serde_json::from_str(&read(&out.join(format!("cells/{stem}.json"))))
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(
            comparable(cell["crunch"].clone()),
            comparable(expected.clone())
        );
        assert!(out.join(format!("cells/{stem}.svg")).is_file());
        assert!(
            html.contains(&format!("cells/{stem}.svg")),
            "{stem} not linked"
        );
        let max = expected["max_ulp"].as_f64().unwrap();
        let argmax = expected["argmax"].as_str().unwrap();
        let text = cells[i].trim_end_matches(" |");
        let (value, argument) = text.split_once(' ').unwrap();
        assert_rounded_up(value, max);
        assert_eq!(argument, format!("({argmax})"), "{text}");
        let line = csv
            .lines()
            .find(|l| l.contains(&format!(",{name},")))
            .unwrap();
        assert!(line.contains(&format!(",{value},")), "{line}");
        assert!(line.contains(&format!(",{argmax},")), "{line}");
    }
    let wrong_max: f64 = cells[3].split(' ').next().unwrap().parse().unwrap();
    assert!(
        wrong_max > 1.0,
        "the wrong expf is off by more than an ulp: {table_row}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The file stem `tmd report` gives a full target name.
fn stem_of(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[test]
fn kill_and_rerun_gives_the_uninterrupted_report() {
    let dir = scratch("resume");
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    let args = |out: &Path| -> Vec<String> {
        [
            "report",
            "--targets",
            "std,libm",
            "--functions",
            "expf",
            "--from",
            "0x1p-2",
            "--to",
            "0x1p+2",
            "--block-bits",
            "16",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_string)
        .to_vec()
    };
    succeed(&as_strs(&args(&whole)));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args(&killed))
        .args(["--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed in the second cell: the first is finished, the second half done at most.
    let second = killed.join("cells/expf.libm.nearest.ckpt");
    let t0 = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&second).map_or(0, |t| t.lines().count());
        if lines >= 4 || t0.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    assert!(
        !child.wait().unwrap().success(),
        "the run finished before it could be killed"
    );
    let partial = read(&killed.join("report.md"));
    assert!(partial.contains("1 of 2 cells done"), "{partial}");
    assert!(partial.contains("pending"), "{partial}");
    succeed(&as_strs(&args(&killed)));
    assert_eq!(deterministic_parts(&killed), deterministic_parts(&whole));
    // A third run reads every cell back and writes the same tables.
    let t1 = Instant::now();
    succeed(&as_strs(&args(&killed)));
    assert!(t1.elapsed() < Duration::from_secs(10));
    assert_eq!(deterministic_parts(&killed), deterministic_parts(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binary64_cells_are_samples_plus_lists() {
    let dir = scratch("binary64");
    let list = dir.join("exp.wc");
    let published = read(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/worst-cases/exp.wc"
    )));
    let head: Vec<&str> = published.lines().take(300).collect();
    std::fs::write(&list, head.join("\n") + "\n").unwrap();
    let out = dir.join("r");
    succeed(&[
        "report",
        "--targets",
        "std,libm",
        "--functions",
        "exp",
        "--sample",
        "4",
        "--block-bits",
        "12",
        "--inputs",
        list.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let md = read(&out.join("report.md"));
    assert!(
        md.contains("a sample, not exhaustive: 4 evenly spaced windows of 2^12 binary64 inputs"),
        "{md}"
    );
    assert!(md.contains("plus the inputs of"), "{md}");
    assert!(!md.contains("(exhaustive)"), "{md}");
    let cell: Value =
        serde_json::from_str(&read(&out.join("cells/exp.libm.nearest.json"))).unwrap();
    assert_eq!(cell["sampled"], true);
    assert_eq!(
        cell["lists"][0]["inputs"].as_u64().unwrap() + 4 * 4096,
        cell["inputs"].as_u64().unwrap()
    );
    let from_list = cell["lists"][0]["max_ulp"].as_f64().unwrap();
    let from_sample = cell["crunch"]["max_ulp"].as_f64().unwrap();
    assert_eq!(
        cell["max_ulp"].as_f64().unwrap(),
        from_list.max(from_sample)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_exits_2_with_one_line_before_any_cell_runs() {
    let dir = scratch("bad");
    let out = dir.join("r");
    let out_arg = out.to_str().unwrap();
    let base = |targets: &'static str, functions: &'static str| {
        vec![
            "report",
            "--targets",
            targets,
            "--functions",
            functions,
            "--from",
            "1",
            "--to",
            "1.01",
            "--out",
            out_arg,
            "-q",
        ]
    };
    assert_bad_input(&base("std,glibc", "expf,nosuchf"), "nosuchf");
    assert_bad_input(
        &base("std,dl:libnosuch.so.9:expf", "expf"),
        "cannot load libnosuch.so.9",
    );
    assert_bad_input(&base("std,nosuchlib", "expf"), "nosuchlib");
    assert_bad_input(&base("glibc", "expf,exp"), "one format per report");
    assert_bad_input(
        &base("glibc,std,glibc", "expf"),
        "glibc:expf is listed twice",
    );
    let mut bad_from = base("glibc", "expf");
    bad_from[6] = "abc";
    assert_bad_input(&bad_from, "--from abc");
    let mut directed = base("glibc,std", "expf");
    directed.extend(["--rounding", "all"]);
    assert_bad_input(&directed, "runs only under round-to-nearest");
    let mut format = base("glibc", "expf");
    format.extend(["--format", "binary64"]);
    assert_bad_input(&format, "--format binary64 does not fit");
    assert_bad_input(
        &["report", "--targets", "glibc", "--out", out_arg],
        "needs --functions",
    );
    let list = dir.join("bad.wc");
    std::fs::write(&list, "1\nnot a number\n").unwrap();
    let mut listed = base("glibc", "expf");
    listed.extend(["--inputs", list.to_str().unwrap()]);
    assert_bad_input(&listed, "bad.wc:2");
    assert!(!out.exists(), "a bad command created {}", out.display());
    // A directory holding another report's cells.
    succeed(&base("glibc", "expf"));
    let mut other = base("glibc", "expf");
    other[8] = "1.02";
    assert_bad_input(&other, "belongs to another report");
    let file = dir.join("file");
    std::fs::write(&file, "").unwrap();
    let mut to_file = base("glibc", "expf");
    to_file[10] = file.to_str().unwrap();
    assert_bad_input(&to_file, "not a directory");
    let _ = std::fs::remove_dir_all(&dir);
}
