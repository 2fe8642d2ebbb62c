//! Sample-profile merges (`pgo-merge --sample`, `llvm-profdata merge --sample`): inputs read
//! by reader threads ahead of the fold, folded in input order by [`SampleMerger`], written
//! by a sample back-end. Also the other sample-profile jobs: `show --sample`
//! ([`show_sample`]) and `overlap --sample` ([`overlap_sample`]).
//!
//! Binary and extbinary inputs are read into the flat form ([`FlatSampleProfile`], a few
//! reused vectors) by their one reader and folded from it; the rare ones that are not
//! canonical (repeated keys, lines out of order) are folded from the tree built from that
//! form. Text inputs are read into the flat form when it holds them, else (from where it
//! stops holding them) into a [`SampleProfile`]. Every way gives the same result.
//!
//! Memory is bounded by the merged profile plus the inputs read but not yet folded (one per
//! reader thread, and one more), not by the number of inputs. The output does not depend on
//! the thread count: inputs are folded in order.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, mpsc};

use super::inputs::{Collect, Collector, Select, Sources};
use super::output::{self, Destination};
use super::{InputSpec, MergeOutcome, Message, Progress, Written, request_error};
use crate::backends::sample as writers;
pub use crate::backends::sample::extbinary::ExtBinaryOptions;
pub use crate::backends::sample::show::SampleShowOptions;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::open::{InputFile, SampleRead, SampleReader, SectionInfo};
pub use crate::ir::sample::FsDiscriminatorPass;
pub use crate::ir::sample::SampleFormat;
use crate::ir::sample::{FlatSampleProfile, SampleProfile};
use crate::passes::Weight;
use crate::passes::merge::FailureMode;
use crate::passes::remap::Remapping;
pub use crate::passes::sample::SampleOverlapOptions;
use crate::passes::sample::size_limit::SizeLimitPruner;
pub use crate::passes::sample::{ColdContextOptions, SampleLayout};
use crate::passes::sample::{
    SampleFilter, SampleMerger, convert_layout, overlap_sample as compare, trim_cold_contexts,
};

/// The LLVM release whose behaviour a sample merge follows when none is named.
pub const DEFAULT_TARGET_LLVM: u32 = 22;

/// What to merge, how and where to write it. `Default` is llvm-profdata's defaults (an
/// extbinary output) with no inputs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SampleMergeRequest {
    /// Input files, or directories (every regular file under them, as llvm-profdata).
    pub inputs: Vec<PathBuf>,
    /// Weighted inputs. Fractional weights scale each stored count and round it half up
    /// (llvm-profdata takes whole weights only).
    pub weighted_inputs: Vec<(Weight, PathBuf)>,
    /// Files listing inputs, one `FILE` or `W,FILE` per line.
    pub input_lists: Vec<PathBuf>,
    /// The output file (`-` is standard output); `None` is standard output in
    /// llvm-profdata mode and an error otherwise.
    pub output: Option<PathBuf>,
    /// The output encoding.
    pub output_format: SampleFormat,
    /// The LLVM release whose reader and writer to follow (text dialect); default
    /// [`DEFAULT_TARGET_LLVM`].
    pub target_llvm: Option<u32>,
    /// What to do with inputs that cannot be read.
    pub failure_mode: FailureMode,
    /// Leave the inputs' profile symbol lists out of the output.
    pub drop_profile_symbol_list: bool,
    /// Cold-context trimming and merging of context-sensitive profiles.
    pub cold_contexts: ColdContextOptions,
    /// Convert the merged profile to this layout (`--convert-sample-profile-layout`).
    pub layout: Option<SampleLayout>,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// llvm-profdata's conventions (standard output by default).
    pub llvm_profdata: bool,
    /// Extbinary writer options (`--use-md5`, `--compress-all-sections`,
    /// `--gen-partial-profile`, `--split-layout`); ignored by the other encodings.
    pub extbinary: ExtBinaryOptions,
    /// A file of symbols, one a line, added to the profile symbol list
    /// (`--prof-sym-list`; extbinary only).
    pub prof_sym_list: Option<PathBuf>,
    /// A symbol remapping file (`--remapping-file`): every input's names are renamed
    /// through it before merging, as llvm-profdata does ([`crate::passes::sample::remap`]).
    pub remapping_file: Option<PathBuf>,
    /// Drop the coldest functions until the output is at most this many bytes
    /// (`--output-size-limit`); 0 is no limit.
    pub output_size_limit: u64,
    /// Keep only the top-level profiles whose context matches this pattern (`--function`).
    pub function: Option<String>,
    /// Drop the top-level profiles whose context matches this pattern (`--no-function`;
    /// it wins over `function`).
    pub no_function: Option<String>,
    /// Drop the top-level profiles without samples (`--sparse`, natively; llvm-profdata
    /// accepts it with `--sample` and ignores it, and so does the drop-in).
    pub sparse: bool,
    /// The flow-sensitive discriminator bits kept (`--fs-discriminator-pass`): in the
    /// inputs whose discriminators are flow-sensitive, as LLVM's readers mask them, and in
    /// the body samples and call targets of every remapped input, as llvm-profdata's
    /// remapping masks them.
    pub fs_discriminator_pass: FsDiscriminatorPass,
    /// Text and binary inputs have flow-sensitive discriminators (`--profile-isfs`, LLVM's
    /// hidden reader option); extbinary inputs say so themselves.
    pub profile_is_fs: bool,
}

