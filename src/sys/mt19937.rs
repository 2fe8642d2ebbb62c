//! The C++ standard library's `std::mt19937`, which LLVM's tools draw their random numbers
//! from: reproducing their output means drawing the same numbers.

/// `std::mt19937`: the 32-bit Mersenne Twister with the parameters the C++ standard fixes
/// (Matsumoto and Nishimura, 1998), written out here so that the core library needs no
/// package for the one generator LLVM draws from (temporal-trace reservoirs, the balanced
/// partitioning of `order`); the C++ standard's check of its 10000th output is a test below.
#[derive(Debug, Clone)]
pub struct Mt {
    state: [u32; MT_N],
    /// The next word of `state` to temper; `MT_N`: time to twist.
    next: usize,
}

/// Words of state.
const MT_N: usize = 624;
/// The middle word's offset.
const MT_M: usize = 397;

impl Mt {
    /// The generator `std::mt19937(seed)` is (`seed` 5489: a default-constructed one).
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; MT_N];
        let mut prev = seed;
        for (i, w) in (0u32..).zip(state.iter_mut()) {
            *w = if i == 0 {
                seed
            } else {
                1_812_433_253u32
                    .wrapping_mul(prev ^ (prev >> 30))
                    .wrapping_add(i)
            };
            prev = *w;
        }
        Mt { state, next: MT_N }
    }

    /// The next state: each word mixed with its neighbour and the word `MT_M` further on.
    fn twist(&mut self) {
        for i in 0..MT_N {
            let s = &mut self.state;
            let y = (s[i] & 0x8000_0000) | (s[(i + 1) % MT_N] & 0x7fff_ffff);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            s[i] = s[(i + MT_M) % MT_N] ^ (y >> 1) ^ mag;
        }
        self.next = 0;
    }

    /// The next output.
    pub fn next_u32(&mut self) -> u32 {
        if self.next >= MT_N {
            self.twist();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_default_seed_matches_the_standard() {
        // The C++ standard requires the 10000th output of a default mt19937 to be 4123659995.
        let mut m = Mt::new(5489);
        let mut v = 0;
        for _ in 0..10000 {
            v = m.next_u32();
        }
        assert_eq!(v, 4_123_659_995);
    }
}
