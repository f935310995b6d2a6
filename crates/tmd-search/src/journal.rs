//! The resume journal of `tmd search --resume DIR`: what lets a search killed at any instant
//! (`kill -9`, a lost terminal, a full disk) be rerun with the same command and still print
//! exactly what an uninterrupted run prints, no case lost and none repeated.
//!
//! # What is persisted
//!
//! The search lists its cases in increasing input order and, from time to time, knows that
//! every input with ordinal below some X is finished and that all cases below X have been
//! listed. That finished prefix, `[start, X)`, is all the journal keeps: the ordinals of its
//! cases, X itself, and the running counts (inputs, hard, exact, ...) over it. Work beyond X is
//! not kept: it is cheap to redo compared with the bookkeeping needed to save it, and redoing it
//! is what makes the result independent of where the kill happened.
//!
//! # The file
//!
//! One append-only text file, `DIR/journal.tmd`, written by one run at a time (`DIR/journal.lock`,
//! [`tmd_core::run_lock`]):
//!
//! ```text
//! tmd-journal 2 <fingerprint> <check>
//! c <ordinal> <check>               one line per listed case
//! r <start> <end> <check>           one line per range record (inputs start..end, all hard)
//! k <done_through> <inputs> <hard> <exact> <unresolved> <undefined> <poles> <overflow> <check>
//! end <inputs> <hard> <exact> <unresolved> <undefined> <poles> <overflow> <check>
//! ```
//!
//! Every line ends with its check ([`tmd_core::line_check::chained`]): 8 hexadecimal digits of
//! the CRC-32 of the previous line's check followed by the line's text before the check. A case
//! line with one digit changed still parses, and a lost `c` line leaves a list that still looks
//! ordered; either would change what a resumed search lists while its counts stay the same.
//! The chained check makes both fail at the line itself or at the line after it.
//!
//! [`Journal::checkpoint`] appends, in one write, the `c` and `r` lines of the cases and range
//! records listed since the previous checkpoint, in input order, followed by one `k` line.
//! A range record is kept as its ordinals only: a resumed search rebuilds it from the rule
//! (`regime::range_record`), as it decides its cases again with MPFR. The `k` line is the commit record: the cases
//! before it are part of the finished prefix only once it is there in full, newline included.
//! [`Journal::finish`] appends `end` once the whole range is done.
//!
//! The fingerprint on the first line describes the search (function, format, range, K,
//! breakpoints, options that change the output). Resuming with another fingerprint is refused:
//! the cases of one search are no answer for another.
//!
//! # Why a kill cannot lose or duplicate a case
//!
//! A kill, even `kill -9`, stops the process between two system calls or inside one `write`;
//! either way what the file holds is a byte prefix of the record stream the run meant to write
//! (the file is opened in append mode and nothing is ever rewritten in place). Recovery reads
//! any such prefix back to the state of its last complete checkpoint:
//!
//! * a last line without its newline is a record cut in the middle; it is ignored even when
//!   its text happens to parse (`c 12` may be the first half of `c 123`);
//! * `c` lines after the last `k` line belong to a chunk whose checkpoint never made it; they
//!   are dropped, and the search recomputes that chunk from the last `done_through`;
//! * a checkpoint's cases are all below its `done_through` and above the previous one's, so the
//!   kept cases and the ones the resumed search lists next never overlap.
//!
//! Before anything new is appended, [`Journal::open`] truncates the file (`set_len`) to the end
//! of the last valid checkpoint. Otherwise the dropped cases, or a torn line, would sit before
//! the next `k` line and count as finished (duplicates), or be a broken line in the middle of
//! the file. A kill during that truncation is harmless: it only ever removes what recovery
//! ignores anyway, so the next open finds the same state.
//!
//! The first line is written to `journal.tmd.new` and renamed into place, so `journal.tmd`
//! never exists without its complete header.
//!
//! A `write` that has returned is in the operating system's page cache and survives the death
//! of the process, so kill safety needs no `fsync` at all. `fsync` guards against a crash of
//! the machine itself (power loss); it costs milliseconds, so [`Journal::checkpoint`] does it
//! at most once per [`Journal::sync_interval`] (default one second) and [`Journal::finish`]
//! always does. After a power loss the journal is still a prefix of what was written (or ends
//! in zeros, which read as a torn line), so at most the last second of progress is redone.
//!
//! A line that does not parse, fails its check, or breaks the ordering rules, is taken for a
//! torn write only when it is the last line: the chunks it would have committed are searched
//! again. Anywhere else it cannot come from a kill, so the journal is refused as corrupt (file
//! and line, exit status 2) instead of the line being silently skipped.
//!
//! Journals of version 1 (no checks) are refused with a message saying to start again: the
//! journal is a resume aid, not an archive, and a version 1 file cannot be trusted line by line.
//!
//! One journal serves one run at a time: two searches writing the same DIR at once would
//! interleave their records.

use crate::counts::Counts;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;
use tmd_core::line_check;
use tmd_core::run_lock::RunLock;

/// The journal's name inside the `--resume` directory.
pub const FILE_NAME: &str = "journal.tmd";
/// Where the first line is written before being renamed to [`FILE_NAME`].
const NEW_FILE_NAME: &str = "journal.tmd.new";
/// The lock file of [`tmd_core::run_lock`], beside the journal.
const LOCK_FILE_NAME: &str = "journal.lock";
/// The files a journal in `dir` occupies: the journal, its lock, and the file its first line
/// is written to before being renamed into place.
pub fn files(dir: &Path) -> [PathBuf; 3] {
    [FILE_NAME, LOCK_FILE_NAME, NEW_FILE_NAME].map(|name| dir.join(name))
}

/// First word of the first line: says what the file is.
const MAGIC: &str = "tmd-journal";
/// Format version, second word of the first line.
const VERSION: &str = "2";
/// How often [`Journal::checkpoint`] forces its records to disk, unless told otherwise.
pub const DEFAULT_SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// Why a journal cannot be opened or written.
#[derive(Debug, Error)]
pub enum JournalError {
    /// The file system refused an operation on the journal (`action` the file).
    #[error("cannot {action} {}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot open {} for appending", path.display())]
    OpenToAppend {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Writing or syncing a record failed: the journal refuses any further record.
    #[error(transparent)]
    Write(io::Error),
    #[error("{} is not a tmd journal (first line {line})", path.display())]
    NotAJournal { path: PathBuf, line: String },
    #[error("{} has a malformed first line {line}", path.display())]
    MalformedHeader { path: PathBuf, line: String },
    #[error(
        "{} is a version {found} journal; this tmd reads version {VERSION} (each line checked): \
         start the search again in another directory, or delete this one",
        path.display()
    )]
    Version { path: PathBuf, found: String },
    /// The directory holds the journal of another search: bad input, not a failure.
    #[error(
        "{} belongs to another search (journal: `{found}`; this run: `{expected}`): \
         use another --resume directory or delete it",
        path.display()
    )]
    OtherSearch {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// A line other than the last is damaged: not what a kill leaves.
    #[error(
        "{}:{line}: corrupt journal ({why}: {text}); delete the directory to start over",
        path.display()
    )]
    Corrupt {
        path: PathBuf,
        line: usize,
        why: &'static str,
        text: String,
    },
    #[error("internal error: a journal fingerprint must be one line: {0:?}")]
    MultiLineFingerprint(String),
    /// A record the rules forbid (out of order, after the end): nothing was written.
    #[error("{0}")]
    Refused(String),
    /// Another run is writing this journal: bad input, not a failure.
    #[error(transparent)]
    Locked(#[from] tmd_core::run_lock::LockError),
    /// An earlier write failed, so nothing more may be appended.
    #[error("{} is unusable after an earlier write error", path.display())]
    Unusable { path: PathBuf },
}

