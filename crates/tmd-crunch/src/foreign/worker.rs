//! Foreign functions run in worker processes, so that the code they name cannot take tmd
//! down with it.
//!
//! A crunch runs other people's code on billions of inputs. A function that dereferences a
//! null pointer at one input, calls `abort()` or `exit(0)`, or never returns, would end tmd
//! itself if it ran in tmd's process: the finished work and the reason would be lost, and
//! `exit(0)` would even pass a `--max-ulp` gate. So a foreign function is called only in a
//! worker: a small C program (`worker.c`, built by build.rs from the same loops,
//! `eval_under.c` and `eval_wide.c`, that set the rounding mode with `fesetround`) which
//! loads the library with `dlopen`, looks the symbol up, and then evaluates batches it reads
//! from a pipe, writing the results back.
//!
//! * **Why a C program, and why embedded.** The worker must be an executable this library
//!   can start from any process that links it: the `tmd` binary, but also test binaries and
//!   other programs, so re-executing `current_exe()` with a hidden entry point is not
//!   available, and Cargo gives a library no way to find a `[[bin]]` of its crate at run
//!   time. `fork()` without `exec` is unsafe once threads exist (rayon's, allocator locks).
//!   A C program needs no Rust runtime, links the C loops as they are, and needs no C
//!   compiler at run time: build.rs compiles it, the library embeds its bytes
//!   (`include_bytes!`), and the first use writes them into tmd's cache directory
//!   ([`super::compile::cache_dir`]) under a name that carries a hash of the bytes.
//! * **Batches.** The parent sends thousands of inputs at once (a crunch chunk, 2^13), so
//!   the cost of a round trip (two pipe transfers and two context switches) is spread over
//!   the batch; each rayon thread takes an idle worker from the target's pool or starts one,
//!   so there are as many workers as threads evaluating at once.
//! * **Deaths.** The worker catches fatal signals on an alternate stack (a stack overflow
//!   is caught too) and `exit` through an `atexit` handler, and writes a record naming the
//!   index of the input it was evaluating before it dies; a batch also arms `alarm` with the
//!   time limit ([`set_timeout`]), whose handler does the same. A worker that dies without a
//!   record (`_exit`, SIGKILL) is seen as the end of its pipe; the batch is then run again
//!   one input at a time in a fresh worker to find the input. The target keeps the first
//!   death ([`crate::target::TargetFailure`]), returns NaN from then on, and the run stops
//!   with that error before it records the block (finished blocks stay in the checkpoint).
//! * **Output.** The worker moves its results pipe off stdout and points stdout at stderr
//!   before loading the library, so what a target prints goes to stderr and never into the
//!   results or tmd's report. Workers are in a process group of their own, so Ctrl-C
//!   interrupts tmd (which says what it kept) and not a worker in the middle of a batch;
//!   a worker whose parent is gone reads the end of its input and exits.

use super::usage;
use crate::failure::{Death, TargetFailure};
use crate::rounding::Rounding;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use tmd_core::InputError;

/// The worker executable, compiled by build.rs.
static WORKER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/tmd-eval-worker"));

/// The time limit of one batch when [`set_timeout`] was not called: generous, since a batch
/// of 2^13 calls of a slow function (a multiple-precision one) may take seconds.
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 60;

static TIMEOUT: AtomicU32 = AtomicU32::new(DEFAULT_TIMEOUT_SECONDS);

/// Sets the time limit of one batch of a foreign target, in seconds (0: none), for the
/// targets made after the call: a worker that has not returned a batch after it is stopped,
/// and the run fails naming the input it was at.
pub fn set_timeout(seconds: u32) {
    TIMEOUT.store(seconds, Ordering::Relaxed);
}

/// What the worker calls: the signature, as the worker's `evaluate` numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Binary32 = 0,
    Binary64 = 1,
    /// `float f(float, float)`.
    Pair32 = 2,
    /// `double f(double, double)`.
    Pair64 = 3,
    /// x87 `long double`, as 16-byte encodings.
    Binary80 = 4,
    /// `__float128` (or a binary128 `long double`), as 16-byte encodings.
    Binary128 = 5,
    F32x4 = 6,
    F32x8 = 7,
    F32x16 = 8,
    F64x2 = 9,
    F64x4 = 10,
    F64x8 = 11,
}

impl Kind {
    /// Bytes per input and per result.
    pub fn sizes(self) -> (usize, usize) {
        match self {
            Kind::Binary32 | Kind::F32x4 | Kind::F32x8 | Kind::F32x16 => (4, 4),
            Kind::Binary64 | Kind::F64x2 | Kind::F64x4 | Kind::F64x8 => (8, 8),
            Kind::Pair32 => (8, 4),
            Kind::Pair64 => (16, 8),
            Kind::Binary80 | Kind::Binary128 => (16, 16),
        }
    }

