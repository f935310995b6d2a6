//! Lower-bound tests on 64-bit fixed-point fractions: the filters of Lefèvre's search for
//! hard-to-round cases (HR-cases), and the regular variant of Fortin, Gouicem and Graillat.
//!
//! References:
//! - **[PDP12]** Fortin, Gouicem, Graillat, "Towards solving the Table Maker's Dilemma on GPU",
//!   PDP 2012: §II-C Algorithm 1 (Lefèvre's lower bound computation and test with
//!   subtractive division) and the hybrid division; §III-B2 Algorithm 2 (Lefèvre's algorithm
//!   with swap).
//! - **[TOMS16]** Fortin, Gouicem, Graillat, "GPU-Accelerated Generation of Correctly Rounded
//!   Elementary Functions", ACM TOMS 43(3), 2016: §3.1 (the test, Eq. (1)), §3.2
//!   (three-distance theorem, two-length configurations, Properties 1 and 2), §4.1 Algorithm 1
//!   (Lefèvre), Algorithm 3 (Lefèvre with swap), §4.2 Algorithm 2 (the regular test) and §4.3.3
//!   Algorithm 4 (the regular test unrolled).
//!
//! # The quantity and the test
//!
//! On a domain of N consecutive inputs, the function (scaled so that the rounding breakpoints are
//! the integers) is approximated by an affine function written, as in [TOMS16] §3.1,
//! `b - a·x` for the integers `0 <= x < N`. Only fractional parts matter, so `a` and `b` are
//! fractions of `[0, 1)`, stored here as `u64` values meaning `value / 2^64`. Arithmetic modulo 1
//! is then exactly wrapping `u64` arithmetic: `{b - a·x}`, the positive fractional part
//! ([TOMS16] §3.1 writes it `b - a·x mod 1`), is `b.wrapping_sub(a.wrapping_mul(x))`, with no
//! rounding at all. The algorithms compute (a lower bound on)
//!
//! ```text
//!     d_N = min { {b - a·x} : 0 <= x < N },
//! ```
//!
//! the distance from `{b}` to the nearest point `{a·x}` on its *left* on the unit circle
//! ([TOMS16] end of §3.1). [`min_distance_brute_force`] computes it exactly by enumeration.
//!
//! The Boolean test of [TOMS16] Eq. (1) fails ("the domain may hold HR-cases, send it to the next
//! phase") when `d_N < 2ε''` and succeeds otherwise. HR-cases are two-sided (`|b - a·x cmod 1| <
//! ε''`), and [TOMS16] §3.1 turns them into a one-sided test by shifting: the scaled
//! approximation plus `ε''` is what is called `b - a·x` ("2^{p-q} Q_i(x) + ε'' = b - a·x"), and
//! `y` is within `ε''` of an integer iff `{y + ε''} < 2ε''` (remark after Definition 3.3). So:
//!
//! - the one-sided tests here ([`test_lefevre`] etc., [`test_lower_bound`]) take a `threshold`
//!   and **pass only if** `{b - a·x} >= threshold` for every `0 <= x < N`. The listings of
//!   [PDP12] Alg. 1-2 and [TOMS16] Alg. 1-4 call this threshold `ε''` (or `ε`); in terms of
//!   Eq. (1) it is `2ε''`.
//! - [`test_domain`] is the two-sided HR-case test: given the centre `c` of the approximation
//!   `c - a·x` and the half-width `epsilon`, it runs the one-sided test on `b = c + epsilon`
//!   with threshold `2·epsilon`. It **passes only if** every `x < N` has `c - a·x` at distance
//!   at least `epsilon` from the nearest integer.
//!
//! A failure is always safe (the domain only goes to a more exhaustive phase, [PDP12] §II-B,
//! [TOMS16] §4.1); a pass must never be wrong. Every algorithm here is *sound*: its result is a
//! true lower bound, so a pass is proven.
//!
//! # Two-length configurations ([TOMS16] §3.2, [PDP12] §II-C)
//!
//! Place the points `{a·x}`, `0 <= x < n`, on the unit circle. By the three-distance theorem
//! ([TOMS16] Theorem 3.5) the gaps take at most three lengths, and for O(log n) values of `n`
//! only two ([TOMS16] Eq. (2)). A two-length configuration is described by four numbers, named as
//! in [TOMS16] Alg. 1 (`x, y` in [PDP12]):
//!
//! - `p`: the length of the gaps `[L, L + p)` whose right end is a *later* multiple than the left
//!   one (`p = {P·a}` for some index step `P`: `θ_i` for even `i`, `θ_{i-1,t}` for odd `i`);
//! - `q`: the length of the gaps whose right end is an *earlier* multiple (`q = 1 - {Q·a}`);
//! - `u` and `v`: the number of gaps of length `p` and `q`. The gaps tile the circle,
//!   `u·p + v·q = 1`, and `n = u + v` points `0 <= x < u + v` are placed.
//!
//! The next configurations split the longer gaps (Property 1), always on the same side
//! (Property 2, directed reduction): a gap of length `q > p` becomes `p` then `q - p` (from left
//! to right), and `u` grows by `v`; a gap of length `p > q` becomes `p - q` then `q`, and `v`
//! grows by `u`. Reducing one length by the other `k` times at once is one step of the Euclidean
//! algorithm on `(p, q)`, i.e. one partial quotient of the continued fraction of `a`.
//!
//! The start is the two points `{0, a}`: `p = a`, `q = 1 - a`, `u = v = 1` ([TOMS16] Alg. 1 line
//! 1). In fixed point, `1 = 2^64` is not a `u64`, but `1 - a` is `a.wrapping_neg()` for `a > 0`;
//! `a = 0` (every multiple is 0, `d_N = {b}`) is handled first.
//!
//! `d` (here `dist`) follows `{b}`: it is the distance from `{b}` to the left end of its gap.
//! Splitting a gap of length `q` moves that left end by `p` iff `dist >= p` (the new point is
//! then left of `{b}`); splitting a gap of length `p` moves it by `p - q` iff `dist >= p - q`.
//!
//! # Lefèvre's test ([PDP12] Alg. 1, [TOMS16] Alg. 1): [`lower_bound_lefevre`], [`test_lefevre`]
//!
//! Line numbers below are those of [PDP12] Alg. 1 (`x, y` there are `p, q`); [TOMS16] §4.1
//! describes the same steps. Each main-loop iteration starts just after one single-step split of
//! the gap holding `{b}`, whose effect on `dist` is still pending; line 4, `if d < x`, resolves
//! it ([TOMS16] §4.1: "does d need to be updated?"):
//!
//! - `dist < p` (lines 5-9): `{b}` is in a gap of length `p` and `dist` is exact. The gaps of
//!   length `q` (not `{b}`'s) are reduced by the whole quotient `k = ⌊q/p⌋` (lines 5-7,
//!   `u += k·v`); if `u + v >= N` the test succeeds (line 8); otherwise one more split of the
//!   `p` gaps (line 9: `p -= q`, `v += u`), which may put a point left of `{b}`, pending.
//! - `dist >= p` (lines 11-17): `{b}` is in the right part, a gap of length `q`: `dist -= p`
//!   (line 11), which is now exact, so `dist < threshold` is a proven failure (line 12). Then the
//!   `p` gaps are reduced by `⌊p/q⌋` (lines 13-15, `v += k·u`), the count is tested (line 16),
//!   and one split of the `q` gaps follows (line 17: `q -= p`, `u += v`), pending again.
//!
//! So the gap holding `{b}` is always split one point at a time (the subtraction-based Euclidean
//! algorithm, configurations `(i, t) -> (i, t+1)`), the other one by whole quotients. At the
//! success exit `dist` is **exactly** `min { {b - a·x} : x < u + v }` with `u + v >= N`: the
//! minimum over the multiples placed, which is a lower bound on `d_N` ([TOMS16] §4.1, "n >=
//! |D_i|_p as we compute a lower bound"); [`LowerBound::points`] reports that `u + v`. Each
//! iteration that does not stop places at least one point, so there are at most N iterations; the
//! pathological
//! long runs of single steps (large partial quotients met near `{b}`, [TOMS16] Table III, max
//! 328) are what Lefèvre's "specific instructions", omitted in both papers, avoid; they are
//! omitted here too.
//!
//! Readings of the listings (each checked by the tests in `tests/lower_bound_*.rs`):
//! - [PDP12] Alg. 1 initialises `y <- 1` with `u = v = 1`: one gap of length `x = a` is counted
//!   that is not there (only the point 0 is), and the recurrences amplify the excess, so the
//!   counts run ahead of the points placed and the listing can pass a domain it must fail (with
//!   the listing's stop `u + v >= N` and with the text's "u + v > N" alike; see
//!   `tests/lower_bound_paper_listings.rs`). We use [TOMS16] Alg. 1's `q <- 1 - {a}`: the
//!   configuration {0, a}, where `u = v = 1` is right.
//! - [PDP12] Alg. 1 computes the quotients by subtraction loops that test `u + v >= N` before
//!   each subtraction (lines 5-7 and 13-15); [TOMS16] Alg. 1 computes the whole quotient and tests
//!   once. While the longer gaps not holding `{b}` are reduced, `dist` does not change, so both
//!   give the same `dist` and the same verdict; only `points` can differ. We compute whole
//!   quotients (the [TOMS16] form) with the hybrid division below, so the result does not depend
//!   on the division threshold.
//! - [PDP12] Alg. 1 compares with `<` in the subtraction loops (`while x < y`), which can leave a
//!   remainder equal to the divisor; we use the Euclidean remainder (`< divisor`, [TOMS16]).
//!
//! When `a` has few significant bits its orbit is finite: a length becomes 0 after the last
//! quotient. Then every position is placed and `dist` is the exact minimum over **all** integers
//! `x`; the search stops there ([`LowerBound::exhausted`]) instead of looping on a zero length.
//!
//! # The hybrid division ([PDP12] §II-C, [TOMS16] §4.1)
//!
//! Partial quotients are mostly 0, 1 or 2 ([PDP12] §IV-A; Gauss-Kuzmin), so a few subtractions
//! are cheaper than
//! a hardware division, but a large quotient would cost too many. Lefèvre's hybrid division uses
//! subtractions when the quotient is expected to be small and the division instruction otherwise,
//! with a threshold `k` tuned per architecture (optimum `k = 3` on CPU and GPU, [PDP12] §IV-A and
//! Fig. 4). Here the threshold `division_threshold` is the number of subtractions *tried* before
//! falling back to one hardware division (0: always divide; large: mostly subtractive). [PDP12]
//! estimates the quotient size from the operands' bit lengths (`dividend > 2^k·divisor`); trying
//! subtractions instead bounds the cost of every quotient by `division_threshold` subtractions
//! plus one division, whatever the input. The quotient and remainder, hence every result here, are
//! the same for every threshold.
//!
//! # Lefèvre's test with swap ([PDP12] Alg. 2, [TOMS16] Alg. 3): [`lower_bound_lefevre_swap`]
//!
//! The two branches of Alg. 1 are the same code with `(p, u)` and `(q, v)` exchanged, plus the
//! update of `dist` in the second one. The swap form keeps two variables `(x, y)` (and their
//! counts) equal to `(p, q)` or to `(q, p)`, so that one branch-free body serves both cases, and
//! swaps them only when the branch of Alg. 1 changes ([PDP12] line 15). It computes exactly what
//! Alg. 1 computes (same `dist`, `points`, `iterations`). The listings subtract and compare "x"
//! ("p" in [TOMS16] Alg. 3) at lines 8 and 15; the length meant is the one playing `p` (Alg. 1's
//! `x`), which after a swap sits in the second variable: `dist -= p` and the branch test
//! `dist >= p` use that length. Read literally (the first variable after the swap) line 8 would
//! subtract `q` and can go below zero.
//!
//! # The regular test ([TOMS16] Alg. 2 and 4): [`lower_bound_regular`]
//!
//! The regular test only visits the configurations `(i, 0)` of the division-based Euclidean
//! algorithm ([TOMS16] Eq. (3)): every iteration reduces the longer length by its whole quotient,
//! so the number of iterations is the number of partial quotients of `a` needed to reach N
//! points, nearly the same for neighbouring domains (low loop divergence, [TOMS16] §4.3.2). It
//! starts from the single point `{0}`: `p = a`, `q = 1` (one gap of length 1).
//!
//! Line numbers are those of the [TOMS16] §4.2 text (the listing's are garbled by the conversion).
//!
//! - `p < q` (line 4, lines 5-7): the `q` gaps are split from the left at every multiple of `p`,
//!   so `dist <- dist mod p` is exact wherever `{b}` lies.
//! - `p >= q` (lines 9-12): the `p` gaps are split from the right: the left part keeps length
//!   `p' = p mod q` and `q`-long pieces follow, so `{b}` at `dist >= p'` in a `p` gap moves to
//!   `(dist - p') mod q`. The test does not know whether `{b}` was in a `p` gap or a `q` gap; in a
//!   `q` gap the same update subtracts `p'` early, as if the next configuration `(i+1, 1)` were
//!   already placed ([TOMS16] Fig. 5). That point belongs to the next configuration, so `dist`
//!   is then the distance to a point placed now or next: at most the minimum over the `u + v`
//!   points, and at least the minimum over the next configuration.
//! - after each step, `u + v >= N` ends the test with `dist` ("return d > ε''").
//!
//! So the regular lower bound satisfies
//! `min { {b - a·x} : x < 2·points } <= distance <= min { {b - a·x} : x < points }`, `points >=
//! N`; it equals the right-hand side unless the last step was a `p >= q` step. A whole quotient can
//! overshoot N by a factor up to the quotient (Khinchin: about `3.69·N` points on average,
//! [TOMS16] §4.3.1), so this bound is often weaker than Lefèvre's (more failures, [TOMS16]
//! Table II) but its loop is regular. It is never stronger: Lefèvre's `dist` is exact for the
//! configuration where its stop is tested, and when Lefèvre goes past the first `(i, 0)`
//! configuration with N points (reached by a single split, which is not followed by a count
//! test) the points it adds afterwards are all in gaps not holding `{b}`; so Lefèvre's bound is
//! at least the minimum over the regular test's points, itself at least the regular bound (the
//! tests check `regular <= lefevre` on every random case).
//!
//! Readings of the listings:
//! - [TOMS16] Alg. 2 and 4 initialise `u <- 1, v <- 0` but update `u <- u + k·v` when `q` is
//!   reduced, which keeps `u = 1` after the first quotient and makes `u + v` lag behind the
//!   number of points (`q_{-1} = 0`, `q_0 = 1` belong to the other roles, as the text says "u and
//!   v respectively store q_i and q_{i-1}"). The lag is sound (more points than counted) but
//!   weakens the bound; we use `u = 0` gaps of length `p = a` and `v = 1` gap of length `q = 1`,
//!   with the updates of Alg. 1, so `u + v` is the exact number of points.
//! - Alg. 2 stops at `u + v >= N` and Alg. 4 at `u + v > N`; both are sound with exact counts. We
//!   use `>=` in both, so the two forms compute the same thing.
//! - Alg. 2 ends with `return d > ε''`; with the strict HR-case definition (`dist_p < ε`,
//!   [TOMS16] Def. 3.3) `d >= threshold` is sound and is what Alg. 1 does (`d < ε''` fails), so
//!   all tests here pass iff the lower bound is `>= threshold`.
//! - `q = 1 = 2^64` does not fit a `u64`: the first quotient is computed from `1 - a` as
//!   `⌊(1 - a)/a⌋ + 1`, with remainder `(1 - a) mod a`.
//! - Division by zero ([TOMS16] §4.2, last paragraph: "we only catch the division-by-zero
//!   exception and recover from it"): a zero divisor means the previous quotient was exact, the
//!   orbit of `a` is exhausted, and `dist` (reduced by that exact quotient) is the exact minimum
//!   over all integers `x`. We return it as the bound ([`LowerBound::exhausted`]); it is exact, so the
//!   verdict is the same as an exhaustive search of the domain.
//!
//! The unrolled form (Alg. 4, [`lower_bound_regular_unrolled`]) exploits that the branch of Alg. 2
//! alternates, starting with `p < q`: one loop turn does a `q` step then a `p` step with no branch
//! on the lengths. It computes exactly the same results as Alg. 2; its `iterations` also counts
//! quotients (two per loop turn), so it equals Alg. 2's. Alg. 4 has no initial `d < ε''` check
//! (Alg. 2 line 2); since `dist` never increases, this changes no verdict.
//!
//! # What the functions return
//!
//! [`LowerBound`] carries the bound (`distance`), the number of multiples it covers (`points`)
//! and the main-loop iteration count (`iterations`, the quantity whose normalised mean deviation
//! to the maximum per warp, NMDM, is studied in [PDP12] §III-B1 and [TOMS16] §2.2 and §4.3.2).
//! The tests ([`test_lefevre`] etc.) return a [`TestOutcome`]: they stop early with a failure as
//! soon as `dist < threshold` is proven, like the listings, and their verdict is always
//! `lower bound >= threshold`. No function panics, and every loop ends: Lefèvre's after at most
//! N iterations, the regular ones after at most about 93 quotients (the continued fraction of
//! a 64-bit fraction).
//!
//! [PDP12]: https://hal.science/hal-00642337
//! [TOMS16]: https://doi.org/10.1145/2935746

