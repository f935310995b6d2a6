//! Edge-case inputs: deterministic lists built per type from the base format's
//! facts (`MAX_EXP`, `MIN_EXP`, `MANTISSA_DIGITS`) and the error statistics over them, shared
//! by `examples/accuracy.rs` and the `edge_*` tests.
//!
//! Only inputs whose MPFR reference, rounded to the base format, is finite and nonzero and of
//! magnitude at least `2^(MIN_EXP + WORDS p)` (where the crate documents that its bounds hold)
//! count towards the maximum and RMS error, measured with the harness's [`ulp_error`] (ulp
//! with a subnormal floor). Inputs whose rounded reference is NaN, `±inf` or `±0` are checked
//! against the IEEE answer instead; finite nonzero references below the threshold are counted
//! separately.

use super::{from_mp, quantum_exp, to_mp, ulp_error, Accumulator, Methods};
use rug::float::Constant as MpConstant;
use rug::Float;
use std::collections::HashSet;
use tmd_xfloat::{math, BaseFloat, MultiFloat};

/// Working precision of the exact edge values (covers `2^1024 .. 2^-1074` and more).
const BIG: u32 = 4096;

/// The base format's facts, as exponents.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// Precision `p` of one word.
    pub p: i32,
    /// Largest finite base value is `(2 - 2^(1-p)) 2^emax`.
    pub emax: i32,
    /// Smallest positive normal base value is `2^emin`.
    pub emin: i32,
    /// Subnormal quantum `2^q`.
    pub q: i32,
    /// Nominal precision of the type (`WORDS p`).
    pub prec: i32,
    /// The documented bounds hold for results of magnitude at least `2^thr`.
    pub thr: i32,
}

impl Facts {
    pub fn of<T: MultiFloat>() -> Self {
        let p = T::Base::MANTISSA_DIGITS as i32;
        Facts {
            p,
            emax: T::Base::MAX_EXP,
            emin: T::Base::MIN_EXP,
            q: quantum_exp::<T>(),
            prec: T::PRECISION as i32,
            thr: T::Base::MIN_EXP + T::WORDS as i32 * p,
        }
    }
}

fn mpf(x: f64) -> Float {
    Float::with_val(BIG, x)
}

/// `2^e`, exactly.
pub fn pow2(e: i32) -> Float {
    Float::with_val(BIG, 1) << e
}

/// The largest finite base value.
fn base_max(f: &Facts) -> Float {
    pow2(f.emax + 1) - pow2(f.emax + 1 - f.p)
}

/// The largest finite value of the type: base `MAX` plus the largest `prec`-bit tail below
/// half its ulp (more would round the leading word to infinity).
fn type_max(f: &Facts) -> Float {
    pow2(f.emax + 1) - pow2(f.emax - f.p) - pow2(f.emax + 1 - f.prec)
}

/// The value `x` rounded to the base format, as an `f64` (NaN, infinities and signed zeros
/// included).
fn round_base<T: MultiFloat>(x: &Float) -> f64 {
    if T::Base::MANTISSA_DIGITS == 24 {
        x.to_f32() as f64
    } else {
        x.to_f64()
    }
}

/// `v` rounded to `T` word by word ([`from_mp`]); NaN, `±inf` (also by overflow of the
/// leading word) and `±0` as the special value with zero trailing words.
pub fn to_t<T: MultiFloat>(v: &Float) -> T {
    let r = round_base::<T>(v);
    if r.is_finite() && r != 0.0 {
        from_mp(v)
    } else {
        T::from_base(T::Base::from_f64(r))
    }
}

/// The words of `x` in hexadecimal (IEEE bit patterns of the base format).
pub fn hex_words<T: MultiFloat>(x: T) -> String {
    let words: Vec<String> = x
        .to_words()
        .iter()
        .take(T::WORDS)
        .map(|w| {
            if T::Base::MANTISSA_DIGITS == 24 {
                format!("{:#010x}", (w.to_f64() as f32).to_bits())
            } else {
                format!("{:#018x}", w.to_f64().to_bits())
            }
        })
        .collect();
    format!("[{}]", words.join(", "))
}

/// Deduplicated list of edge inputs of type `T`.
struct List<T: MultiFloat> {
    facts: Facts,
    items: Vec<T>,
    seen: HashSet<[u64; 4]>,
}

