//! Prints a function order: as `llvm-profdata order` does (the default, byte for byte), or
//! for a given linker, or as JSON.
//!
//! Names are the profile's names: a function with internal linkage is named
//! `FILE;NAME` (LLVM's IR PGO name), printed as a `# FILE` comment line before `NAME`. A
//! function whose name the profile lacks is an empty line, as llvm-profdata prints it.

use std::io::Write;

#[cfg(feature = "json")]
use serde_json::{Value, json};

use crate::ir::SymbolTable;
use crate::ir::order::FunctionOrder;

/// What the order is written as.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderFormat {
    /// llvm-profdata's text: header comments, `# FILE` lines, one symbol per line. lld's
    /// `--symbol-ordering-file` takes it as it is (it skips `#` comments).
    #[default]
    Llvm,
    /// One symbol per line and nothing else (linkers that take no comments).
    Symbols,
    /// For ld64's `-order_file`: C symbols with Mach-O's `_` prefix (comments kept).
    Ld64,
    /// Section names of `-ffunction-sections` objects, one per line, for gold's
    /// `--section-ordering-file` (GNU ld's option of that name reads a script: see
    /// [`OrderFormat::GnuLd`]): each function's `.text.NAME`, then the `.text.hot.NAME` and
    /// `.text.unlikely.NAME` that profile-guided builds name it instead.
    Sections,
    /// A section-ordering script for GNU ld 2.43+'s `--section-ordering-file`: one output
    /// section `.text` whose input sections are each function's `.text.NAME` (and the
    /// `.text.hot.NAME` and `.text.unlikely.NAME` that profile-guided builds name), in
    /// order. Functions without a name, or whose name a script cannot hold (spaces, `;`,
    /// `,`, quotes, parentheses, braces, `/`), are left out.
    GnuLd,
    /// A JSON document: the functions in order with their file and name hash, the count,
    /// and the page-fault figure.
    Json,
}

/// The warning llvm-profdata prints before the names.
const MACHO_WARNING: &str = "# Warning: Mach-O may prefix symbols with \"_\" depending on the linkage and this output does not take that into account. Some post-processing may be required before passing to the linker via -order_file.\n";

/// One ordered function: its file (internal linkage only) and its name.
fn parsed_name(names: &SymbolTable, id: u64) -> (&[u8], &[u8]) {
    let full: &[u8] = names.get(id).map(|n| &n[..]).unwrap_or(&[]);
    // LLVM's getParsedIRPGOName: split at the first ';' unless nothing follows it.
    match full.iter().position(|&b| b == b';') {
        Some(i) if i + 1 < full.len() => (&full[..i], &full[i + 1..]),
        _ => (&[], full),
    }
}

/// `x` as C's `printf("%e")` prints it, for a whole number `x` below 2^64 (the
/// page-fault area as `f32`): six decimals after the first digit, ties to even, a signed
/// exponent of at least two digits.
fn c_exponent(x: f32) -> String {
    let v = x as u64; // a whole number: the f32 of a u32 count
    if v == 0 {
        return "0.000000e+00".to_string();
    }
    let digits = v.to_string();
    let exp = digits.len() - 1;
    let mantissa: String = if digits.len() <= 7 {
        format!("{digits:0<7}")
    } else {
        // Round to 7 significant digits, ties to even (the value is exact).
        let keep: u64 = digits[..7].parse().unwrap_or(0);
        let rest = &digits[7..];
        let half = format!("5{}", "0".repeat(rest.len() - 1));
        let up = match rest.cmp(half.as_str()) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => keep % 2 == 1,
        };
        let k = keep + u64::from(up);
        if k == 10_000_000 {
            return format!("1.000000e+{:02}", exp + 1);
        }
        k.to_string()
    };
    format!("{}.{}e+{:02}", &mantissa[..1], &mantissa[1..], exp)
}

/// The order of `order`'s functions named from `names`, as `format`; an
/// [`crate::error::ErrorKind::OutOfMemory`] error if its bytes cannot be allocated.
pub fn render(
    order: &FunctionOrder,
    names: &SymbolTable,
    format: OrderFormat,
) -> crate::error::Result<Vec<u8>> {
    // Without the `json` feature the driver refuses a JSON order before it gets here.
    #[cfg(feature = "json")]
    if format == OrderFormat::Json {
        return Ok(json(order, names));
    }
    // Every format writes each name at most three times, with at most 50 bytes around it.
    let bytes = order.functions.iter().fold(200usize, |n, &id| {
        let len = names.get(id).map_or(0, |s| s.len());
        n.saturating_add(len.saturating_add(50).saturating_mul(3))
    });
    let mut out = Vec::new();
    crate::sys::alloc::reserve(&mut out, bytes, "the function order")?;
    if matches!(format, OrderFormat::Llvm | OrderFormat::Ld64) {
        let _ = writeln!(out, "# Ordered {} functions", order.functions.len());
        if let Some(area) = order.page_fault_area {
            let _ = writeln!(
                out,
                "# Total area under the page fault curve: {}",
                c_exponent(area as f32)
            );
        }
    }
    if format == OrderFormat::Llvm {
        out.extend_from_slice(MACHO_WARNING.as_bytes());
    }
    if format == OrderFormat::GnuLd {
        gnu_ld_script(order, names, &mut out);
        return Ok(out);
    }
    for &id in &order.functions {
        let (file, name) = parsed_name(names, id);
        match format {
            OrderFormat::Llvm | OrderFormat::Ld64 => {
                if !file.is_empty() {
                    out.extend_from_slice(b"# ");
                    out.extend_from_slice(file);
                    out.push(b'\n');
                }
                if format == OrderFormat::Ld64 {
                    out.push(b'_');
                }
            }
            OrderFormat::Sections => {
                for prefix in [&b".text."[..], b".text.hot.", b".text.unlikely."] {
                    out.extend_from_slice(prefix);
                    out.extend_from_slice(name);
                    out.push(b'\n');
                }
                continue;
            }
            _ => {}
        }
        out.extend_from_slice(name);
        out.push(b'\n');
    }
    Ok(out)
}

