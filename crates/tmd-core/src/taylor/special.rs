//! Series of the special functions: eint, li2, digamma, lgamma, gamma, the Bessel functions
//! j0, j1, y0, y1 and the Airy function ai (the table and the proofs are in the parent
//! module's essay and in docs/error-analysis.md, "Taylor models of the special functions").
//!
//! eint and li2 follow the parent's scheme g' = f' h. The others are composed: for an interval
//! v enclosing f_0, [`coefficients`] encloses c_k(y) = phi^(k)(y)/k! for every y in v, and
//! phi(f) = sum_k c_k(f_0) u^k with u = f - f_0 (a series without constant term). Since each
//! c_k holds for every point of v and interval arithmetic is inclusion isotone, the composed
//! coefficients enclose the exact ones for every point of the input intervals, as the
//! parent's recurrences do.

use super::{
    down, exp_series, integrate, max, sin_cos_like, up, value_range, Ival, NoModel, Series,
};
use crate::registry::{eval_rounded, Dir, Func, SpecialModel, Trig};
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};
use std::cell::RefCell;

/// The series of `func` (whose model is `special`) along f, or why there is none.
pub(super) fn apply(
    func: Func,
    special: SpecialModel,
    f: &Series,
    prec: u32,
) -> Result<Series, NoModel> {
    let v = &f.coeffs[0];
    let order = f.order();
    let coefficients = match special {
        SpecialModel::Eint => return eint(f, prec),
        SpecialModel::Li2 => return li2(f, prec),
        SpecialModel::Gamma => {
            let g0 = gamma_range(v, prec)?;
            let log_gamma = compose(
                &polygamma_coefficients(Func::Lgamma, v, order, prec)?,
                f,
                prec,
            )?;
            return exp_series(g0, &log_gamma, prec);
        }
        SpecialModel::Lgamma | SpecialModel::Digamma => {
            polygamma_coefficients(func, v, order, prec)?
        }
        SpecialModel::Bessel {
            first_kind,
            order: n,
        } => bessel_coefficients(func, n, first_kind, v, order, prec)?,
        SpecialModel::Ai => airy_coefficients(v, order, prec)?,
        SpecialModel::Zeta => zeta_coefficients(v, order, prec)?,
    };
    compose(&coefficients, f, prec)
}

/// sum_k c_k u^k with u = f - f_0, by Horner's scheme on series; when f is x itself (u = t)
/// the coefficients are the c_k.
fn compose(c: &[Ival], f: &Series, prec: u32) -> Result<Series, NoModel> {
    let order = f.order();
    let mut u = f.clone();
    u.coeffs[0] = Ival::zero(prec);
    let identity = u.coeffs.iter().enumerate().all(|(k, c)| match k {
        1 => c.lo == 1 && c.hi == 1,
        _ => c.is_zero(),
    });
    if identity {
        return Ok(Series {
            coeffs: c[..=order].to_vec(),
        });
    }
    let mut acc = Series::constant(c[order].clone(), order, prec);
    for ck in c[..order].iter().rev() {
        acc = acc.mul(&u, prec)?;
        acc.coeffs[0] = acc.coeffs[0].add(ck, prec)?;
    }
    Ok(acc)
}

// ---------------------------------------------------------------------------------------------
// eint and li2: g' = f' h.

/// Ei(f): Ei'(y) = e^y / y (DLMF 6.2.5 differentiated), so h = exp(f) / f, for f_0 away from 0.
/// Ei decreases on y < 0 and increases on y > 0.
fn eint(f: &Series, prec: u32) -> Result<Series, NoModel> {
    let f0 = &f.coeffs[0];
    if !f0.excludes_zero() {
        return Err(NoModel::OutsideDomain(Func::Eint));
    }
    let g0 = monotone(Func::Eint, f0, f0.lo > 0, prec)?;
    let exp_f = exp_series(value_range(Func::Exp, f0, prec)?, f, prec)?;
    integrate(g0, f, &exp_f.div(f, prec)?, prec)
}

/// Li2(f) for f_0 < 1: Li2'(y) = q(y) = -log(1 - y)/y (DLMF 25.12.2). Where f_0 excludes 0
/// and |f_0| > 1/2, h = q(f) from the series of log(1 - f) divided by f; nearer 0 that
/// division loses a factor 1/|f_0| per order (and is 0/0 where f_0 contains 0), so the
/// coefficients come from the backward recurrence of [`li2_coefficients`] instead.
fn li2(f: &Series, prec: u32) -> Result<Series, NoModel> {
    let f0 = &f.coeffs[0];
    if f0.hi >= 1 {
        return Err(NoModel::OutsideDomain(Func::Li2));
    }
    let g0 = monotone(Func::Li2, f0, true, prec)?;
    if f0.excludes_zero() && f0.magnitude() > 0.5 {
        // log(1 - f)' = f' h with h = -1/(1 - f).
        let one_minus = f.neg().add_integer(1, prec)?;
        let l0 = value_range(Func::Log1p, &f0.neg(), prec)?;
        let log = integrate(l0, f, &one_minus.recip(prec)?.neg(), prec)?;
        return integrate(g0, f, &log.neg().div(f, prec)?, prec);
    }
    compose(&li2_coefficients(g0, f0, f.order(), prec)?, f, prec)
}

/// Li2^(k)(y)/k! = I_(k-1)(y)/k for every y in v, |v| <= 1/2, k = 1..=order, where
/// I_j(y) = q^(j)(y)/j! = int_0^1 t^j (1 - y t)^(-j-1) dt = int_0^U u^j/(1 + y u) du with
/// U = 1/(1 - y) (substituting u = t/(1 - y t)). Hence I_(j-1) = U^j/j - y I_j, run downwards
/// from an enclosure of I_J ([`li2_integral_bounds`]) whose width shrinks by |y| per step:
/// J - order steps make it negligible at `prec` bits for |y| <= 1/2. (Over a wide v reaching
/// |y| near 1 the steps are capped: the enclosures stay valid, only wider.)
fn li2_coefficients(g0: Ival, v: &Ival, order: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let rho = v.magnitude().to_f64();
    let cap = 2 * prec as usize + 16;
    let extra = if rho == 0.0 {
        1
    } else if rho >= 0.99 {
        cap
    } else {
        (((f64::from(prec) + 8.0) / -rho.log2()).ceil() as usize).min(cap)
    };
    let top = order + extra;
    let u = v.neg().add_integer(1, prec)?.recip(prec)?;
    let mut integral = li2_integral_bounds(v, top, prec)?;
    let mut c = vec![Ival::zero(prec); order + 1];
    for j in (1..=top).rev() {
        let exponent = u32::try_from(j).map_err(|_| NoModel::Overflow)?;
        let power = Ival::new(
            down(prec, (&u.lo).pow(exponent)),
            up(prec, (&u.hi).pow(exponent)),
        )?;
        integral = power
            .div_positive_int(j as u64, prec)?
            .sub(&integral.mul(v, prec)?, prec)?;
        if j <= order {
            c[j] = integral.div_positive_int(j as u64, prec)?; // I_(j-1)/j
        }
    }
    c[0] = g0;
    Ok(c)
}

