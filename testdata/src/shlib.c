/* shlib.c - shared library part of the exe + .so scenario (pgo-merge testdata).
 * Built as libshlib.so; the executable is shlib_main.c. Each module carries
 * its own copy of the profile runtime, so with LLVM_PROFILE_FILE=x.profraw
 * (no %m) both append a complete profile to the same file. */
typedef int (*shlib_cb)(int);

static __attribute__((noinline)) int scale(int x)
{
    return x < 10 ? x * 3 : x / 2;
}

/* Calls back into the executable through a function pointer: the indirect-
 * call target lives in the other module, so it cannot be resolved to a name
 * from this module's profile. */
int shlib_compute(int n, shlib_cb cb)
{
    int acc = 0;
    for (int i = 0; i < n; i++) {
        if (i % 4 == 0)
            acc += cb(i);
        else
            acc += scale(i);
    }
    return acc;
}

int shlib_unused(int x)
{
    return x * 42;
}
