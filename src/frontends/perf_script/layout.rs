//! The field layout of `perf script` sample headers, found once per text and then used to
//! read every header.
//!
//! `perf script -F` chooses which fields a sample header prints; perf prints the chosen ones
//! in a fixed order and shape (tools/perf/builtin-script.c, `perf_sample__fprintf_start` and
//! `process_event`):
//!
//! ```text
//! [comm] [PID/TID | PID | TID] [[CPU]] [misc] [tod] [SECS.FRAC:] [PERIOD] [EVENT:] [frame]
//! ```
//!
//! * comm: `%s ` when call chains follow (it may contain spaces), else right-aligned in 16
//!   columns (`%16s `); absent with `-F` lists without `comm`;
//! * ids: `%5d/%-5d ` (pid and tid), or one `%5d ` (the tid in the default layout and with
//!   `-F tid`, the pid with `-F pid`; newer perf versions pad to 7);
//! * `[%03d] ` CPU; misc letters (`K`, `U` …) padded to 6 columns; the time of day
//!   (`YYYY-MM-DD HH:MM:SS.FRAC` or `disabled`);
//! * the time, `%12s: ` in µs (`SECS.USECS`) or `%5lu.%09llu: ` with `--ns`;
//! * the period `%10lu `, the event name right-aligned to the longest name, then `: `;
//! * then either a line break and the call chain (one tab-indented frame per line), or, when
//!   no call chain is shown, the sampled frame (`%16lx` address, symbol, `(dso)`) on the
//!   header line.
//!
//! A header alone cannot always say which fields it has (a comm can end in a number, a
//! lone number can be an id or a period), so [`infer`] reads the first headers of a text
//! and picks the layout that reads all of them and explains the most fields; perf's column
//! padding of the ambiguous numbers (a lone id in 5 columns, the period in 10: at least as
//! many blanks before them as their field is wider than them) rules out readings perf could
//! not have printed (`Thread 1  9578 ` is comm `Thread 1` and id 9578, not comm `Thread`,
//! id 1 and period 9578). Every header is then read with that layout ([`Layout::read`]).

use crate::error::{Error, ErrorKind, Result};

/// The id fields of a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum Ids {
    /// No id (`-F` without `pid` and `tid`).
    #[default]
    None,
    /// One number: the thread id (default layout, `-F tid`) or the process id (`-F pid`).
    One,
    /// `PID/TID` (`-F pid,tid`).
    Pair,
}

/// The header fields of a text's samples, in the order perf prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    /// The command name.
    pub comm: bool,
    /// The ids.
    pub ids: Ids,
    /// `[CPU]`.
    pub cpu: bool,
    /// The misc letters (`-F misc`).
    pub misc: bool,
    /// The time of day (`-F tod`).
    pub tod: bool,
    /// `SECS.FRAC:`.
    pub time: bool,
    /// The period.
    pub period: bool,
    /// `EVENT:`.
    pub event: bool,
    /// Call chains follow the header, one tab-indented frame per line; otherwise the
    /// sampled frame is on the header line (recordings without call chains, `perf script
    /// -G`).
    pub callchains: bool,
}

impl Layout {
    /// Number of header fields.
    fn fields(&self) -> u32 {
        u32::from(self.comm)
            + u32::from(self.ids != Ids::None)
            + u32::from(self.cpu)
            + u32::from(self.misc)
            + u32::from(self.tod)
            + u32::from(self.time)
            + u32::from(self.period)
            + u32::from(self.event)
    }

    /// True if the header prints nothing (`-F ip,sym,dso`).
    pub fn is_empty(&self) -> bool {
        self.fields() == 0
    }

