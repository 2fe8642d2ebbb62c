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
//!
//! This module is the state machine that a parser feeds ([`Lowerer`], and [`lower`] for a
//! whole parsed document) and what it reports ([`Lowered`]). The pieces it is built from
//! are private siblings: `id_map` (file ids to indices), `method_table` (the `methods`
//! array, stored flat), `resolver` (file ids to IR ids, interning on first use) and
//! `entry` (the checks and lowering of one section entry).

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::iprof::{
    IprofProfile, IprofVersion, MAX_COUNT, Section, SectionSet, TypeCount, merge_histogram,
};

use std::borrow::Cow;

use super::entry::{EntryAt, Scratch, lower_entry, pairs};
use super::id_map::IdMap;
use super::method_table::{MethodTable, RESOLVED};
use super::model::{Document, LegacyMonitor, MethodEntry, ProfileEntry, TypeEntry};
use super::resolver::{NOT_YET, Resolver, TypeTable};

pub use super::method_table::TableBuffers;

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
    pub warnings: Vec<Warning>,
    /// Entries, types and methods dropped in lenient mode.
    pub dropped: u64,
    /// Types the file declares (its `types` array), whether or not they were interned.
    pub declared_types: usize,
    /// Methods the file declares (its `methods` array).
    pub declared_methods: usize,
    /// Entries of this input lowered into the profile (sites, plus 1 for a non-empty
    /// monitor histogram): what `IprofProfile::entry_count` of the input alone would be.
    pub entries: u64,
    /// The memory of this file's method table, for the next file read by the same worker
    /// ([`Lowerer::with_buffers`]).
    pub buffers: TableBuffers,
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

/// How the counts of one input are scaled as they are added to the target profile: a
/// function of the section and the count (see `passes::iprof_merge::InputScale`).
pub type CountScale = Box<dyn Fn(Section, u64) -> u64 + Send>;

/// Where problems and results go: the profile being built, and strict or lenient handling.
pub(super) struct Sink {
    lenient: bool,
    pub(super) out: Lowered,
    warned: usize,
    /// `None`: counts are taken as read.
    scale: Option<CountScale>,
    /// This input's monitor histogram (summed over its entries, scaled once at the end).
    pub(super) monitors: Vec<TypeCount>,
}

impl Sink {
    pub(super) fn scaled(&self, s: Section, c: u64) -> u64 {
        match &self.scale {
            Some(f) => f(s, c).min(MAX_COUNT),
            None => c,
        }
    }
}

impl Sink {
    /// In strict mode returns the error; in lenient mode records a warning and returns Ok.
    pub(super) fn problem(&mut self, path: String, detail: String) -> Result<()> {
        if !self.lenient {
            return Err(json_error(path, detail));
        }
        self.out.dropped += 1;
        self.warned += 1;
        if self.warned <= MAX_WARNINGS {
            self.out
                .warnings
                .push(Warning::at_json(path, format!("{detail}; dropped")));
        }
        Ok(())
    }
}

