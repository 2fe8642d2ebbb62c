//! The one reader of LLVM's binary sample encodings' function profiles, and of `SPF_Binary`
//! files (`llvm-profdata merge --sample --binary`).
//!
//! Both binary encodings read into the flat form ([`FlatSampleProfile`]): reusable vectors,
//! names as indices into the input's name table, in the order read. Merges fold that form
//! when it is [`canonical`](FlatSampleProfile::canonical) (what LLVM's writers write);
//! everything else — `show`, conversions, inputs with repeated keys or out-of-order lines —
//! uses the tree built from it ([`FlatSampleProfile::to_profile`], which adds up what repeats
//! as LLVM's reader does). Errors name the offset and what was expected.
//!
//! `SPF_Binary` layout: magic, version 103, the profile summary, a plain name table, then
//! function profiles (head samples, name index, body; see [`crate::codec::sample_binary`])
//! up to the end of the file. The format has no context-sensitive or probe-based variant
//! (LLVM refuses to write those), and no way to say where the last profile ends other than
//! the file's end, so a file cut between two profiles reads as a shorter valid profile, as
//! it does for LLVM.

use std::cmp::Ordering;

use crate::bytes::stack::deep;
use crate::codec::sample_binary::{SampleCursor, SampleMagic, read_header, read_summary};
use crate::error::{Error, Result};
use crate::ir::sample::flat::{
    FlatKey, FlatName, FlatNode, FlatRecord, FlatTarget, FlatTop, FlatTypeSite,
};
use crate::ir::sample::{FlatSampleProfile, LineLocation, SampleFormat, SampleProfile};

/// Reads a whole `SPF_Binary` file.
pub fn read(data: &[u8]) -> Result<SampleProfile> {
    read_fs(data, None)
}

/// Reads a whole `SPF_Binary` file whose discriminators are flow-sensitive when `fs` is the
/// mask of the bits to keep (llvm-profdata's `--profile-isfs` with the mask of its
/// `--fs-discriminator-pass`; the format has no flag of its own for it): body records and
/// inlined callsites keep those bits, and the profile is marked flow-sensitive.
pub fn read_fs(data: &[u8], fs: Option<u32>) -> Result<SampleProfile> {
    let mut flat = FlatSampleProfile::new();
    read_flat(data, fs, &mut flat)?;
    Ok(flat.to_profile())
}

/// Reads a whole `SPF_Binary` file into `out` (emptied first); `fs` as in [`read_fs`].
pub fn read_flat(data: &[u8], fs: Option<u32>, out: &mut FlatSampleProfile) -> Result<()> {
    out.clear();
    let mut r = SampleCursor::new(data, 0);
    read_header(&mut r, SampleMagic::Binary)?;
    out.stored_summary = Some(read_summary(&mut r)?.to_summary());
    out.format = Some(SampleFormat::Binary);
    out.flags.fs_discriminator = fs.is_some();
    let mut reader = FlatReader::new(out);
    reader.mask = fs.unwrap_or(u32::MAX);
    reader.read_plain_names(&mut r)?;
    while !r.is_empty() {
        let head = r.num("function: head samples")?;
        let key = FlatKey::Function(reader.name_index(&mut r, "function: name index")?);
        reader.read_top(&mut r, key, head)?;
    }
    Ok(())
}

/// The top-level profile read first for each key so far (`NONE` if none).
#[derive(Default)]
struct Seen {
    functions: Vec<u32>,
    contexts: Vec<u32>,
}

/// No top-level profile.
pub(super) const NONE: u32 = u32::MAX;

impl Seen {
    /// The slot of `key`, the table grown to the key tables' sizes first.
    fn slot(&mut self, key: FlatKey, out: &FlatSampleProfile) -> &mut u32 {
        if self.functions.len() < out.names.len() {
            self.functions.resize(out.names.len(), NONE);
        }
        if self.contexts.len() < out.contexts.len() {
            self.contexts.resize(out.contexts.len(), NONE);
        }
        match key {
            FlatKey::Function(i) => &mut self.functions[i as usize],
            FlatKey::Context(i) => &mut self.contexts[i as usize],
        }
    }
}

/// A length or index of the flat form as `u32` (its indices are 32-bit). Called for every
/// record read: inlined, its error built apart.
#[inline]
pub(super) fn len32(n: usize, what: &'static str, at: u64) -> Result<u32> {
    match u32::try_from(n) {
        Ok(n) if n != NONE => Ok(n),
        _ => Err(too_many(what, at)),
    }
}

/// The error of [`len32`]: more entries than 32-bit indices reach.
#[cold]
#[inline(never)]
fn too_many(what: &'static str, at: u64) -> Error {
    Error::malformed(at, what, "more than 2^32-2 entries")
}

