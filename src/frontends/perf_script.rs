//! Front-end for `perf script` text output: sampled stacks with their process, thread and
//! time.
//!
//! A sample is a header line (starting in column 0) followed by its call chain, one frame
//! per line (indented), innermost first, and a blank line. Read layouts:
//!
//! * the default one: `comm  TID [CPU] SECS.USECS: PERIOD EVENT:` (the one number is the
//!   thread id: [`SampleHeader::id`]) and frames `IP SYM+0xOFF (DSO)`;
//! * `-F comm,pid,tid,time,ip,sym,dso`: `comm PID/TID SECS.USECS:` and frames `IP SYM (DSO)`;
//! * any subset of those fields (frames without `(DSO)`, headers without pid or time), and
//!   recordings without call chains (the one frame then follows the event on the header
//!   line);
//! * the side-band events of `--show-mmap-events` (`comm TID TIME: PERF_RECORD_MMAP2
//!   PID/TID: [0xSTART(0xLEN) @ PGOFF …]: PROT PATH`), handed out as [`Mapping`]s through
//!   [`SampleSource::take_mappings`]; other `PERF_RECORD_*` lines are skipped.
//!
//! The comm may contain spaces; the header is parsed from the time token (`DIGITS.DIGITS:`)
//! backwards. The time's printed precision (microseconds by default, nanoseconds with
//! `--ns`) is kept, so that a resolver can treat the sample as happening at the end of the
//! printed unit. The reader walks the bytes without copying: names borrow from the input.

use crate::error::{Error, ErrorKind, Result};
use crate::ir::code::{Mapping, SampleSource};

// The frame and header types are the IR's (the symbolisation pass reads them); these names
// keep the paths of this module working.
pub use crate::ir::code::{SampleFrame as ScriptFrame, SampleHeader, UNKNOWN};

/// Walks the samples of a `perf script` text.
#[derive(Debug, Clone)]
pub struct PerfScriptReader<'a> {
    data: &'a [u8],
    pos: usize,
    line: u64,
    /// Mappings read since the last [`SampleSource::take_mappings`].
    mappings: Vec<Mapping<'a>>,
    /// Mapping events read in all.
    mapping_events: u64,
}

fn err(line: u64, what: &'static str, detail: impl Into<String>) -> Error {
    Error::at_line(
        line,
        ErrorKind::Malformed {
            what,
            detail: detail.into(),
        },
    )
}

/// Parses `SECS.FRAC:` into (ns, unit ns).
fn parse_time(tok: &str) -> Option<(u64, u64)> {
    let t = tok.strip_suffix(':')?;
    let (s, f) = t.split_once('.')?;
    if s.is_empty()
        || f.is_empty()
        || f.len() > 9
        || !s.bytes().all(|b| b.is_ascii_digit())
        || !f.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let secs: u64 = s.parse().ok()?;
    let frac: u64 = f.parse().ok()?;
    let unit = 10u64.pow(9 - f.len() as u32);
    Some((
        secs.checked_mul(1_000_000_000)?
            .checked_add(frac.checked_mul(unit)?)?,
        unit,
    ))
}

/// The ids of a header: `PID/TID` → (pid, tid, None); a lone number → (None, None, id),
/// since perf prints the thread id there in its default layout and the process id with
/// `-F pid`.
fn parse_pid(tok: &str) -> Option<(Option<u32>, Option<u32>, Option<u32>)> {
    match tok.split_once('/') {
        Some((p, t)) => Some((Some(p.parse().ok()?), Some(t.parse().ok()?), None)),
        None => {
            let id: u32 = tok.parse().ok()?;
            Some((None, None, Some(id)))
        }
    }
}

/// Parses a hex number with or without `0x` (perf prints 0 as `0`).
fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// Where the side-band event name (`PERF_RECORD_…`, printed by `--show-mmap-events` and
/// `--show-task-events`) starts in a header line, if it is one: right after the time
/// token.
fn event_at(text: &str) -> Option<usize> {
    let i = memchr::memmem::find(text.as_bytes(), b": PERF_RECORD_")?;
    let before = text.get(..i + 1)?;
    let (_, time) = tokens(before).last()?;
    parse_time(time).is_some().then_some(i + 2)
}