/// Validates an iprof document and maps it into the IR, fed piece by piece as a parser
/// meets them: the version, the `types` and `methods` tables, then each section entry.
///
/// Entries are lowered as they arrive once the version and both tables are known (as in
/// every real file, which writes them first), so a document is never held whole: only the
/// tables (a small part of a file) and one entry at a time. Sections that arrive before the
/// tables are kept and lowered at [`Lowerer::finish`].
pub struct Lowerer<'a> {
    opts: ReadOptions,
    sink: Sink,
    version: Option<Cow<'a, str>>,
    types: Option<TypeTable<'a>>,
    /// The methods read so far; `methods_done` once the array has ended.
    methods: Option<MethodTable>,
    methods_done: bool,
    /// A `methods` array met before `types` (no real file does that), kept until then.
    early_methods: Option<Vec<MethodEntry<'a>>>,
    /// Set once the version and both tables are validated.
    res: Option<Resolver<'a>>,
    /// The version this file declares.
    file_version: IprofVersion,
    sep: u8,
    legacy_keys: bool,
    unknown_keys: Vec<String>,
    sections_seen: SectionSet,
    pending: Vec<(Section, &'static str, Vec<ProfileEntry<'a>>)>,
    legacy_monitor: Option<LegacyMonitor>,
    scratch: Scratch,
    /// The section being streamed and its next entry index.
    current: Option<(Section, &'static str, usize)>,
    /// Room reserved for the method table at once.
    buffers: TableBuffers,
    /// A target shared with other lowerers (see [`Lowerer::into_shared`]); `None`: the
    /// target is `sink.out.profile`.
    shared: Option<SharedTarget>,
    /// Methods whose signature has fewer than two entries (GraalVM's format requires the
    /// declaring type and the return type), and the index of the first.
    short_signatures: (u64, Option<usize>),
}

/// A profile several lowerers add their inputs to at once, each locking it while it adds an
/// entry (parsing, the bulk of the work, goes on unlocked).
pub type SharedTarget = std::sync::Arc<std::sync::Mutex<IprofProfile>>;

impl<'a> Lowerer<'a> {
    /// A lowerer that adds this input to the profile `shared`, which other lowerers (on
    /// other threads) add their inputs to at the same time; otherwise as
    /// [`Lowerer::into_target`]. The result's `profile` is empty: the input is in `shared`.
    pub fn into_shared(shared: SharedTarget, opts: ReadOptions, scale: Option<CountScale>) -> Self {
        let mut l = Self::into_target(IprofProfile::default(), opts, scale);
        l.shared = Some(shared);
        l
    }

    /// Builds the method table in `buffers` (those of the previous file a worker read:
    /// [`Lowered::buffers`]) instead of allocating new vectors.
    pub fn with_buffers(mut self, buffers: TableBuffers) -> Self {
        self.buffers = buffers;
        self
    }

    /// A lowerer with nothing fed yet, building a new profile.
    pub fn new(opts: ReadOptions) -> Self {
        Self::into_target(IprofProfile::default(), opts, None)
    }

    /// A lowerer that adds this input to `target` (a profile being merged), each count
    /// passed through `scale` first; exactly what lowering the input alone and merging it
    /// into `target` with that scale gives (`passes::iprof_merge::merge_into`). The
    /// result's `profile` is the updated `target`.
    pub fn into_target(target: IprofProfile, opts: ReadOptions, scale: Option<CountScale>) -> Self {
        Lowerer {
            opts,
            sink: Sink {
                lenient: opts.lenient,
                out: Lowered {
                    profile: target,
                    ..Lowered::default()
                },
                warned: 0,
                scale,
                monitors: Vec::new(),
            },
            version: None,
            types: None,
            methods: None,
            methods_done: false,
            early_methods: None,
            res: None,
            file_version: IprofVersion::default(),
            sep: b'<',
            legacy_keys: false,
            unknown_keys: Vec::new(),
            sections_seen: SectionSet::default(),
            pending: Vec::new(),
            legacy_monitor: None,
            scratch: Scratch::default(),
            current: None,
            short_signatures: (0, None),
            buffers: TableBuffers::default(),
            shared: None,
        }
    }

    /// `version`. Errors: a duplicate key, a version that is not `major.minor.patch` or
    /// that this reader does not read.
    pub fn set_version(&mut self, v: Cow<'a, str>) -> Result<()> {
        let version = parse_version(&v).ok_or_else(|| {
            json_error(
                "version",
                format!("{v:?} is not a version of the form major.minor.patch"),
            )
        })?;
        set_once(&mut self.version, v, "version")?;
        if version.major > 1 {
            return Err(json_error(
                "version",
                format!(
                    "iprof format version {version} is not supported: this build reads 0.2.0 and \
                     0.4.0 (pre-release layouts) and 1.x"
                ),
            ));
        }
        // 0.2.0 is the pre-schema layout: ',' between frames. Its keys are read through
        // aliases.
        let legacy = version.major == 0 && version.minor < 3;
        self.sep = if legacy { b',' } else { b'<' };
        self.file_version = version;
        self.on_target(|l| {
            let p = &mut l.sink.out.profile;
            p.version = p.version.max(version);
        });
        for k in std::mem::take(&mut self.unknown_keys) {
            self.warn_unknown(&k);
        }
        self.try_prepare()
    }

