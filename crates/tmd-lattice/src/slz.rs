//! The small values of an integer polynomial modulo N at small integers, by Coppersmith's
//! bivariate construction as Stehlé, Lefèvre and Zimmermann apply it to the Table Maker's
//! Dilemma ("Searching worst cases of a one-variable function using lattice reduction", IEEE
//! Transactions on Computers 54(3), 2005, §3–§4).
//!
//! The problem: Q(t) in Z[t] of degree d, N = 2^s, bounds T and V; find every integer t with
//! |t| <= T for which some integer y gives |Q(t) - y N| <= V. Such t, with v = yN - Q(t), is a
//! small root of F(t, v) = Q(t) + v modulo N. For a parameter alpha >= 1 the polynomials
//!
//! ```text
//! g_ij(t, v) = N^(alpha - i) F(t, v)^i t^j,   0 <= i <= alpha, 0 <= j <= d (alpha - i),
//! ```
//!
//! vanish modulo N^alpha at every such root. Their coefficients, with the monomial t^a v^b
//! scaled by T^a V^b, are the rows of a lower-triangular square matrix (g_ij's leading monomial
//! is t^j v^i). Every integer combination h of the g_ij vanishes modulo N^alpha at the roots,
//! and |h(t, v)| <= sum |h_ab| T^a V^b, the l1 norm of its row; when that norm is below
//! N^alpha, h vanishes at the roots over the integers. LLL finds such short rows; two of them
//! with a non-zero resultant in v give a polynomial in t alone whose integer roots in [-T, T]
//! include every solution. The proof, with each step's check, is in docs/error-analysis.md
//! §18; here every step that the proof needs is checked exactly (lattice membership, the norm,
//! a non-zero resultant), and when one fails the answer is [`Outcome::Failed`] (the caller
//! splits the interval), never a wrong list.

use crate::lll::{coordinates_in_triangular_basis, lll_reduce};
use crate::resultant::{is_zero, resultant_in_v};
use crate::roots::integer_roots;
use crate::LatticeError;
use rug::ops::Pow;
use rug::Integer;

/// One instance: every t with |t| <= `t_max` and |Q(t) cmod N| <= `v_max`, N = 2^`log2_n`.
#[derive(Clone, Debug)]
pub struct SmallValueProblem {
    /// Q's coefficients, `q[k]` for t^k.
    pub q: Vec<Integer>,
    pub log2_n: u32,
    pub t_max: u64,
    pub v_max: Integer,
}

/// What the lattice gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A superset of the solutions, increasing (integer roots of a non-zero polynomial).
    Candidates(Vec<i64>),
    /// No two usable polynomials: the interval must be split (or searched otherwise).
    Failed,
}

/// Most short vectors tried as pairs for a non-zero resultant.
const VECTORS_TRIED: usize = 4;

/// Solves `problem` with the lattice of parameter `alpha` (at least 1).
pub fn small_values(problem: &SmallValueProblem, alpha: u32) -> Result<Outcome, LatticeError> {
    let d = degree(&problem.q).ok_or(LatticeError::ConstantPolynomial)?;
    if d == 0 || alpha == 0 || problem.t_max > i64::MAX as u64 / 2 {
        return Err(LatticeError::ConstantPolynomial);
    }
    let lattice = Lattice::new(problem, d, alpha);
    let reduced = lll_reduce(&lattice.basis)?;
    let bound = Integer::from(1) << (problem.log2_n * alpha);
    let usable: Vec<Vec<Vec<Integer>>> = reduced
        .iter()
        .filter(|w| l1_norm(w) < bound)
        .filter(|w| coordinates_in_triangular_basis(&lattice.basis, w).is_some())
        .take(VECTORS_TRIED)
        .map(|w| lattice.unscale(w))
        .collect();
    let t = problem.t_max as i64;
    for poly in eliminations(&usable) {
        if let Some(roots) = integer_roots(&poly, -t, t) {
            return Ok(Outcome::Candidates(roots));
        }
    }
    Ok(Outcome::Failed)
}

/// The rows of the lattice [`small_values`] reduces for `problem` and `alpha`, before
/// reduction (lower triangular, scaled): for benchmarks of the reduction itself.
pub fn coppersmith_basis(
    problem: &SmallValueProblem,
    alpha: u32,
) -> Result<Vec<Vec<Integer>>, LatticeError> {
    let d = degree(&problem.q).ok_or(LatticeError::ConstantPolynomial)?;
    if d == 0 || alpha == 0 {
        return Err(LatticeError::ConstantPolynomial);
    }
    Ok(Lattice::new(problem, d, alpha).basis)
}

