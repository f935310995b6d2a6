//! Statistics of a filtered search: per phase, domains and arguments in
//! and out and the time; candidates and verified cases (compare TOMS16 Table II); the NMDM of
//! the lower-bound main loop over groups of 32 consecutive domains (TOMS16 §2.2, Table III).

/// Domains and arguments entering and failing a phase, and the time spent in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseCounts {
    pub domains_in: u64,
    pub args_in: u64,
    pub domains_failed: u64,
    pub args_failed: u64,
    /// Thread time, summed over threads.
    pub nanos: u64,
}

impl PhaseCounts {
    pub(crate) fn enter(&mut self, domains: u64, args: u64) {
        self.domains_in += domains;
        self.args_in += args;
    }

    pub(crate) fn fail(&mut self, domains: u64, args: u64) {
        self.domains_failed += domains;
        self.args_failed += args;
    }

    fn absorb(&mut self, o: &PhaseCounts) {
        self.domains_in += o.domains_in;
        self.args_in += o.args_in;
        self.domains_failed += o.domains_failed;
        self.args_failed += o.args_failed;
        self.nanos += o.nanos;
    }
}

/// NMDM(l) = 1 - mean(l)/max(l) of the main-loop iteration counts l of a group of domains
/// (TOMS16 §2.2): the share of loop iterations a SIMD lane would sit idle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Nmdm {
    pub groups: u64,
    pub sum: f64,
    pub iterations: u64,
    pub domains: u64,
}

impl Nmdm {
    pub(crate) fn add_group(&mut self, iterations: &[u64]) {
        let max = iterations.iter().copied().max().unwrap_or(0);
        let total: u64 = iterations.iter().sum();
        self.iterations += total;
        self.domains += iterations.len() as u64;
        if max > 0 {
            let mean = total as f64 / iterations.len() as f64;
            self.sum += 1.0 - mean / max as f64;
            self.groups += 1;
        }
    }

    /// The mean NMDM over groups (0 when no group had an iteration).
    pub fn mean(&self) -> f64 {
        if self.groups == 0 {
            0.0
        } else {
            self.sum / self.groups as f64
        }
    }

    pub(crate) fn absorb(&mut self, o: &Nmdm) {
        self.groups += o.groups;
        self.sum += o.sum;
        self.iterations += o.iterations;
        self.domains += o.domains;
    }
}

/// What one packet of domains did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PacketStats {
    pub phase1: PhaseCounts,
    pub phase2: PhaseCounts,
    pub phase3: PhaseCounts,
    pub nmdm: Nmdm,
}

/// The statistics of a whole filtered search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterStats {
    /// Chunks that got a polynomial (and their total inputs).
    pub chunks: u64,
    pub chunk_inputs: u64,
    /// Inputs of pieces without a usable polynomial, decided one by one (by the screen or
    /// MPFR); in the plan's sample, those of the sampled blocks only.
    pub reference_inputs: u64,
    /// Of those, the inputs the per-input screen cleared without MPFR (`crate::screen`).
    pub screened_inputs: u64,
    /// Inputs of chunks decided as a whole (every result overflows, or is too close to zero
    /// to be near a breakpoint).
    pub whole_chunk_inputs: u64,
    /// Inputs of pieces where the regime rule proved that no input is hard
    /// (`crate::regime`).
    pub rule_inputs: u64,
    /// Thread time of the polynomial generation (Taylor models, exact packet tables).
    pub generation_nanos: u64,
    pub phase1: PhaseCounts,
    pub phase2: PhaseCounts,
    pub phase3: PhaseCounts,
    /// Phase-3 survivors sent to MPFR.
    pub candidates: u64,
    /// Thread time of the MPFR verification of candidates (and of reference pieces).
    pub verification_nanos: u64,
    /// Device time of phases 1-3 (kernels and transfers), when they ran on a device.
    pub device_nanos: u64,
    /// Of which each kernel (`device::DEVICE_STEPS`), thread time summed over the calls.
    pub step_nanos: [u64; super::device::DEVICE_STEPS.len()],
    pub nmdm: Nmdm,
    /// On a device: the NMDM of real warps (32 work-items side by side, each at the same step
    /// of its sub-packet; kernels/filter.cl `warp_nmdm`). Zero groups on the CPU.
    pub nmdm_warp: Nmdm,
    /// Domain sizes used (smallest and largest N).
    pub domain_size_min: u64,
    pub domain_size_max: u64,
    /// Polynomial degrees used (smallest and largest).
    pub degree_min: u64,
    pub degree_max: u64,
    /// Inputs whose work a sampled search (the plan's, `crate::projection`) skipped: packets,
    /// lattice intervals or per-input blocks left out of the sample. 0 in a search.
    pub unsampled_inputs: u64,
    /// The wall time the skipped work would have taken, extrapolated from the sampled part of
    /// the same chunk at the same rate.
    pub unsampled_nanos: u64,
}

