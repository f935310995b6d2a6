//! Crunch's judgement under each rounding mode against the independent MPFR-per-input oracle
//! (`tmd_crunch::oracle`, which shares no code with the analysis): every input's class and
//! error, and every summary's counts, for targets that are correctly rounded in the mode, one
//! ulp off, round-to-nearest judged in the mode, or NaN where a number is due; on random
//! windows and on windows where the rules of the analysis change (overflow and underflow
//! thresholds, tiny inputs whose f is within a hair of x or 1, exact values).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tmd_crunch::analysis::{fast_error_tolerance, Class};
use tmd_crunch::checkpoint::CheckpointError;
use tmd_crunch::driver::{crunch_chunk, eval_one, run, verdict_binary32, verdict_binary64, Plan};
use tmd_crunch::oracle::{ieee_round_in, judge};
use tmd_crunch::{ClosureTarget, CrunchError, CrunchFormat, RefFunc, Rounding, Target};

/// What a planted target returns at an input, given the correct rounding in its mode.
#[derive(Clone, Copy, Debug)]
enum Plant {
    /// ∘_m(f(x)).
    CorrectlyRounded,
    /// ∘_m(f(x)) moved one ulp, up or down by the parity of x's ordinal in its format.
    OneUlpOff,
    /// RN(f(x)), whatever the mode.
    Nearest,
    /// NaN on every fifth input, ∘_m(f(x)) elsewhere.
    NanSometimes,
    /// The binary64 libm value (rounded to nearest binary32 for binary32): a real
    /// implementation's errors, judged in the mode.
    Libm,
}

fn planted(func: RefFunc, fmt: CrunchFormat, mode: Rounding, plant: Plant, x: f64) -> f64 {
    let correct = ieee_round_in(func, fmt, x, mode);
    match plant {
        Plant::CorrectlyRounded => correct,
        Plant::Nearest => ieee_round_in(func, fmt, x, Rounding::Nearest),
        Plant::NanSometimes if x.to_bits().is_multiple_of(5) => f64::NAN,
        Plant::NanSometimes => correct,
        Plant::Libm => match fmt {
            CrunchFormat::Binary32 => func.libm_f64(x) as f32 as f64,
            CrunchFormat::Binary64 => func.libm_f64(x),
        },
        Plant::OneUlpOff if !correct.is_finite() => correct,
        Plant::OneUlpOff => {
            let o = fmt.ordinal(correct) + if fmt.ordinal(x) % 2 == 0 { 1 } else { -1 };
            if o.abs() > fmt.max_ordinal() {
                correct
            } else {
                fmt.from_ordinal(o)
            }
        }
    }
}

fn target(func: RefFunc, fmt: CrunchFormat, mode: Rounding, plant: Plant) -> Box<dyn Target> {
    let name = format!("{} {fmt:?} {plant:?}", func.name());
    match fmt {
        CrunchFormat::Binary32 => Box::new(
            ClosureTarget::binary32(&name, func, move |x: f32| {
                planted(func, fmt, mode, plant, x as f64) as f32
            })
            .with_rounding(mode),
        ),
        CrunchFormat::Binary64 => Box::new(
            ClosureTarget::binary64(&name, func, move |x| planted(func, fmt, mode, plant, x))
                .with_rounding(mode),
        ),
    }
}

/// Checks every input of `[lo, hi)` and the chunk's summary against the oracle; returns how
/// many inputs the fast rules decided (without MPFR).
fn check_window(t: &dyn Target, lo: i64, hi: i64) -> u64 {
    let (fmt, func, mode) = (t.format(), t.function(), t.rounding());
    let saturation = tmd_crunch::saturation::saturation(func);
    let mut counts = [0u64; 3];
    let mut fast = 0;
    for o in lo..hi {
        let x = fmt.from_ordinal(o);
        let a = eval_one(t, x);
        let (v, mpfr) = match fmt {
            CrunchFormat::Binary32 => verdict_binary32(func, x, a, mode),
            CrunchFormat::Binary64 => verdict_binary64(func, &saturation, x, a, mode),
        };
        fast += u64::from(!mpfr);
        // Which inputs are special does not depend on the mode.
        let nearest = match fmt {
            CrunchFormat::Binary32 => verdict_binary32(func, x, a, Rounding::Nearest).0,
            CrunchFormat::Binary64 => {
                verdict_binary64(func, &saturation, x, a, Rounding::Nearest).0
            }
        };
        let ind = judge(func, fmt, x, a, mode);
        let expected = if ind.correctly_rounded {
            Class::CorrectlyRounded
        } else if ind.faithful {
            Class::Faithful
        } else {
            Class::Worse
        };
        let at = format!(
            "{} in mode {mode} at x = {}, a = {}",
            t.name(),
            fmt.hex(x),
            fmt.hex(a)
        );
        assert_eq!(v.class, expected, "{at}");
        assert_eq!(v.special, nearest.special, "{at}: special class");
        counts[expected as usize] += 1;
        if let (Some(e), Some(want)) = (v.err, ind.err) {
            assert!(
                (e - want).abs() <= fast_error_tolerance(want),
                "{at}: error {e} vs {want}"
            );
        }
        if a.is_finite() && ind.err.is_some() {
            assert!(v.err.is_some(), "{at}: no error where the oracle has one");
        }
    }
    let s = crunch_chunk(t, lo, hi);
    assert_eq!(
        [s.correctly_rounded, s.faithful, s.worse],
        counts,
        "{} in mode {mode} on [{}, {})",
        t.name(),
        fmt.hex(fmt.from_ordinal(lo)),
        fmt.hex(fmt.from_ordinal(hi))
    );
    fast
}

