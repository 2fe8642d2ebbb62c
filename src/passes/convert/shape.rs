//! The shape of an iprof method in one context — which entries it has and where — encoded as
//! 64-bit values, so that it travels inside an LLVM record and survives merging.
//!
//! A record made from iprof carries its shape as the values of its `IPVK_MemOPSize` value
//! sites ("shape sites"): LLVM merges value sites by value, adding counts, so the set of
//! values — the shape — is kept by any merge of records with the same key, by llvm-profdata's
//! as by ours, while the counts of shape values (1 per conversion) carry no meaning. A value:
//!
//! ```text
//! bits 63..60  tag   1 conditional successor   a = site BCI, b = target BCI,
//!                                              c = branch index, d = occurrence (0, 1, …)
//!                    2 virtual-invoke site     a = BCI
//!                    3 call-count entry        (no fields)
//!                    4 conditional site        a = BCI
//! bits 59..42  a     18-bit two's complement
//! bits 41..24  b     18-bit two's complement
//! bits 23..8   c     16-bit two's complement
//! bits  7..0   d     8 bits
//! ```
//!
//! The occurrence number tells apart repeated `(target BCI, branch index)` pairs of one site
//! (real files have them). Shape values are sorted ascending and cut into sites of at most
//! 255 values (LLVM's limit per site). The record's structural hash is derived from the
//! sorted values ([`structural_hash`]), so two records have the same key only if they have the
//! same shape, and profiles of different bytecode never merge silently.

/// What a shape value says.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeItem {
    /// A successor of the conditional site at `site`.
    Successor {
        /// BCI of the branch.
        site: i32,
        /// BCI it jumps to.
        target: i32,
        /// The compiler's branch index.
        index: i32,
        /// Occurrence of this `(target, index)` pair in the site (0 for the first).
        occurrence: u8,
    },
    /// A virtual-invoke site.
    VirtualInvoke {
        /// BCI of the invoke.
        bci: i32,
    },
    /// The method has a call-count entry (its count is counter 0).
    CallCount,
    /// A conditional site (present even if it has no successors).
    Conditional {
        /// BCI of the branch.
        bci: i32,
    },
}

const A_BITS: u32 = 18;
const B_BITS: u32 = 18;
const C_BITS: u32 = 16;

fn fits(v: i32, bits: u32) -> bool {
    let lim = 1i64 << (bits - 1);
    (-lim..lim).contains(&i64::from(v))
}

fn field(v: i32, bits: u32) -> u64 {
    (v as i64 as u64) & ((1u64 << bits) - 1)
}

fn signed(raw: u64, bits: u32) -> i32 {
    let shift = 64 - bits;
    (((raw << shift) as i64) >> shift) as i32
}

impl ShapeItem {
    /// The 64-bit value, or `None` if a field does not fit its bits (BCIs beyond ±131071,
    /// branch indices beyond ±32767).
    pub fn encode(self) -> Option<u64> {
        let pack = |tag: u64, a: i32, b: i32, c: i32, d: u8| -> Option<u64> {
            if !fits(a, A_BITS) || !fits(b, B_BITS) || !fits(c, C_BITS) {
                return None;
            }
            Some(
                (tag << 60)
                    | (field(a, A_BITS) << 42)
                    | (field(b, B_BITS) << 24)
                    | (field(c, C_BITS) << 8)
                    | u64::from(d),
            )
        };
        match self {
            ShapeItem::Successor {
                site,
                target,
                index,
                occurrence,
            } => pack(1, site, target, index, occurrence),
            ShapeItem::VirtualInvoke { bci } => pack(2, bci, 0, 0, 0),
            ShapeItem::CallCount => pack(3, 0, 0, 0, 0),
            ShapeItem::Conditional { bci } => pack(4, bci, 0, 0, 0),
        }
    }

    /// Reads a value back; `None` for a value no encoder writes.
    pub fn decode(v: u64) -> Option<ShapeItem> {
        let a = signed(v >> 42, A_BITS);
        let b = signed(v >> 24, B_BITS);
        let c = signed(v >> 8, C_BITS);
        let d = (v & 0xff) as u8;
        let item = match v >> 60 {
            1 => ShapeItem::Successor {
                site: a,
                target: b,
                index: c,
                occurrence: d,
            },
            2 => ShapeItem::VirtualInvoke { bci: a },
            3 => ShapeItem::CallCount,
            4 => ShapeItem::Conditional { bci: a },
            _ => return None,
        };
        // Unused fields must be zero: the encoding is one-to-one.
        (item.encode() == Some(v)).then_some(item)
    }
}

/// The structural hash of a record with these (sorted) shape values: the low 60 bits of the
/// MD5 of a domain tag and the values (little-endian), so that bit 60 (LLVM's
/// context-sensitive flag) and the bits above are clear.
pub fn structural_hash(sorted_values: &[u64]) -> u64 {
    let mut h = md5::Context::new();
    h.consume(b"pgo-merge iprof shape 1\0");
    for v in sorted_values {
        h.consume(v.to_le_bytes());
    }
    let d = h.finalize().0;
    let mut low = [0u8; 8];
    low.copy_from_slice(&d[..8]);
    u64::from_le_bytes(low) & ((1u64 << 60) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_and_bad_values_are_refused() {
        let items = [
            ShapeItem::Successor {
                site: 65535,
                target: -5,
                index: -1,
                occurrence: 3,
            },
            ShapeItem::Successor {
                site: -131072,
                target: 131071,
                index: 32767,
                occurrence: 255,
            },
            ShapeItem::VirtualInvoke { bci: 17 },
            ShapeItem::CallCount,
            ShapeItem::Conditional { bci: -2 },
        ];
        for it in items {
            let v = it.encode().unwrap();
            assert_eq!(ShapeItem::decode(v), Some(it), "{v:#x}");
        }
        assert_eq!(
            ShapeItem::VirtualInvoke { bci: 131072 }.encode(),
            None,
            "out of range"
        );
        assert_eq!(ShapeItem::decode(0), None);
        assert_eq!(ShapeItem::decode((3 << 60) | 1), None, "stray bits");
        assert_eq!(ShapeItem::decode(5 << 60), None);
        assert_eq!(structural_hash(&[1, 2]) >> 60, 0);
        assert_ne!(structural_hash(&[1, 2]), structural_hash(&[1, 3]));
    }
}
