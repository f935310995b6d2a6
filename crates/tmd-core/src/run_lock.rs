//! One run per journal or checkpoint. A run holds an exclusive advisory lock (`flock`) on a
//! lock file beside what it writes, and writes its process id into it. The operating system
//! drops the lock when the process ends, however it ends (kill -9 included), so a lock file
//! left behind never blocks a later run; a second run while the first goes on is refused
//! before it reads or writes anything, with the first one's process id. The lock file is
//! opened without following a link and must be a regular file (a link planted there by
//! another user is refused, never written through), and it is removed when the run ends.

use crate::safe_fs;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The lock files this process holds, for [`remove_held`].
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A held lock; dropping it (or the process ending) releases it. Dropping it also removes the
/// lock file, while still holding the lock, so a finished run leaves none behind.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    path: PathBuf,
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
    /// The lock's name is taken by something tmd must not open: bad input.
    #[error("lock file {}: {why}; remove it or use another path", path.display())]
    NotAFile { path: PathBuf, why: String },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl LockError {
    /// Whether the user is at fault (exit status 2): another run, or a lock path that is no
    /// regular file.
    pub fn is_bad_input(&self) -> bool {
        // A directory the user may not write is a path to fix, found before any work.
        let denied = |e: &io::Error| e.kind() == io::ErrorKind::PermissionDenied;
        matches!(self, LockError::Held { .. } | LockError::NotAFile { .. })
            || matches!(self, LockError::Io { source, .. } if denied(source))
    }
}

impl RunLock {
    /// Locks `lock_path` (created if missing) for the run writing `what`. A symbolic link or
    /// anything but a regular file at `lock_path` is refused, never opened through.
    pub fn acquire(lock_path: &Path, what: &Path) -> Result<RunLock, LockError> {
        let io_error = |source| LockError::Io {
            path: lock_path.to_path_buf(),
            source,
        };
        let not_a_file = |why: &str| LockError::NotAFile {
            path: lock_path.to_path_buf(),
            why: why.to_string(),
        };
        loop {
            let opened = safe_fs::no_follow(
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(0o644),
            )
            .open(lock_path);
            let mut file = match opened {
                Ok(file) => file,
                Err(e) if safe_fs::is_link_error(&e) => {
                    return Err(not_a_file("is a symbolic link"))
                }
                Err(e) => return Err(io_error(e)),
            };
            let meta = file.metadata().map_err(io_error)?;
            if !meta.is_file() {
                return Err(not_a_file("is not a regular file"));
            }
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(held(&mut file, what)),
                Err(TryLockError::Error(e)) => return Err(io_error(e)),
            }
            // The holder before us may have removed the file between our open and our lock:
            // the lock counts only on the file the name still names.
            let now = std::fs::symlink_metadata(lock_path);
            if !now.is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino()) {
                continue;
            }
            file.set_len(0).map_err(io_error)?;
            writeln!(file, "{}", std::process::id()).map_err(io_error)?;
            held_list().push(lock_path.to_path_buf());
            return Ok(RunLock {
                _file: file,
                path: lock_path.to_path_buf(),
            });
        }
    }
}

fn held(file: &mut File, what: &Path) -> LockError {
    let mut pid = String::new();
    // The holder writes its id just after locking: it may not be there yet.
    let _ = file.take(64).read_to_string(&mut pid);
    let pid = match pid.trim() {
        "" => "unknown".to_string(),
        p => p.to_string(),
    };
    LockError::Held {
        what: what.to_path_buf(),
        pid,
    }
}

fn held_list() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let mut list = held_list();
        if let Some(i) = list.iter().position(|p| *p == self.path) {
            list.swap_remove(i);
        }
        // Removed while still locked: a run that opened it meanwhile finds, once it holds
        // the lock, that the name no longer names its file, and starts again.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the lock files of every lock still held, for a process about to exit without
/// dropping them (an interrupt handler); the locks themselves end with the process.
pub fn remove_held() {
    for path in held_list().drain(..) {
        let _ = std::fs::remove_file(path);
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
        let again = RunLock::acquire(&path, &dir).expect("free again once dropped");
        drop(again);
        assert!(!path.exists(), "a released lock leaves no file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lock_path_that_is_a_planted_link_is_refused_and_its_target_untouched() {
        let dir = std::env::temp_dir().join(format!("tmd-run-lock-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let path = dir.join("x.lock");
        let _ = std::fs::remove_file(&path);
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = RunLock::acquire(&path, &dir).unwrap_err();
        assert!(err.is_bad_input(), "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
