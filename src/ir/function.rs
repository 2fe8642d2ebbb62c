//! Function records: identity, counters, MC/DC bitmap and value sites.

use std::borrow::Cow;
use std::sync::Arc;

use super::value::ValueProfile;
use super::weight::Weight;

use crate::bytes::Endian;

/// Bit 60 of a structural hash marks a context-sensitive (CS-IRPGO) record.
pub const CS_HASH_FLAG: u64 = 1 << 60;

/// LLVM's largest stored count: `u64::MAX − 1` and `u64::MAX` mark pseudo counts.
pub const MAX_COUNT: u64 = u64::MAX - 2;
/// First counter value LLVM uses to mark a pseudo-hot function.
pub const PSEUDO_HOT: u64 = u64::MAX;
/// First counter value LLVM uses to mark a pseudo-warm function.
pub const PSEUDO_WARM: u64 = u64::MAX - 1;

/// 8-byte counters as they lie in an input, possibly unaligned, with the input's byte order
/// kept private: a pass reads them as values ([`CounterBytes::get`], [`CounterBytes::iter`])
/// or adds them to counts in memory ([`CounterBytes::add_to`]) without knowing the order.
///
/// Invariant: `bytes.len()` is a multiple of 8 (a shorter tail is never read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterBytes<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> CounterBytes<'a> {
    /// The counters in `bytes` (8 bytes each, in `endian` order; bytes after the last whole
    /// counter are not counters).
    #[inline]
    pub fn new(bytes: &'a [u8], endian: Endian) -> Self {
        let whole = bytes.len() - bytes.len() % 8;
        CounterBytes {
            bytes: &bytes[..whole],
            endian,
        }
    }

    /// The bytes, in the input's order.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Number of counters.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    /// True if there is no counter.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Counter `i`, if it exists.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        self.endian.u64_at(self.bytes, i.checked_mul(8)?)
    }

    /// The first counter, if any.
    #[inline]
    pub fn first(&self) -> Option<u64> {
        self.bytes.first_chunk::<8>().map(|b| self.endian.u64(*b))
    }

    /// The counts, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + use<'a> {
        let endian = self.endian;
        self.bytes
            .as_chunks::<8>()
            .0
            .iter()
            .map(move |b| endian.u64(*b))
    }

    /// True if every counter is zero.
    pub fn all_zero(&self) -> bool {
        self.bytes.iter().all(|&b| b == 0)
    }

    /// The bitwise OR of all counters (0 if there are none). No counter is above it: a cheap
    /// first test against a bound, before the counters are looked at one by one.
    #[inline]
    pub fn or_all(&self) -> u64 {
        match self.endian {
            Endian::Little => or_raw(self.bytes, u64::from_le_bytes),
            Endian::Big => or_raw(self.bytes, u64::from_be_bytes),
        }
    }

    /// `dst[i] = min(dst[i] + weight × self[i], MAX_COUNT)` for the counters both have;
    /// returns true if any sum saturated (overflowed or exceeded [`MAX_COUNT`]).
    // Always inlined: at weight 1 (nearly every merge) this is the merge's innermost loop, and
    // a call per record cost more than the adds of a short record; the weighted loop is apart.
    #[inline(always)]
    pub fn add_to(&self, dst: &mut [u64], weight: Weight) -> bool {
        if weight.is_one() {
            return match self.endian {
                Endian::Little => add_raw(dst, self.bytes, u64::from_le_bytes),
                Endian::Big => add_raw(dst, self.bytes, u64::from_be_bytes),
            };
        }
        self.add_weighted(dst, weight)
    }

    /// [`CounterBytes::add_to`] at a weight other than 1.
    #[inline(never)]
    fn add_weighted(&self, dst: &mut [u64], weight: Weight) -> bool {
        let mut overflow = false;
        for (d, s) in dst.iter_mut().zip(self.iter()) {
            let (v, o) = weight.scale_add(s, *d);
            overflow |= o | (v > MAX_COUNT);
            *d = v.min(MAX_COUNT);
        }
        overflow
    }
}

