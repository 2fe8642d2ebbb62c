//! Reader of text sample profiles into the flat form ([`FlatSampleProfile`]), the fast path
//! of merges, as [`super::flat`] is for the binary encodings.
//!
//! It reads the lines [`super::text`] reads, with its line grammar, into reusable vectors
//! instead of maps, and gives up — the caller then reads the input with [`super::read`],
//! which applies every leniency of LLVM's reader and reports any error with its line —
//! on anything the flat form cannot hold or that the text reader would treat specially: a
//! line that does not parse, a function or context met twice, body lines or inlined
//! callees out of LLVM's order or repeated, a call target twice on one line, a body line
//! after an inlined callee of the same function, indentation that skips a level, vtable
//! lines, a non-metadata line after metadata, or a mix of probe-based and other
//! functions. What llvm-profdata's text writer (and `llvm-profgen`) write takes the fast
//! path. Flow-sensitive masks (`--profile-isfs`) are not applied here: merges with them
//! read in map form.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::flat::distinct;
use super::text::{
    Lines, Parsed, TextDialect, context_frames, distinct_names, parse_head, parse_line,
};
use crate::ir::fx::FxBuildHasher;
use crate::ir::sample::flat::{
    FlatFrame, FlatKey, FlatName, FlatNode, FlatRecord, FlatTarget, FlatTop,
};
use crate::ir::sample::{ContextAttributes, FlatSampleProfile, LineLocation, SampleFormat};

/// Reads text `data` into `out` (emptied first) in `dialect`. False when the flat form
/// cannot hold it or it is malformed: read it with [`super::read`] then.
pub fn read_flat(data: &[u8], dialect: TextDialect, out: &mut FlatSampleProfile) -> bool {
    out.clear();
    let done = Reader {
        out,
        names: HashMap::default(),
        top_seen: Vec::new(),
        stack: Vec::new(),
        cs_count: 0,
        probe_count: 0,
        preinlined: false,
        metadata_depth: 0,
        targets: Vec::new(),
    }
    .read(data, dialect);
    done.is_some()
}

/// A node on the inline stack: its index, and its last inlined callee so far (to check
/// LLVM's order).
struct Open {
    node: u32,
    last_child: Option<(LineLocation, u32)>,
}

