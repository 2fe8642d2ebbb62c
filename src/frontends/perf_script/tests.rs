use super::*;

fn all(text: &str) -> Vec<(SampleHeader<'_>, Vec<ScriptFrame<'_>>)> {
    let mut r = PerfScriptReader::new(text.as_bytes());
    let mut out = Vec::new();
    let mut f = Vec::new();
    while let Some(h) = r.next_sample(&mut f).unwrap() {
        out.push((h, f.clone()));
    }
    out
}

#[test]
fn field_layout() {
    let t = "node 31327/31327  5873.004406: \n\
             \t         1616c54 Builtins_IncHandler (/usr/bin/node)\n\
             \t    7f57827e6a55 [unknown] (/tmp/perf-31327.map)\n\
             \t             15c JS:~Module._compile node:internal/modules/cjs/loader:1483:37 (/tmp/j/jitted-1-2.so)\n\
             \t          c494db v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)\n\
             \n\
             V8 DefaultWorke 31327/31333  5873.004708: \n\
             \t          daaf70 v8::internal::Sweeper::RawSweep (/usr/bin/node)\n";
    let s = all(t);
    assert_eq!(s.len(), 2);
    let (h, f) = &s[0];
    assert_eq!((h.comm, h.pid, h.tid), ("node", Some(31327), Some(31327)));
    assert_eq!(h.time_ns, Some(5_873_004_406_000));
    assert_eq!(h.time_upper(), 5_873_004_406_999);
    assert_eq!(f.len(), 4);
    assert!(f[1].is_unknown());
    assert_eq!(f[1].ip, 0x7f57827e6a55);
    assert_eq!(f[1].dso, Some("/tmp/perf-31327.map"));
    assert_eq!(
        f[2].sym,
        "JS:~Module._compile node:internal/modules/cjs/loader:1483:37"
    );
    assert_eq!(f[3].sym, "v8::internal::(anonymous namespace)::Invoke");
    let d = parse_frame("\t  7f00 foo(int) (/tmp/x.so (deleted))", 1).unwrap();
    assert_eq!((d.sym, d.dso), ("foo(int)", Some("/tmp/x.so (deleted)")));
    let d = parse_frame("\t  7f00 foo(int)", 1).unwrap();
    assert_eq!((d.sym, d.dso), ("foo(int)", None));
    let d = parse_frame("\t  7f00 ([unknown])", 1).unwrap();
    assert_eq!((d.sym, d.dso), (UNKNOWN, Some("[unknown]")));
    assert_eq!(s[1].0.comm, "V8 DefaultWorke");
    assert_eq!(s[1].0.tid, Some(31333));
}

#[test]
fn default_layout_and_inline_frames() {
    let t = "node 32693 [001]  5917.720668:     500250 cpu-clock:pppH: \n\
             \t           14f38 intel_check_word.constprop.0+0x158 (/usr/lib/ld.so)\n\
             \t      1e00000000 [unknown] ([unknown])\n\
             \n";
    let s = all(t);
    let (h, f) = &s[0];
    // The lone id of the default layout is a thread id (or a pid with `-F pid`).
    assert_eq!(
        (h.comm, h.pid, h.tid, h.id),
        ("node", None, None, Some(32693))
    );
    assert_eq!(f[0].sym, "intel_check_word.constprop.0");
    assert_eq!(f[0].sym_off, Some(0x158));
    assert!(!f[0].absolute);
    assert!(f[1].is_unknown());
    assert_eq!(f[1].dso, Some("[unknown]"));
    assert!(sniff(t.as_bytes()));
    // Without call chains the frame is on the header line, with the absolute address.
    let t = "            node     7/8     12.000000001:          1 cycles:u:            14f02 f+0x2 (/x)\n\
             \x20           node     7/9     12.000000002:          1 cycles:u:            14f03 g (/x)\n";
    let s = all(t);
    let (h, f) = &s[0];
    assert_eq!((h.pid, h.tid), (Some(7), Some(8)));
    assert_eq!((h.time_ns, h.time_unit_ns), (Some(12_000_000_001), 1));
    assert_eq!((f.len(), f[0].ip, f[0].sym), (1, 0x14f02, "f"));
    assert!(f[0].absolute);
    assert_eq!((s[1].0.tid, s[1].1[0].sym), (Some(9), "g"));
    assert!(sniff(t.as_bytes()));
}

