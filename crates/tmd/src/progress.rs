//! The progress line of long runs: inputs done and in all, and the rate, in SI units
//! (`1.2 G / 4.5 T inputs, 4.3 G/s`), and an ETA. A search that has lasted a while takes it
//! from its plan (`ETA 3h05m by the plan`: `tmd_search::job::progress`), since its inputs cost
//! very different amounts; otherwise it comes from the mean rate so far, shown only once it
//! means something (after 5 s and 0.5% of the work; work done in large uneven steps, such as
//! chunks decided whole, makes an earlier figure a guess).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};
use tmd_search::output::si;

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    total: u64,
}

impl Progress {
    /// A bar on stderr, or none when `quiet`.
    pub fn new(total: u64, quiet: bool) -> Progress {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {prefix}{msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Progress {
            bar,
            started: Instant::now(),
            total,
        }
    }

    /// `done` inputs of the total are finished.
    pub fn set(&self, done: u64) {
        self.set_planned(done, None);
    }

    /// `done` inputs of the total are finished, and the plan leaves `planned_left` seconds
    /// (when known).
    pub fn set_planned(&self, done: u64, planned_left: Option<f64>) {
        let elapsed = self.started.elapsed();
        let eta = match planned_left {
            Some(left) => format!("ETA {} by the plan", duration_text(left)),
            None => eta(done, self.total, elapsed),
        };
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
        self.bar.set_message(format!(
            "{} / {} inputs, {}/s, {}",
            si(done as f64),
            si(self.total as f64),
            si(rate),
            eta
        ));
        self.bar.set_position(done);
    }

    /// What is running now, shown before the counts (`tmd report`'s current cell).
    pub fn set_label(&self, label: &str) {
        self.bar.set_prefix(format!("{label}: "));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The time left at the mean rate so far, or "ETA unknown" while that rate means little.
fn eta(done: u64, total: u64, elapsed: Duration) -> String {
    if elapsed < Duration::from_secs(5) || done == 0 || (done as f64) < total as f64 / 200.0 {
        return "ETA unknown".to_string();
    }
    let left = (total - done.min(total)) as f64 * elapsed.as_secs_f64() / done as f64;
    format!("ETA {}", duration_text(left))
}

/// Seconds in the two largest units that matter: `45s`, `3m05s`, `2h07m`, `4d03h`.
fn duration_text(seconds: f64) -> String {
    let s = seconds.clamp(0.0, 1e15).round() as u64;
    let (d, h, m, sec) = (s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{sec}s"),
        (0, 0, _) => format!("{m}m{sec:02}s"),
        (0, _, _) => format!("{h}h{m:02}m"),
        _ => format!("{d}d{h:02}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_waits_for_a_meaningful_rate() {
        assert_eq!(eta(10, 100, Duration::from_secs(2)), "ETA unknown");
        assert_eq!(eta(1, 1000, Duration::from_secs(60)), "ETA unknown");
        assert_eq!(eta(50, 100, Duration::from_secs(60)), "ETA 1m00s");
        assert_eq!(eta(1, 100, Duration::from_secs(3600)), "ETA 4d03h");
    }

    #[test]
    fn durations_keep_their_two_largest_units() {
        assert_eq!(duration_text(44.6), "45s");
        assert_eq!(duration_text(185.0), "3m05s");
        assert_eq!(duration_text(7620.0), "2h07m");
        assert_eq!(duration_text(63.7 * 86400.0), "63d16h");
        assert_eq!(duration_text(-1.0), "0s");
    }
}
