//! `llvm-profdata show --sample`: the function dump (LLVM's `FunctionSamples::print`), its
//! JSON form (`--show-format=json`), and the summary (`--detailed-summary`).

use std::fmt::Write as _;

use serde::Serialize;

use crate::backends::show::{print_detailed, print_summary};
use crate::ir::sample::{FunctionSamples, SampleContext, SampleProfile, summary};

/// What `show --sample` prints.
#[derive(Debug, Clone, Default)]
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
}

/// The report of `profile`.
pub fn show(profile: &SampleProfile, opts: &SampleShowOptions) -> String {
    let mut out = String::new();
    let chosen: Vec<(&SampleContext, &FunctionSamples)> = match &opts.function {
        None => profile.sorted(),
        Some(name) => {
            let key = SampleContext::Function(crate::ir::sample::FunctionId::name(name.as_bytes()));
            match profile.functions.get_key_value(&key) {
                Some(kv) => vec![kv],
                None => Vec::new(),
            }
        }
    };
    if opts.json {
        let docs: Vec<JsonFunction> = chosen.iter().map(|(_, f)| json_of(f, true)).collect();
        // LLVM's json::OStream with an indent of 2: the same layout as serde_json's pretty
        // printer; field order is the structs'.
        out.push_str(&serde_json::to_string_pretty(&docs).unwrap_or_default());
        out.push('\n');
        return out;
    }
    if chosen.is_empty() && opts.function.is_some() {
        out.push_str("Function: : ");
        print_function(&mut out, &FunctionSamples::default(), 0);
    }
    for (context, f) in chosen {
        let _ = write!(out, "Function: {context}: ");
        print_function(&mut out, f, 0);
    }
    if opts.detailed_summary {
        let s = summary::compute(profile);
        if opts.llvm == 0 || opts.llvm >= 22 {
            print_summary(&mut out, &s);
            print_detailed(&mut out, &s);
        } else {
            print_summary_19(&mut out, &s);
        }
    }
    out
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
                print_function(out, callee, ind + 4);
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

#[derive(Serialize)]
struct JsonFunction {
    name: String,
    total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    body: Vec<JsonBody>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    callsites: Vec<JsonCallsite>,
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

#[derive(Serialize)]
struct JsonCallsite {
    line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    discriminator: Option<u32>,
    samples: Vec<JsonFunction>,
}

fn json_of(f: &FunctionSamples, top: bool) -> JsonFunction {
    JsonFunction {
        name: f.name.to_string(),
        total: f.total_samples,
        head: top.then_some(f.head_samples),
        body: f
            .body
            .iter()
            .map(|(loc, rec)| JsonBody {
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
            })
            .collect(),
        callsites: f
            .callsites
            .iter()
            .flat_map(|(loc, site)| {
                site.values().map(move |callee| JsonCallsite {
                    line: loc.line_offset,
                    discriminator: (loc.discriminator != 0).then_some(loc.discriminator),
                    samples: vec![json_of(callee, false)],
                })
            })
            .collect(),
    }
}
