//! `order`: the function order of temporal profiles, against llvm-profdata 19, 22 and 23 run
//! live, and against a real linker.
//!
//! The recordings (testdata/order/, made by its regenerate.sh) are clang-19 temporal
//! profiles of a generated C program with 320 functions, 8 runs with different arguments:
//! all traces, and a reservoir of 4 of them (reservoir sampling exercised). llvm-profdata 19
//! and 22 order them differently (19 splits with std::nth_element), so both are exercised.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

/// The recordings.
fn recording(name: &str) -> PathBuf {
    root().join("testdata/order").join(name)
}

/// A gzip-compressed recording, inflated into `dir`.
fn inflated(dir: &Path, gz: &str) -> PathBuf {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(fs::File::open(recording(gz)).expect("open recording"))
        .read_to_end(&mut bytes)
        .expect("inflate recording");
    let p = dir.join(gz.trim_end_matches(".gz"));
    fs::write(&p, bytes).expect("write inflated recording");
    p
}

/// `PROG order ARGS... FILE` (PROG: a real llvm-profdata or our drop-in).
fn order_with(prog: &Path, args: &[&str], files: &[&Path]) -> Output {
    let mut cmd = std::process::Command::new(prog);
    cmd.arg("order").args(args).args(files);
    cmd.output().expect("run order")
}

/// A symlink named `name` (llvm-profdata-N) to our binary: the drop-in following release N.
fn dropin_named(dir: &Path, name: &str) -> PathBuf {
    let link = dir.join(name);
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    link
}

/// For each llvm-profdata release present, our order (natively with `--target-llvm N`, and
/// as the drop-in llvm-profdata-N) is theirs byte for byte: both recordings, with and
/// without test traces, and a raw profile read directly (where the release reads its
/// version).
#[test]
fn order_is_llvm_profdatas_byte_for_byte() {
    let dir = tempdir();
    let raw = inflated(dir.path(), "run1.profraw.gz");
    let all = recording("all.profdata");
    let reservoir = recording("reservoir.profdata");
    let mut compared = 0;
    for n in [19, 22, 23] {
        let name = format!("llvm-profdata-{n}");
        let Some(theirs_tool) = tool(&name, "order_is_llvm_profdatas_byte_for_byte") else {
            continue;
        };
        let ours_dropin = dropin_named(dir.path(), &name);
        for file in [&all, &reservoir, &raw] {
            for args in [
                &[][..],
                &["--num-test-traces=1"],
                &["--num-test-traces", "3"],
            ] {
                let theirs = order_with(&theirs_tool, args, &[file]);
                if !theirs.status.success() {
                    // llvm-profdata 23 reads no raw profile of clang 19 (raw version 10).
                    assert!(
                        file == &raw,
                        "{name} order {args:?} {} failed",
                        file.display()
                    );
                    continue;
                }
                let target = format!("--target-llvm={n}");
                let mut native_args = vec!["order", target.as_str()];
                native_args.extend(args);
                native_args.push(file.to_str().unwrap());
                let native = run_ours(&native_args);
                assert_ok(&native, "pgo-merge order");
                let what = format!("{name} order {args:?} {}", file.display());
                assert!(
                    native.stdout == theirs.stdout,
                    "{what}: ours (native) differs:\n{}",
                    differing_lines(
                        &String::from_utf8_lossy(&native.stdout),
                        &String::from_utf8_lossy(&theirs.stdout),
                        5,
                        "ours",
                        "theirs"
                    )
                );
                let dropin = order_with(&ours_dropin, args, &[file]);
                assert_ok(&dropin, "drop-in order");
                assert!(
                    dropin.stdout == theirs.stdout,
                    "{what}: ours (drop-in) differs"
                );
                assert!(dropin.stderr.is_empty(), "{what}: drop-in said something");
                compared += 1;
            }
        }
    }
    if compared > 0 {
        assert!(compared >= 6, "only {compared} comparisons");
    }
}

