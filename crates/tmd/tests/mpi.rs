//! `mpirun -np P tmd crunch ...` and `mpirun -np P tmd search ...` (cargo feature
//! `mpi`, OpenMPI from Debian, installed by scripts/setup.sh): the output equals a
//! single-process run's, and after one rank is killed the same command with another number of
//! ranks resumes from the checkpoint (crunch) or the segments journal (search) and again gives
//! the single-process output, with no work item done twice. The MPI binary is built by the test into target/mpi
//! (`support/mpi_binary.rs`).

#[path = "support/mpi_binary.rs"]
mod mpi_binary;

use mpi_binary::mpi_tmd;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `mpirun -np NP tmd ARGS`, with a session directory of its own: the tests run in parallel,
/// and two OpenMPI 4 launchers starting at once raced on creating `/tmp/ompi.HOST.UID` ("A call
/// to mkdir was unable to create the desired directory ... File exists"), so each call gets its
/// own `TMPDIR`, under which OpenMPI makes its directory.
fn mpirun(np: usize, args: &[&str]) -> Command {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    static SWEPT: OnceLock<()> = OnceLock::new();
    SWEPT.get_or_init(|| {
        // Earlier runs' directories, once OpenMPI has emptied them (remove_dir leaves a
        // non-empty one, such as a running launcher's, alone).
        let stale = std::fs::read_dir(std::env::temp_dir())
            .into_iter()
            .flatten();
        for entry in stale.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("tmd-mpi-test-")
            {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    });
    let session = std::env::temp_dir().join(format!(
        "tmd-mpi-test-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&session).expect("a session directory for mpirun");
    let mut c = Command::new("mpirun");
    c.env("TMPDIR", &session);
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ])
    .arg(mpi_tmd())
    .args(args);
    c
}

fn report(out: Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().count(),
        1,
        "{what}: one report expected, got {text}"
    );
    let mut v: Value = serde_json::from_str(&text).expect("a JSON report");
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("blocks_resumed");
    v
}

fn single(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .unwrap();
    report(out, "single process")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-mpi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn mpirun_crunch_equals_single_process() {
    let args = [
        "crunch",
        "std:sinf",
        "--from",
        "0x1p-4",
        "--to",
        "0x1p+2",
        "--block-bits",
        "16",
        "--json",
        "-q",
    ];
    let reference = single(&args);
    for np in [1, 2] {
        let out = mpirun(np, &args).output().unwrap();
        assert_eq!(
            report(out, &format!("mpirun -np {np}")),
            reference,
            "-np {np}"
        );
    }
}

/// The pid of the rank `rank` of a `command` run whose command line mentions `needle`.
fn rank_pid(rank: usize, command: &str, needle: &str) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let has = |hay: &[u8], s: &str| hay.windows(s.len()).any(|w| w == s.as_bytes());
        if has(&cmdline, needle)
            && has(&cmdline, command)
            && has(&environ, &format!("OMPI_COMM_WORLD_RANK={rank}\0"))
        {
            return Some(pid);
        }
    }
    None
}

