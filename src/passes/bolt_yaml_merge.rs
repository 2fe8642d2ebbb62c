//! Merging BOLT YAML profiles as `merge-fdata` merges them, input by input, so that the
//! output is byte for byte `merge-fdata`'s: functions by name, blocks by index (blocks met
//! first keep their place, new ones follow in index order), successors by index, call sites
//! by offset and callee. Kept as LLVM has them: of several call sites of a new block at one
//! offset (an indirect call with several callees) only the first is matched, the others are
//! dropped; the call sites left over are appended in the iteration order of libstdc++'s
//! `unordered_map` (replayed by [`UnorderedOrder`]).
//!
//! The header: under LLVM 19 semantics the merged header starts as the default one (so
//! `dfs-order` is `true` and `hash-func` is `std-hash` whatever the inputs say) and every
//! input's header is merged into it; from LLVM 20 on it starts as the first input's, and
//! inputs of another hash function are refused. Differences that LLVM only warns about
//! (binary name, build id, events) are returned as warnings.
//!
//! Counts are added saturating (LLVM's wrap) and multiplied by the input's weight.

use std::collections::HashMap;

use crate::codec::unordered_order::UnorderedOrder;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::Weight;
use crate::ir::bolt::FdataSemantics;
use crate::ir::bolt_yaml::{
    PF_LBR, PF_SAMPLE, YamlBlock, YamlFunction, YamlHeader, YamlProfile, YamlSuccessor,
};

/// The accumulator of a YAML merge.
#[derive(Debug, Clone)]
pub struct YamlMerger {
    semantics: FdataSemantics,
    header: Option<YamlHeader>,
    functions: Vec<YamlFunction>,
    by_name: HashMap<String, usize>,
    saturated: bool,
}

/// An error about function `f` (and block `block`, if any).
fn mismatch(f: &YamlFunction, block: Option<u32>, what: &str) -> Error {
    let at = match block {
        Some(b) => format!("function {} : BB #{b}", f.name),
        None => format!("function {}", f.name),
    };
    let kind = ErrorKind::Malformed {
        what: "BOLT YAML profile",
        detail: format!("{at}: {what} (the profiles are of different binaries?)"),
    };
    if f.line > 0 {
        Error::at_line(f.line, kind)
    } else {
        Error::new(kind)
    }
}

fn add(a: &mut u64, b: u64, saturated: &mut bool) {
    match a.checked_add(b) {
        Some(v) => *a = v,
        None => {
            *a = u64::MAX;
            *saturated = true;
        }
    }
}

impl YamlMerger {
    /// An empty merge following `semantics`.
    pub fn new(semantics: FdataSemantics) -> YamlMerger {
        YamlMerger {
            semantics,
            header: None,
            functions: Vec::new(),
            by_name: HashMap::new(),
            saturated: false,
        }
    }

    /// True if a sum reached 2^64 − 1 and stopped there.
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    /// Checks that `p` merges into what was merged so far (header flags and version, hash
    /// function, and the shape of every function met before), changing nothing.
    pub fn check(&self, p: &YamlProfile) -> Result<()> {
        let mut header = self.header.clone();
        self.merge_header(&mut header, &p.header)?;
        let mut seen: HashMap<&str, &YamlFunction> = HashMap::new();
        for f in &p.functions {
            let earlier = self
                .by_name
                .get(&f.name)
                .map(|&i| &self.functions[i])
                .or_else(|| seen.get(f.name.as_str()).copied());
            match earlier {
                Some(m) => check_function(m, f)?,
                None => {
                    seen.insert(&f.name, f);
                }
            }
        }
        Ok(())
    }

    /// Merges `p`, weighted; returns LLVM's warnings about the header.
    pub fn add(&mut self, mut p: YamlProfile, weight: Weight) -> Result<Vec<String>> {
        let mut header = self.header.take();
        let warnings = self.merge_header(&mut header, &p.header);
        self.header = header;
        let warnings = warnings?;
        for mut f in std::mem::take(&mut p.functions) {
            if !weight.is_one() {
                self.saturated |= scale_function(&mut f, weight);
            }
            match self.by_name.get(&f.name) {
                Some(&i) => {
                    let mut m = std::mem::take(&mut self.functions[i]);
                    let r = merge_function(&mut m, f, &mut self.saturated);
                    self.functions[i] = m;
                    r?;
                }
                None => {
                    self.by_name.insert(f.name.clone(), self.functions.len());
                    self.functions.push(f);
                }
            }
        }
        Ok(warnings)
    }

