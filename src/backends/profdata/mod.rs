//! Back-end for LLVM indexed profiles (`.profdata`), index versions 7 to 14.
//!
//! The file is: header (40–72 bytes by version), the profile summary (and a second one for
//! context-sensitive records when the profile is flagged CS), the on-disk chained hash table
//! keyed by function name whose data are the records of that name, then the binary-ID section
//! (v9+), the vtable-names section (v12+) and the temporal-trace section (v10+, temporal
//! profiles only). All integers are little-endian; all offsets absolute.
//!
//! For the same merged records this writer produces the same bytes as `llvm-profdata merge`
//! of the LLVM release asked for ([`ProfdataOptions::llvm`]; LLVM 22/23 otherwise): names are
//! inserted into a table that grows like LLVM's ([`crate::codec::chained_hash`]) in that
//! release's order ([`target`], [`string_map`]), a name's records are ordered like LLVM's
//! `SmallDenseMap` ([`record_order`]), and the summary is recomputed from what is written
//! (`ir::summary`). The one exception is a non-empty vtable-names section, whose zlib bytes and
//! name order depend on LLVM's zlib build and `StringSet` order.
//!
//! The file is always readable by the LLVM that reads its index version: what that version
//! cannot hold (vtable value sites before 12, MC/DC bitmaps before 11, temporal traces before
//! 10, binary IDs before 9, flags the release does not know) is left out with one warning per
//! kind, or refused with [`ProfdataOptions::strict`]. (LLVM's own `--write-prev-version`
//! keeps vtable sites in version 11, which LLVM 18 then cannot read.)

pub mod record_order;
pub mod string_map;
pub mod target;

use std::collections::{HashMap, HashSet};

use crate::bytes::{ByteWriter, Slot, pad8};
use crate::codec::chained_hash;
use crate::codec::summary as codec_summary;
use crate::codec::value_prof_data;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::fx::FxBuildHasher;
use crate::ir::summary::SummaryBuilder;
use crate::ir::{FunctionRecord, Profile, ProfileKind, ValueKind};
use target::{KeyOrder, WriterModel};

/// Oldest index version written.
pub const OLDEST_WRITTEN: u32 = 7;
/// Newest index version written (LLVM 23's).
pub const NEWEST_WRITTEN: u32 = 14;
/// Version written when nothing is asked for: the one `llvm-profdata` 22 writes, read by
/// LLVM 22 and later (and by rustc built on them), and the one clang 22 needs to pick the
/// right hash for front-end profiles.
pub const DEFAULT_VERSION: u32 = 13;

/// Magic of an indexed profile.
pub const MAGIC: u64 = crate::codec::magic::INDEXED_MAGIC;

/// The newest index version LLVM release `llvm_major` reads, if we can write it.
pub fn version_for_llvm(llvm_major: u32) -> Option<u32> {
    match llvm_major {
        12..=14 => Some(7),
        15 => Some(8),
        16 => Some(9),
        17 => Some(10),
        18 => Some(11),
        19..=21 => Some(12),
        22 => Some(13),
        23.. => Some(14),
        _ => None,
    }
}

/// Options of the indexed writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfdataOptions {
    /// Index version, [`OLDEST_WRITTEN`]..=[`NEWEST_WRITTEN`].
    pub version: u32,
    /// Drop names none of whose records has a non-zero counter or bitmap byte.
    pub sparse: bool,
    /// Write the vtable names the inputs carried (`--keep-vtable-symbols`); LLVM writes an
    /// empty vtable-names section otherwise.
    pub keep_vtable_symbols: bool,
    /// Write the records that share a name in the order they come in the profile instead of
    /// LLVM's `SmallDenseMap` order. Re-writing a single indexed file this way reproduces it
    /// byte for byte (LLVM's order is not idempotent when two structural hashes collide).
    pub preserve_record_order: bool,
    /// The LLVM release (major version) whose `llvm-profdata merge` bytes to reproduce; None
    /// writes [`ProfdataOptions::version`] as the current release does.
    pub llvm: Option<u32>,
    /// Refuse, instead of dropping with a warning, what the written version or release cannot
    /// hold.
    pub strict: bool,
}

