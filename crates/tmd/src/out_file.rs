//! Files the user names for output (`--out`, `--stats`, `--plot`).
//!
//! A regular file (or a name that does not exist yet) is written as `NAME.partial` and renamed
//! over NAME only when the run has finished, so an interrupted run never leaves a file that
//! looks complete. Anything else is written in place: a character device (`/dev/null`,
//! `/dev/stdout`), a FIFO, or a symbolic link, whose target receives the output while the link
//! stays; renaming over those would replace the device or the link by a plain file. The path is
//! checked before any work starts ([`check`]), so a missing directory costs nothing.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use tmd_core::InputError;

/// How a named output is written.
enum Placement {
    /// Written to `tmp` and renamed to `path` by [`OutFile::finish`].
    Renamed { tmp: PathBuf, path: PathBuf },
    /// Written where the name points.
    InPlace,
}

/// Checks that `path` (given as the value of `flag`) can receive output, before the work:
/// not a directory, and its directory exists. Returns how it will be written.
fn placement(flag: &str, path: &Path) -> Result<Placement, InputError> {
    let bad = |why: String| InputError::Usage(format!("{flag} {}: {why}", path.display()));
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Err(bad("is a directory".into())),
        Ok(meta) if meta.is_file() => Ok(Placement::Renamed {
            tmp: partial_path(path),
            path: path.to_path_buf(),
        }),
        Ok(meta) if meta.file_type().is_symlink() && path.is_dir() => {
            Err(bad("is a directory".into()))
        }
        Ok(_) => Ok(Placement::InPlace),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if dir.is_dir() {
                Ok(Placement::Renamed {
                    tmp: partial_path(path),
                    path: path.to_path_buf(),
                })
            } else {
                Err(bad(format!("directory {} does not exist", dir.display())))
            }
        }
        Err(e) => Err(bad(e.to_string())),
    }
}

/// Checks `path` as [`OutFile::create`] would, without creating anything (for outputs
/// written only at the end of a run).
pub(crate) fn check(flag: &str, path: &Path) -> Result<(), InputError> {
    placement(flag, path).map(|_| ())
}

/// An output file being written.
pub(crate) struct OutFile {
    file: File,
    placement: Placement,
}

impl OutFile {
    /// Opens `path` (the value of `flag`) for writing: `NAME.partial` for a regular file or a
    /// new name, the path itself otherwise.
    pub(crate) fn create(flag: &str, path: &Path) -> anyhow::Result<OutFile> {
        let placement = placement(flag, path)?;
        let file = match &placement {
            Placement::Renamed { tmp, .. } => File::create(tmp),
            // No truncation of what is not a regular file; a link's regular target is
            // truncated, as a shell's `>` would.
            Placement::InPlace => OpenOptions::new()
                .write(true)
                .truncate(path.is_file())
                .open(path),
        }
        .map_err(|e| InputError::Usage(format!("{flag} {}: {e}", path.display())))?;
        Ok(OutFile { file, placement })
    }

    /// A handle to write through (the same open file; write everything through it before
    /// [`OutFile::finish`]).
    pub(crate) fn handle(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// Makes the output final: for a regular file, renamed into place.
    pub(crate) fn finish(self) -> io::Result<()> {
        drop(self.file);
        if let Placement::Renamed { tmp, path } = self.placement {
            std::fs::rename(&tmp, &path)?;
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` whole, as [`OutFile`] does.
pub(crate) fn write_whole(flag: &str, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let out = OutFile::create(flag, path)?;
    (&out.file).write_all(bytes)?;
    out.finish()?;
    Ok(())
}

fn partial_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}
