//! The read side of an LLVM merge: one entry point, [`MergeReader::read`], that looks at an
//! input once and hands the driver a format-neutral [`MergeInput`].
//!
//! The reader owns what the inputs of one merge share: the name caches of the raw, indexed
//! and text readers, and the layouts of raw files learned so far (the cache in front of the
//! raw reader: a further run of a known binary is recognised by its bytes,
//! [`profraw::layout`], and its counters handed on where they lie). The driver only decides
//! windows, threads and outputs, and folds what it is given; it names no format's types.
//!
//! Layouts are numbered by the merge pass ([`Register`]): a layout is kept here only once
//! the pass took it, under the pass's number.

use std::sync::Arc;

use super::{FormatKind, InputFile, ReadOutput, profdata, profraw, proftext};
use crate::codec::value_prof_data::FlatValues;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::{CounterLayout, Profile};
use profraw::layout::RawLayout;

/// Registers a layout with the merge pass: its number there, or `None` if the pass takes no
/// more (or the layout does not describe what was folded).
pub type Register<'r> = dyn FnMut(Arc<CounterLayout>) -> Option<usize> + 'r;

/// A layout registered with the merge pass, with its number there.
pub struct Known {
    number: usize,
    layout: RawLayout,
}

/// Layouts learned while checking one file of several profiles (the distinct binaries that
/// wrote them, as the merger takes at most 16 layouts in all).
const MAX_PART_LAYOUTS: usize = 16;

/// The read side of one LLVM merge (see the module docs). Shared by the reader threads of
/// a window (`&self`); layouts are learned between windows (`&mut self`).
pub struct MergeReader {
    raw: profraw::NameCache,
    indexed: profdata::IndexedNameCache,
    text: proftext::TextNameCache,
    /// Layouts registered with the merge pass, in the order of their numbers.
    layouts: Vec<Known>,
    /// Whether raw layouts are learned and used at all.
    learn_layouts: bool,
}

/// What the driver folds for one input: records built by a reader, or counters where they
/// lie in the file, described by a layout.
#[non_exhaustive]
pub enum MergeInput<'a> {
    /// A raw file of a layout registered with the merge pass: the layout's records, their
    /// counters and bitmaps in `bytes`, their value blocks in `values`.
    Known {
        /// The layout's number in the merge pass.
        layout: usize,
        /// The whole file.
        bytes: &'a [u8],
        /// Its value blocks, indirect-call targets translated.
        values: FlatValues,
    },
    /// A file described by a layout of its own (indexed and text profiles read for a merge).
    Described(Described<'a>),
    /// A raw file of several profiles, checked one profile at a time and folded so.
    Parts(Parts<'a>),
    /// Records built by a reader.
    Records(ReadOutput<'a>, &'a [u8]),
}

/// A file described by a layout of its own: the profile without records (its kind and
/// tables), the records' places and the value blocks.
pub struct Described<'a>(DescribedKind<'a>);

enum DescribedKind<'a> {
    Indexed(profdata::IndexedScan<'a>, &'a [u8]),
    Text(proftext::TextScan),
}

impl<'a> Described<'a> {
    /// The profile, without records: kind, names, binary IDs, traces, table layout.
    pub fn profile(&self) -> &Profile<'a> {
        match &self.0 {
            DescribedKind::Indexed(s, _) => &s.profile,
            DescribedKind::Text(s) => &s.profile,
        }
    }

    /// Where the records lie in [`Described::bytes`], in file order.
    pub fn layout(&self) -> &CounterLayout {
        match &self.0 {
            DescribedKind::Indexed(s, _) => &s.layout,
            DescribedKind::Text(s) => &s.layout,
        }
    }

    /// The bytes the layout points into: the file, or the text reader's counter buffer.
    pub fn bytes(&self) -> &[u8] {
        match &self.0 {
            DescribedKind::Indexed(_, b) => b,
            DescribedKind::Text(s) => &s.bytes,
        }
    }

    /// The value blocks, numbered by the layout's records.
    pub fn values(&self) -> &FlatValues {
        match &self.0 {
            DescribedKind::Indexed(s, _) => &s.values,
            DescribedKind::Text(s) => &s.values,
        }
    }

    /// The reader's warnings.
    pub fn warnings(&self) -> &[Warning] {
        match &self.0 {
            DescribedKind::Indexed(s, _) => &s.warnings,
            DescribedKind::Text(_) => &[],
        }
    }

    /// True for an indexed profile (a lone indexed input keeps its table layout).
    pub fn is_indexed(&self) -> bool {
        matches!(self.0, DescribedKind::Indexed(..))
    }
}