fn key<T: MultiFloat>(x: T) -> [u64; 4] {
    let w = x.to_words();
    [
        w[0].to_f64().to_bits(),
        w[1].to_f64().to_bits(),
        w[2].to_f64().to_bits(),
        w[3].to_f64().to_bits(),
    ]
}

impl<T: MultiFloat> List<T> {
    fn new() -> Self {
        List {
            facts: Facts::of::<T>(),
            items: Vec::new(),
            seen: HashSet::new(),
        }
    }
    fn push(&mut self, x: T) {
        if self.seen.insert(key(x)) {
            self.items.push(x);
        }
    }
    /// `v` rounded to `T`, and its negative when `signed`.
    fn val(&mut self, v: &Float, signed: bool) {
        let x: T = to_t(v);
        self.push(x);
        if signed {
            self.push(-x);
        }
    }
    /// `v` rounded to `T` and its neighbours at multiples of half an ulp of the type (up to
    /// 2 ulps of `PRECISION` bits either side; the half steps give the predecessor of a
    /// power of two).
    fn around(&mut self, v: &Float, signed: bool) {
        let x: T = to_t(v);
        let c = to_mp(x);
        if !c.is_finite() || c.is_zero() {
            self.val(&c, signed);
            return;
        }
        let half = (c.get_exp().unwrap() - self.facts.prec - 1).max(self.facts.q);
        for j in -4..=4 {
            let y = Float::with_val(BIG, &c + &(pow2(half) * j));
            self.val(&y, signed);
        }
    }
    /// `v` rounded to the base format and its base-format neighbours (up to 2 base ulps either
    /// side), each as a single word.
    fn around_base(&mut self, v: &Float, signed: bool) {
        let b = mpf(round_base::<T>(v));
        if !b.is_finite() || b.is_zero() {
            self.val(&b, signed);
            return;
        }
        let f = self.facts;
        let ulp = (b.get_exp().unwrap() - f.p).max(f.q);
        for j in -2..=2 {
            let y = Float::with_val(BIG, &b + &(pow2(ulp) * j));
            // Keep single words only (the predecessor of a power of two has a finer ulp).
            let w = mpf(round_base::<T>(&y));
            self.val(&w, signed);
        }
    }
    /// NaN, `±0` and `±inf`.
    fn specials(&mut self) {
        self.push(T::from_base(T::Base::NAN));
        self.push(T::zero());
        self.push(T::from_base(-T::Base::ZERO));
        self.push(T::from_base(T::Base::INFINITY));
        self.push(T::from_base(-T::Base::INFINITY));
    }
    /// Tiny magnitudes: `2^-60`, `2^-200` (where normal), the threshold `2^thr`, the smallest
    /// normal, the subnormal range, and `2^-(prec/2)`.
    fn tiny(&mut self, signed: bool) {
        let f = self.facts;
        for e in [
            -30,
            -60,
            -200,
            -f.prec / 2,
            f.thr,
            f.emin,
            f.emin - 1,
            f.q + 1,
            f.q,
        ] {
            if e >= f.q {
                self.val(&pow2(e), signed);
            }
        }
        self.around(&pow2(f.thr), signed);
        self.around_base(&pow2(f.emin), signed);
        self.val(&(pow2(f.q) * 3), signed);
    }
    /// The largest finite values and the top powers of two.
    fn huge(&mut self, signed: bool) {
        let f = self.facts;
        self.around(&type_max(&f), signed);
        self.around_base(&base_max(&f), signed);
        self.around(&pow2(f.emax), signed);
    }
}

/// Error statistics over one edge list.
#[derive(Debug, Clone, Default)]
pub struct EdgeStats {
    /// All inputs.
    pub total: usize,
    /// Inputs counted in `max` / `rms` (finite nonzero reference at least `2^thr`).
    pub counted: usize,
    pub max: f64,
    pub rms: f64,
    pub worst: String,
    /// Inputs whose reference rounded to the base format is NaN, `±inf` or `±0`.
    pub special: usize,
    /// Of those, the ones whose result is not the IEEE answer (input and result words in hex).
    pub disagreements: Vec<String>,
    /// Inputs with a finite nonzero reference that came out NaN or `±inf`.
    pub spurious: Vec<String>,
    /// Inputs with a finite nonzero reference below `2^thr` (not counted), and their maximum
    /// error (ulp with the subnormal floor).
    pub below: usize,
    pub below_max: f64,
    /// Every counted input with its error, for listing those above a bound.
    pub errors: Vec<(f64, String)>,
}

