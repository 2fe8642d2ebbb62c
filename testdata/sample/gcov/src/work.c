/* The program profiled for testdata/sample/gcov (see record.sh). Written for pgo-merge's tests. */
#include <stdio.h>
#include <stdlib.h>

static inline int
leaf(int x)
{
  int y = x * 7 + 3;
  return y % 13;
}

static inline int
mid(int x)
{
  int s = 0;
  for (int i = 0; i < 8; i++)
    s += leaf(x + i);
  return s;
}

__attribute__((noinline)) int
work(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1) s += mid(i); else s -= leaf(i);
  }
  return s;
}

__attribute__((noinline, noipa)) long
other(int n)
{
  long s = 1;
  for (int i = 0; i < n; i++)
    s = s * 3 + i;
  return s;
}

__attribute__((noinline, noipa)) long
cold(int n)
{
  long s = 0;
  for (int i = 0; i < n; i++)
    s += i / 3;
  return s;
}

int
main(int argc, char **argv)
{
  long t = 0;
  int reps = argc > 1 ? atoi(argv[1]) : 3000;
  for (int r = 0; r < reps; r++) {
    t += work(10000 + (r & argc));
    t += other(5000 + (r & 3));
  }
  t += cold(1000 * argc);
  printf("%ld\n", t);
  return 0;
}
