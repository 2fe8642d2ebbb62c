//! `perf script` in every field layout (testdata/jit/layouts/, made by
//! testdata/jit/regenerate_layouts.sh from one recording of node 20 with two worker threads
//! and `--perf-basic-prof`): each layout — with or without comm, ids, time, CPU, period,
//! event, symbol offsets, source lines, mapping and task events, call chains shown or hidden —
//! gives the same samples, and every frame perf names through the perf map we name the same.
//! Two JIT processes in one recording (testdata/jit/two-vms/) resolve in the default layout
//! through the fork events of `--show-task-events`.

use std::path::Path;

use pgo_merge::frontends::code_regions::perf_map_source;
use pgo_merge::frontends::perf_script::PerfScriptReader;
use pgo_merge::ir::code::{SampleFrame, SampleHeader, SampleSource};
use pgo_merge::passes::symbolize::{SampleResolver, SymbolizeOptions, SymbolizerBuilder};

use crate::common::{assert_ok, run_ours, tempdir};
use crate::jitdump::jit_gz;

/// What a layout prints (the `-F` list of regenerate_layouts.sh).
struct Layout {
    name: &'static str,
    comm: bool,
    /// Some id (PID/TID, or a lone pid or tid).
    ids: bool,
    time: bool,
    /// Symbol names.
    sym: bool,
    /// Call chains hidden (`-G`): one frame per sample, on the header line.
    inline: bool,
}

const fn l(
    name: &'static str,
    comm: bool,
    ids: bool,
    time: bool,
    sym: bool,
    inline: bool,
) -> Layout {
    Layout {
        name,
        comm,
        ids,
        time,
        sym,
        inline,
    }
}

const LAYOUTS: [Layout; 21] = [
    l("default", true, true, true, true, false),
    l("full", true, true, true, true, false),
    l("nocomm", false, true, true, true, false),
    l("ipsymdso", false, false, false, true, false),
    l("tid", false, true, true, true, false),
    l("pid", false, true, false, true, false),
    l("comm", true, false, false, true, false),
    l("time", false, false, true, true, false),
    l("all", true, true, true, true, false),
    l("ns", true, true, true, true, false),
    l("notime", true, true, false, true, false),
    l("period", true, true, false, true, false),
    l("misc-tod", true, true, true, true, false),
    l("srcline", true, true, true, true, false),
    l("ip", false, false, false, false, false),
    l("events", true, true, true, true, false),
    l("events-nocomm", false, true, true, true, false),
    l("inline", true, true, true, true, true),
    l("inline-full", true, true, true, true, true),
    l("inline-nocomm", false, true, false, true, true),
    l("inline-ipsym", false, false, false, true, true),
];

/// The perf maps of a scenario directory (`perf-PID.map.gz`), by file name.
fn maps(dir: &str) -> Vec<(String, Vec<u8>)> {
    let root = crate::common::root().join("testdata/jit").join(dir);
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let map = name.strip_suffix(".gz")?.to_string();
            map.starts_with("perf-")
                .then(|| (map.clone(), jit_gz(&format!("{dir}/{map}"))))
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no perf map in {}", root.display());
    v
}

/// All samples of a text: headers with their frames.
fn samples(text: &[u8]) -> Vec<(SampleHeader<'_>, Vec<SampleFrame<'_>>)> {
    let mut r = PerfScriptReader::new(text);
    let mut out = Vec::new();
    let mut f = Vec::new();
    while let Some(h) = r.next_sample(&mut f).expect("perf script text") {
        out.push((h, f.clone()));
    }
    out
}

/// Every sample of `raw` (layout `lay`) against the same sample of the expected text (perf's
/// own names, with the perf map in place): same header fields where printed, same frames,
/// and each frame perf named from the map named the same by us. Returns the frames we
/// resolved.
fn check_layout(lay: &Layout, maps: &[(String, Vec<u8>)]) -> u64 {
    let raw_text = jit_gz(&format!("layouts/raw.{}.txt", lay.name));
    let exp_text = jit_gz(if lay.inline {
        "layouts/mapped.inline.txt"
    } else {
        "layouts/mapped.default.txt"
    });
    check_against(lay, maps, &raw_text, &exp_text)
}

