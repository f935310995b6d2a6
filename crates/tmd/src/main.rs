//! The `tmd` command line. `main` only maps [`run`]'s result to an exit code:
//! 0 success, 1 the run failed (I/O, internal), 2 bad input with one line on stderr saying
//! what and why. Flags live in `cli.rs`, each command in its own module.

mod cli;
#[cfg(feature = "mpi")]
mod cluster;
mod commands;
mod interrupt;
mod progress;

use std::process::ExitCode;
use tmd_core::InputError;

fn main() -> ExitCode {
    // A write past the file-size limit (`ulimit -f`) then fails with EFBIG, which the run
    // reports like a full disk (exit 1, the file named, no partial output left), instead of
    // SIGXFSZ killing the process mid-write.
    // SAFETY: called before any other thread exists; SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS; // the reader (e.g. `head`) has all it wanted
                }
            }
            let bad_input = err.downcast_ref::<InputError>().is_some();
            eprintln!("tmd: {}", one_line(&err));
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}

/// The error and its causes, `: `-separated, leaving out a cause whose text the message
/// before it already ends with (errors that print their source themselves).
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if !line.ends_with(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}
