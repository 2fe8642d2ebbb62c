//! LLVM's `hash_combine_range` (`llvm/ADT/Hashing.h`: a CityHash variant up to LLVM 22, XXH3-64
//! from LLVM 23) over 64-bit values, with the fixed seed of release builds
//! (`LLVM_ENABLE_ABI_BREAKING_CHECKS` off, as the distributed `llvm-profdata` binaries are
//! built), and the per-frame hash of a calling context ([`ContextHash`]).
//!
//! LLVM keys a context-sensitive sample profile by this hash of its frames
//! (`SampleContext::getHashCode`), and the iteration order of its profile map — hence the order
//! of the extbinary metadata section — follows from the keys. Only inputs that are whole
//! 8-byte values are needed here (each frame contributes its own 64-bit hash).

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;
/// `get_execution_seed()` without ABI-breaking checks.
const SEED: u64 = 0xff51_afd7_ed55_8ccd;

fn fetch64(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&s[at..at + 4]);
    u64::from(u32::from_le_bytes(b))
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_16(low: u64, high: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let mut a = (low ^ high).wrapping_mul(MUL);
    a ^= a >> 47;
    let mut b = (high ^ a).wrapping_mul(MUL);
    b ^= b >> 47;
    b.wrapping_mul(MUL)
}

/// `hash_short` for the lengths a sequence of 8-byte values can have (8 to 64).
fn hash_short(s: &[u8]) -> u64 {
    let len = s.len();
    let l = len as u64;
    match len {
        0 => K2 ^ SEED,
        4..=8 => {
            let a = fetch32(s, 0);
            hash_16(l.wrapping_add(a << 3), SEED ^ fetch32(s, len - 4))
        }
        9..=16 => {
            let a = fetch64(s, 0);
            let b = fetch64(s, len - 8);
            hash_16(SEED ^ a, b.wrapping_add(l).rotate_right(len as u32)) ^ b
        }
        17..=32 => {
            let a = fetch64(s, 0).wrapping_mul(K1);
            let b = fetch64(s, 8);
            let c = fetch64(s, len - 8).wrapping_mul(K2);
            let d = fetch64(s, len - 16).wrapping_mul(K0);
            hash_16(
                a.wrapping_sub(b)
                    .rotate_right(43)
                    .wrapping_add((c ^ SEED).rotate_right(30))
                    .wrapping_add(d),
                a.wrapping_add((b ^ K3).rotate_right(20))
                    .wrapping_sub(c)
                    .wrapping_add(l)
                    .wrapping_add(SEED),
            )
        }
        _ => {
            // 33..=64
            let mut z = fetch64(s, 24);
            let mut a =
                fetch64(s, 0).wrapping_add(l.wrapping_add(fetch64(s, len - 16)).wrapping_mul(K0));
            let mut b = a.wrapping_add(z).rotate_right(52);
            let mut c = a.rotate_right(37);
            a = a.wrapping_add(fetch64(s, 8));
            c = c.wrapping_add(a.rotate_right(7));
            a = a.wrapping_add(fetch64(s, 16));
            let vf = a.wrapping_add(z);
            let vs = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
            a = fetch64(s, 16).wrapping_add(fetch64(s, len - 32));
            z = fetch64(s, len - 8);
            b = a.wrapping_add(z).rotate_right(52);
            c = a.rotate_right(37);
            a = a.wrapping_add(fetch64(s, len - 24));
            c = c.wrapping_add(a.rotate_right(7));
            a = a.wrapping_add(fetch64(s, len - 16));
            let wf = a.wrapping_add(z);
            let ws = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
            let r = shift_mix(
                vf.wrapping_add(ws)
                    .wrapping_mul(K2)
                    .wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)),
            );
            shift_mix((SEED ^ r.wrapping_mul(K0)).wrapping_add(vs)).wrapping_mul(K2)
        }
    }
}

/// The 64-byte mixing state of long inputs.
struct State {
    h: [u64; 7],
}

impl State {
    fn create(s: &[u8]) -> State {
        let h4 = SEED.wrapping_mul(K1);
        let h5 = shift_mix(SEED);
        let mut st = State {
            h: [
                0,
                SEED,
                hash_16(SEED, K1),
                (SEED ^ K1).rotate_right(49),
                h4,
                h5,
                hash_16(h4, h5),
            ],
        };
        st.mix(s);
        st
    }

