//! One-pass reading: serde_json drives a [`Lowerer`] directly, so that each section entry
//! is validated and mapped into the IR as soon as it is parsed and then dropped. Nothing
//! the size of the document is built besides the IR itself (the `types` and `methods`
//! tables are kept until the end, flat; see `MethodTable`).
//!
//! Problems found by the lowerer abort the parse; the lowerer's error (with its JSON path)
//! is what the caller sees. Syntax and type errors are located by `locate_error` (a text in
//! memory) or [`locate_in_reader`] (a stream).

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::lower::{Lowered, Lowerer, ReadOptions};
use super::model::{LegacyMonitor, MethodEntry, ProfileEntry, RootKey, TypeEntry};
use crate::error::{Error, Result};

/// Parses the JSON text of an iprof profile and lowers it into the IR in one pass.
pub fn read_json(json: &[u8], opts: ReadOptions) -> Result<Lowered> {
    lower_json(json, Lowerer::new(opts), None)
}

/// Parses `json` and feeds it to `lowerer`. `release`, if given, is told from time to time
/// that every byte before an offset has been parsed (see
/// [`crate::frontends::InputFile::release_before`]).
pub fn lower_json<'a>(
    json: &'a [u8],
    lowerer: Lowerer<'a>,
    release: Option<&dyn Fn(usize)>,
) -> Result<Lowered> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let pos = Position {
        base: json.as_ptr() as usize,
        len: json.len(),
        release,
        items: 0,
    };
    drive(&mut de, lowerer, pos, |e| super::locate_error(json, e))
}

/// Parses the JSON text that `reader` yields (a gzip decoder, say) and feeds it to
/// `lowerer`, never holding the whole text: memory is that of the reader's buffers. A JSON
/// error is passed to `locate`, which makes the error reported (it can read the input
/// again to find the JSON path and line: errors are rare, so the happy path pays nothing).
pub fn lower_reader<R: std::io::Read>(
    reader: R,
    lowerer: Lowerer<'_>,
    locate: impl FnOnce(serde_json::Error) -> Error,
) -> Result<Lowered> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let pos = Position {
        base: 0,
        len: 0,
        release: None,
        items: 0,
    };
    drive(&mut de, lowerer, pos, locate)
}

/// The error to report for `first`, a JSON error met while parsing the text that `reader`
/// yields again: the text is parsed once more with path tracking, by the same grammar, into
/// a throwaway lowerer (lenient, referenced symbols only), to find the JSON path of the
/// error. Streaming, so memory is no more than the first parse's, never an image of the
/// whole document (for a gzip-compressed input that would be hundreds of times its size).
pub fn locate_in_reader<R: std::io::Read>(reader: R, first: serde_json::Error) -> Error {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut lowerer = Lowerer::new(ReadOptions {
        lenient: true,
        referenced_symbols_only: true,
    });
    let mut failure = None;
    let mut pos = Position {
        base: 0,
        len: 0,
        release: None,
        items: 0,
    };
    let mut track = serde_path_to_error::Track::new();
    let parsed = DocSeed {
        l: &mut lowerer,
        failure: &mut failure,
        pos: &mut pos,
    }
    .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track));
    match (parsed, failure) {
        // A serde error here is the same as the first (the same text and grammar).
        (Err(e), None) => super::json_error(track.path().to_string(), e),
        // Only a document error after the value (trailing characters), as `locate_error`.
        _ => super::json_error(".".into(), first),
    }
}

/// Runs the parse of `de` into `lowerer`: the lowerer's own error if it stopped the parse,
/// else a JSON error made by `locate`.
fn drive<'de: 'a, 'a, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    mut lowerer: Lowerer<'a>,
    mut pos: Position<'_>,
    locate: impl FnOnce(serde_json::Error) -> Error,
) -> Result<Lowered> {
    let mut failure = None;
    let parsed = DocSeed {
        l: &mut lowerer,
        failure: &mut failure,
        pos: &mut pos,
    }
    .deserialize(&mut *de)
    .and_then(|()| de.end());
    match parsed {
        Ok(()) => lowerer.finish(),
        Err(e) => {
            // What was lowered is dropped before `locate` parses the input again.
            drop(lowerer);
            Err(failure.unwrap_or_else(|| locate(e)))
        }
    }
}