/// The OR of the 8-byte counters in `bytes`, decoded by `decode` (the byte order chosen once,
/// outside the loop, so that it vectorises).
#[inline(always)]
fn or_raw(bytes: &[u8], decode: fn([u8; 8]) -> u64) -> u64 {
    bytes
        .as_chunks::<8>()
        .0
        .iter()
        .fold(0, |acc, b| acc | decode(*b))
}

/// `dst[i] = min(dst[i] + src[i], MAX_COUNT)` for 8-byte counters in `bytes`, decoded by
/// `decode`; returns true on saturation. This loop is where most bytes of a merge go, so
/// it adds with wrapping (a loop that vectorises: no compare per counter) and checks once,
/// at the end, whether any operand reached 2^62; only then can a sum exceed [`MAX_COUNT`],
/// and [`resaturate`] fixes the sums from what was added.
#[inline(always)]
fn add_raw(dst: &mut [u64], bytes: &[u8], decode: fn([u8; 8]) -> u64) -> bool {
    let (src, _) = bytes.as_chunks::<8>();
    let n = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    let mut high = 0u64;
    for (d, s) in dst.iter_mut().zip(src) {
        let s = decode(*s);
        high |= *d | s;
        *d = d.wrapping_add(s);
    }
    // Both operands below 2^62: the sum is below 2^63, far from MAX_COUNT.
    if high >> 62 == 0 {
        return false;
    }
    resaturate(dst, src, decode)
}

/// After `dst[i] = dst[i] wrapping+ src[i]`: sets every sum that wrapped or exceeds
/// [`MAX_COUNT`] to `MAX_COUNT`; returns true if there was one. A wrapped sum is smaller
/// than what was added to it.
#[cold]
#[inline(never)]
fn resaturate(dst: &mut [u64], src: &[[u8; 8]], decode: fn([u8; 8]) -> u64) -> bool {
    let mut sat = false;
    for (d, s) in dst.iter_mut().zip(src) {
        if *d < decode(*s) || *d > MAX_COUNT {
            *d = MAX_COUNT;
            sat = true;
        }
    }
    sat
}

/// Identity of a function record: LLVM keys records by the MD5 of the PGO name and the
/// structural (CFG) hash of the body. Two bodies with one name are two records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionKey {
    /// Low 64 bits of MD5 of the PGO name ([`crate::ir::name_hash::md5_hash`]).
    pub name: u64,
    /// Structural hash; bit 60 set for context-sensitive records.
    pub cfg: u64,
}

impl FunctionKey {
    /// True for context-sensitive records.
    pub fn is_context_sensitive(&self) -> bool {
        self.cfg & CS_HASH_FLAG != 0
    }
}

/// The counters of one function. Readers borrow them from the input without copying;
/// merging produces counts in memory, owned or in a shared arena. Equality compares the
/// counts of in-memory variants, and the bytes of borrowed ones.
#[derive(Debug, Clone)]
pub enum Counters<'a> {
    /// Counts in memory.
    Owned(Vec<u64>),
    /// A run of counts in an arena shared by many records: the merge's output, one
    /// allocation per shard instead of one per function.
    Shared {
        /// The arena.
        all: Arc<Vec<u64>>,
        /// Index of the first count in `all`. Invariant: `start + len <= all.len()`.
        start: usize,
        /// Number of counts.
        len: usize,
    },
    /// 8-byte counters straight from an input, in its byte order, possibly unaligned.
    /// Invariant: `bytes.len()` is a multiple of 8.
    Raw64 {
        /// The counter bytes.
        bytes: &'a [u8],
        /// Their byte order.
        endian: Endian,
    },
    /// Single-byte coverage counters: `0x00` means covered (count 1), anything else 0.
    Coverage(&'a [u8]),
}

