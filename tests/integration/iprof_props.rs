//! Properties of the iprof passes on random profiles (proptest): merging is commutative and
//! associative, trimming to a depth is idempotent and keeps per-method totals, normalisation
//! makes totals equal, and write → read is the identity.

use proptest::prelude::*;

use pgo_merge::backends::iprof as writer;
use pgo_merge::frontends::iprof as reader;
use pgo_merge::ir::context::Frame;
use pgo_merge::ir::iprof::{Branch, IprofProfile, Section, TypeCount};
use pgo_merge::ir::java_symbols::{MethodId, TypeId};
use pgo_merge::passes::iprof_merge::{InputScale, merge_profiles, scale_profile};
use pgo_merge::passes::normalise::{NormalizeMode, canonicalize, scales};
use pgo_merge::passes::trim::{ColdThreshold, fold_cold, fold_depth};

const TYPES: [&str; 5] = ["int", "void", "A", "B", "[LA;"];
const METHODS: [(&str, usize); 5] = [
    ("run", 2),
    ("get", 3),
    ("get", 2),
    ("<init>", 2),
    ("main", 4),
];

#[derive(Debug, Clone)]
enum Payload {
    Count(u64),
    Branches(Vec<(i32, i32, u64)>),
    Types(Vec<(usize, u64)>),
}

/// A context as (method index, BCI) frames, innermost first.
type Ctx = Vec<(usize, i32)>;

#[derive(Debug, Clone)]
struct Spec {
    /// (section number, context, payload).
    entries: Vec<(u8, Ctx, Payload)>,
    monitors: Vec<(usize, u64)>,
}

fn ctx() -> impl Strategy<Value = Vec<(usize, i32)>> {
    prop::collection::vec((0..METHODS.len(), -6..20i32), 1..5)
}

fn spec() -> impl Strategy<Value = Spec> {
    let entry = (
        0u8..5,
        ctx(),
        0u64..1000,
        prop::collection::vec((-5..40i32, 0..3i32, 0u64..1000), 0..5),
        prop::collection::vec((0..TYPES.len(), 0u64..1000), 1..4),
    )
        .prop_map(|(s, c, n, bs, ts)| {
            let p = match s {
                0 | 4 => Payload::Count(n),
                1 => Payload::Branches(bs),
                _ => Payload::Types(ts),
            };
            (s, c, p)
        });
    (
        prop::collection::vec(entry, 0..12),
        prop::collection::vec((0..TYPES.len(), 0u64..1000), 0..3),
    )
        .prop_map(|(entries, monitors)| Spec { entries, monitors })
}

fn build(s: &Spec) -> IprofProfile {
    let mut p = IprofProfile::new();
    for sec in Section::ALL {
        p.present.insert(sec);
    }
    let types: Vec<TypeId> = TYPES.iter().map(|t| p.symbols.intern_type(t)).collect();
    let methods: Vec<MethodId> = METHODS
        .iter()
        .map(|(n, decl)| p.symbols.intern_method(n, &[types[*decl], types[1]]))
        .collect();
    for (sec, ctx, payload) in &s.entries {
        let mut frames: Vec<Frame> = ctx
            .iter()
            .map(|(m, b)| Frame {
                method: methods[*m],
                bci: *b,
            })
            .collect();
        if *sec == 0 {
            frames[0].bci = 0;
        }
        let site = p.contexts.intern_innermost_first(&frames).unwrap();
        match (sec, payload) {
            (0, Payload::Count(n)) => {
                p.call_counts.insert(site, *n);
            }
            (4, Payload::Count(n)) => {
                p.samples.insert(site, *n);
            }
            (1, Payload::Branches(bs)) => {
                p.conditionals.insert(
                    site,
                    bs.iter()
                        .map(|(t, i, c)| Branch {
                            target_bci: *t,
                            index: *i,
                            count: *c,
                        })
                        .collect(),
                );
            }
            (2 | 3, Payload::Types(ts)) => {
                let mut h: Vec<TypeCount> = Vec::new();
                for (t, c) in ts {
                    match h.iter_mut().find(|x| x.ty == types[*t]) {
                        Some(x) => x.count += c,
                        None => h.push(TypeCount {
                            ty: types[*t],
                            count: *c,
                        }),
                    }
                }
                if *sec == 2 {
                    p.virtual_invokes.insert(site, h);
                } else {
                    p.instanceofs.insert(site, h);
                }
            }
            _ => {}
        }
    }
    for (t, c) in &s.monitors {
        match p.monitors.iter_mut().find(|x| x.ty == types[*t]) {
            Some(x) => x.count += c,
            None => p.monitors.push(TypeCount {
                ty: types[*t],
                count: *c,
            }),
        }
    }
    p
}

