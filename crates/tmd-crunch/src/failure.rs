//! How a run of a foreign target ends when the target does: the death of the worker process
//! that called it ([`Death`]) and the failure the run reports ([`TargetFailure`]). A leaf, so
//! that targets of every arity and the worker machinery name them without depending on each
//! other.

/// How a worker ended in the middle of a batch.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Death {
    /// Killed by a signal (a fault, `abort()`).
    Signal(i32),
    /// The target called `exit` (or `_exit`) with this status.
    Exit(i32),
    /// The batch did not return within the time limit (seconds).
    Timeout(u32),
    /// The worker could not be started again or talked to.
    Lost(String),
}

impl std::fmt::Display for Death {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Death::Signal(s) => write!(f, "crashed ({})", signal_name(*s)),
            Death::Exit(code) => write!(f, "exited (status {code})"),
            Death::Timeout(s) => write!(f, "did not return within {s} s"),
            Death::Lost(why) => write!(f, "could not be run ({why})"),
        }
    }
}

/// The signal's name on Linux (`SIGSEGV`), or its number.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// A foreign target that stopped working in the middle of a run: the code it calls crashed,
/// exited or did not return at one input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error(
    "target `{target}`: the target {death} at {at}; leave that input out of the run, or fix the \
     target"
)]
pub struct TargetFailure {
    /// The target's name.
    pub target: String,
    pub death: Death,
    /// The input, as `x = 0x1.8p+0` (or a pair, or a range where it could not be found).
    pub at: String,
}
