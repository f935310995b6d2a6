//! The three phases over one packet of domains (TOMS16 §3.1 and §4, see
//! [`crate::lower_bound`] for the references).
//!
//! Each domain i of N inputs has the polynomial `P_i(x) = r_0 + r_1·x + r_2·binom(x, 2)`
//! (128-bit fractions modulo 1, from the tabulated differences of [`super::model`]) and a proven
//! bound `common_error` on `|F(iN + x) - P_i(x)|` for `0 <= x < N` (docs/error-analysis.md §5).
//!
//! - Phase 1: `binom(x, 2)` is replaced by its best affine approximation over `[0, N - 1]`,
//!   `((N - 2)/2)·x - (N - 1)^2/16` (error `(N - 1)^2/16`), giving `c + a·x`, truncated to 64-bit
//!   fractions; the lower-bound test of [`crate::lower_bound`] then proves (or not) that no x
//!   is within `eps_1` of an integer.
//! - Phase 2: a failing domain is split into κ subdomains of M = N/κ inputs; each gets its own
//!   `P` by the exact shift `x -> x + sM` and the same test with the smaller truncation error.
//! - Phase 3: every x of a failing subdomain is evaluated exactly (two additions per x, the
//!   tabulated difference shift of degree 2) and kept as a candidate when `P(x)` is within
//!   `eps + common_error` of an integer. Candidates are verified with MPFR by the caller.

use super::model::{ChunkModel, PacketTables};
use super::stats::PacketStats;
use crate::lower_bound::{test_lower_bound, Algorithm};
use std::time::Instant;

/// How the domains of a chunk are processed.
#[derive(Clone, Debug)]
pub struct DomainPlan {
    /// Domain size N (a power of two).
    pub n: u64,
    /// Subdomains per failing domain in phase 2.
    pub kappa: u64,
    /// None: phase 3 on every domain (the exhaustive search).
    pub filter: Option<Algorithm>,
    pub division_threshold: u32,
    /// The search threshold in result units (2^-K ulp, or 2^(1-K) half-ulps).
    pub eps_units: f64,
    /// Proven bound of |F - P_i| over a domain (E_taylor + ρ(N) + tabulation error).
    pub common_error: f64,
    /// Phase 3 threshold: ceil((eps_units + common_error)·2^128), saturated.
    pub threshold3: u128,
}

/// Upper bound of `x·2^128` as a 128-bit fraction, saturated at 2^127 (a threshold that large
/// makes every point a candidate).
pub fn fraction128_up(x: f64) -> u128 {
    let scaled = x * (1.0 + 1e-12) * 2f64.powi(128);
    if scaled.is_nan() || scaled >= 2f64.powi(127) {
        return 1u128 << 127;
    }
    (scaled as u128).saturating_add(2)
}

/// Upper bound of `x·2^64`, saturated at 2^63.
fn fraction64_up(x: f64) -> u64 {
    let scaled = x * (1.0 + 1e-12) * 2f64.powi(64);
    if scaled.is_nan() || scaled >= 2f64.powi(63) {
        return 1u64 << 63;
    }
    (scaled as u64).saturating_add(2)
}

/// The top 64 bits of a 128-bit fraction (rounded down).
fn top64(v: u128) -> u64 {
    (v >> 64) as u64
}

/// Group size for the NMDM statistic (a warp, TOMS16 §4.3.2; the kernels' too:
/// `tmd_kernels::layout`).
pub use tmd_kernels::layout::NMDM_GROUP;

