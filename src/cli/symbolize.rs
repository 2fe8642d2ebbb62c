//! `pgo-merge symbolize`: sampled stacks (`perf script` text) + jitdumps / perf maps /
//! r2rmaps → an iprof sampling profile or folded stacks.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::args::{SymbolizeArgs, SymbolizeFormatArg};
use super::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE};
use crate::frontends::InputFile;
use crate::frontends::code_regions::{jitdump_source, perf_map_source, r2rmap_source};
use crate::frontends::perf_script::PerfScriptReader;
use crate::passes::symbolize::{SymbolizeOptions, SymbolizerBuilder, method_samples, symbolize};

/// Splits `FILE@BASE`; BASE is hex with `0x` or decimal. A path that itself contains `@`
/// needs an explicit `@BASE` (the last `@` separates).
pub fn parse_r2r_arg(s: &str) -> Result<(PathBuf, u64), String> {
    match s.rsplit_once('@') {
        Some((file, base)) if !file.is_empty() => {
            let b = base.trim();
            let v = match b.strip_prefix("0x").or_else(|| b.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => b.parse::<u64>(),
            }
            .map_err(|_| {
                format!("--r2rmap {s:?}: BASE {base:?} is not a number (hex with 0x, or decimal)")
            })?;
            Ok((PathBuf::from(file), v))
        }
        _ => Ok((PathBuf::from(s), 0)),
    }
}

fn output_format(a: &SymbolizeArgs) -> Result<SymbolizeFormatArg, String> {
    if let Some(f) = a.output_format {
        return Ok(f);
    }
    let name = a.output.to_string_lossy();
    if name == "-" {
        return Err("writing to standard output (`-o -`) needs --output-format".into());
    }
    if name.ends_with(".iprof") {
        Ok(SymbolizeFormatArg::Iprof)
    } else if name.ends_with(".folded") {
        Ok(SymbolizeFormatArg::Folded)
    } else {
        Err(format!(
            "{}: the output's extension must be .iprof or .folded (or pass --output-format)",
            a.output.display()
        ))
    }
}

/// Runs `symbolize`; returns the exit code.
pub fn run_symbolize(a: SymbolizeArgs) -> i32 {
    let usage = |m: String| {
        eprintln!("pgo-merge symbolize: error: {m}");
        EXIT_USAGE
    };
    let format = match output_format(&a) {
        Ok(f) => f,
        Err(m) => return usage(m),
    };
    if a.jitdump.is_empty() && a.perf_map.is_empty() && a.r2rmap.is_empty() {
        return usage("give at least one --jitdump, --perf-map or --r2rmap".into());
    }
    let mut r2r = Vec::new();
    for s in &a.r2rmap {
        match parse_r2r_arg(s) {
            Ok(x) => r2r.push(x),
            Err(m) => return usage(m),
        }
    }
    let inputs: Vec<&Path> = a
        .jitdump
        .iter()
        .chain(&a.perf_map)
        .map(PathBuf::as_path)
        .chain(r2r.iter().map(|(p, _)| p.as_path()))
        .chain(std::iter::once(a.perf_script.as_path()))
        .collect();
    if let Some(same) = inputs.iter().find(|p| same_file(p, &a.output)) {
        eprintln!(
            "pgo-merge symbolize: error: {}: the output would overwrite an input",
            same.display()
        );
        return EXIT_FAILURE;
    }
    match run(&a, format, &r2r) {
        Ok(()) => EXIT_OK,
        // `symbolize … -o - | head`: the reader went away; not an error.
        Err(e) if matches!(e.kind(), crate::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe) => {
            EXIT_OK
        }
        Err(e) => {
            eprintln!("pgo-merge symbolize: error: {e}");
            EXIT_FAILURE
        }
    }
}

fn same_file(input: &Path, output: &Path) -> bool {
    input == output
        || matches!(
            (std::fs::canonicalize(input), std::fs::canonicalize(output)),
            (Ok(x), Ok(y)) if x == y
        )
}

fn run(a: &SymbolizeArgs, format: SymbolizeFormatArg, r2r: &[(PathBuf, u64)]) -> crate::Result<()> {
    let mut b = SymbolizerBuilder::new();
    for p in &a.jitdump {
        let f = InputFile::open(p)?;
        b.add_source(jitdump_source(p, f.bytes())?)?;
    }
    for p in &a.perf_map {
        let f = InputFile::open(p)?;
        b.add_source(perf_map_source(p, f.bytes()))?;
    }
    for (p, base) in r2r {
        let f = InputFile::open(p)?;
        b.add_source(r2rmap_source(p, f.bytes(), *base)?)?;
    }
    let sym = b.build()?;
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    if !a.quiet {
        for w in &sym.warnings {
            let _ = writeln!(err, "pgo-merge symbolize: warning: {w}");
        }
    }
    let script = InputFile::open(&a.perf_script)?;
    let opts = SymbolizeOptions {
        load_time_slack_ns: a.load_time_slack,
    };
    let stacks = symbolize(&sym, PerfScriptReader::new(script.bytes()), &opts)
        .map_err(|e| e.with_path(&a.perf_script))?;
    let s = stacks.stats;
    let profile = (format == SymbolizeFormatArg::Iprof || !a.quiet).then(|| stacks.to_iprof());
    match format {
        SymbolizeFormatArg::Folded => {
            let mut buf = Vec::new();
            stacks.write_folded(&mut buf)?;
            if a.output.as_os_str() == "-" {
                let mut so = std::io::stdout().lock();
                so.write_all(&buf).and_then(|_| so.flush())?;
            } else {
                crate::output::write_atomic(&a.output, &buf)?;
            }
        }
        SymbolizeFormatArg::Iprof => {
            if let Some(p) = &profile {
                super::iprof::write_output(&a.output, p)?;
            }
        }
    }
    if !a.quiet {
        let _ = writeln!(
            err,
            "pgo-merge symbolize: {} samples, {} frames; {} frames perf left [unknown]: {} \
             resolved by jitdump, {} by perf map/r2rmap{}, {} still unknown; {} distinct stacks",
            s.samples,
            s.frames,
            s.unknown_frames,
            s.resolved_jitdump,
            s.resolved_map,
            if s.resolved_early > 0 {
                format!(" ({} only thanks to --load-time-slack)", s.resolved_early)
            } else {
                String::new()
            },
            s.unresolved(),
            stacks.stacks.len()
        );
        if let Some(p) = &profile {
            let _ = writeln!(
                err,
                "pgo-merge symbolize: top methods (self / total samples):"
            );
            for m in method_samples(p).iter().take(10) {
                let _ = writeln!(
                    err,
                    "  {:>8} {:>8}  {}",
                    m.self_samples, m.total_samples, m.method
                );
            }
        }
        let _ = writeln!(err, "pgo-merge symbolize: wrote {}", a.output.display());
    }
    Ok(())
}
