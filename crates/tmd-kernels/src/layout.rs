//! The numbers the kernels and the host code must agree on: record sizes, work-group sizes
//! the kernels are written for, table lengths. They are defined here once and reach the
//! kernels as `-D` options ([`defines`], part of [`crate::opencl_options`] and
//! [`crate::cuda_options`]); no kernel file defines them, and `kernels/vendor.h` stops the
//! compilation with an `#error` when one is missing, so a program built without them fails
//! loudly instead of running with other numbers. The host crates (`tmd-search`, `tmd-gpu`)
//! use the constants from here.

/// The largest table degree of the filter program (`MAX_DEGREE` in `kernels/filter.cl`): the
/// tables of r0, r1, r2 hold `MAX_DEGREE + 1` entries each.
pub const MAX_DEGREE: usize = 24;

/// Words of a packet's statistics record: domains and arguments in and failed per phase
/// (12), the NMDM groups, iterations and domains, and the NMDM sum's bits.
pub const STATS_WORDS: usize = 16;

/// Consecutive domains per NMDM group (the CPU's `Nmdm::add_group`); a work-item's domains
/// are a multiple of it.
pub const NMDM_GROUP: usize = 32;

/// Words per deferred domain or subdomain of the split pipeline: start, len, r0, r1, r2
/// (each as lo, hi).
pub const DEFER_WORDS: usize = 8;

/// Work-items per work-group of `fold_packet_stats`, and the most sub-packet NMDM values
/// per packet it stages in work-group memory.
pub const FOLD_GROUP: usize = 256;
pub const FOLD_MAX_GROUPS: usize = 2048;

/// Work-items per work-group of `scan_blocks`, and the values each work-item adds: a group
/// scans [`SCAN_BLOCK`] values.
pub const SCAN_GROUP: usize = 256;
pub const SCAN_PER_ITEM: usize = 4;
pub const SCAN_BLOCK: usize = SCAN_GROUP * SCAN_PER_ITEM;

/// Lanes of a warp as `warp_nmdm` counts them (work-items `32w .. 32w + 31`).
pub const WARP_WIDTH: usize = 32;

/// Warps per work-group of `warp_nmdm` (launched in groups of exactly this size, one record
/// per group), and the words of a record: groups, the sum's bits, iterations, lanes at work.
pub const WARP_NMDM_GROUP: usize = 128;
pub const WARP_NMDM_WORDS: usize = 4;

/// Counter words of `crunch_analyse` (`kernels/crunch_analyse.cl`): correctly rounded,
/// faithful, worse, NaN expected and wrong, overflow and wrong, subnormal and wrong, decided
/// on the device, worse with an error below 1 ulp ([`CRUNCH_HISTOGRAM_OFFSET`] words), then
/// the histogram bins.
pub const CRUNCH_HISTOGRAM_OFFSET: usize = 11;
pub const CRUNCH_HISTOGRAM_BINS: usize = 42;
pub const CRUNCH_COUNT_WORDS: usize = CRUNCH_HISTOGRAM_OFFSET + CRUNCH_HISTOGRAM_BINS;

/// The kernels' codes of the lower-bound tests (`lb_test` in `kernels/lower_bound.cl`); a
/// negative code sends every domain to phase 3 (the exhaustive method).
pub const LB_LEFEVRE: usize = 0;
pub const LB_LEFEVRE_SWAP: usize = 1;
pub const LB_REGULAR: usize = 2;
pub const LB_REGULAR_UNROLLED: usize = 3;

const _: () = assert!(FOLD_GROUP.is_power_of_two() && SCAN_GROUP.is_power_of_two());
const _: () = assert!(WARP_NMDM_GROUP.is_power_of_two() && NMDM_GROUP.is_multiple_of(32));

/// Every layout constant as a `-D` fact, in the order of this module: the names the kernels
/// use and that `kernels/vendor.h` requires.
pub fn defines() -> Vec<(&'static str, String)> {
    [
        ("MAX_DEGREE", MAX_DEGREE),
        ("STATS_WORDS", STATS_WORDS),
        ("NMDM_GROUP", NMDM_GROUP),
        ("DEFER_WORDS", DEFER_WORDS),
        ("FOLD_GROUP", FOLD_GROUP),
        ("FOLD_MAX_GROUPS", FOLD_MAX_GROUPS),
        ("SCAN_GROUP", SCAN_GROUP),
        ("SCAN_PER_ITEM", SCAN_PER_ITEM),
        ("WARP_WIDTH", WARP_WIDTH),
        ("WARP_NMDM_GROUP", WARP_NMDM_GROUP),
        ("WARP_NMDM_WORDS", WARP_NMDM_WORDS),
        ("CRUNCH_HISTOGRAM_OFFSET", CRUNCH_HISTOGRAM_OFFSET),
        ("CRUNCH_HISTOGRAM_BINS", CRUNCH_HISTOGRAM_BINS),
        ("LB_LEFEVRE", LB_LEFEVRE),
        ("LB_LEFEVRE_SWAP", LB_LEFEVRE_SWAP),
        ("LB_REGULAR", LB_REGULAR),
        ("LB_REGULAR_UNROLLED", LB_REGULAR_UNROLLED),
    ]
    .into_iter()
    .map(|(name, value)| (name, value.to_string()))
    .collect()
}
