//! What tmd writes and reads beside the user's data cannot be turned against them: links
//! planted under the names of temporary and lock files are never followed, devices are never
//! read without end nor given a lock, outputs that are one file are refused before any work,
//! an output that cannot be written is found before the work, and nothing temporary (a
//! partial output, a lock) stays after a run, whether it finished, failed or was interrupted.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("tmd runs")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-safety-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The stderr of a run that must exit with `code`, on one line holding `needle`.
fn exits_with(out: &Output, code: i32, needle: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(stderr.contains(needle), "'{needle}' not in {stderr}");
    stderr
}

fn succeeded(out: &Output) -> Vec<u8> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    out.stdout.clone()
}

/// A victim file holding known bytes.
fn victim(dir: &Path) -> PathBuf {
    let path = dir.join("victim");
    std::fs::write(&path, "precious\n").unwrap();
    path
}

fn assert_untouched(victim: &Path) {
    assert_eq!(std::fs::read_to_string(victim).unwrap(), "precious\n");
}

/// Names in `dir` other than `keep`.
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

const SMALL_SEARCH: [&str; 12] = [
    "search", "sin", "--from", "0.5", "--to", "1", "--format", "bfloat16", "--bits", "10",
    "--json", "-q",
];

fn small_search_with(extra: &[&str]) -> Output {
    let mut args: Vec<&str> = SMALL_SEARCH.to_vec();
    args.extend(extra);
    tmd(&args)
}

/// A search that runs for minutes unless stopped.
const LONG_SEARCH: [&str; 8] = ["search", "exp", "--from", "1", "--to", "2", "--json", "-q"];