use std::mem::swap;

/// A lower bound on `min { {b - a·x} : 0 <= x < N }` and how it was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LowerBound {
    /// The bound, a fraction of `[0, 1)` as `value·2^64` (`u64::MAX` for an empty domain, where
    /// the minimum is over nothing).
    pub distance: u64,
    /// The number `n >= N` of multiples the bound covers: `distance <= {b - a·x}` for every
    /// `x < n` (saturated at `u64::MAX`). For Lefèvre's algorithms `distance` is exactly the
    /// minimum over `x < n`; the regular ones may be lower, down to the minimum over `x < 2·n`
    /// (a point of the next configuration, see the module essay).
    pub points: u64,
    /// The orbit of `a` ended (a length became 0) before N points: `distance` is then the exact
    /// minimum over every integer `x`, equal to `min_distance_brute_force(a, b, N)`, and `points`
    /// is `u64::MAX`.
    pub exhausted: bool,
    /// Main-loop iterations: PDP12 Alg. 1 line 3 / TOMS16 Alg. 1 line 4 for Lefèvre's
    /// algorithms, partial quotients (TOMS16 Alg. 2 line 4) for the regular ones.
    pub iterations: u64,
}

/// The verdict of a one-sided test and its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TestOutcome {
    /// True ("Success"): proven `{b - a·x} >= threshold` for every `0 <= x < N`. False
    /// ("Failure"): the domain may hold a closer point and goes to the next phase.
    pub passed: bool,
    /// Main-loop iterations done before the verdict (see [`LowerBound::iterations`]).
    pub iterations: u64,
}

