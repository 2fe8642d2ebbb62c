//! Binary and extbinary sample profiles: our readers and writers against llvm-profdata 19, 22
//! and 23. Inputs: testdata/sample/ (ours: hand-written text, real AutoFDO and pseudo-probe
//! profiles, and their binary forms made by llvm-profdata) and the third-party files in
//! shared/testdata-external/llvm-sample/ (SKIPPED when absent).

use std::path::{Path, PathBuf};

use pgo_merge::backends::sample::binary as bin_out;
use pgo_merge::backends::sample::extbinary::{self as ext_out, ExtBinaryOptions};
use pgo_merge::codec::llvm_hash::ContextHash;
use pgo_merge::codec::sample_binary::SampleMagic;

/// The binary encodings this crate reads (the compact one is recognised, never read).
fn sniff(data: &[u8]) -> Option<SampleMagic> {
    SampleMagic::sniff(data).filter(|&m| m != SampleMagic::CompactBinary)
}
use pgo_merge::codec::unordered_order::merged_insertion_order;
use pgo_merge::frontends::sample::binary as sample_binary;
use pgo_merge::frontends::sample::extbinary as sample_extbinary;
use pgo_merge::frontends::sample::{ReadOptions, TextDialect};
use pgo_merge::ir::sample::{ProfileSymbolList, SampleProfile};

use crate::common::{external_dir, root, tempdir, tool};

/// One output variant: llvm-profdata's options, and ours.
struct Variant {
    name: &'static str,
    args: &'static [&'static str],
    binary: bool,
    opts: ExtBinaryOptions,
    symlist: bool,
    since_22: bool,
}

const fn ext(name: &'static str, args: &'static [&'static str], opts: ExtBinaryOptions) -> Variant {
    Variant {
        name,
        args,
        binary: false,
        opts,
        symlist: false,
        since_22: false,
    }
}

/// Every option off (the default).
fn none() -> ExtBinaryOptions {
    ExtBinaryOptions::default()
}

fn variants() -> Vec<Variant> {
    vec![
        Variant {
            name: "binary",
            args: &["--binary"],
            binary: true,
            opts: none(),
            symlist: false,
            since_22: false,
        },
        ext("extbinary", &["--extbinary"], none()),
        ext("md5", &["--extbinary", "--use-md5"], {
            let mut new_ext_binary_options = none();
            new_ext_binary_options.use_md5 = true;
            new_ext_binary_options
        }),
        ext("compress", &["--extbinary", "--compress-all-sections"], {
            let mut new_ext_binary_options = none();
            new_ext_binary_options.compress_all_sections = true;
            new_ext_binary_options
        }),
        ext(
            "md5-compress",
            &["--extbinary", "--use-md5", "--compress-all-sections"],
            {
                let mut new_ext_binary_options = none();
                new_ext_binary_options.use_md5 = true;
                new_ext_binary_options.compress_all_sections = true;
                new_ext_binary_options
            },
        ),
        ext("partial", &["--extbinary", "--gen-partial-profile"], {
            let mut new_ext_binary_options = none();
            new_ext_binary_options.partial = true;
            new_ext_binary_options
        }),
        Variant {
            symlist: true,
            ..ext("symlist", &["--extbinary"], none())
        },
        Variant {
            symlist: true,
            ..ext(
                "symlist-compress",
                &["--extbinary", "--compress-all-sections"],
                {
                    let mut new_ext_binary_options = none();
                    new_ext_binary_options.compress_all_sections = true;
                    new_ext_binary_options
                },
            )
        },
        Variant {
            since_22: true,
            ..ext("split", &["--extbinary", "--split-layout"], {
                let mut new_ext_binary_options = none();
                new_ext_binary_options.split_layout = true;
                new_ext_binary_options
            })
        },
        Variant {
            since_22: true,
            ..ext(
                "vtables",
                &["--extbinary", "--extbinary-write-vtable-type-prof"],
                {
                    let mut new_ext_binary_options = none();
                    new_ext_binary_options.vtable_types = true;
                    new_ext_binary_options
                },
            )
        },
    ]
}

/// The symbol list file of testdata/sample/.
fn symlist_file() -> PathBuf {
    root().join("testdata/sample/prof-sym-list.txt")
}

/// Reads a binary or extbinary sample profile our way.
fn read_ours(path: &Path) -> Result<SampleProfile, String> {
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    match sniff(&data) {
        Some(SampleMagic::Binary) => sample_binary::read(&data),
        Some(SampleMagic::ExtBinary) => sample_extbinary::read(&data),
        Some(SampleMagic::CompactBinary) | None => {
            return Err("not a binary sample profile".into());
        }
    }
    .map_err(|e| format!("{e} (offset {:?})", e.offset()))
}

/// Reads a binary or extbinary sample profile as the drop-in of `version` reads it (LLVM 19
/// refuses extbinary files with vtable type counts).
fn read_ours_for(path: &Path, version: &str) -> Result<SampleProfile, String> {
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let options = ReadOptions {
        text: TextDialect::for_llvm(version.parse().unwrap()),
        ..ReadOptions::default()
    };
    pgo_merge::frontends::sample::read(&data, &options).map_err(|e| e.to_string())
}

/// What `llvm-profdata-<version> merge --sample` of one input writes, our way.
fn write_ours(input: &SampleProfile, v: &Variant, version: &str) -> Result<Vec<u8>, String> {
    let mut input = input.clone();
    // LLVM 23 keys calling contexts by another hash: its maps iterate in another order.
    input.context_hash = ContextHash::for_llvm(version.parse().unwrap());
    let input = &input;
    let mut p = input.clone();
    // The merge of one input: the output map is filled in the input map's order.
    p.insertion_order = merged_insertion_order([input]);
    if v.symlist {
        let text = std::fs::read_to_string(symlist_file()).unwrap();
        let list = p.symbol_list.get_or_insert_with(ProfileSymbolList::default);
        for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            list.names.insert(l.as_bytes().into());
        }
    }
    if v.binary {
        bin_out::write(&p)
    } else {
        ext_out::write(&p, &v.opts)
    }
    .map_err(|e| e.to_string())
}

