/* A small CPU-bound program profiled with perf to make real sample profiles
   (testdata/sample/regenerate.sh). Several functions, a loop with branches and
   an inlinable helper so the profiles have bodies, call targets and inlinees. */
#include <stdio.h>
#include <stdlib.h>

static unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x9e3779b1u;
  return h ^ (h >> 15);
}

__attribute__((noinline)) unsigned hash_row(const unsigned *row, int n) {
  unsigned h = 17;
  for (int i = 0; i < n; i++) {
    if (row[i] & 1)
      h = mix(h, row[i]);
    else
      h = mix(h, row[i] >> 1);
  }
  return h;
}

__attribute__((noinline)) unsigned sum_odd(const unsigned *row, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    if (row[i] % 3 == 1)
      s += row[i];
  return s;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  unsigned row[512];
  for (int i = 0; i < 512; i++)
    row[i] = (unsigned)i * 2654435761u;
  unsigned acc = 0;
  for (int r = 0; r < rounds; r++) {
    row[r & 511] ^= acc;
    acc += (r & 3) ? hash_row(row, 512) : sum_odd(row, 512);
  }
  printf("%u\n", acc);
  return 0;
}