/// The two releases differ on these recordings (19 splits with std::nth_element, 22 sorts):
/// following the wrong one would show.
#[test]
fn releases_19_and_22_order_differently() {
    let all = recording("all.profdata");
    let a = run_ours(["order", "--target-llvm=19", all.to_str().unwrap()]);
    let b = run_ours(["order", "--target-llvm=22", all.to_str().unwrap()]);
    assert_ok(&a, "order 19");
    assert_ok(&b, "order 22");
    assert_ne!(a.stdout, b.stdout);
    // The same functions either way.
    let lines = |o: &Output| {
        let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    assert_eq!(lines(&a), lines(&b));
}

/// Beyond llvm-profdata: several raw profiles in one step order as llvm-profdata orders
/// their merge.
#[test]
fn several_raw_profiles_in_one_step() {
    let Some(llvm) = tool("llvm-profdata-22", "several_raw_profiles_in_one_step") else {
        return;
    };
    let dir = tempdir();
    let r1 = inflated(dir.path(), "run1.profraw.gz");
    let r2 = inflated(dir.path(), "run2.profraw.gz");
    let merged = dir.path().join("merged.profdata");
    let m = run(
        &llvm,
        &[
            "merge".as_ref(),
            "-o".as_ref(),
            merged.as_os_str(),
            r1.as_os_str(),
            r2.as_os_str(),
        ],
    );
    assert_ok(&m, "llvm-profdata-22 merge");
    let theirs = order_with(&llvm, &[], &[&merged]);
    assert_ok(&theirs, "llvm-profdata-22 order");
    let ours = run_ours(["order".as_ref(), r1.as_os_str(), r2.as_os_str()]);
    assert_ok(&ours, "pgo-merge order of two raw profiles");
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout)
    );
}

/// The symbols of an order file, in order (comments and empty lines left out).
fn ordered_symbols(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The text symbols of `nm -n` output that are in `listed`, in address order.
fn listed_text_symbols(nm_output: &[u8], listed: &[String]) -> Vec<String> {
    String::from_utf8_lossy(nm_output)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "t" || kind == "T").then(|| name.to_string())
        })
        .filter(|name| listed.contains(name))
        .collect()
}

/// Links the program of the recordings (`-O0 -ffunction-sections`; with `pgo`, `-O2` with
/// the recorded profile, whose hot and cold functions clang puts in `.text.hot.NAME` and
/// `.text.unlikely.NAME` sections) with `linker_flags` (`{}` is replaced by our order,
/// written as `format`) and checks that the ordered functions come in our order in the
/// binary (`nm -n`; with `pgo`, those the optimiser kept). Skips loudly without the tools.
fn linked_order_follows(test: &str, format: &str, linker: &str, linker_flag: &str, pgo: bool) {
    let (Some(clang), Some(nm)) = (tool("clang-19", test), tool("nm", test)) else {
        return;
    };
    let Some(linker_path) = tool(linker, test) else {
        return;
    };
    let dir = tempdir();
    let src = inflated(dir.path(), "order_prog.c.gz");
    let all = recording("all.profdata");
    let llvm_text = run_ours(["order", all.to_str().unwrap()]);
    assert_ok(&llvm_text, "pgo-merge order");
    let listed = ordered_symbols(&String::from_utf8_lossy(&llvm_text.stdout));
    assert!(
        listed.len() > 200,
        "only {} functions ordered",
        listed.len()
    );
    let order_file = dir.path().join("order.txt");
    let format_arg = format!("--format={format}");
    let o = run_ours([
        "order".as_ref(),
        format_arg.as_ref(),
        all.as_os_str(),
        "-o".as_ref(),
        order_file.as_os_str(),
    ]);
    assert_ok(&o, "pgo-merge order -o");
    let exe = dir.path().join("linked");
    // lld and gold by clang's name for them; another GNU ld by its path.
    let fuse = match linker {
        "ld.lld-19" | "ld.gold" => format!(
            "-fuse-ld={}",
            linker.trim_start_matches("ld.").trim_end_matches("-19")
        ),
        _ => format!("--ld-path={}", linker_path.display()),
    };
    let flag = linker_flag.replace("{}", &order_file.display().to_string());
    let use_profile = format!("-fprofile-instr-use={}", all.display());
    let opt: &[&std::ffi::OsStr] = if pgo {
        &["-O2".as_ref(), use_profile.as_ref()]
    } else {
        &["-O0".as_ref()]
    };
    let link = run(
        &clang,
        &[
            opt,
            &[
                "-ffunction-sections".as_ref(),
                fuse.as_ref(),
                flag.as_ref(),
                src.as_os_str(),
                "-o".as_ref(),
                exe.as_os_str(),
            ],
        ]
        .concat(),
    );
    assert_ok(&link, &format!("clang-19 {fuse} {flag}"));
    assert!(
        !String::from_utf8_lossy(&link.stderr).contains("warning"),
        "the linker warned: {}",
        String::from_utf8_lossy(&link.stderr)
    );
    let syms = run(&nm, &["-n".as_ref(), exe.as_os_str()]);
    assert_ok(&syms, "nm -n");
    let in_binary = listed_text_symbols(&syms.stdout, &listed);
    let expected: Vec<String> = if pgo {
        // Inlined functions are gone; enough stay to show the order holds.
        assert!(in_binary.len() > 100, "only {} kept", in_binary.len());
        listed
            .into_iter()
            .filter(|n| in_binary.contains(n))
            .collect()
    } else {
        assert_eq!(
            in_binary.len(),
            listed.len(),
            "not every ordered function is in the binary"
        );
        listed
    };
    assert_eq!(
        in_binary, expected,
        "{linker}: the linked order is not ours"
    );
}

