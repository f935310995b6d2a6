//! Vector entry points: whether this CPU can run them. The worker ([`super::worker`]) calls
//! them through the C loops of `eval_under.c` (one per register width and element type),
//! which fill the lanes with consecutive inputs and pad the last vector with the last input.

use super::naming::Isa;

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
