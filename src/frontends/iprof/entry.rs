//! Lowering of one section entry ([`lower_entry`]): its context string into a context-tree
//! site, its records into the payload at that site, each problem reported through the
//! [`Sink`] (an error in strict mode; in lenient mode a warning, and the entry is dropped).
//!
//! The records are checked before the context is interned, so a dropped entry leaves no
//! node in the tree. Counts read from the file are non-negative `i64`s, clamped to
//! [`MAX_COUNT`]; BCIs and branch indices must fit a Java `int`. A section may hold a
//! context only once ([`Scratch::first_seen`], cleared at each section). Counts are scaled
//! as they are added to what the target already holds at the site; monitor histograms are
//! only summed here, into [`Sink::monitors`], and scaled once at the end of the input.

use crate::error::Result;
use crate::ir::context::{Frame, Site};
use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{
    Branch, MAX_COUNT, Section, TypeCount, add_counts, merge_branches, merge_histogram,
};

use super::ctx::{RawFrame, parse_ctx};
use super::lower::Sink;
use super::model::ProfileEntry;
use super::resolver::Resolver;

/// Reusable buffers of [`lower_entry`].
#[derive(Default)]
pub(super) struct Scratch {
    raw: Vec<RawFrame>,
    frames: Vec<Frame>,
    /// Sites of the current section → index of the entry that had them first.
    pub(super) first_seen: FxHashMap<Site, u32>,
    pub(super) histogram: Vec<TypeCount>,
}

fn count(v: i64) -> Option<u64> {
    u64::try_from(v).ok().map(|c| c.min(MAX_COUNT))
}

/// Reads `(type id, count)` pairs into `out`; false if the records were bad (and dropped).
pub(super) fn pairs(
    l: &mut Sink,
    path: &str,
    records: &[i64],
    res: &mut Resolver<'_>,
    out: &mut Vec<TypeCount>,
) -> Result<bool> {
    out.clear();
    if !records.len().is_multiple_of(2) {
        l.problem(
            path.to_string(),
            format!(
                "{} values is not a multiple of 2 ((type id, count) pairs)",
                records.len()
            ),
        )?;
        return Ok(false);
    }
    for (k, pair) in records.chunks_exact(2).enumerate() {
        let (&[t, c], idx) = (pair, 2 * k) else {
            continue;
        };
        let Some(ty) = res.type_id(&mut l.out.profile.symbols, t) else {
            l.problem(
                format!("{path}[{idx}]"),
                format!("type id {t} is not in `types`"),
            )?;
            return Ok(false);
        };
        let Some(c) = count(c) else {
            l.problem(
                format!("{path}[{}]", idx + 1),
                format!("count {c} is negative"),
            )?;
            return Ok(false);
        };
        merge_histogram(out, [TypeCount { ty, count: c }]);
    }
    Ok(true)
}

