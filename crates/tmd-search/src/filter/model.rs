//! Polynomial generation for one chunk (TOMS16 §5, see [`crate::lower_bound`] for the
//! references).
//!
//! A chunk is `L` consecutive inputs `X(x) = X0 + x·h`, `0 <= x < L`, of constant quantum `h`,
//! whose results share one ulp; `u` is half of it, whatever breakpoint kinds are searched. The
//! search works on `F(x) = f(X(x)) / u`, whose breakpoints (format numbers and midpoints, where
//! exact results lie too) are the integers.
//!
//! 1. A rigorous Taylor model of f around the chunk's centre `Xc = X0 + half·h` gives
//!    `|f(X0 + x·h) - Σ m_k ((x - half)·h)^k| <= E_f` for `0 <= x < L`. Scaled to result units
//!    this is the polynomial `R(x) = Σ c_k (x - half)^k`, `c_k = m_k h^k / u`, with error
//!    `E_taylor = E_f / u` ([`ChunkModel::approx_error`]). The `c_k` are dyadic, so they are held
//!    exactly as integers `C_k = c_k·2^S` ([`ChunkModel`] never rounds R).
//! 2. The hierarchical method (TOMS16 §5.1): with domains of N inputs, Newton's forward
//!    formula gives the exact identity `R(x + iN) = Σ_j r_j(i)·binom(x, j)`, where
//!    `r_j(i) = Δ^j[R](iN)` is a polynomial of degree `δ - j` in `i`. Only `r_0`, `r_1`, `r_2`
//!    are tabulated; the other terms are bounded: `|r_j(i)| <= B_j` ([`ChunkModel::diff_bound`]).
//! 3. Tabulated differences (TOMS16 §5.2): the table `T_j[l] = Δ_N^l[r_j](i0)`,
//!    `0 <= l <= δ - j`, advances `i` by one with additions only. Each packet of domains starts
//!    from a table computed *exactly* from R (the straightforward shift, evaluated by exact
//!    integer arithmetic at the points `(i0 + l)·N + m`), then rounded once to 128-bit fixed
//!    point ([`ChunkModel::packet_tables`]). Packets are independent, which is what makes the
//!    generation parallel (TOMS16 §5.3's packets of size v).
//!
//! The error terms and their proofs are in docs/error-analysis.md §5.

use rug::float::Round;
use rug::ops::{AddAssignRound, MulAssignRound};
use rug::{Float, Integer};
use tmd_core::taylor::TaylorModel;

/// The largest polynomial degree a chunk may use (the kernels' table length is the same:
/// `tmd_kernels::layout`).
pub use tmd_kernels::layout::MAX_DEGREE;

/// The fixed-point tables are fractions with this many bits (u128, arithmetic modulo 1).
pub const FRACTION_BITS: u32 = 128;

/// Precision of the upper bounds (rounded up).
const BOUND_PREC: u32 = 64;

/// The polynomial of one chunk in result units, exact, with its proven error bounds.
#[derive(Clone, Debug)]
pub struct ChunkModel {
    /// Number of inputs L.
    pub len: u64,
    /// Index of the expansion centre: R is a polynomial in `x - half`.
    half: u64,
    /// `C_k = c_k·2^scale`, exact integers.
    coeffs: Vec<Integer>,
    scale: u32,
    /// E_taylor: |F(x) - R(x)| <= approx_error for every 0 <= x < L (upper bound).
    pub approx_error: f64,
    /// B_j >= |Δ^j[R](y)| for 0 <= y < L (upper bounds, +inf when not finite).
    diff_bounds: Vec<f64>,
}

/// Exact tables of r_0, r_1, r_2 at the start of a packet, as 128-bit fractions modulo 1.
#[derive(Clone, Debug)]
pub struct PacketTables {
    /// `tables[j][l] = Δ_N^l[r_j](i0)` rounded down to a multiple of 2^-128, modulo 1.
    pub tables: [[u128; MAX_DEGREE + 1]; 3],
    /// Degree of r_j in i (the last nonzero entry of tables[j]).
    pub degrees: [usize; 3],
}

/// `x` rounded up to a `BOUND_PREC`-bit float.
pub(crate) fn up<T>(x: T) -> Float
where
    Float: rug::Assign<T> + rug::ops::AssignRound<T, Round = Round, Ordering = std::cmp::Ordering>,
{
    Float::with_val_round(BOUND_PREC, x, Round::Up).0
}

/// Upper bound of `a·b` for nonnegative operands.
pub(crate) fn mul_up(a: &Float, b: &Float) -> Float {
    let mut r = up(a);
    r.mul_assign_round(b, Round::Up);
    r
}

/// Upper bound of `a + b`.
pub(crate) fn add_up(a: &Float, b: &Float) -> Float {
    let mut r = up(a);
    r.add_assign_round(b, Round::Up);
    r
}

