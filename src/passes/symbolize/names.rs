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

/// The return type of a method whose name does not carry one (V8 functions, C++ names
/// from perf, Java descriptors without a signature): GraalVM's format requires a
/// signature of at least the declaring type and the return type.
pub const UNKNOWN_RETURN_TYPE: &str = "(unknown)";

/// A JIT name split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitName<'a> {
    /// The declaring type (the first element of an iprof method signature).
    pub declaring: Cow<'a, str>,
    /// The method's simple name.
    pub method: Cow<'a, str>,
    /// Return type, when the name carries one.
    pub ret: Option<Cow<'a, str>>,
    /// Parameter types, when the name carries them.
    pub params: Vec<Cow<'a, str>>,
}

impl SplitName<'_> {
    fn into_owned(self) -> SplitName<'static> {
        SplitName {
            declaring: Cow::Owned(self.declaring.into_owned()),
            method: Cow::Owned(self.method.into_owned()),
            ret: self.ret.map(|r| Cow::Owned(r.into_owned())),
            params: self
                .params
                .into_iter()
                .map(|p| Cow::Owned(p.into_owned()))
                .collect(),
        }
    }
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

/// Prefixes the C++ demangler puts before a function that is a thunk to another.
const CXX_THUNKS: [&str; 3] = [
    "non-virtual thunk to ",
    "virtual thunk to ",
    "covariant return thunk to ",
];

/// Splits `name`; `default_type` is the declaring type of names that follow no convention.
pub fn split<'a>(name: &'a str, default_type: &'a str) -> SplitName<'a> {
    // .NET writes per-run method-table pointers as comments (`/* MT: 0x00007F… */`).
    if name.contains("/*") {
        let clean = strip_comments(name);
        return split_clean(&clean, default_type).into_owned();
    }
    split_clean(name, default_type)
}

fn split_clean<'a>(name: &'a str, default_type: &'a str) -> SplitName<'a> {
    // Thunk prefixes stay on the method's name; a name may chain any number of them, so
    // they are stripped in a loop (not a recursion as deep as the name is long).
    let mut target = name;
    while let Some(rest) = CXX_THUNKS.iter().find_map(|t| target.strip_prefix(t)) {
        target = rest;
    }
    let thunks = &name[..name.len() - target.len()];
    let mut s = split_target(target, default_type);
    if !thunks.is_empty() {
        s.method = Cow::Owned(format!("{thunks}{}", s.method));
    }
    s
}

/// [`split_clean`] of a name that is not a thunk.
fn split_target<'a>(name: &'a str, default_type: &'a str) -> SplitName<'a> {
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

/// `s` without `/* … */` comments and the blanks before them.
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("/*") {
        out.push_str(rest.get(..i).unwrap_or("").trim_end_matches(' '));
        rest = match rest.get(i + 2..).and_then(|r| r.find("*/")) {
            Some(j) => rest.get(i + 2 + j + 2..).unwrap_or(""),
            None => "",
        };
    }
    out.push_str(rest);
    out
}

fn plain<'a>(t: &'a str, m: &'a str) -> SplitName<'a> {
    SplitName {
        declaring: Cow::Borrowed(t),
        method: Cow::Borrowed(m),
        ret: None,
        params: Vec::new(),
    }
}

/// True if `s` can be a property name after V8's `get `/`set ` (not a script location,
/// which has a `/` or a `:`).
fn is_property_name(s: &str) -> bool {
    !s.is_empty() && !s.contains(['/', ':'])
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
    // `name script:line:col`; function names have no spaces, script paths may. Getters
    // and setters are named `get prop` / `set prop`.
    let func_end = match rest.split_once(' ') {
        Some((f @ ("get" | "set"), after))
            if after
                .split_once(' ')
                .is_some_and(|(p, _)| is_property_name(p)) =>
        {
            f.len() + 1 + after.find(' ').unwrap_or(after.len())
        }
        Some((f, _)) => f.len(),
        None => rest.len(),
    };
    let func = rest.get(..func_end).unwrap_or(rest);
    let loc = rest.get(func_end..).unwrap_or("").trim_start_matches(' ');
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

/// Index of the closer matching the opener at `open` (`(`/`)`, `[`/`]` or `<`/`>`).
fn matching(s: &str, open: usize) -> Option<usize> {
    let (o, c) = match s.as_bytes().get(open)? {
        b'(' => ('(', ')'),
        b'[' => ('[', ']'),
        b'<' => ('<', '>'),
        _ => return None,
    };
    let mut depth = 0i32;
    for (i, ch) in s.get(open..)?.char_indices() {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth -= 1;
            if depth == 0 {
                return Some(open + i);
            }
        }
    }
    None
}