/// Windows of `len` inputs centred on `places`, plus `random` windows anywhere.
fn windows(fmt: CrunchFormat, places: &[f64], random: usize, len: i64) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = places
        .iter()
        .map(|&v| {
            fmt.ordinal(if fmt == CrunchFormat::Binary32 {
                v as f32 as f64
            } else {
                v
            })
        })
        .map(|o| (o - len / 2, o + len / 2))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(places.len() as u64 + random as u64);
    let max = fmt.max_ordinal();
    out.extend((0..random).map(|_| {
        let lo = rng.gen_range(-max..=max - len);
        (lo, lo + len)
    }));
    out
}

/// `TMD_EXTENSIVE=1`: sixteen times the random windows.
fn extensive() -> bool {
    tmd_test_tier::extensive()
}

fn func(name: &str) -> RefFunc {
    RefFunc::lookup(name).unwrap()
}

/// Places where the analysis changes rules for each function: exp's overflow threshold,
/// smallest normal and subnormal results and (binary64) its tiny region; expm1, sin and exp
/// on tiny inputs (f within far less than an ulp of x or 1, both signs); exact results
/// (exp(0) = 1, log(1) = 0, sqrt of squares) and binade edges.
fn places(name: &str, fmt: CrunchFormat) -> Vec<f64> {
    let b64 = fmt == CrunchFormat::Binary64;
    match (name, b64) {
        ("exp", false) => vec![
            0.0, 1e-30, -1e-30, 88.72284, -87.33655, -103.2789, -104.0, -200.0,
        ],
        ("exp", true) => vec![
            0.0,
            1e-300,
            -1e-300,
            709.782712893384,
            -708.3964185322641,
            -745.1332191019411,
            -762.46,
            -800.0,
        ],
        ("expm1", false) => vec![1e-30, -1e-30, 1e-40, 88.72284, -20.0],
        ("expm1", true) => vec![1e-300, -1e-300, 2e-310, 709.782712893384, -40.0],
        ("log", _) => vec![1.0, 2.0, 0.5, 1e-40],
        ("sin", _) => vec![0.0, 1e-30, -1e-20, 1e-40, 1.5707964],
        ("sqrt", _) => vec![4.0, 9.0, 1.0, 0.25],
        // Overflow of both signs: -inf or -MAX by the mode.
        ("sinh", false) => vec![89.41599, -89.41599, 1e-30, -2.0],
        ("sinh", true) => vec![710.4758600739439, -710.4758600739439, 1e-200, -2.0],
        _ => unreachable!(),
    }
}

/// Every planted target of `f` in `mode` checked on `windows` against the oracle: how many
/// inputs each decided fast.
fn fast_per_plant(
    f: RefFunc,
    fmt: CrunchFormat,
    mode: Rounding,
    windows: &[(i64, i64)],
) -> Vec<(Plant, u64)> {
    [
        Plant::CorrectlyRounded,
        Plant::OneUlpOff,
        Plant::Nearest,
        Plant::NanSometimes,
        Plant::Libm,
    ]
    // The plants side by side: each window is checked input by input against the oracle on
    // one thread, and erf's and erfc's windows alone took 53 s one plant after the other.
    .into_par_iter()
    .map(|plant| {
        let t = target(f, fmt, mode, plant);
        let fast = windows
            .iter()
            .map(|&(lo, hi)| check_window(t.as_ref(), lo, hi))
            .sum();
        (plant, fast)
    })
    .collect()
}

