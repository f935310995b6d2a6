//! The IEEE 754 rounding-direction attributes a target can run under.
//!
//! A C library's functions follow the dynamic rounding mode of the calling thread (`fesetround`);
//! a correctly rounded library must return `∘(f(x))` in each of the four modes, and CORE-MATH's
//! checks test all four. Crunch runs a target under one mode at a time: the target sets it
//! around its own calls ([`crate::Target::rounding`]), and the analysis compares its results with
//! f(x) rounded in that mode. The error in ulps, `|a - f(x)| / ulp(f(x))`, is defined the same
//! way in every mode; only which result counts as correctly rounded changes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A rounding-direction attribute (IEEE 754-2019 §4.3); reports and checkpoints carry it by
/// its [`Rounding::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    /// roundTiesToEven, the default.
    #[default]
    Nearest,
    /// roundTowardPositive.
    Up,
    /// roundTowardNegative.
    Down,
    /// roundTowardZero.
    Zero,
}

impl Rounding {
    /// The four modes, in the order reports list them.
    pub const ALL: [Rounding; 4] = [
        Rounding::Nearest,
        Rounding::Up,
        Rounding::Down,
        Rounding::Zero,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Nearest => "nearest",
            Rounding::Up => "up",
            Rounding::Down => "down",
            Rounding::Zero => "zero",
        }
    }

    /// Parses a mode name (`nearest`, `up`, `down`, `zero`).
    pub fn parse(name: &str) -> Option<Rounding> {
        Rounding::ALL.into_iter().find(|r| r.name() == name)
    }

    /// For a directed mode, whether it rounds a number of this sign down (its result is RD(f),
    /// `Some(true)`) or up (RU(f), `Some(false)`): toward zero is down for positive numbers and
    /// up for negative ones. `None` for round-to-nearest, whose choice depends on more than
    /// the sign.
    pub fn rounds_down(self, positive: bool) -> Option<bool> {
        match self {
            Rounding::Nearest => None,
            Rounding::Up => Some(false),
            Rounding::Down => Some(true),
            Rounding::Zero => Some(positive),
        }
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_parses_back_from_its_name() {
        for r in Rounding::ALL {
            assert_eq!(Rounding::parse(r.name()), Some(r));
        }
        assert_eq!(Rounding::parse("all"), None);
        assert_eq!(Rounding::default(), Rounding::Nearest);
        for r in Rounding::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.name()));
        }
    }

    #[test]
    fn toward_zero_rounds_positive_numbers_down_and_negative_ones_up() {
        assert_eq!(Rounding::Zero.rounds_down(true), Some(true));
        assert_eq!(Rounding::Zero.rounds_down(false), Some(false));
        assert_eq!(Rounding::Up.rounds_down(true), Some(false));
        assert_eq!(Rounding::Down.rounds_down(false), Some(true));
        assert_eq!(Rounding::Nearest.rounds_down(true), None);
    }
}
