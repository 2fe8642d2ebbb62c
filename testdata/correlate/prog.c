/* A small program for lightweight-instrumentation recordings: a few functions on
 * different paths, and calls into libshape.so (shape.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shape_area(int kind, int a, int b);

static int collatz(unsigned n) {
  int steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

static int is_prime(int n) {
  if (n < 2)
    return 0;
  for (int d = 2; d * d <= n; d++)
    if (n % d == 0)
      return 0;
  return 1;
}

int reverse_words(char *s) {
  int words = 0;
  for (char *w = strtok(s, " "); w; w = strtok(NULL, " ")) {
    size_t len = strlen(w);
    for (size_t i = 0; i < len / 2; i++) {
      char c = w[i];
      w[i] = w[len - 1 - i];
      w[len - 1 - i] = c;
    }
    words++;
  }
  return words;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  const char *mode = argc > 2 ? argv[2] : "all";
  long total = 0;
  if (!strcmp(mode, "all") || !strcmp(mode, "collatz"))
    for (int i = 1; i <= n; i++)
      total += collatz(i);
  if (!strcmp(mode, "all") || !strcmp(mode, "primes"))
    for (int i = 0; i < n; i++)
      total += is_prime(i);
  if (!strcmp(mode, "words")) {
    char text[] = "lightweight profiles keep their names in the binary";
    total += reverse_words(text);
  }
  total += shape_area(n % 3, n, n + 1);
  printf("%ld\n", total);
  return 0;
}
