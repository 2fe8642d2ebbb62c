//! Weighted merge of sample profiles, as `llvm-profdata merge --sample` merges them.
//!
//! Inputs are folded in order into one profile ([`SampleMerger`]): each top-level profile
//! is merged into the profile of the same context
//! ([`crate::ir::sample::FunctionSamples::merge_from`], LLVM's `FunctionSamples::merge`):
//! every count is multiplied by the input's weight and added,
//! saturating at `u64::MAX`. The first input to bring a function sets its checksum (if
//! non-zero) and attributes; a later one whose checksum differs is not merged at all (LLVM's
//! "Function hash mismatch"), at top level or for one inlined callee. Both cases are
//! reported and the merge goes on, as in LLVM.
//!
//! Profiles are matched as LLVM's `SampleProfileMap` matches them: by the 64-bit key it
//! stores a profile under (the MD5 of a function's name, or the hash of a calling context's
//! frames; [`sample_map_key`]), not by spelling. So a function read by name from one input
//! and as the MD5 of that name from another (`--use-md5` files) is one profile: the first
//! input to bring it decides the key and the name that is written (a hash stays a hash), the
//! later one is merged into it. Inlined callees and call targets are not keyed that way in
//! LLVM (they are ordered maps of `FunctionId`, where a name never equals a hash), so there a
//! name and its hash stay apart. LLVM 23 hashes the names of context frames with
//! `std::hash` rather than MD5, so in its context-sensitive maps a context of names and the
//! same context of hashes are two keys, and stay two profiles.
//!
//! A context-sensitive input cannot be merged with a flat or nested one, nor a probe-based
//! input with one that is not: that is an error, as in LLVM.

use std::collections::HashMap;

use crate::codec::llvm_hash::ContextHash;
use crate::codec::unordered_order::{iteration_order, merged_insertion_order, sample_map_key};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::Weight;
use crate::ir::fx::{FxBuildHasher, FxHashSet};
use crate::ir::name_hash::md5_hash;
pub use crate::ir::sample::MergeIssueKind as IssueKind;
use crate::ir::sample::flat::{FlatKey, FlatName};
use crate::ir::sample::{
    ContextFrame, FlatSampleProfile, FunctionId, FunctionSamples, SampleContext, SampleFlags,
    SampleFormat, SampleProfile,
};
use crate::ir::symbols::Name;
use crate::passes::remap::Remapping;

/// A problem met while merging one function, reported as LLVM reports it
/// (`INPUT: FUNCTION: message`) and not fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeIssue {
    /// Index of the input in the order inputs were added.
    pub input: usize,
    /// The top-level context concerned.
    pub context: SampleContext,
    /// What happened.
    pub kind: IssueKind,
}

/// Folds weighted sample profiles, in order, into one.
#[derive(Debug, Default)]
pub struct SampleMerger {
    profile: SampleProfile,
    inputs: usize,
    issues: Vec<MergeIssue>,
    names: NameTable,
    /// LLVM's map key of each top-level profile of the merge → the context it was first
    /// inserted under (the key of `profile.functions`). A later input's profile with that
    /// key is merged into that one, whatever its spelling.
    by_key: HashMap<u64, SampleContext, FxBuildHasher>,
}

/// The names of a merge, each kept once, and the mapping of the current flat input's name
/// table onto them.
#[derive(Debug, Default)]
struct NameTable {
    /// Every plain name met, as an index into `known`.
    plain: HashMap<Name, usize, FxBuildHasher>,
    /// Per plain name met: the name, its MD5 (LLVM's map key), and the last flat input that
    /// named it.
    known: Vec<(FunctionId, u64, u64)>,
    /// The last flat input that named each MD5 name.
    md5: HashMap<u64, u64, FxBuildHasher>,
    /// Flat inputs mapped so far (tells inputs apart in `plain` and `md5`).
    stamp: u64,
    /// The current input's names, by its name-table index.
    ids: Vec<FunctionId>,
    /// Their MD5s.
    hashes: Vec<u64>,
}

