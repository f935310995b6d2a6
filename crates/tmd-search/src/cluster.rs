//! A search split across processes (`mpirun -np P tmd search ...`): the segments of a range,
//! the record each rank sends the root for a finished segment, the root's segments journal
//! (`DIR/mpi-segments.jsonl`, for `--resume DIR`), and the merge of the records into the
//! output of a single-process run. The messages themselves go through the caller's message
//! layer (the CLI's MPI; this crate links none), and are dealt out as `tmd crunch` deals its
//! blocks (`tmd_crunch::cluster::deal_out`).
//!
//! The segment length depends only on the range, so a resumed run may use any number of
//! ranks. A rank sends the ordinals of a segment's cases, not the cases: the root decides
//! them again with MPFR at the end (they are few), as a single-process run replays its
//! journal, and lists them in x order.

use crate::counts::Counts;
use crate::journal::Recovered;
use crate::plan::SearchPlan;
use crate::reference::decide_input;
use crate::reference::Listing;
use crate::regime::{binade_piece, decided_pieces, RangeRecord};
use crate::{filtered_search, reference_search_to, Case, FilterError, Summary};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use thiserror::Error;
use tmd_core::line_check;

/// The segments journal's name inside the `--resume` directory.
pub const SEGMENTS_FILE: &str = "mpi-segments.jsonl";

/// The segments of a range: consecutive pieces of [`Segments::len`] inputs (the last may be
/// shorter), numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segments {
    start: i128,
    end: i128,
    len: u64,
}

impl Segments {
    /// The segments of the ordinals `start..end`: about 1024 of them, each a power of two
    /// between 2^16 and 2^36 inputs long.
    pub fn new(start: i128, end: i128) -> Segments {
        let inputs = (end - start).max(0) as u128;
        let target = (inputs / 1024).max(1);
        let bits = (128 - target.leading_zeros()).clamp(16, 36);
        Segments {
            start,
            end,
            len: 1u64 << bits,
        }
    }

    /// Inputs per segment.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The number of segments.
    pub fn count(&self) -> u64 {
        ((self.end - self.start + self.len as i128 - 1) / self.len as i128) as u64
    }

    /// The ordinals `lo..hi` of segment `index`.
    pub fn bounds(&self, index: u64) -> (i128, i128) {
        let lo = self.start + index as i128 * self.len as i128;
        (lo, (lo + self.len as i128).min(self.end))
    }
}

/// One finished segment: its index, the ordinals of its cases (decimal text: they are i128)
/// and its counts (a JSON array in [`Counts::to_array`] order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentRecord {
    pub index: u64,
    pub cases: Vec<String>,
    /// The range records of the segment, as ordinals `[start, end)` (decimal text): the root
    /// rebuilds them from the rule, joined across segment ends ([`decide_items`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<[String; 2]>,
    pub counts: Counts,
}

impl SegmentRecord {
    /// The record as a message (and as a line of the segments journal).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a segment record serialises")
    }

    /// A record from a message.
    pub fn from_bytes(bytes: &[u8]) -> Result<SegmentRecord, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The ordinals of the cases.
    pub fn ordinals(&self) -> impl Iterator<Item = i128> + '_ {
        self.cases
            .iter()
            .map(|c| c.parse::<i128>().expect("an ordinal"))
    }
}

/// The first line of the segments journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SegmentsHeader {
    tmd_search_segments: u32,
    fingerprint: String,
    segment_len: u64,
    /// Where the segments start when the run continues a single-process journal's finished
    /// prefix (an ordinal, decimal text): a later run must find the same prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    continues_from: Option<String>,
}

/// The finished prefix of a single-process journal (`journal.tmd`) in the `--resume`
/// directory, which a run under mpirun continues: its cases, range records and counts as one
/// record, and the first ordinal it leaves to the segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalPrefix {
    pub record: SegmentRecord,
    pub end: i128,
}

