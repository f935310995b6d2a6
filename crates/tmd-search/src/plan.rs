//! From what the user asked to what a search runs: a [`SearchRequest`] (the flags of
//! `tmd search`, as text and options) is checked and resolved into a [`SearchPlan`]: the
//! target, the range, the threshold, the algorithm (`auto` picks one), the backend and the
//! filter's defaults for that backend, and the fingerprint that ties a resume journal to the
//! search that wrote it.

use crate::filter::device::SUBPACKET_DOMAINS;
use crate::filter::lattice::{LatticeParams, LatticeShape};
use crate::filter::FLAT_CHUNK_MAX;
use crate::lower_bound::Algorithm;
use crate::range::RangeEnd;
use crate::Target;
use crate::{check_filter_params, check_target, FilterParams, InputRange, Method, SearchParams};
use tmd_core::{Breakpoints, Format, InputError};

/// Default chunk sizes (log2 inputs): a chunk is one polynomial and, on a device, one launch.
/// On the CPU 2^34 keeps the polynomial degree low; on a device 2^38 gives 262,144 work-items
/// per launch instead of 16,384 (I0 on an H100: 45-51 ms instead of 138-156 ms,
/// docs/BENCHMARKS.md).
pub const CPU_CHUNK_BITS: u32 = 34;
pub const DEVICE_CHUNK_BITS: u32 = 38;

/// The default division threshold: the CPU divides at once (3 subtractions first gained 3% on
/// I0 here, within noise); a device tries 3 subtractions first, since a 64-bit division is a
/// long software sequence on a GPU (phase-1 kernel of I0 on an H100: 4.0 ms instead of 4.7 ms,
/// docs/BENCHMARKS.md). The output and the counts are the same either way.
pub const CPU_DIVISION_THRESHOLD: u32 = 0;
pub const DEVICE_DIVISION_THRESHOLD: u32 = 3;

/// With a device, chunks of fewer domains run on the cores (`--device-min-domains`); by
/// default none do. On an H200 (docs/BENCHMARKS.md), 2^17 made the nearly flat binades of
/// binary64 exp (2^16 domains of 2^22 inputs per chunk of 2^38, few crossings) 1.8-3.1 s
/// instead of 10.1-10.9 s, but the flat pieces next to the rule's all-hard ranges (every
/// domain crosses breakpoints, phase 3 everywhere) so much slower that `--plan` of the whole
/// of exp ran past 264 s instead of 50 s: the domain count alone does not tell the two apart.
pub const DEVICE_MIN_DOMAINS: u64 = 0;

/// What the user asked for, as given on the command line (flag names in the messages are
/// those of `tmd search`).
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// A registry function or an expression in x.
    pub function: String,
    pub format: String,
    /// The range `[from, to)`, as numbers to round to the format.
    pub from: String,
    pub to: String,
    /// K; None for the format's precision.
    pub bits: Option<u32>,
    pub breakpoints: String,
    pub exact: bool,
    /// List every input of the pieces a rule proves all hard instead of a range record each.
    pub expand_ranges: bool,
    pub max_precision: u32,
    /// auto, reference, regular, lefevre, lefevre-swap, exhaustive, lattice or
    /// regular-or-lattice.
    pub algorithm: String,
    /// `D,A`: one lattice shape for every chunk (with `lattice` only).
    pub lattice_shape: Option<String>,
    /// cpu, opencl or cuda.
    pub backend: String,
    pub domain_size: u64,
    pub kappa: u64,
    pub division_threshold: Option<u32>,
    pub chunk_bits: Option<u32>,
    pub split_phases: bool,
    pub inline_phases: bool,
    pub work_group: Option<u32>,
    pub domains_per_item: Option<u64>,
    pub device_min_domains: Option<u64>,
    /// On a device, the NMDM of real warps too ([`FilterParams::warp_nmdm`]).
    pub warp_nmdm: bool,
}