/// I_j(y) for every y in v (v < 1): the integrand of I_j is positive and increasing in y, and
/// 1 + max(-lo, 0) t >= 1 - y t >= 1 - max(hi, 0) t, so
/// I_j in [1/((j+1)(1 + max(-lo, 0))^(j+1)), 1/((j+1)(1 - max(hi, 0))^(j+1))].
fn li2_integral_bounds(v: &Ival, j: usize, prec: u32) -> Result<Ival, NoModel> {
    let n = u32::try_from(j + 1).map_err(|_| NoModel::Overflow)?;
    let zero = Float::new(prec);
    let far = up(prec, Float::with_val(prec, -&v.lo).max(&zero) + 1u32);
    let near = down(prec, 1u32 - Float::with_val(prec, &v.hi).max(&zero));
    let big = up(prec, &up(prec, far.pow(n)) * n);
    let small = down(prec, &down(prec, near.pow(n)) * n);
    Ival::new(down(prec, 1 / &big), up(prec, 1 / &small))
}

// phi over an interval where it is monotone, from MPFR's directed roundings (the
// elementary functions' own helper).
use super::monotone_range as monotone;

// ---------------------------------------------------------------------------------------------
// digamma, lgamma, gamma: polygamma values from the Hurwitz zeta function.

/// The shift beyond which [`hurwitz_zeta`] refuses: below x = -LARGEST_SHIFT the sum of the
/// shifted terms would cost more than MPFR per input.
const LARGEST_SHIFT: u64 = 1 << 12;

/// Digamma: c_0 = psi(y), c_k = (-1)^(k+1) zeta(k+1, y) (DLMF 25.11.12). Lgamma: c_0 =
/// log|Gamma(y)|, c_1 = psi(y), c_k = (-1)^k zeta(k, y)/k (lgamma' = psi, DLMF 5.15.1).
fn polygamma_coefficients(
    func: Func,
    v: &Ival,
    order: usize,
    prec: u32,
) -> Result<Vec<Ival>, NoModel> {
    if contains_pole(v) {
        return Err(NoModel::OutsideDomain(func));
    }
    let zetas = hurwitz_zeta(func, v, order + 1, prec)?;
    let psi = monotone(Func::Digamma, v, true, prec)?;
    let mut c = Vec::with_capacity(order + 1);
    if func == Func::Digamma {
        c.push(psi);
        for k in 1..=order {
            let z = &zetas[k + 1];
            c.push(if k % 2 == 1 { z.clone() } else { z.neg() });
        }
    } else {
        c.push(lgamma_range(v, &psi, prec)?);
        if order >= 1 {
            c.push(psi);
        }
        for (k, z) in zetas.iter().enumerate().take(order + 1).skip(2) {
            let z = z.div_positive_int(k as u64, prec)?;
            c.push(if k % 2 == 0 { z } else { z.neg() });
        }
    }
    Ok(c)
}

/// Whether v contains a pole of gamma (an integer <= 0).
fn contains_pole(v: &Ival) -> bool {
    let first = Float::with_val(v.lo.prec(), v.lo.ceil_ref());
    first <= v.hi && first <= 0
}

/// log|Gamma| over a pole-free v, with psi its derivative enclosed over v: monotone where psi
/// has a sign; otherwise log|Gamma| is convex on v (its second derivative is
/// psi' = zeta(2, y) > 0), so it lies below the larger end value and above the tangent at lo:
/// L(y) >= L(lo) + psi(lo)(y - lo) >= L(lo) + min(psi(lo), 0)(hi - lo).
fn lgamma_range(v: &Ival, psi: &Ival, prec: u32) -> Result<Ival, NoModel> {
    if psi.lo > 0 || psi.hi < 0 || v.lo == v.hi {
        return monotone(Func::Lgamma, v, psi.lo > 0 || v.lo == v.hi, prec);
    }
    let at = |x: &Float, dir| eval_rounded(Func::Lgamma, x, prec, dir).0;
    let slope = eval_rounded(Func::Digamma, &v.lo, prec, Dir::Down)
        .0
        .min(&Float::new(2));
    let width = up(prec, &v.hi - &v.lo);
    let drop = down(prec, &slope * &width);
    let lo = down(prec, &at(&v.lo, Dir::Down) + &drop);
    let hi = max(at(&v.lo, Dir::Up), at(&v.hi, Dir::Up));
    Ival::new(lo, hi)
}

/// Gamma over a pole-free v: MPFR's directed values at a point, else sign * exp(log|Gamma|),
/// the sign being constant between poles.
fn gamma_range(v: &Ival, prec: u32) -> Result<Ival, NoModel> {
    if contains_pole(v) {
        return Err(NoModel::OutsideDomain(Func::Gamma));
    }
    if v.lo == v.hi {
        return monotone(Func::Gamma, v, true, prec);
    }
    let psi = monotone(Func::Digamma, v, true, prec)?;
    let magnitude = value_range(Func::Exp, &lgamma_range(v, &psi, prec)?, prec)?;
    let sign = eval_rounded(Func::Gamma, &v.lo, 32, Dir::Nearest).0;
    if sign.is_zero() || !sign.is_finite() {
        return Err(NoModel::Overflow);
    }
    Ok(if sign < 0 { magnitude.neg() } else { magnitude })
}

/// zeta(s, y) = sum_{j>=0} (y + j)^(-s) for s = 2..=smax, enclosed for every y in v (index s
/// of the result; 0 and 1 are unused). The first n terms are summed (DLMF 25.11.3), the rest
/// by Euler-Maclaurin (DLMF 2.10.1) at a = v + n, with the remainder bound proven in
/// docs/error-analysis.md:
///
/// ```text
///     zeta(s, a) = a^(1-s)/(s-1) + a^(-s)/2 + sum_{i<m} b_i (s)_(2i-1) a^(-s-2i+1) + R,
///     |R| <= 2 |b_m| (s)_(2m-1) a^(-s-2m+1),      b_i = B_(2i)/(2i)!.
/// ```
///
/// With a >= (smax + 2m)/pi + 1 successive terms shrink at least fourfold, so m = prec/2 + 2
/// terms reach the working precision.
fn hurwitz_zeta(func: Func, v: &Ival, smax: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let m = (prec / 2 + 2) as usize;
    let target = ((smax + 2 * m) as f64 / std::f64::consts::PI).ceil() + 1.0;
    hurwitz_zeta_with(func, v, smax, prec, m, target)
}

