//! Which algorithm a double word's elementary functions use, per base format.
//!
//! The generic functions of [`crate::math`] serve all four types. For `Dd` (two `f64`) `exp`,
//! `log`, `sin`, `cos` and `sin_cos` have faster table-driven versions ([`super::dd_exp`],
//! [`super::dd_log`], [`super::dd_trig`]), written for binary64 words and tables; `Df64` keeps
//! the generic algorithms (no binary32 versions are written; its accuracy goals are met).
//! Rust has no specialisation, so the inherent methods of [`DoubleWord`] reach the right
//! version through this trait, which both base formats implement.

use crate::double_word::DoubleWord;
use crate::math;

/// The elementary functions of a double word over `Self`.
pub trait DoubleWordFunctions: Sized {
    /// `e^x`.
    fn dw_exp(x: DoubleWord<Self>) -> DoubleWord<Self>;
    /// Natural logarithm.
    fn dw_ln(x: DoubleWord<Self>) -> DoubleWord<Self>;
    /// `(sin x, cos x)`.
    fn dw_sin_cos(x: DoubleWord<Self>) -> (DoubleWord<Self>, DoubleWord<Self>);
    /// `sin x`.
    fn dw_sin(x: DoubleWord<Self>) -> DoubleWord<Self>;
    /// `cos x`.
    fn dw_cos(x: DoubleWord<Self>) -> DoubleWord<Self>;
}

/// `Df64`: the generic algorithms.
impl DoubleWordFunctions for f32 {
    fn dw_exp(x: DoubleWord<f32>) -> DoubleWord<f32> {
        math::exp(x)
    }
    fn dw_ln(x: DoubleWord<f32>) -> DoubleWord<f32> {
        math::log(x)
    }
    fn dw_sin_cos(x: DoubleWord<f32>) -> (DoubleWord<f32>, DoubleWord<f32>) {
        math::sincos(x)
    }
    fn dw_sin(x: DoubleWord<f32>) -> DoubleWord<f32> {
        math::sin(x)
    }
    fn dw_cos(x: DoubleWord<f32>) -> DoubleWord<f32> {
        math::cos(x)
    }
}

/// `Dd`: the table-driven algorithms.
impl DoubleWordFunctions for f64 {
    fn dw_exp(x: DoubleWord<f64>) -> DoubleWord<f64> {
        math::dd_exp::exp(x)
    }
    fn dw_ln(x: DoubleWord<f64>) -> DoubleWord<f64> {
        math::dd_log::log(x)
    }
    fn dw_sin_cos(x: DoubleWord<f64>) -> (DoubleWord<f64>, DoubleWord<f64>) {
        math::dd_trig::sin_cos(x)
    }
    fn dw_sin(x: DoubleWord<f64>) -> DoubleWord<f64> {
        math::dd_trig::sin(x)
    }
    fn dw_cos(x: DoubleWord<f64>) -> DoubleWord<f64> {
        math::dd_trig::cos(x)
    }
}
