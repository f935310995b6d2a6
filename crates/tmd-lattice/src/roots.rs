//! Exact integer roots of a univariate polynomial with integer coefficients
//! inside a bounded range `[lo, hi]`.
//!
//! Method: Descartes' rule of signs with bisection on integer endpoints
//! (Vincent–Collins–Akritas style). For an open interval `(a, b)` with
//! integer ends, the polynomial `Q(y) = (1 + y)^D p((a y + b) / (1 + y))`
//! maps the positive half-line `y > 0` onto `(a, b)` bijectively, so the
//! number of sign variations in the coefficients of `Q` is an upper bound
//! (of the same parity) on the number of roots of `p` in `(a, b)`, counted
//! with multiplicity. Zero variations prove that `(a, b)` holds no root, and
//! the interval is dropped. Otherwise the interval is split at an integer
//! midpoint `m`, `p(m)` is tested exactly, and both halves are searched again.
//! An interval of width 1 holds no integer in its interior, so the search
//! stops there. The ends `lo` and `hi` are tested by exact evaluation.
//!
//! Why it is exact: `Q` is obtained with integer operations only (a Taylor
//! shift by `a`, a scaling by `b - a`, a reversal and a Taylor shift by 1),
//! all evaluations are exact big-integer Horner evaluations, and an interval
//! is only discarded when Descartes' rule proves it root-free. No floating
//! point and no root bound heuristics are involved, so no root can be missed,
//! whatever its multiplicity or the size of the coefficients.
//!
//! Cost: every examined interval costs `O(D^2)` big-integer operations, and
//! only intervals near (possibly complex) roots survive a level, so a few
//! roots in a range of width `W` cost `O(roots * log W * D^2)` operations.

use rug::Integer;

/// Evaluates `p(t)` exactly with Horner's rule. `p[a]` is the coefficient of
/// `t^a`; an empty slice is the zero polynomial.
pub fn eval(p: &[Integer], t: &Integer) -> Integer {
    let mut value = Integer::new();
    for coefficient in p.iter().rev() {
        value *= t;
        value += coefficient;
    }
    value
}

/// Returns every integer `t` with `lo <= t <= hi` and `p(t) = 0`, in
/// increasing order, each once (multiple roots are reported once).
///
/// `p[a]` is the coefficient of `t^a`; trailing zero coefficients are
/// allowed. Returns `None` when `p` is identically zero, because then every
/// `t` is a root and the caller must decide what that means. An empty range
/// (`lo > hi`) or a nonzero constant polynomial gives `Some(vec![])`.
/// Any `i64` bounds are accepted, including the full `i64` range.
pub fn integer_roots(p: &[Integer], lo: i64, hi: i64) -> Option<Vec<i64>> {
    let degree = p.iter().rposition(|c| *c != 0)?;
    let p = &p[..=degree];
    let mut roots = Vec::new();
    if degree == 0 || lo > hi {
        return Some(roots);
    }
    for end in [lo, hi] {
        if is_root(p, end) {
            roots.push(end);
        }
    }
    search_open_interval(p, lo, hi, &mut roots);
    roots.sort_unstable();
    roots.dedup();
    Some(roots)
}

/// Exact test `p(t) = 0` at an `i64` point.
fn is_root(p: &[Integer], t: i64) -> bool {
    eval(p, &Integer::from(t)) == 0
}

/// Pushes onto `roots` every integer root of `p` strictly inside `(lo, hi)`.
/// Uses an explicit stack so that the depth (up to 64 halvings) never
/// depends on the call stack.
fn search_open_interval(p: &[Integer], lo: i64, hi: i64, roots: &mut Vec<i64>) {
    let mut pending = vec![(lo, hi)];
    while let Some((a, b)) = pending.pop() {
        let width = i128::from(b) - i128::from(a);
        // Width 0 or 1: no integer lies strictly between a and b.
        if width < 2 || !may_have_root_inside(p, a, b) {
            continue;
        }
        let mid = integer_midpoint(a, b);
        if is_root(p, mid) {
            roots.push(mid);
        }
        pending.push((a, mid));
        pending.push((mid, b));
    }
}

/// Integer strictly between `a` and `b`, near the middle; needs `b - a >= 2`.
/// Computed in `i128` so that `b - a` cannot overflow.
fn integer_midpoint(a: i64, b: i64) -> i64 {
    let mid = i128::from(a) + (i128::from(b) - i128::from(a)) / 2;
    // a < mid < b, so the value fits in i64 and the fallback is never used.
    i64::try_from(mid).unwrap_or(a)
}

/// Descartes test on the open interval `(a, b)`, `a < b`: `false` proves
/// that `p` has no real root there; `true` means it may have one.
fn may_have_root_inside(p: &[Integer], a: i64, b: i64) -> bool {
    sign_variations(&descartes_transform(p, a, b)) > 0
}

