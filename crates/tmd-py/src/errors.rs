//! The exceptions of the module and the one-line messages they carry: the error and its
//! causes joined by `: `, as the CLI's `main` prints them after `tmd: `. Bad input (the CLI's
//! exit status 2) is `InputError`; a failed run (exit status 1) is `JobError`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;
use std::error::Error;

create_exception!(
    tmd,
    TmdError,
    PyException,
    "Base class of tmd's errors; the message is the CLI's one line, without `tmd: `."
);
create_exception!(
    tmd,
    InputError,
    TmdError,
    "Bad input: a function, format, number, range or option tmd refuses (the CLI exits 2)."
);
create_exception!(
    tmd,
    JobError,
    TmdError,
    "A job that failed while running: a device, a foreign target, a write (the CLI exits 1)."
);
create_exception!(
    tmd,
    GateError,
    JobError,
    "A crunch whose results did not pass `max_ulp`; `reports` holds the reports of every mode."
);

/// `err` and its causes on one line, leaving out a cause whose text the line already ends
/// with (errors that print their source themselves), as the CLI's `main` does.
pub fn one_line(err: &dyn Error) -> String {
    let mut line = String::new();
    let mut cause: Option<&dyn Error> = Some(err);
    while let Some(e) = cause {
        let text = e.to_string();
        if !line.ends_with(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = e.source();
    }
    line
}

/// Bad input as `tmd.InputError`.
pub fn input(e: tmd_core::InputError) -> PyErr {
    InputError::new_err(one_line(&e))
}

/// A search job's error: bad input as `InputError`, the rest as `JobError`.
pub fn search_job(e: tmd_search::job::JobError) -> PyErr {
    match e {
        tmd_search::job::JobError::Input(i) => input(i),
        other => JobError::new_err(one_line(&other)),
    }
}

/// A crunch job's error: bad input as `InputError`, the rest as `JobError`.
pub fn crunch_job(e: tmd_crunch::job::JobError) -> PyErr {
    match e {
        tmd_crunch::job::JobError::Input(i) => input(i),
        other => JobError::new_err(one_line(&other)),
    }
}
