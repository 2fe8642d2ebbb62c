//! The YAML profile writer: the bytes LLVM's YAML I/O writes for a `BinaryProfile` (what
//! `merge-fdata` and `llvm-bolt -w` print): keys padded to 16 columns, keys whose value is
//! the default left out, call sites and successors as flow sequences of flow mappings
//! wrapped once a line passes column 70, scalars quoted by LLVM's rules.

use std::io::{self, Write};

use crate::ir::bolt_yaml::{
    HashFunction, PF_LBR, PF_MEMEVENT, PF_SAMPLE, YamlBlock, YamlCall, YamlFunction, YamlHeader,
    YamlProfile, YamlSuccessor,
};

/// LLVM's `yaml::Output` wraps flow sequences and mappings past this column.
const WRAP_COLUMN: usize = 70;

/// A writer that knows its column.
struct Out<'w> {
    w: &'w mut dyn Write,
    col: usize,
}

impl Out<'_> {
    fn put(&mut self, s: &str) -> io::Result<()> {
        self.col += s.len();
        self.w.write_all(s.as_bytes())
    }

    fn newline(&mut self) -> io::Result<()> {
        self.col = 0;
        self.w.write_all(b"\n")
    }

    /// `prefix` then `key:` padded as LLVM pads it (to 16 columns after the key's start).
    fn key(&mut self, prefix: &str, key: &str) -> io::Result<()> {
        self.put(prefix)?;
        self.put(key)?;
        self.put(":")?;
        let pad = 16usize.saturating_sub(key.len()).max(1);
        self.put(&" ".repeat(pad))
    }

    /// A whole `key: value` line.
    fn line(&mut self, prefix: &str, key: &str, value: &str) -> io::Result<()> {
        self.key(prefix, key)?;
        self.put(value)?;
        self.newline()
    }

    /// Wraps as LLVM does before a flow element or key: past the wrap column, a new line
    /// indented to `start` plus two.
    fn wrap(&mut self, start: usize) -> io::Result<()> {
        if self.col > WRAP_COLUMN {
            self.w.write_all(b"\n")?;
            self.w.write_all(" ".repeat(start).as_bytes())?;
            self.col = start;
            self.put("  ")?;
        }
        Ok(())
    }

    /// A flow sequence of flow mappings, each given as its `(key, value)` pairs.
    fn flow_seq(&mut self, items: &[Vec<(&str, String)>]) -> io::Result<()> {
        let start = self.col;
        self.put("[ ")?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.put(", ")?;
            }
            self.wrap(start)?;
            let map_start = self.col;
            self.put("{ ")?;
            for (j, (k, v)) in item.iter().enumerate() {
                if j > 0 {
                    self.put(", ")?;
                }
                self.wrap(map_start)?;
                self.put(k)?;
                self.put(": ")?;
                self.put(v)?;
            }
            self.put(" }")?;
        }
        self.put(" ]")
    }
}

/// Writes `p` as LLVM's YAML I/O writes it.
pub fn write_yaml(p: &YamlProfile, w: &mut dyn Write) -> io::Result<()> {
    let mut out = Out { w, col: 0 };
    out.put("---")?;
    out.newline()?;
    header(&mut out, &p.header)?;
    if p.functions.is_empty() {
        out.key("", "functions")?;
        out.put("[]")?;
        out.newline()?;
    } else {
        out.put("functions:")?;
        out.newline()?;
        for f in &p.functions {
            function(&mut out, f)?;
        }
    }
    out.put("...")?;
    out.newline()
}

