//! Where a job's cases and range records go, in x order: the output stream or `--out` file in
//! its format (table, JSON lines or `.wc`), with the journal checkpointed behind it, and the
//! replay of a resumed run's finished prefix.

use super::{JobError, Outputs};
use crate::journal::{Journal, Recovered};
use crate::output::{
    case_header, case_json, case_row, range_json, range_row, wc_header, wc_line, wc_range_line,
};
use crate::reference::decide_input;
use crate::regime::{range_record, RangeRecord};
use crate::{Case, Counts, Listing, SearchPlan, Summary};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};
use tmd_core::out_file::OutFile;

/// The lines of a search's results: stdout or an output file made final when done.
pub struct CaseSink {
    writer: Box<dyn Write + Send>,
    file: Option<OutFile>,
    wc: bool,
    json: bool,
    name: String,
    format: tmd_core::Format,
}

impl CaseSink {
    /// The sink of `plan`'s results to `file` (opened from `--out`) or else to `stream`, its
    /// header written.
    pub fn start(
        plan: &SearchPlan,
        outputs: &Outputs,
        file: Option<OutFile>,
        stream: Box<dyn Write + Send>,
    ) -> io::Result<CaseSink> {
        let writer: Box<dyn Write + Send> = match &file {
            Some(file) => Box::new(BufWriter::new(file.handle()?)),
            None => Box::new(BufWriter::new(stream)),
        };
        let mut sink = CaseSink {
            writer,
            file,
            wc: outputs.is_wc(),
            json: outputs.json,
            name: plan.target.name.clone(),
            format: plan.range.format.clone(),
        };
        if sink.wc {
            let header = wc_header(&wc_header_lines(plan, outputs));
            sink.writer.write_all(header.as_bytes())?;
        } else if !sink.json {
            writeln!(sink.writer, "{}", case_header())?;
        }
        Ok(sink)
    }

    pub fn write(&mut self, case: &Case) -> io::Result<()> {
        let line = if self.wc {
            wc_line(&case.x, &case.outcome)
        } else if self.json {
            case_json(&self.name, &self.format, &case.x, &case.outcome)
        } else {
            case_row(&case.x, &case.outcome)
        };
        // Flushed when a piece of the range is finished (`finished_through`), not per case: a
        // region where every input is hard lists millions of cases.
        writeln!(self.writer, "{line}")
    }

    /// Writes a range record (a comment line in a `.wc` file).
    pub fn write_range(&mut self, record: &RangeRecord) -> io::Result<()> {
        let line = if self.wc {
            wc_range_line(&self.format, record)
        } else if self.json {
            range_json(&self.name, &self.format, record)
        } else {
            range_row(&self.format, record)
        };
        writeln!(self.writer, "{line}")
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }

    /// Flushes the lines and makes the output file final.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush()?;
        drop(self.writer);
        if let Some(file) = self.file {
            file.finish()?;
        }
        Ok(())
    }
}

/// The `#` lines that open a `.wc` file: what was searched, by what, and how to read it.
fn wc_header_lines(plan: &SearchPlan, outputs: &Outputs) -> Vec<String> {
    vec![
        format!(
            "hard-to-round cases of {} in {}",
            plan.target.name,
            plan.range.format.name()
        ),
        format!(
            "inputs searched: [{}, {}), K = {}, breakpoints {}",
            plan.from.to_hex(),
            plan.to.to_hex(),
            plan.params.bits,
            plan.params.breakpoints.name()
        ),
        format!(
            "found by tmd {}, --algorithm {}; every listed case verified with MPFR",
            outputs.version,
            plan.algorithm().name()
        ),
        format!("command: {}", outputs.command_line),
        format!("made {}", tmd_core::clock::utc_now()),
        if plan.range_records && plan.filter.is_some() {
            "pieces where a proven rule makes every input hard are '# range' lines \
             (first and last input, bits >= B, rule; --expand-ranges lists their inputs)"
                .to_string()
        } else {
            "every hard input is listed".to_string()
        },
    ]
}

/// What the listing holds once the search has ended: the cases and range records not yet
/// checkpointed, the counts of the whole range, and the range records written (this run's
/// and the replayed ones) with the inputs they cover.
pub struct Ended {
    pub cases: Vec<i128>,
    pub ranges: Vec<(i128, i128)>,
    pub counts: Counts,
    pub range_records: (u64, u64),
}

