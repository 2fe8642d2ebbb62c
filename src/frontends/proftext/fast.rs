//! The text reader for merges: the same profile as [`super::read`] at close to the speed of
//! scanning the bytes.
//!
//! Lines are found with `memchr` and never copied; numbers are parsed from their bytes; all
//! counters of a file go into one arena; names are hashed through a [`TextNameCache`] shared
//! by the merge's inputs, so that a name seen in an earlier input costs a hash-map look-up
//! instead of an MD5, and inputs naming the same functions share one symbol table (which the
//! merge then adds once, not once per input).
//!
//! It reads only what it can read exactly as [`super::read`] does: anything else (a line it
//! cannot parse, a byte that is not ASCII, a carriage return, temporal traces, a value written
//! as a raw `0x` hash) makes it give up, and the input is read by [`super::read`], whose
//! result and errors are then the ones reported.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use super::EXTERNAL_SYMBOL;
use crate::bytes::Endian;
use crate::codec::value_prof_data::FlatValues;
use crate::ir::fx::FxBuildHasher;
use crate::ir::name_hash::md5_hash;
use crate::ir::{
    CounterLayout, Counters, FunctionKey, FunctionRecord, LayoutRecord, Profile, ProfileKind,
    Provenance, SymbolTable, TemporalProfile, ValueCount, ValueKind, ValueProfile, ValueSite,
};

/// Name → MD5 name hash.
type NameHashes = HashMap<Box<[u8]>, u64, FxBuildHasher>;

/// A symbol table shared by inputs whose records have these name hashes, in this order.
type SharedTable = (Arc<[u64]>, Arc<SymbolTable>);

/// Most distinct symbol tables kept (one per distinct sequence of function names).
const MAX_TABLES: usize = 16;

/// Names and symbol tables shared by the text inputs of one merge (thread-safe).
#[derive(Debug, Default)]
pub struct TextNameCache {
    /// Every name hashed so far. Readers take a snapshot (an `Arc`) and look names up without
    /// a lock; a reader that hashed new names publishes a new map with them.
    hashes: RwLock<Arc<NameHashes>>,
    /// Symbol tables by the sequence of their records' name hashes (a fingerprint, then the
    /// full sequence compared).
    tables: Mutex<HashMap<u64, Vec<SharedTable>>>,
    /// The empty table of inputs without vtable names.
    empty: Arc<SymbolTable>,
    /// The function names of the last input read whose records named functions not in the
    /// one before, in record order: the next input of the same program names the same
    /// functions in the same order, so its names are compared with these instead of looked
    /// up.
    last: RwLock<Arc<RecordNames>>,
    /// The buffers of scans already merged ([`TextNameCache::recycle`]), for the next
    /// inputs: fresh buffers of a few hundred kilobytes come from `mmap` and cost a page
    /// fault per page written (about 60 per file of the sqlite workload, a tenth of its time).
    spare: Mutex<Vec<Buffers>>,
}

/// The allocations of one [`TextScan`], emptied.
#[derive(Debug, Default)]
struct Buffers {
    bytes: Vec<u8>,
    records: Vec<LayoutRecord>,
    values: FlatValues,
}

/// Most spare [`Buffers`] kept: more than the inputs one window has in flight.
const MAX_SPARE: usize = 16;

/// Function names in record order, one after another, with their hashes.
#[derive(Debug, Default)]
struct RecordNames {
    bytes: Vec<u8>,
    /// Per record: end of its name in `bytes`, and its hash.
    ends: Vec<(usize, u64)>,
}

impl RecordNames {
    /// Record `i`'s name and its hash.
    #[inline]
    fn get(&self, i: usize) -> Option<(&[u8], u64)> {
        let &(end, h) = self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p)?.0,
            None => 0,
        };
        Some((self.bytes.get(start..end)?, h))
    }

    /// The hash of record `i`'s name if that name is `name`.
    #[inline]
    fn hash_if(&self, i: usize, name: &[u8]) -> Option<u64> {
        let &(end, h) = self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p)?.0,
            None => 0,
        };
        (self.bytes.get(start..end)? == name).then_some(h)
    }
}

