//! Supplementing an instrumentation profile with a sample profile (llvm-profdata's
//! `merge --supplement-instr-with-sample`).
//!
//! An instrumentation profile taken on a training run that does not represent production
//! leaves functions cold that production runs hot. A sample profile of production tells
//! which: every function that is at least warm in the sample profile (its largest flattened
//! count reaches the sample profile's cold threshold, cutoff 999999) but cold in the
//! instrumentation profile (its largest counter is at most the instrumentation cold
//! threshold), with at least `min_size` counters and one record under its name, is changed:
//! - if its counters are all zero, or more than `zero_counter_threshold` of them are zero,
//!   its first counter becomes a pseudo count (hot: 2^64−1 when the sample count reaches the
//!   sample hot threshold, cutoff 990000; else warm: 2^64−2), which tells the compiler to
//!   drop the counts and mark the function hot or warm;
//! - else its counters (and value-profile counts) are scaled by `3 × threshold / max`
//!   (threshold: the instrumentation hot threshold for hot functions, else the cold one),
//!   when that scales up.
//!
//! Sample-profile names are matched to instrumentation names directly, or, for a local
//! (static) function recorded as `file.c;name`, through its plain name (with the
//! `.__uniq.` suffix of `-funique-internal-linkage-names` added or removed when only one
//! profile has such suffixes). Inlined instances count towards the function they were
//! inlined into unless they have a record of their own. This follows `adjustInstrProfile` in
//! llvm-profdata (the same in LLVM 19, 22 and 23), including its quirks: a warm function is
//! scaled towards `3 ×` the cold threshold even when that exceeds the hot threshold, and a
//! top-level sample profile with no instrumentation record adds no entry count.

use std::collections::HashMap;

use crate::error::Warning;
use crate::ir::function::{Counters, MAX_COUNT, PSEUDO_HOT, PSEUDO_WARM};
use crate::ir::sample::{FunctionId, FunctionSamples, SampleProfile};
use crate::ir::summary::{Summary, SummaryBuilder};
use crate::ir::{Name, Profile};

pub use super::supplement_options::SupplementOptions;

/// What supplementing changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupplementReport {
    /// Functions whose counts were replaced by a pseudo count.
    pub pseudo: usize,
    /// Functions whose counts were scaled up.
    pub scaled: usize,
    /// Warnings (static names shared by several functions, saturated counts), in order.
    pub warnings: Vec<Warning>,
}

/// llvm-profdata's percentile indices into the default cutoffs: 990000 and 999999.
const HOT_CUTOFF: u32 = 990_000;
const COLD_CUTOFF: u32 = 999_999;
/// llvm-profdata's marker of a static name shared by several functions.
const DUPLICATE: &[u8] = b"----";
/// What `-funique-internal-linkage-names` appends (then a decimal MD5 of the file name).
const UNIQ_SUFFIX: &[u8] = b".__uniq.";

/// One instrumentation function that may be adjusted: its record and counter facts.
struct Entry {
    record: usize,
    max_count: u64,
    counters: usize,
    zero_ratio: f32,
}

/// Adjusts `profile` (one merged instrumentation profile) with `samples`, whose summary as
/// its reader has it is `sample_summary`.
pub fn supplement(
    profile: &mut Profile<'_>,
    samples: &SampleProfile,
    sample_summary: &Summary,
    opts: &SupplementOptions,
) -> SupplementReport {
    let (entries, instr_summary) = instr_entries(profile);
    let statics = static_names(&entries, sample_has_unique_names(samples));
    let flat = flatten(samples, &entries, &statics);
    let hot_sample = threshold(sample_summary, HOT_CUTOFF);
    let cold_sample = threshold(sample_summary, COLD_CUTOFF);
    let hot_instr = threshold(&instr_summary, HOT_CUTOFF);
    let cold_instr = match opts.instr_cold_threshold {
        0 => threshold(&instr_summary, COLD_CUTOFF),
        n => u64::from(n),
    };
    let mut report = SupplementReport::default();
    let mut names: Vec<&Name> = flat.keys().collect();
    names.sort();
    for name in names {
        let (entry_samples, max_body) = flat[name];
        let sample_max = entry_samples.max(max_body);
        if sample_max < cold_sample {
            continue;
        }
        let target = match entries.get(name) {
            Some(e) => Some(e),
            None => match statics.get(name) {
                Some(t) if &t[..] == DUPLICATE => {
                    report.warnings.push(Warning::new(format!(
                        "Static function {} has multiple promoted names, cannot adjust profile.",
                        String::from_utf8_lossy(name)
                    )));
                    None
                }
                Some(t) => entries.get(t),
                None => None,
            },
        };
        let Some(e) = target else { continue };
        if e.max_count > cold_instr || e.counters < opts.min_size as usize {
            continue;
        }
        let hot = sample_max >= hot_sample;
        adjust(profile, e, hot, hot_instr, cold_instr, opts, &mut report);
    }
    report
}

