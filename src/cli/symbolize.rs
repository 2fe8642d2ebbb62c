//! `pgo-merge symbolize`: symbolize arguments → [`SymbolizeRequest`]; the outcome → a
//! summary on stderr.

use pgo_merge::pipeline::symbolize::{check, parse_r2r_arg};
use pgo_merge::pipeline::{self, SymbolizeFormat, SymbolizeRequest};

use super::args::{SymbolizeArgs, SymbolizeFormatArg};
use super::{EXIT_OK, EXIT_USAGE, Mode, messages};

const PREFIX: &str = "pgo-merge symbolize";

/// Runs `symbolize`; returns the exit code.
pub fn run_symbolize(a: SymbolizeArgs) -> i32 {
    let usage = |e: pgo_merge::Error| {
        eprintln!("{PREFIX}: error: {e}");
        EXIT_USAGE
    };
    let mut r2rmaps = Vec::new();
    for s in &a.r2rmap {
        match parse_r2r_arg(s) {
            Ok(x) => r2rmaps.push(x),
            Err(e) => return usage(e),
        }
    }
    let mut req = SymbolizeRequest::default();
    req.perf_script = a.perf_script;
    req.jitdumps = a.jitdump;
    req.perf_maps = a.perf_map;
    req.r2rmaps = r2rmaps;
    req.output = a.output;
    req.format = a.output_format.map(|f| match f {
        SymbolizeFormatArg::Iprof => SymbolizeFormat::Iprof,
        SymbolizeFormatArg::Folded => SymbolizeFormat::Folded,
    });
    req.load_time_slack_ns = a.load_time_slack;
    req.pid = a.pid;
    req.top_methods = !a.quiet;
    match check(&req) {
        Ok(None) => {}
        // An output that names an input is a bad combination of arguments.
        Ok(Some(same)) => {
            eprintln!(
                "{PREFIX}: error: {}: the output would overwrite an input",
                same.display()
            );
            return EXIT_USAGE;
        }
        Err(e) => return usage(e),
    }
    let out = match pipeline::symbolize(&req) {
        Ok(o) => o,
        // `symbolize … -o - | head`: the reader went away; not an error.
        Err(e) if matches!(e.kind(), pgo_merge::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            return EXIT_OK;
        }
        Err(e) => return messages::error(PREFIX, &e, Mode::Native),
    };
    let quiet = a.quiet;
    messages::print(PREFIX, &out.messages, quiet);
    let s = &out.stats;
    messages::note(
        quiet,
        format_args!(
            "{PREFIX}: {} samples, {} frames; {} frames perf left [unknown]: {} resolved by \
             jitdump, {} by perf map/r2rmap{}, {} still unknown; {} distinct stacks{}",
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
            out.stacks,
            if s.resolved_file_relative > 0 {
                format!(
                    "; {} resolved frames lay inside file mappings (made absolute through the \
                     mmap events)",
                    s.resolved_file_relative
                )
            } else {
                String::new()
            }
        ),
    );
    if !out.top_methods.is_empty() || !quiet {
        messages::note(
            quiet,
            format_args!("{PREFIX}: top methods (self / total samples):"),
        );
        for m in &out.top_methods {
            messages::note(
                quiet,
                format_args!(
                    "  {:>8} {:>8}  {}",
                    m.self_samples, m.total_samples, m.method
                ),
            );
        }
    }
    messages::note(
        quiet,
        format_args!("{PREFIX}: wrote {}", req.output.display()),
    );
    EXIT_OK
}
