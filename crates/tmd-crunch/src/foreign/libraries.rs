//! The math libraries of this machine by short names (`scripts/setup.sh` installs them from
//! Debian packages):
//!
//! * `glibc:NAME` — glibc's libm (`libm.so.6`): `glibc:expf` is `dl:libm.so.6:expf`.
//! * `glibc-mvec:NAME` — glibc's libmvec (`libmvec.so.1`) at the widest instruction set this
//!   CPU has (AVX-512, AVX2, SSE); `glibc-mvec-sse:`, `-avx:`, `-avx2:`, `-avx512:` choose
//!   one. `glibc-mvec-avx2:exp` is `_ZGVdN4v_exp`.
//! * `sleef:NAME` — SLEEF (`libsleef.so.3`, package libsleef-dev): scalar, 1-ulp (`u10`)
//!   functions; `sleef-u35:` the 3.5-ulp ones (`-u05` for sqrt); `sleef-avx2:`,
//!   `sleef-avx512f:`, `sleef-sse2:`, `sleef-sse4:`, `sleef-avx:` the vector ones, full width
//!   (`sleef-avx2-u35:expf` is `Sleef_expf8_u35avx2`).
//! * `musl:NAME` — musl's libm (package musl-dev). musl's shared libc is also its dynamic
//!   loader and cannot be loaded into a glibc process, so a wrapper `tmd_musl_NAME` is
//!   compiled and linked with musl's static `libc.a` (`-nostdlib`, only the archive members
//!   the function needs), with every musl symbol hidden (`--exclude-libs,ALL`, `-Bsymbolic`)
//!   so that neither library's functions resolve to the other's; `--no-undefined` makes sure
//!   nothing is left to glibc. musl's math code reads no thread state (it reports errors
//!   through floating-point exceptions, not errno), so it runs correctly on glibc's threads.

use super::compile;
use super::naming::{self, Isa};
use super::{load, usage, Loadable, Overrides};
use crate::format::CrunchFormat;
use crate::target::BoxedTarget;
use tmd_core::InputError;

pub(crate) const LIBM: &str = "libm.so.6";
const LIBMVEC: &str = "libmvec.so.1";
pub(crate) const LIBSLEEF: &str = "libsleef.so.3";
/// GCC's quad-precision library (`__float128` functions, package libquadmath0).
pub(crate) const LIBQUADMATH: &str = "libquadmath.so.0";
/// Where Debian's musl-dev puts musl's static C library (and, on other distributions, musl
/// installed by hand).
const MUSL_LIBC: [&str; 2] = [
    "/usr/lib/x86_64-linux-musl/libc.a",
    "/usr/lib/musl/lib/libc.a",
];

/// Whether `source` is one of the families above.
pub fn is_family(source: &str) -> bool {
    matches!(source, "glibc" | "musl")
        || source.starts_with("glibc-mvec")
        || source == "sleef"
        || source.starts_with("sleef-")
}

/// The Debian package of a library tmd knows, for a missing one.
pub fn package_of(path: &str) -> Option<&'static str> {
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.starts_with("libsleef") {
        Some("libsleef-dev")
    } else if file.starts_with("libm.") || file.starts_with("libmvec") {
        Some("libc6")
    } else if file.starts_with("libquadmath") {
        Some("libquadmath0")
    } else {
        None
    }
}

/// Resolves `FAMILY:NAME`.
pub fn resolve(
    spec: &str,
    family: &str,
    name: &str,
    ov: &Overrides,
) -> Result<BoxedTarget, InputError> {
    if name.is_empty() || name.contains(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
        return Err(usage(spec, "expected a C function name after the library"));
    }
    // The name fixes the signature: --format may not change it (the caller checks that the
    // target's format is the one asked for).
    let ov = &Overrides {
        format: None,
        ..*ov
    };
    if family == "glibc" {
        return load(spec, &Loadable::dl(LIBM), name, ov);
    }
    if family == "musl" {
        return musl(spec, name, ov);
    }
    if let Some(isa) = family.strip_prefix("glibc-mvec") {
        return glibc_mvec(spec, isa, name, ov);
    }
    if let Some(variant) = family.strip_prefix("sleef") {
        return sleef(spec, variant, name, ov);
    }
    Err(crate::target::resolve(spec)
        .err()
        .unwrap_or_else(|| usage(spec, "unknown source")))
}

fn vector_width(isa: Isa) -> u32 {
    match isa {
        Isa::Sse2 | Isa::Sse41 => 128,
        Isa::Avx | Isa::Avx2 | Isa::Fma4 => 256,
        Isa::Avx512f => 512,
    }
}