/// Coefficients of `(1 + y)^D p((a y + b) / (1 + y))` where `D = p.len() - 1`,
/// whose positive roots correspond one to one to the roots of `p` in `(a, b)`.
///
/// Built as `P(s) = p(a + (b - a) s)` (roots in `(0, 1)`), then
/// `y^D P(1 / y)` (roots in `(1, inf)`), then a shift `y -> y + 1`.
fn descartes_transform(p: &[Integer], a: i64, b: i64) -> Vec<Integer> {
    let mut q = p.to_vec();
    taylor_shift(&mut q, a);
    let width = Integer::from(b) - a;
    scale_variable(&mut q, &width);
    q.reverse();
    taylor_shift(&mut q, 1);
    q
}

/// Replaces `q(x)` by `q(x + c)` in place with `O(D^2)` multiply-adds
/// (repeated synthetic division by `x - c`, exact in the integers).
fn taylor_shift(q: &mut [Integer], c: i64) {
    if c == 0 {
        return;
    }
    let len = q.len();
    for start in 0..len.saturating_sub(1) {
        for j in (start..len - 1).rev() {
            let (low, high) = q.split_at_mut(j + 1);
            if c == 1 {
                low[j] += &high[0];
            } else {
                low[j] += &high[0] * c;
            }
        }
    }
}

/// Replaces `q(x)` by `q(w x)`: the coefficient of `x^i` is multiplied by `w^i`.
fn scale_variable(q: &mut [Integer], w: &Integer) {
    let mut power = Integer::from(1);
    for coefficient in q.iter_mut().skip(1) {
        power *= w;
        *coefficient *= &power;
    }
}