    /// The layout as perf prints it, for messages (`comm PID/TID [CPU] TIME: PERIOD EVENT:`).
    pub fn describe(&self) -> String {
        let mut v: Vec<&str> = Vec::new();
        if self.comm {
            v.push("comm");
        }
        match self.ids {
            Ids::None => {}
            Ids::One => v.push("ID"),
            Ids::Pair => v.push("PID/TID"),
        }
        for (on, s) in [
            (self.cpu, "[CPU]"),
            (self.misc, "MISC"),
            (self.tod, "DATE TIME"),
            (self.time, "SECS.FRAC:"),
            (self.period, "PERIOD"),
            (self.event, "EVENT:"),
        ] {
            if on {
                v.push(s);
            }
        }
        if v.is_empty() {
            v.push("(no header fields)");
        }
        let mut s = v.join(" ");
        s.push_str(if self.callchains {
            ", call chains on the lines after"
        } else {
            ", the sampled frame on the same line"
        });
        s
    }

    /// Every layout perf can print, with call chains or without.
    fn all(callchains: bool) -> impl Iterator<Item = Layout> {
        (0u32..384).map(move |k| {
            let bit = |b: u32| k & (1 << b) != 0;
            Layout {
                comm: bit(0),
                ids: match (k >> 7) % 3 {
                    0 => Ids::None,
                    1 => Ids::One,
                    _ => Ids::Pair,
                },
                cpu: bit(1),
                misc: bit(2),
                tod: bit(3),
                time: bit(4),
                period: bit(5),
                event: bit(6),
                callchains,
            }
        })
    }

    /// Preference among layouts that read the same headers: more fields, then ids over a
    /// comm (a lone number is an id, not a command name).
    fn rank(&self) -> (u32, Ids, bool) {
        (self.fields(), self.ids, !self.comm)
    }

    /// Reads a header line under this layout; `None` if it does not fit.
    pub fn read<'a>(&self, text: &'a str) -> Option<Header<'a>> {
        self.read_with(text, &mut Vec::new())
    }

    /// [`Layout::read`] with `toks` as scratch space (no allocation once it has grown).
    pub fn read_with<'a>(&self, text: &'a str, toks: &mut Vec<Tok<'a>>) -> Option<Header<'a>> {
        toks.clear();
        toks.extend(tokens(text).take(MAX_TOKENS));
        self.read_tokens(text, toks)
    }

    fn read_tokens<'a>(&self, text: &'a str, toks: &[Tok<'a>]) -> Option<Header<'a>> {
        if !self.comm {
            return self.read_fields(text, toks, 0, None);
        }
        // Without call chains perf right-aligns the comm in 16 columns (`%16s `).
        if !self.callchains
            && text.len() > COMM_WIDTH
            && text.as_bytes().get(COMM_WIDTH) == Some(&b' ')
            && let Some(comm) = text.get(..COMM_WIDTH).map(str::trim_start)
            && !comm.is_empty()
        {
            let k = toks.iter().take_while(|t| t.end <= COMM_WIDTH).count();
            if k > 0
                && toks.get(k - 1).is_some_and(|t| t.end == COMM_WIDTH)
                && let Some(h) = self.read_fields(text, toks, k, Some(comm))
            {
                return Some(h);
            }
        }
        // `%s `: the comm starts the line and may contain blanks.
        if toks.first()?.start != 0 {
            return None;
        }
        (1..=toks.len()).find_map(|k| {
            let comm = text.get(..toks.get(k - 1)?.end)?;
            self.read_fields(text, toks, k, Some(comm))
        })
    }

    /// Reads the fields after the comm (`toks[i..]`).
    fn read_fields<'a>(
        &self,
        text: &'a str,
        toks: &[Tok<'a>],
        i: usize,
        comm: Option<&'a str>,
    ) -> Option<Header<'a>> {
        let mut h = Header {
            comm: comm.unwrap_or(""),
            ..Header::default()
        };
        let mut c = Cursor {
            toks,
            i,
            prev_end: if i == 0 { 0 } else { toks.get(i - 1)?.end },
            carry: 0,
        };
        self.read_ids(&mut c, &mut h)?;
        self.read_cpu_misc_tod(&mut c)?;
        self.read_time_period_event(&mut c, &mut h)?;
        if let Some(t) = c.toks.get(c.i) {
            // The sampled frame: `%16lx` after a blank.
            let ip = t.text;
            if ip.len() > 16 || !ip.bytes().all(|b| b.is_ascii_hexdigit()) || t.start == c.prev_end
            {
                return None;
            }
            h.frame = Some(text.get(t.start..)?);
        }
        Some(h)
    }

    fn read_ids(&self, c: &mut Cursor<'_, '_>, h: &mut Header<'_>) -> Option<()> {
        match self.ids {
            Ids::None => {}
            Ids::One => {
                let t = c.peek()?;
                h.id = parse_id(t)?;
                c.take(pad(5, t.len()))?;
            }
            Ids::Pair => {
                let t = c.peek()?;
                let (p, tid) = t.split_once('/')?;
                (h.pid, h.tid) = (parse_id(p)?, parse_id(tid)?);
                c.take(0)?;
                c.carry = pad(5, tid.len());
            }
        }
        Some(())
    }

    fn read_cpu_misc_tod(&self, c: &mut Cursor<'_, '_>) -> Option<()> {
        if self.cpu {
            let n = c.peek()?.strip_prefix('[')?.strip_suffix(']')?;
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            c.take(0)?;
        }
        if self.misc {
            let t = c.peek()?;
            if t.len() > 6 || !t.bytes().all(|b| b"KUHGgMESp".contains(&b)) {
                return None;
            }
            c.take(0)?;
        }
        if self.tod {
            let t = c.take(0)?;
            if t != "disabled" && !(is_date(t) && c.peek().is_some_and(is_clock)) {
                return None;
            }
            if t != "disabled" {
                c.take(0)?;
            }
        }
        Some(())
    }

    fn read_time_period_event(&self, c: &mut Cursor<'_, '_>, h: &mut Header<'_>) -> Option<()> {
        if self.time {
            h.time = Some(parse_time(c.peek()?)?);
            c.take(0)?;
        }
        if self.period {
            let t = c.peek()?;
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            c.take(pad(10, t.len()))?;
        }
        if self.event {
            let t = c.peek()?;
            if t.len() < 2 || !t.ends_with(':') || parse_time(t).is_some() {
                return None;
            }
            c.take(0)?;
        }
        Some(())
    }
}