impl Default for SampleMergeRequest {
    fn default() -> Self {
        SampleMergeRequest {
            inputs: Vec::new(),
            weighted_inputs: Vec::new(),
            input_lists: Vec::new(),
            output: None,
            output_format: SampleFormat::ExtBinary,
            target_llvm: None,
            failure_mode: FailureMode::Any,
            drop_profile_symbol_list: false,
            cold_contexts: ColdContextOptions::default(),
            layout: None,
            threads: 0,
            llvm_profdata: false,
            extbinary: ExtBinaryOptions::default(),
            prof_sym_list: None,
            remapping_file: None,
            output_size_limit: 0,
            function: None,
            no_function: None,
            sparse: false,
            fs_discriminator_pass: FsDiscriminatorPass::PassLast,
            profile_is_fs: false,
        }
    }
}

/// The merged profile of a request, before it is written.
#[derive(Debug)]
#[non_exhaustive]
pub struct SampleMerged {
    /// The profile.
    pub profile: SampleProfile,
    /// Inputs merged.
    pub inputs_merged: usize,
    /// Inputs there were.
    pub inputs_total: usize,
    /// Warnings and skipped inputs, in order.
    pub messages: Vec<Message>,
}

/// The reader of a request's inputs.
fn reader(r: &SampleMergeRequest) -> SampleReader {
    reader_for(r.target_llvm, r.fs_discriminator_pass, r.profile_is_fs)
}

