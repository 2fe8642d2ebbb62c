//! A sample profile in flat form: one input of a merge, parsed into a few plain vectors that
//! are reused from one input to the next.
//!
//! [`super::SampleProfile`] holds a B-tree node per body line, call target
//! and call site and a shared name per function: right for the merged result, which passes
//! trim and back-ends sort, but costly for the two hundred inputs of a merge that are
//! folded into it once and dropped. [`FlatSampleProfile`] holds the same content as
//! indices: names are positions in the input's own name table (merged into a merge-wide
//! table once per input, not once per use), function bodies are runs of records, and
//! inlined callees follow their caller in pre-order. Filling it again for the next input
//! allocates nothing once the vectors have grown.
//!
//! It is also the view the binary readers yield: whatever they read lands here, in the
//! order read, and [`FlatSampleProfile::to_profile`] builds the tree form from it (adding
//! up what repeats, as LLVM's readers add it). A merge folds the flat form directly only
//! when it is [`canonical`](FlatSampleProfile::canonical): keys unique at every level, in
//! the order LLVM's writers produce them (see [`FlatSampleProfile`]); otherwise it folds
//! the tree built from it.

use crate::bytes::stack::deep;
use crate::ir::summary::Summary;

use super::{
    ContextAttributes, ContextFrame, FunctionId, FunctionSamples, LineLocation, ProfileSymbolList,
    SampleContext, SampleFlags, SampleFormat, SampleProfile, saturating_mul_add,
};

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

/// The vtable type counts of one location of a node (LLVM 22's extbinary with
/// `SecFlagHasVTableTypeProf`): `type_counts[start..end]`, each type's first count only (a
/// type repeated at one location is ignored after its first count, as LLVM's reader ignores
/// it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatTypeSite {
    /// The node: an index into [`FlatSampleProfile::nodes`].
    pub node: u32,
    /// The location in it.
    pub location: LineLocation,
    /// The first type count.
    pub start: u32,
    /// One past the last type count.
    pub end: u32,
}

/// A top-level profile: its key and its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatTop {
    /// The function or context.
    pub key: FlatKey,
    /// Its body: an index into [`FlatSampleProfile::nodes`].
    pub node: u32,
}

/// Function metadata (a CFG checksum, context attributes) for an inlined callee the profile
/// did not have when the metadata was read: LLVM's reader creates that callee, unnamed
/// (`FunctionId::Md5(0)`), keyed by the callee's name. Applied by
/// [`FlatSampleProfile::to_profile`] in the order read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatMetadata {
    /// The top-level profile it belongs to (found by its function or context, not by its
    /// index in the name table).
    pub key: FlatKey,
    /// How many top-level profiles were read before it (it applies after them).
    pub after_tops: u32,
    /// The call sites from the top level down to the callee:
    /// `metadata_path[path_start..path_end]`.
    pub path_start: u32,
    /// One past the last call site.
    pub path_end: u32,
    /// The CFG checksum, if the section has checksums.
    pub checksum: Option<u64>,
    /// The attributes, if the section has them.
    pub attributes: Option<u32>,
}

/// One call site of a [`FlatMetadata`] path: its location (as written, unmasked) and the
/// callee, an index into [`FlatSampleProfile::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatSite {
    /// The call site.
    pub location: LineLocation,
    /// The callee.
    pub name: u32,
}

/// A sample profile as indices into plain vectors (see the module documentation).
///
/// Always: every index is within its vector; a node's records and subtree lie after those
/// of earlier nodes. When [`canonical`](Self::canonical) also (readers check it as they
/// read):
/// * `tops` are in the order their keys were first met (LLVM's insertion order), no key
///   twice, and distinct name-table indices of a plain profile hold distinct names, so that
///   distinct keys are distinct functions (merges check the names as they map them);
/// * within a node: records by strictly increasing location, inlined callees by strictly
///   increasing (location, callee in [`super::FunctionId`] order), no call
///   target twice in a record;
/// * `metadata` and `type_sites` are empty.
///
/// Those are the orders of [`super::FunctionSamples`]' maps, so a merge
/// walking a canonical flat profile meets everything in the order it would meet it in the
/// map form.
#[derive(Debug, Clone)]
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
    /// The profile summary stored in the input (binary encodings; the last one read).
    pub stored_summary: Option<Summary>,
    /// The invariants of a canonical profile hold (see the type's documentation).
    pub canonical: bool,
    /// Metadata for inlined callees the profile did not have (never in a canonical one).
    pub metadata: Vec<FlatMetadata>,
    /// The call-site paths of `metadata`.
    pub metadata_path: Vec<FlatSite>,
    /// Vtable type counts by node and location, in the order read (never in a canonical
    /// profile: a node's come after its inlined callees' in the file).
    pub type_sites: Vec<FlatTypeSite>,
    /// The counts of `type_sites`: a vtable (an index into `names`) and its samples.
    pub type_counts: Vec<FlatTarget>,
}