fn check_format(fmt: CrunchFormat, random: usize, len: i64) {
    let random = if extensive() { 16 * random } else { random };
    for name in ["exp", "expm1", "log", "sin", "sqrt", "sinh"] {
        let f = func(name);
        let ws = windows(fmt, &places(name, fmt), random, len);
        let inputs: i64 = ws.iter().map(|w| w.1 - w.0).sum();
        for mode in Rounding::ALL {
            for (plant, fast) in fast_per_plant(f, fmt, mode, &ws) {
                // The fast rules, not MPFR alone, are what is checked (the edge windows hold
                // many inputs only MPFR decides: f within the reference's bound of x or 1).
                assert!(
                    fast as i64 > inputs / 8,
                    "{name} {mode} {plant:?}: {fast} of {inputs} inputs decided fast"
                );
            }
        }
    }
}

#[test]
fn binary32_classes_and_errors_match_the_oracle_in_every_mode() {
    check_format(CrunchFormat::Binary32, 16, 64);
}

#[test]
fn binary64_classes_and_errors_match_the_oracle_in_every_mode() {
    check_format(CrunchFormat::Binary64, 10, 48);
}

/// Next to 0, f(x) lies a hair from 1 (exp, exp2, exp10, cos, cosh) or from x (the others),
/// a breakpoint of every directed mode: the references anchored there decide every input, in
/// every mode, as the oracle does, and none goes to MPFR.
#[test]
fn inputs_next_to_zero_are_decided_without_mpfr_in_every_mode() {
    let names = [
        "exp", "exp2", "exp10", "cos", "cosh", "sin", "sinh", "tan", "tanh", "asin", "asinh",
        "atan", "atanh", "expm1", "log1p",
    ];
    let places32 = [1e-30, -1e-20, 1e-10, -3e-7, 1e-43];
    let places64 = [1e-80, -1e-30, 1e-17, -2e-8];
    for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
        let places: &[f64] = match fmt {
            CrunchFormat::Binary32 => &places32,
            CrunchFormat::Binary64 => &places64,
        };
        let ws = windows(fmt, places, 0, 32);
        for name in names {
            assert_decided_without_mpfr(name, fmt, &ws);
        }
    }
}

/// Every input of `windows` judged as the oracle judges it, in every mode, for targets
/// correctly rounded, one ulp off and the libm crate's, and none sent to MPFR.
fn assert_decided_without_mpfr(name: &str, fmt: CrunchFormat, windows: &[(i64, i64)]) {
    let f = func(name);
    for mode in Rounding::ALL {
        for plant in [Plant::CorrectlyRounded, Plant::OneUlpOff, Plant::Libm] {
            let t = target(f, fmt, mode, plant);
            for &(lo, hi) in windows {
                let fast = check_window(t.as_ref(), lo, hi);
                assert_eq!(
                    fast as i64,
                    hi - lo,
                    "{name} {fmt:?} {mode} {plant:?} at {}: MPFR was used",
                    fmt.hex(fmt.from_ordinal(lo))
                );
            }
        }
    }
}

#[test]
fn tanh_and_expm1_a_hair_inside_one_are_decided_without_mpfr_in_every_mode() {
    // tanh(x) -> ±1 and expm1(x) -> -1 from inside: in a directed mode the side of ±1 is the
    // question, answered by the pair at ±1 up to |x| = 350 (700 for expm1) and by the
    // saturation beyond.
    let places32: [(&str, &[f64]); 2] = [
        (
            "tanh",
            &[20.0, -30.0, 100.0, -349.0, 351.0, -1e3, 1e20, -3e38],
        ),
        ("expm1", &[-20.0, -100.0, -699.0, -701.0, -1e10, -3e38]),
    ];
    let places64: [(&str, &[f64]); 2] = [
        ("tanh", &[40.0, -300.0, 350.5, -1e3, 1e300]),
        ("expm1", &[-40.0, -690.0, -700.5, -1e300]),
    ];
    for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
        let places = match fmt {
            CrunchFormat::Binary32 => &places32,
            CrunchFormat::Binary64 => &places64,
        };
        for (name, at) in places {
            assert_decided_without_mpfr(name, fmt, &windows(fmt, at, 0, 32));
        }
    }
}