/// The functions with exactly one record (by name), and the summary of all records.
fn instr_entries(profile: &Profile<'_>) -> (HashMap<Name, Entry>, Summary) {
    let mut builder = SummaryBuilder::new();
    let mut per_name: HashMap<u64, (usize, usize)> = HashMap::new();
    for (i, r) in profile.records.iter().enumerate() {
        builder.add_record(r.counters.iter());
        let slot = per_name.entry(r.key.name).or_insert((i, 0));
        slot.1 += 1;
    }
    let mut entries = HashMap::new();
    for (hash, (i, n)) in per_name {
        let Some(name) = profile.names.get(hash) else {
            continue;
        };
        if n != 1 {
            continue;
        }
        let counters = &profile.records[i].counters;
        let len = counters.len();
        let (mut max, mut zeros) = (0u64, 0u64);
        for c in counters.iter() {
            max = max.max(c);
            zeros += u64::from(c == 0);
        }
        let entry = Entry {
            record: i,
            max_count: max,
            counters: len,
            zero_ratio: zeros as f32 / len as f32,
        };
        entries.insert(name.clone(), entry);
    }
    (entries, builder.finish())
}

/// True if any context of `samples` names a function with a `.__uniq.` suffix.
fn sample_has_unique_names(samples: &SampleProfile) -> bool {
    let mut text = Vec::new();
    samples.functions.keys().any(|c| {
        text.clear();
        c.write_to(&mut text);
        find(&text, UNIQ_SUFFIX).is_some()
    })
}

/// Plain names of local functions (`file.c;name`) → their instrumentation names
/// ([`DUPLICATE`] when several share one).
fn static_names(entries: &HashMap<Name, Entry>, sample_unique: bool) -> HashMap<Name, Name> {
    let mut names: Vec<&Name> = entries.keys().collect();
    // Sorted, so that which of two conflicting unique-suffix mappings wins is fixed.
    names.sort();
    let mut map: HashMap<Name, Name> = HashMap::new();
    for full in names {
        let Some(start) = local_name_start(full) else {
            continue;
        };
        let plain = &full[start..];
        if plain.is_empty() {
            continue;
        }
        let file = &full[..start - 1];
        let uniq_at = find(plain, UNIQ_SUFFIX);
        let key: Name = match (uniq_at, sample_unique) {
            (Some(at), false) => Name::from(&plain[..at]),
            (None, true) => {
                let mut k = plain.to_vec();
                k.extend_from_slice(&unique_suffix(file));
                map.insert(Name::from(k), full.clone());
                continue;
            }
            _ => Name::from(plain),
        };
        match map.get_mut(&key) {
            Some(v) => *v = Name::from(DUPLICATE),
            None => {
                map.insert(key, full.clone());
            }
        }
    }
    map
}

/// Where the function name of `file;name` starts: after the first of `.cpp;`, `cc;`, `.c;`,
/// `.hpp;`, `.h;` (tried in this order, case-insensitively) that the name contains.
fn local_name_start(name: &[u8]) -> Option<usize> {
    let lower = name.to_ascii_lowercase();
    for ext in [&b".cpp;"[..], b"cc;", b".c;", b".hpp;", b".h;"] {
        if let Some(at) = find(&lower, ext) {
            return Some(at + ext.len());
        }
    }
    None
}

