//! Accuracy report in the form of Thall 2007, Table II: maximum and RMS error in ulps of each
//! type's nominal precision (48, 96, 106, 212 bits) against MPFR, for every operation and
//! function, over N seeded random inputs per row (the ranges of Table II and wide ranges),
//! then one `edge` row per operation and function over deterministic edge inputs built from
//! the base format's facts (`tests/common/edge.rs`; near overflow and underflow, subnormals,
//! cancellation, divisors near 1, multiples of pi/2, saturation thresholds, zeros and
//! infinities), and a per-type summary of the edge inputs whose IEEE special value (NaN,
//! ±inf, ±0) is not met.
//!
//! `cargo run --release -p tmd-xfloat --example accuracy -- [N]` (default N = 100000); the
//! four types run on threads of their own, the rows are the same whatever the cores. The type
//! rows are the generic `math` functions; the `dd (method)` rows are `Dd`'s table-driven
//! methods (`Dd::exp`, `ln`, `sin`, `cos`), which differ from them. `-- N --changed` runs only
//! the division rows of df64 and dd and the `dd (method)` rows.
#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use rug::Float;
use std::f64::consts::{FRAC_PI_2, LN_2};
use tmd_xfloat::{math, BaseFloat, Dd, Df64, MultiFloat, Qd, Qf128};

#[derive(Clone, Copy)]
enum Range {
    Uniform(f64, f64),
    LogUniform(i32, i32, bool),
}

impl Range {
    fn draw<T: MultiFloat>(self, r: &mut rand_chacha::ChaCha8Rng) -> T {
        match self {
            Range::Uniform(lo, hi) => uniform(r, lo, hi),
            Range::LogUniform(lo, hi, signed) => log_uniform(r, lo, hi, signed),
        }
    }
    fn describe(self) -> String {
        match self {
            Range::Uniform(lo, hi) => format!("[{lo:.4}, {hi:.4}]"),
            Range::LogUniform(lo, hi, s) => {
                format!("{}2^[{lo}, {hi})", if s { "±" } else { "" })
            }
        }
    }
}

