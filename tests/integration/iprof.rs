//! GraalVM `.iprof`: reading (1.x, 0.4.0, 0.2.0, gzip), round trips, split-and-merge, schema
//! validation of our output, bad inputs, and the command line.
//!
//! The two real profiles by other authors (0.4.0 and 0.2.0) are not in the repository: they
//! are read from `../shared/testdata-external/iprof/`, and a test that needs one prints a
//! SKIPPED line and passes when it is absent. Gzip inputs are made from them at test time.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use pgo_merge::ErrorKind;
use pgo_merge::backends::iprof as writer;
use pgo_merge::frontends::iprof::{self as reader, ReadOptions};
use pgo_merge::ir::context::Site;
use pgo_merge::ir::iprof::{Branch, IprofProfile, NamedPayload, Section, TypeCount};
use pgo_merge::ir::java_symbols::{MethodId, TypeId};
use pgo_merge::passes::Weight;
use pgo_merge::passes::iprof_merge::{InputScale, merge_profiles};
use pgo_merge::passes::normalise::{canonicalize, renumbered};
use pgo_merge::passes::trim::TrimOptions;
use pgo_merge::pipeline::InputSpec;
use pgo_merge::pipeline::iprof::{IprofMergeOptions, merge_iprof_files, show_report};

use crate::common::{assert_ok, external, root, run_ours, tempdir};

/// `testdata/iprof/<name>` (our own files).
pub fn iprof_data(name: &str) -> PathBuf {
    root().join("testdata/iprof").join(name)
}

/// The real 0.4.0 profile (tommyettinger/assorted-benchmarks, 3,988,557 bytes), in the shared
/// third-party folder.
pub const REAL_040: &str = "tommyettinger-assorted-benchmarks.default.iprof";
/// The real 0.2.0 profile (krisfoster/binary-tree, 3,938,992 bytes), in the same folder.
pub const REAL_020: &str = "krisfoster-binary-tree.default.iprof";

/// Path of a real profile ([`REAL_040`], [`REAL_020`]) in `../shared/testdata-external/iprof/`;
/// None, after a SKIPPED line naming `test`, when it is absent.
pub fn real_path(name: &str, test: &str) -> Option<PathBuf> {
    external(&format!("iprof/{name}"), test)
}

/// The bytes of a real profile (see [`real_path`]).
pub fn real_data(name: &str, test: &str) -> Option<Vec<u8>> {
    real_path(name, test).map(|p| std::fs::read(p).expect("read shared iprof file"))
}

/// `data` gzip-compressed.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A gzip-compressed copy of the file `src`, written to `dir` as `<its name>.gz`.
pub fn gzip_copy(src: &Path, dir: &Path) -> PathBuf {
    let name = src.file_name().expect("file name").to_string_lossy();
    let gz = dir.join(format!("{name}.gz"));
    std::fs::write(&gz, gzip(&std::fs::read(src).expect("read"))).expect("write gzip copy");
    gz
}

/// The decompressed contents of the gzip file `p`.
pub fn gunzip(p: &Path) -> Vec<u8> {
    let gz = std::fs::read(p).expect("read testdata");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .read_to_end(&mut out)
        .expect("gunzip");
    out
}

pub fn read_all(data: &[u8]) -> IprofProfile {
    reader::read_profile(data).expect("read iprof")
}

/// A deterministic permutation of 0..n.
pub fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

pub fn shuffled(p: &IprofProfile, seed: u64) -> IprofProfile {
    let t: Vec<TypeId> = permutation(p.symbols.type_count(), seed)
        .into_iter()
        .map(TypeId)
        .collect();
    let m: Vec<MethodId> = permutation(p.symbols.method_count(), seed + 1)
        .into_iter()
        .map(MethodId)
        .collect();
    renumbered(p, &t, &m)
}

fn schema_validator(version: &str) -> jsonschema::Validator {
    let text =
        std::fs::read_to_string(root().join(format!("schemas/iprof-v{version}.schema.json")))
            .expect("schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema JSON");
    jsonschema::validator_for(&schema).expect("valid schema")
}

