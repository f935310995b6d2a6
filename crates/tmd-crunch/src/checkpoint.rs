//! Checkpoint files: one JSON header line, then one line per finished block, appended and
//! flushed as each block finishes (the block is the unit of checkpointing). A kill at any
//! moment leaves at most a partial last line, which the reader ignores and the next run cuts
//! off before appending. `tmd search` under mpirun keeps its segments the same way
//! (`tmd_search::cluster::SegmentsJournal`). `tmd crunch-status` reads the file while the run
//! goes on; `tmd crunch-format` prints the per-block maxima as tab-separated text.
//!
//! Each line ends with its check, a last member `"crc32":"<8 hex digits>"`
//! ([`tmd_core::line_check::seal_json`]): a block line with a digit changed still parses, and
//! a resumed run would merge a maximum or a count that no block had. A complete line whose
//! check fails is refused (line number, exit status 2); the file is the user's to repair or
//! delete. Files of layout version 1 have no checks: they are still read (`crunch-status`,
//! `crunch-format`, reports), but a run is not resumed from one.

use crate::rounding::Rounding;
use crate::summary::Summary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use tmd_core::line_check;
use tmd_core::run_lock::RunLock;
use tmd_core::safe_fs;

/// What identifies a run: a checkpoint resumes only the run it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub tmd_crunch_checkpoint: u32,
    pub target: String,
    pub format: String,
    /// The mode the target ran under; checkpoints written before modes existed were
    /// round-to-nearest runs.
    #[serde(default)]
    pub rounding: Rounding,
    pub from: String,
    pub to: String,
    pub block_bits: u32,
    #[serde(default)]
    pub sample_windows: Option<u64>,
    pub reference: String,
}

impl Header {
    /// Whether a file with this header belongs to the run of `other`: the same in every field
    /// but the fast reference's name. The reference changes which inputs reach MPFR, never a
    /// verdict (every decision is exact: crunch's fast paths decide only where their proven
    /// bound does), so a run goes on across a change of reference, such as a newer binary with
    /// a faster one; the blocks each keep the counts of the reference that made them.
    pub fn same_run(&self, other: &Header) -> bool {
        let without_reference = |h: &Header| Header {
            reference: String::new(),
            ..h.clone()
        };
        without_reference(self) == without_reference(other)
    }
}

/// The current checkpoint layout version: 2, each line checked; 1 had no checks.
pub const CHECKPOINT_VERSION: u32 = 2;
/// The layout before lines had checks, read but not appended to.
const UNCHECKED_VERSION: u32 = 1;

/// One finished block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockRecord {
    /// Block index: the block holds ordinals `[index << block_bits, (index + 1) << block_bits)`
    /// intersected with the run's range.
    pub index: i64,
    /// First ordinal (included) and last ordinal (excluded) crunched in this block.
    pub first: i64,
    pub end: i64,
    pub seconds: f64,
    pub summary: Summary,
}

/// A checkpoint as read back.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub header: Header,
    pub blocks: BTreeMap<i64, BlockRecord>,
    /// Byte length of the complete lines (a partial last line starts there).
    complete_len: u64,
}

/// A checkpoint that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint {path}: {why}")]
    Bad { path: PathBuf, why: String },
    #[error("checkpoint {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another run appends to it.
    #[error(transparent)]
    Locked(#[from] tmd_core::run_lock::LockError),
}

impl CheckpointError {
    /// Whether the user is at fault (a file of another run or of no run, a file another run
    /// holds): exit status 2.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, CheckpointError::Bad { .. })
            || matches!(self, CheckpointError::Locked(e) if e.is_bad_input())
    }
}

