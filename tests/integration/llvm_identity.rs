//! Our merge output against `llvm-profdata merge` of LLVM 22 (index version 13) and 19 (12):
//! byte for byte, on real profiles from clang 19, clang 22 and rustc.

use std::path::{Path, PathBuf};

use crate::common::*;

/// Merges `inputs` with llvm-profdata `tool` (one thread, so its order-dependent parts are
/// deterministic) and with pgo-merge at `version`, extra arguments shared; returns both files.
fn merge_both(
    tool: &Path,
    version: u32,
    args: &[String],
    dir: &Path,
    tag: &str,
) -> (PathBuf, PathBuf) {
    let theirs = dir.join(format!("{tag}-llvm.profdata"));
    let ours = dir.join(format!("{tag}-ours.profdata"));
    let mut c = std::process::Command::new(tool);
    c.arg("merge")
        .arg("--num-threads=1")
        .arg("-o")
        .arg(&theirs)
        .args(args);
    let out = c.output().expect("run llvm-profdata");
    assert_ok(
        &out,
        &format!("{} merge {}", tool.display(), args.join(" ")),
    );
    let mut a = vec![
        "--format-version".to_string(),
        version.to_string(),
        "-o".into(),
    ];
    a.push(ours.display().to_string());
    a.extend(args.iter().cloned());
    let out = run_ours(&a);
    assert_ok(&out, &format!("pgo-merge {}", a.join(" ")));
    (ours, theirs)
}

/// The input sets compared: every file alone, and the two-run pairs together.
fn input_sets(producer: &str) -> Vec<(String, Vec<PathBuf>)> {
    let files = raws_of(producer);
    assert!(!files.is_empty(), "no testdata for {producer}");
    let mut sets: Vec<(String, Vec<PathBuf>)> = files
        .iter()
        .map(|f| {
            (
                f.file_stem().unwrap().to_string_lossy().into_owned(),
                vec![f.clone()],
            )
        })
        .collect();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix("-run1.profraw") {
            let partner = f.with_file_name(format!("{stem}-run2.profraw"));
            if partner.exists() {
                sets.push((format!("{stem}-both"), vec![f.clone(), partner]));
            }
        }
    }
    sets
}

fn check_producer(producer: &str, tool_name: &str, version: u32) {
    let test = format!("byte identity {producer} vs {tool_name}");
    let Some(tool) = tool(tool_name, &test) else {
        return;
    };
    let dir = tempdir();
    let mut compared = 0;
    for (tag, files) in input_sets(producer) {
        let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let mut variants: Vec<(String, Vec<String>)> = vec![
            ("plain".into(), paths.clone()),
            (
                "sparse".into(),
                [vec!["--sparse".to_string()], paths.clone()].concat(),
            ),
        ];
        // An integer weight on the last input.
        let mut weighted = paths.clone();
        let last = weighted.pop().unwrap();
        weighted.push(format!("--weighted-input=3,{last}"));
        variants.push(("weight3".into(), weighted));
        for (vname, args) in variants {
            let label = format!("{producer}/{tag}/{vname}");
            let (ours, theirs) =
                merge_both(&tool, version, &args, dir.path(), &format!("{tag}-{vname}"));
            let a = std::fs::read(&theirs).unwrap();
            let b = std::fs::read(&ours).unwrap();
            if a == b {
                compared += 1;
                continue;
            }
            // LLVM 19 does not know the loop-entries flag (bit 55) and drops it; we keep it.
            // Everything else must be identical, which `show` confirms.
            if tool_name.ends_with("-19") && tag.starts_with("loop-entries") {
                let mut a2 = a.clone();
                a2[14] |= 0x80;
                assert_eq!(a2, b, "{label}: only the loop-entries flag may differ");
                assert_same_show(&tool, &ours, &theirs, &label);
                compared += 1;
                continue;
            }
            let at = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{label}: output differs from {tool_name} at byte {at:#x} (sizes {} vs {})",
                a.len(),
                b.len()
            );
        }
    }
    eprintln!("{test}: {compared} merges byte-identical");
}

#[test]
fn clang19_vs_llvm_profdata_22() {
    check_producer("clang19", "llvm-profdata-22", 13);
}

#[test]
fn clang19_vs_llvm_profdata_19() {
    check_producer("clang19", "llvm-profdata-19", 12);
}

#[test]
fn clang22_vs_llvm_profdata_22() {
    check_producer("clang22", "llvm-profdata-22", 13);
}

#[test]
fn clang22_vs_llvm_profdata_19() {
    check_producer("clang22", "llvm-profdata-19", 12);
}

#[test]
fn clang23_vs_llvm_profdata_23() {
    check_producer("clang23", "llvm-profdata-23", 14);
}

#[test]
fn rustc_vs_llvm_profdata_22() {
    check_producer("rustc", "llvm-profdata-22", 13);
    check_producer("rustc-nightly", "llvm-profdata-22", 13);
}

#[test]
fn rustc_vs_llvm_profdata_19() {
    check_producer("rustc", "llvm-profdata-19", 12);
    check_producer("rustc-nightly", "llvm-profdata-19", 12);
}

