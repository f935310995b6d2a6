//! Cross-checks crunch reports (JSON lines, e.g. docs/logs/crunch-binary32-full.jsonl) at their
//! reported argument with the independent MPFR oracle (`tmd_crunch::oracle`): the target's
//! result there, the error, and whether it is correctly rounded.
//!
//! ```text
//! cargo run --release -p tmd-crunch --example check_argmax -- docs/logs/crunch-binary32-full.jsonl
//! ```

use serde_json::Value;
use tmd_crunch::driver::eval_one;
use tmd_crunch::oracle::judge;
use tmd_crunch::resolve;

fn main() {
    let path = std::env::args().nth(1).expect("a file of JSON reports");
    let text = std::fs::read_to_string(&path).expect("readable");
    let mut failures = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).expect("a JSON report");
        let target = resolve(r["target"].as_str().unwrap()).expect("a known target");
        let fmt = target.format();
        let argmax = r["argmax"].as_str().unwrap();
        let x = tmd_core::number::parse_exact(argmax, &fmt.core())
            .expect("a number of the format")
            .to_float()
            .to_f64();
        let a = eval_one(target.as_ref(), x);
        let v = judge(target.function(), fmt, x, a, target.rounding());
        let reported = r["max_ulp"].as_f64().unwrap();
        let err = v.err.expect("a finite error at the argument");
        let ok = (err - reported).abs() <= 1e-12 * reported.max(1.0)
            && fmt.hex(a) == r["argmax_result"].as_str().unwrap();
        failures += usize::from(!ok);
        println!(
            "{}\t{}\treported {:.9}\toracle {:.9}\tresult {}\t{}",
            r["target"].as_str().unwrap(),
            argmax,
            reported,
            err,
            fmt.hex(a),
            if ok { "agree" } else { "DISAGREE" }
        );
    }
    assert_eq!(failures, 0, "{failures} reports disagree with the oracle");
}