impl Default for ProfdataOptions {
    fn default() -> Self {
        ProfdataOptions {
            version: DEFAULT_VERSION,
            sparse: false,
            keep_vtable_symbols: false,
            preserve_record_order: false,
            llvm: None,
            strict: false,
        }
    }
}

/// Header size in bytes for an index version.
pub fn header_size(version: u32) -> u64 {
    match version {
        0..=7 => 40,
        8 => 48,
        9 => 56,
        10 | 11 => 64,
        _ => 72,
    }
}

/// The last value kind index `version` holds: vtable targets came with version 12.
fn last_value_kind(version: u32) -> ValueKind {
    if version >= 12 {
        ValueKind::VTable
    } else {
        ValueKind::MemOpSize
    }
}

/// Bytes of one record's data at `version`.
fn record_size(version: u32, r: &FunctionRecord<'_>) -> u64 {
    let mut n = 8 + 8 + 8 * r.counters.len() as u64;
    if version >= 14 {
        // Bitmap bytes packed and padded to 8, then an (empty) uniformity-bit array.
        let b = r.bitmap.len() as u64;
        n += 8 + b + pad8(b) + 8;
    } else if version >= 11 {
        n += 8 + 8 * r.bitmap.len() as u64;
    }
    n + value_prof_data::size_upto(r.values.as_deref(), last_value_kind(version))
}

/// Writes `profile` as an indexed profile.
///
/// Every record's name must be in `profile.names`. Records sharing a key must already be
/// merged. Warnings (e.g. about front-end hash schemes) are returned with the bytes.
pub fn write(profile: &Profile<'_>, opts: &ProfdataOptions) -> Result<(Vec<u8>, Vec<Warning>)> {
    let capacity = 4096
        + profile
            .records
            .iter()
            .map(|r| record_size(opts.version, r) as usize + 48)
            .sum::<usize>();
    let mut w = ByteWriter::with_capacity(capacity);
    let warnings = write_into(profile, opts, &mut w)?;
    Ok((w.into_inner(), warnings))
}

/// Writes `profile` as an indexed profile to `sink`, streamed (about a megabyte in
/// memory at a time; the offsets written before the records are patched by seeking back),
/// so the output is never held in memory whole. Returns the writer's warnings.
pub fn write_to(
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    sink: &mut dyn crate::bytes::SeekWrite,
) -> Result<Vec<Warning>> {
    let mut w = ByteWriter::streaming(sink);
    let warnings = write_into(profile, opts, &mut w)?;
    w.finish().map_err(|e| Error::new(ErrorKind::Io(e)))?;
    Ok(warnings)
}