struct Reader<'a, 'o> {
    out: &'o mut FlatSampleProfile,
    names: HashMap<&'a [u8], u32, FxBuildHasher>,
    /// Per name index: whether a top-level function of that name was read.
    top_seen: Vec<bool>,
    /// The inline stack: the top-level node, then its inlined callees down to the current.
    stack: Vec<Open>,
    cs_count: usize,
    probe_count: usize,
    preinlined: bool,
    /// Depth of the first metadata line of the current instance, 0 if none yet.
    metadata_depth: usize,
    /// The call targets of the line being read, kept between lines for its capacity.
    targets: Vec<(&'a [u8], u64)>,
}

fn len32(n: usize) -> Option<u32> {
    u32::try_from(n).ok()
}

impl<'a> Reader<'a, '_> {
    fn read(mut self, data: &'a [u8], dialect: TextDialect) -> Option<()> {
        for (_, line) in Lines::new(data) {
            let Some(pos) = line.iter().position(|&b| b != b' ') else {
                continue;
            };
            if line[pos] == b'#' {
                continue;
            }
            if pos == 0 {
                self.close_all()?;
                self.head(line)?;
            } else {
                // A body line before any header: let the text reader report it.
                if self.stack.is_empty() {
                    return None;
                }
                self.body_line(line, dialect)?;
            }
        }
        self.close_all()?;
        let tops = self.out.tops.len();
        if tops == 0 || (self.probe_count != 0 && self.probe_count != tops) {
            return None;
        }
        let flags = &mut self.out.flags;
        flags.context_sensitive = self.cs_count > 0;
        flags.probe_based = self.probe_count > 0;
        flags.preinlined = self.preinlined;
        flags.sets_probe_flag = true;
        self.out.format = Some(SampleFormat::Text);
        Some(())
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
            self.cs_count += 1;
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
            // Contexts met twice are found by the merge, which then reads the map form.
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
    fn close(&mut self) -> Option<()> {
        let open = self.stack.pop()?;
        let end = len32(self.out.nodes.len())?;
        self.out.nodes[open.node as usize].subtree_end = end;
        Some(())
    }

    fn close_all(&mut self) -> Option<()> {
        while !self.stack.is_empty() {
            self.close()?;
        }
        Some(())
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
            self.close()?;
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
                        self.probe_count += 1;
                    }
                }
                if let Some(a) = attributes.filter(|&a| a != 0) {
                    node.attributes = ContextAttributes(a);
                    if a & ContextAttributes::SHOULD_BE_INLINED != 0 {
                        self.preinlined = true;
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

    /// LLVM's `FunctionId` order of two plain names.
    fn name_cmp(&self, a: u32, b: u32) -> Ordering {
        let out = &*self.out;
        out.name_bytes_of(out.names[a as usize])
            .cmp(&out.name_bytes_of(out.names[b as usize]))
    }
}

/// The digits of `s` from `at` as a number, and where they end: `None` if there is no
/// digit or the number overflows `u64`.
fn digits(s: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut i = at;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        i += 1;
    }
    (i > at).then_some((v, i))
}

/// A body or inlined-callee line in the plain shape LLVM's text writer gives it
/// (`  N[.D]: COUNT[ name:COUNT]*` or `  N[.D]: name:COUNT`, one space between fields, no
/// colon in a call target's name, no target twice), read in one pass into `targets`
/// (emptied first). Anything else is handed back (`Err`, with `targets`) for
/// [`parse_line`], whose reading of these lines is the same.
fn plain_line<'a>(
    line: &'a [u8],
    mut targets: Vec<(&'a [u8], u64)>,
) -> Result<Parsed<'a>, Vec<(&'a [u8], u64)>> {
    targets.clear();
    let depth = line.iter().take_while(|&&b| b == b' ').count();
    if depth == 0 {
        return Err(targets);
    }
    let Some((offset, mut i)) = digits(line, depth) else {
        return Err(targets);
    };
    let loc = if line.get(i) == Some(&b'.') {
        match digits(line, i + 1) {
            Some((d, j)) if offset <= u64::from(u32::MAX) && d <= u64::from(u32::MAX) => {
                i = j;
                LineLocation::new(offset as u32, d as u32)
            }
            _ => return Err(targets),
        }
    } else if offset <= 0xffff {
        LineLocation::new(offset as u32, 0)
    } else {
        return Err(targets);
    };
    if line.get(i..i + 2) != Some(b": ".as_slice()) {
        return Err(targets);
    }
    let rest = &line[i + 2..];
    if rest.first().is_some_and(u8::is_ascii_digit) {
        let Some((samples, mut j)) = digits(rest, 0) else {
            return Err(targets);
        };
        while j < rest.len() {
            // One space, then `name:COUNT` with a name of no colon.
            if rest[j] != b' ' {
                return Err(targets);
            }
            let start = j + 1;
            let end = memchr::memchr(b' ', &rest[start..]).map_or(rest.len(), |k| start + k);
            let token = &rest[start..end];
            let Some(colon) = memchr::memchr(b':', token) else {
                return Err(targets);
            };
            let name = &token[..colon];
            match digits(token, colon + 1) {
                Some((count, k)) if k == token.len() && !name.is_empty() => {
                    targets.push((name, count));
                }
                _ => return Err(targets),
            }
            j = end;
        }
        // A name twice on the line is for the full reader (the last count wins there).
        if !distinct_names(&targets) {
            return Err(targets);
        }
        Ok(Parsed::Body {
            depth,
            loc,
            samples,
            targets,
        })
    } else {
        let Some(colon) = memchr::memrchr(b':', rest) else {
            return Err(targets);
        };
        let name = &rest[..colon];
        if name.is_empty() || name.starts_with(b"vtables ") {
            return Err(targets);
        }
        match digits(rest, colon + 1) {
            Some((total, k)) if k == rest.len() => Ok(Parsed::Callsite {
                depth,
                loc,
                name,
                total,
            }),
            _ => Err(targets),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever `plain_line` reads, LLVM's grammar (`parse_line`) reads the same way: on
    /// writer-shaped lines, odd ones, and every one- and two-byte mutation of them.
    #[test]
    fn plain_lines_read_as_llvms_grammar_reads_them() {
        let lines: [&[u8]; 14] = [
            b" 1: 5",
            b" 12.3: 100 foo:60 bar:40",
            b"   65535: 1",
            b" 65536: 1",
            b" 65536.1: 1",
            b"  4: _Z3foov:20",
            b"  4.2: a::b:7",
            b" 7: 5 a:1 a:2",
            b" 7: 5  a:1",
            b" 7: 5 a:b:1",
            b" 7: 5 _M_construct<char *>:1000",
            b" 3: vtables x:1",
            b" 18446744073709551615: 1",
            b" 1: 18446744073709551616",
        ];
        let dialect = TextDialect::for_llvm(22);
        let mut plain = 0;
        let mut check = |line: &[u8]| {
            if let Ok(p) = plain_line(line, Vec::new()) {
                plain += 1;
                let general = parse_line(line, dialect);
                assert!(
                    matches!(&general, Ok(g) if *g == p),
                    "{:?}: plain {p:?}",
                    String::from_utf8_lossy(line)
                );
            }
        };
        let alphabet = b" :.0179abx!-";
        for line in lines {
            check(line);
            for i in 0..line.len() {
                for &b in alphabet {
                    let mut m = line.to_vec();
                    m[i] = b;
                    check(&m);
                    for j in i + 1..line.len() {
                        let mut n = m.clone();
                        n[j] = b' ';
                        check(&n);
                    }
                }
                check(&line[..i]);
            }
        }
        assert!(plain > 1000, "{plain} lines read plain");
    }
}
