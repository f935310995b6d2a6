//! Candidate generation: how the candidates of one chunk are produced before MPFR verifies
//! them.
//!
//! A [`CandidateGenerator`] receives a chunk — its polynomial ([`ChunkModel`], with a proven
//! error bound) and the domain plan the search chose for it — and returns the offsets of its
//! candidates: a proven superset of the inputs whose result lies within 2^-K ulp of a
//! breakpoint (or on one). The search verifies each candidate with MPFR
//! ([`crate::reference::decide_candidate`]), so a generator decides only how much work the
//! verification gets, never what is listed. [`generator_for`] selects one from the filter
//! parameters:
//!
//! - [`LowerBoundsOnCores`]: phases 1-3 ([`super::phases`]) with a lower-bound test
//!   ([`crate::lower_bound`]: Lefèvre's, or the regular test of Fortin, Gouicem and
//!   Graillat) on the CPU cores;
//! - [`LowerBoundsOnDevice`]: the same phases on an OpenCL or CUDA device
//!   ([`super::device::PacketDevice`]), with the same arithmetic, so the same candidates;
//! - [`FilterOrLattice`]: per chunk, the lattice method (below) or the phases on the cores or
//!   on the device, whichever a measured cost model expects to be cheaper (`super::lattice`);
//!   either gives a superset of the same hard inputs;
//! - [`Exhaustive`]: phase 3 on every domain (every input's value walked exactly by
//!   tabulated differences), on the cores or on a device.
//!
//! - [`LatticeOnCores`]: the lattice method of D. Stehlé, V. Lefèvre and P. Zimmermann
//!   ("Searching worst cases of a one-variable function using lattice reduction", IEEE
//!   Transactions on Computers, 2005) on intervals of the chunk ([`super::lattice`]): it needs
//!   the chunk polynomial, its error bound and the threshold, not the domains and packets of
//!   the plan, and returns candidates in the same form for the same verification.

use super::device::{KernelPlan, PacketDevice, PacketJob};
use super::model::ChunkModel;
use super::phases::{run_packet, DomainPlan};
use super::stats::{FilterStats, PacketStats};
use super::{tracing, FilterParams, Method};
use crate::lower_bound::Algorithm;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One chunk to generate candidates for.
pub struct ChunkWork<'a> {
    /// The chunk polynomial (inputs `0..chunk.len` from the chunk's first input).
    pub chunk: &'a ChunkModel,
    /// Domain size, threshold, and the lower-bound test (None: none, every domain walked).
    pub plan: &'a DomainPlan,
    /// Domains per packet (one exact table set-up).
    pub packet_domains: u64,
    /// Inputs done, for a progress bar.
    pub progress: &'a AtomicU64,
    /// Most candidates the chunk may return ([`FilterParams::candidate_cap`]).
    pub candidate_cap: u64,
    /// The plan's sample (`crate::projection`): only some packets or lattice intervals of the
    /// chunk are run ([`SAMPLE_DOMAINS`], [`SAMPLE_LATTICE_INTERVALS`]), the rest counted in
    /// [`FilterStats::unsampled_inputs`] and its time extrapolated. Never in a search.
    pub sampled: bool,
}

/// Domains of a chunk the plan's sample walks: the first domains of [`SAMPLE_PACKETS`]
/// packets evenly spread over the chunk. A chunk of 2^34 inputs has up to 2^31 domains, so the
/// plan timed whole chunks for 0.2 to 4 s each (exp at [2^9, 2^10): 2^25 domains) and a whole
/// binary64 function for minutes; 2^14 domains take 1 to 2 ms of thread time at the filter's
/// 50-100 ns per domain. Each sampled packet makes its exact tables as in the search: the
/// tables are extrapolated per packet, the walk per domain ([`packets_on_cores`]).
pub const SAMPLE_DOMAINS: u64 = 1 << 14;
/// Packets a chunk's sample starts (one per thread at least): a few places along the chunk,
/// and few table set-ups (about 0.1 ms each), which dominate where packets are small
/// (strongly curved chunks, domains of 1 to 16 inputs).
pub const SAMPLE_PACKETS: u64 = 8;
/// Lattice intervals of a chunk the plan's sample runs (evenly spread): the intervals of one
/// chunk share its shape and width, so their costs differ only by the failures halved
/// inside them; 64 average those out at a few milliseconds.
pub const SAMPLE_LATTICE_INTERVALS: u64 = 64;