/// [`hurwitz_zeta`] with m Euler-Maclaurin terms from the first v + n >= target (any m >= 1
/// and target > 0 give an enclosure).
fn hurwitz_zeta_with(
    func: Func,
    v: &Ival,
    smax: usize,
    prec: u32,
    m: usize,
    target: f64,
) -> Result<Vec<Ival>, NoModel> {
    let gap = Float::with_val(prec, target - &v.lo).ceil();
    let shift = if gap <= 0 {
        0
    } else {
        gap.to_u32_saturating().map_or(u64::MAX, u64::from)
    };
    if shift > LARGEST_SHIFT {
        return Err(NoModel::Unimplemented(
            func,
            "below x = -4096 its series would need over 4096 shifted terms",
        ));
    }
    let mut sums = vec![Ival::zero(prec); smax + 1];
    for j in 0..shift {
        let w = v.add_integer(j as i32, prec)?.recip(prec)?;
        let mut power = w.square(prec)?;
        for sum in sums.iter_mut().skip(2) {
            *sum = sum.add(&power, prec)?;
            power = power.mul(&w, prec)?;
        }
    }
    let a = v.add_integer(shift as i32, prec)?;
    if a.lo <= 0 {
        return Err(NoModel::Overflow); // Euler-Maclaurin below needs a > 0
    }
    let b = bernoulli_ratios(m, prec)?;
    for (s, sum) in sums.iter_mut().enumerate().skip(2) {
        *sum = sum.add(&euler_maclaurin_tail(&a, s, &b, prec)?, prec)?;
    }
    Ok(sums)
}

/// zeta(s, a) for a >= 1 by Euler-Maclaurin with b.len() = m terms (see [`hurwitz_zeta`]).
fn euler_maclaurin_tail(a: &Ival, s: usize, b: &[Ival], prec: u32) -> Result<Ival, NoModel> {
    let w = a.recip(prec)?;
    let w2 = w.square(prec)?;
    let s64 = s as i64;
    let mut power = w.clone(); // a^(1-s), built from w^(s-1)
    for _ in 2..s {
        power = power.mul(&w, prec)?;
    }
    let mut total = power.div_positive_int(s as u64 - 1, prec)?;
    power = power.mul(&w, prec)?; // a^(-s)
    total = total.add(&power.div_positive_int(2, prec)?, prec)?;
    let mut pochhammer = Ival::integer(1, prec).mul_int(s64, prec)?; // (s)_1
    power = power.mul(&w, prec)?; // a^(-s-1)
    for (i, bi) in b.iter().enumerate().map(|(i, bi)| (i + 1, bi)) {
        let term = bi.mul(&pochhammer, prec)?.mul(&power, prec)?;
        if i == b.len() {
            let bound = up(prec, term.magnitude() * 2u32);
            return total.add(&Ival::ball(&Float::new(prec), &bound, prec)?, prec);
        }
        total = total.add(&term, prec)?;
        let k = s64 + 2 * i as i64;
        pochhammer = pochhammer.mul_int(k - 1, prec)?.mul_int(k, prec)?;
        power = power.mul(&w2, prec)?;
    }
    Err(NoModel::InvalidArgument("Euler-Maclaurin needs m >= 1"))
}

thread_local! {
    /// b_1..b_m of [`bernoulli_ratios`] per precision: a search asks for one precision.
    static BERNOULLI: RefCell<Vec<(u32, Vec<Ival>)>> = const { RefCell::new(Vec::new()) };
}

/// b_i = B_(2i)/(2i)! = (-1)^(i+1) 2 zeta(2i) / (2 pi)^(2i) (Euler's formula, DLMF 25.6.2) for
/// i = 1..=m, with zeta(2i) from MPFR's directed roundings.
fn bernoulli_ratios(m: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let cached = BERNOULLI.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, b)| *p == prec && b.len() >= m)
            .map(|(_, b)| b[..m].to_vec())
    });
    if let Some(b) = cached {
        return Ok(b);
    }
    let two_pi_squared = Ival::pi(prec).mul_int(2, prec)?.square(prec)?;
    let step = two_pi_squared.recip(prec)?;
    let mut scale = step.mul_int(2, prec)?; // 2 / (2 pi)^(2i)
    let mut b = Vec::with_capacity(m);
    for i in 1..=m {
        let n = u32::try_from(2 * i).map_err(|_| NoModel::Overflow)?;
        let zeta = Ival::new(
            Float::with_val_round(prec, Float::zeta_u(n), Round::Down).0,
            Float::with_val_round(prec, Float::zeta_u(n), Round::Up).0,
        )?;
        let value = zeta.mul(&scale, prec)?;
        b.push(if i % 2 == 1 { value } else { value.neg() });
        scale = scale.mul(&step, prec)?;
    }
    BERNOULLI.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= 4 {
            cache.remove(0); // zeta's working precision varies with s < 0: keep a few
        }
        cache.push((prec, b.clone()));
    });
    Ok(b)
}

// ---------------------------------------------------------------------------------------------
// Bessel functions: derivatives from DLMF 10.6.7.

/// C_n^(k)(y)/k! = 2^-k/k! sum_{j=0..k} (-1)^j binom(k, j) C_(n-k+2j)(y) (DLMF 10.6.7, any
/// cylinder function C), with C_(-m) = (-1)^m C_m (DLMF 10.4.1).
fn bessel_coefficients(
    func: Func,
    n: i64,
    first_kind: bool,
    v: &Ival,
    order: usize,
    prec: u32,
) -> Result<Vec<Ival>, NoModel> {
    let values = if first_kind {
        bessel_j_values(v, order + 1, prec)?
    } else {
        if v.lo <= 0 {
            return Err(NoModel::OutsideDomain(func));
        }
        bessel_y_values(v, order + 1, prec)?
    };
    let signed = |m: i64| {
        let value = &values[m.unsigned_abs() as usize];
        if m < 0 && m % 2 != 0 {
            value.neg()
        } else {
            value.clone()
        }
    };
    let mut c = Vec::with_capacity(order + 1);
    let mut factorial = Integer::from(1);
    for k in 0..=order {
        if k > 0 {
            factorial *= k as u64;
        }
        let denominator = Integer::from(&factorial << k as u32);
        let mut sum = Ival::zero(prec);
        for j in 0..=k {
            let mut weight = Rational::from((
                Integer::from(Integer::binomial_u(k as u32, j as u32)),
                denominator.clone(),
            ));
            if j % 2 == 1 {
                weight = -weight;
            }
            let term =
                signed(n + 2 * j as i64 - k as i64).mul(&Ival::rational(&weight, prec), prec)?;
            sum = sum.add(&term, prec)?;
        }
        c.push(sum);
    }
    Ok(c)
}

/// J_0..J_top over v: MPFR's directed values at a point; over a wider v, J_m(lo) +- (hi - lo)
/// clipped to [-1, 1], since |J_m| <= 1 (DLMF 10.14.1) and J_m' = (J_(m-1) - J_(m+1))/2
/// (DLMF 10.6.1) give |J_m'| <= 1.
fn bessel_j_values(v: &Ival, top: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let width = up(prec, &v.hi - &v.lo);
    (0..=top)
        .map(|m| {
            let m = i32::try_from(m).map_err(|_| NoModel::Overflow)?;
            let at = |dir| Float::with_val_round(prec, v.lo.jn_ref(m), dir).0;
            let lo = down(prec, &at(Round::Down) - &width);
            let hi = up(prec, &at(Round::Up) + &width);
            Ok(Ival::new(lo, hi)?.clamp_to_unit())
        })
        .collect()
}

