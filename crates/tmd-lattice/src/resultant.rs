//! Exact resultant `Res_v(h1, h2)` of two bivariate integer polynomials
//! `h1(t, v)`, `h2(t, v)` with respect to `v`, as a polynomial in `Z[t]`.
//!
//! Method: evaluation and interpolation. Let `m = deg_v(h1)` and
//! `n = deg_v(h2)` be the formal `v`-degrees (highest nonzero row). The
//! resultant is the determinant of the `(m + n) x (m + n)` Sylvester matrix
//! whose entries are the `v`-coefficients of `h1` and `h2`, which are
//! polynomials in `t`. Every term of that determinant is a product of `n`
//! coefficients of `h1` and `m` of `h2`, so its `t`-degree is at most
//! `B = n * deg_t(h1) + m * deg_t(h2)`. We take `B + 1` distinct integer
//! points `t_k` (0, 1, -1, 2, -2, ...), compute each Sylvester determinant
//! exactly with fraction-free Gaussian elimination (Bareiss, with a row swap
//! when a pivot is zero), and recover the coefficients by Newton
//! interpolation.
//!
//! Why it is exact: substituting `t = t_k` in the entries of the matrix is a
//! ring morphism, and the determinant is a polynomial in the entries, so the
//! value at `t_k` of the resultant is the determinant of the specialised
//! matrix. This holds even where the leading coefficient of `h1` or `h2`
//! vanishes at `t_k`, because the matrix keeps the formal degrees `m` and
//! `n` (a leading zero entry is kept, not dropped). Bareiss' divisions are
//! exact by Sylvester's determinant identity. A polynomial of degree at most
//! `B` is determined by `B + 1` values, and the Newton divided differences of
//! an integer polynomial at integer nodes are integers (for `t^d` they are
//! complete homogeneous symmetric polynomials of the nodes), so every
//! division in the interpolation is exact; this is checked. Only big-integer
//! arithmetic is used.
//!
//! Conventions: `Res(f, g) = det Sylvester(f, g)` with the `n` rows of `f`
//! first, so `Res(f, g) = lc(f)^n * prod g(alpha)` over the roots `alpha`
//! of `f`; in particular `Res_v(v - A(t), v - B(t)) = A(t) - B(t)`, and
//! `Res(h2, h1) = (-1)^(m n) Res(h1, h2)`. If `m = 0` the result is
//! `h1^n` (an `n x n` diagonal matrix), if `n = 0` it is `h2^m`, and if both
//! are 0 it is `1`. If either input is identically zero the result is the
//! zero polynomial.

use rug::ops::SubFrom;
use rug::Integer;

/// `true` when every coefficient of `p` is zero (including the empty slice).
pub fn is_zero(p: &[Integer]) -> bool {
    p.iter().all(|c| *c == 0)
}

/// Resultant of `h1` and `h2` with respect to `v`, as a polynomial in `t`.
///
/// `h[b][a]` is the coefficient of `t^a v^b`; rows may have different
/// lengths and trailing zeros (zero coefficients and zero top rows) are
/// ignored, so the `v`-degrees used are the formal ones: the highest `b`
/// with a nonzero row. See the module documentation for the sign and
/// degenerate-case conventions. The result has no trailing zeros; the zero
/// polynomial is returned as an empty vector.
///
/// Cost: `B + 1` determinants of size `m + n`, with `B` the degree bound,
/// plus an `O(B^2)` interpolation.
pub fn resultant_in_v(h1: &[Vec<Integer>], h2: &[Vec<Integer>]) -> Vec<Integer> {
    let (Some(m), Some(n)) = (v_degree(h1), v_degree(h2)) else {
        return Vec::new();
    };
    let degree_bound = n * t_degree(h1) + m * t_degree(h2);
    let nodes = interpolation_nodes(degree_bound + 1);
    let values: Vec<Integer> = nodes
        .iter()
        .map(|t| specialised_resultant(h1, m, h2, n, t))
        .collect();
    let mut result = newton_interpolation(&nodes, values);
    trim_trailing_zeros(&mut result);
    result
}

