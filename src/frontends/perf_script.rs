//! Front-end for `perf script` text output: sampled stacks with their process, thread and
//! time.
//!
//! A sample is a header line followed by its call chain, one tab-indented frame per line,
//! innermost first, and a blank line; or, when no call chain is shown (recordings without
//! `-g`, `perf script -G`), one line: the header and the sampled frame. Which header fields
//! a text has depends on `perf script -F`: the layout is found once from the first headers
//! ([`layout`]) and every header is read with it, so every layout perf prints is read:
//!
//! * the default one: `comm  TID [CPU] SECS.USECS: PERIOD EVENT:` (the one number is the
//!   thread id: [`SampleHeader::id`]) and frames `IP SYM+0xOFF (DSO)`;
//! * `-F comm,pid,tid,time,ip,sym,dso`: `comm PID/TID SECS.USECS:` and frames `IP SYM (DSO)`;
//! * any other choice and order of perf's fields: without comm (`PID/TID TIME:`), without
//!   ids, without time, with `--ns`, `misc`, `tod`, `symoff`, `srcline` (the source lines
//!   under frames are skipped), down to `-F ip` (empty header lines, frames that are only
//!   addresses);
//! * the side-band events of `--show-mmap-events` (`PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN)
//!   @ PGOFF …]: PROT PATH`), handed out as [`Mapping`]s through
//!   [`SampleSource::take_mappings`], and of `--show-task-events` (`PERF_RECORD_FORK(PID:TID):
//!   (PPID:PTID)`, `PERF_RECORD_COMM: comm:PID/TID`), handed out as the threads of processes
//!   through [`SampleSource::take_threads`]; other `PERF_RECORD_*` lines are skipped.
//!
//! The time's printed precision (microseconds by default, nanoseconds with `--ns`) is kept,
//! so that a resolver can treat the sample as happening at the end of the printed unit. In a
//! call chain perf prints an address inside a file-backed DSO relative to the file; the
//! frame on a header line carries the sampled address itself ([`ScriptFrame::absolute`]).
//! The reader walks the bytes without copying: names borrow from the input.

pub mod layout;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::code::{Mapping, SampleSource, ThreadOf};

pub use layout::{Ids, Layout};

// The frame and header types are the IR's (the symbolisation pass reads them); these names
// keep the paths of this module working.
pub use crate::ir::code::{SampleFrame as ScriptFrame, SampleHeader, UNKNOWN};

/// Walks the samples of a `perf script` text.
#[derive(Debug, Clone)]
pub struct PerfScriptReader<'a> {
    data: &'a [u8],
    pos: usize,
    line: u64,
    /// The header layout, once found (`None` inside: the text has no sample header).
    layout: Option<Option<Layout>>,
    /// Mappings read since the last [`SampleSource::take_mappings`].
    mappings: Vec<Mapping<'a>>,
    /// Mapping events read in all.
    mapping_events: u64,
    /// Threads named by task events since the last [`SampleSource::take_threads`].
    threads: Vec<ThreadOf>,
    /// Task events (fork, comm) read in all.
    task_events: u64,
    /// Scratch space for the tokens of a header.
    toks: Vec<layout::Tok<'a>>,
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

/// Parses a hex number with or without `0x` (perf prints 0 as `0`).
fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// A side-band event of a header line (`at` from [`layout::event_at`]).
enum Event<'a> {
    /// `PERF_RECORD_MMAP`/`MMAP2` of a process.
    Mapping(Mapping<'a>),
    /// A fork or comm event naming a thread of a process.
    Thread(ThreadOf),
    /// Anything else (kernel mappings, exits, …).
    Other,
}

