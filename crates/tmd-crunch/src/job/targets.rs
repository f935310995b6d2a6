//! `tmd crunch --list`: every target crunch knows, with its format, the backends it runs on
//! and the reference its results are judged by; families of names (`opencl:NAMEf`,
//! `SOURCE:powf`) stand for the targets they name.

use crate::bivariate::analysis::reference_name as pair_reference_name;
use crate::bivariate::{BiFunc, PairFormat};
use crate::driver::reference_name;
use crate::format::CrunchFormat;
use crate::rounding::Rounding;
use std::io::{Result, Write};

/// The table of targets, tab-separated under a header line.
pub fn write_target_list(out: &mut dyn Write) -> Result<()> {
    writeln!(out, "target\tformat\tbackends\treference")?;
    for (name, fmt) in crate::target::list() {
        let func = crate::resolve(&name.replace("-nrN", "-nr3"))
            .map(|t| t.function())
            .ok();
        let reference = func.map(|f| reference_name(f, fmt)).unwrap_or_default();
        let backends = if name.starts_with("emul:vrecpe") {
            "cpu, opencl, cuda"
        } else {
            "cpu"
        };
        writeln!(out, "{name}\t{}\t{backends}\t{reference}", fmt.name())?;
    }
    for (name, fmt) in crate::bivariate::target::list() {
        let func =
            crate::bivariate::resolve(&name, None, None, Rounding::Nearest).map(|t| t.function());
        let reference = func
            .map(|f| pair_reference_name(f, fmt))
            .unwrap_or_default();
        writeln!(out, "{name}\t{}\tcpu\t{reference} (pairs)", fmt.name())?;
    }
    let binary16 = pair_reference_name(BiFunc::Pow, PairFormat::Binary16);
    writeln!(
        out,
        "SOURCE:powf --format binary16 (also atan2f, hypotf)\tbinary16\tcpu\t{binary16}; the \
         binary32 result rounded to binary16 (pairs)"
    )?;
    write_device_families(out)?;
    for row in crate::foreign::libraries::list() {
        writeln!(out, "{}\t{}\tcpu\t{}", row.name, row.format, row.what)?;
    }
    Ok(())
}

/// The device targets, as families of names: their functions are the device's.
fn write_device_families(out: &mut dyn Write) -> Result<()> {
    for (name, fmt, backends) in [
        ("opencl:NAMEf", CrunchFormat::Binary32, "opencl"),
        ("opencl:NAME", CrunchFormat::Binary64, "opencl"),
        ("opencl:native_NAMEf", CrunchFormat::Binary32, "opencl"),
        ("cuda:NAMEf", CrunchFormat::Binary32, "cuda"),
        ("cuda:NAME", CrunchFormat::Binary64, "cuda"),
        ("cuda:__NAMEf", CrunchFormat::Binary32, "cuda"),
        (
            "file:PATH --function NAME",
            CrunchFormat::Binary32,
            "opencl, cuda",
        ),
    ] {
        let mut reference = crate::RefFunc::lookup("exp")
            .map(|f| reference_name(f, fmt))
            .unwrap_or_default()
            .replace(" exp ", " NAME ");
        if fmt == CrunchFormat::Binary64 {
            reference.push_str("; on the device for exp, recip, sqrt");
        }
        writeln!(out, "{name}\t{}\t{backends}\t{reference}", fmt.name())?;
    }
    Ok(())
}