/// Reads and merges the inputs of `r` (no output written).
pub fn merge_sample_profiles(
    r: &SampleMergeRequest,
    progress: &dyn Progress,
) -> Result<SampleMerged> {
    // A bad pattern is refused before any input is read.
    let filter = sample_filter(r)?;
    let sources = Sources {
        inputs: r.inputs.clone(),
        weighted: r.weighted_inputs.clone(),
        lists: r.input_lists.clone(),
    };
    let output = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let how = Collect {
        select: Select::EveryFile,
        output: Some(&output),
        require_found: false,
        regular_lists_only: false,
        missing_to_merge: super::merge::missing_to_merge(r.llvm_profdata, r.failure_mode),
        family: None,
    };
    let collected = Collector::new().collect(&sources, &how)?;
    let mut inputs = collected.inputs;
    let dropped = if r.llvm_profdata {
        super::inputs::drop_non_regular(&mut inputs)
    } else {
        Vec::new()
    };
    if inputs.is_empty() {
        return Err(request_error("no input files"));
    }
    if r.cold_contexts.frame_depth == 0 {
        return Err(request_error(
            "--sample-frame-depth-for-cold-context must be at least 1 (1 keeps the base profile)",
        ));
    }
    let weights: Vec<Weight> = inputs.iter().map(|i| i.weight).collect();
    let remapping = match &r.remapping_file {
        Some(f) => {
            let bytes = std::fs::read(f).map_err(|e| Error::new(ErrorKind::Io(e)).with_path(f))?;
            Some(Remapping::parse_bytes(&bytes).map_err(|e| e.with_path(f))?)
        }
        None => None,
    };
    let reader = reader(r);
    let (threads, capped) = crate::sys::threads::resolve(r.threads);
    progress.start(inputs.len());
    let mut merger = SampleMerger::with_context_hash(reader.context_hash());
    let mut messages = collected.warnings;
    messages.extend(dropped.into_iter().map(Message::Warning));
    let mut failed = 0usize;
    // The inputs merged, in order, to name them in the merge's warnings.
    let mut merged_paths: Vec<&PathBuf> = Vec::new();
    let mut done = 0usize;
    let fold = |index: usize, res: Result<SampleRead>, flat: &FlatSampleProfile| -> Result<()> {
        let input = &inputs[index];
        // An input the flat form read but the merge cannot fold flat (one name under two
        // indices) is merged in tree form, built from the flat form.
        let res = match res {
            Ok(SampleRead::Flat) => match merger.add_flat(flat, weights[index]) {
                Ok(true) => Ok(None),
                Ok(false) => Ok(Some(reader.tree(flat))),
                Err(e) => return Err(e.with_path(&input.path)),
            },
            Ok(SampleRead::Tree(profile)) => Ok(Some(*profile)),
            Err(e) => Err(e),
        };
        match res {
            Ok(profile) => {
                if let Some(profile) = profile {
                    match &remapping {
                        Some(remap) => merger.add_remapped(
                            profile,
                            weights[index],
                            remap,
                            reader.fs_pass().mask(),
                        ),
                        None => merger.add(profile, weights[index]),
                    }
                    .map_err(|e| e.with_path(&input.path))?;
                }
                merged_paths.push(&input.path);
            }
            Err(e) => {
                if r.failure_mode == FailureMode::Any {
                    return Err(e);
                }
                failed += 1;
                messages.push(Message::Skipped(input.path.clone(), e));
            }
        }
        done += 1;
        progress.set(done);
        Ok(())
    };
    // Remapped inputs are merged in map form: the flat form's fold keeps input names. So are
    // inputs read with a discriminator mask or as flow-sensitive: the flat form reads all
    // bits and knows the flag only from extbinary summaries.
    let flat = remapping.is_none()
        && reader.fs_pass() == FsDiscriminatorPass::PassLast
        && !reader.profile_is_fs();
    let refused = read_in_order(&inputs, &reader, threads, flat, fold)?;
    messages.splice(
        0..0,
        capped.into_iter().chain(refused).map(Message::Warning),
    );
    progress.finish();
    if failed == inputs.len() {
        return Err(Error::new(crate::error::ErrorKind::Request(
            "no profile can be merged: every input failed to read".into(),
        )));
    }
    let merged_inputs = merger.inputs();
    let (mut profile, issues) = merger.finish();
    for issue in issues {
        let mut w = Warning::new(issue.kind.message());
        w.function = Some(issue.context.to_string());
        if let Some(p) = merged_paths.get(issue.input) {
            w = w.with_path(p);
        }
        messages.push(Message::Warning(w));
    }
    trim_cold_contexts(&mut profile, &r.cold_contexts)?;
    if let Some(layout) = r.layout {
        convert_layout(&mut profile, layout);
    }
    if r.drop_profile_symbol_list {
        profile.symbol_list = None;
    }
    if !filter.is_empty() {
        let (removed, total) = filter.retain(&mut profile);
        messages.push(Message::Filtered { removed, total });
    }
    if r.sparse && !r.llvm_profdata {
        crate::passes::sample::filter::drop_empty(&mut profile);
    }
    Ok(SampleMerged {
        profile,
        inputs_merged: merged_inputs,
        inputs_total: inputs.len(),
        messages,
    })
}

