//! The IR of a GraalVM Native Image profile (`.iprof`): a [`JavaSymbols`] table, a
//! [`ContextTree`] of calling contexts, and one map per profile section from a context
//! [`Site`] to that section's payload.
//!
//! Units: every count is a raw event count (calls, branch executions, receiver-type hits,
//! samples) as an unsigned integer capped at [`MAX_COUNT`] (`i64::MAX`, the largest Java
//! `long`, since GraalVM reads counts as `long`s). Arithmetic on counts saturates there.
//!
//! The IR is independent of the ids of any file: types and methods are identified by names
//! and contexts by their paths. Two profiles are the same profile when [`IprofProfile::by_names`]
//! gives equal results.

use std::collections::BTreeMap;
use std::fmt;

use super::context::{ContextTree, Frame, Site};
use super::fx::FxHashMap;
use super::java_symbols::{JavaSymbols, MethodId, TypeId};
use super::profile::Provenance;

/// Largest count stored: `i64::MAX`, the largest value a Java `long` holds.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// Adds two counts, saturating at [`MAX_COUNT`].
#[inline]
pub fn add_counts(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(MAX_COUNT)
}

/// The profile sections of an iprof file.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// `monitorProfiles`: one global histogram of types synchronized on.
    Monitor,
    /// `virtualInvokeProfiles`: receiver-type histogram per virtual call site.
    VirtualInvoke,
    /// `callCountProfiles`: how often a method was entered in a context.
    CallCount,
    /// `conditionalProfiles`: successor counts per branch site.
    Conditional,
    /// `samplingProfiles`: hit count per full sampled stack.
    Sampling,
    /// `instanceofProfiles` (format 1.1.0): type histogram per instanceof site.
    Instanceof,
}

impl Section {
    /// All sections in the order the writer emits them (the order of GraalVM's files).
    pub const ALL: [Section; 6] = [
        Section::Monitor,
        Section::VirtualInvoke,
        Section::CallCount,
        Section::Conditional,
        Section::Sampling,
        Section::Instanceof,
    ];

    /// The JSON key of the section in format 1.x.
    pub fn json_key(self) -> &'static str {
        match self {
            Section::Monitor => "monitorProfiles",
            Section::VirtualInvoke => "virtualInvokeProfiles",
            Section::CallCount => "callCountProfiles",
            Section::Conditional => "conditionalProfiles",
            Section::Sampling => "samplingProfiles",
            Section::Instanceof => "instanceofProfiles",
        }
    }

    /// Bit of the section in [`SectionSet`].
    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of sections (which sections a file carried, even if empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct SectionSet(u8);

impl SectionSet {
    /// Adds a section.
    pub fn insert(&mut self, s: Section) {
        self.0 |= s.bit();
    }
    /// True if the section is in the set.
    pub fn contains(self, s: Section) -> bool {
        self.0 & s.bit() != 0
    }
    /// Union.
    #[must_use]
    pub fn union(self, o: SectionSet) -> SectionSet {
        SectionSet(self.0 | o.0)
    }
}

/// One successor of a branch site: conditional records are triples
/// `(target BCI, branch index, count)`.
///
/// The branch index is a key chosen by the compiler; real files repeat it within a site
/// (switches whose cases share a target) and may even repeat a whole `(target, index)` pair,
/// so a site is a list, not a map. Merging matches the k-th occurrence of a
/// `(target, index)` pair in one input with the k-th in the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Branch {
    /// BCI the branch jumps to (-5 marks an invalid successor).
    pub target_bci: i32,
    /// The compiler's branch key.
    pub index: i32,
    /// Times taken.
    pub count: u64,
}

/// One bar of a type histogram: a type and how often it was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeCount {
    /// The type.
    pub ty: TypeId,
    /// Times seen.
    pub count: u64,
}

/// Adds branch list `add` into `acc`, matching the k-th occurrence of each
/// `(target BCI, branch index)` pair in `add` with the k-th in `acc` (real files repeat
/// pairs within a site); unmatched branches are appended.
pub fn merge_branches(acc: &mut Vec<Branch>, add: &[Branch]) {
    for (j, b) in add.iter().enumerate() {
        let key = (b.target_bci, b.index);
        let k = add
            .iter()
            .take(j)
            .filter(|x| (x.target_bci, x.index) == key)
            .count();
        match acc
            .iter_mut()
            .filter(|x| (x.target_bci, x.index) == key)
            .nth(k)
        {
            Some(x) => x.count = add_counts(x.count, b.count),
            None => acc.push(*b),
        }
    }
}

/// Adds histogram `add` into `acc` per type (counts of a type in both are summed; new
/// types are appended).
pub fn merge_histogram(acc: &mut Vec<TypeCount>, add: impl IntoIterator<Item = TypeCount>) {
    for tc in add {
        match acc.iter_mut().find(|x| x.ty == tc.ty) {
            Some(x) => x.count = add_counts(x.count, tc.count),
            None => acc.push(tc),
        }
    }
}

/// A map from sites to one section's payload.
pub type SiteMap<V> = FxHashMap<Site, V>;