/// Highest `b` with a nonzero row, or `None` for the zero polynomial.
fn v_degree(h: &[Vec<Integer>]) -> Option<usize> {
    h.iter().rposition(|row| !is_zero(row))
}

/// Largest `t`-degree over all rows (0 for the zero polynomial).
fn t_degree(h: &[Vec<Integer>]) -> usize {
    h.iter()
        .filter_map(|row| row.iter().rposition(|c| *c != 0))
        .max()
        .unwrap_or(0)
}

/// Horner evaluation of a univariate polynomial (kept local so that this
/// module does not depend on another one).
fn eval(p: &[Integer], t: &Integer) -> Integer {
    let mut value = Integer::new();
    for coefficient in p.iter().rev() {
        value *= t;
        value += coefficient;
    }
    value
}

/// The `v`-coefficients of `h(t, v)` at a fixed `t`, padded to the formal
/// degree: entry `b` is the coefficient of `v^b`, for `b = 0..=degree`.
fn specialise(h: &[Vec<Integer>], degree: usize, t: &Integer) -> Vec<Integer> {
    (0..=degree).map(|b| eval(&h[b], t)).collect()
}

/// `Res_v(h1(t, v), h2(t, v))` at one point `t`, with formal degrees `m`, `n`.
fn specialised_resultant(
    h1: &[Vec<Integer>],
    m: usize,
    h2: &[Vec<Integer>],
    n: usize,
    t: &Integer,
) -> Integer {
    let f = specialise(h1, m, t);
    let g = specialise(h2, n, t);
    bareiss_determinant(sylvester_matrix(&f, &g))
}

/// Sylvester matrix of `f` (degree `m = f.len() - 1`) and `g` (degree
/// `n = g.len() - 1`), both non-empty: `n` shifted rows of `f`, then `m`
/// shifted rows of `g`, coefficients from the leading one down. Leading
/// zeros are kept, which is what makes the formal degrees count.
fn sylvester_matrix(f: &[Integer], g: &[Integer]) -> Vec<Vec<Integer>> {
    let m = f.len() - 1;
    let n = g.len() - 1;
    let size = m + n;
    let f_rows = (0..n).map(|shift| shifted_row(f, shift, size));
    let g_rows = (0..m).map(|shift| shifted_row(g, shift, size));
    f_rows.chain(g_rows).collect()
}

/// A Sylvester row: the coefficients of `p`, highest degree first, starting
/// at column `shift`, zeros elsewhere.
fn shifted_row(p: &[Integer], shift: usize, size: usize) -> Vec<Integer> {
    let mut row = vec![Integer::new(); size];
    for (offset, coefficient) in p.iter().rev().enumerate() {
        row[shift + offset] = coefficient.clone();
    }
    row
}

/// Determinant of a square integer matrix by fraction-free Gaussian
/// elimination (Bareiss). After step `k` every remaining entry is a
/// `(k + 1) x (k + 1)` minor of the input, so the division by the previous
/// pivot is exact and the numbers stay as small as the minors. A zero pivot
/// is replaced by a lower row with a nonzero entry (a swap flips the sign);
/// when there is none the determinant is zero. The empty matrix has
/// determinant 1.
fn bareiss_determinant(mut matrix: Vec<Vec<Integer>>) -> Integer {
    let size = matrix.len();
    let mut negate = false;
    let mut previous_pivot = Integer::from(1);
    for k in 0..size {
        let Some(pivot_row) = (k..size).find(|&i| matrix[i][k] != 0) else {
            return Integer::new();
        };
        if pivot_row != k {
            matrix.swap(k, pivot_row);
            negate = !negate;
        }
        eliminate_below_pivot(&mut matrix, k, &previous_pivot);
        previous_pivot = matrix[k][k].clone();
    }
    // After the last step, previous_pivot is the bottom-right entry: the determinant.
    if negate {
        -previous_pivot
    } else {
        previous_pivot
    }
}