/// Why a generator returned no candidates for a chunk.
#[derive(Debug)]
pub enum GenerateError {
    /// The device failed; the message names what failed.
    Device(String),
    /// More than [`ChunkWork::candidate_cap`] candidates: search the chunk in pieces.
    TooManyCandidates,
}

impl ChunkWork<'_> {
    /// The chunk's filter domains.
    pub fn domains(&self) -> u64 {
        self.chunk.len.div_ceil(self.plan.n)
    }

    fn packets(&self) -> u64 {
        self.domains().div_ceil(self.packet_domains)
    }

    /// The packets to run, each with its first domain and the domains to walk: all of them,
    /// whole, in a search; in the plan's sample [`SAMPLE_PACKETS`] evenly spread ones (one
    /// per thread at least), each walking its first share of [`SAMPLE_DOMAINS`].
    fn packets_to_run(&self) -> Vec<(u64, u64)> {
        let (domains, packet_domains) = (self.domains(), self.packet_domains);
        let whole = |p: u64| {
            (
                p * packet_domains,
                packet_domains.min(domains - p * packet_domains),
            )
        };
        let packets = self.packets();
        if !self.sampled {
            return (0..packets).map(whole).collect();
        }
        let threads = rayon::current_num_threads() as u64;
        let chosen = super::stats::spread(packets, SAMPLE_PACKETS.max(threads));
        let share = SAMPLE_DOMAINS.div_ceil(chosen.len() as u64);
        chosen
            .into_iter()
            .map(|p| {
                let (first, count) = whole(p);
                (first, count.min(share))
            })
            .collect()
    }
}

/// Produces the candidates of one chunk.
pub trait CandidateGenerator: Send + Sync {
    /// The lower-bound test that filters the domains of a chunk where the function is flat
    /// enough; None when every domain is walked exactly (the exhaustive method).
    fn lower_bound(&self) -> Option<Algorithm>;

    /// The offsets (from the chunk's first input) of the chunk's candidates, in increasing
    /// order of their domains, and the statistics of their generation; an error names what failed (a device).
    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError>;
}

/// The generator for `filter`: its method, on the CPU cores or on its device.
pub fn generator_for(filter: &FilterParams) -> Box<dyn CandidateGenerator> {
    let device = filter.device.as_ref().map(|device| DevicePackets {
        device: device.clone(),
        split_phases: filter.split_phases,
        work_group: filter.work_group,
        domains_per_item: filter.domains_per_item,
        min_domains: filter.device_min_domains,
        warp_nmdm: filter.warp_nmdm,
    });
    match (filter.method, device) {
        (Method::Filter(algorithm), None) => Box::new(LowerBoundsOnCores { algorithm }),
        (Method::Filter(algorithm), Some(device)) => {
            Box::new(LowerBoundsOnDevice { algorithm, device })
        }
        (Method::Exhaustive, device) => Box::new(Exhaustive { device }),
        (Method::Lattice(params), _) => Box::new(LatticeOnCores { params }),
        (Method::Cheaper(algorithm), device) => Box::new(FilterOrLattice {
            algorithm,
            device,
            lattice: Default::default(),
        }),
    }
}

/// Per chunk, the lattice method on the cores or the filter (on the cores, or on the device
/// where one is given), whichever the measured cost model expects to be cheaper: against the
/// filter's thread time on the cores ([`super::lattice::cheaper_lattice`]), or against a
/// device call ([`super::lattice::lattice_beats_device`]), which costs about a millisecond
/// whatever its work, so that a nearly flat chunk the lattice covers in a few intervals stays
/// on the cores.
pub struct FilterOrLattice {
    pub algorithm: Algorithm,
    pub device: Option<DevicePackets>,
    pub lattice: super::lattice::LatticeParams,
}

impl CandidateGenerator for FilterOrLattice {
    fn lower_bound(&self) -> Option<Algorithm> {
        Some(self.algorithm)
    }

    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        use super::lattice::{cheaper_lattice, lattice_beats_device, lattice_candidates};
        match &self.device {
            None => match cheaper_lattice(self.lattice, work) {
                Some(lattice) => lattice_candidates(lattice, work),
                None => packets_on_cores(work),
            },
            Some(device) => match lattice_beats_device(self.lattice, work) {
                Some(lattice) => lattice_candidates(lattice, work),
                None => device.run_or_on_cores(work),
            },
        }
    }
}