/// The four lower-bound algorithms, for callers that choose at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Lefèvre's test, PDP12 Alg. 1 / TOMS16 Alg. 1.
    Lefevre,
    /// Lefèvre's test with swap, PDP12 Alg. 2 / TOMS16 Alg. 3.
    LefevreSwap,
    /// The regular test, TOMS16 Alg. 2.
    Regular,
    /// The regular test unrolled, TOMS16 Alg. 4.
    RegularUnrolled,
}

impl Algorithm {
    /// Every algorithm, in the order above.
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Lefevre,
        Algorithm::LefevreSwap,
        Algorithm::Regular,
        Algorithm::RegularUnrolled,
    ];

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Lefevre => "lefevre",
            Algorithm::LefevreSwap => "lefevre-swap",
            Algorithm::Regular => "regular",
            Algorithm::RegularUnrolled => "regular-unrolled",
        }
    }
}

/// Exact `min { {b - a·x} : 0 <= x < n }` by enumeration (`u64::MAX` when `n = 0`), in wrapping
/// arithmetic, which is arithmetic modulo 1 on 64-bit fractions. O(n); the reference for tests.
pub fn min_distance_brute_force(a: u64, b: u64, n: u64) -> u64 {
    let mut minimum = u64::MAX;
    let mut value = b;
    for _ in 0..n {
        minimum = minimum.min(value);
        value = value.wrapping_sub(a);
    }
    minimum
}