/// Y_0..Y_top over v with v.lo > 0: at a point MPFR's directed values of each; over a wider
/// v, Y_0 and Y_1 by the Gronwall bound of [`bessel_y_spread`], the others by the forward
/// recurrence Y_(m+1) = (2m/y) Y_m - Y_(m-1) (DLMF 10.6.1) in interval arithmetic.
fn bessel_y_values(v: &Ival, top: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let at = |m: usize, dir| {
        let m = i32::try_from(m).map_err(|_| NoModel::Overflow)?;
        Ok(Float::with_val_round(prec, v.lo.yn_ref(m), dir).0)
    };
    if v.lo == v.hi {
        return (0..=top)
            .map(|m| Ival::new(at(m, Round::Down)?, at(m, Round::Up)?))
            .collect();
    }
    let y0 = Ival::new(at(0, Round::Down)?, at(0, Round::Up)?)?;
    let y1 = Ival::new(at(1, Round::Down)?, at(1, Round::Up)?)?;
    let spread = bessel_y_spread(v, &y0, &y1, prec)?;
    let widen = |y: Ival| Ival::new(down(prec, &y.lo - &spread), up(prec, &y.hi + &spread));
    let mut values = vec![widen(y0)?, widen(y1)?];
    let inverse = v.recip(prec)?;
    for m in 1..top {
        let next = inverse
            .mul(&values[m], prec)?
            .mul_int(2 * m as i64, prec)?
            .sub(&values[m - 1], prec)?;
        values.push(next);
    }
    values.truncate(top + 1);
    Ok(values)
}

/// A bound on |Y_n(y) - Y_n(lo)| for n = 0, 1 and y in v = [lo, hi], lo > 0: (Y_0, Y_1)' =
/// A (Y_0, Y_1) with A = [[0, -1], [1, -1/y]] (DLMF 10.6.2, 10.6.3), whose max-norm is
/// 1 + 1/y <= L = 1 + 1/lo; by Gronwall's inequality the max-norm of (Y_0, Y_1) stays below
/// N e^(L (y - lo)), N its value at lo, so the change is at most L w N e^(L w), w = hi - lo.
fn bessel_y_spread(v: &Ival, y0: &Ival, y1: &Ival, prec: u32) -> Result<Float, NoModel> {
    let lipschitz = up(prec, up(prec, 1 / &v.lo) + 1u32);
    let width = up(prec, &v.hi - &v.lo);
    let lw = up(prec, &lipschitz * &width);
    let growth = eval_rounded(Func::Exp, &lw, prec, Dir::Up).0;
    let start = max(y0.magnitude(), y1.magnitude());
    let spread = up(prec, &up(prec, &lw * &start) * &growth);
    if spread.is_finite() {
        Ok(spread)
    } else {
        Err(NoModel::Overflow)
    }
}

// ---------------------------------------------------------------------------------------------
// Airy function: Ai'' = x Ai, with Ai' from the Maclaurin series.

/// The largest number of Maclaurin terms [`airy_derivative_at`] sums (|y| = 256 needs about
/// 6000).
const AIRY_MAX_TERMS: usize = 1 << 15;

/// Ai^(k)(y)/k! for every y in v: with a_0 = Ai(y), a_1 = Ai'(y), Ai'' = x Ai at x = y + t
/// gives (k + 2)(k + 1) a_(k+2) = y a_k + a_(k-1) (DLMF 9.2.1).
fn airy_coefficients(v: &Ival, order: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    if v.lo < -256 || v.hi > 128 {
        return Err(NoModel::Unimplemented(
            Func::Ai,
            "outside -256 <= x <= 128, where MPFR's Ai is practical",
        ));
    }
    let (value, slope) = airy_values(v, prec)?;
    let mut a = vec![value, slope];
    for k in 0..order.saturating_sub(1) {
        let mut next = a[k].mul(v, prec)?;
        if k >= 1 {
            next = next.add(&a[k - 1], prec)?;
        }
        a.push(next.div_positive_int(((k + 2) * (k + 1)) as u64, prec)?);
    }
    a.truncate(order + 1);
    Ok(a)
}

/// Ai and Ai' over v. At a point: Ai from MPFR, Ai' from [`airy_derivative_at`]. Over
/// [lo, hi]: w = (Ai, Ai') satisfies w' = A w with A = [[0, 1], [x, 0]], whose max-norm is at
/// most L = max(1, |lo|, |hi|) on v, so by Gronwall's inequality (as for Y in
/// [`bessel_y_spread`]) |w(x) - w(lo)| <= L w N e^(L w), N = |w(lo)|, w = hi - lo.
fn airy_values(v: &Ival, prec: u32) -> Result<(Ival, Ival), NoModel> {
    let value = Ival::new(
        eval_rounded(Func::Ai, &v.lo, prec, Dir::Down).0,
        eval_rounded(Func::Ai, &v.lo, prec, Dir::Up).0,
    )?;
    let slope = airy_derivative_at(&v.lo, prec)?;
    if v.lo == v.hi {
        return Ok((value, slope));
    }
    let norm = max(v.magnitude(), Float::with_val(prec, 1));
    let width = up(prec, &v.hi - &v.lo);
    let lw = up(prec, &norm * &width);
    let growth = eval_rounded(Func::Exp, &lw, prec, Dir::Up).0;
    let start = max(value.magnitude(), slope.magnitude());
    let spread = up(prec, &up(prec, &lw * &start) * &growth);
    let widen = |y: Ival| Ival::new(down(prec, &y.lo - &spread), up(prec, &y.hi + &spread));
    Ok((widen(value)?, widen(slope)?))
}

/// Ai'(y) at an exact y, from Ai(x) = sum_k alpha_k x^k with alpha_0 = Ai(0),
/// alpha_1 = Ai'(0) = -1/(3^(1/3) Gamma(1/3)) (DLMF 9.2.4), alpha_2 = 0 and
/// alpha_(k+3) = alpha_k/((k+3)(k+2)) (from Ai'' = x Ai). The terms T_k = k alpha_k y^(k-1)
/// of Ai'(y) satisfy |T_(k+3)| = |T_k| |y|^3/(k(k+2)); once that ratio is at most 1/2, the
/// three interleaved tails are geometric and sum to at most 2(|T_K| + |T_(K+1)| + |T_(K+2)|).
/// The terms reach about e^((2/3)|y|^(3/2)) while Ai'(y) may be that small, so the sum runs at
/// prec + 2|y|^(3/2) + 64 bits.
fn airy_derivative_at(y: &Float, prec: u32) -> Result<Ival, NoModel> {
    let size = Float::with_val(y.prec(), y.abs_ref()).to_f64_round(Round::Up);
    let work = prec + (2.0 * size.powf(1.5)) as u32 + 64;
    let tiny = Float::with_val(64, 1) >> (work as i32);
    let y = Ival::point(y);
    // At step k: alpha = [alpha_(k-2), alpha_(k-1), alpha_k], power = y^(k-1).
    let mut alpha = airy_origin(work)?;
    let mut power = y.clone();
    let mut sum = alpha[1].clone(); // T_1 = alpha_1
    let mut recent = [Float::new(work), Float::new(work), Float::new(work)];
    for k in 2..AIRY_MAX_TERMS {
        let term = alpha[2].mul(&power, work)?.mul_int(k as i64, work)?;
        sum = sum.add(&term, work)?;
        recent[k % 3] = term.magnitude();
        // From index k - 2 on, |T_(j+3)|/|T_j| = |y|^3/(j(j+2)) <= 1/2, so the tail past k is
        // at most |T_(k-2)| + |T_(k-1)| + |T_k| (doubled for safety).
        // (The margin covers the rounding of the f64 products.)
        let ratio_small = size.powi(3) * (1.0 + 1e-9) <= ((k - 2) * k) as f64 / 2.0;
        if k >= 5 && ratio_small && recent.iter().all(|t| *t < tiny) {
            let tail = up(work, up(work, &recent[0] + &recent[1]) + &recent[2]) * 2u32;
            let total = sum.add(&Ival::ball(&Float::new(work), &tail, work)?, work)?;
            return Ival::new(down(prec, &total.lo), up(prec, &total.hi));
        }
        let next = alpha[0].div_positive_int(((k + 1) * k) as u64, work)?; // alpha_(k+1)
        alpha = [alpha[1].clone(), alpha[2].clone(), next];
        power = power.mul(&y, work)?;
    }
    Err(NoModel::Unimplemented(
        Func::Ai,
        "its Maclaurin series did not converge",
    ))
}

