//! Crunching an input list against the independent MPFR-per-input oracle
//! (`tmd_crunch::oracle`): published worst cases of exp (data/worst-cases, CORE-MATH's list)
//! through the platform's exp, and a deliberately wrong target whose failures are known.

use std::io::Cursor;
use std::path::PathBuf;
use tmd_crunch::analysis::Class;
use tmd_crunch::input_list::{check_list, BadLines, Failure, InputList};
use tmd_crunch::oracle::judge;
use tmd_crunch::{resolve, ClosureTarget, CrunchFormat, RefFunc, Target};

/// The first `n` lines of a shipped worst-case file.
fn worst_cases(name: &str, n: usize) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/worst-cases")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

/// Runs the list and checks every failure and every count against the oracle.
fn check_against_oracle(target: &dyn Target, text: &str) -> Vec<Failure> {
    let fmt = target.format();
    let func = target.function();
    let mut list = InputList::new(Cursor::new(text.to_string()), "list", fmt);
    let mut failures = Vec::new();
    let report = check_list(target, &mut list, "list", |f| {
        failures.push(*f);
        Ok::<(), tmd_crunch::CrunchError>(())
    })
    .unwrap();
    let inputs: Vec<f64> = InputList::new(Cursor::new(text.to_string()), "list", fmt)
        .map(|r| r.unwrap().1)
        .collect();
    let (mut cr, mut faithful, mut worse) = (0, 0, 0);
    let mut max: Option<f64> = None;
    let mut failed = failures.iter();
    for &x in &inputs {
        let a = tmd_crunch::driver::eval_one(target, x);
        let verdict = judge(func, fmt, x, a, target.rounding());
        if let Some(e) = verdict.err {
            max = Some(max.map_or(e, |m: f64| m.max(e)));
        }
        if verdict.correctly_rounded {
            cr += 1;
            continue;
        }
        let f = failed
            .next()
            .expect("the oracle finds a failure crunch did not report");
        assert_eq!(f.x.to_bits(), x.to_bits(), "failures in list order");
        assert_eq!(f.got.to_bits(), a.to_bits(), "result at {}", fmt.hex(x));
        match verdict.err {
            Some(e) => assert!(
                (f.err.unwrap() - e).abs() <= 1e-9 * e,
                "error at {}",
                fmt.hex(x)
            ),
            None => assert!(f.err.is_none(), "error at {}", fmt.hex(x)),
        }
        if verdict.faithful {
            faithful += 1;
            assert_eq!(f.class, Class::Faithful, "class at {}", fmt.hex(x));
        } else {
            worse += 1;
            assert_eq!(f.class, Class::Worse, "class at {}", fmt.hex(x));
        }
    }
    assert!(
        failed.next().is_none(),
        "crunch reported a failure the oracle did not find"
    );
    assert_eq!(report.inputs, inputs.len() as u64);
    assert_eq!(
        (
            report.outcome.correctly_rounded,
            report.outcome.faithful,
            report.outcome.worse
        ),
        (cr, faithful, worse)
    );
    match (report.outcome.max_ulp, max) {
        (Some(m), Some(e)) => assert!((m - e).abs() <= 1e-9 * e, "max {m} vs oracle {e}"),
        (None, None) => {}
        other => panic!("maximum: crunch and oracle differ: {other:?}"),
    }
    failures
}

#[test]
fn published_exp_worst_cases_through_the_platform_exp_match_the_oracle() {
    let target = resolve("std:exp").unwrap();
    check_against_oracle(target.as_ref(), &worst_cases("exp.wc", 1500));
}

#[test]
fn a_deliberately_wrong_target_fails_exactly_where_it_is_wrong() {
    let exp = RefFunc::lookup("exp").unwrap();
    // One ulp up on every input whose last mantissa bit is set, NaN at inputs in [0.5, 0.75),
    // correct elsewhere (the libm crate's exp is correctly rounded on these inputs or not; the
    // oracle decides either way).
    let wrong = ClosureTarget::binary64("wrong:exp", exp, |x: f64| {
        let y = libm::exp(x);
        if (0.5..0.75).contains(&x) {
            f64::NAN
        } else if x.to_bits() & 1 == 1 {
            f64::from_bits(y.to_bits() + 1)
        } else {
            y
        }
    });
    let text = worst_cases("exp.wc", 1500) + "0x1.2p-1\n0x1.3p-1\n";
    let failures = check_against_oracle(&wrong, &text);
    assert!(
        failures.iter().any(|f| f.got.is_nan()),
        "the NaN inputs are reported"
    );
    assert!(failures.len() > 300, "{} failures", failures.len());
}

#[test]
fn a_binary32_list_is_judged_in_binary32() {
    let target = resolve("libm:expf").unwrap();
    assert_eq!(target.format(), CrunchFormat::Binary32);
    // Hex lines of binary32 numbers spread over [-104, 89), exp's finite range and beyond.
    let text: String = (0..3000)
        .map(|i| CrunchFormat::Binary32.hex((-104.0 + i as f32 * 0.0643) as f64) + "\n")
        .collect();
    check_against_oracle(target.as_ref(), &text);
}

/// Lines shaped like those of CORE-MATH's published lists that hold no input of the format:
/// binary64 erf.wc's threshold entries (more bits than binary64), binary80 log2l.wc's inputs
/// with more bits than binary80 subnormals have, binary128 exp2q.wc's "Error 10290".
#[test]
fn lines_that_hold_no_input_of_the_format_are_skipped_or_refused() {
    let cases = [
        (
            tmd_core::Format::binary64(),
            "0x1p-3\n0x1.00000000000001p+0 0x1p+0\n# c\n0x1.8p+0\n0x1.000000000000008p+0\n\
             {\"format\":\"binary32\",\"x\":\"0x1p+0\"}\n0x1p+1\n",
            vec![2, 5, 6],
            3,
        ),
        (
            tmd_core::Format::binary80(),
            "0x1p-16445\n0x1.8p-16445\n0x1.4p+0\n0x1.0000000000000001p-16440\n0x1.cp-16445\n",
            vec![2, 4, 5],
            2,
        ),
        (
            tmd_core::Format::binary128(),
            "0x1.8p+0\nError 10290\n0x1p-16494\nError 10290\n",
            vec![2, 4],
            2,
        ),
    ];
    for (format, text, bad, inputs) in cases {
        let name = format.name().to_string();
        let list = |policy| {
            InputList::of_format(Cursor::new(text.to_string()), "list", format.clone())
                .bad_lines(policy)
        };
        let mut skipping = list(BadLines::Skip);
        let mut read = Vec::new();
        while let Some(item) = skipping.next_input() {
            read.push(item.unwrap().0);
        }
        assert_eq!(read.len(), inputs, "{name}: {read:?}");
        let skipped = skipping.not_inputs();
        assert_eq!(skipped.count, bad.len() as u64, "{name}");
        let shown: Vec<usize> = skipped.first.iter().map(|s| s.line).collect();
        assert_eq!(
            shown,
            bad.iter().copied().take(3).collect::<Vec<_>>(),
            "{name}"
        );
        // Refused: the first such line is the error; validate() counts them all first.
        let mut refusing = list(BadLines::Refuse);
        let first_error = std::iter::from_fn(|| refusing.next_input())
            .find_map(Result::err)
            .expect("a bad line is an error");
        assert!(
            first_error
                .to_string()
                .contains(&format!("list:{}:", bad[0])),
            "{name}: {first_error}"
        );
        let all = list(BadLines::Refuse).validate().unwrap();
        assert_eq!(all.count, bad.len() as u64, "{name}");
    }
}