/// Parses a side-band event: mappings (`PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF
/// …]: PROT PATH`), forks (`PERF_RECORD_FORK(PID:TID):(PPID:PTID)`) and comms
/// (`PERF_RECORD_COMM[ exec]: comm:PID/TID`). Errors: a malformed event of these kinds.
fn parse_event(text: &str, at: usize, line: u64) -> Result<Event<'_>> {
    let ev = text.get(at..).unwrap_or("");
    let name_end = ev.find([' ', ':', '(']).unwrap_or(ev.len());
    let (name, rest) = ev.split_at(name_end);
    match name {
        "PERF_RECORD_MMAP" | "PERF_RECORD_MMAP2" => Ok(match parse_mapping(name, rest, line)? {
            Some(m) => Event::Mapping(m),
            None => Event::Other,
        }),
        "PERF_RECORD_FORK" => parse_fork(rest)
            .map(Event::Thread)
            .ok_or_else(|| bad_event(line, ev, "PERF_RECORD_FORK(PID:TID):(PPID:PTID)")),
        "PERF_RECORD_COMM" => parse_comm(rest)
            .map(Event::Thread)
            .ok_or_else(|| bad_event(line, ev, "PERF_RECORD_COMM[ exec]: comm:PID/TID")),
        _ => Ok(Event::Other),
    }
}

fn bad_event(line: u64, ev: &str, expected: &str) -> Error {
    err(
        line,
        "perf script side-band event",
        format!(
            "{:?}: expected `{expected}`",
            ev.get(..ev.len().min(120)).unwrap_or("")
        ),
    )
}

/// `(PID:TID):(PPID:PTID)` of a fork: thread TID of process PID.
fn parse_fork(rest: &str) -> Option<ThreadOf> {
    let ids = rest.strip_prefix('(')?.split_once(')')?.0;
    let (p, t) = ids.split_once(':')?;
    Some(ThreadOf {
        pid: p.trim().parse().ok()?,
        tid: t.trim().parse().ok()?,
    })
}

/// `[ exec]: comm:PID/TID` of a comm event (the comm may contain `:`).
fn parse_comm(rest: &str) -> Option<ThreadOf> {
    let r = rest.strip_prefix(" exec").unwrap_or(rest);
    let body = r.strip_prefix(": ")?;
    let (_, ids) = body.trim_end().rsplit_once(':')?;
    let (p, t) = ids.split_once('/')?;
    Some(ThreadOf {
        pid: p.parse().ok()?,
        tid: t.parse().ok()?,
    })
}

/// Parses the body of a `PERF_RECORD_MMAP`/`MMAP2` event (after its name): ` PID/TID:
/// [0xSTART(0xLEN) @ PGOFF …]: PROT PATH`. Kernel mappings (pid -1) give `Ok(None)`.
fn parse_mapping<'a>(name: &str, rest: &'a str, line: u64) -> Result<Option<Mapping<'a>>> {
    let bad = || {
        bad_event(
            line,
            &format!("{name}{rest}"),
            &format!("{name} PID/TID: [0xSTART(0xLEN) @ PGOFF …]: PROT PATH"),
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

/// Parses a frame (`IP [SYM[+0xOFF]] [(DSO)]`, leading blanks allowed); perf marks a frame
/// of an inlined function with ` (inlined)` instead of the DSO.
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
    let rest = rest.strip_suffix(" (inlined)").unwrap_or(rest);
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
        absolute: false,
    })
}

/// What a line of the text is, read before the layout is applied.
enum Line<'a> {
    /// Blank.
    Blank,
    /// A comment (`perf script --header`).
    Comment,
    /// A call-chain frame (tab-indented).
    Frame(&'a [u8]),
    /// Anything else: a header, an event, or a source line under a frame.
    Text(&'a [u8]),
}

fn classify(l: &[u8]) -> Line<'_> {
    match l.first() {
        Some(b'#') => Line::Comment,
        _ if l.iter().all(|b| b.is_ascii_whitespace()) => Line::Blank,
        Some(b'\t') => Line::Frame(l),
        _ => Line::Text(l),
    }
}

/// True if a line under a frame or a sample line is a source line (`-F +srcline`: perf
/// indents them by two spaces), not a header.
fn is_source_line(l: &[u8]) -> bool {
    l.starts_with(b"  ") && !l.starts_with(b"   ")
}

impl<'a> PerfScriptReader<'a> {
    /// A reader over the text.
    pub fn new(data: &'a [u8]) -> Self {
        PerfScriptReader {
            data,
            pos: 0,
            line: 0,
            layout: None,
            mappings: Vec::new(),
            mapping_events: 0,
            threads: Vec::new(),
            task_events: 0,
            toks: Vec::new(),
        }
    }

