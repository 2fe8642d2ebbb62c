//! JIT symbolisation on five more runtimes, recorded on the project machine by
//! testdata/jit/regenerate.sh (see testdata/jit/README.md): .NET 8 (`dotnet8-work`, JIT code
//! in `/memfd:doublemapper`, checked against `perf inject --jit`; `dotnet8-wxoff`, checked
//! against perf's use of the perf map), Mono (`mono-work`, `--jitmap`), CPython 3.13
//! (`cpython313-perfmap`, `-X perf`; `cpython313-jitdump`, `-X perf_jit`), wasmtime
//! (`wasmtime-jitdump`, `wasmtime-perfmap`) and OpenJDK 21 (`jvm21-lambdas`).
//!
//! For each, in perf script's default layout, in `-F comm,pid,tid,time,ip,sym,dso` and in
//! `-F pid,tid,time,ip,sym,dso` (no comm): every frame perf names from the JIT code we name
//! the same, frame by frame in every sample, and we name no frame perf leaves unknown. The
//! `.iprof` written from each validates against schemas/ and carries the runtime's names
//! without NUL bytes, without `<X>` turned into `[X]`, and without per-run ids (`/0x…`
//! hidden-class addresses, `stub<N>` numbers, code addresses).

use std::collections::BTreeSet;

use pgo_merge::frontends::perf_script::PerfScriptReader;
use pgo_merge::frontends::perfmap::PerfMapReader;
use pgo_merge::passes::symbolize::SymbolizeOptions;

use crate::jit_wild::{
    Agreement, Chains, Code, assert_agrees, compare_chains, iprof_of, methods_named,
};
use crate::jitdump::jit_gz;

/// The three layouts every scenario keeps, by file-name infix: `-F comm,pid,tid,…`, the
/// default one, and `-F pid,tid,…` without comm.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Fields,
    Default,
    NoComm,
}

impl Layout {
    fn suffix(self) -> &'static str {
        match self {
            Layout::Fields => "txt",
            Layout::Default => "default.txt",
            Layout::NoComm => "nocomm.txt",
        }
    }
}

/// One recording: where its code is described, which raw text we read (`raw`, or
/// `raw.mmap` when the code lives in a file mapping), which text is perf's naming
/// (`injected` or `mapped`), and how the chains relate.
#[derive(Clone, Copy, Debug)]
struct Scenario {
    name: &'static str,
    code: Code,
    raw: &'static str,
    expected: &'static str,
    chains: Chains,
    /// At least this many frames perf names in each layout (so that no check is vacuous).
    min_named: u64,
}

const DOTNET8_WORK: Scenario = Scenario {
    name: "dotnet8-work",
    code: Code::JitDump,
    raw: "raw.mmap",
    expected: "injected",
    chains: Chains::Same,
    min_named: 400,
};
const DOTNET8_WXOFF: Scenario = Scenario {
    name: "dotnet8-wxoff",
    code: Code::PerfMap,
    raw: "raw",
    expected: "mapped",
    chains: Chains::Same,
    min_named: 300,
};
const MONO: Scenario = Scenario {
    name: "mono-work",
    code: Code::PerfMap,
    raw: "raw",
    expected: "mapped",
    chains: Chains::Same,
    min_named: 400,
};
const CPYTHON_PERFMAP: Scenario = Scenario {
    name: "cpython313-perfmap",
    code: Code::PerfMap,
    raw: "raw",
    expected: "mapped",
    chains: Chains::Same,
    min_named: 200,
};
const CPYTHON_JITDUMP: Scenario = Scenario {
    name: "cpython313-jitdump",
    code: Code::JitDump,
    raw: "raw",
    expected: "injected",
    chains: Chains::RawIsPrefix,
    min_named: 200,
};
const WASMTIME_JITDUMP: Scenario = Scenario {
    name: "wasmtime-jitdump",
    code: Code::JitDump,
    raw: "raw",
    expected: "injected",
    chains: Chains::Same,
    min_named: 300,
};
const WASMTIME_PERFMAP: Scenario = Scenario {
    name: "wasmtime-perfmap",
    code: Code::PerfMap,
    raw: "raw",
    expected: "mapped",
    chains: Chains::Same,
    min_named: 300,
};
const JVM21: Scenario = Scenario {
    name: "jvm21-lambdas",
    code: Code::PerfMap,
    raw: "raw",
    expected: "mapped",
    chains: Chains::Same,
    min_named: 1000,
};