/// Writes `profile` into `w` (see [`write`]).
fn write_into(
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    w: &mut ByteWriter<'_>,
) -> Result<Vec<Warning>> {
    let version = opts.version;
    if !(OLDEST_WRITTEN..=NEWEST_WRITTEN).contains(&version) {
        return Err(Error::new(ErrorKind::Usage(format!(
            "index version {version} cannot be written: choose {OLDEST_WRITTEN} to {NEWEST_WRITTEN}"
        ))));
    }
    let mut warnings = Vec::new();

    // Group records by name, keeping first-seen order inside a name: sort (name hash,
    // record index) pairs instead of building a map of vectors (a million names are a
    // million allocations and cache misses otherwise).
    let records = &profile.records;
    let mut by_hash: Vec<(u64, u32)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.key.name, i as u32))
        .collect();
    by_hash.sort_unstable();
    let rec = |i: u32| &records[i as usize];
    let mut groups: Vec<Group<'_>> = Vec::new();
    // The first record (in record order) that repeats a key, and the first name missing.
    let mut duplicate: Option<u32> = None;
    let mut missing: Option<(u32, u64)> = None;
    for run in by_hash.chunk_by(|a, b| a.0 == b.0) {
        let h = run[0].0;
        if let Some(i) = first_repeat(run, records)
            && duplicate.is_none_or(|d| i < d)
        {
            duplicate = Some(i);
        }
        match profile.names.get(h).map(|n| &**n) {
            Some(name) => groups.push(Group {
                prefix: name_chunk(name, 0),
                name,
                hash: h,
                records: run,
            }),
            None => {
                if missing.is_none_or(|(m, _)| run[0].1 < m) {
                    missing = Some((run[0].1, h));
                }
            }
        }
    }
    if let Some(i) = duplicate {
        let r = rec(i);
        return Err(Error::new(ErrorKind::Internal(format!(
            "internal error: record {:#x}/{:#x} appears twice; merge before writing",
            r.key.name, r.key.cfg
        ))));
    }
    if let Some((_, h)) = missing {
        return Err(Error::new(ErrorKind::Internal(format!(
            "function with name hash {h:#018x} has no name; indexed profiles are keyed by name"
        ))));
    }
    let model = opts
        .llvm
        .map(WriterModel::for_llvm)
        .unwrap_or_else(WriterModel::current);
    let losses = losses(profile, version, opts.llvm, &model);
    if opts.strict && !losses.is_empty() {
        let what: Vec<String> = losses.iter().map(|(r, w)| format!("{r}: {w}")).collect();
        return Err(Error::new(ErrorKind::KindConflict(format!(
            "{}; not written (--strict-target)",
            what.join("; ")
        ))));
    }
    warnings.extend(
        losses
            .into_iter()
            .map(|(r, w)| Warning::new(format!("{r}: left out {w}"))),
    );

    match model.key_order {
        KeyOrder::Sorted => {
            if opts.sparse {
                groups.retain(|g| !g.records.iter().all(|&(_, i)| rec(i).is_zero()));
            }
            sort_by_name(&mut groups);
        }
        KeyOrder::StringMapDjb => {
            // Names enter LLVM's map when their first record is added: in order of first
            // appearance (a group's first pair has its smallest record index). Names that
            // `--sparse` leaves out were in the map too, so they are dropped after.
            groups.sort_unstable_by_key(|g| g.records[0].1);
            let order = string_map::iteration_order(groups.iter().map(|g| g.name));
            groups = order.into_iter().map(|i| groups[i]).collect();
            if opts.sparse {
                groups.retain(|g| !g.records.iter().all(|&(_, i)| rec(i).is_zero()));
            }
        }
    }
    let mut keys: Vec<(&[u8], u64)> = groups.iter().map(|g| (g.name, g.hash)).collect();

    let temporal = profile.kind.contains(ProfileKind::TEMPORAL) && version >= 10;
    let mut unknown = profile.kind;
    unknown.remove(model.known_flags);
    let mut kind = profile.kind;
    kind.remove(unknown);
    if !temporal {
        kind.remove(ProfileKind::TEMPORAL);
    }
    let cs = kind.contains(ProfileKind::CONTEXT_SENSITIVE);
    if !kind.is_ir() {
        fe_hash_warnings(profile, version, &mut warnings);
    }

    // Header.
    w.u64(MAGIC);
    w.u64(u64::from(version) | kind.indexed_variant_bits());
    w.u64(0); // unused
    w.u64(0); // hash type: MD5
    let hash_slot = w.reserve_u64();
    let memprof_slot = (version >= 8).then(|| w.reserve_u64());
    let binary_ids_slot = (version >= 9).then(|| w.reserve_u64());
    let temporal_slot = (version >= 10).then(|| w.reserve_u64());
    let vtable_slot = (version >= 12).then(|| w.reserve_u64());
    debug_assert_eq!(w.len(), header_size(version));

    // Summaries are back-patched.
    let summary_at = w.len();
    w.zeros(codec_summary::SERIALIZED_SIZE as usize);
    let cs_summary_at = w.len();
    if cs {
        w.zeros(codec_summary::SERIALIZED_SIZE as usize);
    }

    // Hash table payload: LLVM's layout for sorted keys, or the input's own layout.
    let plan = match profile
        .layout
        .as_ref()
        .filter(|_| opts.preserve_record_order)
    {
        Some(l) => match layout_plan(l, &mut keys) {
            Some(p) => p,
            None => sorted_plan(&keys),
        },
        None => sorted_plan(&keys),
    };
    // The group of each key (the layout plan may have reordered the keys).
    let group_of: Vec<usize> = if keys.iter().zip(&groups).all(|(k, g)| k.1 == g.hash) {
        (0..groups.len()).collect()
    } else {
        let pos: HashMap<u64, usize> = groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.hash, i))
            .collect();
        keys.iter()
            .map(|(_, h)| pos.get(h).copied().unwrap_or(0))
            .collect()
    };
    let mut bucket_offsets = vec![0u64; plan.num_buckets()];
    let new_summary = || {
        if model.summary_skips_pseudo {
            SummaryBuilder::new()
        } else {
            SummaryBuilder::counting_pseudo()
        }
    };
    let mut sum = new_summary();
    let mut cs_sum = new_summary();
    // The groups in emission order (bucket after bucket). Buckets follow the name hashes,
    // so consecutive groups, their records, counters and names lie far apart in memory:
    // walking this sequence lets the loop below prefetch what it will write a few keys ahead
    // instead of waiting for a cache miss per key (and per record, counter run and name).
    let mut seq: Vec<u32> = Vec::with_capacity(keys.len());
    for b in 0..plan.num_buckets() {
        seq.extend(
            plan.bucket(b)
                .iter()
                .map(|&item| group_of.get(item as usize).map_or(u32::MAX, |&g| g as u32)),
        );
    }
    let group_at = |p: usize| seq.get(p).and_then(|&gi| groups.get(gi as usize));
    let look_ahead = |p: usize| {
        if let Some(g) = group_at(p + 24) {
            prefetch(g);
        }
        if let Some(g) = group_at(p + 16) {
            prefetch(g.name.as_ptr());
            prefetch(g.records.as_ptr());
        }
        if let Some(g) = group_at(p + 8) {
            for &(_, i) in g.records {
                prefetch(rec(i));
            }
        }
        if let Some(g) = group_at(p + 4) {
            for &(_, i) in g.records {
                prefetch_record_data(rec(i));
            }
        }
    };
    let mut pos = 0usize;
    let mut recs: Vec<&FunctionRecord<'_>> = Vec::new();
    let mut cfgs: Vec<u64> = Vec::new();
    let mut ordered: Vec<usize> = Vec::new();
    for (b, offset) in bucket_offsets.iter_mut().enumerate() {
        let items = plan.bucket(b);
        if items.is_empty() {
            continue;
        }
        *offset = w.len();
        w.u16(items.len() as u16);
        for &item in items {
            look_ahead(pos);
            pos += 1;
            let (name, h) = keys[item as usize];
            let Some(g) = group_of.get(item as usize).and_then(|&gi| groups.get(gi)) else {
                continue;
            };
            recs.clear();
            recs.extend(g.records.iter().map(|&(_, i)| rec(i)));
            ordered.clear();
            if opts.preserve_record_order || recs.len() == 1 {
                ordered.extend(0..recs.len());
            } else {
                cfgs.clear();
                cfgs.extend(recs.iter().map(|r| r.key.cfg));
                ordered.extend(record_order::order(&cfgs, model.record_hash));
            }
            let data_len: u64 = recs.iter().map(|r| record_size(version, r)).sum();
            w.u64(h);
            w.u64(name.len() as u64);
            w.u64(data_len);
            w.bytes(name);
            for &i in &ordered {
                let r = recs[i];
                if r.key.is_context_sensitive() {
                    cs_sum.add_record(r.counters.iter());
                } else {
                    sum.add_record(r.counters.iter());
                }
                write_record(w, version, r);
                check_duplicate_values(r, name, &mut warnings);
            }
        }
    }
    w.align8();
    let table_at = w.len();
    w.u64(plan.num_buckets() as u64);
    w.u64(keys.len() as u64);
    for off in &bucket_offsets {
        w.u64(*off);
    }

    // Binary IDs (v9+), sorted and deduplicated as LLVM does.
    let mut binary_ids_at = 0;
    if version >= 9 {
        binary_ids_at = w.len();
        let mut ids: Vec<&Vec<u8>> = profile.binary_ids.iter().collect();
        ids.sort();
        ids.dedup();
        let size: u64 = ids
            .iter()
            .map(|b| 8 + b.len() as u64 + pad8(b.len() as u64))
            .sum();
        w.u64(size);
        for id in ids {
            w.u64(id.len() as u64);
            w.bytes(id);
            w.zeros(pad8(id.len() as u64) as usize);
        }
    }

    // Vtable names (v12+).
    let mut vtable_at = 0;
    if version >= 12 {
        vtable_at = w.len();
        let blob = if opts.keep_vtable_symbols && !profile.vtable_names.is_empty() {
            let mut names: Vec<&[u8]> = profile.vtable_names.iter().map(|(_, n)| &**n).collect();
            names.sort_unstable();
            crate::codec::names_blob::encode(names, true)
        } else {
            Vec::new()
        };
        w.u64(blob.len() as u64);
        w.bytes(&blob);
        w.align8();
    }

    // Temporal traces (v10+).
    let mut temporal_at = 0;
    if temporal {
        temporal_at = w.len();
        let t = &profile.temporal;
        w.u64(t.traces.len() as u64);
        w.u64(t.stream_size);
        for tr in &t.traces {
            w.u64(tr.weight);
            w.u64(tr.functions.len() as u64);
            for f in &tr.functions {
                w.u64(*f);
            }
        }
    }

    // Back-patch.
    w.patch_u64(hash_slot, table_at);
    patch(w, memprof_slot, 0);
    patch(w, binary_ids_slot, binary_ids_at);
    patch(w, temporal_slot, temporal_at);
    patch(w, vtable_slot, vtable_at);
    let mut sw = ByteWriter::new();
    codec_summary::write(&sum.finish(), &mut sw);
    w.patch_bytes(summary_at, sw.as_slice());
    if cs {
        let mut sw = ByteWriter::new();
        codec_summary::write(&cs_sum.finish(), &mut sw);
        w.patch_bytes(cs_summary_at, sw.as_slice());
    }
    Ok(warnings)
}

