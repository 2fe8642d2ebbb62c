/* shlib_main.c - executable part of the exe + .so scenario (pgo-merge
 * testdata); links against libshlib.so built from shlib.c. */
#include <stdio.h>
#include <stdlib.h>

typedef int (*shlib_cb)(int);
int shlib_compute(int n, shlib_cb cb);

static int square(int x) { return x * x; }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 12;
    int r = shlib_compute(n, square);
    printf("shlib_compute(%d) = %d\n", n, r);
    return r == 0;
}
