//! Validation of a [`Document`] and its mapping into the IR ([`IprofProfile`]).
//!
//! Checked here (each failure names its JSON path, e.g. `conditionalProfiles[12].records`):
//! the version string and layout; required keys; duplicate type and method ids; signature
//! type ids that exist; context strings (grammar, method ids that exist, BCI 0 as the
//! innermost BCI of call counts, `0:0` for monitors); record lengths (multiples of 3 for
//! conditionals, of 2 for type histograms, exactly 1 for call counts and samples); counts
//! that are not negative; BCIs and branch indices that fit a Java `int`; type ids in
//! histograms that exist; duplicate contexts within a section.
//!
//! Strict mode (the default) fails on the first problem. Lenient mode reports each problem
//! as a warning and drops the offending entry (or type, or method, and then every entry
//! that needs it).

use crate::error::{Error, ErrorKind, Result};
use crate::ir::context::{Frame, Site};
use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{
    Branch, IprofProfile, IprofVersion, MAX_COUNT, Section, TypeCount, add_counts,
};
use crate::ir::java_symbols::{JavaSymbols, MethodId, TypeId};

use super::ctx::{RawFrame, parse_ctx};
use super::model::{Document, MethodEntry, ProfileEntry, TypeEntry};

/// Options of the iprof reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// Report bad entries as warnings and drop them instead of failing.
    pub lenient: bool,
    /// Put into the symbol table only the types and methods that the profile's entries
    /// reference (through contexts, signatures of referenced methods, and histograms); the
    /// others are still validated. This is what merging does unless asked to keep every
    /// symbol, and it makes reading several times faster: real files list ten times more
    /// methods than their entries use.
    pub referenced_symbols_only: bool,
}

/// Individual warnings kept per input; further ones are only counted.
pub const MAX_WARNINGS: usize = 50;

/// What reading one iprof document produced.
#[derive(Debug, Default)]
pub struct Lowered {
    /// The profile.
    pub profile: IprofProfile,
    /// Non-fatal problems (at most [`MAX_WARNINGS`], then a summary line).
    pub warnings: Vec<String>,
    /// Entries, types and methods dropped in lenient mode.
    pub dropped: u64,
    /// Types the file declares (its `types` array), whether or not they were interned.
    pub declared_types: usize,
    /// Methods the file declares (its `methods` array).
    pub declared_methods: usize,
}

/// The error for a problem at `path`.
pub fn json_error(path: impl Into<String>, detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::Json {
        json_path: path.into(),
        position: None,
        detail: detail.into(),
    })
}

/// Parses `major.minor.patch`.
pub fn parse_version(v: &str) -> Option<IprofVersion> {
    let mut it = v.split('.');
    let mut num = || -> Option<u32> {
        let s = it.next()?;
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let ver = IprofVersion {
        major: num()?,
        minor: num()?,
        patch: num()?,
    };
    it.next().is_none().then_some(ver)
}

/// Maps file ids (any `i64`) to IR ids: a vector for ids in a dense non-negative range (the
/// common case; its length is bounded by the number of entries, never by an id read from the
/// file), a hash map otherwise.
struct IdMap<T: Copy> {
    dense: Vec<Option<T>>,
    sparse: FxHashMap<i64, T>,
}

impl<T: Copy> IdMap<T> {
    fn new(entries: usize) -> Self {
        IdMap {
            dense: vec![None; entries.saturating_mul(4).saturating_add(1024)],
            sparse: FxHashMap::default(),
        }
    }
    fn get(&self, id: i64) -> Option<T> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(slot) => *slot,
            None => self.sparse.get(&id).copied(),
        }
    }
    /// Inserts; returns false if the id was already present.
    fn insert(&mut self, id: i64, v: T) -> bool {
        match usize::try_from(id).ok().and_then(|i| self.dense.get_mut(i)) {
            Some(slot) => {
                if slot.is_some() {
                    return false;
                }
                *slot = Some(v);
                true
            }
            None => self.sparse.insert(id, v).is_none(),
        }
    }
}