/// alpha_0, alpha_1, alpha_2 = Ai(0), Ai'(0), 0 (DLMF 9.2.3, 9.2.4), enclosed at `work` bits.
fn airy_origin(work: u32) -> Result<[Ival; 3], NoModel> {
    let zero = Float::new(work);
    let ai0 = Ival::new(
        eval_rounded(Func::Ai, &zero, work, Dir::Down).0,
        eval_rounded(Func::Ai, &zero, work, Dir::Up).0,
    )?;
    let third = Ival::integer(1, work).div_positive_int(3, work)?;
    // Gamma decreases on (0, 1.46): Gamma(1/3) lies between its values at the ends of `third`.
    let gamma = Ival::new(
        eval_rounded(Func::Gamma, &third.hi, work, Dir::Down).0,
        eval_rounded(Func::Gamma, &third.lo, work, Dir::Up).0,
    )?;
    let three = Float::with_val(8, 3);
    let cube_root = Ival::new(
        eval_rounded(Func::Cbrt, &three, work, Dir::Down).0,
        eval_rounded(Func::Cbrt, &three, work, Dir::Up).0,
    )?;
    let slope0 = cube_root.mul(&gamma, work)?.recip(work)?.neg();
    Ok([ai0, slope0, Ival::zero(work)])
}

// ---------------------------------------------------------------------------------------------
// Riemann zeta: Euler-Maclaurin on truncated series in s.

/// The largest |x| at which [`zeta_coefficients`] builds a model (beyond, the Euler-Maclaurin
/// sums grow with |x| and MPFR per input is cheaper).
const ZETA_LARGEST_ARGUMENT: f64 = 4096.0;

/// The smallest argument at which zeta's coefficients come from [`zeta_large_argument`].
const ZETA_LARGE_ARGUMENT: u32 = 64;

/// zeta^(k)(y)/k! for every y in v (v must exclude the pole 1): Euler-Maclaurin (DLMF 2.10.1)
/// for f(x) = x^(-s) from N on, continued analytically to Re s > 1 - 2m,
///
/// ```text
///     zeta(s) = sum_{n<N} n^(-s) + N^(1-s)/(s-1) + N^(-s)/2
///               + sum_{i<m} b_i (s)_(2i-1) N^(-s-2i+1) + R_m(s),
///     |R_m(s)| <= 2 |b_m| |(s)_(2m)| N^(1-Re s-2m) / (Re s + 2m - 1),
/// ```
///
/// evaluated on truncated series in t with s = v + t, so that each coefficient of t^k is
/// enclosed. R_m is analytic for Re s > 1 - 2m, so by Cauchy's estimate on the disc of radius 1
/// around any s in v its k-th Taylor coefficient is at most the bound above maximised over that
/// disc (docs/error-analysis.md).
fn zeta_coefficients(v: &Ival, order: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    if !v.add_integer(-1, prec)?.excludes_zero() {
        return Err(NoModel::OutsideDomain(Func::Zeta));
    }
    if let Some(c) = zeta_large_argument(v, order, prec)? {
        return Ok(c);
    }
    // Down to -1 the Euler-Maclaurin sums cancel terms of at most N (a few bits more), while
    // the reflection next to 0 multiplies sin(pi s/2) by the pole of zeta(1 - s): its series
    // lose about -log2|s| bits per order (at s = -2^-64 and 244 bits, coefficients 1 to 3
    // came within 2^-177, 2^-113 and 2^-49; the sums give 2^-243 or less for each).
    let mut c = if v.hi < 0 && v.lo < -1 {
        zeta_reflected(v, order, prec)?
    } else {
        zeta_euler_maclaurin(v, order, prec)?
    };
    // MPFR's correctly rounded value where the sums' enclosure of zeta(v) is wider than 2^8
    // units of `prec` bits. Elsewhere it is within a few units already (2^-1178 of zeta's
    // value at 1,180 bits next to 0), and MPFR's zeta at such precisions cost about 2.5 times
    // the rest of the model (the regime rule's models over zeta's binades next to 0).
    if v.lo == v.hi && !within_units(&c[0], prec.saturating_sub(8)) {
        c[0] = monotone(Func::Zeta, v, true, prec)?;
    }
    Ok(c)
}