/// lld takes llvm-profdata's text (our default) as it is, and the linked program follows it.
#[test]
fn lld_follows_our_order() {
    linked_order_follows(
        "lld_follows_our_order",
        "llvm",
        "ld.lld-19",
        "-Wl,--symbol-ordering-file={}",
        false,
    );
}

/// gold takes our section list (`--format=sections`) and the program follows it.
#[test]
fn gold_follows_our_section_list() {
    linked_order_follows(
        "gold_follows_our_section_list",
        "sections",
        "ld.gold",
        "-Wl,--section-ordering-file={}",
        false,
    );
}

/// In a profile-guided build hot and cold functions are in `.text.hot.NAME` and
/// `.text.unlikely.NAME` sections: gold orders them too from our section list.
#[test]
fn gold_follows_our_section_list_in_a_pgo_build() {
    linked_order_follows(
        "gold_follows_our_section_list_in_a_pgo_build",
        "sections",
        "ld.gold",
        "-Wl,--section-ordering-file={}",
        true,
    );
}

/// The same for GNU ld's section-ordering script.
#[test]
fn gnu_ld_follows_our_section_script_in_a_pgo_build() {
    linked_order_follows(
        "gnu_ld_follows_our_section_script_in_a_pgo_build",
        "gnu-ld",
        "ld.bfd-sid",
        "-Wl,--section-ordering-file={}",
        true,
    );
}

/// GNU ld 2.43+ takes our section-ordering script (`--format=gnu-ld`) and the program
/// follows it. Bookworm's ld is 2.40 (no --section-ordering-file): the test uses Debian
/// sid's (`ld.bfd-sid`, installed by .ci/install-llvm-sid.sh), or the system's ld.bfd if it
/// is 2.43 or later.
#[test]
fn gnu_ld_follows_our_section_script() {
    let test = "gnu_ld_follows_our_section_script";
    let system_is_new = tool_quietly("ld.bfd").is_some_and(|ld| {
        let v = run(&ld, &["--version".as_ref()]);
        gnu_ld_version(&String::from_utf8_lossy(&v.stdout)) >= Some((2, 43))
    });
    let linker = if system_is_new && tool_quietly("ld.bfd-sid").is_none() {
        "ld.bfd"
    } else {
        "ld.bfd-sid"
    };
    linked_order_follows(
        test,
        "gnu-ld",
        linker,
        "-Wl,--section-ordering-file={}",
        false,
    );
}