impl JournalError {
    /// Whether the user is at fault (the journal of another search, a damaged or foreign
    /// file in the --resume directory): exit status 2.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            JournalError::OtherSearch { .. }
                | JournalError::NotAJournal { .. }
                | JournalError::MalformedHeader { .. }
                | JournalError::Version { .. }
                | JournalError::Corrupt { .. }
        ) || matches!(self, JournalError::Locked(e) if e.is_bad_input())
    }
}

/// An I/O error with the action and the file it concerns.
fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> JournalError {
    let path = path.to_path_buf();
    move |source| JournalError::Io {
        action,
        path,
        source,
    }
}

/// Reads the seven counts of a `k` or `end` line; `None` unless there are exactly seven.
fn parse_counts(words: &[&str]) -> Option<Counts> {
    let words: &[&str; 7] = words.try_into().ok()?;
    let mut a = [0u64; 7];
    for (n, w) in a.iter_mut().zip(words) {
        *n = parse_u64(w)?;
    }
    Some(Counts::from_array(a))
}

/// Appends ` <inputs> <hard> ...` to a record being built.
fn append_counts(counts: &Counts, line: &mut String) {
    for n in counts.to_array() {
        line.push(' ');
        line.push_str(&n.to_string());
    }
}

/// What a previous run left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Ordinals (i128) of the cases listed in the finished prefix, in the order they were recorded.
    pub cases: Vec<i128>,
    /// The range records of the finished prefix, as ordinals `[start, end)`, in order.
    pub ranges: Vec<(i128, i128)>,
    /// The first ordinal not yet finished (None: nothing was finished; start from the beginning).
    pub resume_from: Option<i128>,
    pub counts: Counts,
    /// The previous run finished completely.
    pub complete: bool,
}

/// One line of the journal after the first.
#[derive(Debug, PartialEq, Eq)]
enum Record {
    Case(i128),
    Range(i128, i128),
    Checkpoint(i128, Counts),
    End(Counts),
}

// Numbers are read strictly (digits, and a leading '-' for ordinals): the writer never puts a
// '+' or spaces there, so anything else is damage, not a variant spelling.
fn parse_u64(word: &str) -> Option<u64> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

fn parse_i128(word: &str) -> Option<i128> {
    let digits = word.strip_prefix('-').unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

impl Record {
    /// Parses one line, newline removed. `None` for anything the writer would not produce.
    fn parse(line: &str) -> Option<Record> {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["c", ordinal] => Some(Record::Case(parse_i128(ordinal)?)),
            ["r", start, end] => Some(Record::Range(parse_i128(start)?, parse_i128(end)?)),
            ["k", done, counts @ ..] => {
                Some(Record::Checkpoint(parse_i128(done)?, parse_counts(counts)?))
            }
            ["end", counts @ ..] => Some(Record::End(parse_counts(counts)?)),
            _ => None,
        }
    }
}

/// A listed item: a case (one ordinal) or a range record (ordinals `[start, end)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Case(i128),
    Range(i128, i128),
}

impl Item {
    fn start(self) -> i128 {
        match self {
            Item::Case(x) | Item::Range(x, _) => x,
        }
    }

    /// The first ordinal after the item.
    fn end(self) -> i128 {
        match self {
            Item::Case(x) => x.saturating_add(1),
            Item::Range(_, end) => end,
        }
    }

    /// Why the item cannot follow an item that ends at `last_end` and a checkpoint at `done`,
    /// and come before the checkpoint `next_done` (when known).
    fn misplaced(
        self,
        last_end: Option<i128>,
        done: Option<i128>,
        next_done: Option<i128>,
    ) -> Option<&'static str> {
        let case = matches!(self, Item::Case(_));
        if let Item::Range(start, end) = self {
            if start >= end {
                return Some("empty range record");
            }
        }
        if last_end.is_some_and(|last| self.start() < last) {
            return Some(if case {
                "case not above the previous case"
            } else {
                "range record not above the previous case or range"
            });
        }
        if done.is_some_and(|done| self.start() < done) {
            return Some(if case {
                "case below the previous checkpoint"
            } else {
                "range record below the previous checkpoint"
            });
        }
        if next_done.is_some_and(|next| self.end() > next) {
            return Some(if case {
                "case not below its checkpoint"
            } else {
                "range record not below its checkpoint"
            });
        }
        None
    }
}

/// Cases and ranges as one list in input order: a merge of the two lists, each kept in the
/// order given, so that a list out of order stays out of order and the check refuses it.
fn merge_items(cases: &[i128], ranges: &[(i128, i128)]) -> Vec<Item> {
    let mut items = Vec::with_capacity(cases.len() + ranges.len());
    let (mut c, mut r) = (cases.iter().peekable(), ranges.iter().peekable());
    loop {
        let item = match (c.peek(), r.peek()) {
            (Some(&&x), Some(&&(a, _))) if x < a => Item::Case(*c.next().expect("peeked")),
            (_, Some(&&(a, b))) => {
                r.next();
                Item::Range(a, b)
            }
            (Some(&&x), None) => {
                c.next();
                Item::Case(x)
            }
            (None, None) => return items,
        };
        items.push(item);
    }
}

/// The state a journal file describes, as far as it has been read.
#[derive(Default)]
struct Scan {
    /// Cases and range records before the last checkpoint.
    committed: Vec<Item>,
    /// Those after it (dropped at the end of the scan unless a checkpoint follows).
    pending: Vec<Item>,
    /// `done_through` of the last checkpoint.
    done_through: Option<i128>,
    /// Counts of the last checkpoint.
    counts: Counts,
    /// Counts of the `end` line, once read.
    end: Option<Counts>,
    /// Bytes from the start of the file through the last checkpoint or `end` line: what the
    /// file is truncated to before appending.
    keep: u64,
    /// The check of the line that ends at `keep`: the next line appended chains from it.
    keep_check: u32,
}

impl Scan {
    /// The end of the last item recorded, committed or not (items come in increasing order).
    fn last_end(&self) -> Option<i128> {
        self.pending
            .last()
            .or(self.committed.last())
            .map(|i| i.end())
    }

