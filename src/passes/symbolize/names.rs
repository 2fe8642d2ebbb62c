//! Splitting JIT function names into a declaring type, a method name and (when the runtime
//! writes them) return and parameter types, for the iprof methods table.
//!
//! Conventions recognised:
//! * **V8** (`JS:`, `LazyCompile:`, `Function:`, `Eval:`, `Script:` code): `KIND:<tier>name
//!   script[:line[:col]]`, tier one of `~ ^ + *`. The declaring type is the script (V8 has no
//!   class in the name; a method `Module._compile` keeps its dotted name); anonymous functions
//!   are named `(anonymous)@line:col` so that two of them in one script stay apart. The tier
//!   is dropped: one JS function compiled by several tiers is one method. Other V8 kinds
//!   (`Builtin:`, `BytecodeHandler:`, `Stub:`, `RegExp:`, `Handler:` …) use the kind as the
//!   declaring type.
//! * **.NET** (perf map, jitdump, r2rmap): `[instance ][ret ][[module] ]Namespace.Type::
//!   Method(args)[tier]` → type `Namespace.Type`, method `Method`, return `ret`, parameters
//!   split at top-level commas; the tier suffix is dropped.
//! * **Java** (perf-map-agent, async-profiler style): `Lpkg/Type;::method` → `pkg.Type`;
//!   HotSpot's own map: `ret pkg.Type.method(params)`.
//! * **C++** names from perf (`ns::Class::method`): split at the last `::`.
//!
//! Anything else keeps its whole name as the method name and gets the caller's default
//! declaring type.

use std::borrow::Cow;

/// A JIT name split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitName<'a> {
    /// The declaring type (the first element of an iprof method signature).
    pub declaring: Cow<'a, str>,
    /// The method's simple name.
    pub method: Cow<'a, str>,
    /// Return type, when the name carries one.
    pub ret: Option<&'a str>,
    /// Parameter types, when the name carries them.
    pub params: Vec<&'a str>,
}

const V8_SCRIPT_KINDS: [&str; 5] = ["JS", "LazyCompile", "Function", "Eval", "Script"];
const V8_OTHER_KINDS: [&str; 9] = [
    "Builtin",
    "BytecodeHandler",
    "Stub",
    "RegExp",
    "Handler",
    "Callback",
    "Bytecode",
    "Interpreter",
    "Wasm",
];

/// Splits `name`; `default_type` is the declaring type of names that follow no convention.
pub fn split<'a>(name: &'a str, default_type: &'a str) -> SplitName<'a> {
    if let Some(s) = split_v8(name) {
        return s;
    }
    if let Some(s) = split_java_descriptor(name) {
        return s;
    }
    if let Some(s) = split_dotnet(name) {
        return s;
    }
    if let Some(s) = split_hotspot(name) {
        return s;
    }
    if let Some((t, m)) = rsplit_top_level(name, "::")
        && !t.is_empty()
        && !m.is_empty()
    {
        return plain(t, m);
    }
    plain(default_type, name)
}

fn plain<'a>(t: &'a str, m: &'a str) -> SplitName<'a> {
    SplitName {
        declaring: Cow::Borrowed(t),
        method: Cow::Borrowed(m),
        ret: None,
        params: Vec::new(),
    }
}

fn split_v8(name: &str) -> Option<SplitName<'_>> {
    let (kind, rest) = name.split_once(':')?;
    if V8_OTHER_KINDS.contains(&kind) {
        return Some(plain(kind, rest));
    }
    if !V8_SCRIPT_KINDS.contains(&kind) {
        return None;
    }
    let rest = rest.strip_prefix(['~', '^', '+', '*']).unwrap_or(rest);
    // `name script:line:col`; function names have no spaces, script paths may.
    let (func, loc) = match rest.split_once(' ') {
        Some((f, l)) => (f, l),
        None => (rest, ""),
    };
    // Strip up to two trailing `:digits` (line, column) from the location.
    let mut script = loc;
    let mut pos = Vec::new();
    for _ in 0..2 {
        match script.rsplit_once(':') {
            Some((s, d)) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => {
                pos.push(d);
                script = s;
            }
            _ => break,
        }
    }
    pos.reverse();
    let declaring = if script.is_empty() {
        Cow::Borrowed("(no script)")
    } else {
        Cow::Borrowed(script)
    };
    let method = if func.is_empty() {
        if pos.is_empty() {
            Cow::Borrowed("(anonymous)")
        } else {
            Cow::Owned(format!("(anonymous)@{}", pos.join(":")))
        }
    } else {
        Cow::Borrowed(func)
    };
    Some(SplitName {
        declaring,
        method,
        ret: None,
        params: Vec::new(),
    })
}

fn split_java_descriptor(name: &str) -> Option<SplitName<'_>> {
    let body = name.strip_prefix('L')?;
    let (t, m) = body.split_once(";::")?;
    if t.is_empty() || m.is_empty() || t.contains(' ') {
        return None;
    }
    let m = m.split_once('(').map_or(m, |(a, _)| a);
    Some(SplitName {
        declaring: Cow::Owned(t.replace('/', ".")),
        method: Cow::Borrowed(m),
        ret: None,
        params: Vec::new(),
    })
}

