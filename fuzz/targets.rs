//! The bodies of the fuzz targets, one function per target, shared by the fuzz workspace
//! (`fuzz/src/lib.rs` includes this file; each `fuzz/fuzz_targets/<name>.rs` calls its
//! function) and by the integration test `fuzz_regressions` (which includes it too and runs
//! every file of `fuzz/regressions/<name>/` through the same function). A body returns
//! normally for any input, good or bad: a panic (an overflow, a failed assertion, an index
//! out of bounds) is what the fuzzer and the test report.
//!
//! Only `pgo_merge`'s library API is used, as the pipeline uses it. Targets that take
//! several inputs split their bytes into parts at [`PART_SEPARATOR`]; their first part is a
//! few control bytes (options, weights), read through [`Control`] (missing bytes are 0).
//!
//! Oracles beyond "no panic": a raw profile read twice through the same name cache gives
//! the same profile; a strict iprof read that succeeds also succeeds leniently; the raw
//! fast path of a merge from files gives what the full reader gives; what the merges and
//! the symbolisation write reads back, with as many records, and the iprof merge's
//! canonical output is a fixed point of reading and writing again.

use std::io::Write;
use std::path::{Path, PathBuf};

use pgo_merge::backends::iprof as iprof_writer;
use pgo_merge::backends::profdata::{self as profdata_writer, ProfdataOptions};
use pgo_merge::frontends::code_regions::{
    describe_jitdump, describe_perf_map, describe_r2rmap, jitdump_source, perf_map_source,
    r2rmap_source,
};
use pgo_merge::frontends::iprof::{self, Lowerer, ReadOptions};
use pgo_merge::frontends::jitdump::{JitDumpReader, Record};
use pgo_merge::frontends::perf_script::{self, PerfScriptReader};
use pgo_merge::frontends::{self, perfmap, profdata, profraw, proftext};
use pgo_merge::ir::iprof::IprofProfile;
use pgo_merge::passes::iprof_merge::{InputScale, merge_owned};
use pgo_merge::passes::normalise::{self, NormalizeMode};
use pgo_merge::passes::symbolize::{self, SymbolizeOptions, SymbolizerBuilder};
use pgo_merge::passes::trim::{self, ColdThreshold, TrimOptions};
use pgo_merge::passes::{FailureMode, MergeOptions, Weight, merge_profiles};

/// A target's body.
pub type Body = fn(&[u8]);

/// Every target: its name (the file `fuzz/fuzz_targets/<name>.rs`, the folder
/// `fuzz/regressions/<name>/`) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("raw", raw),
    ("indexed", indexed),
    ("text", text),
    ("iprof", iprof_plain),
    ("iprof_gzip", iprof_gzip),
    ("jitdump", jitdump),
    ("perf_map", perf_map),
    ("r2rmap", r2rmap),
    ("perf_script", perf_script),
    ("llvm_merge", llvm_merge),
    ("raw_fast_path", raw_fast_path),
    ("iprof_merge", iprof_merge),
    ("symbolize", symbolize),
    ("sample_binary", sample_binary),
    ("sample_gcov", sample_gcov),
    ("bolt_fdata", bolt_fdata),
    ("bolt_yaml", bolt_yaml),
    ("gzip_input", gzip_input),
    ("correlate", correlate),
];

/// Separates the parts of a multi-input target's bytes (the seed script writes the same).
pub const PART_SEPARATOR: &[u8] = b"\n--pgo-merge-fuzz-part--\n";

/// Most parts a multi-input target looks at (control bytes included); the rest is ignored.
const MAX_PARTS: usize = 5;