impl TextNameCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes back the buffers of `scan` (merged and no longer needed), so that the next
    /// scan writes into pages already mapped.
    pub fn recycle(&self, scan: TextScan) {
        let TextScan {
            mut bytes,
            layout,
            mut values,
            ..
        } = scan;
        let mut records = layout.records;
        bytes.clear();
        records.clear();
        values.clear();
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < MAX_SPARE
        {
            spare.push(Buffers {
                bytes,
                records,
                values,
            });
        }
    }

    /// Spare buffers, or new ones.
    fn buffers(&self) -> Buffers {
        self.spare
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default()
    }
}

/// Hashes names through a snapshot of the cache, remembering the ones it had to hash.
struct Hasher<'a, 'c> {
    known: Arc<NameHashes>,
    /// The last input's function names, and whether every record so far matched them.
    last: Arc<RecordNames>,
    same_as_last: bool,
    new: HashMap<&'a [u8], u64, FxBuildHasher>,
    cache: &'c TextNameCache,
}

impl<'a, 'c> Hasher<'a, 'c> {
    fn new(cache: &'c TextNameCache) -> Self {
        let known = cache
            .hashes
            .read()
            .map(|m| Arc::clone(&m))
            .unwrap_or_default();
        let last = cache
            .last
            .read()
            .map(|m| Arc::clone(&m))
            .unwrap_or_default();
        Hasher {
            known,
            last,
            same_as_last: true,
            new: HashMap::default(),
            cache,
        }
    }

    /// Record `i`'s name and hash in the last input (the name this input's record `i` most
    /// likely has).
    #[inline]
    fn expected(&self, i: usize) -> Option<(&[u8], u64)> {
        self.last.get(i)
    }

    /// The hash of record `i`'s function name.
    #[inline]
    fn record_name(&mut self, i: usize, name: &'a [u8]) -> u64 {
        if let Some(h) = self.last.hash_if(i, name) {
            return h;
        }
        self.same_as_last = false;
        self.hash(name)
    }

    fn hash(&mut self, name: &'a [u8]) -> u64 {
        if let Some(&h) = self.known.get(name) {
            return h;
        }
        *self.new.entry(name).or_insert_with(|| md5_hash(name))
    }

    /// Publishes the names hashed here, and the records' names if they were not the last
    /// input's.
    fn publish(self, record_names: &[(u64, &[u8])]) {
        if !self.same_as_last || self.last.ends.len() != record_names.len() {
            let mut r = RecordNames::default();
            for &(h, n) in record_names {
                r.bytes.extend_from_slice(n);
                r.ends.push((r.bytes.len(), h));
            }
            if let Ok(mut last) = self.cache.last.write() {
                *last = Arc::new(r);
            }
        }
        if self.new.is_empty() {
            return;
        }
        if let Ok(mut shared) = self.cache.hashes.write() {
            let mut m: NameHashes = (**shared).clone();
            for (n, h) in self.new {
                m.entry(Box::from(n)).or_insert(h);
            }
            *shared = Arc::new(m);
        }
    }
}

/// The lines of a text profile without blanks and comments (the file is ASCII without
/// carriage returns: checked before).
struct Lines<'a> {
    data: &'a [u8],
    /// Where the next line (blank or not) starts.
    pos: usize,
    /// The next non-blank line, once found: (start, end).
    peeked: Option<(usize, usize)>,
}

impl<'a> Lines<'a> {
    fn new(data: &'a [u8]) -> Self {
        Lines {
            data,
            pos: 0,
            peeked: None,
        }
    }

