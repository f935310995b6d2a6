//! The filtered search's device call, for any [`Backend`]: the packet buffers, the phase-1
//! kernel (`filter_packets`, phases 2 and 3 inline or deferred), the statistics fold, the
//! per-warp NMDM, and the split pipeline's compaction by prefix sums and its phase-2 and
//! phase-3 kernels (kernels/filter.cl).

use crate::backend::{Arg, Backend, Grid};
use crate::trace::Trace;
use crate::GpuError;
use std::time::Instant;
use tmd_kernels::layout::{
    DEFER_WORDS, FOLD_GROUP, SCAN_BLOCK, SCAN_GROUP, STATS_WORDS, WARP_NMDM_GROUP, WARP_NMDM_WORDS,
};
use tmd_kernels::Id;
use tmd_search::filter::device::{
    add_split_counters, decode_stats, flatten_tables, item_record_words, subpackets_per_packet,
    sum_warp_nmdm, warp_nmdm_records, DeviceOutput, KernelPlan, PacketJob, DEVICE_STEPS,
};

/// Candidates a packet kernel can store per launch before the host relaunches with more room.
const FIRST_CAPACITY: usize = 1 << 16;

/// What one packet-kernel launch returns: the candidates stored and found, the statistics
/// words per packet, and the `warp_nmdm` records.
struct Launched {
    stored: Vec<u64>,
    total: usize,
    stats: Vec<u64>,
    warps: Vec<u64>,
    /// Per kernel ([`DEVICE_STEPS`]), host-measured nanoseconds.
    step_nanos: [u64; DEVICE_STEPS.len()],
}

/// The filter program a launch of `plan` needs (its table degree, pipeline and domains per
/// work-item).
pub(crate) fn filter_id(plan: &KernelPlan) -> Id {
    Id::filter_for(plan.degrees, plan.split_phases, plan.domains_per_item)
}

/// The phase-3 threshold as the kernels take it: (low, high) 64-bit words.
fn threshold_words(plan: &KernelPlan) -> (u64, u64) {
    (plan.threshold3 as u64, (plan.threshold3 >> 64) as u64)
}

/// Runs every packet of one chunk: a launch with room for [`FIRST_CAPACITY`] candidates,
/// once more with exactly enough room when it found more; the candidates sorted and one
/// statistics record per packet, folded on the device.
pub(crate) fn run_packets<B: Backend>(
    b: &B,
    plan: &KernelPlan,
    jobs: &[PacketJob],
) -> Result<DeviceOutput, String> {
    let t = Instant::now();
    let launch = |capacity| {
        b.with_queues(|bulk, urgent| launch_filter(b, bulk, urgent, plan, jobs, capacity))
            .map_err(|e| e.to_string())
    };
    let mut capacity = FIRST_CAPACITY.min(plan.candidate_cap as usize);
    let mut run = launch(capacity)?;
    if run.total as u64 > plan.candidate_cap {
        // More than the host may hold for one chunk: the caller searches it in pieces.
        return Ok(DeviceOutput {
            candidates: Vec::new(),
            packet_stats: Vec::new(),
            device_nanos: t.elapsed().as_nanos() as u64,
            warp_nmdm: Default::default(),
            step_nanos: [0; DEVICE_STEPS.len()],
            overflowed: true,
        });
    }
    if run.total > capacity {
        capacity = run.total;
        run = launch(capacity)?;
    }
    let Launched {
        mut stored,
        total,
        stats,
        warps,
        step_nanos,
    } = run;
    stored.truncate(total);
    stored.sort_unstable();
    Ok(DeviceOutput {
        candidates: stored,
        packet_stats: stats.chunks(STATS_WORDS).map(decode_stats).collect(),
        device_nanos: t.elapsed().as_nanos() as u64,
        warp_nmdm: sum_warp_nmdm(&warps),
        step_nanos,
        overflowed: false,
    })
}

/// Gets the program of chunks of `plan` ready (`PacketDevice::prepare`).
pub(crate) fn prepare<B: Backend>(b: &B, plan: &KernelPlan) -> Result<(), String> {
    let started = Instant::now();
    let loaded = b.program(filter_id(plan));
    if crate::trace::enabled() {
        eprintln!("tmd-trace: prepare {} us", started.elapsed().as_micros());
    }
    loaded.map(|_| ()).map_err(|e| e.to_string())
}

/// The `buffers_and_copies` step of a device call: its time not spent in its kernels (the
/// steps before the last of `step_nanos`).
fn rest_of_call(call_started: Instant, step_nanos: &[u64]) -> u64 {
    let kernels: u64 = step_nanos[..step_nanos.len() - 1].iter().sum();
    (call_started.elapsed().as_nanos() as u64).saturating_sub(kernels)
}

