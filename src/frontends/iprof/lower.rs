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

use crate::bytes::leb128::{take_uleb, write_uleb};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::context::{Frame, Site};
use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{
    Branch, IprofProfile, IprofVersion, MAX_COUNT, Section, SectionSet, TypeCount, add_counts,
    merge_branches, merge_histogram,
};
use crate::ir::java_symbols::{JavaSymbols, MethodId, TypeId};

use std::borrow::Cow;

use super::ctx::{RawFrame, parse_ctx};
use super::model::{Document, LegacyMonitor, MethodEntry, ProfileEntry, TypeEntry};

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

/// Maps file ids (any `i64`) to indices: a vector for ids in a dense non-negative range (the
/// common case; it grows with the number of ids inserted, never to a size read from the
/// file), a hash map for the others.
#[derive(Debug, Default)]
struct IdMap {
    /// `u32::MAX`: no entry.
    dense: Vec<u32>,
    sparse: FxHashMap<i64, u32>,
    len: usize,
}

impl IdMap {
    const NONE: u32 = u32::MAX;

    fn get(&self, id: i64) -> Option<u32> {
        let d = usize::try_from(id)
            .ok()
            .and_then(|i| self.dense.get(i))
            .copied()
            .filter(|&v| v != Self::NONE);
        d.or_else(|| self.sparse.get(&id).copied())
    }

    /// Every (id, value) pair: the dense range in id order, then the others in no order.
    fn iter(&self) -> impl Iterator<Item = (i64, u32)> + '_ {
        let dense = (0i64..)
            .zip(self.dense.iter().copied())
            .filter(|&(_, v)| v != Self::NONE);
        dense.chain(self.sparse.iter().map(|(&id, &v)| (id, v)))
    }

    /// The value slot of `id`, if present.
    fn slot_mut(&mut self, id: i64) -> Option<&mut u32> {
        let dense = usize::try_from(id)
            .ok()
            .filter(|&i| self.dense.get(i).is_some_and(|&v| v != Self::NONE));
        match dense {
            Some(i) => self.dense.get_mut(i),
            None => self.sparse.get_mut(&id),
        }
    }

    /// Inserts; returns false if the id was already present.
    fn insert(&mut self, id: i64, v: u32) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        self.len += 1;
        if let Ok(i) = usize::try_from(id) {
            // Grow the vector only as far as the number of ids justifies.
            let limit = self.len.saturating_mul(2).saturating_add(1024);
            if i >= self.dense.len() && i < limit {
                // A quarter more at a time: the vector is a large part of a method table.
                let len = self.dense.len();
                let new_len = (i + 1).max(len + len / 4 + 256).min(limit);
                self.dense.reserve_exact(new_len - len);
                self.dense.resize(new_len, Self::NONE);
            }
            if let Some(slot) = self.dense.get_mut(i) {
                *slot = v;
                return true;
            }
        }
        self.sparse.insert(id, v);
        true
    }
}

/// The `methods` array of a file, stored flat and already checked, as one byte string of
/// records: per method its name's length (LEB128) and bytes, then its signature's length in
/// bytes (LEB128) and the signature as LEB128-coded indices into `types` (most take two
/// bytes), with the offset of every [`MARK_EVERY`]th record kept to find a method. A file's
/// 40,000 methods thus cost about 27 bytes each, names included (their names average 15),
/// instead of 80,000 small allocations, and the names do not keep the input alive.
///
/// The vectors grow by a quarter at a time (not doubling), and a worker that reads many
/// files reuses one set of them ([`TableBuffers`]): in a merge the table of each input in
/// flight is a large part of the memory used, and allocating and freeing it per input
/// leaves the allocator's arenas fragmented.
#[derive(Debug, Default)]
struct MethodTable {
    /// The records, method after method.
    recs: Vec<u8>,
    /// Offset in `recs` of the record of method `k * MARK_EVERY`, for each `k`.
    marks: Vec<u32>,
    /// Methods stored (the last one's record is complete once [`Self::end`] has run).
    count: usize,
    /// The signature of the method being read, coded; empty for a method whose signature
    /// names a type that does not exist (such a method is never indexed).
    sig: Vec<u8>,
    /// File method id → index, for methods whose signature is valid (first of duplicates).
    idx: IdMap,
    /// The method being read: its id, whether its signature is valid so far, and how many
    /// signature entries were read (for messages).
    current: Option<(i64, bool, usize)>,
}

/// Methods per offset kept in [`MethodTable::marks`]: finding a method skips at most this
/// many records less one.
const MARK_EVERY: usize = 8;