/// Splits at the last `sep` outside `<>`, `[]` and `()` (C++ template arguments contain
/// `::` too).
fn rsplit_top_level<'a>(s: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            _ if depth == 0 && s.get(i..).is_some_and(|r| r.starts_with(sep)) => found = Some(i),
            _ => {}
        }
    }
    let i = found?;
    Some((s.get(..i)?, s.get(i + sep.len()..)?))
}

/// Splits at top-level commas (outside `<>`, `[]`, `()`), trimming blanks.
fn split_params(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if args.trim().is_empty() {
        return out;
    }
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in args.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(args.get(start..i).unwrap_or("").trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(args.get(start..).unwrap_or("").trim());
    out
}

/// Index of the `)` matching the `(` at `open`.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.get(open..)?.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_dotnet(name: &str) -> Option<SplitName<'_>> {
    let colons = name.find("::")?;
    let open = colons + name.get(colons..)?.find('(')?;
    let close = matching_paren(name, open)?;
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
    {
        ret = ret.get(..i).unwrap_or("").trim();
    }
    Some(SplitName {
        declaring: Cow::Borrowed(ty),
        method: Cow::Borrowed(method),
        ret: (!ret.is_empty()).then_some(ret),
        params: split_params(name.get(open + 1..close)?),
    })
}

/// HotSpot perf map: `ret pkg.Type.method(params)`.
fn split_hotspot(name: &str) -> Option<SplitName<'_>> {
    let open = name.find('(')?;
    let close = matching_paren(name, open)?;
    if close + 1 != name.len() {
        return None;
    }
    let head = name.get(..open)?;
    let (ret, qual) = head.rsplit_once(' ')?;
    let (ty, method) = qual.rsplit_once('.')?;
    if ret.is_empty() || ty.is_empty() || method.is_empty() || ret.contains(' ') {
        return None;
    }
    Some(SplitName {
        declaring: Cow::Borrowed(ty),
        method: Cow::Borrowed(method),
        ret: Some(ret),
        params: split_params(name.get(open + 1..close)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(n: &str) -> (String, String, Option<String>, Vec<String>) {
        let s = split(n, "(jit)");
        (
            s.declaring.into_owned(),
            s.method.into_owned(),
            s.ret.map(str::to_string),
            s.params.into_iter().map(str::to_string).collect(),
        )
    }

    #[test]
    fn v8() {
        assert_eq!(
            parts("JS:~Module._compile node:internal/modules/cjs/loader:1483:37").0,
            "node:internal/modules/cjs/loader"
        );
        assert_eq!(
            parts("JS:~Module._compile node:internal/modules/cjs/loader:1483:37").1,
            "Module._compile"
        );
        assert_eq!(
            parts("LazyCompile:*fib /tmp/a b/work.js:10"),
            ("/tmp/a b/work.js".into(), "fib".into(), None, vec![])
        );
        assert_eq!(parts("JS:^ :1:1").1, "(anonymous)@1:1");
        assert_eq!(parts("JS:^ :1:1").0, "(no script)");
        assert_eq!(
            parts("Builtin:JSEntry"),
            ("Builtin".into(), "JSEntry".into(), None, vec![])
        );
    }

    #[test]
    fn dotnet_java_hotspot_cpp() {
        assert_eq!(
            parts(
                "void [System.Private.CoreLib] System.Runtime.CompilerServices.CastHelpers::StelemRef(class System.Array,int32,object)[OptimizedTier1]"
            ),
            (
                "System.Runtime.CompilerServices.CastHelpers".into(),
                "StelemRef".into(),
                Some("void".into()),
                vec!["class System.Array".into(), "int32".into(), "object".into()]
            )
        );
        assert_eq!(
            parts("instance bool [System.Private.CoreLib] System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]::TryGetValue(!0,!1&)[QuickJitted]").0,
            "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]"
        );
        assert_eq!(
            parts("Microsoft.CodeAnalysis.EmbeddedAttribute::.ctor()"),
            (
                "Microsoft.CodeAnalysis.EmbeddedAttribute".into(),
                ".ctor".into(),
                None,
                vec![]
            )
        );
        assert_eq!(
            parts("Ljava/lang/String;::hashCode"),
            ("java.lang.String".into(), "hashCode".into(), None, vec![])
        );
        assert_eq!(
            parts("long Hot.fib(int)"),
            (
                "Hot".into(),
                "fib".into(),
                Some("long".into()),
                vec!["int".into()]
            )
        );
        assert_eq!(
            parts("v8::internal::(anonymous namespace)::Invoke").1,
            "Invoke"
        );
        assert_eq!(parts("julia_fib_123").0, "(jit)");
        assert_eq!(
            parts("v8::internal::Visitor<v8::internal::State>::Process<v8::internal::Slot>"),
            (
                "v8::internal::Visitor<v8::internal::State>".into(),
                "Process<v8::internal::Slot>".into(),
                None,
                vec![]
            )
        );
        assert_eq!(
            parts("stub<1> AllocateTemporaryEntryPoints<PRECODE_FIXUP>").1,
            "stub<1> AllocateTemporaryEntryPoints<PRECODE_FIXUP>"
        );
    }
}