impl NameTable {
    /// Maps the name table of `src`; false if a name appears twice in it.
    fn map(&mut self, src: &FlatSampleProfile) -> bool {
        self.stamp += 1;
        let stamp = self.stamp;
        self.ids.clear();
        self.hashes.clear();
        for &n in &src.names {
            let (id, hash) = match n {
                FlatName::Md5(h) => {
                    if self.md5.insert(h, stamp) == Some(stamp) {
                        return false;
                    }
                    (FunctionId::Md5(h), h)
                }
                FlatName::Name { .. } => {
                    let bytes = src.name_bytes_of(n).unwrap_or_default();
                    match self.plain.get(bytes) {
                        Some(&k) => {
                            let (id, hash, last) = &mut self.known[k];
                            if *last == stamp {
                                return false;
                            }
                            *last = stamp;
                            (id.clone(), *hash)
                        }
                        None => {
                            let name = Name::from(bytes);
                            let hash = md5_hash(bytes);
                            self.plain.insert(name.clone(), self.known.len());
                            let id = FunctionId::Name(name);
                            self.known.push((id.clone(), hash, stamp));
                            (id, hash)
                        }
                    }
                }
            };
            self.ids.push(id);
            self.hashes.push(hash);
        }
        true
    }
}

impl SampleMerger {
    /// An empty merge.
    pub fn new() -> Self {
        Self::default()
    }

    /// A merger following the map keys of the LLVM release whose context hash is `hash`
    /// (the inputs' own maps and the merged one are keyed alike).
    pub fn with_context_hash(hash: ContextHash) -> Self {
        let mut m = Self::default();
        m.profile.context_hash = hash;
        m
    }

    /// Merges `input`, every count multiplied by `weight`. Errors if the input's kind
    /// (context-sensitive, probe-based) differs from the earlier inputs'.
    pub fn add(&mut self, input: SampleProfile, weight: Weight) -> Result<()> {
        self.add_with(input, weight, None)
    }

    /// As [`SampleMerger::add`], each top-level profile first renamed and rebuilt through
    /// `remap` ([`super::remap`]) and merged under its renamed function, in the order of the
    /// input's own map, as llvm-profdata merges with `--remapping-file`; the discriminators
    /// of body samples and call targets keep the bits of `mask` (llvm-profdata's
    /// `--fs-discriminator-pass`, applied by its remapping whatever the input; `u32::MAX`
    /// keeps them all).
    pub fn add_remapped(
        &mut self,
        input: SampleProfile,
        weight: Weight,
        remap: &Remapping,
        mask: u32,
    ) -> Result<()> {
        self.add_with(input, weight, Some((remap, mask)))
    }

    fn add_with(
        &mut self,
        mut input: SampleProfile,
        weight: Weight,
        remap: Option<(&Remapping, u32)>,
    ) -> Result<()> {
        let index = self.inputs;
        self.check_kind(input.flags, input.format)?;
        take_profile_level(
            &mut self.profile,
            &mut self.inputs,
            input.flags,
            input.format,
            input.symbol_list.take(),
        );
        // LLVM fills its merged map in each input map's iteration order, and merges the
        // input's profiles in that order; the extbinary writer replays the merged map's order
        // from the record kept here.
        // A context new to the merged map is recorded when it is inserted, if it comes from
        // the input map's iteration order (contexts left out of it are not recorded).
        let mut input = input;
        input.context_hash = self.profile.context_hash;
        let order = merged_insertion_order([&input]);
        let mut rest = input.functions;
        let in_order: Vec<(SampleContext, FunctionSamples)> = order
            .into_iter()
            .filter_map(|c| rest.remove_entry(&c))
            .collect();
        let ordered = in_order.len();
        for (i, (context, samples)) in in_order.into_iter().chain(rest).enumerate() {
            let (context, mut samples, renamed) = match remap {
                Some((r, mask)) => {
                    let context = super::remap::remap_context(&context, r);
                    let (samples, issue) = super::remap::remap_function(samples, r, mask);
                    (context, samples, issue)
                }
                None => (context, samples, None),
            };
            let renamed = renamed.map(|k| (context.clone(), k));
            let key = sample_map_key(&context, self.profile.context_hash);
            let merged = match find_top(&mut self.profile, &self.by_key, key) {
                // LLVM names the input's context in what it reports.
                Some(f) => f.merge_from(samples, weight, false).map(|k| (context, k)),
                None => {
                    let over = samples.scale(weight);
                    let (p, k) = (&mut self.profile, &mut self.by_key);
                    insert_top(p, k, key, (context, samples), i < ordered, over)
                }
            };
            // LLVM keeps the first problem: renaming's, then the merge's.
            let issue = renamed.or(merged);
            note_issue(&mut self.issues, index, issue);
        }
        Ok(())
    }