impl JournalPrefix {
    /// The prefix of what a single-process run recovered from its journal, for a range that
    /// starts at `start` and ends at `end`.
    pub fn from_recovered(recovered: &Recovered, start: i128, end: i128) -> JournalPrefix {
        let through = if recovered.complete {
            end
        } else {
            recovered.resume_from.unwrap_or(start).clamp(start, end)
        };
        JournalPrefix {
            record: SegmentRecord {
                index: u64::MAX,
                cases: recovered.cases.iter().map(i128::to_string).collect(),
                ranges: recovered
                    .ranges
                    .iter()
                    .map(|(a, b)| [a.to_string(), b.to_string()])
                    .collect(),
                counts: recovered.counts,
            },
            end: through,
        }
    }
}

/// Why the segments journal cannot be used.
#[derive(Debug, Error)]
pub enum SegmentsError {
    #[error("{action} {}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Write(#[from] io::Error),
    /// Bad input: `--resume` names a file that is no segments journal.
    #[error("{} is not a segments journal", path.display())]
    NotSegments { path: PathBuf },
    /// Bad input: the journal of another search, or of another range.
    #[error(
        "{} belongs to another search (or another range); use another --resume directory",
        path.display()
    )]
    OtherSearch { path: PathBuf },
    /// Bad input: a journal of a tmd that wrote no line checks.
    #[error(
        "{} has no line checks (written by an older tmd): start the search again in another \
         --resume directory, or delete this one",
        path.display()
    )]
    Unchecked { path: PathBuf },
    /// Bad input: a line other than the last fails its check or does not parse.
    #[error("{}:{line}: damaged ({why}); delete the directory to start over", path.display())]
    Damaged {
        path: PathBuf,
        line: usize,
        why: &'static str,
    },
}

impl SegmentsError {
    /// Whether the user is at fault (exit status 2).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SegmentsError::NotSegments { .. }
                | SegmentsError::OtherSearch { .. }
                | SegmentsError::Unchecked { .. }
                | SegmentsError::Damaged { .. }
        )
    }
}

/// The root's record of finished segments: in memory, and appended to
/// `DIR/mpi-segments.jsonl` with `--resume DIR` (one JSON header line, then one line per
/// finished segment: the layout of `tmd crunch`'s checkpoints, `tmd_crunch::checkpoint`,
/// each line with its check, [`tmd_core::line_check::seal_json`]). A torn or damaged last line
/// is a kill during a write: its segment is searched again. A damaged line before it is
/// refused: a line with one digit of a case changed would otherwise list another input.
pub struct SegmentsJournal {
    file: Option<File>,
    done: BTreeMap<u64, SegmentRecord>,
}

impl SegmentsJournal {
    /// A record kept in memory only (no `--resume`).
    pub fn in_memory() -> SegmentsJournal {
        SegmentsJournal {
            file: None,
            done: BTreeMap::new(),
        }
    }

    /// Opens (or creates) the segments journal in `dir` for the search `fingerprint` cut into
    /// `segments` (which start at `continues_from` where the run continues a single-process
    /// journal's prefix); an existing one must be of the same search, the same segment length
    /// and the same prefix. A partial last line (a kill during a write) is cut off before
    /// appending.
    pub fn open(
        dir: &Path,
        fingerprint: &str,
        segments: &Segments,
        continues_from: Option<i128>,
    ) -> Result<SegmentsJournal, SegmentsError> {
        let header = SegmentsHeader {
            tmd_search_segments: SEGMENTS_VERSION,
            fingerprint: fingerprint.to_string(),
            segment_len: segments.len(),
            continues_from: continues_from.map(|o| o.to_string()),
        };
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |source| SegmentsError::Io {
                action,
                path,
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io("creating", dir))?;
        let path = dir.join(SEGMENTS_FILE);
        let mut done = BTreeMap::new();
        if path.exists() {
            let reader = BufReader::new(File::open(&path).map_err(io("reading", &path))?);
            let complete_len = read_segments(&path, reader, &header, &mut done)?;
            let file = OpenOptions::new().append(true).open(&path)?;
            file.set_len(complete_len.min(file.metadata()?.len()))?;
            return Ok(SegmentsJournal {
                file: Some(file),
                done,
            });
        }
        let mut file = File::create(&path).map_err(io("creating", &path))?;
        let line = serde_json::to_string(&header).expect("a header serialises");
        writeln!(file, "{}", line_check::seal_json(&line))?;
        file.sync_data()?;
        Ok(SegmentsJournal {
            file: Some(file),
            done,
        })
    }

