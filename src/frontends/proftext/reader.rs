//! The one reader of LLVM's text profile format: one grammar, read at close to the speed of
//! scanning the bytes.
//!
//! Lines are found with `memchr` and never copied; numbers are parsed from their bytes; all
//! counters and bitmaps of a file go into one buffer and all value sites into one
//! [`FlatValues`] (no allocation per record): a [`TextScan`], whose records a merge folds
//! as they lie and [`super::read`] builds into IR records ([`TextScan::records`]). Names are
//! hashed through a [`TextNameCache`] shared by a merge's inputs (module `cache`).
//!
//! Errors name the line (1-based), counted only when an error is made.

use std::collections::HashSet;
use std::sync::Arc;

use super::cache::{Buffers, Hasher, TextNameCache, table_of};
use super::lines::{Lines, decimal, text};
use super::{EXTERNAL_SYMBOL, parse_auto_radix, raw_hash};
use crate::bytes::Endian;
use crate::codec::value_prof_data::FlatValues;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::fx::FxBuildHasher;
use crate::ir::name_hash::md5_hash;
use crate::ir::{
    CounterLayout, Counters, FunctionKey, FunctionRecord, LayoutRecord, Profile, ProfileKind,
    Provenance, SymbolTable, TemporalProfile, TemporalTrace, ValueCount, ValueKind, ValueProfile,
    ValueSite,
};

/// A text profile described for a merge (see [`scan`]): no records are built. Its counters
/// (8-byte little-endian words) and MC/DC bitmaps are in [`TextScan::bytes`], where
/// [`TextScan::layout`] places them, its value sites in one [`FlatValues`]: no allocation per
/// record.
#[derive(Debug)]
pub struct TextScan {
    /// The profile without its records (kind and names).
    pub profile: Profile<'static>,
    /// The records, in file order, placed in [`TextScan::bytes`].
    pub layout: CounterLayout,
    /// The records' counters and bitmaps.
    pub bytes: Vec<u8>,
    /// The records' value sites, numbered by [`LayoutRecord::values`].
    pub values: FlatValues,
}

impl TextScan {
    /// The records the layout describes, built: the views → IR step of [`super::read`].
    pub fn records(&self) -> Vec<FunctionRecord<'static>> {
        self.layout
            .records
            .iter()
            .map(|r| FunctionRecord {
                key: r.key,
                counters: Counters::Owned(
                    self.bytes[r.counters..r.counters + 8 * r.num_counters]
                        .chunks_exact(8)
                        .map(|c| {
                            let mut a = [0u8; 8];
                            a.copy_from_slice(c);
                            u64::from_le_bytes(a)
                        })
                        .collect(),
                ),
                bitmap: self.bytes[r.bitmap..r.bitmap + r.bitmap_len]
                    .to_vec()
                    .into(),
                values: r.values.and_then(|b| {
                    let mut v = ValueProfile::default();
                    for kind in ValueKind::ALL {
                        *v.kind_mut(kind) = (0..self.values.num_sites(b, kind))
                            .map(|i| ValueSite {
                                values: self.values.site(b, kind, i).to_vec(),
                            })
                            .collect();
                    }
                    (!v.is_empty()).then(|| Box::new(v))
                }),
            })
            .collect()
    }
}

/// Describes a text profile: its records as they lie in one counter buffer and one store of
/// value sites, its names hashed through `cache`. Errors name the line.
pub fn scan(data: &[u8], cache: &TextNameCache) -> Result<TextScan> {
    std::str::from_utf8(data).map_err(|e| {
        Error::at(
            e.valid_up_to() as u64,
            ErrorKind::Malformed {
                what: "text profile",
                detail: "not valid UTF-8".into(),
            },
        )
    })?;
    let mut s = Scan::new(data, cache);
    let (kind, temporal) = s.header()?;
    while s.record()? {}
    Ok(s.finish(kind, temporal))
}