/// Reads `inputs` and hands each to `fold` in input order, with the flat buffer it was read
/// into. With one thread the calling thread reads and folds in turn; with `threads` ≥ 2,
/// that many threads read ahead while the calling thread folds (as many as the system
/// starts: the warning returned says why not all, and with none the calling thread reads
/// too). Each reader takes a free
/// buffer before it takes the next input, so at most `threads + 1` inputs are read but not
/// yet folded (memory does not grow with the number of inputs), and the input the fold
/// waits for always has a buffer (no deadlock). Stops at the first error of `fold`.
fn read_in_order(
    inputs: &[InputSpec],
    reader: &SampleReader,
    threads: usize,
    flat_form: bool,
    mut fold: impl FnMut(usize, Result<SampleRead>, &FlatSampleProfile) -> Result<()>,
) -> Result<Option<Warning>> {
    let sequential = |fold: &mut FoldFn<'_>| {
        let mut flat = FlatSampleProfile::new();
        for (index, input) in inputs.iter().enumerate() {
            let res = read_for_merge(input, reader, flat_form, &mut flat);
            fold(index, res, &flat)?;
        }
        Ok(())
    };
    if threads <= 1 || inputs.len() <= 1 {
        return sequential(&mut fold).map(|()| None);
    }
    let queue = Mutex::new(ReadQueue {
        free: (0..=threads).map(|_| FlatSampleProfile::new()).collect(),
        next: 0,
        stop: false,
    });
    let wake = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, Result<SampleRead>, FlatSampleProfile)>();
    // One sender per reader, taken by the reader that starts (a reader that stops drops
    // it): when every reader has stopped, receiving fails instead of waiting for ever.
    let senders: Vec<Mutex<Option<Sender>>> =
        (0..threads).map(|_| Mutex::new(Some(tx.clone()))).collect();
    drop(tx);
    let reader = |w: usize| {
        let taken = senders.get(w).and_then(|s| s.lock().ok()?.take());
        if let Some(tx) = taken {
            read_ahead(inputs, reader, flat_form, &queue, &wake, &tx);
        }
    };
    let (result, helped, refused) =
        crate::sys::threads::scoped_workers(threads, reader, |started| {
            // Readers that did not start never take their senders.
            for s in senders.iter().skip(started) {
                if let Ok(mut s) = s.lock() {
                    s.take();
                }
            }
            let result = if started == 0 {
                sequential(&mut fold)
            } else {
                fold_in_order(inputs.len(), &rx, &queue, &wake, &mut fold)
            };
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            q.stop = true;
            drop(q);
            wake.notify_all();
            result
        });
    result?;
    let with = match helped.len() {
        0 => "reading on the fold's thread".to_string(),
        n => format!("reading with {n}"),
    };
    Ok(refused.map(|e| {
        Warning::new(format!(
            "could not start {threads} reader threads, {with}: {}",
            crate::sys::threads::spawn_failure(&e)
        ))
    }))
}

/// What the fold does with an input read: its index, the result, the buffer read into.
type FoldFn<'f> = dyn FnMut(usize, Result<SampleRead>, &FlatSampleProfile) -> Result<()> + 'f;

/// The channel end a reader sends what it read on: (input index, result, buffer).
type Sender = mpsc::Sender<(usize, Result<SampleRead>, FlatSampleProfile)>;

/// What readers share: free buffers, the next input to read, and whether to stop.
struct ReadQueue {
    free: Vec<FlatSampleProfile>,
    next: usize,
    stop: bool,
}