/// Resolves file ids to IR ids, interning symbols on first use.
struct Resolver<'d, 'a> {
    types: &'d [TypeEntry<'a>],
    methods: &'d [MethodEntry<'a>],
    /// File type id → index in `types` (validated, first of duplicates).
    types_idx: IdMap<u32>,
    /// File method id → index in `methods` (only methods whose signature is valid).
    methods_idx: IdMap<u32>,
    type_cache: Vec<Option<TypeId>>,
    method_cache: Vec<Option<MethodId>>,
    sig: Vec<TypeId>,
}

impl Resolver<'_, '_> {
    fn type_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<TypeId> {
        let i = self.types_idx.get(file_id)? as usize;
        let slot = self.type_cache.get_mut(i)?;
        if let Some(t) = *slot {
            return Some(t);
        }
        let t = syms.intern_type(&self.types.get(i)?.name);
        *slot = Some(t);
        Some(t)
    }

    fn method_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<MethodId> {
        let i = self.methods_idx.get(file_id)? as usize;
        if let Some(m) = self.method_cache.get(i).copied().flatten() {
            return Some(m);
        }
        let entry = self.methods.get(i)?;
        let mut sig = std::mem::take(&mut self.sig);
        sig.clear();
        for t in &entry.signature {
            // Validated: every signature id of an indexed method resolves.
            if let Some(ty) = self.type_id(syms, *t) {
                sig.push(ty);
            }
        }
        let m = syms.intern_method(&entry.name, &sig);
        self.sig = sig;
        if let Some(slot) = self.method_cache.get_mut(i) {
            *slot = Some(m);
        }
        Some(m)
    }
}

struct Lowerer {
    lenient: bool,
    out: Lowered,
    warned: usize,
}

impl Lowerer {
    /// In strict mode returns the error; in lenient mode records a warning and returns Ok.
    fn problem(&mut self, path: String, detail: String) -> Result<()> {
        if !self.lenient {
            return Err(json_error(path, detail));
        }
        self.out.dropped += 1;
        self.warned += 1;
        if self.warned <= MAX_WARNINGS {
            self.out.warnings.push(format!("{path}: {detail}; dropped"));
        }
        Ok(())
    }
}

fn count(v: i64) -> Option<u64> {
    u64::try_from(v).ok().map(|c| c.min(MAX_COUNT))
}

