//! `tmd.crunch`: the CLI's crunch job (`tmd_crunch::job::run`) with JSON output, run on a
//! thread of its own while the caller waits without the GIL and watches for Ctrl-C.

use crate::errors;
use crate::progress::{quiet_cancellations, CrunchBar};
use crate::Cancelled;
use pyo3::prelude::*;
use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;
use tmd_crunch::job::{Bar, CrunchHost, CrunchRequest, JobError, Observer};
use tmd_crunch::target::BoxedTarget;
use tmd_crunch::{CrunchFormat, Rounding};
use tmd_gpu::crunch_target::{resolve_device, DeviceChoice};

/// The payload a device target unwinds with when a launch fails in the middle of a run: the
/// CLI prints its line and exits 1; here it becomes a `JobError`.
struct DeviceFailed(String);

fn device_failure(line: &str) -> ! {
    std::panic::panic_any(DeviceFailed(line.to_string()))
}

/// Progress bars (drawn when asked) that stop a cancelled run, and the device targets.
struct Host {
    progress: bool,
    cancelled: Arc<AtomicBool>,
    device: Option<usize>,
    function: Option<String>,
}

impl Observer for Host {
    fn bar(&self, total: u64) -> Box<dyn Bar> {
        Box::new(CrunchBar {
            bar: crate::progress::bar(total, self.progress),
            started: Instant::now(),
            cancelled: self.cancelled.clone(),
        })
    }

    /// No resumable run to mention: a checkpoint, when given, is named by the caller.
    fn kept(&self, _what: String) {}
}

impl CrunchHost for Host {
    fn device_target(
        &self,
        spec: &str,
        backend: &str,
        format: Option<CrunchFormat>,
    ) -> Result<BoxedTarget, JobError> {
        let choice = DeviceChoice {
            backend,
            index: self.device.unwrap_or(0),
            function: self.function.as_deref(),
            format,
            host_analysis: false,
            on_failure: device_failure,
        };
        Ok(resolve_device(spec, &choice)?)
    }
}

/// `nearest`, `up`, `down`, `zero` or `all` (the four in turn).
fn rounding_modes(names: &[String]) -> PyResult<Vec<Rounding>> {
    let mut modes = Vec::new();
    for name in names {
        if name == "all" {
            modes.extend(Rounding::ALL);
            continue;
        }
        modes.push(Rounding::parse(name).ok_or_else(|| {
            crate::InputError::new_err(format!(
                "--rounding {name}: expected nearest, up, down, zero or all"
            ))
        })?);
    }
    if modes.is_empty() {
        return Err(crate::InputError::new_err(
            "--rounding: expected nearest, up, down, zero or all",
        ));
    }
    Ok(modes)
}

/// How a crunch thread ended.
enum Ended {
    Finished(Result<(), JobError>, Vec<u8>),
    Panicked(Box<dyn Any + Send>),
}

/// Runs `tmd crunch --json`; returns its output (JSON lines: the wrong inputs of an input
/// list, then a report per rounding mode) and, when `max_ulp` was not met, the gate's line.
#[pyfunction]
#[pyo3(signature = (target, lo, hi, inputs, function, format, rounding, max_ulp, backend,
    device, block_bits, sample, checkpoint, threads, target_timeout, progress))]
#[allow(clippy::too_many_arguments)]
pub fn crunch(
    py: Python<'_>,
    target: String,
    lo: Option<String>,
    hi: Option<String>,
    inputs: Option<PathBuf>,
    function: Option<String>,
    format: Option<String>,
    rounding: Vec<String>,
    max_ulp: Option<f64>,
    backend: String,
    device: Option<usize>,
    block_bits: Option<u32>,
    sample: Option<u64>,
    checkpoint: Option<PathBuf>,
    threads: Option<usize>,
    target_timeout: u32,
    progress: bool,
) -> PyResult<(String, Option<String>)> {
    if let Some(x) = max_ulp.filter(|x| !(x.is_finite() && *x >= 0.0)) {
        return Err(crate::InputError::new_err(format!(
            "--max-ulp {x}: expected a finite number of ulps, 0 or more"
        )));
    }
    if threads.is_some_and(|n| !(1..=1024).contains(&n)) {
        return Err(crate::InputError::new_err(
            "--threads: expected 1 to 1024 worker threads",
        ));
    }
    let request = CrunchRequest {
        target,
        from: lo,
        to: hi,
        inputs,
        strict: false,
        exhaustive: false,
        structured: false,
        seed: None,
        max_ulp,
        format,
        backend,
        device,
        host_analysis: false,
        function: function.clone(),
        rounding: rounding_modes(&rounding)?,
        checkpoint,
        plot: None,
        block_bits,
        sample,
        json: true,
        estimate: false,
        target_timeout,
        threads,
    };
    let cancelled = Arc::new(AtomicBool::new(false));
    let host = Host {
        progress,
        cancelled: cancelled.clone(),
        device,
        function,
    };
    quiet_cancellations();
    let (done, mut results) = channel();
    std::thread::Builder::new()
        .name("tmd-crunch".into())
        .spawn(move || {
            let mut out = Vec::new();
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                tmd_crunch::job::run(&request, &mut out, &host)
            }));
            let _ = done.send(match run {
                Ok(result) => Ended::Finished(result, out),
                Err(payload) => Ended::Panicked(payload),
            });
        })
        .map_err(|e| crate::JobError::new_err(format!("starting the crunch thread: {e}")))?;
    let ended = loop {
        // The receiver goes into the closure and back: a `&Receiver` may not cross threads.
        let (back, got) = py.detach(move || {
            let got = results.recv_timeout(crate::search::SIGNAL_POLL);
            (results, got)
        });
        results = back;
        match got {
            Ok(ended) => break ended,
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    // The run stops at its next progress update; nobody waits for it.
                    cancelled.store(true, Ordering::Relaxed);
                    return Err(interrupt);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(crate::JobError::new_err(
                    "the crunch thread ended without a result",
                ))
            }
        }
    };
    match ended {
        Ended::Finished(result, out) => {
            let text = String::from_utf8_lossy(&out).into_owned();
            match result {
                Ok(()) => Ok((text, None)),
                Err(JobError::Gate(gate)) => Ok((text, Some(errors::one_line(&gate)))),
                Err(e) => Err(errors::crunch_job(e)),
            }
        }
        Ended::Panicked(payload) => Err(crate::JobError::new_err(panic_line(payload))),
    }
}

/// The line of a run that unwound: a device failure's own line, or the panic's message.
fn panic_line(payload: Box<dyn Any + Send>) -> String {
    if let Some(DeviceFailed(line)) = payload.downcast_ref::<DeviceFailed>() {
        return line.clone();
    }
    if payload.downcast_ref::<Cancelled>().is_some() {
        return "the crunch was stopped".into();
    }
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown cause".into());
    format!("the crunch failed: {message}")
}
