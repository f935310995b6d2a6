//! `mpirun -np P tmd search ...` (cargo feature `mpi`): the range is cut into segments whose
//! size depends only on the range (so a resumed run may use any number of ranks), the
//! segments are dealt out cyclically over the ranks (`tmd_crunch::cluster::deal_out`), each
//! rank searches its segments with its own threads and sends the root the ordinals of the
//! cases and the counts; the root appends each finished segment to
//! `DIR/mpi-segments.jsonl` (`--resume DIR`) as it arrives, and at the end decides the cases
//! again with MPFR (they are few; this is how the single-process journal replays too) and
//! writes them in x order: the output of a single-process run.

use super::search::{attach_device, fingerprint, plan, report, Output, Plan};
use crate::cli::SearchArgs;
use crate::cluster::MpiCluster;
use anyhow::Context;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use tmd_core::InputError;
use tmd_crunch::cluster::{deal_out, share_from_root, Cluster};
use tmd_search::reference::decide_input;
use tmd_search::{filtered_search, reference_search_to, Case, Summary};

/// One finished segment: its index, the ordinals of its cases (decimal text: they are i128)
/// and its counts `[inputs, hard, exact, unresolved, undefined, poles, overflow]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SegmentRecord {
    index: u64,
    cases: Vec<String>,
    counts: [u64; 7],
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SegmentsHeader {
    tmd_search_segments: u32,
    fingerprint: String,
    segment_len: u64,
}

/// Segment length: about 1024 segments per range, a power of two between 2^16 and 2^36.
fn segment_len(inputs: u128) -> u64 {
    let target = (inputs / 1024).max(1);
    let bits = (128 - target.leading_zeros()).clamp(16, 36);
    1u64 << bits
}

/// The segments journal: finished segments, and the file to append to.
fn open_segments(
    dir: &Path,
    header: &SegmentsHeader,
) -> anyhow::Result<(File, BTreeMap<u64, SegmentRecord>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("mpi-segments.jsonl");
    let mut done = BTreeMap::new();
    if path.exists() {
        let reader = BufReader::new(
            File::open(&path).with_context(|| format!("reading {}", path.display()))?,
        );
        let mut complete_len = 0u64;
        for (i, line) in reader.split(b'\n').enumerate() {
            let line = line?;
            let Ok(text) = std::str::from_utf8(&line) else {
                break;
            };
            if i == 0 {
                let h: SegmentsHeader = serde_json::from_str(text).map_err(|_| {
                    InputError::Usage(format!("{} is not a segments journal", path.display()))
                })?;
                if h != *header {
                    return Err(InputError::Usage(format!(
                        "{} belongs to another search (or another range); use another --resume directory",
                        path.display()
                    ))
                    .into());
                }
            } else {
                let Ok(rec) = serde_json::from_str::<SegmentRecord>(text) else {
                    break;
                };
                done.insert(rec.index, rec);
            }
            complete_len += line.len() as u64 + 1;
        }
        // A partial last line (a kill during a write) is cut off before appending.
        let file = OpenOptions::new().append(true).open(&path)?;
        file.set_len(complete_len.min(file.metadata()?.len()))?;
        return Ok((file, done));
    }
    let mut file = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    writeln!(file, "{}", serde_json::to_string(header)?)?;
    file.sync_data()?;
    Ok((file, done))
}

/// Searches one segment; returns its record.
fn search_segment(plan: &Plan, index: u64, start: i128, end: i128) -> SegmentRecord {
    let mut range = plan.range.clone();
    range.start = start;
    range.end = end;
    let progress = AtomicU64::new(0);
    let mut cases = Vec::new();
    let format = plan.range.format.clone();
    let mut collect = |c: &Case| cases.push(format.ordinal(&c.x).to_string());
    let s: Summary = match &plan.filter {
        None => reference_search_to(&plan.target, &range, &plan.params, &progress, &mut collect),
        Some(f) => match filtered_search(
            &plan.target,
            &range,
            &plan.params,
            f,
            &progress,
            &mut collect,
        ) {
            Ok((s, _)) => s,
            Err(e) => {
                eprintln!("tmd: rank search failed: {e}");
                std::process::exit(1);
            }
        },
    };
    SegmentRecord {
        index,
        cases,
        counts: [
            s.inputs,
            s.hard,
            s.exact,
            s.unresolved,
            s.undefined,
            s.poles,
            s.overflow,
        ],
    }
}

