//! BOLT's YAML profiles (`llvm-bolt -w`, `perf2bolt --profile-format=yaml`): a header and,
//! per function, its blocks with their successors and call sites, as LLVM's
//! `ProfileYAMLMapping.h` describes them (the keys LLVM 19 writes).

/// Profile flag: branch (LBR) profile (`lbr`).
pub const PF_LBR: u16 = 1;
/// Profile flag: sampled profile (`sample`).
pub const PF_SAMPLE: u16 = 2;
/// Profile flag: memory events (`memevent`).
pub const PF_MEMEVENT: u16 = 4;

/// The hash function of the block and function hashes.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HashFunction {
    /// `std-hash` (the default when the key is absent).
    #[default]
    StdHash,
    /// `xxh3`.
    Xxh3,
}

/// The header of a YAML profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlHeader {
    /// `profile-version` (1 is the only one).
    pub version: u32,
    /// `binary-name`.
    pub binary_name: String,
    /// `binary-build-id`.
    pub build_id: String,
    /// `profile-flags`: [`PF_LBR`], [`PF_SAMPLE`], [`PF_MEMEVENT`].
    pub flags: u16,
    /// `profile-origin`.
    pub origin: String,
    /// `profile-events`.
    pub events: String,
    /// `dfs-order` (true when absent).
    pub dfs_order: bool,
    /// `hash-func`.
    pub hash_function: HashFunction,
}

impl Default for YamlHeader {
    fn default() -> Self {
        YamlHeader {
            version: 1,
            binary_name: String::new(),
            build_id: String::new(),
            flags: 0,
            origin: String::new(),
            events: String::new(),
            dfs_order: true,
            hash_function: HashFunction::StdHash,
        }
    }
}

/// A call site of a block (`calls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct YamlCall {
    /// `off`: offset of the call in the function.
    pub offset: u32,
    /// `fid`: the callee's function id.
    pub dest: u32,
    /// `disc`: the callee's entry discriminator.
    pub disc: u32,
    /// `cnt`.
    pub count: u64,
    /// `mis`.
    pub mispreds: u64,
}

impl YamlCall {
    /// LLVM's `CallSiteInfo::operator==`: the same site and callee entry.
    pub fn same_site(&self, o: &YamlCall) -> bool {
        self.offset == o.offset && self.dest == o.dest && self.disc == o.disc
    }
}

/// A successor edge of a block (`succ`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct YamlSuccessor {
    /// `bid`: the successor block's index.
    pub index: u32,
    /// `cnt`.
    pub count: u64,
    /// `mis`.
    pub mispreds: u64,
}

/// A basic block's profile.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct YamlBlock {
    /// `bid`.
    pub index: u32,
    /// `insns`.
    pub insns: u32,
    /// `hash`.
    pub hash: u64,
    /// `exec`.
    pub exec: u64,
    /// `events`.
    pub events: u64,
    /// `calls`.
    pub calls: Vec<YamlCall>,
    /// `succ`.
    pub successors: Vec<YamlSuccessor>,
}

/// A function's profile.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct YamlFunction {
    /// `name`.
    pub name: String,
    /// `fid`.
    pub id: u32,
    /// `hash`.
    pub hash: u64,
    /// `exec`.
    pub exec: u64,
    /// `nblocks`.
    pub nblocks: u32,
    /// `blocks`.
    pub blocks: Vec<YamlBlock>,
    /// Line of the function's entry in its file (for messages), 0 if unknown.
    pub line: u64,
}

/// A YAML profile.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct YamlProfile {
    /// `header`.
    pub header: YamlHeader,
    /// `functions`, in order.
    pub functions: Vec<YamlFunction>,
}
