//! `tmd.search` and `tmd.plan`: the CLI's `SearchJob` with JSON output, its lines streamed to
//! a Python iterator through a bounded channel ([`SearchStream`]).

use crate::errors;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use tmd_search::job::{JobError, JobWatcher, Outputs, SearchJob, SearchProgress};
use tmd_search::SearchRequest;

/// How long the iterator waits for a line with the GIL released before it looks for a
/// signal (Ctrl-C): short enough to feel immediate, long enough to cost nothing.
pub const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Lines the channel holds before the job's writer waits for Python to read: a few hundred
/// KiB at most, whatever the range.
const CHANNEL_LINES: usize = 1024;

/// The job's output stream: complete JSON lines, each sent through the channel. It fails
/// (as a closed pipe does) once the reader is gone or the search was stopped, which ends the
/// job at its next finished chunk: the job flushes its stream after every chunk, so even a
/// chunk without cases reaches [`LineSender::flush`].
struct LineSender {
    partial: Vec<u8>,
    lines: SyncSender<String>,
    stopped: Arc<AtomicBool>,
}

fn stopped_error() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the search was stopped")
}

impl Write for LineSender {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.stopped.load(Ordering::Relaxed) {
            return Err(stopped_error());
        }
        self.partial.extend_from_slice(data);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]).into_owned();
            self.lines.send(text).map_err(|_| stopped_error())?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.stopped.load(Ordering::Relaxed) {
            return Err(stopped_error());
        }
        Ok(())
    }
}

/// What the job says, kept for Python (`messages`) and, with a progress bar, also printed.
struct Watcher {
    messages: Arc<Mutex<Vec<String>>>,
    progress: bool,
}

impl JobWatcher for Watcher {
    fn say(&self, line: &str) {
        if self.progress {
            eprintln!("tmd: {line}");
        }
        self.messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line.to_string());
    }

    fn journal_opened(&self, _dir: &std::path::Path) {}

    fn show_progress(&self, progress: &SearchProgress) {
        if self.progress {
            crate::progress::follow_search(progress);
        }
    }
}

/// The arguments of a search, as `tmd.search` passes them.
#[allow(clippy::too_many_arguments)]
fn request(
    function: &str,
    lo: &str,
    hi: &str,
    format: &str,
    bits: Option<u32>,
    breakpoints: &str,
    exact: bool,
    expand_ranges: bool,
    max_precision: u32,
    algorithm: &str,
    backend: &str,
    chunk_bits: Option<u32>,
) -> SearchRequest {
    SearchRequest {
        format: format.to_string(),
        bits,
        breakpoints: breakpoints.to_string(),
        exact,
        expand_ranges,
        max_precision,
        algorithm: algorithm.to_string(),
        backend: backend.to_string(),
        chunk_bits,
        // The rest (the lower-bound tests' domain size and kappa, ...) as `tmd search`'s.
        ..SearchRequest::new(function, lo, hi)
    }
}

/// The planned job with its device attached; `resume` the journal's directory.
fn job(
    request: &SearchRequest,
    resume: Option<PathBuf>,
    threads: Option<usize>,
    device: Option<usize>,
) -> PyResult<SearchJob> {
    let outputs = Outputs {
        resume,
        json: true,
        version: format!("{} (Python module)", env!("CARGO_PKG_VERSION")),
        command_line: format!("tmd.search({:?}, ...)", request.function),
        ..Outputs::default()
    };
    if threads.is_some_and(|n| !(1..=1024).contains(&n)) {
        return Err(crate::InputError::new_err(
            "--threads: expected 1 to 1024 worker threads",
        ));
    }
    let mut job = SearchJob::new(request, outputs, threads).map_err(errors::search_job)?;
    job.attach_device(device, tmd_gpu::filter::open_search_device)
        .map_err(errors::search_job)?;
    Ok(job)
}

/// A running search: an iterator over its JSON lines (cases and range records, in x order).
/// The job runs on a thread of its own and waits when Python has not read the lines it
/// listed (the channel is bounded); closing, dropping or interrupting the iterator stops it.
#[pyclass(module = "tmd._tmd")]
pub struct SearchStream {
    /// `None` once the search has ended or was stopped, or while `__next__` waits on it.
    lines: Mutex<Option<Receiver<String>>>,
    ended: AtomicBool,
    stopped: Arc<AtomicBool>,
    worker: Mutex<Option<JoinHandle<Result<(), JobError>>>>,
    messages: Arc<Mutex<Vec<String>>>,
}

