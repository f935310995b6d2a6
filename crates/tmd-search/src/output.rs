//! How cases and hardness reports are printed: JSON lines (docs/definitions.md; field names
//! are normative), readable tables, and CORE-MATH's worst-case file format; and the counts
//! and durations of the messages, in units a reader takes in at a glance.

use crate::regime::{Anchor, RangeRecord};
use tmd_core::hardness::{Inexact, Roundings};
use tmd_core::number::round_to_format;
use tmd_core::{Format, FormatNumber, Outcome, Rounded};

/// The four roundings of f(x) where it has a value: a finite or overflowing y, or the signed
/// infinity of a pole, which IEEE 754 (divideByZero) returns exactly in every direction.
fn roundings_of(outcome: &Outcome) -> Option<Roundings> {
    match outcome {
        Outcome::Pole { neg: Some(neg) } => {
            let inf = Rounded::Infinite { neg: *neg };
            Some(Roundings {
                nearest: inf,
                down: inf,
                up: inf,
                toward_zero: inf,
            })
        }
        other => other.roundings().copied(),
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialise")
}

/// One search result: `{"function":…,"format":…,"x":…,"y":…,"kind":…,"bits":…,"k":…}`,
/// written into one buffer (a search of millions of cases spends its listing here).
pub fn case_json(function: &str, format: &Format, x: &FormatNumber, outcome: &Outcome) -> String {
    use std::fmt::Write;
    let mut line = String::with_capacity(160);
    line.push_str("{\"function\":");
    line.push_str(&quote(function));
    line.push_str(",\"format\":");
    line.push_str(&quote(format.name()));
    line.push_str(",\"x\":\"");
    line.push_str(&x.to_hex());
    line.push('"');
    if let Some(r) = roundings_of(outcome) {
        line.push_str(",\"y\":\"");
        line.push_str(&r.nearest.to_hex());
        line.push('"');
    }
    // Writing to a String cannot fail.
    let _ = match outcome {
        Outcome::Inexact(i) => write!(
            line,
            ",\"kind\":\"{}\",\"bits\":{:.3},\"k\":{}",
            i.kind.name(),
            i.bits,
            i.k
        ),
        Outcome::Exact { midpoint, .. } => {
            write!(line, ",\"kind\":\"exact\",\"midpoint\":{midpoint}")
        }
        Outcome::Unresolved {
            precision,
            bits_at_least,
        } => write!(
            line,
            ",\"kind\":\"unresolved\",\"precision\":{precision}{}",
            at_least(bits_at_least)
        ),
        other => write!(line, ",\"kind\":\"{}\"", other.kind_name()),
    };
    line.push('}');
    line
}

/// Column titles of [`case_row`].
pub fn case_header() -> String {
    format!(
        "{:<26} {:<26} {:<10} {:>9} {:>4}",
        "x", "y (nearest)", "kind", "bits", "k"
    )
}

/// One search result as a table row.
pub fn case_row(x: &FormatNumber, outcome: &Outcome) -> String {
    let y = roundings_of(outcome)
        .map(|r| r.nearest.to_hex())
        .unwrap_or_else(|| "-".into());
    let (bits, k) = match outcome {
        Outcome::Inexact(i) => (format!("{:.3}", i.bits), i.k.to_string()),
        Outcome::Unresolved {
            bits_at_least: Some(b),
            ..
        } => (format!(">{b:.0}"), "-".into()),
        _ => ("-".into(), "-".into()),
    };
    format!(
        "{:<26} {:<26} {:<10} {:>9} {:>4}",
        x.to_hex(),
        y,
        outcome.kind_name(),
        bits,
        k
    )
}

fn roundings_json(r: &Roundings) -> String {
    format!(
        "\"y\":\"{}\",\"rn\":\"{}\",\"rd\":\"{}\",\"ru\":\"{}\",\"rz\":\"{}\"",
        r.nearest.to_hex(),
        r.nearest.to_hex(),
        r.down.to_hex(),
        r.up.to_hex(),
        r.toward_zero.to_hex()
    )
}

fn inexact_json(i: &Inexact) -> String {
    format!(
        "\"kind\":\"{}\",\"bits\":{:.3},\"bits_directed\":{:.3},\"bits_nearest\":{:.3},\"k\":{}",
        i.kind.name(),
        i.bits,
        i.bits_directed,
        i.bits_nearest,
        i.k
    )
}

/// `tmd hardness --json`: one object per input, with all four roundings.
pub fn hardness_json(
    function: &str,
    format: &Format,
    x: &FormatNumber,
    outcome: &Outcome,
) -> String {
    let mut fields = vec![
        format!("\"function\":{}", quote(function)),
        format!("\"format\":{}", quote(format.name())),
        format!("\"x\":\"{}\"", x.to_hex()),
    ];
    if let Some(r) = &roundings_of(outcome) {
        fields.push(roundings_json(r));
    }
    fields.push(match outcome {
        Outcome::Inexact(i) => inexact_json(i),
        Outcome::Exact { midpoint, .. } => format!("\"kind\":\"exact\",\"midpoint\":{midpoint}"),
        Outcome::Unresolved {
            precision,
            bits_at_least,
        } => format!(
            "\"kind\":\"unresolved\",\"precision\":{precision}{}",
            at_least(bits_at_least)
        ),
        other => format!("\"kind\":\"{}\"", other.kind_name()),
    });
    format!("{{{}}}", fields.join(","))
}

/// `tmd hardness` without `--json`: a short block per input.
pub fn hardness_text(
    function: &str,
    format: &Format,
    x: &FormatNumber,
    outcome: &Outcome,
) -> String {
    let mut s = format!("{function}({}) in {}\n", x.to_hex(), format.name());
    if let Some(r) = &roundings_of(outcome) {
        s += &format!(
            "  y  {}   (RN {}  RD {}  RU {}  RZ {})\n",
            r.nearest.to_hex(),
            r.nearest.to_hex(),
            r.down.to_hex(),
            r.up.to_hex(),
            r.toward_zero.to_hex()
        );
    }
    s += &match outcome {
        Outcome::Inexact(i) => format!(
            "  kind {}  bits {:.3}  k {}   (to format numbers {:.3} bits, to midpoints {:.3} bits)\n",
            i.kind.name(),
            i.bits,
            i.k,
            i.bits_directed,
            i.bits_nearest
        ),
        Outcome::Exact { midpoint: true, .. } => "  kind exact (f(x) is a midpoint)\n".into(),
        Outcome::Exact { .. } => "  kind exact (f(x) is a number of the format)\n".into(),
        Outcome::Unresolved { precision, bits_at_least } => format!(
            "  kind unresolved (undecided at {precision} bits of precision{})\n",
            bits_at_least
                .map(|b| format!("; within 2^-{b:.0} ulp of a breakpoint, or on one"))
                .unwrap_or_default()
        ),
        Outcome::Overflow { .. } => "  kind overflow (|f(x)| >= 2^(emax+1))\n".into(),
        Outcome::Undefined => "  kind undefined (x is outside the domain)\n".into(),
        Outcome::Pole { neg: Some(_) } => {
            "  kind pole (f(x) is an exact infinity: IEEE 754 divideByZero)\n".into()
        }
        Outcome::Pole { neg: None } => {
            "  kind pole (f(x) is infinite; its sign is not defined)\n".into()
        }
    };
    s
}

fn at_least(bits: &Option<f64>) -> String {
    bits.map(|b| format!(",\"bits_at_least\":{b:.3}"))
        .unwrap_or_default()
}

/// The `#` header of a CORE-MATH worst-case file (`*.wc`). A line break inside a line (an
/// expression may hold one: it is white space there) becomes a space, so that no header text
/// starts a line of its own and reads back as an input.
pub fn wc_header(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("# {}\n", l.replace(['\n', '\r'], " ")))
        .collect()
}

