//! Files the user names for output (`--out`, `--stats`, `--plot`): one type, [`OutFile`], owns
//! a named output from the check before the work to the rename after it.
//!
//! A regular file (or a name that does not exist yet) is written to a temporary file created
//! exclusively beside it (`NAME.RANDOM.partial`: `O_EXCL`, so a name planted there by another
//! user, a symbolic link included, is never opened) and renamed over NAME only when the run
//! has finished, so an interrupted run never leaves a file that looks complete. The temporary
//! file is made when the output is opened, before any work, so an output that cannot be
//! written costs nothing; it is removed when the run fails, and by the interrupt handler
//! ([`remove_temps`]). While it is written, NAME is locked for this run (`NAME.lock`,
//! [`crate::run_lock`]): a second run writing the same file is refused.
//!
//! An existing file is replaced only if its permission bits let this user write it (a file
//! made read-only, or another user's, is refused even for root), and the new file keeps its
//! mode. A symbolic link to a regular file has its target replaced and stays a link, unless
//! it is a link another user planted in a shared directory (refused). Anything else is written
//! in place: a character device (`/dev/null`, `/dev/stdout`), a FIFO; renaming over those
//! would replace the device by a plain file.
//!
//! Every write error names the file.

use crate::run_lock::RunLock;
use crate::safe_fs;
use crate::InputError;
use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files of outputs not yet finished, for [`remove_temps`].
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary file of every output not finished, for a process about to exit
/// without dropping them (the interrupt handler).
pub fn remove_temps() {
    for path in temps().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

/// How a named output is written.
enum Placement {
    /// Written to a temporary file and renamed to `target` (the file `path` names, through a
    /// link) by [`OutFile::finish`]; `mode` is the replaced file's.
    Renamed { target: PathBuf, mode: Option<u32> },
    /// Written where the name points.
    InPlace,
}

/// Checks that `path` (given as the value of `flag`) can receive output, before the work.
/// Returns how it will be written.
fn placement(flag: &str, path: &Path) -> Result<Placement, InputError> {
    let bad = |why: &str| InputError::Usage(format!("{flag} {}: {why}", path.display()));
    if let Some(why) = safe_fs::check_link(path) {
        return Err(bad(&why));
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(bad("is a directory")),
        Ok(meta) if meta.is_file() => {
            check_writable(path, &meta).map_err(|why| bad(&why))?;
            let link = std::fs::symlink_metadata(path).map_err(|e| bad(&e.to_string()))?;
            let target = if link.file_type().is_symlink() {
                std::fs::canonicalize(path).map_err(|e| bad(&e.to_string()))?
            } else {
                path.to_path_buf()
            };
            Ok(Placement::Renamed {
                target,
                mode: Some(meta.mode() & 0o7777),
            })
        }
        Ok(_) => Ok(Placement::InPlace),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(bad("is a symbolic link to nothing"));
            }
            let dir = parent(path);
            if dir.is_dir() {
                Ok(Placement::Renamed {
                    target: path.to_path_buf(),
                    mode: None,
                })
            } else {
                Err(bad(&format!("directory {} does not exist", dir.display())))
            }
        }
        Err(e) => Err(bad(&e.to_string())),
    }
}

/// Checks `path` as [`OutFile::create`] would, without creating anything (for a check before
/// the work where the output is opened later).
pub fn check(flag: &str, path: &Path) -> Result<(), InputError> {
    placement(flag, path).map(|_| ())
}

