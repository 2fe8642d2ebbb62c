//! Reader of GCC's AutoFDO profiles (`.gcov`/`.afdo`, as AutoFDO's `create_gcov` writes
//! them), which llvm-profdata reads as the `gcc` sample encoding.
//!
//! The file is a sequence of little-endian 32-bit words (64-bit counts are two words, low
//! word first):
//!
//! ```text
//! "adcg" "*704"          magic and version (GCC 4.7's gcda header; llvm-profdata accepts
//!                        no other version and requires a NUL byte, or the end, after it)
//! stamp                  ignored
//! 0xaa000000 length      name table tag; the length word is ignored
//! N, then N strings      a string: its length in words (at least 1), then that many words
//!                        holding the name padded with NULs
//! 0xac000000 length      function section tag; the length word is ignored
//! F, then F functions    see below
//! ...                    the module (0xae000000) and working-set (0xaf000000) sections,
//!                        never read: llvm-profdata stops after the last function
//! ```
//!
//! A function: its head samples (64 bits; top level only), its name's index in the table,
//! the number of its body locations P and of its inlined call sites C, then P positions
//! (offset, number of call targets T, count (64 bits), then T × (histogram type, which must
//! be 7, `HIST_TYPE_INDIR_CALL_TOPN`; target name index (64 bits); count (64 bits))), then C
//! call sites (offset, then an inlined function without head samples). An offset holds the
//! line offset in its high 16 bits and the discriminator in its low 16 bits.
//!
//! The file stores no totals: as llvm-profdata, each body count is added to the total of its
//! function and of every function it is inlined into. A top-level function met again (GCC
//! writes one copy per alias of a body) adds its head samples, but its body and call targets
//! are ignored once the function has a non-zero total, though its inlined call sites are
//! still created (empty), as llvm-profdata does. Counts saturate without a warning (LLVM's
//! reader ignores its additions' overflow flags).
//!
//! Where llvm-profdata misbehaves this reader is an error instead: a name or call-target
//! index past the name table (LLVM indexes its vector unchecked). Inlined call sites nest as
//! deep as the file says (LLVM recurses without limit; so do we, on a stack that grows:
//! [`deep`]). A string length
//! word is multiplied by 4 in 32 bits, wrapping, as LLVM does.

use crate::bytes::stack::deep;
use crate::bytes::{Cursor, Endian};
use crate::error::{Error, Result};
use crate::ir::sample::{
    FunctionId, FunctionSamples, LineLocation, SampleContext, SampleFormat, SampleProfile,
    saturating_mul_add,
};

/// The first bytes llvm-profdata recognises: magic `adcg` and version `*704` (little-endian
/// "gcda" and "407*").
pub const MAGIC: &[u8; 8] = b"adcg*704";
/// The name-table section tag (`GCOV_TAG_AFDO_FILE_NAMES`).
pub const TAG_NAMES: u32 = 0xaa00_0000;
/// The function section tag (`GCOV_TAG_AFDO_FUNCTION`).
pub const TAG_FUNCTIONS: u32 = 0xac00_0000;
/// The module section tag (`GCOV_TAG_AFDO_MODULE_GROUPING`), not read.
pub const TAG_MODULES: u32 = 0xae00_0000;
/// The working-set section tag (`GCOV_TAG_AFDO_WORKING_SET`), not read.
pub const TAG_WORKING_SET: u32 = 0xaf00_0000;
/// The only histogram type a call target may have (`HIST_TYPE_INDIR_CALL_TOPN`).
pub const HIST_TYPE_INDIR_CALL_TOPN: u32 = 7;

/// True if llvm-profdata reads `data` as a GCC profile: it compares the bytes up to the
/// first NUL (or the end) with `adcg*704`.
pub fn sniff(data: &[u8]) -> bool {
    data.starts_with(MAGIC) && data.get(MAGIC.len()).is_none_or(|&b| b == 0)
}