/// [`check_layout`] of a text `raw_text` against perf's names in `exp_text`.
fn check_against(
    lay: &Layout,
    maps: &[(String, Vec<u8>)],
    raw_text: &[u8],
    exp_text: &[u8],
) -> u64 {
    let mut b = SymbolizerBuilder::new();
    for (name, bytes) in maps {
        b.add_source(perf_map_source(Path::new(name), bytes))
            .unwrap();
    }
    let sym = b.build().unwrap();
    let exp = samples(exp_text);
    let mut r = PerfScriptReader::new(raw_text);
    let mut rs = SampleResolver::new(&sym, &SymbolizeOptions::default());
    let (mut frames, mut out, mut mappings) = (Vec::new(), Vec::new(), Vec::new());
    let mut threads = Vec::new();
    let mut k = 0;
    let mut resolved = 0;
    let what = lay.name;
    while let Some(h) = r.next_sample(&mut frames).expect(what) {
        r.take_mappings(&mut mappings);
        for m in mappings.drain(..) {
            rs.add_mapping(m);
        }
        r.take_threads(&mut threads);
        for t in threads.drain(..) {
            rs.add_thread(t);
        }
        let (eh, ef) = exp
            .get(k)
            .unwrap_or_else(|| panic!("{what}: more samples than perf"));
        k += 1;
        let at = format!("{what} line {}", h.line);
        assert_eq!(h.comm, if lay.comm { eh.comm } else { "" }, "{at}");
        assert_eq!(h.pid.or(h.tid).or(h.id).is_some(), lay.ids, "{at}: {h:?}");
        if let Some(t) = h.tid {
            assert_eq!(Some(t), eh.tid.or(eh.id), "{at}");
        }
        assert_eq!(
            h.time_ns.map(|t| t / 1000),
            lay.time.then(|| eh.time_ns.unwrap() / 1000),
            "{at}"
        );
        assert_eq!(frames.len(), ef.len(), "{at}: frames");
        rs.resolve_sample(&h, &frames, &mut out);
        for (i, ((f, g), ours)) in frames.iter().zip(ef).zip(&out).enumerate() {
            let at = format!("{at} frame {i} ({:#x})", f.ip);
            assert_eq!(f.ip, g.ip, "{at}");
            let from_map = g.dso.is_some_and(|d| d.starts_with("/tmp/perf-"));
            if lay.sym && !from_map {
                assert_eq!(f.sym, g.sym, "{at}");
            }
            match ours {
                Some(res) => {
                    assert!(
                        from_map,
                        "{at}: we name it {:?}, perf {:?}",
                        res.name(),
                        g.sym
                    );
                    assert_eq!(res.name(), g.sym, "{at}");
                    resolved += 1;
                }
                None => assert!(
                    !from_map || g.is_unknown(),
                    "{at}: perf names it {:?}, we do not",
                    g.sym
                ),
            }
        }
    }
    assert_eq!(k, exp.len(), "{what}: fewer samples than perf");
    resolved
}

#[test]
fn every_layout_gives_the_same_samples_and_names() {
    let maps = maps("layouts");
    let mut counts = Vec::new();
    for lay in &LAYOUTS {
        counts.push((lay.name, check_layout(lay, &maps)));
    }
    eprintln!("resolved JIT frames per layout: {counts:?}");
    let full = counts.iter().find(|c| c.0 == "default").unwrap().1;
    assert!(full > 100, "{counts:?}");
    for (name, n) in &counts {
        if !name.starts_with("inline") {
            assert_eq!(*n, full, "{name}: {counts:?}");
        } else {
            assert!(*n > 0, "{name}: {counts:?}");
        }
    }
}

