//! `mpirun -np P tmd search ...` (cargo feature `mpi`): the MPI side of a search split in
//! segments ([`tmd_search::cluster`]). The segments are dealt out cyclically over the ranks
//! (`tmd_crunch::cluster::deal_out`), each rank searches its segments with its own threads and
//! sends the root each segment's record; the root appends each record to
//! `DIR/mpi-segments.jsonl` (`--resume DIR`) as it arrives, and at the end decides the cases
//! again with MPFR and writes them in x order: the output of a single-process run.

use super::search::{attach_device, journal_error, plan, report, Output};
use crate::cli::SearchArgs;
use crate::cluster::MpiCluster;
use anyhow::Context;
use std::collections::BTreeSet;
use std::time::Instant;
use tmd_core::InputError;
use tmd_crunch::cluster::{deal_out, share_from_root, Cluster};
use tmd_search::cluster::{
    decide_items, merge_counts, search_segment, Item, JournalPrefix, SegmentRecord, Segments,
    SegmentsError, SegmentsJournal,
};
use tmd_search::journal::{Journal, FILE_NAME as JOURNAL_FILE};
use tmd_search::{SearchPlan, Summary};

/// A segments-journal error for `main`: another search's journal is bad input (exit 2).
fn segments_error(e: SegmentsError) -> anyhow::Error {
    if e.is_bad_input() {
        InputError::Usage(e.to_string()).into()
    } else {
        e.into()
    }
}

pub fn run(args: &SearchArgs, cluster: &MpiCluster) -> anyhow::Result<()> {
    let root = cluster.rank() == 0;
    let started = Instant::now();
    // Every rank validates the same arguments; only the root reports a problem.
    let planned = plan(args)
        .map_err(anyhow::Error::from)
        .and_then(|(mut p, notes)| {
            if root {
                notes.print();
            }
            attach_device(&mut p, args.device, cluster.local_rank())?;
            if args.stats.is_some() {
                return Err(
                    InputError::Usage("--stats is not available under mpirun yet".into()).into(),
                );
            }
            Ok(p)
        });
    let threads = args.threads.unwrap_or_else(|| cluster.threads_per_rank());
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .context("starting worker threads")?;
    let mut journal = SegmentsJournal::in_memory();
    // The root holds a continued single-process journal (and its lock) to the end.
    let mut prefix: Option<(Journal, JournalPrefix)> = None;
    let mut root_error = None;
    let root_says = match (&planned, root) {
        (Ok(p), true) => match open_journals(args, p) {
            Ok((j, continued)) => {
                journal = j;
                let start = continued.as_ref().map_or(p.range.start, |(_, x)| x.end);
                prefix = continued;
                Some(serde_json::to_vec(&(
                    start.to_string(),
                    journal.finished(),
                ))?)
            }
            Err(e) => {
                root_error = Some(e);
                None
            }
        },
        _ => None,
    };
    let Some(payload) = share_from_root(cluster, root_says) else {
        let reason = root.then(|| root_error.unwrap_or_else(|| planned.expect_err("a reason")));
        cluster.fail_together(reason);
    };
    // The root accepted the arguments; another rank may still lack its device.
    let plan =
        planned.unwrap_or_else(|e| cluster.abort(e.context(format!("rank {}", cluster.rank()))));
    let (start, finished): (String, BTreeSet<u64>) = serde_json::from_slice(&payload)?;
    let segments = Segments::new(
        start.parse().context("the segments' start")?,
        plan.range.end,
    );
    let remaining: Vec<u64> = (0..segments.count())
        .filter(|i| !finished.contains(i))
        .collect();
    let work = |&i: &u64| {
        let (lo, hi) = segments.bounds(i);
        match search_segment(&plan, i, lo, hi) {
            Ok(rec) => rec.to_bytes(),
            Err(e) => {
                eprintln!("tmd: rank search failed: {e}");
                std::process::exit(1);
            }
        }
    };
    let dealt = deal_out(cluster, &remaining, work, |bytes| -> anyhow::Result<()> {
        let rec = SegmentRecord::from_bytes(&bytes).context("a rank's segment")?;
        journal.append(rec)?;
        Ok(())
    });
    if let Err(e) = dealt {
        cluster.abort(e); // the other ranks may be busy: no collective call
    }
    if !root {
        return Ok(());
    }
    // The rate is of what this run searched, not of segments an earlier run finished.
    let searched = remaining
        .iter()
        .map(|&i| {
            let (lo, hi) = segments.bounds(i);
            (hi - lo) as u64
        })
        .sum();
    let prefix = prefix.as_ref().map(|(_, p)| &p.record);
    write_output(args, &plan, &journal, prefix, threads, started, searched)
}

/// The root's journals under `--resume DIR`: the segments journal, and the finished prefix
/// of a single-process journal (`journal.tmd`) that the directory holds, which this run
/// continues: its segments start where the prefix ends, and its output lists the prefix's
/// cases and counts with theirs.
fn open_journals(
    args: &SearchArgs,
    plan: &SearchPlan,
) -> anyhow::Result<(SegmentsJournal, Option<(Journal, JournalPrefix)>)> {
    let Some(dir) = args.resume.as_deref() else {
        return Ok((SegmentsJournal::in_memory(), None));
    };
    let (start, end) = (plan.range.start, plan.range.end);
    let mut continued = None;
    if dir.join(JOURNAL_FILE).exists() {
        let (j, recovered) = Journal::open(dir, &plan.fingerprint()).map_err(journal_error)?;
        let prefix = JournalPrefix::from_recovered(&recovered, start, end);
        eprintln!(
            "tmd: resuming a single-process journal under mpirun: {} inputs and {} cases already done",
            recovered.counts.inputs,
            recovered.cases.len()
        );
        continued = Some((j, prefix));
    }
    let from = continued.as_ref().map(|(_, p)| p.end);
    let segments = Segments::new(from.unwrap_or(start), end);
    let journal =
        SegmentsJournal::open(dir, &plan.fingerprint(), &segments, from).map_err(segments_error)?;
    Ok((journal, continued))
}

/// The root's output: every case again through MPFR, written in x order, and the counts.
fn write_output(
    args: &SearchArgs,
    plan: &SearchPlan,
    journal: &SegmentsJournal,
    prefix: Option<&SegmentRecord>,
    threads: usize,
    started: Instant,
    searched: u64,
) -> anyhow::Result<()> {
    let format = &plan.range.format;
    let out_file = super::search::open_output("--out", args.out.as_deref())?;
    let mut out = Output::start(args, plan, out_file)?;
    let records: Vec<&SegmentRecord> = prefix.into_iter().chain(journal.records()).collect();
    for item in decide_items(plan, &records) {
        match item {
            Item::Case(case) => out.write(&plan.target.name, format, &case)?,
            Item::Range(r) => out.write_range(&plan.target.name, format, &r)?,
        }
    }
    out.finish()?;
    let total = Summary {
        counts: merge_counts(records.iter().copied()),
        elapsed: started.elapsed(),
    };
    report(plan, &total, searched, None, threads, None)
}