/// Reads a whole GCC AutoFDO profile.
pub fn read(data: &[u8]) -> Result<SampleProfile> {
    if !sniff(data) {
        let head: Vec<u8> = data.iter().copied().take(MAGIC.len()).collect();
        return Err(Error::malformed(
            0,
            "GCC AutoFDO header",
            format!(
                "found {:?}, expected the magic and version \"adcg*704\" followed by a NUL byte",
                String::from_utf8_lossy(&head)
            ),
        ));
    }
    let mut r = Cursor::new(data, 0, Endian::Little);
    r.skip(MAGIC.len() as u64, "GCC AutoFDO header: magic and version")?;
    r.skip(4, "GCC AutoFDO header: stamp")?;
    section_tag(&mut r, TAG_NAMES, "name table")?;
    let names = read_names(&mut r)?;
    section_tag(&mut r, TAG_FUNCTIONS, "function section")?;
    let count = r.u32("function section: number of functions")?;
    let mut profile = SampleProfile::new();
    profile.format = Some(SampleFormat::Gcc);
    for _ in 0..count {
        let head = u64_words(&mut r, "function: head samples")?;
        let name = name_at(&mut r, &names, "function: name index")?;
        let ctx = SampleContext::Function(name);
        if !profile.functions.contains_key(&ctx) {
            profile.insertion_order.push(ctx.clone());
        }
        let fs = profile.entry(ctx);
        fs.head_samples = saturating_mul_add(head, 1, fs.head_samples).0;
        // A function met again (an alias of a body already read) keeps its first samples.
        let update = fs.total_samples == 0;
        read_function(&mut r, &names, fs, update)?;
    }
    Ok(profile)
}

/// Reads a section tag, which must be `expected`, and the length word after it (ignored).
fn section_tag(r: &mut Cursor<'_>, expected: u32, what: &'static str) -> Result<()> {
    let at = r.offset();
    let tag = r.u32("section tag")?;
    if tag != expected {
        return Err(Error::malformed(
            at,
            "section tag",
            format!("found {tag:#010x}, expected {expected:#010x} (the {what})"),
        ));
    }
    r.skip(4, "section length")
}

/// Reads the name table: a count, then strings.
fn read_names(r: &mut Cursor<'_>) -> Result<Vec<FunctionId>> {
    let n = r.u32("name table: number of names")?;
    // A string takes at least its length word: the vector never outgrows the data.
    let mut names =
        crate::sys::alloc::with_capacity((n as usize).min(r.remaining() / 4), "the name table")?;
    for _ in 0..n {
        let at = r.offset();
        let words = r.u32("name table: string length")?;
        if words == 0 {
            return Err(Error::malformed(
                at,
                "name table: string length",
                "0 words, expected at least 1 (llvm-profdata: truncated)",
            ));
        }
        let bytes = r.bytes(u64::from(words.wrapping_mul(4)), "name table: string")?;
        let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
        names.push(FunctionId::name(&bytes[..end]));
    }
    Ok(names)
}

/// A 64-bit count stored as two words, low word first.
fn u64_words(r: &mut Cursor<'_>, what: &'static str) -> Result<u64> {
    let lo = r.u32(what)?;
    let hi = r.u32(what)?;
    Ok((u64::from(hi) << 32) | u64::from(lo))
}

/// A 32-bit name index, checked against the table.
fn name_at(r: &mut Cursor<'_>, names: &[FunctionId], what: &'static str) -> Result<FunctionId> {
    let at = r.offset();
    let i = r.u32(what)?;
    lookup(names, u64::from(i), at, what)
}

fn lookup(names: &[FunctionId], i: u64, at: u64, what: &'static str) -> Result<FunctionId> {
    usize::try_from(i)
        .ok()
        .and_then(|i| names.get(i))
        .cloned()
        .ok_or_else(|| {
            Error::malformed(
                at,
                what,
                format!(
                    "index {i} is past the end of the name table of {} names",
                    names.len()
                ),
            )
        })
}

/// The location an offset word encodes: line offset in the high 16 bits, discriminator in
/// the low 16.
fn location(offset: u32) -> LineLocation {
    LineLocation::new(offset >> 16, offset & 0xffff)
}