/// erf and erfc against the oracle in every mode, for every planted target: next to 0 (erfc a
/// hair from 1), where erf nears ±1 and erfc nears 2 (the pairs of `tmd_crunch::anchored`),
/// beyond them, erfc's subnormal and tiny results, and random windows. binary32 is decided
/// mostly by the libm reference; binary64 has no fast reference but MPFR, save the places
/// where the answer is known from the side of an anchor or from saturation.
#[test]
fn erf_and_erfc_match_the_oracle_in_every_mode() {
    let places: [(&str, &[f64]); 2] = [
        (
            "erf",
            &[
                0.0, 1e-30, -1e-20, 0.5, 1.0, -2.0, 3.9, -4.5, 9.0, 26.0, -26.5, 1e10,
            ],
        ),
        (
            "erfc",
            &[
                0.0, 1e-30, -1e-10, 0.47, 1.0, 4.0, 10.05, -6.0, -26.5, 27.6, 30.0, -1e10,
            ],
        ),
    ];
    for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
        let (random, len) = match fmt {
            CrunchFormat::Binary32 => (16, 64),
            CrunchFormat::Binary64 => (6, 24),
        };
        for (name, at) in places {
            let f = func(name);
            let ws = windows(fmt, at, random, len);
            let inputs: i64 = ws.iter().map(|w| w.1 - w.0).sum();
            for mode in Rounding::ALL {
                for (plant, fast) in fast_per_plant(f, fmt, mode, &ws) {
                    if fmt == CrunchFormat::Binary32 {
                        assert!(
                            fast as i64 > inputs / 2,
                            "{name} {mode} {plant:?}: {fast} of {inputs} inputs decided fast"
                        );
                    }
                }
            }
        }
    }
    // Where the side of an anchor decides, no input goes to MPFR (erfc's tiny results are
    // decided by the mode for 0 and the smallest subnormal only, as exp's are).
    let hair32: [(&str, &[f64]); 2] = [
        ("erf", &[5.0, -8.0, 20.0, -26.2, 26.4, -30.0, 1e30]),
        ("erfc", &[-5.0, -20.0, -26.4, -30.0, 1e-30, -1e-20, 3e-7]),
    ];
    for (name, at) in hair32 {
        assert_decided_without_mpfr(
            name,
            CrunchFormat::Binary32,
            &windows(CrunchFormat::Binary32, at, 0, 32),
        );
    }
    let hair64: [(&str, &[f64]); 2] = [
        ("erf", &[26.4, -30.0, 1e300]),
        ("erfc", &[-26.4, -1e300, 1e-305, -1e-320]),
    ];
    for (name, at) in hair64 {
        assert_decided_without_mpfr(
            name,
            CrunchFormat::Binary64,
            &windows(CrunchFormat::Binary64, at, 0, 32),
        );
    }
}

#[test]
fn functions_a_hair_from_x_or_one_below_2_pow_minus_300_are_decided_without_mpfr_in_every_mode() {
    // For 0 < |x| < 2^-300, f - x (or f - 1) is far below any ulp and has the sign of its
    // series' first term: subnormal inputs (the smallest ones too), the last normal binade,
    // and both sides of 2^-300, where the anchored pairs take over.
    let places: &[f64] = &[
        f64::from_bits(40),
        -f64::from_bits(1 << 20),
        2f64.powi(-1022),
        -1e-200,
        2f64.powi(-300),
        -2f64.powi(-300),
    ];
    let names = [
        "exp", "exp2", "exp10", "cos", "cosh", "sin", "sinh", "tan", "tanh", "asin", "asinh",
        "atan", "atanh", "expm1", "log1p",
    ];
    for name in names {
        assert_decided_without_mpfr(
            name,
            CrunchFormat::Binary64,
            &windows(CrunchFormat::Binary64, places, 0, 32),
        );
    }
}

#[test]
fn exact_results_are_correctly_rounded_only_as_themselves_in_directed_modes() {
    // f = 1, 0, 3 exactly: RD = RU = f, so a neighbour is worse, not faithful, in every mode.
    for (name, x, exact) in [("exp", 0.0, 1.0), ("log", 1.0, 0.0), ("sqrt", 9.0, 3.0)] {
        for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
            let saturation = tmd_crunch::saturation::saturation(func(name));
            for mode in Rounding::ALL {
                let judged = |a: f64| match fmt {
                    CrunchFormat::Binary32 => verdict_binary32(func(name), x, a, mode).0,
                    CrunchFormat::Binary64 => {
                        verdict_binary64(func(name), &saturation, x, a, mode).0
                    }
                };
                assert_eq!(
                    judged(exact).class,
                    Class::CorrectlyRounded,
                    "{name} {mode}"
                );
                assert_eq!(judged(exact).err, Some(0.0), "{name} {mode}");
                for up in [true, false] {
                    let other = fmt.neighbour(exact, up).unwrap();
                    assert_eq!(judged(other).class, Class::Worse, "{name} {mode} {other}");
                }
            }
        }
    }
}

