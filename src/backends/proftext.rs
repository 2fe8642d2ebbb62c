//! Back-end for LLVM's text profile format (`.proftext`), as `llvm-profdata merge --text`
//! (LLVM 22) writes it: flag header lines, optional temporal traces, then the records sorted
//! by (name, structural hash).
//!
//! By default the writer is lossless: an indirect-call or vtable value prints as its name when
//! any input named it, as `** External Symbol **` when it is 0, and otherwise as `0x` + 16 hex
//! digits, which our text reader reads back as that hash. With
//! [`ProftextOptions::llvm_compatible`] it prints exactly what llvm-profdata prints (names of
//! written functions only, vtable names only when kept, everything else as an external symbol,
//! which reads back as 0).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::ir::{FunctionRecord, Profile, ProfileKind, ValueKind};

/// The literal LLVM prints for a value that names no function or vtable it knows.
pub const EXTERNAL_SYMBOL: &str = "** External Symbol **";

/// Options of the text writer.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProftextOptions {
    /// Drop names none of whose records has a non-zero counter or bitmap byte.
    pub sparse: bool,
    /// Print vtable names (llvm-profdata's `--keep-vtable-symbols`; in lossless mode names are
    /// always printed when known).
    pub keep_vtable_symbols: bool,
    /// Print exactly what llvm-profdata prints, losing unnamed values.
    pub llvm_compatible: bool,
}

/// Writes one record as LLVM's `writeRecordInText` does. `name_of(kind, value)` names
/// indirect-call and vtable values; `None` prints [`EXTERNAL_SYMBOL`].
pub fn write_record(
    out: &mut String,
    name: &str,
    r: &FunctionRecord<'_>,
    name_of: &dyn Fn(ValueKind, u64) -> Option<String>,
) {
    let _ = write!(
        out,
        "{name}\n# Func Hash:\n{}\n# Num Counters:\n{}\n# Counter Values:\n",
        r.key.cfg,
        r.counters.len()
    );
    for c in r.counters.iter() {
        let _ = writeln!(out, "{c}");
    }
    if !r.bitmap.is_empty() {
        let _ = write!(
            out,
            "# Num Bitmap Bytes:\n${}\n# Bitmap Byte Values:\n",
            r.bitmap.len()
        );
        for b in r.bitmap.iter() {
            let _ = writeln!(out, "0x{b:x}");
        }
        out.push('\n');
    }
    let Some(v) = r.values.as_deref().filter(|v| !v.is_empty()) else {
        out.push('\n');
        return;
    };
    let _ = write!(out, "# Num Value Kinds:\n{}\n", v.num_kinds());
    for kind in ValueKind::ALL {
        let sites = v.kind(kind);
        if sites.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "# ValueKind = {}:\n{}\n# NumValueSites:\n{}\n",
            kind.llvm_name(),
            kind as u32,
            sites.len()
        );
        for s in sites {
            let _ = writeln!(out, "{}", s.values.len());
            for vc in &s.values {
                if kind.values_are_names() {
                    let n = name_of(kind, vc.value).unwrap_or_else(|| EXTERNAL_SYMBOL.into());
                    let _ = writeln!(out, "{n}:{}", vc.count);
                } else {
                    let _ = writeln!(out, "{}:{}", vc.value, vc.count);
                }
            }
        }
    }
    out.push('\n');
}

/// Renders `profile` as text.
pub fn write(profile: &Profile<'_>, opts: &ProftextOptions) -> String {
    let mut out = String::new();
    let k = profile.kind;
    if k.contains(ProfileKind::CONTEXT_SENSITIVE) {
        out.push_str("# CSIR level Instrumentation Flag\n:csir\n");
    } else if k.is_ir() {
        out.push_str("# IR level Instrumentation Flag\n:ir\n");
    }
    if k.contains(ProfileKind::ENTRY_FIRST) {
        out.push_str("# Always instrument the function entry block\n:entry_first\n");
    }
    if k.contains(ProfileKind::LOOP_ENTRIES) {
        out.push_str("# Always instrument the loop entry blocks\n:instrument_loop_entries\n");
    }
    if k.contains(ProfileKind::BYTE_COVERAGE) {
        out.push_str("# Instrument block coverage\n:single_byte_coverage\n");
    }

    // Which names are written (sparse drops all-zero names).
    let mut groups: HashMap<u64, Vec<&FunctionRecord<'_>>> = HashMap::new();
    for r in &profile.records {
        groups.entry(r.key.name).or_default().push(r);
    }
    let written: HashSet<u64> = groups
        .iter()
        .filter(|(_, rs)| !opts.sparse || rs.iter().any(|r| !r.is_zero()))
        .map(|(h, _)| *h)
        .collect();
    let lossy = |n: &[u8]| String::from_utf8_lossy(n).into_owned();
    let fname = |h: u64| -> Option<String> {
        if opts.llvm_compatible && !written.contains(&h) {
            return None;
        }
        profile.names.get(h).map(|n| lossy(n))
    };
    let name_of = |kind: ValueKind, v: u64| -> Option<String> {
        if v == 0 {
            return None;
        }
        let found = match kind {
            ValueKind::VTable if opts.llvm_compatible && !opts.keep_vtable_symbols => None,
            ValueKind::VTable => profile.vtable_names.get(v).map(|n| lossy(n)),
            _ => fname(v),
        };
        // LLVM's symbol table holds function and vtable names together.
        let found = found.or_else(|| match kind {
            ValueKind::VTable => fname(v),
            _ if opts.llvm_compatible && !opts.keep_vtable_symbols => None,
            _ => profile.vtable_names.get(v).map(|n| lossy(n)),
        });
        match found {
            Some(n) => Some(n),
            None if opts.llvm_compatible => None,
            None => Some(format!("0x{v:016x}")),
        }
    };

    if k.contains(ProfileKind::TEMPORAL) {
        let t = &profile.temporal;
        out.push_str(":temporal_prof_traces\n");
        let _ = write!(out, "# Num Temporal Profile Traces:\n{}\n", t.traces.len());
        let _ = write!(
            out,
            "# Temporal Profile Trace Stream Size:\n{}\n",
            t.stream_size
        );
        for tr in &t.traces {
            let _ = write!(out, "# Weight:\n{}\n", tr.weight);
            for f in &tr.functions {
                out.push_str(&fname(*f).unwrap_or_default());
                out.push(',');
            }
            out.push('\n');
        }
        out.push('\n');
    }

    let mut recs: Vec<(String, &FunctionRecord<'_>)> = profile
        .records
        .iter()
        .filter(|r| written.contains(&r.key.name))
        .map(|r| {
            (
                profile
                    .names
                    .get(r.key.name)
                    .map(|n| lossy(n))
                    .unwrap_or_default(),
                r,
            )
        })
        .collect();
    recs.sort_by(|a, b| {
        a.0.as_bytes()
            .cmp(b.0.as_bytes())
            .then(a.1.key.cfg.cmp(&b.1.key.cfg))
    });
    for (name, r) in recs {
        write_record(&mut out, &name, r, &name_of);
    }
    out
}