    /// The bytes of input `i` of a batch of `n` in `input` (pairs: the first arguments, then
    /// the second ones).
    fn one_input(self, input: &[u8], n: usize, i: usize) -> Vec<u8> {
        let (size, _) = self.sizes();
        match self {
            Kind::Pair32 | Kind::Pair64 => {
                let half = size / 2;
                let mut v = input[i * half..(i + 1) * half].to_vec();
                v.extend_from_slice(&input[(n + i) * half..(n + i + 1) * half]);
                v
            }
            _ => input[i * size..(i + 1) * size].to_vec(),
        }
    }
}

/// Numbers that cross the pipes as their bytes: no padding, and every bit pattern is one of
/// them.
pub trait Plain: Copy + private::Sealed {}
impl Plain for f32 {}
impl Plain for f64 {}
impl Plain for [u8; 16] {}
mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for [u8; 16] {}
}

/// The bytes of `v`, without a copy.
pub fn bytes_of<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding, so every byte is initialised; u8 needs no
    // alignment; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The bytes of `v`, to be written.
pub fn bytes_of_mut<T: Plain>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `bytes_of`; any bytes written make a valid `T` (`Plain`).
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Where input `i` of a batch is, for a failure's message, whatever the arity: `arguments`
/// holds each argument's values (one slice, or the two of a pair), `hex` prints one. `None`:
/// somewhere in the batch, named by its first and last inputs.
pub(crate) fn place_in_batch<T>(
    arguments: &[&[T]],
    hex: impl Fn(&T) -> String,
    i: Option<usize>,
) -> String {
    let input = |i: usize| {
        let values: Vec<String> = arguments.iter().map(|a| hex(&a[i])).collect();
        match values.as_slice() {
            [x] => x.clone(),
            _ => format!("({})", values.join(", ")),
        }
    };
    let (named, among) = if arguments.len() == 1 {
        ("x = ", "x = ")
    } else {
        ("(x, y) = ", "the pairs ")
    };
    match i {
        Some(i) => format!("{named}{}", input(i)),
        None => format!(
            "one of {among}{} to {} (not again when run one at a time)",
            input(0),
            input(arguments[0].len() - 1)
        ),
    }
}

/// A batch that killed its worker: how, and the index of the input it was at, when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Died {
    pub death: Death,
    pub index: Option<usize>,
}

const TAG_OK: u64 = 0;
const TAG_LOAD_ERROR: u64 = 1;
const TAG_DIED: u64 = 2;
const LOAD_SYMBOL: u64 = 2;
const CAUSE_EXIT: u64 = 2;
const CAUSE_TIMEOUT: u64 = 3;

/// One worker process.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

fn read_word(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_ne_bytes(b))
}

/// What a worker wrote when it died: cause, detail, index.
type Record = (u64, u64, u64);

fn read_record(r: &mut impl Read) -> Option<Record> {
    Some((read_word(r).ok()?, read_word(r).ok()?, read_word(r).ok()?))
}

impl Worker {
    /// Evaluates a batch; on a death, reaps the worker and says how it ended.
    fn batch(mut self, input: &[u8], n: usize, out: &mut [u8], limit: u32) -> Result<Self, Died> {
        let sent = (self.stdin.write_all(&(n as u64).to_ne_bytes()))
            .and_then(|_| self.stdin.write_all(input))
            .and_then(|_| self.stdin.flush());
        let record = match read_word(&mut self.stdout) {
            Ok(TAG_OK) if sent.is_ok() => match self.stdout.read_exact(out) {
                Ok(()) => return Ok(self),
                Err(_) => None,
            },
            Ok(TAG_DIED) => read_record(&mut self.stdout),
            _ => None,
        };
        Err(self.reap(record, limit))
    }

