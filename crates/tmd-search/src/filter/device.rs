//! Running the packets of a chunk on a device (OpenCL or CUDA, `tmd-gpu`).
//!
//! The host keeps everything that needs big integers or MPFR — Taylor models, the exact chunk
//! polynomial, the exact starting tables of each packet, the final verification of candidates —
//! and a device runs phases 1-3 over the packets: the same arithmetic as [`super::phases`]
//! (kernels/filter.cl and kernels/lower_bound.cl), so a device run lists the same candidates
//! and counts the same phase statistics as the CPU backend, which the tests check bit for bit.

use super::model::{PacketTables, MAX_DEGREE};
use super::phases::{affine_base64, DomainPlan};
use super::stats::{Nmdm, PacketStats, PhaseCounts};
use crate::lower_bound::Algorithm;
use std::fmt::Debug;
use tmd_kernels::layout;
/// The record sizes and work-group sizes the kernels are built with (`tmd_kernels::layout`,
/// passed to them as `-D` options).
pub use tmd_kernels::layout::{
    DEFER_WORDS, FOLD_GROUP, FOLD_MAX_GROUPS, SCAN_BLOCK, SCAN_GROUP, STATS_WORDS, WARP_NMDM_GROUP,
    WARP_NMDM_WORDS, WARP_WIDTH,
};

/// One packet: its first domain, its number of domains and its exact starting tables.
#[derive(Clone, Debug)]
pub struct PacketJob {
    pub first: u64,
    pub count: u64,
    pub tables: PacketTables,
}

/// The domain plan as the kernels take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelPlan {
    pub chunk_len: u64,
    pub n: u64,
    pub kappa: u64,
    /// The lower-bound test of phases 1 and 2; `None`: every domain goes to phase 3 (the
    /// exhaustive method).
    pub algorithm: Option<Algorithm>,
    pub division_threshold: u32,
    /// `affine_base64` for domains of N and of N/κ inputs.
    pub base1: u64,
    pub base2: u64,
    pub threshold3: u128,
    /// Degrees of the tables of r_0, r_1, r_2.
    pub degrees: [usize; 3],
    /// Phases 2 and 3 in kernels of their own (`FilterParams::split_phases`).
    pub split_phases: bool,
    /// Work-items per work-group of the phase-1 kernel (0: the runner's default).
    pub work_group: u32,
    /// Domains per work-item (`FilterParams::domains_per_item`).
    pub domains_per_item: u64,
    /// Run `warp_nmdm` and return its statistic ([`DeviceOutput::warp_nmdm`]; zero groups
    /// without it).
    pub warp_nmdm: bool,
    /// Most candidates one launch may return ([`super::FilterParams::candidate_cap`]); a
    /// launch that finds more returns none and says so ([`DeviceOutput::overflowed`]).
    pub candidate_cap: u64,
}

impl KernelPlan {
    /// The kernels' `algorithm` argument (`lb_test` in kernels/lower_bound.cl): a code of
    /// `tmd_kernels::layout`, or -1 for the exhaustive method.
    pub fn algorithm_code(&self) -> i32 {
        match self.algorithm {
            None => -1,
            Some(Algorithm::Lefevre) => layout::LB_LEFEVRE as i32,
            Some(Algorithm::LefevreSwap) => layout::LB_LEFEVRE_SWAP as i32,
            Some(Algorithm::Regular) => layout::LB_REGULAR as i32,
            Some(Algorithm::RegularUnrolled) => layout::LB_REGULAR_UNROLLED as i32,
        }
    }

    pub fn new(plan: &DomainPlan, chunk_len: u64, degrees: [usize; 3]) -> KernelPlan {
        KernelPlan {
            chunk_len,
            n: plan.n,
            kappa: plan.kappa,
            algorithm: plan.filter,
            division_threshold: plan.division_threshold,
            base1: affine_base64(plan, plan.n),
            base2: affine_base64(plan, (plan.n / plan.kappa).max(1)),
            threshold3: plan.threshold3,
            degrees,
            split_phases: false,
            work_group: 0,
            domains_per_item: SUBPACKET_DOMAINS,
            warp_nmdm: false,
            candidate_cap: super::DEFAULT_CANDIDATE_CAP,
        }
    }
}

/// Domains per device work-item by default (kernels/filter.cl, `ITEM_DOMAINS`): packets are
/// split into sub-packets of `domains_per_item` domains, a multiple of this, the NMDM group
/// ([`super::phases::NMDM_GROUP`]), so that a packet's statistics fold back to exactly the
/// CPU's (kernel `fold_packet_stats`).
pub const SUBPACKET_DOMAINS: u64 = super::phases::NMDM_GROUP as u64;

/// The values `--domains-per-item` may take: multiples of the NMDM group, at most 128 (the
/// work-item's 32-bit counts hold 128 domains of up to 2^24 arguments).
pub const DOMAINS_PER_ITEM_CHOICES: [u64; 3] = [32, 64, 128];

/// Words of a work-item's statistics record: the 15 count words, then one NMDM value per
/// NMDM group of domains (`ITEM_RECORD_WORDS` of kernels/filter.cl).
pub fn item_record_words(domains_per_item: u64) -> usize {
    STATS_WORDS - 1 + (domains_per_item / SUBPACKET_DOMAINS) as usize
}

