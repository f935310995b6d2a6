//! What a symbol's name says: the function, the format and, for vector entry points, the
//! lanes and the instruction set.
//!
//! * C naming: `exp` is binary64 exp, `expf` binary32 (a trailing `f` on a name that is not
//!   itself a function). CORE-MATH's `cr_` prefix is dropped (`cr_expf`); a name crunch does
//!   not know is looked up by its part after the last `_` (`my_expf`, `amd_expf`).
//! * SLEEF (Shibata and Petrogalli, "SLEEF: A Portable Vectorized Library of C Standard
//!   Mathematical Functions", IEEE TPDS 2020): `Sleef_` + name + `_u` + accuracy (`u10` = 1.0
//!   ulp, `u35` = 3.5 ulps, `u05`) + instruction set. A scalar name follows C naming
//!   (`Sleef_expf_u10`); a vector name has `d` or `f` (binary64 or binary32) and the lane
//!   count after the stem (`Sleef_expd4_u10avx2`: 4 doubles, AVX2; `Sleef_expf16_u10avx512f`);
//!   1 lane (`purec`) is a scalar call. No instruction-set suffix is SLEEF's dispatcher,
//!   which needs the instruction set of its register width.
//! * The x86-64 vector function ABI (glibc's libmvec): `_ZGV` + ISA letter (`b` SSE, 128-bit;
//!   `c` AVX, `d` AVX2, 256-bit; `e` AVX-512, 512-bit) + `N` (unmasked) + lanes + `v` (one
//!   vector argument) + `_` + the scalar C name (`_ZGVdN4v_exp`, `_ZGVeN16v_expf`).

use crate::format::CrunchFormat;
use crate::function::RefFunc;
use tmd_core::registry::Func;

/// An x86 instruction set a vector entry point needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Sse2,
    Sse41,
    Avx,
    /// AVX2 with FMA (SLEEF's and libmvec's AVX2 code use both).
    Avx2,
    Fma4,
    Avx512f,
}

impl Isa {
    /// The name in messages and notes.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Sse2 => "SSE2",
            Isa::Sse41 => "SSE4.1",
            Isa::Avx => "AVX",
            Isa::Avx2 => "AVX2",
            Isa::Fma4 => "FMA4",
            Isa::Avx512f => "AVX-512F",
        }
    }

    /// The least instruction set that passes vectors of `bits` in registers.
    fn for_width(bits: u32) -> Option<Isa> {
        match bits {
            128 => Some(Isa::Sse2),
            256 => Some(Isa::Avx),
            512 => Some(Isa::Avx512f),
            _ => None,
        }
    }
}

/// A vector entry point's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorShape {
    pub lanes: usize,
    pub isa: Isa,
}

/// What a symbol's name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolName {
    /// The function's C name without the binary32 `f` (`exp`), whether or not crunch knows it.
    pub stem: String,
    pub format: CrunchFormat,
    /// `None` for a scalar function.
    pub vector: Option<VectorShape>,
}

impl SymbolName {
    /// The function crunch checks for it, if it knows the stem ([`function_of_stem`]).
    pub fn function(&self) -> Option<RefFunc> {
        function_of_stem(&self.stem)
    }
}

/// The function a name's stem stands for: the whole stem, else the part after its last `_`
/// (`my_exp`, `amd_exp`).
pub fn function_of_stem(stem: &str) -> Option<RefFunc> {
    RefFunc::lookup(stem).or_else(|| RefFunc::lookup(stem.rsplit_once('_')?.1))
}

/// Reads a symbol name; `Err` says why a vector-looking name cannot be used.
pub fn parse(symbol: &str) -> Result<SymbolName, String> {
    if let Some(rest) = symbol.strip_prefix("_ZGV") {
        return parse_vector_abi(symbol, rest);
    }
    if let Some(rest) = symbol.strip_prefix("Sleef_") {
        return parse_sleef(symbol, rest);
    }
    let name = symbol.strip_prefix("cr_").unwrap_or(symbol);
    Ok(c_name(name))
}