    /// Merges a flat `input`, every count multiplied by `weight`, with the same result
    /// and problems as [`SampleMerger::add`] of the same input read as a [`SampleProfile`].
    /// Returns false, having changed nothing, if the input is not
    /// [`canonical`](FlatSampleProfile::canonical), names one function under two entries of
    /// its name table or one context twice: then add its map form instead.
    pub fn add_flat(&mut self, input: &FlatSampleProfile, weight: Weight) -> Result<bool> {
        let index = self.inputs;
        self.check_kind(input.flags, input.format)?;
        if !input.canonical || !self.names.map(input) {
            return Ok(false);
        }
        let (ids, hashes) = (&self.names.ids, &self.names.hashes);
        // The contexts of the top-level profiles and LLVM's map keys for them.
        let mut contexts = Vec::with_capacity(input.tops.len());
        let mut keys = Vec::with_capacity(input.tops.len());
        for top in &input.tops {
            match top.key {
                FlatKey::Function(i) => {
                    contexts.push(SampleContext::Function(ids[i as usize].clone()));
                    keys.push(hashes[i as usize]);
                }
                FlatKey::Context(c) => {
                    let frames = input.context_frames(c);
                    let ctx: Vec<ContextFrame> = frames
                        .iter()
                        .map(|f| ContextFrame {
                            function: ids[f.name as usize].clone(),
                            location: f.location,
                        })
                        .collect();
                    let frame_hashes: Vec<u64> = frames
                        .iter()
                        .map(|f| {
                            self.profile.context_hash.frame(
                                || hashes[f.name as usize],
                                ids[f.name as usize].as_bytes(),
                                f.location.line_offset,
                                f.location.discriminator,
                            )
                        })
                        .collect();
                    keys.push(self.profile.context_hash.combine(&frame_hashes));
                    contexts.push(SampleContext::Context(ctx.into_boxed_slice()));
                }
            }
        }
        if input.contexts.len() > 1 {
            let mut seen = FxHashSet::default();
            if !contexts.iter().all(|c| seen.insert(c)) {
                return Ok(false);
            }
        }
        take_profile_level(
            &mut self.profile,
            &mut self.inputs,
            input.flags,
            input.format,
            input.symbol_list.clone(),
        );
        // The input map's iteration order (each key once; a key whose hash another key
        // already has is left out of it, as `merged_insertion_order` leaves it), then the
        // profiles it left out, in the order read.
        // Contexts are distinct, so a context new to the merge is new when its turn comes:
        // the insertion order is recorded as the profiles are merged.
        let order = iteration_order(&keys);
        let mut in_order = vec![false; contexts.len()];
        order.iter().for_each(|&i| in_order[i] = true);
        let rest = (0..contexts.len()).filter(|&i| !in_order[i]);
        let all: Vec<usize> = order.iter().copied().chain(rest).collect();
        let mut contexts: Vec<Option<SampleContext>> = contexts.into_iter().map(Some).collect();
        for i in all {
            let Some(context) = contexts[i].take() else {
                continue;
            };
            let node = input.tops[i].node;
            let key = keys[i];
            let issue = match find_top(&mut self.profile, &self.by_key, key) {
                Some(f) => f.merge_flat(input, node, ids, weight).map(|k| (context, k)),
                None => {
                    let (samples, over) = FunctionSamples::from_flat(input, node, ids, weight);
                    let (p, k) = (&mut self.profile, &mut self.by_key);
                    insert_top(p, k, key, (context, samples), in_order[i], over)
                }
            };
            note_issue(&mut self.issues, index, issue);
        }
        Ok(true)
    }