/// Asserts that `bytes` validates against the schema of the version it declares.
pub fn assert_schema_valid(bytes: &[u8]) {
    let v: serde_json::Value = serde_json::from_slice(bytes).expect("our output is JSON");
    let version = v["version"].as_str().expect("version").to_string();
    assert!(version == "1.0.0" || version == "1.1.0", "{version}");
    let validator = schema_validator(&version);
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .take(5)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

/// The schemas are stricter than GraalVM's in one respect: a signature names at least the
/// declaring and the return type, so a one-id signature is rejected.
#[test]
fn schemas_reject_signatures_shorter_than_two() {
    for version in ["1.0.0", "1.1.0"] {
        let doc = |sig: &str| -> serde_json::Value {
            serde_json::from_str(&format!(
                r#"{{"version":"{version}","types":[{{"id":1,"name":"A"}}],"methods":[{{"id":5,"name":"m","signature":{sig}}}],"callCountProfiles":[],"conditionalProfiles":[],"virtualInvokeProfiles":[],"instanceofProfiles":[],"samplingProfiles":[],"monitorProfiles":[]}}"#
            ))
            .unwrap()
        };
        let v = schema_validator(version);
        assert!(v.is_valid(&doc("[1,1]")), "{version}");
        let errors: Vec<String> = v.iter_errors(&doc("[1]")).map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 1, "{version}: {errors:?}");
        assert!(
            errors[0].contains("less than 2 items"),
            "{version}: {errors:?}"
        );
    }
}

#[test]
fn real_040_file_reads_with_expected_counts() {
    let Some(data) = real_data(REAL_040, "real_040_file_reads_with_expected_counts") else {
        return;
    };
    let l = reader::read(&data, ReadOptions::default()).unwrap();
    let p = &l.profile;
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    assert_eq!(p.version.to_string(), "0.4.0");
    assert_eq!(p.symbols.type_count(), 5079);
    assert_eq!(p.symbols.method_count(), 42557);
    let t = p.totals();
    assert_eq!(t.entries_of(Section::CallCount), 9628);
    assert_eq!(t.entries_of(Section::Conditional), 6871);
    assert_eq!(t.entries_of(Section::VirtualInvoke), 590);
    assert_eq!(t.entries_of(Section::Sampling), 8);
    assert_eq!(t.entries_of(Section::Monitor), 1);
    assert_eq!(t.max_of(Section::CallCount), 23_929_230_826);
    // The sampling counts of the file, in its order: 1252, 657, 584, 1392, 485, 536, 3, 1.
    assert_eq!(t.sum_of(Section::Sampling), 4910);
    // A context 23 frames deep (the deepest sampled stack).
    assert_eq!(p.contexts.nodes().map(|(_, n)| n.depth).max(), Some(23));
}

/// The shared real files are the versions whose numbers these tests assert (MD5s as listed in
/// testdata/iprof/README.md).
#[test]
fn shared_real_files_have_the_expected_md5() {
    for (name, md5) in [
        (REAL_040, "14c92742b1f51e5bb76db2ea8cca920c"),
        (REAL_020, "8bb1d3ff9a10b32ffb16af21c54a0ea6"),
    ] {
        let Some(data) = real_data(name, "shared_real_files_have_the_expected_md5") else {
            continue;
        };
        let hex: String = md5::compute(&data)
            .0
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, md5, "{name}");
    }
}

