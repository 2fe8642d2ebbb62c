//! Shards: the accumulated records of the functions whose name hash falls to one worker.
//!
//! Functions are sharded by name hash and each shard folds every input in input order, so a
//! function's result depends only on the ordered sequence of its own records: identical for
//! any number of shards. A shard keeps its records' counters in one arena, in the order the
//! records were first seen.

use super::record::{
    AccRecord, Dst, EventKind, MAX_COUNT, MergeHow, PSEUDO_HOT, PSEUDO_WARM, SrcRecord, SrcValues,
    merge_into,
};
use super::{Item, Weight};
use crate::codec::value_prof_data::FlatValues;
use crate::ir::{CounterLayout, Counters, FunctionKey, FunctionRecord, LayoutRecord, ValueCount};

/// A file's records as a layout describes them: the layout, the file's bytes and its value
/// blocks (numbered by the layout's records).
#[derive(Clone, Copy)]
pub(super) struct FileRecords<'f> {
    pub(super) layout: &'f CounterLayout,
    pub(super) bytes: &'f [u8],
    pub(super) values: &'f FlatValues,
}

/// Where a merged record came from: its input, its index there and its key (for events).
#[derive(Clone, Copy)]
struct At {
    input: u32,
    record: u32,
    key: FunctionKey,
}

/// A conflict or warning found while folding records, ordered by where it happened.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) input: u32,
    pub(super) record: u32,
    pub(super) key: FunctionKey,
    pub(super) what: EventKind,
}

pub(super) fn shard_of(name_hash: u64, n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        ((name_hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % n as u64) as usize
    }
}

/// The index hash of a key: the name hash is an MD5 already, so a rotation and an XOR with
/// the structural hash spread keys well.
fn key_hash(key: FunctionKey) -> u64 {
    key.name.rotate_left(29) ^ key.cfg
}

#[derive(Debug, Default)]
pub(super) struct Shard {
    /// Slots of `records`, found by key ([`key_hash`]). Four bytes a record, where a map
    /// from key to slot would take 24: with a million functions that is 40 MB less.
    /// Invariant: a shard holds fewer than 2^32 records.
    pub(super) index: hashbrown::HashTable<u32>,
    pub(super) records: Vec<AccRecord>,
    /// The counters of all records, each record's in one run, in the order the records were
    /// first seen: for later files of a binary the adds then walk this in step with the
    /// file's counters, instead of one allocation per function.
    pub(super) counters: Vec<u64>,
    pub(super) events: Vec<Event>,
    /// Scratch space for value-site merges.
    pub(super) scratch: [Vec<ValueCount>; 2],
}

impl Shard {
    /// The slot of a key, if the shard has seen it.
    pub(super) fn slot_of(&self, key: FunctionKey) -> Option<usize> {
        let records = &self.records;
        self.index
            .find(key_hash(key), |&i| {
                records.get(i as usize).is_some_and(|r| r.key == key)
            })
            .map(|&i| i as usize)
    }

    /// Adds a record whose key the shard has not seen.
    fn push(&mut self, rec: AccRecord) {
        let (slot, hash) = (self.records.len() as u32, key_hash(rec.key));
        self.records.push(rec);
        let records = &self.records;
        self.index.insert_unique(hash, slot, |&i| {
            records.get(i as usize).map_or(0, |r| key_hash(r.key))
        });
    }

    /// Makes room for `n` more records with `counters` counters in all before the first input
    /// is folded, so that the records, their counters and the index are allocated once at
    /// their size instead of growing by
    /// doubling (which briefly needs both the old and the new allocation).
    pub(super) fn reserve_new(&mut self, n: usize, counters: usize) {
        if self.records.is_empty() {
            self.records.reserve_exact(n);
            self.counters.reserve_exact(counters);
            let records = &self.records;
            self.index.reserve(n, |&i| {
                records.get(i as usize).map_or(0, |r| key_hash(r.key))
            });
        }
    }

    pub(super) fn add(
        &mut self,
        key: FunctionKey,
        rec: &FunctionRecord<'_>,
        w: Weight,
        input: u32,
        ri: u32,
        weight_all: bool,
    ) {
        let src = SrcRecord {
            counters: &rec.counters,
            bitmap: &rec.bitmap,
            values: SrcValues::Tree(rec.values.as_deref()),
        };
        self.add_src(key, &src, w, input, ri, weight_all);
    }

    /// [`Shard::add`] for any source record: merged into the key's slot, or a new record.
    fn add_src(
        &mut self,
        key: FunctionKey,
        src: &SrcRecord<'_, '_>,
        w: Weight,
        input: u32,
        ri: u32,
        weight_all: bool,
    ) {
        match self.slot_of(key) {
            None => {
                let mut overflow = false;
                let start = self.counters.len();
                self.counters.extend(src.counters.iter());
                let counters = (start, self.counters.len() - start);
                if w.scales_new_records() {
                    for c in &mut self.counters[start..] {
                        let (v, o) = w.scale(*c);
                        overflow |= o || v > MAX_COUNT;
                        *c = v.min(MAX_COUNT);
                    }
                }
                let mut values = src.values.to_profile();
                if let Some(v) = values.as_mut() {
                    for sites in &mut v.sites {
                        for site in sites.iter_mut() {
                            if w.scales_new_records() {
                                for vc in &mut site.values {
                                    let (s, o) = w.scale(vc.count);
                                    overflow |= o;
                                    vc.count = s;
                                }
                            }
                            site.sort_and_cap();
                        }
                    }
                }
                if overflow {
                    self.events.push(Event {
                        input,
                        record: ri,
                        key,
                        what: EventKind::Overflow,
                    });
                }
                self.push(AccRecord {
                    key,
                    first_seen: (input, ri),
                    counters,
                    bitmap: src.bitmap.to_vec(),
                    values,
                    values_by_value: 0,
                    values_repeated: 0,
                });
            }
            Some(slot) => {
                let at = At {
                    input,
                    record: ri,
                    key,
                };
                let how = MergeHow {
                    weight: w,
                    weight_all,
                };
                self.merge_slot(slot, src, at, how);
            }
        }
    }

