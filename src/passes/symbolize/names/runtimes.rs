//! Names of CPython, wasmtime and Erlang/OTP's JIT code.

use std::borrow::Cow;

use super::{SplitName, plain};

/// CPython 3.12+ (`-X perf`, `-X perf_jit`): `py::QUALNAME:FILE` (Python/perf_trampoline.c)
/// → type the file, method the qualified name (`Class.method`, `f.<locals>.g`, `<module>`),
/// as V8's functions are methods of their script.
pub(super) fn split_cpython(name: &str) -> Option<SplitName<'_>> {
    let rest = name.strip_prefix("py::")?;
    let (qual, file) = rest.split_once(':')?;
    if qual.is_empty() || file.is_empty() || file.starts_with(':') || qual.contains(' ') {
        return None;
    }
    Some(plain(file, qual))
}

/// wasmtime's perf map and jitdump (the symbols of its compiled module):
/// `wasm[M]::function[F]`, `wasm[M]::function[F]::NAME` (newer versions, with the name
/// section's name), trampolines `wasm[M]::array_to_wasm_trampoline[F]` → type `wasm[M]`,
/// method the rest; a named function is its name (its index changes when the module is
/// rebuilt, its name does not). Functions wasmtime names by their demangled name alone are
/// names like any other.
pub(super) fn split_wasm(name: &str) -> Option<SplitName<'_>> {
    let digits = name.strip_prefix("wasm[")?;
    let close = digits.find(']')?;
    let index = digits.get(..close)?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let module = name.get(..close + "wasm[]".len())?;
    let rest = name.get(module.len()..)?.strip_prefix("::")?;
    let method = match rest
        .strip_prefix("function[")
        .and_then(|r| r.split_once("]::"))
    {
        Some((f, n)) if !n.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => rest,
    };
    (!method.is_empty()).then(|| plain(module, method))
}

/// Erlang/OTP 24+ (BeamAsm, `+JPperf`): `$MODULE:FUNCTION/ARITY` in the perf map (without
/// `$` in the jitdump), `…-CodeInfoPrologue` for a function's prologue, `$MODULE::codeHeader`
/// and `$global::FRAGMENT` for shared code (erts/emulator/beam/jit/beam_jit_metadata.cpp).
/// Atoms are quoted where Erlang quotes them (`'Elixir.Enum'`, `'-f/1-fun-0-'`). → type
/// the module (unquoted), method `FUNCTION/ARITY[-suffix]` (name and arity are the
/// function's identity).
pub(super) fn split_erlang(name: &str) -> Option<SplitName<'_>> {
    let dollar = name.starts_with('$');
    let body = name.strip_prefix('$').unwrap_or(name);
    let (module, rest) = atom(body)?;
    if let Some(m) = rest.strip_prefix("::") {
        // Shared code; only the perf map's `$` tells it from a C++ name.
        return (dollar && !m.is_empty() && !m.contains(['(', ' ', ':'])).then(|| SplitName {
            declaring: unquote(module),
            method: Cow::Borrowed(m),
            ret: None,
            params: Vec::new(),
        });
    }
    let (function, rest) = atom(rest.strip_prefix(':')?)?;
    let arity = rest.strip_prefix('/')?;
    let digits = arity.bytes().take_while(u8::is_ascii_digit).count();
    let suffix = arity.get(digits..)?;
    if digits == 0
        || !(suffix.is_empty()
            || suffix
                .strip_prefix('-')
                .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())))
    {
        return None;
    }
    let method_start = body.len() - rest.len() - function.len();
    Some(SplitName {
        declaring: unquote(module),
        method: Cow::Borrowed(body.get(method_start..)?),
        ret: None,
        params: Vec::new(),
    })
}

/// An Erlang atom at the start of `s` (as `%T` prints it: unquoted `[a-z][A-Za-z0-9_@]*`, or
/// quoted with `\` escapes) and the rest.
fn atom(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let end = if b.first() == Some(&b'\'') {
        let mut i = 1;
        loop {
            match b.get(i)? {
                b'\\' => i += 2,
                b'\'' => break i + 1,
                _ => i += 1,
            }
        }
    } else {
        if !b.first()?.is_ascii_lowercase() {
            return None;
        }
        b.iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'@'))
            .count()
    };
    (end > 0).then(|| (s.get(..end).unwrap_or(""), s.get(end..).unwrap_or("")))
}

/// An atom without its quotes (`'Elixir.Enum'` → `Elixir.Enum`).
fn unquote(a: &str) -> Cow<'_, str> {
    match a.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        Some(inner) if inner.contains('\\') => Cow::Owned(inner.replace("\\'", "'")),
        Some(inner) => Cow::Borrowed(inner),
        None => Cow::Borrowed(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_that_are_not_these_runtimes() {
        assert!(split_cpython("py::detail::object_api").is_none());
        assert!(split_wasm("wasm[x]::f").is_none());
        assert!(split_wasm("wasm-function[3]").is_none());
        assert!(split_erlang("std::vector<int>::push_back").is_none());
        assert!(split_erlang("Foo:Bar (int)").is_none());
        assert!(split_erlang("lists:foldl/x").is_none());
        assert!(split_erlang("lists:foldl/3-").is_none());
        assert!(split_erlang("'unterminated:f/1").is_none());
        assert_eq!(
            split_erlang("$'it''s':f/1").map(|s| s.declaring.into_owned()),
            None
        );
        assert_eq!(
            split_erlang("'a\\'b':f/1").map(|s| s.declaring.into_owned()),
            Some("a'b".to_string())
        );
    }
}