/// Reads function profiles and name tables into a flat profile, checking as it goes
/// whether the profile is canonical.
pub(super) struct FlatReader<'o> {
    pub(super) out: &'o mut FlatSampleProfile,
    seen: Seen,
    /// The discriminator bits kept in body records and inlined callsites.
    pub(super) mask: u32,
    /// Every body ends with its vtable type counts (an extbinary summary section with
    /// `SecFlagHasVTableTypeProf`).
    pub(super) vtables: bool,
    /// The current name table: `out.names[names_base..names_base + names_len]` (a later
    /// table replaces an earlier one for what follows, as in LLVM).
    names_base: u32,
    names_len: u32,
    names_read: bool,
}

impl<'o> FlatReader<'o> {
    pub(super) fn new(out: &'o mut FlatSampleProfile) -> Self {
        FlatReader {
            out,
            seen: Seen::default(),
            mask: u32::MAX,
            vtables: false,
            names_base: 0,
            names_len: 0,
            names_read: false,
        }
    }

    /// Starts a new name table at the end of the names read so far.
    pub(super) fn begin_names(&mut self) {
        if std::mem::replace(&mut self.names_read, true) {
            // Earlier profiles keep the names they were read with; the same name may now
            // have two indices.
            self.out.canonical = false;
        }
        self.names_base = self.out.names.len() as u32;
        self.names_len = 0;
    }

    /// Ends the name table begun by [`Self::begin_names`].
    pub(super) fn end_names(&mut self, at: u64) -> Result<()> {
        let n = len32(self.out.names.len(), "name table", at)?;
        self.names_len = n - self.names_base;
        Ok(())
    }

    /// Reads a plain name table: a count, then NUL-terminated names.
    pub(super) fn read_plain_names(&mut self, r: &mut SampleCursor<'_>) -> Result<()> {
        self.begin_names();
        let n = r.num("name table: number of names")?;
        // Every name takes at least its NUL: more names than bytes left is truncation.
        let room = n.min(r.c.remaining() as u64) as usize;
        crate::sys::alloc::reserve(&mut self.out.names, room, "the name table")?;
        for _ in 0..n {
            let at = r.offset();
            let s = r.string("name table: name")?;
            let start = len32(self.out.name_bytes.len(), "name table", at)?;
            self.out.name_bytes.extend_from_slice(s);
            let end = len32(self.out.name_bytes.len(), "name table", at)?;
            self.out.names.push(FlatName::Name { start, end });
        }
        self.end_names(r.offset())
    }

    /// A name-table index into the current table, as an index of `out.names`.
    pub(super) fn name_index(&self, r: &mut SampleCursor<'_>, what: &'static str) -> Result<u32> {
        Ok(self.names_base + r.index(self.names_len as usize, what)? as u32)
    }

    /// The top-level profile first read for `key`, if any.
    pub(super) fn top_of(&mut self, key: FlatKey) -> Option<u32> {
        let slot = *self.seen.slot(key, self.out);
        (slot != NONE).then_some(slot)
    }

    /// One top-level profile after its head samples and key.
    pub(super) fn read_top(
        &mut self,
        r: &mut SampleCursor<'_>,
        key: FlatKey,
        head: u64,
    ) -> Result<()> {
        let at = r.offset();
        let node = len32(self.out.nodes.len(), "function profiles", at)?;
        let top = len32(self.out.tops.len(), "function profiles", at)?;
        let slot = self.seen.slot(key, self.out);
        if *slot == NONE {
            *slot = top;
        } else {
            self.out.canonical = false;
        }
        self.out.tops.push(FlatTop { key, node });
        let name = match key {
            FlatKey::Function(i) => i,
            // Contexts are never empty (the context table refuses empty ones).
            FlatKey::Context(c) => self.out.context_frames(c).last().map_or(0, |f| f.name),
        };
        self.read_node(r, name, LineLocation::default(), head)
    }

    /// LLVM's `FunctionId` order of two names of the table.
    fn name_cmp(&self, a: u32, b: u32) -> Ordering {
        let out = &*self.out;
        let (a, b) = (out.names[a as usize], out.names[b as usize]);
        match (a, b) {
            (FlatName::Md5(x), FlatName::Md5(y)) => x.cmp(&y),
            (FlatName::Md5(_), FlatName::Name { .. }) => Ordering::Less,
            (FlatName::Name { .. }, FlatName::Md5(_)) => Ordering::Greater,
            _ => out.name_bytes_of(a).cmp(&out.name_bytes_of(b)),
        }
    }

    /// One function body (the part after a top-level profile's head samples and key, or an
    /// inlined callee's call site and name). Inlined callees nest as deep as the file says
    /// (as in LLVM): each level recurses through [`deep`].
    fn read_node(
        &mut self,
        r: &mut SampleCursor<'_>,
        name: u32,
        location: LineLocation,
        head_samples: u64,
    ) -> Result<()> {
        let index = self.out.nodes.len();
        self.out.nodes.push(FlatNode {
            name,
            location,
            head_samples,
            ..FlatNode::default()
        });
        let total_samples = r.num("function: total samples")?;
        let records_start = len32(self.out.records.len(), "body records", r.offset())?;
        self.read_records(r)?;
        let records_end = len32(self.out.records.len(), "body records", r.offset())?;
        self.read_callsites(r)?;
        if self.vtables {
            self.read_types(r, index)?;
        }
        let subtree_end = len32(self.out.nodes.len(), "inlined callees", r.offset())?;
        let n = &mut self.out.nodes[index];
        n.total_samples = total_samples;
        n.records_start = records_start;
        n.records_end = records_end;
        n.subtree_end = subtree_end;
        Ok(())
    }