    /// Merges header `h` into `merged` (`None`: nothing merged yet); the warnings.
    fn merge_header(&self, merged: &mut Option<YamlHeader>, h: &YamlHeader) -> Result<Vec<String>> {
        if h.version != 1 {
            return Err(Error::new(ErrorKind::UnsupportedVersion {
                format: "BOLT YAML profile",
                version: u64::from(h.version),
                supported: "version 1 is the only one",
            }));
        }
        let m = match (merged.as_mut(), self.semantics) {
            (Some(m), _) => m,
            (None, s) if !s.keys_mispreds() => {
                *merged = Some(h.clone());
                return Ok(Vec::new());
            }
            (None, _) => merged.insert(YamlHeader::default()),
        };
        merge_header_into(m, h, self.semantics)
    }

    /// The merged profile: functions sorted by id (ties in the order first met).
    pub fn finish(self) -> YamlProfile {
        let mut functions = self.functions;
        functions.sort_by_key(|f| f.id);
        YamlProfile {
            header: self.header.unwrap_or_default(),
            functions,
        }
    }
}

/// LLVM's `mergeProfileHeaders`.
fn merge_header_into(
    m: &mut YamlHeader,
    h: &YamlHeader,
    semantics: FdataSemantics,
) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    if m.binary_name.is_empty() {
        m.binary_name = h.binary_name.clone();
    }
    if !m.binary_name.is_empty() && m.binary_name != h.binary_name {
        warnings.push(format!(
            "merging profile from a binary for {} into a profile for binary {}",
            h.binary_name, m.binary_name
        ));
    }
    if m.build_id.is_empty() {
        m.build_id = h.build_id.clone();
    }
    if !m.build_id.is_empty() && m.build_id != h.build_id {
        warnings.push("build-ids in merged profiles do not match".into());
    }
    if m.flags == 0 {
        m.flags = h.flags;
    }
    let mask = PF_LBR | PF_SAMPLE;
    if m.flags & mask != h.flags & mask {
        return Err(Error::new(ErrorKind::KindConflict(
            "cannot merge LBR profile with non-LBR profile".into(),
        )));
    }
    m.flags |= h.flags;
    if !h.origin.is_empty() {
        if m.origin.is_empty() {
            m.origin = h.origin.clone();
        } else if m.origin != h.origin {
            m.origin = format!("{}; {}", m.origin, h.origin);
        }
    }
    if m.events.is_empty() {
        m.events = h.events.clone();
    }
    if m.events != h.events {
        warnings.push("merging profiles with different sampling events".into());
        m.events = format!("{},{}", m.events, h.events);
    }
    if !semantics.keys_mispreds() && m.hash_function != h.hash_function {
        return Err(Error::new(ErrorKind::KindConflict(
            "cannot merge profiles with different hash functions".into(),
        )));
    }
    Ok(warnings)
}

/// Multiplies every count of `f` by `w`; true if one saturated.
fn scale_function(f: &mut YamlFunction, w: Weight) -> bool {
    let mut sat = false;
    let mut s = |v: &mut u64| {
        let (r, o) = w.scale(*v);
        *v = r;
        sat |= o;
    };
    s(&mut f.exec);
    for b in &mut f.blocks {
        s(&mut b.exec);
        s(&mut b.events);
        for c in &mut b.calls {
            s(&mut c.count);
            s(&mut c.mispreds);
        }
        for x in &mut b.successors {
            s(&mut x.count);
            s(&mut x.mispreds);
        }
    }
    sat
}

/// The checks of LLVM's `mergeFunctionProfile` and `mergeBasicBlockProfile` alone.
fn check_function(m: &YamlFunction, f: &YamlFunction) -> Result<()> {
    if f.nblocks != m.nblocks {
        return Err(mismatch(f, None, "number of basic blocks mismatch"));
    }
    if f.id != m.id {
        return Err(mismatch(f, None, "ID mismatch"));
    }
    if f.hash != m.hash {
        return Err(mismatch(f, None, "hash mismatch"));
    }
    for b in &f.blocks {
        if b.index >= f.nblocks {
            return Err(mismatch(f, Some(b.index), "bad basic block index"));
        }
        if b.successors.iter().any(|s| s.index >= f.nblocks) {
            return Err(mismatch(f, None, "bad successor index"));
        }
        if let Some(mb) = m.blocks.iter().find(|mb| mb.index == b.index) {
            if mb.insns != b.insns {
                return Err(mismatch(
                    f,
                    Some(b.index),
                    "number of instructions in block mismatch",
                ));
            }
            if mb.hash != b.hash {
                return Err(mismatch(f, Some(b.index), "basic block hash mismatch"));
            }
        }
    }
    Ok(())
}