/// Sub-packets (work-items) per packet for a launch over `jobs`.
pub fn subpackets_per_packet(jobs: &[PacketJob], domains_per_item: u64) -> u64 {
    jobs.iter()
        .map(|j| j.count.div_ceil(domains_per_item))
        .max()
        .unwrap_or(1)
        .max(1)
}

/// Adds the phase-2 and phase-3 counters of a split launch (words 4..12 of a statistics
/// record) to the first packet's record, so that the totals equal an unsplit launch's.
pub fn add_split_counters(folded: &mut [u64], counters: &[u64]) {
    for k in 4..12 {
        folded[k] += counters[k];
    }
}

/// Decodes one packet's statistics words.
pub fn decode_stats(w: &[u64]) -> PacketStats {
    let phase = |k: usize| PhaseCounts {
        domains_in: w[4 * k],
        args_in: w[4 * k + 1],
        domains_failed: w[4 * k + 2],
        args_failed: w[4 * k + 3],
        nanos: 0,
    };
    PacketStats {
        phase1: phase(0),
        phase2: phase(1),
        phase3: phase(2),
        nmdm: Nmdm {
            groups: w[12],
            iterations: w[13],
            domains: w[14],
            sum: f64::from_bits(w[15]),
        },
    }
}

/// The tables of every packet, flattened as the kernel reads them: per packet, r_0, r_1, r_2,
/// each `MAX_DEGREE + 1` entries of (low, high) 64-bit words.
pub fn flatten_tables(jobs: &[PacketJob]) -> Vec<u64> {
    let mut out = Vec::with_capacity(jobs.len() * 3 * (MAX_DEGREE + 1) * 2);
    for job in jobs {
        for table in &job.tables.tables {
            for &entry in table {
                out.push(entry as u64);
                out.push((entry >> 64) as u64);
            }
        }
    }
    out
}

/// What a device returns for the packets of one chunk.
#[derive(Clone, Debug, Default)]
pub struct DeviceOutput {
    /// Candidate offsets from the chunk start, sorted.
    pub candidates: Vec<u64>,
    /// One entry per packet, in packet order.
    pub packet_stats: Vec<PacketStats>,
    /// Device time (kernel and transfers), nanoseconds.
    pub device_nanos: u64,
    /// The NMDM of real warps (`FilterStats::nmdm_warp`).
    pub warp_nmdm: Nmdm,
    /// Time of each step ([`DEVICE_STEPS`]), measured on the host around the step and its
    /// completion, nanoseconds.
    pub step_nanos: [u64; DEVICE_STEPS.len()],
    /// The launch found more than [`KernelPlan::candidate_cap`] candidates and returned none
    /// (the chunk is then searched in smaller pieces).
    pub overflowed: bool,
}

/// The steps of a device call whose time `--stats` reports: the kernels (phase 1, with phases
/// 2-3 inline unless split; the split pipeline's phase-2 and phase-3 kernels; the statistics
/// fold; the per-warp NMDM; the split pipeline's compaction of its lists: prefix sums, gather
/// and copy), then everything else: buffer allocation and the copies to and from the device.
pub const DEVICE_STEPS: [&str; 7] = [
    "filter_packets",
    "phase2_deferred",
    "phase3_deferred",
    "fold_packet_stats",
    "warp_nmdm",
    "compaction",
    "buffers_and_copies",
];

// `fold_packet_stats` stages the NMDM values of a packet's groups in work-group memory.
const _: () = assert!(super::MAX_PACKET_DOMAINS / SUBPACKET_DOMAINS <= FOLD_MAX_GROUPS as u64);

/// The records `warp_nmdm` writes for `items` work-items (warps of [`WARP_WIDTH`], groups of
/// [`WARP_NMDM_GROUP`] warps, each group's warps added in order).
pub fn warp_nmdm_records(items: usize) -> usize {
    items.div_ceil(WARP_WIDTH).div_ceil(WARP_NMDM_GROUP)
}

/// Adds the records of `warp_nmdm` (one per group of warps) in order.
pub fn sum_warp_nmdm(words: &[u64]) -> Nmdm {
    let mut total = Nmdm::default();
    for w in words.chunks(WARP_NMDM_WORDS) {
        total.groups += w[0];
        if w[0] > 0 {
            total.sum += f64::from_bits(w[1]);
        }
        total.iterations += w[2];
        total.domains += w[3];
    }
    total
}

/// A device that runs phases 1-3 over packets.
pub trait PacketDevice: Send + Sync + Debug {
    /// The backend and device, for reports.
    fn name(&self) -> String;
    /// Runs every packet of one chunk.
    fn run_packets(&self, plan: &KernelPlan, jobs: &[PacketJob]) -> Result<DeviceOutput, String>;
    /// Gets the program of chunks of `plan` ready (compiled or read from the cache, and
    /// loaded), called while the host makes a chunk's tables so that the two overlap;
    /// `run_packets` does it itself when nothing did before. Devices with nothing to prepare
    /// keep this default.
    fn prepare(&self, _plan: &KernelPlan) -> Result<(), String> {
        Ok(())
    }
}