/// Binary and extbinary sample files: ours (testdata/sample) and third-party ones.
fn binary_inputs(test: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let ours = root().join("testdata/sample");
    for dir in [ours.join("llvm22"), ours.join("llvm19"), ours.clone()] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "afdo") {
                    v.push(p);
                }
            }
        }
    }
    let ext_dir = external_dir().join("llvm-sample");
    match std::fs::read_dir(&ext_dir) {
        Ok(rd) => {
            for e in rd.flatten() {
                let p = e.path();
                if std::fs::read(&p).is_ok_and(|d| sniff(&d).is_some()) {
                    v.push(p);
                }
            }
        }
        Err(_) => eprintln!(
            "SKIPPED {test} (third-party part): {} is absent",
            ext_dir.display()
        ),
    }
    v.sort();
    v
}

/// Runs llvm-profdata merge; returns the output bytes, or the error message.
fn llvm_merge(tool: &Path, input: &Path, v: &Variant, dir: &Path) -> Result<Vec<u8>, String> {
    let out = dir.join("llvm.afdo");
    let _ = std::fs::remove_file(&out);
    let mut cmd = std::process::Command::new(tool);
    cmd.arg("merge").arg("--sample").args(v.args);
    if v.symlist {
        cmd.arg(format!("--prof-sym-list={}", symlist_file().display()));
    }
    cmd.arg(input).arg("-o").arg(&out);
    let o = cmd.output().unwrap();
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(std::fs::read(&out).unwrap())
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!(
        "first difference at byte {at} (ours {} bytes, LLVM {} bytes)",
        a.len(),
        b.len()
    )
}

/// Compares our output of `input` in variant `v` with llvm-profdata-`version`'s: `None` if
/// there was nothing to compare (both refused, or a refusal of ours that is deliberate),
/// else whether they are the same bytes (a description of the difference if not; both
/// files are kept in the temporary directory for inspection).
fn judge(
    version: &str,
    input: &Path,
    v: &Variant,
    ours: Result<Vec<u8>, String>,
    theirs: Result<Vec<u8>, String>,
) -> Option<Result<(), String>> {
    match (ours, theirs) {
        (Ok(a), Ok(b)) if a == b => Some(Ok(())),
        (Ok(a), Ok(b)) => {
            let keep = std::env::temp_dir().join(format!("pgo-merge-sample-diffs-{version}"));
            let _ = std::fs::create_dir_all(&keep);
            let stem = format!(
                "{}.{}",
                input.file_name().unwrap().to_string_lossy(),
                v.name
            );
            let _ = std::fs::write(keep.join(format!("{stem}.ours")), &a);
            let _ = std::fs::write(keep.join(format!("{stem}.llvm")), &b);
            Some(Err(format!(
                "{} [{}]: {}",
                input.display(),
                v.name,
                first_difference(&a, &b)
            )))
        }
        (Err(_), Err(_)) => None,
        // LLVM writes split layouts of context-sensitive profiles it cannot read back; we
        // refuse them. Anything else must agree.
        (Err(e), Ok(_)) if v.opts.split_layout && e.contains("context-sensitive") => None,
        (Ok(_), Err(e)) => Some(Err(format!(
            "{} [{}]: we wrote, llvm-profdata-{version} failed: {e}",
            input.display(),
            v.name
        ))),
        (Err(e), Ok(_)) => Some(Err(format!(
            "{} [{}]: we failed ({e}), llvm-profdata-{version} wrote",
            input.display(),
            v.name
        ))),
    }
}