/// Lefèvre's lower bound (PDP12 Alg. 1 with the hybrid division, TOMS16 Alg. 1), run to the
/// end. `distance` is exactly `min { {b - a·x} : x < points }` with `points >= n` (or the
/// minimum over all `x` when `exhausted`), hence a lower bound on the minimum over
/// `x < n`. `division_threshold`: subtractions tried per quotient before dividing (0: always
/// divide); it changes the speed only.
pub fn lower_bound_lefevre(a: u64, b: u64, n: u64, division_threshold: u32) -> LowerBound {
    lefevre(a, b, n, 0, division_threshold).lower_bound()
}

/// Lefèvre's lower bound with swap (PDP12 Alg. 2, TOMS16 Alg. 3): the same result as
/// [`lower_bound_lefevre`] (bound, points and iterations), with one branch-free loop body.
pub fn lower_bound_lefevre_swap(a: u64, b: u64, n: u64, division_threshold: u32) -> LowerBound {
    lefevre_swap(a, b, n, 0, division_threshold).lower_bound()
}

/// The regular lower bound (TOMS16 Alg. 2). A lower bound on the minimum over `x < n`, at most
/// the minimum over `x < points` and at least the minimum over `x < 2·points` (exact over all
/// `x` when `exhausted`). `iterations` is the number of partial quotients computed.
pub fn lower_bound_regular(a: u64, b: u64, n: u64, division_threshold: u32) -> LowerBound {
    regular(a, b, n, 0, division_threshold).lower_bound()
}

