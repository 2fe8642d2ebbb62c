//! Value profiles: per call site or operation, the observed values and how often each occurred.

use crate::bytes::limits::MAX_VALUES_PER_SITE;

/// The kinds of value profile LLVM records. The discriminant is LLVM's `IPVK_*` number, which
/// is also the on-disk kind number.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ValueKind {
    /// Indirect-call targets; values are name hashes of the callees (0 = unknown target).
    IndirectCall = 0,
    /// Sizes of memcpy/memset-like operations (already bucketed by the runtime).
    MemOpSize = 1,
    /// Vtables seen at virtual calls; values are name hashes of the vtables (0 = unknown).
    VTable = 2,
}

impl ValueKind {
    /// All kinds in on-disk order.
    pub const ALL: [ValueKind; 3] = [
        ValueKind::IndirectCall,
        ValueKind::MemOpSize,
        ValueKind::VTable,
    ];
    /// Number of kinds.
    pub const COUNT: usize = 3;

    /// The kind with on-disk number `n`.
    pub fn from_u32(n: u32) -> Option<ValueKind> {
        match n {
            0 => Some(ValueKind::IndirectCall),
            1 => Some(ValueKind::MemOpSize),
            2 => Some(ValueKind::VTable),
            _ => None,
        }
    }

    /// The on-disk number.
    pub fn index(self) -> usize {
        self as usize
    }

    /// True for kinds whose values are name hashes.
    pub fn values_are_names(self) -> bool {
        matches!(self, ValueKind::IndirectCall | ValueKind::VTable)
    }

    /// LLVM's enumerator name, as printed in text profiles.
    pub fn llvm_name(self) -> &'static str {
        match self {
            ValueKind::IndirectCall => "IPVK_IndirectCallTarget",
            ValueKind::MemOpSize => "IPVK_MemOPSize",
            ValueKind::VTable => "IPVK_VTableTarget",
        }
    }
}

/// One observed value and its count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ValueCount {
    /// The value: a name hash or a size, depending on the kind.
    pub value: u64,
    /// How many times it was seen (saturating).
    pub count: u64,
}

/// The values seen at one site, in LLVM's order: descending count, ties in insertion order.
/// Invariant after [`ValueSite::sort_and_cap`]: at most [`MAX_VALUES_PER_SITE`] entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueSite {
    /// The (value, count) pairs.
    pub values: Vec<ValueCount>,
}

impl ValueSite {
    /// Stable sort by descending count, then keep the first 255 — what LLVM does after every
    /// record it adds.
    pub fn sort_and_cap(&mut self) {
        self.values.sort_by_key(|v| std::cmp::Reverse(v.count));
        self.values.truncate(MAX_VALUES_PER_SITE);
    }

    /// Sum of the counts (saturating).
    pub fn total(&self) -> u64 {
        self.values
            .iter()
            .fold(0u64, |s, v| s.saturating_add(v.count))
    }
}

/// All value sites of one function, per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueProfile {
    /// `sites[kind.index()]` are the sites of that kind, in site-index order.
    pub sites: [Vec<ValueSite>; ValueKind::COUNT],
}

impl ValueProfile {
    /// The sites of one kind.
    pub fn kind(&self, k: ValueKind) -> &[ValueSite] {
        &self.sites[k.index()]
    }

    /// Mutable sites of one kind.
    pub fn kind_mut(&mut self, k: ValueKind) -> &mut Vec<ValueSite> {
        &mut self.sites[k.index()]
    }

    /// Number of kinds with at least one site.
    pub fn num_kinds(&self) -> usize {
        self.sites.iter().filter(|s| !s.is_empty()).count()
    }

    /// True if no kind has a site.
    pub fn is_empty(&self) -> bool {
        self.num_kinds() == 0
    }
}