/// Walks the tokens of a header line field by field, checking the blanks perf prints before
/// each: a separator after an earlier field, the padding of the previous field (`%-5d` tid),
/// and the field's own right-alignment (`%5d`, `%10lu`; newer perf versions pad ids to 7,
/// which only adds blanks).
struct Cursor<'t, 'a> {
    toks: &'t [Tok<'a>],
    /// The next token.
    i: usize,
    /// Where the previous token ended.
    prev_end: usize,
    /// Blanks the previous field pads after itself.
    carry: usize,
}

impl<'a> Cursor<'_, 'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.i).map(|t| t.text)
    }

    /// Takes the next token if enough blanks precede it for a field right-aligned by `pad`
    /// columns. Only the numbers a comm or another number could be mistaken for (a lone
    /// id, the period) are asked for perf's padding: texts written by hand may lack it.
    fn take(&mut self, pad: usize) -> Option<&'a str> {
        let t = *self.toks.get(self.i)?;
        let sep = usize::from(self.i > 0);
        let need = if pad > 0 { sep + self.carry + pad } else { sep };
        if t.start - self.prev_end < need {
            return None;
        }
        self.i += 1;
        self.prev_end = t.end;
        self.carry = 0;
        Some(t.text)
    }
}

/// A header read under a layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Header<'a> {
    /// The comm (empty when the layout has none).
    pub comm: &'a str,
    /// Process id of a `PID/TID`.
    pub pid: Option<u32>,
    /// Thread id of a `PID/TID`.
    pub tid: Option<u32>,
    /// A lone id.
    pub id: Option<u32>,
    /// (ns, unit ns) of the time.
    pub time: Option<(u64, u64)>,
    /// The frame on the header line (no call chain shown), from its address on.
    pub frame: Option<&'a str>,
}

/// Width perf right-aligns the comm in when no call chain follows.
const COMM_WIDTH: usize = 16;
/// Tokens of a header line looked at (a header has at most a dozen, plus its frame).
const MAX_TOKENS: usize = 64;
/// Sample headers [`infer`] reads.
const INFER_HEADERS: usize = 256;
/// Bytes [`infer`] reads once it has found a header.
const INFER_BYTES: usize = 4 << 20;

