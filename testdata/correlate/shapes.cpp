// The C++ program of the lightweight-instrumentation recordings: a class hierarchy,
// templates and a lambda (mangled names, weak template instances).
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual long area() const = 0;
};
struct Rect : Shape {
  long w, h;
  Rect(long w, long h) : w(w), h(h) {}
  long area() const override { return w * h; }
};
struct Tri : Shape {
  long b, h;
  Tri(long b, long h) : b(b), h(h) {}
  long area() const override { return b * h / 2; }
};

template <typename T> T clamp_sum(const std::vector<T> &v, T limit) {
  T s = 0;
  for (const T &x : v)
    s = s + x > limit ? limit : s + x;
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 5;
  std::vector<long> areas;
  for (int i = 0; i < n; i++) {
    Shape *s = i % 3 ? static_cast<Shape *>(new Rect(i, i + 1)) : new Tri(i, 2 * i);
    areas.push_back(s->area());
    delete s;
  }
  auto twice = [](long x) { return 2 * x; };
  std::printf("%ld %d\n", twice(clamp_sum(areas, 1000L)),
              clamp_sum(std::vector<int>{n, n}, 7));
  return 0;
}