    /// Number of `PERF_RECORD_MMAP`/`MMAP2` events of processes read so far.
    pub fn mapping_events(&self) -> u64 {
        self.mapping_events
    }

    /// Number of task events (`PERF_RECORD_FORK`, `PERF_RECORD_COMM`) read so far.
    pub fn task_events(&self) -> u64 {
        self.task_events
    }

    /// The layout of the sample headers, once the first sample was asked for (`None`
    /// before, and for a text without sample headers).
    pub fn layout(&self) -> Option<Layout> {
        self.layout.flatten()
    }

    fn peek_line(&self) -> Option<(&'a [u8], usize)> {
        let rest = self.data.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let (l, adv) = match memchr::memchr(b'\n', rest) {
            Some(i) => (rest.get(..i)?, i + 1),
            None => (rest, rest.len()),
        };
        Some((l.strip_suffix(b"\r").unwrap_or(l), adv))
    }

    fn next_line(&mut self) -> Option<&'a [u8]> {
        let (l, adv) = self.peek_line()?;
        self.pos += adv;
        self.line += 1;
        Some(l)
    }

    /// Reads a side-band event line; `false` if the line is no event.
    fn side_band(&mut self, text: &'a str, line: u64) -> Result<bool> {
        let Some(at) = layout::event_at(text) else {
            return Ok(false);
        };
        match parse_event(text, at, line)? {
            Event::Mapping(m) => {
                self.mappings.push(m);
                self.mapping_events += 1;
            }
            Event::Thread(t) => {
                self.threads.push(t);
                self.task_events += 1;
            }
            Event::Other => {}
        }
        Ok(true)
    }

    /// Finds the layout from the text ahead (once).
    fn layout_ahead(&mut self) -> Result<Option<Layout>> {
        if let Some(l) = self.layout {
            return Ok(l);
        }
        let l = layout::infer(self.data.get(self.pos..).unwrap_or_default(), self.line)?;
        self.layout = Some(l);
        Ok(l)
    }

    /// The next sample's header line and its number (`Some(None)`: an empty header, the
    /// call chain follows), `None` at the end. Blank lines and comments are skipped,
    /// side-band events read.
    fn next_header(&mut self, lay: &Layout) -> Result<Option<Option<(&'a str, u64)>>> {
        loop {
            let Some((l, _)) = self.peek_line() else {
                return Ok(None);
            };
            match classify(l) {
                Line::Blank | Line::Comment => {
                    self.next_line();
                }
                Line::Frame(_) if lay.callchains && lay.is_empty() => return Ok(Some(None)),
                Line::Frame(_) => {
                    return Err(err(
                        self.line + 1,
                        "perf script",
                        "a call-chain line before any sample header",
                    ));
                }
                Line::Text(t) => {
                    self.next_line();
                    let line = self.line;
                    let text = std::str::from_utf8(t).map_err(|e| {
                        err(line, "perf script sample header", format!("not UTF-8: {e}"))
                    })?;
                    if !self.side_band(text, line)? {
                        return Ok(Some(Some((text, line))));
                    }
                }
            }
        }
    }

    /// Appends the call chain that follows a header to `frames`: tab-indented lines up to a
    /// blank line, skipping the source lines perf prints under frames.
    fn call_chain(&mut self, frames: &mut Vec<ScriptFrame<'a>>) -> Result<()> {
        while let Some((l, _)) = self.peek_line() {
            match classify(l) {
                Line::Frame(f) => {
                    self.next_line();
                    let line = self.line;
                    let text = std::str::from_utf8(f)
                        .map_err(|e| err(line, "perf script frame", format!("not UTF-8: {e}")))?;
                    frames.push(parse_frame(text, line)?);
                }
                Line::Text(t) if t.first() == Some(&b' ') && !frames.is_empty() => {
                    self.next_line();
                }
                Line::Blank => {
                    self.next_line();
                    break;
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Skips the source lines under a one-line sample.
    fn skip_source_lines(&mut self, lay: &Layout) {
        while let Some((l, _)) = self.peek_line() {
            let text = std::str::from_utf8(l).unwrap_or("");
            if !is_source_line(l) || lay.read_with(text, &mut self.toks).is_some() {
                break;
            }
            self.next_line();
        }
    }

    /// The next sample: its header, with its frames (innermost first) appended to `frames`
    /// (cleared first). `Ok(None)` at the end. A line that is not UTF-8, a frame without a
    /// hex address or a header that does not fit the text's layout is an error naming its
    /// line.
    pub fn next_sample(
        &mut self,
        frames: &mut Vec<ScriptFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>> {
        frames.clear();
        let Some(lay) = self.layout_ahead()? else {
            // No sample header: the events are still read.
            while let Some(l) = self.next_line() {
                let line = self.line;
                if let (Line::Text(_), Ok(text)) = (classify(l), std::str::from_utf8(l)) {
                    self.side_band(text, line)?;
                }
            }
            return Ok(None);
        };
        let Some(header) = self.next_header(&lay)? else {
            return Ok(None);
        };
        let mut h = SampleHeader {
            line: self.line + 1,
            time_unit_ns: 1,
            ..SampleHeader::default()
        };
        if let Some((text, line)) = header {
            let r = lay
                .read_with(text, &mut self.toks)
                .ok_or_else(|| misfit(line, text, &lay))?;
            h.line = line;
            h.comm = r.comm;
            (h.pid, h.tid, h.id) = (r.pid, r.tid, r.id);
            if let Some((ns, unit)) = r.time {
                (h.time_ns, h.time_unit_ns) = (Some(ns), unit);
            }
            if let Some(f) = r.frame {
                let mut f = parse_frame(f, line)?;
                f.absolute = true;
                frames.push(f);
            }
        }
        if lay.callchains {
            self.call_chain(frames)?;
        } else {
            self.skip_source_lines(&lay);
        }
        Ok(Some(h))
    }
}

/// The error for a header that does not fit the text's layout.
fn misfit(line: u64, text: &str, lay: &Layout) -> Error {
    err(
        line,
        "perf script sample header",
        format!(
            "{:?} does not fit the layout of the text's first samples ({}); a text must come \
             from one `perf script` run",
            text.get(..text.len().min(100)).unwrap_or(text),
            lay.describe()
        ),
    )
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

    fn take_threads(&mut self, out: &mut Vec<ThreadOf>) {
        out.append(&mut self.threads);
    }
}

/// True if `data` looks like `perf script` output: it starts with a side-band event, or its
/// first lines are sample headers of one layout with frames, and the layout has call chains
/// or a time.
pub fn sniff(data: &[u8]) -> bool {
    let mut head = data.get(..data.len().min(64 << 10)).unwrap_or_default();
    if head.len() < data.len()
        && let Some(i) = memchr::memrchr(b'\n', head)
    {
        head = head.get(..i + 1).unwrap_or_default();
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    // `perf script --show-mmap-events` starts with the kernel's mapping.
    if let Ok(t) = std::str::from_utf8(first)
        && let Some(at) = layout::event_at(t)
    {
        return parse_event(t, at, 1).is_ok();
    }
    let Ok(Some(lay)) = layout::infer(head, 0) else {
        return false;
    };
    if !(lay.callchains || lay.time) {
        return false;
    }
    let mut r = PerfScriptReader::new(head);
    let mut f = Vec::new();
    matches!(r.next_sample(&mut f), Ok(Some(_)) if !f.is_empty())
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
                 \n";
        let s = all(t);
        let (h, f) = &s[0];
        // The lone id of the default layout is a thread id (or a pid with `-F pid`).
        assert_eq!(
            (h.comm, h.pid, h.tid, h.id),
            ("node", None, None, Some(32693))
        );
        assert_eq!(f[0].sym, "intel_check_word.constprop.0");
        assert_eq!(f[0].sym_off, Some(0x158));
        assert!(!f[0].absolute);
        assert!(f[1].is_unknown());
        assert_eq!(f[1].dso, Some("[unknown]"));
        assert!(sniff(t.as_bytes()));
        // Without call chains the frame is on the header line, with the absolute address.
        let t = "            node     7/8     12.000000001:          1 cycles:u:            14f02 f+0x2 (/x)\n\
                 \x20           node     7/9     12.000000002:          1 cycles:u:            14f03 g (/x)\n";
        let s = all(t);
        let (h, f) = &s[0];
        assert_eq!((h.pid, h.tid), (Some(7), Some(8)));
        assert_eq!((h.time_ns, h.time_unit_ns), (Some(12_000_000_001), 1));
        assert_eq!((f.len(), f[0].ip, f[0].sym), (1, 0x14f02, "f"));
        assert!(f[0].absolute);
        assert_eq!((s[1].0.tid, s[1].1[0].sym), (Some(9), "g"));
        assert!(sniff(t.as_bytes()));
    }

    #[test]
    fn headerless_layouts_source_lines_and_task_events() {
        // `-F ip,sym,dso`: empty header lines; `srcline`: source lines under frames.
        let t = "\n\t 17a153b EVP_DecodeUpdate (/usr/bin/node)\n  pem_lib.c:0\n\
                 \t 17fe527 PEM_read_bio_ex (/usr/bin/node)\n\n\n\
                 \t 17a153c [unknown] (/tmp/perf-1.map)\n\n";
        let s = all(t);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].0.comm, s[0].0.id, s[0].0.time_ns), ("", None, None));
        assert_eq!(s[0].1.len(), 2);
        assert_eq!(s[0].0.line, 2);
        assert!(s[1].1[0].is_unknown());
        assert!(sniff(t.as_bytes()));
        assert!(sniff(b" 9578/9578    893.368861: \n\t 17 f (/x)\n"));
        assert!(sniff(
            b"    0/0         0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
        ));
        assert!(!sniff(b"foo\n# Func Hash:\n1234\n"));
        // `-F +insn`, `+insnlen`: lines under the call chain.
        let t = "node  7328   864.006019: \n\t 1 f (/x)\n ilen: 3\n\n\
                 node  7329   864.006020: \n\t 2 g (/x)\n insn: 4c 39 ea\n\n";
        let s = all(t);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[1].0.id, s[1].1.len(), s[1].1[0].sym),
            (Some(7329), 1, "g")
        );
        // Task events name the threads of processes.
        let t = "node  9578 [000]   893.593271: PERF_RECORD_FORK(9578:9619):(9578:9578)\n\
                 node  9578 [000]   893.344705: PERF_RECORD_COMM exec: node:9578/9578\n\
                 a:b  9620 [000]   893.344705: PERF_RECORD_COMM: a:b:9578/9620\n\
                 node  9578 [000]   893.600000: PERF_RECORD_EXIT(9578:9619):(9578:9578)\n\
                 node  9619 [000]   893.368861:   10101010 cpu-clock:pppH: \n\
                 \t 17a153b f (/x)\n\n";
        let mut r = PerfScriptReader::new(t.as_bytes());
        let mut f = Vec::new();
        let h = r.next_sample(&mut f).unwrap().unwrap();
        assert_eq!((h.id, h.line), (Some(9619), 5));
        let mut th = Vec::new();
        r.take_threads(&mut th);
        let pairs: Vec<(u32, u32)> = th.iter().map(|t| (t.pid, t.tid)).collect();
        assert_eq!(pairs, vec![(9578, 9619), (9578, 9578), (9578, 9620)]);
        assert_eq!(r.task_events(), 3);
        let bad = "x 1 1.000000: PERF_RECORD_FORK(1,2)\n";
        let e = PerfScriptReader::new(bad.as_bytes())
            .next_sample(&mut f)
            .unwrap_err();
        assert_eq!(e.line(), Some(1));
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
        let t = "node 1/1 1.000001:\n\t1 foo (/x)\n\nnode 7 1.000002:\n\t1 foo (/x)\n";
        let mut r = PerfScriptReader::new(t.as_bytes());
        let e = r.next_sample(&mut Vec::new()).unwrap_err();
        assert_eq!(e.line(), Some(4));
        let t = "   just: words here\n";
        let e = PerfScriptReader::new(t.as_bytes())
            .next_sample(&mut Vec::new())
            .unwrap_err();
        assert_eq!(e.line(), Some(1));
    }
}
