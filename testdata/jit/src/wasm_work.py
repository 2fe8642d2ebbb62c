"""Workload for testdata/jit (wasmtime scenarios): a WebAssembly module written in the text
format, compiled by wasmtime from PyPI with its profiling strategy set to PROFILER
("jitdump" writes ./jit-PID.dump, "perfmap" writes /tmp/perf-PID.map), run on the main
thread and a worker thread (each with its own Store) for SECONDS seconds.
Usage: wasm_work.py PROFILER SECONDS."""
import sys
import threading
import time

import wasmtime

WAT = r"""
(module
  (memory (export "memory") 1)
  (table 2 funcref)
  (elem (i32.const 0) $square $cube)
  (type $unary (func (param i64) (result i64)))

  ;; Recursive: many frames of one function.
  (func $fib (param $n i32) (result i64)
    (if (result i64) (i32.lt_u (local.get $n) (i32.const 2))
      (then (i64.extend_i32_u (local.get $n)))
      (else (i64.add
        (call $fib (i32.sub (local.get $n) (i32.const 1)))
        (call $fib (i32.sub (local.get $n) (i32.const 2)))))))

  (func $square (param $x i64) (result i64) (i64.mul (local.get $x) (local.get $x)))
  (func $cube (param $x i64) (result i64)
    (i64.mul (local.get $x) (call $square (local.get $x))))

  ;; A loop over linear memory with an indirect call per element.
  (func $mix_memory (param $rounds i32) (result i64)
    (local $i i32) (local $acc i64)
    (loop $outer
      (local.set $i (i32.const 0))
      (loop $inner
        (i64.store (i32.shl (local.get $i) (i32.const 3))
          (i64.add (local.get $acc)
            (call_indirect (type $unary)
              (i64.extend_i32_u (local.get $i))
              (i32.and (local.get $i) (i32.const 1)))))
        (local.set $acc (i64.xor (local.get $acc)
          (i64.load (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $inner (i32.lt_u (local.get $i) (i32.const 512))))
      (local.set $rounds (i32.sub (local.get $rounds) (i32.const 1)))
      (br_if $outer (i32.gt_s (local.get $rounds) (i32.const 0))))
    (local.get $acc))

  (func $collatz_steps (param $n i64) (result i32)
    (local $steps i32)
    (block $done
      (loop $step
        (br_if $done (i64.le_u (local.get $n) (i64.const 1)))
        (local.set $n
          (if (result i64) (i64.eqz (i64.and (local.get $n) (i64.const 1)))
            (then (i64.shr_u (local.get $n) (i64.const 1)))
            (else (i64.add (i64.mul (local.get $n) (i64.const 3)) (i64.const 1)))))
        (local.set $steps (i32.add (local.get $steps) (i32.const 1)))
        (br $step)))
    (local.get $steps))

  (func $collatz_sum (param $limit i64) (result i64)
    (local $n i64) (local $sum i64)
    (local.set $n (i64.const 1))
    (loop $next
      (local.set $sum (i64.add (local.get $sum)
        (i64.extend_i32_u (call $collatz_steps (local.get $n)))))
      (local.set $n (i64.add (local.get $n) (i64.const 1)))
      (br_if $next (i64.lt_u (local.get $n) (local.get $limit))))
    (local.get $sum))

  (func (export "run") (param $scale i32) (result i64)
    (i64.add
      (i64.add (call $fib (i32.add (i32.const 18) (local.get $scale)))
               (call $mix_memory (i32.mul (local.get $scale) (i32.const 64))))
      (call $collatz_sum (i64.extend_i32_u (i32.mul (local.get $scale) (i32.const 3000))))))
)
"""


def worker(engine, module, until, out, slot):
    store = wasmtime.Store(engine)
    run = wasmtime.Instance(store, module, []).exports(store)["run"]
    acc = 0
    while time.monotonic() < until:
        acc ^= run(store, 2)
    out[slot] = acc


def main():
    profiler, seconds = sys.argv[1], float(sys.argv[2])
    config = wasmtime.Config()
    config.profiler = profiler
    engine = wasmtime.Engine(config)
    module = wasmtime.Module(engine, WAT)
    until = time.monotonic() + seconds
    out = [0, 0]
    t = threading.Thread(target=worker, args=(engine, module, until, out, 1))
    t.start()
    worker(engine, module, until, out, 0)
    t.join()
    print(out[0] ^ out[1])


if __name__ == "__main__":
    main()