    #[inline]
    fn find(&mut self) -> Option<(usize, usize)> {
        if let Some(p) = self.peeked {
            return Some(p);
        }
        let data = self.data;
        loop {
            let start = self.pos;
            if start >= data.len() {
                return None;
            }
            let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
            self.pos = end + 1;
            if end > start && data[start] != b'#' {
                self.peeked = Some((start, end));
                return self.peeked;
            }
        }
    }

    /// Moves past blank lines and comments, unless a line is peeked. The comments of
    /// llvm-profdata's records are recognised without searching for their ends.
    #[inline]
    fn skip_blank_and_comments(&mut self) {
        if self.peeked.is_some() {
            return;
        }
        let d = self.data;
        while let Some(&b) = d.get(self.pos) {
            let rest = &d[self.pos..];
            self.pos += match b {
                b'\n' => 1,
                b'#' => match COMMENTS.iter().find(|c| rest.starts_with(c)) {
                    Some(c) => c.len(),
                    None => memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1),
                },
                _ => return,
            };
        }
    }

    /// The next line if it is `expected` (not empty, not a comment), found by comparing
    /// instead of searching for its end.
    #[inline]
    fn next_if(&mut self, expected: &[u8]) -> Option<&'a [u8]> {
        if expected.first().is_none_or(|&b| b == b'#') {
            return None;
        }
        self.skip_blank_and_comments();
        if self.peeked.is_some() {
            return None;
        }
        let d = self.data;
        let start = self.pos;
        let end = start.checked_add(expected.len())?;
        if d.get(start..end)? == expected && d.get(end) == Some(&b'\n') {
            self.pos = end + 1;
            return Some(&d[start..end]);
        }
        None
    }

    #[inline]
    fn peek(&mut self) -> Option<&'a [u8]> {
        let (s, e) = self.find()?;
        Some(&self.data[s..e])
    }

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let (s, e) = self.find()?;
        self.peeked = None;
        Some(&self.data[s..e])
    }

    /// The next line as a [`decimal`] number. Most lines of a profile are numbers of a few
    /// digits: they are parsed as the line is scanned, without searching for its end first.
    #[inline]
    fn next_decimal(&mut self) -> Option<u64> {
        self.skip_blank_and_comments();
        if self.peeked.is_none()
            && let Some(v) = decimal_line(self.data, &mut self.pos)
        {
            return Some(v);
        }
        decimal(self.next()?)
    }

    /// The next `out.len() / 8` lines as [`decimal`] numbers, into `out` as 8-byte
    /// little-endian words: a record's counters. The loop keeps its position in a register
    /// and writes into room made once, where a call of [`Lines::next_decimal`] per counter
    /// pushed each onto a vector.
    #[inline]
    fn decimals_into(&mut self, out: &mut [u8]) -> Option<()> {
        let d = self.data;
        for word in out.chunks_exact_mut(8) {
            let v = match self.peeked {
                None => match decimal_line(d, &mut self.pos) {
                    Some(v) => v,
                    None => self.next_decimal()?,
                },
                Some(_) => self.next_decimal()?,
            };
            word.copy_from_slice(&v.to_le_bytes());
        }
        Some(())
    }

    /// The next line as [`auto_radix`] reads it (a decimal number the fast way unless it
    /// starts with `0`).
    #[inline]
    fn next_auto_radix(&mut self) -> Option<u64> {
        self.skip_blank_and_comments();
        if self.peeked.is_none() && self.data.get(self.pos).is_some_and(|&b| b != b'0') {
            return self.next_decimal();
        }
        auto_radix(self.next()?)
    }

    /// Where the next line starts: the bound for counts of lines still to come.
    fn remaining(&self) -> usize {
        self.data
            .len()
            .saturating_sub(self.peeked.map_or(self.pos, |(s, _)| s))
    }
}

/// The comments llvm-profdata writes in a record, with their newlines.
const COMMENTS: [&[u8]; 3] = [
    b"# Func Hash:\n",
    b"# Num Counters:\n",
    b"# Counter Values:\n",
];

