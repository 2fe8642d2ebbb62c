'use strict';
// Code-address reuse workload: every round compiles a fresh, uniquely named function from
// source (new Function), runs it hot enough to be baseline- and optimising-compiled, then
// drops every reference and forces a full GC, so its code objects die and the next round's
// code is allocated at the same addresses.
let acc = 0;
for (let round = 0; round < 40; round++) {
  const make = new Function(`return function round${round}(x) {
    let t = ${round};
    for (let i = 0; i < x; i++) t = (t * 31 + i) % 1000003;
    return t;
  }`);
  let f = make();
  for (let k = 0; k < 400; k++) acc += f(3000);
  f = null;
  gc();
}
console.log(acc);
