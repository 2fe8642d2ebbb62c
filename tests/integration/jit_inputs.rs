//! The inputs of JIT symbolisation on their own: every real jitdump, perf map and r2rmap we
//! have (node's in testdata/jit/node-*/; third-party files, which the repository does not
//! hold, in `../shared/testdata-external/{jitdump,perfmap}/`, skipped with a SKIPPED line when
//! absent), compared with an independent reader (the linux-perf-data crate) where one exists,
//! and cut at every offset to check that malformed input is an error with an offset, never a
//! panic.

use std::path::{Path, PathBuf};

use pgo_merge::frontends::code_regions;
use pgo_merge::frontends::jitdump::{self, JitDumpReader, Record};
use pgo_merge::frontends::perfmap::{self, PerfMapReader};
use pgo_merge::passes::symbolize::SymbolizerBuilder;

use crate::common::{assert_ok, run_ours, tempdir};
use crate::jitdump::jit_gz;

/// Path of a third-party file: jitdumps (`*.dump`) are in the shared `jitdump/` folder, perf
/// maps and r2rmaps in `perfmap/`. None (after a SKIPPED line naming `test`) when absent.
fn external_path(test: &str, name: &str) -> Option<PathBuf> {
    let folder = if name.ends_with(".dump") {
        "jitdump"
    } else {
        "perfmap"
    };
    crate::common::external(&format!("{folder}/{name}"), test)
}

/// The bytes of a third-party file (see [`external_path`]).
fn external(test: &str, name: &str) -> Option<Vec<u8>> {
    external_path(test, name).map(|p| std::fs::read(&p).expect("read third-party file"))
}

/// One CODE_LOAD as both readers see it.
type Load = (u64, u32, u32, u64, u64, u64, Vec<u8>, Vec<u8>);

fn our_loads(data: &[u8]) -> (Vec<Load>, Vec<String>) {
    let mut r = JitDumpReader::new(data).expect("header");
    let mut out = Vec::new();
    let mut errors = Vec::new();
    loop {
        match r.next_record() {
            Ok(Some((h, Record::CodeLoad(l)))) => {
                assert_eq!(
                    l.code.len() as u64,
                    l.code_size,
                    "code bytes at {:#x}",
                    h.offset
                );
                out.push((
                    h.timestamp,
                    l.pid,
                    l.tid,
                    l.vma,
                    l.code_addr,
                    l.code_index,
                    l.name.to_vec(),
                    l.code.to_vec(),
                ))
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => errors.push(e.to_string()),
        }
    }
    (out, errors)
}

fn their_loads(data: &[u8]) -> Vec<Load> {
    use linux_perf_data::jitdump::{JitDumpReader, JitDumpRecord};
    let mut r = JitDumpReader::new(std::io::Cursor::new(data)).expect("linux-perf-data header");
    let mut out = Vec::new();
    while let Some(raw) = r.next_record().expect("linux-perf-data record") {
        let ts = raw.timestamp;
        if let JitDumpRecord::CodeLoad(l) = raw.parse().expect("linux-perf-data parse") {
            out.push((
                ts,
                l.pid,
                l.tid,
                l.vma,
                l.code_addr,
                l.code_index,
                l.function_name.as_slice().to_vec(),
                l.code_bytes.as_slice().to_vec(),
            ));
        }
    }
    out
}

/// Our reader and linux-perf-data agree on every CODE_LOAD (time, pid, tid, vma, address,
/// index, name bytes, code bytes) of every valid real file. (The .NET file's last record is
/// truncated; linux-perf-data stops before it, we report it.) The third-party files are
/// skipped when absent; node's are always checked.
#[test]
fn code_loads_agree_with_linux_perf_data() {
    let test = "code_loads_agree_with_linux_perf_data";
    let mut files: Vec<(&str, Vec<u8>, usize, usize)> = vec![
        ("node-work", jit_gz("node-work/jit.dump"), 2472, 0),
        ("node-reuse", jit_gz("node-reuse/jit.dump"), 0, 0),
    ];
    for (name, file, loads, errors) in [
        ("dotnet-partial", "ddprof-jit-dotnet-partial.dump", 8424, 1),
        ("simple-julia", "ddprof-jit-simple-julia.dump", 13, 0),
        ("llvm-jit", "ddprof-llvm-jit-1560413.dump", 20, 0),
    ] {
        if let Some(data) = external(test, file) {
            files.push((name, data, loads, errors));
        }
    }
    for (name, data, want_loads, want_errors) in files {
        let (ours, errors) = our_loads(&data);
        let theirs = their_loads(&data);
        assert_eq!(errors.len(), want_errors, "{name}: {errors:?}");
        if want_loads > 0 {
            assert_eq!(ours.len(), want_loads, "{name}");
        }
        assert_eq!(ours.len(), theirs.len(), "{name}: load counts differ");
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{name}: load {k} differs");
        }
    }
}