fn small_crunch_with(extra: &[&str]) -> Output {
    let mut args = vec!["crunch", "std:expf", "--from", "1", "--to", "1.01", "-q"];
    args.extend(extra);
    tmd(&args)
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_planted_partial_symlink_is_not_followed() {
    let dir = scratch("planted-partial");
    let victim = victim(&dir);
    let out = dir.join("res.txt");
    std::os::unix::fs::symlink(&victim, dir.join("res.txt.partial")).unwrap();
    let direct = succeeded(&tmd(&SMALL_SEARCH));
    succeeded(&small_search_with(&["--out", s(&out)]));
    assert_untouched(&victim);
    assert_eq!(std::fs::read(&out).unwrap(), direct);
    let link = std::fs::symlink_metadata(dir.join("res.txt.partial")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the planted link stays as it was"
    );
    assert_eq!(
        leftovers(&dir, &["victim", "res.txt", "res.txt.partial"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_planted_checkpoint_lock_symlink_is_refused_and_its_target_untouched() {
    let dir = scratch("planted-ckpt-lock");
    let victim = victim(&dir);
    let checkpoint = dir.join("run.ckpt");
    std::os::unix::fs::symlink(&victim, dir.join("run.ckpt.lock")).unwrap();
    let out = small_crunch_with(&["--checkpoint", s(&checkpoint)]);
    exits_with(&out, 2, "symbolic link");
    assert_untouched(&victim);
    assert!(!checkpoint.exists());
}

#[test]
fn a_planted_journal_lock_symlink_is_refused_and_its_target_untouched() {
    let dir = scratch("planted-journal-lock");
    let victim = victim(&dir);
    let journal = dir.join("j");
    std::fs::create_dir(&journal).unwrap();
    std::os::unix::fs::symlink(&victim, journal.join("journal.lock")).unwrap();
    let out = small_search_with(&["--resume", s(&journal)]);
    exits_with(&out, 2, "symbolic link");
    assert_untouched(&victim);
}

#[test]
fn a_planted_output_lock_symlink_is_refused_and_its_target_untouched() {
    let dir = scratch("planted-out-lock");
    let victim = victim(&dir);
    let out = dir.join("res.txt");
    std::os::unix::fs::symlink(&victim, dir.join("res.txt.lock")).unwrap();
    exits_with(&small_search_with(&["--out", s(&out)]), 2, "symbolic link");
    assert_untouched(&victim);
    assert!(!out.exists());
}

#[test]
fn a_device_or_fifo_checkpoint_is_refused_before_any_work_and_gets_no_lock() {
    for device in ["/dev/zero", "/dev/null", "/dev/full"] {
        let lock = format!("{device}.lock");
        let _ = std::fs::remove_file(&lock);
        exits_with(
            &small_crunch_with(&["--checkpoint", device]),
            2,
            "not a regular file",
        );
        assert!(!Path::new(&lock).exists(), "{lock} was created");
    }
    let dir = scratch("fifo-checkpoint");
    let fifo = dir.join("cp.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Spawned with a deadline: a run that waited on the FIFO would never end.
    let mut child = spawn(&[
        "crunch",
        "std:expf",
        "--from",
        "1",
        "--to",
        "1.01",
        "-q",
        "--checkpoint",
        s(&fifo),
    ]);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("a FIFO given as --checkpoint blocked the run");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
    assert_eq!(leftovers(&dir, &["cp.fifo"]), Vec::<String>::new());
}

#[test]
fn endless_devices_are_refused_as_lists_and_checkpoints_without_reading_them_whole() {
    let runs: [&[&str]; 4] = [
        &["crunch", "std:expf", "--inputs", "/dev/zero"],
        &["crunch", "std:pow", "--inputs", "/dev/zero"],
        &["crunch-status", "/dev/zero"],
        &["crunch-format", "/dev/zero"],
    ];
    for args in runs {
        let start = Instant::now();
        let out = tmd(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.len() < 400, "{args:?} echoes what it read: {stderr}");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{args:?} read on"
        );
    }
    let out = tmd(&["crunch", "std:expf", "--inputs", "/dev/zero"]);
    exits_with(&out, 2, "/dev/zero:1: a line longer than");
}

#[test]
fn a_report_refuses_an_endless_input_list() {
    let dir = scratch("report-zero");
    let out = tmd(&[
        "report",
        "--targets",
        "std",
        "--functions",
        "expf",
        "--from",
        "1",
        "--to",
        "1.01",
        "--inputs",
        "/dev/zero",
        "--out",
        s(&dir.join("r")),
        "-q",
    ]);
    let stderr = exits_with(&out, 2, "a line longer than");
    assert!(stderr.len() < 400, "{stderr}");
}

#[test]
fn a_long_line_in_a_list_is_refused_with_its_number_and_a_short_prefix() {
    let dir = scratch("long-line");
    let list = dir.join("list.txt");
    std::fs::write(&list, format!("1.5\n{}\n", "9".repeat(10_000_000))).unwrap();
    let out = tmd(&["crunch", "std:expf", "--inputs", s(&list)]);
    let stderr = exits_with(&out, 2, "list.txt:2: a line longer than");
    assert!(stderr.len() < 400, "{stderr}");
}

#[test]
fn an_empty_checkpoint_is_a_run_with_nothing_done_yet() {
    let dir = scratch("empty-checkpoint");
    let checkpoint = dir.join("run.ckpt");
    std::fs::write(&checkpoint, "").unwrap();
    exits_with(
        &tmd(&["crunch-status", s(&checkpoint)]),
        2,
        "empty: nothing done yet",
    );
    let resumed = succeeded(&small_crunch_with(&[
        "--checkpoint",
        s(&checkpoint),
        "--json",
    ]));
    let fresh = succeeded(&small_crunch_with(&["--json"]));
    let strip = |bytes: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    assert_eq!(strip(&resumed), strip(&fresh));
    succeeded(&tmd(&["crunch-status", s(&checkpoint)]));
    assert_eq!(leftovers(&dir, &["run.ckpt"]), Vec::<String>::new());
}

#[test]
fn outputs_that_are_one_file_are_refused_before_any_work() {
    let dir = scratch("collide");
    let f = dir.join("f.json");
    let out = small_search_with(&["--stats", s(&f), "--out", s(&f)]);
    exits_with(&out, 2, "same file");
    assert!(!f.exists());

    let journal = dir.join("j");
    let in_journal = journal.join("journal.tmd");
    succeeded(&small_search_with(&["--resume", s(&journal)]));
    let before = std::fs::read(&in_journal).unwrap();
    let out = small_search_with(&["--resume", s(&journal), "--out", s(&in_journal)]);
    exits_with(&out, 2, "same file");
    assert_eq!(std::fs::read(&in_journal).unwrap(), before);

    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, "old\n").unwrap();
    std::fs::hard_link(&a, &b).unwrap();
    exits_with(
        &small_search_with(&["--out", s(&a), "--stats", s(&b)]),
        2,
        "same file",
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "old\n");

    let cp = dir.join("run.ckpt");
    exits_with(
        &small_crunch_with(&["--checkpoint", s(&cp), "--plot", s(&cp)]),
        2,
        "same file",
    );
    assert!(!cp.exists());
    // Devices written in place may take several outputs.
    succeeded(&small_search_with(&[
        "--out",
        "/dev/null",
        "--stats",
        "/dev/null",
    ]));
}

#[test]
fn an_output_another_run_writes_is_refused() {
    let dir = scratch("out-in-use");
    let out = dir.join("big.jsonl");
    let mut args = LONG_SEARCH.to_vec();
    args.extend(["--out", s(&out)]);
    let mut first = spawn(&args);
    wait_for("the first run's lock", || {
        dir.join("big.jsonl.lock").exists()
    });
    let second = small_search_with(&["--out", s(&out)]);
    first.kill().unwrap();
    first.wait().unwrap();
    exits_with(&second, 2, "in use by another tmd run");
}

#[test]
fn unwritable_outputs_are_bad_input_before_the_work() {
    // /proc takes no new files, whoever runs the test (root included).
    let plot = tmd(&[
        "crunch",
        "std:expf",
        "--from",
        "1",
        "--to",
        "2",
        "-q",
        "--plot",
        "/proc/p.svg",
    ]);
    let stderr = exits_with(&plot, 2, "--plot /proc/p.svg");
    assert!(plot.stdout.is_empty(), "the run went ahead: {stderr}");
    let stats = small_search_with(&["--stats", "/proc/s.json"]);
    exits_with(&stats, 2, "--stats /proc/s.json");
    assert!(stats.stdout.is_empty());
}

#[test]
fn a_read_only_output_is_refused_and_a_writable_one_keeps_its_mode() {
    let dir = scratch("modes");
    let ro = dir.join("ro.json");
    std::fs::write(&ro, "keep\n").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    exits_with(&small_search_with(&["--out", s(&ro)]), 2, "not writable");
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep\n");
    assert_eq!(
        std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777,
        0o444
    );

    let rw = dir.join("rw.json");
    std::fs::write(&rw, "old\n").unwrap();
    std::fs::set_permissions(&rw, std::fs::Permissions::from_mode(0o640)).unwrap();
    succeeded(&small_search_with(&["--out", s(&rw)]));
    assert_ne!(std::fs::read_to_string(&rw).unwrap(), "old\n");
    assert_eq!(
        std::fs::metadata(&rw).unwrap().permissions().mode() & 0o777,
        0o640
    );

    // Another user's file, root running: refused as well.
    let theirs = dir.join("theirs.json");
    std::fs::write(&theirs, "theirs\n").unwrap();
    let chowned = Command::new("chown").args(["65534", s(&theirs)]).status();
    if chowned.is_ok_and(|s| s.success()) {
        exits_with(
            &small_search_with(&["--out", s(&theirs)]),
            2,
            "not writable",
        );
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs\n");
    }
}

#[test]
fn a_full_disk_error_names_the_file_and_exits_1() {
    let out = small_search_with(&["--out", "/dev/full"]);
    exits_with(&out, 1, "/dev/full");
    // The summary line comes first; the error is the last line.
    let stats = small_search_with(&["--stats", "/dev/full"]);
    assert_eq!(stats.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&stats.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.contains("--stats /dev/full"), "{stderr}");
}

#[test]
fn a_write_error_names_the_file_and_leaves_nothing_behind() {
    // A file size limit of 1 KiB makes the output's writes fail (EFBIG, with SIGXFSZ ignored)
    // as a full disk would.
    let dir = scratch("write-error");
    let out = dir.join("big.jsonl");
    // 840 cases, about 90 KB: every input is hard at K = 2.
    let command = format!(
        "trap '' XFSZ; ulimit -f 1; exec {} search sin --from 1 --to 100 --format bfloat16 \
         --bits 2 --json -q --out {}",
        env!("CARGO_BIN_EXE_tmd"),
        s(&out)
    );
    let done = Command::new("bash")
        .args(["-c", &command])
        .output()
        .unwrap();
    exits_with(&done, 1, &format!("writing --out {}", s(&out)));
    assert_eq!(leftovers(&dir, &[]), Vec::<String>::new());
}

#[test]
fn an_interrupted_run_leaves_no_partial_output_nor_lock() {
    let dir = scratch("sigint");
    let out = dir.join("big.jsonl");
    let mut args = LONG_SEARCH.to_vec();
    args.extend(["--out", s(&out)]);
    let child = spawn(&args);
    wait_for("the run's temporary file", || {
        leftovers(&dir, &[]).iter().any(|n| n.ends_with(".partial"))
    });
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("nothing was kept"), "{stderr}");
    assert_eq!(leftovers(&dir, &[]), Vec::<String>::new());
}

#[test]
fn no_lock_file_stays_after_a_finished_or_refused_run() {
    let dir = scratch("locks");
    let cp = dir.join("run.ckpt");
    let plot = dir.join("run.svg");
    succeeded(&small_crunch_with(&[
        "--checkpoint",
        s(&cp),
        "--plot",
        s(&plot),
    ]));
    assert_eq!(
        leftovers(&dir, &["run.ckpt", "run.svg"]),
        Vec::<String>::new()
    );
    // The same checkpoint for another run: refused, and still no lock left.
    let out = tmd(&[
        "crunch",
        "libm:expf",
        "--from",
        "1",
        "--to",
        "1.01",
        "-q",
        "--checkpoint",
        s(&cp),
    ]);
    exits_with(&out, 2, "belongs to another run");
    assert_eq!(
        leftovers(&dir, &["run.ckpt", "run.svg"]),
        Vec::<String>::new()
    );

    let journal = dir.join("j");
    succeeded(&small_search_with(&[
        "--resume",
        s(&journal),
        "--out",
        s(&dir.join("o")),
    ]));
    assert_eq!(leftovers(&journal, &["journal.tmd"]), Vec::<String>::new());

    let report = dir.join("r");
    succeeded(&tmd(&[
        "report",
        "--targets",
        "std",
        "--functions",
        "expf",
        "--from",
        "1",
        "--to",
        "1.01",
        "--out",
        s(&report),
        "-q",
    ]));
    let cells = leftovers(&report.join("cells"), &[]);
    assert!(!cells.is_empty());
    assert!(
        cells
            .iter()
            .all(|n| !n.ends_with(".lock") && !n.ends_with(".partial")),
        "{cells:?}"
    );
}