fn lanes(isa: Isa, format: CrunchFormat) -> usize {
    let bits = match format {
        CrunchFormat::Binary32 => 32,
        CrunchFormat::Binary64 => 64,
    };
    (vector_width(isa) / bits) as usize
}

fn glibc_mvec(
    spec: &str,
    isa: &str,
    name: &str,
    ov: &Overrides,
) -> Result<BoxedTarget, InputError> {
    let isa = match isa {
        "" => [Isa::Avx512f, Isa::Avx2, Isa::Sse2]
            .into_iter()
            .find(|&i| super::vector::cpu_has(i))
            .ok_or_else(|| usage(spec, "libmvec needs an x86-64 CPU"))?,
        "-sse" => Isa::Sse2,
        "-avx" => Isa::Avx,
        "-avx2" => Isa::Avx2,
        "-avx512" => Isa::Avx512f,
        _ => return Err(usage(spec, "glibc-mvec ISAs are sse, avx, avx2, avx512")),
    };
    let letter = match isa {
        Isa::Sse2 => 'b',
        Isa::Avx => 'c',
        Isa::Avx2 => 'd',
        _ => 'e',
    };
    let format = naming::c_name(name).format;
    let symbol = format!("_ZGV{letter}N{}v_{name}", lanes(isa, format));
    load(spec, &Loadable::dl(LIBMVEC), &symbol, ov)
}

/// `sleef[-ISA][-uNN]`.
fn sleef(spec: &str, variant: &str, name: &str, ov: &Overrides) -> Result<BoxedTarget, InputError> {
    let mut isa = None;
    let mut accuracy = "u10";
    for part in variant.split('-').skip(1) {
        match part {
            "sse2" => isa = Some((Isa::Sse2, part)),
            "sse4" => isa = Some((Isa::Sse41, part)),
            "avx" => isa = Some((Isa::Avx, part)),
            "avx2" => isa = Some((Isa::Avx2, part)),
            "avx512f" => isa = Some((Isa::Avx512f, part)),
            a if a.len() > 1
                && a.starts_with('u')
                && a[1..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                accuracy = part
            }
            _ => {
                return Err(usage(
                    spec,
                    "SLEEF variants are sleef[-sse2|-sse4|-avx|-avx2|-avx512f][-u10|-u35|-u05]",
                ))
            }
        }
    }
    let symbol = match isa {
        None => format!("Sleef_{name}_{accuracy}"),
        Some((isa, suffix)) => {
            let scalar = naming::c_name(name);
            let element = match scalar.format {
                CrunchFormat::Binary32 => 'f',
                CrunchFormat::Binary64 => 'd',
            };
            let lanes = lanes(isa, scalar.format);
            format!("Sleef_{}{element}{lanes}_{accuracy}{suffix}", scalar.stem)
        }
    };
    load(spec, &Loadable::dl(LIBSLEEF), &symbol, ov)
}

fn musl_libc() -> Option<&'static str> {
    MUSL_LIBC
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
}

fn musl(spec: &str, name: &str, ov: &Overrides) -> Result<BoxedTarget, InputError> {
    let scalar = naming::c_name(name);
    if ov.function.is_none() && scalar.function().is_none() {
        return Err(usage(spec, &super::unknown_function(&scalar.stem)));
    }
    let t = match scalar.format {
        CrunchFormat::Binary32 => "float",
        CrunchFormat::Binary64 => "double",
    };
    let library = musl_wrapper(spec, name, t, 1)?;
    let ov = Overrides {
        function: ov.function.or(Some(scalar.stem.as_str())),
        ..*ov
    };
    load(spec, &library, &format!("tmd_musl_{name}"), &ov)
}