fn split_dotnet<'a>(name: &'a str) -> Option<SplitName<'a>> {
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
                .map(|a| dotnet_type_bounded(a, &[]))
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
        let c = dotnet_type_bounded(t, &type_args);
        if c == t {
            Cow::Borrowed(t)
        } else {
            Cow::Owned(c)
        }
    };
    Some(SplitName {
        declaring: clean(ty),
        method: Cow::Borrowed(method),
        ret: (!ret.is_empty()).then(|| clean(ret)),
        params: split_params(name.get(open + 1..close)?)
            .into_iter()
            .map(clean)
            .collect(),
    })
}

/// The runtime's name of an IL primitive type.
fn dotnet_primitive(t: &str) -> Option<&'static str> {
    Some(match t {
        "void" => "System.Void",
        "bool" => "System.Boolean",
        "char" => "System.Char",
        "int8" => "System.SByte",
        "uint8" => "System.Byte",
        "int16" => "System.Int16",
        "uint16" => "System.UInt16",
        "int32" => "System.Int32",
        "uint32" => "System.UInt32",
        "int64" => "System.Int64",
        "uint64" => "System.UInt64",
        "float32" => "System.Single",
        "float64" => "System.Double",
        "string" => "System.String",
        "object" => "System.Object",
        "native int" => "System.IntPtr",
        "native uint" => "System.UIntPtr",
        "typedref" => "System.TypedReference",
        _ => return None,
    })
}

/// Generic arguments and arrays nested deeper than this in one .NET type are kept as
/// written: each level of the rewriting rescans the rest of the type, so a crafted perf-map
/// name of 20,000 nested generics took 15 s and 1.6 GB; real types nest a few levels.
const MAX_DOTNET_TYPE_DEPTH: usize = 64;

/// [`dotnet_type`] of `t` if its brackets nest at most [`MAX_DOTNET_TYPE_DEPTH`] deep (so
/// its recursion is that deep at most), else `t` as written.
fn dotnet_type_bounded(t: &str, type_args: &[String]) -> String {
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
    dotnet_type(t, type_args)
}

/// A .NET type as the runtime names it (`Type.ToString()`), from the IL syntax of
/// CoreCLR's perf maps: without `class `/`valuetype ` and `[module]` references, primitive
/// types by their `System.*` names, generic arguments in `[…]`, nested types joined by `+`,
/// `!N` (the declaring type's Nth type parameter) replaced by `type_args[N]` when known,
/// and function pointers as `System.IntPtr`. `!!N` (a method type parameter, which the
/// name never instantiates) stays.
fn dotnet_type(t: &str, type_args: &[String]) -> String {
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
    // The element name runs to the first generic bracket or suffix.
    let name_end = if s.starts_with("native ") {
        s.find(['[', '<', '&', '*']).unwrap_or(s.len())
    } else {
        s.find(['[', '<', '&', '*', ' ']).unwrap_or(s.len())
    };
    let (name, mut rest) = s.split_at(name_end);
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
                        out.push_str(&dotnet_type(a, type_args));
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

/// A Java type as `Class.getName` spells it: arrays as descriptors (`byte[]` → `[B`,
/// `java.lang.String[][]` → `[[Ljava.lang.String;`), other types unchanged.
pub fn java_type_name(t: &str) -> Cow<'_, str> {
    let t = t.trim();
    let mut elem = t;
    let mut dims = 0;
    while let Some(e) = elem.strip_suffix("[]") {
        elem = e.trim_end();
        dims += 1;
    }
    if dims == 0 {
        return Cow::Borrowed(t);
    }
    let code = match elem {
        "boolean" => "Z".to_string(),
        "byte" => "B".to_string(),
        "char" => "C".to_string(),
        "short" => "S".to_string(),
        "int" => "I".to_string(),
        "long" => "J".to_string(),
        "float" => "F".to_string(),
        "double" => "D".to_string(),
        _ => format!("L{elem};"),
    };
    Cow::Owned(format!("{}{code}", "[".repeat(dims)))
}

