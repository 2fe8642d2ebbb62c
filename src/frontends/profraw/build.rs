//! From located records to IR: the profiles of a raw file, checked by the parser
//! ([`super::parse_profile_with`]), become one [`Profile`] — names from the cache, value
//! targets translated from run-time addresses to name hashes, temporal traces from the
//! records' timestamps, and the warnings the header's fields call for.
//!
//! The translation of value targets ([`FunctionAddrs`], [`VTableAddrs`]) and the
//! implausible-counter test ([`first_implausible`]) are shared with the layout cache in front
//! of the reader ([`super::layout`]), so both give the same values and reject the same files.

use std::borrow::Cow;
use std::sync::Arc;

use super::layout::address_key;
use super::{
    Located, MAX_PLAUSIBLE_COUNTER, NameCache, Parsed, RawHeader, RawRead, SuspiciousCounter,
    VTable,
};
use crate::error::{Result, Warning};
use crate::ir::symbols::HashKeyed;
use crate::ir::{
    CounterBytes, Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance,
    SymbolTable, TemporalProfile, TemporalTrace, ValueKind, ValueProfile,
};

/// The first counter of `c` above [`MAX_PLAUSIBLE_COUNTER`], as (index, value).
pub(super) fn first_implausible(c: CounterBytes<'_>) -> Option<(usize, u64)> {
    // An OR of all counters is below 2^56 when every counter is; only then is it worth
    // looking at the counters one by one.
    if c.or_all() <= MAX_PLAUSIBLE_COUNTER {
        return None;
    }
    c.iter()
        .enumerate()
        .find(|&(_, v)| v > MAX_PLAUSIBLE_COUNTER)
}

/// What the profiles of a file add up to, profile by profile, in file order.
#[derive(Default)]
struct Built<'a> {
    kind: ProfileKind,
    headers: Vec<RawHeader>,
    records: Vec<FunctionRecord<'a>>,
    binary_ids: Vec<Vec<u8>>,
    /// (timestamp, name hash) of the records of a temporal profile.
    timestamps: Vec<(u64, u64)>,
    suspicious: Option<SuspiciousCounter>,
    uncorrelated: u64,
    tables: Vec<Arc<SymbolTable>>,
    vtable_tables: Vec<Arc<SymbolTable>>,
    warnings: Vec<Warning>,
}

/// Turns the parsed profiles of a file into one profile (see the module docs).
pub(super) fn build<'a>(
    parsed: Vec<Parsed<'a>>,
    cache: &NameCache,
    warnings: Vec<Warning>,
) -> Result<RawRead<'a>> {
    let mut b = Built {
        warnings,
        headers: Vec::with_capacity(parsed.len()),
        ..Built::default()
    };
    for p in parsed {
        b.check_header(&p.header);
        b.add_profile(p, cache)?;
    }
    Ok(b.finish())
}

impl<'a> Built<'a> {
    /// The profile kind and the warnings a header calls for.
    fn check_header(&mut self, h: &RawHeader) {
        let (k, unknown) = ProfileKind::from_version_word(h.version_word);
        if unknown != 0 {
            self.warnings.push(Warning::at(
                h.start,
                format!("unknown flag bits {unknown:#018x} in the version word are ignored"),
            ));
        }
        let level = |k: ProfileKind| if k.is_ir() { "IR-level" } else { "front-end" };
        if !self.kind.is_ir() && !self.kind.contains(ProfileKind::FRONTEND) {
            self.kind = k;
        } else {
            if self.kind.is_ir() != k.is_ir() {
                self.warnings.push(Warning::at(
                    h.start,
                    format!(
                        "this profile is {} but an earlier profile in the same file is {}",
                        level(k),
                        level(self.kind),
                    ),
                ));
            }
            self.kind.insert(k);
        }
        if h.value_kind_last != h.value_kind_slots() as u64 - 1 {
            self.warnings.push(Warning::at(
                h.start,
                format!(
                    "ValueKindLast is {} but raw version {} has {} value kinds; using {}",
                    h.value_kind_last,
                    h.version,
                    h.value_kind_slots(),
                    h.value_kind_slots()
                ),
            ));
        }
        if h.num_uniform_counters > 0 {
            self.warnings.push(Warning::at(
                h.start,
                format!(
                    "{} uniform counters (GPU offload profiling, raw v11) are not carried to the \
                     output",
                    h.num_uniform_counters
                ),
            ));
        }
        if h.num_data == 0 && h.names_size == 0 && h.num_counters > 0 {
            self.uncorrelated += h.num_counters;
        }
    }