    /// `types`. Errors: a duplicate key; in strict mode a duplicate type id.
    pub fn set_types(&mut self, mut entries: Vec<TypeEntry<'a>>) -> Result<()> {
        if self.types.is_some() {
            return Err(json_error("types", "duplicate key `types`"));
        }
        // Kept to the end of the file: give back the room the vector grew into.
        entries.shrink_to_fit();
        let mut idx = IdMap::default();
        for (i, t) in entries.iter().enumerate() {
            if !idx.insert(t.id, i as u32) {
                self.sink.problem(
                    format!("types[{i}].id"),
                    format!("duplicate type id {}", t.id),
                )?;
            }
        }
        self.sink.out.declared_types = entries.len();
        self.types = Some(TypeTable { entries, idx });
        if let Some(early) = self.early_methods.take() {
            self.methods_begin()?;
            for m in &early {
                self.method(m.id, &m.name)?;
                for t in &m.signature {
                    self.method_sig(*t)?;
                }
                self.method_end()?;
            }
            self.methods_end()?;
        }
        self.try_prepare()
    }

    /// Starts the `methods` array. Returns true if its methods can be fed one by one with
    /// [`Self::method`], [`Self::method_sig`] and [`Self::method_end`], then
    /// [`Self::methods_end`]; false if the array must be collected and passed to
    /// [`Self::early_methods`] (`types` is not known yet). Errors: a duplicate key.
    pub fn methods_begin(&mut self) -> Result<bool> {
        if self.methods.is_some() || self.early_methods.is_some() {
            return Err(json_error("methods", "duplicate key `methods`"));
        }
        if self.types.is_none() {
            return Ok(false);
        }
        self.methods = Some(MethodTable::from_buffers(std::mem::take(&mut self.buffers)));
        Ok(true)
    }

    /// A whole `methods` array met before `types`.
    pub fn early_methods(&mut self, methods: Vec<MethodEntry<'a>>) {
        self.early_methods = Some(methods);
    }

    /// Starts method `methods[i]` (`i` is the number fed so far): its id and name.
    pub fn method(&mut self, id: i64, name: &str) -> Result<()> {
        let Some(t) = self.methods.as_mut() else {
            return Err(json_error("methods", "internal: method outside `methods`"));
        };
        t.begin(name)?;
        t.current = Some((id, true, 0));
        Ok(())
    }

    /// The next type id of the current method's signature. In strict mode an id that is not
    /// in `types` is an error; in lenient mode it makes the method unusable (dropped).
    pub fn method_sig(&mut self, type_id: i64) -> Result<()> {
        let (Some(t), Some(types)) = (self.methods.as_mut(), self.types.as_ref()) else {
            return Err(json_error(
                "methods",
                "internal: signature outside `methods`",
            ));
        };
        let i = t.len().saturating_sub(1);
        let Some((_, valid, k)) = &mut t.current else {
            return Ok(());
        };
        let at = *k;
        *k += 1;
        match types.idx.get(type_id) {
            Some(ti) if *valid => t.push_sig(ti),
            None if *valid => {
                // The method is never indexed: what its signature holds no longer matters.
                *valid = false;
                self.sink.problem(
                    format!("methods[{i}].signature[{at}]"),
                    format!("type id {type_id} is not in `types`"),
                )?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Ends the current method. In strict mode a duplicate method id is an error; in
    /// lenient mode the later method is dropped.
    pub fn method_end(&mut self) -> Result<()> {
        let Some(t) = self.methods.as_mut() else {
            return Err(json_error("methods", "internal: method outside `methods`"));
        };
        t.end();
        let i = t.len().saturating_sub(1);
        if i as u64 >= u64::from(RESOLVED) {
            // Indices share `idx` with resolved ids, told apart by the top bit.
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "methods in one file",
                value: i as u64,
                limit: u64::from(RESOLVED),
            }));
        }
        if let Some((_, _, k)) = t.current
            && k < 2
        {
            self.short_signatures.0 += 1;
            self.short_signatures.1.get_or_insert(i);
        }
        if let Some((id, true, _)) = t.current.take()
            && !t.idx.insert(id, i as u32)
        {
            return self.sink.problem(
                format!("methods[{i}].id"),
                format!("duplicate method id {id}"),
            );
        }
        Ok(())
    }

