//! Big-endian raw profiles, without a big-endian machine: a converter (written here from the
//! format reference, independently of the library's reader) turns a little-endian `.profraw`
//! into the file a big-endian machine of the same pointer width would have written. Then:
//!
//! (a) our binary merges the big-endian file into a `.profdata` byte-identical to the one it
//!     makes from the little-endian original;
//! (b) the real `llvm-profdata` (22 for v10, 23 for v11, 18 for v9) shows the big-endian file
//!     exactly like the original, which proves the converter right (LLVM byte-swaps raw
//!     profiles of the other byte order itself). llvm-profdata-14 maps indirect-call targets of
//!     byte-swapped files wrongly (format reference §18.14), so for v8 only its counts are
//!     compared.
//!
//! The layout walker [`walk`] is also used by `bad_input.rs` for section boundaries and for
//! deciding which prefixes of a file are complete profiles.

use crate::common::*;

/// Magic of a raw profile from a 64-bit writer.
pub(crate) const MAGIC_64: u64 = 0xff6c_7072_6f66_7281;
/// Magic of a raw profile from a 32-bit writer.
pub(crate) const MAGIC_32: u64 = 0xff6c_7072_6f66_5281;

/// A numeric field to byte-swap: absolute offset and width (2, 4 or 8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Num {
    pub at: usize,
    pub size: usize,
}

/// One data record of a profile.
#[derive(Debug, Clone)]
pub(crate) struct RecordInfo {
    /// Absolute offset of the record.
    pub at: usize,
    /// NumCounters.
    pub num_counters: u32,
    /// NumValueSites per kind (unused slots 0).
    pub value_sites: [u16; 3],
}

/// One value-profile block.
#[derive(Debug, Clone)]
pub(crate) struct ValueBlock {
    /// Absolute offset of TotalSize.
    pub at: usize,
    /// TotalSize.
    pub total: usize,
    /// Per value-kind record: absolute offset of its Kind word, the kind, its NumValueSites and
    /// the absolute offset of its site-count bytes.
    pub kinds: Vec<(usize, u32, u32, usize)>,
}