struct Collector<T: MultiFloat> {
    threshold: Float,
    acc: Accumulator,
    stats: EdgeStats,
    _t: std::marker::PhantomData<T>,
}

impl<T: MultiFloat> Collector<T> {
    fn new() -> Self {
        Collector {
            threshold: pow2(Facts::of::<T>().thr),
            acc: Accumulator::default(),
            stats: EdgeStats::default(),
            _t: std::marker::PhantomData,
        }
    }
    fn add(&mut self, got: T, exact: &Float, describe: impl Fn() -> String) {
        self.stats.total += 1;
        let r = round_base::<T>(exact);
        let text = || format!("{} -> {}, exact {exact:.6e}", describe(), hex_words(got));
        if r.is_nan() || r.is_infinite() || r == 0.0 {
            self.stats.special += 1;
            let ok = if r.is_nan() {
                got.is_nan()
            } else if r.is_infinite() {
                got.is_infinite() && got.is_sign_negative() == r.is_sign_negative()
            } else {
                got.to_words().iter().all(|w| *w == T::Base::ZERO)
                    && got.is_sign_negative() == r.is_sign_negative()
            };
            if !ok {
                self.stats.disagreements.push(text());
            }
            return;
        }
        if !got.is_finite() {
            self.stats.spurious.push(text());
        }
        let err = ulp_error(got, exact);
        if exact.cmp_abs(&self.threshold) != Some(std::cmp::Ordering::Less) {
            let t = text();
            self.stats.errors.push((err, t.clone()));
            self.acc.add(err, || t);
        } else {
            self.stats.below += 1;
            if err > self.stats.below_max || err.is_nan() {
                self.stats.below_max = err;
            }
        }
    }
    fn finish(mut self) -> EdgeStats {
        let s = self.acc.finish();
        self.stats.counted = s.count;
        self.stats.max = s.max;
        self.stats.rms = s.rms;
        self.stats.worst = s.worst;
        self.stats
    }
}

/// Statistics of a unary function over `inputs`.
pub fn unary_edge<T: MultiFloat>(
    inputs: &[T],
    f: fn(T) -> T,
    reference: fn(&Float, u32) -> Float,
) -> EdgeStats {
    let prec = T::PRECISION + 96;
    let mut c = Collector::<T>::new();
    for &x in inputs {
        let exact = reference(&to_mp(x), prec);
        let got = f(x);
        c.add(got, &exact, || format!("x = {}", hex_words(x)));
    }
    c.finish()
}

/// Statistics of a binary operation over `inputs`.
pub fn binary_edge<T: MultiFloat>(
    inputs: &[(T, T)],
    f: fn(T, T) -> T,
    reference: fn(&Float, &Float, u32) -> Float,
) -> EdgeStats {
    let prec = T::PRECISION + 96;
    let mut c = Collector::<T>::new();
    for &(x, y) in inputs {
        let exact = reference(&to_mp(x), &to_mp(y), prec);
        let got = f(x, y);
        c.add(got, &exact, || {
            format!("x = {}, y = {}", hex_words(x), hex_words(y))
        });
    }
    c.finish()
}

/// Values used as operands of the basic operations.
fn operand_values<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    let one = mpf(1.0);
    for v in [
        one.clone(),
        mpf(0.5),
        mpf(2.0),
        mpf(3.0),
        Float::with_val(BIG, 1) / 3,
        Float::with_val(BIG, MpConstant::Pi),
        one.clone() - pow2(-f.prec),
        one.clone() + pow2(1 - f.prec),
        type_max(&f),
        base_max(&f),
        pow2(f.emax),
        pow2(-f.emax),
        pow2(f.emin),
        pow2(f.emin) - pow2(f.q),
        pow2(f.q),
        pow2(f.q) * 3,
        pow2(f.thr),
    ] {
        l.val(&v, false);
    }
    l.items
}