pub fn run(args: &SearchArgs, cluster: &MpiCluster) -> anyhow::Result<()> {
    let root = cluster.rank() == 0;
    let started = Instant::now();
    // Every rank validates the same arguments; only the root reports a problem.
    let planned = plan(args).map_err(anyhow::Error::from).and_then(|mut p| {
        attach_device(
            args,
            &mut p,
            args.device.unwrap_or_else(|| cluster.local_rank()),
        )?;
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
    let seg = planned
        .as_ref()
        .map(|p| segment_len(p.range.len()))
        .unwrap_or(1 << 16);
    let mut journal = None;
    let mut root_error = None;
    let root_says = match (&planned, root) {
        (Ok(p), true) => {
            let header = SegmentsHeader {
                tmd_search_segments: 1,
                fingerprint: fingerprint(p),
                segment_len: seg,
            };
            match args
                .resume
                .as_deref()
                .map(|dir| open_segments(dir, &header))
                .transpose()
            {
                Ok(j) => {
                    let done: Vec<u64> = j
                        .as_ref()
                        .map(|(_, d)| d.keys().copied().collect())
                        .unwrap_or_default();
                    journal = j;
                    Some(serde_json::to_vec(&done)?)
                }
                Err(e) => {
                    root_error = Some(e);
                    None
                }
            }
        }
        _ => None,
    };
    let Some(payload) = share_from_root(cluster, root_says) else {
        let reason = root.then(|| root_error.unwrap_or_else(|| planned.err().expect("a reason")));
        cluster.fail_together(reason);
    };
    // The root accepted the arguments; another rank may still lack its device.
    let plan =
        planned.unwrap_or_else(|e| cluster.abort(e.context(format!("rank {}", cluster.rank()))));
    let finished: BTreeSet<u64> = serde_json::from_slice(&payload)?;
    let (start, end) = (plan.range.start, plan.range.end);
    let count = ((end - start + seg as i128 - 1) / seg as i128) as u64;
    let remaining: Vec<u64> = (0..count).filter(|i| !finished.contains(i)).collect();
    let work = |&i: &u64| {
        let lo = start + i as i128 * seg as i128;
        let hi = (lo + seg as i128).min(end);
        serde_json::to_vec(&search_segment(&plan, i, lo, hi)).expect("record serialises")
    };
    let (mut file, mut done) = match journal {
        Some((f, d)) => (Some(f), d),
        None => (None, BTreeMap::new()),
    };
    let dealt = deal_out(cluster, &remaining, work, |bytes| -> anyhow::Result<()> {
        let rec: SegmentRecord = serde_json::from_slice(&bytes).context("a rank's segment")?;
        if let Some(f) = file.as_mut() {
            f.write_all(&bytes)?;
            f.write_all(b"\n")?;
            f.flush()?;
        }
        done.insert(rec.index, rec);
        Ok(())
    });
    if let Err(e) = dealt {
        cluster.abort(e); // the other ranks may be busy: no collective call
    }
    if !root {
        return Ok(());
    }
    write_output(args, &plan, &done, threads, started)
}

/// The root's output: every case again through MPFR (in parallel), written in x order, and
/// the counts.
fn write_output(
    args: &SearchArgs,
    plan: &Plan,
    done: &BTreeMap<u64, SegmentRecord>,
    threads: usize,
    started: Instant,
) -> anyhow::Result<()> {
    let format = &plan.range.format;
    let ordinals: Vec<i128> = done
        .values()
        .flat_map(|r| {
            r.cases
                .iter()
                .map(|c| c.parse::<i128>().expect("an ordinal"))
        })
        .collect();
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
    let mut out = Output::open(args, plan)?;
    for case in cases.iter().flatten() {
        out.write(&plan.target.name, format, case)?;
    }
    out.finish()?;
    let mut total = Summary::default();
    for r in done.values() {
        let c = r.counts;
        total.inputs += c[0];
        total.hard += c[1];
        total.exact += c[2];
        total.unresolved += c[3];
        total.undefined += c[4];
        total.poles += c[5];
        total.overflow += c[6];
    }
    total.elapsed = started.elapsed();
    report(args, plan, &total, None, threads)
}