/// zeta^(k)(y)/k! for every y in v where v lies beyond both the working precision and
/// [`ZETA_LARGE_ARGUMENT`], from the Dirichlet series alone: zeta(y) - 1 = S_0(y) and
/// zeta^(k)(y) = (-1)^k S_k(y) with S_k(y) = sum_{n>=2} (ln n)^k n^-y, and for y > 1 + k/ln 2
///
/// ```text
///     0 < S_k(y) <= (ln 2)^k 2^-y (1 + 2 / (y - 1 - k/ln 2))
/// ```
///
/// (the terms n >= 3 are below the integral from 2 of (ln t)^k t^-y, decreasing for
/// y ln 2 > k; with u = ln t and u^k <= (ln 2)^k e^(k (u - ln 2)/ln 2) it is at most
/// (ln 2)^k 2^(1-y) / (y - 1 - k/ln 2)). S_k decreases in y, so its bound at inf v holds over v.
/// There 2^-y is below the precision's resolution, where the Euler-Maclaurin sums would give
/// zeta(y) as 1 plus or minus their rounding error only, at a cost growing with y; beyond
/// 4096 they are not built at all. `None` below that or where y - 1 - k/ln 2 <= 1.
fn zeta_large_argument(v: &Ival, order: usize, prec: u32) -> Result<Option<Vec<Ival>>, NoModel> {
    let threshold = Float::with_val(
        64,
        prec.min(ZETA_LARGEST_ARGUMENT as u32)
            .max(ZETA_LARGE_ARGUMENT),
    );
    if v.lo < threshold {
        return Ok(None);
    }
    // Every operation is rounded the safe way (a reference operand keeps MPFR's rounding to
    // the target). y - 1 - k/ln 2 at inf v and the largest k, rounded down (1/ln 2 < 1.4427):
    // its factor bounds every S_k's.
    let inverse_ln2 = up(64, &Float::with_val(64, 14427u32) / 10000u32);
    let steep = up(64, &inverse_ln2 * order as u32);
    let y_down = down(64, &v.lo);
    let denominator = down(64, &down(64, &y_down - 1u32) - &steep);
    if denominator <= 1 {
        return Ok(None);
    }
    let two_to_minus_y = eval_rounded(Func::Exp2, &Float::with_val(64, -&y_down), 64, Dir::Up).0;
    let factor = up(64, &up(64, &Float::with_val(64, 2) / &denominator) + 1u32);
    let mut bound = up(64, &two_to_minus_y * &factor); // S_0's; S_k/k!'s below
    let ln2 = up(64, &Float::with_val(64, 6932u32) / 10000u32); // > ln 2
    let mut c = vec![Ival::new(
        Float::with_val(prec, 1),
        up(prec, &bound + 1u32),
    )?];
    for k in 1..=order {
        bound = up(64, &up(64, &bound * &ln2) / k as u32);
        let magnitude = up(prec, &bound);
        c.push(if k % 2 == 0 {
            Ival::new(Float::new(prec), magnitude)?
        } else {
            Ival::new(-magnitude, Float::new(prec))?
        });
    }
    Ok(Some(c))
}

/// Whether the enclosure `c` excludes zero and is at most one unit of `bits` bits of its
/// magnitude wide.
fn within_units(c: &Ival, bits: u32) -> bool {
    if !c.excludes_zero() {
        return false;
    }
    let width = Float::with_val(64, &c.hi - &c.lo);
    let magnitude = c.lo.clone().abs().min(&c.hi.clone().abs());
    match (width.get_exp(), magnitude.get_exp()) {
        (None, _) => true,
        (Some(w), Some(m)) => i64::from(w) <= i64::from(m) - i64::from(bits),
        (Some(_), None) => false,
    }
}

/// zeta(s) = 2^s pi^(s-1) sin(pi s/2) Gamma(1 - s) zeta(1 - s) (DLMF 25.4.1) on series, for
/// v < 0: there the Euler-Maclaurin sums of [`zeta_euler_maclaurin`] cancel terms of size
/// N^(-s) and their interval enclosures over a wide v would be useless.
fn zeta_reflected(v: &Ival, order: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    let s = Series::variable(v.clone(), order, prec);
    let ln2 = Ival::ln2(prec);
    let two_s = exp_series(
        value_range(Func::Exp2, v, prec)?,
        &s.scale(&ln2, prec)?,
        prec,
    )?;
    let ln_pi = value_range(Func::Log, &Ival::pi(prec), prec)?;
    let pi_exponent = value_range(
        Func::Exp,
        &v.add_integer(-1, prec)?.mul(&ln_pi, prec)?,
        prec,
    )?;
    let pi_s = exp_series(pi_exponent, &s.scale(&ln_pi, prec)?, prec)?;
    let half_s = s.scale(&Ival::half(prec), prec)?;
    let sine0 = value_range(Func::Sinpi, &half_s.coeffs[0], prec)?;
    let sine = sin_cos_like(Trig::HalfTurn, true, sine0, &half_s, prec)?;
    let one_minus = s.neg().add_integer(1, prec)?;
    let gamma = apply(Func::Gamma, SpecialModel::Gamma, &one_minus, prec)?;
    let mirror = zeta_euler_maclaurin(&one_minus.coeffs[0], order, prec)?;
    let zeta_mirror = compose(&mirror, &one_minus, prec)?;
    let product = two_s
        .mul(&pi_s, prec)?
        .mul(&sine, prec)?
        .mul(&gamma, prec)?
        .mul(&zeta_mirror, prec)?;
    Ok(product.coeffs)
}

/// zeta's coefficients by Euler-Maclaurin on series (see [`zeta_coefficients`]).
fn zeta_euler_maclaurin(v: &Ival, order: usize, prec: u32) -> Result<Vec<Ival>, NoModel> {
    // sup |s| and inf Re s over the discs of radius 1 around v, rounded outwards.
    let size = (v.magnitude().to_f64_round(Round::Up) + 1.0).next_up();
    if size.is_nan() || size > ZETA_LARGEST_ARGUMENT {
        return Err(NoModel::Unimplemented(
            Func::Zeta,
            "beyond |x| = 4096 its Euler-Maclaurin sums would cost more than MPFR",
        ));
    }
    let sigma = (v.lo.to_f64_round(Round::Down) - 1.0).next_down();
    let m = ((prec / 2 + 2) as usize).max(((2.0 - sigma) / 2.0).ceil() as usize + 1);
    let big_n = ((size + (2 * m) as f64) / std::f64::consts::PI).ceil() as u64 + 1;
    zeta_euler_maclaurin_with(v, order, prec, m, big_n)
}

/// [`zeta_euler_maclaurin`] with m terms from N = `big_n` on (any m >= 1 and N >= 1 give an
/// enclosure; the choice above makes it tight).
fn zeta_euler_maclaurin_with(
    v: &Ival,
    order: usize,
    prec: u32,
    m: usize,
    big_n: u64,
) -> Result<Vec<Ival>, NoModel> {
    let size = (v.magnitude().to_f64_round(Round::Up) + 1.0).next_up();
    let sigma = (v.lo.to_f64_round(Round::Down) - 1.0).next_down();
    // Terms of the sums reach N^(-sigma) while zeta may be as small as 1: extra bits for s < 0.
    let work = prec + 3 * (-sigma).max(0.0).ceil() as u32 + 32;
    let s = Series::variable(Ival::new(down(work, &v.lo), up(work, &v.hi))?, order, work);
    let mut total = Series::constant(Ival::zero(work), order, work);
    for n in 1..big_n {
        total = total.add(&power_of_minus_s(n, &s, work)?, work)?;
    }
    let e = power_of_minus_s(big_n, &s, work)?; // N^(-s)
    let n_ival = Ival::point(&Float::with_val(64, big_n));
    let pole = e
        .scale(&n_ival, work)?
        .div(&s.add_integer(-1, work)?, work)?;
    total = total
        .add(&pole, work)?
        .add(&e.scale(&Ival::half(work), work)?, work)?;
    let b = bernoulli_ratios(m, work)?;
    let inverse_n = n_ival.recip(work)?;
    let mut pochhammer = s.clone(); // (s)_(2i-1)
    let mut e_i = e.scale(&inverse_n, work)?; // N^(-s-2i+1)
    let inverse_n2 = inverse_n.square(work)?;
    for (i, bi) in b.iter().enumerate().take(m - 1).map(|(i, bi)| (i + 1, bi)) {
        total = total.add(&pochhammer.mul(&e_i, work)?.scale(bi, work)?, work)?;
        pochhammer = times_linear(&pochhammer, &s, 2 * i as i32 - 1, work)?;
        pochhammer = times_linear(&pochhammer, &s, 2 * i as i32, work)?;
        e_i = e_i.scale(&inverse_n2, work)?;
    }
    let bound = zeta_remainder_bound(&b[m - 1], m, big_n, size, sigma, work)?;
    let ball = Ival::ball(&Float::new(work), &bound, work)?;
    total
        .coeffs
        .iter()
        .map(|c| {
            let enclosed = c.add(&ball, work)?;
            Ival::new(down(prec, &enclosed.lo), up(prec, &enclosed.hi))
        })
        .collect()
}