    /// Adds the records, names and binary IDs of one profile.
    fn add_profile(&mut self, p: Parsed<'a>, cache: &NameCache) -> Result<()> {
        self.binary_ids
            .extend(p.binary_ids.iter().map(|b| b.to_vec()));
        let decoded = cache.get_or_decode(p.names.0, p.names.1)?;
        let (names, order) = (decoded.table, decoded.order);
        let vnames = if p.vnames.0.is_empty() {
            Arc::new(SymbolTable::new())
        } else {
            cache.get_or_decode(p.vnames.0, p.vnames.1)?.table
        };
        // Functions by address only if a target is to be translated (a million records are
        // a million inserts).
        let targets = Targets {
            functions: p
                .records
                .iter()
                .any(has_indirect_targets)
                .then(|| FunctionAddrs::new(&p.records)),
            vtables: VTableAddrs::new(&p.vtables),
        };
        let byte_coverage = p.header.counter_entry_size() == 1;
        let endian = p.header.encoding.endian;
        let mut in_order = NameOrder::new(&order);
        for l in p.records {
            if !in_order.has(l.rec.name_ref) && !names.contains(l.rec.name_ref) {
                self.warnings.push(Warning::at(
                    l.rec.offset,
                    format!(
                        "data record with name hash {:#018x}, which is not in the names section; \
                         the record is dropped",
                        l.rec.name_ref
                    ),
                ));
                continue;
            }
            let counters = if byte_coverage {
                Counters::Coverage(l.counters)
            } else {
                let c = CounterBytes::new(l.counters, endian);
                if self.suspicious.is_none()
                    && let Some((j, value)) = first_implausible(c)
                {
                    self.suspicious = Some(SuspiciousCounter {
                        value,
                        offset: l.counters_offset + 8 * j as u64,
                    });
                }
                Counters::from(c)
            };
            self.add_record(l, counters, &targets);
        }
        self.tables.push(names);
        self.vtable_tables.push(vnames);
        self.headers.push(p.header);
        Ok(())
    }

    /// Adds one named record with its `counters`, its value targets translated.
    fn add_record(&mut self, l: Located<'a>, counters: Counters<'a>, targets: &Targets) {
        if let Some(ts) = l.timestamp
            && ts != 0
            && ts != u64::MAX
        {
            self.timestamps.push((ts, l.rec.name_ref));
        }
        let values = l.values.map(|mut v| {
            targets.translate(&mut v);
            Box::new(v)
        });
        self.records.push(FunctionRecord {
            key: FunctionKey {
                name: l.rec.name_ref,
                cfg: l.rec.func_hash,
            },
            counters,
            bitmap: Cow::Borrowed(l.bitmap),
            values,
        });
    }

    fn finish(self) -> RawRead<'a> {
        let mut temporal = TemporalProfile::default();
        let mut timestamps = self.timestamps;
        if !timestamps.is_empty() {
            timestamps.sort_unstable();
            temporal.traces.push(TemporalTrace {
                weight: 1,
                functions: timestamps.into_iter().map(|(_, n)| n).collect(),
            });
            temporal.stream_size = 1;
        }
        let format = match self.headers.first() {
            Some(h) => format!("raw profile v{} ({})", h.version, h.encoding.describe()),
            None => "raw profile".into(),
        };
        RawRead {
            profile: Profile {
                kind: self.kind,
                records: self.records,
                names: merge_tables(self.tables),
                vtable_names: merge_tables(self.vtable_tables),
                binary_ids: self.binary_ids,
                temporal,
                uncorrelated_counters: self.uncorrelated,
                stored_summaries: None,
                layout: None,
                provenance: Provenance { path: None, format },
            },
            headers: self.headers,
            warnings: self.warnings,
            suspicious_counter: self.suspicious,
        }
    }
}

/// True if a located record has an indirect-call target to translate.
fn has_indirect_targets(l: &Located<'_>) -> bool {
    l.values.as_ref().is_some_and(|v| {
        v.kind(ValueKind::IndirectCall)
            .iter()
            .any(|s| !s.values.is_empty())
    })
}

/// How one profile's value targets are translated from run-time addresses.
struct Targets {
    /// None when no record has an indirect-call target.
    functions: Option<FunctionAddrs>,
    vtables: VTableAddrs,
}