/// Reads the body and inlined call sites of `fs`, whose head samples and name were read;
/// `depth` is its nesting under the top-level function. Adds the body counts to `fs`'s
/// total when `update`, and returns their (saturated) sum with those of the call sites, for
/// the caller's total.
fn read_function(
    r: &mut Cursor<'_>,
    names: &[FunctionId],
    fs: &mut FunctionSamples,
    update: bool,
) -> Result<u64> {
    let positions = r.u32("function: number of positions")?;
    let callsites = r.u32("function: number of inlined call sites")?;
    let mut added = 0u64;
    for _ in 0..positions {
        let loc = location(r.u32("position: offset")?);
        let targets = r.u32("position: number of call targets")?;
        let count = u64_words(r, "position: count")?;
        if update {
            fs.total_samples = saturating_mul_add(count, 1, fs.total_samples).0;
            added = saturating_mul_add(count, 1, added).0;
            fs.body.entry(loc).or_default().add_samples(count, 1);
        }
        for _ in 0..targets {
            let at = r.offset();
            let hist = r.u32("call target: histogram type")?;
            if hist != HIST_TYPE_INDIR_CALL_TOPN {
                return Err(Error::malformed(
                    at,
                    "call target: histogram type",
                    format!("found {hist}, expected {HIST_TYPE_INDIR_CALL_TOPN} (indirect call)"),
                ));
            }
            let at = r.offset();
            let index = u64_words(r, "call target: name index")?;
            let target = lookup(names, index, at, "call target: name index")?;
            let calls = u64_words(r, "call target: count")?;
            if update {
                fs.body
                    .entry(loc)
                    .or_default()
                    .add_call_target(target, calls, 1);
            }
        }
    }
    for _ in 0..callsites {
        let loc = location(r.u32("inlined call site: offset")?);
        let name = name_at(r, names, "inlined function: name index")?;
        let callee = fs.callee_mut(loc, &name);
        let sub = deep(|| read_function(r, names, callee, update))?;
        fs.total_samples = saturating_mul_add(sub, 1, fs.total_samples).0;
        added = saturating_mul_add(sub, 1, added).0;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&v.to_le_bytes());
    }

    fn w64(out: &mut Vec<u8>, v: u64) {
        w(out, v as u32);
        w(out, (v >> 32) as u32);
    }

    fn header(out: &mut Vec<u8>, names: &[&str]) {
        out.extend_from_slice(b"adcg*704"); // magic, version
        w(out, 0); // stamp
        w(out, TAG_NAMES);
        w(out, 0); // section length, ignored
        w(out, names.len() as u32);
        for n in names {
            let words = n.len() / 4 + 1; // room for at least one NUL
            w(out, words as u32);
            let mut b = n.as_bytes().to_vec();
            b.resize(words * 4, 0);
            out.extend_from_slice(&b);
        }
        w(out, TAG_FUNCTIONS);
        w(out, 0); // section length, ignored
    }

    /// main (head 5) with a body count of 10 at 1 (a call to foo: 9), and bar inlined at
    /// 2.3 with 7 samples at 1 and leaf inlined under it with 4 at 0; then main again (an
    /// alias) with head 2 and a body count that is ignored.
    fn sample() -> Vec<u8> {
        sample_with(3, 7)
    }

    /// [`sample`] with leaf's name index and the call target's histogram type replaced.
    fn sample_with(leaf: u32, hist: u32) -> Vec<u8> {
        let mut d = Vec::new();
        header(&mut d, &["main", "foo", "bar", "leaf"]);
        w(&mut d, 2); // functions
        w64(&mut d, 5); // head samples
        w(&mut d, 0); // name: main
        w(&mut d, 1); // positions
        w(&mut d, 1); // call sites
        w(&mut d, 1 << 16); // offset 1
        w(&mut d, 1); // call targets
        w64(&mut d, 10); // count
        w(&mut d, hist); // histogram type
        w64(&mut d, 1); // target: foo
        w64(&mut d, 9); // calls
        w(&mut d, (2 << 16) | 3); // call site 2.3
        w(&mut d, 2); // name: bar
        w(&mut d, 1); // positions
        w(&mut d, 1); // call sites
        w(&mut d, 1 << 16); // offset 1
        w(&mut d, 0); // call targets
        w64(&mut d, 7); // count
        w(&mut d, 0); // call site 0
        w(&mut d, leaf); // name: leaf
        w(&mut d, 1); // positions
        w(&mut d, 0); // call sites
        w(&mut d, 0); // offset 0
        w(&mut d, 0); // call targets
        w64(&mut d, 4); // count
        w64(&mut d, 2); // main again: head samples
        w(&mut d, 0); // name: main
        w(&mut d, 1); // positions
        w(&mut d, 0); // call sites
        w(&mut d, 1 << 16); // offset 1
        w(&mut d, 0); // call targets
        w64(&mut d, 100); // count, ignored
        w(&mut d, TAG_MODULES); // never read
        d
    }

    #[test]
    fn reads_totals_inline_stacks_and_aliases() {
        let p = read(&sample()).unwrap();
        assert_eq!(p.format, Some(SampleFormat::Gcc));
        let main = &p.functions[&SampleContext::Function(FunctionId::name(b"main"))];
        assert_eq!(main.head_samples, 7);
        assert_eq!(main.total_samples, 21);
        let rec = &main.body[&LineLocation::new(1, 0)];
        assert_eq!(rec.samples, 10);
        assert_eq!(rec.call_targets[&FunctionId::name(b"foo")], 9);
        let bar = &main.callsites[&LineLocation::new(2, 3)][&FunctionId::name(b"bar")];
        assert_eq!(bar.total_samples, 11);
        let leaf = &bar.callsites[&LineLocation::new(0, 0)][&FunctionId::name(b"leaf")];
        assert_eq!(leaf.total_samples, 4);
        assert_eq!(p.insertion_order.len(), 1);
    }

    #[test]
    fn sniffs_as_llvm_does() {
        assert!(sniff(b"adcg*704"));
        assert!(sniff(b"adcg*704\0\0\0\0"));
        assert!(!sniff(b"adcg*704x"));
        assert!(!sniff(b"adcg*804\0"));
        assert!(!sniff(b"adcg*70"));
    }

    #[test]
    fn every_truncation_is_an_error_with_an_offset() {
        let d = sample();
        // The module tag after the functions is never read.
        let end = d.len() - 4;
        for cut in 0..end {
            let e = read(&d[..cut]).expect_err("a truncated file must not read");
            assert!(e.offset().is_some(), "cut {cut}: {e}");
        }
        assert!(read(&d[..end]).is_ok());
    }

    #[test]
    fn corrupt_words_never_panic() {
        let d = sample();
        for i in 0..d.len() {
            for v in [0u8, 1, 0x7f, 0xff] {
                let mut c = d.clone();
                c[i] = v;
                let _ = read(&c);
            }
        }
    }

    #[test]
    fn bad_indices_and_histograms_are_errors() {
        let e = read(&sample_with(9, 7)).unwrap_err().to_string();
        assert!(e.contains("index 9 is past the end"), "{e}");
        let e = read(&sample_with(3, 6)).unwrap_err().to_string();
        assert!(e.contains("found 6, expected 7"), "{e}");
    }

    #[test]
    fn deep_nesting_reads_on_a_small_stack() {
        // 20,000 levels (LLVM reads them too) on a 256 KiB thread: the reader, and dropping
        // what it read, need no more stack than that.
        const LEVELS: usize = 20_000;
        let mut d = Vec::new();
        header(&mut d, &["f"]);
        w(&mut d, 1);
        w64(&mut d, 0);
        w(&mut d, 0);
        for _ in 0..LEVELS {
            w(&mut d, 0); // positions
            w(&mut d, 1); // call sites
            w(&mut d, 0); // offset
            w(&mut d, 0); // name
        }
        w(&mut d, 0);
        w(&mut d, 0);
        let depth = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let p = read(&d).unwrap();
                let mut f = p.functions.values().next().unwrap();
                let mut depth = 0;
                while let Some(site) = f.callsites.values().next() {
                    f = site.values().next().unwrap();
                    depth += 1;
                }
                depth
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(depth, LEVELS);
    }
}