/// Operand pairs for `+` and `-` (each pair also with the second operand negated).
pub fn additive_pairs<T: MultiFloat>() -> Vec<(T, T)> {
    let f = Facts::of::<T>();
    let mut pairs = Vec::new();
    let vals = operand_values::<T>();
    for &a in &vals {
        for &b in &vals {
            pairs.push((a, b));
        }
    }
    // Cancellation: x and its neighbours (within 2 ulps of the type).
    for v in [
        mpf(1.0),
        Float::with_val(BIG, 1) / 3,
        Float::with_val(BIG, MpConstant::Pi),
        type_max(&f),
        pow2(f.emax),
        pow2(f.emin),
        pow2(f.thr),
        pow2(f.thr + f.prec),
    ] {
        let mut l = List::<T>::new();
        l.around(&v, false);
        let x: T = to_t(&v);
        for &y in &l.items {
            pairs.push((x, y));
        }
    }
    // Absorption and overflow by a tail: 1 + 2^-k, max + half an ulp or one ulp of the base.
    for k in [f.prec - 1, f.prec, f.prec + 1, f.prec + 2, 2 * f.prec] {
        pairs.push((T::one(), to_t(&pow2(-k))));
    }
    let max: T = to_t(&type_max(&f));
    for e in [
        f.emax - f.p,
        f.emax + 1 - f.p,
        f.emax - f.prec,
        f.emax + 1 - f.prec,
    ] {
        pairs.push((max, to_t(&pow2(e))));
    }
    pairs.extend(special_pairs::<T>());
    with_negated_second(pairs)
}

fn with_negated_second<T: MultiFloat>(pairs: Vec<(T, T)>) -> Vec<(T, T)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (a, b) in pairs {
        for p in [(a, b), (a, -b)] {
            if seen.insert((key(p.0), key(p.1))) {
                out.push(p);
            }
        }
    }
    out
}

fn special_pairs<T: MultiFloat>() -> Vec<(T, T)> {
    let mut l = List::<T>::new();
    l.specials();
    let s = l.items;
    let mut pairs = Vec::new();
    for &a in &s {
        for b in s.iter().copied().chain([T::one()]) {
            pairs.push((a, b));
            pairs.push((b, a));
        }
    }
    pairs
}

/// Operand pairs for `*` and `/`.
pub fn multiplicative_pairs<T: MultiFloat>(division: bool) -> Vec<(T, T)> {
    let f = Facts::of::<T>();
    let mut pairs = Vec::new();
    let vals = operand_values::<T>();
    for &a in &vals {
        for &b in &vals {
            pairs.push((a, b));
        }
    }
    if division {
        // Divisors just above and below 1.
        let mut d = List::<T>::new();
        d.around(&mpf(1.0), false);
        d.around_base(&mpf(1.0), false);
        for k in [f.p / 2, f.p, f.prec / 2, f.prec - 1] {
            d.val(&(mpf(1.0) + pow2(-k)), false);
            d.val(&(mpf(1.0) - pow2(-k)), false);
        }
        for &a in &vals {
            for &b in &d.items {
                pairs.push((a, b));
            }
        }
    } else {
        // Products near overflow, near the threshold 2^thr and near the smallest normal.
        for e2 in [
            None,
            Some(f.thr),
            Some(f.emin),
            Some(f.emin + 1),
            Some(f.q + f.prec),
        ] {
            let target = match e2 {
                None => type_max(&f),
                Some(e) => pow2(e),
            };
            let mut l = List::<T>::new();
            l.around(&Float::with_val(BIG, target.sqrt_ref()), false);
            for &a in &l.items {
                for &b in &l.items {
                    pairs.push((a, b));
                }
            }
        }
    }
    pairs.extend(special_pairs::<T>());
    with_negated_second(pairs)
}

/// Arguments of `recip`.
pub fn recip_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    for x in operand_values::<T>() {
        l.push(x);
        l.push(-x);
    }
    l.around(&mpf(1.0), true);
    l.around_base(&mpf(1.0), true);
    l.huge(true);
    l.tiny(true);
    for e in [-f.emax, -f.emax - 1, f.emin, -f.emin, f.emin - 1] {
        l.around(&pow2(e), true);
    }
    l.items
}

/// Arguments of `sqrt`.
pub fn sqrt_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(false);
    l.huge(false);
    for x in operand_values::<T>() {
        l.push(x);
    }
    l.around(&mpf(1.0), false);
    l.around_base(&mpf(1.0), false);
    l.around(&mpf(4.0), false);
    l.around(&pow2(f.emin), false);
    l.around_base(&pow2(f.emin), false);
    l.val(&(pow2(f.emin) - pow2(f.q)), false);
    for v in [mpf(-1.0), -pow2(f.q), -pow2(f.emin)] {
        l.val(&v, false);
    }
    l.items
}

