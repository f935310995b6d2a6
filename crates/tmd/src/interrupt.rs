//! Ctrl-C, SIGTERM and SIGHUP end a run with one line saying what was kept and how to go on,
//! and the shell's exit status for the signal: 128 + its number (130, 143, 129). Finished work
//! is already safe when the signal comes: a search journal and a crunch checkpoint are appended
//! and flushed as each chunk or block finishes (which is also what makes them survive kill -9),
//! so the handler only has to say so. It removes the temporary files of unfinished outputs (an
//! output is complete or absent, never partial) and this run's lock files.
//!
//! The signals are received by a thread of their own (signal-hook's iterator), not in a signal
//! handler, so the clean-up may take locks and write to stderr.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::io::Write;
use std::sync::Mutex;

/// What the handler says; set by a command once it holds a journal or checkpoint.
static KEPT: Mutex<Option<String>> = Mutex::new(None);

/// Installs the handler (once per process; a second call changes nothing).
pub fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                interrupted(signal);
            }
        });
    });
}

fn interrupted(signal: i32) -> ! {
    let kept = KEPT.lock().unwrap_or_else(|e| e.into_inner()).clone();
    clean_up();
    // Not eprintln: with stderr gone (a closed pipe) it would panic this thread, and the
    // process would never exit.
    let _ = writeln!(
        std::io::stderr(),
        "\ntmd: interrupted; {}",
        kept.as_deref().unwrap_or(
            "nothing was kept to go on from (--resume DIR for a search, --checkpoint FILE \
             for a crunch make a run resumable)"
        )
    );
    std::process::exit(128 + signal);
}

/// Removes what an unfinished run leaves and no drop will remove when the process exits at
/// once: the temporary files of its outputs and its lock files.
pub fn clean_up() {
    tmd_core::out_file::remove_temps();
    tmd_core::run_lock::remove_held();
}

/// Says, from now on, what an interrupted run has kept.
pub fn kept(what: String) {
    *KEPT.lock().unwrap_or_else(|e| e.into_inner()) = Some(what);
}