/// Tracks how far the parse has gone, from the addresses of strings borrowed from the input,
/// and passes it to the release hook every [`Position::EVERY`] items.
struct Position<'r> {
    base: usize,
    len: usize,
    release: Option<&'r dyn Fn(usize)>,
    items: usize,
}

impl Position<'_> {
    const EVERY: usize = 512;

    /// Called once per parsed item with one of its strings. A string borrowed from the input
    /// gives the position; one that serde copied (it had escapes) lies outside the input and
    /// is ignored.
    fn item(&mut self, s: &str) {
        let Some(release) = self.release else { return };
        self.items += 1;
        if !self.items.is_multiple_of(Self::EVERY) {
            return;
        }
        let at = (s.as_ptr() as usize).wrapping_sub(self.base);
        if at < self.len {
            release(at);
        }
    }
}

/// Keeps the lowerer's error and returns a serde error that stops the parse.
fn fail<E: de::Error>(slot: &mut Option<Error>, e: Error) -> E {
    *slot = Some(e);
    E::custom("the iprof document is invalid")
}

struct DocSeed<'l, 'a, 'r> {
    l: &'l mut Lowerer<'a>,
    failure: &'l mut Option<Error>,
    pos: &'l mut Position<'r>,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for DocSeed<'_, 'a, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for DocSeed<'_, 'a, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an iprof profile (a JSON object with version, types and methods)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let DocSeed { l, failure, pos } = self;
        while let Some(key) = map.next_key::<RootKey>()? {
            let r = match key {
                RootKey::Version => {
                    #[derive(serde::Deserialize)]
                    struct V<'x>(#[serde(borrow)] std::borrow::Cow<'x, str>);
                    let V(v) = map.next_value()?;
                    l.set_version(v)
                }
                RootKey::Types => {
                    let t: Vec<TypeEntry<'de>> = map.next_value()?;
                    l.set_types(t)
                }
                RootKey::Methods => match l.methods_begin() {
                    Ok(true) => {
                        map.next_value_seed(MethodsSeed {
                            l: &mut *l,
                            failure: &mut *failure,
                            pos: &mut *pos,
                        })?;
                        l.methods_end()
                    }
                    Ok(false) => {
                        let v: Vec<MethodEntry<'de>> = map.next_value()?;
                        l.early_methods(v);
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
                RootKey::Section(section, key, legacy) => {
                    match l.begin_section(section, key, legacy) {
                        Ok(true) => {
                            map.next_value_seed(EntriesSeed {
                                l: &mut *l,
                                failure: &mut *failure,
                                pos: &mut *pos,
                            })?;
                            Ok(())
                        }
                        Ok(false) => {
                            let entries: Vec<ProfileEntry<'de>> = map.next_value()?;
                            l.pending_section(section, key, entries);
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                }
                RootKey::LegacyMonitor => {
                    let m: LegacyMonitor = map.next_value()?;
                    l.set_legacy_monitor(m)
                }
                RootKey::Unknown(k) => {
                    map.next_value::<IgnoredAny>()?;
                    l.unknown_key(k);
                    Ok(())
                }
            };
            r.map_err(|e| fail(failure, e))?;
        }
        Ok(())
    }
}

/// The `methods` array, fed to the lowerer method by method (no per-method allocation).
struct MethodsSeed<'l, 'a, 'r> {
    l: &'l mut Lowerer<'a>,
    failure: &'l mut Option<Error>,
    pos: &'l mut Position<'r>,
}

impl<'de> DeserializeSeed<'de> for MethodsSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MethodsSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of methods")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let MethodsSeed { l, failure, pos } = self;
        while seq
            .next_element_seed(MethodSeed {
                l: &mut *l,
                failure: &mut *failure,
                pos: &mut *pos,
            })?
            .is_some()
        {}
        Ok(())
    }
}