/// The memory of a method table, handed from one input to the next read by the same
/// worker ([`Lowerer::with_buffers`], [`Lowered::buffers`]): the next table is built in
/// the same vectors (emptied first), which then grow only if the file needs more.
#[derive(Debug, Default)]
pub struct TableBuffers {
    recs: Vec<u8>,
    marks: Vec<u32>,
    dense: Vec<u32>,
}

/// Makes room for `more` elements: a quarter more (at least 256), not double.
fn grow<T>(v: &mut Vec<T>, more: usize) {
    if v.len() + more > v.capacity() {
        v.reserve_exact((v.len() / 4).max(256).max(more));
    }
}

/// Appends `x` LEB128-coded, growing `v` by a quarter when full.
fn put_leb128(v: &mut Vec<u8>, x: u64) {
    grow(v, 10);
    write_uleb(v, x);
}

/// Splits `len` bytes off the front of `bytes`.
fn take_bytes<'b>(bytes: &mut &'b [u8], len: u64) -> Option<&'b [u8]> {
    let len = usize::try_from(len).ok()?;
    let (head, rest) = (bytes.get(..len)?, bytes.get(len..)?);
    *bytes = rest;
    Some(head)
}

impl MethodTable {
    /// An empty table in the vectors of `b`.
    fn from_buffers(b: TableBuffers) -> Self {
        let TableBuffers {
            mut recs,
            mut marks,
            mut dense,
        } = b;
        recs.clear();
        marks.clear();
        dense.clear();
        let mut t = MethodTable {
            recs,
            marks,
            ..MethodTable::default()
        };
        t.idx.dense = dense;
        t
    }

    /// The table's vectors, for the next table.
    fn into_buffers(self) -> TableBuffers {
        TableBuffers {
            recs: self.recs,
            marks: self.marks,
            dense: self.idx.dense,
        }
    }

    fn len(&self) -> usize {
        self.count
    }

    /// Starts the record of the next method.
    fn begin(&mut self, name: &str) -> Result<()> {
        if self.count.is_multiple_of(MARK_EVERY) {
            let at = offset32(self.recs.len(), "method table bytes")?;
            grow(&mut self.marks, 1);
            self.marks.push(at);
        }
        put_leb128(&mut self.recs, name.len() as u64);
        grow(&mut self.recs, name.len());
        self.recs.extend_from_slice(name.as_bytes());
        self.sig.clear();
        self.count += 1;
        Ok(())
    }

    /// Adds a type index to the current method's signature.
    fn push_sig(&mut self, type_index: u32) {
        put_leb128(&mut self.sig, u64::from(type_index));
    }

    /// Ends the current method's record.
    fn end(&mut self) {
        put_leb128(&mut self.recs, self.sig.len() as u64);
        grow(&mut self.recs, self.sig.len());
        self.recs.extend_from_slice(&self.sig);
    }

    /// Records that the method with file id `file_id` is IR method `m`: its slot in `idx`
    /// holds `m` from now on, marked [`RESOLVED`]. An id too large to mark (2^31 methods)
    /// is simply not recorded.
    fn resolved(&mut self, file_id: i64, m: MethodId) {
        if m.0 < RESOLVED - 1
            && let Some(slot) = self.idx.slot_mut(file_id)
        {
            *slot = m.0 | RESOLVED;
        }
    }

    /// The name and coded signature of every method, in order.
    fn records(&self) -> impl Iterator<Item = (&str, &[u8])> + '_ {
        let mut bytes = self.recs.as_slice();
        (0..self.count).map_while(move |_| Self::next_record(&mut bytes))
    }

    /// Reads the record at the front of `bytes`, advancing past it.
    fn next_record<'r>(bytes: &mut &'r [u8]) -> Option<(&'r str, &'r [u8])> {
        let n = take_uleb(bytes)?;
        let name = std::str::from_utf8(take_bytes(bytes, n)?).ok()?;
        let n = take_uleb(bytes)?;
        Some((name, take_bytes(bytes, n)?))
    }

    /// The name and coded signature of method `i`.
    fn record(&self, i: usize) -> Option<(&str, &[u8])> {
        let start = *self.marks.get(i / MARK_EVERY)? as usize;
        let mut bytes = self.recs.get(start..)?;
        for _ in 0..i % MARK_EVERY {
            let n = take_uleb(&mut bytes)?;
            take_bytes(&mut bytes, n)?;
            let n = take_uleb(&mut bytes)?;
            take_bytes(&mut bytes, n)?;
        }
        Self::next_record(&mut bytes)
    }

    #[cfg(test)]
    fn name(&self, i: usize) -> Option<&str> {
        self.record(i).map(|(name, _)| name)
    }

    /// The signature of method `i`, as indices into the file's `types`.
    #[cfg(test)]
    fn signature(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        let mut bytes = self.record(i).map(|(_, sig)| sig).unwrap_or_default();
        std::iter::from_fn(move || take_uleb(&mut bytes).map(|v| v as u32))
    }
}

