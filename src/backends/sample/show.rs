//! `llvm-profdata show --sample`: the function dump (LLVM's `FunctionSamples::print`), its
//! JSON form (`--show-format=json`), the profile symbol list (`--show-prof-sym-list`), the
//! summary (`--detailed-summary`), the hot-function list (`--hot-func-list`, `--topn`), and
//! an extbinary file's section table (`--show-sec-info-only`).

use crate::bytes::stack::deep;
use std::fmt::Write as _;

use serde::Serialize;

use super::overlap::pad_to;
use crate::backends::cfmt;
use crate::backends::show::{print_detailed, print_summary};
use crate::codec::sample_binary::{SectionEntry, flag, sec};
use crate::codec::unordered_order::sample_map_key;
use crate::ir::sample::{FunctionSamples, SampleContext, SampleProfile, summary};

/// What `show --sample` prints.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SampleShowOptions {
    /// Only this function (by name; LLVM prints an empty profile when there is none).
    pub function: Option<String>,
    /// JSON instead of text.
    pub json: bool,
    /// The summary and detailed summary after the functions (text only).
    pub detailed_summary: bool,
    /// The LLVM release whose wording to use for the summary (before 22: LLVM 19's
    /// "Maximum block count" and "N percentage" lines; 0 is 22).
    pub llvm: u32,
    /// The profile symbol list after the functions (`--show-prof-sym-list`); the profile
    /// must have one (llvm-profdata crashes on one without).
    pub symbol_list: bool,
    /// The hot functions after everything else (`--hot-func-list`).
    pub hot_func_list: bool,
    /// The hot-function list with at most this many rows (`--topn`; 0: all); non-zero
    /// implies the list, as in llvm-profdata.
    pub topn: u32,
}

/// The report of `profile`.
pub fn show(profile: &SampleProfile, opts: &SampleShowOptions) -> String {
    let mut out = String::new();
    let chosen: Vec<(&SampleContext, &FunctionSamples)> = match &opts.function {
        None => profile.sorted(),
        Some(name) => {
            // LLVM looks the name up by its hash (its map's key): a profile written with
            // MD5 names finds it too.
            let key = SampleContext::Function(crate::ir::sample::FunctionId::name(name.as_bytes()));
            let hash = sample_map_key(&key, profile.context_hash);
            match profile.functions.get_key_value(&key) {
                Some(kv) => vec![kv],
                None => profile
                    .functions
                    .iter()
                    .filter(|(k, _)| sample_map_key(k, profile.context_hash) == hash)
                    .min_by(|a, b| a.0.cmp(b.0))
                    .into_iter()
                    .collect(),
            }
        }
    };
    if opts.json {
        let docs: Vec<JsonFunction> = chosen
            .iter()
            .map(|(_, f)| JsonFunction { f, top: true })
            .collect();
        // LLVM's json::OStream with an indent of 2: the same layout as serde_json's pretty
        // printer; field order is the structs'.
        out.push_str(&serde_json::to_string_pretty(&docs).unwrap_or_default());
        out.push('\n');
    } else {
        if chosen.is_empty() && opts.function.is_some() {
            out.push_str("Function: : ");
            print_function(&mut out, &FunctionSamples::default(), 0);
        }
        for (context, f) in chosen {
            let _ = write!(out, "Function: {context}: ");
            print_function(&mut out, f, 0);
        }
    }
    if opts.symbol_list {
        out.push_str("======== Dump profile symbol list ========\n");
        for name in profile.symbol_list.iter().flat_map(|l| l.names.iter()) {
            out.push_str(&String::from_utf8_lossy(name));
            out.push('\n');
        }
    }
    if opts.detailed_summary {
        let s = summary::of_reader(profile);
        if opts.llvm == 0 || opts.llvm >= 21 {
            print_summary(&mut out, &s);
            print_detailed(&mut out, &s);
        } else {
            print_summary_19(&mut out, &s);
        }
    }
    if opts.hot_func_list || opts.topn > 0 {
        out.push_str(&hot_functions(profile, opts.topn));
    }
    out
}

