//! `show --debug-info`: what a lightweight build's debug info says about its counters, in
//! llvm-profdata's words — a count of functions, optionally the sorted names and the size of
//! the counters section, or the probes as LLVM's YAML writer prints them.

use std::fmt::Write;

use crate::ir::correlation::{DebugInfoCounters, DescribedProbe};

/// The text report: the names (each once) with `names`, the counters section's size with
/// `detailed`, then the number of functions. The names come sorted, as llvm-profdata 19 and
/// later print them, or for `llvm` ≤ 16 in the order of that release's `StringMap` (checked
/// for 14; 17 and 18, whose `StringMap` hashes with xxHash, are assumed to sort).
pub fn render_text(
    d: &DebugInfoCounters,
    names: bool,
    detailed: bool,
    llvm: Option<u32>,
) -> String {
    let mut out = String::new();
    if names {
        let mut all: Vec<&[u8]> = d.probes.iter().map(|p| &p.function_name[..]).collect();
        if llvm.is_some_and(|r| r <= 16) {
            all = string_map_order(&all);
        } else {
            all.sort_unstable();
            all.dedup();
        }
        for n in all {
            out.push_str(&String::from_utf8_lossy(n));
            out.push('\n');
        }
    }
    if detailed {
        let _ = writeln!(out, "Counters section size: 0x{:x} bytes", d.counters_size);
    }
    let _ = writeln!(out, "Found {} functions", d.functions);
    out
}

/// `names` (duplicates after the first ignored) in the iteration order of the `StringMap`
/// of LLVM 16 and earlier they were inserted into in this order.
fn string_map_order<'n>(names: &[&'n [u8]]) -> Vec<&'n [u8]> {
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<&[u8]> = names.iter().copied().filter(|n| seen.insert(*n)).collect();
    crate::backends::profdata::string_map::iteration_order(distinct.iter().copied())
        .into_iter()
        .map(|i| distinct[i])
        .collect()
}

/// The probes as LLVM's YAML output prints its `CorrelationData`; for `llvm` 23 and later
/// with each probe's MC/DC bitmap offset and size (0 without a bitmap), as that release
/// prints them.
pub fn render_yaml(d: &DebugInfoCounters, llvm: Option<u32>) -> String {
    let bitmaps = llvm.is_some_and(|r| r >= 23);
    let mut out = String::from("---\nProbes:\n");
    for p in &d.probes {
        probe(&mut out, p, bitmaps);
    }
    out.push_str("...\n");
    out
}

fn probe(out: &mut String, p: &DescribedProbe, bitmaps: bool) {
    let mut first = true;
    let mut key = |out: &mut String, k: &str, v: String| {
        out.push_str(if first { "  - " } else { "    " });
        first = false;
        out.push_str(k);
        out.push(':');
        // LLVM pads a key and its colon to 17 columns, or adds one space.
        out.push_str(&" ".repeat(16usize.saturating_sub(k.len()).max(1)));
        out.push_str(&v);
        out.push('\n');
    };
    key(out, "Function Name", scalar(&p.function_name));
    if let Some(l) = &p.linkage_name {
        key(out, "Linkage Name", scalar(l));
    }
    key(out, "CFG Hash", format!("0x{:X}", p.cfg_hash));
    key(out, "Counter Offset", format!("0x{:X}", p.counter_offset));
    // LLVM keeps these in 32-bit fields.
    key(out, "Num Counters", (p.num_counters as u32).to_string());
    if bitmaps {
        key(out, "Bitmap Offset", format!("0x{:X}", p.bitmap_offset));
        key(out, "Num BitmapBytes", p.num_bitmap_bytes.to_string());
    }
    if let Some(f) = &p.file {
        key(out, "File", scalar(f));
    }
    if let Some(l) = p.line {
        key(out, "Line", (l as i32).to_string());
    }
}

/// How a YAML scalar must be quoted (LLVM's `needsQuotes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Quoting {
    None,
    Single,
    Double,
}

/// `s` as LLVM's YAML writer writes a string scalar: plain, single-quoted or double-quoted.
fn scalar(s: &[u8]) -> String {
    match quoting(s) {
        Quoting::None => String::from_utf8_lossy(s).into_owned(),
        Quoting::Single => format!("'{}'", String::from_utf8_lossy(s).replace('\'', "''")),
        Quoting::Double => double_quoted(s),
    }
}

