//! Writer of LLVM's `SPF_Binary` sample profiles, byte for byte as `llvm-profdata merge
//! --sample --binary` (LLVM 19–23, which write this format alike).
//!
//! Magic, version, the profile summary, the name table (every name the profiles use, sorted
//! as LLVM's `FunctionId` compares them), then the top-level profiles, most total samples
//! first (see [`crate::codec::sample_binary`] for the encoding). LLVM refuses to write
//! context-sensitive and probe-based profiles in this format, and so do we.

use std::collections::BTreeSet;

use crate::bytes::leb128::write_uleb;
use crate::codec::sample_binary::{
    NameIndex, SampleMagic, VERSION, collect_body_names, write_body, write_plain_names,
    write_summary,
};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::{FunctionId, SampleProfile};

/// Writes `profile` as `SPF_Binary`.
pub fn write(profile: &SampleProfile) -> Result<Vec<u8>> {
    if profile.flags.context_sensitive || profile.flags.probe_based {
        return Err(Error::new(ErrorKind::CannotWrite(
            "the binary sample format cannot hold context-sensitive or probe-based profiles \
             (llvm-profdata: \"Profile encoding format unsupported for writing operations\"); \
             write extbinary or text"
                .into(),
        )));
    }
    let mut out = Vec::new();
    write_uleb(&mut out, SampleMagic::Binary.value());
    write_uleb(&mut out, VERSION);
    write_summary(&mut out, &crate::ir::sample::summary::compute(profile));
    let mut names: BTreeSet<FunctionId> = BTreeSet::new();
    for (ctx, fs) in &profile.functions {
        names.insert(ctx.function().clone());
        collect_body_names(fs, &mut names, false);
    }
    let names: Vec<FunctionId> = names.into_iter().collect();
    let index: NameIndex = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i as u64))
        .collect();
    write_plain_names(&mut out, &names);
    for (ctx, fs) in profile.sorted() {
        write_uleb(&mut out, fs.head_samples);
        write_uleb(&mut out, index[ctx.function()]);
        write_body(&mut out, fs, &index, false);
    }
    Ok(out)
}