/// The hot-function list (llvm-profdata's `showHotFunctionList`): functions whose largest
/// block count (inlined callees included) reaches the minimum count of the summary's
/// 990000 cutoff (0 without one), by total samples (most first; equal totals in the
/// iteration order of LLVM's profile map), at most `topn` rows unless it is 0.
pub fn hot_functions(profile: &SampleProfile, topn: u32) -> String {
    let s = summary::of_reader(profile);
    let threshold = s
        .detailed
        .iter()
        .find(|e| e.cutoff == 990_000)
        .map_or(0, |e| e.min_count);
    let order = crate::codec::unordered_order::sample_map_order(profile).unwrap_or_else(|| {
        let mut v: Vec<&SampleContext> = profile.functions.keys().collect();
        v.sort();
        v
    });
    let mut total = 0u64;
    let mut hot_total = 0u64;
    let mut hot: Vec<(&SampleContext, &FunctionSamples, u64)> = Vec::new();
    for ctx in order {
        let f = &profile.functions[ctx];
        total = total.wrapping_add(f.total_samples);
        let max = max_block(f);
        if max >= threshold {
            hot.push((ctx, f, max));
            hot_total = hot_total.wrapping_add(f.total_samples);
        }
    }
    // Most total samples first; equal totals stay in map order (a multimap's insertion).
    hot.sort_by_key(|h| std::cmp::Reverse(h.1.total_samples));
    let n = profile.functions.len();
    let mut out: Vec<u8> = Vec::new();
    let _ = std::io::Write::write_fmt(
        &mut out,
        format_args!(
            "{} out of {n} functions with profile ({}%) are considered hot functions \
             (max sample >= {threshold}).\n",
            hot.len(),
            cfmt::fixed(hot.len() as f64 / n as f64 * 100.0, 2)
        ),
    );
    let share = if total > 0 {
        hot_total as f64 / total as f64 * 100.0
    } else {
        0.0
    };
    let _ = std::io::Write::write_fmt(
        &mut out,
        format_args!(
            "{hot_total} out of {total} profile counts ({}%) are from hot functions.\n",
            cfmt::fixed(share, 2)
        ),
    );
    let columns = [0usize, 24, 42, 58];
    let titles = [
        "Total sample (%)",
        "Max sample",
        "Entry sample",
        "Function name",
    ];
    for (col, title) in columns.iter().zip(titles) {
        pad_to(&mut out, *col);
        out.extend_from_slice(title.as_bytes());
    }
    out.push(b'\n');
    let cs = profile.flags.context_sensitive;
    for (i, (ctx, f, max)) in hot.iter().enumerate() {
        if topn > 0 && i == topn as usize {
            break;
        }
        let pct = if total > 0 {
            f.total_samples as f64 * 100.0 / total as f64
        } else {
            0.0
        };
        pad_to(&mut out, columns[0]);
        let _ = std::io::Write::write_fmt(
            &mut out,
            format_args!("{} ({}%)", f.total_samples, cfmt::fixed(pct, 2)),
        );
        pad_to(&mut out, columns[1]);
        out.extend_from_slice(max.to_string().as_bytes());
        pad_to(&mut out, columns[2]);
        out.extend_from_slice(f.head_samples_estimate(cs).to_string().as_bytes());
        pad_to(&mut out, columns[3]);
        ctx.write_to(&mut out);
        out.push(b'\n');
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The largest body-sample count of `f` and its inlined callees (0 if none).
fn max_block(f: &FunctionSamples) -> u64 {
    f.max_count_inside(false)
}

/// llvm-profdata's `--show-sec-info-only` report of an extbinary file's section table
/// (`dumpSectionInfo`): one line per section in table order, then the header's size (the
/// first section's offset), the sum of the sizes, and the end of the last section.
pub fn section_info(table: &[SectionEntry]) -> String {
    let mut out = String::new();
    let mut total = 0u64;
    let mut end = 0u64;
    for e in table {
        let _ = writeln!(
            out,
            "{} - Offset: {}, Size: {}, Flags: {}",
            section_title(e.kind),
            e.offset,
            e.size,
            section_flags(e)
        );
        total = total.wrapping_add(e.size);
        end = end.max(e.offset.wrapping_add(e.size));
    }
    let header = table.first().map_or(0, |e| e.offset);
    let _ = writeln!(out, "Header Size: {header}");
    let _ = writeln!(out, "Total Sections Size: {total}");
    let _ = writeln!(out, "File Size: {end}");
    out
}

/// LLVM's name of a section type (`getSecName`).
fn section_title(kind: u64) -> &'static str {
    match kind {
        0 => "InvalidSection",
        sec::SUMMARY => "ProfileSummarySection",
        sec::NAME_TABLE => "NameTableSection",
        sec::SYMBOL_LIST => "ProfileSymbolListSection",
        sec::FUNC_OFFSET_TABLE => "FuncOffsetTableSection",
        sec::FUNC_METADATA => "FunctionMetadata",
        sec::CS_NAME_TABLE => "CSNameTableSection",
        sec::LBR_PROFILE => "LBRProfileSection",
        _ => "UnknownSection",
    }
}

/// LLVM's description of a section's flags (`getSecFlagsStr`): `{compressed,flat,…}`, the
/// flags that type knows, in LLVM's order.
fn section_flags(e: &SectionEntry) -> String {
    let mut v: Vec<&str> = Vec::new();
    let has = |f: u64| e.flags & f != 0;
    if has(flag::COMPRESS) {
        v.push("compressed");
    }
    if has(flag::FLAT) {
        v.push("flat");
    }
    match e.kind {
        sec::NAME_TABLE => {
            if has(flag::FIXED_LENGTH_MD5) {
                v.push("fixlenmd5");
            } else if has(flag::MD5_NAME) {
                v.push("md5");
            }
            if has(flag::UNIQ_SUFFIX) {
                v.push("uniq");
            }
        }
        sec::SUMMARY => {
            if has(flag::PARTIAL) {
                v.push("partial");
            }
            if has(flag::FULL_CONTEXT) {
                v.push("context");
            }
            if has(flag::PRE_INLINED) {
                v.push("preInlined");
            }
            if has(flag::FS_DISCRIMINATOR) {
                v.push("fs-discriminator");
            }
        }
        sec::FUNC_OFFSET_TABLE if has(flag::ORDERED) => v.push("ordered"),
        sec::FUNC_METADATA => {
            if has(flag::PROBE_BASED) {
                v.push("probe");
            }
            if has(flag::HAS_ATTRIBUTE) {
                v.push("attr");
            }
        }
        _ => {}
    }
    format!("{{{}}}", v.join(","))
}

/// LLVM 19's `ProfileSummary::printSummary` and `printDetailedSummary`.
fn print_summary_19(out: &mut String, s: &crate::ir::Summary) {
    let _ = writeln!(out, "Total functions: {}", s.num_functions);
    let _ = writeln!(out, "Maximum function count: {}", s.max_function_count);
    let _ = writeln!(out, "Maximum block count: {}", s.max_count);
    let _ = writeln!(out, "Total number of blocks: {}", s.num_counts);
    let _ = writeln!(out, "Total count: {}", s.total_count);
    out.push_str("Detailed summary:\n");
    for e in &s.detailed {
        let cut = e.cutoff as f32 / 1_000_000.0 * 100.0;
        let _ = writeln!(
            out,
            "{} blocks with count >= {} account for {} percentage of the total counts.",
            e.num_counts,
            e.min_count,
            crate::backends::cfmt::general(f64::from(cut), 6)
        );
    }
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// `FunctionSamples::print` at `ind` spaces.
fn print_function(out: &mut String, f: &FunctionSamples, ind: usize) {
    // LLVM prints a checksum wherever there is one, probe-based profile or not.
    if f.checksum != 0 {
        let _ = writeln!(out, "CFG checksum {}", f.checksum);
    }
    let _ = writeln!(
        out,
        "{}, {}, {} sampled lines",
        f.total_samples,
        f.head_samples,
        f.body.len()
    );
    indent(out, ind);
    if f.body.is_empty() {
        out.push_str("No samples collected in the function's body\n");
    } else {
        out.push_str("Samples collected in the function's body {\n");
        for (loc, rec) in &f.body {
            indent(out, ind + 2);
            let _ = write!(out, "{loc}: {}", rec.samples);
            let targets = rec.sorted_call_targets();
            if !targets.is_empty() {
                out.push_str(", calls:");
                for (t, c) in targets {
                    let _ = write!(out, " {t}:{c}");
                }
            }
            out.push('\n');
            types(out, f, *loc, ind + 2);
        }
        indent(out, ind);
        out.push_str("}\n");
    }
    indent(out, ind);
    if f.callsites.is_empty() {
        out.push_str("No inlined callsites in this function\n");
    } else {
        out.push_str("Samples collected in inlined callsites {\n");
        for (loc, site) in &f.callsites {
            for callee in site.values() {
                indent(out, ind + 2);
                let _ = write!(out, "{loc}: inlined callee: {}: ", callee.name);
                deep(|| print_function(out, callee, ind + 4));
            }
            types(out, f, *loc, ind + 2);
        }
        indent(out, ind);
        out.push_str("}\n");
    }
}

/// LLVM 22's vtable line of a location (`3.1: vtables: T:C `).
fn types(out: &mut String, f: &FunctionSamples, loc: crate::ir::sample::LineLocation, ind: usize) {
    if let Some(t) = f.type_counts.get(&loc).filter(|t| !t.is_empty()) {
        indent(out, ind);
        let _ = write!(out, "{loc}: vtables: ");
        for (name, c) in t {
            let _ = write!(out, "{name}:{c} ");
        }
        out.push('\n');
    }
}

/// One function (or inlined callee) in JSON, serialised straight from the profile: the
/// nesting builds no tree of its own, and each level recurses through [`deep`].
struct JsonFunction<'a> {
    f: &'a FunctionSamples,
    /// A top-level function (it has head samples).
    top: bool,
}

impl Serialize for JsonFunction<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let f = self.f;
        let mut st = s.serialize_struct("JsonFunction", 5)?;
        st.serialize_field("name", &f.name.to_string())?;
        st.serialize_field("total", &f.total_samples)?;
        if self.top {
            st.serialize_field("head", &f.head_samples)?;
        }
        if !f.body.is_empty() {
            let body: Vec<JsonBody> = f
                .body
                .iter()
                .map(|(loc, rec)| json_body(loc, rec))
                .collect();
            st.serialize_field("body", &body)?;
        }
        if !f.callsites.is_empty() {
            deep(|| st.serialize_field("callsites", &JsonCallsites(f)))?;
        }
        st.end()
    }
}