impl<'a> From<CounterBytes<'a>> for Counters<'a> {
    fn from(c: CounterBytes<'a>) -> Self {
        Counters::Raw64 {
            bytes: c.bytes,
            endian: c.endian,
        }
    }
}

impl Default for Counters<'_> {
    fn default() -> Self {
        Counters::Owned(Vec::new())
    }
}

impl PartialEq for Counters<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.in_memory(), other.in_memory()) {
            (Some(a), Some(b)) => a == b,
            _ => match (self, other) {
                (
                    Counters::Raw64 {
                        bytes: a,
                        endian: x,
                    },
                    Counters::Raw64 {
                        bytes: b,
                        endian: y,
                    },
                ) => a == b && x == y,
                (Counters::Coverage(a), Counters::Coverage(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl Eq for Counters<'_> {}

impl<'a> Counters<'a> {
    /// The counts, if they are in memory (owned or shared).
    pub fn in_memory(&self) -> Option<&[u64]> {
        match self {
            Counters::Owned(v) => Some(v),
            Counters::Shared { all, start, len } => all.get(*start..start + len),
            _ => None,
        }
    }

    /// Number of counters.
    pub fn len(&self) -> usize {
        match self {
            Counters::Owned(v) => v.len(),
            Counters::Shared { len, .. } => *len,
            Counters::Raw64 { bytes, .. } => bytes.len() / 8,
            Counters::Coverage(b) => b.len(),
        }
    }

    /// True if there are no counters.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The counters of [`Counters::Raw64`] as values; None for the other variants.
    #[inline]
    pub fn raw(&self) -> Option<CounterBytes<'a>> {
        match self {
            Counters::Raw64 { bytes, endian } => Some(CounterBytes::new(bytes, *endian)),
            _ => None,
        }
    }

    /// Counter `i`, if it exists.
    pub fn get(&self, i: usize) -> Option<u64> {
        match self {
            Counters::Owned(v) => v.get(i).copied(),
            Counters::Shared { .. } => self.in_memory()?.get(i).copied(),
            Counters::Raw64 { bytes, endian } => endian.u64_at(bytes, i.checked_mul(8)?),
            Counters::Coverage(b) => b.get(i).map(|&x| u64::from(x == 0)),
        }
    }

    /// Iterates the counts.
    pub fn iter(&self) -> CounterIter<'_, 'a> {
        CounterIter {
            counters: self,
            next: 0,
        }
    }

    /// The counts as an owned vector.
    pub fn to_vec(&self) -> Vec<u64> {
        match self.in_memory() {
            Some(v) => v.to_vec(),
            None => self.iter().collect(),
        }
    }

    /// Turns borrowed counters into owned ones.
    pub fn into_owned(self) -> Counters<'static> {
        match self {
            Counters::Owned(v) => Counters::Owned(v),
            other => Counters::Owned(other.to_vec()),
        }
    }

    /// True if every counter is zero.
    pub fn all_zero(&self) -> bool {
        match self {
            Counters::Owned(v) => v.iter().all(|&c| c == 0),
            Counters::Shared { .. } => self.in_memory().is_none_or(|v| v.iter().all(|&c| c == 0)),
            Counters::Raw64 { bytes, .. } => bytes.iter().all(|&b| b == 0),
            Counters::Coverage(b) => b.iter().all(|&x| x != 0),
        }
    }
}

/// Iterator over [`Counters`].
#[derive(Debug)]
pub struct CounterIter<'c, 'a> {
    counters: &'c Counters<'a>,
    next: usize,
}

impl Iterator for CounterIter<'_, '_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let v = self.counters.get(self.next)?;
        self.next += 1;
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.counters.len().saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for CounterIter<'_, '_> {}

/// One function's profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionRecord<'a> {
    /// Identity.
    pub key: FunctionKey,
    /// Block/edge counters, in the compiler's numbering.
    pub counters: Counters<'a>,
    /// MC/DC test-vector bitmap bytes (empty without `-fcoverage-mcdc`).
    pub bitmap: Cow<'a, [u8]>,
    /// Value sites, `None` when the function has none.
    pub values: Option<Box<ValueProfile>>,
}

impl FunctionRecord<'_> {
    /// True if no counter and no bitmap byte is non-zero (what `--sparse` drops).
    pub fn is_zero(&self) -> bool {
        self.counters.all_zero() && self.bitmap.iter().all(|&b| b == 0)
    }