/// `data` split at every [`PART_SEPARATOR`], at most [`MAX_PARTS`] parts.
pub fn parts(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while out.len() + 1 < MAX_PARTS {
        // memmem, not a window compare per byte: under the fuzzer's comparison tracing the
        // naive scan of 90 KB inputs took most of each execution.
        match memchr::memmem::find(rest, PART_SEPARATOR) {
            Some(i) => {
                out.push(&rest[..i]);
                rest = &rest[i + PART_SEPARATOR.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    out
}

/// Control bytes: options read by position, 0 past the end.
#[derive(Clone, Copy)]
pub struct Control<'a>(pub &'a [u8]);

impl Control<'_> {
    fn byte(self, i: usize) -> u8 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn bit(self, i: usize, bit: u8) -> bool {
        self.byte(i) & (1 << bit) != 0
    }

    fn u32(self, i: usize) -> u32 {
        u32::from_le_bytes([0, 1, 2, 3].map(|k| self.byte(i + k)))
    }

    fn u64(self, i: usize) -> u64 {
        u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7].map(|k| self.byte(i + k)))
    }

    /// A weight: 1 for 0, an integer 1–127 for the low values, a fraction above.
    fn weight(self, i: usize) -> Weight {
        match self.byte(i) {
            0 => Weight::ONE,
            b @ 1..=127 => Weight::integer(u64::from(b)).unwrap_or(Weight::ONE),
            b => format!("0.{:02}", b - 127).parse().unwrap_or(Weight::ONE),
        }
    }
}

// ---------------------------------------------------------------------------------------
// LLVM readers.

/// `frontends::profraw::read`, twice through one name cache (as a merge of many raw files
/// of one binary reads them): the second read must give the same profile.
pub fn raw(data: &[u8]) {
    let cache = profraw::NameCache::new();
    let Ok(first) = profraw::read(data, &cache) else {
        return;
    };
    let again = profraw::read(data, &cache).expect("a raw profile read once reads again");
    assert_eq!(first.profile.records.len(), again.profile.records.len());
    assert!(
        first
            .profile
            .records
            .iter()
            .zip(&again.profile.records)
            .all(|(a, b)| a.key == b.key && a.counters == b.counters && a.bitmap == b.bitmap),
        "two reads of one raw profile differ"
    );
}

/// `frontends::profdata::read` (and the header parser it starts with).
pub fn indexed(data: &[u8]) {
    let _ = profdata::parse_header(data);
    let _ = profdata::read(data);
}

/// `frontends::proftext::read`.
pub fn text(data: &[u8]) {
    let _ = proftext::read(data);
}

/// `frontends::sample::gcov::read` (GCC AutoFDO). Whatever reads is written again as
/// extbinary and as text; each output reads back with as many profiles (names are distinct
/// name-table strings, so the profiles stay apart).
pub fn sample_gcov(data: &[u8]) {
    use pgo_merge::backends::sample::extbinary as ext_w;
    use pgo_merge::frontends::sample::{extbinary as ext_r, gcov};
    let Ok(p) = gcov::read(data) else { return };
    let n = p.functions.len();
    let out = ext_w::write(&p, &ext_w::ExtBinaryOptions::default())
        .expect("extbinary of a profile just read");
    let back = ext_r::read(&out).expect("our extbinary reads back");
    assert_eq!(back.functions.len(), n, "extbinary");
}

/// `frontends::sample::{binary, extbinary}::read`. Whatever reads is written again as
/// extbinary (plain, and MD5 + compressed) and, when the format allows it, as binary; each
/// output reads back with as many profiles.
pub fn sample_binary(data: &[u8]) {
    use pgo_merge::backends::sample::{binary as bin_w, extbinary as ext_w};
    use pgo_merge::codec::sample_binary::SampleMagic;
    use pgo_merge::frontends::sample::{binary as bin_r, extbinary as ext_r};
    let read = match SampleMagic::sniff(data) {
        Some(SampleMagic::Binary) => bin_r::read(data),
        Some(SampleMagic::ExtBinary) => ext_r::read(data),
        Some(SampleMagic::CompactBinary) | None => return,
    };
    let Ok(p) = read else { return };
    // What identifies a profile once written: its text (an MD5 identity is written as its
    // decimal text) or, with MD5 names, its hash. A crafted file can hold a name and a hash
    // that become one; the count is checked only when they stay apart.
    let by_text: std::collections::HashSet<String> =
        p.functions.keys().map(|c| c.to_string()).collect();
    let by_hash: std::collections::HashSet<u64> = p
        .functions
        .keys()
        .map(|c| pgo_merge::codec::unordered_order::sample_map_key(c, p.context_hash))
        .collect();
    let n = p.functions.len();
    for (opts, distinct) in [
        (ext_w::ExtBinaryOptions::default(), by_text.len() == n),
        (
            {
                let mut new_ext_binary_options = ext_w::ExtBinaryOptions::default();
                new_ext_binary_options.use_md5 = true;
                new_ext_binary_options.compress_all_sections = true;
                new_ext_binary_options
            },
            by_hash.len() == n,
        ),
    ] {
        let out = ext_w::write(&p, &opts).expect("extbinary of a profile just read");
        let back = ext_r::read(&out).expect("our extbinary reads back");
        if distinct {
            assert_eq!(back.functions.len(), n, "extbinary {opts:?}");
        }
    }
    if let Ok(out) = bin_w::write(&p) {
        let back = bin_r::read(&out).expect("our binary reads back");
        if by_text.len() == n {
            assert_eq!(back.functions.len(), n, "binary");
        }
    }
}