impl MergeInput<'_> {
    /// True if the driver should fold this input before reading the next window: it is a
    /// raw input that may teach a layout (given that the pass still takes layouts).
    pub fn may_teach(&self, reader: &MergeReader) -> bool {
        match self {
            MergeInput::Records(r, _) => reader.may_learn(r),
            MergeInput::Parts(_) => reader.learn_layouts,
            _ => false,
        }
    }

    /// True if reading costs more than folding for this input (indexed and text inputs).
    pub fn read_bound(&self) -> bool {
        matches!(self, MergeInput::Described(_))
    }
}

impl MergeReader {
    /// A reader for one merge; `learn_layouts` turns the raw layout cache on (the result is
    /// the same either way: off is for testing that).
    pub fn new(learn_layouts: bool) -> Self {
        MergeReader {
            raw: profraw::NameCache::new(),
            indexed: profdata::IndexedNameCache::new(),
            text: proftext::TextNameCache::new(),
            layouts: Vec::new(),
            learn_layouts,
        }
    }

    /// Whether raw layouts are learned and used.
    pub fn learns_layouts(&self) -> bool {
        self.learn_layouts
    }

    /// Reads `file` for a merge: through a known raw layout if one accepts it, an indexed
    /// profile as its records' places, a text profile by the merge's text reader, a raw file
    /// of several profiles profile by profile, anything else (and what those hand back) by
    /// the full reader. Errors carry the file's path.
    pub fn read<'a>(&self, file: &'a InputFile) -> Result<MergeInput<'a>> {
        let bytes = file.bytes();
        if let Some((layout, values)) = self.scan_known(bytes, &[]) {
            return Ok(MergeInput::Known {
                layout,
                bytes,
                values,
            });
        }
        self.read_general(file)
            .map_err(|e| e.with_path(file.path()))
    }

    /// The layout (number) that accepts `bytes` among the registered ones and `extra`, and
    /// the file's value blocks.
    fn scan_known(&self, bytes: &[u8], extra: &[Known]) -> Option<(usize, FlatValues)> {
        self.layouts.iter().chain(extra).find_map(|k| {
            if !k.layout.header_matches(bytes) {
                return None;
            }
            Some((k.number, k.layout.scan(bytes)?.values))
        })
    }

    fn read_general<'a>(&self, file: &'a InputFile) -> Result<MergeInput<'a>> {
        let bytes = file.bytes();
        match FormatKind::sniff(bytes) {
            FormatKind::RawProfile => {
                // The pages the split goes through are read again profile by profile.
                let ranges = profraw::split_profiles(bytes, |end| file.release_before(end));
                if let Some(ranges) = ranges {
                    return self.read_parts(file, ranges);
                }
            }
            FormatKind::IndexedProfile => {
                if let Some(s) = profdata::scan(bytes, &self.indexed)? {
                    return Ok(MergeInput::Described(Described(DescribedKind::Indexed(
                        s, bytes,
                    ))));
                }
            }
            FormatKind::TextProfile => {
                if let Some(s) = proftext::scan_cached(bytes, &self.text) {
                    return Ok(MergeInput::Described(Described(DescribedKind::Text(s))));
                }
            }
            _ => {}
        }
        Ok(MergeInput::Records(super::read(bytes, &self.raw)?, bytes))
    }

    /// True if an input read by the full reader may teach a layout: a raw file read without
    /// warnings, implausible counters, temporal traces or uncorrelated counters.
    fn may_learn(&self, r: &ReadOutput<'_>) -> bool {
        self.learn_layouts
            && r.raw
            && r.warnings.is_empty()
            && r.suspicious_counter.is_none()
            && r.profile.temporal.traces.is_empty()
            && r.profile.uncorrelated_counters == 0
    }

    /// Hands an input's buffers back to the caches once it is folded (text inputs).
    pub fn recycle(&self, input: MergeInput<'_>) {
        if let MergeInput::Described(Described(DescribedKind::Text(s))) = input {
            self.text.recycle(s);
        }
    }

    /// After `input` (read from `file`, records `records`) was folded whole: learns its
    /// layout so that later files of its binary are recognised, registering it through
    /// `register`. Nothing happens unless it may teach one and no known layout has its header
    /// (it accepts the file, or the file is of a binary already learned but differs from its
    /// layout in a way the layout does not allow: if that happens in every run, learning
    /// again would keep one more copy of the binary's records and names per run, up to 16,
    /// for nothing), or if the layout's records are not exactly those the full reader gave
    /// (then the two would not agree), or if the file changed while the layout was taken
    /// from it (the input was folded whole before: only the layout is left out).
    pub fn learn(&mut self, input: MergeInput<'_>, file: &InputFile, register: &mut Register<'_>) {
        let MergeInput::Records(r, bytes) = input else {
            self.recycle(input);
            return;
        };
        if !self.may_learn(&r) || self.layouts.iter().any(|k| k.layout.header_matches(bytes)) {
            return;
        }
        let (kind, names, n) = (
            r.profile.kind,
            r.profile.names.clone(),
            r.profile.records.len(),
        );
        // With a million functions the records are hundreds of megabytes.
        drop(r);
        let Some(layout) = RawLayout::learn(bytes, kind, names) else {
            return;
        };
        if layout.records().len() != n || file.check_unchanged().is_err() {
            return;
        }
        if let Some(number) = register(Arc::clone(layout.counter_layout())) {
            self.layouts.push(Known { number, layout });
        }
    }

    /// Takes the layouts learned while a window's files of several profiles were folded
    /// (the `learned` of [`MergeReader::learn_part`]), registered already.
    pub fn adopt(&mut self, learned: &mut Vec<Known>) {
        self.layouts.append(learned);
    }
}