    /// The indices of the finished segments, in increasing order.
    pub fn finished(&self) -> Vec<u64> {
        self.done.keys().copied().collect()
    }

    /// Records a finished segment, appended to the file (if any) and flushed at once, as
    /// `tmd_crunch::checkpoint::CheckpointWriter::append` records a finished block.
    pub fn append(&mut self, rec: SegmentRecord) -> io::Result<()> {
        if let Some(f) = self.file.as_mut() {
            let line = serde_json::to_string(&rec).expect("a segment record serialises");
            let mut line = line_check::seal_json(&line);
            line.push('\n');
            f.write_all(line.as_bytes())?;
            f.flush()?;
        }
        self.done.insert(rec.index, rec);
        Ok(())
    }

    /// The finished segments, in index order.
    pub fn records(&self) -> impl Iterator<Item = &SegmentRecord> {
        self.done.values()
    }

    /// The counts of every finished segment, added up.
    pub fn total(&self) -> Counts {
        merge_counts(self.done.values())
    }
}

/// The layout version of the segments journal: 2, each line checked.
const SEGMENTS_VERSION: u32 = 2;

/// Reads a segments journal into `done`, checking it belongs to `header`; returns the length of
/// what is kept (through the last good line: a bad last line is a torn write, cut off).
fn read_segments(
    path: &Path,
    mut reader: impl BufRead,
    header: &SegmentsHeader,
    done: &mut BTreeMap<u64, SegmentRecord>,
) -> Result<u64, SegmentsError> {
    let mut line = Vec::new();
    let (mut complete_len, mut line_no) = (0u64, 0usize);
    // A bad line is forgiven only if no line follows it.
    let mut bad: Option<(usize, &'static str)> = None;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if let Some((line, why)) = bad {
            return Err(SegmentsError::Damaged {
                path: path.to_path_buf(),
                line,
                why,
            });
        }
        let Some(text) = line.strip_suffix(b"\n") else {
            break; // torn: necessarily the last line
        };
        let text = std::str::from_utf8(text).unwrap_or("");
        if line_no == 1 {
            // As it stands first (the check is one more member), for the version.
            let h: SegmentsHeader =
                serde_json::from_str(text).map_err(|_| SegmentsError::NotSegments {
                    path: path.to_path_buf(),
                })?;
            if h.tmd_search_segments != SEGMENTS_VERSION {
                return Err(SegmentsError::Unchecked {
                    path: path.to_path_buf(),
                });
            }
            let object = line_check::unseal_json(text).map_err(|why| SegmentsError::Damaged {
                path: path.to_path_buf(),
                line: 1,
                why,
            })?;
            if serde_json::from_str::<SegmentsHeader>(&object)
                .ok()
                .as_ref()
                != Some(header)
            {
                return Err(SegmentsError::OtherSearch {
                    path: path.to_path_buf(),
                });
            }
        } else {
            let record = line_check::unseal_json(text).and_then(|object| {
                serde_json::from_str::<SegmentRecord>(&object)
                    .ok()
                    .filter(|r| {
                        let mut ordinals = r.cases.iter().chain(r.ranges.iter().flatten());
                        ordinals.all(|c| c.parse::<i128>().is_ok())
                    })
                    .ok_or("not a segment record")
            });
            match record {
                Ok(rec) => {
                    done.insert(rec.index, rec);
                }
                Err(why) => {
                    bad = Some((line_no, why));
                    continue;
                }
            }
        }
        complete_len += n as u64;
    }
    Ok(complete_len)
}