/// The regular lower bound unrolled (TOMS16 Alg. 4): the same result as
/// [`lower_bound_regular`], with no branch on the lengths in the loop.
pub fn lower_bound_regular_unrolled(a: u64, b: u64, n: u64, division_threshold: u32) -> LowerBound {
    regular_unrolled(a, b, n, division_threshold).lower_bound()
}

/// Lefèvre's test (PDP12 Alg. 1, TOMS16 Alg. 1): passes iff its lower bound is
/// `>= threshold`, proving `{b - a·x} >= threshold` for all `x < n`; fails as soon as a placed
/// multiple is proven closer than `threshold`.
pub fn test_lefevre(
    a: u64,
    b: u64,
    n: u64,
    threshold: u64,
    division_threshold: u32,
) -> TestOutcome {
    lefevre(a, b, n, threshold, division_threshold).outcome(threshold)
}

/// Lefèvre's test with swap (PDP12 Alg. 2, TOMS16 Alg. 3): the same verdict and iteration
/// count as [`test_lefevre`].
pub fn test_lefevre_swap(
    a: u64,
    b: u64,
    n: u64,
    threshold: u64,
    division_threshold: u32,
) -> TestOutcome {
    lefevre_swap(a, b, n, threshold, division_threshold).outcome(threshold)
}

/// The regular test (TOMS16 Alg. 2): passes iff [`lower_bound_regular`] is `>= threshold`.
pub fn test_regular(
    a: u64,
    b: u64,
    n: u64,
    threshold: u64,
    division_threshold: u32,
) -> TestOutcome {
    regular(a, b, n, threshold, division_threshold).outcome(threshold)
}

/// The regular test unrolled (TOMS16 Alg. 4): the same verdict as [`test_regular`].
pub fn test_regular_unrolled(
    a: u64,
    b: u64,
    n: u64,
    threshold: u64,
    division_threshold: u32,
) -> TestOutcome {
    regular_unrolled(a, b, n, division_threshold).outcome(threshold)
}

/// The lower bound of `algorithm` (see the `lower_bound_*` functions).
pub fn lower_bound(
    algorithm: Algorithm,
    a: u64,
    b: u64,
    n: u64,
    division_threshold: u32,
) -> LowerBound {
    match algorithm {
        Algorithm::Lefevre => lower_bound_lefevre(a, b, n, division_threshold),
        Algorithm::LefevreSwap => lower_bound_lefevre_swap(a, b, n, division_threshold),
        Algorithm::Regular => lower_bound_regular(a, b, n, division_threshold),
        Algorithm::RegularUnrolled => lower_bound_regular_unrolled(a, b, n, division_threshold),
    }
}

/// The one-sided test of `algorithm`: passes only if `{b - a·x} >= threshold` for every
/// `0 <= x < n` (TOMS16 Eq. (1) with `threshold = 2ε''`; see the `test_*` functions). Where
/// the points do not go round the circle, every algorithm takes the exact distance of
/// [`short_orbit_distance`] (one iteration).
pub fn test_lower_bound(
    algorithm: Algorithm,
    a: u64,
    b: u64,
    n: u64,
    threshold: u64,
    division_threshold: u32,
) -> TestOutcome {
    if let Some(distance) = short_orbit_distance(a, b, n) {
        return TestOutcome {
            passed: distance >= threshold,
            iterations: 1,
        };
    }
    match algorithm {
        Algorithm::Lefevre => test_lefevre(a, b, n, threshold, division_threshold),
        Algorithm::LefevreSwap => test_lefevre_swap(a, b, n, threshold, division_threshold),
        Algorithm::Regular => test_regular(a, b, n, threshold, division_threshold),
        Algorithm::RegularUnrolled => test_regular_unrolled(a, b, n, threshold, division_threshold),
    }
}

/// `d_N` exactly, in one step, when the `n` points `{a·x}` do not go round the circle:
/// `min(a, 1 - a)·(n - 1) < 1`. Where the function is nearly flat over a domain (exp next to
/// 1, every slope below 2^-30 units per input), the first partial quotient of `a` exceeds `n`
/// many times over; the regular test then bounds `d` over that many points instead of `n`,
/// a true but useless bound, and Lefèvre's test places the points one subtraction at a time.
/// Here the values `{b - a·x}` move one way by less than a turn:
///
/// - `a·(n - 1) < 1`: they fall from `{b}` by `a` per step and pass 0 at most once, so
///   `d_N = b - a·(n - 1)` when they do not, else `b mod a` (the last value before 0; those
///   after it lie above `b`);
/// - `(1 - a)·(n - 1) < 1`: they rise from `{b}` by `1 - a` and pass 1 at most once, so
///   `d_N = b` when they do not, else the first value past 1, `(1 - a) - ((1 - b) mod (1 - a))`
///   (0 when that remainder is 0), which is below `b`.
///
/// `None` when neither holds (or `a = 0`, `n = 0`: the algorithms' own first lines).
pub fn short_orbit_distance(a: u64, b: u64, n: u64) -> Option<u64> {
    if n == 0 || a == 0 {
        return None;
    }
    let steps = n - 1;
    // One multiplication decides the usual case (neither side within a turn): this runs
    // before every lower-bound test.
    a.min(a.wrapping_neg()).checked_mul(steps)?;
    if let Some(fall) = a.checked_mul(steps) {
        return Some(if fall <= b { b - fall } else { b % a });
    }
    // Here (1 - a)·(n - 1) < 1.
    let rise = a.wrapping_neg();
    if b.checked_add(rise * steps).is_some() {
        return Some(b);
    }
    let to_one = (1u128 << 64) - b as u128;
    let past = (to_one % rise as u128) as u64;
    Some(if past == 0 { 0 } else { rise - past })
}

