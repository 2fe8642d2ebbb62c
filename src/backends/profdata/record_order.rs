//! The order in which LLVM writes the records that share one name.
//!
//! `InstrProfWriter` keeps a name's records in a `SmallDenseMap<u64 FuncHash, Record>` with 4
//! inline buckets and writes them in bucket order. Reproducing that order makes our files
//! byte-identical to LLVM's when a name has several records (CS and non-CS variants, or two
//! binaries' versions of a function).

/// Which `DenseMapInfo<uint64_t>` hash to emulate.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenseMapHash {
    /// LLVM 17 and later: `x · 0xbf58476d1ce4e5b9`, then `x ^ (x >> 31)`, low 32 bits.
    Mix,
    /// LLVM 16 and earlier: low 32 bits of `x · 37`.
    Times37,
}

impl DenseMapHash {
    fn hash(self, x: u64) -> u32 {
        match self {
            DenseMapHash::Mix => {
                let x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
                (x ^ (x >> 31)) as u32
            }
            DenseMapHash::Times37 => x.wrapping_mul(37) as u32,
        }
    }
}

fn place(slots: &mut [Option<usize>], keys: &[u64], item: usize, h: DenseMapHash) {
    let mask = slots.len() - 1;
    let mut b = h.hash(keys[item]) as usize & mask;
    let mut probe = 1;
    while slots[b].is_some() {
        b = (b + probe) & mask;
        probe += 1;
    }
    slots[b] = Some(item);
}

/// Given the structural hashes of one name's records in the order they were first added
/// (distinct values), returns the indices in the order LLVM writes them.
pub fn order(keys: &[u64], h: DenseMapHash) -> Vec<usize> {
    if keys.len() <= 1 {
        return (0..keys.len()).collect();
    }
    let mut slots: Vec<Option<usize>> = vec![None; 4];
    for i in 0..keys.len() {
        if (i + 1) * 4 >= slots.len() * 3 {
            let new_len = if slots.len() == 4 {
                64
            } else {
                slots.len() * 2
            };
            let old = std::mem::replace(&mut slots, vec![None; new_len]);
            for item in old.into_iter().flatten() {
                place(&mut slots, keys, item, h);
            }
        }
        place(&mut slots, keys, i, h);
    }
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_maps() {
        assert_eq!(order(&[5], DenseMapHash::Mix), vec![0]);
        // Two keys: order by slot; a collision keeps the first in its home slot.
        let a = 0x0a4d0ad3efffffffu64;
        let b = a | (1 << 60);
        let o = order(&[a, b], DenseMapHash::Mix);
        let sa = DenseMapHash::Mix.hash(a) & 3;
        let sb = DenseMapHash::Mix.hash(b) & 3;
        if sa < sb {
            assert_eq!(o, vec![0, 1]);
        } else if sb < sa {
            assert_eq!(o, vec![1, 0]);
        }
        // Growth to 64 slots at the third key keeps every key exactly once.
        let keys: Vec<u64> = (1..=9).map(|i| i * 0x1234_5678_9abc).collect();
        let mut o = order(&keys, DenseMapHash::Mix);
        o.sort();
        assert_eq!(o, (0..9).collect::<Vec<_>>());
    }
}