/// Blanks a right-aligned field of `width` columns puts before a value of `len` characters.
fn pad(width: usize, len: usize) -> usize {
    width.saturating_sub(len)
}

/// An id: a decimal number; perf prints -1 for samples without a thread (read as none).
fn parse_id(t: &str) -> Option<Option<u32>> {
    if t == "-1" {
        return Some(None);
    }
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<u32>().ok().map(Some)
}

fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn is_clock(t: &str) -> bool {
    let (hms, frac) = t.split_once('.').unwrap_or((t, "0"));
    let b = hms.as_bytes();
    b.len() == 8
        && b.iter().enumerate().all(|(i, c)| {
            if i == 2 || i == 5 {
                *c == b':'
            } else {
                c.is_ascii_digit()
            }
        })
        && !frac.is_empty()
        && frac.bytes().all(|c| c.is_ascii_digit())
}

/// Parses `SECS.FRAC:` into (ns, unit ns).
pub fn parse_time(tok: &str) -> Option<(u64, u64)> {
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

/// A token of a line and where it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tok<'a> {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset after its last character.
    pub end: usize,
    /// The token.
    pub text: &'a str,
}

/// The tokens of `s`, split on blanks (spaces and tabs).
pub fn tokens(s: &str) -> impl Iterator<Item = Tok<'_>> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let b = s.as_bytes();
        while matches!(b.get(pos), Some(b' ' | b'\t')) {
            pos += 1;
        }
        if pos >= b.len() {
            return None;
        }
        let start = pos;
        while pos < b.len() && !matches!(b.get(pos), Some(b' ' | b'\t')) {
            pos += 1;
        }
        Some(Tok {
            start,
            end: pos,
            text: s.get(start..pos).unwrap_or(""),
        })
    })
}

/// True if the line is a side-band event (`--show-mmap-events`, `--show-task-events`):
/// the event name `PERF_RECORD_…` follows the header fields. Returns where it starts.
pub fn event_at(text: &str) -> Option<usize> {
    let i = memchr::memmem::find(text.as_bytes(), b"PERF_RECORD_")?;
    let before = text.get(..i)?;
    (before.is_empty() || before.ends_with(' ')).then_some(i)
}

/// What [`infer`] saw of a text's first lines.
#[derive(Debug, Default)]
struct Scan<'a> {
    /// Sample header lines (1-based line, text).
    headers: Vec<(u64, &'a str)>,
    /// A tab-indented line was seen.
    tab_lines: bool,
    /// A call chain with no header line before it (`-F ip,sym,dso`).
    headerless_chain: bool,
}

/// Collects the sample header lines of the first part of `data` (starting at line
/// `first_line`): lines that are not blank, comments, side-band events, call-chain frames
/// or the source lines perf prints under a frame (`-F +srcline`, indented by two spaces).
fn scan(data: &[u8], first_line: u64) -> Scan<'_> {
    #[derive(PartialEq)]
    enum Prev {
        Blank,
        Frame,
        Sample,
    }
    let mut s = Scan::default();
    let mut prev = Prev::Blank;
    let mut pos = 0usize;
    let mut line = first_line;
    while pos < data.len() && s.headers.len() < INFER_HEADERS {
        if pos > INFER_BYTES && !s.headers.is_empty() {
            break;
        }
        let rest = data.get(pos..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        pos += end + 1;
        line += 1;
        let l = rest.get(..end).unwrap_or_default();
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        if l.iter().all(|b| b.is_ascii_whitespace()) {
            prev = Prev::Blank;
            continue;
        }
        if l.first() == Some(&b'#') {
            continue;
        }
        if l.first() == Some(&b'\t') {
            s.tab_lines = true;
            s.headerless_chain |= prev == Prev::Blank;
            prev = Prev::Frame;
            continue;
        }
        let Ok(t) = std::str::from_utf8(l) else {
            continue;
        };
        if event_at(t).is_some() {
            continue;
        }
        // Lines under a frame (source lines, `insn`, `ilen`: indented by blanks) or source
        // lines under a sample line when no call chain is shown.
        if (prev == Prev::Frame && t.starts_with(' '))
            || (prev == Prev::Sample && t.starts_with("  ") && !t.starts_with("   "))
        {
            continue;
        }
        s.headers.push((line, t));
        prev = Prev::Sample;
    }
    s
}