/// A raw file of several profiles (as a process whose executable and shared libraries are
/// instrumented writes), checked profile by profile when it was read and folded so: memory
/// holds one profile's records at a time, not the file's.
pub struct Parts<'a> {
    bytes: &'a [u8],
    /// The profiles' byte ranges, in file order.
    ranges: Vec<std::ops::Range<usize>>,
    /// The first profile, read: the input begins with it.
    first: ReadOutput<'a>,
    /// The warnings of every profile, at file offsets, in file order.
    warnings: Vec<Warning>,
    /// The file's first implausibly large counter (file offset, value): the input fails.
    suspicious: Option<(u64, u64)>,
}

/// One profile of a file of several, for the driver to fold (one at a time: the size
/// difference of the variants does not matter).
#[non_exhaustive]
#[allow(clippy::large_enum_variant)]
pub enum Part<'p, 'a> {
    /// The first profile, read (the input begins with it).
    First(&'p ReadOutput<'a>),
    /// A later profile that a known layout accepts.
    Known {
        /// The layout's number in the merge pass.
        layout: usize,
        /// The profile's bytes.
        bytes: &'a [u8],
        /// Its value blocks.
        values: FlatValues,
    },
    /// A later profile, read.
    Records(ReadOutput<'a>),
}

impl<'a> Parts<'a> {
    /// The first profile: what the input begins with.
    pub fn first(&self) -> &ReadOutput<'a> {
        &self.first
    }

    /// The warnings of every profile, at file offsets, in file order.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The file's first implausibly large counter (file offset, value).
    pub fn suspicious(&self) -> Option<(u64, u64)> {
        self.suspicious
    }

    /// Number of profiles.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// True if there is no profile (never, for a file that was split).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Where profile `k` starts in the file.
    pub fn start(&self, k: usize) -> usize {
        self.ranges.get(k).map_or(0, |r| r.start)
    }
}

/// `w` at an offset `base` bytes further into the file.
fn rebase_warning(mut w: Warning, base: usize) -> Warning {
    if let Some(crate::error::Location::Offset(o)) = &mut w.location {
        *o = o.saturating_add(base as u64);
    }
    w
}

