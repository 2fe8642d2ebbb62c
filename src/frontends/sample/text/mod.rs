//! Front-end for LLVM's text sample-profile format (`llvm-profdata merge --sample --text`).
//!
//! ```text
//! main:184019:0                   function header: name:total:head (top level)
//!  4: 534                         body line: offset: samples
//!  4.2: 534 _Z3fooi:500 bar:34    with a discriminator and call targets name:count
//!  10: inline1:1000               inlined callee at a call site: name:total
//!   1: 1000                       its body, one space deeper
//!  !CFGChecksum: 563022570642068  metadata last: CFG checksum (probe-based profiles)
//!  !Attributes: 2                 context attributes
//! [main:3 @ foo:2.1 @ bar]:99:11  context-sensitive header (CSSPGO)
//! ```
//!
//! The rules are LLVM's text reader's, including its leniencies (a header is split at its
//! last two colons, so names may contain `:`; call targets are anchored on `:NUM` followed
//! by a space or the end; a line `N` without colon is a body line of `N` samples at offset
//! `N`; indentation may jump; a NUL byte ends the input; lines that repeat a function or a
//! location add up). What LLVM rejects, this rejects, with the line and what was expected;
//! what makes LLVM crash (an empty context `[]`) is an error here.
//!
//! One grammar (`Lines`, `parse_head`, `parse_line` with its one-pass fast path for
//! the lines LLVM's writer writes) feeds two ways of materialising a profile: [`read`]
//! builds the tree form ([`SampleProfile`]); [`read_for_merge`] (in `flat`) fills the
//! flat form merges fold, and turns into the tree reader, where it stands, at the first
//! line the flat form cannot hold (a repeated function, lines out of LLVM's order, …):
//! nothing is read twice but that function's own lines.
//!
//! Two dialects differ by release ([`TextDialect`]): LLVM 22 reads `N: vtables T:C …` lines
//! as vtable type counts and ignores a ` !Flat` marker; LLVM 19 reads the former as an
//! inlined callee named `vtables T:C …` (it splits at the last colon) and rejects the
//! latter.

mod flat;

pub use flat::read_for_merge;

use crate::bytes::stack::deep;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::{
    ContextAttributes, ContextFrame, FunctionId, FunctionSamples, LineLocation, SampleContext,
    SampleFlags, SampleFormat, SampleProfile, saturating_mul_add,
};

/// What LLVM's text format expects of a body line (the message LLVM prints).
pub const EXPECTED_BODY: &str = "NUM[.NUM]: NUM[ mangled_name:NUM]*";
/// What LLVM's text format expects of a function header.
pub const EXPECTED_HEAD: &str = "mangled_name:NUM:NUM";
/// What LLVM 22 expects of a vtable line.
pub const EXPECTED_VTABLES: &str = "vtables [mangled_vtable:NUM]+";

/// The release-dependent parts of the text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextDialect {
    /// `N: vtables T:C …` lines are vtable type counts (LLVM 22), not inlined callees; and
    /// extbinary files whose summary flags type counts are read, not refused.
    pub vtables: bool,
    /// A line ` !Flat` is accepted and ignored (LLVM 22), not an error.
    pub flat_marker: bool,
}

impl TextDialect {
    /// The dialect of an LLVM major release (checked against 19, 21 and 22: 21 takes
    /// ` !Flat` but not `vtables` lines; 20 is taken to be 19's).
    pub fn for_llvm(major: u32) -> TextDialect {
        TextDialect {
            vtables: major >= 22,
            flat_marker: major >= 21,
        }
    }
}

impl Default for TextDialect {
    fn default() -> Self {
        TextDialect::for_llvm(22)
    }
}

/// True if `data` looks like a text sample profile: its first line that is neither empty
/// nor a `#` comment is a function header (LLVM's `hasFormat`).
pub fn sniff(data: &[u8]) -> bool {
    match Lines::new(data).next() {
        Some((_, line)) => line.first() != Some(&b' ') && parse_head(line).is_some(),
        None => false,
    }
}

/// Reads a text sample profile.
pub fn read(data: &[u8], dialect: TextDialect) -> Result<SampleProfile> {
    read_fs(data, dialect, None)
}

/// Reads a text sample profile whose discriminators are flow-sensitive when `fs` is the
/// mask of the bits to keep (llvm-profdata's `--profile-isfs`, with the mask of its
/// `--fs-discriminator-pass`): every location of a body line, an inlined callee or a vtable
/// line keeps only those bits (locations that become equal add up, as repeated lines do),
/// and the profile is marked flow-sensitive. Calling contexts are not masked, as in LLVM.
pub fn read_fs(data: &[u8], dialect: TextDialect, fs: Option<u32>) -> Result<SampleProfile> {
    check_first_line(data)?;
    let counts = Counts {
        mask: fs.unwrap_or(u32::MAX),
        ..Counts::default()
    };
    Reader::new(SampleProfile::new(), dialect, counts).run(Lines::new(data), fs.is_some())
}