    /// Ends the `methods` array.
    pub fn methods_end(&mut self) -> Result<()> {
        self.methods_done = true;
        if let Some(t) = &mut self.methods {
            t.sig = Vec::new();
            self.sink.out.declared_methods = t.len();
        }
        self.try_prepare()
    }

    /// The 0.2.0 `monitorsProfile` object.
    pub fn set_legacy_monitor(&mut self, m: LegacyMonitor) -> Result<()> {
        self.legacy_keys = true;
        set_once(&mut self.legacy_monitor, m, "monitorsProfile")
    }

    /// A key this reader does not know (its value was skipped).
    pub fn unknown_key(&mut self, key: String) {
        match &self.version {
            Some(_) => self.warn_unknown(&key),
            None => self.unknown_keys.push(key),
        }
    }

    fn warn_unknown(&mut self, key: &str) {
        let version = self.file_version;
        self.sink.out.warnings.push(Warning::at_json(
            key,
            format!("unknown key (not in iprof {version}); ignored"),
        ));
    }

    /// Marks the start of section `section`, spelled `key` in the file (`legacy`: a 0.2.0
    /// spelling). Returns true if its entries can be fed one by one with
    /// [`Lowerer::entry`]; false if they must be collected and passed to
    /// [`Lowerer::pending_section`] (the tables are not known yet).
    pub fn begin_section(
        &mut self,
        section: Section,
        key: &'static str,
        legacy: bool,
    ) -> Result<bool> {
        if self.sections_seen.contains(section) {
            return Err(json_error(
                key,
                format!("duplicate key `{}`", section.json_key()),
            ));
        }
        self.sections_seen.insert(section);
        self.legacy_keys |= legacy;
        if self.res.is_none() {
            return Ok(false);
        }
        self.start(section, key);
        Ok(true)
    }

    fn start(&mut self, section: Section, key: &'static str) {
        self.on_target(|l| l.sink.out.profile.present.insert(section));
        self.scratch.first_seen.clear();
        self.current = Some((section, key, 0));
    }