#[test]
fn tiny_and_huge_results_follow_the_mode() {
    // exp(-800) is below 2^-1100: +0 in nearest, down and toward zero, the smallest subnormal
    // in up. exp(800) overflows: +inf in nearest and up, MAX in down and toward zero.
    let exp = func("exp");
    let fmt = CrunchFormat::Binary64;
    let sat = tmd_crunch::saturation::saturation(exp);
    let smallest = f64::from_bits(1);
    for (mode, tiny, huge) in [
        (Rounding::Nearest, 0.0, f64::INFINITY),
        (Rounding::Up, smallest, f64::INFINITY),
        (Rounding::Down, 0.0, f64::MAX),
        (Rounding::Zero, 0.0, f64::MAX),
    ] {
        assert_eq!(ieee_round_in(exp, fmt, -800.0, mode), tiny, "{mode}");
        assert_eq!(ieee_round_in(exp, fmt, 800.0, mode), huge, "{mode}");
        let (v, mpfr) = verdict_binary64(exp, &sat, -800.0, tiny, mode);
        assert_eq!((v.class, mpfr), (Class::CorrectlyRounded, false), "{mode}");
        let (v, mpfr) = verdict_binary64(exp, &sat, 800.0, huge, mode);
        assert_eq!((v.class, mpfr), (Class::CorrectlyRounded, false), "{mode}");
        let other_tiny = if tiny == 0.0 { smallest } else { 0.0 };
        assert_eq!(
            verdict_binary64(exp, &sat, -800.0, other_tiny, mode)
                .0
                .class,
            Class::Faithful
        );
        // binary32 expf(-200): the same through the binary64 reference's rules.
        let want32 = if mode == Rounding::Up {
            2f64.powi(-149)
        } else {
            0.0
        };
        assert_eq!(
            ieee_round_in(exp, CrunchFormat::Binary32, -200.0, mode),
            want32
        );
        let (v, mpfr) = verdict_binary32(exp, -200.0, want32, mode);
        assert_eq!((v.class, mpfr), (Class::CorrectlyRounded, false), "{mode}");
    }
}

#[test]
fn report_names_the_mode_and_a_checkpoint_refuses_another_mode() {
    let exp = func("exp");
    let fmt = CrunchFormat::Binary32;
    let path = std::env::temp_dir().join(format!("tmd-rounding-{}.ckpt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut plan = Plan::new(fmt, 1.0, 1.0 + 1.0 / 1024.0, 10).unwrap();
    plan.checkpoint = Some(path.clone());
    let up = target(exp, fmt, Rounding::Up, Plant::CorrectlyRounded);
    let (report, _) = run(up.as_ref(), &plan, |_, _| {}).unwrap();
    assert_eq!(report.rounding, Rounding::Up);
    assert_eq!(report.outcome.correctly_rounded, report.inputs);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["rounding"], "up");
    // The expected result at the maximum is f rounded up: for round-to-nearest results
    // judged in mode up, not the result itself.
    let nearest = target(exp, fmt, Rounding::Up, Plant::Nearest);
    let mut no_checkpoint = plan.clone();
    no_checkpoint.checkpoint = None;
    let (report_rn, _) = run(nearest.as_ref(), &no_checkpoint, |_, _| {}).unwrap();
    let argmax = report_rn.outcome.argmax.clone().unwrap();
    let x = (plan.first..plan.end)
        .map(|o| fmt.from_ordinal(o))
        .find(|&x| fmt.hex(x) == argmax)
        .unwrap();
    assert_eq!(
        report_rn.outcome.argmax_expected,
        Some(fmt.hex(ieee_round_in(exp, fmt, x, Rounding::Up)))
    );
    assert!(report_rn.outcome.faithful > 0 && report_rn.outcome.correctly_rounded > 0);
    let down = target(exp, fmt, Rounding::Down, Plant::CorrectlyRounded);
    match run(down.as_ref(), &plan, |_, _| {}) {
        Err(CrunchError::Checkpoint(e)) => {
            assert!(e.is_bad_input(), "{e}");
            assert!(e.to_string().contains("--rounding up, not down"), "{e}");
            assert!(matches!(e, CheckpointError::Bad { .. }));
        }
        other => panic!("resumed under another mode: {:?}", other.map(|r| r.0)),
    }
    // The same mode resumes every block.
    let (again, _) = run(up.as_ref(), &plan, |_, _| {}).unwrap();
    assert_eq!(again.blocks_resumed, again.blocks);
    let _ = std::fs::remove_file(&path);
    let mut lock = path.into_os_string();
    lock.push(".lock");
    let _ = std::fs::remove_file(lock);
}