/// LLVM's first check: the first line that is neither blank nor a comment is a function
/// header.
pub(super) fn check_first_line(data: &[u8]) -> Result<()> {
    let Some((no, first)) = Lines::new(data).next() else {
        return Err(Error::new(ErrorKind::Malformed {
            what: "text sample profile",
            detail: "no function header: the input has only blank or comment lines".into(),
        }));
    };
    if first.first() == Some(&b' ') || parse_head(first).is_none() {
        return Err(line_error(
            no,
            "text sample profile",
            format!(
                "expected a function header '{EXPECTED_HEAD}', found '{}'",
                show(first)
            ),
        ));
    }
    Ok(())
}

/// What a line is: `None` for a blank or comment line (blank after its indentation, or a
/// `#` after it), else whether it is a function header (no indentation).
pub(super) fn classify(line: &[u8]) -> Option<bool> {
    let pos = line.iter().position(|&b| b != b' ')?;
    (line[pos] != b'#').then_some(pos == 0)
}

/// The profile-level facts a text reader counts as it goes (kept when the flat reader
/// turns into the tree reader).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    /// Discriminator bits kept (all unless the profile is flow-sensitive).
    pub(super) mask: u32,
    /// Context-sensitive headers.
    pub(super) cs: u64,
    /// Non-zero checksums at depth 1.
    pub(super) probe: u64,
    /// An attribute said "should be inlined".
    pub(super) preinlined: bool,
}

/// Lines as LLVM's `line_iterator` with blank-skipping and `#` comments gives them: split at
/// `\n` (a `\r` before it dropped), empty lines and lines starting with `#` skipped, a NUL
/// byte ending the input. Yields (1-based line number, line).
#[derive(Debug, Clone)]
pub(super) struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    no: u64,
}

impl<'a> Lines<'a> {
    pub(super) fn new(data: &'a [u8]) -> Self {
        Lines {
            data,
            pos: 0,
            no: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (u64, &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        while self.pos < self.data.len() {
            let rest = &self.data[self.pos..];
            // The NUL byte that ends the input is found line by line, so that a reader
            // that stops early (sniffing the first line) does not scan the whole input.
            let (len, newline) = match memchr::memchr2(b'\n', 0, rest) {
                Some(i) if rest[i] == 0 => {
                    self.data = &self.data[..self.pos + i];
                    (i, false)
                }
                Some(i) => (i, true),
                None => (rest.len(), false),
            };
            self.pos += len + 1;
            self.no += 1;
            let mut line = &rest[..len];
            if newline && line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            return Some((self.no, line));
        }
        None
    }
}

/// One top-level function being read: its key and its samples, with the path from it to
/// the inlined instance lines currently attach to.
struct Block {
    context: SampleContext,
    samples: FunctionSamples,
    /// Call sites from the top level down to the current inlined instance (LLVM's inline
    /// stack, minus its root).
    path: Vec<(LineLocation, FunctionId)>,
    /// Depth of the first metadata line of the current instance, 0 if none yet.
    metadata_depth: usize,
    /// Line of the header, for overflow errors found when the block is added.
    line: u64,
}

/// Names seen in one input, each stored once (a profile names the same callees and targets
/// on many lines).
#[derive(Default)]
struct Names<'a> {
    map: std::collections::HashMap<&'a [u8], FunctionId, crate::ir::fx::FxBuildHasher>,
}

impl<'a> Names<'a> {
    fn get(&mut self, name: &'a [u8]) -> FunctionId {
        self.map
            .entry(name)
            .or_insert_with(|| FunctionId::name(name))
            .clone()
    }
}

/// The tree reader: lines into a [`SampleProfile`], with LLVM's leniencies.
pub(super) struct Reader<'a> {
    names: Names<'a>,
    profile: SampleProfile,
    dialect: TextDialect,
    counts: Counts,
}

impl<'a> Reader<'a> {
    /// A reader that adds to `profile` (the functions read so far).
    pub(super) fn new(profile: SampleProfile, dialect: TextDialect, counts: Counts) -> Self {
        Reader {
            names: Names::default(),
            profile,
            dialect,
            counts,
        }
    }

    /// Reads `lines` to the end (the first is a header) and returns the profile with its
    /// flags (`fs`: its discriminators are flow-sensitive).
    pub(super) fn run(mut self, lines: Lines<'a>, fs: bool) -> Result<SampleProfile> {
        let mut current: Option<Block> = None;
        for (no, line) in lines {
            match classify(line) {
                None => continue,
                Some(true) => {
                    if let Some(b) = current.take() {
                        self.finish(b)?;
                    }
                    current = Some(self.head(no, line)?);
                }
                Some(false) => {
                    // The first line is a header (checked before), so a block is open.
                    let Some(block) = current.as_mut() else {
                        return Err(line_error(
                            no,
                            "text sample profile",
                            "a body line before any function header".into(),
                        ));
                    };
                    self.body_line(no, line, block)?;
                }
            }
        }
        if let Some(b) = current.take() {
            self.finish(b)?;
        }
        let mut profile = self.profile;
        profile.flags = SampleFlags {
            context_sensitive: self.counts.cs > 0,
            probe_based: self.counts.probe > 0,
            preinlined: self.counts.preinlined,
            fs_discriminator: fs,
            sets_probe_flag: true,
            ..SampleFlags::default()
        };
        profile.format = Some(SampleFormat::Text);
        Ok(profile)
    }