    /// Applies one parsed record that ends at byte `end_offset`, or says why it cannot follow
    /// the records before it (the writer checks the same rules, so a violation is damage).
    fn apply(&mut self, record: Record, end_offset: u64, check: u32) -> Result<(), &'static str> {
        if self.end.is_some() {
            return Err("record after the end line");
        }
        match record {
            Record::Case(x) => self.push(Item::Case(x))?,
            Record::Range(start, end) => self.push(Item::Range(start, end))?,
            Record::Checkpoint(done, counts) => {
                if self.done_through.is_some_and(|old| done < old) {
                    return Err("checkpoint below the previous checkpoint");
                }
                if let Some(why) = self
                    .pending
                    .last()
                    .and_then(|i| i.misplaced(None, None, Some(done)))
                {
                    return Err(why);
                }
                self.committed.append(&mut self.pending);
                self.done_through = Some(done);
                self.counts = counts;
                self.keep = end_offset;
                self.keep_check = check;
            }
            Record::End(counts) => {
                if !self.pending.is_empty() {
                    return Err("cases or ranges between the last checkpoint and the end line");
                }
                self.end = Some(counts);
                self.keep = end_offset;
                self.keep_check = check;
            }
        }
        Ok(())
    }

    fn push(&mut self, item: Item) -> Result<(), &'static str> {
        match item.misplaced(self.last_end(), self.done_through, None) {
            Some(why) => Err(why),
            None => {
                self.pending.push(item);
                Ok(())
            }
        }
    }

    fn recovered(self) -> Recovered {
        let complete = self.end.is_some();
        let (mut cases, mut ranges) = (Vec::new(), Vec::new());
        for item in self.committed {
            match item {
                Item::Case(x) => cases.push(x),
                Item::Range(a, b) => ranges.push((a, b)),
            }
        }
        Recovered {
            cases,
            ranges,
            resume_from: self.done_through,
            counts: self.end.unwrap_or(self.counts),
            complete,
        }
    }
}

/// The text of a bad line, shortened so that an error stays one readable line.
fn quote_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        format!("{short:?}...")
    } else {
        format!("{short:?}")
    }
}

/// Reads a journal: checks its first line against `fingerprint`, then its records.
fn scan(path: &Path, mut reader: impl BufRead, fingerprint: &str) -> Result<Scan, JournalError> {
    let mut line = Vec::new();

    // The first line is renamed into place whole, so a partial one means another file.
    let n = reader
        .read_until(b'\n', &mut line)
        .map_err(io_error("read", path))?;
    let header = line
        .strip_suffix(b"\n")
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|h| h.strip_prefix(MAGIC)?.strip_prefix(' '))
        .ok_or_else(|| JournalError::NotAJournal {
            path: path.to_path_buf(),
            line: quote_line(&line),
        })?;
    let Some((version, _)) = header.split_once(' ') else {
        return Err(JournalError::MalformedHeader {
            path: path.to_path_buf(),
            line: quote_line(&line),
        });
    };
    // The version first: an older journal has no check to verify.
    if version != VERSION {
        return Err(JournalError::Version {
            path: path.to_path_buf(),
            found: version.to_string(),
        });
    }
    let text = std::str::from_utf8(&line[..line.len() - 1]).expect("checked above");
    let (text, header_check) =
        line_check::split_chained(None, text).map_err(|why| JournalError::Corrupt {
            path: path.to_path_buf(),
            line: 1,
            why,
            text: quote_line(&line),
        })?;
    let found = text
        .strip_prefix(&format!("{MAGIC} {VERSION} "))
        .ok_or_else(|| JournalError::MalformedHeader {
            path: path.to_path_buf(),
            line: quote_line(&line),
        })?;
    if found != fingerprint {
        // Bad input rather than a failure: the user pointed --resume at another search's files.
        return Err(JournalError::OtherSearch {
            path: path.to_path_buf(),
            found: found.to_string(),
            expected: fingerprint.to_string(),
        });
    }

    let mut state = Scan {
        keep: n as u64,
        keep_check: header_check,
        ..Scan::default()
    };
    // The check of the previous line, which the next one chains from.
    let mut previous = header_check;
    let mut offset = n as u64;
    let mut line_no = 1usize;
    // A bad line is forgiven only if it turns out to be the last one.
    let mut bad: Option<(usize, String, &'static str)> = None;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error("read", path))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if let Some((no, text, why)) = bad.take() {
            return Err(JournalError::Corrupt {
                path: path.to_path_buf(),
                line: no,
                why,
                text,
            });
        }
        let Some(body) = line.strip_suffix(b"\n") else {
            break; // no newline: the record a kill cut short, necessarily the last
        };
        let end_offset = offset + n as u64;
        let verdict = std::str::from_utf8(body)
            .map_err(|_| "unreadable line")
            .and_then(|line| line_check::split_chained(Some(previous), line))
            .and_then(|(text, check)| {
                let record = Record::parse(text).ok_or("unreadable line")?;
                state.apply(record, end_offset, check)?;
                Ok(check)
            });
        match verdict {
            Ok(check) => previous = check,
            Err(why) => bad = Some((line_no, quote_line(body), why)),
        }
        offset = end_offset;
    }
    Ok(state)
}

/// Makes a rename or a new file inside `dir` durable (only power loss needs it).
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(()) // directories cannot be opened for syncing there; renames are durable enough
}

/// An error for a call the journal refuses, leaving the file untouched.
fn refused(why: String) -> JournalError {
    JournalError::Refused(why)
}

/// The journal of one search, open for appending.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// `done_through` of the last checkpoint, written or recovered.
    done_through: Option<i128>,
    /// The end of the last case or range recorded: new ones must start there or above.
    last_end: Option<i128>,
    /// Counts of the `end` line once the journal is complete.
    end: Option<Counts>,
    /// The check of the file's last line, which the next line appended chains from.
    last_check: u32,
    /// Least time between two `fsync`s of [`Journal::checkpoint`].
    pub sync_interval: Duration,
    last_sync: Instant,
    /// Set by a failed write or sync: the file may end in a partial record (which recovery
    /// ignores), so nothing more may be appended after it.
    broken: bool,
    /// Held while the journal is open: no second run writes it.
    _lock: RunLock,
}

