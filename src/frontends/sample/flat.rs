//! Reader of binary and extbinary sample profiles into the flat form
//! ([`FlatSampleProfile`]), the fast path of merges.
//!
//! It reads what [`super::binary`] and [`super::extbinary`] read, with the same checks, into
//! reusable vectors instead of maps. It gives up — and the caller reads the input with
//! [`super::read`], which reports any error with its offset — when the data is malformed or
//! holds what the flat form cannot: a key met twice (two profiles of one function, a body
//! line or call site repeated, a call target twice in a record), body lines or call sites
//! out of LLVM's order, a second name table, or function metadata for an inlined callee the
//! profile does not have. LLVM's writers produce none of these, so real inputs take the fast
//! path.

use crate::bytes::stack::deep;
use std::cmp::Ordering;

use super::extbinary::{read_section_table, section_bytes};
use crate::codec::sample_binary::{
    SampleCursor, SampleMagic, flag, read_header, read_summary, sec,
};
use crate::ir::sample::flat::{
    FlatFrame, FlatKey, FlatName, FlatNode, FlatRecord, FlatTarget, FlatTop,
};
use crate::ir::sample::{
    ContextAttributes, FlatSampleProfile, LineLocation, ProfileSymbolList, SampleFormat,
};
use crate::ir::symbols::Name;

/// Reads `data` into `out` (emptied first). False when `data` is not a binary or extbinary
/// sample profile that the flat form can hold, or is malformed: read it with
/// [`super::read`] then, which tells which.
pub fn read_flat(data: &[u8], out: &mut FlatSampleProfile) -> bool {
    out.clear();
    let done = match SampleMagic::sniff(data) {
        Some(SampleMagic::Binary) => read_binary(data, out),
        Some(SampleMagic::ExtBinary) => read_extbinary(data, out),
        Some(SampleMagic::CompactBinary) | None => None,
    };
    done.is_some()
}