    fn head(&mut self, no: u64, line: &'a [u8]) -> Result<Block> {
        let Some((name, total, head)) = parse_head(line) else {
            return Err(line_error(
                no,
                "function header",
                format!("expected '{EXPECTED_HEAD}', found '{}'", show(line)),
            ));
        };
        let context = if name.first() == Some(&b'[') {
            self.counts.cs += 1;
            parse_context(name, &mut self.names).ok_or_else(|| {
                line_error(
                    no,
                    "function header",
                    format!(
                        "expected a calling context '[name:NUM @ … @ name]', found an empty one in '{}'",
                        show(line)
                    ),
                )
            })?
        } else {
            SampleContext::Function(self.names.get(name))
        };
        let mut samples = FunctionSamples::new(context.function().clone());
        samples.total_samples = total;
        samples.head_samples = head;
        Ok(Block {
            context,
            samples,
            path: Vec::new(),
            metadata_depth: 0,
            line: no,
        })
    }

    /// Adds a finished block to the profile as LLVM's reader does when a function appears
    /// again: counts add up (an overflow is an error, LLVM's "Counter overflow"), a later
    /// checksum or attribute replaces an earlier one.
    fn finish(&mut self, block: Block) -> Result<()> {
        match self.profile.functions.get_mut(&block.context) {
            None => {
                // LLVM's map records contexts in the order first met.
                self.profile.insertion_order.push(block.context.clone());
                self.profile.functions.insert(block.context, block.samples);
                Ok(())
            }
            Some(existing) => {
                if absorb(existing, block.samples) {
                    return Err(line_error(
                        block.line,
                        "sample count",
                        "counter overflow: adding this repeated function to its earlier \
                         lines exceeds 2^64-1 (18446744073709551615)"
                            .into(),
                    ));
                }
                Ok(())
            }
        }
    }

    fn body_line(&mut self, no: u64, line: &'a [u8], block: &mut Block) -> Result<()> {
        let parsed = parse_line(line, self.dialect).map_err(|e| match e {
            LineError::Body => line_error(
                no,
                "sample profile line",
                format!("expected '{EXPECTED_BODY}', found '{}'", show(line)),
            ),
            LineError::Metadata => line_error(
                no,
                "metadata line",
                format!(
                    "expected '!CFGChecksum: NUM' or '!Attributes: NUM', found '{}'",
                    show(line)
                ),
            ),
            LineError::VTables => line_error(
                no,
                "vtable line",
                format!(
                    "expected '{EXPECTED_VTABLES}' (distinct names), found '{}'",
                    show(line)
                ),
            ),
        })?;
        let depth = parsed.depth();
        if !matches!(parsed, Parsed::Metadata { .. }) && depth == block.metadata_depth {
            return Err(line_error(
                no,
                "sample profile line",
                format!(
                    "found '{}' after the metadata ('!…' lines) of its function; metadata comes last",
                    show(line)
                ),
            ));
        }
        // LLVM's inline stack holds the top level plus `path`; keep at most `depth` of it.
        block.path.truncate(depth.saturating_sub(1));
        let overflow = |what: &str| {
            line_error(
                no,
                "sample count",
                format!("counter overflow: {what} exceeds 2^64-1 (18446744073709551615)"),
            )
        };
        let target = instance(&mut block.samples, &block.path);
        let mask = self.counts.mask;
        let masked =
            |loc: LineLocation| LineLocation::new(loc.line_offset, loc.discriminator & mask);
        match parsed {
            Parsed::Callsite {
                loc, name, total, ..
            } => {
                let id = self.names.get(name);
                let loc = masked(loc);
                let callee = target.callee_mut(loc, &id);
                let (v, o) = saturating_mul_add(total, 1, callee.total_samples);
                callee.total_samples = v;
                if o {
                    return Err(overflow("the total of an inlined callee"));
                }
                block.path.push((loc, id));
                block.metadata_depth = 0;
            }
            Parsed::Body {
                loc,
                samples,
                targets,
                ..
            } => {
                let rec = target.body.entry(masked(loc)).or_default();
                let mut o = false;
                for (name, count) in targets {
                    o |= rec.add_call_target(self.names.get(name), count, 1);
                }
                o |= rec.add_samples(samples, 1);
                if o {
                    return Err(overflow("a body sample or call-target count"));
                }
            }
            Parsed::VTables { loc, types, .. } => {
                let map = target.type_counts.entry(masked(loc)).or_default();
                for (name, count) in types {
                    let slot = map.entry(self.names.get(name)).or_insert(0);
                    let (v, o) = saturating_mul_add(count, 1, *slot);
                    *slot = v;
                    if o {
                        return Err(overflow("a vtable type count"));
                    }
                }
            }
            Parsed::Metadata {
                checksum,
                attributes,
                ..
            } => {
                if let Some(c) = checksum.filter(|&c| c != 0) {
                    target.checksum = c;
                    if depth == 1 {
                        self.counts.probe += 1;
                    }
                }
                if let Some(a) = attributes.filter(|&a| a != 0) {
                    target.attributes = ContextAttributes(a);
                    if a & ContextAttributes::SHOULD_BE_INLINED != 0 {
                        self.counts.preinlined = true;
                    }
                }
                if block.metadata_depth == 0 {
                    block.metadata_depth = depth;
                }
            }
        }
        Ok(())
    }
}