/// The two-sided HR-case test of a domain (TOMS16 §3.1): the affine approximation is
/// `center - a·x` for `0 <= x < n` (fractions as `value·2^64`; for an approximation
/// `c0 + c1·x` pass `a = c1.wrapping_neg()`). Returns true (pass) only if every `x < n` has
/// `center - a·x` at distance `>= epsilon` from the nearest integer, i.e. the domain holds no
/// case closer than `epsilon`; false sends the domain to the next phase. It runs the one-sided
/// test on `b = center + epsilon` with threshold `2·epsilon` (`{y + ε} < 2ε` iff `y` is in
/// `[-ε, ε)` modulo 1). `epsilon >= 1/2` always fails (unless `n = 0`).
pub fn test_domain(
    algorithm: Algorithm,
    a: u64,
    center: u64,
    n: u64,
    epsilon: u64,
    division_threshold: u32,
) -> bool {
    let Some(threshold) = epsilon.checked_mul(2) else {
        return n == 0;
    };
    let b = center.wrapping_add(epsilon);
    test_lower_bound(algorithm, a, b, n, threshold, division_threshold).passed
}

/// How a search loop ended.
enum Stop {
    /// With a lower bound: `u + v >= N` points were placed, or the orbit was exhausted.
    Bound(LowerBound),
    /// Early, with a placed multiple proven closer than the threshold (the listings' "return
    /// Failure" inside the loop).
    Failure { iterations: u64 },
}

impl Stop {
    fn bound(distance: u64, points: u64, iterations: u64) -> Stop {
        Stop::Bound(LowerBound {
            distance,
            points,
            exhausted: false,
            iterations,
        })
    }

    /// The orbit of `a` is exhausted: `distance` is the minimum over every integer `x`.
    fn exhausted(distance: u64, iterations: u64) -> Stop {
        Stop::Bound(LowerBound {
            distance,
            points: u64::MAX,
            exhausted: true,
            iterations,
        })
    }

    /// The always-sound bound 0, for paths the algorithms exclude (a zero divisor in Lefèvre's).
    fn trivial(iterations: u64) -> Stop {
        Stop::bound(0, u64::MAX, iterations)
    }

    /// The lower bound; with threshold 0 no early failure can happen, and any other failure
    /// maps to the always-sound bound 0.
    fn lower_bound(self) -> LowerBound {
        match self {
            Stop::Bound(bound) => bound,
            Stop::Failure { iterations } => LowerBound {
                distance: 0,
                points: u64::MAX,
                exhausted: false,
                iterations,
            },
        }
    }

    /// The test verdict: pass iff the lower bound reached is `>= threshold`.
    fn outcome(self, threshold: u64) -> TestOutcome {
        match self {
            Stop::Bound(bound) => TestOutcome {
                passed: bound.distance >= threshold,
                iterations: bound.iterations,
            },
            Stop::Failure { iterations } => TestOutcome {
                passed: false,
                iterations,
            },
        }
    }
}

/// The inputs no algorithm needs to loop on: an empty domain (`n = 0`, the minimum over nothing)
/// and `a = 0` (every multiple is 0, so the exact minimum is `b`).
fn empty_or_constant(a: u64, b: u64, n: u64) -> Option<Stop> {
    if n == 0 {
        return Some(Stop::bound(u64::MAX, 0, 0));
    }
    if a == 0 {
        return Some(Stop::exhausted(b, 0));
    }
    None
}

/// Quotient and remainder of `dividend / divisor` by Lefèvre's hybrid division (PDP12 §II-C):
/// up to `max_subtractions` subtractions, then one hardware division if the remainder is still
/// `>= divisor`. `None` for a zero divisor (the "division by zero" of TOMS16 §4.2).
#[inline(always)]
fn hybrid_div_rem(dividend: u64, divisor: u64, max_subtractions: u32) -> Option<(u64, u64)> {
    if divisor == 0 {
        return None;
    }
    let mut quotient = 0u64;
    let mut remainder = dividend;
    let mut tries_left = max_subtractions;
    while remainder >= divisor {
        if tries_left == 0 {
            return Some((quotient + remainder / divisor, remainder % divisor));
        }
        remainder -= divisor;
        quotient += 1;
        tries_left -= 1;
    }
    Some((quotient, remainder))
}

/// `dividend mod divisor` by the hybrid division; 0 (the always-sound distance) for a zero
/// divisor, which the callers exclude.
#[inline(always)]
fn hybrid_rem(dividend: u64, divisor: u64, max_subtractions: u32) -> u64 {
    hybrid_div_rem(dividend, divisor, max_subtractions).map_or(0, |(_, remainder)| remainder)
}

/// `count + quotient·other_count`, saturating: a saturated count is `>= N` for every `N`, which is
/// the only use of the counts.
#[inline(always)]
fn add_multiple(count: u64, quotient: u64, other_count: u64) -> u64 {
    count.saturating_add(quotient.saturating_mul(other_count))
}