/// Validates `doc` and maps it into the IR.
pub fn lower(doc: Document<'_>, opts: ReadOptions) -> Result<Lowered> {
    let mut l = Lowerer {
        lenient: opts.lenient,
        out: Lowered::default(),
        warned: 0,
    };
    let version_str = doc
        .version
        .as_deref()
        .ok_or_else(|| json_error("version", "missing required key `version`"))?;
    let version = parse_version(version_str).ok_or_else(|| {
        json_error(
            "version",
            format!("{version_str:?} is not a version of the form major.minor.patch"),
        )
    })?;
    if version.major > 1 {
        return Err(json_error(
            "version",
            format!(
                "iprof format version {version} is not supported: this build reads 0.2.0 and \
                 0.4.0 (pre-release layouts) and 1.x"
            ),
        ));
    }
    // 0.2.0 is the pre-schema layout: ',' between frames. Its keys are read through aliases.
    let legacy = version.major == 0 && version.minor < 3;
    if doc.legacy_keys && !legacy {
        l.out.warnings.push(format!(
            "version {version} file uses keys of the 0.2.0 layout (hotnessPoints, \
             conditionalPoints, invokePoints, monitorsProfile); read as that layout"
        ));
    }
    let sep = if legacy { b',' } else { b'<' };
    for k in &doc.unknown_keys {
        l.out.warnings.push(format!(
            "{k}: unknown key (not in iprof {version}); ignored"
        ));
    }
    let types = doc
        .types
        .ok_or_else(|| json_error("types", "missing required key `types`"))?;
    let methods = doc
        .methods
        .ok_or_else(|| json_error("methods", "missing required key `methods`"))?;
    l.out.profile.version = version;
    l.out.declared_types = types.len();
    l.out.declared_methods = methods.len();

    let mut types_idx: IdMap<u32> = IdMap::new(types.len());
    for (i, t) in types.iter().enumerate() {
        if !types_idx.insert(t.id, i as u32) {
            l.problem(
                format!("types[{i}].id"),
                format!("duplicate type id {}", t.id),
            )?;
        }
    }
    let mut methods_idx: IdMap<u32> = IdMap::new(methods.len());
    'methods: for (i, m) in methods.iter().enumerate() {
        for (k, t) in m.signature.iter().enumerate() {
            if types_idx.get(*t).is_none() {
                l.problem(
                    format!("methods[{i}].signature[{k}]"),
                    format!("type id {t} is not in `types`"),
                )?;
                continue 'methods;
            }
        }
        if !methods_idx.insert(m.id, i as u32) {
            l.problem(
                format!("methods[{i}].id"),
                format!("duplicate method id {}", m.id),
            )?;
        }
    }
    let mut res = Resolver {
        types: &types,
        methods: &methods,
        type_cache: vec![None; types.len()],
        method_cache: vec![None; methods.len()],
        types_idx,
        methods_idx,
        sig: Vec::new(),
    };
    if !opts.referenced_symbols_only {
        // Every symbol, in file order.
        let syms = &mut l.out.profile.symbols;
        syms.reserve(types.len(), methods.len());
        for t in &types {
            res.type_id(syms, t.id);
        }
        for m in &methods {
            res.method_id(syms, m.id);
        }
    }

    let mut raw: Vec<RawFrame> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut first_seen: FxHashMap<Site, usize> = FxHashMap::default();
    let mut histogram: Vec<TypeCount> = Vec::new();
    for section in Section::ALL {
        let Some(data) = doc.sections.get(section as usize).and_then(|d| d.as_ref()) else {
            continue;
        };
        l.out.profile.present.insert(section);
        first_seen.clear();
        let key = data.key;
        if section != Section::Monitor {
            l.out.profile.contexts.reserve(data.entries.len());
        }
        for (i, e) in data.entries.iter().enumerate() {
            lower_entry(
                &mut l,
                section,
                key,
                i,
                e,
                sep,
                &mut res,
                &mut raw,
                &mut frames,
                &mut first_seen,
                &mut histogram,
            )?;
        }
    }
    if let Some(m) = &doc.legacy_monitor {
        l.out.profile.present.insert(Section::Monitor);
        histogram.clear();
        if pairs(
            &mut l,
            "monitorsProfile.records",
            &m.records,
            &mut res,
            &mut histogram,
        )? {
            merge_histogram(&mut l.out.profile.monitors, &histogram);
        }
    }
    if l.warned > MAX_WARNINGS {
        l.out.warnings.push(format!(
            "{} more problems not shown",
            l.warned - MAX_WARNINGS
        ));
    }
    Ok(l.out)
}

/// Adds `add` into histogram `h` (summing the counts of types present in both).
pub fn merge_histogram(h: &mut Vec<TypeCount>, add: &[TypeCount]) {
    for tc in add {
        match h.iter_mut().find(|x| x.ty == tc.ty) {
            Some(x) => x.count = add_counts(x.count, tc.count),
            None => h.push(*tc),
        }
    }
}

/// Reads `(type id, count)` pairs into `out`; false if the records were bad (and dropped).
fn pairs(
    l: &mut Lowerer,
    path: &str,
    records: &[i64],
    res: &mut Resolver<'_, '_>,
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
        merge_histogram(out, &[TypeCount { ty, count: c }]);
    }
    Ok(true)
}