impl SearchRequest {
    /// A search of `function` over `[from, to)` with `tmd search`'s defaults: binary64, K the
    /// format's precision, every breakpoint, `--algorithm auto` on the CPU, the lower-bound
    /// tests' domain size 2^15 and kappa 8. Callers set the rest with struct update syntax.
    pub fn new(function: &str, from: &str, to: &str) -> SearchRequest {
        SearchRequest {
            function: function.to_string(),
            format: "binary64".to_string(),
            from: from.to_string(),
            to: to.to_string(),
            bits: None,
            breakpoints: "all".to_string(),
            exact: false,
            expand_ranges: false,
            max_precision: tmd_core::hardness::DEFAULT_MAX_PRECISION,
            algorithm: "auto".to_string(),
            lattice_shape: None,
            backend: "cpu".to_string(),
            domain_size: 1 << 15,
            kappa: 8,
            division_threshold: None,
            chunk_bits: None,
            split_phases: false,
            inline_phases: false,
            work_group: None,
            domains_per_item: None,
            device_min_domains: None,
            warp_nmdm: false,
        }
    }
}

/// Where candidates are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU cores (rayon).
    Cpu,
    /// An OpenCL device.
    OpenCl,
    /// A CUDA device.
    Cuda,
}

impl Backend {
    /// The `--backend` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::OpenCl => "opencl",
            Backend::Cuda => "cuda",
        }
    }
}

/// The algorithm a plan runs, resolved (`auto` is never left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchAlgorithm {
    /// MPFR on every input.
    Reference,
    /// Candidates from a lower-bound filter, verified with MPFR.
    LowerBound(Algorithm),
    /// Candidates from every domain's exact walk (phase 3 everywhere), verified with MPFR.
    Exhaustive,
    /// Candidates from the lattice method on intervals of each chunk, verified with MPFR.
    Lattice,
    /// Per chunk the regular filter or the lattice method, by the cost model.
    RegularOrLattice,
}

impl SearchAlgorithm {
    /// The `--algorithm` spelling (the regular test is always run unrolled).
    pub fn name(self) -> &'static str {
        match self {
            SearchAlgorithm::Reference => "reference",
            SearchAlgorithm::Exhaustive => "exhaustive",
            SearchAlgorithm::Lattice => "lattice",
            SearchAlgorithm::RegularOrLattice => "regular-or-lattice",
            SearchAlgorithm::LowerBound(Algorithm::RegularUnrolled) => "regular",
            SearchAlgorithm::LowerBound(a) => a.name(),
        }
    }
}

/// Everything a search needs, validated.
#[derive(Clone, Debug)]
pub struct SearchPlan {
    pub target: Target,
    pub range: InputRange,
    pub params: SearchParams,
    /// The range's ends as format numbers (for reports and the fingerprint).
    pub from: RangeEnd,
    pub to: RangeEnd,
    pub backend: Backend,
    /// None: the reference search (MPFR on every input). A device is attached by the caller
    /// (`FilterParams::device`), which knows the device runtimes.
    pub filter: Option<FilterParams>,
    /// Pieces a rule proves all hard are listed as range records (`regime::RangeRecord`), not
    /// input by input (the reference search lists every input whatever this says).
    pub range_records: bool,
}

impl SearchPlan {
    /// Checks `request` and resolves its defaults. `note` receives remarks that are no error
    /// (a bound rounded to the format, `auto` falling back to the reference search), as one
    /// line each, in the order they arise.
    pub fn new(
        request: &SearchRequest,
        note: &mut dyn FnMut(&str),
    ) -> Result<SearchPlan, InputError> {
        let format = Format::parse(&request.format)?;
        let target = Target::parse(&request.function)?;
        let mut bound = |text: &str, flag: &str| -> Result<RangeEnd, InputError> {
            let (x, exact) = RangeEnd::parse(text, &format)?;
            if !exact {
                note(&format!(
                    "--{flag} {} is not a {} number; rounded to nearest: {}",
                    tmd_core::number::shown(text),
                    format.name(),
                    x.to_hex()
                ));
            }
            Ok(x)
        };
        let from = bound(&request.from, "from")?;
        let to = bound(&request.to, "to")?;
        let range = InputRange::between(&format, &from, &to)?;
        // Counts, progress and chunk offsets are 64-bit: binary80 and binary128 hold ranges
        // beyond them (binary128's [1, 2) has 2^112 inputs), and no search would end anyway.
        if range.len() > u128::from(u64::MAX) {
            return Err(InputError::Usage(format!(
                "[{}, {}) holds {:.3e} inputs of {}, more than the 2^64 a search counts: search \
                 it in pieces",
                from.to_hex(),
                to.to_hex(),
                range.len() as f64,
                format.name()
            )));
        }
        if let Some(func) = target.function() {
            range.check_domain(func.domain(), func.name())?;
        }
        let p = format.precision();
        let bits = request.bits.unwrap_or(p);
        let max_bits = 2 * p + 64;
        if !(1..=max_bits).contains(&bits) {
            return Err(InputError::Bits(format!(
                "--bits {bits} is outside 1..={max_bits} for {} (no hard case is expected beyond 2p + 64 bits)",
                format.name()
            )));
        }
        if request.max_precision < p + bits + 64 {
            return Err(InputError::Bits(format!(
                "--max-precision {} must be at least p + K + 64 = {}",
                request.max_precision,
                p + bits + 64
            )));
        }
        if request.max_precision > tmd_core::hardness::MAX_PRECISION_CAP {
            return Err(InputError::Bits(format!(
                "--max-precision {} is beyond {} bits",
                request.max_precision,
                tmd_core::hardness::MAX_PRECISION_CAP
            )));
        }
        let breakpoints = Breakpoints::parse(&request.breakpoints).ok_or_else(|| {
            InputError::Usage(format!(
                "unknown --breakpoints '{}' (expected all, directed or nearest)",
                request.breakpoints
            ))
        })?;
        let filter = choose_algorithm(request, &target, &format, note)?;
        let backend = check_backend(request, filter.as_ref())?;
        Ok(SearchPlan {
            filter,
            target,
            range,
            params: SearchParams {
                bits,
                breakpoints,
                include_exact: request.exact,
                max_precision: request.max_precision,
            },
            from,
            to,
            backend,
            range_records: !request.expand_ranges,
        })
    }