/// Acceptance: read → write → read of the real 0.4.0 file gives the same IR, and the written
/// file validates against the v1.0.0 schema.
#[test]
fn round_trip_real_040_file() {
    let Some(data) = real_data(REAL_040, "round_trip_real_040_file") else {
        return;
    };
    let original = read_all(&data);
    // Every symbol kept, ids as read (no canonical form): the same profile by names.
    let bytes = writer::to_vec(&original);
    let again = read_all(&bytes);
    assert_eq!(again.by_names(), original.by_names());
    assert_schema_valid(&bytes);
    // And the canonical form with every symbol kept.
    let canon = canonicalize(&original, true);
    let bytes = writer::to_vec(&canon);
    assert_schema_valid(&bytes);
    let again = read_all(&bytes);
    assert_eq!(again.by_names(), original.by_names());
    // Writing the re-read canonical profile gives the same bytes.
    assert_eq!(writer::to_vec(&canonicalize(&again, true)), bytes);
    // Default output drops only unreferenced symbols.
    let pruned = canonicalize(&original, false);
    let a = read_all(&writer::to_vec(&pruned)).by_names();
    let b = original.by_names();
    assert_eq!(a.entries, b.entries);
    assert_eq!(a.monitors, b.monitors);
    assert!(a.methods.is_subset(&b.methods) && a.methods.len() == 3570);
}

#[test]
fn real_020_layout_is_read() {
    let Some(data) = real_data(REAL_020, "real_020_layout_is_read") else {
        return;
    };
    let l = reader::read(&data, ReadOptions::default()).unwrap();
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    let p = &l.profile;
    assert_eq!(p.version.to_string(), "0.2.0");
    assert_eq!(p.symbols.type_count(), 4420);
    assert_eq!(p.symbols.method_count(), 20133);
    let t = p.totals();
    assert_eq!(t.entries_of(Section::CallCount), 12228);
    assert_eq!(t.entries_of(Section::Conditional), 8812);
    assert_eq!(t.entries_of(Section::VirtualInvoke), 900);
    assert_eq!(t.entries_of(Section::Monitor), 1);
    // `methodBciList` "40159:0,40315:20" is the two-frame context 40159:0<40315:20.
    let bytes = writer::to_vec(&canonicalize(p, true));
    assert_schema_valid(&bytes);
    assert_eq!(read_all(&bytes).by_names(), p.by_names());
}