/// Receives the cases in x order: writes them and, with `--resume`, checkpoints the journal
/// (at most once a second: each checkpoint is a line in the journal file).
pub struct JournaledListing<'a> {
    out: &'a mut CaseSink,
    plan: &'a SearchPlan,
    journal: Option<&'a mut Journal>,
    recovered: &'a Recovered,
    pending: Vec<i128>,
    pending_ranges: Vec<(i128, i128)>,
    /// Range records written by this run, and the inputs they cover.
    ranges: (u64, u64),
    last_checkpoint: Instant,
    error: Option<JobError>,
}

impl<'a> JournaledListing<'a> {
    /// The listing after the prefix `recovered` from the journal.
    pub fn new(
        out: &'a mut CaseSink,
        plan: &'a SearchPlan,
        journal: Option<&'a mut Journal>,
        recovered: &'a Recovered,
    ) -> Self {
        JournaledListing {
            out,
            plan,
            journal,
            recovered,
            pending: Vec::new(),
            pending_ranges: Vec::new(),
            ranges: (0, 0),
            last_checkpoint: Instant::now(),
            error: None,
        }
    }

    /// What is left to record once the search that made `summary` has ended, or the first
    /// error the listing met.
    pub fn end(self, summary: &Summary) -> Result<Ended, JobError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let recovered = self.recovered;
        let replayed: u64 = recovered.ranges.iter().map(|(a, b)| (b - a) as u64).sum();
        Ok(Ended {
            cases: self.pending,
            ranges: self.pending_ranges,
            counts: if recovered.complete {
                recovered.counts
            } else {
                recovered.counts + summary.counts
            },
            range_records: (
                self.ranges.0 + recovered.ranges.len() as u64,
                self.ranges.1 + replayed,
            ),
        })
    }
}

impl Listing for JournaledListing<'_> {
    fn case(&mut self, case: &Case) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.out.write(case) {
            self.error = Some(e.into());
        }
        if self.journal.is_some() {
            self.pending.push(self.plan.range.format.ordinal(&case.x));
        }
    }

    fn accepts_ranges(&self) -> bool {
        self.plan.range_records
    }

    fn wants_more(&self) -> bool {
        self.error.is_none()
    }

    fn range(&mut self, record: &RangeRecord) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.out.write_range(record) {
            self.error = Some(e.into());
        }
        self.ranges.0 += 1;
        self.ranges.1 += record.inputs();
        if self.journal.is_some() {
            self.pending_ranges.push((record.start, record.end));
        }
    }

    fn finished_through(&mut self, next_ordinal: i128, total: &Summary) {
        if self.error.is_some() {
            return;
        }
        // Every case of the finished prefix reaches the output (an interrupted run keeps
        // them), and the output must hold everything the journal claims before it claims it.
        if let Err(e) = self.out.flush() {
            self.error = Some(e.into());
            return;
        }
        let Some(journal) = self.journal.as_deref_mut() else {
            return;
        };
        if self.last_checkpoint.elapsed() < Duration::from_secs(1) {
            return;
        }
        let counts = self.recovered.counts + total.counts;
        match journal.checkpoint_listed(&self.pending, &self.pending_ranges, next_ordinal, &counts)
        {
            Ok(()) => {
                self.pending.clear();
                self.pending_ranges.clear();
                self.last_checkpoint = Instant::now();
            }
            Err(e) => self.error = Some(JobError::JournalWrite(e)),
        }
    }
}

/// Lists the finished prefix of an earlier run again, in input order: its cases decided again
/// by MPFR (they are few) and its range records rebuilt from the rule.
pub fn replay(
    plan: &SearchPlan,
    recovered: &Recovered,
    out: &mut CaseSink,
    dir: Option<&Path>,
) -> Result<(), JobError> {
    let format = &plan.range.format;
    let mut ranges = recovered.ranges.iter().peekable();
    let mut write_ranges_below = |limit: i128, out: &mut CaseSink| -> Result<(), JobError> {
        while let Some(&&(a, b)) = ranges.peek().filter(|r| r.0 < limit) {
            ranges.next();
            let params = &plan.params;
            let record = range_record(
                &plan.target.expr,
                format,
                a,
                b,
                params.bits,
                params.breakpoints,
            )
            .ok_or_else(|| JobError::UnknownRangeRecord {
                dir: dir.map(|d| d.display().to_string()).unwrap_or_default(),
                first: format.from_ordinal(a).to_hex(),
                last: format.from_ordinal(b - 1).to_hex(),
            })?;
            out.write_range(&record)?;
        }
        Ok(())
    };
    for &ordinal in &recovered.cases {
        write_ranges_below(ordinal, out)?;
        let x = format.from_ordinal(ordinal);
        let mut ignored = Summary::default();
        if let Some(case) = decide_input(&plan.target, format, &plan.params, x, &mut ignored) {
            out.write(&case)?;
        }
    }
    write_ranges_below(i128::MAX, out)
}