fn to_f64_up(x: &Float) -> f64 {
    x.to_f64_round(Round::Up)
}

impl ChunkModel {
    /// Builds the chunk polynomial from a Taylor model around `X0 + half·h` (which must hold
    /// for |t| <= max(half, L - 1 - half)·h), truncated to `degree` (the dropped terms join the
    /// error bound). `h = 2^h_exp`, `u = 2^unit_exp`. Returns None when a bound is not finite.
    pub fn new(
        model: &TaylorModel,
        degree: usize,
        len: u64,
        half: u64,
        h_exp: i64,
        unit_exp: i64,
    ) -> Option<ChunkModel> {
        let degree = degree.min(model.degree()).min(MAX_DEGREE);
        let radius = model.radius();
        // E_f: the model's own bound plus the truncated terms, sum_{k>degree} |m_k| r^k.
        let mut error = model.error_bound();
        let mut power = Float::with_val(BOUND_PREC, 1);
        for (k, m) in model.coefficients().iter().enumerate() {
            if k > degree {
                error = add_up(&error, &mul_up(&up(m.abs_ref()), &power));
            }
            power = mul_up(&power, radius);
        }
        let approx_error = to_f64_up(&(error >> unit_exp as i32));
        if !approx_error.is_finite() {
            return None;
        }
        // c_k = m_k · 2^(k·h_exp - unit_exp) = I_k · 2^(e_k + k·h_exp - unit_exp).
        let mut parts = Vec::with_capacity(degree + 1);
        for (k, m) in model.coefficients()[..=degree].iter().enumerate() {
            match m.to_integer_exp() {
                Some((i, e)) => parts.push((i, e as i64 + k as i64 * h_exp - unit_exp)),
                None => parts.push((Integer::new(), 0)),
            }
        }
        let min_exp = parts
            .iter()
            .filter(|(i, _)| *i != 0)
            .map(|(_, e)| *e)
            .min()
            .unwrap_or(0);
        let scale = (-min_exp).max(0);
        // Absurd scales mean absurd coefficients: refuse rather than build huge integers.
        if scale > 1 << 16 {
            return None;
        }
        let coeffs = parts
            .into_iter()
            .map(|(i, e)| i << (e + scale) as u32)
            .collect();
        let mut chunk = ChunkModel {
            len,
            half,
            coeffs,
            scale: scale as u32,
            approx_error,
            diff_bounds: Vec::new(),
        };
        chunk.diff_bounds = (0..=degree).map(|j| chunk.derivative_bound(j)).collect();
        Some(chunk)
    }

    /// The scale S: R's coefficients are integers times 2^-S.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// The degree δ of R.
    pub fn degree(&self) -> usize {
        self.coeffs.len() - 1
    }

    /// B_j: an upper bound of |Δ^j[R](y)| for every integer 0 <= y < L (0 when j > δ).
    pub fn diff_bound(&self, j: usize) -> f64 {
        self.diff_bounds.get(j).copied().unwrap_or(0.0)
    }

    /// The slope over a domain of `n` inputs that the flat-domain rules use: B_1 + B_2 n / 2.
    /// The domain's points stay within one turn when `domain_slope(n) * (n - 1) < 1`.
    pub fn domain_slope(&self, n: u64) -> f64 {
        self.diff_bound(1) + self.diff_bound(2) * n as f64 / 2.0
    }

    /// max |R^(j)(ξ)| over ξ in [0, L - 1 + j] (Δ^j[R](y) = R^(j)(ξ) for some ξ in [y, y + j],
    /// the mean value theorem for divided differences): Σ_k |c_k| k!/(k-j)! Z^(k-j) with Z the
    /// largest |ξ - half|.
    fn derivative_bound(&self, j: usize) -> f64 {
        let z = (self.half).max(self.len - 1 + j as u64 - self.half);
        let z = Float::with_val(BOUND_PREC, z);
        let mut total = Float::with_val(BOUND_PREC, 0);
        for k in j..self.coeffs.len() {
            let mut term = up(&Integer::from(self.coeffs[k].abs_ref()));
            for f in (k - j + 1)..=k {
                term = mul_up(&term, &Float::with_val(BOUND_PREC, f));
            }
            for _ in 0..k - j {
                term = mul_up(&term, &z);
            }
            total = add_up(&total, &term);
        }
        to_f64_up(&(total >> self.scale as i32))
    }

    /// R(x)·2^scale, exactly.
    fn eval_scaled(&self, x: u64) -> Integer {
        let t = Integer::from(x) - self.half;
        let mut acc = Integer::new();
        for c in self.coeffs.iter().rev() {
            acc *= &t;
            acc += c;
        }
        acc
    }

    /// The degrees of the tables of r_0, r_1, r_2 (`degree() - j` for r_j, 0 where that is
    /// negative): known before any table is made, so a device can load their program early.
    pub fn table_degrees(&self) -> [usize; 3] {
        let delta = self.degree();
        [0, 1, 2].map(|j| delta.saturating_sub(j))
    }