#[test]
fn small_v110_golden_values() {
    let data = std::fs::read(iprof_data("small-v1.1.0.iprof")).unwrap();
    let p = read_all(&data);
    let named = p.by_names();
    let m = |name: &str, sig: &[&str]| {
        (
            name.to_string(),
            sig.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    let main = m("main", &["Fib", "void", "[Ljava.lang.String;"]);
    let fib = m("fibonacci", &["Fib", "void"]);
    let obj_hash = m("hashCode", &["java.lang.Object", "int"]);
    // 3:0<2:14<1:-6: a negative call-site BCI.
    let ctx = vec![(obj_hash, 0), (fib.clone(), 14), (main.clone(), -6)];
    assert_eq!(
        named.entries.get(&(Section::CallCount, ctx)),
        Some(&NamedPayload::Count(2))
    );
    // Repeated (-5, 0) triples are kept as two triples, in canonical order.
    assert_eq!(
        named
            .entries
            .get(&(Section::Conditional, vec![(fib.clone(), 20)])),
        Some(&NamedPayload::Branches(vec![
            (-5, 0, 0),
            (-5, 0, 0),
            (30, 0, 3),
            (44, 1, 5),
            (50, 1, 0)
        ]))
    );
    assert_eq!(
        named.entries.get(&(
            Section::Instanceof,
            vec![(fib.clone(), 25), (main.clone(), 9)]
        )),
        Some(&NamedPayload::Types(BTreeMap::from([(
            "java.lang.String".to_string(),
            5
        )])))
    );
    assert_eq!(named.monitors.get("java.lang.String"), Some(&7));
    // Written as 1.1.0 (it has instanceof profiles), valid, and the unused method dropped
    // unless asked to keep it.
    let out = writer::to_vec(&canonicalize(&p, false));
    assert!(out.starts_with(b"{\"version\":\"1.1.0\""));
    assert_schema_valid(&out);
    let q = read_all(&out);
    assert_eq!(q.symbols.method_count(), 4);
    assert_eq!(q.by_names().entries, named.entries);
    assert_eq!(
        read_all(&writer::to_vec(&canonicalize(&p, true)))
            .symbols
            .method_count(),
        5
    );
    // `instanceOfProfiles` (the spelling GraalVM's consumer asks for) is read too.
    let text = String::from_utf8(data)
        .unwrap()
        .replace("instanceofProfiles", "instanceOfProfiles");
    assert_eq!(read_all(text.as_bytes()).by_names(), named);
}

/// Splits `p` into `k` parts: every entry goes to one or more parts with its counts divided
/// among them (so merging must add them back up).
fn split(p: &IprofProfile, k: usize, seed: u64) -> Vec<IprofProfile> {
    let mut parts: Vec<IprofProfile> = (0..k)
        .map(|_| IprofProfile {
            version: p.version,
            symbols: p.symbols.clone(),
            contexts: p.contexts.clone(),
            present: p.present,
            ..IprofProfile::default()
        })
        .collect();
    let mut s = seed | 1;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    // Shares of a count among the chosen parts; the last chosen part gets the rest.
    let mut divide = |c: u64, chosen: &[usize]| -> Vec<u64> {
        let mut left = c;
        let mut out = vec![0u64; chosen.len()];
        for (i, o) in out.iter_mut().enumerate() {
            if i + 1 == chosen.len() {
                *o = left;
            } else {
                let share = if left == 0 { 0 } else { rnd() % (left + 1) };
                *o = share;
                left -= share;
            }
        }
        out
    };
    let mut sites: Vec<(Section, Site)> = Vec::new();
    sites.extend(p.call_counts.keys().map(|s| (Section::CallCount, *s)));
    sites.extend(p.samples.keys().map(|s| (Section::Sampling, *s)));
    sites.extend(p.conditionals.keys().map(|s| (Section::Conditional, *s)));
    sites.extend(
        p.virtual_invokes
            .keys()
            .map(|s| (Section::VirtualInvoke, *s)),
    );
    sites.extend(p.instanceofs.keys().map(|s| (Section::Instanceof, *s)));
    sites.sort();
    let mut seed2 = seed;
    for (sec, site) in sites {
        seed2 = seed2
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = 1 + (seed2 >> 33) as usize % k;
        let first = (seed2 >> 13) as usize % k;
        let chosen: Vec<usize> = (0..n).map(|i| (first + i) % k).collect();
        match sec {
            Section::CallCount | Section::Sampling => {
                let c = if sec == Section::CallCount {
                    p.call_counts[&site]
                } else {
                    p.samples[&site]
                };
                for (part, share) in chosen.iter().zip(divide(c, &chosen)) {
                    let m = if sec == Section::CallCount {
                        &mut parts[*part].call_counts
                    } else {
                        &mut parts[*part].samples
                    };
                    m.insert(site, share);
                }
            }
            Section::Conditional => {
                let bs = &p.conditionals[&site];
                let shares: Vec<Vec<u64>> = bs.iter().map(|b| divide(b.count, &chosen)).collect();
                for (j, part) in chosen.iter().enumerate() {
                    let v: Vec<Branch> = bs
                        .iter()
                        .zip(&shares)
                        .map(|(b, sh)| Branch { count: sh[j], ..*b })
                        .collect();
                    parts[*part].conditionals.insert(site, v);
                }
            }
            _ => {
                let h = if sec == Section::VirtualInvoke {
                    &p.virtual_invokes[&site]
                } else {
                    &p.instanceofs[&site]
                };
                let shares: Vec<Vec<u64>> = h.iter().map(|t| divide(t.count, &chosen)).collect();
                for (j, part) in chosen.iter().enumerate() {
                    let v: Vec<TypeCount> = h
                        .iter()
                        .zip(&shares)
                        .map(|(t, sh)| TypeCount {
                            ty: t.ty,
                            count: sh[j],
                        })
                        .collect();
                    let m = if sec == Section::VirtualInvoke {
                        &mut parts[*part].virtual_invokes
                    } else {
                        &mut parts[*part].instanceofs
                    };
                    m.insert(site, v);
                }
            }
        }
    }
    let chosen: Vec<usize> = (0..k).collect();
    for tc in &p.monitors {
        for (part, share) in chosen.iter().zip(divide(tc.count, &chosen)) {
            parts[*part].monitors.push(TypeCount {
                ty: tc.ty,
                count: share,
            });
        }
    }
    parts
}

/// Acceptance: a real file split into K parts with shuffled ids (and so a different order of
/// types, methods and entries), merged, reproduces the original (compared by names).
#[test]
fn split_and_merge_reproduces_original() {
    let Some(data) = real_data(REAL_040, "split_and_merge_reproduces_original") else {
        return;
    };
    let original = read_all(&data);
    let dir = tempdir();
    for k in [2usize, 5] {
        let parts = split(&original, k, 17 + k as u64);
        let mut inputs = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let shuffled = shuffled(part, 100 * k as u64 + i as u64);
            let path = dir.path().join(format!("k{k}-part{i}.iprof"));
            std::fs::write(&path, writer::to_vec(&shuffled)).unwrap();
            inputs.push(InputSpec::new(path, Weight::ONE));
        }
        // Parts in reverse order: order must not matter.
        inputs.reverse();
        let mut opts = IprofMergeOptions::default();
        opts.keep_all_symbols = true;
        let merged = merge_iprof_files(&inputs, &opts, None).unwrap();
        assert_eq!(merged.inputs_merged, k);
        assert_eq!(merged.profile.by_names(), original.by_names(), "k = {k}");
        // The canonical output does not depend on input order.
        inputs.reverse();
        let again = merge_iprof_files(&inputs, &opts, None).unwrap();
        assert_eq!(
            writer::to_vec(&again.profile),
            writer::to_vec(&merged.profile)
        );
        // In memory, with the parts as they are.
        let refs: Vec<(&IprofProfile, InputScale)> =
            parts.iter().map(|p| (p, InputScale::default())).collect();
        assert_eq!(merge_profiles(&refs).by_names(), original.by_names());
    }
}

#[test]
fn weighted_merge_of_a_file_with_itself() {
    let dir = tempdir();
    let path = dir.path().join("a.iprof");
    std::fs::write(
        &path,
        std::fs::read(iprof_data("small-v1.1.0.iprof")).unwrap(),
    )
    .unwrap();
    let inputs = vec![
        InputSpec::new(path.clone(), Weight::ONE),
        InputSpec::new(path, "1.5".parse().unwrap()),
    ];
    let merged = merge_iprof_files(&inputs, &IprofMergeOptions::default(), None).unwrap();
    let named = merged.profile.by_names();
    let fib = (
        "fibonacci".to_string(),
        vec!["Fib".to_string(), "void".to_string()],
    );
    // 3 + round(4.5) = 8 (half up); the repeated (-5, 0) pairs stay two triples.
    assert_eq!(
        named.entries.get(&(Section::Conditional, vec![(fib, 20)])),
        Some(&NamedPayload::Branches(vec![
            (-5, 0, 0),
            (-5, 0, 0),
            (30, 0, 8),
            (44, 1, 13),
            (50, 1, 0)
        ]))
    );
    assert_eq!(named.monitors.get("java.lang.String"), Some(&(7 + 11)));
}

fn json_err(data: &[u8], lenient: bool) -> (String, Option<(u64, u64)>, String) {
    let e = reader::read(
        data,
        ReadOptions {
            lenient,
            ..Default::default()
        },
    )
    .expect_err("must fail");
    match e.kind() {
        ErrorKind::Json {
            json_path,
            position,
            detail,
        } => (json_path.clone(), *position, detail.clone()),
        other => panic!("expected a JSON error, got {other:?}: {e}"),
    }
}

const MINI: &str = r#"{"version":"1.0.0","types":[{"id":0,"name":"A"},{"id":1,"name":"void"}],
"methods":[{"id":5,"name":"m","signature":[0,1]}],
"callCountProfiles":[{"ctx":"5:0","records":[3]}],
"conditionalProfiles":[{"ctx":"5:4","records":[7,0,1,9,1,2]}]}"#;