/// The third-party jitdumps (each skipped when absent) and node's.
#[test]
fn external_jitdumps_read_with_warnings_and_offsets() {
    let test = "external_jitdumps_read_with_warnings_and_offsets";
    // .NET: truncated tail record reported at its offset, the 8,424 loads before it kept,
    // and the two timestamps that go backwards tolerated.
    if let Some(data) = external(test, "ddprof-jit-dotnet-partial.dump") {
        dotnet_dump_reads_with_a_warning(&data);
    }
    // node: an UNWINDING_INFO before every load, no moves, no close.
    let (h, s) = jitdump::scan(&jit_gz("node-work/jit.dump")).unwrap();
    assert_eq!(h.pad1, 0xDEAD_BEEF);
    assert!(
        s.by_type[0] > 2000 && s.by_type[4] == s.by_type[0],
        "{:?}",
        s.by_type
    );
    assert_eq!((s.by_type[1], s.by_type[3], s.unknown), (0, 0, 0));
    // Julia/LLVM: vma 0 in every load (code_addr is used), debug records walked.
    for (file, loads, debug, entries) in [
        ("ddprof-jit-simple-julia.dump", 13, 8, 38),
        ("ddprof-llvm-jit-1560413.dump", 20, 13, 91),
    ] {
        let Some(data) = external(test, file) else {
            continue;
        };
        let (_, s) = jitdump::scan(&data).unwrap();
        assert_eq!((s.by_type[0], s.by_type[2]), (loads, debug), "{file}");
        assert_eq!(s.debug_entries, (entries, 0), "{file}");
        assert!(s.warnings.is_empty(), "{file}: {:?}", s.warnings);
        let (l, _) = our_loads(&data);
        assert!(
            l.iter().all(|x| x.3 == 0 && x.4 != 0),
            "{file}: vma 0, code_addr set"
        );
    }
    // The UTF-8-mangled Julia dump: garbage flags and an unreadable first record, both
    // reported with offsets; nothing invented.
    let Some(data) = external(test, "ddprof-jit-julia-partial.dump") else {
        return;
    };
    let (_, s) = jitdump::scan(&data).unwrap();
    assert_eq!(s.by_type, [0; 5]);
    assert!(
        s.warnings[0]
            .to_string()
            .starts_with("at offset 0x20: header flags"),
        "{:?}",
        s.warnings
    );
    assert!(
        s.warnings[1].to_string().starts_with("at offset 0x2c:"),
        "{:?}",
        s.warnings
    );
}

fn dotnet_dump_reads_with_a_warning(data: &[u8]) {
    let (h, s) = jitdump::scan(data).unwrap();
    assert_eq!((h.pid, h.elf_mach, h.version), (7, 62, 1));
    assert_eq!(s.by_type, [8424, 0, 0, 0, 0]);
    assert_eq!(s.backwards.0, 2);
    assert!(s.backwards.1 < 20_000, "{:?}", s.backwards);
    assert!(
        s.warnings[0].to_string().contains("at offset 0x328ca0")
            && s.warnings[0].message.contains("712 bytes needed, 352 left"),
        "{:?}",
        s.warnings
    );
}

