/* tu_a.c - first of two translation units (pgo-merge testdata).
 * Both tu_a.c and tu_b.c define a static function `helper`, so their PGO
 * names get file prefixes ("tu_a.c;helper" / "tu_b.c;helper" for IR PGO in
 * LLVM >= 18, "tu_a.c:helper" before). Calls go both ways across the TUs. */
#include <stdio.h>
#include <stdlib.h>

int tu_b_entry(int x);          /* in tu_b.c */

static __attribute__((noinline)) int helper(int x)
{
    int r = 0;
    for (int i = 0; i < x; i++)
        r += i % 3 ? i : 2 * i;
    return r;
}

int tu_a_callback(int x)        /* called from tu_b.c */
{
    return helper(x) + 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    int total = 0;
    for (int i = 0; i < n; i++)
        total += (i & 1) ? tu_b_entry(i) : helper(i);
    printf("total=%d\n", total);
    return 0;
}