fn quoting(s: &[u8]) -> Quoting {
    let Some((&front, &back)) = s.first().zip(s.last()) else {
        return Quoting::Single;
    };
    let mut q = Quoting::None;
    let text = std::str::from_utf8(s).unwrap_or("");
    if front.is_ascii_whitespace()
        || back.is_ascii_whitespace()
        || matches!(text, "null" | "Null" | "NULL" | "~")
        || matches!(text, "true" | "True" | "TRUE" | "false" | "False" | "FALSE")
        || is_numeric(s)
        || br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&front)
    {
        q = Quoting::Single;
    }
    for &c in s {
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t')
        {
            continue;
        }
        if c == b'\n' || c == b'\r' {
            q = q.max(Quoting::Single);
        } else if c == 0x7f || c <= 0x1f || c & 0x80 != 0 {
            return Quoting::Double;
        } else {
            q = q.max(Quoting::Single);
        }
    }
    q
}

/// YAML's numbers (LLVM's `isNumeric`): `.nan`, `[-+].inf`, `0o` octal, `0x` hex and
/// `[-+]? (\.[0-9]+ | [0-9]+(\.[0-9]*)?) ([eE][-+]?[0-9]+)?`.
fn is_numeric(s: &[u8]) -> bool {
    let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
    if s.is_empty() || s == b"+" || s == b"-" {
        return false;
    }
    if matches!(s, b".nan" | b".NaN" | b".NAN") {
        return true;
    }
    let tail = if matches!(s[0], b'-' | b'+') {
        &s[1..]
    } else {
        s
    };
    if matches!(tail, b".inf" | b".Inf" | b".INF") {
        return true;
    }
    if let Some(r) = s.strip_prefix(b"0o") {
        return !r.is_empty() && r.iter().all(|c| (b'0'..=b'7').contains(c));
    }
    if let Some(r) = s.strip_prefix(b"0x") {
        return !r.is_empty() && r.iter().all(u8::is_ascii_hexdigit);
    }
    let mut t = tail;
    if t.first() == Some(&b'.') && !t.get(1).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    if matches!(t.first(), Some(b'e' | b'E')) {
        return false;
    }
    t = &t[digits(t)..];
    if t.is_empty() {
        return true;
    }
    if t[0] == b'.' {
        t = &t[1..];
        t = &t[digits(t)..];
        if t.is_empty() {
            return true;
        }
    }
    if !matches!(t[0], b'e' | b'E') {
        return false;
    }
    t = &t[1..];
    if matches!(t.first(), Some(b'+' | b'-')) {
        t = &t[1..];
    }
    !t.is_empty() && digits(t) == t.len()
}

/// A double-quoted scalar: backslash, quote and control characters escaped.
fn double_quoted(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for ch in String::from_utf8_lossy(s).chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\0' => out.push_str("\\0"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_quoted_as_llvm_quotes_them() {
        assert_eq!(scalar(b"main"), "main");
        assert_eq!(scalar(b"prog.c;collatz"), "'prog.c;collatz'");
        assert_eq!(scalar(b"/usr/include/a.h"), "'/usr/include/a.h'");
        assert_eq!(scalar(b"it's"), "'it''s'");
        assert_eq!(scalar(b"123"), "'123'");
        assert_eq!(scalar(b"1.5e3"), "'1.5e3'");
        assert_eq!(scalar(b"1.c"), "'1.c'".replace('\'', ""));
        assert_eq!(scalar(b"true"), "'true'");
        assert_eq!(scalar(b"-x"), "'-x'");
        assert_eq!(scalar(b""), "''");
        assert_eq!(scalar(b"a\x01b"), "\"a\\x01b\"");
    }

    /// The order llvm-profdata-14 printed for these names (`show --debug-info
    /// --show-prof-sym-list` of testdata/correlate/dbg14-O0).
    #[test]
    fn string_map_order_is_llvm_14s() {
        let names: [&[u8]; 6] = [
            b"main",
            b"reverse_words",
            b"prog.c:collatz",
            b"prog.c:is_prime",
            b"shape_area",
            b"shape_unused",
        ];
        let want: [&[u8]; 6] = [
            b"shape_unused",
            b"main",
            b"shape_area",
            b"reverse_words",
            b"prog.c:is_prime",
            b"prog.c:collatz",
        ];
        assert_eq!(string_map_order(&names), want);
        // Growth: 13 names pass three quarters of 16 buckets; each is kept once.
        let many: Vec<Vec<u8>> = (0..40).map(|i| format!("f{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = many.iter().map(Vec::as_slice).chain([&b"f3"[..]]).collect();
        assert_eq!(string_map_order(&refs).len(), 40);
    }
}
