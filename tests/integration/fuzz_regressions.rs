//! The fuzzing workspace's regression inputs: every file of `fuzz/regressions/<target>/`
//! goes through the body of fuzz target `<target>`, the same code the fuzzer runs
//! (`fuzz/targets.rs`, included here as it is included by the fuzz crate). A file there is
//! an input that crashed a target once; the body must now return normally for it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "../../fuzz/targets.rs"]
#[allow(dead_code)]
mod targets;

fn fuzz_dir() -> PathBuf {
    super::common::root().join("fuzz")
}

/// The file names (without `.rs`) of a folder's Rust files, or its subfolders' names.
fn names(dir: &Path, rust_files: bool) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            if rust_files {
                p.extension().is_some_and(|x| x == "rs")
            } else {
                p.is_dir()
            }
        })
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_regression_input_passes_its_target() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, body) in targets::TARGETS {
        let dir = fuzz_dir().join("regressions").join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.into_iter().filter(|f| f.is_file()) {
            let data = std::fs::read(&f).unwrap();
            ran += 1;
            if let Err(e) = std::panic::catch_unwind(|| body(&data)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {msg}", f.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "regression inputs that fail:\n{}",
        failures.join("\n")
    );
    println!("{ran} regression inputs passed");
}

/// The targets listed in `fuzz/targets.rs`, the fuzz crate's target files and its
/// `[[bin]]` sections are the same set, and every regression folder belongs to a target: a
/// target added on one side only, or a folder whose inputs would never run, fails here.
#[test]
fn fuzz_targets_regression_folders_and_manifest_agree() {
    let listed: BTreeSet<String> = targets::TARGETS
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    let files = names(&fuzz_dir().join("fuzz_targets"), true);
    assert_eq!(
        listed, files,
        "targets.rs's TARGETS vs fuzz/fuzz_targets/*.rs"
    );
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let bins: BTreeSet<String> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| *n != "pgo-merge-fuzz")
        .map(str::to_string)
        .collect();
    assert_eq!(
        listed, bins,
        "targets.rs's TARGETS vs fuzz/Cargo.toml's [[bin]]s"
    );
    let folders = names(&fuzz_dir().join("regressions"), false);
    let strays: Vec<_> = folders.difference(&listed).collect();
    assert!(
        strays.is_empty(),
        "regression folders of no target: {strays:?}"
    );
}

/// Multi-input targets split their bytes at the separator the seed script writes.
#[test]
fn parts_split_at_the_separator() {
    let sep = targets::PART_SEPARATOR;
    let data = [&b"ctl"[..], sep, b"a", sep, sep, b"b"].concat();
    assert_eq!(targets::parts(&data), vec![&b"ctl"[..], b"a", b"", b"b"]);
    assert_eq!(targets::parts(b"only"), vec![&b"only"[..]]);
    let script = std::fs::read_to_string(fuzz_dir().join("seed-corpora.sh")).unwrap();
    let sep_text = String::from_utf8(sep.to_vec()).unwrap();
    assert!(
        script.contains(sep_text.trim()),
        "seed-corpora.sh does not write the separator {sep_text:?}"
    );
}

/// The sample_binary target's round trip (read, write extbinary and binary, read back) holds
/// on every binary sample file of testdata/sample/ and on each single-bit change of two.
#[test]
fn sample_binary_target_round_trips_our_files() {
    let dir = crate::common::root().join("testdata/sample/llvm22");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "afdo"))
        .collect();
    files.sort();
    assert!(files.len() > 50);
    for f in &files {
        targets::sample_binary(&std::fs::read(f).unwrap());
    }
    for name in ["flat.extbinary.afdo", "cs-probe.compress.afdo"] {
        let data = std::fs::read(dir.join(name)).unwrap();
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                targets::sample_binary(&d);
            }
        }
    }
}

/// The sample_gcov target's round trip holds on the create_gcov recordings of
/// testdata/sample/gcov/ and on each single-bit change of one.
#[test]
fn sample_gcov_target_round_trips_our_recordings() {
    let dir = crate::common::root().join("testdata/sample/gcov");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "afdo"))
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    for f in &files {
        targets::sample_gcov(&std::fs::read(f).unwrap());
    }
    let data = std::fs::read(&files[0]).unwrap();
    for i in 0..data.len() {
        for bit in 0..8 {
            let mut d = data.clone();
            d[i] ^= 1 << bit;
            targets::sample_gcov(&d);
        }
    }
}

/// The bolt_fdata target's checks (the merge equals a model keyed by the lines' text, all at
/// once and in batches, and reads back to itself) hold on our recordings of
/// testdata/bolt/, on all of them at once, and on lines made to differ only in how their
/// text spells the same numbers (case, leading zeros) or in name bytes around the space.
#[test]
fn bolt_fdata_target_holds_on_recordings_and_spellings() {
    let dir = crate::common::root().join("testdata/bolt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fdata"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    let mut lbr = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        targets::bolt_fdata(&data);
        if !data.starts_with(b"no_lbr") {
            lbr.extend_from_slice(&data);
        }
    }
    targets::bolt_fdata(&lbr);
    let spellings = b"1 f 1a 1 g 0 0 1\n1 f 1A 1 g 0 0 2\n1 f 01a 1 g 0 0 4\n1 f 1a 1 g 0 00 8\n\
        1 f\t 1a 1 g 0 0 16\n1 f! 1a 1 g 0 0 32\n1 f 1aB 1 g 0 0 64\n1 f 1a 1 g 0 0 128\n\
        1 f 10 1 g 0 7 1\n1 f 9 1 g 0 7 1\n1 f 1a 1 g 0 0 18446744073709551615\n\
        4 f 1a 4 [heap] 40 3\n4 f 1a 4 [heap] 040 3\n3 g 0 5 [stack] f 1\n";
    targets::bolt_fdata(spellings);
    targets::bolt_fdata(
        &[b"no_lbr cycles:u\n", &spellings[..]]
            .concat()
            .replace_lbr(),
    );
}

