//! `tmd functions`: the registry, as a table.

use std::io::Write;
use tmd_core::FUNCTIONS;

pub fn run() -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<9} {:<26} {:<22} description",
        "name", "domain", "aliases"
    )?;
    for f in FUNCTIONS {
        writeln!(
            out,
            "{:<9} {:<26} {:<22} {}",
            f.name,
            f.domain.describe(),
            f.aliases.join(","),
            f.summary
        )?;
    }
    writeln!(
        out,
        "\nExpressions in x combine these with + - * /, integer powers (x^3, x^-2), numbers and the constants pi and e, e.g. 'x*exp(x)' or 'sin(x)/x'."
    )?;
    Ok(())
}