/// Marks a cache slot of [`Resolver`] not interned yet.
const NOT_YET: u32 = u32::MAX;

/// Marks a slot of a method table's id map that holds an IR method id, not an index.
const RESOLVED: u32 = 1 << 31;

/// `n` as a 32-bit offset into a method-table vector.
fn offset32(n: usize, what: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::new(ErrorKind::LimitExceeded {
            what,
            value: n as u64,
            limit: u64::from(u32::MAX),
        })
    })
}

/// The file's `types` array with its id index.
struct TypeTable<'a> {
    entries: Vec<TypeEntry<'a>>,
    /// File type id → index in `entries` (first of duplicates).
    idx: IdMap,
}

/// The IR id of type `i` of `types`, interned on first use (cached in `cache`).
fn type_in(
    types: &TypeTable<'_>,
    cache: &mut [u32],
    syms: &mut JavaSymbols,
    i: usize,
) -> Option<TypeId> {
    let slot = cache.get_mut(i)?;
    if *slot != NOT_YET {
        return Some(TypeId(*slot));
    }
    let t = syms.intern_type(&types.entries.get(i)?.name);
    *slot = t.0;
    Some(t)
}

/// Interns the method `name` with the coded signature `coded` (indices into `types`,
/// translated through `type_cache`); `sig` is scratch space.
fn intern_coded(
    types: &TypeTable<'_>,
    type_cache: &mut [u32],
    sig: &mut Vec<TypeId>,
    syms: &mut JavaSymbols,
    name: &str,
    mut coded: &[u8],
) -> MethodId {
    sig.clear();
    while let Some(t) = take_uleb(&mut coded) {
        if let Some(ty) = type_in(types, type_cache, syms, t as usize) {
            sig.push(ty);
        }
    }
    syms.intern_method(name, sig)
}

/// Resolves file ids to IR ids, interning symbols on first use.
struct Resolver<'a> {
    types: TypeTable<'a>,
    methods: MethodTable,
    /// IR id per index in `types`, [`NOT_YET`] until interned. (A method's IR id, once
    /// interned, replaces its index in `methods.idx`, marked [`RESOLVED`].)
    type_cache: Vec<u32>,
    sig: Vec<TypeId>,
}

impl Resolver<'_> {
    fn type_at(&mut self, syms: &mut JavaSymbols, i: usize) -> Option<TypeId> {
        type_in(&self.types, &mut self.type_cache, syms, i)
    }

    fn type_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<TypeId> {
        let i = self.types.idx.get(file_id)? as usize;
        self.type_at(syms, i)
    }

    /// Interns method `i` of the table (no caching: see [`Self::method_id`]).
    fn method_at(&mut self, syms: &mut JavaSymbols, i: usize) -> Option<MethodId> {
        let Resolver {
            types,
            methods,
            type_cache,
            sig,
        } = self;
        let (name, coded) = methods.record(i)?;
        Some(intern_coded(types, type_cache, sig, syms, name, coded))
    }

    /// Interns every method of the table that its id map leads to, in file order, reading
    /// the records front to back; lookups by id then find them resolved.
    fn intern_all_methods(&mut self, syms: &mut JavaSymbols) {
        let mut ids = vec![None; self.methods.len()];
        for (id, i) in self.methods.idx.iter() {
            if let Some(slot) = ids.get_mut(i as usize) {
                *slot = Some(id);
            }
        }
        let Resolver {
            types,
            methods,
            type_cache,
            sig,
        } = self;
        let interned: Vec<Option<MethodId>> = methods
            .records()
            .zip(&ids)
            .map(|((name, coded), id)| {
                id.map(|_| intern_coded(types, type_cache, sig, syms, name, coded))
            })
            .collect();
        for (id, m) in ids.into_iter().zip(interned) {
            if let (Some(id), Some(m)) = (id, m) {
                self.methods.resolved(id, m);
            }
        }
    }

    /// The IR id of the method with file id `file_id`, interned on first use; from then on
    /// its slot in `methods.idx` holds the IR id (marked [`RESOLVED`]) instead of its index,
    /// so the cache costs no memory of its own.
    fn method_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<MethodId> {
        let v = self.methods.idx.get(file_id)?;
        if v & RESOLVED != 0 {
            return Some(MethodId(v & !RESOLVED));
        }
        let m = self.method_at(syms, v as usize)?;
        self.methods.resolved(file_id, m);
        Some(m)
    }
}

