'use strict';
// A small CPU-bound workload for node --perf-prof: recursion (fib), small functions that
// TurboFan inlines (add, area into totalArea), a class method and a closure, so that the
// samples land in interpreted (~), baseline (^), Maglev (+) and optimised (*) code.
function add(a, b) { return a + b; }
function area(r) { return 3.14159 * r * r; }
function totalArea(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = add(s, area(i % 10));
  return s;
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
class Shape {
  constructor(k) { this.k = k; }
  perimeter(n) { let p = 0; for (let i = 0; i < n; i++) p += (this.k * i) % 7; return p; }
}
function makeCounter() {
  let c = 0;
  return function count(n) { for (let i = 0; i < n; i++) c = (c + i * i) % 65521; return c; };
}
const counter = makeCounter();
let acc = 0;
for (let round = 0; round < 25; round++) {
  acc += totalArea(400000);
  acc += fib(27);
  acc += new Shape(round).perimeter(300000);
  acc += counter(300000);
}
console.log(acc);