/// The lattice method on the intervals of each chunk, in parallel on the cores (a device
/// given with it is not used).
pub struct LatticeOnCores {
    pub params: super::lattice::LatticeParams,
}

impl CandidateGenerator for LatticeOnCores {
    fn lower_bound(&self) -> Option<Algorithm> {
        None
    }

    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        let lattice = super::lattice::chunk_lattice(self.params, work.chunk, work.plan.eps_units);
        super::lattice::lattice_candidates(lattice, work)
    }
}

/// Phases 1-3 with a lower-bound test, packets in parallel on the CPU cores.
pub struct LowerBoundsOnCores {
    pub algorithm: Algorithm,
}

impl CandidateGenerator for LowerBoundsOnCores {
    fn lower_bound(&self) -> Option<Algorithm> {
        Some(self.algorithm)
    }

    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        packets_on_cores(work)
    }
}

/// Phases 1-3 with a lower-bound test on a device; the exact tables are made on the cores.
pub struct LowerBoundsOnDevice {
    pub algorithm: Algorithm,
    pub device: DevicePackets,
}

impl CandidateGenerator for LowerBoundsOnDevice {
    fn lower_bound(&self) -> Option<Algorithm> {
        Some(self.algorithm)
    }

    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        self.device.run_or_on_cores(work)
    }
}

/// Every domain walked exactly (phase 3 everywhere), on the cores or on a device.
pub struct Exhaustive {
    pub device: Option<DevicePackets>,
}

impl CandidateGenerator for Exhaustive {
    fn lower_bound(&self) -> Option<Algorithm> {
        None
    }

    fn candidates(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        match &self.device {
            Some(device) => device.run_or_on_cores(work),
            None => packets_on_cores(work),
        }
    }
}

/// One packet's candidates, statistics, and thread time of its tables and of its walk.
type PacketOutput = (Vec<u64>, PacketStats, u64, u64);

/// The packets of a chunk in parallel on the cores; once more than the chunk's cap of
/// candidates are found, the packets not yet started are skipped and the chunk is given up
/// (its progress taken back), to be searched again in pieces.
fn packets_on_cores(work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
    let (chunk, plan) = (work.chunk, work.plan);
    let found = AtomicU64::new(0);
    let progressed = AtomicU64::new(0);
    let started = Instant::now();
    let to_run = work.packets_to_run();
    let outputs: Vec<Option<PacketOutput>> = to_run
        .par_iter()
        .map(|&(first, count)| {
            if found.load(Ordering::Relaxed) > work.candidate_cap {
                return None;
            }
            let t = Instant::now();
            let tables = chunk.packet_tables(first, plan.n);
            let generation = t.elapsed().as_nanos() as u64;
            let mut stats = PacketStats::default();
            let cap = work.candidate_cap;
            let candidates = run_packet(chunk, plan, tables, (first, count), cap, &mut stats);
            found.fetch_add(candidates.len() as u64, Ordering::Relaxed);
            let end = ((first + count) * plan.n).min(chunk.len);
            work.progress
                .fetch_add(end - first * plan.n, Ordering::Relaxed);
            progressed.fetch_add(end - first * plan.n, Ordering::Relaxed);
            let walk = t.elapsed().as_nanos() as u64 - generation;
            Some((candidates, stats, generation, walk))
        })
        .collect();
    let wall = started.elapsed();
    if found.load(Ordering::Relaxed) > work.candidate_cap {
        work.progress
            .fetch_sub(progressed.load(Ordering::Relaxed), Ordering::Relaxed);
        return Err(GenerateError::TooManyCandidates);
    }
    let mut stats = FilterStats::default();
    let mut candidates = Vec::new();
    let (mut tables_nanos, mut walk_nanos) = (0u64, 0u64);
    for (c, s, g, w) in outputs.into_iter().flatten() {
        candidates.extend(c);
        stats.absorb_packet(&s);
        stats.generation_nanos += g;
        tables_nanos += g;
        walk_nanos += w;
    }
    let covered = progressed.load(Ordering::Relaxed);
    if covered < chunk.len {
        // The skipped packets cost tables like the sampled ones, the skipped domains a walk
        // like the walked ones; thread time, spread over the threads as the sample was.
        let walked: u64 = to_run.iter().map(|&(_, count)| count).sum();
        let skipped_packets = work.packets() - to_run.len() as u64;
        let skipped_domains = work.domains() - walked;
        let thread_nanos = (tables_nanos + walk_nanos).max(1) as f64;
        let skipped_thread_nanos = tables_nanos as f64 * skipped_packets as f64
            / to_run.len() as f64
            + walk_nanos as f64 * skipped_domains as f64 / walked.max(1) as f64;
        stats.unsampled_inputs = chunk.len - covered;
        stats.unsampled_nanos =
            (skipped_thread_nanos * wall.as_nanos() as f64 / thread_nanos) as u64;
    }
    Ok((candidates, stats))
}