#[allow(clippy::too_many_arguments)]
fn lower_entry(
    l: &mut Lowerer,
    section: Section,
    key: &str,
    i: usize,
    e: &ProfileEntry<'_>,
    sep: u8,
    res: &mut Resolver<'_, '_>,
    raw: &mut Vec<RawFrame>,
    frames: &mut Vec<Frame>,
    first_seen: &mut FxHashMap<Site, usize>,
    histogram: &mut Vec<TypeCount>,
) -> Result<()> {
    let rpath = || format!("{key}[{i}].records");
    if section == Section::Monitor {
        // A global histogram; the context is a placeholder that must be "0:0".
        if e.ctx != "0:0" {
            l.problem(
                format!("{key}[{i}].ctx"),
                format!(
                    "monitor profiles must have the placeholder context \"0:0\", found {:?}",
                    e.ctx
                ),
            )?;
            return Ok(());
        }
        if pairs(l, &rpath(), &e.records, res, histogram)? {
            merge_histogram(&mut l.out.profile.monitors, histogram);
        }
        return Ok(());
    }
    if let Err(err) = parse_ctx(&e.ctx, sep, raw) {
        return l.problem(format!("{key}[{i}].ctx"), err.0);
    }
    frames.clear();
    for (k, f) in raw.iter().enumerate() {
        let m = i64::try_from(f.method_id)
            .ok()
            .and_then(|id| res.method_id(&mut l.out.profile.symbols, id));
        match m {
            Some(method) => frames.push(Frame { method, bci: f.bci }),
            None => {
                return l.problem(
                    format!("{key}[{i}].ctx"),
                    format!(
                        "frame {k} of {:?}: method id {} is not in `methods`",
                        e.ctx, f.method_id
                    ),
                );
            }
        }
    }
    if section == Section::CallCount
        && let Some(f) = frames.first()
        && f.bci != 0
    {
        return l.problem(
            format!("{key}[{i}].ctx"),
            format!(
                "the innermost BCI of a call-count context must be 0, found {} in {:?}",
                f.bci, e.ctx
            ),
        );
    }
    // Check the records before interning the context, so a dropped entry leaves no node.
    let records = &e.records;
    enum Payload {
        Count(u64),
        Branches(Vec<Branch>),
        Types,
    }
    let payload = match section {
        Section::CallCount | Section::Sampling => {
            let [c] = records.as_slice() else {
                return l.problem(
                    rpath(),
                    format!(
                        "expected exactly 1 value (a count), found {}",
                        records.len()
                    ),
                );
            };
            let Some(c) = count(*c) else {
                return l.problem(format!("{}[0]", rpath()), format!("count {c} is negative"));
            };
            Payload::Count(c)
        }
        Section::Conditional => {
            if !records.len().is_multiple_of(3) {
                return l.problem(
                    rpath(),
                    format!(
                        "{} values is not a multiple of 3 ((target BCI, branch index, count) triples)",
                        records.len()
                    ),
                );
            }
            let mut v = Vec::with_capacity(records.len() / 3);
            for (k, t) in records.chunks_exact(3).enumerate() {
                let &[target, index, c] = t else { continue };
                let (Ok(target_bci), Ok(index)) = (i32::try_from(target), i32::try_from(index))
                else {
                    return l.problem(
                        format!("{}[{}]", rpath(), 3 * k),
                        format!(
                            "target BCI {target} or branch index {index} is outside the range of a Java int"
                        ),
                    );
                };
                let Some(count) = count(c) else {
                    return l.problem(
                        format!("{}[{}]", rpath(), 3 * k + 2),
                        format!("count {c} is negative"),
                    );
                };
                v.push(Branch {
                    target_bci,
                    index,
                    count,
                });
            }
            Payload::Branches(v)
        }
        Section::VirtualInvoke | Section::Instanceof => {
            if !pairs(l, &rpath(), records, res, histogram)? {
                return Ok(());
            }
            Payload::Types
        }
        Section::Monitor => return Ok(()),
    };
    let p = &mut l.out.profile;
    let Some(site) = p.contexts.intern_innermost_first(frames) else {
        return l.problem(format!("{key}[{i}].ctx"), "empty context".into());
    };
    if let Some(first) = first_seen.get(&site) {
        return l.problem(
            format!("{key}[{i}].ctx"),
            format!(
                "duplicate context {:?}: the same methods and BCIs as {key}[{first}]",
                e.ctx
            ),
        );
    }
    first_seen.insert(site, i);
    match payload {
        Payload::Count(c) => {
            let map = if section == Section::CallCount {
                &mut p.call_counts
            } else {
                &mut p.samples
            };
            map.insert(site, c);
        }
        Payload::Branches(v) => {
            p.conditionals.insert(site, v);
        }
        Payload::Types => {
            let map = if section == Section::VirtualInvoke {
                &mut p.virtual_invokes
            } else {
                &mut p.instanceofs
            };
            map.insert(site, histogram.clone());
        }
    }
    Ok(())
}
