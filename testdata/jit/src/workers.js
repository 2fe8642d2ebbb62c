'use strict';
// A multi-threaded node workload (worker_threads): the main thread and two workers each run
// CPU-bound code, so samples of threads other than the main one carry JIT frames. The
// getter (`get area`) and setter (`set side`) give V8 names like `JS:^get area /…:L:C`.
const { Worker, isMainThread, workerData } = require('worker_threads');

class Square {
  constructor(s) { this._s = s; }
  get area() { return this._s * this._s; }
  set side(v) { this._s = v % 97; }
}
// Squares of eight hidden classes (an extra property each): the accesses below see more
// receiver maps than V8 inlines, so the getter and setter run as functions of their own
// and are sampled under their own names.
const squares = [];
for (let k = 0; k < 8; k++) { const q = new Square(k); q['x' + k] = k; squares.push(q); }
function sumAreas(n) {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const q = squares[i & 7];
    q.side = i;
    s = (s + q.area) % 1000003;
  }
  return s;
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function churn(rounds, seed) {
  let acc = seed;
  for (let r = 0; r < rounds; r++) {
    acc = (acc + sumAreas(200000)) % 1000003;
    acc = (acc + fib(22)) % 1000003;
  }
  return acc;
}

if (isMainThread) {
  const n = Number(process.argv[2] || 12);
  let done = 0;
  for (let w = 0; w < 2; w++) {
    const worker = new Worker(__filename, { workerData: { rounds: n, seed: w } });
    worker.on('message', (m) => { done += 1; if (done === 2) console.log('workers', m); });
  }
  console.log('main', churn(n, 7));
} else {
  const { parentPort } = require('worker_threads');
  parentPort.postMessage(churn(workerData.rounds, workerData.seed));
}