fn header(out: &mut Out<'_>, h: &YamlHeader) -> io::Result<()> {
    out.put("header:")?;
    out.newline()?;
    out.line("  ", "profile-version", &h.version.to_string())?;
    out.line("  ", "binary-name", &scalar(&h.binary_name))?;
    out.line("  ", "binary-build-id", &scalar(&h.build_id))?;
    let names: Vec<&str> = [
        (PF_LBR, "lbr"),
        (PF_SAMPLE, "sample"),
        (PF_MEMEVENT, "memevent"),
    ]
    .into_iter()
    .filter(|(bit, _)| h.flags & bit != 0)
    .map(|(_, n)| n)
    .collect();
    out.line("  ", "profile-flags", &format!("[ {} ]", names.join(", ")))?;
    out.line("  ", "profile-origin", &scalar(&h.origin))?;
    out.line("  ", "profile-events", &scalar(&h.events))?;
    out.line(
        "  ",
        "dfs-order",
        if h.dfs_order { "true" } else { "false" },
    )?;
    if h.hash_function == HashFunction::Xxh3 {
        out.line("  ", "hash-func", "xxh3")?;
    }
    Ok(())
}

fn function(out: &mut Out<'_>, f: &YamlFunction) -> io::Result<()> {
    out.line("  - ", "name", &scalar(&f.name))?;
    out.line("    ", "fid", &f.id.to_string())?;
    out.line("    ", "hash", &hex(f.hash))?;
    out.line("    ", "exec", &f.exec.to_string())?;
    out.line("    ", "nblocks", &f.nblocks.to_string())?;
    if !f.blocks.is_empty() {
        out.put("    blocks:")?;
        out.newline()?;
        for b in &f.blocks {
            block(out, b)?;
        }
    }
    Ok(())
}

fn block(out: &mut Out<'_>, b: &YamlBlock) -> io::Result<()> {
    const IN: &str = "        ";
    out.line("      - ", "bid", &b.index.to_string())?;
    out.line(IN, "insns", &b.insns.to_string())?;
    if b.hash != 0 {
        out.line(IN, "hash", &hex(b.hash))?;
    }
    if b.exec != 0 {
        out.line(IN, "exec", &b.exec.to_string())?;
    }
    if b.events != 0 {
        out.line(IN, "events", &b.events.to_string())?;
    }
    if !b.calls.is_empty() {
        out.key(IN, "calls")?;
        let items: Vec<_> = b.calls.iter().map(call_fields).collect();
        out.flow_seq(&items)?;
        out.newline()?;
    }
    if !b.successors.is_empty() {
        out.key(IN, "succ")?;
        let items: Vec<_> = b.successors.iter().map(successor_fields).collect();
        out.flow_seq(&items)?;
        out.newline()?;
    }
    Ok(())
}

fn call_fields(c: &YamlCall) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("off", hex(u64::from(c.offset))),
        ("fid", c.dest.to_string()),
    ];
    if c.disc != 0 {
        v.push(("disc", c.disc.to_string()));
    }
    v.push(("cnt", c.count.to_string()));
    if c.mispreds != 0 {
        v.push(("mis", c.mispreds.to_string()));
    }
    v
}

fn successor_fields(s: &YamlSuccessor) -> Vec<(&'static str, String)> {
    let mut v = vec![("bid", s.index.to_string()), ("cnt", s.count.to_string())];
    if s.mispreds != 0 {
        v.push(("mis", s.mispreds.to_string()));
    }
    v
}

/// LLVM's `Hex64`/`Hex32` output: `0x` and upper-case digits.
fn hex(v: u64) -> String {
    format!("0x{v:X}")
}

/// How LLVM's YAML output quotes a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Quoting {
    None,
    Single,
    Double,
}

/// LLVM's `yaml::needsQuotes` for a string that must stay a string.
fn needs_quotes(s: &str) -> Quoting {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return Quoting::Single;
    };
    let mut q = Quoting::None;
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    if space(first) || space(b[b.len() - 1]) {
        q = Quoting::Single;
    }
    if is_null(s) || is_bool(s) || is_numeric(s) {
        q = Quoting::Single;
    }
    if br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&first) {
        q = Quoting::Single;
    }
    for &c in b {
        match c {
            _ if c.is_ascii_alphanumeric() => {}
            b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t' => {}
            b'\n' | b'\r' => q = q.max(Quoting::Single),
            0x7f => return Quoting::Double,
            _ if c <= 0x1f || c & 0x80 != 0 => return Quoting::Double,
            _ => q = q.max(Quoting::Single),
        }
    }
    q
}