#[test]
fn bad_inputs_name_the_json_path() {
    assert!(reader::read(MINI.as_bytes(), ReadOptions::default()).is_ok());
    let case = |from: &str, to: &str| MINI.replacen(from, to, 1);
    // Syntax error: line and column.
    let (path, pos, detail) =
        json_err(case("\"ctx\":\"5:0\"", "\"ctx\" \"5:0\"").as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0]");
    assert_eq!(pos, Some((3, 29)));
    assert!(detail.starts_with("invalid JSON"), "{detail}");
    // Truncated.
    let (_, pos, detail) = json_err(&MINI.as_bytes()[..60], false);
    assert!(pos.is_some() && detail.contains("truncated"), "{detail}");
    // Wrong types.
    let (path, pos, _) = json_err(case("\"id\":0", "\"id\":\"0\"").as_bytes(), false);
    assert_eq!(path, "types[0].id");
    assert!(pos.is_some());
    let (path, _, _) = json_err(case("[3]", "[3.5]").as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0].records[0]");
    // Bad ctx strings.
    for bad in ["5:x", "5:0<", "a:0", "5:0,5:1", ""] {
        let (path, _, detail) = json_err(case("\"5:4\"", &format!("\"{bad}\"")).as_bytes(), false);
        assert_eq!(path, "conditionalProfiles[0].ctx", "{bad}");
        assert!(detail.contains("bad context"), "{detail}");
    }
    // Dangling ids.
    let (path, _, detail) = json_err(case("\"5:4\"", "\"5:4<6:1\"").as_bytes(), false);
    assert_eq!(path, "conditionalProfiles[0].ctx");
    assert!(
        detail.contains("method id 6 is not in `methods`"),
        "{detail}"
    );
    let (path, _, detail) = json_err(case("[0,1]", "[0,2]").as_bytes(), false);
    assert_eq!(path, "methods[0].signature[1]");
    assert!(detail.contains("type id 2"), "{detail}");
    // Record lengths.
    let (path, _, detail) = json_err(case("[7,0,1,9,1,2]", "[7,0,1,9,1]").as_bytes(), false);
    assert_eq!(path, "conditionalProfiles[0].records");
    assert!(detail.contains("multiple of 3"), "{detail}");
    let (path, _, _) = json_err(case("[3]", "[3,4]").as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0].records");
    // Negative counts, call counts off the method entry.
    let (path, _, _) = json_err(case("[3]", "[-3]").as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0].records[0]");
    let (path, _, detail) = json_err(case("\"5:0\"", "\"5:2\"").as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0].ctx");
    assert!(detail.contains("must be 0"), "{detail}");
    // Duplicates.
    let (path, _, _) = json_err(case("{\"id\":1,", "{\"id\":0,").as_bytes(), false);
    assert_eq!(path, "types[1].id");
    let dup = MINI.replace(
        r#"[{"ctx":"5:0","records":[3]}]"#,
        r#"[{"ctx":"5:0","records":[3]},{"ctx":"05:0","records":[1]}]"#,
    );
    let (path, _, detail) = json_err(dup.as_bytes(), false);
    assert_eq!(path, "callCountProfiles[1].ctx");
    assert!(detail.contains("callCountProfiles[0]"), "{detail}");
    // Missing keys, versions.
    let (path, _, _) = json_err(case("\"types\"", "\"typez\"").as_bytes(), false);
    assert_eq!(path, "types");
    let (path, _, detail) = json_err(case("1.0.0", "2.0.0").as_bytes(), false);
    assert_eq!(path, "version");
    assert!(detail.contains("not supported"), "{detail}");
    let (path, _, _) = json_err(case("1.0.0", "1.0").as_bytes(), false);
    assert_eq!(path, "version");
    // Not an object at all.
    let (path, _, _) = json_err(b"[1,2]", false);
    assert_eq!(path, "(top level)");
}