/// The folded stacks `symbolize` writes for a text: one line per distinct stack.
fn folded(dir: &Path, maps: &[(String, Vec<u8>)], text: &[u8]) -> (String, String) {
    let mut args: Vec<std::ffi::OsString> = vec!["symbolize".into()];
    for (name, bytes) in maps {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        args.push("--perf-map".into());
        args.push(p.into());
    }
    let input = dir.join("samples.txt");
    std::fs::write(&input, text).unwrap();
    let out_f = dir.join("out.folded");
    args.extend(["--perf-script".into(), input.into()]);
    args.extend(["-o".into(), out_f.clone().into()]);
    let out = run_ours(&args);
    assert_ok(&out, "symbolize");
    (
        std::fs::read_to_string(out_f).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// perf's own folded stacks of a text whose JIT frames perf named through the maps.
fn perf_folded(text: &[u8]) -> String {
    let mut stacks = std::collections::BTreeMap::<String, u64>::new();
    for (h, f) in samples(text) {
        let mut s = h.comm.to_string();
        for fr in f.iter().rev() {
            s.push(';');
            s.push_str(&fr.sym.replace(';', ":"));
        }
        *stacks.entry(s).or_default() += 1;
    }
    stacks.iter().map(|(s, c)| format!("{s} {c}\n")).collect()
}

/// Two node processes, each with its own perf map: in the default layout the worker
/// threads' ids match neither map. The fork events of `--show-task-events` say which process
/// each thread belongs to, and then every frame perf names we name the same; without them
/// the run says how to get them.
#[test]
fn two_vms_resolve_through_task_events() {
    let maps = maps("two-vms");
    assert_eq!(maps.len(), 2);
    let dir = tempdir();
    let expected = perf_folded(&jit_gz("two-vms/mapped.default.txt"));
    let (ours, err) = folded(dir.path(), &maps, &jit_gz("two-vms/raw.tasks.txt"));
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(ours, expected);
    let (plain, err) = folded(dir.path(), &maps, &jit_gz("two-vms/raw.default.txt"));
    assert_ne!(plain, expected);
    assert!(
        err.contains("matches no process") && err.contains("--show-task-events"),
        "{err}"
    );
}

/// Folded stacks re-aggregated without their comm (the first element).
fn without_comm(folded: &str) -> String {
    let mut stacks = std::collections::BTreeMap::<String, u64>::new();
    for l in folded.lines() {
        let (stack, count) = l.rsplit_once(' ').unwrap();
        let frames = stack.split_once(';').map_or("", |(_, f)| f);
        *stacks.entry(frames.to_string()).or_default() += count.parse::<u64>().unwrap();
    }
    stacks.iter().map(|(s, c)| format!("{s} {c}\n")).collect()
}

/// `symbolize` writes the same folded stacks from every layout that names symbols (without
/// the comm where the layout has none), and they are perf's own.
#[test]
fn folded_stacks_are_the_same_in_every_layout() {
    let maps = maps("layouts");
    let dir = tempdir();
    let expected = perf_folded(&jit_gz("layouts/mapped.default.txt"));
    for lay in LAYOUTS.iter().filter(|l| l.sym && !l.inline) {
        let (ours, err) = folded(
            dir.path(),
            &maps,
            &jit_gz(&format!("layouts/raw.{}.txt", lay.name)),
        );
        assert!(!err.contains("warning"), "{}: {err}", lay.name);
        if lay.comm {
            assert_eq!(ours, expected, "{}", lay.name);
        } else {
            assert!(!ours.starts_with(';'), "{}", lay.name);
            assert_eq!(ours, without_comm(&expected), "{}", lay.name);
        }
    }
}

/// A perf map whose entries are glued by NUL bytes (as .NET 8 writes some): perf ends a name
/// at the NUL and ignores the rest of the line, glued entries included. We name every frame
/// as perf does (testdata/jit/nul-map: every second line glued on), write no NUL, and say
/// what happened.
#[test]
fn nul_glued_perf_map_lines_are_read_as_perf_reads_them() {
    let maps = maps("nul-map");
    assert!(maps[0].1.contains(&0));
    let lay = l("full", true, true, true, true, false);
    let raw = jit_gz("nul-map/raw.txt");
    let n = check_against(&lay, &maps, &raw, &jit_gz("nul-map/mapped.txt"));
    assert!(n > 50, "{n}");
    let dir = tempdir();
    let (ours, err) = folded(dir.path(), &maps, &raw);
    assert!(!ours.contains('\0'), "{ours}");
    assert!(
        err.contains("NUL") && err.contains("as perf does") && err.contains("line 1"),
        "{err}"
    );
    let map = dir.path().join(&maps[0].0);
    let out = run_ours([std::ffi::OsStr::new("show"), map.as_os_str()]);
    assert_ok(&out, "show perf map");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("NUL") && text.contains("glued"), "{text}");
}

/// .NET 8 with write-xor-execute (the default) runs JIT code from a file mapping,
/// `/memfd:doublemapper (deleted)`, whose frames perf prints relative to the "file". With only
/// a perf map and no mapping events none resolves; the run says why and what to add. With
/// `--show-mmap-events` they resolve.
#[test]
fn memfd_jit_code_without_mappings_gets_a_hint() {
    let dir = tempdir();
    let maps = vec![(
        "perf-4242.map".to_string(),
        b"0x7f0000002000 100 instance void [JitWork] JitWork.Program::Crunch(int32)[OptimizedTier1]\n"
            .to_vec(),
    )];
    let sample = "dotnet  4242 [000]   100.000001:     250000 cpu-clock: \n\
                  \t            2040 [unknown] (/memfd:doublemapper (deleted))\n\
                  \t            1234 main (/usr/bin/dotnet)\n\n";
    let (ours, err) = folded(dir.path(), &maps, sample.as_bytes());
    assert!(ours.contains("[unknown]"), "{ours}");
    assert!(
        err.contains("warning")
            && err.contains("/memfd:doublemapper (deleted)")
            && err.contains("--show-mmap-events"),
        "{err}"
    );
    let with_mmap = format!(
        "dotnet  4242 [000]   100.000000: PERF_RECORD_MMAP2 4242/4242: [0x7f0000000000(0x10000) @ 0 00:01 5 0]: r-xp /memfd:doublemapper (deleted)\n{sample}"
    );
    let (ours, err) = folded(dir.path(), &maps, with_mmap.as_bytes());
    assert!(!err.contains("warning"), "{err}");
    assert!(ours.contains("JitWork.Program::Crunch"), "{ours}");
}

/// CPython 3.13's jitdump (`-X perf_jit`, testdata/jit/cpython313) rounds each UNWINDING_INFO
/// record's mapped_size up to 16 bytes, beyond its unwinding_size; perf takes mapped_size
/// only as the length to map, so `show` reports no problem with it (it reported one per
/// record), while a real inconsistency still is one.
#[test]
fn cpython313_jitdump_shows_without_false_warnings() {
    let dir = tempdir();
    let dump = dir.path().join("jit-1.dump");
    std::fs::write(&dump, jit_gz("cpython313/jit.dump")).unwrap();
    let out = run_ours([std::ffi::OsStr::new("show"), dump.as_os_str()]);
    assert_ok(&out, "show cpython jitdump");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("CODE_UNWINDING_INFO"), "{text}");
    assert!(text.contains("warnings: 0"), "{text}");
}

/// Every layout's text, cut anywhere and with bytes changed anywhere, reads to an end or to
/// an error naming a line — never a panic — and `sniff` answers.
#[test]
fn damaged_texts_of_every_layout_end_or_fail_cleanly() {
    let mut g = crate::common::Gen(0x5eed);
    for lay in &LAYOUTS {
        let text = jit_gz(&format!("layouts/raw.{}.txt", lay.name));
        for k in 0..60 {
            let mut t = text.clone();
            let cut = g.below(t.len() as u64 + 1) as usize;
            t.truncate(cut.max(1));
            for _ in 0..k % 4 {
                let at = g.below(t.len() as u64) as usize;
                t[at] = [b' ', b'\t', b'\n', b'/', b':', b'[', b'0', 0xff][g.below(8) as usize];
            }
            let _ = pgo_merge::frontends::perf_script::sniff(&t);
            let mut r = PerfScriptReader::new(&t);
            let mut f = Vec::new();
            loop {
                match r.next_sample(&mut f) {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        assert!(e.line().is_some(), "{}: {e}", lay.name);
                        break;
                    }
                }
            }
        }
    }
}