/// One case of a worst-case file: the input, then its kind (and k, bits) as a comment.
pub fn wc_line(x: &FormatNumber, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Inexact(i) => format!(
            "{} # {} k={} bits={:.3}",
            x.to_hex(),
            i.kind.name(),
            i.k,
            i.bits
        ),
        other => format!("{} # {}", x.to_hex(), other.kind_name()),
    }
}

/// The printed parts of a range record: its first and last inputs, and its anchor (a format
/// number, `x`, or a power of two times it: `x/2`, `x*2^k`).
fn range_parts(format: &Format, record: &RangeRecord) -> (String, String, String) {
    let anchor = match &record.anchor {
        Anchor::ScaledInput(0) => "x".to_string(),
        Anchor::ScaledInput(-1) => "x/2".to_string(),
        Anchor::ScaledInput(k) => format!("x*2^{k}"),
        Anchor::Constant(c) => c
            .to_rational()
            .and_then(|q| round_to_format(&q, format).ok())
            .map(|(y, _)| y.to_hex())
            .unwrap_or_else(|| c.to_string()),
    };
    (
        format.from_ordinal(record.start).to_hex(),
        format.from_ordinal(record.end - 1).to_hex(),
        anchor,
    )
}

/// A range record as JSON: every input x with `x_from <= x <= x_to` is hard to round, of kind
/// `directed`, with at least `bits_at_least` bits (docs/definitions.md).
pub fn range_json(function: &str, format: &Format, record: &RangeRecord) -> String {
    let (from, to, anchor) = range_parts(format, record);
    format!(
        "{{\"function\":{},\"format\":{},\"record\":\"range\",\"x_from\":\"{from}\",\"x_to\":\"{to}\",\"inputs\":{},\"kind\":\"directed\",\"bits_at_least\":{:.3},\"rule\":\"{}\",\"anchor\":\"{anchor}\"}}",
        quote(function),
        quote(format.name()),
        record.inputs(),
        record.bits_at_least,
        record.rule_name()
    )
}

