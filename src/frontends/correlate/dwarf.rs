//! Debug-info correlation (`-mllvm -debug-info-correlate`, clang 14–17, or `-mllvm
//! -profile-correlate=debug-info`, clang 18+, with `-g`): each function's counters are a
//! `DW_TAG_variable` named `__profc_*` inside its `DW_TAG_subprogram`, located with
//! `DW_OP_addr` / `DW_OP_addrx`, with `DW_TAG_LLVM_annotation` children carrying "Function
//! Name", "CFG Hash" and "Num Counters". From clang 23, a function with MC/DC bitmaps also
//! has a `__profbm_*` variable (in `__llvm_prf_bits`) with "Function Name" and "Num
//! BitmapBits"; its bitmap goes to the counters probe of the same function name. The walk is
//! iterative (gimli's depth-first cursor) and keeps one entry per tree level, so nothing
//! recurses with the input.

use std::ops::Range;
use std::path::Path;

use gimli::{AttributeValue, EndianSlice, Operation, Reader, RunTimeEndian};
use object::Object;

use super::Probe;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::correlation::DescribedProbe;

/// `DW_TAG_LLVM_annotation` (LLVM's extension tag).
const DW_TAG_LLVM_ANNOTATION: gimli::DwTag = gimli::DwTag(0x6000);
/// Prefix of a counters variable's name.
const COUNTERS_PREFIX: &[u8] = b"__profc_";
/// Prefix of an MC/DC bitmap variable's name (clang 23+).
const BITMAP_PREFIX: &[u8] = b"__profbm_";

type Slice<'d> = EndianSlice<'d, RunTimeEndian>;

/// What the debug info of one binary gives: probes in DIE order, every function name seen
/// (LLVM's names blob holds them all, including those whose probe was a duplicate) and the
/// warnings about DIEs that were left out.
pub(super) struct DebugProbes {
    pub probes: Vec<Probe>,
    pub names: Vec<Vec<u8>>,
    pub warnings: Vec<Warning>,
    /// With `describe`: every complete probe with its function's names, file and line.
    pub described: Vec<DescribedProbe>,
}

/// What a probe's function DIE says of it (for `show --debug-info`).
#[derive(Default)]
struct FunctionFacts {
    linkage_name: Option<Vec<u8>>,
    file: Option<Vec<u8>>,
    line: Option<u64>,
}

/// A counters (or, with `bitmap`, an MC/DC bitmap) variable being read: its fields as its
/// DIE and its children give them.
#[derive(Default)]
struct Pending {
    bitmap: bool,
    depth: isize,
    at: u64,
    name: Option<Vec<u8>>,
    cfg_hash: Option<u64>,
    counter_ptr: Option<u64>,
    num_counters: Option<u64>,
    num_bitmap_bits: Option<u64>,
    function_ptr: Option<u64>,
    facts: Option<FunctionFacts>,
}

