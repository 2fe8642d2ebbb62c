// A multi-threaded JVM workload for OpenJDK 21 with -XX:+DumpPerfMapAtExit: lambdas and
// method references (hidden classes the JVM names `Lambdas$$Lambda/0x…`, a per-run address),
// streams, a record, a generic class, an anonymous class and an inner class, on worker
// threads from an executor. Compiled with --release 17 (any javac from 17 on); run on 21.
// Usage: java Lambdas MILLISECONDS.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongBinaryOperator;
import java.util.stream.IntStream;

public class Lambdas {
    static final AtomicLong SINK = new AtomicLong();

    record Point(long x, long y) {
        long dot(Point o) { return x * o.x + y * o.y; }
    }

    static final class Box<T extends Comparable<T>> {
        private final List<T> items = new ArrayList<>();
        void add(T t) { items.add(t); }
        T max() {
            T best = items.get(0);
            for (T t : items) if (t.compareTo(best) > 0) best = t;
            return best;
        }
    }

    /** A non-static inner class: `Lambdas$Counter`. */
    final class Counter {
        long n;
        void bump(long by) { n += by * 3 + (n >>> 5); }
    }

    static long mix(long a, long b) {
        long h = a ^ (b * 0x9E3779B97F4A7C15L);
        for (int i = 0; i < 40; i++) h = (h << 5) ^ (h >>> 3) ^ i;
        return h;
    }

    static long streams(int n) {
        IntFunction<Point> mk = i -> new Point(i, (long) i * i % 97);
        return IntStream.range(0, n)
            .mapToObj(mk)
            .filter(p -> (p.y() & 1) == 0)
            .mapToLong(p -> p.dot(new Point(3, 5)))
            .reduce(0L, Lambdas::mix);
    }

    static String boxes(int seed) {
        Box<String> b = new Box<>();
        for (int i = 0; i < 40; i++) b.add(Integer.toHexString(seed * 7919 + i * 104729));
        return b.max();
    }

    long work(long deadline) {
        Counter c = new Counter();
        LongBinaryOperator op = new LongBinaryOperator() {  // an anonymous class: Lambdas$1
            @Override public long applyAsLong(long a, long b) { return mix(a, b) + 1; }
        };
        long acc = 0;
        while (System.nanoTime() < deadline) {
            acc = op.applyAsLong(acc, streams(3000));
            acc += boxes((int) acc).length();
            c.bump(acc);
        }
        return acc + c.n;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        long deadline = System.nanoTime() + ms * 1_000_000L;
        Lambdas self = new Lambdas();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        for (int t = 0; t < 3; t++) pool.submit(() -> SINK.addAndGet(self.work(deadline)));
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println(SINK.get() & 0xff);
    }
}
