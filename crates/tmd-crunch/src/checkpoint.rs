//! Checkpoint files: one JSON header line, then one line per finished block, appended and
//! flushed as each block finishes (the block is the unit of checkpointing). A kill at any
//! moment leaves at most a partial last line, which the reader ignores and the next run cuts
//! off before appending. `tmd search` under mpirun keeps its segments the same way
//! (`tmd_search::cluster::SegmentsJournal`). `tmd crunch-status` reads the file while the run
//! goes on; `tmd crunch-format` prints the per-block maxima as tab-separated text.

use crate::rounding::Rounding;
use crate::summary::Summary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tmd_core::run_lock::RunLock;

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

/// The current checkpoint layout version.
pub const CHECKPOINT_VERSION: u32 = 1;

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
        matches!(
            self,
            CheckpointError::Bad { .. }
                | CheckpointError::Locked(tmd_core::run_lock::LockError::Held { .. })
        )
    }
}

fn bad(path: &Path, why: impl Into<String>) -> CheckpointError {
    CheckpointError::Bad {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

impl Checkpoint {
    /// Reads a checkpoint; a partial last line (a kill during a write) is ignored.
    pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut reader = BufReader::new(File::open(path).map_err(io)?);
        let mut line = String::new();
        let mut offset = 0u64;
        let n = reader.read_line(&mut line).map_err(io)?;
        if n == 0 || !line.ends_with('\n') {
            return Err(bad(
                path,
                "empty or truncated header: not a crunch checkpoint",
            ));
        }
        let header: Header = serde_json::from_str(&line)
            .map_err(|_| bad(path, "the first line is not a crunch checkpoint header"))?;
        if header.tmd_crunch_checkpoint != CHECKPOINT_VERSION {
            return Err(bad(
                path,
                format!(
                    "layout version {} (this tmd reads {CHECKPOINT_VERSION})",
                    header.tmd_crunch_checkpoint
                ),
            ));
        }
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
            let record: BlockRecord = serde_json::from_str(&line)
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
        // One run per checkpoint, before it is read or cut: a lock on `PATH.lock`.
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let lock = RunLock::acquire(Path::new(&lock_path), path)?;
        if path.exists() {
            let existing = Checkpoint::read(path)?;
            if existing.header.rounding != header.rounding {
                return Err(bad(
                    path,
                    format!(
                        "written under --rounding {}, not {}; use another file",
                        existing.header.rounding, header.rounding
                    ),
                ));
            }
            if existing.header != *header {
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
            let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
            file.set_len(existing.complete_len).map_err(io)?;
            file.seek(SeekFrom::End(0)).map_err(io)?;
            Ok((CheckpointWriter { file, _lock: lock }, existing.blocks))
        } else {
            let mut file = File::create(path).map_err(io)?;
            let mut text = serde_json::to_string(header).expect("header serialises");
            text.push('\n');
            file.write_all(text.as_bytes()).map_err(io)?;
            file.sync_data().map_err(io)?;
            Ok((CheckpointWriter { file, _lock: lock }, BTreeMap::new()))
        }
    }

    /// Appends one finished block (one write of one line, then a flush to the OS).
    pub fn append(&mut self, record: &BlockRecord) -> std::io::Result<()> {
        let mut text = serde_json::to_string(record).expect("record serialises");
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}
