//! JIT function names as each runtime writes them (strings taken from real perf maps and
//! jitdumps of .NET 8, Mono 6.8, OpenJDK 17 and 21, CPython 3.13, wasmtime, Erlang/OTP, V8
//! and Rust/C++ binaries) split into the declaring type, method, return and parameter types
//! the iprof output is built from, with per-run ids normalised away; and an `.iprof` of such
//! names, written by `symbolize`, that is schema-valid and carries none of them.

use pgo_merge::passes::symbolize::names::split;

use crate::common::{assert_ok, run_ours, tempdir};

type Parts = (String, String, Option<String>, Vec<String>);

fn parts(n: &str) -> Parts {
    let s = split(n, "(jit)");
    (
        s.declaring.into_owned(),
        s.method.into_owned(),
        s.ret.map(|r| r.into_owned()),
        s.params.into_iter().map(|p| p.into_owned()).collect(),
    )
}

fn p(t: &str, m: &str, ret: Option<&str>, params: &[&str]) -> Parts {
    (
        t.into(),
        m.into(),
        ret.map(Into::into),
        params.iter().map(|s| s.to_string()).collect(),
    )
}

fn check(cases: &[(&str, Parts)]) {
    let mut bad = Vec::new();
    for (name, want) in cases {
        let got = parts(name);
        if &got != want {
            bad.push(format!("{name}\n   got  {got:?}\n   want {want:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn dotnet_compiler_generated_names_keep_their_angle_brackets() {
    check(&[
        (
            "instance void [Work] Work+<LinqStep>c__AnonStorey0::<>m__0(int32)[Optimized]",
            p(
                "Work+<LinqStep>c__AnonStorey0",
                "<>m__0",
                Some("System.Void"),
                &["System.Int32"],
            ),
        ),
        (
            "instance int32 [JitWork] JitWork.Program+<Primes>c__Iterator0::System.Collections.Generic.IEnumerator<int>.get_Current()[InstrumentedTier]",
            p(
                "JitWork.Program+<Primes>c__Iterator0",
                "System.Collections.Generic.IEnumerator<int>.get_Current",
                Some("System.Int32"),
                &[],
            ),
        ),
        (
            "instance bool [App] App.Program+<>c__DisplayClass0_0::<Main>b__0(int32)[QuickJitted]",
            p(
                "App.Program+<>c__DisplayClass0_0",
                "<Main>b__0",
                Some("System.Boolean"),
                &["System.Int32"],
            ),
        ),
        (
            "instance void [App] App.Program+<DoAsync>d__3::MoveNext()[OptimizedTier1]",
            p(
                "App.Program+<DoAsync>d__3",
                "MoveNext",
                Some("System.Void"),
                &[],
            ),
        ),
        // Every `<…>` of a name, not only the first.
        (
            "instance void [App] App.Outer+<A>d__1+<B>d__2::MoveNext()[QuickJitted]",
            p(
                "App.Outer+<A>d__1+<B>d__2",
                "MoveNext",
                Some("System.Void"),
                &[],
            ),
        ),
        // Generic arguments of async state machines.
        (
            "instance void [System.Private.CoreLib] System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1[System.Int64,JitWork.Program+<DoAsync>c__async1]::MoveNext(class System.Threading.Thread)[QuickJitted]",
            p(
                "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1[System.Int64,JitWork.Program+<DoAsync>c__async1]",
                "MoveNext",
                Some("System.Void"),
                &["System.Threading.Thread"],
            ),
        ),
        (
            "instance !0 [App] App.Box`1+<>c__DisplayClass2_0`1[System.__Canon,System.Int32]::<Get>b__0()[QuickJitted]",
            p(
                "App.Box`1+<>c__DisplayClass2_0`1[System.__Canon,System.Int32]",
                "<Get>b__0",
                Some("System.__Canon"),
                &[],
            ),
        ),
        // IL syntax in signatures: nested compiler-generated types, generic arguments.
        (
            "void [App] App.X::F(class App.Program/<>c__DisplayClass0_0,valuetype [System.Runtime]System.Collections.Generic.KeyValuePair`2<string,class App.Program/<>c__DisplayClass0_0>)[QuickJitted]",
            p(
                "App.X",
                "F",
                Some("System.Void"),
                &[
                    "App.Program+<>c__DisplayClass0_0",
                    "System.Collections.Generic.KeyValuePair`2[System.String,App.Program+<>c__DisplayClass0_0]",
                ],
            ),
        ),
        (
            "void [System.Private.CoreLib] System.AppContext::Setup(char**,char**,int32)[PreJIT]",
            p(
                "System.AppContext",
                "Setup",
                Some("System.Void"),
                &["System.Char**", "System.Char**", "System.Int32"],
            ),
        ),
    ]);
}

#[test]
fn dotnet_per_run_ids_are_normalised() {
    check(&[
        (
            "int64 [Anonymously Hosted DynamicMethods Assembly] dynamicClass::lambda_method1(System.Runtime.CompilerServices.Closure /* MT: 0x7f520ebf1620 */,int32)[Optimized]",
            p(
                "dynamicClass",
                "lambda_method",
                Some("System.Int64"),
                &["System.Runtime.CompilerServices.Closure", "System.Int32"],
            ),
        ),
        (
            "stub<1000> AllocateTemporaryEntryPoints<PRECODE_STUB>",
            p(
                "(stub)",
                "AllocateTemporaryEntryPoints<PRECODE_STUB>",
                None,
                &[],
            ),
        ),
        (
            "stub<5> GenerateResolveStub<GenerateResolveStub>",
            p(
                "(stub)",
                "GenerateResolveStub<GenerateResolveStub>",
                None,
                &[],
            ),
        ),
        (
            "stub GenerateVTableCallStub<GenerateVTableCallStub>",
            p(
                "(stub)",
                "GenerateVTableCallStub<GenerateVTableCallStub>",
                None,
                &[],
            ),
        ),
    ]);
}

#[test]
fn mono_jitmap_names() {
    check(&[
        (
            "JitWork.Program/<Worker>c__AnonStorey2:<>m__0 (int)",
            p(
                "JitWork.Program+<Worker>c__AnonStorey2",
                "<>m__0",
                None,
                &["System.Int32"],
            ),
        ),
        (
            "System.Collections.Generic.Dictionary`2<System.Linq.Expressions.ParameterExpression, int>:FindEntry (System.Linq.Expressions.ParameterExpression)",
            p(
                "System.Collections.Generic.Dictionary`2[System.Linq.Expressions.ParameterExpression,System.Int32]",
                "FindEntry",
                None,
                &["System.Linq.Expressions.ParameterExpression"],
            ),
        ),
        (
            "(wrapper managed-to-native) object:__icall_wrapper_mono_monitor_enter_v4_internal (object,intptr)",
            p(
                "System.Object",
                "(wrapper managed-to-native) __icall_wrapper_mono_monitor_enter_v4_internal",
                None,
                &["System.Object", "System.IntPtr"],
            ),
        ),
        (
            "Mono.Globalization.Unicode.SimpleCollator:SetCJKTable (System.Globalization.CultureInfo,Mono.Globalization.Unicode.CodePointIndexer&,byte*&,byte*&,Mono.Globalization.Unicode.CodePointIndexer&,byte*&)",
            p(
                "Mono.Globalization.Unicode.SimpleCollator",
                "SetCJKTable",
                None,
                &[
                    "System.Globalization.CultureInfo",
                    "Mono.Globalization.Unicode.CodePointIndexer&",
                    "System.Byte*&",
                    "System.Byte*&",
                    "Mono.Globalization.Unicode.CodePointIndexer&",
                    "System.Byte*&",
                ],
            ),
        ),
        (
            "System.Array:InternalArray__get_Item<T_REF> (int)",
            p(
                "System.Array",
                "InternalArray__get_Item<T_REF>",
                None,
                &["System.Int32"],
            ),
        ),
        (
            "System.Linq.Expressions.LambdaExpression:System.Linq.Expressions.IParameterProvider.get_ParameterCount ()",
            p(
                "System.Linq.Expressions.LambdaExpression",
                "System.Linq.Expressions.IParameterProvider.get_ParameterCount",
                None,
                &[],
            ),
        ),
        (
            "System.Linq.Enumerable/WhereArrayIterator`1<TSource_REF>:Select<TResult_REF> (System.Func`2<TSource_REF, TResult_REF>)",
            p(
                "System.Linq.Enumerable+WhereArrayIterator`1[TSource_REF]",
                "Select<TResult_REF>",
                None,
                &["System.Func`2[TSource_REF,TResult_REF]"],
            ),
        ),
        (
            "[System.Private.CoreLib] System.Foo:Bar (long,single,double,uint,ulong,sbyte,uintptr)",
            p(
                "System.Foo",
                "Bar",
                None,
                &[
                    "System.Int64",
                    "System.Single",
                    "System.Double",
                    "System.UInt32",
                    "System.UInt64",
                    "System.SByte",
                    "System.UIntPtr",
                ],
            ),
        ),
        ("(null)", p("(jit)", "(null)", None, &[])),
    ]);
}

#[test]
fn jvm_names_and_hidden_classes() {
    check(&[
        (
            "boolean Lambdas$$Lambda/0x0000000800002220.test(java.lang.Object)",
            p(
                "Lambdas$$Lambda",
                "test",
                Some("boolean"),
                &["java.lang.Object"],
            ),
        ),
        (
            "void Wild$$Lambda$14/0x0000000800c0b448.run()",
            p("Wild$$Lambda", "run", Some("void"), &[]),
        ),
        (
            "java.lang.Object java.lang.invoke.LambdaForm$MH/0x00007ff160003000.invoke(java.lang.Object, int)",
            p(
                "java.lang.invoke.LambdaForm$MH",
                "invoke",
                Some("java.lang.Object"),
                &["java.lang.Object", "int"],
            ),
        ),
        // perf's JVMTI agent (libperf-jvmti): class signature, method, descriptor.
        (
            "LLambdas$$Lambda.0x0000000800002220;test(Ljava/lang/Object;)Z",
            p(
                "Lambdas$$Lambda",
                "test",
                Some("boolean"),
                &["java.lang.Object"],
            ),
        ),
        (
            "Ljava/lang/String;hashCode()I",
            p("java.lang.String", "hashCode", Some("int"), &[]),
        ),
        (
            "LThreads;sumGrid([[ILjava/lang/String;[Ljava/lang/Object;)J",
            p(
                "Threads",
                "sumGrid",
                Some("long"),
                &["[[I", "java.lang.String", "[Ljava.lang.Object;"],
            ),
        ),
        // perf-map-agent: `LClass;::method`, with `msig` its descriptor.
        (
            "Ljava/lang/String;::hashCode",
            p("java.lang.String", "hashCode", None, &[]),
        ),
        (
            "Ljava/lang/String;::charAt(I)C",
            p("java.lang.String", "charAt", Some("char"), &["int"]),
        ),
        (
            "java.lang.String::hashCode",
            p("java.lang.String", "hashCode", None, &[]),
        ),
        ("Interpreter", p("(jit)", "Interpreter", None, &[])),
    ]);
}

#[test]
fn cpython_wasmtime_erlang_names() {
    check(&[
        (
            "py::Condition.wait:/root/.pyenv/versions/3.13.0/lib/python3.13/threading.py",
            p(
                "/root/.pyenv/versions/3.13.0/lib/python3.13/threading.py",
                "Condition.wait",
                None,
                &[],
            ),
        ),
        (
            "py::<module>:<string>",
            p("<string>", "<module>", None, &[]),
        ),
        (
            "py::fib.<locals>.inner:/app/x.py",
            p("/app/x.py", "fib.<locals>.inner", None, &[]),
        ),
        (
            "wasm[0]::function[6]",
            p("wasm[0]", "function[6]", None, &[]),
        ),
        (
            "wasm[0]::function[3]::collatz_sum",
            p("wasm[0]", "collatz_sum", None, &[]),
        ),
        (
            "wasm[1]::array_to_wasm_trampoline[2]",
            p("wasm[1]", "array_to_wasm_trampoline[2]", None, &[]),
        ),
        (
            "signatures[0]::wasm_to_array_trampoline",
            p("signatures[0]", "wasm_to_array_trampoline", None, &[]),
        ),
        ("$erlang:apply/2", p("erlang", "apply/2", None, &[])),
        ("lists:foldl/3", p("lists", "foldl/3", None, &[])),
        (
            "$lists:foldl/3-CodeInfoPrologue",
            p("lists", "foldl/3-CodeInfoPrologue", None, &[]),
        ),
        ("$'Elixir.Enum':map/2", p("Elixir.Enum", "map/2", None, &[])),
        (
            "$lists:'-filter/2-lc$^0/1-0-'/2",
            p("lists", "'-filter/2-lc$^0/1-0-'/2", None, &[]),
        ),
        (
            "$global::call_light_bif_shared",
            p("global", "call_light_bif_shared", None, &[]),
        ),
        ("$lists::codeHeader", p("lists", "codeHeader", None, &[])),
    ]);
}

#[test]
fn rust_and_cxx_names() {
    check(&[
        (
            "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop",
            p(
                "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>",
                "drop",
                None,
                &[],
            ),
        ),
        (
            "core::ptr::drop_in_place<alloc::vec::Vec<u8>>",
            p("core::ptr", "drop_in_place<alloc::vec::Vec<u8>>", None, &[]),
        ),
        (
            "std::rt::lang_start_internal::h9f27bd2a3f5c1e14",
            p("std::rt", "lang_start_internal", None, &[]),
        ),
        (
            "<alloc::boxed::Box<dyn core::ops::function::Fn(u32) -> u32> as core::ops::function::FnOnce<(u32,)>>::call_once",
            p(
                "<alloc::boxed::Box<dyn core::ops::function::Fn(u32) -> u32> as core::ops::function::FnOnce<(u32,)>>",
                "call_once",
                None,
                &[],
            ),
        ),
        (
            "core::iter::traits::iterator::Iterator::fold::{{closure}}",
            p(
                "core::iter::traits::iterator::Iterator::fold",
                "{{closure}}",
                None,
                &[],
            ),
        ),
        (
            "hashbrown::map::HashMap<K,V,S,A>::insert",
            p("hashbrown::map::HashMap<K,V,S,A>", "insert", None, &[]),
        ),
        (
            "std::map<int, int>::operator<",
            p("std::map<int, int>", "operator<", None, &[]),
        ),
        (
            "Foo<int>::operator->",
            p("Foo<int>", "operator->", None, &[]),
        ),
        (
            "v8::internal::Heap::Collect(bool, char const*)",
            p(
                "v8::internal::Heap",
                "Collect",
                None,
                &["bool", "char const*"],
            ),
        ),
    ]);
}

/// Per-run ids a name must not carry into a profile.
fn per_run_id(s: &str) -> bool {
    s.contains("/0x")
        || s.contains(".0x")
        || s.contains("MT: 0x")
        || s.contains("lambda_method1")
        || s.contains("stub<")
        || s.contains("$$Lambda$")
        || s.contains("::h")
}

/// A perf map of names of every runtime and a sample in each: the `.iprof` `symbolize`
/// writes is schema-valid, has no NUL, no `[X]` for a compiler-generated `<X>`, and no
/// per-run ids; two runs whose ids differ give the same profile.
#[test]
fn iprof_of_every_runtimes_names_is_clean() {
    let names = [
        "instance void [Work] Work+<LinqStep>c__AnonStorey0::<>m__0(int32)[Optimized]",
        "instance void [App] App.Outer+<A>d__1+<B>d__2::MoveNext()[QuickJitted]",
        "int64 [Anonymously Hosted DynamicMethods Assembly] dynamicClass::lambda_method{N}(System.Runtime.CompilerServices.Closure /* MT: 0x7f520ebf{N} */,int32)[Optimized]",
        "stub<{N}> AllocateTemporaryEntryPoints<PRECODE_STUB>",
        "JitWork.Program/<Worker>c__AnonStorey2:<>m__0 (int)",
        "boolean Lambdas$$Lambda/0x000000080000{N}.test(java.lang.Object)",
        "void Wild$$Lambda${N}/0x0000000800c0b{N}.run()",
        "LLambdas$$Lambda.0x000000080000{N};test(Ljava/lang/Object;)Z",
        "py::Condition.wait:/usr/lib/python3.13/threading.py",
        "wasm[0]::function[3]::collatz_sum",
        "$lists:foldl/3",
        "std::rt::lang_start_internal::h9f27bd2a3f5c1{N}",
        "bool [JitWork] JitWork.Program::<Main>m__2(int64)[QuickJitted]\x000x7f520e42a280 20 int64 X::Y()",
    ];
    let run = |n: u32| -> Vec<u8> {
        let dir = tempdir();
        let mut map = Vec::new();
        let mut text = String::new();
        for (k, name) in names.iter().enumerate() {
            let start = 0x7f00_0000_0000u64 + 0x100 * k as u64;
            map.extend_from_slice(
                format!(
                    "{start:x} 80 {}\n",
                    name.replace("{N}", &format!("{}", 100 + n))
                )
                .as_bytes(),
            );
            text.push_str(&format!(
                "app  4242/4242    1.{:06}: \n\t{:x} [unknown] (/tmp/perf-4242.map)\n\t1234 main (/usr/bin/app)\n\n",
                k + 1,
                start + 4
            ));
        }
        let map_f = dir.path().join("perf-4242.map");
        std::fs::write(&map_f, &map).unwrap();
        let text_f = dir.path().join("samples.txt");
        std::fs::write(&text_f, &text).unwrap();
        let out_f = dir.path().join("out.iprof");
        let out = run_ours([
            "symbolize".as_ref(),
            "--perf-map".as_ref(),
            map_f.as_os_str(),
            "--perf-script".as_ref(),
            text_f.as_os_str(),
            "-o".as_ref(),
            out_f.as_os_str(),
        ]);
        assert_ok(&out, "symbolize");
        std::fs::read(&out_f).unwrap()
    };
    let bytes = run(1);
    crate::iprof::assert_schema_valid(&bytes);
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(!text.contains("\\u0000"), "NUL in {text}");
    let prof = pgo_merge::frontends::iprof::read_profile(&bytes).unwrap();
    let mut all = Vec::new();
    for (_, t) in prof.symbols.types() {
        all.push(t.to_string());
    }
    for (id, m) in prof.symbols.methods() {
        all.push(m.name.to_string());
        assert!(prof.symbols.signature_names(id).len() >= 2, "{}", m.name);
    }
    for s in &all {
        assert!(!per_run_id(s), "per-run id in {s:?}");
        assert!(
            !s.contains("+[") && !s.contains("]c__"),
            "mangled <…> in {s:?}"
        );
    }
    for want in [
        "Work+<LinqStep>c__AnonStorey0",
        "App.Outer+<A>d__1+<B>d__2",
        "JitWork.Program+<Worker>c__AnonStorey2",
        "Lambdas$$Lambda",
        "Wild$$Lambda",
        "/usr/lib/python3.13/threading.py",
        "wasm[0]",
        "lists",
        "std::rt",
        "(stub)",
    ] {
        assert!(all.iter().any(|s| s == want), "{want} missing in {all:?}");
    }
    assert_eq!(run(2), bytes, "two runs whose per-run ids differ");
}