/// One Bareiss step with pivot `matrix[k][k]`: for rows and columns after
/// `k`, `a[i][j] = (a[i][j] a[k][k] - a[i][k] a[k][j]) / previous_pivot`.
fn eliminate_below_pivot(matrix: &mut [Vec<Integer>], k: usize, previous_pivot: &Integer) {
    let (upper, lower) = matrix.split_at_mut(k + 1);
    let pivot_row = &upper[k];
    for row in lower {
        for j in k + 1..pivot_row.len() {
            let mut entry = Integer::from(&row[j] * &pivot_row[k]);
            entry -= &row[k] * &pivot_row[j];
            debug_assert!(entry.is_divisible(previous_pivot));
            row[j] = entry.div_exact(previous_pivot);
        }
        row[k] = Integer::new();
    }
}

/// `count` distinct small integers 0, 1, -1, 2, -2, ...: small nodes keep
/// the specialised coefficients (and so the determinants) small.
fn interpolation_nodes(count: usize) -> Vec<Integer> {
    (0..count)
        .map(|k| {
            let magnitude = Integer::from(k.div_ceil(2));
            if k % 2 == 1 {
                magnitude
            } else {
                -magnitude
            }
        })
        .collect()
}

/// The polynomial of degree `< nodes.len()` with the given values at the
/// (distinct) nodes, in monomial form. Requires the values to come from an
/// integer polynomial of that degree: then all divided differences are
/// integers, and each division is checked to be exact.
fn newton_interpolation(nodes: &[Integer], values: Vec<Integer>) -> Vec<Integer> {
    let newton = divided_differences(nodes, values);
    newton_to_monomial(nodes, &newton)
}

/// In-place divided-difference table: entry `i` becomes
/// `f[x_0, ..., x_i]`, the `i`-th Newton coefficient.
fn divided_differences(nodes: &[Integer], mut table: Vec<Integer>) -> Vec<Integer> {
    for level in 1..table.len() {
        for i in (level..table.len()).rev() {
            let (lower, upper) = table.split_at_mut(i);
            upper[0] -= &lower[i - 1];
            let spacing = Integer::from(&nodes[i] - &nodes[i - level]);
            let (quotient, remainder) = std::mem::take(&mut upper[0]).div_rem(spacing);
            assert!(
                remainder == 0,
                "divided difference of an integer polynomial"
            );
            upper[0] = quotient;
        }
    }
    table
}

/// Expands `c_0 + (t - x_0)(c_1 + (t - x_1)(c_2 + ...))` from the inside out.
fn newton_to_monomial(nodes: &[Integer], newton: &[Integer]) -> Vec<Integer> {
    let Some((last, rest)) = newton.split_last() else {
        return Vec::new();
    };
    let mut poly = vec![last.clone()];
    for (coefficient, node) in rest.iter().zip(nodes).rev() {
        multiply_by_linear_and_add(&mut poly, node, coefficient);
    }
    poly
}

/// `poly <- poly * (t - node) + constant`.
fn multiply_by_linear_and_add(poly: &mut Vec<Integer>, node: &Integer, constant: &Integer) {
    poly.push(Integer::new());
    // New coefficient i is old[i - 1] - node * old[i]; go down so old[i - 1] is intact.
    for i in (1..poly.len()).rev() {
        let (lower, upper) = poly.split_at_mut(i);
        upper[0] *= node;
        upper[0].sub_from(&lower[i - 1]);
    }
    poly[0] *= node;
    poly[0].sub_from(constant);
}