impl Targets {
    /// Indirect-call targets to function name hashes, vtable addresses to vtable name
    /// hashes (0 where none is known), as `llvm-profdata` does.
    fn translate(&self, v: &mut ValueProfile) {
        if let Some(addrs) = &self.functions {
            for site in v.kind_mut(ValueKind::IndirectCall) {
                for vc in &mut site.values {
                    vc.value = addrs.function_at(vc.value);
                }
            }
        }
        for site in v.kind_mut(ValueKind::VTable) {
            for vc in &mut site.values {
                vc.value = self.vtables.vtable_at(vc.value);
            }
        }
    }
}

/// The vtables of one profile by address range, for translating vtable addresses.
#[derive(Debug, Default)]
pub(super) struct VTableAddrs {
    /// Vtables with a non-null start, by start address.
    sorted: Vec<VTable>,
}

impl VTableAddrs {
    fn new(vtables: &[VTable]) -> Self {
        let mut sorted: Vec<VTable> = vtables.iter().copied().filter(|v| v.start != 0).collect();
        sorted.sort_by_key(|v| v.start);
        VTableAddrs { sorted }
    }

    /// The name hash of the vtable whose `[start, start + size]` contains `addr`, 0 if none.
    pub(super) fn vtable_at(&self, addr: u64) -> u64 {
        let i = self.sorted.partition_point(|t| t.start <= addr);
        match i.checked_sub(1).and_then(|j| self.sorted.get(j)) {
            Some(t) if addr <= t.start.saturating_add(t.size) => t.name_hash,
            _ => 0,
        }
    }
}

/// A walk along the hashes of a names section in its order, beside the data records: a
/// record whose name is the next one (or a few further: a function whose record the linker
/// dropped still has its name) is known to be named without a probe into the names table,
/// a random memory access per record with a million functions.
struct NameOrder<'o> {
    order: &'o [u64],
    /// The position after the last name matched.
    next: usize,
}

impl<'o> NameOrder<'o> {
    /// Names looked at beyond the expected one.
    const REACH: usize = 8;

    fn new(order: &'o [u64]) -> Self {
        NameOrder { order, next: 0 }
    }

    /// True if `hash` is among the next few names (then the walk moves past it); false says
    /// nothing.
    fn has(&mut self, hash: u64) -> bool {
        let ahead = self.order.get(self.next..).unwrap_or(&[]);
        match ahead.iter().take(Self::REACH).position(|&h| h == hash) {
            Some(k) => {
                self.next += k + 1;
                true
            }
            None => false,
        }
    }
}

/// The functions of one profile by run-time address (`FunctionPointer`), for translating
/// indirect-call targets to name hashes.
///
/// A hash map, not a sorted list: with a million functions a binary search is some twenty
/// dependent cache misses per target, a probe here about one.
#[derive(Debug)]
pub(super) struct FunctionAddrs {
    /// `address_key` of an address → name hash of the first record (in record order) at
    /// that address.
    by_key: HashKeyed<u64>,
}

impl FunctionAddrs {
    fn new(records: &[Located<'_>]) -> Self {
        let pairs = records.iter().map(|l| (l.rec.function_ptr, l.rec.name_ref));
        Self::from_pairs(pairs, records.len())
    }

    /// The map of (`FunctionPointer`, name hash) pairs in record order (`n` of them, about).
    pub(super) fn from_pairs(pairs: impl Iterator<Item = (u64, u64)>, n: usize) -> Self {
        let mut by_key = HashKeyed::default();
        by_key.reserve(n);
        for (addr, name) in pairs {
            if addr != 0 {
                by_key.entry(address_key(addr)).or_insert(name);
            }
        }
        FunctionAddrs { by_key }
    }

    /// The name hash of the function at run-time address `addr`, 0 if none. Several
    /// functions at one address (identical code folding) give the first in record order.
    pub(super) fn function_at(&self, addr: u64) -> u64 {
        if addr == 0 {
            return 0;
        }
        self.by_key.get(&address_key(addr)).copied().unwrap_or(0)
    }
}

fn merge_tables(mut tables: Vec<Arc<SymbolTable>>) -> Arc<SymbolTable> {
    tables.dedup_by(|a, b| Arc::ptr_eq(a, b));
    match tables.len() {
        0 => Arc::new(SymbolTable::new()),
        1 => tables.pop().unwrap_or_default(),
        _ => {
            let mut t = SymbolTable::new();
            for x in &tables {
                t.extend_from(x);
            }
            Arc::new(t)
        }
    }
}