impl FilterStats {
    pub(crate) fn absorb_packet(&mut self, p: &PacketStats) {
        self.phase1.absorb(&p.phase1);
        self.phase2.absorb(&p.phase2);
        self.phase3.absorb(&p.phase3);
        self.nmdm.absorb(&p.nmdm);
    }

    pub(crate) fn note_chunk(&mut self, inputs: u64, n: u64, degree: u64) {
        if self.chunks == 0 {
            self.domain_size_min = n;
            self.domain_size_max = n;
            self.degree_min = degree;
            self.degree_max = degree;
        }
        self.chunks += 1;
        self.chunk_inputs += inputs;
        self.domain_size_min = self.domain_size_min.min(n);
        self.domain_size_max = self.domain_size_max.max(n);
        self.degree_min = self.degree_min.min(degree);
        self.degree_max = self.degree_max.max(degree);
    }

    pub(crate) fn absorb(&mut self, o: &FilterStats) {
        if o.chunks > 0 {
            if self.chunks == 0 {
                self.domain_size_min = o.domain_size_min;
                self.domain_size_max = o.domain_size_max;
                self.degree_min = o.degree_min;
                self.degree_max = o.degree_max;
            }
            self.domain_size_min = self.domain_size_min.min(o.domain_size_min);
            self.domain_size_max = self.domain_size_max.max(o.domain_size_max);
            self.degree_min = self.degree_min.min(o.degree_min);
            self.degree_max = self.degree_max.max(o.degree_max);
        }
        self.chunks += o.chunks;
        self.chunk_inputs += o.chunk_inputs;
        self.reference_inputs += o.reference_inputs;
        self.screened_inputs += o.screened_inputs;
        self.whole_chunk_inputs += o.whole_chunk_inputs;
        self.rule_inputs += o.rule_inputs;
        self.generation_nanos += o.generation_nanos;
        self.phase1.absorb(&o.phase1);
        self.phase2.absorb(&o.phase2);
        self.phase3.absorb(&o.phase3);
        self.candidates += o.candidates;
        self.verification_nanos += o.verification_nanos;
        self.device_nanos += o.device_nanos;
        for (a, b) in self.step_nanos.iter_mut().zip(o.step_nanos) {
            *a += b;
        }
        self.nmdm.absorb(&o.nmdm);
        self.nmdm_warp.absorb(&o.nmdm_warp);
        self.unsampled_inputs += o.unsampled_inputs;
        self.unsampled_nanos += o.unsampled_nanos;
    }

    /// Notes that a sampled part of `covered` of `total` inputs took `wall`: the rest is
    /// counted as skipped, at the sample's rate.
    pub(crate) fn note_sample(&mut self, covered: u64, total: u64, wall: std::time::Duration) {
        if covered < total {
            self.unsampled_inputs += total - covered;
            self.unsampled_nanos +=
                (wall.as_nanos() as f64 * (total - covered) as f64 / covered.max(1) as f64) as u64;
        }
    }
}

/// `most` of the indices `0..total`, evenly spread from the first (all of them when `most`
/// is at least `total`): the units (packets, lattice intervals, blocks of inputs) a sampled
/// search runs. Evenly spread, so that a chunk whose cost drifts along it (domains failing
/// more often towards one end) is sampled at both ends and between.
pub(crate) fn spread(total: u64, most: u64) -> Vec<u64> {
    if most >= total {
        return (0..total).collect();
    }
    (0..most)
        .map(|i| (i as u128 * total as u128 / most as u128) as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmdm_of_a_group() {
        let mut n = Nmdm::default();
        n.add_group(&[4, 4, 4, 4]);
        assert_eq!(n.mean(), 0.0);
        n.add_group(&[1, 3]);
        // 1 - 2/3
        assert!((n.sum - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(n.groups, 2);
        assert_eq!(n.iterations, 20);
    }
}