/// The format version string of an iprof file, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct IprofVersion {
    /// Major version (breaking changes).
    pub major: u32,
    /// Minor version (new optional fields).
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

impl IprofVersion {
    /// Version 1.0.0, what the writer emits unless instanceof profiles need 1.1.0.
    pub const V1_0_0: IprofVersion = IprofVersion {
        major: 1,
        minor: 0,
        patch: 0,
    };
    /// Version 1.1.0 (adds `instanceofProfiles`).
    pub const V1_1_0: IprofVersion = IprofVersion {
        major: 1,
        minor: 1,
        patch: 0,
    };
}

impl fmt::Display for IprofVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A GraalVM Native Image profile in the IR.
///
/// Invariants: every [`Site`] is a node of `contexts`; every [`MethodId`] in `contexts` and
/// every [`TypeId`] in payloads is of `symbols`; histograms hold each type at most once;
/// counts are at most [`MAX_COUNT`]; call-count sites have BCI 0.
#[derive(Debug, Clone, Default)]
pub struct IprofProfile {
    /// Format version of the input (for `show`); the writer decides its own.
    pub version: IprofVersion,
    /// Types and methods.
    pub symbols: JavaSymbols,
    /// Calling contexts.
    pub contexts: ContextTree,
    /// Sections the input(s) carried, even when empty (GraalVM distinguishes "category not
    /// recorded" from "recorded, nothing seen").
    pub present: SectionSet,
    /// `callCountProfiles`.
    pub call_counts: SiteMap<u64>,
    /// `conditionalProfiles`.
    pub conditionals: SiteMap<Vec<Branch>>,
    /// `virtualInvokeProfiles`.
    pub virtual_invokes: SiteMap<Vec<TypeCount>>,
    /// `instanceofProfiles`.
    pub instanceofs: SiteMap<Vec<TypeCount>>,
    /// `samplingProfiles`.
    pub samples: SiteMap<u64>,
    /// `monitorProfiles` (global; the file's context is a placeholder `0:0`).
    pub monitors: Vec<TypeCount>,
    /// Where it came from.
    pub provenance: Provenance,
}

/// Per-section totals of one profile: the sum and the largest single count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SectionTotals {
    /// Sum of all counts per section (indexed by `Section as usize`), saturating.
    pub sum: [u64; 6],
    /// Largest count per section.
    pub max: [u64; 6],
    /// Number of entries (sites; 1 for a non-empty monitor histogram) per section.
    pub entries: [u64; 6],
}

impl SectionTotals {
    fn add(&mut self, s: Section, c: u64) {
        let i = s as usize;
        if let (Some(sum), Some(max)) = (self.sum.get_mut(i), self.max.get_mut(i)) {
            *sum = add_counts(*sum, c);
            *max = (*max).max(c);
        }
    }
    fn entry(&mut self, s: Section) {
        if let Some(e) = self.entries.get_mut(s as usize) {
            *e += 1;
        }
    }
    /// Sum of a section's counts.
    pub fn sum_of(&self, s: Section) -> u64 {
        self.sum.get(s as usize).copied().unwrap_or(0)
    }
    /// Largest count of a section.
    pub fn max_of(&self, s: Section) -> u64 {
        self.max.get(s as usize).copied().unwrap_or(0)
    }
    /// Number of entries of a section.
    pub fn entries_of(&self, s: Section) -> u64 {
        self.entries.get(s as usize).copied().unwrap_or(0)
    }
}

/// A method named by strings: simple name and signature type names.
pub type NamedMethod = (String, Vec<String>);

/// A context named by strings, innermost frame first.
pub type NamedContext = Vec<(NamedMethod, i32)>;

/// A payload named by strings.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum NamedPayload {
    /// Call count or sample count.
    Count(u64),
    /// Branch triples `(target, index, count)` in canonical order.
    Branches(Vec<(i32, i32, u64)>),
    /// Type histogram by type name.
    Types(BTreeMap<String, u64>),
}

/// A profile with every id replaced by names, in sorted maps: two profiles are equal as
/// profiles exactly when their `NamedProfile`s are equal, whatever ids and orders their
/// files used.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NamedProfile {
    /// Type names.
    pub types: std::collections::BTreeSet<String>,
    /// Methods.
    pub methods: std::collections::BTreeSet<NamedMethod>,
    /// Entries by (section, context).
    pub entries: BTreeMap<(Section, NamedContext), NamedPayload>,
    /// Monitor histogram.
    pub monitors: BTreeMap<String, u64>,
    /// Sections present.
    pub present: Vec<Section>,
}

/// Sorts branch triples canonically: by branch index, then target BCI; the relative order of
/// equal `(index, target)` pairs is kept (stable), since merging matches them by occurrence.
pub fn sort_branches(b: &mut [Branch]) {
    b.sort_by_key(|x| (x.index, x.target_bci));
}

/// Sorts a histogram canonically: descending count, then type id.
pub fn sort_histogram(h: &mut [TypeCount]) {
    h.sort_by(|a, b| b.count.cmp(&a.count).then(a.ty.cmp(&b.ty)));
}