    /// Errors if an input of `flags` cannot be merged with the earlier inputs (LLVM's
    /// checks).
    fn check_kind(&self, flags: SampleFlags, format: Option<SampleFormat>) -> Result<()> {
        if self.inputs > 0 {
            let had = self.profile.flags;
            let now = statics_after(had, flags, format);
            if had.probe_based != now.probe_based {
                return Err(Error::new(ErrorKind::KindConflict(
                    "cannot merge probe-based profile with non-probe-based profile".into(),
                )));
            }
            if had.context_sensitive != now.context_sensitive {
                return Err(Error::new(ErrorKind::KindConflict(
                    "cannot merge CS profile with non-CS profile".into(),
                )));
            }
        }
        Ok(())
    }

    /// Inputs merged so far.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The merged profile and the problems met, in the order met.
    pub fn finish(self) -> (SampleProfile, Vec<MergeIssue>) {
        (self.profile, self.issues)
    }
}

/// The profile-level flags after reading an input of `flags` in `format`, when they were
/// `before`: LLVM's `FunctionSamples::ProfileIs*` statics, which each reader sets its own way.
///
/// * Text: context-sensitive, probe-based, pre-inlined and flow-sensitive are the input's.
/// * Binary: only flow-sensitive is the input's (`--profile-isfs`); the others stay.
/// * Extbinary: context-sensitive, pre-inlined and flow-sensitive are only ever raised (from
///   the summary section's flags); probe-based is the input's when it has a non-empty
///   function metadata section, else it stays.
///
/// The other flags (MD5 names, partial) are the last input's. llvm-profdata's kind check
/// compares the probe-based and CS statics before and after each input after the first,
/// so a flat profile may follow a CS or probe-based one (their statics stay raised) but
/// not precede it.
fn statics_after(
    before: SampleFlags,
    flags: SampleFlags,
    format: Option<SampleFormat>,
) -> SampleFlags {
    let mut now = flags;
    match format {
        Some(SampleFormat::Text) => {}
        Some(SampleFormat::ExtBinary) => {
            now.context_sensitive |= before.context_sensitive;
            now.preinlined |= before.preinlined;
            now.fs_discriminator |= before.fs_discriminator;
            if !flags.sets_probe_flag {
                now.probe_based = before.probe_based;
            }
        }
        _ => {
            now.context_sensitive = before.context_sensitive;
            now.probe_based = before.probe_based;
            now.preinlined = before.preinlined;
        }
    }
    now
}

/// Counts one more input and takes its profile-level flags ([`statics_after`]) and
/// profile symbol list.
fn take_profile_level(
    profile: &mut SampleProfile,
    inputs: &mut usize,
    flags: SampleFlags,
    format: Option<SampleFormat>,
    list: Option<crate::ir::sample::ProfileSymbolList>,
) {
    *inputs += 1;
    profile.flags = statics_after(profile.flags, flags, format);
    if let Some(list) = list {
        let dst = profile.symbol_list.get_or_insert_with(Default::default);
        dst.names.extend(list.names);
        dst.compress |= list.compress;
    }
}

/// The profile LLVM's map holds under `key` in the merge (kept under the context it was
/// first inserted under: a name, or a hash).
fn find_top<'a>(
    profile: &'a mut SampleProfile,
    by_key: &HashMap<u64, SampleContext, FxBuildHasher>,
    key: u64,
) -> Option<&'a mut FunctionSamples> {
    profile.functions.get_mut(by_key.get(&key)?)
}