/// Adds `src` into `dst` with the reader's rules (counts add, a non-zero checksum or
/// attribute set replaces the earlier one); true if a count saturated.
fn absorb(dst: &mut FunctionSamples, src: FunctionSamples) -> bool {
    let mut o = false;
    let mut add = |slot: &mut u64, v: u64| {
        let (s, over) = saturating_mul_add(v, 1, *slot);
        *slot = s;
        o |= over;
    };
    add(&mut dst.total_samples, src.total_samples);
    add(&mut dst.head_samples, src.head_samples);
    for (loc, rec) in src.body {
        let d = dst.body.entry(loc).or_default();
        add(&mut d.samples, rec.samples);
        for (t, c) in rec.call_targets {
            add(d.call_targets.entry(t).or_insert(0), c);
        }
    }
    for (loc, types) in src.type_counts {
        let d = dst.type_counts.entry(loc).or_default();
        for (t, c) in types {
            add(d.entry(t).or_insert(0), c);
        }
    }
    for (loc, site) in src.callsites {
        let d = dst.callsites.entry(loc).or_default();
        for (name, f) in site {
            match d.get_mut(&name) {
                Some(e) => o |= deep(|| absorb(e, f)),
                None => {
                    d.insert(name, f);
                }
            }
        }
    }
    if src.checksum != 0 {
        dst.checksum = src.checksum;
    }
    if src.attributes.0 != 0 {
        dst.attributes = src.attributes;
    }
    o
}

/// The inlined instance at `path` below `top` (every step exists: lines create them).
fn instance<'a>(
    top: &'a mut FunctionSamples,
    path: &[(LineLocation, FunctionId)],
) -> &'a mut FunctionSamples {
    let mut cur = top;
    for (loc, name) in path {
        cur = cur.callee_mut(*loc, name);
    }
    cur
}

fn line_error(no: u64, what: &'static str, detail: String) -> Error {
    Error::at_line(no, ErrorKind::Malformed { what, detail })
}

/// The line as text for a message, cut to a readable length.
fn show(line: &[u8]) -> String {
    const MAX: usize = 200;
    let s = String::from_utf8_lossy(&line[..line.len().min(MAX)]).into_owned();
    if line.len() > MAX { s + "…" } else { s }
}

/// `name:NUM:NUM` split at the last two colons (LLVM's `ParseHead`).
pub(super) fn parse_head(line: &[u8]) -> Option<(&[u8], u64, u64)> {
    let n2 = line.iter().rposition(|&b| b == b':')?;
    if n2 == 0 {
        // LLVM would read an empty name here; refuse it.
        return None;
    }
    // LLVM looks for the second colon strictly before n2 - 1: a colon right before the
    // last one leaves an empty count, which fails either way.
    let n1 = line[..n2].iter().rposition(|&b| b == b':')?;
    if n1 == 0 {
        return None;
    }
    let total = get_u64(&line[n1 + 1..n2])?;
    let head = get_u64(&line[n2 + 1..])?;
    Some((&line[..n1], total, head))
}

/// `[a:1 @ b:2.3 @ c]` → frames (LLVM's `createCtxVectorFromStr`: the first and last
/// characters are dropped, frames split at ` @ `, each at its first colon; a location that
/// does not parse reads as 0, as in LLVM). `None` if there is no frame.
fn parse_context<'a>(s: &'a [u8], names: &mut Names<'a>) -> Option<SampleContext> {
    let frames = context_frames(s)
        .into_iter()
        .map(|(name, location)| ContextFrame {
            function: names.get(name),
            location,
        })
        .collect();
    SampleContext::from_frames(frames)
}

/// The frames of a context `[a:1 @ b:2.3 @ c]` as (name, call site) pairs, read as
/// [`parse_context`] reads them.
pub(super) fn context_frames(s: &[u8]) -> Vec<(&[u8], LineLocation)> {
    let inner = if s.len() >= 2 {
        &s[1..s.len() - 1]
    } else {
        &[][..]
    };
    let mut frames = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let (frame, next) = match find_sub(rest, b" @ ") {
            Some(i) => (&rest[..i], &rest[i + 3..]),
            None => (rest, &[][..]),
        };
        rest = next;
        let (name, loc) = match frame.iter().position(|&b| b == b':') {
            Some(i) => (&frame[..i], &frame[i + 1..]),
            None => (frame, &[][..]),
        };
        let mut location = LineLocation::default();
        if !loc.is_empty() {
            let (line, disc) = match loc.iter().position(|&b| b == b'.') {
                Some(i) => (&loc[..i], &loc[i + 1..]),
                None => (loc, &[][..]),
            };
            // Signed, as LLVM reads it (a negative offset wraps to u32).
            if let Some(v) = get_i32(line) {
                location.line_offset = v as u32;
            }
            if let Some(d) = get_u64(disc).and_then(|d| u32::try_from(d).ok()) {
                location.discriminator = d;
            }
        }
        frames.push((name, location));
    }
    frames
}