/// Refuses an existing regular file this user may not replace: its permission bits (root's
/// power to write anything is not used), then an open for writing without truncation (a
/// read-only file system, an access list).
fn check_writable(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    if !safe_fs::may_write(meta) {
        return Err(format!(
            "is not writable (mode {:o}, owner uid {}); not replaced",
            meta.mode() & 0o7777,
            meta.uid()
        ));
    }
    match OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "cannot be written ({}); not replaced",
            safe_fs::io_reason(&e)
        )),
    }
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The lock file of an output renamed into place.
fn lock_path(target: &Path) -> PathBuf {
    let mut s = target.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// An output file being written; dropped unfinished, it leaves nothing behind.
pub struct OutFile {
    file: File,
    /// `FLAG PATH`, for messages.
    name: String,
    /// The temporary file, the file it becomes, and the lock on that, for a renamed output.
    renamed: Option<(PathBuf, PathBuf, RunLock)>,
}

impl OutFile {
    /// Opens `path` (the value of `flag`) for writing: a new temporary file beside a regular
    /// file or a new name (locked for this run), the path itself otherwise. Bad input (exit 2)
    /// if the output cannot be written.
    pub fn create(flag: &str, path: &Path) -> Result<OutFile, InputError> {
        let name = format!("{flag} {}", path.display());
        let usage = |e: &dyn std::fmt::Display| InputError::Usage(format!("{name}: {e}"));
        let (target, mode) = match placement(flag, path)? {
            Placement::InPlace => {
                // No truncation of what is not a regular file.
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| usage(&safe_fs::io_reason(&e)))?;
                return Ok(OutFile {
                    file,
                    name,
                    renamed: None,
                });
            }
            Placement::Renamed { target, mode } => (target, mode),
        };
        // A lock that cannot be made (a directory that takes no new file) is an output that
        // cannot be written: bad input, as a missing directory is.
        let lock = RunLock::acquire(&lock_path(&target), path)
            .map_err(|e| InputError::Usage(format!("{name}: {e}")))?;
        let (file, temp) =
            safe_fs::create_temp_beside(&target).map_err(|e| usage(&safe_fs::io_reason(&e)))?;
        temps().push(temp.clone());
        let out = OutFile {
            file,
            name,
            renamed: Some((temp, target, lock)),
        };
        if let Some(mode) = mode {
            out.file
                .set_permissions(Permissions::from_mode(mode))
                .map_err(|e| InputError::Usage(out.named(e).to_string()))?;
        }
        Ok(out)
    }

    /// `e` with the output's name.
    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("writing {}: {e}", self.name))
    }

    /// A writer to the same open file whose errors name it (write everything through it
    /// before [`OutFile::finish`]).
    pub fn handle(&self) -> io::Result<NamedWriter> {
        Ok(NamedWriter {
            file: self.file.try_clone().map_err(|e| self.named(e))?,
            name: self.name.clone(),
        })
    }

    /// Makes the output final: for a regular file, renamed into place.
    pub fn finish(mut self) -> io::Result<()> {
        let Some((temp, target, lock)) = self.renamed.take() else {
            return Ok(());
        };
        let renamed = std::fs::rename(&temp, &target).map_err(|e| self.named(e));
        forget_temp(&temp);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        drop(lock);
        renamed
    }

    /// Writes `bytes` and makes the output final.
    pub fn write_whole(self, bytes: &[u8]) -> io::Result<()> {
        (&self.file).write_all(bytes).map_err(|e| self.named(e))?;
        self.finish()
    }
}

fn forget_temp(temp: &Path) {
    let mut list = temps();
    if let Some(i) = list.iter().position(|p| p == temp) {
        list.swap_remove(i);
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some((temp, _, _)) = &self.renamed {
            let _ = std::fs::remove_file(temp);
            forget_temp(temp);
        }
    }
}

/// A file whose write errors name it (`writing --out FILE: No space left on device`).
pub struct NamedWriter {
    file: File,
    name: String,
}

impl NamedWriter {
    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("writing {}: {e}", self.name))
    }
}

impl Write for NamedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| self.named(e))
    }
}

/// The files one output occupies while the run writes them: its path and the files beside
/// it (a lock, a journal's files). The first is named by `flag`.
pub struct Claim {
    flag: String,
    paths: Vec<PathBuf>,
}

impl Claim {
    /// The files a run writing `path` (the journal or checkpoint of `flag`) occupies.
    pub fn new(flag: &str, paths: Vec<PathBuf>) -> Claim {
        Claim {
            flag: flag.to_string(),
            paths,
        }
    }

    /// The files of an output opened by [`OutFile::create`]: the file and its lock; none for
    /// a device or FIFO written in place (`/dev/null` may receive two outputs).
    pub fn output(flag: &str, path: &Path) -> Claim {
        let paths = match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => vec![],
            _ => {
                let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                vec![path.to_path_buf(), lock_path(&target)]
            }
        };
        Claim::new(flag, paths)
    }
}

/// A file compared with the others: its real path and, when it exists, device and inode.
struct Spot {
    what: String,
    path: PathBuf,
    id: Option<(u64, u64)>,
}

fn spot(what: String, path: &Path) -> Spot {
    let resolved = std::fs::canonicalize(path).ok().or_else(|| {
        let dir = std::fs::canonicalize(parent(path)).ok()?;
        Some(dir.join(path.file_name()?))
    });
    Spot {
        what,
        path: resolved.unwrap_or_else(|| path.to_path_buf()),
        id: std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino())),
    }
}

/// Refuses, before any work, two claims on one file: the same real path, or the same
/// existing file (a hard link).
pub fn refuse_collisions(claims: &[Claim]) -> Result<(), InputError> {
    let mut spots: Vec<Spot> = Vec::new();
    for claim in claims {
        let mine: Vec<Spot> = claim
            .paths
            .iter()
            .enumerate()
            .map(|(i, path)| {
                let what = if i == 0 {
                    format!("{} {}", claim.flag, path.display())
                } else {
                    format!("the file {} of {}", path.display(), claim.flag)
                };
                spot(what, path)
            })
            .collect();
        for new in &mine {
            let same = |old: &&Spot| old.path == new.path || (old.id.is_some() && old.id == new.id);
            if let Some(old) = spots.iter().find(same) {
                return Err(InputError::Usage(format!(
                    "{} and {} are the same file; give each output its own",
                    old.what, new.what
                )));
            }
        }
        spots.extend(mine);
    }
    Ok(())
}