fn merge(ps: &[&IprofProfile]) -> IprofProfile {
    let v: Vec<(&IprofProfile, InputScale)> =
        ps.iter().map(|p| (*p, InputScale::default())).collect();
    merge_profiles(&v)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn merge_is_commutative(a in spec(), b in spec()) {
        let (a, b) = (build(&a), build(&b));
        prop_assert_eq!(merge(&[&a, &b]).by_names(), merge(&[&b, &a]).by_names());
        // The canonical output is byte-identical too.
        prop_assert_eq!(
            writer::to_vec(&canonicalize(&merge(&[&a, &b]), false)),
            writer::to_vec(&canonicalize(&merge(&[&b, &a]), false))
        );
    }

    #[test]
    fn merge_is_associative(a in spec(), b in spec(), c in spec()) {
        let (a, b, c) = (build(&a), build(&b), build(&c));
        let ab = merge(&[&a, &b]);
        let bc = merge(&[&b, &c]);
        prop_assert_eq!(merge(&[&ab, &c]).by_names(), merge(&[&a, &bc]).by_names());
    }

    #[test]
    fn write_read_is_identity(a in spec()) {
        let a = build(&a);
        let back = reader::read_profile(&writer::to_vec(&a)).unwrap();
        prop_assert_eq!(back.by_names(), a.by_names());
    }

    #[test]
    fn trim_depth_is_idempotent_and_keeps_method_totals(a in spec(), n in 1u32..4) {
        let a = build(&a);
        let (t1, _) = fold_depth(&a, n);
        let (t2, folded) = fold_depth(&t1, n);
        prop_assert_eq!(folded, 0);
        prop_assert_eq!(t2.by_names(), t1.by_names());
        prop_assert!(t1.contexts.nodes().all(|(_, x)| x.depth <= n));
        prop_assert_eq!(t1.method_totals(), a.method_totals());
        prop_assert_eq!(t1.totals().sum, a.totals().sum);
        let (c, _) = fold_cold(&a, ColdThreshold::Fraction { num: 1, den: 10 });
        prop_assert_eq!(c.method_totals(), a.method_totals());
    }

    #[test]
    fn normalisation_makes_totals_equal(a in spec(), b in spec(), max in any::<bool>()) {
        let (mut a, mut b) = (build(&a), build(&b));
        let mode = if max { NormalizeMode::Max } else { NormalizeMode::Total };
        let f = scales(mode, &[a.totals(), b.totals()]);
        let counts = |p: &IprofProfile, s: Section| -> u64 {
            match s {
                Section::Conditional => p.conditionals.values().map(|v| v.len() as u64).sum(),
                Section::VirtualInvoke => p.virtual_invokes.values().map(|v| v.len() as u64).sum(),
                Section::Instanceof => p.instanceofs.values().map(|v| v.len() as u64).sum(),
                Section::Monitor => p.monitors.len() as u64,
                _ => p.totals().entries_of(s),
            }
        };
        let n: Vec<[u64; 6]> = [&a, &b].iter().map(|p| Section::ALL.map(|s| counts(p, s))).collect();
        scale_profile(&mut a, &InputScale { sections: f[0], ..Default::default() });
        scale_profile(&mut b, &InputScale { sections: f[1], ..Default::default() });
        let (ta, tb) = (a.totals(), b.totals());
        for s in Section::ALL {
            let (x, y) = if max { (ta.max_of(s), tb.max_of(s)) } else { (ta.sum_of(s), tb.sum_of(s)) };
            if x == 0 || y == 0 {
                continue; // nothing to scale
            }
            // Each scaled count is rounded by at most one half.
            let tol = if max { 0 } else { (n[0][s as usize] + n[1][s as usize]).div_ceil(2) };
            prop_assert!(x.abs_diff(y) <= tol, "{:?}: {} vs {} (tolerance {})", s, x, y, tol);
        }
    }
}
