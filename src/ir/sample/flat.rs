//! A sample profile in flat form: one input of a merge, parsed into a few plain vectors that
//! are reused from one input to the next.
//!
//! [`SampleProfile`](super::SampleProfile) holds a B-tree node per body line, call target
//! and call site and a shared name per function: right for the merged result, which passes
//! trim and back-ends sort, but costly for the two hundred inputs of a merge that are
//! folded into it once and dropped. [`FlatSampleProfile`] holds the same content as
//! indices: names are positions in the input's own name table (merged into a merge-wide
//! table once per input, not once per use), function bodies are runs of records, and
//! inlined callees follow their caller in pre-order. Filling it again for the next input
//! allocates nothing once the vectors have grown.
//!
//! It can hold only profiles whose keys are unique at every level, in the order LLVM's
//! writers produce them (see [`FlatSampleProfile`]); readers report other inputs as not
//! flat-readable, and callers then read them as a [`SampleProfile`](super::SampleProfile).

use super::{ContextAttributes, LineLocation, ProfileSymbolList, SampleFlags, SampleFormat};

/// An entry of a flat profile's name table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlatName {
    /// An MD5 name (the low 64 bits of the MD5 of the name).
    Md5(u64),
    /// A name: bytes `start..end` of [`FlatSampleProfile::name_bytes`].
    Name {
        /// First byte.
        start: u32,
        /// One past the last byte.
        end: u32,
    },
}

/// What a top-level profile is the profile of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlatKey {
    /// A function: an index into [`FlatSampleProfile::names`].
    Function(u32),
    /// A calling context: an index into [`FlatSampleProfile::contexts`].
    Context(u32),
}

/// One frame of a calling context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatFrame {
    /// The function: an index into [`FlatSampleProfile::names`].
    pub name: u32,
    /// The call site in it of the next frame (0.0 for the leaf).
    pub location: LineLocation,
}

/// One function body: a top-level profile or an inlined callee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlatNode {
    /// The function (for a context, its leaf): an index into [`FlatSampleProfile::names`].
    pub name: u32,
    /// The call site in the caller (0.0 at top level).
    pub location: LineLocation,
    /// All samples in the function and its inlined callees.
    pub total_samples: u64,
    /// Samples of entries into the function (0 for inlined callees).
    pub head_samples: u64,
    /// CFG checksum (0: none).
    pub checksum: u64,
    /// Context attributes.
    pub attributes: ContextAttributes,
    /// The body records: `records[records_start..records_end]`.
    pub records_start: u32,
    /// One past the last record.
    pub records_end: u32,
    /// One past the last node of this node's subtree: its inlined callees are the nodes
    /// from the next one up to here, each followed by its own subtree.
    pub subtree_end: u32,
}

/// The samples of one body location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatRecord {
    /// The location.
    pub location: LineLocation,
    /// Samples at this location.
    pub samples: u64,
    /// The call targets: `targets[targets_start..targets_end]`.
    pub targets_start: u32,
    /// One past the last call target.
    pub targets_end: u32,
}

/// Samples of calls to one function from a location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatTarget {
    /// The callee: an index into [`FlatSampleProfile::names`].
    pub name: u32,
    /// Samples of calls to it.
    pub samples: u64,
}

/// A top-level profile: its key and its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatTop {
    /// The function or context.
    pub key: FlatKey,
    /// Its body: an index into [`FlatSampleProfile::nodes`].
    pub node: u32,
}

/// A sample profile as indices into plain vectors (see the module documentation).
///
/// Invariants, kept by readers (which refuse inputs that break them):
/// * every index is within its vector; a node's records and subtree lie after those of
///   earlier nodes;
/// * `tops` are in the order their keys were first met (LLVM's insertion order), no key
///   twice, and distinct name-table indices of a plain profile hold distinct names, so that
///   distinct keys are distinct functions (merges check the names as they map them);
/// * within a node: records by strictly increasing location, inlined callees by strictly
///   increasing (location, callee in [`FunctionId`](super::FunctionId) order), no call
///   target twice in a record.
///
/// Those are the orders of [`FunctionSamples`](super::FunctionSamples)' maps, so a merge
/// walking a flat profile meets everything in the order it would meet it in the map form.
#[derive(Debug, Clone, Default)]
pub struct FlatSampleProfile {
    /// The bytes of every plain name, one after the other.
    pub name_bytes: Vec<u8>,
    /// The name table.
    pub names: Vec<FlatName>,
    /// Frames of the calling contexts, outermost caller first.
    pub frames: Vec<FlatFrame>,
    /// The calling contexts, each a range of `frames` (never empty).
    pub contexts: Vec<(u32, u32)>,
    /// The top-level profiles.
    pub tops: Vec<FlatTop>,
    /// Every function body, each followed by its inlined callees (pre-order).
    pub nodes: Vec<FlatNode>,
    /// Body records of every node.
    pub records: Vec<FlatRecord>,
    /// Call targets of every record.
    pub targets: Vec<FlatTarget>,
    /// Profile-level properties.
    pub flags: SampleFlags,
    /// The profile symbol list, if the input had one.
    pub symbol_list: Option<ProfileSymbolList>,
    /// The encoding the profile was read from.
    pub format: Option<SampleFormat>,
}

impl FlatSampleProfile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the profile, keeping the vectors' capacity.
    pub fn clear(&mut self) {
        self.name_bytes.clear();
        self.names.clear();
        self.frames.clear();
        self.contexts.clear();
        self.tops.clear();
        self.nodes.clear();
        self.records.clear();
        self.targets.clear();
        self.flags = SampleFlags::default();
        self.symbol_list = None;
        self.format = None;
    }

    /// The bytes of a plain name (`None` for an MD5 name).
    pub fn name_bytes_of(&self, name: FlatName) -> Option<&[u8]> {
        match name {
            FlatName::Md5(_) => None,
            FlatName::Name { start, end } => self.name_bytes.get(start as usize..end as usize),
        }
    }

    /// The frames of context `i`.
    pub fn context_frames(&self, i: u32) -> &[FlatFrame] {
        let (s, e) = self.contexts[i as usize];
        &self.frames[s as usize..e as usize]
    }

    /// The records of `node`.
    pub fn records_of(&self, node: &FlatNode) -> &[FlatRecord] {
        &self.records[node.records_start as usize..node.records_end as usize]
    }

    /// The call targets of `record`.
    pub fn targets_of(&self, record: &FlatRecord) -> &[FlatTarget] {
        &self.targets[record.targets_start as usize..record.targets_end as usize]
    }

    /// The indices of the inlined callees directly under node `i`, in order.
    pub fn children(&self, i: u32) -> Children<'_> {
        Children {
            nodes: &self.nodes,
            next: i + 1,
            end: self.nodes[i as usize].subtree_end,
        }
    }
}

/// The inlined callees directly under a node (see [`FlatSampleProfile::children`]).
#[derive(Debug, Clone)]
pub struct Children<'a> {
    nodes: &'a [FlatNode],
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        // A subtree ends after the node itself, so this always advances.
        self.next = self.nodes[i as usize].subtree_end.max(i + 1);
        Some(i)
    }
}