/// Bytes that end or break a section name pattern in a linker script; a name holding one
/// is left out of the script (no C or C++ symbol does; LLVM's odd names might).
const SCRIPT_BREAKERS: &[u8] = b" \t\r\n;,(){}\"'/";

/// The section-ordering script of `order` for GNU ld 2.43+ (see [`OrderFormat::GnuLd`]),
/// appended to `out`.
fn gnu_ld_script(order: &FunctionOrder, names: &SymbolTable, out: &mut Vec<u8>) {
    let _ = writeln!(
        out,
        "/* Ordered {} functions, for GNU ld's --section-ordering-file */\n.text : {{",
        order.functions.len()
    );
    for &id in &order.functions {
        let (_, name) = parsed_name(names, id);
        if name.is_empty() || name.iter().any(|b| SCRIPT_BREAKERS.contains(b)) {
            continue;
        }
        out.extend_from_slice(b"  *(");
        for (i, prefix) in [".text.", ".text.hot.", ".text.unlikely."]
            .iter()
            .enumerate()
        {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(name);
        }
        out.extend_from_slice(b")\n");
    }
    out.extend_from_slice(b"}\n");
}

/// The JSON document of `order` (`schemas/order.schema.json`).
#[cfg(feature = "json")]
fn json(order: &FunctionOrder, names: &SymbolTable) -> Vec<u8> {
    let functions: Vec<Value> = order
        .functions
        .iter()
        .map(|&id| {
            let (file, name) = parsed_name(names, id);
            let mut f = json!({
                "name": String::from_utf8_lossy(name),
                "hash": format!("{id:#018x}"),
            });
            if !file.is_empty() {
                f["file"] = json!(String::from_utf8_lossy(file));
            }
            f
        })
        .collect();
    let doc = json!({
        "ordered": order.functions.len(),
        "page_fault_area": order.page_fault_area,
        "functions": functions,
    });
    let mut out = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_as_printf() {
        assert_eq!(c_exponent(1178.0), "1.178000e+03");
        assert_eq!(c_exponent(0.0), "0.000000e+00");
        assert_eq!(c_exponent(7.0), "7.000000e+00");
        assert_eq!(c_exponent(12345665.0), "1.234566e+07");
        assert_eq!(c_exponent(12345675.0), "1.234568e+07");
        assert_eq!(c_exponent(99_999_992.0), "9.999999e+07");
        assert_eq!(c_exponent(1_234_567.5f32.round()), "1.234568e+06");
        assert_eq!(c_exponent(4294967295.0), "4.294967e+09");
    }

    #[test]
    fn names_split_at_the_first_semicolon() {
        let mut t = SymbolTable::new();
        let a = t.insert(b"dir/a.c;helper");
        let b = t.insert(b"main");
        let c = t.insert(b"odd;");
        let order = FunctionOrder {
            functions: vec![a, b, c, 42],
            page_fault_area: Some(3),
        };
        let text = String::from_utf8(render(&order, &t, OrderFormat::Llvm).unwrap()).unwrap();
        assert!(text.starts_with(
            "# Ordered 4 functions\n# Total area under the page fault curve: 3.000000e+00\n# Warning"
        ));
        assert!(
            text.ends_with("# dir/a.c\nhelper\nmain\nodd;\n\n"),
            "{text}"
        );
        let ld64 = String::from_utf8(render(&order, &t, OrderFormat::Ld64).unwrap()).unwrap();
        assert!(ld64.contains("# dir/a.c\n_helper\n_main\n"), "{ld64}");
        let sections =
            String::from_utf8(render(&order, &t, OrderFormat::Sections).unwrap()).unwrap();
        assert!(
            sections
                .starts_with(".text.helper\n.text.hot.helper\n.text.unlikely.helper\n.text.main\n"),
            "{sections}"
        );
        let script = String::from_utf8(render(&order, &t, OrderFormat::GnuLd).unwrap()).unwrap();
        assert_eq!(
            script,
            "/* Ordered 4 functions, for GNU ld's --section-ordering-file */\n.text : {\n  \
             *(.text.helper .text.hot.helper .text.unlikely.helper)\n  \
             *(.text.main .text.hot.main .text.unlikely.main)\n}\n"
        );
    }
}