fn find_sub(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Decimal digits only, no sign or space, no overflow (LLVM's `getAsInteger(10)`).
fn get_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &d| {
        if !d.is_ascii_digit() {
            return None;
        }
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

fn get_u32(s: &[u8]) -> Option<u32> {
    get_u64(s).and_then(|v| u32::try_from(v).ok())
}

fn get_i32(s: &[u8]) -> Option<i32> {
    match s.strip_prefix(b"-") {
        Some(d) => get_u64(d)
            .and_then(|v| i64::try_from(v).ok())
            .and_then(|v| i32::try_from(-v).ok()),
        None => get_u64(s).and_then(|v| i32::try_from(v).ok()),
    }
}

pub(super) enum LineError {
    Body,
    Metadata,
    VTables,
}

#[derive(Debug, PartialEq)]
pub(super) enum Parsed<'a> {
    Body {
        depth: usize,
        loc: LineLocation,
        samples: u64,
        targets: Vec<(&'a [u8], u64)>,
    },
    Callsite {
        depth: usize,
        loc: LineLocation,
        name: &'a [u8],
        total: u64,
    },
    VTables {
        depth: usize,
        loc: LineLocation,
        types: Vec<(&'a [u8], u64)>,
    },
    Metadata {
        depth: usize,
        checksum: Option<u64>,
        attributes: Option<u32>,
    },
}

impl Parsed<'_> {
    pub(super) fn depth(&self) -> usize {
        match self {
            Parsed::Body { depth, .. }
            | Parsed::Callsite { depth, .. }
            | Parsed::VTables { depth, .. }
            | Parsed::Metadata { depth, .. } => *depth,
        }
    }
}

/// `s[start..start+n]` with LLVM `StringRef::substr` clamping.
fn substr(s: &[u8], start: usize, n: usize) -> &[u8] {
    let start = start.min(s.len());
    let n = n.min(s.len() - start);
    &s[start..start + n]
}

const NPOS: usize = usize::MAX;

fn find_from(s: &[u8], c: u8) -> usize {
    memchr::memchr(c, s).unwrap_or(NPOS)
}

/// An indented line: in one pass if it has the plain shape LLVM's writer gives it
/// ([`plain_line`]), else as LLVM's `ParseLine` reads it ([`parse_line_general`]); the two
/// read plain lines alike (checked by the tests).
pub(super) fn parse_line(
    line: &[u8],
    dialect: TextDialect,
) -> std::result::Result<Parsed<'_>, LineError> {
    plain_line(line, Vec::new()).or_else(|_| parse_line_general(line, dialect))
}

/// The digits of `s` from `at` as a number, and where they end: `None` if there is no
/// digit or the number overflows `u64`.
pub(super) fn digits(s: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut i = at;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        i += 1;
    }
    (i > at).then_some((v, i))
}

/// A body or inlined-callee line in the plain shape LLVM's text writer gives it
/// (`  N[.D]: COUNT[ name:COUNT]*` or `  N[.D]: name:COUNT`, one space between fields, no
/// colon in a call target's name, no target twice), read in one pass into `targets`
/// (emptied first). Anything else is handed back (`Err`, with `targets`) for
/// [`parse_line_general`], whose reading of these lines is the same.
pub(super) fn plain_line<'a>(
    line: &'a [u8],
    mut targets: Vec<(&'a [u8], u64)>,
) -> Result<Parsed<'a>, Vec<(&'a [u8], u64)>> {
    targets.clear();
    let depth = line.iter().take_while(|&&b| b == b' ').count();
    if depth == 0 {
        return Err(targets);
    }
    let Some((offset, mut i)) = digits(line, depth) else {
        return Err(targets);
    };
    let loc = if line.get(i) == Some(&b'.') {
        match digits(line, i + 1) {
            Some((d, j)) if offset <= u64::from(u32::MAX) && d <= u64::from(u32::MAX) => {
                i = j;
                LineLocation::new(offset as u32, d as u32)
            }
            _ => return Err(targets),
        }
    } else if offset <= 0xffff {
        LineLocation::new(offset as u32, 0)
    } else {
        return Err(targets);
    };
    if line.get(i..i + 2) != Some(b": ".as_slice()) {
        return Err(targets);
    }
    let rest = &line[i + 2..];
    if rest.first().is_some_and(u8::is_ascii_digit) {
        let Some((samples, mut j)) = digits(rest, 0) else {
            return Err(targets);
        };
        while j < rest.len() {
            // One space, then `name:COUNT` with a name of no colon.
            if rest[j] != b' ' {
                return Err(targets);
            }
            let start = j + 1;
            let end = memchr::memchr(b' ', &rest[start..]).map_or(rest.len(), |k| start + k);
            let token = &rest[start..end];
            let Some(colon) = memchr::memchr(b':', token) else {
                return Err(targets);
            };
            let name = &token[..colon];
            match digits(token, colon + 1) {
                Some((count, k)) if k == token.len() && !name.is_empty() => {
                    targets.push((name, count));
                }
                _ => return Err(targets),
            }
            j = end;
        }
        // A name twice on the line is for the full reader (the last count wins there).
        if !distinct_names(&targets) {
            return Err(targets);
        }
        Ok(Parsed::Body {
            depth,
            loc,
            samples,
            targets,
        })
    } else {
        let Some(colon) = memchr::memrchr(b':', rest) else {
            return Err(targets);
        };
        let name = &rest[..colon];
        if name.is_empty() || name.starts_with(b"vtables ") {
            return Err(targets);
        }
        match digits(rest, colon + 1) {
            Some((total, k)) if k == rest.len() => Ok(Parsed::Callsite {
                depth,
                loc,
                name,
                total,
            }),
            _ => Err(targets),
        }
    }
}