/// musl's `name` (of `args` arguments of C type `t`) behind a wrapper `tmd_musl_NAME` linked
/// with musl's static libc alone (see the module doc).
pub(crate) fn musl_wrapper(
    spec: &str,
    name: &str,
    t: &str,
    args: usize,
) -> Result<Loadable, InputError> {
    let libc = musl_libc().ok_or_else(|| {
        usage(
            spec,
            "musl's libc.a is missing; install the Debian package musl-dev",
        )
    })?;
    // The archive's size and time stamp are in the text, so a new musl compiles anew.
    let stamp = std::fs::metadata(libc)
        .ok()
        .and_then(|m| Some((m.len(), m.modified().ok()?)))
        .map(|s| format!("{s:?}"))
        .unwrap_or_default();
    let params: Vec<String> = (0..args).map(|i| format!("{t} x{i}")).collect();
    let types = vec![t; args].join(", ");
    let names: Vec<String> = (0..args).map(|i| format!("x{i}")).collect();
    let source = format!(
        "/* {name} from {libc} {stamp} */\n{t} {name}({types});\n\
         __attribute__((visibility(\"default\"))) {t} tmd_musl_{name}({}) {{ return {name}({}); }}\n",
        params.join(", "),
        names.join(", ")
    );
    let file = compile::generated_source(spec, &format!("musl-{name}"), &source)?;
    let link: Vec<String> = [
        "-nostdlib",
        "-fvisibility=hidden",
        libc,
        "-Wl,--exclude-libs,ALL",
        "-Wl,-Bsymbolic",
        "-Wl,--no-undefined",
    ]
    .map(str::to_string)
    .to_vec();
    let object = compile::shared_object(spec, &file, &link)?;
    Ok(Loadable {
        path: object.display().to_string(),
        package: None,
        note: Some(format!("musl's {name} from {libc}")),
    })
}

/// One line of `tmd crunch --list` for foreign targets.
pub struct ListRow {
    pub name: String,
    /// A format name, or how the format is decided.
    pub format: String,
    /// What it is, or which package provides it when it is missing here.
    pub what: String,
}

fn loads(path: &str) -> bool {
    // SAFETY: the libraries probed are the system's math libraries.
    unsafe { libloading::Library::new(path) }.is_ok()
}

fn row(name: &str, format: &str, what: String) -> ListRow {
    ListRow {
        name: name.to_string(),
        format: format.to_string(),
        what,
    }
}

fn present_or(found: bool, what: String, package: &str) -> String {
    if found {
        what
    } else {
        format!("missing here: install the Debian package {package}")
    }
}

/// The foreign target kinds, and each library family with whether this machine has it.
pub fn list() -> Vec<ListRow> {
    let compiler = compile::Compiler::from_env();
    let mut rows = vec![
        row(
            "dl:PATH:SYMBOL",
            "from the name",
            "SYMBOL from the shared library PATH (or a name the loader finds); C names \
             (expf: binary32 exp), cr_, Sleef_, _ZGV vector names; --function, --format override"
                .into(),
        ),
        row(
            "c:FILE.c:SYMBOL",
            "from the name",
            format!(
                "FILE.c compiled by `{} {}` (CC, TMD_CFLAGS), cached in {}",
                compiler.program,
                compiler.flags.join(" "),
                compile::cache_dir().display()
            ),
        ),
    ];
    let libm = present_or(loads(LIBM), format!("glibc's {LIBM}"), "libc6");
    rows.push(row("glibc:NAMEf", "binary32", libm.clone()));
    rows.push(row("glibc:NAME", "binary64", libm.clone()));
    if let Some(ld) = super::long_double() {
        let what = format!("{libm}; --inputs FILE only (long double)");
        rows.push(row("glibc:NAMEl", ld.name(), what));
    }
    let what = format!("{libm}; --inputs FILE only (_Float128)");
    rows.push(row("glibc:NAMEf128", "binary128", what));
    let quadmath = present_or(
        loads(LIBQUADMATH),
        "GCC's libquadmath.so.0; --inputs FILE only (__float128)".into(),
        "libquadmath0",
    );
    rows.push(row("quadmath:NAMEq", "binary128", quadmath));
    let widest = [Isa::Avx512f, Isa::Avx2, Isa::Sse2]
        .into_iter()
        .find(|&i| super::vector::cpu_has(i));
    let mvec = match widest {
        Some(isa) if loads(LIBMVEC) => format!("glibc's {LIBMVEC}, {} here", isa.name()),
        Some(_) => present_or(false, String::new(), "libc6"),
        None => "needs an x86-64 CPU".into(),
    };
    rows.push(row(
        "glibc-mvec[-sse|-avx|-avx2|-avx512]:NAME[f]",
        "from the name",
        mvec,
    ));
    let sleef = present_or(
        loads(LIBSLEEF),
        format!("SLEEF's {LIBSLEEF}"),
        "libsleef-dev",
    );
    rows.push(row(
        "sleef[-sse2|-sse4|-avx|-avx2|-avx512f][-u10|-u35|-u05]:NAME[f]",
        "from the name",
        sleef,
    ));
    let musl = match musl_libc() {
        Some(libc) => format!("musl's {libc}, linked into a wrapper"),
        None => present_or(false, String::new(), "musl-dev"),
    };
    rows.push(row("musl:NAME[f]", "from the name", musl));
    rows
}