/// A reader: takes a free buffer, then the next input, reads it and sends it, until the
/// inputs run out or the fold stops.
fn read_ahead(
    inputs: &[InputSpec],
    reader: &SampleReader,
    flat_form: bool,
    queue: &Mutex<ReadQueue>,
    wake: &Condvar,
    tx: &Sender,
) {
    loop {
        let (index, mut flat) = {
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.stop || q.next >= inputs.len() {
                    return;
                }
                if let Some(b) = q.free.pop() {
                    q.next += 1;
                    break (q.next - 1, b);
                }
                q = wake.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let Some(input) = inputs.get(index) else {
            return;
        };
        let res = read_for_merge(input, reader, flat_form, &mut flat);
        if tx.send((index, res, flat)).is_err() {
            return;
        }
    }
}

/// The fold's side: receives the `n` inputs the readers send, hands each to `fold` in
/// input order, and gives its buffer back. Stops at the first error of `fold`.
fn fold_in_order(
    n: usize,
    rx: &mpsc::Receiver<(usize, Result<SampleRead>, FlatSampleProfile)>,
    queue: &Mutex<ReadQueue>,
    wake: &Condvar,
    fold: &mut FoldFn<'_>,
) -> Result<()> {
    let mut pending: BTreeMap<usize, (Result<SampleRead>, FlatSampleProfile)> = BTreeMap::new();
    for index in 0..n {
        let (res, flat) = loop {
            if let Some(x) = pending.remove(&index) {
                break x;
            }
            let Ok((i, res, flat)) = rx.recv() else {
                return Err(Error::new(ErrorKind::Io(std::io::Error::other(
                    "a reader of sample profiles stopped",
                ))));
            };
            pending.insert(i, (res, flat));
        };
        let out = fold(index, res, &flat);
        queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .free
            .push(flat);
        wake.notify_one();
        out?;
    }
    Ok(())
}

/// Opens and reads one input for a merge ([`SampleReader::read_for_merge`]); errors carry
/// its path.
fn read_for_merge(
    i: &InputSpec,
    reader: &SampleReader,
    flat_form: bool,
    flat: &mut FlatSampleProfile,
) -> Result<SampleRead> {
    let file = i.open()?;
    let parsed = reader
        .read_for_merge(file.bytes(), flat_form, flat)
        .map_err(|e| file.or_changed(e).with_path(&i.path))?;
    file.check_unchanged().map_err(|e| e.with_path(&i.path))?;
    Ok(parsed)
}

/// Opens and reads one input; errors carry its path.
fn read_one(i: &InputSpec, reader: &SampleReader) -> Result<SampleProfile> {
    let file = i.open()?;
    let profile = reader
        .read(file.bytes())
        .map_err(|e| file.or_changed(e).with_path(&i.path))?;
    file.check_unchanged().map_err(|e| e.with_path(&i.path))?;
    Ok(profile)
}

/// The bytes of `profile` in `format`, extbinary with llvm-profdata's default options.
pub fn encode(profile: &SampleProfile, format: SampleFormat) -> Result<Vec<u8>> {
    encode_with(profile, format, &ExtBinaryOptions::default())
}

/// The bytes of `profile` in `format` (`extbinary` options apply to the extbinary encoding).
pub fn encode_with(
    profile: &SampleProfile,
    format: SampleFormat,
    extbinary: &ExtBinaryOptions,
) -> Result<Vec<u8>> {
    match format {
        SampleFormat::Text => Ok(writers::write_text(profile)),
        SampleFormat::Binary => writers::binary::write(profile),
        SampleFormat::ExtBinary => writers::extbinary::write(profile, extbinary),
        other => Err(request_error(format!(
            "Profile encoding format unsupported for writing operations: {} sample profiles \
             are read, never written (as by llvm-profdata); use --text, --binary or --extbinary",
            other.name()
        ))),
    }
}

/// The bytes of `profile` in `format` within `limit` bytes (0: no limit), as llvm-profdata's
/// `writeWithSizeLimit`: written whole, then, while over the limit, written again without
/// its coldest functions ([`SizeLimitPruner`]). `profile` is left pruned. An error if no
/// output with at least one function fits.
pub fn encode_within(
    profile: &mut SampleProfile,
    format: SampleFormat,
    extbinary: &ExtBinaryOptions,
    limit: u64,
) -> Result<Vec<u8>> {
    if limit == 0 {
        return encode_with(profile, format, extbinary);
    }
    let mut pruner = SizeLimitPruner::new(profile, limit);
    // One extbinary writer for every attempt: flags an earlier attempt set stay set.
    let mut ext_writer = writers::extbinary::ExtBinaryWriter::new(*extbinary);
    let mut last = None;
    while !profile.functions.is_empty() {
        let bytes = match format {
            SampleFormat::ExtBinary => ext_writer.write(profile)?,
            _ => encode_with(profile, format, extbinary)?,
        };
        let size = bytes.len() as u64;
        if size <= limit {
            return Ok(bytes);
        }
        last = Some((profile.functions.len(), size));
        pruner.prune(profile, size);
    }
    let why = match last {
        Some((functions, size)) => format!(
            "the smallest {} output tried, of {functions} function{}, is {size} bytes",
            format.name(),
            if functions == 1 { "" } else { "s" }
        ),
        None => "the merged profile has no function, and llvm-profdata writes no empty \
                 profile under a size limit"
            .to_string(),
    };
    Err(Error::new(ErrorKind::CannotWrite(format!(
        "--output-size-limit={limit} cannot be met: {why} (llvm-profdata: \"Too much profile \
         data\")"
    ))))
}

/// Adds the symbols of `path` (one a line, trimmed, blank lines skipped, as llvm-profdata's
/// `--prof-sym-list` reads them) to the profile symbol list.
fn add_symbol_list_file(profile: &mut SampleProfile, path: &std::path::Path) -> Result<()> {
    let text = std::fs::read(path).map_err(|e| Error::new(e.into()).with_path(path))?;
    let list = profile.symbol_list.get_or_insert_with(Default::default);
    for line in text.split(|&b| b == b'\n') {
        let t = line.trim_ascii();
        if !t.is_empty() {
            list.names.insert(t.into());
        }
    }
    Ok(())
}

/// The function filters of `r`, compiled (a bad pattern is a request error).
fn sample_filter(r: &SampleMergeRequest) -> Result<SampleFilter> {
    fn compile(p: Option<&str>) -> Result<Option<(regex::Regex, &str)>> {
        p.map(|text| {
            crate::passes::filter::compile(text)
                .map(|re| (re, text))
                .map_err(|e| request_error(e.to_string()))
        })
        .transpose()
    }
    Ok(SampleFilter::new(
        compile(r.function.as_deref())?,
        compile(r.no_function.as_deref())?,
    ))
}

/// Runs a sample merge: reads, merges and writes.
pub fn merge_sample(r: &SampleMergeRequest, progress: &dyn Progress) -> Result<MergeOutcome> {
    let output = match (&r.output, r.llvm_profdata) {
        (Some(o), _) => o.clone(),
        (None, true) => PathBuf::from("-"),
        (None, false) => {
            return Err(request_error(
                "no output: name one with -o FILE (- for standard output)",
            ));
        }
    };
    // Refuse an output we cannot write before reading anything.
    encode_with(&SampleProfile::new(), r.output_format, &r.extbinary)?;
    let mut merged = merge_sample_profiles(r, progress)?;
    if let Some(list) = &r.prof_sym_list {
        add_symbol_list_file(&mut merged.profile, list)?;
    }
    if r.remapping_file.is_some()
        && merged.profile.flags.context_sensitive
        && r.output_format == SampleFormat::ExtBinary
    {
        return Err(request_error(
            "--remapping-file with context-sensitive profiles: llvm-profdata replaces each \
             context by its renamed leaf function and writes an extbinary file that no reader \
             can read back; write --text, or convert the profile \
             (--convert-sample-profile-layout=flat or nest)",
        ));
    }
    let bytes = encode_within(
        &mut merged.profile,
        r.output_format,
        &r.extbinary,
        r.output_size_limit,
    )?;
    output::write_bytes(&Destination::of(&output), &bytes)?;
    Ok(MergeOutcome {
        output,
        written: Written::Sample {
            format: r.output_format,
        },
        records: merged.profile.functions.len(),
        inputs_merged: merged.inputs_merged,
        inputs_total: merged.inputs_total,
        messages: merged.messages,
        memory: super::MergedMemory::default(),
    })
}

/// What `show --sample` shows.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SampleShowRequest {
    /// The profile.
    pub file: PathBuf,
    /// What to print.
    pub options: SampleShowOptions,
    /// Only the section table of an extbinary file (`--show-sec-info-only`); the profile is
    /// not read. Other encodings have none: a warning, and nothing is printed.
    pub section_info_only: bool,
    /// The LLVM release whose reader and report to follow.
    pub target_llvm: Option<u32>,
    /// Where the report goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// The flow-sensitive discriminator bits kept in inputs whose discriminators are
    /// flow-sensitive (`--fs-discriminator-pass`), as LLVM's readers mask them.
    pub fs_discriminator_pass: FsDiscriminatorPass,
    /// Text and binary inputs have flow-sensitive discriminators (`--profile-isfs`).
    pub profile_is_fs: bool,
}