/// Compares the raw text of `layout` with perf's own naming of the same recording.
fn agreement(s: Scenario, layout: Layout) -> Agreement {
    let suffix = layout.suffix();
    compare_chains(
        s.name,
        s.code,
        &format!("perf-script.{}.{suffix}", s.raw),
        &format!("perf-script.{}.{suffix}", s.expected),
        SymbolizeOptions::default(),
        s.chains,
    )
}

/// Every frame perf names, we name the same (and no other), in this layout.
fn check(s: Scenario, layout: Layout) {
    if let Layout::NoComm = layout {
        // `-F pid,tid,…` starts the sample line with `PID/TID`: read as such, not as a comm.
        let raw = jit_gz(&format!("{}/perf-script.{}.nocomm.txt", s.name, s.raw));
        let mut r = PerfScriptReader::new(&raw);
        let h = r
            .next_sample(&mut Vec::new())
            .expect("raw text")
            .expect("a sample");
        let first = String::from_utf8_lossy(&raw)
            .lines()
            .nth(h.line as usize - 1)
            .unwrap_or_default()
            .to_string();
        assert!(
            h.pid.is_some() && h.tid.is_some() && h.comm.is_empty(),
            "{}: {first:?} read as comm {:?}, pid {:?}, tid {:?}, id {:?}",
            s.name,
            h.comm,
            h.pid,
            h.tid,
            h.id
        );
    }
    let a = agreement(s, layout);
    assert_agrees(&a, &format!("{} ({layout:?} layout)", s.name));
    assert!(
        a.perf_named >= s.min_named,
        "{}: perf named only {} frames: {a:?}",
        s.name,
        a.perf_named
    );
}

macro_rules! layouts {
    ($($scenario:ident: $fields:ident, $default:ident, $nocomm:ident;)*) => {$(
        #[test]
        fn $fields() {
            check($scenario, Layout::Fields);
        }
        #[test]
        fn $default() {
            check($scenario, Layout::Default);
        }
        #[test]
        fn $nocomm() {
            check($scenario, Layout::NoComm);
        }
    )*};
}

layouts! {
    DOTNET8_WORK: dotnet8_work_fields_agree_with_perf_inject,
        dotnet8_work_default_agrees_with_perf_inject,
        dotnet8_work_nocomm_agrees_with_perf_inject;
    DOTNET8_WXOFF: dotnet8_wxoff_fields_agree_with_perf_map,
        dotnet8_wxoff_default_agrees_with_perf_map,
        dotnet8_wxoff_nocomm_agrees_with_perf_map;
    MONO: mono_fields_agree_with_perf_map,
        mono_default_agrees_with_perf_map,
        mono_nocomm_agrees_with_perf_map;
    CPYTHON_PERFMAP: cpython313_perfmap_fields_agree_with_perf_map,
        cpython313_perfmap_default_agrees_with_perf_map,
        cpython313_perfmap_nocomm_agrees_with_perf_map;
    CPYTHON_JITDUMP: cpython313_jitdump_fields_agree_with_perf_inject,
        cpython313_jitdump_default_agrees_with_perf_inject,
        cpython313_jitdump_nocomm_agrees_with_perf_inject;
    WASMTIME_JITDUMP: wasmtime_jitdump_fields_agree_with_perf_inject,
        wasmtime_jitdump_default_agrees_with_perf_inject,
        wasmtime_jitdump_nocomm_agrees_with_perf_inject;
    WASMTIME_PERFMAP: wasmtime_perfmap_fields_agree_with_perf_map,
        wasmtime_perfmap_default_agrees_with_perf_map,
        wasmtime_perfmap_nocomm_agrees_with_perf_map;
    JVM21: jvm21_fields_agree_with_perf_map,
        jvm21_default_agrees_with_perf_map,
        jvm21_nocomm_agrees_with_perf_map;
}

