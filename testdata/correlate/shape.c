/* The shared library of the lightweight-instrumentation recordings. */
int shape_area(int kind, int a, int b) {
  switch (kind) {
  case 0:
    return a * b;
  case 1:
    return a * b / 2;
  default:
    return 3 * a * a;
  }
}

int shape_unused(int x) { return x + 1; }