/// An indented line (LLVM's `ParseLine`, index arithmetic included: `StringRef` positions
/// wrap where LLVM's do, so odd lines read as LLVM reads them).
pub(super) fn parse_line_general(
    line: &[u8],
    dialect: TextDialect,
) -> std::result::Result<Parsed<'_>, LineError> {
    let depth = line.iter().take_while(|&&b| b == b' ').count();
    if depth == 0 || depth >= line.len() {
        return Err(LineError::Body);
    }
    if line[depth] == b'!' {
        if dialect.flat_marker && line == b" !Flat" {
            return Ok(Parsed::Metadata {
                depth,
                checksum: None,
                attributes: None,
            });
        }
        let m = &line[depth..];
        let err = if dialect.flat_marker {
            LineError::Metadata
        } else {
            LineError::Body
        };
        if let Some(v) = m.strip_prefix(b"!CFGChecksum:") {
            let v = get_u64(v.trim_ascii()).ok_or(err)?;
            return Ok(Parsed::Metadata {
                depth,
                checksum: Some(v),
                attributes: None,
            });
        }
        if let Some(v) = m.strip_prefix(b"!Attributes:") {
            let v = get_u32(v.trim_ascii()).ok_or(err)?;
            return Ok(Parsed::Metadata {
                depth,
                checksum: None,
                attributes: Some(v),
            });
        }
        return Err(err);
    }
    let n1 = find_from(line, b':');
    let loc_text = substr(line, depth, n1.wrapping_sub(depth));
    let loc = match loc_text.iter().position(|&b| b == b'.') {
        None => {
            let l = get_u32(loc_text).ok_or(LineError::Body)?;
            if l > 0xffff {
                return Err(LineError::Body);
            }
            LineLocation::new(l, 0)
        }
        Some(n2) => LineLocation::new(
            get_u32(&loc_text[..n2]).ok_or(LineError::Body)?,
            get_u32(&loc_text[n2 + 1..]).ok_or(LineError::Body)?,
        ),
    };
    let rest = substr(line, n1.wrapping_add(2), NPOS);
    if dialect.vtables
        && let Some(list) = rest.strip_prefix(b"vtables ")
    {
        let types = parse_types(list).ok_or(LineError::VTables)?;
        return Ok(Parsed::VTables { depth, loc, types });
    }
    if rest.first().is_some_and(u8::is_ascii_digit) {
        let mut rest = rest;
        let mut n3 = find_from(rest, b' ');
        let samples = if n3 == NPOS {
            get_u64(rest)
        } else {
            get_u64(&rest[..n3])
        }
        .ok_or(LineError::Body)?;
        let mut targets: Vec<(&[u8], u64)> = Vec::new();
        while n3 != NPOS {
            let skip = substr(rest, n3, NPOS)
                .iter()
                .position(|&b| b != b' ')
                .unwrap_or(NPOS);
            n3 = n3.wrapping_add(skip);
            rest = substr(rest, n3, NPOS);
            n3 = find_from(rest, b':');
            if n3 == NPOS || n3 == 0 {
                return Err(LineError::Body);
            }
            let (target, count, n4) = loop {
                let after = substr(rest, n3 + 1, NPOS);
                let target = &rest[..n3];
                let sp = find_from(after, b' ');
                let n4 = if sp != NPOS { n3 + sp + 1 } else { rest.len() };
                let word = substr(rest, n3 + 1, n4.wrapping_sub(n3).wrapping_sub(1));
                if let Some(c) = get_u64(word) {
                    break (target, c, n4);
                }
                let n5 = find_from(after, b':');
                if n5 == NPOS {
                    return Err(LineError::Body);
                }
                n3 += n5 + 1;
            };
            targets.push((target, count));
            if n4 == rest.len() {
                break;
            }
            n3 = n4;
        }
        last_count_wins(&mut targets);
        Ok(Parsed::Body {
            depth,
            loc,
            samples,
            targets,
        })
    } else {
        let n3 = rest.iter().rposition(|&b| b == b':').unwrap_or(NPOS);
        let name = substr(rest, 0, n3);
        let total = get_u64(substr(rest, n3.wrapping_add(1), NPOS)).ok_or(LineError::Body)?;
        Ok(Parsed::Callsite {
            depth,
            loc,
            name,
            total,
        })
    }
}

/// `T:C T:C …` separated by any number of spaces, each split at its first colon; names
/// distinct within the line (LLVM 22).
fn parse_types(list: &[u8]) -> Option<Vec<(&[u8], u64)>> {
    let mut out: Vec<(&[u8], u64)> = Vec::new();
    for tok in list.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
        let i = tok.iter().position(|&b| b == b':')?;
        let count = get_u64(&tok[i + 1..])?;
        out.push((&tok[..i], count));
    }
    distinct_names(&out).then_some(out)
}

