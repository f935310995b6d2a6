//! The IEEE 754 rounding-direction attributes a target can run under.
//!
//! A C library's functions follow the dynamic rounding mode of the calling thread (`fesetround`);
//! a correctly rounded library must return `∘(f(x))` in each of the four modes, and CORE-MATH's
//! checks test all four. Crunch runs a target under one mode at a time: the target sets it
//! around its own calls ([`crate::Target::rounding`]), and the analysis compares its results with
//! f(x) rounded in that mode. The error in ulps, `|a - f(x)| / ulp(f(x))`, is defined the same
//! way in every mode; only which result counts as correctly rounded changes.

use std::fmt;

/// A rounding-direction attribute (IEEE 754-2019 §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
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
    }
}
