//! How an iprof method (and a calling context) is spelled as an LLVM PGO name, and how such
//! a name is read back.
//!
//! ```text
//! method  := DECL "::" NAME "(" [ PARAM { "," PARAM } ] ")" RET   signature of 2 or more types
//!          | DECL "::" NAME                                      signature of 1 type
//!          | NAME                                                empty signature
//! record  := method { "<" method ":" BCI }                        callers, innermost first
//! ```
//!
//! DECL, RET and PARAM are the type names of the method's signature `[declaring, return,
//! params…]`, NAME the method's name. Inside each of them the six characters that carry
//! structure are escaped as `%XX` (uppercase hex): `%` `%25`, `:` `%3A`, `(` `%28`, `)` `%29`,
//! `,` `%2C`, `<` `%3C`; an empty name is spelled `%%`. Nothing else is escaped, so real Java
//! names (`java.util.HashMap::get(java.lang.Object)java.lang.Object`) read as themselves and
//! every spelling reads back to exactly one (signature, name, context).
//!
//! The `<` suffix appears only on records of calling contexts, written with
//! `--keep-contexts`: `m<caller:12<outer:3` is `m` called at BCI 12 of `caller`, itself called
//! at BCI 3 of `outer` (iprof's own `m:0<caller:12<outer:3` order).

/// Characters that carry structure in a spelling.
const SPECIAL: [char; 6] = ['%', ':', '(', ')', ',', '<'];

/// Appends `s` to `out`, escaped.
pub fn escape_into(s: &str, out: &mut String) {
    if s.is_empty() {
        out.push_str("%%");
        return;
    }
    for c in s.chars() {
        if SPECIAL.contains(&c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
}

/// Reverses [`escape_into`]; `None` for a malformed escape or an unescaped special character.
pub fn unescape(s: &str) -> Option<String> {
    if s == "%%" {
        return Some(String::new());
    }
    if s.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '%' => {
                let hex = s.get(i + 1..i + 3)?;
                let v = u8::from_str_radix(hex, 16).ok()?;
                let ch = char::from(v);
                if !SPECIAL.contains(&ch) || hex.chars().any(|h| h.is_ascii_lowercase()) {
                    return None;
                }
                out.push(ch);
                it.next();
                it.next();
            }
            c if SPECIAL.contains(&c) => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// A method as spelled: its name and its signature type names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpelledMethod {
    /// The method's name.
    pub name: String,
    /// `[declaring, return, params…]` type names (possibly fewer, as in the file).
    pub signature: Vec<String>,
}

/// Spells a method.
pub fn method(name: &str, signature: &[&str], out: &mut String) {
    match signature {
        [] => escape_into(name, out),
        [decl] => {
            escape_into(decl, out);
            out.push_str("::");
            escape_into(name, out);
        }
        [decl, ret, params @ ..] => {
            escape_into(decl, out);
            out.push_str("::");
            escape_into(name, out);
            out.push('(');
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                escape_into(p, out);
            }
            out.push(')');
            escape_into(ret, out);
        }
    }
}

/// Reads a method spelling back.
pub fn parse_method(s: &str) -> Option<SpelledMethod> {
    let Some((decl, rest)) = s.split_once("::") else {
        return Some(SpelledMethod {
            name: unescape(s)?,
            signature: Vec::new(),
        });
    };
    let decl = unescape(decl)?;
    let Some((name, rest)) = rest.split_once('(') else {
        return Some(SpelledMethod {
            name: unescape(rest)?,
            signature: vec![decl],
        });
    };
    let (params, ret) = rest.split_once(')')?;
    let mut signature = vec![decl, unescape(ret)?];
    if !params.is_empty() {
        for p in params.split(',') {
            signature.push(unescape(p)?);
        }
    }
    Some(SpelledMethod {
        name: unescape(name)?,
        signature,
    })
}

/// A record's name read back: the method, and its callers (innermost first) with the BCI
/// of the call in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpelledRecord {
    /// The method the record is about.
    pub method: SpelledMethod,
    /// Its calling context, innermost caller first: (caller, BCI of the call in it).
    pub callers: Vec<(SpelledMethod, i32)>,
}

/// Reads a record name back; `None` if it is not a spelling of this module.
pub fn parse_record(s: &str) -> Option<SpelledRecord> {
    let mut parts = s.split('<');
    let method = parse_method(parts.next()?)?;
    let mut callers = Vec::new();
    for p in parts {
        let (m, bci) = p.rsplit_once(':')?;
        let bci: i32 = bci.parse().ok()?;
        // `parse` accepts "+5"; a spelling never has it.
        if bci.to_string() != p.rsplit_once(':')?.1 {
            return None;
        }
        callers.push((parse_method(m)?, bci));
    }
    Some(SpelledRecord { method, callers })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spell(name: &str, sig: &[&str]) -> String {
        let mut s = String::new();
        method(name, sig, &mut s);
        s
    }

    #[test]
    fn real_names_read_as_themselves_and_round_trip() {
        let s = spell(
            "get",
            &["java.util.HashMap", "java.lang.Object", "java.lang.Object"],
        );
        assert_eq!(
            s,
            "java.util.HashMap::get(java.lang.Object)java.lang.Object"
        );
        let p = parse_method(&s).unwrap();
        assert_eq!(p.name, "get");
        assert_eq!(
            p.signature,
            ["java.util.HashMap", "java.lang.Object", "java.lang.Object"]
        );
        assert_eq!(spell("<init>", &["A", "void"]), "A::%3Cinit>()void");
    }

    #[test]
    fn every_shape_round_trips_unambiguously() {
        let names = ["", "a", "a:b", "(x)", "%", ",", "<", "::", "é"];
        let mut seen = std::collections::HashSet::new();
        for n in names {
            for sig in [
                vec![],
                vec![""],
                vec!["T"],
                vec!["T", ""],
                vec!["T", "", ""],
                vec!["T:1", "R(", "P,Q", "%"],
            ] {
                let s = spell(n, &sig);
                assert!(seen.insert(s.clone()), "{s} spelled twice");
                let p = parse_method(&s).unwrap_or_else(|| panic!("{s}"));
                assert_eq!(p.name, n, "{s}");
                assert_eq!(p.signature, sig, "{s}");
            }
        }
    }

    #[test]
    fn contexts_round_trip_and_bad_spellings_are_refused() {
        let r = parse_record("A::m()void<B::n()void:12<C::o:-3").unwrap();
        assert_eq!(r.method.name, "m");
        assert_eq!(r.callers.len(), 2);
        assert_eq!(r.callers[0].1, 12);
        assert_eq!(r.callers[1].0.signature, ["C"]);
        assert_eq!(r.callers[1].1, -3);
        for bad in ["main:", "a%4", "a%zz", "f<g", "f<g:+1", "x%3a"] {
            assert!(parse_record(bad).is_none(), "{bad}");
        }
        // A plain C function name reads as a method with an empty signature; whether a
        // record came from iprof is decided by its shape sites (see `shape`).
        assert_eq!(parse_record("main").unwrap().method.signature.len(), 0);
    }
}