    /// The next entries of the section begun with [`Lowerer::begin_section`], in order (a
    /// shared target is locked once for all of them).
    pub fn entries(&mut self, es: &[ProfileEntry<'_>]) -> Result<()> {
        self.on_target(|l| es.iter().try_for_each(|e| l.entry(e)))
    }

    /// As [`Self::entries`] if a shared target is free now; `Ok(false)` (nothing done) if
    /// another thread holds it, so that the caller can parse on and try again with more.
    pub fn try_entries(&mut self, es: &[ProfileEntry<'_>]) -> Result<bool> {
        match self.on_free_target(|l| es.iter().try_for_each(|e| l.entry(e))) {
            Some(r) => r.map(|()| true),
            None => Ok(false),
        }
    }

    /// The next entry of the section begun with [`Lowerer::begin_section`].
    pub fn entry(&mut self, e: &ProfileEntry<'_>) -> Result<()> {
        let (true, Some((section, key, next))) = (self.res.is_some(), self.current.as_mut()) else {
            return Err(json_error(
                "(top level)",
                "internal: entry outside a section",
            ));
        };
        let (section, key, at) = (*section, *key, *next);
        *next += 1;
        self.on_target(|l| {
            let Some(res) = l.res.as_mut() else {
                return Ok(());
            };
            let at = EntryAt {
                section,
                key,
                index: at,
                entry: e,
                sep: l.sep,
            };
            lower_entry(&mut l.sink, &at, res, &mut l.scratch)
        })
    }

    /// Runs `f` with the target profile in `self.sink.out.profile`: a shared target is
    /// locked and swapped in for the call (and back out after it).
    fn on_target<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let Some(shared) = self.shared.take() else {
            return f(self);
        };
        let r = {
            let mut g = shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.swapped_in(&mut g, f)
        };
        self.shared = Some(shared);
        r
    }

    /// As [`Self::on_target`], but returns `None` without running `f` if a shared target
    /// is locked by another thread.
    fn on_free_target<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> Option<R> {
        use std::sync::TryLockError;
        let Some(shared) = self.shared.take() else {
            return Some(f(self));
        };
        let r = match shared.try_lock() {
            Ok(mut g) => Some(self.swapped_in(&mut g, f)),
            Err(TryLockError::Poisoned(p)) => Some(self.swapped_in(&mut p.into_inner(), f)),
            Err(TryLockError::WouldBlock) => None,
        };
        self.shared = Some(shared);
        r
    }

    /// Runs `f` with `target` (a locked shared profile) as `self.sink.out.profile`.
    fn swapped_in<R>(&mut self, target: &mut IprofProfile, f: impl FnOnce(&mut Self) -> R) -> R {
        std::mem::swap(target, &mut self.sink.out.profile);
        let r = f(self);
        std::mem::swap(target, &mut self.sink.out.profile);
        r
    }

    /// A whole section read before the tables were known.
    pub fn pending_section(
        &mut self,
        section: Section,
        key: &'static str,
        entries: Vec<ProfileEntry<'a>>,
    ) {
        self.pending.push((section, key, entries));
    }

    /// Makes the resolver once the version and both tables are known.
    fn try_prepare(&mut self) -> Result<()> {
        if self.res.is_some() || self.version.is_none() || !self.methods_done {
            return Ok(());
        }
        let (Some(types), Some(methods)) = (self.types.take(), self.methods.take()) else {
            return Ok(());
        };
        let mut res = Resolver {
            type_cache: vec![NOT_YET; types.entries.len()],
            types,
            methods,
            sig: Vec::new(),
        };
        if !self.opts.referenced_symbols_only {
            res = self.on_target(|l| l.intern_all(res));
        }
        self.res = Some(res);
        Ok(())
    }

    /// Interns every symbol of the file, in file order (a type or method that is invalid
    /// or a duplicate is skipped, as a lookup by its id would skip it).
    fn intern_all<'r>(&mut self, mut res: Resolver<'r>) -> Resolver<'r> {
        {
            let syms = &mut self.sink.out.profile.symbols;
            syms.reserve(res.types.entries.len(), res.methods.len());
            for i in 0..res.types.entries.len() {
                let id = res.types.entries.get(i).map_or(-1, |t| t.id);
                if res.types.idx.get(id) == Some(i as u32) {
                    res.type_at(syms, i);
                }
            }
            res.intern_all_methods(syms);
        }
        res
    }

    /// Lowers what was kept for the end and returns the result. Errors: a missing required
    /// key, or any problem of the kept sections.
    pub fn finish(mut self) -> Result<Lowered> {
        if self.res.is_none() {
            if self.version.is_none() {
                return Err(json_error("version", "missing required key `version`"));
            }
            if self.types.is_none() {
                return Err(json_error("types", "missing required key `types`"));
            }
            if self.methods.is_none() {
                return Err(json_error("methods", "missing required key `methods`"));
            }
        }
        let version = self.file_version;
        let legacy = version.major == 0 && version.minor < 3;
        if self.legacy_keys && !legacy {
            self.sink.out.warnings.insert(
                0,
                Warning::new(format!(
                    "version {version} file uses keys of the 0.2.0 layout (hotnessPoints, \
                     conditionalPoints, invokePoints, monitorsProfile); read as that layout"
                )),
            );
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|(s, _, _)| *s);
        for (section, key, entries) in pending {
            self.start(section, key);
            for e in &entries {
                self.entry(e)?;
            }
        }
        let legacy_monitor = self.legacy_monitor.take();
        self.on_target(|this| -> Result<()> {
            if let (Some(m), Some(res)) = (legacy_monitor, this.res.as_mut()) {
                let l = &mut this.sink;
                l.out.profile.present.insert(Section::Monitor);
                let h = &mut this.scratch.histogram;
                if pairs(l, "monitorsProfile.records", &m.records, res, h)? {
                    merge_histogram(&mut l.monitors, h.iter().copied());
                }
            }
            let l = &mut this.sink;
            if !l.monitors.is_empty() {
                l.out.entries += 1;
                let mut h = std::mem::take(&mut l.monitors);
                for tc in &mut h {
                    tc.count = l.scaled(Section::Monitor, tc.count);
                }
                merge_histogram(&mut l.out.profile.monitors, h);
            }
            Ok(())
        })?;
        if let (n, Some(first)) = self.short_signatures {
            self.sink.out.warnings.push(Warning::at_json(
                format!("methods[{first}].signature"),
                format!(
                    "{n} method{} with a signature shorter than two entries (the first here); \
                     GraalVM's format requires the declaring type and the return type, so \
                     such methods may not match the same methods in other profiles",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        let l = &mut self.sink;
        if l.warned > MAX_WARNINGS {
            l.out.warnings.push(Warning::new(format!(
                "{} more problems not shown",
                l.warned - MAX_WARNINGS
            )));
        }
        let table = match self.res {
            Some(r) => Some(r.methods),
            None => self.methods,
        };
        if let Some(t) = table {
            self.sink.out.buffers = t.into_buffers();
        }
        Ok(self.sink.out)
    }
}

fn set_once<T>(slot: &mut Option<T>, v: T, key: &str) -> Result<()> {
    if slot.is_some() {
        return Err(json_error(key, format!("duplicate key `{key}`")));
    }
    *slot = Some(v);
    Ok(())
}

/// Validates a whole parsed `doc` and maps it into the IR (what streaming reading does,
/// from the typed model; the two give the same result).
pub fn lower(doc: Document<'_>, opts: ReadOptions) -> Result<Lowered> {
    let mut l = Lowerer::new(opts);
    for k in doc.unknown_keys {
        l.unknown_key(k);
    }
    if let Some(v) = doc.version {
        l.set_version(v)?;
    }
    if let Some(t) = doc.types {
        l.set_types(t)?;
    }
    if let Some(ms) = doc.methods {
        if l.methods_begin()? {
            for m in &ms {
                l.method(m.id, &m.name)?;
                for t in &m.signature {
                    l.method_sig(*t)?;
                }
                l.method_end()?;
            }
            l.methods_end()?;
        } else {
            l.early_methods(ms);
        }
    }
    l.legacy_keys |= doc.legacy_keys;
    for (section, data) in Section::ALL.into_iter().zip(doc.sections) {
        let Some(data) = data else { continue };
        if l.begin_section(section, data.key, false)? {
            for e in &data.entries {
                l.entry(e)?;
            }
        } else {
            l.pending_section(section, data.key, data.entries);
        }
    }
    if let Some(m) = doc.legacy_monitor {
        l.set_legacy_monitor(m)?;
    }
    l.finish()
}
