//! The one target abstraction: [`Implementation`], an implementation of a function measured by
//! crunch, for one [`Arity`].
//!
//! Crunch measures three shapes of implementation: functions of one binary32 or binary64
//! argument ([`Unary`], the [`crate::Target`]s), functions of two arguments ([`Binary`]: pow,
//! atan2 and hypot, the [`crate::bivariate::PairTarget`]s) and functions of one binary80 or
//! binary128 argument ([`Wide`], [`crate::wide::WideTarget`]). The arity fixes three types:
//! the function enum that chooses the reference, the format enum, and the batch a target
//! evaluates at once (its arguments with room for its results). Everything else a target
//! states about itself is one [`About`], whatever the arity: its name, function, format, the
//! rounding mode its results are meant for and the note the report carries. A target that
//! runs foreign code may stop evaluating ([`Implementation::failure`]); the runs read it
//! through the same trait.
//!
//! So a report, a list check or a checkpoint header is written once over `Implementation<A>`,
//! and a new kind of target implements one trait with two methods: [`Implementation::about`]
//! and [`Implementation::eval`].

use crate::bivariate::{BiFunc, PairFormat};
use crate::failure::TargetFailure;
use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::rounding::Rounding;
use crate::wide::encoding::{Slot, WideFormat};

/// The shape of a target's function: its function enum, its format enum and its batches.
pub trait Arity: 'static {
    /// The functions of this arity (the reference is chosen by it).
    type Function: Copy + Send + Sync + std::fmt::Debug;
    /// The formats of this arity.
    type Format: Copy + Send + Sync + std::fmt::Debug + PartialEq;
    /// A batch of arguments with room for the results.
    type Batch<'a>;
    /// The function's name, as reports print it.
    fn function_name(function: Self::Function) -> &'static str;
    /// The format's name, as reports print it.
    fn format_name(format: Self::Format) -> &'static str;
}

/// Functions of one binary32 or binary64 argument.
#[derive(Clone, Copy, Debug)]
pub enum Unary {}

/// Functions of two arguments (pow, atan2, hypot) in binary16, binary32 or binary64.
#[derive(Clone, Copy, Debug)]
pub enum Binary {}

/// Functions of one binary80 or binary128 argument.
#[derive(Clone, Copy, Debug)]
pub enum Wide {}

/// A batch of a univariate target: inputs of its format and as many results.
pub enum UnaryBatch<'a> {
    Binary32 { xs: &'a [f32], out: &'a mut [f32] },
    Binary64 { xs: &'a [f64], out: &'a mut [f64] },
}

/// A batch of a two-argument target: f(a[i], b[i]) (C argument order) into `out[i]`, the
/// numbers of the format travelling as f64.
pub struct PairBatch<'a> {
    pub a: &'a [f64],
    pub b: &'a [f64],
    pub out: &'a mut [f64],
}

/// A batch of a binary80 or binary128 target: encodings of its inputs and room for as many
/// results.
pub struct WideBatch<'a> {
    pub xs: &'a [Slot],
    pub out: &'a mut [Slot],
}

impl Arity for Unary {
    type Function = RefFunc;
    type Format = CrunchFormat;
    type Batch<'a> = UnaryBatch<'a>;
    fn function_name(function: RefFunc) -> &'static str {
        function.name()
    }
    fn format_name(format: CrunchFormat) -> &'static str {
        format.name()
    }
}

impl Arity for Binary {
    type Function = BiFunc;
    type Format = PairFormat;
    type Batch<'a> = PairBatch<'a>;
    fn function_name(function: BiFunc) -> &'static str {
        function.name()
    }
    fn format_name(format: PairFormat) -> &'static str {
        format.name()
    }
}

impl Arity for Wide {
    type Function = RefFunc;
    type Format = WideFormat;
    type Batch<'a> = WideBatch<'a>;
    fn function_name(function: RefFunc) -> &'static str {
        function.name()
    }
    fn format_name(format: WideFormat) -> &'static str {
        format.name()
    }
}

/// What a target states about itself.
pub struct About<A: Arity> {
    /// The name the report shows (the target's spec, `std:exp`, `dl:./libm.so:exp`, ...).
    pub name: String,
    /// The mathematical function it implements: it chooses the reference.
    pub function: A::Function,
    /// The format of its inputs and results.
    pub format: A::Format,
    /// The mode its results are meant for: they are judged against f(x) rounded in it. Only
    /// targets run under another mode (foreign code called under `fesetround`) or that
    /// compute a directed rounding themselves say anything but round-to-nearest.
    pub rounding: Rounding,
    /// Facts the report should carry (where the code comes from, the CPU it runs on).
    pub note: Option<String>,
}

impl<A: Arity> About<A> {
    /// A target meant for round-to-nearest, without a note.
    pub fn new(name: &str, function: A::Function, format: A::Format) -> About<A> {
        About {
            name: name.to_string(),
            function,
            format,
            rounding: Rounding::Nearest,
            note: None,
        }
    }
}

impl<A: Arity> Clone for About<A> {
    fn clone(&self) -> Self {
        About {
            name: self.name.clone(),
            function: self.function,
            format: self.format,
            rounding: self.rounding,
            note: self.note.clone(),
        }
    }
}

impl<A: Arity> std::fmt::Debug for About<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("About")
            .field("name", &self.name)
            .field("function", &self.function)
            .field("format", &self.format)
            .field("rounding", &self.rounding)
            .field("note", &self.note)
            .finish()
    }
}

/// An implementation of a function of arity `A`: what it states about itself, and its
/// results on a batch. The accessors read [`Implementation::about`]; a target overrides one
/// only where the fact changes while it runs (a device target's note says where its errors
/// were analysed).
pub trait Implementation<A: Arity>: Send + Sync {
    /// What the target states about itself.
    fn about(&self) -> &About<A>;
    /// Evaluates a batch, under the target's rounding mode where it runs foreign code.
    fn eval(&self, batch: A::Batch<'_>);
    /// Why the target stopped evaluating (a foreign target whose worker crashed, exited or
    /// hung, [`crate::foreign::worker`]): its results since are NaN and not its own, so a run
    /// stops with this error before it records the batch. `None` (the default) while it works.
    fn failure(&self) -> Option<TargetFailure> {
        None
    }

    /// The name the report shows.
    fn name(&self) -> String {
        self.about().name.clone()
    }
    /// The mathematical function it implements.
    fn function(&self) -> A::Function {
        self.about().function
    }
    /// The format of its inputs and results.
    fn format(&self) -> A::Format {
        self.about().format
    }
    /// The mode its results are meant for.
    fn rounding(&self) -> Rounding {
        self.about().rounding
    }
    /// Facts the report should carry.
    fn note(&self) -> Option<String> {
        self.about().note.clone()
    }
}