    /// The algorithm the plan runs.
    pub fn algorithm(&self) -> SearchAlgorithm {
        match self.filter.as_ref().map(|f| f.method) {
            None => SearchAlgorithm::Reference,
            Some(Method::Exhaustive) => SearchAlgorithm::Exhaustive,
            Some(Method::Filter(a)) => SearchAlgorithm::LowerBound(a),
            Some(Method::Lattice(_)) => SearchAlgorithm::Lattice,
            Some(Method::Cheaper(_)) => SearchAlgorithm::RegularOrLattice,
        }
    }

    /// One line naming everything that decides the output, so that a journal is only resumed
    /// by the same search.
    pub fn fingerprint(&self) -> String {
        format!(
            "{} {} [{}, {}) K={} {} exact={} max-precision={} ranges={}",
            self.target.name,
            self.range.format.name(),
            self.from.to_hex(),
            self.to.to_hex(),
            self.params.bits,
            self.params.breakpoints.name(),
            self.params.include_exact,
            self.params.max_precision,
            if self.range_records {
                "records"
            } else {
                "expanded"
            }
        )
    }
}

/// `--lattice-shape D,A`: one shape for every chunk; without it, the per-chunk choice.
fn lattice_params(shape: Option<&str>) -> Result<LatticeParams, InputError> {
    let Some(text) = shape else {
        return Ok(LatticeParams::PerChunk);
    };
    let bad = || {
        InputError::Usage(format!(
            "--lattice-shape {text}: expected D,A with a degree D and a parameter A from 1 to 4"
        ))
    };
    let (d, a) = text.split_once(',').ok_or_else(bad)?;
    let degree: usize = d.trim().parse().map_err(|_| bad())?;
    let alpha: u32 = a.trim().parse().map_err(|_| bad())?;
    if !(1..=4).contains(&degree) || !(1..=4).contains(&alpha) {
        return Err(bad());
    }
    Ok(LatticeParams::Fixed(LatticeShape { degree, alpha }))
}