/// Parses the event part of a `PERF_RECORD_MMAP`/`MMAP2` line (`at` from [`event_at`]):
/// `PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF …]: PROT PATH`. Other events and
/// kernel mappings (pid -1) give `Ok(None)`.
fn parse_mapping(text: &str, at: usize, line: u64) -> Result<Option<Mapping<'_>>> {
    let ev = text.get(at..).unwrap_or("");
    let (name, rest) = ev.split_once(' ').unwrap_or((ev, ""));
    if name != "PERF_RECORD_MMAP" && name != "PERF_RECORD_MMAP2" {
        return Ok(None);
    }
    let bad = || {
        err(
            line,
            "perf script mmap event",
            format!(
                "{:?}: expected `{name} PID/TID: [0xSTART(0xLEN) @ PGOFF …]: PROT PATH`",
                ev.get(..ev.len().min(120)).unwrap_or("")
            ),
        )
    };
    let rest = rest.trim_start();
    let (ids, rest) = rest.split_once(": [").ok_or_else(bad)?;
    let (p, t) = ids.split_once('/').ok_or_else(bad)?;
    if p == "-1" {
        return Ok(None);
    }
    let (Ok(pid), Ok(tid)) = (p.parse::<u32>(), t.parse::<u32>()) else {
        return Err(bad());
    };
    let (start, rest) = rest.split_once('(').ok_or_else(bad)?;
    let (len, rest) = rest.split_once(") @ ").ok_or_else(bad)?;
    let pgoff_end = rest.find([' ', ']']).ok_or_else(bad)?;
    let pgoff = rest.get(..pgoff_end).ok_or_else(bad)?;
    let (_, rest) = rest.split_once("]: ").ok_or_else(bad)?;
    // PROT (`r-xp`, or `x`/`r` in PERF_RECORD_MMAP), then the path (spaces kept).
    let (_, path) = rest.split_once(' ').ok_or_else(bad)?;
    let (Some(start), Some(len), Some(pgoff)) =
        (parse_hex(start), parse_hex(len), parse_hex(pgoff))
    else {
        return Err(bad());
    };
    Ok(Some(Mapping {
        pid,
        tid,
        start,
        len,
        pgoff,
        path,
    }))
}

/// Splits `s` into (start, token) pairs on ASCII blanks.
fn tokens(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let b = s.as_bytes();
        while pos < b.len() && matches!(b.get(pos), Some(b' ' | b'\t')) {
            pos += 1;
        }
        if pos >= b.len() {
            return None;
        }
        let start = pos;
        while pos < b.len() && !matches!(b.get(pos), Some(b' ' | b'\t')) {
            pos += 1;
        }
        Some((start, s.get(start..pos).unwrap_or("")))
    })
}

