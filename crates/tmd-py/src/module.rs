//! The module's functions and its registration (`tmd._tmd`).

use crate::{crunch, errors, search};
use pyo3::prelude::*;
use tmd_core::{Format, FUNCTIONS};

use errors::{GateError, InputError, JobError, TmdError};

/// `(name, domain, aliases, summary)` of every registered function, in the registry's order
/// (`tmd functions`).
#[pyfunction]
fn functions() -> Vec<(String, String, Vec<String>, String)> {
    FUNCTIONS
        .iter()
        .map(|f| {
            (
                f.name.to_string(),
                f.domain.describe().to_string(),
                f.aliases.iter().map(|a| a.to_string()).collect(),
                f.summary.to_string(),
            )
        })
        .collect()
}

/// `(name, precision, fits_float)` of a format: `fits_float` when every number of the format
/// (subnormals included) is a binary64 number, so that Python floats hold its values exactly.
#[pyfunction]
fn format_info(format: &str) -> PyResult<(String, u32, bool)> {
    let f = Format::parse(format).map_err(errors::input)?;
    let fits = f.precision() <= 53 && f.emax() <= 1023 && f.qexp_min() >= -1074;
    Ok((f.name().to_string(), f.precision(), fits))
}

/// The CLI's default cap of the Ziv loop, in bits (`--max-precision`).
#[pyfunction]
fn default_max_precision() -> u32 {
    tmd_core::hardness::DEFAULT_MAX_PRECISION
}

/// `tmd hardness --json`: one JSON line per input, decided in parallel without the GIL.
#[pyfunction]
#[pyo3(signature = (function, inputs, format, max_precision))]
fn hardness(
    py: Python<'_>,
    function: &str,
    inputs: Vec<String>,
    format: &str,
    max_precision: u32,
) -> PyResult<Vec<String>> {
    use tmd_search::hardness::{HardnessJob, Tally};
    let job = HardnessJob::new(function, format, max_precision, true).map_err(errors::input)?;
    let inputs = job.parse_inputs(&inputs).map_err(errors::input)?;
    let written = py.detach(|| {
        let mut out = Vec::new();
        job.write_batch(&inputs, &mut out, &mut Tally::default())
            .map(|()| out)
    });
    let out = written.map_err(|e| JobError::new_err(errors::one_line(&e)))?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect())
}

#[pymodule]
fn _tmd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TmdError", py.get_type::<TmdError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("JobError", py.get_type::<JobError>())?;
    m.add("GateError", py.get_type::<GateError>())?;
    m.add_function(wrap_pyfunction!(functions, m)?)?;
    m.add_function(wrap_pyfunction!(format_info, m)?)?;
    m.add_function(wrap_pyfunction!(default_max_precision, m)?)?;
    m.add_function(wrap_pyfunction!(hardness, m)?)?;
    m.add_function(wrap_pyfunction!(search::search_stream, m)?)?;
    m.add_function(wrap_pyfunction!(search::plan, m)?)?;
    m.add_function(wrap_pyfunction!(crunch::crunch, m)?)?;
    m.add_class::<search::SearchStream>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