/// PDP12 Alg. 1 / TOMS16 Alg. 1; `threshold` 0 gives the plain lower bound.
#[inline(always)]
fn lefevre(a: u64, b: u64, n: u64, threshold: u64, max_subtractions: u32) -> Stop {
    if let Some(stop) = empty_or_constant(a, b, n) {
        return stop;
    }
    // Line 1 ([TOMS16] Alg. 1's q = 1 - a): the configuration {0, a}; `dist` = d, the distance
    // from {b} to the point 0.
    let (mut p, mut q) = (a, a.wrapping_neg());
    let (mut u, mut v) = (1u64, 1u64);
    let mut dist = b;
    // Line 2.
    if dist < threshold {
        return Stop::Failure { iterations: 0 };
    }
    let mut iterations = 0u64;
    loop {
        iterations += 1;
        if dist < p {
            // [PDP12] lines 5-9: {b} in a gap of length p (dist exact, and p > dist >= 0).
            let Some((quotient, remainder)) = hybrid_div_rem(q, p, max_subtractions) else {
                return Stop::trivial(iterations);
            };
            q = remainder;
            u = add_multiple(u, quotient, v);
            let points = u.saturating_add(v);
            if points >= n {
                return Stop::bound(dist, points, iterations);
            }
            if q == 0 {
                return Stop::exhausted(dist, iterations);
            }
            p -= q; // q < p: one split of the p gaps, pending for {b}.
            v += u; // u + v < n: no overflow.
        } else {
            // [PDP12] lines 11-17: {b} in the right part, a gap of length q.
            dist -= p;
            if dist < threshold {
                return Stop::Failure { iterations };
            }
            let Some((quotient, remainder)) = hybrid_div_rem(p, q, max_subtractions) else {
                return Stop::trivial(iterations);
            };
            p = remainder;
            v = add_multiple(v, quotient, u);
            let points = u.saturating_add(v);
            if points >= n {
                return Stop::bound(dist, points, iterations);
            }
            if p == 0 {
                return Stop::exhausted(dist, iterations);
            }
            q -= p; // p < q: one split of the q gaps, pending for {b}.
            u += v;
        }
    }
}

/// PDP12 Alg. 2 / TOMS16 Alg. 3. `(x, y)` and their counts `(count_x, count_y)` hold
/// `(p, q)` and `(u, v)` of Alg. 1, or `(q, p)` and `(v, u)` when `swapped`; the body is Alg. 1's
/// first branch on `(x, y)`.
#[inline(always)]
fn lefevre_swap(a: u64, b: u64, n: u64, threshold: u64, max_subtractions: u32) -> Stop {
    if let Some(stop) = empty_or_constant(a, b, n) {
        return stop;
    }
    // Line 1.
    let (mut x, mut y) = (a, a.wrapping_neg());
    let (mut count_x, mut count_y) = (1u64, 1u64);
    let mut dist = b;
    // Line 2.
    if dist < threshold {
        return Stop::Failure { iterations: 0 };
    }
    // Lines 3-5: take Alg. 1's second branch iff dist >= p.
    let mut swapped = dist >= x;
    if swapped {
        swap(&mut x, &mut y);
        swap(&mut count_x, &mut count_y);
    }
    let mut iterations = 0u64;
    loop {
        iterations += 1;
        // Lines 7-9: p, the length subtracted by Alg. 1 line 11, is y after a swap.
        if swapped {
            dist -= y;
            if dist < threshold {
                return Stop::Failure { iterations };
            }
        }
        // Lines 10-14 (Alg. 1 lines 5-9 on (x, y)); x > 0 (x = p > dist, or x = q).
        let Some((quotient, remainder)) = hybrid_div_rem(y, x, max_subtractions) else {
            return Stop::trivial(iterations);
        };
        y = remainder;
        count_x = add_multiple(count_x, quotient, count_y);
        let points = count_x.saturating_add(count_y);
        if points >= n {
            return Stop::bound(dist, points, iterations);
        }
        if y == 0 {
            return Stop::exhausted(dist, iterations);
        }
        x -= y;
        count_y += count_x;
        // Lines 15-17: swap only when Alg. 1's branch condition dist >= p changes.
        let p = if swapped { y } else { x };
        if swapped != (dist >= p) {
            swap(&mut x, &mut y);
            swap(&mut count_x, &mut count_y);
            swapped = !swapped;
        }
    }
}

/// The regular test's first step (TOMS16 Alg. 2 lines 5-7, Alg. 4 lines 3-6) from the
/// configuration {0} (`p = a`, `q = 1`, `u = 0` gaps of length p, `v = 1` of length q), with
/// `q = 1 = 2^64` reduced as `⌊(1 - a)/a⌋ + 1`. Returns `(q, u, dist)` after it (`p = a`, `v = 1`
/// unchanged). Requires `a > 0`.
#[inline(always)]
fn regular_first_step(a: u64, b: u64, max_subtractions: u32) -> (u64, u64, u64) {
    let (quotient, q) = hybrid_div_rem(a.wrapping_neg(), a, max_subtractions).unwrap_or((0, 0));
    let u = quotient.saturating_add(1);
    let dist = hybrid_rem(b, a, max_subtractions);
    (q, u, dist)
}