/// Reads the probes of the DWARF in `file`. `counters` and `bitmaps` are the link-time
/// address ranges of `__llvm_prf_cnts` and `__llvm_prf_bits`; with `describe`, each probe's
/// function is described too. Errors name the `.debug_info` offset of the DIE that could
/// not be read.
pub(super) fn probes(
    path: &Path,
    file: &object::File<'_>,
    (counters, bitmaps): (&Range<u64>, &Range<u64>),
    describe: bool,
) -> Result<DebugProbes> {
    let endian = if file.is_little_endian() {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    let sections = gimli::DwarfSections::load(|id| -> Result<Vec<u8>> {
        match file.section_by_name(id.name()) {
            Some(s) => super::contents(path, &s),
            None => Ok(Vec::new()),
        }
    })?;
    let dwarf = sections.borrow(|s| EndianSlice::new(s, endian));
    let mut out = DebugProbes {
        probes: Vec::new(),
        names: Vec::new(),
        warnings: Vec::new(),
        described: Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    let mut found_bitmaps = Bitmaps::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next().map_err(|e| dwarf_error(path, 0, e))? {
        let at = header.offset().0 as u64;
        let unit = dwarf.unit(header).map_err(|e| dwarf_error(path, at, e))?;
        walk_unit(&dwarf, &unit, (at, describe), &mut |p| {
            if p.bitmap {
                finish_bitmap(p, bitmaps, &mut found_bitmaps, &mut out.warnings);
            } else {
                finish(p, counters, &mut out, &mut seen);
            }
        })
        .map_err(|e| dwarf_error(path, at, e))?;
    }
    attach_bitmaps(&mut out, &found_bitmaps);
    Ok(out)
}

/// MC/DC bitmaps by the MD5 of their function name: offset in `__llvm_prf_bits` and number
/// of bytes (the first variable of a name wins).
type Bitmaps = std::collections::HashMap<u64, (u64, u32)>;

/// Gives each probe the bitmap of its function name, if the debug info has one.
fn attach_bitmaps(out: &mut DebugProbes, bitmaps: &Bitmaps) {
    for p in &mut out.probes {
        if let Some(&(offset, bytes)) = bitmaps.get(&p.name_ref) {
            (p.bitmap_offset, p.num_bitmap_bytes) = (offset, bytes);
        }
    }
    for p in &mut out.described {
        let key = crate::ir::name_hash::md5_hash(&p.function_name);
        if let Some(&(offset, bytes)) = bitmaps.get(&key) {
            (p.bitmap_offset, p.num_bitmap_bytes) = (offset, bytes);
        }
    }
}

/// The variable's name as warnings show it (`?` without one), or `None` for a variable the
/// linker dead-stripped (neither its function nor its data has an address).
fn shown_name(p: &Pending) -> Option<String> {
    if p.function_ptr.is_none() && p.counter_ptr.is_none() {
        return None;
    }
    Some(
        p.name
            .as_deref()
            .map_or("?".into(), String::from_utf8_lossy)
            .into_owned(),
    )
}

/// Keeps a complete MC/DC bitmap variable whose bits lie in `__llvm_prf_bits`, or says why
/// it is left out.
fn finish_bitmap(
    p: Pending,
    bitmaps: &Range<u64>,
    found: &mut Bitmaps,
    warnings: &mut Vec<Warning>,
) {
    let Some(shown) = shown_name(&p) else {
        return; // dead-stripped
    };
    let (Some(name), Some(ptr), Some(bits)) = (p.name, p.counter_ptr, p.num_bitmap_bits) else {
        warnings.push(Warning::at(
            p.at,
            format!("incomplete MC/DC bitmap DIE of function {shown}: no name, address or number of bits; left out"),
        ));
        return;
    };
    let bytes = bits.div_ceil(8);
    let inside = bitmaps.contains(&ptr) && ptr.saturating_add(bytes) <= bitmaps.end;
    let Ok(bytes) = u32::try_from(bytes) else {
        return;
    };
    if !inside {
        warnings.push(Warning::at(
            p.at,
            format!(
                "MC/DC bitmap of function {shown} at {ptr:#x} ({bytes} bytes) is outside \
                 __llvm_prf_bits [{:#x}, {:#x}); left out",
                bitmaps.start, bitmaps.end
            ),
        ));
        return;
    }
    found
        .entry(crate::ir::name_hash::md5_hash(&name))
        .or_insert((ptr - bitmaps.start, bytes));
}

/// Walks the DIEs of `unit` (at `.debug_info` offset `base`), handing each counters variable
/// to `done` once its children are read.
fn walk_unit(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    (base, describe): (u64, bool),
    done: &mut dyn FnMut(Pending),
) -> gimli::Result<()> {
    // Per tree level: the tag of the last DIE there, its offset and, for a subprogram, its
    // low_pc.
    let mut levels: Vec<(gimli::DwTag, gimli::UnitOffset, Option<u64>)> = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut cursor = unit.entries();
    while let Some(die) = cursor.next_dfs()? {
        let depth = die.depth();
        if let Some(p) = pending.take_if(|p| depth <= p.depth) {
            done(p);
        }
        let level = usize::try_from(depth).unwrap_or(0);
        levels.truncate(level);
        let low_pc = if die.tag() == gimli::DW_TAG_subprogram {
            match die.attr_value(gimli::DW_AT_low_pc) {
                Some(v) => dwarf.attr_address(unit, v)?,
                None => None,
            }
        } else {
            None
        };
        levels.push((die.tag(), die.offset(), low_pc));
        if let Some(p) = pending.as_mut() {
            if depth == p.depth + 1 && die.tag() == DW_TAG_LLVM_ANNOTATION {
                annotation(dwarf, unit, die, p)?;
            }
            continue;
        }
        let parent = level.checked_sub(1).and_then(|l| levels.get(l)).copied();
        let Some((gimli::DW_TAG_subprogram, parent_at, parent_low_pc)) = parent else {
            continue;
        };
        if die.tag() != gimli::DW_TAG_variable || !die.has_children() {
            continue;
        }
        let Some(name) = die.attr_value(gimli::DW_AT_name) else {
            continue;
        };
        let name = dwarf.attr_string(unit, name)?;
        let name = name.to_slice()?;
        let bitmap = name.starts_with(BITMAP_PREFIX);
        if !bitmap && !name.starts_with(COUNTERS_PREFIX) {
            continue;
        }
        pending = Some(Pending {
            bitmap,
            depth,
            at: base + die.offset().0 as u64,
            // For a bitmap variable: the address of its bits.
            counter_ptr: location(dwarf, unit, die)?,
            function_ptr: parent_low_pc,
            facts: if describe && !bitmap {
                Some(function_facts(dwarf, unit, parent_at)?)
            } else {
                None
            },
            ..Pending::default()
        });
    }
    if let Some(p) = pending {
        done(p);
    }
    Ok(())
}

/// Reads one `DW_TAG_LLVM_annotation` child into `p` (annotations LLVM does not know, or
/// without a name or value, are passed over as LLVM passes them).
fn annotation(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    die: &gimli::DebuggingInformationEntry<Slice<'_>>,
    p: &mut Pending,
) -> gimli::Result<()> {
    let (Some(name), Some(value)) = (
        die.attr_value(gimli::DW_AT_name),
        die.attr_value(gimli::DW_AT_const_value),
    ) else {
        return Ok(());
    };
    let Ok(name) = dwarf.attr_string(unit, name) else {
        return Ok(());
    };
    match name.to_slice()?.as_ref() {
        b"Function Name" => {
            if let Ok(s) = dwarf.attr_string(unit, value) {
                p.name = Some(s.to_slice()?.into_owned());
            }
        }
        b"CFG Hash" => p.cfg_hash = unsigned(&value),
        b"Num Counters" => p.num_counters = unsigned(&value),
        b"Num BitmapBits" => p.num_bitmap_bits = unsigned(&value),
        _ => {}
    }
    Ok(())
}

/// A constant as LLVM's `getAsUnsignedConstant` reads it: any unsigned form, or a signed one
/// that is not negative.
fn unsigned(v: &AttributeValue<Slice<'_>>) -> Option<u64> {
    match *v {
        AttributeValue::Data1(x) => Some(x.into()),
        AttributeValue::Data2(x) => Some(x.into()),
        AttributeValue::Data4(x) => Some(x.into()),
        AttributeValue::Data8(x) => Some(x),
        AttributeValue::Udata(x) => Some(x),
        AttributeValue::Sdata(x) => u64::try_from(x).ok(),
        _ => None,
    }
}

/// The address the variable's `DW_AT_location` expression names with its first
/// `DW_OP_addr` or `DW_OP_addrx`.
fn location(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    die: &gimli::DebuggingInformationEntry<Slice<'_>>,
) -> gimli::Result<Option<u64>> {
    let Some(AttributeValue::Exprloc(expr)) = die.attr_value(gimli::DW_AT_location) else {
        return Ok(None);
    };
    let mut ops = expr.operations(unit.encoding());
    while let Some(op) = ops.next()? {
        match op {
            Operation::Address { address } => return Ok(Some(address)),
            Operation::AddressIndex { index } => return dwarf.address(unit, index).map(Some),
            _ => {}
        }
    }
    Ok(None)
}

/// Keeps a complete probe (the first of its counter offset), or says why it is left out,
/// as LLVM's correlator does.
fn finish(
    p: Pending,
    counters: &Range<u64>,
    out: &mut DebugProbes,
    seen: &mut std::collections::HashSet<u64>,
) {
    let Some(shown) = shown_name(&p) else {
        return; // dead-stripped
    };
    let (Some(name), Some(cfg_hash), Some(counter_ptr), Some(num_counters)) =
        (p.name, p.cfg_hash, p.counter_ptr, p.num_counters)
    else {
        out.warnings.push(Warning::at(
            p.at,
            format!("incomplete counters DIE of function {shown}: no name, CFG hash, address or number of counters; left out"),
        ));
        return;
    };
    if !counters.contains(&counter_ptr) {
        out.warnings.push(Warning::at(
            p.at,
            format!(
                "counters of function {shown} at {counter_ptr:#x} are outside __llvm_prf_cnts \
                 [{:#x}, {:#x}); left out",
                counters.start, counters.end
            ),
        ));
        return;
    }
    if p.function_ptr.is_none() {
        out.warnings.push(Warning::at(
            p.at,
            format!("no address of function {shown} in the debug info"),
        ));
    }
    let counter_offset = counter_ptr - counters.start;
    if let Some(facts) = p.facts {
        out.described.push(DescribedProbe {
            function_name: name.clone(),
            linkage_name: facts.linkage_name,
            cfg_hash,
            counter_offset,
            num_counters,
            bitmap_offset: 0,
            num_bitmap_bytes: 0,
            file: facts.file,
            line: facts.line,
        });
    }
    if seen.insert(counter_offset) {
        out.probes.push(Probe {
            name_ref: crate::ir::name_hash::md5_hash(&name),
            func_hash: cfg_hash,
            counter_offset,
            function_ptr: p.function_ptr.unwrap_or(0),
            // LLVM keeps the low 32 bits, as its record field is 32 bits wide.
            num_counters: num_counters as u32,
            bitmap_offset: 0,
            num_bitmap_bytes: 0,
        });
    }
    out.names.push(name);
}

/// Most DIEs followed through `DW_AT_specification` / `DW_AT_abstract_origin` when looking
/// for an attribute (LLVM follows them without a limit but never twice to the same DIE).
const MAX_REFERENCES: usize = 64;

/// The first value of one of `names` on the DIE at `at` or on the DIEs it refers to through
/// `DW_AT_specification` and `DW_AT_abstract_origin`, in LLVM's order (`findRecursively`:
/// a stack, specification before abstract origin). References outside the unit are not
/// followed.
fn find_recursively<'d>(
    unit: &gimli::Unit<Slice<'d>>,
    at: gimli::UnitOffset,
    names: &[gimli::DwAt],
) -> gimli::Result<Option<AttributeValue<Slice<'d>>>> {
    let mut stack = vec![at];
    let mut seen = vec![at];
    while let Some(offset) = stack.pop() {
        let die = unit.entry(offset)?;
        for &name in names {
            if let Some(v) = die.attr_value(name) {
                return Ok(Some(v));
            }
        }
        for link in [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification] {
            if let Some(AttributeValue::UnitRef(next)) = die.attr_value(link)
                && !seen.contains(&next)
                && seen.len() < MAX_REFERENCES
            {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    Ok(None)
}

/// The linkage name (else name), declaring file and line of the function DIE at `at`, as
/// LLVM's `DWARFDie` finds them.
fn function_facts(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    at: gimli::UnitOffset,
) -> gimli::Result<FunctionFacts> {
    let string = |v: Option<AttributeValue<Slice<'_>>>| -> gimli::Result<Option<Vec<u8>>> {
        match v {
            Some(v) => match dwarf.attr_string(unit, v) {
                Ok(s) => Ok(Some(s.to_slice()?.into_owned())),
                Err(_) => Ok(None),
            },
            None => Ok(None),
        }
    };
    let linkage = find_recursively(
        unit,
        at,
        &[gimli::DW_AT_MIPS_linkage_name, gimli::DW_AT_linkage_name],
    )?;
    let linkage_name = match string(linkage)? {
        Some(n) => Some(n),
        None => string(find_recursively(unit, at, &[gimli::DW_AT_name])?)?,
    };
    let file = match find_recursively(unit, at, &[gimli::DW_AT_decl_file])? {
        Some(AttributeValue::FileIndex(i)) => relative_file(dwarf, unit, i)?,
        Some(v) => match unsigned(&v) {
            Some(i) => relative_file(dwarf, unit, i)?,
            None => None,
        },
        None => None,
    };
    let line = find_recursively(unit, at, &[gimli::DW_AT_decl_line])?
        .as_ref()
        .and_then(unsigned)
        .filter(|&l| l != 0);
    Ok(FunctionFacts {
        linkage_name,
        file,
        line,
    })
}

/// File `index` of the unit's line table as LLVM names it with its "relative file path":
/// an absolute name as it is, else joined to its include directory, except the
/// compilation directory (DWARF 5 directory 0, DWARF 4 directory 0), which is left out.
fn relative_file(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    index: u64,
) -> gimli::Result<Option<Vec<u8>>> {
    let Some(program) = &unit.line_program else {
        return Ok(None);
    };
    let header = program.header();
    let v5 = header.version() >= 5;
    // Before DWARF 5 file numbers start at 1; LLVM has no file 0 there.
    if !v5 && index == 0 {
        return Ok(None);
    }
    let Some(entry) = header.file(index) else {
        return Ok(None);
    };
    let Ok(name) = dwarf.attr_string(unit, entry.path_name()) else {
        return Ok(None);
    };
    let name = name.to_slice()?.into_owned();
    if name.starts_with(b"/") {
        return Ok(Some(name));
    }
    let dirs = header.include_directories();
    let d = entry.directory_index();
    let dir = match (v5, usize::try_from(d)) {
        (true, Ok(i)) if i != 0 => dirs.get(i),
        (false, Ok(i)) if i != 0 => dirs.get(i - 1),
        _ => None,
    };
    let dir = match dir {
        Some(v) => match dwarf.attr_string(unit, *v) {
            Ok(s) => s.to_slice()?.into_owned(),
            Err(_) => Vec::new(),
        },
        None => Vec::new(),
    };
    if dir.is_empty() {
        return Ok(Some(name));
    }
    let mut path = dir;
    if !path.ends_with(b"/") {
        path.push(b'/');
    }
    path.extend_from_slice(&name);
    Ok(Some(path))
}

fn dwarf_error(path: &Path, at: u64, e: gimli::Error) -> Error {
    Error::at(
        at,
        ErrorKind::Malformed {
            what: "DWARF debug info (.debug_info unit)",
            detail: e.to_string(),
        },
    )
    .with_path(path)
}
