//! One run per journal or checkpoint. A run holds an exclusive advisory lock (`flock`) on a
//! lock file beside what it writes, and writes its process id into it. The operating system
//! drops the lock when the process ends, however it ends (kill -9 included), so a lock file
//! left behind never blocks a later run; a second run while the first goes on is refused
//! before it reads or writes anything, with the first one's process id.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// A held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds it: bad input (exit 2), not a failure.
    #[error(
        "{} is in use by another tmd run (process {pid}); wait for it to end, or use another path",
        what.display()
    )]
    Held { what: PathBuf, pid: String },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl RunLock {
    /// Locks `lock_path` (created if missing) for the run writing `what`.
    pub fn acquire(lock_path: &Path, what: &Path) -> Result<RunLock, LockError> {
        let io_error = |source| LockError::Io {
            path: lock_path.to_path_buf(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(lock_path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0).map_err(io_error)?;
                writeln!(file, "{}", std::process::id()).map_err(io_error)?;
                Ok(RunLock { _file: file })
            }
            Err(TryLockError::WouldBlock) => {
                let mut pid = String::new();
                // The holder writes its id just after locking: it may not be there yet.
                let _ = file.read_to_string(&mut pid);
                let pid = match pid.trim() {
                    "" => "unknown".to_string(),
                    p => p.to_string(),
                };
                Err(LockError::Held {
                    what: what.to_path_buf(),
                    pid,
                })
            }
            Err(TryLockError::Error(e)) => Err(io_error(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("tmd-run-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.lock");
        let first = RunLock::acquire(&path, &dir).unwrap();
        match RunLock::acquire(&path, &dir) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, std::process::id().to_string()),
            other => panic!("expected Held, got {other:?}"),
        }
        drop(first);
        RunLock::acquire(&path, &dir).expect("free again once dropped");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
