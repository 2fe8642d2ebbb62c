//! JVM names: HotSpot's perf map (`ret pkg.Type.method(params)`), perf's JVMTI agent
//! (`Lpkg/Type;method(descriptor)`), perf-map-agent (`Lpkg/Type;::method[(descriptor)]`).
//! Types are spelt as `Class.getName` (and GraalVM) spell them, hidden classes without
//! their per-run suffix.

use std::borrow::Cow;

use super::{SplitName, matching, split_params};

/// A Java type as `Class.getName` spells it: arrays as descriptors (`byte[]` → `[B`,
/// `java.lang.String[][]` → `[[Ljava.lang.String;`), other types unchanged; hidden classes
/// without their per-run suffix ([`stable_class`]).
pub fn java_type_name(t: &str) -> Cow<'_, str> {
    let t = t.trim();
    let mut elem = t;
    let mut dims = 0;
    while let Some(e) = elem.strip_suffix("[]") {
        elem = e.trim_end();
        dims += 1;
    }
    if dims == 0 {
        return stable_class(t);
    }
    let code = match elem {
        "boolean" => "Z".to_string(),
        "byte" => "B".to_string(),
        "char" => "C".to_string(),
        "short" => "S".to_string(),
        "int" => "I".to_string(),
        "long" => "J".to_string(),
        "float" => "F".to_string(),
        "double" => "D".to_string(),
        _ => format!("L{};", stable_class(elem)),
    };
    Cow::Owned(format!("{}{code}", "[".repeat(dims)))
}

/// A class name without the per-run parts of hidden classes: the JVM names a hidden class
/// `Name/0xADDRESS` (`Name.0xADDRESS` in its internal spelling), and JDK 17 numbers lambda
/// classes in the order they are spun (`Foo$$Lambda$14/0x…`). So `Foo$$Lambda/0x…` and
/// `Foo$$Lambda$14/0x…` become `Foo$$Lambda`, `LambdaForm$MH/0x…` `LambdaForm$MH`: every
/// lambda class of `Foo` is one type (their methods stay apart by name and signature).
pub fn stable_class(t: &str) -> Cow<'_, str> {
    if !t.contains("0x") {
        return Cow::Borrowed(t);
    }
    let b = t.as_bytes();
    let mut out = String::with_capacity(t.len());
    let (mut i, mut copied) = (0, 0);
    while let Some(&c) = b.get(i) {
        let hidden = matches!(c, b'/' | b'.')
            && b.get(i + 1..i + 3) == Some(b"0x")
            && b.get(i + 3).is_some_and(u8::is_ascii_hexdigit);
        if !hidden {
            i += 1;
            continue;
        }
        // Everything before the suffix (all ASCII delimiters: slicing is on boundaries).
        out.push_str(t.get(copied..i).unwrap_or(""));
        i += 3;
        while b.get(i).is_some_and(u8::is_ascii_hexdigit) {
            i += 1;
        }
        copied = i;
        // JDK 17's lambda counter before the suffix goes too.
        if let Some(k) = out.rfind("$$Lambda$")
            && out
                .get(k + "$$Lambda$".len()..)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|d| d.is_ascii_digit()))
        {
            out.truncate(k + "$$Lambda".len());
        }
    }
    out.push_str(t.get(copied..).unwrap_or(""));
    Cow::Owned(out)
}

/// HotSpot perf map: `ret pkg.Type.method(params)`; array types become `Class.getName`
/// spelling.
pub(super) fn split_hotspot(name: &str) -> Option<SplitName<'_>> {
    let open = name.find('(')?;
    let close = matching(name, open)?;
    if close + 1 != name.len() {
        return None;
    }
    let head = name.get(..open)?;
    let (ret, qual) = head.rsplit_once(' ')?;
    let (ty, method) = qual.rsplit_once('.')?;
    if ret.is_empty() || ty.is_empty() || method.is_empty() || ret.contains(' ') {
        return None;
    }
    Some(SplitName {
        declaring: java_type_name(ty),
        method: Cow::Borrowed(method),
        ret: Some(java_type_name(ret)),
        params: split_params(name.get(open + 1..close)?)
            .into_iter()
            .map(java_type_name)
            .collect(),
    })
}