/// The number on the line at `*pos` if that line is 1–19 digits and its newline (no overflow
/// is possible), moving `*pos` past it; `None` (and `*pos` unchanged) for anything else,
/// which [`decimal`] then judges.
#[inline(always)]
fn decimal_line(d: &[u8], pos: &mut usize) -> Option<u64> {
    let start = *pos;
    // One digit and its newline: most counters of most profiles.
    if let Some(&[b, nl]) = d.get(start..start + 2) {
        let v = b.wrapping_sub(b'0');
        if v < 10 && nl == b'\n' {
            *pos = start + 2;
            return Some(u64::from(v));
        }
    }
    let mut i = start;
    let mut v: u64 = 0;
    // Eight digits at a time while the number stays within 19 digits (function hashes have
    // 17–20), then one at a time.
    while i - start <= 11
        && let Some(w) = d.get(i..i + 8)
    {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let Some(eight) = eight_digits(u64::from_le_bytes(a)) else {
            break;
        };
        v = v * 100_000_000 + eight;
        i += 8;
    }
    let end = d.len().min(start + 19);
    while i < end {
        let digit = d[i].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        v = v * 10 + u64::from(digit);
        i += 1;
    }
    if i > start && d.get(i) == Some(&b'\n') {
        *pos = i + 1;
        return Some(v);
    }
    None
}