/// How the counts of one input are scaled as they are added to the target profile: a
/// function of the section and the count (see `passes::iprof_merge::InputScale`).
pub type CountScale = Box<dyn Fn(Section, u64) -> u64 + Send>;

/// Where problems and results go: the profile being built, and strict or lenient handling.
struct Sink {
    lenient: bool,
    out: Lowered,
    warned: usize,
    /// `None`: counts are taken as read.
    scale: Option<CountScale>,
    /// This input's monitor histogram (summed over its entries, scaled once at the end).
    monitors: Vec<TypeCount>,
}

impl Sink {
    fn scaled(&self, s: Section, c: u64) -> u64 {
        match &self.scale {
            Some(f) => f(s, c).min(MAX_COUNT),
            None => c,
        }
    }
}

impl Sink {
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

/// Reusable buffers of [`lower_entry`].
#[derive(Default)]
struct Scratch {
    raw: Vec<RawFrame>,
    frames: Vec<Frame>,
    /// Sites of the current section → index of the entry that had them first.
    first_seen: FxHashMap<Site, u32>,
    histogram: Vec<TypeCount>,
}

fn count(v: i64) -> Option<u64> {
    u64::try_from(v).ok().map(|c| c.min(MAX_COUNT))
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
        self.sink.out.warnings.push(format!(
            "{key}: unknown key (not in iprof {version}); ignored"
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
            lower_entry(&mut l.sink, section, key, at, e, l.sep, res, &mut l.scratch)
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
                format!(
                    "version {version} file uses keys of the 0.2.0 layout (hotnessPoints, \
                     conditionalPoints, invokePoints, monitorsProfile); read as that layout"
                ),
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
        let l = &mut self.sink;
        if l.warned > MAX_WARNINGS {
            l.out.warnings.push(format!(
                "{} more problems not shown",
                l.warned - MAX_WARNINGS
            ));
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

/// Reads `(type id, count)` pairs into `out`; false if the records were bad (and dropped).
fn pairs(
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

#[allow(clippy::too_many_arguments)]
fn lower_entry(
    l: &mut Sink,
    section: Section,
    key: &str,
    i: usize,
    e: &ProfileEntry<'_>,
    sep: u8,
    res: &mut Resolver<'_>,
    scratch: &mut Scratch,
) -> Result<()> {
    let Scratch {
        raw,
        frames,
        first_seen,
        histogram,
    } = scratch;
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
            merge_histogram(&mut l.monitors, histogram.iter().copied());
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
    let Some(site) = l.out.profile.contexts.intern_innermost_first(frames) else {
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
    first_seen.insert(site, u32::try_from(i).unwrap_or(u32::MAX));
    l.out.entries += 1;
    // Scaled, then added to whatever the target holds at the site (nothing when reading a
    // single profile: duplicates within one input were refused above).
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
                    map.insert(site, histogram.clone());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MethodTable;

    /// Records are LEB128-coded: every width of a signature entry (1 to 5 bytes) and every
    /// method, before and after the offsets kept every `MARK_EVERY` methods, comes back as
    /// written.
    #[test]
    fn method_records_round_trip() -> crate::error::Result<()> {
        let sigs: [&[u32]; 5] = [
            &[],
            &[0, 127, 128, 255],
            &[16_383, 16_384, 2_097_151, 2_097_152],
            &[268_435_455, 268_435_456, u32::MAX - 1, u32::MAX],
            &[5],
        ];
        let name = |i: usize| "m".repeat(i % 150) + &i.to_string();
        let mut t = MethodTable::default();
        let n = 3 * super::MARK_EVERY + 7;
        for i in 0..n {
            t.begin(&name(i))?;
            for &x in sigs[i % sigs.len()] {
                t.push_sig(x);
            }
            t.end();
        }
        assert_eq!(t.len(), n);
        for i in 0..n {
            let sig: Vec<u32> = t.signature(i).collect();
            assert_eq!(sig, sigs[i % sigs.len()].to_vec(), "method {i}");
            assert_eq!(t.name(i), Some(name(i).as_str()), "method {i}");
        }
        assert_eq!(t.signature(n).count(), 0);
        assert_eq!(t.name(n), None);
        let in_order: Vec<(&str, &[u8])> = t.records().collect();
        assert_eq!(in_order.len(), n);
        for (i, r) in in_order.iter().enumerate() {
            assert_eq!(Some(*r), t.record(i), "method {i}");
        }
        Ok(())
    }
}