fn check_rewrites(version: &str) {
    let test = "sample_binary_rewrites_are_byte_identical";
    let Some(llvm) = tool(&format!("llvm-profdata-{version}"), test) else {
        return;
    };
    let dir = tempdir();
    let mut failures = Vec::new();
    let mut compared = 0;
    for input in binary_inputs(test) {
        let ours_in = read_ours_for(&input, version);
        for v in variants() {
            if v.since_22 && version == "19" {
                continue;
            }
            let theirs = llvm_merge(&llvm, &input, &v, dir.path());
            let ours = ours_in.clone().and_then(|p| write_ours(&p, &v, version));
            match judge(version, &input, &v, ours, theirs) {
                Some(Ok(())) => compared += 1,
                Some(Err(f)) => {
                    compared += 1;
                    failures.push(f);
                }
                None => {}
            }
        }
    }
    assert!(compared > 50, "only {compared} comparisons");
    assert!(
        failures.is_empty(),
        "{} of {compared} outputs differ from llvm-profdata-{version}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn binary_inputs_rewritten_like_llvm_profdata_22() {
    check_rewrites("22");
}

#[test]
fn binary_inputs_rewritten_like_llvm_profdata_19() {
    check_rewrites("19");
}

#[test]
fn binary_inputs_rewritten_like_llvm_profdata_23() {
    check_rewrites("23");
}

/// Every prefix of a real extbinary file is an error naming an offset inside the prefix.
#[test]
fn every_truncation_of_an_extbinary_file_is_an_error_with_offset() {
    let test = "every_truncation_of_an_extbinary_file_is_an_error_with_offset";
    let mut files: Vec<PathBuf> = [
        "testdata/sample/llvm22/flat.extbinary.afdo",
        "testdata/sample/llvm22/flat.md5-compress.afdo",
        "testdata/sample/llvm22/cs-probe.symlist-compress.afdo",
        "testdata/sample/llvm22/probe.split.afdo",
        "testdata/sample/real-probe.profgen.extbinary.afdo",
        "testdata/sample/real-autofdo.profgen.extbinary.afdo",
    ]
    .iter()
    .map(|p| root().join(p))
    .collect();
    for name in [
        "derived-sample-profile.extbinary.afdo",
        "derived-sample-profile.md5.extbinary.afdo",
        "derived-cs-sample-preinline-probe.extbinary.afdo",
        "profparser-unknown.section.compressed.extbin.profdata",
        "profparser-sample-nametable-after-samples.profdata",
    ] {
        if let Some(p) = crate::common::external(&format!("llvm-sample/{name}"), test) {
            files.push(p);
        }
    }
    for f in files {
        let data = std::fs::read(&f).unwrap();
        sample_extbinary::read(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for cut in 0..data.len() {
            let e = sample_extbinary::read(&data[..cut])
                .err()
                .unwrap_or_else(|| {
                    panic!("{} cut to {cut} bytes reads without error", f.display())
                });
            let at = e
                .offset()
                .unwrap_or_else(|| panic!("{} cut to {cut}: no offset in {e}", f.display()));
            assert!(
                at <= cut as u64,
                "{} cut to {cut}: offset {at} is past the end ({e})",
                f.display()
            );
        }
    }
}

/// Our outputs read back with llvm-profdata show, for every variant of one input of each kind
/// (the byte-identity tests cover the rest).
#[test]
fn our_outputs_read_back_with_llvm_profdata_show() {
    let test = "our_outputs_read_back_with_llvm_profdata_show";
    let tools: Vec<PathBuf> = ["llvm-profdata-19", "llvm-profdata-22"]
        .iter()
        .filter_map(|t| tool(t, test))
        .collect();
    let dir = tempdir();
    for name in [
        "flat",
        "cs",
        "probe",
        "cs-probe",
        "preinlined",
        "real-probe",
    ] {
        let input = root().join(format!("testdata/sample/llvm22/{name}.extbinary.afdo"));
        let p = read_ours(&input).unwrap();
        for v in variants() {
            let Ok(bytes) = write_ours(&p, &v, "22") else {
                continue;
            };
            let out = dir.path().join(format!("{name}.{}.afdo", v.name));
            std::fs::write(&out, &bytes).unwrap();
            for llvm in &tools {
                // LLVM 19 cannot read what only 22 writes (`--extbinary-write-vtable-type-prof`).
                if v.since_22 && v.opts.vtable_types && llvm.ends_with("llvm-profdata-19") {
                    continue;
                }
                let o = std::process::Command::new(llvm)
                    .args(["show", "--sample"])
                    .arg(&out)
                    .output()
                    .unwrap();
                assert!(
                    o.status.success(),
                    "{} read by {}: {}",
                    out.display(),
                    llvm.display(),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
}

/// Text inputs (ours and third-party), alone and in merges, through the whole sample merge
/// (reader, merge, writer) against llvm-profdata merge --sample with every output variant.
fn check_merges(version: &str) {
    use pgo_merge::pipeline::{self, NoProgress, SampleFormat, SampleMergeRequest};
    let test = "sample_merges_are_byte_identical";
    let Some(llvm) = tool(&format!("llvm-profdata-{version}"), test) else {
        return;
    };
    let ours_dir = root().join("testdata/sample");
    let mut jobs: Vec<Vec<PathBuf>> = Vec::new();
    let mut texts: Vec<PathBuf> = std::fs::read_dir(&ours_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".prof.txt"))
        .collect();
    let ext_dir = external_dir().join("llvm-sample");
    match std::fs::read_dir(&ext_dir) {
        Ok(rd) => texts.extend(rd.flatten().map(|e| e.path()).filter(|p| {
            std::fs::read(p).is_ok_and(|d| sniff(&d).is_none() && !d.starts_with(b"adcg"))
                && p.extension().is_some_and(|x| x != "md")
        })),
        Err(_) => eprintln!(
            "SKIPPED {test} (third-party part): {} is absent",
            ext_dir.display()
        ),
    }
    texts.sort();
    jobs.extend(texts.iter().map(|p| vec![p.clone()]));
    // Merges: two flat profiles (saturating counts), and texts with binary forms of themselves.
    jobs.push(vec![
        ours_dir.join("flat.prof.txt"),
        ours_dir.join("flat-second.prof.txt"),
    ]);
    // Not here: names merged with MD5 names (flat-second.prof.txt + llvm22/flat.md5.afdo).
    // LLVM keys top-level profiles by hash, so a name and its MD5 merge into one profile; our
    // merge keeps them apart (see the CHANGELOG).
    jobs.push(vec![
        ours_dir.join("cs-probe.prof.txt"),
        ours_dir.join("llvm22/cs-probe.compress.afdo"),
    ]);
    jobs.push(vec![
        ours_dir.join("probe.prof.txt"),
        ours_dir.join("llvm22/probe.symlist.afdo"),
        ours_dir.join("probe.prof.txt"),
    ]);
    let dir = tempdir();
    let mut failures = Vec::new();
    let mut compared = 0;
    for inputs in &jobs {
        for v in variants() {
            if v.since_22 && version == "19" {
                continue;
            }
            let theirs_path = dir.path().join("llvm.afdo");
            let _ = std::fs::remove_file(&theirs_path);
            let mut cmd = std::process::Command::new(&llvm);
            cmd.arg("merge").arg("--sample").args(v.args);
            if v.symlist {
                cmd.arg(format!("--prof-sym-list={}", symlist_file().display()));
            }
            cmd.args(inputs).arg("-o").arg(&theirs_path);
            let o = cmd.output().unwrap();
            let theirs = if o.status.success() {
                Ok(std::fs::read(&theirs_path).unwrap())
            } else {
                Err(String::from_utf8_lossy(&o.stderr).into_owned())
            };
            let ours_path = dir.path().join("ours.afdo");
            let mut req = SampleMergeRequest::default();
            req.inputs = inputs.clone();
            req.output = Some(ours_path.clone());
            req.output_format = if v.binary {
                SampleFormat::Binary
            } else {
                SampleFormat::ExtBinary
            };
            req.target_llvm = Some(version.parse().unwrap());
            req.threads = 2;
            req.extbinary = v.opts;
            req.prof_sym_list = v.symlist.then(symlist_file);
            let ours = pipeline::merge_sample(&req, &NoProgress)
                .map(|_| std::fs::read(&ours_path).unwrap())
                .map_err(|e| e.to_string());
            let what = format!(
                "{} [{}]",
                inputs
                    .iter()
                    .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(" + "),
                v.name
            );
            match (ours, theirs) {
                (Ok(a), Ok(b)) => {
                    compared += 1;
                    if a != b {
                        let keep =
                            std::env::temp_dir().join(format!("pgo-merge-sample-diffs-{version}"));
                        let _ = std::fs::create_dir_all(&keep);
                        let stem = what.replace([' ', '[', ']', '+'], "_");
                        let _ = std::fs::write(keep.join(format!("{stem}.ours")), &a);
                        let _ = std::fs::write(keep.join(format!("{stem}.llvm")), &b);
                        failures.push(format!("{what}: {}", first_difference(&a, &b)));
                    }
                }
                (Err(_), Err(_)) => {}
                (Ok(_), Err(e)) => failures.push(format!(
                    "{what}: we wrote, llvm-profdata-{version} failed: {}",
                    e.trim()
                )),
                (Err(e), Ok(_)) => {
                    if !(v.opts.split_layout && e.contains("context-sensitive")) {
                        failures.push(format!(
                            "{what}: we failed ({e}), llvm-profdata-{version} wrote"
                        ))
                    }
                }
            }
        }
    }
    assert!(compared > 50, "only {compared} comparisons");
    assert!(
        failures.is_empty(),
        "{} of {compared} merges differ from llvm-profdata-{version}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn text_inputs_and_merges_written_like_llvm_profdata_22() {
    check_merges("22");
}

#[test]
fn text_inputs_and_merges_written_like_llvm_profdata_19() {
    check_merges("19");
}

#[test]
fn text_inputs_and_merges_written_like_llvm_profdata_23() {
    check_merges("23");
}

/// Hand-made damage: each is an error with an offset, never a panic or a huge allocation.
#[test]
fn damaged_binary_sample_profiles_are_errors_with_offsets() {
    use pgo_merge::bytes::leb128::write_uleb as uleb;
    use pgo_merge::codec::sample_binary::SampleMagic;
    const BINARY_MAGIC: u64 = SampleMagic::Binary.value();
    const EXT_BINARY_MAGIC: u64 = SampleMagic::ExtBinary.value();
    // A binary profile: header, empty summary, one name "f", then `body`.
    let binary = |body: &[u8]| {
        let mut v = Vec::new();
        uleb(&mut v, BINARY_MAGIC);
        uleb(&mut v, 103);
        v.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // summary without entries
        v.extend_from_slice(&[1, b'f', 0]); // name table
        v.extend_from_slice(body);
        v
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // head 1, name 0, total 1, 4294967295 records, then nothing.
        (
            "record count far beyond the data",
            binary(&[1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]),
        ),
        (
            "record count above 32 bits",
            binary(&[1, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10]),
        ),
        ("name index past the table", binary(&[1, 7, 1, 0, 0])),
        (
            "line offset above 65535",
            binary(&[1, 0, 1, 1, 0x80, 0x80, 0x04, 0, 1, 0, 0]),
        ),
        (
            "call target index past the table",
            binary(&[1, 0, 1, 1, 1, 0, 1, 1, 9, 1, 0]),
        ),
        ("ULEB128 longer than 64 bits", binary(&[0xff; 11])),
        ("version 102", {
            let mut v = Vec::new();
            uleb(&mut v, BINARY_MAGIC);
            uleb(&mut v, 102);
            v
        }),
    ];
    for (what, data) in &cases {
        let e = sample_binary::read(data).expect_err(what);
        assert!(e.offset().is_some(), "{what}: no offset in {e}");
    }
    // Inlined callees nest as deep as the file says (as in LLVM; tests/integration/
    // sample_deep.rs goes to 20,000 levels): 2,000 read, and a cut inside is an error.
    let mut deep = vec![1, 0]; // head, name
    for _ in 0..2000 {
        deep.extend_from_slice(&[1, 0, 1, 1, 0, 0]); // total, 0 records, 1 callsite at 1.0 -> f
    }
    deep.extend_from_slice(&[1, 0, 0]);
    sample_binary::read(&binary(&deep)).expect("deep nesting");
    let e = sample_binary::read(&binary(&deep[..deep.len() - 2])).expect_err("cut");
    assert!(e.offset().is_some(), "cut: no offset in {e}");

    // Extbinary: a section table entry pointing past the end; an absurd uncompressed size.
    let ext = |entries: &[[u64; 4]], tail: &[u8]| {
        let mut v = Vec::new();
        uleb(&mut v, EXT_BINARY_MAGIC);
        uleb(&mut v, 103);
        v.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for e in entries {
            for x in e {
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        v.extend_from_slice(tail);
        v
    };
    let start = 10 + 8 + 32;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("section past the end", ext(&[[1, 0, start, 100]], &[0; 6])),
        ("section offset overflows", ext(&[[1, 0, u64::MAX, 2]], &[])),
        ("section count beyond the data", {
            let mut v = ext(&[], &[]);
            let n = v.len() - 8;
            v[n..].copy_from_slice(&u64::MAX.to_le_bytes());
            v
        }),
        (
            "1 TiB uncompressed section",
            ext(
                &[[2, 1, start, 8]],
                &[0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 0],
            ),
        ),
        (
            "bad zlib data",
            ext(&[[2, 1, start, 6]], &[10, 4, 1, 2, 3, 4]),
        ),
        (
            "summary with bytes left over",
            ext(&[[1, 0, start, 8]], &[0, 0, 0, 0, 0, 0, 0, 0]),
        ),
        ("context with no frames", ext(&[[6, 0, start, 2]], &[1, 0])),
        (
            "fixed-length MD5 table longer than the section",
            ext(&[[2, 3 << 32, start, 9]], &[2, 1, 2, 3, 4, 5, 6, 7, 8]),
        ),
        (
            "symbol list without a final NUL",
            ext(&[[3, 0, start, 3]], b"abc"),
        ),
    ];
    for (what, data) in &cases {
        let e = sample_extbinary::read(data).expect_err(what);
        assert!(e.offset().is_some(), "{what}: no offset in {e}");
    }
}

/// Every single-bit change of real files reads or fails cleanly (no panic).
#[test]
fn bit_flips_never_panic() {
    for name in [
        "llvm22/flat.binary.afdo",
        "llvm22/flat.symlist-compress.afdo",
        "llvm22/cs-probe.md5.afdo",
        "llvm22/preinlined.split.afdo",
    ] {
        let data = std::fs::read(root().join("testdata/sample").join(name)).unwrap();
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                match sniff(&d) {
                    Some(SampleMagic::Binary) => drop(sample_binary::read(&d)),
                    Some(SampleMagic::ExtBinary) => drop(sample_extbinary::read(&d)),
                    Some(SampleMagic::CompactBinary) | None => {}
                }
            }
        }
    }
}

/// The extbinary options on the command line: our drop-in run with llvm-profdata's own
/// arguments (`merge --sample --extbinary --use-md5 …`, `--prof-sym-list=FILE`) writes what
/// llvm-profdata-22 writes, for every text profile of testdata/sample and every variant.
#[test]
fn extbinary_options_on_the_command_line_match_llvm_profdata_22() {
    let test = "extbinary_options_on_the_command_line_match_llvm_profdata_22";
    let Some(llvm) = tool("llvm-profdata-22", test) else {
        return;
    };
    let (_guard, ours) = crate::common::dropin();
    let dir = tempdir();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(root().join("testdata/sample"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".prof.txt"))
        .collect();
    inputs.sort();
    let (mut compared, mut failures) = (0, Vec::new());
    for input in &inputs {
        for v in variants() {
            let theirs = llvm_merge(&llvm, input, &v, dir.path());
            let mine = llvm_merge(&ours, input, &v, dir.path());
            match judge("22", input, &v, mine, theirs) {
                Some(Ok(())) => compared += 1,
                Some(Err(f)) => {
                    compared += 1;
                    failures.push(f);
                }
                None => {}
            }
        }
    }
    assert!(compared > 40, "only {compared} comparisons");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