/// LLVM's `mergeFunctionProfile`: `f` into `m` (of the same name).
fn merge_function(m: &mut YamlFunction, f: YamlFunction, sat: &mut bool) -> Result<()> {
    if f.nblocks != m.nblocks {
        return Err(mismatch(&f, None, "number of basic blocks mismatch"));
    }
    if f.id != m.id {
        return Err(mismatch(&f, None, "ID mismatch"));
    }
    if f.hash != m.hash {
        return Err(mismatch(&f, None, "hash mismatch"));
    }
    add(&mut m.exec, f.exec, sat);
    // By index, a later block of an index replacing an earlier one, as LLVM's vector does.
    let mut by_index: HashMap<u32, YamlBlock> = HashMap::new();
    for b in &f.blocks {
        if b.index >= f.nblocks {
            return Err(mismatch(&f, Some(b.index), "bad basic block index"));
        }
    }
    for b in f.blocks.iter().cloned() {
        by_index.insert(b.index, b);
    }
    for mb in &mut m.blocks {
        if let Some(b) = by_index.remove(&mb.index) {
            merge_block(mb, b, m.nblocks, &f, sat)?;
        }
    }
    let mut rest: Vec<YamlBlock> = by_index.into_values().collect();
    rest.sort_by_key(|b| b.index);
    m.blocks.extend(rest);
    Ok(())
}

/// LLVM's `mergeBasicBlockProfile`: `b` into `m` (of the same index).
fn merge_block(
    m: &mut YamlBlock,
    b: YamlBlock,
    nblocks: u32,
    f: &YamlFunction,
    sat: &mut bool,
) -> Result<()> {
    if b.insns != m.insns {
        return Err(mismatch(
            f,
            Some(b.index),
            "number of instructions in block mismatch",
        ));
    }
    if b.hash != m.hash {
        return Err(mismatch(f, Some(b.index), "basic block hash mismatch"));
    }
    add(&mut m.exec, b.exec, sat);
    add(&mut m.events, b.events, sat);
    // Call sites by offset: the first of each offset only (an `unordered_map::emplace`).
    let mut by_offset: HashMap<u32, usize> = HashMap::new();
    let mut order = UnorderedOrder::new();
    for (i, c) in b.calls.iter().enumerate() {
        if let std::collections::hash_map::Entry::Vacant(e) = by_offset.entry(c.offset) {
            e.insert(i);
            order.insert(u64::from(c.offset));
        }
    }
    for mc in &mut m.calls {
        let Some(&i) = by_offset.get(&mc.offset) else {
            continue;
        };
        let c = &b.calls[i];
        if !c.same_site(mc) {
            continue;
        }
        add(&mut mc.count, c.count, sat);
        add(&mut mc.mispreds, c.mispreds, sat);
        by_offset.remove(&mc.offset);
        order.remove(u64::from(mc.offset));
    }
    for off in order.keys_in_order() {
        if let Some(&i) = by_offset.get(&(off as u32)) {
            m.calls.push(b.calls[i]);
        }
    }
    merge_successors(m, &b.successors, nblocks, f, sat)
}

/// Successors by index (a later one of an index replacing an earlier one); new ones follow
/// in index order.
fn merge_successors(
    m: &mut YamlBlock,
    succ: &[YamlSuccessor],
    nblocks: u32,
    f: &YamlFunction,
    sat: &mut bool,
) -> Result<()> {
    let mut by_index: HashMap<u32, YamlSuccessor> = HashMap::new();
    for s in succ {
        if s.index >= nblocks {
            return Err(mismatch(f, None, "bad successor index"));
        }
        by_index.insert(s.index, *s);
    }
    for ms in &mut m.successors {
        if let Some(s) = by_index.remove(&ms.index) {
            add(&mut ms.count, s.count, sat);
            add(&mut ms.mispreds, s.mispreds, sat);
        }
    }
    let mut rest: Vec<YamlSuccessor> = by_index.into_values().collect();
    rest.sort_by_key(|s| s.index);
    m.successors.extend(rest);
    Ok(())
}
