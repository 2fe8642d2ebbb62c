"""Workload for testdata/jit (CPython scenarios, `-X perf` and `-X perf_jit`): functions
calling each other, a class with methods, a closure, a lambda, a generator expression and
a generator, on the main thread and two worker threads. Usage: py_work.py SECONDS."""
import sys
import threading
import time


class Shape:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side

    @property
    def perimeter(self):
        return 4 * self.side


def make_scaler(k):
    def scale(x):
        return (x * k) % 1009
    return scale


def primes(limit):
    for n in range(2, limit):
        if all(n % d for d in range(2, int(n ** 0.5) + 1)):
            yield n


def crunch(n):
    h = n
    for i in range(60):
        h = (h * 31 + i) ^ (h >> 7)
        h &= 0xFFFFFFFF
    return h


def shapes_total(count):
    shapes = [Shape(i % 17) for i in range(count)]
    return sum(s.area() + s.perimeter for s in shapes)


def work_once(seed):
    scale = make_scaler(seed % 7 + 3)
    total = sum(map(lambda p: scale(p) + crunch(p), primes(400)))
    return total + shapes_total(50)


def worker(until, out, slot):
    acc = 0
    while time.monotonic() < until:
        acc += work_once(acc)
    out[slot] = acc


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    until = time.monotonic() + seconds
    out = [0, 0, 0]
    threads = [threading.Thread(target=worker, args=(until, out, i)) for i in (1, 2)]
    for t in threads:
        t.start()
    worker(until, out, 0)
    for t in threads:
        t.join()
    print(sum(out) & 0xFF)


if __name__ == "__main__":
    main()
