//! A small, fast, non-cryptographic hasher for in-memory tables (the "Fx" hash of rustc and
//! Firefox), on the hot paths of iprof, sample-profile and text-profile reading and merging.
//!
//! Its keys include bytes read from inputs (function names of text and sample profiles,
//! Java symbols of iprof files, `perf script` frames), not only ids this process made up.
//! It is not resistant to hash flooding: an input crafted so that many names collide makes
//! those tables slow (never wrong). Profiles are build artefacts of the user's own builds,
//! and SipHash (std's flooding-resistant default) costs these tables a large share of their
//! time; the trade is made knowingly.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The Fx hasher: `h = (h.rotate_left(5) ^ word) * SEED` per 64-bit word.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.add(u64::from(i as u32));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // The multiply leaves the best bits at the top; hash tables index with the low bits.
        self.hash.rotate_left(26)
    }
}

/// Hashes bytes with [`FxHasher`].
#[inline]
pub fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(b);
    h.write_u8(0xff);
    h.finish()
}

/// Builder of [`FxHasher`]s.
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
/// `HashMap` with the Fx hash.
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;
/// `HashSet` with the Fx hash.
pub type FxHashSet<K> = HashSet<K, FxBuildHasher>;
