//! Reader of LLVM's `SPF_Binary` sample profiles (`llvm-profdata merge --sample --binary`).
//!
//! Layout: magic, version 103, the profile summary, a plain name table, then function
//! profiles (head samples, name index, body; see [`crate::codec::sample_binary`]) up to the
//! end of the file. The format has no context-sensitive or probe-based variant (LLVM refuses
//! to write those), and no way to say where the last profile ends other than the file's end,
//! so a file cut between two profiles reads as a shorter valid profile, as it does for LLVM.

use crate::codec::sample_binary::{
    SampleCursor, SampleMagic, read_body, read_header, read_plain_names, read_summary,
};
use crate::error::Result;
use crate::ir::sample::{SampleContext, SampleFormat, SampleProfile};

/// Reads a whole `SPF_Binary` file.
pub fn read(data: &[u8]) -> Result<SampleProfile> {
    read_fs(data, None)
}

/// Reads a whole `SPF_Binary` file whose discriminators are flow-sensitive when `fs` is the
/// mask of the bits to keep (llvm-profdata's `--profile-isfs` with the mask of its
/// `--fs-discriminator-pass`; the format has no flag of its own for it): body records and
/// inlined callsites keep those bits, and the profile is marked flow-sensitive.
pub fn read_fs(data: &[u8], fs: Option<u32>) -> Result<SampleProfile> {
    let mut r = SampleCursor::new(data, 0);
    read_header(&mut r, SampleMagic::Binary)?;
    let summary = read_summary(&mut r)?;
    let names = read_plain_names(&mut r)?;
    let mut profile = SampleProfile::new();
    profile.format = Some(SampleFormat::Binary);
    profile.stored_summary = Some(summary.to_summary());
    profile.flags.fs_discriminator = fs.is_some();
    let mask = fs.unwrap_or(u32::MAX);
    while !r.is_empty() {
        let head = r.num("function: head samples")?;
        let i = r.index(names.len(), "function: name index")?;
        let ctx = SampleContext::Function(names[i].clone());
        if !profile.functions.contains_key(&ctx) {
            profile.insertion_order.push(ctx.clone());
        }
        let fs = profile.entry(ctx);
        fs.head_samples = fs.head_samples.saturating_add(head);
        read_body(&mut r, &names, fs, mask)?;
    }
    Ok(profile)
}