/// Finds the layout of the sample headers at the start of `data` (whose first line is line
/// `first_line + 1` of the input): the one that reads every header of the first part of the
/// text and explains the most fields. `Ok(None)`: no sample header there. Errors: a
/// header no layout reads, naming its line.
pub fn infer(data: &[u8], first_line: u64) -> Result<Option<Layout>> {
    let s = scan(data, first_line);
    let callchains = s.tab_lines;
    let Some(&(first, text)) = s.headers.first() else {
        return Ok((s.headerless_chain).then_some(Layout {
            callchains: true,
            ..Layout::default()
        }));
    };
    let toks: Vec<Tok<'_>> = tokens(text).take(MAX_TOKENS).collect();
    let mut cands: Vec<Layout> = Layout::all(callchains)
        .filter(|l| l.read_tokens(text, &toks).is_some())
        .collect();
    if cands.is_empty() {
        return Err(unreadable(first, text));
    }
    // Later headers may rule out readings of the first one that explain as many fields
    // (a lone number as an id or as a comm), but a header that only a poorer layout reads
    // comes from another layout: an error, not a reason to read every header worse.
    let fields = best(&cands).fields();
    let mut toks = Vec::with_capacity(MAX_TOKENS);
    for &(n, t) in s.headers.get(1..).unwrap_or_default() {
        toks.clear();
        toks.extend(tokens(t).take(MAX_TOKENS));
        let left: Vec<Layout> = cands
            .iter()
            .copied()
            .filter(|l| l.read_tokens(t, &toks).is_some())
            .collect();
        if left.iter().all(|l| l.fields() < fields) {
            return Err(Error::at_line(
                n,
                ErrorKind::Malformed {
                    what: "perf script sample header",
                    detail: format!(
                        "{:?} does not fit the layout of line {first} ({}); a text must come \
                         from one `perf script` run",
                        clip(t),
                        best(&cands).describe()
                    ),
                },
            ));
        }
        cands = left;
    }
    let lay = best(&cands);
    // Without call chains the frame is on the header line; a text none of whose headers
    // has one carries no addresses to resolve (a `-F` list without `ip`).
    if !callchains
        && !s
            .headers
            .iter()
            .any(|(_, t)| lay.read(t).is_some_and(|h| h.frame.is_some()))
    {
        return Err(Error::at_line(
            first,
            ErrorKind::Malformed {
                what: "perf script sample header",
                detail: format!(
                    "{:?}: no sample has an address (read as {}); write the samples with \
                     `perf script` and a -F list that includes ip,sym,dso",
                    clip(text),
                    lay.describe()
                ),
            },
        ));
    }
    Ok(Some(lay))
}

fn best(cands: &[Layout]) -> Layout {
    cands
        .iter()
        .copied()
        .max_by_key(Layout::rank)
        .unwrap_or_default()
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(100) {
        Some((i, _)) => s.get(..i).unwrap_or(s),
        None => s,
    }
}

