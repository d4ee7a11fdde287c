//! SplitMix64: a small seeded generator, so traces depend only on the seed.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// Skewed towards small values: index `0..n` with roughly Zipf-like
    /// weights (the minimum of two uniform draws, squared again).
    pub fn skewed(&mut self, n: u64) -> u64 {
        let a = self.below(n);
        let b = self.below(n);
        let c = self.below(n);
        a.min(b).min(c)
    }

    /// Strongly skewed index in `0..n`, like the hot paths of a profile:
    /// u^4 scaled to n, so the first 1% of indices draw about 32% of picks.
    pub fn hot(&mut self, n: u64) -> u64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u * u * n as f64) as u64).min(n.saturating_sub(1))
    }
}