impl Default for FlatSampleProfile {
    fn default() -> Self {
        FlatSampleProfile {
            name_bytes: Vec::new(),
            names: Vec::new(),
            frames: Vec::new(),
            contexts: Vec::new(),
            tops: Vec::new(),
            nodes: Vec::new(),
            records: Vec::new(),
            targets: Vec::new(),
            flags: SampleFlags::default(),
            symbol_list: None,
            format: None,
            stored_summary: None,
            canonical: true,
            metadata: Vec::new(),
            metadata_path: Vec::new(),
            type_sites: Vec::new(),
            type_counts: Vec::new(),
        }
    }
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
        self.stored_summary = None;
        self.canonical = true;
        self.metadata.clear();
        self.metadata_path.clear();
        self.type_sites.clear();
        self.type_counts.clear();
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

/// Building the tree form ([`SampleProfile`]) from the flat form: the "views → tree" step of
/// the binary readers, which add up what repeats as LLVM's readers do (counts saturate).
impl FlatSampleProfile {
    /// The profile in tree form: top-level profiles of one key, body lines of one location,
    /// call targets of one name and inlined callees of one (location, name) add up, in the
    /// order read; metadata for callees the profile lacked creates them as LLVM does.
    pub fn to_profile(&self) -> SampleProfile {
        let ids = self.function_ids();
        let types = self.type_sites_by_node();
        let b = Build {
            ids: &ids,
            types: &types,
        };
        let mut profile = SampleProfile::new();
        profile.flags = self.flags;
        profile.symbol_list = self.symbol_list.clone();
        profile.format = self.format;
        profile.stored_summary = self.stored_summary.clone();
        let mut metadata = self.metadata.iter().peekable();
        for (i, top) in self.tops.iter().enumerate() {
            while let Some(m) = metadata.next_if(|m| m.after_tops as usize <= i) {
                self.apply_metadata(m, &ids, &mut profile);
            }
            let context = self.context_of(top.key, &ids);
            if !profile.functions.contains_key(&context) {
                profile.insertion_order.push(context.clone());
            }
            let f = profile.entry(context);
            let node = &self.nodes[top.node as usize];
            f.head_samples = f.head_samples.saturating_add(node.head_samples);
            self.add_node(top.node, &b, f);
        }
        for m in metadata {
            self.apply_metadata(m, &ids, &mut profile);
        }
        profile
    }

    /// The indices of `type_sites`, by node (stable: in the order read within a node).
    fn type_sites_by_node(&self) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.type_sites.len() as u32).collect();
        v.sort_by_key(|&i| self.type_sites[i as usize].node);
        v
    }

    /// The function identity of every name-table entry.
    fn function_ids(&self) -> Vec<FunctionId> {
        self.names
            .iter()
            .map(|&n| match n {
                FlatName::Md5(h) => FunctionId::Md5(h),
                FlatName::Name { .. } => FunctionId::name(self.name_bytes_of(n).unwrap_or(&[])),
            })
            .collect()
    }

    /// The context of a top-level key.
    fn context_of(&self, key: FlatKey, ids: &[FunctionId]) -> SampleContext {
        match key {
            FlatKey::Function(i) => SampleContext::Function(ids[i as usize].clone()),
            FlatKey::Context(c) => SampleContext::Context(
                self.context_frames(c)
                    .iter()
                    .map(|f| ContextFrame {
                        function: ids[f.name as usize].clone(),
                        location: f.location,
                    })
                    .collect(),
            ),
        }
    }

    /// Adds node `node` (its totals, body and inlined callees) to `f`. Checksums and
    /// attributes are set only on a function made from the node (metadata, not samples).
    fn add_node(&self, node: u32, b: &Build<'_>, f: &mut FunctionSamples) {
        let ids = b.ids;
        let n = &self.nodes[node as usize];
        if n.checksum != 0 {
            f.checksum = n.checksum;
        }
        if n.attributes != ContextAttributes::default() {
            f.attributes = n.attributes;
        }
        f.total_samples = saturating_mul_add(n.total_samples, 1, f.total_samples).0;
        for r in self.records_of(n) {
            let rec = f.body.entry(r.location).or_default();
            for t in self.targets_of(r) {
                rec.add_call_target(ids[t.name as usize].clone(), t.samples, 1);
            }
            rec.add_samples(r.samples, 1);
        }
        for c in self.children(node) {
            let cn = &self.nodes[c as usize];
            let callee = f.callee_mut(cn.location, &ids[cn.name as usize]);
            deep(|| self.add_node(c, b, callee));
        }
        self.add_types(node, b, f);
    }

    /// Adds node `node`'s vtable type counts to `f`: a type `f` already has at a location
    /// keeps its count, as LLVM's reader keeps the first it reads.
    fn add_types(&self, node: u32, b: &Build<'_>, f: &mut FunctionSamples) {
        let sites = b.types;
        let first = sites.partition_point(|&i| self.type_sites[i as usize].node < node);
        for &i in &sites[first..] {
            let site = &self.type_sites[i as usize];
            if site.node != node {
                break;
            }
            let m = f.type_counts.entry(site.location).or_default();
            for t in &self.type_counts[site.start as usize..site.end as usize] {
                m.entry(b.ids[t.name as usize].clone()).or_insert(t.samples);
            }
        }
    }

    /// Applies one metadata entry to the function or callee it names, if its top-level
    /// profile exists, creating the missing callees on the way.
    fn apply_metadata(&self, m: &FlatMetadata, ids: &[FunctionId], profile: &mut SampleProfile) {
        let Some(mut f) = profile.functions.get_mut(&self.context_of(m.key, ids)) else {
            return;
        };
        for site in &self.metadata_path[m.path_start as usize..m.path_end as usize] {
            f = f
                .callsites
                .entry(site.location)
                .or_default()
                .entry(ids[site.name as usize].clone())
                .or_insert_with(|| FunctionSamples::new(FunctionId::Md5(0)));
        }
        if let Some(c) = m.checksum {
            f.checksum = c;
        }
        if let Some(a) = m.attributes {
            f.attributes = ContextAttributes(a);
        }
    }
}

/// What [`FlatSampleProfile::to_profile`] looks names and type counts up in.
struct Build<'a> {
    /// The function identity of every name-table entry.
    ids: &'a [FunctionId],
    /// Indices of `type_sites`, sorted by node.
    types: &'a [u32],
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