/// `.__uniq.` and the MD5 of `file` as a decimal number (the digest read big-endian).
fn unique_suffix(file: &[u8]) -> Vec<u8> {
    let digest = md5::compute(file).0;
    let mut out = UNIQ_SUFFIX.to_vec();
    out.extend_from_slice(u128::from_be_bytes(digest).to_string().as_bytes());
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Per instrumentation name (or unmatched sample name): the summed entry-count estimates
/// and the largest body count, inlined instances folded into the function they belong to.
fn flatten(
    samples: &SampleProfile,
    entries: &HashMap<Name, Entry>,
    statics: &HashMap<Name, Name>,
) -> HashMap<Name, (u64, u64)> {
    let mut flat = HashMap::new();
    let cs = samples.flags.context_sensitive;
    for f in samples.functions.values() {
        let root = id_name(&f.name);
        flatten_into(f, &root, cs, entries, statics, &mut flat);
    }
    flat
}

fn flatten_into(
    f: &FunctionSamples,
    root: &Name,
    cs: bool,
    entries: &HashMap<Name, Entry>,
    statics: &HashMap<Name, Name>,
    flat: &mut HashMap<Name, (u64, u64)>,
) {
    let name = id_name(&f.name);
    let mut entry_samples = f.head_samples_estimate(cs);
    let max_body = f.max_count_inside(true);
    let root = if entries.contains_key(&name) {
        name
    } else {
        match statics.get(&name) {
            Some(t) if &t[..] != DUPLICATE => t.clone(),
            Some(_) => root.clone(),
            None => {
                // An inlined instance without a record of its own: no entry count.
                entry_samples = 0;
                root.clone()
            }
        }
    };
    let slot = flat.entry(root.clone()).or_insert((0u64, 0u64));
    slot.0 = slot.0.wrapping_add(entry_samples);
    slot.1 = slot.1.max(max_body);
    for site in f.callsites.values() {
        for callee in site.values() {
            crate::bytes::stack::deep(|| flatten_into(callee, &root, cs, entries, statics, flat));
        }
    }
}

/// A sample function's name as llvm-profdata spells it (an MD5 name as its decimal hash).
fn id_name(id: &FunctionId) -> Name {
    let mut v = Vec::new();
    id.write_to(&mut v);
    Name::from(v)
}

/// The minimum count at `cutoff` of a summary (0 without counts: what llvm-profdata 19–23
/// use then, having an entry of count 0 at every cutoff).
fn threshold(s: &Summary, cutoff: u32) -> u64 {
    s.detailed
        .iter()
        .find(|e| e.cutoff >= cutoff)
        .map_or(0, |e| e.min_count)
}

/// `updateInstrProfileEntry`: a pseudo count, or counts scaled above the threshold.
fn adjust(
    profile: &mut Profile<'_>,
    e: &Entry,
    hot: bool,
    hot_instr: u64,
    cold_instr: u64,
    opts: &SupplementOptions,
    report: &mut SupplementReport,
) {
    let record = &mut profile.records[e.record];
    let mut counts = record.counters.to_vec();
    if counts.is_empty() {
        // Not in a valid profile (every record has a counter); nothing to mark.
        return;
    }
    if e.max_count == 0 || e.zero_ratio > opts.zero_counter_threshold {
        counts[0] = if hot { PSEUDO_HOT } else { PSEUDO_WARM };
        record.counters = Counters::Owned(counts);
        report.pseudo += 1;
        return;
    }
    let target = if hot { hot_instr } else { cold_instr };
    let numerator = target.saturating_mul(3);
    let denominator = e.max_count;
    if numerator <= denominator {
        return;
    }
    let mut overflowed = false;
    for c in counts.iter_mut() {
        let (product, over) = match c.checked_mul(numerator) {
            Some(p) => (p, false),
            None => (u64::MAX, true),
        };
        *c = product / denominator;
        if *c > MAX_COUNT {
            *c = MAX_COUNT;
            overflowed = true;
        }
        overflowed |= over;
    }
    record.counters = Counters::Owned(counts);
    if let Some(values) = record.values.as_mut() {
        for sites in values.sites.iter_mut() {
            for site in sites.iter_mut() {
                for v in site.values.iter_mut() {
                    let (product, over) = match v.count.checked_mul(numerator) {
                        Some(p) => (p, false),
                        None => (u64::MAX, true),
                    };
                    v.count = product / denominator;
                    overflowed |= over;
                }
            }
        }
    }
    if overflowed {
        report.warnings.push(Warning {
            function: Some(profile.display_name(profile.records[e.record].key.name)),
            ..Warning::new("counter overflow")
        });
    }
    report.scaled += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_names_split_after_the_first_listed_extension() {
        fn at(n: &str) -> Option<&str> {
            local_name_start(n.as_bytes()).map(|i| &n[i..])
        }
        assert_eq!(at("a.c;f"), Some("f"));
        assert_eq!(at("dir/A.CPP;f"), Some("f"));
        // `cc;` has no dot: `x.cc;f` and even `xcc;f` split there.
        assert_eq!(at("xcc;f"), Some("f"));
        // `.cpp;` is tried before `.c;`, whatever comes first in the name.
        assert_eq!(at("a.c;b.cpp;f"), Some("f"));
        assert_eq!(at("main"), None);
        assert_eq!(at("a.rs;f"), None);
    }

    #[test]
    fn unique_suffix_is_the_decimal_md5_of_the_file_name() {
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e.
        let want = format!(".__uniq.{}", 0xd41d8cd98f00b204e9800998ecf8427e_u128);
        assert_eq!(unique_suffix(b""), want.as_bytes());
    }
}