fn trim_trailing_zeros(p: &mut Vec<Integer>) {
    let length = p.iter().rposition(|c| *c != 0).map_or(0, |d| d + 1);
    p.truncate(length);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::mul;
    use crate::poly::testing::{poly, random_integer, random_poly};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    type Bivariate = Vec<Vec<Integer>>;

    fn trimmed(mut p: Vec<Integer>) -> Vec<Integer> {
        trim_trailing_zeros(&mut p);
        p
    }

    fn add(a: &[Integer], b: &[Integer]) -> Vec<Integer> {
        let mut sum = vec![Integer::new(); a.len().max(b.len())];
        for (i, c) in a.iter().enumerate() {
            sum[i] += c;
        }
        for (i, c) in b.iter().enumerate() {
            sum[i] += c;
        }
        sum
    }

    fn power(p: &[Integer], exponent: usize) -> Vec<Integer> {
        (0..exponent).fold(poly(&[1]), |acc, _| mul(&acc, p))
    }

    fn bivariate_mul(a: &[Vec<Integer>], b: &[Vec<Integer>]) -> Bivariate {
        let mut product = vec![Vec::new(); (a.len() + b.len()).saturating_sub(1)];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                product[i + j] = add(&product[i + j], &mul(x, y));
            }
        }
        product
    }

    fn bivariate_add(a: &[Vec<Integer>], b: &[Vec<Integer>]) -> Bivariate {
        let empty = Vec::new();
        (0..a.len().max(b.len()))
            .map(|i| add(a.get(i).unwrap_or(&empty), b.get(i).unwrap_or(&empty)))
            .collect()
    }

    fn random_bivariate(rng: &mut ChaCha8Rng, dv: usize, dt: usize, bits: u32) -> Bivariate {
        (0..=dv).map(|_| random_poly(rng, dt, bits)).collect()
    }

    /// Independent determinant: Laplace expansion along the first row.
    fn laplace_determinant(matrix: &[Vec<Integer>]) -> Integer {
        if matrix.is_empty() {
            return Integer::from(1);
        }
        let mut total = Integer::new();
        for (column, entry) in matrix[0].iter().enumerate() {
            if *entry == 0 {
                continue;
            }
            let minor: Bivariate = matrix[1..]
                .iter()
                .map(|row| [&row[..column], &row[column + 1..]].concat())
                .collect();
            let term = entry * laplace_determinant(&minor);
            total += if column % 2 == 0 { term } else { -term };
        }
        total
    }

    fn direct_resultant_at(h1: &[Vec<Integer>], h2: &[Vec<Integer>], t: &Integer) -> Integer {
        let (m, n) = (v_degree(h1).unwrap(), v_degree(h2).unwrap());
        let matrix = sylvester_matrix(&specialise(h1, m, t), &specialise(h2, n, t));
        let determinant = bareiss_determinant(matrix.clone());
        if matrix.len() <= 6 {
            assert_eq!(determinant, laplace_determinant(&matrix));
        }
        determinant
    }

    #[test]
    fn is_zero_cases() {
        assert!(is_zero(&[]));
        assert!(is_zero(&poly(&[0, 0])));
        assert!(!is_zero(&poly(&[0, 3])));
    }

    #[test]
    fn linear_in_v_gives_a_minus_b() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..10 {
            let a = random_poly(&mut rng, 8, 200);
            let b = random_poly(&mut rng, 5, 200);
            let negated = |p: &[Integer]| p.iter().map(|c| Integer::from(-c)).collect();
            let h1 = vec![negated(&a), poly(&[1])];
            let h2 = vec![negated(&b), poly(&[1])];
            let expected = add(&a, &negated(&b));
            assert_eq!(resultant_in_v(&h1, &h2), trimmed(expected));
        }
    }

    #[test]
    fn leading_coefficient_vanishing_at_a_node() {
        // h1 = t v^2 + 1, h2 = v - t: Res = h1(t, t) = t^3 + 1, although the
        // leading coefficient t vanishes at the node t = 0.
        let h1 = vec![poly(&[1]), vec![], poly(&[0, 1])];
        let h2 = vec![poly(&[0, -1]), poly(&[1])];
        assert_eq!(resultant_in_v(&h1, &h2), poly(&[1, 0, 0, 1]));
        assert_eq!(resultant_in_v(&h2, &h1), poly(&[1, 0, 0, 1]));
    }

    #[test]
    fn degree_zero_in_v_conventions() {
        let a = poly(&[3, -1, 2]);
        let h_const = vec![a.clone(), poly(&[0, 0])];
        let h2 = vec![poly(&[1, 1]), poly(&[0, 5]), poly(&[7])];
        assert_eq!(resultant_in_v(&h_const, &h2), power(&a, 2));
        let h3 = vec![poly(&[1]), poly(&[2]), poly(&[0, 1]), poly(&[4, 4])];
        assert_eq!(resultant_in_v(&h3, &h_const), trimmed(power(&a, 3)));
        assert_eq!(resultant_in_v(&h_const, &[poly(&[9])]), poly(&[1]));
    }

    #[test]
    fn zero_inputs_give_zero() {
        let h = vec![poly(&[1, 2]), poly(&[3])];
        let zero = vec![poly(&[0, 0]), vec![]];
        assert!(resultant_in_v(&h, &zero).is_empty());
        assert!(resultant_in_v(&[], &h).is_empty());
        assert!(resultant_in_v(&zero, &zero).is_empty());
    }

    #[test]
    fn common_factor_gives_zero() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for _ in 0..5 {
            let common = random_bivariate(&mut rng, 2, 3, 30);
            let h1 = bivariate_mul(&common, &random_bivariate(&mut rng, 1, 4, 60));
            let h2 = bivariate_mul(&common, &random_bivariate(&mut rng, 2, 2, 60));
            assert!(is_zero(&resultant_in_v(&h1, &h2)));
        }
    }

    #[test]
    fn planted_common_root_is_a_root_of_the_resultant() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for _ in 0..10 {
            let (t0, v0) = (rng.gen_range(-50i64..=50), rng.gen_range(-50i64..=50));
            // h = (v - v0) g + (t - t0) k vanishes at (t0, v0).
            let mut planted = || {
                let g = random_bivariate(&mut rng, 2, 3, 16);
                let k = random_bivariate(&mut rng, 2, 3, 16);
                let v_minus_v0 = vec![poly(&[-v0]), poly(&[1])];
                let t_minus_t0 = vec![poly(&[-t0, 1])];
                let first = bivariate_mul(&v_minus_v0, &g);
                bivariate_add(&first, &bivariate_mul(&t_minus_t0, &k))
            };
            let (h1, h2) = (planted(), planted());
            let res = resultant_in_v(&h1, &h2);
            assert!(!is_zero(&res));
            assert_eq!(eval(&res, &Integer::from(t0)), 0);
        }
    }

    #[test]
    fn matches_sylvester_determinant_at_random_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        for _ in 0..40 {
            let bits = rng.gen_range(1..=200);
            let (m, n) = (rng.gen_range(0..=3), rng.gen_range(0..=3));
            let (dt1, dt2) = (rng.gen_range(0..=8), rng.gen_range(0..=8));
            let mut h1 = random_bivariate(&mut rng, m, dt1, bits);
            let h2 = random_bivariate(&mut rng, n, dt2, bits);
            // Make the leading v-coefficient of h1 vanish at some nodes.
            h1[m] = mul(&h1[m], &poly(&[0, -1, 1]));
            let res = resultant_in_v(&h1, &h2);
            let sign_swapped = resultant_in_v(&h2, &h1);
            let expected_swap: Vec<Integer> = if m * n % 2 == 1 {
                res.iter().map(|c| Integer::from(-c)).collect()
            } else {
                res.clone()
            };
            assert_eq!(sign_swapped, expected_swap);
            let small_points = (-12..=12).map(Integer::from);
            let big_points: Vec<Integer> = (0..4).map(|_| random_integer(&mut rng, 100)).collect();
            for t in small_points.chain(big_points) {
                assert_eq!(eval(&res, &t), direct_resultant_at(&h1, &h2, &t));
            }
        }
    }

    #[test]
    fn bareiss_handles_zero_pivots_and_singular_matrices() {
        let rows = |r: &[&[i64]]| r.iter().map(|row| poly(row)).collect::<Bivariate>();
        let swapped = rows(&[&[0, 2, 1], &[3, 1, 0], &[1, 0, 4]]);
        assert_eq!(
            bareiss_determinant(swapped.clone()),
            laplace_determinant(&swapped)
        );
        let singular = rows(&[&[1, 2, 3], &[2, 4, 6], &[0, 1, 1]]);
        assert_eq!(bareiss_determinant(singular), 0);
        assert_eq!(bareiss_determinant(Vec::new()), 1);
    }
}