/// Waits until `journal` has `lines` lines, then kills rank 1 of the `command` run whose
/// command line mentions `needle` with SIGKILL.
fn kill_rank_1_after(journal: &Path, lines: usize, command: &str, needle: &str) {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(120) {
        let written = std::fs::read_to_string(journal)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if written >= lines {
            if let Some(pid) = rank_pid(1, command, needle) {
                Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status()
                    .unwrap();
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("rank 1 of the {command} run was not found running");
}

#[test]
fn killed_rank_then_resume_with_other_rank_counts() {
    let dir = scratch("resume");
    let cp = dir.join("cosf.ck");
    let cp_text = cp.to_str().unwrap().to_string();
    let args = [
        "crunch",
        "std:cosf",
        "--from",
        "0x1p-3",
        "--to",
        "0x1p+3",
        "--block-bits",
        "16",
        "--json",
        "-q",
    ];
    let reference = single(&args);
    let mut with_cp: Vec<&str> = args.to_vec();
    with_cp.extend(["--checkpoint", &cp_text, "--threads", "1"]);
    let child = mpirun(2, &with_cp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    kill_rank_1_after(&cp, 6, "crunch", &cp_text);
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "the run went on after a rank died");
    let text = std::fs::read_to_string(&cp).unwrap();
    let blocks_before = text.lines().count() - 1;
    assert!(blocks_before >= 5);
    // Resume with 3 ranks, then check that no block is duplicated and the report is the
    // single-process one.
    let out = mpirun(3, &with_cp).output().unwrap();
    let resumed = report(out, "resumed with 3 ranks");
    assert_eq!(resumed, reference);
    let text = std::fs::read_to_string(&cp).unwrap();
    let mut indices: Vec<i64> = text
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["index"]
                .as_i64()
                .unwrap()
        })
        .collect();
    let n = indices.len();
    indices.sort();
    indices.dedup();
    assert_eq!(indices.len(), n, "a block was written twice");
    assert_eq!(n as u64, reference["blocks"].as_u64().unwrap());
    // And once more in a single process: every block resumed.
    let out = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(&with_cp)
        .output()
        .unwrap();
    assert_eq!(report(out, "single process resume"), reference);
}

fn stdout_of(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn mpirun_search_equals_single_process() {
    // I0 of the seed papers (241 cases) and a binary32 window with --json and exact cases.
    for args in [
        vec![
            "search",
            "exp",
            "--from",
            "0x1p+0",
            "--to",
            "0x1.0008p+0",
            "--bits",
            "32",
            "--breakpoints",
            "directed",
        ],
        vec![
            "search", "exp2", "--format", "binary32", "--from", "0x1p+0", "--to", "0x1p+2",
            "--bits", "16", "--json", "--exact",
        ],
    ] {
        let reference = stdout_of(
            Command::new(env!("CARGO_BIN_EXE_tmd"))
                .args(&args)
                .output()
                .unwrap(),
            "single process",
        );
        assert!(
            reference.lines().count() > 100,
            "{args:?}: too few cases to compare"
        );
        for np in [2, 3] {
            let out = stdout_of(mpirun(np, &args).output().unwrap(), &format!("-np {np}"));
            assert_eq!(out, reference, "{args:?} with -np {np}");
        }
    }
}

#[test]
fn search_killed_rank_then_resume() {
    let dir = scratch("search-resume");
    let journal = dir.join("journal");
    let journal_text = journal.to_str().unwrap().to_string();
    let args = [
        "search",
        "exp",
        "--from",
        "0x1p+0",
        "--to",
        "0x1.002p+0",
        "--bits",
        "32",
        "--breakpoints",
        "directed",
    ];
    let reference = stdout_of(
        Command::new(env!("CARGO_BIN_EXE_tmd"))
            .args(args)
            .output()
            .unwrap(),
        "single process",
    );
    let mut with_journal: Vec<&str> = args.to_vec();
    with_journal.extend(["--resume", &journal_text, "--threads", "1"]);
    let child = mpirun(2, &with_journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let segments = journal.join("mpi-segments.jsonl");
    kill_rank_1_after(&segments, 6, "search", &journal_text);
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "the run went on after a rank died");
    assert!(out.stdout.is_empty(), "a killed run printed cases");
    let before = std::fs::read_to_string(&segments).unwrap().lines().count() - 1;
    assert!(before >= 5);
    let out = stdout_of(
        mpirun(3, &with_journal).output().unwrap(),
        "resumed with 3 ranks",
    );
    assert_eq!(out, reference);
    let text = std::fs::read_to_string(&segments).unwrap();
    let mut indices: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["index"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let n = indices.len();
    indices.sort();
    indices.dedup();
    assert_eq!(indices.len(), n, "a segment was searched twice");
    // Without mpirun the same journal is refused with a clear line, not silently restarted.
    let out = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(&with_journal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("resume it under mpirun"));
    // A journal of another search is refused.
    let out = mpirun(
        2,
        &[
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "1.5",
            "--resume",
            &journal_text,
        ],
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("belongs to another search"));
}

/// A single-process search killed after a checkpoint goes on under mpirun from its journal
/// (the finished prefix is not searched again), and the MPI run can itself be resumed with
/// another number of ranks: each time the output is the uninterrupted single-process run's,
/// range records included.
#[test]
fn a_single_process_journal_is_continued_under_mpirun() {
    let dir = scratch("continue-single");
    let journal = dir.join("journal");
    let journal_text = journal.to_str().unwrap().to_string();
    let args = [
        "search", "sin", "--format", "binary32", "--bits", "24", "--from", "-0x1p-4", "--to",
        "0x1p+3", "--json", "-q",
    ];
    let reference = stdout_of(
        Command::new(env!("CARGO_BIN_EXE_tmd"))
            .args(args)
            .output()
            .unwrap(),
        "single process",
    );
    assert!(reference.contains("\"record\":\"range\""));
    let mut with_journal: Vec<&str> = args.to_vec();
    with_journal.extend(["--resume", &journal_text]);
    let mut single: Vec<&str> = with_journal.clone();
    single.extend(["--threads", "1"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(&single)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed (SIGKILL) once a checkpoint follows a range record: [2^-12, 8) is then left.
    let journal_file = journal.join("journal.tmd");
    let started = Instant::now();
    let checkpointed_a_range = |t: &str| {
        t.lines()
            .skip_while(|l| !l.starts_with("r "))
            .any(|l| l.starts_with("k "))
    };
    while !std::fs::read_to_string(&journal_file).is_ok_and(|t| checkpointed_a_range(&t)) {
        assert!(started.elapsed().as_secs() < 120, "no range checkpointed");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_with = std::fs::read_to_string(&journal_file).unwrap();
    assert!(
        !killed_with.lines().any(|l| l.starts_with("end ")),
        "the single-process run ended before the kill"
    );
    let out = mpirun(2, &with_journal).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("resuming a single-process journal"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_of(out, "continued with 2 ranks"), reference);
    // The segments start where the journal's prefix ends.
    let segments = std::fs::read_to_string(journal.join("mpi-segments.jsonl")).unwrap();
    let header: Value = serde_json::from_str(segments.lines().next().unwrap()).unwrap();
    assert!(header["continues_from"].is_string(), "{header}");
    // Run again with 3 ranks: every segment is finished, the output is the same.
    let again = stdout_of(
        mpirun(3, &with_journal).output().unwrap(),
        "again with 3 ranks",
    );
    assert_eq!(again, reference);
    std::fs::remove_dir_all(&dir).ok();
}

/// The summary line of a search without its timing (what follows the `;`).
fn summary_counts(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find(|l| l.contains(" inputs, "))
        .unwrap_or_else(|| panic!("no summary line in {text}"));
    line.split(';').next().unwrap().to_string()
}

/// A .wc file without its `# command:` and `# made` lines, which name the flags and the
/// minute of the run.
fn wc_without_command(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("# command:") && !l.starts_with("# made "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Ranks that drive devices give the single-process CPU run's output: the cases with their
/// range records, the .wc file and the counts. The OpenCL device here is PoCL's one CPU
/// device, shared by every rank through `--device 0`.
#[test]
fn device_ranks_equal_the_single_process_cpu_run() {
    let dir = scratch("device-ranks");
    // binary32 sin near 0: cases, an exact case and range records of all-hard inputs.
    let records = [
        "search", "sin", "--format", "binary32", "--bits", "24", "--from", "-0x1p-4", "--to",
        "0x1p-2", "--json", "-q",
    ];
    let reference = stdout_of(
        Command::new(env!("CARGO_BIN_EXE_tmd"))
            .args(records)
            .output()
            .unwrap(),
        "single process",
    );
    assert!(reference.contains("\"record\":\"range\""));
    let mut on_device = records.to_vec();
    on_device.extend(["--backend", "opencl", "--device", "0"]);
    for np in [2, 3] {
        let out = mpirun(np, &on_device).output().unwrap();
        assert_eq!(stdout_of(out, &format!("-np {np} opencl")), reference);
    }
    // binary64 exp next to 1, where the filter runs on the device, written as a .wc file.
    let wc_of = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let cases = [
        "search",
        "exp",
        "--from",
        "0x1p+0",
        "--to",
        "0x1.00001p+0",
        "--bits",
        "26",
        "--breakpoints",
        "directed",
    ];
    let cpu_wc = wc_of("cpu.wc");
    let mut on_cpu = cases.to_vec();
    on_cpu.extend(["--out", &cpu_wc]);
    let cpu = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(&on_cpu)
        .output()
        .unwrap();
    assert!(cpu.status.success());
    let device_wc = wc_of("device.wc");
    let mut ranks = cases.to_vec();
    ranks.extend(["--backend", "opencl", "--device", "0", "--out", &device_wc]);
    let device = mpirun(2, &ranks).output().unwrap();
    assert!(
        device.status.success(),
        "{}",
        String::from_utf8_lossy(&device.stderr)
    );
    assert_eq!(summary_counts(&device.stderr), summary_counts(&cpu.stderr));
    let expected = wc_without_command(Path::new(&cpu_wc));
    assert!(expected.lines().filter(|l| !l.starts_with('#')).count() > 100);
    assert_eq!(wc_without_command(Path::new(&device_wc)), expected);
    // A journal of CPU ranks goes on with device ranks: half its segments dropped (as a kill
    // leaves it), 3 OpenCL ranks search the rest and write the same cases.
    let journal = dir.join("journal");
    let journal_text = journal.to_str().unwrap().to_string();
    let mut journaled = cases.to_vec();
    journaled.extend(["--resume", &journal_text, "--threads", "1"]);
    let whole = stdout_of(mpirun(2, &journaled).output().unwrap(), "2 CPU ranks");
    let segments = journal.join("mpi-segments.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&segments)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert!(lines.len() > 4, "too few segments to drop half");
    let kept = 1 + (lines.len() - 1) / 2;
    std::fs::write(&segments, lines[..kept].join("\n") + "\n").unwrap();
    journaled.extend(["--backend", "opencl", "--device", "0"]);
    let resumed = stdout_of(mpirun(3, &journaled).output().unwrap(), "3 OpenCL ranks");
    assert_eq!(resumed, whole);
    let after = std::fs::read_to_string(&segments).unwrap().lines().count();
    assert_eq!(after, lines.len(), "each dropped segment searched once");
    // A device crunch target under mpirun: the single process's report.
    let crunch = [
        "crunch",
        "opencl:expf",
        "--backend",
        "opencl",
        "--device",
        "0",
        "--from",
        "1",
        "--to",
        "2",
        "--block-bits",
        "20",
        "--json",
        "-q",
    ];
    let reference = single(&crunch);
    let out = mpirun(2, &crunch).output().unwrap();
    assert_eq!(report(out, "crunch, -np 2 opencl"), reference);
    std::fs::remove_dir_all(&dir).ok();
}

/// Under mpirun each rank takes the device of its local rank; a rank whose device does not
/// exist (here rank 1: PoCL offers one device) says so, and every rank stops with exit 2
/// rather than waiting for it.
#[test]
fn a_rank_without_its_device_stops_every_rank() {
    for args in [
        vec![
            "search",
            "exp",
            "--from",
            "1",
            "--to",
            "0x1.00001p+0",
            "--bits",
            "26",
            "--backend",
            "opencl",
        ],
        vec![
            "crunch",
            "opencl:expf",
            "--backend",
            "opencl",
            "--from",
            "1",
            "--to",
            "2",
            "-q",
        ],
    ] {
        let out = mpirun(2, &args).output().expect("mpirun runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("tmd: rank 1: --backend opencl: OpenCL device 1 does not exist"),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
