//! The text reader's flat way ([`read_for_merge`]): lines into the flat form
//! ([`FlatSampleProfile`]), the form merges fold, with the grammar of [`super`].
//!
//! It holds what LLVM's text writer (and `llvm-profgen`) write: every function and context
//! once, body lines and inlined callees in LLVM's order, each once, body lines before the
//! callees of their function, no call target twice on a line, no vtable lines, metadata
//! last, probe-based functions all or none. At the first line it cannot hold (or one that
//! does not parse), it turns into the tree reader ([`super::Reader`]) where it stands: the
//! functions read so far become the tree ([`FlatSampleProfile::to_profile`]: they hold no
//! repeated key, so nothing adds up), and the tree reader goes on from the header of the
//! function being read, applying every leniency of LLVM's reader and reporting any error
//! with its line. Nothing else is read twice.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use super::{
    Counts, Lines, Parsed, Reader, TextDialect, check_first_line, classify, context_frames,
    parse_head, parse_line, plain_line,
};
use crate::error::Result;
use crate::frontends::sample::binary::distinct;
use crate::ir::fx::{FxBuildHasher, FxHashSet};
use crate::ir::sample::flat::{
    FlatFrame, FlatKey, FlatName, FlatNode, FlatRecord, FlatTarget, FlatTop,
};
use crate::ir::sample::{
    ContextAttributes, FlatSampleProfile, LineLocation, SampleFormat, SampleProfile,
};

/// Reads text `data` in `dialect` for a merge: into `out` (emptied first) if the flat form
/// holds it (`Ok(None)`), else into the tree form, which is returned. Errors are the tree
/// reader's ([`super::read`]).
pub fn read_for_merge(
    data: &[u8],
    dialect: TextDialect,
    out: &mut FlatSampleProfile,
) -> Result<Option<SampleProfile>> {
    out.clear();
    check_first_line(data)?;
    let mut reader = FlatReader {
        out,
        names: HashMap::default(),
        top_seen: Vec::new(),
        contexts_seen: FxHashSet::default(),
        stack: Vec::new(),
        counts: Counts {
            mask: u32::MAX,
            ..Counts::default()
        },
        metadata_depth: 0,
        targets: Vec::new(),
        mark: Mark::default(),
    };
    let mut lines = Lines::new(data);
    loop {
        let before = lines.clone();
        let Some((_, line)) = lines.next() else { break };
        let held = match classify(line) {
            None => Some(()),
            Some(true) => {
                reader.close_all();
                reader.mark = reader.mark_at(before.clone());
                reader.head(line)
            }
            Some(false) => reader.body_line(line, dialect),
        };
        if held.is_none() {
            let resume = reader.mark.lines.clone().unwrap_or(before);
            return reader.into_tree(resume, dialect).map(Some);
        }
    }
    reader.close_all();
    let tops = reader.out.tops.len();
    if reader.counts.probe != 0 && reader.counts.probe as usize != tops {
        // A mix of probe-based and other functions: the tree's flags say so.
        reader.mark = reader.mark_at(lines.clone());
        return reader.into_tree(lines, dialect).map(Some);
    }
    let flags = &mut reader.out.flags;
    flags.context_sensitive = reader.counts.cs > 0;
    flags.probe_based = reader.counts.probe > 0;
    flags.preinlined = reader.counts.preinlined;
    flags.sets_probe_flag = true;
    reader.out.format = Some(SampleFormat::Text);
    Ok(None)
}

/// Where the function being read starts: the lines from its header on, the sizes of the
/// flat form's vectors and the counts before it.
#[derive(Default)]
struct Mark<'a> {
    lines: Option<Lines<'a>>,
    tops: usize,
    nodes: usize,
    records: usize,
    targets: usize,
    frames: usize,
    contexts: usize,
    counts: Counts,
}

/// A node on the inline stack: its index, and its last inlined callee so far (to check
/// LLVM's order).
struct Open {
    node: u32,
    last_child: Option<(LineLocation, u32)>,
}