/// TOMS16 Alg. 2; `threshold` is only used by line 2.
#[inline(always)]
fn regular(a: u64, b: u64, n: u64, threshold: u64, max_subtractions: u32) -> Stop {
    if let Some(stop) = empty_or_constant(a, b, n) {
        return stop;
    }
    // Line 2.
    if b < threshold {
        return Stop::Failure { iterations: 0 };
    }
    // Line 1 and the first loop iteration (p < q = 1).
    let (mut p, mut v) = (a, 1u64);
    let (mut q, mut u, mut dist) = regular_first_step(a, b, max_subtractions);
    let mut iterations = 1u64;
    let mut points = u.saturating_add(v);
    while points < n {
        iterations += 1;
        if p < q {
            // Lines 5-7: reduce q by p; every gap is split from the left.
            let Some((quotient, remainder)) = hybrid_div_rem(q, p, max_subtractions) else {
                return Stop::exhausted(dist, iterations);
            };
            q = remainder;
            u = add_multiple(u, quotient, v);
            dist = hybrid_rem(dist, p, max_subtractions);
        } else {
            // Lines 9-12: reduce p by q; p gaps are split from the right.
            let Some((quotient, remainder)) = hybrid_div_rem(p, q, max_subtractions) else {
                return Stop::exhausted(dist, iterations);
            };
            p = remainder;
            v = add_multiple(v, quotient, u);
            if dist >= p {
                dist = hybrid_rem(dist - p, q, max_subtractions);
            }
        }
        // The exit test, "if u + v >= N then return d > ε''".
        points = u.saturating_add(v);
    }
    Stop::bound(dist, points, iterations)
}

/// TOMS16 Alg. 4: Alg. 2 with its alternating branch unrolled (a `p` step, then a `q` step).
#[inline(always)]
fn regular_unrolled(a: u64, b: u64, n: u64, max_subtractions: u32) -> Stop {
    if let Some(stop) = empty_or_constant(a, b, n) {
        return stop;
    }
    // Line 1 and lines 3-6 of the first turn (q = 1).
    let (mut p, mut v) = (a, 1u64);
    let (mut q, mut u, mut dist) = regular_first_step(a, b, max_subtractions);
    let mut iterations = 1u64;
    loop {
        let points = u.saturating_add(v);
        if points >= n {
            return Stop::bound(dist, points, iterations);
        }
        // Lines 8-12.
        iterations += 1;
        let Some((quotient, remainder)) = hybrid_div_rem(p, q, max_subtractions) else {
            return Stop::exhausted(dist, iterations);
        };
        p = remainder;
        v = add_multiple(v, quotient, u);
        if dist >= p {
            dist = hybrid_rem(dist - p, q, max_subtractions);
        }
        let points = u.saturating_add(v);
        if points >= n {
            return Stop::bound(dist, points, iterations);
        }
        // Lines 3-6.
        iterations += 1;
        let Some((quotient, remainder)) = hybrid_div_rem(q, p, max_subtractions) else {
            return Stop::exhausted(dist, iterations);
        };
        q = remainder;
        u = add_multiple(u, quotient, v);
        dist = hybrid_rem(dist, p, max_subtractions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const THRESHOLDS: [u32; 4] = [0, 1, 3, 64];

    fn all_bounds(a: u64, b: u64, n: u64) -> Vec<LowerBound> {
        let mut bounds = Vec::new();
        for algorithm in Algorithm::ALL {
            for threshold in THRESHOLDS {
                bounds.push(lower_bound(algorithm, a, b, n, threshold));
            }
        }
        bounds
    }

    #[test]
    fn hybrid_division_matches_hardware_division() {
        for (dividend, divisor) in [(0, 1), (7, 7), (100, 7), (u64::MAX, 1), (u64::MAX, 3)] {
            for threshold in [0, 1, 2, 3, 20, 1000] {
                assert_eq!(
                    hybrid_div_rem(dividend, divisor, threshold),
                    Some((dividend / divisor, dividend % divisor))
                );
            }
        }
        assert_eq!(hybrid_div_rem(5, 0, 3), None);
    }

    #[test]
    fn empty_domain_passes_every_test() {
        for algorithm in Algorithm::ALL {
            assert_eq!(lower_bound(algorithm, 5, 0, 0, 3).distance, u64::MAX);
            assert!(test_lower_bound(algorithm, 5, 0, 0, u64::MAX, 3).passed);
            assert!(test_domain(algorithm, 5, 0, 0, 1 << 40, 3));
        }
    }

    #[test]
    fn zero_slope_gives_b() {
        for bound in all_bounds(0, 12345, 1 << 15) {
            assert_eq!(bound.distance, 12345);
        }
    }

    #[test]
    fn half_slope_is_exact_after_the_orbit_ends() {
        // a = 1/2: the multiples are 0 and 1/2 only.
        let b = (1u64 << 63) + 77;
        for bound in all_bounds(1 << 63, b, 1000) {
            assert_eq!(bound.distance, 77);
        }
    }

    #[test]
    fn lefevre_and_regular_examples_against_brute_force() {
        let a = 0x9E37_79B9_7F4A_7C15; // 2^64 / golden ratio: all partial quotients 1
        let b = 0x1234_5678_9ABC_DEF0;
        for n in [1, 2, 3, 10, 100, 1000] {
            let exact = min_distance_brute_force(a, b, n);
            for bound in all_bounds(a, b, n) {
                assert!(bound.distance <= exact);
                assert!(bound.points >= n);
            }
            let lefevre = lower_bound_lefevre(a, b, n, 3);
            assert_eq!(
                lefevre.distance,
                min_distance_brute_force(a, b, lefevre.points)
            );
        }
    }
}