/// All IR inputs of one producer at once, several weights, repeated inputs.
#[test]
fn many_inputs_with_weights_vs_llvm_profdata_22() {
    let Some(tool) = tool("llvm-profdata-22", "many inputs vs llvm-profdata-22") else {
        return;
    };
    let dir = tempdir();
    for producer in ["clang19", "clang22"] {
        let p = |n: &str| {
            raw(&format!("{producer}/{n}.profraw"))
                .display()
                .to_string()
        };
        let args = vec![
            p("ir-basic-run1"),
            format!("--weighted-input=2,{}", p("ir-basic-run2")),
            p("merge-pool"),
            format!("--weighted-input=7,{}", p("ir-basic-run1")),
            p("two-tu"),
            p("exe-and-shlib"),
            p("uncompressed-names"),
            format!("--weighted-input=5,{}", p("vtable-run2")),
            p("vtable-run1"),
        ];
        let (ours, theirs) = merge_both(&tool, 13, &args, dir.path(), producer);
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "{producer}: many-input merge differs"
        );
    }
}

/// Temporal traces beyond the reservoir size are sampled exactly as llvm-profdata 22 does.
#[test]
fn temporal_reservoir_sampling_matches_llvm_profdata_22() {
    let Some(tool) = tool("llvm-profdata-22", "temporal sampling vs llvm-profdata-22") else {
        return;
    };
    let dir = tempdir();
    let a = raw("clang22/temporal-run1.profraw").display().to_string();
    let b = raw("clang22/temporal-run2.profraw").display().to_string();
    for size in [1, 2, 3] {
        let mut args = vec![format!("--temporal-profile-trace-reservoir-size={size}")];
        for x in [&b, &a, &b, &b, &a, &a, &b] {
            args.push(x.clone());
        }
        let (ours, theirs) = merge_both(&tool, 13, &args, dir.path(), &format!("t{size}"));
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "reservoir {size}"
        );
    }
}

/// The text back-end in llvm-compatible mode writes what `llvm-profdata merge --text` writes.
#[test]
fn text_output_matches_llvm_profdata_22() {
    let Some(tool) = tool("llvm-profdata-22", "text output vs llvm-profdata-22") else {
        return;
    };
    let dir = tempdir();
    let mut n = 0;
    for producer in ["clang22", "rustc"] {
        for (tag, files) in input_sets(producer) {
            let theirs = dir.path().join(format!("{producer}-{tag}-llvm.proftext"));
            let ours = dir.path().join(format!("{producer}-{tag}-ours.proftext"));
            let out = std::process::Command::new(&tool)
                .args(["merge", "--num-threads=1", "--text", "-o"])
                .arg(&theirs)
                .args(&files)
                .output()
                .unwrap();
            assert_ok(&out, "llvm-profdata merge --text");
            let out = run_ours(
                [
                    "--text".as_ref(),
                    "--llvm-compatible".as_ref(),
                    "-o".as_ref(),
                    ours.as_os_str(),
                ]
                .into_iter()
                .chain(files.iter().map(|f| f.as_os_str())),
            );
            assert_ok(&out, "pgo-merge --text");
            let a = std::fs::read_to_string(&theirs).unwrap();
            let b = std::fs::read_to_string(&ours).unwrap();
            assert_eq!(a, b, "{producer}/{tag}: text output differs");
            n += 1;
        }
    }
    eprintln!("text output: {n} files identical to llvm-profdata-22 --text");
}

/// Value sites that hold one value several times and have more than 16 entries: LLVM sorts a
/// site by value with `std::sort` (not stable) before each merge, so which of the repeated
/// entries a count is added to follows libstdc++'s introsort. Text inputs with memory-op
/// sites listing sizes repeatedly (what a raw profile gives for indirect calls to targets
/// outside the binary, which all become 0) against llvm-profdata-22, byte for byte, with and
/// without weights.
#[test]
fn repeated_values_in_large_sites_pair_as_llvm() {
    let Some(tool) = tool(
        "llvm-profdata-22",
        "repeated_values_in_large_sites_pair_as_llvm",
    ) else {
        return;
    };
    let dir = tempdir();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut inputs = Vec::new();
    for f in 0..6 {
        let mut t = String::from("# IR level Instrumentation Flag\n:ir\n");
        for func in 0..4 {
            t += &format!(
                "f{func}\n# Func Hash:\n{}\n# Num Counters:\n1\n# Counter Values:\n{}\n",
                1000 + func,
                10 + f
            );
            t += "# Num Value Kinds:\n1\n# ValueKind = IPVK_MemOPSize:\n1\n# NumValueSites:\n3\n";
            // A large site with repeats, a large site without, a small site with repeats.
            for (len, span, repeats) in [(20 + next(30), 24, true), (40, 400, false), (6, 4, true)]
            {
                let mut vals: Vec<(u64, u64)> = Vec::new();
                while (vals.len() as u64) < len {
                    let v = if repeats && next(3) == 0 {
                        0
                    } else {
                        next(span)
                    };
                    if repeats || !vals.iter().any(|&(x, _)| x == v) {
                        vals.push((v, 1 + next(9)));
                    }
                }
                t += &format!("{}\n", vals.len());
                for (v, c) in vals {
                    t += &format!("{v}:{c}\n");
                }
            }
        }
        let p = dir.path().join(format!("in{f}.proftext"));
        std::fs::write(&p, t).expect("write input");
        inputs.push(p.display().to_string());
    }
    let weighted: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, p)| format!("--weighted-input={},{p}", 1 + i % 3))
        .collect();
    for (tag, args) in [("plain", &inputs), ("weighted", &weighted)] {
        let (ours, theirs) = merge_both(&tool, 13, args, dir.path(), tag);
        assert_eq!(
            std::fs::read(&ours).expect("ours"),
            std::fs::read(&theirs).expect("theirs"),
            "repeated values, {tag}: {} vs {}",
            ours.display(),
            theirs.display()
        );
    }
}