/// Where everything of one profile in a raw file is (absolute offsets, `[start, end)`).
#[derive(Debug, Clone)]
#[allow(dead_code)] // a description of the layout; not every field is used by every test
pub(crate) struct RawLayout {
    pub start: usize,
    pub w64: bool,
    pub version: u32,
    pub version_word: u64,
    pub header_size: usize,
    /// Header fields by name with their absolute offsets.
    pub header_fields: Vec<(&'static str, usize)>,
    pub binary_ids: (usize, usize),
    /// Absolute offsets of each binary-ID length word, with the length.
    pub binary_id_entries: Vec<(usize, u64)>,
    pub data: (usize, usize),
    pub record_size: usize,
    /// Field name, offset inside the record, size.
    pub record_fields: Vec<(&'static str, usize, usize)>,
    pub records: Vec<RecordInfo>,
    pub counters: (usize, usize),
    /// 8, or 1 with single-byte coverage.
    pub counter_entry: usize,
    pub bitmap: (usize, usize),
    pub uniform: (usize, usize),
    pub names: (usize, usize),
    pub vtables: (usize, usize),
    pub vtable_record_size: usize,
    pub vnames: (usize, usize),
    pub values: (usize, usize),
    pub value_blocks: Vec<ValueBlock>,
    /// End of the profile (after its last value block).
    pub end: usize,
}

impl RawLayout {
    /// Absolute offset of a header field.
    pub fn field(&self, name: &str) -> usize {
        self.header_fields
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("v{} header has no {name}", self.version))
            .1
    }

    /// Offset of a field inside a data record.
    pub fn record_field(&self, name: &str) -> (usize, usize) {
        let f = self
            .record_fields
            .iter()
            .find(|(n, _, _)| *n == name)
            .unwrap_or_else(|| panic!("v{} record has no {name}", self.version));
        (f.1, f.2)
    }

    /// Every section boundary of the profile, sorted and deduplicated.
    pub fn boundaries(&self) -> Vec<usize> {
        let mut v = vec![
            self.start,
            self.start + 8,
            self.start + 16,
            self.start + self.header_size,
        ];
        v.extend(self.header_fields.iter().map(|(_, o)| *o));
        for (a, b) in [
            self.binary_ids,
            self.data,
            self.counters,
            self.bitmap,
            self.uniform,
            self.names,
            self.vtables,
            self.vnames,
            self.values,
        ] {
            v.push(a);
            v.push(b);
        }
        v.extend(self.binary_id_entries.iter().map(|(o, _)| *o));
        v.extend(self.records.iter().map(|r| r.at));
        for b in &self.value_blocks {
            v.push(b.at);
            v.push(b.at + b.total);
            v.extend(b.kinds.iter().map(|k| k.0));
        }
        v.push(self.end);
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn le64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}
fn le32(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}
fn le16(d: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(d[at..at + 2].try_into().unwrap())
}
fn pad8(n: usize) -> usize {
    (8 - n % 8) % 8
}

/// Header fields of each raw version (format reference §5, §19; v11 from the LLVM 23 header).
pub(crate) fn header_field_names(version: u32) -> &'static [&'static str] {
    match version {
        4 => &[
            "Magic",
            "Version",
            "NumData",
            "NumCounters",
            "NamesSize",
            "CountersDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        5 => &[
            "Magic",
            "Version",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NamesSize",
            "CountersDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        7 | 8 => &[
            "Magic",
            "Version",
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NamesSize",
            "CountersDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        9 => &[
            "Magic",
            "Version",
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        10 => &[
            "Magic",
            "Version",
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "NumVTables",
            "VNamesSize",
            "ValueKindLast",
        ],
        11 => &[
            "Magic",
            "Version",
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NumUniformCounters",
            "PaddingBytesAfterUniformCounters",
            "UniformCountersDelta",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "NumVTables",
            "VNamesSize",
            "ValueKindLast",
        ],
        v => panic!("walker: raw version {v} not handled"),
    }
}

/// The data record as a C struct (format reference §8; v11: UniformCounterPtr after
/// CounterPtr, u16 OffloadDeviceWaveSize after NumValueSites): fields with natural alignment,
/// size rounded up to 8. Returns (size, [(name, offset, size)]).
pub(crate) fn record_layout(version: u32, w64: bool) -> (usize, Vec<(&'static str, usize, usize)>) {
    let p = if w64 { 8 } else { 4 };
    let fields: Vec<(&'static str, usize)> = match version {
        4..=8 => vec![
            ("NameRef", 8),
            ("FuncHash", 8),
            ("CounterPtr", p),
            ("FunctionPointer", p),
            ("Values", p),
            ("NumCounters", 4),
            ("NumValueSites0", 2),
            ("NumValueSites1", 2),
        ],
        9 => vec![
            ("NameRef", 8),
            ("FuncHash", 8),
            ("CounterPtr", p),
            ("BitmapPtr", p),
            ("FunctionPointer", p),
            ("Values", p),
            ("NumCounters", 4),
            ("NumValueSites0", 2),
            ("NumValueSites1", 2),
            ("NumBitmapBytes", 4),
        ],
        10 => vec![
            ("NameRef", 8),
            ("FuncHash", 8),
            ("CounterPtr", p),
            ("BitmapPtr", p),
            ("FunctionPointer", p),
            ("Values", p),
            ("NumCounters", 4),
            ("NumValueSites0", 2),
            ("NumValueSites1", 2),
            ("NumValueSites2", 2),
            ("NumBitmapBytes", 4),
        ],
        11 => vec![
            ("NameRef", 8),
            ("FuncHash", 8),
            ("CounterPtr", p),
            ("UniformCounterPtr", p),
            ("BitmapPtr", p),
            ("FunctionPointer", p),
            ("Values", p),
            ("NumCounters", 4),
            ("NumValueSites0", 2),
            ("NumValueSites1", 2),
            ("NumValueSites2", 2),
            ("OffloadDeviceWaveSize", 2),
            ("NumBitmapBytes", 4),
        ],
        v => panic!("walker: raw version {v} not handled"),
    };
    let mut off = 0;
    let mut out = Vec::new();
    for (name, size) in fields {
        off += (size - off % size) % size;
        out.push((name, off, size));
        off += size;
    }
    (off + pad8(off), out)
}

/// Walks every profile of a real little-endian raw file. Panics on anything unexpected (it is
/// only used on the real files in testdata).
pub(crate) fn walk(data: &[u8]) -> Vec<RawLayout> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let p = walk_one(data, pos);
        pos = p.end;
        out.push(p);
        while pos < data.len() && data[pos] == 0 {
            pos += 1;
        }
        if pos >= data.len() {
            return out;
        }
    }
}

fn walk_one(d: &[u8], s: usize) -> RawLayout {
    let magic = le64(d, s);
    let w64 = match magic {
        MAGIC_64 => true,
        MAGIC_32 => false,
        m => panic!("walker: no little-endian raw magic at {s:#x} ({m:#x})"),
    };
    let version_word = le64(d, s + 8);
    let version = (version_word & 0xffff_ffff) as u32;
    let names = header_field_names(version);
    let header_fields: Vec<(&'static str, usize)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, s + 8 * i))
        .collect();
    let header_size = 8 * names.len();
    let h = |n: &str| -> usize {
        header_fields
            .iter()
            .find(|(f, _)| *f == n)
            .map(|(_, o)| le64(d, *o) as usize)
            .unwrap_or(0)
    };
    let byte_coverage = version >= 8 && version_word & (1 << 60) != 0;
    let counter_entry = if byte_coverage { 1 } else { 8 };
    let (record_size, record_fields) = record_layout(version, w64);

    let bid_start = s + header_size;
    let bid_end = bid_start + h("BinaryIdsSize");
    let mut binary_id_entries = Vec::new();
    let mut p = bid_start;
    while p < bid_end {
        let len = le64(d, p);
        binary_id_entries.push((p, len));
        p += 8 + len as usize;
        if version >= 8 {
            p += pad8(len as usize);
        }
    }
    assert_eq!(p, bid_end, "walker: binary IDs of the profile at {s:#x}");

    let data_start = bid_end;
    let num_data = h("NumData");
    let data_end = data_start + num_data * record_size;
    let field_off = |name: &str| record_fields.iter().find(|f| f.0 == name).map(|f| f.1);
    let records: Vec<RecordInfo> = (0..num_data)
        .map(|i| {
            let at = data_start + i * record_size;
            let mut value_sites = [0u16; 3];
            for (k, slot) in value_sites.iter_mut().enumerate() {
                if let Some(o) =
                    field_off(["NumValueSites0", "NumValueSites1", "NumValueSites2"][k])
                {
                    *slot = le16(d, at + o);
                }
            }
            RecordInfo {
                at,
                num_counters: le32(d, at + field_off("NumCounters").unwrap()),
                value_sites,
            }
        })
        .collect();
    let counters_start = data_end + h("PaddingBytesBeforeCounters");
    let counters_end = counters_start + h("NumCounters") * counter_entry;
    let bitmap_start = counters_end + h("PaddingBytesAfterCounters");
    let bitmap_end = bitmap_start + h("NumBitmapBytes");
    let uniform_start = bitmap_end + h("PaddingBytesAfterBitmapBytes");
    let uniform_end = uniform_start + 8 * h("NumUniformCounters");
    let names_start = uniform_end + h("PaddingBytesAfterUniformCounters");
    let names_end = names_start + h("NamesSize");
    let vtables_start = names_end + pad8(h("NamesSize"));
    let vtable_record_size = if w64 { 24 } else { 16 };
    let vtables_end = vtables_start + h("NumVTables") * vtable_record_size;
    let vnames_start = vtables_end + pad8(vtables_end - vtables_start);
    let vnames_end = vnames_start + h("VNamesSize");
    let values_start = vnames_end + pad8(h("VNamesSize"));
    assert!(values_start <= d.len(), "walker: profile at {s:#x} is cut");

    let mut value_blocks = Vec::new();
    let mut v = values_start;
    for r in &records {
        if r.value_sites.iter().all(|&n| n == 0) {
            continue;
        }
        let total = le32(d, v) as usize;
        let nkinds = le32(d, v + 4);
        let mut kinds = Vec::new();
        let mut k = v + 8;
        for _ in 0..nkinds {
            let kind = le32(d, k);
            let nsites = le32(d, k + 4);
            let counts_at = k + 8;
            let pairs: usize = d[counts_at..counts_at + nsites as usize]
                .iter()
                .map(|&c| c as usize)
                .sum();
            assert_eq!(
                nsites,
                u32::from(r.value_sites[kind as usize]),
                "walker: value block at {v:#x}"
            );
            kinds.push((k, kind, nsites, counts_at));
            k = counts_at + nsites as usize + pad8(8 + nsites as usize) + 16 * pairs;
        }
        assert_eq!(
            k,
            v + total,
            "walker: value block at {v:#x} has TotalSize {total}"
        );
        value_blocks.push(ValueBlock {
            at: v,
            total,
            kinds,
        });
        v += total;
    }
    RawLayout {
        start: s,
        w64,
        version,
        version_word,
        header_size,
        header_fields,
        binary_ids: (bid_start, bid_end),
        binary_id_entries,
        data: (data_start, data_end),
        record_size,
        record_fields,
        records,
        counters: (counters_start, counters_end),
        counter_entry,
        bitmap: (bitmap_start, bitmap_end),
        uniform: (uniform_start, uniform_end),
        names: (names_start, names_end),
        vtables: (vtables_start, vtables_end),
        vtable_record_size,
        vnames: (vnames_start, vnames_end),
        values: (values_start, v),
        value_blocks,
        end: v,
    }
}

/// Every numeric field of a little-endian raw file (all profiles), i.e. every place a
/// big-endian writer would have stored differently. Byte strings (build IDs, names, bitmap
/// bytes, single-byte counters, site-count bytes) and padding are not listed.
pub(crate) fn numeric_fields(data: &[u8]) -> Vec<Num> {
    let mut out = Vec::new();
    for l in walk(data) {
        let ptr = if l.w64 { 8 } else { 4 };
        // Header: every word is a u64 (pointer-derived ones zero-extended).
        for (_, at) in &l.header_fields {
            out.push(Num { at: *at, size: 8 });
        }
        // Binary IDs: the length word only.
        for (at, _) in &l.binary_id_entries {
            out.push(Num { at: *at, size: 8 });
        }
        // Data records: every field.
        for r in &l.records {
            for (_, off, size) in &l.record_fields {
                out.push(Num {
                    at: r.at + off,
                    size: *size,
                });
            }
        }
        // Counters: 8-byte ones only.
        if l.counter_entry == 8 {
            for at in (l.counters.0..l.counters.1).step_by(8) {
                out.push(Num { at, size: 8 });
            }
        }
        // Uniform counters (v11): u64 each.
        for at in (l.uniform.0..l.uniform.1).step_by(8) {
            out.push(Num { at, size: 8 });
        }
        // Vtable records: name hash u64, pointer, u32 size (then padding on 64-bit).
        for at in (l.vtables.0..l.vtables.1).step_by(l.vtable_record_size) {
            out.push(Num { at, size: 8 });
            out.push(Num {
                at: at + 8,
                size: ptr,
            });
            out.push(Num {
                at: at + 8 + ptr,
                size: 4,
            });
        }
        // Value blocks: TotalSize, NumValueKinds, per kind Kind and NumValueSites (u32), then
        // every value and count (u64); the site-count bytes stay.
        for b in &l.value_blocks {
            out.push(Num { at: b.at, size: 4 });
            out.push(Num {
                at: b.at + 4,
                size: 4,
            });
            for &(k, _, nsites, counts_at) in &b.kinds {
                out.push(Num { at: k, size: 4 });
                out.push(Num { at: k + 4, size: 4 });
                let pairs: usize = data[counts_at..counts_at + nsites as usize]
                    .iter()
                    .map(|&c| c as usize)
                    .sum();
                let first = counts_at + nsites as usize + pad8(8 + nsites as usize);
                for i in 0..2 * pairs {
                    out.push(Num {
                        at: first + 8 * i,
                        size: 8,
                    });
                }
            }
        }
    }
    out
}

/// The file a big-endian machine would have written instead of the little-endian `data`.
pub(crate) fn to_big_endian(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    let mut seen = std::collections::HashSet::new();
    for n in numeric_fields(data) {
        for b in n.at..n.at + n.size {
            assert!(
                seen.insert(b),
                "converter: byte {b:#x} belongs to two fields"
            );
        }
        out[n.at..n.at + n.size].reverse();
    }
    out
}

/// Every raw file of the producers listed.
fn files_of(producers: &[&str]) -> Vec<std::path::PathBuf> {
    let v: Vec<_> = producers.iter().flat_map(|p| raws_of(p)).collect();
    assert!(!v.is_empty(), "no testdata for {producers:?}");
    v
}

/// The `show` command of the brief.
const SHOW: &[&str] = &[
    "show",
    "--all-functions",
    "--counts",
    "--ic-targets",
    "--memop-sizes",
];

/// The views compared for v9–v11: the brief's command, with context-sensitive records, with
/// vtable targets (the only view where the vtable records matter), binary IDs, and the text
/// dump.
const VIEWS_NEW: &[&[&str]] = &[
    SHOW,
    &[
        "show",
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
        "--showcs",
    ],
    &["show", "--all-functions", "--show-vtables"],
    &["show", "--binary-ids"],
    &["show", "--text"],
];

/// The views for llvm-profdata-14 (v8) and older: no indirect-call targets (their cross-endian
/// bug: targets of byte-swapped files come out empty; seen with 14 and 9 here; the text dump
/// contains them too).
const VIEWS_OLD: &[&[&str]] = &[
    &["show", "--all-functions", "--counts", "--memop-sizes"],
    &[
        "show",
        "--all-functions",
        "--counts",
        "--memop-sizes",
        "--showcs",
    ],
    &["show", "--binary-ids"],
];

/// A variant of a vtable-profiling file whose vtable values sit at the ends of the vtables'
/// address ranges: the first value of each vtable site is moved to `start + size` of the
/// vtable it pointed into (the last address LLVM's closed interval map still matches; where
/// vtables are adjacent that is also the next vtable's start) and the second to one byte
/// after the end of the last vtable (outside all of them). This makes the vtable records'
/// sizes matter, so a converter that got them wrong is caught. None if the file has no vtable
/// values.
fn vtable_boundary_variant(le: &[u8]) -> Option<Vec<u8>> {
    let mut out = le.to_vec();
    let mut changed = false;
    for l in walk(le) {
        let ptr = if l.w64 { 8 } else { 4 };
        let vt: Vec<(u64, u64)> = (l.vtables.0..l.vtables.1)
            .step_by(l.vtable_record_size)
            .map(|at| {
                let start = if l.w64 {
                    le64(le, at + 8)
                } else {
                    u64::from(le32(le, at + 8))
                };
                (start, u64::from(le32(le, at + 8 + ptr)))
            })
            .collect();
        let end_of_all = vt.iter().map(|(s, z)| s + z).max().unwrap_or(0);
        for b in &l.value_blocks {
            for &(_, kind, nsites, counts_at) in &b.kinds {
                let pairs_at = counts_at + nsites as usize + pad8(8 + nsites as usize);
                if kind != 2 {
                    continue;
                }
                let mut p = pairs_at;
                for site in 0..nsites as usize {
                    let n = le[counts_at + site] as usize;
                    for j in 0..n.min(2) {
                        let at = p + 16 * j;
                        let v = le64(le, at);
                        let Some(&(start, size)) = vt.iter().find(|(s, z)| *s <= v && v < s + z)
                        else {
                            continue;
                        };
                        // Vtables are usually adjacent, so "outside" is after the last one.
                        let new = if j == 0 { start + size } else { end_of_all + 1 };
                        if j == 1 && vt.iter().any(|(s, z)| *s <= new && new <= s + z) {
                            continue;
                        }
                        out[at..at + 8].copy_from_slice(&new.to_le_bytes());
                        changed = true;
                    }
                    p += 16 * n;
                }
            }
        }
    }
    changed.then_some(out)
}

/// Converts every file of `producers` (plus the vtable-boundary variants), checks (a) with
/// our binary and (b) with `viewer` showing each of `views`.
fn check(producers: &[&str], viewer: &str, views: &[&[&str]], test: &str) {
    let viewer_tool = tool(viewer, test);
    let dir = tempdir();
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for f in files_of(producers) {
        let producer = f
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let stem = format!("{producer}-{}", f.file_stem().unwrap().to_string_lossy());
        let le = std::fs::read(&f).unwrap();
        if let Some(v) = vtable_boundary_variant(&le) {
            inputs.push((format!("{stem}-vtable-boundaries"), v));
        }
        inputs.push((stem, le));
    }
    let mut n = 0;
    let mut boundary_variants = 0;
    let mut unmatched = 0;
    for (stem, le) in inputs {
        let be = to_big_endian(&le);
        let layouts = walk(&le);
        // The converter's invariants: magic as stored by a big-endian writer, same size, and
        // converting the big-endian file back with the same field list gives the original.
        let magic: &[u8] = if layouts[0].w64 {
            b"\xfflprofr\x81"
        } else {
            b"\xfflprofR\x81"
        };
        for l in &layouts {
            assert_eq!(
                &be[l.start..l.start + 8],
                magic,
                "{stem}: magic of the profile at {:#x}",
                l.start
            );
        }
        let mut back = be.clone();
        for num in numeric_fields(&le) {
            back[num.at..num.at + num.size].reverse();
        }
        assert_eq!(back, le, "{stem}: converting twice is not the identity");

        let le_path = dir.path().join(format!("{stem}-le.profraw"));
        let be_path = dir.path().join(format!("{stem}-be.profraw"));
        std::fs::write(&le_path, &le).unwrap();
        std::fs::write(&be_path, &be).unwrap();

        // (a) our binary: identical .profdata from both byte orders.
        let le_out = dir.path().join(format!("{stem}-le.profdata"));
        let be_out = dir.path().join(format!("{stem}-be.profdata"));
        let o = run_ours([le_path.as_os_str(), "-o".as_ref(), le_out.as_os_str()]);
        assert_ok(&o, &format!("pgo-merge {stem} (little-endian)"));
        let o = run_ours([be_path.as_os_str(), "-o".as_ref(), be_out.as_os_str()]);
        assert_ok(&o, &format!("pgo-merge {stem} (big-endian)"));
        let (a, b) = (
            std::fs::read(&le_out).unwrap(),
            std::fs::read(&be_out).unwrap(),
        );
        assert!(
            a == b,
            "{stem}: .profdata from the big-endian file differs from the little-endian one ({} vs {} bytes)",
            b.len(),
            a.len()
        );

        // (b) llvm-profdata reads both the same way.
        if let Some(t) = &viewer_tool {
            for v in views {
                let x = show(t, v, &le_path);
                let y = show(t, v, &be_path);
                if x.starts_with("FAILED") && x.contains("Unknown command line argument") {
                    continue; // an older tool without this option
                }
                assert!(
                    !x.starts_with("FAILED") || stem.contains("correlate"),
                    "{stem}: {viewer} {v:?} fails on the original: {x}"
                );
                assert_same_text(
                    &x,
                    &y,
                    &format!("{stem}: `{viewer} {}` little- vs big-endian", v.join(" ")),
                );
            }
        }
        // The boundary variants also check our vtable-range rule against LLVM's: the
        // .profdata we write shows like the one llvm-profdata writes.
        if let Some(t) = viewer_tool
            .as_ref()
            .filter(|_| stem.ends_with("-vtable-boundaries"))
        {
            let theirs = dir.path().join(format!("{stem}-llvm.profdata"));
            let o = std::process::Command::new(t)
                .arg("merge")
                .arg("-o")
                .arg(&theirs)
                .arg(&be_path)
                .output()
                .unwrap();
            assert_ok(&o, &format!("{viewer} merge {stem} (big-endian)"));
            assert_same_show(t, &be_out, &theirs, &stem);
            let v = show(t, &["show", "--all-functions", "--show-vtables"], &le_path);
            assert!(
                v.contains("[  0, _ZTV"),
                "{stem}: no vtable value was matched:\n{v}"
            );
            unmatched += usize::from(v.contains("[  0, ,"));
            boundary_variants += 1;
        }
        n += 1;
    }
    if producers
        .iter()
        .any(|p| ["clang19", "clang22", "clang23"].contains(p))
        && viewer_tool.is_some()
    {
        assert!(
            boundary_variants > 0,
            "{test}: no vtable-boundary variant was checked"
        );
        assert!(
            unmatched > 0,
            "{test}: no vtable value was moved outside every vtable"
        );
    }
    eprintln!("{test}: {n} files converted to big-endian and checked");
}

fn assert_same_text(a: &str, b: &str, what: &str) {
    if a == b {
        return;
    }
    let diff = crate::common::differing_lines(a, b, 10, "LE", "BE");
    panic!(
        "{what} differ ({} vs {} lines)\n{}",
        a.lines().count(),
        b.lines().count(),
        diff
    );
}

#[test]
fn big_endian_v10_clang19() {
    check(
        &["clang19"],
        "llvm-profdata-22",
        VIEWS_NEW,
        "big_endian_v10_clang19",
    );
}

#[test]
fn big_endian_v10_clang22() {
    check(
        &["clang22"],
        "llvm-profdata-22",
        VIEWS_NEW,
        "big_endian_v10_clang22",
    );
}

#[test]
fn big_endian_v10_rustc() {
    check(
        &["rustc", "rustc-nightly"],
        "llvm-profdata-22",
        VIEWS_NEW,
        "big_endian_v10_rustc",
    );
}

#[test]
fn big_endian_v11_clang23() {
    check(
        &["clang23"],
        "llvm-profdata-23",
        VIEWS_NEW,
        "big_endian_v11_clang23",
    );
}

/// v8: llvm-profdata-14 maps the indirect-call targets of byte-swapped files wrongly, so only
/// its counts (and memop sizes) are compared; (a) covers the targets.
#[test]
fn big_endian_v8_clang14() {
    check(
        &["clang14"],
        "llvm-profdata-14",
        VIEWS_OLD,
        "big_endian_v8_clang14",
    );
}

/// Beyond the brief: v9 (LLVM 18) files, shown by llvm-profdata-18.
#[test]
fn big_endian_v9_clang18() {
    check(
        &["clang18"],
        "llvm-profdata-18",
        VIEWS_NEW,
        "big_endian_v9_clang18",
    );
}

/// The converter itself on one file, byte by byte where the reference shows the layout: the
/// header words, a record's fields and a value block come out big-endian, strings do not.
#[test]
fn big_endian_converter_swaps_what_it_should() {
    let f = raw("clang22/ir-basic-run1.profraw");
    let le = std::fs::read(&f).unwrap();
    let be = to_big_endian(&le);
    let l = &walk(&le)[0];
    assert_eq!(l.version, 10);
    // Version word 0x010000000000000a, stored big-endian.
    assert_eq!(&be[8..16], &[1, 0, 0, 0, 0, 0, 0, 0x0a]);
    // Binary-ID length 20 big-endian, ID bytes unchanged.
    let (bid, len) = l.binary_id_entries[0];
    assert_eq!(len, 20);
    assert_eq!(&be[bid..bid + 8], &20u64.to_be_bytes());
    assert_eq!(&be[bid + 8..bid + 28], &le[bid + 8..bid + 28]);
    // Names are not swapped.
    assert_eq!(&be[l.names.0..l.names.1], &le[l.names.0..l.names.1]);
    // Record 0: NameRef and NumCounters reversed.
    let r = l.records[0].at;
    assert_eq!(&be[r..r + 8], &le64(&le, r).to_be_bytes());
    let (nc, _) = l.record_field("NumCounters");
    assert_eq!(
        &be[r + nc..r + nc + 4],
        &l.records[0].num_counters.to_be_bytes()
    );
    // First value block: TotalSize big-endian, site-count bytes unchanged.
    let b = &l.value_blocks[0];
    assert_eq!(&be[b.at..b.at + 4], &(b.total as u32).to_be_bytes());
    let (_, _, nsites, counts_at) = b.kinds[0];
    assert_eq!(
        &be[counts_at..counts_at + nsites as usize],
        &le[counts_at..counts_at + nsites as usize]
    );
    // The library sees a big-endian profile with the same records.
    let cache = pgo_merge::frontends::profraw::NameCache::new();
    let a = pgo_merge::frontends::profraw::read(&le, &cache).unwrap();
    let cache = pgo_merge::frontends::profraw::NameCache::new();
    let z = pgo_merge::frontends::profraw::read(&be, &cache).unwrap();
    assert!(
        z.headers[0].encoding.describe().contains("big"),
        "{:?}",
        z.headers[0].encoding
    );
    assert_eq!(a.profile.records.len(), z.profile.records.len());
    for (x, y) in a.profile.records.iter().zip(&z.profile.records) {
        assert_eq!(x.key, y.key);
        assert_eq!(x.counters.to_vec(), y.counters.to_vec());
        assert_eq!(x.values, y.values);
        assert_eq!(x.bitmap, y.bitmap);
    }
}

/// Beyond the brief: v4 (clang 9), v5 (clang 11) and v7 (clang 13), each shown by its own
/// llvm-profdata (counts only, like v8).
#[test]
fn big_endian_v4_v5_v7() {
    check(
        &["clang9"],
        "llvm-profdata-9",
        VIEWS_OLD,
        "big_endian_v4_clang9",
    );
    check(
        &["clang11"],
        "llvm-profdata-11",
        VIEWS_OLD,
        "big_endian_v5_clang11",
    );
    check(
        &["clang13"],
        "llvm-profdata-13",
        VIEWS_OLD,
        "big_endian_v7_clang13",
    );
}