fn bad(path: &Path, why: impl Into<String>) -> CheckpointError {
    CheckpointError::Bad {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

impl Checkpoint {
    /// Reads a checkpoint; a partial last line (a kill during a write) is ignored. Anything
    /// but a regular file (a device, a FIFO, a directory) is refused unread.
    pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
        let file = open_regular(path, OpenOptions::new().read(true))?;
        Checkpoint::read_from(path, file)
    }

    fn read_from(path: &Path, file: File) -> Result<Checkpoint, CheckpointError> {
        // Bytes that are not UTF-8 text are a damaged or foreign file, the user's to fix,
        // not a failure to read it.
        let io = |source: std::io::Error| {
            if source.kind() == std::io::ErrorKind::InvalidData {
                bad(path, "not UTF-8 text: not a crunch checkpoint")
            } else {
                CheckpointError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            }
        };
        let mut reader = BufReader::new(file);
        let mut line = String::new();
        let mut offset = 0u64;
        let n = reader.read_line(&mut line).map_err(io)?;
        if n == 0 {
            return Err(bad(
                path,
                "empty: nothing done yet (no run has written its header)",
            ));
        }
        if !line.ends_with('\n') {
            return Err(bad(path, "truncated header: not a crunch checkpoint"));
        }
        // Read as it stands first (the check is one more member): the version says whether
        // the lines carry checks.
        let header: Header = serde_json::from_str(&line)
            .map_err(|_| bad(path, "the first line is not a crunch checkpoint header"))?;
        let checked = match header.tmd_crunch_checkpoint {
            CHECKPOINT_VERSION => true,
            UNCHECKED_VERSION => false,
            other => {
                return Err(bad(
                    path,
                    format!("layout version {other} (this tmd reads {CHECKPOINT_VERSION})"),
                ))
            }
        };
        let unseal = |text: &str, lineno: usize| -> Result<String, CheckpointError> {
            if !checked {
                return Ok(text.to_string());
            }
            line_check::unseal_json(text).map_err(|why| {
                bad(
                    path,
                    format!(
                        "line {lineno} is damaged ({why}); repair or delete the file to start over"
                    ),
                )
            })
        };
        let header: Header = serde_json::from_str(&unseal(line.trim_end_matches('\n'), 1)?)
            .map_err(|_| bad(path, "the first line is not a crunch checkpoint header"))?;
        offset += n as u64;
        let mut blocks = BTreeMap::new();
        let mut lineno = 1;
        loop {
            line.clear();
            let n = reader.read_line(&mut line).map_err(io)?;
            if n == 0 {
                break;
            }
            lineno += 1;
            if !line.ends_with('\n') {
                break; // partial last line
            }
            let text = unseal(line.trim_end_matches('\n'), lineno)?;
            let record: BlockRecord = serde_json::from_str(&text)
                .map_err(|e| bad(path, format!("line {lineno} is not a block record: {e}")))?;
            blocks.insert(record.index, record);
            offset += n as u64;
        }
        Ok(Checkpoint {
            header,
            blocks,
            complete_len: offset,
        })
    }
}

/// Checks that `path` can be a checkpoint: a regular file, or a name that does not exist
/// yet (a link to a regular file counts as one, unless it is a link another user planted in a
/// shared directory). A device, a FIFO or a directory is refused: bad input.
pub fn check_path(path: &Path) -> Result<(), CheckpointError> {
    if let Some(why) = safe_fs::check_link(path) {
        return Err(bad(path, why));
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) if meta.is_dir() => Err(bad(path, "is a directory")),
        Ok(_) => Err(bad(
            path,
            "is not a regular file (a device or a FIFO); a checkpoint is a file of its own",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(bad(path, "is a symbolic link to nothing"));
            }
            Ok(())
        }
        Err(source) => Err(CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Opens `path` with `options`, never waiting on a FIFO, and refuses anything but a regular
/// file (`/dev/zero` would never end).
fn open_regular(path: &Path, options: &mut OpenOptions) -> Result<File, CheckpointError> {
    let io = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = options
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(bad(path, "is a directory"));
    }
    if !meta.is_file() {
        return Err(bad(
            path,
            "is not a regular file (a device or a FIFO): not a crunch checkpoint",
        ));
    }
    Ok(file)
}

fn header_line(header: &Header) -> String {
    let mut text = sealed(header);
    text.push('\n');
    text
}

/// Creates the checkpoint `path` holding its header line: written to an exclusive temporary
/// file beside it and linked into place only if the name is still free, so the checkpoint
/// never exists without its whole header and nothing planted under the name is written.
fn create_new(path: &Path, header: &Header) -> std::io::Result<File> {
    let (mut file, temp) = safe_fs::create_temp_beside(path)?;
    let written = file
        .write_all(header_line(header).as_bytes())
        .and_then(|()| file.sync_data());
    let placed = written.and_then(|()| match std::fs::hard_link(&temp, path) {
        // A file system without hard links: a rename, which replaces a name rather than
        // writing through it, is as safe but for the name's freshness.
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => std::fs::rename(&temp, path),
        linked => linked,
    });
    let _ = std::fs::remove_file(&temp);
    placed.map(|()| file)
}

/// An open checkpoint that finished blocks are appended to.
pub struct CheckpointWriter {
    file: File,
    /// Held while the checkpoint is open: no second run appends to it.
    _lock: RunLock,
}

impl CheckpointWriter {
    /// Opens `path` for the run described by `header`: creates it, or checks that an existing
    /// file belongs to the same run and returns its finished blocks.
    pub fn open(
        path: &Path,
        header: &Header,
    ) -> Result<(CheckpointWriter, BTreeMap<i64, BlockRecord>), CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Never a lock beside a device, nor a wait on a FIFO: what the path names is
        // checked first.
        check_path(path)?;
        // One run per checkpoint, before it is read or cut: a lock on `PATH.lock`.
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let lock = RunLock::acquire(Path::new(&lock_path), path)?;
        if std::fs::symlink_metadata(path).is_err() {
            let file = create_new(path, header).map_err(io)?;
            return Ok((CheckpointWriter { file, _lock: lock }, BTreeMap::new()));
        }
        let mut file = open_regular(path, OpenOptions::new().read(true).write(true))?;
        // An empty file, like an empty journal, holds nothing done yet.
        if file.metadata().map_err(io)?.len() == 0 {
            file.write_all(header_line(header).as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(io)?;
            return Ok((CheckpointWriter { file, _lock: lock }, BTreeMap::new()));
        }
        let existing = Checkpoint::read_from(path, file.try_clone().map_err(io)?)?;
        if existing.header.tmd_crunch_checkpoint != CHECKPOINT_VERSION {
            return Err(bad(
                path,
                format!(
                    "layout version {} has no line checks, and this tmd appends only to \
                     checked files: start the crunch again with another file",
                    existing.header.tmd_crunch_checkpoint
                ),
            ));
        }
        if existing.header.rounding != header.rounding {
            return Err(bad(
                path,
                format!(
                    "written under --rounding {}, not {}; use another file",
                    existing.header.rounding, header.rounding
                ),
            ));
        }
        if !existing.header.same_run(header) {
            return Err(bad(
                path,
                format!(
                    "belongs to another run ({} {} [{}, {}) blocks of 2^{}); use another file",
                    existing.header.target,
                    existing.header.format,
                    existing.header.from,
                    existing.header.to,
                    existing.header.block_bits
                ),
            ));
        }
        file.set_len(existing.complete_len).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok((CheckpointWriter { file, _lock: lock }, existing.blocks))
    }

    /// Appends one finished block (one write of one line, then a flush to the OS).
    pub fn append(&mut self, record: &BlockRecord) -> std::io::Result<()> {
        let mut text = sealed(record);
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}

/// One line of the file: `value` as JSON with its check.
fn sealed(value: &impl Serialize) -> String {
    line_check::seal_json(&serde_json::to_string(value).expect("a record serialises"))
}

#[cfg(test)]
mod fuzz_tests {
    //! Property tests of the checkpoint reader (`PROPTEST_CASES` sets how many cases).
    use super::*;
    use crate::summary::{NearMax, Specials};
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A scratch file unique to one case of this process, removed (with its lock) when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Scratch {
            static RUN: AtomicUsize = AtomicUsize::new(0);
            let n = RUN.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "tmd-checkpoint-fuzz-{}-{n}.jsonl",
                std::process::id()
            ));
            let _ = std::fs::remove_file(&path);
            Scratch(path)
        }

        fn holding(bytes: &[u8]) -> Scratch {
            let s = Scratch::new();
            std::fs::write(&s.0, bytes).unwrap();
            s
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            let mut lock = self.0.as_os_str().to_owned();
            lock.push(".lock");
            let _ = std::fs::remove_file(lock);
        }
    }

    fn finite() -> impl Strategy<Value = f64> {
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |v| v.is_finite())
    }

    fn summary() -> impl Strategy<Value = Summary> {
        (
            any::<[u64; 6]>(),
            (finite(), proptest::option::of(any::<i64>()), finite()),
            proptest::collection::vec((any::<i64>(), finite(), any::<bool>()), 0..4),
            proptest::collection::vec(any::<u64>(), 0..8),
            any::<[u64; 10]>(),
        )
            .prop_map(
                |(n, (max_ulp, argmax, dropped), near, histogram, sp)| Summary {
                    inputs: n[0],
                    correctly_rounded: n[1],
                    faithful: n[2],
                    worse: n[3],
                    max_ulp,
                    argmax,
                    near_max: near
                        .into_iter()
                        .map(|(ordinal, err, exact)| NearMax {
                            ordinal,
                            err,
                            exact,
                        })
                        .collect(),
                    near_max_dropped: dropped,
                    histogram,
                    worse_below_one_ulp: n[5],
                    specials: Specials {
                        nan_expected: sp[0],
                        nan_wrong: sp[1],
                        nan_spurious: sp[2],
                        pole: sp[3],
                        pole_wrong: sp[4],
                        overflow: sp[5],
                        overflow_wrong: sp[6],
                        inf_spurious: sp[7],
                        subnormal: sp[8],
                        subnormal_wrong: sp[9],
                    },
                    mpfr_inputs: n[4],
                },
            )
    }

    fn records() -> impl Strategy<Value = Vec<BlockRecord>> {
        proptest::collection::vec((any::<i64>(), any::<i64>(), finite(), summary()), 0..6).prop_map(
            |blocks| {
                blocks
                    .into_iter()
                    .enumerate()
                    .map(|(i, (first, end, seconds, summary))| BlockRecord {
                        index: i as i64,
                        first,
                        end,
                        seconds,
                        summary,
                    })
                    .collect()
            },
        )
    }

    fn header() -> Header {
        Header {
            tmd_crunch_checkpoint: CHECKPOINT_VERSION,
            target: "exp \"fast\"\n".into(),
            format: "binary64".into(),
            from: "-0x0p+0".into(),
            to: "inf".into(),
            block_bits: 20,
            sample_windows: Some(3),
            reference: "mpfr".into(),
            rounding: Rounding::Up,
        }
    }

    /// Writes the records through [`CheckpointWriter`]; the file's bytes.
    fn write(records: &[BlockRecord]) -> Vec<u8> {
        let file = Scratch::new();
        let (mut writer, old) = CheckpointWriter::open(&file.0, &header()).unwrap();
        assert!(old.is_empty());
        for r in records {
            writer.append(r).unwrap();
        }
        drop(writer);
        std::fs::read(&file.0).unwrap()
    }

    /// A damaged file is the user's to fix: a `Bad` error, exit status 2.
    fn read(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let file = Scratch::holding(bytes);
        let result = Checkpoint::read(&file.0);
        if let Err(e) = &result {
            assert!(e.is_bad_input(), "{e}");
        }
        result
    }

    proptest! {
        #[test]
        fn checkpoint_reader_never_panics_on_arbitrary_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            with_header in any::<bool>(),
        ) {
            let mut file = Vec::new();
            if with_header {
                file = serde_json::to_vec(&header()).unwrap();
                file.push(b'\n');
            }
            file.extend(bytes);
            let _ = read(&file);
        }

        #[test]
        fn checkpoints_round_trip_exactly(records in records()) {
            let bytes = write(&records);
            let read = read(&bytes).unwrap();
            prop_assert_eq!(read.header, header());
            prop_assert_eq!(read.complete_len, bytes.len() as u64);
            let blocks: Vec<BlockRecord> = read.blocks.into_values().collect();
            // Bit for bit: a resumed run must report what an uninterrupted one does.
            prop_assert_eq!(format!("{blocks:?}"), format!("{records:?}"));
        }

        #[test]
        fn cut_checkpoints_read_back_a_prefix_of_their_blocks(
            records in records(),
            cut in any::<proptest::sample::Index>(),
        ) {
            let bytes = write(&records);
            let cut = cut.index(bytes.len() + 1);
            let header_len = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
            match read(&bytes[..cut]) {
                Ok(c) => {
                    prop_assert!(cut >= header_len);
                    let n = c.blocks.len();
                    let blocks: Vec<BlockRecord> = c.blocks.into_values().collect();
                    prop_assert_eq!(&blocks[..], &records[..n]);
                }
                Err(_) => prop_assert!(cut < header_len),
            }
        }

        #[test]
        fn bit_flipped_checkpoints_read_or_give_a_bad_input_error(
            records in records(),
            flip in any::<proptest::sample::Index>(),
            bit in 0u8..8,
        ) {
            let mut bytes = write(&records);
            let at = flip.index(bytes.len());
            bytes[at] ^= 1 << bit;
            // The checks leave an error, or a last line taken for a torn write: never a block
            // that was not written.
            if let Ok(c) = read(&bytes) {
                let n = c.blocks.len();
                let blocks: Vec<BlockRecord> = c.blocks.into_values().collect();
                prop_assert_eq!(format!("{:?}", &blocks[..]), format!("{:?}", &records[..n]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::NearMax;

    fn header() -> Header {
        Header {
            tmd_crunch_checkpoint: CHECKPOINT_VERSION,
            target: "std:expf".into(),
            format: "binary32".into(),
            from: "0x1p+0".into(),
            to: "0x1p+1".into(),
            block_bits: 10,
            sample_windows: None,
            reference: "mpfr".into(),
            rounding: Rounding::Nearest,
        }
    }

    fn block(index: i64, max_ulp: f64) -> BlockRecord {
        BlockRecord {
            index,
            first: index << 10,
            end: (index + 1) << 10,
            seconds: 0.5,
            summary: Summary {
                inputs: 1024,
                max_ulp,
                ..Summary::default()
            },
        }
    }

    #[test]
    fn block_line_with_one_digit_changed_is_refused() {
        let path = std::env::temp_dir().join(format!("tmd-ck-digit-{}.ckpt", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let (mut writer, _) = CheckpointWriter::open(&path, &header()).unwrap();
        writer.append(&block(0, 0.75)).unwrap();
        writer.append(&block(1, 0.5)).unwrap();
        drop(writer);
        let good = std::fs::read_to_string(&path).unwrap();
        assert!(good.lines().all(|l| l.contains(r#","crc32":""#)), "{good}");
        // Still valid JSON and a valid block: only the check can tell.
        std::fs::write(&path, good.replacen("0.75", "0.25", 1)).unwrap();
        let err = Checkpoint::read(&path).expect_err("refused");
        assert!(err.is_bad_input(), "{err}");
        assert!(err.to_string().contains("line 2 is damaged"), "{err}");
        assert!(CheckpointWriter::open(&path, &header()).is_err());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn checkpoint_without_checks_is_read_but_not_resumed() {
        let path = std::env::temp_dir().join(format!("tmd-ck-v1-{}.ckpt", std::process::id()));
        let old = Header {
            tmd_crunch_checkpoint: UNCHECKED_VERSION,
            ..header()
        };
        let mut text = serde_json::to_string(&old).unwrap() + "\n";
        text += &(serde_json::to_string(&block(0, 0.75)).unwrap() + "\n");
        std::fs::write(&path, &text).unwrap();
        let read = Checkpoint::read(&path).unwrap();
        assert_eq!(read.blocks.len(), 1);
        let err = CheckpointWriter::open(&path, &old).err().expect("refused");
        assert!(err.is_bad_input(), "{err}");
        assert!(err.to_string().contains("start the crunch again"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let _ = std::fs::remove_file(&path);
        let mut lock = path.into_os_string();
        lock.push(".lock");
        let _ = std::fs::remove_file(lock);
    }

    #[test]
    fn regression_block_records_keep_every_bit_of_their_errors() {
        // serde_json's default float parser read this error back one ulp low, so a resumed
        // run could report another maximum than an uninterrupted one.
        let err = 2.8437081946646025e-114;
        let record = BlockRecord {
            index: 0,
            first: 0,
            end: 1,
            seconds: 0.1,
            summary: Summary {
                max_ulp: err,
                near_max: vec![NearMax {
                    ordinal: 0,
                    err,
                    exact: false,
                }],
                ..Summary::default()
            },
        };
        let text = serde_json::to_string(&record).unwrap();
        let back: BlockRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back.summary.max_ulp.to_bits(), err.to_bits());
        assert_eq!(back.summary.near_max[0].err.to_bits(), err.to_bits());
    }

    #[test]
    fn a_run_goes_on_across_a_change_of_reference_only() {
        let first = Header {
            tmd_crunch_checkpoint: CHECKPOINT_VERSION,
            target: "glibc:sinf".into(),
            format: "binary32".into(),
            from: "-0x1.fffffep+127".into(),
            to: "inf".into(),
            block_bits: 20,
            sample_windows: None,
            reference: "binary64 libm sin (relative bound 2^-50) + MPFR".into(),
            rounding: Rounding::Down,
        };
        let faster = Header {
            reference: "another reference".into(),
            ..first.clone()
        };
        assert!(first.same_run(&faster));
        let other_range = Header {
            to: "0x1p+0".into(),
            ..faster.clone()
        };
        assert!(!first.same_run(&other_range));
        let other_mode = Header {
            rounding: Rounding::Up,
            ..faster
        };
        assert!(!first.same_run(&other_mode));
    }
}
