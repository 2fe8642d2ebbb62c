//! `pgo-merge overlap BASE TEST`.

use super::args::OverlapArgs;
use super::merge::emit_report;
use super::{EXIT_FAILURE, Mode};
use crate::backends::cfmt;
use crate::frontends::{self, InputFile, profraw::NameCache};
use crate::passes::overlap::{OverlapOptions, overlap};
use crate::passes::{MergeOptions, Weight, merge_profiles};

/// Runs `overlap`; returns the exit code.
pub fn run_overlap(a: OverlapArgs, mode: Mode) -> i32 {
    let cache = NameCache::new();
    let open = |p: &std::path::Path| -> Result<InputFile, i32> {
        InputFile::open(p).map_err(|e| {
            eprintln!("pgo-merge: error: {e}");
            EXIT_FAILURE
        })
    };
    let (bf, tf) = match (open(&a.base), open(&a.test)) {
        (Ok(b), Ok(t)) => (b, t),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    fn read<'a>(f: &'a InputFile, cache: &NameCache) -> Result<frontends::ReadOutput<'a>, i32> {
        frontends::read(f.bytes(), cache).map_err(|e| {
            eprintln!("pgo-merge: error: {}", e.with_path(f.path()));
            EXIT_FAILURE
        })
    }
    let (b, t) = match (read(&bf, &cache), read(&tf, &cache)) {
        (Ok(b), Ok(t)) => (b, t),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    // llvm-profdata loads the base into a writer, which merges records sharing a key.
    let merged = match merge_profiles(
        &[(&b.profile, Weight::ONE, a.base.as_path())],
        &MergeOptions {
            threads: 1,
            failure_mode: crate::passes::FailureMode::Warn,
            ..MergeOptions::default()
        },
    ) {
        Ok(m) => m.profile,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    let opts = OverlapOptions {
        cs: a.cs,
        value_cutoff: a.value_cutoff.unwrap_or(u64::MAX),
        name_filter: a.function.clone(),
    };
    let r = overlap(&merged, &t.profile, &opts);
    let base_name = a.base.display().to_string();
    let test_name = a.test.display().to_string();
    let mut out = String::new();
    if let Some(side) = r.zero_side {
        let which = if side == "base" {
            &base_name
        } else {
            &test_name
        };
        out.push_str(&format!("Sum of edge counts for profile {which} is 0.\n"));
    } else {
        for f in &r.functions {
            f.dump(&mut out, &base_name, &test_name);
        }
        r.program.dump(&mut out, &base_name, &test_name);
    }
    if mode == Mode::Native && a.top_differences > 0 && !r.differences.is_empty() {
        out.push_str("Largest differences in each function's share of the total count:\n");
        for (name, b, t) in r.differences.iter().take(a.top_differences) {
            out.push_str(&format!(
                "  {name}: base {}%, test {}%, difference {}%\n",
                cfmt::fixed(b * 100.0, 3),
                cfmt::fixed(t * 100.0, 3),
                cfmt::fixed((t - b) * 100.0, 3)
            ));
        }
    }
    emit_report(a.output.as_deref(), &out)
}