/// HotSpot perf map: `ret pkg.Type.method(params)`; array types become `Class.getName`
/// spelling.
fn split_hotspot(name: &str) -> Option<SplitName<'_>> {
    let open = name.find('(')?;
    let close = matching(name, open)?;
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
        declaring: java_type_name(ty),
        method: Cow::Borrowed(method),
        ret: Some(java_type_name(ret)),
        params: split_params(name.get(open + 1..close)?)
            .into_iter()
            .map(java_type_name)
            .collect(),
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
            s.ret.map(Cow::into_owned),
            s.params.into_iter().map(Cow::into_owned).collect(),
        )
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn deeply_nested_dotnet_types_are_kept_as_written() {
        let nested = |d: usize| {
            format!(
                "void [lib] NS.A::M({}int32{})[Optimized]",
                "class NS.X`1<".repeat(d),
                ">".repeat(d)
            )
        };
        // Within the bound: rewritten as the runtime names it.
        let (_, _, _, params) = parts(&nested(2));
        assert_eq!(params, strs(&["NS.X`1[NS.X`1[System.Int32]]"]));
        // 20,000 levels (a 400 KB name): kept as written, at once (it took 15 s and 1.6 GB
        // when every level rescanned the rest).
        let (_, _, _, params) = parts(&nested(20_000));
        assert_eq!(params.len(), 1);
        assert!(params[0].starts_with("class NS.X`1<class NS.X`1<"));
        // Each level is `class NS.X`1<` (13 bytes) and its `>`.
        assert_eq!(params[0].len(), 20_000 * 14 + "int32".len());
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
        // Getters and setters (node 18 and 20).
        assert_eq!(
            parts("JS:^get area /tmp/x/getter.js:4:11"),
            ("/tmp/x/getter.js".into(), "get area".into(), None, vec![])
        );
        assert_eq!(
            parts("LazyCompile:*set side /tmp/a b/w.js:10"),
            ("/tmp/a b/w.js".into(), "set side".into(), None, vec![])
        );
        // A function named `get` is not a getter.
        assert_eq!(
            parts("JS:~get /tmp/a b/w.js:3:1"),
            ("/tmp/a b/w.js".into(), "get".into(), None, vec![])
        );
        assert_eq!(
            parts("JS:~get node:internal/util:3:1").0,
            "node:internal/util"
        );
    }

    #[test]
    fn dotnet() {
        assert_eq!(
            parts(
                "void [System.Private.CoreLib] System.Runtime.CompilerServices.CastHelpers::StelemRef(class System.Array,int32,object)[OptimizedTier1]"
            ),
            (
                "System.Runtime.CompilerServices.CastHelpers".into(),
                "StelemRef".into(),
                Some("System.Void".into()),
                strs(&["System.Array", "System.Int32", "System.Object"])
            )
        );
        assert_eq!(
            parts(
                "instance bool [System.Private.CoreLib] System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]::TryGetValue(!0,!1&)[QuickJitted]"
            ),
            (
                "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]".into(),
                "TryGetValue".into(),
                Some("System.Boolean".into()),
                strs(&["System.__Canon", "System.__Canon&"])
            )
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
        // Method-table pointers, `valuetype`, `class`, `[module]`, nested `/`, IL generics.
        let a = parts(
            "Python.Runtime.NewReference /* MT: 0x00007F663DD53F28 */ [Python.Runtime] dynamicClass::IL_STUB_ReversePInvoke(Python.Runtime.BorrowedReference /* MT: 0x00007F663DD537A8 */,native int)[Optimized]",
        );
        let b = parts(
            "Python.Runtime.NewReference /* MT: 0x00007F1109343F28 */ [Python.Runtime] dynamicClass::IL_STUB_ReversePInvoke(Python.Runtime.BorrowedReference /* MT: 0x00007F11093437A8 */,native int)[Optimized]",
        );
        assert_eq!(a, b, "per-run pointers are not part of the identity");
        assert_eq!(
            a,
            (
                "dynamicClass".into(),
                "IL_STUB_ReversePInvoke".into(),
                Some("Python.Runtime.NewReference".into()),
                strs(&["Python.Runtime.BorrowedReference", "System.IntPtr"])
            )
        );
        assert_eq!(
            parts(
                "class Python.Runtime.ClassManager/ClassInfo [Python.Runtime] Python.Runtime.ClassManager::GetClassInfo(class [netstandard]System.Type,valuetype [System.Runtime]System.Span`1<uint8>,class [netstandard]System.Collections.Generic.Dictionary`2<string,class Python.Runtime.PyObject>[],bool&)[Optimized]"
            ),
            (
                "Python.Runtime.ClassManager".into(),
                "GetClassInfo".into(),
                Some("Python.Runtime.ClassManager+ClassInfo".into()),
                strs(&[
                    "System.Type",
                    "System.Span`1[System.Byte]",
                    "System.Collections.Generic.Dictionary`2[System.String,Python.Runtime.PyObject][]",
                    "System.Boolean&"
                ])
            )
        );
        assert_eq!(
            parts("void [System.Private.CoreLib] System.Collections.Generic.ArraySortHelper`1[System.Collections.Generic.KeyValuePair`2[System.__Canon,System.Int32]]::Sort(!0[],int32,class System.Comparison`1<!0>)[QuickJitted]").3,
            strs(&[
                "System.Collections.Generic.KeyValuePair`2[System.__Canon,System.Int32][]",
                "System.Int32",
                "System.Comparison`1[System.Collections.Generic.KeyValuePair`2[System.__Canon,System.Int32]]"
            ])
        );
        // A method type parameter is never instantiated in the name: it stays.
        assert_eq!(
            parts("bool [System.Private.CoreLib] System.Enum::TryParse(string,!!0&)[QuickJitted]")
                .3,
            strs(&["System.String", "!!0&"])
        );
        for n in [
            "class X [M] N.T::F(valuetype Y,class [A]Z,!0)",
            "instance valuetype System.Runtime.Intrinsics.Vector128`1<!0> [System.Private.CoreLib] System.Runtime.Intrinsics.Vector128`1[System.Byte]::get_Zero()[QuickJitted]",
        ] {
            let (d, m, r, p) = parts(n);
            for t in std::iter::once(&d).chain(r.iter()).chain(&p) {
                assert!(
                    !t.contains("class ") && !t.contains("valuetype ") && !t.contains("/*"),
                    "{n}: {t}"
                );
            }
            assert!(!m.is_empty());
        }
        assert_eq!(
            parts("instance valuetype System.Runtime.Intrinsics.Vector128`1<!0> [System.Private.CoreLib] System.Runtime.Intrinsics.Vector128`1[System.Byte]::get_Zero()[QuickJitted]").2,
            Some("System.Runtime.Intrinsics.Vector128`1[System.Byte]".into())
        );
    }

    #[test]
    fn java_hotspot_cpp() {
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
                strs(&["int"])
            )
        );
        // Arrays in Class.getName spelling, as GraalVM writes them.
        assert_eq!(
            parts("java.lang.String[] Threads.split(java.lang.String, int)"),
            (
                "Threads".into(),
                "split".into(),
                Some("[Ljava.lang.String;".into()),
                strs(&["java.lang.String", "int"])
            )
        );
        assert_eq!(parts("long Threads.sumGrid(int[][])").3, strs(&["[[I"]));
        assert_eq!(
            parts("int Threads.checksum(byte[], int)").3,
            strs(&["[B", "int"])
        );
        assert_eq!(java_type_name("boolean[]"), "[Z");
        assert_eq!(
            java_type_name("java.util.Map$Entry[][]"),
            "[[Ljava.util.Map$Entry;"
        );
        assert_eq!(java_type_name("double"), "double");
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
        // C++ thunks: the declaring type is the target's, the thunk stays a method of its own.
        assert_eq!(
            parts("non-virtual thunk to v8::internal::CancelableTask::Run()"),
            (
                "v8::internal::CancelableTask".into(),
                "non-virtual thunk to Run".into(),
                None,
                vec![]
            )
        );
        // C++ parameters keep C++ spelling.
        assert_eq!(
            parts("v8::internal::Heap::Collect(bool, char const*)").3,
            strs(&["bool", "char const*"])
        );
        assert_eq!(
            parts("virtual thunk to std::basic_ostream<char>::~basic_ostream()").0,
            "std::basic_ostream<char>"
        );
        assert_eq!(
            parts("non-virtual thunk to LIRGenerator::block_do").0,
            "LIRGenerator"
        );
    }
}