/// The filter parameters for `--algorithm`: None for the reference search. `auto` takes the
/// reference search for a target without a Taylor model, the exhaustive method up to binary32
/// precision (p <= 24), and beyond it per chunk the cheaper of the regular test, unrolled (on
/// the cores, or on the device where one is given), and the lattice method on the cores, by
/// the measured cost model ([`Method::Cheaper`]).
fn choose_algorithm(
    request: &SearchRequest,
    target: &Target,
    format: &Format,
    note: &mut dyn FnMut(&str),
) -> Result<Option<FilterParams>, InputError> {
    if request.lattice_shape.is_some() && request.algorithm != "lattice" {
        return Err(InputError::Usage(format!(
            "--lattice-shape is for --algorithm lattice, not {}",
            request.algorithm
        )));
    }
    let method = match request.algorithm.as_str() {
        "reference" => return Ok(None),
        "auto" => {
            if let Err(why) = check_target(target) {
                note(&format!(
                    "{}; --algorithm auto uses the reference search (MPFR on every input)",
                    why.to_string().split(':').next().unwrap_or_default()
                ));
                return Ok(None);
            }
            if format.precision() <= 24 {
                Method::Exhaustive
            } else {
                Method::Cheaper(Algorithm::RegularUnrolled)
            }
        }
        "regular" => Method::Filter(Algorithm::RegularUnrolled),
        "lefevre" => Method::Filter(Algorithm::Lefevre),
        "lefevre-swap" => Method::Filter(Algorithm::LefevreSwap),
        "exhaustive" => Method::Exhaustive,
        "lattice" => Method::Lattice(lattice_params(request.lattice_shape.as_deref())?),
        "regular-or-lattice" => Method::Cheaper(Algorithm::RegularUnrolled),
        other => {
            return Err(InputError::Usage(format!(
                "unknown --algorithm '{other}' (expected auto, reference, regular, lefevre, lefevre-swap, exhaustive, lattice or regular-or-lattice)"
            )))
        }
    };
    check_target(target)
        .map_err(|e| InputError::Usage(format!("--algorithm {}: {e}", request.algorithm)))?;
    // An unknown backend gets the device defaults here; `check_backend` refuses it next.
    let cpu = request.backend == "cpu";
    let chunk_bits = request.chunk_bits.unwrap_or(if cpu {
        CPU_CHUNK_BITS
    } else {
        DEVICE_CHUNK_BITS
    });
    if (request.split_phases
        || request.inline_phases
        || request.work_group.is_some()
        || request.domains_per_item.is_some()
        || request.device_min_domains.is_some()
        || request.warp_nmdm)
        && cpu
    {
        return Err(InputError::Usage(
            "--split-phases, --inline-phases, --work-group, --domains-per-item, \
             --device-min-domains and --warp-nmdm are for --backend opencl or cuda"
                .into(),
        ));
    }
    if let Some(w) = request.work_group {
        if !w.is_power_of_two() || !(32..=1024).contains(&w) {
            return Err(InputError::Usage(format!(
                "--work-group {w}: expected a power of two from 32 to 1024"
            )));
        }
    }
    if !(12..=44).contains(&chunk_bits) {
        return Err(InputError::Usage(format!(
            "--chunk-bits {chunk_bits}: expected 12 to 44"
        )));
    }
    let filter = FilterParams {
        domain_size: request.domain_size,
        kappa: request.kappa,
        division_threshold: request.division_threshold.unwrap_or(if cpu {
            CPU_DIVISION_THRESHOLD
        } else {
            DEVICE_DIVISION_THRESHOLD
        }),
        chunk_len: 1u64 << chunk_bits,
        // Nearly flat pieces get larger chunks unless --chunk-bits fixes them.
        flat_chunk_len: match request.chunk_bits {
            Some(_) => 1u64 << chunk_bits,
            None => FLAT_CHUNK_MAX,
        },
        split_phases: !cpu && !request.inline_phases,
        work_group: request.work_group.unwrap_or(0),
        domains_per_item: request.domains_per_item.unwrap_or(SUBPACKET_DOMAINS),
        device_min_domains: request.device_min_domains.unwrap_or(DEVICE_MIN_DOMAINS),
        warp_nmdm: request.warp_nmdm,
        ..FilterParams::new(method)
    };
    check_filter_params(&filter).map_err(|e| InputError::Usage(e.to_string()))?;
    Ok(Some(filter))
}

/// The backend of `--backend`; the reference search runs on the CPU only.
fn check_backend(
    request: &SearchRequest,
    filter: Option<&FilterParams>,
) -> Result<Backend, InputError> {
    let backend = match request.backend.as_str() {
        "cpu" => return Ok(Backend::Cpu),
        "opencl" => Backend::OpenCl,
        "cuda" => Backend::Cuda,
        other => {
            return Err(InputError::Usage(format!(
                "unknown --backend '{other}' (expected cpu, opencl or cuda)"
            )))
        }
    };
    if filter.is_none() {
        return Err(InputError::Usage(format!(
            "--backend {} runs the filtered and exhaustive algorithms; --algorithm {} \
             (MPFR on every input) runs on the CPU: use --backend cpu",
            request.backend, request.algorithm
        )));
    }
    Ok(backend)
}