    /// Waits for a dying worker (killing it if it lingers) and reads how it ended.
    fn reap(mut self, record: Option<Record>, limit: u32) -> Died {
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(5);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = self.child.kill();
                    break self.child.wait().ok();
                }
            }
        };
        use std::os::unix::process::ExitStatusExt;
        let from_status = || match status {
            Some(s) if s.signal().is_some() => Death::Signal(s.signal().unwrap_or(0)),
            Some(s) => Death::Exit(s.code().unwrap_or(0)),
            None => Death::Lost("its status is unknown".into()),
        };
        match record {
            Some((CAUSE_TIMEOUT, _, index)) => Died {
                death: Death::Timeout(limit),
                index: usize::try_from(index).ok(),
            },
            Some((cause, detail, index)) => Died {
                death: match (cause, from_status()) {
                    (CAUSE_EXIT, d @ Death::Exit(_)) => d,
                    (CAUSE_EXIT, _) => Death::Exit(0),
                    (_, d @ Death::Signal(_)) => d,
                    _ => Death::Signal(detail as i32),
                },
                index: usize::try_from(index).ok().filter(|_| index != u64::MAX),
            },
            None => Died {
                death: from_status(),
                index: None,
            },
        }
    }

    /// Ends an idle worker: the end of its input makes it exit.
    fn close(self) {
        let Worker {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let _ = child.wait();
    }
}

/// Why a worker did not start.
enum StartError {
    /// The worker said so: what (library, symbol) and dlerror's text.
    Load(u64, String),
    /// It died while loading (the library's initialisers).
    Died(Died),
    /// It could not be started at all.
    Spawn(String),
}

/// A foreign function and the workers that evaluate it, one per thread evaluating at once.
pub struct Workers {
    /// The target's name, for its failure.
    spec: String,
    library: String,
    symbol: String,
    kind: Kind,
    mode: Rounding,
    limit: u32,
    idle: Mutex<Vec<Worker>>,
    /// The death kept ([`Workers::eval_or_fail`]) and its place in the run's order; the
    /// target evaluates nothing more after one.
    failure: Mutex<Option<(f64, TargetFailure)>>,
}

impl Workers {
    /// Starts a worker for `symbol` of `library` (a path or a name for the dynamic loader),
    /// called as `kind` under `mode`; its loading errors are the target's (`spec`) bad input.
    pub fn start(
        spec: &str,
        library: &super::Loadable,
        symbol: &str,
        kind: Kind,
        mode: Rounding,
    ) -> Result<Workers, InputError> {
        let workers = Workers {
            spec: spec.to_string(),
            library: library.path.clone(),
            symbol: symbol.to_string(),
            kind,
            mode,
            limit: TIMEOUT.load(Ordering::Relaxed),
            idle: Mutex::new(Vec::new()),
            failure: Mutex::new(None),
        };
        let first = workers.spawn().map_err(|e| match e {
            StartError::Load(LOAD_SYMBOL, why) => usage(
                spec,
                &format!("no symbol {symbol} in {} ({why})", library.path),
            ),
            StartError::Load(_, why) => {
                let hint = match library.package {
                    Some(p) => format!("; install the Debian package {p}"),
                    None => String::new(),
                };
                usage(spec, &format!("cannot load {} ({why}){hint}", library.path))
            }
            StartError::Died(died) => {
                usage(spec, &format!("loading {} {}", library.path, died.death))
            }
            StartError::Spawn(why) => usage(spec, &why),
        })?;
        workers.idle_push(first);
        Ok(workers)
    }