/// .NET 8 runs its JIT code from `/memfd:doublemapper`, a file mapping, and its jitdump also
/// announces the precompiled (ReadyToRun, `[PreJIT]`) code inside the mapped framework DLLs:
/// perf prints those frames relative to the "file". Without the mapping events they are
/// exactly what we miss (and perf inject names); with `--show-mmap-events` (the tests
/// above) we name them all.
#[test]
fn dotnet8_doublemapper_frames_need_mmap_events() {
    // (The layout without comm is checked by the tests above.)
    for layout in [Layout::Fields, Layout::Default] {
        let s = Scenario {
            raw: "raw",
            ..DOTNET8_WORK
        };
        let a = agreement(s, layout);
        assert!(
            a.disagreements.len() > 100,
            "{layout:?}: {} frames missed",
            a.disagreements.len()
        );
        let in_file = |d: &&String| {
            d.contains("unresolved by us")
                && (d.contains("/memfd:doublemapper") || d.contains(".dll\"))"))
        };
        let off: Vec<&String> = a.disagreements.iter().filter(|d| !in_file(d)).collect();
        assert!(off.is_empty(), "{layout:?}: {off:#?}");
        assert!(
            a.disagreements
                .iter()
                .filter(|d| d.contains("/memfd:doublemapper"))
                .count()
                > 50,
            "{layout:?}"
        );
    }
}

/// The CPython jitdump chains: the raw text stops at the first trampoline, perf inject's
/// goes on; the frames we read are named as perf inject names them (the tests above), and
/// the frames beyond are many (the check is not vacuous in either direction).
#[test]
fn cpython313_jitdump_raw_chains_are_prefixes_of_injected_ones() {
    let a = agreement(CPYTHON_JITDUMP, Layout::Default);
    assert!(a.beyond_raw > 500, "{a:?}");
    assert!(a.perf_named > 100, "{a:?}");
}

/// .NET 8 ends some perf map lines with a NUL instead of a newline (`…[QuickJitted]`, NUL,
/// `0x7f… 20 int64 …` on one line; one or two per recording here). perf ends the name at the
/// NUL and ignores the entry glued on after it (`dso__load_perf_map` copies the name as a C
/// string), and so do we, so that every frame is named as perf names it: no name carries the
/// NUL or the next entry, the glued text is kept aside for the warning, and the warning
/// counts the lines.
#[test]
fn dotnet8_perf_map_lines_glued_by_nul_end_at_the_nul() {
    use pgo_merge::frontends::perfmap::NulLines;
    for scenario in ["dotnet8-work", "dotnet8-wxoff"] {
        let bytes = jit_gz(&format!("{scenario}/perf.map"));
        let nuls = bytes.iter().filter(|&&b| b == 0).count();
        assert!(nuls > 0, "{scenario}: no NUL-glued line any more");
        let mut counted = NulLines::default();
        let mut glued = 0;
        for e in PerfMapReader::new(&bytes).entries() {
            let e = e.unwrap_or_else(|e| panic!("{scenario}: {e}"));
            assert!(
                !e.name.contains('\0'),
                "{scenario} line {}: name {:?}",
                e.line,
                e.name
            );
            glued += usize::from(e.glued_entry());
            counted.add(&e);
        }
        assert_eq!(glued, nuls, "{scenario}: every NUL glues an entry on");
        let warning = counted.warning().expect("a warning for NUL lines");
        assert!(warning.contains(&format!("{nuls} lines")), "{warning}");
    }
}