/// Byte index of the `(` that opens the parenthesised group ending `s`, if `s` ends with
/// `)` and that `(` starts `s` or follows a blank.
fn final_group(s: &str) -> Option<usize> {
    if !s.ends_with(')') {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let before = s.get(..i)?;
                    return (before.is_empty() || before.ends_with([' ', '\t'])).then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

// The two trims of `parse_frame` stay out of line: whether the optimiser inlines them into
// it depends on unrelated code elsewhere in the crate, and inlined they made parsing about
// 7% slower (`cargo bench --bench jit`, jit_1m_frames/parse).

/// `s` without leading and trailing blanks (spaces and tabs).
#[inline(never)]
fn trim_blanks(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// `s` without trailing whitespace.
#[inline(never)]
fn trim_end_whitespace(s: &str) -> &str {
    s.trim_end()
}

/// Parses a frame (`IP SYM[+0xOFF] [(DSO)]`, leading blanks allowed).
pub fn parse_frame(text: &str, line: u64) -> Result<ScriptFrame<'_>> {
    let t = text.trim_start_matches([' ', '\t']);
    let (ip_s, rest) = match t.find([' ', '\t']) {
        Some(i) => (t.get(..i).unwrap_or(""), t.get(i..).unwrap_or("")),
        None => (t, ""),
    };
    let ip = u64::from_str_radix(ip_s, 16).map_err(|_| {
        err(
            line,
            "perf script frame",
            format!("{ip_s:?} is not a hex address (expected `IP SYM (DSO)`)"),
        )
    })?;
    let rest = trim_blanks(rest);
    // The DSO is the final parenthesised group, which may itself end in `(deleted)`; it is
    // taken as one only if it looks like one (a path or a `[bracketed]` name), since symbol
    // names may end in parentheses too.
    let (sym_part, dso) = match final_group(rest) {
        Some(open)
            if rest
                .get(open + 1..)
                .is_some_and(|d| d.starts_with('/') || d.starts_with('[')) =>
        {
            (
                rest.get(..open).unwrap_or(""),
                rest.get(open + 1..rest.len() - 1),
            )
        }
        _ => (rest, None),
    };
    let sym_part = trim_end_whitespace(sym_part);
    let (sym, sym_off) = match sym_part.rfind("+0x") {
        Some(i)
            if i > 0
                && sym_part
                    .get(i + 3..)
                    .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())) =>
        {
            (
                sym_part.get(..i).unwrap_or(""),
                sym_part
                    .get(i + 3..)
                    .and_then(|h| u64::from_str_radix(h, 16).ok()),
            )
        }
        _ => (sym_part, None),
    };
    Ok(ScriptFrame {
        ip,
        sym: if sym.is_empty() { UNKNOWN } else { sym },
        sym_off,
        dso,
    })
}

/// Parses a header line; returns the header and an inline frame if the line carries one.
fn parse_header(text: &str, line: u64) -> Result<(SampleHeader<'_>, Option<ScriptFrame<'_>>)> {
    let toks: Vec<(usize, &str)> = tokens(text).take(64).collect();
    let time_at = toks.iter().position(|(_, t)| parse_time(t).is_some());
    let mut h = SampleHeader {
        line,
        time_unit_ns: 1,
        ..SampleHeader::default()
    };
    let mut pid_at = None;
    let mut after = 0usize;
    if let Some(ti) = time_at {
        let (start, tok) = toks.get(ti).copied().unwrap_or_default();
        if let Some((ns, unit)) = parse_time(tok) {
            h.time_ns = Some(ns);
            h.time_unit_ns = unit;
        }
        after = start + tok.len();
        let mut k = ti;
        // An optional `[CPU]` before the time.
        if k > 0
            && toks
                .get(k - 1)
                .is_some_and(|(_, t)| t.starts_with('[') && t.ends_with(']'))
        {
            k -= 1;
        }
        if k > 1
            && let Some((_, t)) = toks.get(k - 1)
            && parse_pid(t).is_some()
        {
            pid_at = Some(k - 1);
        }
    } else {
        pid_at = toks
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, (_, t))| parse_pid(t).is_some())
            .map(|(i, _)| i);
    }
    if let Some(pi) = pid_at
        && let Some((start, tok)) = toks.get(pi).copied()
    {
        if let Some((p, t, id)) = parse_pid(tok) {
            h.pid = p;
            h.tid = t;
            h.id = id;
        }
        h.comm = text.get(..start).unwrap_or("").trim();
        if time_at.is_none() {
            after = start + tok.len();
        }
    } else if let Some(ti) = time_at {
        let start = toks.get(ti).map_or(0, |t| t.0);
        h.comm = text.get(..start).unwrap_or("").trim();
    } else {
        return Err(err(
            line,
            "perf script sample header",
            format!(
                "{:?}: found neither a time (`SECS.USECS:`) nor a pid",
                text.get(..text.len().min(80)).unwrap_or("")
            ),
        ));
    }
    // After the time: optional `PERIOD EVENT:` or `EVENT:`, then maybe an inline frame.
    let rest = text.get(after..).unwrap_or("");
    let rt: Vec<(usize, &str)> = tokens(rest).take(4).collect();
    let mut skip_to = 0;
    match rt.as_slice() {
        [(_, p), (s, e), ..] if p.bytes().all(|b| b.is_ascii_digit()) && e.ends_with(':') => {
            skip_to = s + e.len();
        }
        [(s, e), ..] if e.ends_with(':') => skip_to = s + e.len(),
        _ => {}
    }
    let inline = rest.get(skip_to..).unwrap_or("").trim();
    let frame = if inline.is_empty() {
        None
    } else {
        Some(parse_frame(inline, line)?)
    };
    Ok((h, frame))
}