    /// A body's records and their call targets.
    fn read_records(&mut self, r: &mut SampleCursor<'_>) -> Result<()> {
        let records = r.num_u32("function: number of body records")?;
        let mut prev: Option<LineLocation> = None;
        for _ in 0..records {
            let line = r.line_offset("body record: line offset")?;
            // LLVM keeps the discriminator's low 32 bits, then its FS mask.
            let disc = r.num("body record: discriminator")? as u32 & self.mask;
            let samples = r.num("body record: samples")?;
            let calls = r.num_u32("body record: number of call targets")?;
            let loc = LineLocation::new(line, disc);
            if prev.is_some_and(|p| p >= loc) {
                self.out.canonical = false;
            }
            prev = Some(loc);
            let targets_start = len32(self.out.targets.len(), "call targets", r.offset())?;
            for _ in 0..calls {
                let name = self.name_index(r, "call target: name index")?;
                let samples = r.num("call target: samples")?;
                self.out.targets.push(FlatTarget { name, samples });
            }
            if !distinct(&self.out.targets[targets_start as usize..]) {
                self.out.canonical = false;
            }
            let targets_end = len32(self.out.targets.len(), "call targets", r.offset())?;
            self.out.records.push(FlatRecord {
                location: loc,
                samples,
                targets_start,
                targets_end,
            });
        }
        Ok(())
    }

    /// A body's vtable type counts (after its inlined callees): a count of locations, each
    /// with a count of (vtable name index, samples) pairs. A vtable repeated at a location
    /// keeps its first count, as in LLVM (which warns).
    fn read_types(&mut self, r: &mut SampleCursor<'_>, node: usize) -> Result<()> {
        let sites = r.num_u32("vtable types: number of locations")?;
        for _ in 0..sites {
            let line = r.line_offset("vtable types: line offset")?;
            let disc = r.num("vtable types: discriminator")? as u32 & self.mask;
            let types = r.num_u32("vtable types: number of types")?;
            let start = len32(self.out.type_counts.len(), "vtable types", r.offset())?;
            for _ in 0..types {
                let name = self.name_index(r, "vtable type: name index")?;
                let samples = r.num("vtable type: samples")?;
                self.out.type_counts.push(FlatTarget { name, samples });
            }
            if !distinct(&self.out.type_counts[start as usize..]) {
                keep_first_of_each(&mut self.out.type_counts, start as usize);
            }
            let end = len32(self.out.type_counts.len(), "vtable types", r.offset())?;
            self.out.type_sites.push(FlatTypeSite {
                node: node as u32,
                location: LineLocation::new(line, disc),
                start,
                end,
            });
            self.out.canonical = false;
        }
        Ok(())
    }

    /// A body's inlined callees, each with its own body.
    fn read_callsites(&mut self, r: &mut SampleCursor<'_>) -> Result<()> {
        let sites = r.num_u32("function: number of inlined callsites")?;
        let mut prev: Option<(LineLocation, u32)> = None;
        for _ in 0..sites {
            // LLVM narrows the line offset to 32 bits here without checking it.
            let line = r.num("callsite: line offset")? as u32;
            let disc = r.num("callsite: discriminator")? as u32 & self.mask;
            let callee = self.name_index(r, "callsite: callee name index")?;
            let loc = LineLocation::new(line, disc);
            if let Some((pl, pn)) = prev
                && pl.cmp(&loc).then_with(|| self.name_cmp(pn, callee)) != Ordering::Less
            {
                self.out.canonical = false;
            }
            prev = Some((loc, callee));
            deep(|| self.read_node(r, callee, loc, 0))?;
        }
        Ok(())
    }
}

/// Drops every entry of `v[start..]` whose name appeared earlier in it.
fn keep_first_of_each(v: &mut Vec<FlatTarget>, start: usize) {
    let mut seen = std::collections::HashSet::new();
    let mut kept = start;
    for i in start..v.len() {
        if seen.insert(v[i].name) {
            v[kept] = v[i];
            kept += 1;
        }
    }
    v.truncate(kept);
}

/// True if no name index appears twice among `targets`.
pub(super) fn distinct(targets: &[FlatTarget]) -> bool {
    if targets.len() <= 16 {
        targets
            .iter()
            .enumerate()
            .all(|(i, t)| targets[..i].iter().all(|u| u.name != t.name))
    } else {
        let mut v: Vec<u32> = targets.iter().map(|t| t.name).collect();
        v.sort_unstable();
        v.windows(2).all(|w| w[0] != w[1])
    }
}