impl SearchStream {
    /// Stops the job at its next finished chunk, without waiting for it.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        self.ended.store(true, Ordering::Relaxed);
        drop(self.lines.lock().unwrap_or_else(|e| e.into_inner()).take());
    }

    fn take_worker(&self) -> Option<JoinHandle<Result<(), JobError>>> {
        self.worker.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

#[pymethods]
impl SearchStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next JSON line; at the end, the job's error if it failed.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<String>> {
        loop {
            let taken = self.lines.lock().unwrap_or_else(|e| e.into_inner()).take();
            let Some(lines) = taken else {
                if self.ended.load(Ordering::Relaxed) {
                    return Ok(None);
                }
                return Err(PyRuntimeError::new_err(
                    "this search is being read by another thread",
                ));
            };
            let (lines, got) = py.detach(move || {
                let got = lines.recv_timeout(SIGNAL_POLL);
                (lines, got)
            });
            match got {
                Ok(line) => {
                    *self.lines.lock().unwrap_or_else(|e| e.into_inner()) = Some(lines);
                    return Ok(Some(line));
                }
                Err(RecvTimeoutError::Timeout) => {
                    *self.lines.lock().unwrap_or_else(|e| e.into_inner()) = Some(lines);
                    if let Err(interrupt) = py.check_signals() {
                        self.stop();
                        return Err(interrupt);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.ended.store(true, Ordering::Relaxed);
                    let Some(worker) = self.take_worker() else {
                        return Ok(None);
                    };
                    return match py.detach(move || worker.join()) {
                        Ok(Ok(())) => Ok(None),
                        Ok(Err(e)) => Err(errors::search_job(e)),
                        Err(_) => Err(crate::JobError::new_err("the search panicked")),
                    };
                }
            }
        }
    }

    /// Stops the search and waits for its thread to end (at its next finished chunk).
    fn close(&self, py: Python<'_>) {
        self.stop();
        if let Some(worker) = self.take_worker() {
            let _ = py.detach(move || worker.join());
        }
    }

    /// The job's lines so far: notes on the arguments, and at the end the counts.
    #[getter]
    fn messages(&self) -> Vec<String> {
        self.messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for SearchStream {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts `tmd search --json` and returns its stream of lines. Bad arguments raise here,
/// before any line.
#[pyfunction]
#[pyo3(signature = (function, lo, hi, format, bits, breakpoints, exact, expand_ranges,
    max_precision, algorithm, backend, device, threads, chunk_bits, resume, progress))]
#[allow(clippy::too_many_arguments)]
pub fn search_stream(
    py: Python<'_>,
    function: &str,
    lo: &str,
    hi: &str,
    format: &str,
    bits: Option<u32>,
    breakpoints: &str,
    exact: bool,
    expand_ranges: bool,
    max_precision: u32,
    algorithm: &str,
    backend: &str,
    device: Option<usize>,
    threads: Option<usize>,
    chunk_bits: Option<u32>,
    resume: Option<PathBuf>,
    progress: bool,
) -> PyResult<SearchStream> {
    let request = request(
        function,
        lo,
        hi,
        format,
        bits,
        breakpoints,
        exact,
        expand_ranges,
        max_precision,
        algorithm,
        backend,
        chunk_bits,
    );
    let job = py.detach(|| job(&request, resume, threads, device))?;
    let (sender, receiver) = sync_channel(CHANNEL_LINES);
    let stopped = Arc::new(AtomicBool::new(false));
    let messages = Arc::new(Mutex::new(Vec::new()));
    let stream = LineSender {
        partial: Vec::new(),
        lines: sender,
        stopped: stopped.clone(),
    };
    let watcher = Watcher {
        messages: messages.clone(),
        progress,
    };
    let worker = std::thread::Builder::new()
        .name("tmd-search".into())
        .spawn(move || job.run(Box::new(stream), &watcher))
        .map_err(|e| crate::JobError::new_err(format!("starting the search thread: {e}")))?;
    Ok(SearchStream {
        lines: Mutex::new(Some(receiver)),
        ended: AtomicBool::new(false),
        stopped,
        worker: Mutex::new(Some(worker)),
        messages,
    })
}

/// `tmd search --plan --json`: the pieces (JSON lines) and the job's lines (the total last).
#[pyfunction]
#[pyo3(signature = (function, lo, hi, format, bits, breakpoints, max_precision, algorithm,
    backend, device, threads, chunk_bits))]
#[allow(clippy::too_many_arguments)]
pub fn plan(
    py: Python<'_>,
    function: &str,
    lo: &str,
    hi: &str,
    format: &str,
    bits: Option<u32>,
    breakpoints: &str,
    max_precision: u32,
    algorithm: &str,
    backend: &str,
    device: Option<usize>,
    threads: Option<usize>,
    chunk_bits: Option<u32>,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let request = request(
        function,
        lo,
        hi,
        format,
        bits,
        breakpoints,
        false,
        false,
        max_precision,
        algorithm,
        backend,
        chunk_bits,
    );
    py.detach(|| {
        let job = job(&request, None, threads, device)?;
        let messages = Arc::new(Mutex::new(Vec::new()));
        let watcher = Watcher {
            messages: messages.clone(),
            progress: false,
        };
        let mut out = Vec::new();
        job.write_plan(&mut out, &watcher)
            .map_err(errors::search_job)?;
        let pieces = String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_string)
            .collect();
        let said = messages.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok((pieces, said))
    })
}