/// Inserts a profile new to the merge under `context`, indexed by its LLVM map `key`;
/// recorded in the insertion order when `recorded` (the input map's iteration order had
/// it). Returns the overflow issue of scaling it, if `over`.
fn insert_top(
    profile: &mut SampleProfile,
    by_key: &mut HashMap<u64, SampleContext, FxBuildHasher>,
    key: u64,
    (context, samples): (SampleContext, FunctionSamples),
    recorded: bool,
    over: bool,
) -> Option<(SampleContext, IssueKind)> {
    if recorded {
        profile.insertion_order.push(context.clone());
    }
    by_key.insert(key, context.clone());
    let issue = over.then(|| (context.clone(), IssueKind::CounterOverflow));
    profile.functions.insert(context, samples);
    issue
}

/// Records in `issues` what merging a profile of input `index` met, if anything.
fn note_issue(
    issues: &mut Vec<MergeIssue>,
    index: usize,
    issue: Option<(SampleContext, IssueKind)>,
) {
    if let Some((context, kind)) = issue {
        issues.push(MergeIssue {
            input: index,
            context,
            kind,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation};

    fn fs(total: u64, checksum: u64) -> FunctionSamples {
        let mut f = FunctionSamples::new(FunctionId::name(b"f"));
        f.total_samples = total;
        f.checksum = checksum;
        let r = f.body.entry(LineLocation::new(1, 0)).or_default();
        r.samples = total;
        r.call_targets.insert(FunctionId::name(b"g"), 2);
        f
    }

    #[test]
    fn weights_multiply_and_saturate() {
        let mut d = fs(10, 0);
        assert_eq!(d.merge(&fs(5, 0), w(3), false), None);
        assert_eq!(d.total_samples, 25);
        assert_eq!(
            d.body[&LineLocation::new(1, 0)].call_targets[&FunctionId::name(b"g")],
            8
        );
        assert_eq!(
            d.merge(&fs(u64::MAX, 0), w(2), false),
            Some(IssueKind::CounterOverflow)
        );
        assert_eq!(d.total_samples, u64::MAX);
    }

    fn w(n: u64) -> Weight {
        Weight::integer(n).unwrap()
    }

    #[test]
    fn fractional_weights_round_each_count_half_up() {
        let half: Weight = "0.5".parse().unwrap();
        // Into an empty profile: 5 × 0.5 = 2.5 → 3; the target's 2 × 0.5 = 1.
        let mut d = FunctionSamples::default();
        assert_eq!(d.merge(&fs(5, 0), half, true), None);
        assert_eq!(d.total_samples, 3);
        let at = LineLocation::new(1, 0);
        assert_eq!(d.body[&at].samples, 3);
        assert_eq!(d.body[&at].call_targets[&FunctionId::name(b"g")], 1);
        // Added to what is there: 3 + round(7 × 0.5) = 3 + 4; a total is scaled as stored,
        // not recomputed from the body.
        let mut src = fs(7, 0);
        src.total_samples = 9;
        assert_eq!(d.merge(&src, half, false), None);
        assert_eq!((d.total_samples, d.body[&at].samples), (3 + 5, 3 + 4));
        // A small weight may round a count down to zero; the record stays.
        let tiny: Weight = "0.01".parse().unwrap();
        let mut z = FunctionSamples::default();
        z.merge(&fs(40, 0), tiny, true);
        assert_eq!((z.total_samples, z.body[&at].samples), (0, 0));
        // Saturation is reported as with whole weights.
        let big: Weight = "1.5".parse().unwrap();
        assert_eq!(
            d.merge(&fs(u64::MAX, 0), big, false),
            Some(IssueKind::CounterOverflow)
        );
    }

    #[test]
    fn checksum_mismatch_merges_nothing() {
        let mut d = fs(10, 7);
        assert_eq!(
            d.merge(&fs(5, 8), Weight::ONE, false),
            Some(IssueKind::HashMismatch)
        );
        assert_eq!(d.total_samples, 10);
        // A missing checksum against a present one is a mismatch too, as in LLVM.
        assert_eq!(
            d.merge(&fs(5, 0), Weight::ONE, false),
            Some(IssueKind::HashMismatch)
        );
        let mut z = fs(1, 0);
        assert_eq!(z.merge(&fs(1, 9), Weight::ONE, false), None);
        assert_eq!(z.checksum, 9);
    }
}

#[cfg(test)]
mod md5_names {
    use super::*;
    use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation};

    /// A profile of one function `top` (spelled `id`), with `g` inlined at 2 and called at 1,
    /// both spelled as `callee`.
    fn input(id: FunctionId, callee: FunctionId) -> SampleProfile {
        let mut p = SampleProfile::new();
        // As a reader records it.
        p.insertion_order.push(SampleContext::Function(id.clone()));
        let f = p.entry(SampleContext::Function(id));
        f.total_samples = 10;
        let r = f.body.entry(LineLocation::new(1, 0)).or_default();
        r.samples = 4;
        r.call_targets.insert(callee.clone(), 4);
        f.callee_mut(LineLocation::new(2, 0), &callee).total_samples = 6;
        p
    }

    #[test]
    fn a_name_and_its_hash_are_one_top_level_profile_first_spelling_kept() {
        let name = FunctionId::name(b"top");
        let hash = FunctionId::Md5(md5_hash(b"top"));
        let (g, gh) = (FunctionId::name(b"g"), FunctionId::Md5(md5_hash(b"g")));
        for (first, second) in [(&name, &hash), (&hash, &name)] {
            let mut m = SampleMerger::new();
            m.add(input(first.clone(), g.clone()), Weight::ONE).unwrap();
            m.add(
                input(second.clone(), gh.clone()),
                Weight::integer(2).unwrap(),
            )
            .unwrap();
            let (p, issues) = m.finish();
            assert!(issues.is_empty());
            assert_eq!(p.functions.len(), 1);
            let f: &FunctionSamples = &p.functions[&SampleContext::Function(first.clone())];
            assert_eq!(f.total_samples, 30);
            assert_eq!(f.name, *first);
            // Callees and call targets keep the name and the hash apart, as LLVM does.
            let targets = &f.body[&LineLocation::new(1, 0)].call_targets;
            assert_eq!((targets[&g], targets[&gh]), (4, 8));
            let site = &f.callsites[&LineLocation::new(2, 0)];
            assert_eq!((site[&g].total_samples, site[&gh].total_samples), (6, 12));
            assert_eq!(p.insertion_order, [SampleContext::Function(first.clone())]);
        }
    }
}

#[cfg(test)]
mod owned {
    use crate::ir::Weight;
    use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation};

    /// A function with inlined callees, some counts near saturation.
    fn tree(seed: u64) -> FunctionSamples {
        let mut f = FunctionSamples::new(FunctionId::name(b"f"));
        f.total_samples = seed * 1000;
        f.checksum = if seed.is_multiple_of(3) { 0 } else { 7 };
        for i in 0..4 {
            let r = f
                .body
                .entry(LineLocation::new((i * seed % 5) as u32, 0))
                .or_default();
            r.samples = if i == 3 { u64::MAX / 2 } else { seed + i };
            r.call_targets.insert(
                FunctionId::name(format!("t{}", (i + seed) % 3).as_bytes()),
                i,
            );
        }
        let c = f.callee_mut(
            LineLocation::new((seed % 3) as u32, 1),
            &FunctionId::name(b"g"),
        );
        c.total_samples = seed;
        c.checksum = seed % 2;
        c.body.entry(LineLocation::new(1, 0)).or_default().samples = seed;
        f
    }

    #[test]
    fn owned_merge_is_the_borrowed_merge() {
        for w in ["1", "2", "3", "0.5", "1.25", "0.001"] {
            let w: Weight = w.parse().unwrap();
            for a in 1..7 {
                for b in 1..7 {
                    let mut x = tree(a);
                    let mut y = tree(a);
                    let rx = x.merge(&tree(b), w, false);
                    let ry = y.merge_from(tree(b), w, false);
                    assert_eq!((rx, &x), (ry, &y), "w {w} a {a} b {b}");
                }
            }
        }
    }
}
