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

mod events;
mod frame;
pub mod layout;
#[cfg(test)]
mod tests;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::code::{Mapping, SampleSource, ThreadOf};

use events::{Event, parse_event};
pub use frame::parse_frame;
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