struct FlatReader<'a, 'o> {
    out: &'o mut FlatSampleProfile,
    names: HashMap<&'a [u8], u32, FxBuildHasher>,
    /// Per name index: whether a top-level function of that name was read.
    top_seen: Vec<bool>,
    /// Hashes of the calling contexts read (a repeated hash, rarely a collision, turns the
    /// reader into the tree reader: never wrong, at most slower).
    contexts_seen: FxHashSet<u64>,
    /// The inline stack: the top-level node, then its inlined callees down to the current.
    stack: Vec<Open>,
    counts: Counts,
    /// Depth of the first metadata line of the current instance, 0 if none yet.
    metadata_depth: usize,
    /// The call targets of the line being read, kept between lines for its capacity.
    targets: Vec<(&'a [u8], u64)>,
    /// Where the function being read starts.
    mark: Mark<'a>,
}

fn len32(n: usize) -> Option<u32> {
    u32::try_from(n).ok()
}

impl<'a> FlatReader<'a, '_> {
    /// The mark of a function whose header `lines` yields next.
    fn mark_at(&self, lines: Lines<'a>) -> Mark<'a> {
        let out = &*self.out;
        Mark {
            lines: Some(lines),
            tops: out.tops.len(),
            nodes: out.nodes.len(),
            records: out.records.len(),
            targets: out.targets.len(),
            frames: out.frames.len(),
            contexts: out.contexts.len(),
            counts: self.counts,
        }
    }

    /// The tree reader, going on from the mark (`resume`: the lines from there) with the
    /// functions read before it.
    fn into_tree(self, resume: Lines<'a>, dialect: TextDialect) -> Result<SampleProfile> {
        let m = &self.mark;
        let out = self.out;
        out.tops.truncate(m.tops);
        out.nodes.truncate(m.nodes);
        out.records.truncate(m.records);
        out.targets.truncate(m.targets);
        out.frames.truncate(m.frames);
        out.contexts.truncate(m.contexts);
        let profile = out.to_profile();
        Reader::new(profile, dialect, m.counts).run(resume, false)
    }

    /// The name-table index of `name`, added if new.
    fn name(&mut self, name: &'a [u8]) -> Option<u32> {
        if let Some(&i) = self.names.get(name) {
            return Some(i);
        }
        let out = &mut *self.out;
        let i = len32(out.names.len())?;
        let start = len32(out.name_bytes.len())?;
        out.name_bytes.extend_from_slice(name);
        let end = len32(out.name_bytes.len())?;
        out.names.push(FlatName::Name { start, end });
        self.names.insert(name, i);
        Some(i)
    }

    fn head(&mut self, line: &'a [u8]) -> Option<()> {
        let (name, total, head) = parse_head(line)?;
        let (key, leaf) = if name.first() == Some(&b'[') {
            self.counts.cs += 1;
            let frames = context_frames(name);
            let leaf = frames.last()?.0;
            let start = len32(self.out.frames.len())?;
            for (n, location) in frames {
                let name = self.name(n)?;
                self.out.frames.push(FlatFrame { name, location });
            }
            let end = len32(self.out.frames.len())?;
            let c = len32(self.out.contexts.len())?;
            self.out.contexts.push((start, end));
            if !self.contexts_seen.insert(self.context_hash(c)) {
                return None;
            }
            (FlatKey::Context(c), self.name(leaf)?)
        } else {
            let i = self.name(name)?;
            self.top_seen.resize(self.out.names.len(), false);
            if std::mem::replace(&mut self.top_seen[i as usize], true) {
                return None;
            }
            (FlatKey::Function(i), i)
        };
        let node = self.push_node(leaf, LineLocation::default(), total, head)?;
        self.out.tops.push(FlatTop { key, node });
        self.stack.push(Open {
            node,
            last_child: None,
        });
        self.metadata_depth = 0;
        Some(())
    }

    fn push_node(
        &mut self,
        name: u32,
        location: LineLocation,
        total: u64,
        head: u64,
    ) -> Option<u32> {
        let index = len32(self.out.nodes.len())?;
        let records = len32(self.out.records.len())?;
        self.out.nodes.push(FlatNode {
            name,
            location,
            total_samples: total,
            head_samples: head,
            checksum: 0,
            attributes: ContextAttributes::default(),
            records_start: records,
            records_end: records,
            subtree_end: index + 1,
        });
        Some(index)
    }

    /// Closes the innermost open node: its subtree ends here.
    fn close(&mut self) {
        if let Some(open) = self.stack.pop() {
            // Within u32: every node was pushed with a checked index.
            let end = self.out.nodes.len() as u32;
            self.out.nodes[open.node as usize].subtree_end = end;
        }
    }

    fn close_all(&mut self) {
        while !self.stack.is_empty() {
            self.close();
        }
    }

    fn body_line(&mut self, line: &'a [u8], dialect: TextDialect) -> Option<()> {
        let parsed = match plain_line(line, std::mem::take(&mut self.targets)) {
            Ok(p) => p,
            Err(targets) => {
                self.targets = targets;
                parse_line(line, dialect).ok()?
            }
        };
        let depth = parsed.depth();
        let metadata = matches!(parsed, Parsed::Metadata { .. });
        if !metadata && depth == self.metadata_depth {
            return None;
        }
        // LLVM pops its inline stack to `depth` entries; a deeper line than the stack
        // attaches to its innermost entry, which the flat form does not model.
        if depth > self.stack.len() {
            return None;
        }
        while self.stack.len() > depth {
            self.close();
        }
        let parent = self.stack.last()?.node;
        match parsed {
            Parsed::Body {
                loc,
                samples,
                targets,
                ..
            } => {
                let records = len32(self.out.records.len())?;
                let top = self.stack.last()?;
                let node = &self.out.nodes[parent as usize];
                // The node's records must be the last ones written, before any callee.
                if top.last_child.is_some() || node.records_end != records {
                    return None;
                }
                if node.records_end > node.records_start
                    && self.out.records[records as usize - 1].location >= loc
                {
                    return None;
                }
                let targets_start = len32(self.out.targets.len())?;
                let mut targets = targets;
                for (name, count) in targets.drain(..) {
                    let name = self.name(name)?;
                    self.out.targets.push(FlatTarget {
                        name,
                        samples: count,
                    });
                }
                if !distinct(&self.out.targets[targets_start as usize..]) {
                    return None;
                }
                if self.targets.capacity() < targets.capacity() {
                    self.targets = targets;
                }
                let targets_end = len32(self.out.targets.len())?;
                self.out.records.push(FlatRecord {
                    location: loc,
                    samples,
                    targets_start,
                    targets_end,
                });
                self.out.nodes[parent as usize].records_end = records + 1;
            }
            Parsed::Callsite {
                loc, name, total, ..
            } => {
                let callee = self.name(name)?;
                if let Some((pl, pn)) = self.stack.last()?.last_child {
                    let order = pl.cmp(&loc).then_with(|| self.name_cmp(pn, callee));
                    if order != Ordering::Less {
                        return None;
                    }
                }
                self.stack.last_mut()?.last_child = Some((loc, callee));
                let node = self.push_node(callee, loc, total, 0)?;
                self.stack.push(Open {
                    node,
                    last_child: None,
                });
                self.metadata_depth = 0;
            }
            Parsed::Metadata {
                checksum,
                attributes,
                ..
            } => {
                let node = &mut self.out.nodes[parent as usize];
                if let Some(c) = checksum.filter(|&c| c != 0) {
                    node.checksum = c;
                    if depth == 1 {
                        self.counts.probe += 1;
                    }
                }
                if let Some(a) = attributes.filter(|&a| a != 0) {
                    node.attributes = ContextAttributes(a);
                    if a & ContextAttributes::SHOULD_BE_INLINED != 0 {
                        self.counts.preinlined = true;
                    }
                }
                if self.metadata_depth == 0 {
                    self.metadata_depth = depth;
                }
            }
            // Vtable lines: the map form holds them.
            _ => return None,
        }
        Some(())
    }

    /// A hash of context `c`'s frames.
    fn context_hash(&self, c: u32) -> u64 {
        let mut h = FxBuildHasher.build_hasher();
        for f in self.out.context_frames(c) {
            h.write_u32(f.name);
            h.write_u32(f.location.line_offset);
            h.write_u32(f.location.discriminator);
        }
        h.finish()
    }

    /// LLVM's `FunctionId` order of two plain names.
    fn name_cmp(&self, a: u32, b: u32) -> Ordering {
        let out = &*self.out;
        out.name_bytes_of(out.names[a as usize])
            .cmp(&out.name_bytes_of(out.names[b as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontends::sample::text::read;

    /// Where the flat form stops holding a text, the flat way goes on as the tree reader:
    /// the same profile, or the same error, as the tree reader alone.
    #[test]
    fn the_flat_way_turns_into_the_tree_reader_where_it_must() {
        let cases: [(&str, bool); 12] = [
            ("f:10:1\n 1: 5\n 2: 5\n", true),
            ("f:10:1\n 1: 5\ng:3:0\n 1: 3\nf:4:2\n 1: 4\n", false),
            ("f:10:1\n 2: 5\n 1: 5\n", false),
            ("f:10:1\n 1: 5\n 3: g:2\n  1: 2\n 2: 1\n", false),
            ("f:1:0\n 1: 1\n   2: 1\n", false),
            ("[a:1 @ b]:5:1\n 1: 5\n[a:1 @ b]:5:1\n 1: 5\n", false),
            ("f:1:0\n 1: 1 a:1 a:2\n", true),
            ("f:1:0\n 1: 1\n 3: vtables A:1\n", false),
            ("f:1:0\n 1: 1\n !CFGChecksum: 3\ng:1:0\n 1: 1\n", false),
            ("f:1:0\n 1: 1\n !CFGChecksum: 3\n 2: 1\n", false),
            (
                "f:18446744073709551615:0\n 1: 1\ng:1:0\nf:1:0\n 1: 1\n",
                false,
            ),
            ("f:1:0\n 1: 1\ng:1:0\n 1:x\n", false),
        ];
        let dialect = TextDialect::for_llvm(22);
        let mut flat = FlatSampleProfile::new();
        for (text, held) in cases {
            let alone = read(text.as_bytes(), dialect);
            let merged = read_for_merge(text.as_bytes(), dialect, &mut flat);
            match (alone, merged) {
                (Ok(a), Ok(None)) => {
                    assert!(held, "{text:?} read flat");
                    let b = flat.to_profile();
                    assert_eq!(a.functions, b.functions, "{text:?}");
                    assert_eq!(a.insertion_order, b.insertion_order, "{text:?}");
                    assert_eq!(a.flags, b.flags, "{text:?}");
                }
                (Ok(a), Ok(Some(b))) => {
                    assert!(!held, "{text:?} read as a tree");
                    assert_eq!(a.functions, b.functions, "{text:?}");
                    assert_eq!(a.insertion_order, b.insertion_order, "{text:?}");
                    assert_eq!(a.flags, b.flags, "{text:?}");
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
                (a, b) => panic!("{text:?}: alone {:?}, for a merge {:?}", a.err(), b.err()),
            }
        }
    }
}
