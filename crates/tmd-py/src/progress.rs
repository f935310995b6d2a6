//! Progress for a Python caller: a bar on stderr only when asked (`progress=True`), in the
//! spirit of the CLI's (inputs done, the rate), and for a crunch the place where a cancelled
//! run is stopped: the job reports progress after each block, and [`CrunchBar::set`] unwinds
//! with [`Cancelled`] once the caller has given up.

use crate::Cancelled;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tmd_search::output::si;

/// A bar over `total` inputs on stderr, or a hidden one.
pub fn bar(total: u64, shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {prefix}{msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Shows `done` of `bar`'s total with the rate since `started`.
pub fn show(bar: &ProgressBar, done: u64, started: Instant) {
    let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-3);
    let total = bar.length().unwrap_or(0);
    bar.set_message(format!(
        "{} / {} inputs, {}/s",
        si(done as f64),
        si(total as f64),
        si(rate)
    ));
    bar.set_position(done);
}

/// The search's progress until it has finished (the job calls this on a thread of its own).
pub fn follow_search(progress: &tmd_search::job::SearchProgress) {
    let shown = bar(progress.total, true);
    let started = Instant::now();
    while !progress.finished.load(Ordering::Relaxed) {
        show(&shown, progress.done.load(Ordering::Relaxed), started);
        std::thread::sleep(Duration::from_millis(100));
    }
    shown.finish_and_clear();
}

/// A crunch run's bar: drawn when asked, and the point where a cancelled crunch stops.
pub struct CrunchBar {
    pub bar: ProgressBar,
    pub started: Instant,
    pub cancelled: Arc<AtomicBool>,
}

impl tmd_crunch::job::Bar for CrunchBar {
    fn set(&self, done: u64) {
        if self.cancelled.load(Ordering::Relaxed) {
            // Unwinds out of the job (through rayon, which passes a worker's panic on to
            // the thread that waits for it) to `crunch::run_cancellable`, which expects it.
            std::panic::panic_any(Cancelled);
        }
        show(&self.bar, done, self.started);
    }

    fn set_label(&self, label: &str) {
        self.bar.set_prefix(format!("{label} "));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Keeps the default panic message off stderr for [`Cancelled`], the expected way a
/// cancelled crunch ends; every other panic is reported as before.
pub fn quiet_cancellations() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Cancelled>().is_none() {
                previous(info);
            }
        }));
    });
}
