//! The device-side references of crunch analyses: for each reference kernel the registry
//! names (`tmd_core::registry::DeviceReference`, `Binary32DeviceReference`), the C
//! expressions in `x` that kernels/crunch_analyse.cl splices in. The registry says which
//! function has which reference; the source text is here, beside the kernels it calls.

use tmd_core::registry::{Binary32DeviceReference, DeviceReference};

/// The C expressions of a binary64 reference: the double-double value of f, "f(x) is NaN",
/// and the sign of f beyond its overflow threshold.
pub(crate) fn binary64(reference: DeviceReference) -> (&'static str, &'static str, &'static str) {
    match reference {
        DeviceReference::Exp => ("dd_exp(dd_make(x, 0.0))", "0", "1.0"),
        DeviceReference::Sqrt => ("dd_sqrt(dd_make(x, 0.0))", "(x < 0.0)", "1.0"),
        DeviceReference::Recip => ("dd_recip(dd_make(x, 0.0))", "0", "1.0"),
    }
}

/// The C expressions of a binary32 reference: the double-double value of f and "f(x) is NaN",
/// and whether the kernel needs the quad-word and table-driven double-word functions
/// (`mf_dd_*`, `dd_table_*`), not only the double-word arithmetic and exp.
pub(crate) fn binary32(reference: Binary32DeviceReference) -> (&'static str, &'static str, bool) {
    use Binary32DeviceReference::*;
    let multi_word = |value, outside_domain| (value, outside_domain, true);
    match reference {
        TableExp => multi_word("dd_table_exp(dd_make(x, 0.0))", "0"),
        Expm1 => multi_word("mf_dd_expm1(dd_make(x, 0.0))", "0"),
        TableLog => multi_word("dd_table_log(dd_make(x, 0.0))", "(x < 0.0)"),
        Log1p => multi_word("mf_dd_log1p(dd_make(x, 0.0))", "(x < -1.0)"),
        Sqrt => ("dd_sqrt(dd_make(x, 0.0))", "(x < 0.0)", false),
        Recip => ("dd_recip(dd_make(x, 0.0))", "0", false),
        // kernels/binary32_trig.cl: 0 sin, 1 cos, 2 tan.
        Sin => multi_word("b32_circular(x, 0)", "0"),
        Cos => multi_word("b32_circular(x, 1)", "0"),
        Tan => multi_word("b32_circular(x, 2)", "0"),
        Atan => multi_word("mf_dd_atan(dd_make(x, 0.0))", "0"),
        Sinh => multi_word("mf_dd_sinh(dd_make(x, 0.0))", "0"),
        Cosh => multi_word("mf_dd_cosh(dd_make(x, 0.0))", "0"),
        Tanh => multi_word("mf_dd_tanh(dd_make(x, 0.0))", "0"),
    }
}