/// The top-level profile read for each key so far (`NONE` if none).
#[derive(Default)]
struct Seen {
    functions: Vec<u32>,
    contexts: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Seen {
    /// The slot of `key`, the table grown to the key tables' sizes first.
    fn slot(&mut self, key: FlatKey, out: &FlatSampleProfile) -> &mut u32 {
        self.functions
            .resize(out.names.len().max(self.functions.len()), NONE);
        self.contexts
            .resize(out.contexts.len().max(self.contexts.len()), NONE);
        match key {
            FlatKey::Function(i) => &mut self.functions[i as usize],
            FlatKey::Context(i) => &mut self.contexts[i as usize],
        }
    }
}

fn len32(n: usize) -> Option<u32> {
    u32::try_from(n).ok().filter(|&n| n != NONE)
}

fn read_binary(data: &[u8], out: &mut FlatSampleProfile) -> Option<()> {
    let mut r = SampleCursor::new(data, 0);
    read_header(&mut r, SampleMagic::Binary).ok()?;
    read_summary(&mut r).ok()?;
    read_plain_names(&mut r, out)?;
    out.format = Some(SampleFormat::Binary);
    let mut seen = Seen::default();
    while !r.is_empty() {
        let head = r.num("").ok()?;
        let i = r.index(out.names.len(), "").ok()? as u32;
        read_top(&mut r, out, &mut seen, FlatKey::Function(i), head)?;
    }
    Some(())
}

/// One top-level profile after its head samples and key.
fn read_top(
    r: &mut SampleCursor<'_>,
    out: &mut FlatSampleProfile,
    seen: &mut Seen,
    key: FlatKey,
    head: u64,
) -> Option<()> {
    let node = len32(out.nodes.len())?;
    let slot = seen.slot(key, out);
    if *slot != NONE {
        return None;
    }
    *slot = len32(out.tops.len())?;
    out.tops.push(FlatTop { key, node });
    let name = match key {
        FlatKey::Function(i) => i,
        FlatKey::Context(c) => out.context_frames(c).last()?.name,
    };
    read_node(r, out, name, LineLocation::default(), head)
}

fn read_plain_names(r: &mut SampleCursor<'_>, out: &mut FlatSampleProfile) -> Option<()> {
    let n = r.num("").ok()?;
    for _ in 0..n {
        let s = r.string("").ok()?;
        let start = len32(out.name_bytes.len())?;
        out.name_bytes.extend_from_slice(s);
        let end = len32(out.name_bytes.len())?;
        out.names.push(FlatName::Name { start, end });
    }
    len32(out.names.len())?;
    Some(())
}

/// LLVM's `FunctionId` order of two names of the table.
fn name_cmp(out: &FlatSampleProfile, a: u32, b: u32) -> Ordering {
    let (a, b) = (out.names[a as usize], out.names[b as usize]);
    match (a, b) {
        (FlatName::Md5(x), FlatName::Md5(y)) => x.cmp(&y),
        (FlatName::Md5(_), FlatName::Name { .. }) => Ordering::Less,
        (FlatName::Name { .. }, FlatName::Md5(_)) => Ordering::Greater,
        _ => out.name_bytes_of(a).cmp(&out.name_bytes_of(b)),
    }
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

/// One function body (the part after a top-level profile's head samples and key, or an
/// inlined callee's call site and name), with the checks of
/// [`crate::codec::sample_binary::read_body`] and the flat form's order.
fn read_node(
    r: &mut SampleCursor<'_>,
    out: &mut FlatSampleProfile,
    name: u32,
    location: LineLocation,
    head_samples: u64,
) -> Option<()> {
    let index = out.nodes.len();
    len32(index)?;
    out.nodes.push(FlatNode {
        name,
        location,
        head_samples,
        ..FlatNode::default()
    });
    let total_samples = r.num("").ok()?;
    let records = r.num_u32("").ok()?;
    let records_start = len32(out.records.len())?;
    let mut prev: Option<LineLocation> = None;
    for _ in 0..records {
        let line = r.line_offset("").ok()?;
        let disc = r.num("").ok()? as u32;
        let samples = r.num("").ok()?;
        let calls = r.num_u32("").ok()?;
        let loc = LineLocation::new(line, disc);
        if prev.is_some_and(|p| p >= loc) {
            return None;
        }
        prev = Some(loc);
        let targets_start = len32(out.targets.len())?;
        for _ in 0..calls {
            let name = r.index(out.names.len(), "").ok()? as u32;
            let samples = r.num("").ok()?;
            out.targets.push(FlatTarget { name, samples });
        }
        if !distinct(&out.targets[targets_start as usize..]) {
            return None;
        }
        out.records.push(FlatRecord {
            location: loc,
            samples,
            targets_start,
            targets_end: len32(out.targets.len())?,
        });
    }
    let records_end = len32(out.records.len())?;
    let sites = r.num_u32("").ok()?;
    let mut prev: Option<(LineLocation, u32)> = None;
    for _ in 0..sites {
        let line = r.num("").ok()? as u32;
        let disc = r.num("").ok()? as u32;
        let callee = r.index(out.names.len(), "").ok()? as u32;
        let loc = LineLocation::new(line, disc);
        if let Some((pl, pn)) = prev {
            let order = pl.cmp(&loc).then_with(|| name_cmp(out, pn, callee));
            if order != Ordering::Less {
                return None;
            }
        }
        prev = Some((loc, callee));
        deep(|| read_node(r, out, callee, loc, 0))?;
    }
    let subtree_end = len32(out.nodes.len())?;
    let n = &mut out.nodes[index];
    n.total_samples = total_samples;
    n.records_start = records_start;
    n.records_end = records_end;
    n.subtree_end = subtree_end;
    Some(())
}

/// What extbinary sections tell the ones after them.
#[derive(Default)]
struct State {
    seen: Seen,
    names_read: bool,
    contexts_read: bool,
    context_sensitive: bool,
    /// As in the map reader: a function profile section has been read, so a later summary
    /// flag does not make the profile context-sensitive.
    profiles_read: bool,
    probe_based: bool,
    has_attributes: bool,
}

fn read_extbinary(data: &[u8], out: &mut FlatSampleProfile) -> Option<()> {
    let table = read_section_table(data).ok()?;
    out.format = Some(SampleFormat::ExtBinary);
    let mut st = State::default();
    let mut inflated = Vec::new();
    let mut budget = crate::bytes::limits::InflateBudget::new().ok()?;
    for e in &table {
        if e.size == 0 {
            continue;
        }
        let (bytes, _) = section_bytes(data, e, &mut inflated, &mut budget).ok()?;
        read_section(bytes, e.kind, e.flags, &mut st, out)?;
    }
    out.flags.context_sensitive = st.context_sensitive;
    out.flags.probe_based = st.probe_based;
    Some(())
}

fn read_section(
    bytes: &[u8],
    kind: u64,
    flags: u64,
    st: &mut State,
    out: &mut FlatSampleProfile,
) -> Option<()> {
    let mut r = SampleCursor::new(bytes, 0);
    match kind {
        sec::SUMMARY => {
            read_summary(&mut r).ok()?;
            let f = &mut out.flags;
            f.partial |= flags & flag::PARTIAL != 0;
            st.context_sensitive |= flags & flag::FULL_CONTEXT != 0 && !st.profiles_read;
            f.preinlined |= flags & flag::PRE_INLINED != 0;
            f.fs_discriminator |= flags & flag::FS_DISCRIMINATOR != 0;
            if flags & flag::HAS_VTABLE_TYPE_PROF != 0 {
                return None;
            }
        }
        sec::NAME_TABLE => {
            // A second table would renumber the names profiles already refer to.
            if st.names_read {
                return None;
            }
            st.names_read = true;
            let md5 = flags & flag::MD5_NAME != 0;
            out.flags.md5_names |= md5;
            if flags & flag::FIXED_LENGTH_MD5 != 0 {
                let n = r.num("").ok()?;
                if n > r.c.remaining() as u64 / 8 {
                    return None;
                }
                for _ in 0..n {
                    out.names.push(FlatName::Md5(r.u64_le("").ok()?));
                }
            } else if md5 {
                let n = r.num("").ok()?;
                for _ in 0..n {
                    out.names.push(FlatName::Md5(r.num("").ok()?));
                }
            } else {
                read_plain_names(&mut r, out)?;
            }
            len32(out.names.len())?;
        }
        sec::CS_NAME_TABLE => {
            if st.contexts_read {
                return None;
            }
            st.contexts_read = true;
            let n = r.num("").ok()?;
            for _ in 0..n {
                let frames = r.num_u32("").ok()?;
                if frames == 0 {
                    return None;
                }
                let start = len32(out.frames.len())?;
                for _ in 0..frames {
                    let name = r.index(out.names.len(), "").ok()? as u32;
                    let line = r.line_offset("").ok()?;
                    let disc = r.num("").ok()? as u32;
                    out.frames.push(FlatFrame {
                        name,
                        location: LineLocation::new(line, disc),
                    });
                }
                out.contexts.push((start, len32(out.frames.len())?));
            }
            len32(out.contexts.len())?;
        }
        sec::LBR_PROFILE => {
            st.profiles_read = true;
            while !r.is_empty() {
                let head = r.num("").ok()?;
                let key = read_key(&mut r, st, out)?;
                read_top(&mut r, out, &mut st.seen, key, head)?;
            }
        }
        sec::FUNC_METADATA => {
            st.probe_based = flags & flag::PROBE_BASED != 0;
            out.flags.sets_probe_flag = true;
            st.has_attributes = flags & flag::HAS_ATTRIBUTE != 0;
            while !r.is_empty() {
                let key = read_key(&mut r, st, out)?;
                let top = *st.seen.slot(key, out);
                let node = (top != NONE).then(|| out.tops[top as usize].node);
                read_metadata(&mut r, st, out, node)?;
            }
        }
        sec::SYMBOL_LIST => {
            let list = out
                .symbol_list
                .get_or_insert_with(ProfileSymbolList::default);
            let mut rest = bytes;
            while !rest.is_empty() {
                let n = memchr::memchr(0, rest)?;
                list.names.insert(Name::from(&rest[..n]));
                rest = &rest[n + 1..];
            }
            return Some(());
        }
        _ => return Some(()),
    }
    r.is_empty().then_some(())
}

/// A top-level key: a context index when the profile is context-sensitive, else a name
/// index.
fn read_key(r: &mut SampleCursor<'_>, st: &State, out: &FlatSampleProfile) -> Option<FlatKey> {
    if st.context_sensitive {
        Some(FlatKey::Context(
            r.index(out.contexts.len(), "").ok()? as u32
        ))
    } else {
        Some(FlatKey::Function(r.index(out.names.len(), "").ok()? as u32))
    }
}

/// One function's metadata, applied to `node` when the profile has it; an inlined callee
/// the profile lacks (which LLVM's reader would create) makes the input not flat-readable.
fn read_metadata(
    r: &mut SampleCursor<'_>,
    st: &State,
    out: &mut FlatSampleProfile,
    node: Option<u32>,
) -> Option<()> {
    if r.is_empty() {
        return Some(());
    }
    if st.probe_based {
        let checksum = r.num("").ok()?;
        if let Some(n) = node {
            out.nodes[n as usize].checksum = checksum;
        }
    }
    if st.has_attributes {
        let a = r.num_u32("").ok()?;
        if let Some(n) = node {
            out.nodes[n as usize].attributes = ContextAttributes(a);
        }
    }
    if !st.context_sensitive {
        let count = r.num_u32("").ok()?;
        for _ in 0..count {
            let line = r.num("").ok()? as u32;
            let disc = r.num("").ok()? as u32;
            let name = r.index(out.names.len(), "").ok()? as u32;
            let loc = LineLocation::new(line, disc);
            let callee = match node {
                Some(n) => Some(out.children(n).find(|&c| {
                    let c = &out.nodes[c as usize];
                    c.location == loc && c.name == name
                })?),
                None => None,
            };
            deep(|| read_metadata(r, st, out, callee))?;
        }
    }
    Some(())
}