#[test]
fn node_debug_info_with_corrupted_names_is_walked() {
    // node 20 replaces the first 16 bytes of user-script file names with allocator data;
    // every entry must still be found, inside its function.
    for scenario in ["node-work", "node-reuse"] {
        let data = jit_gz(&format!("{scenario}/jit.dump"));
        let mut r = JitDumpReader::new(&data).unwrap();
        let mut pending = None;
        let (mut entries, mut corrupted) = (0u64, 0u64);
        while let Some((_, rec)) = r.next_record().unwrap() {
            match rec {
                Record::DebugInfo(d) => pending = Some(d),
                Record::CodeLoad(l) => {
                    if let Some(d) = pending.take() {
                        assert_eq!(d.code_addr, l.code_addr);
                        let v: Vec<_> = d.entries(Some(l.code_size)).map(Result::unwrap).collect();
                        assert_eq!(v.len() as u64, d.nr_entry);
                        for e in v {
                            entries += 1;
                            assert!(
                                e.addr >= l.code_addr && e.addr < l.code_addr + l.code_size + 0x100
                            );
                            assert!(e.lineno >= 1);
                            if e.corrupted {
                                corrupted += 1;
                                // The tail of the real name survives.
                                assert!(
                                    e.name.ends_with(b".js"),
                                    "{:?}",
                                    String::from_utf8_lossy(e.name)
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // node-reuse's functions come from `new Function` (no script name to corrupt).
        let min_corrupted = if scenario == "node-work" { 10 } else { 0 };
        assert!(
            entries > 100 && corrupted >= min_corrupted,
            "{scenario}: {entries} entries, {corrupted} corrupted"
        );
    }
}

/// Every prefix of real files: the reader never panics, every error has an offset, and the
/// loads it returns are a prefix of the full file's. (The third-party files are skipped when
/// absent.)
#[test]
fn truncation_at_every_offset() {
    let test = "truncation_at_every_offset";
    let mut files: Vec<Vec<u8>> = [
        "ddprof-llvm-jit-1560413.dump",
        "ddprof-jit-simple-julia.dump",
        "ddprof-jit-julia-partial.dump",
    ]
    .into_iter()
    .filter_map(|f| external(test, f))
    .collect();
    files.push(jit_gz("node-work/jit.dump")[..24_000].to_vec());
    for data in files {
        let (full, _) = our_loads_lenient(&data);
        for n in 0..data.len() {
            let cut = &data[..n];
            match JitDumpReader::new(cut) {
                Err(e) => {
                    assert!(n < 40);
                    assert!(e.offset().is_some());
                }
                Ok(_) => {
                    let (loads, errors) = our_loads_lenient(cut);
                    assert!(full.starts_with(&loads), "cut at {n}");
                    assert!(errors.iter().all(|e| e.offset().is_some()));
                    assert!(jitdump::scan(cut).is_ok());
                }
            }
        }
    }
}

fn our_loads_lenient(data: &[u8]) -> (Vec<(u64, Vec<u8>)>, Vec<pgo_merge::Error>) {
    let Ok(mut r) = JitDumpReader::new(data) else {
        return (Vec::new(), Vec::new());
    };
    let (mut loads, mut errors) = (Vec::new(), Vec::new());
    loop {
        match r.next_record() {
            Ok(Some((_, Record::CodeLoad(l)))) => loads.push((l.code_addr, l.name.to_vec())),
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => errors.push(e),
        }
    }
    (loads, errors)
}

/// Records whose size is below the record header or past the end of the file, patched into
/// a real file: errors with the offset of the bad field or record, the good records kept.
#[test]
fn malformed_record_sizes_in_a_real_file() {
    let Some(data) = external(
        "malformed_record_sizes_in_a_real_file",
        "ddprof-llvm-jit-1560413.dump",
    ) else {
        return;
    };
    let (full, _) = our_loads_lenient(&data);
    // Offsets of every record.
    let mut r = JitDumpReader::new(&data).unwrap();
    let mut offsets = Vec::new();
    let mut loads_before = Vec::new();
    let mut n_loads = 0;
    while let Some((h, rec)) = r.next_record().unwrap() {
        offsets.push(h.offset);
        loads_before.push(n_loads);
        if matches!(rec, Record::CodeLoad(_)) {
            n_loads += 1;
        }
    }
    for (k, &off) in offsets.iter().enumerate() {
        for bad in [0u32, 8, 15, u32::MAX, (data.len() as u64 - off + 1) as u32] {
            let mut d = data.clone();
            let o = off as usize + 4;
            d[o..o + 4].copy_from_slice(&bad.to_le_bytes());
            let (loads, errors) = our_loads_lenient(&d);
            assert_eq!(errors.len(), 1, "record {k} size {bad}");
            let e = &errors[0];
            let want = if bad < 16 { off + 4 } else { off };
            assert_eq!(e.offset(), Some(want), "record {k} size {bad}: {e}");
            // Everything before the bad record is kept, nothing after it is invented.
            assert_eq!(
                loads.as_slice(),
                &full[..loads_before[k]],
                "record {k} size {bad}"
            );
        }
    }
}

#[test]
fn external_maps_read() {
    let test = "external_maps_read";
    let (Some(map), Some(bad), Some(r2r)) = (
        external(test, "ddprof-dotnet.perf-42.map"),
        external(test, "ddprof-synthetic-invalid.perf-1.map"),
        external(test, "System.ComponentModel.EventBasedAsync.ni.r2rmap"),
    ) else {
        return;
    };
    // Real CoreCLR map: every line read, names with spaces kept, upper-case 16-digit
    // starts; three starts repeat (later line = later code).
    let v: Vec<_> = PerfMapReader::new(&map)
        .entries()
        .map(Result::unwrap)
        .collect();
    assert_eq!(v.len(), 2268);
    assert!(v.iter().any(|e| e.name.contains("[OptimizedTier1]")));
    // ddprof's synthetic negative test: the two good lines kept, the three bad ones errors
    // naming lines 3, 4 and 5.
    let v: Vec<_> = PerfMapReader::new(&bad).entries().collect();
    assert_eq!(v.iter().filter(|r| r.is_ok()).count(), 2);
    let lines: Vec<_> = v
        .iter()
        .filter_map(|r| r.as_ref().err())
        .map(|e| e.line())
        .collect();
    assert_eq!(lines, vec![Some(3), Some(4), Some(5)]);
    let mut b = SymbolizerBuilder::new();
    b.add_source(code_regions::perf_map_source(Path::new("perf-1.map"), &bad))
        .unwrap();
    assert_eq!(b.warnings.len(), 3);
    assert!(
        b.warnings[0].to_string().starts_with("perf-1.map: line 3:"),
        "{:?}",
        b.warnings
    );
    // The r2rmap header decoded; 71 methods.
    let r = perfmap::read_r2rmap(&r2r).unwrap();
    assert_eq!(r.header.signature_hex(), "734D59D6DE0E96AA3C77B3E2ED498097");
    assert_eq!(
        (r.header.version, r.header.os, r.header.arch, r.header.abi),
        (1, 2, 3, 1)
    );
    assert_eq!(
        (
            r.header.os_name(),
            r.header.arch_name(),
            r.header.abi_name()
        ),
        ("Linux", "X64", "Default")
    );
    assert_eq!(r.entries.len(), 71);
    assert!(r.warnings.is_empty());
}

/// `show` on each kind, and `symbolize` with an r2rmap at a load base and a perf map.
#[test]
fn show_and_symbolize_with_maps() {
    let test = "show_and_symbolize_with_maps";
    let (Some(r2rmap), Some(invalid_map), Some(llvm_dump), Some(dotnet_map)) = (
        external_path(test, "System.ComponentModel.EventBasedAsync.ni.r2rmap"),
        external_path(test, "ddprof-synthetic-invalid.perf-1.map"),
        external_path(test, "ddprof-llvm-jit-1560413.dump"),
        external_path(test, "ddprof-dotnet.perf-42.map"),
    ) else {
        return;
    };
    let out = run_ours(["show".as_ref(), r2rmap.as_os_str()]);
    assert_ok(&out, "show r2rmap");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("signature: 734D59D6DE0E96AA3C77B3E2ED498097"),
        "{s}"
    );
    assert!(
        s.contains("target OS: 2 (Linux)") && s.contains("target architecture: 3 (X64)"),
        "{s}"
    );
    let out = run_ours(["show".as_ref(), invalid_map.as_os_str()]);
    assert_ok(&out, "show perf map");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("warnings: 3") && s.contains("line 5:"), "{s}");
    let out = run_ours(["show".as_ref(), llvm_dump.as_os_str()]);
    assert_ok(&out, "show jitdump");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("CODE_LOAD                      20"), "{s}");
    assert!(
        s.contains("code address range: 0x7e1304b00000..0x7e1304b00eb0"),
        "{s}"
    );

    // A synthetic perf script over the r2rmap (image at 0x7f0000000000) and the CoreCLR map.
    let t = tempdir();
    let script = t.path().join("perf.txt");
    std::fs::write(
        &script,
        "dotnet 42/42 100.000001:\n\
         \t7f00000115d4 [unknown] ([unknown])\n\
         \t7fb061498095 [unknown] (/tmp/perf-42.map)\n\
         \t7ffff0000000 [unknown] ([unknown])\n\
         \t1234 main (/usr/bin/dotnet)\n\n",
    )
    .unwrap();
    let r2r = format!("{}@0x7f0000000000", r2rmap.display());
    let folded = t.path().join("o.folded");
    let out = run_ours([
        "symbolize".as_ref(),
        "--r2rmap".as_ref(),
        r2r.as_ref(),
        "--perf-map".as_ref(),
        dotnet_map.as_os_str(),
        "--perf-script".as_ref(),
        script.as_os_str(),
        "-o".as_ref(),
        folded.as_os_str(),
    ]);
    assert_ok(&out, "symbolize with maps");
    let f = std::fs::read_to_string(&folded).unwrap();
    assert_eq!(
        f,
        "dotnet;main;[unknown];void [System.Private.CoreLib] System.Runtime.CompilerServices.CastHelpers::StelemRef(class System.Array,int32,object)[OptimizedTier1];Microsoft.CodeAnalysis.EmbeddedAttribute::.ctor() 1\n"
    );
}

/// `data` (a little-endian jitdump of CODE_LOAD and DEBUG_INFO records with intact names)
/// rewritten in big-endian byte order, field by field.
fn to_big_endian(data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    let swap = |d: &mut Vec<u8>, at: usize, n: usize| d[at..at + n].reverse();
    for (at, n) in [
        (0, 4),
        (4, 4),
        (8, 4),
        (12, 4),
        (16, 4),
        (20, 4),
        (24, 8),
        (32, 8),
    ] {
        swap(&mut d, at, n);
    }
    let mut off = 40;
    while off + 16 <= data.len() {
        let id = u32::from_le_bytes(data[off..off + 4].try_into().unwrap());
        let size = u32::from_le_bytes(data[off + 4..off + 8].try_into().unwrap()) as usize;
        for (at, n) in [(0, 4), (4, 4), (8, 8)] {
            swap(&mut d, off + at, n);
        }
        match id {
            0 => {
                for (at, n) in [(16, 4), (20, 4), (24, 8), (32, 8), (40, 8), (48, 8)] {
                    swap(&mut d, off + at, n);
                }
            }
            2 => {
                let nr = u64::from_le_bytes(data[off + 24..off + 32].try_into().unwrap());
                swap(&mut d, off + 16, 8);
                swap(&mut d, off + 24, 8);
                let mut e = off + 32;
                for _ in 0..nr {
                    swap(&mut d, e, 8);
                    swap(&mut d, e + 8, 4);
                    swap(&mut d, e + 12, 4);
                    let nul = data[e + 16..].iter().position(|&b| b == 0).unwrap();
                    e += 16 + nul + 1;
                }
            }
            other => panic!("record type {other} not handled by this converter"),
        }
        off += size;
    }
    d
}

/// Both byte orders: a real file converted to big-endian reads to the same records.
#[test]
fn big_endian_copy_of_a_real_file_reads_the_same() {
    for file in [
        "ddprof-llvm-jit-1560413.dump",
        "ddprof-jit-simple-julia.dump",
    ] {
        let Some(le) = external("big_endian_copy_of_a_real_file_reads_the_same", file) else {
            continue;
        };
        let be = to_big_endian(&le);
        assert!(be.starts_with(b"JiTD"));
        let (a, ea) = our_loads(&le);
        let (b, eb) = our_loads(&be);
        assert!(ea.is_empty() && eb.is_empty());
        assert_eq!(a, b, "{file}");
        let (ha, sa) = jitdump::scan(&le).unwrap();
        let (hb, sb) = jitdump::scan(&be).unwrap();
        assert_eq!(
            (ha.pid, ha.elf_mach, ha.timestamp),
            (hb.pid, hb.elf_mach, hb.timestamp)
        );
        assert_eq!(sa, sb, "{file}");
        // Debug entries too.
        let entries = |d: &[u8]| {
            let mut r = JitDumpReader::new(d).unwrap();
            let mut v = Vec::new();
            while let Some((_, rec)) = r.next_record().unwrap() {
                if let Record::DebugInfo(di) = rec {
                    for e in di.entries(None) {
                        let e = e.unwrap();
                        v.push((e.addr, e.lineno, e.discrim, e.name.to_vec()));
                    }
                }
            }
            v
        };
        let ea = entries(&le);
        assert!(!ea.is_empty());
        assert_eq!(ea, entries(&be), "{file}");
    }
}