/// The reader of the LLVM release `target_llvm` (default [`DEFAULT_TARGET_LLVM`]), with the
/// flow-sensitive discriminator options.
fn reader_for(
    target_llvm: Option<u32>,
    fs_pass: FsDiscriminatorPass,
    profile_is_fs: bool,
) -> SampleReader {
    SampleReader::new(
        target_llvm.unwrap_or(DEFAULT_TARGET_LLVM),
        fs_pass,
        profile_is_fs,
    )
}

/// Reads one sample profile and writes its `show --sample` report; returns warnings.
pub fn show_sample(r: &SampleShowRequest) -> Result<Vec<Message>> {
    if let Some(o) = &r.output
        && super::show::same_file(&r.file, o)
    {
        return Err(request_error(format!(
            "{}: Input file name cannot be the same as the output file name!",
            r.file.display()
        )));
    }
    let dest = Destination::of(r.output.as_deref().unwrap_or(std::path::Path::new("-")));
    if r.section_info_only {
        let file = InputFile::open(&r.file)?.inflated()?;
        let reader = reader_for(r.target_llvm, r.fs_discriminator_pass, r.profile_is_fs);
        let info = reader
            .section_info(file.bytes())
            .map_err(|e| file.or_changed(e).with_path(&r.file))?;
        let report = match info {
            SectionInfo::Table(table) => {
                if table.is_empty() {
                    return Err(Error::at(
                        16,
                        ErrorKind::Malformed {
                            what: "section table",
                            detail: "an extbinary profile without sections has no section \
                                     information to show (llvm-profdata reads past its table)"
                                .into(),
                        },
                    )
                    .with_path(&r.file));
                }
                writers::show::section_info(&table)
            }
            SectionInfo::NotExtBinary => {
                output::write_bytes(&dest, b"")?;
                return Ok(vec![Message::Warning(Warning::new(
                    "-show-sec-info-only is only supported for sample profile in extbinary \
                     format and is ignored for other formats.",
                ))]);
            }
        };
        file.check_unchanged().map_err(|e| e.with_path(&r.file))?;
        output::write_bytes(&dest, report.as_bytes())?;
        return Ok(Vec::new());
    }
    let input = InputSpec::new(&r.file, Weight::ONE);
    let profile = read_one(
        &input,
        &reader_for(r.target_llvm, r.fs_discriminator_pass, r.profile_is_fs),
    )?;
    if r.options.symbol_list && profile.symbol_list.is_none() {
        return Err(request_error(format!(
            "{}: the profile has no profile symbol list to show (only extbinary profiles \
             carry one; llvm-profdata crashes here)",
            r.file.display()
        )));
    }
    let report = writers::show::show(&profile, &r.options);
    output::write_bytes(&dest, report.as_bytes())?;
    Ok(Vec::new())
}

