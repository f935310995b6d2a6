//! A breakdown of device calls on stderr when `TMD_TRACE_DEVICE` is set: a diagnostic for
//! tuning runs (`--stats` has the totals).

use std::time::Instant;

/// Whether `TMD_TRACE_DEVICE` is set.
pub(crate) fn enabled() -> bool {
    std::env::var_os("TMD_TRACE_DEVICE").is_some()
}

/// The steps of one device call, each with the microseconds since the previous mark.
pub(crate) struct Trace {
    on: bool,
    last: Instant,
    marks: Vec<(&'static str, u64)>,
}

impl Trace {
    pub(crate) fn new(started: Instant) -> Trace {
        Trace {
            on: enabled(),
            last: started,
            marks: Vec::new(),
        }
    }

    pub(crate) fn mark(&mut self, what: &'static str) {
        if self.on {
            let now = Instant::now();
            self.marks
                .push((what, now.duration_since(self.last).as_micros() as u64));
            self.last = now;
        }
    }

    pub(crate) fn print(&self, items: usize) {
        if self.on {
            let parts: Vec<String> = self
                .marks
                .iter()
                .map(|(what, us)| format!("{what} {us} us"))
                .collect();
            eprintln!("tmd-trace: {items} work-items: {}", parts.join(", "));
        }
    }
}