// ---------------------------------------------------------------------------------------
// iprof readers.

/// `frontends::iprof::read` of the bytes as they are (JSON; gzip is inflated in memory),
/// strictly with every symbol kept and leniently with referenced symbols only (as merges
/// read). Whatever the strict reader accepts, the lenient one accepts without dropping
/// anything.
pub fn iprof_plain(data: &[u8]) {
    let strict = iprof::read(data, ReadOptions::default());
    let lenient = iprof::read(
        data,
        ReadOptions {
            lenient: true,
            referenced_symbols_only: true,
        },
    );
    if strict.is_ok() {
        let l = lenient.expect("what the strict iprof reader accepts, the lenient one accepts");
        assert_eq!(
            l.dropped, 0,
            "the lenient reader dropped from a strict-valid input"
        );
    }
}

/// The gzip path of the pipeline: `frontends::iprof::read_file_into` on a file (mapped,
/// inflated as a stream, the JSON lowered as it comes, an error located by inflating
/// again). Bytes that are not gzip data are compressed first, so that mutations of the JSON
/// reach the streaming reader; gzip bytes are written as they are.
pub fn iprof_gzip(data: &[u8]) {
    let gz;
    let bytes = if data.starts_with(&iprof::GZIP_MAGIC) {
        data
    } else {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).expect("gzip into memory");
        gz = e.finish().expect("gzip into memory");
        &gz
    };
    with_scratch_files(&[bytes], |paths| {
        let path = &paths[0];
        for lenient in [false, true] {
            let opts = ReadOptions {
                lenient,
                referenced_symbols_only: lenient,
            };
            let r = iprof::read_file_into(path, Lowerer::new(opts));
            if let Err(e) = r {
                // Every error of a file names it.
                assert!(e.to_string().contains(&*path.to_string_lossy()), "{e}");
            }
        }
    });
}

