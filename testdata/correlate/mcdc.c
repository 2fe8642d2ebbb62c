/* MC/DC decisions in functions that -O2 inlines into main: their counters and bitmap
 * variables are described under the inlined functions' abstract subprograms. */
#include <stdlib.h>

static int both(int a, int b) {
  if (a > 2 && b < 5)
    return 1;
  return 0;
}

static int any3(int a, int b, int c) { return (a == 1 || b == 2) && c != 0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4, t = 0;
  for (int i = 0; i < n; i++)
    t += both(i, n - i) + any3(i % 3, i % 4, i & 1);
  return t & 1;
}