/// For a duplicate-context message: the types that share a name (methods are identified
/// by name and signature type *names*, so two methods that differ only in such types are
/// one method, and their contexts collide). Empty if every name is distinct.
fn same_named_types(types: &[super::model::TypeEntry<'_>]) -> String {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut pairs = Vec::new();
    for (k, t) in types.iter().enumerate() {
        match first.get(t.name.as_ref()) {
            Some(&j) => {
                let a = types.get(j).map_or(0, |x| x.id);
                pairs.push(format!(
                    "types[{j}] (id {a}) and types[{k}] (id {}) are both named {:?}",
                    t.id, t.name
                ));
            }
            None => {
                first.insert(t.name.as_ref(), k);
            }
        }
    }
    if pairs.is_empty() {
        return String::new();
    }
    let n = pairs.len();
    pairs.truncate(3);
    format!(
        " — the file has {n} pair{} of types with one name ({}{}), and methods are \
         identified by the names of their types, so methods that differ only in those types \
         are one method",
        if n == 1 { "" } else { "s" },
        pairs.join("; "),
        if n > 3 { "; …" } else { "" }
    )
}

/// Where an entry is and how to read it: its section, the section's key and the entry's
/// index in it (for JSON paths), the entry, and the separator of the context string.
pub(super) struct EntryAt<'a, 'e> {
    pub(super) section: Section,
    pub(super) key: &'a str,
    pub(super) index: usize,
    pub(super) entry: &'a ProfileEntry<'e>,
    pub(super) sep: u8,
}

impl EntryAt<'_, '_> {
    /// JSON path of the entry's context.
    fn ctx_path(&self) -> String {
        format!("{}[{}].ctx", self.key, self.index)
    }

    /// JSON path of the entry's records.
    fn records_path(&self) -> String {
        format!("{}[{}].records", self.key, self.index)
    }
}

/// What an entry's records add at its site, checked before the site is interned.
enum Payload {
    Count(u64),
    Branches(Vec<Branch>),
    /// The type histogram in [`Scratch::histogram`].
    Types,
}

/// Lowers the entry `at` into `l`'s profile (or, for the monitor section, into its
/// histogram); a bad entry is reported through `l` and dropped.
pub(super) fn lower_entry(
    l: &mut Sink,
    at: &EntryAt<'_, '_>,
    res: &mut Resolver<'_>,
    scratch: &mut Scratch,
) -> Result<()> {
    if at.section == Section::Monitor {
        return lower_monitor(l, at, res, &mut scratch.histogram);
    }
    if !resolve_frames(l, at, res, scratch)? {
        return Ok(());
    }
    // Check the records before interning the context, so a dropped entry leaves no node.
    let Some(payload) = check_payload(l, at, res, &mut scratch.histogram)? else {
        return Ok(());
    };
    let Some(site) = claim_site(l, at, res, scratch)? else {
        return Ok(());
    };
    l.out.entries += 1;
    add_payload(l, at.section, site, payload, &mut scratch.histogram);
    Ok(())
}

/// A monitor entry: a global histogram, whose context is a placeholder that must be "0:0".
fn lower_monitor(
    l: &mut Sink,
    at: &EntryAt<'_, '_>,
    res: &mut Resolver<'_>,
    histogram: &mut Vec<TypeCount>,
) -> Result<()> {
    let e = at.entry;
    if e.ctx != "0:0" {
        return l.problem(
            at.ctx_path(),
            format!(
                "monitor profiles must have the placeholder context \"0:0\", found {:?}",
                e.ctx
            ),
        );
    }
    if pairs(l, &at.records_path(), &e.records, res, histogram)? {
        merge_histogram(&mut l.monitors, histogram.iter().copied());
    }
    Ok(())
}

/// Parses the entry's context into [`Scratch::frames`] (innermost first), its method ids
/// resolved; false if it was bad (reported, and the entry dropped).
fn resolve_frames(
    l: &mut Sink,
    at: &EntryAt<'_, '_>,
    res: &mut Resolver<'_>,
    scratch: &mut Scratch,
) -> Result<bool> {
    let e = at.entry;
    let Scratch { raw, frames, .. } = scratch;
    if let Err(err) = parse_ctx(&e.ctx, at.sep, raw) {
        l.problem(at.ctx_path(), err.0)?;
        return Ok(false);
    }
    frames.clear();
    for (k, f) in raw.iter().enumerate() {
        let m = i64::try_from(f.method_id)
            .ok()
            .and_then(|id| res.method_id(&mut l.out.profile.symbols, id));
        let Some(method) = m else {
            l.problem(
                at.ctx_path(),
                format!(
                    "frame {k} of {:?}: method id {} is not in `methods`",
                    e.ctx, f.method_id
                ),
            )?;
            return Ok(false);
        };
        frames.push(Frame { method, bci: f.bci });
    }
    if at.section == Section::CallCount
        && let Some(f) = frames.first()
        && f.bci != 0
    {
        l.problem(
            at.ctx_path(),
            format!(
                "the innermost BCI of a call-count context must be 0, found {} in {:?}",
                f.bci, e.ctx
            ),
        )?;
        return Ok(false);
    }
    Ok(true)
}

/// The entry's records, checked for its section; None if they were bad (reported, and the
/// entry dropped). A type histogram is left in `histogram`.
fn check_payload(
    l: &mut Sink,
    at: &EntryAt<'_, '_>,
    res: &mut Resolver<'_>,
    histogram: &mut Vec<TypeCount>,
) -> Result<Option<Payload>> {
    let records = &at.entry.records;
    let rpath = at.records_path();
    Ok(match at.section {
        Section::CallCount | Section::Sampling => {
            let [c] = records.as_slice() else {
                l.problem(
                    rpath,
                    format!(
                        "expected exactly 1 value (a count), found {}",
                        records.len()
                    ),
                )?;
                return Ok(None);
            };
            let Some(c) = count(*c) else {
                l.problem(format!("{rpath}[0]"), format!("count {c} is negative"))?;
                return Ok(None);
            };
            Some(Payload::Count(c))
        }
        Section::Conditional => branches(l, &rpath, records)?.map(Payload::Branches),
        Section::VirtualInvoke | Section::Instanceof => {
            pairs(l, &rpath, records, res, histogram)?.then_some(Payload::Types)
        }
        Section::Monitor => None,
    })
}

/// Reads (target BCI, branch index, count) triples; None if they were bad (reported).
fn branches(l: &mut Sink, rpath: &str, records: &[i64]) -> Result<Option<Vec<Branch>>> {
    if !records.len().is_multiple_of(3) {
        l.problem(
            rpath.to_string(),
            format!(
                "{} values is not a multiple of 3 ((target BCI, branch index, count) triples)",
                records.len()
            ),
        )?;
        return Ok(None);
    }
    let mut v = Vec::with_capacity(records.len() / 3);
    for (k, t) in records.chunks_exact(3).enumerate() {
        let &[target, index, c] = t else { continue };
        let (Ok(target_bci), Ok(index)) = (i32::try_from(target), i32::try_from(index)) else {
            l.problem(
                format!("{rpath}[{}]", 3 * k),
                format!(
                    "target BCI {target} or branch index {index} is outside the range of a Java int"
                ),
            )?;
            return Ok(None);
        };
        let Some(count) = count(c) else {
            l.problem(
                format!("{rpath}[{}]", 3 * k + 2),
                format!("count {c} is negative"),
            )?;
            return Ok(None);
        };
        v.push(Branch {
            target_bci,
            index,
            count,
        });
    }
    Ok(Some(v))
}

/// Interns the context in [`Scratch::frames`] and claims its site for this entry; None if
/// the context is empty or an earlier entry of the section had it (reported).
fn claim_site(
    l: &mut Sink,
    at: &EntryAt<'_, '_>,
    res: &Resolver<'_>,
    scratch: &mut Scratch,
) -> Result<Option<Site>> {
    let Some(site) = l
        .out
        .profile
        .contexts
        .intern_innermost_first(&scratch.frames)
    else {
        l.problem(at.ctx_path(), "empty context".into())?;
        return Ok(None);
    };
    if let Some(first) = scratch.first_seen.get(&site) {
        l.problem(
            at.ctx_path(),
            format!(
                "duplicate context {:?}: the same methods and BCIs as {}[{first}]{}",
                at.entry.ctx,
                at.key,
                same_named_types(&res.types.entries)
            ),
        )?;
        return Ok(None);
    }
    scratch
        .first_seen
        .insert(site, u32::try_from(at.index).unwrap_or(u32::MAX));
    Ok(Some(site))
}

/// Adds `payload`, scaled, to whatever the target holds at `site` (nothing when reading a
/// single profile: duplicates within one input were refused).
fn add_payload(
    l: &mut Sink,
    section: Section,
    site: Site,
    payload: Payload,
    histogram: &mut [TypeCount],
) {
    let sc = |l: &Sink, c: u64| l.scaled(section, c);
    match payload {
        Payload::Count(c) => {
            let c = sc(l, c);
            let p = &mut l.out.profile;
            let map = if section == Section::CallCount {
                &mut p.call_counts
            } else {
                &mut p.samples
            };
            map.entry(site)
                .and_modify(|a| *a = add_counts(*a, c))
                .or_insert(c);
        }
        Payload::Branches(mut v) => {
            for b in &mut v {
                b.count = sc(l, b.count);
            }
            match l.out.profile.conditionals.get_mut(&site) {
                Some(acc) => merge_branches(acc, &v),
                None => {
                    l.out.profile.conditionals.insert(site, v);
                }
            }
        }
        Payload::Types => {
            for tc in histogram.iter_mut() {
                tc.count = sc(l, tc.count);
            }
            let p = &mut l.out.profile;
            let map = if section == Section::VirtualInvoke {
                &mut p.virtual_invokes
            } else {
                &mut p.instanceofs
            };
            match map.get_mut(&site) {
                Some(acc) => merge_histogram(acc, histogram.iter().copied()),
                None => {
                    map.insert(site, histogram.to_vec());
                }
            }
        }
    }
}