/// Arguments of `exp`, `expm1`, `sinh`, `cosh`, `tanh`: the overflow and underflow thresholds
/// (the crate's, `math::exp_limits` and the `(MAX_EXP - 1) ln 2` of the hyperbolic functions,
/// and the true ones), the saturation of `expm1` and `tanh`, tiny arguments and zeros.
pub fn exp_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(true);
    l.huge(true);
    let ln2 = Float::with_val(BIG, MpConstant::Log2);
    let (over, under) = math::exp_limits::<T::Base>();
    let half_over = (f.emax - 1) as f64 * std::f64::consts::LN_2;
    let tanh_sat = (f.prec as f64 + 4.0) * std::f64::consts::LN_2 / 2.0;
    let expm1_sat = -(f.prec as f64 + 3.0) * std::f64::consts::LN_2;
    for t in [over, under, half_over, -half_over, tanh_sat, expm1_sat] {
        l.around_base(&mpf(t), true);
        l.around(&mpf(t), true);
    }
    let ln = |v: Float| Float::with_val(BIG, v.ln_ref());
    let max = type_max(&f);
    for t in [
        // e^x reaches the largest value / rounds past it.
        ln(max.clone()),
        ln(pow2(f.emax + 1) - pow2(f.emax - f.p)),
        // sinh, cosh: e^x / 2 reaches the largest value.
        ln(max * 2),
        // e^x reaches the smallest subnormal, half of it (rounds to 0), the smallest normal,
        // the threshold 2^thr.
        ln(pow2(f.q)),
        ln(pow2(f.q - 1)),
        ln(pow2(f.emin)),
        ln(pow2(f.thr)),
        // tanh rounds to 1 (1 - tanh x = 2^-(prec+1)), expm1 rounds to -1.
        Float::with_val(BIG, &ln2 * (f.prec + 2)) / 2,
        Float::with_val(BIG, &ln2 * -(f.prec + 1)),
    ] {
        l.around(&t, true);
        l.around_base(&t, true);
    }
    for v in [
        mpf(1.0),
        mpf(0.5),
        ln2.clone(),
        Float::with_val(BIG, &ln2 / 2),
    ] {
        l.around(&v, true);
    }
    l.items
}

/// Arguments of `log`.
pub fn log_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(false);
    l.huge(false);
    l.around(&mpf(1.0), false);
    l.around_base(&mpf(1.0), false);
    for k in [
        1,
        2,
        f.p / 2,
        f.p - 1,
        f.p,
        f.p + 1,
        2 * f.p,
        f.prec - 1,
        f.prec,
        f.prec + 1,
    ] {
        l.val(&(mpf(1.0) + pow2(-k)), false);
        l.val(&(mpf(1.0) - pow2(-k)), false);
    }
    let sqrt2 = Float::with_val(BIG, 2).sqrt();
    l.around(&sqrt2, false);
    l.around_base(&mpf(std::f64::consts::SQRT_2), false);
    l.around(&Float::with_val(BIG, &sqrt2 / 2), false);
    l.around(&Float::with_val(BIG, 1).exp(), false);
    for v in [mpf(0.5), mpf(2.0)] {
        l.around(&v, false);
    }
    l.around(&pow2(f.emin), false);
    l.around_base(&pow2(f.emin), false);
    for v in [mpf(-1.0), -pow2(f.q)] {
        l.val(&v, false);
    }
    l.items
}

/// Arguments of `log1p`.
pub fn log1p_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(true);
    l.huge(false);
    l.val(&pow2(-f.prec), true);
    l.val(&pow2(-f.p), true);
    // Near -1: -1 + 2^-k.
    for k in [1, 2, 10, f.p - 1, f.p, f.p + 1, 2 * f.p, f.prec - 1] {
        l.val(&(pow2(-k) - 1), false);
    }
    l.around(&mpf(-1.0), false);
    l.around_base(&mpf(-1.0), false);
    l.val(&mpf(-2.0), false);
    // The branch points of the implementation (-0.29, 0.41) and 1.
    for t in [-0.29, 0.41, 1.0] {
        l.around(&mpf(t), false);
        l.around_base(&mpf(t), false);
    }
    l.around(&(Float::with_val(BIG, 1).exp() - 1), false);
    l.items
}