impl Journal {
    /// Opens DIR (creating it if missing). `fingerprint` is one line describing the search
    /// (function, format, range, K, breakpoints, options that change the output). If DIR already
    /// holds a journal written with another fingerprint, returns an error whose message says so and
    /// shows both fingerprints (the user must use another DIR or delete it).
    pub fn open(dir: &Path, fingerprint: &str) -> Result<(Journal, Recovered), JournalError> {
        if fingerprint.contains(['\n', '\r']) {
            return Err(JournalError::MultiLineFingerprint(fingerprint.to_string()));
        }
        fs::create_dir_all(dir).map_err(io_error("create", dir))?;
        // One run per directory, before anything is read or truncated.
        let lock = RunLock::acquire(&dir.join(LOCK_FILE_NAME), dir)?;
        let path = dir.join(FILE_NAME);

        let existing = match File::open(&path) {
            Ok(file) => {
                let len = file.metadata().map_err(io_error("read", &path))?.len();
                // An empty file holds nothing to resume (and no fingerprint to check).
                if len == 0 {
                    None
                } else {
                    Some((len, scan(&path, BufReader::new(file), fingerprint)?))
                }
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => {
                return Err(io_error("open", &path)(err));
            }
        };

        // What the writer must know to go on: the last checkpoint, the last case, the end.
        let (done_through, last_end, end, last_check, recovered) = match existing {
            None => {
                let check = create(dir, &path, fingerprint).map_err(io_error("create", &path))?;
                (None, None, None, check, Recovered::default())
            }
            Some((len, scan)) => {
                if len > scan.keep {
                    // Physically remove the torn line and the uncommitted cases before anything
                    // is appended after them; synced so that power loss cannot bring them back
                    // underneath new records.
                    OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .and_then(|file| {
                            file.set_len(scan.keep)?;
                            file.sync_all()
                        })
                        .map_err(io_error("truncate", &path))?;
                }
                let last_end = scan.committed.last().map(|i| i.end());
                let check = scan.keep_check;
                (
                    scan.done_through,
                    last_end,
                    scan.end,
                    check,
                    scan.recovered(),
                )
            }
        };

        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|source| JournalError::OpenToAppend {
                path: path.clone(),
                source,
            })?;
        let journal = Journal {
            path,
            file,
            done_through,
            last_end,
            end,
            last_check,
            sync_interval: DEFAULT_SYNC_INTERVAL,
            last_sync: Instant::now(),
            broken: false,
            _lock: lock,
        };
        Ok((journal, recovered))
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the cases listed since the previous checkpoint and the new checkpoint
    /// (`done_through`: every ordinal < done_through is finished; `counts`: totals so far, not deltas).
    /// Must be durable when it returns often enough: write and flush each call, and fsync at most once
    /// per `sync_interval` (a field, default 1 second) and always on `finish`.
    ///
    /// Refuses (`InvalidInput`, nothing written) cases out of order, at or above `done_through`,
    /// or below the previous checkpoint, a `done_through` below the previous one, and any
    /// checkpoint after [`Journal::finish`]: recovery would read such records as corruption.
    pub fn checkpoint(
        &mut self,
        new_cases: &[i128],
        done_through: i128,
        counts: &Counts,
    ) -> Result<(), JournalError> {
        self.checkpoint_listed(new_cases, &[], done_through, counts)
    }

    /// [`Journal::checkpoint`] with the range records listed since the previous checkpoint
    /// (ordinals `[start, end)`, in order, disjoint from each other and from the cases).
    pub fn checkpoint_listed(
        &mut self,
        new_cases: &[i128],
        new_ranges: &[(i128, i128)],
        done_through: i128,
        counts: &Counts,
    ) -> Result<(), JournalError> {
        self.check_usable()?;
        if self.done_through.is_some_and(|old| done_through < old) {
            return Err(refused(format!(
                "checkpoint {done_through} below the previous one {:?}",
                self.done_through
            )));
        }
        let items = merge_items(new_cases, new_ranges);
        let mut last_end = self.last_end;
        for &item in &items {
            if let Some(why) = item.misplaced(last_end, self.done_through, Some(done_through)) {
                return Err(refused(format!(
                    "{item:?}: {why} (previous end {last_end:?}, checkpoints {:?} and {done_through})",
                    self.done_through
                )));
            }
            last_end = Some(item.end());
        }

        // One buffer, one write_all: the items and their commit record leave together, and the
        // file is unbuffered, so once this returns the bytes are in the OS and survive a kill.
        let mut text = String::with_capacity(items.len() * 33 + 105);
        let mut check = self.last_check;
        for item in &items {
            let record = match item {
                Item::Case(x) => format!("c {x}"),
                Item::Range(a, b) => format!("r {a} {b}"),
            };
            check = push_checked(&mut text, check, &record);
        }
        let mut record = format!("k {done_through}");
        append_counts(counts, &mut record);
        let check = push_checked(&mut text, check, &record);
        self.append(&text)?;
        self.last_check = check;
        self.done_through = Some(done_through);
        self.last_end = last_end;

        if self.last_sync.elapsed() >= self.sync_interval {
            self.sync()?;
        }
        Ok(())
    }

    /// Marks the journal complete (fsync).
    ///
    /// Finishing a journal that is already complete with the same counts does nothing, so that
    /// a rerun of a finished search may call it again.
    pub fn finish(&mut self, counts: &Counts) -> Result<(), JournalError> {
        if let Some(end) = &self.end {
            if end == counts {
                return Ok(());
            }
            return Err(refused(format!(
                "{} is already complete with other counts",
                self.path.display()
            )));
        }
        self.check_usable()?;
        let mut record = String::from("end");
        append_counts(counts, &mut record);
        let mut text = String::new();
        let check = push_checked(&mut text, self.last_check, &record);
        self.append(&text)?;
        self.last_check = check;
        self.sync()?;
        self.end = Some(*counts);
        Ok(())
    }

    fn check_usable(&self) -> Result<(), JournalError> {
        if self.broken {
            return Err(JournalError::Unusable {
                path: self.path.clone(),
            });
        }
        if self.end.is_some() {
            return Err(refused(format!(
                "{} is already complete",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// Appends whole records. After a failure the file may end inside a record: recovery reads
    /// that as a torn last line, but nothing may follow it, so the journal refuses further use.
    fn append(&mut self, text: &str) -> Result<(), JournalError> {
        let result = self
            .file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush());
        if result.is_err() {
            self.broken = true;
        }
        result.map_err(JournalError::Write)
    }

    fn sync(&mut self) -> Result<(), JournalError> {
        // After a failed fsync the kernel may have dropped the unwritten pages: what the file
        // holds is unknown, so stop appending rather than build on it.
        if let Err(err) = self.file.sync_data() {
            self.broken = true;
            return Err(JournalError::Write(err));
        }
        self.last_sync = Instant::now();
        Ok(())
    }
}

/// Appends `record`, its check (chained from `previous`) and a newline to `text`; returns the
/// check.
fn push_checked(text: &mut String, previous: u32, record: &str) -> u32 {
    let check = line_check::chained(Some(previous), record);
    text.push_str(record);
    text.push(' ');
    text.push_str(&line_check::hex(check));
    text.push('\n');
    check
}

/// Writes a fresh journal's first line to a side file and renames it into place, so the
/// journal never exists with a partial first line (which could not be told from another file).
/// Returns the first line's check.
fn create(dir: &Path, path: &Path, fingerprint: &str) -> io::Result<u32> {
    let new = dir.join(NEW_FILE_NAME);
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&new)?;
    file.write_all(header_line(fingerprint).as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&new, path)?;
    sync_dir(dir)?;
    Ok(line_check::chained(None, &header_text(fingerprint)))
}

fn header_text(fingerprint: &str) -> String {
    format!("{MAGIC} {VERSION} {fingerprint}")
}

/// The first line of the journal of the search `fingerprint`, newline included.
fn header_line(fingerprint: &str) -> String {
    let text = header_text(fingerprint);
    let check = line_check::chained(None, &text);
    format!("{text} {}\n", line_check::hex(check))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory unique to one test of this process, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> TempDir {
            let path =
                std::env::temp_dir().join(format!("tmd-journal-{}-{test}", std::process::id()));
            let _ = fs::remove_dir_all(&path); // left by an earlier process with the same pid
            TempDir(path)
        }

        fn journal(&self) -> PathBuf {
            self.0.join(FILE_NAME)
        }

        fn read(&self) -> String {
            fs::read_to_string(self.journal()).unwrap()
        }

        fn append_raw(&self, text: &str) {
            let mut file = OpenOptions::new()
                .append(true)
                .open(self.journal())
                .unwrap();
            file.write_all(text.as_bytes()).unwrap();
        }

        /// Appends `records` (lines without their checks) with the checks a writer would give
        /// them, but a last line without newline, which stays as it is (a torn write).
        fn append_records(&self, records: &str) {
            self.append_raw(&with_checks(last_check(&self.read()), records));
        }
    }

    /// `records` (lines without checks) with the checks of lines that follow a line whose
    /// check is `previous`; a last line without newline is left as it is.
    fn with_checks(mut previous: u32, records: &str) -> String {
        let mut out = String::new();
        let mut rest = records;
        while let Some((line, tail)) = rest.split_once('\n') {
            previous = push_checked(&mut out, previous, line);
            rest = tail;
        }
        out + rest
    }

    /// The check of the last complete line of a journal's text.
    fn last_check(text: &str) -> u32 {
        let last = text
            .strip_suffix('\n')
            .unwrap()
            .rsplit('\n')
            .next()
            .unwrap();
        line_check::parse_hex(last.rsplit(' ').next().unwrap()).unwrap()
    }

    /// A journal's text without the checks, to compare with the records meant.
    fn without_checks(text: &str) -> String {
        text.split_inclusive('\n')
            .map(|line| match line.strip_suffix('\n') {
                Some(line) => format!("{}\n", line.rsplit_once(' ').unwrap().0),
                None => line.to_string(),
            })
            .collect()
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const FP: &str = "exp binary64 [0x1p-10,0x1p-9] K=64 bp=none";

    fn counts(n: u64) -> Counts {
        Counts {
            inputs: n,
            hard: n / 2,
            exact: n / 3,
            unresolved: n / 5,
            undefined: n / 7,
            poles: n / 11,
            overflow: n / 13,
        }
    }

    fn open(dir: &TempDir) -> (Journal, Recovered) {
        Journal::open(&dir.0, FP).unwrap()
    }

    #[test]
    fn fresh_dir() {
        let dir = TempDir::new("fresh_dir");
        let nested = dir.0.join("a").join("b");
        let (journal, recovered) = Journal::open(&nested, FP).unwrap();
        assert_eq!(recovered, Recovered::default());
        assert_eq!(journal.path(), nested.join(FILE_NAME));
        assert_eq!(journal.sync_interval, Duration::from_secs(1));
        assert_eq!(
            fs::read_to_string(nested.join(FILE_NAME)).unwrap(),
            header_line(FP)
        );
        assert!(header_line(FP).starts_with(&format!("tmd-journal 2 {FP} ")));
        assert!(!nested.join(NEW_FILE_NAME).exists());
        drop(journal);
        // Reopening a journal that has only its first line recovers nothing, and is no error.
        let (_, recovered) = Journal::open(&nested, FP).unwrap();
        assert_eq!(recovered, Recovered::default());
    }

    #[test]
    fn round_trip() {
        let dir = TempDir::new("round_trip");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[3, 7], 10, &counts(10)).unwrap();
        journal.checkpoint(&[], 20, &counts(20)).unwrap();
        journal.checkpoint(&[20, 25, 29], 30, &counts(30)).unwrap();
        drop(journal);
        assert_eq!(
            without_checks(&dir.read()),
            format!(
                "tmd-journal 2 {FP}\nc 3\nc 7\nk 10 10 5 3 2 1 0 0\nk 20 20 10 6 4 2 1 1\n\
                 c 20\nc 25\nc 29\nk 30 30 15 10 6 4 2 2\n"
            )
        );

        let (mut journal, recovered) = open(&dir);
        let expected = Recovered {
            cases: vec![3, 7, 20, 25, 29],
            ranges: vec![],
            resume_from: Some(30),
            counts: counts(30),
            complete: false,
        };
        assert_eq!(recovered, expected);
        // The reopened journal goes on with the same rules and the same file.
        assert!(journal.checkpoint(&[29], 40, &counts(40)).is_err());
        journal.checkpoint(&[30, 41], 50, &counts(50)).unwrap();
        drop(journal);
        let (_, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![3, 7, 20, 25, 29, 30, 41]);
        assert_eq!(recovered.resume_from, Some(50));
        assert_eq!(recovered.counts, counts(50));
    }

    #[test]
    fn extreme_and_negative_ordinals() {
        let dir = TempDir::new("extreme_ordinals");
        let (mut journal, _) = open(&dir);
        let big = Counts {
            inputs: u64::MAX,
            ..Counts::default()
        };
        journal
            .checkpoint(&[i128::MIN, -5, 0], 1, &Counts::default())
            .unwrap();
        journal
            .checkpoint(&[i128::MAX - 1], i128::MAX, &big)
            .unwrap();
        drop(journal);
        let (_, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![i128::MIN, -5, 0, i128::MAX - 1]);
        assert_eq!(recovered.resume_from, Some(i128::MAX));
        assert_eq!(recovered.counts, big);
    }

    #[test]
    fn torn_last_line_is_ignored_and_truncated() {
        // Each tail is a possible kill mid-write; the last one even parses but has no newline.
        for (i, tail) in ["c 1", "k 5 1 2", "c 12\nk 1", "c 40\nk 50 50 0 0 0 0 0 0"]
            .iter()
            .enumerate()
        {
            let dir = TempDir::new(&format!("torn_last_line_{i}"));
            let (mut journal, _) = open(&dir);
            journal.checkpoint(&[1, 4], 5, &counts(5)).unwrap();
            drop(journal);
            let good = dir.read();
            dir.append_records(tail);

            let (mut journal, recovered) = open(&dir);
            assert_eq!(recovered.cases, vec![1, 4], "tail {tail:?}");
            assert_eq!(recovered.resume_from, Some(5));
            assert_eq!(dir.read(), good, "tail {tail:?} not truncated away");
            journal.checkpoint(&[6], 10, &counts(10)).unwrap();
            drop(journal);
            let (_, recovered) = open(&dir);
            assert_eq!(recovered.cases, vec![1, 4, 6]);
        }
    }

    #[test]
    fn unreadable_complete_last_line_is_ignored() {
        let dir = TempDir::new("unreadable_last_line");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[2], 5, &counts(5)).unwrap();
        drop(journal);
        let good = dir.read();
        dir.append_records("c 9\nk 3 x\n");
        let (_, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![2]);
        assert_eq!(dir.read(), good);
    }

    #[test]
    fn cases_after_last_checkpoint_are_dropped() {
        let dir = TempDir::new("cases_after_checkpoint");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[1, 2], 10, &counts(10)).unwrap();
        drop(journal);
        let good = dir.read();
        dir.append_records("c 50\nc 60\n");

        let (mut journal, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![1, 2]);
        assert_eq!(recovered.resume_from, Some(10));
        assert_eq!(recovered.counts, counts(10));
        assert_eq!(dir.read(), good, "stale cases must be physically removed");
        // 55 lies below the dropped 60: accepted, since 60 is gone.
        journal.checkpoint(&[55], 70, &counts(70)).unwrap();
        drop(journal);
        let (_, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![1, 2, 55]);
        assert_eq!(recovered.resume_from, Some(70));
    }

    #[test]
    fn cases_without_any_checkpoint_are_dropped() {
        let dir = TempDir::new("cases_without_checkpoint");
        drop(open(&dir));
        let good = dir.read();
        dir.append_records("c 50\nc 60\nc 7");
        let (_, recovered) = open(&dir);
        assert_eq!(recovered, Recovered::default());
        assert_eq!(dir.read(), good);
    }

    #[test]
    fn fingerprint_mismatch_errors() {
        let dir = TempDir::new("fingerprint_mismatch");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[1], 2, &counts(2)).unwrap();
        drop(journal);
        dir.append_records("c 9\n"); // must survive the refused open: nothing is truncated
        let before = dir.read();

        let other = "log binary64 [1,2] K=64 bp=none";
        let err = Journal::open(&dir.0, other).err().unwrap();
        let message = format!("{err:#}");
        assert!(message.contains(FP), "{message}");
        assert!(message.contains(other), "{message}");
        assert!(message.contains("another search"), "{message}");
        assert!(message.contains("delete"), "{message}");
        // Reported as bad input (exit status 2), not as a failure of tmd.
        assert!(err.is_bad_input());
        assert_eq!(dir.read(), before);
    }