/// One `methods[]` object: `id`, `name` (0.2.0: `methodName`) and `signature`, the same
/// grammar as [`MethodEntry`] (unknown fields are ignored).
struct MethodSeed<'l, 'a, 'r> {
    l: &'l mut Lowerer<'a>,
    failure: &'l mut Option<Error>,
    pos: &'l mut Position<'r>,
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum MethodField {
    Id,
    #[serde(alias = "methodName")]
    Name,
    Signature,
    #[serde(other)]
    Other,
}

impl<'de> DeserializeSeed<'de> for MethodSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MethodSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct MethodEntry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let MethodSeed { l, failure, pos } = self;
        let mut id: Option<i64> = None;
        let mut name: Option<std::borrow::Cow<'de, str>> = None;
        // The signature goes straight to the lowerer when the id and name came first (as in
        // every real file); otherwise it is collected aside.
        let mut sig: Option<Vec<i64>> = None;
        let mut begun = false;
        while let Some(k) = map.next_key::<MethodField>()? {
            match k {
                MethodField::Id => {
                    if id.is_some() {
                        return Err(de::Error::duplicate_field("id"));
                    }
                    id = Some(map.next_value()?);
                }
                MethodField::Name => {
                    if name.is_some() {
                        return Err(de::Error::duplicate_field("name"));
                    }
                    #[derive(serde::Deserialize)]
                    struct N<'x>(#[serde(borrow)] std::borrow::Cow<'x, str>);
                    name = Some(map.next_value::<N<'de>>()?.0);
                }
                MethodField::Signature => {
                    if sig.is_some() || begun {
                        return Err(de::Error::duplicate_field("signature"));
                    }
                    match (id, &name) {
                        (Some(id), Some(n)) => {
                            l.method(id, n).map_err(|e| fail(failure, e))?;
                            begun = true;
                            map.next_value_seed(SignatureSeed {
                                l: &mut *l,
                                failure: &mut *failure,
                            })?;
                        }
                        _ => sig = Some(map.next_value()?),
                    }
                }
                MethodField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        if !begun && sig.is_none() {
            return Err(de::Error::missing_field("signature"));
        }
        pos.item(&name);
        let feed = || -> Result<()> {
            if let Some(sig) = sig {
                l.method(id, &name)?;
                for t in sig {
                    l.method_sig(t)?;
                }
            }
            l.method_end()
        };
        feed().map_err(|e| fail(failure, e))
    }
}

/// A signature array, fed to the lowerer id by id.
struct SignatureSeed<'l, 'a> {
    l: &'l mut Lowerer<'a>,
    failure: &'l mut Option<Error>,
}

impl<'de> DeserializeSeed<'de> for SignatureSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SignatureSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(t) = seq.next_element::<i64>()? {
            self.l.method_sig(t).map_err(|e| fail(self.failure, e))?;
        }
        Ok(())
    }
}

/// Entries parsed before they are lowered together (more while a shared target is busy).
const BATCH: usize = 64;
/// Entries parsed at most before waiting for a busy shared target.
const MAX_BATCH: usize = 1024;

/// The entries of one section, lowered in batches of [`BATCH`] as they are parsed.
struct EntriesSeed<'l, 'a, 'r> {
    l: &'l mut Lowerer<'a>,
    failure: &'l mut Option<Error>,
    pos: &'l mut Position<'r>,
}

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of profile entries ({ctx, records} objects)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Entries go to the lowerer a batch at a time. A target shared between threads is
        // locked once per batch, and only when it is free: while another thread holds it,
        // parsing goes on and the batch grows (up to `MAX_BATCH`, then it waits).
        let mut batch: Vec<ProfileEntry<'de>> = Vec::with_capacity(BATCH);
        loop {
            let e = seq.next_element::<ProfileEntry<'de>>()?;
            let last = e.is_none();
            if let Some(e) = e {
                batch.push(e);
            }
            let lowered = if last || batch.len() >= MAX_BATCH {
                self.l.entries(&batch).map(|()| true)
            } else if batch.len() >= BATCH {
                self.l.try_entries(&batch)
            } else {
                Ok(false)
            };
            if lowered.map_err(|err| fail(self.failure, err))? {
                for e in &batch {
                    self.pos.item(&e.ctx);
                }
                batch.clear();
            }
            if last {
                return Ok(());
            }
        }
    }
}