/// One launch of `filter_packets` (and, split, of the compaction and the phase-2 and phase-3
/// kernels) with room for `capacity` candidates: the phase-1 kernel on the bulk queue, the
/// rest on the urgent one `s`.
fn launch_filter<B: Backend>(
    b: &B,
    bulk: &B::Queue,
    s: &B::Queue,
    plan: &KernelPlan,
    jobs: &[PacketJob],
    capacity: usize,
) -> Result<Launched, GpuError> {
    let call_started = Instant::now();
    let mut trace = Trace::new(call_started);
    let packets = jobs.len();
    let subpackets = subpackets_per_packet(jobs, plan.domains_per_item);
    let items = packets * subpackets as usize;
    let tables = b.upload(s, &flatten_tables(jobs))?;
    let firsts = b.upload(s, &jobs.iter().map(|j| j.first).collect::<Vec<u64>>())?;
    let counts = b.upload(s, &jobs.iter().map(|j| j.count).collect::<Vec<u64>>())?;
    trace.mark("htod");
    // Scratch the kernels write in full before anything reads it (statistics and lane records
    // of every work-item, the per-warp records) or read only up to a counter (candidates,
    // deferrals) needs no zeroing; the counters do.
    let candidates = b.scratch::<u64>(s, capacity.max(1))?;
    let found = b.zeros::<u32>(s, 1)?;
    let per_item = plan.domains_per_item as usize;
    let mask_words = items * per_item / 32;
    let stats = b.scratch::<u64>(s, items * item_record_words(plan.domains_per_item))?;
    // One bit mask of phase-1 failures per sub-packet (written when split).
    let fail_masks = b.scratch::<u32>(s, mask_words)?;
    let lanes = b.scratch::<u32>(s, items * per_item)?;
    // The per-warp statistic only when asked: its kernel and copy are a tenth of a call.
    let warp_records = if plan.warp_nmdm {
        warp_nmdm_records(items)
    } else {
        0
    };
    let warp_words = b.scratch::<u64>(s, (warp_records * WARP_NMDM_WORDS).max(1))?;
    trace.mark("alloc");
    let program = b.program(filter_id(plan))?;
    trace.mark("module");
    let (t_lo, t_hi) = threshold_words(plan);
    let packets64 = packets as u64;
    let capacity32 = capacity as u32;
    let group = match plan.work_group {
        0 => B::FILTER_GROUP,
        w => Some(w as usize),
    };
    if let Some(group) = group {
        let max = b.max_group(&program, "filter_packets")?;
        if group > max {
            return Err(GpuError::WorkGroup {
                kernel: "filter_packets",
                requested: group as u32,
                max: max as u32,
            });
        }
    }
    // The buffers were filled on `s`: the bulk queue starts after that.
    b.sync(s)?;
    let mut step_nanos = [0u64; DEVICE_STEPS.len()];
    let started = Instant::now();
    b.launch(
        bulk,
        &program,
        "filter_packets",
        Grid { items, group },
        &[
            b.arg(bulk, &tables),
            b.arg(bulk, &firsts),
            b.arg(bulk, &counts),
            Arg::U64(packets64),
            Arg::U64(plan.chunk_len),
            Arg::U64(plan.n),
            Arg::U64(plan.kappa),
            Arg::I32(plan.algorithm_code()),
            Arg::U32(plan.division_threshold),
            Arg::U64(plan.base1),
            Arg::U64(plan.base2),
            Arg::U64(t_lo),
            Arg::U64(t_hi),
            Arg::U64(subpackets),
            b.arg(bulk, &candidates),
            Arg::U32(capacity32),
            b.arg(bulk, &found),
            b.arg(bulk, &stats),
            b.arg(bulk, &fail_masks),
            b.arg(bulk, &lanes),
        ],
    )?;
    step_nanos[0] = b.nanos_at_completion(bulk, started)?;
    trace.mark("filter_packets");
    if warp_records > 0 {
        let started = Instant::now();
        b.launch(
            s,
            &program,
            "warp_nmdm",
            Grid::groups_of(warp_records * WARP_NMDM_GROUP, WARP_NMDM_GROUP),
            &[
                b.arg(s, &lanes),
                Arg::U64(items as u64),
                b.arg(s, &warp_words),
            ],
        )?;
        step_nanos[4] = b.nanos_at_completion(s, started)?;
        trace.mark("warp_nmdm");
    }
    // One statistics record per packet comes back, folded on the device.
    let folded = b.zeros::<u64>(s, packets * STATS_WORDS)?;
    let started = Instant::now();
    b.launch(
        s,
        &program,
        "fold_packet_stats",
        Grid::groups_of(packets * FOLD_GROUP, FOLD_GROUP),
        &[
            b.arg(s, &stats),
            Arg::U64(packets64),
            Arg::U64(subpackets),
            b.arg(s, &folded),
        ],
    )?;
    step_nanos[3] = b.nanos_at_completion(s, started)?;
    trace.mark("fold");
    let mut folded_words = b.download(s, &folded, packets * STATS_WORDS)?;
    trace.mark("dtoh_folded");
    if plan.split_phases {
        // The failing domains, listed in input order at offsets from a prefix sum.
        let started = Instant::now();
        let (offsets, failed) = exclusive_scan(b, s, &program, &fail_masks, mask_words, true)?;
        let deferred = b.scratch::<u64>(s, failed.max(1) * DEFER_WORDS)?;
        if failed > 0 {
            b.launch(
                s,
                &program,
                "gather_phase1_failures",
                Grid::items(items),
                &[
                    b.arg(s, &tables),
                    b.arg(s, &firsts),
                    b.arg(s, &counts),
                    Arg::U64(packets64),
                    Arg::U64(plan.chunk_len),
                    Arg::U64(plan.n),
                    Arg::U64(subpackets),
                    b.arg(s, &fail_masks),
                    b.arg(s, &offsets),
                    b.arg(s, &deferred),
                ],
            )?;
        }
        let gather_nanos = b.nanos_at_completion(s, started)?;
        let out = Found {
            candidates: &candidates,
            capacity32,
            found: &found,
        };
        let (counters, split_nanos) =
            split_phases_2_3(b, s, &program, plan, &deferred, failed, out)?;
        add_split_counters(&mut folded_words[..STATS_WORDS], &counters);
        step_nanos[1] = split_nanos[0];
        step_nanos[2] = split_nanos[1];
        step_nanos[5] = gather_nanos + split_nanos[2];
        trace.mark("split");
    }
    let total = b.download(s, &found, 1)?[0] as usize;
    let stored = b.download(s, &candidates, total.min(capacity))?;
    trace.mark("dtoh_candidates");
    let warps = b.download(s, &warp_words, warp_records * WARP_NMDM_WORDS)?;
    trace.mark("dtoh_warps");
    trace.print(items);
    step_nanos[6] = rest_of_call(call_started, &step_nanos);
    Ok(Launched {
        stored,
        total,
        stats: folded_words,
        warps,
        step_nanos,
    })
}

