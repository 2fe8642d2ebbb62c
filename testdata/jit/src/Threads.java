// A multi-threaded JVM workload for -XX:+DumpPerfMapAtExit: three worker threads run hot
// methods (so JIT code never runs on the primordial thread) with array parameters and
// results (byte[], String[], int[][]), whose names HotSpot's perf map writes in Java source
// spelling (`byte[]`) where GraalVM writes `[B`.
import java.util.concurrent.atomic.AtomicLong;

public class Threads {
    static final AtomicLong SINK = new AtomicLong();

    static int checksum(byte[] data, int seed) {
        int h = seed;
        for (byte b : data) h = 31 * h + b;
        return h;
    }

    static String[] split(String s, int parts) {
        String[] out = new String[parts];
        int step = Math.max(1, s.length() / parts);
        for (int i = 0; i < parts; i++) {
            int a = Math.min(s.length(), i * step);
            out[i] = s.substring(a, Math.min(s.length(), a + step));
        }
        return out;
    }

    static long sumGrid(int[][] grid) {
        long s = 0;
        for (int[] row : grid) for (int v : row) s += v;
        return s;
    }

    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static void work(int id, long millis) {
        byte[] data = new byte[4096];
        int[][] grid = new int[64][64];
        long end = System.nanoTime() + millis * 1_000_000L;
        long acc = id;
        int round = 0;
        while (System.nanoTime() < end) {
            data[round & 4095] = (byte) round;
            grid[round & 63][(round >> 6) & 63] = round;
            acc += checksum(data, round);
            acc += split("the quick brown fox jumps over the lazy dog " + round, 5).length;
            acc += sumGrid(grid);
            acc += fib(18);
            round++;
        }
        SINK.addAndGet(acc);
    }

    public static void main(String[] args) throws InterruptedException {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            final int id = i;
            ts[i] = new Thread(() -> work(id, millis), "worker-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println(SINK.get());
    }
}
