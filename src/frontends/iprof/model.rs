//! The typed model of an iprof document, as serde reads it: a faithful, id-based image of the
//! JSON, borrowing strings from the input where they need no unescaping. Nothing is checked
//! here beyond JSON types; [`super::lower`] validates and maps the model into the IR.
//!
//! Both layouts are read into this one model:
//! * **1.x** (and 0.4.0, identical but for the version string): `types[].name`,
//!   `methods[].name`, sections `callCountProfiles`, `conditionalProfiles`,
//!   `virtualInvokeProfiles`, `monitorProfiles`, `samplingProfiles`, `instanceofProfiles`
//!   (1.1.0; `instanceOfProfiles` is accepted too), items `{ctx, records}`.
//! * **0.2.0**: `typeName`, `methodName`, `hotnessPoints` (call counts), `conditionalPoints`,
//!   `invokePoints` (virtual invokes), items `{methodBciList, records}` with `,` between
//!   frames, and one `monitorsProfile` object `{records}` instead of a monitor array.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};

use crate::ir::iprof::Section;

/// `types[]` item.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TypeEntry<'a> {
    /// Per-file id.
    pub id: i64,
    /// Fully qualified name.
    #[serde(borrow, alias = "typeName")]
    pub name: Cow<'a, str>,
}

/// `methods[]` item.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MethodEntry<'a> {
    /// Per-file id.
    pub id: i64,
    /// Simple name.
    #[serde(borrow, alias = "methodName")]
    pub name: Cow<'a, str>,
    /// Type ids: declaring type, return type, parameter types.
    pub signature: Vec<i64>,
}

/// An item of any profile section.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProfileEntry<'a> {
    /// Context string, innermost frame first.
    #[serde(borrow, alias = "methodBciList")]
    pub ctx: Cow<'a, str>,
    /// Flat records (triples, pairs or one count, by section).
    #[serde(deserialize_with = "numbers")]
    pub records: Vec<i64>,
}

/// The 0.2.0 `monitorsProfile` object.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct LegacyMonitor {
    /// Flat `(type id, count)` pairs.
    #[serde(deserialize_with = "numbers")]
    pub records: Vec<i64>,
}

/// An array of integers, as long as the input makes it: its memory is allocated fallibly,
/// so that an array larger than the process may have (a decompressed "bomb" of numbers) is
/// a JSON error saying so, not an abort.
fn numbers<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    struct Numbers;
    impl<'de> Visitor<'de> for Numbers {
        type Value = Vec<i64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array of integers")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<i64>, A::Error> {
            let mut v = Vec::new();
            while let Some(x) = seq.next_element::<i64>()? {
                if v.len() == v.capacity() {
                    crate::sys::alloc::reserve(&mut v, 1, "the records of an entry")
                        .map_err(de::Error::custom)?;
                }
                v.push(x);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(Numbers)
}

/// One section as read: the key spelling found (for messages) and its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionData<'a> {
    /// The key as spelled in the file (`conditionalProfiles`, `conditionalPoints`, …).
    pub key: &'static str,
    /// The items.
    pub entries: Vec<ProfileEntry<'a>>,
}

/// A whole document. Required keys are `Option`s so that their absence is reported by the
/// validator with the format's own words rather than serde's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document<'a> {
    /// `version`.
    pub version: Option<Cow<'a, str>>,
    /// `types`.
    pub types: Option<Vec<TypeEntry<'a>>>,
    /// `methods`.
    pub methods: Option<Vec<MethodEntry<'a>>>,
    /// Sections, indexed by `Section as usize`.
    pub sections: [Option<SectionData<'a>>; 6],
    /// 0.2.0 `monitorsProfile`.
    pub legacy_monitor: Option<LegacyMonitor>,
    /// Keys this reader does not know (ignored, reported as warnings).
    pub unknown_keys: Vec<String>,
    /// True if any 0.2.0-only key was seen.
    pub legacy_keys: bool,
}

/// A top-level key of an iprof document, as the parsers dispatch on it.
pub(crate) enum RootKey {
    Version,
    Types,
    Methods,
    /// A section: which, its spelling, and whether that spelling is 0.2.0's.
    Section(Section, &'static str, bool),
    LegacyMonitor,
    Unknown(String),
}

impl RootKey {
    fn from_str(s: &str) -> RootKey {
        use Section::*;
        match s {
            "version" => RootKey::Version,
            "types" => RootKey::Types,
            "methods" => RootKey::Methods,
            "monitorProfiles" => RootKey::Section(Monitor, "monitorProfiles", false),
            "virtualInvokeProfiles" => {
                RootKey::Section(VirtualInvoke, "virtualInvokeProfiles", false)
            }
            "callCountProfiles" => RootKey::Section(CallCount, "callCountProfiles", false),
            "conditionalProfiles" => RootKey::Section(Conditional, "conditionalProfiles", false),
            "samplingProfiles" => RootKey::Section(Sampling, "samplingProfiles", false),
            "instanceofProfiles" => RootKey::Section(Instanceof, "instanceofProfiles", false),
            "instanceOfProfiles" => RootKey::Section(Instanceof, "instanceOfProfiles", false),
            "hotnessPoints" => RootKey::Section(CallCount, "hotnessPoints", true),
            "conditionalPoints" => RootKey::Section(Conditional, "conditionalPoints", true),
            "invokePoints" => RootKey::Section(VirtualInvoke, "invokePoints", true),
            "monitorsProfile" => RootKey::LegacyMonitor,
            other => RootKey::Unknown(other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for RootKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = RootKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key of an iprof document")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RootKey, E> {
                Ok(RootKey::from_str(v))
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

fn set_once<T, E: de::Error>(slot: &mut Option<T>, v: T, key: &str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::custom(format_args!("duplicate key `{key}`")));
    }
    *slot = Some(v);
    Ok(())
}

impl<'de: 'a, 'a> Deserialize<'de> for Document<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DocVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for DocVisitor<'a> {
            type Value = Document<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an iprof profile (a JSON object with version, types and methods)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document<'a>, A::Error> {
                let mut doc = Document::default();
                while let Some(key) = map.next_key::<RootKey>()? {
                    match key {
                        RootKey::Version => {
                            #[derive(Deserialize)]
                            struct V<'x>(#[serde(borrow)] Cow<'x, str>);
                            let V(v) = map.next_value()?;
                            set_once(&mut doc.version, v, "version")?;
                        }
                        RootKey::Types => {
                            let v = map.next_value()?;
                            set_once(&mut doc.types, v, "types")?;
                        }
                        RootKey::Methods => {
                            let v = map.next_value()?;
                            set_once(&mut doc.methods, v, "methods")?;
                        }
                        RootKey::Section(s, key, legacy) => {
                            let entries: Vec<ProfileEntry<'a>> = map.next_value()?;
                            doc.legacy_keys |= legacy;
                            match doc.sections.get_mut(s as usize) {
                                Some(slot) => {
                                    set_once(slot, SectionData { key, entries }, s.json_key())?
                                }
                                None => return Err(de::Error::custom("internal: section index")),
                            }
                        }
                        RootKey::LegacyMonitor => {
                            let v = map.next_value()?;
                            doc.legacy_keys = true;
                            set_once(&mut doc.legacy_monitor, v, "monitorsProfile")?;
                        }
                        RootKey::Unknown(k) => {
                            map.next_value::<IgnoredAny>()?;
                            doc.unknown_keys.push(k);
                        }
                    }
                }
                Ok(doc)
            }
        }
        d.deserialize_map(DocVisitor(std::marker::PhantomData))
    }
}