/// The first record of `run` (records of one name, in record order) whose structural hash
/// an earlier record of the run has. A set, not a scan of the earlier ones: a profile may
/// hold a hundred thousand records of one name (one per hash), which a scan makes quadratic.
fn first_repeat(run: &[(u64, u32)], records: &[FunctionRecord]) -> Option<u32> {
    let cfg = |i: u32| records[i as usize].key.cfg;
    if run.len() <= 8 {
        return run
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(k, &(_, i))| run[..k].iter().any(|&(_, j)| cfg(j) == cfg(i)).then_some(i));
    }
    let mut seen: HashSet<u64, FxBuildHasher> =
        HashSet::with_capacity_and_hasher(run.len(), FxBuildHasher);
    run.iter()
        .find(|&&(_, i)| !seen.insert(cfg(i)))
        .map(|&(_, i)| i)
}

/// One (reason, what) pair per kind of content that index `version` (or LLVM release `llvm`,
/// per `model`) cannot hold: why, and what and how much that is; empty if nothing is lost.
fn losses(
    profile: &Profile<'_>,
    version: u32,
    llvm: Option<u32>,
    model: &WriterModel,
) -> Vec<(String, String)> {
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let target = match llvm {
        Some(m) => format!("LLVM {m} (index version {version})"),
        None => format!("index version {version}"),
    };
    let mut out = Vec::new();
    if version < 12 {
        let (mut funcs, mut sites, mut values) = (0u64, 0u64, 0u64);
        for r in &profile.records {
            let Some(v) = &r.values else { continue };
            let s = v.kind(ValueKind::VTable);
            if !s.is_empty() {
                funcs += 1;
                sites += s.len() as u64;
                values += s.iter().map(|x| x.values.len() as u64).sum::<u64>();
            }
        }
        if funcs > 0 {
            out.push((
                format!("{target} cannot hold vtable value profiles (index version 12 and later)"),
                format!(
                    "{} ({}) of {}",
                    plural(sites, "vtable value site", "vtable value sites"),
                    plural(values, "value", "values"),
                    plural(funcs, "function", "functions")
                ),
            ));
        }
    }
    if version < 11 {
        let (mut funcs, mut bytes) = (0u64, 0u64);
        for r in profile.records.iter().filter(|r| !r.bitmap.is_empty()) {
            funcs += 1;
            bytes += r.bitmap.len() as u64;
        }
        if funcs > 0 {
            out.push((
                format!("{target} cannot hold MC/DC bitmaps (index version 11 and later)"),
                format!(
                    "the bitmaps of {} ({})",
                    plural(funcs, "function", "functions"),
                    plural(bytes, "byte", "bytes")
                ),
            ));
        }
    }
    if version < 10 && profile.kind.contains(ProfileKind::TEMPORAL) {
        out.push((
            format!("{target} cannot hold temporal traces (index version 10 and later)"),
            format!(
                "{} and the temporal flag",
                plural(profile.temporal.traces.len() as u64, "trace", "traces")
            ),
        ));
    }
    if version < 9 && !profile.binary_ids.is_empty() {
        let mut ids: Vec<&Vec<u8>> = profile.binary_ids.iter().collect();
        ids.sort();
        ids.dedup();
        out.push((
            format!("{target} cannot hold binary IDs (index version 9 and later)"),
            plural(ids.len() as u64, "binary ID", "binary IDs"),
        ));
    }
    let mut unknown = profile.kind;
    unknown.remove(model.known_flags);
    unknown.remove(
        ProfileKind::TEMPORAL
            .union(ProfileKind::MEMPROF)
            .union(ProfileKind::DEBUG_INFO_CORRELATE),
    );
    if unknown != ProfileKind::empty() {
        let names = unknown.names();
        let flags = if names.len() == 1 { "flag" } else { "flags" };
        out.push((
            format!(
                "{target} does not know the profile {flags} {}",
                names.join(", ")
            ),
            format!("the {flags}"),
        ));
    }
    out
}

