//! Vector entry points: whether this CPU can run them, and the calls through the C loops of
//! `eval_under.c` (one per register width and element type), which fill the lanes with
//! consecutive inputs and pad the last vector with the last input.

use super::naming::{Isa, VectorShape};

/// A function pointer of a type the Rust side never calls itself: the C loop casts it to the
/// vector signature (`__m256d (*)(__m256d)` and so on).
pub type OpaqueFn = unsafe extern "C" fn();

/// Whether this CPU executes the instruction set.
pub fn cpu_has(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Sse2 => std::arch::is_x86_feature_detected!("sse2"),
            Isa::Sse41 => std::arch::is_x86_feature_detected!("sse4.1"),
            Isa::Avx => std::arch::is_x86_feature_detected!("avx"),
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            // std cannot detect FMA4 (AMD, 2011 to 2017): such entry points are refused.
            Isa::Fma4 => false,
            Isa::Avx512f => std::arch::is_x86_feature_detected!("avx512f"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

/// A loaded vector entry point.
#[derive(Clone, Copy)]
pub struct VectorFn {
    pub f: OpaqueFn,
    pub shape: VectorShape,
}

#[cfg(target_arch = "x86_64")]
mod ffi {
    use super::OpaqueFn;
    use std::ffi::c_int;
    extern "C" {
        pub fn tmd_eval_f64x2_under(m: c_int, f: OpaqueFn, x: *const f64, y: *mut f64, n: usize);
        pub fn tmd_eval_f64x4_under(m: c_int, f: OpaqueFn, x: *const f64, y: *mut f64, n: usize);
        pub fn tmd_eval_f64x8_under(m: c_int, f: OpaqueFn, x: *const f64, y: *mut f64, n: usize);
        pub fn tmd_eval_f32x4_under(m: c_int, f: OpaqueFn, x: *const f32, y: *mut f32, n: usize);
        pub fn tmd_eval_f32x8_under(m: c_int, f: OpaqueFn, x: *const f32, y: *mut f32, n: usize);
        pub fn tmd_eval_f32x16_under(m: c_int, f: OpaqueFn, x: *const f32, y: *mut f32, n: usize);
    }
}

impl VectorFn {
    /// `out[i] = f(xs[i])` under the rounding mode `mode` (the C loops' numbering).
    pub fn eval_f32(&self, mode: i32, xs: &[f32], out: &mut [f32]) {
        let n = xs.len().min(out.len());
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the constructor checked that the CPU has the instruction set and that the
        // name says `lanes` binary32 lanes; the loop reads and writes n elements.
        unsafe {
            let run = match self.shape.lanes {
                4 => ffi::tmd_eval_f32x4_under,
                8 => ffi::tmd_eval_f32x8_under,
                _ => ffi::tmd_eval_f32x16_under,
            };
            run(mode, self.f, xs.as_ptr(), out.as_mut_ptr(), n);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (mode, n);
    }

    /// `out[i] = f(xs[i])` under the rounding mode `mode` (the C loops' numbering).
    pub fn eval_f64(&self, mode: i32, xs: &[f64], out: &mut [f64]) {
        let n = xs.len().min(out.len());
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in eval_f32, for binary64 lanes.
        unsafe {
            let run = match self.shape.lanes {
                2 => ffi::tmd_eval_f64x2_under,
                4 => ffi::tmd_eval_f64x4_under,
                _ => ffi::tmd_eval_f64x8_under,
            };
            run(mode, self.f, xs.as_ptr(), out.as_mut_ptr(), n);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (mode, n);
    }
}