/// Searches segment `index` of `plan`'s range (ordinals `lo..hi`) on this process's threads.
pub fn search_segment(
    plan: &SearchPlan,
    index: u64,
    lo: i128,
    hi: i128,
) -> Result<SegmentRecord, FilterError> {
    let mut range = plan.range.clone();
    range.start = lo;
    range.end = hi;
    let progress = AtomicU64::new(0);
    let mut collect = SegmentListing {
        format: &plan.range.format,
        records: plan.range_records,
        cases: Vec::new(),
        ranges: Vec::new(),
    };
    let s: Summary = match &plan.filter {
        None => reference_search_to(&plan.target, &range, &plan.params, &progress, &mut collect),
        Some(f) => {
            filtered_search(
                &plan.target,
                &range,
                &plan.params,
                f,
                &progress,
                &mut collect,
            )?
            .0
        }
    };
    Ok(SegmentRecord {
        index,
        cases: collect.cases,
        ranges: collect.ranges,
        counts: s.counts,
    })
}

/// A segment's listing: ordinals of its cases and ranges, as decimal text.
struct SegmentListing<'a> {
    format: &'a tmd_core::Format,
    records: bool,
    cases: Vec<String>,
    ranges: Vec<[String; 2]>,
}

impl Listing for SegmentListing<'_> {
    fn case(&mut self, case: &Case) {
        self.cases.push(self.format.ordinal(&case.x).to_string());
    }

    fn accepts_ranges(&self) -> bool {
        self.records
    }

    fn range(&mut self, record: &RangeRecord) {
        self.ranges
            .push([record.start.to_string(), record.end.to_string()]);
    }
}

/// What the root lists, in x order.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Case(Case),
    Range(RangeRecord),
}

/// The cases and range records of the finished segments, in x order: what a single-process
/// run lists. A rule piece that spans segment ends arrives in parts; the parts are joined and
/// the records rebuilt from the rule over each joined run of inputs, which gives the pieces of
/// a single-process run (the rule's pieces depend on the binade only, clipped to the range,
/// and every input of such a piece inside the range lies in one joined run).
pub fn decide_items(plan: &SearchPlan, records: &[&SegmentRecord]) -> Vec<Item> {
    let cases = decide_cases(plan, records.iter().copied());
    let mut parts: Vec<(i128, i128)> = records
        .iter()
        .flat_map(|r| r.ranges.iter())
        .map(|[a, b]| {
            let ordinal = |t: &String| t.parse::<i128>().expect("an ordinal");
            (ordinal(a), ordinal(b))
        })
        .collect();
    parts.sort_unstable();
    let mut joined: Vec<(i128, i128)> = Vec::new();
    for (a, b) in parts {
        match joined.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => joined.push((a, b)),
        }
    }
    let ranges = joined
        .into_iter()
        .flat_map(|(a, b)| rebuilt_records(plan, a, b));
    let format = &plan.range.format;
    let mut items: Vec<(i128, Item)> = cases
        .into_iter()
        .map(|c| (format.ordinal(&c.x), Item::Case(c)))
        .chain(ranges.map(|r| (r.start, Item::Range(r))))
        .collect();
    items.sort_by_key(|(o, _)| *o);
    items.into_iter().map(|(_, item)| item).collect()
}

/// The range records of the rule over the inputs `[a, b)`, binade by binade.
fn rebuilt_records(plan: &SearchPlan, a: i128, b: i128) -> Vec<RangeRecord> {
    let format = &plan.range.format;
    let mut out = Vec::new();
    let mut o = a;
    while o < b {
        let end = binade_piece(format, o).1.min(b);
        let pieces = decided_pieces(
            &plan.target.expr,
            format,
            o,
            end,
            plan.params.bits,
            plan.params.breakpoints,
        );
        out.extend(pieces.iter().filter_map(|p| p.record()));
        o = end;
    }
    out
}