/// A device and how its launches are shaped.
pub struct DevicePackets {
    pub device: Arc<dyn PacketDevice>,
    /// Phases 2 and 3 in kernels of their own ([`FilterParams::split_phases`]).
    pub split_phases: bool,
    /// Work-items per work-group (0: the runner's default).
    pub work_group: u32,
    /// Domains per work-item.
    pub domains_per_item: u64,
    /// Chunks of fewer domains run on the cores ([`crate::FilterParams::device_min_domains`]).
    pub min_domains: u64,
    /// The NMDM of real warps too ([`crate::FilterParams::warp_nmdm`]).
    pub warp_nmdm: bool,
}

impl DevicePackets {
    /// The chunk on the device, or on the cores when it has fewer domains than
    /// [`Self::min_domains`].
    fn run_or_on_cores(
        &self,
        work: &ChunkWork<'_>,
    ) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        if work.domains() < self.min_domains {
            return packets_on_cores(work);
        }
        self.run(work)
    }

    /// The exact tables are made on the cores; phases 1-3 run on the device. An error is
    /// prefixed with the device's name.
    fn run(&self, work: &ChunkWork<'_>) -> Result<(Vec<u64>, FilterStats), GenerateError> {
        match self.run_on_device(work) {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err(GenerateError::TooManyCandidates),
            Err(e) => Err(GenerateError::Device(format!(
                "{}: {e}",
                self.device.name()
            ))),
        }
    }

    /// The candidates and statistics, or None when the chunk has more candidates than its cap.
    fn run_on_device(
        &self,
        work: &ChunkWork<'_>,
    ) -> Result<Option<(Vec<u64>, FilterStats)>, String> {
        let device = self.device.as_ref();
        let (chunk, plan, packet_domains) = (work.chunk, work.plan, work.packet_domains);
        let (domains, packets) = (work.domains(), work.packets());
        let mut kernel_plan = KernelPlan::new(plan, chunk.len, chunk.table_degrees());
        kernel_plan.split_phases = self.split_phases;
        kernel_plan.work_group = self.work_group;
        kernel_plan.domains_per_item = self.domains_per_item;
        kernel_plan.warp_nmdm = self.warp_nmdm;
        kernel_plan.candidate_cap = work.candidate_cap;
        // The device loads the chunk's program while the cores make its tables.
        let joined = Instant::now();
        let (prepared, (jobs, generation)) = rayon::join(
            || device.prepare(&kernel_plan),
            || {
                let t = Instant::now();
                let jobs: Vec<PacketJob> = (0..packets)
                    .into_par_iter()
                    .map(|p| {
                        let first = p * packet_domains;
                        PacketJob {
                            first,
                            count: packet_domains.min(domains - first),
                            tables: chunk.packet_tables(first, plan.n),
                        }
                    })
                    .collect();
                (jobs, t.elapsed().as_nanos() as u64)
            },
        );
        prepared?;
        debug_assert_eq!(jobs[0].tables.degrees, kernel_plan.degrees);
        let mut stats = FilterStats {
            generation_nanos: generation,
            ..FilterStats::default()
        };
        let joined = joined.elapsed();
        let called = Instant::now();
        let out = device.run_packets(&kernel_plan, &jobs)?;
        if out.overflowed {
            return Ok(None);
        }
        if tracing() {
            eprintln!(
                "tmd-trace: {} packets: tables {} us beside the program's preparation, both \
                 {} us; device call {} us",
                jobs.len(),
                generation / 1000,
                joined.as_micros(),
                called.elapsed().as_micros()
            );
        }
        work.progress.fetch_add(chunk.len, Ordering::Relaxed);
        for s in &out.packet_stats {
            stats.absorb_packet(s);
        }
        stats.device_nanos += out.device_nanos;
        stats.step_nanos = out.step_nanos;
        stats.nmdm_warp.absorb(&out.warp_nmdm);
        Ok(Some((out.candidates, stats)))
    }
}