/// C naming: `expf` is binary32 exp unless `expf` is itself a function, one crunch knows or
/// one of tmd's table (`erf` is binary64 erf, `erff` binary32 erf).
pub fn c_name(name: &str) -> SymbolName {
    let whole_is_a_function = RefFunc::lookup(name).is_some() || Func::lookup(name).is_some();
    let (stem, format) = match name.strip_suffix('f') {
        Some(stem) if !whole_is_a_function && !stem.is_empty() => (stem, CrunchFormat::Binary32),
        _ => (name, CrunchFormat::Binary64),
    };
    SymbolName {
        stem: stem.to_string(),
        format,
        vector: None,
    }
}

fn bits_of(format: CrunchFormat) -> u32 {
    match format {
        CrunchFormat::Binary32 => 32,
        CrunchFormat::Binary64 => 64,
    }
}

/// `_ZGV{b,c,d,e}N{lanes}v_{name}`.
fn parse_vector_abi(symbol: &str, rest: &str) -> Result<SymbolName, String> {
    let bad = |why: &str| format!("{symbol}: {why}");
    let mut chars = rest.chars();
    let (isa, width) = match chars.next() {
        Some('b') => (Isa::Sse2, 128),
        Some('c') => (Isa::Avx, 256),
        Some('d') => (Isa::Avx2, 256),
        Some('e') => (Isa::Avx512f, 512),
        _ => {
            return Err(bad(
                "not an x86-64 vector ABI name (ISA letter b, c, d or e)",
            ))
        }
    };
    let rest = chars.as_str();
    let rest = match rest.strip_prefix('N') {
        Some(r) => r,
        None if rest.starts_with('M') => return Err(bad("masked variants are not supported")),
        None => return Err(bad("expected N (unmasked) after the ISA letter")),
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let lanes: usize = rest[..digits].parse().map_err(|_| bad("no lane count"))?;
    let name = rest[digits..]
        .strip_prefix("v_")
        .ok_or_else(|| bad("only one vector argument (`v_`) is supported"))?;
    let scalar = c_name(name);
    if lanes as u32 * bits_of(scalar.format) != width {
        return Err(bad(&format!(
            "{lanes} lanes of {} do not fill a {width}-bit register",
            scalar.format.name()
        )));
    }
    Ok(SymbolName {
        vector: Some(VectorShape { lanes, isa }),
        ..scalar
    })
}

/// `Sleef_{name}_u{NN}{isa}` and `Sleef_{stem}{d,f}{lanes}_u{NN}{isa}`.
fn parse_sleef(symbol: &str, rest: &str) -> Result<SymbolName, String> {
    let bad = |why: &str| format!("{symbol}: {why}");
    let (head, accuracy) = rest
        .rsplit_once("_u")
        .ok_or_else(|| bad("expected Sleef_NAME_uNN[ISA]"))?;
    let digits = accuracy.chars().take_while(char::is_ascii_digit).count();
    let isa_suffix = &accuracy[digits..];
    let lanes_at = head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let element = head[..lanes_at].chars().last();
    let (stem, format) = match element {
        Some('d') if lanes_at < head.len() => (&head[..lanes_at - 1], CrunchFormat::Binary64),
        Some('f') if lanes_at < head.len() => (&head[..lanes_at - 1], CrunchFormat::Binary32),
        _ => {
            // A scalar name: C naming, and no instruction set.
            return match isa_suffix {
                "" => Ok(c_name(head)),
                _ => Err(bad("a scalar SLEEF name has no instruction set")),
            };
        }
    };
    let lanes: usize = head[lanes_at..].parse().map_err(|_| bad("no lane count"))?;
    let scalar = SymbolName {
        stem: stem.to_string(),
        format,
        vector: None,
    };
    let width = lanes as u32 * bits_of(format);
    let isa = match (isa_suffix, lanes) {
        ("purec", 1) => return Ok(scalar),
        ("purecfma", 1) => return Ok(scalar),
        ("", _) => Isa::for_width(width),
        ("sse2", _) => Some(Isa::Sse2),
        ("sse4", _) => Some(Isa::Sse41),
        ("avx", _) => Some(Isa::Avx),
        ("avx2" | "avx2128", _) => Some(Isa::Avx2),
        ("fma4", _) => Some(Isa::Fma4),
        ("avx512f" | "avx512fnofma", _) => Some(Isa::Avx512f),
        (other, _) => return Err(bad(&format!("instruction set `{other}` is not supported"))),
    };
    let isa = isa
        .filter(|_| matches!(width, 128 | 256 | 512))
        .ok_or_else(|| {
            bad(&format!(
                "{lanes} lanes: not a 128-, 256- or 512-bit vector"
            ))
        })?;
    Ok(SymbolName {
        vector: Some(VectorShape { lanes, isa }),
        ..scalar
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use CrunchFormat::{Binary32, Binary64};

    fn shape(symbol: &str) -> (String, CrunchFormat, Option<(usize, Isa)>) {
        let s = parse(symbol).unwrap();
        (s.stem, s.format, s.vector.map(|v| (v.lanes, v.isa)))
    }

    #[test]
    fn c_names_and_prefixes() {
        assert_eq!(shape("expf"), ("exp".into(), Binary32, None));
        assert_eq!(shape("exp"), ("exp".into(), Binary64, None));
        assert_eq!(shape("cr_log1pf"), ("log1p".into(), Binary32, None));
        assert_eq!(shape("exp10"), ("exp10".into(), Binary64, None));
        assert_eq!(shape("myexpf"), ("myexp".into(), Binary32, None));
        assert_eq!(
            parse("my_log1p").unwrap().function(),
            RefFunc::lookup("log1p")
        );
        assert_eq!(parse("myexpf").unwrap().function(), None);
        // erf is a function whose name ends in f.
        assert_eq!(shape("erf"), ("erf".into(), Binary64, None));
        assert_eq!(shape("erff"), ("erf".into(), Binary32, None));
    }

    #[test]
    fn sleef_names() {
        assert_eq!(shape("Sleef_expf_u10"), ("exp".into(), Binary32, None));
        assert_eq!(shape("Sleef_log1p_u10"), ("log1p".into(), Binary64, None));
        assert_eq!(shape("Sleef_exp10_u35"), ("exp10".into(), Binary64, None));
        assert_eq!(
            shape("Sleef_expd4_u10avx2"),
            ("exp".into(), Binary64, Some((4, Isa::Avx2)))
        );
        assert_eq!(
            shape("Sleef_exp2f16_u10avx512f"),
            ("exp2".into(), Binary32, Some((16, Isa::Avx512f)))
        );
        assert_eq!(
            shape("Sleef_log10d2_u10"),
            ("log10".into(), Binary64, Some((2, Isa::Sse2)))
        );
        assert_eq!(
            shape("Sleef_expd1_u10purec"),
            ("exp".into(), Binary64, None)
        );
        assert!(parse("Sleef_expd4_u10advsimd").is_err());
        assert!(parse("Sleef_expd3_u10avx2").is_err());
    }

    #[test]
    fn vector_abi_names() {
        assert_eq!(
            shape("_ZGVdN4v_exp"),
            ("exp".into(), Binary64, Some((4, Isa::Avx2)))
        );
        assert_eq!(
            shape("_ZGVbN4v_expf"),
            ("exp".into(), Binary32, Some((4, Isa::Sse2)))
        );
        assert_eq!(
            shape("_ZGVeN16v_logf"),
            ("log".into(), Binary32, Some((16, Isa::Avx512f)))
        );
        assert!(parse("_ZGVdN8v_exp").is_err(), "8 doubles are not 256 bits");
        assert!(parse("_ZGVdM4v_exp").is_err(), "masked");
        assert!(parse("_ZGVdN4vv_pow").is_err(), "two arguments");
    }
}