type Unary<T> = (&'static str, Range, fn(T) -> T, fn(&Float, u32) -> Float);
type Binary<T> = (
    &'static str,
    Range,
    fn(T, T) -> T,
    fn(&Float, &Float, u32) -> Float,
);

/// The rows of type `T`, as markdown table lines (random rows, then the edge rows), and the
/// type's special-value summary of the edge inputs. With `only`, just the random rows of that
/// operation (drawn from the same seed, so not the same inputs as in the full report).
fn report<T: MultiFloat>(ty: &str, n: usize, seed: u64, only: Option<&str>) -> (String, String) {
    let emax = T::Base::MAX_EXP;
    let over = (emax as f64 - 1.0) * LN_2;
    let tiny = if T::Base::MANTISSA_DIGITS == 24 {
        -30
    } else {
        -60
    };
    let unit = Range::Uniform(-1.0, 1.0);
    let wide = Range::LogUniform(-emax / 3, emax / 3, true);
    let binary: Vec<Binary<T>> = vec![
        (
            "add",
            unit,
            |x, y| x + y,
            |x, y, p| Float::with_val(p, x + y),
        ),
        (
            "sub",
            unit,
            |x, y| x - y,
            |x, y, p| Float::with_val(p, x - y),
        ),
        (
            "mul",
            unit,
            |x, y| x * y,
            |x, y, p| Float::with_val(p, x * y),
        ),
        (
            "div",
            unit,
            |x, y| x / y,
            |x, y, p| Float::with_val(p, x / y),
        ),
        (
            "add",
            wide,
            |x, y| x + y,
            |x, y, p| Float::with_val(p, x + y),
        ),
        (
            "mul",
            wide,
            |x, y| x * y,
            |x, y, p| Float::with_val(p, x * y),
        ),
        (
            "div",
            wide,
            |x, y| x / y,
            |x, y, p| Float::with_val(p, x / y),
        ),
    ];
    let half_pi = Range::Uniform(-FRAC_PI_2, FRAC_PI_2);
    let trig_wide = Range::LogUniform(-20, emax - 1, true);
    let unary: Vec<Unary<T>> = vec![
        (
            "recip",
            unit,
            |x| x.recip(),
            |x, p| Float::with_val(p, x.recip_ref()),
        ),
        (
            "sqrt",
            Range::Uniform(0.0, 1.0),
            |x| x.sqrt(),
            |x, p| Float::with_val(p, x.sqrt_ref()),
        ),
        (
            "sqrt",
            Range::LogUniform(-emax + 60, emax - 1, false),
            |x| x.sqrt(),
            |x, p| Float::with_val(p, x.sqrt_ref()),
        ),
        ("exp", unit, math::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("exp", Range::Uniform(-over, over), math::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("expm1", unit, math::expm1, |x, p| {
            Float::with_val(p, x.exp_m1_ref())
        }),
        (
            "expm1",
            Range::LogUniform(tiny, -1, true),
            math::expm1,
            |x, p| Float::with_val(p, x.exp_m1_ref()),
        ),
        ("log", Range::Uniform(1.0, 2.0), math::log, |x, p| {
            Float::with_val(p, x.ln_ref())
        }),
        (
            "log",
            Range::LogUniform(-emax + 30, emax - 1, false),
            math::log,
            |x, p| Float::with_val(p, x.ln_ref()),
        ),
        ("log1p", Range::Uniform(1.0, 2.0), math::log1p, |x, p| {
            Float::with_val(p, x.ln_1p_ref())
        }),
        (
            "log1p",
            Range::LogUniform(tiny, -1, true),
            math::log1p,
            |x, p| Float::with_val(p, x.ln_1p_ref()),
        ),
        ("sin", half_pi, math::sin, |x, p| {
            Float::with_val(p, x.sin_ref())
        }),
        ("sin", trig_wide, math::sin, |x, p| {
            Float::with_val(p, x.sin_ref())
        }),
        ("cos", half_pi, math::cos, |x, p| {
            Float::with_val(p, x.cos_ref())
        }),
        ("cos", trig_wide, math::cos, |x, p| {
            Float::with_val(p, x.cos_ref())
        }),
        ("tan", half_pi, math::tan, |x, p| {
            Float::with_val(p, x.tan_ref())
        }),
        ("tan", trig_wide, math::tan, |x, p| {
            Float::with_val(p, x.tan_ref())
        }),
        ("atan", unit, math::atan, |x, p| {
            Float::with_val(p, x.atan_ref())
        }),
        (
            "atan",
            Range::LogUniform(tiny, -tiny, true),
            math::atan,
            |x, p| Float::with_val(p, x.atan_ref()),
        ),
        ("sinh", unit, math::sinh, |x, p| {
            Float::with_val(p, x.sinh_ref())
        }),
        ("sinh", Range::Uniform(-over, over), math::sinh, |x, p| {
            Float::with_val(p, x.sinh_ref())
        }),
        ("cosh", unit, math::cosh, |x, p| {
            Float::with_val(p, x.cosh_ref())
        }),
        ("cosh", Range::Uniform(-over, over), math::cosh, |x, p| {
            Float::with_val(p, x.cosh_ref())
        }),
        ("tanh", unit, math::tanh, |x, p| {
            Float::with_val(p, x.tanh_ref())
        }),
        (
            "tanh",
            Range::LogUniform(-30, 8, true),
            math::tanh,
            |x, p| Float::with_val(p, x.tanh_ref()),
        ),
    ];
    let mut r = rng(seed);
    let mut out = String::new();
    let wanted = |name: &str| only.is_none_or(|o| o == name);
    for (name, range, f, reference) in binary.into_iter().filter(|row| wanted(row.0)) {
        let s = binary_stats(n, || (range.draw(&mut r), range.draw(&mut r)), f, reference);
        out.push_str(&format!(
            "| {ty} | {name} | {} | {:.3} | {:.3} |\n",
            range.describe(),
            s.max,
            s.rms
        ));
    }
    for (name, range, f, reference) in unary.into_iter().filter(|row| wanted(row.0)) {
        let s = unary_stats(n, || range.draw(&mut r), f, reference);
        out.push_str(&format!(
            "| {ty} | {name} | {} | {:.3} | {:.3} |\n",
            range.describe(),
            s.max,
            s.rms
        ));
    }
    if only.is_some() {
        return (out, String::new());
    }
    let (edge_rows, summary) = edge_report::<T>(ty);
    out.push_str(&edge_rows);
    (out, summary)
}

/// The rows of `Dd`'s table-driven methods (`x.exp()`, `x.ln()`, `x.sin()`, `x.cos()`; the
/// generic rows above are `math::exp::<Dd>`, ...), over the same ranges, with their edge rows.
fn dd_method_report(n: usize, seed: u64) -> String {
    let over = 1023.0 * LN_2;
    let rows: Vec<Unary<Dd>> = vec![
        ("exp", Range::Uniform(-1.0, 1.0), Dd::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("exp", Range::Uniform(-over, over), Dd::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        // Results above 2^-916, where the bound is claimed (docs/error-analysis.md §7).
        ("exp", Range::Uniform(-634.0, over), Dd::exp, |x, p| {
            Float::with_val(p, x.exp_ref())
        }),
        ("log", Range::Uniform(1.0, 2.0), Dd::ln, |x, p| {
            Float::with_val(p, x.ln_ref())
        }),
        (
            "log",
            Range::LogUniform(-994, 1023, false),
            Dd::ln,
            |x, p| Float::with_val(p, x.ln_ref()),
        ),
        (
            "sin",
            Range::Uniform(-FRAC_PI_2, FRAC_PI_2),
            Dd::sin,
            |x, p| Float::with_val(p, x.sin_ref()),
        ),
        (
            "sin",
            Range::LogUniform(-20, 1023, true),
            Dd::sin,
            |x, p| Float::with_val(p, x.sin_ref()),
        ),
        (
            "cos",
            Range::Uniform(-FRAC_PI_2, FRAC_PI_2),
            Dd::cos,
            |x, p| Float::with_val(p, x.cos_ref()),
        ),
        (
            "cos",
            Range::LogUniform(-20, 1023, true),
            Dd::cos,
            |x, p| Float::with_val(p, x.cos_ref()),
        ),
    ];
    let mut r = rng(seed);
    let mut out = String::new();
    for (name, range, f, reference) in rows {
        let s = unary_stats(n, || range.draw(&mut r), f, reference);
        out.push_str(&format!(
            "| dd (method) | {name} | {} | {:.3} | {:.3} |\n",
            range.describe(),
            s.max,
            s.rms
        ));
    }
    for row in edge::method_rows::<Dd>() {
        let s = &row.stats;
        out.push_str(&format!(
            "| dd (method) | {} | edge: {} in, {} counted | {:.3} | {:.3} |\n",
            row.name, s.total, s.counted, s.max, s.rms
        ));
    }
    out
}

/// Edge rows of type `T` (deterministic inputs from `tests/common/edge.rs`, independent of N):
/// `edge: I in, C counted`, where the C inputs with a finite nonzero reference of magnitude at
/// least `2^(MIN_EXP + WORDS p)` give max and RMS; and the special-value summary.
fn edge_report<T: MultiFloat>(ty: &str) -> (String, String) {
    let facts = edge::Facts::of::<T>();
    let mut rows = String::new();
    let mut summary = String::new();
    let (mut special, mut below) = (0, 0);
    let mut below_max: f64 = 0.0;
    let mut disagree = Vec::new();
    let mut spurious = Vec::new();
    // TMD_EDGE_WORST=1: also list the worst counted input of every edge row.
    let worst_wanted = std::env::var("TMD_EDGE_WORST").is_ok_and(|v| v == "1");
    let mut worst = String::new();
    for row in edge::arithmetic_rows::<T>()
        .into_iter()
        .chain(edge::function_rows::<T>())
    {
        let s = &row.stats;
        rows.push_str(&format!(
            "| {ty} | {} | edge: {} in, {} counted | {:.3} | {:.3} |\n",
            row.name, s.total, s.counted, s.max, s.rms
        ));
        if worst_wanted && s.counted > 0 {
            worst.push_str(&format!(
                "  * worst {}: {:.3} ulp: {}\n",
                row.name, s.max, s.worst
            ));
        }
        special += s.special;
        below += s.below;
        if s.below > 0 {
            below_max = below_max.max(s.below_max);
        }
        disagree.extend(s.disagreements.iter().map(|d| format!("{} {d}", row.name)));
        spurious.extend(s.spurious.iter().map(|d| format!("{} {d}", row.name)));
    }
    summary.push_str(&format!(
        "* {ty}: {special} edge inputs with a NaN/±inf/±0 reference (rounded to the base format), \
         {} disagree with IEEE; {} finite nonzero references computed as NaN/±inf; {below} \
         inputs with a reference below 2^{} not counted (max {below_max:.3} ulp with the \
         subnormal floor)\n",
        disagree.len(),
        spurious.len(),
        facts.thr
    ));
    for d in disagree {
        summary.push_str(&format!("  * disagrees: {d}\n"));
    }
    for d in spurious {
        summary.push_str(&format!("  * spurious: {d}\n"));
    }
    summary.push_str(&worst);
    (rows, summary)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    if args.iter().any(|a| a == "--changed") {
        changed_rows(n);
        return;
    }
    println!("N = {n} random inputs per row (ChaCha8, fixed seeds); errors in ulps of 48/96/106/212 bits\n");
    println!("| type | operation | range | max ulp | rms ulp |");
    println!("|---|---|---|---|---|");
    // One thread per type (each with its own seeded generator, so the rows do not depend on
    // the number of cores); each type's rows are printed, in order, as soon as they are done
    // (qd takes about as long as the three others together).
    std::thread::scope(|scope| {
        let jobs = [
            scope.spawn(move || report::<Df64>("df64", n, 1, None)),
            scope.spawn(move || report::<Qf128>("qf128", n, 2, None)),
            scope.spawn(move || report::<Dd>("dd", n, 3, None)),
            scope.spawn(move || report::<Qd>("qd", n, 4, None)),
        ];
        let dd_methods = scope.spawn(move || dd_method_report(n, 5));
        let mut summaries = String::new();
        for job in jobs {
            let (rows, summary) = job.join().expect("a report thread panicked");
            print!("{rows}");
            summaries.push_str(&summary);
            std::io::Write::flush(&mut std::io::stdout()).expect("stdout");
        }
        print!(
            "{}",
            dd_methods.join().expect("the dd method thread panicked")
        );
        println!("\nEdge inputs, special values (IEEE answer expected where MPFR's result rounded to the base format is NaN, ±inf or ±0):\n");
        print!("{summaries}");
    });
}

/// `--changed`: only the rows of the double-word division and of `Dd`'s table-driven methods,
/// so that they can be rerun at N = 10^7 without the whole report.
fn changed_rows(n: usize) {
    println!("N = {n} random inputs per row (ChaCha8, fixed seeds); rows of the double-word division and of Dd's methods\n");
    println!("| type | operation | range | max ulp | rms ulp |");
    println!("|---|---|---|---|---|");
    std::thread::scope(|scope| {
        let df64 = scope.spawn(move || report::<Df64>("df64", n, 1, Some("div")).0);
        let dd = scope.spawn(move || report::<Dd>("dd", n, 3, Some("div")).0);
        let methods = dd_method_report(n, 5);
        print!("{}", df64.join().expect("df64 thread"));
        print!("{}", dd.join().expect("dd thread"));
        print!("{methods}");
    });
}