    /// Detaches the record from the input it borrows from.
    pub fn into_owned(self) -> FunctionRecord<'static> {
        FunctionRecord {
            key: self.key,
            counters: self.counters.into_owned(),
            bitmap: Cow::Owned(self.bitmap.into_owned()),
            values: self.values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_counters_decode_both_orders_and_coverage() {
        let le = [1u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
        let c = Counters::Raw64 {
            bytes: &le,
            endian: Endian::Little,
        };
        assert_eq!(c.to_vec(), vec![1, 2 << 56]);
        let c = Counters::Raw64 {
            bytes: &le,
            endian: Endian::Big,
        };
        assert_eq!(c.to_vec(), vec![1 << 56, 2]);
        let cov = [0u8, 0xff, 0x00, 0x01];
        let c = Counters::Coverage(&cov);
        assert_eq!(c.to_vec(), vec![1, 0, 1, 0]);
        assert!(!c.all_zero());
        assert!(Counters::Coverage(&[0xff, 0xff]).all_zero());
    }

    /// Adds `src` to `dst` through the borrowed-bytes path in both byte orders, and
    /// through the plain saturating sum, and checks that all three agree.
    fn add_both_ways(dst: &[u64], src: &[u64]) -> (Vec<u64>, bool) {
        let mut expected = dst.to_vec();
        let mut sat = false;
        for (d, s) in expected.iter_mut().zip(src) {
            let (v, o) = d.overflowing_add(*s);
            sat |= o || v > MAX_COUNT;
            *d = if o { MAX_COUNT } else { v.min(MAX_COUNT) };
        }
        for endian in [Endian::Little, Endian::Big] {
            let bytes: Vec<u8> = src
                .iter()
                .flat_map(|v| match endian {
                    Endian::Little => v.to_le_bytes(),
                    Endian::Big => v.to_be_bytes(),
                })
                .collect();
            let mut got = dst.to_vec();
            let got_sat = CounterBytes::new(&bytes, endian).add_to(&mut got, Weight::ONE);
            assert_eq!(
                (&got, got_sat),
                (&expected, sat),
                "{dst:?} + {src:?} ({endian:?})"
            );
        }
        (expected, sat)
    }

    #[test]
    fn raw_counter_sums_saturate_at_llvm_max_wherever_they_overflow() {
        const TOP: u64 = 1 << 62;
        let (sum, sat) = add_both_ways(&[1, 2, TOP - 1], &[3, 4, TOP - 1]);
        assert_eq!((sum, sat), (vec![4, 6, 2 * TOP - 2], false));
        // Wrapped (d + s ≥ 2^64), exactly MAX_COUNT, one or two past it, and a small
        // counter beside a saturating one that must keep its own sum.
        let (sum, sat) = add_both_ways(
            &[
                u64::MAX,
                MAX_COUNT - 1,
                MAX_COUNT - 1,
                MAX_COUNT,
                7,
                1 << 63,
            ],
            &[2, 1, 2, 2, 8, 1 << 63],
        );
        assert_eq!(
            (sum, sat),
            (
                vec![MAX_COUNT, MAX_COUNT, MAX_COUNT, MAX_COUNT, 15, MAX_COUNT],
                true
            )
        );
        assert_eq!(add_both_ways(&[3 * TOP], &[0]), (vec![3 * TOP], false));
        assert_eq!(add_both_ways(&[5, 6], &[1]), (vec![6, 6], false));
    }
}
