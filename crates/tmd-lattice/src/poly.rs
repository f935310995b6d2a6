//! Dense polynomials over the integers, `p[k]` the coefficient of t^k: the product, the
//! centred residue of a value modulo a power of two, and for the tests random polynomials.

use rug::Integer;

/// The product of two polynomials (empty when either is).
pub fn mul(a: &[Integer], b: &[Integer]) -> Vec<Integer> {
    let mut product = vec![Integer::new(); (a.len() + b.len()).saturating_sub(1)];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            product[i + j] += Integer::from(x * y);
        }
    }
    product
}

/// The representative of `value` modulo N = 2^`log2_n` in [-N/2, N/2): how far `value / N` is
/// from the nearest integer, in units of 1/N.
pub fn centred_residue(value: &Integer, log2_n: u32) -> Integer {
    let n = Integer::from(1) << log2_n;
    let half = Integer::from(&n >> 1u32);
    Integer::from(value + &half).modulo(&n) - half
}

#[cfg(test)]
pub(crate) mod testing {
    use rand::Rng;
    use rug::integer::Order;
    use rug::Integer;

    /// The polynomial with these small coefficients.
    pub fn poly(coefficients: &[i64]) -> Vec<Integer> {
        coefficients.iter().map(|&c| Integer::from(c)).collect()
    }

    /// A uniform random integer of magnitude below 2^bits, of random sign.
    pub fn random_integer(rng: &mut impl Rng, bits: u32) -> Integer {
        let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.gen()).collect();
        let mut value = Integer::from_digits(&limbs, Order::Lsf);
        value.keep_bits_mut(bits);
        if rng.gen() {
            value = -value;
        }
        value
    }

    /// A polynomial of this degree with random coefficients of `bits` bits.
    pub fn random_poly(rng: &mut impl Rng, degree: usize, bits: u32) -> Vec<Integer> {
        (0..=degree).map(|_| random_integer(rng, bits)).collect()
    }
}