thread_local! {
    /// Scratch files, one set per thread, rewritten for every input (creating and removing
    /// files per execution costs more than reading them), in memory (`/dev/shm`) where
    /// there is one. They have no names: they are opened as `/proc/self/fd/N`, and go away
    /// with the process however the process ends.
    static SCRATCH: std::cell::RefCell<Vec<(std::fs::File, PathBuf)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on the paths of files holding exactly `contents`, in order.
fn with_scratch_files(contents: &[&[u8]], f: impl FnOnce(&[PathBuf])) {
    use std::os::fd::AsRawFd;
    SCRATCH.with(|cell| {
        let mut files = cell.borrow_mut();
        while files.len() < contents.len() {
            let shm = Path::new("/dev/shm");
            let file = if shm.is_dir() {
                tempfile::tempfile_in(shm)
            } else {
                tempfile::tempfile()
            }
            .expect("temporary file");
            let path = format!("/proc/self/fd/{}", file.as_raw_fd()).into();
            files.push((file, path));
        }
        for ((file, _), bytes) in files.iter_mut().zip(contents) {
            file.set_len(0).expect("truncate a scratch file");
            std::io::Seek::rewind(file).expect("rewind a scratch file");
            file.write_all(bytes).expect("write a scratch file");
        }
        let paths: Vec<PathBuf> = files
            .iter()
            .take(contents.len())
            .map(|(_, p)| p.clone())
            .collect();
        f(&paths);
    });
}

// ---------------------------------------------------------------------------------------
// Code regions and samples.

/// The jitdump record walk (every record, every line-table entry), the code regions
/// `symbolize` takes from it and the description `show` prints.
pub fn jitdump(data: &[u8]) {
    if let Ok(mut r) = JitDumpReader::new(data) {
        let mut last_size = None;
        loop {
            let before = r.offset();
            match r.next_record() {
                Ok(Some((_, rec))) => {
                    match rec {
                        Record::CodeLoad(l) => {
                            let _ = l.name_lossy();
                            last_size = Some(l.code_size);
                        }
                        Record::DebugInfo(d) => {
                            for e in d.entries(last_size) {
                                if e.is_err() {
                                    break;
                                }
                            }
                        }
                        _ => {}
                    }
                    assert!(r.is_done() || r.offset() > before, "jitdump walk stalled");
                }
                Ok(None) => break,
                Err(_) => {
                    if r.is_done() {
                        break;
                    }
                    assert!(r.offset() > before, "jitdump walk stalled after an error");
                }
            }
        }
    }
    let _ = jitdump_source(Path::new("jit-1.dump"), data);
    let _ = describe_jitdump(data);
}

/// A `perf-PID.map` as `symbolize` and `show` read it.
pub fn perf_map(data: &[u8]) {
    let _ = perfmap::sniff_perf_map(data);
    let src = perf_map_source(Path::new("perf-1.map"), data);
    for r in &src.regions {
        assert!(r.start <= r.end, "a perf-map region ends before it starts");
    }
    let _ = describe_perf_map(data);
}

/// An r2rmap as `symbolize` (at a low and at a high load base) and `show` read it.
pub fn r2rmap(data: &[u8]) {
    let _ = perfmap::sniff_r2rmap(data);
    for base in [0, 0x7fff_0000_0000, u64::MAX - 0xffff] {
        if let Ok(src) = r2rmap_source(Path::new("a.r2rmap"), data, base) {
            for r in &src.regions {
                assert!(r.start <= r.end, "an r2rmap region ends before it starts");
            }
        }
    }
    let _ = describe_r2rmap(data);
}

/// `perf script` text, sample by sample, to the end or the first error.
pub fn perf_script(data: &[u8]) {
    let _ = perf_script::sniff(data);
    let mut r = PerfScriptReader::new(data);
    let mut frames = Vec::new();
    while let Ok(Some(_)) = r.next_sample(&mut frames) {}
}

// ---------------------------------------------------------------------------------------
// Whole jobs, in memory.

/// The LLVM merge: control bytes, then up to four inputs of any LLVM format. The inputs
/// are read (`frontends::read`; unreadable ones are left out), merged
/// (`passes::merge_profiles`), written as an indexed profile (`backends::profdata::write`,
/// index version 7–14) and the output read again: it must read, with every record.
///
/// Control: byte 0 the failure mode (0 any, 1 all, 2 warn); byte 1 the index version;
/// byte 2 bit 0 sparse, bit 1 keep vtable symbols, bit 2 weight all values; bytes 3–6 the
/// inputs' weights.
pub fn llvm_merge(data: &[u8]) {
    let p = parts(data);
    let c = Control(p[0]);
    let cache = profraw::NameCache::new();
    let path = Path::new("input");
    let reads: Vec<_> = p[1..]
        .iter()
        .filter_map(|d| frontends::read(d, &cache).ok())
        .collect();
    if reads.is_empty() {
        return;
    }
    let inputs: Vec<_> = reads
        .iter()
        .enumerate()
        .map(|(i, r)| (&r.profile, c.weight(3 + i), path))
        .collect();
    let mut opts = MergeOptions::default();
    opts.failure_mode = match c.byte(0) % 3 {
        0 => FailureMode::Any,
        1 => FailureMode::All,
        _ => FailureMode::Warn,
    };
    opts.threads = 1;
    opts.weight_all_values = c.bit(2, 2);
    let Ok(merged) = merge_profiles(&inputs, &opts) else {
        return;
    };
    let span = profdata_writer::NEWEST_WRITTEN - profdata_writer::OLDEST_WRITTEN + 1;
    // Bit 3: write as one LLVM release (12–23) writes, else a bare index version.
    let llvm = c.bit(2, 3).then(|| 12 + u32::from(c.byte(1)) % 12);
    let mut wopts = ProfdataOptions::default();
    wopts.version = match llvm.and_then(profdata_writer::version_for_llvm) {
        Some(v) => v,
        None => profdata_writer::OLDEST_WRITTEN + u32::from(c.byte(1)) % span,
    };
    wopts.sparse = c.bit(2, 0);
    wopts.keep_vtable_symbols = c.bit(2, 1);
    wopts.preserve_record_order = merged.sole_input_indexed && llvm.is_none();
    wopts.llvm = llvm;
    wopts.strict = false;
    let (bytes, _) =
        profdata_writer::write(&merged.profile, &wopts).expect("a merged profile can be written");
    let back = profdata::read(&bytes).expect("what the indexed writer wrote reads back");
    if !wopts.sparse {
        assert_eq!(
            back.profile.records.len(),
            merged.profile.records.len(),
            "records lost between write and re-read"
        );
    }
}

/// The raw-layout fast path of `pipeline::merge_files`: control bytes and up to four
/// files, merged from files with the fast path (a raw file that teaches its binary's layout,
/// later files of that binary checked byte for byte against it and merged where their
/// counters lie) and without it. Both must give the same result: the same output bytes,
/// warnings, skipped inputs and errors. The seeds are raw files followed by copies of
/// themselves, so mutations of the copies reach the layout check.
///
/// Control: byte 0 the failure mode (0 any, 1 all, 2 warn); bytes 1–4 the inputs' weights.
pub fn raw_fast_path(data: &[u8]) {
    let p = parts(data);
    let c = Control(p[0]);
    let files = &p[1..];
    if files.is_empty() {
        return;
    }
    with_scratch_files(files, |paths| {
        let inputs: Vec<_> = paths
            .iter()
            .enumerate()
            .map(|(i, path)| pgo_merge::pipeline::InputSpec::new(path.clone(), c.weight(1 + i)))
            .collect();
        let run = |fast: bool| {
            let mut opts = MergeOptions::default();
            opts.failure_mode = match c.byte(0) % 3 {
                0 => FailureMode::Any,
                1 => FailureMode::All,
                _ => FailureMode::Warn,
            };
            opts.threads = 1;
            // One input per window: the first teaches the layout, the next use it.
            let mut read = pgo_merge::pipeline::ReadOptions::default();
            read.window = 1;
            read.raw_layouts = fast;
            let m = pgo_merge::pipeline::merge_files_with(&inputs, &opts, &read, None)
                .map_err(|e| e.to_string())?;
            let mut msgs: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
            msgs.extend(
                m.skipped
                    .iter()
                    .map(|(p, e)| format!("{}: {e}", p.display())),
            );
            msgs.push(format!("merged {}", m.inputs_merged));
            let bytes = profdata_writer::write(&m.profile, &ProfdataOptions::default())
                .map_err(|e| e.to_string())?
                .0;
            Ok::<_, String>((bytes, msgs))
        };
        let full = run(false);
        let fast = run(true);
        assert!(
            full == fast,
            "the raw fast path differs from the full reader\nfull: {:?}\nfast: {:?}",
            full.as_ref().map(|x| &x.1),
            fast.as_ref().map(|x| &x.1)
        );
    });
}

/// The iprof merge as `pipeline::iprof` does it, in memory: control bytes, then up to four
/// iprof inputs (JSON or gzip). Optionally normalised (a first read for the totals), each
/// input is lowered straight into the shared partial profile (failure mode `any`) or read on
/// its own and merged (`all`/`warn`: a bad input is left out), then trimmed, put in canonical
/// form, written, and read again: the output must read, and writing it again in canonical
/// form must give the same bytes.
///
/// Control: byte 0 bit 0 lenient, bit 1 keep all symbols, bit 2 lowered into the shared
/// profile, bits 3–4 normalisation (none, total, max); byte 1 the maximum context depth (0
/// none); byte 2 the cold threshold (0 none, 1–127 absolute, above a fraction); byte 3 bit
/// 0 sparse; bytes 4–7 the inputs' weights.
pub fn iprof_merge(data: &[u8]) {
    let p = parts(data);
    let c = Control(p[0]);
    let keep_all_symbols = c.bit(0, 1);
    let read_opts = ReadOptions {
        lenient: c.bit(0, 0),
        referenced_symbols_only: !keep_all_symbols,
    };
    let direct = c.bit(0, 2);
    let normalize = match (c.byte(0) >> 3) % 4 {
        1 => NormalizeMode::Total,
        2 => NormalizeMode::Max,
        _ => NormalizeMode::None,
    };
    let inflated: Vec<Vec<u8>> = p[1..]
        .iter()
        .filter_map(|d| match iprof::maybe_inflate(d) {
            Ok(Some(j)) => Some(j),
            Ok(None) => Some(d.to_vec()),
            Err(_) => None,
        })
        .filter(|j| !j.is_empty())
        .collect();
    let mut scales = vec![InputScale::default(); inflated.len()];
    for (i, s) in scales.iter_mut().enumerate() {
        s.weight = c.weight(4 + i);
        s.sections = InputScale::weighted(s.weight).sections;
    }
    if normalize != NormalizeMode::None {
        let totals: Vec<_> = inflated
            .iter()
            .filter_map(|j| iprof::read(j, read_opts).ok())
            .map(|l| l.profile.totals())
            .collect();
        if totals.len() != inflated.len() {
            return; // the pipeline reports the unreadable input here
        }
        for (s, f) in scales.iter_mut().zip(normalise::scales(normalize, &totals)) {
            s.sections = f;
        }
    }
    let target = std::sync::Arc::new(std::sync::Mutex::new(IprofProfile::new()));
    for (json, scale) in inflated.iter().zip(&scales) {
        let scale = *scale;
        if direct {
            let f: Option<iprof::CountScale> = (!scale.is_identity())
                .then(|| Box::new(move |s, c| scale.apply(s, c)) as iprof::CountScale);
            let l = Lowerer::into_shared(std::sync::Arc::clone(&target), read_opts, f);
            if iprof::stream::lower_json(json, l, None).is_err() {
                return; // failure mode `any`: the run fails
            }
        } else if let Ok(l) = iprof::stream::lower_json(json, Lowerer::new(read_opts), None) {
            let mut acc = target.lock().expect("one thread");
            merge_owned(&mut acc, l.profile, &scale);
        }
    }
    let partial = std::mem::take(&mut *target.lock().expect("one thread"));
    let mut merged = IprofProfile::new();
    merge_owned(&mut merged, partial, &InputScale::default());
    let mut trim_opts = TrimOptions::default();
    trim_opts.max_depth = match c.byte(1) {
        0 => None,
        d => Some(u32::from(d % 16) + 1),
    };
    trim_opts.cold_threshold = match c.byte(2) {
        0 => None,
        b @ 1..=127 => Some(ColdThreshold::Absolute(u64::from(b))),
        b => Some(ColdThreshold::Fraction {
            num: u64::from(b - 127),
            den: 256,
        }),
    };
    trim_opts.sparse = c.bit(3, 0);
    trim_opts.max_sampling_depth = match c.byte(4) {
        0 => None,
        d => Some(u32::from(d % 16) + 1),
    };
    if trim_opts.is_active() {
        merged = trim::trim(&merged, &trim_opts).0;
    }
    let merged = normalise::canonicalize_owned(merged, keep_all_symbols);
    let bytes = iprof_writer::to_vec(&merged);
    assert_eq!(bytes.len() as u64, iprof_writer::written_size(&merged));
    let back = iprof::read(
        &bytes,
        ReadOptions {
            lenient: false,
            referenced_symbols_only: !keep_all_symbols,
        },
    )
    .expect("what the iprof writer wrote reads back");
    assert_eq!(back.profile.entry_count(), merged.entry_count());
    let again = iprof_writer::to_vec(&normalise::canonicalize_owned(
        back.profile,
        keep_all_symbols,
    ));
    assert!(
        again == bytes,
        "the canonical iprof output is not a fixed point of reading and writing"
    );
}

/// JIT symbolisation: control bytes, a jitdump, a perf map, an r2rmap and `perf script`
/// text (an empty part is left out). The code sources go through `SymbolizerBuilder`, the
/// samples through `passes::symbolize`, and the stacks are written as folded stacks and as
/// an iprof, which must read back.
///
/// Control: byte 0 bit 0 names the perf map `perf-PID.map` (else it applies to every
/// process); bytes 1–4 that PID; bytes 5–12 the r2rmap's load base; bytes 13–20 the load
/// time slack.
pub fn symbolize(data: &[u8]) {
    let p = parts(data);
    let c = Control(p[0]);
    let part = |i: usize| p.get(i).copied().unwrap_or_default();
    let mut b = SymbolizerBuilder::new();
    if !part(1).is_empty()
        && let Ok(src) = jitdump_source(Path::new("jit-1.dump"), part(1))
    {
        b.add_source(src).expect("few regions");
    }
    if !part(2).is_empty() {
        let name = if c.bit(0, 0) {
            format!("perf-{}.map", c.u32(1))
        } else {
            "code.map".to_string()
        };
        b.add_source(perf_map_source(Path::new(&name), part(2)))
            .expect("few regions");
    }
    if !part(3).is_empty()
        && let Ok(src) = r2rmap_source(Path::new("a.r2rmap"), part(3), c.u64(5))
    {
        b.add_source(src).expect("few regions");
    }
    let Ok(sym) = b.build() else {
        return;
    };
    let mut opts = SymbolizeOptions::default();
    opts.load_time_slack_ns = c.u64(13);
    opts.pid = c.bit(0, 1).then(|| c.u32(2));
    let Ok(stacks) = symbolize::symbolize(&sym, PerfScriptReader::new(part(4)), &opts) else {
        return;
    };
    let mut folded = Vec::new();
    stacks.write_folded(&mut folded).expect("write to memory");
    let profile = stacks.to_iprof();
    let _ = symbolize::method_samples(&profile);
    let bytes = iprof_writer::to_vec(&profile);
    iprof::read_profile(&bytes).expect("the symbolised iprof reads back");
}

/// `frontends::bolt::fdata`: every line read is merged under both LLVM releases' keys, all
/// at once and in batches; the output is what a plain model keyed by the lines' text gives
/// (sorted by key bytes, counts summed saturating), and it reads back and merges to itself.
pub fn bolt_fdata(data: &[u8]) {
    use pgo_merge::frontends::bolt::FdataReader;
    use pgo_merge::ir::bolt::FdataSemantics;
    let reader = FdataReader::new(data);
    if reader.clone().any(|l| l.is_err()) {
        return;
    }
    for semantics in [FdataSemantics::Llvm19, FdataSemantics::Llvm20] {
        let out = bolt_fdata_merge(data, semantics, true);
        assert_eq!(
            out,
            bolt_fdata_merge(data, semantics, false),
            "batches differ"
        );
        assert_eq!(out, bolt_fdata_model(data, semantics), "the model differs");
        assert_eq!(
            bolt_fdata_merge(&out, semantics, true),
            out,
            "merging our output again changes it"
        );
    }
}

/// The merged and written profile of fdata `data` (checked to read).
fn bolt_fdata_merge(
    data: &[u8],
    semantics: pgo_merge::ir::bolt::FdataSemantics,
    whole: bool,
) -> Vec<u8> {
    use pgo_merge::backends::bolt::write_fdata;
    use pgo_merge::frontends::bolt::FdataReader;
    use pgo_merge::passes::bolt_merge::FdataMerge;
    let reader = FdataReader::new(data);
    let mode = reader.mode();
    let m = FdataMerge::new(semantics);
    m.folder()
        .fold(reader, mode, pgo_merge::Weight::ONE, whole, || Ok(()))
        .expect("checked lines");
    let mut out = Vec::new();
    write_fdata(&m.finish(mode).expect("memory"), &mut out).expect("write to memory");
    out
}

/// What merging `data` must give: lines keyed by their text, in the byte order of the keys.
fn bolt_fdata_model(data: &[u8], semantics: pgo_merge::ir::bolt::FdataSemantics) -> Vec<u8> {
    use pgo_merge::frontends::bolt::FdataReader;
    use pgo_merge::ir::bolt::{FdataLineKind, FdataSemantics};
    use std::collections::BTreeMap;
    let reader = FdataReader::new(data);
    let mut out = Vec::new();
    if reader.mode().bolted {
        out.extend_from_slice(b"boltedcollection\n");
    }
    if reader.mode().no_lbr {
        out.extend_from_slice(b"no_lbr\n");
    }
    let mut sums: BTreeMap<Vec<u8>, (u64, Option<u64>)> = BTreeMap::new();
    for l in reader {
        let l = l.expect("checked lines");
        let summed = semantics == FdataSemantics::Llvm20 && l.kind == FdataLineKind::Branch;
        let e = sums
            .entry(l.key(semantics).to_vec())
            .or_insert((0, summed.then_some(0)));
        e.0 = e.0.saturating_add(l.count);
        if let (Some(m), Some(lm)) = (e.1.as_mut(), l.mispreds) {
            *m = m.saturating_add(lm.value);
        }
    }
    for (k, (c, m)) in sums {
        out.extend_from_slice(&k);
        if let Some(m) = m {
            out.extend_from_slice(format!(" {m}").as_bytes());
        }
        out.extend_from_slice(format!(" {c}\n").as_bytes());
    }
    out
}

/// `frontends::bolt::yaml`: what reads is merged with itself and written; the output reads
/// back to the merged profile.
pub fn bolt_yaml(data: &[u8]) {
    use pgo_merge::backends::bolt::write_yaml;
    use pgo_merge::frontends::bolt::yaml::read_yaml;
    use pgo_merge::ir::bolt::FdataSemantics;
    use pgo_merge::passes::bolt_yaml_merge::YamlMerger;
    let Ok(p) = read_yaml(data) else { return };
    // Line breaks and tabs in a string do not survive LLVM's quoting (single quotes fold a
    // line break into a space); our writer quotes as LLVM does, so such strings are left out
    // of the round trip.
    let plain = |s: &str| !s.contains(['\n', '\r', '\t']);
    let h = &p.header;
    if ![&h.binary_name, &h.build_id, &h.origin, &h.events]
        .into_iter()
        .all(|s| plain(s))
        || !p.functions.iter().all(|f| plain(&f.name))
    {
        return;
    }
    let mut m = YamlMerger::new(FdataSemantics::Llvm20);
    if m.add(p.clone(), pgo_merge::Weight::ONE).is_err() || m.check(&p).is_err() {
        return;
    }
    if m.add(p, pgo_merge::Weight::ONE).is_err() {
        return;
    }
    let merged = m.finish();
    let mut out = Vec::new();
    write_yaml(&merged, &mut out).expect("write to memory");
    let mut back = read_yaml(&out).expect("our YAML reads back");
    for f in &mut back.functions {
        f.line = 0;
    }
    let mut want = merged;
    for f in &mut want.functions {
        f.line = 0;
    }
    assert_eq!(back, want, "our YAML reads back differently");
}

/// A gzip-compressed input, as every merge, `show` and `overlap` opens one: what it holds
/// (`frontends::gzip::inner_kind`), then, inflated as a merge inflates it (whole, within the
/// per-input budget), read as any LLVM profile. A stream that cannot be inflated is an error,
/// never a panic; what `needs_inflating` leaves alone is handed on as it is.
pub fn gzip_input(data: &[u8]) {
    let inner = frontends::gzip::inner_kind(data);
    let file = frontends::InputFile::from_bytes(Path::new("input"), data.to_vec());
    let Ok(file) = file.inflated() else {
        return;
    };
    if frontends::gzip::needs_inflating(data) {
        // Inflated: the first bytes are what the peek saw.
        assert_eq!(Some(frontends::FormatKind::sniff(file.bytes())), inner);
    } else {
        assert_eq!(file.bytes(), data, "left alone");
    }
    let _ = frontends::read(file.bytes(), &profraw::NameCache::new());
}

/// Correlation of lightweight raw profiles with binaries: parts are control bytes, a raw
/// profile and an ELF file (control bit 0: read it for debug-info correlation, else for
/// binary correlation). Reading the binary and completing the profile fail cleanly or give
/// a raw file that the raw reader reads or refuses, and in which no profile is left
/// lightweight.
pub fn correlate(data: &[u8]) {
    let p = parts(data);
    let (c, raw, elf) = match p.as_slice() {
        [c, raw, elf, ..] => (Control(c), *raw, *elf),
        _ => return,
    };
    let kind = if c.bit(0, 0) {
        frontends::correlate::CorrelateKind::DebugInfo
    } else {
        frontends::correlate::CorrelateKind::Binary
    };
    let Ok((binary, _)) =
        frontends::correlate::CorrelationBinary::parse(Path::new("bin"), elf, kind)
    else {
        return;
    };
    let Ok(Some(whole)) = profraw::correlate::correlate(raw, &[&binary]) else {
        return;
    };
    assert!(
        !profraw::correlate::needs_binary(&whole),
        "a completed file still holds a lightweight profile"
    );
    let _ = profraw::read(&whole, &profraw::NameCache::new());
}