/// The error for a header line no layout reads.
pub fn unreadable(line: u64, text: &str) -> Error {
    Error::at_line(
        line,
        ErrorKind::Malformed {
            what: "perf script sample header",
            detail: format!(
                "{:?}: expected perf script's header fields in its order (comm, PID/TID or \
                 an id, [CPU], SECS.FRAC:, PERIOD, EVENT:), then a call chain on the lines \
                 after it or the sampled frame (`ADDRESS SYMBOL (DSO)`) on the same line",
                clip(text)
            ),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer_str(t: &str) -> Layout {
        infer(t.as_bytes(), 0).unwrap().unwrap()
    }

    #[test]
    fn layouts_of_perf_6_1() {
        let l =
            infer_str("node  9578 [000]   893.368861:   10101010 cpu-clock:pppH: \n\t 17 f (/x)\n");
        assert_eq!(
            l,
            Layout {
                comm: true,
                ids: Ids::One,
                cpu: true,
                time: true,
                period: true,
                event: true,
                callchains: true,
                ..Layout::default()
            }
        );
        let l = infer_str(" 9578/9578    893.368861: \n\t 17 f (/x)\n");
        assert_eq!((l.comm, l.ids, l.time), (false, Ids::Pair, true));
        let h = l.read(" 9578/9578    893.368861: ").unwrap();
        assert_eq!((h.comm, h.pid, h.tid), ("", Some(9578), Some(9578)));
        let l = infer_str("\n\t 17 f (/x)\n\n\n\t 18 g (/x)\n");
        assert!(l.is_empty() && l.callchains);
        let l = infer_str(" 9578 \n\t 17 f (/x)\n");
        assert_eq!((l.comm, l.ids), (false, Ids::One));
        let l = infer_str("node   893.368861: \n\t 17 f (/x)\n");
        assert_eq!((l.comm, l.ids, l.time), (true, Ids::None, true));
        // A comm ending in a number next to a period: perf's padding tells them apart.
        let t = "node  9578   10101010 \n\t 1 f\n\nV8 Worker 1  9579   10101010 \n\t 1 f\n";
        let l = infer_str(t);
        assert_eq!((l.comm, l.ids, l.period), (true, Ids::One, true));
        let h = l.read("V8 Worker 1  9579   10101010 ").unwrap();
        assert_eq!((h.comm, h.id), ("V8 Worker 1", Some(9579)));
        let t = "Thread 1  9578 \n\t 1 f\n\nThread 2  9579 \n\t 1 f\n";
        let l = infer_str(t);
        assert_eq!((l.comm, l.ids, l.period), (true, Ids::One, false));
        // misc, tod, --ns.
        let l =
            infer_str("node  9578/9578  U     2026-11-27 23:16:44.653532   893.368861: \n\t 1 f\n");
        assert!(l.misc && l.tod && l.time);
        let l = infer_str("node  9578 [000]   893.368861245: cpu-clock:pppH: \n\t 1 f\n");
        assert!(l.time && l.event && !l.period);
        // No call chains: the frame follows on the header line; the comm is right-aligned.
        let t = "            node  9578 [000]   893.368861:   10101010 cpu-clock:pppH:           1ba153b EVP_DecodeUpdate+0xcb (/usr/bin/node)\n";
        let l = infer_str(t);
        assert!(!l.callchains && l.comm && l.event);
        let h = l.read(t.trim_end()).unwrap();
        assert_eq!(h.comm, "node");
        assert_eq!(
            h.frame,
            Some("1ba153b EVP_DecodeUpdate+0xcb (/usr/bin/node)")
        );
        let t = "          1ba153b EVP_DecodeUpdate\n     7fc9a13cd0c2 pthread_rwlock_unlock\n";
        let l = infer_str(t);
        assert!(l.is_empty() && !l.callchains);
        let t = " 9578/9578            1ba153b EVP_DecodeUpdate (/usr/bin/node)\n";
        let l = infer_str(t);
        assert_eq!((l.comm, l.ids, l.callchains), (false, Ids::Pair, false));
        // Source lines under frames are not headers.
        let t = "node  9578/9578    893.368861: \n\t 1 f (/x)\n  f.c:0\n\t 2 g (/x)\n\n";
        assert_eq!(infer_str(t).ids, Ids::Pair);
    }

    #[test]
    fn unreadable_headers_name_their_line() {
        let e = infer(b"# c\n   zz yy\n\t 1 f\n", 0).unwrap_err();
        assert_eq!(e.line(), Some(2));
        let t = "node 1/1   1.000000: \n\t 1 f\n\nnode 1   1.000000: \n\t 1 f\n";
        let e = infer(t.as_bytes(), 0).unwrap_err();
        assert_eq!(e.line(), Some(4));
        assert!(e.to_string().contains("layout of line 1"), "{e}");
        assert!(infer(b"\n\n", 0).unwrap().is_none());
    }
}
