//! BOLT profiles as `show` and `overlap` see them, whatever their format: a list of
//! *records* — branches, calls or samples, each counted and attributed to the function its
//! source lies in — built by `frontends::bolt::report` from an fdata or YAML profile, and the
//! figures that `passes::bolt_report` computes from it for the reports of
//! `backends::bolt::report`.
//!
//! What a record is (docs/bolt.md, "show and overlap"):
//!
//! | profile | records | function |
//! |---|---|---|
//! | fdata, LBR | each branch line `FROM TO MISPREDS COUNT` | `FROM`'s symbol |
//! | fdata, `no_lbr` | each sample line `ADDR COUNT` | `ADDR`'s symbol |
//! | YAML, LBR | each successor edge (`succ`) and call site (`calls`) of a block | the block's |
//! | YAML, samples | each block's `exec` count | the block's |
//!
//! Memory events (fdata lines of types 3–5) are counted in the totals only.

/// Which of BOLT's formats a profile was read from.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoltFormat {
    /// The legacy fdata text.
    Fdata,
    /// YAML (`llvm-bolt -w`, `perf2bolt --profile-format=yaml`).
    Yaml,
}

impl BoltFormat {
    /// The name reports use (`fdata`, `YAML`).
    pub fn name(self) -> &'static str {
        match self {
            BoltFormat::Fdata => "fdata",
            BoltFormat::Yaml => "YAML",
        }
    }
}

/// What a record counts.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoltRecordKind {
    /// A branch taken (fdata branch line, YAML successor edge).
    Branch,
    /// A call (YAML call site; fdata records calls as branch lines).
    Call,
    /// Samples of one address or block (`no_lbr` fdata, sampled YAML).
    Sample,
}

impl BoltRecordKind {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            BoltRecordKind::Branch => "branch",
            BoltRecordKind::Call => "call",
            BoltRecordKind::Sample => "sample",
        }
    }
}

/// A piece of a profile's [`BranchProfile::text`]: bytes `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// One record: a branch, call or sample with its counts, its names in its profile's
/// [`BranchProfile::text`] (one buffer for all, so that a record takes no allocation of its
/// own). Its identity (what `overlap` matches between two profiles) is
/// [`BranchProfile::key`]: `(function, kind, from, to)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoltRecord {
    /// The function the source lies in.
    pub function: Span,
    /// What it counts.
    pub kind: BoltRecordKind,
    /// The source (`main+0x1c` in fdata, `main:bb3` or, for a call site, `main:bb3+0x1b`
    /// in YAML) or the sampled address or block.
    pub from: Span,
    /// The destination (`main+0x1e`, `main:bb5`, the callee's name); empty for a sample.
    pub to: Span,
    /// Times taken or sampled (summed, saturating, over the lines of the same identity).
    pub count: u64,
    /// Mispredictions (summed, saturating; 0 where the format has none).
    pub mispreds: u64,
}

/// A record's identity: function, kind, source, destination.
pub type RecordKey<'a> = (&'a str, BoltRecordKind, &'a str, &'a str);

/// The text of `span` in `text` ("" if out of range: spans are made by the reader).
fn piece(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or_default()
}

/// The identity of `r`, whose names are in `text`.
fn key_in<'a>(text: &'a str, r: &BoltRecord) -> RecordKey<'a> {
    (
        piece(text, r.function),
        r.kind,
        piece(text, r.from),
        piece(text, r.to),
    )
}

/// A BOLT profile for reports: its header facts, its functions' entry counts (YAML) and its
/// records, sorted by [`BranchProfile::key`], each key once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchProfile {
    /// The format read.
    pub format: BoltFormat,
    /// Samples instead of branches (`no_lbr` fdata, a YAML profile without the `lbr` flag).
    pub sampled: bool,
    /// `boltedcollection` (fdata).
    pub bolted: bool,
    /// Event names: fdata's `no_lbr` line, YAML's `profile-events`.
    pub events: String,
    /// YAML's `binary-name` and `binary-build-id` (empty for fdata).
    pub binary: (String, String),
    /// YAML: each function's name and entry count (`exec`), sorted by name, each name once
    /// (the counts of functions of one name added). Empty for fdata, which has none.
    pub entries: Vec<(String, u64)>,
    /// The records, sorted by key, each key once.
    pub records: Vec<BoltRecord>,
    /// The names of the records, one after the other (see [`Span`]).
    pub text: String,
    /// fdata memory events: lines and the sum of their counts (saturating).
    pub memory: (u64, u64),
}

impl BranchProfile {
    /// An empty profile of `format`.
    pub fn new(format: BoltFormat) -> BranchProfile {
        BranchProfile {
            format,
            sampled: false,
            bolted: false,
            events: String::new(),
            binary: (String::new(), String::new()),
            entries: Vec::new(),
            records: Vec::new(),
            text: String::new(),
            memory: (0, 0),
        }
    }