/// Number of sign changes in the sequence of nonzero coefficients.
fn sign_variations(q: &[Integer]) -> usize {
    let mut previous_sign = std::cmp::Ordering::Equal;
    let mut variations = 0;
    for coefficient in q {
        let sign = coefficient.cmp0();
        if sign == std::cmp::Ordering::Equal {
            continue;
        }
        if previous_sign != std::cmp::Ordering::Equal && sign != previous_sign {
            variations += 1;
        }
        previous_sign = sign;
    }
    variations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::mul;
    use crate::poly::testing::{poly, random_integer, random_poly};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn from_roots(roots: &[i64]) -> Vec<Integer> {
        roots.iter().fold(poly(&[1]), |acc, &r| {
            mul(&acc, &[-Integer::from(r), Integer::from(1)])
        })
    }

    /// `f^2 + 1` has no real root; degree `2 * degree`, about `2 * bits` bits.
    fn rootless_factor(rng: &mut ChaCha8Rng, degree: usize, bits: u32) -> Vec<Integer> {
        let f = random_poly(rng, degree, bits);
        let mut square = mul(&f, &f);
        square[0] += 1;
        square
    }

    fn brute_force(p: &[Integer], lo: i64, hi: i64) -> Vec<i64> {
        (lo..=hi).filter(|&t| is_root(p, t)).collect()
    }

    fn sorted_unique(values: &[i64]) -> Vec<i64> {
        let mut values = values.to_vec();
        values.sort_unstable();
        values.dedup();
        values
    }

    #[test]
    fn eval_matches_direct_sum() {
        let p = poly(&[7, -3, 0, 2]);
        assert_eq!(eval(&p, &Integer::from(-2)), 7 + 6 - 16);
        assert_eq!(eval(&[], &Integer::from(5)), 0);
    }

    #[test]
    fn zero_polynomial_is_none() {
        assert_eq!(integer_roots(&[], -5, 5), None);
        assert_eq!(integer_roots(&poly(&[0, 0, 0]), -5, 5), None);
    }

    #[test]
    fn nonzero_constant_has_no_roots() {
        assert_eq!(integer_roots(&poly(&[-3, 0, 0]), -100, 100), Some(vec![]));
    }

    #[test]
    fn empty_and_single_point_ranges() {
        let p = poly(&[-4, 1]);
        assert_eq!(integer_roots(&p, 5, 3), Some(vec![]));
        assert_eq!(integer_roots(&p, 4, 4), Some(vec![4]));
        assert_eq!(integer_roots(&p, 3, 3), Some(vec![]));
        assert_eq!(integer_roots(&p, 3, 4), Some(vec![4]));
    }

    #[test]
    fn no_real_roots() {
        let p = poly(&[1, 0, 1, 0, 1]);
        assert_eq!(integer_roots(&p, -1 << 40, 1 << 40), Some(vec![]));
    }

    #[test]
    fn double_and_triple_roots() {
        let p = mul(&from_roots(&[5, 5, -7, -7, -7]), &poly(&[1, 0, 1]));
        assert_eq!(integer_roots(&p, -100, 100), Some(vec![-7, 5]));
        // A double root at 1/2 is real but not an integer.
        let half_squared = poly(&[1, -4, 4]);
        assert_eq!(integer_roots(&half_squared, -100, 100), Some(vec![]));
    }

    #[test]
    fn roots_at_range_ends_and_zero() {
        let p = mul(&from_roots(&[-17, 0, 0, 23]), &poly(&[3, 1, 1]));
        assert_eq!(integer_roots(&p, -17, 23), Some(vec![-17, 0, 23]));
        assert_eq!(integer_roots(&p, -16, 22), Some(vec![0]));
        assert_eq!(integer_roots(&p, -18, 24), Some(vec![-17, 0, 23]));
    }

    #[test]
    fn roots_just_outside_range_are_excluded() {
        let p = from_roots(&[-1001, 1001, 3]);
        assert_eq!(integer_roots(&p, -1000, 1000), Some(vec![3]));
        assert_eq!(integer_roots(&p, 4, 1000), Some(vec![]));
    }

    #[test]
    fn full_i64_range() {
        let p = from_roots(&[i64::MIN, i64::MAX, 12345, -1]);
        let expected = vec![i64::MIN, -1, 12345, i64::MAX];
        assert_eq!(integer_roots(&p, i64::MIN, i64::MAX), Some(expected));
        let inner = integer_roots(&p, i64::MIN + 1, i64::MAX - 1);
        assert_eq!(inner, Some(vec![-1, 12345]));
    }

    #[test]
    fn planted_roots_with_positive_quadratic_cofactors() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..20 {
            let planted: Vec<i64> = (0..5)
                .map(|_| rng.gen_range(-1_000_000..=1_000_000))
                .collect();
            let mut p = from_roots(&planted);
            for _ in 0..3 {
                let c = random_integer(&mut rng, 200).abs() + 1u32;
                p = mul(&p, &[c, Integer::new(), Integer::from(1)]);
            }
            let got = integer_roots(&p, -1 << 20, 1 << 20);
            assert_eq!(got, Some(sorted_unique(&planted)));
        }
    }

    #[test]
    fn planted_roots_with_big_rootless_cofactor() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..10 {
            let planted: Vec<i64> = (0..4)
                .map(|_| rng.gen_range(-(1 << 30)..=1 << 30))
                .collect();
            let p = mul(&from_roots(&planted), &rootless_factor(&mut rng, 6, 100));
            let got = integer_roots(&p, -(1 << 30), 1 << 30);
            assert_eq!(got, Some(sorted_unique(&planted)));
        }
    }

    #[test]
    fn degree_40_with_300_bit_coefficients() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let bound = 1i64 << 35;
        let planted: Vec<i64> = (0..3).map(|_| rng.gen_range(-bound..=bound)).collect();
        // Cofactor (2t + 1)(f^2 + 1): a real non-integer root and 36 complex ones.
        let cofactor = mul(&poly(&[1, 2]), &rootless_factor(&mut rng, 18, 150));
        let p = mul(&from_roots(&planted), &cofactor);
        assert_eq!(p.len(), 41);
        assert!(p.iter().any(|c| c.significant_bits() >= 290));
        let got = integer_roots(&p, -bound, bound);
        assert_eq!(got, Some(sorted_unique(&planted)));
    }

    #[test]
    fn degree_60_few_roots_in_2_pow_40_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let bound = 1i64 << 40;
        let planted: Vec<i64> = (0..4).map(|_| rng.gen_range(-bound..=bound)).collect();
        let p = mul(&from_roots(&planted), &rootless_factor(&mut rng, 28, 100));
        assert_eq!(p.len(), 61);
        let got = integer_roots(&p, -bound, bound);
        assert_eq!(got, Some(sorted_unique(&planted)));
    }

    #[test]
    fn random_polynomials_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..150 {
            let root_count = rng.gen_range(0..=4);
            let planted: Vec<i64> = (0..root_count).map(|_| rng.gen_range(-320..=320)).collect();
            let cofactor_degree = rng.gen_range(0..=4);
            let cofactor = random_poly(&mut rng, cofactor_degree, 8);
            let p = mul(&from_roots(&planted), &cofactor);
            let got = integer_roots(&p, -300, 300);
            if p.iter().all(|c| *c == 0) {
                assert_eq!(got, None);
            } else {
                assert_eq!(got, Some(brute_force(&p, -300, 300)));
            }
        }
    }

    #[test]
    fn clustered_repeated_roots_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for _ in 0..50 {
            let planted: Vec<i64> = (0..6).map(|_| rng.gen_range(-4..=4)).collect();
            let cofactor = random_poly(&mut rng, 2, 200);
            let p = mul(&from_roots(&planted), &cofactor);
            let lo = rng.gen_range(-6..=0);
            let hi = rng.gen_range(0..=6);
            assert_eq!(integer_roots(&p, lo, hi), Some(brute_force(&p, lo, hi)));
        }
    }
}
