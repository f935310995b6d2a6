//! What tmd says of itself and of its outputs: the version names the commit it was built
//! from, a worst-case file's header says which tmd and which command made it, and its comment
//! lines never read as range records.

use std::process::Command;

fn tmd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs")
}

#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let out = tmd(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let line = String::from_utf8_lossy(&out.stdout);
    let in_git = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    match in_git {
        Some(head) => {
            let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
            assert!(
                line.starts_with(&format!("tmd {} (commit {head}", env!("CARGO_PKG_VERSION"))),
                "{line}"
            );
        }
        None => assert!(line.contains("(commit unknown)"), "{line}"),
    }
}

#[test]
fn a_worst_case_file_names_its_tmd_and_only_records_start_with_hash_range() {
    let dir = std::env::temp_dir().join(format!("tmd-provenance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wc = dir.join("exp.wc");
    let out = tmd(&[
        "search",
        "exp",
        "--format",
        "binary32",
        "--bits",
        "24",
        "--from",
        "-0x1p-30",
        "--to",
        "0x1p-30",
        "--out",
        wc.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(&wc).unwrap();
    let version = String::from_utf8_lossy(&tmd(&["--version"]).stdout)
        .trim()
        .to_string();
    assert!(
        text.lines()
            .any(|l| l.starts_with("# found by ") && l.contains(&version)),
        "{text}"
    );
    let records: Vec<&str> = text.lines().filter(|l| l.starts_with("# range ")).collect();
    assert!(!records.is_empty(), "{text}");
    for record in records {
        // Every record line is a record: two inputs, then what they are.
        let fields: Vec<&str> = record.split_whitespace().collect();
        assert!(
            fields[2].starts_with("0x") || fields[2].starts_with("-0x"),
            "{record}"
        );
        let bits: f64 = record
            .split("bits>=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no bound in {record}"));
        assert!(
            bits >= 24.0,
            "a record at K = 24 states bits >= {bits}: {record}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_cli_reference_in_docs_is_what_the_binary_prints() {
    let out = tmd(&["reference"]);
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8_lossy(&out.stdout);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference/cli.md");
    let shipped = std::fs::read_to_string(&path).unwrap();
    assert!(
        printed == shipped,
        "docs/reference/cli.md differs from `tmd reference`: regenerate it with\n  \
         cargo run --release -p tmd -- reference > docs/reference/cli.md"
    );
}

#[test]
fn the_man_page_and_completions_come_from_the_same_definitions() {
    let man = tmd(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let man = String::from_utf8_lossy(&man.stdout);
    assert!(man.contains(".TH tmd 1"), "{man}");
    for sub in ["SEARCH", "CRUNCH", "REPORT", "HARDNESS"] {
        assert!(
            man.contains(&format!(".SH \"TMD {sub}\"")),
            "no {sub} section"
        );
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = tmd(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("breakpoints"), "{shell}: {text}");
    }
    assert_eq!(tmd(&["completions", "tcsh"]).status.code(), Some(2));
}