/// The `<X>` tokens a runtime wrote in the names of its code (`<Primes>`, `<lambda>`,
/// `<init>`): identifiers in angle brackets, not generic arguments after a `` `N `` arity.
fn angle_tokens(names: &str) -> BTreeSet<String> {
    let b = names.as_bytes();
    let mut out = BTreeSet::new();
    for (i, _) in names.match_indices('<') {
        if i > 0 && b[i - 1].is_ascii_digit() {
            continue;
        }
        let rest = &names[i + 1..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 && rest[end..].starts_with('>') && !rest.as_bytes()[0].is_ascii_digit() {
            out.insert(rest[..end].to_string());
        }
    }
    out
}

/// The text the runtime wrote about its code (the perf map, or the jitdump's bytes).
fn code_text(s: Scenario) -> String {
    let file = match s.code {
        Code::JitDump => "jit.dump",
        Code::PerfMap => "perf.map",
    };
    String::from_utf8_lossy(&jit_gz(&format!("{}/{file}", s.name))).into_owned()
}

/// The `<X>` tokens of the JIT frames perf names in the default layout, among the frames of
/// the raw text (with [`Chains::RawIsPrefix`], the frames beyond are not ours to name).
fn named_tokens(s: Scenario) -> BTreeSet<String> {
    let raw = jit_gz(&format!("{}/perf-script.{}.default.txt", s.name, s.raw));
    let exp = jit_gz(&format!(
        "{}/perf-script.{}.default.txt",
        s.name, s.expected
    ));
    let mut r = PerfScriptReader::new(&raw);
    let mut e = PerfScriptReader::new(&exp);
    let (mut rf, mut ef) = (Vec::new(), Vec::new());
    let mut out = BTreeSet::new();
    while let (Some(_), Some(_)) = (
        r.next_sample(&mut rf).expect("raw text"),
        e.next_sample(&mut ef).expect("expected text"),
    ) {
        for g in ef.iter().take(rf.len()) {
            let jit = g
                .dso
                .is_some_and(|d| d.contains("/jitted-") || d.starts_with("/tmp/perf-"));
            if jit {
                out.extend(angle_tokens(g.sym));
            }
        }
    }
    out
}

/// Up to 60 bytes either side of byte `i` of `text`.
fn around(text: &str, i: usize) -> &str {
    let mut a = i.saturating_sub(60);
    while !text.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (i + 60).min(text.len());
    while !text.is_char_boundary(b) {
        b += 1;
    }
    &text[a..b]
}

/// `symbolize -o x.iprof` of the default-layout text: schema-valid (checked by
/// `iprof_of`), and the names as the runtime wrote them, the same in every run: no NUL;
/// every `<X>` of a frame perf named is there as `<X>`, and no `<X>` the runtime wrote
/// anywhere is written `[X]`; no hidden-class address, stub number or code address.
fn check_iprof(s: Scenario) {
    let raw = format!("perf-script.{}.default.txt", s.raw);
    let (_, bytes) = iprof_of(s.name, s.code, &raw);
    let text = String::from_utf8_lossy(&bytes);
    let mut problems = Vec::new();
    if bytes.contains(&0) || text.contains("\\u0000") {
        problems.push("a NUL in a name".to_string());
    }
    let named = named_tokens(s);
    eprintln!("{}: <X> in sampled names: {named:?}", s.name);
    for t in &named {
        if !text.contains(&format!("<{t}>")) {
            problems.push(format!("<{t}> missing"));
        }
    }
    for t in angle_tokens(&code_text(s)) {
        if text.contains(&format!("[{t}]")) {
            problems.push(format!("<{t}> written as [{t}]"));
        }
    }
    for (what, pat) in [
        ("a hidden-class address", "/0x"),
        ("a stub number", "stub<"),
    ] {
        if let Some(i) = text.find(pat) {
            problems.push(format!("{what}: …{}…", around(&text, i)));
        }
    }
    if let Some(m) = find_address(&text) {
        problems.push(format!("a code address: {m}"));
    }
    assert!(problems.is_empty(), "{}: {problems:#?}", s.name);
}

/// A hex number of 8 digits or more (`0x7f…`, `0x0000000800001400`): a per-run address.
fn find_address(text: &str) -> Option<String> {
    text.match_indices("0x").find_map(|(i, _)| {
        let digits = text[i + 2..]
            .bytes()
            .take_while(u8::is_ascii_hexdigit)
            .count();
        (digits >= 8).then(|| text[i..i + 2 + digits].to_string())
    })
}

#[test]
fn iprof_of_dotnet8_work() {
    check_iprof(DOTNET8_WORK);
}

#[test]
fn iprof_of_dotnet8_wxoff() {
    check_iprof(DOTNET8_WXOFF);
}

#[test]
fn iprof_of_mono() {
    check_iprof(MONO);
}

#[test]
fn iprof_of_cpython313_perfmap() {
    check_iprof(CPYTHON_PERFMAP);
}

#[test]
fn iprof_of_cpython313_jitdump() {
    check_iprof(CPYTHON_JITDUMP);
}

#[test]
fn iprof_of_wasmtime_jitdump() {
    check_iprof(WASMTIME_JITDUMP);
}

#[test]
fn iprof_of_wasmtime_perfmap() {
    check_iprof(WASMTIME_PERFMAP);
}

#[test]
fn iprof_of_jvm21() {
    check_iprof(JVM21);
}

#[test]
fn angle_tokens_are_identifiers_outside_generic_arguments() {
    let t = angle_tokens(
        "JitWork.Program/<Primes>c__Iterator0:MoveNext () List`1<int> py::<lambda>:f.py <>m__0 \
         Foo.<init>() a<b.c>",
    );
    let want: BTreeSet<String> = ["Primes", "lambda", "init"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(t, want);
}

/// CPython pads each jitdump UNWINDING_INFO record to 8 bytes past its data (72 bytes
/// for 68 of unwinding data): the padding is no fault, and reading the dump warns of nothing.
#[test]
fn cpython313_jitdump_padding_is_no_warning() {
    let dir = crate::common::tempdir();
    let dump = crate::jit_wild::write(
        dir.path(),
        "jit-1.dump",
        &jit_gz("cpython313-jitdump/jit.dump"),
    );
    let out = crate::common::run_ours(["show".as_ref(), dump.as_os_str()]);
    crate::common::assert_ok(&out, "show the CPython jitdump");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("CODE_UNWINDING_INFO") && text.contains("warnings: 0"),
        "{text}"
    );
}

/// perf script prints the inlined functions of a DWARF-unwound (or srcline-expanded) frame
/// as frames of their own, `IP SYM+0xOFF (inlined)`: SYM is the name, `(inlined)` is no
/// part of it (else every offset would be a method of its own).
#[test]
fn inlined_frames_are_named_without_offset() {
    let mut seen = 0;
    for scenario in ["cpython313-perfmap", "cpython313-jitdump"] {
        for layout in [Layout::Default, Layout::Fields, Layout::NoComm] {
            let raw = jit_gz(&format!("{scenario}/perf-script.raw.{}", layout.suffix()));
            let text = String::from_utf8_lossy(&raw);
            seen += text.lines().filter(|l| l.ends_with(" (inlined)")).count();
            let mut r = PerfScriptReader::new(&raw);
            let mut frames = Vec::new();
            while r.next_sample(&mut frames).expect("raw text").is_some() {
                for f in &frames {
                    assert!(
                        !f.sym.contains("(inlined)") && !f.sym.contains("+0x"),
                        "{scenario} {layout:?}: {f:?}"
                    );
                }
            }
        }
    }
    assert!(seen > 100, "{seen} inlined frames");
}

/// The iprof names split as the runtimes mean them: Mono's `Ns.Type/Nested:Method (args)`
/// is method `Method` of the nested type; CPython's `py::qualname:file` keeps the file out
/// of the method name.
#[test]
fn iprof_splits_mono_and_cpython_names() {
    let (p, _) = iprof_of(MONO.name, MONO.code, "perf-script.raw.default.txt");
    let crunch = methods_named(&p, "Crunch");
    assert!(
        crunch.iter().any(|sig| sig[0] == "JitWork.Program"),
        "Mono Crunch: {crunch:?}"
    );
    let next = methods_named(&p, "MoveNext");
    assert!(
        next.iter()
            .any(|sig| sig[0].contains("<Primes>c__Iterator0")),
        "Mono MoveNext: {next:?}"
    );
    for s in [CPYTHON_PERFMAP, CPYTHON_JITDUMP] {
        let (p, _) = iprof_of(
            s.name,
            s.code,
            &format!("perf-script.{}.default.txt", s.raw),
        );
        let glued: Vec<&str> = p
            .symbols
            .methods()
            .map(|(_, m)| m.name)
            .filter(|n| n.contains("py_work.py") || n.starts_with("py::"))
            .collect();
        assert!(glued.is_empty(), "{}: {glued:?}", s.name);
    }
}