    /// The tables of r_0, r_1, r_2 at domain `first_domain` for domains of `n` inputs: exact
    /// mixed differences Δ_N^l Δ_1^j R at `first_domain·n`, then one rounding down to a
    /// multiple of 2^-128, kept modulo 1 (two's complement, so a negative r_2 wraps correctly).
    pub fn packet_tables(&self, first_domain: u64, n: u64) -> PacketTables {
        let delta = self.degree();
        let mut tables = [[0u128; MAX_DEGREE + 1]; 3];
        let degrees = self.table_degrees();
        // V[l][m] = R((first_domain + l)·n + m).
        let values: Vec<[Integer; 3]> = (0..=delta as u64)
            .map(|l| {
                let base = (first_domain + l) * n;
                [0, 1, 2].map(|m| self.eval_scaled(base + m))
            })
            .collect();
        for j in 0..3usize {
            if j > delta {
                break;
            }
            // D_j[l] = Δ_1^j R at (first_domain + l)·n.
            let mut column: Vec<Integer> = values
                .iter()
                .map(|v| match j {
                    0 => v[0].clone(),
                    1 => Integer::from(&v[1] - &v[0]),
                    _ => Integer::from(&v[2] - &v[1]) - (Integer::from(&v[1] - &v[0])),
                })
                .collect();
            let gamma = degrees[j];
            // Forward differences in l: after step s, column[l] for l >= s holds Δ^s at l - s;
            // T_j[s] = column[s].
            for s in 0..=gamma {
                tables[j][s] = self.to_fraction(&column[s]);
                for l in (s + 1..column.len()).rev() {
                    let (lo, hi) = column.split_at_mut(l);
                    hi[0] -= &lo[l - 1];
                }
            }
        }
        PacketTables { tables, degrees }
    }

    /// floor(v·2^-scale·2^128) modulo 2^128.
    fn to_fraction(&self, v: &Integer) -> u128 {
        let fixed = if self.scale >= FRACTION_BITS {
            Integer::from(v >> (self.scale - FRACTION_BITS))
        } else {
            Integer::from(v << (FRACTION_BITS - self.scale))
        };
        fixed.to_u128_wrapping()
    }

    /// R(centre + t) as a polynomial in t, exactly: `(D, scale)` with
    /// `R(centre + t) = Σ D_k t^k · 2^-scale` (Taylor shift of the expansion centre by
    /// `centre - half`, in integers).
    pub fn shifted_scaled(&self, centre: u64) -> (Vec<Integer>, u32) {
        let delta = Integer::from(centre) - self.half;
        // Horner in (t + delta): acc <- acc·(t + delta) + C_k, from the top coefficient.
        let mut acc: Vec<Integer> = Vec::with_capacity(self.coeffs.len());
        for c in self.coeffs.iter().rev() {
            acc.push(Integer::new());
            for k in (0..acc.len()).rev() {
                let shifted = if k > 0 {
                    acc[k - 1].clone()
                } else {
                    Integer::new()
                };
                acc[k] = shifted + Integer::from(&acc[k] * &delta);
            }
            acc[0] += c;
        }
        (acc, self.scale)
    }

    /// R(x) as a rational, for tests: (numerator, scale) with R(x) = numerator·2^-scale.
    pub fn eval_exact(&self, x: u64) -> (Integer, u32) {
        (self.eval_scaled(x), self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R(centre + t) from the shifted coefficients equals R evaluated at centre + t, for
    /// centres on both sides of the expansion centre.
    #[test]
    fn shifted_polynomial_evaluates_like_the_chunk_polynomial() {
        let chunk = ChunkModel {
            len: 1 << 20,
            half: 1 << 19,
            coeffs: [7, -3, 11, 0, -5, 2].map(Integer::from).to_vec(),
            scale: 9,
            approx_error: 0.0,
            diff_bounds: Vec::new(),
        };
        for centre in [0u64, 17, 1 << 19, (1 << 20) - 1] {
            let (shifted, scale) = chunk.shifted_scaled(centre);
            assert_eq!(scale, 9);
            for t in [-17i64, -1, 0, 1, 5, 1000] {
                let x = centre as i64 + t;
                if !(0..1 << 20).contains(&x) {
                    continue;
                }
                let mut acc = Integer::new();
                for c in shifted.iter().rev() {
                    acc = acc * t + c;
                }
                assert_eq!(acc, chunk.eval_exact(x as u64).0, "centre {centre}, t {t}");
            }
        }
    }

    #[test]
    fn integer_shift_right_rounds_down() {
        // to_fraction relies on floor semantics for negative values.
        assert_eq!(Integer::from(-5) >> 1u32, -3);
        assert_eq!(Integer::from(-1).to_u128_wrapping(), u128::MAX);
    }
}