impl<'a> PerfScriptReader<'a> {
    /// A reader over the text.
    pub fn new(data: &'a [u8]) -> Self {
        PerfScriptReader {
            data,
            pos: 0,
            line: 0,
            mappings: Vec::new(),
            mapping_events: 0,
        }
    }

    /// Number of `PERF_RECORD_MMAP`/`MMAP2` events of processes read so far.
    pub fn mapping_events(&self) -> u64 {
        self.mapping_events
    }

    fn next_line(&mut self) -> Option<&'a [u8]> {
        let rest = self.data.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let (l, adv) = match memchr::memchr(b'\n', rest) {
            Some(i) => (rest.get(..i)?, i + 1),
            None => (rest, rest.len()),
        };
        self.pos += adv;
        self.line += 1;
        Some(l.strip_suffix(b"\r").unwrap_or(l))
    }

    /// True if the next line is a frame: indented by a tab (perf's call-chain lines), or by
    /// spaces without a time token (a header whose comm perf right-aligned to 16 columns,
    /// as it does for recordings without call chains, has one).
    fn peek_is_frame(&self) -> bool {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        match rest.first() {
            Some(b'\t') => true,
            Some(b' ') => {
                let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                !is_padded_header(rest.get(..end).unwrap_or_default())
            }
            _ => false,
        }
    }

    /// The next sample: its header, with its frames (innermost first) appended to `frames`
    /// (cleared first). `Ok(None)` at the end. A line that is not UTF-8, a frame without a
    /// hex address or a header without time and pid is an error naming its line.
    pub fn next_sample(
        &mut self,
        frames: &mut Vec<ScriptFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>> {
        frames.clear();
        // Skip blank lines, comments (`perf script --header`) and stray frame lines.
        // Side-band events (`--show-mmap-events`, `--show-task-events`) are lines of their
        // own: mappings are kept for the resolver, the rest skipped.
        let (text, line) = loop {
            let Some(l) = self.next_line() else {
                return Ok(None);
            };
            let header = match l.first() {
                None | Some(b' ' | b'\t') if l.iter().all(|b| b.is_ascii_whitespace()) => continue,
                Some(b'#') => continue,
                Some(b' ') if is_padded_header(l) => l,
                Some(b' ' | b'\t') => {
                    return Err(err(
                        self.line,
                        "perf script",
                        "a call-chain line before any sample header",
                    ));
                }
                _ => l,
            };
            let line = self.line;
            let text = std::str::from_utf8(header)
                .map_err(|e| err(line, "perf script sample header", format!("not UTF-8: {e}")))?;
            match event_at(text) {
                Some(at) => {
                    if let Some(m) = parse_mapping(text, at, line)? {
                        self.mappings.push(m);
                        self.mapping_events += 1;
                    }
                }
                None => break (text, line),
            }
        };
        let (h, inline) = parse_header(text, line)?;
        if let Some(f) = inline {
            frames.push(f);
        }
        while self.peek_is_frame() {
            let Some(l) = self.next_line() else { break };
            if l.iter().all(|b| b.is_ascii_whitespace()) {
                break;
            }
            let line = self.line;
            let text = std::str::from_utf8(l)
                .map_err(|e| err(line, "perf script frame", format!("not UTF-8: {e}")))?;
            frames.push(parse_frame(text, line)?);
        }
        Ok(Some(h))
    }
}

impl<'a> SampleSource<'a> for PerfScriptReader<'a> {
    #[inline]
    fn next_sample(
        &mut self,
        frames: &mut Vec<ScriptFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>> {
        PerfScriptReader::next_sample(self, frames)
    }

    fn take_mappings(&mut self, out: &mut Vec<Mapping<'a>>) {
        out.append(&mut self.mappings);
    }
}