/// Arguments of `sin`, `cos`, `tan`: multiples of `pi/4` and `pi/2` rounded to the type (up
/// to `2^20 pi/2`) and their neighbours, arguments near the top of the exponent range, the
/// binary64 and binary32 numbers closest to a multiple of `pi/2` (Muller, "Elementary
/// Functions", ch. 11: `6381956970095103 * 2^797`, distance about `2^-60.9`; `16367173 *
/// 2^72`, distance about `2^-29.2`) and their neighbours, tiny arguments.
pub fn trig_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(true);
    l.huge(true);
    let pi4 = Float::with_val(BIG, MpConstant::Pi) / 4;
    let mut ks: Vec<i64> = (1..=12).collect();
    ks.extend([15, 16, 17, 100, 1000, 1023, 1024, 1025]);
    ks.extend([(1 << 20) - 1, 1 << 20, (1 << 20) + 1]);
    ks.extend([(1 << 21) - 2, (1 << 21) - 1, 1 << 21, (1 << 21) + 1]);
    for k in ks {
        l.around(&Float::with_val(BIG, &pi4 * k), true);
    }
    l.around(&(Float::with_val(BIG, &pi4 * 6) << (f.emax - 2)), true);
    let hard: [(i64, i32); 2] = [(6381956970095103_i64, 797), (16367173_i64, 72)];
    for (m, e) in hard {
        let v: Float = Float::with_val(BIG, m) << e;
        if v.get_exp().unwrap() <= f.emax + 1 {
            l.around(&v, true);
            l.around_base(&v, true);
        }
    }
    l.items
}

/// Arguments of `atan`.
pub fn atan_inputs<T: MultiFloat>() -> Vec<T> {
    let f = Facts::of::<T>();
    let mut l = List::<T>::new();
    l.specials();
    l.tiny(true);
    l.huge(true);
    l.around(&mpf(1.0), true);
    l.around_base(&mpf(1.0), true);
    for e in [f.p / 2, f.prec / 2, f.prec, f.prec + 2, -f.emax] {
        l.val(&pow2(e), true);
    }
    l.items
}

/// One edge row.
pub struct EdgeRow {
    pub name: &'static str,
    pub stats: EdgeStats,
}

type MpUnary = fn(&Float, u32) -> Float;
type MpBinary = fn(&Float, &Float, u32) -> Float;
/// One binary row: name, operand pairs, operation, MPFR reference.
type BinaryRow<'a, T> = (&'static str, &'a [(T, T)], fn(T, T) -> T, MpBinary);
/// One unary row: name, arguments, function, MPFR reference.
type UnaryRow<'a, T> = (&'static str, &'a [T], fn(T) -> T, MpUnary);

/// Edge rows of `add`, `sub`, `mul`, `div`, `recip`, `sqrt`.
pub fn arithmetic_rows<T: MultiFloat>() -> Vec<EdgeRow> {
    let add_pairs = additive_pairs::<T>();
    let mul_pairs = multiplicative_pairs::<T>(false);
    let div_pairs = multiplicative_pairs::<T>(true);
    let binary: [BinaryRow<T>; 4] = [
        (
            "add",
            &add_pairs,
            |x, y| x + y,
            |x, y, p| Float::with_val(p, x + y),
        ),
        (
            "sub",
            &add_pairs,
            |x, y| x - y,
            |x, y, p| Float::with_val(p, x - y),
        ),
        (
            "mul",
            &mul_pairs,
            |x, y| x * y,
            |x, y, p| Float::with_val(p, x * y),
        ),
        (
            "div",
            &div_pairs,
            |x, y| x / y,
            |x, y, p| Float::with_val(p, x / y),
        ),
    ];
    let mut rows: Vec<EdgeRow> = binary
        .into_iter()
        .map(|(name, inputs, f, r)| EdgeRow {
            name,
            stats: binary_edge(inputs, f, r),
        })
        .collect();
    rows.push(EdgeRow {
        name: "recip",
        stats: unary_edge(
            &recip_inputs::<T>(),
            |x| x.recip(),
            |x, p| Float::with_val(p, x.recip_ref()),
        ),
    });
    rows.push(EdgeRow {
        name: "sqrt",
        stats: unary_edge(
            &sqrt_inputs::<T>(),
            |x| x.sqrt(),
            |x, p| Float::with_val(p, x.sqrt_ref()),
        ),
    });
    rows
}