/// Lines of a no_lbr profile made from branch lines: each keeps its first location and its
/// count.
trait ReplaceLbr {
    fn replace_lbr(&self) -> Vec<u8>;
}

impl ReplaceLbr for Vec<u8> {
    fn replace_lbr(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in self.split(|&b| b == b'\n') {
            let f: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
            if f.len() == 8 {
                out.extend_from_slice(&[f[0], f[1], f[2], f[7]].join(&b' '));
            } else {
                out.extend_from_slice(line);
            }
            out.push(b'\n');
        }
        out
    }
}

/// The gzip target on our raw and indexed recordings compressed, whole and cut short, and
/// on a compressed GraalVM profile: each inflates to what its peek said, or fails cleanly.
#[test]
fn gzip_input_target_holds_on_compressed_recordings() {
    let root = crate::common::root();
    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    };
    for rel in [
        "testdata/profraw/clang19/ir-basic-run1.profraw",
        "testdata/profdata/clang19-ir-llvm19.profdata",
        "testdata/iprof/small-v1.1.0.iprof",
    ] {
        let compressed = gz(&std::fs::read(root.join(rel)).unwrap());
        targets::gzip_input(&compressed);
        for cut in [2, 10, compressed.len() / 2, compressed.len() - 1] {
            targets::gzip_input(&compressed[..cut]);
        }
        targets::gzip_input(&gz(&compressed));
    }
}

/// The correlation target on the lightweight recordings (each binary with a run of its
/// own, in its mode, and with another binary's run), and on binaries cut short and with
/// bytes overwritten across their sections: every case completes or fails cleanly.
#[test]
fn correlate_target_holds_on_recordings_and_damaged_binaries() {
    let dir = crate::common::root().join("testdata/correlate");
    let read = |name: &str| {
        let mut out = Vec::new();
        let f = std::fs::File::open(dir.join(format!("{name}.gz"))).unwrap();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(f), &mut out).unwrap();
        out
    };
    let case = |mode: u8, raw: &[u8], elf: &[u8]| {
        let mut input = vec![mode];
        input.extend_from_slice(targets::PART_SEPARATOR);
        input.extend_from_slice(raw);
        input.extend_from_slice(targets::PART_SEPARATOR);
        input.extend_from_slice(elf);
        targets::correlate(&input);
    };
    for (mode, binary, run) in [
        (0, "exe-pie-O2", "run-pie-1.profraw"),
        (0, "exe-nopie-O0", "run-nopie-1.profraw"),
        (0, "exe-nopie-O0", "run-pie-1.profraw"),
        (1, "dbg14-O0", "dbg-dbg14-O0-1.profraw"),
        (1, "dbg19-O1-gz", "dbg-dbg19-O1-gz-1.profraw"),
        (1, "dbg19-O2-dwarf4", "dbg-dbg19-O2-dwarf4-2.profraw"),
        (0, "m32-bin-O1", "two-m32-bin-O1-1.profraw"),
        (1, "m32-dbg-O1", "two-m32-dbg-O1-2.profraw"),
        (1, "cxx-dbg-O0", "two-cxx-dbg-O0-1.profraw"),
        (0, "s390x-bin-O2", "be-s390x-bin-O2-1.profraw"),
        (1, "s390x-dbg-O1", "be-s390x-dbg-O1-1.profraw"),
        (0, "ppc32-bin-O2", "be-ppc32-bin-O2-1.profraw"),
        (1, "ppc32-dbg-O1", "be-ppc32-dbg-O1-1.profraw"),
        (0, "c23-bin-O2", "two-c23-bin-O2-1.profraw"),
        (1, "c23-dbg-O1", "two-c23-dbg-O1-1.profraw"),
        (0, "mcdc23-bin", "two-mcdc23-bin-1.profraw"),
        (1, "mcdc23-dbg", "two-mcdc23-dbg-1.profraw"),
    ] {
        let (elf, raw) = (read(binary), read(run));
        case(mode, &raw, &elf);
        case(mode ^ 1, &raw, &elf);
        for cut in [0, 64, elf.len() / 3, elf.len() - 1] {
            case(mode, &raw, &elf[..cut]);
        }
        for cut in [8, raw.len() / 2, raw.len() - 1] {
            case(mode, &raw[..cut], &elf);
        }
        let mut damaged = elf.clone();
        for k in 1..=64 {
            let at = damaged.len() * k / 65;
            damaged[at] ^= 0xa5;
            case(mode, &raw, &damaged);
        }
    }
}