    #[test]
    fn multi_line_fingerprint_is_refused() {
        let dir = TempDir::new("multi_line_fingerprint");
        assert!(Journal::open(&dir.0, "exp\nc 5").is_err());
        assert!(!dir.journal().exists());
    }

    #[test]
    fn corrupt_middle_line_errors() {
        let dir = TempDir::new("corrupt_middle_line");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[1], 2, &counts(2)).unwrap();
        drop(journal);
        dir.append_records("c zz\nc 3\nk 4 4 2 1 0 0 0 0\n");
        let text = dir.read();

        let err = Journal::open(&dir.0, FP).err().unwrap();
        let message = format!("{err:#}");
        let expected = format!("{}:4:", dir.journal().display());
        assert!(message.contains(&expected), "{message}");
        assert!(message.contains("c zz"), "{message}");
        assert!(err.is_bad_input());
        assert_eq!(dir.read(), text, "a corrupt journal must be left as it is");
    }

    /// A journal of two checkpoints, cases 12 and 34 then 45, as its text.
    fn two_checkpoints(dir: &TempDir) -> String {
        let (mut journal, _) = open(dir);
        journal.checkpoint(&[12, 34], 40, &counts(40)).unwrap();
        journal.checkpoint(&[45], 50, &counts(50)).unwrap();
        drop(journal);
        dir.read()
    }

    /// `text` with its line `n` (from 1) replaced by what `edit` makes of it.
    fn edit_line(text: &str, n: usize, edit: impl Fn(&str) -> String) -> String {
        text.split_inclusive('\n')
            .enumerate()
            .map(|(i, line)| {
                if i + 1 == n {
                    edit(line)
                } else {
                    line.to_string()
                }
            })
            .collect()
    }

    fn assert_refused_at(dir: &TempDir, line: usize) {
        let err = Journal::open(&dir.0, FP)
            .err()
            .expect("a damaged journal is refused");
        let message = err.to_string();
        let at = format!("{}:{line}:", dir.journal().display());
        assert!(message.contains(&at), "{message}");
        assert!(message.contains("delete the directory"), "{message}");
        assert!(err.is_bad_input(), "{message}");
    }

    #[test]
    fn case_line_with_one_digit_changed_is_refused() {
        let dir = TempDir::new("digit_changed");
        let good = two_checkpoints(&dir);
        // Still a valid, ordered case: only the check can tell.
        let damaged = edit_line(&good, 3, |line| line.replacen("c 34", "c 35", 1));
        assert_ne!(damaged, good);
        fs::write(dir.journal(), &damaged).unwrap();
        assert_refused_at(&dir, 3);
        assert_eq!(dir.read(), damaged, "a refused journal is left as it is");
    }

    #[test]
    fn lost_case_line_is_refused() {
        let dir = TempDir::new("line_lost");
        let good = two_checkpoints(&dir);
        fs::write(dir.journal(), edit_line(&good, 2, |_| String::new())).unwrap();
        // The line after the lost one no longer chains from its predecessor.
        assert_refused_at(&dir, 2);
    }

    #[test]
    fn damaged_last_line_is_searched_again() {
        let dir = TempDir::new("last_line_damaged");
        let good = two_checkpoints(&dir);
        // The last checkpoint's inputs count changed: its chunk is not taken as done.
        let damaged = edit_line(&good, 6, |line| line.replacen("k 50 50", "k 50 51", 1));
        assert_ne!(damaged, good);
        fs::write(dir.journal(), &damaged).unwrap();
        let (mut journal, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![12, 34]);
        assert_eq!(recovered.resume_from, Some(40));
        assert_eq!(recovered.counts, counts(40));
        // Appending goes on from the last good line, and reads back.
        journal.checkpoint(&[45], 50, &counts(50)).unwrap();
        drop(journal);
        assert_eq!(dir.read(), good);
    }

    #[test]
    fn journal_without_checks_is_refused_with_a_message_to_start_again() {
        let dir = TempDir::new("version_1");
        fs::create_dir_all(&dir.0).unwrap();
        let old = format!("tmd-journal 1 {FP}\nc 3\nk 10 10 5 3 2 1 0 0\n");
        fs::write(dir.journal(), &old).unwrap();
        let err = Journal::open(&dir.0, FP).err().unwrap();
        let message = err.to_string();
        assert!(message.contains("version 1"), "{message}");
        assert!(message.contains("start the search again"), "{message}");
        assert!(err.is_bad_input());
        assert_eq!(dir.read(), old);
    }

    #[test]
    fn damaged_first_line_is_refused() {
        let dir = TempDir::new("header_damaged");
        let good = two_checkpoints(&dir);
        let damaged = edit_line(&good, 1, |line| line.replacen("K=64", "K=65", 1));
        fs::write(dir.journal(), damaged).unwrap();
        let other = FP.replace("K=64", "K=65");
        let err = Journal::open(&dir.0, &other).err().unwrap();
        assert!(err.to_string().contains(":1:"), "{err}");
    }

    #[test]
    fn range_records_are_kept_in_order_with_the_cases() {
        let dir = TempDir::new("range_records");
        let (mut journal, _) = open(&dir);
        journal
            .checkpoint_listed(&[2, 40], &[(5, 30), (41, 60)], 61, &counts(61))
            .unwrap();
        // A range that overlaps a case, or runs past its checkpoint, is refused unwritten.
        assert!(journal
            .checkpoint_listed(&[70], &[(65, 71)], 80, &counts(80))
            .is_err());
        assert!(journal
            .checkpoint_listed(&[], &[(65, 81)], 80, &counts(80))
            .is_err());
        assert!(journal
            .checkpoint_listed(&[], &[(60, 62)], 80, &counts(80))
            .is_err());
        journal
            .checkpoint_listed(&[], &[(61, 80)], 80, &counts(80))
            .unwrap();
        drop(journal);
        assert!(
            without_checks(&dir.read()).contains("c 2\nr 5 30\nc 40\nr 41 60\nk 61 "),
            "{}",
            dir.read()
        );
        // An uncommitted range after the last checkpoint is dropped like a case.
        dir.append_records("r 90 95\n");
        let (_, recovered) = open(&dir);
        assert_eq!(recovered.cases, vec![2, 40]);
        assert_eq!(recovered.ranges, vec![(5, 30), (41, 60), (61, 80)]);
        assert_eq!(recovered.resume_from, Some(80));
    }

    #[test]
    fn out_of_order_middle_line_errors() {
        // Lines that parse but break the ordering rules cannot come from this writer either.
        for (i, body) in [
            "c 5\nc 5\nk 9 0 0 0 0 0 0 0\n",               // case repeated
            "c 5\nk 5 0 0 0 0 0 0 0\nk 6 0 0 0 0 0 0 0\n", // case not below its checkpoint
            "k 9 0 0 0 0 0 0 0\nk 8 0 0 0 0 0 0 0\nk 10 0 0 0 0 0 0 0\n", // checkpoint backwards
            "k 9 0 0 0 0 0 0 0\nc 3\nk 10 0 0 0 0 0 0 0\n", // case below finished prefix
            "end 0 0 0 0 0 0 0\nk 9 0 0 0 0 0 0 0\nk 10 0 0 0 0 0 0 0\n", // record after end
            "c 1\nend 0 0 0 0 0 0 0\nk 9 0 0 0 0 0 0 0\n", // uncommitted case before end
            "c +1\nk 9 0 0 0 0 0 0 0\n",                   // a spelling the writer never uses
            "k  9 0 0 0 0 0 0 0\nk 10 0 0 0 0 0 0 0\n",    // double space
            "c 5\nr 5 8\nk 9 0 0 0 0 0 0 0\n",             // range over a case
            "r 5 12\nk 9 0 0 0 0 0 0 0\nk 12 0 0 0 0 0 0 0\n", // range past its checkpoint
            "r 7 7\nk 9 0 0 0 0 0 0 0\n",                  // empty range
        ]
        .iter()
        .enumerate()
        {
            let dir = TempDir::new(&format!("out_of_order_{i}"));
            drop(open(&dir));
            dir.append_records(body);
            let err = Journal::open(&dir.0, FP).err();
            assert!(err.is_some(), "accepted {body:?}");
        }
    }

    #[test]
    fn not_a_journal_errors() {
        for (i, content) in [
            "hello\n".as_bytes(),
            b"tmd-journal 2 x\nk 1 0 0 0 0 0 0 0\n",
            b"tmd-journal 2",
            b"\xff\xfe\n",
        ]
        .iter()
        .enumerate()
        {
            let dir = TempDir::new(&format!("not_a_journal_{i}"));
            fs::create_dir_all(&dir.0).unwrap();
            fs::write(dir.journal(), content).unwrap();
            assert!(Journal::open(&dir.0, FP).is_err());
            assert_eq!(fs::read(dir.journal()).unwrap(), *content);
        }
    }

    #[test]
    fn complete_journal() {
        let dir = TempDir::new("complete_journal");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[1, 8], 10, &counts(10)).unwrap();
        journal.checkpoint(&[12], 20, &counts(20)).unwrap();
        journal.finish(&counts(21)).unwrap();
        assert!(journal.checkpoint(&[], 30, &counts(30)).is_err());
        journal.finish(&counts(21)).unwrap(); // repeated: nothing to do
        assert!(journal.finish(&counts(22)).is_err());
        drop(journal);
        let finished = dir.read();
        assert!(
            without_checks(&finished).ends_with("\nend 21 10 7 4 3 1 1\n"),
            "{finished}"
        );

        let (mut journal, recovered) = open(&dir);
        assert_eq!(
            recovered,
            Recovered {
                cases: vec![1, 8, 12],
                ranges: vec![],
                resume_from: Some(20),
                counts: counts(21),
                complete: true,
            }
        );
        assert!(journal.checkpoint(&[], 30, &counts(30)).is_err());
        journal.finish(&counts(21)).unwrap();
        drop(journal);
        assert_eq!(dir.read(), finished);
    }

    #[test]
    fn refused_checkpoints_write_nothing() {
        let dir = TempDir::new("refused_checkpoints");
        let (mut journal, _) = open(&dir);
        journal.checkpoint(&[3], 10, &counts(10)).unwrap();
        let before = dir.read();
        for (cases, done) in [
            (&[12, 11][..], 20), // out of order
            (&[12, 12][..], 20), // repeated
            (&[9][..], 20),      // below the previous checkpoint
            (&[25][..], 20),     // not below its own checkpoint
            (&[][..], 9),        // checkpoint going backwards
        ] {
            let err = journal.checkpoint(cases, done, &counts(20)).unwrap_err();
            assert!(matches!(err, JournalError::Refused(_)), "{err}");
        }
        assert_eq!(dir.read(), before);
        journal.checkpoint(&[10, 19], 20, &counts(20)).unwrap();
    }

    /// The search the crash tests resume: ordinals 0..END, with a case wherever
    /// `x % 7 == 3 || x % 11 == 0`, checkpointed every CHUNK inputs.
    const END: i128 = 300;
    const CHUNK: i128 = 16;

    fn is_case(x: i128) -> bool {
        x % 7 == 3 || x % 11 == 0
    }

    fn counts_below(done: i128) -> Counts {
        let cases = (0..done).filter(|&x| is_case(x)).count() as u64;
        Counts {
            inputs: done as u64,
            hard: cases,
            exact: (0..done).filter(|x| x % 13 == 0).count() as u64,
            ..Counts::default()
        }
    }

    /// Runs or resumes the search in `dir`, as `tmd search --resume` would: returns what it
    /// prints (recovered cases, then new ones), or `None` when it "crashes" (drops the journal
    /// without finishing) after `crash_after` checkpoints.
    fn run_search(dir: &Path, crash_after: Option<usize>) -> Option<(Vec<i128>, Counts)> {
        let (mut journal, recovered) = Journal::open(dir, FP).unwrap();
        // Never fsync in tests: kill safety must not depend on it.
        journal.sync_interval = Duration::from_secs(3600);
        if recovered.complete {
            return Some((recovered.cases, recovered.counts));
        }
        assert_eq!(
            recovered.counts,
            counts_below(recovered.resume_from.unwrap_or(0))
        );
        let mut printed = recovered.cases;
        let mut start = recovered.resume_from.unwrap_or(0);
        let mut checkpoints = 0;
        while start < END {
            let done = (start + CHUNK).min(END);
            let cases: Vec<i128> = (start..done).filter(|&x| is_case(x)).collect();
            printed.extend(&cases);
            journal
                .checkpoint(&cases, done, &counts_below(done))
                .unwrap();
            checkpoints += 1;
            if crash_after == Some(checkpoints) {
                return None;
            }
            start = done;
        }
        journal.finish(&counts_below(END)).unwrap();
        Some((printed, counts_below(END)))
    }

    fn uninterrupted() -> (Vec<i128>, Counts) {
        (
            (0..END).filter(|&x| is_case(x)).collect(),
            counts_below(END),
        )
    }

    #[test]
    fn simulated_crash_resumes_to_the_same_result() {
        let dir = TempDir::new("simulated_crash");
        // Several crashes in a row, each after a few checkpoints, then a run to the end.
        for _ in 0..4 {
            assert_eq!(run_search(&dir.0, Some(3)), None);
        }
        // The crashed runs also left uncommitted cases and a torn line, as a kill can.
        dir.append_records("c 299\nc 2");
        assert_eq!(run_search(&dir.0, None), Some(uninterrupted()));
        // Once complete, a rerun prints the same without searching.
        assert_eq!(run_search(&dir.0, None), Some(uninterrupted()));
    }

    #[test]
    fn kill_at_every_byte_resumes_to_the_same_result() {
        // Write the whole journal, then cut it at every byte: each cut is what a kill at that
        // instant can leave. Every one must resume to the uninterrupted output.
        let full_dir = TempDir::new("kill_every_byte_full");
        assert_eq!(run_search(&full_dir.0, None), Some(uninterrupted()));
        let full = fs::read(full_dir.journal()).unwrap();
        let header = header_line(FP).len();

        let dir = TempDir::new("kill_every_byte");
        for cut in header..=full.len() {
            let _ = fs::remove_dir_all(&dir.0);
            fs::create_dir_all(&dir.0).unwrap();
            fs::write(dir.journal(), &full[..cut]).unwrap();
            assert_eq!(
                run_search(&dir.0, None),
                Some(uninterrupted()),
                "cut at byte {cut}"
            );
        }
    }

    /// Property tests of the reader (`PROPTEST_CASES` sets how many cases).
    mod fuzz_tests {
        use super::*;
        use proptest::prelude::*;
        use std::sync::atomic::{AtomicUsize, Ordering};

        /// One checkpoint of a history: the offsets of its cases above the previous
        /// `done_through`, and how far past the last case it reaches.
        type Step = (std::collections::BTreeSet<u32>, u32);

        fn steps() -> impl Strategy<Value = Vec<Step>> {
            proptest::collection::vec(
                (proptest::collection::btree_set(0u32..1000, 0..6), 1u32..100),
                0..12,
            )
        }

        /// The cases and checkpoints of a history starting at `start`.
        fn history(start: i128, steps: &[Step]) -> Vec<(Vec<i128>, i128)> {
            let mut done = start;
            steps
                .iter()
                .map(|(offsets, past)| {
                    let cases: Vec<i128> = offsets.iter().map(|&o| done + o as i128).collect();
                    done += offsets.last().map_or(0, |&o| o as i128) + *past as i128;
                    (cases, done)
                })
                .collect()
        }

        /// Writes a history through [`Journal`] and returns the file's bytes and what
        /// reading it must recover.
        fn write(history: &[(Vec<i128>, i128)], complete: bool) -> (Vec<u8>, Recovered) {
            static RUN: AtomicUsize = AtomicUsize::new(0);
            let dir = TempDir::new(&format!("fuzz-{}", RUN.fetch_add(1, Ordering::Relaxed)));
            let (mut journal, _) = open(&dir);
            journal.sync_interval = Duration::MAX;
            let mut expected = Recovered::default();
            for (i, (cases, done)) in history.iter().enumerate() {
                let c = counts(i as u64 * 17);
                journal.checkpoint(cases, *done, &c).unwrap();
                expected.cases.extend(cases);
                expected.resume_from = Some(*done);
                expected.counts = c;
            }
            if complete {
                let c = counts(1000);
                journal.finish(&c).unwrap();
                expected.counts = c;
                expected.complete = true;
            }
            drop(journal);
            let (_, recovered) = open(&dir);
            assert_eq!(recovered, expected, "reopened");
            (fs::read(dir.journal()).unwrap(), expected)
        }

        fn read(bytes: &[u8]) -> Result<Recovered, JournalError> {
            scan(Path::new("journal.tmd"), bytes, FP).map(Scan::recovered)
        }

        /// What any successful read must satisfy: cases increasing, all below the
        /// resume point.
        fn well_formed(r: &Recovered) -> bool {
            r.cases.windows(2).all(|w| w[0] < w[1])
                && r.cases
                    .last()
                    .is_none_or(|&c| r.resume_from.is_some_and(|d| c < d))
        }

        fn header() -> String {
            header_line(FP)
        }

        proptest! {
            #[test]
            fn journal_reader_never_panics_on_arbitrary_bytes(
                bytes in proptest::collection::vec(any::<u8>(), 0..400),
                with_header in any::<bool>(),
            ) {
                let mut file = if with_header { header().into_bytes() } else { Vec::new() };
                file.extend(&bytes);
                if let Ok(r) = read(&file) {
                    prop_assert!(well_formed(&r), "{:?}", r);
                }
            }

            #[test]
            fn journal_reader_never_panics_on_record_like_lines(
                lines in proptest::collection::vec(
                    "(c|k|end)( -?[0-9]{1,40}){0,9}|c -|k|end 1 2", 0..30),
                torn in any::<bool>(),
            ) {
                let mut file = header();
                file += &lines.join("\n");
                if !torn && !lines.is_empty() {
                    file.push('\n');
                }
                if let Ok(r) = read(file.as_bytes()) {
                    prop_assert!(well_formed(&r), "{:?}", r);
                }
            }

            #[test]
            fn journals_round_trip_and_cut_ones_recover_a_prefix(
                start in -(1i128 << 100)..(1i128 << 100),
                steps in steps(),
                complete in any::<bool>(),
                cut in any::<proptest::sample::Index>(),
            ) {
                let history = history(start, &steps);
                let (bytes, expected) = write(&history, complete);
                prop_assert_eq!(read(&bytes).unwrap(), expected.clone());
                // A kill leaves a byte prefix: it reads back to an earlier checkpoint.
                let cut = cut.index(bytes.len() + 1);
                match read(&bytes[..cut]) {
                    Ok(r) => {
                        prop_assert!(cut >= header().len());
                        prop_assert!(expected.cases.starts_with(&r.cases));
                        prop_assert!(r.resume_from <= expected.resume_from);
                        prop_assert!(well_formed(&r));
                    }
                    Err(e) => {
                        prop_assert!(cut < header().len());
                        prop_assert!(matches!(e, JournalError::NotAJournal { .. }), "{}", e);
                    }
                }
            }

            #[test]
            fn bit_flipped_journals_read_or_give_an_error(
                start in -(1i128 << 100)..(1i128 << 100),
                steps in steps(),
                flip in any::<proptest::sample::Index>(),
                bit in 0u8..8,
            ) {
                let (mut bytes, expected) = write(&history(start, &steps), true);
                let at = flip.index(bytes.len());
                bytes[at] ^= 1 << bit;
                // The checks leave two outcomes: an error, or the flipped line taken for a
                // torn last line, which gives back an earlier checkpoint. Never another case.
                if let Ok(r) = read(&bytes) {
                    prop_assert!(well_formed(&r), "{:?}", r);
                    prop_assert!(expected.cases.starts_with(&r.cases), "{:?}", r);
                    prop_assert!(r.resume_from <= expected.resume_from);
                }
            }
        }
    }
}
