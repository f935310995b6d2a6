//! The seven counts of a search: one type for the counts a search reports, the resume journal
//! keeps with each checkpoint, and the ranks of an MPI run send to the root.

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign};

/// What a search (or a finished part of it) counted. Every input is counted once in `inputs`
/// and at most once in one of the other six.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "[u64; 7]", into = "[u64; 7]")]
pub struct Counts {
    /// Inputs searched.
    pub inputs: u64,
    /// Hard-to-round: within 2^-K ulp of a breakpoint, not on one.
    pub hard: u64,
    /// Results exactly on a breakpoint.
    pub exact: u64,
    /// Inputs not decided within the maximum precision.
    pub unresolved: u64,
    /// Inputs outside the function's domain (NaN results).
    pub undefined: u64,
    /// Inputs at a pole (infinite results).
    pub poles: u64,
    /// Results beyond the format's largest finite number.
    pub overflow: u64,
}

impl Counts {
    /// The counts in their serialised order: inputs, hard, exact, unresolved, undefined,
    /// poles, overflow (the journal's `k` and `end` lines, the MPI segment records).
    pub fn to_array(self) -> [u64; 7] {
        [
            self.inputs,
            self.hard,
            self.exact,
            self.unresolved,
            self.undefined,
            self.poles,
            self.overflow,
        ]
    }

    /// The inverse of [`Counts::to_array`].
    pub fn from_array(a: [u64; 7]) -> Counts {
        let [inputs, hard, exact, unresolved, undefined, poles, overflow] = a;
        Counts {
            inputs,
            hard,
            exact,
            unresolved,
            undefined,
            poles,
            overflow,
        }
    }

    /// Adds `other` (the counts of another part of the range) to these.
    pub fn merge(&mut self, other: &Counts) {
        *self += *other;
    }
}

impl From<[u64; 7]> for Counts {
    fn from(a: [u64; 7]) -> Counts {
        Counts::from_array(a)
    }
}

impl From<Counts> for [u64; 7] {
    fn from(c: Counts) -> [u64; 7] {
        c.to_array()
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.inputs += other.inputs;
        self.hard += other.hard;
        self.exact += other.exact;
        self.unresolved += other.unresolved;
        self.undefined += other.undefined;
        self.poles += other.poles;
        self.overflow += other.overflow;
    }
}

impl Add for Counts {
    type Output = Counts;
    fn add(mut self, other: Counts) -> Counts {
        self += other;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_order_and_json_form() {
        let c = Counts::from_array([1, 2, 3, 4, 5, 6, 7]);
        assert_eq!((c.inputs, c.hard, c.overflow), (1, 2, 7));
        assert_eq!(c.to_array(), [1, 2, 3, 4, 5, 6, 7]);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, "[1,2,3,4,5,6,7]");
        assert_eq!(serde_json::from_str::<Counts>(&json).unwrap(), c);
    }

    #[test]
    fn merge_adds_every_count() {
        let mut a = Counts::from_array([1, 1, 1, 1, 1, 1, 1]);
        a.merge(&Counts::from_array([10, 20, 30, 40, 50, 60, 70]));
        assert_eq!(a.to_array(), [11, 21, 31, 41, 51, 61, 71]);
        assert_eq!(a + Counts::default(), a);
    }
}
