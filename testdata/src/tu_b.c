/* tu_b.c - second translation unit (pgo-merge testdata); see tu_a.c. */
int tu_a_callback(int x);       /* in tu_a.c */

static __attribute__((noinline)) int helper(int x)
{
    return x > 3 ? x * x : x + 7;
}

int tu_b_entry(int x)
{
    int r = helper(x);
    if (r > 20)
        r += tu_a_callback(x / 2);
    return r;
}