    fn idle_push(&self, w: Worker) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(w);
    }

    fn idle_pop(&self) -> Option<Worker> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// A new worker with the function loaded.
    fn spawn(&self) -> Result<Worker, StartError> {
        let exe = executable().map_err(StartError::Spawn)?;
        let mode = super::mode_number(self.mode).to_string();
        let mut command = Command::new(exe);
        command
            .arg(&self.library)
            .arg(&self.symbol)
            .arg((self.kind as u32).to_string())
            .arg(mode)
            .arg(self.limit.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = spawn_retrying(&mut command).map_err(|e| {
            StartError::Spawn(format!(
                "cannot start the evaluation worker {} ({e})",
                exe.display()
            ))
        })?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let (Some(stdin), Some(mut stdout)) = (stdin, stdout) else {
            return Err(StartError::Spawn("the worker has no pipes".into()));
        };
        let tag = read_word(&mut stdout);
        let mut worker = Worker {
            child,
            stdin,
            stdout,
        };
        match tag {
            Ok(TAG_OK) => Ok(worker),
            Ok(TAG_LOAD_ERROR) => {
                let what = read_word(&mut worker.stdout).unwrap_or(0);
                let len = read_word(&mut worker.stdout).unwrap_or(0).min(1 << 16);
                let mut text = vec![0u8; len as usize];
                let _ = worker.stdout.read_exact(&mut text);
                worker.close();
                Err(StartError::Load(
                    what,
                    String::from_utf8_lossy(&text).into_owned(),
                ))
            }
            Ok(TAG_DIED) => {
                let record = read_record(&mut worker.stdout);
                Err(StartError::Died(worker.reap(record, self.limit)))
            }
            _ => Err(StartError::Died(worker.reap(None, self.limit))),
        }
    }

    /// The first batch that killed a worker, if any.
    pub fn failure(&self) -> Option<TargetFailure> {
        let slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|(_, f)| f.clone())
    }

    /// [`Workers::eval`], keeping a death as the target's failure; `at` describes the input
    /// it happened at (`None`: somewhere in the batch) and gives its place in the run's order.
    /// Of the deaths of batches evaluated at once, the one earliest in that order is kept,
    /// so that a target that dies at every input is reported at the first one whichever
    /// thread saw its death first. False when `out` holds no results (this batch or an
    /// earlier one failed).
    pub fn eval_or_fail(
        &self,
        input: &[u8],
        n: usize,
        out: &mut [u8],
        at: impl Fn(Option<usize>) -> (String, f64),
    ) -> bool {
        if self.failure().is_some() {
            return false;
        }
        let Err(died) = self.eval(input, n, out) else {
            return true;
        };
        let (place, order) = at(died.index);
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|(kept, _)| order < *kept) {
            let failure = TargetFailure {
                target: self.spec.clone(),
                death: died.death,
                at: place,
            };
            *slot = Some((order, failure));
        }
        false
    }

    /// `out` (n results) from `input` (n inputs, see [`Kind::sizes`]), or how the worker
    /// died and at which input.
    pub fn eval(&self, input: &[u8], n: usize, out: &mut [u8]) -> Result<(), Died> {
        if n == 0 {
            return Ok(());
        }
        let worker = match self.idle_pop() {
            Some(w) => w,
            None => self.spawn().map_err(lost)?,
        };
        match worker.batch(input, n, out, self.limit) {
            Ok(w) => {
                self.idle_push(w);
                Ok(())
            }
            Err(died) if died.index.is_some() || matches!(died.death, Death::Timeout(_)) => {
                Err(died)
            }
            Err(died) => Err(self.locate(input, n, died)),
        }
    }

    /// Runs the batch again one input at a time in fresh workers, to find the input a death
    /// without a record happened at; `died` as it is when no input repeats it.
    fn locate(&self, input: &[u8], n: usize, died: Died) -> Died {
        let (_, out_size) = self.kind.sizes();
        let mut out = vec![0u8; out_size];
        let mut worker = None;
        for i in 0..n {
            let w = match worker.take() {
                Some(w) => w,
                None => match self.spawn() {
                    Ok(w) => w,
                    Err(_) => return died,
                },
            };
            match w.batch(&self.kind.one_input(input, n, i), 1, &mut out, self.limit) {
                Ok(w) => worker = Some(w),
                Err(again) => {
                    return Died {
                        death: again.death,
                        index: Some(i),
                    }
                }
            }
        }
        if let Some(w) = worker {
            self.idle_push(w);
        }
        died
    }
}

fn lost(e: StartError) -> Died {
    let death = match e {
        StartError::Died(d) => return d,
        StartError::Load(_, why) | StartError::Spawn(why) => Death::Lost(why),
    };
    Died { death, index: None }
}

impl Drop for Workers {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|e| e.into_inner()));
        for w in idle {
            w.close();
        }
    }
}

/// Spawns, trying again while the executable is busy: a file just written may still be open
/// for writing in a child another thread forked before its `exec` closed it (ETXTBSY).
fn spawn_retrying(command: &mut Command) -> std::io::Result<Child> {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// The worker executable on disk, written on first use.
fn executable() -> Result<&'static Path, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(install)
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

fn install() -> Result<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    use std::os::unix::fs::PermissionsExt;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    WORKER.hash(&mut h);
    let dir = super::compile::cache_dir();
    let path = dir.join(format!("tmd-eval-worker-{:016x}", h.finish()));
    if path.is_file() {
        return Ok(path);
    }
    let fail = |what: &str, p: &Path, e: std::io::Error| {
        format!(
            "cannot {what} the evaluation worker {} ({e}); set XDG_CACHE_HOME to a writable directory",
            p.display()
        )
    };
    std::fs::create_dir_all(&dir).map_err(|e| fail("create the directory of", &dir, e))?;
    // Written under a name of its own, then renamed: other processes never see half of it.
    let partial = dir.join(format!(
        ".tmd-eval-worker.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&partial, WORKER).map_err(|e| fail("write", &partial, e))?;
    std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| fail("make executable", &partial, e))?;
    std::fs::rename(&partial, &path).map_err(|e| fail("write", &path, e))?;
    Ok(path)
}
