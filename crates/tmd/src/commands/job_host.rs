//! What the library jobs of `tmd search`, `tmd crunch` and `tmd report` get from the terminal: progress
//! bars on stderr, the interrupt handler's note of what a run keeps, and their errors as the
//! ones `main` maps to exit codes.

use crate::progress::Progress;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tmd_crunch::job::{Bar, JobError, Observer};
use tmd_search::job::{JobWatcher, SearchProgress};

/// Progress bars (none with `--quiet`) and interrupt notes.
pub struct Terminal {
    pub quiet: bool,
}

impl Observer for Terminal {
    fn bar(&self, total: u64) -> Box<dyn Bar> {
        Box::new(Progress::new(total, self.quiet))
    }

    fn kept(&self, what: String) {
        crate::interrupt::kept(what);
    }
}

impl Bar for Progress {
    fn set(&self, done: u64) {
        Progress::set(self, done);
    }

    fn set_label(&self, label: &str) {
        Progress::set_label(self, label);
    }

    fn finish(&self) {
        Progress::finish(self);
    }
}

/// A job's error as `main` tells them apart: bad input (exit 2) and I/O errors (a closed
/// pipe ends the output quietly) as themselves, the rest (exit 1) with their causes.
pub fn error(e: JobError) -> anyhow::Error {
    match e {
        JobError::Input(i) => i.into(),
        JobError::Io(io) => io.into(),
        other => anyhow::Error::new(other),
    }
}

/// A job's error for `main`: bad input and failed writes (a closed stdout among them) as
/// themselves, so that `main` finds them.
pub fn search_error(e: tmd_search::job::JobError) -> anyhow::Error {
    match e {
        tmd_search::job::JobError::Input(e) => e.into(),
        tmd_search::job::JobError::Io(e) => e.into(),
        other => other.into(),
    }
}

impl JobWatcher for Terminal {
    fn say(&self, line: &str) {
        eprintln!("tmd: {line}");
    }

    fn journal_opened(&self, dir: &Path) {
        crate::interrupt::kept(format!(
            "{} holds every finished chunk: the same command goes on from there",
            dir.display()
        ));
    }

    fn show_progress(&self, progress: &SearchProgress) {
        if self.quiet {
            return;
        }
        let bar = crate::progress::Progress::new(progress.total, false);
        let started = std::time::Instant::now();
        while !progress.finished.load(Ordering::Relaxed) {
            let left = progress.planned_seconds_left(started.elapsed().as_secs_f64());
            bar.set_planned(progress.done.load(Ordering::Relaxed), left);
            std::thread::sleep(Duration::from_millis(100));
        }
        bar.finish();
    }

    /// Only a bar someone sees is worth the plan's cost.
    fn wants_an_eta(&self) -> bool {
        !self.quiet && std::io::stderr().is_terminal()
    }
}
