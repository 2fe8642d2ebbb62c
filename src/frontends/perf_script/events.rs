//! The side-band events of `perf script --show-mmap-events` and `--show-task-events`.

use super::err;
use crate::error::{Error, Result};
use crate::ir::code::{Mapping, ThreadOf};

/// Parses a hex number with or without `0x` (perf prints 0 as `0`).
fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// A side-band event of a header line (`at` from [`layout::event_at`]).
pub(super) enum Event<'a> {
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
pub(super) fn parse_event(text: &str, at: usize, line: u64) -> Result<Event<'_>> {
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