/// Runs domains `first..first + count` of a chunk, starting from exact tables at `first`.
/// Returns the candidates as offsets from the chunk start, in increasing order. Stops after
/// the domain where they pass `cap` (the chunk is then given up and searched in pieces): a
/// packet can hold 2^38 inputs, nearly all candidates at a small K.
pub fn run_packet(
    chunk: &ChunkModel,
    plan: &DomainPlan,
    mut tables: PacketTables,
    (first, count): (u64, u64),
    cap: u64,
    stats: &mut PacketStats,
) -> Vec<u64> {
    let started = Instant::now();
    let (p2_before, p3_before) = (stats.phase2.nanos, stats.phase3.nanos);
    let mut candidates = Vec::new();
    let mut group: Vec<u64> = Vec::with_capacity(NMDM_GROUP);
    let [d0, d1, d2] = tables.degrees;
    let base1 = affine_base64(plan, plan.n);
    for i in first..first + count {
        let start = i * plan.n;
        let len = plan.n.min(chunk.len - start);
        let (r0, r1, r2) = (
            tables.tables[0][0],
            tables.tables[1][0],
            tables.tables[2][0],
        );
        match plan.filter {
            Some(algorithm) if plan.n >= 8 => {
                stats.phase1.enter(1, len);
                let (passed, iterations) = affine_test(
                    plan.n,
                    base1,
                    algorithm,
                    plan.division_threshold,
                    r0,
                    r1,
                    r2,
                    len,
                );
                group.push(iterations);
                if group.len() == NMDM_GROUP {
                    stats.nmdm.add_group(&group);
                    group.clear();
                }
                if !passed {
                    stats.phase1.fail(1, len);
                    let t = Instant::now();
                    let phase3_before = stats.phase3.nanos;
                    phase2(
                        plan,
                        algorithm,
                        r0,
                        r1,
                        r2,
                        start,
                        len,
                        stats,
                        &mut candidates,
                    );
                    let inner = stats.phase3.nanos - phase3_before;
                    stats.phase2.nanos += (t.elapsed().as_nanos() as u64).saturating_sub(inner);
                }
            }
            _ => phase3(plan, r0, r1, r2, start, len, stats, &mut candidates),
        }
        if candidates.len() as u64 > cap {
            break;
        }
        advance(&mut tables.tables[0], d0);
        advance(&mut tables.tables[1], d1);
        advance(&mut tables.tables[2], d2);
    }
    if !group.is_empty() {
        stats.nmdm.add_group(&group);
    }
    if plan.filter.is_some() {
        // Phase 1's time includes the tabulated-difference steps of every domain.
        let later = (stats.phase2.nanos - p2_before) + (stats.phase3.nanos - p3_before);
        stats.phase1.nanos += (started.elapsed().as_nanos() as u64).saturating_sub(later);
    }
    candidates
}

/// One step of the tabulated difference shift: Δ^l(i + 1) = Δ^l(i) + Δ^(l+1)(i), in increasing
/// l so that each addition reads the old Δ^(l+1). Exact modulo 1.
#[inline]
fn advance(table: &mut [u128], degree: usize) {
    for l in 0..degree {
        table[l] = table[l].wrapping_add(table[l + 1]);
    }
}

/// The part of phase 1/2's threshold that does not depend on the domain: `eps + E + 2^-64·n`
/// as a 64-bit fraction rounded up (saturated at 2^63), computed once per domain size.
pub fn affine_base64(plan: &DomainPlan, n: u64) -> u64 {
    fraction64_up(plan.eps_units + plan.common_error + (n as f64) * 2f64.powi(-64))
}

/// An upper bound of `(n - 1)^2/16 + 1`, the chord error of `binom(x, 2)` per unit of |r2|.
fn chord_up(n: u64) -> u64 {
    ((n - 1) * (n - 1)).div_ceil(16) + 1
}

/// `eps_1·2^64` rounded up: `base64 + ⌈|r2|·chord_up(n)·2^64⌉`, all in integers so that the
/// device kernels compute the same value bit for bit. The chord term is the exact product
/// rounded up where `|r2| < 2^-64` (a nearly flat chunk: rounding `|r2|` up to `2^-64` first
/// would add `chord_up(n)·2^-64`, which for the large domains of flat chunks exceeds the
/// threshold itself), else `(top64(|r2|) + 1)·chord_up(n)`. None when it reaches 2^62 (the
/// test cannot pass; the domain fails).
fn affine_eps64(base64: u64, r2: u128, chord: u64) -> Option<u64> {
    let magnitude = (r2 as i128).unsigned_abs();
    let term = if magnitude >> 64 == 0 {
        let product = magnitude * chord as u128;
        (product >> 64) + u128::from(product as u64 != 0)
    } else {
        ((magnitude >> 64) + 1) * chord as u128
    };
    let eps = (base64 as u128) + term;
    (eps < 1 << 62).then_some(eps as u64)
}