/// Edge rows of the elementary functions, in the order of the random rows.
pub fn function_rows<T: MultiFloat>() -> Vec<EdgeRow> {
    let exp_in = exp_inputs::<T>();
    let log_in = log_inputs::<T>();
    let log1p_in = log1p_inputs::<T>();
    let trig_in = trig_inputs::<T>();
    let atan_in = atan_inputs::<T>();
    let rows: [UnaryRow<T>; 11] = [
        ("exp", &exp_in, math::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("expm1", &exp_in, math::expm1, |x, p| {
            Float::with_val(p, x.exp_m1_ref())
        }),
        ("log", &log_in, math::log, |x, p| {
            Float::with_val(p, x.ln_ref())
        }),
        ("log1p", &log1p_in, math::log1p, |x, p| {
            Float::with_val(p, x.ln_1p_ref())
        }),
        ("sin", &trig_in, math::sin, |x, p| {
            Float::with_val(p, x.sin_ref())
        }),
        ("cos", &trig_in, math::cos, |x, p| {
            Float::with_val(p, x.cos_ref())
        }),
        ("tan", &trig_in, math::tan, |x, p| {
            Float::with_val(p, x.tan_ref())
        }),
        ("atan", &atan_in, math::atan, |x, p| {
            Float::with_val(p, x.atan_ref())
        }),
        ("sinh", &exp_in, math::sinh, |x, p| {
            Float::with_val(p, x.sinh_ref())
        }),
        ("cosh", &exp_in, math::cosh, |x, p| {
            Float::with_val(p, x.cosh_ref())
        }),
        ("tanh", &exp_in, math::tanh, |x, p| {
            Float::with_val(p, x.tanh_ref())
        }),
    ];
    rows.into_iter()
        .map(|(name, inputs, f, r)| EdgeRow {
            name,
            stats: unary_edge(inputs, f, r),
        })
        .collect()
}

/// Edge rows of the functions whose method differs from the generic `math` function for some
/// type (`Dd`'s table-driven exp, log, sin, cos), called as methods.
pub fn method_rows<T: Methods>() -> Vec<EdgeRow> {
    let exp_in = exp_inputs::<T>();
    let log_in = log_inputs::<T>();
    let trig_in = trig_inputs::<T>();
    let rows: [UnaryRow<T>; 4] = [
        ("exp", &exp_in, T::exp_method, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("log", &log_in, T::ln_method, |x, p| {
            Float::with_val(p, x.ln_ref())
        }),
        ("sin", &trig_in, T::sin_method, |x, p| {
            Float::with_val(p, x.sin_ref())
        }),
        ("cos", &trig_in, T::cos_method, |x, p| {
            Float::with_val(p, x.cos_ref())
        }),
    ];
    rows.into_iter()
        .map(|(name, inputs, f, r)| EdgeRow {
            name,
            stats: unary_edge(inputs, f, r),
        })
        .collect()
}

/// Asserts that every edge row's maximum error (over the counted inputs) is within
/// `bound(name)` ulps and that no special value disagrees with IEEE; lists all failures.
pub fn assert_rows(ty: &str, rows: &[EdgeRow], bound: impl Fn(&str) -> f64) {
    let mut failures = Vec::new();
    for row in rows {
        let s = &row.stats;
        let b = bound(row.name);
        eprintln!(
            "{ty} {} edge: max {:.3} ulp, rms {:.3} ulp over {} of {} inputs (bound {b}); \
             {} special, {} disagree; {} below 2^thr",
            row.name,
            s.max,
            s.rms,
            s.counted,
            s.total,
            s.special,
            s.disagreements.len(),
            s.below
        );
        if s.max > b || s.max.is_nan() {
            failures.push(format!(
                "{ty} {} edge: max error {} ulp exceeds {b}; worst: {}",
                row.name, s.max, s.worst
            ));
        }
        for (err, what) in &s.errors {
            if *err > b || err.is_nan() {
                failures.push(format!("{ty} {} edge: {err} ulp > {b}: {what}", row.name));
            }
        }
        for d in &s.disagreements {
            failures.push(format!(
                "{ty} {} edge: special value disagrees: {d}",
                row.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