/// An executable on PATH, or None without a SKIPPED line.
fn tool_quietly(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// (major, minor) of `ld --version`'s first line ("GNU ld (GNU Binutils for Debian) 2.40").
fn gnu_ld_version(text: &str) -> Option<(u32, u32)> {
    let last = text.lines().next()?.split_whitespace().last()?;
    let mut parts = last.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// ld64 (ld64.lld-19) takes our `--format=ld64` order with `-order_file`, and a Mach-O
/// dylib of the recordings' program (clang-19 `--target=x86_64-apple-macosx11`, no SDK: the
/// C headers replaced by the one declaration it needs) lists the functions in our order
/// (`llvm-nm-19 -n`, with Mach-O's `_` prefix).
#[test]
fn ld64_follows_our_order() {
    let test = "ld64_follows_our_order";
    let (Some(clang), Some(ld64), Some(nm)) = (
        tool("clang-19", test),
        tool("ld64.lld-19", test),
        tool("llvm-nm-19", test),
    ) else {
        return;
    };
    let dir = tempdir();
    let src = inflated(dir.path(), "order_prog.c.gz");
    let text = std::fs::read_to_string(&src).unwrap();
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("#include"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mac_src = dir.path().join("prog_mac.c");
    std::fs::write(&mac_src, format!("int printf(const char *, ...);\n{body}")).unwrap();
    let obj = dir.path().join("prog_mac.o");
    let o = run(
        &clang,
        &[
            "--target=x86_64-apple-macosx11".as_ref(),
            "-O0".as_ref(),
            "-c".as_ref(),
            mac_src.as_os_str(),
            "-o".as_ref(),
            obj.as_os_str(),
        ],
    );
    assert_ok(&o, "clang-19 --target=x86_64-apple-macosx11");
    let all = recording("all.profdata");
    let order_file = dir.path().join("order.ld64");
    let o = run_ours([
        "order".as_ref(),
        "--format=ld64".as_ref(),
        all.as_os_str(),
        "-o".as_ref(),
        order_file.as_os_str(),
    ]);
    assert_ok(&o, "pgo-merge order --format=ld64");
    let listed = ordered_symbols(&std::fs::read_to_string(&order_file).unwrap());
    assert!(listed.len() > 200 && listed.iter().all(|s| s.starts_with('_')));
    let dylib = dir.path().join("prog.dylib");
    let args: Vec<&std::ffi::OsStr> = ["-arch", "x86_64", "-platform_version", "macos", "11.0"]
        .into_iter()
        .chain([
            "11.0",
            "-dylib",
            "-undefined",
            "dynamic_lookup",
            "-order_file",
        ])
        .map(std::ffi::OsStr::new)
        .chain([order_file.as_os_str(), obj.as_os_str()])
        .chain(["-o".as_ref(), dylib.as_os_str()])
        .collect();
    let link = run(&ld64, &args);
    assert_ok(&link, "ld64.lld-19 -order_file");
    assert!(
        !String::from_utf8_lossy(&link.stderr).contains("warning"),
        "ld64.lld-19 warned: {}",
        String::from_utf8_lossy(&link.stderr)
    );
    let syms = run(&nm, &["-n".as_ref(), dylib.as_os_str()]);
    assert_ok(&syms, "llvm-nm-19 -n");
    let in_binary = listed_text_symbols(&syms.stdout, &listed);
    assert_eq!(
        in_binary, listed,
        "ld64.lld-19: the linked order is not ours"
    );
}

/// A profile without temporal traces: llvm-profdata prints an empty order and succeeds;
/// so do we (natively with a warning naming the file).
#[test]
fn a_profile_without_traces_gives_an_empty_order() {
    let dir = tempdir();
    let plain = dir.path().join("plain.profdata");
    // A text profile without the temporal header has no traces.
    fs::write(
        &plain,
        "# IR level Instrumentation Flag\n:ir\nmain\n0x1\n1\n5\n\n",
    )
    .unwrap();
    let native = run_ours(["order".as_ref(), plain.as_os_str()]);
    assert_ok(&native, "order of a profile without traces");
    let text = String::from_utf8_lossy(&native.stdout).into_owned();
    assert!(
        text.starts_with("# Ordered 0 functions\n# Warning: Mach-O"),
        "{text}"
    );
    let err = String::from_utf8_lossy(&native.stderr);
    assert!(
        err.contains("plain.profdata") && err.contains("no temporal traces"),
        "{err}"
    );
    let dropin = dropin_named(dir.path(), "llvm-profdata-22");
    let ours = order_with(&dropin, &[], &[&plain]);
    assert_ok(&ours, "drop-in order without traces");
    assert!(ours.stderr.is_empty());
    assert_eq!(ours.stdout, native.stdout);
    if let Some(llvm) = tool(
        "llvm-profdata-22",
        "a_profile_without_traces_gives_an_empty_order",
    ) {
        let theirs = order_with(&llvm, &[], &[&plain]);
        assert_ok(&theirs, "llvm-profdata-22 order without traces");
        assert_eq!(ours.stdout, theirs.stdout);
    }
}

/// Errors: a corrupt or missing input is named, too many test traces are refused in
/// llvm-profdata's words; never a panic.
#[test]
fn bad_inputs_are_named() {
    let dir = tempdir();
    let all = fs::read(recording("all.profdata")).unwrap();
    for cut in [9, 100, all.len() / 2, all.len() - 3] {
        let p = dir.path().join(format!("cut{cut}.profdata"));
        fs::write(&p, &all[..cut]).unwrap();
        let o = run_ours(["order".as_ref(), p.as_os_str()]);
        assert_eq!(o.status.code(), Some(1), "cut at {cut}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("cut{cut}.profdata")),
            "cut at {cut}: {err}"
        );
        assert!(o.stdout.is_empty(), "cut at {cut}: an order was printed");
    }
    let missing = dir.path().join("missing.profdata");
    let o = run_ours(["order".as_ref(), missing.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.profdata"));
    let reservoir = recording("reservoir.profdata");
    let o = run_ours([
        "order".as_ref(),
        "--num-test-traces=4".as_ref(),
        reservoir.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "--num-test-traces must be smaller than the total number of traces: expected: < 4, actual: 4"
        ),
        "{o:?}"
    );
    let o = run_ours(["order"]);
    assert_eq!(o.status.code(), Some(2), "no input: {o:?}");
    let o = run_ours(["order", "--target-llvm=16", reservoir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "LLVM 16 has no order: {o:?}");
}

/// Beyond llvm-profdata: the same order for other linkers, and as JSON.
#[test]
fn linker_formats_and_json() {
    let all = recording("all.profdata");
    let file = all.to_str().unwrap();
    let text = run_ours(["order", file]);
    assert_ok(&text, "order");
    let listed = ordered_symbols(&String::from_utf8_lossy(&text.stdout));
    let symbols = run_ours(["order", "--format=symbols", file]);
    assert_eq!(
        String::from_utf8_lossy(&symbols.stdout)
            .lines()
            .collect::<Vec<_>>(),
        listed
    );
    let ld64 = run_ours(["order", "--format=ld64", file]);
    let ld64: Vec<String> = ordered_symbols(&String::from_utf8_lossy(&ld64.stdout));
    assert_eq!(
        ld64,
        listed.iter().map(|s| format!("_{s}")).collect::<Vec<_>>()
    );
    let sections = run_ours(["order", "--format=sections", file]);
    assert_eq!(
        String::from_utf8_lossy(&sections.stdout)
            .lines()
            .collect::<Vec<_>>(),
        listed
            .iter()
            .flat_map(|s| [".text.", ".text.hot.", ".text.unlikely."].map(|p| format!("{p}{s}")))
            .collect::<Vec<_>>()
    );
    let json = run_ours(["order", "--json", "--num-test-traces=2", file]);
    assert_ok(&json, "order --json");
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("schemas/order.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "order --json is not valid: {errors:?}");
    let names: Vec<&str> = doc["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(doc["ordered"].as_u64(), Some(names.len() as u64));
    assert!(doc["page_fault_area"].as_u64().is_some_and(|a| a > 0));
    let statics = doc["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == "order_prog.c")
        .count();
    assert!(statics > 0, "no function with internal linkage");
}

/// Our std::nth_element and std::partition move elements as libstdc++'s do: the same
/// permutations (distinct keys, as balanced partitioning's input order) through a C++
/// program built with g++ and through ours.
#[test]
fn nth_element_and_partition_are_libstdcxx_s() {
    let Some(gxx) = tool("g++", "nth_element_and_partition_are_libstdcxx_s") else {
        return;
    };
    const PROGRAM: &str = r#"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
int main() {
  uint64_t state = 28;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int t = 0; t < 2000; t++) {
    size_t n = next(300) + 2;
    std::vector<uint32_t> v(n);
    for (size_t i = 0; i < n; i++) v[i] = i;
    for (size_t i = n - 1; i > 0; i--) std::swap(v[i], v[next(i + 1)]);
    std::vector<uint32_t> p = v;
    std::nth_element(v.begin(), v.begin() + (n + 1) / 2, v.end(),
                     [](uint32_t a, uint32_t b) { return a < b; });
    auto mid = std::partition(p.begin(), p.end(), [](uint32_t x) { return x % 3 == 1; });
    for (auto x : v) printf("%u ", x);
    printf("| %d |", (int)(mid - p.begin()));
    for (auto x : p) printf(" %u", x);
    printf("\n");
  }
}
"#;
    let dir = tempdir();
    let src = dir.path().join("nth.cpp");
    let exe = dir.path().join("nth");
    fs::write(&src, PROGRAM).unwrap();
    let built = run(
        &gxx,
        &[
            "-O1".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            exe.as_os_str(),
        ],
    );
    assert_ok(&built, "g++");
    let theirs = run(&exe, &[]);
    assert_ok(&theirs, "the C++ program");
    let mut state: u64 = 28;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut ours = String::new();
    for _ in 0..2000 {
        let n = (next(300) + 2) as usize;
        let mut v: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = next(i as u64 + 1) as usize;
            v.swap(i, j);
        }
        let mut p = v.clone();
        pgo_merge::sys::libstdcxx::nth_element_by(&mut v, n.div_ceil(2), &|a: &u32, b: &u32| a < b);
        let mid = pgo_merge::sys::libstdcxx::partition(&mut p, |x| x % 3 == 1);
        for x in &v {
            ours.push_str(&format!("{x} "));
        }
        ours.push_str(&format!("| {mid} |"));
        for x in &p {
            ours.push_str(&format!(" {x}"));
        }
        ours.push('\n');
    }
    let theirs = String::from_utf8_lossy(&theirs.stdout);
    assert!(
        ours == theirs,
        "{}",
        differing_lines(&ours, &theirs, 3, "ours", "libstdc++")
    );
}

/// `--name[=<kind>]` of the option lines of an llvm-profdata-style help, leaving out our
/// help's section of LLVM's options accepted unlisted.
fn listed_options(help: &str) -> std::collections::BTreeSet<String> {
    let re = regex::Regex::new(r"^ +(-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*(=<[^>]*>)?)").unwrap();
    let mut skip = false;
    help.lines()
        .filter(|l| {
            if !l.starts_with(' ') && l.ends_with(':') {
                skip = l.starts_with("LLVM's options that llvm-profdata accepts");
            }
            !skip
        })
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .collect()
}

/// The drop-in's `order --help-hidden` lists the options each release lists, under the
/// same overview, subcommand line and usage.
#[test]
fn dropin_order_options_are_each_releases() {
    let dir = tempdir();
    for n in [19, 22, 23] {
        let name = format!("llvm-profdata-{n}");
        let Some(real) = tool(&name, "dropin_order_options_are_each_releases") else {
            continue;
        };
        let ours = dropin_named(dir.path(), &name);
        let help = |bin: &Path, flag: &str| {
            let o = order_with(bin, &[flag], &[]);
            assert_ok(&o, "order --help");
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        assert_eq!(
            listed_options(&help(&ours, "--help-hidden")),
            listed_options(&help(&real, "--help-hidden")),
            "{name} order"
        );
        let head = |text: String| {
            text.lines()
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
                .replace(&format!("{name} "), "llvm-profdata ")
        };
        assert_eq!(
            head(help(&ours, "--help")),
            head(help(&real, "--help")),
            "{name} order --help"
        );
    }
}

/// A text profile of `functions` functions (every fourth with internal linkage) and
/// `traces` traces drawn by `next`: each a random subset in a partly shuffled order (runs of
/// a common order with local swaps, so that nodes share windows and gains tie), sometimes
/// naming a function twice.
fn random_text_profile(
    next: &mut impl FnMut(u64) -> u64,
    functions: usize,
    traces: usize,
) -> String {
    let name = |i: usize| {
        if i.is_multiple_of(4) {
            format!("lib/m{}.c;s{i}", i % 3)
        } else {
            format!("g{i}")
        }
    };
    let mut s = String::from("# IR level Instrumentation Flag\n:ir\n:temporal_prof_traces\n");
    s += &format!("# Num Temporal Profile Traces:\n{traces}\n");
    s += &format!("# Temporal Profile Trace Stream Size:\n{traces}\n");
    for _ in 0..traces {
        let mut order: Vec<usize> = (0..functions).collect();
        let swaps = next(functions as u64 * 2) as usize;
        for _ in 0..swaps {
            let i = next(functions as u64) as usize;
            let j = (i + next(8) as usize).min(functions - 1);
            order.swap(i, j);
        }
        let keep = 1 + next(functions as u64) as usize;
        let mut t: Vec<String> = order
            .into_iter()
            .filter(|_| next(functions as u64) < keep as u64)
            .map(name)
            .collect();
        if t.is_empty() {
            t.push(name(0));
        }
        if next(5) == 0 {
            let again = t[next(t.len() as u64) as usize].clone();
            t.push(again);
        }
        s += &format!("# Weight:\n1\n{},\n", t.join(","));
    }
    s.push('\n');
    for i in 0..functions {
        s += &format!(
            "{}\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n{}\n\n",
            name(i),
            i + 1
        );
    }
    s
}

/// Random shapes (2 to 600 functions, 1 to 12 traces, ties, repeated names) order as each
/// present llvm-profdata orders them, with and without test traces.
#[test]
fn random_profiles_order_as_llvm_profdata_does() {
    let tools: Vec<(u32, PathBuf)> = [19, 22, 23]
        .into_iter()
        .filter_map(|n| {
            tool(
                &format!("llvm-profdata-{n}"),
                "random_profiles_order_as_llvm_profdata_does",
            )
            .map(|t| (n, t))
        })
        .collect();
    if tools.is_empty() {
        return;
    }
    let dir = tempdir();
    let mut state: u64 = 2028;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n.max(1)
    };
    for case in 0..40 {
        let functions = 2 + next(if case % 4 == 0 { 600 } else { 120 }) as usize;
        let traces = 1 + next(12) as usize;
        let text = random_text_profile(&mut next, functions, traces);
        let path = dir.path().join(format!("case{case}.proftext"));
        fs::write(&path, &text).unwrap();
        for (n, llvm) in &tools {
            let test_traces = if traces > 1 {
                "--num-test-traces=1"
            } else {
                "--num-test-traces=0"
            };
            for args in [&[][..], &[test_traces]] {
                let theirs = order_with(llvm, args, &[&path]);
                assert_ok(&theirs, "llvm-profdata order");
                let target = format!("--target-llvm={n}");
                let mut ours_args = vec!["order", target.as_str()];
                ours_args.extend(args);
                ours_args.push(path.to_str().unwrap());
                let ours = run_ours(&ours_args);
                assert_ok(&ours, "pgo-merge order");
                assert!(
                    ours.stdout == theirs.stdout,
                    "case {case} ({functions} functions, {traces} traces), llvm-profdata-{n} {args:?}:\n{}",
                    differing_lines(
                        &String::from_utf8_lossy(&ours.stdout),
                        &String::from_utf8_lossy(&theirs.stdout),
                        5,
                        "ours",
                        "theirs"
                    )
                );
            }
        }
    }
}

/// An empty trace of a text profile counts, as llvm-profdata reads it: kept aside by
/// `--num-test-traces=1`, it touches no page (area 0). A merge drops empty traces; reading
/// the one input through a merge took the trace before it as the test trace instead.
#[test]
fn an_empty_trace_is_kept_as_read() {
    let dir = tempdir();
    let path = dir.path().join("empty-trace.proftext");
    let mut text = String::from(
        "# IR level Instrumentation Flag\n:ir\n:temporal_prof_traces\n\
         # Num Temporal Profile Traces:\n3\n# Temporal Profile Trace Stream Size:\n3\n\
         # Weight:\n1\na,b,c,d,\n# Weight:\n1\nd,c,b,a,e,\n# Weight:\n1\n,\n\n",
    );
    for (i, f) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        text += &format!("{f}\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n{i}\n\n");
    }
    fs::write(&path, text).unwrap();
    let ours = run_ours([
        "order".as_ref(),
        "--num-test-traces=1".as_ref(),
        path.as_os_str(),
    ]);
    assert_ok(&ours, "order");
    let out = String::from_utf8_lossy(&ours.stdout).into_owned();
    assert!(
        out.starts_with(
            "# Ordered 5 functions\n# Total area under the page fault curve: 0.000000e+00\n"
        ),
        "{out}"
    );
    for n in [19, 22, 23] {
        if let Some(llvm) = tool(
            &format!("llvm-profdata-{n}"),
            "an_empty_trace_is_kept_as_read",
        ) {
            let theirs = order_with(&llvm, &["--num-test-traces=1"], &[&path]);
            assert_ok(&theirs, "llvm-profdata order");
            let target = format!("--target-llvm={n}");
            let ours = run_ours([
                "order".as_ref(),
                target.as_ref(),
                "--num-test-traces=1".as_ref(),
                path.as_os_str(),
            ]);
            assert_eq!(ours.stdout, theirs.stdout, "llvm-profdata-{n}");
        }
    }
}

/// A raw file holding two profiles (two runs appended) orders as llvm-profdata 19 and 22
/// order it: one trace of both runs' timestamps.
#[test]
fn a_raw_file_of_two_profiles_orders_as_llvm_profdata_does() {
    let dir = tempdir();
    let r1 = fs::read(inflated(dir.path(), "run1.profraw.gz")).unwrap();
    let r2 = fs::read(inflated(dir.path(), "run2.profraw.gz")).unwrap();
    let both = dir.path().join("both.profraw");
    fs::write(&both, [r1, r2].concat()).unwrap();
    for n in [19, 22] {
        let name = format!("llvm-profdata-{n}");
        let Some(llvm) = tool(
            &name,
            "a_raw_file_of_two_profiles_orders_as_llvm_profdata_does",
        ) else {
            continue;
        };
        let theirs = order_with(&llvm, &[], &[&both]);
        assert_ok(&theirs, "llvm-profdata order");
        let target = format!("--target-llvm={n}");
        let ours = run_ours(["order".as_ref(), target.as_ref(), both.as_os_str()]);
        assert_ok(&ours, "pgo-merge order");
        assert_eq!(ours.stdout, theirs.stdout, "{name}");
    }
}
