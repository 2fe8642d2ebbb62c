//! The iteration order of LLVM 16 and earlier's `StringMap`, in which their `InstrProfWriter`
//! hands names to the on-disk table generator.
//!
//! `StringMapImpl` (LLVM ≤ 16): an open-addressing table of `NumBuckets` (a power of two;
//! 16 at the first insert) slots. A name's full hash is `djbHash(name, 0)` (`h = h·33 + byte`
//! over the bytes, 32-bit, starting from 0); it probes from `hash & (NumBuckets − 1)` with
//! steps 1, 2, 3, … (quadratic). After an insert, if `NumItems·4 > NumBuckets·3` the table
//! doubles, re-placing the items in old slot order with the same probing (by their stored
//! hash). Names are never erased by the writer, so there are no tombstones, and the other
//! rehash condition (fewer than 1/8 of the slots empty) cannot hold before the 3/4 one does.
//! Iteration walks the slots in index order.

/// An empty slot.
const EMPTY: u32 = u32::MAX;

/// `djbHash(name, 0)`: LLVM's `StringMap` hash before LLVM 17.
pub fn djb_hash(name: &[u8]) -> u32 {
    name.iter()
        .fold(0u32, |h, &b| h.wrapping_mul(33).wrapping_add(u32::from(b)))
}

/// Places `item` (with full hash `h`) into the first free slot of its probe sequence.
fn place(slots: &mut [u32], h: u32, item: u32) {
    let mask = slots.len() - 1;
    let mut b = h as usize & mask;
    let mut probe = 1;
    while slots[b] != EMPTY {
        b = (b + probe) & mask;
        probe += 1;
    }
    slots[b] = item;
}

/// Given distinct names in the order they were first inserted, returns their indices in the
/// map's iteration order. Invariant: fewer than 2^32 − 1 names.
pub fn iteration_order<'n>(names: impl ExactSizeIterator<Item = &'n [u8]>) -> Vec<usize> {
    let hashes: Vec<u32> = names.map(djb_hash).collect();
    let mut slots = vec![EMPTY; 16];
    for (i, &h) in hashes.iter().enumerate() {
        place(&mut slots, h, i as u32);
        let items = i + 1;
        if items * 4 > slots.len() * 3 {
            let grown = vec![EMPTY; slots.len() * 2];
            let old = std::mem::replace(&mut slots, grown);
            for item in old.into_iter().filter(|&s| s != EMPTY) {
                place(&mut slots, hashes[item as usize], item);
            }
        }
    }
    slots
        .into_iter()
        .filter(|&s| s != EMPTY)
        .map(|s| s as usize)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn djb() {
        assert_eq!(djb_hash(b""), 0);
        assert_eq!(djb_hash(b"a"), 97);
        assert_eq!(djb_hash(b"ab"), 97 * 33 + 98);
    }

    #[test]
    fn order_is_slot_order_and_keeps_every_name() {
        // "b" (98 & 15 = 2) and "q" (113 & 15 = 1) land in their home slots; "a" (97 & 15 =
        // 1) probes slot 2, taken, then slot 4.
        let names: Vec<&[u8]> = vec![b"b", b"q", b"a"];
        assert_eq!(iteration_order(names.into_iter()), vec![1, 0, 2]);
        let many: Vec<Vec<u8>> = (0..1000).map(|i| format!("f{i}").into_bytes()).collect();
        let mut o = iteration_order(many.iter().map(|n| n.as_slice()));
        o.sort_unstable();
        assert_eq!(o, (0..1000).collect::<Vec<_>>());
    }
}
