//! Writes sample profiles in LLVM's text format, byte for byte as `llvm-profdata merge
//! --sample --text` writes them (LLVM's `SampleProfileWriterText`).
//!
//! Order: top-level profiles by total samples, most first, equal totals in
//! [`SampleContext`](crate::ir::sample::SampleContext) order; in each, body lines by
//! location, each followed by its vtable line if any, then inlined callees by location and
//! callee, each location followed by its vtable line again (LLVM 22 writes a location's
//! vtable counts after its body line and after its callees, so a location with both gets
//! two lines), then `!CFGChecksum` (every function of a probe-based profile, 0 included)
//! and `!Attributes` (when non-zero). Call targets: most samples first, ties by name.
//! Context-sensitive profiles write every header in brackets, inlined callees too (`[bar]`),
//! as LLVM does. Vtable lines end with a space, as LLVM 22's do.

use crate::bytes::stack::deep;
use crate::ir::sample::{FunctionSamples, SampleFlags, SampleProfile};

/// The text form of `profile`.
pub fn write(profile: &SampleProfile) -> Vec<u8> {
    let mut out = Vec::new();
    for (context, samples) in profile.sorted() {
        if profile.flags.context_sensitive {
            out.push(b'[');
            context.write_to(&mut out);
            out.push(b']');
        } else {
            context.write_to(&mut out);
        }
        write_function(samples, 0, profile.flags, &mut out);
    }
    out
}

/// Writes the rest of a header (`:total[:head]`) and the lines of `f`, whose body lines are
/// indented by `indent + 1` spaces.
fn write_function(f: &FunctionSamples, indent: usize, flags: SampleFlags, out: &mut Vec<u8>) {
    out.push(b':');
    push_u64(out, f.total_samples);
    if indent == 0 {
        out.push(b':');
        push_u64(out, f.head_samples);
    }
    out.push(b'\n');
    for (loc, rec) in &f.body {
        spaces(out, indent + 1);
        loc.write_to(out);
        out.extend_from_slice(b": ");
        push_u64(out, rec.samples);
        for (target, count) in rec.sorted_call_targets() {
            out.push(b' ');
            target.write_to(out);
            out.push(b':');
            push_u64(out, count);
        }
        out.push(b'\n');
        write_types(f, *loc, indent + 1, out);
    }
    for (loc, site) in &f.callsites {
        for callee in site.values() {
            spaces(out, indent + 1);
            loc.write_to(out);
            out.extend_from_slice(b": ");
            if flags.context_sensitive {
                out.push(b'[');
                callee.name.write_to(out);
                out.push(b']');
            } else {
                callee.name.write_to(out);
            }
            deep(|| write_function(callee, indent + 1, flags, out));
        }
        write_types(f, *loc, indent + 1, out);
    }
    if flags.probe_based {
        spaces(out, indent + 1);
        out.extend_from_slice(b"!CFGChecksum: ");
        push_u64(out, f.checksum);
        out.push(b'\n');
    }
    if f.attributes.0 != 0 {
        spaces(out, indent + 1);
        out.extend_from_slice(b"!Attributes: ");
        push_u64(out, u64::from(f.attributes.0));
        out.push(b'\n');
    }
}

/// The vtable line of `loc` in `f`, if it has type counts.
fn write_types(
    f: &FunctionSamples,
    loc: crate::ir::sample::LineLocation,
    indent: usize,
    out: &mut Vec<u8>,
) {
    let Some(types) = f.type_counts.get(&loc).filter(|t| !t.is_empty()) else {
        return;
    };
    spaces(out, indent);
    loc.write_to(out);
    out.extend_from_slice(b": vtables ");
    for (t, c) in types {
        t.write_to(out);
        out.push(b':');
        push_u64(out, *c);
        out.push(b' ');
    }
    out.push(b'\n');
}

fn spaces(out: &mut Vec<u8>, n: usize) {
    out.resize(out.len() + n, b' ');
}

fn push_u64(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::{FunctionId, LineLocation, SampleContext};

    fn id(s: &str) -> FunctionId {
        FunctionId::name(s.as_bytes())
    }

    #[test]
    fn llvm_22_quirks() {
        // Vtable counts of a location with a body line and callees are written twice; a
        // CS profile brackets inlined callees; a probe-based one writes checksum 0.
        let mut p = SampleProfile::new();
        p.flags.context_sensitive = true;
        p.flags.probe_based = true;
        let ctx = SampleContext::from_frames(vec![crate::ir::sample::ContextFrame {
            function: id("foo"),
            location: LineLocation::default(),
        }])
        .unwrap();
        let f = p.entry(ctx);
        f.total_samples = 10;
        let l3 = LineLocation::new(3, 0);
        f.body.entry(l3).or_default().samples = 4;
        f.callee_mut(l3, &id("bar")).total_samples = 6;
        f.type_counts.entry(l3).or_default().insert(id("_ZTVA"), 2);
        let text = String::from_utf8(write(&p)).unwrap();
        assert_eq!(
            text,
            "[foo]:10:0\n 3: 4\n 3: vtables _ZTVA:2 \n 3: [bar]:6\n  !CFGChecksum: 0\n 3: vtables _ZTVA:2 \n !CFGChecksum: 0\n"
        );
    }

    #[test]
    fn deep_nesting_writes_on_a_small_stack() {
        let mut p = SampleProfile::new();
        let mut f = p.entry(SampleContext::Function(id("f")));
        for _ in 0..crate::ir::sample::TESTED_INLINE_DEPTH {
            f = f.callee_mut(LineLocation::new(1, 0), &id("g"));
        }
        let p = std::sync::Arc::new(p);
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || write(&p).len())
            .unwrap()
            .join()
            .unwrap();
    }
}