/// What `overlap --sample` compares.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SampleOverlapRequest {
    /// The base profile.
    pub base: PathBuf,
    /// The test profile.
    pub test: PathBuf,
    /// Which functions the per-function table lists.
    pub options: SampleOverlapOptions,
    /// The LLVM release whose reader to follow (the text dialect).
    pub target_llvm: Option<u32>,
    /// Where the report goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// The flow-sensitive discriminator bits kept in inputs whose discriminators are
    /// flow-sensitive (`--fs-discriminator-pass`), as LLVM's readers mask them.
    pub fs_discriminator_pass: FsDiscriminatorPass,
    /// Text and binary inputs have flow-sensitive discriminators (`--profile-isfs`).
    pub profile_is_fs: bool,
    /// A JSON document (`schemas/overlap.schema.json`) instead of llvm-profdata's text.
    pub json: bool,
}

/// Reads two sample profiles and writes the report of `llvm-profdata overlap --sample` on
/// them (or its JSON document).
pub fn overlap_sample(r: &SampleOverlapRequest) -> Result<()> {
    super::overlap::refuse_output_input(&r.base, &r.test, r.output.as_deref())?;
    let reader = reader_for(r.target_llvm, r.fs_discriminator_pass, r.profile_is_fs);
    let read = |path: &PathBuf| read_one(&InputSpec::new(path, Weight::ONE), &reader);
    let base = read(&r.base)?;
    let test = read(&r.test)?;
    let figures = compare(&base, &test, &r.options)?;
    let (base_name, test_name) = (
        r.base.as_os_str().as_encoded_bytes(),
        r.test.as_os_str().as_encoded_bytes(),
    );
    let report = if r.json {
        let doc = writers::overlap::json(&figures, base_name, test_name);
        super::overlap::json_text(&doc).into_bytes()
    } else {
        writers::overlap::report(
            &figures,
            base_name,
            test_name,
            r.target_llvm.unwrap_or(DEFAULT_TARGET_LLVM),
        )
    };
    let dest = Destination::of(r.output.as_deref().unwrap_or(std::path::Path::new("-")));
    output::write_bytes(&dest, &report)
}
