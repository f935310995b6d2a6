//! The device FFT: the word layout of `kernels/fft.cl`, the pass schedule, and the transform
//! for any [`Backend`].
//!
//! A transform of length `n` is `log2 n` launches of `PREFIX_stockham_pass`, each with `n/2`
//! work-items, alternating between two buffers; the twiddles (`tmd_xfloat::fft::fill_twiddles`)
//! are computed on the host and uploaded once. The kernels perform the CPU's operations in the
//! same order, so a device transform equals `tmd_xfloat::fft::fft_forward` bit for bit
//! (`tests/fft_opencl.rs`).

use crate::backend::{Arg, Backend, Grid};
use crate::crunch::CrunchReal;
use crate::GpuError;
use std::time::Instant;
use tmd_kernels::Id;
use tmd_xfloat::fft::{Complex, FftScalar};
use tmd_xfloat::{Dd, Df64};

/// A scalar type with an FFT kernel instance.
pub trait FftDeviceScalar: FftScalar {
    /// The storage word (`float` or `double` in the kernel).
    type Word: CrunchReal;
    /// The kernel instance's prefix (`PREFIX_stockham_pass`).
    const PREFIX: &'static str;
    /// Words per real scalar.
    const WORDS: usize;
    /// Appends the scalar's words, most significant first.
    fn push_words(self, out: &mut Vec<Self::Word>);
    /// The scalar from its `WORDS` words.
    fn from_words(words: &[Self::Word]) -> Self;
}

impl FftDeviceScalar for f32 {
    type Word = f32;
    const PREFIX: &'static str = "f32";
    const WORDS: usize = 1;
    fn push_words(self, out: &mut Vec<f32>) {
        out.push(self);
    }
    fn from_words(words: &[f32]) -> Self {
        words[0]
    }
}

impl FftDeviceScalar for f64 {
    type Word = f64;
    const PREFIX: &'static str = "f64";
    const WORDS: usize = 1;
    fn push_words(self, out: &mut Vec<f64>) {
        out.push(self);
    }
    fn from_words(words: &[f64]) -> Self {
        words[0]
    }
}

macro_rules! fft_device_double_word {
    ($t:ty, $word:ty, $prefix:literal) => {
        impl FftDeviceScalar for $t {
            type Word = $word;
            const PREFIX: &'static str = $prefix;
            const WORDS: usize = 2;
            fn push_words(self, out: &mut Vec<$word>) {
                out.push(self.hi());
                out.push(self.lo());
            }
            fn from_words(words: &[$word]) -> Self {
                // The kernel's words are a double word it computed: already normalised.
                <$t>::from_words_unchecked(words[0], words[1])
            }
        }
    };
}

fft_device_double_word!(Df64, f32, "df64");
fft_device_double_word!(Dd, f64, "dd");

/// The words of `data` in the kernel's layout: per element the real part's words, then the
/// imaginary part's.
pub fn to_words<T: FftDeviceScalar>(data: &[Complex<T>]) -> Vec<T::Word> {
    let mut out = Vec::with_capacity(2 * T::WORDS * data.len());
    for z in data {
        z.re.push_words(&mut out);
        z.im.push_words(&mut out);
    }
    out
}

/// The elements of a word array in the kernel's layout.
pub fn from_words<T: FftDeviceScalar>(words: &[T::Word]) -> Vec<Complex<T>> {
    words
        .chunks_exact(2 * T::WORDS)
        .map(|c| Complex::new(T::from_words(&c[..T::WORDS]), T::from_words(&c[T::WORDS..])))
        .collect()
}

/// `log2 L*` of each pass of a transform of length `n`, in order.
pub fn passes(n: usize) -> impl Iterator<Item = u32> {
    0..n.trailing_zeros()
}

/// A forward transform computed on a device.
#[derive(Clone, Debug)]
pub struct DeviceFft<T> {
    /// The transform.
    pub output: Vec<Complex<T>>,
    /// Seconds from the first pass's launch to the last one's completion (the data already on
    /// the device, no copies).
    pub kernel_seconds: f64,
}

/// Checks the lengths a device transform needs (a power of two, the twiddles of that length);
/// the transform itself when there is nothing to do (`n = 1`).
pub(crate) fn trivial_or_checked<T: FftDeviceScalar>(
    data: &[Complex<T>],
    w: &[Complex<T>],
) -> Option<DeviceFft<T>> {
    let n = data.len();
    assert!(
        n.is_power_of_two() && w.len() + 1 == n,
        "twiddles of the data's length"
    );
    (n == 1).then(|| DeviceFft {
        output: data.to_vec(),
        kernel_seconds: 0.0,
    })
}

/// The forward FFT of `data` (power-of-two length) on the device, with the twiddles `w` of
/// `tmd_xfloat::fft::fill_twiddles` for that length; equal bit for bit to
/// `tmd_xfloat::fft::fft_forward`.
pub(crate) fn forward<B: Backend, T: FftDeviceScalar>(
    b: &B,
    data: &[Complex<T>],
    w: &[Complex<T>],
) -> Result<DeviceFft<T>, GpuError> {
    if let Some(done) = trivial_or_checked(data, w) {
        return Ok(done);
    }
    let n = data.len();
    let program = b.program(Id::XfloatFft)?;
    let name = format!("{}_stockham_pass", T::PREFIX);
    b.with_queues(|q, _| {
        let words = to_words(data);
        let len = words.len();
        let mut from = b.upload(q, &words)?;
        let mut to = b.scratch::<T::Word>(q, len)?;
        let twiddles = b.upload(q, &to_words(w))?;
        b.sync(q)?;
        let grid = Grid {
            items: n / 2,
            group: B::FFT_GROUP,
        };
        let start = Instant::now();
        for log2_l_half in passes(n) {
            let args = [
                b.arg(q, &from),
                b.arg(q, &to),
                b.arg(q, &twiddles),
                Arg::U64(n as u64),
                Arg::U32(log2_l_half),
            ];
            b.launch(q, &program, &name, grid, &args)?;
            std::mem::swap(&mut from, &mut to);
        }
        b.sync(q)?;
        let kernel_seconds = start.elapsed().as_secs_f64();
        Ok(DeviceFft {
            output: from_words(&b.download(q, &from, len)?),
            kernel_seconds,
        })
    })
}
