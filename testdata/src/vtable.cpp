// vtable.cpp - virtual calls through base pointers (pgo-merge testdata).
// Built with -fprofile-generate -mllvm -enable-vtable-value-profiling, the
// virtual call sites get indirect-call *and* vtable value profiles, and the
// raw profile carries vtable records and vtable names (raw v10+).
// Written without new/delete, RTTI, exceptions or pure virtuals so that it
// builds without libstdc++ (-fno-rtti -fno-exceptions -nostdinc++ -nostdlib++), which lets
// the -m32 build work without a 32-bit libstdc++. Only C headers are included.
#include <stdio.h>
#include <stdlib.h>

struct Shape {
    virtual long area() const { return 0; }
    virtual const char *name() const { return "shape"; }
    virtual void grow(int by) { (void)by; }
};

struct Circle : Shape {
    int r;
    explicit Circle(int r_) : r(r_) {}
    long area() const override { return 3L * r * r; }
    const char *name() const override { return "circle"; }
    void grow(int by) override { r += by; }
};

struct Square : Shape {
    int s;
    explicit Square(int s_) : s(s_) {}
    long area() const override { return (long)s * s; }
    const char *name() const override { return "square"; }
    void grow(int by) override { s += 2 * by; }
};

struct Triangle : Shape {
    int b, h;
    Triangle(int b_, int h_) : b(b_), h(h_) {}
    long area() const override { return (long)b * h / 2; }
    const char *name() const override { return "triangle"; }
};

namespace {
// internal linkage: its vtable and methods get file-prefixed PGO names
struct Hexagon : Shape {
    int s;
    explicit Hexagon(int s_) : s(s_) {}
    long area() const override { return 26L * s * s / 10; }
    const char *name() const override { return "hexagon"; }
};
}

static Circle circles[4] = {Circle(1), Circle(2), Circle(3), Circle(4)};
static Square squares[4] = {Square(1), Square(2), Square(3), Square(4)};
static Triangle triangles[4] = {Triangle(1, 2), Triangle(3, 4), Triangle(5, 6), Triangle(7, 8)};
static Hexagon hexagons[2] = {Hexagon(1), Hexagon(2)};

Shape *shapes[32];   // global, so the optimiser cannot see the dynamic types

__attribute__((noinline)) long total_area(Shape *const *v, int n)
{
    long t = 0;
    for (int i = 0; i < n; i++)
        t += v[i]->area();          // virtual call site
    return t;
}

__attribute__((noinline)) void grow_all(Shape *const *v, int n, int by)
{
    for (int i = 0; i < n; i++)
        v[i]->grow(by);             // virtual call site
}

int main(int argc, char **argv)
{
    // argv[1] is a pattern of shape letters: c, s, t, h
    const char *pat = argc > 1 ? argv[1] : "cstcsc";
    int n = 0;
    for (const char *p = pat; *p && n < 32; p++) {
        Shape *s = nullptr;
        switch (*p) {
        case 'c': s = &circles[n % 4]; break;
        case 's': s = &squares[n % 4]; break;
        case 't': s = &triangles[n % 4]; break;
        case 'h': s = &hexagons[n % 2]; break;
        default: break;
        }
        if (s)
            shapes[n++] = s;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    long t = 0;
    for (int r = 0; r < rounds; r++) {
        t += total_area(shapes, n);
        grow_all(shapes, n, 1);
    }
    printf("%d shapes, first %s, total %ld\n", n, n ? shapes[0]->name() : "-", t);
    return 0;
}