/// The candidate list of a launch: its buffer, room and counter.
struct Found<'a, B: Backend> {
    candidates: &'a B::Buffer<u64>,
    capacity32: u32,
    found: &'a B::Buffer<u32>,
}

/// Phases 2 and 3 of a split launch: `phase2_deferred` over the `failed` domains (each
/// writing its failing subdomains to its own region of kappa slots), the prefix sum and
/// `compact_subdomains` that list them, then `phase3_deferred` over that list. Returns the
/// phase-2/3 counters (statistics words 4..12) and the nanoseconds of phase 2, phase 3 and
/// the compaction.
fn split_phases_2_3<B: Backend>(
    b: &B,
    s: &B::Queue,
    program: &B::Program,
    plan: &KernelPlan,
    deferred: &B::Buffer<u64>,
    failed: usize,
    out: Found<'_, B>,
) -> Result<(Vec<u64>, [u64; 3]), GpuError> {
    let counters = b.zeros::<u64>(s, STATS_WORDS)?;
    let mut nanos = [0u64; 3];
    if failed == 0 {
        return Ok((b.download(s, &counters, STATS_WORDS)?, nanos));
    }
    let (t_lo, t_hi) = threshold_words(plan);
    // Each domain's own region of kappa subdomain slots, and how many it used.
    let regions = b.scratch::<u64>(s, failed * plan.kappa as usize * DEFER_WORDS)?;
    let sub_counts = b.scratch::<u32>(s, failed)?;
    let failed64 = failed as u64;
    let started = Instant::now();
    b.launch(
        s,
        program,
        "phase2_deferred",
        Grid::items(failed),
        &[
            b.arg(s, deferred),
            Arg::U64(failed64),
            Arg::U64(plan.n),
            Arg::U64(plan.kappa),
            Arg::I32(plan.algorithm_code()),
            Arg::U32(plan.division_threshold),
            Arg::U64(plan.base2),
            Arg::U64(t_lo),
            Arg::U64(t_hi),
            b.arg(s, out.candidates),
            Arg::U32(out.capacity32),
            b.arg(s, out.found),
            b.arg(s, &counters),
            b.arg(s, &regions),
            b.arg(s, &sub_counts),
        ],
    )?;
    nanos[0] = b.nanos_at_completion(s, started)?;
    let started = Instant::now();
    let (offsets, sub_failed) = exclusive_scan(b, s, program, &sub_counts, failed, false)?;
    if sub_failed > 0 {
        let subdomains = b.scratch::<u64>(s, sub_failed * DEFER_WORDS)?;
        b.launch(
            s,
            program,
            "compact_subdomains",
            Grid::items(failed),
            &[
                b.arg(s, &regions),
                b.arg(s, &sub_counts),
                b.arg(s, &offsets),
                Arg::U64(failed64),
                Arg::U64(plan.kappa),
                b.arg(s, &subdomains),
            ],
        )?;
        nanos[2] = b.nanos_at_completion(s, started)?;
        let started = Instant::now();
        b.launch(
            s,
            program,
            "phase3_deferred",
            Grid::items(sub_failed),
            &[
                b.arg(s, &subdomains),
                Arg::U64(sub_failed as u64),
                Arg::U64(t_lo),
                Arg::U64(t_hi),
                b.arg(s, out.candidates),
                Arg::U32(out.capacity32),
                b.arg(s, out.found),
                b.arg(s, &counters),
            ],
        )?;
        nanos[1] = b.nanos_at_completion(s, started)?;
    } else {
        nanos[2] = started.elapsed().as_nanos() as u64;
    }
    Ok((b.download(s, &counters, STATS_WORDS)?, nanos))
}

