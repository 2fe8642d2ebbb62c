//! Back-end for LLVM's text profile format (`.proftext`), as `llvm-profdata merge --text`
//! (LLVM 22) writes it: flag header lines, optional temporal traces, then the records sorted
//! by (name, structural hash).

use std::fmt::Write as _;

use crate::ir::{FunctionRecord, Profile, ProfileKind, ValueKind};

/// The literal LLVM prints for a value that names no function or vtable it knows.
pub const EXTERNAL_SYMBOL: &str = "** External Symbol **";

/// Options of the text writer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProftextOptions {
    /// Drop names none of whose records has a non-zero counter or bitmap byte.
    pub sparse: bool,
    /// Print vtable names the inputs carried (else vtable values print as external symbols,
    /// as in LLVM without `--keep-vtable-symbols`).
    pub keep_vtable_symbols: bool,
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
    let mut groups: std::collections::HashMap<u64, Vec<&FunctionRecord<'_>>> =
        std::collections::HashMap::new();
    for r in &profile.records {
        groups.entry(r.key.name).or_default().push(r);
    }
    let written: std::collections::HashSet<u64> = groups
        .iter()
        .filter(|(_, rs)| !opts.sparse || rs.iter().any(|r| !r.is_zero()))
        .map(|(h, _)| *h)
        .collect();
    let fname = |h: u64| -> Option<String> {
        if !written.contains(&h) {
            return None;
        }
        profile
            .names
            .get(h)
            .map(|n| String::from_utf8_lossy(n).into_owned())
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
            let n = profile
                .names
                .get(r.key.name)
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .unwrap_or_default();
            (n, r)
        })
        .collect();
    recs.sort_by(|a, b| {
        a.0.as_bytes()
            .cmp(b.0.as_bytes())
            .then(a.1.key.cfg.cmp(&b.1.key.cfg))
    });

    for (name, r) in recs {
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
            continue;
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
                    match kind {
                        ValueKind::IndirectCall => {
                            let n = fname(vc.value).unwrap_or_else(|| EXTERNAL_SYMBOL.into());
                            let _ = writeln!(out, "{n}:{}", vc.count);
                        }
                        ValueKind::VTable => {
                            let n = if opts.keep_vtable_symbols {
                                profile
                                    .vtable_names
                                    .get(vc.value)
                                    .map(|n| String::from_utf8_lossy(n).into_owned())
                            } else {
                                None
                            };
                            let _ = writeln!(
                                out,
                                "{}:{}",
                                n.unwrap_or_else(|| EXTERNAL_SYMBOL.into()),
                                vc.count
                            );
                        }
                        ValueKind::MemOpSize => {
                            let _ = writeln!(out, "{}:{}", vc.value, vc.count);
                        }
                    }
                }
            }
        }
        out.push('\n');
    }
    out
}