impl MergeReader {
    /// Checks the profiles of a raw file that holds several, one at a time, keeping only
    /// their warnings, its first implausible counter and the first profile's records: a
    /// profile a layout learned from an earlier one accepts is checked by it, the others are
    /// read. The first error (at its file offset) fails the input, as reading the file whole
    /// would. The pages of the profiles checked are released as it goes.
    fn read_parts<'a>(
        &self,
        file: &'a InputFile,
        ranges: Vec<std::ops::Range<usize>>,
    ) -> Result<MergeInput<'a>> {
        let bytes = file.bytes();
        let mut local: Vec<RawLayout> = Vec::new();
        let mut warnings = Vec::new();
        let mut suspicious = None;
        let mut first = None;
        for range in &ranges {
            let part = bytes.get(range.clone()).unwrap_or_default();
            let base = range.start;
            let scanned = |l: &RawLayout| l.header_matches(part) && l.scan(part).is_some();
            if first.is_some()
                && (local.iter().any(scanned) || self.layouts.iter().any(|k| scanned(&k.layout)))
            {
                file.release_before(range.end);
                continue;
            }
            let out = super::read(part, &self.raw).map_err(|e| e.rebase(base as u64))?;
            warnings.extend(
                out.warnings
                    .iter()
                    .cloned()
                    .map(|w| rebase_warning(w, base)),
            );
            if let Some(s) = &out.suspicious_counter {
                // The input fails: the rest need no look.
                suspicious = Some((s.offset.saturating_add(base as u64), s.value));
                first.get_or_insert(out);
                break;
            }
            if out.warnings.is_empty()
                && local.len() < MAX_PART_LAYOUTS
                && !local.iter().any(|l| l.header_matches(part))
                && let Some(l) = RawLayout::learn(part, out.profile.kind, out.profile.names.clone())
                && l.records().len() == out.profile.records.len()
            {
                local.push(l);
            }
            first.get_or_insert(out);
            if range.start > 0 {
                file.release_before(range.end);
            }
        }
        let first = first.ok_or_else(|| {
            Error::new(ErrorKind::Io(std::io::Error::other(
                "internal error: a raw file of several profiles without a first one",
            )))
        })?;
        Ok(MergeInput::Parts(Parts {
            bytes,
            ranges,
            first,
            warnings,
            suspicious,
        }))
    }

    /// Profile `k` of `parts`, for folding in file order: the first as read, a later one
    /// through a layout registered before (or in `learned`) that accepts it, or read. A
    /// read failure now means the file changed since it was checked (the check after the
    /// fold reports that); its offset is the file's.
    pub fn part<'p, 'a>(
        &self,
        parts: &'p Parts<'a>,
        k: usize,
        learned: &[Known],
    ) -> Result<Part<'p, 'a>> {
        if k == 0 {
            return Ok(Part::First(&parts.first));
        }
        let range = parts.ranges.get(k).cloned().unwrap_or_default();
        let bytes = parts.bytes.get(range.clone()).unwrap_or_default();
        if let Some((layout, values)) = self.scan_known(bytes, learned) {
            return Ok(Part::Known {
                layout,
                bytes,
                values,
            });
        }
        let out = super::read(bytes, &self.raw).map_err(|e| e.rebase(range.start as u64))?;
        Ok(Part::Records(out))
    }

    /// After profile `k` of `parts`, read as `read`, was folded: learns and registers its
    /// layout (into `learned`) if it may teach one and no layout has its header.
    pub fn learn_part(
        &self,
        parts: &Parts<'_>,
        k: usize,
        read: &ReadOutput<'_>,
        learned: &mut Vec<Known>,
        register: &mut Register<'_>,
    ) {
        let bytes = parts
            .ranges
            .get(k)
            .and_then(|r| parts.bytes.get(r.clone()))
            .unwrap_or_default();
        if !self.may_learn(read)
            || self
                .layouts
                .iter()
                .chain(learned.iter())
                .any(|k| k.layout.header_matches(bytes))
        {
            return;
        }
        let Some(layout) = RawLayout::learn(bytes, read.profile.kind, read.profile.names.clone())
        else {
            return;
        };
        if layout.records().len() != read.profile.records.len() {
            return;
        }
        if let Some(number) = register(Arc::clone(layout.counter_layout())) {
            learned.push(Known { number, layout });
        }
    }
}
