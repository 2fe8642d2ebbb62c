//! .NET names: CoreCLR's perf maps, jitdumps and r2rmaps (IL syntax, `Type::Method(args)`),
//! Mono's `--jitmap` (`Type:Method (args)`) and CoreCLR's stubs (`stub<N> Kind<Owner>`).
//! Types are written as the runtime names them (`Type.ToString()`), whichever spelling the
//! name uses.

use std::borrow::Cow;

use super::{SplitName, matching, split_params};

/// CoreCLR: `[instance ][ret ][[module] ]Namespace.Type::Method(args)[tier]`.
pub(super) fn split_coreclr<'a>(name: &'a str) -> Option<SplitName<'a>> {
    let colons = name.find("::")?;
    let open = colons + name.get(colons..)?.find('(')?;
    let close = matching(name, open)?;
    let tail = name.get(close + 1..)?;
    // Only a tier suffix `[...]` may follow the arguments.
    if !(tail.is_empty() || (tail.starts_with('[') && tail.ends_with(']'))) {
        return None;
    }
    let head = name.get(..open)?;
    let (ty_full, method) = head.rsplit_once("::")?;
    let (prefix, ty) = match ty_full.rfind(' ') {
        Some(i) => (ty_full.get(..i)?, ty_full.get(i + 1..)?),
        None => ("", ty_full),
    };
    if ty.is_empty() || method.is_empty() {
        return None;
    }
    let mut ret = prefix.trim();
    ret = ret.strip_prefix("instance ").unwrap_or(ret).trim();
    // Drop the trailing `[module]`.
    if ret.ends_with(']')
        && let Some(i) = ret.rfind('[')
        && ret
            .get(..i)
            .is_some_and(|r| r.is_empty() || r.ends_with(' '))
    {
        ret = ret.get(..i).unwrap_or("").trim();
    }
    // The declaring type's instantiation names what `!0`, `!1`… stand for.
    let type_args: Vec<String> = match ty.find('[') {
        Some(i) if ty.ends_with(']') && matching(ty, i) == Some(ty.len() - 1) => {
            split_params(ty.get(i + 1..ty.len() - 1).unwrap_or(""))
                .into_iter()
                .map(|a| dotnet_type(a, &[]))
                .collect()
        }
        _ => Vec::new(),
    };
    // C++ names from perf take this path too (`ns::Class::f(int)`); only .NET ones get
    // their IL syntax rewritten: a tier suffix, a `[module]`, or a dotted type without `::`.
    let dotnet =
        !tail.is_empty() || prefix.contains('[') || (!ty.contains("::") && ty.contains('.'));
    let clean = |t: &'a str| -> Cow<'a, str> {
        if !dotnet {
            return Cow::Borrowed(t);
        }
        let c = dotnet_type(t, &type_args);
        if c == t {
            Cow::Borrowed(t)
        } else {
            Cow::Owned(c)
        }
    };
    Some(SplitName {
        declaring: clean(ty),
        method: if dotnet {
            stable_method(method)
        } else {
            Cow::Borrowed(method)
        },
        ret: (!ret.is_empty()).then(|| clean(ret)),
        params: split_params(name.get(open + 1..close)?)
            .into_iter()
            .map(clean)
            .collect(),
    })
}

/// A method name without the per-run numbering of dynamic methods: expression trees compile
/// to `lambda_method1`, `lambda_method2` … in the order the process compiles them.
fn stable_method(m: &str) -> Cow<'_, str> {
    match m.strip_prefix("lambda_method") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            Cow::Borrowed("lambda_method")
        }
        _ => Cow::Borrowed(m),
    }
}

/// CoreCLR's stubs: `stub<N> Kind<Owner>` (N numbers the stubs of one run in the order they
/// are made) or `stub Kind<Owner>` → type `(stub)`, method `Kind<Owner>`.
pub(super) fn split_stub(name: &str) -> Option<SplitName<'_>> {
    let rest = name.strip_prefix("stub")?;
    let rest = match rest.strip_prefix('<') {
        Some(r) => {
            let (n, r) = r.split_once("> ")?;
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            r
        }
        None => rest.strip_prefix(' ')?,
    };
    if rest.is_empty() {
        return None;
    }
    Some(SplitName {
        declaring: Cow::Borrowed("(stub)"),
        method: Cow::Borrowed(rest),
        ret: None,
        params: Vec::new(),
    })
}