/// True if a space-indented line is a sample header (it has a `SECS.FRAC:` token).
fn is_padded_header(l: &[u8]) -> bool {
    std::str::from_utf8(l).is_ok_and(|t| tokens(t).take(8).any(|(_, w)| parse_time(w).is_some()))
}

/// True if `data` looks like `perf script` output: a first line that parses as a sample
/// header with a time, followed by an indented frame line or a blank line.
pub fn sniff(data: &[u8]) -> bool {
    let head = data.get(..data.len().min(4096)).unwrap_or_default();
    let mut lines = head.split(|&b| b == b'\n');
    let Some(first) = lines.next().and_then(|l| std::str::from_utf8(l).ok()) else {
        return false;
    };
    if first.starts_with('\t') {
        return false;
    }
    // `perf script --show-mmap-events` starts with the kernel's mapping.
    if let Some(at) = event_at(first) {
        return parse_mapping(first, at, 1).is_ok();
    }
    matches!(parse_header(first, 1), Ok((h, _)) if h.time_ns.is_some())
        && lines
            .next()
            .is_some_and(|l| l.is_empty() || l.starts_with(b"\t") || l.starts_with(b" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(SampleHeader<'_>, Vec<ScriptFrame<'_>>)> {
        let mut r = PerfScriptReader::new(text.as_bytes());
        let mut out = Vec::new();
        let mut f = Vec::new();
        while let Some(h) = r.next_sample(&mut f).unwrap() {
            out.push((h, f.clone()));
        }
        out
    }

    #[test]
    fn field_layout() {
        let t = "node 31327/31327  5873.004406: \n\
                 \t         1616c54 Builtins_IncHandler (/usr/bin/node)\n\
                 \t    7f57827e6a55 [unknown] (/tmp/perf-31327.map)\n\
                 \t             15c JS:~Module._compile node:internal/modules/cjs/loader:1483:37 (/tmp/j/jitted-1-2.so)\n\
                 \t          c494db v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)\n\
                 \n\
                 V8 DefaultWorke 31327/31333  5873.004708: \n\
                 \t          daaf70 v8::internal::Sweeper::RawSweep (/usr/bin/node)\n";
        let s = all(t);
        assert_eq!(s.len(), 2);
        let (h, f) = &s[0];
        assert_eq!((h.comm, h.pid, h.tid), ("node", Some(31327), Some(31327)));
        assert_eq!(h.time_ns, Some(5_873_004_406_000));
        assert_eq!(h.time_upper(), 5_873_004_406_999);
        assert_eq!(f.len(), 4);
        assert!(f[1].is_unknown());
        assert_eq!(f[1].ip, 0x7f57827e6a55);
        assert_eq!(f[1].dso, Some("/tmp/perf-31327.map"));
        assert_eq!(
            f[2].sym,
            "JS:~Module._compile node:internal/modules/cjs/loader:1483:37"
        );
        assert_eq!(f[3].sym, "v8::internal::(anonymous namespace)::Invoke");
        let d = parse_frame("\t  7f00 foo(int) (/tmp/x.so (deleted))", 1).unwrap();
        assert_eq!((d.sym, d.dso), ("foo(int)", Some("/tmp/x.so (deleted)")));
        let d = parse_frame("\t  7f00 foo(int)", 1).unwrap();
        assert_eq!((d.sym, d.dso), ("foo(int)", None));
        let d = parse_frame("\t  7f00 ([unknown])", 1).unwrap();
        assert_eq!((d.sym, d.dso), (UNKNOWN, Some("[unknown]")));
        assert_eq!(s[1].0.comm, "V8 DefaultWorke");
        assert_eq!(s[1].0.tid, Some(31333));
    }

    #[test]
    fn default_layout_and_inline_frames() {
        let t = "node 32693 [001]  5917.720668:     500250 cpu-clock:pppH: \n\
                 \t           14f38 intel_check_word.constprop.0+0x158 (/usr/lib/ld.so)\n\
                 \t      1e00000000 [unknown] ([unknown])\n\
                 \n\
                 \x20           node  7/8 12.000000001:      1 cycles:u:      14f02 f+0x2 (/x)\n";
        let s = all(t);
        let (h, f) = &s[0];
        // The lone id of the default layout is a thread id (or a pid with `-F pid`).
        assert_eq!(
            (h.comm, h.pid, h.tid, h.id),
            ("node", None, None, Some(32693))
        );
        assert_eq!(f[0].sym, "intel_check_word.constprop.0");
        assert_eq!(f[0].sym_off, Some(0x158));
        assert!(f[1].is_unknown());
        assert_eq!(f[1].dso, Some("[unknown]"));
        let (h, f) = &s[1];
        assert_eq!((h.time_ns, h.time_unit_ns), (Some(12_000_000_001), 1));
        assert_eq!((f.len(), f[0].ip, f[0].sym), (1, 0x14f02, "f"));
        assert!(sniff(t.as_bytes()));
    }

    #[test]
    fn mmap_events_are_kept_and_skipped() {
        let t = "swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n\
                 node 29684 12409.628898: PERF_RECORD_MMAP2 29684/29684: [0x7f275c092000(0x1bba000) @ 0x892000 fe:00 6185062 2889444505]: r-xp /usr/lib/x86_64-linux-gnu/libnode.so.108\n\
                 node 29728/29728 12409.968902: PERF_RECORD_MMAP2 29684/29728: [0x7f26e4603000(0x3c000) @ 0x7f26e4603000 00:00 0 0]: rwxp //anon\n\
                 node 29728 12409.968903: PERF_RECORD_COMM: node:29728/29728\n\
                 node 29728 12409.970000:     2004008 cpu-clock:pppH: \n\
                 \t          d23a79 [unknown] (/usr/lib/x86_64-linux-gnu/libnode.so.108)\n\
                 \n\
                 x 1 1.000000: PERF_RECORD_MMAP2 1/1: [0x1000(0x10) @ 0 <0123abcd>]: r-xp /a b/c.so\n";
        assert!(sniff(t.as_bytes()));
        let mut r = PerfScriptReader::new(t.as_bytes());
        let mut f = Vec::new();
        let h = r.next_sample(&mut f).unwrap().unwrap();
        assert_eq!((h.id, h.line, f.len()), (Some(29728), 5, 1));
        let mut m = Vec::new();
        r.take_mappings(&mut m);
        assert_eq!(
            m.len(),
            2,
            "the kernel's mapping and the COMM event are skipped"
        );
        assert_eq!(
            (m[0].pid, m[0].tid, m[0].start, m[0].len, m[0].pgoff),
            (29684, 29684, 0x7f275c092000, 0x1bba000, 0x892000)
        );
        assert_eq!(
            m[0].absolute(0xd23a79),
            Some(0x7f275c092000 + 0xd23a79 - 0x892000)
        );
        assert_eq!(m[0].absolute(0x10), None);
        assert_eq!((m[1].tid, m[1].path), (29728, "//anon"));
        assert!(r.next_sample(&mut f).unwrap().is_none());
        r.take_mappings(&mut m);
        assert_eq!((m[2].path, m[2].pgoff), ("/a b/c.so", 0));
        assert_eq!(r.mapping_events(), 3);
        let bad = "x 1 1.000000: PERF_RECORD_MMAP2 1/1: [0x1000 @ 0]: r-xp /a\n";
        let e = PerfScriptReader::new(bad.as_bytes())
            .next_sample(&mut f)
            .unwrap_err();
        assert_eq!(e.line(), Some(1));
        assert!(e.to_string().contains("PID/TID"), "{e}");
    }

    #[test]
    fn errors_name_lines() {
        let t = "node 1/1 1.000001:\n\tzz foo (/x)\n";
        let mut r = PerfScriptReader::new(t.as_bytes());
        let e = r.next_sample(&mut Vec::new()).unwrap_err();
        assert_eq!(e.line(), Some(2));
        let t = "just words here\n";
        let e = PerfScriptReader::new(t.as_bytes())
            .next_sample(&mut Vec::new())
            .unwrap_err();
        assert_eq!(e.line(), Some(1));
    }
}