#[test]
fn lenient_mode_reports_and_drops() {
    let bad = MINI
        .replacen("\"5:4\"", "\"5:4<6:1\"", 1)
        .replacen("[3]", "[3,4]", 1);
    let l = reader::read(
        bad.as_bytes(),
        ReadOptions {
            lenient: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(l.dropped, 2);
    assert_eq!(l.profile.entry_count(), 0);
    assert!(
        l.warnings
            .iter()
            .any(|w| matches!(&w.location, Some(pgo_merge::Location::JsonPath(p)) if p == "conditionalProfiles[0].ctx")),
        "{:?}",
        l.warnings
    );
    assert!(
        l.warnings
            .iter()
            .any(|w| matches!(&w.location, Some(pgo_merge::Location::JsonPath(p)) if p == "callCountProfiles[0].records")),
        "{:?}",
        l.warnings
    );
    // A stripped dictionary (as elide-dev's real file): nothing resolves.
    let stripped = r#"{"version":"1.0.0","types":[{"id":-1,"name":""}],"methods":[{"id":-1,"name":"","signature":[]}],
        "callCountProfiles":[{"ctx":"17:0","records":[1]},{"ctx":"18:0<17:3","records":[2]}]}"#;
    let (path, _, _) = json_err(stripped.as_bytes(), false);
    assert_eq!(path, "callCountProfiles[0].ctx");
    let l = reader::read(
        stripped.as_bytes(),
        ReadOptions {
            lenient: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((l.dropped, l.profile.entry_count()), (2, 0));
    // Unknown keys are kept out and reported, not fatal.
    let extra = MINI.replacen(
        "\"types\"",
        "\"virtualInvokeMethodProfiles\":[],\"types\"",
        1,
    );
    let l = reader::read(extra.as_bytes(), ReadOptions::default()).unwrap();
    assert!(
        l.warnings
            .iter()
            .any(|w| w.to_string().contains("virtualInvokeMethodProfiles"))
    );
}

#[test]
fn truncated_and_corrupted_real_file_never_panics() {
    let Some(data) = real_data(REAL_040, "truncated_and_corrupted_real_file_never_panics") else {
        return;
    };
    for cut in [0usize, 1, 2, 100, 4096, 100_000, 1_000_000, data.len() - 1] {
        assert!(
            reader::read(&data[..cut], ReadOptions::default()).is_err(),
            "cut {cut}"
        );
    }
    // Flip bytes at a few places: an error or a profile, never a panic.
    for (k, at) in [10usize, 5000, 300_000, 2_000_000, 3_900_000]
        .into_iter()
        .enumerate()
    {
        let mut d = data.clone();
        d[at] = b"}]:,0-9<\"x"[k % 10];
        let _ = reader::read(
            &d,
            ReadOptions {
                lenient: k % 2 == 0,
                ..Default::default()
            },
        );
    }
    // gzip that is cut short.
    let gz = gzip(&data);
    assert!(reader::read(&gz[..gz.len() / 2], ReadOptions::default()).is_err());
}

#[test]
fn show_report_prints_sections_and_reduction() {
    let Some(path) = real_path(REAL_040, "show_report_prints_sections_and_reduction") else {
        return;
    };
    let mut trim = TrimOptions::default();
    trim.max_depth = Some(2);
    let r = show_report(&path, ReadOptions::default(), &trim, false).unwrap();
    assert_eq!(r.input.methods, 42557);
    assert_eq!(r.reduction.input_bytes, 3_988_557);
    // A gzip input: the same profile; the input size is the compressed file's.
    let dir = tempdir();
    let gz = gzip_copy(&path, dir.path());
    let z = show_report(&gz, ReadOptions::default(), &trim, false).unwrap();
    assert_eq!(z.input.methods, 42557);
    assert_eq!(
        z.reduction.input_bytes,
        std::fs::metadata(&gz).unwrap().len()
    );
    assert_eq!(z.reduction.output_bytes, r.reduction.output_bytes);
    assert!(r.reduction.output_entries < r.reduction.input_entries);
    let text = r.to_string();
    for want in [
        "iprof format version 0.4.0",
        "callCountProfiles",
        "conditionalProfiles",
        "% of the input",
    ] {
        assert!(text.contains(want), "{want} missing in\n{text}");
    }
}

#[test]
fn cli_merges_iprof_files() {
    let Some(real) = real_path(REAL_040, "cli_merges_iprof_files") else {
        return;
    };
    let dir = tempdir();
    let a = dir.path().join("a.iprof");
    let b = dir.path().join("b.iprof");
    let p = read_all(&std::fs::read(&real).unwrap());
    std::fs::write(&a, writer::to_vec(&shuffled(&p, 1))).unwrap();
    std::fs::write(&b, writer::to_vec(&shuffled(&p, 2))).unwrap();
    let out = dir.path().join("out.iprof");
    let r = run_ours([a.as_os_str(), b.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_ok(&r, "pgo-merge a.iprof b.iprof -o out.iprof");
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("wrote") && stderr.contains("% of the input"),
        "{stderr}"
    );
    let merged = std::fs::read(&out).unwrap();
    assert_schema_valid(&merged);
    let doubled = merge_profiles(&[(&p, InputScale::weighted(Weight::integer(2).unwrap()))]);
    assert_eq!(
        read_all(&merged).by_names().entries,
        doubled.by_names().entries
    );

    // Trimmed and normalised, through --output-format and a gzip input.
    let real_gz = gzip_copy(&real, dir.path());
    let out2 = dir.path().join("out2");
    let r = run_ours([
        real_gz.as_os_str(),
        a.as_os_str(),
        "--output-format".as_ref(),
        "iprof".as_ref(),
        "-o".as_ref(),
        out2.as_os_str(),
        "--max-context-depth".as_ref(),
        "2".as_ref(),
        "--cold-threshold".as_ref(),
        "0.01%".as_ref(),
        "--normalize".as_ref(),
        "total".as_ref(),
        "--sparse".as_ref(),
    ]);
    assert_ok(&r, "trimmed merge");
    let t = read_all(&std::fs::read(&out2).unwrap());
    let depths = |sites: Vec<Site>| {
        sites
            .into_iter()
            .map(|s| t.contexts.depth(s.node))
            .max()
            .unwrap_or(0)
    };
    let others: Vec<_> = t
        .call_counts
        .keys()
        .chain(t.conditionals.keys())
        .chain(t.virtual_invokes.keys())
        .chain(t.instanceofs.keys())
        .copied()
        .collect();
    assert!(depths(others) <= 2);
    // Sampling stacks are whole stacks: only --max-sampling-depth shortens them.
    assert!(depths(t.samples.keys().copied().collect()) > 2);

    // An LLVM profile among the inputs of an iprof output is converted (issue 5): its
    // functions become methods of the synthetic type llvm.profile.Function.
    let raw = root().join("testdata/profraw/clang19/ir-basic-run1.profraw");
    let r = run_ours([
        a.as_os_str(),
        raw.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&r, "mixed merge into iprof");
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(stderr.contains("llvm.profile.Function"), "{stderr}");
    let mixed = read_all(&std::fs::read(&out).unwrap());
    assert!(
        mixed.symbols.methods().any(|(_, m)| m.name == "main"),
        "the raw profile's main is not in the output"
    );
    // iprof options on an LLVM run are usage errors.
    let r = run_ours([
        raw.as_os_str(),
        "-o".as_ref(),
        dir.path().join("x.profdata").as_os_str(),
        "--max-context-depth".as_ref(),
        "3".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    // A bad input: exit 1, the file, the JSON path.
    let bad = dir.path().join("bad.iprof");
    std::fs::write(&bad, MINI.replacen("[3]", "[3,4]", 1)).unwrap();
    let r = run_ours([bad.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(r.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("bad.iprof: callCountProfiles[0].records:"),
        "{stderr}"
    );
    let r = run_ours([
        bad.as_os_str(),
        "--lenient".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&r, "lenient");
    assert!(String::from_utf8_lossy(&r.stderr).contains("dropped"));
}