/// The value of eight ASCII digits read as a little-endian word (the first digit in the low
/// byte), or `None` if a byte is not a digit: three multiplications instead of eight
/// dependent ones.
#[inline(always)]
fn eight_digits(w: u64) -> Option<u64> {
    // A byte is a digit if subtracting '0' does not borrow and adding 0x46 (0x7f - '9')
    // does not reach the high bit; bytes of the word are checked together.
    let sub = w.wrapping_sub(0x3030_3030_3030_3030);
    let add = w.wrapping_add(0x4646_4646_4646_4646);
    if (sub | add) & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    // Pairs, then fours, then the eight: each step combines neighbours with 10, 100, 10⁴.
    let v = sub.wrapping_mul(10).wrapping_add(sub >> 8);
    let v = ((v & 0x0000_00ff_0000_00ff).wrapping_mul(100 + (1_000_000 << 32))
        + ((v >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(v)
}

/// True if `data` is ASCII without carriage returns (what the fast reader reads exactly as
/// the full one), in one pass: eight bytes at a time, the high bits and the zero-byte test of
/// `word ^ 0x0d0d…` or-ed together over the whole input. This is also the input's first
/// touch, so it runs at the speed of reading it.
fn plain_ascii(data: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const CR: u64 = 0x0d0d_0d0d_0d0d_0d0d;
    let mut words = data.chunks_exact(8);
    let mut seen = 0u64;
    for w in words.by_ref() {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let w = u64::from_le_bytes(a);
        let x = w ^ CR;
        // A byte of `x` is zero (a CR in `w`) exactly where this sets its high bit, given
        // that `w`'s own high bits (non-ASCII bytes) are or-ed in too.
        seen |= w | (x.wrapping_sub(LOW) & !x);
    }
    seen & HIGH == 0
        && words
            .remainder()
            .iter()
            .all(|&b| b.is_ascii() && b != b'\r')
}

/// A decimal number as [`super::parse_radix`] reads one with radix 10 (digits only, no
/// overflow); `None` for anything else.
#[inline]
fn decimal(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// [`super::parse_auto_radix`] on bytes (decimal fast; the other radixes through it).
fn auto_radix(s: &[u8]) -> Option<u64> {
    if s.len() > 1 && s[0] == b'0' {
        return super::parse_auto_radix(std::str::from_utf8(s).ok()?);
    }
    decimal(s)
}

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
    /// The records the layout describes, built (what [`read`] gives).
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

/// Reads a text profile for a merge, or `None` if it is not one this reader reads exactly
/// as [`super::read`] (then read it with that): [`scan`] with the records built.
pub fn read(data: &[u8], cache: &TextNameCache) -> Option<Profile<'static>> {
    let s = scan(data, cache)?;
    let records = s.records();
    Some(Profile {
        records,
        ..s.profile
    })
}

/// Describes a text profile for a merge, or `None` if it is not one this reader reads
/// exactly as [`super::read`] (then read it with that).
pub fn scan(data: &[u8], cache: &TextNameCache) -> Option<TextScan> {
    if !plain_ascii(data) {
        return None;
    }
    let mut lines = Lines::new(data);
    let mut kind = ProfileKind::empty();
    while let Some(l) = lines.peek() {
        let Some(word) = l.strip_prefix(b":") else {
            break;
        };
        lines.next();
        match word.to_ascii_lowercase().as_slice() {
            b"ir" => kind.insert(ProfileKind::IR),
            b"fe" => kind.insert(ProfileKind::FRONTEND),
            b"csir" => kind.insert(ProfileKind::IR.union(ProfileKind::CONTEXT_SENSITIVE)),
            b"entry_first" => kind.insert(ProfileKind::ENTRY_FIRST),
            b"not_entry_first" => kind.remove(ProfileKind::ENTRY_FIRST),
            b"single_byte_coverage" => kind.insert(ProfileKind::BYTE_COVERAGE),
            b"instrument_loop_entries" => kind.insert(ProfileKind::LOOP_ENTRIES),
            // Temporal traces and unknown words: the full reader.
            _ => return None,
        }
    }
    if kind.contains(ProfileKind::IR) {
        kind.remove(ProfileKind::FRONTEND);
    } else {
        kind.insert(ProfileKind::FRONTEND);
    }

    let mut hasher = Hasher::new(cache);
    // Room for one counter per 4 bytes of text (8 bytes each), more than real profiles hold
    // (the vector grows otherwise): growing would copy it, and a file of counters only is
    // rare. Pages never written are never touched.
    let Buffers {
        mut bytes,
        records: mut layout,
        mut values,
    } = cache.buffers();
    // Room asked for, not needed: without it the buffer grows as it is filled.
    let _ = bytes.try_reserve(data.len().saturating_mul(2));
    let mut record_names: Vec<(u64, &[u8])> = Vec::new();
    let mut targets: Vec<(u64, &[u8])> = Vec::new();
    let mut vtable_targets: Vec<(u64, &[u8])> = Vec::new();
    loop {
        let i = record_names.len();
        let (name, name_hash) = match hasher
            .expected(i)
            .and_then(|(n, h)| Some((lines.next_if(n)?, h)))
        {
            Some(known) => known,
            None => {
                let Some(name) = lines.next() else {
                    break;
                };
                (name, hasher.record_name(i, name))
            }
        };
        record_names.push((name_hash, name));
        let cfg = lines.next_auto_radix()?;
        let n = lines.next_decimal()?;
        if n == 0 {
            return None;
        }
        // Every counter takes a line of two bytes at least: this bounds the room made.
        let n_words = usize::try_from(n).ok()?;
        if n_words > lines.remaining() / 2 + 1 {
            return None;
        }
        let counters = bytes.len();
        // Memory refused: the file goes to the full reader.
        bytes.try_reserve(8 * n_words).ok()?;
        bytes.resize(counters + 8 * n_words, 0);
        lines.decimals_into(&mut bytes[counters..])?;
        let bitmap = bytes.len();
        if let Some(l) = lines.peek()
            && let Some(count) = l.strip_prefix(b"$")
        {
            lines.next();
            let nb = auto_radix(count.trim_ascii())?;
            for _ in 0..nb {
                bytes.push(u8::try_from(auto_radix(lines.next()?)?).ok()?);
            }
        }
        let bitmap_len = bytes.len() - bitmap;
        let block = read_values(
            &mut lines,
            &mut hasher,
            &mut values,
            &mut targets,
            &mut vtable_targets,
        )?;
        layout.push(LayoutRecord {
            key: FunctionKey {
                name: name_hash,
                cfg,
            },
            counters,
            num_counters: n_words,
            bitmap,
            bitmap_len,
            values: block,
        });
    }
    hasher.publish(&record_names);

    let names = table_of(cache, &record_names, &targets);
    let vtable_names = if vtable_targets.is_empty() {
        Arc::clone(&cache.empty)
    } else {
        let mut t = SymbolTable::new();
        for &(h, n) in &vtable_targets {
            t.insert_hashed(h, Arc::from(n));
        }
        Arc::new(t)
    };
    Some(TextScan {
        profile: Profile {
            kind,
            records: Vec::new(),
            names,
            vtable_names,
            binary_ids: Vec::new(),
            temporal: TemporalProfile::default(),
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
            records: layout,
        },
        bytes,
        values,
    })
}

/// The symbol table of a file: its records' names and its value sites' target names. Files
/// whose records name the same functions in the same order share one table, unless a target
/// is not among those functions.
fn table_of(
    cache: &TextNameCache,
    record_names: &[(u64, &[u8])],
    targets: &[(u64, &[u8])],
) -> Arc<SymbolTable> {
    let mut fp = record_names.len() as u64;
    for &(h, _) in record_names {
        fp = (fp.rotate_left(23) ^ h).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let same = |seq: &[u64]| {
        seq.len() == record_names.len() && seq.iter().zip(record_names).all(|(a, (b, _))| a == b)
    };
    let mut shared = None;
    if let Ok(map) = cache.tables.lock()
        && let Some(list) = map.get(&fp)
    {
        shared = list
            .iter()
            .find(|(seq, _)| same(seq))
            .map(|(_, t)| Arc::clone(t));
    }
    let table = match shared {
        Some(t) => t,
        None => {
            let mut t = SymbolTable::new();
            for &(h, n) in record_names {
                t.insert_hashed(h, Arc::from(n));
            }
            let t = Arc::new(t);
            if let Ok(mut map) = cache.tables.lock()
                && map.values().map(Vec::len).sum::<usize>() < MAX_TABLES
            {
                let seq: Arc<[u64]> = record_names.iter().map(|&(h, _)| h).collect();
                map.entry(fp).or_default().push((seq, Arc::clone(&t)));
            }
            t
        }
    };
    if targets.iter().all(|&(h, _)| table.contains(h)) {
        return table;
    }
    let mut t = (*table).clone();
    for &(h, n) in targets {
        t.insert_hashed(h, Arc::from(n));
    }
    Arc::new(t)
}

/// [`super::read_values`] on bytes, into `out`: the record's block (`None` if it has no
/// site); `None` where that one would fail or read a raw hash.
fn read_values<'a>(
    lines: &mut Lines<'a>,
    hasher: &mut Hasher<'a, '_>,
    out: &mut FlatValues,
    targets: &mut Vec<(u64, &'a [u8])>,
    vtable_targets: &mut Vec<(u64, &'a [u8])>,
) -> Option<Option<u32>> {
    let Some(l) = lines.peek() else {
        return Some(None);
    };
    // The full reader takes any all-digit line here as the number of value kinds.
    if l.is_empty() || !l.iter().all(u8::is_ascii_digit) {
        return Some(None);
    }
    let nkinds = decimal(l)?;
    lines.next();
    if nkinds == 0 || nkinds > ValueKind::COUNT as u64 {
        return None;
    }
    // Per kind: (first site, number of sites); a kind listed again replaces its sites, as
    // in the full reader.
    let mut kinds = [(0u32, 0u32); ValueKind::COUNT];
    for _ in 0..nkinds {
        let k = lines.next_decimal()?;
        let kind = u32::try_from(k).ok().and_then(ValueKind::from_u32)?;
        let nsites = lines.next_decimal()?;
        let mut first = None;
        for _ in 0..nsites {
            let nvalues = lines.next_decimal()?;
            for _ in 0..nvalues {
                let s = lines.next()?;
                let colon = memchr::memrchr(b':', s)?;
                let (val, count) = (&s[..colon], &s[colon + 1..]);
                let count = decimal(count)?;
                let value = match kind {
                    ValueKind::MemOpSize => decimal(val)?,
                    _ if val == EXTERNAL_SYMBOL.as_bytes() => 0,
                    _ if val.is_empty() || looks_like_raw_hash(val) => return None,
                    ValueKind::VTable => {
                        let h = hasher.hash(val);
                        vtable_targets.push((h, val));
                        h
                    }
                    _ => {
                        let h = hasher.hash(val);
                        targets.push((h, val));
                        h
                    }
                };
                if !out.push_value(ValueCount { value, count }) {
                    return None;
                }
            }
            let site = out.push_site()?;
            first.get_or_insert(site);
        }
        if let Some(first) = first {
            kinds[kind.index()] = (first, u32::try_from(nsites).ok()?);
        }
    }
    if kinds.iter().all(|&(_, n)| n == 0) {
        return Some(None);
    }
    out.push_block(kinds).map(Some)
}

/// `0x` and 16 hex digits: the full reader may take it as a hash (see `super::raw_hash`).
fn looks_like_raw_hash(s: &[u8]) -> bool {
    s.len() == 18 && s.starts_with(b"0x") && s[2..].iter().all(u8::is_ascii_hexdigit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ascii_finds_every_carriage_return_and_high_byte() {
        for len in 0..40 {
            let text: Vec<u8> = (0..len).map(|i| b" -0a#:\n~"[i % 8]).collect();
            assert!(plain_ascii(&text), "len {len}");
            for at in 0..len {
                for bad in [b'\r', 0x80, 0xff, 0x8d] {
                    let mut t = text.clone();
                    t[at] = bad;
                    assert!(!plain_ascii(&t), "len {len}, {bad:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn eight_digits_at_once_are_eight_one_at_a_time() {
        for s in [
            b"00000000",
            b"12345678",
            b"99999999",
            b"90000001",
            b"07654321",
        ] {
            let want = std::str::from_utf8(s).unwrap().parse::<u64>().unwrap();
            assert_eq!(eight_digits(u64::from_le_bytes(*s)), Some(want));
        }
        for at in 0..8 {
            for bad in [b'/', b':', b'\n', b'a', 0x80, 0xb0, 0xff, 0] {
                let mut s = *b"12345678";
                s[at] = bad;
                assert_eq!(
                    eight_digits(u64::from_le_bytes(s)),
                    None,
                    "{bad:#x} at {at}"
                );
            }
        }
        // Every length up to 20 digits, as lines.
        for len in 1..=21 {
            let digits: String = (0..len).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
            let line = format!("{digits}\n");
            assert_eq!(
                Lines::new(line.as_bytes()).next_decimal(),
                digits.parse::<u64>().ok(),
                "{digits}"
            );
        }
    }

    #[test]
    fn decimal_lines_are_those_of_the_general_parser() {
        let cases: &[&[u8]] = &[
            b"0\n",
            b"7\n",
            b"42\n",
            b"1234567890123456789\n",
            b"12345678901234567890\n",
            b"18446744073709551615\n",
            b"18446744073709551616\n",
            b"5",
            b"\n",
            b"# 3\n",
            b"-1\n",
            b"3 \n",
            b"0x10\n",
        ];
        for &c in cases {
            let mut lines = Lines::new(c);
            let want = std::str::from_utf8(c)
                .ok()
                .and_then(|s| s.lines().find(|l| !l.is_empty() && !l.starts_with('#')))
                .and_then(|l| decimal(l.as_bytes()));
            assert_eq!(
                lines.next_decimal(),
                want,
                "{:?}",
                String::from_utf8_lossy(c)
            );
            let mut out = [0u8; 8];
            let got = Lines::new(c)
                .decimals_into(&mut out)
                .map(|()| u64::from_le_bytes(out));
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(c));
        }
    }
}