/// One name's records: (name hash, record index) pairs, in record order.
#[derive(Clone, Copy)]
struct Group<'p> {
    /// 8 bytes of the name, big-endian, zero-padded, with how many bytes are left from there
    /// (see [`name_chunk`]): the first 8 when the groups are made; [`sort_by_name`] moves
    /// it along the name.
    prefix: (u64, u8),
    name: &'p [u8],
    hash: u64,
    records: &'p [(u64, u32)],
}

/// The top 4 bits of a function hash in a front-end profile. Clang 22 and later reserve
/// them (bit 60 marks context-sensitive records) and clear them in the hashes they compute
/// when the profile's index version is 13 or later; clang 21 and earlier, and clang 22
/// reading a version-12 profile, compute MD5-based hashes for larger functions, which use
/// all 64 bits. A front-end profile made by one scheme and read under the other does not
/// match those functions. Other producers of front-end records hash functions their own way:
/// rustc's coverage instrumentation (`-C instrument-coverage`) stores its 64-bit source
/// hashes, which only llvm-cov reads and matches as they are, so functions with Rust symbol
/// names are left out.
fn fe_hash_warnings(profile: &Profile<'_>, version: u32, warnings: &mut Vec<Warning>) {
    let clang: Vec<&FunctionRecord<'_>> = profile
        .records
        .iter()
        .filter(|r| {
            !profile
                .names
                .get(r.key.name)
                .is_some_and(|n| is_rust_symbol(n))
        })
        .collect();
    let wide: Vec<&&FunctionRecord<'_>> = clang.iter().filter(|r| r.key.cfg >> 60 != 0).collect();
    if version < 13 {
        if wide.is_empty() && !clang.is_empty() {
            warnings.push(Warning::new(format!(
                "front-end profile written as index version {version}: clang 22 and later then \
                 hash functions with the older scheme; if this profile came from clang 22 or \
                 later, write version 13 (--target-llvm 22)"
            )));
        }
    } else if let Some(first) = wide.first() {
        let name = profile
            .names
            .get(first.key.name)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_else(|| format!("{:#018x}", first.key.name));
        warnings.push(Warning::new(format!(
            "front-end profile: {} of {} functions (e.g. {name}) have hashes that use the top \
             4 bits, which clang 22 and later reserve; they were made by clang 21 or earlier, \
             and clang 22 reading index version {version} will not match them: use \
             --target-llvm 19 (version 12) for such profiles",
            wide.len(),
            clang.len(),
        )));
    }
}