/// The series of n^(-s) = n^(-v) exp(-t ln n): coefficients n^(-v) (-ln n)^k / k!.
fn power_of_minus_s(n: u64, s: &Series, work: u32) -> Result<Series, NoModel> {
    let order = s.order();
    if n == 1 {
        return Ok(Series::constant(Ival::integer(1, work), order, work));
    }
    let n = Float::with_val(64, n);
    let log = Ival::new(
        eval_rounded(Func::Log, &n, work, Dir::Down).0,
        eval_rounded(Func::Log, &n, work, Dir::Up).0,
    )?;
    let minus_log = log.neg();
    let g0 = value_range(Func::Exp, &minus_log.mul(&s.coeffs[0], work)?, work)?;
    let mut coeffs = vec![g0];
    for k in 1..=order {
        let next = coeffs[k - 1]
            .mul(&minus_log, work)?
            .div_positive_int(k as u64, work)?;
        coeffs.push(next);
    }
    Ok(Series { coeffs })
}

/// p (s + j) for s = s_0 + t: coefficient k is (s_0 + j) p_k + p_(k-1).
fn times_linear(p: &Series, s: &Series, j: i32, work: u32) -> Result<Series, NoModel> {
    let a = s.coeffs[0].add_integer(j, work)?;
    let mut coeffs = Vec::with_capacity(p.coeffs.len());
    for k in 0..p.coeffs.len() {
        let mut c = p.coeffs[k].mul(&a, work)?;
        if k > 0 {
            c = c.add(&p.coeffs[k - 1], work)?;
        }
        coeffs.push(c);
    }
    Ok(Series { coeffs })
}

