//! The progress line of long runs: inputs done and in all, and the rate, in SI units
//! (`1.2 G / 4.5 T inputs, 4.3 G/s`), and an ETA from the mean rate so far, shown only once
//! it means something (after 5 s and 0.5% of the work; work done in large uneven steps, such
//! as chunks decided whole, makes an earlier figure a guess).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

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
        let elapsed = self.started.elapsed();
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
        self.bar.set_message(format!(
            "{} / {} inputs, {}/s, {}",
            si(done as f64),
            si(self.total as f64),
            si(rate),
            eta(done, self.total, elapsed)
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

/// `x` with an SI prefix and three significant digits: 950, 1.20 k, 4.30 G.
pub fn si(x: f64) -> String {
    const PREFIXES: [&str; 7] = ["", " k", " M", " G", " T", " P", " E"];
    let mut v = x;
    let mut i = 0;
    while v >= 999.5 && i + 1 < PREFIXES.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
            .chars()
            .take(4)
            .collect::<String>()
            .trim_end_matches('.')
            .to_string()
            + PREFIXES[i]
    }
}

/// The time left at the mean rate so far, or "ETA unknown" while that rate means little.
fn eta(done: u64, total: u64, elapsed: Duration) -> String {
    if elapsed < Duration::from_secs(5) || done == 0 || (done as f64) < total as f64 / 200.0 {
        return "ETA unknown".to_string();
    }
    let left = (total - done.min(total)) as f64 * elapsed.as_secs_f64() / done as f64;
    let s = left.round() as u64;
    let (d, h, m, sec) = (s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("ETA {sec}s"),
        (0, 0, _) => format!("ETA {m}m{sec:02}s"),
        (0, _, _) => format!("ETA {h}h{m:02}m"),
        _ => format!("ETA {d}d{h:02}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes_keep_three_digits() {
        assert_eq!(si(950.0), "950");
        assert_eq!(si(1200.0), "1.20 k");
        assert_eq!(si(4.3e9), "4.30 G");
        assert_eq!(si(12_345_678.0), "12.3 M");
        assert_eq!(si(999_999.0), "1.00 M");
        assert_eq!(si(2.25e21), "2250 E");
    }

    #[test]
    fn eta_waits_for_a_meaningful_rate() {
        assert_eq!(eta(10, 100, Duration::from_secs(2)), "ETA unknown");
        assert_eq!(eta(1, 1000, Duration::from_secs(60)), "ETA unknown");
        assert_eq!(eta(50, 100, Duration::from_secs(60)), "ETA 1m00s");
        assert_eq!(eta(1, 100, Duration::from_secs(3600)), "ETA 4d03h");
    }
}