/// True for a Rust symbol name: v0 mangling (`_R` then a tag or version digit) or legacy
/// mangling (`_ZN…17h` + 16 hex digits + `E`). A `file;` prefix (local functions) is
/// skipped.
fn is_rust_symbol(name: &[u8]) -> bool {
    let name = name.rsplit(|&b| b == b';').next().unwrap_or(name);
    if let Some(rest) = name.strip_prefix(b"_R") {
        return rest
            .first()
            .is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    }
    name.starts_with(b"_ZN")
        && name.len() > 23
        && name.ends_with(b"E")
        && name[name.len() - 20..name.len() - 17] == *b"17h"
        && name[name.len() - 17..name.len() - 1]
            .iter()
            .all(u8::is_ascii_hexdigit)
}

/// The 8 bytes of `name` from `depth` on (big-endian, zero-padded) and the number of bytes
/// left from `depth`, capped at 9 (= more follow). Ordering names that agree before `depth`
/// by this pair orders them as bytes would, except that names equal in it with 9 are not
/// yet told apart.
fn name_chunk(name: &[u8], depth: usize) -> (u64, u8) {
    let rest = name.get(depth..).unwrap_or(&[]);
    // A whole chunk is one load; a copy of a variable length would be a call to `memmove`
    // per name (a tenth of a million-name write).
    let chunk = match rest.first_chunk::<8>() {
        Some(b) => *b,
        None => {
            let mut b = [0u8; 8];
            for (d, s) in b.iter_mut().zip(rest) {
                *d = *s;
            }
            b
        }
    };
    (u64::from_be_bytes(chunk), rest.len().min(9) as u8)
}