/// Univariate polynomials in t that vanish at every solution: a usable h free of v, then the
/// resultants in v of the pairs of usable h, in order; identically zero ones are skipped by
/// the caller (`integer_roots` answers `None`).
fn eliminations(usable: &[Vec<Vec<Integer>>]) -> impl Iterator<Item = Vec<Integer>> + '_ {
    let free_of_v = usable
        .iter()
        .filter(|h| h.iter().skip(1).all(|row| is_zero(row)))
        .map(|h| h[0].clone());
    let pairs = (0..usable.len()).flat_map(move |i| {
        (i + 1..usable.len()).map(move |j| resultant_in_v(&usable[i], &usable[j]))
    });
    free_of_v.chain(pairs).filter(|p| !is_zero(p))
}

/// The degree of a polynomial, `None` for zero.
fn degree(p: &[Integer]) -> Option<usize> {
    p.iter().rposition(|c| *c != 0)
}

fn l1_norm(w: &[Integer]) -> Integer {
    w.iter().map(|e| Integer::from(e.abs_ref())).sum()
}

/// The scaled coefficient matrix of the g_ij and the monomial of each column.
struct Lattice {
    basis: Vec<Vec<Integer>>,
    /// (a, b) of column c: the monomial t^a v^b.
    monomials: Vec<(usize, usize)>,
    /// T^a V^b of column c.
    scales: Vec<Integer>,
}

impl Lattice {
    /// Rows g_ij in the order (i, j), columns t^a v^b in the order (b, a): g_ij has its
    /// leading monomial t^j v^i on the diagonal and only monomials of lower v-degree before.
    fn new(problem: &SmallValueProblem, d: usize, alpha: u32) -> Lattice {
        let alpha = alpha as usize;
        let monomials: Vec<(usize, usize)> = (0..=alpha)
            .flat_map(|b| (0..=d * (alpha - b)).map(move |a| (a, b)))
            .collect();
        let t = Integer::from(problem.t_max);
        let scales: Vec<Integer> = monomials
            .iter()
            .map(|&(a, b)| {
                Integer::from((&t).pow(a as u32)) * Integer::from((&problem.v_max).pow(b as u32))
            })
            .collect();
        let q_powers = powers(&problem.q[..=d], alpha);
        let column = |a: usize, b: usize| monomials.iter().position(|&m| m == (a, b));
        let mut basis = Vec::with_capacity(monomials.len());
        for &(j, i) in &monomials {
            let n_power = Integer::from(1) << (problem.log2_n as usize * (alpha - i)) as u32;
            let mut row = vec![Integer::new(); monomials.len()];
            // F^i t^j = sum_b binom(i, b) v^b Q^(i - b) t^j.
            for b in 0..=i {
                let binom = Integer::from(Integer::binomial_u(i as u32, b as u32));
                for (k, c) in q_powers[i - b].iter().enumerate() {
                    let col = column(k + j, b).expect("every monomial of g_ij is a column");
                    row[col] += Integer::from(&binom * c) * &n_power;
                }
            }
            for (entry, scale) in row.iter_mut().zip(&scales) {
                *entry *= scale;
            }
            basis.push(row);
        }
        Lattice {
            basis,
            monomials,
            scales,
        }
    }

    /// The polynomial h(t, v) of a lattice row, `h[b][a]` for t^a v^b (the scales divide a
    /// lattice row's entries exactly).
    fn unscale(&self, w: &[Integer]) -> Vec<Vec<Integer>> {
        let v_degree = self.monomials.iter().map(|m| m.1).max().unwrap_or(0);
        let mut h: Vec<Vec<Integer>> = vec![Vec::new(); v_degree + 1];
        for ((&(a, b), e), scale) in self.monomials.iter().zip(w).zip(&self.scales) {
            let row = &mut h[b];
            if row.len() <= a {
                row.resize(a + 1, Integer::new());
            }
            row[a] = Integer::from(e.div_exact_ref(scale));
        }
        h
    }
}

/// Q^0, Q^1, ..., Q^alpha.
fn powers(q: &[Integer], alpha: usize) -> Vec<Vec<Integer>> {
    let mut out = vec![vec![Integer::from(1)]];
    for _ in 0..alpha {
        let next = crate::poly::mul(out.last().expect("starts with Q^0"), q);
        out.push(next);
    }
    out
}