    fn mix_32(s: &[u8], at: usize, a: &mut u64, b: &mut u64) {
        *a = a.wrapping_add(fetch64(s, at));
        let c = fetch64(s, at + 24);
        *b = b.wrapping_add(*a).wrapping_add(c).rotate_right(21);
        let d = *a;
        *a = a.wrapping_add(fetch64(s, at + 8).wrapping_add(fetch64(s, at + 16)));
        *b = b.wrapping_add(a.rotate_right(44)).wrapping_add(d);
        *a = a.wrapping_add(c);
    }

    fn mix(&mut self, s: &[u8]) {
        let h = &mut self.h;
        h[0] = h[0]
            .wrapping_add(h[1])
            .wrapping_add(h[3])
            .wrapping_add(fetch64(s, 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        h[1] = h[1]
            .wrapping_add(h[4])
            .wrapping_add(fetch64(s, 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        h[0] ^= h[6];
        h[1] = h[1].wrapping_add(h[3]).wrapping_add(fetch64(s, 40));
        h[2] = h[2].wrapping_add(h[5]).rotate_right(33).wrapping_mul(K1);
        h[3] = h[4].wrapping_mul(K1);
        h[4] = h[0].wrapping_add(h[5]);
        let (mut a, mut b) = (h[3], h[4]);
        Self::mix_32(s, 0, &mut a, &mut b);
        h[3] = a;
        h[4] = b;
        h[5] = h[2].wrapping_add(h[6]);
        h[6] = h[1].wrapping_add(fetch64(s, 16));
        let (mut a, mut b) = (h[5], h[6]);
        Self::mix_32(s, 32, &mut a, &mut b);
        h[5] = a;
        h[6] = b;
        h.swap(2, 0);
    }

    fn finalize(&self, length: u64) -> u64 {
        let h = &self.h;
        hash_16(
            hash_16(h[3], h[5])
                .wrapping_add(shift_mix(h[1]).wrapping_mul(K1))
                .wrapping_add(h[2]),
            hash_16(h[4], h[6])
                .wrapping_add(shift_mix(length).wrapping_mul(K1))
                .wrapping_add(h[0]),
        )
    }
}

/// `hash_combine_range` over values whose `hash_value` is the value itself (each stored as
/// 8 little-endian bytes).
pub fn hash_combine_range_u64(values: &[u64]) -> u64 {
    let mut buf = [0u8; 64];
    let mut chunks = values.chunks(8);
    let first = chunks.next().unwrap_or(&[]);
    for (i, v) in first.iter().enumerate() {
        buf[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    if values.len() <= 8 {
        return hash_short(&buf[..first.len() * 8]);
    }
    let mut st = State::create(&buf);
    let mut length = 64u64;
    for chunk in chunks {
        // Fill from the front without clearing, then rotate so the new bytes come last, as
        // LLVM does to imitate hashing the trailing 64 bytes of a contiguous input.
        let n = chunk.len() * 8;
        for (i, v) in chunk.iter().enumerate() {
            buf[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        buf.rotate_left(n % 64);
        st.mix(&buf);
        length += n as u64;
    }
    st.finalize(length)
}

/// How an LLVM release keys a calling context (defined in the IR, which profiles carry; its
/// hashes are computed here).
pub use crate::ir::sample::ContextHash;

impl ContextHash {
    /// The hash of one frame: its function (`name` if it is text, else the function's
    /// 64-bit hash `function_hash`) at a location of its caller.
    pub fn frame(
        self,
        function_hash: impl FnOnce() -> u64,
        name: Option<&[u8]>,
        line_offset: u32,
        discriminator: u32,
    ) -> u64 {
        let f = match (self, name) {
            (ContextHash::Llvm23, Some(n)) => std_string_hash(n),
            _ => function_hash(),
        };
        context_frame_hash(f, line_offset, discriminator)
    }

    /// The key of a context whose frames hash to `frame_hashes`, in order.
    pub fn combine(self, frame_hashes: &[u64]) -> u64 {
        match self {
            ContextHash::Llvm19 => hash_combine_range_u64(frame_hashes),
            ContextHash::Llvm23 => hash_combine_range_u64_xxh3(frame_hashes),
        }
    }
}

/// LLVM 23's `hash_combine_range` over values whose `hash_value` is the value itself: the
/// values laid out as 8 little-endian bytes each, hashed with XXH3-64 (seed 0), XORed with the
/// fixed execution seed of release builds.
pub fn hash_combine_range_u64_xxh3(values: &[u64]) -> u64 {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(&bytes) ^ SEED
}

/// libstdc++'s `std::hash<std::string>` on 64-bit targets (`std::_Hash_bytes`, a MurmurHash2
/// variant, with its seed `0xc70f6907`): what LLVM 23 hashes a context frame's function
/// name with when the name is text.
pub fn std_string_hash(s: &[u8]) -> u64 {
    const MUL: u64 = (0xc6a4_a793u64 << 32) + 0x5bd1_e995;
    let len = s.len();
    let mut hash = 0xc70f_6907u64 ^ (len as u64).wrapping_mul(MUL);
    let whole = len & !7;
    for at in (0..whole).step_by(8) {
        hash ^= shift_mix(fetch64(s, at).wrapping_mul(MUL)).wrapping_mul(MUL);
        hash = hash.wrapping_mul(MUL);
    }
    if len > whole {
        let tail = s[whole..]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        hash ^= tail;
        hash = hash.wrapping_mul(MUL);
    }
    shift_mix(shift_mix(hash).wrapping_mul(MUL))
}

/// `SampleContextFrame::getHashCode`: the function's hash (in LLVM 19–22 its MD5) plus 33 times the location's id (`discriminator << 32 | line offset`), wrapping.
pub fn context_frame_hash(function_hash: u64, line_offset: u32, discriminator: u32) -> u64 {
    let loc = (u64::from(discriminator) << 32) | u64::from(line_offset);
    function_hash.wrapping_add(loc << 5).wrapping_add(loc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by a C++ program calling `llvm::hash_combine_range` over `uint64_t`s
    /// with LLVM 19's `Hashing.h` (release configuration).
    #[test]
    fn matches_llvm() {
        for (n, expected) in EXPECTED {
            let v: Vec<u64> = (1..=*n as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            assert_eq!(hash_combine_range_u64(&v), *expected, "{n} values");
        }
    }

    /// Values printed by a C++ program calling `std::hash<std::string>` (g++, libstdc++,
    /// x86-64).
    #[test]
    fn matches_libstdcxx_string_hash() {
        for (s, expected) in [
            (&b""[..], 0x553e_9390_1e46_2a6e),
            (b"a", 0x454d_dee4_88c1_ed6b),
            (b"main", 0xa4b4_090b_8f93_6f2c),
            (b"foo_bar", 0x8ebe_ae6b_6703_8c5e),
            (b"_Z3fooi12345", 0xb6f5_0118_6640_f42c),
            (b"0123456789abcdefXYZ", 0x36c7_5353_3da7_78af),
        ] {
            assert_eq!(
                std_string_hash(s),
                expected,
                "{:?}",
                String::from_utf8_lossy(s)
            );
        }
    }

    /// LLVM 23's combination: XXH3-64 of no bytes is its published empty-input value.
    #[test]
    fn xxh3_combination() {
        assert_eq!(
            hash_combine_range_u64_xxh3(&[]),
            0x2d06_8005_38d3_94c2 ^ SEED
        );
        assert_eq!(
            ContextHash::Llvm23.combine(&[1, 2]),
            hash_combine_range_u64_xxh3(&[1, 2])
        );
        assert_eq!(
            ContextHash::Llvm19.combine(&[1, 2]),
            hash_combine_range_u64(&[1, 2])
        );
        // A name is hashed as text by LLVM 23 and by MD5 before; a hash is itself in both.
        let md5 = 0x1234_u64;
        assert_eq!(ContextHash::Llvm19.frame(|| md5, Some(b"main"), 0, 0), md5);
        assert_eq!(
            ContextHash::Llvm23.frame(|| md5, Some(b"main"), 0, 0),
            std_string_hash(b"main")
        );
        assert_eq!(ContextHash::Llvm23.frame(|| md5, None, 1, 0), md5 + 33);
    }

    const EXPECTED: &[(usize, u64)] = &[
        (0, 0x65b0c5ecc2c5cc82),
        (1, 0xb872188a44921976),
        (2, 0x8c01f9447538c97f),
        (3, 0x6cc90ca48437e31d),
        (4, 0xed8c3c05b762048e),
        (5, 0xe88b95d642bb936b),
        (7, 0x4028d6a5a00037d1),
        (8, 0xed98122caa658489),
        (9, 0x1234a507ce128a99),
        (12, 0x067cd7f15dbd6166),
        (16, 0x4818de954ac74b24),
        (17, 0x2111f92633c4f897),
        (25, 0x278f3b8b8f815cb9),
    ];
}