    /// Describes the collection mode (`LBR`, `no_lbr, boltedcollection`, `samples`...).
    pub fn mode(&self) -> String {
        let mut s = String::from(match (self.format, self.sampled) {
            (_, false) => "LBR",
            (BoltFormat::Fdata, true) => "no_lbr",
            (BoltFormat::Yaml, true) => "samples",
        });
        if self.bolted {
            s.push_str(", boltedcollection");
        }
        s
    }

    /// What its records are called in reports: `branches` or `samples`.
    pub fn records_noun(&self) -> &'static str {
        if self.sampled { "samples" } else { "branches" }
    }

    /// The identity of record `r` of this profile.
    pub fn key(&self, r: &BoltRecord) -> RecordKey<'_> {
        key_in(&self.text, r)
    }

    /// The function of record `r`.
    pub fn function(&self, r: &BoltRecord) -> &str {
        piece(&self.text, r.function)
    }

    /// The source of record `r`.
    pub fn from(&self, r: &BoltRecord) -> &str {
        piece(&self.text, r.from)
    }

    /// The destination of record `r` ("" for a sample).
    pub fn to(&self, r: &BoltRecord) -> &str {
        piece(&self.text, r.to)
    }

    /// Sorts `records` by key and adds up those of the same key (saturating), and sorts
    /// and adds up `entries` by name: the invariant of [`BranchProfile`].
    pub fn normalise(&mut self) {
        let text = &self.text;
        self.records
            .sort_unstable_by(|a, b| key_in(text, a).cmp(&key_in(text, b)));
        self.records.dedup_by(|later, kept| {
            if key_in(text, later) != key_in(text, kept) {
                return false;
            }
            kept.count = kept.count.saturating_add(later.count);
            kept.mispreds = kept.mispreds.saturating_add(later.mispreds);
            true
        });
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        self.entries.dedup_by(|later, kept| {
            if later.0 != kept.0 {
                return false;
            }
            kept.1 = kept.1.saturating_add(later.1);
            true
        });
    }
}

/// The totals of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoltTotals {
    /// Functions: with a record or, in YAML, listed in the profile.
    pub functions: u64,
    /// Branch records.
    pub branches: u64,
    /// Call records.
    pub calls: u64,
    /// Sample records.
    pub samples: u64,
    /// The sum of all records' counts (saturating).
    pub count: u64,
    /// The sum of all records' mispredictions (saturating).
    pub mispreds: u64,
    /// Memory-event lines (fdata).
    pub memory_events: u64,
    /// The sum of their counts.
    pub memory_count: u64,
}

/// One function's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoltFunctionTotal {
    /// Its name.
    pub name: String,
    /// The sum of its records' counts (saturating).
    pub count: u64,
    /// The sum of its records' mispredictions.
    pub mispreds: u64,
    /// Its records.
    pub records: u64,
    /// Its entry count (YAML `exec`), `None` in fdata.
    pub exec: Option<u64>,
}

/// What `show` reports of a profile: totals, then the hottest functions and records that
/// the options select, hottest first (ties by name, then key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoltSummary {
    /// Totals of the whole profile (whatever the options select).
    pub totals: BoltTotals,
    /// The functions listed.
    pub functions: Vec<BoltFunctionTotal>,
    /// How many functions the options selected (before the limit).
    pub functions_selected: u64,
    /// Indices into the profile's records of the records listed.
    pub records: Vec<usize>,
    /// How many records the options selected (before the limit).
    pub records_selected: u64,
}

/// One function's figures in a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct BoltFunctionOverlap {
    /// Its name.
    pub name: String,
    /// Its count in the base profile (0 if absent).
    pub base_count: u64,
    /// Its count in the test profile (0 if absent).
    pub test_count: u64,
    /// `base_count` / the base profile's total count (0 when that is 0).
    pub base_share: f64,
    /// `test_count` / the test profile's total count.
    pub test_share: f64,
    /// The overlap of its records alone (see [`BoltOverlap::overlap`]), its own totals as
    /// denominators; 0 when it has no count on either side.
    pub overlap: f64,
    /// Records in both, only in the base, only in the test.
    pub records: [u64; 3],
}

/// The figures of a comparison of two profiles of one format and mode.
#[derive(Debug, Clone, PartialEq)]
pub struct BoltOverlap {
    /// The base profile's total count (over its records).
    pub base_count: u64,
    /// The test profile's total count.
    pub test_count: u64,
    /// `Σ min(b/B, t/T)` over the records of both (`b`, `t` a record's counts, `B`, `T` the
    /// totals): 1 for profiles of the same shape, 0 for disjoint ones or a zero total.
    pub overlap: f64,
    /// Records in both, only in the base, only in the test.
    pub records: [u64; 3],
    /// Functions in both, only in the base, only in the test.
    pub functions: [u64; 3],
    /// The share of the base total count in records only in the base.
    pub base_only_share: f64,
    /// The share of the test total count in records only in the test.
    pub test_only_share: f64,
    /// The functions listed, largest difference of share first (ties by name).
    pub listed: Vec<BoltFunctionOverlap>,
    /// How many functions the options selected (before the limit).
    pub functions_selected: u64,
}
