//! The context-string grammar:
//!
//! ```text
//! ctx   := frame ( SEP frame )*       SEP is '<' (format 1.x, 0.4) or ',' (0.2)
//! frame := methodId ':' bci
//! methodId := [0-9]+                  a per-file method id
//! bci      := '-'? [0-9]+             a Java int; negative = JVMCI placeholder BCI
//! ```
//!
//! Frames are innermost first. No whitespace or `+` is allowed; leading zeros are (the
//! schema's pattern allows them).

/// One frame as written: the file's method id and a BCI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawFrame {
    /// Method id of the file (not yet resolved).
    pub method_id: u64,
    /// Bytecode index.
    pub bci: i32,
}

/// Why a context string does not parse: a message naming the byte position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtxError(pub String);

/// Parses `s` into `out` (cleared first), innermost frame first.
pub fn parse_ctx(s: &str, sep: u8, out: &mut Vec<RawFrame>) -> Result<(), CtxError> {
    out.clear();
    let b = s.as_bytes();
    let sep_c = char::from(sep);
    let err = |pos: usize, what: &str| {
        CtxError(format!(
            "bad context {s:?} at character {pos}: {what}; expected methodId:bci frames joined by '{sep_c}', such as \"5:0{sep_c}3:2\""
        ))
    };
    if b.is_empty() {
        return Err(err(0, "empty context"));
    }
    let mut i = 0usize;
    loop {
        // methodId
        let start = i;
        let mut id: u64 = 0;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            id = id
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
                .ok_or_else(|| err(start, "method id too large"))?;
            i += 1;
        }
        if i == start {
            return Err(err(i, "expected a method id (digits)"));
        }
        if b.get(i) != Some(&b':') {
            return Err(err(i, "expected ':' after the method id"));
        }
        i += 1;
        // bci
        let neg = b.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        let start = i;
        let mut v: i64 = 0;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v * 10 + i64::from(c - b'0');
            if v > i64::from(i32::MAX) + 1 {
                return Err(err(start, "BCI out of the range of a Java int"));
            }
            i += 1;
        }
        if i == start {
            return Err(err(i, "expected a BCI (digits, optionally negative)"));
        }
        let v = if neg { -v } else { v };
        let bci = i32::try_from(v).map_err(|_| err(start, "BCI out of the range of a Java int"))?;
        out.push(RawFrame { method_id: id, bci });
        match b.get(i) {
            None => return Ok(()),
            Some(&c) if c == sep => i += 1,
            Some(_) => return Err(err(i, "unexpected character")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str, sep: u8) -> Result<Vec<(u64, i32)>, CtxError> {
        let mut v = Vec::new();
        parse_ctx(s, sep, &mut v)?;
        Ok(v.iter().map(|f| (f.method_id, f.bci)).collect())
    }

    #[test]
    fn grammar() {
        assert_eq!(
            p("5:0<3:2<2:9<1:3", b'<').unwrap(),
            vec![(5, 0), (3, 2), (2, 9), (1, 3)]
        );
        assert_eq!(p("43895:-6", b'<').unwrap(), vec![(43895, -6)]);
        assert_eq!(p("007:0", b'<').unwrap(), vec![(7, 0)]);
        assert_eq!(
            p("40159:0,40315:20", b',').unwrap(),
            vec![(40159, 0), (40315, 20)]
        );
        assert_eq!(p("1:-2147483648", b'<').unwrap(), vec![(1, i32::MIN)]);
        for bad in [
            "",
            "1",
            "1:",
            ":1",
            "1:0<",
            "<1:0",
            "1:0<<2:0",
            "a:0",
            "1:x",
            "1:+3",
            " 1:0",
            "1:0 ",
            "1:--1",
            "-1:0",
            "1:2147483648",
            "99999999999999999999:0",
            "1:0,2:0",
        ] {
            assert!(p(bad, b'<').is_err(), "{bad:?}");
        }
    }
}
