//! `mpirun -np P tmd search ...` (cargo feature `mpi`): the message layer of a search split in
//! segments ([`tmd_search::job::segments`]). The segments are dealt out cyclically over the
//! ranks (`tmd_crunch::cluster::deal_out`), each rank searches its segments with its own
//! threads and sends the root each segment's record; the root appends each record to
//! `DIR/mpi-segments.jsonl` (`--resume DIR`) as it arrives, and at the end writes the cases in
//! x order: the output of a single-process run.

use super::SearchArgs;
use crate::cluster::MpiCluster;
use crate::commands::job_host::{search_error as job_error, Terminal};
use anyhow::Context;
use std::time::Instant;
use tmd_crunch::cluster::{deal_out, share_from_root, Cluster};
use tmd_search::cluster::{search_segment, SegmentRecord};
use tmd_search::job::segments::{plan_rank, RootJournals, SegmentsLeft};
use tmd_search::job::Outputs;
use tmd_search::SearchRequest;

pub fn run(
    args: &SearchArgs,
    request: &SearchRequest,
    outputs: &Outputs,
    cluster: &MpiCluster,
) -> anyhow::Result<()> {
    let root = cluster.rank() == 0;
    let started = Instant::now();
    let terminal = Terminal { quiet: true };
    // Every rank validates the same arguments; only the root reports a problem.
    let device = (args.device, cluster.local_rank());
    let open = tmd_gpu::filter::open_search_device;
    let planned = plan_rank(
        request,
        outputs,
        device,
        open,
        root.then_some(&terminal as _),
    )
    .map_err(job_error);
    let threads = args.threads.unwrap_or_else(|| cluster.threads_per_rank());
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .context("starting worker threads")?;
    let mut journals = RootJournals::in_memory();
    let mut root_error = None;
    let root_says = match (&planned, root) {
        (Ok(plan), true) => match RootJournals::open(plan, outputs, &terminal) {
            Ok(opened) => {
                journals = opened;
                Some(journals.start_message(plan))
            }
            Err(e) => {
                root_error = Some(job_error(e));
                None
            }
        },
        _ => None,
    };
    let Some(message) = share_from_root(cluster, root_says) else {
        let reason = root.then(|| root_error.unwrap_or_else(|| planned.expect_err("a reason")));
        cluster.fail_together(reason);
    };
    // The root accepted the arguments; another rank may still lack its device.
    let not_ready = planned.as_ref().err().map(|e| format!("{e:#}"));
    cluster.stop_if_only_some_ready(not_ready.as_deref());
    let plan = planned.unwrap_or_else(|e| cluster.abort(e));
    let left = SegmentsLeft::from_message(&plan, &message)?;
    let work = |&i: &u64| {
        let (lo, hi) = left.segments.bounds(i);
        match search_segment(&plan, i, lo, hi) {
            Ok(rec) => rec.to_bytes(),
            Err(e) => {
                eprintln!("tmd: rank search failed: {e}");
                std::process::exit(1);
            }
        }
    };
    let dealt = deal_out(
        cluster,
        left.remaining.iter().copied(),
        work,
        |bytes| -> anyhow::Result<()> {
            let rec = SegmentRecord::from_bytes(&bytes).context("a rank's segment")?;
            journals.segments.append(rec)?;
            Ok(())
        },
    );
    if let Err(e) = dealt {
        cluster.abort(e); // the other ranks may be busy: no collective call
    }
    if !root {
        return Ok(());
    }
    // The rate is of what this run searched, not of segments an earlier run finished.
    let run = (started, left.inputs(), threads);
    let stdout = Box::new(std::io::stdout());
    journals
        .write_output(&plan, outputs, stdout, run, &terminal)
        .map_err(job_error)
}
