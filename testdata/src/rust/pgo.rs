//! pgo.rs - single-file Rust test program for raw-profile generation
//! (pgo-merge testdata). Built with `rustc -O -Cprofile-generate=DIR` (IR PGO)
//! or `rustc -Cinstrument-coverage` (front-end coverage).
//!
//! Usage: pgo N WORD...   (N rounds; the words choose the shapes)

use std::env;

trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &'static str;
}

struct Circle(f64);
struct Rect(f64, f64);
struct Tri(f64, f64);
struct Dot;

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.14159 * self.0 * self.0
    }
    fn name(&self) -> &'static str {
        "circle"
    }
}
impl Shape for Rect {
    fn area(&self) -> f64 {
        self.0 * self.1
    }
    fn name(&self) -> &'static str {
        "rect"
    }
}
impl Shape for Tri {
    fn area(&self) -> f64 {
        0.5 * self.0 * self.1
    }
    fn name(&self) -> &'static str {
        "tri"
    }
}
impl Shape for Dot {
    fn area(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "dot"
    }
}

/// Generic function: instantiated for several types.
#[inline(never)]
fn largest<T: PartialOrd + Copy>(v: &[T]) -> Option<T> {
    let mut it = v.iter();
    let mut best = *it.next()?;
    for &x in it {
        if x > best {
            best = x;
        }
    }
    Some(best)
}

#[inline(never)]
fn make_shape(word: &str, i: usize) -> Box<dyn Shape> {
    let k = word.len() as f64 + i as f64;
    match word.as_bytes().first() {
        Some(b'c') => Box::new(Circle(k)),
        Some(b'r') => Box::new(Rect(k, 2.0)),
        Some(b't') => Box::new(Tri(k, 3.0)),
        _ => Box::new(Dot),
    }
}

#[inline(never)]
fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    // dyn-trait calls: indirect calls with several targets
    shapes.iter().map(|s| s.area()).sum()
}

#[inline(never)]
fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[allow(dead_code)]
#[inline(never)]
fn never_called(x: u32) -> u32 {
    (0..x).filter(|v| v % 3 == 0).sum()
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let words: Vec<&str> = if args.len() > 2 {
        args[2..].iter().map(|s| s.as_str()).collect()
    } else {
        vec!["circle", "rect", "tri", "x"]
    };

    let mut shapes: Vec<Box<dyn Shape>> = Vec::new();
    let mut steps = Vec::new();
    for r in 0..rounds {
        for (i, w) in words.iter().enumerate() {
            shapes.push(make_shape(w, r + i));
        }
        steps.push(collatz_steps((r as u64) * 7 + 27));
    }
    let areas: Vec<f64> = shapes.iter().map(|s| s.area()).collect();
    println!(
        "{} shapes, total area {:.1}, largest area {:?}, most steps {:?}, first {}",
        shapes.len(),
        total_area(&shapes),
        largest(&areas),
        largest(&steps),
        shapes.first().map(|s| s.name()).unwrap_or("-")
    );
}
