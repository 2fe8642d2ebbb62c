/* mcdc.c - MC/DC test program (pgo-merge testdata).
 * Built with -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc,
 * each decision gets bitmap bytes recording the executed test vectors. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int check(int a, int b, int c)
{
    if ((a && b) || c)
        return 1;
    return 0;
}

__attribute__((noinline)) int check4(int a, int b, int c, int d)
{
    int r = 0;
    if ((a || b) && (c || !d))
        r = 2;
    while (a > 0 && (b > 0 || c > 0)) {
        a--;
        r++;
    }
    return r;
}

int main(int argc, char **argv)
{
    /* the first argument is a bit pattern: each set of 3/4 bits is one
     * test vector; the default exercises several vectors */
    unsigned mask = argc > 1 ? (unsigned)strtoul(argv[1], 0, 0) : 0x5b3du;
    int hits = 0;
    for (int i = 0; i < 8; i++) {
        unsigned v = (mask >> (i * 2)) & 0xf;
        hits += check(v & 1, (v >> 1) & 1, (v >> 2) & 1);
        hits += check4((int)(v & 3), (v >> 2) & 1, (v >> 3) & 1, (int)(i & 1));
    }
    printf("hits=%d\n", hits);
    return 0;
}