/// Sorts groups by name, 8 bytes at a time (a multikey radix sort): each pass sorts by the
/// chunk held in the groups, then moves the chunk 8 bytes on in the runs still tied and
/// sorts those. A million names are otherwise ~20 million comparisons, each following two
/// pointers to names scattered over memory; this reads each name once per 8 bytes of prefix
/// it shares with another.
fn sort_by_name(groups: &mut [Group<'_>]) {
    let mut todo: Vec<(usize, usize, usize)> = vec![(0, groups.len(), 0)];
    while let Some((start, end, depth)) = todo.pop() {
        let run = &mut groups[start..end];
        if depth > 0 {
            for g in run.iter_mut() {
                g.prefix = name_chunk(g.name, depth);
            }
        }
        run.sort_unstable_by_key(|g| g.prefix);
        let mut i = 0;
        while i < run.len() {
            let p = run[i].prefix;
            let mut j = i + 1;
            while j < run.len() && run[j].prefix == p {
                j += 1;
            }
            // Tied with more bytes to come: names equal so far, go on 8 bytes further.
            if j - i > 1 && p.1 == 9 {
                todo.push((start + i, start + j, depth + 8));
            }
            i = j;
        }
    }
}

fn sorted_plan(keys: &[(&[u8], u64)]) -> chained_hash::BucketPlan {
    let hashes: Vec<u64> = keys.iter().map(|(_, h)| *h).collect();
    chained_hash::plan(&hashes)
}

/// The bucket plan of an input's table layout, with `keys` reordered to the layout's order.
/// None if the layout does not describe exactly these keys in bucket order.
fn layout_plan(
    l: &crate::ir::TableLayout,
    keys: &mut Vec<(&[u8], u64)>,
) -> Option<chained_hash::BucketPlan> {
    if l.keys.len() != keys.len() || l.num_buckets == 0 || !l.num_buckets.is_power_of_two() {
        return None;
    }
    let pos: HashMap<u64, usize> = keys.iter().enumerate().map(|(i, (_, h))| (*h, i)).collect();
    if pos.len() != keys.len() {
        return None;
    }
    let mut ordered = Vec::with_capacity(keys.len());
    let mask = l.num_buckets - 1;
    let mut pairs = Vec::with_capacity(keys.len());
    for (i, h) in l.keys.iter().enumerate() {
        ordered.push(keys[*pos.get(h)?]);
        pairs.push((usize::try_from(h & mask).ok()?, i as u32));
    }
    let plan = chained_hash::BucketPlan::from_sorted(usize::try_from(l.num_buckets).ok()?, pairs)?;
    *keys = ordered;
    Some(plan)
}

/// Asks the CPU to bring the cache line holding `p` closer, without waiting for it. Only a
/// hint: no memory is read, so any address is allowed (a no-op off x86-64).
#[inline(always)]
fn prefetch<T: ?Sized>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch does not access memory and cannot fault, whatever the address;
        // SSE is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetches the start of a record's counters (the first two cache lines: most records have
/// fewer than 16 counters) and its value profile.
#[inline(always)]
fn prefetch_record_data(r: &FunctionRecord<'_>) {
    let start: *const u8 = match &r.counters {
        crate::ir::Counters::Raw64 { bytes, .. } => bytes.as_ptr(),
        c => match c.in_memory() {
            Some(v) => v.as_ptr().cast(),
            None => return,
        },
    };
    prefetch(start);
    prefetch(start.wrapping_add(64));
    if let Some(v) = r.values.as_deref() {
        prefetch(v);
    }
}

fn patch(w: &mut ByteWriter, slot: Option<Slot>, v: u64) {
    if let Some(s) = slot {
        w.patch_u64(s, v);
    }
}

fn write_record(w: &mut ByteWriter, version: u32, r: &FunctionRecord<'_>) {
    w.u64(r.key.cfg);
    w.u64(r.counters.len() as u64);
    for c in r.counters.iter() {
        w.u64(c);
    }
    if version >= 14 {
        w.u64(r.bitmap.len() as u64);
        w.bytes(&r.bitmap);
        w.zeros(pad8(r.bitmap.len() as u64) as usize);
        // Uniformity bits (GPU offload profiles) are not carried: none.
        w.u64(0);
    } else if version >= 11 {
        w.u64(r.bitmap.len() as u64);
        for &b in r.bitmap.iter() {
            w.u64(u64::from(b));
        }
    }
    value_prof_data::write_upto(w, r.values.as_deref(), last_value_kind(version));
}

/// LLVM's `validateRecord`: a mem-op site must not list a value twice.
fn check_duplicate_values(r: &FunctionRecord<'_>, name: &[u8], warnings: &mut Vec<Warning>) {
    let Some(v) = &r.values else { return };
    for s in v.kind(crate::ir::ValueKind::MemOpSize) {
        let mut vals: Vec<u64> = s.values.iter().map(|x| x.value).collect();
        vals.sort_unstable();
        if vals.windows(2).any(|p| p[0] == p[1]) {
            warnings.push(
                Warning::new(
                    "a memory-operation value site lists the same size twice (llvm-profdata \
                     reports this as an invalid profile)",
                )
                .in_function(String::from_utf8_lossy(name)),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Just;

    proptest::proptest! {
        /// The chunked sort orders names as a byte-wise sort does, including names that are
        /// prefixes of others, share long prefixes or hold zero bytes.
        #[test]
        fn sort_by_name_is_bytewise(names in proptest::collection::btree_set(
            proptest::collection::vec(proptest::prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(0xffu8)], 0..20),
            0..200,
        )) {
            let names: Vec<Vec<u8>> = names.into_iter().rev().collect();
            let mut groups: Vec<Group<'_>> = names
                .iter()
                .enumerate()
                .map(|(i, n)| Group { prefix: name_chunk(n, 0), name: n, hash: i as u64, records: &[] })
                .collect();
            sort_by_name(&mut groups);
            let mut want: Vec<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
            want.sort();
            let got: Vec<&[u8]> = groups.iter().map(|g| g.name).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