/// The exclusive prefix sum of the first `len` values of `input` (of their popcounts when
/// `popcount`), by `scan_blocks` and `add_block_offsets`, repeated over the block totals
/// while there is more than one block: the offsets and the total.
fn exclusive_scan<B: Backend>(
    b: &B,
    s: &B::Queue,
    program: &B::Program,
    input: &B::Buffer<u32>,
    len: usize,
    popcount: bool,
) -> Result<(B::Buffer<u32>, usize), GpuError> {
    let blocks = len.div_ceil(SCAN_BLOCK).max(1);
    let out = b.scratch::<u32>(s, len.max(1))?;
    let sums = b.scratch::<u32>(s, blocks)?;
    let len64 = len as u64;
    b.launch(
        s,
        program,
        "scan_blocks",
        Grid::groups_of(blocks * SCAN_GROUP, SCAN_GROUP),
        &[
            b.arg(s, input),
            Arg::U64(len64),
            Arg::I32(popcount as i32),
            b.arg(s, &out),
            b.arg(s, &sums),
        ],
    )?;
    if blocks == 1 {
        let total = b.download(s, &sums, 1)?[0] as usize;
        return Ok((out, total));
    }
    let (block_offsets, total) = exclusive_scan(b, s, program, &sums, blocks, false)?;
    b.launch(
        s,
        program,
        "add_block_offsets",
        Grid::items(len),
        &[b.arg(s, &out), Arg::U64(len64), b.arg(s, &block_offsets)],
    )?;
    Ok((out, total))
}

/// The exclusive prefix sums of `values` (of their popcounts when `popcount`) computed by the
/// split pipeline's scan kernels, and their total: for tests of the compaction.
pub(crate) fn prefix_sums<B: Backend>(
    b: &B,
    values: &[u32],
    popcount: bool,
) -> Result<(Vec<u32>, usize), GpuError> {
    let program = b.program(Id::filter_for([2, 1, 0], true, 32))?;
    b.with_queues(|_, s| {
        let input = b.upload(s, values)?;
        let (offsets, total) = exclusive_scan(b, s, &program, &input, values.len(), popcount)?;
        Ok((b.download(s, &offsets, values.len())?, total))
    })
}

/// Opens device `index` of a search's backend for its filter ([`Device`](crate::Device)), or
/// none for the CPU backend (the filter runs on the cores).
pub fn open_search_device(
    backend: tmd_search::Backend,
    index: usize,
) -> Result<Option<std::sync::Arc<dyn tmd_search::filter::device::PacketDevice>>, GpuError> {
    let Some(runtime) = crate::Runtime::of(backend) else {
        return Ok(None);
    };
    Ok(Some(std::sync::Arc::new(crate::Device::open(
        runtime, index,
    )?)))
}
