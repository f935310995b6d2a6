//! The README and the guides (`docs/guide/*.md`) run as written: every ```` ```console ````
//! block is a session of commands, each `$ COMMAND` line run by bash in a scratch directory
//! with `tmd` on the PATH, its exit status checked, and the lines shown after it found in its
//! output. So a guide cannot show a flag, an output line or a file that tmd no longer has.
//!
//! The expected lines are matched in order against the output (stdout, then stderr), each
//! against some later output line; a line may leave text out with `[..]` (any text within the
//! line), so timings and dates need not be spelled. Lines the guide does not show are allowed
//! (a guide shows the key lines, not every one; `...` marks where some are left out). A command expected to fail ends with a comment
//! giving its status, `# exit 2`. Blocks tagged `console mpi` run with the `mpirun`-capable
//! binary (`support/mpi_binary.rs`); `sh` blocks are shown, never run (CUDA, Slurm,
//! installation).
//!
//! The scratch directory holds `data/` (the repository's worst-case lists) and the C sources a
//! guide writes with `cat > FILE <<'EOF'` in an earlier command of the same block.

#[path = "support/mpi_binary.rs"]
mod mpi_binary;

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One `$ COMMAND` of a block with the lines expected from it.
#[derive(Debug)]
struct Step {
    /// `FILE:LINE` of the command, for failures.
    at: String,
    command: String,
    status: i32,
    expected: Vec<String>,
}

/// A console block: its steps and whether it needs the MPI binary.
#[derive(Debug)]
struct Block {
    mpi: bool,
    steps: Vec<Step>,
}

/// The console blocks of a Markdown file. A command continues on the next line after a
/// trailing backslash, and a here-document runs to its terminator.
fn console_blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).expect("a guide is readable");
    let name = file
        .strip_prefix(workspace())
        .unwrap_or(file)
        .display()
        .to_string();
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```console") else {
            continue;
        };
        let mut block = Block {
            mpi: info.split_whitespace().any(|w| w == "mpi"),
            steps: Vec::new(),
        };
        let mut heredoc: Option<String> = None;
        for (i, line) in lines.by_ref() {
            if line.trim_start().starts_with("```") {
                break;
            }
            let continuing = block
                .steps
                .last()
                .is_some_and(|s| s.command.ends_with('\\') || heredoc.is_some());
            if continuing {
                let step = block.steps.last_mut().unwrap();
                step.command.push('\n');
                step.command.push_str(line);
                if heredoc.as_deref() == Some(line.trim()) {
                    heredoc = None;
                }
            } else if let Some(command) = line.strip_prefix("$ ") {
                let (command, status) = match command.rsplit_once("# exit ") {
                    Some((c, s)) => (c.trim_end(), s.trim().parse().expect("# exit N")),
                    None => (command, 0),
                };
                heredoc = command
                    .split_once("<<'")
                    .and_then(|(_, rest)| rest.split_once('\''))
                    .map(|(end, _)| end.to_string());
                block.steps.push(Step {
                    at: format!("{name}:{}", i + 1),
                    command: command.to_string(),
                    status,
                    expected: Vec::new(),
                });
            } else if let Some(step) = block.steps.last_mut() {
                // `...` marks lines left out, which the in-order matching allows anyway.
                if !line.trim().is_empty() && line.trim() != "..." {
                    step.expected.push(line.to_string());
                }
            }
        }
        blocks.push(block);
    }
    blocks
}

/// Whether `line` matches `pattern`, where `[..]` in the pattern stands for any text.
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.trim().split("[..]").collect();
    let line = line.trim();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return line == first;
    }
    if !line.starts_with(first) || !line[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The directory whose `tmd` the commands run: the binary under test, or the MPI build.
fn bin_dir(mpi: bool) -> PathBuf {
    let bin = if mpi {
        mpi_binary::mpi_tmd()
    } else {
        Path::new(env!("CARGO_BIN_EXE_tmd"))
    };
    bin.parent().unwrap().to_path_buf()
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-guide-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(workspace().join("data"), dir.join("data")).unwrap();
    dir
}

/// Runs every step of `block` in one scratch directory; the failures as messages.
fn run_block(block: &Block, tag: &str) -> Vec<String> {
    let dir = scratch(tag);
    let path = format!(
        "{}:{}",
        bin_dir(block.mpi).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for step in &block.steps {
        let mut bash = Command::new("bash");
        bash.args(["-o", "pipefail", "-c", &step.command])
            .current_dir(&dir)
            .env("PATH", &path)
            .env_remove("TMD_EXTENSIVE");
        if block.mpi {
            // As root in CI, and more ranks than cores; OpenMPI's session directory under
            // the block's own scratch directory, apart from other tests' launchers.
            bash.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
                .env("TMPDIR", &dir);
        }
        let out = bash.output().expect("bash runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let status = out.status.code().unwrap_or(-1);
        if status != step.status {
            failures.push(format!(
                "{}: `{}` exited {status}, the guide says {}:\n{text}",
                step.at, step.command, step.status
            ));
            continue;
        }
        let mut output = text.lines();
        for want in &step.expected {
            if !output.any(|line| matches(want, line)) {
                failures.push(format!(
                    "{}: `{}` did not print, in order, the line\n  {want}\nit printed:\n{text}",
                    step.at, step.command
                ));
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    failures
}

fn guide_files() -> Vec<PathBuf> {
    let mut files = vec![workspace().join("README.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(workspace().join("docs/guide"))
        .expect("docs/guide exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    files.extend(guides);
    files
}

#[test]
fn the_pattern_wildcard_stands_for_any_text_within_a_line() {
    assert!(matches(
        "searched [..] inputs in [..] s",
        "searched 2^39 inputs in 0.8 s"
    ));
    assert!(matches("  241 cases", "241 cases"));
    assert!(!matches("241 cases", "2410 cases"));
    assert!(!matches("a [..] b [..] c", "a x c y b"));
    assert!(matches("[..]", "anything"));
}

#[test]
fn every_console_block_of_the_readme_and_the_guides_runs_as_written() {
    let mut failures = Vec::new();
    let mut steps = 0;
    for file in guide_files() {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        for (i, block) in console_blocks(&file).iter().enumerate() {
            steps += block.steps.len();
            failures.extend(run_block(block, &format!("{stem}-{i}")));
        }
    }
    assert!(steps >= 10, "only {steps} commands found in the guides");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