#[test]
fn headerless_layouts_source_lines_and_task_events() {
    // `-F ip,sym,dso`: empty header lines; `srcline`: source lines under frames.
    let t = "\n\t 17a153b EVP_DecodeUpdate (/usr/bin/node)\n  pem_lib.c:0\n\
             \t 17fe527 PEM_read_bio_ex (/usr/bin/node)\n\n\n\
             \t 17a153c [unknown] (/tmp/perf-1.map)\n\n";
    let s = all(t);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].0.comm, s[0].0.id, s[0].0.time_ns), ("", None, None));
    assert_eq!(s[0].1.len(), 2);
    assert_eq!(s[0].0.line, 2);
    assert!(s[1].1[0].is_unknown());
    assert!(sniff(t.as_bytes()));
    assert!(sniff(b" 9578/9578    893.368861: \n\t 17 f (/x)\n"));
    assert!(sniff(
        b"    0/0         0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
    ));
    assert!(!sniff(b"foo\n# Func Hash:\n1234\n"));
    // `-F +insn`, `+insnlen`: lines under the call chain.
    let t = "node  7328   864.006019: \n\t 1 f (/x)\n ilen: 3\n\n\
             node  7329   864.006020: \n\t 2 g (/x)\n insn: 4c 39 ea\n\n";
    let s = all(t);
    assert_eq!(s.len(), 2);
    assert_eq!(
        (s[1].0.id, s[1].1.len(), s[1].1[0].sym),
        (Some(7329), 1, "g")
    );
    // Task events name the threads of processes.
    let t = "node  9578 [000]   893.593271: PERF_RECORD_FORK(9578:9619):(9578:9578)\n\
             node  9578 [000]   893.344705: PERF_RECORD_COMM exec: node:9578/9578\n\
             a:b  9620 [000]   893.344705: PERF_RECORD_COMM: a:b:9578/9620\n\
             node  9578 [000]   893.600000: PERF_RECORD_EXIT(9578:9619):(9578:9578)\n\
             node  9619 [000]   893.368861:   10101010 cpu-clock:pppH: \n\
             \t 17a153b f (/x)\n\n";
    let mut r = PerfScriptReader::new(t.as_bytes());
    let mut f = Vec::new();
    let h = r.next_sample(&mut f).unwrap().unwrap();
    assert_eq!((h.id, h.line), (Some(9619), 5));
    let mut th = Vec::new();
    r.take_threads(&mut th);
    let pairs: Vec<(u32, u32)> = th.iter().map(|t| (t.pid, t.tid)).collect();
    assert_eq!(pairs, vec![(9578, 9619), (9578, 9578), (9578, 9620)]);
    assert_eq!(r.task_events(), 3);
    let bad = "x 1 1.000000: PERF_RECORD_FORK(1,2)\n";
    let e = PerfScriptReader::new(bad.as_bytes())
        .next_sample(&mut f)
        .unwrap_err();
    assert_eq!(e.line(), Some(1));
}

#[test]
fn mmap_events_are_kept_and_skipped() {
    let t = "swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n\
             node 29684 12409.628898: PERF_RECORD_MMAP2 29684/29684: [0x7f275c092000(0x1bba000) @ 0x892000 fe:00 6185062 2889444505]: r-xp /usr/lib/x86_64-linux-gnu/libnode.so.108\n\
             node 29728/29728 12409.968902: PERF_RECORD_MMAP2 29684/29728: [0x7f26e4603000(0x3c000) @ 0x7f26e4603000 00:00 0 0]: rwxp //anon\n\
             node 29728 12409.968903: PERF_RECORD_COMM: node:29728/29728\n\
             node 29728 12409.970000:     2004008 cpu-clock:pppH: \n\
             \t          d23a79 [unknown] (/usr/lib/x86_64-linux-gnu/libnode.so.108)\n\
             \n\
             x 1 1.000000: PERF_RECORD_MMAP2 1/1: [0x1000(0x10) @ 0 <0123abcd>]: r-xp /a b/c.so\n";
    assert!(sniff(t.as_bytes()));
    let mut r = PerfScriptReader::new(t.as_bytes());
    let mut f = Vec::new();
    let h = r.next_sample(&mut f).unwrap().unwrap();
    assert_eq!((h.id, h.line, f.len()), (Some(29728), 5, 1));
    let mut m = Vec::new();
    r.take_mappings(&mut m);
    assert_eq!(
        m.len(),
        2,
        "the kernel's mapping and the COMM event are skipped"
    );
    assert_eq!(
        (m[0].pid, m[0].tid, m[0].start, m[0].len, m[0].pgoff),
        (29684, 29684, 0x7f275c092000, 0x1bba000, 0x892000)
    );
    assert_eq!(
        m[0].absolute(0xd23a79),
        Some(0x7f275c092000 + 0xd23a79 - 0x892000)
    );
    assert_eq!(m[0].absolute(0x10), None);
    assert_eq!((m[1].tid, m[1].path), (29728, "//anon"));
    assert!(r.next_sample(&mut f).unwrap().is_none());
    r.take_mappings(&mut m);
    assert_eq!((m[2].path, m[2].pgoff), ("/a b/c.so", 0));
    assert_eq!(r.mapping_events(), 3);
    let bad = "x 1 1.000000: PERF_RECORD_MMAP2 1/1: [0x1000 @ 0]: r-xp /a\n";
    let e = PerfScriptReader::new(bad.as_bytes())
        .next_sample(&mut f)
        .unwrap_err();
    assert_eq!(e.line(), Some(1));
    assert!(e.to_string().contains("PID/TID"), "{e}");
}

#[test]
fn errors_name_lines() {
    let t = "node 1/1 1.000001:\n\tzz foo (/x)\n";
    let mut r = PerfScriptReader::new(t.as_bytes());
    let e = r.next_sample(&mut Vec::new()).unwrap_err();
    assert_eq!(e.line(), Some(2));
    let t = "node 1/1 1.000001:\n\t1 foo (/x)\n\nnode 7 1.000002:\n\t1 foo (/x)\n";
    let mut r = PerfScriptReader::new(t.as_bytes());
    let e = r.next_sample(&mut Vec::new()).unwrap_err();
    assert_eq!(e.line(), Some(4));
    let t = "   just: words here\n";
    let e = PerfScriptReader::new(t.as_bytes())
        .next_sample(&mut Vec::new())
        .unwrap_err();
    assert_eq!(e.line(), Some(1));
}
