//! Table-driven `exp` of a double-double (placeholder: the generic algorithm).
use crate::math;
use crate::Dd;

/// `e^x`.
pub fn exp(x: Dd) -> Dd {
    math::exp(x)
}