/// Mono's `--jitmap` (`mono_method_full_name`): `[(wrapper KIND) ]Ns.Type[/Nested][<args>]:
/// Method[<args>] (params)`, nested types joined by `/`, generic arguments in `<…>` separated
/// by `, `, Mono's names of primitive types (`int`, `long`, `single`, `intptr` …); an
/// optional `[Assembly] ` before the type. Wrappers keep their kind in the method name:
/// they are code of their own.
pub(super) fn split_mono(name: &str) -> Option<SplitName<'_>> {
    let (wrapper, rest) = match name.strip_prefix("(wrapper ") {
        Some(r) => {
            let (kind, r) = r.split_once(") ")?;
            (Some(kind), r)
        }
        None => (None, name),
    };
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once("] ")?.1,
        None => rest,
    };
    let body = rest.strip_suffix(')')?;
    let open = top_level_find(body, " (")?;
    let head = body.get(..open)?;
    let args = body.get(open + 2..)?;
    let colon = top_level_find(head, ":")?;
    let (ty, method) = (head.get(..colon)?, head.get(colon + 1..)?);
    if ty.is_empty()
        || method.is_empty()
        || method.starts_with(':')
        || top_level_find(ty, " ").is_some()
        || top_level_find(method, " ").is_some()
    {
        return None;
    }
    let method = match wrapper {
        Some(kind) => Cow::Owned(format!("(wrapper {kind}) {method}")),
        None => stable_method(method),
    };
    Some(SplitName {
        declaring: Cow::Owned(dotnet_type(ty, &[])),
        method,
        ret: None,
        params: split_params(args)
            .into_iter()
            .map(|p| Cow::Owned(dotnet_type(p, &[])))
            .collect(),
    })
}

/// Byte index of the first `pat` in `s` outside `<…>`.
fn top_level_find(s: &str, pat: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && s.get(i..).is_some_and(|r| r.starts_with(pat)) => return Some(i),
            _ => {}
        }
    }
    None
}

/// The runtime's name of a primitive type in IL syntax (CoreCLR) or Mono's spelling.
fn dotnet_primitive(t: &str) -> Option<&'static str> {
    Some(match t {
        "void" => "System.Void",
        "bool" => "System.Boolean",
        "char" => "System.Char",
        "int8" | "sbyte" => "System.SByte",
        "uint8" | "byte" => "System.Byte",
        "int16" => "System.Int16",
        "uint16" => "System.UInt16",
        "int32" | "int" => "System.Int32",
        "uint32" | "uint" => "System.UInt32",
        "int64" | "long" => "System.Int64",
        "uint64" | "ulong" => "System.UInt64",
        "float32" | "single" => "System.Single",
        "float64" | "double" => "System.Double",
        "string" => "System.String",
        "object" => "System.Object",
        "native int" | "intptr" => "System.IntPtr",
        "native uint" | "uintptr" => "System.UIntPtr",
        "typedref" | "typedbyref" => "System.TypedReference",
        _ => return None,
    })
}