fn is_null(s: &str) -> bool {
    matches!(s, "null" | "Null" | "NULL" | "~")
}

fn is_bool(s: &str) -> bool {
    matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE")
}

/// LLVM's `yaml::isNumeric`: YAML 1.2 core-schema integers and floats.
fn is_numeric(s: &str) -> bool {
    let digits = |t: &str| {
        t.trim_start_matches(|c: char| c.is_ascii_digit())
            .to_string()
    };
    if s.is_empty() || s == "+" || s == "-" {
        return false;
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(tail, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(r) = s.strip_prefix("0o") {
        return !r.is_empty() && r.bytes().all(|c| (b'0'..=b'7').contains(&c));
    }
    if let Some(r) = s.strip_prefix("0x") {
        return !r.is_empty() && r.bytes().all(|c| c.is_ascii_hexdigit());
    }
    let t = tail;
    if t.starts_with('.') && (t == "." || !t.as_bytes()[1].is_ascii_digit()) {
        return false;
    }
    if t.starts_with(['e', 'E']) {
        return false;
    }
    let mut r = digits(t);
    if r.is_empty() {
        return true;
    }
    if let Some(after) = r.strip_prefix('.') {
        r = digits(after);
        if r.is_empty() {
            return true;
        }
    }
    let Some(exp) = r.strip_prefix(['e', 'E']) else {
        return false;
    };
    let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    !exp.is_empty() && digits(exp).is_empty()
}

/// A string scalar as LLVM writes it.
fn scalar(s: &str) -> String {
    match needs_quotes(s) {
        Quoting::None => s.to_string(),
        Quoting::Single => format!("'{}'", s.replace('\'', "''")),
        Quoting::Double => format!("\"{}\"", escape(s)),
    }
}

/// LLVM's `yaml::escape` (printable characters kept, UTF-8 kept as it is).
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\0' => o.push_str("\\0"),
            '\x07' => o.push_str("\\a"),
            '\x08' => o.push_str("\\b"),
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\x0b' => o.push_str("\\v"),
            '\x0c' => o.push_str("\\f"),
            '\r' => o.push_str("\\r"),
            '\x1b' => o.push_str("\\e"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\x{:02X}", c as u32));
            }
            '\u{85}' => o.push_str("\\N"),
            '\u{a0}' => o.push_str("\\_"),
            '\u{2028}' => o.push_str("\\L"),
            '\u{2029}' => o.push_str("\\P"),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_as_llvm() {
        assert_eq!(scalar("main"), "main");
        assert_eq!(scalar("f/1"), "'f/1'");
        assert_eq!(scalar(""), "''");
        assert_eq!(scalar("snprintf@PLT"), "'snprintf@PLT'");
        assert_eq!(scalar("branch profile reader"), "branch profile reader");
        assert_eq!(scalar("a; b"), "'a; b'");
        assert_eq!(scalar("123"), "'123'");
        assert_eq!(scalar("1e5"), "'1e5'");
        assert_eq!(scalar("true"), "'true'");
        assert_eq!(scalar("it's/x"), "'it''s/x'");
        assert_eq!(scalar("g.cold.1"), "g.cold.1");
        assert_eq!(scalar("\u{e9}"), "\"\u{e9}\"");
    }

    #[test]
    fn flow_sequences_wrap_past_column_70() {
        let mut v = Vec::new();
        let mut out = Out { w: &mut v, col: 0 };
        out.key("        ", "calls").unwrap();
        let c = |dest| YamlCall {
            offset: 0x18,
            dest,
            count: 334,
            ..YamlCall::default()
        };
        out.flow_seq(&[call_fields(&c(10)), call_fields(&c(11))])
            .unwrap();
        let s = String::from_utf8(v).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines[0],
            "        calls:           [ { off: 0x18, fid: 10, cnt: 334 }, { off: 0x18, "
        );
        assert_eq!(lines[1], format!("{}fid: 11, ", " ".repeat(63)));
    }
}
