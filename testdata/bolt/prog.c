/* A small program for recording BOLT profiles: a few functions,
 * branches that depend on the input, direct and indirect calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int collatz_steps(unsigned long n) {
  int steps = 0;
  while (n != 1) {
    if (n % 2 == 0)
      n /= 2;
    else
      n = 3 * n + 1;
    steps++;
  }
  return steps;
}

static int is_prime(unsigned n) {
  if (n < 2)
    return 0;
  for (unsigned d = 2; d * d <= n; d++)
    if (n % d == 0)
      return 0;
  return 1;
}

static long checksum(const char *s) {
  long h = 5381;
  for (; *s; s++) {
    if (*s >= 'a' && *s <= 'z')
      h = h * 33 + (*s - 'a');
    else if (*s >= '0' && *s <= '9')
      h = h * 31 + (*s - '0');
    else
      h ^= *s;
  }
  return h;
}

typedef long (*op_fn)(long, long);
static long op_add(long a, long b) { return a + b; }
static long op_mul(long a, long b) { return (a * b) % 1000003; }
static long op_xor(long a, long b) { return a ^ b; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "mixed";
  unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], 0, 10) : 1000;
  op_fn ops[3] = {op_add, op_mul, op_xor};
  long acc = 1;
  int primes = 0;
  for (unsigned i = 1; i <= n; i++) {
    if (strcmp(mode, "collatz") == 0 || (strcmp(mode, "mixed") == 0 && i % 3 == 0))
      acc = ops[i % 3](acc, collatz_steps(i));
    else if (strcmp(mode, "primes") == 0 || i % 3 == 1)
      primes += is_prime(i);
    else {
      char buf[32];
      snprintf(buf, sizeof buf, "k%uv%x", i, i * 7);
      acc = ops[(i >> 1) % 3](acc, checksum(buf));
    }
  }
  printf("%s %u: acc=%ld primes=%d\n", mode, n, acc, primes);
  return 0;
}