/// Where the element name of a .NET type starts to be followed by something else: a
/// generic bracket, an array, a pointer, a byref or a blank. A `<…>` that starts a name
/// segment (at the start, or after `.`, `+` or `/`) is part of the name: the C# and Mono
/// compilers name the types and methods they generate so (`<>c__DisplayClass0_0`,
/// `<Main>b__0_0`, `<DoAsync>d__3`, `<Primes>c__Iterator0`); generic arguments follow a
/// name.
fn name_end(s: &str) -> usize {
    let native = s.starts_with("native ");
    let b = s.as_bytes();
    let mut i = if native { "native ".len() } else { 0 };
    while let Some(&c) = b.get(i) {
        match c {
            b'<' if i == 0 || matches!(b.get(i - 1), Some(b'.' | b'+' | b'/')) => {
                match matching(s, i) {
                    Some(close) => i = close + 1,
                    None => return b.len(),
                }
                continue;
            }
            b'[' | b'<' | b'&' | b'*' => return i,
            b' ' if !native => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// Generic arguments and arrays nested deeper than this in one .NET type are kept as
/// written: each level of the rewriting rescans the rest of the type, so a crafted perf-map
/// name of 20,000 nested generics took 15 s and 1.6 GB; real types nest a few levels.
const MAX_DOTNET_TYPE_DEPTH: usize = 64;

/// [`dotnet_type_nested`] of `t` if its brackets nest at most [`MAX_DOTNET_TYPE_DEPTH`] deep
/// (so its recursion is that deep at most), else `t` as written.
pub(super) fn dotnet_type(t: &str, type_args: &[String]) -> String {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for b in t.bytes() {
        match b {
            b'<' | b'[' | b'(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'>' | b']' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_DOTNET_TYPE_DEPTH {
        return t.to_string();
    }
    dotnet_type_nested(t, type_args)
}

/// A .NET type as the runtime names it (`Type.ToString()`), from the IL syntax of
/// CoreCLR's perf maps or Mono's: without `class `/`valuetype ` and `[module]` references,
/// primitive types by their `System.*` names, generic arguments in `[…]`, nested types
/// joined by `+`, `!N` (the declaring type's Nth type parameter) replaced by `type_args[N]`
/// when known, and function pointers as `System.IntPtr`. `!!N` (a method type parameter,
/// which the name never instantiates) stays, as do compiler-generated names (`<…>`).
fn dotnet_type_nested(t: &str, type_args: &[String]) -> String {
    let mut s = t.trim();
    loop {
        if let Some(r) = s.strip_prefix("class ") {
            s = r.trim_start();
        } else if let Some(r) = s.strip_prefix("valuetype ") {
            s = r.trim_start();
        } else if s.starts_with('[')
            && let Some(close) = matching(s, 0)
            && s.get(close + 1..)
                .is_some_and(|r| r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        {
            // `[module]Type`: an assembly reference.
            s = s.get(close + 1..).unwrap_or("");
        } else {
            break;
        }
    }
    // A function pointer (`method unmanaged cdecl valuetype X *(…)`): reflection in these
    // runtimes reports such types as `System.IntPtr`.
    if s.starts_with("method ") {
        return "System.IntPtr".into();
    }
    let (name, mut rest) = s.split_at(name_end(s));
    let mut out = String::with_capacity(t.len());
    match name.strip_prefix('!') {
        Some(n) if !n.starts_with('!') => {
            match n.parse::<usize>().ok().and_then(|i| type_args.get(i)) {
                Some(a) => out.push_str(a),
                None => out.push_str(name),
            }
        }
        _ => match dotnet_primitive(name) {
            Some(p) => out.push_str(p),
            None => out.push_str(&name.replace('/', "+")),
        },
    }
    while let Some(c) = rest.chars().next() {
        match c {
            '[' | '<' => {
                let close = matching(rest, 0).unwrap_or(rest.len().saturating_sub(1));
                let inner = rest.get(1..close).unwrap_or("");
                if inner.bytes().all(|b| b == b',') {
                    // An array: `[]`, `[,]`.
                    out.push('[');
                    out.push_str(inner);
                    out.push(']');
                } else {
                    out.push('[');
                    for (k, a) in split_params(inner).into_iter().enumerate() {
                        if k > 0 {
                            out.push(',');
                        }
                        out.push_str(&dotnet_type_nested(a, type_args));
                    }
                    out.push(']');
                }
                rest = rest.get(close + 1..).unwrap_or("");
            }
            '&' | '*' => {
                out.push(c);
                rest = rest.get(1..).unwrap_or("");
            }
            _ => {
                // Anything else (blanks, modifiers) is kept as written.
                out.push_str(rest.trim_end());
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_generated_names_are_names() {
        assert_eq!(
            dotnet_type("App.Outer+<A>d__1+<B>d__2", &[]),
            "App.Outer+<A>d__1+<B>d__2"
        );
        assert_eq!(
            dotnet_type("class App.P/<<Main>$>g__Local|0_0", &[]),
            "App.P+<<Main>$>g__Local|0_0"
        );
        assert_eq!(
            dotnet_type("class App.P/<>f__AnonymousType0`2<string,int32>[]", &[]),
            "App.P+<>f__AnonymousType0`2[System.String,System.Int32][]"
        );
        assert_eq!(
            dotnet_type(
                "valuetype System.Collections.Generic.Dictionary`2/Enumerator<!0,!1>",
                &["A".into(), "B".into()]
            ),
            "System.Collections.Generic.Dictionary`2+Enumerator[A,B]"
        );
        assert_eq!(dotnet_type("native int", &[]), "System.IntPtr");
        assert_eq!(dotnet_type("byte*&", &[]), "System.Byte*&");
        assert!(split_stub("stub<x> A").is_none());
        assert!(split_stub("stubborn").is_none());
        assert!(split_mono("v8::internal::Heap::Collect(bool)").is_none());
        assert!(split_mono("foo:bar/2").is_none());
    }
}
