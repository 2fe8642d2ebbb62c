// A small Rust program for recording BOLT profiles: generics, closures, a trait object and
// a hash map, so that the profile holds long mangled names and indirect calls.
use std::collections::HashMap;

trait Shape {
    fn area(&self) -> f64;
}
struct Square(f64);
struct Circle(f64);
impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}
impl Shape for Circle {
    fn area(&self) -> f64 {
        3.14159 * self.0 * self.0
    }
}

fn words(n: usize, seed: u64) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    let mut x = seed;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *m.entry(format!("w{}", x % 97)).or_insert(0) += 1;
    }
    m
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let shapes: Vec<Box<dyn Shape>> = (0..n)
        .map(|i| -> Box<dyn Shape> {
            if i % 3 == 0 { Box::new(Circle(i as f64)) } else { Box::new(Square(i as f64)) }
        })
        .collect();
    let total: f64 = shapes.iter().map(|s| s.area()).sum();
    let m = words(n, n as u64 + 1);
    let mut top: Vec<_> = m.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("{n}: {total:.1} {:?}", top.first());
}