impl IprofProfile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries over all sections (the monitor histogram counts as one).
    pub fn entry_count(&self) -> usize {
        self.call_counts.len()
            + self.conditionals.len()
            + self.virtual_invokes.len()
            + self.instanceofs.len()
            + self.samples.len()
            + usize::from(!self.monitors.is_empty())
    }

    /// Per-section totals.
    pub fn totals(&self) -> SectionTotals {
        let mut t = SectionTotals::default();
        for c in self.call_counts.values() {
            t.entry(Section::CallCount);
            t.add(Section::CallCount, *c);
        }
        for c in self.samples.values() {
            t.entry(Section::Sampling);
            t.add(Section::Sampling, *c);
        }
        for bs in self.conditionals.values() {
            t.entry(Section::Conditional);
            for b in bs {
                t.add(Section::Conditional, b.count);
            }
        }
        for (s, map) in [
            (Section::VirtualInvoke, &self.virtual_invokes),
            (Section::Instanceof, &self.instanceofs),
        ] {
            for h in map.values() {
                t.entry(s);
                for tc in h {
                    t.add(s, tc.count);
                }
            }
        }
        if !self.monitors.is_empty() {
            t.entry(Section::Monitor);
        }
        for tc in &self.monitors {
            t.add(Section::Monitor, tc.count);
        }
        t
    }

    /// Per method (the innermost frame of each context) and section, the sum of counts.
    /// Trimming and folding contexts never changes these.
    pub fn method_totals(&self) -> BTreeMap<(NamedMethod, Section), u64> {
        let mut out = BTreeMap::new();
        let mut add = |site: &Site, s: Section, c: u64| {
            if let Some(n) = self.contexts.get(site.node) {
                let e = out.entry((self.named_method(n.method), s)).or_insert(0u64);
                *e = add_counts(*e, c);
            }
        };
        for (site, c) in &self.call_counts {
            add(site, Section::CallCount, *c);
        }
        for (site, c) in &self.samples {
            add(site, Section::Sampling, *c);
        }
        for (site, bs) in &self.conditionals {
            add(
                site,
                Section::Conditional,
                bs.iter().fold(0, |a, b| add_counts(a, b.count)),
            );
        }
        for (site, h) in &self.virtual_invokes {
            add(
                site,
                Section::VirtualInvoke,
                h.iter().fold(0, |a, b| add_counts(a, b.count)),
            );
        }
        for (site, h) in &self.instanceofs {
            add(
                site,
                Section::Instanceof,
                h.iter().fold(0, |a, b| add_counts(a, b.count)),
            );
        }
        out
    }

    /// A method as names.
    pub fn named_method(&self, m: MethodId) -> NamedMethod {
        match self.symbols.method(m) {
            Some(r) => (
                r.name.to_string(),
                self.symbols
                    .signature_names(m)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
            ),
            None => (format!("<method {}>", m.0), Vec::new()),
        }
    }

    /// A site's context as names, innermost first.
    pub fn named_context(&self, site: Site) -> NamedContext {
        self.contexts
            .frames(site)
            .map(|Frame { method, bci }| (self.named_method(method), bci))
            .collect()
    }

    fn named_types(&self, h: &[TypeCount]) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for tc in h {
            let name = self.symbols.type_name(tc.ty).unwrap_or("?").to_string();
            let e = m.entry(name).or_insert(0);
            *e = add_counts(*e, tc.count);
        }
        m
    }

    /// The profile with ids replaced by names (for comparisons and tests; allocates one
    /// string per name occurrence).
    pub fn by_names(&self) -> NamedProfile {
        let mut p = NamedProfile {
            types: self.symbols.types().map(|(_, n)| n.to_string()).collect(),
            methods: self
                .symbols
                .methods()
                .map(|(id, _)| self.named_method(id))
                .collect(),
            monitors: self.named_types(&self.monitors),
            present: Section::ALL
                .into_iter()
                .filter(|s| self.present.contains(*s))
                .collect(),
            ..NamedProfile::default()
        };
        for (site, c) in &self.call_counts {
            p.entries.insert(
                (Section::CallCount, self.named_context(*site)),
                NamedPayload::Count(*c),
            );
        }
        for (site, c) in &self.samples {
            p.entries.insert(
                (Section::Sampling, self.named_context(*site)),
                NamedPayload::Count(*c),
            );
        }
        for (site, bs) in &self.conditionals {
            let mut v = bs.clone();
            sort_branches(&mut v);
            p.entries.insert(
                (Section::Conditional, self.named_context(*site)),
                NamedPayload::Branches(
                    v.iter().map(|b| (b.target_bci, b.index, b.count)).collect(),
                ),
            );
        }
        for (s, map) in [
            (Section::VirtualInvoke, &self.virtual_invokes),
            (Section::Instanceof, &self.instanceofs),
        ] {
            for (site, h) in map {
                p.entries.insert(
                    (s, self.named_context(*site)),
                    NamedPayload::Types(self.named_types(h)),
                );
            }
        }
        p
    }
}