/// The phase-1/2 test of `P(x) = r0 + r1·x + r2·binom(x, 2)` over `0 <= x < len <= n`.
/// Returns (passed, main-loop iterations).
#[allow(clippy::too_many_arguments)]
fn affine_test(
    n: u64,
    base64: u64,
    algorithm: Algorithm,
    division_threshold: u32,
    r0: u128,
    r1: u128,
    r2: u128,
    len: u64,
) -> (bool, u64) {
    // Use the chord of the full size n even for a shorter last domain: the bound below holds
    // for every 0 <= x <= n - 1.
    let slope = (n - 2) / 2;
    let n1 = (n - 1) as u128;
    let offset = n1 * n1 / 16;
    let a = r1.wrapping_add(r2.wrapping_mul(slope as u128));
    let c = r0.wrapping_sub(r2.wrapping_mul(offset));
    // |binom(x,2) - slope·x + offset| <= (n-1)^2/16 + 1 (the +1 for flooring the offset), and
    // 64-bit truncation of c and a costs at most 2^-64·n over the domain (in base64).
    let Some(eps64) = affine_eps64(base64, r2, chord_up(n)) else {
        return (false, 0);
    };
    // Two-sided test as in lower_bound::test_domain: approximation c - (-a)·x.
    let b = top64(c).wrapping_add(eps64);
    let outcome = test_lower_bound(
        algorithm,
        top64(a).wrapping_neg(),
        b,
        len,
        2 * eps64,
        division_threshold,
    );
    (outcome.passed, outcome.iterations)
}

/// Phase 2: κ subdomains, each re-centred exactly and tested with its own chord.
#[allow(clippy::too_many_arguments)]
fn phase2(
    plan: &DomainPlan,
    algorithm: Algorithm,
    r0: u128,
    r1: u128,
    r2: u128,
    start: u64,
    len: u64,
    stats: &mut PacketStats,
    candidates: &mut Vec<u64>,
) {
    let m = (plan.n / plan.kappa).max(1);
    let base2 = affine_base64(plan, m);
    let mut s = 0;
    while s < len {
        let sub_len = m.min(len - s);
        // P(x + s) = [r0 + r1·s + r2·binom(s,2)] + [r1 + r2·s]·x + r2·binom(x,2), exactly.
        let s128 = s as u128;
        let binom_s = s128 * s128.saturating_sub(1) / 2;
        let r0s = r0
            .wrapping_add(r1.wrapping_mul(s128))
            .wrapping_add(r2.wrapping_mul(binom_s));
        let r1s = r1.wrapping_add(r2.wrapping_mul(s128));
        stats.phase2.enter(1, sub_len);
        let passed = m >= 8
            && affine_test(
                m,
                base2,
                algorithm,
                plan.division_threshold,
                r0s,
                r1s,
                r2,
                sub_len,
            )
            .0;
        if !passed {
            stats.phase2.fail(1, sub_len);
            phase3(plan, r0s, r1s, r2, start + s, sub_len, stats, candidates);
        }
        s += m;
    }
}

/// Phase 3: every point, exactly (v = P(y), d = P(y+1) - P(y) = r1 + r2·y).
#[allow(clippy::too_many_arguments)]
fn phase3(
    plan: &DomainPlan,
    r0: u128,
    r1: u128,
    r2: u128,
    start: u64,
    len: u64,
    stats: &mut PacketStats,
    candidates: &mut Vec<u64>,
) {
    let t = Instant::now();
    let threshold = plan.threshold3;
    let window = threshold.saturating_mul(2);
    let (mut v, mut d) = (r0, r1);
    let before = candidates.len();
    for y in 0..len {
        // |v cmod 1| < threshold  <=>  {v + threshold} < 2·threshold.
        if v.wrapping_add(threshold) < window || threshold >= 1 << 126 {
            candidates.push(start + y);
        }
        v = v.wrapping_add(d);
        d = d.wrapping_add(r2);
    }
    stats.phase3.enter(1, len);
    let found = (candidates.len() - before) as u64;
    stats.phase3.fail((found > 0) as u64, found);
    stats.phase3.nanos += t.elapsed().as_nanos() as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_round_up() {
        assert!(fraction64_up(2f64.powi(-32)) > 1 << 32);
        assert_eq!(fraction64_up(0.75), 1 << 63);
        assert!(fraction128_up(2f64.powi(-100)) > 1 << 28);
        assert_eq!(fraction128_up(f64::INFINITY), 1 << 127);
        assert_eq!(fraction128_up(f64::NAN), 1 << 127);
    }

    #[test]
    fn advance_tabulates_a_cubic() {
        // i^3 from its differences at 0: 0, 1, 6, 6 (TOMS16 Fig. 8), as integer "fractions".
        let mut t = [0u128, 1, 6, 6];
        for i in 0..20u128 {
            assert_eq!(t[0], i * i * i);
            advance(&mut t, 3);
        }
    }
}