#[derive(Serialize)]
struct JsonBody {
    line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    discriminator: Option<u32>,
    samples: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    calls: Vec<JsonCall>,
}

#[derive(Serialize)]
struct JsonCall {
    function: String,
    samples: u64,
}

/// The inlined callees of a function, one JSON object per callee.
struct JsonCallsites<'a>(&'a FunctionSamples);

impl Serialize for JsonCallsites<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.callsites.iter().flat_map(|(loc, site)| {
            site.values().map(move |callee| JsonCallsite {
                line: loc.line_offset,
                discriminator: (loc.discriminator != 0).then_some(loc.discriminator),
                samples: [JsonFunction {
                    f: callee,
                    top: false,
                }],
            })
        }))
    }
}

#[derive(Serialize)]
struct JsonCallsite<'a> {
    line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    discriminator: Option<u32>,
    samples: [JsonFunction<'a>; 1],
}

fn json_body(
    loc: &crate::ir::sample::LineLocation,
    rec: &crate::ir::sample::SampleRecord,
) -> JsonBody {
    JsonBody {
        line: loc.line_offset,
        discriminator: (loc.discriminator != 0).then_some(loc.discriminator),
        samples: rec.samples,
        calls: rec
            .sorted_call_targets()
            .into_iter()
            .map(|(t, c)| JsonCall {
                function: t.to_string(),
                samples: c,
            })
            .collect(),
    }
}
