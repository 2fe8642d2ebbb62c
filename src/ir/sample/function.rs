//! The samples of one function, or one inlined instance of it (LLVM's `FunctionSamples`).

use std::collections::BTreeMap;

use super::{FunctionId, LineLocation, SampleRecord};
use crate::bytes::stack::deep;

/// Inlined callees at one call site: callee → its samples there. Several callees share a
/// site when an indirect call was promoted and inlined for more than one target.
pub type CallsiteSamples = BTreeMap<FunctionId, FunctionSamples>;

/// The inlined callees of a profile by call site: a map that owns the nested levels of the
/// tree, and so is what makes it as deep as its input (llvm-profdata reads and writes tens
/// of thousands of levels). Derived (recursive) drops, clones, comparisons and formatting
/// would overflow a thread's stack there: this map drops its levels in a loop and recurses
/// through [`deep`] otherwise. It reads as the `BTreeMap` it wraps.
#[derive(Default)]
pub struct Callsites(pub BTreeMap<LineLocation, CallsiteSamples>);

impl std::ops::Deref for Callsites {
    type Target = BTreeMap<LineLocation, CallsiteSamples>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Callsites {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for Callsites {
    /// Each callee is emptied of its own callees (moved to a worklist) before it is dropped,
    /// so no drop recurses.
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let mut pending = vec![std::mem::take(&mut self.0)];
        while let Some(sites) = pending.pop() {
            for site in sites.into_values() {
                for mut callee in site.into_values() {
                    if !callee.callsites.is_empty() {
                        pending.push(std::mem::take(&mut callee.callsites.0));
                    }
                }
            }
        }
    }
}

impl Clone for Callsites {
    fn clone(&self) -> Self {
        Callsites(deep(|| self.0.clone()))
    }
}

impl PartialEq for Callsites {
    fn eq(&self, other: &Self) -> bool {
        deep(|| self.0 == other.0)
    }
}

impl Eq for Callsites {}

impl std::fmt::Debug for Callsites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        deep(|| self.0.fmt(f))
    }
}

impl IntoIterator for Callsites {
    type Item = (LineLocation, CallsiteSamples);
    type IntoIter = std::collections::btree_map::IntoIter<LineLocation, CallsiteSamples>;
    fn into_iter(mut self) -> Self::IntoIter {
        std::mem::take(&mut self.0).into_iter()
    }
}

impl<'a> IntoIterator for &'a Callsites {
    type Item = (&'a LineLocation, &'a CallsiteSamples);
    type IntoIter = std::collections::btree_map::Iter<'a, LineLocation, CallsiteSamples>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Callsites {
    type Item = (&'a LineLocation, &'a mut CallsiteSamples);
    type IntoIter = std::collections::btree_map::IterMut<'a, LineLocation, CallsiteSamples>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

/// Counts of vtable types seen at one location (type → samples), from `vtables` lines of
/// LLVM 22's text format.
pub type TypeCounts = BTreeMap<FunctionId, u64>;

/// Attributes of a function profile in a context (LLVM's `ContextAttributeMask` bits), as
/// `!Attributes: N` writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct ContextAttributes(pub u32);

impl ContextAttributes {
    /// The leaf of the context was inlined in the build that was profiled.
    pub const WAS_INLINED: u32 = 0x1;
    /// The pre-inliner decided the leaf of the context should be inlined.
    pub const SHOULD_BE_INLINED: u32 = 0x2;
    /// The leaf's profile was also added to the base profile.
    pub const DUPLICATED_INTO_BASE: u32 = 0x4;

    /// True if bit(s) `mask` are set.
    pub fn has(self, mask: u32) -> bool {
        self.0 & mask != 0
    }
}

/// Samples of a function body (top level) or of one inlined instance of a function at a
/// call site (nested).
///
/// Units: every count is a number of samples. Invariants LLVM keeps and readers check only
/// as far as LLVM does: `total_samples` is meant to be the sum of the body samples and of
/// the inlined callees' totals, but profiles need not respect it (it is stored, never
/// recomputed on read or merge); `head_samples` is meaningful at top level only (the text
/// format has no field for it on inlined instances, so they read as 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionSamples {
    /// The function (for a context profile, the leaf of its context).
    pub name: FunctionId,
    /// All samples in the function and its inlined callees.
    pub total_samples: u64,
    /// Samples of entries into the function (calls to it), top level only.
    pub head_samples: u64,
    /// Body samples by location.
    pub body: BTreeMap<LineLocation, SampleRecord>,
    /// Inlined callees by call site, then by callee.
    pub callsites: Callsites,
    /// CFG checksum of a probe-based profile (`!CFGChecksum`); 0 when absent.
    pub checksum: u64,
    /// Context attributes (`!Attributes`); 0 when absent.
    pub attributes: ContextAttributes,
    /// Vtable type counts by location (LLVM 22 `vtables` lines); usually empty.
    pub type_counts: BTreeMap<LineLocation, TypeCounts>,
}

impl FunctionSamples {
    /// Empty samples of `name`.
    pub fn new(name: FunctionId) -> Self {
        FunctionSamples {
            name,
            ..FunctionSamples::default()
        }
    }

    /// The callee samples at `loc` for `callee`, created empty if missing.
    pub fn callee_mut(&mut self, loc: LineLocation, callee: &FunctionId) -> &mut FunctionSamples {
        self.callsites
            .entry(loc)
            .or_default()
            .entry(callee.clone())
            .or_insert_with(|| FunctionSamples::new(callee.clone()))
    }

    /// A copy without the inlined callees (a full copy costs the whole subtree).
    pub fn clone_shallow(&self) -> FunctionSamples {
        FunctionSamples {
            name: self.name.clone(),
            total_samples: self.total_samples,
            head_samples: self.head_samples,
            body: self.body.clone(),
            callsites: Callsites::default(),
            checksum: self.checksum,
            attributes: self.attributes,
            type_counts: self.type_counts.clone(),
        }
    }

    /// Number of inlined instances directly under this one.
    pub fn callsite_count(&self) -> usize {
        self.callsites.values().map(|m| m.len()).sum()
    }

    /// LLVM's `getHeadSamplesEstimate`: the head samples if non-zero in a context-sensitive
    /// profile (`cs`); else the samples of the first body location, or, when the first
    /// location is a call site, the sum of its callees' estimates; at least 1 when
    /// `total_samples` is non-zero.
    pub fn head_samples_estimate(&self, cs: bool) -> u64 {
        if cs && self.head_samples != 0 {
            return self.head_samples;
        }
        let first_body = self.body.iter().next();
        let first_site = self.callsites.iter().next();
        let count = match (first_body, first_site) {
            (Some((bl, rec)), Some((cl, _))) if bl < cl => rec.samples,
            (Some((_, rec)), None) => rec.samples,
            (_, Some((_, site))) => site.values().fold(0u64, |a, f| {
                a.wrapping_add(deep(|| f.head_samples_estimate(cs)))
            }),
            (None, None) => 0,
        };
        if count != 0 {
            count
        } else {
            u64::from(self.total_samples > 0)
        }
    }

    /// The largest body-sample count here and, unless `skip_callsites`, in inlined callees.
    pub fn max_count_inside(&self, skip_callsites: bool) -> u64 {
        let mut max = self.body.values().map(|r| r.samples).max().unwrap_or(0);
        if !skip_callsites {
            for site in self.callsites.values() {
                for f in site.values() {
                    max = max.max(deep(|| f.max_count_inside(false)));
                }
            }
        }
        max
    }
}
