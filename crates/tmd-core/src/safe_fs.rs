//! File operations that another user cannot turn against the one running tmd.
//!
//! tmd is run in shared directories (`/tmp`, a cluster's scratch space), where anyone may
//! create a name before tmd does. A symbolic link planted under a name tmd is about to create
//! would redirect its write to any file the link names, as root possibly. So every file tmd
//! creates beside its outputs (temporary files, locks) is opened without following a link
//! ([`no_follow`]) and, where it must be new, created exclusively with a random name
//! ([`create_temp_beside`]). Names given by the user are checked with [`check_link`]: a link
//! in a world-writable sticky directory that another user owns is the planted kind (Linux's
//! `fs.protected_symlinks` rule, applied whatever that setting is).
//!
//! Files tmd reads line by line (input lists, checkpoints) may be devices that never end a
//! line (`/dev/zero`): [`BoundedLines`] refuses a line longer than [`MAX_LINE`] instead of
//! reading it into memory.

use std::collections::hash_map::RandomState;
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufRead, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The longest line a list or checkpoint may hold (a `tmd search --json` line is under 200
/// bytes).
pub const MAX_LINE: usize = 64 * 1024;

/// Makes `options` refuse a symbolic link as the last component (`ELOOP`) and never block on a
/// FIFO or a device.
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
}

/// Whether an open error means the last component was a symbolic link ([`no_follow`]).
pub fn is_link_error(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// Creates a new file beside `path`, named `NAME.RANDOM.partial`, exclusively (`O_EXCL`: a
/// name that exists, a planted link included, is never opened) with the mode a plain create
/// would give (0666 less the umask). Returns it and its path.
pub fn create_temp_beside(path: &Path) -> io::Result<(File, PathBuf)> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or(path.as_os_str());
    let state = RandomState::new();
    for attempt in 0u64..100 {
        let mut hasher = state.build_hasher();
        hasher.write_u64(attempt);
        hasher.write_u32(std::process::id());
        let mut temp: OsString = name.to_owned();
        temp.push(format!(".{:08x}.partial", hasher.finish() as u32));
        let temp = dir.join(temp);
        match no_follow(OpenOptions::new().write(true).create_new(true).mode(0o666)).open(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary name beside it",
    ))
}

/// Refuses a symbolic link `path` that another user owns in a world-writable sticky
/// directory (where anyone can plant one); returns why, or `None` where the link may be
/// followed (or `path` is no link).
pub fn check_link(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir_meta = std::fs::metadata(dir).ok()?;
    let shared = dir_meta.mode() & 0o1002 == 0o1002;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if shared && meta.uid() != me && meta.uid() != dir_meta.uid() {
        return Some(format!(
            "is a symbolic link owned by another user (uid {}) in a shared directory; \
             not followed",
            meta.uid()
        ));
    }
    None
}

/// Whether the effective user may write `meta`'s file by its permission bits: the owner's
/// bits for its owner, the group's for its group, the others' otherwise, root included (root
/// may write anything, but a file made read-only, or another user's, is not tmd's to
/// replace).
pub fn may_write(meta: &std::fs::Metadata) -> bool {
    // SAFETY: geteuid and getegid have no preconditions and cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let mode = meta.mode();
    if meta.uid() == uid {
        return mode & 0o200 != 0;
    }
    let mut groups = vec![0 as libc::gid_t; 256];
    // SAFETY: getgroups writes at most the given count of ids into the buffer, of that size.
    let n = unsafe { libc::getgroups(groups.len() as libc::c_int, groups.as_mut_ptr()) };
    groups.truncate(n.max(0) as usize);
    if meta.gid() == gid || groups.contains(&meta.gid()) {
        return mode & 0o020 != 0;
    }
    mode & 0o002 != 0
}

/// Why one line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("a line longer than {MAX_LINE} bytes (it starts {prefix:?})")]
    TooLong { prefix: String },
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
}

/// The lines of a reader, each at most [`MAX_LINE`] bytes, without their line ending.
pub struct BoundedLines<R> {
    reader: R,
    buf: Vec<u8>,
    failed: bool,
}

impl<R: BufRead> BoundedLines<R> {
    pub fn new(reader: R) -> Self {
        BoundedLines {
            reader,
            buf: Vec::new(),
            failed: false,
        }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = Result<String, LineError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        self.buf.clear();
        let limit = MAX_LINE as u64 + 1;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut self.buf);
        let result = match read {
            Ok(0) => return None,
            Ok(_) if self.buf.len() as u64 == limit && self.buf.last() != Some(&b'\n') => {
                let prefix = String::from_utf8_lossy(&self.buf[..40]).into_owned();
                Err(LineError::TooLong { prefix })
            }
            Ok(_) => {
                if self.buf.last() == Some(&b'\n') {
                    self.buf.pop();
                    if self.buf.last() == Some(&b'\r') {
                        self.buf.pop();
                    }
                }
                String::from_utf8(std::mem::take(&mut self.buf)).map_err(|_| LineError::NotUtf8)
            }
            Err(e) => Err(e.into()),
        };
        // After a long line or a read error the reader's position is not a line start: stop
        // there. A line that is not UTF-8 was read whole, and the next one starts after it.
        self.failed = matches!(result, Err(LineError::TooLong { .. } | LineError::Io(_)));
        Some(result)
    }
}

/// An I/O error in words, without the OS error number.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// Opens a file to read, a directory counted as an error (`IsADirectory`) like a missing file.
pub fn open_readable(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::IsADirectory));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_bound_is_refused_with_a_short_prefix_and_ends_the_lines() {
        let mut lines = BoundedLines::new(io::BufReader::new(io::repeat(b'0')));
        match lines.next() {
            Some(Err(LineError::TooLong { prefix })) => assert_eq!(prefix.len(), 40),
            other => panic!("expected TooLong, got {other:?}"),
        }
        assert!(lines.next().is_none());
    }

    #[test]
    fn lines_up_to_the_bound_are_read_without_their_endings() {
        let long = "x".repeat(MAX_LINE);
        let text = format!("a\r\n{long}\nlast");
        let lines: Vec<String> = BoundedLines::new(text.as_bytes())
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, ["a", long.as_str(), "last"]);
    }

    #[test]
    fn a_temp_file_is_never_opened_through_a_planted_link() {
        let dir = std::env::temp_dir().join(format!("tmd-safe-fs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.join("out.txt");
        let (_, temp) = create_temp_beside(&out).unwrap();
        assert!(temp.starts_with(&dir));
        assert!(temp.to_str().unwrap().ends_with(".partial"));
        std::fs::remove_file(&temp).unwrap();
        std::os::unix::fs::symlink(&victim, &temp).unwrap();
        let err = no_follow(OpenOptions::new().write(true).truncate(true))
            .open(&temp)
            .unwrap_err();
        assert!(is_link_error(&err));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
