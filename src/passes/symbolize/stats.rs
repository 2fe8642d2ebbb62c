//! Counts of one symbolisation, and the warnings they call for.

/// Counts of one symbolisation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SymbolizeStats {
    /// Samples read.
    pub samples: u64,
    /// Frames read.
    pub frames: u64,
    /// Frames perf could not name.
    pub unknown_frames: u64,
    /// Of those, resolved through a jitdump.
    pub resolved_jitdump: u64,
    /// Of those, resolved through a perf map or r2rmap.
    pub resolved_map: u64,
    /// Resolved only thanks to the load-time slack.
    pub resolved_early: u64,
    /// Mapping events (`perf script --show-mmap-events`) of processes read.
    pub mapping_events: u64,
    /// Task events (`perf script --show-task-events`: forks and comms) read.
    pub task_events: u64,
    /// Resolved frames perf printed relative to a file mapping (made absolute through the
    /// mapping events).
    pub resolved_file_relative: u64,
    /// Unknown frames perf printed relative to a file mapping that no mapping event
    /// covers (not looked up), counted where JIT code can lie: in any file mapping when an
    /// input can describe such code ([`super::Symbolizer::describes_file_code`]), else in the
    /// mappings .NET runs JIT code from (`/memfd:doublemapper (deleted)`); reported when
    /// they are at least 1% of the unknown frames.
    pub file_relative_unmapped: u64,
    /// The file mappings holding those frames (at most three; those JIT code is known to
    /// live in first, then by count), with their counts.
    pub unmapped_dsos: Vec<(String, u64)>,
    /// Unresolved frames of samples whose process is known that the inputs of another
    /// process would resolve (reported when they are at least 10% of the unknown frames:
    /// the inputs are probably of another run).
    pub other_process: u64,
    /// The process of one such frame.
    pub other_process_example: Option<u32>,
    /// Unresolved frames at addresses in no mapping of their process (perf prints their
    /// DSO as `[unknown]`): what walking a stack without frame pointers leaves; reported
    /// when they are at least a quarter of the unknown frames.
    pub no_mapping: u64,
    /// Unresolved frames that a jitdump load *later* than the sample covers.
    pub later_load_only: u64,
    /// Unresolved frames of samples whose lone id matched no process that another
    /// process's inputs would resolve.
    pub unmatched_process: u64,
    /// One such id.
    pub unmatched_example: Option<u32>,
    /// Samples whose lone id matched no process, resolved with the one process all
    /// per-process inputs belong to.
    pub samples_by_only_process: u64,
}

impl SymbolizeStats {
    /// The warning for unknown frames in file mappings that no mapping event covers.
    fn unmapped_warning(&self) -> String {
        let files: Vec<String> = self
            .unmapped_dsos
            .iter()
            .map(|(d, n)| format!("{n} in {d}"))
            .collect();
        let why = if self
            .unmapped_dsos
            .iter()
            .any(|(d, _)| d.starts_with("/memfd:doublemapper"))
        {
            "; .NET runs its JIT code from /memfd:doublemapper when write-xor-execute is on \
             (the default; DOTNET_EnableWriteXorExecute=0 puts it in anonymous memory), and \
             .NET 8's jitdumps describe the precompiled code of its .dll images"
        } else {
            ""
        };
        let fix = if self.mapping_events == 0 {
            "write the samples with `perf script --show-mmap-events`"
        } else {
            "no mmap event of the sample's process covers them: write the samples with \
             `perf script -F comm,pid,tid,time,ip,sym,dso --show-mmap-events`"
        };
        format!(
            "{} of the {} [unknown] frames lie in file mappings ({}), whose addresses perf \
             prints relative to the file{why}; JIT code there resolves only through the \
             mappings: {fix}",
            self.file_relative_unmapped,
            self.unknown_frames,
            files.join(", ")
        )
    }

    /// Frames left `[unknown]`.
    pub fn unresolved(&self) -> u64 {
        self.unknown_frames - self.resolved_jitdump - self.resolved_map
    }

    /// What the counts say is probably wrong with the input, one warning per problem,
    /// each with its likely causes and fix.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.later_load_only > 0 {
            w.push(format!(
                "{} [unknown] frames are covered only by jitdump code loaded after their \
                 sample's time; likely causes: relative sample times (`perf script --reltime` \
                 or `--deltatime`; write the samples without them) or samples recorded with \
                 a clock other than the jitdump's (record with `perf record -k mono`)",
                self.later_load_only
            ));
        }
        if self.unmatched_process > 0 {
            w.push(format!(
                "{} [unknown] frames of samples whose id (e.g. {}) matches no process of the \
                 jitdumps and perf maps would resolve in another process: plain `perf script` \
                 prints the thread id, not the process id; write the samples with \
                 `perf script -F comm,pid,tid,time,ip,sym,dso` (or add --show-task-events, \
                 whose fork events name each thread's process), or pass --pid",
                self.unmatched_process,
                self.unmatched_example.unwrap_or(0)
            ));
        }
        // A few unknown frames in libraries are normal (stripped code); JIT code inside a
        // file mapping makes many.
        if self.file_relative_unmapped > 0
            && self.file_relative_unmapped.saturating_mul(100) >= self.unknown_frames
        {
            w.push(self.unmapped_warning());
        }
        if self.no_mapping > 0 && self.no_mapping.saturating_mul(4) >= self.unknown_frames {
            w.push(format!(
                "{} of the {} [unknown] frames are at addresses in no mapping of their \
                 process (perf prints their DSO as [unknown]): no JIT code is there; such \
                 frames are what walking a stack without frame pointers leaves (record with \
                 `perf record --call-graph dwarf`, or have the runtime keep frame pointers)",
                self.no_mapping, self.unknown_frames
            ));
        }
        if self.other_process.saturating_mul(10) >= self.unknown_frames && self.other_process > 0 {
            w.push(format!(
                "{} [unknown] frames (e.g. of process {}) are covered only by the jitdumps or \
                 perf maps of another process: are the inputs from this recording? (a perf \
                 map applies to the process its name `perf-PID.map` says)",
                self.other_process,
                self.other_process_example.unwrap_or(0)
            ));
        }
        w
    }
}
