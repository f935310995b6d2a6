//! `tmd._tmd`, the native half of the Python package `tmd`: the library jobs the CLI runs
//! (`tmd_search::job::SearchJob`, `tmd_search::hardness::HardnessJob`, `tmd_crunch::job::run`),
//! called from Python with the same requests, the same checks and the same one-line errors.
//!
//! # Design
//!
//! * **No second implementation.** Every call builds the request the CLI's flags would build
//!   and runs the library job with its JSON output (`--json`): the fields and their meanings
//!   are those of `docs/definitions.md`, and a Python result is the CLI's JSON object read
//!   back (`python/tmd/__init__.py` turns each into a typed object). What a search lists from
//!   Python is therefore, line for line, what `tmd search --json` prints.
//! * **Streaming search, bounded memory.** `search::SearchStream` runs the job on a thread
//!   of its own whose output stream is a `search::LineSender`: every JSON line goes through
//!   a bounded channel (`std::sync::mpsc::sync_channel`) to the Python iterator. When Python
//!   reads slowly the job's writer blocks, its ordered sink stops starting chunks, and memory
//!   stays what the job itself bounds (`tmd_search::ordered`), whatever the range.
//! * **The GIL is released while Rust works.** Every wait (for the next line, for a crunch,
//!   for hardness results) runs in `Python::detach`, so other Python threads go on; the
//!   iterator wakes every `search::SIGNAL_POLL` to run `check_signals`, so Ctrl-C raises
//!   `KeyboardInterrupt` promptly.
//! * **Stopping a job.** The CLI stops on Ctrl-C by ending the process (`tmd/src/interrupt.rs`);
//!   a Python session must live on, so the jobs are stopped through the mechanisms they
//!   already have for a reader that went away: a search stops at its next finished chunk
//!   once its output stream fails (the listing's `wants_more`, the same path as a closed pipe
//!   under `tmd search | head`), and the stream fails once the iterator is closed, dropped or
//!   interrupted. A crunch stops at its next progress update: the progress bar the job calls
//!   after each block unwinds with a `Cancelled` payload, which the waiting call catches.
//! * **Errors are one line**, as `main` prints them (the error and its causes joined by
//!   `: `), raised as `tmd.InputError` where the CLI exits 2 (bad input) and as `tmd.JobError`
//!   where it exits 1; `tmd.GateError` (a `JobError`) is a failed `max_ulp` gate, raised
//!   after the reports are read (the Python side attaches them).
//! * **Progress only when asked**: with `progress=True` a bar on stderr (indicatif) and the
//!   job's lines (notes, the final count) as the CLI prints them; otherwise the job's lines
//!   are only kept, for the result's `messages`.
//!
//! # Building
//!
//! The module is behind the feature `python` (maturin turns it on: `pyproject.toml`); in a
//! workspace build the crate is empty. The module's shared object needs the shared libfplll
//! (tmd-lattice's `shared-fplll`), and the CLI keeps its static one only if no workspace build
//! turns that feature on.

#[cfg(feature = "python")]
mod crunch;
#[cfg(feature = "python")]
mod errors;
#[cfg(feature = "python")]
mod module;
#[cfg(feature = "python")]
mod progress;
#[cfg(feature = "python")]
mod search;

#[cfg(feature = "python")]
pub use errors::{GateError, InputError, JobError, TmdError};

/// The payload a cancelled job unwinds with (`crunch`); the panic hook keeps quiet about it.
#[cfg(feature = "python")]
pub(crate) struct Cancelled;
