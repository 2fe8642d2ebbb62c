//! Splitting JIT function names into a declaring type, a method name and (when the runtime
//! writes them) return and parameter types, for the iprof methods table. Method identity
//! (type, name, signature) is what GraalVM and merges match on, so the parts are made the
//! same in every run: per-run ids (method-table pointers, hidden-class addresses, stub and
//! dynamic-method counters, Rust's legacy hashes) are left out.
//!
//! Conventions recognised, in this order (docs/jit.md has the table):
//! * **V8** (`JS:`, `LazyCompile:`, `Function:`, `Eval:`, `Script:` code): `KIND:<tier>name
//!   script[:line[:col]]`, tier one of `~ ^ + *`. The declaring type is the script (V8 has no
//!   class in the name; a method `Module._compile` keeps its dotted name); anonymous functions
//!   are named `(anonymous)@line:col` so that two of them in one script stay apart. The tier
//!   is dropped: one JS function compiled by several tiers is one method. Other V8 kinds
//!   (`Builtin:`, `BytecodeHandler:`, `Stub:`, `RegExp:`, `Handler:` …) use the kind as the
//!   declaring type.
//! * **CPython** 3.12+ (`py::qualname:file`), **wasmtime** (`wasm[M]::function[F][::name]`),
//!   **Erlang/OTP** (`$module:function/arity`): [`runtimes`].
//! * **.NET**: CoreCLR's stubs (`stub<N> Kind<Owner>`), Mono's `--jitmap`
//!   (`Type:Method (args)`), CoreCLR's methods (`[instance ][ret ][[module] ]Namespace.Type::
//!   Method(args)[tier]`, tier dropped): [`dotnet`].
//! * **Java**: perf's JVMTI agent and perf-map-agent (`Lpkg/Type;method(descriptor)`,
//!   `Lpkg/Type;::method`), HotSpot's own map (`ret pkg.Type.method(params)`): [`java`].
//! * **C++ and Rust** names from perf (`ns::Class::method`, `<T as Trait>::method`): split at
//!   the last `::` outside brackets (`->` and `operator<` are no brackets); Rust's legacy hash
//!   (`::h0123456789abcdef`) is dropped.
//!
//! Anything else keeps its whole name as the method name and gets the caller's default
//! declaring type.

use std::borrow::Cow;

pub mod dotnet;
pub mod java;
pub mod runtimes;

pub use java::java_type_name;

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
    let conventions: [for<'b> fn(&'b str) -> Option<SplitName<'b>>; 9] = [
        split_v8,
        runtimes::split_cpython,
        dotnet::split_stub,
        runtimes::split_erlang,
        runtimes::split_wasm,
        dotnet::split_mono,
        java::split_descriptor,
        dotnet::split_coreclr,
        java::split_hotspot,
    ];
    if let Some(s) = conventions.iter().find_map(|f| f(name)) {
        return s;
    }
    split_native(name).unwrap_or_else(|| plain(default_type, name))
}

/// C++ and Rust names from perf: the last `::` outside brackets separates the type from the
/// method; Rust's legacy mangling ends names with a per-build hash (`::h` and 16 hex
/// digits), dropped.
fn split_native(name: &str) -> Option<SplitName<'_>> {
    let (t, m) = rsplit_top_level(name, "::")?;
    if t.is_empty() || m.is_empty() {
        return None;
    }
    let hash =
        m.len() == 17 && m.starts_with('h') && m.bytes().skip(1).all(|b| b.is_ascii_hexdigit());
    if !hash {
        return Some(plain(t, m));
    }
    match rsplit_top_level(t, "::") {
        Some((t2, m2)) if !t2.is_empty() && !m2.is_empty() => Some(plain(t2, m2)),
        _ => None,
    }
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

pub(super) fn plain<'a>(t: &'a str, m: &'a str) -> SplitName<'a> {
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

/// Splits at the last `sep` outside `<>`, `[]`, `()` and `{}` (C++ template arguments and
/// Rust's `<T as Trait>` contain `::` too). The `>` of `->` (Rust's `Fn(u32) -> u32`) closes
/// nothing, nor do the brackets of an operator's name (`operator<`, `operator()`).
fn rsplit_top_level<'a>(s: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut found = None;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'o' && is_operator_at(s, i) {
            i += "operator".len();
            i += operator_symbol_len(s.get(i..).unwrap_or(""));
            continue;
        }
        match c {
            b'<' | b'[' | b'(' | b'{' => depth += 1,
            b'>' if i > 0 && b.get(i - 1) == Some(&b'-') => {}
            b'>' | b']' | b')' | b'}' => depth -= 1,
            _ if depth == 0 && s.get(i..).is_some_and(|r| r.starts_with(sep)) => found = Some(i),
            _ => {}
        }
        i += 1;
    }
    let i = found?;
    Some((s.get(..i)?, s.get(i + sep.len()..)?))
}

/// True if C++'s `operator` keyword starts at `i` (not inside another identifier).
fn is_operator_at(s: &str, i: usize) -> bool {
    s.get(i..).is_some_and(|r| r.starts_with("operator"))
        && (i == 0
            || s.as_bytes()
                .get(i - 1)
                .is_some_and(|c| !(c.is_ascii_alphanumeric() || *c == b'_')))
        && !s
            .as_bytes()
            .get(i + "operator".len())
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Bytes of the operator symbol at the start of `r` (`<<`, `->*`, `()`, `[]` …).
fn operator_symbol_len(r: &str) -> usize {
    if r.starts_with("()") || r.starts_with("[]") {
        return 2;
    }
    r.bytes()
        .take_while(|c| b"<>=!+-*/%^&|~,".contains(c))
        .count()
}

/// Splits at top-level commas (outside `<>`, `[]`, `()`), trimming blanks.
pub(super) fn split_params(args: &str) -> Vec<&str> {
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
pub(super) fn matching(s: &str, open: usize) -> Option<usize> {
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
        // The stub's number is per run.
        assert_eq!(
            parts("stub<1> AllocateTemporaryEntryPoints<PRECODE_FIXUP>"),
            (
                "(stub)".into(),
                "AllocateTemporaryEntryPoints<PRECODE_FIXUP>".into(),
                None,
                vec![]
            )
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
