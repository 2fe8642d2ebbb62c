//! Calling contexts of context-sensitive (CSSPGO) profiles (LLVM's `SampleContext`).

use std::cmp::Ordering;
use std::fmt;

use super::{FunctionId, LineLocation};

/// One frame of a calling context: a function and the location in it of the call to the
/// next frame. The last frame (the leaf, whose profile this is) has location 0.0.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContextFrame {
    /// The function of this frame.
    pub function: FunctionId,
    /// The call site in `function` of the next frame (0.0 for the leaf).
    pub location: LineLocation,
}

/// What a top-level function profile is the profile of: a function (flat and nested
/// profiles), or a function in one calling context (context-sensitive profiles, written
/// `[main:3 @ foo:2.1 @ bar]`: callers outermost first, each with the call site's line
/// offset and discriminator, then the leaf function).
///
/// Invariant: a `Context` has at least one frame. A context of one frame, `[foo]`, is the
/// base (context-less) profile of `foo` in a context-sensitive profile; it is not the same
/// key as `Function(foo)`.
///
/// Order: LLVM's `SampleContext::operator<` — every plain function before every context;
/// functions by [`FunctionId`]; contexts frame by frame from the outermost caller
/// (function, then location), a prefix first. LLVM writes top-level profiles with equal
/// totals in this order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SampleContext {
    /// A function without calling context.
    Function(FunctionId),
    /// A full calling context, outermost caller first, leaf last.
    Context(Box<[ContextFrame]>),
}

impl SampleContext {
    /// The function whose profile this is (the leaf of a context).
    pub fn function(&self) -> &FunctionId {
        match self {
            SampleContext::Function(f) => f,
            // Invariant: at least one frame.
            SampleContext::Context(frames) => &frames[frames.len() - 1].function,
        }
    }

    /// The frames of a context (empty for a plain function).
    pub fn frames(&self) -> &[ContextFrame] {
        match self {
            SampleContext::Function(_) => &[],
            SampleContext::Context(frames) => frames,
        }
    }

    /// True for a calling context (even a base context of one frame).
    pub fn is_context(&self) -> bool {
        matches!(self, SampleContext::Context(_))
    }

    /// A context from frames; `None` if `frames` is empty.
    pub fn from_frames(frames: Vec<ContextFrame>) -> Option<SampleContext> {
        if frames.is_empty() {
            None
        } else {
            Some(SampleContext::Context(frames.into_boxed_slice()))
        }
    }

    /// Appends the textual form without brackets: the function name, or the frames joined
    /// by ` @ `, each caller as `name:N` or `name:N.D`, the leaf as its name alone.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        match self {
            SampleContext::Function(f) => f.write_to(out),
            SampleContext::Context(frames) => {
                for (i, fr) in frames.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b" @ ");
                    }
                    fr.function.write_to(out);
                    if i + 1 < frames.len() {
                        out.push(b':');
                        fr.location.write_to(out);
                    }
                }
            }
        }
    }
}

impl Ord for SampleContext {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (SampleContext::Function(a), SampleContext::Function(b)) => a.cmp(b),
            (SampleContext::Function(_), SampleContext::Context(_)) => Ordering::Less,
            (SampleContext::Context(_), SampleContext::Function(_)) => Ordering::Greater,
            (SampleContext::Context(a), SampleContext::Context(b)) => {
                for (x, y) in a.iter().zip(b.iter()) {
                    let o = x
                        .function
                        .cmp(&y.function)
                        .then(x.location.cmp(&y.location));
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
        }
    }
}

impl PartialOrd for SampleContext {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for SampleContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut v = Vec::new();
        self.write_to(&mut v);
        f.write_str(&String::from_utf8_lossy(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(name: &str, line: u32, disc: u32) -> ContextFrame {
        ContextFrame {
            function: FunctionId::name(name.as_bytes()),
            location: LineLocation::new(line, disc),
        }
    }

    #[test]
    fn text_form_and_order() {
        let a = SampleContext::from_frames(vec![
            frame("main", 3, 0),
            frame("foo", 2, 1),
            frame("bar", 0, 0),
        ])
        .unwrap();
        assert_eq!(a.to_string(), "main:3 @ foo:2.1 @ bar");
        assert_eq!(a.function().to_string(), "bar");
        let base = SampleContext::from_frames(vec![frame("main", 0, 0)]).unwrap();
        let prefix_longer =
            SampleContext::from_frames(vec![frame("main", 0, 0), frame("x", 0, 0)]).unwrap();
        assert!(base < prefix_longer);
        assert!(SampleContext::Function(FunctionId::name(b"zzz")) < base);
        assert!(base < a, "main:0 sorts before main:3");
        assert!(SampleContext::from_frames(vec![]).is_none());
    }
}

/// How an LLVM release keys a calling context in its `SampleProfileMap`: each frame's hash
/// (`SampleContextFrame::getHashCode`), combined by `hash_combine_range`. A profile carries
/// the one of the release it is read for; the hashes themselves are computed by
/// `codec::llvm_hash` (`ContextHash::frame`, `ContextHash::combine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ContextHash {
    /// LLVM 19–22: a frame's function hashed by MD5, the frames combined by LLVM's
    /// CityHash-based `hash_combine_range`.
    #[default]
    Llvm19,
    /// LLVM 23: a frame's function hashed by libstdc++'s `std::hash<std::string>` when it is
    /// a name (by its stored hash when it is an MD5 hash), the frames combined by XXH3-64.
    Llvm23,
}

impl ContextHash {
    /// The combination LLVM release `major` uses.
    pub fn for_llvm(major: u32) -> ContextHash {
        if major >= 23 {
            ContextHash::Llvm23
        } else {
            ContextHash::Llvm19
        }
    }
}