    /// Folds the records of a file described by a layout of its own (an indexed profile)
    /// whose keys (after `key_of`) this shard owns (`mine`), in record order: each is merged
    /// into its key's slot or starts a new record, as [`Shard::add`] does for built records.
    pub(super) fn add_file(
        &mut self,
        file: FileRecords<'_>,
        item: &Item<'_>,
        weight_all: bool,
        mine: impl Fn(FunctionKey) -> Option<FunctionKey>,
    ) {
        for (ri, r) in file.layout.records.iter().enumerate() {
            let Some(key) = mine(r.key) else {
                continue;
            };
            let (Some(raw), Some(bitmap)) = (
                file.layout.counters(file.bytes, r),
                file.layout.bitmap(file.bytes, r),
            ) else {
                continue;
            };
            let counters = Counters::from(raw);
            let src = SrcRecord {
                counters: &counters,
                bitmap,
                values: SrcValues::Flat(file.values, r.values),
            };
            self.add_src(key, &src, item.weight, item.idx, ri as u32, weight_all);
        }
    }

    /// Merges the records of a raw file of a known layout that this shard owns (`mine`:
    /// record index and slot, in record order). Every key has its slot already, so this is
    /// [`Shard::add`]'s merge branch without a look-up.
    pub(super) fn add_layout(
        &mut self,
        file: FileRecords<'_>,
        mine: &[(u32, u32)],
        item: &Item<'_>,
        weight_all: bool,
    ) {
        let records: &[LayoutRecord] = &file.layout.records;
        let plain = item.weight.is_one();
        let how = MergeHow {
            weight: item.weight,
            weight_all,
        };
        for &(ri, slot) in mine {
            let Some(r) = records.get(ri as usize) else {
                continue;
            };
            let Some(raw) = file.layout.counters(file.bytes, r) else {
                continue;
            };
            if plain && self.add_plain(slot as usize, r, raw, (item.idx, ri)) {
                continue;
            }
            let at = At {
                input: item.idx,
                record: ri,
                key: r.key,
            };
            self.merge_described(slot as usize, r, raw, file, at, how);
        }
    }

    /// [`Shard::merge_slot`] for a record `r` of `file` whose counters are `raw`. Kept out of
    /// [`Shard::add_layout`]'s loop, whose common records take [`Shard::add_plain`]: the
    /// general merge's setup would otherwise crowd that loop's registers.
    #[inline(never)]
    fn merge_described(
        &mut self,
        slot: usize,
        r: &LayoutRecord,
        raw: crate::ir::CounterBytes<'_>,
        file: FileRecords<'_>,
        at: At,
        how: MergeHow,
    ) {
        let Some(bitmap) = file.layout.bitmap(file.bytes, r) else {
            return;
        };
        let counters = Counters::from(raw);
        let src = SrcRecord {
            counters: &counters,
            bitmap,
            values: SrcValues::Flat(file.values, r.values),
        };
        self.merge_slot(slot, &src, at, how);
    }

    /// [`Shard::merge_slot`] at weight 1 for the common record, if `r` is one: no value
    /// sites and no bitmap bytes on either side, the same number of counters, and no pseudo
    /// count. Then the merge is the counter adds alone (and an overflow event if they
    /// saturate), which is what `merge_into` does for such a record without its general
    /// checks. Returns false, having changed nothing, for any other record.
    #[inline(always)]
    fn add_plain(
        &mut self,
        slot: usize,
        r: &LayoutRecord,
        src: crate::ir::CounterBytes<'_>,
        (input, record): (u32, u32),
    ) -> bool {
        if r.values.is_some() || r.bitmap_len != 0 {
            return false;
        }
        let Some(dst) = self.records.get(slot) else {
            return false;
        };
        let (start, len) = dst.counters;
        if len != src.len() || dst.values.is_some() || !dst.bitmap.is_empty() {
            return false;
        }
        let Some(counters) = self.counters.get_mut(start..start + len) else {
            return false;
        };
        let pseudo = |c: u64| c == PSEUDO_HOT || c == PSEUDO_WARM;
        if counters.first().is_some_and(|&c| pseudo(c)) || src.first().is_some_and(pseudo) {
            return false;
        }
        if src.add_to(counters, Weight::ONE) {
            self.events.push(Event {
                input,
                record,
                key: r.key,
                what: EventKind::Overflow,
            });
        }
        true
    }

    // Always inlined: in `merge_described` the source's counters are then known to be bytes
    // in a file, and the general merge's tests of their variant fold away.
    #[inline(always)]
    fn merge_slot(&mut self, slot: usize, src: &SrcRecord<'_, '_>, at: At, how: MergeHow) {
        let Some(dst) = self.records.get_mut(slot) else {
            return;
        };
        let (start, len) = dst.counters;
        let Some(counters) = self.counters.get_mut(start..start + len) else {
            return;
        };
        let events = &mut self.events;
        merge_into(
            Dst { rec: dst, counters },
            src,
            how,
            &mut self.scratch,
            &mut |what| {
                events.push(Event {
                    input: at.input,
                    record: at.record,
                    key: at.key,
                    what,
                })
            },
        );
    }
}