/// The counts of several segments, added up.
pub fn merge_counts<'a>(records: impl IntoIterator<Item = &'a SegmentRecord>) -> Counts {
    records
        .into_iter()
        .fold(Counts::default(), |total, r| total + r.counts)
}

/// The cases of the finished segments, decided again with MPFR (in parallel) and in x order:
/// what a single-process run lists.
pub fn decide_cases<'a>(
    plan: &SearchPlan,
    records: impl IntoIterator<Item = &'a SegmentRecord>,
) -> Vec<Case> {
    let format = &plan.range.format;
    let ordinals: Vec<i128> = records.into_iter().flat_map(|r| r.ordinals()).collect();
    let cases: Vec<Option<Case>> = ordinals
        .par_iter()
        .map(|&o| {
            let mut ignored = Summary::default();
            decide_input(
                &plan.target,
                format,
                &plan.params,
                format.from_ordinal(o),
                &mut ignored,
            )
        })
        .collect();
    cases.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cover_the_range_once() {
        let s = Segments::new(-5, 200_000);
        assert_eq!(s.len(), 1 << 16);
        assert_eq!(s.count(), 4);
        assert_eq!(s.bounds(0), (-5, -5 + (1 << 16)));
        assert_eq!(s.bounds(3).1, 200_000);
        // About 1024 segments for large ranges, at most 2^36 inputs each.
        assert_eq!(Segments::new(0, 1 << 40).len(), 1 << 31);
        assert_eq!(Segments::new(0, 1 << 60).len(), 1 << 36);
    }

    #[test]
    fn records_round_trip_and_merge() {
        let rec = SegmentRecord {
            index: 3,
            cases: vec!["-7".into(), "12".into()],
            ranges: vec![],
            counts: Counts::from_array([10, 2, 0, 0, 0, 0, 1]),
        };
        let bytes = rec.to_bytes();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"index":3,"cases":["-7","12"],"counts":[10,2,0,0,0,0,1]}"#
        );
        assert_eq!(SegmentRecord::from_bytes(&bytes).unwrap(), rec);
        assert_eq!(rec.ordinals().collect::<Vec<_>>(), vec![-7, 12]);
        assert_eq!(
            merge_counts([&rec, &rec]).to_array(),
            [20, 4, 0, 0, 0, 0, 2]
        );
    }

    fn segment(index: u64, case: &str) -> SegmentRecord {
        SegmentRecord {
            index,
            cases: vec![case.into()],
            ranges: vec![],
            counts: Counts::from_array([8, 1, 0, 0, 0, 0, 0]),
        }
    }

    #[test]
    fn segments_journal_refuses_a_changed_digit_and_redoes_a_damaged_last_line() {
        let dir = std::env::temp_dir().join(format!("tmd-segments-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let segments = Segments::new(0, 64);
        let open = || SegmentsJournal::open(&dir, "exp binary32", &segments, None);
        let mut journal = open().unwrap();
        journal.append(segment(0, "3")).unwrap();
        journal.append(segment(1, "12")).unwrap();
        drop(journal);
        let path = dir.join(SEGMENTS_FILE);
        let good = std::fs::read_to_string(&path).unwrap();
        assert_eq!(open().unwrap().finished(), vec![0, 1]);

        // A case of the first segment changed: still JSON, still an ordinal; only the check
        // tells.
        std::fs::write(&path, good.replacen(r#"["3"]"#, r#"["4"]"#, 1)).unwrap();
        let err = open().err().expect("refused");
        assert!(err.is_bad_input(), "{err}");
        assert!(err.to_string().contains(":2: damaged"), "{err}");

        // The same damage on the last line is what a torn write can leave: that segment is
        // searched again.
        std::fs::write(&path, good.replacen(r#"["12"]"#, r#"["13"]"#, 1)).unwrap();
        assert_eq!(open().unwrap().finished(), vec![0]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
