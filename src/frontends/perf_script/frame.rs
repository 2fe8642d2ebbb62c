//! One frame of a call chain: `IP SYM+0xOFF (DSO)` and the other spellings perf prints.

use super::{ScriptFrame, UNKNOWN, err};
use crate::error::Result;

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