/// A class signature (`Lpkg/Type;`) or JVM descriptor names: perf's JVMTI agent writes
/// `Lpkg/Type;method(descriptor)`, perf-map-agent `Lpkg/Type;::method` and, with `msig`,
/// `Lpkg/Type;::method(descriptor)`. The descriptor gives the parameter and return types.
pub(super) fn split_descriptor(name: &str) -> Option<SplitName<'_>> {
    let body = name.strip_prefix('L')?;
    let (t, rest) = body.split_once(';')?;
    if t.is_empty() || t.contains([' ', '(', '<']) {
        return None;
    }
    let rest = rest.strip_prefix("::").unwrap_or(rest);
    let (method, desc) = match rest.find('(') {
        Some(i) => (rest.get(..i)?, rest.get(i..)),
        None => (rest, None),
    };
    if method.is_empty() || method.contains(' ') {
        return None;
    }
    let (ret, params) = match desc.and_then(method_descriptor) {
        Some((r, p)) => (Some(Cow::Owned(r)), p.into_iter().map(Cow::Owned).collect()),
        None => (None, Vec::new()),
    };
    Some(SplitName {
        declaring: Cow::Owned(stable_class(&t.replace('/', ".")).into_owned()),
        method: Cow::Borrowed(method),
        ret,
        params,
    })
}

/// `(PARAMS)RET` → (return type, parameter types), in `Class.getName` spelling.
fn method_descriptor(d: &str) -> Option<(String, Vec<String>)> {
    let mut rest = d.strip_prefix('(')?;
    let mut params = Vec::new();
    while !rest.starts_with(')') {
        let (t, r) = field_type(rest)?;
        params.push(t);
        rest = r;
    }
    let (ret, r) = field_type(rest.strip_prefix(')')?)?;
    r.is_empty().then_some((ret, params))
}

/// One field type of a descriptor and the rest.
fn field_type(d: &str) -> Option<(String, &str)> {
    let prim = |c: u8| -> Option<&'static str> {
        Some(match c {
            b'B' => "byte",
            b'C' => "char",
            b'D' => "double",
            b'F' => "float",
            b'I' => "int",
            b'J' => "long",
            b'S' => "short",
            b'Z' => "boolean",
            b'V' => "void",
            _ => return None,
        })
    };
    let b = d.as_bytes();
    let dims = b.iter().take_while(|&&c| c == b'[').count();
    let end = match b.get(dims)? {
        b'L' => dims + d.get(dims..)?.find(';')? + 1,
        c => {
            prim(*c)?;
            dims + 1
        }
    };
    let (t, rest) = d.split_at(end);
    let name = if dims > 0 {
        // Arrays: the descriptor itself, with dots.
        stable_class(&t.replace('/', ".")).into_owned()
    } else if let Some(cls) = t.strip_prefix('L') {
        stable_class(&cls.trim_end_matches(';').replace('/', ".")).into_owned()
    } else {
        prim(*b.first()?)?.to_string()
    };
    Some((name, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_classes_and_descriptors() {
        assert_eq!(stable_class("Foo$$Lambda/0x00007f00"), "Foo$$Lambda");
        assert_eq!(
            stable_class("Foo$$Lambda$14/0x0000000800c0b448"),
            "Foo$$Lambda"
        );
        assert_eq!(stable_class("Foo$1"), "Foo$1");
        assert_eq!(stable_class("Foo$$Lambda$14"), "Foo$$Lambda$14");
        assert_eq!(stable_class("a.Ünï/0x12"), "a.Ünï");
        assert_eq!(java_type_name("Foo$$Lambda/0x12[]"), "[LFoo$$Lambda;");
        assert_eq!(
            method_descriptor("([JLjava/lang/String;Z)V"),
            Some((
                "void".to_string(),
                vec!["[J".into(), "java.lang.String".into(), "boolean".into()]
            ))
        );
        assert_eq!(method_descriptor("(I"), None);
        assert_eq!(method_descriptor("(Q)V"), None);
    }
}