/// log2 of the largest T for which the lattice of degree `d` and parameter `alpha` is
/// expected to give short enough vectors when V / N = 2^`log2_eps`: the Gaussian heuristic
/// with LLL's practical Hermite factor (about 1.02^n) and the l1/l2 factor sqrt(n), both taken
/// generously. Only a choice of interval size: a wrong guess costs a split, never a case.
pub fn log2_t_limit(d: usize, alpha: usize, log2_eps: f64) -> f64 {
    // Rows (i, j): det = prod N^(alpha - i) T^j V^i; with V = eps N the powers of N cancel
    // against N^(alpha n) (sum of (alpha - i) + i over rows is alpha n).
    let rows = (0..=alpha).flat_map(|i| (0..=d * (alpha - i)).map(move |j| (i, j)));
    let (mut n, mut sum_i, mut sum_j) = (0f64, 0f64, 0f64);
    for (i, j) in rows {
        n += 1.0;
        sum_i += i as f64;
        sum_j += j as f64;
    }
    let slack_per_row = 0.03 * n + 0.5 * n.log2() + 1.0;
    (-sum_i * log2_eps - n * slack_per_row) / sum_j
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every t of [-T, T] with |Q(t) cmod N| <= V, by evaluation.
    fn by_evaluation(p: &SmallValueProblem) -> Vec<i64> {
        let t = p.t_max as i64;
        (-t..=t)
            .filter(|&x| {
                let value = crate::roots::eval(&p.q, &Integer::from(x));
                crate::poly::centred_residue(&value, p.log2_n).abs() <= p.v_max
            })
            .collect()
    }

    /// A problem with planted solutions: Q(t) = N (c1 t + c2 t^2 + c3 t^3) rounded, where the
    /// c are random reals (as dyadics of 3 s bits), plus the exact solutions at `plant`.
    fn planted(
        rng: &mut impl Rng,
        d: usize,
        log2_n: u32,
        t_max: u64,
        log2_v: u32,
    ) -> SmallValueProblem {
        let n = Integer::from(1) << log2_n;
        let mut q: Vec<Integer> = (0..=d)
            .map(|k| {
                let bits = (log2_n as usize + 8 * k) as u32;
                let x = crate::poly::testing::random_integer(rng, bits);
                // Coefficient of t^k of size N / T^k keeps every term of Q(t) below N.
                x >> (8 * k as u32)
            })
            .collect();
        // Plant a solution at t0: move q[0] so that Q(t0) is a multiple of N plus a small v.
        let t0 = rng.gen_range(-(t_max as i64)..=t_max as i64);
        let value = crate::roots::eval(&q, &Integer::from(t0));
        let offset =
            Integer::from(rng.gen_range(-(1i64 << log2_v.min(60))..(1i64 << log2_v.min(60))));
        q[0] -= Integer::from(value.modulo_ref(&n)) - offset;
        SmallValueProblem {
            q,
            log2_n,
            t_max,
            v_max: Integer::from(1) << log2_v,
        }
    }

    /// On random degree-2 and degree-3 problems with a planted solution, every solution that
    /// evaluation finds is among the lattice's candidates, or the lattice says it failed.
    #[test]
    fn candidates_contain_every_solution() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut decided = 0;
        for trial in 0..60 {
            let d = 2 + trial % 2;
            let alpha = 1 + (trial / 2) % 3;
            let p = planted(&mut rng, d, 120, 1 << 9, 60);
            let expected = by_evaluation(&p);
            assert!(!expected.is_empty(), "the planted solution is a solution");
            match small_values(&p, alpha as u32).unwrap() {
                Outcome::Candidates(c) => {
                    decided += 1;
                    for t in &expected {
                        assert!(c.contains(t), "d {d} alpha {alpha}: {t} missing from {c:?}");
                    }
                }
                Outcome::Failed => {}
            }
        }
        assert!(decided >= 30, "the lattice decided only {decided} of 60");
    }

    /// Binary128-sized problems: N = 2^300, V / N = 2^-140 and T = 2^40 (2^41 points, too
    /// many to evaluate): the planted solution is always among the candidates, and there are
    /// few of them.
    #[test]
    fn planted_solutions_are_found_at_binary128_scale() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(128);
        for trial in 0..12 {
            let mut p = planted(&mut rng, 2, 300, 1 << 40, 160);
            // The planted t0 is where Q(t0) cmod N = the offset: recover it by its value.
            let t0 = rng.gen_range(-(1i64 << 40)..=1i64 << 40);
            let n = Integer::from(1) << 300u32;
            let value = crate::roots::eval(&p.q, &Integer::from(t0));
            p.q[0] -= Integer::from(value.modulo_ref(&n)) - 12345;
            let limit = log2_t_limit(2, 2, 160.0 - 300.0);
            assert!(
                limit > 40.0,
                "T = 2^40 is within the lattice's reach ({limit})"
            );
            match small_values(&p, 2).unwrap() {
                Outcome::Candidates(c) => {
                    assert!(c.contains(&t0), "trial {trial}: {t0} missing from {c:?}");
                    assert!(c.len() <= 8, "trial {trial}: {} candidates", c.len());
                }
                Outcome::Failed => panic!("trial {trial}: the lattice failed within its reach"),
            }
        }
    }

    #[test]
    fn the_limit_grows_with_alpha_for_degree_two() {
        let eps = -44.0;
        let (a1, a2, a3) = (
            log2_t_limit(2, 1, eps),
            log2_t_limit(2, 2, eps),
            log2_t_limit(2, 3, eps),
        );
        assert!(a1 < a2 && a2 < a3, "{a1} {a2} {a3}");
    }
}