/// 2 |b_m| prod_{j<2m} (size + j) N^(1-sigma-2m) / (sigma + 2m - 1), rounded up: the bound of
/// |R_m(s)| over every disc of radius 1 around a point of v (|s| <= size, Re s >= sigma).
fn zeta_remainder_bound(
    bm: &Ival,
    m: usize,
    big_n: u64,
    size: f64,
    sigma: f64,
    work: u32,
) -> Result<Float, NoModel> {
    // Directed operations: the exponent rounded up, the denominator down (N > 1).
    let sigma = Float::with_val(64, sigma);
    let denominator = down(work, down(work, &sigma + (2 * m) as u64) - 1u32);
    if denominator <= 0.5 {
        return Err(NoModel::Overflow);
    }
    let mut bound = up(work, bm.magnitude() * 2u32);
    let size = up(work, Float::with_val(64, size) * 1u32);
    for j in 0..2 * m {
        bound = up(work, &bound * &up(work, &size + j as u64));
    }
    let exponent = up(work, up(work, 1u32 - &sigma) - (2 * m) as u64);
    let power = up(work, Float::with_val(64, big_n).pow(&exponent));
    let bound = up(work, &bound * &power);
    let bound = up(work, &bound / &denominator);
    if bound.is_finite() {
        Ok(bound)
    } else {
        Err(NoModel::Overflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREC: u32 = 128;

    fn iv(lo: f64, hi: f64) -> Ival {
        Ival {
            lo: Float::with_val(53, lo),
            hi: Float::with_val(53, hi),
        }
    }

    fn holds(range: &Ival, value: &Float) -> bool {
        range.lo <= *value && *value <= range.hi
    }

    /// MPFR's phi at x, rounded to nearest at twice the precision.
    fn at(func: Func, x: f64) -> Float {
        eval_rounded(func, &Float::with_val(53, x), 2 * PREC, Dir::Nearest).0
    }

    #[test]
    fn gamma_ranges_hold_the_extrema_inside_the_interval() {
        // log|Gamma| has its minimum near 1.4616 and |Gamma| one near -0.5041 (psi = 0).
        for (lo, hi, extremum) in [
            (1.2, 1.7, 1.4616321449683623),
            (-0.7, -0.3, -0.5040830082644554),
        ] {
            let v = iv(lo, hi);
            let psi = monotone(Func::Digamma, &v, true, PREC).unwrap();
            assert!(psi.lo < 0 && psi.hi > 0);
            let log_range = lgamma_range(&v, &psi, PREC).unwrap();
            let gamma = gamma_range(&v, PREC).unwrap();
            for x in [lo, hi, extremum, (lo + hi) / 2.0] {
                assert!(holds(&log_range, &at(Func::Lgamma, x)), "lgamma({x})");
                assert!(holds(&gamma, &at(Func::Gamma, x)), "gamma({x})");
            }
        }
    }

    #[test]
    fn hurwitz_zeta_at_one_is_riemann_zeta() {
        let zetas = hurwitz_zeta(Func::Digamma, &iv(1.0, 1.0), 30, PREC).unwrap();
        for (s, z) in zetas.iter().enumerate().skip(2) {
            let exact = Float::with_val(2 * PREC, Float::zeta_u(s as u32));
            assert!(holds(z, &exact), "zeta({s})");
            let width = Float::with_val(PREC, &z.hi - &z.lo);
            assert!(
                width < Float::with_val(PREC, 1) >> (PREC - 8) as i32,
                "zeta({s}): {width}"
            );
        }
        // zeta(2, y) = psi'(y) by the mean value theorem on psi between two points.
        let zetas = hurwitz_zeta(Func::Digamma, &iv(-2.75, -2.75), 3, PREC).unwrap();
        let h = 1e-6;
        let slope = (at(Func::Digamma, -2.75 + h) - at(Func::Digamma, -2.75 - h)) / (2.0 * h);
        let gap = Float::with_val(PREC, &zetas[2].lo - &slope).abs();
        assert!(
            gap < 1e-6,
            "zeta(2, -2.75) = {} vs psi' {slope}",
            zetas[2].lo
        );
    }

    #[test]
    fn zeta_far_right_holds_the_sums_at_high_precision() {
        // At 64 bits from 64 on the Dirichlet series' bound is used; the sums at 1,024 bits
        // resolve 2^-y and must lie inside it, coefficient by coefficient.
        for (lo, hi) in [(64.0, 64.0), (100.0, 101.5), (700.0, 700.0)] {
            let v = iv(lo, hi);
            let far = zeta_large_argument(&v, 6, 64).unwrap().expect("far right");
            let sums = zeta_euler_maclaurin(&v, 6, 1024).unwrap();
            for (k, (a, b)) in far.iter().zip(&sums).enumerate() {
                assert!(
                    a.lo <= b.lo && b.hi <= a.hi,
                    "[{lo}, {hi}] c_{k}: {a:?} vs {b:?}"
                );
            }
            // Tight: c_0 - 1 within 2^-lo (1 + 2/(lo - 10)), plus the rounding of 1 + that
            // up to 64 bits.
            let excess = Float::with_val(64, &far[0].hi - 1u32);
            let bound = Float::with_val(64, -lo).exp2() * 1.05 + Float::with_val(64, -63).exp2();
            assert!(excess <= bound, "{excess}");
        }
        // Beyond 4096, where the sums are refused, against MPFR's zeta.
        let far = zeta_coefficients(&iv(5000.0, 5000.0), 4, PREC).unwrap();
        let exact = Float::with_val(6000, Float::with_val(64, 5000).zeta_ref());
        assert!(holds(&far[0], &exact) && exact > 1);
        assert!(zeta_large_argument(&iv(20.0, 20.0), 4, PREC)
            .unwrap()
            .is_none());
    }

    #[test]
    fn zeta_next_to_zero_on_the_left_keeps_its_bits() {
        // The reflection formula lost about 64 bits per order at -2^-64; the sums do not.
        let v = iv(-(2f64.powi(-64)), -(2f64.powi(-64)));
        let c = zeta_coefficients(&v, 3, 244).unwrap();
        for (k, ck) in c.iter().enumerate() {
            let width = Float::with_val(64, &ck.hi - &ck.lo);
            assert!(
                width < Float::with_val(64, 2f64.powi(-230)),
                "c_{k}: {width}"
            );
        }
    }

    #[test]
    fn bessel_values_over_intervals_hold_mpfr_values() {
        for (lo, hi) in [(0.01, 0.0125), (0.9, 1.1), (20.0, 20.5), (-3.0, -2.0)] {
            let v = iv(lo, hi);
            let j = bessel_j_values(&v, 12, PREC).unwrap();
            let y = (lo > 0.0).then(|| bessel_y_values(&v, 12, PREC).unwrap());
            for i in 0..=8 {
                let x = Float::with_val(53, lo + (hi - lo) * f64::from(i) / 8.0);
                for m in 0..=12 {
                    let exact = Float::with_val(2 * PREC, x.jn_ref(m as i32));
                    assert!(holds(&j[m], &exact), "J_{m}({x})");
                    if let Some(y) = &y {
                        let exact = Float::with_val(2 * PREC, x.yn_ref(m as i32));
                        assert!(holds(&y[m], &exact), "Y_{m}({x})");
                    }
                }
            }
        }
    }

    #[test]
    fn li2_recurrence_matches_the_quotient_where_both_apply() {
        // At y = -0.4 the k-th coefficient of Li2 is also that of h = -log(1 - y)/y, integrated.
        let v = iv(-0.4, -0.4);
        let c = li2_coefficients(Ival::zero(PREC), &v, 10, PREC).unwrap();
        let x = Series::variable(v.clone(), 10, PREC);
        let g0 = monotone(Func::Li2, &v, true, PREC).unwrap();
        let direct = {
            let one_minus = x.neg().add_integer(1, PREC).unwrap();
            let l0 = value_range(Func::Log1p, &v.neg(), PREC).unwrap();
            let h = one_minus.recip(PREC).unwrap().neg();
            let log = integrate(l0, &x, &h, PREC).unwrap();
            let q = log.neg().div(&x, PREC).unwrap();
            integrate(g0, &x, &q, PREC).unwrap()
        };
        for (k, (a, b)) in c.iter().zip(&direct.coeffs).enumerate().skip(1) {
            assert!(a.lo <= b.hi && b.lo <= a.hi, "c_{k}: {a:?} vs {b:?}");
            assert!(Float::with_val(PREC, &a.hi - &a.lo) < 1e-30, "c_{k} width");
        }
    }
    #[test]
    fn airy_derivative_matches_central_differences() {
        for x in [-200.0, -3.5, 0.0, 0.5, 7.25, 100.0] {
            let slope = airy_derivative_at(&Float::with_val(53, x), PREC).unwrap();
            let width = Float::with_val(PREC, &slope.hi - &slope.lo);
            let size = Float::with_val(PREC, slope.magnitude());
            assert!(width <= size.clone() >> 100, "Ai'({x}): width {width}");
            // (Ai(x + h) - Ai(x - h))/(2h) = Ai'(x) + O(h^2 |Ai'''|), h = 2^-60.
            let h = Float::with_val(8, 1) >> 60;
            let wide = 4 * PREC;
            let ai = |y: Float| eval_rounded(Func::Ai, &y, wide, Dir::Nearest).0;
            let center = Float::with_val(53, x);
            let above = Float::with_val(wide, &center + &h);
            let below = Float::with_val(wide, &center - &h);
            let twice = Float::with_val(wide, &h * 2u32);
            let difference = Float::with_val(wide, ai(above) - ai(below)) / twice;
            let gap = Float::with_val(wide, &difference - &slope.lo).abs();
            assert!(gap <= size >> 90, "Ai'({x}) = {} vs {difference}", slope.lo);
        }
    }

    #[test]
    fn euler_maclaurin_remainder_bounds_hold_with_few_terms() {
        // With m = 2 or 3 terms and a small N the remainder is far above 2^-prec: the ball
        // must still hold zeta and its first derivatives (from the full-accuracy series).
        for (x, big_n) in [(2.5, 2), (0.25, 3), (-0.75, 4), (7.0, 2)] {
            let v = iv(x, x);
            let exact = zeta_euler_maclaurin(&v, 4, PREC).unwrap();
            let mpfr = at(Func::Zeta, x);
            assert!(holds(&exact[0], &mpfr), "zeta({x})");
            for m in [1, 2, 3] {
                let Ok(rough) = zeta_euler_maclaurin_with(&v, 4, PREC, m, big_n) else {
                    // 2m > 2 - x is needed for the remainder integral to converge on the discs.
                    assert!((2 * m) as f64 <= 2.5 - x, "zeta({x}) m {m} refused");
                    continue;
                };
                for (k, (r, e)) in rough.iter().zip(&exact).enumerate() {
                    assert!(
                        r.lo <= e.lo && e.hi <= r.hi,
                        "zeta({x}) m {m} N {big_n} c_{k}"
                    );
                }
                let width = Float::with_val(PREC, &rough[0].hi - &rough[0].lo);
                assert!(
                    width > 1e-30,
                    "zeta({x}) m {m}: the remainder is not exercised"
                );
            }
        }
        // The same for the Hurwitz zeta of the polygamma series.
        for y in [0.5, -2.75, 3.25] {
            let v = iv(y, y);
            let exact = hurwitz_zeta(Func::Digamma, &v, 6, PREC).unwrap();
            for (m, target) in [(1, 1.5), (2, 2.0), (3, 1.0)] {
                let rough = hurwitz_zeta_with(Func::Digamma, &v, 6, PREC, m, target).unwrap();
                for s in 2..=6 {
                    let (r, e) = (&rough[s], &exact[s]);
                    assert!(r.lo <= e.lo && e.hi <= r.hi, "zeta({s}, {y}) m {m}");
                }
            }
        }
    }
}
