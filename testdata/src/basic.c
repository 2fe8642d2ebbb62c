/* basic.c - test program for raw-profile generation (pgo-merge testdata).
 *
 * Usage: basic N WORD...
 *   N     number of rounds (default 8)
 *   WORD  strings that drive the switch and the buffer sizes
 * Two runs with different arguments give different counters, different
 * indirect-call target distributions and different memcpy/memset sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long (*op_fn)(long, long);

/* Indirect-call targets: three internal (static) functions whose address is
 * taken, and one external one. */
static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_xor(long a, long b) { return a ^ (b << 1); }
long op_mul(long a, long b) { return a * (b | 1); }

/* Not const, so the optimiser cannot fold the table into a switch. */
op_fn ops[4] = { op_add, op_sub, op_xor, op_mul };

static unsigned char src_buf[600];
unsigned char dst_buf[600];

/* Internal function with a loop; kept out of line so it gets its own record
 * even at -O2. */
static __attribute__((noinline)) unsigned checksum(const unsigned char *p, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Never called by main: must show up with zero counts. */
int never_called(int x)
{
    int r = 0;
    for (int i = 0; i < x; i++)
        r += (i & 1) ? i : -i;
    return r;
}

static __attribute__((noinline)) int classify(char c)
{
    switch (c) {
    case 'a': case 'e': case 'i': case 'o': case 'u':
        return 1;            /* vowel */
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return 2;            /* digit */
    case '-':
        return 3;
    case ' ':
        return 4;
    default:
        return 0;
    }
}

/* memcpy/memset with sizes only known at run time -> mem-op size value
 * profile sites. */
__attribute__((noinline)) unsigned shuffle(size_t n, int fill)
{
    if (n > sizeof dst_buf)
        n = sizeof dst_buf;
    memset(dst_buf, fill, n);
    memcpy(dst_buf, src_buf, n / 2);
    return checksum(dst_buf, n);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    long acc = 1;
    unsigned sum = 0;
    int classes[5] = {0};

    for (size_t i = 0; i < sizeof src_buf; i++)
        src_buf[i] = (unsigned char)(i * 7 + 3);

    for (int r = 0; r < rounds; r++) {
        /* indirect call; the target depends on the round and on argc */
        op_fn f = ops[(r * (argc + 1) + r / 3) % 4];
        acc = f(acc, r + 1) % 1000003;
        if (acc < 0)
            acc = -acc;
        sum += shuffle((size_t)(r * 37 + argc * 11) % 700, r);
    }

    for (int a = 2; a < argc; a++) {
        for (const char *p = argv[a]; *p; p++)
            classes[classify(*p)]++;
        sum += shuffle(strlen(argv[a]) * 13, a);
    }

    if (sum % 2)
        printf("odd ");
    else
        printf("even ");
    printf("acc=%ld sum=%u classes=%d/%d/%d/%d/%d\n", acc, sum, classes[0],
           classes[1], classes[2], classes[3], classes[4]);
    return 0;
}
