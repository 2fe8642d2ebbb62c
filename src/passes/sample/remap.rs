//! Symbol remapping of sample profiles (`merge --sample --remapping-file`), as
//! `llvm-profdata merge --sample` applies it to each input before merging it: every name in
//! a function profile is renamed through the file, and the profile is rebuilt from what
//! llvm-profdata copies, which is not all of it.
//!
//! What llvm-profdata 19 and 22 do, and so what this does:
//!
//! * the function, inlined callees and call targets are renamed (names read as MD5 hashes
//!   are not: the file maps names); call targets or callees at one site that end up with
//!   one name are added up (callees merged as profiles are);
//! * totals, head samples, body samples and call-target counts are kept;
//! * CFG checksums (`!CFGChecksum`), context attributes (`!Attributes`) and LLVM 22's vtable
//!   type counts are dropped: the rebuilt profile has none;
//! * a calling context is replaced by its leaf function, renamed: every context of a
//!   context-sensitive input becomes the profile of one function (written `[name]`), and
//!   contexts ending in the same function are merged.
//! * the discriminators of body samples and call targets keep only the bits of the
//!   `--fs-discriminator-pass` mask, whether or not the input is flow-sensitive (inlined
//!   callees keep their locations); samples that end up at one location add up.

use crate::bytes::stack::deep;
use crate::ir::Weight;
use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation, MergeIssueKind, SampleContext};
use crate::passes::remap::Remapping;

/// `id` renamed through `remap`; hashes and unmapped names are left as they are.
pub fn remap_id(id: &FunctionId, remap: &Remapping) -> FunctionId {
    match id {
        FunctionId::Name(n) => match remap.rename(n) {
            Some(new) => FunctionId::Name(new.clone()),
            None => id.clone(),
        },
        FunctionId::Md5(_) => id.clone(),
    }
}

/// The key a top-level profile of `context` is merged under: its (leaf) function, renamed,
/// without calling context.
pub fn remap_context(context: &SampleContext, remap: &Remapping) -> SampleContext {
    SampleContext::Function(remap_id(context.function(), remap))
}

/// The profile llvm-profdata merges in place of `f`: renamed and rebuilt (see the module
/// documentation), with the first problem met merging inlined callees that were renamed to
/// one name (a counter that saturated). The discriminators of body samples and call targets,
/// at every depth, keep the bits of `mask` (llvm-profdata's `--fs-discriminator-pass`;
/// `u32::MAX` keeps them all): samples that end up at one location add up, saturating
/// unreported. Inlined callsites keep their locations, as in llvm-profdata.
pub fn remap_function(
    f: FunctionSamples,
    remap: &Remapping,
    mask: u32,
) -> (FunctionSamples, Option<MergeIssueKind>) {
    let mut issue = None;
    let out = rebuild(f, remap, mask, &mut issue);
    (out, issue)
}

fn rebuild(
    f: FunctionSamples,
    remap: &Remapping,
    mask: u32,
    issue: &mut Option<MergeIssueKind>,
) -> FunctionSamples {
    let mut out = FunctionSamples::new(remap_id(&f.name, remap));
    out.total_samples = f.total_samples;
    out.head_samples = f.head_samples;
    for (loc, rec) in f.body {
        let loc = LineLocation::new(loc.line_offset, loc.discriminator & mask);
        let d = out.body.entry(loc).or_default();
        d.samples = d.samples.saturating_add(rec.samples);
        for (target, count) in rec.call_targets {
            // Overflow of targets renamed to one name saturates unreported, as in LLVM.
            d.add_call_target(remap_id(&target, remap), count, 1);
        }
    }
    for (loc, site) in f.callsites {
        for (_, callee) in site {
            let callee = deep(|| rebuild(callee, remap, mask, issue));
            let slot = out.callsites.entry(loc).or_default();
            let r = match slot.get_mut(&callee.name) {
                Some(existing) => existing.merge_from(callee, Weight::ONE, false),
                None => {
                    let mut fresh = FunctionSamples::default();
                    let name = callee.name.clone();
                    let r = fresh.merge_from(callee, Weight::ONE, true);
                    slot.insert(name, fresh);
                    r
                }
            };
            if issue.is_none() {
                *issue = r;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::{ContextAttributes, ContextFrame};

    fn id(s: &str) -> FunctionId {
        FunctionId::name(s.as_bytes())
    }

    #[test]
    fn renames_and_rebuilds() {
        let r = Remapping::parse("foo bar\ninline1 inline2\nt1 t2\n").unwrap();
        let mut f = FunctionSamples::new(id("main"));
        f.total_samples = 100;
        f.head_samples = 3;
        f.checksum = 77;
        f.attributes = ContextAttributes(2);
        let rec = f.body.entry(LineLocation::new(9, 0)).or_default();
        rec.samples = 50;
        rec.call_targets.insert(id("t1"), 5);
        rec.call_targets.insert(id("t2"), 7);
        rec.call_targets.insert(FunctionId::Md5(42), 1);
        for (name, n) in [("inline1", 10), ("inline2", 20)] {
            let c = f.callee_mut(LineLocation::new(10, 0), &id(name));
            c.total_samples = n;
            c.checksum = 5;
            c.body.entry(LineLocation::new(1, 0)).or_default().samples = n;
        }
        f.type_counts
            .entry(LineLocation::new(9, 0))
            .or_default()
            .insert(id("_ZTV1A"), 4);
        let (g, issue) = remap_function(f, &r, u32::MAX);
        assert_eq!(issue, None);
        assert_eq!((g.total_samples, g.head_samples, g.checksum), (100, 3, 0));
        assert_eq!(g.attributes, ContextAttributes(0));
        assert!(g.type_counts.is_empty());
        let rec = &g.body[&LineLocation::new(9, 0)];
        assert_eq!(rec.call_targets[&id("t2")], 12);
        assert_eq!(rec.call_targets[&FunctionId::Md5(42)], 1);
        let site = &g.callsites[&LineLocation::new(10, 0)];
        assert_eq!(site.len(), 1);
        let c = &site[&id("inline2")];
        assert_eq!((c.total_samples, c.checksum), (30, 0));
        assert_eq!(c.body[&LineLocation::new(1, 0)].samples, 30);
    }

    #[test]
    fn contexts_become_their_renamed_leaf() {
        let r = Remapping::parse("foo bar\n").unwrap();
        let ctx = SampleContext::from_frames(vec![
            ContextFrame {
                function: id("main"),
                location: LineLocation::new(3, 0),
            },
            ContextFrame {
                function: id("foo"),
                location: LineLocation::new(0, 0),
            },
        ])
        .unwrap();
        assert_eq!(remap_context(&ctx, &r), SampleContext::Function(id("bar")));
        let plain = SampleContext::Function(FunctionId::Md5(9));
        assert_eq!(remap_context(&plain, &r), plain);
    }
}