/// A range record in the table: one line saying what every input of it is.
pub fn range_row(format: &Format, record: &RangeRecord) -> String {
    let (from, to, anchor) = range_parts(format, record);
    format!(
        "range {from} to {to}: all {} inputs hard, kind directed, bits >= {:.3} (rule {}: f(x) next to {anchor})",
        record.inputs(),
        record.bits_at_least,
        record.rule_name()
    )
}

/// A range record in a worst-case file: a comment line, so that tools reading the inputs skip
/// it, with everything [`range_json`] says.
pub fn wc_range_line(format: &Format, record: &RangeRecord) -> String {
    let (from, to, anchor) = range_parts(format, record);
    format!(
        "# range {from} {to} directed bits>={:.3} inputs={} rule={} anchor={anchor}",
        record.bits_at_least,
        record.inputs(),
        record.rule_name()
    )
}

/// `x` with an SI prefix and three significant digits: 950, 1.20 k, 4.30 G.
pub fn si(x: f64) -> String {
    const PREFIXES: [&str; 7] = ["", " k", " M", " G", " T", " P", " E"];
    let mut v = x;
    let mut i = 0;
    while v >= 999.5 && i + 1 < PREFIXES.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
            .chars()
            .take(4)
            .collect::<String>()
            .trim_end_matches('.')
            .to_string()
            + PREFIXES[i]
    }
}

/// Seconds in the largest unit that keeps them readable.
pub fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 120.0 => format!("{s:.2} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes_keep_three_digits() {
        assert_eq!(si(950.0), "950");
        assert_eq!(si(1200.0), "1.20 k");
        assert_eq!(si(4.3e9), "4.30 G");
        assert_eq!(si(12_345_678.0), "12.3 M");
        assert_eq!(si(999_999.0), "1.00 M");
        assert_eq!(si(2.25e21), "2250 E");
    }

    #[test]
    fn durations_take_the_largest_readable_unit() {
        assert_eq!(duration(3.0), "3.00 s");
        assert_eq!(duration(600.0), "10.0 min");
        assert_eq!(duration(9000.0), "2.5 h");
        assert_eq!(duration(259_200.0), "3.0 days");
    }
}