/// One scan in progress: the lines still to read and what the records so far hold. Its
/// per-record steps are inlined into one loop, as a single function kept the scanner's
/// position in a register (calls between them cost about a tenth of the time).
struct Scan<'a, 'c> {
    lines: Lines<'a>,
    hasher: Hasher<'a, 'c>,
    cache: &'c TextNameCache,
    /// Counters (8-byte little-endian words) and bitmaps of the records so far.
    bytes: Vec<u8>,
    records: Vec<LayoutRecord>,
    values: FlatValues,
    /// Per record: its name's hash and its name.
    record_names: Vec<(u64, &'a [u8])>,
    /// The other names of the function-name table (value targets, temporal traces).
    targets: Vec<(u64, &'a [u8])>,
    /// The names of the vtable-name table.
    vtable_targets: Vec<(u64, &'a [u8])>,
    /// The hashes of the function-name table so far, for the rare values written as raw
    /// hashes (built at the first one).
    named: NamedSoFar,
}

/// The hashes of `record_names` and `targets` up to the given lengths.
#[derive(Default)]
struct NamedSoFar {
    set: HashSet<u64, FxBuildHasher>,
    records: usize,
    targets: usize,
}

impl<'a, 'c> Scan<'a, 'c> {
    fn new(data: &'a [u8], cache: &'c TextNameCache) -> Self {
        let Buffers {
            mut bytes,
            records,
            values,
        } = cache.buffers();
        // Room for one counter per 4 bytes of text, more than real profiles hold: growing
        // would copy it. Asked for, not needed (pages never written are never touched).
        let _ = bytes.try_reserve(data.len().saturating_mul(2));
        Scan {
            lines: Lines::new(data),
            hasher: Hasher::new(cache),
            cache,
            bytes,
            records,
            values,
            record_names: Vec::new(),
            targets: Vec::new(),
            vtable_targets: Vec::new(),
            named: NamedSoFar::default(),
        }
    }

    /// The header lines (`:ir`, `:fe`, …, `:temporal_prof_traces` and its traces) and the
    /// kind they make.
    fn header(&mut self) -> Result<(ProfileKind, TemporalProfile)> {
        let mut kind = ProfileKind::empty();
        let mut temporal = TemporalProfile::default();
        while let Some(l) = self.lines.peek() {
            let Some(word) = l.strip_prefix(b":") else {
                break;
            };
            let (at, _) = self.lines.line("header")?;
            match text(word).to_ascii_lowercase().as_str() {
                "ir" => kind.insert(ProfileKind::IR),
                "fe" => kind.insert(ProfileKind::FRONTEND),
                "csir" => kind.insert(ProfileKind::IR.union(ProfileKind::CONTEXT_SENSITIVE)),
                "entry_first" => kind.insert(ProfileKind::ENTRY_FIRST),
                "not_entry_first" => kind.remove(ProfileKind::ENTRY_FIRST),
                "single_byte_coverage" => kind.insert(ProfileKind::BYTE_COVERAGE),
                "instrument_loop_entries" => kind.insert(ProfileKind::LOOP_ENTRIES),
                "temporal_prof_traces" => {
                    kind.insert(ProfileKind::TEMPORAL);
                    self.traces(&mut temporal)?;
                }
                other => {
                    return Err(self.lines.bad(
                        at,
                        "header line",
                        format!(
                            ":{other} is not a known header (ir, fe, csir, entry_first, \
                             not_entry_first, single_byte_coverage, instrument_loop_entries, \
                             temporal_prof_traces)"
                        ),
                    ));
                }
            }
        }
        if kind.contains(ProfileKind::IR) {
            kind.remove(ProfileKind::FRONTEND);
        } else {
            kind.insert(ProfileKind::FRONTEND);
        }
        Ok((kind, temporal))
    }

    /// The temporal traces after `:temporal_prof_traces`: their number, the stream size,
    /// then per trace its weight and a line of comma-separated function names.
    fn traces(&mut self, temporal: &mut TemporalProfile) -> Result<()> {
        let not_a_number = |s: &str| format!("{s:?} is not a number");
        let count = self
            .lines
            .auto_radix("number of temporal traces", not_a_number)?;
        temporal.stream_size = self
            .lines
            .auto_radix("temporal trace stream size", not_a_number)?;
        for _ in 0..count {
            let weight = self
                .lines
                .auto_radix("temporal trace weight", not_a_number)?;
            let (_, l) = self.lines.line("temporal trace functions")?;
            let mut functions = Vec::new();
            for f in text(l).split(',').map(str::trim).filter(|f| !f.is_empty()) {
                let h = self.hasher.hash(f.as_bytes());
                self.targets.push((h, f.as_bytes()));
                functions.push(h);
            }
            temporal.traces.push(TemporalTrace { weight, functions });
        }
        Ok(())
    }

    /// Reads the next record; false at the end of the file.
    #[inline(always)]
    fn record(&mut self) -> Result<bool> {
        let i = self.record_names.len();
        let lines = &mut self.lines;
        let (name, name_hash) = match self
            .hasher
            .expected(i)
            .and_then(|(n, h)| Some((lines.next_if(n)?, h)))
        {
            Some(known) => known,
            None => {
                let Some(name) = lines.next() else {
                    return Ok(false);
                };
                (name, self.hasher.record_name(i, name))
            }
        };
        self.record_names.push((name_hash, name));
        let cfg = self
            .lines
            .auto_radix("function hash", |s| format!("{s:?} is not a valid integer"))?;
        let (at, n) = self.lines.number_at("number of counters")?;
        if n == 0 {
            return Err(self.lines.bad(at, "number of counters", "is zero".into()));
        }
        let counters = self.counters(n)?;
        let (bitmap, bitmap_len) = self.bitmap()?;
        let values = self.values()?;
        self.records.push(LayoutRecord {
            key: FunctionKey {
                name: name_hash,
                cfg,
            },
            counters,
            num_counters: n as usize,
            bitmap,
            bitmap_len,
            values,
        });
        Ok(true)
    }

    /// Reads `n` counters into the buffer; returns where they start.
    #[inline(always)]
    fn counters(&mut self, n: u64) -> Result<usize> {
        let at = self.bytes.len();
        let words = usize::try_from(n).unwrap_or(usize::MAX);
        // Every counter takes a line of two bytes at least (but the last of the file): room
        // is made at once only for as many as the rest of the file can hold.
        if words <= self.lines.remaining() / 2 + 1 {
            crate::sys::alloc::reserve(
                &mut self.bytes,
                8 * words,
                "the counters of a text profile",
            )?;
            self.bytes.resize(at + 8 * words, 0);
            self.lines.decimals_into(&mut self.bytes[at..], "counter")?;
        } else {
            // More counters than lines: the file ends (or a line is not one) before the
            // last, and that is the error.
            for _ in 0..n {
                let v = self.lines.number("counter")?;
                self.bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        Ok(at)
    }

    /// Reads the MC/DC bitmap (`$N` and N bytes), if the next line starts with `$`;
    /// returns where its bytes start and their number.
    #[inline(always)]
    fn bitmap(&mut self) -> Result<(usize, usize)> {
        let at = self.bytes.len();
        let Some(count) = self.lines.peek().and_then(|l| l.strip_prefix(b"$")) else {
            return Ok((at, 0));
        };
        let (line, _) = self.lines.line("number of bitmap bytes")?;
        let count = text(count);
        let nb = parse_auto_radix(count.trim()).ok_or_else(|| {
            self.lines.bad(
                line,
                "number of bitmap bytes",
                format!("{count:?} is not a valid integer"),
            )
        })?;
        for _ in 0..nb {
            let (line, s) = self.lines.line("bitmap byte")?;
            let s = text(s);
            let b = parse_auto_radix(s)
                .and_then(|v| u8::try_from(v).ok())
                .ok_or_else(|| {
                    self.lines
                        .bad(line, "bitmap byte", format!("{s:?} is not a byte value"))
                })?;
            self.bytes.push(b);
        }
        Ok((at, self.bytes.len() - at))
    }

    /// Reads the record's value data, if the next line is a decimal number (otherwise it
    /// is the next record's name), into [`Scan::values`]: the record's block, `None` if it
    /// has no site.
    fn values(&mut self) -> Result<Option<u32>> {
        let Some(nkinds) = self.lines.peek().and_then(decimal) else {
            return Ok(None);
        };
        let (at, _) = self.lines.line("number of value kinds")?;
        if nkinds == 0 || nkinds > ValueKind::COUNT as u64 {
            return Err(self.lines.bad(
                at,
                "number of value kinds",
                format!("{nkinds} is not 1, 2 or 3"),
            ));
        }
        // Per kind: (first site, number of sites); a kind listed again with sites replaces
        // its sites.
        let mut kinds = [(0u32, 0u32); ValueKind::COUNT];
        for _ in 0..nkinds {
            let (at, k) = self.lines.number_at("value kind")?;
            let kind = u32::try_from(k)
                .ok()
                .and_then(ValueKind::from_u32)
                .ok_or_else(|| {
                    self.lines
                        .bad(at, "value kind", format!("{k} is not 0, 1 or 2"))
                })?;
            let nsites = self.lines.number("number of value sites")?;
            let mut first = None;
            for _ in 0..nsites {
                let nvalues = self.lines.number("number of values at a site")?;
                for _ in 0..nvalues {
                    let v = self.value(kind)?;
                    if !self.values.push_value(v) {
                        return Err(too_many("values of a text profile"));
                    }
                }
                let site = self.values.push_site();
                first.get_or_insert(site.ok_or_else(|| too_many("value sites of a text profile"))?);
            }
            if let Some(first) = first {
                let n =
                    u32::try_from(nsites).map_err(|_| too_many("value sites of a text profile"))?;
                kinds[kind.index()] = (first, n);
            }
        }
        if kinds.iter().all(|&(_, n)| n == 0) {
            return Ok(None);
        }
        self.values
            .push_block(kinds)
            .map(Some)
            .ok_or_else(|| too_many("value blocks of a text profile"))
    }

    /// One `VALUE:COUNT` line of a site of `kind`. Targets of indirect calls and vtables
    /// are names (hashed; `** External Symbol **` is 0), or `0x` and 16 hex digits, read as
    /// the hash itself unless a function of that name was met before.
    fn value(&mut self, kind: ValueKind) -> Result<ValueCount> {
        let (at, s) = self.lines.line("value")?;
        let Some(colon) = memchr::memrchr(b':', s) else {
            let s = text(s);
            return Err(self
                .lines
                .bad(at, "value", format!("{s:?} is not VALUE:COUNT")));
        };
        let (val, count) = (&s[..colon], &s[colon + 1..]);
        let number = |s: &[u8], what| {
            decimal(s).ok_or_else(|| {
                self.lines
                    .bad(at, what, format!("{:?} is not a decimal number", text(s)))
            })
        };
        let count = number(count, "value count")?;
        let value = match kind {
            ValueKind::MemOpSize => number(val, "value")?,
            _ if val == EXTERNAL_SYMBOL.as_bytes() => 0,
            // llvm-profdata refuses these too ("symbol name is empty").
            _ if val.is_empty() => {
                return Err(self
                    .lines
                    .bad(at, "value", "the symbol name is empty".into()));
            }
            // Only `0x` and 16 hex digits may be a raw hash: other names are not decoded.
            _ => match (val.len() == 18).then(|| raw_hash(text(val))).flatten() {
                Some(h) if !self.named(md5_hash(val)) => h,
                _ => {
                    let h = self.hasher.hash(val);
                    match kind {
                        ValueKind::VTable => self.vtable_targets.push((h, val)),
                        _ => self.targets.push((h, val)),
                    }
                    h
                }
            },
        };
        Ok(ValueCount { value, count })
    }

    /// True if the function-name table so far has a name of hash `h`.
    #[cold]
    fn named(&mut self, h: u64) -> bool {
        let n = &mut self.named;
        n.set
            .extend(self.record_names[n.records..].iter().map(|&(h, _)| h));
        n.set
            .extend(self.targets[n.targets..].iter().map(|&(h, _)| h));
        n.records = self.record_names.len();
        n.targets = self.targets.len();
        n.set.contains(&h)
    }

    /// The scan of the file whose header gave `kind` and `temporal`, its names published
    /// to the cache.
    fn finish(self, kind: ProfileKind, temporal: TemporalProfile) -> TextScan {
        let cache = self.cache;
        self.hasher.publish(&self.record_names);
        let names = table_of(cache, &self.record_names, &self.targets);
        let vtable_names = if self.vtable_targets.is_empty() {
            Arc::clone(&cache.empty)
        } else {
            let mut t = SymbolTable::new();
            for &(h, n) in &self.vtable_targets {
                t.insert_hashed(h, Arc::from(n));
            }
            Arc::new(t)
        };
        TextScan {
            profile: Profile {
                kind,
                records: Vec::new(),
                names,
                vtable_names,
                binary_ids: Vec::new(),
                temporal,
                uncorrelated_counters: 0,
                stored_summaries: None,
                layout: None,
                provenance: Provenance {
                    path: None,
                    format: "text profile".into(),
                },
            },
            layout: CounterLayout {
                kind,
                endian: Endian::Little,
                records: self.records,
            },
            bytes: self.bytes,
            values: self.values,
        }
    }
}

/// The error of a store of value sites past its 2^32 entries.
#[cold]
fn too_many(what: &'static str) -> Error {
    Error::new(ErrorKind::LimitExceeded {
        what,
        value: u64::from(u32::MAX) + 1,
        limit: u64::from(u32::MAX),
    })
}