/// Keeps one of each target named more than once on a line, with its last count, as LLVM
/// does (its map assigns each in turn). A line without repeats keeps its order (the one
/// the one-pass `plain_line` gives); one with repeats is sorted by name, as they go
/// into a map: stable sorting keeps the line's order among equal names, so the last of each
/// run is the last count. n log n, for lines of a hundred thousand targets.
fn last_count_wins(targets: &mut Vec<(&[u8], u64)>) {
    if targets.len() < 2 || distinct_names(targets) {
        return;
    }
    targets.sort_by(|a, b| a.0.cmp(b.0));
    targets.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = later.1;
        }
        same
    });
}

/// True if no two entries of `items` have the same name; sorts a copy of the names beyond a
/// few, so that a line of a hundred thousand names is not quadratic.
pub(super) fn distinct_names(items: &[(&[u8], u64)]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .all(|(i, t)| items[..i].iter().all(|u| u.0 != t.0));
    }
    let mut names: Vec<&[u8]> = items.iter().map(|t| t.0).collect();
    names.sort_unstable();
    names.windows(2).all(|w| w[0] != w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read22(t: &str) -> Result<SampleProfile> {
        read(t.as_bytes(), TextDialect::for_llvm(22))
    }

    fn only(p: &SampleProfile) -> &FunctionSamples {
        assert_eq!(p.functions.len(), 1);
        p.functions.values().next().unwrap()
    }

    /// Whatever `plain_line` reads, LLVM's grammar (`parse_line`) reads the same way: on
    /// writer-shaped lines, odd ones, and every one- and two-byte mutation of them.
    #[test]
    fn plain_lines_read_as_llvms_grammar_reads_them() {
        let lines: [&[u8]; 14] = [
            b" 1: 5",
            b" 12.3: 100 foo:60 bar:40",
            b"   65535: 1",
            b" 65536: 1",
            b" 65536.1: 1",
            b"  4: _Z3foov:20",
            b"  4.2: a::b:7",
            b" 7: 5 a:1 a:2",
            b" 7: 5  a:1",
            b" 7: 5 a:b:1",
            b" 7: 5 _M_construct<char *>:1000",
            b" 3: vtables x:1",
            b" 18446744073709551615: 1",
            b" 1: 18446744073709551616",
        ];
        let dialect = TextDialect::for_llvm(22);
        let mut plain = 0;
        let mut check = |line: &[u8]| {
            if let Ok(p) = plain_line(line, Vec::new()) {
                plain += 1;
                let general = parse_line_general(line, dialect);
                assert!(
                    matches!(&general, Ok(g) if *g == p),
                    "{:?}: plain {p:?}",
                    String::from_utf8_lossy(line)
                );
            }
        };
        let alphabet = b" :.0179abx!-";
        for line in lines {
            check(line);
            for i in 0..line.len() {
                for &b in alphabet {
                    let mut m = line.to_vec();
                    m[i] = b;
                    check(&m);
                    for j in i + 1..line.len() {
                        let mut n = m.clone();
                        n[j] = b' ';
                        check(&n);
                    }
                }
                check(&line[..i]);
            }
        }
        assert!(plain > 1000, "{plain} lines read plain");
    }

    #[test]
    fn call_targets_are_anchored_on_colon_numbers() {
        let p = read22("f:1:0\n 1: 10 _M_construct<char *>:1000 a::3 b:c:4\n").unwrap();
        let rec = &only(&p).body[&LineLocation::new(1, 0)];
        let names: Vec<String> = rec.call_targets.keys().map(|k| k.to_string()).collect();
        assert_eq!(names, ["_M_construct<char *>", "a:", "b:c"]);
        assert_eq!(rec.call_targets[&FunctionId::name(b"b:c")], 4);
    }

    #[test]
    fn a_line_without_colon_is_a_body_line_at_its_own_offset() {
        // LLVM reads ` 12` as 12 samples at offset 12 (its index arithmetic wraps).
        let p = read22("f:1:0\n 12\n").unwrap();
        assert_eq!(only(&p).body[&LineLocation::new(12, 0)].samples, 12);
    }

    #[test]
    fn repeated_functions_and_targets_add_up_last_target_count_wins() {
        let p = read22("f:100:5\n 1: 50\n 1: 7 a:3 b:3 a:1\nf:10:1\n 1: 5\n").unwrap();
        let f = only(&p);
        assert_eq!((f.total_samples, f.head_samples), (110, 6));
        let rec = &f.body[&LineLocation::new(1, 0)];
        assert_eq!(rec.samples, 62);
        assert_eq!(rec.call_targets[&FunctionId::name(b"a")], 1);
    }

    #[test]
    fn contexts_metadata_and_flags() {
        let p =
            read22("[main:3.1 @ foo:2 @ bar]:10:1\n 1: 10\n !CFGChecksum: 9\n  !Attributes: 2\n")
                .unwrap();
        assert!(p.flags.context_sensitive && p.flags.probe_based && p.flags.preinlined);
        let (k, f) = p.functions.iter().next().unwrap();
        assert_eq!(k.to_string(), "main:3.1 @ foo:2 @ bar");
        assert_eq!((f.checksum, f.attributes.0), (9, 2));
        // A checksum only on an inlined callee, or indented deeper than one space, does not
        // make the profile probe-based (as in LLVM, which counts depth-1 checksums).
        let q = read22("f:1:0\n 2: g:1\n  1: 1\n  !CFGChecksum: 5\n").unwrap();
        assert!(!q.flags.probe_based);
        let r = read22("f:1:0\n 1: 1\n  !CFGChecksum: 5\n").unwrap();
        assert!(!r.flags.probe_based);
        assert_eq!(only(&r).checksum, 5);
    }

    #[test]
    fn crlf_comments_blank_lines_and_nul() {
        let p = read22("# c\r\nf:10:1\r\n\r\n   \n # x\n 1: 10\r\n 2: 3\0 3: 9\n").unwrap();
        let f = only(&p);
        assert_eq!(f.body.len(), 2);
        assert!(!f.body.contains_key(&LineLocation::new(3, 0)));
    }

    #[test]
    fn flat_marker_and_vtables_follow_the_dialect() {
        assert!(read22("f:1:0\n 1: 1\n !Flat\n").is_ok());
        assert!(
            read(
                "f:1:0\n 1: 1\n !Flat\n".as_bytes(),
                TextDialect::for_llvm(19)
            )
            .is_err()
        );
        let p = read22("f:1:0\n 3: 1\n 3: vtables  A:1 B:2  \n 3: vtables A:2\n").unwrap();
        let t = &only(&p).type_counts[&LineLocation::new(3, 0)];
        assert_eq!(t[&FunctionId::name(b"A")], 3);
        assert!(read22("f:1:0\n 3: vtables a:b:3\n").is_err());
    }

    #[test]
    fn bad_lines_are_errors_never_panics() {
        for t in [
            "f:1:0\n 1:\n",
            "f:1:0\n 1:5\n",
            "f:1:0\n 1:  5\n",
            "f:1:0\n 1: 5:3\n",
            "f:1:0\n 1.2.3: 4\n",
            "f:1:0\n 1.: 4\n",
            "f:1:0\n 1: 5 :3\n",
            "f:1:0\n 1: 99999999999999999999\n",
            "f:1:0\n !\n",
            "[]:1:0\n",
            ":5\n",
            "f:1:0\n 4294967296.1: 1\n",
        ] {
            assert!(read22(t).is_err(), "{t:?} should fail");
        }
        // Inputs that only look odd are read as LLVM reads them.
        for t in [
            "f:1:0\n 1: :5\n  1: 5\n",
            "a:b:10:1\n 2: x:y:5\n",
            "f:1:0\n 99999.1: 2\n",
        ] {
            assert!(read22(t).is_ok(), "{t:?} should be read");
        }
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// A deterministic byte mutator over valid inputs: whatever comes out, the reader
    /// returns (a profile or an error), never panics.
    #[test]
    fn mutated_inputs_never_panic() {
        let seeds: [&[u8]; 3] = [
            b"main:184019:0\n 4: 534\n 4.2: 534 _Z3fooi:500 bar:34\n 10: inline1:1000\n  1: 1000\n  !CFGChecksum: 5\n !Attributes: 2\n",
            b"[main:3 @ _Z5funcAi:1 @ _Z8funcLeafi]:1467299:11\n 0: 6\n 4: 287864 _Z3fibi:315608\n !CFGChecksum: 281479271677951\n",
            b"foo:1000:100\n 3: 100\n 3: vtables _ZTVB:5 _ZTVA:7\n 3: bar:50\n  1: 50\n",
        ];
        let alphabet = b" :.@[]!\n\r\t0123456789az\0-";
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        for round in 0..20_000 {
            let mut v = seeds[round % seeds.len()].to_vec();
            for _ in 0..1 + next(6) {
                let i = next(v.len() + 1);
                match next(3) {
                    0 if i < v.len() => v[i] = alphabet[next(alphabet.len())],
                    1 => v.insert(i, alphabet[next(alphabet.len())]),
                    _ if i < v.len() => {
                        v.remove(i);
                    }
                    _ => {}
                }
            }
            for dialect in [TextDialect::for_llvm(19), TextDialect::for_llvm(22)] {
                let _ = read(&v, dialect);
            }
        }
    }

    #[test]
    fn deep_nesting_reads_on_a_small_stack() {
        // Text nesting costs its depth in indentation on every line (quadratic bytes), so
        // 4,000 levels (16 MB) stand for deeper ones here; the binary readers' tests go to
        // 20,000. Read, merged, cloned and dropped on a 256 KiB stack (the writer's
        // recursion is checked in the back-end's tests).
        let mut ok = String::from("f:1:0\n");
        for d in 1..=4_000 {
            ok.push_str(&" ".repeat(d));
            ok.push_str("1: g:1\n");
        }
        let bytes = ok.into_bytes();
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let p = read(&bytes, TextDialect::default()).unwrap();
                let mut merged = p.clone();
                for f in merged.functions.values_mut() {
                    let copy = f.clone();
                    f.merge(&copy, crate::ir::Weight::integer(2).unwrap(), false);
                }
                drop(merged);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
